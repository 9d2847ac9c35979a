"""The render contract: recorded steps into messages, and a model's reply into a decision.

``messages`` turns a run's steps into the conversation a model is shown before it decides
the next step (``wire_messages``: its wire form, made in one pass); ``decide`` turns the
model's reply back into a ``Decision``. Everything a
consumer may vary is an ``Options`` hook; everything else is fixed here, byte for byte,
so that the same run renders the same conversation in any process.

The numbers (``RECENT_RESULTS``, ``RESULT_BYTES``, ``REASON_BYTES``, ``NAME_BYTES``), the
stop reasons ``decide`` reads (``STOP_*``) and the exact sentences a model is shown
(``NUDGE_NO_TOOL_CALL``, ``NUDGE_TRUNCATED``, ``INTERRUPTED_TEXT``, ``NO_SUMMARY_TEXT``)
are constants of this module, so a custom hook can reuse them.

>>> from agentrender import Decision, Observation, Step, StepInput, render
>>> step = Step(index=0, decision=Decision(kind="tool_call", tool="ls"), observation=Observation(content="a.py"))
>>> conversation = render.messages(StepInput(steps=[step]), render.Options(opening="Tidy up."))
>>> [m.role for m in conversation]
['user', 'assistant', 'user']
>>> conversation[2].to_dict()
{'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 'step_0', 'content': 'a.py'}]}
"""

from __future__ import annotations

import base64
import hashlib
import operator
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate, compress, islice
from typing import Any, overload

import msgspec

from agentrender._json import MAX_DEPTH, NestingError, canonical, deep_canonical, strict_loads, too_deep, type_name
from agentrender._types import (
    FAILED_STATUSES,
    ContentBlock,
    Decision,
    Message,
    Messages,
    ModelResponse,
    Observation,
    Step,
    StepInput,
    utf8_bytes,
)

__all__ = [
    "ARGS_OUTCOMES",
    "ASSISTANT_RULES",
    "DECIDE_RULES",
    "INTERRUPTED_TEXT",
    "NAME_BYTES",
    "NO_SUMMARY_TEXT",
    "NUDGE_NO_TOOL_CALL",
    "NUDGE_TRUNCATED",
    "REASON_BYTES",
    "RECENT_RESULTS",
    "RESULT_BYTES",
    "STOP_CONTEXT_WINDOW_EXCEEDED",
    "STOP_END_TURN",
    "STOP_MAX_TOKENS",
    "STOP_REFUSAL",
    "STOP_TOOL_USE",
    "USER_RULES",
    "Breakpoint",
    "BreakpointsHook",
    "Conversation",
    "Decided",
    "DefaultParts",
    "Form",
    "Options",
    "Renderer",
    "ReplayKeys",
    "Turns",
    "args",
    "assistant_parts",
    "assistant_turn",
    "assistant_turns",
    "breakpoint_past",
    "decide",
    "decide_blocks",
    "decided",
    "default_observation",
    "default_parts",
    "invalid_nudge",
    "messages",
    "observation_and_rule",
    "observation_parts",
    "opening_blocks",
    "replay_key",
    "result_and_rule",
    "tool_use_id",
    "tool_use_ids",
    "truncate",
    "user_turn",
    "user_turns",
    "window_start",
    "wire_messages",
    "with_breakpoints",
]

RECENT_RESULTS = 6
"""How many of the last rendered steps show their result in full; earlier ones show the summary."""
RESULT_BYTES = 16384
"""The cap, in UTF-8 bytes, on any one result's content or summary as rendered."""
REASON_BYTES = 500
"""The cap, in UTF-8 bytes, on a decision's reason, applied by ``decide`` on every branch."""
NAME_BYTES = 64
"""The cap, in UTF-8 bytes, on each tool name in the note of tool calls that were not executed."""

STOP_TOOL_USE = "tool_use"
"""The model stopped to call a tool."""
STOP_END_TURN = "end_turn"
"""The model finished its turn; with no tool use, ``decide`` gives ``no_tool_call``."""
STOP_MAX_TOKENS = "max_tokens"
"""The reply hit the output token cap: ``decide`` gives ``truncated``."""
STOP_REFUSAL = "refusal"
"""The model refused: ``decide`` gives ``no_tool_call`` whatever tool uses came with it."""
STOP_CONTEXT_WINDOW_EXCEEDED = "model_context_window_exceeded"
"""The context window ran out while the model wrote: ``decide`` gives ``truncated``."""

NUDGE_NO_TOOL_CALL = "Your reply contained no executable tool call. Respond with exactly one tool call."
"""The user turn after a step whose decision called no tool."""
NUDGE_TRUNCATED = (
    "Your reply hit the output token cap before the tool call was complete, so nothing ran. "
    "Respond with exactly one short tool call."
)
"""The user turn after a step whose reply was cut by the output token cap (or the context window)."""
INTERRUPTED_TEXT = (
    "The process stopped while this tool was running, so its outcome is unknown. "
    "Call the tool again; it answers from its own record."
)
"""The re-request that stands for the result of a call that was interrupted (or has no observation)."""
NO_SUMMARY_TEXT = "(no summary)"
"""What a result outside the window shows when its tool wrote no summary."""

_NO_TOOL_CALL_TEXT = "(no tool call)"
_MARK = "…"
_MARK_BYTES = 3

Opening = "str | Sequence[ContentBlock]"
OpeningHook = Callable[[StepInput], "str | Sequence[ContentBlock]"]
ToolUseIDHook = Callable[[Step], str]
AssistantHook = Callable[[Step, str], "Sequence[ContentBlock] | None"]
ObservationHook = Callable[[Step, str, bool], "ContentBlock | Sequence[ContentBlock] | None"]
Breakpoint = tuple[int, int, Mapping[str, Any]]
"""A cache breakpoint: the index of a message, of a block in it, and the ``cache_control`` that block carries."""
BreakpointsHook = Callable[[StepInput], Sequence[Breakpoint]]
"""``Options.breakpoints``: the step input of a view -> the cache breakpoints its request carries."""


@dataclass(frozen=True, slots=True)
class Options:
    """How ``messages`` renders: the opening (required) and the hooks a consumer may set.

    Hooks fall back per step: a hook that returns ``None`` (or an empty list, or a block
    whose ``type`` is ``""``) leaves that one step to the default rendering.

    Three extensions of the seed's hooks let a recorded conversation render exactly as it was
    sent (``agentrender.imports``): the opening may be blocks rather than text (an image
    beside the task), the observation hook may return several blocks for a user turn
    (several tool results, or text beside them), and a ``breakpoints`` hook places the cache
    breakpoints each request carried (an agent moves them as it goes). None changes a render
    that uses text and one block and no breakpoints.
    """

    opening: str | Sequence[ContentBlock] | OpeningHook | None = None
    """The opening user message: text, its blocks, or a callable taking the ``StepInput`` and
    returning either. Required."""
    recent_results: int = RECENT_RESULTS
    """How many of the last rendered steps show their result in full."""
    result_bytes: int = RESULT_BYTES
    """The cap, in UTF-8 bytes, on each rendered content or summary."""
    tool_use_id: ToolUseIDHook | None = None
    """``(step) -> id``; an empty string falls back to ``step_<index>``."""
    assistant: AssistantHook | None = None
    """``(step, id) -> blocks`` for the assistant turn; ``None`` or ``[]`` falls back."""
    observation: ObservationHook | None = None
    """``(step, id, full) -> block`` (or blocks) for the user turn; ``None``, ``[]`` or a ``type=""``
    block falls back."""
    breakpoints: BreakpointsHook | None = None
    """``(step_input) -> [(message, block, cache_control), ...]``: the cache breakpoints the conversation is sent
    with, each the last field of a block (``with_breakpoints``); one past the messages is left out. ``Renderer``
    takes none."""

    @property
    def step_hooks(self) -> bool:
        """Whether a hook renders steps (``tool_use_id``, ``assistant`` or ``observation`` is set)."""
        return self.tool_use_id is not None or self.assistant is not None or self.observation is not None

    def __post_init__(self) -> None:
        if self.opening is None:
            raise ValueError("Options.opening is required: a renderer with no domain text is a bug, not a default")
        if isinstance(self.opening, str | list | tuple):
            _check_opening(self.opening)
        elif not callable(self.opening):
            raise ValueError(f"Options.opening: expected text or a callable, got {type(self.opening).__name__}")
        if self.recent_results < 0:
            raise ValueError(f"Options.recent_results must be 0 or more, got {self.recent_results}")
        if self.result_bytes < 0:
            raise ValueError(f"Options.result_bytes must be 0 or more, got {self.result_bytes}")


