"""``agentrender show``: the model's view at one step, as chat turns marked by what each block is.

Every fact printed here is read off ``agentrender.views``: the kind of each block, the
window, the sizes, what the model did not see, the replay key and what changed since the
previous step. Nothing is re-derived. The run's facts come first; the view's come last,
with the words they use explained, so a terminal scrolled to the end still shows them.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from typing import Any

from agentrender._display.said import (
    MEDIA_TYPES,
    NO_VALUE,
    WIRE_SAID,
    block_said,
    end_said,
    folded_blocks,
    media_held,
    retries,
    retries_said,
    run_facts_said,
    started_parts,
    turn_uses,
    warning_groups,
)
from agentrender._display.values import SHOWN_STEPS
from agentrender._json import display
from agentrender._types import Message, Step
from agentrender._words import a_noun, plural
from agentrender.cli._term import (
    FAILED,
    HIDDEN,
    KIND_STYLES,
    MUTED,
    SKIPPED,
    TAGS,
    AtWidth,
    Console,
    ConsoleOptions,
    Copyable,
    Group,
    Gutter,
    Labelled,
    Padding,
    Panel,
    Rule,
    Table,
    Text,
    box,
    cell_len,
    clean,
    json_text,
)
from agentrender.runfile import ModelCall, Run, RunLink
from agentrender.runfile.write import warning_record
from agentrender.views import (
    LEGEND_MARKS,
    OUTSIDE_KINDS,
    PREFILL_SAID,
    PREFILLED_TEXT,
    VIEW_TERMS,
    BlockFact,
    CompactionFact,
    MessageFact,
    StepFact,
    View,
    legend_kinds,
    legend_of,
    utf8_bytes,
    window_json,
)

__all__ = [
    "FOLD_CHARS",
    "FOLD_LINES",
    "SHOWN_STEPS",
    "run_facts",
    "run_panel",
    "show_json",
    "show_renderables",
    "terms_legend",
    "view_summary",
]

FOLD_LINES = 10
"""How many lines of one block ``show`` prints before folding the rest, stating its size."""
FOLD_CHARS = 1500
"""How many characters of one block ``show`` prints before folding the rest."""


class Folder:
    """How much of each block to print: everything, or the first lines with the rest counted."""

    def __init__(self, *, full: bool, lines: int = FOLD_LINES, chars: int = FOLD_CHARS) -> None:
        self.full = full
        self.lines = lines
        self.chars = chars

    def body(self, text: str, *, seen: bool = True, json_colours: bool = False) -> list[Text]:
        """``text`` as printed: cleaned, folded after ``lines`` lines or ``chars`` characters, the rest counted.

        ``seen`` says whether the model saw the folded part (it did for anything in the view).
        """
        shown = text
        if not self.full:
            cut = len(text)
            newlines = 0
            for position, character in enumerate(text[: self.chars + 1]):
                if character == "\n":
                    newlines += 1
                    if newlines == self.lines:
                        cut = position
                        break
            cut = min(cut, self.chars)
            shown = text[:cut]
        out = [json_text(shown) if json_colours else Text(clean(shown))]
        rest = text[len(shown) :]
        if rest:
            more_lines = rest.count("\n") + (0 if rest.endswith("\n") else 1) - (1 if rest.startswith("\n") else 0)
            what = f"{max(more_lines, 1):,} more line(s), {utf8_bytes(rest):,} bytes"
            seen_by = "the model saw them" if seen else "the model did not see them either"
            out.append(Text(f"\u22ef {what} not printed here ({seen_by}); --full prints everything", style=MUTED))
        return out


WARNING_LABEL = "warning: "
"""What begins each warning's line; the lines it wraps over hang under its words, indented as wide."""


def warning_lines(warnings: Any) -> Iterator[Gutter]:
    """A run's warnings, one each, identical ones once with their count and lines (``warning_groups``)."""
    return said_warning_lines(str(group) for group in warning_groups(warnings))


def said_warning_lines(texts: Iterable[str]) -> Iterator[Gutter]:
    """Warnings already said as text (a ``warning_groups`` group each: a runs table's ``warning_texts``), one each,
    as ``warning_lines`` says them: a long file path starts on the label's line, the rest hangs under it."""
    for text in texts:
        yield Gutter(Text(clean(text), style="yellow"), "yellow", " " * len(WARNING_LABEL), first=WARNING_LABEL)


