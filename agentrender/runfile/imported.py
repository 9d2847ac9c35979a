"""The steps of a run made from a conversation's turns, each made the first time something reads it.

An importer reads and checks every message and block of a conversation (an error names the
file, the line and the field; what cannot be mapped is a warning), then hands the checked
turns here. What a step is made of beyond them, its decision (``render.decide_blocks`` of its
assistant turn), its observation, the ``Step`` and its ``step`` record (``sent``: the turns as
they were sent), is made for one step when it is first read, and kept: an import costs about
what reading its file costs, and a reader pays for the steps it reads, once.

The values are the ones reading the same records from a run file gives (``load_run``), and
the records are the ones ``write_run`` writes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, TypeVar, overload

from agentrender import render
from agentrender._types import Observation, Step
from agentrender.runfile.sent import result_text
from agentrender.runfile.write import decision_record

__all__ = ["ContentSequence", "ConversationSteps"]


class ConversationSteps:
    """The steps of a conversation: ``turns[0]`` is the opening, then each assistant turn and the user turn after it.

    ``turns`` are messages in the Messages API's wire shape, already checked, with their
    content as lists of blocks; a last assistant turn with nothing after it is a step with no
    observation. An assistant turn may also hold its reply's ``stop_reason``, which its decision
    is made with, ``decided_from``, where the reply it is decided by begins in its content, and its step's
    ``started_at`` and ``ended_at`` where the source says when they were (each a timestamp, in its step record).
    ``summaries`` (when a summariser was given) holds, for each step, the summary of each result
    of its user turn by the id it answers. ``breakpoints`` holds, for each step whose deciding request was
    recorded, where that request had its cache breakpoints (``sent.breakpoints``; ``runfile.Sent.breakpoints``).
    ``prefill``: the last assistant turn, with nothing after it, is a prefill the conversation's last request ended
    with, and no reply to it is held (``sent.prefill``; ``runfile.Sent.prefill``). ``prefilled`` holds, for each
    step whose deciding request ended with a prefill its reply went on from, that prefill's blocks
    (``sent.prefilled``; ``runfile.Sent.prefilled``).
    ``steps`` and ``records`` are the run's ``steps`` and ``step_records``.
    """

    __slots__ = ("_made", "breakpoints", "count", "prefill", "prefilled", "summaries", "turns")

    def __init__(
        self,
        turns: Sequence[Mapping[str, Any]],
        summaries: Sequence[Mapping[str, str]] | None = None,
        breakpoints: Mapping[int, list[dict[str, Any]]] | None = None,
        *,
        prefill: bool = False,
        prefilled: Mapping[int, list[dict[str, Any]]] | None = None,
    ) -> None:
        self.turns = turns
        self.prefilled = prefilled
        self.summaries = summaries
        self.breakpoints = breakpoints
        self.prefill = prefill and len(turns) % 2 == 0  # a last assistant turn: nothing after it
        self.count = len(turns) // 2
        """How many steps: one for each assistant turn."""
        self._made: list[tuple[Step, dict[str, Any]] | None] = [None] * self.count

    # Each view is made when asked, not kept: kept, it and the conversation would refer to each
    # other, and a run dropped would wait for the collector instead of being freed at once.
    @property
    def steps(self) -> _Steps:
        """The steps, in index order (a sequence that compares equal to a tuple of the same steps)."""
        return _Steps(self)

    @property
    def records(self) -> _StepRecords:
        """The step records by index (a mapping that compares equal to a dict of the same records)."""
        return _StepRecords(self)

    def made(self, index: int) -> tuple[Step, dict[str, Any]]:
        """Step ``index`` and its record, made the first time they are asked for."""
        made = self._made[index]
        if made is None:
            made = self._made[index] = self._make(index)
        return made

    def _make(self, index: int) -> tuple[Step, dict[str, Any]]:
        turns = self.turns
        assistant = turns[2 * index + 1]["content"]
        # None: the reply to the last request, or one after which the conversation was compacted
        user = turns[2 * index + 2]["content"] if 2 * index + 2 < len(turns) else None
        # a turn that joins two replies (what was sent between them is not in the source) is decided by the last
        decided = assistant[turns[2 * index + 1].get("decided_from", 0) :]
        first = next((block for block in decided if block["type"] == "tool_use"), None)
        # the reply's stop reason when a model call recorded it (``imports.conversation.with_stop_reasons``): a
        # reply cut at the output cap is truncated, as render.decide makes it
        stop = turns[2 * index + 1].get("stop_reason") or ("tool_use" if first is not None else "end_turn")
        decision = render.decide_blocks(decided, stop)
        first_id = str(first.get("id", "")) if first is not None else ""
        record: dict[str, Any] = {"type": "step", "index": index}
        for name in ("started_at", "ended_at"):
            if (stamp := turns[2 * index + 1].get(name)) is not None:
                record[name] = stamp
        record["decision"] = decision_record(decision)
        sent: dict[str, Any] = {"tool_use_id": first_id, "assistant": assistant}
        observation = None
        if user is not None:
            sent["user"] = user
            summaries = self.summaries[index] if self.summaries is not None else None
            if summaries:
                sent["summaries"] = summaries
            result = None
            if first is not None:
                answers = first.get("id")
                for block in user:  # the last result that answers it, as a mapping by id keeps it
                    if block.get("type") == "tool_result" and block.get("tool_use_id") == answers:
                        result = block
            if result is not None:
                content = result_text(result.get("content", ""))
                # an error as the model was told (is_error), or as the source says the call failed (``failed``:
                # imports.responses, whose blocks have no such flag)
                status = (
                    "error" if result.get("is_error") or answers in turns[2 * index + 2].get("failed", ()) else "ok"
                )
                wire = {"status": status, "content": content}
                if summaries is not None:
                    wire["summary"] = summaries[first_id]
                record["observation"] = wire
                observation = Observation(status=status, content=content, summary=wire.get("summary") or "")
        marks = self.breakpoints.get(index) if self.breakpoints is not None else None
        if marks is not None:
            sent["breakpoints"] = marks
        if self.prefill and index == self.count - 1:
            sent["prefill"] = True
        prefilled = self.prefilled.get(index) if self.prefilled is not None else None
        if prefilled is not None:
            sent["prefilled"] = prefilled
        record["sent"] = sent
        return Step(index=index, decision=decision, observation=observation), record


T = TypeVar("T")


class ContentSequence(Sequence[T]):
    """A sequence that compares equal to any sequence of the same items, a tuple or a list included (not hashable)."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(mine == theirs for mine, theirs in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # a sequence that compares by content is not hashable


