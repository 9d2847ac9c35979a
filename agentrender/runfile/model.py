"""The values a run file is read into: ``Run``, its ``ModelCall``s and ``RunWarning``s, and ``RunFileError``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from agentrender import render
from agentrender._api_rules import system_text
from agentrender._types import ContentBlock, ModelResponse, Step, StepInput
from agentrender.runfile.lines import decode_line
from agentrender.runfile.replies import response_from_record, response_record
from agentrender.runfile.sent import FORMAT_SENT, Sent, sent_blocks
from agentrender.views import Views, answered_tool_uses, explain_decide
from agentrender.views.html import run_html
from agentrender.views.view import checked_at

__all__ = [
    "FORMAT",
    "MAX_COUNT",
    "NO_OPENING",
    "Compaction",
    "ModelCall",
    "Run",
    "RunFileError",
    "RunLink",
    "RunLinks",
    "RunWarning",
    "RunWarnings",
    "StepRecords",
    "as_record",
    "compaction",
    "has_opening",
    "is_milliseconds",
    "kept_call",
    "loaded_call",
    "plain_field",
    "run_link",
]

FORMAT = "agentrender.run/1"
"""The ``format`` a run header names for this version of the file."""

MAX_COUNT = 2**53 - 1
"""The largest index or count a run file may hold: I-JSON's (RFC 7493) largest exact integer, well inside int64."""


def is_milliseconds(value: Any) -> bool:
    """Whether ``value`` is a latency the frames read: a float, or an integer no larger than ``MAX_COUNT``."""
    return type(value) is float or (type(value) is int and -MAX_COUNT <= value <= MAX_COUNT)


NO_OPENING = "(this run recorded no opening)"
"""The opening a run's views open with when its header has neither ``opening`` nor ``goal``.

The loader warns about such a header; what a view shows for each step does not depend on
the opening's text, so the views, frames and commands show the recorded steps after it.
"""


def has_opening(header: Mapping[str, Any]) -> bool:
    """False when a run header records neither an ``opening`` nor a ``goal`` text, nor the blocks it opened with."""
    return bool(str(header.get("opening") or header.get("goal", "")).strip() or header.get("opening_content"))


class RunFileError(ValueError):
    """A run file that cannot be read; the message begins with ``PATH:LINE:``.

    Where the column is known it begins with ``PATH:LINE:COLUMN:``, as compilers and editors write a place.
    """

    def __init__(self, path: str, line: int, what: str, column: int | None = None) -> None:
        super().__init__(f"{path}:{line}:{'' if column is None else f'{column}:'} {what}")
        self.path = path
        """The file that was being read."""
        self.line = line
        """The 1-based line the problem is on."""
        self.what = what
        """What was wrong, without the location."""
        self.column = column
        """The 1-based column (in characters) the problem is at on that line, where it is known."""

    def __reduce__(self) -> tuple[type[RunFileError], tuple[str, int, str, int | None]]:
        # Exceptions pickle as cls(*args), and args holds only the composed message: without
        # this, an error raised in a worker process could not be sent back to its caller.
        return (type(self), (self.path, self.line, self.what, self.column))


@dataclass(frozen=True, slots=True, kw_only=True)
class RunWarning:
    """Something a run file held that was read but not loaded, or loaded with a doubt.

    ``str()`` gives it as one line, ``PATH:LINE: TEXT``, with how many more records gave
    the same warning when there were any.
    """

    line: int
    """The 1-based line of the first record the warning is about."""
    text: str
    """What was found, without the location."""
    path: str = ""
    """The file that was read ("" for a warning made in memory)."""
    count: int = 1
    """How many records gave this same warning; ``line`` is the first of them."""
    lost: bool = False
    """Something the file held was not loaded at all (a line cut short, a gzip stream ended early)."""

    @property
    def message(self) -> str:
        """``text``, followed by how many more records are like it when there are any: the line without its location."""
        if self.count > 1:
            return f"{self.text} (and {self.count - 1} more record(s) like it)"
        return self.text

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


