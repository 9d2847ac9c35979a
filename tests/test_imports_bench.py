"""bench/bench_imports.py keeps working: its conversation imports alike in every format, and it prints every cell
and the worst (no time asserted)."""

import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from agentrender.imports import from_anthropic, from_claude_code, from_openai, from_responses
from agentrender.views import Views


@pytest.fixture
def bench(import_bench: Callable[[str], ModuleType]) -> ModuleType:
    return import_bench("bench_imports")


def test_the_benchmarks_conversation_is_what_its_cell_says(bench: ModuleType) -> None:
    """A cell's conversation has its turns, results of its size, its tool uses per turn and the user's text beside
    the results, and imports cleanly."""
    body = bench.conversation(41, 3072, 3, True)
    messages = body["messages"]
    assert len(messages) == 41 and messages[-1]["role"] == "user"
    uses = [block for block in messages[1]["content"] if block["type"] == "tool_use"]
    results = messages[2]["content"][:-1]
    assert len(uses) == 3 and [r["tool_use_id"] for r in results] == [u["id"] for u in uses]
    assert messages[2]["content"][-1]["type"] == "text"
    texts = [r["content"][0]["text"] if isinstance(r["content"], list) else r["content"] for r in results]
    assert [len(text) for text in texts] == [3072] * 3
    run = from_anthropic(body)
    assert len(run.steps) == 20 and not run.warnings


@pytest.mark.parametrize("uses", [1, 3])
def test_every_format_of_the_conversation_imports_to_the_same_steps(
    bench: ModuleType, tmp_path: Path, uses: int
) -> None:
    """The call log, the Claude Code session, the OpenAI chat and the Codex session the benchmark writes import to the
    steps the request body imports to (a decision and an observation each; a log, whose last user turn no request
    sent, knows no last observation; a chat and a Codex session, no error flag), so every format is timed on the same
    conversation."""
    body = bench.conversation(21, 100, uses, True)
    steps = from_anthropic(body).steps
    (tmp_path / "calls.jsonl").write_text("".join(bench.call_log_lines(body)), encoding="utf-8")
    (tmp_path / "session.jsonl").write_text("".join(bench.claude_code_lines(body)), encoding="utf-8")
    (tmp_path / "chat.json").write_text(json.dumps(bench.openai_chat(body)), encoding="utf-8")
    (tmp_path / "rollout.jsonl").write_text("".join(bench.codex_lines(body)), encoding="utf-8")
    logged = from_anthropic(tmp_path / "calls.jsonl").steps
    assert logged[:-1] == steps[:-1] and logged[-1].decision == steps[-1].decision and logged[-1].observation is None
    assert from_claude_code(tmp_path / "session.jsonl")[0].steps == steps
    openai = from_openai(tmp_path / "chat.json").steps
    assert [step.decision.tool for step in openai] == [step.decision.tool for step in steps]
    # a chat's tool message has no error flag: the results are the same, none of them failed
    assert [step.observation.content for step in openai] == [step.observation.content for step in steps]
    codex = from_responses(tmp_path / "rollout.jsonl")
    assert [step.decision for step in codex.steps] == [step.decision for step in steps]
    assert [step.observation.content for step in codex.steps] == [step.observation.content for step in steps]
    assert codex.header["system"] == body["system"] and not codex.warnings


def test_the_codex_session_holds_the_records_codex_writes_beside_its_items(bench: ModuleType) -> None:
    """The benchmark's Codex session holds, beside its items, a turn context before each reply, an agent message event
    after each of its texts and a token count after each reply, a third of its lines or more, as a real rollout does:
    a session of the items alone would time a shape no user has."""
    lines = [json.loads(line) for line in bench.codex_lines(bench.conversation(21, 100, 1, True))]
    kinds = [(line["type"], line["payload"].get("type")) for line in lines]
    replies = kinds.count(("response_item", "function_call"))
    assert kinds.count(("turn_context", None)) == replies + 1  # the session's first, and one a reply
    assert kinds.count(("event_msg", "agent_message")) == kinds.count(("event_msg", "token_count")) == replies
    assert sum(kind != "response_item" for kind, _ in kinds) >= len(lines) / 3


