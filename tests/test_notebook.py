"""agentrender.notebook: the widgets' logic without a browser (values, children, clicks, slider changes)."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agentrender import ContentBlock, ModelResponse, render
from agentrender.notebook import INSTALL, ConversationView, DecideStepper, RunExplorer
from agentrender.views.html import view_html
from tests._support.conversations import REPLIED_THEN_PREFILL, json_file, prefilled_log
from tests._support.markup import assert_inert
from tests._support.runs import UNSEEN, UNSEEN_RAW, UNSEEN_SHOWN, every_kind_run, hostile_run, long_run


def html_values(widget: object) -> list[str]:
    """Every HTML string a widget tree holds."""
    import ipywidgets

    found = []
    stack = [widget]
    while stack:
        node = stack.pop()
        if isinstance(node, ipywidgets.HTML):
            found.append(node.value)
        stack.extend(getattr(node, "children", ()))
    return found


def test_conversation_view_starts_after_the_last_step_and_shows_that_view() -> None:
    """By default the view is after the last step; the HTML is the view's HTML, header and all."""
    run = every_kind_run()
    widget = ConversationView(run)
    assert widget.at == 14 and widget.slider.value == widget.slider.max == 14
    assert widget.html.value == view_html(widget.views.at(14), last_steps=40)
    assert widget.view.messages == render.messages(run.step_input(14), run.options())
    assert "after the last recorded step" in widget.position_label.value


def test_the_slider_and_buttons_move_through_the_steps() -> None:
    """Moving the slider, or clicking previous/next, shows the view at the new step; the ends hold."""
    run = every_kind_run()
    widget = ConversationView(run, at=3)
    assert widget.at == 3
    widget.slider.value = 9
    assert widget.at == 9 and widget.position_label.value == "deciding step 9"
    assert widget.html.value == view_html(widget.views.at(9), last_steps=40)
    widget.next_button.click()
    assert widget.at == 10
    widget.previous_button.click()
    widget.previous_button.click()
    assert widget.at == 8
    widget.slider.value = 0
    widget.previous_button.click()
    assert widget.at == 0
    assert "first view" in widget.html.value
    widget.at = 12
    assert widget.slider.value == 12


def test_window_controls_rerender_with_the_new_options() -> None:
    """Changing recent_results or result_bytes shows render.messages under those options, and back again."""
    run = every_kind_run()
    widget = ConversationView(run, at=14)
    widget.recent_results.value = 1
    assert widget.views.options.recent_results == 1
    assert widget.view.messages == render.messages(run.step_input(14), run.options(recent_results=1))
    widget.result_bytes.value = 40
    assert widget.view.messages == render.messages(run.step_input(14), run.options(recent_results=1, result_bytes=40))
    # A cut block of the conversation: the class name alone is also in the stylesheet and the legend.
    assert '<div class="ar-block ar-cut' in widget.html.value
    widget.result_bytes.value = render.RESULT_BYTES
    assert widget.view.messages == render.messages(run.step_input(14), run.options(recent_results=1))


def test_conversation_view_takes_options_and_bounds_the_steps_shown() -> None:
    """Options given are used; the steps-shown control bounds how many steps the HTML holds."""
    run = long_run(100)
    widget = ConversationView(run, options=run.options(recent_results=2), last_steps=5)
    assert widget.views.options.recent_results == 2 and widget.recent_results.value == 2
    assert "95 earlier steps" in widget.html.value
    widget.last_steps.value = 50
    assert "50 earlier steps" in widget.html.value


def test_decide_stepper_compares_only_a_steps_last_reply() -> None:
    """An earlier reply of a step (a retry) is explained, not compared: only the last became the recorded decision."""
    from dataclasses import replace

    from agentrender.runfile import ModelCall

    run = every_kind_run()
    (last,) = run.model_calls
    retry = ModelCall(step=last.step, response=ModelResponse(content=(), stop_reason="max_tokens"))
    stepper = DecideStepper(replace(run, model_calls=(retry, last)))
    assert [reply.compare for reply in stepper.replies] == [False, True]
    assert "recorded" not in stepper.html.value  # the retry, truncated, is not set against the record
    stepper.slider.value = 1
    assert "agrees with the decision the run recorded" in stepper.html.value


def test_decide_stepper_explains_each_captured_reply_against_the_record() -> None:
    """For a run, each model call's reply is decided, explained, and compared with the step's recorded decision."""
    run = every_kind_run()
    stepper = DecideStepper(run)
    assert stepper.label.value == "call 1 of 1, for step 1"
    assert stepper.explanation is not None
    assert stepper.explanation.decision == render.decide(run.model_calls[0].response)
    assert stepper.explanation.rule == "tool_call"
    assert "agrees with the decision the run recorded" in stepper.html.value
    assert "<details" in stepper.html.value and "thinking" in stepper.html.value  # thinking collapsed


def test_the_stepper_holds_a_prefilled_reply_against_its_decision_as_decide_does(tmp_path: Path) -> None:
    """A reply (" 42.") that went on from the prefill its request ended with ("The answer is") agrees with the decision
    its step recorded of the two together, in ``agentrender decide``'s words and with its note naming the prefill,
    where the stepper said the reason differs; edited to say " 43.", it differs again."""
    from agentrender import imports
    from agentrender.views import compare_recorded

    run = imports.load(prefilled_log(tmp_path / "calls.jsonl"))
    stepper = DecideStepper(run)
    stepper.slider.value = 1
    shown = html.unescape(stepper.html.value)
    assert "differs" not in shown
    assert (
        '<div class="ar-agree">agrees with the decision the run recorded, of the reply and its prefill</div>' in shown
    )
    assert "a prefill ('The answer is')" in shown and "('The answer is 42.')" in shown
    compared = compare_recorded(run.model_calls[1], run.steps[1].decision)
    assert compared.prefill == "The answer is" and compared.differs == ()
    assert f'<div class="ar-agree">{compared.said}</div><div class="ar-muted">{compared.prefill_said}</div>' in shown
    wire = json.loads(stepper.editor.value)
    wire["content"][0]["text"] = " 43."
    stepper.editor.value = json.dumps(wire)
    shown = html.unescape(stepper.html.value)
    assert "differs from the recorded decision in: reason" in shown and "prefill" not in shown


def test_editing_the_reply_changes_the_decision_and_bad_json_is_an_error_in_the_widget() -> None:
    """An edited reply is decided afresh; JSON that is not a reply shows an error, raises nothing; reset restores."""
    run = every_kind_run()
    stepper = DecideStepper(run)
    wire = json.loads(stepper.editor.value)
    wire["stop_reason"] = "max_tokens"
    stepper.editor.value = json.dumps(wire)
    assert stepper.explanation is not None and stepper.explanation.decision.kind == "truncated"
    assert stepper.explanation.rule == "truncated"
    assert "differs from the recorded decision in: kind, tool" in stepper.html.value
    stepper.editor.value = "{not json"
    assert stepper.explanation is None
    assert "the edited reply cannot be read" in stepper.error.value
    stepper.editor.value = json.dumps({"content": "nope", "stop_reason": "end_turn"})
    assert "reply.content: expected a list of blocks" in stepper.error.value
    stepper.reset_button.click()
    assert stepper.error.value == "" and stepper.explanation is not None
    assert stepper.explanation.decision == render.decide(run.model_calls[0].response)


