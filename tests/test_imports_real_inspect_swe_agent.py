"""Real, unmodified Inspect logs and SWE-agent trajectories (``tests/fixtures/real/MANIFEST.json``) import whole."""

from __future__ import annotations

from typing import Any

import pytest

import agentrender
from agentrender import render
from agentrender.imports import load_runs
from tests._support import real

REAL = real.REAL


def _entries() -> list[Any]:
    entries = [entry for entry in real.histories() if entry["format"] in ("inspect", "swe_agent")]
    if not entries:
        return [pytest.param(None, marks=pytest.mark.skip(reason="no tests/fixtures/real/MANIFEST.json"))]
    return [pytest.param(entry, id=entry["path"]) for entry in entries]


@pytest.mark.parametrize("entry", _entries())
def test_a_real_log_or_trajectory_loads_and_renders_every_run(entry: dict[str, Any]) -> None:
    """Each real Inspect log and SWE-agent trajectory is found by ``agentrender.load``; every run of it renders
    its last view and each recorded step's reply back to its decision; a trajectory's exit status is its end."""
    path = REAL / entry["path"]
    runs = load_runs(path)
    assert agentrender.load(path).run_id == runs[0].run_id
    for run in runs:
        render.messages(run.step_input(len(run.steps)), run.options())
        for call in run.model_calls:
            if 0 <= call.step < len(run.steps) and call.response is not None:
                assert render.decide(call.response) == run.steps[call.step].decision, (run.run_id, call.step)
    statuses = [feature.split(":", 1)[1] for feature in entry["features"] if feature.startswith("exit_status:")]
    if statuses:
        assert runs[0].end is not None and runs[0].end["reason"] == statuses[0]
