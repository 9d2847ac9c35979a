"""Anthropic Messages API conversations and call logs, as runs that render exactly what was sent.

``from_anthropic(source)`` takes any of these, from a dict or list, a ``.json`` file or a
``.jsonl`` file:

- a request body: ``{"model", "system", "tools", "messages", "max_tokens", ...}`` (one ending
  with an assistant message keeps it as its last step, and a warning says that, sent as it is,
  it is a prefill: the caller's text, not a decision of the model);
- a bare ``messages`` list;
- a request and the ``Message`` that answered it: ``{"request": {...}, "response": {...}}``
  (also ``params``/``body`` for the request, ``message`` for the reply);
- a call log: a list (or ``.jsonl`` lines) of such request/response pairs, one per model call
  an agent made. Each call becomes a model call of the run, made for the step its request
  decides; the steps come from the conversation as its longest call sent it, with its reply as
  the last step (going on in the last turn when that call ended with a prefill: the step it
  decided). The view deciding a step whose call ended with a prefill ends with it, as the request
  did (``runfile.Sent.prefilled``). A log of several conversations (told by their opening message: a side
  request, another session, a compaction's request) is a run per conversation
  (``from_anthropic_runs``), the first the one that grew over the most calls;
- a recording ``agentrender.record`` wrote (a run file, ``.jsonl`` or ``.jsonl.gz``, of
  ``model_call`` records holding their ``request``): read as a call log, each
  ``model_call_error`` record a warning naming the call that gave no reply (one marked
  ``"sent": false``, refused by the SDK before it was sent, is not read as a call: a warning says so);
- a log of HTTP exchanges, as claude-trace writes what Claude Code sends
  (``.claude-trace/log-*.jsonl``: ``{"request": {"method", "url", "headers", "body"},
  "response": {"status_code", "headers", "body" or "body_raw"}}``): each request's ``body`` is
  the call's request, and its reply is the response's ``body``, or the ``Message`` its
  streamed events build (``body_raw``, server-sent events). A request to another endpoint
  (``/v1/messages/count_tokens``) is not read, and a warning names it; a response that
  failed (an HTTP status other than 2xx) or whose stream ends before its reply does is a
  call with no reply. The envelopes' other fields are kept, but not the values of headers
  that carry credentials (``authorization``, ``x-api-key``, cookies).

Every block type the API has (text, image, document, thinking, redacted thinking, tool use,
tool results with text or blocks and ``is_error``, server tool uses and their results, search
results, citations, cache control) is kept as it was read. A call log's cache breakpoints move
from call to call (Claude Code marks the last block it sends): its turns are kept without them,
and where each call's request had them is recorded (``runfile.Sent.breakpoints``), so the view
at each step carries those of the request that decided it.
"""

from __future__ import annotations

import contextlib
import operator
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import chain, pairwise
from operator import itemgetter
from pathlib import Path
from typing import Any, Literal, NamedTuple, TypeAlias
from urllib.parse import urlsplit

import msgspec
from msgspec import UNSET, UnsetType

from agentrender import render
from agentrender._api_rules import content_blocks, continued, prefill_of, prefill_said, step_decided, system_text
from agentrender._display.said import WRITES_END
from agentrender._json import strict_loads, type_name
from agentrender._stream import StreamedReply, sse_data
from agentrender._words import number_ranges, plural, shown
from agentrender.imports.conversation import (
    MadeTurns,
    Summariser,
    Where,
    body_decoder,
    checked_run,
    conversation_run,
    is_time,
    joined_turns,
    json_values,
    message_texts,
    normalise_messages,
    own_copy,
    request_body,
    time_of,
    unanswered_warning,
)
from agentrender.imports.shapes import ANTHROPIC_REQUEST_KEYS, is_exchange
from agentrender.runfile import NEVER_SENT, Run, RunFileError, RunWarning, RunWarnings, failure_text
from agentrender.runfile.replies import check_reply
from agentrender.runfile.schema import TryRecord

__all__ = [
    "from_anthropic",
    "from_anthropic_runs",
    "request_key",
]

_RESPONSE_KEYS = ("response", "message")


def from_anthropic(
    source: Any,
    *,
    run_id: str | None = None,
    summarise: Summariser | None = None,
) -> Run:
    """A run of a Messages API conversation or call log that renders exactly what was sent.

    ``source`` is a dict or list as described in the module, or a path to a ``.json`` or
    ``.jsonl`` file holding one. ``summarise`` (e.g. ``imports.first_line_summary``) gives each
    result a summary, for the view under the contract's window. Raises ``RunFileError`` naming
    the file, line and field of what cannot be read. A log of several conversations gives the run
    of the one that grew over the most calls, and a warning names the others, each a run of
    ``from_anthropic_runs`` (and of ``imports.load_runs``).
    """
    return from_anthropic_runs(source, run_id=run_id, summarise=summarise)[0]


def from_anthropic_runs(
    source: Any,
    *,
    run_id: str | None = None,
    summarise: Summariser | None = None,
) -> list[Run]:
    """The runs of ``source`` (as ``from_anthropic`` takes it): one for a conversation, and for a log of calls one
    per conversation its calls sent, told by its opening message. The first is the conversation that grew over the
    most calls; the others (a side request such as Claude Code's quota check or title, another session, a
    compaction's request and the conversation after it) follow in the order of their first call, named
    ``<run id>/1``, ``<run id>/2``, ...
    """
    if isinstance(source, str | os.PathLike) and (
        body := request_body(os.fspath(source), _MESSAGES, ANTHROPIC_REQUEST_KEYS, _BODY)
    ):
        run = _body_run(*body, os.fspath(source), run_id, summarise)
        if run is not None:
            return [run]
    return _from_values(source, run_id, summarise)


