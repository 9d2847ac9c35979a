"""The per-step primitives of the contract say which rule made each turn, and render.messages is a loop over them."""

import json
from typing import Any

import pytest

from agentrender import ContentBlock, Decision, ModelResponse, Observation, Step, StepInput, render, samples
from agentrender.render import (
    ARGS_OUTCOMES,
    ASSISTANT_RULES,
    DECIDE_RULES,
    USER_RULES,
    Options,
    assistant_parts,
    assistant_turn,
    decide,
    decided,
    observation_and_rule,
    tool_use_id,
    user_turn,
)
from agentrender.views import Views

CALL = Decision(kind="tool_call", tool="read_file", args={"path": "a.py"}, reason="Look.")
OK = Observation(status="ok", content="the full content", summary="the summary")
OPTIONS = Options(opening="Do the task.")


def step(decision: Decision | None = CALL, observation: Observation | None = OK) -> Step:
    return Step(index=3, decision=decision, observation=observation)


def invalid(summary: str) -> Observation:
    return Observation(status="invalid_decision", summary=summary)


USER_ROWS: list[tuple[Step, bool, int, str]] = [
    (step(None, None), True, 100, "no_tool_call"),
    (step(Decision(kind="no_tool_call"), OK), True, 100, "no_tool_call"),
    (step(Decision(kind="truncated"), None), False, 100, "truncated"),
    (step(Decision(kind="bogus"), invalid("unknown kind")), True, 100, "not_a_call_invalid"),
    (step(Decision(kind="tool_call"), invalid("no tool named")), True, 100, "not_a_call_invalid"),
    (step(Decision(kind="complete"), OK), True, 100, "not_a_call"),
    (step(CALL, None), True, 100, "interrupted"),
    (step(CALL, Observation(status="interrupted", content="partial")), False, 100, "interrupted"),
    (step(CALL, invalid("args failed the schema")), True, 100, "invalid_decision"),
    (step(CALL, OK), True, 100, "full"),
    (step(CALL, OK), True, 10, "full_cut"),
    (step(CALL, OK), False, 100, "summary"),
    (step(CALL, OK), False, 5, "summary_cut"),
    (step(CALL, Observation(content="c")), False, 100, "no_summary"),
    (step(CALL, Observation(content="")), True, 0, "full"),
]


@pytest.mark.parametrize(("the_step", "full", "max_bytes", "rule"), USER_ROWS)
def test_each_row_of_the_observation_table_names_itself(the_step: Step, full: bool, max_bytes: int, rule: str) -> None:
    """observation_and_rule gives default_observation's block and the row of CONTRACT §4 that made it."""
    block, said = observation_and_rule(the_step, "step_3", full, max_bytes)
    assert said == rule
    assert block == render.default_observation(the_step, "step_3", full, max_bytes)


def test_every_user_rule_is_reached_by_the_table() -> None:
    """The rows above reach every rule USER_RULES names but the hook's: no rule is dead, none unnamed."""
    assert {rule for *_, rule in USER_ROWS} | {"hook"} == set(USER_RULES)


@pytest.mark.parametrize(
    ("decision", "rule", "types"),
    [
        (CALL, "reason_and_call", ["text", "tool_use"]),
        (Decision(kind="tool_call", tool="ls", reason="  "), "call", ["tool_use"]),
        (Decision(kind="no_tool_call", reason="I am done."), "reason", ["text"]),
        (Decision(kind="truncated"), "no_tool_call", ["text"]),
        (Decision(kind="tool_call", reason="no tool name"), "reason", ["text"]),
    ],
)
def test_assistant_turn_names_its_rule(decision: Decision, rule: str, types: list[str]) -> None:
    """assistant_turn gives the default blocks of CONTRACT §3.1 and the rule of ASSISTANT_RULES that made them."""
    blocks, said = assistant_turn(step(decision), "id", OPTIONS)
    assert said == rule and rule in ASSISTANT_RULES
    assert [block.type for block in blocks] == types


