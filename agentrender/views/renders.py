"""Each rendered step of a run, rendered once per form through the contract's own per-step calls.

``StepRenders`` renders a step's assistant turn once and its user turn in each form (full
and summary) the first time a view shows it in that form, through ``render.tool_use_id``,
``render.assistant_turn`` and ``render.user_turn``: the calls ``render.messages`` is a loop
over. Each call returns the rule of the contract that made the turn, and the facts of its
blocks are read off that rule (``KIND_OF_USER_RULE``), never worked out again here.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Sequence
from functools import cached_property
from itertools import accumulate, compress, islice
from operator import lt
from typing import Any

from agentrender import render
from agentrender._types import ContentBlock, Message, Step, utf8_bytes
from agentrender.render import Options
from agentrender.views.facts import BLOCK_KINDS, BlockFact, MessageFact
from agentrender.views.sizes import json_bytes, message_bytes

__all__ = ["KIND_OF_ASSISTANT_RULE", "KIND_OF_USER_RULE", "Form", "Sizes", "StepRenders"]

KIND_OF_ASSISTANT_RULE: dict[str, str] = {
    "reason_and_call": "reason",
    "reason": "reason",
    "no_tool_call": "no_call",
}
"""The kind of ``BLOCK_KINDS`` of a default assistant turn's text block, by the rule of
``render.ASSISTANT_RULES`` that made the turn (a ``tool_use`` block is always ``"tool_use"``)."""

KIND_OF_USER_RULE: dict[str, str] = {
    "hook": "hook",
    "no_tool_call": "nudge_no_tool_call",
    "not_a_call": "nudge_no_tool_call",
    "truncated": "nudge_truncated",
    "not_a_call_invalid": "nudge_invalid",
    "invalid_decision": "nudge_invalid",
    "interrupted": "interrupted",
    "full": "result",
    "full_cut": "cut",
    "summary": "summary",
    "summary_cut": "summary",
    "no_summary": "summary",
}
"""The kind of ``BLOCK_KINDS`` of a user turn's block, by the rule of ``render.USER_RULES`` that made it."""

assert set(KIND_OF_USER_RULE) == set(render.USER_RULES), "every rule of the contract names a kind of block"


class Sizes:
    """Message bytes of a run's rendered steps: ``summary_sums[p]`` is the bytes of the first
    ``p`` steps' two messages with the result as summary, ``full_sums[p]`` with it in full."""

    def __init__(self) -> None:
        self.assistant: list[int] = []
        self.same: list[bool] = []
        self.summary_sums = [0]
        self.full_sums = [0]

    def user(self, position: int, full: bool) -> int:
        """The bytes of step ``position``'s user turn, in full (``full``) or as summary."""
        sums = self.full_sums if full else self.summary_sums
        return sums[position + 1] - sums[position] - self.assistant[position]

    def steps(self, count: int, cut: int) -> int:
        """The bytes of the first ``count`` steps' messages when those before ``cut`` show summaries."""
        if count <= cut:
            return self.summary_sums[count]
        return self.summary_sums[cut] + self.full_sums[count] - self.full_sums[cut]


class Form:
    """A run's rendered steps with every user turn in one form (full, or summary), filled as views ask.

    ``turns`` is ``[A0, U0, A1, U1, ...]``: the assistant turns (the same in both forms) and
    each user turn once it is rendered; ``rules[p]`` is the rule that made step ``p``'s user
    turn (``""`` until it is rendered), and ``blocks``/``results`` the facts made of it.
    """

    def __init__(self, full: bool, n: int) -> None:
        self.full = full
        self.turns: list[Message | None] = [None] * (2 * n)
        self.rules = [""] * n
        self.blocks: list[BlockFact | None] = [None] * n
        self.results: list[MessageFact | None] = [None] * n

    def grow(self, kept: int, added: int) -> None:
        """Keep the first ``kept`` steps' turns and facts, and make room for ``added`` more, not rendered yet."""
        del self.turns[2 * kept :], self.rules[kept:], self.blocks[kept:], self.results[kept:]
        self.turns += [None] * (2 * added)
        self.rules += [""] * added
        self.blocks += [None] * added
        self.results += [None] * added


