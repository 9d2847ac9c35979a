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
abandoned branch in the file), taking in the results of parallel tool uses that fork off it
(each result's parent is the tool use it answers, and the tool uses are chained one after the
other, so only the last result is an ancestor of what follows). Split replies are joined into
one assistant turn and split results into one user turn, as they were sent. Standard library only.
"""

from __future__ import annotations

import json
import os
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
from agentrender.runfile import Run, RunFileError, RunWarning
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
        self.uuid: str = value.get("uuid", "")
        self.parent: str | None = value.get("parentUuid")
        self.kind: str = (kind := value["type"])
        self.sidechain: bool = value.get("isSidechain", False)
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
    """One conversation of a transcript: its records from root to leaf, and what it is."""

    records: list[_Record]
    kind: str
    """``main``, ``compacted`` (the main thread before a compaction) or ``sidechain``."""
    notes: dict[str, Any] = field(default_factory=dict)


class _Transcript:
    """One transcript file, read and checked: its records, indexed by uuid."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.warnings: list[RunWarning] = []
        self.records = self._read()
        self.by_uuid: dict[str, _Record] = {}
        """Each uuid's first record, in file order."""
        self.outside: list[_Record] = []
        """The records with no uuid, in no thread (titles, file backups, the prompt queue, ...)."""
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
        for name in _STRING_FIELDS:
            if name in value and (not isinstance(value[name], str) or not value[name]):
                raise where.at(name).error(f"expected a non-empty string, got {value[name]!r}")
        for name in _OPTIONAL_STRING_FIELDS:
            if value.get(name) is not None and not isinstance(value[name], str):
                raise where.at(name).error(f"expected a uuid or null, got {type(value[name]).__name__}")
        for name in _BOOL_FIELDS:
            if name in value and not isinstance(value[name], bool):
                raise where.at(name).error(f"expected true or false, got {value[name]!r}")
        if kind in _MESSAGE_TYPES:
            if "uuid" not in value:
                raise where.at("uuid").error(f"missing: a {kind} record has a uuid")
            _check_message(value.get("message"), kind, where.at("message"))
        if kind == "summary" and not isinstance(value.get("summary", ""), str):
            raise where.at("summary").error(f"expected text, got {type(value['summary']).__name__}")
        return value

    def chain(self, leaf: _Record, sidechain: bool) -> list[_Record]:
        """The records from the thread's root to ``leaf``, following ``parentUuid``, with the parallel results sent."""
        chain = [leaf]
        seen = {leaf.uuid}
        by_uuid = self.by_uuid
        record = leaf
        while record.parent is not None:
            parent = by_uuid.get(record.parent)
            if parent is None:
                self.warnings.append(
                    Where(self.path, record.line, "parentUuid").warning(
                        f"points to {record.parent!r}, a record not in this file: the thread is read from here "
                        "(what came before it was sent too, and is not in this file)"
                    )
                )
                break
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
        return self._with_parallel_results(chain, seen)

    def _with_parallel_results(self, chain: list[_Record], on_chain: set[str]) -> list[_Record]:
        """``chain`` with the results of its parallel tool uses that fork off it, each among its turn's results.

        Claude Code writes a reply's tool uses one a record, each the parent of the next, and each
        result with the tool use it answers as its parent: the result of every tool use but the
        last forks off the chain. It was sent all the same, in the user turn answering that reply
        (the API takes no tool use unanswered). A result record off the chain is taken in when its
        parent is a tool use record on the chain and it answers only tool uses of that record that
        the chain leaves unanswered; any other record off the chain stays on an abandoned branch.
        ``on_chain`` holds the uuids of the chain's records.
        """
        by_uuid = self.by_uuid
        if len(on_chain) == len(by_uuid):
            return chain  # no record is off it
        forks = [
            record
            for record in by_uuid.values()
            if record.results
            and record.kind == "user"
            and record.uuid not in on_chain
            and record.parent in on_chain
            and by_uuid[record.parent].kind == "assistant"
        ]
        if not forks:
            return chain
        answered = {
            block.get("tool_use_id")
            for record in chain
            if record.kind == "user"
            for block in record.blocks
            if block["type"] == "tool_result"
        }
        taken: list[_Record] = []
        for record in forks:
            parent = by_uuid[record.parent]  # type: ignore[index]  # a fork's parent is on the chain
            uses = {block.get("id") for block in parent.blocks if block["type"] == "tool_use"}
            ids = [block.get("tool_use_id") for block in record.blocks]
            if all(i in uses and i not in answered for i in ids):
                answered.update(ids)
                taken.append(record)
        if not taken:
            return chain
        # each goes past the rest of the reply (and Claude Code's notes), then among its results in file order
        position = {record.uuid: i for i, record in enumerate(chain)}
        places: dict[int, list[_Record]] = {}
        for record in taken:
            at = position[record.parent] + 1  # type: ignore[index]  # a fork's parent is on the chain
            while at < len(chain) and chain[at].kind != "user":
                at += 1
            places.setdefault(at, []).append(record)
        out: list[_Record] = []
        i = 0
        for at in sorted(places):
            if at > i:
                out.extend(chain[i:at])
                i = at
            for record in places[at]:  # in file order, as taken
                while i < len(chain) and chain[i].results and chain[i].line < record.line:
                    out.append(chain[i])
                    i += 1
                out.append(record)
        out.extend(chain[i:])
        return out

    def threads(self) -> list[_Thread]:
        """The main thread (its part since the last compaction), the parts before it, then each sidechain."""
        threads: list[_Thread] = []
        used: set[str] = set()
        records = self.by_uuid.values()  # each uuid's first record, in file order
        last = next((r for r in reversed(records) if r.message is not None and not r.sidechain), None)
        if last is not None:
            leaf: _Record | None = last
            segments = []
            while leaf is not None:
                chain = self.chain(leaf, sidechain=False)
                used.update(map(_UUID, chain))
                segments.append(chain)
                root = chain[0].value
                before = root.get("logicalParentUuid")
                leaf = None
                if isinstance(before, str):
                    leaf = self.by_uuid.get(before)
                    if leaf is None:
                        self.warnings.append(
                            Where(self.path, chain[0].line, "logicalParentUuid").warning(
                                "the conversation before this compaction is not in this file"
                            )
                        )
                    elif leaf.uuid in used:
                        raise Where(self.path, chain[0].line, "logicalParentUuid").error(
                            "points back into the conversation after it: a transcript is a tree"
                        )
            threads.append(_Thread(segments[0], "main"))
            threads.extend(_Thread(chain, "compacted") for chain in reversed(segments[1:]))
        roots: dict[str, list[_Record]] = {}
        for record in records:
            if record.sidechain and record.message is not None:
                roots.setdefault(self._sidechain_root(record), []).append(record)
        for members in roots.values():
            chain = self.chain(members[-1], sidechain=True)
            used.update(map(_UUID, chain))
            notes = {}
            if chain[0].parent is not None and chain[0].parent in self.by_uuid:
                notes["parent_line"] = self.by_uuid[chain[0].parent].line
            threads.append(_Thread(chain, "sidechain", notes))
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

    def _sidechain_root(self, record: _Record) -> str:
        seen = set()
        while record.parent is not None and record.uuid not in seen:
            seen.add(record.uuid)
            parent = self.by_uuid.get(record.parent)
            if parent is None or not parent.sidechain:
                break
            record = parent
        return record.uuid


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
    for name in ("id", "model"):
        if name in message and not isinstance(message[name], str):
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


