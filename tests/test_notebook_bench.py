"""bench/bench_notebook.py keeps working: it runs on tiny runs and prints every figure (no timing is asserted)."""

import re
from collections.abc import Callable
from types import ModuleType

import pytest


@pytest.mark.slow
def test_bench_notebook_prints_every_cell_and_the_worst(
    import_bench: Callable[[str], ModuleType], run_bench: Callable[..., str]
) -> None:
    """Run as a user runs it, on a 2x2 grid of tiny runs with one repeat: a line per cell with every measure's ratio
    and time (a filter change's too), then each measure's worst cell, against its bound where the issue set one."""
    bench = import_bench("bench_notebook")
    out = run_bench("bench_notebook", "--steps", "30", "120", "--results", "200", "3000", "--repeat", "1")
    assert out.splitlines()[1].split() == [
        "steps", "result", "load_run", "explorer", "conversation", "slider", "move", "page", "turn", "filter", "change"
    ]  # fmt: skip
    rows = [line.split() for line in out.splitlines() if line.strip()[:1].isdigit()]
    assert [(row[0], row[1]) for row in rows] == [("30", "200B"), ("30", "3,000B"), ("120", "200B"), ("120", "3,000B")]
    for row in rows:  # the load, then a ratio and a time for each of the five measures
        assert len(row) == 18 and row[2].endswith("s")
        assert all(ratio.endswith("x") and float(ratio[:-1]) > 0 for ratio in row[3::3])
        assert row[5::3] == ["ms"] * 5
    for name in bench.BOUNDS:
        assert f"worst {name}: " in out
    assert re.search(
        r"^worst filter change: [\d.]+ ms \([\d.]+x load_run\) at [\d,]+ steps of [\d,]+-byte results$", out, re.M
    )