def stderr_lines(warnings: Any, *, every: bool = False) -> Iterator[str]:
    """The warnings of what the file held and the run did not load (``lost``), or ``every`` warning, one plain line
    each, as ``warning_lines`` says them: what a command whose output shows no warnings says on stderr (every one
    under an output a program reads, a list or CSV, which has no place for them)."""
    for group in warning_groups(warnings):
        if every or group.lost:
            yield "warning: " + clean(str(group), one_line=True)


def legend(kinds: list[str], *, failed: bool, skipped: bool, hidden: bool, undecided: bool = False) -> Text:
    """One line naming each mark the view uses, in the order ``BLOCK_KINDS`` lists them: ``┄`` by what it is drawn
    for, a step skipped (``skipped``), one with no decision yet (``undecided``: a follow's last step), or both."""
    text = Text("legend ", style=MUTED)
    for kind in legend_kinds(kinds):
        text.append("\u258c", style=KIND_STYLES.get(kind, ""))
        text.append(TAGS.get(kind, kind) + "  ")
    if failed:
        text.append("\u2717 failed", style=FAILED)
        text.append("  ")
    drawn = [LEGEND_MARKS["skipped"][0]] * skipped + [NO_DECISION_YET] * undecided
    if drawn:
        text.append("\u2504 " + " / ".join(drawn), style=SKIPPED)
        text.append("  ")
    if hidden:
        text.append("\u2702 hidden from the model", style=HIDDEN)
    text.rstrip()
    return text


INLINE_CHARS = 160
"""A one-line body up to this many characters is printed on its block's tag line."""


def _inline(text: str) -> bool:
    return "\n" not in text and len(text) <= INLINE_CHARS


def _tag(fact: BlockFact) -> Text:
    kind = fact.kind
    tag = Text()
    tag.append(TAGS.get(kind, kind), style=f"bold {KIND_STYLES.get(kind, '')}".strip())
    if fact.failed:
        tag.append(" \u2717 failed", style=FAILED)
    return tag


def _facts(fact: BlockFact, result_bytes: int) -> list[str]:
    kind = fact.kind
    size = f"{fact.shown_bytes:,} bytes"
    if media := media_held(fact.block):  # its bytes count its text alone
        size = f"{size} of text, {media}"
    if kind == "result":
        return [size]
    if kind == "cut":
        return [f"{fact.shown_bytes:,} bytes shown, cut at the {result_bytes:,}-byte cap"]
    if kind in OUTSIDE_KINDS:
        said = [size]
        if fact.cut:
            said.append(f"the summary is cut at the {result_bytes:,}-byte cap")
        return said
    if kind in ("hook", "as_sent"):
        return [a_noun(f"{clean(fact.block.type, one_line=True)} block"), size]
    return []


def _block(fact: BlockFact, folder: Folder, result_bytes: int, uses: dict[str, str] | None = None) -> list[Any]:
    """A block as printed: its label (its tag, a tool use's name, its facts) then its body, on the label's line when
    it is one short line that fits there (``Labelled``), said as every display says it (``block_said``): what the
    body does not say (a cache breakpoint, a caller) is among its facts, and a result names the tool use it answers
    (among ``uses``) and its id."""
    block = fact.block
    line = _tag(fact)
    facts = _facts(fact, result_bytes)
    said = block_said(block, uses)
    facts.extend(clean(note, one_line=True) for note in said.notes)
    if block.type in MEDIA_TYPES:  # its size is said in its one line, the data not printed
        _append_facts(line, facts)
        return [Labelled(line, Text(clean(said.body, one_line=True), style="bold"))]
    body = said.body
    if said.name:
        line.append("  ")
        line.append(clean(said.name, one_line=True), style="bold")
        if said.ref:  # a use of no id (a Codex web search) says none
            facts.insert(len(facts) - len(said.notes), f"id {clean(said.ref, one_line=True)}")
    elif said.ref:
        at = len(facts) - len(said.notes)
        facts[at:at] = [*([clean(said.answers, one_line=True)] if said.answers else []), f"id {clean(said.ref)}"]
    if said.json and not said.wire:
        compact = display(said.value, indent=None)
        body = compact if len(compact) <= 100 else body
    _append_facts(line, facts)
    if not body:
        return [line]
    if _inline(body):
        return [Labelled(line, json_text(body) if said.json else Text(clean(body)))]
    return [line, *folder.body(body, json_colours=said.json), *_wire(said.wire, folder)]


