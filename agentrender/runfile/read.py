"""Reading a run file: ``load_run`` and the state of one read.

Reading never loses a record: every line's record is kept in ``Run.records``; whatever is
not loaded into the typed fields, or is loaded with a doubt, is a ``RunWarning``; input
that cannot be read raises ``RunFileError`` naming the file and the line.
"""

from __future__ import annotations

import json
import os
from array import array
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from itertools import chain
from operator import attrgetter
from typing import Any, NamedTuple, overload

from msgspec import UNSET

from agentrender._display.said import tried_said
from agentrender._json import decode_failure
from agentrender._types import Step
from agentrender._words import FEW, clipped, first_few, shown
from agentrender.runfile.imported import ContentSequence, ConversationSteps
from agentrender.runfile.lines import (
    GZIP_MAGIC,
    JSON_SPACE,
    StreamError,
    binary_at,
    decode_line,
    gzip_lines,
    inflate_limit,
    open_lines,
)
from agentrender.runfile.model import (
    FORMAT,
    NO_OPENING,
    ModelCall,
    Run,
    RunFileError,
    RunWarning,
    RunWarnings,
    StepRecords,
    as_record,
    has_opening,
    kept_call,
    loaded_call,
    plain_field,
)
from agentrender.runfile.schema import (
    RECORD_TYPES,
    BadRecord,
    CheckedCallRecord,
    KnownStep,
    ModelCallRecord,
    ShallowStep,
    StepRecord,
    doubts,
    load_typed,
    model_call_structs,
    quick_record,
    quick_records,
    quiet_call,
    read_record,
    step_again,
    step_of,
    untimely,
)
from agentrender.runfile.sent import FORMAT_SENT

__all__ = ["NEVER_SENT", "Held", "Loader", "failure_text", "load_run", "missing_header", "read_records"]


class _Records(ContentSequence[Mapping[str, Any]]):
    """``Run.records`` of a run read from a file: every record in file order.

    A model call's place holds the ``ModelCall``, whose ``record`` is decoded from its line
    when first asked for; a step record read quickly (``schema.quick_record``) its ``StepRecord``,
    made into a dict when asked for; every other record is held as it was parsed. A run made from a
    conversation (``read_records(steps=...)``) has its step records after the header, each
    made when first asked for. Compares equal to any sequence of the same records, a list included.
    """

    __slots__ = ("_items", "_starts", "_steps", "_total")

    def __init__(self, items: Sequence[_Item], steps: ConversationSteps | None = None) -> None:
        self._items = items
        self._steps = steps
        self._starts: list[int] | None = None
        self._total = -1  # not counted yet: a followed run is made at each growth, and read far less often

    def _count(self) -> int:
        """How many records the items hold, and (when some item is a stretch of several) where each starts."""
        if self._total < 0:
            items = self._items
            self._total = len(items)
            if any(type(item) is _Unloaded for item in items):
                self._starts, total = [], 0
                for item in items:
                    self._starts.append(total)
                    total += item.count if type(item) is _Unloaded else 1
                self._total = total
        return self._total

    def __len__(self) -> int:
        return self._count() + (self._steps.count if self._steps is not None else 0)

    def _at(self, position: int) -> Mapping[str, Any]:
        """The record at ``position`` of the items (a file's records: no conversation's steps among them)."""
        self._count()
        starts = self._starts
        if starts is None:
            return _as_record(self._items[position])
        if position < 0:
            position += self._total
        if not 0 <= position < self._total:
            raise IndexError("record index out of range")
        k = bisect_right(starts, position) - 1
        item = self._items[k]
        return item.record_at(position - starts[k]) if type(item) is _Unloaded else _as_record(item)

    @overload
    def __getitem__(self, at: int) -> Mapping[str, Any]: ...
    @overload
    def __getitem__(self, at: slice) -> list[Mapping[str, Any]]: ...
    def __getitem__(self, at: int | slice) -> Mapping[str, Any] | list[Mapping[str, Any]]:
        steps = self._steps
        if steps is None:
            if isinstance(at, slice):
                return [self._at(i) for i in range(*at.indices(len(self)))]
            return self._at(at)
        if isinstance(at, slice):
            return [self[i] for i in range(*at.indices(len(self)))]
        position = at + len(self) if at < 0 else at
        if not 0 <= position < len(self):
            raise IndexError("record index out of range")
        if 1 <= position <= steps.count:  # the header comes first, then the steps
            return steps.made(position - 1)[1]
        return _as_record(self._items[position - steps.count if position else 0])

    def __iter__(self) -> Iterator[Mapping[str, Any]]:
        steps = self._steps
        if steps is None or not self._items:
            return _flat(self._items)
        return chain(map(_as_record, self._items[:1]), steps.records.values(), map(_as_record, self._items[1:]))

    def __repr__(self) -> str:
        return repr(list(self))


