"""The driver's model-backed agent, its policy hook and its failed end record."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentrender import ModelResponse, render
from agentrender.adapters.anthropic import Request, raw_assistant_block
from agentrender.agent.driver import Driver, FakeClock, Killed, ModelAgent, ScriptedModel, Tool
from agentrender.agent.tools import scratch_tools
from agentrender.runfile import RunWriter, load_run

CALL_LIST_DIR = {
    "content": [
        {"type": "text", "text": "look"},
        {"type": "tool_use", "id": "toolu_1", "name": "list_dir", "input": {}},
    ],
    "stop_reason": "tool_use",
}


class Failing:
    """A model whose call fails at ``step``, as an SDK error would."""

    def __init__(self, step: int, error: Exception) -> None:
        self.step, self.error, self.inner = step, error, ScriptedModel([CALL_LIST_DIR] * 5)

    def send(self, request: Request) -> Any:
        if request.step == self.step:
            raise self.error
        return self.inner.send(request)


def _drive(tmp_path: Path, model: Any, policy: Any = None) -> tuple[Path, str]:
    path = tmp_path / "run.jsonl"
    tools = scratch_tools(tmp_path)
    with RunWriter(path) as writer:
        agent = ModelAgent(
            model,
            writer=writer,
            options=render.Options(opening="o"),
            model_name="m",
            tools=[t.definition() for t in tools],
        )
        driver = Driver(agent, tools, writer, clock=FakeClock(), policy=policy)
        driver.start(run_id="r", goal="g")
        try:
            reason = driver.run(run_id="r", goal="g")
        except Killed:
            reason = "killed"
    return path, reason


def test_an_agent_error_ends_the_run_failed_naming_the_step_and_goes_on_up(tmp_path: Path) -> None:
    """A model call failing at step 1 is raised as it was; the file loads cleanly and ends failed, naming step 1."""
    with pytest.raises(RuntimeError, match=r"^overloaded\n") as caught:
        _drive(tmp_path, Failing(1, RuntimeError("overloaded")))
    run = load_run(tmp_path / "run.jsonl")
    assert run.warnings == ()
    assert run.end is not None
    assert (run.end["status"], run.end["reason"], run.end["error"]) == ("failed", "agent_error", "step 1: overloaded")
    assert "step 1: overloaded" in run._repr_html_()
    assert [(s.index, s.decision is not None) for s in run.steps] == [(0, True), (1, False)]
    assert any("ends here, with a failed end record" in note for note in caught.value.__notes__)


def test_an_error_that_names_its_step_is_not_named_twice(tmp_path: Path) -> None:
    """An error whose text already begins with 'step N:' is recorded as it is."""
    with pytest.raises(RuntimeError):
        _drive(tmp_path, Failing(0, RuntimeError("step 0: the Anthropic API answered 529 overloaded_error")))
    end = load_run(tmp_path / "run.jsonl").end
    assert end is not None and end["error"] == "step 0: the Anthropic API answered 529 overloaded_error"


def test_a_killed_process_leaves_no_end_record(tmp_path: Path) -> None:
    """Killed stands for the process dying: the driver writes no end, so the run can be resumed."""
    _, reason = _drive(tmp_path, Failing(1, Killed("gone")))
    run = load_run(tmp_path / "run.jsonl")
    assert reason == "killed" and run.end is None


def test_the_policy_refuses_a_call_the_schema_allows(tmp_path: Path) -> None:
    """A policy's reason becomes the step's invalid_decision summary; a streak of refusals ends the run."""

    def no_listing(decision: Any, tool: Tool) -> str:
        return f"{tool.name} is not allowed here" if tool.name == "list_dir" else ""

    path, reason = _drive(tmp_path, ScriptedModel([CALL_LIST_DIR] * 3), policy=no_listing)
    run = load_run(path)
    assert reason == "repeated_tool_failures"
    assert {(s.observation.status, s.observation.summary) for s in run.steps if s.observation} == {
        ("invalid_decision", "list_dir is not allowed here")
    }


def test_the_recorded_request_key_is_the_requests_replay_key(tmp_path: Path) -> None:
    """ModelAgent records Request.replay_key for the request it sent, which a ScriptedModel sees unchanged."""
    seen: list[Request] = []

    class Spy(ScriptedModel):
        def send(self, request: Request) -> Any:
            seen.append(request)
            return super().send(request)

    path, _ = _drive(tmp_path, Spy([CALL_LIST_DIR] * 2 + [{"content": [], "stop_reason": "end_turn"}] * 3))
    calls = load_run(path).model_calls
    assert [call.request_key for call in calls] == [request.replay_key for request in seen]
    assert len(set(call.request_key for call in calls)) == len(calls)


def test_a_reply_whose_tool_input_is_not_an_object_is_not_replayed_verbatim() -> None:
    """A tool use carrying raw argument text cannot be sent back as written, so its turn is synthesized."""
    reply = ModelResponse.from_dict(
        {"content": [{"type": "tool_use", "id": "toolu_9", "name": "f", "input": "{broken"}], "stop_reason": "tool_use"}
    )
    assert raw_assistant_block(reply) is None