def test_decide_stepper_says_an_imported_agent_ran_the_calls_the_contract_would_not() -> None:
    """A real Claude Code session (``tests/fixtures/real``): its third reply's WebSearch and Glob both ran. The
    stepper explains the contract's decision and says this agent ran the Glob; an edited reply keeps that fact."""
    from agentrender import imports
    from tests._support import real

    run = imports.load(real.REAL / "claude-code" / "marot-spotter" / "tool_heavy.jsonl")
    stepper = DecideStepper(run)
    assert stepper.explanation is not None and stepper.explanation.ran_anyway == ()
    stepper.next_button.click()
    stepper.next_button.click()
    assert stepper.explanation is not None and stepper.explanation.ran_anyway == ("Glob",)
    assert "this run&#x27;s agent ran them all the same" in stepper.html.value
    stepper.editor.value = stepper.editor.value.replace('"WebSearch"', '"Search"')  # observed: decides again
    assert stepper.explanation.tool_uses == ("Search", "Glob") and stepper.explanation.ran_anyway == ("Glob",)


def test_decide_stepper_steps_through_a_list_of_replies() -> None:
    """A list of replies (objects or Anthropic dicts) is stepped through, with no recorded decision to compare."""
    replies = [
        ModelResponse(content=(ContentBlock(type="text", text="no call"),), stop_reason="end_turn"),
        {
            "content": [
                {"type": "tool_use", "id": "a", "name": "read", "input": {}},
                {"type": "tool_use", "id": "b", "name": "write", "input": {}},
            ],
            "stop_reason": "tool_use",
        },
    ]
    stepper = DecideStepper(replies)
    assert stepper.explanation is not None and stepper.explanation.rule == "no_tool_use"
    assert "recorded" not in stepper.html.value
    stepper.next_button.click()
    assert stepper.label.value == "reply 2"
    assert stepper.explanation is not None and stepper.explanation.not_executed == ("write",)
    assert "not executed" in stepper.html.value
    empty = DecideStepper([])
    assert empty.label.value == "no model replies to step through" and empty.explanation is None


@pytest.mark.slow
def test_run_explorer_has_five_tabs_and_filters_the_steps() -> None:
    """The explorer's tabs are steps, conversation, decide, size and run; the filters narrow the table and its
    count."""
    run = every_kind_run()
    explorer = RunExplorer(run)
    titles = [explorer.tabs.get_title(i) for i in range(len(explorer.tabs.children))]
    assert titles == ["steps", "conversation", "decide", "size", "run"]
    assert explorer.count.value == "14 of 14 steps"
    explorer.kind_filter.value = "tool_call"
    assert (
        explorer.count.value
        == f"{sum(1 for s in run.steps if s.decision and s.decision.kind == 'tool_call')} of 14 steps"
    )
    explorer.kind_filter.value = "(all)"
    explorer.rendered_only.value = True
    assert explorer.count.value == "12 of 14 steps"
    explorer.text_filter.value = "AGAIN"
    assert explorer.count.value == "1 of 14 steps"
    assert "Again." in explorer.table.value
    explorer.text_filter.value = ""
    explorer.status_filter.value = "error"
    assert list(explorer.filtered()["index"]) == [1]


def test_run_explorer_marks_every_missing_value_alike() -> None:
    """A step with no decision shows <NA> in every decision column of the steps table, categories included."""
    explorer = RunExplorer(every_kind_run())
    table = explorer.table.value
    assert "<td>nan</td>" not in table
    assert "<td>&lt;NA&gt;</td>" in table


def test_run_explorer_table_leads_with_what_the_cli_shows_then_every_other_column() -> None:
    """The steps table's first columns are the CLI's (step, kind, tool, status, what the model saw, content and
    summary bytes, reason), and every other column of the steps frame follows in the frame's order."""
    from agentrender.frame import steps_frame

    run = every_kind_run()
    explorer = RunExplorer(run)
    headers = re.findall(r"<th>([^<]*)</th>", explorer.table.value)
    lead = ["index", "kind", "tool", "status", "shown_as", "content_bytes", "summary_bytes", "reason"]
    assert headers[: len(lead)] == lead
    rest = [name for name in steps_frame(run).columns if name not in lead]
    assert headers[len(lead) :] == rest
    frame = steps_frame(run).set_index("index")
    first_row = re.search(r"<tbody><tr[^>]*>(.*?)</tr>", explorer.table.value)
    assert first_row is not None
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", first_row.group(1))
    step = int(cells[0])
    assert cells[3] == str(frame.loc[step, "status"]) and cells[4] == str(frame.loc[step, "shown_as"])


def test_run_explorer_says_a_step_with_no_summary_has_none_as_the_cli_does() -> None:
    """A real Claude Code session's steps, which hold no summary, show ``<NA>`` (the table's mark of a missing value,
    where ``agentrender steps`` says "—") under summary_bytes, where each said 0 and read as a 0-byte summary; the
    frame keeps the run's 0, and a sample's summaries keep their bytes."""
    from agentrender import load, samples
    from tests._support.real import REAL

    def summaries(explorer: RunExplorer) -> list[str]:
        rows = re.findall(r"<tr[^>]*>(.*?)</tr>", explorer.table.value.split("<tbody>")[1], flags=re.S)
        return [re.findall(r"<td[^>]*>([^<]*)</td>", row)[6] for row in rows]

    explorer = RunExplorer(load(REAL / "claude-code" / "marot-spotter" / "tool_heavy.jsonl"))
    assert summaries(explorer) == ["&lt;NA&gt;"] * 4
    assert explorer.frame["summary_bytes"].tolist() == [0] * 4
    assert summaries(RunExplorer(samples.load("fix-failing-test")))[:3] == ["20", "18", "42"]


def test_run_explorer_says_what_the_model_saw_of_a_step_a_compaction_left_out_as_show_does() -> None:
    """A step before the compaction a real Claude Code session's last view restarts from is listed with what the model
    saw of it, "nothing: a compaction's summary stands for it", as ``agentrender show`` and the offline page list it,
    uncoloured, where the table said ``<NA>``, as it does of a skipped step; a step in the view keeps its kind."""
    from agentrender import load
    from agentrender.views import LEFT_OUT_TEXT
    from tests._support.real import REAL

    explorer = RunExplorer(load(REAL / "claude-code" / "marot-spotter" / "258c7280-ae70-4798-800f-63464d01a85d.jsonl"))
    first = explorer.views.at(None).first_step
    assert first == 102
    explorer.page = explorer.page_of(first)
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", explorer.table.value.split("<tbody>")[1], flags=re.S)
    cells = {int(found[0][1]): found[4] for row in rows if (found := re.findall(r"<td([^>]*)>([^<]*)</td>", row))}
    assert cells[first - 1] == ("", html.escape(LEFT_OUT_TEXT))
    assert cells[first] == (' class="ar-as_sent"', "as_sent")


