"""JSON as agentrender reads and writes it: one strict reading, one canonical form, one display form.

- ``strict_loads``: RFC 8259 and nothing more (no ``NaN``/``Infinity``, no number that
  overflows to infinity), as ``render.decide`` reads raw tool arguments and the run-file
  reader reads every line.
- ``canonical``: the compact encoding a replay key hashes and a byte count measures
  (no ASCII escaping, ``,`` and ``:`` without spaces).
- ``display``: how every instrument (HTML, terminal, widgets, diagnostics) shows a JSON
  value to a person: indented, not ASCII-escaped, and never failing (bytes show as their
  UTF-8 text, or as ``{"base64": ...}`` when they are not UTF-8; anything else JSON cannot
  hold shows as its ``repr``).
- ``escaped``: what a command's ``--json`` prints for a program: as ``display`` but every
  non-ASCII character escaped, so the output is plain ASCII whatever the terminal.

Standard library only.
"""

from __future__ import annotations

import base64
import json
import math
from typing import Any

__all__ = ["STRICT_DECODER", "canonical", "display", "escaped", "strict_loads"]


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"{text} overflows to infinity")
    return value


STRICT_DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float)
"""The decoder of ``strict_loads``, for a reader that decodes through its scanner."""


def strict_loads(text: str) -> Any:
    """One JSON value as RFC 8259 has it; ``ValueError`` for anything else (``NaN`` included)."""
    return STRICT_DECODER.decode(text)


_CANONICAL = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def canonical(value: Any) -> str:
    """The compact, canonical encoding of ``value`` (key order as given); ``ValueError`` or
    ``TypeError`` for what is not JSON."""
    return _CANONICAL.encode(value)


def _shown(value: Any) -> Any:
    """What ``display`` and ``escaped`` show for a value JSON cannot hold."""
    if isinstance(value, bytes | bytearray):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            return {"base64": base64.b64encode(value).decode("ascii")}
    return repr(value)


def display(value: Any, *, indent: int | None = 2) -> str:
    """``value`` as a person is shown it: indented JSON, not ASCII-escaped; bytes as their text (or
    base64), ``repr`` for anything else JSON cannot hold.

    ``indent=None`` gives one line with ``", "`` and ``": "`` between items.
    """
    try:
        return json.dumps(value, ensure_ascii=False, indent=indent, allow_nan=False, default=_shown)
    except ValueError:  # NaN or infinity, or a structure nested past the encoder's reach
        return repr(value)


def escaped(value: Any) -> str:
    """``value`` as a command's ``--json`` prints it: indented JSON with every non-ASCII character
    escaped (``\\uXXXX``), so the bytes are ASCII on any terminal; bytes and values JSON cannot hold
    as ``display`` shows them."""
    return json.dumps(value, ensure_ascii=True, indent=2, default=_shown)
