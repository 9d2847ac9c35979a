"""The records a run file may hold, declared once as frozen ``msgspec.Struct``s: the run file's schema.

A line is checked by converting its record into these structs (``msgspec.convert``, one
pass in C that names the field path of what is wrong); the writer checks through the same
structs, so it never writes a record the reader refuses, and ``json_schema`` publishes them
for runtimes in other languages (``agentrender schema``). ``read_record`` also gives the
typed value a ``step`` or a ``model_call`` record is loaded into.

Unknown fields are kept and reported, never an error: the structs forbid them, so a record
that holds one falls to a slower path that names each one and checks the rest.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime
from itertools import repeat
from typing import Annotated, Any

import msgspec
from msgspec import UNSET, UnsetType
from msgspec import inspect as types

from agentrender._api_rules import defined_tool
from agentrender._json import MAX_DEPTH, NestingError, check_depth, type_name
from agentrender._types import (
    CheckedReply,
    Decision,
    Kind,
    Observation,
    Status,
    Step,
    check_block,
    wire_json_schema,
)
from agentrender._words import shown
from agentrender.runfile.model import FORMAT, MAX_COUNT, ModelCall, is_milliseconds, kept_call, loaded_call
from agentrender.runfile.replies import check_reply, recorded_reply_schema

__all__ = [
    "MAX_COUNT",
    "RECORD_TYPES",
    "TIMESTAMP_FIELDS",
    "USAGE_COUNTS",
    "BadRecord",
    "CheckedCallRecord",
    "CompactionRecord",
    "DecisionRecord",
    "EndRecord",
    "ErrorRecord",
    "KeptWarning",
    "KnownDecision",
    "KnownObservation",
    "KnownStep",
    "ModelCallErrorRecord",
    "ModelCallRecord",
    "ObservationRecord",
    "Record",
    "RunHeader",
    "SentRecord",
    "ShallowDecision",
    "ShallowStep",
    "StepRecord",
    "ToolRecord",
    "TryRecord",
    "check_record",
    "doubts",
    "is_count",
    "is_milliseconds",
    "is_timestamp",
    "json_schema",
    "load_typed",
    "model_call_structs",
    "parse_timestamp",
    "quick_record",
    "quick_records",
    "quiet_call",
    "read_record",
    "step_again",
    "step_of",
    "untimely",
]


class BadRecord(Exception):
    """A record of the wrong shape: ``where`` names the field (``$.decision.kind``), ``what`` says what was wrong."""

    def __init__(self, where: str, what: str) -> None:
        super().__init__(f"{where}: {what}")


Count = Annotated[int, msgspec.Meta(ge=0, le=MAX_COUNT, description="an integer from 0 to 2**53 - 1")]
"""An index or a count."""

Timestamp = Annotated[
    str,
    msgspec.Meta(
        description="an RFC 3339 date-time, such as 2026-01-05T09:00:16Z", extra_json_schema={"format": "date-time"}
    ),
]
"""A moment, as its text: a run gives back the text its file held. A text that is not one (``is_timestamp``) is
kept with a warning (``doubts``), not refused; the frames read each as a time (``parse_timestamp``)."""

_REF = "#/$defs/{name}"
"""How the schema's definitions refer to one another (``json_schema``)."""

Block = Annotated[dict[str, Any], msgspec.Meta(extra_json_schema={"$ref": _REF.format(name="ContentBlock")})]
"""A Messages API block, checked as ``ContentBlock.from_dict`` would build it (``check_block``), and kept as written."""

Blocks = list[Block]
"""A turn's content: Messages API blocks."""

Reply = Annotated[dict[str, Any], msgspec.Meta(extra_json_schema={"$ref": _REF.format(name="Reply")})]
"""A model's reply, an Anthropic Messages API response, checked as ``response_from_record`` would read it
(``check_reply``), and kept as written."""


class _Part(msgspec.Struct, frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True):
    """An object inside a record: every field known, ``null`` on an optional field meaning "not recorded"."""


class _Record(_Part, tag_field="type", frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True):
    """One line of a run file: an object whose ``type`` names which record it is."""


class ToolRecord(_Part, frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True):
    """A tool offered to the model, as the Messages API's tool definition: a custom tool (no ``type``, or
    ``"custom"``) of these fields, a name among them; or a tool the API defines (``_api_rules.defined_tool``), whose
    ``type`` says which other fields it holds: those are kept and sent as written, the API's to check."""

    name: str | None = None
    """The name the model calls it by; a custom tool needs one, a toolset the API defines has none."""
    description: str | None = None
    input_schema: dict[str, Any] | None = None
    cache_control: dict[str, Any] | None = None
    """A prompt-caching breakpoint after the tools, as a request sends it (``_api_rules.TOOL_KEYS``)."""
    type: str | None = None
    """``custom``, or the versioned type of a tool the API defines (``bash_20250124``, ``web_search_20250305``)."""
    strict: bool | None = None
    """Whether the API holds the tool's inputs to its schema (structured outputs)."""
    input_examples: list[dict[str, Any]] | None = None
    defer_loading: bool | None = None
    allowed_callers: list[str] | None = None
    eager_input_streaming: bool | None = None
    read_only: bool | None = None
    """The runtime's own: whether the tool changes nothing (``_api_rules.RUNTIME_TOOL_KEYS``); not sent."""


