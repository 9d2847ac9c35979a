"""What each part of a view is: the facts every instrument reads and never re-derives.

A view is made of blocks, messages and steps; each has a fact here saying what it is
(``BLOCK_KINDS``, read off the rule of the contract that made the block), what of a
result the model did not see, and what changed since the previous view.

The facts are frozen ``msgspec.Struct``s, as the values they describe are (``agentrender._types``),
and a view makes one for every step and every result block it shows. ``SizeSeries`` stays a
dataclass: it is a table, read column by column through ``dataclasses.fields``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from itertools import repeat
from typing import TYPE_CHECKING, Any, NamedTuple

import msgspec

from agentrender import render
from agentrender._display.said import NO_VALUE  # a run's fact of no value is said so too
from agentrender._types import ContentBlock, Message, Step
from agentrender._words import VIEW_TERMS  # the base floor's, so that the CLI's help reads them alone
from agentrender.views.sizes import approx_tokens, message_bytes

if TYPE_CHECKING:
    from agentrender.views.renders import StepRenders

__all__ = [
    "BLOCK_KINDS",
    "BLOCK_LABELS",
    "CHART_MARKS",
    "ENDED_SAW",
    "ENDED_TEXT",
    "LEFT_OUT_SAID",
    "LEFT_OUT_TEXT",
    "LEGEND_MARKS",
    "NO_VALUE",
    "OUTSIDE_KINDS",
    "PREFILLED_TEXT",
    "PREFILL_ENDED_TEXT",
    "PREFILL_REASON",
    "PREFILL_SAID",
    "REPLY_REASON",
    "RESULT_KINDS",
    "SIZE_LEGEND",
    "SKIPPED_SAW",
    "VIEW_TERMS",
    "BlockFact",
    "Change",
    "CompactionFact",
    "Legend",
    "MessageFact",
    "OneValue",
    "SizeSeries",
    "StepFact",
    "StepsRead",
    "compaction_mark",
    "compaction_name",
    "ended_text",
    "legend_kinds",
    "legend_of",
    "listed_kind",
    "one_value",
    "prefill_where",
    "reason_said",
    "step_said",
]

BLOCK_KINDS: dict[str, str] = {
    "opening": "the opening user message: the goal and the domain facts",
    "reason": "the decision's reason, as text",
    "no_call": "'(no tool call)': a decision with neither a reason nor a call",
    "tool_use": "the tool call the decision made",
    "result": "a result in full (the step is inside the recent-results window)",
    "cut": "a result in full, cut at the result_bytes cap: the model did not see the rest",
    "summary": "a result as its summary (the step is outside the window): the model did not see the content",
    "no_summary": (
        "a result outside the window whose tool wrote no summary: the model was shown the contract's stand-in "
        f"{render.NO_SUMMARY_TEXT!r}, not the content"
    ),
    "nudge_no_tool_call": "the nudge after a reply with no executable tool call",
    "nudge_truncated": "the nudge after a reply cut by the output token cap",
    "nudge_invalid": "the nudge after a decision the driver rejected, carrying its summary",
    "interrupted": "the re-request for a call whose process died: its outcome is unknown",
    "hook": "a block a consumer's hook built (Options.assistant or Options.observation)",
    "as_sent": "a block of the agent's own turn, replayed exactly as it was sent (an imported run)",
    "compaction": (
        "a block of the summary a compacted conversation restarted with, exactly as it was sent (the other blocks of "
        "that user turn, such as the user's next prompt, are as sent)"
    ),
}
"""Every kind of block a view holds, with what it means: a legend names those its display shows (``legend_kinds``)."""

BLOCK_LABELS: dict[str, str] = {
    "opening": "opening",
    "reason": "reason",
    "no_call": "no tool call",
    "tool_use": "tool use",
    "result": "full result",
    "cut": "full result, cut at cap",
    "summary": "summary",
    "no_summary": "no summary",
    "nudge_no_tool_call": "nudge: no tool call",
    "nudge_truncated": "nudge: truncated",
    "nudge_invalid": "nudge: invalid",
    "interrupted": "interrupted: re-request",
    "hook": "hook's block",
    "as_sent": "as sent",
    "compaction": "compaction summary",
}
"""The short label of each kind of ``BLOCK_KINDS``: the words the HTML, the widgets and the terminal tag blocks with."""

LEGEND_MARKS: dict[str, tuple[str, str]] = {
    "failed": ("failed", "the result is flagged is_error"),
    "skipped": ("skipped step", "a step with no decision is not part of the model's view"),
    "hidden": ("hidden from the model", "what the model did not see"),
}
"""What a legend shows after the kinds of block, each its words and its meaning: a failed result's mark, a skipped
step, and what the model did not see (the HTML of a view and the offline page show the same legend)."""

SIZE_LEGEND: dict[str, str] = {
    "full": "\u2014 without the window (every result in full)",
    "window": "\u2014 with the window (as rendered)",
    "break": "\u25bc cache prefix breaks (a result left the window)",
    "compaction": "\u25c6 compaction (the conversation restarted with its summary)",
    "compaction_across": "\u25c6 compaction in the session as sent (rendered across here)",
}
"""The words of a size chart's legend (``SizeSeries.legend`` says which it shows): its two lines, its mark of a break
of the cache prefix, and its mark of a compaction, where the views restart from it or are rendered across it."""
CHART_MARKS = 2_000
"""The most breaks of the cache prefix a size chart marks (``SizeSeries.marked_breaks``): more than the picture has
pixels only make it heavy. Its totals count every one."""

RESULT_KINDS: tuple[str, ...] = tuple(
    kind for kind in BLOCK_KINDS if kind not in ("opening", "reason", "no_call", "tool_use", "compaction")
)
"""The kinds of ``BLOCK_KINDS`` a step's user turn can hold, in that order: what the model was shown for the step."""