def _check_opening(opening: object) -> tuple[ContentBlock, ...]:
    """The opening as the blocks of its message; ``ValueError`` when it is missing, blank or of another type."""
    if isinstance(opening, str):
        if not opening.strip():
            raise ValueError("Options.opening: the opening text is empty")
        return (ContentBlock(type="text", text=opening),)
    if isinstance(opening, list | tuple) and all(isinstance(block, ContentBlock) for block in opening):
        if not opening:
            raise ValueError("Options.opening: the opening has no blocks")
        return tuple(opening)
    raise ValueError(f"Options.opening: expected the opening text or its blocks, got {type(opening).__name__}")


def messages(step_input: StepInput, options: Options) -> list[Message]:
    """Render the conversation a model sees before deciding the next step.

    The opening as one user message, then two messages per rendered step (a step with a
    recorded decision), oldest first: the assistant turn (the reason and the ``tool_use``
    block) and the user turn (the result, or a nudge). The last ``options.recent_results``
    rendered steps show their content in full, earlier ones their summary (``window_start``);
    both are capped at ``options.result_bytes``. Raises ``ValueError`` when the opening is
    missing or blank.

    It is a loop over ``tool_use_id``, ``assistant_turn`` and ``user_turn``: the same three
    calls every instrument makes to learn what a step rendered as, and which rule made it
    (``Turns`` keeps what they made, for a conversation that grows and for the views). With
    no step hook set, it builds what the last two fall back to (the default turns) itself, from
    one call a step of their rules, ``default_parts``.
    """
    out = Messages((Message(role="user", content=opening_blocks(step_input, options)),))
    rendered = [step for step in step_input.steps if step.decision is not None]
    first_full = window_start(len(rendered), options.recent_results)
    ids = tool_use_ids(rendered, options)
    append = out.append
    # The steps before the window, then those in it: each stretch in one loop, with no test per step of which it is
    stretches = ((False, 0, first_full), (True, first_full, len(rendered)))
    if options.step_hooks:
        for full, start, stop in stretches:
            for step, step_id in zip(rendered[start:stop], ids[start:stop], strict=True):
                append(Message(role="assistant", content=assistant_turn(step, step_id, options)[0]))
                append(Message(role="user", content=user_turn(step, step_id, full, options)[0]))
        if options.breakpoints is not None:
            return with_breakpoints(out, options.breakpoints(step_input))
        return out
    # No hook: the default turns, built from one call of their rules a step (bench/bench_render.py)
    max_bytes = options.result_bytes
    for full, start, stop in stretches:
        for step, step_id in zip(rendered[start:stop], ids[start:stop], strict=True):
            text, tool, value, _, block_type, shown, _, failed = default_parts(step, full, max_bytes)
            append(Message(role="assistant", content=_assistant_blocks(text, tool, value, step_id)))
            append(Message(role="user", content=(_user_block(block_type, shown, failed, step_id),)))
    if options.breakpoints is not None:
        return with_breakpoints(out, options.breakpoints(step_input))
    return out


def breakpoint_past(messages: Sequence[Message], index: int, position: int) -> str:
    """Which index of a breakpoint on block ``position`` of message ``index`` is past ``messages``.

    ``"message"``: no such message; ``"block"``: no such block in it; ``""``: neither, ``with_breakpoints`` places it.
    """
    if index >= len(messages):
        return "message"
    return "block" if position >= len(messages[index].content) else ""


def with_breakpoints(messages: Sequence[Message], breakpoints: Sequence[Breakpoint]) -> Messages:
    """``messages`` with each of ``breakpoints`` (message, block, ``cache_control``) placed as its block's last field.

    A breakpoint past the messages, or past its message's blocks, is left out (``breakpoint_past``). Each message it
    changes is a copy; the others are the ones given."""
    out = Messages(messages)
    for index, position, control in breakpoints:
        if breakpoint_past(out, index, position):
            continue
        message = out[index]
        blocks = list(message.content)
        wire = blocks[position].to_dict()
        wire.pop("cache_control", None)
        wire["cache_control"] = control
        blocks[position] = ContentBlock.from_dict(wire)
        out[index] = Message(role=message.role, content=tuple(blocks))
    return out


def wire_messages(step_input: StepInput, options: Options) -> list[dict[str, Any]]:
    """``[message.to_dict() for message in messages(step_input, options)]``, made in one pass: what an agent sends.

    The conversation as the Messages API's ``messages`` takes it, for a caller that keeps no
    ``Message``. With no step hook set, each step's turns are made as wire dicts straight from the
    contract's rules (``default_parts``), with no block, message or tuple of blocks between: seven
    dicts and lists a step, where the ``Message``s and their wire forms make nine (bench/bench_render.py).
    With a step hook set, ``messages``' wire form.
    """
    if options.step_hooks or options.breakpoints is not None:
        return [message.to_dict() for message in messages(step_input, options)]
    out = [Message(role="user", content=opening_blocks(step_input, options)).to_dict()]
    rendered = [step for step in step_input.steps if step.decision is not None]
    first_full = window_start(len(rendered), options.recent_results)
    ids = tool_use_ids(rendered, options)
    max_bytes = options.result_bytes
    append = out.append
    content: list[dict[str, Any]]
    block: dict[str, Any]
    # The blocks' wire shapes are ContentBlock.to_dict's: a property test holds the two together
    for full, start, stop in ((False, 0, first_full), (True, first_full, len(rendered))):
        for step, step_id in zip(rendered[start:stop], ids[start:stop], strict=True):
            text, tool, value, _, block_type, shown, _, failed = default_parts(step, full, max_bytes)
            if not tool:
                content = [{"type": "text", "text": text}]
            else:
                use = {"type": "tool_use", "id": step_id, "name": tool, "input": value}
                content = [{"type": "text", "text": text}, use] if text else [use]
            append({"role": "assistant", "content": content})
            if block_type == "text":
                block = {"type": "text", "text": shown}
            elif failed:
                block = {"type": "tool_result", "tool_use_id": step_id, "content": shown, "is_error": True}
            else:
                block = {"type": "tool_result", "tool_use_id": step_id, "content": shown}
            append({"role": "user", "content": [block]})
    return out


