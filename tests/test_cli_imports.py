"""The command line on an agent's own history: every command reads it directly, import writes it as a run file,
and the views say which of the two they are (as sent, or under the contract)."""

from __future__ import annotations

import gzip
import json
import os
import re
import sys
from html import escape
from pathlib import Path
from typing import Any

import pytest

from agentrender import load_run, render, samples, write_run
from agentrender.cli import build_parser
from agentrender.cli._show import NOT_IN_FILE
from agentrender.cli._tables import NO_KEYS_SAID
from agentrender.frame import other_tools, steps_frame
from agentrender.imports import FORMATS, first_line_summary, from_anthropic, from_openai, load, load_runs
from agentrender.imports.detect import Format
from agentrender.runfile import Run, RunFileError
from agentrender.views import ENDED_TEXT, PREFILL_ENDED_TEXT, PREFILL_SAID, PREFILLED_TEXT, Views
from agentrender.views.facts import LEFT_OUT_SAID, LEFT_OUT_TEXT, PREFILL_REASON, REPLY_REASON
from tests._support import real
from tests._support.cli import run_cli
from tests._support.conversations import REPLIED_THEN_PREFILL, WEATHER, json_file, normalised, prefilled_log


def ok(*argv: str, width: int = 100) -> str:
    """The output of a command that succeeds, plain, at ``width`` columns."""
    code, out, err = run_cli(*argv, "--width", str(width), "--color", "never")
    assert (code, err) == (0, ""), err
    return out


def as_json(*argv: str) -> Any:
    """The ``--json`` output of a command that succeeds."""
    code, out, err = run_cli(*argv, "--json")
    assert (code, err) == (0, ""), err
    return json.loads(out)


def call_log(messages: list[dict[str, Any]]) -> str:
    """A .jsonl log of every call an agent made to hold ``messages``: each request with the reply to it."""
    lines = []
    for end in range(1, len(messages), 2):
        reply = messages[end]
        content = (
            reply["content"] if isinstance(reply["content"], list) else [{"type": "text", "text": reply["content"]}]
        )
        stop = "tool_use" if any(block["type"] == "tool_use" for block in content) else "end_turn"
        response = {"type": "message", "role": "assistant", "content": content, "stop_reason": stop}
        request = {**WEATHER, "messages": messages[:end]}
        lines.append(json.dumps({"request": request, "response": response, "latency_ms": 800 + end}))
    return "\n".join(lines) + "\n"


@pytest.fixture
def convo(tmp_path: Path) -> Path:
    """The weather conversation as its agent sent it: a request body in a .json file."""
    path = tmp_path / "convo.json"
    path.write_text(json.dumps(WEATHER, indent=2), encoding="utf-8")
    return path


@pytest.fixture
def log(tmp_path: Path) -> Path:
    """The weather conversation as a call log: one request and its reply a line."""
    path = tmp_path / "calls.jsonl"
    path.write_text(call_log(WEATHER["messages"]), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------- every command reads it


@pytest.mark.parametrize("command", ["show", "steps", "decide", "check", "context", "keys"])
def test_every_command_reads_a_conversation_and_a_call_log(command: str, convo: Path, log: Path) -> None:
    """Each command's RUN takes a Messages API request (.json) and a call log (.jsonl) as it takes a run file (decide
    of a request, which holds no reply, says so on stderr)."""
    for source in (convo, log):
        code, out, err = run_cli(command, str(source), "--json")
        none = command == "decide" and source == convo
        assert code == 0 and (err.startswith(f"agentrender: {convo}: no model replies") if none else err == ""), err
        json.loads(out)


@pytest.mark.parametrize("command", ["show", "steps", "decide", "check", "context", "keys", "runs", "html"])
def test_every_command_that_reads_a_history_says_so_in_its_help(command: str) -> None:
    """The help of each command that takes an agent's own history as RUN names it (it said "a run file or the name
    of a bundled sample", so a user took an imported file for something to import first)."""
    parser = build_parser()._subparsers._group_actions[0].choices[command]  # type: ignore[union-attr]
    text = " ".join(parser.format_help().split())
    assert "agentrender imports" in text and "histor" in text, text


def test_show_of_a_conversation_is_what_was_sent_and_says_so(convo: Path) -> None:
    """show of an imported run prints its view as sent (every result in full) and names the view in its header;
    --json has the messages as sent and the mode."""
    data = as_json("show", str(convo))
    assert data["messages"] == normalised(WEATHER["messages"])
    assert (data["mode"], data["summariser"]) == ("as sent", "")
    out = ok("show", str(convo))
    assert "shown       as sent" in out and "no window, no cap" in out
    assert "9,223,372,036,854,775,807" not in out  # the window of an as-sent view is not a number to print


def test_show_of_a_request_ending_with_a_prefill_says_its_last_turn_is_the_callers(tmp_path: Path) -> None:
    """show of a request body ending with a prefill says, after that turn and in the view's facts, that it is the
    caller's prefill no reply answered, never that nothing was sent after a reply of the model."""
    body = tmp_path / "request.json"
    asked = {"role": "user", "content": "Write a haiku about rain."}
    prefill = {"role": "assistant", "content": "Here is a haiku:"}
    body.write_text(json.dumps({"model": "claude-sonnet-4-5", "max_tokens": 256, "messages": [asked, prefill]}))
    out = " ".join(ok_of("show", str(body)).replace("\u2502", " ").split())
    assert out.count(PREFILL_ENDED_TEXT) == 2 and ENDED_TEXT not in out
    assert "nothing answered the last prefill" in out and "the last reply" not in out


def _prefill_body(tmp_path: Path) -> Path:
    """A request body whose last message is the caller's prefill: a user turn, then an assistant one."""
    body = tmp_path / "request.json"
    asked = {"role": "user", "content": "Write a haiku about rain."}
    prefill = {"role": "assistant", "content": "Here is a haiku:"}
    body.write_text(json.dumps({"model": "claude-sonnet-4-5", "max_tokens": 256, "messages": [asked, prefill]}))
    return body


def test_show_titles_a_prefill_step_as_the_callers_text_not_a_decision(tmp_path: Path) -> None:
    """show heads the step of a request's closing prefill as the caller's prefill, never by a decision's kind."""
    out = ok("show", str(_prefill_body(tmp_path)))
    assert f"step 0 \u00b7 {PREFILL_SAID} " in out and "no_tool_call" not in out


def test_steps_lists_a_prefill_step_as_the_callers_text(tmp_path: Path) -> None:
    """The steps table names a prefill step's kind as the caller's prefill, and steps --json says prefill of it."""
    body = _prefill_body(tmp_path)
    out = ok_of("steps", str(body))
    assert PREFILL_SAID in out and "no_tool_call" not in out
    assert [row["prefill"] for row in as_json_of("steps", str(body))] == [True]


def _prefill_after_replies(tmp_path: Path) -> Path:
    """``REPLIED_THEN_PREFILL`` in a request body's file: three steps, the last the caller's prefill."""
    return json_file(tmp_path / "replied-then-prefill.json", REPLIED_THEN_PREFILL)


def test_steps_kind_filters_a_prefill_by_the_prefill_label_not_as_a_decision(tmp_path: Path) -> None:
    """steps --kind no_tool_call keeps the model's reply with no tool call but not the caller's prefill, which
    --kind prefill (or its whole label) keeps, in the table, --json and --csv alike; a kind no step has is said on
    stderr with the kinds the steps have, the prefill among them by the word --kind takes."""
    body = str(_prefill_after_replies(tmp_path))
    assert [row["index"] for row in as_json_of("steps", body, "--kind", "no_tool_call")] == [1]
    for asked in ("prefill", PREFILL_SAID):
        rows = as_json_of("steps", body, "--kind", asked)
        assert [(row["index"], row["kind"], row["prefill"]) for row in rows] == [(2, "no_tool_call", True)]
    code, out, err = run_cli("steps", body, "--kind", "prefill", "--width", "150", "--color", "never")
    assert code == 0 and "1 of 3 steps" in out and f" 2  {PREFILL_SAID} " in out and "no step has" not in err
    code, out, _ = run_cli("steps", body, "--kind", "prefill", "--csv")
    assert code == 0 and [line.split(",")[0] for line in out.splitlines()[1:]] == ["2"]
    code, _, err = run_cli("steps", str(_prefill_body(tmp_path)), "--kind", "no_tool_call", "--json")
    assert code == 0
    assert err.splitlines()[-1].endswith("--kind no_tool_call: no step has this kind; its steps have prefill (1)"), err


def test_steps_reason_column_marks_the_callers_prefill_never_as_the_models_reason(tmp_path: Path) -> None:
    """The steps table's reason column says which text is the caller's prefill: all of a prefill no reply answered,
    and, of a step whose request ended with a prefill, that prefill apart from the reply the model went on with."""
    rows = ok_of("steps", str(_prefill_after_replies(tmp_path))).splitlines()
    [row] = [line for line in rows if line.lstrip().startswith("2 ")]
    assert row.rstrip().endswith(f'{PREFILL_REASON} {{"answer":'), row
    rows = ok_of("steps", str(prefilled_log(tmp_path / "log.jsonl"))).splitlines()
    [row] = [line for line in rows if line.lstrip().startswith("1 ")]
    assert row.rstrip().endswith(f"{PREFILL_REASON} The answer is {REPLY_REASON} 42."), row
    [row] = [line for line in rows if line.lstrip().startswith("0 ")]
    assert row.rstrip().endswith(" Let me think."), row


def test_steps_reason_of_parallel_tool_uses_an_agent_ran_never_says_they_were_not_executed() -> None:
    """Of a real Claude Code session whose replies called tools in parallel, every one of which its agent ran, the
    steps table's reasons keep the model's text without the contract's note that the others were not executed (the
    tool column names them beside the first), where the run holds that note; --json keeps the reason as it is."""
    source = str(real.REAL / "claude-code" / "DRMacIver-claude-reliability" / "coverage-test-fix" / "transcript.jsonl")
    rows = {row["index"]: row for row in as_json_of("steps", source)}
    assert rows[1]["reason"] == "[1 further tool call(s) not executed: Read]" and rows[1]["other_tools"] == ["Read"]
    assert rows[2]["reason"].endswith(" [1 further tool call(s) not executed: Edit]")
    table = ok_of("steps", source)
    assert "not executed" not in table
    [row] = [line for line in table.splitlines() if line.lstrip().startswith("2 ")]
    assert "Edit (+ Edit)" in row and row.rstrip().endswith("and a test for it in `test_math_utils.py`."), row


def test_steps_of_a_compacted_session_keeps_a_row_a_line_at_100_columns() -> None:
    """The steps table of a real Claude Code session compacted after its step 101, at 100 columns (a pipe's width),
    keeps each step on one line, the steps before the compaction said in short (LEFT_OUT_SAID) with its meaning
    under the table, where the words of what the model saw wrapped each row over four lines."""
    source = str(real.REAL / "claude-code" / "marot-spotter" / "258c7280-ae70-4798-800f-63464d01a85d.jsonl")
    code, out, _ = run_cli("steps", source, "--width", "100", "--color", "never")
    lines = out.splitlines()
    rows = [line for line in lines if re.match(r"\s*[0-9]+\s", line)]
    assert code == 0 and len(rows) == 152 and len(lines) <= 152 + 12, len(lines)
    assert all(LEFT_OUT_SAID in row for row in rows[:102]) and all(LEFT_OUT_SAID not in row for row in rows[102:])
    assert f"{LEFT_OUT_SAID}: {LEFT_OUT_TEXT}" in " ".join(out.split())


def test_check_and_show_list_a_sessions_warnings_in_the_order_of_its_lines() -> None:
    """Of a real Claude Code session whose importer warns of its lines from the last back, check's findings and
    show's warning lines name those lines in the file's order, where they went 56, 53, ..., 10, then 57."""
    source = str(real.REAL / "claude-code" / "frederick-douglas-pearce-claude-code-sessions")
    source += "/hook-trace-denial-and-stop-ladder.jsonl"
    [report] = as_json_of("check", source)
    lines = [finding["line"] for finding in report["findings"]]
    assert len(lines) == 13 and lines == sorted(lines), lines
    shown = [int(found) for found in re.findall(r"\.jsonl:([0-9]+):", ok_of("show", source))]
    assert len(shown) == 13 and shown == sorted(shown), shown


def test_steps_reason_keeps_the_note_of_parallel_tool_uses_nothing_answered(tmp_path: Path) -> None:
    """Of a call log whose last reply called two tools that nothing answered, the steps table keeps that step's note
    that the second was not executed, and leaves it off the step before, whose two calls the next request answered."""
    asked = {"role": "user", "content": "Look at the files."}
    reply = {"type": "message", "role": "assistant", "stop_reason": "tool_use"}
    first = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Reading both."},
            {"type": "tool_use", "id": "t1", "name": "Read", "input": {"path": "a"}},
            {"type": "tool_use", "id": "t2", "name": "Read", "input": {"path": "b"}},
        ],
    }
    answered = {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "A"},
            {"type": "tool_result", "tool_use_id": "t2", "content": "B"},
        ],
    }
    second = [
        {"type": "text", "text": "Two more."},
        {"type": "tool_use", "id": "t3", "name": "Read", "input": {}},
        {"type": "tool_use", "id": "t4", "name": "Grep", "input": {}},
    ]
    calls = [
        {"request": {**WEATHER, "messages": [asked]}, "response": {**reply, "content": first["content"]}},
        {"request": {**WEATHER, "messages": [asked, first, answered]}, "response": {**reply, "content": second}},
    ]  # fmt: skip
    path = tmp_path / "calls.jsonl"
    path.write_text("".join(json.dumps(call) + "\n" for call in calls), encoding="utf-8")
    rows = ok_of("steps", str(path)).splitlines()
    [row] = [line for line in rows if line.lstrip().startswith("0 ")]
    assert "Read (+ Read)" in row and row.rstrip().endswith("  Reading both."), row
    [row] = [line for line in rows if line.lstrip().startswith("1 ")]
    assert row.rstrip().endswith(" Two more. [1 further tool call(s) not executed: Grep]"), row