class KeptWarning(_Part, frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True):
    """A warning the run's maker gave (an importer's, or an earlier reader's), kept in the header."""

    line: Count
    text: str
    path: str | None = None
    count: Annotated[int, msgspec.Meta(ge=1, le=MAX_COUNT)] | None = None
    lost: bool | None = None


class CompactionRecord(_Part, frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True):
    """A compaction of an imported conversation: from ``step`` on, it restarted with ``opening``, whose blocks at
    ``summary_blocks`` (increasing indices; left out: every block) are the summary. A header's compactions are in
    increasing step order."""

    step: Count
    opening: Annotated[Blocks, msgspec.Meta(min_length=1)]
    summary_blocks: list[Count] | None = None
    trigger: str | None = None
    tokens_before: Count | None = None
    at: str | None = None
    line: Count | None = None


class BreakpointRecord(_Part, frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True):
    """A cache breakpoint a request was sent with: the block ``block`` of its message ``message`` (indices of the
    request's messages, a text sent as a string being one block) carried ``cache_control``, as its last field."""

    message: Count
    block: Count
    cache_control: dict[str, Any]


class RunHeader(_Record, tag="run", frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True):
    """``run``: the header, exactly one, first."""

    format: str | None = None
    run_id: str | None = None
    goal: str | None = None
    opening: str | None = None
    opening_content: Blocks | None = None
    system: str | list[Any] | None = None
    model: str | None = None
    max_output_tokens: Count | None = None
    started_at: Timestamp | None = None
    tools: list[ToolRecord] | None = None
    source: dict[str, Any] | None = None
    request: dict[str, Any] | None = None
    summariser: str | None = None
    warnings: list[KeptWarning] | None = None
    compactions: list[CompactionRecord] | None = None
    breakpoints: list[BreakpointRecord] | None = None


class SentRecord(_Part, frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True):
    """What an imported conversation's agent sent for a step (format ``agentrender.run/2``)."""

    assistant: Blocks
    user: Blocks | UnsetType | None = UNSET
    tool_use_id: str | UnsetType | None = UNSET
    summaries: dict[str, Any] | UnsetType | None = UNSET
    breakpoints: list[BreakpointRecord] | UnsetType | None = UNSET
    prefill: bool | UnsetType = UNSET
    prefilled: Annotated[Blocks, msgspec.Meta(min_length=1)] | UnsetType = UNSET


class DecisionRecord(_Part, frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True):
    """A step's decision: its ``kind``; the ``tool`` called and its ``args`` (any JSON value), the model's
    ``reason``; arguments that were not JSON as ``invalid_args`` text (``invalid_base64``: as base64). A field
    left out is empty (``""``, ``null``, ``false``)."""

    kind: str
    tool: str | UnsetType = UNSET
    args: Any = UNSET
    reason: str | UnsetType = UNSET
    invalid_args: str | UnsetType = UNSET
    invalid_base64: bool | UnsetType = UNSET


class ObservationRecord(_Part, frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True):
    """A step's observation: its ``status`` (``ok`` when left out), the result's ``content``, its ``summary``
    (each ``""`` when left out)."""

    status: str | UnsetType = UNSET
    content: str | UnsetType = UNSET
    summary: str | UnsetType = UNSET


# A loaded run holds its step records as these structs, not as dicts: a field not written is ``UNSET``
# and one written as ``null`` is ``None``, so ``model.as_record`` gives back the record the line held (its
# fields in the struct's order).
class StepRecord(_Record, tag="step", frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True):
    """``step``: a step's decision and observation; a later record with the same ``index`` replaces it."""

    index: Count
    started_at: Timestamp | UnsetType | None = UNSET
    ended_at: Timestamp | UnsetType | None = UNSET
    decision: DecisionRecord | UnsetType | None = UNSET
    observation: ObservationRecord | UnsetType | None = UNSET
    sent: SentRecord | UnsetType | None = UNSET


class ErrorRecord(_Part, frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True):
    """The error a model call gave instead of a reply."""

    type: str | None = None
    message: str | None = None
    status: int | None = None
    body: Any = None
    cause: str | None = None


class TryRecord(_Part, frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True):
    """An HTTP try of a model call that was tried again (by the SDK's retries): when it began, in milliseconds
    after the call began, how long it took, and the error it gave (or the ``status`` of a response that was not one)."""

    at_ms: int | float | None = None
    latency_ms: int | float | None = None
    error: ErrorRecord | None = None
    status: int | None = None


class ModelCallRecord(_Record, tag="model_call", frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True):
    """``model_call``: a captured reply (an Anthropic Messages API response) and the step it was made for;
    ``retried``, the HTTP tries before the one that gave it, which failed and were tried again; ``tries_known`` false
    where the recorder could not know how many there were (left out, true, where it knew)."""

    step: Count
    response: Reply
    latency_ms: int | float | None = None
    request_key: str | None = None
    request: dict[str, Any] | None = None
    retried: list[TryRecord] | None = None
    tries_known: bool = True


