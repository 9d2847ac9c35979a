"""``load(source)``: a run file or any format an importer reads, found by what the file holds.

``FORMATS`` is the one list of what can be loaded, in the order they are tried: each names
how to recognise it from the file's first JSON value (or its name) and how to read it. A file
that none of them recognises is an error that says what it looks like, which formats were
tried, and where they are documented.
"""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import msgspec

from agentrender._json import NestingError, decode_failure, limited, type_name
from agentrender._words import plural
from agentrender.imports.shapes import (
    SUB_AGENT_META,
    looks_like_anthropic,
    looks_like_claude_code,
    looks_like_claude_code_stream,
    looks_like_inspect,
    looks_like_openai,
    looks_like_responses,
    looks_like_tau_bench,
    misnamed_eval_log,
)
from agentrender.runfile import Run, RunFileError, RunWarning, load_run
from agentrender.runfile.lines import JSON_LINES_NAMES, binary_at, first_line, name_ends, open_inflated
from agentrender.runfile.read import missing_header
from agentrender.runfile.schema import RECORD_TYPES

__all__ = [
    "DOCS",
    "FORMATS",
    "SHOWN_RUNS",
    "Format",
    "docs_said",
    "load",
    "load_runs",
    "run_number",
    "runs_said",
]

DOCS = "docs/guides/your-own-runs.md"
"""The page of agentrender's source that documents the formats ``load`` reads (its section "The formats"), by its
path in the repository; an error names it as ``docs_said`` says it."""


def docs_said() -> str:
    """Where a user reads of the formats: the page ``DOCS`` by its absolute path where agentrender runs from its
    source (a clone, an editable install: the README's install), else by its path in agentrender's repository (a
    wheel carries no docs). The docs have no published site to send a user to."""
    page = Path(__file__).resolve().parents[2] / DOCS
    if page.is_file():
        return f'{page}, the section "The formats"'
    return f'{DOCS} of agentrender\'s source repository, the section "The formats"'


@dataclass(frozen=True)
class Format:
    """One format ``load`` reads: how it is recognised and how it is read."""

    name: str
    """What the format is, as an error lists it."""
    recognise: Callable[[str, Any], bool]
    """``(path, first JSON value or None) -> bool``: the file holds this format."""
    read: Callable[[str], list[Run]]
    """``path -> runs``."""


def _is_run_file(path: str, first: Any) -> bool:
    return isinstance(first, dict) and first.get("type") == "run"


def _read_run_file(path: str) -> list[Run]:
    run = load_run(path)
    calls = ("model_call", "model_call_error")
    if not run.steps and any(record.get("type") in calls and "request" in record for record in run.records):
        # a recording of calls (agentrender.record): a run of each conversation sent, the longest first
        return _read_anthropic(path, run_id=run.run_id or None)
    return [run]


# Each format's reader imports its importer when a file of it is read: recognising a file (``imports.shapes``) imports
# none of them, so ``load`` of a file imports the one importer that file needs.


def _read_inspect(path: str) -> list[Run]:
    from agentrender.imports.inspect import from_inspect

    return from_inspect(path)


def _read_claude_code(path: str) -> list[Run]:
    from agentrender.imports.claude_code import from_claude_code

    return from_claude_code(path)


def _read_tau_bench(path: str) -> list[Run]:
    from agentrender.imports.openai import from_tau_bench

    return from_tau_bench(path)


def _read_responses(path: str) -> list[Run]:
    from agentrender.imports.responses import from_responses_runs

    return from_responses_runs(path)


def _read_openai(path: str) -> list[Run]:
    from agentrender.imports.openai import from_openai

    return [from_openai(path)]


def _read_anthropic(path: str, *, run_id: str | None = None) -> list[Run]:
    from agentrender.imports.anthropic import from_anthropic_runs

    return from_anthropic_runs(path, run_id=run_id)


