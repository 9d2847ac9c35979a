"""How many bytes a view's messages take on the wire, counted without encoding them.

A view's size is the bytes of its messages as one compact JSON list, exactly as
``render.replay_key`` encodes them. Counting them by encoding every view would cost a
render per view; these count each block's strings and add the fixed bytes of its keys
and punctuation, so a view's bytes are sums of per-step counts.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from agentrender._types import ContentBlock, Message, utf8_bytes

__all__ = ["approx_tokens", "json_bytes", "list_bytes", "message_bytes"]


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


def message_bytes(message: Message) -> int:
    """The UTF-8 bytes of ``message``'s wire form as compact JSON (as ``render.replay_key`` encodes it)."""
    blocks = message.content
    # {"role":R,"content":[B,B]}: 22 bytes of keys and punctuation, the role, the blocks, their commas
    role = _ROLE_BYTES.get(message.role) or json_bytes(message.role)
    if len(blocks) == 1:
        return 22 + role + _block_bytes(blocks[0])
    size = 22 + role + sum(map(_block_bytes, blocks))
    return size + len(blocks) - 1 if blocks else size


def list_bytes(count: int, total: int) -> int:
    """The bytes of a JSON list of ``count`` items whose own bytes add up to ``total``."""
    return 2 + total + count - 1 if count else 2
