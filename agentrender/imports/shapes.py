"""What each format ``load`` reads looks like: the tests ``imports.detect`` recognises a file by, kept apart from the
importers so that looking at a file imports none of them (``load`` then imports the one importer its file needs).

Each test takes a file's first JSON value (``looks_like_inspect`` its path too) and says, loosely, whether the
format's importer reads it; the importer itself says exactly what is wrong with a file it takes. The few constants a
test and its importer share (the keys a log holds a request under, a Codex rollout's record types) are here, once.
"""

from __future__ import annotations

import gzip
import mmap
import os
import re
import zlib
from collections.abc import Mapping
from typing import Any

import msgspec

from agentrender.runfile.lines import GZIP_MAGIC, name_ends, open_inflated

__all__ = [
    "ANTHROPIC_REQUEST_KEYS",
    "CODEX_RECORDS",
    "EVAL_LOG_NAMES",
    "JSON_LOG_NAMES",
    "LANGCHAIN_ROLES",
    "OPENAI_REQUEST_KEYS",
    "RESPONSES_REQUEST_KEYS",
    "STREAM_TYPES",
    "SUB_AGENT_META",
    "ZIP_MAGIC",
    "is_exchange",
    "is_json_log",
    "is_old_codex_meta",
    "is_typescript_rollout",
    "looks_like_anthropic",
    "looks_like_claude_code",
    "looks_like_claude_code_stream",
    "looks_like_codex",
    "looks_like_inspect",
    "looks_like_openai",
    "looks_like_responses",
    "looks_like_tau_bench",
]

# Anthropic Messages API (imports.anthropic)

ANTHROPIC_REQUEST_KEYS = ("request", "params", "body")
"""The fields a Messages API call log may hold a request body under."""


def looks_like_anthropic(value: Any) -> bool:
    """True when ``value`` has the shape of something ``from_anthropic`` reads (checked loosely, for ``load``)."""
    if isinstance(value, Mapping):
        if "messages" in value:
            return _messages_look_anthropic(value["messages"])
        request = next((value[key] for key in ANTHROPIC_REQUEST_KEYS if key in value), None)
        # a logged HTTP exchange (claude-trace's) is one of a log whatever its first request was (a GET, a count)
        return isinstance(request, Mapping) and (is_exchange(request) or looks_like_anthropic(request))
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


def is_exchange(request: Any) -> bool:
    """Whether a call's ``request`` is an HTTP request around its body, as claude-trace logs it."""
    return isinstance(request, Mapping) and "body" in request and "url" in request and "messages" not in request


# Claude Code (imports.claude_code)


def looks_like_claude_code(value: Any) -> bool:
    """True when ``value`` (a file's first JSON value) is a line of a Claude Code transcript."""
    if not isinstance(value, Mapping) or not isinstance(value.get("type"), str):
        return False
    if "sessionId" in value or "parentUuid" in value or "leafUuid" in value:
        return True
    return value.get("type") == "file-history-snapshot" and "snapshot" in value


STREAM_TYPES = frozenset((
    "user", "assistant", "system", "result", "stream_event", "rate_limit_event", "tool_progress", "tool_use_summary",
    "auth_status", "conversation_reset", "control_request", "control_response", "control_cancel_request", "keep_alive",
))  # fmt: skip
"""The types of the messages Claude Code writes headless (``claude -p --output-format stream-json --verbose``) and the
Agent SDK yields (``parse_message`` of anthropics/claude-agent-sdk-python, the TypeScript SDK's ``SDKMessage``)."""


def looks_like_claude_code_stream(value: Any) -> bool:
    """True when ``value`` (a file's first JSON value) starts what Claude Code writes headless: its ``stream-json``
    output, the Agent SDK's messages written one a line, or the JSON array of them claude-code-action writes as its
    ``execution_file``. Such a stream opens with a ``system`` message (``init``, or a hook's before it) naming the
    session in ``session_id`` (a transcript's records name it ``sessionId``), or with a message that says which
    sub-agent's it is (``parent_tool_use_id``)."""
    if isinstance(value, list):
        return bool(value) and looks_like_claude_code_stream(value[0])
    if not isinstance(value, Mapping) or not isinstance(kind := value.get("type"), str) or "sessionId" in value:
        return False
    if kind == "system":
        return isinstance(value.get("subtype"), str) and ("session_id" in value or value["subtype"] == "init")
    if kind in ("user", "assistant"):
        return isinstance(value.get("message"), Mapping) and ("parent_tool_use_id" in value or "session_id" in value)
    return kind in STREAM_TYPES and "session_id" in value and "payload" not in value


