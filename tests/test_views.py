"""agentrender.views: views assembled from per-step renders equal render.messages, and their facts hold."""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agentrender import (
    ContentBlock,
    Decision,
    Message,
    ModelResponse,
    Observation,
    Run,
    Step,
    StepInput,
    load_run,
    render,
    samples,
)
from agentrender._types import utf8_bytes
from agentrender.agent import live
from agentrender.imports import from_anthropic
from agentrender.views import (
    BLOCK_KINDS,
    DECIDE_RULES,
    NO_WINDOW,
    RESULT_KINDS,
    StepsRead,
    View,
    Views,
    answered_tool_uses,
    approx_tokens,
    disagreements,
    explain_decide,
    message_bytes,
)
from tests._support.compacted import compacted_run, compaction
from tests._support.conversations import WEATHER
from tests._support.examples import examples
from tests._support.runs import every_kind_run, hostile_run, long_run
from tests._support.steps import decisions, make_steps, observations, step_bodies, wire_bytes


def custom_id(step: Step) -> str:
    return f"toolu_{step.index}" if step.index % 2 else ""


def custom_assistant(step: Step, tool_use_id: str) -> list[ContentBlock] | None:
    if step.index % 3 == 0 and step.decision is not None and step.decision.calls:
        return [ContentBlock(type="tool_use", tool_use_id=tool_use_id, name=step.decision.tool, input={})]
    if step.index % 3 == 1:
        return iter(())  # type: ignore[return-value]  # an empty iterable falls back, as render.messages has it
    return None


def custom_observation(step: Step, tool_use_id: str, full: bool) -> ContentBlock | None:
    if step.index % 4 == 1:
        label = "FULL" if full else "SHORT"
        return ContentBlock(type="tool_result", tool_use_id=tool_use_id, content=f"{label} {step.index}")
    if step.index % 4 == 2:
        return ContentBlock(type="")
    return None


def opening_from_input(step_input: StepInput) -> str:
    return f"Goal: {step_input.goal}; {len(step_input.steps)} steps so far; deciding {step_input.index}."


def option_settings(run: Any) -> list[render.Options]:
    return [
        run.options(),
        run.options(recent_results=0),
        run.options(recent_results=1, result_bytes=12),
        run.options(recent_results=3, result_bytes=0),
        run.options(recent_results=NO_WINDOW),
        run.options(
            recent_results=2,
            tool_use_id=custom_id,
            assistant=custom_assistant,
            observation=custom_observation,
        ),
        run.options(opening=opening_from_input, recent_results=4),
        run.options(opening=lambda step_input: "The same opening at every step.", recent_results=2),
    ]


RUNS = [every_kind_run(), long_run(45), hostile_run(), long_run(0), long_run(1)]


@pytest.mark.parametrize("run", RUNS, ids=["every-kind", "long", "hostile", "empty", "one"])
def test_every_view_equals_render_messages(run: Any) -> None:
    """For every step (and None) and every option setting, hooks included, the assembled view is render.messages
    (a step out of range is refused: test_every_method_taking_a_step_refuses_what_is_no_step_of_the_run)."""
    for options in option_settings(run):
        views = Views(run, options)
        for at in [*views.stops, None]:
            assert views.messages(at) == render.messages(run.step_input(at), options), (at, options)


def test_views_of_a_step_input_equal_render_messages() -> None:
    """Views over a StepInput render each prefix as render.messages of that prefix does."""
    run = every_kind_run()
    step_input = StepInput(steps=run.steps, goal="g", run_id="r", index=14, tools=run.tools)
    options = render.Options(opening=opening_from_input, recent_results=2)
    views = Views(step_input, options)
    for at in views.stops:
        prefix = StepInput(
            steps=tuple(s for s in run.steps if s.index < at), goal="g", run_id="r", index=at, tools=run.tools
        )
        assert views.messages(at) == render.messages(prefix, options)
    assert views.messages(None) == render.messages(step_input, options)


@pytest.mark.parametrize("run", RUNS, ids=["every-kind", "long", "hostile", "empty", "one"])
def test_a_view_is_taken_from_0_to_one_past_the_last_step_and_nowhere_else(run: Any) -> None:
    """Views.at takes 0 to one past the last step's index (that last: the view after every step, as None gives);
    a step past that or a negative one raises IndexError naming the range, as the CLI's --at does."""
    views = Views(run)
    last = views.stops[-1]
    assert last == (run.steps[-1].index + 1 if run.steps else 0)
    assert views.at(last).messages == views.at(None).messages
    assert views.at(0).messages == render.messages(run.step_input(0), run.options())
    taken = f"its steps end at {last - 1}, so a view is taken at 0 to {last} ({last}: after the last step)"
    if not run.steps:
        taken = "it holds no steps, so a view is taken at 0 only (its opening)"
    for at, where in ((last + 1, "past"), (10_000, "past"), (-1, "before"), (-last - 1, "before")):
        with pytest.raises(IndexError) as raised:
            views.at(at)
        assert str(raised.value) == f"step {at} is {where} the run: {taken}"


