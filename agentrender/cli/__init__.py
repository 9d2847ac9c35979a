"""agentrender's command line: the model's view and the run, in a terminal.

    agentrender show fix-failing-test            the view after the last step, as chat turns
    agentrender show RUN --at 4                  what the model saw deciding step 4
    agentrender steps RUN --status error         the steps table, filtered
    agentrender decide RUN                       each captured reply, its decision and the rule that fired
    agentrender check RUN...                     findings, of files or folders; exit 1 on errors
    agentrender context RUN                      the view's size at every step, where the cache prefix breaks
    agentrender keys RUN                         the replay key of the view at every step
    agentrender export RUN... --parquet OUT      many runs as one Parquet dataset (steps, model calls, runs)
    agentrender samples                          the bundled sample runs
    agentrender runs log.eval                    the runs a file holds (--run ID|N picks one in the others)
    agentrender import convo.json -o run.jsonl   an agent's own history (Messages API, ...) as a run file
    agentrender html RUN -o run.html             the explorer as one offline HTML page, to share
    agentrender schema                           the JSON Schema of a run file's line, to check a writer with

RUN is a run file (``.jsonl`` or ``.jsonl.gz``), any file ``agentrender.imports`` reads (a
Messages API conversation or call log, ...), or the name of a bundled sample. Every
command takes ``--json``. The facts printed come from ``agentrender.views``, the one source
the HTML and the widgets read too. Parsing needs only the standard library; the commands
need rich (``pip install 'agentrender[cli]'``).
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import sys
import textwrap
from collections.abc import Mapping, Sequence
from typing import IO, Any

from agentrender._words import VIEW_TERMS  # views' words, from the base floor: --help loads no view

__all__ = ["build_parser", "main"]

_DESCRIPTION = """\
See exactly what an AI agent's model saw: the conversation a recorded run rendered at any
step, what each block is (a result in full or its summary, a nudge, a re-request), what the
model did not see, and what each captured reply became.

RUN is a run file (.jsonl or .jsonl.gz), an agent's own history that agentrender can import
(a Messages API request, messages list or call log, ...; see agentrender import), or the
name of a bundled sample (agentrender samples). An imported run is shown as sent: each view
is exactly what the agent sent; --recent-results/--result-bytes show it under the contract.
"""

_RUN = "a run file, an agent's history agentrender imports, or the name of a bundled sample"
"""What a RUN argument takes, in each command's help (as ``_DESCRIPTION`` says it)."""

_EPILOG = """\
exit status: 0 success (a reader that stops early, as | head does, included); 1 check found an error (or,
with --strict, a warning), or export wrote a run file that cannot be read as a row with its error; 2 input
that cannot be read (a missing file, a broken run file, a file of no known format, a folder of no run file:
one line on stderr names the file, the line and what); 3 an internal error (AGENTRENDER_TRACEBACK=1 shows
where); 130 interrupted (Ctrl-C), but for --follow, which it ends with 0.

Run content is printed literally: markup is not interpreted, and control characters,
terminal escapes and bidirectional overrides are shown as visible escapes (\\x1b, \\u202e).
"""


