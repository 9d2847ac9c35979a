"""Properties of the Anthropic importer: any conversation the API accepts imports and renders back byte for byte,
as sent and from a run file; the what-if under the contract is one the API accepts; bad input is one clear error."""

from __future__ import annotations

import copy
import json
import tempfile
from collections.abc import Callable
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentrender import ContentBlock, Decision, ModelResponse, load_run, render, write_run
from agentrender._api_rules import message_problems
from agentrender._display.said import NO_END_IMPORTED, NO_END_RECORDED, end_said
from agentrender._json import MAX_DEPTH, decode_failure
from agentrender._types import check_block
from agentrender.imports import first_line_summary, from_anthropic, load
from agentrender.imports.anthropic import request_key
from agentrender.imports.conversation import loads, read_json_values
from agentrender.runfile import Run, RunFileError
from agentrender.runfile.write import header_with_warnings
from agentrender.views import ENDED_TEXT, PREFILL_ENDED_TEXT, PREFILL_SAID, PREFILLED_TEXT, Views
from tests._support import hostile_files, real
from tests._support.conversations import WEATHER, conversations, json_file, normalised, prefilled_log
from tests._support.examples import examples

SETTINGS = settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def wire(messages: Any) -> bytes:
    """Messages as bytes, keys in order, nothing escaped: equal bytes mean equal conversations."""
    return json.dumps(messages, ensure_ascii=False).encode("utf-8")


def rendered(run: Run, at: int | None = None, **window: int) -> list[dict[str, Any]]:
    """The wire form of the messages the run renders at ``at`` under its options (with ``window``)."""
    return [message.to_dict() for message in render.messages(run.step_input(at), run.options(**window))]


def request(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """A request body around ``messages``, as an agent on the SDK sends it."""
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 4096,
        "system": [{"type": "text", "text": "You fix failing tests.", "cache_control": {"type": "ephemeral"}}],
        "tools": [{"name": "read_file", "description": "Read a file", "input_schema": {"type": "object"}}],
        "messages": messages,
    }


def in_file(tmp: Path, name: str, data: str | bytes) -> Path:
    """``data`` written to ``tmp/name``."""
    path = tmp / name
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_bytes(data)
    return path


def sent_requests(messages: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The ``messages`` of each request the conversation's agent sent: each ends on a user turn."""
    return [messages[: end + 1] for end in range(0, len(messages), 2)]


# ---------------------------------------------------------------------------- round trips


@SETTINGS
@given(conversations())
def test_a_conversation_renders_back_byte_for_byte(messages: list[dict[str, Any]]) -> None:
    """With the run's own options, the view at each step k is the first 1+2k messages as sent, and a conversation
    ending on a user turn renders back whole: string content as one text block, every other byte as it was."""
    run = from_anthropic(request(messages))
    want = normalised(messages)
    assert run.is_as_sent(run.options())
    for step in run.steps:
        assert wire(rendered(run, step.index)) == wire(want[: 1 + 2 * step.index])
    if want[-1]["role"] == "user":
        assert wire(rendered(run)) == wire(want)
    else:  # the reply to the last request is the last step, decided by the request before it
        assert run.steps[-1].observation is None and len(run.steps) == len(want) // 2


@SETTINGS
@given(conversations(), st.sampled_from([".jsonl", ".jsonl.gz"]), st.booleans())
def test_a_written_import_loads_back_the_same(messages: list[dict[str, Any]], suffix: str, summarise: bool) -> None:
    """write_run of an import, read back with load_run, has the same records (the header keeping the import's
    warnings) and warnings, and renders the same views, as sent and under the contract."""
    run = from_anthropic(request(messages), summarise=first_line_summary if summarise else None)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"run{suffix}"
        write_run(run, path)
        again = load_run(path)
    header = header_with_warnings(run.records[0], run.warnings)
    assert list(again.records) == [header, *run.records[1:]] and again.summariser == run.summariser
    assert [w.text for w in again.warnings] == [w.text for w in run.warnings]
    for window in ({}, {"recent_results": 1, "result_bytes": 24}):
        views, back = Views(run, run.options(**window)), Views(again, again.options(**window))
        for at in views.stops:
            assert wire([m.to_dict() for m in back.at(at).messages]) == wire(
                [m.to_dict() for m in views.at(at).messages]
            )
            assert back.at(at).replay_key == views.at(at).replay_key
        assert back.mode == views.mode


@SETTINGS
@given(conversations(max_steps=4))
def test_a_file_imports_as_the_dict_does(messages: list[dict[str, Any]]) -> None:
    """A request in a .json file (indented or not) and a bare messages list import to the records of the dict."""
    body = request(messages)
    from_dict = from_anthropic(body, run_id="r")
    with tempfile.TemporaryDirectory() as folder:
        for name, data in (("a.json", json.dumps(body, indent=2)), ("b.json", json.dumps(body, ensure_ascii=False))):
            run = from_anthropic(in_file(Path(folder), name, data), run_id="r")
            assert [dict(r) for r in run.records][1:] == [dict(r) for r in from_dict.records][1:]
            assert wire(rendered(run)) == wire(rendered(from_dict))
        bare = load(in_file(Path(folder), "c.json", json.dumps(messages)))
    assert all(wire(rendered(bare, s.index)) == wire(rendered(from_dict, s.index)) for s in from_dict.steps)


def call_log_lines(messages: list[dict[str, Any]], stops: Callable[[str], str] = lambda natural: natural) -> list[str]:
    """The lines of a call log of ``messages``: each request with the reply to it, which stopped on
    ``stops(natural)`` (``natural``: ``tool_use`` for a reply with a tool use, else ``end_turn``)."""
    body = request(messages)
    lines = []
    for number, sent in enumerate(sent_requests(messages)):
        answer = messages[len(sent)] if len(sent) < len(messages) else {"role": "assistant", "content": "Done."}
        content = (
            answer["content"] if isinstance(answer["content"], list) else [{"type": "text", "text": answer["content"]}]
        )
        uses = any(block["type"] == "tool_use" for block in content)
        response = {
            "id": f"msg_{number:03d}",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": content,
            "stop_reason": stops("tool_use" if uses else "end_turn"),
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
        lines.append(json.dumps({"request": {**body, "messages": sent}, "response": response, "latency_ms": 12}))
    return lines


@SETTINGS
@given(conversations(max_steps=5))
def test_a_call_log_gives_every_call_and_the_longest_conversation(messages: list[dict[str, Any]]) -> None:
    """A .jsonl log of the agent's calls (each request with the reply to it) is a run whose steps render each
    request as it was sent, with one model call per line made for the step its request decided."""
    lines = call_log_lines(messages)
    requests = sent_requests(messages)
    with tempfile.TemporaryDirectory() as folder:
        run = load(in_file(Path(folder), "calls.jsonl", "\n".join(lines) + "\n"))
    assert [call.step for call in run.model_calls] == list(range(len(requests)))
    assert [call.latency_ms for call in run.model_calls] == [12] * len(requests)
    for number, sent in enumerate(requests):
        assert wire(rendered(run, number)) == wire(normalised(sent))
        assert Views(run).at(number).replay_key == run.model_calls[number].request_key


@SETTINGS
@given(conversations(max_steps=5), st.data())
def test_a_steps_decision_is_decide_of_the_reply_its_call_recorded(messages: list[dict[str, Any]], data: Any) -> None:
    """Whatever a logged reply stopped on (the output cap, the context window, a refusal, or what its blocks say),
    the step it was made for is decided as ``render.decide`` decides that reply: ``check`` finds no disagreement."""
    ends = ["max_tokens", "model_context_window_exceeded", "refusal"]
    lines = call_log_lines(messages, lambda natural: data.draw(st.sampled_from([natural, *ends])))
    with tempfile.TemporaryDirectory() as folder:
        run = load(in_file(Path(folder), "calls.jsonl", "\n".join(lines) + "\n"))
    assert run.model_calls
    for call in run.model_calls:
        assert run.steps[call.step].decision == render.decide(call.response), call.response.stop_reason


@SETTINGS
@given(conversations(), st.sampled_from(["tool_use", "end_turn", "max_tokens", "refusal"]))
def test_decide_blocks_is_decide_of_the_whole_reply(messages: list[dict[str, Any]], stop: str) -> None:
    """render.decide_blocks of an assistant turn's wire blocks is render.decide of the Message they make."""
    for turn in normalised(messages)[1::2]:
        wire = {"type": "message", "role": "assistant", "content": turn["content"], "stop_reason": stop}
        assert render.decide_blocks(turn["content"], stop) == render.decide(ModelResponse.from_dict(wire))


BLOCK_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(), st.text(max_size=3), st.lists(st.integers(), max_size=1)
)


@settings(max_examples=examples(400), deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(
            ["type", "text", "id", "name", "input", "tool_use_id", "content", "is_error", "thinking", "data"]
        ),
        BLOCK_VALUES,
    ),
    st.sampled_from(["text", "tool_use", "tool_result", "thinking", "redacted_thinking", "image", ""]),
)
def test_check_block_raises_what_from_dict_raises(block: dict[str, Any], kind: str) -> None:
    """check_block, whose quick pass converts a block into its wire shape, accepts and refuses exactly the blocks
    ContentBlock.from_dict does, with the same message, however often a shape is seen."""
    if "type" not in block or kind:
        block = {**block, "type": kind}
    for _ in range(2):
        try:
            ContentBlock.from_dict(block, where="b")
        except ValueError as error:
            with pytest.raises(ValueError) as caught:
                check_block(block, "b")
            assert str(caught.value) == str(error)
        else:
            check_block(block, "b")


