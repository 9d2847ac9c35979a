"""Every public name of the core explains itself where a notebook user looks (``render.messages?``)."""

import ast
import doctest
import inspect
from pathlib import Path

import agentrender
from agentrender import _types, render


def public_objects() -> list[tuple[str, object]]:
    found = [(f"agentrender.{name}", getattr(agentrender, name)) for name in agentrender.__all__]
    found += [(f"render.{name}", getattr(render, name)) for name in render.__all__]
    return [(name, obj) for name, obj in found if inspect.isclass(obj) or inspect.isfunction(obj)]


def test_public_functions_and_classes_have_docstrings() -> None:
    """Each public function and class, and each public method and property of a class, has a docstring sentence."""
    missing = []
    for name, obj in public_objects():
        if not (obj.__doc__ or "").strip().split("\n")[0].endswith("."):
            missing.append(name)
        if inspect.isclass(obj):
            for attribute, member in vars(obj).items():
                if attribute.startswith("_"):
                    continue
                target = member.__func__ if isinstance(member, classmethod) else member
                if (inspect.isfunction(target) or isinstance(target, property)) and not (target.__doc__ or "").strip():
                    missing.append(f"{name}.{attribute}")
    assert missing == []


def attribute_docstrings(owner: ast.Module | ast.ClassDef) -> dict[str, bool]:
    """Which assigned names in ``owner`` are followed by a string literal (the docstring mkdocs and IDEs show)."""
    documented: dict[str, bool] = {}
    body = owner.body
    for statement, following in zip(body, [*body[1:], None], strict=True):
        target = None
        if isinstance(statement, ast.Assign) and isinstance(statement.targets[0], ast.Name):
            target = statement.targets[0].id
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            target = statement.target.id
        if target is None or target.startswith("_"):
            continue
        documented[target] = isinstance(following, ast.Expr) and isinstance(following.value, ast.Constant)
    return documented


def test_constants_and_fields_have_attribute_docstrings() -> None:
    """Every public constant of render and every field of a core dataclass has a docstring line under it."""
    undocumented = []
    for module in (render, _types):
        path = Path(module.__file__ or "")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        scopes: list[ast.Module | ast.ClassDef] = [tree]
        scopes += [node for node in tree.body if isinstance(node, ast.ClassDef) and not node.name.startswith("_")]
        for scope in scopes:
            for name, ok in attribute_docstrings(scope).items():
                public = scope is not tree or name in getattr(module, "__all__", ())
                if public and not ok:
                    undocumented.append(f"{path.name}:{getattr(scope, 'name', '')}.{name}")
    assert undocumented == []


def test_render_module_examples_run() -> None:
    """The examples in render's docstrings run and print what they show."""
    result = doctest.testmod(render, verbose=False)
    assert result.attempted > 0
    assert result.failed == 0