def _as_record(item: _Item) -> Mapping[str, Any]:
    """The record an item of one record stands for (a stretch of unloaded ones is read by ``_flat`` or ``_at``)."""
    if isinstance(item, ModelCall):
        return item.record
    if isinstance(item, _Unloaded):
        raise TypeError("a stretch of unloaded records stands for several records, not one")
    return as_record(item)


def _flat(items: Sequence[_Item]) -> Iterator[Mapping[str, Any]]:
    for item in items:
        if type(item) is _Unloaded:
            yield from item.records()
        else:
            yield _as_record(item)


class _Unloaded:
    """Records of types the run does not load, one after the other in the file: kept as their lines' text, joined,
    and decoded when ``Run.records`` reads them.

    A file of a million tiny records of an unknown type (a runtime's progress notes) would hold a
    million dicts, or a million strings; a stretch of them joined is one string about the size of
    its lines (``bench/bench_memory.py``, ``runfile/tiny``). A line of JSON holds no newline, so the
    newline joins them.
    """

    __slots__ = ("count", "text")

    STRETCH = 4096
    """The most records one holds: a record is read by splitting its stretch up to it."""

    def __init__(self, lines: list[str]) -> None:
        self.text = "\n".join(line.rstrip("\r\n") for line in lines)
        self.count = len(lines)

    def records(self) -> list[dict[str, Any]]:
        """Every record, as the lines hold them (fresh dicts at each read: the run holds the text, not the dicts)."""
        return [decode_line(line) for line in self.text.split("\n")]

    def record_at(self, position: int) -> dict[str, Any]:
        """The record of the ``position``-th line."""
        value: dict[str, Any] = decode_line(self.text.split("\n", position + 1)[position])
        return value


_Item = Mapping[str, Any] | StepRecord | ModelCall | _Unloaded
"""What ``Loader.records`` holds for a record, or for a stretch of unloaded ones."""


class _StepRecords(StepRecords):
    """``Run.step_records`` of a run read from a file in one go: the records the loader held, by index."""

    __slots__ = ("_records",)

    def __init__(self, records: Mapping[int, Mapping[str, Any] | StepRecord]) -> None:
        self._records = records

    def held(self, index: int) -> Mapping[str, Any] | StepRecord:
        return self._records[index]

    def field(self, name: str, indices: Iterable[int]) -> list[Any]:
        indices = list(indices)
        try:  # every step has a record, each a struct: read in one pass, with no call a step
            values = list(map(attrgetter(name), map(self._records.__getitem__, indices)))
        except (KeyError, AttributeError):  # a step with no record, or a dict record, or no such field
            return super().field(name, indices)
        return values if set(map(type, values)) <= {str} else list(map(plain_field, values))  # texts: as they are

    def times(self, indices: Iterable[int]) -> tuple[list[Any], list[Any]]:
        indices = list(indices)
        try:  # every step has a record, each a struct: both fields read off one list of them, by name (no attrgetter)
            records: list[Any] = list(map(self._records.__getitem__, indices))
            started = [None if (at := record.started_at) is UNSET else at for record in records]
            ended = [None if (at := record.ended_at) is UNSET else at for record in records]
        except (KeyError, AttributeError):  # a step with no record, or a dict record
            return super().times(indices)
        return started, ended  # a timestamp is a text (``schema.Timestamp``), kept as it is

    def __iter__(self) -> Iterator[int]:
        return iter(self._records)

    def __len__(self) -> int:
        return len(self._records)


class _StepLines(ContentSequence[int]):
    """``Run.step_lines`` of a run read from a file in one go: the line the loader read each step from, by its index,
    in the order of the steps (``order``, their indices sorted), looked up when asked, where a copy in that order
    would cost a pass over the steps on every load for a fact a finding of ``check`` asks for."""

    __slots__ = ("_lines", "_order")

    def __init__(self, lines: Mapping[int, int], order: Sequence[int]) -> None:
        self._lines, self._order = lines, order

    @overload
    def __getitem__(self, at: int) -> int: ...

    @overload
    def __getitem__(self, at: slice) -> tuple[int, ...]: ...

    def __getitem__(self, at: int | slice) -> int | tuple[int, ...]:
        if isinstance(at, slice):
            return tuple(self._lines[index] for index in self._order[at])
        return self._lines[self._order[at]]

    def __len__(self) -> int:
        return len(self._order)

    def __repr__(self) -> str:
        return repr(tuple(self))


