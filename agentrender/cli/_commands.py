"""The commands: each reads its input, asks ``agentrender.views`` for the facts, and prints them."""

from __future__ import annotations

import argparse
import functools
import os
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

from agentrender import runfile, samples
from agentrender._display.said import shown_path
from agentrender._json import escaped
from agentrender._types import Step
from agentrender._words import plural
from agentrender.cli import _inputs, _show
from agentrender.cli._inputs import CliError
from agentrender.cli._term import MUTED, Console, Copyable, Text, clean, make_console, print_all
from agentrender.runfile import Run
from agentrender.views import Views

if TYPE_CHECKING:
    from agentrender.cli._follow import Line
    from agentrender.cli._tables import SizesLayout

__all__ = ["CliError", "clean", "run"]


def write_json(out: IO[str], data: Any) -> None:
    """``data`` as indented JSON, every non-ASCII character escaped: valid JSON, safe bytes in a terminal."""
    out.write(escaped(data))
    out.write("\n")


def views_of(run: Run, args: argparse.Namespace) -> Views:
    """The run's views under its own options, with the command line's window settings."""
    return _inputs.views_of(
        run,
        recent_results=getattr(args, "recent_results", None),
        result_bytes=getattr(args, "result_bytes", None),
        max_output_tokens=getattr(args, "max_output_tokens", None),
    )


def load_run_of(
    args: argparse.Namespace, err: IO[str], name: str | None = None, *, lost: bool = True, every: bool = False
) -> Run:
    """The run of ``args.run`` (or ``name``) that ``--run`` names; a file of several runs says on ``err`` which,
    and (``lost``) a file that lost records says where, so that no table of a cut file looks whole; ``every``: each
    warning of the run, for an output a program reads (a list, CSV) that has no place for them."""
    return load_chosen_of(args, err, name, lost=lost, every=every).run


def load_chosen_of(
    args: argparse.Namespace, err: IO[str], name: str | None = None, *, lost: bool = True, every: bool = False
) -> _inputs.Chosen:
    """``load_run_of``'s run, with its place among the file's runs (``_inputs.Chosen``)."""
    name = args.run if name is None else name
    chosen = _inputs.load_chosen(name, args.which)
    if chosen.note:
        err.write(f"agentrender: {clean(name, one_line=True)}: {clean(chosen.note, one_line=True)}\n")
    if lost or every:
        err.writelines(f"agentrender: {line}\n" for line in _show.stderr_lines(chosen.run.warnings, every=every))
    return chosen


def _followed(
    args: argparse.Namespace,
    console: Console,
    err: IO[str],
    first: Callable[[Run, Views], object],
    line: Line,
    *,
    says: Callable[[Views, Step], str] | None = None,
) -> int:
    """``_follow.follow`` of ``args.run``, its views under the command line's window settings."""
    from agentrender.cli import _follow

    return _follow.follow(
        args,
        console,
        err,
        lambda run: views_of(run, args),
        first,
        line,
        says=says,
    )


def show(args: argparse.Namespace, out: IO[str], console: Console, err: IO[str]) -> int:
    if args.follow:
        from agentrender.cli import _follow

        return _followed(
            args,
            console,
            err,
            lambda run, views: _show_views(views, args, out, console, functools.partial(_follow.undecided, views)),
            _follow.show_line,
            says=lambda views, step: _follow.step_line(step, views).plain,  # not the figures of the view after it
        )
    chosen = load_chosen_of(args, err, lost=args.json)  # show's own output lists every warning
    return _show_views(views_of(chosen.run, args), args, out, console, held=chosen.held)


def _show_views(
    views: Views,
    args: argparse.Namespace,
    out: IO[str],
    console: Console,
    yet: Callable[[Step], bool] | None = None,
    *,
    held: frozenset[str] | None = None,
) -> int:
    """``show`` of ``views`` at ``args.at``; ``yet``: whether a step with no decision may still get one (a follow's,
    ``_follow.undecided``), which it then says (``_show.show_renderables``); ``held``: the ids of the file's runs."""
    at = args.at
    try:
        view = views.at(at)
    except IndexError as error:  # the range is the views' to say
        raise CliError(f"{args.run}: --at {at}: {error}") from None
    if args.json:
        write_json(out, _show.show_json(view))
        return 0
    last_steps = _show.SHOWN_STEPS if args.last_steps is None else args.last_steps
    renderables = _show.show_renderables(view, full=args.full, last_steps=last_steps, yet=yet, name=args.run, held=held)
    print_all(console, renderables)
    return 0


def steps(args: argparse.Namespace, out: IO[str], console: Console, err: IO[str]) -> int:
    if args.csv and args.json:
        raise CliError("--csv and --json each print the table for a program: give one of them")
    if args.follow:
        if args.csv:
            raise CliError("--follow prints each step as it comes, in the terminal's form; --csv prints a finished run")
        from agentrender.cli import _follow

        kept = _follow.steps_filter(args)
        return _followed(
            args,
            console,
            err,
            lambda run, views: _steps_table(run, args, out, console, yet=functools.partial(_follow.undecided, views)),
            lambda views, step: _follow.step_line(step, views) if kept(views, step) else None,
        )
    return _steps_table(load_run_of(args, err, every=args.json or args.csv), args, out, console, err)


