"""A small agent runtime: StepInput -> agent.decide -> validate -> run the tool -> observation, recorded.

It is the seed's driver in Python, enough to record real runs: the limits (``max_steps``,
``max_consecutive_tool_failures``) belong to it, not to the agent; a decision it cannot
execute (a kind other than ``tool_call``, an unknown tool, arguments that are not JSON
or fail the tool's JSON schema) ends the step with an ``invalid_decision`` observation
whose summary names what was wrong, and counts as a failure. Every step is recorded
when it starts, when it is decided and when the tool answers, so a process killed at any
point leaves a run file that ``resume`` can go on with. An agent that fails (a model call
that errs, a replay that misses) ends the run with a ``failed`` end record (reason
``agent_error``, the error's text in ``error``) before the error goes on up, so the file
says how the run stopped.

``ModelAgent`` is the seed's model-driven agent: it renders the run, sends it as the
Anthropic adapter's ``Request`` (whose ``replay_key`` is the one definition of what is
sent), records the reply as a ``model_call`` and decides from the reply as the run file
records it (``runfile.response_from_record``), so a recorded reply decided again gives the
recorded decision. Its model may be the real API (``AnthropicModel``), a recorded run
(``ReplayModel``) or a script (``ScriptedModel``).

Schema checks use ``jsonschema`` (extra: ``agent``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from agentrender import render
from agentrender._extras import require
from agentrender._types import Decision, Observation, Step, StepInput
from agentrender.adapters.anthropic import DEFAULT_MAX_TOKENS, Request
from agentrender.runfile import RunWriter, load_run, response_from_record

__all__ = [
    "Agent",
    "Driver",
    "FakeClock",
    "Killed",
    "Limits",
    "Model",
    "ModelAgent",
    "Policy",
    "ScriptedModel",
    "Tool",
]


def _validator_for(schema: Mapping[str, Any]) -> Any:
    jsonschema = require("agent", "jsonschema")
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


Policy = Callable[[Decision, Tool], str]
"""Why a checked call to a tool may not run (``""`` when it may): the consumer's rules over the schema's."""


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
        policy: Policy | None = None,
    ) -> None:
        self.agent = agent
        self.tools = {tool.name: tool for tool in tools}
        self.writer = writer
        self.limits = limits or Limits()
        self.clock = clock
        self.policy = policy
        self._validators = {tool.name: _validator_for(tool.input_schema) for tool in tools}

    def start(
        self,
        *,
        run_id: str,
        goal: str,
        opening: str = "",
        system: str = "",
        model: str = "",
        max_output_tokens: int = 0,
    ) -> None:
        """Write the run header; ``max_output_tokens`` is the output cap the agent's requests ask for."""
        self.writer.header(
            run_id=run_id,
            goal=goal,
            opening=opening,
            system=system,
            model=model,
            max_output_tokens=max_output_tokens,
            started_at=self.clock(),
            tools=self.definitions(),
        )

    def definitions(self) -> tuple[dict[str, Any], ...]:
        """The tool definitions, as the run header records them and an agent is given them."""
        return tuple(tool.definition() for tool in self.tools.values())

    def run(self, *, run_id: str, goal: str, steps: Sequence[Step] = ()) -> str:
        """Decide and execute steps until a terminal tool succeeds or a limit is hit; return the end reason.

        ``steps`` are the steps already recorded (when resuming). The ``end`` record is written
        here, also when the agent raises: the run ends ``failed`` with reason ``agent_error`` and
        the error's text (naming the step) as its ``error``, and the error goes on up. ``Killed``
        stands for the process dying, so it leaves no end record.
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
                tools=self.definitions(),
            )
            decision = self._decide(step_input)
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

    def _decide(self, step_input: StepInput) -> Decision:
        index = step_input.index
        try:
            return self.agent.decide(step_input)
        except Killed:
            raise
        except Exception as error:
            said = str(error) or type(error).__name__
            what = said if said.startswith(f"step {index}:") else f"step {index}: {said}"
            self.writer.end("failed", "agent_error", error=what, at=self.clock())
            error.add_note(f"the run file {self.writer.path} ends here, with a failed end record")
            raise

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
        refusal = self.policy(decision, tool) if self.policy is not None else ""
        if refusal:
            return tool, _invalid(refusal)
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


class Model(Protocol):
    """Where a ``ModelAgent``'s replies come from: ``AnthropicModel``, ``ReplayModel``, ``ScriptedModel``."""

    def send(self, request: Request) -> Mapping[str, Any]:
        """The reply to ``request``: an Anthropic ``Message`` object as a run file records it.

        That is the JSON the provider returned; raw argument bytes, which JSON cannot hold,
        go in a tool use's ``input_base64`` (see ``runfile.response_from_record``).
        """
        ...