@pytest.mark.parametrize("run", RUNS, ids=["every-kind", "long", "hostile", "empty", "one"])
def test_every_method_taking_a_step_refuses_what_is_no_step_of_the_run(run: Any) -> None:
    """Views.messages, step_input, change, compaction and previous_stop refuse a step as Views.at does: one out of
    range with IndexError, one that is no int (a string, a float, a bool) with TypeError, each naming the range,
    where they failed deep inside (a string) or returned a view for it (a float, True, -1, a step past the run)."""
    views = Views(run)
    last = views.stops[-1]
    taken = f"its steps end at {last - 1}, so a view is taken at 0 to {last} ({last}: after the last step)"
    if not run.steps:
        taken = "it holds no steps, so a view is taken at 0 only (its opening)"
    methods = (views.at, views.messages, views.step_input, views.change, views.compaction, views.previous_stop)
    for method in methods:
        for at, where in ((last + 1, "past"), (-1, "before")):
            with pytest.raises(IndexError) as raised:
                method(at)
            assert str(raised.value) == f"step {at} is {where} the run: {taken}", method
        for at, said in (("2", "'2' is a str"), (1.5, "1.5 is a float"), (True, "True is a bool")):
            with pytest.raises(TypeError) as wrong:
                method(at)
            assert str(wrong.value) == f"step {said}, not a step's index (an int): {taken}", method
    assert views.messages(last) == views.messages(None) and views.step_input(0).steps == ()


def test_step_input_needs_options_and_steps_in_order() -> None:
    """A StepInput without options, or steps out of index order, is refused with a message saying where."""
    with pytest.raises(ValueError, match="options are required"):
        Views(StepInput(steps=()))
    steps = (Step(index=0), Step(index=3), Step(index=2))
    with pytest.raises(ValueError, match=r"steps\[2\]\.index is 2, not above steps\[1\]\.index 3"):
        Views(StepInput(steps=steps), render.Options(opening="x"))
    with pytest.raises(TypeError, match=r"render\.Options"):
        Views(every_kind_run(), {"opening": "x"})  # type: ignore[arg-type]


def test_hooks_are_called_once_per_step_and_form() -> None:
    """Moving through every view calls the observation hook once per rendered step and form the views
    show, never again; the size series renders the forms no view showed, each once."""
    calls: list[tuple[int, bool]] = []

    def observe(step: Step, tool_use_id: str, full: bool) -> ContentBlock | None:
        calls.append((step.index, full))
        return None

    run = long_run(30)
    views = Views(run, run.options(observation=observe))
    for at in views.stops:
        view = views.at(at)
        assert len(view.messages) == 1 + 2 * sum(fact.result is not None for fact in view.steps)
    rendered = [s.index for s in run.steps if s.decision is not None]
    # a result leaves the window only once six rendered steps follow it
    shown = [(i, True) for i in rendered] + [(i, False) for i in rendered[:-6]]
    assert sorted(calls) == sorted(shown)
    views.sizes()
    assert sorted(calls) == sorted([(i, True) for i in rendered] + [(i, False) for i in rendered])


ANY_TEXT = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=()))
"""Any text at all: control characters, quotes, backslashes, lone surrogates, astral characters."""


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(
        st.one_of(
            st.builds(lambda t: ContentBlock(type="text", text=t), ANY_TEXT),
            st.builds(
                lambda i, c, e: ContentBlock(type="tool_result", tool_use_id=i, content=c, is_error=e),
                st.text(max_size=8) | st.just("step_12"),
                ANY_TEXT,
                st.booleans(),
            ),
            st.builds(
                lambda n, v: ContentBlock(type="tool_use", tool_use_id="x", name=n, input=v),
                st.text(max_size=8),
                st.recursive(
                    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                    max_leaves=6,
                ),
            ),
            st.builds(lambda t: ContentBlock(type="thinking", text=t, signature="s"), st.text(max_size=8)),
            st.builds(lambda t: ContentBlock(type="image", raw={"type": "image", "x": t}), st.text(max_size=8)),
        ),
        max_size=4,
    ),
    st.sampled_from(["user", "assistant"]),
)
def test_message_bytes_is_the_wire_size(blocks: list[ContentBlock], role: str) -> None:
    """message_bytes equals the UTF-8 length of the message's compact JSON, for any text (surrogates included)."""
    message = Message(role=role, content=tuple(blocks))
    text = json.dumps(message.to_dict(), ensure_ascii=False, separators=(",", ":"))
    assert message_bytes(message) == len(text.encode("utf-8", "surrogatepass"))


def test_a_tool_uses_input_is_counted_as_its_compact_json_even_with_a_lone_surrogate() -> None:
    """A tool use's input counts as compact UTF-8 JSON; text UTF-8 cannot carry (a lone surrogate) as 3 bytes."""
    for value in ({"path": "é/a.py", "n": [1, 2.5, None, True]}, "\ud800 x", ["\n\x01"], {}):
        message = Message(
            role="assistant", content=(ContentBlock(type="tool_use", tool_use_id="t", name="n", input=value),)
        )
        wire = json.dumps(message.to_dict(), ensure_ascii=False, separators=(",", ":"))
        assert message_bytes(message) == len(wire.encode("utf-8", "surrogatepass")), value


def test_counting_a_large_input_holds_little_more_than_its_text() -> None:
    """Counting the bytes of an input of 650,000 keys holds at most twice its JSON text at once (json would hold
    six times it: a string of every key, value and separator before joining them)."""
    value = {f"key_{i:07d}": i for i in range(650_000)}
    block = ContentBlock(type="tool_use", tool_use_id="t", name="n", input=value)
    message = Message(role="assistant", content=(block,))
    tracemalloc.start()
    try:
        size = message_bytes(message)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    text = len(json.dumps(value, separators=(",", ":")))
    assert size > text and peak < 2 * text, (peak, text)


@pytest.mark.parametrize("run", RUNS[:3], ids=["every-kind", "long", "hostile"])
def test_sizes_match_the_wire_form_at_every_step(run: Any) -> None:
    """The size series, each View's bytes and the no-window bytes equal the JSON of the rendered messages."""
    for options in option_settings(run):
        views = Views(run, options)
        series = views.sizes()
        assert series.at == views.stops
        for i, at in enumerate(series.at):
            shown = render.messages(run.step_input(at), options)
            everything = render.messages(run.step_input(at), views.with_options(recent_results=NO_WINDOW).options)
            view = views.at(at)
            assert series.bytes[i] == view.bytes == wire_bytes(shown)
            assert series.messages[i] == len(shown)
            assert series.tokens[i] == view.tokens == approx_tokens(view.bytes)
            assert series.bytes_no_window[i] == view.bytes_no_window == wire_bytes(everything)