_HISTORY_HINT = (
    "; a run file begins with its 'run' header, and an agent's own history (a Claude Code session, a Codex rollout, "
    "an Inspect log, a Messages API request ...) is read by agentrender.load or `agentrender import`"
)
"""What a failure on a file's first record adds: most such files are another format's, which ``load_run`` does not
read (the core does not import the importers, so it names them rather than trying them)."""


def missing_header(kind: object) -> str:
    """What a file whose first record is of the type ``kind``, not ``run``, lacks, as ``load_run`` and
    ``agentrender.load`` say it: a record a run file holds (a step, a model call, an end: ``schema.RECORD_TYPES``) makes
    it a run file that lost its header line, or never had it written; any other, a file likely of another format."""
    if isinstance(kind, str) and kind in RECORD_TYPES:
        return (
            f"missing run header: a run file whose first line is a {shown(kind)} record, not the 'run' header it must "
            "start with (its header line was lost, or never written)"
        )
    return f"missing run header: the first record is a {shown(kind)} record, not 'run'{_HISTORY_HINT}"


_TIMED = 256
"""How many steps read quickly ``Loader.check_times`` checks at once: their timestamps are read as times together."""

_LOADED = frozenset(("step", "end"))
"""The record types the run loads into its typed fields, and so holds as read."""

_BLANK_START = frozenset((b" ", b"\t", b"\r", b"\n"))

_BATCH_LINES, _BATCH_BYTES = 256, 1 << 16
"""The most lines, and about the most bytes, ``Loader.read`` decodes together."""


