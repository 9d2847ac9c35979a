"""What the commands read: a run (a run file, a bundled sample, or any file ``agentrender.imports`` reads) and
its views, or a captured reply; the one-line errors."""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentrender import imports, samples
from agentrender._json import NestingError, decode_failure, limited, type_name
from agentrender._types import ModelResponse
from agentrender.imports.detect import run_number
from agentrender.runfile import Run, RunFileError, response_from_record
from agentrender.runfile.lines import RUN_FILE_SUFFIXES, name_ends
from agentrender.views import Views

__all__ = [
    "REPLY_NEEDS",
    "UNREADABLE",
    "Chosen",
    "CliError",
    "choose",
    "is_reply",
    "load",
    "load_all",
    "load_chosen",
    "load_reply",
    "looks_like_reply",
    "resolve",
    "run_names",
    "run_path",
    "views_of",
    "writable",
    "written_through",
]

UNREADABLE = 2
"""The exit code for input that cannot be read (and for a command line that cannot be parsed)."""


class CliError(Exception):
    """A failure the user can act on: printed as one line on stderr, the command exits with ``code``."""

    def __init__(self, message: str, code: int = UNREADABLE) -> None:
        super().__init__(message)
        self.code = code


def writable(target: Path, *, force: bool, names: str) -> None:
    """Refuse ``target``, the file an ``-o`` option ``names`` (e.g. "the HTML file to write"), when it is a folder
    (which ``--force`` does not overwrite either) or, unless ``force``, a file that exists: what every command that
    writes a file the user named says."""
    if target.is_dir():  # first: --force, which the next refusal offers, does not overwrite a folder
        raise CliError(f"{target}: a folder; -o names {names}")
    if target.exists() and not force:
        raise CliError(f"{target}: already exists; --force overwrites it")


def written_through(target: Path, write: Callable[[str], object]) -> None:
    """Write ``target`` by ``write(path)`` to a new file beside it, then put that in its place: a write that fails or
    is interrupted leaves no half file, and the file it was to replace as it was. The new file is made as any file
    the user makes (0666 less the umask)."""
    folder = target.parent
    if not folder.is_dir():
        raise CliError(f"{target}: no folder {folder} to write it in")
    while True:
        temporary = folder / f".{target.name}.{secrets.token_hex(4)}"
        try:
            os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            break
        except FileExistsError:
            continue
        except OSError as error:
            raise CliError(f"{target}: cannot be written: {error.strerror or error}") from None
    try:
        write(str(temporary))
        os.replace(temporary, target)
    except (OSError, ValueError) as error:
        raise CliError(f"{target}: cannot be written: {getattr(error, 'strerror', None) or error}") from None
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def run_path(name: str) -> str:
    """The file or folder ``name``, else the bundled sample of that name, else ``name`` (which the caller reports):
    what every command opens for a RUN it is given."""
    if not os.path.exists(name) and _sample_name(name):
        try:
            return str(samples.path(name))
        except KeyError:
            pass
    return name


def run_names(names: Sequence[str]) -> list[str]:
    """The files the RUN arguments ``names`` stand for, in their order, each once: each folder's run files at any
    depth, sorted (``frame.run_files``: what ``runs`` and ``export`` read of a folder), and anything else as named (a
    file, a bundled sample, a name the reader then says is none). A file named again, by a second name or in a folder
    named too, is kept where it is first named (``frame.distinct_paths``, as ``export`` reads a list). A folder that
    holds no run file is a ``CliError`` naming it and the names looked for, before any file is read."""
    if len(names) == 1 and not os.path.isdir(run_path(names[0])):  # one file: the frames' module is not needed
        return list(names)
    from agentrender.frame import NoRunFilesError, distinct_paths, run_files  # a folder's files, or several names

    files: list[str] = []
    for name in names:
        folder = run_path(name)
        if not os.path.isdir(folder):
            files.append(name)
            continue
        try:
            files += run_files(folder)
        except NoRunFilesError as error:
            raise CliError(str(error)) from None
    return distinct_paths(files)


