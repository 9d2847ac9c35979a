"""How many bytes a view's messages take on the wire, counted without encoding them.

A view's size is the bytes of its messages as one compact JSON list, exactly as
``render.replay_key`` encodes them. Counting them by encoding every view would cost a
render per view; these count each block's strings and add the fixed bytes of its keys
and punctuation, so a view's bytes are sums of per-step counts.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import msgspec

from agentrender import render
from agentrender._types import ContentBlock, Message, Step, utf8_bytes

__all__ = ["TurnsBytes", "approx_tokens", "default_turns_bytes", "json_bytes", "list_bytes", "message_bytes"]


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


TurnsBytes = tuple[list[int], list[int], list[int], list[bool]]
"""Steps' turns in bytes, a column each: the assistant turn, the user turn in full and as its summary, and whether
those two are the same turn."""


def default_turns_bytes(steps: Iterable[Step], ids: Iterable[str], max_bytes: int) -> TurnsBytes:
    """``message_bytes`` of each rendered step's default turns, counted from the contract's parts of them
    (``render.default_parts``) with no block or message made, a column each: its assistant turn, its user turn in
    full and as its summary, and whether those two are the same turn. ``ids`` are the steps' ``tool_use`` ids;
    ``max_bytes`` is the cap on a result.

    For a series of sizes, which needs every step's turns in both forms and none of the turns themselves. Each
    turn's strings are encoded as one list, whose brackets and commas the fixed bytes leave out.
    """
    default_parts, encode = render.default_parts, _encoder.encode
    columns: TurnsBytes = ([], [], [], [])
    add_assistant, add_full, add_summary, add_same = (
        columns[0].append,
        columns[1].append,
        columns[2].append,
        columns[3].append,
    )
    values: list[Any]
    for step, tool_use_id in zip(steps, ids, strict=True):
        text, tool, value, _, block_type, full_text, rule, failed = default_parts(step, True, max_bytes)
        if not tool:
            assistant, values = _ASSISTANT_TURN + _TEXT_BLOCK - 2, [text]
        elif text:  # the text block, a comma and the tool use
            assistant, values = _ASSISTANT_TURN + _TEXT_BLOCK + 1 + _USE_BLOCK - 5, [text, tool_use_id, tool, value]
        else:
            assistant, values = _ASSISTANT_TURN + _USE_BLOCK - 4, [tool_use_id, tool, value]
        summary_text = full_text
        if rule in _IN_FULL:  # the rows of a result (render.result_and_rule's), which alone depend on the form
            summary_text = default_parts(step, False, max_bytes)[5]
        # the two forms differ only in the text a result shows (its block's type and flag are the step's)
        same = summary_text == full_text
        if block_type == "text":
            user, full_values, summary_values = _USER_TURN + _TEXT_BLOCK - 2, [full_text], [summary_text]
        else:  # a result: its text, and the id it answers
            user = _USER_TURN + _RESULT_BLOCK - 3 + (_ERROR_FLAG if failed else 0)
            full_values, summary_values = [full_text, tool_use_id], [summary_text, tool_use_id]
        try:
            strings = len(encode(values))
            full = user + len(encode(full_values))
            summary = full if same else user + len(encode(summary_values))
        except UnicodeEncodeError:  # text UTF-8 cannot carry, in any of the three: each counted value by value
            strings = _list_bytes(values)
            full = user + _list_bytes(full_values)
            summary = full if same else user + _list_bytes(summary_values)
        add_assistant(assistant + strings)
        add_full(full)
        add_summary(summary)
        add_same(same)
    return columns


def _list_bytes(values: list[Any]) -> int:
    """``len(encode(values))`` for values of which one is text UTF-8 cannot carry (``_each_bytes``)."""
    return _each_bytes(values) + len(values) + 1


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
