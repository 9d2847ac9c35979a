"""bench/bench_views.py keeps working: it runs on a tiny run and prints every figure (no timing is asserted)."""

import importlib
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"


def test_bench_views_prints_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    """On a 50-step run with one round, the benchmark prints each measure with its ratio and target."""
    sys.path.insert(0, str(BENCH))
    try:
        bench = importlib.import_module("bench_views")
        bench.main(["--steps", "50", "--rounds", "1"])
    finally:
        sys.path.remove(str(BENCH))
    out = capsys.readouterr().out
    names = [name for name, _, _ in bench.figures(20, 1)]
    for name in names:
        assert f"{name}: " in out
    assert out.count("target <= 0.1") == 3 and out.count("target <= 3") == 1
