"""bench/bench_frame.py keeps working: it runs end to end on a tiny size (no timing is asserted)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from agentrender.frame import steps_frame
from agentrender.runfile import load_run

pytestmark = pytest.mark.slow


@pytest.fixture
def bench(import_bench: Callable[[str], ModuleType]) -> ModuleType:
    return import_bench("bench_frame")


def test_generated_run_file_loads_as_written(bench: ModuleType, tmp_path: Path) -> None:
    """The benchmark's generated run file is a valid run file: it loads without warnings, every record placed."""
    run = load_run(bench.write_run(tmp_path / "run.jsonl", 12))
    assert run.warnings == ()
    assert [step.index for step in run.steps] == list(range(12))
    assert len(run.model_calls) == 12 and run.end is not None
    frame = steps_frame(run)
    assert frame["duration"].notna().all() and frame["input_tokens"].notna().all()


def test_bench_main_prints_every_figure(bench: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    """main() runs on a tiny size and prints the baseline, the ratio, and runs per second for 1 and 2 workers."""
    bench.main(["--steps", "20", "--runs", "6", "--run-steps", "3", "--repeat", "1"])
    out = capsys.readouterr().out
    for label in ("pandas.read_json(lines=True)", "ratio", "workers=1", "workers=2", "runs/s", "scaling"):
        assert label in out


@pytest.mark.parametrize(("model_calls", "records_per_step"), [(False, 1), (False, 2), (True, 1), (True, 2)])
def test_every_shape_of_the_grid_loads_as_its_steps(
    bench: ModuleType, tmp_path: Path, model_calls: bool, records_per_step: int
) -> None:
    """Each shape of the grid is a valid run file: the steps in order, a model call a step or none, no warning."""
    path = bench.write_run(
        tmp_path / "run.jsonl", 9, model_calls=model_calls, records_per_step=records_per_step, content_bytes=200
    )
    run = load_run(path)
    assert run.warnings == ()
    assert [step.index for step in run.steps] == list(range(9))
    assert all(step.observation is not None for step in run.steps)
    assert len(run.model_calls) == (9 if model_calls else 0)
    assert sum(1 for line in path.read_text().splitlines() if '"type": "step"' in line) == 9 * records_per_step


def test_the_grid_prints_each_cell_and_the_worst(
    bench: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """bench_grid measures load, frame and both on every shape of each size it is given, skips a cell over
    max_mib, and names the worst cell of each measure."""
    rows = bench.bench_grid(tmp_path, 1, steps=(10, 100_000), result_bytes=(200,), max_mib=5)
    out = capsys.readouterr().out
    assert len(rows) == 4 and all(ratio > 0 for row in rows for ratio in row[1:])
    assert out.count("skipped (over --max-mib 5)") == 4
    for at, name in ((1, "load"), (2, "frame"), (3, "both")):
        assert f"worst cell of {name}: {max(rows, key=lambda row: row[at])[0].strip()}" in out


def test_the_grid_measures_each_cell_in_a_fresh_process(
    bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each cell is measured in a process of its own, which nothing the measuring process holds or changed reaches
    (here a ``compare_cell`` that fails): a cell measured after others met what they left to the allocator."""

    def fails(*_: object) -> None:
        raise AssertionError("the cell ran in the measuring process")

    monkeypatch.setattr(bench, "compare_cell", fails)
    rows = bench.bench_grid(tmp_path, 1, steps=(10,), result_bytes=(200,))
    assert len(rows) == 4 and all(ratio > 0 for row in rows for ratio in row[1:])


def test_the_grid_is_chosen_on_the_command_line(bench: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    """``--grid --grid-steps --grid-results`` measures exactly the cells of those sizes."""
    bench.main(["--grid", "--grid-steps", "6,8", "--grid-results", "100", "--repeat", "1"])
    out = capsys.readouterr().out
    assert sum(1 for line in out.splitlines() if line.strip().startswith(("6 ", "8 "))) == 8