class ModelCallErrorRecord(
    _Record, tag="model_call_error", frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True
):
    """``model_call_error``: a model call that gave no complete reply. ``sent`` is false for one refused before it
    was sent (the model never received it), left out (true) for one that was sent or may have been; ``retried``, the
    HTTP tries before its last, which failed and were tried again; ``tries_known`` false where the recorder could not
    know how many there were (left out, true, where it knew)."""

    step: Count
    error: ErrorRecord
    latency_ms: int | float | None = None
    request: dict[str, Any] | None = None
    partial: dict[str, Any] | None = None
    sent: bool = True
    retried: list[TryRecord] | None = None
    tries_known: bool = True


class EndRecord(_Record, tag="end", frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True):
    """``end``: at most one, last: how the run ended."""

    status: str | None = None
    reason: str | None = None
    error: str | None = None
    at: Timestamp | None = None


Record = RunHeader | StepRecord | ModelCallRecord | ModelCallErrorRecord | EndRecord
"""One line of a run file, by its ``type``."""

RECORD_TYPES: dict[str, type[_Record]] = {
    kind.__struct_config__.tag: kind  # type: ignore[misc]
    for kind in (RunHeader, StepRecord, ModelCallRecord, ModelCallErrorRecord, EndRecord)
}
"""Each known record type by the ``type`` that names it; a record of another type is kept and reported."""


def json_schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) of one line of a run file, generated from the record structs.

    Unknown record types and fields are allowed by the format (they are kept and reported),
    but not by this schema: a runtime that checks what it writes against it writes only
    what every reader loads.
    """
    schema = msgspec.json.schema(Record, ref_template=_REF)
    wire = wire_json_schema(_REF)  # the blocks and the reply, as the Messages API has them
    schema["$defs"].update(wire, Reply=recorded_reply_schema(wire["Reply"]), ToolRecord=_tool_schema(schema))
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"A line of an agentrender run file ({FORMAT})",
        "description": (
            "One JSON object per line of a .jsonl run file, picked by its 'type'. null on an optional field "
            "means 'not recorded'. Readers keep unknown record types and fields with a warning; writers "
            "should not write them."
        ),
        **schema,
    }


def _tool_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """``ToolRecord``'s definition in the generated ``schema`` as the loader reads a tool: a custom tool, named, of
    none but its fields; or a tool the API defines (a ``type`` other than ``custom``), of any other field too."""
    generated = schema["$defs"]["ToolRecord"]
    properties = generated["properties"]
    custom_type = {"anyOf": [{"const": "custom"}, {"type": "null"}], "default": None}
    return {
        "title": generated["title"],
        "description": generated["description"],
        "anyOf": [
            {
                "type": "object",
                "properties": {**properties, "name": {"type": "string"}, "type": custom_type},
                "required": ["name"],
                "additionalProperties": False,
            },
            {
                "type": "object",
                "properties": {**properties, "type": {"type": "string", "not": {"const": "custom"}}},
                "required": ["type"],
            },
        ],
    }


# What a timestamp is, for the loader that warns on one and the frames that read one: an
# ISO 8601 extended-format date, or date and time (RFC 3339's date-time, with the seconds,
# the fraction and the offset optional; no offset means UTC). Upper-case ``T`` and ``Z``
# only, and at most 9 fraction digits: pandas, which reads them into the frames, refuses the rest.
_TIMESTAMP = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?", re.ASCII
)

# Of those, a date and time to the second in UTC, as agents write them (``2026-01-05T09:00:16.123Z``, or Python's
# ``isoformat`` with ``+00:00``): a pattern without groups, which ``is_timestamp`` tries first, at half the cost.
_UTC_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|\+00:00)?", re.ASCII).fullmatch


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
    if _UTC_TIMESTAMP(text) is None:  # not of the forms agents write (tried first, by a pattern half the cost)
        match = _TIMESTAMP.fullmatch(text)
        if match is None:
            return False
        if match[8] not in (None, "Z"):
            return parse_timestamp(text) is not None  # an offset may move it out of years 1 to 9999 in UTC
    # in UTC: the date and time exist when datetime reads them, as it does every form the pattern takes (Python 3.11:
    # a Z, +00:00, any number of fraction digits), without the copy and the move to UTC parse_timestamp makes for its
    # instant
    try:
        datetime.fromisoformat(text)
    except ValueError:
        return False
    return True


TIMESTAMP_FIELDS: dict[str, tuple[str, ...]] = {
    "run": ("started_at",),
    "step": ("started_at", "ended_at"),
    "end": ("at",),
}
"""The fields of each record type that hold a timestamp (``is_timestamp``)."""


USAGE_COUNTS = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
"""The token counts of a reply's ``usage`` that the frames read."""


def is_count(value: Any) -> bool:
    """Whether ``value`` is a count a run file may hold: an integer from 0 to ``MAX_COUNT``."""
    return type(value) is int and 0 <= value <= MAX_COUNT


