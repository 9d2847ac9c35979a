"""Claude Code session transcripts, as runs that render the conversation its model was sent.

Claude Code writes each session to ``~/.claude/projects/<project>/<session-id>.jsonl``: one
JSON object a line, each with a ``type``. The records this importer reads (shapes from
public transcripts and parsers, named in ``tests/fixtures/imports/README.md``):

- ``user`` and ``assistant`` records carry one Messages API message (``message``: ``role``,
  ``content``) with ``uuid``, ``parentUuid`` (the record before it: the transcript is a tree),
  ``sessionId``, ``isSidechain``, ``cwd``, ``gitBranch``, ``version`` and ``timestamp``. An
  assistant reply is written one content block a record, the records sharing the reply's
  ``message.id``; the results of parallel tool uses are written one a record. A user record
  may hold ``toolUseResult``, a richer copy of the result for Claude Code's own display (not
  sent), and ``isMeta`` (a message sent to the model but hidden from the person);
- ``system`` records (``stop_hook_summary``, ``turn_duration``, ``local_command``, ...) and
  ``progress``/``attachment`` records sit in the tree but are Claude Code's own notes; a
  ``compact_boundary`` system record starts the conversation anew after a compaction, with
  ``logicalParentUuid`` naming where the conversation before it ended;
- ``summary`` records (a title for the conversation ending at ``leafUuid``),
  ``file-history-snapshot``, ``queue-operation``, ``last-prompt`` and others carry no uuid and
  are not part of any conversation;
- a sub-agent's thread has ``isSidechain: true`` (and an ``agentId``); older versions write it
  in the session's file, newer ones in ``<session-id>/subagents/agent-<id>.jsonl``, which
  ``from_claude_code`` reads too.

Each thread is read by following ``parentUuid`` from its last record back to its root (the
record order of the file is not the conversation's: a rewound conversation leaves its
abandoned branch in the file), then read as the requests it made: a reply is read whole from
every record of its ``message.id`` when its first record is met, and its results are taken
from the records that answer its tool uses, wherever they hang (see ``_Transcript.requests``).
Every look-up is a dict's, so an import takes time in proportion to the file. Standard library only.
"""

from __future__ import annotations

import json
import os
from bisect import bisect_left
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from operator import attrgetter
from pathlib import Path
from typing import Any

from agentrender._fast import fast_json_decoder, paused, promote
from agentrender._json import decode_failure, limited
from agentrender._types import check_block
from agentrender.imports.conversation import Summariser, Where, conversation_run, plain_blocks
from agentrender.runfile import Run, RunFileError, RunWarning, RunWarnings
from agentrender.runfile.replies import check_reply

__all__ = ["TRANSCRIPT_NOTE", "from_claude_code", "looks_like_claude_code"]

TRANSCRIPT_NOTE = (
    "a Claude Code transcript holds the conversation's turns; the system prompt, the tool definitions and "
    "the reminders Claude Code adds to a request as it sends it are not in it"
)
"""What an imported session's ``source.note`` says of what the transcript cannot show."""

_decode = limited(fast_json_decoder(json.JSONDecoder()))
"""``json.loads`` of one line, through the decoder's scanner when the line is one value (see ``agentrender._fast``)."""
_ASCII_SPACE = " \t\r\n\x0b\x0c"
"""What ``bytes.strip`` strips: a line of only these is blank."""

_MESSAGE_TYPES = ("user", "assistant")
# Fields whose type is checked on every record that has them; the rest are kept as they are.
_STRING_FIELDS = ("uuid", "sessionId", "agentId", "subtype")
_OPTIONAL_STRING_FIELDS = ("parentUuid", "logicalParentUuid", "leafUuid")
_BOOL_FIELDS = ("isSidechain", "isMeta", "isCompactSummary")


def looks_like_claude_code(value: Any) -> bool:
    """True when ``value`` (a file's first JSON value) is a line of a Claude Code transcript."""
    if not isinstance(value, Mapping) or not isinstance(value.get("type"), str):
        return False
    if "sessionId" in value or "parentUuid" in value or "leafUuid" in value:
        return True
    return value.get("type") == "file-history-snapshot" and "snapshot" in value


class _Record:
    """One line of a transcript: its number and the record it holds (checked as read), with the fields the threads
    are followed by read once.

    A message record is split as it is read, once: ``value`` becomes what a run's ``source.transcript`` keeps of it
    (its fields as written, then ``line``, then ``message`` without its content), ``blocks`` its content as the API
    has it (text as one text block). Nothing is copied: a record on two threads is the same in both runs.
    """

    __slots__ = ("blocks", "kind", "line", "message", "parent", "results", "sidechain", "uuid", "value")

    def __init__(self, line: int, value: dict[str, Any]) -> None:
        # the fields' types were checked (_checked): no conversion is needed
        self.line = line
        self.value = value
        self.uuid: str = value.get("uuid") or ""
        self.parent: str | None = value.get("parentUuid")
        self.kind: str = (kind := value["type"])
        self.sidechain: bool = value.get("isSidechain") or False
        self.message: dict[str, Any] | None
        """A message record's ``message``, without its content; ``None`` for any other record."""
        self.blocks: list[dict[str, Any]]
        self.results: bool
        """Whether the record is a message of tool results only (one of parallel results, if it is a user's)."""
        if kind != "user" and kind != "assistant":
            self.message, self.blocks, self.results = None, _NO_BLOCKS, False
            return
        self.message = message = value.pop("message")
        value["line"] = line  # in place, as a field named line of the record's own would be
        value["message"] = message
        content = message.pop("content")
        self.blocks = blocks = [{"type": "text", "text": content}] if type(content) is str else content
        self.results = (
            bool(blocks)
            and blocks[0]["type"] == "tool_result"
            and (len(blocks) == 1 or all(block["type"] == "tool_result" for block in blocks))
        )


