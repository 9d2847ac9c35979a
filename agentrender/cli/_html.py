"""``agentrender html``: a run as one offline HTML page (``agentrender.html``), written to a file: every run of a
file of several (an eval log's samples) on the one page, up to ``--max-runs``, or the run ``--run`` names."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import IO

from agentrender import html
from agentrender._json import escaped
from agentrender._words import plural
from agentrender.cli._inputs import CliError, choose, load_all, views_of, writable, written_through
from agentrender.cli._term import MUTED, Console, Copyable, Text, clean, print_all

__all__ = ["html_command"]


def html_command(args: argparse.Namespace, out: IO[str], console: Console, err: IO[str]) -> int:
    writable(Path(args.output), force=args.force, names="the HTML file to write")  # before the run is read
    runs = load_all(args.run)
    chosen = choose(args.run, runs, args.which)
    run = chosen.run
    bound = html.MAX_RUNS if args.max_runs is None else args.max_runs
    # without --run, every run of the file (its first `bound`), numbered on the page as agentrender runs numbers them;
    # with it, that run and the runs linked to it (a session's sub-agents, a sub-agent's session)
    every = chosen.picked is False and len(runs) > 1
    kept = runs[:bound] if every else runs
    beside = kept[1:] if every else html.linked(run, runs)
    if chosen.note and chosen.picked:  # as every command that reads one run of a file says it
        err.write(f"agentrender: {clean(args.run, one_line=True)}: {clean(chosen.note, one_line=True)}\n")
    left_out = runs[len(kept) :]
    if left_out:  # never silently: which runs, and how to write them
        err.write(
            f"agentrender: {clean(args.run, one_line=True)}: holds {plural(len(runs), 'run')}: the page holds "
            f"{_numbers(0, len(kept) - 1)} (--max-runs {bound}) and leaves out {_numbers(len(kept), len(runs) - 1)}; "
            f"write them all with --max-runs {len(runs)}, or one with --run N (agentrender runs lists them)\n"
        )
    try:
        run.checked_at(args.at)  # before the file is opened, so that a step past the run leaves none written
    except IndexError as error:  # the range is the run's to say, as show says it
        raise CliError(f"{args.run}: --at {args.at}: {error}") from None
    options = None
    if args.recent_results is not None or args.result_bytes is not None:
        options = views_of(run, recent_results=args.recent_results, result_bytes=args.result_bytes).options
    written_through(
        Path(args.output), lambda path: html.save(run, path, options, at=args.at, beside=beside, every=every)
    )
    on_page = [run, *beside]
    numbers = {id(each): number for number, each in enumerate(runs)}
    if args.json:
        said = {"path": args.output, "run_id": run.run_id, "steps": len(run.steps)}
        linked = html.linked(run, on_page)
        written = [{"number": numbers[id(each)], "run_id": each.run_id, "steps": len(each.steps)} for each in on_page]
        left = [{"number": numbers[id(each)], "run_id": each.run_id} for each in left_out]
        extra = {"linked_runs": [other.run_id for other in linked], "runs": written, "left_out": left}
        out.write(escaped({**said, **extra}) + "\n")
        return 0
    if every:
        steps = sum(len(each.steps) for each in on_page)
        facts = Text(f"  {plural(len(on_page), 'run')} · {plural(steps, 'step')}", style=MUTED)
        if left_out:
            facts.append(f" · {plural(len(left_out), 'run')} left out", style=MUTED)
    else:
        facts = Text(f"  run {clean(run.run_id, one_line=True)} · {plural(len(run.steps), 'step')}", style=MUTED)
        if beside:
            facts.append(f" · and {plural(len(beside), 'run')} linked to it", style=MUTED)
    path = clean(args.output, one_line=True)
    print_all(console, [Copyable(Text("wrote ", style=MUTED), path, facts, indent="  ", style="bold")])
    return 0


def _numbers(first: int, last: int) -> str:
    """The runs ``first`` to ``last`` of a file, by the numbers ``--run`` takes: ``run 3``, ``runs 0 to 99``."""
    return f"run {first}" if first == last else f"runs {first} to {last}"
