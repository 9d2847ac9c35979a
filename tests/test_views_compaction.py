"""Compactions of an imported run in its views, and the as-sent rule: an as-sent view holds only what was sent."""

from __future__ import annotations

import html
import io
import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import agentrender.html
from agentrender import RunFileError, load_run, render, samples, write_run
from agentrender.cli import main
from agentrender.frame import steps_frame
from agentrender.imports import load, load_runs
from agentrender.notebook import ConversationView, RunExplorer
from agentrender.views import BLOCK_KINDS, BLOCK_LABELS, ENDED_TEXT, LEFT_OUT_SAID, LEFT_OUT_TEXT, Views
from tests._support import real
from tests._support.as_sent import as_sent_problems, sent_conversation
from tests._support.compacted import OPENING, compacted_records, compacted_run, compaction, summary, write_records

ROOT = Path(__file__).resolve().parents[1]
IMPORTED = sorted(
    [path for path in samples.imports_folder().iterdir() if path.is_file() and path.name != "README.md"]
    + [path for path in (ROOT / "tests/fixtures/imports").rglob("*") if path.is_file() and path.name != "README.md"]
)

REAL = real.REAL
REAL_FILES = real.history_paths()


def wire(view: Any) -> list[dict[str, Any]]:
    return [message.to_dict() for message in view.messages]


def uncompacted(run: Any) -> Any:
    """The same run with no compactions in its header."""
    header = {key: value for key, value in run.header.items() if key != "compactions"}
    return replace(run, header=header)


def test_a_compaction_between_steps_restarts_the_views_after_it(tmp_path: Path) -> None:
    """Before the compaction a view is the opening and every step; from it on, the summary and the steps since."""
    run = compacted_run(tmp_path, 8, [compaction(3, tokens_before=150_000)])
    views = Views(run)
    for at in views.stops:
        assert wire(views.at(at)) == sent_conversation(run, at)
        assert views.at(at).bytes == json_bytes(wire(views.at(at))) and views.at(at).message_count == len(
            wire(views.at(at))
        )
    assert wire(views.at(2))[0]["content"] == OPENING and views.at(2).message_count == 5
    after = views.at(3)
    assert wire(after) == [{"role": "user", "content": summary(3)}]
    assert after.first_step == 3 and after.restarts_from is not None and after.opening.blocks[0].kind == "compaction"
    assert [fact.in_view for fact in after.steps] == [False, False, False]
    assert views.at(5).step_facts(3)[0].message_index == 1


def test_the_compaction_fact_gives_the_size_just_before_and_just_after(tmp_path: Path) -> None:
    """bytes_before is the view without the compaction at that stop, bytes_after the view; sizes() shows the drop."""
    run = compacted_run(tmp_path, 8, [compaction(3, tokens_before=150_000)])
    views, plain = Views(run), Views(uncompacted(run))
    fact = views.at(3).compaction
    assert fact is not None and views.at(2).compaction is None and views.at(4).compaction is None
    assert (fact.at, fact.trigger, fact.honoured, fact.replaced_steps, fact.source_tokens) == (
        3,
        "auto",
        True,
        3,
        150_000,
    )
    assert fact.bytes_before == plain.at(3).bytes == json_bytes(sent_conversation(uncompacted(run), 3))
    assert fact.bytes_after == views.at(3).bytes == json_bytes(summary_only(3))
    assert fact.bytes_after < fact.bytes_before
    assert "3 earlier steps left out" in fact.describe() and f"{fact.bytes_before:,} bytes" in fact.describe()
    series = views.sizes()
    assert series.bytes == tuple(views.at(at).bytes for at in views.stops)
    assert series.messages == tuple(views.at(at).message_count for at in views.stops)
    assert series.compaction == (None, None, None, "auto", None, None, None, None, None)
    assert series.bytes[3] < series.bytes[2] and series.first_diff[3] == 0 and series.prefix_bytes[3] == 0
    assert series.first_diff[4] == 1 and series.prefix_bytes[4] > 0
    assert views.at(4).change.first_diff == 1 and views.at(3).change.prefix_bytes == 0
    assert views.at(3).change.added_step is None and views.at(4).change.added_step == 3
    assert views.at(4).change.prefix_bytes == json_bytes(summary_only(3))  # "[" + the summary + ","