def _turns(thread: _Thread, path: str, warnings: list[RunWarning]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The thread's messages as they were sent, and what the thread's records say beside them.

    A turn's content is its first record's list of blocks as read, or a list of its own when records are joined
    into it: a record's blocks are never changed, as a record may be in more than one run. Each reply (``calls``)
    is a stretch of its turn's content, ``content[start:end]`` (usually all of it), or ``content`` of its own when
    another record came between two of its records.
    """
    turns: list[dict[str, Any]] = []
    skipped: Counter[str] = Counter()
    transcript: list[dict[str, Any]] = []
    models: list[str] = []
    calls: list[dict[str, Any]] = []
    role = last_id = None  # the last turn's role, and the message.id of its last record
    content: list[dict[str, Any]] = []  # the last turn's content
    owned = False  # whether it is a list of the turn's own, not the blocks of its first record
    results = False  # whether it holds only tool results
    for record in thread.records:
        message = record.message
        kind = record.kind
        if message is None:
            subtype = record.value.get("subtype")
            skipped[f"{kind}/{subtype}" if isinstance(subtype, str) else kind] += 1
            continue
        transcript.append(record.value)
        blocks = record.blocks
        message_id = message.get("id")
        if role != kind:
            content = blocks
            turns.append({"role": kind, "content": content})
            role, owned, results = kind, False, record.results
        else:
            split_reply = kind == "assistant" and message_id is not None and message_id == last_id
            if not (split_reply or (kind == "user" and results and record.results)):
                warnings.append(
                    Where(path, record.line, "parentUuid").warning(
                        f"a {kind} message right after another: joined into one turn, as the Messages API would"
                    )
                )
            if owned:
                content += blocks
            else:
                content = turns[-1]["content"] = content + blocks
                owned = True
            results = results and record.results
        last_id = message_id
        model = message.get("model")
        if kind == "assistant" and not (type(model) is str and model.startswith("<")):
            # "<synthetic>" marks a reply Claude Code wrote itself, not a model
            if model is not None:
                models.append(model)
            if message_id is not None:
                call = calls[-1] if calls else None
                if call is not None and call["id"] == message_id and call["turn"] == len(turns) - 1:
                    if "content" in call:  # its records are not one stretch of the turn's content
                        call["content"] = call["content"] + blocks
                    elif call["end"] == len(content) - len(blocks):
                        call["end"] = len(content)
                    else:
                        call["content"] = content[call["start"] : call["end"]] + blocks
                    call["message"], call["line"] = message, record.line
                else:
                    end = len(content)
                    start = end - len(blocks)
                    calls.append(
                        {"id": message_id, "turn": len(turns) - 1, "start": start, "end": end, "message": message,
                         "line": record.line}
                    )  # fmt: skip
    notes: dict[str, Any] = {"transcript": transcript, "calls": calls}
    if skipped:
        notes["not_sent"] = dict(sorted(skipped.items()))
    if models:
        notes["models"] = sorted(set(models))
        notes["model"] = models[-1]
    return turns, notes


def _model_calls(
    calls: list[dict[str, Any]], turns: list[dict[str, Any]], path: str, warnings: list[RunWarning]
) -> list[dict[str, Any]]:
    """A model call record for each reply the thread holds (one per ``message.id``), with its usage as recorded.

    The reply's content is joined from its records; the step it is made for is the one its
    turn decided. A reply that is not a ``Message`` the run file can hold is named in a warning.
    """
    out = []
    for call in calls:
        content = call.get("content")
        if content is None:
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


def _first(records: list[_Record], name: str) -> Any:
    return next((r.value[name] for r in records if name in r.value), None)


def _run(
    transcript: _Transcript,
    thread: _Thread,
    run_id: str,
    summarise: Summariser | None,
    extra_notes: Mapping[str, Any],
) -> Run | None:
    path = transcript.path
    warnings: list[RunWarning] = []
    messages, notes = _turns(thread, path, warnings)
    if not messages:
        return None
    first = next(r for r in thread.records if r.kind in _MESSAGE_TYPES)
    if not messages[0]["content"]:
        raise Where(path, first.line, "message.content").error("the thread's first message is empty: no opening")
    if messages[0]["role"] != "user":
        raise Where(path, first.line, "parentUuid").error(
            "the thread starts with an assistant message: the request that it answered is not in this file"
        )
    source: dict[str, Any] = {"format": "claude-code", "path": path, "thread": thread.kind}
    for key, name in (
        ("sessionId", "session_id"),
        ("agentId", "agent_id"),
        ("version", "version"),
        ("cwd", "cwd"),
        ("gitBranch", "git_branch"),
    ):
        found = _first(thread.records, key)
        if found is not None:
            source[name] = found
    source.update(thread.notes)
    source.update(extra_notes)
    model = notes.pop("model", None)
    calls = _model_calls(notes.pop("calls"), messages, path, warnings)
    source.update(notes)
    source["note"] = TRANSCRIPT_NOTE
    root = thread.records[0].value
    if root.get("subtype") == "compact_boundary" or first.value.get("isCompactSummary"):
        source["compaction"] = {
            key: root[key] for key in ("compactMetadata", "logicalParentUuid", "timestamp") if key in root
        }
    where = Where(path, first.line, "turns")
    return conversation_run(
        messages,  # already in wire form: string content made a text block, each block checked as read
        where=where,
        run_id=run_id,
        source=source,
        request={"model": model} if model else None,
        calls=calls,
        summarise=summarise,
        warnings=warnings,
        replies_checked=True,  # each reply, by _model_calls
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
    """The runs of a Claude Code session transcript: the main thread first, then each sub-agent's.

    The main thread's run is the conversation since its last compaction (what the model was
    sent last); the conversation before each compaction is a run of its own (``source.thread``
    is ``compacted``), and a warning on the main run names it. Each sidechain (a sub-agent's
    thread) is a run whose ``run_id`` names the session and the agent; with ``subagents``,
    the files of ``<session-id>/subagents/`` beside the transcript are read too. Every run's
    ``source`` keeps the session's id, version, working directory and branch, the models
    that replied, and each message record's fields beside its content (``transcript``, with
    ``toolUseResult``); the session's ``summary`` titles, and the lines of the records that
    are in no thread (``file-history-snapshot``, ``last-prompt``, ...), are in the main run's
    source. Each
    reply is also a model call of its run (its ``message.id``, ``stop_reason`` and ``usage``
    as recorded), so ``frame.model_calls_frame`` shows the tokens each request really took.

    ``summarise`` gives each result a summary, for the view under the contract's window.
    Raises ``RunFileError`` naming the file, line and field of a record that cannot be read;
    what is read with a doubt (a cut-short last line, a ``parentUuid`` pointing to a record
    not in the file, branches the conversation left, a message right after another of its
    role) is a warning on the run.
    """
    # An import makes a run's worth of objects and frees almost none: the collector's passes
    # over them would cost more than the import (as for load_run).
    with paused(promoting=True):
        return _from_claude_code(os.fspath(path), summarise, subagents)


def _from_claude_code(name: str, summarise: Summariser | None, subagents: bool) -> list[Run]:
    files = [Path(name)] + (_subagent_files(Path(name)) if subagents else [])
    runs: list[Run] = []
    for number, file in enumerate(files):
        transcript = _Transcript(os.fspath(file))
        promote()  # its records, decoded JSON, are kept: no pass of the collector over them (see _fast.promote)
        threads = transcript.threads()
        session = str(_first(transcript.records, "sessionId") or file.stem)
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
        compacted = sidechains = 0
        file_runs: list[Run] = []
        for thread in threads:
            extra: dict[str, Any] = {}
            if thread.kind == "main":
                run_id = session
                if summaries:
                    extra["summaries"] = summaries
                if outside:
                    extra["outside_threads"] = outside
            elif thread.kind == "compacted":
                compacted += 1
                run_id = f"{session}/before-compaction-{compacted}"
            else:
                sidechains += 1
                agent = _first(thread.records, "agentId")
                run_id = f"{session}/agent-{agent}" if agent else f"{session}/sidechain-{sidechains}"
            run = _run(transcript, thread, run_id, summarise, extra)
            if run is not None:
                file_runs.append(run)
        if not file_runs:
            if number == 0:
                raise RunFileError(
                    transcript.path, 1, "no user or assistant message in the transcript: nothing was sent"
                )
            continue
        notes = list(transcript.warnings)
        before = [run.run_id for run in file_runs if run.header.get("source", {}).get("thread") == "compacted"]
        if before:
            notes.append(
                RunWarning(
                    line=1,
                    text=f"the conversation was compacted {len(before)} time(s): what was sent before is in the "
                    f"run(s) {', '.join(before)}",
                    path=transcript.path,
                )
            )
        head = file_runs[0]
        file_runs[0] = _with_warnings(head, notes)
        runs.extend(file_runs)
    return runs


def _with_warnings(run: Run, notes: list[RunWarning]) -> Run:
    return replace(run, warnings=(*notes, *run.warnings)) if notes else run
