"""Anthropic Messages API conversations and call logs, as runs that render exactly what was sent.

``from_anthropic(source)`` takes any of these, from a dict or list, a ``.json`` file or a
``.jsonl`` file:

- a request body: ``{"model", "system", "tools", "messages", "max_tokens", ...}``;
- a bare ``messages`` list;
- a request and the ``Message`` that answered it: ``{"request": {...}, "response": {...}}``
  (also ``params``/``body`` for the request, ``message`` for the reply);
- a call log: a list (or ``.jsonl`` lines) of such request/response pairs, one per model call
  an agent made. Each call becomes a model call of the run, made for the step its request
  decides; the steps come from the longest conversation (the call whose request holds the
  most messages, with its reply as the last step);
- a recording ``agentrender.record`` wrote (a run file, ``.jsonl`` or ``.jsonl.gz``, of
  ``model_call`` records holding their ``request``): read as a call log, each
  ``model_call_error`` record a warning naming the call that gave no reply.

Every block type the API has (text, image, document, thinking, redacted thinking, tool use,
tool results with text or blocks and ``is_error``, server tool uses and their results, search
results, citations, cache control) is kept as it was read. Standard library only.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

from agentrender import render
from agentrender._api_rules import system_text
from agentrender._fast import paused
from agentrender._json import decode_failure, strict_loads
from agentrender.imports.conversation import Summariser, Where, conversation_run, normalise_messages, own_copy
from agentrender.runfile import Run, RunFileError, RunWarning, failure_text
from agentrender.runfile.lines import GZIP_MAGIC, StreamError, gzip_lines, inflate_limit
from agentrender.runfile.replies import check_reply

__all__ = ["collector_while_reading", "from_anthropic", "looks_like_anthropic", "read_json_values"]

_REQUEST_KEYS = ("request", "params", "body")
_RESPONSE_KEYS = ("response", "message")


def looks_like_anthropic(value: Any) -> bool:
    """True when ``value`` has the shape of something ``from_anthropic`` reads (checked loosely, for ``load``)."""
    if isinstance(value, Mapping):
        if "messages" in value:
            return _messages_look_anthropic(value["messages"])
        request = _first(value, _REQUEST_KEYS)
        return isinstance(request, Mapping) and looks_like_anthropic(request)
    if isinstance(value, list) and value:
        if any(isinstance(item, Mapping) and "role" in item for item in value):
            return _messages_look_anthropic(value)
        return all(looks_like_anthropic(item) for item in value[:3])
    return False


_OTHER_ROLES = ("system", "tool", "developer", "function")
"""Roles OpenAI-style chats have and Anthropic's do not: a message with one is another format's."""


def _messages_look_anthropic(messages: Any) -> bool:
    # Only a sign of another format (an OpenAI-style chat's roles or tool_calls) rules a file out, so
    # a conversation with a broken message is read here and its error names the field.
    if not isinstance(messages, list):
        return True
    return not any(
        isinstance(m, Mapping) and (m.get("role") in _OTHER_ROLES or "tool_calls" in m or "function_call" in m)
        for m in messages
    )


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
    the file, line and field of what cannot be read.
    """
    with collector_while_reading(source):
        return _from_anthropic(source, run_id, summarise)


def _from_anthropic(source: Any, run_id: str | None, summarise: Summariser | None) -> Run:
    notes: list[RunWarning] = []
    recording = False
    if isinstance(source, str | os.PathLike):
        path = str(source)
        calls = read_json_values(path, notes)
        name = Path(path).name
        origin: dict[str, Any] = {"format": "anthropic-messages", "path": path}
        header = calls[0][1]
        if isinstance(header, Mapping) and header.get("type") == "run":
            recording = True
            calls = _recorded_calls(calls[1:], path, notes)
            source_field = header.get("source")
            origin = {**(source_field if isinstance(source_field, Mapping) else {}), "path": path}
            name = str(header.get("run_id") or name)
    else:
        path, name = "<anthropic>", "conversation"
        calls = [(1, own_copy(source, path))]  # checked to be JSON, and never shared with the caller
        origin = {"format": "anthropic-messages"}
    entries = _entries(calls, path)
    if not recording and len(entries) == 1 and entries[0][2] is None:
        line, request, _, _ = entries[0]
        where = Where(path, line, "messages" if isinstance(calls[0][1], Mapping) else "")
        messages = normalise_messages(request["messages"], where)
        warnings: list[RunWarning] = list(notes)
        return conversation_run(
            messages,
            where=where,
            run_id=run_id or name,
            source=origin,
            request=request,
            summarise=summarise,
            warnings=warnings,
        )
    if not entries:
        raise RunFileError(path, 1, "the recording holds no model call yet: there is no conversation to import")
    return _from_calls(entries, path, run_id or name, origin, summarise, notes)


