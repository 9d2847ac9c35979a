"""The Messages API's rules, checked in one place for the adapter's requests and for ``agentrender check``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import agentrender
from agentrender import ContentBlock, Message, samples
from agentrender._api_rules import message_problems, wire_problems
from agentrender.views import NO_WINDOW, Views
from tests._support import real
from tests._support.cli import run_cli


def text(value: str) -> ContentBlock:
    return ContentBlock(type="text", text=value)


def use(tool_use_id: str, name: str = "read_file", tool_input: object = None) -> ContentBlock:
    return ContentBlock(
        type="tool_use", tool_use_id=tool_use_id, name=name, input={} if tool_input is None else tool_input
    )


def result(tool_use_id: str) -> ContentBlock:
    return ContentBlock(type="tool_result", tool_use_id=tool_use_id, content="ok")


def search(tool_use_id: str | None, answered: bool = False) -> tuple[ContentBlock, ...]:
    """A web search the API ran (a ``server_tool_use``, no id when ``None``), and its result when ``answered``."""
    use = {"type": "server_tool_use", "name": "web_search", "input": {"query": "rain"}}
    found = {"type": "web_search_tool_result", "tool_use_id": tool_use_id, "content": []}
    blocks = [{**use, "id": tool_use_id} if tool_use_id is not None else use, *([found] if answered else [])]
    return tuple(ContentBlock.from_dict(block) for block in blocks)


def user(*blocks: ContentBlock) -> Message:
    return Message(role="user", content=blocks)


def assistant(*blocks: ContentBlock) -> Message:
    return Message(role="assistant", content=blocks)


BROKEN = {
    "empty": ([], [(0, "messages", "there must be at least one message")]),
    "assistant first": (
        [assistant(text("hi"))],
        [(0, "messages[0] (assistant)", "expected a user turn (the first is user, then they alternate)")],
    ),
    "two users": (
        [user(text("a")), user(text("b"))],
        [(1, "messages[1] (user)", "expected an assistant turn (the first is user, then they alternate)")],
    ),
    "blank text": (
        [user(text(" \n"))],
        [(0, "messages[0].content[0]", "text blocks must contain non-whitespace text")],
    ),
    "no content": ([user()], [(0, "messages[0] (user)", "content must be a non-empty list of blocks")]),
    "bad id and name": (
        [user(text("go")), assistant(use("a b", name="bad name!")), user(result("a b"))],
        [
            (1, "messages[1].content[0]", "tool_use id 'a b' is not letters, digits, _ and -"),
            (1, "messages[1].content[0]", "tool name 'bad name!' is not 1 to 64 letters, digits, _ and -"),
        ],
    ),
    "input not an object": (
        [user(text("go")), assistant(use("t1", tool_input=[1, 2])), user(result("t1"))],
        [(1, "messages[1].content[0]", "tool_use input must be an object, got array")],
    ),
    "id used twice": (
        [user(text("go")), assistant(use("t1")), user(result("t1")), assistant(use("t1")), user(result("t1"))],
        [(3, "messages[3].content[0]", "tool_use id 't1' was used before")],
    ),
    "result not first": (
        [user(text("go")), assistant(use("t1")), user(text("and"), result("t1"))],
        [
            (
                2,
                "messages[2] (user)",
                "the tool uses ['t1'] of the turn before must be answered first, by tool_result blocks with "
                "those ids (in any order); found [None]",
            )
        ],
    ),
    "one use answered twice, another not": (
        [user(text("go")), assistant(use("t1"), use("t2")), user(result("t1"), result("t1"))],
        [
            (
                2,
                "messages[2] (user)",
                "the tool uses ['t1', 't2'] of the turn before must be answered first, by tool_result blocks with "
                "those ids (in any order); found ['t1', 't1']",
            )
        ],
    ),
    "result for nothing": (
        [user(text("go")), assistant(text("hm")), user(result("t9"))],
        [(2, "messages[2] (user)", "tool_result for ['t9'], which the turn before did not use")],
    ),
    "never answered": (
        [user(text("go")), assistant(use("t1"))],
        [(1, "messages[1] (assistant)", "its tool uses ['t1'] are never answered")],
    ),
    "a search the API ran never answered in its turn": (
        [user(text("go")), assistant(*search("srvtoolu_1"), text("Rain.")), user(text("and"))],
        [
            (
                1,
                "messages[1] (assistant)",
                "its tool uses ['srvtoolu_1'] are never answered (the API runs them: their results come in the same "
                "turn)",
            )
        ],
    ),
    "a search with no id": (
        [user(text("go")), assistant(*search(None), text("Rain.")), user(text("and"))],
        [
            (1, "messages[1].content[0]", "a server_tool_use needs an id"),
            (
                1,
                "messages[1] (assistant)",
                "its tool uses [web_search with no id] are never answered (the API runs them: their results come in "
                "the same turn)",
            ),
        ],
    ),
}


def test_a_search_the_api_ran_is_answered_in_its_turn_or_by_the_turn_that_goes_on_after_a_pause() -> None:
    """A server tool use its result follows in the same turn is answered; so is one in the request's last turn, a
    reply paused (``pause_turn``) that the request sends back for the API to go on with."""
    answered = [user(text("go")), assistant(*search("srvtoolu_1", answered=True), text("Rain.")), user(text("and"))]
    paused = [user(text("go")), assistant(*search("srvtoolu_1"))]
    for messages in (answered, paused):
        assert list(message_problems(messages)) == []
        assert list(wire_problems([message.to_dict() for message in messages])) == []


def test_parallel_results_may_come_in_any_order() -> None:
    """The API matches results to tool uses by id: Claude Code sends them as its tools finish, the last use's first."""
    answered = [user(text("go")), assistant(use("t1"), use("t2")), user(result("t2"), result("t1"), text("and"))]
    assert list(message_problems(answered)) == []
    assert list(wire_problems([message.to_dict() for message in answered])) == []


