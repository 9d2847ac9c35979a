"""Model replies as a run file records them: the Anthropic ``Message`` object, bytes kept as base64.

A provider may send a tool use's arguments as raw bytes that are not UTF-8, which JSON
cannot hold: a run file keeps them as standard base64 in the block's ``input_base64``
field, in place of ``input``. ``response_record`` writes that form and
``response_from_record`` reads it back, so a reply survives the round trip exactly.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any

from agentrender._json import type_name
from agentrender._types import ModelResponse, check_response

__all__ = ["INPUT_BASE64", "check_reply", "recorded_reply_schema", "response_from_record", "response_record"]

INPUT_BASE64 = "input_base64"
"""The field of a recorded ``tool_use`` block that holds raw argument bytes, as base64, in place of ``input``."""

_BASE64 = "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"
"""Standard base64, padded, as ``response_record`` writes it (``base64.b64decode(validate=True)`` reads it, and
some texts beside, such as padding after a whole quantum)."""


def response_from_record(wire: Mapping[str, Any], *, where: str = "response") -> ModelResponse:
    """A reply as a run file records it (an Anthropic ``Message`` object) as the ``ModelResponse`` it stands for.

    A provider may send a tool use's arguments as raw bytes that are not UTF-8, which JSON
    cannot hold: a run file keeps them as standard base64 in the block's ``input_base64``
    field, in place of ``input``, and they are read back here as the ``bytes`` input the
    provider sent, so ``render.decide`` of the recorded reply is the decision the agent
    made. ``response_record`` writes that form. Raises ``ValueError`` naming the field
    (``where`` names the reply) for what is not a reply.
    """
    return ModelResponse.from_dict(_decoded_reply(wire, where), where=where)


def check_reply(wire: Mapping[str, Any], *, where: str = "response", blocks_checked: bool = False) -> None:
    """Raise the ``ValueError`` ``response_from_record(wire, where=where)`` would raise, without building the reply.

    For a reader that checks every reply when it reads a file but builds one only when asked.
    ``blocks_checked=True`` says the reader checked each block as it is (``check_block``): only
    the reply's own fields, and the raw input of its tool uses (``input_base64``), are checked.
    """
    decoded = _decoded_reply(wire, where)
    check_response(decoded, where=where, blocks_checked=blocks_checked and decoded is wire)


def _decoded_reply(wire: Mapping[str, Any], where: str) -> Mapping[str, Any]:
    """``wire`` with its tool uses' ``input_base64`` decoded into ``bytes`` input; ``wire`` when it has none."""
    content = wire.get("content") if type(wire) is dict or isinstance(wire, Mapping) else None
    if not isinstance(content, list):
        return wire
    for block in content:  # a loop, not any() of a generator: this runs for every reply read
        if type(block) is dict and INPUT_BASE64 in block and block.get("type") == "tool_use":
            break
    else:
        return wire
    blocks = [
        _raw_input(block, f"{where}.content[{position}]")
        if type(block) is dict and INPUT_BASE64 in block and block.get("type") == "tool_use"
        else block
        for position, block in enumerate(content)
    ]
    return {**wire, "content": blocks}


def _raw_input(block: Mapping[str, Any], where: str) -> dict[str, Any]:
    """A recorded ``tool_use`` block with its ``input_base64`` decoded back into ``bytes`` input."""
    if "input" in block:
        raise ValueError(
            f"{where}.{INPUT_BASE64}: a tool_use block holds its arguments in input or in {INPUT_BASE64}, not both"
        )
    encoded = block[INPUT_BASE64]
    if type(encoded) is not str:
        raise ValueError(f"{where}.{INPUT_BASE64}: expected a string of base64, got {type_name(encoded)}")
    try:
        raw = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError) as error:
        raise ValueError(f"{where}.{INPUT_BASE64}: not base64 ({error})") from None
    return {
        ("input" if key == INPUT_BASE64 else key): (raw if key == INPUT_BASE64 else value)
        for key, value in block.items()
    }


def recorded_reply_schema(reply: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema of a reply as a run file records it, made from ``reply``, the Messages API's (``Reply`` of
    ``_types.wire_json_schema``): a tool use's raw argument bytes may be written as base64 in ``input_base64``, in
    place of ``input``."""
    content = reply["properties"]["content"]
    raw_input = {
        "if": {"properties": {"type": {"const": "tool_use"}}, "required": ["type", INPUT_BASE64]},
        "then": {"properties": {INPUT_BASE64: {"type": "string", "pattern": _BASE64}}, "not": {"required": ["input"]}},
    }
    return {
        **reply,
        "description": (
            f"{reply['description']} A tool use's arguments that were raw bytes, not UTF-8, are written as standard "
            f"base64 in {INPUT_BASE64}, in place of input."
        ),
        "properties": {**reply["properties"], "content": {**content, "items": {**content["items"], **raw_input}}},
    }


def response_record(response: ModelResponse) -> dict[str, Any]:
    """``response`` as a run file records it: its wire form, with ``bytes`` tool input written as ``input_base64``.

    The inverse of ``response_from_record``: reading the record back gives ``response`` again.
    """
    wire = response.to_dict()
    wire["content"] = [
        {
            (INPUT_BASE64 if key == "input" else key): (
                base64.b64encode(value).decode("ascii") if key == "input" else value
            )
            for key, value in block.items()
        }
        if block.get("type") == "tool_use" and isinstance(block.get("input"), bytes | bytearray)
        else block
        for block in wire["content"]
    ]
    return wire