def _append_facts(line: Text, facts: list[str]) -> None:
    if facts:
        line.append("  " + " \u00b7 ".join(facts), style=MUTED)


def _wire(wire: str, folder: Folder) -> list[Text]:
    """A block's wire form as JSON, when its body shows it otherwise (``BlockSaid.wire``): with ``--full``, after the
    body; else a line saying ``--full`` prints it."""
    if not wire:
        return []
    if not folder.full:
        return [Text(f"\u22ef {WIRE_SAID}: --full prints it", style=MUTED)]
    return [Text(f"{WIRE_SAID}:", style=MUTED), json_text(wire)]


def _hidden(fact: BlockFact, step: StepFact | None, folder: Folder) -> list[Any]:
    """What of a result the model did not see: its size, and with ``--full`` the text itself."""
    if not fact.hidden_label or step is None:
        return []
    out: list[Any] = [Text(f"\u2702 {fact.hidden_label}", style=HIDDEN)]
    if folder.full:
        out.append(Gutter(Group(*folder.body(fact.hidden_text(), seen=False)), HIDDEN, bar="\u2506 "))
    return out


def _message(fact: MessageFact, step: StepFact | None, folder: Folder, result_bytes: int) -> Iterator[Any]:
    role = fact.message.role
    label = Text(clean(role, one_line=True), style="bold cyan" if role == "assistant" else "bold")
    where = "" if fact.step is None else f" \u00b7 step {fact.step}"
    if fact.turn == "prefill":  # the caller's text, not a reply of the model
        where += f" \u00b7 {PREFILL_SAID}"
    if fact.full is not None:
        where += " \u00b7 in the window" if fact.full else " \u00b7 outside the window"
    label.append(f"{where} \u00b7 {fact.bytes:,} bytes", style=MUTED)
    yield label
    blocks = fact.blocks
    fold = range(0) if folder.full else folded_blocks(len(blocks))
    uses = turn_uses(fact, step)
    for position, block in enumerate(blocks):
        if position in fold:
            if position == fold.start:
                yield Padding(_folded(blocks[fold.start : fold.stop]), (0, 0, 0, 2))
            continue
        parts = [*_block(block, folder, result_bytes, uses), *_hidden(block, step, folder)]
        yield Padding(Gutter(Group(*parts), KIND_STYLES.get(block.kind, "")), (0, 0, 0, 2), expand=False)


def _folded(blocks: Sequence[BlockFact]) -> Text:
    """The line standing for the blocks of a long turn not printed: how many, of which kinds, their bytes."""
    kinds: dict[str, int] = {}
    for block in blocks:
        kinds[block.kind] = kinds.get(block.kind, 0) + 1
    what = ", ".join(f"{count:,} {TAGS.get(kind, kind)}" for kind, count in kinds.items())
    size = sum(block.shown_bytes for block in blocks)
    return Text(
        f"\u22ef {plural(len(blocks), 'more block')} ({what}; {size:,} bytes) not printed here "
        "(the model saw them); --full prints everything",
        style=MUTED,
    )


def _step_title(fact: StepFact, retried: str) -> Text:
    title = Text(f"step {fact.step.index}", style="bold")
    if said := fact.said:  # the tool it called, its decision's kind, or the caller's prefill
        title.append(" \u00b7 ")
        title.append(clean(said, one_line=True))
    if retried:  # the step's model call took more than one HTTP try: where its latency went
        title.append(f" \u00b7 {retried}")
    return title


def _retried_calls(run: Run | None) -> dict[int, list[ModelCall]]:
    """The model calls of each step one of whose calls the SDK tried again (``ModelCall.retried``), or whose recording
    does not know how many tries it took (``ModelCall.tries_known``), by the step's index."""
    calls: dict[int, list[ModelCall]] = {}
    for call in run.model_calls if run is not None else ():
        calls.setdefault(call.step, []).append(call)
    return {step: each for step, each in calls.items() if any(call.retried or not call.tries_known for call in each)}


def _retries(run: Run | None) -> dict[int, str]:
    """What each step whose model calls the SDK tried again says of it (``retries_said``), by the step's index."""
    return {step: retries_said(calls) for step, calls in _retried_calls(run).items()}


NO_DECISION_YET = "no decision (yet)"
"""What a line of ``--follow`` says of a step with no decision that may still get one (``_follow.undecided``)."""
NO_DECISION_SKIPPED = "no decision recorded (skipped)"
"""What the CLI says of a step with no decision that will get none: the render skips it."""


