"""The seed's two consumers, Casework and Repo Steward, reproduced exactly with Options hooks."""

import json
from dataclasses import dataclass
from typing import Any

from agentrender import ContentBlock, Decision, Observation, Step, StepInput, render
from agentrender.render import INTERRUPTED_TEXT, NUDGE_NO_TOOL_CALL, NUDGE_TRUNCATED
from tests._support.runs import rejected

# -- Casework: the default, plus its own ids and raw assistant turns replayed verbatim ----------

RAW_ASSISTANT_BLOCK = "anthropic_raw_assistant"
MODEL = "claude-sonnet-4-5"


@dataclass(frozen=True)
class Turn:
    """A captured assistant turn: the model that wrote it and its content as the provider's JSON."""

    model: str
    raw: str


def first_tool_use_id(raw: str) -> str:
    for block in json.loads(raw):
        if block.get("type") == "tool_use":
            return str(block.get("id", ""))
    return ""


def casework_options(turns: dict[int, Turn], recent_results: int) -> render.Options:
    def tool_use_id(step: Step) -> str:
        turn = turns.get(step.index)
        if turn is not None and turn.model == MODEL:
            captured = first_tool_use_id(turn.raw)
            if captured:
                return captured
        return f"toolu_step_{step.index}"

    def assistant(step: Step, _: str) -> list[ContentBlock] | None:
        turn = turns.get(step.index)
        if turn is not None and turn.model == MODEL:
            return [ContentBlock(type=RAW_ASSISTANT_BLOCK, text=turn.raw)]
        return None  # synthesize

    return render.Options(
        opening=lambda _: "Case 1142: a customer reports a double charge.",
        recent_results=recent_results,
        tool_use_id=tool_use_id,
        assistant=assistant,
    )


SIGNED = json.dumps(
    [
        {"type": "thinking", "thinking": "Check the ledger first.", "signature": "EqQBCkYIBxgC"},
        {"type": "text", "text": "Looking up the ledger."},
        {"type": "tool_use", "id": "toolu_01Ledger", "name": "ledger", "input": {"account": "A-7"}},
    ]
)
NO_CALL = json.dumps([{"type": "text", "text": "The refund seems right to me."}])
LATER = json.dumps([{"type": "tool_use", "id": "toolu_01Refund", "name": "refund", "input": {"amount": 12}}])

CASEWORK_STEPS = [
    Step(
        index=0,
        decision=Decision(kind="tool_call", tool="ledger", args={"account": "A-7"}, reason="Looking up the ledger."),
        observation=Observation(content="2 charges of 12.00 on 3 May", summary="ledger: 2 charges"),
    ),
    Step(
        index=1,
        decision=Decision(kind="tool_call", tool="customer", args={"id": 9}, reason="Who is it?"),
        observation=Observation(content="Ada, since 2019", summary="customer: Ada"),
    ),
    rejected(2, Decision(kind="no_tool_call", reason="The refund seems right to me.")),
    rejected(3, Decision(kind="truncated", reason="The full letter to the customer reads")),
    Step(index=4),
    Step(
        index=5,
        decision=Decision(kind="tool_call", tool="refund", args={"amount": 12}),
        observation=Observation(status="error", content="refund limit exceeded", summary="refund failed"),
    ),
]
CASEWORK_TURNS = {
    0: Turn(MODEL, SIGNED),
    1: Turn("claude-3-haiku", json.dumps([{"type": "tool_use", "id": "toolu_other", "name": "customer"}])),
    2: Turn(MODEL, NO_CALL),
    5: Turn(MODEL, LATER),
}


def test_casework_renders_its_own_ids_and_raw_turns_exactly() -> None:
    """Captured turns of the same model replay verbatim with their tool_use id; the rest fall back per step."""
    out = render.messages(StepInput(steps=CASEWORK_STEPS), casework_options(CASEWORK_TURNS, recent_results=2))
    assert [m.to_dict() for m in out] == [
        {"role": "user", "content": [{"type": "text", "text": "Case 1142: a customer reports a double charge."}]},
        {"role": "assistant", "content": [{"type": RAW_ASSISTANT_BLOCK, "text": SIGNED}]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_01Ledger", "content": "ledger: 2 charges"}],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Who is it?"},
                {"type": "tool_use", "id": "toolu_step_1", "name": "customer", "input": {"id": 9}},
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_step_1", "content": "customer: Ada"}],
        },
        {"role": "assistant", "content": [{"type": RAW_ASSISTANT_BLOCK, "text": NO_CALL}]},
        {"role": "user", "content": [{"type": "text", "text": NUDGE_NO_TOOL_CALL}]},
        {"role": "assistant", "content": [{"type": "text", "text": "The full letter to the customer reads"}]},
        {"role": "user", "content": [{"type": "text", "text": NUDGE_TRUNCATED}]},
        {"role": "assistant", "content": [{"type": RAW_ASSISTANT_BLOCK, "text": LATER}]},
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_01Refund",
                    "content": "refund limit exceeded",
                    "is_error": True,
                }
            ],
        },
    ]


