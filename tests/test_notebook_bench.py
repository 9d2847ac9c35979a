"""bench/bench_notebook.py keeps working: it runs on tiny runs and prints every figure (no timing is asserted)."""

from collections.abc import Callable
from types import ModuleType

import pytest


@pytest.mark.slow
def test_bench_notebook_prints_every_cell_and_the_worst(
    capsys: pytest.CaptureFixture[str], import_bench: Callable[[str], ModuleType]
) -> None:
    """On a 2x2 grid of tiny runs, one repeat, the benchmark prints a line per cell and each measure's worst cell."""
    bench = import_bench("bench_notebook")
    cells = bench.main(["--steps", "30", "120", "--results", "200", "3000", "--repeat", "1"])
    out = capsys.readouterr().out
    assert [(steps, result) for steps, result, _ in cells] == [(30, 200), (30, 3000), (120, 200), (120, 3000)]
    assert all(set(figures) == {"load_run", *bench.BOUNDS, "ConversationView"} for _, _, figures in cells)
    for name in bench.BOUNDS:
        assert f"worst {name}: " in out
    rows = [line.split() for line in out.splitlines() if line.strip()[:1].isdigit()]
    assert [(row[0], row[1]) for row in rows] == [("30", "200B"), ("30", "3,000B"), ("120", "200B"), ("120", "3,000B")]
