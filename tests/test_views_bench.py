"""bench/bench_views.py keeps working: it runs on a tiny run and prints every figure (no timing is asserted)."""

from collections.abc import Callable
from types import ModuleType

import pytest


def test_bench_views_prints_every_figure(
    capsys: pytest.CaptureFixture[str], import_bench: Callable[[str], ModuleType]
) -> None:
    """On a 50-step run with one round, the benchmark prints each measure with its ratio and target."""
    bench = import_bench("bench_views")
    bench.main(["--steps", "50", "--rounds", "1"])
    out = capsys.readouterr().out
    names = [name for name, _, _ in bench.figures(20, 1)]
    for name in names:
        assert f"{name}: " in out
    assert out.count("target <= 0.1") == 3 and out.count("target <= 3") == 1
