"""An Inspect AI log (``.eval`` or ``.json``) read as the JSON it is, with msgspec: only what ``from_inspect`` uses.

Inspect's own reader (``inspect_ai.log.read_eval_log``) validates every field of a log into pydantic models,
walks each sample for its attachments and copies what it resolves: most of an import's time. This reader
decodes a sample's JSON into the few typed structs below (the fields it does not declare are skipped in C),
and does the two things of Inspect's read that change what the importer sees, as Inspect does them with
``resolve_attachments="core"``:

- each ``attachment://<hash>`` text is read back from the sample's ``attachments``, in the fields Inspect's
  ``resolve_sample_attachments`` walks (a message's content, an assistant's tool call arguments where its
  content is a list, a model event's tools, input and output), never in a provider's raw ``call``;
- a model event's input kept as references into the sample's message pool (``input_refs`` into
  ``events_data.messages``) is that pool's messages, the same objects for every event, read from the pool when
  asked (``Sample.input_of``: an agent's inputs, each the conversation so far, are not each copied out of it),
  and a raw call's messages kept as references into the pool of calls (``call_refs``) are put back under their key.

A model event's ``output`` is decoded as typed structs (``Output``: its choices, each reply and its tool calls, as
Inspect's ``ModelOutput`` holds them), the fields the importer reads. An output those types do not take as it stands
(a tool call with no id or a function that is not a text, ``tool_calls`` given as ``0``, a reply Inspect's reader
would migrate: ``tool_error``) makes the sample read by the general decode, whose outputs are the JSON the log holds:
the importer checks those as far as it reads them, naming the field that is wrong (``inspect._output``).

A log this reader does not know exactly how Inspect reads (another log version, the older layouts Inspect
migrates, ``NaN`` in its JSON, an archive with no header) raises ``NeedsInspect``: the importer reads it with
Inspect's reader, as it always did. Text that is no log raises ``RunFileError`` naming the field.
"""

from __future__ import annotations

import io
import lzma
import operator
import os
import sys
import zipfile
import zlib
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Annotated, Any, TypeVar

import msgspec

from agentrender._extras import require
from agentrender.imports.conversation import broken_document, file_bytes
from agentrender.imports.shapes import EVAL_LOG_NAMES, ZIP_MAGIC
from agentrender.runfile import RunFileError, RunWarning
from agentrender.runfile.lines import GZIP_MAGIC, INFLATE_FLOOR, INFLATE_RATIO, inflate_limit, name_ends

__all__ = [
    "Choice",
    "EvalSpec",
    "Event",
    "Failure",
    "Limit",
    "Log",
    "NeedsInspect",
    "Output",
    "Reply",
    "Sample",
    "Score",
    "ToolCall",
    "log_bytes",
    "log_source",
    "logged",
    "open_archive",
    "read_log",
    "with_stream_notes",
]

LOG_VERSION = 2
"""The version of Inspect's log format this reader knows (``inspect_ai.log._log.LOG_SCHEMA_VERSION``)."""

ATTACHMENT = "attachment://"
_OLD_ATTACHMENT = "tc://"
_REFERENCES = (ATTACHMENT, _OLD_ATTACHMENT)


class NeedsInspect(Exception):
    """A log only Inspect's own reader reads exactly (the reason is the message)."""


class Failure(msgspec.Struct, frozen=True, gc=False):
    """An error Inspect logged (a sample's or the log's): its message."""

    message: str


class EvalSpec(msgspec.Struct, frozen=True, gc=False):
    """What the log says of the eval that wrote it, as a run's source keeps it."""

    task: str
    model: str
    task_id: str = ""  # Inspect's defaults, for logs older than the field
    eval_id: str = ""
    run_id: str = ""
    packages: dict[str, str] = {}
    """The versions of the packages that wrote the log (``inspect_ai``: how its providers sent the messages)."""


class Score(msgspec.Struct, frozen=True, gc=False):
    """A scorer's score of a sample, its fields in the order Inspect logs them (``inspect_ai.scorer.Score``)."""

    value: Any
    answer: str | None = None
    explanation: str | None = None
    reason: Any = None
    metadata: dict[str, Any] | None = None
    history: list[Any] = []