class RunWarnings(list[RunWarning]):
    """The warnings of one read as they are made, each kind once: a warning like one already held adds to its count.

    Two warnings are alike when they have the same path, text and ``lost``; the one held keeps
    the first line and counts both (``RunWarning.count``). A file of two million alike records
    holds one warning, not two million: an importer collects into this list, not into a plain
    one, so memory stays bounded while the warnings are made.
    """

    __slots__ = ("_held",)

    def __init__(self, warnings: Iterable[RunWarning] = ()) -> None:
        super().__init__()
        self._held: dict[tuple[str, str, bool], int] = {}
        self.extend(warnings)

    def append(self, warning: RunWarning) -> None:
        """Hold ``warning``, or add its count to the one like it already held."""
        key = (warning.path, warning.text, warning.lost)
        at = self._held.get(key)
        if at is None:
            self._held[key] = len(self)
            super().append(warning)
        else:
            held = self[at]
            self[at] = RunWarning(line=held.line, text=held.text, path=held.path, count=held.count + warning.count,
                                  lost=held.lost)  # fmt: skip

    def extend(self, warnings: Iterable[RunWarning]) -> None:
        """``append`` each of ``warnings``."""
        for warning in warnings:
            self.append(warning)

    def __iadd__(self, warnings: Iterable[RunWarning]) -> RunWarnings:  # type: ignore[override,misc]
        self.extend(warnings)
        return self


class ModelCall:
    """One captured model call: the reply a model gave while a step was being decided.

    A value: its fields are read-only, two calls are equal when their fields are, and ``repr`` shows the
    fields as the constructor takes them. A call read from a file keeps the text of its line, not the
    parsed record: ``record`` and ``response`` are decoded from it when first asked for, and kept. Parsed,
    a record is a dozen objects that every full pass of Python's cyclic collector walks again, for fields
    most readers never look at (``bench/README.md`` has the figures). ``stop_reason`` and ``usage`` are
    read off the record when the line is loaded. It is a plain class, not a ``msgspec.Struct`` or a
    dataclass, because their constructors take the fields they hold: ``record`` and ``response`` are
    what this constructor takes, and not what a loaded call holds.
    """

    __slots__ = (
        "_latency_ms",
        "_line",
        "_record",
        "_request_key",
        "_response",
        "_source",
        "_step",
        "_stop_reason",
        "_usage",
    )

    def __init__(
        self,
        *,
        step: int,
        response: ModelResponse,
        latency_ms: float | None = None,
        request_key: str = "",
        line: int = 0,
        record: Mapping[str, Any] | None = None,
    ) -> None:
        """A call built in memory; ``record`` is ``{}`` when not given. ``TypeError`` for a ``response`` that is no
        ``ModelResponse``."""
        if not isinstance(response, ModelResponse):
            raise TypeError(f"ModelCall's response must be a ModelResponse, not {type(response).__name__}")
        self._step = step
        self._response: ModelResponse | None = response
        self._latency_ms = latency_ms
        self._request_key = request_key
        self._line = line
        self._record: Mapping[str, Any] | None = {} if record is None else record
        self._source = ""
        """The JSON text of the record, for a call read from a file (``loaded_call``); ``""`` for any other."""
        self._stop_reason = ""
        """The reply's stop reason, read when the line was loaded (when ``_source`` is set)."""
        self._usage: Mapping[str, Any] | None = None
        """The reply's usage, read when the line was loaded (when ``_source`` is set)."""

    @property
    def step(self) -> int:
        """The index of the step the call was made for."""
        return self._step

    @property
    def response(self) -> ModelResponse:
        """The model's reply, read from the Anthropic ``Message`` object the record holds."""
        response = self._response
        if response is None:
            # The record was checked when its line was read, so building the reply cannot fail. A
            # record not yet decoded is decoded for the reply alone and not kept: a reader of replies
            # (render.decide over a whole run) then holds the replies and not their records too.
            record = self._record if self._record is not None else decode_line(self._source)
            response = self._response = response_from_record(record["response"], where="model_call.response")
        return response

    @property
    def latency_ms(self) -> float | None:
        """How long the call took, when recorded."""
        return self._latency_ms

    @property
    def retried(self) -> tuple[Mapping[str, Any], ...]:
        """The HTTP tries before the one that gave the reply, which failed and were tried again (by the SDK's retries),
        in order: the record's ``retried``, each ``at_ms``, ``latency_ms`` and ``error`` (or ``{}``, for a try the
        recorder was not shown); ``()`` for a call tried once, or whose record does not say."""
        if self._record is None and '"retried"' not in self._source:  # most calls: their line is not decoded for it
            return ()
        retried = self.record.get("retried")
        if not isinstance(retried, list):
            return ()
        return tuple(item for item in retried if isinstance(item, Mapping))

    @property
    def tries_known(self) -> bool:
        """Whether the recording knows how many HTTP tries the call took: ``False`` where the recorder could not know
        (the record's ``"tries_known": false``: an SDK that sends no retry count), and ``retried`` may miss some."""
        if self._record is None and '"tries_known"' not in self._source:  # most calls: their line is not decoded
            return True
        return self.record.get("tries_known") is not False

    @property
    def retried_ms(self) -> float | None:
        """How long the tries of ``retried`` took together, in milliseconds (part of ``latency_ms``): 0 for a call
        tried once, ``None`` when one of them has no recorded time, or one the frames cannot read (``is_milliseconds``:
        the loader warns of it), or when how many tries there were is not known (``tries_known``)."""
        if not self.tries_known:
            return None
        total = 0.0
        for item in self.retried:
            latency = item.get("latency_ms")
            if latency is None or not is_milliseconds(latency):
                return None
            total += latency
        return total

    @property
    def request_key(self) -> str:
        """The replay key of the request that was sent, when recorded."""
        return self._request_key

    @property
    def line(self) -> int:
        """The line of the run file the record was read from; for an imported run's call, the line of the history it
        was read from (0 for a call built in memory, or read from a file that holds no lines: a JSON document)."""
        return self._line

    @property
    def record(self) -> Mapping[str, Any]:
        """The record as read, unknown fields included (``{}`` for a call built in memory without one)."""
        record = self._record
        if record is None:  # a call read from a file: its line, decoded once
            record = self._record = decode_line(self._source)
        return record

    @property
    def request(self) -> Mapping[str, Any] | None:
        """The request body the record holds (a recorded or imported call's, as sent), or ``None``. Read without
        keeping the decoded record: a reader of every call's request (``check``) holds the requests, not the records,
        and a line that holds none is not decoded for it."""
        record = self._record
        if record is None:
            if '"request"' not in self._source:  # most run files' calls: their line is not decoded for it
                return None
            record = decode_line(self._source)
        request = record.get("request")
        return request if isinstance(request, Mapping) else None

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

    def _fields(self) -> tuple[Any, ...]:
        return (self.step, self.response, self.latency_ms, self.request_key, self.line, self.record)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ModelCall):
            return NotImplemented
        return self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # equal by its fields, a record (a dict) among them

    def __repr__(self) -> str:
        return (
            f"{type(self).__qualname__}(step={self.step!r}, response={self.response!r}, "
            f"latency_ms={self.latency_ms!r}, request_key={self.request_key!r}, line={self.line!r}, "
            f"record={self.record!r})"
        )


