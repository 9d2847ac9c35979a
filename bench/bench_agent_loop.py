"""What an agent loop that renders before every model call pays for rendering, incrementally and whole.

    python bench/bench_agent_loop.py [--steps 1000 2000 5000 10000] [--result-bytes 200 3000] [--repeat 3]

An agent renders its conversation before each model call: over a run of n steps that is n
renders. ``render.messages`` of the whole conversation at every step costs about n/2 full
renders; ``render.Renderer`` renders each step once (and its user turn once more when it
leaves the window), so the whole loop costs about one full render. For each size the script
prints the loop's total render time with the ``Renderer`` divided by one full render of the
final conversation (target: <= 3.0 at 10,000 steps), and the same for ``render.messages`` at
every step where it finishes in reasonable time (up to 2,000 steps). The garbage collector
runs as it does in a user's agent; the figure of each cell is the best of ``--repeat``.
"""

from __future__ import annotations

import argparse
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


def best(call: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return min(times)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, nargs="+", default=[1_000, 2_000, 5_000, 10_000])
    parser.add_argument("--result-bytes", type=int, nargs="+", default=[200, 3_000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    options = render.Options(opening=OPENING)
    worst = 0.0
    print(f"{'steps':>7} {'result':>7} {'one render':>11} {'loop, Renderer':>15} {'ratio':>6} {'whole each step':>16}")
    for size in args.result_bytes:
        for n in args.steps:
            steps = steps_from_lines(step_lines(n, content_bytes=size))
            # the slices an agent loop's step inputs hold are made outside the timed render in both loops
            one = best(lambda steps=steps: render.messages(StepInput(steps=steps), options), args.repeat)
            loop = best(lambda steps=steps: incremental_loop(steps, options), args.repeat)
            ratio = loop / one
            worst = max(worst, ratio)
            whole = ""
            if n <= WHOLE_UP_TO:
                whole = f"{best(lambda steps=steps: whole_loop(steps, options), 1) / one:,.0f}x"
            print(f"{n:>7,} {size:>6,}B {one * 1000:>9.1f}ms {loop * 1000:>13.1f}ms {ratio:>5.2f}x {whole:>16}")
    print(f"worst loop / one render: {worst:.2f}x (target <= 3.0)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
