"""Logs of HTTP exchanges, as claude-trace writes what Claude Code sends (``from_anthropic``): each request's body is
a call's request, its reply the response's body or the Message its streamed events build; a log of several
conversations is the one that grew over the most calls, and a warning names every call of another."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from agentrender._stream import StreamedReply, sse_data
from agentrender.cli._check import check_all
from agentrender.imports import from_anthropic, load_runs
from agentrender.imports.anthropic import NOT_KEPT, from_anthropic_runs
from agentrender.runfile import RunFileError
from agentrender.views import Views
from tests._support import real

LOG = real.REAL / "claude-trace" / "hanqunfeng-claude-trace" / "log-2026-06-15-09-15-50.jsonl"
"""A real claude-trace log (``tests/fixtures/real``): two sessions of Claude Code 2.1.153, then three OpenCode calls."""


def exchanges() -> list[dict[str, Any]]:
    return [json.loads(line) for line in LOG.read_text(encoding="utf-8").splitlines()]


def written(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def uncached(value: Any) -> Any:
    """A request's messages as the API reads them, wherever the cache breakpoint sits: a string is a text block."""
    if isinstance(value, list):
        return [uncached(item) for item in value]
    if isinstance(value, dict):
        if value.get("role") and isinstance(value.get("content"), str):
            value = {**value, "content": [{"type": "text", "text": value["content"]}]}
        return {key: uncached(item) for key, item in value.items() if key != "cache_control"}
    return value


def test_a_real_claude_trace_log_is_a_run_per_conversation_each_view_what_its_call_sent() -> None:
    """The log holds four conversations: Claude Code's two sessions, OpenCode's chat and its title request. Each is a
    run of its own calls, the first the session that grew over three calls; each view is the request its call sent
    (a prompt sent as a block once and as a string after is a block in each: ``test_imports_breakpoints`` compares
    the breakpoints too). The first run names the others; each other says which it is."""
    logged = exchanges()
    runs = from_anthropic_runs(LOG)
    assert [(run.run_id, len(run.steps), len(run.model_calls)) for run in runs] == [
        (LOG.name, 3, 3),
        (f"{LOG.name}/1", 2, 2),
        (f"{LOG.name}/2", 2, 2),
        (f"{LOG.name}/3", 1, 1),
    ]
    assert from_anthropic(LOG).run_id == LOG.name and [run.run_id for run in load_runs(LOG)] == [r.run_id for r in runs]
    sent = {exchange["response"]["body"]["id"]: exchange["request"]["body"]["messages"] for exchange in logged}
    for run in runs:
        views = Views(run)
        assert [call.step for call in run.model_calls] == list(range(len(run.model_calls)))
        for call in run.model_calls:
            shown = [message.to_dict() for message in views.at(call.step).messages]
            assert uncached(shown) == uncached(sent[call.response.id]), (run.run_id, call.step)
        assert run.last_calls() == {call.step: call for call in run.model_calls}
    said = [warning.message for warning in runs[0].warnings]
    assert any(
        "the log holds 3 other conversation(s), 5 calls (lines 4-8): a side request, another session, a "
        f"compaction's request or the conversation after it; each is a run of its own ({LOG.name}/1 to {LOG.name}/3"
        in w
        for w in said
    ), said
    assert any(
        f"one of 4 conversations of the log (lines 4-5): the run {LOG.name} is" in w.message for w in runs[1].warnings
    )
    assert any(
        "the log's headers hold credentials (authorization, x-api-key): their values are not kept" in w for w in said
    )
    reports = check_all(str(LOG))
    assert len(reports) == 4 and not any(report.errors or report.error for report in reports)


def test_a_logs_credentials_are_not_kept_and_its_envelopes_are() -> None:
    """What the exchanges held beside the call (timestamps, the URL, the status, every header) is in each run's
    source, but the values of the headers that carry credentials."""
    runs = from_anthropic_runs(LOG)
    assert sum(len(run.header["source"]["entries"]) for run in runs) == 8
    text = json.dumps([run.header for run in runs])
    assert "Bearer sk-" not in text and "sk-...583d" not in text
    first = runs[0].header["source"]["entries"][0]["fields"]
    assert first["request"]["headers"]["authorization"] == NOT_KEPT
    assert first["request"]["url"] == "https://api.deepseek.com/anthropic/v1/messages?beta=true"
    assert first["response"]["status_code"] == 200 and "body" not in first["response"]
    assert first["logged_at"] == "2026-06-15T09:16:10.973Z"


def sse_text(events: list[dict[str, Any]]) -> str:
    """The server-sent events of a stream, as the wire carries them."""
    return "".join(f"event: {event['event']}\ndata: {json.dumps(event['data'])}\n\n" for event in events)


