"""The page: the run's facts as a JSON payload, and the one HTML file that lays them out.

The payload stores every text once (``texts``; everything else refers to a text by its number)
and each view as the few numbers that say which of the run's rendered blocks it holds: the
rendered steps from ``start``, each in its full form from ``full_from`` on and as its summary
before. Those numbers, the blocks' kinds and what the model did not see all come from
``agentrender.views``; the page's script never decides any of them.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import os
from dataclasses import fields
from importlib import resources
from string import Template
from typing import TYPE_CHECKING, Any

import msgspec

from agentrender._display.values import DISPLAY_CHARS, SHOWN_STEPS, STYLE
from agentrender._json import display
from agentrender._text import MARK_TITLE, NO_MATH, split_unsafe
from agentrender._types import ContentBlock, Decision, utf8_bytes
from agentrender.render import RECENT_RESULTS, RESULT_BYTES, Options
from agentrender.views import (
    BLOCK_KINDS,
    BLOCK_LABELS,
    NO_WINDOW,
    VIEW_TERMS,
    BlockFact,
    StepFact,
    Views,
    disagreements,
    explain_decide,
    steps_summary,
)

if TYPE_CHECKING:
    from agentrender.runfile import Run

__all__ = ["KEYED_STEPS", "PAGE_FORMAT", "SHORT_TEXT", "TEXT_CHUNK", "page", "payload", "save"]

PAGE_FORMAT = "agentrender.page/1"
"""The version of the payload a page carries (its ``format``)."""
TEXT_CHUNK = 512
"""How many texts one of the page's text elements holds (a power of two)."""
SHORT_TEXT = 120
"""The longest text stored again in a chunk that uses it rather than read from an earlier chunk."""
KEYED_STEPS = 2_000
"""The most steps a run may have for the page to carry every view's replay key (each hashes the whole view)."""

_ASSET = resources.files(__package__)
_SCRIPT = (_ASSET / "page.js").read_text("utf-8")
_STYLE = STYLE.removeprefix("<style>").removesuffix("</style>") + (_ASSET / "page.css").read_text("utf-8")
_TEMPLATE = Template((_ASSET / "page.html").read_text("utf-8"))


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


CONTENT_SECURITY_POLICY = (
    f"default-src 'none'; script-src {_hash(_SCRIPT)}; style-src {_hash(_STYLE)}; base-uri 'none'; form-action 'none'"
)
"""The page's policy: its own script and its own style, by hash, and nothing from anywhere."""


