"""``agentrender import``: an agent's own history, in a format ``agentrender.imports`` reads, as a run file."""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from agentrender import imports
from agentrender.cli._inputs import CliError, choose, load_all, writable, written_through
from agentrender.cli._term import clean
from agentrender.imports.conversation import Summariser
from agentrender.runfile import Run, write_run
from agentrender.runfile.write import warning_record, writes_gzip

__all__ = ["SUMMARISERS", "Written", "import_runs"]

SUMMARISERS: dict[str, Summariser | None] = {"none": None, "first-line": imports.first_line_summary}
"""What ``--summarise`` names: the summariser each choice gives the results."""


@dataclass(frozen=True)
class Written:
    """One run file ``import`` wrote."""

    path: str
    """Where it was written."""
    run: Run
    """The run written."""

    def to_json(self) -> dict[str, Any]:
        """What ``import --json`` prints of it."""
        run = self.run
        return {
            "path": self.path,
            "run_id": run.run_id,
            "format": str(run.header.get("format", "")),
            "source": dict(run.header.get("source") or {}),
            "summariser": run.summariser,
            "steps": len(run.steps),
            "model_calls": len(run.model_calls),
            "warnings": [warning_record(warning) for warning in run.warnings],
        }


_SOURCE_SUFFIXES = re.compile(r"(\.(jsonl|json|eval|gz))+$", re.IGNORECASE)
"""The suffixes of a file agentrender reads, which a run's id holds when it is named by its file (a call log's
``log.jsonl``, its other conversations ``log.jsonl/1``): each part of the id is named without them, and the file
written gets the run file's own."""

_STEM_CHARS = 120
"""The most characters of a run id a file is named with: a name with its number and suffix stays far below the
255 bytes file systems allow, whatever an eval log's sample ids hold."""


def _file_name(run_id: str, taken: set[str]) -> str:
    """A file name for a run id, without its suffix: each part of the id (``/`` between them) without the suffix of
    the file it was named by, its characters safe on every file system, and not one already used."""
    parts = (_SOURCE_SUFFIXES.sub("", part) for part in run_id.split("/"))
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", "/".join(parts))[:_STEM_CHARS].strip("._") or "run"
    name, number = stem, 1
    while name.lower() in taken:
        number += 1
        name = f"{stem}-{number}"
    taken.add(name.lower())
    return name


def _write(run: Run, target: Path, *, force: bool) -> None:
    """Write ``run`` to ``target`` through a temporary file beside it, so a failed write leaves no half file."""
    writable(target, force=force, names="the run file to write (or use --all)")
    written_through(target, lambda path: write_run(run, path, compress=writes_gzip(target)))


def import_runs(args: argparse.Namespace, err: IO[str]) -> Sequence[Written]:
    """Read ``args.source`` and write its run (the one ``--run`` names, or with ``--all`` each of its runs)
    as run files; a file of several runs imported without either says on ``err`` which one was written."""
    if args.all and args.which is not None:
        raise CliError("--run writes one run of SOURCE, --all every one: give one of them")
    if args.gzip and not args.all:
        raise CliError("--gzip goes with --all; for one run, name the file .jsonl.gz")
    runs = load_all(args.source)
    summarise = SUMMARISERS[args.summarise]
    output = Path(args.output)
    if not args.all:
        chosen = choose(args.source, runs, args.which)
        if chosen.note:
            err.write(f"agentrender: {clean(args.source, one_line=True)}: {clean(chosen.note, one_line=True)}\n")
        run = chosen.run if summarise is None else imports.with_summaries(chosen.run, summarise)
        _write(run, output, force=args.force)
        return [Written(str(output), run)]
    if summarise is not None:
        runs = [imports.with_summaries(run, summarise) for run in runs]
    if output.exists() and not output.is_dir():
        raise CliError(f"{output}: not a folder; with --all, -o names the folder to write each run in")
    output.mkdir(parents=True, exist_ok=True)
    taken: set[str] = set()
    suffix = ".jsonl.gz" if args.gzip else ".jsonl"
    targets = [output / (_file_name(run.run_id, taken) + suffix) for run in runs]
    existing = [str(target) for target in targets if target.exists()]
    if existing and not args.force:
        raise CliError(
            f"{existing[0]}: already exists ({len(existing)} of the {len(targets)} files to write); --force overwrites"
        )
    for run, target in zip(runs, targets, strict=True):
        _write(run, target, force=True)
    return [Written(str(target), run) for run, target in zip(runs, targets, strict=True)]