@pytest.mark.parametrize("case", BROKEN)
def test_each_rule_names_the_message_and_the_block(case: str) -> None:
    """Each broken rule is one problem, at the message (and block) that breaks it."""
    messages, expected = BROKEN[case]
    assert [tuple(problem) for problem in message_problems(messages)] == expected


@pytest.mark.parametrize("case", BROKEN)
def test_messages_and_their_wire_form_break_the_same_rules(case: str) -> None:
    """The adapter's check of the wire form and the CLI's check of Messages find the same problems."""
    messages, _ = BROKEN[case]
    assert list(wire_problems([message.to_dict() for message in messages])) == list(message_problems(messages))


def test_what_only_the_wire_form_can_get_wrong() -> None:
    """A message or block that is not an object, content that is no list, a role the API does not know."""
    problems = list(
        wire_problems(
            [
                {"role": "user", "content": "plain text is one text block"},
                {"role": "assistant", "content": [7]},
                {"role": "user", "content": {"type": "text"}},
                "not a message",
                {"role": "system", "content": "hi"},
            ]
        )
    )
    assert [tuple(problem) for problem in problems] == [
        (1, "messages[1].content[0]", "a block must be an object"),
        (2, "messages[2] (user)", "content must be a non-empty list of blocks"),
        (3, "messages[3] (None)", "expected a user or an assistant turn, got role None"),
        (3, "messages[3] (None)", "a message must be an object"),
        (4, "messages[4] (system)", "expected a user or an assistant turn, got role 'system'"),
    ]


@pytest.mark.parametrize("name", samples.names())
def test_every_view_of_every_sample_keeps_the_rules(name: str) -> None:
    """The render of every sample, at every step and in both forms of every result, is a request the API takes."""
    run = samples.load(name)
    for recent_results in (0, NO_WINDOW, None):
        views = Views(run, run.options() if recent_results is None else run.options(recent_results=recent_results))
        for at in [*views.stops, None]:
            assert list(message_problems(views.at(at).messages)) == [], (name, recent_results, at)


