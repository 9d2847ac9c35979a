"""render.messages (CONTRACT §3), render.default_observation (§4) and Options validation."""

from typing import Any

import pytest

from agentrender import ContentBlock, Decision, Message, Observation, Step, StepInput, render
from agentrender.render import (
    INTERRUPTED_TEXT,
    NO_SUMMARY_TEXT,
    NUDGE_NO_TOOL_CALL,
    NUDGE_TRUNCATED,
    Options,
    default_observation,
    invalid_nudge,
)

CALL = Decision(kind="tool_call", tool="read_file", args={"path": "a.py"}, reason="Look.")
OK = Observation(status="ok", content="the full content", summary="the summary")


def text(t: str) -> ContentBlock:
    return ContentBlock(type="text", text=t)


def result(content: str, is_error: bool = False, id: str = "step_3") -> ContentBlock:
    return ContentBlock(type="tool_result", tool_use_id=id, content=content, is_error=is_error)


def step(decision: Decision | None = CALL, observation: Observation | None = OK, index: int = 3) -> Step:
    return Step(index=index, decision=decision, observation=observation)


def invalid(summary: str) -> Observation:
    return Observation(status="invalid_decision", summary=summary)


# -- §4 default_observation ------------------------------------------------------------

ROWS: list[tuple[str, Step, bool, ContentBlock]] = [
    ("no decision", step(None, None), True, text(NUDGE_NO_TOOL_CALL)),
    ("no decision, with an observation", step(None, OK), True, text(NUDGE_NO_TOOL_CALL)),
    ("no_tool_call", step(Decision(kind="no_tool_call", reason="hm"), invalid("x")), True, text(NUDGE_NO_TOOL_CALL)),
    ("truncated", step(Decision(kind="truncated"), invalid("cut")), True, text(NUDGE_TRUNCATED)),
    ("truncated, not full", step(Decision(kind="truncated"), None), False, text(NUDGE_TRUNCATED)),
    (
        "unknown kind, invalid_decision",
        step(Decision(kind="bogus"), invalid("unknown kind 'bogus'")),
        True,
        text("Your reply could not be executed: unknown kind 'bogus'. Respond with exactly one tool call."),
    ),
    ("unknown kind, ok", step(Decision(kind="bogus"), OK), True, text(NUDGE_NO_TOOL_CALL)),
    ("complete, no observation", step(Decision(kind="complete"), None), True, text(NUDGE_NO_TOOL_CALL)),
    (
        "tool_call without a tool, invalid_decision",
        step(Decision(kind="tool_call"), invalid("no tool named")),
        False,
        text("Your reply could not be executed: no tool named. Respond with exactly one tool call."),
    ),
    (
        "tool_call without a tool, no observation",
        step(Decision(kind="tool_call"), None),
        True,
        text(NUDGE_NO_TOOL_CALL),
    ),
    ("a call, no observation", step(CALL, None), True, result(INTERRUPTED_TEXT)),
    ("a call, no observation, not full", step(CALL, None), False, result(INTERRUPTED_TEXT)),
    (
        "a call, interrupted",
        step(CALL, Observation(status="interrupted", content="partial", summary="s")),
        True,
        result(INTERRUPTED_TEXT),
    ),
    (
        "a call, invalid_decision",
        step(CALL, invalid("args failed the schema: 'path' is required.")),
        True,
        result(
            "Your reply could not be executed: args failed the schema: 'path' is required. "
            "Respond with exactly one tool call.",
            is_error=True,
        ),
    ),
    (
        "a call, invalid_decision, empty summary",
        step(CALL, invalid("  ")),
        False,
        result("Your reply could not be executed. Respond with exactly one tool call.", is_error=True),
    ),
    ("a call, full", step(CALL, OK), True, result("the full content")),
    (
        "a call, full, error",
        step(CALL, Observation(status="error", content="Traceback", summary="failed")),
        True,
        result("Traceback", is_error=True),
    ),
    ("a call, full, empty content", step(CALL, Observation(summary="s")), True, result("")),
    ("a call, not full", step(CALL, OK), False, result("the summary")),
    (
        "a call, not full, error",
        step(CALL, Observation(status="error", content="Traceback", summary="failed")),
        False,
        result("failed", is_error=True),
    ),
    ("a call, not full, no summary", step(CALL, Observation(content="c")), False, result(NO_SUMMARY_TEXT)),
    (
        "a call, not full, blank summary kept as written",
        step(CALL, Observation(content="c", summary="  ")),
        False,
        result("  "),
    ),
    ("an unknown status is not a failure", step(CALL, Observation(status="weird", content="c")), True, result("c")),
]


@pytest.mark.parametrize(("name", "the_step", "full", "expected"), ROWS, ids=[row[0] for row in ROWS])
def test_default_observation_table(name: str, the_step: Step, full: bool, expected: ContentBlock) -> None:
    """Every row of CONTRACT §4 gives exactly its block, in the table's order of precedence."""
    assert default_observation(the_step, "step_3", full, 16384) == expected