def test_run_explorer_says_the_model_saw_nothing_of_the_reply_the_conversation_ended_on_as_show_does() -> None:
    """The last step of a real Claude Code session, whose reply nothing answered (the conversation ended on it), is
    listed as "nothing: the conversation ended", as ``agentrender steps`` lists it, where the table said ``<NA>``."""
    from agentrender import load
    from agentrender.views import ENDED_SAW
    from tests._support.real import REAL

    explorer = RunExplorer(load(REAL / "claude-code" / "marot-spotter" / "258c7280-ae70-4798-800f-63464d01a85d.jsonl"))
    explorer.page = explorer.pages - 1
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", explorer.table.value.split("<tbody>")[1], flags=re.S)
    cells = {int(found[0][1]): found[4] for row in rows if (found := re.findall(r"<td([^>]*)>([^<]*)</td>", row))}
    assert ENDED_SAW == "nothing: the conversation ended"
    assert cells[151] == ("", ENDED_SAW) and cells[150] == (' class="ar-as_sent"', "as_sent")


def test_run_explorer_says_a_step_with_no_decision_was_skipped_as_steps_does() -> None:
    """A step with no decision is listed as "skipped" under ``shown_as``, as ``agentrender steps`` lists it and in the
    colour a view marks a skipped step with, where the table said ``<NA>``; a step with a decision keeps its kind."""
    from agentrender.views import SKIPPED_SAW

    run = every_kind_run()
    explorer = RunExplorer(run)
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", explorer.table.value.split("<tbody>")[1], flags=re.S)
    cells = {int(found[0][1]): found[4] for row in rows if (found := re.findall(r"<td([^>]*)>([^<]*)</td>", row))}
    assert SKIPPED_SAW == "skipped"
    assert [step.index for step in run.steps if step.decision is None] == [5, 13]
    assert cells[5] == cells[13] == (' class="ar-skipped"', SKIPPED_SAW)
    assert cells[4] == (' class="ar-nudge_invalid"', "nudge_invalid")
    assert "&lt;NA&gt;" not in "".join(cell for _, cell in cells.values())


def test_run_explorer_lists_a_prefill_step_as_the_callers_text(tmp_path: Path) -> None:
    """The explorer's steps table names the kind of a request's closing prefill as the caller's prefill, never a
    decision's kind, and its prefill column says true."""
    from agentrender.imports import load
    from agentrender.views import PREFILL_SAID

    body = tmp_path / "request.json"
    asked = {"role": "user", "content": "Write a haiku about rain."}
    prefill = {"role": "assistant", "content": "Here is a haiku:"}
    body.write_text(json.dumps({"model": "claude-sonnet-4-5", "max_tokens": 256, "messages": [asked, prefill]}))
    table = RunExplorer(load(body)).table.value
    headers = re.findall(r"<th>([^<]*)</th>", table)
    row = re.search(r"<tbody><tr[^>]*>(.*?)</tr>", table)
    assert row is not None
    cells = [html.unescape(cell) for cell in re.findall(r"<td[^>]*>([^<]*)</td>", row.group(1))]
    assert cells[headers.index("kind")] == PREFILL_SAID and cells[headers.index("prefill")] == "True"
    assert ">no_tool_call<" not in table


def test_run_explorer_reasons_mark_the_callers_prefill_and_leave_off_the_note_on_tool_uses_its_agent_ran(
    tmp_path: Path,
) -> None:
    """The explorer's steps table says each reason as ``agentrender steps`` does: the caller's prefill marked apart
    from the model's reply (a call log whose request ended with a prefill; a prefill no reply answered), and of a
    real Claude Code session whose agent ran every tool use of a reply, no note that the others were not executed."""
    from agentrender.imports import load
    from agentrender.views import PREFILL_REASON, REPLY_REASON
    from tests._support.conversations import prefilled_log
    from tests._support.real import REAL

    def reasons(explorer: RunExplorer) -> dict[int, str]:
        table = explorer.table.value
        headers = re.findall(r"<th>([^<]*)</th>", table)
        rows = re.findall(r"<tr[^>]*>(.*?)</tr>", table.split("<tbody>")[1], flags=re.S)
        cells = [
            [html.unescape(re.sub("<[^>]*>", "", cell)) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row)]
            for row in rows
        ]
        return {int(row[0]): row[headers.index("reason")] for row in cells}

    said = reasons(RunExplorer(load(prefilled_log(tmp_path / "log.jsonl"))))
    assert said[1] == f"{PREFILL_REASON} The answer is {REPLY_REASON} 42." and said[0] == "Let me think."
    body = tmp_path / "request.json"
    asked = {"role": "user", "content": "Write a haiku about rain."}
    prefill = {"role": "assistant", "content": "Here is a haiku:"}
    body.write_text(json.dumps({"model": "claude-sonnet-4-5", "max_tokens": 256, "messages": [asked, prefill]}))
    assert reasons(RunExplorer(load(body)))[0] == f"{PREFILL_REASON} Here is a haiku:"
    session = REAL / "claude-code" / "DRMacIver-claude-reliability" / "coverage-test-fix" / "transcript.jsonl"
    run = load(session)
    assert run.steps[2].decision is not None and run.steps[2].decision.reason.endswith("not executed: Edit]")
    assert run.steps[1].decision is not None and run.steps[1].decision.reason.endswith("not executed: Read]")
    said = reasons(RunExplorer(run))
    assert said[1] == "" and said[2].startswith("I can see the structure.")
    assert "not executed" not in RunExplorer(run).table.value


def explorer_cells(explorer: RunExplorer, column: str) -> list[str]:
    """What the explorer's steps table shows in ``column`` of each row of its page, as text."""
    table = explorer.table.value
    headers = re.findall(r"<th>([^<]*)</th>", table)
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", table.split("<tbody>")[1], flags=re.S)
    cells = [
        [html.unescape(re.sub("<[^>]*>", "", cell)) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, flags=re.S)]
        for row in rows
    ]
    return [row[headers.index(column)] for row in cells]


def test_every_table_of_steps_says_each_reason_as_the_views_say_it(tmp_path: Path) -> None:
    """``agentrender steps``, the offline page's steps tab and the explorer's steps table say the reason of each step
    of a call log whose first reply called two tools in parallel, which the next request answered, and whose second
    request ended with a prefill, as ``Views.reasons_said`` says it: the contract's note that the second tool use was
    not executed left off the first, the caller's prefill marked apart from the reply in the second."""
    from agentrender import html as page
    from agentrender.imports import load
    from agentrender.views import PREFILL_REASON, REPLY_REASON, Views
    from tests._support.cli import run_cli
    from tests._support.conversations import parallel_then_prefilled_log

    run = load(parallel_then_prefilled_log(tmp_path / "log.jsonl"))
    said = Views(run).reasons_said()
    expected = ["Looking.", f"{PREFILL_REASON} The answer is {REPLY_REASON} 42."]
    assert said == dict(enumerate(expected))
    assert [step.decision.reason if step.decision else None for step in run.steps] == [
        "Looking. [1 further tool call(s) not executed: Grep]",
        "The answer is 42.",
    ]
    code, out, _ = run_cli("steps", str(run.path), "--width", "200", "--color", "never")
    rows = [line.rstrip() for line in out.splitlines() if re.match(r"\s*[0-9]+\s", line)]
    assert (
        code == 0
        and len(rows) == 2
        and all(row.endswith(f" {reason}") for row, reason in zip(rows, expected, strict=True))
    )
    facts = page.payload(run)
    assert [facts["texts"][number] for part in facts["rows"] for number in part["reason"]] == expected
    assert explorer_cells(RunExplorer(run), "reason") == expected