def first_difference(old: list[Message], new: list[Message]) -> int | None:
    for i, (a, b) in enumerate(zip(old, new, strict=False)):
        if a != b:
            return i
    return None if len(old) == len(new) else min(len(old), len(new))


@pytest.mark.parametrize("run", RUNS[:3], ids=["every-kind", "long", "hostile"])
def test_change_names_the_first_message_that_differs(run: Any) -> None:
    """Between consecutive views, first_diff, the cacheable prefix and the resent bytes match a brute-force diff."""
    for options in option_settings(run):
        views = Views(run, options)
        series = views.sizes()
        stops = views.stops
        for i in range(1, len(stops)):
            old = render.messages(run.step_input(stops[i - 1]), options)
            new = render.messages(run.step_input(stops[i]), options)
            change = views.at(stops[i]).change
            expected = first_difference(old, new)
            assert change.first_diff == expected == series.first_diff[i]
            assert change.previous == stops[i - 1]
            if expected is None:
                assert change.prefix_bytes == wire_bytes(new)
            elif expected == 0:
                assert change.prefix_bytes == 0  # nothing is shared but the list's "["
            else:
                shared = "[" + "".join(
                    json.dumps(m.to_dict(), ensure_ascii=False, separators=(",", ":")) + "," for m in new[:expected]
                )
                assert change.prefix_bytes == min(len(shared.encode("utf-8", "surrogatepass")), wire_bytes(new))
            assert change.prefix_bytes == series.prefix_bytes[i]
            assert change.resent_bytes == wire_bytes(new) - change.prefix_bytes == series.resent_bytes[i]
            assert change.bytes_delta == wire_bytes(new) - wire_bytes(old)
            if change.left_window is not None:
                assert new[expected or 0].content != old[expected or 0].content
                left = next(f for f in views.at(stops[i]).steps if f.step.index == change.left_window)
                assert left.full is False and left.result is not None
                assert left.result.message == new[expected or 0]


def test_the_result_leaving_the_window_is_named() -> None:
    """At the step where a result moves from full to summary, the change names that step and its message."""
    run = long_run(20, every=100)
    views = Views(run, run.options(recent_results=3))
    change = views.at(5).change
    assert change.added_step == 4
    assert change.left_window == 1
    assert change.first_diff == 4  # opening, A0, U0, A1, then U1: the summary now
    first = views.at(0).change
    assert first.previous is None and first.first_diff == 0 and first.prefix_bytes == 0


def facts_by_step(run: Any, at: int | None, **options: Any) -> dict[int, Any]:
    return {fact.step.index: fact for fact in Views(run, run.options(**options)).at(at).steps}


def test_every_block_is_named_by_kind() -> None:
    """Each step of the every-kind run gets the block kinds the contract's table gives it."""
    run = every_kind_run()
    facts = facts_by_step(run, None, recent_results=3, result_bytes=4000)
    kinds = {
        index: (tuple(b.kind for b in f.assistant.blocks), f.result.blocks[0].kind)
        for index, f in facts.items()
        if f.rendered
    }
    assert kinds == {
        0: (("reason", "tool_use"), "summary"),
        1: (("reason", "tool_use"), "summary"),
        2: (("reason",), "nudge_no_tool_call"),
        3: (("no_call",), "nudge_truncated"),
        4: (("tool_use",), "nudge_invalid"),
        6: (("reason", "tool_use"), "interrupted"),
        7: (("tool_use",), "interrupted"),
        8: (("reason", "tool_use"), "no_summary"),
        9: (("reason",), "nudge_invalid"),
        10: (("reason",), "nudge_no_tool_call"),
        11: (("reason", "tool_use"), "result"),
        12: (("reason", "tool_use"), "result"),
    }
    assert {f.step.index for f in facts.values() if not f.rendered} == {5, 13}
    assert set(BLOCK_KINDS) >= {k for pair in kinds.values() for k in (*pair[0], pair[1])}
    assert facts[1].result.blocks[0].failed
    assert facts[4].result.blocks[0].failed
    assert not facts[9].result.blocks[0].failed  # a text nudge carries no error flag


def test_summary_and_cut_facts_state_what_the_model_did_not_see() -> None:
    """A summary hides the whole content; a result cut at the cap hides the bytes past it."""
    run = every_kind_run()
    content_bytes = len(run.steps[8].observation.content.encode())
    summary = facts_by_step(run, None, recent_results=0)[8].result.blocks[0]
    assert (summary.kind, summary.hidden_bytes, summary.content_bytes) == ("no_summary", content_bytes, content_bytes)
    assert summary.block.content == render.NO_SUMMARY_TEXT
    cut = facts_by_step(run, 9, recent_results=1, result_bytes=100)[8].result.blocks[0]
    assert cut.kind == "cut" and cut.cut
    assert cut.shown_bytes == 100
    assert cut.hidden_bytes == content_bytes - 97  # the mark takes 3 of the 100 bytes
    whole = facts_by_step(run, 1, result_bytes=100_000)[0].result.blocks[0]
    assert whole.kind == "result" and whole.hidden_bytes == 0 and not whole.cut