class Limit(msgspec.Struct, frozen=True, gc=False):
    """The limit a sample reached (``inspect_ai.log.EvalSampleLimit``): its kind and its value, a number."""

    type: str
    limit: float
    reason: str | None = None


def logged(value: Score | Limit) -> dict[str, Any]:
    """A score or a limit as Inspect's reader dumps it (``model_dump(mode="json", exclude_none=True)``): its fields
    in order, those unset left out, the defaults of those the log leaves out given."""
    return {key: item for key, item in msgspec.structs.asdict(value).items() if item is not None}


class ToolCall(msgspec.Struct, frozen=True, gc=False):
    """A tool call of a model's reply (``inspect_ai.tool.ToolCall``): its id, the tool's name (a text, not empty),
    its arguments as the log holds them (``{}`` when it holds none) and what failed to parse them, if anything."""

    id: str
    function: Annotated[str, msgspec.Meta(min_length=1)]
    arguments: Any = {}
    parse_error: Any = None


class Reply(msgspec.Struct, frozen=True, gc=False):
    """The message of a model's output choice (Inspect's ``ChatMessageAssistant``), the fields the importer reads:
    its content (text, or content items as the log holds them), its tool calls, its id and role.

    A reply holding ``tool_error`` (a tool message's field, which Inspect's reader migrates) is not one these types
    take: the sample is read by the general decode, and the reply then by Inspect's reader (``NeedsInspect``)."""

    content: Any = ""
    tool_calls: list[ToolCall] | None = None
    id: Any = None
    role: Any = None
    tool_error: msgspec.UnsetType = msgspec.UNSET


class Choice(msgspec.Struct, frozen=True, gc=False):
    """One choice of a model's output (``inspect_ai.model.ChatCompletionChoice``): its reply, its stop reason."""

    message: Reply | None = None
    stop_reason: Any = None


class Output(msgspec.Struct, frozen=True, gc=False):
    """A model event's output (``inspect_ai.model.ModelOutput``), the fields the importer reads: the model, its
    choices (the first is the reply), the tokens used as the log holds them."""

    model: Any = None
    choices: list[Choice] | None = None
    usage: Any = None


NO_TOOLS = msgspec.Raw(b"null")
"""The JSON text of a model event's ``tools`` when the log holds none."""


class Event(msgspec.Struct, gc=False):
    """One event of a sample, with the fields the importer reads of its kind (``event``); the rest is skipped.

    ``span_begin`` (``id``, ``type``, ``parent_id``) and ``step`` (``action``, ``type``) events say which model
    events a scorer made; a ``model`` event is a call, its ``input`` the messages it was sent (each a message
    as the log holds it), its ``tools`` the JSON text of the tools it was offered (``Sample.tools_of`` reads it:
    an agent's events are offered the same tools, so a caller reads them once for a run of events whose text is
    equal), its ``output`` an ``Output`` where the typed decode read the sample, else the JSON the log holds (the
    importer reads either: ``inspect._output``); a ``compaction`` event (Inspect 0.3.170 on:
    ``inspect_ai/event/_compaction.py``) says the conversation was compacted: its ``type``, ``role``,
    ``tokens_before``, ``tokens_after``, ``source``, ``timestamp`` and ``metadata``. Every other field is as the
    log holds it, ``None`` when absent.
    """

    event: str
    id: Any = None
    type: Any = None
    parent_id: Any = None
    action: Any = None
    span_id: Any = None
    model: Any = None
    input: Any = None
    input_refs: Any = None
    output: Any = None
    error: Any = None
    tools: msgspec.Raw = NO_TOOLS
    config: Any = None
    tool_choice: Any = None
    call: Any = None
    uuid: Any = None
    working_time: float | None = None  # a number Inspect reads as a float (an int in the log too)
    # a compaction's (Inspect's ``CompactionEvent``): its own fields typed as Inspect types them, those other events
    # share (and an event of a type this package does not know may hold otherwise) as they are
    tokens_before: int | None = None
    tokens_after: int | None = None
    timestamp: str | None = None  # every event's (``BaseEvent``): an ISO 8601 text
    role: Any = None
    source: Any = None
    metadata: Any = None


