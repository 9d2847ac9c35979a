"""Invariants of the render contract, checked over generated runs and replies (hypothesis)."""

import copy
import itertools
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agentrender import ContentBlock, Decision, Message, ModelResponse, Step, StepInput, render
from agentrender.render import NAME_BYTES, REASON_BYTES, truncate
from tests._support.examples import examples
from tests._support.steps import json_values, make_steps, step_bodies, texts

PROPERTY = settings(max_examples=examples(150), deadline=None)
ID = re.compile(r"^[a-zA-Z0-9_-]+$")

options = st.builds(
    render.Options,
    opening=st.just("Goal: fix the test."),
    recent_results=st.integers(0, 8),
    result_bytes=st.integers(0, 120),
)


def utf8_len(s: str) -> int:
    return len(s.encode("utf-8", "surrogatepass"))


def assert_valid_for_the_api(conversation: list[Message]) -> None:
    assert conversation, "a conversation is never empty"
    assert conversation[0].role == "user"
    for earlier, later in itertools.pairwise(conversation):
        assert earlier.role != later.role, "roles alternate"
    for position, message in enumerate(conversation):
        assert message.content, "no message is empty"
        for block in message.content:
            if block.type == "text":
                assert block.text.strip(), "no blank text block"
            if block.type in ("tool_use", "tool_result"):
                assert ID.match(block.tool_use_id), block.tool_use_id
        uses = [b.tool_use_id for b in message.content if b.type == "tool_use"]
        following = conversation[position + 1].content if position + 1 < len(conversation) else ()
        if message.role == "assistant":
            answered = [b.tool_use_id for b in following[: len(uses)] if b.type == "tool_result"]
            assert answered == uses, "every tool_use is answered at the start of the next user turn"
        else:
            results = [b.tool_use_id for b in message.content if b.type == "tool_result"]
            previous = conversation[position - 1].content if position else ()
            assert results == [b.tool_use_id for b in previous if b.type == "tool_use"], "no orphan tool_result"


@PROPERTY
@given(step_bodies, options)
def test_rendered_conversation_is_valid_for_the_messages_api(bodies: Any, opts: render.Options) -> None:
    """Any run renders user-first, alternating, every tool_use answered by its tool_result, no blank text, safe ids."""
    conversation = render.messages(StepInput(steps=make_steps(bodies)), opts)
    assert_valid_for_the_api(conversation)
    assert len(conversation) == 1 + 2 * sum(1 for d, _ in bodies if d is not None)


@PROPERTY
@given(step_bodies, options)
def test_rendering_is_deterministic_and_pure(bodies: Any, opts: render.Options) -> None:
    """Rendering the same input twice gives equal wire forms and leaves the input exactly as it was."""
    steps = make_steps(bodies)
    before = copy.deepcopy(steps)
    first = [m.to_dict() for m in render.messages(StepInput(steps=steps), opts)]
    second = [m.to_dict() for m in render.messages(StepInput(steps=steps), opts)]
    assert first == second
    assert steps == before
    assert render.replay_key(first) == render.replay_key(second)


@PROPERTY
@given(step_bodies, options)
def test_results_are_bounded_by_window_and_cap(bodies: Any, opts: render.Options) -> None:
    """At most recent_results full contents are shown, only for the last rendered steps, each within result_bytes."""
    steps = make_steps(bodies)
    fulls: list[bool] = []

    def spy(step: Step, tool_use_id: str, full: bool) -> None:
        fulls.append(full)

    conversation = render.messages(
        StepInput(steps=steps),
        render.Options(
            opening=opts.opening, recent_results=opts.recent_results, result_bytes=opts.result_bytes, observation=spy
        ),
    )
    rendered = len(conversation) // 2
    shown = min(rendered, opts.recent_results)
    assert fulls == [False] * (rendered - shown) + [True] * shown
    results = [m.content[0] for m in conversation[2::2] if m.content[0].type == "tool_result"]
    contents = [b.content for b in results if b.content.startswith("C")]
    assert len(contents) <= opts.recent_results
    for block in results:
        if block.content.startswith(("C", "S")):
            assert utf8_len(block.content) <= opts.result_bytes


def custom_id(step: Step) -> str:
    return "" if step.index % 2 else f"call_{step.index}"


def custom_assistant(step: Step, tool_use_id: str) -> list[ContentBlock] | None:
    return None if step.index % 2 else [ContentBlock(type="text", text=f"hook {tool_use_id}")]


