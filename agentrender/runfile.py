"""Run files: a recorded run as JSON Lines, read into a ``Run`` and written a record at a time.

The format is ``agentrender.run/1`` (docs/runfile.md): a ``run`` header, ``step`` records
(a later one with the same index replaces an earlier one), ``model_call`` records and at
most one ``end``. Reading never loses a record: whatever is not loaded is reported in
``Run.warnings``; bad input raises ``RunFileError`` naming the file and the line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentrender import render
from agentrender._types import ModelResponse, Step, StepInput

__all__ = ["FORMAT", "ModelCall", "Run", "RunFileError"]

FORMAT = "agentrender.run/1"
"""The ``format`` a run header names for this version of the file."""


class RunFileError(ValueError):
    """A run file that cannot be read; the message begins with ``PATH:LINE:``."""

    def __init__(self, path: str, line: int, what: str) -> None:
        super().__init__(f"{path}:{line}: {what}")
        self.path = path
        """The file that was being read."""
        self.line = line
        """The 1-based line the problem is on."""
        self.what = what
        """What was wrong, without the location."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelCall:
    """One captured model call: the reply a model gave while a step was being decided."""

    step: int
    """The index of the step the call was made for."""
    response: ModelResponse
    """The model's reply, read from the Anthropic ``Message`` object the record holds."""
    latency_ms: float | None = None
    """How long the call took, when recorded."""
    request_key: str = ""
    """The replay key of the request that was sent, when recorded."""
    line: int = 0
    """The line of the run file the record was read from (0 for a call built in memory)."""
    record: Mapping[str, Any] = field(default_factory=dict)
    """The record as read, unknown fields included."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Run:
    """A recorded run: its header, its steps in index order, its model calls and its end."""

    path: str = ""
    """The file the run was read from ("" for a run built in memory)."""
    header: Mapping[str, Any] = field(default_factory=dict)
    """The ``run`` record: run_id, goal, opening, system, model, tools, started_at, ..."""
    steps: Sequence[Step] = ()
    """The steps, ordered by index; for a step recorded more than once, the last record."""
    step_records: Mapping[int, Mapping[str, Any]] = field(default_factory=dict)
    """The step records by index as read (timestamps and unknown fields included)."""
    model_calls: Sequence[ModelCall] = ()
    """The captured model calls, in file order."""
    end: Mapping[str, Any] | None = None
    """The ``end`` record, or ``None`` when the run was still going or its process died."""
    records: Sequence[Mapping[str, Any]] = ()
    """Every record that was read, in file order: what a lossless write gives back."""
    warnings: Sequence[str] = ()
    """One line for each thing that was read but not loaded, or loaded with a doubt."""

    @property
    def run_id(self) -> str:
        """The run's id from its header."""
        return str(self.header.get("run_id", ""))

    @property
    def goal(self) -> str:
        """The run's goal from its header."""
        return str(self.header.get("goal", ""))

    @property
    def opening(self) -> str:
        """The opening the run's agent rendered with: the header's ``opening``, else the goal."""
        return str(self.header.get("opening") or self.goal)

    @property
    def system(self) -> str:
        """The system prompt the run's agent sent, when recorded."""
        return str(self.header.get("system", ""))

    @property
    def model(self) -> str:
        """The model the run's agent called, when recorded."""
        return str(self.header.get("model", ""))

    @property
    def tools(self) -> tuple[Mapping[str, Any], ...]:
        """The tool definitions offered to the model."""
        return tuple(self.header.get("tools") or ())

    def step_input(self, at: int | None = None) -> StepInput:
        """The ``StepInput`` an agent had when deciding step ``at``: the steps with a lower index.

        ``None`` means every recorded step (the view after the last one).
        """
        steps = tuple(self.steps) if at is None else tuple(step for step in self.steps if step.index < at)
        return StepInput(steps=steps, goal=self.goal, run_id=self.run_id, index=at, tools=self.tools)

    def options(self, **overrides: Any) -> render.Options:
        """``render.Options`` whose opening is the run's opening (or its goal), with ``overrides``."""
        settings: dict[str, Any] = {"opening": self.opening}
        settings.update(overrides)
        return render.Options(**settings)

    def calls_for(self, index: int) -> tuple[ModelCall, ...]:
        """The model calls made while step ``index`` was being decided, in file order."""
        return tuple(call for call in self.model_calls if call.step == index)

    def _repr_html_(self) -> str:
        from agentrender import _html

        return _html.run_html(self)
