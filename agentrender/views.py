"""The model's view at any step of a run, annotated: one source of facts for every instrument.

``Views(run)`` renders each step of a run once (its assistant turn, and its user turn in
the full and the summary form, each the first time a view shows it) and assembles the view
at any step ``k`` from those pieces. The view at ``k`` is exactly
``render.messages(run.step_input(k), options)``: hooks see only a step, its id and the
``full`` flag, so a step renders the same in every view that holds it, and only *which*
form a step shows depends on ``k``. One view costs about one render; the next reuses it.

From the same pieces come the facts the HTML, the CLI and the frames show and never
re-derive: what each block is (``BLOCK_KINDS``; a step's user turn one of ``RESULT_KINDS``),
which steps were skipped, what of a result the model did not see, the bytes of the view at
every step, and between consecutive views the first message that differs (how much of the
prompt stays a cacheable prefix and how much is re-sent).

    views = Views(run)                   # or Views(step_input, options)
    view = views.at(12)                  # what the model saw when deciding step 12
    view.messages                        # == render.messages(run.step_input(12), options)
    for fact in view.steps: ...          # StepFact: rendered?, full?, result_block, hidden_text()
    view.bytes, view.tokens, view.replay_key, view.change
    views.sizes()                        # SizeSeries: bytes per step, with and without the window

``explain_decide(response)`` says which rule of ``render.decide`` fired for a model reply
and why; ``disagreements(decision, recorded)`` names the fields where two decisions differ.

Standard library only.
"""

from __future__ import annotations

import json
import sys
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import TYPE_CHECKING, Any

from agentrender import _api_rules, render
from agentrender._types import (
    ContentBlock,
    Decision,
    Message,
    Messages,
    ModelResponse,
    Step,
    StepInput,
    new_message,
    utf8_bytes,
)
from agentrender.render import REASON_BYTES, Options, default_observation

if TYPE_CHECKING:
    from agentrender.runfile import Run

__all__ = [
    "ARGS_OUTCOMES",
    "BLOCK_KINDS",
    "BLOCK_LABELS",
    "DECIDE_RULES",
    "NO_WINDOW",
    "RESULT_KINDS",
    "BlockFact",
    "Change",
    "DecideExplanation",
    "MessageFact",
    "SizeSeries",
    "StepFact",
    "View",
    "Views",
    "approx_tokens",
    "disagreements",
    "explain_decide",
    "message_bytes",
    "steps_summary",
    "utf8_bytes",
]

NO_WINDOW = sys.maxsize
"""A ``recent_results`` that shows every result in full: the view as if there were no window."""

BLOCK_KINDS: dict[str, str] = {
    "opening": "the opening user message: the goal and the domain facts",
    "reason": "the decision's reason, as text",
    "no_call": "'(no tool call)': a decision with neither a reason nor a call",
    "tool_use": "the tool call the decision made",
    "result": "a result in full (the step is inside the recent-results window)",
    "cut": "a result in full, cut at the result_bytes cap: the model did not see the rest",
    "summary": "a result as its summary (the step is outside the window): the model did not see the content",
    "nudge_no_tool_call": "the nudge after a reply with no executable tool call",
    "nudge_truncated": "the nudge after a reply cut by the output token cap",
    "nudge_invalid": "the nudge after a decision the driver rejected, carrying its summary",
    "interrupted": "the re-request for a call whose process died: its outcome is unknown",
    "hook": "a block a consumer's hook built (Options.assistant or Options.observation)",
}
"""Every kind of block a view holds, with what it means: the legend every instrument shows."""

BLOCK_LABELS: dict[str, str] = {
    "opening": "opening",
    "reason": "reason",
    "no_call": "no tool call",
    "tool_use": "tool use",
    "result": "full result",
    "cut": "full result, cut at cap",
    "summary": "summary",
    "nudge_no_tool_call": "nudge: no tool call",
    "nudge_truncated": "nudge: truncated",
    "nudge_invalid": "nudge: invalid",
    "interrupted": "interrupted: re-request",
    "hook": "hook's block",
}
"""The short label of each kind of ``BLOCK_KINDS``: the words the HTML, the widgets and the terminal tag blocks with."""

RESULT_KINDS: tuple[str, ...] = tuple(
    kind for kind in BLOCK_KINDS if kind not in ("opening", "reason", "no_call", "tool_use")
)
"""The kinds of ``BLOCK_KINDS`` a step's user turn can hold, in that order: what the model was shown for the step."""


def approx_tokens(n_bytes: int) -> int:
    """An approximate token count for ``n_bytes`` of JSON: one token per four bytes, rounded up.

    Four bytes a token is the usual rule of thumb for English and code under BPE tokenizers
    (Anthropic's and OpenAI's); JSON punctuation and non-Latin text make real counts differ,
    so treat it as a scale, not a bill. For an exact count ask the provider's counting API.
    """
    return (n_bytes + 3) // 4


def steps_summary(steps: Sequence[Step]) -> str:
    """How many steps, and how many of them a view renders: ``"12 (11 rendered, 1 without a decision)"``."""
    rendered = sum(step.decision is not None for step in steps)
    return f"{len(steps):,} ({rendered:,} rendered, {len(steps) - rendered:,} without a decision)"


# ---------------------------------------------------------------------------- bytes

_encode_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=repr).encode


# Bytes a JSON string carries unescaped (ensure_ascii=False leaves every byte from 0x20 up as
# it is, but for the quote and the backslash), and the control characters with a 2-byte escape.
_PLAIN = bytes(b for b in range(0x20, 0x100) if b not in b'"\\')
_SHORT_ESCAPES = b'"\\\b\t\n\f\r'