class EventsData(msgspec.Struct, gc=False):
    """A sample's pools: the messages model events were sent and the messages of the providers' raw calls."""

    messages: list[dict[str, Any]] = []
    calls: list[Any] = []


class Sample(msgspec.Struct, gc=False):
    """One sample and epoch of a log, its messages and events as the importer reads them.

    A model event's input is ``input_of(event)``: its ``input_refs`` into the pool of messages (``events_data``)
    where the sample has one, as Inspect's reader reads them, else its own ``input``.
    """

    id: str | int
    epoch: int
    messages: list[dict[str, Any]]
    events: Sequence[Event] = []
    scores: dict[str, Score] | None = None
    target: str | list[str] = ""
    error: Failure | None = None
    limit: Limit | None = None
    started_at: datetime | None = None
    completed_at: datetime | None = None
    attachments: dict[str, str] = {}
    events_data: EventsData | None = None
    # older layouts Inspect migrates when it reads them (``EvalSample.migrate_deprecated``)
    score: Any = None
    transcript: Any = None

    def pool(self) -> list[dict[str, Any]]:
        """The messages the sample's model events refer to (``input_refs``); empty when it keeps none."""
        return self.events_data.messages if self.events_data is not None else []

    def input_of(self, event: Event) -> list[Any]:
        """The messages a model event was sent: those its references name in the pool (the pool's own objects), else
        those it holds."""
        pool = self.pool()
        if pool and event.input_refs is not None:
            return _expand(event.input_refs, pool)
        return event.input or []

    def tools_of(self, tools: msgspec.Raw) -> Any:
        """The tools a model event was offered (``tools``: their JSON text, an event's ``tools``), as Inspect's reader
        reads them: each tool's ``attachment://`` description read back from the sample's attachments."""
        offered = msgspec.json.decode(tools)
        if isinstance(offered, list):
            resolve = _Resolver(self.attachments)
            return [resolve.tool(tool) for tool in offered]
        return offered


class Log(msgspec.Struct, gc=False):
    """A log: its header, and its samples in the order Inspect's reader gives them."""

    version: int
    status: str
    eval: EvalSpec
    error: Failure | None = None
    samples: Sequence[Sample] | None = None


NO_INPUT = msgspec.Raw(b"null")
"""The JSON text of an event's ``input`` when the log holds none."""


class _LoggedEvent(Event, gc=False):
    """An event as the log holds it: its ``input`` the JSON text of its messages, which ``_read_inputs`` reads.

    An agent's model event holds the conversation so far: in a ``.json`` log (an ``.eval`` keeps them in its pool),
    the inputs are most of the bytes, each message as many times as events after it. Kept as text, each input
    is skipped by the decoder in C and read past the input before's messages, which are its first ones.
    """

    input: msgspec.Raw = NO_INPUT
    output: Output | None = None  # typed: an output of another shape has the sample read by the general decode


class _LoggedSample(Sample, gc=False):
    """A sample as the log holds it: its events ``_LoggedEvent``s."""

    events: Sequence[_LoggedEvent] = []


class _LoggedLog(Log, gc=False):
    """A log as the file holds it: its samples ``_LoggedSample``s."""

    samples: Sequence[_LoggedSample] | None = None


_T = TypeVar("_T")

# Each decoder of ``_LoggedEvent``s, which ``_decode`` tries first, and the general one (every value decoded as it
# stands: msgspec's errors as they always were).
_LOG: tuple[msgspec.json.Decoder[Log], msgspec.json.Decoder[Log]] = (
    msgspec.json.Decoder(_LoggedLog),
    msgspec.json.Decoder(Log),
)
_SAMPLE: tuple[msgspec.json.Decoder[Sample], msgspec.json.Decoder[Sample]] = (
    msgspec.json.Decoder(_LoggedSample),
    msgspec.json.Decoder(Sample),
)
_VALUES = msgspec.json.Decoder()