class _Steps(ContentSequence[Step]):
    __slots__ = ("_of",)

    def __init__(self, of: ConversationSteps) -> None:
        self._of = of

    def __len__(self) -> int:
        return self._of.count

    @overload
    def __getitem__(self, at: int) -> Step: ...
    @overload
    def __getitem__(self, at: slice) -> tuple[Step, ...]: ...
    def __getitem__(self, at: int | slice) -> Step | tuple[Step, ...]:
        made = self._of.made
        if isinstance(at, slice):
            return tuple(made(i)[0] for i in range(*at.indices(self._of.count)))
        count = self._of.count
        index = at + count if at < 0 else at
        if not 0 <= index < count:
            raise IndexError("step index out of range")
        return made(index)[0]

    def __iter__(self) -> Iterator[Step]:
        made = self._of.made
        return (made(i)[0] for i in range(self._of.count))

    def __repr__(self) -> str:
        return repr(tuple(self))


class _StepRecords(Mapping[int, Mapping[str, Any]]):
    __slots__ = ("_of",)

    def __init__(self, of: ConversationSteps) -> None:
        self._of = of

    def __len__(self) -> int:
        return self._of.count

    def __getitem__(self, index: int) -> dict[str, Any]:
        if type(index) is not int or not 0 <= index < self._of.count:
            raise KeyError(index)
        return self._of.made(index)[1]

    def __iter__(self) -> Iterator[int]:
        return iter(range(self._of.count))

    def __repr__(self) -> str:
        return repr(dict(self))
