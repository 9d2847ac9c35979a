"""HTML for notebooks, from the facts in ``agentrender.views``: stdlib only, every run text escaped.

Everything a run holds was written by a model or a tool and is untrusted. Every piece of it
reaches the page through ``_text`` (or ``_attr``), which escapes it with ``html.escape``,
caps how much is shown (stating the full size), and replaces bidirectional overrides and
other invisible controls with a visible marker, so no text can reorder or hide what is
around it. Markup comes only from the literals in this module.

Colours follow JupyterLab's theme variables (``--jp-*``), with fallbacks for light and dark
pages outside it; the kinds of block use translucent tints that read on either.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from agentrender._types import ContentBlock, Decision, Message

if TYPE_CHECKING:
    from agentrender.runfile import Run
    from agentrender.views import BlockFact, DecideExplanation, MessageFact, StepFact, View

__all__ = [
    "DISPLAY_CHARS",
    "SHOWN_STEPS",
    "STYLE",
    "decision_html",
    "escape_text",
    "explanation_html",
    "legend_html",
    "messages_html",
    "run_html",
    "table_html",
    "view_html",
]

DISPLAY_CHARS = 20_000
"""The most characters of any one text a page shows; the rest is counted, not sent to the browser."""
SHOWN_STEPS = 40
"""How many of a view's last steps the HTML (and ``agentrender show``) shows in full; earlier ones are counted."""

# Bidirectional overrides and isolates, zero-width and other invisible format characters,
# and C0/C1 controls other than newline and tab: each is shown as a visible code point.
_INVISIBLE = re.compile("[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")


def _mark(match: re.Match[str]) -> str:
    code = f"U+{ord(match.group()):04X}"
    return f'<span class="ar-ctl" title="{code}: an invisible or direction-changing character">[{code}]</span>'


def escape_text(text: str, limit: int = DISPLAY_CHARS) -> str:
    """``text`` as safe HTML: escaped, at most ``limit`` characters, invisible controls made visible."""
    shown = text if len(text) <= limit else text[:limit]
    out = _INVISIBLE.sub(_mark, html.escape(shown, quote=True))
    if len(shown) < len(text):
        total = len(text.encode("utf-8", "surrogatepass"))
        out += (
            f'<span class="ar-more">… {len(text) - limit:,} more characters not shown here '
            f"({total:,} bytes in all)</span>"
        )
    return out


_text = escape_text


def _attr(text: str, limit: int = 200) -> str:
    """``text`` for an attribute value (a title): escaped, quotes included, capped."""
    return html.escape(text[:limit], quote=True)


def _json(value: Any, limit: int = DISPLAY_CHARS) -> str:
    try:
        encoded = json.dumps(value, ensure_ascii=False, indent=2)
    except (TypeError, ValueError):
        encoded = repr(value)
    return _text(encoded, limit)


