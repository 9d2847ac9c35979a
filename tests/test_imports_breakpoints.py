"""Cache breakpoints an agent moves from request to request (Claude Code marks the last block it sends): an imported
run's view at each step carries the breakpoints of the request that decided it, and no other, so its replay key is
the one recorded."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import anthropic
import pytest

import agentrender
from agentrender import load_run, render
from agentrender.cli import main
from agentrender.imports import from_anthropic, load
from agentrender.imports.anthropic import from_anthropic_runs
from agentrender.runfile import Run
from agentrender.testing import MessagesServer
from agentrender.views import Views
from tests._support import real
from tests._support.cli import run_cli
from tests._support.conversations import normalised

LOG = real.REAL / "claude-trace" / "hanqunfeng-claude-trace" / "log-2026-06-15-09-15-50.jsonl"
"""A real claude-trace log: Claude Code and OpenCode mark the last block (or two) of each request they send."""

EPHEMERAL = {"type": "ephemeral"}
HOUR = {"type": "ephemeral", "ttl": "1h"}
TOOLS = [{"name": "get", "description": "Get a value.", "input_schema": {"type": "object", "properties": {}}}]

OPENING = {"role": "user", "content": [{"type": "text", "text": "Go."}]}
USE = {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "get", "input": {}}]}
RESULT = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "42"}]}
USE2 = {"role": "assistant", "content": [{"type": "tool_use", "id": "t2", "name": "get", "input": {}}]}
RESULT2 = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t2", "content": "43"}]}
ANSWER = {"role": "assistant", "content": [{"type": "text", "text": "It is 42, then 43."}]}


def marked(message: dict[str, Any], control: dict[str, Any] = EPHEMERAL, block: int = -1) -> dict[str, Any]:
    """``message`` with ``control`` on its block ``block``."""
    message = copy.deepcopy(message)
    message["content"][block]["cache_control"] = control
    return message


def reply(message: dict[str, Any], number: int) -> dict[str, Any]:
    stop = "tool_use" if message["content"][0]["type"] == "tool_use" else "end_turn"
    return {
        "id": f"msg_{number}",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": message["content"],
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


MOVING = [
    [marked(OPENING)],
    [OPENING, USE, marked(RESULT, HOUR)],
    [OPENING, USE, marked(RESULT), marked(USE2), marked(RESULT2)],  # the one before kept, two new ones
]
"""Three requests, each with its own breakpoints: the last block, an hour's, and three at once."""
REPLIES = [USE, USE2, ANSWER]


def call_log(tmp_path: Path, requests: list[list[dict[str, Any]]], replies: list[dict[str, Any] | None]) -> Path:
    path = tmp_path / "calls.jsonl"
    lines = []
    for number, (messages, answer) in enumerate(zip(requests, replies, strict=True)):
        call: dict[str, Any] = {
            "request": {"model": "claude-x", "max_tokens": 100, "tools": TOOLS, "messages": messages}
        }
        if answer is not None:
            call["response"] = reply(answer, number)
        lines.append(json.dumps(call) + "\n")
    path.write_text("".join(lines), encoding="utf-8")
    return path


def shown(messages: Any) -> list[dict[str, Any]]:
    return [message.to_dict() for message in messages]