# ---------------------------------------------------------------------------- the what-if


@SETTINGS
@given(conversations(), st.integers(0, 3), st.sampled_from([0, 10, 200, render.RESULT_BYTES]), st.booleans())
def test_the_view_under_the_contract_is_one_the_api_accepts(
    messages: list[dict[str, Any]], recent: int, cap: int, summarise: bool
) -> None:
    """Under any window and cap, every view of an import (and the view as sent) is a conversation the Messages API
    accepts: roles alternate, every tool use is answered in order (as sent, the conversation as it ended is its
    last reply after one); and the header says which view it is."""
    run = from_anthropic(request(messages), summarise=first_line_summary if summarise else None)
    for options in (run.options(), run.options(recent_results=recent, result_bytes=cap)):
        views = Views(run, options)
        for at in views.stops:
            view = views.at(at)
            if view.ended:  # as sent, the conversation as it ended: the last reply, and no request after it
                assert view.messages[-1].role == "assistant" and run.is_as_sent(options)
                assert list(message_problems(view.messages[:-1])) == []
            else:
                assert list(message_problems(view.messages)) == []
        if run.steps:
            assert views.mode == (
                "as sent" if run.is_as_sent(options) else f"under the contract (window {recent:,}, cap {cap:,} bytes)"
            )


def test_under_the_contract_old_results_show_their_summary_or_no_summary() -> None:
    """A result outside the window is its summary when a summariser was given, else (no summary); inside, in full."""
    messages = [
        {"role": "user", "content": "Fix the test."},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_a", "name": "read_file", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_a", "content": "line 1\nline 2"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_b", "name": "run_tests", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_b", "content": "1 failed"}]},
    ]
    plain, summarised = from_anthropic(messages), from_anthropic(messages, summarise=first_line_summary)
    old, new = rendered(plain, recent_results=1)[2]["content"][0], rendered(plain, recent_results=1)[4]["content"][0]
    assert (old["content"], new["content"]) == (render.NO_SUMMARY_TEXT, "1 failed")
    assert rendered(summarised, recent_results=1)[2]["content"][0]["content"] == "line 1 … (13 bytes, 2 lines)"
    assert summarised.summariser == "first_line_summary" and plain.summariser == ""


# ---------------------------------------------------------------------------- bad input

