"""The page: the run's facts as a JSON payload, and the one HTML file that lays them out.

The payload stores every text once (``texts``; everything else refers to a text by its number)
and each view as the few numbers that say which of the run's rendered blocks it holds: the
rendered steps from ``start``, each in its full form from ``full_from`` on and as its summary
before. Those numbers, the blocks' kinds and what the model did not see all come from
``agentrender.views``; the page's script never decides any of them.

What the page knows before it reads anything else (the run's facts, each mode's options and
openings, the steps table's filters) is the payload's top level; the rest comes in parts of
``PART_STEPS`` stops and steps (each mode's ``parts``, the table's ``rows``), which the page
reads when it shows one of their steps, so that opening a long run costs what its first view
shows.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import itertools
import os
from importlib import resources
from string import Template
from typing import TYPE_CHECKING, Any

import msgspec

from agentrender._display.said import (
    WIRE_SAID,
    block_said,
    encrypted_said,
    end_said,
    inherited_said,
    link_role,
    parent_said,
    run_facts_said,
    scores_said,
    source_said,
    started_said,
    tools_said,
    turn_uses,
    warning_groups,
)
from agentrender._display.values import DISPLAY_CHARS, SHOWN_STEPS, STYLE
from agentrender._json import display
from agentrender._text import MARK_TITLE, NO_MATH, split_unsafe
from agentrender._types import ContentBlock, Decision, Step, utf8_bytes
from agentrender.frame import STEP_LEAD_COLUMNS
from agentrender.render import RECENT_RESULTS, RESULT_BYTES, Options
from agentrender.views import (
    BLOCK_KINDS,
    BLOCK_LABELS,
    ENDED_SAW,
    ENDED_TEXT,
    LEFT_OUT_TEXT,
    LEGEND_MARKS,
    NO_VALUE,
    NO_WINDOW,
    OUTSIDE_KINDS,
    PREFILL_ENDED_TEXT,
    PREFILL_SAID,
    PREFILLED_TEXT,
    SKIPPED_SAW,
    VIEW_TERMS,
    BlockFact,
    StepFact,
    View,
    Views,
    answered_tool_uses,
    compaction_mark,
    compare_recorded,
    explain_decide,
    listed_kind,
    window_json,
)

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from agentrender.runfile import Run, RunLink

__all__ = [
    "KEYED_STEPS",
    "MAX_RUNS",
    "PAGE_FORMAT",
    "PART_STEPS",
    "SHORT_TEXT",
    "TEXT_CHUNK",
    "linked",
    "page",
    "payload",
    "save",
]

PAGE_FORMAT = "agentrender.page/5"
"""The version of the payload a page carries (its ``format``): 3 added the runs linked to the first (``runs``,
``parent``, ``started``) and what each reply was to its step; 4 left out the legend of every view
(``legend_kinds``, ``legend_marks``) for a block's flag 4 (the model did not see part of it): the page's legend is the
view's on screen, read off the blocks it draws; 5 said more of each run of the page (``runs``: where in its source it
comes from, how it ended and how it was scored; ``run_steps``), for the list of its runs a reader picks one from."""
MAX_RUNS = 100
"""The most runs of a file ``agentrender html`` puts on one page unless told (``--max-runs``): a page of a real Inspect
log weighs about 75 kB, and each run adds about 5 kB and 1.7 kB a step (``bench/bench_page.py --log``), so that 100
samples of 13 steps make a page of some 2 MB and 800 of 17 MB; the runs past it are said, with how to write them."""
TEXT_CHUNK = 512
"""How many texts one of the page's text elements holds (a power of two)."""
SHORT_TEXT = 120
"""The longest text stored again in a chunk that uses it rather than read from an earlier chunk."""
PART_STEPS = 256
"""How many stops (and steps, and rows of the steps table) one part of the page holds: what it reads at once."""
FIRST_PARTS = 2
"""How many parts the last view spans at most (it shows ``SHOWN_STEPS`` steps): they come before the script."""
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
    hidden text, notes, answers, wire]`` (flags: 1 failed, 2 the summary was cut at the cap, 4 the model did not see
    part of it; notes: what the body does not say, and answers: the tool use a result answers, as ``block_said`` words
    them; wire: the block's wire form as JSON when the body shows it otherwise), trailing zeros left out.

    A kind's number is its place in ``BLOCK_KINDS``, then, for a kind it does not name, the order the page met it
    in: ``legend_kinds``'s order, so that the page's legend of the view on screen (the kinds and flags of the blocks
    it draws and its skipped steps, as ``legend_of`` reads a display's) lists the kinds by their numbers."""

    def __init__(self, texts: _Texts, kinds: dict[str, int]) -> None:
        self.texts = texts
        self.kinds = kinds

    def kind(self, kind: str) -> int:
        number = self.kinds.get(kind)
        if number is None:  # a kind BLOCK_KINDS does not name yet still shows, under its own name
            number = self.kinds[kind] = len(self.kinds)
        return number

    def __call__(
        self, fact: BlockFact, step: StepFact | None = None, uses: Mapping[str, str] | None = None
    ) -> list[Any]:
        texts, block = self.texts, fact.block
        said = block_said(block, uses)  # as every display says it: an image in one line, a cache breakpoint as a note
        body = texts(said.body)
        name, uid = texts(said.name), texts(said.ref)
        shown_type = texts(block.type) if fact.kind in ("hook", "as_sent") else 0
        flags = (
            (1 if fact.failed else 0)
            | (2 if fact.kind == "summary" and fact.cut else 0)
            | (4 if fact.hidden_bytes > 0 else 0)
        )
        label = texts(fact.hidden_label) if fact.hidden_label and step is not None else 0
        hidden = _hidden(texts, fact, step) if label else 0
        notes = texts(" \u00b7 ".join(said.notes))
        answers, wire = texts(said.answers), texts(said.wire)
        return _trimmed([self.kind(fact.kind), body, name, uid, shown_type, flags, label, hidden, notes, answers, wire])


def _hidden(texts: _Texts, fact: BlockFact, step: StepFact | None) -> int:
    """What of a result the model did not see: as much as a page shows of it (as ``views.html`` does)."""
    assert step is not None
    if fact.kind not in OUTSIDE_KINDS and fact.hidden_bytes > 4 * DISPLAY_CHARS:
        shown = fact.hidden_text(4 * DISPLAY_CHARS)[:DISPLAY_CHARS]
        return texts(shown, f"… the rest not shown here ({fact.hidden_bytes:,} bytes in all)")
    return texts(fact.hidden_text())


class _Mode:
    """One way of viewing the run (as sent, or under the contract's options), made into parts of ``PART_STEPS``
    stops and steps: each stop's view as numbers, each step's blocks once, both from ``agentrender.views``."""

    def __init__(self, views: Views, texts: _Texts, kinds: dict[str, int]) -> None:
        self.views, self.texts, self.blocks = views, texts, _Blocks(texts, kinds)
        self.openings: list[list[list[Any]]] = []
        self.opening_bytes: list[int] = []  # each opening's, as its turn is headed (the notebook's view says them too)
        self._seen: dict[int, int] = {}
        sizes = views.sizes()
        self.series = sizes.columns()
        self.marked = set(sizes.marked_breaks)  # as the notebook's chart marks them
        self.legend = [list(said) for said in sizes.legend(rendered_across=bool(views.rendered_across))]
        self.totals = [[list(part) for part in fact] for fact in sizes.totals(views.describe_mode())]
        self.keyed = len(views.steps) <= KEYED_STEPS
        # every step in full and as its summary, as the last view holds them (the window decides neither)
        self.in_full = views.with_options(recent_results=NO_WINDOW).at(None).step_facts()
        self.as_summaries = views.with_options(recent_results=0).at(None).step_facts()
        self.positions = list(itertools.accumulate((fact.rendered for fact in self.in_full), initial=0))
        last = views.at(None)
        self.saw, self.left_out = last.result_blocks(), last.first_step  # the steps before it: not in that view

    def facts(self) -> dict[str, Any]:
        """What the page knows of the mode before it reads any part; ``marks``: the compactions its views render
        across (under the contract's options), by the step each came right before (as ``views.html`` marks them);
        ``legend``: its size chart's, each mark and its words, plain (``SizeSeries.legend``, as the notebook's);
        ``totals``: what its size tab says under the chart, each fact its parts, each its words and whether they are
        bold (``SizeSeries.totals``, as the notebook's); ``where``: the stops whose view is not headed ``deciding
        step K`` (nor, the last, ``after the last step``), each with its words, plain (``View.where``: the views
        beside a prefill no reply answered, which no model decided)."""
        views = self.views
        return {
            "describe": self.texts(views.describe_mode()),
            **window_json(views.options),
            "openings": self.openings,
            "opening_bytes": self.opening_bytes,
            "marks": [[mark.step, self.texts(compaction_mark(mark.trigger))] for mark in views.rendered_across],
            "legend": self.legend,
            "totals": self.totals,
            "where": self._where(),
        }

    def _where(self) -> list[list[Any]]:
        """``[stop, words]`` of each stop whose view ``View.where`` heads otherwise than by its step: the views before
        and after the step of a prefill the view after the last step ends on (``View.prefill_step``), none else."""
        views, stops = self.views, self.views.stops
        prefill = views.at(None).prefill_step
        if prefill is None:
            return []
        around = (stops.index(prefill), len(stops) - 1)
        return [[stop, views.at(stops[stop]).where] for stop in around]

    def part(self, number: int) -> dict[str, Any]:
        """Part ``number``: its stops' views (which rendered steps from ``start`` to ``rendered``, in full from
        ``full_from``, whether the view ends on an assistant turn (0: no; else which of ``ended_said`` it says, 2 for a
        prefill), its opening, its replay key, what changed since the stop before it (``Change.describe``, as every
        instrument says it), its sizes, the ones its size chart marks as a break: ``SizeSeries.marked_breaks``, and,
        when one of them ends with the prefill its request did (``View.prefilled``), ``prefilled``: for each, 0 or that
        prefill's blocks and bytes) and its steps (each rendered step's position among them and its blocks, or why it
        is skipped; what the model saw)."""
        views, stops = self.views, self.views.stops
        within = range(number * PART_STEPS, min(len(stops), (number + 1) * PART_STEPS))
        rendered, full_from, start, ended, opening, keys = [], [], [], [], [], []
        first_step, compacted, prefilled, change = [], [], [], []
        for j in within:
            view = views.at(stops[j])
            ends_with = view.prefilled  # the caller's text the request ended with: no turn of a step
            count, messages = view.rendered_count, view.message_count - (ends_with is not None)
            prefilled.append(0 if ends_with is None else [list(map(self.blocks, ends_with.blocks)), ends_with.bytes])
            rendered.append(count)
            full_from.append(count - view.full_count)
            # the opening, then two messages a step; a view that ends on the assistant's turn has one less
            start.append(count - messages // 2)
            ended.append(0 if messages % 2 else 2 if view.prefill else 1)  # which of ``ended_said`` it says
            opening.append(self._opening(view))
            first_step.append(view.first_step)
            # the compaction right before the view, else the one it restarts from (as views.html says them)
            right_before = view.compaction
            compacted.append(self.texts(right_before.describe() if right_before else view.restart_label))
            change.append(self.texts(view.change.describe()))  # in the words of every other instrument
            if self.keyed:
                key, recorded = view.replay_key, view.recorded_keys
                keys.append([key, (1 if key in recorded else -1) if recorded else 0])
        out: dict[str, Any] = {
            "at": [stops[j] for j in within],
            "rendered": rendered,
            "full_from": full_from,
            "start": start,
            "ended": ended,
            "opening": opening,
            "first_step": first_step,
            "compacted": compacted,
            "change": change,
            "sizes": {name: list(column[within.start : within.stop]) for name, column in self.series.items()},
            "marked": [j for j in within if j in self.marked],
            "steps": [self._step(j) for j in within if j < len(self.in_full)],
            "saw": [self._saw(j) for j in within if j < len(self.saw)],
        }
        if self.keyed:
            out["keys"] = keys
        if any(prefilled):
            out["prefilled"] = prefilled
        return out

    def _opening(self, view: View) -> int:
        message = view.opening.message
        number = self._seen.get(id(message))
        if number is None:
            number = self._seen[id(message)] = len(self.openings)
            self.openings.append([self.blocks(fact) for fact in view.opening.blocks])
            self.opening_bytes.append(view.opening.bytes)
        return number

    def _step(self, number: int) -> list[Any]:
        """``[position, assistant blocks, user blocks in full, as its summary (0: the same), bytes of the three]``
        for a rendered step; ``[position, why it is skipped]`` for a step no view holds. Its position is how many
        rendered steps come before it."""
        whole, summarised, blocks = self.in_full[number], self.as_summaries[number], self.blocks
        if not whole.rendered:
            return [self.positions[number], self.texts(whole.skipped_label)]
        assistant, result, summary = whole.assistant, whole.result, summarised.result
        assert assistant is not None
        # a reply nothing answered (as sent, the conversation ended on it: ``ended`` of the views) has no user turn
        uses = turn_uses(assistant)  # what its results answer (and a server tool's in the assistant turn)
        shown = [blocks(fact, whole, uses) for fact in result.blocks] if result is not None else []
        other = [blocks(fact, summarised, uses) for fact in summary.blocks] if summary is not None else []
        sizes = [turn.bytes if turn is not None else 0 for turn in (assistant, result, summary)]
        return [
            self.positions[number],
            [blocks(fact, None, uses) for fact in assistant.blocks],
            shown,
            0 if other == shown else other,
            sizes,
        ]

    def _saw(self, number: int) -> int:
        """What the model saw of step ``number``'s result in the last view: the number of its block's kind plus one
        (the page labels and colours it as a block of that kind), else the negative of the number of its words in the
        page's ``saw_said``: 0 for a step with no decision (no view holds it), -1 when the view leaves the step out,
        -2 when, as sent, the conversation ended on the step (nothing answered its turn: ``StepFact.ended``)."""
        if number < self.left_out:
            return -1
        if self.in_full[number].ended:
            return -2
        fact = self.saw[number]
        return self.blocks.kind(fact.kind) + 1 if fact is not None else 0


_HEADERS = {
    "index": "step",
    "shown_as": "the model saw",
    "content_bytes": "content bytes",
    "summary_bytes": "summary bytes",
}
"""The steps table's headers, where they are not the column's name: its columns are the ones every table of steps
leads with (``agentrender.frame.STEP_LEAD_COLUMNS``), each a series of the table's parts but ``shown_as``, which is
the stops' ``saw``."""

_COLUMNS = ("kind", "tool", "status")
"""The steps table's columns a reader filters by: each value a row holds is a number into the page's ``filters``."""


class _Rows:
    """The steps table, in parts of ``PART_STEPS`` rows: each column a list a part long (texts by number)."""

    def __init__(self, run: Run, texts: _Texts, prefill: int | None, views: Views) -> None:
        self.steps, self.texts = run.steps, texts
        self.prefill = prefill  # the index of the step whose turn is a prefill no reply answered: its kind is said so
        self.called = views.parallel_tools()
        self.reasons = views.reasons_said()  # the caller's prefill marked, the note on tool uses its agent ran left off
        self.values = {column: sorted({self._value(step, column) for step in run.steps}) for column in _COLUMNS}
        # a tool called beside a decision's is a value of the tool filter, as steps --tool keeps its step
        self.values["tool"] = sorted(
            {*self.values["tool"], *(name for names in self.called.values() for name in names)}
        )
        self.codes = {column: {value: code for code, value in enumerate(got)} for column, got in self.values.items()}

    def filters(self) -> dict[str, list[int]]:
        """Each filtered column's values, sorted, as texts: the options of its filter."""
        return {column: [self.texts(value) for value in found] for column, found in self.values.items()}

    def _value(self, step: Step, column: str) -> str:
        if column == "kind" and step.decision is not None:  # a prefill by its own label, not as a model's decision
            return listed_kind(step.decision.kind, prefill=step.index == self.prefill) or ""
        thing = step.observation if column == "status" else step.decision
        return str(getattr(thing, column) or "") if thing is not None else ""

    def part(self, number: int) -> dict[str, list[Any]]:
        steps = self.steps[number * PART_STEPS : (number + 1) * PART_STEPS]
        columns: dict[str, list[Any]] = {"index": [step.index for step in steps]}
        for column in _COLUMNS:
            codes = self.codes[column]
            columns[column] = [codes[self._value(step, column)] for step in steps]
        # a reply of parallel tool uses: the others' codes (the filter keeps its step for any), and the tools in words
        called = [self.called.get(step.index) for step in steps]
        tools = self.codes["tool"]
        columns["other_tools"] = [[tools[name] for name in names[1:]] if names else 0 for names in called]
        columns["tools_said"] = [self.texts(tools_said(names[0], names[1:])) if names else 0 for names in called]
        observations = [step.observation for step in steps]
        columns["content_bytes"] = [utf8_bytes(seen.content) if seen else None for seen in observations]
        columns["summary_bytes"] = [utf8_bytes(seen.summary) if seen else None for seen in observations]
        columns["reason"] = [self._reason(step) for step in steps]
        return columns

    def _reason(self, step: Step) -> int:
        """The step's reason as every table of steps says it (``Views.reasons_said``); ``NO_VALUE`` for no
        decision."""
        if step.decision is None:
            return self.texts(NO_VALUE)
        return self.texts(self.reasons.get(step.index, step.decision.reason))


def _decision_rows(decision: Decision, texts: _Texts) -> list[list[int]]:
    rows = []
    for name in Decision.__struct_fields__:
        value = getattr(decision, name)
        if name == "kind" or value not in (None, "", False):
            shown = display(value) if name == "args" else str(value)
            rows.append([texts(name), texts(shown)])
    return rows


def _reply_block(block: ContentBlock, texts: _Texts) -> list[int]:
    if block.type == "tool_use":
        return [texts(block.type), texts(display(block.input)), texts(block.name)]
    if encrypted := encrypted_said(block):  # a reasoning block with no text to read: what it is and what it sent
        return [texts(block.type), texts(encrypted)]
    if block.opaque and block.type not in ("text", "thinking"):
        return [texts(block.type), texts(display(dict(block.raw or {})))]
    return [texts(block.type), texts(block.text)]


def _replies(run: Run, texts: _Texts) -> list[list[Any]]:
    """Each captured reply, the decision ``render.decide`` makes of it, why, and the recorded decision it became:
    ``[step, stop reason, rule, blocks, why, decision, fields that differ, recorded, what it was to its step, what
    is said of it]``, held against the recorded decision as ``agentrender decide`` holds it (``compare_recorded``: a
    prefill the reply went on from included) and said as it says it (``Compared.said``, then ``prefill_said`` with a
    prefill); the fields that differ, the recorded decision and what is said ``0`` for an earlier reply of its step
    (a retry, or a call beside the conversation), which is not compared. The page's decide tab shows the reply that
    decided the step in view: its step's reply whose fields that differ are not ``0`` (``_reply_said`` says which step
    it decided)."""
    recorded = {step.index: step.decision for step in run.steps}
    last = run.last_calls()
    out = []
    for call in run.model_calls:
        explanation = explain_decide(call.response, answered=answered_tool_uses(run, call.step))
        reply: list[Any] = [
            call.step,
            texts(call.response.stop_reason or "(none)"),
            texts(explanation.rule),
            [_reply_block(block, texts) for block in call.response.content],
            [texts(line) for line in explanation.why],
            _decision_rows(explanation.decision, texts),
            0,
            0,
            0,
            0,
        ]
        decided = last[call.step] is call  # only a step's last reply became its recorded decision
        if decided:
            decision = recorded.get(call.step)
            compared = compare_recorded(call, decision, explanation.decision)
            reply[6] = [texts(name) for name in compared.differs]
            reply[7] = _decision_rows(decision, texts) if decision is not None else 1
            reply[9] = [texts(said) for said in (compared.said, compared.prefill_said) if said]
        reply[8] = texts(_reply_said(call.step, decided=decided, recorded=call.step in recorded))
        out.append(reply)
    return out


def _reply_said(step: int, *, decided: bool, recorded: bool) -> str:
    """What a captured reply was to its step, as the decide tab heads it: the reply that decided it, or an earlier
    one (a retry, or a call beside the conversation), or the last reply of a step the run recorded no decision for."""
    if not decided:
        return f"an earlier reply for step {step}, not the one that decided it"
    if not recorded:
        return f"the last reply for step {step}, which the run recorded no decision for"
    return f"the reply that decided step {step}"


def _header(run: Run, texts: _Texts, prefill: int | None) -> list[list[int]]:
    """The run's facts (``run_facts_said``), its file by its name alone: a page is shared with others."""
    return [[texts(name), texts(said)] for name, said in run_facts_said(run, prefill=prefill, shared=True)]


def _link_facts(run: Run, texts: _Texts, numbers: Mapping[str, int]) -> dict[str, Any]:
    """The run's links (``Run.links``) as the page shows them, in the words every display says them in
    (``parent_said``, ``started_said``): ``parent``: ``[the number of its run among the page's (None: not on the
    page), its step, the words]`` or ``None``; ``started``: each run a step started, ``[step, its run's number or
    None, the words]``, by step."""
    links = run.links
    facts: dict[str, Any] = {"parent": None, "started": []}
    if (parent := links.parent) is not None:
        facts["parent"] = [
            numbers.get(parent.run_id),
            parent.step,
            texts(_on_page(parent_said(parent), parent, numbers)),
        ]
    for link in links.started:
        facts["started"].append(
            [link.step, numbers.get(link.run_id), texts(_on_page(started_said(link), link, numbers))]
        )
    return facts


def _on_page(said: str, link: RunLink, numbers: Mapping[str, int]) -> str:
    """The words of a link, saying so when its run is not on the page (written without the runs beside it)."""
    return said if link.run_id in numbers else f"{said} (not on this page)"


def _what_if(run: Run, options: Options | None) -> tuple[Options, Options | None]:
    """The options of the page's view, and of its what-if (an imported run's view under the contract)."""
    if not run.records_sent:
        return (run.options() if options is None else options), None
    sent = run.options()
    if options is None or run.is_as_sent(options):
        options = run.options(recent_results=RECENT_RESULTS, result_bytes=RESULT_BYTES)
    return sent, options


def _built(
    run: Run, options: Options | None, texts: _Texts, ids: str, numbers: Mapping[str, int]
) -> tuple[dict[str, Any], list[tuple[str, int]]]:
    """The facts of one run of the page, its texts in ``texts``, and the order its parts were made in: each part's
    element id (``ids`` then its name) and how many texts there were once it was made. The last view's parts are made
    first, so that the texts it shows are the first texts. ``numbers``: each run of the page by its id, which its
    links (``_link_facts``) name."""
    kinds: dict[str, int] = {kind: number for number, kind in enumerate(BLOCK_KINDS)}
    main, what_if = _what_if(run, options)
    views = Views(run, main)
    modes = [_Mode(views, texts, kinds)]
    if what_if is not None:
        modes.append(_Mode(views.under(what_if), texts, kinds))
    prefill = views.at(None).prefill_step  # the step of a prefill no reply answered: the caller's, not decided
    rows = _Rows(run, texts, prefill, views)
    stops = views.stops
    count = -(-len(stops) // PART_STEPS)
    facts: dict[str, Any] = {
        "format": PAGE_FORMAT,
        "title": texts(f"agentrender · {run.run_id or os.path.basename(run.path or '') or 'run'}"),
        "header": _header(run, texts, prefill),
        # how the run ended, beside "the run" (its facts, folded): open when it failed, so that no one misses it
        "ended": [texts(end_said(run.end, run.header)[0]), int((run.end or {}).get("status") == "failed")],
        # grouped and in the order of their lines, as every display says them; the file by its name alone, as above
        "warnings": [texts(group.said(shared=True)) for group in warning_groups(run.warnings)],
        "kinds": [[texts(BLOCK_LABELS.get(kind, kind)), texts(BLOCK_KINDS.get(kind, ""))] for kind in kinds],
        "terms": [[texts(term), texts(meaning)] for term, meaning in VIEW_TERMS.items()],
        "marks": {mark: list(said) for mark, said in LEGEND_MARKS.items()},  # this package's own words, plain
        "mark_title": MARK_TITLE,
        "wire_said": WIRE_SAID,  # the summary of a block's wire form as JSON, beside a body that shows it otherwise
        "shown_steps": SHOWN_STEPS,
        # what the model saw of a step no view holds (no decision), one the last view leaves out (before the compaction
        # it restarts from), and the one the conversation ended on (as sent), as agentrender steps and the explorer say
        "saw_said": [texts(SKIPPED_SAW), texts(LEFT_OUT_TEXT), texts(ENDED_SAW)],
        "no_value": texts(NO_VALUE),  # a cell of a value the step has none of, as agentrender steps says it
        # what a view says after the turn the conversation ended on: a reply, or a prefill no reply answered
        "ended_said": [texts(ENDED_TEXT), texts(PREFILL_ENDED_TEXT)],
        "prefill_said": texts(PREFILL_SAID),  # the heading of the turn of a prefill, the caller's text
        "prefilled_said": texts(PREFILLED_TEXT),  # what a view says after the prefill its request ended with
        "columns": [[name, _HEADERS.get(name, name)] for name in STEP_LEAD_COLUMNS],
        "filters": rows.filters(),
        "steps": len(run.steps),
        # a forked agent's first steps are the session's (Run.inherited_steps): their rows are dimmed, and said so
        "inherited": [run.inherited_steps, texts(inherited_said(run.inherited_steps))] if run.inherited_steps else None,
        "part_steps": PART_STEPS,
        "firsts": list(stops[::PART_STEPS]),
        "modes": [mode.facts() for mode in modes],
        "ids": ids,
        **_link_facts(run, texts, numbers),
    }
    parts: list[list[Any]] = [[None] * count for _ in modes]
    table: list[Any] = [None] * count
    order: list[tuple[str, int]] = []
    for number in reversed(range(count)):
        parts[0][number] = modes[0].part(number)
        order.append((f"{ids}m0-{number}", len(texts.table)))
        table[number] = rows.part(number)
        order.append((f"{ids}r{number}", len(texts.table)))
    for at, mode in enumerate(modes[1:], 1):
        for number in reversed(range(count)):
            parts[at][number] = mode.part(number)
            order.append((f"{ids}m{at}-{number}", len(texts.table)))
    replies = _replies(run, texts)
    order.append((f"{ids}replies", len(texts.table)))
    # a kind of block BLOCK_KINDS does not name yet, met in a part, shows under its own name
    facts["kinds"] += [[texts(kind), 0] for kind in list(kinds)[len(facts["kinds"]) :]]
    facts["kind_names"] = list(kinds)
    for mode, made in zip(facts["modes"], parts, strict=True):
        mode["parts"] = made
    return {**facts, "rows": table, "replies": replies}, order


def linked(run: Run, beside: Sequence[Run]) -> list[Run]:
    """The runs of ``beside`` (the other runs of ``run``'s file) that a page of ``run`` holds too: those linked to it,
    as its importer linked them (a Claude Code session's sub-agents, the session of a sub-agent, and theirs, however
    far), in the order of ``beside``; none for runs no link joins (an eval log's samples)."""
    by_id = {other.run_id: other for other in beside if other.run_id and other is not run}
    reached, waiting = {run.run_id}, [run]
    while waiting:
        for linked in waiting.pop().links.run_ids:
            if linked in by_id and linked not in reached:
                reached.add(linked)
                waiting.append(by_id[linked])
    return [other for other in beside if other is not run and other.run_id in reached - {run.run_id}]


def _options_of(run: Run, options: Options | None) -> Options | None:
    """The options of a run beside the page's first: the first's window and cap, over its own opening and hooks."""
    if options is None:
        return None
    return run.options(recent_results=options.recent_results, result_bytes=options.result_bytes)


def _on_the_page(run: Run, beside: Sequence[Run], every: bool) -> list[Run]:
    """The runs of the page: ``run``, then those of ``beside`` linked to it (``linked``), or with ``every`` each run
    of ``beside`` but ``run``, in ``beside``'s order (a page of every sample of an eval log, numbered as the file's
    runs are when ``run`` is its first)."""
    return [run, *([other for other in beside if other is not run] if every else linked(run, beside))]


def _run_said(run: Run, texts: _Texts) -> list[int]:
    """What the page's list of its runs says of one, as ``agentrender runs`` says it (its id, what it is to the runs
    it is linked to, where in its source it comes from, how it ended), and how it was scored (``scores_said``)."""
    end, _ = end_said(run.end, run.header)
    said = (run.run_id or "run", link_role(run.links), source_said(run), end, scores_said(run))
    return [texts(words) for words in said]


def _all_built(
    run: Run, options: Options | None, beside: Sequence[Run], every: bool = False
) -> tuple[dict[str, Any], list[dict[str, Any]], list[tuple[str, int]], _Texts]:
    """The facts of the page's first run and of each other run (``_on_the_page``), the order their parts were made
    in, and the texts they share: the first run's are made first, its element ids as they always were (``ar-``),
    each other's after it with ids of their own (``ar-sN-``)."""
    runs = _on_the_page(run, beside, every)
    texts = _Texts()
    # the runs' words first: the page reads them before it shows the first view, with that view's texts
    said = [_run_said(each, texts) for each in runs]
    numbers = {each.run_id: number for number, each in enumerate(runs) if each.run_id}
    first, order = _built(run, options, texts, "ar-", numbers)
    others = []
    for number, other in enumerate(runs[1:], 1):
        facts, made = _built(other, _options_of(other, options), texts, f"ar-s{number}-", numbers)
        others.append(facts)
        order += made
    first["runs"], first["run_steps"] = said, [len(each.steps) for each in runs]
    return first, others, order, texts


def payload(
    run: Run, options: Options | None = None, *, beside: Sequence[Run] = (), every: bool = False
) -> dict[str, Any]:
    """The facts the page shows, as plain JSON values (see the module's docstring for the layout).

    ``options`` default to ``run.options()``. For an imported run the page shows its view as sent
    and, as a toggle, the same history under ``options`` (the contract's window and cap when
    ``options`` are not given, or replay what was sent). ``beside``: the other runs of the run's
    file (a Claude Code session's sub-agents, or the session of a sub-agent's run); those linked to
    it are on the page too, or with ``every`` each of them, in their order (an eval log's samples):
    ``runs``: each run's id, what it is to the runs it is linked to, where in its source it comes
    from, how it ended and how it was scored (``scores_said``), and ``run_steps`` its steps;
    ``beside``: the facts of each but the first, their texts in the one ``texts``. Each link names
    its run by its number among them (``parent``, ``started``).
    """
    first, others, _, texts = _all_built(run, options, beside, every)
    return {**first, "beside": others, "texts": texts.table}


def _script_json(value: Any) -> str:
    """``value`` as JSON that cannot end the ``<script>`` element it sits in: every ``<`` is ``\\u003c``."""
    return msgspec.json.encode(value).decode("utf-8").replace("<", "\\u003c")


def _packed(value: Any) -> str:
    """``value`` as JSON, gzip-compressed, in base64: what the page's ``DecompressionStream`` reads back."""
    return base64.b64encode(gzip.compress(msgspec.json.encode(value), compresslevel=3, mtime=0)).decode("ascii")


def page(
    run: Run,
    options: Options | None = None,
    *,
    at: int | None = None,
    beside: Sequence[Run] = (),
    every: bool = False,
) -> str:
    """The page of ``run``: one self-contained HTML document (see ``payload`` for ``options``), opened at the view
    at step ``at`` (checked as ``Views.at`` checks it) when its address names no step (``#step=K``), else at the
    view after the last step.

    The page's facts come first, then each part in its own element, in the order they were made (the last
    view's first), each followed by the chunks of ``TEXT_CHUNK`` texts it refers to, compressed but for the
    last view's. The page's script comes right after the last view's parts and texts: a browser runs it, and
    shows that view, while it still reads the rest of the file; a part or a chunk is read when first shown.

    ``beside`` (see ``payload``): the runs linked to ``run`` are on the page too (with ``every``, each run of
    ``beside``), each after it, its facts in an element of its own (``ar-sN-payload``) before its parts; the page
    opens on ``run``, and a step's link, the page's run picker or its list of runs shows another (``#run=N&step=K``
    in the address opens run N of the page at step K).
    """
    facts, others, order, shared = _all_built(run, options, beside, every)
    facts["at"] = run.checked_at(at)
    texts = shared.table
    values: dict[str, Any] = {}
    for number, each in enumerate([facts, *others]):
        ids, replies, rows = each["ids"], each.pop("replies"), each.pop("rows")
        values.update((f"{ids}r{part}", table) for part, table in enumerate(rows))
        for mode_number, mode in enumerate(each["modes"]):
            values.update((f"{ids}m{mode_number}-{part}", made) for part, made in enumerate(mode.pop("parts")))
        values[f"{ids}replies"] = replies
        each["replies"] = len(replies)
        if number:  # a run beside the first: its facts come before its parts, which the page reads once it shows it
            order.insert(next(i for i, (name, _) in enumerate(order) if name.startswith(ids)), (f"{ids}payload", 0))
            values[f"{ids}payload"] = each
    facts["text_chunk"] = TEXT_CHUNK
    body: list[str] = []
    chunks = 0
    first = 2 * min(FIRST_PARTS, len(facts["firsts"]))  # the first run's last view's parts, and its rows of the table
    for position, (name, made) in enumerate(order):
        body.append(f'<script type="application/json" id="{name}">{_script_json(values[name])}</script>\n')
        for chunk in range(chunks, -(-made // TEXT_CHUNK)):
            some = texts[chunk * TEXT_CHUNK : (chunk + 1) * TEXT_CHUNK]
            if position < first:  # the last view's texts: read at once, before anything waits for the file
                body.append(f'<script type="application/json" id="ar-t{chunk}">{_script_json(some)}</script>\n')
            else:
                body.append(f'<script type="application/gzip+base64" id="ar-t{chunk}">{_packed(some)}</script>\n')
        chunks = max(chunks, -(-made // TEXT_CHUNK))
        if position == first - 1:
            body.append(f"<script>{_SCRIPT}</script>\n")
    return _TEMPLATE.substitute(
        policy=CONTENT_SECURITY_POLICY,
        title=_plain(f"agentrender · {run.run_id or 'run'}"),
        style=_STYLE,
        root_class=f"agentrender {NO_MATH}",
        payload=_script_json(facts),
        body="".join(body),
    )


def _plain(text: str) -> str:
    """A title for the ``<title>`` element: the page's script sets the real one; this one is only safe."""
    return "".join(char for char in text if char.isalnum() or char in " ·-_.")[:200]


def save(
    run: Run,
    path: str | os.PathLike[str],
    options: Options | None = None,
    *,
    at: int | None = None,
    beside: Sequence[Run] = (),
    every: bool = False,
) -> None:
    """Write the page of ``run`` to ``path`` (UTF-8), to open from ``file://`` in any browser; ``at``: the step it
    opens at, ``beside``: the other runs of its file, those linked to it on the page too, or with ``every`` each of
    them (``page``): ``html.save(runs[0], path, beside=runs, every=True)`` writes every sample of an eval log."""
    with open(path, "w", encoding="utf-8", newline="\n") as file:
        file.write(page(run, options, at=at, beside=beside, every=every))