def window_start(rendered: int, recent_results: int) -> int:
    """The window rule: of ``rendered`` rendered steps, the position of the first whose result shows in full.

    The last ``recent_results`` rendered steps show their result in full and the ones before
    them their summary. Every render places the window through this one function:
    ``messages``, ``Renderer``, and the views of a run at each of its steps (``agentrender.views``).
    """
    return rendered - recent_results if rendered > recent_results else 0


class Form:
    """A run's rendered steps with every user turn in one form (in full, or as its summary), filled as asked.

    ``turns`` is ``[A0, U0, A1, U1, ...]``: each step's assistant turn (the same in both forms)
    and its user turn in this form, ``None`` until rendered; ``rules[p]`` is the rule of
    ``USER_RULES`` that made step ``p``'s user turn (``""`` until it is rendered).
    """

    __slots__ = ("full", "rules", "turns")

    def __init__(self, full: bool) -> None:
        self.full = full
        self.turns: list[Message | None] = []
        self.rules: list[str] = []

    def grow(self, kept: int, added: int) -> None:
        """Keep the first ``kept`` steps' turns, and make room for ``added`` more, not rendered yet."""
        del self.turns[2 * kept :], self.rules[kept:]
        self.turns += [None] * (2 * added)
        self.rules += [""] * added


class Turns:
    """Each rendered step of a run, its turns rendered once in each form asked for: the contract's per-step cache.

    A step's assistant turn is rendered once, and its user turn once in each form (in full,
    as its summary) the first time a conversation shows it in that form, through the calls
    ``messages`` is a loop over (``tool_use_id``, ``assistant_turn``, ``user_turn``), each
    kept with the rule that made it. Nothing here depends on ``recent_results``: a
    conversation of the first ``n`` rendered steps is the summary form's turns before
    ``window_start(n, recent_results)`` and the full form's after it, so conversations with
    different windows, or at different steps, share these renders. ``Renderer`` grows it a
    step at a time; the views of a run (``agentrender.views``) grow it as a followed run grows.
    """

    def __init__(self, options: Options, steps: Sequence[Step] = ()) -> None:
        self.options = options
        self.steps: list[Step] = []
        """Every step taken, rendered or skipped, in order."""
        self.rendered: list[Step] = []
        """The steps with a decision, in order: the ones a conversation shows."""
        self.ids: list[str] = []
        """The ``tool_use`` id of each rendered step (``tool_use_id``)."""
        self.rendered_before = [0]
        """``rendered_before[p]``: how many of ``steps[:p]`` are rendered."""
        self.assistant_rules: list[str] = []
        """The rule of ``ASSISTANT_RULES`` that made each rendered step's assistant turn (``""``: not rendered yet)."""
        self.full_form, self.summary_form = Form(True), Form(False)
        self.growths = 0
        """How many times the steps changed: what a cache of them is checked against."""
        if steps:
            self.grow(0, steps)

    def grow(self, position: int, steps: Sequence[Step]) -> None:
        """Replace the steps from ``position`` on with ``steps``: a run that grew, or recorded its newest steps again.

        What was rendered of the steps before ``position`` is kept; so a run that grows by a
        step costs the render of that step, however long it is.
        """
        kept = self.rendered_before[position]
        self.growths += 1
        del self.steps[position:], self.rendered_before[position + 1 :], self.rendered[kept:], self.ids[kept:]
        del self.assistant_rules[kept:]
        self.steps += steps
        decided = [step.decision is not None for step in steps]
        self.rendered_before += islice(accumulate(decided, initial=kept), 1, None)
        new = list(compress(steps, decided))
        self.rendered += new
        self.ids += tool_use_ids(new, self.options)
        self.assistant_rules += [""] * len(new)
        for form in (self.full_form, self.summary_form):
            form.grow(kept, len(new))

    def add(self, step: Step, full: bool) -> int | None:
        """Take ``step`` after the others (``grow`` at the end by one step) and render it in one form at once, for
        a conversation that grows a step at a time: its place among the rendered steps, or ``None`` when it has
        no decision (it is skipped, and takes no place in the window)."""
        self.growths += 1
        self.steps.append(step)
        position = len(self.rendered)
        if step.decision is None:
            self.rendered_before.append(position)
            return None
        self.rendered.append(step)
        self.rendered_before.append(position + 1)
        options = self.options
        step_id = tool_use_id(step, options)
        self.ids.append(step_id)
        if options.assistant is not None or options.observation is not None:
            blocks, rule = assistant_turn(step, step_id, options)
            assistant = Message(role="assistant", content=blocks)
            self.assistant_rules.append(rule)
            blocks, rule = user_turn(step, step_id, full, options)
            user = Message(role="user", content=blocks)
        else:  # the default turns, built from one call of their rules, as messages builds them
            text, tool, value, assistant_rule, block_type, said, rule, failed = default_parts(
                step, full, options.result_bytes
            )
            assistant = Message(role="assistant", content=_assistant_blocks(text, tool, value, step_id))
            self.assistant_rules.append(assistant_rule)
            user = Message(role="user", content=(_user_block(block_type, said, failed, step_id),))
        shown, other = (self.full_form, self.summary_form) if full else (self.summary_form, self.full_form)
        shown.turns += (assistant, user)
        shown.rules.append(rule)
        other.turns += (assistant, None)
        other.rules.append("")
        return position

    def form(self, full: bool) -> Form:
        """The steps with their user turns in full (``full``) or as summaries."""
        return self.full_form if full else self.summary_form

    def render(self, position: int, full: bool) -> None:
        """Render rendered step ``position`` in one form, alone: its assistant turn unless it has one, and its
        user turn in that form unless it has it; for a conversation that grows a step at a time."""
        if not self.assistant_rules[position]:
            blocks, rule = assistant_turn(self.rendered[position], self.ids[position], self.options)
            message = Message(role="assistant", content=blocks)
            self.full_form.turns[2 * position] = self.summary_form.turns[2 * position] = message
            self.assistant_rules[position] = rule
        form = self.full_form if full else self.summary_form
        if not form.rules[position]:
            self._render_user(form, position)

    def leave(self, position: int) -> None:
        """Rendered step ``position`` left the window of a conversation that grows a step at a time: it shows its
        summary from now on (rendered unless it is), and never again its result in full, which is let go of: the
        conversations given keep their window's full turns themselves."""
        if not self.summary_form.rules[position]:
            self._render_user(self.summary_form, position)
        full = self.full_form
        full.turns[2 * position + 1] = None
        full.rules[position] = ""

    def _render_user(self, form: Form, position: int) -> None:
        """Render rendered step ``position``'s user turn in ``form``: with no observation hook, the default block
        (``observation_and_rule``) without ``user_turn``'s layers around it."""
        step, step_id, options = self.rendered[position], self.ids[position], self.options
        if options.observation is None:
            block, rule = observation_and_rule(step, step_id, form.full, options.result_bytes)
            blocks: tuple[ContentBlock, ...] = (block,)
        else:
            blocks, rule = user_turn(step, step_id, form.full, options)
        form.turns[2 * position + 1] = Message(role="user", content=blocks)
        form.rules[position] = rule

    def assistants(self, start: int, stop: int) -> list[Message]:
        """The assistant turns of rendered steps ``[start:stop]``, rendering those not yet rendered
        (into both forms: a step's assistant turn is the same in each)."""
        for first, end in _unrendered(self.assistant_rules, start, stop):
            made = assistant_turns(self.rendered[first:end], self.ids[first:end], self.options)
            turns = [Message(role="assistant", content=blocks) for blocks, _ in made]
            self.full_form.turns[2 * first : 2 * end : 2] = self.summary_form.turns[2 * first : 2 * end : 2] = turns
            self.assistant_rules[first:end] = [rule for _, rule in made]
        return self.full_form.turns[2 * start : 2 * stop : 2]  # type: ignore[return-value]  # rendered just above

    def users(self, full: bool, start: int, stop: int) -> list[Message]:
        """The user turns of rendered steps ``[start:stop]`` in one form, rendering those not yet rendered."""
        form = self.form(full)
        if "" in form.rules[start:stop]:
            for first, end in _unrendered(form.rules, start, stop):  # each stretch not yet rendered, in one call
                made = user_turns(self.rendered[first:end], self.ids[first:end], full, self.options)
                form.turns[2 * first + 1 : 2 * end : 2] = [Message(role="user", content=blocks) for blocks, _ in made]
                form.rules[first:end] = [rule for _, rule in made]
        return form.turns[2 * start + 1 : 2 * stop : 2]  # type: ignore[return-value]  # rendered just above

    def interleaved(self, rendered: int, cut: int, start: int = 0) -> tuple[list[Message], list[Message]]:
        """``[A0, U0, A1, U1, ...]`` with every user turn in summary form, and in full form, each filled for a
        conversation of the rendered steps ``[start:rendered]`` whose steps before ``cut`` show summaries."""
        middle = max(start, cut)
        self._default_turns(start, middle, False)
        self._default_turns(middle, rendered, True)
        self.assistants(start, rendered)  # puts the assistant turns in both forms
        self.users(False, start, middle)
        self.users(True, middle, rendered)
        return self.summary_form.turns, self.full_form.turns  # type: ignore[return-value]  # filled as asked

    def _default_turns(self, start: int, stop: int, full: bool) -> None:
        """Render both turns of rendered steps ``[start:stop]``, the user turn in one form, from one call of their
        rules a step (``default_parts``), when no hook renders them and none of them is rendered yet: a first view.
        """
        options, form = self.options, self.form(full)
        if options.assistant is not None or options.observation is not None:
            return
        if any(self.assistant_rules[start:stop]) or any(form.rules[start:stop]):
            return  # the turns asked for one at a time fill what is left (assistants, users)
        parts = [default_parts(step, full, options.result_bytes) for step in self.rendered[start:stop]]
        ids = self.ids[start:stop]
        self.full_form.turns[2 * start : 2 * stop : 2] = self.summary_form.turns[2 * start : 2 * stop : 2] = [
            Message(role="assistant", content=_assistant_blocks(text, tool, value, step_id))
            for (text, tool, value, _, _, _, _, _), step_id in zip(parts, ids, strict=True)
        ]
        form.turns[2 * start + 1 : 2 * stop : 2] = [
            Message(role="user", content=(_user_block(block_type, shown, failed, step_id),))
            for (_, _, _, _, block_type, shown, _, failed), step_id in zip(parts, ids, strict=True)
        ]
        self.assistant_rules[start:stop] = [made[3] for made in parts]
        form.rules[start:stop] = [made[6] for made in parts]


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


