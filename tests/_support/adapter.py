"""What the Anthropic adapter's tests share: a tool as a run's header declares it, a step that calls it, and
the blocks of a signed reply."""

from __future__ import annotations

from typing import Any

from agentrender import Decision, Observation, Step

TOOLS = (
    {
        "name": "read_file",
        "description": "Read a file.",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        "read_only": True,
    },
)


def call(index: int, tool: str = "read_file", **observation: Any) -> Step:
    """A step that called ``tool``, with an observation built from ``observation``."""
    return Step(
        index=index,
        decision=Decision(kind="tool_call", tool=tool, args={"path": f"f{index}.py"}, reason=f"Reason {index}."),
        observation=Observation(**observation) if observation else Observation(content="c", summary="s"),
    )


THINKING = {"type": "thinking", "thinking": "Let me look.", "signature": "c2lnbmVk"}
TOOL_USE = {"type": "tool_use", "id": "toolu_01", "name": "read_file", "input": {"path": "a.py"}}