def test_a_followed_explorer_says_the_reasons_its_growth_changes(tmp_path: Path) -> None:
    """The explorer of a call log whose one reply called two tools in parallel keeps the contract's note that the
    second was not executed (nothing answered it yet); once the log grows by the call that answers both and ends with
    a prefill, its steps table leaves the note off that reply and marks the new step's prefill, as its views say."""
    from agentrender.imports.following import follower
    from agentrender.views import PREFILL_REASON, REPLY_REASON
    from tests._support.conversations import parallel_then_prefilled_log

    path = parallel_then_prefilled_log(tmp_path / "log.jsonl", calls=1)
    explorer = RunExplorer(path)
    tracker = follower(path)
    tracker.poll()
    assert explorer_cells(explorer, "reason") == ["Looking. [1 further tool call(s) not executed: Grep]"]
    assert explorer.views.reasons_said() == {}
    whole = parallel_then_prefilled_log(tmp_path / "whole.jsonl").read_text()
    path.write_text(whole)  # the first call's line as it was, and the second after it
    growth = tracker.poll()
    assert growth is not None
    explorer.conversation.take_in(growth)
    expected = ["Looking.", f"{PREFILL_REASON} The answer is {REPLY_REASON} 42."]
    assert explorer_cells(explorer, "reason") == expected
    assert explorer.views.reasons_said() == dict(enumerate(expected))


def test_each_table_of_steps_reads_the_runs_parallel_tool_uses_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``agentrender steps``, the offline page and the explorer each read a run's replies of parallel tool uses
    (``Run.parallel_tools``) once, for the tools its table names and the notes it leaves off their reasons alike, where
    each read them again for the notes (and the explorer for its filters and each page of its table)."""
    from agentrender import html as page
    from agentrender.imports import load
    from agentrender.runfile import Run
    from tests._support.cli import run_cli
    from tests._support.conversations import parallel_then_prefilled_log

    path = parallel_then_prefilled_log(tmp_path / "log.jsonl")
    read: list[int | None] = []
    parallel_tools = Run.parallel_tools

    def counted(run: Run, index: int | None = None) -> dict[int, tuple[str, ...]]:
        read.append(index)
        return parallel_tools(run, index)

    monkeypatch.setattr(Run, "parallel_tools", counted)
    run = load(path)
    for table in (lambda: run_cli("steps", str(path)), lambda: page.payload(run), lambda: RunExplorer(run)):
        read.clear()
        table()
        assert read == [None], table


def test_the_explorers_run_tab_names_the_callers_prefill(tmp_path: Path) -> None:
    """The explorer's run tab counts a request's closing prefill among the rendered steps and says it is the caller's,
    no decision of the model, as the offline page's run facts (and ``agentrender show``'s) say it, where it said every
    rendered step had a decision."""
    from agentrender import html as page
    from agentrender.imports import load

    run = load(json_file(tmp_path / "request.json", REPLIED_THEN_PREFILL))
    said = "3 (3 rendered, 0 without a decision; step 2 is the caller's prefill, no decision of the model)"
    facts = RunExplorer(run).facts.value
    assert f"<th>steps</th><td>{html.escape(said)}</td>" in facts
    texts = page.payload(run)["texts"]
    assert [texts[value] for name, value in page.payload(run)["header"] if texts[name] == "steps"] == [said]


def test_the_explorer_groups_its_runs_warnings_once_for_its_run_tab(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The explorer groups the warnings a run was read with once to list them in its run tab and count them in the
    tab's title, where it grouped them for each."""
    from agentrender import load_run
    from agentrender._display import said
    from agentrender.notebook import explorer
    from agentrender.views import html as views_html
    from tests._support.growing import header, line, step

    path = tmp_path / "run.jsonl"
    path.write_text("".join(map(line, [header(), step(0), {"type": "mystery"}, {"type": "riddle"}])))
    run = load_run(path)
    grouped: list[int] = []

    def counted(warnings: Any) -> list[said.WarningGroup]:
        grouped.append(len(warnings))
        return said.warning_groups(warnings)

    for module in (explorer, views_html):
        monkeypatch.setattr(module, "warning_groups", counted)
    made = RunExplorer(run)
    assert grouped == [2] and made.tabs.get_title(4) == "run (2 warnings)"
    assert "mystery" in made.facts.value and "riddle" in made.facts.value


def test_run_explorer_kind_filter_keeps_a_prefill_under_its_label_not_as_a_decision(tmp_path: Path) -> None:
    """The explorer's kind dropdown offers a request's closing prefill under the caller's prefill, and keeps it by
    that label alone: no_tool_call keeps the model's reply with no tool call, never the prefill; a run whose one
    step is a prefill offers no no_tool_call at all."""
    from agentrender.imports import load
    from agentrender.views import PREFILL_SAID

    body = json_file(tmp_path / "request.json", REPLIED_THEN_PREFILL)
    explorer = RunExplorer(load(body))
    assert [value for _label, value in explorer.kind_filter.options] == [
        "(all)",
        "no_tool_call",
        PREFILL_SAID,
        "tool_call",
    ]
    explorer.kind_filter.value = PREFILL_SAID
    assert list(explorer.filtered()["index"]) == [2] and explorer.count.value == "1 of 3 steps"
    explorer.kind_filter.value = "no_tool_call"
    assert list(explorer.filtered()["index"]) == [1] and explorer.count.value == "1 of 3 steps"
    json_file(body, {**REPLIED_THEN_PREFILL, "messages": REPLIED_THEN_PREFILL["messages"][-2:]})
    assert [value for _label, value in RunExplorer(load(body)).kind_filter.options] == ["(all)", PREFILL_SAID]