class Renderer:
    """The contract one step at a time, for a conversation that grows: an agent loop, a run being followed.

    ``append(step)`` takes the next step of the run and gives the conversation a model sees
    after it: exactly ``messages(StepInput(steps so far), options)`` (with ``template``'s other
    fields), window and cap included. The steps are kept in a ``Turns``, the per-step cache
    the views of a run use too: each step is rendered once, and its user turn once more, as
    its summary, when it leaves the window (``window_start``). What an ``append`` gives is a
    ``Conversation``: a snapshot that later steps do not change, made without copying, so the
    work of an ``append`` does not grow with the run. An opening given as a callable is called
    again at each step with the ``StepInput`` so far, as ``messages`` would call it; its steps
    are a snapshot too, not a copy.
    """

    __slots__ = ("_hook", "_opening", "_text", "options", "template", "turns")

    def __init__(self, options: Options, template: StepInput | None = None) -> None:
        if options.breakpoints is not None:
            raise ValueError("Renderer: options with a breakpoints hook render with messages(), not a step at a time")
        self.options = options
        self.template = template if template is not None else StepInput()
        """The ``StepInput`` whose fields other than ``steps`` (goal, run id, tools) the renders are made with."""
        self.turns = Turns(options)
        """The steps taken so far and their turns."""
        opening = options.opening
        self._hook = opening if callable(opening) else None
        """The opening's hook, called again at each step; ``None`` for an opening given as text or blocks."""
        self._opening = Message(role="user", content=opening_blocks(self.step_input(), options))
        self._text: str | None = None
        """The text the opening's hook gave last, whose message ``_opening`` is (``None``: none yet, or blocks)."""

    def step_input(self) -> StepInput:
        """The ``StepInput`` of the steps taken so far (its steps a snapshot of them, not a copy)."""
        steps = self.turns.steps
        return msgspec.structs.replace(self.template, steps=_Prefix(steps, len(steps)))

    @property
    def steps(self) -> tuple[Step, ...]:
        """The steps taken so far, in order."""
        return tuple(self.turns.steps)

    def append(self, step: Step) -> Conversation:
        """Take ``step``, the run's next, and give the conversation after it."""
        self._take(step)
        if self._hook is not None:
            self._open(self._hook(self.step_input()))
        return self.messages()

    def conversation(self, step_input: StepInput) -> Conversation:
        """``messages(step_input, options)``, rendering only the steps not taken yet.

        ``step_input.steps`` must begin with the steps taken so far (``ValueError`` when they do not:
        start a new ``Renderer`` for another run); its other fields become the ``template``.
        """
        taken_steps = self.turns.steps
        taken = len(taken_steps)
        steps = step_input.steps
        if len(steps) < taken or (
            taken and steps[taken - 1] is not taken_steps[-1] and steps[taken - 1] != taken_steps[-1]
        ):
            raise ValueError(f"Renderer.conversation: the steps do not extend the {taken} step(s) taken so far")
        self.template = step_input  # its steps are not read: step_input() puts the steps taken in their place
        for step in steps[taken:]:
            self._take(step)
        if self._hook is not None:
            self._open(self._hook(step_input))
        return self.messages()

    def messages(self) -> Conversation:
        """The conversation after the steps taken so far."""
        turns = self.turns
        count = len(turns.rendered)
        cut = window_start(count, self.options.recent_results)
        window = turns.full_form.turns[2 * cut + 1 : 2 * count : 2]  # a new list: the few turns it holds
        return Conversation(self._opening, turns.summary_form.turns, window, count, cut)  # type: ignore[arg-type]

    def _open(self, given: object) -> None:
        """The opening made of what the opening's hook ``given`` at this step. The same text as the step before keeps
        its message: a fixed opening given by a hook (instructions and the task), the common case, is checked and made
        once."""
        if not (isinstance(given, str) and given == self._text):
            self._opening = Message(role="user", content=_check_opening(given))
            self._text = given if isinstance(given, str) else None

    def _take(self, step: Step) -> None:
        turns = self.turns
        rendered = len(turns.rendered) + 1  # with this step, if it is rendered
        cut = window_start(rendered, self.options.recent_results)
        if turns.add(step, rendered > cut) is not None and cut:
            turns.leave(cut - 1)  # the step this one pushed out of the window


