"""Run files: a recorded run as JSON Lines, read into a ``Run`` and written a record at a time.

The format is ``agentrender.run/1`` (RUNFILE.md): a ``run`` header, ``step`` records
(a later one with the same index replaces an earlier one), ``model_call`` records and at
most one ``end``. Reading never loses a record: whatever is not loaded is reported in
``Run.warnings``; bad input raises ``RunFileError`` naming the file and the line.

Decisions this module makes where the format leaves room:

- A record after the ``end`` record, or a second ``end``, is loaded with a warning: an
  append-only log may be resumed after a stop, and refusing it would hide the whole run.
  ``Run.end`` is the last ``end`` record.
- Invalid UTF-8 is an error (a cut-short last line excepted). A lone surrogate written as a
  JSON escape (``"\\ud800"``) is valid JSON and is loaded as it is; the writer escapes
  such strings again, so the round trip is lossless and the file stays valid UTF-8.
- ``NaN``, ``Infinity`` and numbers that overflow to infinity are not JSON (RFC 8259): an error.
- Blank lines hold no record and are skipped.
- A ``.jsonl.gz`` file is recognised by its gzip magic bytes; a stream that ends early (a
  process killed while writing) is read up to where it ends, with a warning.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import json
import os
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any, overload

from agentrender import _fast, _json, render
from agentrender._types import Decision, ModelResponse, Observation, Step, StepInput, _check_response

__all__ = [
    "FORMAT",
    "INPUT_BASE64",
    "ModelCall",
    "Run",
    "RunFileError",
    "RunWriter",
    "check_record",
    "load_run",
    "response_from_record",
    "response_record",
    "step_record",
    "write_run",
]

FORMAT = "agentrender.run/1"
"""The ``format`` a run header names for this version of the file."""


class RunFileError(ValueError):
    """A run file that cannot be read; the message begins with ``PATH:LINE:``."""

    def __init__(self, path: str, line: int, what: str) -> None:
        super().__init__(f"{path}:{line}: {what}")
        self.path = path
        """The file that was being read."""
        self.line = line
        """The 1-based line the problem is on."""
        self.what = what
        """What was wrong, without the location."""

    def __reduce__(self) -> tuple[type[RunFileError], tuple[str, int, str]]:
        # Exceptions pickle as cls(*args), and args holds only the composed message: without
        # this, an error raised in a worker process could not be sent back to its caller.
        return (type(self), (self.path, self.line, self.what))


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelCall:
    """One captured model call: the reply a model gave while a step was being decided.

    A call read from a file keeps the text of its line, not the parsed record: ``record``
    and ``response`` are decoded from it when first asked for, and kept. Parsed, a record
    is a dozen objects that every full pass of Python's cyclic collector walks again; for
    a 100,000-step run that was 40% of each pass, for fields most readers never look at.
    ``stop_reason`` and ``usage`` are read off the record when the line is loaded.
    """

    step: int
    """The index of the step the call was made for."""
    response: ModelResponse
    """The model's reply, read from the Anthropic ``Message`` object the record holds."""
    latency_ms: float | None = None
    """How long the call took, when recorded."""
    request_key: str = ""
    """The replay key of the request that was sent, when recorded."""
    line: int = 0
    """The line of the run file the record was read from (0 for a call built in memory)."""
    record: Mapping[str, Any] = field(default_factory=dict)
    """The record as read, unknown fields included."""
    _source: str = field(default="", init=False, repr=False, compare=False)
    """The JSON text of the record, for a call read from a file; ``""`` for one built in memory."""
    _stop_reason: str = field(default="", init=False, repr=False, compare=False)
    """The reply's stop reason, read when the line was loaded (when ``_source`` is set)."""
    _usage: Mapping[str, Any] | None = field(default=None, init=False, repr=False, compare=False)
    """The reply's usage, read when the line was loaded (when ``_source`` is set)."""

    @property
    def wire_response(self) -> Mapping[str, Any]:
        """The reply as a run file holds it: the record's ``response``, or ``response_record(response)``."""
        recorded = self.record.get("response")
        return recorded if isinstance(recorded, Mapping) else response_record(self.response)

    @property
    def stop_reason(self) -> str:
        """The reply's stop reason (``""`` when it recorded none), read without building ``response``."""
        if self._source:
            return self._stop_reason
        recorded = self.record.get("response")
        if isinstance(recorded, Mapping):
            return recorded.get("stop_reason") or ""
        return self.response.stop_reason

    @property
    def usage(self) -> Mapping[str, Any] | None:
        """The reply's token usage as the provider reported it, read without building ``response``."""
        if self._source:
            return self._usage
        recorded = self.record.get("response")
        if isinstance(recorded, Mapping):
            usage: Mapping[str, Any] | None = recorded.get("usage")
            return usage
        return self.response.usage

    if not TYPE_CHECKING:  # to the type checker these are plain fields, and a typo stays a typo

        def __getattr__(self, name: str) -> Any:
            # A call read from a file leaves its ``record`` and ``response`` slots empty, and an
            # empty slot raises AttributeError, which lands here: each is built once, and kept.
            # The record was checked when its line was read, so decoding it cannot fail. The
            # reply is built from a decoding of its own, which is not kept: a reader of replies
            # (render.decide over a whole run) then holds the replies and not their records too.
            if name == "record":
                record = _decode_json(self._source)
                _set_call_record(self, record)
                return record
            if name == "response":
                try:
                    record = ModelCall.record.__get__(self)
                except AttributeError:
                    record = _decode_json(self._source)
                response = response_from_record(record["response"], where="model_call.response")
                _set_call_response(self, response)
                return response
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


