"""A user turn of several blocks (a reply's parallel tool uses answered together, a result and the text typed after
it) under the contract's window and cap: each result in it is windowed and capped by the contract's rows, and says
so; only its other blocks are as sent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentrender import render
from agentrender.imports import load, load_runs
from agentrender.runfile.sent import result_text
from agentrender.views import Views
from tests._support.cli import run_cli
from tests._support.real import REAL

SESSION = REAL / "claude-code" / "jessitron-claude-log" / "episode-8-before.jsonl"
"""A real Claude Code session whose replies run two or three tool uses at once (Glob and Grep, Read and Read)."""

ROWS = {"full": "result", "full_cut": "cut", "summary": "summary", "summary_cut": "summary", "no_summary": "summary"}
"""The kind of block each row of ``render.result_and_rule`` is (``views.renders.KIND_OF_USER_RULE``)."""


def _several(run: Any) -> list[tuple[Any, list[dict[str, Any]], dict[str, Any]]]:
    """Each step whose recorded user turn holds several blocks, with that turn and the step's record."""
    found = []
    for step in run.steps:
        [sent] = run.step_field("sent", (step.index,))
        if sent and sent.get("user") and len(sent["user"]) > 1 and step.decision is not None:
            found.append((step, sent["user"], sent))
    return found


@pytest.mark.skipif(not SESSION.is_file(), reason=f"{SESSION} is not in this checkout")
@pytest.mark.parametrize("recent_results", [0, 2, 40])
def test_each_result_of_a_turn_of_several_is_labelled_by_the_contracts_row(recent_results: int) -> None:
    """Under the contract, each ``tool_result`` of a real session's turn of parallel results is the row of the
    window and cap that made it (a full result inside the window, a summary outside it), with the text that row
    gives; each other block is as sent. They were all labelled "as sent", though the window had summarised them."""
    run = load_runs(SESSION)[0]
    views = Views(run, run.options(recent_results=recent_results))
    several = _several(run)
    assert len(several) >= 5
    facts = {fact.step.index: fact for fact in views.at(None).step_facts() if fact.rendered}
    kinds: set[str] = set()
    for step, turn, sent in several:
        fact = facts[step.index]
        assert fact.result is not None
        blocks = fact.result.blocks
        assert [block.block.type for block in blocks] == [block["type"] for block in turn]
        for block, wire in zip(blocks, turn, strict=True):
            if wire["type"] != "tool_result":
                assert block.kind == "as_sent", (step.index, block)
                continue
            summary = str((sent.get("summaries") or {}).get(wire["tool_use_id"], ""))
            text, row = render.result_and_rule(result_text(wire["content"]), summary, bool(fact.full), 16384)
            assert (block.kind, block.rule, block.block.content) == (ROWS[row], row, text), step.index
            kinds.add(block.kind)
        own = fact.result_block
        assert own is not None and own.kind in ("result", "summary")
        if own.kind == "summary":  # the step's own result: what the model did not see is counted and shown
            assert own.hidden_bytes == len(step.observation.content.encode()) and fact.hidden_text()
    assert kinds == (
        {"result"} if recent_results == 40 else {"summary"} if recent_results == 0 else {"result", "summary"}
    )


@pytest.mark.skipif(not SESSION.is_file(), reason=f"{SESSION} is not in this checkout")
def test_as_sent_a_turn_of_several_is_as_sent() -> None:
    """As sent, every block of a turn of parallel results is the agent's own, whole: labelled "as sent" (that label
    was right there; the header says no window and no cap)."""
    run = load_runs(SESSION)[0]
    facts = {fact.step.index: fact for fact in Views(run).at(None).step_facts() if fact.rendered}
    for step, turn, _ in _several(run):
        result = facts[step.index].result
        assert result is not None
        assert [block.kind for block in result.blocks] == ["as_sent"] * len(turn)
        assert [block.block.to_dict() for block in result.blocks] == turn