_NO_BLOCKS: list[dict[str, Any]] = []
"""The blocks of a record that is not a message (never changed)."""
_UUID = attrgetter("uuid")


@dataclass(frozen=True)
class _Thread:
    """One conversation of a transcript: its parts (more than one when it was compacted), and what it is."""

    segments: list[_Segment]
    """The turns sent, oldest first: the conversation before each compaction, then the one after it."""
    kind: str
    """``main`` or ``sidechain``."""
    notes: dict[str, Any] = field(default_factory=dict)


class _Transcript:
    """One transcript file, read and checked: its records, indexed by uuid."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.warnings: list[RunWarning] = RunWarnings()  # alike warnings counted as made
        self.records = self._read()
        self.by_uuid: dict[str, _Record] = {}
        """Each uuid's first record, in file order."""
        self.outside: list[_Record] = []
        """The records with no uuid, in no thread (titles, file backups, the prompt queue, ...)."""
        self.replies: dict[tuple[bool, Any], list[_Record]] = {}
        """Each reply's records, by whether they are a sub-agent's and the reply's ``message.id``, in file order."""
        self.results: dict[Any, list[_Record]] = {}
        """The user records that hold a result, by the id of the tool use it answers, in file order."""
        setdefault = self.by_uuid.setdefault
        for record in self.records:
            if not record.uuid:
                self.outside.append(record)
            elif (first := setdefault(record.uuid, record)) is not record:
                self.warnings.append(
                    Where(path, record.line, "uuid").warning(
                        f"the uuid of line {first.line} again: this record is left out of the threads"
                    )
                )
            elif record.kind == "assistant":
                message_id = record.message.get("id") if record.message is not None else None
                if message_id is not None:
                    self.replies.setdefault((record.sidechain, message_id), []).append(record)
            elif record.kind == "user":
                for block in record.blocks:
                    if block["type"] == "tool_result":
                        self.results.setdefault(block.get("tool_use_id"), []).append(record)

    def _read(self) -> list[_Record]:
        try:
            data = Path(self.path).read_bytes()
        except OSError as error:
            raise RunFileError(self.path, 0, f"cannot read the file ({error.strerror or error})") from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return self._read_lines(data)  # line by line, to say which line is not UTF-8 (or was cut short)
        records: list[_Record] = []
        append = records.append
        for number, line in enumerate(text.split("\n"), start=1):
            if not line.strip(_ASCII_SPACE):
                continue
            try:
                value = _decode(line)
            except (ValueError, RecursionError):
                return self._read_lines(data)  # line by line, for the error (or the last line cut short)
            append(_Record(number, value if _plain_record(value) else self._checked(value, number)))
        if not records:
            raise RunFileError(self.path, 1, "the file holds no transcript record")
        return records

    def _read_lines(self, data: bytes) -> list[_Record]:
        lines = data.split(b"\n")
        records = []
        for number, raw in enumerate(lines, start=1):
            if not raw.strip():
                continue
            last = number == len(lines)  # no newline after it: the writer may have stopped mid-line
            try:
                value = _decode(raw.decode("utf-8"))
            except UnicodeDecodeError as error:
                if last:
                    self._cut(number)
                    break
                raise RunFileError(
                    self.path, number, f"not UTF-8 text ({error.reason} at byte {error.start})"
                ) from None
            except (ValueError, RecursionError) as error:
                if last:
                    self._cut(number)
                    break
                raise RunFileError(self.path, number, decode_failure(error)) from None
            records.append(_Record(number, value if _plain_record(value) else self._checked(value, number)))
        if not records:
            raise RunFileError(self.path, 1, "the file holds no transcript record")
        return records

    def _cut(self, number: int) -> None:
        self.warnings.append(
            Where(self.path, number).warning("the last line is cut short (the session was being written): left out")
        )

    def _checked(self, value: Any, line: int) -> dict[str, Any]:
        """``value``, read from ``line``, checked whole (after ``_plain_record``'s quick look): a ``RunFileError``
        names the field of what is wrong."""
        where = Where(self.path, line)
        if not isinstance(value, dict):
            raise where.error(f"expected a transcript record (a JSON object), got {type(value).__name__}")
        kind = value.get("type")
        if not isinstance(kind, str):
            raise where.at("type").error(f"expected the record's type, got {kind!r}")
        # null is what a writer puts in a field it did not record: as if the field were absent
        for name in _STRING_FIELDS:
            if value.get(name) is not None and (not isinstance(value[name], str) or not value[name]):
                raise where.at(name).error(f"expected a non-empty string, got {value[name]!r}")
        for name in _OPTIONAL_STRING_FIELDS:
            if value.get(name) is not None and not isinstance(value[name], str):
                raise where.at(name).error(f"expected a uuid or null, got {type(value[name]).__name__}")
        for name in _BOOL_FIELDS:
            if value.get(name) is not None and not isinstance(value[name], bool):
                raise where.at(name).error(f"expected true or false, got {value[name]!r}")
        if kind in _MESSAGE_TYPES:
            if value.get("uuid") is None:
                raise where.at("uuid").error(f"missing: a {kind} record has a uuid")
            _check_message(value.get("message"), kind, where.at("message"))
        if kind == "summary" and not isinstance(value.get("summary", ""), str):
            raise where.at("summary").error(f"expected text, got {type(value['summary']).__name__}")
        return value

    def chain(self, leaf: _Record, sidechain: bool) -> list[_Record]:
        """The records from the thread's root to ``leaf``, following ``parentUuid`` (one look-up a record)."""
        chain = [leaf]
        seen = {leaf.uuid}
        by_uuid = self.by_uuid
        record = leaf
        while record.parent is not None:
            parent = by_uuid.get(record.parent)
            if parent is None:
                break  # the caller joins what it can (_Written.joined), or says it cannot
            if parent.uuid in seen:
                raise Where(self.path, record.line, "parentUuid").error(
                    "the records' parents make a loop: a transcript is a tree"
                )
            if sidechain and not parent.sidechain:
                break  # a sub-agent's thread that starts from a record of the main one
            seen.add(parent.uuid)
            chain.append(parent)
            record = parent
        chain.reverse()
        return chain

    def broken(self, record: _Record) -> None:
        """Say that ``record``'s parent is not in the file, and that its thread is read from it."""
        self.warnings.append(
            Where(self.path, record.line, "parentUuid").warning(
                f"points to {record.parent!r}, a record not in this file: the thread is read from here "
                "(what came before it was sent too, and is not in this file)"
            )
        )

    def threads(self) -> list[_Thread]:
        """The main thread (every part of it, compactions included, oldest first), then each sidechain."""
        threads: list[_Thread] = []
        used: set[str] = set()
        records = self.by_uuid.values()  # each uuid's first record, in file order
        last = next((r for r in reversed(records) if r.message is not None and not r.sidechain), None)
        if last is not None:
            segments = self._segments(last, used)
            threads.append(_Thread([self.requests(chain, False, used) for chain in segments], "main"))
        groups = self._sidechains()
        agents: dict[Any, _Written] = {}  # each agent's message records, to join a chain a left-out record broke
        for members in groups.values():
            for member in members:
                agents.setdefault(member.value.get("agentId"), _Written(self)).add(member)
        # the latest first: a chain broken by a record left out joins the one written before it
        for members in sorted(groups.values(), key=lambda members: members[-1].line, reverse=True):
            if members[-1].uuid in used:
                continue
            written = agents[members[-1].value.get("agentId")]
            chain = written.joined(self.chain(members[-1], sidechain=True), "of the sub-agent")
            used.update(written.taken)
            notes = {}
            if chain[0].parent is not None and chain[0].parent in self.by_uuid:
                notes["parent_line"] = self.by_uuid[chain[0].parent].line
            threads.append(_Thread([self.requests(chain, True, used)], "sidechain", notes))
        threads[1 if last is not None else 0 :] = sorted(
            threads[1 if last is not None else 0 :], key=lambda thread: thread.segments[0].first_line
        )
        left = [r for r in records if r.message is not None and r.uuid not in used] if len(used) < len(records) else []
        if left:
            lines = ", ".join(str(r.line) for r in left[:8]) + (", ..." if len(left) > 8 else "")
            self.warnings.append(
                Where(self.path, left[0].line).warning(
                    f"{len(left)} message record(s) on branches the conversation left (a rewind or a retry; "
                    f"lines {lines}): not part of what was last sent, and not in any run"
                )
            )
        return threads

    def _segments(self, leaf: _Record, used: set[str]) -> list[list[_Record]]:
        """The main thread's chains, oldest first: the conversation before each compaction, then the one after it.

        A ``compact_boundary`` starts a chain anew (its ``parentUuid`` is null) and names the record the
        conversation before it ended with in ``logicalParentUuid``. When that record is not in the file, or
        is one the conversation after the boundary holds (a compaction that kept the last messages and
        wrote them again after its summary), the conversation before it is the chain that ends where the
        boundary starts: the last message record of the main thread written before the boundary, and a
        warning says it was joined so.
        """
        segments = []
        written = _Written(self)
        for record in self.by_uuid.values():
            if record.message is not None and not record.sidechain:
                written.add(record)
        current: _Record | None = leaf
        while current is not None:
            chain = written.joined(self.chain(current, sidechain=False), "of the main thread")
            root = chain[0]
            segments.append(chain)
            before = root.value.get("logicalParentUuid")
            current = None
            if not isinstance(before, str):
                continue
            current = self.by_uuid.get(before)
            where = Where(self.path, root.line, "logicalParentUuid")
            if current is not None and current.uuid not in written.taken:
                continue
            why = "a record not in this file" if current is None else "a record the conversation after it holds"
            current = written.before(root)
            if current is None:
                self.warnings.append(where.warning("the conversation before this compaction is not in this file"))
                continue
            self.warnings.append(
                where.warning(
                    f"names {before!r}, {why}: the conversation before the compaction is taken to end at line "
                    f"{current.line}, the last message of the main thread before it"
                )
            )
        used.update(written.taken)
        segments.reverse()
        return segments

    def _sidechains(self) -> dict[str, list[_Record]]:
        """Each sidechain's message records (in file order) by the uuid of its root, found in one pass."""
        root_of: dict[str, str] = {}
        by_uuid = self.by_uuid
        groups: dict[str, list[_Record]] = {}
        for record in by_uuid.values():
            if not (record.sidechain and record.message is not None):
                continue
            path: dict[str, None] = {}  # the uuids walked, in order (a dict: a loop is found in one look-up)
            at: _Record | None = record
            root = record.uuid
            while at is not None:
                known = root_of.get(at.uuid)
                if known is not None:
                    root = known
                    break
                if at.uuid in path:  # a loop: chain() says so when the thread is read
                    root = at.uuid
                    break
                path[at.uuid] = None
                root = at.uuid
                parent = by_uuid.get(at.parent) if at.parent is not None else None
                at = parent if parent is not None and parent.sidechain else None
            for uuid in path:
                root_of[uuid] = root
            groups.setdefault(root, []).append(record)
        return groups

    def requests(self, chain: list[_Record], sidechain: bool, used: set[str]) -> _Segment:
        """The turns ``chain`` sent: one assistant turn a request (every record of its reply, wherever the file
        put them), then one user turn with the results of its tool uses, in the order of the tool uses.

        Claude Code writes a reply one block a record, the records sharing the reply's ``message.id``,
        and writes each tool use's result as soon as it has it: the records of one reply and their
        results are interleaved (``text``, ``tool_use 1``, ``result 1``, ``tool_use 2``, ``result 2``) or
        fork off one another (each result a child of its own tool use). What it sent next was one
        assistant turn holding the whole reply and one user turn with all of its results. So a reply
        is read whole when its first record is met, from every record of its ``message.id``, and each
        tool use's result is taken from the record that answers it; a record already taken is passed
        over when the chain reaches it. ``used`` collects the uuids of every record taken.
        """
        segment = _Segment()
        segment.root, segment.root_line = chain[0].value, chain[0].line
        replies, results, path = self.replies, self.results, self.path
        on_chain = set(map(_UUID, chain))
        taken: set[str] = set()
        for record in chain:
            message = record.message
            if message is None:
                subtype = record.value.get("subtype")
                segment.skipped[f"{record.kind}/{subtype}" if isinstance(subtype, str) else record.kind] += 1
                taken.add(record.uuid)
                continue
            if record.uuid in taken:
                continue
            if record.kind == "user":
                taken.add(record.uuid)
                segment.add(record, record.blocks, path, results=record.results)
                continue
            message_id = message.get("id")
            members = replies.get((sidechain, message_id), [record]) if message_id is not None else [record]
            members = [m for m in members if m.uuid not in taken]
            taken.update(map(_UUID, members))
            blocks = segment.reply(members, path)
            answering: list[_Record] = []
            for block in blocks:
                if block["type"] != "tool_use":
                    continue
                found = _answer(results.get(block.get("id")), sidechain, taken, on_chain)
                if found is not None:
                    taken.add(found.uuid)
                    answering.append(found)
            if answering:
                segment.results(answering, [b.get("id") for b in blocks if b["type"] == "tool_use"], path)
        used.update(taken)
        return segment