def test_default_observation_caps_content_and_summary() -> None:
    """Content (full) and summary (not full) are each capped at max_bytes with the mark."""
    obs = Observation(content="c" * 100, summary="s" * 100)
    assert default_observation(step(CALL, obs), "id", True, 10).content == "c" * 7 + "…"
    assert default_observation(step(CALL, obs), "id", False, 10).content == "s" * 7 + "…"
    assert default_observation(step(CALL, obs), "id", True, 0).content == ""


def test_invalid_nudge_strips_and_caps_the_summary() -> None:
    """The invalid-decision nudge strips the summary, caps it, and removes trailing dots and spaces."""
    assert invalid_nudge("  bad args. . ") == (
        "Your reply could not be executed: bad args. Respond with exactly one tool call."
    )
    assert invalid_nudge("") == "Your reply could not be executed. Respond with exactly one tool call."
    assert invalid_nudge("...") == "Your reply could not be executed. Respond with exactly one tool call."
    assert invalid_nudge("x" * 50, 10) == (
        "Your reply could not be executed: xxxxxxx…. Respond with exactly one tool call."
    )
    capped = default_observation(step(CALL, invalid("y" * 50)), "id", True, 10)
    assert capped.content == "Your reply could not be executed: yyyyyyy…. Respond with exactly one tool call."


def test_nudge_sentences_are_exact() -> None:
    """The exported sentences are the seed's, word for word."""
    assert NUDGE_NO_TOOL_CALL == "Your reply contained no executable tool call. Respond with exactly one tool call."
    assert NUDGE_TRUNCATED == (
        "Your reply hit the output token cap before the tool call was complete, so nothing ran. "
        "Respond with exactly one short tool call."
    )
    assert INTERRUPTED_TEXT == (
        "The process stopped while this tool was running, so its outcome is unknown. "
        "Call the tool again; it answers from its own record."
    )
    assert NO_SUMMARY_TEXT == "(no summary)"


# -- §3 messages -----------------------------------------------------------------------


def wire(conversation: list[Message]) -> list[dict[str, Any]]:
    return [m.to_dict() for m in conversation]


def test_messages_default_turns() -> None:
    """The opening, then per rendered step the reason and tool_use, then the tool_result; no-call steps get nudges."""
    steps = [
        step(CALL, OK, index=0),
        step(None, None, index=1),
        step(Decision(kind="no_tool_call"), invalid("no call"), index=2),
        step(Decision(kind="tool_call", tool="list_dir", reason="  "), Observation(content="a\nb"), index=3),
        step(Decision(kind="truncated", reason="I was about to"), invalid("cut"), index=4),
    ]
    out = wire(render.messages(StepInput(steps=steps), Options(opening="Goal.")))
    assert out == [
        {"role": "user", "content": [{"type": "text", "text": "Goal."}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Look."},
                {"type": "tool_use", "id": "step_0", "name": "read_file", "input": {"path": "a.py"}},
            ],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "step_0", "content": "the full content"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "(no tool call)"}]},
        {"role": "user", "content": [{"type": "text", "text": NUDGE_NO_TOOL_CALL}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "step_3", "name": "list_dir", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "step_3", "content": "a\nb"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "I was about to"}]},
        {"role": "user", "content": [{"type": "text", "text": NUDGE_TRUNCATED}]},
    ]


def test_window_counts_rendered_steps_only() -> None:
    """Steps without a decision take no place in the window: the last recent_results rendered steps are full."""
    steps = []
    for i in range(6):
        steps.append(step(CALL, OK, index=2 * i))
        steps.append(step(None, None, index=2 * i + 1))
    out = render.messages(StepInput(steps=steps), Options(opening="g", recent_results=3))
    contents = [m.content[0].content for m in out[2::2]]
    assert contents == ["the summary"] * 3 + ["the full content"] * 3


@pytest.mark.parametrize(("recent", "full_count"), [(0, 0), (1, 1), (4, 4), (6, 4), (100, 4)])
def test_window_sizes(recent: int, full_count: int) -> None:
    """recent_results 0 shows only summaries; a window larger than the run shows everything in full."""
    steps = [step(CALL, OK, index=i) for i in range(4)]
    out = render.messages(StepInput(steps=steps), Options(opening="g", recent_results=recent))
    contents = [m.content[0].content for m in out[2::2]]
    assert contents == ["the summary"] * (4 - full_count) + ["the full content"] * full_count


def test_opening_callable_receives_the_step_input() -> None:
    """A callable opening is called with the StepInput and its text opens the conversation."""
    seen: list[StepInput] = []

    def opening(step_input: StepInput) -> str:
        seen.append(step_input)
        return f"Goal: {step_input.goal}"

    step_input = StepInput(goal="fix it", steps=[step(CALL, OK, index=0)])
    out = render.messages(step_input, Options(opening=opening))
    assert seen == [step_input]
    assert out[0] == Message(role="user", content=(text("Goal: fix it"),))


