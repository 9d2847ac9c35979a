"""What the displays say the model was shown: a result with no summary, the window's count, and the legends."""

from __future__ import annotations

import re
from pathlib import Path

from agentrender import Decision, Observation, Run, Step, load_run, render, write_run
from agentrender.notebook import ConversationView
from agentrender.views import BLOCK_LABELS, Views
from tests._support.cli import ROOT, run_cli

SAMPLES = ROOT / "sample_runs"
LEGEND = re.compile(r'<div class="ar-legend">(.*?)</div>', re.S)
SWATCH = re.compile(r'<span class="ar-block ar-([a-z_]+)"')


def _run_with_no_summary(tmp_path: Path) -> Path:
    """A run file of two calls, the first answered with no summary, and between them a reply with no tool call."""
    path = tmp_path / "run.jsonl"
    steps = [
        Step(
            index=0,
            decision=Decision(kind="tool_call", tool="list_dir", args={"path": "."}, reason="Look."),
            observation=Observation(content="a.txt\nb.txt", summary=""),
        ),
        Step(index=1, decision=Decision(kind="no_tool_call", reason="Thinking aloud.")),
        Step(
            index=2,
            decision=Decision(kind="tool_call", tool="read_file", args={"path": "a.txt"}, reason="Read."),
            observation=Observation(content="hello", summary="read a.txt"),
        ),
    ]
    write_run(Run(header={"type": "run", "run_id": "no-summary", "goal": "List the folder."}, steps=steps), path)
    return path


def test_steps_says_a_result_with_no_summary_is_the_contracts_stand_in() -> None:
    """``agentrender steps`` says the model saw "no summary" of a result whose tool wrote none, not "summary"."""
    code, out, _ = run_cli("steps", str(SAMPLES / "flaky-build-resumed.jsonl"))
    assert code == 0
    row = next(line for line in out.splitlines() if line.split()[:2] == ["0", "tool_call"])
    assert BLOCK_LABELS["no_summary"] in row and " summary " not in row.replace("no summary", "")


def test_show_labels_no_summary_with_the_text_and_bytes_sent(tmp_path: Path) -> None:
    """``show --recent-results 0`` prints the stand-in the model was sent, its 12 bytes as sent, under the label
    "no summary", and names that kind in its legend; a real summary keeps the label "summary"."""
    code, out, _ = run_cli("show", str(_run_with_no_summary(tmp_path)), "--recent-results", "0")
    assert code == 0
    stand_in = render.NO_SUMMARY_TEXT
    line = next(line for line in out.splitlines() if stand_in in line and "answers list_dir" in line)
    assert f"no summary  {len(stand_in.encode())} bytes" in line
    assert "summary  10 bytes · answers read_file" in out
    assert "its tool wrote no summary" in out
    legend = out[out.index("legend ") : out.index("\n\n")]
    assert "▌summary" in legend and "▌no summary" in legend


def test_show_window_counts_steps_and_says_a_nudge_is_no_summary(tmp_path: Path) -> None:
    """The window line counts the contract's rendered steps (a nudge's too) and does not call a nudge outside the
    window a summary."""
    code, out, _ = run_cli("show", str(_run_with_no_summary(tmp_path)), "--recent-results", "0", "--width", "200")
    assert code == 0
    window = " ".join(next(line for line in out.splitlines() if line.lstrip("│ ").startswith("window")).split())
    assert "the last 0 of 3 steps' results in full" in window
    assert "of the 3 earlier, 2 as summaries, 1 a nudge or re-request as in the window" in window
    assert "earlier as summaries" not in window
    code, out, _ = run_cli("show", "fix-failing-test", "--at", "1", "--width", "200", "--color", "never")
    assert code == 0 and "window      the last 1 of 1 step's results in full, each capped" in out


def test_a_views_html_legend_names_only_the_kinds_it_shows() -> None:
    """A view's HTML (what ``Run._repr_html_`` and the notebook's conversation widget show) names in its legend the
    kinds of the blocks it shows, never a compaction summary, a hook's block or a block as sent of a plain run file."""
    run = load_run(SAMPLES / "flaky-build-resumed.jsonl")
    view = Views(run, run.options(recent_results=0)).at(None)
    [legend] = LEGEND.findall(view._repr_html_())
    assert SWATCH.findall(legend) == ["opening", "reason", "tool_use", "summary", "no_summary", "interrupted"]
    widget = ConversationView(run)
    [legend] = LEGEND.findall(widget.html.value)
    kinds = SWATCH.findall(legend)
    assert kinds and not {"compaction", "hook", "as_sent", "cut"} & set(kinds)
    assert "ar-skipped" in legend and "ar-failed" in legend