FORMATS: list[Format] = [
    Format("agentrender run file (.jsonl, .jsonl.gz)", _is_run_file, _read_run_file),
    Format("Inspect AI log (.eval, .json, .eval.gz, .json.gz)", looks_like_inspect, _read_inspect),
    Format(
        "Claude Code session transcript (~/.claude/projects/<project>/<session-id>.jsonl), or its headless output "
        "(claude -p --output-format stream-json --verbose, the Agent SDK's messages, claude-code-action's "
        "execution_file)",
        lambda path, first: looks_like_claude_code(first) or looks_like_claude_code_stream(first),
        _read_claude_code,
    ),
    Format(
        "tau-bench results: a list of {task_id, reward, info, traj, trial}, one run each",
        lambda path, first: looks_like_tau_bench(first),
        _read_tau_bench,
    ),
    Format(
        "OpenAI Responses API: a Codex CLI session (~/.codex/sessions/.../rollout-*.jsonl, or the TypeScript CLI's "
        "rollout-*.json), a request body of input items, or a log of requests",
        lambda path, first: looks_like_responses(first),
        _read_responses,
    ),
    Format(
        "OpenAI-style chat: messages with tool_calls and role tool (LiteLLM, LangChain), or a SWE-agent or "
        "mini-swe-agent trajectory",
        lambda path, first: looks_like_openai(first),
        _read_openai,
    ),
    Format(
        "Anthropic Messages API: a request body, a messages list, a request with its response, or a call log",
        lambda path, first: looks_like_anthropic(first),
        _read_anthropic,
    ),
]
"""What ``load`` tries, in order. The importers of other formats add themselves here."""


_WINDOW = 1 << 20
"""How much of a file is read first to find its first JSON value (its start decides most files)."""
_lenient = json.JSONDecoder(strict=False).decode


def _decoded(text: str) -> Any:
    """The JSON value of ``text``: msgspec's, which ``json``'s is for any text it reads (in half the time, on a run
    file's header), else ``json``'s, which reads what msgspec refuses (a control character raw in a string)."""
    try:
        return msgspec.json.decode(text)
    except msgspec.DecodeError:
        return _lenient(text)


_loads = limited(_decoded)
"""The first value's decoder: a control character raw in a string (which JSON has escaped) does not hide what the
value is; the format's importer reads the line again, and says where it is not JSON, as of any other line."""


def _first_value(path: str, *, past_window: bool = False) -> tuple[Any, bool, bool]:
    """The first JSON value of the file (the whole document, or its first line), or ``None``; whether the
    file's bytes are broken (binary data, not text, or a gzip stream cut short or corrupt); and whether the
    first MiB read was not enough to tell (a document, or a first line, longer than it).

    The first MiB is read, gzip-compressed or not (as ``load_run``, by its magic bytes). With
    ``past_window``, when that is not enough, the first line is read whole, then the whole
    document: a valid file of any size is recognised, as its importer reads it. A gzip stream is
    read no further than it may inflate (``lines.inflate_limit``). Bytes that are not UTF-8, a
    stream cut short or nested too deeply make ``None``, and ``load_runs`` then lets the
    run-file reader try, so whatever it reads loads here too.
    """
    try:
        line = None if past_window else first_line(path, _WINDOW)
        if line is not None and (first := _parsed(line, path, whole=True)) is not _NONE:
            return first, False, False  # its first line holds a value: the first MiB is not read
        opened, limit = open_inflated(path)
        with opened as file:
            data, ended = _window(file)
            first = _parsed(data, path)
            if first is not _NONE or len(data) < _WINDOW or not past_window:
                found = first is not _NONE
                broken = not found and (ended or _broken(data))
                return (first if found else None), broken, not found and len(data) == _WINDOW
            line = data + file.readline(limit + 1 - len(data)) if b"\n" not in data else b""
            if line and len(line) <= limit and (first := _parsed(line, path, whole=True)) is not _NONE:
                return first, False, False
            file.seek(0)
            whole = file.read(limit + 1)
    except (OSError, EOFError, zlib.error):
        return None, True, False
    if len(whole) <= limit and (first := _parsed(whole, path, whole=True)) is not _NONE:
        return first, False, False
    return None, _broken(data), False


def _window(file: Any) -> tuple[bytes, bool]:
    """The first ``_WINDOW`` bytes of ``file``, and whether it is a gzip stream that ends early before them: what it
    held up to there is read (its importer reads it so, with a warning), where one ``read`` would give nothing."""
    chunks, size = [], 0
    try:
        while size < _WINDOW and (chunk := file.read1(_WINDOW - size)):
            chunks.append(chunk)
            size += len(chunk)
    except EOFError:
        return b"".join(chunks), True
    return b"".join(chunks), False


_NONE = object()
"""What ``_parsed`` gives when no JSON value could be read (``None`` is a JSON value: ``null``)."""