def doubts(record: Mapping[str, Any], typed: Any) -> Iterator[str]:
    """What a checked ``record`` (whose struct is ``typed``) keeps but the frames cannot read, one sentence each.

    A timestamp field that is not a timestamp reads as ``NaT``; a token count of a reply's
    usage that is not a count, or a latency too large for a float, reads as null.
    """
    kind = record["type"]
    for name in TIMESTAMP_FIELDS.get(kind, ()):
        value = record.get(name)
        if value is not None and not is_timestamp(value):
            yield (
                f"{kind}.{name} {shown(value, 40)} is not an ISO 8601 timestamp (such as 2026-01-05T09:00:16Z); "
                "kept in the record, read as NaT (no time) in the frames"
            )
    if kind != "model_call":
        return
    latency = record.get("latency_ms")
    if latency is not None and not is_milliseconds(latency):
        yield f"model_call.latency_ms {shown(latency, 40)} is too large; kept in the record, read as null in the frames"
    for number, tried in enumerate(record.get("retried") or ()):
        latency = tried.get("latency_ms")
        if latency is not None and not is_milliseconds(latency):
            yield (
                f"model_call.retried[{number}].latency_ms {shown(latency, 40)} is too large; kept in the record, "
                "the call's retried_ms read as null in the frames"
            )
    usage = record["response"].get("usage")
    if usage is not None:
        for name in USAGE_COUNTS:
            value = usage.get(name)
            if value is not None and not is_count(value):
                yield (
                    f"model_call.response.usage.{name} {shown(value, 40)} is not a count (an integer from 0 to "
                    "2**53 - 1); kept in the record, read as null in the frames"
                )


def quiet_call(latency: Any, usage: Any, retried: list[TryRecord] | None = None) -> bool:
    """Whether ``doubts`` has nothing to say of a checked model call record of ``latency`` (its ``latency_ms``),
    ``usage`` (its reply's) and ``retried`` (its tries before the last): a test in a few comparisons, for a reader of
    many records, which reads the others through ``doubts`` to word what it finds."""
    if latency is not None and not is_milliseconds(latency):
        return False
    for tried in retried or ():
        if tried.latency_ms is not None and not is_milliseconds(tried.latency_ms):
            return False
    if usage is None:
        return True
    if type(usage) is not dict:
        return False
    for name in USAGE_COUNTS:
        value = usage.get(name)
        if value is not None and not is_count(value):
            return False
    return True


class _MadeCallRecord(
    ModelCallRecord, tag="model_call", frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True
):
    """A ``model_call`` record whose reply its maker checked (``replies.check_reply``): the reply is taken as it is,
    not converted a second time (a copy of each reply's object, three quarters of the records' conversion)."""

    response: Any


def model_call_structs(records: list[dict[str, Any]]) -> Sequence[ModelCallRecord] | None:
    """The struct of each of ``records`` (``model_call`` records whose replies their maker checked), converted together
    in one pass in C; ``None`` when one of them holds an unknown field or one of the wrong shape, which ``read_record``
    reads and words."""
    try:
        return msgspec.convert(records, list[_MadeCallRecord], strict=True)
    except (msgspec.ValidationError, UnicodeEncodeError):
        return None


# --- checking a record: the structs in one pass, and a slower pass that words what they refused


def _object_type(info: types.Type) -> types.StructType | types.DataclassType | None:
    """The struct or dataclass a field holds (``None`` allowed beside it), else ``None``."""
    if isinstance(info, types.UnionType):
        held = [item for item in info.types if not isinstance(item, types.NoneType)]
        info = held[0] if len(held) == 1 else info
    return info if isinstance(info, types.StructType | types.DataclassType) else None


_INFO = {kind: types.type_info(model) for kind, model in RECORD_TYPES.items()}
_ERROR = re.compile(r"(.*?)(?: - at `(\$[^`]*)`)?", re.DOTALL)
_MISSING = re.compile(r"Object missing required field `(.*)`")


_STEP = re.compile(r"\.([^.\[]+)|\[(\d+)\]")


def _bad(error: msgspec.ValidationError, record: dict[str, Any]) -> BadRecord:
    """msgspec's error as ``$.field.path: what was expected, what was found``."""
    match = _ERROR.fullmatch(str(error))
    assert match is not None  # the pattern matches any text
    what, where = match[1], match[2] or "$"
    missing = _MISSING.fullmatch(what)
    if missing:
        return BadRecord(f"{where}.{missing[1]}", "missing")
    what = what[:1].lower() + what[1:]
    if ", got " not in what:  # a value out of its range: msgspec says what was expected only
        value: Any = record
        for key, position in _STEP.findall(where):
            value = value[key] if key else value[int(position)]
        what += f", got {shown(value, 40)}"
    return BadRecord(where, what)


def _known(value: Any, info: types.Type, where: str, unknown: list[str]) -> Any:
    """``value`` with its unknown fields left out (each named in ``unknown``, as ``where.name``), and ``null``
    on an optional field left out ("not recorded"), at every level the structs declare."""
    held = _object_type(info)
    if held is not None and type(value) is dict:
        fields = {field.encode_name: field for field in held.fields}
        tag = getattr(held, "tag_field", None)
        if not (held.cls is ToolRecord and defined_tool(value)):  # a defined tool's other fields are its type's
            unknown.extend(f"{where}.{key}" for key in value if key not in fields and key != tag)
        return {
            key: item if key == tag else _known(item, fields[key].type, f"{where}.{key}", unknown)
            for key, item in value.items()
            if key == tag or (key in fields and (item is not None or fields[key].required))
        }
    if isinstance(info, types.UnionType):
        lists = [item for item in info.types if isinstance(item, types.ListType)]
        info = lists[0] if len(lists) == 1 and type(value) is list else info
    if isinstance(info, types.ListType) and type(value) is list:
        return [_known(item, info.item_type, f"{where}[{at}]", unknown) for at, item in enumerate(value)]
    return value


