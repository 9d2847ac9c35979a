"""What the commands read: a run file or a bundled sample (and its views), or a captured reply; the one-line errors."""

from __future__ import annotations

import json
import os
from pathlib import Path

from agentrender import samples
from agentrender._types import ModelResponse
from agentrender.runfile import Run, RunFileError, load_run, response_from_record
from agentrender.views import Views

__all__ = ["UNREADABLE", "CliError", "load", "load_reply", "looks_like_reply", "views_of"]

UNREADABLE = 2
"""The exit code for input that cannot be read (and for a command line that cannot be parsed)."""


class CliError(Exception):
    """A failure the user can act on: printed as one line on stderr, the command exits with ``code``."""

    def __init__(self, message: str, code: int = UNREADABLE) -> None:
        super().__init__(message)
        self.code = code


def load(name: str) -> Run:
    """The run in the file ``name``, or the bundled sample of that name when no such file exists."""
    path = Path(name)
    if not path.exists():
        if os.sep not in name and "/" not in name and not name.endswith((".jsonl", ".gz")):
            try:
                path = samples.path(name)
            except KeyError:
                raise CliError(
                    f"{name}: no such file, and no bundled sample of that name "
                    f"(the samples: {', '.join(samples.names())})"
                ) from None
        else:
            raise CliError(f"{name}: no such file")
    try:
        return load_run(path)
    except RunFileError as error:
        raise CliError(str(error)) from None
    except IsADirectoryError:
        raise CliError(f"{name}: a folder, not a run file") from None
    except OSError as error:
        raise CliError(f"{name}: cannot be read: {error.strerror or error}") from None


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
    except ValueError as error:  # a run with neither an opening nor a goal cannot be rendered
        raise CliError(f"{run.path or run.run_id}: cannot render the run: {error}") from None


def looks_like_reply(name: str) -> bool:
    """A ``.json`` file is a captured reply; anything else is a run (``.jsonl``, ``.jsonl.gz``, a sample)."""
    return name.endswith(".json")


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
        wire = json.loads(text)
    except json.JSONDecodeError as error:
        raise CliError(f"{name}:{error.lineno}: not JSON: {error.msg} at column {error.colno}") from None
    except RecursionError:
        raise CliError(f"{name}:1: not JSON: nested too deeply") from None
    if not isinstance(wire, dict):
        raise CliError(f"{name}:1: expected a model reply (a JSON object), got {type(wire).__name__}")
    # a model_call record holds the reply under "response"; accept one pasted as it is
    if wire.get("type") == "model_call" and isinstance(wire.get("response"), dict):
        wire = wire["response"]
    try:
        return response_from_record(wire, where="reply")
    except ValueError as error:
        raise CliError(f"{name}:1: {error}") from None
