"""The records a run file may hold: each known field with its JSON types, checked as data.

The reader and the writer check through the same tables, so the writer never writes a
record the reader refuses. ``read_record`` also builds the typed value a ``step`` or a
``model_call`` record is loaded into, while the record is checked.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from typing import Any

from agentrender._fast import BoundedMemo
from agentrender._types import Decision, Observation, Step, check_block
from agentrender.runfile.lines import type_name
from agentrender.runfile.model import ModelCall, kept_call, loaded_call
from agentrender.runfile.replies import check_reply

__all__ = [
    "MAX_COUNT",
    "TIMESTAMP_FIELDS",
    "USAGE_COUNTS",
    "BadRecord",
    "check_record",
    "doubts",
    "is_count",
    "is_milliseconds",
    "is_timestamp",
    "parse_timestamp",
    "read_record",
]


class BadRecord(Exception):
    """A record of the wrong shape: ``where`` names the field, ``what`` says what was wrong."""

    def __init__(self, where: str, what: str) -> None:
        super().__init__(f"{where}: {what}")


_STR = (str,)
_INT = (int,)
_NUMBER = (int, float)
_BOOL = (bool,)
_OBJECT = (dict,)
_LIST = (list,)
_TEXT_OR_LIST: tuple[type, ...] = (str, list)
_ANY: tuple[type, ...] = ()

# Each known field of each record, with the JSON types it may hold (``null`` is accepted
# for every optional field and means "not recorded"). Declared once, as data, so that
# the loader and the writer refuse exactly the same records.
_EXPECTED: dict[tuple[type, ...], str] = {
    _TEXT_OR_LIST: "a string or an array",
    _STR: "a string",
    _INT: "an integer",
    _NUMBER: "a number",
    _BOOL: "a boolean",
    _OBJECT: "an object",
    _LIST: "an array",
}

_RUN_FIELDS: dict[str, tuple[type, ...]] = {
    "type": _STR,
    "format": _STR,
    "run_id": _STR,
    "goal": _STR,
    "opening": _STR,
    "opening_content": _LIST,
    "system": _TEXT_OR_LIST,
    "model": _STR,
    "max_output_tokens": _INT,
    "started_at": _STR,
    "tools": _LIST,
    "source": _OBJECT,
    "request": _OBJECT,
    "summariser": _STR,
    "warnings": _LIST,
    "compactions": _LIST,
}
_COMPACTION_FIELDS: dict[str, tuple[type, ...]] = {
    "step": _INT,
    "opening": _LIST,
    "trigger": _STR,
    "tokens_before": _INT,
    "at": _STR,
    "line": _INT,
}
_WARNING_FIELDS: dict[str, tuple[type, ...]] = {"path": _STR, "line": _INT, "text": _STR, "count": _INT, "lost": _BOOL}
"""A warning the run's maker gave (an importer's, or an earlier reader's), kept in the header's ``warnings``."""
_TOOL_FIELDS: dict[str, tuple[type, ...]] = {
    "name": _STR,
    "description": _STR,
    "input_schema": _OBJECT,
    "read_only": _BOOL,
}
_STEP_FIELDS: dict[str, tuple[type, ...]] = {
    "type": _STR,
    "index": _INT,
    "started_at": _STR,
    "ended_at": _STR,
    "decision": _OBJECT,
    "observation": _OBJECT,
    "sent": _OBJECT,
}
_SENT_FIELDS: dict[str, tuple[type, ...]] = {
    "tool_use_id": _STR,
    "assistant": _LIST,
    "user": _LIST,
    "summaries": _OBJECT,
}
_DECISION_FIELDS: dict[str, tuple[type, ...]] = {
    "kind": _STR,
    "tool": _STR,
    "args": _ANY,
    "reason": _STR,
    "invalid_args": _STR,
    "invalid_base64": _BOOL,
}
_OBSERVATION_FIELDS: dict[str, tuple[type, ...]] = {"status": _STR, "content": _STR, "summary": _STR}
_MODEL_CALL_FIELDS: dict[str, tuple[type, ...]] = {
    "type": _STR,
    "step": _INT,
    "latency_ms": _NUMBER,
    "request_key": _STR,
    "response": _OBJECT,
    "request": _OBJECT,
}
_MODEL_CALL_ERROR_FIELDS: dict[str, tuple[type, ...]] = {
    "type": _STR,
    "step": _INT,
    "latency_ms": _NUMBER,
    "request": _OBJECT,
    "error": _OBJECT,
    "partial": _OBJECT,
}
_ERROR_FIELDS: dict[str, tuple[type, ...]] = {"type": _STR, "message": _STR, "status": _INT, "body": _ANY}
_END_FIELDS: dict[str, tuple[type, ...]] = {"type": _STR, "status": _STR, "reason": _STR, "error": _STR, "at": _STR}


# What a timestamp is, for the loader that warns on one and the frames that read one: an
# ISO 8601 extended-format date, or date and time (RFC 3339's date-time, with the seconds,
# the fraction and the offset optional; no offset means UTC). Upper-case ``T`` and ``Z``
# only, and at most 9 fraction digits: pandas, which reads them into the frames, refuses the rest.
_TIMESTAMP = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?", re.ASCII
)


def parse_timestamp(text: str) -> datetime | None:
    """The time ``text`` stands for, in UTC, when it is a timestamp (``is_timestamp``); else ``None``.

    No offset means UTC; fraction digits past the microsecond are dropped.
    """
    match = _TIMESTAMP.fullmatch(text)
    if match is None:
        return None
    fraction, offset = match[7], match[8]
    # datetime checks that the date, the time and the offset exist; it reads 6 fraction digits at most.
    normal = text[: match.start(7)] if fraction else text[: match.start(8)] if offset else text
    if fraction:
        normal += fraction[:7]
    if offset:
        normal += "+00:00" if offset == "Z" else offset
    try:
        moment = datetime.fromisoformat(normal)
        return moment.astimezone(UTC) if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    except (ValueError, OverflowError):
        return None  # no such date, or an offset that moves it out of years 1 to 9999


def is_timestamp(text: str) -> bool:
    """Whether ``text`` is a timestamp a run file may hold: ISO 8601 / RFC 3339, such as ``2026-01-05T09:00:16Z``.

    The date and time must exist (no month 13, no hour 24, no leap second, years 1 to 9999
    in UTC), and an offset must be under a day. The frames read exactly these
    (``parse_timestamp``); any other text in a timestamp field is kept in its record,
    reported by the loader and read as ``NaT``.
    """
    return parse_timestamp(text) is not None


TIMESTAMP_FIELDS: dict[str, tuple[str, ...]] = {
    "run": ("started_at",),
    "step": ("started_at", "ended_at"),
    "end": ("at",),
}
"""The fields of each record type that hold a timestamp (``is_timestamp``)."""


MAX_COUNT = 2**53 - 1
"""The largest index or count a run file may hold: I-JSON's (RFC 7493) largest exact integer, well inside int64."""