BASE = request(
    [
        {
            "role": "user",
            "content": [{"type": "text", "text": "Go"}, {"type": "image", "source": {"type": "url", "url": "u"}}],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "hm", "signature": "s"},
                {"type": "text", "text": "Reading."},
                {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a"}},
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "x"}]}],
        },
    ]
)


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """A change that sets the field at ``path`` (``messages.1.content.2.id``) to ``value``, or drops it (``...``)."""

    def change(body: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = body
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        key: Any = int(last) if isinstance(node, list) else last
        if value is ...:
            del node[key]
        else:
            node[key] = value

    return change


# (what is changed, the field the error names, what it says)
WRONG = [
    ("messages", "x", "messages", "expected a list of messages, got string"),
    ("messages.1", 3, "messages[1]", "expected a message object, got int"),
    ("messages.1.role", ..., "messages[1].role", "expected 'user' or 'assistant', got None"),
    ("messages.1.role", 7, "messages[1].role", "expected 'user' or 'assistant', got 7"),
    ("messages.1.content", 5, "messages[1].content", "expected text or a list of blocks, got int"),
    ("messages.1.content", ..., "messages[1].content", "expected text or a list of blocks, got null"),
    ("messages.1.content.0", "x", "messages[1].content[0]", "expected an object, got string"),
    ("messages.1.content.0.type", 1, "messages[1].content[0].type", "expected a non-empty string, got 1"),
    ("messages.1.content.0.thinking", 1, "messages[1].content[0].thinking", "expected a string, got int"),
    ("messages.1.content.0.signature", [], "messages[1].content[0].signature", "expected a string, got array"),
    ("messages.1.content.1.text", None, "messages[1].content[1].text", "expected a string, got null"),
    ("messages.1.content.1.text", ..., "messages[1].content[1].text", "missing from a 'text' block"),
    ("messages.1.content.2.id", 1, "messages[1].content[2].id", "expected a string, got int"),
    ("messages.1.content.2.name", {}, "messages[1].content[2].name", "expected a string, got object"),
    (
        "messages.1.content.2.input",
        7,
        "messages[1].content[2].input",
        "expected an object (the tool's input) or its raw text, got int",
    ),
    (
        "messages.1.content.2.input",
        ...,
        "messages[1].content[2].input",
        "expected an object (the tool's input) or its raw text, missing",
    ),
    ("messages.2.content.0.tool_use_id", 1, "messages[2].content[0].tool_use_id", "expected a string, got int"),
    ("messages.2.content.0.content", 1, "messages[2].content[0].content", "expected a string, got int"),
    ("messages.2.content.0.content.0.text", 3, "messages[2].content[0].content[0].text", "expected a string, got int"),
    ("messages.2.content.0.is_error", "no", "messages[2].content[0].is_error", "expected a boolean, got string"),
    ("model", 1, "model", "expected a string, got int"),
    ("system", 1, "system", "expected a string or a list of text blocks, got int"),
    ("system.0", 1, "system[0]", "expected a text block"),
    ("tools", {}, "tools", "expected a list of tool definitions, got object"),
    ("tools.0", "x", "tools[0]", "expected a tool definition (an object), got string"),
    ("max_tokens", "x", "max_tokens", "expected an integer, got string"),
    ("max_tokens", True, "max_tokens", "expected an integer, got bool"),
]


@pytest.mark.parametrize(("path", "value", "field", "what"), WRONG, ids=[f"{w[0]}={w[1]!r}" for w in WRONG])
def test_a_field_of_the_wrong_type_is_one_error_naming_file_line_and_field(
    tmp_path: Path, path: str, value: Any, field: str, what: str
) -> None:
    """Every field the importer reads, of the wrong type or missing, is a RunFileError at PATH:1: FIELD: WHAT,
    read through load as the CLI reads it, and from the dict alike."""
    body = copy.deepcopy(BASE)
    _set(path, value)(body)
    source = in_file(tmp_path, "convo.json", json.dumps(body, indent=2))
    with pytest.raises(RunFileError) as caught:
        load(source)
    assert str(caught.value).startswith(f"{source}:1: {field}: {what}"), str(caught.value)
    with pytest.raises(RunFileError) as direct:
        from_anthropic(body)
    assert str(direct.value).startswith(f"<anthropic>:1: {field}: {what}")


TURNS = [
    ([{"role": "assistant", "content": "a"}], "messages[0].role: a conversation starts with a user turn"),
    ([], "messages: the conversation has no messages"),
]


@pytest.mark.parametrize(("messages", "what"), TURNS)
def test_turns_that_do_not_alternate_are_one_error(tmp_path: Path, messages: list[Any], what: str) -> None:
    """An assistant first, no messages: one error naming the message."""
    source = in_file(tmp_path, "convo.json", json.dumps({"messages": messages}))
    with pytest.raises(RunFileError) as caught:
        load(source)
    assert str(caught.value).startswith(f"{source}:1: {what}")


def _text(text: str) -> dict[str, str]:
    return {"type": "text", "text": text}


def test_turns_of_one_role_in_a_row_are_combined_as_the_api_combines_them(tmp_path: Path) -> None:
    """Two user turns and two assistant turns in a row, which the API takes and combines into one turn each, import
    as those combined turns, each turn's blocks in order, with a warning at each joined turn's line and field (before,
    the file was an error: nothing of it could be read)."""
    messages = [
        {"role": "user", "content": "a"},
        {"role": "user", "content": [_text("b")]},
        {"role": "assistant", "content": "c"},
        {"role": "assistant", "content": [_text("d")]},
        {"role": "user", "content": "e"},
    ]
    source = in_file(tmp_path, "convo.json", json.dumps({"model": "m", "max_tokens": 9, "messages": messages}))
    run = load(source)
    assert [(warning.line, warning.text) for warning in run.warnings] == [
        (
            1,
            f"messages[{i}].role: two {role} turns in a row (messages[{i - 1}] and [{i}]): combined into one turn, as "
            "the Messages API combines consecutive turns of one role; each turn's blocks are kept, in order",
        )
        for i, role in [(1, "user"), (3, "assistant")]
    ]
    view = [message.to_dict() for message in render.messages(run.step_input(None), run.options())]
    assert view == [
        {"role": "user", "content": [_text("a"), _text("b")]},
        {"role": "assistant", "content": [_text("c"), _text("d")]},
        {"role": "user", "content": [_text("e")]},
    ]


def test_a_paused_turn_continued_as_a_turn_of_its_own_is_one_step(tmp_path: Path) -> None:
    """A log whose agent sent a pause_turn reply back to be continued, then appended the continuation as an assistant
    turn of its own (two in a row, as the API takes them): one step of both replies' blocks, decided by both calls,
    the warning at the line and field of the call that sent them, and each call's replay key the one of what it sent
    (before, the log was an error)."""
    asked = {"role": "user", "content": "Weather?"}
    paused = [_text("Searching.")]
    then = [_text("It is sunny.")]
    reply = {"type": "message", "role": "assistant", "model": "m"}
    requests = [
        {"model": "m", "max_tokens": 9, "messages": [asked]},
        {"model": "m", "max_tokens": 9, "messages": [asked, {"role": "assistant", "content": paused}]},
        {
            "model": "m",
            "max_tokens": 9,
            "messages": [
                asked,
                {"role": "assistant", "content": paused},
                {"role": "assistant", "content": then},
                {"role": "user", "content": "Thanks."},
            ],
        },
    ]
    replies = [
        {**reply, "id": "msg_0", "content": paused, "stop_reason": "pause_turn"},
        {**reply, "id": "msg_1", "content": then, "stop_reason": "end_turn"},
        {**reply, "id": "msg_2", "content": [_text("Bye.")], "stop_reason": "end_turn"},
    ]
    lines = [
        json.dumps({"request": request, "response": answer}) for request, answer in zip(requests, replies, strict=True)
    ]
    run = load(in_file(tmp_path, "calls.jsonl", "\n".join(lines) + "\n"))
    assert [warning.text for warning in run.warnings if warning.line == 3] == [
        "request.messages[2].role: two assistant turns in a row (messages[1] and [2]): combined into one turn, as the "
        "Messages API combines consecutive turns of one role; each turn's blocks are kept, in order"
    ]
    assert [call.step for call in run.model_calls] == [0, 0, 1]
    assert [step.index for step in run.steps] == [0, 1]
    view = [message.to_dict() for message in render.messages(run.step_input(1), run.options())]
    assert view[1] == {"role": "assistant", "content": [*paused, *then]}
    assert [call.record["request_key"] for call in run.model_calls] == [request_key(r) for r in requests]


_CLOSED = {
    "type": "end",
    "status": "closed",
    "reason": "the agent closed the recorded client",
    "at": "2026-12-07T10:00:01Z",
}


@pytest.mark.parametrize(
    ("writes_end", "end", "said"),
    [
        (True, _CLOSED, "closed: the agent closed the recorded client"),
        (True, None, NO_END_RECORDED),
        (False, None, NO_END_IMPORTED),
    ],
    ids=["closed", "cut-short", "older-recorder"],
)
def test_a_recording_says_whether_it_was_closed_or_cut_short(
    tmp_path: Path, writes_end: bool, end: dict[str, Any] | None, said: str
) -> None:
    """A recording's end record is the run's end; a recording whose header says its recorder writes one and that has
    none was cut short (its process killed): a warning at its last line and the run's end in the words of a recorded
    run with no end; one of an older recorder, which wrote none, reads as it did (before, the end record was warned of
    as no call of the recording, and a recording cut short read as one closed)."""
    source = {"format": "anthropic-record", "client": "Anthropic", **({"writes_end": True} if writes_end else {})}
    call = {
        "type": "model_call",
        "step": 0,
        "request": {"model": "m", "max_tokens": 9, "messages": [{"role": "user", "content": "Hi."}]},
        "response": {"type": "message", "role": "assistant", "model": "m", "id": "msg_0", "content": [_text("Hello.")]},
    }
    header = {"type": "run", "format": "agentrender.run/2", "run_id": "r", "source": source}
    records = [header, call, *([end] if end else [])]
    path = in_file(tmp_path, "r.jsonl", "".join(json.dumps(record) + "\n" for record in records))
    run = load(path)
    assert run.end == end
    assert end_said(run.end, run.header) == (said, False)
    cut = [(warning.line, warning.text) for warning in run.warnings]
    assert cut == (
        [
            (
                2,
                "the recording has no end record, which agentrender.record writes as the recording is closed: the run "
                "was still going, or its process died (killed while recording); every call it recorded is here",
            )
        ]
        if writes_end and end is None
        else []
    )


def _log(lines: list[str]) -> str:
    return "\n".join(lines)


GOOD_CALL = json.dumps(
    {"request": BASE, "response": {"type": "message", "role": "assistant", "content": [], "stop_reason": "end_turn"}}
)


@pytest.mark.parametrize(
    ("text", "line", "what"),
    [
        ('{"messages": [,]}', 1, "not JSON"),
        ('{\n  "messages": [\n    {"role": "user" "content": "a"}\n  ]\n}', 3, "not JSON"),
        (_log([GOOD_CALL, "{not json", GOOD_CALL]) + "\n", 2, "not JSON"),
        (_log([GOOD_CALL, json.dumps({"request": {"model": "m"}})]) + "\n", 2, "request.messages: missing"),
        (
            _log([GOOD_CALL, json.dumps({"request": BASE, "response": 3})]) + "\n",
            2,
            "response: expected a Message object",
        ),
        (_log([GOOD_CALL, json.dumps({"request": BASE, "response": {"content": 3}})]) + "\n", 2, "content"),
        (_log([GOOD_CALL, "[1, 2]"]) + "\n", 2, "expected a request"),
        (
            _log([GOOD_CALL, json.dumps({"request": {**BASE, "messages": [{"role": "user", "content": 1}]}})]) + "\n",
            2,
            "messages[0].content",
        ),
    ],
)
def test_a_bad_line_of_a_log_names_its_line(tmp_path: Path, text: str, line: int, what: str) -> None:
    """A line of a .jsonl call log (or of a .json file) that is not JSON, or not a call, names that line."""
    name = "calls.jsonl" if text.count("\n") > 1 and text.startswith(GOOD_CALL) else "convo.json"
    source = in_file(tmp_path, name, text)
    with pytest.raises(RunFileError) as caught:
        from_anthropic(source)
    assert caught.value.line == line and str(caught.value).startswith(f"{source}:{line}: "), str(caught.value)
    assert what in caught.value.what


def test_a_log_cut_in_its_last_line_loads_the_calls_before_it_with_a_warning(tmp_path: Path) -> None:
    """A call log whose writer stopped mid-line keeps every whole call, and says the last line was cut, where."""
    whole = _log([GOOD_CALL, GOOD_CALL]) + "\n"
    source = in_file(tmp_path, "calls.jsonl", whole + GOOD_CALL[: len(GOOD_CALL) // 2])
    run = load(source)
    assert len(run.model_calls) == 2
    [cut] = [warning for warning in run.warnings if "cut short" in warning.text]
    assert (cut.line, cut.path) == (3, str(source))


@pytest.mark.parametrize("name", ["calls.jsonl", "calls.log"])
def test_bytes_not_utf8_in_a_log_are_refused_at_their_line_and_a_last_line_cut_inside_a_character_is_left_out(
    tmp_path: Path, name: str
) -> None:
    """A byte that is not UTF-8 in a call log is refused naming its line and its byte in that line, whatever the
    file's name, and a log cut inside a character's bytes keeps the calls before the cut with a warning at its line."""
    whole = (_log([GOOD_CALL, GOOD_CALL]) + "\n").encode()
    source = in_file(tmp_path, name, whole + GOOD_CALL.encode()[:9] + b"\xff" + GOOD_CALL.encode()[9:] + b"\n")
    with pytest.raises(RunFileError) as caught:
        load(source)
    assert str(caught.value) == f"{source}:3: not UTF-8 text (invalid start byte at byte 9)"
    source = in_file(tmp_path, name, whole + GOOD_CALL.encode()[:-9] + "caf\u00e9".encode()[:-1])
    run = load(source)
    assert len(run.model_calls) == 2
    assert [(w.line, w.lost) for w in run.warnings if "cut short" in w.text] == [(3, True)], run.warnings


def test_a_file_of_no_known_format_says_what_was_tried(tmp_path: Path) -> None:
    """Valid JSON in no format load knows: one error saying what the file holds, the formats tried, the docs."""
    source = in_file(tmp_path, "notes.json", json.dumps({"title": "t", "items": [1]}))
    with pytest.raises(RunFileError) as caught:
        load(source)
    message = str(caught.value)
    assert "\n" not in message and "keys title, items" in message
    assert "Anthropic Messages API" in message and "your-own-runs" in message


# ---------------------------------------------------------------------------- fuzz

FIXTURE = json.dumps(BASE, indent=1).encode("utf-8")
LOG = (_log([GOOD_CALL, json.dumps({"request": BASE, "response": None, "latency_ms": 3})]) + "\n").encode("utf-8")
TOKENS = [b"{", b"}", b"[", b"]", b",", b":", b'"', b"null", b"1", b'"role"', b'"tool_use"', b"\\u0000", b"\xff", b"\n"]


@st.composite
def mutated(draw: st.DrawFn, source: bytes) -> bytes:
    """``source`` with a few byte flips, cuts and inserted JSON tokens."""
    data = bytearray(source)
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["flip", "cut", "insert"]))
        at = draw(st.integers(0, max(len(data) - 1, 0)))
        if kind == "flip" and data:
            data[at] = draw(st.integers(0, 255))
        elif kind == "cut":
            end = draw(st.integers(at, min(len(data), at + 40)))
            del data[at:end]
        else:
            data[at:at] = draw(st.sampled_from(TOKENS))
    return bytes(data)


@settings(max_examples=examples(300), deadline=None)
@given(st.one_of(st.tuples(st.just("convo.json"), mutated(FIXTURE)), st.tuples(st.just("calls.jsonl"), mutated(LOG))))
def test_fuzzed_input_loads_or_raises_only_the_one_error(case: tuple[str, bytes]) -> None:
    """A mutated conversation or call log either loads (any doubt a warning) and renders both views, or raises
    RunFileError naming the file and a line of it: never another exception."""
    name, data = case
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / name
        source.write_bytes(data)
        try:
            run = load(source)
        except RunFileError as error:
            place = f"{source}:{error.line}:" + ("" if error.column is None else f"{error.column}:")
            assert str(error).startswith(place + " ") and 0 <= error.line <= data.count(b"\n") + 1
            return
        for options in (run.options(), run.options(recent_results=1, result_bytes=8)):
            views = Views(run, options)
            for at in views.stops:
                assert views.at(at).messages[0].role == "user"


def test_a_conversation_given_in_memory_is_the_runs_own_copy() -> None:
    """Changing the dict given to from_anthropic after the import (a block's text, a tool's input, the tools)
    changes nothing the run renders or writes: the run never shares a list or an object with its caller."""
    body = copy.deepcopy(WEATHER)
    run = from_anthropic(body)
    before = [m.to_dict() for m in render.messages(run.step_input(), run.options())]
    records = json.dumps(list(run.records))
    for message in body["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else ():
            block.clear()
    body["tools"].clear()
    assert [m.to_dict() for m in render.messages(run.step_input(), run.options())] == before
    assert json.dumps(list(run.records)) == records


def test_an_imported_request_body_is_sent_again_byte_for_byte() -> None:
    """The as-sent view at each step is the body's messages as written: the same keys in the same order (the replay
    key is a digest of the bytes, so a reader that put a block's keys in the API's order changed every key)."""
    from agentrender import samples

    path = samples.imports_folder() / "python-to-rust-port.messages.json"
    sent = json.loads(path.read_text(encoding="utf-8"))["messages"]
    run = load(path)
    views = Views(run)
    for k in (1, 6, len(run.steps) - 1):
        shown = [message.to_dict() for message in views.at(k).messages]
        written = [
            {
                **m,
                "content": [{"type": "text", "text": m["content"]}] if isinstance(m["content"], str) else m["content"],
            }
            for m in sent[: 2 * k + 1]
        ]
        assert json.dumps(shown, ensure_ascii=False) == json.dumps(written, ensure_ascii=False), k


PLAIN_BODY: dict[str, Any] = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 1024,
    "temperature": 0,
    "messages": [
        {"role": "user", "content": "Fix the test."},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Reading it."},
                {"type": "tool_use", "id": "t1", "name": "read", "input": {"path": "a.py", "lines": [1, 2]}},
                {"type": "tool_use", "id": "t2", "name": "read", "input": "not an object"},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "x = 1"}]},
                {"type": "text", "text": "and keep the API"},
            ],
        },
        {"role": "assistant", "content": "Done."},
    ],
}


