"""A live agent: the render contract, the Anthropic adapter, four tools and a policy.

``python -m agentrender.live`` fixes a one-line bug in a tiny in-memory project and records
the run to a run file. With ``ANTHROPIC_API_KEY`` set it calls the real Messages API;
without it, it answers from the bundled recording (``live_replay.jsonl``), so it runs
offline and reproduces that recording exactly.

The agent is the seed's ``Decide``: render the recorded steps (``render.messages``), send
them (``Request``), turn the reply into a decision (``render.decide``). The tools answer
from a workspace held in memory; ``run_tests`` runs the project's tests in a subprocess and
ends the run when they pass. The policy keeps the agent's writes away from the tests.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from agentrender import render
from agentrender._types import Decision, ModelResponse, Observation, Step, StepInput
from agentrender.adapters.anthropic import (
    DEFAULT_MODEL,
    AnthropicModel,
    ModelCallError,
    ReplayMiss,
    ReplayModel,
    Request,
)
from agentrender.runfile import ModelCall, Run

__all__ = [
    "GOAL",
    "OPENING",
    "SYSTEM",
    "TOOLS",
    "LiveAgent",
    "Model",
    "Workspace",
    "policy",
]

GOAL = "Make the failing test in this project pass without changing the tests."
OPENING = (
    f"{GOAL}\n\n"
    "The project is a few Python files in memory. list_files shows them, read_file reads one, "
    "write_file replaces one, run_tests runs the tests and ends the run when they all pass. "
    "Test files (test_*.py) cannot be written."
)
SYSTEM = "You are a careful software engineer. Call exactly one tool per reply and keep your reasons short."

PROJECT: Mapping[str, str] = {
    "calc.py": 'def add(a, b):\n    """The sum of a and b."""\n    return a - b\n',
    "test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
}
"""The project the agent starts from: one bug, one test."""

_PATH = {"type": "string", "description": "A file name from list_files, such as calc.py."}
TOOLS: tuple[Mapping[str, Any], ...] = (
    {
        "name": "list_files",
        "description": "List the project's files, one name a line.",
        "input_schema": {"type": "object", "properties": {}},
        "read_only": True,
    },
    {
        "name": "read_file",
        "description": "Read one file of the project.",
        "input_schema": {"type": "object", "properties": {"path": _PATH}, "required": ["path"]},
        "read_only": True,
    },
    {
        "name": "write_file",
        "description": "Replace one file of the project with new content (not a test file).",
        "input_schema": {
            "type": "object",
            "properties": {"path": _PATH, "content": {"type": "string", "description": "The whole new file."}},
            "required": ["path", "content"],
        },
        "read_only": False,
    },
    {
        "name": "run_tests",
        "description": "Run the project's tests; the run ends when they all pass.",
        "input_schema": {"type": "object", "properties": {}},
        "read_only": True,
        "terminal": True,
    },
)
"""The four tools, as the run file's header records them (``read_only`` and ``terminal`` are not sent)."""


class Model(Protocol):
    """What the agent calls: ``AnthropicModel`` or ``ReplayModel``."""

    def generate(self, request: Request) -> ModelResponse:
        """The model's reply to ``request``."""
        ...


@dataclass(frozen=True, slots=True, kw_only=True)
class Result:
    """What a tool gave back: the observation, and whether the run is done."""

    observation: Observation
    """The tool's answer."""
    done: bool = False
    """True when the tool ended the run (``run_tests`` with every test passing)."""


@dataclass(slots=True)
class Workspace:
    """The project the tools act on, held in memory (file name -> text)."""

    files: dict[str, str] = field(default_factory=lambda: dict(PROJECT))

    def call(self, tool: str, args: Mapping[str, Any]) -> Result:
        """Run ``tool`` with ``args`` (already allowed by ``policy``)."""
        handler: Callable[[Mapping[str, Any]], Result] = getattr(self, f"_{tool}")
        return handler(args)

    def _list_files(self, args: Mapping[str, Any]) -> Result:
        names = sorted(self.files)
        return Result(observation=Observation(content="\n".join(names), summary=f"{len(names)} files"))

    def _read_file(self, args: Mapping[str, Any]) -> Result:
        path = args["path"]
        if path not in self.files:
            return Result(
                observation=Observation(status="error", content=f"no such file: {path}", summary="no such file")
            )
        text = self.files[path]
        return Result(observation=Observation(content=text, summary=f"read {path} ({text.count(chr(10))} lines)"))

    def _write_file(self, args: Mapping[str, Any]) -> Result:
        path, text = args["path"], args["content"]
        self.files[path] = text
        return Result(observation=Observation(content=f"wrote {path}", summary=f"wrote {path} ({len(text)} bytes)"))

    def _run_tests(self, args: Mapping[str, Any]) -> Result:
        report, passed = run_tests(self.files)
        status = "ok" if passed else "error"
        summary = report.splitlines()[-1]
        return Result(observation=Observation(status=status, content=report, summary=summary), done=passed)