@pytest.mark.parametrize(
    ("decision", "parts"),
    [
        (CALL, ("Look.", CALL, "reason_and_call")),
        (
            Decision(kind="tool_call", tool="ls", reason="  "),
            ("", Decision(kind="tool_call", tool="ls", reason="  "), "call"),
        ),
        (Decision(kind="no_tool_call", reason="I am done."), ("I am done.", None, "reason")),
        (Decision(kind="truncated", reason="\n"), ("(no tool call)", None, "no_tool_call")),
    ],
)
def test_assistant_parts_say_what_the_default_turn_holds(decision: Decision, parts: tuple[Any, ...]) -> None:
    """assistant_parts gives the default turn's text, the decision whose tool_use follows it, and assistant_turn's
    rule; a step with no decision has no assistant turn."""
    assert assistant_parts(step(decision)) == parts
    assert assistant_turn(step(decision), "id", OPTIONS)[1] == parts[2]
    with pytest.raises(ValueError, match="step 3 has no decision"):
        assistant_parts(step(None))


@pytest.mark.parametrize(("the_step", "full", "max_bytes", "rule"), USER_ROWS)
def test_default_parts_says_both_default_turns_in_one_call(
    the_step: Step, full: bool, max_bytes: int, rule: str
) -> None:
    """default_parts gives, in one call, what both default turns of a step hold and the rules that made them: the
    assistant turn's text, tool, input and rule, and the user block's type, text, row and error flag, each what the
    per-turn calls (assistant_turn, observation_and_rule) build and report."""
    text, tool, value, assistant_rule, block_type, shown, user_rule, failed = render.default_parts(
        the_step, full, max_bytes
    )
    block, said = observation_and_rule(the_step, "step_3", full, max_bytes)
    assert user_rule == said == rule
    assert block.type == block_type and block.is_error == failed
    assert (block.text if block_type == "text" else block.content) == shown
    assert (block_type, shown, user_rule) == render.observation_parts(the_step, full, max_bytes)
    if the_step.decision is None:
        assert (text, tool, value, assistant_rule) == ("", "", None, "")
        return
    blocks, assistant_said = assistant_turn(the_step, "step_3", OPTIONS)
    assert assistant_rule == assistant_said
    uses = [use for use in blocks if use.type == "tool_use"]
    assert [(use.name, use.input) for use in uses] == ([(tool, value)] if tool else [])
    assert [b.text for b in blocks if b.type == "text"] == ([text] if text else [])


def test_default_parts_of_a_call_and_of_a_nudge() -> None:
    """A call's step: its reason, tool and arguments, and its result; a step that called no tool: its reason and the
    nudge; a failed call's result is flagged."""
    assert render.default_parts(step(CALL, OK), True, 100) == (
        "Look.",
        "read_file",
        {"path": "a.py"},
        "reason_and_call",
        "tool_result",
        "the full content",
        "full",
        False,
    )
    assert render.default_parts(step(Decision(kind="no_tool_call", reason="Done."), None), False, 100) == (
        "Done.",
        "",
        None,
        "reason",
        "text",
        render.NUDGE_NO_TOOL_CALL,
        "no_tool_call",
        False,
    )
    failed = render.default_parts(step(CALL, Observation(status="error", content="boom", summary="b")), False, 100)
    assert failed[4:] == ("tool_result", "b", "summary", True)


@pytest.mark.parametrize(("the_step", "full", "max_bytes", "rule"), USER_ROWS)
def test_wire_messages_gives_every_row_as_to_dict_does(the_step: Step, full: bool, max_bytes: int, rule: str) -> None:
    """For each row of the observation table, and the assistant turn before it, wire_messages of a run of that step is
    every rendered message's to_dict, key order included."""
    if the_step.decision is None:
        the_step = step(Decision(kind="no_tool_call"), the_step.observation)
    options = Options(opening="Do the task.", recent_results=1 if full else 0, result_bytes=max_bytes)
    steps = StepInput(steps=[the_step])
    expected = [message.to_dict() for message in render.messages(steps, options)]
    assert render.wire_messages(steps, options) == expected
    assert json.dumps(render.wire_messages(steps, options)) == json.dumps(expected)


