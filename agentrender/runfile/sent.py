"""What a run's agent sent, replayed through the contract's hooks: a run imported from a conversation.

A run file of format ``agentrender.run/2`` may record, for each step, the turns its agent
sent (``step.sent``: the assistant turn, the user turn that answered it, and the id of its
first tool use) and, in its header, the opening as blocks (``opening_content``). ``Sent``
turns those records into ``render.Options`` hooks, in two ways:

- **as sent** (``under_contract=False``): the recorded ids, assistant turns and user turns,
  every result in full: the view at step ``k`` is exactly the messages of the request that
  decided step ``k``;
- **under the contract** (``under_contract=True``): the same ids and assistant turns, but
  the results under the contract's window and cap. A user turn of the contract's own shape
  (one ``tool_result`` answering the step's first tool use) is left to the default, so its
  facts are the contract's rows; any other user turn (the results of a reply's parallel tool
  uses, a result and the text the user typed after it) keeps its blocks, each ``tool_result``
  in it shown in full (capped) inside the window and as its summary outside it, by the
  contract's own rows (``render.result_and_rule``), which ``rules`` reports block by block
  (and ``results`` the whole text of each result, whose rest the views say the model did not
  see): only the blocks that are not results are as sent.

A request's cache breakpoints (``cache_control`` on a block) move as its agent goes (Claude Code marks the last
block it sends), so they are not part of the turns: an import keeps the turns without them, and records, for each
step, where the request that decided it had them (``step.sent.breakpoints``) and, in the header, where the request
the turns were read from had them (``breakpoints``). ``Sent.breakpoints`` gives those of a view as sent.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import msgspec

from agentrender import render
from agentrender._types import ContentBlock, Step, StepInput

__all__ = ["EVERYTHING", "FORMAT_SENT", "Sent", "holds_media", "result_text", "sent_blocks"]

FORMAT_SENT = "agentrender.run/2"
"""The ``format`` of a run file that records what its agent sent (``step.sent``, ``opening_content``)."""

EVERYTHING = sys.maxsize
"""A window and a cap that hold everything: every result in full, nothing cut (the view as sent)."""


def sent_blocks(wire: Sequence[Any]) -> tuple[ContentBlock, ...]:
    """Recorded blocks (checked wire forms) as ``ContentBlock``s whose wire form is each block as it was sent."""
    return tuple(map(_as_sent, wire))


def _as_sent(wire: Mapping[str, Any]) -> ContentBlock:
    """A recorded block, whose wire form (``to_dict``) is the block as it was sent, its keys in their order.

    A block whose fields give back its keys in another order keeps its wire form (``raw``): a
    replay key hashes the JSON as sent, and the order of its keys is part of that.
    """
    block = ContentBlock.from_dict(wire)
    if block.raw is None and list(block.to_dict()) != list(wire):
        return msgspec.structs.replace(block, raw=dict(wire))
    return block


class Sent:
    """The hooks that replay a run's recorded turns; made by ``Run.options`` for a run that has them."""

    def __init__(
        self,
        header: Mapping[str, Any],
        indices: Iterable[int],
        step_field: Callable[[str, Iterable[int]], list[Any]],
        *,
        under_contract: bool,
        result_bytes: int = render.RESULT_BYTES,
    ) -> None:
        """The hooks of a run whose header is ``header``, whose steps of ``indices`` have records, and whose
        ``step_field`` (``Run.step_field``) reads one field of those records without making the rest of them."""
        self.under_contract = under_contract
        self.result_bytes = result_bytes
        opening = header.get("opening_content")
        self.opening: tuple[ContentBlock, ...] | None = sent_blocks(opening) if opening else None
        self._indices = indices
        self._field = step_field  # each step's ``sent`` is looked up when asked: a run that grows makes
        # its options again at each growth, which must not cost a pass over every step
        self._assistant: dict[int, tuple[ContentBlock, ...]] = {}
        self._user: dict[tuple[int, bool], tuple[ContentBlock, ...] | None] = {}
        self._rules: dict[tuple[int, bool], tuple[str, ...]] = {}
        self._results: dict[tuple[int, bool], tuple[str | None, ...]] = {}
        self._header_marks: Sequence[Mapping[str, Any]] | None = header.get("breakpoints")

    def __bool__(self) -> bool:
        return self.opening is not None or any(map(self._sent, self._indices))

    def _sent(self, index: int) -> Mapping[str, Any] | None:
        """The ``sent`` of step ``index``'s record; ``None`` when it recorded none."""
        [sent] = self._field("sent", (index,))
        return sent or None

    def options(self, opening: str | StepInput | Any, /, **overrides: Any) -> render.Options:
        """``render.Options`` with these hooks, the recorded opening (else ``opening``) and ``overrides``."""
        settings: dict[str, Any] = {
            "opening": self.opening or opening,
            "tool_use_id": self.tool_use_id,
            "assistant": self.assistant,
            "observation": self.observation,
        }
        if not self.under_contract:
            settings["recent_results"] = settings["result_bytes"] = EVERYTHING
            if self._header_marks is not None:  # the header records them whenever a step does
                settings["breakpoints"] = self.breakpoints
        settings.update(overrides)
        return render.Options(**settings)

    block_kind = "as_sent"
    """What the blocks these hooks build are, for the views' facts: the agent's own turns (``views.BLOCK_KINDS``)."""

    def tool_use_id(self, step: Step) -> str:
        """The id the step's first tool use was sent with; ``""`` (the default id) when none was recorded."""
        sent = self._sent(step.index)
        return str(sent.get("tool_use_id") or "") if sent else ""

    def assistant(self, step: Step, tool_use_id: str) -> tuple[ContentBlock, ...] | None:
        """The assistant turn as it was sent; ``None`` (the default turn) when none was recorded."""
        made = self._assistant.get(step.index)
        if made is None:
            sent = self._sent(step.index)
            if not sent:
                return None
            made = self._assistant[step.index] = sent_blocks(sent["assistant"])
        return made

    def ends(self, step: Step) -> bool:
        """True when, as sent, nothing answered the step's reply: the conversation ended on it.

        Its view after it is the conversation as it ended, on that reply, with no user turn: the
        contract's nudge or re-request for it is what the contract would send next, not what the
        agent sent, so only the views under the contract show it (always ``False`` there).
        """
        if self.under_contract:
            return False
        sent = self._sent(step.index)
        return sent is not None and sent.get("user") is None

    def prefill(self, step: Step) -> bool:
        """True when the step's assistant turn, as sent, is a prefill no reply answered (its ``sent.prefill``): the
        text the caller ended the conversation's last request with, for the model to go on from, not a reply of the
        model. Such a step ``ends`` the conversation; under the contract, whose views go on after it, ``False``."""
        if self.under_contract:
            return False
        sent = self._sent(step.index)
        return sent is not None and sent.get("prefill") is True

    def prefilled(self, step: Step) -> tuple[ContentBlock, ...] | None:
        """The prefill the request that decided the step ended with (its ``sent.prefilled``), as it was sent: the
        caller's text the reply went on from, the start of the step's turn (which holds the two merged). The view as
        sent deciding the step ends with it; ``None`` when the request ended otherwise, and under the contract, whose
        views are no request the agent sent."""
        if self.under_contract:
            return None
        sent = self._sent(step.index)
        wire = sent.get("prefilled") if sent else None
        return sent_blocks(wire) if wire else None

    def observation(self, step: Step, tool_use_id: str, full: bool) -> tuple[ContentBlock, ...] | None:
        """The user turn as it was sent (or, under the contract, with its results windowed and capped)."""
        key = (step.index, full)
        if key not in self._user:
            self._user[key] = self._made_user_turn(step, tool_use_id, full)
        return self._user[key]

    def rules(self, step: Step, full: bool) -> tuple[str, ...]:
        """How ``observation`` made each block of the step's user turn in that form, under the contract: the row of
        ``render.USER_RULES`` of a result it windowed and capped, ``"hook"`` for any other block (kept as sent).
        Empty when it made the turn as sent, or made none (the contract's default does): the views then take every
        block as the hook's. Asked after ``observation``, which makes what this reports."""
        return self._rules.get((step.index, full), ())

    def results(self, step: Step, full: bool) -> tuple[str | None, ...]:
        """The whole text of the call's result each block of the step's user turn in that form shows, under the
        contract: for a result ``rules`` reports a row of, the text that row windowed and capped (what the model did
        not see of it is the rest: ``views.BlockFact.hidden_text``); ``None`` for any other block. Empty where
        ``rules`` is. Asked after ``observation``, which makes what this reports."""
        return self._results.get((step.index, full), ())

    def breakpoints(self, step_input: StepInput) -> tuple[render.Breakpoint, ...]:
        """The cache breakpoints the view at ``step_input.index`` was sent with (the ``breakpoints`` hook): those of
        the request that decided that step (its record's ``breakpoints``), else those of the request the turns were
        read from (the header's; ``render.with_breakpoints`` leaves out those past the view's messages).

        A run that records them holds its turns without them (``imports``): each view has its own request's, and
        no other. A run that records none (no ``breakpoints`` in its header: written before they were, or by an
        agent whose requests had none) has no hook: its turns' blocks are as they hold them. Nor have its views
        under the contract, which are no request the agent sent.
        """
        index = step_input.index
        sent = self._sent(index) if index is not None else None
        marks = sent.get("breakpoints") if sent else None
        if marks is None:
            marks = self._header_marks
        return tuple((int(mark["message"]), int(mark["block"]), mark["cache_control"]) for mark in marks or ())

    def _made_user_turn(self, step: Step, tool_use_id: str, full: bool) -> tuple[ContentBlock, ...] | None:
        sent = self._sent(step.index)
        if not sent:
            return None
        if sent.get("user") is None:
            # Never answered. As sent, the conversation ended on it (``ends``): nothing is made. Under
            # the contract, the contract's re-request, for each of its tool uses (the API wants every
            # one answered), so the view after it can be sent.
            uses = [block for block in sent["assistant"] if block.get("type") == "tool_use"]
            if not self.under_contract or len(uses) < 2:
                return None
            self._rules[step.index, full] = ("interrupted",) * len(uses)
            self._results[step.index, full] = (None,) * len(uses)
            return tuple(
                ContentBlock(type="tool_result", tool_use_id=str(use.get("id", "")), content=render.INTERRUPTED_TEXT)
                for use in uses
            )
        wire = sent["user"]
        if not self.under_contract:
            return sent_blocks(wire)
        alone = len(wire) == 1 and wire[0].get("type") == "tool_result" and wire[0].get("tool_use_id") == tool_use_id
        if alone and not holds_media(wire[0]):
            return None  # the contract's own shape: its default row, on the step's observation (its text)
        if not wire:
            return None
        made = [self._windowed(block, sent, full) for block in wire]
        self._rules[step.index, full] = tuple(rule for _, rule, _ in made)
        self._results[step.index, full] = tuple(text for _, _, text in made)
        return tuple(block for block, _, _ in made)

    def _windowed(
        self, wire: Mapping[str, Any], sent: Mapping[str, Any], full: bool
    ) -> tuple[ContentBlock, str, str | None]:
        """A block of a user turn under the contract, how it was made, and the whole text of the result it shows: a
        result by the contract's rows, any other block as it was sent (``"hook"``, no result's text). A result in the
        window and within the cap that holds more than text (an image a tool gave) is the result as it was sent: the
        row's text alone would leave the rest out."""
        if wire.get("type") != "tool_result":
            return ContentBlock.from_dict(wire), "hook", None
        summary = str((sent.get("summaries") or {}).get(str(wire.get("tool_use_id")), ""))
        text = result_text(wire.get("content", ""))
        shown, rule = render.result_and_rule(text, summary, full, self.result_bytes)
        if rule == "full" and holds_media(wire):
            return ContentBlock.from_dict(wire), rule, text
        block = ContentBlock(
            type="tool_result",
            tool_use_id=str(wire.get("tool_use_id", "")),
            content=shown,
            is_error=bool(wire.get("is_error")),
        )
        return block, rule, text


def holds_media(result: Mapping[str, Any]) -> bool:
    """Whether a ``tool_result``'s content holds a block other than text (an image, a document), which its text
    (``result_text``) does not carry."""
    content = result.get("content")
    return isinstance(content, list) and any(
        not (isinstance(block, Mapping) and block.get("type") == "text") for block in content
    )


def result_text(content: Any) -> str:
    """The text of a ``tool_result``'s content: the string, or its text blocks joined with newlines."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [block for block in content if isinstance(block, Mapping) and block.get("type") == "text"]
        return "\n".join(str(block.get("text", "")) for block in texts)
    return ""