@pytest.mark.parametrize("form", ["events", "body_raw"])
def test_a_streamed_reply_is_the_message_its_events_build(tmp_path: Path, form: str) -> None:
    """A response that kept only its stream (claude-trace's ``body_raw``, a proxy's parsed ``events``) gives the
    reply the body held: the real log's exchanges with their bodies taken out."""
    logged = exchanges()
    streamed = copy.deepcopy(logged)
    for exchange in streamed:
        response = exchange["response"]
        events = response.pop("events")
        del response["body"]
        if form == "body_raw":
            response["body_raw"] = sse_text(events)
        else:
            response["events"] = events
    runs = from_anthropic_runs(written(tmp_path / "streamed.jsonl", streamed))
    bodies = {exchange["response"]["body"]["id"]: exchange["response"]["body"] for exchange in logged}
    calls = [call for run in runs for call in run.model_calls]
    assert len(calls) == 8
    for call in calls:
        body = bodies[call.response.id]
        assert call.response.to_dict()["content"] == body["content"]
        assert call.stop_reason == body["stop_reason"]


def test_a_call_that_failed_or_whose_stream_was_cut_gives_no_reply_and_says_why(tmp_path: Path) -> None:
    """An HTTP status other than 2xx, a stream that ends before its stop reason: the call has no reply, and a warning
    names its line and what was wrong. A request to another endpoint is not a call, and a warning names it."""
    logged = exchanges()[:3]
    failed, cut, counted = copy.deepcopy(logged[1]), copy.deepcopy(logged[2]), copy.deepcopy(logged[0])
    failed["response"] = {
        "status_code": 529,
        "body": {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
    }
    del cut["response"]["body"]
    cut["response"]["body_raw"] = sse_text(cut["response"].pop("events")[:3])
    counted["request"]["url"] = "https://api.anthropic.com/v1/messages/count_tokens?beta=true"
    counted["response"] = {"status_code": 200, "body": {"input_tokens": 30425}}
    run = from_anthropic(written(tmp_path / "log.jsonl", [logged[0], failed, cut, counted]))
    said = [str(warning) for warning in run.warnings]
    assert len(run.model_calls) == 1
    assert any(":2: call 2 gave no reply (HTTP 529: overloaded_error: Overloaded)" in w for w in said), said
    assert any(":3: call 3 gave no reply (its stream of events ends before the reply does)" in w for w in said), said
    assert any(
        ":4: " in w
        and "1 logged request to POST /v1/messages/count_tokens (line 4): no Messages API call, not read" in w
        for w in said
    ), said


def call(messages: list[dict[str, Any]], reply: str, stop: str = "end_turn") -> dict[str, Any]:
    return {
        "request": {"model": "m", "max_tokens": 100, "messages": messages},
        "response": {
            "id": f"msg_{reply}",
            "type": "message",
            "role": "assistant",
            "model": "m",
            "content": [{"type": "text", "text": reply}],
            "stop_reason": stop,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        },
    }


def test_the_first_run_is_the_conversation_that_grew_over_the_most_calls(tmp_path: Path) -> None:
    """A quota check sent the same one message over and over, more often than the agent called; a compaction's
    request was the longest. Neither grew: the first run is the agent's conversation, which did, of its own calls
    only (no quota check's max_tokens is its stop reason); each of the others is a run of its own."""
    user = {"role": "user", "content": "fix the bug"}
    quota = call([{"role": "user", "content": "quota"}], "ok", stop="max_tokens")  # Claude Code's: max_tokens 1
    turns = [user]
    lines = []
    for step in range(3):
        lines.append(call(list(turns), f"step {step}"))
        lines.extend([quota, quota])
        turns += [
            {"role": "assistant", "content": [{"type": "text", "text": f"step {step}"}]},
            {"role": "user", "content": "go on"},
        ]
    compaction = call([{"role": "user", "content": "summarise: fix the bug, 3 steps"}, *turns[1:]], "summary")
    runs = from_anthropic_runs(written(tmp_path / "log.jsonl", [*lines, compaction]))
    agent, checks, summary = runs
    assert len(agent.steps) == 3  # the agent's conversation, as its longest call sent it
    assert [step.decision.kind for step in agent.steps] == ["no_tool_call"] * 3
    assert [call.response.id for call in agent.model_calls] == ["msg_step 0", "msg_step 1", "msg_step 2"]
    assert (len(checks.steps), [call.response.id for call in checks.model_calls]) == (1, ["msg_ok"] * 6)
    assert checks.steps[0].decision.kind == "truncated"  # the quota check's own reply, cut at its max_tokens
    assert [call.response.id for call in summary.model_calls] == ["msg_summary"] and len(summary.steps) == 4
    said = [str(warning) for warning in agent.warnings]
    assert any("the log holds 2 other conversation(s), 7 calls (lines 2-3, 5-6, 8-10)" in w for w in said), said


def test_a_call_of_the_runs_opening_that_went_another_way_is_a_call_of_the_step_being_decided(tmp_path: Path) -> None:
    """A call whose request opens as the run's conversation but goes another way (a rewound prompt) is in the run's
    log but not its conversation: it is a call of the step being decided when it was made (the run's next call's;
    after the last, the step after it), a warning names it, and the view after the last step has one replay key."""
    user = {"role": "user", "content": "fix the bug"}
    first = call([user], "step 0")
    replied = {"role": "assistant", "content": [{"type": "text", "text": "step 0"}]}
    rewound = call([user, replied, {"role": "user", "content": "no, the other bug"}], "rewound")
    going = [user, replied, {"role": "user", "content": "go on"}]
    second = call(going, "step 1")
    third = call([*going, {"role": "assistant", "content": [{"type": "text", "text": "step 1"}]}, user], "step 2")
    late = call([user, replied, {"role": "user", "content": "and the third"}], "late")
    run = from_anthropic(written(tmp_path / "log.jsonl", [first, rewound, second, third, late]))
    assert [(call.response.id, call.step) for call in run.model_calls] == [
        ("msg_step 0", 0),
        ("msg_rewound", 1),
        ("msg_step 1", 1),
        ("msg_step 2", 2),
        ("msg_late", 3),
    ]
    assert run.last_calls()[1].response.id == "msg_step 1"
    assert any("2 calls (lines 2, 5) sent another conversation than the run's" in str(w) for w in run.warnings)
    views = Views(run)
    assert len(run.steps) == 3 and views.at(3).replay_key == views.at(None).replay_key


def test_server_sent_events_are_read_by_the_formats_rules() -> None:
    """Each event's data lines are joined with line breaks, comments and bare events give nothing, and data that is
    no JSON is an error naming the stream's line."""
    text = ': a comment\n\nevent: ping\n\nevent: a\ndata: {"type":\ndata: "ping"}\n\ndata:{"n": 2}\n'
    assert list(sse_data(text)) == [(6, {"type": "ping"}), (9, {"n": 2})]
    with pytest.raises(ValueError, match="line 2 of the stream: its data is not JSON"):
        list(sse_data('event: a\ndata: {"cut\n\n'))
    reply = StreamedReply()
    reply.add({"type": "message_start", "message": {"id": "m", "content": [], "usage": {"input_tokens": 3}}})
    reply.add(
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "t", "name": "f", "input": {}},
        }
    )
    reply.add(
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"a": '}}
    )
    reply.add({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "1}"}})
    reply.add({"type": "content_block_stop", "index": 0})
    assert not reply.complete
    reply.add({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 5}})
    assert reply.complete and reply.message is not None
    assert reply.message["content"] == [{"type": "tool_use", "id": "t", "name": "f", "input": {"a": 1}}]
    assert reply.message["usage"] == {"input_tokens": 3, "output_tokens": 5}