def test_a_body_file_of_plain_blocks_imports_as_the_same_body_given_as_a_value(tmp_path: Path) -> None:
    """A body file whose blocks are read as records gives the steps, records and warnings its value gives."""
    path = json_file(tmp_path / "body.json", PLAIN_BODY)
    from_file, from_value = from_anthropic(path), from_anthropic(copy.deepcopy(PLAIN_BODY))
    assert list(from_file.steps) == list(from_value.steps)
    assert dict(from_file.step_records) == dict(from_value.step_records)
    assert from_file.header["request"] == {"temperature": 0} == from_value.header["request"]
    assert [w.text for w in from_file.warnings] == [w.text for w in from_value.warnings]
    assert [w.text.split(":")[0] for w in from_file.warnings] == ["messages[3]", "messages[1]"]  # a prefill, t2
    assert "t2 have no tool_result" in from_file.warnings[1].text


@pytest.mark.parametrize(
    ("where", "extra"),
    [("block", {"cache_control": {"type": "ephemeral"}}), ("message", {"name": "alice"})],
)
def test_a_body_file_with_a_field_beside_the_plain_ones_keeps_it(tmp_path: Path, where: str, extra: Any) -> None:
    """A field a plain block or message does not have (cache control, a name) is kept, as a value's is."""
    body = copy.deepcopy(PLAIN_BODY)
    if where == "block":
        body["messages"][1]["content"][1].update(extra)
    else:
        body["messages"][1].update(extra)
    run = from_anthropic(json_file(tmp_path / "body.json", body))
    if where == "block":
        assert run.step_records[0]["sent"]["assistant"][1]["cache_control"] == {"type": "ephemeral"}
    else:
        assert run.header["source"]["message_fields"] == [{"message": 1, "fields": {"name": "alice"}}]