def compact(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def assert_views_are_the_requests(run: Run, sent: dict[int, list[dict[str, Any]]]) -> None:
    """Each view with a recorded request is that request, breakpoints and all, by ``Views``, by ``render`` and in the
    facts of its messages, which ``show`` and the HTML print."""
    views = Views(run)
    series = views.sizes()
    for step, messages in sent.items():
        view = views.at(step)
        assert shown(view.messages) == normalised(messages), step
        assert shown(render.messages(run.step_input(step), run.options())) == normalised(messages), step
        assert view.bytes == compact(normalised(messages)) == series.bytes[step], step
        facts = [view.opening, *(turn for fact in view.steps for turn in (fact.assistant, fact.result) if turn)]
        assert [fact.message for fact in facts] == list(view.messages), step  # what show and the HTML print
        assert [[said.block.to_dict() for said in fact.blocks] for fact in facts] == [
            message["content"] for message in normalised(messages)
        ]
    for call in run.model_calls:
        assert views.at(call.step).replay_key == call.request_key, call.step


def test_a_real_claude_trace_logs_views_carry_each_requests_own_breakpoints() -> None:
    """Every view of each of the log's runs is the request its call sent, its cache breakpoints where that request
    had them (Claude Code's on the last block, OpenCode's on the last two): every recorded key matches."""
    logged = [json.loads(line) for line in LOG.read_text(encoding="utf-8").splitlines()]
    bodies = {exchange["response"]["body"]["id"]: exchange["request"]["body"] for exchange in logged}
    runs = from_anthropic_runs(LOG)
    for run in runs:
        sent = {call.step: bodies[call.response.id]["messages"] for call in run.model_calls}
        assert_views_are_the_requests(run, sent)
        views = Views(run)  # the marker moved on, the prefix did not break: the replies read it from the cache
        assert all(views.at(call.step).change.first_diff != 0 for call in run.model_calls if call.step), run.run_id
    records = [run.step_records[call.step]["sent"] for run in runs for call in run.model_calls]
    marks = [mark for record in records for mark in record["breakpoints"]]
    assert len(marks) == 10 and {json.dumps(mark["cache_control"]) for mark in marks} == {json.dumps(EPHEMERAL)}


def unmarked(value: Any) -> Any:
    """``value`` without its ``cache_control`` fields, at any depth."""
    if isinstance(value, dict):
        return {key: unmarked(item) for key, item in value.items() if key != "cache_control"}
    if isinstance(value, list):
        return [unmarked(item) for item in value]
    return value


def test_a_call_log_whose_breakpoints_move_gives_each_view_its_own(tmp_path: Path) -> None:
    """A log whose agent moves its breakpoint (and adds more, with another ``ttl``) gives, at each step, the request
    that decided it exactly: its bytes, its size in the series, its key. A breakpoint moved or changed is not where a
    view differs from the one before, as a prompt cache compares the content it marks (the real claude-trace log's
    replies read the prefix from the cache as the marker moved on; the views said the prefix broke at each move).
    Under the contract, no view is a request sent: none has any."""
    run = load(call_log(tmp_path, MOVING, REPLIES))
    assert_views_are_the_requests(run, dict(enumerate(MOVING)))
    views = Views(run)
    for at in (1, 2):
        old, new = (unmarked(shown(views.at(stop).messages)) for stop in (at - 1, at))
        first = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), min(len(old), len(new)))
        assert views.at(at).change.first_diff == first, at
    after = views.at(3)  # the view after the answer: no request sent it; the last request's breakpoints are its own
    assert shown(after.messages)[:5] == MOVING[2]
    under = Views(run, run.options(recent_results=1))
    assert "cache_control" not in json.dumps(shown(under.at(2).messages))


def test_a_last_request_that_got_no_reply_keeps_its_breakpoints_in_the_view_after_the_last_step(
    tmp_path: Path,
) -> None:
    """A last call that gave no reply decides no step: its request, the one the turns were read from, is the view
    after the last step, with its breakpoints (the header's), while each view before has its own request's."""
    requests = [[marked(OPENING)], [OPENING, USE, marked(RESULT, HOUR)]]
    run = load(call_log(tmp_path, requests, [USE, None]))
    assert run.header["breakpoints"] == [{"message": 2, "block": 0, "cache_control": HOUR}]
    assert shown(Views(run).at(0).messages) == requests[0]
    assert shown(Views(run).at(1).messages) == requests[1]