class Loader:
    """The state of one read: what has been loaded so far and what will be reported.

    ``load_run`` reads a file through one in one go; ``following.Follower`` keeps one between
    reads of a growing file, feeding it each batch of new complete lines (``read`` numbers
    them on from ``last_line``) and taking the steps a batch touched from ``touched``.
    """

    def __init__(self, path: str, *, blocks: bool = True, replies: bool = True) -> None:
        self.path = path
        self.blocks = blocks
        self.replies = replies
        self.header: dict[str, Any] | None = None
        self.header_line = 0
        self.records: list[_Item] = []
        self.unloaded: list[str] = []
        """The lines of the stretch of unloaded records being read (``_Unloaded``)."""
        self.steps: dict[int, Step] = {}
        self.step_records: dict[int, Mapping[str, Any] | StepRecord] = {}
        self.step_lines: dict[int, int] = {}
        self.model_calls: list[ModelCall] = []
        self.end: dict[str, Any] | None = None
        self.end_line = 0
        self.unknown: list[str] = []
        self.doubted: list[str] = []
        self.last_line = 0
        # Notes that may repeat on many records are kept once each, with the first line and a count.
        self.notes: dict[str, list[int]] = {}  # text: [first line, count, lost (1) or not (0)]
        self.timed: list[StepRecord] = []
        """The steps read quickly whose timestamps are not checked yet (``check_times``), and their lines."""
        self.timed_lines = array("q")
        self.touched: list[int] = []
        """The index of each step record loaded since the caller last cleared this (a follower does)."""
        self.known = True
        """Whether the quick read decodes steps as ``KnownStep``s: until it meets one of another kind or status
        (``schema.quick_records``), after which each batch would be decoded twice."""
        self.shallow = True
        """Whether the quick read decodes steps as ``ShallowStep``s first: until it meets one whose arguments nest
        or that sent turns (a ``KnownStep``), after which each batch would be decoded twice."""

    def note(self, line: int, text: str, *, lost: bool = False) -> None:
        seen = self.notes.get(text)
        if seen is None:
            self.notes[text] = [line, 1, int(lost)]
        else:
            seen[0] = min(seen[0], line)  # the timestamps of quick steps are noted after the lines that follow them
            seen[1] += 1

    def keep(self, item: Mapping[str, Any] | StepRecord | ModelCall) -> None:
        """Keep a record in ``records``, after the stretch of unloaded ones before it."""
        if self.unloaded:
            self.keep_unloaded()
        self.records.append(item)

    def keep_unloaded(self) -> None:
        self.records.append(_Unloaded(self.unloaded))
        self.unloaded = []

    def fail(self, line: int, what: str) -> RunFileError:
        return RunFileError(self.path, line, what)

    def read(self, lines: Iterable[bytes]) -> None:
        """Load every line, counting them in ``self.last_line``.

        A run of blank lines may come as one (``gzip_lines`` gives them so): it counts as many lines as it holds.
        The lines are numbered on from ``last_line``: a follower reads a file in several batches.

        Once the header is read, the lines are taken in batches of up to ``_BATCH_LINES`` lines and
        ``_BATCH_BYTES`` bytes, decoded together when every one is a step or a model call (``quick_records``),
        else each alone.
        """
        pending = iter(lines)
        while True:
            batch: list[bytes] = []
            try:
                self.take(pending, batch)
            except StreamError:  # a gzip stream cut short or corrupt: what it gave before is read first
                self.read_batch(batch)
                raise
            if not batch:
                return
            self.read_batch(batch)

    def take(self, lines: Iterator[bytes], batch: list[bytes]) -> None:
        """Add the next of ``lines`` to ``batch``: up to ``_BATCH_LINES`` lines and about ``_BATCH_BYTES`` bytes, one
        while the header is not read."""
        size = 0
        for line in lines:
            batch.append(line)
            size += len(line)
            if size >= _BATCH_BYTES or len(batch) == _BATCH_LINES or self.header is None:
                return

    def read_batch(self, batch: list[bytes]) -> None:
        """Load a batch of lines (``take``); each is dropped from ``batch`` as it is read, so that a long line is held
        once, as its text, while its JSON is decoded.

        The lines most of a run file holds, read quickly (``quick_records``, ``quick_record``), are held in this
        loop: a step with no turns to check, new to the run or recorded again, and a model call whose reply was checked
        in its decode (``CheckedCallRecord``), when no end record came before and no unloaded records wait to be kept.
        It does what ``quick`` does with them (``keep``, ``add_step``, ``load_typed``, ``add_call``), with no call a
        line but ``step_of``, ``step_again`` or ``loaded_call`` (``add_step`` for a step recorded again that changes
        what it said): 0.88-0.98 of the load's time on 2,000 steps (``bench/README.md``, part 12); held to
        ``quick`` and to the general read by ``test_a_batch_read_quickly_loads_as_read_the_general_way``. Every other
        line goes to ``quick``, or to the general read, which words what it finds.
        """
        header = self.header is not None
        known, shallow = self.known, self.shallow
        typed = None
        if header and len(batch) > 1:
            typed = quick_records(batch, known=known, shallow=shallow)
        number = self.last_line
        records, steps, step_records, step_lines = self.records, self.steps, self.step_records, self.step_lines
        touched, timed, timed_lines, calls = self.touched, self.timed, self.timed_lines, self.model_calls
        blocks = self.blocks
        plain = self.end is None and not self.unloaded  # no after-end note to make, no unloaded records to keep first
        for position, line in enumerate(batch):
            batch[position] = b""
            number += 1
            quick = typed[position] if typed is not None else None
            if typed is None and header:
                quick = quick_record(line, known=known, shallow=shallow)
            if type(quick) is StepRecord:  # of a kind or a status the contract does not name: so are the next, likely
                self.known = known = False
            elif type(quick) is KnownStep:  # of arguments that nest, or turns sent: so are the next, likely
                self.shallow = shallow = False
            if (
                plain
                and (type(quick) is ShallowStep or type(quick) is KnownStep or type(quick) is StepRecord)
                and not (blocks and quick.sent)  # no turns whose blocks to check
            ):
                index = quick.index
                held = step_records.get(index)
                if held is None or type(held) is ShallowStep or type(held) is KnownStep or type(held) is StepRecord:
                    if held is None:  # new to the run (most lines of a run file)
                        step = step_of(quick)
                        unchanged = True
                    else:  # recorded again: what it repeats is held once
                        earlier = steps[index]
                        quick, step = step_again(quick, held, earlier)
                        # add_step's test, where step_again kept each earlier part the record repeats: none changed
                        unchanged = (earlier.decision is None or earlier.decision is step.decision) and (
                            earlier.observation is None or earlier.observation is step.observation
                        )
                    records.append(quick)
                    if unchanged:
                        steps[index] = step
                        step_records[index] = quick
                        step_lines[index] = number
                        touched.append(index)
                    else:  # add_step words what changed
                        self.add_step(number, step, quick)
                    if quick.started_at or quick.ended_at:
                        timed.append(quick)
                        timed_lines.append(number)
                        if len(timed) == _TIMED:
                            self.check_times()
                    continue
            elif plain and type(quick) is CheckedCallRecord:
                try:
                    source = line.decode("utf-8")
                except UnicodeDecodeError:  # in a key of the reply, skipped unread: the general read words it
                    source = ""
                if source:
                    reply = quick.response
                    call = loaded_call(
                        quick.step,
                        quick.latency_ms,
                        quick.request_key or "",
                        number,
                        source,
                        reply.stop_reason or "",
                        reply.usage,
                    )
                    records.append(call)
                    calls.append(call)
                    continue
            self.last_line = number
            if quick is not None and self.quick(number, quick, line):
                plain = self.end is None and not self.unloaded
                continue
            more = line.count(b"\n") - 1 if line[:1] in _BLANK_START else 0
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError as error:
                complete = line.endswith(b"\n")
                self.not_binary(number, line, complete)
                if not complete:
                    self.cut_short(number, len(line), "not UTF-8")
                    continue
                raise self.fail(number, f"not UTF-8: {error.reason} at byte {error.start + 1} of the line") from None
            del line  # a long line is held once, as its text, while its JSON is decoded
            self.line(number, text)
            if more > 0:
                number += more
            header = self.header is not None
            plain = self.end is None and not self.unloaded
        self.last_line = number

    def line(self, number: int, text: str) -> None:
        if not text.strip(JSON_SPACE):
            return
        complete = text.endswith("\n")
        bom = 0
        if number == 1 and text.startswith("\ufeff"):
            self.note(number, "the file begins with a UTF-8 byte order mark; skipped")
            text = text[1:]
            bom = 1
        try:
            record = decode_line(text)
        except (ValueError, RecursionError) as error:
            line = ("\ufeff" * bom + text).encode("utf-8")  # the line's bytes again, on this rare path only
            self.not_binary(number, line, complete)
            if not complete:
                self.cut_short(number, len(line), "not JSON")
                return
            hint = _HISTORY_HINT if self.header is None and isinstance(error, json.JSONDecodeError) else ""
            raise self.fail(number, decode_failure(error) + hint) from None
        self.record(number, record, text)

    def quick(self, number: int, typed: StepRecord | ModelCallRecord | CheckedCallRecord, line: bytes) -> bool:
        """Load a step or a model call record that ``quick_record`` read from its line; ``False``, having done
        nothing, for a line that is not UTF-8 after all (in a key of a reply, which its typed decode skips
        unread), which the slow read words."""
        loaded: Step | ModelCall | None
        if isinstance(typed, StepRecord) and not (self.blocks and typed.sent):  # no turns whose blocks to check
            held = self.step_records.get(typed.index)
            if isinstance(held, StepRecord):  # recorded again: what it repeats is held once
                typed, loaded = step_again(typed, held, self.steps[typed.index])
            else:
                loaded = step_of(typed)
        else:
            try:
                source = line.decode("utf-8")
            except UnicodeDecodeError:
                return False
            try:
                loaded = load_typed(typed, number, source, blocks=self.blocks, reply=self.replies)
            except BadRecord as error:
                raise self.fail(number, str(error)) from None
        if self.end is not None:
            self.after_end(number)
        if type(loaded) is ModelCall:
            self.add_call(loaded)
        elif type(loaded) is Step and isinstance(typed, StepRecord):
            self.keep(typed)
            self.add_step(number, loaded, typed)
            if typed.started_at or typed.ended_at:
                self.timed.append(typed)
                self.timed_lines.append(number)
                if len(self.timed) == _TIMED:
                    self.check_times()
        return True

    def check_times(self) -> None:
        """Say which of the steps read quickly since the last check hold a timestamp that is none (``doubts``)."""
        timed, lines = self.timed, self.timed_lines
        for position in untimely(timed):
            record = timed[position]
            for doubt in doubts(as_record(record), record):
                self.note(lines[position], doubt)
        timed.clear()
        del lines[:]

    def after_end(self, number: int) -> None:
        self.note(number, f"a record after the end record on line {self.end_line}; loaded (the run went on)")

    def not_binary(self, number: int, line: bytes, complete: bool) -> None:
        """Before any record: a line that is not text makes the file no run file at all, whatever follows."""
        if self.header is None and (binary := binary_at(line, complete=complete)):
            where = "" if number == 1 else " of the line"
            raise self.fail(number, f"not a run file: {binary}{where}. A run file is JSON lines of UTF-8 text")

    def cut_short(self, number: int, size: int, why: str) -> None:
        self.note(
            number,
            f"the last line is cut short (no newline, {why}): {size} bytes not loaded; "
            "a process killed while writing leaves this",
            lost=True,
        )

    def record(self, number: int, record: Any, text: str) -> None:
        unknown, doubted = self.unknown, self.doubted
        try:
            loaded = read_record(
                record, number, unknown, text, blocks=self.blocks, keep=not text, reply=self.replies, doubted=doubted
            )
        except BadRecord as error:
            raise self.fail(number, str(error)) from None
        if unknown:
            if len(unknown) > FEW:  # one short warning, not one a field: the record keeps them all
                named = first_few([clipped(name) for name in unknown])
                self.note(number, f"{len(unknown):,} unknown fields kept (not loaded into the typed fields): {named}, "
                                  "all held by the record (Run.records)")  # fmt: skip
            else:
                for name in unknown:
                    self.note(number, f"unknown field {clipped(name)} kept (not loaded into the typed fields)")
            unknown.clear()
        if doubted:
            for doubt in doubted:
                self.note(number, doubt)
            doubted.clear()
        kind = record["type"]
        if self.header is None:
            if kind != "run":
                raise self.fail(number, missing_header(kind))
            self.header, self.header_line = record, number
            self.check_format(number, record.get("format"))
            if not has_opening(record):
                self.note(
                    number,
                    "the run header has neither 'opening' nor 'goal' (the text the agent opened with): "
                    f"its views open with {NO_OPENING!r} in its place",
                )
            self.keep(record)
            return
        if kind == "run":
            raise self.fail(number, f"a second run header (the first is on line {self.header_line})")
        if self.end is not None:
            self.after_end(number)
        if type(loaded) is ModelCall:
            self.add_call(loaded)
            return
        if kind not in _LOADED and text:
            self.unloaded.append(text)  # read again from its text when asked for (see _Unloaded)
            if len(self.unloaded) == _Unloaded.STRETCH:
                self.keep_unloaded()
        else:
            self.keep(record)
        if type(loaded) is Step:
            self.add_step(number, loaded, record)
        elif kind == "end":
            if self.end is not None:
                self.note(number, f"a second end record; it replaces the one on line {self.end_line}")
            self.end, self.end_line = record, number
        elif kind == "model_call_error" and record.get("sent") is False:
            self.note(number, f"{NEVER_SENT}: {failure_text(record)} (kept in Run.records)")
        elif kind == "model_call_error":
            self.note(number, f"a model call that gave no complete reply: {failure_text(record)} (kept in Run.records)")
        else:
            self.note(number, f"unknown record type {shown(kind)} kept (not loaded into the typed fields)")

    def check_format(self, number: int, name: Any) -> None:
        if name is None:
            self.note(number, f"the run header names no format; read as {FORMAT}")
        elif name not in (FORMAT, FORMAT_SENT):
            self.note(
                number, f"the run header's format is {shown(name)}, not {FORMAT} or {FORMAT_SENT}; read as {FORMAT}"
            )

    def add_call(self, call: ModelCall) -> None:
        """Load a model call: kept in ``records`` in its place, and in ``model_calls``."""
        self.keep(call)
        self.model_calls.append(call)

    def add_step(self, number: int, step: Step, record: Mapping[str, Any] | StepRecord) -> None:
        index = step.index
        earlier = self.steps.get(index)
        if earlier is not None:
            # Recording a step when it is decided and again when the tool answers is normal;
            # a later record that changes or drops what an earlier one said is worth a word.
            changed = [
                name
                for name, before, after in (
                    ("decision", earlier.decision, step.decision),
                    ("observation", earlier.observation, step.observation),
                )
                if before is not None and before != after
            ]
            if changed:
                self.note(
                    number,
                    f"step {index} recorded again with a different {' and '.join(changed)} than on line "
                    f"{self.step_lines[index]}; the later record is loaded, both are kept in Run.records",
                )
        self.steps[index] = step
        self.step_records[index] = record
        self.step_lines[index] = number
        self.touched.append(index)

    def run(self, stream_notes: Sequence[str], made: ConversationSteps | None = None, held: Held | None = None) -> Run:
        """The ``Run`` read so far; ``held``: the steps, records and calls a follower keeps (not this loader's)."""
        last_line = self.last_line
        if self.unloaded:
            self.keep_unloaded()
        self.check_times()
        if self.header is None:
            if stream_notes:
                raise self.fail(
                    max(last_line, 1),
                    "the gzip stream ends early: the file is truncated before its first complete record, "
                    "so nothing of the run can be read",
                )
            why = "the file is empty" if not self.notes else "no complete record"
            raise self.fail(max(last_line, 1), f"missing run header: {why}")
        for text in stream_notes:
            self.note(last_line, text, lost=True)  # a stream that ends early: what followed is not there
        steps = self.steps
        order: list[int] = []
        if made is not None:
            count = made.count
        elif held is not None:
            count = held.steps[-1].index + 1 if held.steps else 0
        else:
            order = sorted(steps)  # in one pass when the steps came in index order, as a runtime writes them
            count = order[-1] + 1 if order else 0
            if not order and self.model_calls and not has_opening(self.header):
                calls = len(self.model_calls)
                self.note(
                    self.header_line,
                    f"the file holds {calls} model call{'s' if calls != 1 else ''} and no steps: a call log (such as "
                    "agentrender.record writes) holds its steps in its calls, which agentrender.load reads",
                )
        for position, compaction in enumerate(self.header.get("compactions") or ()):
            if compaction["step"] > count:
                raise self.fail(
                    self.header_line,
                    f"$.compactions[{position}].step: expected at most {count} (the run's steps), "
                    f"got {compaction['step']}",
                )
        if held is not None:
            return Run(
                path=self.path,
                header=self.header,
                steps=held.steps,
                step_records=held.step_records,
                model_calls=held.model_calls,
                end=self.end,
                records=_Records(held.records),
                warnings=self.warnings(),
                header_line=self.header_line,
                step_lines=held.step_lines,
            )
        return Run(
            path=self.path,
            header=self.header,
            steps=made.steps if made is not None else tuple(map(steps.__getitem__, order)),
            step_records=made.records if made is not None else _StepRecords(self.step_records),
            model_calls=tuple(self.model_calls),
            end=self.end,
            records=_Records(self.records, made),
            warnings=self.warnings(),
            header_line=self.header_line,
            # a conversation's steps, made of its turns, were read from no line
            step_lines=() if made is not None else _StepLines(self.step_lines, order),
        )

    def warnings(self) -> tuple[RunWarning, ...]:
        """The run's warnings: those its maker kept in the header, then this read's, in line order.

        A finding of this read that one of the kept ones already states (the same text: the
        records are the same) is not said twice.
        """
        assert self.header is not None  # asked for once the header is read
        kept = tuple(
            RunWarning(
                line=item["line"],
                text=item["text"],
                path=item.get("path") or "",
                count=item.get("count") or 1,
                lost=bool(item.get("lost")),
            )
            for item in self.header.get("warnings") or ()
        )
        said = {warning.text for warning in kept}
        return kept + tuple(
            RunWarning(line=line, text=text, path=self.path, count=count, lost=bool(lost))
            for text, (line, count, lost) in sorted(self.notes.items(), key=lambda item: item[1][0])
            if text not in said
        )


