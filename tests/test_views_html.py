"""The stdlib HTML of views, runs, decisions and replies: hostile text never becomes markup, huge text is capped."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from agentrender import Decision, Observation, Step, render
from agentrender._display.values import DISPLAY_CHARS, SHOWN_STEPS, STYLE, decision_html, messages_html, table_html
from agentrender.runfile import ModelCall, Run
from agentrender.views import BLOCK_KINDS, Views, explain_decide
from agentrender.views.html import explanation_html, legend_html, view_html
from tests._support.markup import assert_inert
from tests._support.runs import (
    SHOWN_KINDS,
    UNSEEN,
    UNSEEN_RAW,
    UNSEEN_SHOWN,
    every_kind_run,
    every_kind_view,
    hostile_run,
)


def test_hostile_text_never_becomes_markup_in_any_view() -> None:
    """Every view of a run full of hostile text, under several windows, parses to our markup only."""
    run = hostile_run()
    for options in (run.options(), run.options(recent_results=0), run.options(result_bytes=20)):
        views = Views(run, options)
        for at in [*views.stops, None]:
            parser = assert_inert(views.at(at)._repr_html_())
            shown = "".join(parser.text)
            assert "window.__pwned" in shown  # shown as text, not dropped


def test_hostile_text_is_inert_in_runs_decisions_messages_and_replies() -> None:
    """Run, Decision, a list of Messages and a reply's explanation escape everything they show."""
    run = hostile_run()
    assert "window.__pwned" in "".join(assert_inert(run._repr_html_()).text)
    assert_inert(run.steps[0].decision._repr_html_())  # type: ignore[union-attr]
    assert_inert(render.messages(run.step_input(None), run.options())._repr_html_())  # type: ignore[attr-defined]
    call = run.model_calls[0]
    explanation = explain_decide(call.response)
    for recorded in (None, run.steps[0].decision, explanation.decision):
        assert_inert(explanation_html(explanation, recorded, compare=True))


def test_tag_characters_and_lone_surrogates_are_shown_escaped_in_every_html_output() -> None:
    """A run whose goal, tool names, reasons, results and replies hold tag characters and a lone surrogate
    shows them as [U+XXXX] markers in the HTML of its views, itself, its decisions, its messages and replies."""
    run = hostile_run(UNSEEN)
    views = Views(run)
    explanation = explain_decide(run.model_calls[0].response)
    fragments = {
        "run": run._repr_html_(),
        **{f"view at {at}": views.at(at)._repr_html_() for at in [*views.stops, None]},
        "view_html": view_html(views.at(None), last_steps=2),
        **{f"decision {step.index}": step.decision._repr_html_() for step in run.steps if step.decision},
        "messages": render.messages(run.step_input(None), run.options())._repr_html_(),  # type: ignore[attr-defined]
        "explanation": explanation_html(explanation, run.steps[0].decision, compare=True),
        "decision_html": decision_html(explanation.decision),
        "messages_html": messages_html(render.messages(run.step_input(2), run.options())),
        "table_html": table_html([UNSEEN], [[UNSEEN, 1]]),
    }
    for name, fragment in fragments.items():
        assert_inert(fragment)
        for raw in UNSEEN_RAW:
            assert raw not in fragment, (name, f"U+{ord(raw):04X}")
        for marker in UNSEEN_SHOWN:
            assert marker in fragment, (name, marker)
    assert "[U+E0069]" in fragments["run"].split("<table>")[1].split("</table>")[0]  # the goal, in the header


def test_rtl_overrides_are_shown_as_visible_code_points() -> None:
    """A right-to-left override in a result shows as a marked [U+202E] instead of reordering the page."""
    run = hostile_run()
    fragment = Views(run).at(None)._repr_html_()
    assert "[U+202E]" in fragment and "[U+2066]" in fragment


@pytest.mark.slow
def test_a_50_mb_result_yields_a_small_page_that_states_its_size() -> None:
    """A 50 MB result, in full or as a hidden summary, is shown capped with its full size stated."""
    big = "A" * (50 * 1024 * 1024)
    run = Run(
        header={"goal": "Read the log."},
        steps=(
            Step(
                index=0,
                decision=Decision(kind="tool_call", tool="read_log", reason=big),
                observation=Observation(content=big, summary="a 50 MB log"),
            ),
        ),
    )
    for options in (run.options(), run.options(recent_results=0), run.options(result_bytes=100 * 1024 * 1024)):
        view = Views(run, options).at(None)
        fragment = view._repr_html_()
        assert len(fragment) < 6 * DISPLAY_CHARS + 30_000
        result = view.steps[0].result.blocks[0]  # type: ignore[union-attr]
        if result.hidden_label:  # cut at the cap, or its summary: what was hidden, with the full size
            assert result.hidden_label in fragment and "52,428,800 bytes" in result.hidden_label
        else:  # in full: shown capped, its size stated, as the reason's is
            assert result.kind == "result" and fragment.count("(52,428,800 bytes in all)") == 2
    assert len(run._repr_html_()) < 200_000
    assert len(run.steps[0].decision._repr_html_()) < 2 * DISPLAY_CHARS  # type: ignore[union-attr]


