"""Why a model's reply became the decision it did: ``render.decide``'s rule, explained for a reader.

``explain_decide(response)`` says which rule of ``render.decide`` fired and how the reason
was composed; ``disagreements(decision, recorded)`` names the fields where two decisions differ.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentrender import render
from agentrender._types import Decision, ModelResponse, utf8_bytes
from agentrender.render import ARGS_OUTCOMES, DECIDE_RULES, REASON_BYTES

__all__ = ["ARGS_OUTCOMES", "DECIDE_RULES", "DecideExplanation", "disagreements", "explain_decide"]


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
    """Say which rule of ``render.decide`` turns ``response`` into its decision, and why.

    The rule and how the reason was composed are the ones ``render.decided`` reports, so the
    explanation cannot drift from what ``decide`` did.
    """
    made = render.decided(response)
    text_bytes = utf8_bytes(made.text)
    return DecideExplanation(
        response=response,
        decision=made.decision,
        rule=made.rule,
        args=made.args,
        text_bytes=text_bytes,
        tool_uses=made.tool_uses,
        not_executed=made.tool_uses[1:] if made.rule == "tool_call" else (),
        note=made.note,
        capped=text_bytes > made.reason_budget,
        reason_budget=made.reason_budget,
    )


def disagreements(decision: Decision, recorded: Decision | None) -> tuple[str, ...]:
    """The fields in which ``decision`` differs from the ``recorded`` one (all of them when none was)."""
    if recorded is None:
        return ("decision",)
    # __struct_fields__, not msgspec.structs.fields, which evaluates the struct's annotations again at each call.
    return tuple(name for name in Decision.__struct_fields__ if getattr(decision, name) != getattr(recorded, name))