USAGE_COUNTS = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
"""The token counts of a reply's ``usage`` that the frames read."""


def is_count(value: Any) -> bool:
    """Whether ``value`` is a count a run file may hold: an integer from 0 to ``MAX_COUNT``."""
    return type(value) is int and 0 <= value <= MAX_COUNT


def is_milliseconds(value: Any) -> bool:
    """Whether ``value`` is a latency the frames read: a float, or an integer no larger than ``MAX_COUNT``."""
    return type(value) is float or (type(value) is int and -MAX_COUNT <= value <= MAX_COUNT)


def _shown(value: Any) -> str:
    if type(value) is int and abs(value) >= 10**40:
        return f"(an integer of {len(str(abs(value)))} digits)"
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "..."


def doubts(record: Mapping[str, Any]) -> Iterator[str]:
    """What a checked ``record`` holds that it keeps but the frames cannot read, one sentence each.

    A timestamp field that is not a timestamp reads as ``NaT``; a token count of a reply's
    usage that is not a count, or a latency too large for a float, reads as null.
    """
    kind = record["type"]
    for name in TIMESTAMP_FIELDS.get(kind, ()):
        value = record.get(name)
        if value is not None and not is_timestamp(value):
            yield (
                f"{kind}.{name} {_shown(value)} is not an ISO 8601 timestamp (such as 2026-01-05T09:00:16Z); "
                "kept in the record, read as NaT (no time) in the frames"
            )
    if kind != "model_call":
        return
    latency = record.get("latency_ms")
    if latency is not None and not is_milliseconds(latency):
        yield f"model_call.latency_ms {_shown(latency)} is too large; kept in the record, read as null in the frames"
    usage = record["response"].get("usage")
    if usage is not None:
        for name in USAGE_COUNTS:
            value = usage.get(name)
            if value is not None and not is_count(value):
                yield (
                    f"model_call.response.usage.{name} {_shown(value)} is not a count (an integer from 0 to "
                    "2**53 - 1); kept in the record, read as null in the frames"
                )


# Records of one kind nearly always have the same fields holding the same types, so a
# shape (field names, value types) that has passed once is remembered and not checked again.
_shapes: BoundedMemo[tuple[str, tuple[str, ...], tuple[type, ...]], tuple[str, ...]] = BoundedMemo(4096)