def _recorded_calls(records: list[tuple[int, Any]], path: str, notes: list[RunWarning]) -> list[tuple[int, Any]]:
    """A recording's calls: its ``model_call`` and ``model_call_error`` records, each holding its request."""
    calls = []
    for line, record in records:
        kind = record.get("type") if isinstance(record, Mapping) else None
        if kind not in ("model_call", "model_call_error"):
            notes.append(Where(path, line).warning(f"a {kind!r} record is not a call of the recording; not imported"))
            continue
        if not isinstance(record.get("request"), Mapping):
            raise Where(path, line, f"{kind}.request").error("missing: a recorded call holds the request it sent")
        calls.append((line, record))
    return calls


def _text(path: str, notes: list[RunWarning]) -> str:
    """The file's text; a gzip stream is read up to where it ends (a recording killed while it was written)."""
    with open(path, "rb") as file:
        if file.peek(2)[:2] != GZIP_MAGIC:
            return file.read().decode("utf-8")
        stream_notes: list[str] = []
        try:
            data = b"".join(gzip_lines(file, stream_notes, inflate_limit(os.fstat(file.fileno()).st_size)))
        except StreamError as error:
            raise RunFileError(path, error.line or 1, str(error)) from None
    notes.extend(RunWarning(line=1, text=text, path=path, lost=True) for text in stream_notes)
    return data.decode("utf-8")


def collector_while_reading(source: Any) -> AbstractContextManager[None]:
    """How the cyclic collector runs while ``source`` is imported: paused for a file of JSON lines, else on.

    A file of JSON lines is a log of many values (a call log holds the conversation once per
    call): with the collector on, its full passes over all that the import holds would come
    again and again, and pausing it (``_fast.paused``) costs one collection at the end. One
    JSON document, whose steps are made when first read, is the parse's objects alone: the
    collector's passes as the parse goes touch what was just made, and cost less than that
    one collection over them all after it (measured in ``bench/bench_imports.py``).
    """
    if isinstance(source, str | os.PathLike) and os.fspath(source).endswith((".jsonl", ".jsonl.gz")):
        return paused()
    return nullcontext()


def read_json_values(path: str, notes: list[RunWarning]) -> list[tuple[int, Any]]:
    """The JSON values of a file: one for a ``.json`` document, one per line for JSON Lines (gzip-compressed too).

    A last line cut short (a log whose writer was stopped mid-line) is left out, with a warning in ``notes``.
    """
    try:
        text = _text(path, notes)
    except UnicodeDecodeError as error:
        raise RunFileError(path, 1, f"not UTF-8 text ({error.reason} at byte {error.start})") from None
    except OSError as error:
        raise RunFileError(path, 0, f"cannot read the file ({error.strerror or error})") from None
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped[:1] in ("{", "[") and not path.endswith(".jsonl"):
        try:
            return [(1, strict_loads(stripped))]
        except ValueError as error:
            if stripped[:1] == "[" or "\n{" not in stripped:
                raise RunFileError(path, getattr(error, "lineno", 1), decode_failure(error)) from None
    values = []
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            values.append((number, strict_loads(line)))
        except ValueError as error:
            if number == len(lines) and not text.endswith("\n") and values:
                # a log cut short while its last call was written: the calls before it stand
                notes.append(RunWarning(line=number, text=f"the last line is cut short ({error}); not read", path=path))
                break
            raise RunFileError(path, number, decode_failure(error)) from None
    if not values:
        raise RunFileError(path, 1, "the file holds no JSON value")
    return values


Entry = tuple[int, dict[str, Any], "dict[str, Any] | None", "Mapping[str, Any]"]