def _without_surrogates(value: Any) -> Any:
    """``value`` with each lone surrogate of its texts (JSON's ``\\ud800``, which has no UTF-8 form) as ``?``."""
    if type(value) is str:
        return value.encode("utf-8", "replace").decode("utf-8")
    if type(value) is dict:
        return {key: _without_surrogates(item) for key, item in value.items()}
    if type(value) is list:
        return [_without_surrogates(item) for item in value]
    return value


def _typed(record: dict[str, Any], kind: str, unknown: list[str]) -> Any:
    """The struct of a ``kind`` record; ``BadRecord`` naming the field when it is of the wrong shape."""
    model = RECORD_TYPES[kind]
    try:
        return msgspec.convert(record, model, strict=True)
    except (msgspec.ValidationError, UnicodeEncodeError):
        pass
    # The slow path: the unknown fields named and left out, and nulls left out.
    value = _known(record, _INFO[kind], kind, unknown)
    try:
        return msgspec.convert(value, model, strict=True)
    except msgspec.ValidationError as error:
        failure = error
    except UnicodeEncodeError:
        # msgspec words a wrong value as UTF-8, which a text with a lone surrogate has not: the same
        # check of the record with its surrogates replaced says what is wrong
        try:
            msgspec.convert(_without_surrogates(value), model, strict=True)
        except msgspec.ValidationError as error:
            failure = error
        else:
            raise
    raise _bad(failure, value) from None


def _check_blocks(blocks: list[Any] | None, where: str) -> None:
    """Each item of a turn's content, as the Messages API's block it must be."""
    for position, block in enumerate(blocks or ()):
        try:
            check_block(block, f"{where}[{position}]")
        except ValueError as error:
            field, _, what = str(error).partition(": ")
            raise BadRecord(field, what) from None


def _check_summary_blocks(indices: list[int] | None, count: int, where: str) -> None:
    """A compaction's ``summary_blocks``: indices of its opening's ``count`` blocks, in increasing order."""
    below = -1
    for position, index in enumerate(indices or ()):
        if not below < index < count:
            what = f"expected an index of one of the opening's {count} block(s), above {below} (increasing order)"
            raise BadRecord(f"{where}[{position}]", f"{what}, got {index}")
        below = index


def _header(header: RunHeader, blocks: bool) -> None:
    for position, tool in enumerate(header.tools or ()):
        if tool.name is None and tool.type in (None, "custom"):  # a custom tool: not one the API defines
            what = "missing: a custom tool (no type, or type 'custom') needs a name"
            raise BadRecord(f"$.tools[{position}].name", what)
    after = -1
    for position, compaction in enumerate(header.compactions or ()):
        where = f"$.compactions[{position}]"
        if compaction.step <= after:
            raise BadRecord(f"{where}.step", f"expected a step above {after} (compactions in increasing step order)")
        after = compaction.step
        _check_summary_blocks(compaction.summary_blocks, len(compaction.opening), f"{where}.summary_blocks")
        if blocks:
            _check_blocks(compaction.opening, f"{where}.opening")
    if blocks:
        _check_blocks(header.opening_content, "$.opening_content")


def _model_call(
    call: ModelCallRecord | CheckedCallRecord, kept: Mapping[str, Any] | None, line: int, source: str, reply: bool
) -> ModelCall | None:
    wire = call.response
    if isinstance(wire, CheckedReply):  # decoded as a reply checked whole
        stop_reason, usage = wire.stop_reason, wire.usage
    else:
        if reply:
            try:
                check_reply(wire, where="$.response")
            except ValueError as error:
                where, _, what = str(error).partition(": ")
                raise BadRecord(where, what) from None
        stop_reason, usage = wire.get("stop_reason"), wire.get("usage")
    if kept is not None:
        return kept_call(call.step, kept, call.latency_ms, call.request_key or "", line)
    if not source:
        return None
    return loaded_call(call.step, call.latency_ms, call.request_key or "", line, source, stop_reason or "", usage)


def load_typed(
    typed: Any,
    line: int,
    source: str,
    *,
    blocks: bool = True,
    reply: bool = True,
    kept: Mapping[str, Any] | None = None,
) -> Step | ModelCall | None:
    """Check what a record's struct ``typed`` cannot say of itself, and give the typed value it loads into.

    A step record's recorded turns (``sent``) are checked block by block (unless ``blocks=False``)
    and give a ``Step``; a model call's reply (unless ``reply=False``) and give a ``ModelCall``, which
    holds ``kept`` (its record) when given, else ``source`` (the text of its line; none is built
    without one); a header's compactions. ``BadRecord`` names the field that is wrong.
    """
    if isinstance(typed, StepRecord):  # a KnownStep too
        if blocks and typed.sent:
            _check_blocks(typed.sent.assistant, "$.sent.assistant")
            _check_blocks(typed.sent.user or None, "$.sent.user")
            _check_blocks(typed.sent.prefilled or None, "$.sent.prefilled")
        return step_of(typed)
    if isinstance(typed, ModelCallRecord):  # a CheckedCallRecord too
        return _model_call(typed, kept, line, source, reply)
    if type(typed) is RunHeader:
        _header(typed, blocks)
    return None


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
    doubted: list[str] | None = None,
) -> Step | ModelCall | None:
    """Check ``record`` and give the typed value a ``step`` or ``model_call`` record loads into.

    ``line`` and ``source`` (the text ``record`` was decoded from) go into a model call,
    which is built only when ``source`` is given, or with ``keep``: then it holds ``record`` itself.
    ``reply=False`` leaves a model call's reply (``check_reply``) to a caller that checked it. The
    names of unknown fields are added to ``unknown``; a record of the wrong shape raises
    ``BadRecord``. ``blocks=False`` leaves the recorded turns' blocks (``step.sent``,
    ``opening_content``) to a caller that checked them. A record of an unknown type is
    accepted as it is (the reader keeps and reports it). What the record keeps but the frames
    cannot read (``doubts``) is added to ``doubted``, when given.
    """
    if type(record) is not dict:
        raise BadRecord("$", f"expected a JSON object, got {type_name(record)}")
    kind = record.get("type")
    if type(kind) is not str:
        if "type" not in record:
            raise BadRecord("$.type", "missing: every record names its type")
        raise BadRecord("$.type", f"expected a string, got {type_name(kind)}")
    if kind not in RECORD_TYPES:
        return None
    typed = _typed(record, kind, unknown)
    loaded = load_typed(typed, line, source, blocks=blocks, reply=reply, kept=record if keep else None)
    if doubted is not None:
        doubted.extend(doubts(record, typed))
    return loaded