class Held(NamedTuple):
    """What a follower of a growing file holds of its run (``following.Follower``), given to ``Loader.run``.

    Each is a snapshot that later growth does not change, shared with the runs made before
    it, so that a run made after each growth costs what the growth read, not the whole run.
    """

    steps: Sequence[Step]
    """The steps in index order."""
    step_records: Mapping[int, Mapping[str, Any]]
    """The step records by index."""
    model_calls: Sequence[ModelCall]
    """The model calls in file order."""
    records: Sequence[Any]
    """Every record in file order, as ``Loader.records`` holds them."""
    step_lines: Sequence[int]
    """The line each step was read from, in the order of ``steps``."""


NEVER_SENT = "a model call the SDK refused before sending it (never sent: the model did not receive it)"
"""What a reader says of a ``model_call_error`` marked ``"sent": false``, before its ``failure_text``."""


def failure_text(record: Mapping[str, Any]) -> str:
    """A ``model_call_error`` record in a few words: the step, the error's type and status, its message's first line,
    the exception it was raised from, and how many times the call was tried when it was tried again (or that how many
    is not known, where the recorder could not know it)."""
    error = record["error"]
    status = f" {error['status']}" if error.get("status") is not None else ""
    text = f"step {record['step']}, {error.get('type') or 'error'}{status}"
    message = _first_line(error.get("message"))
    if message:
        text += f": {message}"
    cause = _first_line(error.get("cause"))
    if cause:
        text += f" (from {cause})"
    retried = record.get("retried")
    tried = tried_said(len(retried) if isinstance(retried, list) else 0, record.get("tries_known") is not False)
    return f"{text}; {tried}" if tried else text