def _string_bytes(s: str) -> int:
    """The UTF-8 bytes ``s`` takes as a JSON string, quotes and escapes included.

    Counts what ``json.dumps(s, ensure_ascii=False)`` writes without building it: deleting
    the bytes that need no escape leaves the ones that do, a few, at a quarter of the cost.
    """
    if s.isidentifier() and s.isascii():
        return len(s) + 2
    encoded = s.encode("utf-8", "surrogatepass")
    escaped = encoded.translate(None, _PLAIN)
    if not escaped:
        return len(encoded) + 2
    # each escaped byte adds one (\n, \"), and a control character without a short escape adds five (\u0001)
    return len(encoded) + 2 + len(escaped) + 4 * len(escaped.translate(None, _SHORT_ESCAPES))


def _json_bytes(value: Any) -> int:
    return utf8_bytes(_encode_json(value))


# The fixed parts of each known block's compact wire form, so a block's size is the sum of
# its strings' sizes and a constant, without building and encoding the whole dict.
_TEXT_BLOCK = len('{"type":"text","text":}')
_RESULT_BLOCK = len('{"type":"tool_result","tool_use_id":,"content":}')
_ERROR_FLAG = len(',"is_error":true')
_USE_BLOCK = len('{"type":"tool_use","id":,"name":,"input":}')


def _block_bytes(block: ContentBlock) -> int:
    if block.raw is None:
        kind = block.type
        if kind == "text":
            return _TEXT_BLOCK + _string_bytes(block.text)
        if kind == "tool_result":
            size = _RESULT_BLOCK + _string_bytes(block.tool_use_id) + _string_bytes(block.content)
            return size + _ERROR_FLAG if block.is_error else size
        if kind == "tool_use":
            return _USE_BLOCK + _string_bytes(block.tool_use_id) + _string_bytes(block.name) + _json_bytes(block.input)
    return _json_bytes(block.to_dict())


_ROLE_BYTES = {"user": len('"user"'), "assistant": len('"assistant"')}


def message_bytes(message: Message) -> int:
    """The UTF-8 bytes of ``message``'s wire form as compact JSON (as ``render.replay_key`` encodes it)."""
    blocks = message.content
    # {"role":R,"content":[B,B]}: 22 bytes of keys and punctuation, the role, the blocks, their commas
    role = _ROLE_BYTES.get(message.role) or _string_bytes(message.role)
    if len(blocks) == 1:
        return 22 + role + _block_bytes(blocks[0])
    size = 22 + role + sum(map(_block_bytes, blocks))
    return size + len(blocks) - 1 if blocks else size


def _list_bytes(count: int, total: int) -> int:
    """The bytes of a JSON list of ``count`` items whose own bytes add up to ``total``."""
    return 2 + total + count - 1 if count else 2


# ---------------------------------------------------------------------------- facts


@dataclass(frozen=True, slots=True, kw_only=True)
class BlockFact:
    """What one block of a view is, and what of the step's result the model did not see."""

    kind: str
    """One of ``BLOCK_KINDS``."""
    block: ContentBlock
    """The block as the model was sent it."""
    failed: bool = False
    """The block is flagged ``is_error`` (a failed result, or a rejected decision)."""
    cut: bool = False
    """The text was cut at ``result_bytes`` (the result in full, or its summary)."""
    shown_bytes: int = 0
    """UTF-8 bytes of the text the block carries (a result's content, a text block's text)."""
    content_bytes: int = 0
    """For a result: UTF-8 bytes of the tool's full content."""
    hidden_bytes: int = 0
    """For a result: bytes of the tool's content the model did not see (all of it for a summary)."""

    @property
    def hidden_label(self) -> str:
        """What of the result the model did not see, in a sentence; ``""`` when it saw all of it."""
        if self.hidden_bytes <= 0:
            return ""
        if self.kind == "summary":
            return f"hidden from the model: the full result, {self.content_bytes:,} bytes (it saw the summary)"
        return f"hidden from the model: {self.hidden_bytes:,} of {self.content_bytes:,} bytes past the cap"


@dataclass(frozen=True, slots=True, kw_only=True)
class MessageFact:
    """One message of a view: the step it came from and what its blocks are."""

    message: Message
    """The message as the model was sent it."""
    turn: str
    """``"opening"``, ``"assistant"`` (a step's decision) or ``"result"`` (a step's user turn)."""
    step: int | None
    """The index of the step the message renders; ``None`` for the opening."""
    full: bool | None
    """For a result turn: the step is inside the recent-results window; else ``None``."""
    blocks: tuple[BlockFact, ...]
    """What each block is, in order."""
    bytes: int
    """UTF-8 bytes of the message's compact JSON wire form."""