class _Texts:
    """The table of texts: each stored once, as pieces (``agentrender._text.split_unsafe``); a text is its
    number. Number 0 is the empty text, which a block's missing field refers to.

    A short text (at most ``SHORT_TEXT`` characters: a tool's name, a label with a size in it) is stored
    once in each chunk of ``TEXT_CHUNK`` texts that uses it, so that a view's texts, numbered as its
    steps are, sit in the few chunks the page reads to show it.
    """

    def __init__(self) -> None:
        self.table: list[Any] = [""]
        self._numbers: dict[tuple[str, str, int], int] = {("", "", 0): 0}

    def __call__(self, text: str, more: str = "") -> int:
        """The number of ``text`` (at most ``DISPLAY_CHARS`` characters of it), ``more`` said after it."""
        if not text and not more:
            return 0
        key = (text, more, len(self.table) // TEXT_CHUNK if len(text) <= SHORT_TEXT else -1)
        number = self._numbers.get(key)
        if number is None:
            pieces = split_unsafe(text, DISPLAY_CHARS)
            if more:
                pieces += (-1, more)
            number = self._numbers[key] = len(self.table)
            self.table.append(pieces[0] if len(pieces) == 1 else list(pieces))
        return number


def _trimmed(row: list[Any]) -> list[Any]:
    while row and not row[-1]:
        row.pop()
    return row


class _Blocks:
    """A mode's blocks, each a short list of numbers: ``[kind, body, name, id, type, flags, hidden label,
    hidden text]`` (flags: 1 failed, 2 the summary was cut at the cap), trailing zeros left out."""

    def __init__(self, texts: _Texts, kinds: dict[str, int]) -> None:
        self.texts = texts
        self.kinds = kinds

    def kind(self, kind: str) -> int:
        number = self.kinds.get(kind)
        if number is None:  # a kind BLOCK_KINDS does not name yet still shows, under its own name
            number = self.kinds[kind] = len(self.kinds)
        return number

    def __call__(self, fact: BlockFact, step: StepFact | None = None) -> list[Any]:
        texts, block = self.texts, fact.block
        name = uid = 0
        if block.type == "tool_use":
            body = texts(display(block.input))
            name, uid = texts(block.name), texts(block.tool_use_id)
        elif block.type == "tool_result":
            body, uid = texts(block.content), texts(block.tool_use_id)
        elif block.raw is not None:
            body = texts(display(dict(block.raw)))
        else:
            body = texts(block.text)
        shown_type = texts(block.type) if fact.kind in ("hook", "as_sent") else 0
        flags = (1 if fact.failed else 0) | (2 if fact.kind == "summary" and fact.cut else 0)
        label = texts(fact.hidden_label) if fact.hidden_label and step is not None else 0
        hidden = _hidden(texts, fact, step) if label else 0
        return _trimmed([self.kind(fact.kind), body, name, uid, shown_type, flags, label, hidden])


def _hidden(texts: _Texts, fact: BlockFact, step: StepFact | None) -> int:
    """What of a result the model did not see: as much as a page shows of it (as ``views.html`` does)."""
    assert step is not None
    if fact.kind != "summary" and fact.hidden_bytes > 4 * DISPLAY_CHARS:
        shown = step.hidden_text(4 * DISPLAY_CHARS)[:DISPLAY_CHARS]
        return texts(shown, f"… the rest not shown here ({fact.hidden_bytes:,} bytes in all)")
    return texts(step.hidden_text())


def _forms(views: Views, blocks: _Blocks) -> dict[str, Any]:
    """Every rendered step's blocks, once: its assistant turn, its user turn in full and as its summary,
    each message's bytes; and why each skipped step is not in any view."""
    texts = blocks.texts
    forms: dict[str, list[Any]] = {name: [] for name in ("steps", "assistant", "full", "summary", "bytes")}
    skipped: dict[str, int] = {}
    in_full = views.with_options(recent_results=NO_WINDOW).at(None).step_facts()
    as_summaries = views.with_options(recent_results=0).at(None).step_facts()
    for number, (whole, summarised) in enumerate(zip(in_full, as_summaries, strict=True)):
        if not whole.rendered:
            skipped[str(number)] = texts(whole.skipped_label)
            continue
        assistant, result, summary = whole.assistant, whole.result, summarised.result
        assert assistant is not None
        forms["steps"].append(number)
        forms["assistant"].append([blocks(fact) for fact in assistant.blocks])
        # a reply nothing answered (as sent, the conversation ended on it: ``ended`` of the views) has no user turn
        shown = [blocks(fact, whole) for fact in result.blocks] if result is not None else []
        other = [blocks(fact, summarised) for fact in summary.blocks] if summary is not None else []
        forms["full"].append(shown)
        forms["summary"].append(0 if other == shown else other)  # 0: the same blocks as in full
        sizes = (turn.bytes if turn is not None else 0 for turn in (assistant, result, summary))
        forms["bytes"].append(list(sizes))
    return {**forms, "skipped": skipped}


def _stops(views: Views, blocks: _Blocks) -> dict[str, Any]:
    """Each view as numbers: which rendered steps it holds (``start`` to ``rendered``), which of them in
    full (from ``full_from``), whether it ends on an assistant turn, its opening, its replay key."""
    rendered, full_from, start, ended, opening_of = [], [], [], [], []
    openings: list[list[list[Any]]] = []
    seen: dict[Any, int] = {}
    keys: list[Any] = []
    keyed = len(views.steps) <= KEYED_STEPS
    for at in views.stops:
        view = views.at(at)
        count, messages = view.rendered_count, view.message_count
        rendered.append(count)
        full_from.append(count - view.full_count)
        # the opening, then two messages a step; a view that ends on the assistant's turn has one less
        start.append(count - messages // 2)
        ended.append(int(messages % 2 == 0))
        message = view.opening.message
        number = seen.get(id(message))
        if number is None:
            number = seen[id(message)] = len(openings)
            openings.append([blocks(fact) for fact in view.opening.blocks])
        opening_of.append(number)
        if keyed:
            key = view.replay_key
            recorded = view.recorded_keys
            keys.append([key, (1 if key in recorded else -1) if recorded else 0])
    out: dict[str, Any] = {"rendered": rendered, "full_from": full_from, "openings": openings}
    if any(start):
        out["start"] = start
    if any(ended):
        out["ended"] = ended
    out["opening"] = opening_of if len(openings) > 1 else 0
    out["keys"] = keys if keyed else 0
    return out


def _mode(views: Views, texts: _Texts, kinds: dict[str, int]) -> dict[str, Any]:
    blocks = _Blocks(texts, kinds)
    series = views.sizes()
    final = views.at(None)
    saw = [texts(BLOCK_LABELS.get(fact.kind, fact.kind)) if fact is not None else 0 for fact in final.result_blocks()]
    return {
        "describe": texts(views.describe_mode()),
        "recent_results": views.options.recent_results,
        "result_bytes": views.options.result_bytes,
        "stops": list(views.stops),
        **_stops(views, blocks),
        **_forms(views, blocks),
        "sizes": {f.name: list(getattr(series, f.name)) for f in fields(series)},
        "saw": saw,
    }


def _table(run: Run, texts: _Texts) -> dict[str, list[Any]]:
    """The steps table's columns, each a list a row long (texts by number)."""
    columns: dict[str, list[Any]] = {
        name: [] for name in ("index", "kind", "tool", "status", "content_bytes", "summary_bytes", "reason")
    }
    for step in run.steps:
        decision, observation = step.decision, step.observation
        columns["index"].append(step.index)
        columns["kind"].append(texts(decision.kind) if decision else 0)
        columns["tool"].append(texts(decision.tool) if decision else 0)
        columns["status"].append(texts(observation.status) if observation else 0)
        columns["content_bytes"].append(utf8_bytes(observation.content) if observation else None)
        columns["summary_bytes"].append(utf8_bytes(observation.summary) if observation else None)
        columns["reason"].append(texts(decision.reason) if decision else 0)
    return columns


def _decision_rows(decision: Decision, texts: _Texts) -> list[list[int]]:
    rows = []
    for f in msgspec.structs.fields(Decision):
        value = getattr(decision, f.name)
        if f.name == "kind" or value not in (None, "", False):
            shown = display(value) if f.name == "args" else str(value)
            rows.append([texts(f.name), texts(shown)])
    return rows


def _reply_block(block: ContentBlock, texts: _Texts) -> list[int]:
    if block.type == "tool_use":
        return [texts(block.type), texts(display(block.input)), texts(block.name)]
    if block.type == "redacted_thinking":
        return [texts(block.type)]
    if block.raw is not None and block.type not in ("text", "thinking"):
        return [texts(block.type), texts(display(dict(block.raw)))]
    return [texts(block.type), texts(block.text)]


def _replies(run: Run, texts: _Texts) -> list[list[Any]]:
    """Each captured reply, the decision ``render.decide`` makes of it, why, and the recorded decision it became:
    ``[step, stop reason, rule, blocks, why, decision, fields that differ, recorded]``; the last two ``0`` for an
    earlier reply of its step (a retry), which is not compared."""
    recorded = {step.index: step.decision for step in run.steps}
    last = run.last_calls()
    out = []
    for call in run.model_calls:
        explanation = explain_decide(call.response)
        reply: list[Any] = [
            call.step,
            texts(call.response.stop_reason or "(none)"),
            texts(explanation.rule),
            [_reply_block(block, texts) for block in call.response.content],
            [texts(line) for line in explanation.why],
            _decision_rows(explanation.decision, texts),
            0,
            0,
        ]
        if last[call.step] is call:  # only a step's last reply became its recorded decision
            decision = recorded.get(call.step)
            reply[6] = [texts(name) for name in disagreements(explanation.decision, decision)]
            reply[7] = _decision_rows(decision, texts) if decision is not None else 1
        out.append(reply)
    return out


def _header(run: Run, texts: _Texts) -> list[list[int]]:
    end = run.end
    rows = [
        ("run", run.run_id or "(no id)"),
        ("goal", run.goal),
        ("model", run.model),
        ("steps", steps_summary(run.steps)),
        ("model calls", f"{len(run.model_calls):,}"),
        ("tools", ", ".join(str(tool.get("name", "?")) for tool in run.tools)),
        ("end", f"{end.get('status', '?')}: {end.get('reason', '')}" if end else "no end record"),
    ]
    if end and end.get("error"):
        rows.append(("error", str(end["error"])))
    if run.path:
        rows.insert(0, ("file", os.path.basename(run.path)))
    return [[texts(name), texts(value)] for name, value in rows]


def _what_if(run: Run, options: Options | None) -> tuple[Options, Options | None]:
    """The options of the page's view, and of its what-if (an imported run's view under the contract)."""
    if not run.records_sent:
        return (run.options() if options is None else options), None
    sent = run.options()
    if options is None or run.is_as_sent(options):
        options = run.options(recent_results=RECENT_RESULTS, result_bytes=RESULT_BYTES)
    return sent, options


def payload(run: Run, options: Options | None = None) -> dict[str, Any]:
    """The facts the page shows, as plain JSON values (see the module's docstring for the layout).

    ``options`` default to ``run.options()``. For an imported run the page shows its view as sent
    and, as a toggle, the same history under ``options`` (the contract's window and cap when
    ``options`` are not given, or replay what was sent).
    """
    texts = _Texts()
    kinds: dict[str, int] = {kind: number for number, kind in enumerate(BLOCK_KINDS)}
    main, what_if = _what_if(run, options)
    views = Views(run, main)
    modes = [_mode(views, texts, kinds)]
    if what_if is not None:
        modes.append(_mode(views.under(what_if), texts, kinds))
    return {
        "format": PAGE_FORMAT,
        "title": texts(f"agentrender · {run.run_id or os.path.basename(run.path or '') or 'run'}"),
        "header": _header(run, texts),
        "warnings": [texts(str(warning)) for warning in run.warnings],
        "kind_names": list(kinds),
        "kinds": [[texts(BLOCK_LABELS.get(kind, kind)), texts(BLOCK_KINDS.get(kind, ""))] for kind in kinds],
        "terms": [[texts(term), texts(meaning)] for term, meaning in VIEW_TERMS.items()],
        "mark_title": MARK_TITLE,
        "shown_steps": SHOWN_STEPS,
        "table": _table(run, texts),
        "modes": modes,
        "replies": _replies(run, texts),
        "texts": texts.table,
    }


def _script_json(value: Any) -> str:
    """``value`` as JSON that cannot end the ``<script>`` element it sits in: every ``<`` is ``\\u003c``."""
    return msgspec.json.encode(value).decode("utf-8").replace("<", "\\u003c")


def _packed(value: Any) -> str:
    """``value`` as JSON, gzip-compressed, in base64: what the page's ``DecompressionStream`` reads back."""
    return base64.b64encode(gzip.compress(msgspec.json.encode(value), compresslevel=6, mtime=0)).decode("ascii")


def page(run: Run, options: Options | None = None) -> str:
    """The page of ``run``: one self-contained HTML document (see ``payload`` for ``options``).

    The texts travel in chunks of ``TEXT_CHUNK``, each compressed in its own element, which the page
    reads when it first shows one of their texts; the replies in one element read when the decide tab
    is first opened. Opening a long run reads what its first screen shows.
    """
    facts = payload(run, options)
    texts, replies = facts.pop("texts"), facts.pop("replies")
    facts["text_chunk"] = TEXT_CHUNK
    facts["replies"] = len(replies)
    chunks = "".join(
        f'<script type="application/gzip+base64" class="ar-texts">{_packed(texts[at : at + TEXT_CHUNK])}</script>\n'
        for at in range(0, len(texts), TEXT_CHUNK)
    )
    return _TEMPLATE.substitute(
        policy=CONTENT_SECURITY_POLICY,
        title=_plain(f"agentrender · {run.run_id or 'run'}"),
        style=_STYLE,
        root_class=f"agentrender {NO_MATH}",
        payload=_script_json(facts),
        replies=_script_json(replies),
        texts=chunks,
        script=_SCRIPT,
    )


def _plain(text: str) -> str:
    """A title for the ``<title>`` element: the page's script sets the real one; this one is only safe."""
    return "".join(char for char in text if char.isalnum() or char in " ·-_.")[:200]


def save(run: Run, path: str | os.PathLike[str], options: Options | None = None) -> None:
    """Write the page of ``run`` to ``path`` (UTF-8), to open from ``file://`` in any browser."""
    with open(path, "w", encoding="utf-8", newline="\n") as file:
        file.write(page(run, options))
