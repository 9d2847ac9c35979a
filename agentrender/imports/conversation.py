"""A conversation in the Messages API's shape, made into the records of a run that renders it as it was sent.

Every importer turns its format into the same thing: the messages an agent sent (the
Anthropic Messages API's wire shape), the request around them (system, tools, model, output
cap), and the model calls it logged. ``conversation_run`` makes the run from them:
its header and model calls are read as ``load_run`` reads a file's (``runfile.read_records``),
its steps are made from the checked turns when first read (``runfile.ConversationSteps``),
and it writes to a run file as a recorded one does.

A conversation maps onto the render contract this way:

- the first message (a user turn) is the opening, kept as its blocks;
- each assistant turn and the user turn that answers it are one step: the decision is
  ``render.decide`` of the assistant turn, the observation the ``tool_result`` that answers
  its first tool use (its text; ``error`` when ``is_error``); the step record keeps both turns
  exactly as sent (``"sent"``), with the id of the first tool use;
- a last assistant turn with nothing after it is a step with no observation: the reply to the
  last request, which was received, not sent.

``Run.options()`` of such a run replays the recorded ids and turns, so the view at step
``k`` is exactly the ``messages`` of the request that decided step ``k``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from abc import abstractmethod
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from itertools import pairwise
from typing import Any, NoReturn, TypeVar, cast, overload

import msgspec

from agentrender import render
from agentrender._json import (
    MAX_DEPTH,
    canonical,
    check_depth,
    decode_failure,
    decoder_place,
    decoder_said,
    strict_loads,
    type_name,
)
from agentrender._types import check_block, utf8_bytes
from agentrender._words import first_few, shown
from agentrender.runfile import FORMAT_SENT, Run, RunFileError, RunWarning, read_records
from agentrender.runfile.imported import ContentSequence, ConversationSteps
from agentrender.runfile.lines import GZIP_MAGIC, JSON_LINES_NAMES, StreamError, gzip_lines, inflate_limit, name_ends
from agentrender.runfile.schema import is_timestamp
from agentrender.runfile.sent import result_text

__all__ = [
    "CLIENT_CONTEXT",
    "STOP_REASONS",
    "MadeTurns",
    "Summariser",
    "Where",
    "body_decoder",
    "check_alternation",
    "check_blocks",
    "checked_run",
    "conversation_run",
    "file_bytes",
    "first_line_summary",
    "instructed_warnings",
    "is_local_command",
    "is_time",
    "joined_turns",
    "json_values",
    "loads",
    "message_texts",
    "model_call",
    "normalise_messages",
    "not_json",
    "own_copy",
    "plain_blocks",
    "read_json_values",
    "request_body",
    "result_summaries",
    "results_first",
    "time_of",
    "tool_input",
    "unanswered_warning",
    "unanswered_warnings",
    "with_stop_reasons",
]


class Where(msgspec.Struct, frozen=True, gc=False):
    """Where in the input a value was found, for errors and warnings: the file, the line and the field.

    An importer makes one for each item it reads and keeps one for each turn (where it began): a struct made in C,
    which holds only text and a number and so is never walked by the collector (``gc=False``)."""

    path: str
    line: int = 1
    field: str = ""

    def at(self, field: str) -> Where:
        """The same place, one field deeper (``messages[3]`` then ``messages[3].content``)."""
        joined = f"{self.field}{field}" if field.startswith("[") or not self.field else f"{self.field}.{field}"
        return Where(self.path, self.line, joined)

    def error(self, what: str) -> RunFileError:
        """The error for a value found here that cannot be read."""
        return RunFileError(self.path, self.line, f"{self.field}: {what}" if self.field else what)

    def warning(self, what: str) -> RunWarning:
        """A warning about a value found here that was read but could not be mapped."""
        return RunWarning(line=self.line, text=f"{self.field}: {what}" if self.field else what, path=self.path)


def loads(text: str) -> Any:
    """One JSON value of ``text`` as ``_json.strict_loads`` reads it, decoded by msgspec.

    msgspec refuses what ``strict_loads`` refuses (``NaN``, a number past a float's range, text
    after the value) and a few things it takes (a lone surrogate escaped in a string): for any
    of them ``strict_loads`` decodes the text again, so it is read, or refused in its words,
    exactly as before. msgspec's own recursion limit is deeper than ``MAX_DEPTH``: the text's
    nesting is measured after it decodes (``check_depth``, a scan only of text with more
    brackets than the limit).
    """
    try:
        value = msgspec.json.decode(text)
    except (msgspec.DecodeError, RecursionError):
        return strict_loads(text)
    check_depth(text)
    return value


_FIELDS = msgspec.json.Decoder(dict[str, msgspec.Raw])


T = TypeVar("T")


def request_body(
    path: str,
    messages: msgspec.json.Decoder[list[T]],
    others: Collection[str],
    body: msgspec.json.Decoder[Any] | None = None,
) -> tuple[list[T], bytes, dict[str, Any]] | None:
    """The file as a request body: ``(records, data, request)``, its ``messages`` decoded as records
    (``messages``, a typed decoder, checks them in one pass in C), the file's bytes (each message's JSON text as
    the file has it: ``message_texts``), and its other fields as they are; ``None`` when it is not one (it has a
    field of ``others``, or none named ``messages``) or when anything in it is refused, so the caller reads it as
    JSON values, which keeps every field and words every error.

    ``body``, when given (``body_decoder``), decodes the whole file in one pass: a struct of the typed ``messages``
    and each other field the format's requests have (and those of ``others``, so that a file of one is not decoded
    whole only to fail on it), as its JSON text (``msgspec.Raw``), unknown fields forbidden. Its fields come
    in the struct's order, not the file's: they are used as they are when at most one of them is not one the
    run's header takes out of the request (``_HEADER_FIELDS``, whose order the run does not keep); otherwise the
    file's fields are read again for their order, as they are when there is no ``body``. A file it refuses for an
    unknown field is read as if there were none (its messages decoded again); one whose messages it refuses is not.
    """
    data = _document(path)
    if data is None:
        return None
    read = None
    if body is not None:
        with contextlib.suppress(msgspec.DecodeError, RecursionError):
            read = body.decode(data)
        if read is not None:
            given = {
                name: raw
                for name in read.__struct_fields__
                if name != "messages" and (raw := getattr(read, name)) is not msgspec.UNSET
            }
            if any(key in given for key in others):
                return None
            if len(given.keys() - _HEADER_FIELDS) <= 1:
                return _with_fields(read.messages, data, given)
    try:
        fields = _FIELDS.decode(data)
    except (msgspec.DecodeError, RecursionError):
        return None
    if "messages" not in fields or any(key in fields for key in others):
        return None
    if read is not None:
        del fields["messages"]
        return _with_fields(read.messages, data, fields)
    if body is not None and fields.keys() <= set(body.type.__struct_fields__):
        return None  # no field the struct lacks: it refused the messages, which ``messages`` would refuse again
    try:
        records = messages.decode(fields.pop("messages"))
    except (msgspec.DecodeError, RecursionError, ValueError):
        return None
    return _with_fields(records, data, fields)


def body_decoder(message: Any, fields: Iterable[str]) -> msgspec.json.Decoder[Any]:
    """The decoder of a request body in one pass, for ``request_body``: a struct of its ``messages`` (a list of
    ``message``, a record type) and of ``fields``, each as its JSON text (``msgspec.Raw``) when the file has it;
    a field of neither fails the decoding. ``fields`` are the format's request fields, and those that tell a file
    is no body (``request_body``'s ``others``)."""
    raw: Any = msgspec.Raw | msgspec.UnsetType
    body = msgspec.defstruct(
        "Body",
        [("messages", list[message]), *((name, raw, msgspec.UNSET) for name in fields)],
        frozen=True,
        gc=False,
        forbid_unknown_fields=True,
    )
    return msgspec.json.Decoder(body)


def _with_fields(
    records: list[T], data: bytes, fields: dict[str, msgspec.Raw]
) -> tuple[list[T], bytes, dict[str, Any]] | None:
    """``request_body``'s answer, each field read as ``loads`` reads it; ``None`` when one is refused."""
    try:
        return records, data, {key: _field_value(raw) for key, raw in fields.items()}
    except (RecursionError, ValueError):
        return None


def message_texts(data: bytes) -> list[msgspec.Raw]:
    """Each message's JSON text, as the file has it, of a request body ``request_body`` read (``data``, its bytes)."""
    return _MESSAGE_TEXTS.decode(data).messages


class _MessageTexts(msgspec.Struct, frozen=True, gc=False):
    """A request body's messages, each as its JSON text; its other fields are not read."""

    messages: list[msgspec.Raw]


_MESSAGE_TEXTS = msgspec.json.Decoder(_MessageTexts)


def _document(path: str) -> bytes | None:
    """The bytes of a file that may be one JSON object, checked as UTF-8; ``None`` for a ``.jsonl`` file (never one
    object) or one that cannot be read: a path that reads any value, and words what is wrong with it, reads it
    then."""
    if name_ends(path, JSON_LINES_NAMES):
        return None
    try:
        with open(path, "rb") as file:
            data = file.read()
        if not data.isascii():
            data.decode("utf-8")  # what a decoder skips (a field left as its JSON text) is not checked as UTF-8
    except (OSError, UnicodeDecodeError):
        return None
    return data


def _field_value(raw: msgspec.Raw) -> Any:
    """The value of a field ``request_body`` read as its JSON text, as ``loads`` reads it; ``ValueError`` for what it
    refuses (the object around the value is one level of the nesting limit)."""
    text = str(bytes(raw), "utf-8")
    value = loads(text)
    check_depth(text, MAX_DEPTH - 1)
    return value


def tool_input(text: str) -> dict[str, Any] | str:
    """A tool call's input from its JSON arguments (an OpenAI-style call's): the object they hold, else the text as
    it came (``render.decide`` keeps it out of band, as invalid arguments)."""
    try:
        value = loads(text)
    except ValueError:
        return text
    return value if type(value) is dict else text


def own_copy(value: Any, path: str) -> Any:
    """``value``, a conversation given in memory, as a copy of its own: its JSON, decoded again.

    An import keeps the blocks it reads as they are (``step.sent``, the header's request): what a
    file holds is decoded for the run alone, but a value given in memory belongs to its caller,
    who may change it after the import. The run is made from this copy, so it never shares a
    list or an object with the caller's value. The copy checks that ``value`` is JSON (a
    ``RunFileError`` at ``path`` line 1 when it is not); a tuple becomes a list, as in JSON.
    """
    try:
        return strict_loads(canonical(value))
    except (TypeError, ValueError, RecursionError) as error:
        raise RunFileError(path, 1, f"not JSON: {error}") from None


def not_utf8(path: str, data: bytes, error: UnicodeDecodeError) -> RunFileError:
    """The error of ``data``, a file's bytes from its start, that are not UTF-8 (``error``, from decoding them): at
    the line of the first byte that is not, and that byte's place in its line."""
    start = data.rfind(b"\n", 0, error.start) + 1
    said = f"not UTF-8 text ({error.reason} at byte {error.start - start})"
    return RunFileError(path, data.count(b"\n", 0, start) + 1, said)


def _text(path: str, notes: list[RunWarning]) -> str:
    """The file's text (``file_bytes``), up to where it ends inside a character (a writer stopped mid-line: the
    text is read as if cut before it); bytes that are not UTF-8 are a ``RunFileError`` at their line."""
    data = file_bytes(path, notes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        if error.end == len(data) and error.reason == "unexpected end of data":
            return data[: error.start].decode("utf-8")
        raise not_utf8(path, data, error) from None


def file_bytes(path: str, notes: list[RunWarning]) -> bytes:
    """The file's bytes, inflated when it is a gzip stream (by its magic bytes, as ``load_run`` tells), read up to
    where the stream ends (a writer killed while it wrote): what was lost is a warning in ``notes``."""
    with open(path, "rb") as file:
        if file.peek(2)[:2] != GZIP_MAGIC:
            return file.read()
        stream_notes: list[str] = []
        try:
            data = b"".join(gzip_lines(file, stream_notes, inflate_limit(os.fstat(file.fileno()).st_size)))
        except StreamError as error:
            raise RunFileError(path, error.line or 1, str(error)) from None
    ended = data.count(b"\n") + 1  # the line the inflated text ends on: what followed it is lost
    notes.extend(RunWarning(line=ended, text=text, path=path, lost=True) for text in stream_notes)
    return data


def read_json_values(path: str, notes: list[RunWarning]) -> list[tuple[int, Any]]:
    """The JSON values of a file: one for a ``.json`` document, one per line for JSON Lines (gzip-compressed too).

    A last line cut short (a log whose writer was stopped mid-line) is left out, with a warning in ``notes``.
    """
    return list(json_values(path, notes))


_LINE = msgspec.json.Decoder()
"""A JSON line's value, decoded from its bytes (``json_values``)."""


def json_values(
    path: str,
    notes: list[RunWarning],
    typed: tuple[Callable[[Any], bool], msgspec.json.Decoder[Any]] | None = None,
) -> Iterator[tuple[int, Any]]:
    """``read_json_values`` one value at a time: a ``.jsonl`` or ``.jsonl.gz`` file, in any case, is read a line at a
    time.

    A file of JSON lines is never held whole, as text or as values: what the caller keeps of
    each value is all an import of a large log holds (``bench/bench_memory.py``).

    Each line is decoded from its bytes by msgspec, which checks the UTF-8 as it decodes; a line it refuses (not
    UTF-8, a byte order mark, JSON it does not take) is decoded as text and read by ``loads``, which reads it or
    words what is wrong exactly as it did every line: 0.7-0.8 of the time a Codex rollout's lines took as text.

    ``typed`` is ``(test, decoder)``: once the first value passes ``test`` (it is of the format the decoder is
    for), each line after it is decoded by ``decoder`` first, a typed decoder of the format's common records
    (structs that forbid unknown fields and hold no ``Any``, so it decodes, and checks as UTF-8, every byte of a
    line it takes, whose nesting its types bound), and as before when it refuses the line.
    """
    if not name_ends(path, JSON_LINES_NAMES):
        yield from _document_values(path, notes)
        return
    try:
        file = open(path, "rb")  # noqa: SIM115  # closed below, after the last line is read
    except OSError as error:
        raise RunFileError(path, 0, f"cannot read the file ({error.strerror or error})") from None
    with file:
        stream_notes: list[str] = []
        lines: Iterable[bytes] = file
        if file.peek(2)[:2] == GZIP_MAGIC:
            lines = gzip_lines(file, stream_notes, inflate_limit(os.fstat(file.fileno()).st_size))
        # ended: the line the text read so far ends on; 0 when that is the last line decoded by typed's decoder, whose
        # end is looked at only if a stream's notes need it, not at each line
        number, found, ended = 0, False, 1
        decoder = None  # typed's, once the first value passed its test
        data = b""
        try:
            for data in lines:
                number += 1
                if decoder is not None:
                    try:
                        value = decoder.decode(data)
                    except msgspec.DecodeError:  # not one of its records (or a blank line): read as any line is
                        pass
                    else:
                        ended = 0
                        yield number, value
                        continue
                if not data.strip():
                    number += data.count(b"\n") - 1  # a run of blank lines may come as one
                    ended = number + 1
                    continue
                ended = number + data.endswith(b"\n")
                text = None
                try:
                    value = _LINE.decode(data)  # from the bytes, in C, the UTF-8 checked as it decodes
                except (msgspec.DecodeError, RecursionError):  # read as text, which reads it or words what is wrong
                    try:
                        text = data.decode("utf-8").removeprefix("\ufeff") if number == 1 else data.decode("utf-8")
                    except UnicodeDecodeError as error:
                        said = f"not UTF-8 text ({error.reason} at byte {error.start})"
                        if not data.endswith(b"\n") and found:  # cut inside a character: as any cut last line
                            notes.append(_cut_last_line(path, number, said))
                            break
                        raise RunFileError(path, number, said) from None
                try:
                    if text is not None:
                        value = loads(text)
                    elif data.count(b"[") + data.count(b"{") > MAX_DEPTH:
                        check_depth(data.decode("utf-8"))  # as loads measures its text
                except ValueError as error:
                    if not data.endswith(b"\n") and found:
                        # a log cut short while its last call was written: the calls before it stand
                        notes.append(_cut_last_line(path, number, error))
                        break
                    raise RunFileError(path, number, decode_failure(error)) from None
                if not found and typed is not None and typed[0](value):
                    decoder = typed[1]
                found = True
                yield number, value
        except StreamError as error:
            raise RunFileError(path, error.line or number + 1, str(error)) from None
    if not ended:
        ended = number + data.endswith(b"\n")
    notes.extend(RunWarning(line=ended, text=text, path=path, lost=True) for text in stream_notes)
    if not found:
        raise RunFileError(path, 1, "the file holds no JSON value")


def _cut_last_line(path: str, line: int, error: ValueError | str) -> RunWarning:
    """The loss of a log's last line cut short while its last call was written (``error``: what reading it found):
    the calls before it stand."""
    return RunWarning(line=line, text=f"the last line is cut short ({error}); not read", path=path, lost=True)


def _document_values(path: str, notes: list[RunWarning]) -> list[tuple[int, Any]]:
    """The values of a file that is not named as JSON lines: one JSON document, or JSON lines after all."""
    try:
        text = _text(path, notes)
    except OSError as error:
        raise RunFileError(path, 0, f"cannot read the file ({error.strerror or error})") from None
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped[:1] in ("{", "["):
        try:
            return [(1, loads(stripped))]
        except ValueError as error:
            if stripped[:1] == "[" or "\n{" not in stripped:
                raise RunFileError(path, getattr(error, "lineno", 1), decode_failure(error)) from None
    values = []
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            values.append((number, loads(line)))
        except ValueError as error:
            if number == len(lines) and not text.endswith("\n") and values:
                # a log cut short while its last call was written: the calls before it stand
                notes.append(_cut_last_line(path, number, error))
                break
            raise RunFileError(path, number, decode_failure(error)) from None
    if not values:
        raise RunFileError(path, 1, "the file holds no JSON value")
    return values


def broken_document(path: str, data: bytes) -> RunFileError | None:
    """Why ``data``, the bytes of a file that should be one JSON document, is none: bytes not UTF-8 (``not_utf8``),
    or JSON that breaks off or breaks a rule (``not_json``); ``None`` when it is one, or its error says not where."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return not_utf8(path, data, error)
    return not_json(path, text, 1, len(data))


def not_json(path: str, text: str, line: int, size: int) -> RunFileError | None:
    """Why ``text``, from line ``line`` of the file on (``size`` bytes of it), is no JSON value: it breaks off, or
    breaks a rule of JSON at a line and column; ``None`` when it is one, or its error says nothing of where."""
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        end = len(text.rstrip())
        if error.pos >= end or error.msg.startswith("Unterminated string"):  # a string runs to the end, unclosed
            if "\n" not in text[:end]:
                ending = (
                    "its JSON value not complete" if text.endswith("\n") else "no newline, its JSON value not complete"
                )
                return RunFileError(
                    path,
                    line,
                    f"the line breaks off ({ending}): {size:,} bytes; a process killed while writing leaves this",
                )
            return RunFileError(
                path, line + text.count("\n", 0, end), "the JSON document ends early: the file is cut short"
            )
        before = text[: error.pos].rstrip()
        first = line - 1  # the line of the file before the text
        if before.endswith(",") and text[error.pos] in "}]":  # the decoder points at the bracket: the comma is wrong
            comma = len(before) - 1
            at = text.count("\n", 0, comma) + 1
            column = comma - text.rfind("\n", 0, comma)
            closing = "" if at == error.lineno else f" on line {first + error.lineno}"
            what = f"not valid JSON: a comma before the closing {text[error.pos]!r}{closing}, where no value follows it"
            return RunFileError(path, first + at, what, column)
        at, column = decoder_place(error)
        return RunFileError(path, first + at, f"not valid JSON: {decoder_said(error)}", column)
    except (ValueError, RecursionError):
        return None
    return None


class MadeTurns(ContentSequence[dict[str, Any]]):
    """Turns in the Messages API's wire shape (``{"role", "content": [blocks]}``), each made when first read
    (``make``, for an importer that checked them as records), and kept: a run's steps read their turns when
    they are first read (``runfile.ConversationSteps``)."""

    __slots__ = ("_made",)

    def __init__(self, count: int) -> None:
        self._made: list[dict[str, Any] | None] = [None] * count

    @abstractmethod
    def make(self, at: int) -> dict[str, Any]:
        """Turn ``at``, made (once, when it is first read)."""

    def __len__(self) -> int:
        return len(self._made)

    @overload
    def __getitem__(self, at: int) -> dict[str, Any]: ...
    @overload
    def __getitem__(self, at: slice) -> list[dict[str, Any]]: ...
    def __getitem__(self, at: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(at, slice):
            return [self[t] for t in range(*at.indices(len(self)))]
        made = self._made[at]
        if made is None:
            made = self._made[at] = self.make(range(len(self._made))[at])
        return made


def normalise_messages(
    messages: Any, where: Where, known: dict[int, dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """The messages with string content as one text block, each block read as the API has it.

    Raises ``RunFileError`` naming the message and field that is not a message: a role other
    than ``user``/``assistant``, content neither text nor a list of blocks, a block without a
    type, a field of a known block of the wrong type, a tool use whose input is not an object.
    The messages and blocks are the ones given, not copies (see ``own_copy``). ``known`` holds
    each message already read, by the ``id`` of the message given (kept alive by the caller), as it
    was made: for a call log, whose calls share the messages they have in common (``anthropic._Prefix``),
    each is read once, not once a call.
    """
    if not isinstance(messages, list):
        raise where.error(f"expected a list of messages, got {type_name(messages)}")
    out: list[dict[str, Any]] = []
    append = out.append
    for i, given in enumerate(messages):
        if known is not None and (made := known.get(id(given))) is not None:
            append(made)
            continue
        message = given
        if type(message) is not dict:
            if not isinstance(message, Mapping):
                raise where.at(f"[{i}]").error(f"expected a message object, got {type_name(message)}")
            message = dict(message)
        role = message.get("role")
        if role != "user" and role != "assistant":
            raise where.at(f"[{i}]").at("role").error(f"expected 'user' or 'assistant', got {shown(role)}")
        content = message.get("content")
        if type(content) is str:
            message = {**message, "content": [{"type": "text", "text": content}]}
        elif type(content) is not list:
            got = type_name(content)
            raise where.at(f"[{i}]").at("content").error(f"expected text or a list of blocks, got {got}")
        elif not plain_blocks(content):  # the place is worded only for a block that is not plain
            check_blocks(content, where.at(f"[{i}]").at("content"))
        if known is not None:
            known[id(given)] = message
        append(message)
    return out


def check_blocks(blocks: list[Any], here: Where) -> None:
    """Raise the ``RunFileError`` naming the field (``here[j]...``) of the first block not as the API has it."""
    if not plain_blocks(blocks):
        for j, block in enumerate(blocks):
            _check(block, here, j)


def plain_blocks(blocks: Iterable[Any]) -> bool:
    """True when every block is of the shapes nearly every conversation is made of, as the API has it.

    A quick look, accepting only what ``check_block`` accepts (a text, a tool use with an object
    or text input, a result of text or of text blocks): anything else, or anything wrong, is
    left to ``_check``.
    One call looks at a message's blocks: a call a block would cost more than the look.
    """
    for block in blocks:
        if type(block) is not dict:
            return False
        kind = block.get("type")
        if kind == "text":
            if type(block.get("text")) is not str:
                return False
        elif kind == "tool_result":
            if type(block.get("tool_use_id")) is not str or type(block.get("is_error")) not in (bool, type(None)):
                return False
            content = block.get("content", "")
            if type(content) is not str and not (type(content) is list and _plain_texts(content)):
                return False
        elif kind == "tool_use":
            if type(block.get("id")) is not str or type(block.get("name")) is not str:
                return False
            if type(block.get("input")) not in _INPUTS:
                return False
        else:
            return False
    return True


_INPUTS = (dict, str)


def _plain_texts(blocks: list[Any]) -> bool:
    """True when every block is a text block as the API has it (a result's content given as blocks)."""
    for block in blocks:
        if type(block) is not dict or block.get("type") != "text" or type(block.get("text")) is not str:
            return False
    return True


def _check(block: Any, here: Where, j: int) -> None:
    """The whole check of the ``j``-th block of the content at ``here``, raising the error that names its field."""
    try:
        check_block(block)
    except ValueError:
        _block_error(block, here, j)
    # the API's own tool uses carry an object; raw argument text is what other providers send
    # (an OpenAI-style chat's arguments that are not JSON), which render.decide keeps out of band
    if block["type"] in _USES and not isinstance(block.get("input"), Mapping | str):
        _block_error(block, here, j)


def _block_error(block: Any, here: Where, j: int) -> NoReturn:
    """Raise the error for the ``j``-th block of the content at ``here``, naming its field."""
    try:
        check_block(block, f"[{j}]")
    except ValueError as error:
        raise Where(here.path, here.line).error(f"{here.field}{error}") from None
    got = "missing" if "input" not in block else f"got {type_name(block['input'])}"
    raise here.at(f"[{j}].input").error(f"expected an object (the tool's input) or its raw text, {got}")


_USES = ("tool_use", "server_tool_use")
"""The blocks that call a tool: the API takes their ``input`` only as an object."""


_REQUEST_FIELDS: tuple[tuple[str, type | tuple[type, ...], str], ...] = (
    ("model", str, "a string"),
    ("system", (str, list), "a string or a list of text blocks"),
    ("tools", list, "a list of tool definitions"),
    ("max_tokens", int, "an integer"),
)
"""The fields of a request the run's header keeps, with the type the API takes."""


def first_line_summary(content: str) -> str:
    """A summary for a result its tool did not summarise: its first non-blank line, and its size.

    ``"Traceback (most recent call last): … (2,345 bytes, 40 lines)"``; ``""`` for an empty result.
    """
    if not content:
        return ""
    lines = content.splitlines()
    first = next((line.strip() for line in lines if line.strip()), "")
    size = f"({utf8_bytes(content):,} bytes, {len(lines):,} line{'s' if len(lines) != 1 else ''})"
    first = render.truncate(first, 200)
    return f"{first} … {size}" if len(lines) > 1 or first != content else f"{first} {size}"


Summariser = Callable[[str], str]


def conversation_run(
    messages: Sequence[Mapping[str, Any]],
    *,
    where: Where,
    run_id: str,
    source: Mapping[str, Any],
    request: Mapping[str, Any] | None = None,
    calls: Iterable[Mapping[str, Any]] = (),
    call_lines: Sequence[int] = (),
    final: Mapping[str, Any] | None = None,
    summarise: Summariser | None = None,
    warnings: list[RunWarning] | None = None,
    replies_checked: bool = False,
    compactions: Sequence[Mapping[str, Any]] = (),
    end: Mapping[str, Any] | None = None,
    started_at: str | None = None,
    breakpoints: tuple[list[dict[str, Any]], Mapping[int, list[dict[str, Any]]]] | None = None,
    prefill: bool = False,
    prefilled: Mapping[int, list[dict[str, Any]]] | None = None,
) -> Run:
    """The run that renders ``messages`` exactly as they were sent.

    ``messages`` are normalised (``normalise_messages``); ``request`` holds the rest of the
    request (``system``, ``tools``, ``model``, ``max_tokens`` and any other parameter, kept in
    the header); ``calls`` are model-call records already made (a call log's), ``call_lines`` the line of the
    source each was read from (none given: the source has no lines, a JSON document); ``final`` is
    the reply to the last request (a ``Message`` object), made the last step when the
    conversation ends on a user turn. ``summarise`` fills each result's summary (the header
    names it); without one, results carry none, as the conversation recorded none.
    ``warnings`` holds what was read but could not be mapped (``RunWarning``s, with where it
    was); it is added to, and the run's warnings begin with it. ``replies_checked`` says the
    maker checked each call's reply (``runfile.replies.check_reply``), to warn of one it cannot keep.
    ``end`` is the run's ``end`` record, when the source says how the run ended.

    ``compactions`` are the header's ``compactions`` (see ``docs/runfile.md``): where the agent
    started its conversation anew with a summary. The user turn of the step just before one may
    be ``None``: nothing was sent after that reply before the compaction. ``end`` is the run's
    ``end`` record, when the source says how the run ended; ``started_at`` the header's, when it says when the run
    began.

    ``breakpoints``, for a source that recorded each request (a call log), are where the request ``messages``
    were read from had its cache breakpoints (the header's ``breakpoints``) and, by step, where the request that
    decided each step had its own (``step.sent.breakpoints``): ``messages`` then hold none, so that each view as
    sent has its own request's and no other (``runfile.Sent.breakpoints``).

    ``prefill``: ``messages`` end with an assistant turn that is a prefill the last request ended with, no reply to
    which is held: the caller's text, not the model's (its step's ``sent.prefill``). ``prefilled``, by step, the
    blocks of the prefill the request that decided the step ended with, a reply to which the step's turn goes on
    with (``step.sent.prefilled``): its view as sent ends with it, as that request did (``runfile.Sent.prefilled``).

    The header and the model calls are read as ``read_records`` reads them; each step (its
    decision, observation and record) is made when first read (``runfile.ConversationSteps``).
    """
    warnings = warnings if warnings is not None else []
    request = dict(request or {})
    if not messages:
        raise where.error("the conversation has no messages")
    if messages[0]["role"] != "user":
        raise where.at("[0].role").error("a conversation starts with a user turn (the opening)")
    turns = list(messages)
    if final is not None:
        if turns[-1]["role"] != "user":
            raise where.error("a reply was given, but the conversation does not end on a user turn")
        reply = {"role": "assistant", "content": list(final.get("content") or [])}
        turns.extend(normalise_messages([reply], Where(where.path, where.line, "response")))
    turns = joined_turns(turns, where, warnings)
    warnings.extend(warning for _, warning in unanswered_warnings(turns, where))
    return checked_run(
        turns,
        where=where,
        run_id=run_id,
        source=source,
        request=request,
        calls=calls,
        call_lines=call_lines,
        summarise=summarise,
        warnings=warnings,
        replies_checked=replies_checked,
        compactions=compactions,
        end=end,
        started_at=started_at,
        breakpoints=breakpoints,
        prefill=prefill and final is None,
        prefilled=prefilled,
    )


_TurnT = TypeVar("_TurnT", bound=Mapping[str, Any])


def joined_turns(messages: list[_TurnT], where: Where, warnings: list[RunWarning] | None = None) -> list[_TurnT]:
    """The ``messages`` (normalised: ``normalise_messages``) as the API takes them: two or more turns of one role in a
    row combined into one turn, their blocks in order, as the Messages API combines consecutive user or assistant
    turns (an agent that appends a ``pause_turn`` reply's continuation as a turn of its own sends two assistant turns).

    Each turn joined to the one before is warned of in ``warnings`` at ``where[i].role``; the messages alternating
    already are returned as they are (the same list), and a turn not joined is the one given.
    """
    if all(before["role"] != after["role"] for before, after in pairwise(messages)):
        return messages
    out: list[_TurnT] = []
    for i, message in enumerate(messages):
        if not out or out[-1]["role"] != message["role"]:
            out.append(message)
            continue
        out[-1] = cast(_TurnT, {**out[-1], "content": [*out[-1]["content"], *message["content"]]})
        if warnings is not None:
            warnings.append(
                where.at(f"[{i}].role").warning(
                    f"two {message['role']} turns in a row (messages[{i - 1}] and [{i}]): combined into one turn, "
                    "as the Messages API combines consecutive turns of one role; each turn's blocks are kept, in order"
                )
            )
    return out


def check_alternation(roles: Sequence[str], where: Where) -> None:
    """Raise the ``RunFileError`` naming the first of two turns of one role in a row (``roles``: each turn's)."""
    if roles[1::2].count("assistant") != len(roles) // 2 or roles[::2].count("user") != (len(roles) + 1) // 2:
        i = next(i for i, (before, role) in enumerate(pairwise(roles), start=1) if before == role)
        raise where.at(f"[{i}].role").error(
            f"two {roles[i]} turns in a row (messages[{i - 1}] and [{i}]): the API would merge them, "
            "so they cannot be rendered as sent; join their content into one turn"
        )


_SECONDS = (-62_135_596_800, 253_402_300_799)
"""The seconds since 1970 a run file's timestamp may stand for: from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z."""


def is_time(given: Any) -> bool:
    """Whether a source's timestamp is a time a run file may hold: seconds since 1970 (mini-swe-agent's and
    claude-trace's ``time.time()``, JavaScript's ``Date.now() / 1000``) in years 1 to 9999, or an ISO 8601 date-time
    (``is_timestamp``)."""
    if type(given) is float or type(given) is int:
        return bool(_SECONDS[0] <= given <= _SECONDS[1])  # NaN is neither
    return type(given) is str and is_timestamp(given)


def time_of(given: float | str) -> str:
    """A time ``is_time`` took, as a run file holds one (RFC 3339, in UTC): seconds since 1970 to the microsecond, an
    ISO 8601 date-time as it is."""
    if isinstance(given, str):
        return given
    return datetime.fromtimestamp(given, UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def checked_run(
    turns: Sequence[Mapping[str, Any]],
    *,
    where: Where,
    run_id: str,
    source: Mapping[str, Any],
    request: Mapping[str, Any],
    calls: Iterable[Mapping[str, Any]] = (),
    call_lines: Sequence[int] = (),
    summaries: list[dict[str, str]] | None = None,
    summarise: Summariser | None = None,
    warnings: list[RunWarning],
    replies_checked: bool = False,
    compactions: Sequence[Mapping[str, Any]] = (),
    end: Mapping[str, Any] | None = None,
    started_at: str | None = None,
    breakpoints: tuple[list[dict[str, Any]], Mapping[int, list[dict[str, Any]]]] | None = None,
    prefill: bool = False,
    prefilled: Mapping[int, list[dict[str, Any]]] | None = None,
) -> Run:
    """The run of turns already checked, as ``conversation_run`` checks them: the part of it after the checks.

    For an importer that checks as it reads: ``turns`` begin with the opening (a user turn)
    and alternate, every block as the API has it, and ``warnings`` already holds each tool
    use left unanswered (``unanswered_warning``). Only the opening is read here; the other
    turns are read when their step is (``turns`` may make each then: ``runfile.ConversationSteps``).
    ``summaries`` are the results' summaries (``result_summaries(turns, summarise)`` when none are given and a
    summariser is).
    ``end`` is the run's ``end`` record (read last, as a run file's), when the source says how it ended;
    ``started_at`` the header's, when it says when the run began.
    ``call_lines`` are the lines of the source the ``calls`` were read from, each call's ``line`` (none given: 0, the
    source has no lines): what a user is pointed to is their file, not a run file they never saw.
    ``breakpoints`` are the header's and the steps' cache breakpoints, ``prefill`` says the last turn is a
    prefill, and ``prefilled`` holds the prefills steps were decided with, as ``conversation_run`` takes them.
    """
    if summaries is None and summarise is not None:
        summaries = result_summaries(turns, summarise)
    header = _header(turns[0]["content"], dict(request), where, run_id, source, summarise)
    if compactions:
        header["compactions"] = list(compactions)
    if started_at is not None:
        header["started_at"] = started_at
    by_step = None
    if breakpoints is not None:
        header["breakpoints"], by_step = breakpoints
    calls = list(calls)
    if call_lines and len(call_lines) != len(calls):
        raise ValueError(f"{len(call_lines)} lines given for {len(calls)} model calls")
    ends = [dict(end)] if end is not None else []
    return read_records(
        [header, *calls, *ends],
        lines=[where.line, *(call_lines or [0] * len(calls)), *[0] * len(ends)],
        path=where.path,
        notes=warnings,
        blocks_checked=True,
        replies_checked=replies_checked,
        steps=ConversationSteps(
            with_stop_reasons(turns, calls), summaries, by_step, prefill=prefill, prefilled=prefilled
        ),
    )


def with_stop_reasons(
    turns: Sequence[Mapping[str, Any]], calls: Sequence[Mapping[str, Any]]
) -> Sequence[Mapping[str, Any]]:
    """``turns``, each assistant turn a model call was recorded for holding the ``stop_reason`` of its step's last
    call's reply (a copy of the turn; the others as they are), which its decision is made with.

    A turn holds no stop reason of its own, so without it a reply is decided as a tool use or an answer; a reply
    the output cap cut (``max_tokens``) is ``truncated`` under ``render.decide``, and so is its step's decision.
    Only the stop reasons ``render.decide`` reads (``_DECIDING_STOPS``) are given: the others decide as the turn's
    blocks do, so nearly every turn is left as it is, not copied. The turns are read only as their steps are
    (an importer's turns are made when first read: ``MadeTurns``), so ``turns`` are given back themselves when no
    reply stopped on one of those, and otherwise seen through ``_StoppedTurns``.
    """
    stops: dict[int, Any] = {}
    for call in calls:
        response = call.get("response")
        step = call.get("step")
        if (
            call.get("type") == "model_call"
            and isinstance(step, int)
            and (type(response) is dict or isinstance(response, Mapping))  # a dict first: the ABC's check costs more
        ):
            stops[step] = response.get("stop_reason")  # the step's last call's
    deciding = {2 * step + 1: stop for step, stop in stops.items() if stop in _DECIDING_STOPS}
    return _StoppedTurns(turns, deciding) if deciding else turns


class _StoppedTurns(MadeTurns):
    """Turns, those at the positions of ``stops`` (an assistant turn) read with the stop reason its reply gave; each
    turn read from ``turns`` when it is first read, as ``turns`` makes it."""

    __slots__ = ("_stops", "_turns")

    def __init__(self, turns: Sequence[Mapping[str, Any]], stops: dict[int, Any]) -> None:
        super().__init__(len(turns))
        self._turns = turns
        self._stops = stops

    def make(self, at: int) -> dict[str, Any]:
        turn = self._turns[at]
        stop = self._stops.get(at)
        if stop is not None and turn.get("role") == "assistant":
            return {**turn, "stop_reason": stop}
        return turn if isinstance(turn, dict) else dict(turn)


STOP_REASONS = {
    "stop": render.STOP_END_TURN,
    "tool_calls": render.STOP_TOOL_USE,
    "function_call": render.STOP_TOOL_USE,
    "length": render.STOP_MAX_TOKENS,
    "max_tokens": render.STOP_MAX_TOKENS,
    "max_output_tokens": render.STOP_MAX_TOKENS,
    "model_length": render.STOP_CONTEXT_WINDOW_EXCEEDED,
    "content_filter": render.STOP_REFUSAL,
}
"""The stop reasons of OpenAI-style replies (a chat completion's ``finish_reason``, Inspect's ``stop_reason``) as
the Messages API names them: a reply cut at the output cap is decided ``truncated``, one a provider's filter stopped
a refusal (``render.decide``)."""


def model_call(
    step: int,
    content: list[dict[str, Any]],
    *,
    reply_id: Any = None,
    model: Any = None,
    finish: Any = None,
    usage: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``model_call`` record of a reply an importer read as an assistant turn (its ``content``, the blocks as the
    turn holds them), which decided ``step``: its id and model where the source gave them as text, its ``finish``
    reason (an OpenAI-style one) as the Messages API's stop reason (``STOP_REASONS``; none where the source says
    none, or one not known), its token counts (``usage``, already in the Messages API's names) where it has them."""
    reply: dict[str, Any] = {
        "id": reply_id if isinstance(reply_id, str) else "",
        "type": "message",
        "role": "assistant",
        "model": model if isinstance(model, str) else "",
        "content": content,
        "stop_reason": STOP_REASONS.get(finish) if isinstance(finish, str) else None,
    }
    if usage is not None:
        reply["usage"] = dict(usage)
    return {"type": "model_call", "step": step, "response": reply}


_DECIDING_STOPS = frozenset((render.STOP_MAX_TOKENS, render.STOP_CONTEXT_WINDOW_EXCEEDED, render.STOP_REFUSAL))
"""The stop reasons ``render.decide`` decides a reply by, whatever its blocks hold."""


def _is_reminder(text: str) -> bool:
    """Whether a text block holds nothing but the context a client added to the user's words: Claude Code's
    ``<system-reminder>`` blocks and the echo of a local command (``LOCAL_COMMAND``), or a message Codex sends as its
    context (``CLIENT_CONTEXT``)."""
    said = text.lstrip().lower()
    return not _REMINDER.sub("", text).strip() or said.startswith(CLIENT_CONTEXT) or is_local_command(text)


def is_local_command(text: str) -> bool:
    """Whether ``text`` is one Claude Code writes for a command the user ran in it (``LOCAL_COMMAND``): only its first
    characters are read, however long the text (a command's output may be long)."""
    return text[: _COMMAND_CHARS + 80].lstrip()[:_COMMAND_CHARS].lower().startswith(LOCAL_COMMAND)


_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.DOTALL)
_IDE_CONTEXT = re.compile(r"\A\s*(?:<(ide_opened_file|ide_selection)>.*?</\1>\s*)+", re.DOTALL)
"""What Claude Code in an IDE puts before the user's words, in the text they are in: the file the user has open, the
lines selected in it (``<ide_opened_file>``, ``<ide_selection>``). A goal leaves it out (the opening keeps it)."""

LOCAL_COMMAND = (
    "caveat: the messages below were generated by the user while running local commands",
    "<local-command-caveat>",
    "<command-name>",
    "<command-message>",
    "<local-command-stdout>",
    "<local-command-stderr>",
)
"""How the user messages Claude Code writes for a command the user ran in it (``/clear``, ``/model``) begin (after
white space, in lower case): the caveat before them (an ``isMeta`` record: bare up to 2.0, in a
``<local-command-caveat>`` tag from 2.1), the command and what it printed. The model
is sent them, but they are not the task: a run's goal leaves them out (the prompt after them, a custom command's
expanded prompt included, is kept)."""
_COMMAND_CHARS = max(map(len, LOCAL_COMMAND))

CLIENT_CONTEXT = (
    "<environment_context>",
    "<user_instructions>",
    "# agents.md instructions for",
    "<skill>",
    "<user_shell_command>",
    "<turn_aborted>",
    "<subagent_notification>",
    "<context_update>",
)
"""How a user message Codex sends as its context, not as the user's words, begins (after white space, in lower case):
what a run's goal leaves out, and what Codex's compaction leaves out of the user's messages it keeps
(``is_session_prefix``, ``is_user_instructions``, ``is_skill_instructions`` and ``is_user_shell_command_text`` of
openai/codex, over its versions)."""


_HEADER_FIELDS = {"system": "system", "model": "model", "tools": "tools", "max_tokens": "max_output_tokens"}
"""The request's fields the run's header holds (under these names, in this order, whatever the request's)."""


def _header(
    opening: list[dict[str, Any]],
    request: dict[str, Any],
    where: Where,
    run_id: str,
    source: Mapping[str, Any],
    summarise: Summariser | None,
) -> dict[str, Any]:
    """The run's header: the opening, the request's fields (each checked) and where the conversation came from."""
    # the request's own fields are named as the request has them (a call log's under "request.")
    prefix = where.field.rsplit("messages", 1)[0] if where.field.endswith("messages") else ""
    for key, expected, what in _REQUEST_FIELDS:
        value = request.get(key)
        if key in request and (not isinstance(value, expected) or isinstance(value, bool)):
            raise Where(where.path, where.line, f"{prefix}{key}").error(f"expected {what}, got {type_name(value)}")
    for i, tool in enumerate(request.get("tools") or ()):
        if not isinstance(tool, Mapping):
            raise Where(where.path, where.line, f"{prefix}tools[{i}]").error(
                f"expected a tool definition (an object), got {type_name(tool)}"
            )
    system = request.get("system")
    if isinstance(system, list):
        for i, block in enumerate(system):
            if not isinstance(block, Mapping) or not isinstance(block.get("text"), str):
                raise Where(where.path, where.line, f"{prefix}system[{i}]").error(
                    f"expected a text block ({{'type': 'text', 'text': ...}}), got {block!r:.80}"
                )
    texts = [block["text"] for block in opening if block.get("type") == "text"]
    opening_text = "\n".join(texts)
    # the task, not what a client sent with it: Claude Code opens with <system-reminder> blocks (its context, the
    # skills it has, 20 KB of them) before the prompt, Codex with the AGENTS.md instructions and its environment
    asked = [said for text in texts if not _is_reminder(text) and (said := _IDE_CONTEXT.sub("", text, count=1))]
    header: dict[str, Any] = {
        "type": "run",
        "format": FORMAT_SENT,
        "run_id": run_id,
        "goal": "\n".join(asked) if asked else opening_text,
        "opening": opening_text,
        "opening_content": opening,
        "source": dict(source),
    }
    for key, name in _HEADER_FIELDS.items():
        if key in request:
            header[name] = request.pop(key)
    request.pop("messages", None)
    if request:
        header["request"] = request
    if summarise is not None:
        header["summariser"] = getattr(summarise, "__name__", repr(summarise))
    return header


def unanswered_warnings(
    turns: Sequence[Mapping[str, Any]], where: Where, first: int = 1
) -> Iterator[tuple[int, RunWarning]]:
    """``(start, warning)`` for each assistant turn from ``first`` on whose tool uses the turn after it leaves
    unanswered (``unanswered_warning``), in order."""
    for start in range(first, len(turns) - 1, 2):  # the last reply, with nothing after it, was received, not sent
        user = turns[start + 1]["content"]
        if user is None:
            continue  # nothing sent after it: the conversation was compacted
        uses = [block.get("id") for block in turns[start]["content"] if block["type"] == "tool_use"]
        answered = [block.get("tool_use_id") for block in user if block["type"] == "tool_result"]
        if uses != answered and (warning := unanswered_warning(where, start, uses, answered)):
            yield start, warning  # each use answered in order, as nearly every turn is, needs no call


def unanswered_warning(where: Where, start: int, uses: list[Any], answered: list[Any]) -> RunWarning | None:
    """The warning for the tool uses of assistant turn ``start`` (ids ``uses``) that the next turn's results
    (answering ``answered``) leave unanswered; ``None`` when each is answered."""
    if uses == answered:
        return None
    answered_ids = set(answered)  # a set: a turn of thousands of uses answered out of order is not quadratic
    if not (missing := [str(use) for use in uses if use not in answered_ids]):
        return None
    return where.at(f"[{start}]").warning(f"tool use(s) {', '.join(missing)} have no tool_result in the next turn")


def results_first(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A user turn's ``blocks`` as the Messages API takes them: its ``tool_result`` blocks first, then the rest, each
    in the order sent (a message sent between a call and its output is shown after the outputs)."""
    return [block for block in blocks if block["type"] == "tool_result"] + [
        block for block in blocks if block["type"] != "tool_result"
    ]


def instructed_warnings(
    instructed: Sequence[Where], before_output: Collection[Where], place: Callable[[Where], str]
) -> list[RunWarning]:
    """The warnings for the messages sent after the conversation began that are not where a Messages API request
    would have them; ``place`` names where each is.

    One names where each developer or system message sent after the conversation began is (``instructed``): a text
    block of the user turn it was sent in, where it was sent, the views show it in, after the turn's results when it
    was sent before a call's output (it is in ``before_output``), as the Messages API takes a turn's results first.
    Another, before it, names each user message sent before an output (the others in ``before_output``), shown
    after the results too.
    """
    warnings = []
    moved = [here for here in instructed if here in before_output]
    developers = set(moved)
    typed = [here for here in before_output if here not in developers]
    if typed:
        what = "a user message" if len(typed) == 1 else f"{len(typed):,} user messages"
        warnings.append(typed[0].warning(
            f"{what} sent before the output of a call of the reply before it, shown after the outputs, as the "
            f"Messages API has a turn's results first: {first_few([place(here) for here in typed])}"
        ))  # fmt: skip
    if not instructed:
        return warnings
    count = len(instructed)
    places = first_few([place(here) for here in instructed])
    what = "a developer or system message" if count == 1 else f"{count:,} developer or system messages"
    each = "" if count == 1 else "each "
    after = ""
    if moved:
        sent = "sent before the output of a call of the reply before it, it is" if count == 1 else (
            f"{len(moved):,} of them sent before the output of a call of the reply before, each")  # fmt: skip
        after = (f"; {sent} shown after the outputs, as the Messages API has a turn's results first: "
                 f"{first_few([place(here) for here in moved])}")  # fmt: skip
    warnings.append(instructed[0].warning(
        f"{what} after the conversation began, {each}shown where it was sent, as text of the user turn it was "
        f"sent in (the Messages API has no developer role, and its system prompt is in every view): {places}{after}"
    ))  # fmt: skip
    return warnings


def result_summaries(turns: Sequence[Mapping[str, Any]], summarise: Summariser) -> list[dict[str, str]]:
    """For each step, the summary ``summarise`` gives each result of its user turn, by the id it answers."""
    return [_summaries(turns[start + 1]["content"] or [], summarise) for start in range(1, len(turns) - 1, 2)]


def _summaries(user: list[dict[str, Any]], summarise: Summariser) -> dict[str, str]:
    made = {}
    for block in user:
        if block.get("type") == "tool_result":
            summary = summarise(result_text(block.get("content", "")))
            if not isinstance(summary, str):
                raise TypeError(f"the summariser gave {type(summary).__name__}, not a string")
            made[str(block.get("tool_use_id"))] = summary
    return made
