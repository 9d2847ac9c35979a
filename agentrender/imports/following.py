"""Following any file ``agentrender.load`` reads while it is written: a run file, a recording, a Claude Code session,
a document read whole (an Inspect log, a conversation or a trajectory in one JSON value).

A run file is followed incrementally (``runfile.Follower``: only the new bytes are read), and
so is a Claude Code transcript while Claude Code writes it (``claude_code.GrowingSession``:
only the new bytes are read, and only the session's last turn is read again; a compaction, a
sub-agent or a rewind makes its runs again from the records held), and a Codex rollout
(``responses.GrowingRollout``: only the new lines are read, into the conversation read before). A recording of
``agentrender.record(client)``, whose steps are the longest conversation its calls sent, is
imported again each time it grows, and the views (``Views.extend``) render only the steps that
changed. A document read whole is imported again each time it changed and imports.
``bench/bench_follow.py --claude-code`` measures what a session's growth costs.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from agentrender.imports.claude_code import GrowingSession
from agentrender.imports.detect import load_runs, run_number, runs_said
from agentrender.imports.responses import GrowingRollout
from agentrender.imports.shapes import ZIP_MAGIC, looks_like_claude_code, looks_like_codex
from agentrender.recording import SOURCE_FORMAT
from agentrender.runfile import Follower, Growth, Run, RunFileError
from agentrender.runfile.following import MARK_BYTES, POLL_INTERVAL, REMOVED, growths
from agentrender.runfile.lines import decode_line, name_ends

__all__ = [
    "NO_FILE_YET",
    "ImportFollower",
    "RunNotInFile",
    "Undecided",
    "follow",
    "follower",
    "unfinished_line",
    "whole_document",
]


class RunNotInFile(LookupError):
    """``ImportFollower``'s ``which`` names no run of a file that holds one run however it grows (a run file, a Codex
    rollout, an OpenAI-style conversation): waiting for it would wait forever. The message is what
    ``detect.run_number`` says: the numbers it may be and the run the file holds."""


class ImportFollower:
    """A file an importer reads, taken in each time it grows; ``poll`` as ``runfile.Follower.poll``.

    A line is written once its newline is: a last line without one waits (``pending``, ``pending_line``), as
    ``runfile.Follower``'s does, never read as cut short. A Claude Code transcript or a Codex rollout (its first line
    says so) is read a growth at a time (``claude_code.GrowingSession``, ``responses.GrowingRollout``), the lines
    before it taken in. A file of JSON lines (a recording, a call log) is imported again whole once it ends with a
    newline; a first line that is no JSON value yet is one being written (``waiting`` says nothing of it, as the
    importer would say a line cut short by a crash). A document an
    importer reads whole (``whole_document``: an Inspect log, a conversation or a trajectory in
    one JSON value) is imported again each time it changed and imports: one being written, or
    written again in place (SWE-agent writes its trajectory again after each step), is waited
    for while it does not.

    ``which`` picks the run of a file of several (a Claude Code session's sub-agents): its run
    id, or its number counted from 0 (``detect.run_number``); the first by default. A file of several runs that holds
    none ``which`` names yet is waited for (a log of requests may come to hold another conversation, a session
    another sub-agent), ``waiting_for`` naming the run and ``waiting`` what the file holds so far; a file that holds
    one run however it grows raises ``RunNotInFile`` at once. A file that does not
    import yet (a session whose first lines are not a conversation yet) is waited for too, and
    ``waiting`` says why; once a run was imported, a file that no longer imports raises the
    importer's ``RunFileError``. A file truncated, replaced, removed and written again (``waiting`` is ``REMOVED``
    while it is missing), or, of a session read a growth at a time, written again in place (its last bytes read are
    no longer where they were) is read again from its start, and the growth's ``notice`` says so.
    """

    final_end = False
    """An end an importer reads from the file as it stands (a last reply that calls no tool) may be continued."""

    def __init__(self, path: str | os.PathLike[str], which: str | None = None) -> None:
        self.path = os.fspath(path)
        self.which = which
        self.notices: list[str] = []
        """What happened to the file that made it be read again from its start, oldest first."""
        self.run: Run | None = None
        """The run imported last; ``None`` until the file holds a complete line."""
        self.waiting = ""
        """Why the file gave no run yet (the importer's error, or the runs it holds so far), while it gives none; else
        ``""``."""
        self.waiting_for = ""
        """The run ``which`` names, while the file holds no run it names (``waiting`` says those it holds); else
        ``""``."""
        self.place = (0, 1)
        """The number of the run followed among the file's runs (what ``--run N`` takes), and how many it held when
        last read."""
        self._seen: tuple[int, int, int, int] | None = None  # (device, inode, size, mtime) imported last
        self._lines = 0
        self._session: GrowingSession | GrowingRollout | None = None  # a session read a growth at a time
        self._unsaid = ""  # a notice no growth has given yet (the look that found the file cut gave none)
        self._mark = b""  # a session's last bytes read: the file holds them still, unless written again in place
        self._pending = (0, 0)  # a file imported whole: the number and bytes of its last line being written

    @property
    def pending(self) -> int:
        """The bytes of the file's last line whose newline is not written yet, which the follower waits for: a session
        read a growth at a time holds them back, and a file of JSON lines is imported again once it ends
        (``unfinished_line``)."""
        return self._session.pending if self._session is not None else self._pending[1]

    @property
    def pending_line(self) -> int:
        """The number of the line ``pending`` counts the bytes of; ``0`` when none waits."""
        if self._session is not None:
            return self._session.lines + 1 if self._session.pending else 0
        return self._pending[0]

    def poll(self) -> Growth | None:
        """Import the file again when it changed and ends with a complete line; ``None`` when it did not."""
        try:
            stat = os.stat(self.path)
        except FileNotFoundError:
            # said as Undecided says it (a --run named follows no Undecided); a file read, now missing: REMOVED
            self.waiting = NO_FILE_YET if self._seen is None else REMOVED
            self._pending = (0, 0)
            return None
        removed = self.waiting == REMOVED  # a new file may have the old one's inode: it is read anew all the same
        if self.waiting in (NO_FILE_YET, REMOVED):
            self.waiting = ""
        seen = (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns)
        if seen == self._seen and not removed:
            return None
        if self._seen is not None and (
            removed or seen[:2] != self._seen[:2] or stat.st_size < self._seen[2] or self._written_again()
        ):
            # a document read whole (written again in place, shorter) is read from its start at every change: no news
            if self._session is not None or not whole_document(_start(self.path)):
                if removed:
                    what = "removed, and written again"
                elif seen[:2] != self._seen[:2]:
                    what = "replaced by another"
                elif stat.st_size < self._seen[2]:
                    what = "truncated"
                else:
                    what = f"written again: its bytes before the {self._seen[2]:,} read changed"
                self._unsaid = f"the file was {what}; read again from its start"
                self.notices.append(f"{self.path}: {self._unsaid}")
                self._session, self._lines = None, 0
            self._seen = seen  # an emptied file is cut once, whatever it is written with next
        if not stat.st_size:
            return None
        if self._session is None and self._seen is None:
            self._session = _growing(self.path)
        if self._session is not None:
            return self._grow_session(seen)
        with open(self.path, "rb") as file:
            data = file.read()
        self._pending = unfinished_line(data)
        if self._pending[0]:
            return None  # a line still being written: imported once it ends
        whole = whole_document(data)
        self._seen = seen
        try:
            runs = load_runs(self.path)
        except RunFileError as error:
            if self.run is not None and not whole:
                raise
            self.waiting = str(error)  # a document half written: imported once it is whole
            return None
        run = self._chosen(runs)
        if run is None:
            return None
        self.waiting = ""
        self.final_end = _is_plain_run_file(self.path)  # a run file's end is its own last record (a --run of it)
        lines = data.count(b"\n")
        before, self.run = self.run, run
        grown, self._lines = lines - self._lines, lines
        notice, self._unsaid = self._unsaid, ""
        if before is None or notice:
            return Growth(run=run, changed_from=0 if run.steps else None, lines=lines, notice=notice)
        return Growth(run=run, changed_from=_changed_from(before, run), lines=max(grown, 0))

    def _chosen(self, runs: list[Run]) -> Run | None:
        """The run of ``runs`` that ``which`` names; ``None`` (``waiting`` and ``waiting_for`` say why) while the file
        holds none it names and may come to; ``RunNotInFile`` when it holds one run however it grows."""
        self.waiting_for = ""
        if self.which is None:
            self.place = (0, len(runs))
            return runs[0]
        try:
            number = run_number(runs, self.which)
        except LookupError as error:
            if _one_run(self.path, runs):
                raise RunNotInFile(str(error)) from None
            self.waiting_for = self.which
            self.waiting = f"the file holds so far {runs_said(runs)}"
            return None
        self.place = (number, len(runs))
        return runs[number]

    def _written_again(self) -> bool:
        """A session read a growth at a time no longer holds the bytes it read last (``_mark``): the file was written
        again in place (a new session given its name), grown past what was read before it was looked at."""
        if self._session is None or self._seen is None or not self._mark:
            return False
        return _bytes_before(self.path, self._seen[2], len(self._mark)) != self._mark

    def _grow_session(self, seen: tuple[int, int, int, int]) -> Growth | None:
        """A session's growth: only the new bytes are read (``claude_code.GrowingSession``,
        ``responses.GrowingRollout``)."""
        assert self._session is not None
        self._seen = seen
        self._mark = _bytes_before(self.path, seen[2], MARK_BYTES)
        try:
            grown = self._session.grow()
        except RunFileError as error:
            if self.run is not None:
                raise
            self.waiting = str(error)
            return None
        if grown is None:
            return None
        runs, changed = grown
        chosen = self._chosen(runs)
        if chosen is None:
            return None
        run, self.waiting = chosen, ""
        before, self.run = self.run, run
        lines = self._session.lines
        grown_lines, self._lines = lines - self._lines, lines
        notice, self._unsaid = self._unsaid, ""
        if before is None or notice:
            return Growth(run=run, changed_from=0 if run.steps else None, lines=grown_lines, notice=notice)
        if changed is None or self.which is not None:
            changed = _changed_from(before, run)
        return Growth(run=run, changed_from=changed, lines=grown_lines)


def _bytes_before(path: str, end: int, count: int) -> bytes:
    """The ``count`` bytes of the file at ``path`` before its byte ``end`` (fewer at its start; ``b""``: unreadable)."""
    try:
        with open(path, "rb") as file:
            file.seek(max(end - count, 0))
            return file.read(min(count, end))
    except OSError:
        return b""


def _growing(path: str) -> GrowingSession | GrowingRollout | None:
    """What reads the file a growth at a time, when its first line is complete and says what: a Claude Code
    transcript's line (``GrowingSession``), a Codex rollout's record in a ``.jsonl`` file (``GrowingRollout``)."""
    try:
        with open(path, "rb") as file:
            first = file.readline()
        value = decode_line(first.decode("utf-8")) if first.endswith(b"\n") else None
    except (OSError, ValueError, RecursionError):
        return None
    if looks_like_claude_code(value):
        return GrowingSession(path)
    if name_ends(path, ".jsonl") and looks_like_codex(value):
        return GrowingRollout(path)
    return None


_ONE_RUN_SOURCES = frozenset({"codex-rollout", "openai-chat"})
"""The ``source.format`` of an imported run whose file holds that run only, however it grows: a Codex rollout (one
session), an OpenAI-style conversation or trajectory. A run file holds one run too; a file of any other format may
come to hold more (a Claude Code session another sub-agent, a log of requests another conversation, an Inspect log
another sample)."""


def _one_run(path: str, runs: list[Run]) -> bool:
    """Whether the file at ``path``, whose runs are ``runs``, holds one run however it grows: a run file (a
    recording of ``record(client)`` too: its run is its longest conversation), or a format of ``_ONE_RUN_SOURCES``."""
    if _is_run_header(_first_record(_start(path))):
        return True
    source = runs[0].header.get("source") if len(runs) == 1 else None
    return isinstance(source, dict) and source.get("format") in _ONE_RUN_SOURCES


def _changed_from(before: Run, after: Run) -> int | None:
    """The lowest index of a step that may differ between two imports of a growing file.

    A step differs when it does or when its record does (what was sent for it: a session
    rewound past it sends another turn after the same step). The last step imported before is
    always among them: how a step's turn was sent (whether anything answered its reply) is told
    by what follows it.
    """
    old_records, new_records = before.step_records, after.step_records
    for old, new in zip(before.steps, after.steps, strict=False):
        if old != new or old_records.get(old.index) != new_records.get(new.index):
            return new.index
    count = len(before.steps)
    if not after.steps or (count == len(after.steps) == 0):
        return None
    return after.steps[count - 1].index if count else after.steps[0].index


def follower(path: str | os.PathLike[str], which: str | None = None) -> Follower | ImportFollower | Undecided:
    """What follows ``path``: a ``runfile.Follower`` for a run file, an ``ImportFollower`` for anything else.

    A recording of ``agentrender.record(client)`` is a run file whose run an importer makes:
    it is imported again. The file's first line decides: a file that does not exist yet, or
    holds no complete line yet, is followed by an ``Undecided``, which picks one of the two
    once it does. A ``.gz`` file, in any case, raises ``RunFileError`` (``GZIP_REFUSED``), whichever run is named; a
    path whose folder does not exist, or a folder, ``ValueError``.
    """
    name = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(name))
    if not os.path.isdir(folder):
        raise ValueError(f"{name}: no such folder: {folder} (no file there can be written to follow)")
    if os.path.isdir(name):
        raise ValueError(f"{name}: a folder, not a file to follow")
    if name_ends(name, ".gz"):  # a run file, or a history an importer reads (a Claude Code session archived)
        raise RunFileError(name, 1, GZIP_REFUSED)
    if which is None and not _decidable(_start(name)):
        return Undecided(name)
    return _decided(name, which)


GZIP_REFUSED = (
    "a gzip-compressed file cannot be followed: its stream can only be read once it is complete. Follow the plain "
    "file while its agent writes it, or read this one without --follow (agentrender.load) once the run has ended"
)
"""Why ``follower`` refuses a ``.gz`` file, whatever it holds."""


def _decided(name: str, which: str | None) -> Follower | ImportFollower:
    if which is None and _is_plain_run_file(name):
        return Follower(name)
    return ImportFollower(name, which)


def _decidable(start: bytes) -> bool:
    """A file's first bytes tell what follows it: its first line is complete (or a whole JSON value), or it is a ZIP."""
    if b"\n" in start or start.startswith(ZIP_MAGIC):
        return True
    try:
        decode_line(start.decode("utf-8"))
    except (ValueError, RecursionError):
        return False
    return True