_FILE_SUFFIXES = (*RUN_FILE_SUFFIXES, ".json", ".gz")
"""The ends of a name that is a file's, never a bundled sample's (a missing ``run.jsonl`` or ``log.eval`` is no
sample): the files the readers take from a folder (``runfile.lines.RUN_FILE_SUFFIXES``), and those they take only
when named (a JSON document, but an Inspect log, which a folder's are; any gzip-compressed file), in any case."""


def _sample_name(name: str) -> bool:
    """Whether ``name`` may name a bundled sample: no folder in it, and not ending as a file's name does
    (``_FILE_SUFFIXES``, in any case: a missing ``RUN.JSONL`` is no sample either)."""
    return os.sep not in name and "/" not in name and not name_ends(name, _FILE_SUFFIXES)


def resolve(name: str) -> Path:
    """The file ``name`` names: the file itself, or the bundled sample of that name when no such file exists
    (``run_path``)."""
    path = Path(run_path(name))
    if path.is_dir():
        raise CliError(f"{name}: a folder, not a run file")
    if path.exists():
        return path
    if _sample_name(name):
        raise CliError(
            f"{name}: no such file, and no bundled sample of that name (the samples: {', '.join(samples.names())})"
        )
    raise CliError(f"{name}: no such file")


def load_all(name: str) -> list[Run]:
    """Every run in the file ``name`` (a run file, or any format ``agentrender.imports.load_runs`` reads), or
    in the bundled sample of that name when no such file exists."""
    path = resolve(name)
    try:
        return imports.load_runs(path)
    except RunFileError as error:
        raise CliError(str(error)) from None
    except OSError as error:
        raise CliError(f"{name}: cannot be read: {error.strerror or error}") from None


@dataclass(frozen=True, slots=True)
class Chosen:
    """The run a command reads from a file, and where it stands among the file's runs."""

    run: Run
    number: int
    """Its place in the file, counted from 0: the number ``agentrender runs`` lists and ``--run N`` takes."""
    total: int
    """How many runs the file holds."""
    picked: bool
    """``--run`` named it; ``False``: the file's first, taken by default."""
    held: frozenset[str] | None = None
    """The ids of the file's runs (``None``: not told), which a command that names another run of the file asks."""

    @property
    def note(self) -> str:
        """A file of several runs: which one this is (``run 1 of runs 0 to 3: ID``), by the number
        ``--run`` takes; ``""`` for a file of one run."""
        if self.total == 1:
            return ""
        # the numbers as --run takes them: no thousands separator
        said = f"run {self.number} of runs 0 to {self.total - 1}: {self.run.run_id}"
        return said if self.picked else f"{said}; pick another with --run N or ID (agentrender runs lists them)"


def choose(name: str, runs: list[Run], which: str | None) -> Chosen:
    """The run of ``runs`` (the runs of the file ``name``) that ``--run which`` names (``imports.detect.run_number``:
    a run id, else a number counted from 0); the first when ``which`` is ``None``."""
    held = frozenset(run.run_id for run in runs if run.run_id)
    if which is None:
        return Chosen(runs[0], 0, len(runs), picked=False, held=held)
    try:
        number = run_number(runs, which)
    except LookupError as error:
        raise CliError(f"{name}: --run {which}: {error}") from None
    return Chosen(runs[number], number, len(runs), picked=True, held=held)


def load_chosen(name: str, which: str | None = None) -> Chosen:
    """The run of the file ``name`` that ``--run which`` names (``choose``), with its place in the file."""
    return choose(name, load_all(name), which)


def load(name: str, which: str | None = None) -> Run:
    """The run of the file ``name`` that ``--run which`` names (the first by default)."""
    return load_chosen(name, which).run


def views_of(
    run: Run,
    *,
    recent_results: int | None = None,
    result_bytes: int | None = None,
    max_output_tokens: int | None = None,
) -> Views:
    """The run's views under its own options, with the window settings given (``None``: the run's own)."""
    overrides = {}
    if recent_results is not None:
        overrides["recent_results"] = recent_results
    if result_bytes is not None:
        overrides["result_bytes"] = result_bytes
    try:
        return Views(run, run.options(**overrides), max_output_tokens=max_output_tokens)
    except ValueError as error:  # options the contract refuses (recorded turns it cannot render)
        raise CliError(f"{run.path or run.run_id}: cannot render the run: {error}") from None