def test_steps_follow_filters_a_prefill_by_kind_as_the_table_does(tmp_path: Path) -> None:
    """The filter steps --follow applies to each step keeps the same steps as the table for every --kind: the
    caller's prefill under prefill, never under no_tool_call."""
    import argparse

    from agentrender.cli._follow import steps_filter
    from agentrender.cli._tables import steps_rows

    run = load(_prefill_after_replies(tmp_path))
    views = Views(run)
    for kind, expected in (("no_tool_call", [1]), ("prefill", [2]), (PREFILL_SAID, [2]), ("tool_call", [0])):
        kept = steps_filter(argparse.Namespace(tool=None, status=None, kind=[kind]))
        assert [step.index for step in run.steps if kept(views, step)] == expected, kind
        assert list(steps_rows(run, kind=[kind]).frame["index"]) == expected, kind


def test_show_heads_the_views_beside_a_prefill_as_no_decision_of_the_model(tmp_path: Path) -> None:
    """show heads the view before a request's closing prefill, and the view after it, as views beside the caller's
    prefill, which no model decided: never "deciding step 2" of the prefill, nor "what the model would see next" of
    the request it was to go on from; the model's steps before keep "deciding step K"."""
    body = str(_prefill_after_replies(tmp_path))
    out = ok_of("show", body)
    assert "the view after step 2, the caller's prefill: the request the model was to go on from " in out
    assert "what the model would see next" not in out
    out = ok_of("show", body, "--at", "2")
    assert "the view before step 2, the caller's prefill: no model decided it " in out and "deciding" not in out
    assert "the view deciding step 1 " in ok_of("show", body, "--at", "1")


def test_the_run_facts_count_a_prefill_as_the_callers_step_not_a_decision(tmp_path: Path) -> None:
    """show's header, the shared page's run facts and a run's HTML count a request's closing prefill among the
    rendered steps and say it is the caller's, no decision of the model, where they said every rendered step had a
    decision; a run with no prefill keeps its count as it was."""
    from agentrender import html

    run = load(_prefill_after_replies(tmp_path))
    said = "3 (3 rendered, 0 without a decision; step 2 is the caller's prefill, no decision of the model)"
    shown = ok_of("show", str(run.path))
    assert f"steps        {said}" in shown and "model calls  0 " in shown
    facts = html.payload(run)
    texts = facts["texts"]
    assert [texts[value] for name, value in facts["header"] if texts[name] == "steps"] == [said]
    assert f"<th>steps</th><td>{escape(said)}</td>" in run._repr_html_()
    shown = ok_of("show", "flaky-build-resumed")
    assert "steps        10 (9 rendered, 1 without a decision) " in shown and "model calls  9 " in shown


def test_the_steps_frame_says_which_step_is_a_prefill(tmp_path: Path) -> None:
    """steps_frame's prefill column is true of a request's closing prefill, and false where a reply ended it."""
    assert steps_frame(load(_prefill_body(tmp_path)))["prefill"].tolist() == [True]
    saved = tmp_path / "conversation.json"  # no max_tokens: a conversation saved with its reply last
    messages = [{"role": "user", "content": "Write a haiku about rain."}, {"role": "assistant", "content": "Rain."}]
    saved.write_text(json.dumps({"model": "claude-sonnet-4-5", "messages": messages}))
    frame = steps_frame(load(saved))
    assert (frame["ended"].tolist(), frame["prefill"].tolist()) == ([True], [False])