class _Written:
    """One thread's message records in the order they were written, to join a chain that a record left out of the
    file broke: the thread goes on from the last of them written before the chain's first, as Claude Code writes a
    thread one record after the other."""

    def __init__(self, transcript: _Transcript) -> None:
        self.transcript = transcript
        self.records: list[_Record] = []
        self.lines: list[int] = []
        self.taken: set[str] = set()
        """The uuids of the records already in a chain."""

    def add(self, record: _Record) -> None:
        self.records.append(record)
        self.lines.append(record.line)

    def before(self, root: _Record) -> _Record | None:
        """The last record written before ``root`` that no chain holds yet."""
        at = bisect_left(self.lines, root.line) - 1
        while at >= 0 and self.records[at].uuid in self.taken:
            at -= 1
        return self.records[at] if at >= 0 else None

    def joined(self, chain: list[_Record], thread: str) -> list[_Record]:
        """``chain``, and before it each chain it was broken from (a parent not in the file), with a warning each."""
        transcript = self.transcript
        self.taken.update(map(_UUID, chain))
        while (root := chain[0]).parent is not None and root.parent not in transcript.by_uuid:
            joined = self.before(root)
            if joined is None:
                transcript.broken(root)
                break
            transcript.warnings.append(
                Where(transcript.path, root.line, "parentUuid").warning(
                    f"points to {root.parent!r}, a record not in this file: joined to line {joined.line}, the "
                    f"last message {thread} before it"
                )
            )
            before_it = transcript.chain(joined, sidechain=root.sidechain)
            self.taken.update(map(_UUID, before_it))
            chain = before_it + chain
        return chain