def loaded_call(
    step: int,
    latency_ms: float | None,
    request_key: str,
    line: int,
    source: str,
    stop_reason: str,
    usage: Mapping[str, Any] | None,
) -> ModelCall:
    """A call read from a file, keeping ``source``, the text of its line.

    Its ``record`` and ``response`` are decoded from that text when first asked for.
    """
    return _unbuilt(step, latency_ms, request_key, line, None, source, stop_reason, usage)


def kept_call(step: int, record: Mapping[str, Any], latency_ms: float | None, request_key: str, line: int) -> ModelCall:
    """A call of a run made in memory, holding its record; its ``response`` is read from it when first asked for."""
    return _unbuilt(step, latency_ms, request_key, line, record, "", "", None)


def _unbuilt(
    step: int,
    latency_ms: float | None,
    request_key: str,
    line: int,
    record: Mapping[str, Any] | None,
    source: str,
    stop_reason: str,
    usage: Mapping[str, Any] | None,
) -> ModelCall:
    """A call whose reply is built when first asked for: made without ``__init__``, each field set once, as a run
    file's calls are made a line each."""
    call = ModelCall.__new__(ModelCall)
    call._step = step
    call._response = None
    call._latency_ms = latency_ms
    call._request_key = request_key
    call._line = line
    call._record = record
    call._source = source
    call._stop_reason = stop_reason
    call._usage = usage
    return call


