"""Following a run file as it is written: ``Follower`` reads only the bytes a file gained, ``follow`` loops.

A run file is written append-only while its run goes on (docs/runfile.md), so a reader that keeps
the state of its read (``read.Loader``: the header, the steps by index, the notes; and here the
offset and the bytes of a line not finished yet) can take in each new record as it comes,
however long the run already is.

- A line is loaded once its newline is written: a partial last line is waited for, never
  reported as cut short (``Follower.pending`` says how many bytes wait, ``pending_line`` which line).
- A file truncated below what was read, replaced by another (a new inode), removed and written
  again, or written again in place (the bytes just before what was read are not those read), is
  read again from its start, and ``Growth.notice`` (and ``Follower.notices``) say so; while a file
  read is removed, ``waiting`` says so (``REMOVED``).
- A gzip file cannot be followed (its stream is only readable once it is complete): a
  ``RunFileError`` says so at once, before any waiting.
- Records that arrive faster than a reader asks are taken in together: each ``poll`` reads
  everything the file holds, and gives one ``Growth``.

Why polling, with ``time.sleep``, and not inotify or kqueue: the core's one dependency is
msgspec (CONTRIBUTING.md), and the libraries that wrap those (watchdog, watchfiles) would be a
second, for a saving nobody would measure: a poll of a file that
stopped growing is one ``os.stat`` call, a few microseconds, every ``interval`` seconds. The
same loop works on every platform and on network file systems, where change notification
often does not.
"""

from __future__ import annotations

import os
import time
from bisect import bisect_left
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from operator import attrgetter
from typing import IO, Any, Generic, Protocol, TypeVar, overload

from agentrender._types import Step
from agentrender.runfile.lines import GZIP_MAGIC, name_ends, open_lines
from agentrender.runfile.model import ModelCall, Run, RunFileError, StepRecords
from agentrender.runfile.read import Held, Loader
from agentrender.runfile.schema import StepRecord

__all__ = ["MARK_BYTES", "POLL_INTERVAL", "REMOVED", "Follower", "Growth", "Poller", "follow", "growths"]

POLL_INTERVAL = 0.2
"""Seconds between two looks at a file that did not grow: the longest a new record waits to be seen."""

REMOVED = "the file was removed (or moved away)"
"""A follower's ``waiting`` while a file it read is missing: log rotation, or a run written again under its name."""

MARK_BYTES = 64
"""How many of the last bytes read a follower keeps, to tell a file written again in place from one grown."""

T = TypeVar("T")

_TAIL = 1024
"""How long the tail of a ``_Growing`` gets before it joins the frozen base (see ``_Growing``)."""
_KEEP = 16
"""How many of the newest items stay in the tail when it joins the base: the steps a runtime records again."""


class _Joined(Sequence[T]):
    """A frozen base and a frozen tail read as one sequence: a snapshot of a ``_Growing``."""

    __slots__ = ("_base", "_tail")

    def __init__(self, base: tuple[T, ...], tail: tuple[T, ...]) -> None:
        self._base = base
        self._tail = tail

    def __len__(self) -> int:
        return len(self._base) + len(self._tail)

    @overload
    def __getitem__(self, at: int) -> T: ...
    @overload
    def __getitem__(self, at: slice) -> Sequence[T]: ...
    def __getitem__(self, at: int | slice) -> T | Sequence[T]:
        if isinstance(at, slice):
            return [self[i] for i in range(*at.indices(len(self)))]
        base = self._base
        position = at + len(self) if at < 0 else at
        if position < len(base):
            if position < 0:
                raise IndexError("index out of range")
            return base[position]
        return self._tail[position - len(base)]

    def __iter__(self) -> Iterator[T]:
        return chain(self._base, self._tail)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # equal to lists and tuples alike, so not hashable

    def __repr__(self) -> str:
        return repr(list(self))


