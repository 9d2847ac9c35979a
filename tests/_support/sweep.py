"""A generated evaluation sweep: many small run files, as several models running the same tasks would write them.

Deterministic (a seed per run), quick to write (1,000 runs in about a second) and varied
where the Parquet queries look: three models, a ``run_tests`` tool that fails more often
after step 20, results longer than their summaries (so the window hides bytes), a model
call per step with its usage, and start and end times.
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec

MODELS = ("claude-haiku-4-5", "claude-sonnet-4-5", "claude-opus-4-1")
TOOLS = ("read_file", "search", "run_tests", "write_file")
_START = datetime(2026, 11, 29, 9, 0, 0, tzinfo=UTC)
_TEXT = " ".join(f"line {n}: ok" if n % 7 else f"FAILED test_{n}" for n in range(600))


def _at(seconds: float) -> str:
    return (_START + timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z")


def run_lines(number: int, *, steps: int | None = None) -> list[dict[str, Any]]:
    """The records of run ``number`` of the sweep: a header, a model call and a step per step, an end."""
    rng = random.Random(number)
    model = MODELS[number % len(MODELS)]
    count = steps if steps is not None else rng.randint(8, 40)
    clock = float(number * 60)
    records: list[dict[str, Any]] = [
        {
            "type": "run",
            "format": "agentrender.run/1",
            "run_id": f"sweep-{number:05d}",
            "goal": f"Make the failing tests of task {number % 50} pass.",
            "model": model,
            "started_at": _at(clock),
        }
    ]
    for index in range(count):
        tool = rng.choice(TOOLS)
        late = index > 20
        failed = rng.random() < (0.5 if tool == "run_tests" and late else 0.08)
        start = rng.randint(0, 2000)
        content = _TEXT[start : start + rng.randint(200, 2500)]
        started = clock
        clock += rng.uniform(0.5, 5.0)
        records.append(
            {
                "type": "model_call",
                "step": index,
                "latency_ms": round(rng.uniform(300, 3000), 1),
                "response": {
                    "id": f"msg_{number}_{index}",
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [{"type": "tool_use", "id": f"toolu_{index}", "name": tool, "input": {"n": index}}],
                    "stop_reason": "tool_use",
                    "usage": {"input_tokens": 1500 + 400 * index, "output_tokens": rng.randint(20, 300)},
                },
            }
        )
        records.append(
            {
                "type": "step",
                "index": index,
                "decision": {"kind": "tool_call", "tool": tool, "args": {"n": index}, "reason": f"Step {index}."},
                "observation": {
                    "status": "error" if failed else "ok",
                    "content": content,
                    "summary": content[:60],
                },
                "started_at": _at(started),
                "ended_at": _at(clock),
            }
        )
    records.append({"type": "end", "status": "completed", "reason": "completed", "at": _at(clock)})
    return records


LONG_RUN_STEPS = 100_000
"""The steps of the long run (``write_long_run``) the browser tests open."""


def write_long_run(path: Path) -> Path:
    """Run 0 of the sweep at ``LONG_RUN_STEPS`` steps (a 200 MB file), written to ``path``."""
    path.write_bytes(msgspec.json.Encoder().encode_lines(run_lines(0, steps=LONG_RUN_STEPS)))
    return path


def write_sweep(folder: Path, runs: int, *, first: int = 0) -> list[Path]:
    """Write runs ``first`` to ``first + runs - 1`` of the sweep as ``folder/sweep-NNNNN.jsonl``; their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for number in range(first, first + runs):
        path = folder / f"sweep-{number:05d}.jsonl"
        path.write_text("".join(json.dumps(record) + "\n" for record in run_lines(number)), encoding="utf-8")
        paths.append(path)
    return paths