class StepRenders:
    """Each rendered step of a run, rendered once in each form it is asked for, for one set of options.

    Everything here is independent of ``recent_results``: the window only decides which of
    a step's two user turns a view shows, so views with different windows share this. A
    user turn is rendered the first time a view shows it in that form, so one view costs
    about one render (each step in the one form it shows there) and later views reuse it.
    """

    def __init__(self, steps: Sequence[Step], options: Options) -> None:
        self.options = options
        self.steps: list[Step] = []
        self.indices: list[int] = []
        # rendered_before[p]: how many of steps[:p] have a decision (and so are rendered)
        self.rendered_before = [0]
        self.rendered: list[Step] = []
        self.full_form, self.summary_form = Form(True, 0), Form(False, 0)
        self._assistant_facts: list[MessageFact | None] = []
        self._assistant_rules: list[str] = []
        self.growths = 0
        """How many times ``grow`` changed the steps: what a view's cache of them is checked against."""
        self.grow(0, steps)

    def grow(self, position: int, steps: Sequence[Step]) -> None:
        """Replace the steps from ``position`` on with ``steps``: a run that grew, or recorded its newest steps again.

        What was rendered of the steps before ``position`` is kept; so a run that grows by a
        step costs the render of that step, however long it is.
        """
        indices = [step.index for step in steps]
        if position:
            indices.insert(0, self.indices[position - 1])
        if not all(map(lt, indices, islice(indices, 1, None))):
            at = next(p for p in range(1, len(indices)) if indices[p] <= indices[p - 1])
            where = at + position - (1 if position else 0)
            raise ValueError(
                f"steps[{where}].index is {indices[at]}, not above steps[{where - 1}].index "
                f"{indices[at - 1]}: a run's steps must be in index order, each index once"
            )
        kept = self.rendered_before[position]
        self.growths += 1
        del self.steps[position:], self.indices[position:], self.rendered_before[position + 1 :]
        self.steps += steps
        self.indices += indices[1:] if position else indices
        decided = [step.decision is not None for step in steps]
        self.rendered_before += islice(accumulate(decided, initial=kept), 1, None)
        new = list(compress(steps, decided))
        del self.rendered[kept:]
        self.rendered += new
        for form in (self.full_form, self.summary_form):
            form.grow(kept, len(new))
        for cache in (self._assistant_facts, self._assistant_rules):
            del cache[kept:]
        self._assistant_facts += [None] * len(new)
        self._assistant_rules += [""] * len(new)
        made = self.__dict__
        if "ids" in made:
            del self.ids[kept:]
            self.ids.extend(render.tool_use_ids(new, self.options))
        if "ended" in made:
            del self.ended[kept:]
            self.ended.extend(self._ends(new))
        if "sizes" in made:
            self._measure(self.sizes, kept)

    @cached_property
    def ids(self) -> list[str]:
        """The ``tool_use`` id of every rendered step (``render.tool_use_id``)."""
        return render.tool_use_ids(self.rendered, self.options)

    @cached_property
    def ended(self) -> list[bool]:
        """For each rendered step: as sent, nothing answered its reply, so a view ending on it has no user turn
        for it (what the options' observation hook, or the object it is a method of, says in ``ends``)."""
        return self._ends(self.rendered)

    def _ends(self, rendered: Sequence[Step]) -> list[bool]:
        ends = getattr(getattr(self.options.observation, "__self__", None), "ends", None)
        if ends is None:
            return [False] * len(rendered)
        return [bool(ends(step)) for step in rendered]

    @property
    def assistant(self) -> tuple[list[Message], list[str]]:
        """Every rendered step's assistant turn and the rule that made it; the turns are put in both forms."""
        n = len(self.rendered)
        return self.assistants(0, n), self._assistant_rules

    def assistants(self, start: int, stop: int) -> list[Message]:
        """The assistant turns of rendered steps ``[start:stop]``, rendering those not yet rendered
        (into both forms: a step's assistant turn is the same in each)."""
        for first, end in _unrendered(self._assistant_rules, start, stop):
            self._render_assistants(first, end)
        return self.full_form.turns[2 * start : 2 * stop : 2]  # type: ignore[return-value]  # rendered just above

    def _render_assistants(self, start: int, stop: int) -> None:
        made = render.assistant_turns(self.rendered[start:stop], self.ids[start:stop], self.options)
        turns = [Message(role="assistant", content=blocks) for blocks, _ in made]
        self.full_form.turns[2 * start : 2 * stop : 2] = self.summary_form.turns[2 * start : 2 * stop : 2] = turns
        self._assistant_rules[start:stop] = [rule for _, rule in made]

    def form(self, full: bool) -> Form:
        """The steps with their user turns in full (``full``) or as summaries."""
        return self.full_form if full else self.summary_form

    def users(self, full: bool, start: int, stop: int) -> list[Message]:
        """The user turns of rendered steps ``[start:stop]`` in one form, rendering those not yet rendered."""
        form = self.form(full)
        if "" in form.rules[start:stop]:
            self._render_users(form, start, stop)
        return form.turns[2 * start + 1 : 2 * stop : 2]  # type: ignore[return-value]  # rendered just above

    def _render_users(self, form: Form, start: int, stop: int) -> None:
        rules = form.rules
        if not any(rules[start:stop]):  # the common case: a stretch never shown in this form
            self._render_stretch(form, start, stop)
            return
        for first, end in _unrendered(rules, start, stop):  # each stretch not yet rendered, in one call
            self._render_stretch(form, first, end)

    def _render_stretch(self, form: Form, start: int, stop: int) -> None:
        made = render.user_turns(self.rendered[start:stop], self.ids[start:stop], form.full, self.options)
        form.turns[2 * start + 1 : 2 * stop : 2] = [Message(role="user", content=blocks) for blocks, _ in made]
        form.rules[start:stop] = [rule for _, rule in made]

    def interleaved(self, rendered: int, cut: int, start: int = 0) -> tuple[list[Message], list[Message]]:
        """``[A0, U0, A1, U1, ...]`` with every user turn in summary form, and in full form, each
        filled for a view of the rendered steps ``[start:rendered]`` whose steps before ``cut`` show summaries."""
        self.assistants(start, rendered)  # puts the assistant turns in both forms
        self.users(False, start, max(start, cut))
        self.users(True, max(start, cut), rendered)
        return self.summary_form.turns, self.full_form.turns  # type: ignore[return-value]  # filled as asked

    @cached_property
    def sizes(self) -> Sizes:
        """The bytes of every rendered step's messages, summed, in each form."""
        return self._measure(Sizes(), 0)

    def _measure(self, sizes: Sizes, start: int) -> Sizes:
        """``sizes`` with the rendered steps from ``start`` on measured again (those before it kept)."""
        n = len(self.rendered)
        assistant = self.assistants(start, n)
        summary, full = self.users(False, start, n), self.users(True, start, n)
        del sizes.assistant[start:], sizes.same[start:], sizes.summary_sums[start + 1 :], sizes.full_sums[start + 1 :]
        s, f = sizes.summary_sums[-1], sizes.full_sums[-1]
        add_assistant, add_same = sizes.assistant.append, sizes.same.append
        add_summary, add_full = sizes.summary_sums.append, sizes.full_sums.append
        for a, uf, us in zip(assistant, full, summary, strict=True):
            a_bytes = message_bytes(a)
            full_bytes = message_bytes(uf)
            # A default user turn is one block: comparing its text first settles most steps cheaply.
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
            message = self.assistants(position, position + 1)[0]
            rule = self._assistant_rules[position]
            fact = self._assistant_facts[position] = MessageFact(
                message=message,
                turn="assistant",
                step=self.rendered[position].index,
                full=None,
                blocks=tuple(
                    _assistant_block_fact(block, rule, _hook_kind(self.options.assistant)) for block in message.content
                ),
                bytes=message_bytes(message),
            )
        return fact

    def result_block(self, position: int, full: bool) -> BlockFact:
        """The fact of the first block of rendered step ``position``'s user turn in the given form
        (its only block, unless a hook made the turn of several)."""
        return self.result_blocks(full, position, position + 1)[0]

    def result_blocks(self, full: bool, start: int, stop: int) -> list[BlockFact]:
        """``result_block`` of each rendered step ``[start:stop]`` in one form, made together where not made yet."""
        form = self.form(full)
        blocks = form.blocks
        if not all(blocks[start:stop]):
            users = self.users(full, start, stop)
            rendered, rules, options = self.rendered, form.rules, self.options
            for position, message in enumerate(users, start):
                if blocks[position] is None:
                    blocks[position] = _user_block_fact(
                        rendered[position], message.content[0], rules[position], options
                    )
        return blocks[start:stop]  # type: ignore[return-value]  # made just above

    def result_fact(self, position: int, full: bool) -> MessageFact:
        """The fact of rendered step ``position``'s user turn in the given form."""
        form = self.form(full)
        fact = form.results[position]
        if fact is None:
            first = self.result_block(position, full)
            message = self.users(full, position, position + 1)[0]
            rule = form.rules[position]
            hook = _hook_kind(self.options.observation)
            fact = form.results[position] = MessageFact(
                message=message,
                turn="result",
                step=self.rendered[position].index,
                full=full,
                blocks=(first, *(_hook_fact(block, rule, hook) for block in message.content[1:])),
                bytes=message_bytes(message),
            )
        return fact