def _step(
    fact: StepFact,
    folder: Folder,
    result_bytes: int,
    retried: str = "",
    *,
    yet: bool = False,
    started: Sequence[_Link] = (),
    compacted: Sequence[_Link] = (),
) -> Iterator[Any]:
    """The step as printed; ``yet``: it has no decision and may still get one (``show_renderables``); ``started``: the
    lines saying the sub-agents its tool uses started (``_started_lines``), under its reply; ``compacted``: those
    saying which agent wrote the compaction before it, above its reply."""
    if not fact.rendered:
        said = f"step {fact.step.index}: {NO_DECISION_YET}" if yet else fact.skipped_label
        yield Text(f"\u2504 {said}", style=SKIPPED)
        return
    assert fact.assistant is not None
    yield Text("")
    yield Rule(_step_title(fact, retried), align="left", style=MUTED)
    yield from _link_lines(compacted)
    yield from _message(fact.assistant, fact, folder, result_bytes)
    yield from _link_lines(started)
    if fact.ended:
        yield Text(f"\u2504 {fact.ended_text}", style=SKIPPED)
        return
    assert fact.result is not None
    yield from _message(fact.result, fact, folder, result_bytes)


_Link = tuple[str, str, str, str]
"""A line of ``_started_lines``: its words before the run's id, the id, the words after it, and the command that shows
that run (``""`` for none)."""


def _link_lines(lines: Sequence[_Link]) -> Iterator[Any]:
    """The lines of ``_started_lines`` of one step: what it started, the run's id whole on a line to copy (``Copyable``:
    never folded inside, past the width where it is longer), then the command that shows that run (none for a run
    not in the file), under it."""
    for before, run_id, after, command in lines:
        yield Copyable(
            Text.assemble("  \u21b3 ", before, style="bold"),
            run_id,
            Text(after, style="bold"),
            indent="    ",
            style="bold",
        )
        if command:  # under the words, at their indent: the command whole, to copy
            yield Copyable(Text.assemble("    ", ("show it: ", MUTED)), command, indent="    ", style="bold")


def _started_lines(
    run: Run | None, name: str, held: Collection[str] | None = None
) -> tuple[dict[int, list[_Link]], dict[int, list[_Link]]]:
    """What ``show`` says at each step that started another run of its file (``Run.links``, in the words of
    ``started_parts``), with the command that shows that run (``agentrender show NAME --run ID``; ``""`` for a run not
    among the file's, ``held``): the sub-agents its tool uses started, and the agent that wrote the compaction before
    it, each by the step's index."""
    started: dict[int, list[_Link]] = {}
    compacted: dict[int, list[_Link]] = {}
    for link in run.links.started if run is not None else ():
        command = _show_command(name, link, held=held)
        before, run_id, after = (clean(part, one_line=True) for part in started_parts(link))
        line = (before, run_id, after + ("" if command else NOT_IN_FILE), command)
        (compacted if link.is_compaction else started).setdefault(link.step, []).append(line)
    return started, compacted


def _show_command(name: str, link: RunLink, at: int | None = None, *, held: Collection[str] | None = None) -> str:
    """The command that shows the run ``link`` names, of the file the command read (``name``), to copy; ``at``: at
    the view deciding that step (``--at``); ``""`` when the file does not hold that run (``held``: its runs' ids)."""
    if held is not None and link.run_id not in held:
        return ""
    where = "" if at is None else f" --at {at}"
    # a word that begins with "-" is an option to the command's parser: a file's as a path, a run's id after "="
    path = shlex.quote(f"./{name}" if name.startswith("-") else name)
    run = f"={shlex.quote(link.run_id)}" if link.run_id.startswith("-") else f" {shlex.quote(link.run_id)}"
    return clean(f"agentrender show {path} --run{run}{where}", one_line=True)


