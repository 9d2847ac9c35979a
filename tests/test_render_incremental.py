"""``render.Renderer``: the contract one step at a time gives exactly what ``render.messages`` gives the same steps."""

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentrender import ContentBlock, Decision, Message, Run, Step, StepInput, imports, render, samples
from agentrender.views import Views
from tests._support.examples import examples
from tests._support.steps import make_steps, step_bodies

PROPERTY = settings(max_examples=examples(200), deadline=None)


def wire(conversation: list) -> list:
    return [m.to_dict() for m in conversation]


def opening_of(step_input: StepInput) -> str:
    return f"Goal, after {len(step_input.steps)} step(s)."


def opening_by_thirds(step_input: StepInput) -> str | list[ContentBlock]:
    """An opening that keeps its text for stretches of steps, and is blocks at every third."""
    steps = len(step_input.steps)
    return [ContentBlock(type="text", text=f"Blocks at {steps}.")] if steps % 3 == 2 else f"Goal {steps // 4}."


hooks = st.fixed_dictionaries(
    {},
    optional={
        "tool_use_id": st.just(lambda step: f"toolu_{step.index}" if step.index % 2 else ""),
        "assistant": st.just(
            lambda step, id_: [ContentBlock(type="text", text=f"raw {step.index}")] if step.index % 3 == 0 else None
        ),
        "observation": st.just(
            lambda step, id_, full: (
                ContentBlock(type="text", text=f"{step.index} {'full' if full else 'summary'}")
                if step.index % 4 == 1
                else None
            )
        ),
        "opening": st.sampled_from([opening_of, opening_by_thirds]),
    },
)


@PROPERTY
@given(bodies=step_bodies, recent=st.integers(0, 8), cap=st.integers(0, 120), hooked=hooks)
def test_each_append_gives_what_messages_gives_the_steps_so_far(bodies, recent, cap, hooked):
    """After each ``append`` the conversation equals ``render.messages`` of the steps so far: the window sliding, the
    cap, nudges, re-requests, skipped steps, hooks and an opening that depends on the steps included."""
    options = render.Options(**{"opening": "Fix the test.", "recent_results": recent, "result_bytes": cap, **hooked})
    steps = make_steps(bodies)
    renderer = render.Renderer(options)
    assert wire(renderer.messages()) == wire(render.messages(StepInput(), options))
    for k, step in enumerate(steps, start=1):
        assert wire(renderer.append(step)) == wire(render.messages(StepInput(steps=steps[:k]), options))
    # and the rules its cache keeps of each turn are the ones the contract's calls give the turn
    turns, rendered = renderer.turns, [step for step in steps if step.decision is not None]
    pairs = zip(rendered, turns.ids, strict=True)
    assert turns.assistant_rules == [render.assistant_turn(step, id_, options)[1] for step, id_ in pairs]
    for form in (turns.full_form, turns.summary_form):
        for step, id_, rule in zip(rendered, turns.ids, form.rules, strict=True):
            assert rule in ("", render.user_turn(step, id_, form.full, options)[1])


def test_a_hook_that_gives_the_same_text_keeps_the_opening_message():
    """An opening hook that gives the same text at each step (fixed instructions and the task) gives the same
    opening message, checked and made once; a new text, or blocks, make a new one, and a blank text is refused at
    every step it is given."""
    texts = iter(["Fix the test.", "Fix the test.", "Fix the test.", "Fix it now.", "Fix it now.", "  "])
    renderer = render.Renderer(render.Options(opening=lambda step_input: next(texts)))  # called once here
    steps = make_steps([(Decision(kind="tool_call", tool="bash"), None)] * 5)
    first, same, new, again = (renderer.append(step)[0] for step in steps[:4])
    assert same is first and again is new and new is not first
    assert new == Message(role="user", content=(ContentBlock(type="text", text="Fix it now."),))
    with pytest.raises(ValueError, match="the opening text is empty"):
        renderer.append(steps[4])


