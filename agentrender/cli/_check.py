"""``agentrender check``: what in a run file a user should act on, one finding a line.

Each kind of finding is declared once in ``FINDINGS``, with its severity: an **error** is a
render the API would reject, a recorded decision that ``render.decide`` does not make of
its reply, or a record the file lost; a **warning** is worth a look but breaks nothing (a
result with no summary, a summary longer than its result, a status none of the four, a model call for a step the run
does not hold, a field or record kept but not loaded, a cache breakpoint its view leaves
out). ``check`` exits 1 on errors, and with ``--strict`` on warnings too. Which steps carry a result, and in
which form, is read off ``agentrender.views``; the API's rules are checked on the messages
the views hold, in both forms of every result, so every message of every view is covered.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentrender import _api_rules, render
from agentrender._display.said import warning_groups
from agentrender._types import STATUSES
from agentrender._words import plural
from agentrender.cli._inputs import UNREADABLE, Chosen, CliError, load_all, load_chosen, resolve, views_of
from agentrender.cli._term import AGREE, DISAGREE, MUTED, Copyable, Gutter, Table, Text, box, clean
from agentrender.runfile import Run
from agentrender.views import NO_WINDOW, OUTSIDE_KINDS, Views, compare_recorded, utf8_bytes

__all__ = ["ERROR", "FINDINGS", "SHOWN_PER_KIND", "WARNING", "Finding", "Report", "check", "renderables"]

ERROR = "error"
"""A finding that breaks something: ``check`` exits 1."""
WARNING = "warning"
"""A finding worth a look that breaks nothing: ``check`` exits 1 on it only with ``--strict``."""

FINDINGS: dict[str, tuple[str, str]] = {
    "api-reject": (ERROR, "a render the Messages API would reject"),
    "converted-reject": (
        WARNING,
        "a chat converted from another API (an OpenAI chat) whose render the Messages API would reject, though the "
        "API it was sent to took it",
    ),
    "decide-disagrees": (ERROR, "the decision the run recorded is not what render.decide makes of its captured reply"),
    "lost-record": (ERROR, "something the file held was not loaded at all (a line cut short, a stream ended early)"),
    "no-summary": (WARNING, "a result with no summary: once it leaves the window the model sees only '(no summary)'"),
    "summary-longer": (WARNING, "a summary longer than its result: the window saves nothing on it"),
    "unknown-status": (
        WARNING,
        "an observation's status none of ok, error, invalid_decision, interrupted: rendered as a result that did "
        "not fail",
    ),
    "orphan-call": (WARNING, "a model call for a step the run does not hold"),
    "unoffered-tool": (
        WARNING,
        "a reply's tool use naming a tool its request did not offer: the contract's driver runs nothing and answers "
        "it with an invalid_decision observation",
    ),
    "unplaced-breakpoint": (
        WARNING,
        "a cache breakpoint the file records on a message or block its view does not hold: left out of the view",
    ),
    "load-warning": (WARNING, "something the file held that was kept but not loaded, or was loaded with a doubt"),
}
"""Every kind of finding ``check`` reports: its severity (``ERROR`` or ``WARNING``) and what it means."""

SHOWN_PER_KIND = 20
"""How many findings of one kind the terminal lists per file; the count says how many there are."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """One thing to act on: its kind (a key of ``FINDINGS``), where it is, and what it is."""

    code: str
    message: str
    step: int | None = None
    line: int = 0
    file: str = ""
    """The file ``line`` is in, when it is another than the run's own (a sub-agent's, a sidecar, the session a
    forked agent's run goes on from); ``""``: the run's."""

    @property
    def severity(self) -> str:
        """``ERROR`` or ``WARNING``, as ``FINDINGS`` declares for its kind."""
        return FINDINGS[self.code][0]

    def to_json(self) -> dict[str, Any]:
        """The finding's fields."""
        return {
            "code": self.code,
            "severity": self.severity,
            "step": self.step,
            "line": self.line,
            "file": self.file or None,
            "message": self.message,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Report:
    """What ``check`` found in one run of a file, or why it could not read the file (or render the run)."""

    name: str
    findings: tuple[Finding, ...] = ()
    error: str = ""
    steps: int = 0
    model_calls: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    run_id: str = ""
    """The id of the run checked."""
    number: int | None = None
    """The run's place in its file, counted from 0 (what ``--run N`` takes); ``None`` when the file is unreadable."""
    chosen: str = ""
    """For a file of several runs, which one was checked (``Chosen.note``); ``""`` for a file of one."""
    file: str = ""
    """The file the run was read from, when it is another than the file checked (a sub-agent's transcript beside its
    session's): the file of each finding's line that names none."""

    @property
    def errors(self) -> int:
        """How many findings are errors."""
        return sum(finding.severity == ERROR for finding in self.findings)

    @property
    def warnings(self) -> int:
        """How many findings are warnings."""
        return len(self.findings) - self.errors

    def exit_code(self, *, strict: bool = False) -> int:
        """2: unreadable; 1: errors (or, ``strict``, any finding); 0: otherwise."""
        if self.error:
            return UNREADABLE
        return 1 if self.errors or (strict and self.findings) else 0

    def to_json(self) -> dict[str, Any]:
        """The report's fields, each finding as a dict."""
        return {
            "run": self.name,
            "run_id": self.run_id or None,
            "number": self.number,
            "chosen": self.chosen or None,
            "file": self.file or None,
            "readable": not self.error,
            "error": self.error or None,
            "steps": self.steps,
            "model_calls": self.model_calls,
            "errors": self.errors,
            "warnings": self.warnings,
            "clean": not self.error and not self.findings,
            "counts": self.counts,
            "findings": [finding.to_json() for finding in self.findings],
        }


def _record_lines(run: Run) -> dict[int | None, int]:
    """The line of the file each step was read from (its last record's), by its index, and the header's under
    ``None``: what a finding about a step, or about the opening, names. None for the steps of an imported
    conversation, made of its turns."""
    return {None: run.header_line, **dict(zip((step.index for step in run.steps), run.step_lines, strict=False))}


def _findings(run: Run, views: Views) -> Iterator[Finding]:
    lines = _record_lines(run)
    for group in warning_groups(run.warnings):
        elsewhere = group.path if group.path and run.path and group.path != run.path else ""
        code = "lost-record" if group.lost else "load-warning"
        yield Finding(code=code, message=group.message, line=group.line, file=elsewhere)
    # Every result as a summary: the view with every result a summary.
    summaries = views.with_options(recent_results=0).at(None)
    for fact in summaries.steps:
        block = fact.result_block
        observation = fact.step.observation
        if block is None or block.kind not in OUTSIDE_KINDS or observation is None:
            continue
        summary = observation.summary
        if not summary.strip():
            yield Finding(
                code="no-summary",
                step=fact.step.index,
                line=lines.get(fact.step.index, 0),
                message=f"the result ({block.content_bytes:,} bytes) has no summary: outside the window "
                "the model sees only '(no summary)'",
            )
        elif utf8_bytes(summary) > block.content_bytes:
            yield Finding(
                code="summary-longer",
                step=fact.step.index,
                line=lines.get(fact.step.index, 0),
                message=f"the summary ({utf8_bytes(summary):,} bytes) is longer than the result "
                f"({block.content_bytes:,} bytes)",
            )
    for step in run.steps:
        if step.observation is not None and step.observation.status not in STATUSES:
            yield Finding(
                code="unknown-status",
                step=step.index,
                line=lines.get(step.index, 0),
                message=f"$.observation.status: {step.observation.status!r} is none of {', '.join(STATUSES)}: "
                "the model was shown its result as one that did not fail",
            )
    yield from _api_rejects(run, views, lines)
    yield from _unplaced_breakpoints(run, views, lines)
    yield from _unoffered_tools(run, lines)
    indices = {step.index: step for step in run.steps}
    last = run.last_calls()
    for call in run.model_calls:
        recorded = indices.get(call.step)
        if recorded is None:
            yield Finding(
                code="orphan-call",
                step=call.step,
                line=call.line,
                message=f"a model call for step {call.step}, which the run does not hold",
            )
            continue
        if last[call.step] is not call or recorded.decision is None:
            continue
        differs = compare_recorded(call, recorded.decision).differs
        if differs:
            yield Finding(
                code="decide-disagrees",
                step=call.step,
                line=call.line,
                message="the recorded decision differs from render.decide of the captured reply in: "
                + ", ".join(differs),
            )


def _unoffered_tools(run: Run, lines: Mapping[int | None, int]) -> Iterator[Finding]:
    """The tool uses of each step's reply that name a tool its request did not offer: every tool use of the step's last
    captured reply, against the tools of the request its record holds (or, holding none, the run's); a step with no
    captured reply, its recorded decision's tool against the run's. Where the tools offered are not known (a run that
    records none and no request; a toolset, whose tools have no names here), nothing is said."""
    last = run.last_calls()
    run_tools = run.tools  # a tuple made at each read
    named: dict[int, tuple[Any, list[Any] | None]] = {}  # the names of each list of tools met, by its id (kept alive)
    for step in run.steps:
        call = last.get(step.index)
        request = call.request if call is not None else None
        if request is not None:
            tools, whose = request.get("tools") or (), "its request"
        elif run_tools:
            tools, whose = run_tools, "the run"
        else:
            continue
        known = named.get(id(tools))
        if known is None or known[0] is not tools:
            listed = [tool.get("name") for tool in tools if isinstance(tool, Mapping)]
            ok = len(listed) == len(tools) and all(isinstance(name, str) for name in listed)
            known = named[id(tools)] = (tools, listed if ok else None)
        names = known[1]
        if names is None:
            continue  # a toolset, or a tool of no name: which names it offers is not known here
        if call is not None:
            used = [block.name for block in call.response.content if block.type == "tool_use"]
        else:
            decision = step.decision
            used = [decision.tool] if decision is not None and decision.kind == "tool_call" else []
        for position, name in enumerate(used):
            if name in names:
                continue
            offered = f"{whose} did not offer (it offered {', '.join(map(repr, names)) if names else 'none'})"
            answered = step.observation.status if step.observation is not None and position == 0 else ""
            said = (
                f"; this run answered it with status {answered!r}"
                if answered and answered != "invalid_decision"
                else ""
            )
            yield Finding(
                code="unoffered-tool",
                step=step.index,
                line=call.line if call is not None and call.line else lines.get(step.index, 0),
                message=f"the reply's tool use {name!r} names a tool {offered}: under the contract nothing runs and "
                f"the step's observation is invalid_decision{said}",
            )


def _api_rejects(run: Run, views: Views, lines: Mapping[int | None, int]) -> Iterator[Finding]:
    """What the API would refuse in the messages the views sent: in both forms of every result, in the longest view
    and in the last view before each compaction (the views after it restart from its opening, so the longest holds
    none of the steps before it), each problem once a step."""
    # a chat converted from another API's shape was sent to that API, which keeps rules of its own (OpenAI takes a
    # tool call's id used again): what the Messages API would refuse in it is worth a look, not an error of the run
    source = run.header.get("source")
    rejected = "converted-reject" if isinstance(source, Mapping) and source.get("converted") else "api-reject"
    seen: set[tuple[int | None, str]] = set()
    summarised, whole = views.with_options(recent_results=0), views.with_options(recent_results=NO_WINDOW)
    ends: list[int | None] = [compaction.step - 1 for compaction in views.compactions if compaction.step > 0]
    for at in dict.fromkeys([*ends, None]):
        summaries, fulls = summarised.at(at), whole.at(at)
        # the two views hold the same messages at the same places, only the results' forms differ
        owner: dict[int, int] = {}
        for fact in summaries.steps:
            if fact.rendered and fact.in_view:  # a step before the compaction the view restarts from holds no message
                owner[fact.message_index] = owner[fact.message_index + 1] = fact.step.index
        for view in (fulls, summaries):
            # a view that ends on the model's reply (an imported conversation's last step, which nothing answered)
            # ends on a turn that was received, not sent: no request holds it, so the API's rules for requests do
            # not apply to it
            sent = view.messages[:-1] if view.messages and view.messages[-1].role == "assistant" else view.messages
            for position, _, problem in _api_rules.message_problems(sent):
                step = owner.get(position)
                if (step, problem) not in seen:
                    seen.add((step, problem))
                    where = "the opening" if position == 0 else f"message #{position}"
                    yield Finding(code=rejected, step=step, line=lines.get(step, 0), message=f"{where}: {problem}")


def _unplaced_breakpoints(run: Run, views: Views, lines: Mapping[int | None, int]) -> Iterator[Finding]:
    """The cache breakpoints the run records (a step's ``sent.breakpoints``, the header's ``breakpoints``) on a
    message or block that no view they are for holds, which ``render.with_breakpoints`` leaves out: a step's own
    against the view at that step (its request's), the header's against every view (its request, the longest,
    holds them all; a shorter view leaves out those past its messages, as it should)."""
    if views.options.breakpoints is None:  # a run that records none, or views under the contract
        return
    indices = [step.index for step in run.steps]
    found: list[tuple[int | None, str, str]] = []
    for step, sent in zip(indices, run.step_field("sent", indices), strict=True):
        marks = sent.get("breakpoints") if isinstance(sent, Mapping) else None
        messages = views.at(step).messages if marks else ()
        for position, mark in enumerate(marks or ()):
            past = render.breakpoint_past(messages, mark["message"], mark["block"])
            if past:
                found.append((step, f"$.sent.breakpoints[{position}].{past}", _past_said(mark, messages, step)))
    marks = run.header.get("breakpoints") or ()
    whole = views.at(None).messages if marks else ()
    for position, mark in enumerate(marks):
        past = render.breakpoint_past(whole, mark["message"], mark["block"])
        if past and all(
            render.breakpoint_past(views.at(at).messages, mark["message"], mark["block"]) for at in views.stops
        ):
            found.append((None, f"$.breakpoints[{position}].{past}", _past_said(mark, whole, None)))
    for index, field_path, said in found:
        yield Finding(
            code="unplaced-breakpoint",
            step=index,
            line=lines.get(index, 0),
            message=f"{field_path}: {said}: left out of {'every view' if index is None else 'the view'}",
        )


def _past_said(mark: Mapping[str, Any], messages: Sequence[Any], at: int | None) -> str:
    """What a breakpoint names that ``messages`` (the view at ``at``; ``None``: the longest) does not hold."""
    index, block = mark["message"], mark["block"]
    view = "the longest view" if at is None else f"the view at step {at}"
    if index >= len(messages):
        return f"message {index:,}, where {view} holds {plural(len(messages), 'message')}"
    return f"block {block:,} of message {index:,}, which holds {plural(len(messages[index].content), 'block')}"


def check(name: str, which: str | None = None) -> Report:
    """Check the run file (or sample) ``name`` (its run ``--run which`` names, or its first): a report of its
    findings, or of why it cannot be read.

    Every result is checked in both of its forms (in full and as its summary) under the run's
    own options, so no window setting applies.
    """
    try:
        chosen = load_chosen(name, which)
    except CliError as error:
        return Report(name=name, error=str(error))
    return _report(name, chosen)


def check_all(name: str) -> list[Report]:
    """``check`` of every run of the file ``name`` (a session's sub-agents, an eval log's samples), in the file's
    order: a report each, or one of why the file cannot be read."""
    try:
        runs = load_all(name)
    except CliError as error:
        return [Report(name=name, error=str(error))]
    return [_report(name, Chosen(run, number, len(runs), picked=True)) for number, run in enumerate(runs)]


def _report(name: str, chosen: Chosen) -> Report:
    """The report of the run ``chosen`` of the file ``name``."""
    run = chosen.run
    try:
        views = views_of(run)
    except CliError as error:
        return Report(name=name, error=str(error), run_id=run.run_id, number=chosen.number, chosen=chosen.note)
    findings = tuple(_findings(run, views))
    checked = os.path.abspath(resolve(name))
    own = run.path if run.path and os.path.abspath(run.path) != checked else ""
    counts: dict[str, int] = {}
    for finding in findings:
        counts[finding.code] = counts.get(finding.code, 0) + 1
    return Report(
        name=name,
        findings=findings,
        steps=len(run.steps),
        model_calls=len(run.model_calls),
        counts=counts,
        run_id=run.run_id,
        number=chosen.number,
        chosen=chosen.note,
        file=own,
    )


def renderables(reports: Sequence[Report], *, strict: bool = False) -> Iterator[Any]:
    """What ``check`` prints: per run checked, its findings as a table, or a line saying it is clean; after several,
    a line counting them, and those that fail the exit status (``strict``: a warning fails a run too)."""
    for report in reports:
        name = clean(report.name, one_line=True)  # whole on its line, to copy (``Copyable``): what was said of it after
        said = Text()
        if report.error:
            if report.chosen:
                said.append(f"  ({clean(report.chosen, one_line=True)})", style=MUTED)
            said.append("  unreadable: ", style=DISAGREE)
            said.append(clean(report.error, one_line=True))
            yield Copyable(Text(style="bold"), name, said, indent="  ")
            continue
        facts = f"  {plural(report.steps, 'step')}, {plural(report.model_calls, 'model call')}"
        if report.file:
            facts = f"  read from {clean(report.file, one_line=True)}{facts}"
        if report.chosen:
            facts = f"  ({clean(report.chosen, one_line=True)}){facts}"
        said.append(facts, style=MUTED)
        if not report.findings:
            said.append("  \u2713 clean", style=AGREE)
            yield Copyable(Text(style="bold"), name, said, indent="  ")
            continue
        if report.errors:
            said.append(f"  {plural(report.errors, 'error')}", style=DISAGREE)
        if report.warnings:
            said.append(f"  {plural(report.warnings, 'warning')}", style="yellow")
        yield Copyable(Text(style="bold"), name, said, indent="  ")
        table = Table(box=box.SIMPLE_HEAD, header_style="bold", pad_edge=False, expand=True)
        table.add_column("step", justify="right", no_wrap=True)
        table.add_column("line", justify="right", no_wrap=True)
        table.add_column("", no_wrap=True)
        table.add_column("finding", no_wrap=True)
        table.add_column("what", ratio=1, overflow="fold")  # a file's path is cut nowhere
        shown: dict[str, int] = {}
        for finding in report.findings:
            shown[finding.code] = shown.get(finding.code, 0) + 1
            if shown[finding.code] > SHOWN_PER_KIND:
                continue
            severity = finding.severity
            table.add_row(
                "\u2014" if finding.step is None else f"{finding.step:,}",
                "\u2014" if not finding.line else f"{finding.line:,}",
                Text(severity, style=DISAGREE if severity == ERROR else "yellow"),
                finding.code,
                Text(clean(f"{finding.file}:{finding.line}: {finding.message}" if finding.file else finding.message)),
            )
        yield table
        for code, count in report.counts.items():
            severity, meaning = FINDINGS[code]
            line = Text(f"{count:,} \u00d7 {code} ({severity}): ", style=MUTED)
            line.append(meaning)
            if count > SHOWN_PER_KIND:
                line.append(f" (the first {SHOWN_PER_KIND} are listed; --json lists every one)", style=MUTED)
            yield Gutter(line, "", bar="    ", first="  ")
    if len(reports) > 1:
        unreadable = sum(1 for report in reports if report.error)
        with_errors = sum(1 for report in reports if report.errors)
        with_warnings = sum(1 for report in reports if report.warnings and not report.errors)
        clean_runs = len(reports) - unreadable - with_errors - with_warnings
        failed = sum(1 for report in reports if report.exit_code(strict=strict))
        # a file that cannot be read is a report of no run: the count of runs is of those read
        checked = len(reports) - sum(1 for report in reports if report.error and report.number is None)
        files = len(dict.fromkeys(report.name for report in reports))
        yield Text(
            f"{plural(checked, 'run')} checked in {plural(files, 'file')}: {failed:,} failed; {clean_runs:,} clean, "
            f"{with_errors:,} with errors, {with_warnings:,} with warnings only, {unreadable:,} unreadable",
            style="bold",
        )