def test_a_followed_line_names_a_prefill_step_as_the_callers_text(tmp_path: Path) -> None:
    """The line show --follow prints of a step names a request's closing prefill as the caller's prefill, through a
    run file too, where a reply that ended a conversation keeps its decision's kind."""
    from agentrender.cli._follow import step_line

    run = load(_prefill_body(tmp_path))
    assert step_line(run.steps[0], Views(run)).plain == f"step 0 \u00b7 {PREFILL_SAID}"
    write_run(run, tmp_path / "prefill.jsonl")
    again = load_run(tmp_path / "prefill.jsonl")
    assert step_line(again.steps[0], Views(again)).plain == f"step 0 \u00b7 {PREFILL_SAID}"
    saved = tmp_path / "conversation.json"  # no max_tokens: a conversation saved with its reply last
    messages = [{"role": "user", "content": "Write a haiku about rain."}, {"role": "assistant", "content": "Rain."}]
    saved.write_text(json.dumps({"model": "claude-sonnet-4-5", "messages": messages}))
    replied = load(saved)
    assert step_line(replied.steps[0], Views(replied)).plain == "step 0 \u00b7 no_tool_call"


def test_show_json_says_whether_the_turn_a_view_ended_on_is_a_prefill(tmp_path: Path) -> None:
    """show --json says of the view and of its last step that the turn it ended on is the caller's prefill (a
    script could not tell it from a reply of the model), and says no prefill where a reply ended it."""
    asked = {"role": "user", "content": "Write a haiku about rain."}
    for last, prefill in (({"role": "assistant", "content": "Here is a haiku:"}, True), (None, False)):
        body = tmp_path / "request.json"
        messages = [asked, last] if last else [asked, {"role": "assistant", "content": "Rain."}]
        request = {"model": "claude-sonnet-4-5", "messages": messages, **({"max_tokens": 256} if prefill else {})}
        body.write_text(json.dumps(request))
        shown = json.loads(ok_of("show", str(body), "--json"))
        assert (shown["ended"], shown["prefill"]) == (True, prefill)
        assert [(step["ended"], step["prefill"]) for step in shown["steps"]] == [(True, prefill)]


def test_keys_and_show_of_a_call_ending_with_a_prefill_show_the_prefill_the_model_saw(tmp_path: Path) -> None:
    """keys of a log whose call ended with a prefill its reply went on from finds that step's view is the call's
    request, and show of that view (and --json) ends with the prefill, said to be the caller's text, not a reply."""
    log = prefilled_log(tmp_path / "log.jsonl")
    out = " ".join(ok_of("keys", str(log)).split())
    assert "1 differ" not in out and "prefill" not in out
    assert re.search(r"\b1 (\w+)… \1… ✓ matches", out), out
    out = " ".join(ok_of("show", str(log), "--step", "1").split())
    prefilled = f"assistant · step 1 · {PREFILL_SAID} · 71 bytes ▌ as sent a text block · 13 bytes The answer is"
    assert f"{prefilled} ┄ {PREFILLED_TEXT}" in out, out
    assert "4 messages" in out and "matches the recorded request key" in out
    shown = json.loads(ok_of("show", str(log), "--step", "1", "--json"))
    assert shown["prefilled"]["turn"] == "prefill" and shown["messages"][-1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "The answer is"}],
    }


def test_keys_of_a_history_with_no_request_key_says_which_runs_carry_them() -> None:
    """keys of a Claude Code session, none of whose views has a recorded request key, says under its table which
    runs carry them (NO_KEYS_SAID), where it said only "0 with a recorded request key"; a run with keys does not."""
    session = str(Path(__file__).resolve().parents[1] / "sample_imports" / "python-to-rust-port.claude-code.jsonl")
    assert " ".join(NO_KEYS_SAID.split()) in " ".join(ok_of("keys", session).split())
    assert "no request key is recorded" not in ok_of("keys", "fix-failing-test")


def test_keys_says_why_the_view_after_a_prefill_no_reply_answered_has_no_recorded_key(tmp_path: Path) -> None:
    """keys of a log whose last call ended with a prefill and has no reply says, for the view that ends on it (that
    call's request), that no model call was made of it, so none recorded its key, rather than a bare "none recorded"."""
    log = prefilled_log(tmp_path / "log.jsonl", replied=False)
    rows = json.loads(ok_of("keys", str(log), "--json"))
    assert [(row["at"], row["matches"]) for row in rows] == [(0, True), (1, None), (2, None)]
    assert rows[1]["why"] == ""
    assert rows[2]["why"] == (
        "the view ends on step 1's prefill, the caller's text no reply answered: its request had no reply, so no "
        "model call was made of it and none recorded its key"
    )
    out = " ".join(ok_of("keys", str(log)).split())
    assert f"at 2: {rows[2]['why']}" in out, out
    out = " ".join(ok_of("show", str(log)).split())
    assert f"none recorded: {rows[2]['why']}" in out, out


def test_show_json_says_an_as_sent_views_window_and_cap_as_null_a_javascript_reader_keeps(convo: Path) -> None:
    """show --json of an imported run gives its window and cap as null (no window, no cap), never sys.maxsize,
    which JSON.parse rounds to another number; under a window given, the numbers given."""
    text = run_cli("show", str(convo), "--json")[1]
    assert str(sys.maxsize) not in text
    data = json.loads(text)
    assert (data["recent_results"], data["result_bytes"]) == (None, None)
    data = as_json("show", str(convo), "--recent-results", "1", "--result-bytes", "64")
    assert (data["recent_results"], data["result_bytes"]) == (1, 64)


def test_show_with_a_window_is_the_what_if_under_the_contract(convo: Path) -> None:
    """--recent-results/--result-bytes on an imported run give the same history under the contract's window and
    cap: the header says so, and the messages are the run's own options with that window."""
    run = load(convo)
    data = as_json("show", str(convo), "--recent-results", "1", "--result-bytes", "64")
    want = render.messages(run.step_input(), run.options(recent_results=1, result_bytes=64))
    assert data["messages"] == [message.to_dict() for message in want]
    assert data["mode"] == "under the contract (window 1, cap 64 bytes)"
    out = ok("show", str(convo), "--recent-results", "1")
    assert "under the contract (window 1, cap 16,384 bytes); no summariser" in " ".join(out.replace("│", " ").split())
    assert render.NO_SUMMARY_TEXT in out


def test_a_samples_show_says_nothing_of_the_two_views() -> None:
    """A run of the package's own driver has one view, the contract's: show names no mode for it."""
    for name in samples.names():
        assert as_json("show", name)["mode"] == ""
        assert "as sent" not in ok("show", name) and "under the contract" not in ok("show", name)


def test_decide_reads_a_call_logs_replies_and_a_reply_file_by_its_content(log: Path, tmp_path: Path) -> None:
    """decide on a call log explains each logged reply; a .json file holding a Message is a reply, one holding a
    request (or a request with its response) is a run, whatever its name."""
    rows = as_json("decide", str(log))
    assert len(rows) == len(WEATHER["messages"]) // 2 and rows[0]["decision"]["tool"] == "get_weather"
    reply = tmp_path / "anything.json"
    reply.write_text(json.dumps({"type": "message", "role": "assistant", **WEATHER["messages"][1]}), encoding="utf-8")
    [row] = as_json("decide", str(reply))
    assert row["compared"] is False and row["decision"]["tool"] == "get_weather"
    pair = tmp_path / "pair.json"
    pair.write_text(json.dumps(json.loads(log.read_text().splitlines()[0])), encoding="utf-8")
    [row] = as_json("decide", str(pair))
    assert row["step"] == 0


def test_a_json_file_of_no_known_format_is_loads_one_line_error(tmp_path: Path) -> None:
    """Valid JSON that is no run nor conversation gets load's error as one line, for every command, decide too:
    what the file holds, the formats tried and where they are documented; never 'not JSON' or 'type: missing'."""
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"theme": "dark", "fontSize": 12}), encoding="utf-8")
    for command in ("show", "decide", "steps", "context", "keys"):
        code, out, err = run_cli(command, str(path))
        assert code == 2 and out == "" and err.count("\n") == 1
        assert "not a run, nor a conversation agentrender can import" in err and "keys theme, fontSize" in err
        assert "Tried:" in err and "your-own-runs" in err
        assert "not JSON" not in err and "type: missing" not in err


def test_the_error_of_no_known_format_says_where_a_nested_chat_is_and_names_the_responses_api(tmp_path: Path) -> None:
    """A list of results each holding its chat under a key of its own (smolagents' benchmark output) is named with
    its first item's keys; what looks like an OpenAI Responses API request but whose ``input`` is neither text nor
    items is named as one; a file whose start is no JSON (a YAML cassette) says so, in a sentence."""
    cases = {
        "results.json": (
            [{"id": 1, "intermediate_steps": [], "answer": "4"}],
            "a JSON list of 1 item(s), the first an object with the keys id, intermediate_steps, answer",
        ),
        "responses.json": (
            {"model": "gpt-4.1", "input": [42]},
            "a JSON object with the keys model, input (like an OpenAI Responses API request, but its input is not "
            "text nor a list of items)",
        ),
    }
    for name, (value, said) in cases.items():
        path = tmp_path / name
        path.write_text(json.dumps(value), encoding="utf-8")
        code, _, err = run_cli("show", str(path))
        assert code == 2 and f"agentrender can import: it holds {said}. Tried:" in err, err
    cassette = tmp_path / "cassette.yaml"
    cassette.write_text("interactions:\n- request: {}\n", encoding="utf-8")
    code, _, err = run_cli("show", str(cassette))
    assert code == 2 and "agentrender can import: its start is no JSON value that can be read. Tried:" in err, err


