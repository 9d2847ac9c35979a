"""A live agent: the render contract, the Anthropic adapter, four tools and a policy.

``python -m agentrender.agent.live`` fixes a one-line bug in a tiny in-memory project and records
the run to a run file. With ``ANTHROPIC_API_KEY`` set it calls the real Messages API;
without it, it answers from the bundled recording (``live_replay.jsonl``), so it runs
offline and reproduces that recording.

It runs on the sample runs' driver (``agentrender.agent.driver``): the driver checks each
decision against the tools' schemas and the policy, runs the tool, counts failures and
records every step; its ``ModelAgent`` is the seed's ``Decide`` (render the recorded steps,
send them as a ``Request``, turn the reply into a decision). The tools act on a workspace
held in memory; ``run_tests`` runs the project's tests in a subprocess and ends the run
when they pass. The policy keeps the agent's writes away from the tests.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentrender import render
from agentrender._types import Decision, Observation
from agentrender.adapters.anthropic import DEFAULT_MODEL, AnthropicModel, ModelCallError, ReplayMiss, ReplayModel
from agentrender.agent.driver import Driver, FakeClock, Limits, Model, ModelAgent, ScriptedModel, Tool
from agentrender.imports import load
from agentrender.runfile import Run, RunWriter, load_run

__all__ = [
    "GOAL",
    "MAX_TOKENS",
    "OPENING",
    "PROJECT",
    "REPLAY",
    "SYSTEM",
    "Workspace",
    "main",
    "policy",
    "record_bundled",
    "run",
    "run_tests",
    "tools",
]

GOAL = "Make the failing test in this project pass without changing the tests."
OPENING = (
    f"{GOAL}\n\n"
    "The project is a few Python files in memory. list_files shows them, read_file reads one, "
    "write_file replaces one, run_tests runs the tests and ends the run when they all pass. "
    "Test files (test_*.py) cannot be written."
)
SYSTEM = "You are a careful software engineer. Call exactly one tool per reply and keep your reasons short."
MAX_TOKENS = 1024
"""The output cap of each request."""

PROJECT: dict[str, str] = {
    "calc.py": 'def add(a, b):\n    """The sum of a and b."""\n    return a - b\n',
    "test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
}
"""The project the agent starts from: one bug, one test."""


@dataclass(slots=True)
class Workspace:
    """The project the tools act on, held in memory (file name -> text)."""

    files: dict[str, str] = field(default_factory=lambda: dict(PROJECT))

    def list_files(self, args: Mapping[str, Any]) -> Observation:
        """The file names, one a line."""
        names = sorted(self.files)
        return Observation(content="\n".join(names), summary=f"{len(names)} files")

    def read_file(self, args: Mapping[str, Any]) -> Observation:
        """One file's text."""
        path = args["path"]
        if path not in self.files:
            return Observation(status="error", content=f"no such file: {path}", summary="no such file")
        text = self.files[path]
        return Observation(content=text, summary=f"read {path} ({text.count(chr(10))} lines)")

    def write_file(self, args: Mapping[str, Any]) -> Observation:
        """Replace one file (the policy has already kept the tests out of reach)."""
        path, text = args["path"], args["content"]
        self.files[path] = text
        return Observation(content=f"wrote {path}", summary=f"wrote {path} ({len(text)} bytes)")

    def run_tests(self, args: Mapping[str, Any]) -> Observation:
        """The tests' report; ``ok`` only when every test passed."""
        report, passed = run_tests(self.files)
        return Observation(status="ok" if passed else "error", content=report, summary=report.splitlines()[-1])


_PATH = {"type": "string", "description": "A file name from list_files, such as calc.py."}
_NOTHING: Mapping[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}


def tools(workspace: Workspace) -> list[Tool]:
    """The four tools, acting on ``workspace``; ``run_tests`` is the terminal one."""
    return [
        Tool(
            name="list_files",
            description="List the project's files, one name a line.",
            input_schema=_NOTHING,
            run=workspace.list_files,
            read_only=True,
        ),
        Tool(
            name="read_file",
            description="Read one file of the project.",
            input_schema={
                "type": "object",
                "properties": {"path": _PATH},
                "required": ["path"],
                "additionalProperties": False,
            },
            run=workspace.read_file,
            read_only=True,
        ),
        Tool(
            name="write_file",
            description="Replace one file of the project with new content (not a test file).",
            input_schema={
                "type": "object",
                "properties": {"path": _PATH, "content": {"type": "string", "description": "The whole new file."}},
                "required": ["path", "content"],
                "additionalProperties": False,
            },
            run=workspace.write_file,
        ),
        Tool(
            name="run_tests",
            description="Run the project's tests; the run ends when they all pass.",
            input_schema=_NOTHING,
            run=workspace.run_tests,
            read_only=True,
            terminal=True,
        ),
    ]


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


def policy(decision: Decision, tool: Tool) -> str:
    """Why a call the schemas allow may still not run, or ``""`` when it may.

    ``write_file`` may not write a test file or a path outside the project.
    """
    if tool.name != "write_file":
        return ""
    path = decision.args["path"]
    if "/" in path or "\\" in path or path.startswith("."):
        return f"write_file may only write a file of the project, not {path!r}"
    if path.startswith("test_"):
        return f"write_file may not change the tests ({path})"
    return ""