def _parsed(data: bytes, path: str, *, whole: bool = False) -> Any:
    """The JSON value of ``data`` (whole), else of its first line; ``_NONE`` when neither is one.

    JSON nested past the one limit (``agentrender._json``) is a ``RunFileError`` at once: no reader would say more.
    """
    text = data.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    deep: NestingError | None = None
    for candidate in (text,) if whole else (text, text.split("\n", 1)[0]):
        try:
            return _loads(candidate)
        except NestingError as error:
            deep = deep or error
        except (ValueError, RecursionError):
            continue
    if deep is not None:
        raise RunFileError(path, 1, decode_failure(deep))
    return _NONE


def _broken(data: bytes) -> bool:
    """The file's start (``data``, the window read) is not text: binary data."""
    first_line = data.lstrip(b" \t\r\n").split(b"\n", 1)[0]
    return bool(binary_at(first_line, complete=len(data) < _WINDOW))


def _unreadable(path: str) -> RunFileError | None:
    """Why a file of no readable first value holds none, where it can be told: it is empty, or it is JSON (it starts
    with ``{`` or ``[``) that breaks off (cut short) or breaks a rule of JSON at a line and column the decoder names.
    ``None`` for anything else (text of another kind: the error of an unknown format says what it looks like)."""
    from agentrender.imports.conversation import not_json  # the importers' reader of JSON, for an error only

    try:
        opened, limit = open_inflated(path)
        with opened as file:
            data = file.read(limit + 1)
    except (OSError, EOFError, zlib.error):
        return None
    text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
    if not text.strip():
        said = "the file is empty" if not data else f"the file holds only whitespace ({len(data):,} bytes)"
        return RunFileError(path, 1, said)
    if len(data) > limit or not text.lstrip().startswith(("{", "[")):
        return None
    if name_ends(path, JSON_LINES_NAMES):  # JSON lines: the first line is a value of its own
        start = len(text) - len(text.lstrip())
        first, newline, _ = text[start:].partition("\n")
        line = first + newline
        return not_json(path, line, text.count("\n", 0, start) + 1, len(line.encode("utf-8")))
    return not_json(path, text, 1, len(data))


def _describe(first: Any) -> str:
    """What the file holds, as the error of a file of no known format says it: ``it holds ...``."""
    if first is None:
        return "its start is no JSON value that can be read"
    if isinstance(first, dict):
        keys = ", ".join(list(first)[:8])
        said = f"it holds a JSON object with the keys {keys}" if keys else "it holds an empty JSON object"
        if isinstance(first.get("input"), list | str) and "messages" not in first:
            said += " (like an OpenAI Responses API request, but its input is not text nor a list of items)"
        return said
    if isinstance(first, list):
        said = f"it holds a JSON list of {len(first)} item(s)"
        if first and isinstance(first[0], dict):
            # a list of results, each holding a chat under a key of its own: the keys say where it is
            said += f", the first an object with the keys {', '.join(list(first[0])[:8])}"
        return said
    return f"it holds a JSON {type_name(first)}"


def _what_else(path: str, first: Any) -> str:
    """What the file is, when it is something else an agent or its API writes that is no history (a Claude Code
    sub-agent's metadata, beside its transcript; a model's reply), and where to take it instead; ``""`` for any
    other."""
    if not isinstance(first, dict):
        return ""
    # every version writes the agent's type; the description and the tool use's id came later, and a workflow's
    # agents have neither
    if name_ends(path, SUB_AGENT_META) and "agentType" in first:
        packed = name_ends(path, ".gz")
        transcript = os.path.basename(path)[: -len(SUB_AGENT_META[packed])] + JSON_LINES_NAMES[packed]
        return (
            f": a Claude Code sub-agent's metadata (its type, and its task and the tool use that started it where "
            f"given), not its transcript; that is {transcript} beside it, which the session's own .jsonl reads as "
            f"its sub-agent"
        )
    if first.get("role") == "assistant" and isinstance(first.get("content"), list) and "messages" not in first:
        return (
            ": a model's reply (a Messages API response), not a history; `agentrender decide` of the file "
            "(render.decide in Python) shows the decision it becomes"
        )
    return ""