def test_a_body_file_whose_tool_input_nests_past_the_limit_is_refused_naming_it(tmp_path: Path) -> None:
    """A tool use's input nested one level past the limit is refused with the error naming where, as any field."""
    body = copy.deepcopy(PLAIN_BODY)
    text = json.dumps(body).replace('{"path": "a.py", "lines": [1, 2]}', hostile_files.deep_json(MAX_DEPTH - 4))
    path = tmp_path / "deep.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RunFileError, match=r"messages\[1\]\.content\[1\]\.input\.a.*nested deeper than 256 levels"):
        from_anthropic(path)
    path.write_text(text.replace(hostile_files.deep_json(MAX_DEPTH - 4), hostile_files.deep_json(MAX_DEPTH - 5)))
    assert len(from_anthropic(path).steps) == 2


def test_a_body_file_checked_as_records_is_sent_again_in_its_own_key_order(tmp_path: Path) -> None:
    """A body of plain blocks whose keys are not in the API's order gives views whose blocks are the file's bytes."""
    messages = [
        {"role": "user", "content": [{"text": "Fix the test.", "type": "text"}]},
        {
            "role": "assistant",
            "content": [
                {"text": "Reading it.", "type": "text"},
                {"input": {"path": "a.py"}, "name": "read", "id": "t1", "type": "tool_use"},
            ],
        },
        {
            "role": "user",
            "content": [{"is_error": False, "content": "x = 1", "tool_use_id": "t1", "type": "tool_result"}],
        },
        {"role": "assistant", "content": [{"name": "read", "type": "tool_use", "input": {}, "id": "t2"}]},
        {
            "role": "user",
            "content": [{"content": [{"text": "y", "type": "text"}], "type": "tool_result", "tool_use_id": "t2"}],
        },
        {"role": "assistant", "content": "Done."},
    ]
    run = from_anthropic(json_file(tmp_path / "body.json", {"model": "claude-sonnet-4-5", "messages": messages}))
    views = Views(run)
    for k in range(len(run.steps)):
        shown = [message.to_dict() for message in views.at(k).messages]
        assert json.dumps(shown) == json.dumps(messages[: 2 * k + 1]), k
    assert json.dumps(run.step_records[1]["sent"]["user"]) == json.dumps(messages[4]["content"])


@pytest.mark.parametrize(
    "content",
    [5, None, [{"type": "text", "text": "x"}, {"type": "image", "source": {"type": "url", "url": "https://a/b.png"}}]],
)
def test_a_body_file_whose_result_is_not_text_reads_as_its_value_does(tmp_path: Path, content: Any) -> None:
    """A result whose content is neither text nor text blocks is read as the same body given as a value reads it:
    the same error naming the field, or the same blocks kept."""
    body = copy.deepcopy(PLAIN_BODY)
    body["messages"][2]["content"][0]["content"] = content
    path = json_file(tmp_path / "body.json", body)
    try:
        expected = from_anthropic(copy.deepcopy(body))
    except RunFileError as error:
        with pytest.raises(RunFileError) as caught:
            from_anthropic(path)
        assert str(caught.value) == str(error).replace("<anthropic>", str(path))
        return
    assert dict(from_anthropic(path).step_records) == dict(expected.step_records)


@st.composite
def plain_bodies(draw: st.DrawFn) -> dict[str, Any]:
    """A body of the plain blocks a file's records read, whose results answer its tool uses or not: some left out,
    some in another order, some answering an id no turn used; results in the opening, and a last reply, or not."""
    ids = st.sampled_from(["t1", "t2", "t3", "t4"])
    result = st.builds(
        lambda use, text, blocks: {
            "type": "tool_result",
            "tool_use_id": use,
            "content": [{"type": "text", "text": text}] if blocks else text,
        },
        ids,
        st.sampled_from(["x = 1", ""]),
        st.booleans(),
    )
    text = st.builds(lambda t: {"type": "text", "text": t}, st.sampled_from(["go", "and keep the API"]))
    use = st.builds(lambda i: {"type": "tool_use", "id": i, "name": "read", "input": {"path": "a.py"}}, ids)
    opening: Any = draw(st.one_of(st.just("Fix the test."), st.lists(st.one_of(text, result), min_size=1, max_size=2)))
    messages: list[dict[str, Any]] = [{"role": "user", "content": opening}]
    for _ in range(draw(st.integers(0, 4))):
        made = draw(st.lists(st.one_of(text, use), max_size=3))
        messages.append({"role": "assistant", "content": made or "Done."})
        answers = [{**block, "type": "tool_result", "tool_use_id": block["id"]} for block in made if "id" in block]
        for answer in answers:
            del answer["id"], answer["name"], answer["input"]
        got = draw(st.permutations(answers)) if draw(st.booleans()) else answers
        got = (
            got[: draw(st.integers(0, len(got)))]
            + draw(st.lists(result, max_size=1))
            + draw(st.lists(text, max_size=1))
        )
        messages.append({"role": "user", "content": got or "ok"})
    if draw(st.booleans()):
        messages.append({"role": "assistant", "content": draw(st.lists(st.one_of(text, use), min_size=1, max_size=2))})
    return {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": messages}


@SETTINGS
@given(plain_bodies())
def test_a_body_file_read_as_records_warns_and_writes_as_its_value_does(body: dict[str, Any]) -> None:
    """A body file read as records (its tool uses and results matched in flat lists) gives the warnings, each
    word the same, and the run file, each byte the same, that the body given as a value gives."""
    _file_and_value_agree(body)


def test_the_real_request_bodies_read_from_a_file_as_given_as_values() -> None:
    """Each request body of the real claude-trace log (Claude Code's and OpenCode's: cache marks, thinking blocks,
    fields the typed decode does not know), written to a file, imports as the body given as a value does: the file's
    one-pass decode refuses what it cannot hold and leaves it to the path of JSON values, word for word."""
    bodies = [json.loads(line)["request"]["body"] for line in CLAUDE_TRACE.read_text(encoding="utf-8").splitlines()]
    assert len(bodies) == 8
    for body in bodies:
        _file_and_value_agree(body)


CLAUDE_TRACE = real.REAL / "claude-trace" / "hanqunfeng-claude-trace" / "log-2026-06-15-09-15-50.jsonl"


def _file_and_value_agree(body: dict[str, Any]) -> None:
    """``body`` written to a file and imported gives the warnings and the run file (after its header, which names
    the source) that ``body`` given as a value gives."""
    with tempfile.TemporaryDirectory() as folder:
        path = json_file(Path(folder) / "body.json", body)
        from_file, from_value = from_anthropic(path, run_id="r"), from_anthropic(copy.deepcopy(body), run_id="r")
        assert [w.text.replace(str(path), "<anthropic>") for w in from_file.warnings] == [
            w.text for w in from_value.warnings
        ]
        written = []
        for run in (from_file, from_value):
            target = Path(folder) / "run.jsonl"
            write_run(run, target)
            written.append(target.read_bytes())
    assert written[0].splitlines()[1:] == written[1].splitlines()[1:]


@pytest.mark.parametrize(
    "fields",
    [
        {},
        {"temperature": 0},
        {"metadata": {"user_id": "u"}, "temperature": 0},
        {"temperature": 0, "stream": False, "metadata": {"user_id": "u"}},
        {"x_trace": "abc"},
        {"stream": True, "x_trace": "abc"},
    ],
    ids=["none", "one", "two", "three", "unknown", "known and unknown"],
)
@pytest.mark.parametrize("first", [True, False], ids=["messages first", "messages last"])
def test_a_body_file_decoded_in_one_pass_keeps_its_fields_in_the_files_order(
    tmp_path: Path, fields: dict[str, Any], first: bool
) -> None:
    """A body file read as records in one pass (its fields in the struct's order) writes the run the body given as
    a value writes, byte for byte: the request's other fields in the file's order, whichever fields it has (the
    API's, or one it does not have), before or after its messages."""
    header = {"tools": [{"name": "read", "input_schema": {"type": "object"}}], "max_tokens": 1024, "model": "m"}
    messages = {"messages": PLAIN_BODY["messages"]}
    body = {**messages, **fields, **header} if first else {**fields, **header, **messages}
    path = json_file(tmp_path / "body.json", body)
    written = []
    for run in (from_anthropic(path, run_id="r"), from_anthropic(copy.deepcopy(body), run_id="r")):
        write_run(run, tmp_path / "run.jsonl")
        written.append(json.loads((tmp_path / "run.jsonl").read_bytes().splitlines()[0]))
        assert list(written[-1].get("request", {})) == list(fields)
    del written[0]["source"], written[1]["source"]
    assert json.dumps(written[0]).replace(str(path), "<anthropic>") == json.dumps(written[1])


def test_a_body_file_with_a_result_that_is_not_utf8_is_refused_naming_the_byte(tmp_path: Path) -> None:
    """A result's text that is not UTF-8 is refused when the body is imported, as any text of the file is."""
    path = json_file(tmp_path / "body.json", PLAIN_BODY)
    path.write_bytes(path.read_bytes().replace(b'"x = 1"', b'"x = \xff"'))
    with pytest.raises(RunFileError, match=r"not UTF-8 text \(invalid start byte at byte \d+\)"):
        from_anthropic(path)


ODD_LINES = [
    b'{"a": 1}',
    '{"a": "é", "b": [1.5, null, true]}'.encode(),
    b'{"a": "\\u00e9"}',
    b'{"a": "\\ud800"}',  # a lone surrogate escaped: msgspec refuses it, json reads it
    b'{"a": NaN}',
    b'{"a": 1e400}',
    b'{"a": 1} x',
    b'{"a": 1}{"b": 2}',
    b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1),
    b'{"a": ' + b"[" * MAX_DEPTH + b"]" * MAX_DEPTH + b"}",
    b'{"a": "' + b"[" * (2 * MAX_DEPTH) + b'"}',  # brackets in a text: no nesting
    b'{"a": 1',
]