class _Paragraphs(argparse.HelpFormatter):
    """argparse's layout, with the paragraphs of a description and an epilog filled to the terminal's width, where a
    line wrapped by hand at 100 columns read as two in a terminal of 80. A blank line ends a paragraph; an indented
    line (an example command, a term and its meaning) stays a line of its own, what passes the width under its text."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        lines: list[str] = []
        paragraph: list[str] = []

        def fill(words: str, hang: str) -> None:
            lines.extend(
                textwrap.wrap(
                    words,
                    width,
                    initial_indent=indent,
                    subsequent_indent=indent + hang,
                    break_long_words=False,
                    break_on_hyphens=False,
                )
            )

        for line in [*text.splitlines(), ""]:
            if line and not line[0].isspace():
                paragraph.append(line)
                continue
            fill(" ".join(paragraph), "")
            paragraph.clear()
            if line.strip():
                # a term's meaning wraps under itself (after the gap of two spaces), a command under its words
                gap = re.match(r"\s+\S+(?: \S+)*? {2,}", line)
                fill(line, " " * (gap.end() if gap else len(line) - len(line.lstrip()) + 4))
            else:
                lines.append("")
        return "\n".join(lines).strip("\n")


def _terms(names: tuple[str, ...]) -> str:
    """The help's list of the words a command's output sizes a view with, as ``VIEW_TERMS`` explains them."""
    if not names:
        return ""
    width = max(map(len, names)) + 2
    lines = [f"  {name:<{width}}{VIEW_TERMS[name]}" for name in names]
    return "the terms of the output:\n" + "\n".join(lines) + "\n\n"


def _at_least(least: int, text: str, *, below: str = "") -> int:
    """``text`` as a whole number of ``least`` or more, else argparse's error saying what it expected and got (and,
    for a number below ``least``, ``below``: what leaving the option out gives)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, {least} or more, got {text!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"expected {least} or more, got {value}" + (f" ({below})" if below else ""))
    return value


_count = functools.partial(_at_least, 0)
_positive = functools.partial(_at_least, 1)
_step = functools.partial(_at_least, 0, below="without --at: the view after the last step")
"""A step a view is taken at (``--at``): -1, a user's way to say the last, is told what leaving ``--at`` out gives."""


class _Command(argparse.ArgumentParser):
    """A command's parser: an argument it does not take is refused with the command's own usage and name
    (argparse leaves it to the top-level parser, whose usage names no command), and the commands that take it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.siblings: Mapping[str, argparse.ArgumentParser] = {}
        """Every command's parser, by its name (``build_parser`` fills it in)."""

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}{self._taken_by(extras)}")
        return parsed, extras

    def _taken_by(self, extras: list[str]) -> str:
        """Which other commands take each of ``extras``' options (``--at`` is an option of show), in brackets."""
        said = []
        for option in dict.fromkeys(extra.split("=", 1)[0] for extra in extras if extra.startswith("-")):
            takers = [
                name
                for name, parser in self.siblings.items()
                if parser is not self
                and any(
                    option in action.option_strings and action.help != argparse.SUPPRESS for action in parser._actions
                )
            ]
            if takers:
                names = f"{', '.join(takers[:-1])} and {takers[-1]}" if len(takers) > 1 else takers[0]
                said.append(f"{option} is an option of {names}")
        return f" ({'; '.join(said)})" if said else ""


def _output_options() -> _Command:
    parent = _Command(add_help=False)
    group = parent.add_argument_group("output")
    group.add_argument(
        "--json",
        action="store_true",
        help="print JSON for scripts instead of the terminal view (the run's warnings: in it where it is one object, "
        "else on stderr)",
    )
    group.add_argument(
        "--width",
        type=_positive,
        metavar="COLUMNS",
        help="the width to lay the output out at (default: the terminal's; piped, COLUMNS or 100)",
    )
    group.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour the output: auto (on a terminal, unless NO_COLOR is set), always or never",
    )
    return parent


def _window_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("render options")
    group.add_argument(
        "--recent-results",
        type=_count,
        metavar="N",
        help="how many of the last rendered steps show their result in full (default 6, as render.RECENT_RESULTS)",
    )
    group.add_argument(
        "--result-bytes",
        type=_count,
        metavar="B",
        help="the cap on a result's bytes in the view (default 16384, as render.RESULT_BYTES)",
    )


def _key_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--max-output-tokens",
        type=_count,
        metavar="N",
        help="the max_tokens the run's agent sent, which the replay key hashes "
        "(default: the run header's max_output_tokens, else 0)",
    )


