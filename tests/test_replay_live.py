"""The live agent on the sample runs' driver: its bundled recording, offline replay, the SDK, errors, the policy."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import pytest

from agentrender import Decision, render, samples
from agentrender.adapters.anthropic import AnthropicModel, ModelCallError, ReplayMiss, ReplayModel, Request
from agentrender.agent import live
from agentrender.agent.driver import ScriptedModel
from agentrender.runfile import Run, load_run
from agentrender.testing import Failure, MessagesServer
from tests._support.sdk import request_accepts

# An integration test: the real SDK or pyarrow against local servers and files, seconds in all.
pytestmark = pytest.mark.slow

TIMING = frozenset({"started_at", "ended_at", "at", "latency_ms"})


def records(path: str | Path) -> list[dict[str, Any]]:
    """The run file's records with the fields that measure time removed."""
    with open(path, encoding="utf-8") as lines:
        return [{key: value for key, value in json.loads(line).items() if key not in TIMING} for line in lines]


@pytest.fixture(scope="module")
def recorded() -> Run:
    """The bundled recording."""
    return load_run(live.REPLAY)


def test_the_bundled_recording_completes_the_task_and_loads_cleanly(recorded: Run) -> None:
    """The bundled recording loads with no warning and ends completed, its last step a passing run_tests."""
    assert recorded.warnings == ()
    assert recorded.end is not None and recorded.end["reason"] == "completed"
    last = recorded.steps[-1]
    assert last.decision is not None and last.observation is not None
    assert (last.decision.tool, last.observation.status, last.observation.summary) == (
        "run_tests",
        "ok",
        "1 passed, 0 failed",
    )


def test_the_bundled_recording_is_what_the_script_records(tmp_path: Path) -> None:
    """Recording the script again on the driver gives the bundled file byte for byte (it cannot drift)."""
    out = tmp_path / "scripted.jsonl"
    live.record_bundled(str(out))
    assert out.read_bytes() == Path(live.REPLAY).read_bytes()


def test_replaying_offline_reproduces_the_recording(tmp_path: Path, recorded: Run) -> None:
    """Driving the agent with ReplayModel over the bundled recording writes the same run file but for timings."""
    out = tmp_path / "replayed.jsonl"
    replayed = live.run(ReplayModel(recorded), str(out), model_name=recorded.model)
    assert replayed.end is not None and replayed.end["reason"] == "completed"
    assert records(out) == records(live.REPLAY)


def test_main_refuses_to_overwrite_a_run_file_without_force(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An existing run file is kept and named, exit 2; --force overwrites it, and -o names another file."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    out = tmp_path / "kept.jsonl"
    out.write_text("mine\n", encoding="utf-8")
    assert live.main(["-o", str(out)]) == 2
    assert out.read_text(encoding="utf-8") == "mine\n"
    assert f"{out} exists; --force overwrites it" in capsys.readouterr().err
    assert live.main(["-o", str(out), "--force"]) == 0
    assert records(out) == records(live.REPLAY)


def test_every_view_of_the_recording_converts_to_params_the_sdk_accepts(recorded: Run) -> None:
    """Every step's view, under several windows and caps, gives params the SDK's types and the API's rules accept."""
    for at in [*range(len(recorded.steps)), None]:
        for settings in ({}, {"recent_results": 0}, {"recent_results": 1, "result_bytes": 8}, {"result_bytes": 0}):
            messages = render.messages(recorded.step_input(at=at), recorded.options(**settings))
            request_accepts(Request(messages=messages, tools=recorded.tools, model=recorded.model).params())


@pytest.fixture
def server(recorded: Run) -> Iterator[MessagesServer]:
    """A local Messages API answering from the bundled recording."""
    with MessagesServer.from_run(recorded) as local:
        yield local


def _client(server: MessagesServer, timeout: float = 10.0) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=server.base_url, api_key="local", max_retries=0, timeout=timeout)


def test_redriving_through_the_sdk_reproduces_the_recording(
    tmp_path: Path, recorded: Run, server: MessagesServer
) -> None:
    """The real SDK client against the local server sends the recorded requests and rewrites the same run file."""
    out = tmp_path / "sdk.jsonl"
    redriven = live.run(AnthropicModel(_client(server), model=recorded.model), str(out), model_name=recorded.model)
    assert [received.reason for received in server.rejections] == []
    assert [received.key for received in server.received] == [call.request_key for call in recorded.model_calls]
    for received in server.received:
        request_accepts(received.body)
        assert received.body["tool_choice"] == {"type": "auto", "disable_parallel_tool_use": True}
    assert redriven.end is not None and redriven.end["reason"] == "completed"
    assert records(out) == records(live.REPLAY)