@dataclass(frozen=True, slots=True, kw_only=True)
class Compaction:
    """A compaction of an imported run's conversation: from ``step`` on, it restarted with ``opening``.

    Read from the header's ``compactions`` (``Run.compactions``). The as-sent view at a stop
    ``k >= step`` (up to the next compaction) is ``opening`` and the turns of the steps from
    ``step`` to ``k - 1``; under the contract's options the whole history is rendered, and the
    views only say where the compaction happened.
    """

    step: int
    """The first step whose request was sent after the compaction (the number of steps when none was)."""
    opening: tuple[ContentBlock, ...]
    """The user turn the conversation restarted with (a Claude Code session's summary, and the user's next prompt
    when one was joined to it), as it was sent."""
    summary_blocks: tuple[int, ...] | None = None
    """The indices (increasing) of ``opening``'s blocks that are the compaction's summary; the others were sent with
    it as they are (the user's next prompt, the messages Codex kept). ``None`` when the source cannot tell which are:
    every block is then taken for the summary, as in a run file written before the field (``is_summary``)."""
    trigger: str = ""
    """What set it off, as the source says (``"auto"``, ``"manual"``, ...); ``""`` when not recorded."""
    tokens_before: int | None = None
    """The conversation's tokens just before it, by the source's own count; ``None`` when not recorded."""
    at: str = ""
    """When it happened (a timestamp), when recorded."""
    line: int | None = None
    """The line of the source the compaction's boundary was read from, when recorded."""
    record: Mapping[str, Any] = field(default_factory=dict, repr=False)
    """The header's object for it, as read (unknown fields included)."""

    def is_summary(self, index: int) -> bool:
        """Whether ``opening[index]`` is the summary (``summary_blocks``; every block when it is ``None``)."""
        return self.summary_blocks is None or index in self.summary_blocks


