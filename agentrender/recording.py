"""Record an agent built on the Anthropic SDK: each Messages API call, written to a run file as it is made.

    import anthropic, agentrender

    client = agentrender.record(anthropic.Anthropic(), "run.jsonl")
    ...  # the agent, unchanged, calls client.messages.create / client.messages.stream
    run = agentrender.imports.load("run.jsonl")  # its steps, model calls and what was sent

``record(client, path)`` wraps an ``anthropic.Anthropic`` or ``anthropic.AsyncAnthropic``
client (the client itself: a resource of it, such as ``client.beta``, is refused). Its
``messages.create`` (``stream=True`` and ``with_raw_response`` too) and ``messages.stream``
(sync and async), and ``beta.messages``' the same way, write one record per call, flushed when the call
ends, through ``RunWriter``: a process killed mid-run leaves every completed call
readable. The file is a run file
(``agentrender.run/2``): a ``run`` header whose ``source.format`` is ``anthropic-record``,
then per call

- ``model_call``: ``step`` (how many assistant turns the request's messages hold before a prefill),
  ``request`` (the JSON body as the SDK sent it over HTTP, with the beta features the call asked for, its
  ``anthropic-beta`` header, as ``betas``: as ``beta.messages.create`` takes them; an import keeps them beside the
  body, in the call's entry of the run's ``source.entries``), ``response`` (the ``Message``
  as JSON, the fields the API gave), ``latency_ms``;
- ``model_call_error``: a call that gave no complete reply (an API error, a dropped
  connection, a stream left before its end): ``step``, ``request``, ``error`` (``type``,
  ``message``, ``status`` and ``body`` for an HTTP error, ``cause`` for an exception raised from another,
  as the SDK's ``APIConnectionError`` is from what failed; ``incomplete`` for a stream that
  ended early, ``left`` for one the agent stopped reading outside a ``with`` block, the
  exception that left the block; one it dropped unread is ``left`` too), ``latency_ms``, and the part of
  a streamed reply that arrived, as ``partial``; ``"sent": false`` for a call never sent (the SDK's own ``TypeError``
  or ``ValueError`` for the arguments, a middleware of the agent's that raised before the request
  went out), whose ``request`` is the body its arguments make. The error itself is raised unchanged.

and, last, the ``end`` it was closed with (``"status": "closed"``; the header's ``source`` says ``"writes_end": true``):
a recording without one was cut short, and its import says so.

The SDK's retries happen inside a call: ``latency_ms`` counts them all, and both records hold, as
``retried``, each HTTP try before the last, which failed and the SDK tried again: ``at_ms`` (when it
began, after the call began), ``latency_ms`` and its ``error`` (as a call's); of a call interrupted as the SDK
waited to try again, every try, the interruption being the call's error. The recorder sees each try
through a middleware of its own, the last of the client's, nearest the wire, and what the agent's middleware
made of it through another, the first (the recorded calls are made on a copy of the client with them): a try
a middleware of the agent's turned into its own exception is the call's last when the SDK did not try again,
one of ``retried`` when it did. That is also how it tells a call sent, then
failed by a middleware of the agent's (recorded as sent, its ``request`` the body that went out), from
one refused before any try. A client whose class has no ``with_middleware`` (an SDK before middleware)
shows the recorder its last try alone: ``retried`` then holds an empty object for each try before it, as
many as the retry count the SDK sent with it (``x-stainless-retry-count``); of a call interrupted as such an SDK
waited to try again, the try that failed is the exception it was handling, the interruption's context: ``retried``
holds an empty object for each try before that one, then that one's ``error``. Where the recorder cannot know how
many tries there were (such an SDK that sends no retry count, an older one; a call of it interrupted as a try went
out, where nothing says an earlier one failed), the record says ``"tries_known": false``. A call raising an
exception that holds no HTTP request is taken for one refused before sending (such an SDK wraps what
fails as it sends in an error that holds it).

Everything else on the client passes through unchanged; ``with_options``, ``copy`` and
``with_middleware`` give a client recorded to the same file. ``messages.with_raw_response.create`` (and the
client's ``with_raw_response.messages.create``) is recorded as ``create`` is, and so is ``beta.messages.parse``
(and its ``with_raw_response.parse``), from the SDK's raw response of it. These calls are the client's own, made
and answered as without the recorder, and not recorded (docs/runfile.md says why of each): ``messages.parse`` (the
SDK gives no raw response of it), ``with_streaming_response``, ``beta.messages.tool_runner`` and ``thread``, and
``messages.batches`` and ``count_tokens`` (no reply to a call).

This module imports no third-party package: it works on the client it is given, so
``import agentrender`` needs nothing but msgspec and ``agentrender.record`` is a plain name.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import gzip
import inspect
import json
import os
import sys
import tempfile
import threading
import time
import warnings
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from contextvars import ContextVar
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar, cast

from agentrender._api_rules import step_decided
from agentrender._display.said import WRITES_END
from agentrender._stream import StreamedReply
from agentrender.runfile import FORMAT_SENT, RunWriter
from agentrender.runfile.lines import GZIP_MAGIC, StreamError, decode_line, gzip_lines

__all__ = ["MODEL_CALL_ERROR", "SOURCE_FORMAT", "record"]

SOURCE_FORMAT = "anthropic-record"
"""The ``source.format`` of a recording's run header."""
MODEL_CALL_ERROR = "model_call_error"
"""The record type of a call that gave no complete reply."""
CLOSED = "closed"
"""The ``status`` of a recording's ``end`` record: the recorded client was closed, or its process exited."""

ClientT = TypeVar("ClientT")

# The ``error`` of a call that raised nothing: a stream that ended early, a reply that could not be kept as one.
_INCOMPLETE: Mapping[str, str] = {
    "type": "incomplete",
    "message": "the stream ended before the reply was complete (no stop reason arrived)",
}
# The ``error`` of a stream the agent stopped reading before its end, out of a ``with`` block that would say why.
_LEFT: Mapping[str, str] = {
    "type": "left",
    "message": "the agent stopped reading the stream before its end (a break, a close, an exception in its loop)",
}

# What the SDK's methods take besides the request's body: options of the HTTP call, not sent as JSON.
_REQUEST_OPTIONS = ("extra_headers", "extra_query", "extra_body", "timeout")
# The SDK's values for a parameter left out (``NOT_GIVEN``, ``omit``): the SDK sends no such key.
_NOT_SENT = ("NotGiven", "Omit")