NO_FILE_YET = "no such file yet"
"""``Undecided.waiting`` of a file that does not exist yet."""


class Undecided:
    """A file followed before it holds a complete line (or exists): ``poll`` as ``runfile.Follower.poll``.

    Whether it is a run file (``runfile.Follower``) or a file an importer reads (``ImportFollower``:
    a Claude Code session, a Codex rollout, a recording of ``record(client)``) is decided by its
    first line, so the first ``poll`` that finds one complete makes that follower, which reads it on.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.chosen: Follower | ImportFollower | None = None
        """The follower the file's first line chose; ``None`` until it is complete."""
        self._first = 0  # the bytes of the first line being written, when last looked at

    @property
    def waiting(self) -> str:
        """Why the file gives no run yet: ``no such file yet``, else the chosen follower's ``waiting``."""
        if self.chosen is not None:
            return self.chosen.waiting
        return "" if os.path.exists(self.path) else NO_FILE_YET

    @property
    def waiting_for(self) -> str:
        """The run the file is waited for (the chosen follower's ``waiting_for``): ``""`` until one is chosen, as
        ``Undecided`` follows no ``--run``."""
        return self.chosen.waiting_for if self.chosen is not None else ""

    @property
    def notices(self) -> list[str]:
        """What happened to the file that made it be read again from its start (the chosen follower's)."""
        return self.chosen.notices if self.chosen is not None else []

    @property
    def place(self) -> tuple[int, int]:
        """The chosen follower's ``place`` (``ImportFollower.place``); a run file, or none chosen yet: ``(0, 1)``."""
        return self.chosen.place if isinstance(self.chosen, ImportFollower) else (0, 1)

    @property
    def pending(self) -> int:
        """The bytes of a last line not complete yet: until one is chosen, of the first line being written."""
        return self.chosen.pending if self.chosen is not None else self._first

    @property
    def pending_line(self) -> int:
        """The number of the line ``pending`` counts the bytes of (the chosen follower's); ``0`` when none waits."""
        if self.chosen is not None:
            return self.chosen.pending_line
        return 1 if self._first else 0

    @property
    def final_end(self) -> bool:
        """The end a growth gives is the file's own last record (``runfile.Follower``), not an importer's reading."""
        return self.chosen is not None and self.chosen.final_end

    def poll(self) -> Growth | None:
        """``None`` until the file's first line is complete; then the chosen follower's ``poll``."""
        if self.chosen is None:
            start = _start(self.path)
            if not _decidable(start):
                self._first = len(start)  # no newline in it: the file's bytes so far
                return None
            self.chosen = _decided(self.path, None)
        return self.chosen.poll()