# --- the quick read of a line: a step or a model call straight from its bytes into its struct


class CheckedCallRecord(
    ModelCallRecord, tag="model_call", frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True
):
    """A ``model_call`` record whose reply decoded as a ``CheckedReply``: checked whole in the one pass."""

    response: CheckedReply  # type: ignore[assignment]  # the record's reply, of the shapes checked in C


# A step of a kind and a status the contract names, as most are: decoded as the one text of each (a ``Literal``),
# not as a new text a step. A run of 200-byte results so holds 110 bytes a step fewer (``bench/README.md``); a
# step of any other kind or status is decoded as a ``StepRecord``, which the published schema is made of.
class KnownDecision(DecisionRecord, frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True):
    """A ``DecisionRecord`` of a kind the contract names."""

    kind: Kind


class KnownObservation(ObservationRecord, frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True):
    """An ``ObservationRecord`` of a status the contract names, or none."""

    status: Status | UnsetType = UNSET


class KnownStep(StepRecord, tag="step", frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True):
    """A ``StepRecord`` whose decision and observation are of a kind and a status the contract names."""

    decision: KnownDecision | UnsetType | None = UNSET
    observation: KnownObservation | UnsetType | None = UNSET


Plain = str | int | float | bool | None
"""A JSON value that holds no other: what a ``ShallowDecision``'s arguments hold."""


# A step whose arguments are an object or a list of plain values (as a tool's arguments mostly are), or one plain
# value, and no turns sent, nests three levels deep at most: its type says so, where a ``KnownStep``'s arguments are
# looked at in Python to find whether they nest past ``MAX_DEPTH`` (``_step_too_deep``, a tenth of the load of a run
# of 200-byte results, ``bench/README.md``). A step of other arguments, or of turns sent, is decoded as a ``KnownStep``.
class ShallowDecision(KnownDecision, frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True):
    """A ``KnownDecision`` whose arguments are an object or a list of plain values, or one plain value."""

    args: dict[str, Plain] | list[Plain] | str | int | float | bool | UnsetType | None = UNSET


class ShallowStep(KnownStep, tag="step", frozen=True, gc=False, kw_only=True, forbid_unknown_fields=True):
    """A ``KnownStep`` of a ``ShallowDecision`` (or none), and no turns sent: nested three levels deep at most."""

    decision: ShallowDecision | UnsetType | None = UNSET
    sent: UnsetType = UNSET  # no turns sent: their blocks may nest deeper


_QUICK_SHALLOW = msgspec.json.Decoder(ShallowStep | CheckedCallRecord)
_QUICK = msgspec.json.Decoder(KnownStep | CheckedCallRecord)
_QUICK_ANY = msgspec.json.Decoder(StepRecord | CheckedCallRecord)
_QUICK_CALL = msgspec.json.Decoder(ModelCallRecord)
_OTHER_KIND = ("decision.kind`", "observation.status`")
"""How ``_QUICK``'s error ends on a step of a kind or a status the contract does not name (``_QUICK_ANY`` reads it)."""
_IN_REPLY = "- at `$.response"
"""What a quick decode's error holds where it refuses a model call's reply, which every quick read refuses alike."""