def record(
    client: ClientT,
    path: str | os.PathLike[str],
    *,
    run_id: str | None = None,
    compress: bool | None = None,
    append: bool = False,
) -> ClientT:
    """A client that works as ``client`` does and writes each Messages API call it makes to the run file ``path``.

    ``client`` is an ``anthropic.Anthropic`` or ``anthropic.AsyncAnthropic`` (or a client with the same
    ``messages`` resource and ``with_options``); anything else, a resource of a client such as
    ``client.beta`` among them, is a ``TypeError`` naming what it got. The file is created now
    (replacing one already there; its folder must exist: a ``FileNotFoundError`` names one that does not), holding
    its header; ``run_id`` defaults to the file's name without
    its extensions, ``compress`` to whether the name ends in ``.gz`` in any case. ``append=True`` goes on with the
    recording already at ``path`` (an agent resumed in a new process): its header and calls are kept, and the calls
    made now are written after them (the ``end`` record it was closed with removed, as the recording goes on; a gzip
    recording a killed process left, its stream without its end, is first written again whole, its lines as they
    were); a file that is no recording, or whose last line a killed process
    cut short, or another ``run_id`` or ``compress`` than the recording's, is a ``ValueError`` naming the file and
    line, and the file is left as it was. No file there, or an empty one, is a new recording. Closing the client (or
    leaving its ``with`` block) closes the file: a call that ends after it (a reply or an error that comes once
    another thread or task of the agent's closed the client, a stream the agent reads, closes, or lets go of then) is
    not recorded, and a ``RuntimeWarning`` names it; the agent gets its reply or the SDK's error all the same. The
    file's last record is then an ``end`` (``status`` ``"closed"``), written too when the process exits without
    closing the client: a recording without one was cut short (its process killed) or is still being written, and
    its import says so. The
    client returned is typed as the one given, to keep the agent's code checked as it was, but it is a wrapper:
    ``isinstance`` against the SDK's classes is false for it.
    """
    messages = getattr(client, "messages", None)
    if not callable(getattr(messages, "create", None)) or not callable(getattr(client, "with_options", None)):
        # a resource of a client (client.beta, client.messages) has no with_options: the client is what is recorded
        raise TypeError(
            f"record() takes an Anthropic SDK client (anthropic.Anthropic or anthropic.AsyncAnthropic, with "
            f"messages.create and with_options), got {type(client).__name__}: pass the client itself, "
            "record(client, path), whose messages and beta.messages calls are both recorded"
        )
    recorder = _Recorder(client, path, run_id=run_id, compress=compress, append=append)
    return cast(ClientT, _RecordedClient(client, recorder))


class _Recorder:
    """The run file of one recording, shared by the client and the clients made from it."""

    def __init__(
        self, client: Any, path: str | os.PathLike[str], *, run_id: str | None, compress: bool | None, append: bool
    ) -> None:
        create = inspect.unwrap(client.messages.create)
        self.is_async = inspect.iscoroutinefunction(create)
        # Reentrant: a stream Python finalises as this thread writes (the garbage collector runs where the writer
        # allocates) writes its record then, before the one being written, where a lock would wait for itself.
        self.lock = threading.RLock()
        self.closed = False
        gone_on = _gone_on(os.fspath(path), run_id, compress) if append else None
        if gone_on is not None:
            self.writer = RunWriter(path, append=True, compress=gone_on)
        else:
            self.writer = RunWriter(path, compress=compress)
            name = Path(os.fspath(path)).name
            source: dict[str, Any] = {"format": SOURCE_FORMAT, "client": type(client).__name__, WRITES_END: True}
            sdk = _sdk_version(client)
            if sdk:
                source["sdk_version"] = sdk
            self.writer.header(
                run_id=run_id or name.split(".")[0] or name,
                format=FORMAT_SENT,
                started_at=_now(),
                source=source,
            )
        # a process that exits without closing the client closes the recording (a killed one cannot): weakly, so that
        # the recorder of a client let go of is not kept until then; a child forked from it leaves it to the parent.
        # Only once the file is open: a recording refused above (no folder, append=True refused) has nothing to close
        self.at_exit = functools.partial(_close_at_exit, weakref.ref(self), os.getpid())
        atexit.register(self.at_exit)

    def call(
        self,
        request: Mapping[str, Any],
        response: Mapping[str, Any],
        started: float,
        tries: _Tries | None = None,
        where: _Line | None = None,
    ) -> None:
        entry = {
            "type": "model_call",
            "step": step_decided(request.get("messages")),
            "latency_ms": _elapsed(started),
            "response": dict(response),
            "request": dict(request),
        }
        _retried(entry, tries)
        try:
            if not self.write(entry):
                self.lost(request, response, where)
        except ValueError as error:
            # A reply the run file's checks refuse (a block missing a field it must have) is
            # still the agent's reply: it is kept, as a call the reader can see and warn of.
            problem = {"type": "unrecordable", "message": f"the reply could not be recorded as a model call: {error}"}
            self.failure(request, problem, started, response, tries=tries, where=where)

    def failure(
        self,
        request: Mapping[str, Any],
        error: BaseException | Mapping[str, str],
        started: float,
        partial: Mapping[str, Any] | None = None,
        *,
        sent: bool = True,
        tries: _Tries | None = None,
        where: _Line | None = None,
    ) -> None:
        entry: dict[str, Any] = {
            "type": MODEL_CALL_ERROR,
            "step": step_decided(request.get("messages")),
            "latency_ms": _elapsed(started),
            "request": dict(request),
            "error": _error(error),
        }
        if partial is not None:
            entry["partial"] = dict(partial)
        if not sent:
            entry["sent"] = False
        _retried(entry, tries, error if isinstance(error, BaseException) else None)
        if not self.write(entry):
            self.lost(request, partial, where)

    def unanswered(self, params: Mapping[str, Any], error: BaseException, started: float, tries: _Tries) -> None:
        """Record a call the SDK raised ``error`` for before it gave a response: sent, or refused before sending.

        Where the recorder's middleware watched the call's HTTP tries, it was sent when one of them
        was (an error raised after a response arrived, by a middleware of the agent's, holds no HTTP
        request); else the error tells (``_refused``).
        """
        if tries.watched:
            request = _sent(tries.request or _http_request(error), params)
            self.failure(request, error, started, sent=tries.sent, tries=tries)
        else:
            tries.request = _http_request(error)
            self.failure(_sent_by_error(error, params), error, started, sent=not _refused(error), tries=tries)

    def lost(self, request: Mapping[str, Any], reply: Mapping[str, Any] | None, where: _Line | None = None) -> None:
        """Warn that a call, of ``request`` and the ``reply`` (or the part of it) that arrived, ended once the recording
        was closed, and is not in it: the agent has its reply (or the SDK's error, or its stream's end) all the same.
        The warning is given at ``where``, the agent's line that opened a stream, else at the agent's line running."""
        what = [f"step {step_decided(request.get('messages'))}"]
        model = (reply or {}).get("model", request.get("model"))
        what += [f"model {model}"] if isinstance(model, str) else []
        what += [f"id {reply_id}"] if isinstance(reply_id := (reply or {}).get("id"), str) else []
        text = (
            f"{self.writer.path}: a model call ({', '.join(what)}) ended after the recording was closed, and is not "
            "recorded: close the recorded client once the agent's calls have returned and its streams are read or "
            "closed"
        )
        where = where or _agents_line()
        if where is None:  # no line of Python's at all
            warnings.warn(text, RuntimeWarning, stacklevel=1)
            return
        filename, line, module = where
        registry = module.setdefault("__warningregistry__", {})
        warnings.warn_explicit(
            text, RuntimeWarning, filename, line, module.get("__name__"), registry, module_globals=module
        )

    def write(self, entry: Mapping[str, Any]) -> bool:
        """Write ``entry`` to the run file; ``False`` when the recording is closed, and nothing is written."""
        with self.lock:
            if self.closed:
                return False
            self.writer.write(entry)
            return True

    def close(self, reason: str = "the agent closed the recorded client") -> None:
        """Close the recording, its last record an ``end`` saying ``reason`` (the first close writes it)."""
        with self.lock:
            was_closed, self.closed = self.closed, True
            try:
                if not was_closed:
                    atexit.unregister(self.at_exit)
                    self.writer.write({"type": "end", "status": CLOSED, "reason": reason, "at": _now()})
            finally:
                self.writer.close()