def _first_line(text: Any) -> str:
    return str(text or "").strip().split("\n", 1)[0][:200]


def _read_calls(loader: Loader, records: list[dict[str, Any]], numbers: list[int]) -> None:
    """Load model call records of a run made in memory (``read_records``), whose replies their maker checked, read
    after the header and before any end record, each at its line of ``numbers``, as ``Loader.record`` loads them.

    They are checked together, in one conversion (``schema.model_call_structs``), and each made a ``ModelCall``
    holding its record, where ``Loader.record`` costs a few microseconds a record: an importer's thousands of calls
    cost a fifth of what they did. Their replies, which their maker checked, are not converted again. A record the
    conversion refuses (then each of them), one whose reply is not a ``dict`` after all, or one that holds what the
    frames cannot read (``schema.quiet_call``), is loaded by ``Loader.record``, which words the error or the warning.
    """
    typed = model_call_structs(records)
    for position, record in enumerate(records):
        number = numbers[position]
        struct = typed[position] if typed is not None else None
        reply = record["response"]
        if (
            struct is None
            or type(reply) is not dict
            or not quiet_call(struct.latency_ms, reply.get("usage"), struct.retried)
        ):
            loader.last_line = number
            loader.record(number, record, "")
            continue
        loader.add_call(kept_call(struct.step, record, struct.latency_ms, struct.request_key or "", number))
    loader.last_line = numbers[-1]