SUB_AGENT_META = (".meta.json", ".meta.json.gz")
"""How the name of what Claude Code writes of a sub-agent beside its transcript ends (``claude_code``'s
``_meta_path``): plain, or compressed with it (``agent-<id>.jsonl.gz``, as ``gzip -r`` leaves a session's folder)."""

# Inspect AI (imports.inspect)

_JSON_LOG_START = re.compile(
    rb'\A(?:\xef\xbb\xbf)?\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:\s*"[^"]*"\s*,\s*"eval"\s*:\s*\{'
)
"""How Inspect starts a JSON log: ``{"version": N, "status": "...", "eval": {``. Inspect's ``EvalLog`` keeps its
fields in this order for the file format (a change of it is a new version), and its own reader of a header relies on
it."""

_START_BYTES = 4096
"""How much of a file ``is_json_log`` reads first: the start of a log, however it is indented."""
_LEADING = re.compile(rb"(?:\xef\xbb\xbf)?[ \t\r\n]*+")
_EVAL_OBJECT = re.compile(rb'"eval"\s*:\s*\{')


class _Members(msgspec.Struct, gc=False):
    """The members of a JSON object that tell an Inspect log (``looks_like_inspect``), each as the file holds it."""

    eval: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
    version: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
    samples: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET


EVAL_LOG_NAMES = (".eval", ".eval.gz")
"""How the name of an Inspect ``.eval`` log ends (``name_ends``, in any case): as Inspect writes it, or compressed with
gzip (as ``gzip -r`` leaves a logs folder)."""


ZIP_MAGIC = b"PK\x03\x04"
"""The first bytes of a zip archive (its first member's local header), as an ``.eval`` log starts."""

_ZIP_NAME_AT = 30
"""Where the name of a zip's first member begins, after its local header (its length at bytes 26-27)."""


def misnamed_eval_log(path: str) -> tuple[str, str]:
    """Of a file not named as an ``.eval`` log (``EVAL_LOG_NAMES``) that holds one all the same: the first member of its
    zip archive (inflated first, for a gzip stream), which tells an Inspect log (``_journal/start.json``, as Inspect
    writes one, or ``header.json``), and the name it should have (``log.bin``: ``log.eval``; a gzip stream ``log.gz``:
    ``log.eval.gz``). ``("", "")`` for any other file.

    Only the first member's local header is read. It is what the error of such a file says, not how ``load`` takes a
    log, which goes by its name, as the listing of a folder (``frame.run_files``) does."""
    try:
        opened, _ = open_inflated(path)
        packed = isinstance(opened, gzip.GzipFile)  # a gzip stream, by its magic bytes, inflated as it is read
        with opened as file:
            start = file.read(_ZIP_NAME_AT + 64)
    except (OSError, EOFError, zlib.error):
        return "", ""
    if not start.startswith(ZIP_MAGIC) or len(start) < _ZIP_NAME_AT:
        return "", ""
    size = int.from_bytes(start[26:28], "little")
    member = start[_ZIP_NAME_AT : _ZIP_NAME_AT + size].decode("utf-8", errors="replace")
    if not (member.startswith("_journal/") or member == "header.json"):
        return "", ""
    root = os.path.splitext(os.path.basename(path))[0]
    return member, root + EVAL_LOG_NAMES[packed]


JSON_LOG_NAMES = (".json", ".json.gz")
"""How the name of an Inspect JSON log ends (``name_ends``, in any case): as Inspect writes it, or compressed with
gzip (as ``gzip -r`` leaves a logs folder)."""


def is_json_log(path: str) -> bool:
    """Whether the ``.json`` (or ``.json.gz``: ``_is_gzipped_log``) file ``path`` is an Inspect log as ``load`` tells
    one of the whole file: a JSON object whose ``eval`` is an object, with a ``version`` or ``samples``
    (``looks_like_inspect``), its keys in any order (Inspect writes ``{"version": N, "status": "...", "eval": {``; a
    log saved again with its keys sorted starts ``{"eval": {``, or ``{"error": ...``), after any white space. It is
    what ``agentrender.frame.run_files`` lists of a folder's ``.json`` and ``.json.gz`` files, and how ``load``
    recognises a log too large to parse whole.

    The file is read as far as that is told: its first 4 KiB, where they start as Inspect starts a log; else the
    first byte of a value that is no object; else, for an object, the file is searched for the bytes ``"eval"``, or for
    an escape ``\\u00`` that may write a letter of the key (``"\\u0065val"``), in C: a JSON file holding neither, most
    of those beside logs, is none; one that holds them is decoded for the members above only (in C, every other value
    skipped), so a key written with escapes is read as ``load`` reads it. A file that holds them but is no JSON (cut
    short: its row says what is wrong) is one when an ``"eval": {`` is in it. Raises ``OSError`` when the file cannot
    be read."""
    with open(path, "rb") as file:
        start = file.read(_START_BYTES)
        if start[: len(GZIP_MAGIC)] == GZIP_MAGIC:
            return _is_gzipped_log(path)
        if _JSON_LOG_START.match(start):
            return True
        at = _past_space(start)
        if (at < len(start) and start[at] != ord("{")) or (len(start) < _START_BYTES and at == len(start)):
            return False  # a value that is no object, or nothing but white space
        with mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as whole:
            return _holds_object_of_log(whole)