def read_log(path: str, notes: list[RunWarning] | None = None, source: str | io.BytesIO | None = None) -> Log:
    """The log at ``path`` (an ``.eval`` archive, or a ``.json`` log, either compressed with gzip too: ``log_source``),
    as Inspect reads it with ``resolve_attachments="core"``, for the fields the importer uses; ``notes`` gets what
    reading a gzip stream found (one that ends early, past the log's end); ``source``: ``log_source`` of it, read
    already (else read here).

    Raises ``NeedsInspect`` when only Inspect's reader reads it exactly, ``RunFileError`` when it is no log, or an
    ``.eval`` file empty or cut short, or a zip bomb (``open_archive``: checked on the archive opened once, before a
    member is read), or a gzip stream corrupt, or past what it may inflate to.
    """
    said: list[RunWarning] = [] if notes is None else notes
    if source is None:
        source = log_source(path, said)
    try:
        opened = open_archive(path, source)
    except RunFileError as error:
        raise with_stream_notes(error, said) from None
    if opened is not None:
        with opened as archive:
            return _read_archive(path, archive)
    text = source.getvalue() if isinstance(source, io.BytesIO) else log_bytes(path, said)
    try:
        log = _decode(_LOG, text, path, "")
    except RunFileError as error:
        raise with_stream_notes(error, said) from None
    _check_header(log)
    if log.samples:
        for sample in log.samples:
            _resolve(sample, path)
    return log


def log_source(path: str, notes: list[RunWarning]) -> str | io.BytesIO:
    """What a reader of the log at ``path`` reads: ``path``, or the log's bytes where they are not the file's, those
    of a log compressed with gzip (``log.eval.gz``, ``log.json.gz``, as ``gzip -r`` leaves a logs folder: the archive
    or JSON it holds) or of a ``.json`` log that begins with a byte order mark (``log_bytes``; ``notes`` gets what
    reading the stream found)."""
    with open(path, "rb") as file:
        start = file.read(len(BOM))
    if start != BOM and start[: len(GZIP_MAGIC)] != GZIP_MAGIC:
        return path
    return io.BytesIO(log_bytes(path, notes))


def open_archive(path: str, source: str | io.BytesIO, *, strict: bool = True) -> zipfile.ZipFile | None:
    """The ``.eval`` archive the file ``path`` holds (``source``: ``log_source``), opened, or ``None`` when it is
    none (a JSON log). It is refused before a member is read where it is empty or cut short (``check_archive``) or a
    zip bomb (``check_inflation``: bounded by the archive's size, the inflated size of a gzip stream's).

    Raises ``RunFileError`` for those, and for an archive ``zipfile`` cannot open (``strict``; else ``None``: for
    Inspect's reader to judge)."""
    zipped = zipfile.is_zipfile(source)
    check_archive(path, source, zipped)
    if not zipped:
        return None
    try:
        archive = zipfile.ZipFile(source)
    except (zipfile.BadZipFile, OSError, ValueError) as error:  # its directory found, but not one zipfile reads
        if not strict:
            return None
        raise RunFileError(path, 1, f"the .eval archive cannot be read: {error}") from None
    size = len(source.getbuffer()) if isinstance(source, io.BytesIO) else os.path.getsize(path)
    try:
        check_inflation(path, archive.infolist(), size)
    except RunFileError:
        archive.close()
        raise
    return archive


def log_bytes(path: str, notes: list[RunWarning]) -> bytes:
    """The bytes of the log at ``path``, without a byte order mark (as Windows tools write text: not the log's),
    inflated when it is a gzip stream (``log.json.gz``, ``log.eval.gz``, as ``gzip -r`` leaves a logs folder), as a
    run file is (``conversation.file_bytes``: no more than ``lines.inflate_limit``); a stream that ends early is read
    up to its end, a note in ``notes``. Raises ``RunFileError`` for a stream that is corrupt, or past what it may
    inflate to."""
    return file_bytes(path, notes).removeprefix(BOM)


def with_stream_notes(error: RunFileError, notes: Sequence[RunWarning]) -> RunFileError:
    """``error``, of a log whose gzip stream ends early (``notes``, from ``log_bytes``), saying so: the log is cut
    where the stream ends, which is why its JSON breaks off."""
    if not notes:
        return error
    return RunFileError(error.path, error.line, f"{error.what}; {notes[-1].text}", error.column)