def _parent_line(run: Run, name: str, held: Collection[str] | None = None) -> Iterator[Any]:
    """Under the panel of a run another run of its file started (``Run.links.parent``), the command that shows where
    it started: the view right after the session's step whose tool use started the sub-agent (that step's reply, and
    the line saying it started this run, are its last), or the view deciding the first step after the compaction a
    forked agent wrote; a line saying the session's run is not in the file when it is not (``held``)."""
    parent = run.links.parent
    if parent is None:
        return
    if parent.is_compaction:
        said, at = "show the session after the compaction it wrote: ", parent.step
    else:
        said, at = "show the step that started it: ", parent.step + 1
    command = _show_command(name, parent, at, held=held)
    if command:
        yield Copyable(Text.assemble(("\u21b0 ", "bold"), (said, MUTED)), command, indent="  ", style=MUTED)
    else:
        said_id = clean(parent.run_id, one_line=True)
        lead = Text.assemble(("\u21b0 ", "bold"), ("the run that started it, ", MUTED))
        yield Copyable(lead, said_id, Text(", is not in this file", style=MUTED), indent="  ", style=MUTED)


def _compaction_line(view: View) -> Iterator[Any]:
    """The compaction right before the view, with its sizes before and after; or the one it restarts from."""
    here = view.compaction
    if here is not None:
        yield Text(f"\u2702 {clean(here.describe())}", style="bold")
    elif view.restart_label:
        yield Text(f"\u2702 {clean(view.restart_label)}", style="bold")


def _where(view: View) -> str:
    """Which view it is (``View.where``); after the last step, what the model would see next, unless that view ends
    on a prefill no reply answered (its words say what it is)."""
    return view.where + (": what the model would see next" if view.at is None and not view.prefill else "")


def run_facts(
    run: Run,
    *,
    full: bool = False,
    prefill: int | None = None,
    leave: Collection[str] = (),
    said: Sequence[tuple[str, str]] | None = None,
) -> Table:
    """The run's facts (``run_facts_said``: every display lists the same, in the same order) as a two-column grid; a
    long goal or system prompt as its first line and size, whole when ``full``; ``prefill``: the step of a prefill no
    reply answered, counted as the caller's (``steps_summary``); ``leave``: the names of facts said elsewhere;
    ``said``: ``run_facts_said``'s, where the caller has them already (it counts the run's steps). A word longer than
    its column (a run id in a sentence) is folded at the column's edge, never cut."""
    grid = Table.grid(padding=(0, _FACTS_GAP))
    grid.add_column(style=MUTED, no_wrap=True)
    grid.add_column(overflow="fold")
    completed = end_said(run.end, run.header)[1]
    for name, words in run_facts_said(run, prefill=prefill) if said is None else said:
        if name in leave:
            continue
        if words == NO_VALUE:
            grid.add_row(name, Text(words, style=MUTED))
        elif name in _LONG_FACTS:  # an imported opening of many lines, a system prompt: the model saw them whole
            grid.add_row(name, Text(clean(words)) if full else _first_line(words))
        else:
            style = ("green" if completed else "yellow") if name == "end" else ""
            grid.add_row(name, Text(clean(words, one_line=True), style=style))
    return grid


_FACTS_GAP = 2
"""The spaces between a fact's name and its words in ``run_facts``' grid."""

_COPIED_FACTS = ("run", "file")
"""The facts of ``show``'s panel a user copies to come back to the run (``--run ID``, the file), whole on their lines
(``run_panel``)."""

_PANEL_EDGES = 4
"""The columns a panel takes of its width: a border and a space of padding each side."""


def run_panel(run: Run, title: Text, *, full: bool = False, prefill: int | None = None) -> AtWidth:
    """The panel of the run's facts (``run_facts``) under ``title``, its id: as one panel where the line has room for
    the title and the facts a user copies (``_COPIED_FACTS``) whole in it; else those facts each whole on a line of its
    own above a panel of the rest (``Copyable``: past the width where it is longer, for the terminal to wrap), the
    title left out (it is the run's id, said above)."""
    facts_said = run_facts_said(run, prefill=prefill)
    said = dict(facts_said)
    copied = [
        (name, clean(said[name], one_line=True)) for name in _COPIED_FACTS if said.get(name, NO_VALUE) != NO_VALUE
    ]
    names = max(map(cell_len, said), default=0)

    def lay(console: Console, options: ConsoleOptions) -> list[Any]:
        width = options.max_width
        room = width - _PANEL_EDGES - names - _FACTS_GAP  # for a fact's words beside the widest name
        if title.cell_len + 2 + _PANEL_EDGES <= width and all(cell_len(value) <= room for _, value in copied):
            facts = run_facts(run, full=full, prefill=prefill, said=facts_said)
            return [Panel(facts, title=title, title_align="left", box=box.ROUNDED, border_style=MUTED)]
        label = max((cell_len(name) for name, _ in copied), default=0) + _FACTS_GAP
        lines: list[Any] = [
            Copyable(Text(name.ljust(label), style=MUTED), value, style="bold") for name, value in copied
        ]
        facts = run_facts(run, full=full, prefill=prefill, leave={name for name, _ in copied}, said=facts_said)
        return [*lines, Panel(facts, box=box.ROUNDED, border_style=MUTED)]

    return AtWidth(lay)


