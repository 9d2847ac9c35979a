"""Views.sizes() takes its quick routes only where they give the general route's figures, to the byte.

A series of views that share one opening, restart from no compaction and carry no cache breakpoint is worked out
in one loop of arithmetic on the steps' sizes; the contract's own turns are counted from their parts, none of them
made. A breakpoints hook that places none, or an opening given as a hook, sends the same views through the general
route, and an observation hook that falls back on every step makes every turn be rendered and measured: each
series must be the same, over generated runs and over the steps of every real public fixture.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentrender import Decision, Observation, Step, StepInput, render
from agentrender.imports import load, load_runs
from agentrender.views import NO_WINDOW, Views
from tests._support import real
from tests._support.steps import make_steps, step_bodies, wire_bytes

OPENING = "Fix the failing test."


def odd_id(step: Step) -> str:
    """A ``tool_use`` id hook: text JSON escapes for some steps, none (``step_<index>``) for others."""
    return ('tø"ol\n' + str(step.index)) if step.index % 3 else ""


def routes(
    steps: list[Step] | tuple[Step, ...],
    recent_results: int,
    result_bytes: int,
    tool_use_id: Callable[[Step], str] | None = None,
) -> list[Any]:
    """The size series of ``steps`` by each route: the quick one, the general one (a breakpoints hook placing
    none; an opening given as a hook) and with every turn rendered and measured (an observation hook that falls
    back); each with ``tool_use_id`` as its id hook."""
    step_input = StepInput(steps=tuple(steps))

    def placing_none(_: StepInput) -> list[render.Breakpoint]:
        return []

    def opening(_: StepInput) -> str:
        return OPENING

    def falling_back(_step: Step, _id: str, _full: bool) -> None:
        return None

    shared = {"recent_results": recent_results, "result_bytes": result_bytes, "tool_use_id": tool_use_id}
    variants = (
        render.Options(opening=OPENING, **shared),
        render.Options(opening=OPENING, breakpoints=placing_none, **shared),
        render.Options(opening=opening, **shared),
        render.Options(opening=OPENING, observation=falling_back, **shared),
    )
    return [Views(step_input, variant).sizes() for variant in variants]


@settings(max_examples=150, deadline=None)
@given(
    step_bodies,
    st.sampled_from([0, 1, 2, 6, NO_WINDOW]),
    st.sampled_from([0, 2, 5, 40, 16384]),
    st.sampled_from([None, odd_id]),
)
def test_every_route_gives_the_same_series(
    bodies: list[Any], recent_results: int, result_bytes: int, tool_use_id: Callable[[Step], str] | None
) -> None:
    """Over generated runs of every kind of step, window, cap and id hook, the quick route's series is the general
    route's and the rendered turns' (every column; test_views holds the general route to render.messages)."""
    steps = make_steps(bodies)
    quick, *others = routes(steps, recent_results, result_bytes, tool_use_id)
    for other in others:
        assert other == quick


@pytest.mark.parametrize("name", real.history_paths() or [pytest.param("", marks=pytest.mark.skip("no real fixtures"))])
def test_every_route_gives_the_same_series_over_a_real_fixtures_steps(name: str) -> None:
    """The steps of every real public fixture (tests/fixtures/real/MANIFEST.json) give the same series by every
    route, under a small window and a cap that cuts their results."""
    for run in load_runs(real.REAL / name):
        quick, *others = routes(run.steps, 3, 200)
        for other in others:
            assert other == quick


def test_text_utf8_cannot_carry_is_counted_as_by_every_route() -> None:
    """A lone surrogate in a reason, a result or a summary, beside an input JSON cannot hold as it is (a set, bytes),
    gives the same series by every route (counted as json writes such text, the input as msgspec writes it)."""
    steps = [
        Step(
            index=i,
            decision=Decision(kind="tool_call", tool="t\ud800", args=args, reason=reason),
            observation=Observation(status=status, content="c\udfff" * 9, summary=summary),
        )
        for i, (args, reason, status, summary) in enumerate(
            [
                ({1, 2}, "why \ud800", "ok", "s\ud800"),
                (b"\x00raw", "", "error", ""),
                ({"k": [1.5, None]}, "plain", "ok", "s"),
                ({3}, "\udc00", "ok", "s"),
            ]
        )
    ]
    for window in (0, 1, 6):
        quick, *others = routes(steps, window, 12)
        for other in others:
            assert other == quick


ANY_TEXT = st.text(st.characters(exclude_categories=()) | st.sampled_from(["\ud800", "\udfff", '"', "\\", "\x00"]))
"""Any text, lone surrogates, escapes and astral characters among it."""


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.booleans(), ANY_TEXT, ANY_TEXT, ANY_TEXT), min_size=1, max_size=5),
    st.sampled_from([0, 1, 6]),
)
def test_a_result_utf8_cannot_carry_beside_a_plain_call_is_counted_once(
    texts: list[tuple[bool, str, str, str]], recent_results: int
) -> None:
    """Text UTF-8 cannot carry in a result or a summary, or only in the call's reason, leaves every view's size in the
    series what its messages encode to (a plain call's strings were once counted twice when its result held one)."""
    steps = [
        Step(
            index=i,
            decision=Decision(kind="tool_call", tool="read_file", args={"path": "a.py"}, reason=reason),
            observation=Observation(status="error" if failed else "ok", content=content, summary=summary),
        )
        for i, (failed, reason, content, summary) in enumerate(texts)
    ]
    step_input = StepInput(steps=tuple(steps))
    options = render.Options(opening=OPENING, recent_results=recent_results)
    views = Views(step_input, options)
    series = views.sizes()
    everything = render.Options(opening=OPENING, recent_results=NO_WINDOW)
    for at, size, no_window in zip(series.at, series.bytes, series.bytes_no_window, strict=True):
        view = StepInput(steps=tuple(step for step in steps if at is None or step.index < at))
        assert size == views.at(at).bytes == wire_bytes(render.messages(view, options)), at
        assert no_window == wire_bytes(render.messages(view, everything)), at


def test_a_lone_surrogate_in_a_result_alone_is_counted_as_its_view_encodes() -> None:
    """The case the property above found: a call whose reason, tool and input are plain and whose result holds a
    lone surrogate; the view holding it is its messages' bytes, not those plus the call's strings again."""
    step = Step(
        index=0,
        decision=Decision(kind="tool_call", tool="t", args={}, reason="why"),
        observation=Observation(content="bad \ud800 text", summary="ok"),
    )
    step_input = StepInput(steps=(step,))
    options = render.Options(opening=OPENING)
    assert Views(step_input, options).sizes().bytes[-1] == wire_bytes(render.messages(step_input, options))


@settings(max_examples=40, deadline=None)
@given(
    prefills=st.lists(st.tuples(st.booleans(), st.text(min_size=1, max_size=12)), min_size=1, max_size=6),
    last_replied=st.booleans(),
)
def test_a_call_logs_prefills_are_sized_as_the_views_that_end_with_them(
    prefills: list[tuple[bool, str]], last_replied: bool, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Over call logs whose calls end with a prefill or not (the last answered or not), each view's size in the
    series is its messages' bytes, and the view deciding each answered call is that call's request (its key)."""
    reply = {"type": "message", "role": "assistant", "stop_reason": "end_turn"}
    history: list[dict[str, Any]] = []
    calls = []
    for number, (prefilled, text) in enumerate(prefills):
        history.append({"role": "user", "content": f"question {number}"})
        prefill = [{"type": "text", "text": text}] if prefilled else []
        call: dict[str, Any] = {
            "request": {
                "model": "m",
                "max_tokens": 64,
                "messages": [*history, *([{"role": "assistant", "content": prefill}] if prefill else [])],
            },
            "response": {**reply, "id": f"msg_{number}", "content": [{"type": "text", "text": f" answer {number}"}]},
        }
        calls.append(call)
        history.append({"role": "assistant", "content": [*prefill, *call["response"]["content"]]})
    if not last_replied:
        del calls[-1]["response"]
    path = tmp_path_factory.mktemp("log") / "calls.jsonl"
    path.write_text("".join(json.dumps(call) + "\n" for call in calls))
    run = load(path)
    views = Views(run)
    sizes = views.sizes()
    for at, size in enumerate(sizes.bytes):
        view = views.at(at)
        assert size == len(msgspec.json.encode([message.to_dict() for message in view.messages])), at
    for model_call in run.model_calls:
        assert views.at(model_call.step).replay_key == model_call.request_key, model_call.step