def run(
    model: Model,
    path: str,
    *,
    model_name: str,
    run_id: str = "live",
    max_steps: int = 12,
    workspace: Workspace | None = None,
    clock: Callable[[], str] | None = None,
    latency_ms: Callable[[int], float] | None = None,
) -> Run:
    """Run the live agent to its end on the driver, recording to ``path``; return the recorded run.

    A failing model call (``ModelCallError``, or ``ReplayMiss`` from a replay) is raised
    after the driver has ended the run file with a ``failed`` end record naming the step.
    ``clock`` and ``latency_ms`` fake the recorded times (see ``record_bundled``).
    """
    workspace = workspace if workspace is not None else Workspace()
    toolset = tools(workspace)
    with RunWriter(path) as writer:
        agent = ModelAgent(
            model,
            writer=writer,
            options=render.Options(opening=OPENING),
            model_name=model_name,
            system=SYSTEM,
            max_tokens=MAX_TOKENS,
            latency_ms=latency_ms,
        )
        timing = {"clock": clock} if clock is not None else {}
        driver = Driver(agent, toolset, writer, limits=Limits(max_steps=max_steps), policy=policy, **timing)
        driver.start(
            run_id=run_id, goal=GOAL, opening=OPENING, system=SYSTEM, model=model_name, max_output_tokens=MAX_TOKENS
        )
        driver.run(run_id=run_id, goal=GOAL)
    return load_run(path)


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


def scripted_replies() -> list[dict[str, Any]]:
    """``SCRIPT`` as Messages API ``Message`` objects, in order."""
    return [
        {
            "id": f"msg_scripted_{n:02d}",
            "type": "message",
            "role": "assistant",
            "model": SCRIPTED_MODEL,
            "content": [
                {"type": "text", "text": text},
                {"type": "tool_use", "id": f"toolu_scripted_{n:02d}", "name": tool, "input": dict(args)},
            ],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": 0, "output_tokens": 0},
        }
        for n, (text, tool, args) in enumerate(SCRIPT, 1)
    ]


def record_bundled(path: str = REPLAY) -> Run:
    """Record the bundled recording again from ``SCRIPT``: same script, same fake clock, same bytes."""
    return run(
        ScriptedModel(scripted_replies()),
        path,
        model_name=SCRIPTED_MODEL,
        clock=FakeClock("2026-01-05T09:00:00Z"),
        latency_ms=lambda position: 800 + 41 * position,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m agentrender.agent.live``: run the live agent and record the run."""
    parser = argparse.ArgumentParser(prog="python -m agentrender.agent.live", description=__doc__.splitlines()[0])
    parser.add_argument("--out", "-o", default="live-run.jsonl", help="the run file to write (default: %(default)s)")
    parser.add_argument("--force", action="store_true", help="overwrite the run file when it exists")
    parser.add_argument(
        "--replay",
        metavar="RUN",
        help="answer from this recorded run, any file agentrender.load reads (default without a key: bundled)",
    )
    parser.add_argument("--model", default=DEFAULT_MODEL, help="the model to call with a key (default: %(default)s)")
    parser.add_argument("--max-steps", type=int, default=12, help="end the run after this many steps")
    parser.add_argument("--scripted", action="store_true", help="remake the bundled recording from its script")
    options = parser.parse_args(argv)

    if options.scripted:
        print(f"live agent: recording the script to {REPLAY}")
        recorded = record_bundled()
        _report(recorded)
        return 0
    if os.path.exists(options.out) and not options.force:
        print(
            f"live agent: {options.out} exists; --force overwrites it, or -o names another file",
            file=sys.stderr,
        )
        return 2
    model: Model
    if options.replay is None and os.environ.get("ANTHROPIC_API_KEY"):
        model, name, source = AnthropicModel(model=options.model), options.model, f"the Anthropic API ({options.model})"
    else:
        path = options.replay or REPLAY
        try:  # any file agentrender reads: a run file, a recording of agentrender.record, a call log
            replayed = load(path)
        except (OSError, ValueError) as error:
            print(f"live agent: --replay {path}: {error}", file=sys.stderr)
            return 2
        model, name, source = ReplayModel(replayed), replayed.model, f"the recording {path}"
    print(f"live agent: replies from {source}; recording to {options.out}")
    try:
        recorded = run(model, options.out, model_name=name, max_steps=options.max_steps)
    except (ModelCallError, ReplayMiss) as error:
        print(f"live agent: stopped: {error} (the run file {options.out} says so too)", file=sys.stderr)
        return 1
    _report(recorded)
    return 0 if recorded.end is not None and recorded.end["reason"] == "completed" else 1


def _report(recorded: Run) -> None:
    for step in recorded.steps:
        if step.decision is None or step.observation is None:
            continue
        print(
            f"  step {step.index}: {step.decision.tool or step.decision.kind} -> {step.observation.status}: "
            f"{step.observation.summary}"
        )
    reason = recorded.end["reason"] if recorded.end is not None else "no end record"
    print(f"live agent: {reason} after {len(recorded.steps)} steps")


if __name__ == "__main__":
    sys.exit(main())
