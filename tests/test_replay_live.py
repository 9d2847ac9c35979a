"""The live agent re-driven from its recording: offline, and through the real SDK against a local server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import pytest

from agentrender import Decision, live, render
from agentrender.adapters.anthropic import AnthropicModel, ModelCallError, ReplayMiss, ReplayModel, Request, to_params
from agentrender.adapters.messages_server import Failure, MessagesServer
from tests.test_adapter_anthropic import request_accepts

TIMING = frozenset({"started_at", "ended_at", "at", "latency_ms"})


def records(path: str | Path) -> list[dict[str, Any]]:
    """The run file's records with the fields that measure time removed."""
    with open(path, encoding="utf-8") as lines:
        return [{key: value for key, value in json.loads(line).items() if key not in TIMING} for line in lines]


@pytest.fixture
def recorded() -> Iterator[Any]:
    """The bundled recording, read for replay."""
    yield live.load_recording(live.REPLAY)


def test_the_bundled_recording_completes_the_task(recorded: Any) -> None:
    """The bundled recording ends completed, its last step a passing run_tests."""
    assert recorded.end["status"] == "completed"
    last = recorded.steps[-1]
    assert (last.decision.tool, last.observation.status, last.observation.summary) == (
        "run_tests",
        "ok",
        "1 passed, 0 failed",
    )


def test_the_bundled_recording_is_what_the_script_records(tmp_path: Path) -> None:
    """Recording the scripted stand-in again gives the bundled file, but for timings (it cannot drift)."""
    out = tmp_path / "scripted.jsonl"
    live.drive(live.ScriptedModel(), str(out), model_name=live.SCRIPTED_MODEL)
    assert records(out) == records(live.REPLAY)


def test_replaying_offline_reproduces_the_recording(tmp_path: Path, recorded: Any) -> None:
    """Driving the agent with ReplayModel over the bundled recording writes the same run file but for timings."""
    out = tmp_path / "replayed.jsonl"
    outcome = live.drive(ReplayModel(recorded), str(out), model_name=recorded.model)
    assert outcome.status == "completed"
    assert records(out) == records(live.REPLAY)


def test_every_view_of_the_recording_converts_to_params_the_sdk_accepts(recorded: Any) -> None:
    """Every step's view, under several windows and caps, gives params the SDK's types and the API's rules accept."""
    for at in [*range(len(recorded.steps)), None]:
        for settings in ({}, {"recent_results": 0}, {"recent_results": 1, "result_bytes": 8}, {"result_bytes": 0}):
            messages = render.messages(recorded.step_input(at=at), recorded.options(**settings))
            request_accepts(Request(messages=messages, tools=recorded.tools, model=recorded.model).params())


@pytest.fixture
def server(recorded: Any) -> Iterator[MessagesServer]:
    """A local Messages API answering from the bundled recording."""
    with MessagesServer.from_run(recorded) as local:
        yield local


def _client(server: MessagesServer, timeout: float = 10.0) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=server.base_url, api_key="local", max_retries=0, timeout=timeout)


def test_redriving_through_the_sdk_reproduces_the_recording(
    tmp_path: Path, recorded: Any, server: MessagesServer
) -> None:
    """The real SDK client against the local server sends the recorded requests and rewrites the same run file."""
    out = tmp_path / "sdk.jsonl"
    model = AnthropicModel(_client(server), model=recorded.model)
    outcome = live.drive(model, str(out), model_name=recorded.model)
    assert [received.reason for received in server.rejections] == []
    assert [received.key for received in server.received] == [call.request_key for call in recorded.model_calls]
    for received in server.received:
        request_accepts(received.body)
        assert received.body["tool_choice"] == {"type": "auto", "disable_parallel_tool_use": True}
    assert outcome.status == "completed"
    assert records(out) == records(live.REPLAY)