class _Prefix(Sequence[Step]):
    """The first ``length`` items of a list that only grows at its end: a snapshot of it made without copying.

    Compares equal to any sequence of the same items, a tuple included.
    """

    __slots__ = ("_items", "_length")

    def __init__(self, items: list[Step], length: int) -> None:
        self._items, self._length = items, length

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, at: int) -> Step: ...
    @overload
    def __getitem__(self, at: slice) -> list[Step]: ...
    def __getitem__(self, at: int | slice) -> Step | list[Step]:
        if isinstance(at, slice):
            return self._items[slice(*at.indices(self._length))]
        index = at + self._length if at < 0 else at
        if not 0 <= index < self._length:
            raise IndexError("steps index out of range")
        return self._items[index]

    def __iter__(self) -> Iterator[Step]:
        return islice(self._items, self._length)

    def __eq__(self, other: object) -> bool:
        return _same_sequence(self, other)

    __hash__ = None  # type: ignore[assignment]  # a sequence that compares by content is not hashable

    def __repr__(self) -> str:
        return f"_Prefix({list(self)!r})"


def _same_sequence(mine: Sequence[Any], other: object) -> bool:
    """``mine == other`` for a snapshot: the same items in order (``NotImplemented`` for a non-sequence)."""
    if not isinstance(other, Sequence) or isinstance(other, str | bytes):
        return NotImplemented  # type: ignore[no-any-return]  # what __eq__ gives for another type
    return len(mine) == len(other) and all(a == b for a, b in zip(mine, other, strict=True))


class Conversation(Sequence[Message]):
    """The conversation a ``Renderer`` gave after some step: its messages, as ``messages`` would give them.

    A snapshot: the opening, then the ``Turns``' summary form up to the window
    (``window_start``), then each step in the window with its result in full, those few turns
    held here. The renderer's later steps add to the list it reads, and never change the
    part of it it shows. Compares equal to any sequence of the same messages, a list included.
    """

    __slots__ = ("_cut", "_opening", "_steps", "_summary", "_window")

    def __init__(self, opening: Message, summary: list[Message], window: list[Message], steps: int, cut: int) -> None:
        self._opening, self._summary, self._window = opening, summary, window
        self._steps, self._cut = steps, cut

    def __len__(self) -> int:
        return 1 + 2 * self._steps

    @overload
    def __getitem__(self, at: int) -> Message: ...
    @overload
    def __getitem__(self, at: slice) -> list[Message]: ...
    def __getitem__(self, at: int | slice) -> Message | list[Message]:
        if isinstance(at, slice):
            return [self[i] for i in range(*at.indices(len(self)))]
        length = len(self)
        index = at + length if at < 0 else at
        if not 0 <= index < length:
            raise IndexError("conversation index out of range")
        if index == 0:
            return self._opening
        position, user = divmod(index - 1, 2)
        if user and position >= self._cut:
            return self._window[position - self._cut]
        return self._summary[index - 1]  # an assistant turn, or a user turn before the window

    def __iter__(self) -> Iterator[Message]:
        yield self._opening
        cut, summary = self._cut, self._summary
        yield from islice(summary, 2 * cut)
        for position, full in enumerate(self._window, start=cut):
            yield summary[2 * position]
            yield full

    def __eq__(self, other: object) -> bool:
        return _same_sequence(self, other)

    __hash__ = None  # type: ignore[assignment]  # a sequence that compares by content is not hashable

    def __repr__(self) -> str:
        return f"Conversation({list(self)!r})"

    def _repr_html_(self) -> str:
        return Messages(self)._repr_html_()


def opening_blocks(step_input: StepInput, options: Options) -> tuple[ContentBlock, ...]:
    """The blocks of the opening user message: ``options.opening``, or what its hook returns.

    Text becomes one text block; a hook is called with ``step_input``. Raises ``ValueError``
    when the opening is missing or blank.
    """
    opening = options.opening
    return _check_opening(opening(step_input) if callable(opening) else opening)


def tool_use_id(step: Step, options: Options) -> str:
    """The id a step's ``tool_use`` block carries and its ``tool_result`` answers.

    ``options.tool_use_id(step)`` when that hook is set and returns a non-empty string,
    else ``step_<index>``: stable for a given step whichever process renders it.
    """
    hook = options.tool_use_id
    if hook is not None:
        chosen = hook(step)
        if chosen:
            return chosen
    return f"step_{step.index}"


ASSISTANT_RULES: dict[str, str] = {
    "hook": "Options.assistant built the turn",
    "reason_and_call": "a call: the reason as text, then the tool_use block",
    "call": "a call with a blank reason: the tool_use block alone",
    "reason": "not a call: the reason as text",
    "no_tool_call": "not a call and a blank reason: '(no tool call)'",
}
"""How an assistant turn was made, each rule with what it means: the second item of ``assistant_turn``."""


def assistant_turn(step: Step, tool_use_id: str, options: Options) -> tuple[tuple[ContentBlock, ...], str]:
    """A rendered step's assistant turn, and the rule of ``ASSISTANT_RULES`` that made it.

    ``options.assistant(step, tool_use_id)`` when that hook is set and returns blocks; else
    the default: for a call, the reason as text (when not blank) and then the ``tool_use``
    block; otherwise one text block, the reason or ``"(no tool call)"``.
    """
    hook = options.assistant
    if hook is not None:
        custom = hook(step, tool_use_id)
        blocks = tuple(custom) if custom is not None else ()
        if blocks:
            return blocks, "hook"
    return _default_assistant_turn(step, tool_use_id)


def _default_assistant_turn(step: Step, tool_use_id: str) -> tuple[tuple[ContentBlock, ...], str]:
    text, tool, value, rule, _, _, _, _ = default_parts(step, False, RESULT_BYTES)
    if not rule:
        raise _not_rendered(step)
    return _assistant_blocks(text, tool, value, tool_use_id), rule


def _assistant_blocks(text: str, tool: str, value: Any, tool_use_id: str) -> tuple[ContentBlock, ...]:
    """The default assistant turn's blocks, from ``default_parts``' first three items and the step's id."""
    if not tool:
        return (ContentBlock(type="text", text=text),)
    use = ContentBlock(type="tool_use", tool_use_id=tool_use_id, name=tool, input=value)
    return (ContentBlock(type="text", text=text), use) if text else (use,)


def _not_rendered(step: Step) -> ValueError:
    """The error for the assistant turn of a step with no decision (``default_parts`` gives it no rule)."""
    return ValueError(f"step {step.index} has no decision, so it is not rendered and has no assistant turn")


def assistant_parts(step: Step) -> tuple[str, Decision | None, str]:
    """The default assistant turn's rule for one step: its text, its call and its rule (a key of ``ASSISTANT_RULES``).

    The text is that of the turn's text block (``""``: none, a call with a blank reason); the call
    is the step's decision when a ``tool_use`` block of its tool and ``args`` follows the text, else
    ``None``. Read off ``default_parts``, which the default turn (``assistant_turn``) and its wire
    form (``wire_messages``) are built from. Raises ``ValueError`` for a step with no decision, which
    is not rendered.
    """
    text, tool, _, rule, _, _, _, _ = default_parts(step, False, RESULT_BYTES)
    if not rule:
        raise _not_rendered(step)
    return text, step.decision if tool else None, rule