@pytest.mark.parametrize("line", ODD_LINES, ids=range(len(ODD_LINES)))
def test_a_json_line_is_read_from_its_bytes_as_its_text_reads(tmp_path: Path, line: bytes) -> None:
    """A line of a JSON Lines file (a call log's, a Codex rollout's), decoded from its bytes, gives the value reading
    its text with ``loads`` gives, or the error that reading words, at its line."""
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"first": true}\n' + line + b"\n")
    try:
        expected: tuple[str, Any] = ("value", loads((line + b"\n").decode("utf-8")))
    except ValueError as error:
        expected = ("error", f"{path}:2: {decode_failure(error)}")
    try:
        got: tuple[str, Any] = ("value", read_json_values(str(path), [])[1][1])
    except RunFileError as error:
        got = ("error", str(error))
    assert repr(got) == repr(expected)


def test_a_json_lines_byte_order_mark_bytes_not_utf8_and_cut_last_line_are_read_as_before(tmp_path: Path) -> None:
    """A byte order mark before the first line is left out, a line that is not UTF-8 is refused naming its byte, and a
    last line cut short is left out with a warning, when the lines are decoded from their bytes as when from text."""
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}\n{"b": 2}\n{"c": ')
    notes: list[Any] = []
    assert read_json_values(str(path), notes) == [(1, {"a": 1}), (2, {"b": 2})]
    assert [(note.line, note.text.split(" (")[0]) for note in notes] == [(3, "the last line is cut short")]
    path.write_bytes(b'{"a": 1}\n{"b": "\xff"}\n')
    with pytest.raises(RunFileError, match=r"log\.jsonl:2: not UTF-8 text \(invalid start byte at byte 7\)"):
        read_json_values(str(path), [])


def test_a_call_ending_with_a_prefill_ends_the_run_on_the_turn_its_reply_goes_on_with() -> None:
    """A request and its reply, the request ending with a prefill, is a run whose step is the prefill continued by the
    reply: one text, the decision the model made, with the reply's stop reason; the view of the step is the opening."""
    asked = {"role": "user", "content": "What is the answer?"}
    reply = {"type": "message", "role": "assistant", "content": [{"type": "text", "text": " 42."}]}
    run = from_anthropic(
        {
            "request": {**BASE, "messages": [asked, {"role": "assistant", "content": "The answer is"}]},
            "response": {**reply, "id": "msg_0", "stop_reason": "max_tokens"},
        }
    )
    assert run.warnings == ()
    assert [step.decision for step in run.steps] == [Decision(kind="truncated", reason="The answer is 42.")]
    assert [message.to_dict() for message in Views(run).at(None).messages] == [
        {"role": "user", "content": [{"type": "text", "text": "What is the answer?"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "The answer is 42."}]},
    ]


def test_a_last_call_ending_with_a_prefill_and_no_reply_says_its_last_step_is_the_callers(tmp_path: Path) -> None:
    """A log whose longest call ends with a prefill and holds no reply keeps the prefill as its last step, as that
    call sent it, and a warning at the call's line says the step is the caller's text, not a decision of the model."""
    asked = {"role": "user", "content": "What is the answer?"}
    reply = {"type": "message", "role": "assistant", "id": "msg_0", "content": [{"type": "text", "text": "4"}]}
    first = {"request": {**BASE, "messages": [asked]}, "response": {**reply, "stop_reason": "end_turn"}}
    prefilled = [asked, {"role": "assistant", "content": "4"}, {"role": "user", "content": "As JSON?"}]
    prefilled.append({"role": "assistant", "content": '{"answer":'})
    path = tmp_path / "log.jsonl"
    path.write_text(_log([json.dumps(first), json.dumps({"request": {**BASE, "messages": prefilled}})]) + "\n")
    run = load(path)
    assert [step.decision.reason for step in run.steps] == ["4", '{"answer":']
    assert [(warning.line, warning.text) for warning in run.warnings] == [
        (2, "the call has no response: no model call is made of it"),
        (
            2,
            "request.messages[3]: the request ends with an assistant message: sent as it is, that is a prefill, the "
            "turn the model was to go on from, and no reply to it is held: step 1 is that prefill, the caller's text, "
            "not a decision of the model",
        ),
    ]


def test_a_request_body_ending_with_an_assistant_message_says_its_last_step_may_be_a_prefill(tmp_path: Path) -> None:
    """A request body (one with ``max_tokens``, as the API takes it) that ends with an assistant message keeps that
    message as its last step, and a warning at its place says that, sent as it is, the message is a prefill, the
    caller's text and not a decision of the model; a bare ``messages`` list, which was never a request, gets none."""
    asked = {"role": "user", "content": "Write a haiku about rain."}
    prefilled = [asked, {"role": "assistant", "content": "Here is a haiku:"}]
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request(prefilled)))
    run = load(path)
    assert [step.decision.reason for step in run.steps] == ["Here is a haiku:"]
    assert [(warning.line, warning.text) for warning in run.warnings] == [
        (
            1,
            "messages[1]: the request ends with an assistant message: sent as it is, that is a prefill, the turn the "
            "model was to go on from, and no reply to it is held: step 0 is that prefill, the caller's text, not a "
            "decision of the model (a conversation saved with its reply last reads the same: the file cannot say "
            "which)",
        )
    ]
    assert from_anthropic(request(prefilled)).warnings[0].text == run.warnings[0].text
    assert from_anthropic(prefilled).warnings == ()  # a bare list: a conversation as saved
    assert from_anthropic(request([asked])).warnings == ()


