"""Claude Code's headless output (``claude -p --output-format stream-json --verbose``, the Agent SDK's messages, and
claude-code-action's ``execution_file``) imports as the session it holds.

The streams here are made by these tests, message by message as the Agent SDK's types have them
(``claude_agent_sdk.types``, ``_internal/message_parser.py`` of anthropics/claude-agent-sdk-python); the real ones are
under ``tests/fixtures/real/claude-code-stream/`` (``MANIFEST.json`` names each one's source)."""

import json
from pathlib import Path
from typing import Any

import pytest

from agentrender import RunFileError
from agentrender.imports import from_claude_code, load, load_runs
from agentrender.imports.claude_code import STREAM_PROMPT
from tests._support import real
from tests._support.cli import run_cli

SESSION = "5f1c2c3a-1111-2222-3333-444455556666"


def init(**more: Any) -> dict[str, Any]:
    """A made ``init`` system message, as Claude Code 2.0 writes one first."""
    return {
        "type": "system",
        "subtype": "init",
        "cwd": "/work/repo",
        "session_id": SESSION,
        "tools": ["Task", "Bash", "Read"],
        "mcp_servers": [],
        "model": "claude-sonnet-4-5-20250929",
        "permissionMode": "default",
        "claude_code_version": "2.0.14",
        "uuid": "init-0",
        **more,
    }


def assistant(mid: str, *blocks: dict[str, Any], agent: str | None = None, uuid: str = "") -> dict[str, Any]:
    """A made assistant message holding ``blocks`` of the reply ``mid`` (a reply is written a block a message)."""
    usage = {"input_tokens": 10, "output_tokens": 5}
    message = {"id": mid, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
               "content": list(blocks), "stop_reason": None, "usage": usage}  # fmt: skip
    made = {"type": "assistant", "message": message, "parent_tool_use_id": agent, "session_id": SESSION}
    return {**made, "uuid": uuid} if uuid else made


def user(*blocks: dict[str, Any], agent: str | None = None) -> dict[str, Any]:
    """A made user message (tool results, or a sub-agent's prompt)."""
    return {"type": "user", "message": {"role": "user", "content": list(blocks)}, "parent_tool_use_id": agent,
            "session_id": SESSION}  # fmt: skip