def test_the_conversation_slider_says_which_views_are_beside_a_prefill(tmp_path: Path) -> None:
    """The conversation's position label and its view's heading say, at each stop of a run ending on the caller's
    prefill, which view it is: deciding the model's steps, then before and after the prefill, which no model
    decided (never "deciding step 2" of the prefill, nor "after the last recorded step" of the request after it)."""
    from agentrender.imports import load

    conversation = ConversationView(load(json_file(tmp_path / "request.json", REPLIED_THEN_PREFILL)))
    before = "before step 2, the caller's prefill: no model decided it"
    after = "after step 2, the caller's prefill: the request the model was to go on from"
    expected = ["deciding step 0", "deciding step 1", before, f"{after} \u00b7 the conversation as it ended"]
    labels, headings = [], []
    for stop in range(4):
        conversation.slider.value = stop
        labels.append(conversation.position_label.value)
        headings.append(html.unescape(re.search(r"<b>view</b> ([^<]*)</span>", conversation.html.value)[1]))
    assert labels == expected
    assert headings == ["deciding step 0", "deciding step 1", before, after]


def test_run_explorer_colours_what_the_model_saw_as_the_view_colours_that_kind_of_block() -> None:
    """Each cell of what the model saw (a result in full, cut, a summary, a nudge, ...) carries the class the view's
    HTML gives a block of that kind, so it has the view's colour; a step with no decision is "skipped", in the colour
    the view marks a skipped step with."""

    from agentrender._display.values import STYLE
    from agentrender.frame import steps_frame

    run = every_kind_run()
    explorer = RunExplorer(run)
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", explorer.table.value.split("<tbody>")[1])
    shown = [re.findall(r"<td([^>]*)>([^<]*)</td>", row)[4] for row in rows]
    kinds = steps_frame(run)["shown_as"]
    kinds = kinds.astype(object).fillna("skipped")
    assert [said for _, said in shown] == [str(kind) for kind in kinds]
    assert {"result", "summary", "cut", "interrupted", "skipped"} <= set(kinds)
    for (attributes, _), kind in zip(shown, kinds, strict=True):
        assert attributes == f' class="ar-{kind}"'
        assert f".agentrender .ar-{kind} " in STYLE or f".agentrender .ar-{kind}," in STYLE
    view = "".join(html_values(explorer.conversation.widget))
    assert 'class="ar-block ar-result"' in view and 'class="ar-block ar-summary"' in view


def test_run_explorer_charts_the_size_series() -> None:
    """The size tab holds a chart of the views' sizes, an SVG in the stylesheet's colours (the theme's) below its
    legend in HTML, and the totals of the series."""
    explorer = RunExplorer(long_run(60))
    assert not explorer.chart.value, "the chart is drawn when its tab opens, not before"
    explorer.tabs.selected_index = 3
    totals, chart = html_values(explorer.tabs.children[3])
    legend, picture = chart.split('<div class="ar-chart ar-chart-scroll">')
    assert legend.endswith(
        '<div class="ar-legend ar-chart-legend"><span class="ar-swatch-full">\u2014 without the window (every result in'
        ' full)</span><span class="ar-swatch-window">\u2014 with the window (as rendered)</span><span class="ar-swatch'
        '-break">\u25bc cache prefix breaks (a result left the window)</span></div>'
    )
    assert picture.startswith("<svg ") and picture.endswith("</svg>\n</div></div>"), picture[-40:]
    colours = set(re.findall(r"(?:fill|stroke): ([^;\"]+)", picture))
    assert colours == {"none", "var(--ar-muted)", "var(--ar-border)", "var(--ar-chart-full)",
                       "var(--ar-chart-window)", "var(--ar-red)"}, colours  # fmt: skip
    assert "<style" not in picture and "*{" not in picture, "matplotlib's stylesheet would reach the whole notebook"
    assert len(explorer.series) == 61
    assert any(left is not None for left in explorer.series.left_window)
    series = explorer.series
    breaks = sum(left is not None for left in series.left_window)
    assert breaks > 1 and series.breaks == tuple(i for i, left in enumerate(series.left_window) if left is not None)
    assert f"<b>{len(series):,}</b> views" in totals and f"last view <b>{series.bytes[-1]:,}</b> bytes" in totals
    assert f"the cache prefix broke <b>{breaks:,}</b> times" in totals
    assert f"<b>{sum(series.resent_bytes):,}</b> of <b>{sum(series.bytes):,}</b> bytes sent" in totals


def test_the_size_chart_is_the_same_whatever_the_users_matplotlib_settings_say() -> None:
    """The size chart is drawn the same (its words' font and size, its lines, its layout) under a user's own
    matplotlib settings (a matplotlibrc, ``plt.style.use``) as under matplotlib's defaults, where it took their font
    and sizes, so notebook 04's chart, checked by nbval, is the same on every machine."""
    from matplotlib import rc_context

    from agentrender.notebook.explorer import size_chart_html

    series = RunExplorer(long_run(30)).series

    def drawn() -> str:  # ids are the chart's own, unique to each drawing
        return re.sub(r'(id="|url\(#|href="#)[\w-]+', r"\1ID", size_chart_html(series))

    plain = drawn()
    assert "DejaVu Sans" in plain
    users = {"font.family": "serif", "font.serif": ["Liberation Serif"], "font.size": 17.0, "lines.linewidth": 4.0,
             "axes.linewidth": 3.0, "xtick.major.size": 9.0, "figure.subplot.left": 0.3}  # fmt: skip
    with rc_context(users):
        assert drawn() == plain


def test_the_size_totals_name_a_compaction_as_the_other_instruments_do(tmp_path: Path) -> None:
    """The size tab's totals name a compaction by its trigger, ``compaction (auto)``, and one that recorded none
    ``compaction``, as ``show`` and the offline page do, where it said ``compaction (compaction)``."""
    from tests._support.compacted import compacted_run, compaction

    for trigger, said in (("auto", "compaction (auto) before step 3"), (None, "compaction before step 3")):
        (folder := tmp_path / str(trigger)).mkdir()
        explorer = RunExplorer(compacted_run(folder, 6, [compaction(3, trigger=trigger)]))
        explorer.tabs.selected_index = 3
        totals = html_values(explorer.tabs.children[3])[0]
        assert said in totals and "(compaction)" not in totals


def test_the_size_totals_say_one_view_in_the_singular() -> None:
    """The size tab of a run with no step yet (one view, the opening) says ``1 view``, where it said ``1 views``."""
    explorer = RunExplorer(long_run(0))
    explorer.tabs.selected_index = 3
    totals = html_values(explorer.tabs.children[3])[0]
    assert "<span><b>1</b> view</span>" in totals and "1</b> views" not in totals


def test_the_size_chart_of_a_long_run_marks_about_two_thousand_breaks() -> None:
    """A run whose cache prefix breaks at each of 10,000 views gets a chart with about 2,000 marks of a break, evenly
    over the run, so the picture stays light (the offline page's marks the same ones)."""
    from agentrender.notebook.explorer import size_chart_html
    from agentrender.views import CHART_MARKS, SizeSeries

    count = 10_000
    sizes = tuple(1000 + at % 37 * 300 for at in range(count))
    series = SizeSeries(
        at=tuple(range(count)), messages=(5,) * count, bytes=sizes, tokens=sizes, bytes_no_window=sizes,
        prefix_bytes=(0,) * count, resent_bytes=sizes, first_diff=(None,) + (1,) * (count - 1),
        left_window=(None,) + (0,) * (count - 1), compaction=(None,) * count,
    )  # fmt: skip
    assert len(series.breaks) == count - 1
    chart = size_chart_html(series)
    marks = re.findall(r'<use [^>]*style="fill: var\(--ar-red\)', chart)
    assert CHART_MARKS <= len(marks) <= CHART_MARKS + 1, len(marks)


