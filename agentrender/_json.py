"""JSON as agentrender reads and writes it: one strict reading, one canonical form, one display form.

- ``strict_loads``: RFC 8259 and nothing more (no ``NaN``/``Infinity``, no number that
  overflows to infinity, nothing nested deeper than ``MAX_DEPTH``), as ``render.decide``
  reads raw tool arguments and the run-file reader reads every line.
- ``MAX_DEPTH``, ``limited``, ``check_depth``, ``too_deep``, ``decode_failure``: the one nesting limit of every JSON
  agentrender decodes (files, and JSON text inside fields such as tool arguments) and of the
  values it is handed already decoded; ``deep_canonical`` writes a value past it as text.
- ``canonical``: the compact encoding a replay key hashes and a byte count measures
  (no ASCII escaping, ``,`` and ``:`` without spaces).
- ``display``: how every instrument (HTML, terminal, widgets, diagnostics) shows a JSON
  value to a person: indented, not ASCII-escaped, and never failing (bytes show as their
  UTF-8 text, or as ``{"base64": ...}`` when they are not UTF-8; anything else JSON cannot
  hold shows as its ``repr``).
- ``escaped``: what a command's ``--json`` prints for a program: as ``display`` but every
  non-ASCII character escaped, so the output is plain ASCII whatever the terminal.
- ``says_nothing``: a value a wire form may write out that says nothing (null, false, empty).
- ``type_name``: a decoded value's type as JSON names it (``object``, ``array``, ``null``), for
  every error that says what a field held instead of what it should.

The standard library's ``json`` writes and reads; msgspec only indents what it wrote (``_indented``).
"""

from __future__ import annotations

import base64
import json
import math
import re
from array import array
from collections.abc import Callable
from itertools import accumulate
from typing import Any

import msgspec

__all__ = [
    "MAX_DEPTH",
    "STRICT_DECODER",
    "NestingError",
    "canonical",
    "check_depth",
    "decode_failure",
    "decoder_place",
    "decoder_said",
    "deep_canonical",
    "display",
    "escaped",
    "limited",
    "says_nothing",
    "strict_loads",
    "too_deep",
    "type_name",
]

MAX_DEPTH = 256
"""How deep JSON may nest (arrays and objects inside one another) anywhere agentrender reads it.

Measured with the limit lifted, each instrument called from 200 frames deep (a notebook cell's
stack is about that), on a run whose arguments nest N levels: the notebook widgets survive
N = 776 (the run explorer; the conversation and decide widgets 778), the HTML of a view and of
a run 779, the frames 782, ``write_run`` 784, the views, sizes, ``render.messages`` and
``decide`` 785 (where the decoder itself stops); the CLI turns what it cannot show into its
error. 256 is a third of the shallowest, so an instrument called from a stack 500 frames
deeper still works, and far beyond any real value (the deepest in the bundled samples and the
imports' fixtures nests under 12 levels). ``tests/test_depth.py`` keeps the measure: every
instrument survives ``MAX_DEPTH`` from a stack of 500 frames.
"""


class NestingError(ValueError):
    """JSON (or a value handed over already decoded) nested deeper than ``MAX_DEPTH``; its message names
    the field that holds the nesting when it is known (``messages[1].content[0].input: nested deeper ...``)."""

    def __init__(self, field: str = "", limit: int = MAX_DEPTH) -> None:
        self.field = field
        """Where the nesting goes past the limit, as a path (``""`` for the whole value)."""
        super().__init__(
            f"{field}: nested deeper than {limit} levels" if field else f"nested deeper than {limit} levels"
        )


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"{text} overflows to infinity")
    return value


STRICT_DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float)
"""The decoder of ``strict_loads``, for a reader that decodes through its scanner."""


_STEPS = bytes.maketrans(b"[]{}", b"\x01\xff\x01\xff")


def check_depth(text: str, limit: int = MAX_DEPTH) -> None:
    """Raise ``NestingError`` when the JSON ``text`` opens more than ``limit`` arrays and objects inside one another.

    A linear scan of the brackets outside strings, in C: text with no more than ``limit``
    brackets that open is not even scanned. Text that is not JSON is measured as well as
    it can be; the decoder says what else is wrong with it. Measured on ``bench/bench_runfile.py``'s
    30,000-step run (110 MiB): ``load_run`` 0.96 s with the check, 0.90 s without (best of four).
    """
    if text.count("[") + text.count("{") <= limit:
        return
    brackets = _brackets(text)
    deepest = max(accumulate(array("b", brackets)), default=0)
    if deepest > limit:
        raise NestingError(_nesting_field(text, limit), limit)