def test_a_body_and_a_log_ending_with_a_prefill_no_reply_answered_warn_in_the_same_words(tmp_path: Path) -> None:
    """A request body and a call log whose last call has no reply, both ending with the same prefill, say the same
    sentence of it at the same message, the body adding only that a conversation saved with its reply last reads
    the same."""
    asked = {"role": "user", "content": "What is the answer?"}
    reply = {"type": "message", "role": "assistant", "id": "msg_0", "content": [{"type": "text", "text": "4"}]}
    prefilled = [asked, {"role": "assistant", "content": "4"}, {"role": "user", "content": "As JSON?"}]
    prefilled.append({"role": "assistant", "content": '{"answer":'})
    log, body = tmp_path / "log.jsonl", tmp_path / "request.json"
    first = {"request": {**BASE, "messages": [asked]}, "response": {**reply, "stop_reason": "end_turn"}}
    log.write_text(_log([json.dumps(first), json.dumps({"request": {**BASE, "messages": prefilled}})]) + "\n")
    body.write_text(json.dumps(request(prefilled)))
    (said,) = [w.text.removeprefix("request.") for w in load(log).warnings if "prefill" in w.text]
    (body_said,) = [w.text for w in load(body).warnings]
    assert said == (
        "messages[3]: the request ends with an assistant message: sent as it is, that is a prefill, the turn the model "
        "was to go on from, and no reply to it is held: step 1 is that prefill, the caller's text, not a decision of "
        "the model"
    )
    assert body_said == f"{said} (a conversation saved with its reply last reads the same: the file cannot say which)"


def test_a_run_ending_on_a_prefill_no_reply_answered_says_so_where_it_says_how_the_conversation_ended(
    tmp_path: Path,
) -> None:
    """A body or a log ending on a prefill with no reply marks that step's ``sent`` as a prefill, through a run file
    too, and its view as sent says the turn is the caller's prefill, never that nothing was sent after a reply; a log
    whose prefill got its reply ends on that reply as before."""
    asked = {"role": "user", "content": "What is the answer?"}
    reply = {"type": "message", "role": "assistant", "id": "msg_0", "content": [{"type": "text", "text": "4"}]}
    prefilled = [asked, {"role": "assistant", "content": "4"}, {"role": "user", "content": "As JSON?"}]
    prefilled.append({"role": "assistant", "content": '{"answer":'})
    first = {"request": {**BASE, "messages": [asked]}, "response": {**reply, "stop_reason": "end_turn"}}
    log, answered = tmp_path / "log.jsonl", tmp_path / "answered.jsonl"
    log.write_text(_log([json.dumps(first), json.dumps({"request": {**BASE, "messages": prefilled}})]) + "\n")
    went_on = {**reply, "id": "msg_1", "stop_reason": "end_turn", "content": [{"type": "text", "text": " 4}"}]}
    answered.write_text(
        _log([json.dumps(first), json.dumps({"request": {**BASE, "messages": prefilled}, "response": went_on})])
    )
    body = tmp_path / "request.json"
    body.write_text(json.dumps(request(prefilled)))
    written = tmp_path / "written.jsonl"
    write_run(load(body), written)
    for run in (load(log), load(body), from_anthropic(request(prefilled)), load_run(written)):
        assert run.step_records[1]["sent"]["prefill"] is True
        view = Views(run).at(None)
        assert view.ended and view.prefill
        shown = unescape(view._repr_html_())  # said in the view's header and after the step's turn
        assert shown.count(PREFILL_ENDED_TEXT) == 2 and ENDED_TEXT not in shown
    run = load(answered)
    assert "prefill" not in run.step_records[1]["sent"]
    view = Views(run).at(None)
    assert view.ended and not view.prefill
    assert unescape(view._repr_html_()).count(ENDED_TEXT) == 2


@pytest.mark.parametrize("marked", [False, True])
def test_the_view_deciding_a_prefilled_step_ends_with_the_prefill_the_model_saw(tmp_path: Path, marked: bool) -> None:
    """The view deciding a step whose call ended with a prefill ends with that prefill, as the call's request did
    (its cache breakpoint too): its replay key, size and message count are the call's request's, through a run file
    too, where the step's turn is the prefill and the reply merged; the view after it holds that merged turn, and no
    view under the contract holds a prefill."""
    log = prefilled_log(tmp_path / "log.jsonl", marked=marked)
    written = tmp_path / "written.jsonl"
    write_run(load(log), written)
    for run in (load(log), load_run(written)):
        prefill = {"type": "text", "text": "The answer is"}
        assert run.step_records[1]["sent"]["prefilled"] == [prefill]
        views = Views(run)
        view = views.at(1)
        mark = {"cache_control": {"type": "ephemeral"}} if marked else {}
        assert view.messages[-1].to_dict() == {"role": "assistant", "content": [{**prefill, **mark}]}
        assert view.replay_key in view.recorded_keys and view.key_differs == ""
        shown = unescape(view._repr_html_())  # the views' HTML (the widgets' too) says whose text it is
        assert f"step 1 · {PREFILL_SAID}" in shown and PREFILLED_TEXT in shown
        as_json = [message.to_dict() for message in view.messages]
        assert view.message_count == len(view.messages) == 4
        assert view.bytes == len(json.dumps(as_json, separators=(",", ":")).encode())
        sizes = views.sizes()
        assert (sizes.messages[1], sizes.bytes[1], sizes.bytes_no_window[1]) == (4, view.bytes, view.bytes)
        after = views.at(2)
        assert after.messages[-1].content[0].text == "The answer is 42."
        assert PREFILLED_TEXT not in unescape(after._repr_html_())
        assert sizes.first_diff[2] == after.change.first_diff == 3  # the prefill, which the merged turn replaces
        shared = len(json.dumps(as_json[:3], separators=(",", ":")).encode())  # "[", each message and a comma
        assert sizes.prefix_bytes[2] == after.change.prefix_bytes == shared
        contract = Views(run, run.options(recent_results=6)).at(1)
        assert len(contract.messages) == 3 and contract.messages[-1].role == "user"


def test_a_run_file_that_records_no_prefilled_says_why_the_view_is_not_the_prefilled_request(tmp_path: Path) -> None:
    """A run file whose prefilled step's ``sent`` holds no ``prefilled`` (one written before it was kept) shows the view
    without the prefill, and says why its key is not the call's: the run records none, so import the log again."""
    written = tmp_path / "written.jsonl"
    write_run(load(prefilled_log(tmp_path / "log.jsonl")), written)
    records = [json.loads(line) for line in written.read_text().splitlines()]
    del records[2]["sent"]["prefilled"]
    written.write_text("".join(json.dumps(record) + "\n" for record in records))
    view = Views(load_run(written)).at(1)
    assert view.prefilled is None and len(view.messages) == 3
    assert view.key_differs == (
        "the recorded request ends with a prefill, which the view leaves out: the run records no sent.prefilled for "
        "the step (a run file written before agentrender kept it; import the log again)"
    )


def test_a_prefilled_record_of_the_wrong_shape_is_an_error_naming_its_line_and_field(tmp_path: Path) -> None:
    """A run file whose step's ``sent.prefilled`` is not a list of blocks is refused, naming the file, the line and
    the field."""
    written = tmp_path / "written.jsonl"
    write_run(load(prefilled_log(tmp_path / "log.jsonl")), written)
    for bad, said in (
        ("The answer is", "$.sent.prefilled: expected `array`, got `str`"),
        ([{"text": "The answer is"}], "$.sent.prefilled[0].type: expected a non-empty string, got None"),
        ([], "$.sent.prefilled: expected `array` of length >= 1, got []"),
    ):
        records = [json.loads(line) for line in written.read_text().splitlines()]
        records[2]["sent"]["prefilled"] = bad
        broken = tmp_path / "broken.jsonl"
        broken.write_text("".join(json.dumps(record) + "\n" for record in records))
        with pytest.raises(RunFileError) as caught:
            load_run(broken)
        assert str(caught.value).startswith(f"{broken}:3: {said}")


def test_a_prefilled_step_without_a_decision_is_no_view_ending_with_its_prefill(tmp_path: Path) -> None:
    """A run file whose step records the prefill its request ended with but no decision (no reply came) loads, and
    its views and their sizes are made without the prefill, as of every step without a decision, none rendered."""
    written = tmp_path / "written.jsonl"
    write_run(load(prefilled_log(tmp_path / "log.jsonl")), written)
    records = [json.loads(line) for line in written.read_text().splitlines()]
    del records[2]["decision"]
    undecided = tmp_path / "undecided.jsonl"
    undecided.write_text("".join(json.dumps(record) + "\n" for record in records))
    views = Views(load_run(undecided))
    sizes = views.sizes()
    for at, size in enumerate(sizes.bytes):
        view = views.at(at)
        wire = json.dumps([message.to_dict() for message in view.messages])
        assert view.prefilled is None and "The answer is" not in wire and size == view.bytes, at