@pytest.mark.parametrize(
    ("failure", "expected"),
    [
        (
            Failure(status=400, error_type="invalid_request_error", message="messages.4: bad"),
            "400 invalid_request_error: messages.4: bad",
        ),
        (Failure(status=429, error_type="rate_limit_error", message="Too many requests"), "429 rate_limit_error"),
        (Failure(status=529, error_type="overloaded_error", message="Overloaded"), "529 overloaded_error"),
        (Failure(status=200, delay=2.0), "did not answer in time"),
    ],
)
def test_an_sdk_error_names_the_step_and_leaves_the_run_file_readable(
    tmp_path: Path, recorded: Run, server: MessagesServer, failure: Failure, expected: str
) -> None:
    """A 400 (body shown), 429, 529 or timeout at step 2 raises ModelCallError naming step 2; the file ends failed."""
    out = tmp_path / "failed.jsonl"
    model = AnthropicModel(_client(server, timeout=0.3), model=recorded.model)
    original = model.send

    def send(request: Request) -> Any:
        if request.step == 2:
            server.fail_next(failure)
        return original(request)

    model.send = send  # type: ignore[method-assign]
    with pytest.raises(ModelCallError, match=rf"^step 2: .*{expected}") as caught:
        live.run(model, str(out), model_name=recorded.model)
    assert caught.value.step == 2
    assert any(str(out) in note for note in caught.value.__notes__)
    partial = load_run(out)
    assert partial.warnings == ()
    assert [(step.index, step.decision is not None) for step in partial.steps] == [(0, True), (1, True), (2, False)]
    assert partial.end is not None and (partial.end["status"], partial.end["reason"]) == ("failed", "agent_error")
    assert partial.end["error"].startswith("step 2: ") and expected in partial.end["error"]
    whole = records(live.REPLAY)
    cut = next(i for i, record in enumerate(whole) if record["type"] == "model_call" and record["step"] == 2)
    assert records(out)[:cut] == whole[:cut]


def test_a_changed_world_misses_the_replay_at_the_step_and_message_it_changed(tmp_path: Path, recorded: Run) -> None:
    """With calc.py changed, step 2 differs at message 4 (step 1's result); the miss says so, the file ends failed."""
    workspace = live.Workspace()
    workspace.files["calc.py"] = "def add(a, b):\n    return a - b  # changed\n"
    out = tmp_path / "changed.jsonl"
    with pytest.raises(ReplayMiss) as caught:
        live.run(ReplayModel(recorded), str(out), model_name=recorded.model, workspace=workspace)
    assert (caught.value.step, caught.value.message_index) == (2, 4)
    assert "changed" in str(caught.value)
    end = load_run(out).end
    assert end is not None and end["status"] == "failed" and end["error"].startswith("step 2: ")