def test_hostile_text_is_inert_in_every_widget() -> None:
    """Every HTML value of every widget, at every step, over a hostile run, is our markup only."""
    run = hostile_run()
    explorer = RunExplorer(run)
    for at in range(explorer.conversation.slider.max + 1):
        explorer.conversation.slider.value = at
        for value in html_values(explorer.widget):
            assert_inert(value)
    stepper = explorer.decide
    stepper.editor.value = stepper.editor.value.replace("tool_use", "<script>window.__pwned=9</script>")
    for value in html_values(stepper.widget):
        assert_inert(value)
    assert "<script>window.__pwned=9</script>" in stepper.editor.value  # a Textarea's value is text, never HTML


def test_tag_characters_and_lone_surrogates_are_shown_escaped_in_every_widget() -> None:
    """Tag characters and a lone surrogate in a run show as [U+XXXX] markers in every widget's HTML, never raw."""
    explorer = RunExplorer(hostile_run(UNSEEN))
    for at in range(explorer.conversation.slider.max + 1):
        explorer.conversation.slider.value = at
        for value in html_values(explorer.widget):
            assert not any(raw in value for raw in UNSEEN_RAW)
    parts = {"table": explorer.table, "conversation": explorer.conversation.widget, "decide": explorer.decide.widget}
    for name, widget in parts.items():
        for marker in UNSEEN_SHOWN:
            assert any(marker in value for value in html_values(widget)), (name, marker)


def test_widgets_display_as_their_ipywidgets() -> None:
    """Each widget's rich display is its ipywidgets box's display."""
    run = every_kind_run()
    for widget in (ConversationView(run), DecideStepper(run), RunExplorer(run)):
        bundle = widget._repr_mimebundle_()
        assert "application/vnd.jupyter.widget-view+json" in bundle
        assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == widget.widget.model_id


