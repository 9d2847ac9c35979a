"""How much importing an agent's own conversation costs, against ``json.loads`` of the same file.

Target (issue 12): importing a 10,000-turn Messages API conversation (``from_anthropic`` of the
``.json`` request body: reading, parsing, checking every message and block, making the run's
records and reading them as ``load_run`` reads a file) costs at most 2x ``json.loads`` of the
file's text. A turn is one message: 10,000 turns are 5,000 assistant turns, each answered by a
user turn of tool results. Each figure is the median over rounds of (import time / ``json.loads``
time in the same round), over a grid: 1,000 and 10,000 turns; results of ~60 bytes and of 3 KiB;
one tool use per assistant turn, or three (with three results answering them). The worst cell is
printed last. Run:

    PYTHONPATH=. python bench/bench_imports.py                  # the grid, 5 rounds
    PYTHONPATH=. python bench/bench_imports.py --turns 2000 --rounds 3
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agentrender.imports import from_anthropic

TARGET = 2.0
"""The issue's bound: an import costs at most twice ``json.loads`` of the same file."""
ROUNDS = 5
TURNS = (1_000, 10_000)
RESULT_BYTES = (60, 3 * 1024)
TOOL_USES = (1, 3)


def _result(step: int, number: int, size: int) -> str:
    """A tool's output of about ``size`` bytes: lines of a test run or a file, as agents' tools print them."""
    line = f"tests/test_pricing.py::test_discount_{step}_{number} PASSED [{step % 100:3d}%]\n"
    return (line * (size // len(line) + 1))[:size]


def conversation(turns: int, result_bytes: int, tool_uses: int) -> dict[str, Any]:
    """A request body whose ``messages`` are ``turns`` turns: an opening, then assistant turns (a reason and
    ``tool_uses`` tool uses) each answered by a user turn of as many results (every tenth an error, every
    seventh as a list of blocks)."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Make the failing test in test_pricing.py pass."}]
    step = 0
    while len(messages) < turns:
        uses = [
            {
                "type": "tool_use",
                "id": f"toolu_{step:05d}_{number}",
                "name": ("read_file", "run_tests", "search")[number % 3],
                "input": {"path": f"src/pricing_{step % 50}.py", "pattern": "discount"},
            }
            for number in range(tool_uses)
        ]
        reason = {"type": "text", "text": f"Step {step}: the discount is applied twice; checking the callers."}
        messages.append({"role": "assistant", "content": [reason, *uses]})
        results = []
        for number, use in enumerate(uses):
            text = _result(step, number, result_bytes)
            result: dict[str, Any] = {"type": "tool_result", "tool_use_id": use["id"]}
            result["content"] = [{"type": "text", "text": text}] if step % 7 == 0 else text
            if step % 10 == 0:
                result["is_error"] = True
            results.append(result)
        messages.append({"role": "user", "content": results})
        step += 1
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 4096,
        "system": "You fix failing tests.",
        "tools": [{"name": name, "input_schema": {"type": "object"}} for name in ("read_file", "run_tests", "search")],
        "messages": messages[:turns],
    }


def timed(function: Callable[[], object]) -> float:
    """One call's time in seconds, the collector running as it does in a notebook or an agent."""
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def ratio(path: Path, rounds: int) -> float:
    """The median over rounds of (``from_anthropic(path)`` time / ``json.loads`` of the file's text time)."""
    ratios = []
    for _ in range(rounds):
        gc.collect()  # each side starts from the same heap
        base = timed(lambda: json.loads(path.read_text(encoding="utf-8")))
        gc.collect()
        ratios.append(timed(lambda: from_anthropic(path)) / base)
    return statistics.median(ratios)


def grid(
    turns: Sequence[int] = TURNS,
    result_bytes: Sequence[int] = RESULT_BYTES,
    tool_uses: Sequence[int] = TOOL_USES,
    rounds: int = ROUNDS,
) -> list[tuple[tuple[int, int, int], int, float]]:
    """Each cell ``(turns, result bytes, tool uses)``, its file's size, and its ratio."""
    out = []
    with tempfile.TemporaryDirectory() as folder:
        for cell_turns in turns:
            for size in result_bytes:
                for uses in tool_uses:
                    path = Path(folder) / f"convo-{cell_turns}-{size}-{uses}.json"
                    path.write_text(json.dumps(conversation(cell_turns, size, uses)), encoding="utf-8")
                    run = from_anthropic(path)  # the import is checked before it is timed
                    assert len(run.steps) == cell_turns // 2 and not run.warnings
                    out.append(((cell_turns, size, uses), path.stat().st_size, ratio(path, rounds)))
    return out


def main(argv: Sequence[str] | None = None) -> list[tuple[tuple[int, int, int], int, float]]:
    """Print the ratio of every cell of the grid, and the worst against the target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--turns", type=int, action="append", help="turns of a conversation (repeatable)")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    args = parser.parse_args(argv)
    cells = grid(turns=args.turns or TURNS, rounds=args.rounds)
    print(f"{'turns':>7} {'result':>8} {'uses':>5} {'file':>10}  import / json.loads")
    for (turns, size, uses), file_bytes, value in cells:
        print(f"{turns:>7,} {size:>7,}B {uses:>5} {file_bytes / 2**20:>8.1f}MiB  {value:.2f}")
    (turns, size, uses), _, worst = max(cells, key=lambda cell: cell[2])
    verdict = "meets" if worst <= TARGET else "misses"
    cell = f"{turns:,} turns, {size:,}-byte results, {uses} tool use(s)"
    print(f"worst: {worst:.2f} ({cell}); {verdict} the {TARGET}x target")
    return cells


if __name__ == "__main__":
    main()
