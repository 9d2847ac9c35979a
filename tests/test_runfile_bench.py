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
