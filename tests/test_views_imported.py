"""Which of an imported run's two views a view is (as sent, or under the contract), said once by Views and shown
by the HTML, the run's own HTML and the notebook widgets; the driver's runs say nothing of it."""

from __future__ import annotations

import dataclasses
import html
import json
import re
from pathlib import Path
from typing import Any

import pytest

from agentrender import ContentBlock, load_run, render, samples, write_run
from agentrender.imports import first_line_summary, from_anthropic, load, with_summaries
from agentrender.runfile import model, read_records
from agentrender.views import PREFILL_SAID, Views
from agentrender.views.html import view_html
from tests._support import real
from tests._support.conversations import WEATHER


def test_views_name_the_view_as_sent_or_under_the_contract() -> None:
    """An import's own options are 'as sent'; a window or cap given makes it 'under the contract (window N, cap M
    bytes)'; describe_mode adds the summariser, or says results outside the window show (no summary)."""
    run = from_anthropic(WEATHER)
    assert Views(run).mode == Views(run).describe_mode() == "as sent"
    under = Views(run, run.options(recent_results=1, result_bytes=2048))
    assert under.mode == "under the contract (window 1, cap 2,048 bytes)"
    assert under.describe_mode().endswith("no summariser: a result outside the window shows '(no summary)'")
    summarised = Views(with_summaries(run, first_line_summary), run.options(recent_results=1))
    assert summarised.summariser == "first_line_summary"
    assert summarised.describe_mode() == (
        "under the contract (window 1, cap 16,384 bytes); results summarised by first_line_summary"
    )


def test_with_summaries_gives_what_summarising_on_import_gives() -> None:
    """Summaries given after the import render the what-if exactly as summaries given by the importer."""
    window = {"recent_results": 0, "result_bytes": 30}
    after = with_summaries(from_anthropic(WEATHER), first_line_summary)
    during = from_anthropic(WEATHER, summarise=first_line_summary)
    assert list(after.records) == list(during.records)
    assert render.messages(after.step_input(), after.options(**window)) == render.messages(
        during.step_input(), during.options(**window)
    )
    sample = samples.load("fix-failing-test")
    assert with_summaries(sample, first_line_summary) is sample  # its tools' own summaries stay


def test_with_summaries_keeps_each_calls_line_in_the_log() -> None:
    """A call log's run given summaries after the import keeps each model call at its line of the log, as summaries
    given by the importer do: not at the place of its record among the run's."""
    path = Path(__file__).parent.parent / "sample_imports" / "stock-lookup.calls.jsonl"
    after = with_summaries(from_anthropic(path), first_line_summary)
    during = from_anthropic(path, summarise=first_line_summary)
    assert [call.line for call in after.model_calls] == [call.line for call in during.model_calls] == [1, 2, 3, 4]


@pytest.mark.parametrize("name", samples.names())
def test_the_driver_runs_name_no_mode(name: str) -> None:
    """A sample run (recorded by this package's driver) has one view, the contract's: no mode, no mode in its HTML."""
    views = Views(samples.load(name))
    assert views.mode == views.describe_mode() == views.summariser == ""
    assert "ar-mode" not in view_html(views.at(None))


def test_the_html_header_and_the_runs_html_say_which_view() -> None:
    """The view's HTML header, and the run's own HTML, name the view as sent, or under the contract."""
    run = from_anthropic(WEATHER)
    assert '<span class="ar-mode"' in view_html(Views(run).at(None)) and "<b>as sent</b>" in run._repr_html_()
    under = view_html(Views(run, run.options(recent_results=2)).at(1))
    assert "under the contract (window 2, cap 16,384 bytes)" in under


def test_a_hostile_summariser_name_is_escaped() -> None:
    """The summariser's name comes from the file: it reaches the page escaped, never as markup."""
    run = from_anthropic(WEATHER)
    header = {**run.records[0], "summariser": "<script>alert(1)</script>"}
    hostile = read_records([header, *run.records[1:]])
    page = view_html(Views(hostile, hostile.options(recent_results=1)).at(None))
    assert "<script>" not in page and "&lt;script&gt;" in page


def test_the_conversation_widget_switches_between_the_two_views() -> None:
    """The widget on an import starts as sent with the window settings off; unticking 'as sent' shows the run
    under the contract with the window settings, exactly as the run's options with them render it."""
    pytest.importorskip("ipywidgets")
    from agentrender.notebook import ConversationView, RunExplorer

    run = from_anthropic(WEATHER)
    widget = ConversationView(run)
    assert widget.as_sent.value and widget.recent_results.disabled and "<b>as sent</b>" in widget.html.value
    assert (widget.recent_results.value, widget.result_bytes.value) == (render.RECENT_RESULTS, render.RESULT_BYTES)
    widget.as_sent.value = False
    widget.recent_results.value = 1
    widget.result_bytes.value = 12
    assert not widget.recent_results.disabled
    want = render.messages(run.step_input(), run.options(recent_results=1, result_bytes=12))
    assert widget.view.messages == want
    assert "under the contract (window 1, cap 12 bytes)" in widget.html.value
    widget.as_sent.value = True
    assert widget.view.messages == render.messages(run.step_input(), run.options())
    assert "as sent" in RunExplorer(run)._totals_html()
    sample = ConversationView(samples.load("fix-failing-test"))
    assert sample.as_sent.layout.display == "none" and "ar-mode" not in sample.html.value


