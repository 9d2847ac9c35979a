"""The house keeps its floors: no import of a higher floor or of a private name, and the picture is true."""

import re
import types
from pathlib import Path

import pytest

import agentrender
from tests._support import layers

ARCHITECTURE = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"


def test_every_module_stands_on_a_floor() -> None:
    """Each module of the package has a floor in LAYERS, so a new module must be placed before it lands."""
    for module in layers.modules():
        layers.layer_of(module)


def test_no_module_imports_a_higher_floor() -> None:
    """Every import that runs (lazy ones inside functions included) goes to the same floor or a lower one."""
    upward = [
        f"{i.source}:{i.line} imports {i.target} "
        f"({layers.LAYERS[layers.layer_of(i.source)][0]} -> {layers.LAYERS[layers.layer_of(i.target)][0]})"
        for i in layers.imports()
        if layers.layer_of(i.target) > layers.layer_of(i.source)
    ]
    assert upward == []


def test_the_module_graph_has_no_cycle() -> None:
    """No chain of imports that run leads from a module back to itself."""
    graph: dict[str, set[str]] = {}
    for i in layers.imports():
        if i.target != i.source and not (i.source.startswith(i.target + ".") and not i.names):
            graph.setdefault(i.source, set()).add(i.target)
    seen: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, path: list[str]) -> None:
        seen[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if seen.get(nxt) == 1:
                cycles.append([*path[path.index(nxt) :], nxt] if nxt in path else [node, nxt])
            elif nxt not in seen:
                visit(nxt, [*path, nxt])
        seen[node] = 2

    for node in sorted(graph):
        if node not in seen:
            visit(node, [node])
    assert cycles == []


def test_no_module_takes_another_modules_private_name() -> None:
    """A name with a leading underscore is used only in the module that defines it."""
    assert list(layers.private_uses()) == []


def test_the_layer_check_sees_a_lazy_upward_import(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check reads imports inside function bodies, and leaves out those under TYPE_CHECKING."""
    package = tmp_path / "agentrender"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "_types.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from agentrender import frame\n"
        "def f():\n    from agentrender import views\n"
    )
    (package / "views.py").write_text("")
    (package / "frame.py").write_text("")
    monkeypatch.setattr(layers, "ROOT", tmp_path)
    monkeypatch.setattr(layers, "PACKAGE", package)
    found = [(i.source, i.target, i.line) for i in layers.imports()]
    assert found == [("agentrender._types", "agentrender.views", 5)]


def test_the_public_face_names_every_public_name() -> None:
    """agentrender.__all__ is exactly the public names the package exposes (its submodules aside)."""
    public = {
        name
        for name in dir(agentrender)
        if not name.startswith("_") and not isinstance(getattr(agentrender, name), types.ModuleType)
    }
    assert sorted(agentrender.__all__) == sorted(public)


def test_the_architecture_picture_is_drawn_from_the_code(request: pytest.FixtureRequest) -> None:
    """docs/architecture.md's diagram is exactly what the imports give (pytest --update-golden redraws it)."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    pattern = re.compile(r"(<!-- layers:begin -->\n```mermaid\n)(.*?)(```\n<!-- layers:end -->)", re.DOTALL)
    match = pattern.search(text)
    assert match, "docs/architecture.md has no <!-- layers:begin --> mermaid block"
    drawn = layers.mermaid()
    if request.config.getoption("--update-golden"):
        ARCHITECTURE.write_text(pattern.sub(lambda m: m.group(1) + drawn + m.group(3), text), encoding="utf-8")
        return
    assert match.group(2) == drawn, (
        "the layers changed: pytest tests/test_layers.py --update-golden redraws the picture"
    )