def test_a_compaction_after_the_last_request_restarts_only_the_last_view(tmp_path: Path) -> None:
    """A compaction at step == the number of steps: every view before it is whole, the last is the summary alone."""
    run = compacted_run(tmp_path, 4, [compaction(4, trigger="manual")])
    views = Views(run)
    for at in views.stops:
        assert wire(views.at(at)) == sent_conversation(run, at)
    assert wire(views.at(None)) == [{"role": "user", "content": summary(4)}]
    fact = views.at(None).compaction
    assert fact is not None and fact.trigger == "manual" and fact.replaced_steps == 4
    assert not views.at(None).ended and views.at(3).message_count == 7


def test_two_compactions_each_restart_from_the_one_before(tmp_path: Path) -> None:
    """The second compaction's before is the first summary and the steps since it, not the whole history."""
    run = compacted_run(tmp_path, 9, [compaction(2), compaction(6, trigger="manual")])
    views = Views(run)
    for at in views.stops:
        assert wire(views.at(at)) == sent_conversation(run, at)
    second = views.at(6).compaction
    assert second is not None and second.replaced_steps == 4
    first_only = replace(run, header={**run.header, "compactions": run.header["compactions"][:1]})
    without_second = sent_conversation(first_only, 6)
    assert without_second[0]["content"] == summary(2) and len(without_second) == 9
    assert second.bytes_before == json_bytes(without_second) and second.bytes_after == json_bytes(summary_only(6))
    assert views.sizes().compaction == (None, None, "auto", None, None, None, "manual", None, None, None)
    assert list(as_sent_problems(run)) == []