def _from_values(source: Any, run_id: str | None, summarise: Summariser | None) -> list[Run]:
    """``from_anthropic`` of any source: its JSON values read as they are, every field kept, every error worded."""
    notes = RunWarnings()
    recording = False
    began: Any = None  # when a recording began (its header's started_at): before its first call was sent
    if isinstance(source, str | os.PathLike):
        path = str(source)
        values = iter(json_values(path, notes))
        first = next(values)
        name = Path(path).name
        origin: dict[str, Any] = {"format": "anthropic-messages", "path": path}
        header = first[1]
        if isinstance(header, Mapping) and header.get("type") == "run":
            recording = True
            began = header.get("started_at")
            ends: list[tuple[int, dict[str, Any]]] = []
            calls: Iterable[tuple[int, Any]] = _recorded_calls(values, path, notes, ends)
            source_field = header.get("source")
            origin = {**(source_field if isinstance(source_field, Mapping) else {}), "path": path}
            name = str(header.get("run_id") or name)
        else:
            calls = chain([first], values)
    else:
        path, name = "<anthropic>", "conversation"
        first = (1, own_copy(source, path))  # checked to be JSON, and never shared with the caller
        calls = [first]
        origin = {"format": "anthropic-messages"}
    entries = _entries(calls, path, notes, recording)
    # one request alone is a conversation; one logged HTTP exchange (its envelope kept as "request") is a call
    if not recording and len(entries) == 1 and entries[0].response is None and "request" not in entries[0].others:
        entry = entries[0]
        where = Where(path, entry.line, "messages" if isinstance(first[1], Mapping) else "")
        messages = normalise_messages(entry.request["messages"], where)
        prefilled = _prefill_warning([message["role"] for message in messages], entry.request, where)
        notes.extend(prefilled)
        return [
            conversation_run(
                messages,
                where=where,
                run_id=run_id or name,
                source=_kept(origin, entries, messages),
                request=entry.request,
                summarise=summarise,
                warnings=notes,
                prefill=bool(prefilled),
            )
        ]
    if not entries:
        if recording:  # its records that are no call, each named by its line
            said = "; ".join(f"line {warning.line}: {warning.message}" for warning in notes)
            said = f" ({said})" if said else ""
            raise RunFileError(path, 1, f"the recording holds no model call yet: no conversation to import{said}")
        said = "; ".join(warning.message for warning in notes)
        raise RunFileError(path, 1, f"the log holds no Messages API call: there is no conversation to import ({said})")
    end = _recording_end(ends, entries, origin, path, notes) if recording else None
    return _log_runs(entries, path, run_id or name, origin, summarise, notes, began, end)


def _log_runs(
    entries: list[Entry],
    path: str,
    run_id: str,
    origin: Mapping[str, Any],
    summarise: Summariser | None,
    notes: Sequence[RunWarning],
    began: Any = None,
    end: Mapping[str, Any] | None = None,
) -> list[Run]:
    """The runs of a log of calls, one per conversation (``_conversations``), each of its own calls; each run of a log
    of several says which of them it is, and the first names the others. ``began``: when the log began (a recording's
    header's ``started_at``), which the run of its first call started at unless its calls say when they were sent;
    ``end``, a recording's, is each run's."""
    conversations = _conversations(entries)
    if len(conversations) == 1:
        return [_from_calls(entries, path, run_id, origin, summarise, notes, began, end)]
    names = [run_id, *(f"{run_id}/{number}" for number in range(1, len(conversations)))]
    others = [entries[i].line for calls in conversations[1:] for i in calls]
    runs = []
    for number, calls in enumerate(conversations):
        first = entries[calls[0]].line
        if number == 0:
            said = (
                f"the log holds {len(conversations) - 1} other conversation(s), {plural(len(others), 'call')} "
                f"({_lines_said(sorted(others))}): a side request, another session, a compaction's request or the "
                f"conversation after it; each is a run of its own ({names[1]}"
                f"{f' to {names[-1]}' if len(names) > 2 else ''}: imports.load_runs, agentrender runs)"
            )
        else:
            lines = _lines_said([entries[i].line for i in calls])
            said = (
                f"one of {len(conversations)} conversations of the log ({lines}): the run {run_id} is the one that "
                "grew over the most calls"
            )
        warning = Where(path, first).warning(said)
        mine = [entries[i] for i in calls]
        first_call = began if 0 in calls else None
        runs.append(_from_calls(mine, path, names[number], origin, summarise, [*notes, warning], first_call, end))
    return runs


def _lines_said(lines: Sequence[int]) -> str:
    """``line 4`` or ``lines 2-3, 5``."""
    return f"line {lines[0]}" if len(lines) == 1 else f"lines {number_ranges(lines)}"


def _recorded_calls(
    records: Iterable[tuple[int, Any]], path: str, notes: list[RunWarning], ends: list[tuple[int, dict[str, Any]]]
) -> Iterator[tuple[int, Any]]:
    """A recording's calls: its ``model_call`` and ``model_call_error`` records, each holding its request. Its ``end``
    records are put in ``ends``, with their lines (``_recording_end`` reads them)."""
    for line, record in records:
        kind = record.get("type") if isinstance(record, Mapping) else None
        if kind == "end":
            ends.append((line, dict(record)))
            continue
        if kind not in ("model_call", "model_call_error"):
            notes.append(
                Where(path, line).warning(f"a {shown(kind)} record is not a call of the recording; not imported")
            )
            continue
        sent = record.get("sent", True)
        if kind == "model_call_error" and sent is not True:
            if sent is not False:
                raise Where(path, line, f"{kind}.sent").error(f"expected true or false, got {type_name(sent)}")
            # a call the SDK refused: what it held is no conversation the model received
            said = failure_text(record) if isinstance(record.get("error"), Mapping) else "no error recorded"
            notes.append(Where(path, line).warning(f"{NEVER_SENT}: {said}; not imported as a call"))
            continue
        if not isinstance(record.get("request"), Mapping):
            raise Where(path, line, f"{kind}.request").error("missing: a recorded call holds the request it sent")
        yield line, record


def _recording_end(
    ends: Sequence[tuple[int, dict[str, Any]]],
    entries: Sequence[Entry],
    origin: Mapping[str, Any],
    path: str,
    notes: list[RunWarning],
) -> dict[str, Any] | None:
    """The ``end`` of a recording: the ``end`` record it was closed with (its last record). None, when the recording
    has none: of a recorder that writes one (its header's ``source.writes_end``), that is a recording cut short (its
    process killed) or still being written, and a warning says so; an older recording's says nothing.
    An ``end`` record that calls follow is not its end (an agent resumed with ``append=True`` over a file an older
    recorder closed keeps it): a warning names it, and the recording goes on."""
    last = max((entry.line for entry in entries), default=0)
    for line, _ in ends:
        if line < last or line != ends[-1][0]:
            notes.append(
                Where(path, line).warning(
                    "an end record that more records follow: the recording went on after it was closed; not its end"
                )
            )
    if ends and ends[-1][0] > last:
        return ends[-1][1]
    if origin.get(WRITES_END) is True:
        notes.append(
            Where(path, last).warning(
                "the recording has no end record, which agentrender.record writes as the recording is closed: the run "
                "was still going, or its process died (killed while recording); every call it recorded is here"
            )
        )
    return None