STYLE = """<style>
.agentrender {
  --ar-fg: var(--jp-content-font-color1, #1f2328);
  --ar-muted: var(--jp-content-font-color2, #59636e);
  --ar-bg: var(--jp-layout-color0, #ffffff);
  --ar-panel: var(--jp-layout-color1, #f6f8fa);
  --ar-border: var(--jp-border-color2, #d1d9e0);
  --ar-mono: var(--jp-code-font-family, ui-monospace, SFMono-Regular, Menlo, monospace);
  color: var(--ar-fg); background: var(--ar-bg);
  font-family: var(--jp-content-font-family, system-ui, sans-serif); font-size: 13px; line-height: 1.45;
}
@media (prefers-color-scheme: dark) {
  .agentrender {
    --ar-fg: var(--jp-content-font-color1, #e6edf3);
    --ar-muted: var(--jp-content-font-color2, #9198a1);
    --ar-bg: var(--jp-layout-color0, #0d1117);
    --ar-panel: var(--jp-layout-color1, #151b23);
    --ar-border: var(--jp-border-color2, #3d444d);
  }
}
.agentrender .ar-header { display: flex; flex-wrap: wrap; gap: 4px 16px; padding: 6px 8px;
  background: var(--ar-panel); border: 1px solid var(--ar-border); border-radius: 6px; margin-bottom: 8px; }
.agentrender .ar-header b { font-weight: 600; }
.agentrender .ar-change { flex-basis: 100%; color: var(--ar-muted); }
.agentrender .ar-muted { color: var(--ar-muted); }
.agentrender .ar-key { font-family: var(--ar-mono); }
.agentrender .ar-legend { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 10px; margin: 0 0 8px;
  color: var(--ar-muted); }
.agentrender .ar-legend > span { padding: 0 6px; margin: 0; box-shadow: none; }
.agentrender .ar-legend > .ar-failed { box-shadow: inset 0 0 0 1px #cf222e; }
.agentrender .ar-turn { border: 1px solid var(--ar-border); border-radius: 8px; padding: 4px 8px;
  margin: 6px 0; max-width: 92%; background: var(--ar-bg); }
.agentrender .ar-assistant { margin-left: 8%; background: var(--ar-panel); }
.agentrender .ar-role { font-size: 11px; color: var(--ar-muted); text-transform: uppercase; letter-spacing: .04em; }
.agentrender .ar-block { border-left: 4px solid var(--ar-border); padding: 2px 8px; margin: 4px 0;
  border-radius: 3px; }
.agentrender .ar-tag { display: inline-block; font-size: 11px; font-weight: 600; padding: 0 6px;
  border-radius: 8px; margin-right: 6px; border: 1px solid currentColor; }
.agentrender pre { white-space: pre-wrap; word-break: break-word; margin: 2px 0; font-family: var(--ar-mono);
  font-size: 12px; max-height: 24em; overflow: auto; color: var(--ar-fg); background: transparent; }
.agentrender .ar-opening { border-left-color: #6e7781; }
.agentrender .ar-reason { border-left-color: #6e7781; }
.agentrender .ar-no_call { border-left-color: #6e7781; font-style: italic; }
.agentrender .ar-tool_use { border-left-color: #0969da; background: rgba(9, 105, 218, .10); }
.agentrender .ar-result { border-left-color: #1a7f37; background: rgba(46, 160, 67, .14); }
.agentrender .ar-cut { border-left: 4px dashed #1a7f37; background: rgba(46, 160, 67, .14); }
.agentrender .ar-summary { border-left-color: #bf8700; background: rgba(212, 167, 44, .18); }
.agentrender .ar-nudge_no_tool_call, .agentrender .ar-nudge_truncated, .agentrender .ar-nudge_invalid {
  border-left-color: #8250df; background: rgba(130, 80, 223, .14); }
.agentrender .ar-interrupted { border-left-color: #bc4c00; background: rgba(251, 143, 68, .16); }
.agentrender .ar-hook { border-left: 4px dotted #6e7781; background: rgba(110, 118, 129, .12); }
.agentrender .ar-failed { box-shadow: inset 0 0 0 1px #cf222e; }
.agentrender .ar-failed .ar-fail { color: #d1242f; }
.agentrender .ar-skipped { margin: 6px 0; padding: 3px 8px; color: var(--ar-muted);
  border: 1px dashed var(--ar-border); border-radius: 6px;
  background: repeating-linear-gradient(135deg, transparent 0 6px, rgba(110, 118, 129, .12) 6px 12px); }
.agentrender .ar-hidden { margin: 4px 0; border: 1px dashed #cf222e; border-radius: 4px; padding: 2px 6px;
  background: repeating-linear-gradient(135deg, transparent 0 8px, rgba(207, 34, 46, .07) 8px 16px); }
.agentrender .ar-hidden > summary { cursor: pointer; color: #d1242f; font-weight: 600; }
.agentrender .ar-more, .agentrender .ar-elided { color: var(--ar-muted); font-style: italic; }
.agentrender .ar-ctl { color: #d1242f; font-family: var(--ar-mono); font-size: 11px; border: 1px solid currentColor;
  border-radius: 3px; padding: 0 2px; }
.agentrender table { border-collapse: collapse; }
.agentrender td, .agentrender th { border: 1px solid var(--ar-border); padding: 2px 6px; text-align: left;
  vertical-align: top; color: var(--ar-fg); }
.agentrender .ar-agree { color: #1a7f37; font-weight: 600; }
.agentrender .ar-disagree { color: #d1242f; font-weight: 600; }
.agentrender .ar-why li { margin: 2px 0; }
.agentrender details > summary { cursor: pointer; }
</style>"""
"""The stylesheet every fragment carries, scoped to ``.agentrender``."""