def is_reply(value: Any) -> bool:
    """True for an Anthropic ``Message`` object (a reply), or a run file's ``model_call`` record holding one.

    A request body, a messages list or a call log is not a reply: those are runs to import.
    """
    if not isinstance(value, Mapping):
        return False
    if value.get("type") == "model_call":
        return isinstance(value.get("response"), Mapping)
    if value.get("type") == "message":
        return True
    # a Message pasted without its "type" (or its stop reason): an assistant turn, outside any conversation (which
    # opens with the user's turn, so no history to import is one turn of the assistant's alone)
    return value.get("role") == "assistant" and "content" in value


REPLY_NEEDS = (
    'a reply is an Anthropic Message object as the API returns it ({"type": "message", "role": "assistant", '
    '"content": [...], "stop_reason": ...}), or its assistant turn alone ({"role": "assistant", "content": [...]})'
)
"""What ``decide`` says a reply file needs, of one that looks like a reply and is none (``_reply_like``)."""

_REPLY_FIELDS = ("stop_reason", "stop_sequence", "usage")
"""The fields only a reply holds, of those beside its ``content``."""


def _reply_like(value: Any) -> bool:
    """True for an object that is not a reply (``is_reply``) but looks like one: no ``type`` and no ``role``, its
    ``content`` beside a reply's own fields (``_REPLY_FIELDS``), and no conversation (``messages``)."""
    return (
        isinstance(value, Mapping)
        and "content" in value
        and "type" not in value
        and "role" not in value
        and "messages" not in value
        and any(field in value for field in _REPLY_FIELDS)
    )


def looks_like_reply(name: str) -> bool:
    """``name`` is a JSON file holding one reply (``is_reply``) or an object that looks like one (``_reply_like``,
    which ``load_reply`` says what it lacks of), or a ``.json`` file that is not JSON at all (so ``load_reply`` names
    the line and column where it breaks), its name ending in ``.json`` in any case; anything else is a run."""
    if not name_ends(name, ".json"):
        return False
    try:
        with open(name, "rb") as file:
            data = file.read()
    except OSError:
        return False  # load says why it cannot be read
    try:
        value = json.loads(data)
    except ValueError:
        # several JSON values, one a line (a call log kept as .json), are a run; broken JSON is the reply's error
        first = data.lstrip().split(b"\n", 1)[0]
        try:
            json.loads(first)
        except ValueError:
            return True
        return False
    except RecursionError:
        return True
    return is_reply(value) or _reply_like(value)


_loads = limited(json.loads)


def load_reply(name: str) -> ModelResponse:
    """The model reply in the JSON file ``name``: an Anthropic ``Message`` object as a run file records it."""
    try:
        with open(name, "rb") as file:
            data = file.read()
    except FileNotFoundError:
        raise CliError(f"{name}: no such file") from None
    except OSError as error:
        raise CliError(f"{name}: cannot be read: {error.strerror or error}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CliError(f"{name}:1: not UTF-8: {error.reason} at byte {error.start + 1}") from None
    try:
        wire = _loads(text)
    except json.JSONDecodeError as error:  # said as a history's JSON is: FILE:LINE:COLUMN, a stray comma where it is
        from agentrender.imports.conversation import not_json

        said = not_json(name, text, 1, len(data))
        raise CliError(
            str(said) if said else f"{name}:{error.lineno}:{error.colno}: not valid JSON: {error.msg}"
        ) from None
    except NestingError as error:
        raise CliError(f"{name}:1: reply: {decode_failure(error)}") from None
    if not isinstance(wire, dict):
        raise CliError(f"{name}:1: expected a model reply (a JSON object), got {type_name(wire)}")
    # a model_call record holds the reply under "response"; accept one pasted as it is
    if wire.get("type") == "model_call" and isinstance(wire.get("response"), dict):
        wire = wire["response"]
    if _reply_like(wire):
        keys = ", ".join(sorted(map(str, wire)))
        raise CliError(f'{name}:1: not a model reply: it holds {keys}, but no "type": "message" nor "role": '
                       f'"assistant"; {REPLY_NEEDS}')  # fmt: skip
    try:
        return response_from_record(wire, where="reply")
    except ValueError as error:
        raise CliError(f"{name}:1: {error}") from None