@dataclass(frozen=True, slots=True, kw_only=True)
class Run:
    """A recorded run: its header, its steps in index order, its model calls and its end."""

    path: str = ""
    """The file the run was read from ("" for a run built in memory)."""
    header: Mapping[str, Any] = field(default_factory=dict)
    """The ``run`` record: run_id, goal, opening, system, model, tools, started_at, ..."""
    steps: Sequence[Step] = ()
    """The steps, ordered by index; for a step recorded more than once, the last record."""
    step_records: Mapping[int, Mapping[str, Any]] = field(default_factory=dict)
    """The step records by index as read (timestamps and unknown fields included)."""
    model_calls: Sequence[ModelCall] = ()
    """The captured model calls, in file order."""
    end: Mapping[str, Any] | None = None
    """The ``end`` record, or ``None`` when the run was still going or its process died."""
    records: Sequence[Mapping[str, Any]] = ()
    """Every record that was read, in file order: what a lossless write gives back."""
    warnings: Sequence[str] = ()
    """One line for each thing that was read but not loaded, or loaded with a doubt."""

    @property
    def run_id(self) -> str:
        """The run's id from its header."""
        return str(self.header.get("run_id", ""))

    @property
    def goal(self) -> str:
        """The run's goal from its header."""
        return str(self.header.get("goal", ""))

    @property
    def opening(self) -> str:
        """The opening the run's agent rendered with: the header's ``opening``, else the goal."""
        return str(self.header.get("opening") or self.goal)

    @property
    def system(self) -> str:
        """The system prompt the run's agent sent, when recorded."""
        return str(self.header.get("system", ""))

    @property
    def model(self) -> str:
        """The model the run's agent called, when recorded."""
        return str(self.header.get("model", ""))

    @property
    def max_output_tokens(self) -> int:
        """The output token cap each of the agent's requests asked for; 0 when not recorded."""
        return int(self.header.get("max_output_tokens") or 0)

    @property
    def tools(self) -> tuple[Mapping[str, Any], ...]:
        """The tool definitions offered to the model."""
        return tuple(self.header.get("tools") or ())

    def step_input(self, at: int | None = None) -> StepInput:
        """The ``StepInput`` an agent had when deciding step ``at``: the steps with a lower index.

        ``None`` means every recorded step (the view after the last one).
        """
        steps = tuple(self.steps) if at is None else tuple(step for step in self.steps if step.index < at)
        return StepInput(steps=steps, goal=self.goal, run_id=self.run_id, index=at, tools=self.tools)

    def options(self, **overrides: Any) -> render.Options:
        """``render.Options`` whose opening is the run's opening (or its goal), with ``overrides``."""
        settings: dict[str, Any] = {"opening": self.opening}
        settings.update(overrides)
        return render.Options(**settings)

    def last_calls(self) -> dict[int, ModelCall]:
        """Each step's last model call, by step index: the reply its recorded decision came from.

        A step may have several calls (a retry, a failure); only the last one's reply became the
        decision the run recorded, so only it is compared with that decision.
        """
        return {call.step: call for call in self.model_calls}

    def calls_for(self, index: int) -> tuple[ModelCall, ...]:
        """The model calls made while step ``index`` was being decided, in file order."""
        return tuple(call for call in self.model_calls if call.step == index)

    def __repr__(self) -> str:
        # The generated repr would print every record: tens of kilobytes for a short run.
        end = self.end.get("status") if self.end is not None else None
        return (
            f"Run(path={self.path!r}, run_id={self.run_id!r}, steps={len(self.steps)}, "
            f"model_calls={len(self.model_calls)}, end={end!r}, warnings={len(self.warnings)})"
        )

    def _repr_html_(self) -> str:
        # Floors below the run files; at the top once runfile is split into a package.
        from agentrender.views import Views
        from agentrender.views.html import run_html

        try:
            return run_html(self, Views(self).at(None))
        except ValueError as error:  # a run with no opening and no goal has no view
            return run_html(self, str(error))


