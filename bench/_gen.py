"""Deterministic synthetic runs of realistic sizes, shared by the benchmarks."""

from __future__ import annotations

import json
import random
from typing import Any

_WORDS = (
    "def return self value path file line error test import class None True result "
    "config read write check status index step tool model agent run".split()
)


def _text(rng: random.Random, size: int) -> str:
    lines, total = [], 0
    while total < size:
        line = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(3, 12)))
        if rng.random() < 0.2:
            line = '    "' + line + '"'
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines)[:size]


def step_records(n: int, *, seed: int = 7, content_bytes: int = 3000, summary_bytes: int = 100) -> list[dict[str, Any]]:
    """``n`` step records as a run file holds them: a few-KiB result and a 100-byte summary each."""
    rng = random.Random(seed)
    tools = ["read_file", "write_file", "run_tests", "search", "list_dir"]
    records = []
    for index in range(n):
        tool = rng.choice(tools)
        records.append(
            {
                "type": "step",
                "index": index,
                "decision": {
                    "kind": "tool_call",
                    "tool": tool,
                    "args": {"path": f"src/module_{rng.randint(0, 99)}.py", "limit": rng.randint(1, 500)},
                    "reason": _text(rng, rng.randint(40, 200)),
                },
                "observation": {
                    "status": "error" if rng.random() < 0.05 else "ok",
                    "content": _text(rng, rng.randint(content_bytes // 2, content_bytes * 3 // 2)),
                    "summary": _text(rng, summary_bytes),
                },
            }
        )
    return records


def step_lines(n: int, **kwargs: Any) -> list[str]:
    """The same records as JSON lines."""
    return [json.dumps(record, ensure_ascii=False) for record in step_records(n, **kwargs)]