# Runs every test_* function of every test_*.py and prints one line per test and a tally,
# with no timings, so that the same files always give the same report (and the same render).
_RUNNER = """
import importlib, sys, traceback
passed = failed = 0
for name in sorted(sys.argv[1:]):
    module = importlib.import_module(name[:-3])
    for test in sorted(n for n in dir(module) if n.startswith("test_")):
        try:
            getattr(module, test)()
        except Exception as error:
            failed += 1
            print(f"FAILED {name}::{test}: {type(error).__name__}: {error}")
        else:
            passed += 1
            print(f"passed {name}::{test}")
print(f"{passed} passed, {failed} failed")
"""


def run_tests(files: Mapping[str, str], timeout: float = 20.0) -> tuple[str, bool]:
    """Run the tests of ``files`` in a fresh interpreter: ``(report, all passed)``."""
    tests = [name for name in files if name.startswith("test_") and name.endswith(".py")]
    with tempfile.TemporaryDirectory(prefix="agentrender-live-") as root:
        for name, text in files.items():
            with open(os.path.join(root, name), "w", encoding="utf-8") as handle:
                handle.write(text)
        try:
            out = subprocess.run(
                [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {root!r})\n{_RUNNER}", *tests],
                capture_output=True,
                text=True,
                timeout=timeout,
                cwd=root,
            )
        except subprocess.TimeoutExpired:
            return f"the tests did not finish within {timeout:g} s\n0 passed, 1 failed", False
    report = out.stdout.strip() or "0 passed, 0 failed"
    if out.returncode != 0:
        error = out.stderr.strip().splitlines()[-1:] or ["(no output)"]
        report = f"{report}\nthe test run failed: {error[0]}\n0 passed, 1 failed"
    return report, report.endswith(" passed, 0 failed") and not report.startswith("0 passed")


def policy(decision: Decision, tools: Mapping[str, Mapping[str, Any]]) -> str:
    """Why ``decision`` may not run, or ``""`` when it may.

    A call must name one of the tools with an object of the arguments its schema requires
    (strings); ``write_file`` may not write a test file or a path outside the project.
    """
    if not decision.calls:
        return f"a {decision.kind} decision calls no tool"
    tool = tools.get(decision.tool)
    if tool is None:
        return f"there is no tool named {decision.tool!r}"
    if decision.invalid_args:
        return f"the arguments of {decision.tool} are not JSON"
    args = decision.args if decision.args is not None else {}
    if not isinstance(args, dict):
        return f"the arguments of {decision.tool} must be an object"
    schema = tool["input_schema"]
    for name in schema.get("required", ()):
        if not isinstance(args.get(name), str):
            return f"{decision.tool} needs a string {name!r}"
    unknown = sorted(set(args) - set(schema.get("properties", {})))
    if unknown:
        return f"{decision.tool} takes no {', '.join(unknown)}"
    if decision.tool == "write_file":
        path = args["path"]
        if "/" in path or "\\" in path or path.startswith("."):
            return f"write_file may only write a file of the project, not {path!r}"
        if path.startswith("test_"):
            return f"write_file may not change the tests ({path})"
    return ""


@dataclass(slots=True)
class LiveAgent:
    """The seed's agent: render, send, decide."""

    model: Model
    """Where replies come from."""
    model_name: str
    """The model named in each request."""
    max_tokens: int = 1024
    """The output cap of each request."""
    options: render.Options = field(default_factory=lambda: render.Options(opening=OPENING))
    """How the recorded steps are rendered."""
    on_reply: Callable[[Request, ModelResponse, float], None] | None = None
    """Called with each request, its reply and the call's latency in ms, so the caller can record it."""

    def decide(self, step_input: StepInput) -> Decision:
        """The decision for the step being decided in ``step_input``."""
        request = Request(
            messages=render.messages(step_input, self.options),
            system=SYSTEM,
            tools=step_input.tools or TOOLS,
            model=self.model_name,
            max_tokens=self.max_tokens,
            step=step_input.index,
        )
        started = time.monotonic()
        response = self.model.generate(request)
        if self.on_reply is not None:
            self.on_reply(request, response, round((time.monotonic() - started) * 1000, 1))
        return render.decide(response)


