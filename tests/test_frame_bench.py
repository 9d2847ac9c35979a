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