class ModelAgent:
    """The seed's agent: render the run, send it, record the reply as a ``model_call``, decide.

    The request is the Anthropic adapter's ``Request``, so the recorded ``request_key`` is
    its ``replay_key``: the key over what is sent (tool definitions as ``tool_param`` sends
    them, raw assistant blocks expanded), the same key a ``ReplayModel`` looks replies up
    by and a server computes from the body it receives. ``latency_ms`` fakes the recorded
    latency from the call's position (for recordings that must give the same bytes); by
    default it is measured.
    """

    def __init__(
        self,
        model: Model,
        *,
        writer: RunWriter,
        options: render.Options,
        model_name: str,
        system: str = "",
        tools: Sequence[Mapping[str, Any]] = (),
        max_tokens: int = DEFAULT_MAX_TOKENS,
        latency_ms: Callable[[int], float] | None = None,
    ) -> None:
        self.model = model
        """Where replies come from."""
        self.writer = writer
        """Where model calls are recorded (the driver's writer)."""
        self.options = options
        """How the run is rendered."""
        self.model_name = model_name
        """The model each request names."""
        self.system = system
        """The system prompt each request carries."""
        self.tools = tuple(tools)
        """The tool definitions each request carries; empty means the ones the step input gives."""
        self.max_tokens = max_tokens
        """The output cap of each request."""
        self.latency_ms = latency_ms
        self.calls = 0
        """How many replies have come back."""
        self._renderer = render.Renderer(options)

    def request(self, step_input: StepInput) -> Request:
        """The request that decides the step being decided in ``step_input``.

        The conversation grows by a step a request, so it is rendered incrementally
        (``render.Renderer``): each step once, not the whole run again at every request.
        """
        try:
            messages = self._renderer.conversation(step_input)
        except ValueError:  # another run's steps, or this one's rewritten: start over
            self._renderer = render.Renderer(self.options)
            messages = self._renderer.conversation(step_input)
        return Request(
            messages=messages,
            system=self.system,
            tools=self.tools or step_input.tools,
            model=self.model_name,
            max_tokens=self.max_tokens,
            step=step_input.index,
        )

    def decide(self, step_input: StepInput) -> Decision:
        """Send the step's request, record the reply with the request's replay key, and decide."""
        if step_input.index is None:
            raise ValueError("ModelAgent.decide: the step input names no step being decided (index is None)")
        request = self.request(step_input)
        started = time.monotonic()
        wire = self.model.send(request)
        if self.latency_ms is not None:
            latency = self.latency_ms(self.calls)
        else:
            latency = round((time.monotonic() - started) * 1000, 1)
        self.calls += 1
        self.writer.model_call(step_input.index, wire, latency_ms=latency, request_key=request.replay_key)
        return render.decide(response_from_record(wire, where=f"step {step_input.index}: the reply"))


class ScriptedModel:
    """A model whose replies are scripted Anthropic ``Message`` objects, given in order whatever is asked."""

    def __init__(self, replies: Sequence[Mapping[str, Any]]) -> None:
        self.replies = list(replies)
        """The replies, in the order they are given."""
        self.position = 0
        """How many have been given."""

    def send(self, request: Request) -> Mapping[str, Any]:
        """The next scripted reply; ``RuntimeError`` naming the step when none is left."""
        if self.position >= len(self.replies):
            raise RuntimeError(f"step {request.step}: the script has no reply left")
        self.position += 1
        return self.replies[self.position - 1]