def _steps_table(
    run: Run,
    args: argparse.Namespace,
    out: IO[str],
    console: Console,
    err: IO[str] | None = None,
    yet: Callable[[Step], bool] | None = None,
) -> int:
    """The steps table of ``run`` under the filters asked; with ``err``, what a filter asked that no step has.
    (``--follow`` passes none: a live run's next steps may have it; it passes ``yet``: whether a step with no decision
    may still get one, which its row then says.)"""
    from agentrender.cli import _tables  # the tables' module, and the frames it makes them of

    try:
        table = _tables.steps_rows(
            run,
            recent_results=args.recent_results,
            result_bytes=args.result_bytes,
            tool=args.tool,
            status=args.status,
            kind=args.kind,
        )
    except ImportError as error:  # the frames' pandas: the error says which package and the pip line
        raise CliError(str(error)) from None
    if err is not None:
        err.writelines(
            f"agentrender: {clean(args.run, one_line=True)}: {clean(miss, one_line=True)}\n" for miss in table.misses
        )
    if args.json:
        write_json(out, table.records())
    elif args.csv:
        table.write_csv(out)
    else:
        print_all(console, [table.renderable(run, yet)])
    return 0


def decide(args: argparse.Namespace, out: IO[str], console: Console, err: IO[str]) -> int:
    from agentrender.cli import _decide

    none = ""
    if _inputs.looks_like_reply(args.run):
        if args.which is not None:
            raise CliError(f"{args.run}: --run picks a run of a file of runs; a reply file holds one reply")
        replies = _decide.reply_of_file(args.run)
    else:
        run = load_run_of(args, err, every=args.json)
        replies, none = _decide.replies(args.run, run, step=args.step), _decide.none_captured(run)
    if args.json:
        if not replies:  # the list a program reads stays a list; the reason is said where every note is
            err.write(
                f"agentrender: {clean(args.run, one_line=True)}: {clean(_decide.none_said(none), one_line=True)}\n"
            )
        write_json(out, [reply.to_json() for reply in replies])
        return 0
    print_all(console, _decide.renderables(replies, full=args.full, none=none))
    return 0


def check(args: argparse.Namespace, out: IO[str], console: Console, err: IO[str]) -> int:
    from agentrender.cli import _check

    # An unreadable file is one of the reports, printed once with the others (not also on stderr). A file of several
    # runs is checked on every run unless --run names one (a validator must not pass a file whose third run is broken).
    # A folder stands for its run files, as runs and export read one; a folder of none is an error before any check.
    reports = [
        report
        for name in _inputs.run_names(args.runs)
        for report in (_check.check_all(name) if args.which is None else [_check.check(name, args.which)])
    ]
    if args.which is not None:  # a file of several runs is checked on one: stderr says which, as every command does
        for report in reports:
            if report.chosen:
                err.write(f"agentrender: {clean(report.name, one_line=True)}: {clean(report.chosen, one_line=True)}\n")
    if args.json:
        write_json(out, [report.to_json() for report in reports])
    else:
        print_all(console, _check.renderables(reports, strict=args.strict))
    return max(report.exit_code(strict=args.strict) for report in reports)


def context(args: argparse.Namespace, out: IO[str], console: Console, err: IO[str]) -> int:
    from agentrender.cli import _tables  # the tables' module, and the frames it makes them of

    if args.follow:
        from agentrender.cli import _follow

        layout = _tables.SizesLayout([])  # the table's columns, which each line after it keeps
        return _followed(
            args,
            console,
            err,
            lambda run, views: _context_of(
                run, views, args, out, console, layout, functools.partial(_follow.undecided, views)
            ),
            lambda views, step: _follow.context_line(views, step, layout),
        )
    run = load_run_of(args, err, every=args.json)
    return _context_of(run, views_of(run, args), args, out, console)


def _context_of(
    run: Run,
    views: Views,
    args: argparse.Namespace,
    out: IO[str],
    console: Console,
    layout: SizesLayout | None = None,
    yet: Callable[[Step], bool] | None = None,
) -> int:
    from agentrender.cli import _tables  # the tables' module, and the frames it makes them of

    series = views.sizes()
    if args.json:
        write_json(out, _tables.context_json(series))
    else:
        print_all(console, _tables.context_renderables(run, series, layout, yet))
    return 0


def keys(args: argparse.Namespace, out: IO[str], console: Console, err: IO[str]) -> int:
    from agentrender.cli import _tables  # the tables' module, and the frames it makes them of

    run = load_run_of(args, err, every=args.json)
    rows = _tables.key_rows(views_of(run, args))
    if args.json:
        write_json(out, rows)
    else:
        print_all(console, [_tables.keys_renderable(run, rows)])
    return 0