def _wrap(body: str) -> str:
    return f'{STYLE}<div class="agentrender">{body}</div>'


def legend_html() -> str:
    """The legend: one swatch per kind of block, titled with its meaning from ``BLOCK_KINDS``."""
    from agentrender.views import BLOCK_KINDS, BLOCK_LABELS

    items = "".join(
        f'<span class="ar-block ar-{kind}" title="{_attr(meaning)}">{html.escape(BLOCK_LABELS[kind])}</span>'
        for kind, meaning in BLOCK_KINDS.items()
    )
    extra = (
        '<span class="ar-block ar-result ar-failed" title="the result is flagged is_error">'
        '<span class="ar-fail">failed</span></span>'
        '<span class="ar-skipped" title="a step with no decision is not part of the model\'s view">skipped step</span>'
        '<span class="ar-hidden" title="what the model did not see">hidden from the model</span>'
    )
    return f'<div class="ar-legend">{items}{extra}</div>'


def _block_body(block: ContentBlock) -> str:
    if block.type == "tool_use":
        name, tool_use_id = _text(block.name, 500), _text(block.tool_use_id, 200)
        return f"<b>{name}</b> <code>{tool_use_id}</code><pre>{_json(block.input)}</pre>"
    if block.type == "tool_result":
        return f"<code>{_text(block.tool_use_id, 200)}</code><pre>{_text(block.content)}</pre>"
    if block.raw is not None:
        return f"<pre>{_json(dict(block.raw))}</pre>"
    return f"<pre>{_text(block.text)}</pre>"


def _hidden(fact: BlockFact, step: StepFact | None) -> str:
    """What of a result the model did not see, collapsed and marked as hidden from it."""
    label = fact.hidden_label
    if not label or step is None:
        return ""
    if fact.kind != "summary" and fact.hidden_bytes > 4 * DISPLAY_CHARS:
        # only what the page can show of the rest is taken from the content
        shown = step.hidden_text(4 * DISPLAY_CHARS)[:DISPLAY_CHARS]
        more = f'<span class="ar-more">… the rest not shown here ({fact.hidden_bytes:,} bytes in all)</span>'
        return (
            f'<details class="ar-hidden"><summary>{html.escape(label)}</summary>'
            f"<pre>{_text(shown)}{more}</pre></details>"
        )
    hidden = step.hidden_text()
    return f'<details class="ar-hidden"><summary>{html.escape(label)}</summary><pre>{_text(hidden)}</pre></details>'


def _block_html(fact: BlockFact, step: StepFact | None = None) -> str:
    from agentrender.views import BLOCK_LABELS

    classes = f"ar-block ar-{fact.kind}" + (" ar-failed" if fact.failed else "")
    tags = f'<span class="ar-tag">{html.escape(BLOCK_LABELS.get(fact.kind, fact.kind))}</span>'
    if fact.failed:
        tags += '<span class="ar-tag ar-fail">failed</span>'
    if fact.kind == "summary" and fact.cut:
        tags += '<span class="ar-tag">summary cut at cap</span>'
    if fact.kind == "hook":
        tags += f'<span class="ar-tag">{_text(fact.block.type, 100)}</span>'
    return f'<div class="{classes}">{tags}{_block_body(fact.block)}{_hidden(fact, step)}</div>'