def quick_record(
    line: bytes, *, known: bool = True, shallow: bool = True
) -> StepRecord | ModelCallRecord | CheckedCallRecord | None:
    """The struct of a ``step`` or ``model_call`` line that holds nothing but known fields, each of the right
    shape, decoded in one pass in C; ``None`` for any other line, which ``read_record`` reads and words.

    A step of a kind and a status the contract names is decoded as a ``ShallowStep`` where its arguments hold no
    object or list in them and it sent no turns, else as a ``KnownStep`` (and every such step, with
    ``shallow=False``: a reader that met one), holding the one text of each; a step of another kind or status is
    decoded again as a ``StepRecord``, which takes any (and every step, with ``known=False``: a reader that met one).

    A model call's reply is decoded as a ``CheckedReply`` (its blocks checked in the same pass), else as a
    dict, which the loader checks (``check_reply``). A model call is given only when it holds nothing the
    frames cannot read (``doubts``): a count that is not one is read the slow way, which words the warning.
    A step's timestamps are texts the struct keeps as written; the reader checks those of many steps at
    once (``untimely``).
    """
    typed: StepRecord | ModelCallRecord
    try:
        typed = (_QUICK_SHALLOW if known and shallow else _QUICK if known else _QUICK_ANY).decode(line)
    except msgspec.ValidationError as error:
        wrong = str(error)
        try:
            if known and shallow and _IN_REPLY not in wrong:  # arguments that nest, turns sent, or another kind
                return quick_record(line, shallow=False)
            if known and wrong.endswith(_OTHER_KIND):
                typed = _QUICK_ANY.decode(line)  # a step of another kind or status
            elif b'"model_call"' not in line:  # no model call: the slow way reads and words it
                return None
            else:
                typed = _QUICK_CALL.decode(line)  # a model call whose reply the loader checks block by block
        except (msgspec.DecodeError, RecursionError):  # a validation error too: the slow way reads and words it
            return None
    except (msgspec.DecodeError, RecursionError):
        return None
    return _admitted(typed, line)


def quick_records(
    lines: Sequence[bytes], *, known: bool = True, shallow: bool = True
) -> list[StepRecord | ModelCallRecord | None] | None:
    """``quick_record`` of each of ``lines``, decoded together in one call: ``None`` unless every line is a step or
    a model call whose reply is checked whole (the loader then reads each line alone), and, where a line's struct
    holds what only the slow way words, ``None`` in its place. A batch holding a step whose arguments nest or that
    sent turns is decoded again whole as ``KnownStep``s (every batch, with ``shallow=False``), and one holding a
    step of a kind or a status the contract does not name as ``StepRecord``s (every batch, with ``known=False``).

    One call for a batch of lines saves most of what a call a line costs around the decode: a run of 200-byte
    results loads in 0.8 of the time (``bench/README.md``).
    """
    # decode_lines skips a blank line and reads two values on one line, or one across two: with every line begun by
    # an object and ended by one (its newline or not), no value goes on past its line (an object ended, unless it
    # ends the value, goes on with a comma or a bracket), and with as many values as lines, each line holds one
    if not (
        all(map(bytes.startswith, lines, repeat(b"{"))) and all(map(bytes.endswith, lines, repeat((b"}\n", b"}"))))
    ):
        return None
    text = b"".join(lines)
    decoded: Sequence[StepRecord | CheckedCallRecord]
    try:
        decoded = (_QUICK_SHALLOW if known and shallow else _QUICK if known else _QUICK_ANY).decode_lines(text)
    except msgspec.ValidationError as error:
        wrong = str(error)
        if known and shallow and _IN_REPLY not in wrong:  # a step whose arguments nest, or turns sent, or another kind
            return quick_records(lines, shallow=False)
        if not (known and wrong.endswith(_OTHER_KIND)):
            return None
        try:
            decoded = _QUICK_ANY.decode_lines(text)  # a step of another kind or status among them
        except (msgspec.DecodeError, RecursionError):  # a validation error too
            return None
    except (msgspec.DecodeError, RecursionError):
        return None
    if len(decoded) != len(lines):
        return None
    # a step admitted here, as _admitted admits it, with a call a line fewer: a ShallowStep by its type alone
    return [
        typed
        if type(typed) is ShallowStep
        or ((type(typed) is KnownStep or type(typed) is StepRecord) and not _step_too_deep(typed, line))
        else _admitted(typed, line)
        for typed, line in zip(decoded, lines, strict=True)
    ]


def _admitted(typed: StepRecord | ModelCallRecord, line: bytes) -> StepRecord | ModelCallRecord | None:
    """``typed``, decoded from ``line``, unless it holds what only the slow way words: a nesting past
    ``MAX_DEPTH``, a latency or a usage count the frames cannot read (then ``None``)."""
    # A line nesting past MAX_DEPTH is read the slow way, which words where.
    if type(typed) is ShallowStep:  # its type says it cannot
        return typed
    if isinstance(typed, StepRecord):  # a KnownStep too
        return None if _step_too_deep(typed, line) else typed
    if _nests_past(line, MAX_DEPTH):  # a reply's unknown keys, skipped by its decode, may nest too
        return None
    assert isinstance(typed, ModelCallRecord)  # a step or a model call (a CheckedCallRecord too)
    reply = typed.response
    usage = reply.usage if isinstance(reply, CheckedReply) else reply.get("usage")
    return typed if quiet_call(typed.latency_ms, usage, typed.retried) else None


def _step_too_deep(typed: StepRecord, line: bytes) -> bool:
    """Whether a step record, decoded from ``line``, nests deeper than ``MAX_DEPTH``: a line of fewer bytes than two
    brackets a level cannot; else only its free-form values can (a decision's ``args``, the turns ``sent``: it
    forbids unknown fields), so a record without turns is measured on its arguments' JSON alone, not its line
    (counting a long line's brackets cost more than half of its decode)."""
    if len(line) <= 2 * MAX_DEPTH:
        return False
    if typed.sent:
        return _nests_past(line, MAX_DEPTH)
    args = typed.decision.args if typed.decision else None
    if type(args) is dict:
        values: Any = args.values()
    elif type(args) is list:
        values = args
    else:
        return False
    if _CONTAINERS.isdisjoint(map(type, values)):
        return False  # arguments of one level, the most common: nothing to measure
    return _nests_past(_json_bytes(args), MAX_DEPTH - 2)  # the record and the decision are two levels