class _Growing(Generic[T]):
    """A list that grows at its end, whose snapshots later growth does not change.

    A snapshot (``frozen``) shares a frozen base and copies the tail, which joins the base
    once it is ``_TAIL`` long: so a snapshot costs the tail, and joining costs the whole list
    once every thousand items, a few pointers an item (``bench/bench_follow.py``). Changing an
    item of the tail (a runtime records its newest step again) is in place; an item of the
    base, rare, makes a new base.
    """

    __slots__ = ("_base", "_tail")

    def __init__(self) -> None:
        self._base: tuple[T, ...] = ()
        self._tail: list[T] = []

    def __len__(self) -> int:
        return len(self._base) + len(self._tail)

    def append(self, item: T) -> None:
        self._tail.append(item)

    def set(self, position: int, item: T) -> None:
        base = self._base
        if position >= len(base):
            self._tail[position - len(base)] = item
        else:
            self._base = (*base[:position], item, *base[position + 1 :])

    def insert(self, position: int, item: T) -> None:
        base = self._base
        if position >= len(base):
            self._tail.insert(position - len(base), item)
        else:
            self._base = (*base[:position], item, *base[position:])

    def last(self) -> T:
        """The newest item (the list holds some)."""
        return self._tail[-1] if self._tail else self._base[-1]

    def frozen(self) -> _Joined[T]:
        tail = self._tail
        if len(tail) > _TAIL:
            self._base += tuple(tail[:-_KEEP])
            del tail[:-_KEEP]
        return _Joined(self._base, tuple(tail))


class _StepRecords(StepRecords):
    """A followed run's step records by index, read off the frozen steps and the records beside them."""

    __slots__ = ("_records", "_steps")

    def __init__(self, steps: Sequence[Step], records: Sequence[Mapping[str, Any] | StepRecord]) -> None:
        self._steps = steps
        self._records = records

    def held(self, index: int) -> Mapping[str, Any] | StepRecord:
        steps = self._steps
        position = bisect_left(steps, index, key=attrgetter("index"))
        if position == len(steps) or steps[position].index != index:
            raise KeyError(index)
        return self._records[position]

    def __iter__(self) -> Iterator[int]:
        return (step.index for step in self._steps)

    def __len__(self) -> int:
        return len(self._steps)


@dataclass(frozen=True, slots=True, kw_only=True)
class Growth:
    """What one look at a followed file found: the run as it now is, and what changed."""

    run: Run
    """The run read so far (every complete line); later growth does not change it."""
    changed_from: int | None
    """The lowest index of a step this growth loaded (a new step, or one recorded again); ``None``: no step."""
    lines: int
    """How many lines this growth read: several records that came together are taken in at once."""
    notice: str = ""
    """When the file was truncated or replaced and so read again from its start, what happened; else ``""``."""