def compaction(record: Mapping[str, Any]) -> Compaction:
    """The ``Compaction`` a checked object of a run header's ``compactions`` holds."""
    return Compaction(
        step=record["step"],
        opening=sent_blocks(record["opening"]),
        summary_blocks=None if record.get("summary_blocks") is None else tuple(record["summary_blocks"]),
        trigger=record.get("trigger") or "",
        tokens_before=record.get("tokens_before"),
        at=record.get("at") or "",
        line=record.get("line"),
        record=record,
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class RunLink:
    """A link of a run to another run of its file, as its importer recorded it in the header's ``source``
    (``imports.from_claude_code``): the run, and the step of the session that started the agent (or before which it
    wrote a compaction). Read by ``Run.links``; ``run_link`` says which objects are links."""

    run_id: str
    """The id of the run linked to (the session's, for a link to the run that started this one)."""
    step: int
    """The step of the session that started the agent: the one whose tool use launched a sub-agent, or the first
    step after the compaction a forked agent wrote."""
    tool_use_id: str | None = None
    """The id of the tool use that started the sub-agent (a ``Task`` or ``Agent`` call), when recorded."""
    compaction_line: int | None = None
    """For an agent forked to write a compaction's summary, the line of the session's file where that compaction's
    boundary is; ``None`` for a sub-agent a tool use started."""

    @property
    def is_compaction(self) -> bool:
        """Whether the linked agent was forked from the session to write a compaction (not started by a tool use)."""
        return self.compaction_line is not None


def run_link(value: Any) -> RunLink | None:
    """The ``RunLink`` a header's ``source.parent`` or an item of its ``source.subagents`` holds: an object naming a
    run (``run_id``, a string) and a step (``step``, an int, not a bool); ``None`` for a value of any other shape (a
    source of another importer may use those names otherwise). ``tool_use_id`` is kept when it is a string,
    ``compaction_line`` when it is an int."""
    if not isinstance(value, Mapping):
        return None
    run_id, step = value.get("run_id"), value.get("step")
    if not isinstance(run_id, str) or type(step) is not int:
        return None
    tool_use_id, line = value.get("tool_use_id"), value.get("compaction_line")
    return RunLink(
        run_id=run_id,
        step=step,
        tool_use_id=tool_use_id if isinstance(tool_use_id, str) else None,
        compaction_line=line if type(line) is int else None,
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class RunLinks:
    """A run's links to the other runs of its file (``Run.links``): the run that started it, and the runs it started.

    Only an imported Claude Code session links runs (a session's sub-agents and the agents it forked to write its
    compactions); every other run has no links, and is falsy.
    """

    parent: RunLink | None = None
    """The run and step that started this one (the header's ``source.parent``), ``None`` for a run no run started."""
    started: tuple[RunLink, ...] = ()
    """The runs this one's steps started (the header's ``source.subagents``), in step order (then as recorded)."""

    def __bool__(self) -> bool:
        return self.parent is not None or bool(self.started)

    @property
    def run_ids(self) -> tuple[str, ...]:
        """The ids of the runs it links to: the parent's first, then each started run's."""
        return tuple(link.run_id for link in ((self.parent,) if self.parent else ()) + self.started)


def as_record(held: Mapping[str, Any] | msgspec.Struct) -> Mapping[str, Any]:
    """A record as a run holds it, as the dict its line held: a struct (``schema.StepRecord``) made into one.

    A struct's fields left out are ``UNSET`` and those written as ``null`` are ``None``, so the dict is
    the line's (its fields in the struct's order); a fresh one at each call.
    """
    if isinstance(held, msgspec.Struct):
        record: dict[str, Any] = msgspec.to_builtins(held)
        return record
    return held


class StepRecords(Mapping[int, Mapping[str, Any]]):
    """``Run.step_records`` of a run read from a file: each step's record held as it was read (a
    ``schema.StepRecord``, or a dict), made into a dict when asked for (``as_record``).

    ``field`` reads one field of many records without making any of them.
    """

    __slots__ = ()

    def held(self, index: int) -> Mapping[str, Any] | msgspec.Struct:
        """The record of step ``index`` as held; ``KeyError`` when it has none."""
        raise NotImplementedError

    def __getitem__(self, index: int) -> Mapping[str, Any]:
        return as_record(self.held(index))

    def field(self, name: str, indices: Iterable[int]) -> list[Any]:
        """The value of field ``name`` of the record of each step of ``indices``, as its dict would give it
        (``None`` where the step has no record, or its record no such field)."""
        values: list[Any] = []
        held = self.held
        for index in indices:
            try:
                record = held(index)
            except KeyError:
                values.append(None)
                continue
            if not isinstance(record, msgspec.Struct):
                values.append(record.get(name))
                continue
            values.append(plain_field(getattr(record, name, None)))
        return values

    def times(self, indices: Iterable[int]) -> tuple[list[Any], list[Any]]:
        """``field`` of ``started_at`` and of ``ended_at``: when each step of ``indices`` started and ended, as its
        record says."""
        indices = list(indices)
        return self.field("started_at", indices), self.field("ended_at", indices)


def plain_field(value: Any) -> Any:
    """A field of a struct record as its record's dict holds it: ``None`` for one left out (``UNSET``)."""
    if value is msgspec.UNSET:
        return None
    if value is not None and type(value) is not str:
        return msgspec.to_builtins(value)
    return value


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
    warnings: Sequence[RunWarning] = ()
    """One warning for each thing that was read but not loaded, or loaded with a doubt, in line order."""
    header_line: int = 0
    """The line the header was read from, as a model call's ``line`` says its own (for an imported run, the line of
    the user's file its importer names, 0 where the file holds no lines); 0 for a run built in memory."""
    step_lines: Sequence[int] = ()
    """The line each of ``steps`` was read from (its last record's), in their order; empty where no record of a step
    was read (a run built in memory, an imported conversation, whose steps are made of its turns)."""

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
        """The system prompt the run's agent sent, when recorded (text blocks joined, when sent as blocks)."""
        return system_text(self.header.get("system", ""))

    @property
    def model(self) -> str:
        """The model the run's agent called, when recorded."""
        return str(self.header.get("model", ""))

    @property
    def inherited_steps(self) -> int:
        """How many of the run's first steps it holds but did not decide: an agent forked from a session (the one
        Claude Code forks to write a compaction's summary) was sent the session's conversation as it stood, so its
        run opens with the session's steps (``source.forked_from.steps``); 0 for any other run."""
        source = self.header.get("source")
        forked = source.get("forked_from") if isinstance(source, Mapping) else None
        steps = forked.get("steps") if isinstance(forked, Mapping) else None
        return steps if type(steps) is int and steps > 0 else 0

    @property
    def max_output_tokens(self) -> int:
        """The output token cap each of the agent's requests asked for; 0 when not recorded."""
        return int(self.header.get("max_output_tokens") or 0)

    @property
    def tools(self) -> tuple[Mapping[str, Any], ...]:
        """The tool definitions offered to the model."""
        return tuple(self.header.get("tools") or ())

    @property
    def compactions(self) -> tuple[Compaction, ...]:
        """The compactions of the conversation, in step order (the header's ``compactions``; none for most runs).

        The as-sent views honour them (``agentrender.views``); the views under the contract's
        options render the whole history and only mark where they happened.
        """
        return tuple(map(compaction, self.header.get("compactions") or ()))

    @property
    def links(self) -> RunLinks:
        """The run's links to the other runs of its file (``RunLinks``): the run and step that started it, and the runs
        its steps started, as its importer recorded them in the header's ``source`` (``parent``, ``subagents``); a link
        of another shape is not one (``run_link``). Every display that names the runs linked to this one reads them
        here."""
        source = self.header.get("source")
        if not isinstance(source, Mapping):
            return RunLinks()
        subagents = source.get("subagents")
        started = [link for item in subagents if (link := run_link(item))] if isinstance(subagents, list) else []
        started.sort(key=lambda link: link.step)
        return RunLinks(parent=run_link(source.get("parent")), started=tuple(started))

    def step_input(self, at: int | None = None) -> StepInput:
        """The ``StepInput`` an agent had when deciding step ``at``: the steps with a lower index.

        ``None`` means every recorded step (the view after the last one). ``at`` is checked as
        ``Views.at`` checks it: from 0 to one past the last step's index, else ``IndexError``
        (``TypeError`` for no int, a bool too), naming the range.
        """
        at = self.checked_at(at)
        steps = tuple(self.steps) if at is None else tuple(step for step in self.steps if step.index < at)
        return StepInput(steps=steps, goal=self.goal, run_id=self.run_id, index=at, tools=self.tools)

    def options(self, **overrides: Any) -> render.Options:
        """``render.Options`` whose opening is the run's opening (or its goal), with ``overrides``.

        A header with neither (the loader warns) opens with ``NO_OPENING``, a stand-in.

        For a run that records what its agent sent (an imported conversation, format
        ``agentrender.run/2``), the options replay it: the recorded opening, ids and turns,
        every result in full, so the view at step ``k`` is the request that decided step
        ``k``. Giving ``recent_results`` or ``result_bytes`` shows the same history under the
        contract's window and cap instead (``is_as_sent`` tells the two apart).
        """
        if "opening" not in overrides and not has_opening(self.header):
            overrides = {"opening": NO_OPENING, **overrides}
        if self.header.get("format") == FORMAT_SENT:
            under_contract = "recent_results" in overrides or "result_bytes" in overrides
            sent = Sent(
                self.header,
                self.step_records.keys(),
                self.step_field,
                under_contract=under_contract,
                result_bytes=overrides.get("result_bytes", render.RESULT_BYTES),
            )
            if sent or sent.opening:  # a run of only its opening still opens with its recorded blocks
                return sent.options(self.opening, **overrides)
        settings: dict[str, Any] = {"opening": self.opening}
        settings.update(overrides)
        return render.Options(**settings)

    @property
    def records_sent(self) -> bool:
        """True when the run records what its agent sent (format ``agentrender.run/2``: an imported run).

        Its views are then one of two: as sent (``is_as_sent``), or under the contract's window and cap.
        """
        return self.header.get("format") == FORMAT_SENT

    def is_as_sent(self, options: render.Options) -> bool:
        """True when ``options`` replay what this run's agent sent (``options()`` with no window or cap given)."""
        sent = getattr(options.observation, "__self__", None)
        return isinstance(sent, Sent) and not sent.under_contract

    @property
    def summariser(self) -> str:
        """The summariser an importer gave the run's results (``""``: the results keep none)."""
        return str(self.header.get("summariser", ""))

    def step_field(self, name: str, indices: Iterable[int]) -> list[Any]:
        """The value of field ``name`` of the record of each step of ``indices`` (``None`` where it has none).

        ``[run.step_records[i].get(name) for i in indices]``, without making a dict of each record of a run
        read from a file (the frames read the timestamps so).
        """
        records = self.step_records
        if isinstance(records, StepRecords):
            return records.field(name, indices)
        return [record.get(name) if (record := records.get(index)) is not None else None for index in indices]

    def step_times(self, indices: Iterable[int]) -> tuple[list[Any], list[Any]]:
        """``step_field`` of ``started_at`` and of ``ended_at``: when each step of ``indices`` started and ended, as
        its record says (``None`` where it does not), read off the records together (the frames read them so)."""
        records = self.step_records
        if isinstance(records, StepRecords):
            return records.times(indices)
        indices = list(indices)
        return self.step_field("started_at", indices), self.step_field("ended_at", indices)

    def last_calls(self) -> dict[int, ModelCall]:
        """Each step's last model call, by step index: the reply its recorded decision came from.

        A step may have several calls (a retry, a failure); only the last one's reply became the
        decision the run recorded, so only it is compared with that decision.
        """
        return {call.step: call for call in self.model_calls}

    def parallel_tools(self, index: int | None = None) -> dict[int, tuple[str, ...]]:
        """The tools the reply of each step that called several (parallel tool uses, of which its decision names the
        first) called, in order, by the step's index: its last model call's tool uses (``last_calls``); ``index``: of
        that step only. Only of a run that records what its agent sent (an imported session, whose agent ran each
        call): the contract's agent runs a reply's first call alone, and ``render.decide`` says the others were not run.
        The steps frame's ``other_tools`` and every display of a step's tools read it here."""
        if not self.records_sent:
            return {}
        calls = self.last_calls() if index is None else {call.step: call for call in self.calls_for(index)}
        called = {}
        for step, call in calls.items():
            names = tuple(block.name for block in call.response.content if block.type == "tool_use")
            if len(names) > 1:
                called[step] = names
        return called

    def parallel_notes(self, called: Mapping[int, Sequence[str]] | None = None) -> dict[int, str]:
        """The note the recorded reason of each step of ``parallel_tools`` ends with, by the step's index:
        ``render.Decided.note`` of its last model call's reply, which says its further tool uses were not executed,
        where its agent ran them all the same, the turn it sent next answering each (``views.answered_tool_uses``;
        what a table of steps leaves off its reason: ``Views.reasons_said``). A step whose further tool uses were not
        all answered (the last, which nothing answered) keeps its note. ``called``: ``parallel_tools()``, where the
        caller holds it already (``Views.parallel_tools``)."""
        last, notes = self.last_calls(), {}
        for index in self.parallel_tools() if called is None else called:
            explained = explain_decide(last[index].response, answered=answered_tool_uses(self, index))
            if explained.not_executed and len(explained.ran_anyway) == len(explained.not_executed):
                notes[index] = explained.note
        return notes

    def calls_for(self, index: int) -> tuple[ModelCall, ...]:
        """The model calls made while step ``index`` was being decided, in file order (``index`` checked as
        ``step_input`` checks it: one past the last step's, the next step's, may have calls too)."""
        checked = self.checked_at(index)
        return tuple(call for call in self.model_calls if call.step == checked)

    def checked_at(self, at: object) -> int | None:
        """``at`` checked as a step a view of the run is taken at, as ``Views.at`` checks it: ``None``, or 0 to one
        past the last step's index; else ``IndexError`` (``TypeError`` for no int), naming the range."""
        steps = self.steps
        return checked_at(at, steps[-1].index + 1 if steps else 0)

    def __repr__(self) -> str:
        # The generated repr would print every record: tens of kilobytes for a short run.
        end = self.end.get("status") if self.end is not None else None
        return (
            f"Run(path={self.path!r}, run_id={self.run_id!r}, steps={len(self.steps)}, "
            f"model_calls={len(self.model_calls)}, end={end!r}, warnings={len(self.warnings)})"
        )

    def _repr_html_(self) -> str:
        try:
            return run_html(self, Views(self).at(None))
        except ValueError as error:  # recorded turns that cannot be rendered: the error says why
            return run_html(self, str(error))