def json_bytes(messages: list[dict[str, Any]]) -> int:
    """UTF-8 bytes of ``messages`` as a compact JSON list: what a view's ``bytes`` counts."""
    return len(json.dumps(messages, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def summary_only(step: int) -> list[dict[str, Any]]:
    return [{"role": "user", "content": summary(step)}]


def test_under_the_contract_compactions_are_only_marked(tmp_path: Path) -> None:
    """The what-if renders the whole history through its window at every stop; the compaction is still a fact."""
    run = compacted_run(tmp_path, 8, [compaction(3)])
    options = run.options(recent_results=2, result_bytes=100)
    views = Views(run, options)
    for at in views.stops:
        assert views.at(at).messages == render.messages(run.step_input(at), options)
    fact = views.at(3).compaction
    assert fact is not None and not fact.honoured and fact.bytes_before == fact.bytes_after == views.at(3).bytes
    assert "under the contract the whole history is rendered" in fact.describe()
    assert views.sizes().compaction[3] == "auto"
    assert 'class="ar-compacted"' in views.at(5)._repr_html_()


def test_views_across_compactions_render_each_step_once(tmp_path: Path) -> None:
    """Every view, its facts and the size series of a compacted run come from one render of each step's turns."""
    run = compacted_run(tmp_path, 9, [compaction(2), compaction(6)])
    options = run.options()
    calls: list[int] = []
    hook = options.assistant
    assert hook is not None

    def counted(step: Any, tool_use_id: str) -> Any:
        calls.append(step.index)
        return hook(step, tool_use_id)

    views = Views(run, replace(options, assistant=counted))
    assert views.mode == "as sent"
    for at in views.stops:
        view = views.at(at)
        assert wire(view) == sent_conversation(run, at) and view.steps is not None
        assert view.compaction is None or view.compaction.bytes_before > 0
    views.sizes()
    assert sorted(calls) == list(range(9))


def test_compactions_survive_a_write_and_a_read(tmp_path: Path) -> None:
    """write_run then load_run gives the same compactions, every field (unknown ones too) kept and reported."""
    extra = compaction(2, tokens_before=12, at="2026-01-05T09:00:16Z", line=40, note="kept")
    run = compacted_run(tmp_path, 5, [extra, compaction(4, trigger="manual")])
    assert any("run.compactions[0].note" in str(warning) for warning in run.warnings)
    write_run(run, tmp_path / "again.jsonl")
    again = load_run(tmp_path / "again.jsonl")
    assert again.header["compactions"] == run.header["compactions"]
    assert again.compactions == run.compactions
    first = again.compactions[0]
    assert (first.step, first.trigger, first.tokens_before, first.at, first.line) == (2, "auto", 12, extra["at"], 40)
    assert [block.to_dict() for block in first.opening] == summary(2) and first.record["note"] == "kept"


def test_which_blocks_of_a_compactions_opening_are_its_summary_survives_a_write_and_a_read(tmp_path: Path) -> None:
    """``summary_blocks`` is kept by write_run and load_run; a compaction without it (an older file) reads as None,
    every block of its opening the summary, as before the field."""
    prompt = {"type": "text", "text": "Now add a test."}
    told = compaction(2, opening=[*summary(2), prompt], summary_blocks=[0])
    run = compacted_run(tmp_path, 5, [told, compaction(4)])
    assert not run.warnings
    write_run(run, tmp_path / "again.jsonl")
    again = load_run(tmp_path / "again.jsonl")
    assert again.header["compactions"][0]["summary_blocks"] == [0]
    first, second = again.compactions
    assert first.summary_blocks == (0,) and [first.is_summary(i) for i in range(2)] == [True, False]
    assert second.summary_blocks is None and second.is_summary(0)


def test_only_the_summary_of_a_compactions_opening_is_labelled_the_summary(tmp_path: Path) -> None:
    """The blocks of the opening ``summary_blocks`` names are the summary (kind ``compaction``); the user's prompt sent
    with it is as sent: in the facts, the HTML and ``show --json``; the messages are the opening as it was sent."""
    prompt = {"type": "text", "text": "Now add a test."}
    run = compacted_run(tmp_path, 5, [compaction(2, opening=[*summary(2), prompt], summary_blocks=[0])])
    view = Views(run).at(2)
    assert wire(view) == [{"role": "user", "content": [*summary(2), prompt]}]
    assert [fact.kind for fact in view.opening.blocks] == ["compaction", "as_sent"]
    prompt_html = view._repr_html_().split("Now add a test.")[0].rsplit("ar-block", 1)[1]
    assert prompt_html.startswith(' ar-as_sent"><span class="ar-tag">as sent</span>')
    shown = json.loads(cli("show", run.path, "--at", "2", "--json"))
    assert [block["kind"] for block in shown["opening"]["blocks"]] == ["compaction", "as_sent"]
    assert [fact.kind for fact in Views(uncompacted(run)).at(2).opening.blocks] == ["opening"]


def test_a_compaction_that_does_not_say_which_blocks_are_its_summary_labels_them_all_the_summary(
    tmp_path: Path,
) -> None:
    """A compaction without ``summary_blocks`` (a source that cannot tell, a file older than the field) has its
    whole opening labelled the summary, as before."""
    run = compacted_run(tmp_path, 5, [compaction(2, opening=summary(2) * 2)])
    assert [fact.kind for fact in Views(run).at(2).opening.blocks] == ["compaction", "compaction"]


def test_the_prompt_sent_with_a_real_claude_code_summary_is_not_labelled_the_summary() -> None:
    """In the real ``dag_compact_after_rewind`` transcript the user's next prompt ("After compaction") is joined to the
    ``isCompactSummary`` record in the turn the conversation restarted with: the view labels the summary the summary
    and the prompt as sent, and sends both in one turn."""
    (run,) = load_runs(REAL / "claude-code/daaain-claude-code-log/dag_compact_after_rewind.jsonl")
    (compaction_,) = run.compactions
    assert compaction_.summary_blocks == (0,)
    opening = Views(run).at(compaction_.step).opening
    assert [(fact.kind, fact.block.text[:25]) for fact in opening.blocks] == [
        ("compaction", "This session is being con"),
        ("as_sent", "After compaction"),
    ]
    assert [block.text for block in opening.message.content][1] == "After compaction"


def test_the_compaction_legend_says_it_labels_the_summarys_blocks_in_every_display() -> None:
    """The legend's words for the kind ``compaction`` say what is labelled so, now that a compaction names its
    summary's blocks: a block of the summary, the turn's other blocks as sent (the real ``dag_compact_after_rewind``
    view: the summary, then the user's prompt as sent); the HTML of a view (the notebook's) and the offline page give
    the same words. They called the whole user turn the summary."""
    meaning = BLOCK_KINDS["compaction"]
    assert meaning.startswith("a block of the summary") and f"are {BLOCK_LABELS['as_sent']}" in meaning
    (run,) = load_runs(REAL / "claude-code/daaain-claude-code-log/dag_compact_after_rewind.jsonl")
    view = Views(run).at(run.compactions[0].step)
    assert [fact.kind for fact in view.opening.blocks] == ["compaction", "as_sent"]
    assert f'title="{html.escape(meaning)}">{BLOCK_LABELS["compaction"]}</span>' in view._repr_html_()
    facts = agentrender.html.payload(run)
    texts = facts["texts"]
    assert [BLOCK_LABELS["compaction"], meaning] in [[texts[label], texts[said]] for label, said in facts["kinds"]]


@pytest.mark.parametrize(
    ("compactions", "field", "what"),
    [
        ("all", "$.compactions", "expected `array | null`"),
        (["x"], "$.compactions[0]", "expected `object`"),
        ([{"opening": summary(1)}], "$.compactions[0].step", "missing"),
        ([{"step": "1", "opening": summary(1)}], "$.compactions[0].step", "expected `int`"),
        ([{"step": -1, "opening": summary(1)}], "$.compactions[0].step", "expected `int` >= 0, got -1"),
        ([compaction(3), compaction(2)], "$.compactions[1].step", "increasing step order"),
        ([compaction(3), compaction(3)], "$.compactions[1].step", "increasing step order"),
        ([compaction(1), compaction(6)], "$.compactions[1].step", "expected at most 4"),
        ([{"step": 1}], "$.compactions[0].opening", "missing"),
        ([{"step": 1, "opening": []}], "$.compactions[0].opening", "expected `array` of length >= 1"),
        ([{"step": 1, "opening": "text"}], "$.compactions[0].opening", "expected `array`"),
        ([{"step": 1, "opening": [{"text": "no type"}]}], "$.compactions[0].opening[0]", ""),
        ([{"step": 1, "opening": summary(1), "trigger": 3}], "$.compactions[0].trigger", "expected `str | null`"),
        ([compaction(1, summary_blocks=0)], "$.compactions[0].summary_blocks", "expected `array | null`"),
        ([compaction(1, summary_blocks=["0"])], "$.compactions[0].summary_blocks[0]", "expected `int`"),
        ([compaction(1, summary_blocks=[-1])], "$.compactions[0].summary_blocks[0]", "expected `int` >= 0, got -1"),
        ([compaction(1, summary_blocks=[1])], "$.compactions[0].summary_blocks[0]", "of the opening's 1 block(s)"),
        (
            [compaction(1, opening=summary(1) * 2, summary_blocks=[1, 1])],
            "$.compactions[0].summary_blocks[1]",
            "above 1 (increasing order), got 1",
        ),
    ],
)
def test_a_wrong_compaction_is_an_error_naming_its_field(
    tmp_path: Path, compactions: Any, field: str, what: str
) -> None:
    """Each wrong shape of the header's compactions is a RunFileError at PATH:1: naming the field."""
    records = compacted_records(4, [])
    records[0]["compactions"] = compactions
    path = write_records(tmp_path / "bad.jsonl", records)
    with pytest.raises(RunFileError) as caught:
        load_run(path)
    assert str(caught.value).startswith(f"{path}:1: {field}")
    assert what in str(caught.value)


def test_an_unanswered_final_answer_ends_the_view_as_it_ended(tmp_path: Path) -> None:
    """As sent, the view after a final answer is the conversation ending on it, says so, and holds no nudge."""
    run = compacted_run(tmp_path, 3, [])
    view = Views(run).at(None)
    assert view.ended and view.messages[-1].role == "assistant" and view.message_count == len(view.messages) == 6
    assert view.bytes == Views(run).sizes().bytes[-1] == json_bytes(wire(view))
    last = view.steps[-1]
    assert last.ended and last.result is None and last.result_block is None
    assert ENDED_TEXT in view._repr_html_() and "nudge" not in view._repr_html_().split("ar-legend")[0]
    frame = steps_frame(run)
    assert frame["ended"].tolist() == [False, False, True]
    assert frame["shown_as"].isna().tolist() == [False, False, True] and not frame["nudge"].iloc[-1]
    contract = Views(run, run.options(recent_results=5)).at(None)
    assert not contract.ended and contract.steps[-1].result_block.kind == "nudge_no_tool_call"


def test_the_frame_says_which_steps_the_last_view_holds_after_a_compaction(tmp_path: Path) -> None:
    """As sent, the view after the last step restarts from the compaction: the steps before it are not in it, so the
    frame shows nothing of them there (``in_view`` false, ``full`` false, ``shown_as`` and the bytes null) and the
    steps table says the summary stands for them; under the contract's options every step is in the view."""
    run = compacted_run(tmp_path, 8, [compaction(3)])
    frame = steps_frame(run)
    assert frame["in_view"].tolist() == [False] * 3 + [True] * 5 and frame["rendered"].all()
    before = frame.loc[:2]
    assert not before["full"].any() and before["shown_as"].isna().all() and before["hidden_bytes"].isna().all()
    assert before["shown_bytes"].isna().all() and frame.loc[3:6, "shown_as"].notna().all()
    assert Views(run).at(None).result_blocks()[:3] == (None, None, None)
    facts = Views(run).at(None).step_facts()
    assert [fact.in_view for fact in facts] == frame["in_view"].tolist()
    table = cli("steps", run.path, "--width", "200", "--color", "never")
    rows = [line for line in table.splitlines() if line.lstrip()[:1].isdigit()]
    assert [LEFT_OUT_SAID in row for row in rows] == [True] * 3 + [False] * 5
    assert table.count(LEFT_OUT_TEXT) == 1  # said once, under the rows
    within = steps_frame(run, run.options(recent_results=2))
    assert within["in_view"].all() and within["full"].tolist() == [False] * 6 + [True] * 2


def test_an_answered_final_step_is_not_an_end(tmp_path: Path) -> None:
    """A last step the source answered keeps its user turn: the view is a request, not an end."""
    run = compacted_run(tmp_path, 3, [], answered_last=True)
    view = Views(run).at(None)
    assert not view.ended and view.messages[-1].to_dict() == {
        "role": "user",
        "content": [{"type": "text", "text": "Thanks."}],
    }


@pytest.mark.parametrize("path", IMPORTED, ids=lambda path: path.name)
def test_no_as_sent_view_of_an_import_holds_a_block_the_source_did_not_send(path: Path) -> None:
    """Every view of every bundled sample import and imported fixture is exactly what its source sent."""
    assert list(as_sent_problems(load(path))) == []


@pytest.mark.parametrize("name", REAL_FILES or [pytest.param("", marks=pytest.mark.skip("no real fixtures here"))])
def test_no_as_sent_view_of_a_real_fixture_holds_a_block_the_source_did_not_send(name: str) -> None:
    """Every run of every real public fixture (tests/fixtures/real/MANIFEST.json) is viewed exactly as it was sent."""
    for run in load_runs(REAL / name):
        assert list(as_sent_problems(run)) == []


def cli(*argv: str) -> str:
    """The output of ``agentrender argv`` run in this process, which must succeed."""
    out, err = io.StringIO(), io.StringIO()
    assert main([*argv], stdout=out, stderr=err) == 0, err.getvalue()
    return out.getvalue()


def test_the_cli_show_marks_the_compaction_with_its_sizes(tmp_path: Path) -> None:
    """show --at K right after a compaction says so with the sizes before and after; --json carries the fact."""
    run = compacted_run(tmp_path, 8, [compaction(3)])
    fact = Views(run).at(3).compaction
    assert fact is not None
    terminal = ("--width", "200", "--color", "never")
    text = cli("show", run.path, "--at", "3", *terminal)
    assert "compaction (auto) before step 3" in text and f"{fact.bytes_before:,} bytes" in text
    assert f"{fact.bytes_after:,} bytes" in text
    assert "the 3 steps before it are not in this view" in cli("show", run.path, "--at", "5", *terminal)
    shown = json.loads(cli("show", run.path, "--json"))
    assert shown["ended"] is True and shown["steps"][-1]["result"] is None and shown["compaction"] is None
    assert json.loads(cli("show", run.path, "--at", "3", "--json"))["compaction"]["bytes_before"] == fact.bytes_before
    context = cli("context", run.path, *terminal)
    assert "compaction (auto): the conversation restarted" in context
    assert json.loads(cli("context", run.path, "--json"))[3]["compaction"] == "auto"
    assert "clean" in cli("check", run.path, *terminal)
    table = cli("steps", run.path, *terminal)
    assert "compaction" in table and "nothing: the conversation ended" in table and "nudge" not in table


def test_a_compaction_as_sent_breaks_the_cache_prefix_and_every_instrument_counts_it(tmp_path: Path) -> None:
    """As sent, the view right after a compaction shares nothing with the one before: the series' ``breaks`` holds
    it beside every result that left the window, and ``context``, the explorer's size tab and the page count it; under
    the contract's options the history is rendered across it, and only the results that left the window break."""
    run = compacted_run(tmp_path, 8, [compaction(3)])
    series = Views(run).sizes()
    assert series.breaks == (3,) and series.left_window == (None,) * 9
    terminal = ("--width", "200", "--color", "never")
    assert "the cache prefix breaks 1 time \u00b7" in cli("context", run.path, *terminal)
    explorer = RunExplorer(run)
    explorer.tabs.selected_index = 3
    assert "the cache prefix broke <b>1</b> time<" in explorer.size_tab.children[1].value
    contract = Views(run, run.options(recent_results=2))
    within = contract.sizes()
    left = tuple(i for i, step in enumerate(within.left_window) if step is not None)
    assert within.breaks == left and within.compaction[3] == "auto"
    text = cli("context", run.path, "--recent-results", "2", *terminal)
    assert f"step {within.left_window[3]} left the window; compaction (auto) here as sent: rendered across" in text
    assert "the conversation restarted" not in text and f"breaks {len(left)} times" in text


def test_the_explorers_size_chart_says_whether_its_views_restart_at_the_compaction(
    tmp_path: Path, scattered: list[tuple[list[Any], str]]
) -> None:
    """The size chart's legend says a compaction is where the conversation restarted, and, under the contract's
    options, that it is rendered across; its diamond is at the compaction, and the other marks are the other breaks,
    none of them the compaction."""
    run = compacted_run(tmp_path, 8, [compaction(3)])
    drawn = scattered
    for options, said in ((None, "the conversation restarted"), (run.options(recent_results=2), "rendered across")):
        drawn.clear()
        explorer = RunExplorer(run, options)
        explorer.tabs.selected_index = 3
        (legend,) = re.findall(r'<span class="ar-swatch-compaction">([^<]*)</span>', explorer.chart.value)
        assert legend.startswith("\u25c6 compaction") and said in legend, legend
        assert [at for at, marker in drawn if marker == "D"] == [[3]]
        assert all(3 not in at for at, marker in drawn if marker != "D")


def test_the_widgets_mark_the_compaction_and_the_end(tmp_path: Path) -> None:
    """ConversationView's label and HTML mark a compaction and the end; the explorer's table has the column."""
    run = compacted_run(tmp_path, 8, [compaction(3)])
    widget = ConversationView(run, at=3)
    assert "compaction" in widget.position_label.value and 'class="ar-compacted"' in widget.html.value
    widget.at = 8
    assert "as it ended" in widget.position_label.value and ENDED_TEXT in widget.html.value
    explorer = RunExplorer(run)
    assert "compaction" in explorer.frame.columns and explorer.frame["compaction"].tolist()[3] == "auto"