USER_RULES: dict[str, str] = {
    "hook": "Options.observation built the block",
    "no_tool_call": "no decision, or kind no_tool_call: the nudge NUDGE_NO_TOOL_CALL",
    "truncated": "kind truncated: the nudge NUDGE_TRUNCATED",
    "not_a_call_invalid": "not a call, and the driver rejected it (invalid_decision): invalid_nudge(summary)",
    "not_a_call": "not a call (another kind, or no tool name): the nudge NUDGE_NO_TOOL_CALL",
    "interrupted": "a call with no observation, or interrupted: INTERRUPTED_TEXT as its result",
    "invalid_decision": "a call the driver rejected: invalid_nudge(summary) as an error result",
    "full": "a call inside the window: its content in full",
    "full_cut": "a call inside the window: its content, cut at result_bytes",
    "summary": "a call outside the window: its summary",
    "summary_cut": "a call outside the window: its summary, cut at result_bytes",
    "no_summary": "a call outside the window whose tool wrote no summary: NO_SUMMARY_TEXT",
}
"""Which row of ``default_observation``'s table made a user turn (in the table's order), or the hook:
the second item of ``user_turn``."""


def user_turn(step: Step, tool_use_id: str, full: bool, options: Options) -> tuple[tuple[ContentBlock, ...], str]:
    """A rendered step's user turn, and the rule of ``USER_RULES`` that made it.

    ``options.observation(step, tool_use_id, full)`` when that hook is set and returns a
    block with a type (or a non-empty list of blocks); else the one block of
    ``default_observation(step, tool_use_id, full, options.result_bytes)``.
    """
    hook = options.observation
    if hook is not None:
        made = hook(step, tool_use_id, full)
        if isinstance(made, ContentBlock):
            if made.type:
                return (made,), "hook"
        elif made:
            return tuple(made), "hook"
    block, rule = observation_and_rule(step, tool_use_id, full, options.result_bytes)
    return (block,), rule


def tool_use_ids(steps: Sequence[Step], options: Options) -> list[str]:
    """``[tool_use_id(step, options) for step in steps]``, for an instrument that renders a whole run."""
    if options.tool_use_id is None:
        return [f"step_{step.index}" for step in steps]
    return [tool_use_id(step, options) for step in steps]


def assistant_turns(
    steps: Sequence[Step], ids: Sequence[str], options: Options
) -> list[tuple[tuple[ContentBlock, ...], str]]:
    """``assistant_turn`` of each step with its id, for an instrument that renders a whole run."""
    if options.assistant is None:
        return [_default_assistant_turn(step, step_id) for step, step_id in zip(steps, ids, strict=True)]
    return [assistant_turn(step, step_id, options) for step, step_id in zip(steps, ids, strict=True)]


def user_turns(
    steps: Sequence[Step], ids: Sequence[str], full: bool, options: Options
) -> list[tuple[tuple[ContentBlock, ...], str]]:
    """``user_turn`` of each step with its id, all in one form, for an instrument that renders a whole run."""
    if options.observation is None:
        max_bytes = options.result_bytes
        pairs = zip(steps, ids, strict=True)
        blocks = [observation_and_rule(step, step_id, full, max_bytes) for step, step_id in pairs]
        return [((block,), rule) for block, rule in blocks]
    return [user_turn(step, step_id, full, options) for step, step_id in zip(steps, ids, strict=True)]


def default_observation(step: Step, tool_use_id: str, full: bool, max_bytes: int) -> ContentBlock:
    """The default user turn for one step: its result, the re-request, or a nudge.

    Accepts any step, with or without a decision or an observation. A step that called no
    tool is answered with a text nudge; a call with a ``tool_result`` holding, in this order:
    ``INTERRUPTED_TEXT`` (no observation, or interrupted), the invalid-decision nudge, the
    content (``full``) or the summary (not ``full``; ``NO_SUMMARY_TEXT`` when it is empty),
    capped at ``max_bytes``. ``observation_and_rule`` also says which row made the block.
    """
    return observation_and_rule(step, tool_use_id, full, max_bytes)[0]


def observation_and_rule(step: Step, tool_use_id: str, full: bool, max_bytes: int) -> tuple[ContentBlock, str]:
    """``default_observation``'s block, and the row of its table that made it (a key of ``USER_RULES``)."""
    _, _, _, _, block_type, shown, rule, failed = default_parts(step, full, max_bytes)
    return _user_block(block_type, shown, failed, tool_use_id), rule


def _user_block(block_type: str, shown: str, failed: bool, tool_use_id: str) -> ContentBlock:
    """The default user turn's block, from ``default_parts``' items of it and the step's id."""
    if block_type == "text":
        return ContentBlock(type="text", text=shown)
    return ContentBlock(type="tool_result", tool_use_id=tool_use_id, content=shown, is_error=failed)


def observation_parts(step: Step, full: bool, max_bytes: int) -> tuple[str, str, str]:
    """``default_observation``'s table for one step, as its block's type, text and row (a key of ``USER_RULES``).

    The type is ``"text"`` or ``"tool_result"`` (flagged ``is_error`` when the step's observation
    ``failed``). Read off ``default_parts``, which ``observation_and_rule`` builds its block from; an
    instrument that needs only what each step's block is and how big (a table of a whole run) reads
    them without the block.
    """
    _, _, _, _, block_type, shown, rule, _ = default_parts(step, full, max_bytes)
    return block_type, shown, rule


DefaultParts = tuple[str, str, Any, str, str, str, str, bool]
"""What ``default_parts`` gives: ``(text, tool, input, assistant_rule, block_type, shown, user_rule, failed)``."""


def default_parts(step: Step, full: bool, max_bytes: int) -> DefaultParts:
    """The default turns of one step, both in one call: what each holds, and the rule that made it.

    ``(text, tool, input, assistant_rule, block_type, shown, user_rule, failed)``. The assistant
    turn: the text of its text block (``""``: none, a call with a blank reason), the tool its
    ``tool_use`` block calls (``""``: no such block, the step is not a call) and that block's input
    (``args``), and its rule (a key of ``ASSISTANT_RULES``). The user turn, its result in full
    (``full``) or as its summary, capped at ``max_bytes``: its block's type (``"text"`` or
    ``"tool_result"``), its text, the row of ``default_observation``'s table that made it (a key of
    ``USER_RULES``), and whether the ``tool_result`` is flagged ``is_error`` (the observation
    ``failed``). A step with no decision is not rendered and has no assistant turn: its first four
    are ``"", "", None, ""``.

    The single home of the default turns' rules: ``messages``, ``wire_messages``, ``Turns`` and the
    views' sizes build or count the turns from these, and ``assistant_parts`` and
    ``observation_parts`` read them (bench/bench_render.py: one call a step where those took seven).
    """
    decision = step.decision
    observation = step.observation
    if decision is None:
        return "", "", None, "", "text", NUDGE_NO_TOOL_CALL, "no_tool_call", False
    reason = decision.reason
    said = reason != "" and not reason.isspace()
    kind = decision.kind
    if kind == "tool_call" and decision.tool:  # a call: most steps
        text, rule = (reason, "reason_and_call") if said else ("", "call")
        tool, value = decision.tool, args(decision)
        if observation is None:
            return text, tool, value, rule, "tool_result", INTERRUPTED_TEXT, "interrupted", False
        status = observation.status
        failed = status in FAILED_STATUSES  # Observation.failed, read without a call a step
        if status == "interrupted":
            return text, tool, value, rule, "tool_result", INTERRUPTED_TEXT, "interrupted", failed
        if status == "invalid_decision":
            nudge = invalid_nudge(observation.summary, max_bytes)
            return text, tool, value, rule, "tool_result", nudge, "invalid_decision", failed
        # The rows of a result (result_and_rule's): in the window its content, out of it its summary, capped. A
        # text of at most a quarter of the cap's characters is within it (truncate's first test), so most results
        # are shown without the call (bench/bench_render.py)
        if full:
            content = observation.content
            if len(content) * 4 <= max_bytes:
                return text, tool, value, rule, "tool_result", content, "full", failed
            shown = truncate(content, max_bytes)
            return text, tool, value, rule, "tool_result", shown, "full" if shown is content else "full_cut", failed
        summary = observation.summary
        if not summary:
            return text, tool, value, rule, "tool_result", NO_SUMMARY_TEXT, "no_summary", failed
        if len(summary) * 4 <= max_bytes:
            return text, tool, value, rule, "tool_result", summary, "summary", failed
        shown = truncate(summary, max_bytes)
        return text, tool, value, rule, "tool_result", shown, "summary" if shown is summary else "summary_cut", failed
    text, rule = (reason, "reason") if said else (_NO_TOOL_CALL_TEXT, "no_tool_call")
    if kind == "no_tool_call":
        return text, "", None, rule, "text", NUDGE_NO_TOOL_CALL, "no_tool_call", False
    if kind == "truncated":
        return text, "", None, rule, "text", NUDGE_TRUNCATED, "truncated", False
    if observation is not None and observation.status == "invalid_decision":
        nudge = invalid_nudge(observation.summary, max_bytes)
        return text, "", None, rule, "text", nudge, "not_a_call_invalid", False
    return text, "", None, rule, "text", NUDGE_NO_TOOL_CALL, "not_a_call", False