def _run_option(parser: argparse.ArgumentParser | argparse._MutuallyExclusiveGroup, *, each: bool = False) -> None:
    parser.add_argument(
        "--run",
        dest="which",
        metavar="ID|N",
        help=("in each file " if each else "")
        + "of several runs (an eval log's samples, a session's sub-agents), the run to read: its run id, or "
        "its number counted from 0 (agentrender runs FILE lists them); default: the first, and stderr says so",
    )


def _follow_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--follow",
        "-f",
        action="store_true",
        help="keep reading the run file as it is written, as tail -f: each new step as it comes (Ctrl-C stops; so "
        "does a run file's end record, its last)",
    )
    # For tests: end the follow after SECONDS, as a Ctrl-C would. Not in --help.
    parser.add_argument("--follow-for", type=float, metavar="SECONDS", help=argparse.SUPPRESS)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every command (standard library only, so ``--help`` needs no extra)."""
    # allow_abbrev=False: an option is its whole name, so a near miss (show --ste, for --step or --steps) is an
    # error that names it, never another option taken silently
    parser = argparse.ArgumentParser(
        prog="agentrender",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=_Paragraphs,
        allow_abbrev=False,
    )
    from agentrender import __version__

    parser.add_argument("--version", action="version", version=f"agentrender {__version__}")
    # not required: a bare agentrender is told the commands (``main``), not only that one is required
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Command)
    output = _output_options()

    def command(name: str, summary: str, description: str, terms: tuple[str, ...] = ()) -> argparse.ArgumentParser:
        return commands.add_parser(
            name,
            help=summary,
            description=description,
            parents=[output],
            formatter_class=_Paragraphs,
            epilog=_terms(terms) + _EPILOG,
            allow_abbrev=False,
        )

    show = command(
        "show",
        "the model's view at a step, as chat turns",
        """\
The conversation the model saw when deciding step K (by default: after the last step, what
it would see next), exactly as render.messages builds it. Each block is marked by what it
is: the opening, a reason, a tool use, a result in full (or cut at the cap), a summary, a
nudge, an interruption's re-request; steps with no decision are marked skipped. What the
model did not see (the content behind a summary, the bytes past the cap) is stated. Long
blocks are folded with their size stated; --full prints everything.

The view's facts come last, where the terminal still shows them: its size, its window (the
last --recent-results results in full, earlier ones as their summaries), its replay key, and
what changed since the previous step's view (the first message that differs: before it, the
cacheable prefix; from it on, what is re-sent). A legend line explains these terms.""",
        terms=("window", "replay key", "cacheable prefix", "re-sent"),
    )
    show.add_argument("run", metavar="RUN", help=_RUN)
    _run_option(show)
    show.add_argument(
        "--at",
        "--step",
        type=_step,
        metavar="K",
        help="the view the model saw deciding step K (the steps with an index below K; --step K is the same, as in "
        "decide); default: after the last step",
    )
    _window_options(show)
    show.add_argument(
        "--steps",
        type=_positive,
        metavar="N",
        dest="last_steps",
        help="print only the last N steps of the view (default 40); earlier ones are counted",
    )
    _key_options(show)
    show.add_argument(
        "--full",
        action="store_true",
        help="print every step and every block in full, and what the model did not see",
    )
    _follow_options(show)

    steps = command(
        "steps",
        "the steps table, filtered by tool, status or kind",
        """\
