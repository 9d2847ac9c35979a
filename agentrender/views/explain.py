"""Why a model's reply became the decision it did: ``render.decide``'s rule, explained for a reader.

``explain_decide(response)`` says which rule of ``render.decide`` fired and how the reason
was composed; ``disagreements(decision, recorded)`` names the fields where two decisions differ.
``answered_tool_uses(run, step)`` are the tool uses a run's agent answered at a step, as it sent
them: given to ``explain_decide``, the explanation says which of the calls the contract would not
have run this agent ran. ``compare_recorded(call, recorded)`` is the one rule by which a captured
reply is held against the decision its step recorded (``check``, ``decide``): a request that ended
with a prefill was gone on with by its reply, and the step's turn is the two together.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agentrender import _api_rules, render
from agentrender._types import Decision, ModelResponse, utf8_bytes
from agentrender.render import ARGS_OUTCOMES, DECIDE_RULES, REASON_BYTES

if TYPE_CHECKING:
    from agentrender.runfile import ModelCall, Run

__all__ = [
    "ARGS_OUTCOMES",
    "DECIDE_RULES",
    "Compared",
    "DecideExplanation",
    "answered_tool_uses",
    "compare_recorded",
    "disagreements",
    "explain_decide",
]


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
    """The tool uses after the first, which do not run under the contract (only on the tool_call branch)."""
    ran_anyway: tuple[str, ...] = ()
    """Those of ``not_executed`` that the run's agent ran all the same: its next turn, as it sent it, answers
    them (``answered_tool_uses``). An imported agent (Claude Code, Inspect, ...) runs every tool use of a reply."""
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
            count, names = len(self.not_executed), ", ".join(self.not_executed)
            note = f"the reason ends with the note ({utf8_bytes(self.note)} bytes, at most {REASON_BYTES // 2})."
            ran = self.ran_anyway
            if not ran:
                lines.append(f"{count} further tool use(s) not executed ({names}); {note}")
            else:
                contract = "not executed under the contract, which runs the first only"
                lines.append(f"{count} further tool use(s) ({names}) {contract}; {note}")
                which = "them" if len(ran) == count else f"{len(ran)} of them ({', '.join(ran)})"
                lines.append(f"this run's agent ran {which} all the same: the turn it sent next holds their results.")
        if self.capped:
            lines.append(
                f"the reply's text ({self.text_bytes} bytes) was cut to {self.reason_budget} bytes "
                f"to fit the {REASON_BYTES}-byte reason cap."
            )
        return lines


def explain_decide(response: ModelResponse, *, answered: Collection[str] = ()) -> DecideExplanation:
    """Say which rule of ``render.decide`` turns ``response`` into its decision, and why.

    The rule and how the reason was composed are the ones ``render.decided`` reports, so the
    explanation cannot drift from what ``decide`` did. ``answered``: the ids of the tool uses the
    agent answered after this reply (``answered_tool_uses``); those of the calls the contract
    would not run are ``ran_anyway``.
    """
    made = render.decided(response)
    text_bytes = utf8_bytes(made.text)
    not_executed = made.tool_uses[1:] if made.rule == "tool_call" else ()
    ran_anyway: tuple[str, ...] = ()
    if not_executed and answered:
        later = [block for block in response.content if block.type == "tool_use"][1:]
        ran_anyway = tuple(block.name for block in later if block.tool_use_id in answered)
    return DecideExplanation(
        response=response,
        decision=made.decision,
        rule=made.rule,
        args=made.args,
        text_bytes=text_bytes,
        tool_uses=made.tool_uses,
        not_executed=not_executed,
        ran_anyway=ran_anyway,
        note=made.note,
        capped=text_bytes > made.reason_budget,
        reason_budget=made.reason_budget,
    )


def answered_tool_uses(run: Run, step: int) -> frozenset[str]:
    """The ids of the tool uses that the user turn ``run``'s agent sent after step ``step``'s reply answers with a
    ``tool_result``, as the run recorded that turn (an imported run records it; a run under the contract does not,
    and its agent runs only the first call: empty)."""
    if step not in run.step_records:
        return frozenset()
    [sent] = run.step_field("sent", (step,))
    user = sent.get("user") if isinstance(sent, dict) else None
    if not isinstance(user, list):
        return frozenset()
    return frozenset(
        block["tool_use_id"]
        for block in user
        if isinstance(block, dict) and block.get("type") == "tool_result" and isinstance(block.get("tool_use_id"), str)
    )


def disagreements(decision: Decision, recorded: Decision | None) -> tuple[str, ...]:
    """The fields in which ``decision`` differs from the ``recorded`` one (all of them when none was)."""
    if recorded is None:
        return ("decision",)
    # __struct_fields__, not msgspec.structs.fields, which evaluates the struct's annotations again at each call.
    return tuple(name for name in Decision.__struct_fields__ if getattr(decision, name) != getattr(recorded, name))


@dataclass(frozen=True, slots=True, kw_only=True)
class Compared:
    """A captured reply's decision held against the decision its step recorded (``compare_recorded``)."""

    differs: tuple[str, ...]
    """The fields in which the recorded decision differs from what the reply decides (``("decision",)``: none was
    recorded); ``()`` when they agree, the reply alone or, with ``prefill``, the reply gone on from it."""
    prefill: str = ""
    """When the request ended with an assistant message (the caller's own words, or a ``pause_turn`` reply sent back
    to go on) and the recorded decision is ``render.decide`` of that turn gone on with by the reply, not of the reply
    alone: the prefill's text, which explains the difference; ``""`` otherwise."""
    went_on: Decision | None = None
    """With ``prefill``: ``render.decide`` of the prefill gone on with by the reply, the decision the run recorded."""

    @property
    def said(self) -> str:
        """What a reader is told of the reply held against its step's recorded decision, as ``agentrender decide``, the
        offline page's decide tab and ``DecideStepper`` say it: it agrees (of the reply and its prefill, with
        ``prefill``), or the run recorded no decision, or the fields that differ."""
        if not self.differs:
            return "agrees with the decision the run recorded" + (
                ", of the reply and its prefill" if self.prefill else ""
            )
        if self.differs == ("decision",):
            return "the run recorded no decision for this step"
        return f"differs from the recorded decision in: {', '.join(self.differs)}"

    @property
    def prefill_said(self) -> str:
        """With ``prefill``: why the recorded decision is not the reply's alone, said after ``said`` and below the
        reply's own decision; ``""`` otherwise."""
        if not self.prefill:
            return ""
        went_on = self.went_on
        recorded = f" ({went_on.reason!r})" if went_on is not None and went_on.reason else ""
        return (
            f"the request ended with an assistant message, a prefill ({self.prefill!r}): the reply goes on from it and "
            f"the step's turn is the two together, so the recorded reason{recorded} holds the prefill's words, which "
            "render.decide of the reply alone, above, leaves out"
        )