def _shown(block: ContentBlock) -> int:
    """The bytes of what the block shows the model: a result's content, a tool use's input as JSON, else its text."""
    if block.type == "tool_use":
        return json_bytes(block.input)
    return utf8_bytes(block.content if block.type == "tool_result" else block.text)


def _hook_kind(hook: Any) -> str:
    """The kind of the blocks ``hook`` builds: ``"hook"``, or the kind of ``BLOCK_KINDS`` the hook (or the
    object it is a method of) names in its ``block_kind``.

    The hooks that replay an imported run's recorded turns (``runfile.sent.Sent``) name ``"as_sent"``.
    """
    kind = getattr(getattr(hook, "__self__", hook), "block_kind", "hook")
    return kind if kind in BLOCK_KINDS else "hook"


def _hook_fact(block: ContentBlock, rule: str, kind: str = "hook") -> BlockFact:
    return BlockFact(kind=kind, block=block, rule=rule, failed=block.is_error, shown_bytes=_shown(block))


def _assistant_block_fact(block: ContentBlock, rule: str, hook_kind: str = "hook") -> BlockFact:
    """A block of an assistant turn made by ``rule`` (a key of ``render.ASSISTANT_RULES``)."""
    if rule == "hook":
        return _hook_fact(block, rule, hook_kind)
    if block.type == "tool_use":
        return BlockFact(kind="tool_use", block=block, rule=rule)
    return BlockFact(kind=KIND_OF_ASSISTANT_RULE[rule], block=block, rule=rule, shown_bytes=utf8_bytes(block.text))