def _close_at_exit(recorder: weakref.ref[_Recorder], pid: int) -> None:
    """Close the recording of ``recorder`` (if it is still there) as its process, ``pid``, exits."""
    if (alive := recorder()) is not None and os.getpid() == pid:
        alive.close("the agent's process exited without closing the recorded client")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


_Line = tuple[str, int, dict[str, Any]]
"""A line of the agent's: its file, its number and its module's globals (where a warning of it is registered)."""


def _agents_line() -> _Line | None:
    """The agent's line running, the first frame out of this module: where a warning of a call names it, and kept by a
    stream as the line that opened it, to name it in a warning given as the stream ends where no line of the agent's
    runs (the garbage collector)."""
    frame = inspect.currentframe()
    while frame is not None and frame.f_globals.get("__name__") == __name__:
        frame = frame.f_back
    return None if frame is None else (frame.f_code.co_filename, frame.f_lineno, frame.f_globals)


def _gone_on(path: str, run_id: str | None, compress: bool | None) -> bool | None:
    """Whether the recording at ``path`` that ``append=True`` goes on with is compressed; ``None`` when there is none
    yet (no file, or an empty one). Raises ``ValueError`` naming the file and line for one that cannot be gone on with.

    A gzip recording whose stream ends early (its writer killed: each record is flushed, the stream's end is written
    when it closes) is written again whole, its lines as they were, so that the calls written now follow a stream
    that ends.
    """
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return None
    with open(path, "rb") as file:
        compressed = file.read(2) == GZIP_MAGIC
        file.seek(0)
        notes: list[str] = []
        try:
            lines = list(gzip_lines(file, notes)) if compressed else file.read().splitlines(keepends=True)
        except StreamError as error:
            raise ValueError(
                f"{path}:1: append=True cannot go on with it: its gzip stream is corrupt ({error})"
            ) from None
    first = next((line for line in lines if line.strip()), None)
    if first is None:
        return None
    try:
        header = decode_line(first.decode("utf-8"))
    except ValueError:
        header = None
    source = header.get("source") if isinstance(header, dict) and header.get("type") == "run" else None
    if not isinstance(source, dict) or source.get("format") != SOURCE_FORMAT:
        raise ValueError(
            f"{path}:1: append=True goes on with a recording agentrender.record wrote (its header's source.format "
            f"{SOURCE_FORMAT!r}), and this file is none: record to another file, or leave append out to replace it"
        )
    if run_id is not None and run_id != header.get("run_id"):
        raise ValueError(
            f"{path}:1: the recording's run_id is {header.get('run_id')!r}, not {run_id!r}: append=True keeps the "
            "recording's header; leave run_id out"
        )
    if compress is not None and compress != compressed:
        raise ValueError(
            f"{path}:1: the recording is {'' if compressed else 'not '}gzip-compressed, and compress={compress!r} "
            "would write another kind of line after its own: leave compress out"
        )
    if not lines[-1].endswith(b"\n"):
        raise ValueError(
            f"{path}:{len(lines)}: the recording's last line is cut short ({len(lines[-1]):,} bytes, no newline), as "
            "a process killed while writing it leaves it: append=True would bury it inside the file, where an import "
            "stops; remove that line (the calls before it stand), or record to another file"
        )
    closed = _is_end(lines[-1])  # the end the recording was closed with: it goes on, so that was not its end
    if closed and not compressed:
        os.truncate(path, os.path.getsize(path) - len(lines[-1]))
    elif notes or closed:  # a stream with no end (what follows it would not be read), or with the end record
        folder = os.path.dirname(os.path.abspath(path))
        with (
            tempfile.NamedTemporaryFile(dir=folder, delete=False) as kept,
            gzip.GzipFile(filename="", mode="wb", fileobj=kept, mtime=0) as stream,
        ):
            stream.writelines(lines[:-1] if closed else lines)
        os.replace(kept.name, path)
    return compressed


def _is_end(line: bytes) -> bool:
    """Whether ``line`` is an ``end`` record (a recording's last, written as it was closed)."""
    try:
        record = decode_line(line.decode("utf-8"))
    except ValueError:
        return False
    return isinstance(record, dict) and record.get("type") == "end"


def _sdk_version(client: Any) -> str:
    package = sys.modules.get(type(client).__module__.partition(".")[0])
    return str(getattr(package, "__version__", "") or "")


