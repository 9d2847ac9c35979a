"""What an agent loop that renders before every model call pays for rendering, incrementally and whole.

    python bench/bench_agent_loop.py [--steps 1000 2000 5000 10000] [--result-bytes 200 3000] [--repeat 5]

An agent renders its conversation before each model call: over a run of n steps that is n
renders. ``render.messages`` of the whole conversation at every step costs about n/2 full
renders; ``render.Renderer`` renders each step once (and its user turn once more when it
leaves the window), so the whole loop costs about one full render. For each cell of the grid
(sizes, result bytes, and the opening as text or as a callable of the steps so far, which
the loop calls at every step) the script prints the loop's total render time with the
``Renderer`` divided by one full render of the final conversation (target: <= 3.0 at 10,000
steps), and the same for ``render.messages`` at every step where it finishes in reasonable
time (up to 2,000 steps). The garbage collector runs as it does in a user's agent; the two
are timed in turn, and the figure of each is the best of ``--repeat``. Times are the process's
CPU time (``time.process_time``): on a machine shared with other work the wall clock also
counts the time the process waits for a processor, which falls on the two unequally. The
collector's part of the loop is printed beside it (in renders, and its full collections): the
loop keeps what it renders, and a full collection walks the whole process once the objects kept
since the last grow by a quarter, where ``render.messages`` pauses the collector (``render.rendering``).
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

for _path in (Path(__file__).resolve().parents[1], Path(__file__).resolve().parent):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from _gen import step_lines  # noqa: E402
from bench_render import OPENING, steps_from_lines  # noqa: E402

from agentrender import Step, StepInput, render  # noqa: E402

WHOLE_UP_TO = 2_000
"""The largest loop timed with a whole render at every step (n/2 full renders: 10,000 steps would take minutes)."""


def incremental_loop(steps: Sequence[Step], options: render.Options) -> int:
    """An agent loop's renders with a ``Renderer``: one ``append`` a step, each giving the whole conversation."""
    renderer = render.Renderer(options)
    total = 0
    for step in steps:
        total += len(renderer.append(step))
    return total


def whole_loop(steps: Sequence[Step], options: render.Options) -> int:
    """The same loop rendering the whole conversation at every step."""
    return sum(len(render.messages(StepInput(steps=steps[:k]), options)) for k in range(1, len(steps) + 1))


def opening_of(step_input: StepInput) -> str:
    """An opening made from the steps so far, as an agent's hook might: called at every step of the loop."""
    return f"{OPENING}\n\n({len(step_input.steps)} steps so far)"


class CollectorClock:
    """The CPU time the cyclic collector took, summed over its collections, while ``gc.callbacks`` holds it."""

    def __init__(self) -> None:
        self.spent = 0.0
        self.full = 0
        """How many full collections (of the oldest generation) there were."""
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.process_time()
        else:
            self.spent += time.process_time() - self._started
            self.full += info["generation"] == 2


def best_of_each(calls: Sequence[Callable[[], object]], repeat: int) -> list[tuple[float, float, int]]:
    """For each call, over ``repeat`` rounds, its best time, with the collector's time and full collections in that
    round; the calls are timed in turn in each round (so that load from other work falls on each alike)."""
    best = [(float("inf"), 0.0, 0)] * len(calls)
    clock = CollectorClock()
    gc.callbacks.append(clock)
    try:
        for _ in range(repeat):
            for number, call in enumerate(calls):
                clock.spent, clock.full = 0.0, 0
                started = time.process_time()
                call()
                best[number] = min(best[number], (time.process_time() - started, clock.spent, clock.full))
    finally:
        gc.callbacks.remove(clock)
    return best


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, nargs="+", default=[1_000, 2_000, 5_000, 10_000])
    parser.add_argument("--result-bytes", type=int, nargs="+", default=[200, 3_000])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    openings: dict[str, render.Options] = {
        "text": render.Options(opening=OPENING),
        "callable": render.Options(opening=opening_of),
    }
    worst: dict[int, float] = {}
    header = f"{'steps':>7} {'result':>7} {'opening':>8} {'one render':>11} {'loop, Renderer':>15} {'ratio':>6}"
    print(f"{header} {'collector in the loop':>22} {'whole each step':>16}")
    for size in args.result_bytes:
        for n in args.steps:
            steps = steps_from_lines(step_lines(n, content_bytes=size))
            for shape, options in openings.items():
                # the slices an agent loop's step inputs hold are made outside the timed render in both loops
                (one, _, _), (loop, collector, full) = best_of_each(
                    [
                        lambda steps=steps, options=options: render.messages(StepInput(steps=steps), options),
                        lambda steps=steps, options=options: incremental_loop(steps, options),
                    ],
                    args.repeat,
                )
                ratio = loop / one
                worst[n] = max(worst.get(n, 0.0), ratio)
                whole = ""
                if n <= WHOLE_UP_TO and shape == "text":
                    started = time.process_time()
                    whole_loop(steps, options)
                    whole = f"{(time.process_time() - started) / one:,.0f}x"
                spent = f"{collector / one:.2f}x, {full} full"
                cells = f"{one * 1000:>9.1f}ms {loop * 1000:>13.1f}ms {ratio:>5.2f}x {spent:>22} {whole:>16}"
                print(f"{n:>7,} {size:>6,}B {shape:>8} {cells}")
    for n, ratio in sorted(worst.items()):
        print(f"worst loop / one render at {n:,} steps: {ratio:.2f}x" + (" (target <= 3.0)" if n == 10_000 else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
