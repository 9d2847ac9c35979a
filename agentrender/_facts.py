"""What a render of a run showed for each of its steps, read off the render itself.

Every view of a run (frames, HTML, the terminal) needs the same per-step facts: was the
step rendered, under which ``tool_use`` id, was its result inside the recent-results
window, and what did the model's user turn hold for it. They are taken here from one call
of ``render.messages``, never re-derived, so no view can disagree with what a model saw.

Stdlib-only, like the core. The views layer (``agentrender/views.py``) may absorb this
module later; until then the frames are its only user.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

from agentrender import render
from agentrender._types import ContentBlock, Message, Step, StepInput

__all__ = ["StepFacts", "step_facts"]


class StepFacts(NamedTuple):
    """What one render of the whole run showed for one rendered step."""

    step: Step
    """The step, as given to the render."""
    position: int
    """The step's place among the rendered steps, from 0 (the window counts these places)."""
    tool_use_id: str
    """The id the render used for the step's ``tool_use`` block and its result."""
    full: bool
    """True when the render showed the step's result in full (inside the recent-results window)."""
    assistant: Message
    """The assistant turn the render produced for the step."""
    user: Message
    """The user turn the render produced for the step: the result, the re-request, or a nudge."""

    @property
    def result(self) -> ContentBlock:
        """The one block of the user turn."""
        return self.user.content[0]

    @property
    def nudge(self) -> bool:
        """True when the user turn is a text nudge rather than a ``tool_result``."""
        return self.user.content[0].type != "tool_result"


def step_facts(step_input: StepInput, options: render.Options) -> tuple[list[Message], list[StepFacts | None]]:
    """Render ``step_input`` once and say, for each of its steps, what the render showed.

    Returns the rendered conversation and one entry per step of ``step_input.steps``, in
    order: the step's facts, or ``None`` when the render skipped it (no decision, so no
    place in the window). ``full`` and the id are the values the render itself handed to
    the observation hook, which is wrapped here to record them and otherwise behaves as before.
    """
    seen: list[tuple[Step, str, bool]] = []
    record = seen.append
    inner = options.observation

    def observe(step: Step, tool_use_id: str, full: bool) -> ContentBlock | None:
        record((step, tool_use_id, full))
        return inner(step, tool_use_id, full) if inner is not None else None

    conversation = render.messages(step_input, dataclasses.replace(options, observation=observe))
    if len(conversation) != 1 + 2 * len(seen):
        raise AssertionError(f"render gave {len(conversation)} turns for {len(seen)} rendered steps")
    facts: list[StepFacts | None] = []
    append = facts.append
    position = 0
    # The hook saw the rendered steps in their order in step_input.steps, and the opening is
    # turn 0 with two turns per rendered step after it, so one walk pairs everything up.
    for step in step_input.steps:
        if position < len(seen) and seen[position][0] is step:
            _, tool_use_id, full = seen[position]
            turn = 1 + 2 * position
            append(StepFacts(step, position, tool_use_id, full, conversation[turn], conversation[turn + 1]))
            position += 1
        else:
            append(None)
    return conversation, facts