@pytest.mark.parametrize("summary", [" " * 20, "twenty bytes summary", "short"])
def test_a_summary_is_cut_exactly_when_the_render_cut_it(summary: str) -> None:
    """BlockFact.cut of a summary says whether the render's block holds less than the summary (blank ones included)."""
    step = Step(
        index=0, decision=Decision(kind="tool_call", tool="t"), observation=Observation(content="c", summary=summary)
    )
    run = Run(header={"type": "run", "opening": "Go."}, steps=(step,))
    fact = Views(run, run.options(recent_results=0, result_bytes=10)).at(None).steps[0].result.blocks[0]
    assert fact.kind == "summary" and fact.cut == (fact.block.content != summary) == (len(summary) > 10)


def test_hidden_text_is_what_the_model_did_not_see() -> None:
    """A step's hidden text is its whole content behind a summary, the bytes past the cap of a cut
    result (a character split there shows as U+FFFD), at most max_bytes of it, and nothing otherwise."""
    content = "é" * 40 + "the end"
    run = every_kind_run(content=content)
    encoded = content.encode()
    summary = facts_by_step(run, None, recent_results=0)[0]
    assert summary.hidden_text() == content
    assert summary.hidden_text(5) == "éé\ufffd"
    cut = facts_by_step(run, None, recent_results=20, result_bytes=50)[0]
    block = cut.result_block
    assert block is not None and block.kind == "cut"
    hidden = encoded[len(encoded) - block.hidden_bytes :]
    assert cut.hidden_text() == hidden.decode("utf-8", "replace")
    assert cut.hidden_text().endswith("the end") and block.block.content.encode()[:-3] + hidden == encoded
    assert cut.hidden_text(4) == hidden[:4].decode("utf-8", "replace")
    whole = facts_by_step(run, None, recent_results=20)
    assert whole[0].hidden_text() == "" and whole[2].hidden_text() == "" and whole[5].hidden_text() == ""
    ascii_cut = facts_by_step(every_kind_run(content="x" * 60 + "tail"), None, recent_results=20, result_bytes=50)[0]
    assert ascii_cut.hidden_text() == ("x" * 60 + "tail")[47:] and ascii_cut.hidden_text(3) == "xxx"


def test_skipped_steps_stand_where_they_were() -> None:
    """A step with no decision is listed in order, not rendered, at the index of the message after it."""
    run = every_kind_run()
    view = Views(run).at(None)
    facts = view.steps
    assert [f.step.index for f in facts] == [s.index for s in run.steps]
    skipped = facts[5]
    assert not skipped.rendered and skipped.full is None and skipped.assistant is None
    assert skipped.message_index == facts[6].message_index == 1 + 2 * 5
    for fact in facts:
        if fact.rendered:
            assert view.messages[fact.message_index] == fact.assistant.message
            assert view.messages[fact.message_index + 1] == fact.result.message
    assert [f.step.index for f in view.skipped] == [5, 13]
    assert view.step_count == 14
    assert view.step_facts(5, 7) == facts[5:7]


@settings(max_examples=examples(40), deadline=None)
@given(
    window=st.integers(min_value=0, max_value=20),
    at=st.sampled_from([None, 0, 3, 9, 14]),
    start=st.integers(min_value=-16, max_value=16),
    stop=st.one_of(st.none(), st.integers(min_value=-16, max_value=16)),
    blocks_first=st.booleans(),
)
def test_result_blocks_are_each_steps_result_block(
    window: int, at: int | None, start: int, stop: int | None, blocks_first: bool
) -> None:
    """View.result_blocks(start, stop) is each step's result_block of step_facts(start, stop), the same facts,
    whichever is asked for first."""
    run = every_kind_run()
    view = Views(run, run.options(recent_results=window, result_bytes=100)).at(at)
    blocks = view.result_blocks(start, stop) if blocks_first else None
    expected = [fact.result_block for fact in view.step_facts(start, stop)]
    if blocks is None:
        blocks = view.result_blocks(start, stop)
    assert len(blocks) == len(expected)
    assert all(block is fact for block, fact in zip(blocks, expected, strict=True))


def rendered_columns(view: View, start: int = 0, stop: int | None = None) -> dict[str, list[Any]]:
    """What ``View.result_columns`` must say: the facts of the rendered ``result_blocks``."""
    blocks = view.result_blocks(start, stop)
    return {
        "kind": [None if b is None else b.kind for b in blocks],
        "type": [None if b is None else b.block.type for b in blocks],
        "shown_bytes": [None if b is None else b.shown_bytes for b in blocks],
        "hidden_bytes": [None if b is None else b.hidden_bytes for b in blocks],
    }


@settings(max_examples=examples(200), deadline=None)
@given(
    bodies=step_bodies,
    window=st.integers(min_value=0, max_value=16),
    cap=st.sampled_from([0, 1, 2, 3, 4, 5, 8, 20, 64, render.RESULT_BYTES]),
    at=st.none() | st.integers(min_value=0, max_value=15),
    start=st.integers(min_value=-16, max_value=16),
    stop=st.none() | st.integers(min_value=-16, max_value=16),
    tool_use_id=st.booleans(),
)
def test_result_columns_are_the_rendered_blocks_facts(
    bodies: list[Any], window: int, cap: int, at: int | None, start: int, stop: int | None, tool_use_id: bool
) -> None:
    """View.result_columns, worked out from the steps without rendering them, is what the rendered result blocks
    say (kind, block type, shown and hidden bytes) for every step, window, cap, slice and view, skipped steps too."""
    run = Run(header={"goal": "g"}, steps=tuple(make_steps(bodies)))
    options = run.options(recent_results=window, result_bytes=cap, tool_use_id=custom_id if tool_use_id else None)
    views = Views(run, options)
    view = views.at(None if at is None else min(at, views.stops[-1]))
    assert view.result_columns(start, stop) == rendered_columns(view, start, stop)