def _entries(values: Sequence[tuple[int, Any]], path: str) -> list[Entry]:
    """Each value as ``(line, request, response or None, the value)``; a list value is a log of calls."""
    out: list[Entry] = []
    for line, value in values:
        items = value if isinstance(value, list) and value and not _is_message(value[0]) else [value]
        for position, item in enumerate(items):
            where = Where(path, line, f"[{position}]" if items is not value and len(items) > 1 else "")
            out.append(_entry(item, line, where))
    return out


def _is_message(value: Any) -> bool:
    return isinstance(value, Mapping) and "role" in value


def _entry(item: Any, line: int, where: Where) -> Entry:
    if isinstance(item, list):
        return line, {"messages": item}, None, {}
    if not isinstance(item, Mapping):
        raise where.error(
            f"expected a request, a list of messages or a request with its response, got {type(item).__name__}"
        )
    request = _first(item, _REQUEST_KEYS)
    if request is None:
        if "messages" not in item:
            raise where.error(
                "no 'messages' (a request body), no 'request' (a call with its response): not a Messages API "
                "conversation"
            )
        return line, dict(item), None, item
    if not isinstance(request, Mapping) or not isinstance(request.get("messages"), list):
        raise where.at("request.messages").error("missing: a call's request holds its messages")
    response = _first(item, _RESPONSE_KEYS)
    if response is not None and not isinstance(response, Mapping):
        raise where.at("response").error(f"expected a Message object, got {type(response).__name__}")
    return line, dict(request), dict(response) if response is not None else None, item


def _first(value: Mapping[str, Any], keys: Sequence[str]) -> Any:
    for key in keys:
        if key in value:
            return value[key]
    return None


def _from_calls(
    entries: list[Entry],
    path: str,
    run_id: str,
    origin: Mapping[str, Any],
    summarise: Summariser | None,
    notes: Sequence[RunWarning] = (),
) -> Run:
    """A run of a call log: the longest conversation as its steps, every call as a model call."""
    warnings: list[RunWarning] = list(notes)
    longest = max(range(len(entries)), key=lambda i: (len(entries[i][1]["messages"]), i))
    line, request, response, _ = entries[longest]
    where = Where(path, line, "request.messages")
    messages = normalise_messages(request["messages"], where)
    calls = []
    for number, (call_line, call_request, call_response, item) in enumerate(entries):
        here = Where(path, call_line, "")
        # every call's request is read as the longest one is: a broken one is an error on its line
        sent = messages if number == longest else normalise_messages(call_request["messages"], here.at(where.field))
        if call_response is None:
            if item.get("type") == "model_call_error" and isinstance(item.get("error"), Mapping):
                what = f"call {number} gave no complete reply ({failure_text(item)}): no model call is made of it"
            else:
                what = f"call {number} has no response: no model call is made of it"
            warnings.append(here.warning(what))
            continue
        try:
            check_reply(call_response, where="response")
        except ValueError as error:
            raise here.error(str(error)) from None
        step = sum(1 for m in call_request["messages"] if isinstance(m, Mapping) and m.get("role") == "assistant")
        record: dict[str, Any] = {"type": "model_call", "step": step, "response": call_response}
        latency = item.get("latency_ms")
        if isinstance(latency, int | float) and not isinstance(latency, bool):
            record["latency_ms"] = latency
        try:
            record["request_key"] = _request_key(call_request, sent)
        except ValueError as error:
            raise here.at("request").error(str(error)) from None
        record["request"] = call_request
        calls.append(record)
    final = response if response is not None and messages and messages[-1]["role"] == "user" else None
    return conversation_run(
        messages,
        where=where,
        run_id=run_id,
        source={**origin, "calls": len(entries)},
        request=request,
        calls=calls,
        final=final,
        summarise=summarise,
        warnings=warnings,
        replies_checked=True,  # each reply, above
    )


def _request_key(request: Mapping[str, Any], messages: list[dict[str, Any]]) -> str:
    """The replay key of a request as it was sent (``messages``: its messages normalised)."""
    tools = request.get("tools")
    max_tokens = request.get("max_tokens")
    return render.replay_key(
        # each message as a view renders it (its role, then its content); each block as it was sent
        [{"role": message["role"], "content": message["content"]} for message in messages],
        # a system sent as blocks is hashed as its text, as Run.system (and so Views) has it
        system=system_text(request.get("system", "")),
        tools=list(tools) if isinstance(tools, list) else [],
        model=str(request.get("model", "")),
        max_output_tokens=max_tokens if isinstance(max_tokens, int) else 0,
    )