@pytest.mark.parametrize(
    ("failure", "expected"),
    [
        (
            Failure(status=400, error_type="invalid_request_error", message="messages.4: bad"),
            "400 invalid_request_error",
        ),
        (Failure(status=429, error_type="rate_limit_error", message="Too many requests"), "429 rate_limit_error"),
        (Failure(status=529, error_type="overloaded_error", message="Overloaded"), "529 overloaded_error"),
        (Failure(status=200, delay=2.0), "did not answer in time"),
    ],
)
def test_an_sdk_error_names_the_step_and_leaves_the_run_file_readable(
    tmp_path: Path, recorded: Any, server: MessagesServer, failure: Failure, expected: str
) -> None:
    """A 400, 429, 529 or timeout at step 2 raises ModelCallError naming step 2; the file holds steps 0-1 and an end."""
    out = tmp_path / "failed.jsonl"
    model = AnthropicModel(_client(server, timeout=0.3), model=recorded.model)
    original = model.generate

    def generate(request: Request) -> Any:
        if request.step == 2:
            server.fail_next(failure)
        return original(request)

    model.generate = generate  # type: ignore[method-assign]
    with pytest.raises(ModelCallError, match=rf"^step 2: .*{expected}") as caught:
        live.drive(model, str(out), model_name=recorded.model)
    assert caught.value.step == 2
    partial = live.load_recording(str(out))
    assert [step.index for step in partial.steps] == [0, 1]
    assert partial.end is not None and partial.end["status"] == "failed" and "step 2" in partial.end["error"]
    whole = records(live.REPLAY)
    cut = next(i for i, record in enumerate(whole) if record["type"] == "model_call" and record["step"] == 2)
    assert records(out)[:-1] == whole[:cut]


def test_a_changed_world_misses_the_replay_at_the_step_and_message_it_changed(
    tmp_path: Path, recorded: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With calc.py changed, step 2's request differs at message 4 (step 1's result) and the miss says so."""
    monkeypatch.setitem(live.PROJECT, "calc.py", "def add(a, b):\n    return a - b  # changed\n")
    with pytest.raises(ReplayMiss) as caught:
        live.drive(ReplayModel(recorded), str(tmp_path / "changed.jsonl"), model_name=recorded.model)
    assert (caught.value.step, caught.value.message_index) == (2, 4)
    assert "changed" in str(caught.value)


def test_main_runs_offline_from_the_bundled_recording(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """python -m agentrender.live without a key replays the bundled recording and completes."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    out = tmp_path / "main.jsonl"
    assert live.main(["--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "replies from the recording" in printed and "completed after 4 steps" in printed
    assert records(out) == records(live.REPLAY)


@pytest.mark.parametrize(
    ("tool", "args", "expected"),
    [
        ("write_file", {"path": "test_calc.py", "content": "x"}, "write_file may not change the tests (test_calc.py)"),
        (
            "write_file",
            {"path": "../calc.py", "content": "x"},
            "write_file may only write a file of the project, not '../calc.py'",
        ),
        ("write_file", {"path": "calc.py"}, "write_file needs a string 'content'"),
        ("read_file", {"path": "calc.py", "mode": "r"}, "read_file takes no mode"),
        ("delete_file", {"path": "calc.py"}, "there is no tool named 'delete_file'"),
        ("read_file", ["calc.py"], "the arguments of read_file must be an object"),
        ("read_file", {"path": "calc.py"}, ""),
    ],
)
def test_the_policy_refuses_what_the_agent_may_not_do(tool: str, args: Any, expected: str) -> None:
    """The policy says why a call may not run (tests are not writable, paths stay inside), or allows it."""
    tools = {definition["name"]: definition for definition in live.TOOLS}
    assert live.policy(Decision(kind="tool_call", tool=tool, args=args), tools) == expected


def test_a_refused_call_becomes_an_invalid_decision_the_model_is_told_about(tmp_path: Path) -> None:
    """A call the policy refuses runs nothing and the next render carries the refusal as an error result."""

    class WritesTheTest(live.ScriptedModel):
        def generate(self, request: Request) -> Any:
            to_params(request.messages)
            response = super().generate(request)
            if request.step == 0:
                use = response.content[1]
                return type(response)(
                    content=(
                        response.content[0],
                        type(use)(
                            type="tool_use",
                            tool_use_id="toolu_x",
                            name="write_file",
                            input={"path": "test_calc.py", "content": ""},
                        ),
                    ),
                    stop_reason="tool_use",
                )
            return response

    outcome = live.drive(WritesTheTest(), str(tmp_path / "refused.jsonl"), model_name="m", max_steps=2)
    first = outcome.steps[0]
    assert first.observation is not None and first.observation.status == "invalid_decision"
    view = render.messages(
        live.load_recording(str(tmp_path / "refused.jsonl")).step_input(), render.Options(opening="x")
    )
    assert view[2].content[0].content == (
        "Your reply could not be executed: write_file may not change the tests (test_calc.py). "
        "Respond with exactly one tool call."
    )