def _result_column_cases(tmp_path: Path) -> Iterator[tuple[str, View]]:
    """Views of many shapes: every kind of step under several windows and caps, hooks, imported runs as sent and
    under the contract, compactions, and a conversation that ended on an unanswered reply."""
    every = every_kind_run(content="é€😀 line\n" * 700)
    for window, cap in ((0, 0), (3, 2), (5, 600), (20, 100), (NO_WINDOW, render.RESULT_BYTES)):
        for at in (None, 4, 9):
            yield (
                f"every kind, window {window}, cap {cap}, at {at}",
                Views(every, every.options(recent_results=window, result_bytes=cap)).at(at),
            )
    hooked = long_run(30, every=4)
    yield (
        "hooks",
        Views(hooked, hooked.options(recent_results=7, assistant=custom_assistant, observation=custom_observation)).at(
            None
        ),
    )
    imported = from_anthropic(WEATHER)
    yield "imported, as sent", Views(imported).at(None)
    yield "imported, under the contract", Views(imported, imported.options(recent_results=1, result_bytes=20)).at(None)
    compacted = compacted_run(tmp_path, 9, [compaction(2), compaction(6, trigger="manual")])
    yield "compacted, as sent", Views(compacted).at(None)
    yield "compacted, at a compaction", Views(compacted).at(6)
    yield "compacted, under the contract", Views(compacted, compacted.options(recent_results=2)).at(None)
    ended = compacted_run(tmp_path, 3, [])
    yield "ended on an unanswered reply", Views(ended).at(None)
    yield "ended, under the contract", Views(ended, ended.options(recent_results=1)).at(None)


def test_result_columns_of_runs_of_every_shape(tmp_path: Path) -> None:
    """View.result_columns is the rendered result blocks' facts for runs of every shape (windows, caps, errors,
    interrupted steps, hooks, compactions, imported runs as sent and under the contract, a conversation that
    ended), over the whole view and a slice of it."""
    seen: set[str] = set()
    for name, view in _result_column_cases(tmp_path):
        for start, stop in ((0, None), (2, 5), (-3, None)):
            assert view.result_columns(start, stop) == rendered_columns(view, start, stop), (name, start, stop)
        seen.update(kind for kind in view.result_columns()["kind"] if kind is not None)
    assert seen == set(RESULT_KINDS), "every kind of result block is compared"


def _real_and_sample_runs() -> Iterator[tuple[str, Any]]:
    """Every run of every real fixture the package reads (``imports.load_runs``), and every bundled sample."""
    from agentrender import imports
    from tests._support import real

    for entry in real.histories():
        for number, run in enumerate(imports.load_runs(real.REAL / entry["path"])):
            yield f"{entry['path']} run {number}", run
    for name in samples.names():
        yield f"sample {name}", samples.load(name)


@pytest.mark.filterwarnings("ignore")
def test_result_columns_of_every_real_fixture_and_sample() -> None:
    """View.result_columns, whose common rows (a call's result or summary shown as it is) are read without the
    contract's table, is the rendered result blocks' facts over every run of every real fixture and sample: as sent,
    under the contract's window and cap through the run's hooks, and under the contract's own turns (no hooks), with
    caps that cut and summarise results."""
    compared = 0
    for name, run in _real_and_sample_runs():
        for window, cap in ((2, 40), (4, 3000), (NO_WINDOW, render.RESULT_BYTES)):
            contract = run.options(recent_results=window, result_bytes=cap)
            own = replace(contract, tool_use_id=None, assistant=None, observation=None)
            for options in (run.options(), contract, own):
                view = Views(run, options).at(None)
                assert view.result_columns() == rendered_columns(view), (name, window, cap)
            compared += 1
    assert compared > 30, "the real fixtures and samples are found"


def _read(view: View, start: int = 0, stop: int | None = None) -> StepsRead:
    """What a table reads off the view's steps ``[start:stop]`` for ``View.result_columns``, a step at a time."""
    steps = view.views.run.steps[: view.step_count][start:stop]
    decisions = [step.decision for step in steps]
    observations = [step.observation for step in steps]
    return StepsRead(
        [None if d is None else d.kind for d in decisions],
        [None if d is None else d.tool for d in decisions],
        [None if o is None else o.status for o in observations],
        [None if o is None else utf8_bytes(o.content) for o in observations],
        [None if o is None else utf8_bytes(o.summary) for o in observations],
    )


_answered = st.builds(
    lambda tool, status, content, summary: (
        Decision(kind="tool_call", tool=tool, args={}),
        Observation(status=status, content=content, summary=summary),
    ),
    tool=st.sampled_from(["read_file", "run_tests"]),
    status=st.sampled_from(["ok", "error"]),
    content=st.text(max_size=12) | st.sampled_from(["é€😀", "x" * 5]),
    summary=st.sampled_from(["", "s"]) | st.text(max_size=6),
)


_not_quite = _answered.flatmap(
    lambda body: st.sampled_from(
        [
            (msgspec.structs.replace(body[0], tool=""), body[1]),
            (msgspec.structs.replace(body[0], kind="no_tool_call"), body[1]),
            (body[0], msgspec.structs.replace(body[1], status="interrupted")),
            (body[0], msgspec.structs.replace(body[1], status="invalid_decision")),
            (body[0], msgspec.structs.replace(body[1], status="weird")),
            (body[0], None),
            (None, body[1]),
        ]
    )
)
"""A step answered but for one thing: what the table's last rows do not take."""


_CALL = Decision(kind="tool_call", tool="read_file", args={})
_ANSWER = Observation(status="ok", content="c", summary="s")


_WHOLE_VIEW: dict[str, Any] = {"window": 0, "cap": render.RESULT_BYTES, "at": None, "start": 0, "stop": None}
"""A view of every step, each shown as its summary."""


