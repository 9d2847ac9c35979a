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

API_TOOLS = (
    {
        "type": "custom",
        "name": "search_docs",
        "description": "Search the docs.",
        "strict": True,
        "input_schema": {
            "type": "object",
            "properties": {"query": {"type": "string"}},
            "required": ["query"],
            "additionalProperties": False,
        },
        "input_examples": [{"query": "prompt caching"}],
        "defer_loading": False,
        "allowed_callers": ["direct"],
        "eager_input_streaming": True,
        "cache_control": {"type": "ephemeral"},
    },
    {"type": "bash_20250124", "name": "bash", "strict": True},
    {"type": "text_editor_20250728", "name": "str_replace_based_edit_tool", "max_characters": 10000},
    {
        "type": "web_search_20250305",
        "name": "web_search",
        "max_uses": 3,
        "allowed_domains": ["docs.anthropic.com"],
        "user_location": {"type": "approximate", "city": "Paris", "country": "FR"},
    },
    {"type": "computer_toolset_20260801", "configs": {"zoom": {"enabled": False}}},
)
"""Tool definitions the Messages API takes (each one the SDK's ``ToolUnionParam``), as an agent sends them: a custom
tool with every field of the API's own, its input schema after the others, and tools the API defines (a
``type`` naming them and their version, no input schema, and for a toolset no name), with their own fields."""


def call(index: int, tool: str = "read_file", **observation: Any) -> Step:
    """A step that called ``tool``, with an observation built from ``observation``."""
    return Step(
        index=index,
        decision=Decision(kind="tool_call", tool=tool, args={"path": f"f{index}.py"}, reason=f"Reason {index}."),
        observation=Observation(**observation) if observation else Observation(content="c", summary="s"),
    )


THINKING = {"type": "thinking", "thinking": "Let me look.", "signature": "c2lnbmVk"}
TOOL_USE = {"type": "tool_use", "id": "toolu_01", "name": "read_file", "input": {"path": "a.py"}}