def use(tid: str, name: str = "Bash", **given: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": tid, "name": name, "input": given or {"command": "ls"}}


def answer(tid: str, text: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tid, "content": text, "is_error": False}


def text(said: str) -> dict[str, Any]:
    return {"type": "text", "text": said}


def result(subtype: str = "success", **more: Any) -> dict[str, Any]:
    """A made ``result`` message, as the stream ends each prompt's turn with."""
    return {"type": "result", "subtype": subtype, "is_error": subtype != "success", "duration_ms": 3000,
            "duration_api_ms": 2500, "num_turns": 2, "result": "Two files.", "session_id": SESSION,
            "total_cost_usd": 0.0123, "usage": {"input_tokens": 30, "output_tokens": 10}, "permission_denials": [],
            **more}  # fmt: skip


def written(tmp_path: Path, messages: list[Any], name: str = "out.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(m) + "\n" for m in messages), encoding="utf-8")
    return path


BASIC = [
    init(),
    assistant("msg_1", use("toolu_1")),
    user(answer("toolu_1", "a\nb")),
    assistant("msg_2", text("Two files.")),
    result(),
]


def test_a_stream_loads_as_a_claude_code_session_with_its_init_and_result_in_its_source(tmp_path):
    """``load`` reads a stream-json file (it once said "not a run"): one step a reply, the init and result messages
    kept whole in the source with the session, version, working directory and tools' names, what the stream lacks
    said in ``source.note``, and the run's end the result's, with its turns, cost and line."""
    run = load(written(tmp_path, BASIC))
    source = run.header["source"]
    assert run.run_id == SESSION and len(run.steps) == 2 and len(run.model_calls) == 2
    assert source["format"] == "claude-code-stream" and source["written_as"] == "stream-json"
    assert (source["version"], source["cwd"], source["session_id"]) == ("2.0.14", "/work/repo", SESSION)
    assert source["tools"] == ["Task", "Bash", "Read"] and source["init"]["line"] == 1
    assert [r["line"] for r in source["results"]] == [5] and source["results"][0]["total_cost_usd"] == 0.0123
    assert "tool definitions" in source["note"] and "system prompt" in source["note"]
    assert source["outside_threads"] == {"system/init": [1], "result": [5]}
    assert run.end == {"type": "end", "status": "completed",
                       "reason": "the session's result: result success, 2 turns, $0.0123 (line 5)"}  # fmt: skip


def test_a_stream_that_starts_with_a_reply_opens_with_a_note_that_the_prompt_is_not_in_it(tmp_path):
    """``claude -p`` writes the prompt only with ``--replay-user-messages``: the first turn is a note saying so, and
    a warning at the first reply's line says it; a replayed prompt is the opening as written, with no warning."""
    run = load(written(tmp_path, BASIC))
    assert run.goal == STREAM_PROMPT
    assert [w.line for w in run.warnings if "the prompt it answered is not in the file" in w.text] == [2]
    replayed = [init(), {**user(text("List the files.")), "isReplay": True}, *BASIC[1:]]
    run = load(written(tmp_path, replayed, "replayed.jsonl"))
    assert run.goal == "List the files." and not run.warnings


def test_a_reply_written_as_several_messages_is_one_step_and_its_parallel_results_pair_by_id(tmp_path):
    """A reply written one block a message (sharing ``message.id``) is one step and one model call; its parallel
    tool uses are kept, and each result is paired with its use by ``tool_use_id``, whatever order they came in."""
    stream = [
        init(),
        user(text("Look around.")),
        assistant("msg_1", text("Two looks.")),
        assistant("msg_1", use("toolu_a", command="ls")),
        assistant("msg_1", use("toolu_b", command="pwd")),
        user(answer("toolu_b", "/work")),
        user(answer("toolu_a", "x")),
        assistant("msg_2", text("Done.")),
        result(),
    ]
    run = load(written(tmp_path, stream))
    assert len(run.steps) == 2 and len(run.model_calls) == 2
    first = run.model_calls[0].response
    assert [b.type for b in first.content] == ["text", "tool_use", "tool_use"] and run.model_calls[0].line == 5
    sent = run.step_records[0]["sent"]["user"]
    assert {b["tool_use_id"] for b in sent} == {"toolu_a", "toolu_b"}
    assert not [w for w in run.warnings if "unanswered" in w.text or "without" in w.text]


def test_a_sub_agents_messages_are_a_run_of_their_own_linked_to_the_step_that_started_it(tmp_path):
    """The messages naming a tool use in ``parent_tool_use_id`` are the sub-agent it started: a run of their own
    (``<session>/agent-<tool use id>``), interleaved with the main thread's as they were written, and linked both
    ways with the step whose tool use started it."""
    stream = [
        init(),
        user(text("Delegate it.")),
        assistant("msg_1", use("toolu_task", "Task", description="look", prompt="Run ls.")),
        user(text("Run ls."), agent="toolu_task"),
        assistant("msg_s1", use("toolu_s1"), agent="toolu_task"),
        user(answer("toolu_s1", "a"), agent="toolu_task"),
        assistant("msg_s2", text("It holds a."), agent="toolu_task"),
        user(answer("toolu_task", "It holds a.")),
        assistant("msg_2", text("The folder holds a.")),
        result(),
    ]
    main, agent = load_runs(written(tmp_path, stream))
    assert agent.run_id == f"{SESSION}/agent-toolu_task"
    assert agent.header["source"]["thread"] == "sidechain" and agent.header["source"]["agent_id"] == "toolu_task"
    assert agent.goal == "Run ls." and len(agent.steps) == 2 and agent.end["status"] == "completed"
    assert (agent.links.parent.run_id, agent.links.parent.step, agent.links.parent.tool_use_id) == (
        SESSION,
        0,
        "toolu_task",
    )
    assert [link.run_id for link in main.links.started] == [agent.run_id]
    assert len(main.steps) == 2 and "init" not in agent.header["source"]


@pytest.mark.parametrize(
    ("subtype", "status", "reason", "error"),
    [
        ("error_max_turns", "stopped", "cut short by its turn limit (--max-turns): result error_max_turns", None),
        ("error_max_budget_usd", "stopped", "cut short by its spending limit (--max-budget-usd)", None),
        ("error_during_execution", "failed", "the session's result: result error_during_execution", "boom; again"),
    ],
)
def test_the_last_result_says_how_the_session_ended(tmp_path, subtype, status, reason, error):
    """A result of ``error_max_turns`` ends the run as stopped, cut short by its budget; one of an error during
    execution as failed, with the errors it names; the reason says the result's subtype, turns and cost."""
    stream = [*BASIC[:-1], result(subtype, errors=["boom", "again"])]
    run = load(written(tmp_path, stream))
    assert run.end["status"] == status and run.end["reason"].startswith(reason)
    assert run.end.get("error") == error
    code, out, _ = run_cli("runs", str(tmp_path / "out.jsonl"), "--width", "200", "--color", "never")
    assert code == 0 and f"{status}: " in out and subtype in out


def test_a_success_that_is_an_error_fails_with_the_results_text(tmp_path):
    """A ``success`` result with ``is_error`` (an API error Claude Code gave up on) ends the run as failed, with the
    result's text as its error."""
    stream = [*BASIC[:-1], result(is_error=True, result="Credit balance is too low")]
    run = load(written(tmp_path, stream))
    assert (run.end["status"], run.end["error"]) == ("failed", "Credit balance is too low")


def test_a_compaction_in_the_stream_is_a_compaction_of_the_run(tmp_path):
    """A ``compact_boundary`` starts the conversation anew from the summary after it, as a transcript's does: the
    run's header names the compaction (its step, trigger and tokens before), and the steps go on after it."""
    boundary = {"type": "system", "subtype": "compact_boundary", "session_id": SESSION, "uuid": "cb-1",
                "compact_metadata": {"trigger": "manual", "pre_tokens": 36663}}  # fmt: skip
    summary = {**user(text("This session is being continued. Summary: two files.")), "isSynthetic": True}
    stream = [*BASIC[:-1], boundary, summary, assistant("msg_3", text("Still two.")), result()]
    run = load(written(tmp_path, stream))
    assert len(run.steps) == 3
    (compaction,) = run.header["compactions"]
    assert (compaction["step"], compaction["trigger"], compaction["tokens_before"], compaction["line"]) == (
        2,
        "manual",
        36663,
        5,
    )


def test_messages_of_no_thread_are_counted_and_an_unknown_type_is_a_warning(tmp_path):
    """The system messages of other subtypes, the partial messages' deltas and the rate limit events are in no
    thread, their lines named by type and subtype; a message of a type the output is not known to write is kept so
    too, and a warning names its type and line."""
    stream = [
        init(),
        {"type": "system", "subtype": "task_started", "task_id": "t1", "session_id": SESSION, "uuid": "u1"},
        {"type": "stream_event", "event": {"type": "message_start"}, "session_id": SESSION, "uuid": "u2"},
        *BASIC[1:-1],
        {"type": "rate_limit_event", "rate_limit_info": {"status": "allowed"}, "session_id": SESSION, "uuid": "u3"},
        {"type": "mystery", "session_id": SESSION},
        result(),
    ]
    run = load(written(tmp_path, stream))
    assert run.header["source"]["outside_threads"] == {
        "system/init": [1],
        "system/task_started": [2],
        "stream_event": [3],
        "rate_limit_event": [7],
        "mystery": [8],
        "result": [9],
    }
    (warning,) = [w for w in run.warnings if "mystery" in w.text]
    assert warning.line == 8 and warning.text.startswith("type: 1 message of type 'mystery' (line 8)")


@pytest.mark.parametrize(
    ("line", "changed", "said"),
    [
        (3, {"parent_tool_use_id": 7}, "3: parent_tool_use_id: expected the id of the tool use that started"),
        (3, {"message": "hi"}, "3: message: expected the user message (an object), got string"),
        (2, {"message": {"role": "user", "content": []}}, "2: message.role: expected 'assistant' in an assistant"),
        (5, {"num_turns": -1}, "5: num_turns: expected a count, got -1"),
        (5, {"total_cost_usd": "cheap"}, "5: total_cost_usd: expected an amount in US dollars, got 'cheap'"),
        (1, {"tools": "Bash"}, "1: tools: expected the tools' names (a list of text), got 'Bash'"),
        (4, {"type": 3}, "4: type: expected the message's type, got 3"),
    ],
)
def test_a_stream_that_cannot_be_read_is_refused_naming_its_file_line_and_field(tmp_path, line, changed, said):
    """A message whose fields are not what Claude Code writes is refused with an error naming the file, the line
    and the field."""
    stream = [dict(m) for m in BASIC]
    stream[line - 1].update(changed)
    path = written(tmp_path, stream)
    with pytest.raises(RunFileError) as raised:
        from_claude_code(path)
    assert str(raised.value).startswith(f"{path}:{said}"), str(raised.value)


def test_a_line_that_is_not_json_is_refused_and_a_last_line_cut_short_is_left_out_with_a_warning(tmp_path):
    """A line of the stream that is not JSON is an error at its line; the last line cut short (the output of a
    process killed while writing) is left out, with a warning."""
    good = "".join(json.dumps(m) + "\n" for m in BASIC[:-1])
    path = tmp_path / "broken.jsonl"
    path.write_text(good + "{not json\n" + json.dumps(BASIC[-1]) + "\n", encoding="utf-8")
    with pytest.raises(RunFileError, match=r"broken.jsonl:5: not JSON"):
        load(path)
    path.write_text(good + '{"type": "result", "subt', encoding="utf-8")
    run = load(path)
    assert [w.line for w in run.warnings if "cut short" in w.text] == [5] and "results" not in run.header["source"]


def test_the_result_of_output_format_json_alone_is_refused_saying_what_writes_the_conversation(tmp_path):
    """``--output-format json`` writes the result alone: the file is recognised, and refused saying that
    ``stream-json`` writes the conversation, not that it is no format agentrender reads."""
    path = tmp_path / "result.json"
    path.write_text(json.dumps(result()), encoding="utf-8")
    with pytest.raises(RunFileError) as raised:
        load(path)
    assert "nothing of the conversation is in it (it holds result)" in str(raised.value)
    assert "--output-format stream-json --verbose" in str(raised.value)


def test_claude_code_actions_execution_file_reads_with_each_message_at_its_line(tmp_path):
    """claude-code-action's ``execution_file`` (the messages as one JSON array, indented by two spaces) reads as the
    stream does, each message at the line it starts on; an error in one names that line and its place in the
    array."""
    path = tmp_path / "claude-execution-output.json"
    path.write_text(json.dumps(BASIC, indent=2), encoding="utf-8")
    lines = path.read_text(encoding="utf-8").split("\n")
    starts = [n for n, line in enumerate(lines, start=1) if line == "  {"]
    run = load(path)
    assert len(run.steps) == 2 and [c.line for c in run.model_calls] == [starts[1], starts[3]]
    assert run.header["source"]["written_as"] == "execution_file"
    broken = [dict(m) for m in BASIC]
    broken[2]["parent_tool_use_id"] = 7
    path.write_text(json.dumps(broken, indent=2), encoding="utf-8")
    with pytest.raises(RunFileError) as raised:
        load(path)
    assert str(raised.value).startswith(f"{path}:{starts[2]}: [2].parent_tool_use_id: expected the id")


def test_show_of_a_stream_says_where_it_comes_from_and_how_it_ended(tmp_path):
    """``agentrender show`` of a stream (which said "not a run, nor a conversation agentrender can import") prints
    the run with where it comes from, the note that opens it, and the end the result says."""
    code, out, err = run_cli("show", str(written(tmp_path, BASIC)), "--width", "200", "--color", "never")
    assert code == 0, err
    assert "claude-code-stream, thread main" in out and "the prompt is not in this file" in out
    assert "completed: the session's result: result success, 2 turns, $0.0123 (line 5)" in out


STREAMS = [entry for entry in real.histories() if entry["format"] == "claude_code_stream"]


@pytest.mark.parametrize("entry", STREAMS, ids=[entry["path"] for entry in STREAMS])
def test_a_real_stream_has_a_model_call_a_reply_and_every_tool_use_answered_in_its_run(entry):
    """Each real stream's runs hold one model call for each reply (``message.id``) of their thread, and every tool
    use its file holds is in a run, answered in the turn after it when its file holds its result."""
    runs = load_runs(real.REAL / entry["path"])
    text = (real.REAL / entry["path"]).read_text(encoding="utf-8")
    values = json.loads(text) if entry["path"].endswith(".json") else [json.loads(x) for x in text.splitlines() if x]
    replies: dict[Any, set[str]] = {}
    answered = set()
    for value in values:
        content = value.get("message", {}).get("content") if isinstance(value.get("message"), dict) else None
        if value["type"] == "assistant":
            replies.setdefault(value.get("parent_tool_use_id"), set()).add(value["message"]["id"])
        if value["type"] == "user" and isinstance(content, list):
            answered.update(b["tool_use_id"] for b in content if b.get("type") == "tool_result")
    by_agent = {run.header["source"].get("agent_id"): run for run in runs}
    assert set(by_agent) == set(replies)
    for agent, ids in replies.items():
        run = by_agent[agent]
        assert {call.response.id for call in run.model_calls} == ids
        for step in run.steps:
            uses = {b.tool_use_id for b in run.model_calls[step.index].response.content if b.type == "tool_use"}
            sent = run.step_records[step.index]["sent"].get("user") or []
            got = {b["tool_use_id"] for b in sent if b.get("type") == "tool_result"}
            assert uses & answered == got & uses, (agent, step.index)