def test_a_written_import_loads_back_with_the_same_views(tmp_path: Path) -> None:
    """``agentrender import`` writes each step's breakpoints and the header's: the run file, loaded again, gives the
    same views, as sent and under the contract, and its keys match the recorded ones."""
    source = call_log(tmp_path, MOVING, REPLIES)
    out = tmp_path / "run.jsonl"
    assert main(["import", str(source), "-o", str(out)]) == 0
    run, again = load(source), load_run(out)
    assert [record.get("breakpoints") for record in again.step_field("sent", range(3))] == [
        [{"message": 0, "block": 0, "cache_control": EPHEMERAL}],
        [{"message": 2, "block": 0, "cache_control": HOUR}],
        [{"message": 2 + i, "block": 0, "cache_control": EPHEMERAL} for i in range(3)],
    ]
    for window in ({}, {"recent_results": 1}):
        views, back = Views(run, run.options(**window)), Views(again, again.options(**window))
        for at in views.stops:
            assert shown(back.at(at).messages) == shown(views.at(at).messages)
            assert back.at(at).replay_key == views.at(at).replay_key
    assert_views_are_the_requests(again, dict(enumerate(MOVING)))


def test_an_agent_recorded_through_the_adapter_has_its_breakpoints_in_its_views(tmp_path: Path) -> None:
    """``agentrender.record(client)`` of an agent that marks the last block of each request: each view is what the
    SDK sent, its key the one recorded."""
    path = tmp_path / "agent.jsonl"
    requests = MOVING[:2]
    with (
        MessagesServer.scripted([reply(USE, 0), reply(USE2, 1)]) as server,
        agentrender.record(
            anthropic.Anthropic(base_url=server.base_url, api_key="local", max_retries=0, timeout=10.0), path
        ) as client,
    ):
        for messages in requests:
            client.messages.create(
                model="claude-x",
                max_tokens=100,
                tools=TOOLS,  # type: ignore[arg-type]
                tool_choice={"type": "auto", "disable_parallel_tool_use": True},
                messages=messages,  # type: ignore[arg-type]
            )
    assert [received.reason for received in server.rejections] == []
    assert_views_are_the_requests(load(path), dict(enumerate(requests)))


def test_a_single_request_keeps_its_breakpoints_in_its_turns() -> None:
    """A request body (no calls) is the one request: its turns keep their breakpoints as sent, and record none."""
    body = {"model": "claude-x", "max_tokens": 100, "messages": MOVING[1]}
    run = from_anthropic(copy.deepcopy(body))
    assert "breakpoints" not in run.header
    assert shown(Views(run).at(None).messages) == MOVING[1]


def test_a_renderer_refuses_a_breakpoints_hook() -> None:
    """``Renderer`` renders a step at a time and places no breakpoints: options with the hook are refused, clearly."""
    options = render.Options(opening="Go.", breakpoints=lambda step_input: [(0, 0, EPHEMERAL)])
    assert shown(render.messages(agentrender.StepInput(), options)) == [marked(OPENING)]
    with pytest.raises(ValueError, match="breakpoints hook"):
        render.Renderer(options)


def keys_json(path: Path, *options: str) -> list[dict[str, Any]]:
    code, out, err = run_cli("keys", str(path), "--json", *options)
    assert code == 0, err
    rows: list[dict[str, Any]] = json.loads(out)
    return rows