def _broken_files() -> dict[str, tuple[bytes, int | str, str]]:
    """Files that hold no readable first value, each with the line (``LINE:COLUMN`` where the error names a column)
    and the words the error gives."""
    chat = json.dumps(
        json.loads((Path(__file__).parent / "fixtures/imports/openai/chat.json").read_text("utf-8")), indent=1
    )
    kept = chat[: chat.rindex("}")].rstrip()
    comma = kept + ",\n}\n"  # a trailing comma before the document's last bracket
    where = f"{kept.count(chr(10)) + 1}:{len(kept) - kept.rindex(chr(10))}"  # the comma's line and column
    lines = chat.split("\n")
    bare = "\n".join([*lines[:8], lines[8].replace(": ", ": nope ", 1), *lines[9:]])  # a word JSON has not
    run = samples.path("fix-failing-test").read_bytes()
    return {
        "empty.jsonl": (b"", 1, "the file is empty"),
        "blank.json": (b"\n  \n", 1, "the file holds only whitespace (4 bytes)"),
        "empty.jsonl.gz": (gzip.compress(b""), 1, "the file is empty"),
        "first-line-cut.jsonl": (
            run[:1500],
            1,
            "the line breaks off (no newline, its JSON value not complete): 1,500 bytes; "
            "a process killed while writing leaves this",
        ),
        "first-line-cut-then-newline.jsonl": (
            run[:1500] + b"\n",
            1,
            "the line breaks off (its JSON value not complete): 1,501 bytes; "
            "a process killed while writing leaves this",
        ),
        "first-line-cut-then-a-line.jsonl": (
            b"\n" + run[:1500] + b"\n" + run.split(b"\n")[1] + b"\n",
            2,
            "the line breaks off (its JSON value not complete): 1,501 bytes; "
            "a process killed while writing leaves this",
        ),
        "first-line-cut-then-a-line.jsonl.gz": (
            gzip.compress(run[:1500] + b"\n" + run.split(b"\n")[1] + b"\n"),
            1,
            "the line breaks off (its JSON value not complete): 1,501 bytes; "
            "a process killed while writing leaves this",
        ),
        "cut.json": (
            chat[: len(chat) // 2].encode(),
            chat[: len(chat) // 2].count("\n") + 1,
            "the JSON document ends early: the file is cut short",
        ),
        "comma.json": (
            comma.encode(),
            where,
            f"not valid JSON: a comma before the closing '}}' on line {comma.count(chr(10))}, where no value "
            "follows it",
        ),
        "word.json": (bare.encode(), f"9:{lines[8].index(':') + 3}", "not valid JSON: Expecting value"),
        "cut.eval": (
            (Path(__file__).parent / "fixtures/inspect/arith.eval").read_bytes()[:5000],
            1,
            "the .eval archive is cut short: it starts as a zip archive, but the directory a zip ends with is "
            "missing (a log still being written, or a copy that stopped early)",
        ),
        "empty.eval": (b"", 1, "the file is empty (an .eval log is a zip archive)"),
    }


@pytest.mark.parametrize("name", list(_broken_files()))
def test_a_file_that_holds_no_readable_value_is_said_where_and_what(tmp_path: Path, name: str) -> None:
    """An empty file, a run file whose first line breaks off (the lines after it too: a JSON Lines file's first line is
    a value of its own, where it was said at line 2 as one document), a JSON document cut short or with a syntax error,
    and an .eval archive cut short are each one error naming the line and what is wrong, not 'its start is no JSON
    value'; a syntax error names its column as ``FILE:LINE:COLUMN:``, a trailing comma the comma's (where the decoder's
    was the bracket after it: 'FILE:139: not valid JSON at column 1' of a comma on line 138)."""
    data, line, said = _broken_files()[name]
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(RunFileError) as caught:
        load(path)
    assert str(caught.value) == f"{path}:{line}: {said}"
    assert run_cli("steps", str(path)) == (2, "", f"agentrender: {path}:{line}: {said}\n")


def test_a_binary_file_or_a_cut_gzip_gets_the_run_file_readers_error(tmp_path: Path) -> None:
    """imports.load (and so every command) says a binary file is not a run file and a gzip cut early ends early,
    as load_run does, never 'no JSON value could be read from its start'."""
    picture = tmp_path / "shot.png"
    picture.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    cut = tmp_path / "run.jsonl.gz"
    cut.write_bytes(gzip.compress(samples.path("fix-failing-test").read_bytes())[:500])
    for path, said in ((picture, "not a run file: binary data"), (cut, "the gzip stream ends early")):
        with pytest.raises(RunFileError) as caught:
            load(path)
        assert said in str(caught.value) and str(caught.value) == str(_error_of(load_run, path))
        code, out, err = run_cli("show", str(path))
        assert (code, out) == (2, "") and err == f"agentrender: {caught.value}\n"


def _error_of(read: Any, path: Path) -> RunFileError:
    """The ``RunFileError`` ``read(path)`` raises."""
    with pytest.raises(RunFileError) as caught:
        read(path)
    return caught.value


def test_a_broken_conversation_names_its_file_line_and_field(convo: Path) -> None:
    """A conversation with a field of the wrong type is one line on stderr naming the file, the line and the field."""
    body = json.loads(convo.read_text())
    body["messages"][1]["content"][1]["id"] = 7
    convo.write_text(json.dumps(body), encoding="utf-8")
    code, _, err = run_cli("show", str(convo))
    assert code == 2 and err == f"agentrender: {convo}:1: messages[1].content[1].id: expected a string, got int\n"


# ---------------------------------------------------------------------------- import


@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz", ".JSONL.GZ", ".Jsonl.Gz", ".JSONL"])
def test_import_writes_a_run_file_that_loads_back_equal(convo: Path, tmp_path: Path, suffix: str) -> None:
    """import SOURCE -o run.jsonl(.gz) writes the run file of the import, gzip-compressed when its name ends in .gz in
    any case (RUN.JSONL.GZ held plain text): load_run gives the same records and the same views, as sent and under
    the contract."""
    target = tmp_path / f"run{suffix}"
    [written] = as_json("import", str(convo), "-o", str(target))
    assert target.read_bytes()[:2] == (b"\x1f\x8b" if suffix.lower().endswith(".gz") else b'{"')
    imported, again = load(convo), load_run(target)
    assert written["path"] == str(target) and written["steps"] == len(imported.steps) == 3
    assert list(again.records) == list(imported.records)
    for window in ({}, {"recent_results": 1, "result_bytes": 40}):
        views, back = Views(imported, imported.options(**window)), Views(again, again.options(**window))
        for at in views.stops:
            assert back.at(at).messages == views.at(at).messages
            assert back.at(at).replay_key == views.at(at).replay_key
    shown = [ok_of("show", str(path)).splitlines() for path in (target, convo)]  # both paths fit the panel
    assert [line for line in shown[0] if "│ file " not in line] == [line for line in shown[1] if "│ file " not in line]


def test_import_refuses_to_overwrite_without_force(convo: Path, tmp_path: Path) -> None:
    """An existing output is left as it is unless --force is given: one line, exit 2."""
    target = tmp_path / "run.jsonl"
    target.write_text("precious\n", encoding="utf-8")
    code, out, err = run_cli("import", str(convo), "-o", str(target))
    assert code == 2 and out == "" and err == f"agentrender: {target}: already exists; --force overwrites it\n"
    assert target.read_text(encoding="utf-8") == "precious\n"
    assert run_cli("import", str(convo), "-o", str(target), "--force")[0] == 0
    assert load_run(target).run_id == "convo.json"


def test_import_writes_a_file_others_may_read_as_the_umask_allows(convo: Path, tmp_path: Path) -> None:
    """The run file import writes has the mode a file the user makes has (0666 less the umask: 0644 under 022), where
    it was 0600, as the temporary file it is written through was made, so a shared run file could not be read."""
    mask = os.umask(0o022)
    try:
        target = tmp_path / "run.jsonl"
        assert run_cli("import", str(convo), "-o", str(target))[0] == 0
    finally:
        os.umask(mask)
    assert target.stat().st_mode & 0o777 == 0o644


def test_import_to_a_folder_says_it_is_one_without_offering_force(convo: Path, tmp_path: Path) -> None:
    """-o naming a folder is refused as a folder at once, where the first refusal offered --force, which was then
    refused in its turn as a folder; the folder is left as it was."""
    folder = tmp_path / "runs"
    folder.mkdir()
    for argv in ([], ["--force"]):
        code, out, err = run_cli("import", str(convo), "-o", str(folder), *argv)
        assert (code, out) == (2, "")
        assert err == f"agentrender: {folder}: a folder; -o names the run file to write (or use --all)\n", err
    assert list(folder.iterdir()) == []


def test_import_of_an_unreadable_source_writes_nothing(tmp_path: Path) -> None:
    """A source that cannot be imported is load's one-line error, and no output file is made."""
    source = tmp_path / "x.json"
    source.write_text('{"messages": "hello"}', encoding="utf-8")
    target = tmp_path / "run.jsonl"
    code, _, err = run_cli("import", str(source), "-o", str(target))
    assert code == 2 and err == f"agentrender: {source}:1: messages: expected a list of messages, got string\n"
    assert list(tmp_path.iterdir()) == [source]


def test_import_with_first_line_summaries_gives_the_what_if_its_summaries(convo: Path, tmp_path: Path) -> None:
    """--summarise first-line gives each result its first line and size: the run file names the summariser, and
    under the contract a result outside the window shows that summary, not (no summary)."""
    target = tmp_path / "run.jsonl"
    ok("import", str(convo), "-o", str(target), "--summarise", "first-line")
    run = load_run(target)
    assert run.summariser == "first_line_summary"
    assert run.records[1:] != load(convo).records[1:]
    want = from_anthropic(WEATHER, run_id=run.run_id, summarise=first_line_summary)
    window = {"recent_results": 1, "result_bytes": 100}
    assert render.messages(run.step_input(), run.options(**window)) == render.messages(
        want.step_input(), want.options(**window)
    )
    out = ok("show", str(target), "--recent-results", "1")
    assert "results summarised by first_line_summary" in " ".join(out.replace("│", " ").split())
    assert first_line_summary("Sunny, 21C\nwind 5 km/h") in out


def test_import_of_a_run_file_keeps_it_as_it_was(tmp_path: Path) -> None:
    """An agentrender.run/1 run file imports as itself: the same records, so old files still load and write."""
    target = tmp_path / "copy.jsonl"
    ok("import", "fix-failing-test", "-o", str(target))
    original = samples.load("fix-failing-test")
    assert list(load_run(target).records) == list(original.records)
    assert original.header["format"] == "agentrender.run/1"


def test_import_all_writes_each_run_of_a_file_that_holds_several(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With --all -o DIR, each run of a file holding several is written as RUN_ID.jsonl; without --all such a file
    writes the first and says so on stderr, --run writes the one it names (an id or a number), and a --run the
    file does not hold is refused with the runs it does hold."""

    def read(path: str) -> list[Run]:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return [from_anthropic(conversation, run_id=name) for name, conversation in data["runs"].items()]

    several = Format("several runs", lambda path, first: isinstance(first, dict) and "runs" in first, read)
    monkeypatch.setattr("agentrender.imports.detect.FORMATS", [several, *FORMATS])
    source = tmp_path / "eval.json"
    source.write_text(json.dumps({"runs": {"sample/1": WEATHER, "sample 2": WEATHER}}), encoding="utf-8")
    code, _, err = run_cli("import", str(source), "-o", str(tmp_path / "one.jsonl"))
    assert code == 0 and "run 0 of runs 0 to 1: sample/1; pick another with --run" in err
    assert load_run(tmp_path / "one.jsonl").run_id == "sample/1"
    code, _, err = run_cli("import", str(source), "--run", "1", "-o", str(tmp_path / "two.jsonl"))
    assert code == 0 and err.endswith("run 1 of runs 0 to 1: sample 2\n")
    assert load_run(tmp_path / "two.jsonl").run_id == "sample 2"
    code, _, err = run_cli("import", str(source), "--run", "sample 3", "-o", str(tmp_path / "three.jsonl"))
    assert code == 2 and "--run sample 3: no run of that id, nor a number from 0 to 1" in err
    assert "the file holds 2 runs: 0: sample/1, 1: sample 2" in err and not (tmp_path / "three.jsonl").exists()
    folder = tmp_path / "runs"
    code, _, err = run_cli("import", str(source), "--run", "1", "--all", "-o", str(folder))
    assert code == 2 and "give one of them" in err
    written = as_json("import", str(source), "--all", "-o", str(folder), "--gzip")
    assert sorted(Path(item["path"]).name for item in written) == ["sample_1.jsonl.gz", "sample_2.jsonl.gz"]
    assert [load_run(item["path"]).run_id for item in written] == ["sample/1", "sample 2"]
    code, _, err = run_cli("import", str(source), "--all", "-o", str(folder), "--gzip")
    assert code == 2 and "already exists (2 of the 2 files to write); --force overwrites" in err


CLAUDE_TRACE = real.REAL / "claude-trace" / "hanqunfeng-claude-trace" / "log-2026-06-15-09-15-50.jsonl"
TAU_BENCH = real.REAL / "tau-bench" / "sierra-research-tau-bench" / "gpt-4o-airline.json"


@pytest.mark.skipif(not CLAUDE_TRACE.is_file(), reason="tests/fixtures/real is not in this checkout")
@pytest.mark.parametrize("gzip", [False, True], ids=["jsonl", "gzip"])
def test_import_all_names_each_file_by_its_run_id_without_its_sources_suffix(tmp_path: Path, gzip: bool) -> None:
    """import --all of a claude-trace log, whose runs are named by its file (log.jsonl, log.jsonl/1, ...), writes
    log.jsonl, log_1.jsonl, ... (.jsonl.gz with --gzip): one suffix, the run file's own, and each run read back."""
    suffix = ".jsonl.gz" if gzip else ".jsonl"
    written = as_json("import", str(CLAUDE_TRACE), "--all", "-o", str(tmp_path), *(["--gzip"] if gzip else []))
    stem = CLAUDE_TRACE.name.removesuffix(".jsonl")
    names = [stem, *(f"{stem}_{number}" for number in range(1, len(written)))]
    assert [Path(item["path"]).name for item in written] == [name + suffix for name in names]
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(name + suffix for name in names)
    assert [load_run(item["path"]).run_id for item in written] == [run.run_id for run in load_runs(CLAUDE_TRACE)]


@pytest.mark.skipif(not TAU_BENCH.is_file(), reason="tests/fixtures/real is not in this checkout")
def test_import_all_gives_each_of_200_runs_a_clean_name_of_its_own(tmp_path: Path) -> None:
    """import --all of tau-bench's 200 results writes 200 files, each its run id with / as _ and one .jsonl."""
    written = as_json("import", str(TAU_BENCH), "--all", "-o", str(tmp_path))
    runs = load_runs(TAU_BENCH)
    assert len(written) == len(runs) == len(list(tmp_path.iterdir()))
    assert [Path(item["path"]).name for item in written] == [run.run_id.replace("/", "_") + ".jsonl" for run in runs]


def test_import_all_names_stay_unique_and_short_whatever_the_run_ids(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run ids that clean to one name (a.json, a.jsonl, A.JSONL), and one of 300 characters, are written to files
    of names of their own, each at most 120 characters before its number and suffix."""

    def read(path: str) -> list[Run]:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return [from_anthropic(WEATHER, run_id=name) for name in data["ids"]]

    several = Format("several runs", lambda path, first: isinstance(first, dict) and "ids" in first, read)
    monkeypatch.setattr("agentrender.imports.detect.FORMATS", [several, *FORMATS])
    source = tmp_path / "ids.json"
    ids = ["a.json", "a.jsonl", "A.JSONL", "a-2", "x" * 300, ".jsonl"]
    source.write_text(json.dumps({"ids": ids}), encoding="utf-8")
    written = as_json("import", str(source), "--all", "-o", str(tmp_path / "out"))
    names = [Path(item["path"]).name for item in written]
    assert names == ["a.jsonl", "a-2.jsonl", "A-3.jsonl", "a-2-2.jsonl", "x" * 120 + ".jsonl", "run.jsonl"]
    assert [load_run(item["path"]).run_id for item in written] == ids


# ---------------------------------------------------------------------------- a lossless import

ROOT = Path(__file__).resolve().parents[1]
IMPORTED = sorted(
    str(path.relative_to(ROOT))
    for path in [
        *(ROOT / "sample_imports").iterdir(),
        *(ROOT / "tests" / "fixtures" / "imports").glob("*/*.*"),
        *(ROOT / "tests" / "fixtures" / "inspect").glob("*.eval"),
    ]
    if path.is_file() and path.suffix != ".md"
)
"""Every bundled sample import and every import fixture: the files a round trip through ``import`` is tried on."""


def _said(report: dict[str, Any]) -> list[tuple[str, str, int | None]]:
    # a finding about a step names the step's line in the file checked: the run file's, where the conversation
    # imported, whose steps are made of its turns, has none; what the file held names its line in the source in both
    return [
        (finding["code"], finding["message"], finding["line"] if finding["step"] is None else None)
        for finding in report["findings"]
    ]


@pytest.mark.parametrize("source", IMPORTED)
def test_import_keeps_the_imports_warnings_and_note_and_shows_and_checks_like_the_import(
    source: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run file ``import`` writes gives back the import's warnings (path, line and text), keeps the source's
    note, and ``show``/``check`` of it say what they say of the import itself (a finding about a step, at the step's
    line in the file checked)."""
    monkeypatch.chdir(ROOT)
    imported = load_runs(source)
    for number, run in enumerate(imported):
        target = tmp_path / f"{number}.jsonl"
        code, _, err = run_cli("import", source, "--run", str(number), "-o", str(target))
        assert code == 0, err
        written = load_run(target)
        assert written.warnings == run.warnings
        assert written.header.get("source") == run.header.get("source")  # the note is the source's "note"
        checked = [as_json_of("check", str(target)), as_json_of("check", source, "--run", str(number))]
        assert _said(checked[0][0]) == _said(checked[1][0])
        shown = [ok_of("show", str(target)), ok_of("show", source, "--run", str(number))]
        assert _shown_alike(shown[0]) == _shown_alike(shown[1])
        # a run linked to others (a session's sub-agent) is written alone: show gives no command to show those
        assert "show it: " not in shown[0] and "\u21b0 show " not in shown[0]
        assert shown[0].count(NOT_IN_FILE) == shown[1].count("show it: ")


def _shown_alike(shown: str) -> list[str]:
    """``show``'s lines, but those that name the file read and the commands that show the other runs of that file,
    which the import's file holds and the run file written of one of them does not (it says so instead)."""
    return [
        line.replace(NOT_IN_FILE, "")
        for line in shown.splitlines()
        if "file " not in line and "show it: " not in line and not line.startswith("\u21b0 ")
    ]


def as_json_of(*argv: str) -> Any:
    """The ``--json`` output of a command that succeeds, whatever it says on stderr of the run it chose."""
    code, out, _ = run_cli(*argv, "--json")
    assert code in (0, 1)
    return json.loads(out)


def ok_of(*argv: str) -> str:
    """The plain output of a command that succeeds, at 300 columns (no path is wrapped)."""
    code, out, _ = run_cli(*argv, "--width", "300", "--color", "never")
    assert code == 0
    return out


def test_a_run_file_rewritten_keeps_no_warning_its_records_say_again(tmp_path: Path) -> None:
    """A recorded run's own load warnings are not copied into its header when it is written again (its records
    say them again), and the run file keeps the same records."""
    path = tmp_path / "run.jsonl"
    run = samples.load("fix-failing-test")
    path.write_text(
        "".join(
            json.dumps({**record, "team": "x"} if number == 0 else record) + "\n"
            for number, record in enumerate(run.records)
        ),
        encoding="utf-8",
    )
    first = load_run(path)
    write_run(first, tmp_path / "again.jsonl")
    again = load_run(tmp_path / "again.jsonl")
    assert "warnings" not in again.header and again.records == first.records
    assert [warning.text for warning in again.warnings] == [warning.text for warning in first.warnings] != []


@pytest.mark.parametrize(
    ("warnings", "field", "what"),
    [
        ("nope", "$.warnings", "expected `array | null`, got `str`"),
        (["x"], "$.warnings[0]", "expected `object`, got `str`"),
        ([{"line": 1}], "$.warnings[0].text", "missing"),
        ([{"text": "t", "line": "1"}], "$.warnings[0].line", "expected `int`, got `str`"),
        ([{"text": "t", "line": 1, "count": 0}], "$.warnings[0].count", "expected `int` >= 1, got 0"),
    ],
)
def test_a_header_warnings_field_of_the_wrong_shape_is_an_error_naming_it(
    tmp_path: Path, warnings: Any, field: str, what: str
) -> None:
    """The header's kept warnings are checked like every other field: a wrong one is PATH:1: naming the field."""
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"type": "run", "run_id": "r", "goal": "g", "warnings": warnings}) + "\n")
    with pytest.raises(RunFileError) as caught:
        load_run(path)
    assert str(caught.value).startswith(f"{path}:1: {field}") and what in str(caught.value)


REAL = real.REAL
"""Real, unmodified public histories (Claude Code, Inspect, SWE-agent), listed in ``MANIFEST.json``."""
REAL_FILES = real.history_paths()


@pytest.mark.skipif(not REAL_FILES, reason="tests/fixtures/real/MANIFEST.json is not in this checkout")
@pytest.mark.parametrize("name", REAL_FILES)
def test_import_of_every_real_history_is_lossless(name: str, tmp_path: Path) -> None:
    """Each run of a real public history, imported with --run and read back, has the import's warnings; a
    history the importers refuse is refused by import with the same one-line error."""
    source = str(REAL / name)
    try:
        runs = load_runs(source)
    except RunFileError as error:
        code, _, err = run_cli("import", source, "-o", str(tmp_path / "x.jsonl"))
        assert code == 2 and err == f"agentrender: {error}\n"
        return
    if len(runs) > 3:  # every run at once (a tau-bench file holds 200: one import each would read it 200 times)
        written = as_json("import", source, "--all", "-o", str(tmp_path))
        assert [item["run_id"] for item in written] == [run.run_id for run in runs]
        for item, run in zip(written, runs, strict=True):
            assert load_run(item["path"]).warnings == run.warnings
        return
    for number, run in enumerate(runs):
        target = tmp_path / f"{number}.jsonl"
        code, _, err = run_cli("import", source, "--run", str(number), "-o", str(target))
        assert code == 0, err
        assert load_run(target).warnings == run.warnings


def test_a_recorded_block_kept_whole_for_its_keys_order_is_shown_by_its_fields(tmp_path: Path) -> None:
    """Claude Code writes a tool result's keys as ``tool_use_id, type, content``; a recorded turn keeps such a block's
    wire form whole, so that its replay key hashes the request as sent. ``show``, a view's HTML and the page showed
    such a block (a text block too) as a JSON dump of its keys, where a block whose keys come in the usual order
    shows its text: each shows it by its fields now (``ContentBlock.opaque``); a block with a key its fields cannot
    carry (a ``cache_control``) is shown by its text too, the key said beside it. The wire form keeps the order."""
    from agentrender.html import page
    from agentrender.views.html import view_html

    def body(result: dict[str, Any], said: dict[str, Any]) -> dict[str, Any]:
        use = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"p": 1}}
        return {"model": "m", "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [said, use]},
            {"role": "user", "content": [result]},
        ]}  # fmt: skip

    usual = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "line one of the file"}
    text = {"type": "text", "text": "Reading it."}
    cases = {
        "usual": (usual, text),
        "reordered": ({"tool_use_id": "toolu_1", "type": "tool_result", "content": "line one of the file"},
                      {"text": "Reading it.", "type": "text"}),
        "default-written": ({**usual, "is_error": False}, text),
        "cached": ({**usual, "cache_control": {"type": "ephemeral"}}, text),
    }  # fmt: skip
    shown = {}
    for name, (result, said) in cases.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(body(result, said)), encoding="utf-8")
        _, out, _ = run_cli("show", str(path), "--width", "120")
        run = load(path)
        last = Views(run).at(None).messages
        blocks = (last[1].content[0], last[2].content[0])
        assert [list(block.to_dict()) for block in blocks] == [list(said), list(result)]
        shown[name] = (out, view_html(Views(run).at(None)), page(run))
    for name in ("reordered", "default-written"):
        out, view, made = shown[name]
        assert "  line one of the file" in out and '"tool_use_id"' not in out, name
        assert "Reading it." in out and '"Reading it."' not in out, name
        assert "<pre>line one of the file</pre>" in view and "&quot;tool_use_id&quot;" not in view, name
        assert "<pre>Reading it.</pre>" in view, name
        assert '\\"text\\": \\"Reading it.\\"' not in made and "Reading it." in made, name
    out, view, made = shown["cached"]  # what its fields cannot carry is said beside its text, not dumped as JSON
    assert "  line one of the file" in out and "cache breakpoint" in out and '"cache_control"' not in out
    assert "<pre>line one of the file</pre>" in view and "cache breakpoint" in view
    assert "cache breakpoint" in made and '\\"cache_control\\"' not in made