@pytest.mark.parametrize(
    ("merged", "ours"),
    [
        ([{"type": "text", "text": "The answer is"}, {"type": "text", "text": " 42."}], True),  # the blocks in turn
        ("The answer is 42.", True),  # the prefill's text and the reply's joined
        ("The answer is 43.", False),  # not the reply that came
        ([{"type": "text", "text": " 42."}], False),  # the reply without its prefill
    ],
)
def test_a_prefill_goes_on_in_the_turn_that_merges_it_with_its_reply(tmp_path: Path, merged: Any, ours: bool) -> None:
    """A call ending with a prefill is the conversation's only when the next request's turn is the prefill and reply."""
    asked = {"role": "user", "content": "What is the answer?"}
    reply = {"type": "message", "role": "assistant", "content": [{"type": "text", "text": " 42."}]}
    calls = [
        {
            "request": {**BASE, "messages": [asked, {"role": "assistant", "content": "The answer is"}]},
            "response": {**reply, "id": "msg_0", "stop_reason": "end_turn"},
        },
        {
            "request": {
                **BASE,
                "messages": [asked, {"role": "assistant", "content": merged}, {"role": "user", "content": "Thanks."}],
            },
            "response": {
                **reply,
                "id": "msg_1",
                "content": [{"type": "text", "text": "Welcome."}],
                "stop_reason": "end_turn",
            },
        },
    ]
    path = tmp_path / "log.jsonl"
    path.write_text(_log([json.dumps(call) for call in calls]) + "\n", encoding="utf-8")
    run = load(path)
    # a call of another conversation is one of the step being decided when it was made: the next call's
    assert [call.step for call in run.model_calls] == ([0, 1] if ours else [1, 1])
    assert any("another conversation" in warning.text for warning in run.warnings) is not ours


_CITED = {"type": "char_location", "cited_text": "sun", "document_index": 0, "document_title": "d",
          "start_char_index": 0, "end_char_index": 3}  # fmt: skip


@pytest.mark.parametrize(
    ("dumped", "ours"),
    [
        # as the SDK's block.model_dump() gives the reply's blocks: its optional fields null, in a citation too
        (
            [
                {"type": "text", "text": "Searching.", "citations": None},
                {"type": "text", "text": "Sunny.", "citations": [{**_CITED, "file_id": None}]},
                {"type": "tool_use", "id": "toolu_1", "name": "look", "input": {}, "caller": None},
            ],
            True,
        ),
        # a null inside a tool use's input is the model's JSON, not an absent field: another input than the reply's
        (
            [
                {"type": "text", "text": "Searching."},
                {"type": "text", "text": "Sunny.", "citations": [_CITED]},
                {"type": "tool_use", "id": "toolu_1", "name": "look", "input": {"where": None}},
            ],
            False,
        ),
    ],
)
def test_a_null_field_of_a_block_is_compared_as_absent_as_the_api_reads_it(
    tmp_path: Path, dumped: list[dict[str, Any]], ours: bool
) -> None:
    """A paused turn sent back as its blocks dumped by the SDK (``"citations": null``, a citation's ``file_id``
    null) is the conversation's turn of the reply that continued it, and each call's request is kept as it was sent;
    a null inside a tool use's ``input`` is a value, not an absent field."""
    asked = {"role": "user", "content": "Weather?"}
    reply = {"type": "message", "role": "assistant", "model": "m"}
    paused = {"role": "assistant", "content": [{"type": "text", "text": "Searching.", "citations": None}]}
    then = [{"type": "text", "text": "Sunny.", "citations": [_CITED]}, {"type": "tool_use", "id": "toolu_1",
            "name": "look", "input": {}}]  # fmt: skip
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}]}
    requests = [
        {"model": "m", "max_tokens": 9, "messages": [asked]},
        {"model": "m", "max_tokens": 9, "messages": [asked, paused]},
        {"model": "m", "max_tokens": 9, "messages": [asked, {"role": "assistant", "content": dumped}, result]},
    ]
    replies = [
        {**reply, "id": "msg_0", "content": [_text("Searching.")], "stop_reason": "pause_turn"},
        {**reply, "id": "msg_1", "content": then, "stop_reason": "tool_use"},
        {**reply, "id": "msg_2", "content": [_text("Bye.")], "stop_reason": "end_turn"},
    ]
    lines = [json.dumps({"request": sent, "response": got}) for sent, got in zip(requests, replies, strict=True)]
    run = load(in_file(tmp_path, "calls.jsonl", "\n".join(lines) + "\n"))
    assert any("another conversation" in warning.text for warning in run.warnings) is not ours
    # a call of another conversation is one of the step being decided when it was made: the next call's
    assert [call.step for call in run.model_calls] == ([0, 0, 1] if ours else [0, 1, 1])
    assert [call.record["request"] for call in run.model_calls] == requests
    assert [call.record["request_key"] for call in run.model_calls] == [request_key(r) for r in requests]
    if ours:  # each view as sent is its request: the first ends with the paused turn, its null as sent
        views = Views(run)
        assert [views.at(step).key_differs for step in (0, 1)] == ["", ""]
        prefill = views.at(0).prefilled
        assert prefill is not None and prefill.message.to_dict() == paused


def test_the_sdks_betas_beside_a_requests_messages_are_kept_beside_the_request_not_as_a_body_field(
    tmp_path: Path,
) -> None:
    """A request given with the SDK's ``betas`` (``client.beta.messages.create``'s keyword, which the SDK sends as the
    anthropic-beta header) imports with them in its call's entry of the source, and the header's request holds the
    body's other fields only, where it held ``betas`` as one of them."""
    body = {"model": "m", "max_tokens": 5, "temperature": 0, "betas": ["x-1"],
            "messages": [{"role": "user", "content": "hi"}]}  # fmt: skip
    run = from_anthropic(json_file(tmp_path / "body.json", body))
    assert run.header["request"] == {"temperature": 0}
    assert run.header["source"]["entries"] == [{"call": 0, "line": 1, "fields": {"betas": ["x-1"]}}]


def test_a_logged_conversation_starts_when_its_first_call_was_sent() -> None:
    """Each run of the real claude-trace log starts when its first call's request was sent (the exchange's
    ``request.timestamp``, seconds since 1970), the header's started_at, so the runs table gives it a start."""
    from datetime import UTC, datetime

    from agentrender.imports import load_runs

    lines = [json.loads(line) for line in CLAUDE_TRACE.read_text("utf-8").splitlines() if line.strip()]
    sent = [
        line["request"]["timestamp"] for line in lines if line["request"]["url"].split("?")[0].endswith("/messages")
    ]
    runs = load_runs(CLAUDE_TRACE)
    assert runs and all(run.header.get("started_at") for run in runs)
    started = [datetime.fromisoformat(run.header["started_at"]) for run in runs]
    assert all(datetime.fromtimestamp(min(sent), UTC) <= at for at in started)
    assert datetime.fromtimestamp(min(sent), UTC) in started


def test_a_recordings_run_starts_when_the_recording_did(tmp_path: Path) -> None:
    """A recording of calls (agentrender.record's), imported as the conversation it sent, keeps its header's
    started_at as the run's start."""
    path = tmp_path / "agent.jsonl"
    request = {"model": "claude-test", "max_tokens": 64, "messages": [{"role": "user", "content": "Hi."}]}
    response = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [{"type": "text", "text": "Hello."}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 3, "output_tokens": 2},
    }
    header = {
        "type": "run",
        "format": "agentrender.run/2",
        "run_id": "agent",
        "started_at": "2026-12-01T10:00:00.000Z",
        "source": {"format": "anthropic-record"},
    }
    call = {"type": "model_call", "step": 0, "response": response, "request": request}
    path.write_text("".join(json.dumps(record) + "\n" for record in (header, call)), "utf-8")
    run = load(path)
    assert run.header["source"]["format"] == "anthropic-record" and len(run.steps) == 1
    assert run.header["started_at"] == "2026-12-01T10:00:00.000Z"