class _Records(Sequence[Mapping[str, Any]]):
    """``Run.records`` of a run read from a file: every record in file order.

    A model call's place holds the ``ModelCall``, whose ``record`` is decoded from its line
    when first asked for; every other record is held as it was parsed. Compares equal to any
    sequence of the same records, a list included.
    """

    __slots__ = ("_items",)

    def __init__(self, items: list[dict[str, Any] | ModelCall]) -> None:
        self._items = items

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, at: int) -> Mapping[str, Any]: ...
    @overload
    def __getitem__(self, at: slice) -> list[Mapping[str, Any]]: ...
    def __getitem__(self, at: int | slice) -> Mapping[str, Any] | list[Mapping[str, Any]]:
        if isinstance(at, slice):
            return [_as_record(item) for item in self._items[at]]
        return _as_record(self._items[at])

    def __iter__(self) -> Iterator[Mapping[str, Any]]:
        return map(_as_record, self._items)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(mine == theirs for mine, theirs in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # a sequence that compares by content is not hashable

    def __repr__(self) -> str:
        return repr(list(self))


def _as_record(item: dict[str, Any] | ModelCall) -> Mapping[str, Any]:
    return item.record if isinstance(item, ModelCall) else item


# --- model replies ---------------------------------------------------------------------

INPUT_BASE64 = "input_base64"
"""The field of a recorded ``tool_use`` block that holds raw argument bytes, as base64, in place of ``input``."""


def response_from_record(wire: Mapping[str, Any], *, where: str = "response") -> ModelResponse:
    """A reply as a run file records it (an Anthropic ``Message`` object) as the ``ModelResponse`` it stands for.

    A provider may send a tool use's arguments as raw bytes that are not UTF-8, which JSON
    cannot hold: a run file keeps them as standard base64 in the block's ``input_base64``
    field, in place of ``input``, and they are read back here as the ``bytes`` input the
    provider sent, so ``render.decide`` of the recorded reply is the decision the agent
    made. ``response_record`` writes that form. Raises ``ValueError`` naming the field
    (``where`` names the reply) for what is not a reply.
    """
    return ModelResponse.from_dict(_decoded_reply(wire, where), where=where)


def _decoded_reply(wire: Mapping[str, Any], where: str) -> Mapping[str, Any]:
    """``wire`` with its tool uses' ``input_base64`` decoded into ``bytes`` input; ``wire`` when it has none."""
    content = wire.get("content") if isinstance(wire, Mapping) else None
    if isinstance(content, list) and any(
        type(block) is dict and INPUT_BASE64 in block and block.get("type") == "tool_use" for block in content
    ):
        blocks = [
            _raw_input(block, f"{where}.content[{position}]")
            if type(block) is dict and INPUT_BASE64 in block and block.get("type") == "tool_use"
            else block
            for position, block in enumerate(content)
        ]
        return {**wire, "content": blocks}
    return wire


def _raw_input(block: Mapping[str, Any], where: str) -> dict[str, Any]:
    """A recorded ``tool_use`` block with its ``input_base64`` decoded back into ``bytes`` input."""
    if "input" in block:
        raise ValueError(
            f"{where}.{INPUT_BASE64}: a tool_use block holds its arguments in input or in {INPUT_BASE64}, not both"
        )
    encoded = block[INPUT_BASE64]
    if type(encoded) is not str:
        raise ValueError(f"{where}.{INPUT_BASE64}: expected a string of base64, got {_type_name(encoded)}")
    try:
        raw = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError) as error:
        raise ValueError(f"{where}.{INPUT_BASE64}: not base64 ({error})") from None
    return {
        ("input" if key == INPUT_BASE64 else key): (raw if key == INPUT_BASE64 else value)
        for key, value in block.items()
    }


def response_record(response: ModelResponse) -> dict[str, Any]:
    """``response`` as a run file records it: its wire form, with ``bytes`` tool input written as ``input_base64``.

    The inverse of ``response_from_record``: reading the record back gives ``response`` again.
    """
    wire = response.to_dict()
    wire["content"] = [
        {
            (INPUT_BASE64 if key == "input" else key): (
                base64.b64encode(value).decode("ascii") if key == "input" else value
            )
            for key, value in block.items()
        }
        if block.get("type") == "tool_use" and isinstance(block.get("input"), bytes | bytearray)
        else block
        for block in wire["content"]
    ]
    return wire


# --- reading -------------------------------------------------------------------------

_GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 1 << 16


class _Bad(Exception):
    """A record of the wrong shape: ``where`` names the field, ``what`` says what was wrong."""

    def __init__(self, where: str, what: str) -> None:
        super().__init__(f"{where}: {what}")


