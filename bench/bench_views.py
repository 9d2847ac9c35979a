"""How fast the views of a 10,000-step run are, against one full render.messages of it.

Targets (issue 4): moving to any step costs at most 1/10 of one full render; the size and
cache-prefix series for every step cost at most 3x one full render. Each figure is the
median over rounds of (its time / the baseline's time in the same round), so a busy
machine slows both sides alike. Run:

    PYTHONPATH=. python bench/bench_views.py
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _gen import step_records

from agentrender import Decision, Observation, Step, render
from agentrender.runfile import Run
from agentrender.views import Views

STEPS = 10_000
ROUNDS = 7


def timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def ratio(candidate: Callable[[], Any], baseline: Callable[[], Any], per: int = 1) -> float:
    """The median over rounds of candidate time (divided by ``per``) over baseline time."""
    ratios = []
    for _ in range(ROUNDS):
        base = timed(baseline)
        ratios.append(timed(candidate) / per / base)
    return statistics.median(ratios)


def main() -> None:
    records = step_records(STEPS)
    steps = tuple(
        Step(index=r["index"], decision=Decision(**r["decision"]), observation=Observation(**r["observation"]))
        for r in records
    )
    run = Run(header={"run_id": "bench", "goal": "Benchmark the views."}, steps=steps)
    options = run.options()
    everything = run.step_input(None)

    def baseline() -> None:
        render.messages(everything, options)

    print(f"baseline: one full render.messages of {STEPS:,} steps, {timed(baseline) * 1000:.1f} ms")

    views = Views(run, options)
    views.messages(None)  # the per-step renders, computed once
    views.sizes()  # and their sizes
    rng = random.Random(1)
    targets = [rng.randrange(STEPS + 1) for _ in range(100)]
    figures = [
        ("moving to a random step (View.messages)", ratio(lambda: [views.at(k) for k in targets], baseline, 100), 0.1),
        ("moving to the last step", ratio(lambda: views.at(STEPS), baseline), 0.1),
        (
            "moving to a random step with its bytes and change",
            ratio(lambda: [(v.bytes, v.change) for v in map(views.at, targets)], baseline, 100),
            0.1,
        ),
        (
            "first view of a fresh Views (every step rendered in both forms)",
            ratio(lambda: Views(run, options).at(STEPS), baseline),
            None,
        ),
        (
            "size and cache-prefix series for every step, fresh Views",
            ratio(lambda: Views(run, options).sizes(), baseline),
            3.0,
        ),
        ("the same series again, renders and sizes cached", ratio(views.sizes, baseline), None),
    ]
    for name, value, target in figures:
        bound = f"  (target <= {target:g}: {'met' if value <= target else 'MISSED'})" if target else ""
        print(f"{name}: {value:.4f}x{bound}")


if __name__ == "__main__":
    main()