One row per recorded step: its decision's kind and tool, its observation's status, what the
model saw of it in the view after the last step (its result's block: full result, summary,
"full result, cut at cap", a nudge, a re-request, as sent; of a step the view holds nothing
of, skipped: it has no decision; nothing: the conversation ended, the step an imported
conversation ended on; compacted away: a step before a compaction), its result's and summary's
bytes (— where it has none), and its reason (the caller's prefill a request ended with marked
[prefill], the model's reply after it [reply]). --json and --csv give every column of the steps
frame (agentrender.frame.STEP_COLUMNS), the reason as the run holds it.
Filters take a value each; one given again adds a value (--tool Read --tool Grep keeps the
steps of either), and a row is kept when it matches each filter given. A value no step has is
said on stderr, with the values the steps have.""",
    )
    steps.add_argument("run", metavar="RUN", help=_RUN)
    _run_option(steps)
    steps.add_argument(
        "--tool",
        action="append",
        metavar="NAME",
        help="keep steps that called this tool: their decision's, or one of the parallel calls made beside it "
        "(none: no tool)",
    )
    steps.add_argument(
        "--status",
        action="append",
        metavar="STATUS",
        help="keep steps whose observation has this status "
        "(ok, error, invalid_decision, interrupted; none: no observation)",
    )
    steps.add_argument(
        "--kind",
        action="append",
        metavar="KIND",
        help="keep steps whose decision has this kind (tool_call, no_tool_call, truncated, ...; none: no decision; "
        "prefill: the caller's prefill a request ended with, listed as \"prefill: the caller's text\", never as a "
        "decision of the model)",
    )
    steps.add_argument("--csv", action="store_true", help="print the table as CSV (text cells with controls escaped)")
    _window_options(steps)
    _follow_options(steps)

    decide = command(
        "decide",
        "each captured reply, the decision it becomes, and why",
        """\
For each model reply the run captured (or the one reply in REPLY.json, an Anthropic Message
object): the reply, the decision render.decide makes of it, the rule that fired and why, and
whether it agrees with the decision the run recorded for that step. A step's decision comes
from its last reply; earlier replies for the same step are shown as superseded.""",
    )
    decide.add_argument("run", metavar="RUN|REPLY.json", help=f"{_RUN}, or a reply (.json)")
    _run_option(decide)
    decide.add_argument("--step", type=_count, metavar="K", help="only the replies captured for step K")
    decide.add_argument("--full", action="store_true", help="print thinking, text and arguments in full")

    check = command(
        "check",
        "validate run files and report findings to act on",
        """\
Read each run file (of a folder: every run file under it, at any depth, as runs and export
find them), each once however it is named, and report what a user should act on, each finding named by its kind:
results with no summary (no-summary: the model sees "(no summary)" once they leave the
window), summaries longer than their results (summary-longer), observation statuses none of
ok, error, invalid_decision and interrupted (unknown-status: rendered as a result that did not
fail), renders the Messages API would reject (api-reject; converted-reject, a warning, for a
chat converted from another API, which took it), recorded decisions that disagree with
render.decide on their captured reply, a prefill the reply went on from included
(decide-disagrees), tool uses naming a tool their request did not offer (unoffered-tool:
under the contract nothing runs, an invalid_decision), model calls that belong to no step
(orphan-call), cache breakpoints on a message or block their view does not hold
(unplaced-breakpoint), and what the file held that was not loaded (load-warning; lost-record,
an error, for a record lost). Every result is checked both in full and as its summary, under the
run's own options, so no render option applies.

Each finding is an error (the API would reject a render, a recorded decision is not what
render.decide makes of its reply, a record was lost) or a warning (worth a look, breaks
nothing). Exit 0: no errors (warnings are listed); 1: errors, or with --strict any finding;
2: a file is unreadable (its report says why, and the others are checked all the same), or a
folder holds no run file (said on stderr, and nothing is checked). A file of several runs (a
session and its sub-agents, an eval log's samples) is checked on every run, a report each
naming its number and id; after several, a last line counts the runs checked and failed;
--run checks the one it names. With --json, a report a run, its file under "run".""",
    )
    check.add_argument(
        "runs",
        nargs="+",
        metavar="RUN",
        help="run files, folders of them, agents' histories agentrender imports, or bundled samples",
    )
    which = check.add_mutually_exclusive_group()
    _run_option(which, each=True)
    which.add_argument(
        "--all",
        action="store_true",
        help="in each file of several runs, check every run, a report each: the default, kept for the scripts that "
        "give it",
    )
    check.add_argument("--strict", action="store_true", help="exit 1 on warnings too, not only on errors")

    context = command(
        "context",
        "the view's size at every step, and where the cache prefix breaks",
        """\
For the view at every step: its messages, its bytes and approximate tokens (bytes / 4, a
scale, not a count), its bytes with every result in full, and how much of it is a prefix
shared with the previous step's view (what a prompt cache can reuse) against what is sent
afresh. The prefix breaks where a result leaves the recent-results window, and where a
compaction restarted an imported session's conversation (as sent).""",
        terms=("window", "cacheable prefix", "re-sent"),
    )
    context.add_argument("run", metavar="RUN", help=_RUN)
    _run_option(context)
    _window_options(context)
    _follow_options(context)

    keys = command(
        "keys",
        "the replay key of the view at every step",
        """\
The replay key (render.replay_key: SHA-256 over exactly what would be sent: the run's system
prompt, tools and model, and the view's messages) at every step, beside the request keys the
run recorded for that step's model calls. A recorded key that differs means the run's agent
did not send what this render builds; for an imported run, a line under the table says why.
A run that recorded none says which runs carry them: those that hold each request their
agent sent (agentrender.agent's, a recording, an Anthropic call log).""",
        terms=("replay key",),
    )
    keys.add_argument("run", metavar="RUN", help=_RUN)
    _run_option(keys)
    _window_options(keys)
    _key_options(keys)

    export = command(
        "export",
        "many runs as one Parquet dataset: steps, model calls, one row per run",
        """\
Write the steps, the model calls and one row per run of every RUN (a run file, a folder of
.jsonl, .jsonl.gz, .eval and .eval.gz files and Inspect .json(.gz) logs, a bundled sample, or an agent's
history agentrender imports: a Claude Code session's main thread and sub-agents, an eval
log's samples, each a run) to the folder OUT as a Parquet dataset: OUT/steps, OUT/model_calls
and OUT/runs, each a few Parquet files (parts) that hold many files read, with the columns and
types of agentrender.frame (every row names its run_id and its file's absolute path). pandas,
DuckDB and Polars read each folder as a table. The warnings of each run read are printed as import prints them,
each file named as you named it.

Exporting again is incremental: OUT/manifest.json records each file's size, mtime and hash,
so an unchanged file is skipped (its runs' warnings said again, from its runs row), a changed
one is written in a new part and its rows removed from the part that held them, and runs exported
before but not named now are kept (--prune drops those whose file is gone). A file named that
does not exist is refused before anything is written (exit 2, as every command refuses one); a
file that cannot be read (one of a folder's, say) becomes a row of the runs table with its error,
and the command exits 1; one read without all it holds (a last line cut short) is exported with
what it holds, and named.""",
    )
    export.add_argument(
        "runs",
        nargs="+",
        metavar="RUN",
        help="run files, folders of them, bundled samples, or agents' histories agentrender imports",
    )
    export.add_argument("--parquet", required=True, metavar="OUT", help="the dataset's folder (created, or added to)")
    export.add_argument(
        "--workers",
        type=_positive,
        metavar="N",
        help="worker processes that read and write (default: one per 64 MiB of run files to write, at most one per "
        "CPU; 1 reads in this process)",
    )
    export.add_argument("--prune", action="store_true", help="remove the runs of OUT whose file no longer exists")
    _window_options(export)

    command(
        "samples",
        "the bundled sample runs",
        "The sample runs shipped with agentrender, each a name any RUN argument accepts.",
    )

    runs = command(
        "runs",
        "the runs a file holds: id, steps, model calls, warnings",
        """\
A file may hold several runs: an Inspect eval log one a sample, a Claude Code session its
main thread, its sub-agents and what came before each compaction. One row per run: its
number counted from 0 (what --run N takes), its steps, model calls and warnings, and its id (what
--run ID takes), with how it ended and where in the source it comes from under it. A folder:
the runs of each run file under it, as export reads one, a table a file (a file that cannot be
read is said on stderr, exit 2, and the others listed).""",
    )
    runs.add_argument("run", metavar="FILE", help=f"{_RUN}; or a folder: the run files under it")

    imported = command(
        "import",
        "write an agent's own history as a run file",
        """\
Read SOURCE, in any format agentrender.imports reads (a Messages API request body, a bare
messages list, a request with its response, a call log as .json or .jsonl, a claude-trace
log of HTTP exchanges, ...; a run file too), and write it as a run file: every turn as it
was sent, what could not be mapped as warnings. The run file renders exactly what the
agent sent, and every command (and
agentrender.load_run) reads it. Each RUN argument also takes SOURCE directly; writing it
once saves importing it again, and keeps the summaries given with --summarise.

  agentrender import convo.json -o run.jsonl
  agentrender import calls.jsonl -o run.jsonl.gz --summarise first-line
  agentrender import log.eval --run 2 -o sample.jsonl
  agentrender import log.eval --all -o runs/""",
    )
    imported.add_argument("source", metavar="SOURCE", help="the file to import (its format is found from its content)")
    imported.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="PATH",
        help="the run file to write (.jsonl; .jsonl.gz writes it gzip-compressed); with --all, a folder",
    )
    imported.add_argument("--force", action="store_true", help="overwrite PATH (with --all, its files) if it exists")
    imported.add_argument(
        "--summarise",
        choices=("none", "first-line"),
        default="none",
        help="give each result a summary, for the view under the contract's window: none (the default: "
        "results keep no summary unless the source gave them one) or first-line (its first line and its size, "
        "agentrender.imports.first_line_summary)",
    )
    imported.add_argument(
        "--all",
        action="store_true",
        help="SOURCE holds several runs (an eval log's samples, a session's sub-agents): write each to the "
        "folder PATH, as RUN_ID.jsonl (.jsonl.gz with --gzip): its id's characters safe in a file name, a / as _, "
        "without the suffix of a file it was named by (log.jsonl/1 as log_1.jsonl), -2 after a name taken",
    )
    imported.add_argument("--gzip", action="store_true", help="with --all, write each run gzip-compressed")
    _run_option(imported)

    page = command(
        "html",
        "the explorer as one offline HTML page, to share",
        """\
Write RUN as one self-contained HTML file: the view at any step (a slider and the arrow keys),
the steps table (paged, filtered by tool, status and kind), the size and cache-prefix chart,
each captured reply and the decision render.decide makes of it, and the run's warnings. It
needs no network, no server and no kernel: open it from disk in any browser, attach it to a
bug report or a pull request. An imported run shows as sent, with the view under the contract
(--recent-results/--result-bytes, default the contract's) as a toggle. Add #step=K to the
page's address to open it at step K, or write it with --at K. A file of several runs (an eval
log's samples, tau-bench's tasks, a session and its sub-agents) is one page of all of them, up
to --max-runs: a list of its runs says each one's sample and epoch, steps, how it ended and its
score, and opens it; #run=N opens run N, numbered as agentrender runs numbers them. With --run,
the page holds that run and the runs linked to it (a session's sub-agents, a sub-agent's
session): the step that started one says which run it was and opens it.

  agentrender html fix-failing-test -o run.html
  agentrender html log.eval -o eval.html
  agentrender html log.eval --run 2 -o sample-2.html""",
    )
    page.add_argument("run", metavar="RUN", help=_RUN)
    page.add_argument("-o", "--output", required=True, metavar="PATH", help="the HTML file to write")
    page.add_argument("--force", action="store_true", help="overwrite PATH if it exists")
    page.add_argument(
        "--at",
        "--step",
        type=_step,
        metavar="K",
        help="the view the page opens at, as show --at K (an address's #step=K opens another); default: after the "
        "last step",
    )
    page.add_argument(
        "--run",
        dest="which",
        metavar="ID|N",
        help="of several runs (an eval log's samples, a session's sub-agents), the one run to write, with the runs "
        "linked to it: its run id, or its number counted from 0 (agentrender runs FILE lists them); default: every "
        "run of the file, up to --max-runs",
    )
    page.add_argument(
        "--max-runs",
        type=_positive,
        metavar="N",
        help="the most runs of a file of several to put on the page, its first N; stderr says which it left out "
        "(default: 100)",
    )
    _window_options(page)

    command(
        "schema",
        "the JSON Schema of a run file's line, to check what a runtime writes",
        """\
Print the JSON Schema (draft 2020-12) of one line of a run file: each record (run, step,
model_call, model_call_error, end), picked by its "type", with every field and its type.
It is generated from the record structs agentrender.load_run reads with, so a runtime in
any language can check each line it writes against it: a line the schema accepts is one
load_run loads. The format lets a reader meet unknown record types and fields (they are
kept with a warning); the schema does not allow them, so a checked writer writes none. It
is JSON on a terminal too: --json, --width and --color change nothing.

  agentrender schema > run-line.schema.json""",
    )
    for each in commands.choices.values():
        each.siblings = commands.choices
    return parser


