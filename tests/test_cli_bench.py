"""bench/bench_cli.py keeps working: its generator and every measure run on a tiny size (no time is asserted)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from agentrender import load_run
from agentrender.views import disagreements, explain_decide

pytestmark = pytest.mark.slow


@pytest.fixture
def bench(import_bench: Callable[[str], ModuleType]) -> ModuleType:
    return import_bench("bench_cli")


def test_generated_run_is_what_a_runtime_records(bench: ModuleType, tmp_path: Path) -> None:
    """The generated run loads cleanly, each decision is decide's of its reply, and every 50th step has none."""
    path = tmp_path / "run.jsonl"
    bench.generate(path, 120)
    run = load_run(path)
    assert run.warnings == () and len(run.steps) == len(run.model_calls) == 120
    for step, call in zip(run.steps, run.model_calls, strict=True):
        if step.index % 50 == 49:
            assert step.decision is None
        else:
            assert disagreements(explain_decide(call.response).decision, step.decision) == ()


def test_every_measure_runs_and_prints(bench: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    """main_bench on tiny runs prints every figure with its ratio to load_run."""
    bench.main_bench(["--show-steps", "60", "--check-steps", "80", "--repeat", "1"])
    out = capsys.readouterr().out
    for what in ("show --at 0", "show --at 30", "show after the last step", "show --json", "check, 80 steps"):
        assert what in out