def _answer(candidates: list[_Record] | None, sidechain: bool, taken: set[str], on_chain: set[str]) -> _Record | None:
    """The record that holds the result of a tool use: the one on the chain (a retried tool use leaves its first
    result on an abandoned branch), else the first of the thread's kind not already taken (a result that forks off)."""
    if not candidates:
        return None
    if len(candidates) > 1:
        for record in candidates:
            if record.uuid in on_chain and record.uuid not in taken:
                return record
    for record in candidates:
        if record.sidechain == sidechain and record.uuid not in taken:
            return record
    return None


_LINE = attrgetter("line")


class _Segment:
    """The turns of one chain as they were sent, with what its records say beside them (see ``_Transcript.requests``).

    A turn's content is its first record's list of blocks as read, or a list of its own when records are joined
    into it: a record's blocks are never changed, as a record may be in more than one run. Each reply (``calls``)
    is a stretch of its turn's content, ``content[start:end]``.
    """

    def __init__(self) -> None:
        self.turns: list[dict[str, Any]] = []
        self.records: list[dict[str, Any]] = []
        """Each message record's fields as written (``source.transcript``), in the order they were taken."""
        self.skipped: Counter[str] = Counter()
        self.models: list[str] = []
        self.calls: list[dict[str, Any]] = []
        self.dropped = 0
        """Whitespace-only text blocks of replies, which Claude Code does not send back (the API refuses them)."""
        self.warnings: list[RunWarning] = RunWarnings()  # alike warnings counted as made
        self.first_line = 0
        """The line of the part's first message record."""
        self.root: Mapping[str, Any] = {}
        """The fields of the chain's first record (a ``compact_boundary``, for a part after a compaction)."""
        self.root_line = 0
        self._owned = False
        self._results = False

    def add(self, record: _Record, blocks: list[dict[str, Any]], path: str, results: bool = False) -> None:
        """``record``'s ``blocks`` at the end of the conversation: a turn of their own, or joined into the last turn
        when it has the record's role (the API merges two user turns in a row into one, and so did Claude Code)."""
        self.records.append(record.value)
        if not self.first_line:
            self.first_line = record.line
        turns = self.turns
        if not turns or turns[-1]["role"] != record.kind:
            turns.append({"role": record.kind, "content": blocks})
            self._owned, self._results = False, results
            return
        if not (results and self._results):  # a reply's results are one turn as they were sent
            self.warnings.append(
                Where(path, record.line, "parentUuid").warning(
                    f"{_ARTICLE[record.kind]} {record.kind} message right after another: joined into one turn, as the "
                    "Messages API would"
                )
            )
        self._results = self._results and results
        if not blocks:
            return
        last = turns[-1]
        if self._owned:
            last["content"] += blocks
        else:
            last["content"] = last["content"] + blocks
            self._owned = True

    def results(self, records: list[_Record], uses: list[Any], path: str) -> None:
        """Add the user turn that answers a reply whose tool uses have the ids ``uses``, from the ``records`` that
        hold their results: each result in the order of the tool uses, then whatever else those records hold."""
        records = sorted(records, key=_LINE)
        order = {use: i for i, use in enumerate(uses)}
        answers: list[dict[str, Any]] = []
        rest: list[dict[str, Any]] = []
        for record in records:
            for block in record.blocks:
                answers_one = block["type"] == "tool_result" and block.get("tool_use_id") in order
                (answers if answers_one else rest).append(block)
        answers.sort(key=lambda block: order[block.get("tool_use_id")])
        if len(records) == 1 and not rest and answers == records[0].blocks:
            answers = records[0].blocks  # in order already: the record's own list, not a copy
        self.add(records[0], answers + rest, path, results=not rest)
        self.records.extend(record.value for record in records[1:])

    def reply(self, members: list[_Record], path: str) -> list[dict[str, Any]]:
        """Add one reply read from its records (in file order), as one assistant turn; its blocks."""
        if len(members) == 1 and not any(_blank(block) for block in members[0].blocks):
            blocks = members[0].blocks
        else:
            blocks = []
            seen: set[Any] = set()
            for member in members:
                for block in member.blocks:
                    if _blank(block):
                        self.dropped += 1
                        continue
                    if block["type"] == "tool_use":
                        if block.get("id") in seen:
                            continue  # the same block written twice
                        seen.add(block.get("id"))
                    blocks.append(block)
        joined = bool(self.turns) and self.turns[-1]["role"] == "assistant"
        start = len(self.turns[-1]["content"]) if joined else 0
        self.add(members[0], blocks, path)
        self.records.extend(member.value for member in members[1:])
        last = members[-1]
        message = last.message
        assert message is not None  # an assistant record's
        model = message.get("model")
        if type(model) is str and model.startswith("<"):
            return blocks  # "<synthetic>" marks a reply Claude Code wrote itself, not a model's
        if model is not None:
            self.models.append(model)
        if joined:
            # the file lacks what was sent between the two replies: the step is what the model said last
            self.turns[-1]["decided_from"] = start
        if message.get("id") is not None:
            self.calls.append(
                {"turn": len(self.turns) - 1, "start": start, "end": start + len(blocks), "message": message,
                 "line": last.line}
            )  # fmt: skip
        return blocks


