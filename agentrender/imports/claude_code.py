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
- ``system`` records (``stop_hook_summary``, ``turn_duration``, ``api_error``, ...) and
  ``progress`` records sit in the tree but are Claude Code's own notes (counted in
  ``source.not_sent``); so are some ``attachment`` records, and Claude Code sends the others
  in words the transcript does not hold (counted in ``source.not_read`` and said,
  ``_Segment.attachment``); a ``compact_boundary`` system record starts the conversation anew
  after a compaction, with ``logicalParentUuid`` naming where the conversation before it
  ended. A ``local_command`` system record (a ``/cost`` and its output) is sent as a user
  message of its ``content``, as Claude Code's ``normalizeMessagesForAPI`` sends it, and the
  reply Claude Code writes itself for a failed request (``isApiErrorMessage``, model
  ``<synthetic>``) is never sent (``_Segment.failed``). Claude Code writes an ``api_error``
  record each time a request fails and it will try again: each run of them is said in a
  warning at its first (``_Retried``: how many times, the errors as written, how long Claude
  Code waited and how long passed, the step, and whether the request then went through, was
  given up on or got no reply), and the reply that went through after them keeps them as
  its model call's ``retried`` tries (as a recording's: each try's error as the record wrote
  it, with no time, which the records do not hold), so the frames count its tries and
  ``agentrender show`` names its step. A request given up on has no model call to hold them;
  the warning is all that says them;
- ``summary`` records (a title for the conversation ending at ``leafUuid``),
  ``file-history-snapshot``, ``queue-operation``, ``last-prompt`` and others carry no uuid and
  are not part of any conversation; a message the user queued while the model worked that
  Claude Code took from the queue to send (``remove``), and that no message or attachment
  holds, is counted in ``source.not_read`` and said (``_Transcript.queued_unsent``);