def test_the_goal_is_the_prompt_not_the_reminders_sent_before_it() -> None:
    """Claude Code opens a session's first request with three ``<system-reminder>`` blocks (its MCP servers, its
    skills, its CLAUDE.md: 20 KB) before the prompt: the goal is the prompt, the opening all of it, as sent."""
    run = from_anthropic(LOG)
    [opening] = [exchange["request"]["body"]["messages"][0]["content"] for exchange in exchanges()[:1]]
    assert [block["text"].startswith("<system-reminder>") for block in opening] == [True, True, True, False]
    assert run.goal == opening[-1]["text"] == "hello"
    assert run.opening == "\n".join(block["text"] for block in opening)
    only = from_anthropic({"messages": [{"role": "user", "content": opening[:1]}]})
    assert only.goal == opening[0]["text"]  # nothing but a reminder: the goal is what there is
    wrapped = "<system-reminder>a</system-reminder>\nFix the login bug\n<system-reminder>b</system-reminder>"
    asked = from_anthropic({"messages": [{"role": "user", "content": [opening[0], {"type": "text", "text": wrapped}]}]})
    assert asked.goal == wrapped  # words of the user's between reminders: the block is the task


def test_what_a_logged_exchange_may_hold_besides_a_reply_is_read_or_said(tmp_path: Path) -> None:
    """A body kept as its JSON text is read; a stream's data may hold U+2028 unescaped (only CR and LF end its lines);
    a proxy's ``[DONE]`` ends it; an ``error`` event, an HTTP error in any form and a one-call log that failed each
    give a warning naming what; a URL Python cannot split is another endpoint; headers as pairs keep no
    credential; a log begun with a GET is still a log."""
    logged = exchanges()[:2]
    events = logged[1]["response"]["events"]
    texted, streamed, errored = copy.deepcopy(logged[0]), copy.deepcopy(logged[1]), copy.deepcopy(logged[1])
    texted["request"]["body"] = json.dumps(texted["request"]["body"])
    texted["response"]["body"] = json.dumps(texted["response"]["body"])
    del streamed["response"]["body"], streamed["response"]["events"]
    with_separator = copy.deepcopy(events)
    for event in with_separator:
        if event["data"].get("delta", {}).get("type") == "text_delta":
            event["data"]["delta"]["text"] += "\u2028\u0085"
            break
    streamed["response"]["body_raw"] = sse_text(with_separator) + "data: [DONE]\n\n"
    del errored["response"]["body"], errored["response"]["events"]
    error_event = {
        "event": "error",
        "data": {"type": "error", "error": {"type": "overloaded_error", "message": "Over"}},
    }
    errored["response"]["body_raw"] = sse_text([*events[:2], error_event])
    hello = {
        "method": "GET",
        "url": "https://api.anthropic.com/api/hello",
        "headers": [["x-api-key", "k"]],
        "body": None,
    }
    getting = {"request": hello, "response": {"status_code": 200, "body": "ok"}}
    bad_url = copy.deepcopy(logged[0])
    bad_url["request"]["url"] = "https://[bad/v1/messages"
    run = from_anthropic(written(tmp_path / "log.jsonl", [getting, texted, streamed, errored, bad_url]))
    said = [str(warning) for warning in run.warnings]
    assert len(run.model_calls) == 2
    assert run.model_calls[0].response.id == logged[0]["response"]["body"]["id"]
    assert "\u2028\u0085" in run.model_calls[1].response.content[-1].text
    assert any(
        ":4: call 3 gave no reply (its stream of events ends on an error: overloaded_error: Over)" in w for w in said
    )
    assert any(":1: 1 logged request to GET /api/hello (line 1): no Messages API call, not read" in w for w in said)
    assert any("POST 'https://[bad/v1/messages' (line 5)" in w for w in said), said
    assert run.header["source"]["entries"][0]["fields"]["request"]["headers"]["authorization"] == NOT_KEPT
    alone = copy.deepcopy(logged[0])
    alone["response"] = {
        "status_code": 529,
        "body": '{"type": "error", "error": {"type": "overloaded_error", "message": "Over"}}',
    }
    run = from_anthropic(written(tmp_path / "one.jsonl", [alone]))
    assert any(":1: call 1 gave no reply (HTTP 529: overloaded_error: Over)" in str(w) for w in run.warnings)
    counted = copy.deepcopy(logged[0])
    counted["request"]["url"] = "https://api.anthropic.com/v1/messages/count_tokens"
    with pytest.raises(RunFileError, match=r"the log holds no Messages API call: .*count_tokens \(line 1\)"):
        from_anthropic(written(tmp_path / "counted.jsonl", [counted]))