def test_the_codex_session_reasons_before_each_reply_and_ends_each_command(bench: ModuleType) -> None:
    """As a real rollout (``tests/fixtures/real/codex``), the benchmark's Codex session holds a reasoning item before
    each reply's text (a summary and kilobytes of ``encrypted_content``, its summary said again in an
    ``agent_reasoning`` event before it) and an ``exec_command_end`` event after each call's output, naming its call
    and holding the command's output again."""
    lines = [json.loads(line) for line in bench.codex_lines(bench.conversation(21, 100, 3, True))]
    payloads = [line["payload"] for line in lines]
    kinds = [payload.get("type") for payload in payloads]
    replies = [at for at, payload in enumerate(payloads) if payload.get("role") == "assistant"]
    assert len(replies) == 10
    for at in replies:
        reasoning, event = payloads[at - 1], payloads[at - 2]
        assert reasoning["type"] == "reasoning" and len(reasoning["encrypted_content"]) >= 1024
        assert reasoning["summary"] == [{"type": "summary_text", "text": event["text"]}]
        assert event["type"] == "agent_reasoning" and event["text"]
    outputs = [at for at, kind in enumerate(kinds) if kind == "function_call_output"]
    assert len(outputs) == 30 and kinds.count("exec_command_end") == 30
    for at in outputs:
        output, end = payloads[at], payloads[at + 1]
        assert (end["type"], end["call_id"], end["aggregated_output"]) == (
            "exec_command_end", output["call_id"], output["output"])  # fmt: skip
        assert end["exit_code"] == 0 and end["status"] == "completed"


def test_the_codex_sessions_reasoning_and_command_ends_are_read(bench: ModuleType, tmp_path: Path) -> None:
    """The importer reads the benchmark's reasoning items as the thinking that opens each reply, their encrypted
    content its signature, and keeps each ``exec_command_end`` event by its line, with no warning: the cells time
    what a user's import does with them."""
    path = tmp_path / "rollout.jsonl"
    lines = bench.codex_lines(bench.conversation(21, 100, 1, False))
    path.write_text("".join(lines), encoding="utf-8")
    run = from_responses(path)
    assert not run.warnings and len(run.steps) == 10
    reasonings = [json.loads(line)["payload"] for line in lines if '"type": "reasoning"' in line]
    reply = Views(run).at(4).messages[-2]  # step 3's reply, in the view of step 4
    thinking, text = reply.content[0], reply.content[1]
    assert (thinking.type, thinking.text) == ("thinking", "**Checking step 3's callers**")
    assert thinking.signature == reasonings[3]["encrypted_content"]
    assert (text.type, text.text) == ("text", "Step 3: the discount is applied twice; checking the callers.")
    ends = run.header["source"]["events"]["exec_command_end"]
    assert len(ends) == 10
    assert all(json.loads(lines[line - 1])["payload"]["type"] == "exec_command_end" for line in ends)


def test_each_side_is_timed_by_the_clock_given(bench: ModuleType) -> None:
    """``best`` times each side by the clock it is given (CPU time unless ``--clock wall``): a clock that moves 2 s at
    each reading says every call took 2 s, whatever the call took."""
    readings = iter(range(0, 1000, 2))
    assert bench.best(3, lambda: None, lambda: [], min_seconds=0, clock=lambda: float(next(readings))) == [2.0, 2.0]
    assert bench.best.__kwdefaults__["clock"] is bench.CLOCKS["cpu"]


@pytest.mark.slow
def test_bench_imports_prints_every_cell_and_the_worst(bench: ModuleType, run_bench: Callable[..., str]) -> None:
    """Run as a user runs it, on 20- and 40-turn conversations with one round and one call a side: each of the 16
    cells of each format is printed with its ratios, then the worst of each format, then the worst of all against the
    target."""
    out = run_bench(
        "bench_imports", "--turns", "20", "40", "--results", "60", "1024", "--rounds", "1", "--min-seconds", "0"
    )
    header, *cells, worst = out.splitlines()
    cells, worst_of_each = cells[: 16 * len(bench.FORMATS)], cells[16 * len(bench.FORMATS) :]
    assert header.split() == ["format", "turns", "result", "uses", "beside", "file", "import", "+", "steps"]
    assert {line.split()[0] for line in cells} == set(bench.FORMATS)
    assert all(float(line.split()[-2]) > 0 and float(line.split()[-1]) > 0 for line in cells)
    assert [line.split(":")[0] for line in worst_of_each] == [f"worst {form}" for form in bench.FORMATS]
    assert worst.startswith("worst: ") and "the 1.0x target" in worst