class Entry(NamedTuple):
    """One call of a log (or the one conversation of a request body), as read."""

    line: int
    request: dict[str, Any]
    """The request, its ``messages`` the earlier call's where they are equal (``_Prefix``)."""
    response: dict[str, Any] | None
    others: dict[str, Any]
    """The value's fields beside its request and response (``timestamp``, ``cost``, an ``error``...)."""


_RECORDED = frozenset({"type", "step", "request_key"})
"""A recorded call's fields the run holds as its own (its ``model_call``), not among what the source keeps."""


def _entries(
    values: Iterable[tuple[int, Any]], path: str, notes: list[RunWarning], recording: bool = False
) -> list[Entry]:
    """Each value as an ``Entry``; a list value is a log of calls. Made as the values are read, one at a time.

    A logged HTTP exchange that is no Messages API call is left out, and ``notes`` says which."""
    out: list[Entry] = []
    prefix = _Prefix()
    exchanges = _Exchanges()
    for line, value in values:
        items = value if isinstance(value, list) and value and not _is_message(value[0]) else [value]
        for position, item in enumerate(items):
            where = Where(path, line, f"[{position}]" if items is not value and len(items) > 1 else "")
            entry = _entry(item, line, where, exchanges)
            if entry is None:
                continue
            entry.request["messages"] = prefix.shared(entry.request["messages"])
            if "betas" in entry.request:
                # the SDK's betas (what agentrender.record writes of a beta call) go in the anthropic-beta header, not
                # the body the model was sent: kept beside the request, with the call's other fields (source.entries)
                name = "betas" if "betas" not in entry.others else "request.betas"
                entry = entry._replace(others={**entry.others, name: entry.request.pop("betas")})
            if recording and entry.others.get("type") != "model_call_error":  # a failure says its step and type
                entry = entry._replace(others={k: v for k, v in entry.others.items() if k not in _RECORDED})
            out.append(entry)
    notes.extend(exchanges.warnings(path))
    return out


class _Prefix:
    """The messages of the call before, to share with the next: a call log repeats the conversation in every call.

    Each call's request holds every message sent before it, so a log of ``n`` calls holds the
    conversation about ``n / 2`` times. Parsed, each copy would be objects of its own, some
    twenty times the bytes of its text; a message equal to the one at its place in the call
    before is replaced by that one, so the import holds each message once (and what each call
    sent stays exactly what it was: equal values, written back the same).
    """

    __slots__ = ("messages",)

    def __init__(self) -> None:
        self.messages: list[Any] = []

    def shared(self, messages: Any) -> Any:
        if not isinstance(messages, list):
            return messages
        before = self.messages
        for i in range(min(len(before), len(messages))):
            if messages[i] is not before[i]:
                if messages[i] != before[i]:
                    break
                messages[i] = before[i]
        self.messages = messages
        return messages


def _is_message(value: Any) -> bool:
    return isinstance(value, Mapping) and "role" in value


def _entry(item: Any, line: int, where: Where, exchanges: _Exchanges) -> Entry | None:
    """The call ``item`` holds; ``None`` for a logged HTTP exchange that is no Messages API call."""
    if isinstance(item, list):
        return Entry(line, {"messages": item}, None, {})
    if not isinstance(item, Mapping):
        raise where.error(
            f"expected a request, a list of messages or a request with its response, got {type_name(item)}"
        )
    request_key = next((key for key in ANTHROPIC_REQUEST_KEYS if key in item), None)
    if request_key is None:
        if "messages" not in item:
            raise where.error(
                "no 'messages' (a request body), no 'request' (a call with its response): not a Messages API "
                "conversation"
            )
        return Entry(line, dict(item), None, {})
    request = item[request_key]
    response_key = next((key for key in _RESPONSE_KEYS if key in item), None)
    response = item[response_key] if response_key is not None else None
    others = {key: value for key, value in item.items() if key != request_key and key != response_key}
    if is_exchange(request):
        return exchanges.entry(line, where.at(request_key), request, response, others, response_key or "response")
    if not isinstance(request, Mapping) or not isinstance(request.get("messages"), list):
        raise where.at("request.messages").error("missing: a call's request holds its messages")
    if response is not None and not isinstance(response, Mapping):
        raise where.at("response").error(f"expected a Message object, got {type_name(response)}")
    return Entry(line, dict(request), dict(response) if response is not None else None, others)


_CREDENTIALS = frozenset({"authorization", "proxy-authorization", "x-api-key", "cookie", "set-cookie"})
"""Headers whose values are credentials: a log's are not kept in the run (a run is shared: a page, a Parquet row)."""
NOT_KEPT = "(not kept)"
"""What stands for a credential header's value in the run."""


