"""The speed tricks agentrender uses, each written once, with what it buys.

Everything here trades plainness for speed on a path that runs once per step or per
record of a run (100,000 of them in a large run). The modules that use a trick call it
by name and read as plain code; the figures behind each choice are in ``bench/``.

- ``frozen_factory``: build a frozen, slotted dataclass without its generated
  ``__init__``. That ``__init__`` sets each field through ``object.__setattr__`` (the
  price of ``frozen=True``) and costs more than all the rest of a step's render or load.
  The value is filled as an unfrozen twin of the class (the same slots), whose plain
  attribute stores the interpreter speeds up, and then becomes the class itself.
- ``slot_setter``: fill one slot of a frozen value later, for a field that is computed
  the first time it is read (a loaded model call's record and reply); ``frozen_factory``
  leaves such a slot empty when it is named in ``unset``.
- ``BoundedMemo``: remember the result of a check by the shape of what was checked, so
  that records of one kind, which nearly always have the same fields holding the same
  types, are checked once per shape and not once per record.
- ``paused``: the cyclic garbage collector off while a large run is built, so its full
  passes do not walk every object already kept, again and again as the heap grows;
  ``promote``: in such a block, what was decoded from JSON or rendered (trees, never garbage
  cycles) moved to the oldest generation with no pass over it, rather than walked cold when
  the block ends (``worth_promoting``: when a block makes enough for that to pay).
- ``fast_json_decoder``: decode a line that is exactly one JSON value through the
  decoder's scanner alone, skipping the wrapper that looks for trailing data.
- ``batched_json_encoder``: encode an object or array of many items a batch at a time,
  so the encoder's pieces of one batch, not of the whole value, are alive at once (a
  memory trick: an object of 650,000 keys takes 53 MB to encode in one go, 9 MB of text).
- ``fast_json_encoder``: encode many small values with one encoder's C encoder, made once,
  instead of ``JSONEncoder.encode``, which makes it again (and a closure) for every value:
  about half the time of encoding a tool call's arguments.
- ``digit_shapes``: the few shapes (every digit as ``0``) of a column of texts one program
  wrote, such as timestamps, in a pass over their join: a pattern is then matched once a
  shape rather than once a text, whose call costs more than the match.

Standard library only.
"""

from __future__ import annotations

import gc
import itertools
import json
import json.encoder
import json.scanner
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import MISSING
from typing import Any, TypeVar

__all__ = [
    "BoundedMemo",
    "batched_json_encoder",
    "digit_shapes",
    "fast_json_decoder",
    "fast_json_encoder",
    "frozen_factory",
    "paused",
    "promote",
    "slot_setter",
    "worth_promoting",
]

T = TypeVar("T")
K = TypeVar("K")
V = TypeVar("V")


def frozen_factory(cls: type[T], *names: str, unset: tuple[str, ...] = ()) -> Callable[..., T]:
    """A function ``make(*values)`` that builds ``cls`` with its slots ``names`` filled, in order.

    ``cls`` must be a slotted dataclass of no other base, and ``names`` and ``unset`` together
    every one of its fields, so no slot is left empty by accident (``ValueError`` otherwise);
    a field with a plain default may be left out of a call. The fields in ``unset`` are left
    empty, for a class that fills them when first read (see ``slot_setter``). The value is as
    frozen as one built by ``cls(...)``: only its construction skips ``object.__setattr__``.

    The value starts as an instance of a twin of ``cls``: a class of the same slots and no
    ``__setattr__`` of its own, so each field is a plain attribute store, which the
    interpreter specialises to a write into the slot (setting a frozen slot through its
    descriptor is a call, and took twice as long for a content block of nine fields). Its
    class is then set to ``cls``, which Python allows because the two lay out their slots
    alike. The function is generated with one statement per field, as ``dataclasses``
    generates ``__init__``: a loop over the fields would cost a good part of what is saved.
    """
    fields = getattr(cls, "__dataclass_fields__", {})
    if sorted(fields) != sorted((*names, *unset)):
        raise ValueError(f"frozen_factory({cls.__name__}): name every field of it once: {tuple(fields)}")
    slots = cls.__dict__.get("__slots__")
    if cls.__bases__ != (object,) or slots is None:
        raise ValueError(f"frozen_factory({cls.__name__}): expected a slotted dataclass with no base class")
    twin = type(f"_Unfrozen{cls.__name__}", (), {"__slots__": slots, "__module__": cls.__module__})
    namespace: dict[str, Any] = {"_new": object.__new__, "_twin": twin, "_cls": cls}
    params = []
    for position, name in enumerate(names):
        default = fields[name].default
        if default is MISSING:
            params.append(name)
        else:
            namespace[f"_default{position}"] = default
            params.append(f"{name}=_default{position}")
    lines = [f"def make({', '.join(params)}):", "    _made = _new(_twin)"]
    lines.extend(f"    _made.{name} = {name}" for name in names)
    lines.extend(["    _made.__class__ = _cls", "    return _made"])
    exec("\n".join(lines), namespace)
    make: Callable[..., T] = namespace["make"]
    make.__qualname__ = make.__name__ = f"make_{cls.__name__}"
    make.__doc__ = f"``{cls.__name__}({', '.join(f'{n}=...' for n in names)})``, without its ``__init__``."
    return make