def _brackets(text: str) -> bytes:
    """The brackets of the JSON ``text`` outside its strings, each ``[``/``{`` as 1 and ``]``/``}`` as -1 (a byte).

    Its escaped backslashes, then its escaped quotes, are taken out, so every quote left opens or
    closes a string; all but the brackets and quotes are deleted, and the brackets between every
    other quote kept. Every step is a ``bytes`` method in C: a pattern matching each string, as
    ``_nesting_field``'s tokens do, runs character by character, and took two thirds of the time of
    reading a call log (now a quarter of ``json.loads`` of the same text). Text that is not JSON is
    measured as well as it can be.
    """
    data = text.encode("utf-8", "surrogatepass")
    if b"\\" in data:
        data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    return b"".join(data.translate(None, _NOT_BRACKETS_OR_QUOTES).split(b'"')[::2]).translate(_STEPS)


_NOT_BRACKETS_OR_QUOTES = bytes(set(range(256)) - set(b'[]{}"'))


_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{},]')
_SHOWN_LEVELS = 6


def _nesting_field(text: str, limit: int) -> str:
    """Where ``text`` nests past ``limit``: the path to it (``messages[1].content[0].input.a…``), its first
    ``_SHOWN_LEVELS`` levels and ``…`` when it goes on. Walked token by token, on the way to an error only."""
    path: list[list[Any]] = []  # each open container: [its kind, the key or index being read, a key is next]
    for token in _TOKENS.finditer(text):
        char = token.group()[0]
        if char in "[{":
            if len(path) == limit:
                break
            path.append([char, 0 if char == "[" else "", char == "{"])
        elif char in "]}":
            if path:
                path.pop()
        elif char == ",":
            if path and path[-1][0] == "[":
                path[-1][1] += 1
            elif path:
                path[-1][2] = True
        elif path and path[-1][0] == "{" and path[-1][2]:
            try:
                path[-1][1] = json.loads(token.group())
            except ValueError:
                path[-1][1] = token.group()
            path[-1][2] = False
    field = ""
    for kind, key, _ in path[:_SHOWN_LEVELS]:
        field += f"[{key}]" if kind == "[" else (f".{key}" if field else str(key))
    return field + ("…" if len(path) > _SHOWN_LEVELS else "")


def limited(decode: Callable[[str], Any]) -> Callable[[str], Any]:
    """``decode`` that refuses text nested deeper than ``MAX_DEPTH`` with ``NestingError``.

    The depth is measured once the text has decoded (text that does not decode costs no
    scan), and a decoder that ran out of stack is refused the same way.
    """

    def decode_limited(text: str) -> Any:
        try:
            value = decode(text)
        except RecursionError:
            check_depth(text)  # raises, naming the field
            raise NestingError() from None
        check_depth(text)
        return value

    return decode_limited


def decoder_place(error: json.JSONDecodeError) -> tuple[int, int]:
    """Where in its text ``json``'s decoder found what ``error`` says, as a 1-based line and column: its own place, but
    for something it expected (``Expecting value``, ``Expecting ',' delimiter``) only past the end of a line, which is
    missing where that line's text ends, just past its last character (as a compiler says a missing ``;``), where the
    decoder named the next line's first character, or the column past a JSON line's newline."""
    at = error.pos
    if error.msg.startswith("Expecting"):
        end = len(error.doc[:at].rstrip(_JSON_SPACE))
        if "\n" in error.doc[end:at] or not error.doc[at:].strip(_JSON_SPACE):
            at = end
    return error.doc.count("\n", 0, at) + 1, at - error.doc.rfind("\n", 0, at)


_JSON_SPACE = " \t\n\r"
"""The whitespace JSON allows between its tokens."""


def decoder_said(error: json.JSONDecodeError) -> str:
    """What ``json``'s decoder found, without its place (said apart, as a column): its message of a control character
    raw in a string ends 'at', which the place followed."""
    return error.msg.removesuffix(" at")


def decode_failure(error: ValueError | RecursionError) -> str:
    """What a reader says of text it could not decode: ``not JSON: ...``, or that it nests too deep.

    Where the text is one line (a JSON line's record, with its newline or not: the place says the file's line), the
    column is said alone (``not JSON: Expecting ',' delimiter at column 41``), not the decoder's ``line 1 column 41
    (char 40)``, which read as the file's first line.
    """
    if isinstance(error, NestingError):
        return str(error)
    if isinstance(error, RecursionError):
        return str(NestingError())
    if isinstance(error, json.JSONDecodeError) and "\n" not in error.doc.rstrip("\r\n"):
        return f"not JSON: {decoder_said(error)} at column {decoder_place(error)[1]}"
    return f"not JSON: {error}"


def strict_loads(text: str) -> Any:
    """One JSON value as RFC 8259 has it; ``ValueError`` for anything else (``NaN`` included),
    ``NestingError`` for a value nested deeper than ``MAX_DEPTH``."""
    return _strict_limited(text)