def export(args: argparse.Namespace, out: IO[str], console: Console, err: IO[str]) -> int:
    from agentrender.cli import _tables
    from agentrender.frame import NoRunFilesError, to_parquet

    options = {
        key: value
        for key, value in (("recent_results", args.recent_results), ("result_bytes", args.result_bytes))
        if value is not None
    }
    paths = {name: _inputs.run_path(name) for name in args.runs}
    for name, path in paths.items():
        if not os.path.exists(path):  # refused before OUT is made, as every command refuses it: exit 2
            _inputs.resolve(name)  # the CliError that says so (a sample's name misspelt: the samples)
    try:
        done = to_parquet(
            list(paths.values()),
            args.parquet,
            options=options,
            workers=args.workers,
            progress=False,
            prune=args.prune,
            names={path: name for name, path in paths.items() if path != name},  # a bundled sample, by its name
        )
    except ImportError as error:  # pyarrow or pandas: the error says which package and the pip line
        raise CliError(str(error)) from None
    except (ValueError, NoRunFilesError) as error:  # an OUT that is not an export of these options, a folder of none
        raise CliError(str(error)) from None
    except OSError as error:  # an OUT that cannot be written: a file, a folder not ours
        where = f" ({error.filename})" if error.filename is not None else ""
        raise CliError(f"--parquet {args.parquet}: cannot be written: {error.strerror or error}{where}") from None
    if args.json:
        write_json(out, done.to_json())
    else:
        print_all(console, [_tables.export_renderable(done)])
    return 1 if done.errors else 0


def samples_command(args: argparse.Namespace, out: IO[str], console: Console, err: IO[str]) -> int:
    from agentrender.cli import _tables  # the tables' module, and the frames it makes them of

    rows = [_tables.sample_row(name, samples.load(name)) for name in samples.names()]
    if args.json:
        write_json(out, rows)
    else:
        print_all(console, [_tables.samples_renderable(rows)])
    return 0


def schema_command(args: argparse.Namespace, out: IO[str], console: Console, err: IO[str]) -> int:
    write_json(out, runfile.json_schema())
    return 0


def runs_command(args: argparse.Namespace, out: IO[str], console: Console, err: IO[str]) -> int:
    """The runs of the file ``args.run``, or of each run file under it when it is a folder (``_inputs.run_names``, as
    ``export`` and ``check`` read one): a table a file, and a file that cannot be read said on stderr (exit 2) after
    the others."""
    from agentrender.cli import _tables  # the tables' module, and the frames it makes them of

    files, code = _inputs.run_names([args.run]), 0
    listed: list[dict[str, Any]] = []
    for name in files:
        try:
            runs = _inputs.load_all(name)
        except CliError as error:  # one file of a folder: said, and the others listed
            if len(files) == 1:
                raise
            err.write(f"agentrender: {error}\n")
            code = 2
            continue
        # what the file lost is said on stderr, as every command says it, so that no count of a cut file looks whole
        err.writelines(f"agentrender: {line}\n" for run in runs for line in _show.stderr_lines(run.warnings))
        rows = [{**_tables.run_row(at, run), "file": name} for at, run in enumerate(runs)]
        listed += rows
        if not args.json:
            print_all(console, [_tables.runs_renderable(name, rows, hint=len(files) == 1)])
    if args.json:
        write_json(out, listed)
    elif len(files) > 1 and listed:
        print_all(console, [_tables.runs_hint()])
    return code


def import_command(args: argparse.Namespace, out: IO[str], console: Console, err: IO[str]) -> int:
    from agentrender.cli import _import

    written = _import.import_runs(args, err)
    if args.json:
        write_json(out, [item.to_json() for item in written])
        return 0
    for item in written:
        run = item.run
        facts = [f"run {run.run_id}", plural(len(run.steps), "step"), plural(len(run.model_calls), "model call")]
        source = run.header.get("source")
        if isinstance(source, dict) and source.get("format"):
            facts.insert(0, f"from {source['format']}")
        if run.summariser:
            facts.append(f"results summarised by {run.summariser}")
        said = Text("  " + clean(" \u00b7 ".join(facts), one_line=True), style=MUTED)
        path = clean(shown_path(item.path), one_line=True)
        print_all(console, [Copyable(Text("wrote ", style=MUTED), path, said, indent="  ", style="bold")])
        print_all(console, _show.warning_lines(run.warnings))
    return 0


def html_command(args: argparse.Namespace, out: IO[str], console: Console, err: IO[str]) -> int:
    from agentrender.cli import _html

    return _html.html_command(args, out, console, err)


COMMANDS: dict[str, Callable[[argparse.Namespace, IO[str], Console, IO[str]], int]] = {
    "show": show,
    "steps": steps,
    "decide": decide,
    "context": context,
    "keys": keys,
    "export": export,
    "samples": samples_command,
    "import": import_command,
    "runs": runs_command,
    "check": check,
    "html": html_command,
    "schema": schema_command,
}


def run(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    """Run the parsed command, printing to ``out`` (and a file ``check`` cannot read, or a ``COLUMNS`` that is not a
    number, to ``err``); its exit status. Each command imports the modules only it uses (``check``'s, ``--follow``'s,
    ``html``'s page, the frames of ``export``) when it runs, so that a command starts without the others'."""
    console = make_console(out, width=args.width, color=args.color, err=err)
    return COMMANDS[args.command](args, out, console, err)