def result_and_rule(content: str, summary: str, full: bool, max_bytes: int) -> tuple[str, str]:
    """The last rows of ``default_observation``'s table: a result's text in the window or out of it, and its row.

    What a call's ``tool_result`` carries of a result whose tool gave ``content`` and ``summary``,
    inside the window (``full``) or outside it, and the row that made it (``"full"``,
    ``"full_cut"``, ``"summary"``, ``"summary_cut"`` or ``"no_summary"``, keys of ``USER_RULES``).
    The rows are ``default_parts``' for a call that gave this result.

    A hook that windows results the contract's way (each result of a turn of several) reads them here too.
    """
    step = Step(index=0, decision=_A_CALL, observation=Observation(content=content, summary=summary))
    _, _, _, _, _, shown, rule, _ = default_parts(step, full, max_bytes)
    return shown, rule


_A_CALL = Decision(kind="tool_call", tool="tool")
"""A call, whose result's rows ``result_and_rule`` reads off ``default_parts``."""


def invalid_nudge(summary: str, max_bytes: int = RESULT_BYTES) -> str:
    """The nudge for a decision the driver rejected, carrying the observation's summary.

    The summary is stripped, capped at ``max_bytes`` and loses any trailing dots or spaces:
    ``"Your reply could not be executed: <summary>. Respond with exactly one tool call."``,
    or the same sentence without the colon part when the summary is empty.
    """
    said = truncate(summary.strip(), max_bytes).rstrip(". ")
    if not said:
        return "Your reply could not be executed. Respond with exactly one tool call."
    return f"Your reply could not be executed: {said}. Respond with exactly one tool call."


def args(decision: Decision) -> Any:
    """The JSON value a ``tool_use`` block carries for ``decision``.

    ``{"invalid_json_base64": ...}`` or ``{"invalid_json": ...}`` for arguments kept out of
    band, ``{}`` when there were none, else the arguments themselves. A custom assistant
    hook that builds its own ``tool_use`` block should use this, so its render is the same.
    """
    if decision.invalid_args:
        key = "invalid_json_base64" if decision.invalid_base64 else "invalid_json"
        return {key: decision.invalid_args}
    if decision.args is None:
        return {}
    return decision.args


def truncate(s: str, n: int) -> str:
    """Shorten ``s`` to at most ``n`` UTF-8 bytes, the ``…`` that marks the cut included.

    Never splits a character. When ``n`` is below 3 the cut is unmarked; a negative ``n``
    is 0; a string already within ``n`` bytes is returned unchanged. Lone surrogates count
    as ``str.encode("utf-8", "surrogatepass")`` counts them (3 bytes).
    """
    if n < 0:
        n = 0
    if len(s) * 4 <= n:
        return s
    if s.isascii():
        if len(s) <= n:
            return s
        return s[: n - _MARK_BYTES] + _MARK if n >= _MARK_BYTES else s[:n]
    encoded = s.encode("utf-8", "surrogatepass")
    if len(encoded) <= n:
        return s
    budget, mark = (n - _MARK_BYTES, _MARK) if n >= _MARK_BYTES else (n, "")
    while budget > 0 and encoded[budget] & 0xC0 == 0x80:
        budget -= 1
    return encoded[:budget].decode("utf-8", "surrogatepass") + mark


DECIDE_RULES: dict[str, str] = {
    "truncated": "the stop reason is max_tokens or model_context_window_exceeded: the reply was cut, "
    "so nothing runs (kind truncated)",
    "refusal": "the stop reason is refusal: kind no_tool_call, tool uses ignored",
    "tool_call": "the reply holds a tool use: the first one is the call (kind tool_call)",
    "no_tool_use": "the reply holds no tool use: kind no_tool_call",
}
"""The rules of ``decide``, in the order it tries them, with what each means."""

ARGS_OUTCOMES: dict[str, str] = {
    "value": "the input was a JSON value and is the arguments as given",
    "parsed": "the input was raw text and parsed as strict JSON",
    "empty": "the input was empty raw text: no arguments",
    "invalid_json": "the input was raw text that is not JSON: kept out of band in invalid_args",
    "invalid_base64": "the input was raw bytes that are not UTF-8: kept as base64 in invalid_args",
    "too_deep": f"the input nested deeper than {MAX_DEPTH} levels: kept out of band in invalid_args, as its JSON text",
    "": "no call, so no arguments",
}
"""What ``decide`` did with the first tool use's input."""


