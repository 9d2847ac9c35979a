"""``--follow``: a command's output for the run so far, then each new step as its file grows, as ``tail -f``.

A run file is followed by ``runfile.Follower`` (only the new bytes are read), any other file
``agentrender.load`` reads (a Claude Code session, a ``record(client)`` recording) imported
again as it grows (``imports.following``); the views are extended by ``Views.extend`` (only
the steps that changed are rendered). Each step a growth loads (a
new one, or one recorded again once its tool answered) is printed as one line, from the same
facts the command prints for the whole run; what happened to the file (truncated, replaced)
goes to stderr. Ctrl-C ends it with status 0: stopping is how a follow ends.
"""

from __future__ import annotations

import argparse
import time
from bisect import bisect_left
from collections.abc import Callable
from operator import attrgetter
from typing import IO, Any

from agentrender._types import Step, utf8_bytes
from agentrender.cli._inputs import CliError, run_path
from agentrender.cli._tables import called_tools, tools_said
from agentrender.cli._term import MUTED, Console, Text, clean
from agentrender.imports.following import RunNotInFile, follower
from agentrender.runfile import Growth, Run
from agentrender.runfile.following import POLL_INTERVAL, Poller
from agentrender.views import Views

__all__ = ["context_line", "follow", "show_line", "step_line", "steps_filter"]

Line = Callable[[Views, Step], Any]
"""What a command prints for a step a growth loaded (the views as extended, and the step); ``None``: nothing."""


def follow(
    args: argparse.Namespace,
    console: Console,
    err: IO[str],
    views_of: Callable[[Run], Views],
    first: Callable[[Run, Views], object],
    line: Line,
) -> int:
    """Print ``first`` of the run the file holds, then ``line`` of each step as it comes; 0 when stopped.

    ``args.follow_for`` (the hidden ``--follow-for SECONDS``, for tests) ends the follow after
    that many seconds, as a Ctrl-C would.
    """
    if args.json:
        raise CliError("--follow prints each step as it comes, in the terminal's form; --json prints a finished run")
    path = run_path(args.run)
    which = getattr(args, "which", None)
    try:
        tracker = follower(path, which)
    except ValueError as error:
        raise CliError(str(error)) from None
    until = None if args.follow_for is None else time.monotonic() + args.follow_for
    views: Views | None = None
    waited = ""
    printed: dict[int, str] = {}  # the line each step was last printed as: a growth that leaves it so prints it not
    try:
        while until is None or time.monotonic() < until:
            try:
                growth = _poll(tracker)
            except RunNotInFile as error:  # a file of one run, however it grows: said as without --follow
                raise CliError(f"{path}: --run {which}: {error}") from None
            if growth is None:
                # a file that does not import yet (a document half written), or that holds no run --run names yet (a
                # log of requests may come to): why, once each time the reason changes
                waiting = tracker.waiting
                if waiting and waiting != waited:
                    what = f"for run {tracker.waiting_for}" if tracker.waiting_for else "until the file imports"
                    err.write(f"agentrender: waiting {clean(what, one_line=True)}: {clean(waiting, one_line=True)}\n")
                waited = waiting
                time.sleep(POLL_INTERVAL)
                continue
            waited = ""
            if growth.notice:
                err.write(f"agentrender: {clean(path, one_line=True)}: {clean(growth.notice, one_line=True)}\n")
            if views is None or growth.notice:
                views = views_of(growth.run)
                first(growth.run, views)
                console.print(Text(f"following {clean(path, one_line=True)}: Ctrl-C to stop", style=MUTED))
                continue
            ended = views.run is not None and views.run.end is not None
            views.extend(growth.run, growth.changed_from)
            if growth.changed_from is not None:
                steps = views.steps
                for step in steps[bisect_left(steps, growth.changed_from, key=attrgetter("index")) :]:
                    shown = line(views, step)
                    # a record that changes nothing of the step (an imported session's event) says nothing new
                    if shown is not None and printed.get(step.index) != shown.plain:
                        printed[step.index] = shown.plain
                        console.print(shown)
            end = growth.run.end
            if end is not None and not ended:
                console.print(Text(f"the run ended: {clean(str(end.get('status')), one_line=True)}"))
    except KeyboardInterrupt:
        pass
    return 0


def _poll(tracker: Poller) -> Growth | None:
    try:
        return tracker.poll()
    except ValueError as error:  # a RunFileError: PATH:LINE: what was wrong
        raise CliError(str(error)) from None


def step_line(step: Step, views: Views | None = None) -> Text:
    """``step K · tool · status (bytes)``: a step in one line (``waiting for its result``: a call not answered yet);
    a reply of parallel tool uses of the run of ``views`` names the others too, as the steps table does
    (``WebSearch (+ Glob)``)."""
    decision, observation = step.decision, step.observation
    line = Text(f"step {step.index}", style="bold")
    if decision is None:
        line.append(" · no decision (yet)", style=MUTED)
        return line
    what = decision.tool if decision.calls else decision.kind
    run = views.run if views is not None and decision.calls else None
    if run is not None and (called := called_tools(run, step.index).get(step.index)):
        what = tools_said(called)
    line.append(f" · {clean(what, one_line=True)}")
    if observation is None:
        if decision.calls:  # a reply that calls no tool (a final answer) waits for no result
            line.append(" · waiting for its result", style=MUTED)
    else:
        line.append(f" · {clean(observation.status, one_line=True)} ({utf8_bytes(observation.content):,} bytes)")
    return line


def show_line(views: Views, step: Step) -> Text:
    """What ``show --follow`` prints for a step: the step, and how the view after it changed."""
    view = views.at(step.index + 1)
    line = step_line(step, views)
    line.append(f" → view at {step.index + 1}: {view.message_count:,} messages, {view.bytes:,} bytes; ")
    line.append(view.change.describe(), style=MUTED)
    return line


def context_line(views: Views, step: Step) -> Text:
    """What ``context --follow`` prints for a step: the size of the view after it, and its cacheable prefix."""
    view = views.at(step.index + 1)
    change = view.change
    return Text(
        f"{step.index + 1:>6}  {view.message_count:>8,} messages  {view.bytes:>12,} bytes  ~{view.tokens:>10,} tokens  "
        f"prefix {change.prefix_bytes:>12,}  re-sent {change.resent_bytes:>10,}"
    )


def steps_filter(args: argparse.Namespace) -> Callable[[Views, Step], bool]:
    """The filters of ``steps`` (``--tool``, ``--status``, ``--kind``), as the table applies them, on one step of the
    views' run: ``--tool`` keeps a reply of parallel tool uses for any of them (``called_tools``)."""

    def kept(views: Views, step: Step) -> bool:
        decision, observation = step.decision, step.observation
        said = {
            "tool": decision.tool if decision is not None and decision.tool else "none",
            "status": observation.status if observation is not None else "none",
            "kind": decision.kind if decision is not None else "none",
        }
        if args.tool is not None and said["tool"] not in args.tool and views.run is not None:
            called = called_tools(views.run, step.index).get(step.index, ())
            said["tool"] = next((name for name in called if name in args.tool), said["tool"])
        return all(getattr(args, name) is None or said[name] in getattr(args, name) for name in said)

    return kept