class _StreamError(Exception):
    """The bytes of the file could not be read as a stream of lines (a corrupt gzip stream)."""


_JSON_TYPE_NAMES = {
    dict: "object",
    list: "array",
    str: "string",
    bool: "boolean",
    int: "int",
    float: "float",
    type(None): "null",
}


def _type_name(value: object) -> str:
    return _JSON_TYPE_NAMES.get(type(value), type(value).__name__)


_STR = (str,)
_INT = (int,)
_NUMBER = (int, float)
_BOOL = (bool,)
_OBJECT = (dict,)
_LIST = (list,)
_ANY: tuple[type, ...] = ()

# Each known field of each record, with the JSON types it may hold (``null`` is accepted
# for every optional field and means "not recorded"). Declared once, as data, so that
# the loader and the writer refuse exactly the same records.
_EXPECTED = {
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
    "system": _STR,
    "model": _STR,
    "max_output_tokens": _INT,
    "started_at": _STR,
    "tools": _LIST,
}
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
}
_END_FIELDS: dict[str, tuple[type, ...]] = {"type": _STR, "status": _STR, "reason": _STR, "error": _STR, "at": _STR}


# Records of one kind nearly always have the same fields holding the same types, so a
# shape (field names, value types) that has passed once is remembered and not checked again.
_SHAPES_KEPT = 4096
_shapes: dict[tuple[str, tuple[str, ...], tuple[type, ...]], tuple[str, ...]] = {}


def _check_fields(
    value: Mapping[str, Any], fields: Mapping[str, tuple[type, ...]], where: str, unknown: list[str]
) -> None:
    """Check the known fields' types; name the unknown ones in ``unknown``."""
    shape = (where, tuple(value), tuple(map(type, value.values())))
    names = _shapes.get(shape)
    if names is None:
        names = tuple(_check_shape(value, fields, where))
        if len(_shapes) < _SHAPES_KEPT:
            _shapes[shape] = names
    if names:
        unknown.extend(names)


def _check_shape(value: Mapping[str, Any], fields: Mapping[str, tuple[type, ...]], where: str) -> Iterator[str]:
    for key, item in value.items():
        expected = fields.get(key)
        if expected is None:
            yield f"{where}.{key}"
        elif expected and item is not None and type(item) not in expected:
            raise _Bad(f"{where}.{key}", f"expected {_EXPECTED[expected]}, got {_type_name(item)}")


def _required(value: Mapping[str, Any], key: str, where: str) -> Any:
    item = value.get(key)
    if item is None:
        raise _Bad(f"{where}.{key}", "missing" if key not in value else "expected a value, got null")
    return item


def _index(value: Mapping[str, Any], key: str, where: str) -> int:
    index: int = _required(value, key, where)
    if index < 0:
        raise _Bad(f"{where}.{key}", f"expected 0 or more, got {index}")
    return index


def _header(record: dict[str, Any], unknown: list[str]) -> None:
    _check_fields(record, _RUN_FIELDS, "run", unknown)
    if record.get("max_output_tokens") is not None:
        _index(record, "max_output_tokens", "run")
    for position, tool in enumerate(record.get("tools") or ()):
        where = f"run.tools[{position}]"
        if type(tool) is not dict:
            raise _Bad(where, f"expected an object, got {_type_name(tool)}")
        _check_fields(tool, _TOOL_FIELDS, where, unknown)
        _required(tool, "name", where)


def _step(record: dict[str, Any], unknown: list[str]) -> Step:
    _check_fields(record, _STEP_FIELDS, "step", unknown)
    index = _index(record, "index", "step")
    decision = observation = None
    wire = record.get("decision")
    if wire is not None:
        _check_fields(wire, _DECISION_FIELDS, "step.decision", unknown)
        decision = _new(Decision)
        _set_kind(decision, _required(wire, "kind", "step.decision"))
        _set_tool(decision, wire.get("tool") or "")
        _set_args(decision, wire.get("args"))
        _set_reason(decision, wire.get("reason") or "")
        _set_invalid_args(decision, wire.get("invalid_args") or "")
        _set_invalid_base64(decision, wire.get("invalid_base64") or False)
    wire = record.get("observation")
    if wire is not None:
        _check_fields(wire, _OBSERVATION_FIELDS, "step.observation", unknown)
        observation = _new(Observation)
        _set_status(observation, wire.get("status") or "ok")
        _set_content(observation, wire.get("content") or "")
        _set_summary(observation, wire.get("summary") or "")
    step = _new(Step)
    _set_index(step, index)
    _set_decision(step, decision)
    _set_observation(step, observation)
    return step