@functools.cache
def _parser() -> argparse.ArgumentParser:
    """``build_parser()``, once a process: a notebook or a test suite calls ``main`` many times, and building
    the parser of every command (with argparse's look-ups of its translations) costs more than most commands."""
    return build_parser()


def _commands_listed(parser: argparse.ArgumentParser) -> str:
    """The commands and what each does, laid out as ``--help`` lists them (argparse's own formatter, at the
    terminal's width)."""
    formatter = parser._get_formatter()
    formatter.start_section("commands")
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            formatter.add_arguments(action._get_subactions())
    formatter.end_section()
    return formatter.format_help()


def _interrupted(args: argparse.Namespace) -> int:
    """The exit status of a command a Ctrl-C ended: 0 for a follow, whose end it is (before its first output too),
    else 130."""
    return 0 if getattr(args, "follow", False) else 130


def main(argv: list[str] | None = None, *, stdout: IO[str] | None = None, stderr: IO[str] | None = None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``) and return its exit status."""
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    for stream in (out, err):
        # a terminal that cannot show a character gets an escape, never an exception
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    try:
        args = _parser().parse_args(argv)
    except KeyboardInterrupt:  # a Ctrl-C as the command starts ends it as one later does, with no traceback
        return 130
    if args.command is None:  # a bare agentrender: the commands to give, as a bare git lists its own
        parser = _parser()
        err.write(parser.format_usage() + "\n" + _commands_listed(parser) + "\n")
        err.write("agentrender: error: give a COMMAND (agentrender COMMAND --help says what one takes)\n")
        return 2
    try:
        from agentrender.cli import _commands
    except ImportError as error:
        print(f"agentrender: {error}", file=err)
        return 2
    except KeyboardInterrupt:
        return _interrupted(args)
    try:
        code = _commands.run(args, out, err)
        out.flush()  # what is still buffered meets a closed pipe here, not as Python exits
        return code
    except _commands.CliError as error:
        print(f"agentrender: {_commands.clean(str(error), one_line=True)}", file=err)
        return error.code
    except BrokenPipeError:
        # the reader went away (| head): stop quietly, with 0 as a command whose reader read all it wanted, whatever
        # its output's size (a closed pipe ends rich's output as ``_commands.run`` says), and keep Python from
        # complaining at exit
        if out is sys.stdout:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        return _interrupted(args)
    except Exception as error:
        if os.environ.get("AGENTRENDER_TRACEBACK"):
            raise
        what = _commands.clean(f"{type(error).__name__}: {error}", one_line=True)
        print(f"agentrender: internal error: {what} (AGENTRENDER_TRACEBACK=1 shows where)", file=err)
        return 3