def read_records(
    records: Iterable[Mapping[str, Any]],
    *,
    path: str = "",
    notes: Iterable[RunWarning] = (),
    blocks_checked: bool = False,
    replies_checked: bool = False,
    steps: ConversationSteps | None = None,
    lines: Sequence[int] | None = None,
) -> Run:
    """A ``Run`` of ``records`` (the dicts a run file's lines hold), read as ``load_run`` reads a file.

    For a run made in memory, an importer's: every record is checked as a line of a file
    would be (``RunFileError`` naming the record's position as its line), and ``notes``,
    what its maker read but could not map, come first among the run's warnings.
    ``lines``, one for each record, are the lines of ``path`` the records were made from, which
    take the positions' place (a model call's ``line`` among them): an importer's calls are then
    said at the lines of the user's file, 0 where the file holds no lines (a JSON document).
    ``blocks_checked=True`` says the maker checked every block of the recorded turns itself
    (as ``imports.normalise_messages`` does, naming the field as its input has it), so they are
    not checked a second time; ``replies_checked=True`` says the same of every model call's reply
    (``runfile.replies.check_reply``). Every other field of every record is checked. A model call
    keeps its record as given (a call read from a file keeps its line's text instead).

    ``steps`` are the steps of a conversation whose turns the maker checked: the run's steps and
    their records, made when first read (``ConversationSteps``), placed after the header (the
    first of ``records``), which then holds no ``step`` record.
    """
    loader = Loader(path or "<records>", blocks=not blocks_checked, replies=not replies_checked)
    skipped = steps.count if steps is not None else 0
    calls: list[dict[str, Any]] = []  # model calls in a row, read together (_read_calls)
    numbers: list[int] = []
    for position, record in enumerate(records):
        # the steps, made when read, stand after the header
        number = lines[position] if lines is not None else position + 1 + (skipped if position else 0)
        copy = dict(record)
        if copy.get("type") == "model_call" and replies_checked and loader.header is not None and loader.end is None:
            calls.append(copy)
            numbers.append(number)
            continue
        if calls:
            _read_calls(loader, calls, numbers)
            calls, numbers = [], []
        loader.last_line = number
        loader.record(number, copy, "")
    if calls:
        _read_calls(loader, calls, numbers)
    if steps is not None and loader.steps:
        raise loader.fail(loader.step_lines[min(loader.steps)], "a step record beside the conversation's steps")
    run = loader.run((), steps)
    if notes:
        run = replace(run, warnings=tuple(RunWarnings(chain(notes, run.warnings))))
    return run


def load_run(path: str | os.PathLike[str]) -> Run:
    """Read a run file (``.jsonl``, or gzip-compressed ``.jsonl.gz``) into a ``Run``.

    Raises ``RunFileError`` (a ``ValueError`` whose message begins with ``PATH:LINE:``) for a
    line that is not a JSON object, a record of the wrong shape (naming the field), invalid
    UTF-8, or a missing or second ``run`` header. A last line cut short, unknown record
    types and fields, and anything else loaded with a doubt are reported in ``Run.warnings``.
    """
    name = os.fspath(path)
    loader = Loader(name)
    stream_notes: list[str] = []
    with open_lines(name) as file:
        lines: Iterable[bytes] = file
        if file.peek(2)[:2] == GZIP_MAGIC:
            lines = gzip_lines(file, stream_notes, inflate_limit(os.fstat(file.fileno()).st_size))
        try:
            loader.read(lines)
        except StreamError as error:
            raise loader.fail(error.line or loader.last_line + 1, str(error)) from None
        return loader.run(stream_notes)