_LONG_FACTS = frozenset(("goal", "system"))
"""The facts ``run_facts`` gives as their first line and size (``--full``: whole)."""


def terms_legend(names: list[str]) -> Text:
    """One line explaining each of ``names``, words of ``views.VIEW_TERMS``, as that table words them."""
    text = Text("terms  ", style=MUTED)
    for position, name in enumerate(names):
        if position:
            text.append(" \u00b7 ", style=MUTED)
        text.append(name, style="bold")
        text.append(f": {VIEW_TERMS[name]}", style=MUTED)
    return text


def view_summary(view: View) -> Iterator[Any]:
    """The view's facts (where, its size, its window, its replay key, what changed) and the terms they use."""
    yield Rule(Text(f"the view {_where(view)}", style="bold"), align="left", style=MUTED)
    yield from _view_facts(view)
    terms = ["window", "replay key"]
    if view.change.previous is not None:
        terms += ["cacheable prefix", "re-sent"]
    yield terms_legend(terms)


_KEY_LABEL = "replay key"
"""The label of the view's replay key, the widest of its facts' labels: the column of labels is as wide."""


def _facts_grid() -> Table:
    """A grid of the view's facts, a label and its words a row, the labels' column as wide as ``_KEY_LABEL``."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style=MUTED, no_wrap=True, min_width=len(_KEY_LABEL))
    grid.add_column()
    return grid


def _view_facts(view: View) -> Iterator[Any]:
    """The view's facts: two grids, and between them the replay key after its label, whole on a line to copy
    (``Copyable``), the labels' column of both grids as wide as its label."""
    grid = _facts_grid()
    grid.add_row(
        "size",
        Text(
            f"{plural(len(view.messages), 'message')} \u00b7 {plural(view.bytes, 'byte')} \u00b7 "
            f"~{plural(view.tokens, 'token')}"
        ),
    )
    mode = view.views.describe_mode()
    if mode:
        grid.add_row("shown", Text(clean(mode, one_line=True), style="bold"))
    results, window = view.rendered_count, view.full_count
    summaries = results - window
    blocks, several = _tool_results(view.messages)
    if view.views.mode == "as sent":
        # the steps in the view's messages (the opening, then two messages a step, one for a step the
        # conversation ended on): those since the compaction it restarts from
        in_view = (view.message_count - 1 + view.ended) // 2
        every = {0: "no results", 1: "its one result in full"}.get(
            blocks, f"every one of the {blocks:,} results in full"
        )
        said = f"{every}, as sent: no window, no cap"
        if in_view != results:
            before = results - in_view
            said += f"; the {plural(before, 'step')} before the compaction {'is' if before == 1 else 'are'} not in it"
        if view.ended:
            said += "; nothing answered the last prefill" if view.prefill else "; nothing answered the last reply"
        summaries = 0
    elif several:  # the window counts steps, and a step's turn holds the results of each of its parallel calls
        said = (
            f"the results of the last {plural(window, 'step')} of {results:,} in full, each capped at "
            f"{view.options.result_bytes:,} bytes"
        )
        if summaries:
            said += f"; those of the {plural(summaries, 'step')} before as summaries"
        summaries = 0
    else:  # the contract's window counts rendered steps, a nudge's and a re-request's too, not tool results
        whose = plural(results, "step") + ("'s" if results == 1 else "'")  # 1 step's, 2 steps'
        said = f"the last {window:,} of {whose} results in full, each capped at {view.options.result_bytes:,} bytes"
    if summaries:
        start = view.window_step  # only the steps before the window: a late view of a long run holds thousands
        kinds, fulls = view.result_columns(0, start)["kind"], view.step_columns(0, start)["full"]
        outside = [kind for kind, full in zip(kinds, fulls, strict=True) if full is False]
        as_summaries = sum(kind in OUTSIDE_KINDS for kind in outside)
        if as_summaries == summaries:
            said += f"; {summaries:,} earlier as summaries"
        else:
            others, as_what = summaries - as_summaries, "its summary" if as_summaries == 1 else "summaries"
            said += (
                f"; of the {summaries:,} earlier, {as_summaries:,} as {as_what}, "
                f"{others:,} {'a nudge or re-request' if others == 1 else 'nudges or re-requests'} as in the window"
            )
    if view.bytes_no_window != view.bytes:
        said += f" (every result in full: {view.bytes_no_window:,} bytes)"
    grid.add_row("window", Text(said))
    yield grid
    said_key = Text()
    if view.recorded_keys:
        if view.replay_key in view.recorded_keys:
            said_key.append("  matches the recorded request key", style="green")
        else:
            said_key.append("  differs from the recorded request key", style="bold red")
            if view.key_differs:
                said_key.append(f": {view.key_differs}", style=MUTED)
    elif view.key_differs:  # a view no model call was made of: why
        said_key.append(f"  none recorded: {view.key_differs}", style=MUTED)
    indent = " " * (len(_KEY_LABEL) + 2)
    yield Copyable(Text.assemble((_KEY_LABEL, MUTED), "  "), view.replay_key, said_key, indent=indent)
    grid = _facts_grid()
    grid.add_row("change", Text(view.change.describe()))
    if view.compaction is not None:
        grid.add_row("compaction", Text(clean(view.compaction.describe()), style="bold"))
    if view.ended:
        grid.add_row("end", Text(view.ended_text))
    yield grid


