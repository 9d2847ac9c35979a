"""ReplayModel: a recorded run's model calls answer the requests that made them, and a miss says what differs."""

from __future__ import annotations

from typing import Any

import pytest

from agentrender import Decision, ModelResponse, Observation, Step, render
from agentrender.adapters.anthropic import ReplayMiss, ReplayModel, Request
from agentrender.runfile import ModelCall, Run

TOOLS = ({"name": "read_file", "description": "Read.", "input_schema": {"type": "object"}},)
HEADER = {"run_id": "r-1", "goal": "Fix it.", "system": "Be brief.", "model": "claude-test", "tools": list(TOOLS)}


def _reply(path: str) -> ModelResponse:
    return ModelResponse.from_dict(
        {
            "id": f"msg_{path}",
            "content": [{"type": "tool_use", "id": f"toolu_{path}", "name": "read_file", "input": {"path": path}}],
            "stop_reason": "tool_use",
            "model": "claude-test",
        }
    )


def _step(index: int, path: str, content: str = "text") -> Step:
    return Step(
        index=index,
        decision=Decision(kind="tool_call", tool="read_file", args={"path": path}),
        observation=Observation(content=content, summary=f"read {path}"),
    )


def _request(run: Run, at: int, **changes: Any) -> Request:
    settings: dict[str, Any] = {"system": run.system, "tools": run.tools, "model": run.model, "step": at}
    settings.update(changes)
    messages = settings.pop("messages", None) or render.messages(run.step_input(at=at), run.options())
    return Request(messages=messages, **settings)


def _recorded_run() -> Run:
    """A two-step run whose model calls carry the keys of the requests that made them."""
    steps = (_step(0, "a.py"), _step(1, "b.py"))
    bare = Run(header=HEADER, steps=steps)
    calls = tuple(
        ModelCall(step=i, response=_reply(path), request_key=_request(bare, i).replay_key)
        for i, path in enumerate(["a.py", "b.py"])
    )
    return Run(header=HEADER, steps=steps, model_calls=calls)


def test_each_recorded_request_gets_its_recorded_reply() -> None:
    """Re-rendering each step's request from the record finds the reply that step received."""
    run = _recorded_run()
    model = ReplayModel(run)
    for at, path in enumerate(["a.py", "b.py"]):
        assert model.generate(_request(run, at)) == _reply(path)


def test_a_request_without_a_model_is_taken_to_be_for_the_runs_model() -> None:
    """A request naming no model is looked up as if it named the run's model."""
    run = _recorded_run()
    assert ReplayModel(run).generate(_request(run, 0, model="")) == _reply("a.py")


def test_calls_with_the_same_key_are_answered_in_file_order() -> None:
    """Two calls recorded for one request (a retry) answer the first and second asks in order; a third misses."""
    run = _recorded_run()
    first = run.model_calls[0]
    retry = ModelCall(step=0, response=_reply("again"), request_key=first.request_key)
    run = Run(header=run.header, steps=run.steps, model_calls=(first, retry, run.model_calls[1]))
    model = ReplayModel(run)
    assert [model.generate(_request(run, 0)) for _ in range(2)] == [_reply("a.py"), _reply("again")]
    with pytest.raises(ReplayMiss):
        model.generate(_request(run, 0))


def test_a_miss_names_the_step_and_the_first_differing_message() -> None:
    """A request whose third message differs from the record raises ReplayMiss naming the step and message 2."""
    run = _recorded_run()
    changed = (_step(0, "a.py", content="other text"),)
    messages = render.messages(run.step_input(at=1).__class__(steps=changed), run.options())
    with pytest.raises(ReplayMiss) as caught:
        ReplayModel(run).generate(_request(run, 1, messages=messages))
    assert caught.value.step == 1 and caught.value.message_index == 2
    message = str(caught.value)
    assert message.startswith("step 1: the request differs from the recorded one at message 2 (user): recorded ")
    assert '"content": "text"' in message and '"content": "other text"' in message


def test_a_miss_from_a_longer_conversation_names_where_it_parts() -> None:
    """A request with more messages than the record says how many each has and where they part."""
    run = _recorded_run()
    longer = render.messages(run.step_input(), run.options())
    with pytest.raises(ReplayMiss, match=r"^step 1: the request has 5 messages, the recorded one 3; .* message 3$"):
        ReplayModel(run).generate(_request(run, 1, messages=longer))


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"system": "Be long."}, r"system \('.*', now 'Be long\.'\)"),
        ({"model": "claude-other"}, r"model \('.*', now 'claude-other'\)"),
        ({"tools": ()}, r"tools \(\[.*\], now \[\]\)"),
    ],
)
def test_a_miss_with_the_same_messages_names_the_differing_field(change: dict[str, Any], field: str) -> None:
    """When the messages match the record, the miss names the request field that does not, recorded and now."""
    run = _recorded_run()
    said = rf"^step 0: the messages match the recorded request but {field.replace('(', '(recorded ', 1)} differ$"
    with pytest.raises(ReplayMiss, match=said):
        ReplayModel(run).generate(_request(run, 0, **change))


def test_a_miss_for_a_step_with_no_recorded_call_says_so() -> None:
    """Asking for a step the run made no model call for names that step."""
    run = _recorded_run()
    with pytest.raises(ReplayMiss, match=r"^step 2: the recorded run made no model call for step 2$"):
        ReplayModel(run).generate(_request(run, 2))


def test_a_miss_without_a_step_says_the_step_is_unknown() -> None:
    """A request that does not name its step still misses clearly."""
    run = _recorded_run()
    with pytest.raises(ReplayMiss, match=r"^a model call: no recorded model call has this request's replay key"):
        ReplayModel(run).generate(_request(run, 0, step=None, system="x"))


def test_a_miss_names_max_tokens_when_the_header_records_what_was_asked() -> None:
    """With the header's max_output_tokens, a request that differs only in max_tokens is named as such, with the
    recorded cap and the request's (Request's default of 4096 against a recording's own cap is the usual miss)."""
    recorded = _recorded_run()
    run = Run(header={**HEADER, "max_output_tokens": 4096}, steps=recorded.steps, model_calls=recorded.model_calls)
    assert ReplayModel(run).generate(_request(run, 0, max_tokens=4096)) == _reply("a.py")
    said = r"^step 0: the messages match the recorded request but max_tokens \(recorded 4096, now 100\) differ$"
    with pytest.raises(ReplayMiss, match=said):
        ReplayModel(run).generate(_request(run, 0, max_tokens=100))
    with pytest.raises(ReplayMiss, match=r"other settings \(max_tokens\?\)"):
        ReplayModel(recorded).generate(_request(recorded, 0, max_tokens=100))