def unfinished_line(data: bytes) -> tuple[int, int]:
    """The number and bytes of the last line of ``data`` (a file's bytes) while it is being written: it has no newline
    yet, and it is not the one line of a document read whole (``whole_document``), which is complete without one, nor
    a first line that is a whole JSON value (``_decidable``); ``(0, 0)`` when it has none such."""
    if not data or data.endswith(b"\n"):
        return (0, 0)
    if not _decidable(data):  # no newline in it, no JSON value yet: a first line being written
        return (1, len(data))
    if whole_document(data):
        return (0, 0)
    return data.count(b"\n") + 1, len(data) - data.rfind(b"\n") - 1


def whole_document(data: bytes) -> bool:
    """Whether ``data`` (a file's bytes) is a document an importer reads whole, not JSON lines read a line at a time:
    a ZIP archive (an Inspect ``.eval`` log), a JSON list, a JSON value written over several lines (its first line is
    ``{`` or ``[``), or one line of JSON with nothing after it."""
    if data.startswith(ZIP_MAGIC):
        return True
    text = data.lstrip(_SPACE)
    if not text:
        return False  # nothing written yet
    first, newline, rest = text.partition(b"\n")
    return text[:1] == b"[" or first.rstrip(_SPACE) in (b"{", b"[") or not (newline and rest.strip(_SPACE))