def test_the_view_html_marks_every_kind_with_its_class() -> None:
    """Each block kind of the every-kind run reaches the HTML with its class; skipped steps and hidden parts too."""
    # Without the legend, which names every kind whatever the view holds.
    fragment = view_html(every_kind_view(), legend=False)
    for kind in SHOWN_KINDS:
        assert f"ar-block ar-{kind}" in fragment, kind
    # As class attributes: the class names alone are also in the stylesheet.
    assert ' ar-failed"' in fragment and 'class="ar-skipped"' in fragment and 'class="ar-hidden"' in fragment
    assert "hidden from the model" in fragment
    assert "step 5: no decision recorded" in fragment


def test_the_legend_names_every_kind() -> None:
    """The legend has a swatch for every kind in BLOCK_KINDS, titled with its meaning."""
    legend = legend_html()
    for kind, meaning in BLOCK_KINDS.items():
        assert f"ar-{kind}" in legend
        assert meaning.replace("'", "&#x27;") in legend


def test_the_header_states_size_tokens_key_and_change() -> None:
    """The view's header states message count, bytes, approximate tokens, replay key and the change."""
    run = every_kind_run()
    view = Views(run, run.options(recent_results=2)).at(12)
    fragment = view._repr_html_()
    assert f"<b>{len(view.messages):,}</b> messages" in fragment
    assert f"<b>{view.bytes:,}</b> bytes" in fragment
    assert f"~{view.tokens:,}" in fragment
    assert view.replay_key in fragment
    assert view.change.describe().replace("'", "&#x27;") in fragment
    views = Views(run, run.options(recent_results=2))
    left = next(views.at(at) for at in range(1, 14) if views.at(at).change.left_window is not None)
    said = f"step {left.change.left_window}&#x27;s result left the window"
    assert said in left._repr_html_()


def test_long_views_show_their_last_steps_and_count_the_rest() -> None:
    """A view of many steps shows the last ones and says how many earlier steps and messages it left out."""
    from tests._support.runs import long_run

    view = Views(long_run(200)).at(None)
    fragment = view._repr_html_()
    assert "160 earlier steps" in fragment
    first_shown = view.step_facts(160)[0].message_index
    assert f"({first_shown - 1:,} messages) not shown" in fragment


def test_one_step_left_out_is_said_in_the_singular() -> None:
    """A view that leaves one step out says '1 earlier step', where it said '1 earlier steps'."""
    from tests._support.runs import long_run

    view = Views(long_run(41)).at(None)
    assert "… 1 earlier step (2 messages) not shown here" in view._repr_html_()


def test_every_class_the_html_uses_is_styled() -> None:
    """Each ar-* class in the HTML of views, runs, decisions, replies and tables has a rule in the stylesheet."""
    base = every_kind_run()
    # A recorded request key that differs from the view's own: its header explains the difference.
    rekeyed = (ModelCall(step=call.step, response=call.response, request_key="0" * 64) for call in base.model_calls)
    run = replace(base, model_calls=tuple(rekeyed))
    views = Views(run, run.options(recent_results=5, result_bytes=600))
    reply = run.model_calls[0].response
    fragments = [
        *(views.at(at)._repr_html_() for at in [*views.stops, None]),
        run._repr_html_(),
        legend_html(),
        explanation_html(explain_decide(reply), run.steps[0].decision, compare=True),
        explanation_html(explain_decide(reply), run.steps[1].decision, compare=True),
        *(step.decision._repr_html_() for step in run.steps if step.decision is not None),
    ]
    assert any("differs from the recorded request key" in fragment for fragment in fragments)
    used: set[str] = set()
    for fragment in fragments:
        for _, attrs in assert_inert(fragment).tags:
            used.update(word for name, value in attrs if name == "class" for word in (value or "").split())
    # ar-user only marks a user turn, which keeps the style every turn has.
    unstyled = sorted(
        name for name in used - {"ar-user"} if name.startswith("ar-") and not re.search(rf"\.{name}\b", STYLE)
    )
    assert unstyled == []


def test_a_long_list_of_messages_shows_its_first_turns_and_counts_the_rest() -> None:
    """messages_html shows the first SHOWN_STEPS * 2 + 1 turns, numbered, and says how many more it left out."""
    from tests._support.runs import long_run

    messages = render.messages(long_run(100).step_input(), render.Options(opening="Go."))
    shown = SHOWN_STEPS * 2 + 1
    fragment = messages_html(messages)
    assert f"<div>{len(messages):,} messages</div>" in fragment
    assert f"#{shown - 1} " in fragment and f"#{shown} " not in fragment
    assert f"… {len(messages) - shown:,} more messages not shown" in fragment
    assert "more messages not shown" not in messages_html(messages[:shown])