def _is_gzipped_log(path: str) -> bool:
    """``is_json_log`` of a file that is a gzip stream (``log.json.gz``), read as it is of the bytes it inflates to,
    no more of them than a gzip run file may give (``lines.open_inflated``): a stream past that is one (its row says
    it is refused). Raises ``OSError`` where its stream is corrupt or ends early: what it is cannot be told."""
    opened, limit = open_inflated(path)
    try:
        with opened as file:
            start = file.read(_START_BYTES)
            if _JSON_LOG_START.match(start):
                return True
            whole = start + file.read(limit + 1 - len(start))
    except (EOFError, zlib.error) as error:
        raise OSError(f"the gzip stream cannot be inflated: {error}") from None
    return len(whole) > limit or _holds_object_of_log(whole)


def _holds_object_of_log(whole: bytes | mmap.mmap) -> bool:
    """Whether the file's bytes ``whole`` are a JSON object that is an Inspect log (``is_json_log``)."""
    at = _past_space(whole)
    if whole[at : at + 1] != b"{":
        return False
    if _JSON_LOG_START.match(whole):  # after more white space than the start holds
        return True
    # a key's letters may be written as escapes ("\u0065val"), each of which holds \u00
    return (whole.find(b'"eval"', at) >= 0 or whole.find(b"\\u00", at) >= 0) and _holds_log(whole, at)


def _past_space(data: bytes | mmap.mmap) -> int:
    """Where the white space (and byte order mark) ``data`` starts with ends."""
    found = _LEADING.match(data)
    return 0 if found is None else found.end()


def _holds_log(whole: bytes | mmap.mmap, at: int) -> bool:
    """Whether the JSON object at ``at`` in ``whole`` has the members ``looks_like_inspect`` takes of a log: an object
    ``eval``, and a ``version`` or ``samples``. When it is no JSON (cut short), whether it holds an ``"eval": {``."""
    view = memoryview(whole)[at:]
    try:
        members = msgspec.json.decode(view, type=_Members)
    except (msgspec.DecodeError, RecursionError):
        view.release()
        return _EVAL_OBJECT.search(whole, at) is not None
    found = isinstance(members.eval, msgspec.Raw) and bytes(members.eval)[:1] == b"{"
    found = found and (members.version is not msgspec.UNSET or members.samples is not msgspec.UNSET)
    del members  # its values are views of the file, which closes after
    view.release()
    return found


def looks_like_inspect(path: str, first: Any) -> bool:
    """True when the file ``path`` (its first JSON value ``first``, or ``None``) is an Inspect log, for ``load``."""
    if name_ends(path, EVAL_LOG_NAMES):  # LOG.EVAL too, as a file system that ignores case may name it
        return True
    if isinstance(first, Mapping):
        return isinstance(first.get("eval"), Mapping) and ("samples" in first or "version" in first)
    if first is None and name_ends(path, JSON_LOG_NAMES):
        try:
            return is_json_log(path)
        except OSError:
            return False
    return False


# OpenAI-style chats and tau-bench's results (imports.openai)

OPENAI_REQUEST_KEYS = ("request", "params", "body", "kwargs")
"""The fields a log of chat completions may hold a request under."""
LANGCHAIN_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool", "function": "function"}
"""The types of LangChain's messages, each with the role it stands for."""


def looks_like_openai(value: Any) -> bool:
    """True when ``value`` has the shape of something ``from_openai`` reads (checked loosely, for ``load``)."""
    if isinstance(value, Mapping):
        if isinstance(value.get("history"), list) and "messages" not in value:
            return True  # a SWE-agent trajectory, or its bare history as its own demonstrations keep it
        response = value.get("response")
        if isinstance(response, Mapping) and isinstance(response.get("choices"), list):
            return True  # a request with its chat completion: the Messages API answers with content, not choices
        if isinstance(value.get("messages"), list):
            return _messages_look_openai(value["messages"])
        request = next((value[key] for key in OPENAI_REQUEST_KEYS if key in value), None)
        if isinstance(request, Mapping):
            return looks_like_openai(request)
        return _message_looks_openai(value)
    if isinstance(value, list) and value:
        if all(isinstance(item, Mapping) and ("role" in item or "type" in item) for item in value):
            return _messages_look_openai(value)
        return looks_like_openai(value[0])
    return False