def _read_archive(path: str, archive: zipfile.ZipFile) -> Log:
    names = list(dict.fromkeys(archive.namelist()))  # a member logged again is read once, as its last copy
    if "header.json" not in names:
        raise NeedsInspect("an .eval archive with no header.json (a log still being written)")
    corrupt = _CORRUPT
    if any(info.compress_type == _ZSTANDARD for info in archive.infolist()):
        corrupt = (*corrupt, _zstandard())
    log = _decode(_LOG, _member(archive, "header.json", path, corrupt), path, "header.json")
    _check_header(log)
    samples = []
    for name in names:
        if name.startswith("samples/") and name.endswith(".json"):
            text = _member(archive, name, path, corrupt)
            samples.append(_decode(_SAMPLE, text, path, name))
    # in Inspect's order (``inspect_ai.log._log.sort_samples``): by epoch, then id (a number as zero-padded text)
    samples.sort(key=lambda s: (s.epoch, s.id if isinstance(s.id, str) else str(s.id).zfill(20)))
    for sample in samples:
        _resolve(sample, path)
    log.samples = samples
    return log


BOM = "\ufeff".encode()
"""The UTF-8 byte order mark, which a ``.json`` log may begin with."""


def check_archive(path: str, source: str | io.BytesIO, zipped: bool) -> None:
    """Refuse an ``.eval`` file (``source``: ``log_source``, the archive a gzip stream holds) that is empty, or a zip
    archive cut short (it starts as one, and its directory, which a zip writes last, is missing: not ``zipped``,
    ``zipfile.is_zipfile``), saying so in words, where Inspect's reader says ``EOCD not found``."""
    if zipped:
        return
    with open(path, "rb") as file:
        first = file.read(len(ZIP_MAGIC))
    packed = first[: len(GZIP_MAGIC)] == GZIP_MAGIC  # a gzip stream: its start is what it inflates to
    start = source.getvalue()[: len(ZIP_MAGIC)] if packed and isinstance(source, io.BytesIO) else first
    if not (name_ends(path, EVAL_LOG_NAMES) or (packed and start == ZIP_MAGIC)):
        return
    if not start:
        held = "the gzip stream holds nothing" if packed else "the file is empty"
        raise RunFileError(path, 1, f"{held} (an .eval log is a zip archive)")
    if start == ZIP_MAGIC:
        raise RunFileError(
            path,
            1,
            "the .eval archive is cut short: it starts as a zip archive, but the directory a zip ends with is "
            "missing (a log still being written, or a copy that stopped early)",
        )


def check_inflation(path: str, members: Sequence[zipfile.ZipInfo], size: int) -> None:
    """Refuse an ``.eval`` archive (a zip of ``size`` bytes, its ``members``) that would inflate past what a gzip run
    file may: each member past ``lines.inflate_limit`` of its compressed size, or all of them past that of the
    archive's size (a zip bomb).

    The sizes are those the archive declares: Python's ``zipfile``, which Inspect reads it with, gives no more
    of a member than its declared size, so they bound what reading it costs. A JSON log is not compressed.
    """
    parts = [(f"member {m.filename!r}", m.file_size, m.compress_size) for m in members]
    for what, inflated, compressed in [*parts, ("members in all", sum(m.file_size for m in members), size)]:
        if inflated > inflate_limit(compressed):
            raise RunFileError(
                path,
                1,
                f"the .eval archive's {what} inflate to {inflated:,} bytes, past {INFLATE_FLOOR >> 20} MiB and "
                f"{INFLATE_RATIO} times their {compressed:,} compressed bytes: refused as a zip bomb",
            )


_ZSTANDARD = 93
"""The zip compression method of zstandard, which Inspect writes ``.eval`` archives with."""


_CORRUPT: tuple[type[Exception], ...] = (zipfile.BadZipFile, OSError, EOFError, zlib.error, lzma.LZMAError)
"""What ``zipfile`` raises reading a member whose bytes are broken: a wrong CRC, a member cut short, a deflate or
lzma stream that is corrupt (``_zstandard`` gives the error of a corrupt zstandard one)."""