def test_decide_shows_a_reply_text_with_an_empty_citations_key_as_text(tmp_path: Path) -> None:
    """A reply's text block as SDKs dump it (``"citations": null``) is shown as its text by ``decide``, not as the
    JSON of its keys; one whose citations hold something is shown whole."""
    said = {"type": "message", "role": "assistant", "model": "m", "stop_reason": "end_turn"}
    for citations, as_text in ((None, True), ([{"type": "char_location", "cited_text": "x"}], False)):
        reply = tmp_path / "reply.json"
        block = {"type": "text", "text": "All done here.", "citations": citations}
        reply.write_text(json.dumps({**said, "content": [block]}), encoding="utf-8")
        _, out, _ = run_cli("decide", str(reply), "--width", "120")
        assert ('"citations"' not in out) is as_text, out
        assert "All done here." in out


def test_decide_says_a_claude_code_session_ran_the_calls_the_contract_would_not() -> None:
    """A real Claude Code 2.1.38 session (``tests/fixtures/real``): its replies of a WebSearch and a Glob, and of a
    Read and a WebFetch, ran both calls, and the turn sent next holds both results. ``decide`` gives the decision
    the contract makes (the note names the second call as not executed) and says that this agent ran it."""
    path = real.REAL / "claude-code" / "marot-spotter" / "tool_heavy.jsonl"
    rows = json.loads(run_cli("decide", str(path), "--json")[1])
    parallel = [row for row in rows if row["not_executed"]]
    assert [(row["step"], row["tool_uses"], row["ran_anyway"]) for row in parallel] == [
        (2, ["WebSearch", "Glob"], ["Glob"]),
        (3, ["Read", "WebFetch"], ["WebFetch"]),
    ]
    for row in parallel:
        assert row["agrees"] and row["decision"]["reason"].endswith(f"not executed: {row['ran_anyway'][0]}]")
        assert "this run's agent ran them all the same: the turn it sent next holds their results." in row["why"]
    _, out, _ = run_cli("decide", str(path), "--step", "2", "--width", "200")
    assert "(Glob) not executed under the contract, which runs the first only" in out
    assert "this run's agent ran them all the same" in out


