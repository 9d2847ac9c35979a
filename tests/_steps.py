"""Step builders shared by the golden and consumer tests."""

from agentrender import Decision, Observation, Step


def rejected(index: int, decision: Decision, summary: str | None = None) -> Step:
    """A step whose decision the driver rejected: an ``invalid_decision`` observation, by default naming the kind."""
    if summary is None:
        summary = f"unknown decision kind {decision.kind!r}"
    return Step(index=index, decision=decision, observation=Observation(status="invalid_decision", summary=summary))