def compare_recorded(call: ModelCall, recorded: Decision | None, decision: Decision | None = None) -> Compared:
    """Hold the reply of ``call`` against the decision ``recorded`` for its step. ``decision``: ``render.decide`` of the
    reply, where the caller made it already.

    A request that ended with an assistant message was a prefill: the reply goes on from it, and the step's turn is
    the prefill then the reply (``_api_rules.continued``, the prefill's last text and the reply's first joined, as an
    agent merges them, or not). A run that holds that turn records ``render.decide`` of it, whose reason begins with
    the prefill's words; one whose agent decided the reply alone records that. Either agrees, and the first says why
    it differs from the reply alone (``Compared.prefill``)."""
    made = render.decide(call.response) if decision is None else decision
    differs = disagreements(made, recorded)
    if not differs or recorded is None:
        return Compared(differs=differs)
    request = call.record.get("request")
    prefill = _api_rules.prefill_of(request.get("messages")) if isinstance(request, Mapping) else None
    if prefill is None:
        return Compared(differs=differs)
    for went_on in _went_on(prefill, call.wire_response):
        if not disagreements(went_on, recorded):
            return Compared(differs=(), prefill=_prefill_text(prefill), went_on=went_on)
    return Compared(differs=differs)


def _went_on(prefill: Mapping[str, object], reply: Mapping[str, object]) -> Iterator[Decision]:
    """The decisions of the turn the ``prefill`` a request ended with makes with its ``reply``: its blocks joined, then
    not (``_api_rules.continued``)."""
    for joined in (True, False):
        blocks = _api_rules.continued(prefill, reply, joined=joined)
        if blocks is not None:
            yield render.decide(ModelResponse.from_dict({**reply, "content": blocks}))


def _prefill_text(prefill: Mapping[str, object]) -> str:
    """The text of a prefill's text blocks, joined with newlines, as ``render.decide`` reads a reply's."""
    blocks = _api_rules.content_blocks(prefill.get("content")) or []
    return "\n".join(
        block["text"]
        for block in blocks
        if isinstance(block, Mapping) and block.get("type") == "text" and isinstance(block.get("text"), str)
    ).strip()