def _elapsed(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


class _Tries:
    """The HTTP tries the SDK made for one recorded call, as the recorder's middleware saw them (``watched``: the
    client's SDK has middleware, and the recorder's are the last, nearest the wire, and the first, inside the SDK's
    retry loop)."""

    __slots__ = ("handling", "raised", "reached", "request", "sent", "started", "tries", "watched")

    def __init__(self, started: float, watched: bool) -> None:
        self.started = started
        self.watched = watched
        self.tries: list[dict[str, Any]] = []
        self.sent = False  # one of the tries went out (a response came, or an error holding its HTTP request)
        self.request: Any = None  # the HTTP request of the last try that went out (of the reply, for an SDK without
        # middleware, as the SDK gives it)
        # What the client's middleware made of the last try, as the recorder's first one saw it: the exception it
        # raised (the SDK's error of the try, or one a middleware of the agent's raised in its place), none for a
        # response; and whether that try reached the wire (a middleware of the agent's may refuse it before).
        self.raised: BaseException | None = None
        self.reached = True
        # The exception the agent was handling as it made the call: an interruption's context, not one of its tries.
        self.handling = sys.exc_info()[1]

    def begun(self) -> float:
        return time.perf_counter()

    def answered(self, begun: float, response: Any, status_error: Callable[[Any], BaseException] | None) -> None:
        """A try the server answered: ``response`` is its HTTP response, whose body is read when its status failed."""
        self.sent = True
        self.request = getattr(response, "request", None)
        status = int(response.status_code)
        done: dict[str, Any] = {"at_ms": self._at(begun), "latency_ms": _elapsed(begun)}
        if status >= 400:
            done["error"] = _status_error(response, status_error)
        else:  # a try that did not fail: a middleware of the agent's tried again
            done["status"] = status
        self.tries.append(done)

    def failed(self, begun: float, error: BaseException) -> None:
        """A try that raised ``error``: no response (a connection that failed, a timeout, an interruption)."""
        if not _refused(error):
            self.sent = True
            self.request = _http_request(error) or self.request
        self.tries.append({"at_ms": self._at(begun), "latency_ms": _elapsed(begun), "error": _error(error)})

    def _at(self, begun: float) -> float:
        return round((begun - self.started) * 1000, 3)

    def retried(self, error: BaseException | None = None) -> tuple[list[dict[str, Any]], bool]:
        """The tries before the last, which failed and were tried again, and whether the recorder knows how many there
        were. Of an SDK without middleware, which shows none of them, an empty object for each try the retry count
        it sent with the last (``request``) says went before: their count is not known where it sent none (an older
        SDK), or where the call was interrupted holding no request (as it was sent: it may have been a later try). A
        call that raised ``error`` once its last try had failed with another (a Ctrl-C as the SDK waited to try
        again) gave up after that try: it is one of them."""
        if self.watched:
            if not self.reached or (error is not None and not self._gave(error)):
                return self.tries, True
            return self.tries[:-1], True
        waited = self._waited(error)
        if waited is not None:  # each try up to the one that failed, which the SDK waited to try again
            before = _retry_count(_http_request(waited))
            return [{} for _ in range(before or 0)] + [{"error": _try_error(waited)}], before is not None
        if self.request is None:  # no try went out (refused: none was made), or nothing holds the request it sent
            return [], error is not None and _refused(error)
        before = _retry_count(self.request)
        return [{} for _ in range(before or 0)], before is not None

    def _waited(self, error: BaseException | None) -> BaseException | None:
        """Of an SDK without middleware, the error of the try that failed as the call was interrupted by ``error``
        (a Ctrl-C, a cancelled task) holding no HTTP request: the exception the SDK was handling then, as it
        waited to try again, found in ``error``'s context (up to the one the agent was handling as it called)."""
        if error is None or _http_request(error) is not None:
            return None
        seen = error.__context__
        for _ in range(8):
            if seen is None or seen is self.handling:
                return None
            if _http_request(seen) is not None:
                return seen
            seen = seen.__context__
        return None

    def ended(self, before: int, raised: BaseException | None) -> None:
        """The client's middleware gave the SDK what it made of a try (``raised``, or a response), when ``before``
        tries had reached the wire: the SDK tries again, or ends the call with it."""
        self.raised = raised
        self.reached = len(self.tries) > before

    def _gave(self, error: BaseException) -> bool:
        """Whether ``error``, what the call raised, came of its last try: the exception the client's middleware raised
        of it (the SDK's error of the try, or an agent's own in its place; or one raised from it), a try that did not
        fail, or an error of the status it was answered with."""
        if self.raised is None:  # answered: a failed status the SDK raises as an error of that status
            if not self.tries or "error" not in self.tries[-1]:
                return True
            status: Any = self.tries[-1]["error"].get("status")
            return status is not None and getattr(error, "status_code", None) == status
        seen: BaseException | None = error
        for _ in range(8):  # an error raised from the try's; not one raised while handling it (a Ctrl-C in the wait)
            if seen is None or seen is self.raised:
                break
            seen = seen.__cause__
        return seen is self.raised


def _retry_count(http_request: Any) -> int | None:
    """How many tries went before ``http_request``, as the retry count the SDK sent with it says (``None`` when it does
    not say: an SDK that sends none)."""
    try:
        count = http_request.headers.get("x-stainless-retry-count")
        return None if count is None else int(count)
    except (AttributeError, TypeError, ValueError):
        return None


def _try_error(error: BaseException) -> dict[str, Any]:
    """The error of a try that failed, from the exception the SDK handled for it: a response of a failed status
    (httpx's error of it, where an SDK before middleware waits to try again), else the exception itself."""
    response = getattr(error, "response", None)
    status = getattr(response, "status_code", None)
    if isinstance(status, int) and status >= 400 and getattr(error, "status_code", None) is None:
        return _status_error(response, None)
    return _error(error)


def _status_error(response: Any, status_error: Callable[[Any], BaseException] | None) -> dict[str, Any]:
    """The error a response of a failed status is, as the SDK raises it (its ``APIStatusError`` for the status)."""
    if status_error is not None:
        with contextlib.suppress(Exception):  # an SDK that words it otherwise: the status and the body say it
            return _error(status_error(response))
    out: dict[str, Any] = {"type": f"HTTP {response.status_code}", "message": "", "status": int(response.status_code)}
    with contextlib.suppress(Exception):
        out["body"] = json.loads(response.content)
    return out


# The recorded call this thread or task is making, whose HTTP tries the recorder's middleware notes.
_CALL: ContextVar[_Tries | None] = ContextVar("agentrender_recorded_call", default=None)


def _retried(entry: dict[str, Any], tries: _Tries | None, error: BaseException | None = None) -> None:
    """``entry`` with the tries before its last, which failed and the SDK retried, as ``retried``: none when none;
    and ``"tries_known": false`` where the recorder cannot know how many there were. ``error`` is what the call raised,
    for one that gave no reply."""
    retried, known = tries.retried(error) if tries is not None else ([], True)
    if retried:
        entry["retried"] = retried
    if not known:
        entry["tries_known"] = False


def _watching(client: Any, is_async: bool) -> tuple[Any, bool]:
    """``client`` with the recorder's middleware last, nearest the wire, and first, seeing what the client's own
    middleware made of each try, and True; ``client`` and False where its class has no ``with_middleware`` (an SDK
    without middleware, an object standing in for a client)."""
    try:
        inspect.getattr_static(client, "with_middleware")
        own = list(client.middleware)  # the copy made below puts the recorder's around these
    except (AttributeError, TypeError):
        return client, False
    status_error = getattr(client, "_make_status_error_from_response", None)
    if not callable(status_error):
        status_error = None

    def watch(request: Any, call_next: Callable[[Any], Any]) -> Any:
        tries = _CALL.get()
        if tries is None:
            return call_next(request)
        begun = tries.begun()
        try:
            response = call_next(request)
            http = response.http_response
            if http.status_code >= 400:
                http.read()  # a streamed call's error body: the SDK reads it too, or closes it to retry
        except BaseException as error:
            tries.failed(begun, error)
            raise
        tries.answered(begun, http, status_error)
        return response

    async def watch_async(request: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        tries = _CALL.get()
        if tries is None:
            return await call_next(request)
        begun = tries.begun()
        try:
            response = await call_next(request)
            http = response.http_response
            if http.status_code >= 400:
                await http.aread()
        except BaseException as error:
            tries.failed(begun, error)
            raise
        tries.answered(begun, http, status_error)
        return response

    def first(request: Any, call_next: Callable[[Any], Any]) -> Any:
        tries = _CALL.get()
        if tries is None:
            return call_next(request)
        before = len(tries.tries)
        try:
            response = call_next(request)
        except BaseException as error:
            tries.ended(before, error)
            raise
        tries.ended(before, None)
        return response

    async def first_async(request: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        tries = _CALL.get()
        if tries is None:
            return await call_next(request)
        before = len(tries.tries)
        try:
            response = await call_next(request)
        except BaseException as error:
            tries.ended(before, error)
            raise
        tries.ended(before, None)
        return response

    middleware = [first_async, *own, watch_async] if is_async else [first, *own, watch]
    return client.copy(middleware=middleware), True


def _error(error: BaseException | Mapping[str, str]) -> dict[str, Any]:
    if isinstance(error, Mapping):
        return dict(error)
    out: dict[str, Any] = {"type": type(error).__name__, "message": str(error)}
    status = getattr(error, "status_code", None)
    if isinstance(status, int):
        out["status"] = status
    body = getattr(error, "body", None)
    if body is not None:
        out["body"] = _jsonable(body)
    cause = error.__cause__
    if cause is not None:  # what the SDK wrapped: a connection refused, an exception of an httpx event hook
        out["cause"] = f"{type(cause).__name__}: {cause}"
    return out


def _jsonable(value: Any) -> Any:
    """``value`` as JSON data: SDK models as the SDK sends them, other objects by their text."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, Mapping):
        return {str(key): _jsonable(item) for key, item in value.items() if not _not_sent(item)}
    if isinstance(value, list | tuple):
        return [_jsonable(item) for item in value]
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json", exclude_unset=True)
    return repr(value)


def _not_sent(value: Any) -> bool:
    """Whether ``value`` is the SDK's mark of a parameter left out (the recorder imports no SDK to compare it)."""
    return type(value).__name__ in _NOT_SENT


def _message_json(message: Any) -> dict[str, Any]:
    """A ``Message`` as JSON: the fields the API gave (none of the SDK's defaults for what it left out)."""
    return cast(dict[str, Any], message.model_dump(mode="json", exclude_unset=True))


def _sent(http_request: Any, params: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON body of ``http_request`` as it went over the wire, with the beta features it asked for as ``betas``
    (as ``client.beta.messages.create`` takes them), or ``params`` as JSON when it cannot be read."""
    try:
        body = json.loads(http_request.content)
    except (AttributeError, TypeError, ValueError):
        body = None
    if not isinstance(body, dict):
        return _body_of(params)
    betas = _betas(http_request)
    if betas:
        body["betas"] = betas
    return body


def _betas(http_request: Any) -> list[str]:
    """The beta features ``http_request`` asked for: its ``anthropic-beta`` header, which the SDK's ``betas`` sets."""
    try:
        header = http_request.headers.get("anthropic-beta")
    except AttributeError:
        return []
    return [beta.strip() for beta in str(header or "").split(",") if beta.strip()]


def _body_of(params: Mapping[str, Any]) -> dict[str, Any]:
    """The body ``params`` make, when the bytes sent cannot be read: the parameters, with ``extra_body`` merged."""
    body = {
        key: _jsonable(value) for key, value in params.items() if key not in _REQUEST_OPTIONS and not _not_sent(value)
    }
    extra = params.get("extra_body")
    if isinstance(extra, Mapping):
        body.update(_jsonable(extra))
    return body


def _sent_by_error(error: BaseException, params: Mapping[str, Any]) -> dict[str, Any]:
    """The body sent in the call that raised ``error`` (the SDK's errors keep their HTTP request)."""
    return _sent(_http_request(error), params)


def _http_request(error: BaseException) -> Any:
    """The HTTP request ``error`` holds: an API error's (a status, a timeout, a connection that failed), else None."""
    response = getattr(error, "response", None)
    request = getattr(response, "request", None) if response is not None else None
    if request is None:
        try:
            request = getattr(error, "request", None)
        except RuntimeError:  # httpx raises when an error has no request attached
            request = None
    return request


def _refused(error: BaseException) -> bool:
    """Whether the SDK refused the call that raised ``error`` before sending it (so the model never received it).

    Once it sends, the SDK raises its API errors, each holding its HTTP request: it wraps any
    ``Exception`` raised as it sends in one. An ``Exception`` holding none was raised before:
    the SDK's own checks of the arguments (a ``TypeError`` for one missing or unknown, a
    ``ValueError`` for a value it will not send) or the building of the body. An interruption
    (``KeyboardInterrupt``, a cancelled task) may come as the request leaves: it is not one.
    """
    return isinstance(error, Exception) and _http_request(error) is None


def _listed(params: dict[str, Any]) -> dict[str, Any]:
    # An iterator of messages or tools would be used up by recording it: a list is read twice the same.
    for key in ("messages", "tools", "system", "stop_sequences"):
        value = params.get(key)
        if value is not None and not isinstance(value, str | list | tuple | Mapping) and hasattr(value, "__iter__"):
            params[key] = list(value)
    return params


def _snapshot(stream: Any) -> Any:
    try:
        return stream.current_message_snapshot
    except (AssertionError, AttributeError):  # nothing arrived yet
        return None


class _RecordedClient:
    """An SDK client whose Messages API calls are recorded; everything else is the client's own."""

    __slots__ = ("_beta", "_client", "_messages", "_recorder", "_sending")

    def __init__(self, client: Any, recorder: _Recorder) -> None:
        object.__setattr__(self, "_client", client)
        object.__setattr__(self, "_recorder", recorder)
        object.__setattr__(self, "_messages", None)
        object.__setattr__(self, "_beta", None)
        object.__setattr__(self, "_sending", None)

    def _sender(self) -> tuple[Any, bool]:
        """The client the recorded calls are made on: the client with the recorder's middleware (``_watching``)."""
        if self._sending is None:
            object.__setattr__(self, "_sending", _watching(self._client, self._recorder.is_async))
        return cast(tuple[Any, bool], self._sending)

    @property
    def messages(self) -> Any:
        """The client's ``messages`` resource, recording ``create`` and ``stream``."""
        if self._messages is None:
            sender, watched = self._sender()
            messages = _RecordedMessages(self._client.messages, self._recorder, sender.messages, watched)
            object.__setattr__(self, "_messages", messages)
        return self._messages

    @property
    def beta(self) -> Any:
        """The client's ``beta`` resource, whose ``messages`` records ``create`` and ``stream`` as ``messages`` does."""
        if self._beta is None:
            sender, watched = self._sender()
            object.__setattr__(self, "_beta", _RecordedBeta(self._client.beta, self._recorder, sender.beta, watched))
        return self._beta

    @property
    def with_raw_response(self) -> Any:
        """The client's ``with_raw_response``, whose ``messages`` and ``beta.messages`` record ``create`` as
        ``messages.with_raw_response`` does."""
        return _RecordedRawClient(self._client.with_raw_response, self.messages, lambda: self.beta)

    def with_options(self, **options: Any) -> Any:
        """The client's ``with_options``, recorded to the same file."""
        return _RecordedClient(self._client.with_options(**options), self._recorder)

    def copy(self, **options: Any) -> Any:
        """The client's ``copy``, recorded to the same file."""
        return _RecordedClient(self._client.copy(**options), self._recorder)

    @property
    def with_middleware(self) -> Any:
        """The client's ``with_middleware`` (of an SDK that has one), giving a client recorded to the same file."""
        made = self._client.with_middleware
        return lambda *middleware: _RecordedClient(made(*middleware), self._recorder)

    def close(self) -> Any:
        """Close the client (await the result of an async client's) and the run file."""
        result = self._client.close()
        self._recorder.close()
        return result

    def __enter__(self) -> Any:
        self._client.__enter__()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        try:
            self._client.__exit__(*exc_info)
        finally:
            self._recorder.close()

    async def __aenter__(self) -> Any:
        await self._client.__aenter__()
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        try:
            await self._client.__aexit__(*exc_info)
        finally:
            self._recorder.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._client, name, value)
        if self._sending is not None and self._sending[0] is not self._client:
            setattr(self._sending[0], name, value)  # the copy the recorded calls are made on, the same

    def __dir__(self) -> list[str]:
        return sorted(set(dir(self._client)) | {"messages", "with_options", "copy", "close"})

    def __repr__(self) -> str:
        return f"<recorded {self._client!r} to {self._recorder.writer.path}>"


class _OfRaw:
    """A recorded ``with_raw_response`` (``_raw``): what it does not record is the SDK's own."""

    __slots__ = ("_raw",)
    _RECORDED: frozenset[str] = frozenset()
    """What it records, beside the SDK's names."""

    def __init__(self, raw: Any) -> None:
        self._raw = raw

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)

    def __dir__(self) -> list[str]:
        return sorted(set(dir(self._raw)) | self._RECORDED)


class _RecordedRawClient(_OfRaw):
    """A client's (or its ``beta``'s) ``with_raw_response``, whose ``messages`` is the recorded resource's
    ``with_raw_response``, and ``beta`` one of these for ``beta``; the rest is its own."""

    __slots__ = ("_beta", "_messages")
    _RECORDED = frozenset({"messages"})

    def __init__(self, raw: Any, messages: Any, beta: Callable[[], Any] | None = None) -> None:
        super().__init__(raw)
        self._messages = messages
        self._beta = beta  # made when asked for: a client may have no beta

    @property
    def messages(self) -> Any:
        """``messages.with_raw_response``, recording ``create``."""
        return self._messages.with_raw_response

    @property
    def beta(self) -> Any:
        """``beta.with_raw_response``, its ``messages`` recorded."""
        if self._beta is None:
            raise AttributeError("beta")  # as the SDK's own has none
        return _RecordedRawClient(self._raw.beta, self._beta().messages)


class _RecordedBeta:
    """A client's ``beta`` resource whose ``messages`` is recorded; the rest is the resource's own."""

    __slots__ = ("_beta", "_messages", "_recorder", "_sending", "_watched")

    def __init__(self, beta: Any, recorder: _Recorder, sending: Any, watched: bool) -> None:
        self._beta = beta
        self._recorder = recorder
        self._sending = sending  # the ``beta`` of the client the recorded calls are made on
        self._watched = watched
        self._messages: _RecordedMessages | None = None

    @property
    def messages(self) -> Any:
        """``beta.messages``, recording ``create`` and ``stream``."""
        if self._messages is None:
            sending = self._sending.messages
            self._messages = _RecordedMessages(self._beta.messages, self._recorder, sending, self._watched)
        return self._messages

    def __getattr__(self, name: str) -> Any:
        return getattr(self._beta, name)

    def __dir__(self) -> list[str]:
        return sorted(set(dir(self._beta)) | {"messages"})

    def __repr__(self) -> str:
        return f"<recorded {self._beta!r}>"


class _RecordedMessages:
    """A ``messages`` resource whose ``create`` and ``stream`` are recorded; the rest is the resource's own."""

    __slots__ = ("_messages", "_recorder", "_sending", "_watched")

    def __init__(self, messages: Any, recorder: _Recorder, sending: Any, watched: bool) -> None:
        self._messages = messages
        self._recorder = recorder
        # The resource the recorded calls are made on: the same of the client with the recorder's middleware, which
        # notes each HTTP try of them (``_watching``), when ``watched``; what is not recorded is ``messages``' own.
        self._sending = sending
        self._watched = watched

    def create(self, **params: Any) -> Any:
        """``messages.create``, recorded: the reply (or the error) is written when the call ends."""
        return self._called("create", params)

    @property
    def parse(self) -> Any:
        """``messages.parse``, recorded as ``create`` is where the SDK gives a raw response of it (``beta.messages``'
        ``with_raw_response.parse``); else the resource's own, unrecorded: its parsed reply holds no HTTP request."""
        if not callable(getattr(self._sending.with_raw_response, "parse", None)):
            return self._messages.parse
        return self._parse

    def _parse(self, **params: Any) -> Any:
        return self._called("parse", params)

    def _called(self, method: str, params: dict[str, Any]) -> Any:
        params = _listed(dict(params))
        if self._recorder.is_async:
            return self._called_async(method, params)
        return self.raw_create(params, method)[1]

    async def _called_async(self, method: str, params: dict[str, Any]) -> Any:
        return (await self.raw_create_async(params, method))[1]

    def raw_create(self, params: dict[str, Any], method: str = "create") -> tuple[Any, Any]:
        """The SDK's raw response to ``create(**params)`` (or ``parse``) and the reply it gives the agent, recorded."""
        started = time.perf_counter()
        tries = _Tries(started, self._watched)
        token = _CALL.set(tries)
        try:
            raw = getattr(self._sending.with_raw_response, method)(**params)
        except BaseException as error:
            self._recorder.unanswered(params, error, started, tries)
            raise
        finally:
            _CALL.reset(token)
        tries.request = getattr(raw, "http_request", None) or tries.request
        request = _sent(tries.request, params)
        try:
            result = raw.parse()
        except BaseException as error:
            self._recorder.failure(request, error, started, tries=tries)
            raise
        return raw, self._done(result, request, tries)

    async def raw_create_async(self, params: dict[str, Any], method: str = "create") -> tuple[Any, Any]:
        """``raw_create`` on the async client."""
        started = time.perf_counter()
        tries = _Tries(started, self._watched)
        token = _CALL.set(tries)
        try:
            raw = await getattr(self._sending.with_raw_response, method)(**params)
        except BaseException as error:
            self._recorder.unanswered(params, error, started, tries)
            raise
        finally:
            _CALL.reset(token)
        tries.request = getattr(raw, "http_request", None) or tries.request
        request = _sent(tries.request, params)
        try:
            result = raw.parse()
            if inspect.isawaitable(result):  # some SDK versions parse an async response at once, others when awaited
                result = await result
        except BaseException as error:
            self._recorder.failure(request, error, started, tries=tries)
            raise
        return raw, self._done(result, request, tries)

    def _done(self, result: Any, request: dict[str, Any], tries: _Tries) -> Any:
        if request.get("stream") is True:
            events = _Events(self._recorder, request, tries)
            return _RecordedEventStream(result, events)
        self._recorder.call(request, _message_json(result), tries.started, tries)
        return result

    @property
    def with_raw_response(self) -> Any:
        """The resource's ``with_raw_response``, recording ``create`` (and ``parse``, where it has one)."""
        return _RecordedRawMessages(self._messages.with_raw_response, self)

    def stream(self, **params: Any) -> Any:
        """``messages.stream``, recorded: the final message when it completes, else what arrived, as an error."""
        params = _listed(dict(params))
        started = time.perf_counter()
        try:
            manager = self._sending.stream(**params)
        except BaseException as error:  # the SDK checks the arguments here, and sends when the stream is entered
            self._recorder.unanswered(params, error, started, _Tries(started, self._watched))
            raise
        if self._recorder.is_async:
            return _AsyncRecordedStream(manager, self._recorder, params, self._watched)
        return _RecordedStream(manager, self._recorder, params, self._watched)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._messages, name)

    def __dir__(self) -> list[str]:
        return sorted(set(dir(self._messages)) | {"create", "parse", "stream", "with_raw_response"})

    def __repr__(self) -> str:
        return f"<recorded {self._messages!r}>"


class _RecordedRawMessages(_OfRaw):
    """``messages.with_raw_response``, whose ``create`` is recorded; the rest is its own."""

    __slots__ = ("_recorded",)
    _RECORDED = frozenset({"create"})

    def __init__(self, raw: Any, recorded: _RecordedMessages) -> None:
        super().__init__(raw)
        self._recorded = recorded

    def create(self, **params: Any) -> Any:
        """``with_raw_response.create``, recorded as ``create`` is: the SDK's raw response, its reply recorded."""
        return self._called("create", params)

    @property
    def parse(self) -> Any:
        """``with_raw_response.parse``, where the SDK has one (``beta.messages``'), recorded as ``create`` is."""
        if not callable(getattr(self._raw, "parse", None)):
            raise AttributeError("parse")  # as the SDK's own has none
        return self._parse

    def _parse(self, **params: Any) -> Any:
        return self._called("parse", params)

    def _called(self, method: str, params: dict[str, Any]) -> Any:
        params = _listed(dict(params))
        if self._recorded._recorder.is_async:
            return self._called_async(method, params)
        return _RecordedRawResponse.of(*self._recorded.raw_create(params, method), is_async=False)

    async def _called_async(self, method: str, params: dict[str, Any]) -> Any:
        return _RecordedRawResponse.of(*(await self._recorded.raw_create_async(params, method)), is_async=True)


class _RecordedRawResponse:
    """The raw response of a ``stream=True`` call: ``parse()`` gives the recorded stream; the rest is its own."""

    __slots__ = ("_is_async", "_raw", "_result")

    def __init__(self, raw: Any, result: Any, is_async: bool) -> None:
        self._raw = raw
        self._result = result
        self._is_async = is_async

    @classmethod
    def of(cls, raw: Any, result: Any, *, is_async: bool) -> Any:
        """``raw`` itself when its ``parse()`` gives the recorded reply (a ``Message``: the SDK keeps what it parsed).

        A stream's ``parse()`` would give the SDK's stream, which the recorder does not see: the
        response is wrapped, to give the recorded one.
        """
        return cls(raw, result, is_async) if isinstance(result, _RecordedEventStream) else raw

    def parse(self, *, to: Any = None) -> Any:
        """The recorded event stream (awaited on the async client), or the body parsed ``to`` a type by the SDK."""
        if to is not None:
            return self._raw.parse(to=to)
        return _ready(self._result) if self._is_async else self._result

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)