class Decided(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A decision, with the rule of ``decide`` that made it and how its reason was composed."""

    decision: Decision
    """``decide(response)``."""
    rule: str
    """The rule that fired: a key of ``DECIDE_RULES``."""
    args: str
    """What happened to the call's input: a key of ``ARGS_OUTCOMES`` (``""`` when there is no call)."""
    text: str
    """The reply's text: its text blocks joined with newlines, stripped (what the reason is made of)."""
    tool_uses: tuple[str, ...]
    """The names of every tool use in the reply, in order."""
    note: str
    """The note naming the tool uses that were not executed, which ends the reason; ``""`` when none."""
    reason_budget: int
    """The bytes the text could take in the reason: ``REASON_BYTES``, less the note and a space."""


def decide(response: ModelResponse) -> Decision:
    """Map a model's reply onto a decision; never ``complete``.

    A reply cut by the output token cap or the context window is ``truncated``; a refusal,
    or a reply with no tool use, is ``no_tool_call``; otherwise the first tool use is the
    call. The reason is the reply's text, capped at ``REASON_BYTES`` after it is composed;
    when the reply holds more than one tool use, the reason ends with a note naming the
    ones that were not executed, and the text gets what the note leaves of the cap.
    ``decided(response)`` gives the same decision with the rule that made it.
    """
    return decided(response).decision


def decide_blocks(content: Iterable[Mapping[str, Any]], stop_reason: str) -> Decision:
    """``decide`` of a reply given as its content's wire blocks, already checked (``_types.check_block``).

    For a reader of many replies it keeps as they are (an importer): only what ``decide`` reads
    is built, the text and tool-use blocks, so the decision is ``decide`` of the whole reply.
    """
    blocks = tuple(
        ContentBlock(type="text", text=block["text"])
        if block["type"] == "text"
        else ContentBlock(
            type="tool_use", tool_use_id=block.get("id", ""), name=block["name"], input=block.get("input")
        )
        for block in content
        if block["type"] == "text" or block["type"] == "tool_use"
    )
    return decided(ModelResponse(content=blocks, stop_reason=stop_reason)).decision


def decided(response: ModelResponse) -> Decided:
    """``decide(response)``, with the rule of ``DECIDE_RULES`` that fired and how the reason was composed."""
    text = _reply_text(response)
    uses = [block for block in response.content if block.type == "tool_use"]
    names = tuple(use.name for use in uses)
    stop = response.stop_reason
    if stop in (STOP_MAX_TOKENS, STOP_CONTEXT_WINDOW_EXCEEDED):
        rule, kind = "truncated", "truncated"
    elif stop == STOP_REFUSAL:
        rule, kind = "refusal", "no_tool_call"
    elif not uses:
        rule, kind = "no_tool_use", "no_tool_call"
    else:
        first = uses[0]
        value, invalid, invalid_base64, outcome = _parse_arguments(first.input)
        note, budget, reason = "", REASON_BYTES, text
        if len(uses) > 1:
            note = _not_executed_note(names[1:])
            budget = REASON_BYTES - utf8_bytes(note) - 1
            reason = f"{truncate(text, budget)} {note}" if text else note
        decision = Decision(
            kind="tool_call",
            tool=first.name,
            args=value,
            reason=truncate(reason, REASON_BYTES),
            invalid_args=invalid,
            invalid_base64=invalid_base64,
        )
        return Decided(
            decision=decision,
            rule="tool_call",
            args=outcome,
            text=text,
            tool_uses=names,
            note=note,
            reason_budget=budget,
        )
    decision = Decision(kind=kind, reason=truncate(text, REASON_BYTES))
    return Decided(
        decision=decision, rule=rule, args="", text=text, tool_uses=names, note="", reason_budget=REASON_BYTES
    )


def _reply_text(response: ModelResponse) -> str:
    """The reply's text blocks joined with newlines and stripped: what a reason is made of."""
    return "\n".join(block.text for block in response.content if block.type == "text").strip()


def _not_executed_note(names: Iterable[str]) -> str:
    """``[K further tool call(s) not executed: a, b]``, at most half of ``REASON_BYTES``."""
    capped = [truncate(name, NAME_BYTES) for name in names]
    head = f"[{len(capped)} further tool call(s) not executed: "
    limit = REASON_BYTES // 2
    full = head + ", ".join(capped) + "]"
    if utf8_bytes(full) <= limit:
        return full
    # Keep the longest prefix of names that fits with ", …]" after it.
    room = limit - utf8_bytes(head) - utf8_bytes(_MARK + "]")
    kept: list[str] = []
    used = 0
    for name in capped:
        cost = utf8_bytes(name) + 2  # the name and the ", " after it
        if used + cost > room:
            break
        kept.append(name)
        used += cost
    return head + "".join(f"{name}, " for name in kept) + _MARK + "]"


def _parse_arguments(raw: Any) -> tuple[Any, str, bool, str]:
    """A tool use's input as ``(args, invalid_args, invalid_base64, outcome)`` (a key of ``ARGS_OUTCOMES``)."""
    if isinstance(raw, bytes | bytearray):
        try:
            raw = bytes(raw).decode("utf-8")
        except UnicodeDecodeError:
            return None, base64.b64encode(raw).decode("ascii"), True, "invalid_base64"
    if not isinstance(raw, str):
        if too_deep(raw):  # an SDK's own decoding has no limit: past ours no instrument could show it
            return None, deep_canonical(raw), False, "too_deep"
        return raw, "", False, "value"
    if raw == "":
        return None, "", False, "empty"
    try:
        return strict_loads(raw), "", False, "parsed"
    except NestingError:
        return None, raw, False, "too_deep"
    except ValueError:
        return None, raw, False, "invalid_json"


def replay_key(
    messages: Iterable[Message | Mapping[str, Any]],
    *,
    system: str = "",
    tools: Sequence[Mapping[str, Any]] = (),
    model: str = "",
    max_output_tokens: int = 0,
) -> str:
    """A SHA-256 hex digest of exactly what would be sent: the same render gives the same key.

    One canonical compact JSON encoding of the model, system text, output cap, tools and
    messages in their wire forms (key order as rendered, no ASCII escaping). Raises
    ``ValueError`` when anything in it is not JSON (NaN, infinity, a non-JSON type), or a
    tool is not an object (naming it: ``tools[2]: ...``).
    """
    payload = _key_payload(system, tools, model, max_output_tokens)
    payload["messages"] = [_wire(m) for m in messages]
    return hashlib.sha256(_key_text(payload).encode("utf-8", "surrogatepass")).hexdigest()


def _key_payload(system: str, tools: Sequence[Mapping[str, Any]], model: str, max_output_tokens: int) -> dict[str, Any]:
    """What ``replay_key`` encodes, its ``messages`` still empty (they are its last field)."""
    for number, tool in enumerate(tools):
        if not isinstance(tool, Mapping):
            raise ValueError(f"tools[{number}]: expected a tool definition (an object), got {type_name(tool)}")
    return {
        "model": model,
        "system": system,
        "max_tokens": max_output_tokens,
        "tools": [dict(tool) for tool in tools],
        "messages": [],
    }


def _wire(message: Message | Mapping[str, Any]) -> dict[str, Any]:
    return message.to_dict() if isinstance(message, Message) else dict(message)


def _key_text(value: Any) -> str:
    try:
        return canonical(value)
    except (TypeError, ValueError) as error:
        raise ValueError(f"replay_key: the request is not JSON: {error}") from None


class ReplayKeys:
    """The ``replay_key`` of each of a log's requests, each message encoded and hashed once.

    For requests made one after another, each holding the messages of the one before and more (the
    calls of an agent's log); the keys are ``replay_key``'s, byte for byte.
    The key's encoding ends with the messages, so the hash of what a request shares with the one before
    (its head and those messages) is taken up again (``hashlib``'s ``copy``) and only its new messages are
    encoded: the keys of ``n`` calls cost the conversation's length, not ``n`` times it. A message is shared
    when it is the same object as the one at its place in the request before; any other request is hashed
    from its start.
    """

    def __init__(self) -> None:
        self._head = ""
        self._messages: list[Message | Mapping[str, Any]] = []
        self._hash = hashlib.sha256()

    def key(
        self,
        messages: Sequence[Message | Mapping[str, Any]],
        *,
        system: str = "",
        tools: Sequence[Mapping[str, Any]] = (),
        model: str = "",
        max_output_tokens: int = 0,
    ) -> str:
        """``replay_key(messages, system=..., tools=..., model=..., max_output_tokens=...)``."""
        head = _key_text(_key_payload(system, tools, model, max_output_tokens))[: -len("]}")]
        before = self._messages
        if head != self._head or len(messages) < len(before) or not all(map(operator.is_, messages, before)):
            self._head, self._messages, self._hash = head, [], hashlib.sha256(head.encode("utf-8", "surrogatepass"))
            before = self._messages
        hashed = self._hash
        for message in messages[len(before) :]:
            text = _key_text(_wire(message))  # a message that is not JSON raises before anything changes
            hashed.update((f",{text}" if before else text).encode("utf-8", "surrogatepass"))
            before.append(message)
        done = hashed.copy()
        done.update(b"]}")
        return done.hexdigest()