class _Exchanges:
    """The calls of a log of HTTP exchanges (claude-trace), and what the import says of the exchanges it left."""

    def __init__(self) -> None:
        self.other: dict[str, list[int]] = {}  # "POST /v1/messages/count_tokens": its lines
        self.credentials: set[str] = set()

    def entry(
        self,
        line: int,
        where: Where,
        request: Mapping[str, Any],
        response: Any,
        others: dict[str, Any],
        response_key: str,
    ) -> Entry | None:
        method, url = request.get("method"), request.get("url")
        try:
            path = urlsplit(url).path if isinstance(url, str) else None
        except ValueError:  # no URL Python can split ("https://[bad/..."): said as it is
            path = None
        endpoint = f"{method} {path}" if path is not None else f"{method} {shown(url)}"
        if method != "POST" or path is None or not path.endswith("/messages"):
            self.other.setdefault(endpoint, []).append(line)
            return None
        body = request["body"]
        if isinstance(body, str):
            try:
                body = strict_loads(body)
            except ValueError as error:
                raise where.at("body").error(f"not JSON: {error}") from None
        if not isinstance(body, Mapping) or not isinstance(body.get("messages"), list):
            raise where.at("body.messages").error("missing: a Messages API request holds its messages")
        kept = {"request": self.kept(request, "body")}
        reply: dict[str, Any] | None = None
        if isinstance(response, Mapping):
            reply, failure = _reply_of(response)
            kept["response"] = (
                self.kept(response, "body", "body_raw", "events")
                if failure is None
                else {
                    **self.kept(response),
                    "failure": failure,
                }
            )
        elif response is not None:
            raise Where(where.path, where.line, response_key).error(
                f"expected an HTTP response (an object), got {type_name(response)}"
            )
        return Entry(line, dict(body), reply, {**others, **kept})

    def kept(self, envelope: Mapping[str, Any], *left: str) -> dict[str, Any]:
        """An envelope's fields but ``left`` (its body, which the call holds), credential headers' values not kept."""
        kept = {key: value for key, value in envelope.items() if key not in left}
        headers = kept.get("headers")
        if isinstance(headers, Mapping):
            kept["headers"] = {name: self.value(name, value) for name, value in headers.items()}
        elif isinstance(headers, list):  # as [name, value] pairs (a header may repeat)
            kept["headers"] = [
                [pair[0], self.value(pair[0], pair[1])] if isinstance(pair, list | tuple) and len(pair) == 2 else pair
                for pair in headers
            ]
        return kept

    def value(self, name: Any, value: Any) -> Any:
        """A header's value as the run keeps it: ``NOT_KEPT`` for a credential's."""
        if isinstance(name, str) and name.lower() in _CREDENTIALS:
            self.credentials.add(name.lower())
            return NOT_KEPT
        return value

    def warnings(self, path: str) -> list[RunWarning]:
        said = [
            Where(path, lines[0]).warning(
                f"{plural(len(lines), 'logged request')} to {endpoint} ({_lines_said(lines)}): no Messages API call, "
                "not read"
            )
            for endpoint, lines in self.other.items()
        ]
        if self.credentials:
            names = ", ".join(sorted(self.credentials))
            said.append(
                Where(path, 1).warning(f"the log's headers hold credentials ({names}): their values are not kept")
            )
        return said