async def _ready(value: Any) -> Any:
    return value


class _StreamEnd:
    """What a ``messages.stream`` block leaves: the final message, or the part that arrived and why it stopped."""

    def __init__(self, manager: Any, recorder: _Recorder, params: Mapping[str, Any], watched: bool) -> None:
        self.manager = manager
        self.recorder = recorder
        self.params = params
        self.watched = watched
        self.tries = _Tries(0.0, watched)
        self.stream: Any = None
        self.events: _Events | None = None

    def opened(self) -> Any:
        """The call begins (the SDK sends it as the block is entered): its tries are noted until the token is reset."""
        self.tries = _Tries(time.perf_counter(), self.watched)
        return _CALL.set(self.tries)

    @property
    def started(self) -> float:
        return self.tries.started

    def entered(self, stream: Any) -> Any:
        """The SDK's stream, whose raw events (``_raw_stream``, which its ``MessageStream`` reads and builds its
        snapshot from) are read through a recorded one, as ``create(stream=True)``'s: the reply is what they carry."""
        self.stream = stream
        self.tries.request = getattr(getattr(stream, "response", None), "request", None) or self.tries.request
        raw = getattr(stream, "_raw_stream", None)
        if raw is not None:
            request = _sent(self.tries.request, self.params)
            self.events = _Events(self.recorder, request, self.tries)
            self.events.entered = True  # recorded when the block is left, which says why
            stream._raw_stream = _RecordedEventStream(raw, self.events)
        return stream

    def failed_to_open(self, error: BaseException) -> None:
        self.recorder.unanswered(self.params, error, self.started, self.tries)

    def closed(self, error: BaseException | None) -> None:
        if self.events is not None:
            self.events.end(error)
            return
        # An SDK whose stream has no raw events to read: its snapshot, as the SDK accumulated it.
        stream = self.stream
        request = _sent(self.tries.request, self.params)
        snapshot = _snapshot(stream)
        message = _message_json(snapshot) if snapshot is not None else None
        complete = snapshot is not None and snapshot.stop_reason is not None
        _streamed(self.recorder, request, self.tries, message, complete, error or _INCOMPLETE)