def _blank(block: dict[str, Any]) -> bool:
    """A text block of white space only: Claude Code records them in replies, and sends none of them back."""
    return block["type"] == "text" and not block.get("text", "").strip()


def _plain_record(value: Any) -> bool:
    """True for a record every field of which ``_checked`` would pass, found by a quick look; ``False`` leaves it
    to ``_checked``, which says what is wrong, if anything is.

    The fields nearly every record has are looked at one by one, the others only when the record has one.
    """
    if type(value) is not dict:
        return False
    get = value.get
    kind, uuid, session, parent = get("type"), get("uuid", "-"), get("sessionId", "-"), get("parentUuid")
    if not (type(kind) is type(uuid) is type(session) is str and uuid and session):
        return False
    if (parent is not None and type(parent) is not str) or type(get("isSidechain", False)) is not bool:
        return False
    if not _RARE_FIELDS.isdisjoint(value) and not _plain_rare_fields(value):
        return False
    if kind == "user" or kind == "assistant":
        message = get("message")
        if "uuid" not in value or type(message) is not dict or message.get("role") != kind:
            return False
        if type(message.get("id", "")) is not str or type(message.get("model", "")) is not str:
            return False
        content = message.get("content")
        return type(content) is str or (type(content) is list and plain_blocks(content))
    return kind != "summary" or type(get("summary", "")) is str