def test_keys_and_show_say_why_a_view_differs_from_its_recorded_request(tmp_path: Path) -> None:
    """Where a view is not its step's recorded request (a call that sent a message otherwise than the run's longest
    call, a view under the contract, settings given in place of the call's), ``keys`` and ``show`` say why beside
    the cross, where they said only that it differs; a view that matches says nothing more."""
    other = {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "get", "input": {"a": 1}}]}
    requests = [MOVING[0], [OPENING, other, marked(RESULT, HOUR)], MOVING[2]]
    path = call_log(tmp_path, requests, REPLIES)
    rows = keys_json(path)
    assert [(row["matches"], row["why"]) for row in rows[:3]] == [
        (True, ""),
        (
            False,
            "message 1 of the recorded request is not the view's: the run's turns are as its longest call sent them, "
            "and this call sent that message otherwise",
        ),
        (True, ""),
    ]
    code, out, _ = run_cli("show", str(path), "--at", "1", "--width", "300", "--color", "never")
    assert code == 0 and "differs from the recorded request key: message 1 of the recorded request" in out
    code, out, _ = run_cli("keys", str(path), "--width", "300", "--color", "never")
    assert "at 1: message 1 of the recorded request is not the view's" in out
    under = keys_json(call_log(tmp_path, MOVING, REPLIES), "--recent-results", "1")
    assert under[2]["why"] == (
        "the view is under the contract (window 1, cap 16,384 bytes), not the request its agent sent"
    )
    given = keys_json(call_log(tmp_path, MOVING, REPLIES), "--max-output-tokens", "7")
    assert given[0]["why"].startswith("the key is hashed with the request settings given")


def test_keys_says_how_many_messages_a_shorter_recorded_request_holds(tmp_path: Path) -> None:
    """A recorded request of one message (the view holds three) is said to hold "1 message", in the singular."""
    imported = tmp_path / "ct.jsonl"
    code, _, err = run_cli("import", str(LOG), "-o", str(imported))
    assert code == 0, err
    records = [json.loads(line) for line in imported.read_text(encoding="utf-8").splitlines()]
    call = next(record for record in records if record.get("type") == "model_call" and record["step"] == 1)
    call["request"]["messages"] = call["request"]["messages"][:1]
    call["request_key"] = "0" * 64
    imported.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    code, out, err = run_cli("keys", str(imported), "--width", "200")
    assert code == 0, err
    assert "the recorded request holds 1 message, the view 3" in out, out


def test_check_names_each_breakpoint_its_view_does_not_hold_by_line_and_field(tmp_path: Path) -> None:
    """A run file's cache breakpoint on a message or a block its view does not hold (a step's own against the view
    at that step, the header's against every view) is a check finding naming its line and field, where it was left
    out of the view without a word; the header's on the last message of the longest request, which shorter views
    leave out, is none."""
    path = tmp_path / "imported.jsonl"
    assert run_cli("import", str(LOG), "-o", str(path))[0] == 0
    code, out, _ = run_cli("check", str(path), "--json")
    [report] = json.loads(out)
    assert code == 0 and "unplaced-breakpoint" not in report["counts"], report
    records = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    assert records[0]["breakpoints"] and all(record["sent"]["breakpoints"] for record in records[1:4])
    records[0]["breakpoints"] = [{"message": 0, "block": 99, "cache_control": EPHEMERAL}]
    records[1]["sent"]["breakpoints"] = [{"message": 1, "block": 0, "cache_control": EPHEMERAL}]  # holds 1 message
    records[3]["sent"]["breakpoints"].append({"message": 1, "block": 42, "cache_control": EPHEMERAL})
    path.write_text("".join(json.dumps(record) + "\n" for record in records), "utf-8")
    code, out, _ = run_cli("check", str(path), "--json")
    [report] = json.loads(out)
    found = [
        (finding["step"], finding["line"], finding["message"].split(":")[0], finding["severity"])
        for finding in report["findings"]
        if finding["code"] == "unplaced-breakpoint"
    ]
    kept = len(records[3]["sent"]["breakpoints"]) - 1
    assert found == [
        (0, 2, "$.sent.breakpoints[0].message", "warning"),
        (2, 4, f"$.sent.breakpoints[{kept}].block", "warning"),
        (None, 1, "$.breakpoints[0].block", "warning"),
    ], report["findings"]
    code, out, _ = run_cli("check", str(path), "--width", "200", "--color", "never")
    assert "block 42 of message 1, which holds 2 blocks: left out of the view" in out, out
    assert "message 1, where the view at step 0 holds 1 message: left out of the view" in out, out