def codex_rollout(path: Path, items: list[dict[str, Any]]) -> Path:
    """A Codex rollout of ``items`` (response items), after its session_meta."""
    meta = {"type": "session_meta", "payload": {"id": "s-1", "base_instructions": {"text": "You are Codex."}}}
    lines = [meta, *({"type": "response_item", "payload": item} for item in items)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_check_says_a_codex_web_search_is_never_answered_in_the_words_of_any_call(tmp_path: Path) -> None:
    """A Codex web search (a ``web_search_call``, whose results the Responses API read into the reply out of sight)
    is a ``server_tool_use`` with no id and no result in its view, which the Messages API refuses: ``check`` says so
    as it says of any call never answered ('its tool uses [...] are never answered'), a warning of a converted chat,
    at the step of its reply; before, it said nothing of it."""
    said = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Will it rain?"}]}
    web = {"type": "web_search_call", "status": "completed", "action": {"type": "search", "query": "rain"}}
    call = {"type": "function_call", "name": "shell", "arguments": '{"command": ["ls"]}', "call_id": "c1"}
    output = {"type": "function_call_output", "call_id": "c1", "output": "a.txt"}
    answer = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Rain."}]}
    path = codex_rollout(tmp_path / "rollout.jsonl", [said, web, call, output, answer])
    code, out, _ = run_cli("check", str(path), "--json")
    [report] = json.loads(out)
    found = [(f["code"], f["severity"], f["step"], f["message"]) for f in report["findings"] if "server" in f["message"]
             or "never answered" in f["message"]]  # fmt: skip
    assert code == 0 and found == [
        ("converted-reject", "warning", 0, "message #1: a server_tool_use needs an id"),
        (
            "converted-reject",
            "warning",
            0,
            "message #1: its tool uses [web_search with no id] are never answered (the API runs them: their results "
            "come in the same turn)",
        ),
    ], report["findings"]


@pytest.mark.parametrize("entry", [entry for entry in real.histories() if entry["format"] == "codex_rollout"],
                         ids=lambda entry: entry["path"])  # fmt: skip
def test_check_names_each_web_search_of_a_real_codex_session_once(entry: dict[str, Any]) -> None:
    """Each web search a real Codex session made (a ``web_search_call`` item of the rollout; none is in a session's
    last reply, which no request sent) is named in one 'never answered' finding of its step, those before a
    compaction included (the longest view, which restarts from the compaction, holds none of them)."""
    path = real.REAL / entry["path"]
    lines = path.read_text(encoding="utf-8").splitlines()
    items = [record.get("payload") for record in map(json.loads, lines) if record.get("type") == "response_item"]
    searches = sum(isinstance(item, dict) and item.get("type") == "web_search_call" for item in items)
    code, out, _ = run_cli("check", str(path), "--json")
    [report] = json.loads(out)
    unanswered = [f for f in report["findings"] if "web_search with no id" in f["message"]]
    assert code == 0 and sum(f["message"].count("web_search with no id") for f in unanswered) == searches


def test_check_reads_the_views_before_a_compaction_too(tmp_path: Path) -> None:
    """``check`` holds to the API's rules the last view before each compaction as well as the longest, which restarts
    from the compaction's opening: a web search two steps before a Codex compaction is named at its step, where only
    the steps after the compaction were read and it was never named."""

    def user(text: str) -> dict[str, Any]:
        return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}

    def said(text: str) -> dict[str, Any]:
        return {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}

    def call(call_id: str) -> list[dict[str, Any]]:
        return [
            {"type": "function_call", "name": "shell", "arguments": '{"command": ["ls"]}', "call_id": call_id},
            {"type": "function_call_output", "call_id": call_id, "output": "a.txt"},
        ]

    web = {"type": "web_search_call", "status": "completed", "action": {"type": "search", "query": "rain"}}
    history = [user("Will it rain?"), user("More."), user("SUMMARY")]
    records = [
        {"type": "session_meta", "payload": {"id": "s-1", "base_instructions": {"text": "You are Codex."}}},
        *({"type": "response_item", "payload": item} for item in [user("Will it rain?"), web, *call("c1")]),
        *({"type": "response_item", "payload": item} for item in [said("Rain."), user("More."), *call("c2")]),
        {"type": "compacted", "payload": {"message": "SUMMARY", "replacement_history": history}},
        *({"type": "response_item", "payload": item} for item in [user("After."), *call("c3"), said("Done.")]),
    ]
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    (run,) = agentrender.imports.load_runs(path)
    assert [compaction.step for compaction in run.compactions] == [3]
    code, out, _ = run_cli("check", str(path), "--json")
    [report] = json.loads(out)
    found = [(f["code"], f["step"], f["message"]) for f in report["findings"] if f["code"] == "converted-reject"]
    assert code == 0 and found == [
        ("converted-reject", 0, "message #1: a server_tool_use needs an id"),
        (
            "converted-reject",
            0,
            "message #1: its tool uses [web_search with no id] are never answered (the API runs them: their results "
            "come in the same turn)",
        ),
    ], report["findings"]
