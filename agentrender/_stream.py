"""A Messages API reply rebuilt from the events of its stream.

Two places meet a streamed reply: ``agentrender.record`` records the reply a ``create(stream=True)``
call built, from the SDK's events; an import reads a log that kept the raw stream (claude-trace's
``body_raw``: server-sent events, ``event: ...`` and ``data: {...}`` lines). Both build it here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from agentrender._json import strict_loads

__all__ = ["StreamedReply", "sse_data"]

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
"""The line breaks of server-sent events: CRLF, CR or LF."""


class StreamedReply:
    """The ``Message`` a stream's events build: ``add`` each event's data (a dict) in order.

    ``message`` is ``None`` until ``message_start``; the reply is ``complete`` once a ``message_delta``
    has given its stop reason. An event of a shape the stream does not have raises ``KeyError``,
    ``IndexError``, ``TypeError`` or ``ValueError``.
    """

    def __init__(self) -> None:
        self._message: dict[str, Any] | None = None
        self.error: Any = None
        """What an ``error`` event said (its ``error``: ``{"type", "message"}``): the stream ended on it."""
        # A block's text, thinking and a tool use's input as they stream, in pieces joined once (when the block
        # stops, or the message is read): a text made piece by piece would be copied whole at each delta.
        self._pieces: dict[tuple[int, str], list[str]] = {}
        self._json: dict[int, list[str]] = {}  # a tool use's input: JSON text, parsed at its block's end

    @property
    def message(self) -> dict[str, Any] | None:
        """The reply so far (``None`` before ``message_start``): a stream cut short gives what arrived of it."""
        if self._pieces:
            for index, field in list(self._pieces):
                self._join(index, field)
        return self._message

    @property
    def complete(self) -> bool:
        """True when the stream gave a whole reply: begun, and its stop reason given."""
        return self._message is not None and self._message.get("stop_reason") is not None

    def add(self, data: Any) -> None:
        kind = data.get("type") if isinstance(data, dict) else None
        message = self._message
        if kind == "error":
            self.error = data.get("error", data)
        elif kind == "message_start":
            self._message = dict(data["message"])
            self._message["content"] = list(self._message.get("content") or [])
        elif message is None:
            return
        elif kind == "content_block_start":
            message["content"].append(dict(data["content_block"]))
        elif kind == "content_block_delta":
            self._delta(message["content"], data["index"], data["delta"])
        elif kind == "content_block_stop":
            index = data["index"]
            for field in ("text", "thinking"):
                self._join(index, field)
            pending = self._json.pop(index, None)
            if pending is not None:
                message["content"][index]["input"] = _streamed_input("".join(pending))
        elif kind == "message_delta":
            message.update(data.get("delta") or {})
            usage = dict(message.get("usage") or {})
            usage.update({key: value for key, value in (data.get("usage") or {}).items() if value is not None})
            message["usage"] = usage

    def _delta(self, blocks: list[dict[str, Any]], index: int, delta: Mapping[str, Any]) -> None:
        block = blocks[index]  # an index past the blocks begun raises IndexError: a stream of another shape
        kind = delta.get("type")
        if kind == "text_delta":
            self._pieces.setdefault((index, "text"), []).append(delta.get("text", ""))
        elif kind == "input_json_delta":
            self._json.setdefault(index, []).append(delta.get("partial_json", ""))
        elif kind == "thinking_delta":
            self._pieces.setdefault((index, "thinking"), []).append(delta.get("thinking", ""))
        elif kind == "signature_delta":
            block["signature"] = delta.get("signature", "")
        elif kind == "citations_delta":
            block["citations"] = [*(block.get("citations") or []), delta.get("citation")]  # a few: a new list each

    def _join(self, index: int, field: str) -> None:
        pieces = self._pieces.pop((index, field), None)
        if pieces is not None and self._message is not None:
            block = self._message["content"][index]
            block[field] = block.get(field, "") + "".join(pieces)


def _streamed_input(text: str) -> Any:
    """A streamed tool use's input: its JSON, or the text itself when that is no JSON agentrender reads
    (``render.decide`` then keeps it as the reply's invalid arguments)."""
    if not text:
        return {}
    try:
        return strict_loads(text)
    except ValueError:
        return text


def sse_data(text: str) -> Iterator[tuple[int, Any]]:
    """The data of each event of a server-sent events text, parsed as JSON, with the number of the text's line
    its data begins on. An event's ``data:`` lines are joined with line breaks (the format's rule); an event
    without data (a comment, a bare ``event:``) gives nothing. Data that is no JSON raises ``ValueError``
    naming its line."""
    data: list[str] = []
    start = 0
    # the format's line breaks only: a JSON text may hold U+2028 or U+0085 unescaped, which str.splitlines breaks at
    for number, line in enumerate([*_LINE_BREAK.split(text), ""], 1):
        if not line:
            joined = "\n".join(data)
            if data and joined != "[DONE]":  # a proxy's end of an OpenAI-style stream, no event of the reply's
                try:
                    yield start, strict_loads(joined)
                except ValueError as error:
                    raise ValueError(f"line {start} of the stream: its data is not JSON ({error})") from None
            data = []
            continue
        if line.startswith("data:"):
            if not data:
                start = number
            value = line[5:]
            data.append(value[1:] if value.startswith(" ") else value)