def test_an_imports_replayed_turns_are_labelled_as_sent_not_hooks_blocks() -> None:
    """The blocks an import replays as its agent sent them are 'as sent' blocks in the facts and the HTML, in the
    view as sent and under the contract; a consumer's own hook still builds 'hook's block' blocks."""
    run = from_anthropic(WEATHER)
    for options in (run.options(), run.options(recent_results=1)):
        view = Views(run, options).at(len(run.steps) - 1)
        kinds = {block.kind for fact in view.steps if fact.rendered for block in fact.assistant.blocks}
        assert kinds == {"as_sent"}
        page = view_html(view)
        tags = set(re.findall(r'<span class="ar-tag">([^<]*)</span>', page))
        assert "as sent" in tags and not {"hook's block", "hook&#x27;s block"} & tags
    own = render.Options(opening="go", assistant=lambda step, tool_use_id: (ContentBlock(type="text", text="mine"),))
    facts = Views(run.step_input(), own).at(None).steps
    assert {block.kind for fact in facts if fact.rendered for block in fact.assistant.blocks} == {"hook"}


class _OnlyLookedUp(dict[int, dict[str, object]]):
    """Step records that may be looked up one at a time, never walked: walking them is a pass over every step."""

    def items(self):  # type: ignore[no-untyped-def, override]
        raise AssertionError("walked every step record")

    def values(self):  # type: ignore[no-untyped-def, override]
        raise AssertionError("walked every step record")


def test_the_as_sent_hooks_look_up_a_steps_record_only_when_asked() -> None:
    """``Run.options`` of an imported run makes its hooks without a pass over every step (a run that grows makes them
    again at each growth: the pass made one new turn of a 10,000-turn session cost eight times one of 100), and
    its views are the same as with the records as they are."""
    run = load(samples.imports_folder() / "python-to-rust-port.claude-code.jsonl")
    assert len(run.steps) > 5
    looked_up = dataclasses.replace(run, step_records=_OnlyLookedUp(run.step_records))
    options = looked_up.options()
    assert looked_up.is_as_sent(options)
    assert render.messages(looked_up.step_input(), options) == render.messages(run.step_input(), run.options())


def test_the_as_sent_hooks_of_a_loaded_run_read_each_steps_sent_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A loaded imported run holds its step records as structs; its hooks read a step's ``sent`` alone
    (``Run.step_field``), never making its whole record (the decision, the result) into a dict."""
    run = load(samples.imports_folder() / "python-to-rust-port.claude-code.jsonl")
    write_run(run, tmp_path / "run.jsonl")
    loaded = load_run(tmp_path / "run.jsonl")
    expected, last_view = render.messages(run.step_input(), run.options()), Views(run).at(None).messages
    made: list[Any] = []
    whole = model.as_record
    monkeypatch.setattr(model, "as_record", lambda record: made.append(record) or whole(record))
    assert render.messages(loaded.step_input(), loaded.options()) == expected
    assert Views(loaded).at(None).messages == last_view
    assert made == []


IMAGE_RESULT = real.REAL / "claude-code" / "jnarowski-agentcmd" / "full-session-two.jsonl"
"""A real Claude Code 2.0.26 session whose step 1 (a Read of a PNG screenshot) was answered by a user turn of one
result holding an image block and no text (``tests/fixtures/real``)."""

PNG = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}


def image_result_run(after: list[dict[str, Any]]) -> Any:
    """A run whose step 0's call was answered by a result holding an image and no text, then ``after`` in its turn."""
    use = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "shot.png"}}
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": [PNG]}
    return from_anthropic(
        [
            {"role": "user", "content": "Look at the screenshot."},
            {"role": "assistant", "content": [use]},
            {"role": "user", "content": [result, *after]},
            {"role": "assistant", "content": [{"type": "text", "text": "I see it."}]},
        ]
    )


def results_at(run: Any, step: int, recent: int) -> list[dict[str, Any]]:
    """The tool results of the view at ``step`` under the contract with a window of ``recent`` results."""
    messages = Views(run, run.options(recent_results=recent)).at(step).messages
    return [block.to_dict() for message in messages for block in message.content if block.type == "tool_result"]


@pytest.mark.parametrize("after", [[], [{"type": "text", "text": "[Request interrupted by user]"}]])
def test_under_the_contract_a_result_in_the_window_keeps_the_image_it_was_sent(after: list[dict[str, Any]]) -> None:
    """Under the contract, a result in the window is the result its tool gave: one holding an image keeps it (it was
    the text of its text blocks, empty, the image gone); out of the window it is its summary, as any result is. The
    result alone in its turn (the contract's own shape) or before another block."""
    run = image_result_run(after)
    sent = run.step_records[0]["sent"]["user"][0]
    assert results_at(run, 1, recent=1) == [sent]
    summary = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "(no summary)"}
    assert results_at(run, 1, recent=0) == [summary]


@pytest.mark.skipif(not IMAGE_RESULT.is_file(), reason="tests/fixtures/real is not in this checkout")
def test_under_the_contract_a_real_sessions_image_result_keeps_its_image_in_the_window() -> None:
    """The real session's screenshot result, in the window of the view at step 3, is the block Claude Code sent."""
    run = load(IMAGE_RESULT)
    sent = run.step_records[1]["sent"]["user"]
    assert [part["type"] for part in sent[0]["content"]] == ["image"]
    assert sent[0] in results_at(run, 3, recent=5)


def test_the_view_html_titles_a_prefill_turn_as_the_callers_text(tmp_path: Path) -> None:
    """The notebook HTML labels the turn of a request's closing prefill as the caller's prefill, after its step."""
    body = tmp_path / "request.json"
    asked = {"role": "user", "content": "Write a haiku about rain."}
    prefill = {"role": "assistant", "content": "Here is a haiku:"}
    body.write_text(json.dumps({"model": "claude-sonnet-4-5", "max_tokens": 256, "messages": [asked, prefill]}))
    shown = view_html(Views(load(body)).at())
    assert re.search(rf"assistant · step 0 · {re.escape(PREFILL_SAID)} · [0-9]+ bytes", html.unescape(shown))