def _unrendered(rules: Sequence[str], start: int, stop: int) -> Iterator[tuple[int, int]]:
    """The stretches ``[first, end)`` of ``[start, stop)`` whose rule is still empty: the steps not yet rendered."""
    position = start
    while position < stop:
        if rules[position]:
            position += 1
            continue
        end = position + 1
        while end < stop and not rules[end]:
            end += 1
        yield position, end
        position = end


def _user_block_fact(step: Step, block: ContentBlock, rule: str, options: Options) -> BlockFact:
    """The block of a user turn made by ``rule`` (a key of ``render.USER_RULES``), with what the model
    did not see of the step's result."""
    kind = KIND_OF_USER_RULE[rule]
    if kind == "hook":
        kind = _hook_kind(options.observation)
    shown = _shown(block)
    if kind not in ("result", "cut", "summary"):
        return BlockFact(kind=kind, block=block, rule=rule, failed=block.is_error, shown_bytes=shown)
    observation = step.observation
    assert observation is not None  # a result or a summary is only rendered from an observation
    content_bytes = utf8_bytes(observation.content)
    if kind == "summary":
        hidden = content_bytes
    elif kind == "cut":
        # the cut text ends with the 3-byte mark when the cap leaves room for it
        hidden = content_bytes - (shown - 3 if options.result_bytes >= 3 else shown)
    else:
        hidden = 0
    return BlockFact(
        kind=kind,
        block=block,
        rule=rule,
        failed=block.is_error,
        cut=rule in ("full_cut", "summary_cut"),
        shown_bytes=shown,
        content_bytes=content_bytes,
        hidden_bytes=hidden,
    )