def slot_setter(cls: type, name: str) -> Callable[[Any, Any], None]:
    """``set(obj, value)`` for the slot ``name`` of a frozen slotted class: for a field filled when first read."""
    setter: Callable[[Any, Any], None] = getattr(cls, name).__set__
    return setter


class BoundedMemo(dict[K, V]):
    """A ``dict`` of results by key that stops growing at ``size`` entries.

    For a check whose result depends only on a key that repeats, such as the shape of a
    record (its field names and the types of their values): ``get`` it, and on a miss
    compute the result and ``keep`` it. A result that is an error is not kept, so the next
    record of that shape is checked, and fails, again. Past ``size`` keys (a file of
    ever-new shapes) results are computed and not kept, so memory stays bounded.
    """

    __slots__ = ("size",)

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size
        """The most entries kept."""

    def keep(self, key: K, value: V) -> V:
        """Remember ``value`` for ``key`` while there is room; return ``value``."""
        if len(self) < self.size:
            self[key] = value
        return value


@contextmanager
def paused(*, promoting: bool = False) -> Iterator[None]:
    """The cyclic collector off for the ``with`` block and restored after (left off if it was off).

    Loading a large run, building its frame or checking it makes millions of objects and
    frees almost none, none of them in a cycle. Reference counting still frees what the
    block drops; only cycles made while paused wait for the collection that ends the pause.

    Leaving a block that made enough objects for a collection to be due collects the young
    generations once (``gc.collect(1)``) before the collector is back on: what the block made
    and kept then goes straight to the oldest generation, instead of being walked once as the
    youngest and again as the middle one. A block that made few leaves them to the collector.

    ``promoting=True`` is for a block that calls ``promote``: the young generations are
    collected as it begins (a pass over what was made since the last collection), so that
    what ``promote`` moves is what the block made, never the program's own objects.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    if promoting:
        gc.collect(1)
    _pause.promoting = promoting
    try:
        yield
    finally:
        _pause.promoting = False
        if gc.get_count()[0] >= gc.get_threshold()[0]:
            gc.collect(1)
        gc.enable()


_pause = threading.local()
"""``promoting``: whether this thread is in a block of ``paused(promoting=True)`` that turned the collector off."""


def promote() -> None:
    """In a block of ``paused(promoting=True)``, what the block made so far moved to the oldest generation, no pass.

    For what a block decoded from JSON and keeps (a run's records and steps, a transcript's
    records): ``json`` values are trees, with no cycle among them, so a pass of the collector
    over them frees nothing; the one that ends the block would walk them all, over memory no
    longer in the processor's cache: a good part of what decoding small records costs
    (``bench/README.md``). ``gc.freeze`` then ``gc.unfreeze`` put every tracked object in the
    oldest generation (the pair's documented effect); what the block makes afterwards is
    collected when it ends, as before.

    Two things keep the pair from costing the program memory. Each did, before: a process that
    loaded file after file and built their views and frames grew past any bound.

    - Every young object moves, not only the block's, and an object moved so never counts
      towards the next full collection. The block being ``promoting``, its start collected
      the young generations: what moves is the block's own, trees of decoded JSON and what is
      made of them, which reference counting frees. Call it only where that is so.
    - ``gc.freeze`` also zeroes the collector's counts, the clock of its full collections:
      called once a load, that clock never ran out and no full collection came. Collections
      of the now empty middle generation (microseconds each) wind back the one count that
      brings a full collection; the others were zero already (the block's start collected
      the middle generation, and with the collector off nothing has counted since).

    Nothing outside a block of ``paused(promoting=True)`` that turned the collector off, nor
    when the program froze objects of its own: unfreezing would move them.
    """
    if getattr(_pause, "promoting", False) and gc.get_freeze_count() == 0:
        middle = gc.get_count()[2]  # collections of the middle generation since the last full one
        gc.freeze()
        gc.unfreeze()
        for _ in range(middle):
            gc.collect(1)


def worth_promoting(objects: int) -> bool:
    """Whether a block that makes and keeps about ``objects`` container objects should ``promote`` them.

    A promoting block pays one collection of the young generations as it begins; a plain one
    that made a young generation's worth (the collector's first threshold, 700 by default)
    pays that collection as it ends, over what it made too. Below that a plain block pays
    nothing, so promoting is worth it from there up.
    """
    return objects >= gc.get_threshold()[0]


def fast_json_decoder(decoder: json.JSONDecoder, space: str = " \t\n\r") -> Callable[[str], Any]:
    """``decode(text)`` with ``decoder``'s rules, through its scanner alone when ``text`` is one value.

    Anything else (trailing data, an error to word) goes through ``decoder.decode``, so the
    result and every error are the decoder's own. ``space`` is what may follow the value.
    """
    scan = json.scanner.make_scanner(decoder)  # type: ignore[arg-type]  # typeshed wants a scanner context

    def decode(text: str) -> Any:
        try:
            value, end = scan(text, 0)
        except (StopIteration, ValueError):
            return decoder.decode(text)
        if end != len(text) and text[end:].strip(space):
            return decoder.decode(text)
        return value

    return decode


def batched_json_encoder(encoder: json.JSONEncoder, batch: int = 10_000) -> Callable[[Any], str]:
    """``encode(value)``, the same text as ``encoder.encode``; an object or array of more than ``batch``
    items is encoded ``batch`` items at a time and the pieces joined.

    The C encoder makes a string of every key, value and separator of a value before joining
    them: about six times the text it returns is alive at its peak. A batch at a time keeps
    that to one batch's strings beside the text. An encoder that sorts keys encodes in one go.
    Each value or batch is encoded as ``fast_json_encoder(encoder)`` encodes it.
    """
    encode = fast_json_encoder(encoder)
    if encoder.sort_keys:
        return encode
    separator = encoder.item_separator

    def batched(value: Any) -> str:
        if type(value) is dict and len(value) > batch:
            items = iter(value.items())
            pieces = []
            while chunk := dict(itertools.islice(items, batch)):
                pieces.append(encode(chunk)[1:-1])
            return "{" + separator.join(pieces) + "}"
        if type(value) is list and len(value) > batch:
            pieces = [encode(value[at : at + batch])[1:-1] for at in range(0, len(value), batch)]
            return "[" + separator.join(pieces) + "]"
        return encode(value)

    return batched


def fast_json_encoder(encoder: json.JSONEncoder) -> Callable[[Any], str]:
    """``encode(value)``, the same text and errors as ``encoder.encode(value)``, through a C encoder made once.

    ``JSONEncoder.encode`` builds its C encoder (and a Python closure) anew for every value,
    which costs more than encoding a small object. The encoder made here (one a thread) keeps
    ``encoder``'s settings (``default`` included), so ``encoder`` must not be changed
    afterwards. An encoder with an ``indent``, or a Python without the C encoder, encodes as
    ``encoder.encode``.
    """
    make = getattr(json.encoder, "c_make_encoder", None)  # typeshed leaves out the C accelerator
    if make is None or encoder.indent is not None:
        return encoder.encode
    strings = json.encoder.encode_basestring_ascii if encoder.ensure_ascii else json.encoder.encode_basestring
    local = threading.local()

    def made() -> tuple[dict[int, Any] | None, Callable[[Any, int], list[str]]]:
        # The circular-reference markers are kept between calls, as the encoder's own call keeps
        # them during one: each value removes its own on the way out, except when encoding it
        # fails. Each thread has its own: a ``default`` written in Python lets another thread run.
        markers: dict[int, Any] | None = {} if encoder.check_circular else None
        chunks = make(
            markers,
            encoder.default,
            strings,
            encoder.indent,
            encoder.key_separator,
            encoder.item_separator,
            encoder.sort_keys,
            encoder.skipkeys,
            encoder.allow_nan,
        )
        local.made = markers, chunks
        return markers, chunks

    def encode(value: Any) -> str:
        try:
            markers, chunks = local.made
        except AttributeError:
            markers, chunks = made()
        try:
            return "".join(chunks(value, 0))
        except BaseException:
            if markers:
                markers.clear()
            raise

    return encode


_ZERO_DIGITS = str.maketrans("123456789", "000000000")


def digit_shapes(texts: Sequence[str]) -> set[str] | None:
    """The shapes of ``texts``, each text with every ASCII digit as ``0``, once each; ``None`` when a text
    holds a newline (the texts are joined by newlines, translated and split again)."""
    if not texts:
        return set()
    shapes = "\n".join(texts).translate(_ZERO_DIGITS).split("\n")
    return set(shapes) if len(shapes) == len(texts) else None