def test_tool_use_id_hook_falls_back_per_step() -> None:
    """A tool_use_id hook returning "" (or None) falls back to step_<index> for that step only."""
    steps = [step(CALL, OK, index=i) for i in range(3)]
    ids = {0: "toolu_custom", 1: "", 2: None}
    out = render.messages(StepInput(steps=steps), Options(opening="g", tool_use_id=lambda s: ids[s.index]))  # type: ignore[arg-type, return-value]
    assert [m.content[-1].tool_use_id for m in out[1:]] == [
        "toolu_custom",
        "toolu_custom",
        "step_1",
        "step_1",
        "step_2",
        "step_2",
    ]


@pytest.mark.parametrize("fallback", [None, [], ()])
def test_assistant_hook_falls_back_per_step(fallback: Any) -> None:
    """An assistant hook returning None or an empty list leaves that step (only) to the default turn."""
    custom = [ContentBlock(type="text", text="custom turn")]
    steps = [step(CALL, OK, index=0), step(CALL, OK, index=1)]
    hook_calls: list[tuple[int, str]] = []

    def assistant(s: Step, id: str) -> Any:
        hook_calls.append((s.index, id))
        return custom if s.index == 0 else fallback

    out = render.messages(StepInput(steps=steps), Options(opening="g", assistant=assistant))
    assert hook_calls == [(0, "step_0"), (1, "step_1")]
    assert out[1].content == tuple(custom)
    assert out[3].content == (
        text("Look."),
        ContentBlock(type="tool_use", tool_use_id="step_1", name="read_file", input={"path": "a.py"}),
    )


def test_assistant_hook_may_return_an_empty_iterator() -> None:
    """An assistant hook returning an exhausted iterator falls back rather than rendering an empty turn."""
    out = render.messages(
        StepInput(steps=[step(CALL, OK, index=0)]), Options(opening="g", assistant=lambda s, i: iter([]))
    )
    assert out[1].content[-1].type == "tool_use"


@pytest.mark.parametrize("fallback", [None, ContentBlock(type=""), ContentBlock(type="", content="ignored")])
def test_observation_hook_falls_back_per_step(fallback: ContentBlock | None) -> None:
    """An observation hook returning None or a type "" block leaves that step to default_observation."""
    custom = ContentBlock(type="tool_result", tool_use_id="step_0", content="custom result")
    steps = [step(CALL, OK, index=0), step(CALL, OK, index=1)]
    seen: list[tuple[int, str, bool]] = []

    def observation(s: Step, id: str, full: bool) -> ContentBlock | None:
        seen.append((s.index, id, full))
        return custom if s.index == 0 else fallback

    out = render.messages(StepInput(steps=steps), Options(opening="g", recent_results=1, observation=observation))
    assert seen == [(0, "step_0", False), (1, "step_1", True)]
    assert out[2].content == (custom,)
    assert out[4].content == (result("the full content", id="step_1"),)


def test_default_result_cap_comes_from_options() -> None:
    """options.result_bytes caps the default observation's content."""
    out = render.messages(StepInput(steps=[step(CALL, OK, index=0)]), Options(opening="g", result_bytes=8))
    assert out[2].content[0].content == "the f…"


# -- Options ---------------------------------------------------------------------------


@pytest.mark.parametrize("opening", [None, "", "   ", "\n\t"])
def test_options_rejects_a_missing_or_blank_opening(opening: str | None) -> None:
    """A missing, empty or whitespace-only opening is a ValueError naming Options.opening."""
    with pytest.raises(ValueError, match=r"Options\.opening"):
        Options(opening=opening)


def test_options_opening_left_out_is_a_value_error() -> None:
    """Options() with no opening at all raises the same clear ValueError, not a TypeError."""
    with pytest.raises(ValueError, match=r"Options\.opening is required"):
        Options()


def test_options_rejects_a_non_callable_opening() -> None:
    """An opening that is neither text nor callable is a ValueError naming its type."""
    with pytest.raises(ValueError, match="expected text or a callable, got int"):
        Options(opening=5)  # type: ignore[arg-type]


@pytest.mark.parametrize("returned", ["", "  \n", None, 42])
def test_callable_opening_returning_blank_raises(returned: Any) -> None:
    """A callable opening returning blank or non-text makes messages raise a ValueError naming Options.opening."""
    with pytest.raises(ValueError, match=r"Options\.opening"):
        render.messages(StepInput(), Options(opening=lambda _: returned))


@pytest.mark.parametrize(("field", "value"), [("recent_results", -1), ("result_bytes", -1)])
def test_options_rejects_negative_numbers(field: str, value: int) -> None:
    """A negative recent_results or result_bytes is a ValueError naming the field."""
    with pytest.raises(ValueError, match=f"Options.{field} must be 0 or more, got -1"):
        Options(opening="g", **{field: value})


def test_options_defaults() -> None:
    """Options defaults to the contract's window and cap and no hooks."""
    options = Options(opening="g")
    assert (options.recent_results, options.result_bytes) == (6, 16384)
    assert (options.tool_use_id, options.assistant, options.observation) == (None, None, None)


def test_empty_run_renders_the_opening_alone() -> None:
    """A run with no steps (or none with a decision) renders just the opening message."""
    for steps in ([], [step(None, None, index=0)]):
        assert wire(render.messages(StepInput(steps=steps), Options(opening="g"))) == [
            {"role": "user", "content": [{"type": "text", "text": "g"}]}
        ]