- a sub-agent's thread has ``isSidechain: true`` (and an ``agentId``); older versions write it
  in the session's file, 2.0 beside it (``agent-<id>.jsonl``, naming the session in
  ``sessionId``), newer ones in ``<session-id>/subagents/agent-<id>.jsonl``, and the
  agents of a dynamic workflow (launched by the ``Workflow`` tool, whose result names the
  workflow's run id) one folder deeper, in ``subagents/workflows/<run id>/agent-<id>.jsonl``;
  ``from_claude_code`` reads them too, and beside each its ``agent-<id>.meta.json`` (the
  agent's type, description and the id of the tool use that started it).

Claude Code run headless writes the same messages to its output instead (``claude -p --output-format stream-json
--verbose``, the messages the Agent SDK's ``query()`` yields, claude-code-action's ``execution_file``: a JSON array of
them): each with ``session_id`` and ``parent_tool_use_id`` (the tool use that started the sub-agent whose message it
is, null for the main thread's) and no ``parentUuid``, between an ``init`` system message and a ``result`` per prompt.
``from_claude_code`` reads it as a transcript whose threads were written one message after the other (``_Stream``):
its runs are a ``claude-code-stream``'s, whose ``source`` keeps the ``init`` and ``result`` messages whole, and whose
main run ends as its last ``result`` says.

Each thread is read by following ``parentUuid`` from its last record back to its root (the
record order of the file is not the conversation's: a rewound conversation leaves its
abandoned branch in the file), then read as the requests it made: a reply is read whole from
every record of its ``message.id`` when its first record is met, and its results are taken
from the records that answer its tool uses, wherever they hang (see ``_Transcript.requests``).
Every look-up is a dict's, so an import takes time in proportion to the file. Lines are decoded
by msgspec. A session being written is read a growth at a time by ``GrowingSession``, which
keeps the records read and reads again only the session's last turn.
"""

from __future__ import annotations

import json
import os
import re
import zlib
from bisect import bisect_left
from collections import Counter
from collections.abc import ItemsView, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from itertools import chain, islice
from operator import attrgetter
from pathlib import Path
from typing import Any, Generic, NamedTuple, TypeGuard, TypeVar, overload

import msgspec

from agentrender._json import MAX_DEPTH, NestingError, check_depth, decode_failure, too_deep, type_name
from agentrender._types import Step, check_block
from agentrender._words import a_noun, elapsed, number_ranges, plural, shown
from agentrender.imports.conversation import (
    Summariser,
    Where,
    checked_run,
    file_bytes,
    is_local_command,
    plain_blocks,
    unanswered_warnings,
    with_stop_reasons,
)
from agentrender.imports.shapes import STREAM_TYPES, SUB_AGENT_META, looks_like_claude_code_stream
from agentrender.runfile import ModelCall, Run, RunFileError, RunWarning, RunWarnings
from agentrender.runfile.imported import ConversationSteps
from agentrender.runfile.lines import GrowingFile, name_ends, open_inflated
from agentrender.runfile.replies import check_reply
from agentrender.runfile.schema import is_count, is_timestamp, parse_timestamp, read_record

__all__ = [
    "STREAM_NOTE",
    "STREAM_PROMPT",
    "TRANSCRIPT_NOTE",
    "GrowingSession",
    "from_claude_code",
    "read_with_session",
    "without_sub_agents",
]

TRANSCRIPT_NOTE = (
    "a Claude Code transcript holds the conversation's turns; the system prompt, the tool definitions and "
    "the reminders Claude Code adds to a request as it sends it are not in it"
)
"""What an imported session's ``source.note`` says of what the transcript cannot show."""

STREAM_NOTE = (
    "Claude Code's headless output (claude -p --output-format stream-json --verbose, the Agent SDK's messages, "
    "claude-code-action's execution_file) holds the conversation's messages; the system prompt, the tool "
    "definitions (its init message names the tools only: source.tools), the reminders Claude Code adds to a request "
    "as it sends it, and the prompt (unless it was replayed: --replay-user-messages) are not in it"
)
"""What a run imported from Claude Code's headless output says in ``source.note`` of what that output cannot show."""

STREAM_PROMPT = (
    "[the prompt is not in this file: Claude Code writes it into its headless output only with --replay-user-messages]"
)
"""The opening a conversation of Claude Code's headless output is read with when its first message is a reply (the
prompt given to ``claude -p`` or ``query()``, which the output holds only when replayed), said in a warning."""

_MSGSPEC = msgspec.json.Decoder()


def _decode(line: bytes) -> Any:
    """``json.loads`` of one line, in msgspec's C decoder (which checks the UTF-8 as it decodes), refused past
    ``MAX_DEPTH`` levels of nesting as every reader refuses it (``NestingError``, naming the field).

    A line msgspec refuses (not UTF-8, not JSON, or JSON it does not take: a lone surrogate escaped, ``NaN``)
    is decoded as UTF-8 text (``UnicodeDecodeError`` where it is not) and by ``json.loads``, which keeps what it
    can read and words what it cannot. The depth is measured on the decoded value, and only for a line of more
    brackets than the limit (the text's own scan, ``check_depth``, costs milliseconds for a line of 30 KiB of code).
    """
    try:
        try:
            value = _MSGSPEC.decode(line)
        except msgspec.DecodeError:
            value = json.loads(line.decode("utf-8"))
    except RecursionError:
        check_depth(line.decode("utf-8"))  # raises, naming the field
        raise NestingError() from None
    if line.count(b"[") + line.count(b"{") > MAX_DEPTH and too_deep(value):
        check_depth(line.decode("utf-8"))  # raises, naming the field
    return value


T = TypeVar("T")

_MESSAGE_TYPES = ("user", "assistant")
# Fields whose type is checked on every record that has them; the rest are kept as they are.
_STRING_FIELDS = ("uuid", "sessionId", "agentId", "subtype")
_OPTIONAL_STRING_FIELDS = ("parentUuid", "logicalParentUuid", "leafUuid")
_BOOL_FIELDS = ("isSidechain", "isMeta", "isCompactSummary")


class _Record(msgspec.Struct, gc=False):
    """One line of a transcript: its number and the record it holds (checked as read), with the fields the threads
    are followed by read once (``_record`` makes it).

    A message record is split as it is read, once: ``value`` becomes what a run's ``source.transcript`` keeps of it
    (its fields as written, then ``line``, then ``message`` without its content), ``blocks`` its content as the API
    has it (text as one text block). Nothing is copied: a record on two threads is the same in both runs. Not
    tracked by the collector (``gc=False``: it refers to the record's values, which never refer back to it): a
    session's records are most of what an import keeps while it reads, and each collection would walk them again.
    """

    line: int
    value: dict[str, Any]
    uuid: str
    parent: str | None
    kind: str
    """The record's ``type``; ``"user"`` for a local command's ``system`` record, which is sent as a user message."""
    sidechain: bool
    message: dict[str, Any] | None
    """A message record's ``message``, without its content (``_LOCAL_COMMAND`` for a local command's record); ``None``
    for any other record."""
    blocks: list[dict[str, Any]]
    results: bool
    """Whether the record is a message of tool results only (one of parallel results, if it is a user's)."""
    message_id: str | None = None
    """An assistant record's ``message.id``, read once: the reply it holds a part of (``_Index``); ``None`` for any
    other record, or one with no id."""
    more: _Record | None = None
    """The next record of the same reply (``_Index``), in file order: ``None`` for the last, or any other record."""
    logical: str | None = None
    """A ``compact_boundary`` of Claude Code's headless output (``_Stream``): the uuid of the main thread's last
    message before it, which a transcript's boundary names in ``logicalParentUuid``; ``None`` for any other record."""


def _record(line: int, value: dict[str, Any]) -> _Record:
    """The ``_Record`` of ``value``, read from ``line`` and checked (``_checked``): its types need no conversion."""
    get = value.get
    kind: str = value["type"]
    uuid, parent, sidechain = get("uuid") or "", get("parentUuid"), get("isSidechain") or False
    if kind != "user" and kind != "assistant":
        if kind == "system" and get("subtype") == "local_command" and type(content := get("content")) is str:
            # a local command (/cost, /buddy ...) and its output: Claude Code sends each as a user message of its text
            value["line"] = line
            return _Record(line, value, uuid, parent, "user", sidechain, _LOCAL_COMMAND,
                           [{"type": "text", "text": content}], False)  # fmt: skip
        return _Record(line, value, uuid, parent, kind, sidechain, None, _NO_BLOCKS, False)
    message = value.pop("message")
    content = message.pop("content")
    return _message_record(line, value, uuid, parent, kind, sidechain, message, content)


def _message_record(
    line: int, value: dict[str, Any], uuid: str, parent: str | None, kind: str, sidechain: bool,
    message: dict[str, Any], content: Any,
) -> _Record:  # fmt: skip
    """The ``_Record`` of a user or assistant record ``value``, its ``message`` and that message's ``content`` taken out
    of it: ``value`` gets ``line``, then ``message`` back without its content, in place (as a field named line of the
    record's own would be)."""
    value["line"] = line
    value["message"] = message
    blocks = [{"type": "text", "text": content}] if type(content) is str else content
    results = (
        bool(blocks)
        and blocks[0]["type"] == "tool_result"
        and blocks[-1]["type"] == "tool_result"  # results and text beside them are told apart here, with no generator
        and (len(blocks) <= 2 or all(block["type"] == "tool_result" for block in blocks))
    )
    message_id = message.get("id") if kind == "assistant" else None
    return _Record(line, value, uuid, parent, kind, sidechain, message, blocks, results, message_id)


def _plain_record(line: int, value: Any) -> _Record | None:
    """``_record(line, value)`` for a record every field of which ``_checked`` would pass, found by a quick look;
    ``None`` leaves it to ``_checked``, which says what is wrong, if anything is (then ``_record`` reads it).

    The fields nearly every record has are looked at one by one, the others only when the record has one; each is
    read once, for the look and for the record.
    """
    if type(value) is not dict:
        return None
    get = value.get
    kind, uuid, session, parent = get("type"), get("uuid", "-"), get("sessionId", "-"), get("parentUuid")
    if not (type(kind) is type(uuid) is type(session) is str and uuid and session):
        return None
    sidechain = get("isSidechain", False)
    if (parent is not None and type(parent) is not str) or type(sidechain) is not bool:
        return None
    if not _RARE_FIELDS.isdisjoint(value) and not _plain_rare_fields(value):
        return None
    if kind != "user" and kind != "assistant":
        if kind == "summary" and type(get("summary", "")) is not str:
            return None
        return _record(line, value)
    message = get("message")
    if "uuid" not in value or type(message) is not dict or message.get("role") != kind:
        return None
    if type(message.get("id", "")) is not str or type(message.get("model", "")) is not str:
        return None
    content = message.get("content")
    if type(content) is not str and not (type(content) is list and plain_blocks(content)):
        return None
    del value["message"], message["content"]
    return _message_record(line, value, uuid, parent, kind, sidechain, message, content)


_LEADING_SPACE = re.compile(rb"[ \t\r\n]*+")
"""The white space a file's first value comes after."""

_BUDGETS = {
    "error_max_turns": "its turn limit (--max-turns)",
    "error_max_budget_usd": "its spending limit (--max-budget-usd)",
    "error_max_structured_output_retries": "its limit of tries at the structured output it was asked for",
}
"""The ``subtype`` of a ``result`` that ends a session cut short by a budget it was given, with that budget."""


class _Stream:
    """What Claude Code's headless output holds beside its messages, read as its records are (``record``): each
    message as a transcript's record would hold it, the records of a thread linked in the order they were written
    (the output writes no ``parentUuid``: a thread is written one message after the other), a sub-agent's thread being
    the messages that name the tool use that started it (``parent_tool_use_id``; the main thread's name none).

    The output is the messages the Agent SDK yields (``claude-agent-sdk``'s ``parse_message``): an ``init`` system
    message (the session, its model, its tools' names, Claude Code's version, its working directory), the ``user``
    and ``assistant`` messages (a reply written one content block a message, sharing the reply's ``message.id``, as a
    transcript's), system messages of other subtypes (a ``compact_boundary`` starts the conversation anew after a
    compaction, as a transcript's), the deltas of ``--include-partial-messages`` (``stream_event``), and a ``result``
    at the end of each prompt's turn (its ``subtype``, ``num_turns``, ``total_cost_usd``, ``usage``,
    ``permission_denials``, ...)."""

    def __init__(self, form: str) -> None:
        self.form = form
        """``stream-json`` (a message a line) or ``execution_file`` (claude-code-action's JSON array)."""
        self.session: str | None = None
        """The ``session_id`` of the first message that names one."""
        self.init: dict[str, Any] | None = None
        """The first ``init`` system message, as written, with its ``line``."""
        self.results: list[dict[str, Any]] = []
        """The ``result`` messages, as written, each with its ``line``."""
        self.unknown: dict[str, list[int]] = {}
        """The lines of the messages of a type the output is not known to write (``STREAM_TYPES``), by type."""
        self._last: dict[str | None, str] = {}
        """The uuid of each thread's last record, by the tool use that started its sub-agent (``None``: the main
        thread's)."""

    def record(self, value: Any, where: Where) -> _Record:
        """The ``_Record`` of the message ``value``, found at ``where``, checked: a ``RunFileError`` names the field of
        what is wrong. A message of no thread (``init``, ``result``, a task's progress, ...) is in none, counted by its
        type (and subtype) as a transcript's records in no thread are."""
        line = where.line
        if type(value) is not dict:
            raise where.error(f"expected a message of Claude Code's output (a JSON object), got {type_name(value)}")
        kind = value.get("type")
        if not isinstance(kind, str) or not kind:
            raise where.at("type").error(f"expected the message's type, got {shown(kind)}")
        session = value.get("session_id")
        if session is not None and not isinstance(session, str):
            raise where.at("session_id").error(f"expected the session's id, got {type_name(session)}")
        if self.session is None and session:
            self.session = session
        if kind == "user" or kind == "assistant":
            return self._message(value, kind, where)
        if kind == "system":
            subtype = value.get("subtype")
            if not isinstance(subtype, str) or not subtype:
                raise where.at("subtype").error(f"expected the system message's subtype, got {shown(subtype)}")
            if subtype == "compact_boundary":
                uuid = self._uuid(value, where)
                boundary = _Record(line, value, uuid, None, kind, False, None, _NO_BLOCKS, False,
                                   logical=self._last.get(None))  # fmt: skip
                self._last[None] = uuid
                return boundary
            if subtype == "init" and self.init is None:
                _check_init(value, where)
                value["line"] = line
                self.init = value
            kind = f"system/{subtype}"
        elif kind == "result":
            _check_result(value, where)
            value["line"] = line
            self.results.append(value)
        elif kind not in STREAM_TYPES:
            self.unknown.setdefault(kind, []).append(line)
        return _Record(line, value, "", None, kind, False, None, _NO_BLOCKS, False)

    def _message(self, value: dict[str, Any], kind: str, where: Where) -> _Record:
        thread = value.get("parent_tool_use_id")
        if thread is not None and (not isinstance(thread, str) or not thread):
            raise where.at("parent_tool_use_id").error(
                f"expected the id of the tool use that started the sub-agent, or null, got {shown(thread)}"
            )
        message = value.get("message")
        # the SDK's messages may leave the role out: their type says it
        _check_message({"role": kind, **message} if isinstance(message, dict) else message, kind, where.at("message"))
        assert isinstance(message, dict)  # as _check_message found it
        uuid = self._uuid(value, where)
        parent = self._last.get(thread)
        self._last[thread] = uuid
        del value["message"]
        content = message.pop("content")
        return _message_record(where.line, value, uuid, parent, kind, thread is not None, message, content)

    @staticmethod
    def _uuid(value: dict[str, Any], where: Where) -> str:
        """The record's ``uuid``, or for a message that has none (older versions, the action's) one made from its
        line (``line-N``, ``[3]`` of an array)."""
        uuid = value.get("uuid")
        if uuid is None:
            return f"line-{where.line}" if not where.field else f"item-{where.field.strip('[]')}"
        if not isinstance(uuid, str) or not uuid:
            raise where.at("uuid").error(f"expected a non-empty string, got {shown(uuid)}")
        return uuid

    def notes(self, kind: str) -> dict[str, Any]:
        """What the ``source`` of a run of the output's thread of ``kind`` says of the session: its id, Claude Code's
        version, its working directory, its model and its tools' names as its ``init`` says them; the main thread's
        run keeps the ``init`` and the ``result`` messages whole too."""
        notes: dict[str, Any] = {"written_as": self.form}
        init = self.init or {}
        for key, name in (("session_id", "session_id"), ("claude_code_version", "version"), ("cwd", "cwd"),
                          ("model", "model"), ("permissionMode", "permission_mode")):  # fmt: skip
            if isinstance(init.get(key), str):
                notes[name] = init[key]
        if "session_id" not in notes and self.session:
            notes["session_id"] = self.session
        if isinstance(init.get("tools"), list):
            notes["tools"] = list(init["tools"])
        if kind == "main":
            if self.init is not None:
                notes["init"] = self.init
            if self.results:
                notes["results"] = list(self.results)
        return notes

    def end(self) -> dict[str, Any] | None:
        """The main run's end, as the output's last ``result`` says it: ``completed`` on a ``success`` that is no
        error, ``stopped`` when cut short by a budget (``_BUDGETS``: ``error_max_turns`` is its turn limit), else
        ``failed`` (``error_during_execution``, an API error's ``success`` with ``is_error``), with the errors it
        names; its reason says the result's subtype, turns, cost and line. ``None`` with no result, or a last one
        that names no subtype (claude-code-action's sample leaves it out): the conversation says how it ended."""
        result = self.results[-1] if self.results else {}
        subtype = result.get("subtype")
        if subtype is None:
            return None
        facts = [f"result {subtype}"]
        turns = result.get("num_turns")
        if type(turns) is int:  # a count, as _check_result found it
            facts.append(plural(turns, "turn"))
        cost = result.get("total_cost_usd")
        if isinstance(cost, int | float) and not isinstance(cost, bool):
            facts.append(f"${cost:,.4f}")
        if isinstance(result.get("permission_denials"), list) and result["permission_denials"]:
            facts.append(plural(len(result["permission_denials"]), "permission denial"))
        said = f"{', '.join(facts)} (line {result['line']})"
        end: dict[str, Any] = {"type": "end"}
        if subtype == "success" and result.get("is_error") is not True:
            end.update(status="completed", reason=f"the session's result: {said}")
        elif subtype in _BUDGETS:
            end.update(status="stopped", reason=f"cut short by {_BUDGETS[subtype]}: {said}")
        else:
            end.update(status="failed", reason=f"the session's result: {said}")
            errors = result.get("errors")
            text = result.get("result")
            if isinstance(errors, list) and errors:
                end["error"] = "; ".join(str(error) for error in errors)
            elif isinstance(text, str) and text:
                end["error"] = text
        if isinstance(stamp := result.get("timestamp"), str) and is_timestamp(stamp):
            end["at"] = stamp
        return end


def _check_init(value: dict[str, Any], where: Where) -> None:
    """Refuse an ``init`` message whose fields a run's source says are not what Claude Code writes."""
    for key in ("claude_code_version", "cwd", "model"):
        if value.get(key) is not None and not isinstance(value[key], str):
            raise where.at(key).error(f"expected text, got {type_name(value[key])}")
    tools = value.get("tools")
    if tools is not None and not (isinstance(tools, list) and all(isinstance(name, str) for name in tools)):
        raise where.at("tools").error(f"expected the tools' names (a list of text), got {shown(tools)}")


def _check_result(value: dict[str, Any], where: Where) -> None:
    """Refuse a ``result`` message whose fields the run's end says are not what Claude Code writes."""
    subtype = value.get("subtype")
    if subtype is not None and (not isinstance(subtype, str) or not subtype):
        raise where.at("subtype").error(f"expected the result's subtype (success, ...), got {shown(subtype)}")
    if value.get("num_turns") is not None and not is_count(value["num_turns"]):
        raise where.at("num_turns").error(f"expected a count, got {shown(value['num_turns'])}")
    cost = value.get("total_cost_usd")
    if cost is not None and (not isinstance(cost, int | float) or isinstance(cost, bool) or cost < 0):
        raise where.at("total_cost_usd").error(f"expected an amount in US dollars, got {shown(cost)}")
    if value.get("is_error") is not None and not isinstance(value["is_error"], bool):
        raise where.at("is_error").error(f"expected true or false, got {shown(value['is_error'])}")


_NO_BLOCKS: list[dict[str, Any]] = []
"""The blocks of a record that is not a message (never changed)."""
_LOCAL_COMMAND: dict[str, Any] = {"role": "user"}
"""The message a ``system`` record of a local command is read as (never changed): its ``content`` is the text of a user
message, as Claude Code's ``normalizeMessagesForAPI`` sends it."""
_UUID = attrgetter("uuid")


class _Index:
    """Where each reply's records and each tool use's results are, by id.

    One dict entry a reply and a result, and no container made a record: a reply's records are linked one to the
    next (``_Record.more``), a result's first record is the entry and only a second one (rare: a retried tool use)
    makes a list. A tuple key and a list a reply and a result were a session's worth of objects the collector
    tracks: on 10,000 turns, 15,000 of them, and the full collection they brought on.
    """

    def __init__(self) -> None:
        self.replies: tuple[dict[Any, _Record], dict[Any, _Record]] = ({}, {})
        """Each reply's first record by its ``message.id``: the main thread's, then the sub-agents'."""
        self._last: tuple[dict[Any, _Record], dict[Any, _Record]] = ({}, {})
        """Each reply's last record, to link the next to."""
        self.results: dict[Any, _Record] = {}
        """The first user record that holds a result, by the id of the tool use it answers."""
        self.more_results: dict[Any, list[_Record]] = {}
        """The records after the first that hold a result of the same tool use, in file order."""

    def add_reply(self, record: _Record, message_id: str) -> None:
        first = self.replies[record.sidechain].setdefault(message_id, record)
        if first is not record:
            self._last[record.sidechain][message_id].more = record
        self._last[record.sidechain][message_id] = record

    def reply(self, sidechain: bool, message_id: Any) -> list[_Record]:
        """The records of a reply, in file order (none: not a reply of the file's)."""
        members = []
        record = self.replies[sidechain].get(message_id)
        while record is not None:
            members.append(record)
            record = record.more
        return members

    def add_result(self, record: _Record, use_id: Any) -> None:
        if self.results.setdefault(use_id, record) is not record:
            self.more_results.setdefault(use_id, []).append(record)

    def answers(self, use_id: Any) -> list[_Record]:
        """The records that hold a result of the tool use ``use_id``, in file order."""
        first = self.results.get(use_id)
        if first is None:
            return []
        more = self.more_results.get(use_id)
        return [first] if more is None else [first, *more]


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

    def __init__(self, path: str, records: list[_Record] | None = None, *, agent: bool = False) -> None:
        self.path = path
        self.id_prefix = _id_prefix(path) if agent else ""
        """What begins each id ``_named`` makes: nothing in the file read first (the session's), the file's name in a
        sub-agent's file read with it, whose records a thread may read with the session's (``_forks``)."""
        self.warnings: list[RunWarning] = RunWarnings()  # alike warnings counted as made
        """What reading the records found (a line cut short, a uuid written twice), in line order."""
        self.found: list[RunWarning] = RunWarnings()
        """What reading the threads found (``threads``): made again at each reading."""
        self.records: list[_Record] = []
        self.by_uuid: dict[str, _Record] = {}
        """Each uuid's first record, in file order."""
        self.outside: list[_Record] = []
        """The records with no uuid, in no thread (titles, file backups, the prompt queue, ...)."""
        self.index = _Index()
        """Each reply's records and each tool use's results."""
        self.session: str | None = None
        """The session's id: the ``sessionId`` of the first record that has one (``None``: none has)."""
        self.summaries: list[dict[str, Any]] = []
        """The session's titles (``summary`` records): each's line, text and the record it names."""
        self.outside_lines: dict[str, list[int]] = {}
        """The lines of the other records in no thread, by type: Claude Code's own bookkeeping (file backups, the
        prompt queue, ...)."""
        self.left: list[_Record] = []
        """The message records in no thread (on branches the conversation left), as ``threads`` found them."""
        self.marking = False
        """Whether the main thread is read so that it can be read on as the file grows (``_Requests``)."""
        self.main: _Requests | None = None
        """The reading of the main thread's last part, as ``threads`` left it."""
        self.parts = 0
        """How many parts the main thread has (more than one when it was compacted), as ``threads`` found."""
        self.chains: list[list[_Record]] = []
        """The main thread's chains, oldest first (one a part), as ``threads`` found them."""
        self.base: _Transcript | None = None
        """For a sub-agent's file: the session's own transcript, whose records a forked agent's thread goes on from
        (``_forks``)."""
        self.revealed: dict[str, list[_Record]] = {}
        """For the session's own file: the messages the main thread sent that this file does not hold, found in the
        file of an agent forked from it (``sent_by_session``), by the uuid of the record each was sent after."""
        self.revealed_in: dict[str, str] = {}
        """The file each of those messages was found in, by its uuid."""
        self.queue: list[_Record] = []
        """The records of the prompt queue (``queue-operation``), in file order: what the user typed while the model
        worked, and what became of it (``queued_unsent``)."""
        self.sent_texts: set[str] = set()
        """The texts of the user messages and the queued prompts of ``queued_command`` attachments after the first
        ``queue-operation``: a queued prompt among them is in the transcript as it was sent."""
        self.made_ids: dict[str, tuple[int, list[str]]] = {}
        """The ids ``_named`` made for tool uses that had none, by the uuid of their record: its line, and the ids."""
        self.answering: dict[str, tuple[str, int, int]] = {}
        """Each record of results only that ``_named`` gave made ids to, by its uuid: the uuid of the record of the
        tool uses they answer, how many of those uses it and the records of results it hangs from answer, and the
        line of the first of those records (a chain of parallel results, each hanging from the one before)."""
        self.short: dict[str, tuple[Where, str]] = {}
        """The records of results with no id that answer fewer of the tool uses with no id of the record they hang
        from (themselves, or with the records of results they hang from) than it holds, and that no record of results
        hangs from yet, by uuid: where, and why which use they answer cannot be told (``threads`` refuses them)."""
        self.named: dict[int, RunWarning] = {}
        """The warning of each line ``_named`` gave ids to, until ``add`` takes its record (a line checked again, as
        ``_read_lines`` checks them, gives the same warning)."""
        self.stream: _Stream | None = None
        """For Claude Code's headless output (``_read_stream``): what it holds beside its messages; ``None`` for a
        transcript."""
        self.add(self._read() if records is None else records)

    def add(self, records: list[_Record]) -> None:
        """Index ``records``, read after those already held (a followed file's new lines)."""
        self.records.extend(records)
        setdefault = self.by_uuid.setdefault
        index = self.index
        for record in records:
            if self.named and (named := self.named.pop(record.line, None)) is not None:
                self.warnings.append(named)
            if self.session is None and "sessionId" in record.value:
                self.session = record.value["sessionId"] or ""
            if record.kind == "summary":
                value = record.value
                self.summaries.append(
                    {"line": record.line, "summary": value.get("summary", ""), "leafUuid": value.get("leafUuid")}
                )
            if not record.uuid:
                self.outside.append(record)
                if record.kind != "summary":
                    self.outside_lines.setdefault(record.kind, []).append(record.line)
                if record.kind == "queue-operation":
                    self.queue.append(record)
            elif (first := setdefault(record.uuid, record)) is not record:
                self.warnings.append(
                    Where(self.path, record.line, "uuid").warning(
                        f"the uuid of line {first.line} again: this record is left out of the threads"
                    )
                )
            elif record.message_id is not None:
                index.add_reply(record, record.message_id)
            elif record.kind == "user":
                for block in record.blocks:
                    if block["type"] == "tool_result":
                        index.add_result(record, block.get("tool_use_id"))
                    elif self.queue and block["type"] == "text" and isinstance(text := block.get("text"), str):
                        self.sent_texts.add(text)
            elif self.queue and record.kind == "attachment":
                attachment = record.value.get("attachment")
                if isinstance(attachment, Mapping) and attachment.get("type") == "queued_command":
                    self.sent_texts.add(_prompt_text(attachment.get("prompt")))

    def queued_unsent(self) -> list[tuple[_Record, int]]:
        """The messages the user queued while the model worked (``enqueue``) that Claude Code took from the queue
        (``remove``: to send with its next request, as a user message in words of its own) and that no user message
        or ``queued_command`` attachment of the transcript holds, each with the line that took it: the model saw
        them, and no view can show them. Older versions wrote no attachment for such a message.

        A prompt that a message holds left the queue as sent, whether or not an operation says so (2.1.39 wrote
        none); of the others, each ``remove`` or ``dequeue`` takes the one it names, else the oldest, and ``popAll``
        (the user took them back to edit) all of them.
        """
        pending: list[_Record] = []
        found: list[tuple[_Record, int]] = []
        for record in self.queue:
            value = record.value
            operation, content = value.get("operation"), value.get("content")
            if operation == "enqueue":
                if isinstance(content, str) and content.strip() and content not in self.sent_texts:
                    pending.append(record)
            elif operation in ("remove", "dequeue") and pending:
                named = [at for at, queued in enumerate(pending) if queued.value["content"] == content]
                taken = pending.pop(named[0] if named else 0)
                if operation == "remove":
                    found.append((taken, record.line))
            elif operation == "popAll":
                pending.clear()
        return found

    def trailing(self) -> dict[str, int]:
        """The records after the main thread's last message that hang from it, counted by ``_note_name``: Claude
        Code's notes of the turn that ended (a stop hook's summary, the turn's duration), and what it would have sent
        with a next request that never came (an attachment). No thread reads them, and none was sent."""
        return dict(Counter(map(_note_name, self._trailing()[1])))

    def _trailing(self) -> tuple[_Record | None, list[_Record]]:
        """The main thread's last message (its ``threads()`` leaf), and the records after it that hang from it, in
        file order."""
        after: list[_Record] = []
        for record in reversed(self.by_uuid.values()):  # each uuid's first record, from the file's end
            if record.sidechain:
                continue
            if record.message is not None:
                last, reached = record, {record.uuid}
                break
            after.append(record)
        else:
            return None, []
        hanging: list[_Record] = []
        for record in reversed(after):
            if record.parent in reached:
                reached.add(record.uuid)
                hanging.append(record)
        return last, hanging

    def failed_last(self) -> list[RunWarning]:
        """The warning for the ``api_error`` records after the main thread's last message (``trailing``): its next
        request failed, and the file ends before any reply to it."""
        last, after = self._trailing()
        failures = tuple((record, self.path) for record in after if _note_name(record) == "system/api_error")
        return [_Retried(failures, 0, last, "trailing").warning(0)] if failures else []

    def outside_notes(self) -> dict[str, Any]:
        """What the main run's ``source`` says of the records in no thread: the titles, the lines of the others by
        type, the records after its last message (``trailing``: not sent), and how many queued messages were sent
        that the transcript does not hold (``queued_unsent``)."""
        notes: dict[str, Any] = {}
        if self.summaries:
            notes["summaries"] = list(self.summaries)
        if self.outside_lines:
            notes["outside_threads"] = {kind: list(lines) for kind, lines in self.outside_lines.items()}
        if trailing := self.trailing():
            notes["not_sent"] = trailing
        if unsent := self.queued_unsent():
            notes["not_read"] = {"queue-operation/enqueue": len(unsent)}
        return notes

    def all_warnings(self) -> list[RunWarning]:
        """What reading the records and then the threads found, in that order, then the queued messages sent that
        the transcript does not hold (the first run's first warnings)."""
        left = [_left_warning(self.path, self.left)] if self.left else []
        queued = [
            Where(self.path, record.line, "content").warning(
                f"a message the user queued while the model worked ({record.value['content'][:100]!r}), taken from "
                f"the queue at line {taken}: Claude Code sends such a message with its next request, as a user "
                "message in words of its own, and no message or attachment of the transcript holds it: not read into "
                "the turns, so the views from then on lack it"
            )
            for record, taken in self.queued_unsent()
        ]
        return [*self.warnings, *self.found, *self.failed_last(), *queued, *left]

    def _read(self) -> list[_Record]:
        try:
            data = file_bytes(self.path, self.warnings)  # a session archived with gzip reads as it is
        except OSError as error:
            raise RunFileError(self.path, 0, f"cannot read the file ({error.strerror or error})") from None
        data = data.removeprefix(b"\xef\xbb\xbf")  # a UTF-8 byte order mark an editor wrote, as every importer reads it
        start = _LEADING_SPACE.match(data).end()  # type: ignore[union-attr]  # it matches any bytes
        if data[start : start + 1] == b"[":
            return self._read_array(data)  # claude-code-action's execution_file: no transcript is a JSON array
        records: list[_Record] = []
        append = records.append
        for number, raw in enumerate(data.split(b"\n"), start=1):
            if not raw.strip():  # ASCII white space only, as JSON has it
                continue
            try:
                value = _decode(raw)
            except (ValueError, RecursionError):
                return self._read_lines(data)  # line by line, for the error (or the last line cut short)
            if not records and looks_like_claude_code_stream(value):
                return self._read_stream(data)
            append(_plain_record(number, value) or _record(number, self._checked(value, number)))
        if not records:
            raise RunFileError(self.path, 1, "the file holds no transcript record")
        return records

    def _read_lines(self, data: bytes) -> list[_Record]:
        records: list[_Record] = []
        for number, value in self._values(data):
            if not records and looks_like_claude_code_stream(value):
                return self._read_stream(data)
            records.append(_plain_record(number, value) or _record(number, self._checked(value, number)))
        if not records:
            raise RunFileError(self.path, 1, "the file holds no transcript record")
        return records

    def _values(self, data: bytes) -> Iterator[tuple[int, Any]]:
        """Each line's number and JSON value, line by line: a ``RunFileError`` names a line that is not JSON, but for
        the last, which the writer may have stopped in the middle of (said in a warning, and left out)."""
        lines = data.split(b"\n")
        for number, raw in enumerate(lines, start=1):
            if not raw.strip():
                continue
            last = number == len(lines)  # no newline after it: the writer may have stopped mid-line
            try:
                value = _decode(raw)
            except UnicodeDecodeError as error:
                if last:
                    self._cut(number)
                    return
                raise RunFileError(
                    self.path, number, f"not UTF-8 text ({error.reason} at byte {error.start})"
                ) from None
            except (ValueError, RecursionError) as error:
                if last:
                    self._cut(number)
                    return
                raise RunFileError(self.path, number, decode_failure(error)) from None
            yield number, value

    def _read_stream(self, data: bytes) -> list[_Record]:
        """The records of Claude Code's headless output written one message a line (``stream-json``, the Agent SDK's
        messages), read as a transcript's (``_Stream``)."""
        stream = self.stream = _Stream("stream-json")
        records = [stream.record(value, Where(self.path, number)) for number, value in self._values(data)]
        return self._streamed(records)

    def _read_array(self, data: bytes) -> list[_Record]:
        """The records of claude-code-action's ``execution_file``: the messages of Claude Code's headless output as
        one JSON array, which the action writes indented by two spaces (``JSON.stringify(messages, null, 2)``), each
        message from a line of its own that says ``  {``: that line is its record's. An array written otherwise has
        its messages named by their place in it (``[3]``) at line 1."""
        try:
            items = _decode(data)
        except UnicodeDecodeError as error:
            raise RunFileError(self.path, 1, f"not UTF-8 text ({error.reason} at byte {error.start})") from None
        except (ValueError, RecursionError) as error:
            line = error.lineno if isinstance(error, json.JSONDecodeError) else 1
            raise RunFileError(self.path, line, decode_failure(error)) from None
        if not isinstance(items, list) or not items or not looks_like_claude_code_stream(items[0]):
            first = items[0] if isinstance(items, list) and items else items
            raise RunFileError(
                self.path, 1, f"expected Claude Code's messages (a JSON array of them), got {type_name(first)}"
            )
        starts = [number for number, line in enumerate(data.split(b"\n"), start=1) if line.rstrip(b"\r") == b"  {"]
        lines = starts if len(starts) == len(items) else [1] * len(items)
        stream = self.stream = _Stream("execution_file")
        records = [
            stream.record(item, Where(self.path, line, f"[{at}]"))
            for at, (line, item) in enumerate(zip(lines, items, strict=True))
        ]
        return self._streamed(records)

    def _streamed(self, records: list[_Record]) -> list[_Record]:
        """``records``, read from Claude Code's headless output, once the session it names is taken and what it holds
        that agentrender does not know is said."""
        stream = self.stream
        assert stream is not None
        self.session = stream.session
        for kind, lines in stream.unknown.items():
            self.warnings.append(
                Where(self.path, lines[0], "type").warning(
                    f"{plural(len(lines), 'message')} of type {kind!r} (line{'s' if len(lines) > 1 else ''} "
                    f"{number_ranges(lines)}), which Claude Code's headless output did not hold when agentrender was "
                    "written: not read into the turns (source.outside_threads names their lines)"
                )
            )
        if not records:
            raise RunFileError(self.path, 1, "the file holds no message of Claude Code's output")
        return records

    def _cut(self, number: int) -> None:
        self.warnings.append(
            RunWarning(
                line=number,
                text="the last line is cut short (the session was being written): left out",
                path=self.path,
                lost=True,
            )
        )

    def _checked(self, value: Any, line: int) -> dict[str, Any]:
        """``value``, read from ``line``, checked whole (after ``_plain_record``'s quick look): a ``RunFileError``
        names the field of what is wrong."""
        where = Where(self.path, line)
        if not isinstance(value, dict):
            raise where.error(f"expected a transcript record (a JSON object), got {type_name(value)}")
        kind = value.get("type")
        if not isinstance(kind, str):
            raise where.at("type").error(f"expected the record's type, got {shown(kind)}")
        # null is what a writer puts in a field it did not record: as if the field were absent
        for name in _STRING_FIELDS:
            if value.get(name) is not None and (not isinstance(value[name], str) or not value[name]):
                raise where.at(name).error(f"expected a non-empty string, got {shown(value[name])}")
        for name in _OPTIONAL_STRING_FIELDS:
            if value.get(name) is not None and not isinstance(value[name], str):
                raise where.at(name).error(f"expected a uuid or null, got {type_name(value[name])}")
        for name in _BOOL_FIELDS:
            if value.get(name) is not None and not isinstance(value[name], bool):
                raise where.at(name).error(f"expected true or false, got {shown(value[name])}")
        if kind in _MESSAGE_TYPES:
            if value.get("uuid") is None:
                raise where.at("uuid").error(f"missing: a {kind} record has a uuid")
            self._named(value, kind, where)
            _check_message(value.get("message"), kind, where.at("message"))
        if kind == "summary" and not isinstance(value.get("summary", ""), str):
            raise where.at("summary").error(f"expected text, got {type_name(value['summary'])}")
        return value

    def _named(self, value: dict[str, Any], kind: str, where: Where) -> None:
        """Give each tool use of an assistant record ``value`` that has no ``id`` one made from where it is,
        ``line-N-block-J`` (a form no id Claude Code writes takes; in a sub-agent's file read with its session's,
        ``<file name>-line-N-block-J``, ``id_prefix``), and each result of a user record that has no
        ``tool_use_id`` the id of the use it answers; a warning at the line says what was missing and what is used.

        Claude Code writes both ids; a hand-written transcript may not (jazzyalex/agent-sessions' fixtures). Such a
        result keeps one link to its use: the record it hangs from (``parentUuid``). The results with no id of a
        record answer, in order, the tool uses with no id of that record; results written one a record, each
        hanging from the one before (as Claude Code writes parallel results), answer them in that order: a record
        of results only is followed back to the record of the uses (``answering``). Where the record reached holds
        no such use, or fewer than the results, which use a result answers cannot be told, and the record is refused
        saying why; where it holds more and no record of results hangs from the last one, ``threads`` refuses it
        (``short``: a later line may go on with the others). Only a record the quick look (``_plain_record``) left
        is looked at (it passes only blocks with their ids), in file order: a record's uses are named before a
        result that hangs from it is read.
        """
        message = value.get("message")
        content = message.get("content") if type(message) is dict else None
        if type(content) is not list:
            return
        key, missing = ("id", "tool use") if kind == "assistant" else ("tool_use_id", "tool result")
        wire = missing.replace(" ", "_")
        unnamed = [j for j, block in enumerate(content)
                   if type(block) is dict and block.get("type") == wire and block.get(key) is None]  # fmt: skip
        if not unnamed:
            return
        first = where.at(f"message.content[{unnamed[0]}].{key}")
        n = len(unnamed)
        if kind == "assistant":
            line, ids = where.line, [f"{self.id_prefix}line-{where.line}-block-{j}" for j in unnamed]
            self.made_ids[value["uuid"]] = (line, ids)
            made_of = "file's name, line and block" if self.id_prefix else "line and block"
            whence = f"made from {'its' if n == 1 else 'their'} {made_of}"
        else:
            parent = value.get("parentUuid") or ""
            uses, before, since = self.answering.get(parent, (parent, 0, 0))
            line, ids = self.made_ids.get(uses, (0, []))
            hangs = f"the record it hangs from (parentUuid {parent!r}, line {line})"
            if since:
                hangs = f"the results it hangs from (parentUuid {parent!r}), one from another from line {since}, "
                hangs += f"hang from line {line}, which"
            cannot = "missing from the tool result, and which tool use it answers cannot be told: "
            if not ids:
                raise first.error(f"{cannot}no record before it that it hangs from (parentUuid {parent!r}) holds a "
                                  "tool use without an id, or results without an id that hang from one")  # fmt: skip
            if before + n > len(ids):
                raise first.error(f"{cannot}{hangs} holds {len(ids)} tool use(s) without an id for {before + n} "
                                  "result(s) without one")  # fmt: skip
            self.short.pop(parent, None)  # the results it hangs from go on in this record
            if before + n < len(ids):
                why = f"{hangs} holds {len(ids)} tool use(s) without an id for {before + n} result(s) without one"
                self.short[value["uuid"]] = (first, cannot + why)
            if all(type(block) is dict and block.get("type") == "tool_result" for block in content):
                self.answering[value["uuid"]] = (uses, before + n, since or where.line)
            ids = ids[before : before + n]
            whence = (
                "the id made for the tool use with no id of the record it hangs from"
                if n == 1
                else "in order, the ids made for the tool uses with no id of the record they hang from"
            ) + f" (parentUuid {parent!r}, line {line})"
            if since:
                whence = (f"in order, the next of the ids made for the tool uses with no id of line {line}, whose "
                          f"results hang one from another from line {since} (parentUuid {parent!r})")  # fmt: skip
        for j, made in zip(unnamed, ids, strict=True):
            content[j] = {"type": wire, key: made, **{k: v for k, v in content[j].items() if k != "type" and k != key}}
        what = f"missing from the {missing}" if n == 1 else f"{n} {missing}s have no {key}"
        used = "is used in its place" if n == 1 else "are used in their place"
        at = first if n == 1 else where.at("message.content")
        self.named[where.line] = at.warning(f"{what}: {', '.join(map(repr, ids))} {used}, {whence}")

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
        self.found.append(
            Where(self.path, record.line, "parentUuid").warning(
                f"points to {shown(record.parent)}, a record not in this file: the thread is read from here "
                "(what came before it was sent too, and is not in this file)"
            )
        )

    def threads(self) -> list[_Thread]:
        """The main thread (every part of it, compactions included, oldest first), then each sidechain; what was
        found on the way is in ``found`` and ``left``."""
        if self.short:
            where, why = min(self.short.values(), key=lambda short: short[0].line)
            raise where.error(why)
        self.found, self.left, self.main, self.chains = RunWarnings(), [], None, []
        threads: list[_Thread] = []
        used: set[str] = set()
        records = self.by_uuid.values()  # each uuid's first record, in file order
        last = next((r for r in reversed(records) if r.message is not None and not r.sidechain), None)
        if last is not None:
            segments = self._segments(last, used)
            for record in [record for chain in segments for record in chain if record.sidechain]:
                self.found.append(
                    Where(self.path, record.line, "isSidechain").warning(
                        "true on a record of the main thread (its parents lead there): read in the main thread, "
                        "and, if it holds part of a reply, as a reply of its own"
                    )
                )
            parts = [self.requests(self._with_revealed(chain), False, used) for chain in segments]
            threads.append(_Thread(parts, "main"))
            self.chains = segments
        groups = self._sidechains()
        forks = self._forks(groups)
        agents: dict[Any, _Written] = {}  # each agent's message records, to join a chain a left-out record broke
        for members in groups.values():
            for member in members:
                agents.setdefault(member.value.get("agentId"), _Written(self)).add(member)
        # the latest first: a chain broken by a record left out joins the one written before it
        for members in sorted(groups.values(), key=lambda members: members[-1].line, reverse=True):
            if members[-1].uuid in used:
                continue
            fork = forks.get(members[-1].uuid)
            if fork is not None:
                threads.append(self._forked(fork, forks, used))
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
        self.parts = len(threads[0].segments) if last is not None else 0
        if len(used) < len(records):
            self.left = [r for r in records if r.message is not None and r.uuid not in used]
        return threads

    def places(self) -> dict[str, tuple[int, int]]:
        """Where the main thread's reading took each of its records, as ``(part, place in that part's chain)``: a
        record of a chain at its place; a reply's other records and its tool uses' results that fork off the chain
        at the place of the last of them on the chain (``_Requests`` reads them all with the reply: what hangs from
        one of them was sent after the reply's whole results turn)."""
        on_chain = {
            record.uuid: (part, at) for part, records in enumerate(self.chains) for at, record in enumerate(records)
        }
        places = dict(on_chain)
        read: set[str] = set()
        for records in self.chains:
            for record in records:
                if record.uuid in read:
                    continue
                turn = list(self.read_with(record))
                read.update(turn)
                if turn:  # a reply's: the record itself is on the chain
                    end = max(on_chain[uuid] for uuid in turn if uuid in on_chain)
                    for uuid in turn:
                        places.setdefault(uuid, end)
        return places

    def read_with(self, record: _Record) -> Iterator[str]:
        """The uuids of the records a reading of a chain takes with ``record`` (``_Requests``): for a reply's record,
        the reply's records and the results of its tool uses, on the chain or off it; nothing for any other."""
        if record.message_id is None:
            return
        index = self.index
        for member in index.reply(record.sidechain, record.message_id):
            yield member.uuid
            for block in member.blocks:
                if block["type"] == "tool_use":
                    for answer in index.answers(block.get("id")):
                        yield answer.uuid

    def _forks(self, groups: dict[str, list[_Record]]) -> dict[str, _Fork]:
        """The threads of this sub-agent's file that go on from a record of the session's main thread (``base``), by
        the uuid of their last record.

        An agent Claude Code forks from the session (the one that writes a compaction's summary,
        ``agent-acompact-*.jsonl``) is sent the session's conversation as it stands, then its own
        request. Its file holds only what the session's file does not: each of its records names as
        its parent the record of the session it was sent after. So a thread whose first record's
        parent is a record of the main thread was sent that thread up to that record first.
        """
        base = self.base
        if base is None or not base.chains:
            return {}
        by_uuid = self.by_uuid
        hanging = [
            (members, parent)
            for root, members in groups.items()
            if (parent := by_uuid[root].parent) is not None and parent not in by_uuid and parent in base.by_uuid
        ]
        if not hanging:
            return {}
        places = base.places()
        forks: dict[str, _Fork] = {}
        for members, parent in hanging:
            place = places.get(parent)
            if place is not None:
                part, at = place
                forks[members[-1].uuid] = _Fork(self.chain(members[-1], sidechain=True), part, at)
        return forks

    def _forked(self, fork: _Fork, forks: dict[str, _Fork], used: set[str]) -> _Thread:
        """The thread of ``fork``: the main thread's chain up to the record it hangs from, with each of this file's
        other chains that hang from a record of it (written before the fork) sent right after that record, as
        Claude Code sent them (a hook's reminder the session's file does not hold), then the fork's own chain."""
        base = self.base
        assert base is not None  # forks are found only with it
        sent_before = base.chains[fork.part][: fork.at + 1]
        chain = [*_sent_after(sent_before, self._absorbed(fork, forks)), *fork.chain]
        taken: set[str] = set()
        segment = self.requests(chain, True, taken, forked=True)
        used.update(uuid for uuid in taken if uuid in self.by_uuid)  # the base's records are the base's to count
        segment.first_line = min(record.line for record in chain if self.by_uuid.get(record.uuid) is record)
        segment.calls = [call for call in segment.calls if call.message.get("id") not in base.index.replies[False]]
        parent = fork.chain[0].parent
        assert parent is not None  # a fork's root hangs from a record of the session
        hung_from = base.by_uuid[parent]
        # the steps the session decided come first: the agent's own start at its first reply
        session_steps = (segment.calls[0].turn - 1) // 2 if segment.calls else len(segment.turns) // 2
        forked_from = {"line": hung_from.line, "uuid": hung_from.uuid, "steps": session_steps}
        notes: dict[str, Any] = {"forked_from": forked_from}
        later = base.chains[fork.part + 1 :]
        if later and all(record.message is None for record in base.chains[fork.part][fork.at + 1 :]):
            notes["compaction_line"] = later[0][0].line  # the compaction whose summary the fork wrote
        return _Thread([segment], "sidechain", notes)

    def _absorbed(self, fork: _Fork, forks: dict[str, _Fork]) -> dict[str, list[_Record]]:
        """This file's other chains that hang from the part of the main thread ``fork`` was sent, written before it,
        by the uuid of the main thread's record each was sent after."""
        base = self.base
        assert base is not None  # forks are found only with it
        after: dict[str, list[_Record]] = {}
        first = fork.chain[0].line
        for other in sorted(forks.values(), key=lambda other: other.chain[0].line):
            if other.part == fork.part and other.at <= fork.at and other.chain[-1].line < first:
                after.setdefault(base.chains[fork.part][other.at].uuid, []).extend(other.chain)
        return after

    def sent_by_session(self) -> dict[str, list[_Record]]:
        """The messages of this sub-agent's file that the session's main thread sent, though the session's file does
        not hold them, by the uuid of the main thread's record each was sent after.

        Claude Code does not write every message it sends into the session's file (a hook's reminder,
        PostToolUse "additional context", is one it leaves out), but an agent forked from the session
        writes each message it was sent that the session's file lacks (``_forks``). Those it was sent
        before its own request were in the session's conversation: the main thread sent them in each
        request after them.
        """
        forks = self._forks(self._sidechains())
        found: dict[str, list[_Record]] = {}
        seen: set[str] = set()
        for fork in forks.values():
            for uuid, records in self._absorbed(fork, forks).items():
                found.setdefault(uuid, []).extend(record for record in records if record.uuid not in seen)
                seen.update(record.uuid for record in records)
        return found

    def _with_revealed(self, chain: list[_Record]) -> list[_Record]:
        """A chain of the main thread, with each message it sent that this file does not hold (``revealed``) after
        the record it was sent after."""
        revealed = self.revealed
        if not revealed or not any(record.uuid in revealed for record in chain):
            return chain
        return _sent_after(chain, revealed)

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
        main = (record for record in self.by_uuid.values() if record.message is not None and not record.sidechain)
        written = _Written(self, main)
        current: _Record | None = leaf
        while current is not None:
            chain = written.joined(self.chain(current, sidechain=False), "of the main thread")
            root = chain[0]
            segments.append(chain)
            before = root.logical if root.logical is not None else root.value.get("logicalParentUuid")
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
                self.found.append(where.warning("the conversation before this compaction is not in this file"))
                continue
            self.found.append(
                where.warning(
                    f"names {shown(before)}, {why}: the conversation before the compaction is taken to end at line "
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

    def requests(self, chain: list[_Record], sidechain: bool, used: set[str], forked: bool = False) -> _Segment:
        """The turns ``chain`` sent: one assistant turn a request (every record of its reply, wherever the file
        put them), then one user turn with the results of its tool uses, in the order the file wrote them.

        Claude Code writes a reply one block a record, the records sharing the reply's ``message.id``,
        and writes each tool use's result as soon as it has it: the records of one reply and their
        results are interleaved (``text``, ``tool_use 1``, ``result 1``, ``tool_use 2``, ``result 2``) or
        fork off one another (each result a child of its own tool use). What it sent next was one
        assistant turn holding the whole reply and one user turn with all of its results. So a reply
        is read whole when its first record is met, from every record of its ``message.id``, and each
        tool use's result is taken from the record that answers it; a record already taken is passed
        over when the chain reaches it. ``used`` collects the uuids of every record taken. A ``forked`` chain starts
        with records of the session's own file (``base``), read as that file's; the main thread's holds the messages
        it sent that an agent forked from it revealed (``revealed``), read as their file's.
        """
        base = self.base if forked else None
        elsewhere = self.revealed_in if self.revealed and not sidechain else None
        reading = _Requests(self, sidechain, marking=self.marking and not sidechain, base=base, elsewhere=elsewhere)
        reading.take(chain)
        # the records of another file are that file's to count
        mine = reading.taken if base is None and elsewhere is None else filter(self.by_uuid.__contains__, reading.taken)
        used.update(mine)
        if not sidechain:
            self.main = reading  # the main thread's last part: what a follower reads on from
        return reading.segment


def _sent_after(chain: list[_Record], after: Mapping[str, list[_Record]]) -> list[_Record]:
    """``chain`` with the records ``after`` holds for each of its records (by uuid) right after that record."""
    joined: list[_Record] = []
    for record in chain:
        joined.append(record)
        joined.extend(after.get(record.uuid, ()))
    return joined


class _Fork(NamedTuple):
    """A thread of a sub-agent's file that goes on from a record of the main thread (``_Transcript._forks``)."""

    chain: list[_Record]
    """The thread's own records, from the one that hangs from the main thread's record."""
    part: int
    """The part of the main thread (its index in ``chains``) that record is in."""
    at: int
    """That record's place in that part's chain."""


class _Mark(NamedTuple):
    """Where a ``_Requests`` started the last assistant turn of its chain: what to go back to."""

    position: int
    """The chain position of the record that started the turn."""
    taken: int
    """How many uuids were taken before it."""
    segment: tuple[Any, ...]
    """The segment's ``state()`` before it."""


class _Requests:
    """A chain read as the requests it made (``_Transcript.requests``), read on from where it was left.

    A follower of a growing session adds the records it gained to the chain and reads again
    from the start of the chain's last assistant turn (``take_more``): the one part of a
    conversation that records written later can change (more blocks of the same reply,
    results, a message joined into the turn); the turns before it are kept as read.
    """

    def __init__(
        self,
        transcript: _Transcript,
        sidechain: bool,
        marking: bool = False,
        base: _Transcript | None = None,
        elsewhere: Mapping[str, str] | None = None,
    ) -> None:
        # the transcript's indexes, not the transcript: it holds the main thread's reading (no cycle)
        self.index: _Index | _Indexes = transcript.index if base is None else _Indexes(transcript.index, base.index)
        self.path = transcript.path
        if base is not None:
            elsewhere = dict.fromkeys(base.by_uuid, base.path)
        self.elsewhere: tuple[dict[str, _Record], Mapping[str, str]] | None = (
            None if elsewhere is None else (transcript.by_uuid, elsewhere)
        )
        """For a chain that holds records of another file (a forked agent's, which starts with the session's; the main
        thread's, with the messages a forked agent revealed): this file's records by uuid, and the file of any other
        record by its uuid. Such a record is said as its file's, and read by its own ``isSidechain``."""
        self.sidechain = sidechain
        self.segment = _Segment()
        self.chain: list[_Record] = []
        self.on_chain: set[str] = set()
        self.taken: set[str] = set()
        """The uuids of the records read into the segment."""
        self.order: list[str] | None = [] if marking else None
        """With ``marking``: the uuids taken, in the order they were, to go back to a ``mark``."""
        self.uses: dict[Any, int] = {}
        """With ``marking``: the chain position of the reply each tool use id was read in."""
        self.mark: _Mark | None = None
        """With ``marking``: where the last assistant turn started."""

    def take(self, chain: list[_Record]) -> None:
        """Read ``chain`` (the first records read)."""
        self.segment.root, self.segment.root_line = chain[0].value, chain[0].line
        self.chain.extend(chain)
        self.on_chain.update(map(_UUID, chain))
        self._read(0)

    def take_more(self, records: list[_Record]) -> int:
        """Add ``records`` to the end of the chain and read again from the start of its last assistant turn; the
        index of the first turn read again."""
        mark = self.mark
        if mark is None:
            start, self.order, self.segment = 0, [], _Segment()
            self.segment.root, self.segment.root_line = self.chain[0].value, self.chain[0].line
            self.taken.clear()
        else:
            assert self.order is not None  # a mark is made only when marking
            start = mark.position
            for uuid in self.order[mark.taken :]:
                self.taken.discard(uuid)
            del self.order[mark.taken :]
            self.segment.restore(mark.segment)
        turn = len(self.segment.turns)
        self.chain.extend(records)
        self.on_chain.update(map(_UUID, records))
        self._read(start)
        return turn

    def _taken_in_order(self, uuid: str) -> None:
        self.taken.add(uuid)
        assert self.order is not None
        self.order.append(uuid)

    def _read(self, start: int) -> None:
        segment, sidechain, chain = self.segment, self.sidechain, self.chain
        index, path, elsewhere = self.index, self.path, self.elsewhere
        on_chain, taken, order = self.on_chain, self.taken, self.order
        take = taken.add if order is None else self._taken_in_order
        for position in range(start, len(chain)):
            record = chain[position]
            message = record.message
            if elsewhere is not None:  # a chain of records of two files: each said as its own file's
                own = elsewhere[0].get(record.uuid) is record
                path, sidechain = (self.path, self.sidechain) if own else (elsewhere[1][record.uuid], record.sidechain)
            if message is None:
                if record.kind == "attachment":
                    segment.attachment(record, path)
                else:
                    name = _note_name(record)
                    segment.skipped[name] += 1
                    if name == "system/api_error":  # a request that failed, tried again: said with what follows it
                        segment.retrying.append((record, path))
                    if "message" in record.value:  # Claude Code writes one only in user and assistant records
                        segment.warnings.append(
                            Where(path, record.line, "type").warning(
                                f"a record of type {shown(record.kind)} holding a message, which Claude Code writes "
                                "in user and assistant records only: not read into the turns (counted in not_sent)"
                            )
                        )
                take(record.uuid)
                continue
            if record.uuid in taken:
                continue
            if record.kind == "user":
                take(record.uuid)
                if segment.retrying:
                    segment.tried_again(record, "user")
                segment.add(record, record.blocks, path, results=record.results)
                continue
            if record.value.get("isApiErrorMessage") is True and message.get("model") == _SYNTHETIC:
                take(record.uuid)
                if segment.retrying:
                    segment.tried_again(record, "gave up")
                segment.failed(record, path)
                continue
            if order is not None and (not segment.turns or segment.turns[-1]["role"] == "user"):
                self.mark = _Mark(position, len(order), segment.state())
            # the reply's records are those flagged as this one is: a thread's record flagged otherwise (written by
            # hand) is a reply of its own, never one whose records were all taken
            written = index.reply(record.sidechain, record.message_id) if record.message_id is not None else None
            members = []
            for member in written or [record]:  # those not taken yet, taken now
                if member.uuid not in taken:
                    take(member.uuid)
                    members.append(member)
            uses = segment.reply(members, path)
            answering: list[_Record] = []
            for use in uses:
                if order is not None:
                    self.uses[use] = position
                found = _answer(index.answers(use), sidechain, taken, on_chain)
                if found is not None:
                    take(found.uuid)
                    answering.append(found)
            if answering:
                segment.results(answering, uses, path)
        if segment.retrying:
            segment.tried_again(None, "end")


class _Indexes:
    """A sub-agent's file's index, then the session's (``_Index``), for a forked chain that holds records of both."""

    def __init__(self, own: _Index, base: _Index) -> None:
        self.own, self.base = own, base

    def reply(self, sidechain: bool, message_id: Any) -> list[_Record]:
        return self.own.reply(sidechain, message_id) or self.base.reply(sidechain, message_id)

    def answers(self, use_id: Any) -> list[_Record]:
        return self.own.answers(use_id) or self.base.answers(use_id)


class _Written:
    """One thread's message records in the order they were written, to join a chain that a record left out of the
    file broke: the thread goes on from the last of them written before the chain's first, as Claude Code writes a
    thread one record after the other."""

    def __init__(self, transcript: _Transcript, later: Iterator[_Record] | None = None) -> None:
        self.transcript = transcript
        self.records: list[_Record] = []
        self.lines: list[int] = []
        self.taken: set[str] = set()
        """The uuids of the records already in a chain."""
        self._later = later
        """The thread's records, in file order, added when ``before`` first looks: a thread no record left out of the
        file broke never needs them."""

    def add(self, record: _Record) -> None:
        self.records.append(record)
        self.lines.append(record.line)

    def before(self, root: _Record) -> _Record | None:
        """The last record written before ``root`` that no chain holds yet."""
        if self._later is not None:
            for record in self._later:
                self.add(record)
            self._later = None
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
            transcript.found.append(
                Where(transcript.path, root.line, "parentUuid").warning(
                    f"points to {shown(root.parent)}, a record not in this file: joined to line {joined.line}, the "
                    f"last message {thread} before it"
                )
            )
            before_it = transcript.chain(joined, sidechain=root.sidechain)
            self.taken.update(map(_UUID, before_it))
            chain = before_it + chain
        return chain


def _left_warning(path: str, left: list[_Record]) -> RunWarning:
    """The warning for the message records in no thread (``_Transcript.left``, in file order)."""
    lines = ", ".join(str(r.line) for r in left[:8]) + (", ..." if len(left) > 8 else "")
    return Where(path, left[0].line).warning(
        f"{len(left)} message record(s) on branches the conversation left (a rewind or a retry; "
        f"lines {lines}): not part of what was last sent, and not in any run"
    )


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


class _Reply(msgspec.Struct, gc=False):
    """One reply of a thread, read from its records: the stretch of its turn's content it said, ``content[start:end]``.
    Not tracked by the collector (it refers to the reply's own message, which never refers back to it)."""

    turn: int
    start: int
    end: int
    message: dict[str, Any]
    """The reply's message as its last record has it, without its content."""
    line: int
    """The line of its last record."""
    retried: list[dict[str, Any]] | None = None
    """The tries of its request that failed before it went through, as a run file's ``model_call`` holds them
    (``retried``): one for each the ``api_error`` records before it say (``_Segment.tried_again``)."""


def _written(record: _Record) -> str | None:
    """When ``record`` was written: its ``timestamp``, when it is one a run file may hold (``is_timestamp``)."""
    stamp = record.value.get("timestamp")
    return stamp if type(stamp) is str and is_timestamp(stamp) else None


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
        """The records of the chain Claude Code sends nothing of, by type (and subtype)."""
        self.unread: Counter[str] = Counter()
        """The attachments of the chain Claude Code may send in words of its own, not read into the turns, by type."""
        self.models: list[str] = []
        self.calls: list[_Reply] = []
        self.dropped = 0
        """Whitespace-only text blocks of replies, which Claude Code does not send back (the API refuses them)."""
        self.dropped_at: Where | None = None
        """Where the first of them is (its file: a forked agent's chain holds records of the session's)."""
        self.warnings: list[RunWarning] = RunWarnings()  # alike warnings counted as made
        self.first_line = 0
        """The line of the part's first message record."""
        self.root: Mapping[str, Any] = {}
        """The fields of the chain's first record (a ``compact_boundary``, for a part after a compaction)."""
        self.root_line = 0
        self.ended_on: _Record | None = None
        """The reply of a failed request the chain ends on (``failed``): nothing was sent after it."""
        self.commands_last = False
        """Whether the last turn holds local commands only (a ``/cost`` after the last reply, sent with no request)."""
        self.interrupted: _Record | None = None
        """The user's interruption (``_INTERRUPTIONS``) the chain ends on, but for local commands run after it."""
        self.retrying: list[tuple[_Record, str]] = []
        """The ``api_error`` records since the last message, each with its file: a request that failed and was tried
        again, said when the message after them is read (``tried_again``)."""
        self.retried: list[_Retried] = []
        """Each run of ``api_error`` records of the chain and what came after it, in order (said by ``_Conversation``,
        which knows the step each part's turns start at)."""
        self.summary: list[int] = []
        """The indices of the first turn's blocks that an ``isCompactSummary`` record holds: a compaction's summary,
        which the user's next prompt is joined to (``_compaction``)."""
        self._owned = False
        self._results = False

    def state(self) -> tuple[Any, ...]:
        """What ``restore`` needs to undo whatever is added after this."""
        return (len(self.turns), len(self.records), len(self.calls), len(self.models), tuple(self.warnings),
                self.skipped.copy(), self.unread.copy(), self.dropped, self.dropped_at, self.first_line,
                self.ended_on, self.commands_last, self.interrupted, self._owned, self._results,
                tuple(self.retrying), len(self.retried), len(self.summary))  # fmt: skip

    def restore(self, state: tuple[Any, ...]) -> None:
        """Undo what was added since ``state()`` gave ``state``: the turns after it go (they are made again, never
        changed: a run made before holds them)."""
        turns, records, calls, models, warnings, skipped, unread = state[:7]
        self.dropped, self.dropped_at, self.first_line, self.ended_on = state[7:11]
        self.commands_last, self.interrupted, self._owned, self._results = state[11:15]
        self.retrying = list(state[15])
        del self.turns[turns:], self.records[records:], self.calls[calls:], self.models[models:]
        del self.retried[state[16] :], self.summary[state[17] :]
        self.warnings, self.skipped, self.unread = RunWarnings(warnings), skipped.copy(), unread.copy()

    def add(self, record: _Record, blocks: list[dict[str, Any]], path: str, results: bool = False) -> None:
        """``record``'s ``blocks`` at the end of the conversation: a turn of their own, or joined into the last turn
        when it has the record's role (the API merges two user turns in a row into one, and so did Claude Code)."""
        self.records.append(record.value)
        self.ended_on = None
        if not self.first_line:
            self.first_line = record.line
        turns = self.turns
        if len(turns) <= 1 and record.kind == "user" and record.value.get("isCompactSummary") is True:
            start = len(turns[0]["content"]) if turns else 0  # the first turn: a compaction's opening
            self.summary.extend(range(start, start + len(blocks)))
        command = not results and _local_command(record)  # results only: neither a command nor an interruption
        if not command:  # a local command run after an interruption sends nothing: the chain still ends on it
            self.interrupted = record if record.kind == "user" and not results and _interrupts(blocks) else None
        if not turns or turns[-1]["role"] != record.kind:
            turns.append({"role": record.kind, "content": blocks})
            self._owned, self._results, self.commands_last = False, results, command
            return
        self.commands_last = self.commands_last and command
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

    def attachment(self, record: _Record, path: str) -> None:
        """An ``attachment`` record on the chain: one Claude Code sends nothing of is counted (``skipped``); any other
        (a queued prompt, a reminder of the task list, the skills listed) it may send the model as a user message in
        words of its own, which the transcript does not hold: counted (``unread``) and said, so a view that lacks it
        does not pass for whole."""
        attachment = record.value.get("attachment")
        name = _note_name(record)
        if isinstance(attachment, Mapping) and _sends_nothing(attachment):
            self.skipped[name] += 1
            return
        self.unread[name] += 1
        self.warnings.append(
            Where(path, record.line, "attachment").warning(
                f"{name.partition('/')[2]}: Claude Code may send the model what this attachment holds, as a user "
                "message in words of its own (a system reminder, a queued prompt) that the transcript does not hold: "
                "not read into the turns, so the views may lack it"
            )
        )

    def tried_again(self, after: _Record | None, outcome: str) -> list[dict[str, Any]]:
        """End the run of ``api_error`` records read since the last message (``retrying``): the request of the step
        the next reply decides failed, and Claude Code tried it again; ``after`` is what followed them (``outcome``:
        the ``"reply"`` that went through, Claude Code's own reply when it ``"gave up"``, the ``"user"``'s next
        message, or nothing, at the ``"end"`` of the chain). The tries that failed, as a model call's ``retried``."""
        failures = tuple(self.retrying)
        self.retrying = []
        self.retried.append(_Retried(failures, max(0, (len(self.turns) - 1) // 2), after, outcome))
        return [_try(record.value) for record in _attempts(failures)]

    def failed(self, record: _Record, path: str) -> None:
        """A reply Claude Code wrote itself when a request failed (``isApiErrorMessage``, model ``<synthetic>``:
        "Request timed out", "API Error: 529 Overloaded", "You've hit your limit"): kept with the thread's records, but
        no turn, as Claude Code sends none of them to the model (``normalizeMessagesForAPI``). What it says is said in
        a warning; the message after it joins the turn before it, as Claude Code joins them."""
        self.records.append(record.value)
        self.skipped["assistant/api_error"] += 1
        self.ended_on = record
        self.warnings.append(
            Where(path, record.line).warning(
                f"a request that failed ({_failure(record)[:200]!r}): Claude Code wrote this reply itself "
                f"(isApiErrorMessage, model {_SYNTHETIC}) and sends none of these to the model, so the conversation "
                "goes on without it"
            )
        )

    def results(self, records: list[_Record], uses: list[Any], path: str) -> None:
        """Add the user turn that answers a reply whose tool uses have the ids ``uses``, from the ``records`` that
        hold their results: each result in the order the file wrote them, then whatever else those records hold.

        Claude Code runs the tool uses it may run together at once, and sends their results in the order they
        finished, the order it writes them in; it does not sort them back into the order of the tool uses (the
        real CLI 2.1.228 in wecode-ai/Wegent's end-to-end test ``local-terminal.scenario.mjs``, commit ``24d6bd9``:
        three parallel commands come back fastest first; ``docs/guides/your-own-runs.md``)."""
        answered = set(uses)
        if len(records) == 1:
            record = records[0]
            others = False
            for block in record.blocks:
                if block["type"] == "tool_result" and block.get("tool_use_id") in answered:
                    if others:
                        break  # a result after something else: sorted below
                else:
                    others = True
            else:  # in order already: the record's own list, not a copy
                self._answered(records, record.blocks, path, results=not others)
                return
        else:
            records = sorted(records, key=_LINE)
        answers: list[dict[str, Any]] = []
        rest: list[dict[str, Any]] = []
        for record in records:
            for block in record.blocks:
                answers_one = block["type"] == "tool_result" and block.get("tool_use_id") in answered
                (answers if answers_one else rest).append(block)
        blocks = answers + rest
        if len(records) == 1 and blocks == records[0].blocks:
            blocks = records[0].blocks  # alike in order: the record's own list, not a copy
        self._answered(records, blocks, path, results=not rest)

    def _answered(self, records: list[_Record], blocks: list[dict[str, Any]], path: str, results: bool) -> None:
        """Add the user turn of ``blocks``, the results (``results``: and nothing else) of the reply before it, read
        from ``records`` (in file order); the reply's step ends when the last of them was written."""
        self.add(records[0], blocks, path, results=results)
        if len(records) > 1:
            self.records.extend([record.value for record in records[1:]])
        if len(self.turns) > 1 and (stamp := _written(records[-1])) is not None:
            self.turns[-2]["ended_at"] = stamp  # the reply's step ended when its last result was written

    def _timed(self, members: list[_Record], joined: bool, calls: bool) -> None:
        """Give the assistant turn a reply (of records ``members``; ``calls``: with tool uses) was just added to its
        step's times, as its records were written: it started with its first reply's first record, and (``results``
        ends a turn whose calls were answered) a turn that calls nothing ended with its last reply's last record; one
        that calls waits for its results."""
        turn = self.turns[-1]
        if not joined and (started := _written(members[0])) is not None:
            turn["started_at"] = started
        if calls or (joined and any(block["type"] == "tool_use" for block in turn["content"])):
            turn.pop("ended_at", None)
        elif (ended := _written(members[-1])) is not None:
            turn["ended_at"] = ended

    def reply(self, members: list[_Record], path: str) -> list[Any]:
        """Add one reply read from its records (in file order), as one assistant turn; the ids of its tool uses, found
        as its blocks are read."""
        tries = self.tried_again(members[0], "reply") if self.retrying else None
        if len(members) == 1 and not any(_blank(block) for block in members[0].blocks):
            blocks = members[0].blocks
            uses = [block.get("id") for block in blocks if block["type"] == "tool_use"]
        else:
            blocks, uses = [], []
            seen: set[Any] = set()
            for member in members:
                for block in member.blocks:
                    if _blank(block):
                        self.dropped += 1
                        self.dropped_at = self.dropped_at or Where(path, member.line)
                        continue
                    if block["type"] == "tool_use":
                        if (use := block.get("id")) in seen:
                            continue  # the same block written twice
                        seen.add(use)
                        uses.append(use)
                    blocks.append(block)
        joined = bool(self.turns) and self.turns[-1]["role"] == "assistant"
        start = len(self.turns[-1]["content"]) if joined else 0
        self.add(members[0], blocks, path)
        if len(members) > 1:
            self.records.extend([member.value for member in members[1:]])
        self._timed(members, joined, bool(uses))
        last = members[-1]
        message = last.message
        assert message is not None  # an assistant record's
        model = message.get("model")
        if type(model) is str and model.startswith("<"):
            return uses  # "<synthetic>" marks a reply Claude Code wrote itself, not a model's
        if model is not None:
            self.models.append(model)
        if joined:
            # the file lacks what was sent between the two replies: the step is what the model said last
            self.turns[-1]["decided_from"] = start
        if last.message_id is not None:
            self.calls.append(_Reply(len(self.turns) - 1, start, start + len(blocks), message, last.line, tries))
        return uses


_SENDS_NOTHING = frozenset({
    "already_read_file", "command_permissions", "dynamic_skill", "edited_image_file", "hook_cancelled",
    "hook_error_during_execution", "hook_non_blocking_error", "hook_permission_decision", "hook_system_message",
    "structured_output", "autocheckpointing", "background_task_status", "todo", "task_progress", "ultramemory",
})  # fmt: skip
"""The attachments Claude Code's ``normalizeAttachmentForAPI`` makes no message of: its own notes, and the types it no
longer makes (a resumed session may hold them)."""
_HOOKS_SENT = ("SessionStart", "UserPromptSubmit")
"""The hooks whose ``hook_success`` attachment Claude Code sends (when it holds text); any other hook's it does not."""


def _sends_nothing(attachment: Mapping[str, Any]) -> bool:
    """Whether Claude Code sends the model nothing of ``attachment`` (an ``attachment`` record's)."""
    kind = attachment.get("type")
    if kind == "hook_success":
        return attachment.get("hookEvent") not in _HOOKS_SENT or not attachment.get("content")
    return kind in _SENDS_NOTHING


def _added(*counts: Mapping[str, int]) -> dict[str, int]:
    """``counts`` added up, by name in order."""
    total: Counter[str] = Counter()
    for each in counts:
        total.update(each)
    return dict(sorted(total.items()))


def _note_name(record: _Record) -> str:
    """How a record that is no message is counted (``source.not_sent``, ``source.not_read``): ``attachment/<type>``,
    ``<type>/<subtype>`` (``system/stop_hook_summary``), or its type."""
    value = record.value
    if record.kind == "attachment":
        attachment = value.get("attachment")
        kind = attachment.get("type") if isinstance(attachment, Mapping) else None
        return f"attachment/{kind if isinstance(kind, str) else '?'}"
    subtype = value.get("subtype")
    return f"{record.kind}/{subtype}" if isinstance(subtype, str) else record.kind


def _prompt_text(prompt: Any) -> str:
    """The text of a ``queued_command`` attachment's ``prompt``: its text, or the text blocks of a prompt of blocks
    (one with an image), joined."""
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, list):
        return "".join(block["text"] for block in prompt if isinstance(block, Mapping) and "text" in block)
    return ""


def _failure(record: _Record) -> str:
    """What the reply Claude Code wrote for a failed request says (``_Segment.failed``)."""
    return " ".join(block.get("text", "") for block in record.blocks if block["type"] == "text").strip()


class _Retried(NamedTuple):
    """A run of ``api_error`` records on a chain (``_Segment.tried_again``): Claude Code's request failed, and it
    tried again, writing one record a failure before it waited (``retryInMs``) to try again.

    The fields a record holds depend on the version (those 2.0.35 to 2.1.80 wrote, validated on 255,102 records of
    real sessions: chrisguillory/claude-session-mcp's ``src/schemas/session/models.py``, ``ApiErrorSystemRecord``):
    ``level``, ``retryInMs``, ``retryAttempt`` (from 1), ``maxRetries``, ``error`` (the SDK's error as JSON: an
    API error's ``status``, ``headers``, ``requestID`` and the API's body in ``error``, ``{"type": "error", "error":
    {"type": "overloaded_error", "message": ...}}``; a connection's ``{"cause": {"code", "path", "errno"}}``; ``{}``
    from 2.0.76, as a timed-out request of 2.1.89 has it in the real fixtures) and, for a connection that failed,
    ``cause`` (``{"code": "ECONNRESET", "path", "errno"}``). Later versions also write the error's ``message``
    (parsers of them read ``error.message``, ``formatted`` and ``isNetworkDown``). In its unattended mode Claude Code
    writes one every 30 seconds of a long wait (``withRetry``'s heartbeat): records of the same ``retryAttempt`` in
    a row are one failure."""

    failures: tuple[tuple[_Record, str], ...]
    """The records, each with its file."""
    step: int
    """The step of the chain's part whose request failed: the one the next reply decides."""
    after: _Record | None
    """What followed them: the reply, Claude Code's own reply when it gave up, the user's message; ``None``: nothing."""
    outcome: str
    """``"reply"``, ``"gave up"``, ``"user"`` or ``"end"`` (``_Segment.tried_again``); ``"trailing"`` for the records
    after the main thread's last message (``_Transcript.failed_last``: ``after`` is that message)."""

    def warning(self, first_step: int) -> RunWarning:
        """The warning that says it, at the first record's line; ``first_step``: the step the part's turns start at.

        Claude Code writes a record when a try failed and it will try again (``retryAttempt`` is the retry it is
        about to make): a request that went through after ``n`` records did on try ``n + 1``; one it gave up on
        failed once more (or with an error it does not retry), and that failure is its own reply's."""
        first, path = self.failures[0]
        failures = _attempts(self.failures)
        count = len(failures)
        step = first_step + self.step
        # the step the request was for is the one its reply decided: one that got none names the step before it
        if self.outcome == "reply":
            request = f"the request for step {step}"
        elif self.outcome == "trailing" and self.after is not None:
            request = f"the request after the last message (line {self.after.line})"
        else:
            request = f"the request after step {step - 1}" if step else "the first request"
        tried = (
            f"{request} failed and Claude Code tried it again {'once' if count == 1 else plural(count, 'time')} "
            f"({_api_errors_at([r.line for r, _ in self.failures])}, counted in not_sent)"
        )
        after = -1 if self.after is None else self.after.line
        outcome = {
            "reply": f"it went through on try {count + 1}: the reply at line {after}",
            "gave up": f"the last try failed too, and Claude Code gave up: it wrote the reply at line {after} itself",
            "user": f"no reply follows: the user's message at line {after} is next",
            "end": "no reply follows in the file",
            "trailing": "no reply follows in the file",
        }[self.outcome]
        parts = [f"{tried}: {outcome}", _errors_said(failures)]
        last = failures[-1].value
        attempt, most = last.get("retryAttempt"), last.get("maxRetries")
        if is_count(attempt) and is_count(most):
            parts.append(f"the last retry was number {attempt} of at most {most}")
        waits = [wait for record in failures if _is_wait(wait := record.value.get("retryInMs"))]
        if len(waits) == count:
            parts.append(f"Claude Code waited {elapsed(sum(waits))} in all before its retries (retryInMs)")
        parts.extend(self._span(first, failures[-1]))
        return Where(path, first.line).warning("; ".join(parts))

    def _span(self, first: _Record, last: _Record) -> list[str]:
        """How long passed from the first failure to what followed (or to the last failure), by the timestamps."""
        end = self.after if self.after is not None and self.outcome in ("reply", "gave up") else last
        begun, ended = _moment(first), _moment(end)
        if end is first or begun is None or ended is None or ended < begun:
            return []
        to = {"reply": "the reply", "gave up": "Claude Code's reply"}.get(self.outcome, "the last failure")
        took = elapsed((ended - begun).total_seconds() * 1000)
        return [f"{took} passed from the first failure to {to} ({begun:%Y-%m-%d %H:%M:%S} to {ended:%H:%M:%S} UTC)"]


def _moment(record: _Record) -> datetime | None:
    """When ``record`` was written, by its ``timestamp``; ``None`` where it has none that is a time."""
    stamp = record.value.get("timestamp")
    return parse_timestamp(stamp) if type(stamp) is str else None


def _is_wait(value: Any) -> TypeGuard[float]:
    """Whether ``value`` is a time to wait in milliseconds (``retryInMs``): a number from 0 to a few centuries."""
    return type(value) in (int, float) and 0 <= value < 1e13


def _attempts(failures: Iterable[tuple[_Record, str]]) -> list[_Record]:
    """The first record of each failure: records of the same ``retryAttempt`` in a row (the heartbeats of a long
    wait) are one."""
    attempts: list[_Record] = []
    before: Any = None
    for record, _ in failures:
        attempt = record.value.get("retryAttempt")
        if not (is_count(attempt) and attempt == before):
            attempts.append(record)
        before = attempt
    return attempts


def _api_error(value: Mapping[str, Any]) -> dict[str, Any]:
    """What an ``api_error`` record ``value`` says of its error (``_Retried``), as a run file's error holds it:
    ``message``, ``status``, ``body`` (the API's error body, as written) and ``cause`` (a failed connection's code);
    empty where it says nothing (``"error": {}``)."""
    error = value.get("error")
    error = error if isinstance(error, Mapping) else {}
    said: dict[str, Any] = {}
    body = error.get("error")
    inner = _inner(body)
    message = error.get("message")
    if not isinstance(message, str) and isinstance(inner, Mapping):
        message = inner.get("message")
    if isinstance(message, str):
        said["message"] = message
    if is_count(status := error.get("status")):
        said["status"] = status
    if body is not None:
        said["body"] = body
    cause = value.get("cause", error.get("cause"))
    code = cause.get("code") if isinstance(cause, Mapping) else cause
    if isinstance(code, str):
        said["cause"] = code
    return said


def _inner(body: Any) -> Any:
    """The API's error object of an error ``body``: its ``error`` (``{"type": "overloaded_error", "message": ...}``
    in ``{"type": "error", "error": ...}``), or the body itself where it holds none."""
    inner = body.get("error") if isinstance(body, Mapping) else None
    return inner if isinstance(inner, Mapping) else body


def _try(value: Mapping[str, Any]) -> dict[str, Any]:
    """A failed try of a model call (``retried``) of the ``api_error`` record ``value``: its error, when it says one.
    The record holds neither when the try began nor how long it took."""
    error = _api_error(value)
    return {"error": error} if error else {}


def _error_said(value: Mapping[str, Any]) -> str:
    """An ``api_error`` record's error in a few words, as written: its status, its type, its message, its cause."""
    error = _api_error(value)
    inner = _inner(error.get("body"))
    kind = inner.get("type") if isinstance(inner, Mapping) else None
    words = [str(error["status"])] if "status" in error else []
    if isinstance(kind, str):
        words.append(kind)
    if "message" in error:
        words.append(shown(error["message"], 200))
    if "cause" in error:
        words.append(f"(cause {shown(error['cause'], 80)})")
    return " ".join(words)


def _errors_said(failures: list[_Record]) -> str:
    """The errors of ``failures`` in a few words: the first's and, where it differs, the last's."""
    first, last = _error_said(failures[0].value), _error_said(failures[-1].value)
    if not first and not last:
        written = {json.dumps(record.value.get("error"), sort_keys=True) for record in failures}
        held = f" (each error is {written.pop()})" if len(written) == 1 and "error" in failures[0].value else ""
        return f"the records do not say what the error was{held}"
    if first == last:
        return f"the error: {first}"
    return f"the first error: {first or 'not said'}; the last: {last or 'not said'}"


def _local_command(record: _Record) -> bool:
    """Whether ``record`` is one of a local command the user ran (``/cost``, ``/model``): a ``local_command`` system
    record, or (as Claude Code wrote them before it wrote those) a user record of nothing but the text it writes for
    one: the caveat before it, the command, what the command printed (``conversation.is_local_command``)."""
    if record.message is _LOCAL_COMMAND:
        return True
    blocks = record.blocks
    return (
        record.kind == "user"
        and bool(blocks)
        and blocks[0]["type"] == "text"  # a record of results (with text beside or not) is passed by this look alone
        and all(block["type"] == "text" and is_local_command(block.get("text", "")) for block in blocks)
    )


_INTERRUPTIONS = {
    "[Request interrupted by user]": "request",
    "[Request interrupted by user for tool use]": "tool use",
}
"""The text Claude Code writes as a user message of its own when the user stops it (Esc): while the model answered,
or while a tool ran or waited for permission; by what was stopped. It sends it with the next request, if any."""


def _interrupts(blocks: list[dict[str, Any]]) -> bool:
    """Whether a user record's ``blocks`` end on Claude Code's note that the user stopped it (``_INTERRUPTIONS``)."""
    return bool(blocks) and blocks[-1]["type"] == "text" and blocks[-1].get("text") in _INTERRUPTIONS


def _blank(block: dict[str, Any]) -> bool:
    """A text block of white space only: Claude Code records them in replies, and sends none of them back."""
    return block["type"] == "text" and (not (text := block.get("text", "")) or text.isspace())  # no stripped copy


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
        raise where.error(f"expected the {kind} message (an object), got {type_name(message)}")
    for name in ("role", "content"):
        if name not in message:
            raise where.at(name).error(f"missing from the {kind} message")
    if message["role"] != kind:
        raise where.at("role").error(f"expected {kind!r} in {a_noun(kind)} record, got {shown(message['role'])}")
    for name in ("id", "model"):  # null: not recorded
        if message.get(name) is not None and not isinstance(message[name], str):
            raise where.at(name).error(f"expected text, got {type_name(message[name])}")
    content = message.get("content")
    if isinstance(content, str):
        return
    if not isinstance(content, list):
        raise where.at("content").error(f"expected text or a list of blocks, got {type_name(content)}")
    if plain_blocks(content):
        return
    for j, block in enumerate(content):
        try:
            check_block(block, f"content[{j}]")
        except ValueError as error:
            raise where.error(str(error)) from None


def _model_calls(
    calls: list[_Reply],
    turns: list[dict[str, Any]],
    path: str,
    warnings: list[RunWarning],
    kept: _Kept | None = None,
) -> tuple[list[dict[str, Any]], list[int]]:
    """A model call record for each reply the thread holds (one per ``message.id``), with its usage as recorded, and
    the line of each: its reply's last record's, where a user finds it in their file.

    The reply's content is joined from its records; the step it is made for is the one its
    turn decided. A reply that is not a ``Message`` the run file can hold is named in a warning.
    ``kept``: a follower's, whose records for the calls before its mark are taken as they are.
    """
    out: list[dict[str, Any]] = []
    lines: list[int] = []
    if kept is not None:
        out, lines = kept.records, kept.lines
        del out[kept.valid_calls :], lines[kept.valid_calls :]
    for call in calls[len(out) :]:
        content = turns[call.turn]["content"]
        if call.start or call.end != len(content):
            content = content[call.start : call.end]
        response = {**call.message, "content": content}  # the message as read has no content
        try:
            check_reply(response, where="message", blocks_checked=True)  # each block was, as it was read
        except ValueError as error:
            warnings.append(Where(path, call.line).warning(f"{error}: the reply is not kept as a model call"))
            if kept is not None:
                kept.usable = False  # the calls after it are not in line with the conversation's
            continue
        made = {"type": "model_call", "step": (call.turn - 1) // 2, "response": response}
        if call.retried:
            made["retried"] = call.retried
        out.append(made)
        lines.append(call.line)
    return out, lines


def _unanswered(turns: list[dict[str, Any]], where: Where, warnings: list[RunWarning], kept: _Kept | None) -> None:
    """Add to ``warnings`` one for each reply whose tool uses the turn after it leaves unanswered (as
    ``conversation_run`` checks); ``kept``: a follower's, whose findings before its mark are taken as they are."""
    first = 1
    found: list[tuple[int, RunWarning]] = []
    if kept is not None:
        first = max(1, kept.valid_turns | 1)  # the first assistant turn read again
        found = [(start, warning) for start, warning in kept.unanswered if start < first]
    found.extend(unanswered_warnings(turns, where, first))
    warnings.extend(warning for _, warning in found)
    if kept is not None:
        kept.unanswered = found


def _began(records: list[dict[str, Any]], kept: _Kept | None = None) -> str | None:
    """When the thread of ``records`` began: its first record's ``timestamp`` (the headless output's first message
    that has one), when it is one a run file may hold (``is_timestamp``); ``None`` when the source does not say."""
    stamp = _first(records, "timestamp", kept)
    return stamp if type(stamp) is str and is_timestamp(stamp) else None


def _first(records: list[dict[str, Any]], name: str, kept: _Kept | None = None) -> Any:
    """The value of the first of ``records`` that has the field ``name``; ``kept``: a follower's, whose records
    before its mark were looked at already."""
    if kept is None:
        return next((r[name] for r in records if name in r), None)
    start = min(kept.scanned, kept.valid_records)
    found = kept.firsts.get(name)
    if found is None or found[0] >= start:
        found = next(((start + i, r[name]) for i, r in enumerate(records[start:]) if name in r), (len(records), None))
        kept.firsts[name] = found
    return found[1]


class _Conversation:
    """A thread's parts joined into one conversation: its turns, the compactions between its parts, its replies."""

    def __init__(self, thread: _Thread, path: str, opening: str | None = None) -> None:
        """``opening``: the text the conversation is read as opening with when its first message is a reply (Claude
        Code's headless output, which holds the prompt only when replayed: ``STREAM_PROMPT``); ``None`` refuses it."""
        self.thread = thread
        self.warnings: list[RunWarning] = RunWarnings()  # alike warnings counted as made
        self.turns: list[dict[str, Any]] = []
        self.compactions: list[dict[str, Any]] = []
        self.calls: list[_Reply] = []
        self.records: list[dict[str, Any]] = []
        self.models: list[str] = []
        skipped: Counter[str] = Counter()
        unread: Counter[str] = Counter()
        dropped = 0
        dropped_at: Where | None = None
        turns = self.turns
        single = len(thread.segments) == 1  # one part: its lists as they are (a follower reads the main one on)
        for number, segment in enumerate(thread.segments):
            self.warnings.extend(segment.warnings)
            # the part's step k is the conversation's step len(turns) // 2 + k (a part after a compaction goes on
            # from the turns before it, a user turn of nothing added after a last reply)
            self.warnings.extend(retried.warning(len(turns) // 2) for retried in segment.retried)
            if single:
                self.records = segment.records  # copied, or read as settled, by the run made of it (``_run``)
                self.models = segment.models
            else:
                self.records.extend(segment.records)
                self.models.extend(segment.models)
            skipped.update(segment.skipped)
            unread.update(segment.unread)
            dropped += segment.dropped
            dropped_at = dropped_at or segment.dropped_at
            if not segment.turns:
                if number:
                    self.warnings.append(
                        Where(path, segment.root_line).warning("a compaction with no message after it: left out")
                    )
                continue
            where = Where(path, segment.first_line)
            if segment.turns[0]["role"] != "user" and opening is not None and not number:
                segment.turns.insert(0, {"role": "user", "content": [{"type": "text", "text": opening}]})
                segment.calls[:] = [msgspec.structs.replace(call, turn=call.turn + 1) for call in segment.calls]
                self.warnings.append(
                    where.warning(
                        "the conversation starts with a reply: the prompt it answered is not in the file (Claude Code "
                        "writes it into its headless output only with --replay-user-messages): the first turn is a "
                        "note that says so"
                    )
                )
            if segment.turns[0]["role"] != "user":
                if "parentUuid" not in segment.root:
                    # Claude Code writes the field on every message record (null at a thread's root): without it the
                    # records are not linked, and each one is a thread of its own
                    raise where.error(
                        "the thread starts with an assistant message that has no parentUuid field (Claude Code writes "
                        "one on every message record, null at a thread's root): the file does not link its records, "
                        "so the request it answered cannot be found"
                    )
                raise where.at("parentUuid").error(
                    "the thread starts with an assistant message: the request that it answered is not in this file"
                )
            if not segment.turns[0]["content"]:
                raise where.at("message.content").error("the thread's first message is empty: no opening")
            if not turns:
                base = 0
                if single:
                    self.turns = turns = segment.turns
                else:
                    turns.extend(segment.turns)
            else:
                if turns[-1]["role"] == "assistant":
                    turns.append({"role": "user", "content": None})  # nothing was sent after that reply
                self.compactions.append(_compaction(segment, len(turns) // 2))
                base = len(turns) - 1  # the part's own turn i (its opening is turn 0) is turns[base + i]
                turns.extend(segment.turns[1:])
            if single:
                self.calls = segment.calls
            elif base:
                self.calls.extend(msgspec.structs.replace(call, turn=base + call.turn) for call in segment.calls)
            else:
                self.calls.extend(segment.calls)
        self.skipped = dict(sorted(skipped.items()))
        self.unread = dict(sorted(unread.items()))
        last = thread.segments[-1] if thread.segments else None
        self.failed = last.ended_on if last is not None else None
        """The reply of the failed request the thread ends on, if it ends on one."""
        self.commands_last = last is not None and last.commands_last
        """Whether the last turn holds local commands only: run after the last reply, and sent with no request."""
        self.interrupted = last.interrupted if last is not None else None
        """The user's interruption the thread ends on (but for local commands after it), if it ends on one."""
        if dropped_at is not None:
            first = "" if dropped == 1 else ", the first on this line"
            self.warnings.append(
                dropped_at.warning(
                    f"{dropped} text block(s) of white space only left out of the replies{first}: Claude Code records "
                    'them but does not send them back, as the Messages API refuses them ("text content blocks must '
                    'contain non-whitespace text")'
                )
            )

    def launches(self, index: _Index) -> dict[str, dict[str, Any]]:
        """The sub-agents this conversation started (the step and the id of the tool use that started each), by the
        agent id its result names (``toolUseResult.agentId``) and by the prompt it gave, and the agent forked from it
        that wrote each of its compactions, by the compaction's line; ``index`` holds the transcript's result records
        by the tool use they answer."""
        found: dict[str, dict[str, Any]] = {}
        for compaction in self.compactions:  # its agent, forked from the session, wrote it
            found[f"compaction:{compaction['line']}"] = {
                "step": compaction["step"],
                "compaction_line": compaction["line"],
            }
        for turn_index in range(1, len(self.turns), 2):
            for block in self.turns[turn_index]["content"]:
                if block["type"] != "tool_use" or block.get("name") not in _AGENT_TOOLS:
                    continue
                link = {"step": (turn_index - 1) // 2, "tool_use_id": block.get("id")}
                found[f"use:{block.get('id')}"] = link  # as an agent's .meta.json names it (toolUseId)
                for record in index.answers(block.get("id")):
                    result = record.value.get("toolUseResult")
                    if not isinstance(result, Mapping):
                        continue
                    if isinstance(result.get("agentId"), str):
                        found[f"agent:{result['agentId']}"] = link
                    # a workflow's agents are in the folder its launch names (its run id, its transcripts' folder)
                    for run in (result.get("runId"), result.get("transcriptDir")):
                        if isinstance(run, str) and run.strip("/"):
                            found[f"workflow:{run.rstrip('/').rsplit('/', 1)[-1]}"] = link
                prompt = block["input"].get("prompt") if isinstance(block.get("input"), Mapping) else None
                if isinstance(prompt, str):
                    found.setdefault(f"prompt:{prompt.strip()}", link)
        return found


_ARTICLE = {"user": "a", "assistant": "an"}
_SYNTHETIC = "<synthetic>"
"""The model Claude Code names on a reply it wrote itself: a failed request's (``_Segment.failed``), or one it sends
("No response requested.")."""

_AGENT_TOOLS = ("Task", "Agent", "Workflow")
"""The tools through which Claude Code starts a sub-agent, or a workflow of them."""


def _compaction(segment: _Segment, step: int) -> dict[str, Any]:
    """The header's ``compactions`` entry for a part of the main thread that starts at ``step`` with a summary."""
    root = segment.root
    compaction: dict[str, Any] = {"step": step, "opening": segment.turns[0]["content"]}
    if segment.summary:  # else no record says which blocks are the summary: all are taken for it
        compaction["summary_blocks"] = list(segment.summary)
    metadata = root.get("compactMetadata", root.get("compact_metadata"))  # a transcript's, Claude Code's output's
    if isinstance(metadata, Mapping):
        if isinstance(metadata.get("trigger"), str):
            compaction["trigger"] = metadata["trigger"]
        tokens = metadata.get("preTokens", metadata.get("pre_tokens"))
        if type(tokens) is int:
            compaction["tokens_before"] = tokens
    if isinstance(root.get("timestamp"), str):
        compaction["at"] = root["timestamp"]
    compaction["line"] = segment.root_line
    return compaction


def _end(conversation: _Conversation) -> dict[str, Any] | None:
    """The run's end as the transcript shows it: a last reply that answers (no tool use, ``end_turn``) completed
    the session's work (or the agent's, on a sub-agent's thread), ``at`` its last record, whatever local commands the
    user ran after it (``_local_command``: sent with no request); a thread that stops on a failed request (the reply
    Claude Code wrote for it, ``_Segment.failed``) failed, with what that reply said; one that stops on the user's
    interruption (Claude Code's ``[Request interrupted by user]``, with nothing sent after it but local commands) was
    stopped, ``at`` the interruption; anything else (a tool use, a prompt with no reply) says nothing of how it
    ended."""
    turns = conversation.turns
    whose = "session" if conversation.thread.kind == "main" else "agent"
    failed = conversation.failed
    if failed is not None:  # nothing was sent after it: the thread stopped on it
        failure = {"type": "end", "status": "failed", "reason": f"the {whose}'s last request failed"}
        failure["error"] = _failure(failed) or "no text"
        if isinstance(stamp := failed.value.get("timestamp"), str):
            failure["at"] = stamp
        return failure
    if (interruption := conversation.interrupted) is not None:
        what = _INTERRUPTIONS[interruption.blocks[-1]["text"]]
        stopped = {"type": "end", "status": "stopped", "reason": f"the user interrupted the {whose}'s last {what}"}
        if isinstance(stamp := interruption.value.get("timestamp"), str):
            stopped["at"] = stamp
        return stopped
    if conversation.commands_last:  # a /cost after the last reply: no request was sent with it
        turns = turns[:-1]
    if not turns or turns[-1]["role"] != "assistant" or not conversation.calls:
        return None
    last = conversation.calls[-1]
    if last.turn != len(turns) - 1 or any(block["type"] == "tool_use" for block in turns[-1]["content"]):
        return None
    stop = last.message.get("stop_reason")
    if stop not in (None, "end_turn", "stop_sequence"):
        return None
    end: dict[str, Any] = {"type": "end", "status": "completed", "reason": f"the {whose}'s last reply is an answer"}
    stamp = turns[-1].get("ended_at") if conversation.commands_last else None  # the reply's, not the commands' after it
    if stamp is None and conversation.records:
        stamp = conversation.records[-1].get("timestamp")
    if isinstance(stamp, str):
        end["at"] = stamp
    return end


def _run(
    conversation: _Conversation,
    path: str,
    run_id: str,
    summarise: Summariser | None,
    extra_notes: Mapping[str, Any],
    kept: _Kept | None = None,
    stream: _Stream | None = None,
) -> Run | None:
    """The run of ``conversation``; ``kept``: a follower's, which makes only what its mark did not keep (``None``
    when it cannot: the file is then imported whole); ``stream``: what Claude Code's headless output the conversation
    was read from holds beside its messages."""
    messages = conversation.turns
    if not messages:
        return None
    thread = conversation.thread
    warnings = RunWarnings(conversation.warnings)
    records = conversation.records
    written = "claude-code" if stream is None else "claude-code-stream"
    source: dict[str, Any] = {"format": written, "path": path, "thread": thread.kind}
    for key, name in (
        ("sessionId", "session_id"),
        ("agentId", "agent_id"),
        ("version", "version"),
        ("cwd", "cwd"),
        ("gitBranch", "git_branch"),
    ):
        if key == "agentId" and thread.kind == "main":
            continue  # a sub-agent's id: the main thread's records that have one are a sub-agent's (a forked agent's)
        found = _first(records, key, kept)
        if found is not None:
            source[name] = found
    source.update(thread.notes)
    source.update(extra_notes)
    if kept is not None:
        kept.scanned = len(records)
    calls, call_lines = _model_calls(conversation.calls, messages, path, warnings, kept)
    if kept is not None:
        source["transcript"] = kept.transcript(records)
    else:  # one part's list grows on as a follower reads it on: the run keeps its records as they are now
        source["transcript"] = list(records) if len(thread.segments) == 1 else records
    for key, counted in (("not_sent", conversation.skipped), ("not_read", conversation.unread)):
        # with what the session's notes count outside its threads (``_Transcript.outside_notes``)
        if total := _added(counted, source.get(key, {})):
            source[key] = total
    if conversation.models:
        source["models"] = sorted(set(conversation.models) if kept is None else kept.model_names(conversation.models))
    source["note"] = TRANSCRIPT_NOTE if stream is None else STREAM_NOTE
    where = Where(path, thread.segments[0].first_line, "turns")
    _unanswered(messages, where, warnings, kept)  # the checks conversation_run makes: the turns alternate already
    end = (stream.end() if stream is not None and thread.kind == "main" else None) or _end(conversation)
    made: dict[str, Any] = {
        "where": where,
        "run_id": run_id,
        "source": source,
        "request": {"model": conversation.models[-1]} if conversation.models else {},
        "summarise": summarise,
        "warnings": warnings,
        "replies_checked": True,  # each reply, by _model_calls
        "compactions": conversation.compactions,
        "end": end,
        "started_at": _began(records, kept),
    }
    if kept is None:
        # already in wire form: string content made a text block, each block checked as read
        return checked_run(messages, calls=calls, call_lines=call_lines, **made)
    typed = kept.typed_calls(calls, call_lines, end)
    if typed is None:
        return None
    run = checked_run(messages, **made)  # the header: the steps and calls are the follower's
    # the steps before the mark are kept as made: only the calls read again (those of the steps made now) give stops
    steps, step_records = kept.steps(with_stop_reasons(messages, calls[kept.valid_calls :]))
    run = replace(run, steps=steps, step_records=step_records, model_calls=typed)
    return replace(run, records=_RunRecords(run, typed))


class _Kept:
    """What a follower keeps of the main run it made last, for the next (see ``GrowingSession``)."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []
        """The model call records, one a reply of the conversation."""
        self.lines: list[int] = []
        """The line of each of those calls (``_model_calls``)."""
        self.unanswered: list[tuple[int, RunWarning]] = []
        """The turns of replies left unanswered, and the warning of each."""
        self.valid_calls = 0
        """How many of the calls are before the mark (the others are made again)."""
        self.valid_records = 0
        """How many of the message records are before the mark."""
        self.settled_records = 0
        """How many of the message records the transcripts made so far read from the segment's list (``transcript``)."""
        self.firsts: dict[str, tuple[int, Any]] = {}
        self.scanned = 0
        """The first record that has each field (``_first``): its position and the field's value; how many records
        were looked at."""
        self.valid_turns = 0
        """How many of the turns are before the mark."""
        self.valid_models = 0
        """How many of the conversation's model names (one a reply) are before the mark."""
        self.models: dict[str, int] = {}
        """Each model's name, and the first reply (among the conversation's) it gave."""
        self.made_steps: _Made[Step] = _Made()
        self.made_records: _Made[Mapping[str, Any]] = _Made()
        """The steps and their records, made from the turns."""
        self.made_calls: _Made[ModelCall] = _Made()
        """The model calls, read as a run's."""
        self.usable = True
        """``False`` once what the follower kept does not line up with a fresh import: it imports the file whole."""

    def transcript(self, records: list[dict[str, Any]]) -> _Settled[dict[str, Any]]:
        """``source.transcript`` of the run made of ``records`` (the main segment's, read on at each growth): those
        before the mark read from that list, which later growth never changes, not copied; the others as they are."""
        self.settled_records = min(self.valid_records, len(records))
        return _Settled(records, self.settled_records)

    def model_names(self, models: list[str]) -> Iterable[str]:
        """The names of ``models`` (the conversation's, one a reply), those before the mark counted already."""
        valid, first = self.valid_models, self.models
        for name in [name for name, at in first.items() if at >= valid]:
            del first[name]
        for at in range(valid, len(models)):
            first.setdefault(models[at], at)
        return first.keys()

    def steps(self, turns: Sequence[Mapping[str, Any]]) -> tuple[_Settled[Step], _ByIndex]:
        """The steps of ``turns`` and their records, as ``ConversationSteps`` makes them: those whose turns are
        before the mark kept from the run before (views made of it made them already), the others made now."""
        made = ConversationSteps(turns)
        valid = max(0, (self.valid_turns - 1) // 2)
        self.made_records.keep(valid)
        for index in range(self.made_steps.keep(valid), made.count):
            step, record = made.made(index)
            self.made_steps.append(step)
            self.made_records.append(record)
        return self.made_steps.snapshot(), _ByIndex(self.made_records.snapshot())

    def typed_calls(
        self, records: list[dict[str, Any]], lines: list[int], end: Mapping[str, Any] | None
    ) -> Sequence[ModelCall] | None:
        """The calls read as ``read_records`` reads them, each at its line of ``lines``; ``None`` when one of them (or
        the end record) would add a warning of its own, which only an import of the whole file places right."""
        if end is not None:
            doubted: list[str] = []
            read_record(dict(end), 0, [], "", doubted=doubted)
            if doubted:
                return None
        typed = self.made_calls
        for position in range(typed.keep(self.valid_calls), len(records)):
            record = dict(records[position])
            unknown: list[str] = []
            doubts: list[str] = []
            call = read_record(
                record, lines[position], unknown, "", blocks=False, keep=True, reply=False, doubted=doubts
            )
            if unknown or doubts or not isinstance(call, ModelCall):
                self.usable = False
                return None
            typed.append(call)
        return typed.snapshot()


class _Made(Generic[T]):
    """What a follower made of the conversation (its steps, its calls), item by item: the items before the mark are
    kept from growth to growth, those after it are made again, and each run reads a ``snapshot``."""

    def __init__(self) -> None:
        self.items: list[T] = []
        self._settled = 0
        """How many of the items the snapshots made so far read from ``items`` (the rest they hold)."""

    def keep(self, valid: int) -> int:
        """Keep the first ``valid`` items (at most); how many there are now."""
        if valid < self._settled:  # a mark that went back: the snapshots made so far keep the old list
            self.items = self.items[:valid]
        else:
            del self.items[valid:]
        self._settled = len(self.items)
        return self._settled

    def append(self, item: T) -> None:
        self.items.append(item)

    def snapshot(self) -> _Settled[T]:
        return _Settled(self.items, self._settled)


class _Settled(Sequence[T]):
    """A snapshot of a ``_Made``: its first ``settled`` items, which later growth never changes, read from its list,
    and the others as they were then."""

    __slots__ = ("_items", "_settled", "_tail")

    def __init__(self, items: list[T], settled: int) -> None:
        self._items = items
        self._settled = settled
        self._tail = tuple(items[settled:])

    def __len__(self) -> int:
        return self._settled + len(self._tail)

    @overload
    def __getitem__(self, at: int) -> T: ...
    @overload
    def __getitem__(self, at: slice) -> Sequence[T]: ...
    def __getitem__(self, at: int | slice) -> T | Sequence[T]:
        if isinstance(at, slice):
            return [self[i] for i in range(*at.indices(len(self)))]
        position = at + len(self) if at < 0 else at
        if not 0 <= position < len(self):
            raise IndexError("index out of range")
        return self._items[position] if position < self._settled else self._tail[position - self._settled]

    def __iter__(self) -> Iterator[T]:
        return chain(islice(self._items, self._settled), self._tail)

    def __eq__(self, other: object) -> bool:
        return bool(_same_items(self, other)) if isinstance(other, Sequence) else NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal to lists and tuples alike, so not hashable


class _ByIndex(Mapping[int, Mapping[str, Any]]):
    """The step records of a followed run, by index: the steps of a conversation are numbered from 0."""

    __slots__ = ("_records",)

    def __init__(self, records: Sequence[Mapping[str, Any]]) -> None:
        self._records = records

    def __getitem__(self, index: int) -> Mapping[str, Any]:
        if type(index) is not int or not 0 <= index < len(self._records):
            raise KeyError(index)
        return self._records[index]

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self._records)))

    def __len__(self) -> int:
        return len(self._records)

    def items(self) -> _IndexedItems:
        return _IndexedItems(self)


class _IndexedItems(ItemsView[int, Mapping[str, Any]]):
    """``_ByIndex.items()``: read in one pass over the records (a run's views read them all at each growth)."""

    _mapping: _ByIndex

    def __iter__(self) -> Iterator[tuple[int, Mapping[str, Any]]]:
        return enumerate(self._mapping._records)


def _same_items(sequence: Sequence[Any], other: Sequence[Any]) -> bool:
    """``sequence == other`` for a sequence that compares equal to any other of the same items."""
    return (
        not isinstance(other, str)
        and len(sequence) == len(other)
        and all(a == b for a, b in zip(sequence, other, strict=True))
    )


class _RunRecords(Sequence[Mapping[str, Any]]):
    """``Run.records`` of a followed session's run: the header, the steps' records, the calls', the end."""

    __slots__ = ("_calls", "_run")

    def __init__(self, run: Run, calls: Sequence[ModelCall]) -> None:
        self._run = run
        self._calls = calls

    def __len__(self) -> int:
        return 1 + len(self._run.steps) + len(self._calls) + (self._run.end is not None)

    @overload
    def __getitem__(self, at: int) -> Mapping[str, Any]: ...
    @overload
    def __getitem__(self, at: slice) -> Sequence[Mapping[str, Any]]: ...
    def __getitem__(self, at: int | slice) -> Mapping[str, Any] | Sequence[Mapping[str, Any]]:
        if isinstance(at, slice):
            return [self[i] for i in range(*at.indices(len(self)))]
        run, position = self._run, at + len(self) if at < 0 else at
        if not 0 <= position < len(self):
            raise IndexError("record index out of range")
        steps = len(run.steps)
        if position == 0:
            return run.header
        if position <= steps:
            return run.step_records[position - 1]
        if position <= steps + len(self._calls):
            return self._calls[position - 1 - steps].record
        assert run.end is not None
        return run.end

    def __eq__(self, other: object) -> bool:
        return bool(_same_items(self, other)) if isinstance(other, Sequence) else NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal to lists and tuples alike, so not hashable


def _subagent_files(path: str, session: str | None, sessions: dict[str, str | None] | None = None) -> list[Path]:
    """The transcripts of the sub-agents of the session at ``path`` (its id ``session``): ``<session-id>/subagents/
    *.jsonl``, then the agents of each workflow the session ran, ``subagents/workflows/<run id>/agent-*.jsonl`` (beside
    them, the workflow's ``journal.jsonl`` is its runtime's ledger of each agent's result, not a conversation: not
    read), then the files Claude Code 2.0 wrote beside the session's (``_beside``)."""
    # os.path: a follower looks at each growth; a session archived with gzip keeps its folder's name
    folder = os.path.join(os.path.splitext(path.removesuffix(".gz"))[0], "subagents")
    beside = _beside(path, session, {} if sessions is None else sessions)
    if not os.path.isdir(folder):
        return beside
    files = sorted(Path(folder, name) for name in os.listdir(folder) if name.endswith((".jsonl", ".jsonl.gz")))
    workflows = os.path.join(folder, "workflows")
    runs = sorted(os.listdir(workflows)) if os.path.isdir(workflows) else []
    for run in runs:
        if os.path.isdir(agents := os.path.join(workflows, run)):
            files += sorted(Path(agents, name) for name in os.listdir(agents) if _AGENT_FILE.fullmatch(name))
    return files + beside


def _beside(path: str, session: str | None, sessions: dict[str, str | None]) -> list[Path]:
    """The sub-agents' transcripts Claude Code 2.0 wrote beside the session's, in the project's folder
    (``agent-<id>.jsonl``, each naming its session in ``sessionId``): those of the session ``session`` (else of the
    one its file is named after). Each agent file's session is read off its first line once, kept in ``sessions`` by
    path (a follower's, across its growths); an agent's transcript read alone has none beside it."""
    folder, name = os.path.split(path)
    if _AGENT_FILE.fullmatch(name):
        return []
    ids = {session, os.path.splitext(name.removesuffix(".gz"))[0]} - {None, ""}
    found = []
    for other in sorted(os.listdir(folder or ".")):
        if not _AGENT_FILE.fullmatch(other):
            continue
        agent = os.path.join(folder, other)
        if sessions.get(agent) is None:  # not read yet, or its first line named no session yet
            sessions[agent] = _session_of(agent)
        if sessions[agent] in ids:
            found.append(Path(agent))
    return found


def read_with_session(path: str | os.PathLike[str]) -> str | None:
    """The session's transcript that reads the file at ``path`` as one of its sub-agents' runs, when it is there:
    ``<session-id>.jsonl`` (or ``.jsonl.gz``) for a file under its ``<session-id>/subagents/`` folder (a workflow's
    agents and ledger one folder deeper), and for Claude Code 2.0's ``agent-<id>.jsonl`` the transcript beside it of
    the session its first line names; ``None`` for any other file."""
    folder, name = os.path.split(os.path.abspath(path))
    here = Path(folder)
    if here.parent.name == "workflows" and here.parent.parent.name == "subagents":
        here = here.parent.parent
    if here.name == "subagents":
        stem = str(here.parent)
    elif _AGENT_FILE.fullmatch(name) and (session := _session_of(os.fspath(path))):
        stem = os.path.join(folder, session)
    else:
        return None
    return next((stem + suffix for suffix in (".jsonl", ".jsonl.gz") if os.path.isfile(stem + suffix)), None)


def without_sub_agents(paths: Sequence[str]) -> list[str]:
    """``paths`` (the files of a folder) without those a session's transcript among them reads as its sub-agents'
    runs (``read_with_session``): a reader of every file of a folder of sessions reads each sub-agent once, with its
    session, not again on its own."""
    named = {os.path.abspath(path) for path in paths}
    return [path for path in paths if read_with_session(path) not in named]


def _session_of(path: str) -> str | None:
    """The ``sessionId`` the first line of the transcript at ``path`` names; ``None`` for a file whose first line
    names none (not written yet, or not a transcript: it is no sub-agent of any session found beside it).

    At most ``_FIRST_LINE_BYTES`` of the line are read: a longer one (an agent given a long prompt) is looked up by
    its ``sessionId`` field, which Claude Code writes before the message, and a file of no lines at all (a large
    binary file so named) costs no more than that."""
    try:
        opened, _ = open_inflated(path)
        with opened as file:
            first = file.readline(_FIRST_LINE_BYTES)
    except (OSError, EOFError, zlib.error):
        return None
    if len(first) == _FIRST_LINE_BYTES and not first.endswith(b"\n"):
        found = _SESSION_FIELD.search(first)
        return found.group(1).decode("utf-8", "replace") if found else None
    try:
        value = _MSGSPEC.decode(first)
    except (msgspec.DecodeError, RecursionError):
        return None
    session = value.get("sessionId") if type(value) is dict else None
    return session if type(session) is str else None


_FIRST_LINE_BYTES = 1 << 20
"""The most of an agent file's first line ``_session_of`` reads (1 MiB)."""
_SESSION_FIELD = re.compile(rb'"sessionId"\s*:\s*"([^"\\]*)"')
"""A record's ``sessionId`` field, as Claude Code writes it (a uuid: no escape in it)."""


_AGENT_FILE = re.compile(r"agent-.*\.jsonl(?:\.gz)?")
"""The name of an agent's transcript: in its workflow's folder, or (Claude Code 2.0) beside its session's."""


def _meta_path(transcript: str) -> str:
    """Where Claude Code writes what it knows of the sub-agent whose transcript is at ``transcript``:
    ``agent-<id>.meta.json`` beside ``agent-<id>.jsonl`` (or ``agent-<id>.jsonl.gz``, the transcript compressed), or
    ``agent-<id>.meta.json.gz`` where that alone is there (the two compressed, as ``gzip -r`` leaves a folder)."""
    path = os.path.splitext(transcript.removesuffix(".gz"))[0] + ".meta.json"
    return path + ".gz" if not os.path.exists(path) and os.path.exists(path + ".gz") else path


def _agent_meta(transcript: _Transcript) -> dict[str, Any] | None:
    """What Claude Code wrote of a sub-agent beside its transcript (its type, description, the id of the tool use
    that started it, ...): the JSON object of its ``.meta.json`` (or ``.meta.json.gz``, inflated), when there is one.
    A file that is not one is named in a warning on the agent's run, and left out."""
    path = _meta_path(transcript.path)
    try:
        meta = _MSGSPEC.decode(file_bytes(path, transcript.warnings))
    except FileNotFoundError:
        return None
    except OSError as error:
        problem = f"cannot read the file ({error.strerror or error})"
    except RunFileError as error:  # a gzip stream that cannot be inflated, or past what one may inflate to
        problem = error.what
    except (msgspec.DecodeError, RecursionError) as error:
        problem = f"not JSON ({error})"
    else:
        if type(meta) is dict:
            return meta
        problem = f"expected a JSON object, got {type_name(meta)}"
    transcript.warnings.append(Where(path, 1).warning(f"{problem}: the sub-agent's description is left out"))
    return None


def _workflow_of(path: str) -> str | None:
    """The run id of the workflow whose agent's transcript is at ``path`` (``.../subagents/workflows/<run id>/``)."""
    folder = Path(path).parent
    return folder.name if (folder.parent.name, folder.parent.parent.name) == ("workflows", "subagents") else None


def from_claude_code(
    path: str | os.PathLike[str],
    *,
    summarise: Summariser | None = None,
    subagents: bool = True,
) -> list[Run]:
    """The runs of a Claude Code session transcript: the main thread first, whole, then each sub-agent's.

    Each request the session made is one step and one model call: a reply's records (one a
    block, sharing its ``message.id``) are one assistant turn, and its results one user turn
    in the order the file wrote them (the order they finished, as Claude Code sent them), however
    the file interleaved them with the reply's records. The main thread's run
    covers the whole session; each compaction is in its header's ``compactions`` (the step it
    comes before, the summary the conversation started anew with, its trigger and size), so a
    view before it is the conversation as it was then and a view after it starts from the
    summary. Each sidechain (a sub-agent's thread) is a run whose ``run_id`` names the session
    and the agent (``<session>/agent-<id>``; the run of another file of an agent read already is numbered after it,
    ``<session>/agent-<id>/1``, with a warning naming the first's file, so that each id is one run's), linked both
    ways with the step whose tool use started it (``source.parent``,
    ``source.subagents``); with ``subagents``, the files of ``<session-id>/subagents/`` beside
    the transcript are read too (and Claude Code 2.0's ``agent-<id>.jsonl`` beside it that name the
    session), and those of each workflow's agents in
    ``subagents/workflows/<run id>/`` (a workflow agent's run names its workflow in
    ``source.workflow``, and the step whose ``Workflow`` tool use launched it); what Claude Code
    wrote of an agent beside its transcript (``agent-<id>.meta.json``) is its run's ``source.meta``,
    and the tool use it names is the one that started it. An agent forked from the session (the
    one that writes a compaction's summary, ``agent-acompact-*.jsonl``), whose records hang from
    the session's, is the conversation it was sent: the session's up to the record it went on from
    (``source.forked_from``: that record's line, and how many of the run's first steps are the
    session's), its own records after those they hang from; its model calls are its own replies,
    and it is linked both ways with the compaction it wrote (``compaction_line``).
    What its file holds of the session's requests before its own (the hook reminders the session's
    file leaves out) is read into the main run's turns too, with a warning naming each. Every run's
    ``source`` keeps the session's id, version, working directory and branch, the models that
    replied, and each message record's fields beside its content (``transcript``, with
    ``toolUseResult``); the session's ``summary`` titles, and the lines of the records that are
    in no thread (``file-history-snapshot``, ``last-prompt``, ...), are in the main run's source.
    Each model call keeps its reply's ``message.id``, ``stop_reason`` and ``usage`` as recorded,
    so ``frame.model_calls_frame`` shows the tokens each request really took. A run whose last
    reply is an answer has an ``end`` record (``completed``).

    ``summarise`` gives each result a summary, for the view under the contract's window.
    Raises ``RunFileError`` naming the file, line and field of a record of the session's file
    that cannot be read; a sub-agent's file that cannot be read is left out, and the main run
    says so (``_session_runs``). What is read with a doubt (a cut-short last line, a
    ``parentUuid`` pointing to a record not in the file, branches the conversation left, a
    message right after another of its role, text blocks of white space only left out) is a
    warning on the run.
    """
    name = os.fspath(path)
    session = _Transcript(name)
    agents = [os.fspath(file) for file in _subagent_files(name, session.session)] if subagents else []
    return _session_runs(session, agents, summarise)


def _session_runs(session: _Transcript, agents: list[str], summarise: Summariser | None) -> list[Run]:
    """The runs of a session's transcript and of its sub-agents' files (``agents``, paths).

    A sub-agent's file that cannot be read (``RunFileError``: a line that is not JSON, a thread
    that starts with a reply, ...) is left out, and the session's run says so: a warning naming
    that file, its line and what is wrong, of a record lost (``agentrender check`` reports it as
    an error). One agent's file does not keep the session and its other agents from being read;
    nothing is left out unsaid.
    """
    transcripts = [session]
    unread: list[RunWarning] = []
    for name in agents:
        try:
            transcripts.append(_Transcript(name, agent=True))
        except RunFileError as error:
            unread.append(_unread(error))
    while True:
        try:
            runs = _runs(transcripts, summarise)
        except RunFileError as error:
            at = next((n for n, transcript in enumerate(transcripts) if n and transcript.path == error.path), None)
            if at is None:  # the session's own file: nothing of it can be read
                raise
            del transcripts[at]  # read the others again without it (its forked threads may reach into the session's)
            unread.append(_unread(error))
            continue
        if unread:
            runs[0] = _with_warnings(runs[0], unread)
        return runs


def _id_prefix(path: str) -> str:
    """What begins the ids made in a sub-agent's file (``_Transcript.id_prefix``): its name without ``.jsonl`` (or
    ``.jsonl.gz``), each character a tool use id cannot hold (the Messages API's ``[a-zA-Z0-9_-]``) as ``_``, then
    ``-``. No id made in the session's file begins so, so the ids of a run that holds records of both are its own."""
    name = os.path.basename(path).removesuffix(".gz").removesuffix(".jsonl")
    return re.sub(r"[^a-zA-Z0-9_-]", "_", name) + "-"


def _unread(error: RunFileError) -> RunWarning:
    """The warning of a sub-agent's file that ``error`` kept from being read."""
    what = f"a sub-agent's file that cannot be read, left out with its runs: {error.what}"
    return RunWarning(line=error.line, text=what, path=error.path, lost=True)


def _runs(transcripts: list[_Transcript], summarise: Summariser | None) -> list[Run]:
    """The runs of a session's transcripts: its own file's first, then its sub-agents' files'."""
    made: list[tuple[_Transcript, list[tuple[str, _Conversation, dict[str, Any]]]]] = []
    session = ""
    opened: _Conversation | None = None  # the session's main thread: what started each sub-agent is in its turns
    given: dict[str, tuple[int, str]] = {}  # each run id given, the number its next copy takes, and its run's file
    renamed: dict[str, str] = {}  # the run id given instead of one taken, and why
    main_threads = _main_threads(transcripts)
    for number, transcript in enumerate(transcripts):
        session = session or transcript.session or Path(transcript.path).stem
        sidechains = 0
        conversations = []
        # a sub-agent's file: its workflow, and what Claude Code wrote of the agent beside it, read once for its threads
        workflow = _workflow_of(transcript.path)
        meta = _agent_meta(transcript) if number > 0 else None
        stream = transcript.stream
        for thread in main_threads if number == 0 else transcript.threads():
            conversation = _Conversation(thread, transcript.path, None if stream is None else STREAM_PROMPT)
            extra: dict[str, Any] = {} if stream is None else stream.notes(thread.kind)
            if thread.kind == "main":
                run_id = session
                extra.update(transcript.outside_notes())
                if number == 0:
                    opened = conversation
            else:
                sidechains += 1
                agent = _agent(conversation.records, stream)
                if stream is not None and agent:
                    extra["agent_id"] = agent
                run_id = f"{session}/agent-{agent}" if agent else f"{session}/sidechain-{sidechains}"
                if workflow is not None:
                    extra["workflow"] = workflow
                if meta is not None:
                    extra["meta"] = meta
            if run_id in given:  # two files of one agent (or of none): the later numbered, as a log's conversations
                copy, other = given[run_id]
                while f"{run_id}/{copy}" in given:
                    copy += 1
                given[run_id] = (copy + 1, other)
                taken, run_id = run_id, f"{run_id}/{copy}"
                renamed[run_id] = f"{taken} is also the id of the run of {other}: this run is renamed {run_id}"
            given[run_id] = (1, transcript.path)
            conversations.append((run_id, conversation, extra))
        made.append((transcript, conversations))
    # each sub-agent names the step of the main thread that started it, and the main thread each sub-agent
    started: list[dict[str, Any]] = []
    launches: dict[str, dict[str, Any]] | None = None  # looked for once, when a sub-agent's run is to be linked
    for _, conversations in made:
        for run_id, conversation, extra in conversations:
            if conversation.thread.kind != "sidechain" or not conversation.turns:
                continue
            if launches is None:
                launches = opened.launches(transcripts[0].index) if opened is not None else {}
            agent = _agent(conversation.records, transcripts[0].stream)
            opening = "\n".join(
                block.get("text", "") for block in conversation.turns[0]["content"] if block["type"] == "text"
            ).strip()
            in_workflow, started_by = extra.get("workflow"), extra.get("meta", {}).get("toolUseId")
            if transcripts[0].stream is not None:  # the output names a sub-agent by the tool use that started it
                started_by = agent
            notes = conversation.thread.notes
            if "forked_from" in notes:  # its opening is the session's: linked only to the compaction it wrote
                link = launches.get(f"compaction:{notes.get('compaction_line')}")
            else:
                link = (
                    (launches.get(f"use:{started_by}") if isinstance(started_by, str) else None)
                    or (launches.get(f"workflow:{in_workflow}") if in_workflow else None)
                    or launches.get(f"agent:{agent}")
                    or launches.get(f"prompt:{opening}")
                )
            if link is not None:
                extra["parent"] = {"run_id": session, **link}
                started.append({"run_id": run_id, **link})
    runs: list[Run] = []
    for number, (transcript, conversations) in enumerate(made):
        file_runs = []
        for run_id, conversation, extra in conversations:
            if conversation.thread.kind == "main" and started:
                extra["subagents"] = started
            run = _run(conversation, transcript.path, run_id, summarise, extra, stream=transcript.stream)
            if run is not None and run_id in renamed:
                first_line = conversation.thread.segments[0].first_line
                run = _with_warnings(run, [RunWarning(line=first_line, text=renamed[run_id], path=transcript.path)])
            if run is not None:
                file_runs.append(run)
        if not file_runs:
            if number == 0:
                raise _nothing_sent(transcript)
            continue
        file_runs[0] = _with_warnings(file_runs[0], transcript.all_warnings())
        runs.extend(file_runs)
    return runs


def _agent(records: list[dict[str, Any]], stream: _Stream | None) -> Any:
    """The id of the sub-agent whose message ``records`` are: their ``agentId``, or in Claude Code's headless output
    (``stream``) the id of the tool use that started it (``parent_tool_use_id``), which names it there."""
    return _first(records, "agentId" if stream is None else "parent_tool_use_id")


def _main_threads(transcripts: list[_Transcript]) -> list[_Thread]:
    """The threads of the session's own file (``transcripts[0]``), with the messages its main thread sent that only
    the file of an agent forked from it holds (``_Transcript.revealed``), each said in a warning; each sub-agent's
    file gets the session's as its ``base``."""
    session = transcripts[0]
    session.revealed, session.revealed_in = {}, {}
    threads = session.threads()
    for transcript in transcripts[1:]:
        transcript.base = session  # what an agent forked from the session goes on from
        for uuid, records in transcript.sent_by_session().items():
            # two agents forked from the session (a compaction's, a prompt suggestion's) keep the same message alike
            new = [record for record in records if record.uuid not in session.revealed_in]
            session.revealed.setdefault(uuid, []).extend(new)
            session.revealed_in.update((record.uuid, transcript.path) for record in new)
    if not session.revealed:
        return threads
    threads = session.threads()  # read again, with them
    by_uuid = session.by_uuid
    for records in session.revealed.values():
        line = 0
        for record in records:  # chains, each hanging from a record of the session's by its first
            line = by_uuid[record.parent].line if record.parent in by_uuid else line
            session.found.append(
                Where(session.revealed_in[record.uuid], record.line, "parentUuid").warning(
                    f"a message the session's file does not hold, sent after its line {line}: read into the main "
                    "thread's turns from this file (an agent forked from the session wrote it)"
                )
            )
    return threads


def _nothing_sent(transcript: _Transcript) -> RunFileError:
    """The error for a transcript that holds no message. Its ``api_error`` records, if it has any, say that requests
    were sent and failed, though not what they held: the error names them, at the first one's line."""
    failed = sorted((r for r in transcript.by_uuid.values() if _note_name(r) == "system/api_error"), key=_LINE)
    if transcript.stream is not None:
        held = ", ".join(sorted(transcript.outside_lines)) or "nothing"
        return RunFileError(
            transcript.path,
            1,
            f"no user or assistant message in Claude Code's output: nothing of the conversation is in it (it holds "
            f"{held}); `claude -p --output-format stream-json --verbose` writes the conversation's messages",
        )
    if not failed:
        return RunFileError(transcript.path, 1, "no user or assistant message in the transcript: nothing was sent")
    return RunFileError(
        transcript.path,
        failed[0].line,
        f"no user or assistant message in the transcript: what was sent is not in the file, but Claude Code's "
        f"{'requests' if len(failed) > 1 else 'request'} failed ({_api_errors_at([r.line for r in failed])}; the "
        f"first: {_error_said(failed[0].value)})",
    )


def _api_errors_at(lines: list[int]) -> str:
    """Where a transcript's ``api_error`` records are, as its warnings and errors say it: ``"system/api_error at line
    4"``, ``"system/api_error at lines 4-6, 9"``."""
    return f"system/api_error at line{'s' if len(lines) > 1 else ''} {number_ranges(lines)}"


def _with_warnings(run: Run, notes: list[RunWarning]) -> Run:
    return replace(run, warnings=(*notes, *run.warnings)) if notes else run


class GrowingSession(GrowingFile):
    """A Claude Code session read as Claude Code writes it: each ``grow`` reads only the bytes the file gained.

    The records read stay decoded and indexed (``_Transcript.add``). When the new records go on
    the main thread from where it ended (new turns, more of the last reply, its results), its
    reading is taken up again from the start of its last assistant turn (``_Requests.take_more``),
    and its run is made from what the one before kept (``_Kept``): a new turn costs the turn,
    however long the session is. Anything else (a sub-agent's thread or file, a compaction, a
    rewind to an earlier message, a record for a turn before the last, a uuid written twice, a
    reply the run cannot keep) makes the runs again from every record held, as
    ``from_claude_code`` would from the file (the file is not read again).

    A last line whose newline is not written yet waits (``pending``); ``grow`` takes the lines before it.
    """

    def __init__(self, path: str | os.PathLike[str], *, subagents: bool = True) -> None:
        super().__init__(os.fspath(path))
        self.subagents = subagents
        self.runs: list[Run] = []
        """The runs made at the last growth, as ``from_claude_code`` of the lines read would give them."""
        self._transcript = _Transcript(self.path, [])
        self._files: list[tuple[str, int, int]] = []  # each sub-agent file read, and its sidecar: name, size, time
        self._sessions: dict[str, str | None] = {}  # the session each agent file beside the session's names
        self._kept: _Kept | None = None  # None: the next growth makes every run again
        self._leaf: _Record | None = None  # the main thread's last record
        self._first_turn = 0  # the first turn the last reading on read again
        self._changed: int | None = None  # the first step that may have changed at the last growth

    def grow(self) -> tuple[list[Run], int | None] | None:
        """Read what the file (and its sub-agents' files) gained: the runs, and the lowest index of a step of the
        main run that may have changed (``None``: the runs were made again whole; compare them to know).
        ``None`` when no line was completed; ``RunFileError`` for a line that cannot be read (not taken in:
        the next ``grow`` raises it again) or a file whose records are no conversation yet."""
        records = self._new_records()
        self._transcript.add(records)  # its session's id first: the agents' files beside it are found by it
        files = self._subagent_files()
        if not records and files == self._files:
            return None
        kept, self._kept = self._kept, None
        if kept is not None and files == self._files and self._read_on(records, kept):
            self._kept = kept
            return self.runs, self._changed
        self._files = files
        self._make_all()
        return self.runs, None

    def _new_records(self) -> list[_Record]:
        records = []
        transcript = self._transcript
        for number, raw in self.gained():
            try:
                value = _decode(raw)
            except UnicodeDecodeError as error:
                what = f"not UTF-8 text ({error.reason} at byte {error.start})"
                raise RunFileError(self.path, number, what) from None
            except (ValueError, RecursionError) as error:
                raise RunFileError(self.path, number, decode_failure(error)) from None
            records.append(_plain_record(number, value) or _record(number, transcript._checked(value, number)))
        self.taken()
        return records

    def _subagent_files(self) -> list[tuple[str, int, int]]:
        if not self.subagents:
            return []
        files = []
        for file in _subagent_files(self.path, self._transcript.session, self._sessions):
            for name in (os.fspath(file), _meta_path(os.fspath(file))):  # a transcript, then its sidecar
                try:
                    stat = os.stat(name)
                except FileNotFoundError:
                    continue
                files.append((name, stat.st_size, stat.st_mtime_ns))
        return files

    def _make_all(self) -> None:
        transcript = self._transcript
        if not transcript.records:
            raise RunFileError(self.path, 1, "the file holds no transcript record")
        transcript.marking = True
        agents = [name for name, _, _ in self._files if not name_ends(name, SUB_AGENT_META)]  # the sidecars beside them
        self.runs = _session_runs(transcript, agents, None)
        main = transcript.main
        if self._files or main is None or transcript.parts != 1 or len(self.runs) != 1:
            return  # a sub-agent's thread or a compaction: every growth makes the runs again
        kept = _Kept()
        run = self._main_run(main, kept)
        if run is not None and kept.usable:
            self.runs, self._kept, self._leaf = [run], kept, main.chain[-1]

    def _read_on(self, records: list[_Record], kept: _Kept) -> bool:
        """Read ``records`` on from the main thread's last assistant turn (``_changed``: the first step that may
        have changed); ``False`` when they do not simply go on from it."""
        transcript, main, leaf = self._transcript, self._transcript.main, self._leaf
        assert main is not None and leaf is not None  # kept only with them
        if transcript.short:
            return False  # results that do not answer every tool use they hang from yet: refused (threads)
        mark = main.mark
        again = {uuid: None for uuid in main.order[mark.taken :]} if mark is not None and main.order else {}
        last = None
        for record in records:
            if record.sidechain or "logicalParentUuid" in record.value:
                return False  # a sub-agent's thread, or a compaction
            if not record.uuid:
                continue
            if transcript.by_uuid[record.uuid] is not record:
                return False  # the uuid of an earlier record again
            if record.message is None:
                continue
            last = record
            if record.message_id is not None:
                first = transcript.index.replies[False][record.message_id]
                if first.line < records[0].line and first.uuid not in again:
                    return False  # more of a reply before the last
            for block in record.blocks if record.results or record.kind == "user" else ():
                if block["type"] != "tool_result":
                    continue
                answers = block.get("tool_use_id")
                position = main.uses.get(answers)
                if answers in transcript.index.more_results or (
                    position is not None and (mark is None or position < mark.position)
                ):
                    return False  # a result for a turn before the last, or a second one
        tail: list[_Record] = []
        at: _Record | None = last
        while last is not None and at is not leaf:
            if at is None or at.line <= leaf.line or at.parent is None:
                return False  # a rewind to an earlier message, or a chain of its own
            tail.append(at)
            at = transcript.by_uuid.get(at.parent)
        tail.reverse()
        candidates = [*transcript.left, *(transcript.by_uuid[uuid] for uuid in again)]
        candidates += [record for record in records if record.message is not None]
        run = self._main_run(main, kept, tail)
        if run is None:
            return False
        taken = main.taken
        left = {r.uuid: r for r in sorted(candidates, key=_LINE) if r.uuid not in taken}
        transcript.left = list(left.values())
        self.runs = [_with_warnings(run, transcript.all_warnings())]
        self._leaf = main.chain[-1]
        self._changed = max(0, (self._first_turn - 1) // 2) if run.steps else None
        return True

    def _main_run(self, main: _Requests, kept: _Kept, tail: list[_Record] | None = None) -> Run | None:
        """The main run, from ``main`` read on with ``tail`` (``None``: as read), ``kept`` updated."""
        if tail is not None:
            mark = main.mark
            kept.valid_turns = mark.segment[0] if mark is not None else 0
            kept.valid_calls = mark.segment[2] if mark is not None else 0
            kept.valid_records = mark.segment[1] if mark is not None else 0
            kept.valid_models = mark.segment[3] if mark is not None else 0
            if kept.valid_records < kept.settled_records:  # a mark that went back: the transcripts made keep the list
                main.segment.records = list(main.segment.records)
            self._first_turn = main.take_more(tail)
        transcript = self._transcript
        conversation = _Conversation(_Thread([main.segment], "main"), transcript.path)
        session = transcript.session or Path(transcript.path).stem
        run = _run(conversation, transcript.path, session, None, transcript.outside_notes(), kept)
        if run is None or not kept.usable:
            return None
        return run if tail is not None else _with_warnings(run, transcript.all_warnings())