def test_decide_and_check_point_at_the_line_of_the_users_file_that_holds_the_reply(tmp_path: Path) -> None:
    """A real Claude Code session (``tests/fixtures/real``): ``decide`` names the transcript's line of each reply's
    last record (its second tool use, line 20), as ``--json`` does; ``check`` names the line of a call log that holds
    a call for no step of the run; an Inspect log holds no lines, so its calls name none. Never the line of a run file
    the user never saw."""
    path = real.REAL / "claude-code" / "jessitron-claude-log" / "agents-observe-bug.jsonl"
    lines = path.read_text(encoding="utf-8").split("\n")
    _, out, _ = run_cli("decide", str(path), "--step", "3", "--width", "120")
    assert out.startswith("call 4 of 112 \u00b7 step 3 \u00b7 line 20 ")
    last_of: dict[str, int] = {}  # each reply's last record's line
    for number, line in enumerate(lines, start=1):
        record = json.loads(line) if line.strip() else {}
        if record.get("type") == "assistant":
            last_of[record["message"]["id"]] = number
    rows = json.loads(run_cli("decide", str(path), "--json")[1])
    assert len(rows) == 112
    for row in rows:
        assert last_of[json.loads(lines[row["line"] - 1])["message"]["id"]] == row["line"]
    messages = WEATHER["messages"]
    sent = [messages[0], {"role": "assistant", "content": "No."}, {"role": "user", "content": "Again."}]
    rewound = {  # the opening again, then another reply: a call of the run, after its last step
        "request": {**WEATHER, "messages": sent},
        "response": {"type": "message", "role": "assistant", "content": [{"type": "text", "text": "Sunny."}]},
    }
    log = tmp_path / "log.jsonl"
    log.write_text(call_log(messages) + json.dumps(rewound) + "\n", encoding="utf-8")
    [report] = json.loads(run_cli("check", str(log), "--json")[1])
    [orphan] = [finding for finding in report["findings"] if finding["code"] == "orphan-call"]
    assert orphan["line"] == 4 == len(log.read_text().splitlines())
    inspect = real.REAL / "inspect" / "UKGovernmentBEIS-inspect_ai" / "log_read_sample.json"
    [row] = json.loads(run_cli("decide", str(inspect), "--json")[1])
    assert row["line"] == 0
    assert " \u00b7 line" not in run_cli("decide", str(inspect))[1].splitlines()[0]


