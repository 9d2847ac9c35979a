"""``agentrender html``: a run as one offline HTML page (``agentrender.html``), written to a file."""

from __future__ import annotations

import argparse
from typing import IO

from agentrender import html, imports
from agentrender._json import escaped
from agentrender.cli._inputs import CliError, resolve, views_of
from agentrender.cli._term import MUTED, Console, Text, clean
from agentrender.runfile import Run, RunFileError

__all__ = ["html_command", "pick"]


def pick(name: str, which: str | None) -> tuple[Run, str]:
    """The run ``--run which`` names in the file ``name`` (a run id, else a number from 0; the first without it),
    and, for a file of several runs, which one it is (``run 1 of 4: ID``; ``""`` for a file of one run)."""
    path = resolve(name)
    try:
        runs = imports.load_runs(path)
    except RunFileError as error:
        raise CliError(str(error)) from None
    except OSError as error:
        raise CliError(f"{name}: cannot be read: {error.strerror or error}") from None
    number = 0 if which is None else next((n for n, run in enumerate(runs) if run.run_id == which), None)
    if number is None and which is not None and which.isdigit() and int(which) < len(runs):
        number = int(which)
    if number is not None:
        run = runs[number]
        if len(runs) == 1:
            return run, ""
        said = f"run {number + 1} of {len(runs)}: {run.run_id}"
        return run, said if which is not None else f"{said}; pick another with --run"
    held = ", ".join(f"{number}: {run.run_id}" for number, run in enumerate(runs[:20]))
    raise CliError(f"{name}: no run {which!r}: the file holds {len(runs)} run(s) ({held})")


def html_command(args: argparse.Namespace, out: IO[str], console: Console) -> int:
    run, which = pick(args.run, args.pick)
    options = None
    if args.recent_results is not None or args.result_bytes is not None:
        options = views_of(run, recent_results=args.recent_results, result_bytes=args.result_bytes).options
    try:
        html.save(run, args.output, options)
    except OSError as error:
        raise CliError(f"{args.output}: cannot be written: {error.strerror or error}") from None
    if args.json:
        out.write(escaped({"path": args.output, "run_id": run.run_id, "steps": len(run.steps)}) + "\n")
        return 0
    if which:
        console.print(Text(clean(which, one_line=True), style=MUTED))
    line = Text("wrote ", style=MUTED)
    line.append(clean(args.output, one_line=True), style="bold")
    line.append(f"  run {clean(run.run_id, one_line=True)} · {len(run.steps):,} steps", style=MUTED)
    console.print(line)
    return 0
