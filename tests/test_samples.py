"""The sample runs: recorded by the driver exactly as committed, and covering every case of the contract."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentrender import render, samples
from agentrender.adapters.anthropic import DEFAULT_MAX_TOKENS
from agentrender.agent import live
from agentrender.agent.driver import Driver, FakeClock, Limits, ModelAgent, ScriptedModel
from agentrender.agent.record import SAMPLE_RUNS, record_all
from agentrender.agent.tools import scratch_tools
from agentrender.runfile import RunWriter, load_run
from agentrender.views import disagreements

ALL = {name: samples.load(name) for name in samples.names()}


def test_committed_samples_are_what_the_driver_records(tmp_path: Path) -> None:
    """Recording every script again gives the committed sample_runs/*.jsonl byte for byte."""
    ends = record_all(tmp_path)
    assert sorted(ends) == samples.names()
    for name in ends:
        assert (tmp_path / f"{name}.jsonl").read_bytes() == (SAMPLE_RUNS / f"{name}.jsonl").read_bytes(), name


def test_samples_api() -> None:
    """names lists at least four samples, including fix-failing-test; path and load find them; KeyError lists names."""
    assert len(samples.names()) >= 4 and "fix-failing-test" in samples.names()
    assert samples.path("fix-failing-test").name == "fix-failing-test.jsonl"
    with pytest.raises(KeyError, match="fix-failing-test"):
        samples.path("no-such-run")


@pytest.mark.parametrize("name", sorted(ALL))
def test_each_sample_loads_cleanly_and_renders(name: str) -> None:
    """Every sample loads with no warning, has an end, and renders at every step to the replay key it recorded,
    hashed with what its header records (the output cap included)."""
    run = ALL[name]
    assert run.warnings == () and run.end is not None
    assert run.max_output_tokens == DEFAULT_MAX_TOKENS  # what the driver's requests asked for
    tools = [{k: v for k, v in tool.items() if k in ("name", "description", "input_schema")} for tool in run.tools]
    for call in run.model_calls:
        conversation = render.messages(run.step_input(call.step), run.options())
        key = render.replay_key(
            conversation, system=run.system, tools=tools, model=run.model, max_output_tokens=run.max_output_tokens
        )
        assert key == call.request_key, (name, call.step)


@pytest.mark.parametrize("name", [*sorted(ALL), "live_replay"])
def test_each_recorded_reply_decides_as_its_step_recorded(name: str) -> None:
    """Deciding each step's last captured reply, as the run file reads it back, gives the decision the step recorded
    (the driver and the loader read a reply, raw argument bytes included, by the same definition)."""
    run = load_run(live.REPLAY) if name == "live_replay" else ALL[name]
    checked = 0
    for step in run.steps:
        calls = run.calls_for(step.index)
        if step.decision is None or not calls:
            continue
        assert disagreements(render.decide(calls[-1].response), step.decision) == (), (name, step.index)
        checked += 1
    assert checked == len({call.step for call in run.model_calls})


def test_raw_argument_bytes_read_back_as_bytes() -> None:
    """The sample reply whose arguments were not UTF-8 reads back with those bytes as its tool input."""
    run = ALL["malformed-replies"]
    inputs = [block.input for call in run.model_calls for block in call.response.content if block.type == "tool_use"]
    raw = [value for value in inputs if isinstance(value, bytes)]
    assert len(raw) == 1
    with pytest.raises(UnicodeDecodeError):
        raw[0].decode("utf-8")


def test_samples_cover_the_contract() -> None:
    """Together the samples hold every case the issue lists."""
    steps = [step for run in ALL.values() for step in run.steps]
    decided = [s for s in steps if s.decision is not None]
    calls = [c for run in ALL.values() for c in run.model_calls]
    rendered = {name: sum(s.decision is not None for s in run.steps) for name, run in ALL.items()}
    ends = {run.end["reason"] for run in ALL.values() if run.end}
    assert max(rendered.values()) > render.RECENT_RESULTS
    assert any(s.decision is None for s in steps), "a step interrupted while deciding"
    assert any(s.observation and s.observation.interrupted for s in steps), "a tool interrupted, then resumed"
    kinds = {s.decision.kind for s in decided if s.decision}
    assert {"no_tool_call", "truncated", "tool_call"} <= kinds
    assert any(s.decision and s.decision.invalid_args and not s.decision.invalid_base64 for s in steps)
    assert any(s.decision and s.decision.invalid_base64 for s in steps)
    summaries = [s.observation.summary for s in steps if s.observation]
    assert any("do not match its schema" in text for text in summaries)
    assert any("unknown tool" in text for text in summaries)
    assert any(sum(b.type == "tool_use" for b in c.response.content) == 3 for c in calls)
    assert any("2 further tool call(s) not executed" in s.decision.reason for s in decided if s.decision)
    assert any(len(s.decision.reason.encode()) == render.REASON_BYTES for s in decided if s.decision)
    assert {"completed", "repeated_tool_failures", "max_steps"} <= ends
    assert any(s.observation and len(s.observation.content.encode()) > render.RESULT_BYTES for s in steps)
    assert any(s.observation and s.observation.status == "ok" and not s.observation.summary for s in steps)
    assert any(b.type == "thinking" and b.signature for c in calls for b in c.response.content)


def test_resumed_run_renders_the_interruption() -> None:
    """The resumed sample shows the interrupted call as the re-request and skips the step killed while deciding."""
    run = samples.load("flaky-build-resumed")
    conversation = [m.to_dict() for m in render.messages(run.step_input(), run.options())]
    texts = json.dumps(conversation)
    assert render.INTERRUPTED_TEXT in texts
    assert '"step_2"' not in texts


def test_driver_counts_failures_and_limits(tmp_path: Path) -> None:
    """The driver ends a run at max_steps, and a streak of invalid decisions with repeated_tool_failures."""
    reply = {"content": [{"type": "text", "text": "hm"}], "stop_reason": "end_turn"}
    for limits, expected in ((Limits(max_steps=2), "max_steps"), (Limits(max_consecutive_tool_failures=2), None)):
        path = tmp_path / "run.jsonl"
        tools = scratch_tools(tmp_path)
        with RunWriter(path) as writer:
            agent = ModelAgent(
                ScriptedModel([reply] * 3),
                writer=writer,
                options=render.Options(opening="o"),
                model_name="m",
                tools=[tool.definition() for tool in tools],
            )
            driver = Driver(agent, tools, writer, limits=limits, clock=FakeClock())
            driver.start(run_id="r", goal="g")
            reason = driver.run(run_id="r", goal="g")
        assert reason == (expected or "repeated_tool_failures")
        run = load_run(path)
        assert run.end is not None and run.end["reason"] == reason and len(run.steps) == 2