OUTSIDE_KINDS: tuple[str, ...] = ("summary", "no_summary")
"""The kinds of a call's result outside the window: its summary, or the contract's stand-in for none
(``render.NO_SUMMARY_TEXT``); either way the model saw none of the content."""


def legend_kinds(kinds: Iterable[str]) -> list[str]:
    """The kinds of block a legend names: those of ``kinds``, in the order ``BLOCK_KINDS`` lists them, then any it
    does not name (a hook's own) in the order met.

    The one rule of every legend: it names the kinds of the blocks its display shows, never the others. ``show``,
    the HTML of a view, the notebook's widgets and the offline page show one view at a time (its last steps), so
    each names the kinds of the blocks it draws of the view on screen, and the notebook's and the page's legends
    change as the reader moves (the page numbers its kinds in this order and draws the legend itself). A plain run
    file's legend then has no compaction summary, no hook's block and no block as sent, which only a compacted,
    hooked or imported run has.
    """
    met = dict.fromkeys(kinds)
    return [kind for kind in BLOCK_KINDS if kind in met] + [kind for kind in met if kind not in BLOCK_KINDS]


class Legend(NamedTuple):
    """What a legend names of the messages a display shows (``legend_of``): the kinds of their blocks
    (``legend_kinds``), whether one is flagged failed, whether one hides part of a result from the model, and the
    shown steps that are skipped (no decision, so no part of the view: ``show`` tells those that may still get one)."""

    kinds: list[str]
    failed: bool
    hidden: bool
    skipped: list[StepFact]


def legend_of(messages: Iterable[MessageFact | None], steps: Iterable[StepFact] = ()) -> Legend:
    """The legend of a display that shows ``messages`` (the opening, a prefill) and ``steps`` (each rendered one's
    two messages; a skipped one drawn as skipped): the rule of ``legend_kinds``, read off the blocks' facts."""
    kinds: dict[str, None] = {}
    failed = hidden = False
    skipped: list[StepFact] = []
    shown: list[MessageFact | None] = list(messages)
    for fact in steps:
        if fact.rendered:
            shown += (fact.assistant, fact.result)
        else:
            skipped.append(fact)
    for message in shown:
        for block in message.blocks if message is not None else ():
            kinds[block.kind] = None
            failed = failed or block.failed
            hidden = hidden or block.hidden_bytes > 0
    return Legend(legend_kinds(kinds), failed, hidden, skipped)