def test_a_tool_call_id_used_again_in_an_openai_chat_is_a_warning_not_an_error(tmp_path: Path) -> None:
    """tau-bench's gpt-4o runs (sierra-research/tau-bench) reuse a tool call's id, which OpenAI takes and the
    Messages API refuses. Converted from the chat the agent sent, it is a ``converted-reject`` warning; the same
    conversation written in the Messages API's own shape is an ``api-reject`` error."""

    def called(id_: str) -> dict[str, Any]:
        return {"id": id_, "type": "function", "function": {"name": "get_user", "arguments": "{}"}}

    chat = [
        {"role": "system", "content": "You are an airline agent."},
        {"role": "user", "content": "Book my flight."},
        {"role": "assistant", "content": None, "tool_calls": [called("call_1")]},
        {"role": "tool", "tool_call_id": "call_1", "content": "mia"},
        {"role": "assistant", "content": None, "tool_calls": [called("call_1")]},
        {"role": "tool", "tool_call_id": "call_1", "content": "mia"},
        {"role": "assistant", "content": "Done."},
    ]
    converted = tmp_path / "chat.json"
    converted.write_text(json.dumps(chat), encoding="utf-8")
    code, out, _ = run_cli("check", str(converted), "--json")
    [report] = json.loads(out)
    assert code == 0 and [(f["code"], f["severity"]) for f in report["findings"]] == [("converted-reject", "warning")]
    assert "tool_use id 'call_1' was used before" in report["findings"][0]["message"]
    anthropic = tmp_path / "messages.json"
    run = from_openai(chat)
    anthropic.write_text(json.dumps({"messages": [message.to_dict() for message in Views(run).at(None).messages]}))
    code, out, _ = run_cli("check", str(anthropic), "--json")
    [report] = json.loads(out)
    assert code == 1 and [f["code"] for f in report["findings"]] == ["api-reject"]


def test_import_show_and_html_count_one_step_and_one_call_in_the_singular(tmp_path: Path) -> None:
    """A real sub-agent's session of one step and one model call is said as ``1 step`` and ``1 model call`` by
    ``import``, ``show`` and ``html``, not ``1 steps`` or ``1 model calls``."""
    path = real.REAL / "claude-code" / "neilberkman-ccrider" / "agent-session.jsonl"
    # laid out 1,000 columns wide: a temporary folder's long path must not wrap the phrases looked for
    outputs = [
        ok("import", str(path), "-o", str(tmp_path / "run.jsonl"), width=1000),
        ok("show", str(path), width=1000),
        ok("html", str(path), "-o", str(tmp_path / "run.html"), width=1000),
    ]
    for out in outputs:
        assert "1 steps" not in out and "1 model calls" not in out
    assert "1 step \u00b7 1 model call" in outputs[0] and "1 step" in outputs[2]
    assert "steps        1 (1 rendered, 0 without a decision) " in outputs[1] and "model calls  1 " in outputs[1]


def test_decide_names_the_file_of_a_sub_agents_replies() -> None:
    """A real session's sub-agent (``--run 1``) has its replies in its own transcript beside the session's: ``decide``
    says the line is of that file, by name in the title and by path in ``--json`` (``file``), and names none for the
    session's own run, whose lines are of the file given."""
    path = real.REAL / "claude-code" / "jessitron-claude-log" / "episode-8-before.jsonl"
    agent = path.with_suffix("") / "subagents" / "agent-ae20659fd0f63295e.jsonl"
    _, out, _ = run_cli("decide", str(path), "--run", "1", "--width", "200")
    assert out.startswith("call 1 of 19 \u00b7 step 0 \u00b7 line 3 of agent-ae20659fd0f63295e.jsonl ")
    rows = json.loads(run_cli("decide", str(path), "--run", "1", "--json")[1])
    lines = agent.read_text(encoding="utf-8").split("\n")
    for row in rows:
        assert Path(row["file"]).resolve() == agent.resolve()
        assert json.loads(lines[row["line"] - 1])["type"] == "assistant"
    assert {row["file"] for row in json.loads(run_cli("decide", str(path), "--json")[1])} == {None}


PARALLEL = real.REAL / "claude-code" / "marot-spotter" / "tool_heavy.jsonl"
"""A Claude Code session whose steps 2 and 3 each made two tool uses at once: WebSearch and Glob, Read and WebFetch."""


@pytest.mark.skipif(not PARALLEL.is_file(), reason="tests/fixtures/real is not in this checkout")
def test_steps_tool_keeps_the_same_steps_in_the_table_and_in_follow_lines() -> None:
    """The steps table and the --follow lines keep the same steps for every --tool (each tool a step called, alone
    or in parallel, and none): one rule, kept_by_tool, read on the table's frame and on each step."""
    import argparse

    from agentrender.cli._follow import steps_filter
    from agentrender.cli._tables import steps_rows

    run = load(PARALLEL)
    views = Views(run)
    names = {step.decision.tool for step in run.steps if step.decision is not None and step.decision.tool}
    names |= {name for called in run.parallel_tools().values() for name in called}
    for tool in [*sorted(names), "none"]:
        table = list(steps_rows(run, tool=[tool]).frame["index"])
        kept = steps_filter(argparse.Namespace(tool=[tool], status=None, kind=None))
        assert table == [step.index for step in run.steps if kept(views, step)], tool
    assert len(names) > len({step.decision.tool for step in run.steps if step.decision is not None})