def test_main_runs_offline_from_the_bundled_recording(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """python -m agentrender.agent.live without a key replays the bundled recording and completes."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    out = tmp_path / "main.jsonl"
    assert live.main(["--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "replies from the recording" in printed and "completed after 4 steps" in printed
    assert records(out) == records(live.REPLAY)


def test_main_replays_any_file_load_reads_and_names_one_it_cannot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """--replay reads what agentrender.load reads: another agent's call log stops at step 0 naming the first message
    that differs, as the guide says; a file of no known format is one line naming it, exit 2, no run file written.
    Before, a call log was a traceback of load_run's RunFileError, and a recording of agentrender.record said "the
    recorded run made no model call for step 0" (load_run reads its calls as no steps)."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    log = samples.imports_folder() / "stock-lookup.calls.jsonl"
    out = tmp_path / "other.jsonl"
    assert live.main(["--replay", str(log), "-o", str(out)]) == 1
    said = capsys.readouterr().err
    assert said.startswith("live agent: stopped: step 0: the request differs from the recorded one at message 0 (user)")
    readme = tmp_path / "notes.txt"
    readme.write_text("not a run\n", encoding="utf-8")
    assert live.main(["--replay", str(readme), "-o", str(tmp_path / "none.jsonl")]) == 2
    said = capsys.readouterr().err
    assert said.startswith(f"live agent: --replay {readme}: {readme}:1: not a run") and said.count("\n") == 1
    assert not (tmp_path / "none.jsonl").exists()


@pytest.mark.parametrize(
    ("tool", "args", "expected"),
    [
        ("write_file", {"path": "test_calc.py", "content": "x"}, "write_file may not change the tests (test_calc.py)"),
        (
            "write_file",
            {"path": "../calc.py", "content": "x"},
            "write_file may only write a file of the project, not '../calc.py'",
        ),
        (
            "write_file",
            {"path": "calc.py"},
            "the arguments for write_file do not match its schema: 'content' is a required property",
        ),
        (
            "read_file",
            {"path": "calc.py", "mode": "r"},
            "the arguments for read_file do not match its schema: Additional properties are not allowed "
            "('mode' was unexpected)",
        ),
        (
            "delete_file",
            {"path": "calc.py"},
            "unknown tool 'delete_file' (the tools are list_files, read_file, write_file, run_tests)",
        ),
        (
            "read_file",
            ["calc.py"],
            "the arguments for read_file do not match its schema: ['calc.py'] is not of type 'object'",
        ),
        ("read_file", {"path": "calc.py"}, ""),
    ],
)
def test_the_driver_and_policy_refuse_what_the_agent_may_not_do(
    tmp_path: Path, tool: str, args: Any, expected: str
) -> None:
    """A call the schemas or the policy refuse runs nothing; the step's invalid_decision says why (else it runs)."""
    reply = {
        "content": [{"type": "tool_use", "id": "toolu_1", "name": tool, "input": args}],
        "stop_reason": "tool_use",
    }
    workspace = live.Workspace()
    ran = live.run(
        ScriptedModel([reply]), str(tmp_path / "one.jsonl"), model_name="m", max_steps=1, workspace=workspace
    )
    observation = ran.steps[0].observation
    assert observation is not None
    if expected:
        assert (observation.status, observation.summary) == ("invalid_decision", expected)
    else:
        assert observation.status == "ok"
    assert workspace.files == live.PROJECT


def test_a_refused_call_becomes_an_invalid_decision_the_model_is_told_about(tmp_path: Path) -> None:
    """A write to the tests runs nothing, and the next request carries the refusal as an error result."""
    replies = [
        {
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "write_file",
                    "input": {"path": "test_calc.py", "content": ""},
                }
            ],
            "stop_reason": "tool_use",
        },
        {
            "content": [{"type": "tool_use", "id": "toolu_2", "name": "list_files", "input": {}}],
            "stop_reason": "tool_use",
        },
    ]
    ran = live.run(ScriptedModel(replies), str(tmp_path / "refused.jsonl"), model_name="m", max_steps=2)
    view = render.messages(ran.step_input(at=1), ran.options())
    assert view[2].content[0].content == (
        "Your reply could not be executed: write_file may not change the tests (test_calc.py). "
        "Respond with exactly one tool call."
    )
    assert live.policy(Decision(kind="tool_call", tool="list_files", args={}), live.tools(live.Workspace())[0]) == ""


def test_a_request_the_recording_does_not_answer_is_told_where_it_differs(recorded: Run) -> None:
    """MessagesServer.from_run answers a request no reply was recorded for with a 400 naming the nearest recorded
    request's step and the first block that differs, recorded and now; and one whose recorded reply was given already
    with the request it went to. Before, both were only "no recorded reply for this request (replay key ...)"."""

    def params(step: int) -> dict[str, Any]:
        messages = render.messages(recorded.step_input(step), recorded.options())
        request = Request(messages=messages, system=recorded.system, tools=recorded.tools, model=recorded.model)
        return {**request.params(), "max_tokens": recorded.max_output_tokens}

    changed = params(2)
    result = changed["messages"][2]["content"][0]
    changed["messages"][2]["content"][0] = {**result, "content": "0 passed, 1 failed"}
    with MessagesServer.from_run(recorded) as server:
        client = _client(server)
        client.messages.create(**params(0))
        for request in (params(0), changed):
            with pytest.raises(anthropic.BadRequestError):
                client.messages.create(**request)
    given, differing = (received.reason for received in server.rejections)
    assert given.endswith(
        ": the 1 recorded for it went to request(s) 1 of this server, and a recorded reply answers one request "
        "(a new MessagesServer.from_run replays the run once more)"
    )
    assert differing.startswith("no recorded reply for this request (replay key ")
    said = ": the nearest request the run recorded, of step 2, differs at messages[2].content[0] (user): recorded {"
    assert said in differing and '"content": "0 passed, 1 failed"' in differing.split(", now ")[1]