@dataclass(frozen=True, slots=True, kw_only=True)
class StepFact:
    """One step of the run as it stands in a view: rendered (two messages) or skipped.

    The facts of its two messages (``assistant``, ``result``, ``result_block``) are made
    from the view's per-step renders when first asked for, and kept with them: a table that
    reads only the result blocks never renders the assistant turns nor counts any bytes.
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
    _renders: _StepRenders | None = field(default=None, repr=False)
    """The view's per-step renders, where its messages' facts come from; ``None`` when skipped."""

    @property
    def skipped_label(self) -> str:
        """Why the step is not in the view, in a sentence; ``""`` for a rendered step."""
        if self.rendered:
            return ""
        return f"step {self.step.index}: no decision recorded, so it is skipped: not part of the model's view"

    @property
    def position(self) -> int | None:
        """The step's place among the rendered steps, from 0 (what the window counts); ``None`` when skipped."""
        return (self.message_index - 1) // 2 if self.rendered else None

    @property
    def assistant(self) -> MessageFact | None:
        """The assistant turn (the decision); ``None`` when skipped."""
        renders = self._renders
        return None if renders is None else renders.assistant_fact((self.message_index - 1) // 2)

    @property
    def result(self) -> MessageFact | None:
        """The user turn (result, summary, nudge or re-request); ``None`` when skipped."""
        renders = self._renders
        return None if renders is None else renders.result_fact((self.message_index - 1) // 2, bool(self.full))

    @property
    def result_block(self) -> BlockFact | None:
        """The user turn's one block, what the model was shown for the step: ``result.blocks[0]``,
        without counting the message's bytes; ``None`` when skipped."""
        renders = self._renders
        return None if renders is None else renders.result_block((self.message_index - 1) // 2, bool(self.full))

    def hidden_text(self, max_bytes: int | None = None) -> str:
        """The text of the step's result the model did not see: the whole content when it was shown
        the summary, the part past the cap when the content was cut; ``""`` when it saw all of it.

        ``max_bytes`` bounds what is taken (a page shows only the start of a 50 MB result); a
        character split at either end of the part shows as U+FFFD.
        """
        block = self.result_block
        observation = self.step.observation
        if block is None or block.hidden_bytes <= 0 or observation is None:
            return ""
        content = observation.content
        start = 0 if block.kind == "summary" else block.content_bytes - block.hidden_bytes
        stop = block.content_bytes if max_bytes is None else min(block.content_bytes, start + max(0, max_bytes))
        if start == 0 and stop == block.content_bytes:
            return content
        if content.isascii():
            return content[start:stop]
        return content.encode("utf-8", "surrogatepass")[start:stop].decode("utf-8", "replace")


@dataclass(frozen=True, slots=True, kw_only=True)
class Change:
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
    """The step whose result left the window at this view (the cache prefix breaks there)."""

    def columns(self) -> dict[str, tuple[Any, ...]]:
        """The series as ``{name: column}``, ready for ``pandas.DataFrame``."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def __len__(self) -> int:
        return len(self.at)


# ---------------------------------------------------------------------------- per-step renders


class _Sizes:
    """Message bytes of a run's rendered steps: ``summary_sums[p]`` is the bytes of the first
    ``p`` steps' two messages with the result as summary, ``full_sums[p]`` with it in full."""

    def __init__(self) -> None:
        self.assistant: list[int] = []
        self.same: list[bool] = []
        self.summary_sums = [0]
        self.full_sums = [0]

    def steps(self, count: int, cut: int) -> int:
        """The bytes of the first ``count`` steps' messages when those before ``cut`` show summaries."""
        if count <= cut:
            return self.summary_sums[count]
        return self.summary_sums[cut] + self.full_sums[count] - self.full_sums[cut]


class _StepRenders:
    """Each rendered step of a run, rendered once in each form it is asked for, for one set of options.

    Everything here is independent of ``recent_results``: the window only decides which of
    a step's two user turns a view shows, so views with different windows share this. A
    user turn is rendered the first time a view shows it in that form, so one view costs
    about one render (each step in the one form it shows there) and later views reuse it.
    """

    def __init__(self, steps: Sequence[Step], options: Options) -> None:
        self.steps = tuple(steps)
        self.options = options
        indices = [step.index for step in self.steps]
        for position in range(1, len(indices)):
            if indices[position] <= indices[position - 1]:
                raise ValueError(
                    f"steps[{position}].index is {indices[position]}, not above steps[{position - 1}].index "
                    f"{indices[position - 1]}: a run's steps must be in index order, each index once"
                )
        self.indices = indices
        # rendered_before[p]: how many of steps[:p] have a decision (and so are rendered)
        rendered_before = [0]
        count = 0
        for step in self.steps:
            count += step.decision is not None
            rendered_before.append(count)
        self.rendered_before = rendered_before
        self.rendered = [step for step in self.steps if step.decision is not None]
        n = len(self.rendered)
        # Per form (0: the summary, 1: the result in full): [A0, U0, A1, U1, ...], the assistant
        # turns filled in when first needed, each user turn when first shown in that form;
        # which user turns are there, which a hook built, and their facts.
        self._turns: tuple[list[Message], list[Message]] = ([None] * (2 * n), [None] * (2 * n))  # type: ignore[list-item]
        self._done = (bytearray(n), bytearray(n))
        self._hooked = (bytearray(n), bytearray(n))
        self._blocks: tuple[list[BlockFact | None], list[BlockFact | None]] = ([None] * n, [None] * n)
        self._results: tuple[list[MessageFact | None], list[MessageFact | None]] = ([None] * n, [None] * n)
        self._assistant_facts: list[MessageFact | None] = [None] * n

    @cached_property
    def ids(self) -> list[str]:
        """The ``tool_use`` id of every rendered step: the options' hook, else ``step_<index>``."""
        id_hook = self.options.tool_use_id
        if id_hook is None:
            return [f"step_{step.index}" for step in self.rendered]
        return [id_hook(step) or f"step_{step.index}" for step in self.rendered]

    @cached_property
    def assistant(self) -> tuple[list[Message], bytearray]:
        """Every rendered step's assistant turn, and which of them a hook built; also put in both forms."""
        # The same per-step work render.messages does, through the same defaults; the equality
        # of assembled views with render.messages is tested over every k, hooks included.
        hook = self.options.assistant
        default = render._assistant_blocks
        pairs = zip(self.rendered, self.ids, strict=True)
        hooked = bytearray(len(self.rendered))
        if hook is None:
            turns = [new_message("assistant", default(step, tool_use_id)) for step, tool_use_id in pairs]
        else:
            turns = []
            for position, (step, tool_use_id) in enumerate(pairs):
                custom = hook(step, tool_use_id)
                blocks = tuple(custom) if custom is not None else ()
                hooked[position] = bool(blocks)
                turns.append(new_message("assistant", blocks or default(step, tool_use_id)))
        for form in self._turns:
            form[0::2] = turns
        return turns, hooked

    def users(self, full: bool, start: int, stop: int) -> list[Message]:
        """The user turns of rendered steps ``[start:stop]`` in one form, rendering those not yet rendered."""
        done = self._done[full]
        first = done.find(0, start, stop)
        if first >= 0:
            self._render_users(full, first, stop)
        return self._turns[full][2 * start + 1 : 2 * stop : 2]

    def _render_users(self, full: bool, start: int, stop: int) -> None:
        options = self.options
        hook, max_bytes = options.observation, options.result_bytes
        turns, done, hooked = self._turns[full], self._done[full], self._hooked[full]
        steps, ids = self.rendered, self.ids
        if hook is None and done.find(1, start, stop) < 0:
            # The common case, a stretch never shown in this form: no per-step checks.
            turns[2 * start + 1 : 2 * stop : 2] = [
                new_message("user", (default_observation(step, tool_use_id, full, max_bytes),))
                for step, tool_use_id in zip(steps[start:stop], ids[start:stop], strict=True)
            ]
            done[start:stop] = b"\x01" * (stop - start)
            return
        for position in range(start, stop):
            if done[position]:
                continue
            step, tool_use_id = steps[position], ids[position]
            block = hook(step, tool_use_id, full) if hook is not None else None
            if block is None or not block.type:
                block = default_observation(step, tool_use_id, full, max_bytes)
            else:
                hooked[position] = 1
            turns[2 * position + 1] = new_message("user", (block,))
            done[position] = 1

    def interleaved(self, rendered: int, cut: int) -> tuple[list[Message], list[Message]]:
        """``[A0, U0, A1, U1, ...]`` with every user turn in summary form, and in full form, each
        filled for a view of ``rendered`` steps whose first ``cut`` show summaries."""
        _ = self.assistant  # computing it puts the assistant turns in both forms
        self.users(False, 0, cut)
        self.users(True, cut, rendered)
        return self._turns[0], self._turns[1]

    @cached_property
    def sizes(self) -> _Sizes:
        """The bytes of every rendered step's messages, summed, in each form."""
        assistant, _ = self.assistant
        n = len(assistant)
        summary, full = self.users(False, 0, n), self.users(True, 0, n)
        sizes = _Sizes()
        s = f = 0
        add_assistant, add_same = sizes.assistant.append, sizes.same.append
        add_summary, add_full = sizes.summary_sums.append, sizes.full_sums.append
        for a, uf, us in zip(assistant, full, summary, strict=True):
            a_bytes = message_bytes(a)
            full_bytes = message_bytes(uf)
            # A user turn is one block; comparing its text first settles most steps cheaply.
            same = uf.content[0].content == us.content[0].content and uf.content == us.content
            add_assistant(a_bytes)
            add_same(same)
            s += a_bytes + (full_bytes if same else message_bytes(us))
            f += a_bytes + full_bytes
            add_summary(s)
            add_full(f)
        return sizes

    def position(self, at: int | None) -> int:
        """How many of the steps come before step ``at`` (all of them for ``None``)."""
        return len(self.steps) if at is None else bisect_left(self.indices, at)

    def assistant_fact(self, position: int) -> MessageFact:
        """The fact of rendered step ``position``'s assistant turn."""
        fact = self._assistant_facts[position]
        if fact is None:
            turns, hooked = self.assistant
            message = turns[position]
            if hooked[position]:
                blocks = tuple(_hook_fact(block) for block in message.content)
            else:
                step = self.rendered[position]
                blocks = tuple(_assistant_fact(step, block) for block in message.content)
            fact = self._assistant_facts[position] = MessageFact(
                message=message,
                turn="assistant",
                step=self.rendered[position].index,
                full=None,
                blocks=blocks,
                bytes=message_bytes(message),
            )
        return fact

    def result_block(self, position: int, full: bool) -> BlockFact:
        """The fact of rendered step ``position``'s user-turn block in the given form."""
        fact = self._blocks[full][position]
        if fact is None:
            if not self._done[full][position]:
                self._render_users(full, position, position + 1)
            block = self._turns[full][2 * position + 1].content[0]
            if self._hooked[full][position]:
                fact = _hook_fact(block)
            else:
                fact = _observation_fact(self.rendered[position], block, full, self.options.result_bytes)
            self._blocks[full][position] = fact
        return fact

    def result_fact(self, position: int, full: bool) -> MessageFact:
        """The fact of rendered step ``position``'s user turn in the given form."""
        fact = self._results[full][position]
        if fact is None:
            block = self.result_block(position, full)
            message = self._turns[full][2 * position + 1]
            fact = self._results[full][position] = MessageFact(
                message=message,
                turn="result",
                step=self.rendered[position].index,
                full=full,
                blocks=(block,),
                bytes=message_bytes(message),
            )
        return fact


def _shown(block: ContentBlock) -> int:
    return utf8_bytes(block.content if block.type == "tool_result" else block.text)


def _hook_fact(block: ContentBlock) -> BlockFact:
    return BlockFact(kind="hook", block=block, failed=block.is_error, shown_bytes=_shown(block))


def _assistant_fact(step: Step, block: ContentBlock) -> BlockFact:
    if block.type == "tool_use":
        return BlockFact(kind="tool_use", block=block)
    decision = step.decision
    blank = decision is None or not decision.reason or decision.reason.isspace()
    return BlockFact(kind="no_call" if blank else "reason", block=block, shown_bytes=utf8_bytes(block.text))


def _observation_fact(step: Step, block: ContentBlock, full: bool, max_bytes: int) -> BlockFact:
    """Name a block ``render.default_observation`` made, following its table row by row."""
    shown = _shown(block)
    decision = step.decision
    observation = step.observation
    if decision is None or decision.kind == "no_tool_call":
        return BlockFact(kind="nudge_no_tool_call", block=block, shown_bytes=shown)
    if decision.kind == "truncated":
        return BlockFact(kind="nudge_truncated", block=block, shown_bytes=shown)
    if not decision.calls:
        invalid = observation is not None and observation.status == "invalid_decision"
        return BlockFact(kind="nudge_invalid" if invalid else "nudge_no_tool_call", block=block, shown_bytes=shown)
    if observation is None or observation.interrupted:
        return BlockFact(kind="interrupted", block=block, shown_bytes=shown)
    if observation.status == "invalid_decision":
        return BlockFact(kind="nudge_invalid", block=block, failed=True, shown_bytes=shown)
    content_bytes = utf8_bytes(observation.content)
    if full:
        cut = content_bytes > max_bytes
        # the cut text ends with the 3-byte mark when the cap leaves room for it
        kept = shown - 3 if cut and max_bytes >= 3 else shown
        return BlockFact(
            kind="cut" if cut else "result",
            block=block,
            failed=block.is_error,
            cut=cut,
            shown_bytes=shown,
            content_bytes=content_bytes,
            hidden_bytes=content_bytes - kept,
        )
    summary = observation.summary
    return BlockFact(
        kind="summary",
        block=block,
        failed=block.is_error,
        cut=bool(summary) and block.content != summary,  # what the render sent, read off its block
        shown_bytes=shown,
        content_bytes=content_bytes,
        hidden_bytes=content_bytes,
    )


# ---------------------------------------------------------------------------- views


class Views:
    """The model's view at every step of one run under one ``Options``, from per-step renders.

    ``source`` is a ``Run`` (its steps, goal, run id and tools; ``options`` defaults to
    ``run.options()``) or a ``StepInput`` (then ``options`` is required). The view at step
    ``k`` is ``render.messages`` of the steps with an index below ``k``. Each step is
    rendered once in each form, the first time a view shows it in that form; ``at`` then
    only slices.

    ``system``, ``tools``, ``model`` and ``max_output_tokens`` are what ``View.replay_key``
    hashes with the messages. For a ``Run`` they default to the run's header: its system,
    model and ``max_output_tokens`` (0 when not recorded), and its tools as a request sends
    them (``read_only`` and any other field of the run file's own left out). So for a run whose
    header records what its agent sent, a view's key is the ``request_key`` the agent
    recorded, with no arguments beyond the options it rendered with.
    """

    def __init__(
        self,
        source: Run | StepInput,
        options: Options | None = None,
        *,
        system: str | None = None,
        tools: Sequence[Any] | None = None,
        model: str | None = None,
        max_output_tokens: int | None = None,
        _renders: _StepRenders | None = None,
    ) -> None:
        self.source = source
        """The run (or step input) the views are of."""
        if isinstance(source, StepInput):
            if options is None:
                raise ValueError("Views(step_input, options): a StepInput carries no opening, so options are required")
            self.run: Run | None = None
            steps, goal, run_id, offered = source.steps, source.goal, source.run_id, tuple(source.tools)
            self._end_index = source.index
        else:
            self.run = source
            options = source.options() if options is None else options
            steps, goal, run_id, offered = source.steps, source.goal, source.run_id, source.tools
            self._end_index = None
            system = source.system if system is None else system
            model = source.model if model is None else model
            if tools is None:
                tools = [_api_rules.wire_tool(tool) for tool in offered]
            if max_output_tokens is None:
                max_output_tokens = source.max_output_tokens
        if not isinstance(options, Options):
            raise TypeError(f"Views: options must be render.Options, got {type(options).__name__}")
        self.options: Options = options
        """The options every view is rendered with."""
        self.goal, self.run_id, self.tools = goal, run_id, offered
        self.system = system or ""
        self.request_tools = tuple(offered if tools is None else tools)
        self.model = model or ""
        self.max_output_tokens = max_output_tokens or 0
        self._renders = _renders if _renders is not None else _StepRenders(steps, options)
        self._openings: dict[int | None, tuple[Message, int]] = {}

    def with_options(self, **changes: Any) -> Views:
        """The same run under ``Options`` with ``changes``; a change of ``recent_results`` alone
        reuses every per-step render."""
        options = _replace_options(self.options, **changes)
        same = all(
            getattr(options, f.name) is getattr(self.options, f.name)
            for f in fields(Options)
            if f.name != "recent_results"
        )
        return Views(
            self.source,
            options,
            system=self.system,
            tools=self.request_tools,
            model=self.model,
            max_output_tokens=self.max_output_tokens,
            _renders=self._renders if same else None,
        )

    @property
    def steps(self) -> tuple[Step, ...]:
        """The run's steps, in index order."""
        return self._renders.steps

    @property
    def stops(self) -> tuple[int, ...]:
        """The steps a view can be taken at: each step's index, then one past the last.

        The last is the view after every recorded step (what the model would see next).
        """
        indices = self._renders.indices
        return (*indices, indices[-1] + 1) if indices else (0,)

    def step_input(self, at: int | None) -> StepInput:
        """The ``StepInput`` the view at ``at`` renders: the steps with an index below ``at``."""
        position = self._renders.position(at)
        index = self._end_index if at is None else at
        return StepInput(
            steps=self._renders.steps[:position], goal=self.goal, run_id=self.run_id, index=index, tools=self.tools
        )

    def _opening(self, at: int | None) -> tuple[Message, int]:
        """The opening message of the view at ``at``, and its bytes."""
        opening = self.options.opening
        key = at if callable(opening) else None
        cached = self._openings.get(key)
        if cached is None:
            text = opening(self.step_input(at)) if callable(opening) else opening
            message = new_message("user", (ContentBlock(type="text", text=render._check_opening(text)),))
            if len(self._openings) > 4096:
                self._openings.clear()
            cached = self._openings[key] = (message, message_bytes(message))
        return cached

    def messages(self, at: int | None = None) -> Messages:
        """The conversation the model saw deciding step ``at``: ``render.messages`` of it, by slicing."""
        rendered = self._rendered(at)
        cut = max(0, rendered - self.options.recent_results)
        summaries, fulls = self._renders.interleaved(rendered, cut)
        out = Messages((self._opening(at)[0],))
        out += summaries[: 2 * cut]
        out += fulls[2 * cut : 2 * rendered]
        return out

    def at(self, at: int | None = None) -> View:
        """The view at step ``at`` (``None``: after every step)."""
        return View(self, at)

    def previous_stop(self, at: int | None) -> int | None:
        """The stop before ``at``: the view a move to ``at`` comes from; ``None`` for the first."""
        stops = self.stops
        here = len(stops) - 1 if at is None else bisect_left(stops, at)
        return stops[here - 1] if here > 0 else None

    def _rendered(self, at: int | None) -> int:
        renders = self._renders
        return renders.rendered_before[renders.position(at)]

    def _bytes(self, at: int | None, recent_results: int) -> tuple[int, int]:
        """(message count, bytes as a compact JSON list) of the view at ``at`` under ``recent_results``."""
        rendered = self._rendered(at)
        total = self._opening(at)[1] + self._renders.sizes.steps(rendered, max(0, rendered - recent_results))
        count = 1 + 2 * rendered
        return count, _list_bytes(count, total)

    def change(self, at: int | None) -> Change:
        """What changed between the view at the stop before ``at`` and the view at ``at``."""
        previous = self.previous_stop(at)
        window = self.options.recent_results
        now = self._rendered(at)
        opening, opening_bytes = self._opening(at)
        if previous is None:
            _, size = self._bytes(at, window)
            return Change(
                previous=None,
                first_diff=0,
                prefix_bytes=0,
                resent_bytes=size,
                added_step=None,
                left_window=None,
                bytes_delta=size,
            )
        before = self._rendered(previous)
        previous_opening, previous_opening_bytes = self._opening(previous)
        first_diff, prefix, size, previous_size, left = self._diff(
            before, now, previous_opening_bytes, opening_bytes, previous_opening != opening
        )
        return Change(
            previous=previous,
            first_diff=first_diff,
            prefix_bytes=prefix,
            resent_bytes=size - prefix,
            added_step=self._renders.rendered[now - 1].index if now > before else None,
            left_window=left,
            bytes_delta=size - previous_size,
        )

    def _diff(
        self, before: int, now: int, old_opening: int, opening: int, opening_changed: bool
    ) -> tuple[int | None, int, int, int, int | None]:
        """From a view of ``before`` rendered steps to one of ``now``, from the sizes alone:
        (first differing message, prefix bytes, bytes, previous bytes, the step that left the window).

        A plain tuple, because the series asks this for every step and a frozen dataclass
        costs more to build than all of this arithmetic.
        """
        renders = self._renders
        sizes = renders.sizes
        window = self.options.recent_results
        old_cut, new_cut = max(0, before - window), max(0, now - window)
        count, previous_count = 1 + 2 * now, 1 + 2 * before
        size = _list_bytes(count, opening + sizes.steps(now, new_cut))
        previous_size = _list_bytes(previous_count, old_opening + sizes.steps(before, old_cut))
        first_diff: int | None = None
        left: int | None = None
        if opening_changed:
            first_diff = 0
        else:
            # Between adjacent stops one step is added at most, and one result leaves the window
            # at most; the first one whose summary differs from its full form breaks the prefix.
            for position in range(old_cut, min(new_cut, before)):
                if not sizes.same[position]:
                    first_diff = 2 + 2 * position
                    left = renders.rendered[position].index
                    break
            if first_diff is None and count != previous_count:
                first_diff = previous_count
        if first_diff is None:
            prefix = size
        elif first_diff == 0:
            prefix = 0
        else:
            whole = (first_diff - 1) // 2
            shared = opening + sizes.steps(whole, new_cut)
            if (first_diff - 1) % 2:
                shared += sizes.assistant[whole]
            # the list's "[" and the "," after each shared message
            prefix = min(size, 1 + shared + first_diff)
        return first_diff, prefix, size, previous_size, left

    def sizes(self) -> SizeSeries:
        """The size of the view at every stop, with and without the window, and its cacheable prefix."""
        renders = self._renders
        sizes = renders.sizes
        window = self.options.recent_results
        columns: dict[str, list[Any]] = {f.name: [] for f in fields(SizeSeries)}
        at_, messages_, bytes_, tokens_, no_window_, prefix_, resent_, diff_, left_ = columns.values()
        # Stop j is taken before steps[j], so its rendered count is rendered_before[j], no search needed.
        previous: int | None = None
        first_diff: int | None
        left: int | None
        before = 0
        old_message, old_opening = self._opening(self.stops[0])
        for at, now in zip(self.stops, renders.rendered_before, strict=True):
            message, opening = self._opening(at)
            count = 1 + 2 * now
            if previous is None:
                size = _list_bytes(count, opening + sizes.steps(now, max(0, now - window)))
                first_diff, prefix, left = 0, 0, None
            else:
                changed = message is not old_message and message != old_message
                first_diff, prefix, size, _, left = self._diff(before, now, old_opening, opening, changed)
            at_.append(at)
            messages_.append(count)
            bytes_.append(size)
            tokens_.append(approx_tokens(size))
            no_window_.append(_list_bytes(count, opening + sizes.full_sums[now]))
            prefix_.append(prefix)
            resent_.append(size - prefix)
            diff_.append(first_diff)
            left_.append(left)
            previous, before, old_message, old_opening = at, now, message, opening
        return SizeSeries(**{name: tuple(values) for name, values in columns.items()})


def _replace_options(options: Options, **changes: Any) -> Options:
    settings = {f.name: getattr(options, f.name) for f in fields(Options)}
    unknown = set(changes) - set(settings)
    if unknown:
        raise TypeError(f"Options has no field {sorted(unknown)[0]!r}")
    settings.update(changes)
    return Options(**settings)


class View:
    """The view at one step: the messages the model saw, what each is, and what it costs.

    Made by ``Views.at``; cheap to make, and every fact is computed when first asked for:
    the messages are sliced from per-step renders, and ``steps`` renders only what its
    facts are asked for.
    """

    def __init__(self, views: Views, at: int | None) -> None:
        self.views = views
        """The views of the run this one belongs to."""
        self.at = at
        """The step the view is taken at (``None``: after every step)."""

    @cached_property
    def messages(self) -> Messages:
        """Exactly ``render.messages(step_input, options)``."""
        return self.views.messages(self.at)

    @property
    def options(self) -> Options:
        """The options the view is rendered with."""
        return self.views.options

    @cached_property
    def step_input(self) -> StepInput:
        """The ``StepInput`` this view renders."""
        return self.views.step_input(self.at)

    @cached_property
    def opening(self) -> MessageFact:
        """The opening message and its fact."""
        message, size = self.views._opening(self.at)  # the message the view begins with, its bytes counted once
        block = message.content[0]
        return MessageFact(
            message=message,
            turn="opening",
            step=None,
            full=None,
            blocks=(BlockFact(kind="opening", block=block, shown_bytes=utf8_bytes(block.text)),),
            bytes=size,
        )

    def step_facts(self, start: int = 0, stop: int | None = None) -> tuple[StepFact, ...]:
        """The facts of the view's steps ``[start:stop]`` (as in ``steps``), rendered or skipped.

        Their user turns are rendered here, each in the form this view shows (what every reader
        of the facts asks for); their facts are made when first asked for.
        """
        renders = self.views._renders
        rendered_before, steps, ids = renders.rendered_before, renders.steps, renders.ids
        lo, hi, _ = slice(start, stop).indices(self.step_count)
        hi = max(lo, hi)
        first_full = self.rendered_count - self.full_count
        first, last = rendered_before[lo], rendered_before[hi]
        if first < first_full:
            renders.users(False, first, min(last, first_full))
        if last > max(first, first_full):
            renders.users(True, max(first, first_full), last)
        out = []
        for index in range(lo, hi):
            step = steps[index]
            before = rendered_before[index]
            if step.decision is None:
                out.append(StepFact(step=step, rendered=False, message_index=1 + 2 * before))
                continue
            out.append(
                StepFact(
                    step=step,
                    rendered=True,
                    message_index=1 + 2 * before,
                    tool_use_id=ids[before],
                    full=before >= first_full,
                    _renders=renders,
                )
            )
        return tuple(out)

    @cached_property
    def steps(self) -> tuple[StepFact, ...]:
        """Every step before ``at``, in order: rendered ones with their messages' facts, skipped ones
        marked ``rendered=False`` where they stand."""
        return self.step_facts()

    @property
    def step_count(self) -> int:
        """How many steps the view covers (rendered or skipped)."""
        return self.views._renders.position(self.at)

    @property
    def rendered_count(self) -> int:
        """How many of those steps are rendered (have a decision): two messages each after the opening."""
        return self.views._rendered(self.at)

    @property
    def full_count(self) -> int:
        """How many rendered steps show their result in full: the last ``recent_results`` of them."""
        return min(self.rendered_count, self.options.recent_results)

    @property
    def skipped(self) -> tuple[StepFact, ...]:
        """The steps before ``at`` with no decision: not part of the model's view."""
        return tuple(fact for fact in self.steps if not fact.rendered)

    @cached_property
    def _size(self) -> tuple[int, int]:
        return self.views._bytes(self.at, self.options.recent_results)

    @property
    def bytes(self) -> int:
        """UTF-8 bytes of the messages as a compact JSON list."""
        return self._size[1]

    @property
    def tokens(self) -> int:
        """``approx_tokens(bytes)``: a scale, not a count."""
        return approx_tokens(self.bytes)

    @cached_property
    def bytes_no_window(self) -> int:
        """The bytes this view would take with every result in full."""
        return self.views._bytes(self.at, NO_WINDOW)[1]

    @cached_property
    def replay_key(self) -> str:
        """``render.replay_key`` of the messages with the run's system, tools and model."""
        views = self.views
        return render.replay_key(
            self.messages,
            system=views.system,
            tools=views.request_tools,
            model=views.model,
            max_output_tokens=views.max_output_tokens,
        )

    @cached_property
    def recorded_keys(self) -> tuple[str, ...]:
        """The request keys the run recorded for model calls made deciding this step."""
        run = self.views.run
        if run is None or self.at is None:
            return ()
        return tuple(call.request_key for call in run.calls_for(self.at) if call.request_key)

    @cached_property
    def change(self) -> Change:
        """What changed since the view at the previous step."""
        return self.views.change(self.at)

    def _repr_html_(self) -> str:
        from agentrender import _html

        return _html.view_html(self)


# ---------------------------------------------------------------------------- decide

DECIDE_RULES: dict[str, str] = {
    "truncated": "the stop reason is max_tokens or model_context_window_exceeded: the reply was cut, "
    "so nothing runs (kind truncated)",
    "refusal": "the stop reason is refusal: kind no_tool_call, tool uses ignored",
    "tool_call": "the reply holds a tool use: the first one is the call (kind tool_call)",
    "no_tool_use": "the reply holds no tool use: kind no_tool_call",
}
"""The branches of ``render.decide``, in the order it tries them, with what each means."""

ARGS_OUTCOMES: dict[str, str] = {
    "value": "the input was a JSON value and is the arguments as given",
    "parsed": "the input was raw text and parsed as strict JSON",
    "empty": "the input was empty raw text: no arguments",
    "invalid_json": "the input was raw text that is not JSON: kept out of band in invalid_args",
    "invalid_base64": "the input was raw bytes that are not UTF-8: kept as base64 in invalid_args",
    "": "no call, so no arguments",
}
"""What ``render.decide`` did with the first tool use's input."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DecideExplanation:
    """Which rule of ``render.decide`` fired for a reply, and why the decision reads as it does."""

    response: ModelResponse
    """The reply."""
    decision: Decision
    """``render.decide(response)``."""
    rule: str
    """The branch that fired: a key of ``DECIDE_RULES``."""
    args: str
    """What happened to the call's input: a key of ``ARGS_OUTCOMES``."""
    text_bytes: int
    """UTF-8 bytes of the reply's text (its text blocks joined with newlines, stripped)."""
    tool_uses: tuple[str, ...]
    """The names of every tool use in the reply, in order."""
    not_executed: tuple[str, ...]
    """The tool uses after the first, which do not run (only on the tool_call branch)."""
    note: str
    """The note of unexecuted calls that ends the reason; ``""`` when there is none."""
    capped: bool
    """The reply's text was cut to fit the reason's ``REASON_BYTES`` cap (after the note)."""
    reason_budget: int
    """The bytes the text could take in the reason: ``REASON_BYTES`` less the note and a space."""

    @property
    def why(self) -> list[str]:
        """The explanation, one sentence a line."""
        lines = [f"{self.rule}: {DECIDE_RULES[self.rule]}."]
        if self.rule == "refusal" and self.tool_uses:
            lines.append(f"{len(self.tool_uses)} tool use(s) in the reply were not acted on.")
        if self.rule == "tool_call":
            lines.append(f"arguments: {ARGS_OUTCOMES[self.args]}.")
        if self.not_executed:
            lines.append(
                f"{len(self.not_executed)} further tool use(s) not executed ({', '.join(self.not_executed)}); "
                f"the reason ends with the note ({utf8_bytes(self.note)} bytes, at most {REASON_BYTES // 2})."
            )
        if self.capped:
            lines.append(
                f"the reply's text ({self.text_bytes} bytes) was cut to {self.reason_budget} bytes "
                f"to fit the {REASON_BYTES}-byte reason cap."
            )
        return lines


def explain_decide(response: ModelResponse) -> DecideExplanation:
    """Say which rule of ``render.decide`` turns ``response`` into its decision, and why."""
    decision = render.decide(response)
    text_bytes = utf8_bytes(render._reply_text(response))
    uses = tuple(block.name for block in response.content if block.type == "tool_use")
    note = ""
    not_executed: tuple[str, ...] = ()
    outcome = ""
    budget = REASON_BYTES
    # The rule is read off the decision decide made, so the explanation cannot drift from it.
    if decision.kind == "truncated":
        rule = "truncated"
    elif decision.kind == "tool_call":
        rule = "tool_call"
        first = next(block for block in response.content if block.type == "tool_use")
        raw = first.input
        if decision.invalid_base64:
            outcome = "invalid_base64"
        elif decision.invalid_args:
            outcome = "invalid_json"
        elif isinstance(raw, str | bytes | bytearray):
            outcome = "empty" if len(raw) == 0 else "parsed"
        else:
            outcome = "value"
        if len(uses) > 1:
            not_executed = uses[1:]
            note = render._not_executed_note(list(not_executed))
            budget = REASON_BYTES - utf8_bytes(note) - 1
    elif response.stop_reason == render.STOP_REFUSAL:
        rule = "refusal"
    else:
        rule = "no_tool_use"
    return DecideExplanation(
        response=response,
        decision=decision,
        rule=rule,
        args=outcome,
        text_bytes=text_bytes,
        tool_uses=uses,
        not_executed=not_executed,
        note=note,
        capped=text_bytes > budget,
        reason_budget=budget,
    )


def disagreements(decision: Decision, recorded: Decision | None) -> tuple[str, ...]:
    """The fields in which ``decision`` differs from the ``recorded`` one (all of them when none was)."""
    if recorded is None:
        return ("decision",)
    return tuple(f.name for f in fields(Decision) if getattr(decision, f.name) != getattr(recorded, f.name))
