"""HTML of runs, views and replies, from the facts of ``agentrender.views``: the legend, a view as chat
turns, a run's header with a view of it, and a reply with the decision ``render.decide`` makes of it.

Nothing here re-derives a fact: the kind of each block, the window, sizes, what the model did
not see, the replay key and what changed all come from ``agentrender.views``; every text is
shown through ``values`` (escaped, capped, unsafe characters made visible).
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from agentrender._display.said import (
    encrypted_said,
    folded_blocks,
    run_facts_said,
    turn_uses,
    warning_groups,
)
from agentrender._display.values import (
    DISPLAY_CHARS,
    SHOWN_STEPS,
    block_body_html,
    decision_table_html,
    escape_attr,
    escape_text,
    kind_class,
    rows_html,
    wrap,
)
from agentrender._words import plural
from agentrender.views.explain import Compared, disagreements
from agentrender.views.facts import (
    BLOCK_KINDS,
    BLOCK_LABELS,
    LEGEND_MARKS,
    OUTSIDE_KINDS,
    PREFILL_SAID,
    PREFILLED_TEXT,
    compaction_mark,
    legend_kinds,
    legend_of,
)

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from agentrender._display.said import WarningGroup
    from agentrender._types import Decision
    from agentrender.runfile import Run
    from agentrender.views.explain import DecideExplanation
    from agentrender.views.facts import BlockFact, MessageFact, StepFact
    from agentrender.views.view import View

__all__ = ["explanation_html", "legend_html", "run_facts_html", "run_html", "view_html", "warnings_html"]


def legend_html(
    kinds: Iterable[str] = BLOCK_KINDS, *, failed: bool = True, skipped: bool = True, hidden: bool = True
) -> str:
    """The legend: one swatch per kind of ``kinds`` (every one of ``BLOCK_KINDS`` unless told; a display names those
    it shows, ``legend_kinds``), titled with its meaning, then the marks it draws: a failed result, a skipped step,
    what the model did not see."""
    items = "".join(
        f'<span class="ar-block {kind_class(kind)}" title="{escape_attr(BLOCK_KINDS.get(kind, ""))}">'
        f"{html.escape(BLOCK_LABELS.get(kind, kind))}</span>"
        for kind in legend_kinds(kinds)
    )
    (failed_said, failed_meaning), (skipped_said, skipped_meaning), (hidden_said, hidden_meaning) = (
        LEGEND_MARKS[mark] for mark in ("failed", "skipped", "hidden")
    )
    marks = (
        f'<span class="ar-block ar-result ar-failed" title="{escape_attr(failed_meaning)}">'
        f'<span class="ar-fail">{html.escape(failed_said)}</span></span>'
        if failed
        else "",
        f'<span class="ar-skipped" title="{escape_attr(skipped_meaning)}">{html.escape(skipped_said)}</span>'
        if skipped
        else "",
        f'<span class="ar-hidden" title="{escape_attr(hidden_meaning)}">{html.escape(hidden_said)}</span>'
        if hidden
        else "",
    )
    return f'<div class="ar-legend">{items}{"".join(marks)}</div>'


def _hidden(fact: BlockFact, step: StepFact | None) -> str:
    """What of a result the model did not see, collapsed and marked as hidden from it."""
    label = fact.hidden_label
    if not label or step is None:
        return ""
    if fact.kind not in OUTSIDE_KINDS and fact.hidden_bytes > 4 * DISPLAY_CHARS:
        # only what the page can show of the rest is taken from the content
        shown = fact.hidden_text(4 * DISPLAY_CHARS)[:DISPLAY_CHARS]
        more = f'<span class="ar-more">… the rest not shown here ({fact.hidden_bytes:,} bytes in all)</span>'
        return (
            f'<details class="ar-hidden"><summary>{html.escape(label)}</summary>'
            f"<pre>{escape_text(shown)}{more}</pre></details>"
        )
    hidden = fact.hidden_text()
    return (
        f'<details class="ar-hidden"><summary>{html.escape(label)}</summary><pre>{escape_text(hidden)}</pre></details>'
    )


def _block_html(fact: BlockFact, step: StepFact | None = None, uses: dict[str, str] | None = None) -> str:
    classes = f"ar-block {kind_class(fact.kind)}" + (" ar-failed" if fact.failed else "")
    tags = f'<span class="ar-tag">{html.escape(BLOCK_LABELS.get(fact.kind, fact.kind))}</span>'
    if fact.failed:
        tags += '<span class="ar-tag ar-fail">failed</span>'
    if fact.kind == "summary" and fact.cut:
        tags += '<span class="ar-tag">summary cut at cap</span>'
    if fact.kind in ("hook", "as_sent"):
        tags += f'<span class="ar-tag">{escape_text(fact.block.type, 100)}</span>'
    return f'<div class="{classes}">{tags}{block_body_html(fact.block, uses)}{_hidden(fact, step)}</div>'


def _message_html(fact: MessageFact, step: StepFact | None = None) -> str:
    role = "assistant" if fact.message.role == "assistant" else "user"
    where = "" if fact.step is None else f" · step {fact.step}"
    if fact.turn == "prefill" or (role == "assistant" and step is not None and step.prefill):
        # the caller's text, not a reply of the model
        where += f" · {PREFILL_SAID}"
    if fact.full is not None:
        where += " · in the window" if fact.full else " · outside the window"
    fold = folded_blocks(len(fact.blocks))
    uses = turn_uses(fact, step)
    shown = [_block_html(block, step, uses) for position, block in enumerate(fact.blocks) if position not in fold]
    if fold:
        hidden = fact.blocks[fold.start : fold.stop]
        size = sum(block.shown_bytes for block in hidden)
        shown.insert(
            fold.start,
            f'<div class="ar-elided">\u2026 {len(hidden):,} more blocks ({size:,} bytes) not shown here '
            "(the model saw them); they are in view.messages</div>",
        )
    blocks = "".join(shown)
    label = f'<div class="ar-role">{escape_text(fact.message.role, 50)}{where} · {fact.bytes:,} bytes</div>'
    return f'<div class="ar-turn ar-{role}">{label}{blocks}</div>'


def _step_html(fact: StepFact) -> str:
    if not fact.rendered:
        return f'<div class="ar-skipped">{html.escape(fact.skipped_label, quote=False)}</div>'
    assert fact.assistant is not None
    if fact.ended:
        return _message_html(fact.assistant, fact) + f'<div class="ar-ended">{html.escape(fact.ended_text)}</div>'
    assert fact.result is not None
    return _message_html(fact.assistant, fact) + _message_html(fact.result, fact)


def _compaction_html(view: View, counted: bool) -> list[str]:
    """The compaction the view restarts from, or the one right before it, with the sizes when ``counted``."""
    here = view.compaction if counted else None
    if here is not None:
        return [f'<div class="ar-compacted">{html.escape(here.describe())}</div>']
    said = view.restart_label
    return [f'<div class="ar-compacted">{escape_text(said, 500)}</div>'] if said else []


def _marked_steps(view: View, shown: tuple[StepFact, ...]) -> list[str]:
    """The steps' HTML, with a mark before a step a compaction came right before that the view renders across
    (under the contract's options, which render the whole history)."""
    marks = {compaction.step: compaction for compaction in view.views.rendered_across}
    parts = []
    for fact in shown:
        compaction = marks.get(fact.step.index)
        if compaction is not None and fact.in_view and fact.message_index > 1:
            parts.append(f'<div class="ar-compacted">{escape_text(compaction_mark(compaction.trigger), 500)}</div>')
        parts.append(_step_html(fact))
    return parts


def _mode_html(view: View) -> list[str]:
    """Which of an imported run's two views this is (``Views.describe_mode``); nothing for the driver's runs."""
    said = view.views.describe_mode()
    if not said:
        return []
    mode = view.views.mode
    title = (
        "the run's recorded turns, every result in full: exactly what its agent sent"
        if mode == "as sent"
        else "the same history under the render contract's window and cap: what the model would have seen"
    )
    return [f'<span class="ar-mode" title="{html.escape(title)}"><b>{escape_text(said, 500)}</b></span>']


def _header_html(view: View, counted: bool = True) -> str:
    parts = [
        f"<span><b>view</b> {html.escape(view.where)}</span>",
        f"<span><b>{view.message_count:,}</b> messages</span>",
    ]
    if view.ended:
        parts.append(f'<span class="ar-ended">{html.escape(view.ended_text)}</span>')
    if not counted:
        parts.extend(_mode_html(view))
        parts.append(
            '<span class="ar-muted">bytes, tokens, replay key and what changed are counted on demand: '
            f"they read all {view.step_count:,} steps before this one</span>"
        )
        return f'<div class="ar-header">{"".join(parts)}</div>'
    key = view.replay_key
    parts += [
        f"<span><b>{view.bytes:,}</b> bytes</span>",
        f'<span title="bytes / 4, a scale, not a count"><b>~{view.tokens:,}</b> tokens</span>',
        *_mode_html(view),
        f'<span>replay key <span class="ar-key" title="{key}">{key[:16]}…</span></span>',
    ]
    if view.recorded_keys:
        agree = key in view.recorded_keys
        parts.append(
            f'<span class="{"ar-agree" if agree else "ar-disagree"}">'
            f"{'matches' if agree else 'differs from'} the recorded request key</span>"
            + (
                ""
                if agree
                else '<span class="ar-muted" title="a replay key hashes the system, tools, model and output cap too">'
                f"(hashed here with max_output_tokens={view.views.max_output_tokens}; "
                "pass what the agent sent to Views)</span>"
            )
        )
    parts.append(f'<span class="ar-change">{html.escape(view.change.describe())}</span>')
    return f'<div class="ar-header">{"".join(parts)}</div>'


def view_html(view: View, *, last_steps: int = SHOWN_STEPS, legend: bool = True, counted: bool = True) -> str:
    """The view as chat turns with a header and a legend; at most the ``last_steps`` last steps.

    ``counted=False`` leaves out of the header what reads every step before the view (its bytes,
    tokens, replay key and change), so the HTML costs what its ``last_steps`` steps cost.
    """
    total, first = view.step_count, view.first_step
    start = max(first, total - last_steps)
    parts = [_header_html(view, counted), *_compaction_html(view, counted)]
    shown = view.step_facts(start)
    if legend:  # of what is shown here: its last steps, not the view's every step
        said = legend_of((view.opening, view.prefilled), shown)
        parts.append(legend_html(said.kinds, failed=said.failed, skipped=bool(said.skipped), hidden=said.hidden))
    parts.append(_message_html(view.opening))
    if start > first:
        elided = shown[0].message_index - 1
        parts.append(
            f'<div class="ar-elided">… {plural(start - first, "earlier step")} ({plural(elided, "message")}) '
            "not shown here; they are in view.messages</div>"
        )
    parts.extend(_marked_steps(view, shown))
    if (prefilled := view.prefilled) is not None:  # the request ended with the caller's prefill
        parts.append(_message_html(prefilled) + f'<div class="ar-ended">{html.escape(PREFILLED_TEXT)}</div>')
    if not total:
        parts.append('<div class="ar-elided">no steps yet: the model saw only the opening</div>')
    return wrap("".join(parts))


def explanation_html(
    explanation: DecideExplanation,
    recorded: Decision | None = None,
    *,
    compare: bool = False,
    compared: Compared | None = None,
) -> str:
    """A reply, the decision ``render.decide`` makes of it, the rule that fired and why, and the
    agreement with ``recorded`` when ``compare`` is set, said as ``agentrender decide`` says it (``Compared.said``).
    ``compared``: the reply held against ``recorded`` by ``views.compare_recorded``, which knows the prefill its
    request ended with; without it, the reply's decision alone is held against ``recorded``."""
    response = explanation.response
    reply = []
    for block in response.content:
        if encrypted := encrypted_said(block):  # a reasoning block with no text to read: what it is and what it sent
            reply.append(
                f'<div class="ar-block ar-reason"><span class="ar-tag">{block.type.replace("_", " ")}</span>'
                f"{escape_text(encrypted)}</div>"
            )
        elif block.type == "thinking":
            reply.append(
                f'<details class="ar-block ar-reason"><summary>thinking ({len(block.text):,} characters)</summary>'
                f"<pre>{escape_text(block.text)}</pre></details>"
            )
        elif block.type == "tool_use":
            reply.append(
                f'<div class="ar-block ar-tool_use"><span class="ar-tag">tool use</span>{block_body_html(block)}</div>'
            )
        else:
            reply.append(
                f'<div class="ar-block ar-reason"><span class="ar-tag">{escape_text(block.type, 100)}</span>'
                f"{block_body_html(block)}</div>"
            )
    why = "".join(f"<li>{escape_text(line, 2000)}</li>" for line in explanation.why)
    parts = [
        f'<div class="ar-header"><span><b>stop reason</b> {escape_text(response.stop_reason or "(none)", 200)}</span>'
        f"<span><b>rule</b> {html.escape(explanation.rule)}</span>"
        f"<span><b>{len(explanation.tool_uses)}</b> tool use(s)</span>"
        f"<span><b>{explanation.text_bytes:,}</b> bytes of text</span></div>",
        f'<div class="ar-turn ar-assistant"><div class="ar-role">the reply</div>{"".join(reply)}</div>',
        f"<div><b>render.decide</b></div>{decision_table_html(explanation.decision)}",
        f'<ul class="ar-why">{why}</ul>',
    ]
    if compare:
        if compared is None:
            compared = Compared(differs=disagreements(explanation.decision, recorded))
        parts.append(
            f'<div class="ar-{"disagree" if compared.differs else "agree"}">{escape_text(compared.said)}</div>'
        )
        if compared.prefill:
            parts.append(f'<div class="ar-muted">{escape_text(compared.prefill_said)}</div>')
        if compared.differs and recorded is not None:
            parts.append(f"<div><b>recorded</b></div>{decision_table_html(recorded)}")
    return wrap("".join(parts))


SHOWN_WARNINGS = 50
"""How many groups of a run's warnings its HTML lists before it says how many more ``Run.warnings`` holds."""


def warnings_html(groups: Sequence[WarningGroup]) -> str:
    """A run's warnings grouped by file and text (``warning_groups``) as a list, each said as ``agentrender show`` says
    it, the first ``SHOWN_WARNINGS`` groups and how many more there are."""
    listed = "".join(f"<li>{escape_text(str(group), 2000)}</li>" for group in groups[:SHOWN_WARNINGS])
    if len(groups) > SHOWN_WARNINGS:
        listed += f"<li>\u2026 {len(groups) - SHOWN_WARNINGS:,} more (Run.warnings holds every one)</li>"
    return f"<ul>{listed}</ul>"


def run_facts_html(run: Run, *, prefill: int | None = None, groups: Sequence[WarningGroup] | None = None) -> str:
    """A run's facts as a table, as ``agentrender show`` heads a view with them and the offline page folds them under
    "the run" (``run_facts_said``: the same facts in the same order), then the warnings it was read with. ``prefill``:
    the step of a prefill no reply answered, which the view after the last step ends on (``View.prefill_step``),
    counted as the caller's (``steps_summary``); ``groups``: the warnings grouped (``warning_groups``), where the
    caller has them already."""
    rows = [(name, escape_text(said, _FACT_CHARS)) for name, said in run_facts_said(run, prefill=prefill)]
    if run.warnings:
        rows.append(("warnings", warnings_html(warning_groups(run.warnings) if groups is None else groups)))
    return wrap(f"<table>{rows_html(rows)}</table>")


_FACT_CHARS = 2000
"""The most characters of a run's fact its HTML shows (a goal, a system prompt: they may be long)."""


def run_html(run: Run, view: View | str | None, *, last_steps: int = 12) -> str:
    """A run: its facts (``run_facts_html``), then ``view`` (its ``last_steps`` last steps), or, as ``view`` is a
    text, why no view of the run could be built; ``None`` shows the facts alone.

    The caller builds the view (``Run._repr_html_`` shows ``Views(run).at(None)``), so this
    module shows facts and builds none.
    """
    # a prefill no reply answered, which the view after the last step ends on, is counted as the caller's
    prefill = view.views.at(None).prefill_step if view is not None and not isinstance(view, str) else None
    facts = run_facts_html(run, prefill=prefill)
    if view is None:
        shown = ""
    elif isinstance(view, str):
        shown = f'<div class="agentrender ar-disagree">{escape_text(view, 2000)}</div>'
    else:
        shown = view_html(view, last_steps=last_steps, legend=True)
    return facts + shown
