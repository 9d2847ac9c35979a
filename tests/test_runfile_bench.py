"""bench/bench_runfile.py keeps working: its generator and main run on a tiny size (no time is asserted)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from agentrender import load_run

pytestmark = pytest.mark.slow


@pytest.fixture
def bench(import_bench: Callable[[str], ModuleType]) -> ModuleType:
    return import_bench("bench_runfile")


@pytest.mark.parametrize("name", ["run.jsonl", "run.jsonl.gz"])
def test_generated_run_records_each_step_twice_and_loads_cleanly(bench: ModuleType, tmp_path: Path, name: str) -> None:
    """Each step is recorded when decided and again when answered; the later record is the one loaded."""
    path = tmp_path / name
    bench.generate(path, 7)
    run = load_run(path)
    assert run.warnings == () and run.end is not None
    assert [step.index for step in run.steps] == list(range(7))
    assert all(step.observation is not None for step in run.steps)
    assert len(run.records) == 1 + 2 * 7 + 1


def test_bench_main_prints_every_figure(bench: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    """main() on a tiny size prints memory and time for the plain file and, with --gzip, the compressed one."""
    bench.main(["--steps", "20", "--runs", "1", "--gzip"])
    out = capsys.readouterr().out
    for name in ("run.jsonl:", "run.jsonl.gz:"):
        assert name in out
    assert out.count("peak memory of load_run") == 2 and out.count("ratio load_run / json.loads") == 2


def test_the_grid_measures_each_cell_in_a_fresh_process(
    bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each cell of the grid is measured in a process of its own, which nothing the measuring process holds or changed
    reaches (here a ``compare_cell`` that fails); it prints each cell's time and memory and the worst of each."""

    def fails(*_: object) -> None:
        raise AssertionError("the cell ran in the measuring process")

    monkeypatch.setattr(bench, "compare_cell", fails)
    rows = bench.bench_grid(tmp_path, 1, 100, steps=(10,), result_bytes=(200,))
    out = capsys.readouterr().out
    assert len(rows) == 4 and all(time > 0 and memory > 0 for _, time, memory in rows)
    for at, name in ((1, "time"), (2, "memory")):
        assert f"worst {name}: {max(rows, key=lambda row: row[at])[0].strip()}" in out