def load_runs(source: str | os.PathLike[str]) -> list[Run]:
    """Every run in the file ``source``, whichever format of ``FORMATS`` it holds.

    Raises ``RunFileError`` when the file is of a known format but cannot be read (naming
    the line and field), and when it is of none: then the message says what the file looks
    like, which formats were tried, and where they are documented.
    """
    path = os.fspath(source)
    if not os.path.isfile(path):  # a stat: Path(path).is_file() makes a Path first, which costs more
        raise RunFileError(path, 1, "no such file" if not Path(path).exists() else "not a file")
    first, broken, cut = _first_value(path)
    if cut and not broken and not any(candidate.recognise(path, None) for candidate in FORMATS):
        # text whose start alone does not tell (a document, or a first line, over a MiB): its first value, read whole
        first, broken, _ = _first_value(path, past_window=True)
    for candidate in FORMATS:
        if candidate.recognise(path, first):
            return candidate.read(path)
    if first is None:
        # Its first value could not be read (bad bytes, a cut stream, a value nested too deeply):
        # the run-file reader reads line by line and says what it makes of it. When the bytes
        # themselves are broken (binary data, a gzip stream cut short), its error is the one to give.
        try:
            return _read_run_file(path)
        except RunFileError as error:
            if broken:
                raise _misnamed(path, error) from None
        said = _unreadable(path)
        if said is not None:
            raise said
    raise _of_no_format(path, first)


def _misnamed(path: str, error: RunFileError) -> RunFileError:
    """``error``, of the file ``path`` that is binary data, saying so when it is an Inspect ``.eval`` log under another
    name (``misnamed_eval_log``), and what to name it."""
    member, name = misnamed_eval_log(path)
    if not member:
        return error
    said = f"{error.what}. The file is an Inspect .eval log (its first member is {member}): name it {name}"
    return RunFileError(error.path, error.line, f"{said}, which agentrender reads as one", error.column)


def _of_no_format(path: str, first: Any) -> RunFileError:
    """The error of the file ``path`` whose first value ``first`` no format of ``FORMATS`` reads: what it holds, what
    it is where that is known (``_what_else``), the formats tried, and where they are described. A record of a type a
    run file holds (a step, a model call: ``runfile.schema.RECORD_TYPES``) is a run file's whose header line is not
    there, and said so, as ``load_run`` says it (``runfile.read.missing_header``), not as a file of another format."""
    if isinstance(first, dict) and isinstance(kind := first.get("type"), str) and kind in RECORD_TYPES:
        return RunFileError(path, 1, missing_header(kind))
    tried = "; ".join(f.name for f in FORMATS)
    return RunFileError(
        path,
        1,
        f"not a run, nor a conversation agentrender can import: {_describe(first)}{_what_else(path, first)}. "
        f"Tried: {tried}. "
        f"The formats are described in {docs_said()}",
    )


SHOWN_RUNS = 20
"""How many of a file's runs the error of a ``run_number`` that names none of them lists."""


def run_number(runs: Sequence[Run], which: str) -> int:
    """The place in ``runs`` (a file's runs, as ``load_runs`` gives them) of the run ``which`` names: its run
    id, else its number counted from 0, the number ``agentrender runs`` lists and ``--run N`` takes.

    Raises ``LookupError`` naming the numbers it may be and the first ``SHOWN_RUNS`` runs, each
    as ``NUMBER: ID``.
    """
    for number, run in enumerate(runs):
        if run.run_id == which:
            return number
    if which.isascii() and which.isdigit() and int(which) < len(runs):  # "²" is a digit int() cannot read
        return int(which)
    if len(runs) == 1:
        raise LookupError(
            f"no run of that id, nor its number; the file holds 1 run, 0: {runs[0].run_id}, which is read without --run"
        )
    raise LookupError(f"no run of that id, nor a number from 0 to {len(runs) - 1}; the file holds {runs_said(runs)}")


def runs_said(runs: Sequence[Run]) -> str:
    """A file's runs as a message names them: how many, then the first ``SHOWN_RUNS`` as ``NUMBER: ID``
    (``2 runs: 0: main, 1: agent-a1``)."""
    said = ", ".join(f"{number}: {run.run_id}" for number, run in enumerate(runs[:SHOWN_RUNS]))
    more = f", ... ({len(runs) - SHOWN_RUNS:,} more)" if len(runs) > SHOWN_RUNS else ""
    return f"{plural(len(runs), 'run')}: {said}{more}"


def load(source: str | os.PathLike[str]) -> Run:
    """The run in the file ``source``: a run file, or any format an importer reads (``load_runs``).

    A file holding several runs (an Inspect log's samples, a Claude Code session's sub-agents)
    gives its first, the main one; its warnings then name how many more there are.
    """
    runs = load_runs(source)
    first = runs[0]
    if len(runs) > 1:
        more = RunWarning(
            line=1,
            text=f"{len(runs) - 1} more run(s) in this file; agentrender.imports.load_runs reads them all",
            path=first.path,
        )
        first = replace(first, warnings=(*first.warnings, more))
    return first