def _check_fields(
    value: Mapping[str, Any], fields: Mapping[str, tuple[type, ...]], where: str, unknown: list[str]
) -> None:
    """Check the known fields' types; name the unknown ones in ``unknown``."""
    shape = (where, tuple(value), tuple(map(type, value.values())))
    names = _shapes.get(shape)
    if names is None:
        names = _shapes.keep(shape, tuple(_check_shape(value, fields, where)))
    if names:
        unknown.extend(names)


def _check_shape(value: Mapping[str, Any], fields: Mapping[str, tuple[type, ...]], where: str) -> Iterator[str]:
    for key, item in value.items():
        expected = fields.get(key)
        if expected is None:
            yield f"{where}.{key}"
        elif expected and item is not None and type(item) not in expected:
            raise BadRecord(f"{where}.{key}", f"expected {_EXPECTED[expected]}, got {type_name(item)}")


def _required(value: Mapping[str, Any], key: str, where: str) -> Any:
    item = value.get(key)
    if item is None:
        raise BadRecord(f"{where}.{key}", "missing" if key not in value else "expected a value, got null")
    return item


def _index(value: Mapping[str, Any], key: str, where: str) -> int:
    index: int = _required(value, key, where)
    if not 0 <= index <= MAX_COUNT:
        raise BadRecord(f"{where}.{key}", f"expected 0 to 2**53 - 1, got {_shown(index)}")
    return index


def _objects(
    record: dict[str, Any], key: str, fields: Mapping[str, tuple[type, ...]], unknown: list[str]
) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each item of the header's array ``key``, checked to be an object of ``fields``, with where it is."""
    for position, item in enumerate(record.get(key) or ()):
        where = f"run.{key}[{position}]"
        if type(item) is not dict:
            raise BadRecord(where, f"expected an object, got {type_name(item)}")
        _check_fields(item, fields, where, unknown)
        yield where, item


def _header(record: dict[str, Any], unknown: list[str], blocks: bool = True) -> None:
    _check_fields(record, _RUN_FIELDS, "run", unknown)
    if record.get("max_output_tokens") is not None:
        _index(record, "max_output_tokens", "run")
    for where, tool in _objects(record, "tools", _TOOL_FIELDS, unknown):
        _required(tool, "name", where)
    for where, warning in _objects(record, "warnings", _WARNING_FIELDS, unknown):
        _required(warning, "text", where)
        _index(warning, "line", where)
        if warning.get("count") is not None and _index(warning, "count", where) < 1:
            raise BadRecord(f"{where}.count", "expected 1 or more, got 0")
    opening = record.get("opening_content")
    if opening is not None:
        if type(opening) is not list:
            raise BadRecord("run.opening_content", f"expected an array, got {type_name(opening)}")
        if blocks:
            _check_blocks(opening, "run.opening_content")
    compactions = record.get("compactions")
    if compactions is not None:
        _compactions(compactions, unknown, blocks)


def _compactions(compactions: list[Any], unknown: list[str], blocks: bool) -> None:
    """Each compaction of the header: its step (in increasing order) and the non-empty opening it restarted with.

    That no step is beyond the run's steps is checked once they are read (``read.py``).
    """
    after = -1
    for position, compaction in enumerate(compactions):
        where = f"run.compactions[{position}]"
        if type(compaction) is not dict:
            raise BadRecord(where, f"expected an object, got {type_name(compaction)}")
        _check_fields(compaction, _COMPACTION_FIELDS, where, unknown)
        step = _index(compaction, "step", where)
        if step <= after:
            raise BadRecord(f"{where}.step", f"expected a step above {after} (compactions in increasing step order)")
        after = step
        opening = _required(compaction, "opening", where)
        if not opening:
            raise BadRecord(f"{where}.opening", "expected the blocks the conversation restarted with, got none")
        if blocks:
            _check_blocks(opening, f"{where}.opening")
        for name in ("tokens_before", "line"):
            if compaction.get(name) is not None:
                _index(compaction, name, where)


def _check_blocks(blocks: list[Any], where: str) -> None:
    """Each item of a turn's content, as the Messages API's block it must be."""
    for position, block in enumerate(blocks):
        try:
            check_block(block)
        except ValueError:
            try:
                check_block(block, f"{where}[{position}]")  # again, for the error that names where it is
            except ValueError as error:
                field, _, what = str(error).partition(": ")
                raise BadRecord(field, what) from None


