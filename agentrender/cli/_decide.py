"""``agentrender decide``: each captured reply, the decision ``render.decide`` makes of it, and why.

The rule that fired and the fields that disagree are ``views.explain_decide`` and
``views.compare_recorded`` (which ``check`` holds its replies against their decisions by, a prefill
the reply went on from included).
"""

from __future__ import annotations

import base64
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentrender._display.said import encrypted_said, shown_path
from agentrender._json import display
from agentrender._types import Decision, ModelResponse
from agentrender._words import number_ranges, plural
from agentrender.cli._inputs import CliError, load_reply, resolve
from agentrender.cli._show import Folder
from agentrender.cli._term import (
    AGREE,
    DISAGREE,
    KIND_STYLES,
    MUTED,
    Group,
    Gutter,
    Rule,
    Table,
    Text,
    clean,
)
from agentrender.runfile import Run, response_record
from agentrender.views import Compared, DecideExplanation, answered_tool_uses, compare_recorded, explain_decide

__all__ = ["Reply", "none_captured", "none_said", "renderables", "replies", "reply_of_file"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Reply:
    """One reply and what became of it."""

    label: str
    """Where it came from: the call's number, its step and its line, or the reply file."""
    explanation: DecideExplanation
    """Which rule of ``render.decide`` fired, and the decision."""
    step: int | None = None
    """The step the reply was captured for (``None`` for a reply file)."""
    line: int = 0
    """The line of the file the reply was read from (``ModelCall.line``: the run file's, or the imported history's;
    0 for a reply file, or a file that holds no lines)."""
    file: str = ""
    """That file, when it is not the one the user gave (a sub-agent's transcript beside a Claude Code session's)."""
    compare: bool = False
    """The reply is its step's last, so the step's recorded decision came from it: compare them."""
    superseded: bool = False
    """A later reply was captured for the same step: the recorded decision is not this one's."""
    recorded: Decision | None = None
    """The decision the run recorded for the step."""
    compared: Compared | None = None
    """With ``compare``: the reply held against the recorded decision (``views.compare_recorded``)."""

    @property
    def differs(self) -> tuple[str, ...]:
        """The fields in which the decision differs from the recorded one (``("decision",)``: none recorded)."""
        return self.compared.differs if self.compare and self.compared is not None else ()

    @property
    def prefill(self) -> str:
        """The prefill the request ended with, when it explains why the recorded decision is not the reply's alone
        (``Compared.prefill``); ``""`` otherwise."""
        return self.compared.prefill if self.compare and self.compared is not None else ""

    def to_json(self) -> dict[str, Any]:
        """The reply's facts for scripts."""
        explanation = self.explanation
        response = explanation.response
        return {
            "label": self.label,
            "step": self.step,
            "line": self.line,
            "file": self.file or None,
            "stop_reason": response.stop_reason,
            "rule": explanation.rule,
            "args": explanation.args,
            "tool_uses": list(explanation.tool_uses),
            "not_executed": list(explanation.not_executed),
            "ran_anyway": list(explanation.ran_anyway),
            "note": explanation.note,
            "text_bytes": explanation.text_bytes,
            "capped": explanation.capped,
            "why": explanation.why,
            "decision": decision_json(explanation.decision),
            "compared": self.compare,
            "superseded": self.superseded,
            "recorded": None if self.recorded is None else decision_json(self.recorded),
            "agrees": (not self.differs) if self.compare else None,
            "differs": list(self.differs),
            "prefill": self.prefill or None,
            "reply": response_record(response),
        }


def decision_json(decision: Decision) -> dict[str, Any]:
    """A decision's fields, every one, empty ones included (a run file's record leaves those out)."""
    return {
        "kind": decision.kind,
        "tool": decision.tool,
        "args": decision.args,
        "reason": decision.reason,
        "invalid_args": decision.invalid_args,
        "invalid_base64": decision.invalid_base64,
    }


def reply_of_file(name: str) -> list[Reply]:
    """The one reply in the reply file ``name`` (``looks_like_reply``)."""
    return [Reply(label=name, explanation=explain_decide(load_reply(name)))]


def _same_file(path: str, given: Path) -> bool:
    try:
        return os.path.samefile(path, given)
    except OSError:
        return os.path.abspath(path) == os.path.abspath(given)


def none_captured(run: Run) -> str:
    """Why ``run`` holds no captured reply and what would carry them, in words that follow "no model replies were
    captured in this run: ". An imported history's assistant turns are what its agent sent back to the model, not
    the replies as the API returned them (their stop reason, their usage): only a source that logged the replies
    makes model calls of them (agentrender.imports, docs/guides/your-own-runs.md)."""
    if run.header.get("source"):
        turns = plural(sum(step.decision is not None for step in run.steps), "assistant turn")
        return (
            f"its {turns} are the conversation its agent sent to the model, not replies as the API returned them; "
            "a call log or a request saved with its response, a Claude Code or Codex session, an Inspect log, or a "
            "recording (agentrender.record) carries them"
        )
    return (
        "its file holds no model_call record; a runtime writes one for each reply it gets (agentrender.record does it "
        "for an Anthropic SDK client)"
    )


def none_said(none: str) -> str:
    """What ``decide`` says of a run with no captured reply: that none was, and why (``none_captured``)."""
    return "no model replies were captured in this run" + (f": {none}" if none else "")


def replies(name: str, run: Run, *, step: int | None = None) -> list[Reply]:
    """The replies of ``run`` (read from ``name``); with ``step``, only those captured for that step."""
    recorded = {item.index: item.decision for item in run.steps}
    last = run.last_calls()
    if step is not None and step not in last:
        captured = sorted(last)
        if not captured:
            raise CliError(
                f"{name}: no model call was captured in this run, for step {step} or any other: {none_captured(run)}"
            )
        which = number_ranges(captured)
        raise CliError(f"{name}: no model call was captured for step {step}; --step takes a step with one: {which}")
    out = []
    total = len(run.model_calls)
    # a run of a file beside the one given (a sub-agent's transcript) has its calls at that file's lines
    elsewhere = shown_path(run.path) if run.path and not _same_file(run.path, resolve(name)) else ""
    at = f" of {Path(elsewhere).name}" if elsewhere else ""  # the title says the name; --json gives the path
    for number, call in enumerate(run.model_calls):
        if step is not None and call.step != step:
            continue
        is_last = last[call.step] is call
        explanation = explain_decide(call.response, answered=answered_tool_uses(run, call.step))
        compare = is_last and call.step in recorded
        out.append(
            Reply(
                label=f"call {number + 1} of {total} \u00b7 step {call.step}"
                + (f" \u00b7 line {call.line}{at}" if call.line else ""),
                file=elsewhere if call.line else "",
                explanation=explanation,
                step=call.step,
                line=call.line,
                compare=compare,
                superseded=not is_last,
                recorded=recorded.get(call.step),
                compared=compare_recorded(call, recorded[call.step], explanation.decision) if compare else None,
            )
        )
    return out


def _reply_blocks(response: ModelResponse, folder: Folder) -> Iterator[Any]:
    for block in response.content:
        if block.type == "tool_use":
            header = Text("tool use  ", style=f"bold {KIND_STYLES['tool_use']}")
            header.append(clean(block.name, one_line=True), style="bold")
            header.append(f"  id {clean(block.tool_use_id, one_line=True)}", style=MUTED)
            raw = block.input
            if isinstance(raw, str):
                header.append("  raw argument text", style=MUTED)
                body = folder.body(raw)
            elif isinstance(raw, bytes | bytearray):
                try:
                    text = bytes(raw).decode("utf-8")
                except UnicodeDecodeError:
                    # as a run file holds them (input_base64): the bytes are not text
                    header.append("  raw argument bytes, not UTF-8, as base64", style=MUTED)
                    text = base64.b64encode(raw).decode("ascii")
                else:
                    header.append("  raw argument bytes", style=MUTED)
                body = folder.body(text)
            else:
                compact = display(raw, indent=None)
                body = folder.body(compact if len(compact) <= 100 else display(raw), json_colours=True)
            yield Gutter(Group(header, *body), KIND_STYLES["tool_use"])
        elif block.type in ("thinking", "redacted_thinking"):
            header = Text(block.type.replace("_", " "), style="bold italic " + MUTED)
            if encrypted := encrypted_said(block):  # no text to read: what it is and what it sent
                header.append(f"  {encrypted} \u00b7 not part of the reason", style=MUTED)
                yield Gutter(header, MUTED)
                continue
            header.append(f"  {len(block.text):,} characters, not part of the reason", style=MUTED)
            yield Gutter(Group(header, *folder.body(block.text)), MUTED)
        elif block.type == "text" and not block.opaque:
            yield Gutter(Group(Text("text", style="bold"), *folder.body(block.text)), KIND_STYLES["reason"])
        else:
            header = Text(clean(block.type, one_line=True), style="bold")
            yield Gutter(Group(header, *folder.body(display(block.to_dict()))), MUTED)


def _decision_table(decision: Decision, folder: Folder) -> Table:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style=MUTED, no_wrap=True)
    grid.add_column()
    grid.add_row("kind", Text(clean(decision.kind, one_line=True), style="bold"))
    if decision.tool:
        grid.add_row("tool", Text(clean(decision.tool, one_line=True)))
    if decision.args is not None:
        grid.add_row("args", Group(*folder.body(display(decision.args, indent=None), json_colours=True)))
    if decision.invalid_args:
        label = "invalid args (base64)" if decision.invalid_base64 else "invalid args"
        grid.add_row(label, Group(*folder.body(decision.invalid_args)))
    grid.add_row("reason", Group(*folder.body(decision.reason)) if decision.reason else Text("(none)", style=MUTED))
    return grid


