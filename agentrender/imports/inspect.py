"""Inspect AI logs (``.eval`` and ``.json``), as runs that render exactly what each sample's model was sent.

``from_inspect(path)`` reads a log as the JSON it is (``inspect_log.read_log``: msgspec, what Inspect's own
reader would give of the fields used here) and gives one run per sample and epoch, named
``<task>/<sample id>/<epoch>``. A log only Inspect's reader reads exactly (``NeedsInspect``: an older layout it
migrates) is read with it (``inspect_ai.log.read_eval_log``, extra ``inspect``), and so is a log this module
cannot import, when ``inspect_ai`` is installed: Inspect says what is wrong with it, as it always has.

A sample's messages become the conversation, in the Messages API's wire shape, the way
Inspect's Anthropic provider sends them:

- system messages become the request's ``system`` (a string, or text blocks when there are several);
- an assistant message's content comes first, then one ``tool_use`` block per tool call;
  reasoning is a ``thinking`` block (``redacted_thinking`` when redacted); a redacted reasoning with a summary (the
  reasoning of an OpenAI model: its encrypted content, and the text OpenAI gave of it) is a ``thinking`` block of
  the summary whose signature is the encrypted content, as ``imports.responses`` reads a reasoning item;
- a tool message is a ``tool_result`` block (``is_error`` with the error's message when the
  tool failed); consecutive tool and user messages are one user turn, as the API merges them;
- empty text is ``(no content)``, as Inspect sends it (``NO_CONTENT``: the API refuses empty text blocks);
- images and documents keep their data or URL as a ``source``; content with no Messages API
  block (audio, video, data, server tool uses) and Inspect's own citations are left out, each
  with a warning on the run naming the sample and the message.

Each ``ModelEvent`` of the agent is a model call, made for the step its input decides: its
output is the reply (a ``Message``-shaped object); its request keeps the model, system, tools
and output cap, with the generate config, the tool choice and the provider's raw call (as the
log keeps it) under ``request.inspect``. Its input is checked against the run's view at that
step, which it must be; where it is not (a solver rewrote the history), the request keeps the
messages it was sent and the run carries a warning naming the sample and the event. The model
calls of scorers (a model grading the answer) are another conversation: the source counts
them (``scorer_model_calls``).

A ``compaction`` event (Inspect 0.3.170 on) is a compaction of the run (the header's ``compactions``) when the model
event after it was sent a conversation restarted with one user turn (Inspect's summary strategy: the sample's system
and input messages, then the summary): from that event's step on, the views as sent are that turn and the turns since,
and each later event's input is checked against them. The strategy's call that wrote the summary (a model event whose
reply is none of the sample's, before the compaction event) is a call beside the conversation, keeping what it was
sent. Of the compaction's opening, the blocks of the message Inspect marks as the summary (metadata ``summary``) are
its summary (``summary_blocks``), the sample's input messages before them are not. A compaction the views cannot show
(``trim``, ``edit``, a provider's native compaction), or with no model call after it, is a warning naming its event.
Each compaction event, as logged, is in the run's source (``compactions``).

The rule for the other events: ``span_begin`` and ``step`` events are read (they tell a scorer's model events); the
other types Inspect writes (``_KNOWN_EVENTS``: tool, state, store, sandbox, score, logger, info, ...) hold nothing the
model was sent that the sample's messages do not, and are left out quietly; an event of a type this module does not
know is named by one warning per type (its first place, how many more) and counted in the run's source
(``unread_events``).

The ids are the log's own: a reply's ``response.id`` is the id of its message in the log, and an event's ``uuid``
under ``request.inspect`` is the one the event holds. A log that holds none (older logs) gives none: an empty id (null
in the frame's ``response_id``), no ``uuid``. Inspect's reader makes up a random id for each message and event it
builds while it migrates an older layout (a sample's ``transcript``); those are left out (``_PlainLog``), so that
the same log imports as the same runs, byte for byte, every time.
"""

from __future__ import annotations

import importlib.util
import io
import json
import logging
import os
import re
import zipfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import IO, Any, Literal, NamedTuple

import msgspec

from agentrender import render
from agentrender._extras import require
from agentrender._json import limited, type_name
from agentrender._words import plural, shown
from agentrender.imports.conversation import (
    STOP_REASONS,
    Summariser,
    Where,
    broken_document,
    conversation_run,
    instructed_warnings,
    normalise_messages,
    results_first,
)
from agentrender.imports.inspect_log import (
    Choice,
    EvalSpec,
    Event,
    Failure,
    Limit,
    Log,
    NeedsInspect,
    Output,
    Reply,
    Sample,
    Score,
    ToolCall,
    log_bytes,
    log_source,
    logged,
    open_archive,
    read_log,
    with_stream_notes,
)
from agentrender.runfile import Run, RunFileError, RunWarning
from agentrender.runfile.lines import GZIP_MAGIC, name_ends

__all__ = ["from_inspect"]


def from_inspect(path: str | os.PathLike[str], *, summarise: Summariser | None = None) -> list[Run]:
    """The runs of an Inspect AI log, one per sample and epoch, each rendering exactly what its model was sent.

    ``path`` is an ``.eval`` or ``.json`` log, or one compressed with gzip (``log.eval.gz``, ``log.json.gz``, as
    ``gzip -r`` leaves a logs folder: read as the log it holds, whichever reader reads it). ``summarise`` (e.g.
    ``imports.first_line_summary``) gives each tool result a summary, for the view under the contract's window. Raises
    ``RunFileError`` naming the file and the sample (and the message or event) that cannot be
    read, and ``ImportError`` with the pip line when the log needs ``inspect_ai`` (or, for an
    ``.eval`` archive, its zstandard codec) and it is not installed.
    """
    name = os.fspath(path)
    if not Path(name).is_file():
        raise RunFileError(name, 1, "no such file" if not Path(name).exists() else "not a file")
    notes: list[RunWarning] = []  # a gzip stream that ends early past the log's end
    source = log_source(name, notes)  # a gzipped log inflated once, for whichever reader reads it
    try:
        return _noted(_runs(read_log(name, notes, source), name, summarise), notes)
    except NeedsInspect:
        pass  # a log only Inspect's reader reads exactly (an older layout it migrates, another version)
    except RunFileError:
        if not _has_inspect():
            raise
        # Inspect's reader is the judge of what a valid log is: it says what is wrong as it always has, or
        # reads a log it takes that this package's reader refused (a field Inspect gives a default)
    log, said = _read_with_inspect(name, _check_archive(name, source, notes))
    return _noted(_runs(log, name, summarise, said), notes)


def _noted(runs: list[Run], notes: Sequence[RunWarning]) -> list[Run]:
    """``runs``, each with ``notes`` (what reading the log's gzip stream found) among its warnings."""
    return [replace(run, warnings=(*notes, *run.warnings)) for run in runs] if notes else runs


def _runs(log: Log, path: str, summarise: Summariser | None, said: Sequence[str] = ()) -> list[Run]:
    """One run per sample of the log; ``said``: what Inspect's reader logged while it read it, a warning on each."""
    task = log.eval.task
    origin = {
        "format": "inspect-ai",
        "path": path,
        "task": task,
        "task_id": log.eval.task_id,
        "eval_id": log.eval.eval_id,
        "eval_run_id": log.eval.run_id,
        "model": log.eval.model,
        "status": log.status,
    }
    if version := log.eval.packages.get("inspect_ai"):
        origin["inspect_ai"] = version
    if not log.samples:
        failure = f": {_first_line(log.error.message)}" if log.error is not None else ""
        raise RunFileError(path, 1, f"the Inspect log holds no samples (its status is {shown(log.status)}{failure})")
    runs = [_sample_run(sample, path, task, origin, summarise) for sample in log.samples]
    if not said:
        return runs
    notes = tuple(RunWarning(line=1, text=f"inspect_ai, reading the log: {text}", path=path) for text in said)
    return [replace(run, warnings=(*run.warnings, *notes)) for run in runs]


def _has_inspect() -> bool:
    """Whether ``inspect_ai`` is installed (found, not imported: that takes seconds, and may not be needed)."""
    try:
        return importlib.util.find_spec("inspect_ai") is not None
    except ValueError:  # sys.modules["inspect_ai"] is None: taken out, as a test does
        return False


def _read_with_inspect(path: str, source: str | IO[bytes]) -> tuple[Log, list[str]]:
    """The log at ``path`` (``source``: ``inspect_log.log_source``, what Inspect's reader is given) as Inspect's own
    reader reads it (``resolve_attachments="core"``), in this package's structs, with the warnings Inspect logged
    while it read it."""
    form = _format(path, source)
    with _inspect_logging() as said:
        log_module = require("inspect", "inspect_ai.log", feature="agentrender.imports.from_inspect")
        try:
            # "core": images and long texts condensed to attachment:// references are read back, except in the
            # providers' raw calls, which stay as the log keeps them (their messages referring to its pool of calls)
            log = log_module.read_eval_log(source, resolve_attachments="core", format=form)
        except Exception as error:  # Inspect raises pydantic, zip, JSON and OS errors alike: each is one bad log
            raise _unreadable(log_module, path, form, error) from None
    spec = log.eval
    plain_log = _PlainLog(path, source)
    plain = Log(
        version=log.version,
        status=str(log.status),
        eval=EvalSpec(
            task=str(spec.task),
            task_id=spec.task_id,
            eval_id=spec.eval_id,
            run_id=spec.run_id,
            model=spec.model,
            packages={str(name): str(version) for name, version in (spec.packages or {}).items()},
        ),
        error=Failure(str(log.error.message)) if log.error is not None else None,
        samples=[_plain_sample(sample, plain_log) for sample in log.samples or ()],
    )
    return plain, said