def _step(record: dict[str, Any], unknown: list[str], blocks: bool = True) -> Step:
    _check_fields(record, _STEP_FIELDS, "step", unknown)
    index = _index(record, "index", "step")
    decision = observation = None
    wire = record.get("decision")
    if wire is not None:
        _check_fields(wire, _DECISION_FIELDS, "step.decision", unknown)
        decision = Decision(
            kind=_required(wire, "kind", "step.decision"),
            tool=wire.get("tool") or "",
            args=wire.get("args"),
            reason=wire.get("reason") or "",
            invalid_args=wire.get("invalid_args") or "",
            invalid_base64=wire.get("invalid_base64") or False,
        )
    wire = record.get("observation")
    if wire is not None:
        _check_fields(wire, _OBSERVATION_FIELDS, "step.observation", unknown)
        observation = Observation(
            status=wire.get("status") or "ok", content=wire.get("content") or "", summary=wire.get("summary") or ""
        )
    sent = record.get("sent")
    if sent is not None:
        _check_fields(sent, _SENT_FIELDS, "step.sent", unknown)
        assistant, user = _required(sent, "assistant", "step.sent"), sent.get("user")
        for turn, where in ((assistant, "step.sent.assistant"), (user, "step.sent.user")):
            if turn is not None and type(turn) is not list:
                raise BadRecord(where, f"expected an array, got {type_name(turn)}")
        if blocks:
            _check_blocks(assistant, "step.sent.assistant")
            if user is not None:
                _check_blocks(user, "step.sent.user")
    return Step(index=index, decision=decision, observation=observation)


def _model_call(
    record: dict[str, Any], line: int, unknown: list[str], source: str, keep: bool, reply: bool
) -> ModelCall | None:
    _check_fields(record, _MODEL_CALL_FIELDS, "model_call", unknown)
    step = _index(record, "step", "model_call")
    wire = _required(record, "response", "model_call")
    if reply:
        try:
            check_reply(wire, where="model_call.response")
        except ValueError as error:
            where, _, what = str(error).partition(": ")
            raise BadRecord(where, what) from None
    if keep:
        return kept_call(step, record, record.get("latency_ms"), record.get("request_key") or "", line)
    if not source:
        return None
    return loaded_call(
        step,
        record.get("latency_ms"),
        record.get("request_key") or "",
        line,
        source,
        wire.get("stop_reason") or "",
        wire.get("usage"),
    )


def _model_call_error(record: dict[str, Any], unknown: list[str]) -> None:
    _check_fields(record, _MODEL_CALL_ERROR_FIELDS, "model_call_error", unknown)
    _index(record, "step", "model_call_error")
    error = _required(record, "error", "model_call_error")
    _check_fields(error, _ERROR_FIELDS, "model_call_error.error", unknown)


def _end(record: dict[str, Any], unknown: list[str]) -> None:
    _check_fields(record, _END_FIELDS, "end", unknown)


def check_record(record: Any) -> None:
    """Raise ``ValueError`` naming the field when ``record`` is not a record a run file may hold.

    Unknown record types and unknown fields are accepted; they are reported when read.
    """
    try:
        read_record(record, 0, [], "")
    except BadRecord as error:
        raise ValueError(str(error)) from None


def read_record(
    record: Any,
    line: int,
    unknown: list[str],
    source: str,
    *,
    blocks: bool = True,
    keep: bool = False,
    reply: bool = True,
) -> Step | ModelCall | None:
    """Check ``record`` and give the typed value a ``step`` or ``model_call`` record loads into.

    ``line`` and ``source`` (the text ``record`` was decoded from) go into a model call,
    which is built only when ``source`` is given, or with ``keep``: then it holds ``record`` itself.
    ``reply=False`` leaves a model call's reply (``check_reply``) to a caller that checked it. The
    names of unknown fields are added to ``unknown``; a record of the wrong shape raises
    ``BadRecord``. ``blocks=False`` leaves the recorded turns' blocks (``step.sent``,
    ``opening_content``) to a caller that checked them.
    """
    if type(record) is not dict:
        raise BadRecord("record", f"expected a JSON object, got {type_name(record)}")
    kind = record.get("type")
    if type(kind) is not str:
        if "type" not in record:
            raise BadRecord("type", "missing: every record names its type")
        raise BadRecord("type", f"expected a string, got {type_name(kind)}")
    if kind == "step":
        return _step(record, unknown, blocks)
    if kind == "model_call":
        return _model_call(record, line, unknown, source, keep, reply)
    if kind == "run":
        _header(record, unknown, blocks)
    elif kind == "end":
        _end(record, unknown)
    elif kind == "model_call_error":
        _model_call_error(record, unknown)
    return None
