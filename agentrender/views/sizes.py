"""How many bytes a view's messages take on the wire, counted without encoding them.

A view's size is the bytes of its messages as one compact JSON list, exactly as
``render.replay_key`` encodes them. Counting them by encoding every view would cost a
render per view; these count each block's strings and add the fixed bytes of its keys
and punctuation, so a view's bytes are sums of per-step counts.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

import msgspec

from agentrender import render
from agentrender._types import ContentBlock, Message, Step, utf8_bytes

__all__ = ["approx_tokens", "default_turns_bytes", "json_bytes", "list_bytes", "message_bytes"]


def approx_tokens(n_bytes: int) -> int:
    """An approximate token count for ``n_bytes`` of JSON: one token per four bytes, rounded up.

    Four bytes a token is the usual rule of thumb for English and code under BPE tokenizers
    (Anthropic's and OpenAI's); JSON punctuation and non-Latin text make real counts differ,
    so treat it as a scale, not a bill. For an exact count ask the provider's counting API.
    """
    return (n_bytes + 3) // 4


# msgspec writes compact UTF-8 JSON straight into one buffer, in C: a value of 650,000 keys takes about
# its text to encode, where ``json`` holds a string of every key, value and separator at once; and a string
# is written in one pass, its escapes found as it is copied.
_encoder = msgspec.json.Encoder(enc_hook=repr)


def json_bytes(value: Any) -> int:
    """The UTF-8 bytes of ``value`` as compact JSON (a tool use's input as it is sent).

    What is not JSON is counted as ``msgspec.json`` writes it (bytes as base64, a set as a list,
    NaN as ``null``, any other object as its ``repr``); text with a lone surrogate, which UTF-8
    cannot carry, as ``json`` writes it, the surrogate counted as 3 bytes.
    """
    try:
        return len(_encoder.encode(value))
    except UnicodeEncodeError:
        return utf8_bytes(json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=repr))


# The fixed parts of each known block's compact wire form, so a block's size is the sum of
# its strings' sizes (each encoded alone) and a constant, without building the whole dict.
_TEXT_BLOCK = len('{"type":"text","text":}')
_RESULT_BLOCK = len('{"type":"tool_result","tool_use_id":,"content":}')
_ERROR_FLAG = len(',"is_error":true')
_USE_BLOCK = len('{"type":"tool_use","id":,"name":,"input":}')


def _block_bytes(block: ContentBlock) -> int:
    if block.raw is None:
        kind = block.type
        if kind == "text":
            return _TEXT_BLOCK + json_bytes(block.text)
        if kind == "tool_result":
            size = _RESULT_BLOCK + json_bytes(block.tool_use_id) + json_bytes(block.content)
            return size + _ERROR_FLAG if block.is_error else size
        if kind == "tool_use":
            return _USE_BLOCK + json_bytes(block.tool_use_id) + json_bytes(block.name) + json_bytes(block.input)
    return json_bytes(block.to_dict())


_ROLE_BYTES = {"user": len('"user"'), "assistant": len('"assistant"')}
_TURN = len('{"role":,"content":[]}')
"""The keys and punctuation of a message's wire form, beside its role and its blocks."""


def message_bytes(message: Message) -> int:
    """The UTF-8 bytes of ``message``'s wire form as compact JSON (as ``render.replay_key`` encodes it)."""
    blocks = message.content
    # {"role":R,"content":[B,B]}: the keys and punctuation, the role, the blocks, their commas
    role = _ROLE_BYTES.get(message.role) or json_bytes(message.role)
    if len(blocks) == 1:
        return _TURN + role + _block_bytes(blocks[0])
    size = _TURN + role + sum(map(_block_bytes, blocks))
    return size + len(blocks) - 1 if blocks else size


_IN_FULL = frozenset({"full", "full_cut"})
"""The rows of ``render.USER_RULES`` a result in full is shown by: ``render.result_and_rule``'s, in the window."""
_ASSISTANT_TURN = _TURN + _ROLE_BYTES["assistant"]
_USER_TURN = _TURN + _ROLE_BYTES["user"]


def default_turns_bytes(
    steps: Iterable[Step], ids: Iterable[str], max_bytes: int
) -> Iterator[tuple[int, int, int, bool]]:
    """``message_bytes`` of each rendered step's default turns, counted from the contract's parts of them
    (``render.assistant_parts``, ``render.observation_parts``) with no block or message made: its assistant turn,
    its user turn in full and as its summary, and whether those two are the same turn. ``ids`` are the steps'
    ``tool_use`` ids; ``max_bytes`` is the cap on a result.

    For a series of sizes, which needs every step's turns in both forms and none of the turns themselves.
    """
    assistant_parts, args, observation_parts, result_and_rule = (
        render.assistant_parts,
        render.args,
        render.observation_parts,
        render.result_and_rule,
    )
    for step, tool_use_id in zip(steps, ids, strict=True):
        text, call, _ = assistant_parts(step)
        if call is None:
            assistant = _ASSISTANT_TURN + _TEXT_BLOCK + json_bytes(text)
        elif text:  # the text block, a comma and the tool use
            assistant = (
                _ASSISTANT_TURN + _TEXT_BLOCK + 1 + _USE_BLOCK + _each_bytes([text, tool_use_id, call.tool, args(call)])
            )
        else:
            assistant = _ASSISTANT_TURN + _USE_BLOCK + _each_bytes([tool_use_id, call.tool, args(call)])
        block_type, full_text, rule = observation_parts(step, True, max_bytes)
        summary_text = full_text
        if rule in _IN_FULL:  # the rows of render.result_and_rule, which alone depend on the form
            observation = step.observation
            assert observation is not None  # a result is only rendered from an observation
            summary_text = result_and_rule(observation.content, observation.summary, False, max_bytes)[0]
        if block_type == "text":
            fixed, carried = _USER_TURN + _TEXT_BLOCK, []
        else:  # a result: its text, and the id it answers
            fixed, carried = _USER_TURN + _RESULT_BLOCK, [tool_use_id]
            observation = step.observation
            if observation is not None and observation.failed:
                fixed += _ERROR_FLAG
        full = fixed + _each_bytes([full_text, *carried])
        # the two forms differ only in the text a result shows (its block's type and flag are the step's)
        if summary_text == full_text:
            yield assistant, full, full, True
        else:
            yield assistant, full, fixed + _each_bytes([summary_text, *carried]), False


def _each_bytes(values: list[Any]) -> int:
    """The sum of ``json_bytes`` of each of ``values`` (one or more), in one encoding: the list's, less its brackets
    and commas; one by one when one of them is text UTF-8 cannot carry (``json_bytes`` counts it as ``json`` writes
    it, and what is beside it as ``msgspec`` does)."""
    try:
        return len(_encoder.encode(values)) - len(values) - 1
    except UnicodeEncodeError:
        return sum(map(json_bytes, values))


def list_bytes(count: int, total: int) -> int:
    """The bytes of a JSON list of ``count`` items whose own bytes add up to ``total``."""
    return 2 + total + count - 1 if count else 2