# A frozen dataclass's __init__ sets each field through object.__setattr__, which costs more
# than checking the record; steps are built by filling their slots directly, as
# agentrender._types does for the render loop's blocks. The values stay frozen.
_new = object.__new__
_set_kind, _set_tool, _set_args, _set_reason, _set_invalid_args, _set_invalid_base64 = (
    getattr(Decision, name).__set__ for name in ("kind", "tool", "args", "reason", "invalid_args", "invalid_base64")
)
_set_status, _set_content, _set_summary = (
    getattr(Observation, name).__set__ for name in ("status", "content", "summary")
)
_set_index, _set_decision, _set_observation = (
    getattr(Step, name).__set__ for name in ("index", "decision", "observation")
)
assert set(Decision.__dataclass_fields__) == {"kind", "tool", "args", "reason", "invalid_args", "invalid_base64"}
assert set(Observation.__dataclass_fields__) == {"status", "content", "summary"}
assert set(Step.__dataclass_fields__) == {"index", "decision", "observation"}


def _model_call(record: dict[str, Any], line: int, unknown: list[str], source: str) -> ModelCall:
    _check_fields(record, _MODEL_CALL_FIELDS, "model_call", unknown)
    step = _index(record, "step", "model_call")
    wire = _required(record, "response", "model_call")
    try:
        _check_response(_decoded_reply(wire, "model_call.response"), where="model_call.response")
    except ValueError as error:
        where, _, what = str(error).partition(": ")
        raise _Bad(where, what) from None
    # ``response`` is left unset: ModelCall builds it from the record when it is first asked for,
    # and so is ``record`` when the line's text is given to decode it from.
    call = _new(ModelCall)
    _set_call_step(call, step)
    _set_call_latency_ms(call, record.get("latency_ms"))
    _set_call_request_key(call, record.get("request_key") or "")
    _set_call_line(call, line)
    _set_call_source(call, source)
    if source:
        _set_call_stop_reason(call, wire.get("stop_reason") or "")
        _set_call_usage(call, wire.get("usage"))
    else:
        _set_call_record(call, record)
        _set_call_stop_reason(call, "")
        _set_call_usage(call, None)
    return call


_CALL_FIELDS = ("step", "response", "latency_ms", "request_key", "line", "record", "_source", "_stop_reason", "_usage")
assert tuple(ModelCall.__dataclass_fields__) == _CALL_FIELDS
(
    _set_call_step,
    _set_call_response,
    _set_call_latency_ms,
    _set_call_request_key,
    _set_call_line,
    _set_call_record,
    _set_call_source,
    _set_call_stop_reason,
    _set_call_usage,
) = (getattr(ModelCall, name).__set__ for name in _CALL_FIELDS)


def _end(record: dict[str, Any], unknown: list[str]) -> None:
    _check_fields(record, _END_FIELDS, "end", unknown)


def check_record(record: Any) -> None:
    """Raise ``ValueError`` naming the field when ``record`` is not a record a run file may hold.

    Unknown record types and unknown fields are accepted; they are reported when read.
    """
    try:
        _check_record(record, 0, [])
    except _Bad as error:
        raise ValueError(str(error)) from None


def _check_record(record: Any, line: int, unknown: list[str], source: str = "") -> Step | ModelCall | None:
    # ``source``: the line ``record`` was decoded from, which a model call keeps in its place.
    if type(record) is not dict:
        raise _Bad("record", f"expected a JSON object, got {_type_name(record)}")
    kind = record.get("type")
    if type(kind) is not str:
        if "type" not in record:
            raise _Bad("type", "missing: every record names its type")
        raise _Bad("type", f"expected a string, got {_type_name(kind)}")
    if kind == "step":
        return _step(record, unknown)
    if kind == "model_call":
        return _model_call(record, line, unknown, source)
    if kind == "run":
        _header(record, unknown)
    elif kind == "end":
        _end(record, unknown)
    return None


# Strict JSON as RFC 8259 has it, the same as render.decide reads tool arguments. Its white
# space is these four characters only: str.isspace() would let a vertical tab or U+2028 pass.
_JSON_SPACE = " \t\n\r"
_decode_json = _fast.fast_json_decoder(_json.STRICT_DECODER, _JSON_SPACE)
"""One JSON value; ``json.JSONDecodeError`` (or ``ValueError``) when ``text`` is not exactly one."""


def _gzip_lines(file: IO[bytes], notes: list[str]) -> Iterator[bytes]:
    """The lines of a gzip stream (several members allowed); a stream that ends early is read up to its end."""
    decompressor = zlib.decompressobj(wbits=31)
    fed = False
    pending: list[bytes] = []
    while chunk := file.read(_CHUNK):
        while chunk:
            fed = True
            try:
                data = decompressor.decompress(chunk)
            except zlib.error as error:
                raise _StreamError(f"the gzip stream is corrupt ({error})") from None
            if decompressor.eof:
                chunk = decompressor.unused_data
                decompressor = zlib.decompressobj(wbits=31)
                fed = False
            else:
                chunk = b""
            start = 0
            while (end := data.find(b"\n", start)) >= 0:
                if pending:
                    pending.append(data[start : end + 1])
                    yield b"".join(pending)
                    pending.clear()
                else:
                    yield data[start : end + 1]
                start = end + 1
            if start < len(data):
                pending.append(data[start:])
    if fed:
        notes.append("the gzip stream ends early (a process killed while writing); read up to where it ends")
    if pending:
        yield b"".join(pending)


