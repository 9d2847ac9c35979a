"""A small agent runtime: StepInput -> agent.decide -> validate -> run the tool -> observation, recorded.

It is the seed's driver in Python, enough to record real runs: the limits (``max_steps``,
``max_consecutive_tool_failures``) belong to it, not to the agent; a decision it cannot
execute (a kind other than ``tool_call``, an unknown tool, arguments that are not JSON
or fail the tool's JSON schema) ends the step with an ``invalid_decision`` observation
whose summary names what was wrong, and counts as a failure. Every step is recorded
when it starts, when it is decided and when the tool answers, so a process killed at any
point leaves a run file that ``resume`` can go on with.

Schema checks use ``jsonschema`` (extra: ``driver``).
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from agentrender import render
from agentrender._types import Decision, ModelResponse, Observation, Step, StepInput
from agentrender.runfile import RunWriter, load_run

__all__ = ["Agent", "Driver", "FakeClock", "Killed", "Limits", "ScriptedAgent", "Tool", "tool_definitions"]


def _validator_for(schema: Mapping[str, Any]) -> Any:
    try:
        import jsonschema  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - the message is the point
        raise ImportError(
            "agentrender.samples.driver checks tool arguments with jsonschema: pip install 'agentrender[driver]'"
        ) from None
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


@dataclass(frozen=True, slots=True, kw_only=True)
class Tool:
    """A tool the agent may call: its definition for the model and the function that runs it."""

    name: str
    """The name the model calls it by."""
    description: str
    """What it does, for the model."""
    input_schema: Mapping[str, Any]
    """The JSON schema its arguments must match."""
    run: Callable[[Any], Observation]
    """Runs the tool on checked arguments; an exception becomes an ``error`` observation."""
    read_only: bool = False
    """True when running it twice is harmless (an interrupted call may simply be asked again)."""
    terminal: bool = False
    """True for the tool that finishes the run when it succeeds."""

    def definition(self) -> dict[str, Any]:
        """The tool as the run header records it (name, description, input_schema, read_only)."""
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": dict(self.input_schema),
            "read_only": self.read_only,
        }


def tool_definitions(tools: Sequence[Tool]) -> list[dict[str, Any]]:
    """The tool definitions as a model request carries them (no ``read_only``: the API has no such field)."""
    return [{"name": t.name, "description": t.description, "input_schema": dict(t.input_schema)} for t in tools]


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """The driver's bounds on a run (the seed's MaxSteps and MaxConsecutiveToolFailures)."""

    max_steps: int = 50
    """The run ends with ``max_steps`` after this many steps."""
    max_consecutive_tool_failures: int = 3
    """The run ends with ``repeated_tool_failures`` after this many failed steps in a row."""


class Agent(Protocol):
    """Anything that decides a step from the run so far."""

    def decide(self, step_input: StepInput) -> Decision: ...


class FakeClock:
    """A clock that starts at a fixed time and moves one ``tick`` each time it is read: same run, same bytes."""

    def __init__(self, start: str = "2026-01-05T09:00:00Z", tick: float = 1.0) -> None:
        self._now = datetime.fromisoformat(start.replace("Z", "+00:00"))
        self._tick = timedelta(seconds=tick)

    def __call__(self) -> str:
        now = self._now
        self._now += self._tick
        return now.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Killed(Exception):
    """Raised by a scripted agent or tool to stand for the process dying at that point."""


class Driver:
    """Runs an agent against tools, recording every step to a run file as it goes."""

    def __init__(
        self,
        agent: Agent,
        tools: Sequence[Tool],
        writer: RunWriter,
        *,
        limits: Limits | None = None,
        clock: Callable[[], str] = _utc_now,
    ) -> None:
        self.agent = agent
        self.tools = {tool.name: tool for tool in tools}
        self.writer = writer
        self.limits = limits or Limits()
        self.clock = clock
        self._validators = {tool.name: _validator_for(tool.input_schema) for tool in tools}

    def start(self, *, run_id: str, goal: str, opening: str = "", system: str = "", model: str = "") -> None:
        """Write the run header."""
        self.writer.header(
            run_id=run_id,
            goal=goal,
            opening=opening,
            system=system,
            model=model,
            started_at=self.clock(),
            tools=[tool.definition() for tool in self.tools.values()],
        )

    def run(self, *, run_id: str, goal: str, steps: Sequence[Step] = ()) -> str:
        """Decide and execute steps until a terminal tool succeeds or a limit is hit; return the end reason.

        ``steps`` are the steps already recorded (when resuming). The ``end`` record is written here.
        """
        done = list(steps)
        failures = 0
        for step in reversed(done):
            if step.decision is None:
                continue
            if step.observation is None or not step.observation.failed:
                break
            failures += 1
        index = done[-1].index + 1 if done else 0
        while True:
            if index >= self.limits.max_steps:
                return self._end("max_steps")
            started_at = self.clock()
            self.writer.step(Step(index=index), started_at=started_at)
            step_input = StepInput(
                steps=tuple(done),
                goal=goal,
                run_id=run_id,
                index=index,
                tools=tuple(tool.definition() for tool in self.tools.values()),
            )
            decision = self.agent.decide(step_input)
            self.writer.step(Step(index=index, decision=decision), started_at=started_at)
            tool, observation = self._check(decision)
            if observation is None:
                assert tool is not None
                observation = self._execute(tool, decision.args)
            step = Step(index=index, decision=decision, observation=observation)
            self.writer.step(step, started_at=started_at, ended_at=self.clock())
            done.append(step)
            failures = failures + 1 if observation.failed else 0
            if tool is not None and tool.terminal and observation.status == "ok":
                return self._end("completed")
            if failures >= self.limits.max_consecutive_tool_failures:
                return self._end("repeated_tool_failures")
            index += 1

    def resume(self, path: str, *, goal: str = "") -> str:
        """Go on with a run whose process died: the interrupted call is marked, then the run continues.

        A step killed while deciding stays as it is (no decision: it is not rendered); a step
        killed while its tool ran gets an ``interrupted`` observation, which tells the model
        to ask again. Returns the end reason.
        """
        run = load_run(path)
        steps = list(run.steps)
        if steps and steps[-1].decision is not None and steps[-1].observation is None:
            last = steps[-1]
            record = run.step_records[last.index]
            interrupted = Step(
                index=last.index,
                decision=last.decision,
                observation=Observation(status="interrupted", summary="the process stopped while the tool ran"),
            )
            self.writer.step(interrupted, started_at=record.get("started_at"), ended_at=self.clock())
            steps[-1] = interrupted
        return self.run(run_id=run.run_id, goal=goal or run.goal, steps=steps)

    def _check(self, decision: Decision) -> tuple[Tool | None, Observation | None]:
        """The tool to run, or the ``invalid_decision`` observation saying why nothing runs."""
        if decision.kind == "truncated":
            return None, _invalid("the reply hit the output token cap before the tool call was complete")
        if decision.kind == "no_tool_call":
            return None, _invalid("the reply contained no tool call")
        if decision.kind != "tool_call":
            return None, _invalid(f"unknown decision kind {decision.kind!r}")
        tool = self.tools.get(decision.tool)
        if tool is None:
            known = ", ".join(self.tools)
            return None, _invalid(f"unknown tool {decision.tool!r} (the tools are {known})")
        if decision.invalid_args:
            what = "neither JSON nor UTF-8" if decision.invalid_base64 else "not JSON"
            return tool, _invalid(f"the arguments for {tool.name} were {what}")
        errors = sorted(
            self._validators[tool.name].iter_errors({} if decision.args is None else decision.args), key=str
        )
        if errors:
            error = errors[0]
            where = "/".join(str(part) for part in error.absolute_path)
            at = f" at {where}" if where else ""
            return tool, _invalid(f"the arguments for {tool.name} do not match its schema{at}: {error.message}")
        return tool, None

    def _execute(self, tool: Tool, arguments: Any) -> Observation:
        try:
            return tool.run({} if arguments is None else arguments)
        except Killed:
            raise
        except Exception as error:  # a tool's failure is the model's to see, never the driver's crash
            text = f"{tool.name} failed: {type(error).__name__}: {error}"
            return Observation(status="error", content=text, summary=render.truncate(text, 200))

    def _end(self, reason: str) -> str:
        status = "completed" if reason == "completed" else "stopped"
        self.writer.end(status, reason, at=self.clock())
        return reason


def _invalid(summary: str) -> Observation:
    return Observation(status="invalid_decision", content=summary, summary=summary)


class ScriptedAgent:
    """An agent whose model replies are scripted Anthropic ``Message`` objects, replayed in order.

    It does what a live agent does around the model call: renders the run with
    ``render.messages``, takes the request's ``render.replay_key``, records the reply as a
    ``model_call`` and turns it into a decision with ``render.decide``.
    """

    def __init__(
        self,
        replies: Sequence[Mapping[str, Any]],
        *,
        writer: RunWriter,
        opening: str,
        system: str,
        model: str,
        tools: Sequence[Tool],
        max_output_tokens: int = 4096,
        latency_ms: Callable[[int], float] = lambda position: 900 + 37 * position,
        on_reply: Callable[[int, Mapping[str, Any]], None] | None = None,
    ) -> None:
        self.replies = list(replies)
        self.position = 0
        self.writer = writer
        self.options = render.Options(opening=opening)
        self.system = system
        self.model = model
        self.tools = tool_definitions(tools)
        self.max_output_tokens = max_output_tokens
        self.latency_ms = latency_ms
        self.on_reply = on_reply

    def decide(self, step_input: StepInput) -> Decision:
        """Render, key, take the next scripted reply, record it, and decide."""
        assert step_input.index is not None
        messages = render.messages(step_input, self.options)
        key = render.replay_key(
            messages, system=self.system, tools=self.tools, model=self.model, max_output_tokens=self.max_output_tokens
        )
        if self.position >= len(self.replies):
            raise RuntimeError(f"the script has no reply left for step {step_input.index}")
        wire = self.replies[self.position]
        if self.on_reply is not None:
            # May raise Killed: the process died waiting for the model, and this reply never came.
            self.on_reply(self.position, wire)
        self.position += 1
        response = ModelResponse.from_dict(_with_raw_inputs(wire))
        self.writer.model_call(step_input.index, wire, latency_ms=self.latency_ms(self.position - 1), request_key=key)
        return render.decide(response)


def _with_raw_inputs(wire: Mapping[str, Any]) -> dict[str, Any]:
    """The reply with each ``input_base64`` tool input turned back into the raw bytes a provider sent.

    JSON cannot hold bytes that are not UTF-8, so a script (and the recorded ``model_call``)
    carries such arguments as base64 in an ``input_base64`` field of the ``tool_use`` block.
    """
    content = []
    for block in wire.get("content", []):
        if block.get("type") == "tool_use" and "input_base64" in block:
            raw = base64.b64decode(block["input_base64"])
            block = {key: value for key, value in block.items() if key != "input_base64"} | {"input": raw}
        content.append(block)
    return {**wire, "content": content}