_strict_limited = limited(STRICT_DECODER.decode)


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether an already decoded ``value`` nests lists, tuples and dicts more than ``limit`` deep.

    Walked without recursion, and stopped as soon as it is past ``limit`` (a value that
    holds itself is too deep, not an endless walk).
    """
    level: list[Any] = [value]
    for _ in range(limit + 1):  # each turn: is there a container one level deeper?
        level = [held for held in level if isinstance(held, dict | list | tuple)]
        if not level:
            return False
        level = [item for held in level for item in (held.values() if isinstance(held, dict) else held)]
    return True


_CANONICAL = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def canonical(value: Any) -> str:
    """The compact, canonical encoding of ``value`` (key order as given); ``ValueError`` or
    ``TypeError`` for what is not JSON."""
    return _CANONICAL.encode(value)


def deep_canonical(value: Any) -> str:
    """``canonical(value)`` at any depth: the encoding of a value too deep for the C encoder, without recursion.

    Scalars are encoded as ``canonical`` encodes them; a value that holds itself raises ``ValueError``.
    """
    out: list[str] = []
    open_ids: set[int] = set()
    work: list[Any] = [value]  # values to write, and the str pieces between them
    while work:
        item = work.pop()
        if isinstance(item, _Piece):
            out.append(item.text)
            open_ids.discard(item.closes)
        elif isinstance(item, dict | list | tuple):
            if id(item) in open_ids:
                raise ValueError("a value that holds itself is not JSON")
            open_ids.add(id(item))
            pairs = list(item.items()) if isinstance(item, dict) else list(enumerate(item))
            is_dict = isinstance(item, dict)
            out.append("{" if is_dict else "[")
            work.append(_Piece("}" if is_dict else "]", id(item)))
            for position in range(len(pairs) - 1, -1, -1):
                key, held = pairs[position]
                work.append(held)
                head = "," if position else ""
                work.append(_Piece(head + canonical(key) + ":" if is_dict else head, 0))
        else:
            out.append(canonical(item))
    return "".join(out)


class _Piece:
    """Text ``deep_canonical`` writes between values; ``closes`` is the id of the container it ends (or 0)."""

    __slots__ = ("closes", "text")

    def __init__(self, text: str, closes: int) -> None:
        self.text = text
        self.closes = closes


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
        if indent == 2:
            return _indented(value, ascii_only=False, allow_nan=False)
        return json.dumps(value, ensure_ascii=False, indent=indent, allow_nan=False, default=_shown)
    except ValueError:  # NaN or infinity, or a structure nested past the encoder's reach
        return repr(value)


def says_nothing(value: Any) -> bool:
    """Whether a value of a wire form says nothing: null, false, or an empty string, array or object (a block's key
    written out empty is no key a display shows, nor one its fields must carry: ``ContentBlock.opaque``)."""
    return value is None or value is False or (type(value) in (str, list, dict) and not value)


def escaped(value: Any) -> str:
    """``value`` as a command's ``--json`` prints it: indented JSON with every non-ASCII character
    escaped (``\\uXXXX``), so the bytes are ASCII on any terminal; bytes and values JSON cannot hold
    as ``display`` shows them."""
    return _indented(value, ascii_only=True, allow_nan=True)


def _indented(value: Any, *, ascii_only: bool, allow_nan: bool) -> str:
    """``json.dumps(value, ensure_ascii=ascii_only, allow_nan=allow_nan, indent=2, default=_shown)``, the same text
    to the byte, made faster: written compact by the standard library's encoder in C, then indented by msgspec's
    ``json.format``, which moves only the white space. Given an indent, ``json.dumps`` writes in Python, item by
    item: most of what ``agentrender show --json`` cost (``bench/README.md``, the CLI).

    What msgspec cannot read back is indented by ``json.dumps`` itself: ``NaN`` or ``Infinity`` (written where
    ``allow_nan``), or a lone surrogate, which UTF-8 cannot hold (kept where not ``ascii_only``).
    """
    compact = json.dumps(value, ensure_ascii=ascii_only, allow_nan=allow_nan, separators=(",", ":"), default=_shown)
    try:
        return msgspec.json.format(compact, indent=2)
    except (msgspec.DecodeError, UnicodeEncodeError):
        return json.dumps(value, ensure_ascii=ascii_only, allow_nan=allow_nan, indent=2, default=_shown)


_JSON_TYPE_NAMES = {
    dict: "object",
    list: "array",
    str: "string",
    bool: "boolean",
    int: "int",
    float: "float",
    type(None): "null",
}


def type_name(value: object) -> str:
    """The JSON name of ``value``'s type (``object``, ``array``, ...), or its Python name."""
    return _JSON_TYPE_NAMES.get(type(value), type(value).__name__)