@settings(max_examples=examples(200), deadline=None)
@given(
    answered=st.lists(_answered, max_size=14),
    other=st.tuples(
        st.integers(min_value=0, max_value=14),
        st.none() | _not_quite | st.tuples(st.none() | decisions, st.none() | observations),
    ),
    window=st.integers(min_value=0, max_value=16),
    cap=st.sampled_from([0, 3, 4, 8, 20, 24, 48, render.RESULT_BYTES]),
    at=st.none() | st.integers(min_value=0, max_value=15),
    start=st.integers(min_value=-16, max_value=16),
    stop=st.none() | st.integers(min_value=-16, max_value=16),
)
@example(answered=[(_CALL, _ANSWER)] * 2, other=(1, (msgspec.structs.replace(_CALL, tool=""), _ANSWER)), **_WHOLE_VIEW)
@example(
    answered=[(_CALL, _ANSWER)] * 2,
    other=(1, (msgspec.structs.replace(_CALL, kind="no_tool_call"), _ANSWER)),
    **_WHOLE_VIEW,
)
def test_result_columns_of_fields_read_are_those_read_a_step_at_a_time(
    answered: list[Any], other: Any, window: int, cap: int, at: int | None, start: int, stop: int | None
) -> None:
    """View.result_columns given the fields a table read already (StepsRead), which tells a stretch of calls'
    results and summaries shown as they are a column at a time, is the rendered result blocks' facts: for runs of
    answered calls with any texts (non-ASCII, empty summaries, around the cap), among them at most one step of any
    other shape, every window, cap, slice and view."""
    bodies = list(answered)
    at_step, body = other
    if body is not None:
        bodies.insert(min(at_step, len(bodies)), body)
    run = Run(header={"goal": "g"}, steps=tuple(make_steps(bodies)))
    views = Views(run, run.options(recent_results=window, result_bytes=cap))
    view = views.at(None if at is None else min(at, views.stops[-1]))
    assert view.result_columns(start, stop, _read(view, start, stop)) == rendered_columns(view, start, stop)
    last = views.at(None)
    assert last.result_columns(read=_read(last)) == rendered_columns(last)


@pytest.mark.filterwarnings("ignore")
def test_result_columns_of_fields_read_over_every_real_fixture_and_sample() -> None:
    """View.result_columns given the fields a table read already is the rendered result blocks' facts over every run
    of every real fixture and sample, as sent and under the contract's own turns with caps that cut and summarise."""
    compared = 0
    for name, run in _real_and_sample_runs():
        for window, cap in ((2, 40), (4, 3000), (NO_WINDOW, render.RESULT_BYTES)):
            contract = run.options(recent_results=window, result_bytes=cap)
            own = replace(contract, tool_use_id=None, assistant=None, observation=None)
            for options in (run.options(), own):
                view = Views(run, options).at(None)
                assert view.result_columns(read=_read(view)) == rendered_columns(view), (name, window, cap)
            compared += 1
    assert compared > 30, "the real fixtures and samples are found"


def test_result_columns_refuse_fields_read_of_other_steps() -> None:
    """View.result_columns refuses fields read of a number of steps other than those asked for."""
    run = long_run(6, every=100)
    view = Views(run).at(None)
    with pytest.raises(ValueError, match="read holds 6 steps, not the 3 asked for"):
        view.result_columns(0, 3, _read(view))


def test_hook_blocks_are_marked_as_the_hooks() -> None:
    """Blocks a hook built are named 'hook'; the steps the hooks leave alone keep their default kinds."""
    run = long_run(12, every=100)
    views = Views(run, run.options(recent_results=20, assistant=custom_assistant, observation=custom_observation))
    facts = {f.step.index: f for f in views.at(None).steps}
    assert [b.kind for b in facts[3].assistant.blocks] == ["hook"]
    assert [b.kind for b in facts[4].assistant.blocks] == ["reason", "tool_use"]
    assert facts[5].result.blocks[0].kind == "hook"
    assert facts[6].result.blocks[0].kind == "result"  # the hook returned a type="" block: the default


def test_result_kinds_are_the_kinds_a_user_turn_holds() -> None:
    """Every step's user-turn block is one of RESULT_KINDS, and an assistant block none but a hook's or an import's
    recorded turn's, cuts too."""
    run = every_kind_run()
    imported = from_anthropic(WEATHER)
    assistant_kinds = set(BLOCK_KINDS) - set(RESULT_KINDS) | {"hook", "as_sent"}
    seen: set[str] = set()
    for views in (
        Views(run, run.options(recent_results=3, result_bytes=100)),
        Views(run, run.options(recent_results=20, assistant=custom_assistant, observation=custom_observation)),
        Views(imported),
    ):
        for fact in views.at(None).steps:
            if fact.rendered:
                assert fact.result_block is not None and fact.result is not None and fact.assistant is not None
                assert fact.result_block is fact.result.blocks[0]
                seen.add(fact.result_block.kind)
                assert {block.kind for block in fact.assistant.blocks} <= assistant_kinds
    assert seen == set(RESULT_KINDS)


def test_replay_key_is_render_replay_key_of_the_view() -> None:
    """A view's replay key hashes its messages with the run's system, tools and model."""
    run = every_kind_run()
    view = Views(run).at(7)
    assert view.replay_key == render.replay_key(
        render.messages(run.step_input(7), run.options()), system=run.system, tools=run.tools, model=run.model
    )
    assert Views(run, max_output_tokens=4096).at(7).replay_key != view.replay_key


