"""Views of a run that grows: ``Views.extend`` keeps what it rendered of earlier stops and equals fresh views."""

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agentrender import Decision, Run, Step, StepInput, render
from agentrender.views import StepFact, Views
from tests._support.examples import examples
from tests._support.steps import step_bodies

HEADER = {"type": "run", "run_id": "r", "goal": "grow", "tools": [{"name": "read_file"}]}


def stages(draw: st.DrawFn) -> list[list[Step]]:
    """A run's steps at each of its growths: a few more steps, the newest first recorded without its result."""
    bodies = draw(step_bodies)
    cuts = sorted(draw(st.lists(st.integers(0, len(bodies)), max_size=5)))
    out = []
    for cut in [*cuts, len(bodies)]:
        steps = [Step(index=i, decision=d, observation=o) for i, (d, o) in enumerate(bodies[:cut])]
        if steps and draw(st.booleans()):  # recorded when decided; recorded again, whole, at the next stage
            steps[-1] = Step(index=steps[-1].index, decision=steps[-1].decision)
        out.append(steps)
    return out


def changed_from(before: list[Step], after: list[Step]) -> int | None:
    """The lowest index of a step of ``after`` that ``before`` does not hold as it is."""
    for old, new in zip(before, after, strict=False):
        if old != new:
            return new.index
    return after[len(before)].index if len(after) > len(before) else None


def look_at_everything(views: Views) -> None:
    """Ask every fact of every stop, so that later growth has renders and sizes to keep or drop."""
    views.sizes()
    for stop in views.stops:
        view = views.at(stop)
        _ = view.steps, view.messages, view.change, view.bytes


def facts(fact: StepFact) -> tuple[Any, ...]:
    """What a step's fact tells a reader (a fact also holds the renders it reads from, which differ)."""
    return (fact.step, fact.rendered, fact.message_index, fact.tool_use_id, fact.full, fact.ended, fact.in_view,
            fact.assistant, fact.result, fact.hidden_text())  # fmt: skip


def same_views(grown: Views, fresh: Views) -> None:
    assert grown.stops == fresh.stops
    assert grown.steps == fresh.steps
    assert grown.sizes() == fresh.sizes()
    for stop in fresh.stops:
        a, b = grown.at(stop), fresh.at(stop)
        assert a.messages == b.messages, stop
        assert list(map(facts, a.steps)) == list(map(facts, b.steps)), stop
        assert a.result_blocks() == b.result_blocks(), stop
        assert a.change == b.change, stop
        assert (a.bytes, a.bytes_no_window, a.replay_key) == (b.bytes, b.bytes_no_window, b.replay_key), stop


@settings(max_examples=examples(60), deadline=None)
@given(st.data(), st.integers(0, 4), st.sampled_from([8, 40, 10_000]), st.booleans())
def test_extended_views_equal_fresh_views_at_every_stop(data: Any, window: int, cap: int, look: bool) -> None:
    """After each growth of a run, every stop of the extended views equals the stop of fresh views of it."""
    growths = data.draw(st.composite(stages)())
    run = Run(header=HEADER, steps=tuple(growths[0]))
    options = run.options(recent_results=window, result_bytes=cap)
    views = Views(run, options)
    before = growths[0]
    for steps in growths[1:]:
        if look:
            look_at_everything(views)
        run = Run(header=HEADER, steps=tuple(steps))
        views.extend(run, changed_from(before, steps))
        same_views(views, Views(run, options))
        before = steps


def test_a_step_taken_in_keeps_the_earlier_stops_views() -> None:
    """A view taken before the run grew keeps its messages: the growth renders only the new step."""
    steps = [Step(index=i, decision=Decision(kind="tool_call", tool="read_file", args={"path": f"{i}"}))
             for i in range(4)]  # fmt: skip
    first = Run(header=HEADER, steps=tuple(steps[:3]))
    views = Views(first, first.options(recent_results=1))
    early = views.at(2).messages
    views.extend(Run(header=HEADER, steps=tuple(steps)), 3)
    assert views.stops == (0, 1, 2, 3, 4)
    assert views.at(2).messages == early
    assert views.at(4).messages == render.messages(StepInput(steps=tuple(steps), goal="grow"), views.options)


def test_extend_refuses_views_of_a_step_input() -> None:
    """Views of a StepInput have no run to grow: extend says so."""
    views = Views(StepInput(), Run(header=HEADER).options())
    try:
        views.extend(Run(header=HEADER), None)
    except TypeError as error:
        assert "StepInput" in str(error)
    else:
        raise AssertionError("extend took a run into views of a StepInput")


def test_a_growth_taken_in_makes_no_tuple_of_every_stop(monkeypatch: Any) -> None:
    """What a followed run asks of each growth (``--follow``: the newest view, its change, bytes and last step's facts;
    a step checked, the stop before it) reads the last stop without making ``stops`` again, a tuple of every step: at
    100,000 steps that tuple was most of a growth's cost (bench_follow.py, session 38)."""
    steps = [Step(index=i, decision=Decision(kind="tool_call", tool="read_file", args={"path": f"{i}"}))
             for i in range(6)]  # fmt: skip
    first = Run(header=HEADER, steps=tuple(steps[:5]))
    views = Views(first, first.options())
    views.sizes()
    views.extend(Run(header=HEADER, steps=tuple(steps)), 5)

    def every_stop(self: Views) -> tuple[int, ...]:
        raise AssertionError("made the tuple of every stop")

    monkeypatch.setattr(Views, "stops", property(every_stop))
    view = views.at(None)
    _ = view.change, view.bytes, view.step_facts(view.step_count - 1)[0].result
    assert views.at(6).bytes == view.bytes
    assert views.previous_stop(None) == 5 and views.change(3).previous == 2
    monkeypatch.undo()
    assert views.stops == (0, 1, 2, 3, 4, 5, 6)