def _tool_results(messages: Sequence[Message]) -> tuple[int, bool]:
    """How many results the user turns of ``messages`` hold, and whether one turn holds several (the results of
    parallel tool calls, as an imported run's turns may)."""
    count, several = 0, False
    for message in messages:
        if message.role == "user":
            held = sum(block.type == "tool_result" for block in message.content)
            count += held
            several = several or held > 1
    return count, several


def _first_line(said: str) -> Text:
    """A text of the header in one line: one short line as it is, a longer text's first line, then its size and how
    to see it whole."""
    text = said.strip()
    first = text.split("\n", 1)[0]
    if first == text and len(text) <= _HEADER_CHARS:
        return Text(clean(text, one_line=True))
    line = Text(clean(first[:_HEADER_CHARS], one_line=True) + "\u2026")
    line.append(f"  ({utf8_bytes(said):,} bytes; --full prints it whole)", style=MUTED)
    return line


NOT_IN_FILE = " (not in this file)"
"""What ``show`` says after a run a step started that the file it read does not hold (a session written alone)."""

_HEADER_CHARS = 120
"""The most characters of a long goal's or system prompt's first line ``show``'s header gives (``--full``: all)."""


def show_renderables(
    view: View,
    *,
    full: bool = False,
    last_steps: int = SHOWN_STEPS,
    yet: Callable[[Step], bool] | None = None,
    name: str = "FILE",
    held: Collection[str] | None = None,
) -> Iterator[Any]:
    """Everything ``show`` prints for ``view``, in order; ``yet``: whether a step with no decision may still get one
    (a follow's, ``_follow.undecided``), which its line says (``NO_DECISION_YET``), not that it is skipped; ``name``:
    the file the command read (as given), which the command that shows another run of it names; ``held``: the ids of
    that file's runs (``None``: not told), a linked run not among them said to be not in it, with no command."""
    folder = Folder(full=full)
    run = view.views.run
    title = Text(clean(view.views.run_id or "(no run id)", one_line=True), style="bold")
    if run is not None:
        yield run_panel(run, title, full=full, prefill=view.views.at(None).prefill_step)
        yield from _parent_line(run, name, held)
    else:
        yield Rule(title, align="left", style=MUTED)
    if run is not None:
        yield from warning_lines(run.warnings)
    total, first = view.step_count, view.first_step
    start = first if full else max(first, total - last_steps)
    shown = view.step_facts(start)
    prefilled = view.prefilled
    said = legend_of((view.opening, prefilled), shown)
    undecided = yet is not None and any(yet(fact.step) for fact in said.skipped)
    skipped = any(yet is None or not yet(fact.step) for fact in said.skipped)
    yield legend(said.kinds, failed=said.failed, skipped=skipped, hidden=said.hidden, undecided=undecided)
    yield Text("")
    result_bytes = view.options.result_bytes
    yield from _compaction_line(view)
    yield from _message(view.opening, None, folder, result_bytes)
    if start > first:
        elided = shown[0].message_index - 1 if shown else len(view.messages) - 1
        yield Text(
            f"\u22ef {plural(start - first, 'earlier step')} ({plural(elided, 'message')}) not printed here; "
            "--steps N or --full prints them",
            style=MUTED,
        )
    retries = _retries(run)
    started, compacted = _started_lines(run, name, held)
    for fact in shown:
        index = fact.step.index
        undecided = yet is not None and not fact.rendered and yet(fact.step)
        yield from _step(
            fact,
            folder,
            result_bytes,
            retries.get(index, ""),
            yet=undecided,
            started=started.get(index, ()),
            compacted=compacted.get(index, ()),
        )
    if prefilled is not None:  # the request ended with the caller's prefill, the start of step at's turn
        yield Text("")
        yield from _message(prefilled, None, folder, result_bytes)
        yield Text(f"\u2504 {PREFILLED_TEXT}", style=SKIPPED)
    if not total:
        yield Text("no steps yet: the model saw only the opening", style=MUTED)
    yield Text("")
    yield from view_summary(view)