class BlockFact(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """What one block of a view is, and what of the result it shows the model did not see (the step's own call's,
    or, in a turn of several, another call's of its reply)."""

    kind: str
    """One of ``BLOCK_KINDS``."""
    block: ContentBlock
    """The block as the model was sent it."""
    rule: str = ""
    """The rule of the contract that made the block, as the render reported it: a key of
    ``render.USER_RULES`` for a user turn's block, of ``render.ASSISTANT_RULES`` for an
    assistant turn's; ``""`` for the opening. For a block an observation hook made by a row of
    the contract (a result of an imported turn of several, windowed and capped), that row, as
    the hook reports it in its ``rules``."""
    failed: bool = False
    """The block is flagged ``is_error`` (a failed result, or a rejected decision)."""
    cut: bool = False
    """The text was cut at ``result_bytes`` (the result in full, or its summary)."""
    shown_bytes: int = 0
    """UTF-8 bytes of the text the block carries (a result's content, a text block's text; a reasoning block that is
    only encrypted: its signature, or a redacted thinking block's data)."""
    content_bytes: int = 0
    """For a result: UTF-8 bytes of the tool's full content."""
    hidden_bytes: int = 0
    """For a result: bytes of the tool's content the model did not see (all of it for a summary)."""
    content: str = ""
    """For a result: the tool's whole content, as the run holds it, whose bytes ``content_bytes`` counts: of the step's
    own call, or of another call of its reply whose result the same turn holds (its parallel tool uses)."""

    @property
    def hidden_label(self) -> str:
        """What of the result the model did not see, in a sentence; ``""`` when it saw all of it."""
        if self.hidden_bytes <= 0:
            return ""
        if self.kind == "summary":
            return f"hidden from the model: the full result, {self.content_bytes:,} bytes (it saw the summary)"
        if self.kind == "no_summary":
            return f"hidden from the model: the full result, {self.content_bytes:,} bytes (its tool wrote no summary)"
        return f"hidden from the model: {self.hidden_bytes:,} of {self.content_bytes:,} bytes past the cap"

    def hidden_text(self, max_bytes: int | None = None) -> str:
        """The text of the result the model did not see: the whole content when it was shown the summary, the part
        past the cap when the content was cut; ``""`` when it saw all of it.

        ``max_bytes`` bounds what is taken (a page shows only the start of a 50 MB result); a
        character split at either end of the part shows as U+FFFD.
        """
        if self.hidden_bytes <= 0:
            return ""
        content, size = self.content, self.content_bytes
        start = 0 if self.kind in OUTSIDE_KINDS else size - self.hidden_bytes
        stop = size if max_bytes is None else min(size, start + max(0, max_bytes))
        if start == 0 and stop == size:
            return content
        if content.isascii():
            return content[start:stop]
        return content.encode("utf-8", "surrogatepass")[start:stop].decode("utf-8", "replace")


class MessageFact(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One message of a view: the step it came from and what its blocks are."""

    message: Message
    """The message as the model was sent it."""
    turn: str
    """``"opening"``, ``"assistant"`` (a step's decision), ``"result"`` (a step's user turn) or ``"prefill"`` (the
    caller's text the request ended with, the start of the turn of the step the view decides: ``View.prefilled``)."""
    step: int | None
    """The index of the step the message renders; ``None`` for the opening."""
    full: bool | None
    """For a result turn: the step is inside the recent-results window; else ``None``."""
    blocks: tuple[BlockFact, ...]
    """What each block is, in order."""
    bytes: int
    """UTF-8 bytes of the message's compact JSON wire form."""


def marked_fact(fact: MessageFact, marks: Sequence[tuple[int, Any]]) -> MessageFact:
    """``fact`` with a cache breakpoint on each block ``marks`` names (block, ``cache_control``), as
    ``render.with_breakpoints`` places it: its message, its blocks and its bytes; ``fact`` itself when none."""
    if not marks:
        return fact
    [message] = render.with_breakpoints([fact.message], [(0, block, control) for block, control in marks])
    blocks = tuple(
        msgspec.structs.replace(said, block=block) if block is not said.block else said
        for said, block in zip(fact.blocks, message.content, strict=True)
    )
    return msgspec.structs.replace(fact, message=message, blocks=blocks, bytes=message_bytes(message))


class StepFact(msgspec.Struct, frozen=True, kw_only=True):
    """One step of the run as it stands in a view: rendered (two messages) or skipped.

    The facts of its two messages (``assistant``, ``result``, ``result_block``) are made
    from the view's per-step renders when first asked for, and kept with them: a table that
    reads only the result blocks never renders the assistant turns nor counts any bytes.
    It is tracked by the cyclic collector, unlike the other facts: the renders it refers to keep
    what they made, so a cycle may run through it.
    """

    step: Step
    """The recorded step."""
    rendered: bool
    """The step has a decision and so is part of the model's view; ``False``: skipped, not in the view."""
    message_index: int
    """Where the step stands in ``View.messages``: its assistant turn's index (for a skipped step,
    the index of the next message)."""
    tool_use_id: str = ""
    """The id its ``tool_use`` block carries (or would carry); ``""`` when skipped."""
    full: bool | None = None
    """Its result shows in full (inside the window); ``None`` when skipped."""
    _renders: StepRenders | None = None
    """The view's per-step renders, where its messages' facts come from; ``None`` when skipped."""
    position: int | None = None
    """The step's place among the rendered steps, from 0 (what the window counts); ``None`` when skipped."""
    ended: bool = False
    """As sent, nothing answered the step's reply: the conversation ended on it, and the view has no user
    turn for it (``ENDED_TEXT``); ``result`` and ``result_block`` are then ``None``."""
    prefill: bool = False
    """The step ``ended`` the conversation on a prefill no reply answered: its assistant turn is the caller's text,
    not a reply of the model (``PREFILL_ENDED_TEXT``)."""
    in_view: bool = True
    """The step is part of the view's messages; ``False`` for a step before the compaction the view
    restarts from (``View.first_step``), whose ``message_index`` is then 0."""
    marks: tuple[tuple[int, int, Any], ...] = ()
    """The cache breakpoints the view places on its messages (``render.Options.breakpoints``): each the turn (0 the
    assistant's, 1 the user's), the block, and its ``cache_control``; its messages' facts carry them."""

    @property
    def ended_text(self) -> str:
        """What a display says after the step's turn when the conversation ended on it (``ENDED_TEXT``, or
        ``PREFILL_ENDED_TEXT`` for a prefill); ``""`` when it did not."""
        return ended_text(ended=self.ended, prefill=self.prefill)

    @property
    def said(self) -> str:
        """What a display titles the step by after its index (``step_said``): ``PREFILL_SAID`` for a prefill, else
        the tool its decision called or its decision's kind; ``""`` without a decision."""
        return step_said(self.step, prefill=self.prefill)

    @property
    def skipped_label(self) -> str:
        """Why the step is not in the view, in a sentence; ``""`` for a rendered step."""
        if self.rendered:
            return ""
        return f"step {self.step.index}: no decision recorded, so it is skipped: not part of the model's view"

    @property
    def assistant(self) -> MessageFact | None:
        """The assistant turn (the decision); ``None`` when skipped."""
        renders = self._renders
        if renders is None:
            return None
        fact = renders.assistant_fact(self.position)  # type: ignore[arg-type]  # set when rendered
        return marked_fact(fact, [(block, control) for turn, block, control in self.marks if turn == 0])

    @property
    def result(self) -> MessageFact | None:
        """The user turn (result, summary, nudge or re-request); ``None`` when skipped or ``ended``."""
        renders = self._renders
        if renders is None or self.ended:
            return None
        fact = renders.result_fact(self.position, bool(self.full))  # type: ignore[arg-type]  # set when rendered
        return marked_fact(fact, [(block, control) for turn, block, control in self.marks if turn == 1])

    @property
    def result_block(self) -> BlockFact | None:
        """The user turn's one block, what the model was shown for the step: ``result.blocks[0]``,
        without counting the message's bytes; ``None`` when skipped or ``ended``."""
        renders = self._renders
        if renders is None or self.ended:
            return None
        if any(turn == 1 and block == 0 for turn, block, _ in self.marks):
            result = self.result
            return result.blocks[0] if result is not None and result.blocks else None
        return renders.result_block(self.position, bool(self.full))  # type: ignore[arg-type]  # set when rendered

    def hidden_text(self, max_bytes: int | None = None) -> str:
        """The text of the step's result the model did not see (``BlockFact.hidden_text`` of ``result_block``): the
        whole content when it was shown the summary, the part past the cap when the content was cut; ``""`` when it
        saw all of it. Of a turn of several results (a reply's parallel tool uses), each block says its own.

        ``max_bytes`` bounds what is taken (a page shows only the start of a 50 MB result); a
        character split at either end of the part shows as U+FFFD.
        """
        block = self.result_block
        return "" if block is None else block.hidden_text(max_bytes)


class OneValue(list[Any]):
    """A column of a table of steps (``View.step_columns``, the frames') that holds one value in every row, made so
    (``one_value``): a reader may take its first value for all of them without a look at each (``agentrender.frame``
    makes its array whole from it)."""


def one_value(value: Any, count: int) -> list[Any]:
    """``[value] * count``, known to be one value (``OneValue``)."""
    return OneValue(repeat(value, count))


class StepsRead(NamedTuple):
    """What a caller has read off each of a run of steps already, a list each in step order, ``None`` where the step
    has no decision or no observation: the fields ``StepRenders.result_columns`` asks each step for, given to it so
    that it need not read them off the steps again (a table of many steps reads them for its own columns)."""

    kinds: Sequence[str | None]
    """Each decision's ``kind``."""
    tools: Sequence[str | None]
    """Each decision's ``tool``."""
    statuses: Sequence[str | None]
    """Each observation's ``status``."""
    content_bytes: Sequence[int | None]
    """``utf8_bytes`` of each observation's ``content``."""
    summary_bytes: Sequence[int | None]
    """``utf8_bytes`` of each observation's ``summary``."""

    def part(self, start: int, stop: int | None = None) -> StepsRead:
        """The same fields of the steps ``[start:stop]`` of these."""
        return StepsRead(
            self.kinds[start:stop],
            self.tools[start:stop],
            self.statuses[start:stop],
            self.content_bytes[start:stop],
            self.summary_bytes[start:stop],
        )


class Change(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """What changed between the view at the previous step and this one."""

    previous: int | None
    """The step the previous view was taken at; ``None`` for the first."""
    first_diff: int | None
    """The index of the first message that differs from the previous view (an appended message
    counts); ``None`` when the two views are identical."""
    prefix_bytes: int
    """Bytes of the messages the two views share from the start: what a prompt cache can reuse."""
    resent_bytes: int
    """Bytes of this view from the first differing message on: what is sent afresh."""
    added_step: int | None
    """The step whose two messages this view adds; ``None`` when it adds none."""
    left_window: int | None
    """The step whose result went from full to summary (breaking the cache prefix there); ``None``."""
    bytes_delta: int
    """This view's bytes minus the previous view's."""

    def describe(self) -> str:
        """One sentence saying what changed, for a header or a status line."""
        if self.previous is None:
            return f"first view: all {self.resent_bytes:,} bytes are new"
        said = [f"added step {self.added_step}" if self.added_step is not None else "no step added"]
        if self.left_window is not None:
            said.append(f"step {self.left_window}'s result left the window (now its summary)")
        said.append(
            "the view is unchanged" if self.first_diff is None else f"first differing message #{self.first_diff}"
        )
        said.append(f"{self.bytes_delta:+,} bytes")
        said.append(f"cacheable prefix {self.prefix_bytes:,} bytes, re-sent {self.resent_bytes:,}")
        return f"since step {self.previous}: " + ", ".join(said)


ENDED_TEXT = "the conversation as it ended: nothing was sent after this reply"
"""What an as-sent view says after a reply nothing answered: the source sent no user turn after it."""

PREFILL_ENDED_TEXT = (
    "the conversation as it ended: this turn is a prefill, the caller's text the model was to go on from, and no reply "
    "to it is held"
)
"""What an as-sent view says in place of ``ENDED_TEXT`` when the turn it ends on is a prefill no reply answered
(``StepFact.prefill``): the request's last assistant message, the caller's, not a reply of the model."""


PREFILLED_TEXT = (
    "the request ended with this prefill, the caller's text the model went on from: its reply is the step's decision, "
    "which the run holds as the prefill and the reply merged"
)
"""What an as-sent view says after the prefill it ends with (``View.prefilled``): the assistant message the request
that decided the step ended with, the caller's, not a reply of the model."""


def ended_text(*, ended: bool, prefill: bool) -> str:
    """What a display says after the turn a view or a step ended the conversation on: ``ENDED_TEXT``, or
    ``PREFILL_ENDED_TEXT`` when that turn is a prefill no reply answered; ``""`` when it did not end it."""
    if not ended:
        return ""
    return PREFILL_ENDED_TEXT if prefill else ENDED_TEXT


PREFILL_SAID = "prefill: the caller's text"
"""What a display titles or lists a step by, in place of its decision's kind, when its turn is a prefill no reply
answered (``StepFact.prefill``): the text the caller ended the request with, never a decision of the model."""


PREFILL_REASON = "[prefill]"
"""What a table of steps marks, in its reason column, the text of a step that is the caller's prefill by
(``reason_said``): the text a request ended with, for the model to go on from, never a reason the model gave."""

REPLY_REASON = "[reply]"
"""What a table of steps marks, in its reason column, the reply the model went on from the caller's prefill with by
(``reason_said``), after that prefill."""


def reason_said(reason: str, *, prefill: bool = False, prefilled: Message | None = None, note: str = "") -> str:
    """What a table of steps shows in its reason column of a decision whose reason is ``reason``: ``reason`` as it is,
    but that the caller's text is marked ``PREFILL_REASON``: all of it when the step's turn is a prefill no reply
    answered (``prefill``); when the request that decided the step ended with the prefill ``prefilled``
    (``Views.prefilled``), which the reason holds merged with the reply, that prefill's text, then the reply after
    ``REPLY_REASON`` (of a reason that does not start with the prefill's text, the whole reason). ``note``: the
    contract's note the reason ends with on the further tool uses of its reply (``render.Decided.note``), which the
    run's agent ran all the same (``Run.parallel_tools``): left off, since they were executed (the table names them
    beside the first)."""
    if note and reason.endswith(note):
        reason = reason[: -len(note)].rstrip()
    if prefill:
        return f"{PREFILL_REASON} {reason}"
    if prefilled is None:
        return reason
    text = "\n".join(block.text for block in prefilled.content if block.type == "text").strip()
    reply = reason[len(text) :].lstrip() if reason.startswith(text) else reason
    return f"{PREFILL_REASON} {text} {REPLY_REASON} {reply}"


def step_said(step: Step, *, prefill: bool) -> str:
    """What a display titles or lists ``step`` by after its index: ``PREFILL_SAID`` when its turn is a prefill no reply
    answered, else the tool its decision called, else its decision's kind; ``""`` when it has no decision."""
    decision = step.decision
    if decision is None:
        return ""
    if prefill:
        return PREFILL_SAID
    return decision.tool if decision.calls else decision.kind


def prefill_where(step: int, *, after: bool) -> str:
    """What a display heads a view by (``View.where``) beside step ``step``, a prefill no reply answered, the caller's
    text that no model decided: the view before it (no model decided from it), or the view after it, ending on it
    (the request the model was to go on from, whose reply would go on with that turn, no step after it)."""
    if after:
        return f"after step {step}, the caller's prefill: the request the model was to go on from"
    return f"before step {step}, the caller's prefill: no model decided it"


def listed_kind(kind: str | None, *, prefill: bool) -> str | None:
    """The kind a table of steps lists a step under, and its kind filter keeps it by (``steps --kind``, the notebook
    explorer's and the shared page's): ``PREFILL_SAID`` when its turn is a prefill no reply answered, the caller's text
    and never the model's decision the run recorded it as (``no_tool_call``); else its decision's ``kind`` (``None``:
    it has no decision)."""
    return PREFILL_SAID if prefill and kind is not None else kind


LEFT_OUT_TEXT = "nothing: a compaction's summary stands for it"
"""What the model was shown, in a view after a compaction, of a step before it (``StepFact.in_view`` false)."""
ENDED_SAW = "nothing: the conversation ended"
"""What the model was shown, as sent, of the step whose reply nothing answered (the conversation ended on it: the
``ended`` column of ``steps_frame``), as a table of steps lists it."""
SKIPPED_SAW = "skipped"
"""What the model was shown of a step with no decision (no view holds it: a null ``shown_as`` in ``steps_frame``), as
a table of steps lists it."""

LEFT_OUT_SAID = "compacted away"
"""``LEFT_OUT_TEXT`` in short, for a terminal's table of steps, whose every row before a compaction says it (and
which says ``LEFT_OUT_TEXT`` once, under the rows)."""


def compaction_name(trigger: str) -> str:
    """A compaction as the instruments name it: ``"compaction (auto)"``, or ``"compaction"`` with no trigger (nor
    with ``"compaction"``, what ``SizeSeries.compaction`` holds of a compaction that recorded none)."""
    return f"compaction ({trigger})" if trigger and trigger != "compaction" else "compaction"


def compaction_mark(trigger: str) -> str:
    """What a view rendered across a compaction (under the contract's options) says where it was."""
    return f"{compaction_name(trigger)} here in the session as sent; rendered across under the contract"


class CompactionFact(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A compaction right before a view: the conversation restarted with a summary (``Run.compactions``).

    The sizes are of the view at ``at``: ``bytes_before`` as it would have been without the
    compaction (the opening before it, or the previous compaction's, and every step since),
    ``bytes_after`` as it is. Under the contract's options (``honoured`` false) the whole history
    is rendered, so the two are the same: the fact only says where the compaction happened.
    """

    at: int
    """The stop the compaction comes right before: the first step whose request was sent after it."""
    trigger: str
    """What set it off, as the source says (``"auto"``, ``"manual"``, ...); ``""`` when not recorded."""
    honoured: bool
    """The view restarts with the compaction's opening (as sent); ``False`` under the contract's options."""
    replaced_steps: int
    """How many steps the view before it held that this view leaves out."""
    bytes_before: int
    """Bytes of the view at ``at`` as it would have been without the compaction."""
    bytes_after: int
    """Bytes of the view at ``at``."""
    source_tokens: int | None = None
    """The conversation's tokens just before it, by the source's own count; ``None`` when not recorded."""

    @property
    def tokens_before(self) -> int:
        """``approx_tokens(bytes_before)``: a scale, not a count."""
        return approx_tokens(self.bytes_before)

    @property
    def tokens_after(self) -> int:
        """``approx_tokens(bytes_after)``: a scale, not a count."""
        return approx_tokens(self.bytes_after)

    def describe(self) -> str:
        """One sentence saying what the compaction did, for a header, a status line or a marker."""
        name = compaction_name(self.trigger)
        counted = f"; the source counted {self.source_tokens:,} tokens before it" if self.source_tokens else ""
        if not self.honoured:
            return (
                f"{name} before step {self.at} in the session as sent; "
                f"under the contract the whole history is rendered{counted}"
            )
        return (
            f"{name} before step {self.at}: the conversation restarted with its summary, "
            f"{self.replaced_steps:,} earlier steps left out; {self.bytes_before:,} bytes (~{self.tokens_before:,} "
            f"tokens) just before, {self.bytes_after:,} bytes (~{self.tokens_after:,} tokens) just after{counted}"
        )


def _said(*parts: str) -> tuple[tuple[str, bool], ...]:
    """``parts`` as a fact's parts (``SizeSeries.totals``): every second one emphasised, the empty ones left out."""
    return tuple((words, n % 2 == 1) for n, words in enumerate(parts) if words)


@dataclass(frozen=True, slots=True, kw_only=True)
class SizeSeries:
    """The size of the view at every step, and its cacheable prefix: one column per field."""

    at: tuple[int, ...]
    """The step each view is taken at (what the model saw when deciding that step)."""
    messages: tuple[int, ...]
    """How many messages the view holds."""
    bytes: tuple[int, ...]
    """UTF-8 bytes of the view's messages as a compact JSON list."""
    tokens: tuple[int, ...]
    """``approx_tokens(bytes)``."""
    bytes_no_window: tuple[int, ...]
    """The view's bytes with every result in full (``recent_results=NO_WINDOW``)."""
    prefix_bytes: tuple[int, ...]
    """Bytes shared from the start with the previous view (0 for the first)."""
    resent_bytes: tuple[int, ...]
    """``bytes - prefix_bytes``."""
    first_diff: tuple[int | None, ...]
    """The first message that differs from the previous view; ``None`` when identical."""
    left_window: tuple[int | None, ...]
    """The step whose result left the window at this view (the cache prefix breaks there: ``breaks``)."""
    compaction: tuple[str | None, ...]
    """A compaction right before this view: its trigger (``"compaction"`` when it recorded none); else ``None``."""

    @property
    def breaks(self) -> tuple[int, ...]:
        """Where the cacheable prefix breaks: the positions of the views that do not begin with the whole view before
        them, because a result left the window (``left_window``) or a compaction restarted the conversation with
        its summary (``compaction``, as sent)."""
        pairs = enumerate(zip(self.first_diff[1:], self.messages, strict=False), 1)
        return tuple(i for i, (first_diff, before) in pairs if first_diff is not None and first_diff < before)

    @property
    def marked_breaks(self) -> tuple[int, ...]:
        """The breaks a size chart marks as a break (the notebook's and the offline page's alike): every one of
        ``breaks`` but a compaction's, which has its own mark, or past ``CHART_MARKS`` of them every second, third,
        ... one, so that at most ``CHART_MARKS`` are marked, evenly over the run."""
        breaks = [i for i in self.breaks if self.compaction[i] is None]
        return tuple(breaks[:: -(-len(breaks) // CHART_MARKS) or 1])

    def legend(self, *, rendered_across: bool = False) -> list[tuple[str, str]]:
        """What a size chart of the series shows in its legend, each as its mark (``"full"``, ``"window"``,
        ``"break"``, ``"compaction"``: what it is drawn in the colour of) and its words (``SIZE_LEGEND``): the two
        lines, the breaks when it marks any (``marked_breaks``), the compactions when there are any, as rendered
        across (``rendered_across``: ``Views.rendered_across``) or restarted from."""
        legend = [("full", SIZE_LEGEND["full"]), ("window", SIZE_LEGEND["window"])]
        if self.marked_breaks:
            legend.append(("break", SIZE_LEGEND["break"]))
        if any(trigger is not None for trigger in self.compaction):
            legend.append(("compaction", SIZE_LEGEND["compaction_across" if rendered_across else "compaction"]))
        return legend

    def totals(self, mode: str = "") -> list[tuple[tuple[str, bool], ...]]:
        """What the size tab shows under its chart (the notebook's and the offline page's alike), each fact as its
        parts, each its words and whether they are emphasised (its numbers, and the whole of ``mode``: the views'
        mode, ``Views.describe_mode``, first when there is one): how many views, the last one's bytes with and without
        the window, how often the cache prefix broke (``breaks``), each compaction (``compaction_name``) and the bytes
        after it, and how much of all that was sent was re-sent after the prefix. None for an empty series."""
        if not len(self):
            return []
        breaks = len(self.breaks)
        totals = [_said("", mode)] if mode else []
        totals.append(_said("", f"{len(self):,}", f" {'view' if len(self) == 1 else 'views'}"))
        last = f"{self.bytes[-1]:,}", f" bytes (~{self.tokens[-1]:,} tokens), ", f"{self.bytes_no_window[-1]:,}"
        totals.append(_said("last view ", *last, " without the window"))
        totals.append(_said("the cache prefix broke ", f"{breaks:,}", f" {'time' if breaks == 1 else 'times'}"))
        totals.extend(
            _said(f"{compaction_name(trigger)} before step {at}: ", f"{size:,}", " bytes after")
            for at, size, trigger in zip(self.at, self.bytes, self.compaction, strict=True)
            if trigger is not None
        )
        resent = f"{sum(self.resent_bytes):,}", " of ", f"{sum(self.bytes):,}"
        totals.append(_said("over the run ", *resent, " bytes sent were re-sent after the prefix"))
        return totals

    def columns(self) -> dict[str, tuple[Any, ...]]:
        """The series as ``{name: column}``, ready for ``pandas.DataFrame``."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def __len__(self) -> int:
        return len(self.at)
