"""Whether the Anthropic SDK's own types accept what the adapter builds, and the API's rules."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pydantic
import pytest
from anthropic.types import MessageParam, ToolChoiceAutoParam, ToolUnionParam

from agentrender.adapters.anthropic import check_params

_MESSAGE = pydantic.TypeAdapter(MessageParam)
_TOOL = pydantic.TypeAdapter(ToolUnionParam)
_TOOL_CHOICE = pydantic.TypeAdapter(ToolChoiceAutoParam)


def materialise(value: Any) -> Any:
    """``value`` with every lazy iterable pydantic left (``Iterable[...]`` fields) read into a list."""
    if isinstance(value, Mapping):
        return {key: materialise(item) for key, item in value.items()}
    if isinstance(value, str | bytes | int | float | bool) or value is None:
        return value
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(exclude_unset=True)
    return [materialise(item) for item in value]


def sdk_accepts(params: Sequence[Mapping[str, Any]]) -> None:
    """Fail unless each message validates as the SDK's ``MessageParam`` and comes back unchanged.

    Unchanged means no field was dropped (an unknown key) or coerced (a wrong type).
    """
    for i, param in enumerate(params):
        try:
            validated = materialise(_MESSAGE.validate_python(param))
        except pydantic.ValidationError as error:
            pytest.fail(f"messages[{i}] is not a MessageParam: {error}")
        assert validated == param, f"messages[{i}] changed under MessageParam validation"


def request_accepts(params: Mapping[str, Any]) -> None:
    """Fail unless a whole ``messages.create`` request's parts validate as the SDK's types."""
    sdk_accepts(params["messages"])
    check_params(params["messages"])
    for tool in params.get("tools", ()):
        assert materialise(_TOOL.validate_python(tool)) == tool
    if "tool_choice" in params:
        assert _TOOL_CHOICE.validate_python(params["tool_choice"]) == params["tool_choice"]
