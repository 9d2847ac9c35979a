"""Record the sample runs: replay each script in ``sample_runs/scripts`` through the driver.

    python -m agentrender.agent.record            # write sample_runs/*.jsonl
    python -m agentrender.agent.record --check    # exit 1 when a committed file differs

A script is JSON: the run's goal, opening, system prompt, model and limits, the files of
its scratch folder, the tools that write no summary (``unsummarised``, names of
``scratch_tools``; a sample shows ``(no summary)`` by them), the model's replies (Anthropic
``Message`` objects, in order; ``id``, ``type``, ``role``, ``model`` and ``stop_sequence``
are filled in when left out; raw argument bytes are written as a run file holds them, in a
tool use's ``input_base64``), and where
the process is killed (``kill``: ``{"reply": N}`` dies waiting for reply N, ``{"tool": name,
"call": N}`` dies while the N-th call of that tool runs; the run is then resumed by a
new driver appending to the same file). Time comes from a fake clock, so every recording
of a script gives the same bytes.

``record(script, out, model=...)`` re-drives a script with another model answering (a
``ReplayModel`` over the sample, or the real SDK client against a local server answering
from it): the world, the kills and the clock are the script's, so a faithful model gives
the committed file again, byte for byte.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agentrender import render
from agentrender.adapters.anthropic import Request
from agentrender.agent.driver import Driver, FakeClock, Killed, Limits, Model, ModelAgent, ScriptedModel, Tool
from agentrender.agent.tools import scratch_tools
from agentrender.runfile import RunWriter

__all__ = ["SAMPLE_RUNS", "SCRIPTS", "record", "record_all"]

SAMPLE_RUNS = Path(__file__).resolve().parents[2] / "sample_runs"
"""The folder of the committed sample runs (in a source checkout)."""
SCRIPTS = SAMPLE_RUNS / "scripts"
"""The folder of the scripts the samples are recorded from."""


def _file_text(spec: Any) -> str:
    if isinstance(spec, str):
        return spec
    # {"head": ..., "repeat": "... {n} ...", "count": N, "tail": ...}: a long file kept short in the script.
    body = "".join(spec["repeat"].format(n=n) for n in range(1, spec["count"] + 1))
    return str(spec.get("head", "")) + body + str(spec.get("tail", ""))


def _reply(script: Mapping[str, Any], position: int, reply: Mapping[str, Any]) -> dict[str, Any]:
    wire = {
        "id": f"msg_{script['run_id'].replace('-', '_')}_{position:02d}",
        "type": "message",
        "role": "assistant",
        "model": script["model"],
    }
    wire.update(reply)
    wire.setdefault("stop_sequence", None)
    return wire


def record(script_path: Path, out: Path, *, model: Model | None = None) -> str:
    """Record one script into the run file ``out``; return how the run ended.

    ``model`` answers in place of the script's replies; without it, every scripted reply must be used.
    """
    script = json.loads(script_path.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="agentrender-sample-") as folder:
        scratch = Path(folder)
        for name, spec in script.get("files", {}).items():
            (scratch / name).parent.mkdir(parents=True, exist_ok=True)
            (scratch / name).write_text(_file_text(spec), encoding="utf-8")
        kills = script.get("kill", [])
        unsummarised = script.get("unsummarised", ())
        tools = [_killable(tool, kills) for tool in scratch_tools(scratch, unsummarised=unsummarised)]
        scripted = ScriptedModel([_reply(script, n, reply) for n, reply in enumerate(script["replies"])])
        clock = FakeClock(script.get("started_at", "2026-01-05T09:00:00Z"))
        limits = Limits(**script.get("limits", {}))
        writer = RunWriter(out)
        agent = ModelAgent(
            _Dying(model or scripted, [kill["reply"] for kill in kills if "reply" in kill]),
            writer=writer,
            options=render.Options(opening=script["opening"]),
            model_name=script["model"],
            system=script["system"],
            latency_ms=lambda position: 900 + 37 * position,
        )
        try:
            driver = Driver(agent, tools, writer, limits=limits, clock=clock)
            driver.start(
                run_id=script["run_id"],
                goal=script["goal"],
                opening=script["opening"],
                system=script["system"],
                model=script["model"],
                max_output_tokens=agent.max_tokens,
            )
            try:
                reason = driver.run(run_id=script["run_id"], goal=script["goal"])
            except Killed:
                reason = ""
            while not reason:
                # The process died: a new one appends to the same file and goes on from it.
                writer.close()
                writer = agent.writer = RunWriter(out, append=True)
                driver = Driver(agent, tools, writer, limits=limits, clock=clock)
                try:
                    reason = driver.resume(str(out))
                except Killed:
                    reason = ""
        finally:
            writer.close()
        unused = len(scripted.replies) - scripted.position
        if model is None and unused:
            raise RuntimeError(f"{script_path.name}: {unused} scripted replies were not used")
        if reason != script["expect_end"]:
            raise RuntimeError(f"{script_path.name}: the run ended with {reason!r}, not {script['expect_end']!r}")
        return reason


class _Dying:
    """A model whose process dies while waiting for the replies at ``positions`` (each once): they never come."""

    def __init__(self, model: Model, positions: list[int]) -> None:
        self.model = model
        self.pending = set(positions)
        self.given = 0

    def send(self, request: Request) -> Any:
        if self.given in self.pending:
            self.pending.discard(self.given)
            raise Killed(f"killed waiting for reply {self.given}")
        reply = self.model.send(request)
        self.given += 1
        return reply


def _killable(tool: Tool, kills: list[Mapping[str, Any]]) -> Tool:
    calls = [kill["call"] for kill in kills if kill.get("tool") == tool.name]
    if not calls:
        return tool
    seen = {"calls": 0}
    run = tool.run

    def dies_on_the_scripted_call(args: Any) -> Any:
        seen["calls"] += 1
        if seen["calls"] in calls:
            raise Killed(f"killed while {tool.name} ran")
        return run(args)

    return dataclasses.replace(tool, run=dies_on_the_scripted_call)


def record_all(out: Path = SAMPLE_RUNS) -> dict[str, str]:
    """Record every script into ``out`` as ``NAME.jsonl``; return each run's end reason."""
    return {script.stem: record(script, out / f"{script.stem}.jsonl") for script in sorted(SCRIPTS.glob("*.json"))}


def main() -> int:
    parser = argparse.ArgumentParser(description="Record the sample runs from their scripts.")
    parser.add_argument("--check", action="store_true", help="record into a temporary folder and compare")
    options = parser.parse_args()
    if not options.check:
        for name, reason in record_all().items():
            print(f"{name}: {reason}")
        return 0
    with tempfile.TemporaryDirectory() as folder:
        record_all(Path(folder))
        stale = [
            path.name
            for path in sorted(Path(folder).glob("*.jsonl"))
            if not (SAMPLE_RUNS / path.name).exists() or (SAMPLE_RUNS / path.name).read_bytes() != path.read_bytes()
        ]
    for name in stale:
        print(f"sample_runs/{name} is not what its script records now", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