_ZSTANDARD_CODEC = "compression.zstd" if sys.version_info >= (3, 14) else "zstandard"
"""The module that decompresses a zstandard member: Python's own from 3.14, the one ``zipfile_zstd`` uses before."""


def _zstandard() -> type[Exception]:
    """Teach ``zipfile`` zstandard, as Inspect does (Python before 3.14 does not know it): ``zipfile_zstd``; the
    error its decompressor raises on a member whose bytes are corrupt."""
    feature = "agentrender.imports.from_inspect, reading an .eval log"
    if not hasattr(zipfile, "ZIP_ZSTANDARD"):
        require("inspect", "zipfile_zstd", feature=feature)
    error: type[Exception] = require("inspect", _ZSTANDARD_CODEC, feature=feature).ZstdError
    return error


def _member(archive: zipfile.ZipFile, name: str, path: str, corrupt: tuple[type[Exception], ...]) -> bytes:
    """The bytes of the archive's member ``name``; ``corrupt``: the errors that say its bytes are broken."""
    try:
        return archive.read(name)
    except NotImplementedError:
        raise NeedsInspect(f"{name}: compressed in a way Python's zipfile does not know") from None
    except corrupt as error:
        raise RunFileError(path, 1, f"{name}: cannot be read from the .eval archive: {error}") from None


def _decode(
    decoders: tuple[msgspec.json.Decoder[_T], msgspec.json.Decoder[_T]], text: bytes, path: str, member: str
) -> _T:
    """``text`` (the log, or its ``member``) decoded by the first of ``decoders``, its events' inputs read each
    message once (``_read_inputs``); where that fails, by the general one (the second), whose error is said."""
    logged, decoder = decoders
    try:
        decoded = logged.decode(text)
        for sample in _samples(decoded):
            _read_inputs(sample)
        return decoded
    except msgspec.MsgspecError:
        pass  # decoded again, by the decoder that says what is wrong as it always did
    where = f"{member}: " if member else ""
    try:
        return decoder.decode(text)
    except msgspec.ValidationError as error:
        raise RunFileError(path, 1, f"{where}not an Inspect AI log: {_field_path(str(error))}") from None
    except msgspec.DecodeError as error:
        if b"NaN" in text or b"Infinity" in text:  # Inspect writes them; JSON has no such numbers
            raise NeedsInspect("NaN or Infinity in its JSON") from None
        # a .json log's broken JSON is said where it breaks, as any file's (an .eval member's lines are not the file's)
        broken = None if member else broken_document(path, text)
        raise (broken or RunFileError(path, 1, f"{where}not JSON: {error}")) from None


def _samples(decoded: Any) -> Sequence[Sample]:
    if isinstance(decoded, Sample):
        return (decoded,)
    return decoded.samples or ()


def _read_inputs(sample: Sample) -> None:
    """Each event's input (``_LoggedEvent``: its JSON text) as the values the general decode gives, each message
    decoded once: a model event's input that is the last one's messages and more (its text starts with theirs) is
    given the last one's objects, then its new messages, as ``_resolve`` finds and resolves them once.

    Raises msgspec's error where a text holds what the general decode refuses (the decoder that skipped it checks
    its JSON's shape, not its strings' UTF-8 nor its numbers' range): ``_decode`` then decodes the log again.
    """
    before = memoryview(b"")  # the text of the last model event's input of messages, up to its last message's end
    given: list[Any] = []  # its messages
    for event in sample.events:
        logged = event.input
        if not isinstance(logged, msgspec.Raw):  # read already
            continue
        if logged is NO_INPUT:
            event.input = None
            continue
        text = bytes(logged)
        rest = text[len(before) :].lstrip() if given and text.startswith(before) else b""
        if rest == b"]":
            values = [*given]
        elif rest.startswith(b","):
            values = [*given, *_VALUES.decode(b"[" + rest[1:])]
        else:
            values = [] if text == b"[]" else _VALUES.decode(text)  # [] where the pool holds them (an .eval)
        event.input = values
        if event.event == "model" and isinstance(values, list) and values:
            end = len(text) - 1  # a list's text ends with its "]"
            while text[end - 1] in _BLANK:
                end -= 1
            before, given = memoryview(text)[:end], values