def _block_json(fact: BlockFact) -> dict[str, Any]:
    return {
        "kind": fact.kind,
        "type": fact.block.type,
        "failed": fact.failed,
        "cut": fact.cut,
        "shown_bytes": fact.shown_bytes,
        "content_bytes": fact.content_bytes,
        "hidden_bytes": fact.hidden_bytes,
    }


def _message_json(fact: MessageFact) -> dict[str, Any]:
    return {
        "role": fact.message.role,
        "turn": fact.turn,
        "bytes": fact.bytes,
        "blocks": [_block_json(block) for block in fact.blocks],
    }


def _compaction_json(fact: CompactionFact) -> dict[str, Any]:
    return {
        "at": fact.at,
        "trigger": fact.trigger,
        "honoured": fact.honoured,
        "replaced_steps": fact.replaced_steps,
        "bytes_before": fact.bytes_before,
        "bytes_after": fact.bytes_after,
        "source_tokens": fact.source_tokens,
        "describe": fact.describe(),
    }


def show_json(view: View) -> dict[str, Any]:
    """The view's facts and its messages in their wire form, for scripts."""
    change = view.change
    retried = _retried_calls(view.views.run)
    steps = []
    for fact in view.steps:
        item: dict[str, Any] = {"index": fact.step.index, "rendered": fact.rendered, "in_view": fact.in_view}
        if calls := retried.get(fact.step.index):
            # the model-calls frame's tries and retried_ms, of the step's calls together (most steps have one)
            failed, took, known = retries(calls)
            item.update(tries=failed + len(calls) if known else None, retried_ms=took)
        if fact.rendered:
            assert fact.assistant is not None
            item.update(
                message_index=fact.message_index,
                tool_use_id=fact.tool_use_id,
                full=fact.full,
                assistant=_message_json(fact.assistant),
                result=_message_json(fact.result) if fact.result is not None else None,
                ended=fact.ended,
                prefill=fact.prefill,
            )
        steps.append(item)
    return {
        "run_id": view.views.run_id,
        # the runs of the file this one is linked to (Run.links): the run and step that started it, the runs it started
        "links": dataclasses.asdict(run.links) if (run := view.views.run) else None,
        "at": view.at,
        "mode": view.views.mode,
        "summariser": view.views.summariser,
        **window_json(view.options),
        "message_count": len(view.messages),
        "bytes": view.bytes,
        "tokens": view.tokens,
        "bytes_no_window": view.bytes_no_window,
        "replay_key": view.replay_key,
        "recorded_keys": list(view.recorded_keys),
        "change": {
            "previous": change.previous,
            "first_diff": change.first_diff,
            "prefix_bytes": change.prefix_bytes,
            "resent_bytes": change.resent_bytes,
            "added_step": change.added_step,
            "left_window": change.left_window,
            "bytes_delta": change.bytes_delta,
            "describe": change.describe(),
        },
        "compaction": None if view.compaction is None else _compaction_json(view.compaction),
        "ended": view.ended,
        "prefill": view.prefill,
        "prefilled": None if view.prefilled is None else _message_json(view.prefilled),
        "opening": _message_json(view.opening),
        "steps": steps,
        "messages": [message.to_dict() for message in view.messages],
        # every warning of the run, as a run file's header keeps them: what the terminal lists above the view
        "warnings": [warning_record(warning) for warning in run.warnings] if (run := view.views.run) else [],
    }