def test_a_streamed_text_is_joined_once_and_a_cut_stream_gives_what_arrived() -> None:
    """A block's text arrives in many deltas; the reply holds them joined, once the block stops or the reply is read
    (a recording of a stream cut short keeps what arrived); a thinking block likewise; a citation is added to the
    block's own, never to the event's list."""
    reply = StreamedReply()
    reply.add({"type": "message_start", "message": {"id": "m", "content": []}})
    cited: list[Any] = []
    reply.add(
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": "", "citations": cited}}
    )
    for piece in ("a", "b", "c"):
        reply.add({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}})
    assert reply.message is not None and reply.message["content"][0]["text"] == "abc"  # read mid-stream
    reply.add({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "d"}})
    reply.add({"type": "content_block_delta", "index": 0, "delta": {"type": "citations_delta", "citation": {"n": 1}}})
    reply.add({"type": "content_block_stop", "index": 0})
    reply.add({"type": "content_block_start", "index": 1, "content_block": {"type": "thinking", "thinking": ""}})
    for piece in ("x", "y"):
        reply.add({"type": "content_block_delta", "index": 1, "delta": {"type": "thinking_delta", "thinking": piece}})
    assert not reply.complete
    content = reply.message["content"]
    assert content[0] == {"type": "text", "text": "abcd", "citations": [{"n": 1}]} and cited == []
    assert content[1] == {"type": "thinking", "thinking": "xy"}  # cut before its block stopped: what arrived