def _streamed(
    recorder: _Recorder,
    request: dict[str, Any],
    tries: _Tries,
    message: dict[str, Any] | None,
    complete: bool,
    why: BaseException | Mapping[str, str],
    where: _Line | None = None,
) -> None:
    """Record a streamed call as it ended. The stop reason arrives in the last delta: a ``complete`` reply is the
    whole reply, even when the stream was then left by an error of the agent's own; else ``why`` it is not, and the
    part that arrived. A stream that ends once the recording is closed (read, closed, or let go of by the agent, when
    Python collects it) is not recorded: a ``RuntimeWarning`` names the call (``_Recorder.lost``), where the error of
    writing to a closed file went to no one."""
    if complete:
        assert message is not None
        recorder.call(request, message, tries.started, tries, where)
    else:
        recorder.failure(request, why, tries.started, message, tries=tries, where=where)


class _RecordedStream(_StreamEnd):
    """``messages.stream``'s context manager, recording the call when its block is left."""

    def __enter__(self) -> Any:
        token = self.opened()
        try:
            stream = self.manager.__enter__()
        except BaseException as error:
            self.failed_to_open(error)
            raise
        finally:
            _CALL.reset(token)
        return self.entered(stream)

    def __exit__(self, kind: Any, error: BaseException | None, traceback: Any) -> Any:
        try:
            self.closed(error)
        finally:
            result = self.manager.__exit__(kind, error, traceback)
        return result