_RARE_FIELDS = frozenset(_STRING_FIELDS + _OPTIONAL_STRING_FIELDS + _BOOL_FIELDS) - {
    "uuid",
    "sessionId",
    "parentUuid",
    "isSidechain",
}
"""The checked fields that few records have (a sub-agent's, a system record's, a summary's)."""


def _plain_rare_fields(value: dict[str, Any]) -> bool:
    get = value.get
    for name in _STRING_FIELDS:
        item = get(name, "-")
        if type(item) is not str or not item:
            return False
    for name in _OPTIONAL_STRING_FIELDS:
        item = get(name)
        if item is not None and type(item) is not str:
            return False
    return all(type(get(name, False)) is bool for name in _BOOL_FIELDS)


def _check_message(message: Any, kind: str, where: Where) -> None:
    if not isinstance(message, Mapping):
        raise where.error(f"expected the {kind} message (an object), got {type(message).__name__}")
    if message.get("role") != kind:
        raise where.at("role").error(f"expected {kind!r} in a {kind} record, got {message.get('role')!r}")
    for name in ("id", "model"):  # null: not recorded
        if message.get(name) is not None and not isinstance(message[name], str):
            raise where.at(name).error(f"expected text, got {type(message[name]).__name__}")
    content = message.get("content")
    if isinstance(content, str):
        return
    if not isinstance(content, list):
        raise where.at("content").error(f"expected text or a list of blocks, got {type(content).__name__}")
    if plain_blocks(content):
        return
    for j, block in enumerate(content):
        try:
            check_block(block, f"content[{j}]")
        except ValueError as error:
            raise where.error(str(error)) from None