@PROPERTY
@given(bodies=step_bodies, recent=st.integers(0, 8), cap=st.integers(0, 120))
def test_views_grown_a_step_at_a_time_give_what_the_renderer_gives(bodies, recent, cap):
    """Views grown one step a growth (``Views.extend``, as the follower grows them) and a ``Renderer`` taking the
    same steps share one per-step cache (``render.Turns``) and one window rule: at each step the views' last
    conversation, a fresh ``Views``' and the renderer's are ``render.messages`` of the steps so far."""
    header = {"type": "run", "run_id": "r", "goal": "Fix the test.", "tools": []}
    steps = make_steps(bodies)
    run = Run(header=header)
    options = run.options(recent_results=recent, result_bytes=cap)
    views, renderer = Views(run, options), render.Renderer(options)
    for k, step in enumerate(steps, start=1):
        run = Run(header=header, steps=tuple(steps[:k]))
        views.extend(run, step.index)
        expected = wire(render.messages(run.step_input(k), options))
        assert wire(renderer.conversation(run.step_input(k))) == expected
        assert wire(views.messages(None)) == expected
        assert wire(Views(run, options).messages(None)) == expected
        assert views.at(None).full_count == min(recent, sum(s.decision is not None for s in steps[:k]))


def test_a_conversation_given_earlier_is_not_changed_by_later_steps():
    """A ``Conversation`` is a snapshot: the steps taken after it (and the full results the renderer let go of as
    they left the window) leave it as it was given."""
    run = samples.load("fix-failing-test")
    options = run.options(recent_results=1)
    renderer = render.Renderer(options)
    given_ = [(k, renderer.conversation(run.step_input(k))) for k in range(1, len(run.steps) + 1)]
    for k, conversation in given_:
        assert wire(conversation) == wire(render.messages(run.step_input(k), options))
        assert [conversation[i] for i in range(-len(conversation), len(conversation))] == [*conversation, *conversation]


def test_the_work_of_an_append_does_not_grow_with_the_run():
    """Each step's turns are rendered once, and its user turn once more when it leaves the window: the hooks are
    called a fixed number of times a step, whatever the length of the run."""
    calls = {"assistant": 0, "observation": 0}

    def assistant(step, id_):
        calls["assistant"] += 1

    def observation(step, id_, full):
        calls["observation"] += 1

    options = render.Options(opening="Go.", recent_results=3, assistant=assistant, observation=observation)
    renderer = render.Renderer(options)
    run = samples.load("fix-failing-test")
    steps = [msgspec.structs.replace(step, index=i) for i, step in enumerate(list(run.steps) * 50)]
    for step in steps:
        renderer.append(step)
    rendered = sum(step.decision is not None for step in steps)
    assert calls == {"assistant": rendered, "observation": 2 * rendered - 3}


@pytest.mark.parametrize("name", samples.names())
def test_a_recorded_run_renders_incrementally_as_it_renders_whole(name):
    """Every bundled sample run, through its own options, gives the view at each step one append at a time."""
    run = samples.load(name)
    options = run.options()
    renderer = render.Renderer(options)
    for k in range(1, len(run.steps) + 1):
        assert wire(renderer.conversation(run.step_input(k))) == wire(render.messages(run.step_input(k), options))


def test_steps_that_do_not_extend_what_was_taken_are_refused():
    """``conversation`` of another run's steps is a ``ValueError``: a renderer follows one growing run."""
    run = samples.load("fix-failing-test")
    renderer = render.Renderer(run.options())
    renderer.conversation(run.step_input(3))
    other = [Step(index=i) for i in range(2)]
    with pytest.raises(ValueError, match="do not extend"):
        renderer.conversation(StepInput(steps=other))


@pytest.mark.parametrize(
    "name", sorted(p.name for p in samples.imports_folder().iterdir() if p.is_file() and p.suffix != ".md")
)
def test_an_imported_run_renders_incrementally_as_sent(name):
    """A run imported from another agent's history renders each view as sent one step at a time, as it does whole."""
    for run in imports.load_runs(samples.imports_folder() / name):
        options = run.options()
        renderer = render.Renderer(options)
        for k in range(1, len(run.steps) + 1):
            assert wire(renderer.conversation(run.step_input(k))) == wire(render.messages(run.step_input(k), options))
