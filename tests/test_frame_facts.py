"""agentrender._facts: the per-step facts are read off a render that is the render itself."""

from __future__ import annotations

from agentrender import ContentBlock, Decision, Observation, Step, StepInput, render
from agentrender._facts import step_facts


def _steps() -> list[Step]:
    call = Decision(kind="tool_call", tool="read_file", args={"path": "a.py"}, reason="Look.")
    return [
        Step(index=0, decision=call, observation=Observation(content="A" * 50, summary="a")),
        Step(index=1),
        Step(index=2, decision=Decision(kind="no_tool_call"), observation=Observation(status="invalid_decision")),
        Step(index=3, decision=call, observation=Observation(status="interrupted")),
        Step(index=4, decision=call, observation=Observation(content="B" * 50, summary="")),
    ]


def _custom(step: Step, tool_use_id: str, full: bool) -> ContentBlock | None:
    if step.index == 4:
        return ContentBlock(type="tool_result", tool_use_id=tool_use_id, content=f"full={full}")
    return None


def test_conversation_is_the_render_byte_for_byte() -> None:
    """The conversation step_facts returns is exactly render.messages under the same options, hooks included."""
    step_input = StepInput(steps=_steps(), goal="g")
    for options in (
        render.Options(opening="Go."),
        render.Options(opening="Go.", recent_results=1, result_bytes=10, observation=_custom),
        render.Options(opening="Go.", tool_use_id=lambda step: f"t{step.index}"),
    ):
        conversation, _ = step_facts(step_input, options)
        expected = render.messages(step_input, options)
        assert [m.to_dict() for m in conversation] == [m.to_dict() for m in expected]


def test_facts_pair_each_step_with_its_turns() -> None:
    """Each rendered step's facts hold its own turns, place and id; a skipped step has None."""
    steps = _steps()
    conversation, facts = step_facts(StepInput(steps=steps), render.Options(opening="Go.", recent_results=2))
    assert len(facts) == len(steps)
    assert facts[1] is None
    rendered = [fact for fact in facts if fact is not None]
    assert [fact.step.index for fact in rendered] == [0, 2, 3, 4]
    assert [fact.position for fact in rendered] == [0, 1, 2, 3]
    assert [fact.full for fact in rendered] == [False, False, True, True]
    assert [fact.nudge for fact in rendered] == [False, True, False, False]
    assert rendered[0].result.content == "a"
    assert rendered[2].result.content == render.INTERRUPTED_TEXT
    assert rendered[3].result.content == "B" * 50
    for fact in rendered:
        assert fact.assistant is conversation[1 + 2 * fact.position]
        assert fact.user is conversation[2 + 2 * fact.position]
        assert fact.tool_use_id == f"step_{fact.step.index}"


def test_the_same_step_twice_is_paired_twice() -> None:
    """A step object that appears twice in a step input gets facts at both places, not one."""
    step = _steps()[0]
    _, facts = step_facts(StepInput(steps=[step, step]), render.Options(opening="Go.", recent_results=1))
    assert [(fact.position, fact.full) for fact in facts if fact is not None] == [(0, False), (1, True)]