def test_hooks_fall_back_per_step_and_say_hook_only_when_they_answered() -> None:
    """A hook's turn is reported as the hook's; a hook that returns nothing falls back to the default row."""
    mine = ContentBlock(type="text", text="mine")

    def assistant(s: Step, _id: str) -> list[ContentBlock] | None:
        return [mine] if s.index == 1 else None

    def observation(s: Step, _id: str, _full: bool) -> ContentBlock | None:
        return mine if s.index == 1 else ContentBlock(type="")

    options = Options(opening="x", assistant=assistant, observation=observation, tool_use_id=lambda s: "")
    one, three = Step(index=1, decision=CALL, observation=OK), step()
    assert assistant_turn(one, "id", options) == ((mine,), "hook")
    assert assistant_turn(three, "id", options)[1] == "reason_and_call"
    assert user_turn(one, "id", True, options) == ((mine,), "hook")
    assert user_turn(three, "id", True, options)[1] == "full"
    assert tool_use_id(three, options) == "step_3"
    assert tool_use_id(three, Options(opening="x", tool_use_id=lambda s: f"toolu_{s.index}")) == "toolu_3"


def test_messages_is_the_loop_over_the_per_step_primitives() -> None:
    """render.messages equals the opening plus, per rendered step, assistant_turn and user_turn with the window."""
    run = samples.load("flaky-build-resumed")
    options = run.options(recent_results=2, result_bytes=60)
    step_input = run.step_input()
    rendered = [s for s in step_input.steps if s.decision is not None]
    expected: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": run.opening}]}]
    for position, s in enumerate(rendered):
        the_id = tool_use_id(s, options)
        blocks, _ = assistant_turn(s, the_id, options)
        user, _ = user_turn(s, the_id, position >= len(rendered) - 2, options)
        expected.append({"role": "assistant", "content": [b.to_dict() for b in blocks]})
        expected.append({"role": "user", "content": [b.to_dict() for b in user]})
    assert [m.to_dict() for m in render.messages(step_input, options)] == expected


@pytest.mark.parametrize("name", samples.names())
def test_hooks_that_always_fall_back_render_what_no_hooks_render(name: str) -> None:
    """A run renders the same with no step hook as with hooks that never answer (messages' two loops agree)."""
    run = samples.load(name)
    step_input = run.step_input()
    for full in (0, 2):
        plain = Options(opening="x", recent_results=full, result_bytes=60)
        silent = Options(
            opening="x",
            recent_results=full,
            result_bytes=60,
            tool_use_id=lambda _s: "",
            assistant=lambda _s, _id: None,
            observation=lambda _s, _id, _full: None,
        )
        assert render.messages(step_input, plain) == render.messages(step_input, silent)


@pytest.mark.parametrize("name", samples.names())
def test_the_views_facts_carry_the_rule_the_render_reported(name: str) -> None:
    """Every block fact of every view holds the rule the contract's primitive gave for that block."""
    run = samples.load(name)
    views = Views(run, run.options(recent_results=2, result_bytes=200))
    options = views.options
    view = views.at(None)
    rendered = [fact for fact in view.steps if fact.rendered]
    for fact in rendered:
        assert fact.assistant is not None and fact.result_block is not None
        _, assistant_rule = assistant_turn(fact.step, fact.tool_use_id, options)
        _, user_rule = user_turn(fact.step, fact.tool_use_id, bool(fact.full), options)
        assert {block.rule for block in fact.assistant.blocks} == {assistant_rule}
        assert fact.result_block.rule == user_rule


def reply(*blocks: dict[str, Any], stop: str = "tool_use") -> ModelResponse:
    return ModelResponse.from_dict({"content": list(blocks), "stop_reason": stop})


def use(name: str, raw: Any = None) -> dict[str, Any]:
    return {"type": "tool_use", "id": f"toolu_{name}", "name": name, "input": {} if raw is None else raw}