def _reply(reply: Reply, folder: Folder) -> Iterator[Any]:
    explanation = reply.explanation
    response = explanation.response
    title = Text(clean(reply.label, one_line=True), style="bold")
    yield Rule(title, align="left", style=MUTED)
    facts = Text("stop reason ", style=MUTED)
    facts.append(clean(response.stop_reason or "(none)", one_line=True))
    facts.append(" \u00b7 rule ", style=MUTED)
    facts.append(explanation.rule, style="bold")
    facts.append(
        f" \u00b7 {len(explanation.tool_uses)} tool use(s) \u00b7 {explanation.text_bytes:,} bytes of text", style=MUTED
    )
    yield facts
    yield Text("the reply", style="bold")
    yield from _reply_blocks(response, folder)
    if not response.content:
        yield Text("(no content blocks)", style=MUTED)
    yield Text("render.decide", style="bold")
    yield Gutter(_decision_table(explanation.decision, folder), KIND_STYLES["tool_use"], bar="  ")
    yield Text("why", style="bold")
    for line in explanation.why:
        yield Gutter(Text(clean(line)), "", bar="    ", first="  \u2022 ")
    if reply.superseded:
        yield Text(
            "superseded: a later reply was captured for this step, so its recorded decision is not this one's",
            style=MUTED,
        )
    elif reply.compare and (compared := reply.compared) is not None:
        mark, style = ("\u2717", DISAGREE) if compared.differs else ("\u2713", AGREE)
        yield Text(f"{mark} {compared.said}", style=style)
        if compared.prefill:
            yield Text(clean(compared.prefill_said), style=MUTED)
        if compared.differs and reply.recorded is not None:
            yield Text("recorded", style="bold")
            yield Gutter(_decision_table(reply.recorded, folder), "red", bar="  ")
    elif reply.step is not None:
        yield Text("the run recorded no decision for this step (it never finished deciding)", style=MUTED)
    yield Text("")


def renderables(replies: Sequence[Reply], *, full: bool = False, none: str = "") -> Iterator[Any]:
    """Everything ``decide`` prints for ``replies``; ``none``: why the run has none (``none_captured``)."""
    folder = Folder(full=full, lines=6, chars=800)
    if not replies:
        yield Text(none_said(none), style=MUTED)
        return
    for reply in replies:
        yield from _reply(reply, folder)
    compared = [reply for reply in replies if reply.compare]
    if compared:
        disagree = sum(1 for reply in compared if reply.differs)
        summary = Text(
            f"{plural(len(replies), 'reply', 'replies')} \u00b7 {len(compared):,} compared with the recorded decision: "
        )
        if disagree:
            summary.append(f"{disagree:,} disagree", style=DISAGREE)
        else:
            summary.append("all agree", style=AGREE)
        yield summary