class _Loader:
    """The state of one read: what has been loaded so far and what will be reported."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.header: dict[str, Any] | None = None
        self.header_line = 0
        self.records: list[dict[str, Any] | ModelCall] = []
        self.steps: dict[int, Step] = {}
        self.step_records: dict[int, dict[str, Any]] = {}
        self.step_lines: dict[int, int] = {}
        self.model_calls: list[ModelCall] = []
        self.end: dict[str, Any] | None = None
        self.end_line = 0
        self.unknown: list[str] = []
        self.last_line = 0
        # Notes that may repeat on many records are kept once each, with the first line and a count.
        self.notes: dict[str, list[int]] = {}

    def note(self, line: int, text: str) -> None:
        seen = self.notes.get(text)
        if seen is None:
            self.notes[text] = [line, 1]
        else:
            seen[1] += 1

    def fail(self, line: int, what: str) -> RunFileError:
        return RunFileError(self.path, line, what)

    def read(self, lines: Iterable[bytes]) -> None:
        """Load every line, counting them in ``self.last_line``."""
        for number, line in enumerate(lines, start=1):
            self.last_line = number
            self.line(number, line)

    def line(self, number: int, line: bytes) -> None:
        complete = line.endswith(b"\n")
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as error:
            if not complete:
                self.cut_short(number, line, "not UTF-8")
                return
            raise self.fail(number, f"not UTF-8: {error.reason} at byte {error.start + 1} of the line") from None
        if not text.strip(_JSON_SPACE):
            return
        if number == 1 and text.startswith("\ufeff"):
            self.note(number, "the file begins with a UTF-8 byte order mark; skipped")
            text = text[1:]
        try:
            record = _decode_json(text)
        except (ValueError, RecursionError) as error:
            if not complete:
                self.cut_short(number, line, "not JSON")
                return
            if isinstance(error, json.JSONDecodeError):
                what = f"{error.msg} at column {error.pos + 1}"
            elif isinstance(error, RecursionError):
                what = "nested too deeply"
            else:
                what = str(error)
            raise self.fail(number, f"not JSON: {what}") from None
        self.record(number, record, text)

    def cut_short(self, number: int, line: bytes, why: str) -> None:
        self.note(
            number,
            f"the last line is cut short (no newline, {why}): {len(line)} bytes not loaded; "
            "a process killed while writing leaves this",
        )

    def record(self, number: int, record: Any, text: str) -> None:
        unknown = self.unknown
        try:
            loaded = _check_record(record, number, unknown, text)
        except _Bad as error:
            raise self.fail(number, str(error)) from None
        if unknown:
            for name in unknown:
                self.note(number, f"unknown field {name} kept (not loaded into the typed fields)")
            unknown.clear()
        kind = record["type"]
        if self.header is None:
            if kind != "run":
                raise self.fail(number, f"missing run header: the first record is a {kind!r} record, not 'run'")
            self.header, self.header_line = record, number
            self.check_format(number, record.get("format"))
            self.records.append(record)
            return
        if kind == "run":
            raise self.fail(number, f"a second run header (the first is on line {self.header_line})")
        if self.end is not None:
            self.note(number, f"a record after the end record on line {self.end_line}; loaded (the run went on)")
        if type(loaded) is ModelCall:
            self.records.append(loaded)
            self.model_calls.append(loaded)
            return
        self.records.append(record)
        if type(loaded) is Step:
            self.add_step(number, loaded, record)
        elif kind == "end":
            if self.end is not None:
                self.note(number, f"a second end record; it replaces the one on line {self.end_line}")
            self.end, self.end_line = record, number
        else:
            self.note(number, f"unknown record type {kind!r} kept (not loaded into the typed fields)")

    def check_format(self, number: int, name: Any) -> None:
        if name is None:
            self.note(number, f"the run header names no format; read as {FORMAT}")
        elif name != FORMAT:
            self.note(number, f"the run header's format is {name!r}, not {FORMAT}; read as {FORMAT}")

    def add_step(self, number: int, step: Step, record: dict[str, Any]) -> None:
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

    def run(self, stream_notes: Sequence[str]) -> Run:
        last_line = self.last_line
        if self.header is None:
            why = "the file is empty" if not self.notes else "no complete record"
            raise self.fail(max(last_line, 1), f"missing run header: {why}")
        for text in stream_notes:
            self.note(last_line, text)
        warnings = []
        for text, (line, count) in sorted(self.notes.items(), key=lambda item: item[1][0]):
            more = f" (and {count - 1} more record(s) like it)" if count > 1 else ""
            warnings.append(f"{self.path}:{line}: {text}{more}")
        steps = self.steps
        return Run(
            path=self.path,
            header=self.header,
            steps=tuple(steps[index] for index in sorted(steps)),
            step_records=self.step_records,
            model_calls=tuple(self.model_calls),
            end=self.end,
            records=_Records(self.records),
            warnings=tuple(warnings),
        )


def load_run(path: str | os.PathLike[str]) -> Run:
    """Read a run file (``.jsonl``, or gzip-compressed ``.jsonl.gz``) into a ``Run``.

    Raises ``RunFileError`` (a ``ValueError`` whose message begins with ``PATH:LINE:``) for a
    line that is not a JSON object, a record of the wrong shape (naming the field), invalid
    UTF-8, or a missing or second ``run`` header. A last line cut short, unknown record
    types and fields, and anything else loaded with a doubt are reported in ``Run.warnings``.
    """
    name = os.fspath(path)
    loader = _Loader(name)
    stream_notes: list[str] = []
    # The collector's passes over the growing run doubled the time of a 100,000-step load.
    with _fast.paused(), open(name, "rb") as file:
        lines: Iterable[bytes] = file
        if file.peek(2)[:2] == _GZIP_MAGIC:
            lines = _gzip_lines(file, stream_notes)
        try:
            loader.read(lines)
        except _StreamError as error:
            raise loader.fail(loader.last_line + 1, str(error)) from None
        return loader.run(stream_notes)


# --- writing -------------------------------------------------------------------------


def _encode(record: Mapping[str, Any]) -> bytes:
    """One record as one line of UTF-8 JSON; strings holding lone surrogates are escaped so the file stays UTF-8."""
    text = json.dumps(record, ensure_ascii=False, allow_nan=False)
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        return json.dumps(record, allow_nan=False).encode("ascii") + b"\n"


def _decision_record(decision: Decision) -> dict[str, Any]:
    wire: dict[str, Any] = {"kind": decision.kind}
    if decision.tool:
        wire["tool"] = decision.tool
    if decision.args is not None:
        wire["args"] = decision.args
    wire["reason"] = decision.reason
    if decision.invalid_args:
        wire["invalid_args"] = decision.invalid_args
        if decision.invalid_base64:
            wire["invalid_base64"] = True
    return wire


def step_record(step: Step, **fields: Any) -> dict[str, Any]:
    """The ``step`` record for ``step``, with ``fields`` (``started_at``, ``ended_at``, ...) after its index."""
    record: dict[str, Any] = {"type": "step", "index": step.index, **fields}
    record["decision"] = None if step.decision is None else _decision_record(step.decision)
    observation = step.observation
    record["observation"] = (
        None
        if observation is None
        else {"status": observation.status, "content": observation.content, "summary": observation.summary}
    )
    return record


def _model_call_record(
    step: int,
    response: ModelResponse | Mapping[str, Any],
    *,
    latency_ms: float | None = None,
    request_key: str = "",
    **fields: Any,
) -> dict[str, Any]:
    record: dict[str, Any] = {"type": "model_call", "step": step}
    if latency_ms is not None:
        record["latency_ms"] = latency_ms
    if request_key:
        record["request_key"] = request_key
    record["response"] = response_record(response) if isinstance(response, ModelResponse) else dict(response)
    record.update(fields)
    return record


class RunWriter:
    """Append records to a run file one at a time, each flushed, so a killed process leaves a readable prefix.

    A path ending in ``.gz`` is written gzip-compressed, each record followed by a sync
    flush, so every record written is readable even when the stream is never closed.
    Every record is checked as ``load_run`` would check it before a byte is written:
    the writer never writes a file its reader refuses.
    """

    def __init__(
        self, path: str | os.PathLike[str], *, append: bool = False, compress: bool | None = None, fsync: bool = False
    ) -> None:
        """Open ``path`` for writing (``append=True`` to go on with a run already there).

        ``compress`` defaults to whether the name ends in ``.gz``; ``fsync`` also asks the
        system to put each record on disk before ``write`` returns.
        """
        self.path = os.fspath(path)
        self._compress = self.path.endswith(".gz") if compress is None else compress
        self._fsync = fsync
        self._has_header = False
        if append and os.path.exists(self.path) and os.path.getsize(self.path) > 0:
            self._has_header = True
            if self._compress:
                _check_gzip_closed(self.path)
        self._raw: IO[bytes] = open(self.path, "ab" if append else "wb")  # noqa: SIM115 (closed by close())
        self._file: IO[bytes] | gzip.GzipFile = self._raw
        if self._compress:
            # No name and no time in the member header, so the same records give the same bytes.
            self._file = gzip.GzipFile(filename="", mode="wb", fileobj=self._raw, mtime=0)

    def write(self, record: Mapping[str, Any]) -> None:
        """Check ``record``, append it as one line and flush it; ``ValueError`` names what was wrong."""
        if self._raw.closed:
            raise ValueError(f"{self.path}: the run writer is closed")
        record = dict(record)
        check_record(record)
        is_header = record["type"] == "run"
        if is_header and self._has_header:
            raise ValueError(f"{self.path}: the run file already has its run header")
        if not is_header and not self._has_header:
            raise ValueError(f"{self.path}: the first record must be the run header, not a {record['type']!r} record")
        self._file.write(_encode(record))
        # GzipFile.flush ends the deflate block with a sync flush, so the record is readable now.
        self._file.flush()
        if self._fsync:
            os.fsync(self._raw.fileno())
        self._has_header = True

    def header(
        self,
        *,
        run_id: str,
        goal: str = "",
        opening: str = "",
        system: str = "",
        model: str = "",
        max_output_tokens: int = 0,
        started_at: str = "",
        tools: Sequence[Mapping[str, Any]] = (),
        **fields: Any,
    ) -> None:
        """Write the ``run`` header: the first record of every run file.

        ``max_output_tokens`` is the output cap the agent's requests ask for (0: not recorded);
        a replay key over a render of the run hashes it, so recording it lets the key be
        computed again from the run file alone.
        """
        record: dict[str, Any] = {"type": "run", "format": FORMAT, "run_id": run_id, "goal": goal}
        for key, value in (
            ("opening", opening),
            ("system", system),
            ("model", model),
            ("max_output_tokens", max_output_tokens),
            ("started_at", started_at),
        ):
            if value:
                record[key] = value
        record["tools"] = [dict(tool) for tool in tools]
        record.update(fields)
        self.write(record)

    def step(self, step: Step, **fields: Any) -> None:
        """Write a ``step`` record (again, when it has gone on: the later record replaces the earlier)."""
        self.write(step_record(step, **fields))

    def model_call(
        self,
        step: int,
        response: ModelResponse | Mapping[str, Any],
        *,
        latency_ms: float | None = None,
        request_key: str = "",
        **fields: Any,
    ) -> None:
        """Write a ``model_call`` record: the reply a model gave while step ``step`` was being decided."""
        self.write(_model_call_record(step, response, latency_ms=latency_ms, request_key=request_key, **fields))

    def end(self, status: str, reason: str = "", *, error: str = "", at: str = "", **fields: Any) -> None:
        """Write the ``end`` record: how the run ended.

        ``reason`` is a short name (``completed``, ``max_steps``, ``agent_error``, ...); a run
        stopped by an error carries the error's text in ``error``.
        """
        record: dict[str, Any] = {"type": "end", "status": status, "reason": reason or status}
        if error:
            record["error"] = error
        if at:
            record["at"] = at
        record.update(fields)
        self.write(record)

    def close(self) -> None:
        """Finish the file (a gzip stream gets its trailer); further writes raise ``ValueError``."""
        if self._raw.closed:
            return
        self._file.close()
        self._raw.close()

    def __enter__(self) -> RunWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _check_gzip_closed(path: str) -> None:
    notes: list[str] = []
    with open(path, "rb") as file:
        for _ in _gzip_lines(file, notes):
            pass
    if notes:
        raise ValueError(
            f"{path}: the gzip stream ends early, so a new member cannot follow it; "
            "load the run and write it again with write_run first"
        )


def write_run(run: Run, path: str | os.PathLike[str], *, compress: bool | None = None) -> None:
    """Write ``run`` to ``path``: every record it was read from, unknown ones included, in file order.

    A run built in memory (no ``records``) is written from its typed fields.
    """
    with RunWriter(path, compress=compress) as writer:
        for record in run.records or _records_of(run):
            writer.write(record)


def _records_of(run: Run) -> Iterator[Mapping[str, Any]]:
    yield run.header or {"type": "run", "format": FORMAT}
    calls: dict[int, list[ModelCall]] = {}
    for call in run.model_calls:
        calls.setdefault(call.step, []).append(call)
    for step in run.steps:
        for call in calls.pop(step.index, ()):
            yield call.record or _call_record(call)
        yield run.step_records.get(step.index) or step_record(step)
    for rest in calls.values():
        for call in rest:
            yield call.record or _call_record(call)
    if run.end is not None:
        yield run.end


def _call_record(call: ModelCall) -> dict[str, Any]:
    return _model_call_record(call.step, call.response, latency_ms=call.latency_ms, request_key=call.request_key)