def custom_observation(step: Step, tool_use_id: str, full: bool) -> ContentBlock | None:
    return None if step.index % 3 else ContentBlock(type="tool_result", tool_use_id=tool_use_id, content=f"{full}")


any_options = st.builds(
    render.Options,
    opening=st.sampled_from(["Goal: fix the test.", (ContentBlock(type="text", text="Goal"),)]),
    recent_results=st.integers(0, 8),
    result_bytes=st.integers(0, 120),
    tool_use_id=st.none() | st.just(custom_id),
    assistant=st.none() | st.just(custom_assistant),
    observation=st.none() | st.just(custom_observation),
)


@settings(max_examples=examples(600), deadline=None)
@given(step_bodies, any_options)
def test_wire_messages_is_the_wire_form_of_messages(bodies: Any, opts: render.Options) -> None:
    """wire_messages, made in one pass from the contract's rules, equals every rendered message's to_dict, key order
    included, for runs of every shape, with and without step hooks."""
    step_input = StepInput(steps=make_steps(bodies))
    wire = render.wire_messages(step_input, opts)
    expected = [message.to_dict() for message in render.messages(step_input, opts)]
    assert wire == expected
    assert render.replay_key(wire) == render.replay_key(expected)


replies = st.builds(
    ModelResponse,
    content=st.lists(
        st.one_of(
            st.builds(ContentBlock, type=st.just("text"), text=texts | st.text(min_size=400, max_size=700)),
            st.builds(
                ContentBlock, type=st.just("thinking"), text=texts.map(lambda t: "SECRET " + t), signature=st.just("s")
            ),
            st.builds(
                ContentBlock,
                type=st.just("tool_use"),
                tool_use_id=st.just("toolu_1"),
                name=st.text(st.characters(codec="utf-8"), max_size=90),
                input=st.none() | json_values | texts | st.binary(max_size=12),
            ),
        ),
        max_size=12,
    ),
    stop_reason=st.sampled_from(["tool_use", "end_turn", "max_tokens", "refusal", "model_context_window_exceeded", ""]),
)


def note(names: list[str], kept: int) -> str:
    listed = names[:kept] + (["…"] if kept < len(names) else [])
    return f"[{len(names)} further tool call(s) not executed: " + ", ".join(listed) + "]"


@settings(max_examples=examples(300), deadline=None)
@given(replies)
def test_decide_invariants(response: ModelResponse) -> None:
    """decide never yields complete, keeps within REASON_BYTES, and names (K, and all names that fit) the unrun uses."""
    decision = decide_checked(response)
    uses = [b for b in response.content if b.type == "tool_use"]
    if response.stop_reason in ("max_tokens", "model_context_window_exceeded"):
        assert decision.kind == "truncated"
    elif response.stop_reason == "refusal" or not uses:
        assert decision.kind == "no_tool_call"
    else:
        assert (decision.kind, decision.tool) == ("tool_call", uses[0].name)
        if len(uses) > 1:
            names = [truncate(u.name, NAME_BYTES) for u in uses[1:]]
            limit = REASON_BYTES // 2
            fitting = [k for k in range(len(names) + 1) if utf8_len(note(names, k)) <= limit]
            kept = max(fitting)
            assert decision.reason.endswith(note(names, kept))
            assert kept == len(names) or kept + 1 not in fitting


def decide_checked(response: ModelResponse) -> Decision:
    decision = render.decide(response)
    assert decision.kind != "complete"
    assert utf8_len(decision.reason) <= REASON_BYTES
    assert "SECRET" not in decision.reason
    if decision.invalid_args:
        assert decision.args is None
    return decision


@settings(max_examples=examples(300), deadline=None)
@given(st.text(), st.integers(-5, 80))
def test_truncate_invariants(s: str, n: int) -> None:
    """truncate stays within max(n, 0) bytes and returns s itself or a prefix of it plus the mark (unmarked below 3)."""
    got = truncate(s, n)
    assert utf8_len(got) <= max(n, 0)
    if utf8_len(s) <= max(n, 0):
        assert got == s
    elif n >= 3:
        assert got.endswith("…") and s.startswith(got[:-1])
        assert utf8_len(s[: len(got)]) > n - 3, "the longest prefix that fits is kept"
    else:
        assert s.startswith(got)