_CONTAINERS = frozenset((dict, list))


def _nests_past(text: bytes, limit: int) -> bool:
    """Whether the JSON ``text`` nests deeper than ``limit``: measured (``check_depth``) only when it is long
    enough to, and has more brackets than that."""
    if len(text) <= 2 * limit or text.count(b"[") + text.count(b"{") <= limit:
        return False
    try:
        check_depth(text.decode("utf-8"), limit)
    except NestingError:
        return True
    return False


def untimely(records: Sequence[StepRecord]) -> list[int]:
    """The positions in ``records`` of those holding a timestamp that is none (``is_timestamp``), whose warning
    ``doubts`` words.

    Checked many at a time, in C: the texts read as times at once, and given back as msgspec writes a
    time (``2026-01-05T09:00:16Z``, ``...16.250000+02:00``). A text given back as it was, in a year other
    than 1 and 9999 (where an offset may move it out of the years), is a timestamp; any other is checked by
    ``is_timestamp`` alone. ``_BATCH`` records a batch, so the times made stay few.
    """
    found: list[int] = []
    for start in range(0, len(records), _BATCH):
        batch = records[start : start + _BATCH]
        # every start, then every end, each by a listcomp that names its field (a tuple a record cost twice as much, an
        # attrgetter twice as much again); UNSET and None are false
        texts = [at for record in batch if (at := record.started_at)]
        texts += [at for record in batch if (at := record.ended_at)]
        if wrong := _not_times(texts):
            owners = [at for at, record in enumerate(batch, start) if record.started_at]
            owners += [at for at, record in enumerate(batch, start) if record.ended_at]
            found.extend(sorted({owners[at] for at in wrong}))
    return found


_BATCH = 256


def _not_times(texts: list[str]) -> list[int]:
    """The positions in ``texts`` of those that are no timestamp (``untimely``)."""
    try:
        moments = msgspec.convert(texts, list[datetime])
    except msgspec.ValidationError:
        written: list[Any] = [None] * len(texts)  # one is none: each is looked at
    else:
        # The texts given back as they were, compared as JSON (each as msgspec writes it, no text made a time), none
        # in year 1 or 9999: each begins with its year, after the quote that opens it (a time holds no other quote).
        encoded = _json_bytes(moments)
        if encoded == _json_bytes(texts) and b'"0001-' not in encoded and b'"9999-' not in encoded:
            return []
        written = msgspec.to_builtins(moments)
        for at, moment in enumerate(moments):
            if moment.year in (1, 9999):
                written[at] = None
    return [at for at, text in enumerate(texts) if text != written[at] and not is_timestamp(text)]


def step_of(typed: StepRecord) -> Step:
    """The ``Step`` a checked step record loads into."""
    return Step(index=typed.index, decision=_decision(typed.decision), observation=_observation(typed.observation))


def step_again(typed: StepRecord, held: StepRecord, step: Step) -> tuple[StepRecord, Step]:
    """A step recorded again (``typed``), and the ``Step`` it loads into, holding the decision and observation of
    its earlier record ``held`` (loaded into ``step``) wherever it repeats them exactly: the same JSON.

    A runtime records a step when it is decided and again when its tool answers, the decision twice: held once, a
    run of 200-byte results recorded so peaks at 1.70x its file where it peaked at 2.27x (``bench/README.md``).
    Nothing changes but which of two equal values is kept, so the run's records still write back as the lines
    they were read from.
    """
    decision = held.decision if _same(held.decision, typed.decision) else typed.decision
    observation = held.observation if _same(held.observation, typed.observation) else typed.observation
    if decision is typed.decision and observation is typed.observation:
        return typed, step_of(typed)
    record = msgspec.structs.replace(typed, decision=decision, observation=observation)
    return record, Step(
        index=typed.index,
        decision=step.decision if decision is held.decision else _decision(decision),
        observation=step.observation if observation is held.observation else _observation(observation),
    )


def _same(held: DecisionRecord | ObservationRecord | UnsetType | None, new: Any) -> bool:
    """Whether a step's part ``new`` says exactly what ``held`` says: equal, and a decision's arguments the same JSON
    (Python's equality takes ``1`` for ``1.0`` and ``true``, and a dict's keys in any order)."""
    if not held or held != new:
        return False
    args = getattr(held, "args", UNSET)
    return args is UNSET or args is None or type(args) is str or _json_bytes(args) == _json_bytes(new.args)


_json_bytes = msgspec.json.encode


def _decision(record: DecisionRecord | UnsetType | None) -> Decision | None:
    if not record:
        return None
    return Decision(
        kind=record.kind,
        tool=record.tool or "",
        args=None if record.args is UNSET else record.args,
        reason=record.reason or "",
        invalid_args=record.invalid_args or "",
        invalid_base64=record.invalid_base64 is True,
    )


def _observation(record: ObservationRecord | UnsetType | None) -> Observation | None:
    if not record:
        return None
    return Observation(
        status="ok" if record.status is UNSET else record.status,
        content=record.content or "",
        summary=record.summary or "",
    )