@pytest.mark.skipif(not SESSION.is_file(), reason=f"{SESSION} is not in this checkout")
def test_show_under_the_contract_labels_a_turn_of_parallel_results_as_summaries() -> None:
    """``show --recent-results 2`` of the real session prints the two results of step 5 (outside the window) as
    summaries, the first with what the model did not see, where it printed them "as sent"; the header's claim (the
    results of the 31 steps before the window as summaries: it counts steps, as the window does, since a step's turn
    holds the results of its parallel calls) is what the turns show."""
    code, out, err = run_cli("show", str(SESSION), "--recent-results", "2", "--width", "150", "--color", "never")
    assert code == 0, err
    lines = [line.rstrip() for line in out.splitlines()]
    at = lines.index("user · step 5 · outside the window · 217 bytes")
    assert lines[at + 1 : at + 4] == [
        "  ▌ summary  12 bytes \u00b7 answers Glob \u00b7 id toolu_018XmvHRPiaSSz5adrkSeszH  (no summary)",
        "  ▌ ✂ hidden from the model: the full result, 47 bytes (it saw the summary)",
        "  ▌ summary  12 bytes \u00b7 answers Glob \u00b7 id toolu_01UtGzotUmHB9MSsf75qo6PU  (no summary)",
    ]
    header = out[out.rindex("\nwindow ") :]  # the header after the turns, whose labels say "the window" too
    window = " ".join(header.split("window", 1)[1].split("replay key", 1)[0].split())
    assert window.startswith("the results of the last 2 steps of 33 in full, each capped at 16,384 bytes; those of ")
    assert "those of the 31 steps before as summaries" in window
    assert "as sent  (no summary)" not in out


def test_a_result_cut_at_the_cap_in_a_turn_of_several_is_cut(tmp_path: Path) -> None:
    """A result and the text typed after it, under a cap of 10 bytes: the result is "cut" (its fact says so), the
    text as sent; as sent, both are the agent's own."""
    use = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}
    turn = [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "x" * 40}, {"type": "text", "text": "stop"}]
    path = tmp_path / "request.json"
    body = {"model": "m", "messages": [
        {"role": "user", "content": "Fix it."},
        {"role": "assistant", "content": [use]},
        {"role": "user", "content": turn},
    ]}  # fmt: skip
    path.write_text(json.dumps(body), encoding="utf-8")
    run = load(path)
    for options, kinds, cut in (
        (run.options(result_bytes=10), ["cut", "as_sent"], True),
        (None, ["as_sent"] * 2, False),
    ):
        [fact] = Views(run, options).at(None).step_facts()
        assert fact.result is not None
        assert [block.kind for block in fact.result.blocks] == kinds
        assert fact.result.blocks[0].cut is cut


def test_a_result_of_another_call_is_labelled_by_its_row_with_nothing_hidden_counted(tmp_path: Path) -> None:
    """A reply of two tool uses whose turn answers only the second: under the contract that result is a summary
    outside the window (its row), and as it is not the step's own result, nothing of the step's is counted as
    hidden behind it (the step's own result is not in the turn)."""
    uses = [{"type": "tool_use", "id": f"toolu_{n}", "name": "Read", "input": {}} for n in (0, 1)]
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "the other file"}
    path = tmp_path / "request.json"
    body = {"model": "m", "messages": [
        {"role": "user", "content": "Fix it."},
        {"role": "assistant", "content": uses},
        {"role": "user", "content": [result]},
    ]}  # fmt: skip
    path.write_text(json.dumps(body), encoding="utf-8")
    run = load(path)
    [fact] = Views(run, run.options(recent_results=0)).at(None).step_facts()
    assert fact.result_block is not None and fact.result is not None
    assert (fact.result_block.kind, fact.result_block.rule, fact.result_block.hidden_bytes) == (
        "summary",
        "no_summary",
        0,
    )
    assert fact.result.blocks[0].block.content == render.NO_SUMMARY_TEXT and fact.hidden_text() == ""