class Follower:
    """A run file read as it grows: each ``poll`` reads only the bytes added since the last.

    ``path`` names a run file (``load_run``'s format, not gzip-compressed) that may not exist
    yet, or hold no complete header yet: ``poll`` gives ``None`` until it does. Bad input
    raises ``RunFileError`` as ``load_run`` does, and again at every later ``poll``: a line
    that could not be read is never skipped over.
    """

    final_end = True
    """A run's ``end`` record is its last (docs/runfile.md): the run ended once it is read."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        """The file followed."""
        if name_ends(self.path, ".gz"):
            raise _gzip_refused(self.path)
        self.notices: list[str] = []
        """What happened to the file that made it be read again from its start, oldest first."""
        self.run: Run | None = None
        """The run read so far; ``None`` until its header line is complete."""
        self.waiting = ""
        """Why the file gives no run now, as ``ImportFollower.waiting`` says it: ``REMOVED`` while a file read is
        missing, else ``""``, as a run file read so far is a run once its header is (a line not complete yet is
        ``pending``, and a bad one an error)."""
        self.waiting_for = ""
        """The run the file is waited for, as ``ImportFollower.waiting_for`` says it: always ``""`` here, as a run
        file holds one run."""
        self._failed: RunFileError | None = None
        self._identity: tuple[int, int] | None = None
        self._unsaid = ""
        """A notice no growth has given yet: the look that read the file again found no header to give one."""
        self._restart()

    def _restart(self) -> None:
        self._loader = Loader(self.path)
        self._offset = 0
        self._partial = b""
        self._mark = b""  # the last bytes read, up to _offset: the file holds them still, unless written again
        self._positions: dict[int, int] = {}  # step index -> its place among the steps
        self._steps: _Growing[Step] = _Growing()
        self._step_records: _Growing[Mapping[str, Any] | StepRecord] = _Growing()
        self._step_lines: _Growing[int] = _Growing()
        self._calls: _Growing[ModelCall] = _Growing()
        self._records: _Growing[Any] = _Growing()
        self.run = None

    @property
    def pending(self) -> int:
        """The bytes of a last line whose newline is not written yet: loaded when it is."""
        return len(self._partial)

    @property
    def pending_line(self) -> int:
        """The number of the line ``pending`` counts the bytes of (the header's while it is written: 1); ``0`` when
        none waits."""
        return self._loader.last_line + 1 if self._partial else 0

    def poll(self) -> Growth | None:
        """Read what the file gained since the last poll; ``None`` when it gained nothing (or has no header yet).

        A file that did not change costs one ``os.stat``.
        """
        if self._failed is not None:
            raise self._failed
        try:
            stat = os.stat(self.path)
        except FileNotFoundError:
            if self._identity is not None:  # a file read, now missing: whatever comes next is read from its start
                self.waiting = REMOVED
            return None  # not written yet, or being replaced: the next look finds it
        identity = (stat.st_dev, stat.st_ino)
        notice = ""
        if self.waiting == REMOVED:  # a new file may have the old one's inode: it is read anew all the same
            notice = "the file was removed, and written again; read again from its start"
            self.waiting = ""
        elif self._identity is not None and identity != self._identity:
            notice = "the file was replaced by another; read again from its start"
        elif stat.st_size < self._offset:
            notice = (
                f"the file was truncated to {stat.st_size:,} bytes, below the {self._offset:,} read; "
                "read again from its start"
            )
        if notice:
            self.notices.append(f"{self.path}: {notice}")
            self._unsaid = notice
            self._restart()
        elif stat.st_size == self._offset:
            return None
        self._identity = identity
        try:
            lines = self._read()
            if lines is None:
                notice = f"the file was written again: its bytes before the {self._offset:,} read changed; read again"
                notice += " from its start"
                self.notices.append(f"{self.path}: {notice}")
                self._unsaid = notice
                self._restart()
                lines = self._read() or 0
        except RunFileError as error:
            self._failed = error
            raise
        if self._loader.header is None or not (lines or notice):
            return None  # no header yet, or only part of a line: it is waited for
        notice, self._unsaid = self._unsaid, ""
        changed_from = self._take_steps()
        loader = self._loader
        calls = loader.model_calls
        for call in calls:
            self._calls.append(call)
        calls.clear()
        if loader.unloaded:  # the unloaded records the growth ended on: this run holds them too
            loader.keep_unloaded()
        for item in loader.records:
            self._records.append(item)
        loader.records.clear()
        steps = self._steps.frozen()
        held = Held(
            steps=steps,
            step_records=_StepRecords(steps, self._step_records.frozen()),
            model_calls=self._calls.frozen(),
            records=self._records.frozen(),
            step_lines=self._step_lines.frozen(),
        )
        try:
            self.run = loader.run((), held=held)
        except RunFileError as error:
            self._failed = error
            raise
        return Growth(run=self.run, changed_from=changed_from, lines=lines, notice=notice)

    def _read(self) -> int | None:
        """Load the complete lines added since the last read; how many there were. ``None``: the bytes before them
        are not those read (the file was written again in place, as a new run given its name), and nothing is read."""
        loader = self._loader
        before = loader.last_line
        with open_lines(self.path) as file:
            if self._offset == 0 and file.peek(2)[:2] == GZIP_MAGIC:
                raise _gzip_refused(self.path)
            mark = self._mark
            file.seek(self._offset - len(mark))
            if file.read(len(mark)) != mark:
                return None
            loader.read(self._complete_lines(file))
            self._offset = file.tell()
            file.seek(max(self._offset - MARK_BYTES, 0))
            self._mark = file.read(self._offset - file.tell())
        return loader.last_line - before

    def _complete_lines(self, file: IO[bytes]) -> Iterator[bytes]:
        """The lines of ``file`` from where it is that end in a newline; one that does not waits in ``_partial``."""
        for line in file:
            if self._partial:
                line, self._partial = self._partial + line, b""
            if line.endswith(b"\n"):
                yield line
            else:
                self._partial = line

    def _take_steps(self) -> int | None:
        """Move the steps the loader touched into the held ones; the lowest index among them."""
        loader = self._loader
        touched = loader.touched
        if not touched:
            return None
        positions, steps, records, lines = self._positions, self._steps, self._step_records, self._step_lines
        for index in touched:
            step, record, line = loader.steps[index], loader.step_records[index], loader.step_lines[index]
            position = positions.get(index)
            if position is not None:
                steps.set(position, step)
                records.set(position, record)
                lines.set(position, line)
            elif not positions or index > steps.last().index:
                positions[index] = len(steps)
                steps.append(step)
                records.append(record)
                lines.append(line)
            else:  # a step older than the newest, first recorded now: rare, and costs the whole run
                position = bisect_left(steps.frozen(), index, key=attrgetter("index"))
                steps.insert(position, step)
                records.insert(position, record)
                lines.insert(position, line)
                for other, at in positions.items():
                    if at >= position:
                        positions[other] = at + 1
                positions[index] = position
        lowest = min(touched)
        touched.clear()
        return lowest


def _gzip_refused(path: str) -> RunFileError:
    return RunFileError(
        path,
        1,
        "a gzip-compressed run file cannot be followed: its stream can only be read once it is complete. "
        "Follow the plain .jsonl while it is written, or load_run this file once the run has ended",
    )


class Poller(Protocol):
    """Anything with ``poll() -> Growth | None``, ``waiting`` (why it gives no run yet), ``waiting_for`` (the run it
    waits for, when that is why) and ``final_end``: a ``Follower``, or the importers' ``ImportFollower`` (or
    ``Undecided``, until a file's first line chose one)."""

    @property
    def waiting(self) -> str: ...

    @property
    def waiting_for(self) -> str: ...

    @property
    def final_end(self) -> bool:
        """The end a growth's run has is the file's own last record, after which it holds no more (a run file's
        ``end``); ``False``: what an importer reads from the file as it stands, which more records may continue."""
        ...

    def poll(self) -> Growth | None: ...


def follow(
    path: str | os.PathLike[str], *, interval: float = POLL_INTERVAL, idle: float | None = None
) -> Iterator[Growth]:
    """Each growth of the run file at ``path``: first what it holds, then every change as it comes.

    Looks at the file every ``interval`` seconds while it does not grow (one ``os.stat``), and
    stops once it has not grown for ``idle`` seconds (``None``: never; stop by leaving the loop).
    """
    return growths(Follower(path), interval=interval, idle=idle)


def growths(poller: Poller, *, interval: float = POLL_INTERVAL, idle: float | None = None) -> Iterator[Growth]:
    """Each growth ``poller`` finds, looking every ``interval`` seconds; ends after ``idle`` quiet seconds."""
    quiet_since = time.monotonic()
    while True:
        growth = poller.poll()
        if growth is not None:
            yield growth
            quiet_since = time.monotonic()
            continue
        if idle is not None and time.monotonic() - quiet_since >= idle:
            return
        time.sleep(interval)