def _message_html(fact: MessageFact, step: StepFact | None = None) -> str:
    role = "assistant" if fact.message.role == "assistant" else "user"
    where = "" if fact.step is None else f" · step {fact.step}"
    if fact.full is not None:
        where += " · in the window" if fact.full else " · outside the window"
    blocks = "".join(_block_html(block, step) for block in fact.blocks)
    label = f'<div class="ar-role">{_text(fact.message.role, 50)}{where} · {fact.bytes:,} bytes</div>'
    return f'<div class="ar-turn ar-{role}">{label}{blocks}</div>'


def _step_html(fact: StepFact) -> str:
    if not fact.rendered:
        return f'<div class="ar-skipped">{html.escape(fact.skipped_label, quote=False)}</div>'
    assert fact.assistant is not None and fact.result is not None
    return _message_html(fact.assistant, fact) + _message_html(fact.result, fact)


def _header_html(view: View) -> str:
    at = "after the last step" if view.at is None else f"deciding step {view.at}"
    key = view.replay_key
    parts = [
        f"<span><b>view</b> {html.escape(at)}</span>",
        f"<span><b>{len(view.messages):,}</b> messages</span>",
        f"<span><b>{view.bytes:,}</b> bytes</span>",
        f'<span title="bytes / 4, a scale, not a count"><b>~{view.tokens:,}</b> tokens</span>',
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


def view_html(view: View, *, last_steps: int = SHOWN_STEPS, legend: bool = True) -> str:
    """The view as chat turns with a header and a legend; at most the ``last_steps`` last steps."""
    total = view.step_count
    start = max(0, total - last_steps)
    parts = [_header_html(view)]
    if legend:
        parts.append(legend_html())
    parts.append(_message_html(view.opening))
    shown = view.step_facts(start)
    if start:
        elided = shown[0].message_index - 1
        parts.append(
            f'<div class="ar-elided">… {start:,} earlier steps ({elided:,} messages) not shown here; '
            "they are in view.messages</div>"
        )
    parts.extend(_step_html(fact) for fact in shown)
    if not total:
        parts.append('<div class="ar-elided">no steps yet: the model saw only the opening</div>')
    return _wrap("".join(parts))


def messages_html(messages: Sequence[Message]) -> str:
    """A plain list of messages as chat turns (no view facts: each block shows its type)."""
    turns = []
    for i, message in enumerate(messages[: SHOWN_STEPS * 2 + 1]):
        blocks = "".join(
            f'<div class="ar-block"><span class="ar-tag">{_text(block.type, 100)}</span>{_block_body(block)}</div>'
            for block in message.content
        )
        role = "assistant" if message.role == "assistant" else "user"
        turns.append(
            f'<div class="ar-turn ar-{role}"><div class="ar-role">#{i} {_text(message.role, 50)}</div>{blocks}</div>'
        )
    more = len(messages) - len(turns)
    if more > 0:
        turns.append(f'<div class="ar-elided">… {more:,} more messages not shown</div>')
    return _wrap(f"<div>{len(messages):,} messages</div>{''.join(turns)}")


def _rows(rows: Iterable[tuple[str, str]]) -> str:
    return "".join(f"<tr><th>{html.escape(name)}</th><td>{value}</td></tr>" for name, value in rows)


def table_html(columns: Sequence[str], rows: Iterable[Iterable[Any]], *, cell_chars: int = 120) -> str:
    """A table of ``rows`` under ``columns``, each cell escaped and cut at ``cell_chars`` characters."""
    head = "".join(f"<th>{_text(str(name), 100)}</th>" for name in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{_text(str(value), cell_chars)}</td>" for value in row) + "</tr>" for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _decision_table(decision: Decision) -> str:
    rows = [("kind", _text(decision.kind, 200))]
    if decision.tool:
        rows.append(("tool", _text(decision.tool, 500)))
    if decision.args is not None:
        rows.append(("args", f"<pre>{_json(decision.args)}</pre>"))
    if decision.invalid_args:
        label = "invalid args (base64)" if decision.invalid_base64 else "invalid args"
        rows.append((label, f"<pre>{_text(decision.invalid_args)}</pre>"))
    rows.append(("reason", f"<pre>{_text(decision.reason)}</pre>"))
    return f"<table>{_rows(rows)}</table>"


def decision_html(decision: Decision) -> str:
    """A decision as a small table."""
    return _wrap(_decision_table(decision))


def explanation_html(explanation: DecideExplanation, recorded: Decision | None = None, *, compare: bool = False) -> str:
    """A reply, the decision ``render.decide`` makes of it, the rule that fired and why, and the
    agreement with ``recorded`` when ``compare`` is set."""
    from agentrender.views import disagreements

    response = explanation.response
    reply = []
    for block in response.content:
        if block.type == "thinking":
            reply.append(
                f'<details class="ar-block ar-reason"><summary>thinking ({len(block.text):,} characters)</summary>'
                f"<pre>{_text(block.text)}</pre></details>"
            )
        elif block.type == "redacted_thinking":
            reply.append('<div class="ar-block ar-reason"><span class="ar-tag">redacted thinking</span></div>')
        elif block.type == "tool_use":
            reply.append(
                f'<div class="ar-block ar-tool_use"><span class="ar-tag">tool use</span>{_block_body(block)}</div>'
            )
        else:
            reply.append(
                f'<div class="ar-block ar-reason"><span class="ar-tag">{_text(block.type, 100)}</span>'
                f"{_block_body(block)}</div>"
            )
    why = "".join(f"<li>{_text(line, 2000)}</li>" for line in explanation.why)
    parts = [
        f'<div class="ar-header"><span><b>stop reason</b> {_text(response.stop_reason or "(none)", 200)}</span>'
        f"<span><b>rule</b> {html.escape(explanation.rule)}</span>"
        f"<span><b>{len(explanation.tool_uses)}</b> tool use(s)</span>"
        f"<span><b>{explanation.text_bytes:,}</b> bytes of text</span></div>",
        f'<div class="ar-turn ar-assistant"><div class="ar-role">the reply</div>{"".join(reply)}</div>',
        f"<div><b>render.decide</b></div>{_decision_table(explanation.decision)}",
        f'<ul class="ar-why">{why}</ul>',
    ]
    if compare:
        differ = disagreements(explanation.decision, recorded)
        if not differ:
            parts.append('<div class="ar-agree">agrees with the decision the run recorded</div>')
        elif recorded is None:
            parts.append('<div class="ar-disagree">the run recorded no decision for this step</div>')
        else:
            parts.append(
                '<div class="ar-disagree">differs from the recorded decision in: '
                f"{html.escape(', '.join(differ))}</div>"
                f"<div><b>recorded</b></div>{_decision_table(recorded)}"
            )
    return _wrap("".join(parts))


def run_html(run: Run) -> str:
    """A run: its header facts, and the view after its last step."""
    from agentrender.views import Views, steps_summary

    end = run.end
    rows = [
        ("run", _text(run.run_id or "(no id)", 500)),
        ("goal", _text(run.goal, 2000)),
        ("model", _text(run.model, 200)),
        ("steps", steps_summary(run.steps)),
        ("model calls", f"{len(run.model_calls):,}"),
        ("tools", _text(", ".join(str(tool.get("name", "?")) for tool in run.tools), 2000)),
        ("end", _text(f"{end.get('status', '?')}: {end.get('reason', '')}", 500) if end else "no end record"),
    ]
    if end and end.get("error"):
        rows.append(("error", _text(str(end["error"]), 2000)))
    if run.path:
        rows.insert(0, ("file", _text(run.path, 1000)))
    if run.warnings:
        warnings = "".join(f"<li>{_text(w, 2000)}</li>" for w in run.warnings[:50])
        rows.append(("warnings", f"<ul>{warnings}</ul>"))
    try:
        view = view_html(Views(run).at(None), last_steps=12, legend=True)
    except ValueError as error:  # a run with no opening and no goal cannot be rendered
        view = f'<div class="agentrender ar-disagree">{_text(str(error), 2000)}</div>'
    return _wrap(f"<table>{_rows(rows)}</table>") + view