# --- the run loop -------------------------------------------------------------------------
# TODO(merge): this loop stands in for the sample-run driver until it lands on main.


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _decision_record(decision: Decision) -> dict[str, Any]:
    record: dict[str, Any] = {
        "kind": decision.kind,
        "tool": decision.tool,
        "args": decision.args,
        "reason": decision.reason,
    }
    if decision.invalid_args:
        record["invalid_args"] = decision.invalid_args
        if decision.invalid_base64:
            record["invalid_base64"] = True
    return record


def _observation_record(observation: Observation) -> dict[str, Any]:
    return {"status": observation.status, "content": observation.content, "summary": observation.summary}


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """How a live run ended."""

    status: str
    """``completed``, ``max_steps``, ``repeated_tool_failures`` or ``failed``."""
    steps: tuple[Step, ...]
    """The recorded steps."""
    path: str
    """The run file."""


def drive(
    model: Model,
    path: str,
    *,
    model_name: str,
    run_id: str = "live",
    max_steps: int = 12,
    max_failures: int = 3,
    max_tokens: int = 1024,
) -> Outcome:
    """Run the live agent to its end, recording every step and model call to ``path`` (JSON Lines).

    A ``ModelCallError`` (or a replay miss) ends the run with status ``failed`` and is raised
    again; every record written before it stays readable.
    """
    tools = {tool["name"]: tool for tool in TOOLS}
    workspace = Workspace()
    steps: list[Step] = []
    with open(path, "w", encoding="utf-8") as out:

        def write(record: Mapping[str, Any]) -> None:
            out.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
            out.flush()

        def on_reply(request: Request, response: ModelResponse, latency_ms: float) -> None:
            write(
                {
                    "type": "model_call",
                    "step": request.step,
                    "latency_ms": latency_ms,
                    "request_key": request.replay_key,
                    "response": response.to_dict(),
                }
            )

        write(
            {
                "type": "run",
                "format": "agentrender.run/1",
                "run_id": run_id,
                "goal": GOAL,
                "opening": OPENING,
                "system": SYSTEM,
                "model": model_name,
                "max_tokens": max_tokens,
                "started_at": _now(),
                "tools": [dict(tool) for tool in TOOLS],
            }
        )
        agent = LiveAgent(model=model, model_name=model_name, max_tokens=max_tokens, on_reply=on_reply)
        failures = 0
        status = "max_steps"
        for index in range(max_steps):
            started_at = _now()
            step_input = StepInput(steps=tuple(steps), goal=GOAL, run_id=run_id, index=index, tools=TOOLS)
            try:
                decision = agent.decide(step_input)
            except Exception as error:
                write({"type": "end", "status": "failed", "reason": "model_error", "error": str(error), "at": _now()})
                raise
            write({"type": "step", "index": index, "started_at": started_at, "decision": _decision_record(decision)})
            refusal = policy(decision, tools)
            if refusal:
                result = Result(observation=Observation(status="invalid_decision", summary=refusal))
            else:
                result = workspace.call(decision.tool, decision.args or {})
            steps.append(Step(index=index, decision=decision, observation=result.observation))
            write(
                {
                    "type": "step",
                    "index": index,
                    "started_at": started_at,
                    "ended_at": _now(),
                    "decision": _decision_record(decision),
                    "observation": _observation_record(result.observation),
                }
            )
            failures = failures + 1 if result.observation.failed else 0
            if result.done:
                status = "completed"
                break
            if failures >= max_failures:
                status = "repeated_tool_failures"
                break
        write({"type": "end", "status": status, "reason": status, "at": _now()})
    return Outcome(status=status, steps=tuple(steps), path=path)


