"""Shared pytest configuration: golden files, compared exactly and rewritten only on request; bench modules.

What the everyday loop leaves out, and the examples its property tests try, are settled in the
checkout's own ``conftest.py``.
"""

import importlib
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests._support.browser import require
from tests._support.jupyterlab import Lab, missing_requirement, serve

GOLDEN = Path(__file__).parent / "golden"
BENCH = Path(__file__).resolve().parents[1] / "bench"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite the files under tests/golden/ from the current output instead of comparing against them",
    )


@pytest.fixture(autouse=True)
def _no_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with ``COLUMNS`` unset: the CLI lays piped output out at it where it is set, and
    pytest-xdist's workers set it to 80. A test of a width sets it, or passes ``--width``."""
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.fixture
def golden(request: pytest.FixtureRequest) -> Callable[[str, str], None]:
    """``golden(name, text)``: assert ``text`` equals ``tests/golden/<name>``, or rewrite it with --update-golden."""
    update = bool(request.config.getoption("--update-golden"))

    def check(name: str, text: str) -> None:
        path = GOLDEN / name
        if update:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8", newline="\n")
            return
        if not path.exists():
            pytest.fail(f"{path} is missing: run pytest with --update-golden to create it, then review the diff")
        assert text == path.read_text(encoding="utf-8"), f"{path} differs (pytest --update-golden rewrites it)"

    return check


@pytest.fixture
def scattered(monkeypatch: pytest.MonkeyPatch) -> list[tuple[list[Any], str]]:
    """What matplotlib's ``Axes.scatter`` draws in this test (the explorer's size chart): each call's x values and its
    marker (``"v"``: the breaks of the cache prefix it marks, ``"D"``: the compactions), drawn as it draws them."""
    from matplotlib.axes import Axes

    drawn: list[tuple[list[Any], str]] = []
    scatter = Axes.scatter

    def noted(self: Any, x: Any, y: Any, *args: Any, **kwargs: Any) -> Any:
        drawn.append((list(x), kwargs["marker"]))
        return scatter(self, x, y, *args, **kwargs)

    monkeypatch.setattr(Axes, "scatter", noted)
    return drawn


@pytest.fixture(scope="session")
def long_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sweep's run of 100,000 steps (``tests/_support/sweep.py``), written once a session for the browser
    tests that open a long run: the shared page's and the notebook explorer's."""
    from tests._support.sweep import write_long_run

    return write_long_run(tmp_path_factory.mktemp("long-run") / "run-100k.jsonl")


@pytest.fixture(scope="session")
def jupyter_lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """One JupyterLab for the session's browser tests of notebooks; each opens its notebook with ``Lab.opened``."""
    require(missing_requirement())
    with serve(tmp_path_factory.mktemp("jupyterlab")) as lab:
        yield lab


@pytest.fixture
def import_bench() -> Iterator[Callable[[str], ModuleType]]:
    """``import_bench(name)``: the module ``bench/<name>.py``; ``bench/`` is on ``sys.path`` for this test only."""
    sys.path.insert(0, str(BENCH))
    try:
        yield importlib.import_module
    finally:
        sys.path.remove(str(BENCH))


@pytest.fixture
def run_bench() -> Callable[..., str]:
    """``run_bench(name, *args)``: what ``python bench/<name>.py ARGS`` prints, run as a user runs it.

    A process of its own, because a benchmark collects the garbage before each timed call: a
    full collection takes about 100 ms in a test session's heap, a millisecond in the script's.
    """

    def run(name: str, *args: str) -> str:
        child = subprocess.run(
            [sys.executable, str(BENCH / f"{name}.py"), *args],
            capture_output=True, text=True, check=True, timeout=300,
            env={**os.environ, "PYTHONPATH": str(BENCH.parent)},
        )  # fmt: skip
        return child.stdout

    return run