def _model_calls(
    calls: list[dict[str, Any]], turns: list[dict[str, Any]], path: str, warnings: list[RunWarning]
) -> list[dict[str, Any]]:
    """A model call record for each reply the thread holds (one per ``message.id``), with its usage as recorded.

    The reply's content is joined from its records; the step it is made for is the one its
    turn decided. A reply that is not a ``Message`` the run file can hold is named in a warning.
    """
    out = []
    for call in calls:
        content = turns[call["turn"]]["content"]
        if call["start"] or call["end"] != len(content):
            content = content[call["start"] : call["end"]]
        response = {**call["message"], "content": content}  # the message as read has no content
        try:
            check_reply(response, where="message", blocks_checked=True)  # each block was, as it was read
        except ValueError as error:
            warnings.append(Where(path, call["line"]).warning(f"{error}: the reply is not kept as a model call"))
            continue
        out.append({"type": "model_call", "step": (call["turn"] - 1) // 2, "response": response})
    return out


def _first(records: list[dict[str, Any]], name: str) -> Any:
    return next((r[name] for r in records if name in r), None)


class _Conversation:
    """A thread's parts joined into one conversation: its turns, the compactions between its parts, its replies."""

    def __init__(self, thread: _Thread, path: str) -> None:
        self.thread = thread
        self.warnings: list[RunWarning] = RunWarnings()  # alike warnings counted as made
        self.turns: list[dict[str, Any]] = []
        self.compactions: list[dict[str, Any]] = []
        self.calls: list[dict[str, Any]] = []
        self.records: list[dict[str, Any]] = []
        self.models: list[str] = []
        skipped: Counter[str] = Counter()
        dropped = 0
        turns = self.turns
        for number, segment in enumerate(thread.segments):
            self.warnings.extend(segment.warnings)
            self.records.extend(segment.records)
            self.models.extend(segment.models)
            skipped.update(segment.skipped)
            dropped += segment.dropped
            if not segment.turns:
                if number:
                    self.warnings.append(
                        Where(path, segment.root_line).warning("a compaction with no message after it: left out")
                    )
                continue
            where = Where(path, segment.first_line)
            if segment.turns[0]["role"] != "user":
                raise where.at("parentUuid").error(
                    "the thread starts with an assistant message: the request that it answered is not in this file"
                )
            if not segment.turns[0]["content"]:
                raise where.at("message.content").error("the thread's first message is empty: no opening")
            if not turns:
                base = 0
                turns.extend(segment.turns)
            else:
                if turns[-1]["role"] == "assistant":
                    turns.append({"role": "user", "content": None})  # nothing was sent after that reply
                self.compactions.append(_compaction(segment, len(turns) // 2))
                base = len(turns) - 1  # the part's own turn i (its opening is turn 0) is turns[base + i]
                turns.extend(segment.turns[1:])
            self.calls.extend({**call, "turn": base + call["turn"]} for call in segment.calls)
        self.skipped = dict(sorted(skipped.items()))
        if dropped:
            self.warnings.append(
                Where(path, thread.segments[0].first_line).warning(
                    f"{dropped} text block(s) of white space only left out of the replies: Claude Code records them "
                    'but does not send them back, as the Messages API refuses them ("text content blocks must '
                    'contain non-whitespace text")'
                )
            )

    def launches(self, results: Mapping[Any, list[_Record]]) -> dict[str, dict[str, Any]]:
        """The sub-agents this conversation started (the step and the id of the tool use that started each), by the
        agent id its result names (``toolUseResult.agentId``) and by the prompt it gave; ``results`` are the
        transcript's result records by the tool use they answer."""
        found: dict[str, dict[str, Any]] = {}
        for turn_index in range(1, len(self.turns), 2):
            for block in self.turns[turn_index]["content"]:
                if block["type"] != "tool_use" or block.get("name") not in _AGENT_TOOLS:
                    continue
                link = {"step": (turn_index - 1) // 2, "tool_use_id": block.get("id")}
                for record in results.get(block.get("id")) or ():
                    result = record.value.get("toolUseResult")
                    if isinstance(result, Mapping) and isinstance(result.get("agentId"), str):
                        found[f"agent:{result['agentId']}"] = link
                prompt = block["input"].get("prompt") if isinstance(block.get("input"), Mapping) else None
                if isinstance(prompt, str):
                    found.setdefault(f"prompt:{prompt.strip()}", link)
        return found


_ARTICLE = {"user": "a", "assistant": "an"}

_AGENT_TOOLS = ("Task", "Agent")
"""The tools through which Claude Code starts a sub-agent."""


def _compaction(segment: _Segment, step: int) -> dict[str, Any]:
    """The header's ``compactions`` entry for a part of the main thread that starts at ``step`` with a summary."""
    root = segment.root
    compaction: dict[str, Any] = {"step": step, "opening": segment.turns[0]["content"]}
    metadata = root.get("compactMetadata")
    if isinstance(metadata, Mapping):
        if isinstance(metadata.get("trigger"), str):
            compaction["trigger"] = metadata["trigger"]
        if type(metadata.get("preTokens")) is int:
            compaction["tokens_before"] = metadata["preTokens"]
    if isinstance(root.get("timestamp"), str):
        compaction["at"] = root["timestamp"]
    compaction["line"] = segment.root_line
    return compaction


def _end(conversation: _Conversation) -> dict[str, Any] | None:
    """The run's end as the transcript shows it: a last reply that answers (no tool use, ``end_turn``) completed
    the session's work; anything else (a tool use, a prompt with no reply) says nothing of how it ended."""
    turns = conversation.turns
    if not turns or turns[-1]["role"] != "assistant" or not conversation.calls:
        return None
    last = conversation.calls[-1]
    if last["turn"] != len(turns) - 1 or any(block["type"] == "tool_use" for block in turns[-1]["content"]):
        return None
    stop = last["message"].get("stop_reason")
    if stop not in (None, "end_turn", "stop_sequence"):
        return None
    end: dict[str, Any] = {"type": "end", "status": "completed", "reason": "the session's last reply is an answer"}
    stamp = conversation.records[-1].get("timestamp") if conversation.records else None
    if isinstance(stamp, str):
        end["at"] = stamp
    return end


def _run(
    conversation: _Conversation,
    path: str,
    run_id: str,
    summarise: Summariser | None,
    extra_notes: Mapping[str, Any],
) -> Run | None:
    messages = conversation.turns
    if not messages:
        return None
    thread = conversation.thread
    warnings = RunWarnings(conversation.warnings)
    records = conversation.records
    source: dict[str, Any] = {"format": "claude-code", "path": path, "thread": thread.kind}
    for key, name in (
        ("sessionId", "session_id"),
        ("agentId", "agent_id"),
        ("version", "version"),
        ("cwd", "cwd"),
        ("gitBranch", "git_branch"),
    ):
        found = _first(records, key)
        if found is not None:
            source[name] = found
    source.update(thread.notes)
    source.update(extra_notes)
    calls = _model_calls(conversation.calls, messages, path, warnings)
    source["transcript"] = records
    if conversation.skipped:
        source["not_sent"] = conversation.skipped
    if conversation.models:
        source["models"] = sorted(set(conversation.models))
    source["note"] = TRANSCRIPT_NOTE
    where = Where(path, thread.segments[0].first_line, "turns")
    return conversation_run(
        messages,  # already in wire form: string content made a text block, each block checked as read
        where=where,
        run_id=run_id,
        source=source,
        request={"model": conversation.models[-1]} if conversation.models else None,
        calls=calls,
        summarise=summarise,
        warnings=warnings,
        replies_checked=True,  # each reply, by _model_calls
        compactions=conversation.compactions,
        end=_end(conversation),
    )


def _subagent_files(path: Path) -> list[Path]:
    folder = path.with_suffix("") / "subagents"
    return sorted(folder.glob("*.jsonl")) if folder.is_dir() else []


def from_claude_code(
    path: str | os.PathLike[str],
    *,
    summarise: Summariser | None = None,
    subagents: bool = True,
) -> list[Run]:
    """The runs of a Claude Code session transcript: the main thread first, whole, then each sub-agent's.

    Each request the session made is one step and one model call: a reply's records (one a
    block, sharing its ``message.id``) are one assistant turn, and its results one user turn
    in the order of its tool uses, however the file interleaved them. The main thread's run
    covers the whole session; each compaction is in its header's ``compactions`` (the step it
    comes before, the summary the conversation started anew with, its trigger and size), so a
    view before it is the conversation as it was then and a view after it starts from the
    summary. Each sidechain (a sub-agent's thread) is a run whose ``run_id`` names the session
    and the agent, linked both ways with the step whose tool use started it (``source.parent``,
    ``source.subagents``); with ``subagents``, the files of ``<session-id>/subagents/`` beside
    the transcript are read too. Every run's ``source`` keeps the session's id, version,
    working directory and branch, the models that replied, and each message record's fields
    beside its content (``transcript``, with ``toolUseResult``); the session's ``summary``
    titles, and the lines of the records that are in no thread (``file-history-snapshot``,
    ``last-prompt``, ...), are in the main run's source. Each model call keeps its reply's
    ``message.id``, ``stop_reason`` and ``usage`` as recorded, so ``frame.model_calls_frame``
    shows the tokens each request really took. A run whose last reply is an answer has an
    ``end`` record (``completed``).

    ``summarise`` gives each result a summary, for the view under the contract's window.
    Raises ``RunFileError`` naming the file, line and field of a record that cannot be read;
    what is read with a doubt (a cut-short last line, a ``parentUuid`` pointing to a record
    not in the file, branches the conversation left, a message right after another of its
    role, text blocks of white space only left out) is a warning on the run.
    """
    # An import makes a run's worth of objects and frees almost none: the collector's passes
    # over them would cost more than the import (as for load_run).
    with paused(promoting=True):
        return _from_claude_code(os.fspath(path), summarise, subagents)


def _from_claude_code(name: str, summarise: Summariser | None, subagents: bool) -> list[Run]:
    files = [Path(name)] + (_subagent_files(Path(name)) if subagents else [])
    made: list[tuple[_Transcript, list[tuple[str, _Conversation, dict[str, Any]]]]] = []
    session = ""
    launches: dict[str, dict[str, Any]] = {}
    for number, file in enumerate(files):
        transcript = _Transcript(os.fspath(file))
        promote()  # its records, decoded JSON, are kept: no pass of the collector over them (see _fast.promote)
        session = session or str(_first([r.value for r in transcript.records], "sessionId") or file.stem)
        summaries = [
            {"line": r.line, "summary": r.value.get("summary", ""), "leafUuid": r.value.get("leafUuid")}
            for r in transcript.records
            if r.kind == "summary"
        ]
        # Claude Code's own bookkeeping (file backups, the prompt queue, titles): in no thread
        outside: dict[str, list[int]] = {}
        for record in transcript.outside:
            if record.kind != "summary":
                outside.setdefault(record.kind, []).append(record.line)
        sidechains = 0
        conversations = []
        for thread in transcript.threads():
            conversation = _Conversation(thread, transcript.path)
            extra: dict[str, Any] = {}
            if thread.kind == "main":
                run_id = session
                if summaries:
                    extra["summaries"] = summaries
                if outside:
                    extra["outside_threads"] = outside
                if number == 0:
                    launches = conversation.launches(transcript.results)
            else:
                sidechains += 1
                agent = _first(conversation.records, "agentId")
                run_id = f"{session}/agent-{agent}" if agent else f"{session}/sidechain-{sidechains}"
            conversations.append((run_id, conversation, extra))
        made.append((transcript, conversations))
    # each sub-agent names the step of the main thread that started it, and the main thread each sub-agent
    started: list[dict[str, Any]] = []
    for _, conversations in made:
        for run_id, conversation, extra in conversations:
            if conversation.thread.kind != "sidechain" or not conversation.turns:
                continue
            agent = _first(conversation.records, "agentId")
            opening = "\n".join(
                block.get("text", "") for block in conversation.turns[0]["content"] if block["type"] == "text"
            ).strip()
            link = launches.get(f"agent:{agent}") or launches.get(f"prompt:{opening}")
            if link is not None:
                extra["parent"] = {"run_id": session, **link}
                started.append({"run_id": run_id, **link})
    runs: list[Run] = []
    for number, (transcript, conversations) in enumerate(made):
        file_runs = []
        for run_id, conversation, extra in conversations:
            if conversation.thread.kind == "main" and started:
                extra["subagents"] = started
            run = _run(conversation, transcript.path, run_id, summarise, extra)
            if run is not None:
                file_runs.append(run)
        if not file_runs:
            if number == 0:
                raise RunFileError(
                    transcript.path, 1, "no user or assistant message in the transcript: nothing was sent"
                )
            continue
        file_runs[0] = _with_warnings(file_runs[0], list(transcript.warnings))
        runs.extend(file_runs)
    return runs


def _with_warnings(run: Run, notes: list[RunWarning]) -> Run:
    return replace(run, warnings=(*notes, *run.warnings)) if notes else run