def load_recording(path: str) -> Run:
    """The run a live run file records, for ``ReplayModel``.

    TODO(merge): a stand-in for ``runfile.load_run`` until it lands on main; it reads only
    what replay needs (the header, the steps, the model calls, the end).
    """
    header: dict[str, Any] = {}
    steps: dict[int, Step] = {}
    calls: list[ModelCall] = []
    end: dict[str, Any] | None = None
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            record = json.loads(line)
            kind = record.get("type")
            if kind == "run":
                header = record
            elif kind == "step":
                decision, observation = record.get("decision"), record.get("observation")
                steps[record["index"]] = Step(
                    index=record["index"],
                    decision=Decision(**decision) if decision else None,
                    observation=Observation(**observation) if observation else None,
                )
            elif kind == "model_call":
                response = ModelResponse.from_dict(record["response"], where=f"{path}:{number}: response")
                calls.append(
                    ModelCall(
                        step=record["step"], response=response, request_key=record.get("request_key", ""), line=number
                    )
                )
            elif kind == "end":
                end = record
    ordered = tuple(steps[index] for index in sorted(steps))
    return Run(path=path, header=header, steps=ordered, model_calls=tuple(calls), end=end)


# --- the bundled recording ----------------------------------------------------------------

REPLAY = os.path.join(os.path.dirname(__file__), "live_replay.jsonl")
"""The bundled recording the agent answers from without an API key."""
SCRIPTED_MODEL = "scripted-stand-in"
"""The model name of the bundled recording: its replies were scripted, not sampled (see ``SCRIPT``)."""

_FIXED = 'def add(a, b):\n    """The sum of a and b."""\n    return a + b\n'
SCRIPT: tuple[tuple[str, str, Mapping[str, Any]], ...] = (
    ("I'll run the tests first to see what fails.", "run_tests", {}),
    ("test_add expects add(2, 3) == 5. Let me read calc.py.", "read_file", {"path": "calc.py"}),
    ("add subtracts instead of adding. Fixing the operator.", "write_file", {"path": "calc.py", "content": _FIXED}),
    ("Running the tests again to confirm the fix.", "run_tests", {}),
)
"""The replies the bundled recording was made from: (text, tool, input), one per step."""


class ScriptedModel:
    """A stand-in model that replies with ``SCRIPT`` in order, in the Messages API's shape.

    It made the bundled recording (``python -m agentrender.live --scripted``), so that the
    agent runs offline; a run against the real API replaces it with sampled replies.
    """

    def __init__(self) -> None:
        self._next = 0

    def generate(self, request: Request) -> ModelResponse:
        """The next scripted reply."""
        text, tool, args = SCRIPT[self._next]
        self._next += 1
        return ModelResponse.from_dict(
            {
                "id": f"msg_scripted_{self._next:02d}",
                "model": request.model,
                "content": [
                    {"type": "text", "text": text},
                    {"type": "tool_use", "id": f"toolu_scripted_{self._next:02d}", "name": tool, "input": dict(args)},
                ],
                "stop_reason": "tool_use",
                "usage": {"input_tokens": 0, "output_tokens": 0},
            }
        )


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m agentrender.live``: run the live agent and record the run."""
    parser = argparse.ArgumentParser(prog="python -m agentrender.live", description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="live-run.jsonl", help="the run file to write (default: %(default)s)")
    parser.add_argument(
        "--replay", metavar="RUN", help="answer from this recorded run (default without a key: bundled)"
    )
    parser.add_argument("--model", default=DEFAULT_MODEL, help="the model to call with a key (default: %(default)s)")
    parser.add_argument("--max-steps", type=int, default=12, help="end the run after this many steps")
    parser.add_argument("--scripted", action="store_true", help="reply from the script (remakes the bundled recording)")
    options = parser.parse_args(argv)

    model: Model
    if options.scripted:
        model, name, source = ScriptedModel(), SCRIPTED_MODEL, "the scripted stand-in"
    elif options.replay is None and os.environ.get("ANTHROPIC_API_KEY"):
        model, name, source = AnthropicModel(model=options.model), options.model, f"the Anthropic API ({options.model})"
    else:
        path = options.replay or REPLAY
        recorded = load_recording(path)
        model, name, source = ReplayModel(recorded), recorded.model, f"the recording {path}"
    print(f"live agent: replies from {source}; recording to {options.out}")
    try:
        outcome = drive(model, options.out, model_name=name, max_steps=options.max_steps)
    except (ModelCallError, ReplayMiss) as error:
        print(f"live agent: stopped: {error}", file=sys.stderr)
        return 1
    for step in outcome.steps:
        assert step.decision is not None and step.observation is not None
        print(
            f"  step {step.index}: {step.decision.tool or step.decision.kind} -> {step.observation.status}: "
            f"{step.observation.summary}"
        )
    print(f"live agent: {outcome.status} after {len(outcome.steps)} steps")
    return 0 if outcome.status == "completed" else 1


if __name__ == "__main__":
    sys.exit(main())
