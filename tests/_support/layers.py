"""The package's layers, read from its code: which module imports which, and the picture of it.

``LAYERS`` is the one statement of the architecture: the floors of the house, lowest first,
each a list of module names (a name stands for the module and everything below it). A
module may import modules of its own floor or lower ones, never a higher one; the imports
are read from the source with ``ast``, lazy imports inside functions included, and only
imports under ``if TYPE_CHECKING:`` (which never run) left out.

``mermaid()`` draws the floors and the imports between them, for ``docs/architecture.md``.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "agentrender"

LAYERS: list[tuple[str, str, list[str]]] = [
    (
        "base",
        "standard-library helpers: speed tricks, JSON, unsafe text, optional extras, counts in words, streamed replies",
        ["agentrender._json", "agentrender._text", "agentrender._extras", "agentrender._words", "agentrender._stream"],
    ),
    ("display of values", "HTML of plain values, duck-typed", ["agentrender._display.values", "agentrender._display"]),
    ("values", "the data: steps, decisions, blocks, messages", ["agentrender._types"]),
    ("contract", "the render contract, once", ["agentrender.render"]),
    ("request rules", "what the Messages API accepts", ["agentrender._api_rules"]),
    (
        "facts",
        "each step rendered once, and what every block is",
        [
            "agentrender.views.sizes",
            "agentrender.views.facts",
            "agentrender.views.explain",
            "agentrender.views.renders",
        ],
    ),
    ("display of views", "HTML of views, runs and explanations", ["agentrender.views.html"]),
    ("views", "the model's view at any step", ["agentrender.views"]),
    (
        "run files",
        "recorded runs: read, write, the Run; recording an SDK client's calls",
        ["agentrender.runfile", "agentrender.recording"],
    ),
    (
        "consumers",
        "frames (pandas, Dask), bundled samples, importers, provider adapters, the shared page; "
        "the package's face (its load)",
        [
            "agentrender.frame",
            "agentrender.dask",
            "agentrender.samples",
            "agentrender.imports",
            "agentrender.adapters",
            "agentrender",
            "agentrender.html",
        ],
    ),
    (
        "applications",
        "the terminal, notebooks, an agent runtime, test doubles",
        [
            "agentrender.cli",
            "agentrender.notebook",
            "agentrender.agent",
            "agentrender.testing",
            "agentrender.live",
            "agentrender.__main__",
        ],
    ),
]
"""The floors, lowest first: (name, what lives there, module prefixes)."""


def module_name(path: Path) -> str:
    """``agentrender/views/view.py`` -> ``agentrender.views.view``; a package's ``__init__`` is the package."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    """Every module of the package, by name."""
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def layer_of(module: str) -> int:
    """The floor of ``module``: the floor of the longest prefix that names it."""
    best, floor = -1, -1
    for number, (_, _, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, floor = len(prefix), number
    if floor < 0:
        raise LookupError(f"{module} is on no floor of LAYERS: say where it belongs in tests/_support/layers.py")
    return floor


@dataclass(frozen=True)
class Import:
    """One import of a module of the package by another."""

    source: str
    """The importing module."""
    target: str
    """The imported module (a name imported from a package resolves to its submodule when there is one)."""
    line: int
    """Where the import stands in the importing module."""
    names: tuple[str, ...]
    """The names taken with ``from target import ...`` (empty for ``import target``)."""


@functools.cache
def _parsed(path: Path, mtime: float) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def parse(path: Path) -> ast.Module:
    """The module's syntax tree, parsed once per version of the file (the checks read every module several times)."""
    return _parsed(path, path.stat().st_mtime)


def _type_checking_lines(tree: ast.Module) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def _resolve(source: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = source.split(".")
    is_package = (PACKAGE.parent / Path(*base) / "__init__.py").exists()
    keep = len(base) - node.level + (1 if is_package else 0)
    return ".".join(base[:keep] + ([node.module] if node.module else []))


def imports() -> tuple[Import, ...]:
    """Every import of a package module by a package module that runs (``TYPE_CHECKING`` ones left out)."""
    known = modules()
    return _imports(tuple((source, path, path.stat().st_mtime) for source, path in known.items()))


@functools.cache
def _imports(versions: tuple[tuple[str, Path, float], ...]) -> tuple[Import, ...]:
    """The imports of these versions of the modules, read once (the checks ask for them several times)."""
    return tuple(_walk_imports({source: path for source, path, _ in versions}))


def _walk_imports(known: dict[str, Path]) -> Iterator[Import]:
    for source, path in known.items():
        tree = parse(path)
        skip = _type_checking_lines(tree)
        for node in ast.walk(tree):
            if getattr(node, "lineno", 0) in skip:
                continue
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == "agentrender":
                        yield Import(source, alias.name, node.lineno, ())
            elif isinstance(node, ast.ImportFrom):
                target = _resolve(source, node)
                if target.split(".")[0] != "agentrender":
                    continue
                plain = []
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    if sub in known:
                        yield Import(source, sub, node.lineno, ())
                    else:
                        plain.append(alias.name)
                if plain:
                    yield Import(source, target, node.lineno, tuple(plain))


def private_uses() -> Iterator[str]:
    """``file:line module._name`` for each private name one module takes from another."""
    known = modules()
    for source, path in known.items():
        tree = parse(path)
        aliases: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                target = _resolve(source, node)
                if target.split(".")[0] != "agentrender":
                    continue
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    if sub in known:
                        aliases[alias.asname or alias.name] = sub
                    elif _private(alias.name) and target != source:
                        yield f"{path.relative_to(ROOT)}:{node.lineno} {target}.{alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in known and alias.asname:
                        aliases[alias.asname] = alias.name
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and _private(node.attr)
                and aliases[node.value.id] != source
            ):
                yield f"{path.relative_to(ROOT)}:{node.lineno} {aliases[node.value.id]}.{node.attr}"


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def unit(module: str) -> str:
    """The box a module is drawn in: its top-level module or package under ``agentrender``."""
    parts = module.split(".")
    if len(parts) == 1:
        return "agentrender"
    if parts[1] == "views" and len(parts) > 2:
        return ".".join(parts[:3])  # the package spans floors; draw its modules
    return ".".join(parts[:2])


def mermaid() -> str:
    """The floors and the imports between their boxes, as a Mermaid flowchart (lowest floor at the bottom)."""
    units: dict[str, int] = {}
    for module in modules():
        units.setdefault(unit(module), layer_of(module))
    edges = sorted({(unit(i.source), unit(i.target)) for i in imports() if unit(i.source) != unit(i.target)})
    lines = ["flowchart BT"]
    for number, (name, what, _) in enumerate(LAYERS):
        members = sorted(u for u, floor in units.items() if floor == number)
        if not members:
            continue
        lines.append(f'  subgraph L{number}["{number}. {name}: {what}"]')
        lines.extend(f'    {_node(u)}["{u}"]' for u in members)
        lines.append("  end")
    lines.extend(f"  {_node(source)} --> {_node(target)}" for source, target in edges)
    return "\n".join(lines) + "\n"


def _node(unit_name: str) -> str:
    return unit_name.replace(".", "_").replace("__", "_")