_BLANK = b" \t\n\r"
"""The characters JSON allows between its values."""


def _field_path(message: str) -> str:
    """msgspec's ``Expected ..., got ... - at `$.samples[0].epoch``` as ``samples[0].epoch: Expected ...``."""
    said, _, at = message.partition(" - at `$")
    return f"{at.rstrip('`').lstrip('.')}: {said}" if at else said


def _check_header(log: Log) -> None:
    if log.version != LOG_VERSION:
        raise NeedsInspect(f"version {log.version} of Inspect's log format")
    if not log.eval.eval_id:
        raise NeedsInspect("a log older than eval_id, which Inspect's reader composes from its run")


def _resolve(sample: Sample, path: str) -> None:
    """Read back the sample's attachments, and its raw calls' references into its pool of calls, as Inspect's reader
    does; its events' inputs are read from its pool of messages (attachments read back) when asked (``input_of``),
    and their tools from their JSON text (``tools_of``)."""
    if sample.score is not None or sample.transcript is not None:
        raise NeedsInspect("a sample of an older layout (score or transcript), which Inspect's reader migrates")
    resolve = _Resolver(sample.attachments)
    pools = sample.events_data
    pool = pools.messages if pools is not None else []
    calls = pools.calls if pools is not None else []
    sample.messages = [resolve.message(m) for m in sample.messages]
    pool = [resolve.message(m) for m in pool]
    given: list[Any] = []  # the last input the log holds whole, as it holds it, and as resolved
    resolved: list[Any] = []
    for event in sample.events:
        if event.event != "model":
            continue
        if isinstance(event.input, list) and event.input:  # empty where it refers to the pool
            # An agent's input is the one before and more: what it shares with it (equal values, compared in C) is
            # resolved already, and is given the same objects, as the inputs an .eval keeps in its pool are.
            shared = len(given) if event.input[: len(given)] == given else 0
            given, resolved = event.input, [*resolved[:shared], *map(resolve.message, event.input[shared:])]
            event.input = resolved
        if type(event.output) is Output:
            event.output = resolve.typed_output(event.output)
        elif isinstance(event.output, dict):  # the general decode's
            event.output = resolve.output(event.output)
        if calls and isinstance(event.call, dict) and event.call.get("call_refs"):
            event.call = _with_call_messages(event.call, calls)
    sample.events_data = EventsData(messages=pool) if pool else None


def _expand(refs: list[list[int]], pool: list[Any]) -> list[Any]:
    """Range references (``[start, end)``) into a pool as its items, sliced as Inspect's ``_expand_refs`` does."""
    if len(refs) == 1:  # an agent's input is most often the pool's first messages: one slice, in C
        start, end = refs[0]
        return pool[start:end]
    return [item for start, end in refs for item in pool[start:end]]


def _with_call_messages(call: dict[str, Any], calls: list[Any]) -> dict[str, Any]:
    """A raw call whose request's messages are references into the pool of calls, with them put back."""
    request = dict(call.get("request") or {})
    request[call.get("call_key") or "messages"] = _expand(call["call_refs"], calls)
    out = {"request": request, **call}  # the request first, then the call's other fields in their order
    out["request"] = request
    del out["call_refs"]
    out.pop("call_key", None)
    return out