class _AsyncRecordedStream(_StreamEnd):
    """``messages.stream``'s async context manager, recording the call when its block is left."""

    async def __aenter__(self) -> Any:
        token = self.opened()
        try:
            stream = await self.manager.__aenter__()
        except BaseException as error:
            self.failed_to_open(error)
            raise
        finally:
            _CALL.reset(token)
        return self.entered(stream)

    async def __aexit__(self, kind: Any, error: BaseException | None, traceback: Any) -> Any:
        try:
            self.closed(error)
        finally:
            result = await self.manager.__aexit__(kind, error, traceback)
        return result


class _Events:
    """The reply a ``create(stream=True)`` stream builds, from its raw events, recorded once the stream ends."""

    def __init__(self, recorder: _Recorder, request: dict[str, Any], tries: _Tries) -> None:
        self.recorder = recorder
        self.request = request
        self.tries = tries
        self.reply = StreamedReply()
        self.ended = False
        self.read = False  # the stream's events were read to their end
        self.entered = False  # the stream is used as a context manager, whose exit says how it was left
        self.problem: Mapping[str, str] | None = None
        self.where = _agents_line()  # the agent's line that opened the stream

    def add(self, event: Any) -> None:
        if self.problem:
            return
        try:
            self.reply.add(_jsonable(event))
        except (KeyError, IndexError, TypeError, ValueError) as error:
            # The agent's stream goes on; the record says the reply could not be rebuilt.
            what = f"the reply could not be rebuilt from its events ({type(error).__name__}: {error})"
            self.problem = {"type": "unrecordable", "message": what}

    def end(self, error: BaseException | None) -> None:
        if self.ended:
            return
        self.ended = True
        complete = self.reply.complete and not self.problem
        why = error or self.problem or (_INCOMPLETE if self.read else _LEFT)
        _streamed(self.recorder, self.request, self.tries, self.reply.message, complete, why, self.where)

    def left(self) -> None:
        """The loop over the events was left (a ``break``, an exception in its body): recorded now, unless the
        stream's ``with`` block, left next, can say why."""
        if not self.entered:
            self.end(None)