def _message_looks_openai(message: Any) -> bool:
    if not isinstance(message, Mapping):
        return False
    if message.get("role") in ("system", "developer", "tool", "function"):
        return True
    if "tool_calls" in message or "function_call" in message or "tool_call_id" in message:
        return True
    kind = message.get("type")
    return isinstance(kind, str) and kind in LANGCHAIN_ROLES and isinstance(message.get("data"), Mapping)


def _messages_look_openai(messages: list[Any]) -> bool:
    # A chat of only user and assistant text turns is also a Messages API conversation: the
    # Anthropic importer reads those (its blocks are the same); this one claims what only it reads.
    return any(_message_looks_openai(message) for message in messages) or any(
        isinstance(message, Mapping) and _has_openai_parts(message.get("content")) for message in messages
    )


def _has_openai_parts(content: Any) -> bool:
    return isinstance(content, list) and any(
        isinstance(part, Mapping) and part.get("type") in ("image_url", "input_audio", "file") for part in content
    )


def looks_like_tau_bench(value: Any) -> bool:
    """True when ``value`` has the shape of tau-bench's results (checked loosely, for ``load``): a list of results,
    each with its ``task_id`` and its ``traj``, the chat the agent had."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(
            isinstance(item, Mapping) and "task_id" in item and isinstance(item.get("traj"), list) for item in value[:3]
        )
    )


# OpenAI Responses API and Codex CLI sessions (imports.responses)

CODEX_RECORDS = frozenset(("session_meta", "response_item", "turn_context", "event_msg", "compacted"))
"""The types of the records of a Codex rollout (``RolloutItem`` in openai/codex's ``codex-rs/protocol``)."""

_OLD_META = frozenset(("id", "timestamp", "instructions", "git"))
"""The fields of the first line of an older Codex rollout (``SessionMeta`` of openai/codex
``codex-rs/core/src/rollout.rs`` before ``RolloutItem``)."""

_TYPESCRIPT_KEYS = frozenset(("session", "items"))
"""The keys of a rollout of Codex's TypeScript CLI (``is_typescript_rollout``)."""

RESPONSES_REQUEST_KEYS = ("request", "body")
"""The fields a log may hold a request body under."""


def looks_like_codex(value: Any) -> bool:
    """True when ``value`` is a record of a Codex CLI rollout (``{"type": "session_meta", "payload": {...}}``)."""
    if not isinstance(value, Mapping) or not isinstance(value.get("payload"), Mapping):
        return False
    kind = value.get("type")
    return isinstance(kind, str) and kind in CODEX_RECORDS


def is_old_codex_meta(value: Any) -> bool:
    """True when ``value`` is the first line of a rollout of a Codex before its ``{"timestamp", "type", "payload"}``
    records: the session's ``{"id", "timestamp"}``, with its ``instructions`` and ``git`` when it had them."""
    return (
        isinstance(value, Mapping)
        and isinstance(value.get("id"), str)
        and isinstance(value.get("timestamp"), str)
        and value.keys() <= _OLD_META
    )


def is_typescript_rollout(value: Any) -> bool:
    """True when ``value`` is a rollout of Codex's first CLI, in TypeScript (spring 2025): the one JSON object its
    ``codex-cli/src/utils/storage/save-rollout.ts`` wrote to ``~/.codex/sessions/rollout-<date>-<id>.json``, the
    session's ``{"timestamp", "id", "instructions"}`` and the conversation's ``items``."""
    return isinstance(value, Mapping) and value.keys() == _TYPESCRIPT_KEYS and isinstance(value["items"], list)


def looks_like_responses(value: Any) -> bool:
    """True when ``value`` has the shape of something ``from_responses`` reads (checked loosely, for ``load``): a
    Codex rollout's record (or the first line of an older rollout), or a Responses API request body (``input``: text
    or a list of items, no ``messages``)."""
    if looks_like_codex(value) or is_old_codex_meta(value) or is_typescript_rollout(value):
        return True
    if not isinstance(value, Mapping) or "messages" in value:
        return False
    request = next((value[key] for key in RESPONSES_REQUEST_KEYS if isinstance(value.get(key), Mapping)), value)
    given = request.get("input")
    if isinstance(given, str):
        return "model" in request or "instructions" in request
    return (
        isinstance(given, list)
        and bool(given)
        and all(isinstance(item, Mapping) and ("type" in item or "role" in item) for item in given)
    )