_SPACE = b"\xef\xbb\xbf \t\r\n"  # white space, and a UTF-8 byte order mark


def _start(path: str) -> bytes:
    """The file's first line and a few bytes after it: enough for ``whole_document`` to tell (``b""``: unreadable)."""
    try:
        with open(path, "rb") as file:
            return file.readline() + file.read(64)
    except OSError:
        return b""


_NO_JSON = object()
"""What ``_first_record`` gives for a first line that is no JSON (``None`` is a JSON value: ``null``)."""


def _first_record(start: bytes) -> Any:
    """The JSON value of the first line of ``start`` (a file's first bytes, ``_start``); ``_NO_JSON`` when it has
    none (not JSON, or a document an importer reads whole, whose first line is ``{``)."""
    try:
        return decode_line(start.partition(b"\n")[0].decode("utf-8"))
    except (ValueError, RecursionError):
        return _NO_JSON


def _is_run_header(record: Any) -> bool:
    """``record`` (a file's ``_first_record``) is a run header: a run file's, or a recording's."""
    return isinstance(record, dict) and record.get("type") == "run"


def _is_plain_run_file(path: str) -> bool:
    """The file's first line is a run header that is not a recording's (what ``runfile.Follower`` reads)."""
    start = _start(path)
    header = _first_record(start)
    if header is _NO_JSON:
        # the run-file follower says what is wrong with a first line that is no JSON, unless it is the start of a
        # document an importer reads whole (an Inspect log, a JSON value over several lines)
        return not whole_document(start)
    if not _is_run_header(header):
        return False
    source = header.get("source")
    return not (isinstance(source, dict) and source.get("format") == SOURCE_FORMAT)


def follow(
    path: str | os.PathLike[str],
    *,
    which: str | None = None,
    interval: float = POLL_INTERVAL,
    idle: float | None = None,
) -> Iterator[Growth]:
    """``runfile.follow`` of any file ``agentrender.load`` reads (``follower``); ``which`` as ``ImportFollower``'s."""
    return growths(follower(path, which), interval=interval, idle=idle)