class _RecordedEventStream:
    """A ``create(stream=True)`` stream (sync or async) yielding the SDK's events, recording the reply at its end."""

    def __init__(self, stream: Any, events: _Events) -> None:
        self._stream = stream
        self._events = events
        self._iterator: Iterator[Any] | None = None
        self._async_iterator: AsyncIterator[Any] | None = None

    def __next__(self) -> Any:
        if self._iterator is None:
            self._iterator = iter(self)
        return next(self._iterator)

    async def __anext__(self) -> Any:
        if self._async_iterator is None:
            self._async_iterator = aiter(self)
        return await anext(self._async_iterator)

    def __iter__(self) -> Iterator[Any]:
        try:
            for event in self._stream:
                self._events.add(event)
                yield event
        except GeneratorExit:
            self._events.left()
            raise
        except BaseException as error:
            self._events.end(error)
            raise
        self._events.read = True
        self._events.end(None)

    def __aiter__(self) -> AsyncIterator[Any]:
        return _AsyncEvents(self, self._stream.__aiter__(), self._events)

    def close(self) -> Any:
        """Close the stream; a reply not read to its end is recorded as what arrived."""
        self._events.end(None)
        return self._stream.close()

    def __enter__(self) -> Any:
        self._stream.__enter__()
        self._events.entered = True
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self._events.end(exc_info[1])
        self._stream.__exit__(*exc_info)

    async def __aenter__(self) -> Any:
        await self._stream.__aenter__()
        self._events.entered = True
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        self._events.end(exc_info[1])
        await self._stream.__aexit__(*exc_info)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    def __del__(self) -> None:
        # A stream the agent let go of unread (or unfinished, out of a loop that made no generator of it): the call
        # was sent and answered, and is recorded as left, with what arrived, unless its ``with`` block said why.
        self._events.left()


class _AsyncEvents:
    """An ``async for`` over a recorded stream: an iterator object, not an async generator, so that a loop left early
    (a ``break``, an exception in its body) records the call as it lets go of it, when the agent stopped reading, as
    the sync loop's generator does. An async generator left so is closed later, when the event loop gets to it."""

    __slots__ = ("_events", "_source", "_stream")

    def __init__(self, stream: _RecordedEventStream, source: AsyncIterator[Any], events: _Events) -> None:
        self._stream = stream  # kept while the loop reads it, as a sync loop's generator keeps it: a stream let go of
        # is one the agent stopped reading
        self._source = source
        self._events = events

    def __aiter__(self) -> AsyncIterator[Any]:
        return self

    async def __anext__(self) -> Any:
        try:
            event = await anext(self._source)
        except StopAsyncIteration:
            self._events.read = True
            self._events.end(None)
            raise
        except BaseException as error:
            self._events.end(error)
            raise
        self._events.add(event)
        return event

    async def aclose(self) -> None:
        """Stop reading: the call is recorded as what arrived (unless the stream's ``with`` block says why)."""
        self._events.left()

    def __del__(self) -> None:
        self._events.left()
