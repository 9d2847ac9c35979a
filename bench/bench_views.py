"""How fast the views of a 10,000-step run are, against one full render.messages of it.

Targets (issue 4): moving to any step costs at most 1/10 of one full render; the size and
cache-prefix series for every step cost at most 3x one full render. Each figure is the
median over rounds of (its time / the baseline's time in the same round), so a busy
machine slows both sides alike. Run:

    PYTHONPATH=. python bench/bench_views.py                 # 10,000 steps, 7 rounds
    PYTHONPATH=. python bench/bench_views.py --steps 2000 --rounds 3
    PYTHONPATH=. python bench/bench_views.py --shapes           # the series over texts of other shapes, worst cell

The shapes grid measures the series (the figure most bound to the bytes it counts) on the same run with its texts
(each result, summary and reason) rewritten: many escapes, non-ASCII text, a lone surrogate in each; a change to how
bytes are counted must not make any cell much worse.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _gen import step_records
from bench_render import timed

from agentrender import Decision, Observation, Step, render
from agentrender.runfile import Run
from agentrender.views import Views

STEPS = 10_000
ROUNDS = 7
TARGETS = {"move": 0.1, "series": 3.0}
"""The issue's bounds: a move at most 1/10 of a full render, the whole series at most 3 renders."""


def ratio(
    candidate: Callable[[], Any], baseline: Callable[[], Any], per: int = 1, rounds: int = ROUNDS
) -> tuple[float, float]:
    """The median over rounds of candidate time (divided by ``per``) over baseline time: gc on, gc paused."""
    medians = []
    for collect in (True, False):
        ratios = []
        for _ in range(rounds):
            base = timed(baseline, collect=collect)
            ratios.append(timed(candidate, collect=collect) / per / base)
        medians.append(statistics.median(ratios))
    return medians[0], medians[1]


def _escapes(text: str) -> str:
    return text.replace("e", "\\").replace(" ", "\t").replace("a", "\x01")


def _non_ascii(text: str) -> str:
    return text.replace("e", "\u00e9").replace("o", "\u8a9e").replace("a", "\U0001f642")


def _lone_surrogate(text: str) -> str:
    return text + "\ud800"


SHAPES: dict[str, Callable[[str], str]] = {
    "ASCII, newlines and quotes (the run of the figures)": str,
    "many escapes (each e a backslash, each space a tab, each a the control character U+0001)": _escapes,
    "non-ASCII (each e an accented e, each o a CJK character, each a an astral emoji)": _non_ascii,
    "a lone surrogate at the end of each text": _lone_surrogate,
}
"""Each shape of text the grid measures, and how it rewrites each text of the run (its results, summaries, reasons)."""


def bench_run(steps: int, shape: Callable[[str], str] = str) -> Run:
    """The benchmark's run of ``steps`` steps, each text of its steps rewritten by ``shape``."""
    records = step_records(steps)
    for record in records:
        decision, observation = record["decision"], record["observation"]
        decision["reason"] = shape(decision["reason"])
        observation["content"], observation["summary"] = shape(observation["content"]), shape(observation["summary"])
    return Run(
        header={"run_id": "bench", "goal": "Benchmark the views."},
        steps=tuple(
            Step(index=r["index"], decision=Decision(**r["decision"]), observation=Observation(**r["observation"]))
            for r in records
        ),
    )


def shape_figures(steps: int = STEPS, rounds: int = ROUNDS) -> list[tuple[str, tuple[float, float]]]:
    """The series' ratio to one full render (fresh ``Views``, gc on and paused) on the run of each of ``SHAPES``."""
    cells = []
    for name, shape in SHAPES.items():
        run = bench_run(steps, shape)
        options = run.options()
        everything = run.step_input(None)
        cells.append(
            (
                name,
                ratio(
                    lambda run=run, options=options: Views(run, options).sizes(),
                    lambda everything=everything, options=options: render.messages(everything, options),
                    1,
                    rounds,
                ),
            )
        )
    return cells


def figures(steps: int = STEPS, rounds: int = ROUNDS) -> list[tuple[str, tuple[float, float], float | None]]:
    """Each measure's name, its ratio to one full render of a ``steps``-step run, and its target."""
    run = bench_run(steps)
    options = run.options()
    everything = run.step_input(None)

    def baseline() -> None:
        render.messages(everything, options)

    views = Views(run, options)
    views.messages(None)  # the per-step renders, computed once
    views.sizes()  # and their sizes
    rng = random.Random(1)
    targets = [rng.randrange(steps + 1) for _ in range(100)]
    return [
        (
            "moving to a random step (View.messages)",
            ratio(lambda: [views.at(k).messages for k in targets], baseline, 100, rounds),
            TARGETS["move"],
        ),
        ("moving to the last step", ratio(lambda: views.at(steps).messages, baseline, 1, rounds), TARGETS["move"]),
        (
            "moving to a random step with its bytes and change",
            ratio(lambda: [(v.bytes, v.change) for v in map(views.at, targets)], baseline, 100, rounds),
            TARGETS["move"],
        ),
        (
            "first view of a fresh Views (every step rendered in the form it shows)",
            ratio(lambda: Views(run, options).at(steps).messages, baseline, 1, rounds),
            None,
        ),
        (
            "size and cache-prefix series for every step, fresh Views",
            ratio(lambda: Views(run, options).sizes(), baseline, 1, rounds),
            TARGETS["series"],
        ),
        ("the same series again, renders and sizes cached", ratio(views.sizes, baseline, 1, rounds), None),
        (
            "the facts of one view, fresh Views (View.steps, and each step's result block)",
            ratio(lambda: [fact.result_block for fact in Views(run, options).at(None).steps], baseline, 1, rounds),
            None,
        ),
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=STEPS)
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--shapes", action="store_true", help="the series over each of SHAPES, and the worst cell")
    arguments = parser.parse_args(argv)
    if arguments.shapes:
        print(
            f"the size and cache-prefix series of a {arguments.steps:,}-step run, fresh Views, by the shape of its "
            f"texts: the median of {arguments.rounds} rounds of (its time / one full render.messages of that run)"
        )
        cells = shape_figures(arguments.steps, arguments.rounds)
        for name, (on, paused) in cells:
            print(f"{name}: {on:.4f}x gc on, {paused:.4f}x gc paused")
        worst, (on, _) = max(cells, key=lambda cell: cell[1][0])
        print(f"worst cell, gc on: {worst} ({on:.4f}x)")
        return
    print(
        f"views of a {arguments.steps:,}-step run, each figure the median of {arguments.rounds} rounds "
        "of (its time / one full render.messages of the run)"
    )
    for name, (on, paused), target in figures(arguments.steps, arguments.rounds):
        bound = f"  (target <= {target:g}: {'met' if on <= target else 'MISSED'} with gc on)" if target else ""
        print(f"{name}: {on:.4f}x gc on, {paused:.4f}x gc paused{bound}")


if __name__ == "__main__":
    main()