def test_steps_tool_keeps_a_reply_of_parallel_calls_for_any_of_them() -> None:
    """steps --tool keeps a step whose reply called that tool among parallel calls, not only as its first (whose tool
    the decision names), and the table names every tool the reply called; --follow filters and names them the same
    way. Before, --tool Glob kept no step, and the table and the --follow lines said WebSearch alone."""
    import argparse

    from agentrender.cli._follow import show_line, step_line, steps_filter

    for tool, index, said in (("Glob", 2, "WebSearch (+ Glob)"), ("WebFetch", 3, "Read (+ WebFetch)")):
        code, out, err = run_cli("steps", str(PARALLEL), "--tool", tool, "--width", "150", "--color", "never")
        assert code == 0 and "no step has" not in err, err  # a tool called in parallel is one a step has
        assert "1 of 4 steps" in out and f" {index}  tool_call  {said}  ok " in out, out
        code, out, err = run_cli("steps", str(PARALLEL), "--tool", tool, "--json")
        assert code == 0 and [row["index"] for row in json.loads(out)] == [index], err
        run = load(PARALLEL)
        kept = steps_filter(argparse.Namespace(tool=[tool], status=None, kind=None))
        assert [step.index for step in run.steps if kept(Views(run), step)] == [index]
        assert step_line(run.steps[index], Views(run)).plain.startswith(f"step {index} · {said} · ok (")
        assert show_line(Views(run), run.steps[index]).plain.startswith(f"step {index} · {said} · ok (")
    _, out, _ = run_cli("steps", str(PARALLEL), "--tool", "WebSearch", "--tool", "Read", "--json")
    assert [row["index"] for row in json.loads(out)] == [2, 3]
    _, out, _ = run_cli("steps", str(PARALLEL), "--tool", "Bash", "--width", "150", "--color", "never")
    assert "2 of 4 steps" in out and " 0  tool_call  Bash  ok " in out
    # a run file's agent runs a reply's first call alone (the contract): the others are no call of its step
    _, out, _ = run_cli("steps", "fix-failing-test", "--tool", "finish", "--json")
    assert [row["index"] for row in json.loads(out)] == [7]
    _, _, err = run_cli("steps", str(PARALLEL), "--tool", "Grep")
    assert "--tool Grep: no step has this tool; its steps have Bash (2), Glob (1), Read (1), WebFetch (1)" in err, err


@pytest.mark.skipif(not PARALLEL.is_file(), reason="tests/fixtures/real is not in this checkout")
def test_steps_json_and_csv_name_the_tools_called_beside_the_decisions() -> None:
    """steps --json and --csv give a step of parallel tool uses the others its agent ran with the first
    (``other_tools``: a list in JSON, the frame's JSON text in CSV), as the table names them; a run file's agent runs
    a reply's first call alone, so none of its steps has any. Before, both named the first tool only."""
    import csv
    import io

    rows = json.loads(run_cli("steps", str(PARALLEL), "--json")[1])
    assert [(row["tool"], row["other_tools"]) for row in rows] == [
        ("Bash", None),
        ("Bash", None),
        ("WebSearch", ["Glob"]),
        ("Read", ["WebFetch"]),
    ]
    table = list(csv.DictReader(io.StringIO(run_cli("steps", str(PARALLEL), "--csv")[1])))
    assert [(row["tool"], row["other_tools"]) for row in table] == [
        ("Bash", ""),
        ("Bash", ""),
        ("WebSearch", '["Glob"]'),
        ("Read", '["WebFetch"]'),
    ]
    run = load(PARALLEL)
    assert run.parallel_tools() == {2: ("WebSearch", "Glob"), 3: ("Read", "WebFetch")}
    frame = steps_frame(run)
    # the column's one reader, which the CLI uses: tuples, as parallel_tools gives them, and one shared () for a null
    assert other_tools(frame) == [(), (), ("Glob",), ("WebFetch",)]
    assert other_tools(frame)[0] is other_tools(frame)[1]  # no new object a row: most rows of a long run are null
    assert other_tools(frame[2:3]) == [("Glob",)]  # of rows kept by a filter too
    sample = json.loads(run_cli("steps", "fix-failing-test", "--json")[1])
    assert samples.load("fix-failing-test").parallel_tools() == {}
    assert {row["other_tools"] for row in sample} == {None}


@pytest.mark.parametrize("shape", ["response", "assistant turn"])
def test_a_models_reply_given_as_a_history_is_said_to_be_one_and_sent_to_decide(tmp_path: Path, shape: str) -> None:
    """A model's reply (a Messages API response, or an assistant turn alone) given to show or load is refused in
    words that say it is a reply and that decide reads it, where the error only listed its keys and every format;
    decide of the same file explains the decision it becomes."""
    reply: dict[str, Any] = {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a.py"}}],
    }
    if shape == "response":
        reply |= {"id": "msg_1", "type": "message", "model": "m", "stop_reason": "tool_use"}
    path = tmp_path / "reply.json"
    path.write_text(json.dumps(reply), "utf-8")
    with pytest.raises(RunFileError) as caught:
        load(path)
    assert "a model's reply (a Messages API response), not a history; `agentrender decide`" in str(caught.value)
    code, _, err = run_cli("show", str(path))
    assert code == 2 and "`agentrender decide` of the file" in err, err
    code, out, err = run_cli("decide", str(path), "--color", "never")
    assert code == 0 and "read_file" in out, err


@pytest.mark.parametrize(
    ("source", "turns"), [("python-to-rust-port.messages.json", 39), ("stock-lookup.openai-chat.json", 2)]
)
def test_decide_of_a_history_of_no_replies_says_why_and_what_carries_them(source: str, turns: int) -> None:
    """decide of a request body (Messages API, OpenAI chat) says why it has no reply to decide, though the file has
    assistant turns (they are what the agent sent, not replies as returned), and the sources that carry them; one of
    those, a request saved with its response, gives decide its reply. Before, it said only "no model replies were
    captured in this run"."""
    path = samples.imports_folder() / source
    code, out, err = run_cli("decide", str(path), "--width", "300", "--color", "never")
    assert code == 0 and err == "", err
    assert out.strip() == (
        f"no model replies were captured in this run: its {turns} assistant turns are the conversation its agent "
        "sent to the model, not replies as the API returned them; a call log or a request saved with its response, a "
        "Claude Code or Codex session, an Inspect log, or a recording (agentrender.record) carries them"
    )
    replied = samples.imports_folder() / "largest-city-thinking.json"  # a request saved with its response
    code, out, _ = run_cli("decide", str(replied), "--width", "300", "--color", "never")
    assert code == 0 and "1 reply · 1 compared with the recorded decision: all agree" in out, out


@pytest.mark.parametrize("source", ["python-to-rust-port.messages.json", "a run file"])
def test_decide_json_of_a_run_of_no_replies_keeps_the_list_and_says_why_on_stderr(source: str, tmp_path: Path) -> None:
    """decide --json of a run with no captured reply prints an empty list a program reads, and stderr says, as every
    note is said (``agentrender: FILE: ...``), what the text form says: why it has none and what carries them. Before,
    it printed ``[]`` and nothing else."""
    if source == "a run file":
        path = tmp_path / "no-calls.jsonl"
        lines = samples.path("fix-failing-test").read_text(encoding="utf-8").splitlines(keepends=True)
        path.write_text("".join(line for line in lines if '"type": "model_call"' not in line), encoding="utf-8")
    else:
        path = samples.imports_folder() / source
    code, out, err = run_cli("decide", str(path), "--json")
    _, said, _ = run_cli("decide", str(path), "--width", "1000", "--color", "never")
    assert code == 0 and json.loads(out) == []
    assert err == f"agentrender: {path}: {said.strip()}\n", err
    assert "carries them" in err or "writes one for each reply" in err


def test_a_file_of_no_format_is_sent_to_a_page_that_exists_wherever_the_command_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The error of a file no format reads ends naming the page that describes the formats by a path that is a file
    of docs/ from any folder the command runs in, with its section; before, it named docs/ relative to a clone's top
    and a site (agentrender.readthedocs.io) nothing of the project publishes."""
    (tmp_path / "bad.json").write_text('{"hello": 1}')
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli("show", "bad.json")
    assert code == 2 and out == ""
    said = re.search(r"The formats are described in (\S+), the section \"The formats\"$", err.strip())
    assert said is not None and "://" not in err, err
    page = Path(said[1])
    assert page.is_absolute() and page.is_file() and page.parent.parent.name == "docs", page
    assert "\n## The formats\n" in page.read_text("utf-8")
