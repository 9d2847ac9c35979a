"""The package reads as types and plain code: none of the interpreter tricks the typed layer replaced.

Issue 22 retired them: constructors generated with ``exec`` and a ``__class__`` swapped in,
the collector frozen or switched off around a load, the ``json`` module's private
scanner and encoder, and methods hidden from the type checker (``if not TYPE_CHECKING``: a
model call's ``__getattr__`` that filled its empty fields). Nor does it pass a library's private argument (an
underscore keyword such as rich's ``Console(_environ=...)``), which any release of it may drop. A trick coming back
fails here, with its file and line.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import agentrender

PACKAGE = Path(agentrender.__file__).resolve().parent

_BANNED_CALLS = {
    ("gc", "freeze"): "freezes the collector's generations, the user's own objects with them",
    ("gc", "unfreeze"): "unfreezes the collector's generations",
    ("gc", "disable"): "switches the user's collector off",
    ("gc", "enable"): "switches the user's collector on behind their back",
}
_BANNED_MODULES = {
    "json.scanner": "the json module's private scanner",
    "json.encoder": "the json module's private encoder",
}


def _scan(paths: list[Path], root: Path = PACKAGE.parent) -> list[str]:
    """Each trick in ``paths``, as ``file:line: what``. An underscore keyword is one when no file scanned defines a
    parameter of that name (``Views(_renders=...)`` is the package's own; ``Console(_environ=...)`` is rich's)."""
    defined: set[str] = set()
    passed: list[tuple[str, str]] = []
    found = [trick for path in paths for trick in _tricks(path, root, defined, passed)]
    return found + [trick for name, trick in passed if name not in defined]


def _tricks(path: Path, root: Path, defined: set[str], passed: list[tuple[str, str]]) -> Iterator[str]:
    """The tricks of ``path``; the underscore parameters it defines go to ``defined``, the underscore keywords it
    passes to ``passed``, as ``_scan`` judges them once every file is read."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    where = path.relative_to(root)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in ("exec", "eval", "compile"):
                yield f"{where}:{node.lineno}: {func.id}() generates code at run time"
            passed.extend(
                (k.arg, f"{where}:{node.lineno}: passes {k.arg}=, a library's private argument, gone in any release")
                for k in node.keywords
                if k.arg is not None and k.arg.startswith("_")
            )
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                why = _BANNED_CALLS.get((func.value.id, func.attr))
                if why:
                    yield f"{where}:{node.lineno}: {func.value.id}.{func.attr}() {why}"
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Attribute) and target.attr == "__class__":
                    yield f"{where}:{node.lineno}: assigns __class__ (a value made as one class becomes another)"
        elif isinstance(node, ast.arguments):
            defined.update(a.arg for a in (*node.posonlyargs, *node.args, *node.kwonlyargs) if a.arg.startswith("_"))
        elif isinstance(node, ast.If) and _not_type_checking(node.test):
            yield f"{where}:{node.lineno}: hides code from the type checker (if not TYPE_CHECKING)"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in _BANNED_MODULES:
                    yield f"{where}:{node.lineno}: imports {_BANNED_MODULES[alias.name]} ({alias.name})"
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""] + [f"{node.module}.{alias.name}" for alias in node.names]
            for name in names:
                if name in _BANNED_MODULES:
                    yield f"{where}:{node.lineno}: imports {_BANNED_MODULES[name]} ({name})"


def _not_type_checking(test: ast.expr) -> bool:
    return (
        isinstance(test, ast.UnaryOp)
        and isinstance(test.op, ast.Not)
        and isinstance(test.operand, ast.Name | ast.Attribute)
        and (test.operand.id if isinstance(test.operand, ast.Name) else test.operand.attr) == "TYPE_CHECKING"
    )


def test_the_package_calls_no_interpreter_trick() -> None:
    """No exec/eval/compile, no gc.freeze/unfreeze/disable/enable, no __class__ assigned, no json.scanner/encoder, no
    code under ``if not TYPE_CHECKING``, no underscore keyword passed (rich's ``Console(_environ=...)``)."""
    assert _scan(sorted(PACKAGE.rglob("*.py"))) == []


def test_the_check_finds_each_trick(tmp_path: Path) -> None:
    """The scan itself: a file holding each trick is caught once a trick, at its line."""
    planted = tmp_path / "planted.py"
    planted.write_text(
        "import gc\nimport json.scanner\nfrom json import encoder\n"
        "exec('x = 1')\ngc.freeze()\ngc.disable()\nobject().__class__ = int\n"
        "if not typing.TYPE_CHECKING:\n    x = 2\nif not TYPE_CHECKING:\n    x = 3\nif TYPE_CHECKING:\n    x = 4\n"
        "Console(width=80,\n        _environ={})\nConsole(width=80, **options)\n"
        "def view(_renders=None):\n    pass\nview(_renders=1)\n",
        encoding="utf-8",
    )
    found = _scan([planted], tmp_path)
    assert sorted(int(line.split(":")[1]) for line in found) == [2, 3, 4, 5, 6, 7, 8, 10, 14], found