def _reply_of(response: Mapping[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
    """The reply a logged HTTP response holds, and ``None``; or ``None`` and why it holds none (a failed status and
    the API's error, a stream that ends before its reply does or on an error event)."""
    status = response.get("status_code")
    body = response.get("body")
    if isinstance(body, str):  # a proxy that kept the body as its text; one of no JSON (an HTML page) is said as it is
        with contextlib.suppress(ValueError):
            body = strict_loads(body)
    if isinstance(status, int) and not 200 <= status < 300:
        return None, f"HTTP {status}{_error_said(body)}"
    if isinstance(body, Mapping) and body.get("type") == "message":
        return dict(body), None
    raw, events = response.get("body_raw"), response.get("events")
    streamed = StreamedReply()
    try:
        if isinstance(raw, str):
            for _, data in sse_data(raw):
                streamed.add(data)
        elif isinstance(events, list):  # a proxy's log of the stream's events, each parsed
            for event in events:
                streamed.add(event.get("data") if isinstance(event, Mapping) else None)
        else:
            return None, f"the response holds no reply (no message body, no stream of events){_error_said(body)}"
    except (KeyError, IndexError, TypeError, ValueError) as error:
        return None, f"its stream of events does not build a reply ({type(error).__name__}: {error})"
    if streamed.error is not None:
        return None, f"its stream of events ends on an error{_error_said(streamed.error)}"
    if streamed.message is None or not streamed.complete:
        return None, "its stream of events ends before the reply does"
    return streamed.message, None


def _error_said(body: Any) -> str:
    """What an error body says (``{"error": {"type", "message"}}``, or a text), as ``: type: message``."""
    error = body.get("error", body) if isinstance(body, Mapping) else body
    if isinstance(error, Mapping) and (error.get("type") or error.get("message")):
        return f": {error.get('type')}: {error.get('message')}"
    if isinstance(error, str) and error.strip():
        return f": {error.strip()[:200]}"
    return ""


def _from_calls(
    entries: list[Entry],
    path: str,
    run_id: str,
    origin: Mapping[str, Any],
    summarise: Summariser | None,
    notes: Sequence[RunWarning] = (),
    began: Any = None,
    end: Mapping[str, Any] | None = None,
) -> Run:
    """A run of the calls of one conversation of a log (``_conversations``): the conversation as its longest call sent
    it as its steps, every call as a model call. The run started when its first call that says when it was sent was
    (``_sent_at``), else at ``began`` (a recording's header's ``started_at``); ``end`` its ``end`` record, when the log
    says how it ended."""
    warnings = RunWarnings(notes)
    longest = _longest(entries, range(len(entries)))
    line, request, response, _ = entries[longest]
    where = Where(path, line, "request.messages")
    known: dict[int, dict[str, Any]] = {}  # each message read, for the calls that share it
    said = normalise_messages(request["messages"], where, known)  # as sent: each call's replay key is of it
    messages = joined_turns(said, where, warnings)
    calls = []
    call_lines: list[int] = []  # the line each of the calls was logged on
    keys = _RequestKeys()
    marks = _Breakpoints()
    by_step: dict[int, list[dict[str, Any]]] = {}  # the breakpoints of the request of each step's last call
    prefilled: dict[int, list[Any]] = {}  # the prefill that request ended with, its reply's turn going on from it
    others_sent: list[int] = []  # the lines of the calls that sent another conversation than the run's
    for number, (call_line, call_request, call_response, others) in enumerate(entries):
        here = Where(path, call_line, "")
        # every call's request is read as the longest one is: a broken one is an error on its line
        said_now = (
            said if number == longest else normalise_messages(call_request["messages"], here.at(where.field), known)
        )
        sent = messages if number == longest else joined_turns(said_now, here.at(where.field))
        ours = _continues(sent, messages, call_response)
        if not ours:
            others_sent.append(call_line)
        if call_response is None:
            exchange = others.get("response")
            if others.get("type") == "model_call_error" and isinstance(others.get("error"), Mapping):
                what = f"call {number + 1} gave no complete reply ({failure_text(others)}): no model call is made of it"
            elif isinstance(exchange, Mapping) and "failure" in exchange:  # a logged HTTP response (_Exchanges)
                what = f"call {number + 1} gave no reply ({exchange['failure']}): no model call is made of it"
            else:
                what = "the call has no response: no model call is made of it"
            warnings.append(here.warning(what))
            continue
        try:
            check_reply(call_response, where="response")
        except ValueError as error:
            raise here.error(str(error)) from None
        step = step_decided(call_request["messages"])
        record: dict[str, Any] = {"type": "model_call", "step": step, "response": call_response}
        latency = others.get("latency_ms")
        if _number(latency):
            record["latency_ms"] = latency
        retried = others.get("retried")
        if _tries(retried):  # a recorded call's tries before its last: the model call's, as its latency is
            record["retried"] = retried
        if others.get("tries_known") is False:  # a recording that did not know how many tries the call took
            record["tries_known"] = False
        try:
            record["request_key"] = keys.key(call_request, said_now)
        except ValueError as error:
            raise here.at("request").error(str(error)) from None
        record["request"] = call_request
        if ours:
            by_step[step] = marks.of(sent)
            ended_with = prefill_of(sent)
            if ended_with is not None:  # the turns hold it merged with the reply: the view at the step ends with it
                prefilled[step] = [_uncached(block) for block in ended_with["content"]]
            else:
                prefilled.pop(step, None)
        calls.append((record, ours))
        call_lines.append(call_line)
    if others_sent:
        warnings.append(
            Where(path, others_sent[0]).warning(
                f"{plural(len(others_sent), 'call')} ({_lines_said(others_sent)}) sent another conversation than the "
                f"run's (its longest call is on line {line}): a side request, another session, a compaction's request "
                "or the conversation after it. Each is a model call of the step being decided when it was made, the "
                "step of the run's next call in the log (after its last, the step after the last)"
            )
        )
    final = response if response is not None and messages and messages[-1]["role"] == "user" else None
    held = marks.of(messages)
    breakpoints = None
    if held or any(by_step.values()):  # the turns are kept without them, and each view has its own request's
        breakpoints = (held, by_step)
        messages = _unmarked(messages, held)
    prefill = prefill_of(messages) if response is not None else None
    if response is not None and prefill is not None:
        # the longest call ended with a prefill: the turn the model went on with, the decision of the step it decided
        blocks = continued(prefill, response, joined=True) or continued(prefill, response, joined=False) or []
        (turn,) = normalise_messages([{**prefill, "content": blocks}], Where(path, line, "response"))
        messages = [*messages[:-1], turn]
    started = next((time_of(at) for entry in entries if is_time(at := _sent_at(entry))), None)
    if started is None and is_time(began):
        started = time_of(began)
    unanswered = response is None and prefill_of(messages) is not None
    if unanswered:
        # no reply went on from it: the turn stays as sent, the last step, and the warning says whose it is
        warnings.append(where.at(f"[{len(messages) - 1}]").warning(prefill_said(step_decided(messages))))
    return conversation_run(
        messages,
        where=where,
        run_id=run_id,
        source={**_kept(origin, entries, messages), "calls": len(entries)},
        request=request,
        calls=_side_calls_placed(calls),
        call_lines=call_lines,
        final=final,
        summarise=summarise,
        warnings=warnings,
        replies_checked=True,  # each reply, above
        started_at=started,
        breakpoints=breakpoints,
        prefill=unanswered,
        prefilled=prefilled,
        end=end,
    )


def _sent_at(entry: Entry) -> Any:
    """When the call ``entry`` was sent, as its log wrote it: claude-trace's ``request.timestamp`` (seconds since
    1970, its exchange's envelope kept beside the call); ``None`` where the log does not say (a call log's own
    ``timestamp`` may be when the call was logged, after its reply)."""
    exchange = entry.others.get("request")
    return exchange.get("timestamp") if isinstance(exchange, Mapping) else None


def _continues(
    sent: Sequence[Mapping[str, Any]], messages: Sequence[Mapping[str, Any]], reply: Mapping[str, Any] | None = None
) -> bool:
    """Whether a call that ``sent`` these messages (and got ``reply``) was a call of the conversation ``messages``:
    its first and last messages are the conversation's at their places (told apart by those two, so a log of many
    calls costs no pass over each call's messages). A last message that is a prefill (``step_decided``) is the
    conversation's if the conversation's turn there is the prefill and the reply merged (``_prefilled``)."""
    if not sent:
        return True
    last = len(sent) - 1
    if last >= len(messages) or not _same(sent[0], messages[0]):
        return False
    return _same(sent[last], messages[last]) or (reply is not None and _prefilled(sent[last], reply, messages[last]))


def _prefilled(prefill: Mapping[str, Any], reply: Mapping[str, Any], turn: Mapping[str, Any]) -> bool:
    """Whether the assistant ``turn`` is the ``prefill`` a request ended with, continued by the ``reply`` to it
    (``_api_rules.continued``, its blocks joined or not)."""
    if prefill.get("role") != "assistant" or turn.get("role") != "assistant":
        return False
    merged = content_blocks(turn.get("content"))
    if merged is None:
        return False
    for joined in (False, True):
        blocks = continued(prefill, reply, joined=joined)
        if blocks is not None and len(merged) == len(blocks) and all(map(_same_block, merged, blocks)):
            return True
    return False


def _same(message: Any, other: Any) -> bool:
    """Whether two messages say the same, wherever a cache breakpoint sits in them, whether a text is a string or
    a text block and whether a field is null or absent (``_compared``): a client such as Claude Code marks the last
    block it sends, so a message is sent with the mark once and without it after, and sends a prompt it sent as a
    block as a string after; an agent that appends a reply's blocks as the SDK dumps them sends null fields the
    reply did not have."""
    if message is other or message == other:
        return True
    if not isinstance(message, Mapping) or not isinstance(other, Mapping) or message.get("role") != other.get("role"):
        return False
    blocks, others = content_blocks(message.get("content")), content_blocks(other.get("content"))
    if blocks is None or others is None or len(blocks) != len(others):
        return False
    return all(map(_same_block, blocks, others))


def _longest(entries: Sequence[Entry], calls: Sequence[int]) -> int:
    """The call of ``calls`` whose request holds the most messages (the later of equals)."""
    return max(calls, key=lambda i: (len(entries[i].request["messages"]), i))


def _conversations(entries: Sequence[Entry]) -> list[list[int]]:
    """The log's calls by the conversation they sent, told by its opening message (found in one pass): first the
    conversation that grew over the most calls, whose calls sent the most lengths of it (then: the most calls, then
    the longest call, the later of equals), then the others in the order of their first call. A call that sent no
    message is one of the first.

    A log of one agent's calls holds one conversation. One of Claude Code's holds side requests too (a quota
    check, a title: conversations of their own, a quota check the same one many times, which never grows),
    other sessions, a compaction's request (the conversation, its opening reordered, then a request for its
    summary, sent once) and the conversation after it.
    """
    conversations: dict[bytes, list[int]] = {}  # the opening's text, as _opening_key makes it: its calls
    of_call: list[list[int]] = []
    empty: list[int] = []
    for number, entry in enumerate(entries):
        messages = entry.request["messages"]
        if not messages:
            empty.append(number)
            of_call.append([])
            continue
        opening = messages[0]
        found = of_call[-1] if of_call else []
        if not found or opening is not entries[found[0]].request["messages"][0]:  # _Prefix shares an equal opening
            found = conversations.setdefault(_opening_key(opening), [])
        found.append(number)
        of_call.append(found)
    found_all = list(conversations.values())
    if not found_all:
        return [empty]

    def grown(calls: list[int]) -> tuple[int, int, int, int]:
        longest = _longest(entries, calls)
        lengths = {len(entries[i].request["messages"]) for i in calls}
        return (len(lengths), len(calls), len(entries[longest].request["messages"]), longest)

    first = max(found_all, key=grown)
    others = [calls for calls in found_all if calls is not first]  # dicts keep the order of their first calls
    return [sorted([*first, *empty]), *others]


def _opening_key(message: Any) -> bytes:
    """An opening message as ``_same`` compares it, as JSON: its role and blocks, each as the API reads it
    (``_compared``), a text given as a string as its block. Two openings that say the same have the same key."""
    if not isinstance(message, Mapping):
        return _encode_key(message)
    blocks = content_blocks(message.get("content"))
    content = [_compared(block) for block in blocks] if blocks is not None else message.get("content")
    return _encode_key({"role": message.get("role"), "content": content})


def _encode_key(value: Any) -> bytes:
    try:
        return msgspec.json.encode(value)
    except (TypeError, UnicodeEncodeError, OverflowError):  # a lone surrogate, a number JSON cannot hold
        return repr(value).encode("utf-8", "backslashreplace")


class _Breakpoints:
    """Where each of a log's requests had its cache breakpoints (``runfile.Sent.breakpoints``), read as the requests
    are: a message that is the one at its place in the request before (``_Prefix``, ``normalise_messages``) is not
    read again, so a log of ``n`` calls costs its messages, not ``n`` times them."""

    __slots__ = ("marked", "messages")

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.marked: list[tuple[int, list[tuple[int, Any]]]] = []
        """The request before's messages that hold a breakpoint: each one's index, and its blocks' that do."""

    def of(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The breakpoints of a request whose messages (normalised: each content a list of blocks) are ``messages``,
        each ``{"message", "block", "cache_control"}``."""
        same = list(map(operator.is_, messages, self.messages))
        shared = same.index(False) if False in same else len(same)
        marked = [(index, found) for index, found in self.marked if index < shared]
        for index in range(shared, len(messages)):
            found = [
                (position, block["cache_control"])
                for position, block in enumerate(messages[index]["content"])
                if isinstance(block, Mapping) and "cache_control" in block
            ]
            if found:
                marked.append((index, found))
        self.messages, self.marked = messages, marked
        return [
            {"message": index, "block": position, "cache_control": control}
            for index, found in marked
            for position, control in found
        ]


def _unmarked(messages: list[dict[str, Any]], marks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` with no block holding a cache breakpoint (``marks``: where they are): a copy of each message that
    held one, the others as they are."""
    out = list(messages)
    for index in {mark["message"] for mark in marks}:
        message = out[index]
        out[index] = {**message, "content": [_uncached(block) for block in message["content"]]}
    return out


def _same_block(block: Any, other: Any) -> bool:
    return bool(block == other or _compared(block) == _compared(other))


def _compared(block: Any) -> Any:
    """A block as the API reads it, the form two blocks are compared in: without its cache breakpoints
    (``cache_control``), which say nothing of what the block holds, and without a field whose value is null, in it
    or in what it holds (a citation, a search result), which the API takes as absent: an agent that appends a reply's
    blocks as the SDK's ``block.model_dump()`` gives them sends ``"citations": null`` where the reply had no key. A
    tool use's ``input`` is the model's own JSON, its nulls values, and stays as it is."""
    if isinstance(block, Mapping):
        return {
            key: value if key == "input" else _compared(value)
            for key, value in block.items()
            if value is not None and key != "cache_control"
        }
    if isinstance(block, list):
        return [_compared(value) for value in block]
    return block


def _uncached(block: Any) -> Any:
    """A block without its cache breakpoint (``cache_control``), which says nothing of what the block holds."""
    if isinstance(block, Mapping) and "cache_control" in block:
        return {key: value for key, value in block.items() if key != "cache_control"}
    return block


def _side_calls_placed(calls: Sequence[tuple[dict[str, Any], bool]]) -> list[dict[str, Any]]:
    """The model call records in log order, each call of another conversation (``False`` beside it) made a call of
    the step being decided when it was made: the step of the run's next call in the log, after the last one the
    step after it (which the run does not hold). Each step's last call is then a reply of the run's conversation,
    the one its decision came from (``Run.last_calls``), and no side request's stop reason is its turn's.
    """
    placed = [record for record, _ in calls]
    upcoming: int | None = None
    last = max((record["step"] for record, ours in calls if ours), default=-1)
    for record, ours in reversed(calls):
        if ours:
            upcoming = record["step"]
        else:
            record["step"] = upcoming if upcoming is not None else last + 1
    return placed


def _kept(origin: Mapping[str, Any], entries: Sequence[Entry], messages: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The run's ``source``: where it came from, with what the run's records have no place for, so nothing is lost.

    ``entries`` holds, for each call that had fields beside its request and response (a
    ``timestamp``, a ``trace_id``, a ``cost``, an ``error``), its index, line and those fields;
    ``message_fields``, for each message of the steps with fields beside its role and content (a
    ``name``, an ``id``, a ``timestamp``), its index and those fields. (Each call's request, with
    its messages' fields, is kept whole in its model call.)
    """
    kept = dict(origin)
    extra = [
        {"call": number, "line": entry.line, "fields": fields}
        for number, entry in enumerate(entries)
        if (fields := {key: value for key, value in entry.others.items() if not _held(entry, key, value)})
    ]
    if extra:
        kept["entries"] = extra
    shown = [
        {"message": number, "fields": {key: value for key, value in message.items() if key not in ("role", "content")}}
        for number, message in enumerate(messages)
        if len(message) > 2
    ]
    if shown:
        kept["message_fields"] = shown
    return kept


def _held(entry: Entry, key: str, value: Any) -> bool:
    """Whether the field ``key`` of a call's ``entry`` is its model call's (``_conversation``), not the source's."""
    if key == "latency_ms":
        return _number(value)
    if key == "tries_known":
        return entry.response is not None and value is False
    return key == "retried" and entry.response is not None and _tries(value)  # a call that gave no reply keeps its own


def _tries(value: Any) -> bool:
    """Whether ``value`` is a recording's ``retried``, a list of tries a run file's model call holds."""
    if not isinstance(value, list) or not value:
        return False
    try:
        msgspec.convert(value, list[TryRecord], strict=True)
    except msgspec.ValidationError:
        return False
    return True


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def request_key(request: Mapping[str, Any]) -> str:
    """The replay key an import gives the call of the request body ``request`` (its ``ModelCall.request_key``).

    ``render.replay_key`` over the request as a view renders it: a message's string content as
    one text block, a system sent as blocks as its text. Raises ``RunFileError`` for messages
    that are not the API's (naming the message and field).
    """
    return _RequestKeys().key(
        request, normalise_messages(request.get("messages"), Where("request body", 1, "messages"))
    )


class _RequestKeys:
    """The replay keys of a log's calls, as sent (``render.ReplayKeys``: each call's messages hashed on from the
    call before's, which it repeats, so the keys cost the conversation's length, not the log's)."""

    __slots__ = ("keys", "viewed")

    def __init__(self) -> None:
        self.keys = render.ReplayKeys()
        self.viewed: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}
        """Each normalised message (by ``id``, kept alive here) with its view: the same view for every call."""

    def key(self, request: Mapping[str, Any], messages: list[dict[str, Any]]) -> str:
        """The replay key of ``request`` as it was sent (``messages``: its messages normalised)."""
        tools = request.get("tools")
        max_tokens = request.get("max_tokens")
        return self.keys.key(
            [self._view(message) for message in messages],
            # a system sent as blocks is hashed as its text, as Run.system (and so Views) has it
            system=system_text(request.get("system", "")),
            tools=list(tools) if isinstance(tools, list) else [],
            model=str(request.get("model", "")),
            max_output_tokens=max_tokens if isinstance(max_tokens, int) else 0,
        )

    def _view(self, message: dict[str, Any]) -> dict[str, Any]:
        """``message`` as a view renders it: its role, then its content (each block as it was sent)."""
        known = self.viewed.get(id(message))
        if known is None:
            known = self.viewed[id(message)] = (message, {"role": message["role"], "content": message["content"]})
        return known[1]


# A request body of the blocks nearly every conversation is made of, checked in one pass in C: each record is
# the block or message as the API has it and nothing more (an unknown field fails the decoding), so a body
# of anything else, or anything wrong, is read by the path above, which keeps every field and words every
# error. The records only check: a struct gives its fields in its own order, and the view of a step must be
# the bytes that were sent, so each turn is decoded from its own JSON text, as the file has it, when its
# step is first read (``_Turns``).


class _Text(msgspec.Struct, tag_field="type", tag="text", frozen=True, gc=False, forbid_unknown_fields=True):
    """A text block."""

    text: str


# A tool input's values, to four levels of arrays and objects: an input nested deeper (rare, and never past the
# limit here) is read by the path of JSON values, which measures it; these are decoded in C and need no measure.
_Json0: TypeAlias = str | int | float | bool | None
_Json1: TypeAlias = _Json0 | list[_Json0] | dict[str, _Json0]
_Json2: TypeAlias = _Json0 | list[_Json1] | dict[str, _Json1]
_Json3: TypeAlias = _Json0 | list[_Json2] | dict[str, _Json2]
_Json4: TypeAlias = _Json0 | list[_Json3] | dict[str, _Json3]


class _ToolUse(msgspec.Struct, tag_field="type", tag="tool_use", frozen=True, gc=False, forbid_unknown_fields=True):
    """A tool use: its input an object (of values nested at most four levels), or the raw text of arguments that
    were not one."""

    id: str
    name: str
    input: dict[str, _Json4] | str


class _ToolResult(
    msgspec.Struct, tag_field="type", tag="tool_result", frozen=True, gc=False, forbid_unknown_fields=True
):
    """A tool's result; ``UNSET`` for a field the block does not have. Its content, text or text blocks, is kept as
    its JSON text, checked by ``_plain_results``: a result of 30 KiB is not made a string only to be checked."""

    tool_use_id: str
    content: msgspec.Raw | UnsetType = UNSET
    is_error: bool | UnsetType | None = UNSET


class _Message(msgspec.Struct, frozen=True, gc=False, forbid_unknown_fields=True):
    """A message of the conversation: its role and its content, text or blocks."""

    role: Literal["user", "assistant"]
    content: str | tuple[_Text | _ToolUse | _ToolResult, ...]


_MESSAGES = msgspec.json.Decoder(list[_Message])


_API_FIELDS = (
    "model",
    "max_tokens",
    "system",
    "tools",
    "tool_choice",
    "temperature",
    "top_k",
    "top_p",
    "stop_sequences",
    "stream",
    "metadata",
    "thinking",
    "service_tier",
    "container",
    "mcp_servers",
    "context_management",
    "output_config",  # Claude Code 2.1 sends it (the real claude-trace log)
    "anthropic_version",  # a body sent through Bedrock or Vertex AI
)
"""The fields of a Messages API request beside its messages. A body of plain messages and these is decoded in one
pass (``_BODY``); one with a field the API does not have fails it, and is read again field by field (1,000 turns
of 60 B results with such a field after the messages: 0.86 -> 1.31 ms, the messages decoded twice)."""

# with the fields beside the messages in what is not a body (a request's envelope, a body with its reply), so that
# such a file is not decoded whole only to fail on them
_BODY = body_decoder(_Message, (*_API_FIELDS, *ANTHROPIC_REQUEST_KEYS, *_RESPONSE_KEYS))


def _body_run(
    messages: list[_Message],
    data: bytes,
    request: dict[str, Any],
    path: str,
    run_id: str | None,
    summarise: Summariser | None,
) -> Run | None:
    """The run of a body ``request_body`` checked as records (``data``: the file's bytes): the checks
    ``conversation_run`` makes, made on the records.
    """
    where = Where(path, 1, "messages")
    if not messages:
        raise where.error("the conversation has no messages")
    if "betas" in request:
        return None  # the SDK's betas, kept beside the request (``_entries``): read by the path of JSON values
    roles = [message.role for message in messages]
    if roles[0] != "user":
        raise where.at("[0].role").error("a conversation starts with a user turn (the opening)")
    if any(before == after for before, after in pairwise(roles)):
        return None  # turns the API combines: read by the path of JSON values, which combines them as it does
    blocks = _tool_blocks(messages)
    if blocks is None or not _plain_results(blocks[2]):
        return None
    uses, answered, _ = blocks
    prefilled = _prefill_warning(roles, request, where)
    warnings = RunWarnings(prefilled)  # before the checks', as on the path of values
    if uses[: len(answered)] != answered:
        warnings.extend(_unanswered(messages, where))
    turns = _Turns(data, messages)
    return checked_run(
        turns,
        where=where,
        run_id=run_id or Path(path).name,
        source={"format": "anthropic-messages", "path": path},
        request=request,
        summarise=summarise,
        warnings=warnings,
        prefill=bool(prefilled),
    )


def _prefill_warning(roles: Sequence[str], request: Mapping[str, Any], where: Where) -> list[RunWarning]:
    """The warning of a request body whose messages (their ``roles``) end with an assistant one, which the run keeps as
    its last step: sent as it is, that is a prefill. A body with ``max_tokens``, as the API takes it, only: a bare
    ``messages`` list was never a request, and ends with a reply when saved after it."""
    if "max_tokens" not in request or not roles or roles[-1] != "assistant":
        return []
    return [where.at(f"[{len(roles) - 1}]").warning(prefill_said(roles.count("assistant") - 1, saved=True))]


def _tool_blocks(messages: list[_Message]) -> tuple[list[str | None], list[str | None], list[msgspec.Raw]] | None:
    """``(uses, answered, results)``: the ids of each reply's tool uses and of the results of each user turn after
    the opening, each turn's ended by ``None``, and every result's content; ``None`` when a result is anywhere
    else (the opening, a reply: it answers nothing there), for the path of JSON values to read.

    Each turn's uses are answered when ``uses[: len(answered)] == answered`` (a reply with nothing after it
    answers nothing); which are not, and the warning of each, ``_unanswered`` says. Plain loops over flat lists:
    a comprehension a turn cost a call and a list each, and the lists set the collector off.
    """
    opening = messages[0].content
    if type(opening) is tuple and _ToolResult in map(type, opening):
        return None
    uses: list[str | None] = []
    for message in messages[1::2]:
        content = message.content
        if type(content) is tuple:
            for block in content:
                if type(block) is _ToolUse:
                    uses.append(block.id)
                elif type(block) is _ToolResult:
                    return None
        uses.append(None)
    answered: list[str | None] = []
    results: list[msgspec.Raw] = []
    for message in messages[2::2]:
        if type(message.content) is tuple:
            for block in message.content:
                if type(block) is _ToolResult:
                    answered.append(block.tool_use_id)
                    if block.content is not UNSET:
                        results.append(block.content)
        answered.append(None)
    return uses, answered, results


def _unanswered(messages: list[_Message], where: Where) -> Iterator[RunWarning]:
    """The warning of each assistant turn whose tool uses the next turn leaves unanswered (``unanswered_warning``),
    in order: what ``_tool_blocks`` found, worded turn by turn."""
    contents = [message.content if type(message.content) is tuple else () for message in messages]
    for j, (content, reply) in enumerate(zip(contents[1::2], contents[2::2], strict=False)):
        made = [block.id for block in content if type(block) is _ToolUse]
        got = [block.tool_use_id for block in reply if type(block) is _ToolResult]
        if warning := unanswered_warning(where, 2 * j + 1, made, got):
            yield warning


_RESULT_TEXTS = msgspec.json.Decoder(list[_Text])
_TEXT_OR_LIST = b'"['
_FIRST = itemgetter(0)


def _plain_results(contents: list[msgspec.Raw]) -> bool:
    """Whether each result's content (its JSON text, which the decoder checked is JSON) is text or text blocks.

    The first byte of each is read through a view of it, in C; the lists are decoded as records. The text of a
    string was checked as it was skipped (its escapes), but not as UTF-8: ``request_body`` checks the file.
    """
    firsts = bytes(map(_FIRST, map(memoryview, contents)))  # type: ignore[arg-type]  # Raw is a buffer; its stubs omit it
    if firsts.translate(None, _TEXT_OR_LIST):
        return False
    try:
        for content, first in zip(contents, firsts, strict=True):
            if first == _TEXT_OR_LIST[1]:
                _RESULT_TEXTS.decode(content)
    except msgspec.ValidationError:
        return False
    return True


class _Turns(MadeTurns):
    """The body's messages in the wire shape, each decoded from its JSON text when first read: its fields and
    its blocks' fields in the file's order, so a view of the run is the bytes the body sent.

    The messages' text is split into each message's when a turn is first read, not before: an import reads only
    the opening, made of its record when it is text (one text block, whose fields have no order of the file's).
    """

    __slots__ = ("_data", "_opening", "_texts")

    def __init__(self, data: bytes, messages: list[_Message]) -> None:
        super().__init__(len(messages))
        self._data = data
        self._texts: list[msgspec.Raw] | None = None
        opening = messages[0].content
        self._opening = opening if type(opening) is str else None

    def make(self, at: int) -> dict[str, Any]:
        if at == 0 and self._opening is not None:
            return {"role": "user", "content": [{"type": "text", "text": self._opening}]}
        if self._texts is None:
            self._texts = message_texts(self._data)
        message: dict[str, Any] = msgspec.json.decode(self._texts[at])
        if type(message["content"]) is str:  # the records checked it: text, or blocks as the API has them
            message["content"] = [{"type": "text", "text": message["content"]}]
        return message