def test_with_options_gives_the_views_made_under_those_options() -> None:
    """Views.with_options shows at every stop what Views made afresh under the changed options shows."""
    run = every_kind_run()
    views = Views(run)
    for changes in ({"recent_results": 2}, {"result_bytes": 10}, {"recent_results": 0, "result_bytes": 40}):
        changed, fresh = views.with_options(**changes), Views(run, run.options(**changes))
        assert changed.options == fresh.options
        for at in [*views.stops, None]:
            assert changed.at(at).messages == fresh.at(at).messages, (changes, at)
    with pytest.raises(TypeError, match="no field 'window'"):
        views.with_options(window=3)


def response(*blocks: ContentBlock, stop: str = "tool_use") -> ModelResponse:
    return ModelResponse(content=blocks, stop_reason=stop)


def text(t: str) -> ContentBlock:
    return ContentBlock(type="text", text=t)


def use(name: str, value: Any = None) -> ContentBlock:
    return ContentBlock(type="tool_use", tool_use_id="u", name=name, input={} if value is None else value)


def test_explain_decide_names_each_rule() -> None:
    """Each branch of render.decide is named, with the decision decide makes."""
    cases = {
        "truncated": response(text("cut"), use("a"), stop="max_tokens"),
        "refusal": response(text("no"), use("a"), stop="refusal"),
        "tool_call": response(text("go"), use("a")),
        "no_tool_use": response(text("hmm"), stop="end_turn"),
    }
    for rule, reply in cases.items():
        explanation = explain_decide(reply)
        assert explanation.rule == rule and rule in DECIDE_RULES
        assert explanation.decision == render.decide(reply)
        assert explanation.why[0].startswith(rule)
    assert "1 tool use(s) in the reply were not acted on." in explain_decide(cases["refusal"]).why


def test_explain_decide_states_the_note_the_cap_and_the_arguments() -> None:
    """Unexecuted calls, the reason cap and what happened to raw arguments are each explained."""
    long_text = "x" * 600
    explanation = explain_decide(response(text(long_text), use("read", '{"p": 1}'), use("write"), use("delete")))
    assert explanation.not_executed == ("write", "delete")
    assert explanation.note == "[2 further tool call(s) not executed: write, delete]"
    assert explanation.decision.reason.endswith(explanation.note)
    assert explanation.capped and explanation.reason_budget == render.REASON_BYTES - len(explanation.note) - 1
    assert explanation.args == "parsed"
    assert any("cut to" in line for line in explanation.why)
    assert explain_decide(response(use("a", "{nope"))).args == "invalid_json"
    assert explain_decide(response(use("a", b"\xff"))).args == "invalid_base64"
    assert explain_decide(response(use("a", ""))).args == "empty"
    assert explain_decide(response(use("a", {"k": 1}))).args == "value"
    short = explain_decide(response(text("ok"), use("a")))
    assert not short.capped and short.note == ""


def test_explain_decide_says_which_further_calls_the_agent_ran_all_the_same() -> None:
    """An agent that runs every tool use of a reply (Claude Code, Inspect) answered the calls the contract would not
    run: given the ids its next turn answered, the explanation names those it ran, and says the note is the
    contract's; the decision does not change. The reply's first call answered is no further call."""

    def called(name: str, id_: str) -> ContentBlock:
        return ContentBlock(type="tool_use", tool_use_id=id_, name=name, input={})

    reply = response(text("go"), called("read", "a"), called("write", "b"), called("delete", "c"))
    contract, some, every = (explain_decide(reply, answered=ids) for ids in ((), {"a", "c"}, {"a", "b", "c"}))
    assert (contract.ran_anyway, some.ran_anyway, every.ran_anyway) == ((), ("delete",), ("write", "delete"))
    assert contract.decision == some.decision == every.decision == render.decide(reply)
    note = f"the reason ends with the note ({len(contract.note)} bytes, at most {render.REASON_BYTES // 2})."
    assert f"2 further tool use(s) not executed (write, delete); {note}" in contract.why
    assert not any("all the same" in line for line in contract.why)
    under = f"2 further tool use(s) (write, delete) not executed under the contract, which runs the first only; {note}"
    assert under in some.why and under in every.why
    held = "all the same: the turn it sent next holds their results."
    assert f"this run's agent ran 1 of them (delete) {held}" in some.why
    assert f"this run's agent ran them {held}" in every.why
    assert explain_decide(reply, answered={"a"}).ran_anyway == ()
    assert explain_decide(response(text("no"), called("read", "a"), stop="refusal"), answered={"a"}).ran_anyway == ()


def test_answered_tool_uses_are_those_the_recorded_next_turn_answers() -> None:
    """An imported run records each step's turns as sent: the tool uses its next turn answers (a real Claude Code
    session's reply of a WebSearch and a Glob, both answered). A run under the contract records none (its agent runs
    the first call only), nor does a step the run does not hold."""
    from agentrender.imports import load
    from tests._support import real

    run = load(real.REAL / "claude-code" / "marot-spotter" / "tool_heavy.jsonl")
    assert answered_tool_uses(run, 2) == {"toolu_01DKTWcKpZ2ksZQmoKKfxiw6", "toolu_01JJds55jYrYwd9TktNGndRY"}
    assert answered_tool_uses(run, 0) == {"toolu_018GZVh9ymkrdx1TnR8reg5Y"}
    assert answered_tool_uses(run, len(run.steps) + 5) == frozenset()
    contract = every_kind_run()
    assert all(answered_tool_uses(contract, step.index) == frozenset() for step in contract.steps)


def test_disagreements_name_the_differing_fields() -> None:
    """Two decisions are compared field by field; a missing recorded decision disagrees as a whole."""
    decided = Decision(kind="tool_call", tool="a", args={}, reason="r")
    assert disagreements(decided, decided) == ()
    assert disagreements(decided, Decision(kind="tool_call", tool="b", args={}, reason="s")) == ("tool", "reason")
    assert disagreements(decided, None) == ("decision",)