class _Resolver:
    """``attachment://<hash>`` texts read back from a sample's attachments, in the fields Inspect's
    ``resolve_sample_attachments`` walks (``inspect_ai/log/_condense.py``); what holds none is kept, not copied."""

    def __init__(self, attachments: dict[str, str]) -> None:
        self._attachments = attachments

    def text(self, text: Any) -> Any:
        if not (isinstance(text, str) and text.startswith(_REFERENCES)):
            return text
        if text.startswith(_OLD_ATTACHMENT):  # Inspect reads it as attachment://
            text = ATTACHMENT + text[len(_OLD_ATTACHMENT) :]
        return self._attachments.get(text[len(ATTACHMENT) :], text)

    def json(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {key: self.json(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.json(item) for item in value]
        return value

    def message(self, message: dict[str, Any]) -> dict[str, Any]:
        if "tool_error" in message:  # ChatMessageTool.convert_tool_error_to_error
            raise NeedsInspect("a tool message's tool_error, which Inspect's reader migrates")
        content = message.get("content")
        if isinstance(content, str):
            if not content.startswith(_REFERENCES):
                return message
            out = {**message, "content": self.text(content)}
        elif isinstance(content, list):
            out = {**message, "content": [self.content(item) for item in content]}
            calls = message.get("tool_calls")
            if message.get("role") == "assistant" and isinstance(calls, list):
                out["tool_calls"] = [self.tool_call(call) for call in calls]
        else:
            out = message
        return out

    def tool_call(self, call: Any) -> Any:
        if not isinstance(call, dict):
            return call
        out = {**call, "arguments": self.json(call.get("arguments"))} if "arguments" in call else dict(call)
        view = call.get("view")
        if isinstance(view, dict) and view.get("content"):
            out["view"] = {**view, "content": self.text(view["content"])}
        return out

    def content(self, item: Any) -> Any:
        if not isinstance(item, dict):
            return item
        kind = item.get("type")
        if kind == "document":  # ContentDocument.set_name_and_mime_type gives it a file name from its data
            raise NeedsInspect("a document, whose file name Inspect's reader sets")
        fields = _CONTENT_FIELDS.get(kind)
        if fields is None:
            return item
        out = dict(item)
        for key, walk in fields:
            if key in out and out[key] is not None:
                out[key] = walk(self, out[key])
        return out

    def tool(self, tool: Any) -> Any:
        description = tool.get("description") if isinstance(tool, dict) else None
        resolved = self.text(description)
        return tool if resolved is description else {**tool, "description": resolved}

    def output(self, output: dict[str, Any]) -> dict[str, Any]:
        choices = output.get("choices")
        if not isinstance(choices, list):
            return output
        walked = [self.choice(choice) for choice in choices]
        return output if all(map(operator.is_, walked, choices)) else {**output, "choices": walked}

    def typed_output(self, output: Output) -> Output:
        """``output`` as ``output`` reads back a JSON output's attachments: in each reply's content, and in its tool
        calls' arguments where its content is a list (``message``); the same struct where it holds none."""
        choices = output.choices
        if not choices:
            return output
        walked = [self.typed_choice(choice) for choice in choices]
        return output if all(map(operator.is_, walked, choices)) else msgspec.structs.replace(output, choices=walked)

    def typed_choice(self, choice: Choice) -> Choice:
        message = choice.message
        if message is None:
            return choice
        content = message.content
        if isinstance(content, str):
            if not content.startswith(_REFERENCES):
                return choice
            resolved = msgspec.structs.replace(message, content=self.text(content))
        elif isinstance(content, list):
            calls = message.tool_calls
            if message.role == "assistant" and calls is not None:
                calls = [msgspec.structs.replace(call, arguments=self.json(call.arguments)) for call in calls]
            resolved = msgspec.structs.replace(message, content=[self.content(i) for i in content], tool_calls=calls)
        else:
            return choice
        return msgspec.structs.replace(choice, message=resolved)

    def choice(self, choice: Any) -> Any:
        message = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(message, dict):
            return choice
        resolved = self.message(message)
        return choice if resolved is message else {**choice, "message": resolved}


_Walk = Callable[[_Resolver, Any], Any]

# The fields of each kind of content Inspect's ``walk_content`` resolves, and how.
_CONTENT_FIELDS: dict[Any, tuple[tuple[str, _Walk], ...]] = {
    "text": (("text", _Resolver.text),),
    "reasoning": (("reasoning", _Resolver.text),),
    "image": (("image", _Resolver.text),),
    "audio": (("audio", _Resolver.text),),
    "video": (("video", _Resolver.text),),
    "tool_use": (("arguments", _Resolver.json), ("result", _Resolver.json), ("error", _Resolver.text)),
    "data": (("data", _Resolver.json),),
}
