"""Shared pytest configuration: golden files, compared exactly and rewritten only on request; bench modules.

Property tests try a tenth of their examples in the everyday loop (``-m "not slow"``): it
loads hypothesis' ``dev`` profile unless ``--hypothesis-profile`` names one (see
``tests/_support/examples.py``). The full suite tries them all.
"""

import importlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import settings

GOLDEN = Path(__file__).parent / "golden"
BENCH = Path(__file__).resolve().parents[1] / "bench"


settings.register_profile("dev", max_examples=10)


def pytest_configure(config: pytest.Config) -> None:
    everyday = "not slow" in (config.option.markexpr or "")
    if everyday and config.getoption("hypothesis_profile", None) is None:
        settings.load_profile("dev")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite the files under tests/golden/ from the current output instead of comparing against them",
    )


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
def import_bench() -> Iterator[Callable[[str], ModuleType]]:
    """``import_bench(name)``: the module ``bench/<name>.py``; ``bench/`` is on ``sys.path`` for this test only."""
    sys.path.insert(0, str(BENCH))
    try:
        yield importlib.import_module
    finally:
        sys.path.remove(str(BENCH))