def test_observation_of_a_call_without_one_is_interrupted() -> None:
    """A call with no observation yet is the interrupted re-request, as the contract's table says."""
    run = every_kind_run()
    fact = facts_by_step(run, None)[7]
    assert fact.result.blocks[0].kind == "interrupted"
    assert fact.result.message.content[0].content == render.INTERRUPTED_TEXT
    assert Observation().status == "ok"


SAMPLES = samples.names()


@pytest.mark.parametrize("name", [*SAMPLES, "live_replay"])
def test_sample_runs_views_equal_render_and_match_the_recorded_request_keys(name: str) -> None:
    """On every bundled recording, each view is render.messages, and with no arguments but the run its replay key
    is the key the agent recorded."""
    run = load_run(live.REPLAY) if name == "live_replay" else samples.load(name)
    for options in option_settings(run)[:5]:
        views = Views(run, options)
        for at in views.stops:
            assert views.messages(at) == render.messages(run.step_input(at), options)
    views = Views(run)  # the header records everything the driver sent, the output cap included
    checked = 0
    for at in views.stops:
        view = views.at(at)
        if view.recorded_keys:
            assert view.replay_key in view.recorded_keys, at
            checked += 1
    assert checked == len({call.step for call in run.model_calls if call.request_key})


@pytest.mark.parametrize("every", [3, 1_000])
@pytest.mark.parametrize(("start", "stop"), [(0, None), (2, 11), (15, 40), (38, None)])
def test_step_columns_are_the_step_facts_as_lists(every: int, start: int, stop: int | None) -> None:
    """``View.step_columns`` holds, for each step of the stretch, its ``rendered``, ``position``, ``tool_use_id``,
    ``full``, ``ended``, ``prefill`` and ``in_view`` (``None`` for a skipped step's position, id and form), with or
    without skipped steps, inside and outside the window; ``step_facts`` holds the same."""
    run = long_run(40, every=every)
    view = Views(run, run.options(recent_results=5)).at(None)
    rendered = [step.decision is not None for step in run.steps]
    positions = [sum(rendered[:i]) if rendered[i] else None for i in range(40)]
    total = sum(rendered)
    expected = {
        "rendered": rendered,
        "position": positions,
        "tool_use_id": [None if p is None else f"step_{i}" for i, p in enumerate(positions)],
        "full": [None if p is None else p >= total - 5 for p in positions],
        "ended": [False] * 40,
        "prefill": [False] * 40,
        "in_view": [True] * 40,
    }
    wanted = {name: values[start:stop] for name, values in expected.items()}
    assert view.step_columns(start, stop) == wanted
    facts = view.step_facts(start, stop)
    assert [fact.position for fact in facts] == wanted["position"]
    assert [fact.full for fact in facts] == wanted["full"]


@pytest.mark.parametrize("every", [2, 3, 1_000])
@pytest.mark.parametrize("recent", [0, 1, 5, 40])
def test_window_step_is_where_the_step_columns_turn_full(every: int, recent: int) -> None:
    """``View.window_step`` is the first of the view's steps from which every rendered step shows its result in full
    and before which none does (``step_columns``' ``full``), with or without skipped steps, at every stop."""
    run = long_run(40, every=every)
    views = Views(run, run.options(recent_results=recent))
    for at in views.stops:
        view = views.at(at)
        full = view.step_columns()["full"]
        start = view.window_step
        assert all(value is not True for value in full[:start]), at
        assert all(value is not False for value in full[start:]), at
        assert start == 0 or full[start - 1] is False, at  # the window starts right after the last summary
        assert sum(value is False for value in full[:start]) == view.rendered_count - view.full_count


def test_a_size_chart_marks_at_most_chart_marks_breaks_evenly_over_the_whole_run() -> None:
    """The breaks a size chart marks (the notebook's and the offline page's) are every break of the cache prefix but
    a compaction's; past ``CHART_MARKS`` of them, every k-th one, at most ``CHART_MARKS``, from the first to within
    k of the last; its legend names the breaks only when it marks one, and a compaction only where there is one."""
    from agentrender.views import CHART_MARKS, SIZE_LEGEND, SizeSeries

    def series(count: int, compacted: set[int]) -> SizeSeries:
        sizes = tuple(1000 + at % 37 * 300 for at in range(count))
        return SizeSeries(
            at=tuple(range(count)), messages=(5,) * count, bytes=sizes, tokens=sizes, bytes_no_window=sizes,
            prefix_bytes=(0,) * count, resent_bytes=sizes, first_diff=(None,) + (1,) * (count - 1),
            left_window=(None,) + (0,) * (count - 1),
            compaction=tuple("auto" if at in compacted else None for at in range(count)),
        )  # fmt: skip

    long = series(10_000, {5_000})
    breaks = [i for i in long.breaks if i != 5_000]
    marked = long.marked_breaks
    stride = marked[1] - marked[0]
    assert len(marked) <= CHART_MARKS < len(breaks) and 5_000 not in marked
    assert marked == tuple(breaks[::stride]) and marked[0] == breaks[0] and breaks[-1] - marked[-1] < stride
    assert [mark for mark, _ in long.legend()] == ["full", "window", "break", "compaction"]
    assert long.legend(rendered_across=True)[-1] == ("compaction", SIZE_LEGEND["compaction_across"])
    short = series(300, set())
    assert short.marked_breaks == short.breaks == tuple(range(1, 300))
    assert [mark for mark, _ in short.legend()] == ["full", "window", "break"]
    unbroken = series(1, set())
    assert unbroken.marked_breaks == () and [mark for mark, _ in unbroken.legend()] == ["full", "window"]