@pytest.mark.slow
def test_missing_ipywidgets_says_what_to_install() -> None:
    """Without ipywidgets, importing agentrender.notebook raises ImportError with the exact pip line."""
    code = (
        "import sys; sys.modules['ipywidgets'] = None\n"
        "try:\n    import agentrender.notebook\nexcept ImportError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=".")
    assert out.stdout.strip() == f"agentrender.notebook needs ipywidgets, which is not installed: {INSTALL}"
    assert INSTALL == "pip install 'agentrender[notebook]'"


@pytest.mark.slow
def test_the_explorer_works_on_every_bundled_sample() -> None:
    """Each sample run opens in the explorer; every step's view and every captured reply renders; each
    reply, read back from the run file and from the stepper's editor, agrees with the recorded decision."""
    from agentrender import samples

    for name in samples.names():
        run = samples.load(name)
        explorer = RunExplorer(run)
        conversation = explorer.conversation
        for position in range(conversation.slider.max + 1):
            conversation.slider.value = position
            assert conversation.view.messages == render.messages(run.step_input(conversation.at), run.options())
        stepper = explorer.decide
        agreed = 0
        for position in range(len(stepper.replies)):
            stepper.slider.value = position
            assert stepper.explanation is not None, (name, position)
            agreed += "agrees with the decision the run recorded" in stepper.html.value
        assert agreed == len(stepper.replies), name
        assert explorer.count.value == f"{len(run.steps)} of {len(run.steps)} steps"


def test_conversation_view_refuses_options_beside_views() -> None:
    """Given Views, the widget uses their options; options given beside them are refused, not ignored."""
    from agentrender.views import Views

    run = every_kind_run()
    views = Views(run, max_output_tokens=4096)
    assert ConversationView(views).views is views
    with pytest.raises(ValueError, match="Views carry their options"):
        ConversationView(views, options=run.options())


def test_steps_without_a_decision_filter_as_none() -> None:
    """A step with no decision has no kind: the kind filter offers '(none)' for it and keeps exactly those steps."""
    run = every_kind_run()
    explorer = RunExplorer(run)
    offered = [value for _label, value in explorer.kind_filter.options]
    assert "(none)" in offered and "nan" not in offered
    explorer.kind_filter.value = "(none)"
    assert list(explorer.filtered()["index"]) == [s.index for s in run.steps if s.decision is None]


def table_steps(explorer: RunExplorer) -> tuple[list[int], int | None]:
    """The steps of the rows the explorer's table shows, in order, and the highlighted one."""
    rows = re.findall(r"<tr( class=\"ar-current\")?><td>(\d+)</td>", explorer.table.value)
    marked = [int(step) for current, step in rows if current]
    assert len(marked) <= 1
    return [int(step) for _, step in rows], marked[0] if marked else None


def test_the_steps_table_shows_a_page_and_its_buttons_reach_every_row() -> None:
    """The table shows PAGE_ROWS rows and says which; first/previous/next/last move through every row once,
    and the buttons that lead nowhere are disabled."""
    from agentrender.notebook.explorer import PAGE_ROWS

    n = 3 * PAGE_ROWS + 7
    explorer = RunExplorer(long_run(n))
    assert explorer.count.value == f"{n:,} of {n:,} steps"
    assert table_steps(explorer) == (list(range(PAGE_ROWS)), None)
    assert explorer.rows_label.value == f"rows 1-{PAGE_ROWS} of {n}"
    assert explorer.first_button.disabled and explorer.previous_page_button.disabled
    assert not explorer.next_page_button.disabled and not explorer.last_button.disabled
    seen = table_steps(explorer)[0]
    for _ in range(5):  # past the end, the last page holds
        explorer.next_page_button.click()
        if table_steps(explorer)[0][-1] != seen[-1]:
            seen += table_steps(explorer)[0]
    assert seen == list(range(n))
    assert explorer.rows_label.value == f"rows {3 * PAGE_ROWS + 1}-{n} of {n}"
    assert explorer.next_page_button.disabled and explorer.last_button.disabled
    explorer.previous_page_button.click()
    assert table_steps(explorer)[0] == list(range(2 * PAGE_ROWS, 3 * PAGE_ROWS))
    explorer.first_button.click()
    assert explorer.page == 0 and table_steps(explorer)[0][0] == 0
    explorer.last_button.click()
    assert explorer.page == 3 and table_steps(explorer)[0] == list(range(3 * PAGE_ROWS, n))


def test_a_page_shows_the_rows_of_the_whole_table() -> None:
    """A page built alone (before the whole table) is the same HTML as that page cut from the whole table."""
    run = long_run(130)
    alone = RunExplorer(run, page_rows=40)
    alone.page = 2
    whole = RunExplorer(run, page_rows=40)
    assert len(whole.frame) == 130  # the whole table, built first
    whole.page = 2
    assert table_steps(alone)[0] == list(range(80, 120))
    assert alone.table.value == whole.table.value


def test_moving_the_slider_moves_the_table_to_that_steps_page_and_highlights_its_row() -> None:
    """After the slider moves to step k the table shows the page holding k with k's row highlighted; after the
    last step no row is; with another tab open, the steps tab shows the page once it is opened again."""
    explorer = RunExplorer(long_run(157), page_rows=50)
    conversation = explorer.conversation
    conversation.at = 123
    assert explorer.page == 2 and explorer.rows_label.value == "rows 101-150 of 157"
    steps, marked = table_steps(explorer)
    assert marked == 123 and 123 in steps
    conversation.at = 124
    assert table_steps(explorer)[1] == 124
    conversation.slider.value = conversation.slider.max  # after the last step: no row is that step
    assert explorer.page == 3 and table_steps(explorer)[1] is None
    explorer.tabs.selected_index = 1  # the conversation tab, as a user moving the slider has open
    conversation.at = 7
    assert explorer.page == 0 and explorer.rows_label.value == "rows 1-50 of 157"
    explorer.tabs.selected_index = 0
    assert table_steps(explorer) == (list(range(50)), 7)


def test_the_filters_page_the_rows_they_keep() -> None:
    """A filter counts every row it keeps and pages them; the slider finds a step among them, or the page where
    it would be; a filter that keeps nothing shows the header alone."""
    run = long_run(157)  # every seventh step skipped
    explorer = RunExplorer(run, page_rows=50)
    explorer.rendered_only.value = True
    rendered = [step.index for step in run.steps if step.decision is not None]
    assert explorer.count.value == f"{len(rendered)} of 157 steps"
    assert explorer.rows_label.value == f"rows 1-50 of {len(rendered)}"
    assert table_steps(explorer)[0] == rendered[:50]
    explorer.conversation.at = 120
    assert table_steps(explorer) == (rendered[100:135], 120)
    explorer.conversation.at = 13  # skipped: not among the rows kept
    assert table_steps(explorer) == (rendered[:50], None)
    explorer.text_filter.value = "no reason has this"
    assert explorer.count.value == "0 of 157 steps" and explorer.rows_label.value == "no rows"
    assert table_steps(explorer)[0] == [] and "<th>index</th>" in explorer.table.value
    assert explorer.next_page_button.disabled and explorer.previous_page_button.disabled


def test_the_filters_offer_every_value_of_their_columns() -> None:
    """Each filter's dropdown offers (all) and every label its column of the whole table holds, sorted."""
    for run in (every_kind_run(), hostile_run(), long_run(30)):
        explorer = RunExplorer(run)
        for name, control in (
            ("kind", explorer.kind_filter),
            ("status", explorer.status_filter),
            ("tool", explorer.tool_filter),
        ):
            labels = set(explorer.frame[name].astype("string[python]").fillna("(none)"))
            assert [value for _label, value in control.options] == ["(all)", *sorted(labels)], name


def test_a_long_runs_view_counts_what_reads_every_step_on_demand() -> None:
    """Past COUNTED_STEPS steps the header leaves out the bytes, replay key and change until the count box is
    ticked, then shows exactly the counted header; a shorter run counts them from the start."""
    from agentrender.notebook.conversation import COUNTED_STEPS

    short = ConversationView(long_run(50))
    assert short.count.value and 'class="ar-key"' in short.html.value
    widget = ConversationView(long_run(COUNTED_STEPS + 1))
    assert not widget.count.value
    view = widget.view
    assert f"<b>{len(view.messages):,}</b> messages" in widget.html.value
    assert 'class="ar-key"' not in widget.html.value and "</b> bytes" not in widget.html.value
    assert "counted on demand" in widget.html.value
    widget.count.value = True
    assert widget.html.value == view_html(widget.view, last_steps=40)
    assert f"<b>{widget.view.bytes:,}</b> bytes" in widget.html.value
    widget.at = 1000
    assert widget.html.value == view_html(widget.views.at(1000), last_steps=40)


def test_the_explorer_saves_its_page_with_the_window_it_shows(tmp_path: Path) -> None:
    """``save_html`` writes the page ``agentrender.html`` makes of the run under the conversation tab's window."""
    from agentrender import html

    run = every_kind_run()
    explorer = RunExplorer(run)
    explorer.conversation.recent_results.value = 2
    explorer.save_html(tmp_path / "run.html")
    assert (tmp_path / "run.html").read_text("utf-8") == html.page(run, run.options(recent_results=2))


def test_the_explorer_saves_its_page_at_the_step_it_shows(tmp_path: Path) -> None:
    """``save_html`` of an explorer moved to step 3 writes the page that opens at step 3 (``html.page(..., at=3)``),
    not after the last step. Before, the page opened after the last step whatever the explorer showed."""
    from agentrender import html, samples

    run = samples.load("fix-failing-test")
    explorer = RunExplorer(run)
    explorer.conversation.at = 3
    explorer.save_html(tmp_path / "run.html")
    saved = (tmp_path / "run.html").read_text("utf-8")
    assert saved == html.page(run, run.options(), at=3) and saved != html.page(run, run.options())


PARALLEL = Path(__file__).parent / "fixtures" / "real" / "claude-code" / "marot-spotter" / "tool_heavy.jsonl"
"""A real Claude Code session whose steps 2 and 3 each made two tool uses at once: WebSearch and Glob, Read and
WebFetch."""


@pytest.mark.skipif(not PARALLEL.is_file(), reason="the real fixtures are not in this checkout")
def test_the_explorer_tool_filter_keeps_a_reply_of_parallel_calls_for_any_of_them() -> None:
    """The explorer's tool filter offers the tools a reply called in parallel and keeps its step for any of them, as
    ``steps --tool`` and the page do: before, Glob and WebFetch were not offered, and no filter found steps 2 and 3 by
    them."""
    from agentrender.imports import load

    explorer = RunExplorer(load(PARALLEL))
    offered = [value for _, value in explorer.tool_filter.options]
    assert {"Glob", "WebFetch"} <= set(offered), offered
    for tool, index in (("Glob", 2), ("WebFetch", 3), ("WebSearch", 2), ("Read", 3)):
        explorer.tool_filter.value = tool
        assert list(explorer.filtered()["index"]) == [index], tool
        assert explorer.matched == 1, tool


def test_the_explorer_lists_the_warnings_the_run_was_read_with_as_the_cli_and_the_page_do() -> None:
    """An imported run's warnings (here a real Claude Code session's: messages the user queued, which its views lack)
    are listed once in the explorer's run tab, named with their count, each said as ``agentrender show`` says it; a
    run without any has the tab all the same, named "run"."""
    from agentrender import load
    from agentrender._display.said import warning_groups
    from tests._support.real import REAL

    run = load(REAL / "claude-code" / "marot-spotter" / "258c7280-ae70-4798-800f-63464d01a85d.jsonl")
    groups = warning_groups(run.warnings)
    explorer = RunExplorer(run)
    tabs = ["steps", "conversation", "decide", "size"]
    titles = [explorer.tabs.get_title(i) for i in range(len(explorer.tabs.children))]
    assert titles == [*tabs, f"run ({len(groups)} warnings)"]
    listed = re.findall(r"<li>(.*?)</li>", "".join(html_values(explorer.tabs.children[4])), flags=re.S)
    assert [str(group) for group in groups] == [html.unescape(item) for item in listed]
    assert any("the views from then on lack it" in str(group) for group in groups)
    bare = RunExplorer(every_kind_run())
    assert [bare.tabs.get_title(i) for i in range(len(bare.tabs.children))] == [*tabs, "run"]


def test_the_explorers_run_tab_says_the_runs_facts_as_show_prints_them_first() -> None:
    """The explorer's run tab of a real Claude Code session says what ``agentrender show`` prints above its view: the
    file, the run's goal, model and how it ended, and where in its source it came from."""
    from agentrender import load
    from agentrender._display.said import end_said, shown_path, source_said
    from tests._support.real import REAL

    path = REAL / "claude-code" / "marot-spotter" / "tool_heavy.jsonl"
    run = load(path)
    explorer = RunExplorer(path)
    facts = {
        html.unescape(name): html.unescape(re.sub(r"<[^>]+>", "", value))
        for name, value in re.findall(r"<tr><th>(.*?)</th><td>(.*?)</td></tr>", explorer.tabs.children[4].value, re.S)
    }
    assert facts["file"] == shown_path(str(path)) and facts["model"] == run.model and facts["goal"] == run.goal
    assert facts["end"] == end_said(run.end, run.header)[0] and facts["from"] == source_said(run)
    assert facts["steps"].startswith("4 (")


def test_a_conversation_view_alone_says_under_its_controls_how_many_warnings_the_run_was_read_with() -> None:
    """``ConversationView`` of a file read with warnings (a real Claude Code session's: its views lack the messages
    the user queued) says under its controls how many and where to see them; inside the explorer, which lists them in
    a tab, and for a run read without any, it says nothing."""
    import ipywidgets

    from agentrender import load
    from agentrender._display.said import warning_groups
    from tests._support.real import REAL

    path = REAL / "claude-code" / "marot-spotter" / "258c7280-ae70-4798-800f-63464d01a85d.jsonl"
    count = len(warning_groups(load(path).warnings))

    def notes(widget: object) -> list[str]:
        """The text of every label a widget tree shows (one hidden by its layout left out)."""
        found, stack = [], [widget]
        while stack:
            node = stack.pop()
            if getattr(getattr(node, "layout", None), "display", None) == "none":
                continue
            if isinstance(node, ipywidgets.Label) and node.value.startswith("read with"):
                found.append(node.value)
            stack.extend(getattr(node, "children", ()))
        return found

    alone = ConversationView(path)
    assert notes(alone.widget) == [
        f"read with {count} warnings: RunExplorer(run) lists them in its run tab, as agentrender show prints "
        "them; run.warnings holds each"
    ]
    controls, note = alone.widget.children[1], alone.widget.children[2]
    assert notes(note) and not notes(controls)  # the line right under the controls
    assert notes(RunExplorer(path).widget) == []
    assert notes(ConversationView(every_kind_run()).widget) == []


SUB_AGENTS = (
    Path(__file__).parent / "fixtures" / "real" / "claude-code" / "jessitron-claude-log"
    / "ff80b049-3eff-495f-b4f0-c4071d615994.jsonl"
)  # fmt: skip
"""A real Claude Code session whose step 2 started a sub-agent, its transcript beside the session's."""


def test_an_explorer_of_a_path_saves_the_runs_linked_to_its_run_on_its_page(tmp_path: Path) -> None:
    """``save_html`` of an explorer made from a session's path writes the page ``agentrender html`` writes: the
    session with its sub-agent's run on it (``html.page(run, beside=runs)``), not a page whose link says the
    sub-agent is "not on this page". Before, it wrote the session alone."""
    from agentrender import html, imports

    runs = imports.load_runs(SUB_AGENTS)
    explorer = RunExplorer(SUB_AGENTS)
    explorer.save_html(tmp_path / "session.html")
    saved = (tmp_path / "session.html").read_text("utf-8")
    assert saved == html.page(explorer.run, explorer.run.options(), beside=runs)
    assert 'id="ar-s1-payload"' in saved and saved != html.page(explorer.run, explorer.run.options())


def test_an_explorer_of_a_run_saves_the_runs_given_beside_it(tmp_path: Path) -> None:
    """An explorer made from a sub-agent's ``Run`` writes its page alone (it holds no other run), and with
    ``save_html(path, beside=runs)`` the session that started it is on the page, as ``html.save`` puts it."""
    from agentrender import html, imports

    runs = imports.load_runs(SUB_AGENTS)
    explorer = RunExplorer(runs[1])
    explorer.save_html(tmp_path / "alone.html")
    assert (tmp_path / "alone.html").read_text("utf-8") == html.page(runs[1], runs[1].options())
    explorer.save_html(tmp_path / "agent.html", beside=runs)
    saved = (tmp_path / "agent.html").read_text("utf-8")
    assert saved == html.page(runs[1], runs[1].options(), beside=runs) and 'id="ar-s1-payload"' in saved


def test_the_explorers_run_tab_says_the_runs_links_as_show_does() -> None:
    """The explorer's run tab lists a sub-agent's parent and a session's started runs among the run's facts, in the
    words ``agentrender show`` prints (``run_facts_said``). Before, it said nothing of them."""
    from agentrender import imports
    from agentrender._display.said import run_facts_said

    session, agent = imports.load_runs(SUB_AGENTS)
    for run, name in ((session, "started"), (agent, "parent")):
        said = dict(run_facts_said(run))[name]
        value = html.unescape(RunExplorer(run).facts.value)
        assert f">{name}<" in value and said in value


def test_the_explorers_reason_bytes_are_those_of_the_reason_it_shows() -> None:
    """The explorer's steps table gives a reason it says otherwise than the run holds it (the contract's note on tool
    uses its agent ran left off) the bytes of what it shows: a reply whose reason was only that note is an empty
    reason of 0 bytes, not of the note's; a reason it shows as held keeps steps_frame's bytes."""
    import pandas as pd

    from agentrender.frame import steps_frame
    from agentrender.imports import load
    from agentrender.views import Views, utf8_bytes
    from tests._support.real import REAL

    run = load(REAL / "claude-code" / "DRMacIver-claude-reliability" / "coverage-test-fix" / "transcript.jsonl")
    explorer = RunExplorer(run)
    reasons, sizes = explorer_cells(explorer, "reason"), explorer_cells(explorer, "reason_bytes")
    said = Views(run).reasons_said()
    held = steps_frame(run).reason_bytes.tolist()
    assert said[1] == "" and reasons[1] == "" and sizes[1] == "0" and held[1] > 0
    assert sizes[2] == f"{utf8_bytes(said[2]):,}" != f"{held[2]:,}"
    assert all(sizes[at] == f"{held[at]:,}" for at in range(len(sizes)) if at not in said and pd.notna(held[at]))