def test_casework_raw_turn_text_is_the_provider_json_byte_for_byte() -> None:
    """The raw block holds the captured JSON unchanged, so signed thinking is replayed as the provider wrote it."""
    out = render.messages(StepInput(steps=CASEWORK_STEPS[:1]), casework_options(CASEWORK_TURNS, recent_results=6))
    (block,) = out[1].content
    assert block.text == SIGNED
    assert json.loads(block.text)[0]["signature"] == "EqQBCkYIBxgC"


# -- Repo Steward: default ids and window, both turns its own, with the guards ---------------


def calls(step: Step) -> bool:
    return step.decision is not None and step.decision.kind == "tool_call" and step.decision.tool != ""


def render_observation(step: Step, full: bool) -> str:
    observation = step.observation
    if observation is None or observation.interrupted:
        return INTERRUPTED_TEXT
    head = f"[{observation.status}] {observation.summary or '(no summary)'}"
    return f"{head}\n{observation.content}" if full else head


def steward_options() -> render.Options:
    def assistant(step: Step, id: str) -> list[ContentBlock] | None:
        if not calls(step):
            return None  # the default text turn
        assert step.decision is not None
        return [
            ContentBlock(type="tool_use", tool_use_id=id, name=step.decision.tool, input=render.args(step.decision))
        ]

    def observation(step: Step, id: str, full: bool) -> ContentBlock:
        if not calls(step):
            return ContentBlock(type="")  # the default nudge
        assert step.decision is not None
        return ContentBlock(
            type="tool_result",
            tool_use_id=id,
            name=step.decision.tool,
            content=render_observation(step, full),
            is_error=step.observation is not None and step.observation.failed,
        )

    return render.Options(opening="Repo acme/widgets: keep CI green.", assistant=assistant, observation=observation)


STEWARD_STEPS = [
    Step(
        index=0,
        decision=Decision(kind="tool_call", tool="ci_status", reason="Check CI."),
        observation=Observation(status="error", content="job lint failed:\nE501", summary="lint failed"),
    ),
    rejected(1, Decision(kind="no_tool_call", reason="CI looks flaky.")),
    rejected(2, Decision(kind="truncated")),
    Step(index=3),
    Step(
        index=4,
        decision=Decision(kind="tool_call", tool="open_pr", invalid_args='{"title": "Fix E501'),
        observation=Observation(status="error", content="arguments were not JSON", summary=""),
    ),
    Step(index=5, decision=Decision(kind="tool_call", tool="rerun_ci", args={"job": "lint"}), observation=None),
]
STEWARD_STEPS += [
    Step(
        index=6 + i,
        decision=Decision(kind="tool_call", tool="read_file", args={"path": f"f{i}.py"}, reason="Reading."),
        observation=Observation(content=f"line {i}", summary=f"f{i}.py: 1 line"),
    )
    for i in range(4)
]


def test_repo_steward_renders_its_own_turns_with_guards_exactly() -> None:
    """Calls get the custom tool_use and labelled results; steps that call nothing fall back to the default turns."""
    out = render.messages(StepInput(steps=STEWARD_STEPS), steward_options())

    def use(id: str, name: str, input: Any) -> dict[str, Any]:
        return {"role": "assistant", "content": [{"type": "tool_use", "id": id, "name": name, "input": input}]}

    def result(id: str, content: str, is_error: bool = False) -> dict[str, Any]:
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": id, "content": content}
        if is_error:
            block["is_error"] = True
        return {"role": "user", "content": [block]}

    assert [m.to_dict() for m in out] == [
        {"role": "user", "content": [{"type": "text", "text": "Repo acme/widgets: keep CI green."}]},
        use("step_0", "ci_status", {}),
        result("step_0", "[error] lint failed", is_error=True),
        {"role": "assistant", "content": [{"type": "text", "text": "CI looks flaky."}]},
        {"role": "user", "content": [{"type": "text", "text": NUDGE_NO_TOOL_CALL}]},
        {"role": "assistant", "content": [{"type": "text", "text": "(no tool call)"}]},
        {"role": "user", "content": [{"type": "text", "text": NUDGE_TRUNCATED}]},
        use("step_4", "open_pr", {"invalid_json": '{"title": "Fix E501'}),
        result("step_4", "[error] (no summary)\narguments were not JSON", is_error=True),
        use("step_5", "rerun_ci", {"job": "lint"}),
        result("step_5", INTERRUPTED_TEXT),
        use("step_6", "read_file", {"path": "f0.py"}),
        result("step_6", "[ok] f0.py: 1 line\nline 0"),
        use("step_7", "read_file", {"path": "f1.py"}),
        result("step_7", "[ok] f1.py: 1 line\nline 1"),
        use("step_8", "read_file", {"path": "f2.py"}),
        result("step_8", "[ok] f2.py: 1 line\nline 2"),
        use("step_9", "read_file", {"path": "f3.py"}),
        result("step_9", "[ok] f3.py: 1 line\nline 3"),
    ]