@pytest.mark.parametrize(
    ("response", "rule", "args"),
    [
        (reply({"type": "text", "text": "cut"}, use("ls"), stop="max_tokens"), "truncated", ""),
        (reply(use("ls"), stop="model_context_window_exceeded"), "truncated", ""),
        (reply(use("ls"), stop="refusal"), "refusal", ""),
        (reply({"type": "text", "text": "done"}, stop="end_turn"), "no_tool_use", ""),
        (reply(use("ls", {"a": 1})), "tool_call", "value"),
        (reply(use("ls", '{"a": 1}')), "tool_call", "parsed"),
        (reply(use("ls", "")), "tool_call", "empty"),
        (reply(use("ls", "{oops")), "tool_call", "invalid_json"),
    ],
)
def test_decided_names_the_rule_and_what_became_of_the_arguments(response: ModelResponse, rule: str, args: str) -> None:
    """decided gives decide's decision, the rule of DECIDE_RULES that fired and the ARGS_OUTCOMES of the input."""
    made = decided(response)
    assert made.decision == decide(response)
    assert (made.rule, made.args) == (rule, args)
    assert rule in DECIDE_RULES and args in ARGS_OUTCOMES


def test_decided_reports_how_the_reason_was_composed() -> None:
    """With several tool uses the note and the text's budget are reported, and the reason is built from them."""
    response = reply({"type": "text", "text": "x" * 600}, use("read_file"), use("write_file"), use("delete_file"))
    made = decided(response)
    assert made.tool_uses == ("read_file", "write_file", "delete_file")
    assert made.note == "[2 further tool call(s) not executed: write_file, delete_file]"
    assert made.reason_budget == render.REASON_BYTES - len(made.note) - 1
    assert made.decision.reason.endswith(" " + made.note)
    assert len(made.decision.reason.encode()) == render.REASON_BYTES


def test_raw_bytes_that_are_not_utf8_are_reported_as_base64() -> None:
    """Raw argument bytes that are not UTF-8 are kept as base64, and the outcome says so."""
    response = ModelResponse(
        content=(ContentBlock(type="tool_use", tool_use_id="t", name="ls", input=b"\xff"),), stop_reason="tool_use"
    )
    made = decided(response)
    assert made.args == "invalid_base64" and made.decision.invalid_base64


def test_a_step_with_no_decision_has_no_assistant_turn() -> None:
    """assistant_turn refuses a step without a decision: such a step is skipped, not rendered."""
    with pytest.raises(ValueError, match="no decision"):
        assistant_turn(Step(index=0), "id", OPTIONS)
    assert render.messages(StepInput(steps=[Step(index=0)]), OPTIONS)[1:] == []


def test_an_observation_hook_may_answer_with_several_blocks() -> None:
    """A user turn recorded with several blocks (two results, text beside them) renders as the hook gave it."""
    two = [
        ContentBlock(type="tool_result", tool_use_id="a", content="one"),
        ContentBlock(type="tool_result", tool_use_id="b", content="two"),
        ContentBlock(type="text", text="and a word from the user"),
    ]
    options = Options(opening="x", observation=lambda s, _id, _full: two if s.index == 3 else [])
    conversation = render.messages(StepInput(steps=[step(), Step(index=4, decision=CALL, observation=OK)]), options)
    assert conversation[2].content == tuple(two)
    assert [b.type for b in conversation[4].content] == ["tool_result"]  # an empty list falls back to the default
    views = Views(StepInput(steps=[step()]), options)
    result = views.at(None).steps[0].result
    assert result is not None and [fact.kind for fact in result.blocks] == ["hook", "hook", "hook"]
    assert views.at(None).messages == conversation[:3]
    assert views.at(None).bytes == len(json.dumps([m.to_dict() for m in conversation[:3]], separators=(",", ":")))


def test_the_opening_may_be_blocks() -> None:
    """An opening given as blocks (an image beside the task) is the first user message as given; blank is refused."""
    image = ContentBlock.from_dict(
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}}
    )
    blocks = [ContentBlock(type="text", text="What is in this picture?"), image]
    conversation = render.messages(StepInput(steps=[step()]), Options(opening=blocks))
    assert conversation[0].to_dict()["content"] == [b.to_dict() for b in blocks]
    view = Views(StepInput(steps=[step()]), Options(opening=lambda _input: blocks)).at(None)
    assert [fact.kind for fact in view.opening.blocks] == ["opening", "opening"]
    assert view.messages == conversation
    with pytest.raises(ValueError, match="no blocks"):
        Options(opening=[])
    with pytest.raises(ValueError, match="expected the opening text or its blocks"):
        render.messages(StepInput(), Options(opening=lambda _input: 42))  # type: ignore[arg-type,return-value]