def _format(path: str, source: str | IO[bytes]) -> Literal["eval", "json"]:
    """The format Inspect's reader is told to read ``path`` in (``source``: what it is given): an ``.eval`` archive
    when it is a zip, or a file named so (in any case), else a JSON log; for bytes that are not the file's (the
    archive or JSON a gzip stream holds, a JSON log without its byte order mark), by those bytes alone. Inspect's own
    choice goes by a lower-case ending (``.eval``, ``.json``), which refused ``LOG.EVAL``, a log ``load`` recognises by
    what it holds under any other name, and a log compressed with gzip."""
    zipped = zipfile.is_zipfile(source)
    if not isinstance(source, str):
        source.seek(0)  # the reader reads it from its start
        return "eval" if zipped else "json"
    return "eval" if zipped or name_ends(path, ".eval") else "json"


def _gzipped(path: str) -> bool:
    """Whether the file at ``path`` is a gzip stream, by its magic bytes (as ``load_run`` tells)."""
    with open(path, "rb") as file:
        return file.read(len(GZIP_MAGIC)) == GZIP_MAGIC


@contextmanager
def _inspect_logging() -> Iterator[list[str]]:
    """Keep what ``inspect_ai`` logs while it reads a log off the user's terminal: its warnings (and worse) are
    gathered in the list given, each message once, for the runs' warnings; the rest is dropped."""
    said: list[str] = []

    class Gather(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            text = _first_line(record.getMessage())
            if record.levelno >= logging.WARNING and text not in said:
                said.append(text)

    logger = logging.getLogger("inspect_ai")
    handlers, propagate = logger.handlers[:], logger.propagate
    logger.handlers, logger.propagate = [Gather()], False
    try:
        yield said
    finally:
        logger.handlers, logger.propagate = handlers, propagate


def _check_archive(path: str, source: str | io.BytesIO, notes: Sequence[RunWarning]) -> str | IO[bytes]:
    """Before Inspect's reader reads ``path``: refuse an ``.eval`` file that is empty or cut short, or a zip bomb, as
    ``read_log`` does (``inspect_log.open_archive``, in the same words: what reading its gzip stream found too); an
    archive ``zipfile`` cannot open is for Inspect's reader to judge. ``source``: what its reader is to be given
    (``inspect_log.log_source``, read once for both readers), returned; ``notes``: what reading its gzip stream
    found."""
    try:
        opened = open_archive(path, source, strict=False)
    except RunFileError as error:
        raise with_stream_notes(error, notes) from None
    if opened is not None:
        opened.close()
    return source


def _unreadable(log_module: Any, path: str, form: Literal["eval", "json"], error: Exception) -> RunFileError:
    """The error for a log Inspect cannot read (in the format ``form``): where its JSON breaks (a ``.json`` log), else
    the sample it fails on when that can be told."""
    if form == "json" and (broken := _broken_json(path)) is not None:
        return broken
    loc, what = _first_error(error)
    if len(loc) > 2 and loc[0] == "samples" and isinstance(loc[1], int):
        # a JSON log is checked whole: the error's location gives the sample's position in it
        found = _raw_sample(path, loc[1])
        where = _sample_where(path, *found) if found else Where(path, 1, f"samples[{loc[1]}]")
        return where.at(_field(loc[2:])).error(what)
    if _gzipped(path):  # Inspect reads a sample of no stream: the log's error is said
        return RunFileError(path, 1, f"an Inspect AI log Inspect cannot read: {_reason(error)}")
    try:
        summaries = log_module.read_eval_log_sample_summaries(path, format=form)
    except Exception as header_error:  # not an Inspect log at all, or its header is broken
        return RunFileError(path, 1, f"not an Inspect AI log Inspect can read: {_reason(header_error)}")
    for summary in summaries:
        try:
            log_module.read_eval_log_sample(path, id=summary.id, epoch=summary.epoch, format=form)
        except Exception as sample_error:  # the first sample that cannot be read is the one to name
            return _sample_where(path, summary.id, summary.epoch).error(f"cannot be read: {_reason(sample_error)}")
    return RunFileError(path, 1, f"an Inspect AI log Inspect cannot read: {_reason(error)}")


def _broken_json(path: str) -> RunFileError | None:
    """Where the JSON of a ``.json`` log breaks, said as any file's broken JSON is (``broken_document``: the line and
    column, a stray comma where it stands, a log cut short, a byte not UTF-8); ``None`` when it is JSON, or cannot be
    read again."""
    notes: list[RunWarning] = []
    try:
        data = log_bytes(path, notes)
    except (OSError, RunFileError):
        return None
    broken = broken_document(path, data)
    return None if broken is None else with_stream_notes(broken, notes)


def _first_error(error: Exception) -> tuple[tuple[Any, ...], str]:
    """Pydantic's first validation error as ``(location, message)``; ``((), first line)`` for any other error."""
    errors = getattr(error, "errors", None)
    if callable(errors):
        try:
            first = errors()[0]
            return tuple(first["loc"]), str(first["msg"])
        except (TypeError, LookupError, ValueError):
            pass
    lines = str(error).strip().splitlines()
    return (), f"{type(error).__name__}: {lines[0] if lines else ''}"


def _reason(error: Exception) -> str:
    """The first thing wrong, in one line, with its field when it has one."""
    loc, what = _first_error(error)
    field = _field(loc)
    return f"{field}: {what}" if field else what


def _field(loc: Sequence[Any]) -> str:
    """A pydantic location as a field path (``messages[1].role``), without its validators' names."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif not str(part).startswith("function-"):
            out += f".{part}" if out else str(part)
    return out


def _raw_sample(path: str, position: int) -> tuple[Any, Any] | None:
    """The id and epoch of the sample at ``position`` in a JSON log, read as plain JSON; ``None`` if they cannot be."""
    try:
        sample = _loads(log_bytes(path, []).decode("utf-8"))["samples"][position]
        return sample["id"], sample["epoch"]
    except (OSError, ValueError, LookupError, TypeError):  # a RunFileError is a ValueError
        return None


_loads = limited(json.loads)


def _sample_where(path: str, sample_id: Any, epoch: Any) -> Where:
    return Where(path, 1, f"samples[id={sample_id}, epoch={epoch}]")


def _dump(value: Any) -> Any:
    """An Inspect (pydantic) value as the JSON it is logged as, without the fields it leaves unset."""
    return value.model_dump(mode="json", exclude_none=True) if hasattr(value, "model_dump") else value


def _plain_sample(sample: Any, log: _PlainLog) -> Sample:
    """A sample as Inspect's reader gives it (pydantic) in this package's structs: its messages and its model
    events' fields as the JSON they are logged as, each message's ``id`` and each event's ``uuid`` only where the
    log holds it (``log``); the messages the events share stay shared (one dump each)."""
    dumped: dict[int, tuple[Any, dict[str, Any]]] = {}

    def plain(message: Any) -> dict[str, Any]:
        known = dumped.get(id(message))
        if known is not None and known[0] is message:
            return known[1]
        out = log.message(sample.id, sample.epoch, _dump(message))
        dumped[id(message)] = (message, out)  # the message is kept, so its id stays its own
        return out

    pool = _MessagePool(sample, log)
    events = []
    for number, event in enumerate(sample.events):
        kind = str(getattr(event, "event", ""))
        if kind == "model":
            fields = event.model_dump(mode="json", exclude_none=True, exclude={"input"})
            inputs = [plain(m) for m in event.input or pool.input_of(number, fields)]
            tools = msgspec.Raw(msgspec.json.encode(fields.get("tools")))  # as the log's JSON holds them
            found = {key: fields.get(key) for key in _MODEL_FIELDS}
            if not log.holds(sample.id, sample.epoch, found["uuid"]):
                found["uuid"] = None
            for choice in (found["output"] or {}).get("choices") or ():  # the dump's own dicts
                if isinstance(choice, dict) and isinstance(choice.get("message"), dict):
                    choice["message"] = log.message(sample.id, sample.epoch, choice["message"])
            events.append(Event(event=kind, input=inputs, tools=tools, **found))
        elif kind == "compaction":
            fields = event.model_dump(mode="json", exclude_none=True, include=set(_COMPACTION_FIELDS))
            if not log.holds(sample.id, sample.epoch, fields.get("uuid")):
                fields.pop("uuid", None)
            events.append(Event(event=kind, **fields))
        else:
            found = {key: getattr(event, key, None) for key in ("id", "type", "parent_id", "action")}
            events.append(Event(event=kind, **found))
    return Sample(
        id=sample.id,
        epoch=sample.epoch,
        messages=[plain(m) for m in sample.messages],
        events=events,
        scores={key: msgspec.convert(_dump(score), Score) for key, score in sample.scores.items()}
        if sample.scores
        else None,
        target=sample.target,
        error=Failure(str(sample.error.message)) if sample.error is not None else None,
        limit=msgspec.convert(_dump(sample.limit), Limit) if sample.limit is not None else None,
        started_at=getattr(sample, "started_at", None),
        completed_at=getattr(sample, "completed_at", None),
    )


class _PlainLog:
    """A log's samples as the file holds them, read as plain JSON beside Inspect's reader: what the file says where
    Inspect's reader gives something else.

    - ``holds``/``message``: the ids the log holds. Inspect gives a message it builds with no id, and an event with
      no uuid, a random one (``shortuuid``), unless it builds it while it reads a log: it does so to the events of
      an older layout it migrates (a sample's ``transcript``), which then differ on every read. An import keeps the
      log's ids only, so that the same log is the same runs every time.
    - ``sample``: a sample's pool of messages and its events' references into it, where the installed
      ``inspect_ai`` does not know them (``_MessagePool``).

    Each sample is read when first asked: an ``.eval`` archive's member, or a JSON log's ``samples`` (the whole file,
    read once for all of them).
    """

    def __init__(self, path: str, source: str | IO[bytes] | None = None) -> None:
        self._path = path
        self._source = path if source is None else source  # what Inspect's reader read (``inspect_log.log_source``)
        self._samples: dict[tuple[Any, Any], Mapping[str, Any]] = {}
        self._json_samples: dict[tuple[Any, Any], Any] | None = None  # a JSON log's, once read
        self._ids: dict[tuple[Any, Any], set[str] | None] = {}

    def sample(self, sample_id: Any, epoch: Any) -> Mapping[str, Any]:
        """The sample ``sample_id``/``epoch`` as the file holds it; ``{}`` when it cannot be read so."""
        key = (sample_id, epoch)
        if key not in self._samples:
            self._samples[key] = self._read(sample_id, epoch)
        return self._samples[key]

    def _read(self, sample_id: Any, epoch: Any) -> Mapping[str, Any]:
        try:
            if zipfile.is_zipfile(self._source):
                with zipfile.ZipFile(self._source) as archive:
                    found = _loads(archive.read(f"samples/{sample_id}_epoch_{epoch}.json").decode("utf-8"))
            else:
                if self._json_samples is None:
                    self._json_samples = {}  # a log that cannot be read so is not read again for each sample
                    samples = _loads(self._text()).get("samples") or []
                    self._json_samples = {(s.get("id"), s.get("epoch")): s for s in samples if isinstance(s, Mapping)}
                found = self._json_samples.get((sample_id, epoch))
        except (OSError, ValueError, LookupError, TypeError, AttributeError, zipfile.BadZipFile, NotImplementedError):
            return {}
        return found if isinstance(found, Mapping) else {}

    def _text(self) -> str:
        """The JSON log's text: the file's, or that of the bytes Inspect's reader was given (inflated, or without a
        byte order mark)."""
        if isinstance(self._source, str):
            with open(self._source, encoding="utf-8") as file:
                return file.read()
        self._source.seek(0)
        return self._source.read().decode("utf-8")

    def holds(self, sample_id: Any, epoch: Any, value: Any) -> bool:
        """Whether ``value`` (a message's id or an event's uuid in the sample ``sample_id``/``epoch`` as Inspect's
        reader gives it) is a value the sample holds under ``id`` or ``uuid`` in the file; ``None`` is held by none.
        When the sample cannot be read as plain JSON (it was, by Inspect's reader), every value is taken as held, as
        Inspect's reader gives it."""
        if value is None:
            return False
        key = (sample_id, epoch)
        if key not in self._ids:
            raw = self.sample(sample_id, epoch)
            self._ids[key] = _ids_in(raw) if raw else None
        found = self._ids[key]
        return found is None or value in found

    def message(self, sample_id: Any, epoch: Any, message: dict[str, Any]) -> dict[str, Any]:
        """``message`` (of the sample ``sample_id``/``epoch``, as Inspect's reader dumps it), without its ``id`` where
        the log holds none such (a copy then)."""
        if "id" not in message or self.holds(sample_id, epoch, message["id"]):
            return message
        return {key: value for key, value in message.items() if key != "id"}


def _ids_in(value: Any, found: set[str] | None = None) -> set[str]:
    """The ``id`` and ``uuid`` values held in ``value`` at any depth (a sample's: its messages', its events')."""
    found = set() if found is None else found
    if isinstance(value, Mapping):
        for key, item in value.items():
            if key in ("id", "uuid") and isinstance(item, str):
                found.add(item)
            else:
                _ids_in(item, found)
    elif isinstance(value, list):
        for item in value:
            _ids_in(item, found)
    return found


_MODEL_FIELDS = (
    "span_id",
    "model",
    "input_refs",
    "output",
    "error",
    "config",
    "tool_choice",
    "call",
    "uuid",
    "working_time",
)
"""The fields of a model event the importer reads, besides its input and its tools."""


def _sample_run(sample: Sample, path: str, task: str, origin: Mapping[str, Any], summarise: Summariser | None) -> Run:
    where = _sample_where(path, sample.id, sample.epoch)
    warnings: list[RunWarning] = []
    convert = _Converter(_filled_before_calls(origin.get("inspect_ai")))
    converted = [convert.message(m, where, f"messages[{i}]", warnings) for i, m in enumerate(sample.messages)]
    system, messages = _conversation(converted, where.at("messages"), warnings)
    prefixes = _SamplePrefixes(list(sample.messages), converted, system)
    pool = sample.pool()
    kept = _agent_events(sample.events)
    events = kept.model
    source: dict[str, Any] = {**origin, "sample_id": sample.id, "epoch": sample.epoch}
    if kept.scoring:
        source["scorer_model_calls"] = kept.scoring
    if kept.compactions:
        source["compactions"] = [_compaction_event(number, event) for number, event in kept.compactions]
    if kept.unknown:
        source["unread_events"] = {kind: len(numbers) for kind, numbers in kept.unknown.items()}
        for kind, numbers in kept.unknown.items():
            others = f" (and {plural(len(numbers) - 1, 'more event')} of the type)" if len(numbers) > 1 else ""
            warnings.append(
                where.at(f"events[{numbers[0]}]").warning(
                    f"an event of type {shown(kind)}{others}, which this importer does not know, is not read: the run "
                    "may not show what it did (the run's source counts it, under unread_events)"
                )
            )
    if sample.scores:
        source["scores"] = {key: logged(score) for key, score in sample.scores.items()}
    if sample.target not in (None, "", []):
        source["target"] = sample.target
    if sample.error is not None:
        source["error"] = sample.error.message
    if sample.limit is not None:
        source["limit"] = logged(sample.limit)
    calls: list[dict[str, Any]] = []
    beside: list[dict[str, Any]] = []  # the calls made beside the conversation (``_beside``)
    sent: list[_Sent] = []
    replies = _reply_steps(sample.messages)
    offered = _Tools(sample)
    compactions: list[dict[str, Any]] = []  # the header's
    restarted: list[int] = []  # the position of the event of each
    waiting = list(reversed(kept.compactions))  # the compactions no model event was yet made after, last first
    after: list[tuple[int, Event]] = []  # the compactions made since the last model call
    restart: dict[str, Any] | None = None  # the compaction the calls since were sent after, when the run shows it
    for position, (number, event) in enumerate(events):
        while waiting and waiting[-1][0] < number:
            after.append(waiting.pop())
        start = _pool_start(event.input_refs) if pool else None
        inputs: list[Any] = []  # what the event was sent, read only when it is not the sample's first messages
        if start is not None:
            known = prefixes.of_pool(pool, start)
        else:
            inputs = sample.input_of(event)
            known = prefixes.of(inputs)
        if known is None and start is not None:
            inputs = sample.input_of(event)
        here = where.at(f"events[{number}]")
        made = _model_call(inputs, event, offered.of(event), bool(pool), convert, here, replies, warnings, known)
        if made is not None:
            record, said = made
            if said is not None and kept.compactions:  # only a sample with compactions has a call that wrote one
                following = events[position + 1][0] if position + 1 < len(events) else len(sample.events)
                if _summarises(record, replies, number, following, kept.compactions):
                    # the call that wrote a compaction's summary: beside the conversation, what it was sent kept
                    record["request"]["messages"] = said if isinstance(said, list) else messages[:said]
                    calls.append(record)
                    beside.append(record)
                    continue
            if after:
                floor = compactions[-1]["step"] if compactions else -1
                restart = _restart(after[-1][1], record, said, messages, replies, floor)
                if restart is not None:
                    summary = _summary_blocks(inputs, convert, here)
                    if summary is not None:  # else the input holds no summary message: every block is taken for it
                        restart["summary_blocks"] = summary
                if restart is not None:
                    compactions.append(restart)
                    restarted.append(after[-1][0])
                elif isinstance(said, list) and said != messages[: len(said)]:
                    warnings.append(_unshown(after[-1], where, _NOT_A_RESTART))
                after = []
            if kept.compactions and number > kept.compactions[0][0]:
                # past a compaction, what a call was sent counts its replies from the compaction's step, if any
                counted = sum(message["role"] == "assistant" for message in said) if isinstance(said, list) else None
                placed = restart["step"] + counted if restart is not None and counted is not None else record["step"]
                record["step"] = replies.get(record["response"]["id"], placed)
            calls.append(record)
            uuid = str(event.uuid or "")
            if isinstance(said, int):  # the sample's first turns
                sent.append((number, uuid, record, None, said))
            elif said is not None:
                sent.append((number, uuid, record, said, None))
                if _beside(said, messages, record, replies):
                    beside.append(record)
    for compaction in [*after, *reversed(waiting)][-1:]:
        warnings.append(_unshown(compaction, where, _NO_CALL_AFTER))
    agents = _place_beside(calls, beside)
    request: dict[str, Any] = {"model": str(origin.get("model", ""))}
    if events:
        last = events[-1][1]
        request["model"] = str(last.model or request["model"])
        tools = offered.of(last)
        if tools:
            request["tools"] = list(tools)
        max_tokens = (last.config or {}).get("max_tokens")
        if isinstance(max_tokens, int):
            request["max_tokens"] = max_tokens
    if system is not None:
        request["system"] = system
    turns = normalise_messages(messages, where.at("messages"))
    final = _final_reply(turns, agents)
    if final is None and _rewritten(turns, agents):
        # the agent rewrote its last reply in the messages after the model gave it (METR's react drops the submit
        # call it ends on): the run's last step is the reply the model gave, and a warning says so
        final, turns = dict(agents[-1]["response"]), turns[:-1]
        called = ", ".join(block["name"] for block in final["content"] if block.get("type") == "tool_use")
        warnings.append(
            where.at(f"messages[{len(sample.messages) - 1}]").warning(
                f"the last assistant message is not the reply its model event gave: that reply called {called}, the "
                "message calls nothing (the agent rewrote it after); the run's last step is the reply the model gave"
            )
        )
    end = _end(sample, str(origin.get("status") or ""))

    def read() -> Run:
        found = list(warnings)  # read twice when calls must keep their messages: each read finds its own
        return conversation_run(
            turns,
            where=where.at("messages"),
            run_id=f"{task}/{sample.id}/{sample.epoch}",
            source=source,
            request=request,
            calls=calls,
            summarise=summarise,
            warnings=found,
            final=final,
            end=end,
            started_at=_time(sample.started_at),
            replies_checked=True,  # each call's reply, by _check_reply_values where _model_call makes it
            compactions=compactions,
        )

    run = read()
    mismatches = (
        []
        if _sent_the_sample(sent, len(run.steps))
        else _check_as_sent(run, system, sent, where, messages, beside, restarted)
    )
    if not mismatches:
        return run
    # What those calls were sent is not the run's view: their requests keep it, as the log has it.
    for _, record, messages_sent in mismatches:
        record["request"]["messages"] = messages_sent
    run = read()
    return replace(run, warnings=(*run.warnings, *(warning for warning, _, _ in mismatches)))


_COMPACTION_FIELDS = ("uuid", "type", "role", "tokens_before", "tokens_after", "source", "timestamp", "metadata")
"""The fields of a compaction event the run's source keeps (``inspect_ai/event/_compaction.py``, ``_base.py``)."""


def _compaction_event(number: int, event: Event) -> dict[str, Any]:
    """A compaction event as the run's source keeps it: its position among the sample's events, its fields."""
    kept = {key: getattr(event, key) for key in _COMPACTION_FIELDS if getattr(event, key) is not None}
    return {"event": number, **kept}


def _summarises(
    record: Mapping[str, Any],
    replies: Mapping[str, int],
    number: int,
    following: int,
    compactions: Sequence[tuple[int, Event]],
) -> bool:
    """Whether the model call ``record`` of the event at ``number`` wrote the summary of a compaction: its reply is
    none of the sample's messages (``replies``), and a compaction event comes after it, before the agent's next
    model event (at ``following``). Inspect's summary strategy calls the model so (``model/_compaction/summary.py``),
    sent the conversation and a prompt to summarise it, then logs the compaction."""
    if record["response"]["id"] in replies:
        return False
    return any(number < at < following for at, _ in compactions)


def _restart(
    event: Event,
    record: Mapping[str, Any],
    said: list[dict[str, Any]] | int | None,
    turns: Sequence[Mapping[str, Any]],
    replies: Mapping[str, int],
    floor: int,
) -> dict[str, Any] | None:
    """The header's ``compactions`` entry of compaction ``event`` when the first model call after it (``record``, sent
    ``said``) shows it as the run can: a conversation restarted with one user turn (its opening: Inspect's summary
    strategy sends the sample's system and input messages, then its summary), which is not the sample's first
    (``turns``), for the step its reply decided (``replies``), a step above ``floor`` (the compaction before); else
    ``None``. The views after it are that turn and the sample's turns since (``Run.compactions``)."""
    if not isinstance(said, list) or len(said) != 1 or said[0]["role"] != "user" or said == turns[:1]:
        return None
    step = replies.get(record["response"]["id"])
    if step is None or step <= floor:
        return None
    compaction: dict[str, Any] = {"step": step, "opening": said[0]["content"]}
    metadata = event.metadata if isinstance(event.metadata, dict) else {}
    if isinstance(metadata.get("trigger"), str) and metadata["trigger"]:
        compaction["trigger"] = metadata["trigger"]  # "threshold", "forced" (Inspect's compaction code)
    if type(event.tokens_before) is int:
        compaction["tokens_before"] = event.tokens_before
    if isinstance(event.timestamp, str) and event.timestamp:
        compaction["at"] = event.timestamp
    return compaction


def _summary_blocks(inputs: Sequence[Any], convert: _Converter, where: Where) -> list[int] | None:
    """The indices of the blocks of a compaction's opening (the one user turn the messages ``inputs`` of the model
    event at ``where`` are, after their system messages) that its summary is: those of the messages of metadata
    ``summary``, as Inspect's summary strategy marks the message it writes and finds it again
    (``model/_compaction/summary.py``, since its first release: the sample's input messages, then the summary); the
    sample's input messages are what they are. ``None`` when no message is so marked (a strategy this module does
    not know): the log does not say which blocks are the summary."""
    summary: list[int] = []
    count = 0
    for i, message in enumerate(inputs):
        role, blocks, _ = convert.message(message, where, f"input[{i}]", [])  # converted once: its warnings are said
        if role == "system":
            continue
        metadata = message.get("metadata")
        if isinstance(metadata, Mapping) and "summary" in metadata:
            summary.extend(range(count, count + len(blocks)))
        count += len(blocks)
    return summary or None


_NOT_A_RESTART = (
    "the model call after it was not sent a conversation restarted with one user turn (what the run's views can "
    "show): the views render the sample's whole conversation across it, and each call after it keeps in its "
    "request what it was sent"
)
_NO_CALL_AFTER = "no model call was made after it: what it left of the conversation is not known, nor shown"


def _unshown(compaction: tuple[int, Event], where: Where, why: str) -> RunWarning:
    """The warning naming a compaction the run does not show, and ``why``."""
    number, event = compaction
    kind = f"a {event.type} compaction" if isinstance(event.type, str) and event.type else "a compaction"
    return where.at(f"events[{number}]").warning(f"{kind}, which the run does not show: {why}")


def _beside(
    said: Sequence[Mapping[str, Any]],
    turns: Sequence[Mapping[str, Any]],
    record: Mapping[str, Any],
    replies: Mapping[str, int],
) -> bool:
    """Whether a model call was made beside the sample's conversation, not in it: what it was sent (``said``) does not
    open with the conversation's first message (``turns``), and its reply is none of the sample's messages
    (``replies``). Inspect's ``self_critique`` asks the model to criticise an answer so, in a conversation of one
    message; an agent run as a tool holds its own conversation."""
    if not said or (turns and said[0] == turns[0]):
        return False
    return record["response"]["id"] not in replies


def _place_beside(calls: list[dict[str, Any]], beside: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Place each call of ``beside`` (``_beside``) on the step being decided when it was made, and give back the
    others: the calls of the conversation, in order.

    Such a call is no reply of the conversation, so the count of replies in what it was sent (where ``_model_call``
    placed it) says nothing of when it was made. It goes on the step of the conversation's next call, so that each
    step's last call is still the reply its decision came from (``Run.last_calls``); after the conversation's last
    call, on the step after that call's (a step the run may not hold).
    """
    aside = {id(record) for record in beside}
    agents = [record for record in calls if id(record) not in aside]
    if not aside:
        return agents
    following = agents[-1]["step"] + 1 if agents else 0
    for record in reversed(calls):
        if id(record) in aside:
            record["step"] = following
        else:
            following = record["step"]
    return agents


def _final_reply(turns: Sequence[Mapping[str, Any]], calls: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The reply of the last model call when the sample's messages do not hold it, or ``None``.

    An agent that ends on a tool such as ``submit`` (Inspect's ``react``) never appends that
    reply to the sample's messages: it is only in its model event's output. It is the run's last step.
    (One that appends it rewritten, without its tool call, is ``_rewritten``.)
    """
    if not calls or not turns or turns[-1]["role"] != "user":
        return None
    last = calls[-1]
    return dict(last["response"]) if last["step"] == len(turns) // 2 else None


def _rewritten(turns: Sequence[Mapping[str, Any]], calls: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the sample's last message is an assistant turn the agent rewrote after the model gave it: the last
    model call decided that step, its reply called a tool, and the message as the sample keeps it calls none."""
    if not calls or len(turns) < 2 or turns[-1]["role"] != "assistant":
        return False
    last = calls[-1]
    if last["step"] != (len(turns) - 1) // 2:
        return False
    called = any(block.get("type") == "tool_use" for block in last["response"].get("content") or ())
    return called and not any(block["type"] == "tool_use" for block in turns[-1]["content"])


def _end(sample: Sample, log_status: str) -> dict[str, Any] | None:
    """The run's ``end`` record, from how Inspect says the sample ended (its ``error``: ``failed``; its ``limit``:
    ``stopped``, the reason naming the limit; the log's status), in docs/runfile.md's statuses. The values
    Inspect gave stay in the run's source (``error``, ``limit``, ``status``)."""
    end: dict[str, Any] = {"type": "end"}
    if sample.error is not None:
        end.update(status="failed", reason="error", error=_first_line(sample.error.message))
    elif sample.limit is not None:
        end.update(status="stopped", reason=f"{sample.limit.type}_limit")
    elif log_status in ("cancelled", "started") and sample.completed_at is None and not sample.scores:
        # the sample was still going when the log was written: a run with no end; a scored one had finished its
        # solver (logs before Inspect 0.3.96 or so write no completed_at)
        return None
    else:
        end.update(status="completed", reason="completed")
    if (at := _time(sample.completed_at)) is not None:
        end["at"] = at
    return end


def _time(at: Any) -> str | None:
    """``at`` (a sample's ``started_at`` or ``completed_at``: a datetime, or text as written) as a run file's
    timestamp; ``None`` when the log writes none (logs before Inspect 0.3.96 or so)."""
    return (at.isoformat() if hasattr(at, "isoformat") else str(at)) if at else None


_Sent = tuple[int, str, dict[str, Any], list[dict[str, Any]] | None, int | None]
"""A model call and what it was sent: ``(event position, event uuid, the call's record, the messages, how many of
the sample's turns they are)``. When they are the sample's first turns (``_SamplePrefixes``) the messages are
``None`` (sliced from the sample's turns only where a check needs them), else the last is ``None``."""


def _sent_the_sample(sent: Sequence[_Sent], steps: int) -> bool:
    """True when every call was sent the sample's first turns up to the step it decided (``_SamplePrefixes``): the
    run's view at each call's step, with no view rendered.

    A run made of a conversation renders its turns as they were sent (``conversation_run``: each step's recorded
    turns, each block giving back its wire form), so its view at step ``k`` is the sample's first ``2k + 1`` turns:
    what ``_check_as_sent`` finds, rendering the view, of such calls (the agent's loop). Any other call (an input
    that stops after a reply, or that is not the sample's) is checked there, with the others.
    """
    return all(first == 2 * record["step"] + 1 and record["step"] <= steps for _, _, record, _, first in sent)


def _check_as_sent(
    run: Run,
    system: Any,
    sent: Sequence[_Sent],
    where: Where,
    turns: list[dict[str, Any]],
    beside: Sequence[dict[str, Any]] = (),
    restarted: Sequence[int] = (),
) -> list[tuple[RunWarning, dict[str, Any], list[dict[str, Any]]]]:
    """Each model call whose messages are not the run's view at the step it decided, with the warning naming it;
    a call made ``beside`` the conversation (``_beside``) is named as one. A call made after a compaction the run
    shows (``restarted``: the position of the event of each of ``Run.compactions``) is compared with the view as
    sent: the compaction's opening, then the turns since.

    One view is rendered, the furthest any call decided: a run that records what was sent replays each step's
    turns as recorded, whatever follows them, so the view at step ``k`` is that view's first ``2k + 1`` messages.
    A call sent the sample's first turns (``turns``, the sample's conversation) is compared by how many: the
    view and the sample's turns are compared once, as far as they agree, not again for every call; its messages
    are sliced from the sample's turns only when it is compared message by message, or keeps them.
    """
    out = []
    reachable = [record["step"] for _, _, record, _, _ in sent if record["step"] <= len(run.steps)]
    furthest = max(reachable, default=0)
    view = render.wire_messages(run.step_input(furthest), run.options())
    agree = next((i for i, (seen, turn) in enumerate(zip(view, turns, strict=False)) if seen != turn), None)
    agree = min(len(view), len(turns)) if agree is None else agree
    aside = {id(record) for record in beside}
    restarts = run.compactions
    for number, uuid, record, said, sample_turns in sent:
        here = where.at(f"events[{number}]")
        label = f"model event {number}" + (f" ({uuid})" if uuid else "")
        step = record["step"]
        seen = view[: 2 * step + 1]
        restart = next(
            (
                c
                for c, at in zip(reversed(restarts), reversed(restarted), strict=True)
                if c.step <= step and at < number
            ),
            None,
        )
        if restart is not None:  # the view as sent: the compaction's opening, then the turns since
            opening = {"role": "user", "content": restart.record["opening"]}
            seen = [opening, *view[2 * restart.step + 1 : 2 * step + 1]]
        if id(record) in aside:
            warning = here.warning(
                f"{label} was made beside the conversation: its input does not open with the sample's first message, "
                f"and its reply is none of the sample's (a critique, an agent's own conversation). It is placed on "
                f"step {step}, the step being decided when it was made, and its request keeps what it was sent"
            )
        elif step > len(run.steps):
            warning = here.warning(f"{label} was sent {step} assistant turns, more than the sample's messages hold")
        elif not (restart is None and sample_turns == 2 * step + 1 <= agree) and seen != (
            messages := said if said is not None else turns[:sample_turns]
        ):
            warning = here.warning(
                f"{label}: its input differs from the run's view at step {step}: {_diff(seen, messages)}"
            )
        elif record["request"].get("system") != system:
            warning = here.warning(f"{label}: its system prompt differs from the sample's")
        else:
            continue
        out.append((warning, record, said if said is not None else turns[:sample_turns]))
    return out


def _diff(view: list[dict[str, Any]], sent: list[dict[str, Any]]) -> str:
    for position, (seen, given) in enumerate(zip(view, sent, strict=False)):
        if seen != given:
            return f"message {position} differs"
    return f"the view has {len(view)} messages, the input {len(sent)}"


class _Events(NamedTuple):
    """A sample's events as the run reads them (``_agent_events``)."""

    model: list[tuple[int, Event]]
    """The model events made for the conversation, with their positions."""
    compactions: list[tuple[int, Event]]
    """The compaction events of the conversation, with their positions."""
    scoring: int
    """How many model events its scorers made."""
    unknown: dict[str, list[int]]
    """The positions of the events of each type this module does not know, by type."""


_KNOWN_EVENTS = frozenset(
    (
        "anchor",
        "approval",
        "branch",
        "checkpoint",
        "error",
        "info",
        "input",
        "interrupt",
        "logger",
        "sample_init",
        "sample_limit",
        "sandbox",
        "score",
        "score_edit",
        "span_end",
        "state",
        "store",
        "subtask",
        "tool",
    )
)
"""The event types Inspect writes (``inspect_ai/event/_event.py``'s ``Event``) that the run does not read, beside
``model``, ``compaction``, ``span_begin`` and ``step``: none holds what the model was sent that the sample's
messages do not (a tool event's call and result are its messages'), so they are left out without a word."""


def _agent_events(events: Sequence[Event]) -> _Events:
    """The sample's events the run reads: its model and compaction events made for its conversation, how many model
    events its scorers made, and the events of a type this module does not know.

    A scorer's calls (a model grading the answer) are another conversation: they are counted, not made calls
    of the run. Scorers run in spans of type ``scorer`` (older logs: between ``step`` events of that type).
    """
    spans: dict[str, tuple[str, str | None]] = {}
    steps: list[str] = []
    out = _Events([], [], 0, {})
    scoring = 0
    for number, event in enumerate(events):
        kind = event.event
        if kind == "span_begin":
            spans[str(event.id)] = (str(event.type or ""), event.parent_id)
        elif kind == "step":
            if event.action == "begin":
                steps.append(str(event.type or ""))
            elif steps:
                steps.pop()
        elif kind == "model" or kind == "compaction":
            if "scorer" in steps or _in_scorer(event.span_id, spans):
                scoring += kind == "model"
            else:
                (out.model if kind == "model" else out.compactions).append((number, event))
        elif kind not in _KNOWN_EVENTS:
            out.unknown.setdefault(kind, []).append(number)
    return out._replace(scoring=scoring)


def _in_scorer(span: str | None, spans: Mapping[str, tuple[str, str | None]]) -> bool:
    seen = set()
    while span is not None and span in spans and span not in seen:
        seen.add(span)
        kind, span = spans[span]
        if kind == "scorer":
            return True
    return False


def _message_id(logged: Any) -> str:
    """An Inspect message's id in a run (a reply's ``response.id``; how a model event's output is told among the
    sample's messages), from its ``id`` as the log holds it (``logged``): that id, else none (``""``, which the
    frame's ``response_id`` shows as null).

    A message the log holds with no id is given none, never one made up: Inspect's reader gives such a message of
    an older layout it migrates a random id on every read (``_PlainLog`` keeps it out), and a made-up id would
    stand for a provider's message id the log never had.
    """
    return str(logged or "")


def _reply_steps(messages: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """The step each assistant message of the sample is the reply of, by the message's id."""
    out: dict[str, int] = {}
    turns, previous = 0, ""
    for message in messages:
        role = message.get("role", "")
        if role == "assistant":
            if previous != "assistant":
                turns += 1
            if said := _message_id(message.get("id")):
                out[said] = turns - 1
        if role != "system":
            previous = role
    return out


def _model_call(
    inputs: Sequence[Any],
    event: Event,
    tools: list[dict[str, Any]] | None,
    pooled: bool,
    convert: _Converter,
    where: Where,
    replies: Mapping[str, int],
    warnings: list[RunWarning],
    known: tuple[Any, int, int] | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]] | int | None] | None:
    """The ``model_call`` record of a ``ModelEvent`` (``event``, offered ``tools``: ``_Tools``; ``pooled``: the sample
    has a pool of messages, which its ``input_refs`` name, so that its input is those messages) and what it was sent:
    the messages, or how many of the sample's first turns they are (``known``), or ``None`` when the log does not say;
    or ``None`` (with a warning) when it has no reply.

    ``known`` is ``(system, turns, assistant turns)`` when the input is the sample's first messages
    (``_SamplePrefixes.of``): they are not converted again, nor copied (an agent's inputs, each the conversation
    so far, were a list each of every turn before it). The record's request holds no messages: they are the run's
    view at the call's step, which the caller checks, and keeps in the request where they are not.
    """
    said: list[dict[str, Any]] | int
    if known is not None:
        system, said, step = known
    else:
        dropped: list[RunWarning] = []  # the sample's messages report what their content loses; an input repeats them
        system, messages = _conversation(
            [convert.message(m, where, f"input[{i}]", dropped) for i, m in enumerate(inputs)],
            where.at("input"),
            dropped,
        )
        step = sum(1 for message in messages if message["role"] == "assistant")
        said = messages
    output = _output(event.output, where, bool(event.error))
    choices = output.choices or []
    if not choices or event.error:
        # a call that failed (an error, which Inspect records with an empty placeholder output) got no reply
        failure = event.error or "no output"
        warnings.append(where.warning(f"model event has no reply ({_first_line(str(failure))}): no model call is made"))
        return None
    if len(choices) > 1:
        warnings.append(where.warning(f"{len(choices)} choices: only the first is a reply"))
    choice = choices[0]
    reply = choice.message or _NO_REPLY
    content = _reply_blocks(reply, where, warnings)
    _check_reply_values(reply.content, where)
    stop = str(choice.stop_reason or "")
    response: dict[str, Any] = {
        "id": _message_id(reply.id),
        "type": "message",
        "role": "assistant",
        "model": str(output.model or event.model or ""),
        "content": content,
        "stop_reason": STOP_REASONS.get(stop, stop),  # one with no counterpart: as Inspect wrote it
    }
    usage = output.usage
    if isinstance(usage, dict):
        response["usage"] = {
            wire: usage[key]
            for key, wire in (
                ("input_tokens", "input_tokens"),
                ("output_tokens", "output_tokens"),
                ("input_tokens_cache_write", "cache_creation_input_tokens"),
                ("input_tokens_cache_read", "cache_read_input_tokens"),
            )
            if isinstance(usage.get(key), int)
        }
    request: dict[str, Any] = {"model": str(event.model or "")}
    if system is not None:
        request["system"] = system
    if tools:
        request["tools"] = tools
    config = event.config or {}
    if isinstance(config.get("max_tokens"), int):
        request["max_tokens"] = config["max_tokens"]
    inspect: dict[str, Any] = {}  # what the log says of the call beyond the Messages API, those it holds
    if event.config:
        inspect["config"] = event.config
    if event.tool_choice:
        inspect["tool_choice"] = event.tool_choice
    if event.call:
        inspect["call"] = event.call
    if event.uuid:
        inspect["uuid"] = event.uuid
    if inspect:
        request["inspect"] = inspect
    unresolved = not said and not pooled and bool(event.input_refs)
    if unresolved:
        # an input kept as references into a message pool the log does not hold
        placed = replies.get(response["id"])
        if placed is None:
            warnings.append(
                where.warning(_UNRESOLVED + " and its reply is not among the sample's messages: no model call is made")
            )
            return None
        warnings.append(
            where.warning(_UNRESOLVED + ": the call is placed by its reply, and what it was sent is not known")
        )
        step = placed
    record: dict[str, Any] = {"type": "model_call", "step": step, "response": response}
    working = event.working_time
    if isinstance(working, int | float) and not isinstance(working, bool):
        record["latency_ms"] = working * 1000
    record["request"] = request
    return record, None if unresolved else said


_UNRESOLVED = "the model event's input is kept as references to a message pool the log does not hold"


def _object(value: Any, where: Where, field: str) -> Mapping[str, Any]:
    """``value`` (``field`` of ``where``) when it is a JSON object; else the error naming it."""
    if not isinstance(value, dict):
        raise where.at(field).error(f"expected an object, got {type_name(value)}")
    return value


def _output(value: Any, where: Where, failed: bool) -> Output:
    """A model event's output (``value``; the event at ``where``) as ``Output``: as the typed decode gave it, or the
    JSON the log holds (the general decode's, Inspect's reader's) checked as far as the importer reads it, in the
    order it reads it: the output an object, its choices a list, and, unless the call got no reply (no choice, or it
    ``failed``), the first choice an object and its reply (``_reply``). Raises the error naming the field that is
    not so."""
    if type(value) is Output:
        return value
    output = _object(value or {}, where, "output")
    choices = output.get("choices") or []
    if not isinstance(choices, list):
        raise where.at("output.choices").error(f"expected a list of choices, got {type_name(choices)}")
    model, usage = output.get("model"), output.get("usage")
    if not choices or failed:
        return Output(model=model, usage=usage)
    first = _object(choices[0], where, "output.choices[0]")
    reply = Choice(message=_reply(first.get("message"), where), stop_reason=first.get("stop_reason"))
    return Output(model=model, choices=[reply, *[_PAST_FIRST] * (len(choices) - 1)], usage=usage)


_REPLY = "output.choices[0].message"
"""A model event's reply, the field errors and warnings name."""

_NO_REPLY = Reply()
"""The reply of a choice the log gives none: an empty one, as the log's ``{}`` reads."""

_PAST_FIRST = Choice()
"""A choice past the first of an output the general decode gave: only counted (only the first is a reply)."""


def _reply(value: Any, where: Where) -> Reply:
    """A model event's reply as the log's JSON holds it (``value``: its first choice's ``message``; none is an empty
    reply) as ``Reply``, checked as the importer reads it: an object, that ``_assistant`` converts (its content text or
    content items with a type, its tool calls each an object with an id and a function), each call's function a
    string, as the run takes a tool use's name. Raises the error naming the field that is not so."""
    message = _object(value or {}, where, _REPLY)
    _assistant(message, where, _REPLY, [])  # its faults, as converting it finds them (it is converted from its struct)
    calls = message.get("tool_calls") or []
    for position, call in enumerate(calls):
        if type(call["function"]) is not str:
            got = type_name(call["function"])
            raise where.at(_REPLY).at(f"tool_calls[{position}].function").error(f"expected a string, got {got}")
    typed = [ToolCall(c["id"], c["function"], c.get("arguments", {}), c.get("parse_error")) for c in calls]
    content = message.get("content", "")
    return Reply(content=content, tool_calls=typed or None, id=message.get("id"), role=message.get("role"))


def _reply_blocks(reply: Reply, where: Where, warnings: list[RunWarning]) -> list[dict[str, Any]]:
    """A model event's reply (the event at ``where``) as an assistant message's blocks, as ``_assistant`` makes a
    message's of the log's JSON: its content, then a ``tool_use`` block per tool call (``_ended``)."""
    content = reply.content
    blocks = _content(content, where, _REPLY, warnings) if content != [] else []
    uses = []
    for position, call in enumerate(reply.tool_calls or ()):
        if call.parse_error:
            warnings.append(_unparsed(call.parse_error, where.at(_REPLY), position))
        uses.append({"type": "tool_use", "id": call.id, "name": call.function, "input": call.arguments})
    return _ended(blocks, uses)


def _check_reply_values(content: Any, where: Where) -> None:
    """Raise the error naming the field of a reply's content (the reply of the model event at ``where``) that its
    blocks would carry of the wrong type: a reasoning's ``signature``, which ``_block`` gives as the log has it; every
    other value of its blocks is made a string or checked as it is converted, and its tool calls' functions (the
    blocks' names) are strings (``Reply``'s types, or ``_reply``). So its record's reply is checked here, once, as
    ``read_records`` would check it (``replies_checked``).
    """
    if type(content) is not list:
        return
    for position, item in enumerate(content):
        signature = item.get("signature") if item["type"] == "reasoning" and not item.get("redacted") else None
        if signature and type(signature) is not str:
            got = type_name(signature)
            raise where.at(_REPLY).at(f"content[{position}].signature").error(f"expected a string, got {got}")


class _MessagePool:
    """The messages a sample's model events were sent, where the log keeps them as references (``input_refs``,
    ranges ``[start, end)``) into the sample's pool of messages (``events_data.messages``).

    Inspect's reader resolves them when it knows the pool; where the installed ``inspect_ai`` does not (a log
    written by a newer one), the pool and the references are read here from the sample as the file holds it. So
    is the pool of the interim layout Inspect wrote before it kept the pool in ``events_data`` (0.3.135's
    ``INSPECT_LOG_FORMAT_V3``: the sample's own ``message_pool``, the same ranges into it), which Inspect's reader
    no longer reads: it leaves the references, and the inputs empty.
    """

    def __init__(self, sample: Any, plain: _PlainLog) -> None:
        self._sample, self._plain = sample, plain
        self._pool: list[Any] | None = None

    def input_of(self, number: int, event: dict[str, Any]) -> list[Any]:
        """The input of the model event at ``number`` whose own is empty (``event``: its dump, given its references
        when the installed ``inspect_ai`` dropped them); empty when the log does not say it."""
        refs = event.get("input_refs") or self._raw_event(number).get("input_refs")
        if not isinstance(refs, list) or not refs:
            return []
        event["input_refs"] = refs
        pool = self._messages()
        return [pool[k] for start, end in refs for k in range(start, end) if 0 <= k < len(pool)]

    def _messages(self) -> list[Any]:
        if self._pool is None:
            found = getattr(self._sample, "events_data", None)
            if not (isinstance(found, Mapping) and found.get("messages")):
                found = self._raw_sample().get("events_data")
            pool = found.get("messages") if isinstance(found, Mapping) else None
            if not pool:  # the interim layout's
                pool = self._raw_sample().get("message_pool")
                pool = pool if isinstance(pool, list) else None
            attachments = self._raw_sample().get("attachments") if pool and _has_attachment(pool) else None
            self._pool = [
                _with_attachments(m, attachments) if isinstance(attachments, Mapping) else m for m in pool or ()
            ]
        return self._pool

    def _raw_event(self, number: int) -> Mapping[str, Any]:
        events = self._raw_sample().get("events")
        found = events[number] if isinstance(events, list) and number < len(events) else None
        return found if isinstance(found, Mapping) else {}

    def _raw_sample(self) -> Mapping[str, Any]:
        """The sample as the file holds it (``{}`` when it cannot be read so)."""
        return self._plain.sample(self._sample.id, self._sample.epoch)


def _has_attachment(value: Any) -> bool:
    return "attachment://" in json.dumps(_dump(value), default=str) if value else False


def _with_attachments(value: Any, attachments: Mapping[str, Any]) -> Any:
    """``value`` (a message as plain JSON) with each ``attachment://<hash>`` text read back from ``attachments``."""
    if isinstance(value, str) and value.startswith("attachment://"):
        return attachments.get(value.removeprefix("attachment://"), value)
    if isinstance(value, Mapping):
        return {key: _with_attachments(item, attachments) for key, item in value.items()}
    if isinstance(value, list):
        return [_with_attachments(item, attachments) for item in value]
    return value


def _first_line(text: str) -> str:
    return text.strip().split("\n", 1)[0]


def _tool(tool: Mapping[str, Any]) -> dict[str, Any]:
    """An Inspect ``ToolInfo`` as the Messages API's tool definition."""
    out: dict[str, Any] = {"name": tool.get("name", "")}
    if tool.get("description"):
        out["description"] = tool["description"]
    out["input_schema"] = tool.get("parameters") or {"type": "object", "properties": {}}
    return out


class _Tools:
    """The tools each model event of a sample was offered, as the Messages API's tool definitions.

    An agent's model events are offered the same tools: an event whose tools are the same JSON text as the event
    before's (compared in C) is given the same list, read from that text (``Sample.tools_of``) and converted once,
    which the calls' records share (800 turns: 800 lists of tools, of eight objects each, neither decoded nor
    converted).
    """

    def __init__(self, sample: Sample) -> None:
        self._sample = sample
        self._text: msgspec.Raw | None = None  # the JSON text of the last event's tools
        self._tools: list[dict[str, Any]] | None = None  # what they are

    def of(self, event: Event) -> list[dict[str, Any]] | None:
        """The tools ``event`` was offered (``None`` when none)."""
        if event.tools != self._text:
            offered = self._sample.tools_of(event.tools)
            self._text, self._tools = event.tools, [_tool(tool) for tool in offered] if offered else None
        return self._tools


def _pool_start(refs: Any) -> int | None:
    """``end`` when a model event's ``input_refs`` are one range from the pool's start (``[[0, end]]``), as an
    agent's inputs are; else ``None``."""
    if type(refs) is list and len(refs) == 1 and type(refs[0]) is list and len(refs[0]) == 2:
        start, end = refs[0]
        if start == 0 and type(start) is int and type(end) is int and end >= 0:
            return end
    return None


class _SamplePrefixes:
    """Which model events were sent the sample's first messages, and what those are as turns, found without
    converting each input again.

    Each model event's input holds the conversation so far, so an agent's events, read in order, each extend
    the input before: an input that starts with the last one found (the same message objects, compared in C
    by identity) and goes on with the sample's next messages (equal values) is the sample's first ``n``
    messages. When ``n`` ends a turn and holds every system message, its turns are the sample's first turns
    (how many is what is given, not a copy of them) and its system is the sample's: what ``_conversation`` of
    the input would give.
    Checking an input costs a look at its new messages, and one comparison in C of the rest: each input
    converted into turns and compared with the view again, message by message, was most of an import. An input
    kept as one range from the start of the sample's pool of messages (as Inspect writes an ``.eval``) is not
    even copied out of the pool: the pool's messages are compared with the sample's once each (``of_pool``).
    """

    def __init__(self, sample: list[Any], converted: Sequence[_Message], system: Any) -> None:
        self._sample, self._system = sample, system
        self._last: list[Any] | None = []  # the last input found; None: the pool's first ``_done`` messages
        self._done = 0  # how many messages it holds
        self._pool: list[Any] = []
        self._agree = 0  # how many of the pool's first messages are the sample's
        # for each n, the turns of the first n messages when n ends a turn and holds every system message
        roles = [role for role, _, _ in converted]
        first = max((i + 1 for i, role in enumerate(roles) if role == "system"), default=0)
        self._ends: dict[int, tuple[int, int]] = {}  # n: (turns, assistant turns)
        count = assistants = 0
        previous = None  # the role of the last turn
        for n, role in enumerate(roles):
            if role != "system" and role != previous:
                count += 1
                assistants += role == "assistant"
                previous = role
            if n + 1 >= first and (n + 1 == len(roles) or roles[n + 1] != previous):
                self._ends[n + 1] = (count, assistants)

    def of(self, inputs: list[Any]) -> tuple[Any, int, int] | None:
        """``(system, turns, assistant turns)`` of an event's input when it is the sample's first messages (``turns``:
        how many of the sample's first turns it is), else ``None`` (the caller converts it)."""
        last, n, done = self._last, len(inputs), self._done
        if last is None:
            last = self._pool[:done]
        if n < done or inputs[:done] != last or inputs[done:] != self._sample[done:n]:
            return None
        self._last, self._done = inputs, n
        return self._turns_of(n)

    def of_pool(self, pool: list[Any], end: int) -> tuple[Any, int, int] | None:
        """``of(pool[:end])`` for an input kept as one reference into the sample's pool of messages, from its start,
        without the slice: the pool's messages are compared with the sample's once each, not once an event.

        The input before was the sample's first messages (equal values), so this input starts with it when it is
        the sample's first ``n`` messages too, and goes on with the sample's next ones.
        """
        n = min(end, len(pool))
        if n < self._done:
            return None
        if pool is not self._pool:
            self._pool, self._agree = pool, 0
        agree, sample = self._agree, self._sample
        while agree < n and agree < len(sample) and pool[agree] == sample[agree]:
            agree += 1
        self._agree = agree
        if agree < n:
            return None
        self._last, self._done = None, n
        return self._turns_of(n)

    def _turns_of(self, n: int) -> tuple[Any, int, int] | None:
        end = self._ends.get(n)
        if end is None:
            return None
        count, assistants = end
        return self._system, count, assistants


class _Converter:
    """Inspect chat messages in the Messages API's shape, each converted once.

    A model event's input holds every message before it, and Inspect reads the inputs of a
    log's events back as the same message objects (its message pool): converting each object
    once keeps an import linear in the messages rather than in the sum of the inputs.
    """

    def __init__(self, filled: bool = False) -> None:
        self._done: dict[int, tuple[Any, _Message]] = {}
        self.filled = filled
        """Whether an assistant message of no content (``[]``) and tool calls is sent with ``NO_CONTENT`` before its
        calls, as Inspect's Anthropic provider sent it before 0.3.147 (``_filled_before_calls``)."""

    def message(self, message: Any, where: Where, field: str, warnings: list[RunWarning]) -> _Message:
        """The message (``field`` of ``where``) as ``(role in the API, blocks, its content when a system message)``."""
        known = self._done.get(id(message))
        if known is not None and known[0] is message:
            return known[1]
        converted = _message(message, where, field, warnings, self.filled)
        self._done[id(message)] = (message, converted)  # the message is kept, so its id stays its own
        return converted


_Message = tuple[str, list[dict[str, Any]], Any]


def _filled_before_calls(version: str | None) -> bool:
    """Whether Inspect ``version`` (the log's ``eval.packages``) sent an assistant message of no content and tool
    calls with ``NO_CONTENT`` before the calls: until 0.3.146 its Anthropic provider gave every message of no
    content that text; 0.3.147 left it out before tool calls (its commit 187ee13b). A log that names no version is
    read as the newest."""
    release = re.match(r"(\d+)\.(\d+)\.(\d+)", version or "")
    return release is not None and tuple(map(int, release.groups())) < (0, 3, 147)


def _message(message: Any, where: Where, field: str, warnings: list[RunWarning], filled: bool = False) -> _Message:
    """One chat message (``field`` of ``where``) as ``(role in the API, blocks, its content when a system message)``;
    ``filled``: as ``_Converter.filled``.

    The message's place (``where.at(field)``) is made only where an error or a warning names it, as in the functions
    it calls: most messages are converted with nothing to say.
    """
    if not isinstance(message, dict):
        raise where.at(field).error(f"expected a chat message, got {type_name(message)}")
    role = message.get("role")
    if role == "system":
        return "system", _content(message.get("content"), where, field, warnings), message.get("content")
    if role == "tool":
        return "user", [_tool_result(message, where, field, warnings)], None
    if role == "user":
        return "user", _content(message.get("content"), where, field, warnings), None
    if role == "assistant":
        return "assistant", _assistant(message, where, field, warnings, filled), None
    raise where.at(field).at("role").error(f"expected 'system', 'user', 'assistant' or 'tool', got {shown(role)}")


def _conversation(
    messages: Sequence[_Message], where: Where, warnings: list[RunWarning]
) -> tuple[str | list[dict[str, Any]] | None, list[dict[str, Any]]]:
    """Converted chat messages as ``(system, turns)``: system messages as the system prompt, consecutive
    messages of one role in the API as one turn (as the API merges them).

    A user turn after a reply holds its results first, as the Messages API takes a turn: a user message sent after
    the reply's calls and before an output of theirs is shown after the outputs, and named in a warning
    (``instructed_warnings``). A system message sent so is in system, as any sent after the conversation began."""
    system: list[dict[str, Any]] = []
    system_texts: list[Any] = []
    turns: list[dict[str, Any]] = []
    said: list[int] = []  # the user messages of the last turn that are not results, when it answers a reply
    moved: list[dict[str, Any]] = []  # the user turns with a result sent after a message of theirs
    before_output: dict[Where, None] = {}  # where each user message sent before a result of its turn is
    for position, (role, blocks, system_content) in enumerate(messages):
        is_result = role == "user" and bool(blocks) and blocks[0]["type"] == "tool_result"
        if role == "system":
            if turns:
                warnings.append(
                    where.at(f"[{position}]").warning("a system message after the conversation began is sent in system")
                )
            system_texts.append(system_content)
            system.extend(blocks)
            continue
        if turns and turns[-1]["role"] == role:
            if role == "assistant":
                warnings.append(where.at(f"[{position}]").warning("two assistant messages in a row: sent as one turn"))
            elif is_result and said:
                if not moved or moved[-1] is not turns[-1]:
                    moved.append(turns[-1])
                before_output.update(dict.fromkeys(where.at(f"[{at}]") for at in said))
            turns[-1]["content"].extend(blocks)
        else:
            said = []
            turns.append({"role": role, "content": list(blocks)})  # a copy: the converted blocks are shared
        if role == "user" and not is_result and len(turns) > 1:
            said.append(position)
    for turn in moved:
        turn["content"] = results_first(turn["content"])
    warnings.extend(instructed_warnings([], before_output, _place))
    if not system_texts:
        return None, turns
    if len(system_texts) == 1 and isinstance(system_texts[0], str):
        return system_texts[0], turns
    return system, turns


def _place(here: Where) -> str:
    """How a warning names where a message was: its field in the sample or the event (``messages[3]``)."""
    return here.field.rpartition(".")[2]


NO_CONTENT = "(no content)"
"""The text Inspect's Anthropic provider sends for empty content (``inspect_ai._util.constants.NO_CONTENT``).

The Messages API refuses a text block that is empty or only whitespace ("text content blocks must be
non-empty", "text content blocks must contain non-whitespace text": 400 ``invalid_request_error``,
anthropics/claude-code#23440), so Inspect never sends one: its provider
(``inspect_ai/model/_providers/anthropic.py``, ``message_param``, ``message_block_params``,
``assistant_message_block_params``) sends this text for an empty text (a message's or a content item's),
for an empty user message, an empty assistant message with no tool calls, and after a reply's final thinking.
"""


def _assistant(
    message: Mapping[str, Any], where: Where, field: str, warnings: list[RunWarning], filled: bool = False
) -> list[dict[str, Any]]:
    """An assistant message's blocks (the message: ``field`` of ``where``): its content, then a ``tool_use`` block per
    tool call (``_ended``); one of no content (``[]``) before its tool calls has ``NO_CONTENT`` before them when
    ``filled`` (``_Converter.filled``)."""
    content = message.get("content", "")
    blocks = _content(content, where, field, warnings) if content != [] or filled else []
    calls = message.get("tool_calls") or []
    if not isinstance(calls, list):
        raise where.at(field).at("tool_calls").error(f"expected a list of tool calls, got {type_name(calls)}")
    uses = []
    for position, call in enumerate(calls):
        if not isinstance(call, dict) or not isinstance(call.get("id"), str) or not call.get("function"):
            raise where.at(field).at(f"tool_calls[{position}]").error("expected a tool call with an id and a function")
        if call.get("parse_error"):
            warnings.append(_unparsed(call["parse_error"], where.at(field), position))
        uses.append(
            {"type": "tool_use", "id": call["id"], "name": call["function"], "input": call.get("arguments", {})}
        )
    return _ended(blocks, uses)


def _unparsed(parse_error: Any, message: Where, position: int) -> RunWarning:
    """The warning naming a tool call (the ``position``-th of the message at ``message``) whose arguments Inspect could
    not parse (``parse_error``: what it said)."""
    return message.at(f"tool_calls[{position}]").warning(f"its arguments could not be parsed: {parse_error}")


def _ended(blocks: list[dict[str, Any]], uses: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """An assistant message's content blocks, then its ``tool_use`` blocks; as Inspect's Anthropic provider sends
    them, an empty message with no tool calls, or one ending on thinking, ends with ``NO_CONTENT``."""
    if not uses and (not blocks or blocks[-1]["type"] in ("thinking", "redacted_thinking")):
        blocks.append({"type": "text", "text": NO_CONTENT})
    return blocks + uses


def _tool_result(message: Mapping[str, Any], where: Where, field: str, warnings: list[RunWarning]) -> dict[str, Any]:
    """A tool message (``field`` of ``where``) as a ``tool_result`` block; a failed tool's result is its error's
    message, ``is_error``."""
    call_id = message.get("tool_call_id")
    if not isinstance(call_id, str) or not call_id:
        raise where.at(field).at("tool_call_id").error("missing: a tool message answers a tool call")
    content = message.get("content", "")
    error = message.get("error")
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id}
    if isinstance(error, dict):
        text = content if isinstance(content, str) else _text_of(content)
        said = str(error.get("message") or "")
        block["content"] = "\n".join(part for part in (said, text) if part) or "error"
        block["is_error"] = True
    elif isinstance(content, str):
        block["content"] = content
    else:
        block["content"] = _content(content, where, field, warnings)
    return block


def _text_of(content: Any) -> str:
    if not isinstance(content, list):
        return ""
    return "\n".join(
        str(item.get("text", "")) for item in content if isinstance(item, dict) and item.get("type") == "text"
    )


def _content(content: Any, message: Where, field: str, warnings: list[RunWarning]) -> list[dict[str, Any]]:
    """A message's content (text, or a list of content items; the message: ``field`` of ``message``) as Messages API
    blocks; empty text, or no content at all, is ``NO_CONTENT`` (as Inspect sends it)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content or NO_CONTENT}]
    where = message.at(field).at("content")  # named only for content that is not text: most messages' is
    if not isinstance(content, list):
        raise where.error(f"expected text or a list of content, got {type_name(content)}")
    blocks = []
    for position, item in enumerate(content):
        block = _block(item, where.at(f"[{position}]"), warnings)
        if block is not None:
            blocks.append(block)
    return blocks if content else [{"type": "text", "text": NO_CONTENT}]


def _block(item: Any, where: Where, warnings: list[RunWarning]) -> dict[str, Any] | None:
    if not isinstance(item, dict) or not isinstance(item.get("type"), str):
        raise where.error("expected a content item with a type")
    kind = item["type"]
    if kind == "text":
        block: dict[str, Any] = {"type": "text", "text": str(item.get("text", "")) or NO_CONTENT}
        if item.get("cache_breakpoint"):
            block["cache_control"] = {"type": "ephemeral"}
        if item.get("citations"):
            warnings.append(
                where.warning("Inspect's citations have no Messages API form: the text is kept without them")
            )
        return block
    if kind == "reasoning":
        summary = item.get("summary")
        if item.get("redacted") and summary:
            # OpenAI's reasoning (Inspect keeps its encrypted content as redacted reasoning, the text OpenAI gave of
            # it as the summary): a thinking block of the summary, the encrypted content its signature, as
            # imports.responses reads a Responses API reasoning item
            return {"type": "thinking", "thinking": str(summary), "signature": str(item.get("reasoning", ""))}
        if item.get("redacted"):
            return {"type": "redacted_thinking", "data": str(item.get("reasoning", ""))}
        block = {"type": "thinking", "thinking": str(item.get("reasoning", ""))}
        if item.get("signature"):
            block["signature"] = item["signature"]
        return block
    if kind == "image":
        return {"type": "image", "source": _source(str(item.get("image", "")))}
    if kind == "document":
        block = {"type": "document", "source": _source(str(item.get("document", "")))}
        if item.get("filename"):
            block["title"] = item["filename"]
        return block
    what = f"a server tool use ({item.get('tool_type')})" if kind == "tool_use" else f"{shown(kind)} content"
    warnings.append(where.warning(f"{what} has no Messages API block: left out"))
    return None


def _source(uri: str) -> dict[str, Any]:
    """An image's or document's data URI or URL as a block's ``source``."""
    if uri.startswith("data:"):
        head, _, data = uri.partition(",")
        return {"type": "base64", "media_type": head[5:].split(";", 1)[0], "data": data}
    return {"type": "url", "url": uri}
