"""How fast the core renders and decides, as ratios against json.loads in the same process.

    python bench/bench_render.py [--steps 10000] [--replies 10000] [--repeat 7] [--result-bytes 200 1024 3000 30720]
                                 [--clock cpu|wall] [--passes] [--faults]

render: ``render.messages`` of a generated run plus ``to_dict()`` of every message, and
``render.wire_messages`` (the same wire form made in one pass, what an agent sends), against
``json.loads`` of that run's step lines (what reading the run costs), for each size of result.
Target, with the collector on (``render_target``): <= 1.0 at 200 B, <= 0.6 at 1 KiB, <= 0.5
from 3 KiB. ``json.loads`` costs by the byte and the render by the step, so the smallest
results give the worst ratio.
decide: ``render.decide`` over captured replies (already read into ``ModelResponse``), and
``ModelResponse.from_dict`` + ``decide``, against ``json.loads`` of the reply lines.

Each figure is the best of ``--repeat`` runs, measured twice: with the garbage collector
running as usual, and paused around each timed call (``timeit``'s convention). Each render's
cell (one of ``RENDERS`` at one size of result) runs in a fresh process of its own, where its
work and its baseline alternate (``measure_cell``): in one process a cell met the memory the
cells before it had freed, so its figure moved with the other sizes a run asked for. Times are CPU
time (``time.process_time``) unless ``--clock wall``: on a machine shared with other work the
wall clock also counts the waits for a processor, which fall on the work and its baseline
unequally. ``--passes`` also counts the collector's passes of each generation a call sets off
(``collector_passes``), for the render and for its baseline; ``--faults`` the pages a call faults
in (``page_faults``): each side's times include mapping the memory of what it makes, as any
process that frees what it rendered pays at every call (bench/README.md, session 36).
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

# Run as a script from anywhere: the generator sits beside this file, the package one level up.
for _path in (Path(__file__).resolve().parents[1], Path(__file__).resolve().parent):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from _gen import CLOCKS, clock_name, in_fresh_process, reply_lines, step_lines  # noqa: E402

from agentrender import Decision, ModelResponse, Observation, Step, StepInput, render  # noqa: E402

Row = tuple[str, float, float, float]

OPENING = "Fix the failing test in src/. The repository is a Python package; run the tests with run_tests."


def steps_from_lines(lines: Sequence[str]) -> list[Step]:
    """The steps a run file's step lines hold (the reading a run loader does, kept minimal here)."""
    steps = []
    for line in lines:
        record = json.loads(line)
        decision, observation = record.get("decision"), record.get("observation")
        steps.append(
            Step(
                index=record["index"],
                decision=Decision(**decision) if decision is not None else None,
                observation=Observation(**observation) if observation is not None else None,
            )
        )
    return steps


def load_lines(lines: Sequence[str]) -> list[Any]:
    """The baseline: parse every line."""
    loads = json.loads
    return [loads(line) for line in lines]


def render_wire(step_input: StepInput, options: render.Options) -> list[dict[str, Any]]:
    """What an agent that keeps the ``Message``s does before each model call: render, then take the wire form."""
    return [message.to_dict() for message in render.messages(step_input, options)]


def decide_all(responses: Sequence[ModelResponse]) -> list[Decision]:
    """What an agent does after each model call: turn the reply into a decision."""
    decide = render.decide
    return [decide(response) for response in responses]


def read_and_decide_all(lines: Sequence[str]) -> list[Decision]:
    """Parse, read and decide each captured reply, from its JSON line."""
    loads, from_dict, decide = json.loads, ModelResponse.from_dict, render.decide
    return [decide(from_dict(loads(line))) for line in lines]


def timed(function: Callable[[], object], *, collect: bool, clock: Callable[[], float] = time.perf_counter) -> float:
    """One call's time in seconds by ``clock``; ``collect=False`` pauses the collector around it."""
    enabled = gc.isenabled()
    if not collect:
        gc.disable()
    try:
        start = clock()
        function()
        return clock() - start
    finally:
        if enabled:
            gc.enable()


def compare(
    what: str,
    work: Callable[[], object],
    baseline: Callable[[], object],
    repeat: int,
    clock: Callable[[], float] = time.process_time,
) -> list[Row]:
    """One row per collector convention: the best of ``repeat`` for the work and for the baseline, and their ratio.

    The two alternate, so a busy moment on a shared machine weighs on both alike.
    """
    rows = []
    for collect in (True, False):
        work_time = base_time = float("inf")
        for _ in range(repeat):
            work_time = min(work_time, timed(work, collect=collect, clock=clock))
            base_time = min(base_time, timed(baseline, collect=collect, clock=clock))
        rows.append((f"{what} [gc {'on' if collect else 'paused'}]", work_time, base_time, work_time / base_time))
    return rows


RESULT_BYTES = (200, 1024, 3000, 30_720)
"""The sizes of result the render is measured on (about that many bytes each)."""


def render_target(result_bytes: int) -> float:
    """The most the render may cost against ``json.loads`` at a size of result, the collector on."""
    if result_bytes < 1024:
        return 1.0
    return 0.6 if result_bytes < 3000 else 0.5


RENDERS = ("render.messages + to_dict", "render.wire_messages")
"""The two ways to the wire form that are measured: through the ``Message``s, and in one pass."""


def render_label(result_bytes: int, what: str = RENDERS[0]) -> str:
    return f"{what}, {result_bytes:,} B results"


def measure(
    steps: int = 10_000,
    replies: int = 10_000,
    repeat: int = 7,
    result_bytes: Sequence[int] = RESULT_BYTES,
    clock: Callable[[], float] = time.process_time,
) -> list[Row]:
    """Rows of ``(what, seconds, baseline seconds, ratio)``; each measure holds only its own data in memory, and each
    render's cell is measured in a fresh process (``measure_cell``)."""
    rows = [row for size in result_bytes for row in measure_render(steps, repeat, size, clock)]
    return rows + measure_decide(replies, repeat, clock) + measure_read_and_decide(replies, repeat, clock)


def render_case(
    steps: int, result_bytes: int, what: str = RENDERS[0]
) -> tuple[Callable[[], object], Callable[[], object]]:
    """The render's work on a generated run of ``steps`` steps (``what``: one of ``RENDERS``), and its baseline
    (``json.loads`` of the run's lines)."""
    lines = step_lines(steps, content_bytes=result_bytes)
    step_input = StepInput(steps=steps_from_lines(lines))
    options = render.Options(opening=OPENING)
    if what == RENDERS[1]:
        return lambda: render.wire_messages(step_input, options), lambda: load_lines(lines)
    return lambda: render_wire(step_input, options), lambda: load_lines(lines)


def measure_render(
    steps: int, repeat: int, result_bytes: int = 3000, clock: Callable[[], float] = time.process_time
) -> list[Row]:
    """Both ``RENDERS`` at one size of result, each in a fresh process of its own (``measure_cell``)."""
    return [row for what in RENDERS for row in measure_cell(steps, repeat, result_bytes, what, clock)]


def measure_cell(
    steps: int,
    repeat: int,
    result_bytes: int,
    what: str = RENDERS[0],
    clock: Callable[[], float] = time.process_time,
) -> list[Row]:
    """``compare_cell`` in a fresh Python process (``in_fresh_process``): the cell as a user's process meets it,
    holding its own run and nothing an earlier cell let go of.

    In one process a cell met the memory the cells before it had freed, of which the small-object
    allocator and ``malloc`` keep some mapped: after the 200 B cells, ``json.loads`` of the 1 KiB
    lines faulted in 3,290-3,550 pages a call and ``to_dict`` 1,484-1,752, where alone they fault
    4,262-4,318 and 2,480 (``page_faults``), and the 1 KiB cell measured 0.54-0.69 collector on,
    0.47-0.61 alone (bench/README.md, session 36). So the other sizes a run asked for
    (``--result-bytes``) moved a cell's figure.
    """
    label = render_label(result_bytes, what)
    rows = in_fresh_process(label, "bench_render", "compare_cell", steps, repeat, result_bytes, what, clock_name(clock))
    return [(label, work, base, ratio) for label, work, base, ratio in rows]


def compare_cell(steps: int, repeat: int, result_bytes: int, what: str, clock_name: str) -> list[Row]:
    """``compare`` of one of ``RENDERS`` (``what``) and its baseline at one size of result, in this process, timed by
    ``CLOCKS[clock_name]``."""
    work, baseline = render_case(steps, result_bytes, what)
    return compare(render_label(result_bytes, what), work, baseline, repeat, CLOCKS[clock_name])


Passes = tuple[float, float, float]


def collector_passes(function: Callable[[], object], calls: int = 7) -> Passes:
    """The collector's passes a call of ``function`` sets off, of each generation (young, middle, full), on average.

    A pass is set off by every 700 containers made (tracked or not) and not freed since the last:
    a young one, but a middle one in place of every eleventh, and a full one in place of every
    eleventh middle one, so a full pass comes every ~85,000. The render's wire form makes seven a
    step and its turns two tuples, ~85,000 at 10,000 steps; ``json.loads`` four dictionaries a
    line. ``render.wire_messages`` makes the wire form's seven alone. A full pass walks every tracked
    container the process holds, so a best-of-N time with the collector on counts one only for a
    side whose every call sets one off.
    """
    passes = [0, 0, 0]

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "stop":
            passes[info["generation"]] += 1

    gc.callbacks.append(count)
    try:
        for _ in range(calls):
            function()
    finally:
        gc.callbacks.remove(count)
    young, middle, full = (count / calls for count in passes)
    return young, middle, full


def measure_passes(steps: int, result_bytes: int, what: str = RENDERS[0]) -> tuple[Passes, Passes]:
    """``collector_passes`` of the render's work (``what``) and of its baseline, at one size of result."""
    work, baseline = render_case(steps, result_bytes, what)
    return collector_passes(work), collector_passes(baseline)


def page_faults(function: Callable[[], object], calls: int = 7) -> float:
    """The pages a call of ``function`` faults in (the process's minor faults, ``getrusage``), on average over
    ``calls`` calls after a first one (which also maps what the later ones find mapped).

    The small-object allocator gives an arena (1 MiB) back to the system as soon as nothing in it
    is alive, so a call that makes more than the process has free maps fresh memory, and the
    system zeroes each page at its first touch: ~3 us a page on bench/README.md's machine (session
    36). The render's wire form (~11 MB at 10,000 steps) is freed after each call, as an agent's is
    at the next step, so every call maps it anew: ~2,300-2,900 pages, and ``json.loads`` of the
    lines ~4,300-4,800. Each side's time counts its own; where the process's other objects lie
    decides how many a call meets, not the size of the results (they are about a third of
    ``to_dict``'s time, at 1 KiB and at 3 KiB alike).
    """
    function()
    start = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(calls):
        function()
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - start) / calls


def measure_faults(steps: int, result_bytes: int, what: str = RENDERS[0]) -> tuple[float, float]:
    """``page_faults`` of the render's work (``what``) and of its baseline, at one size of result."""
    work, baseline = render_case(steps, result_bytes, what)
    return page_faults(work), page_faults(baseline)


def measure_decide(replies: int, repeat: int, clock: Callable[[], float] = time.process_time) -> list[Row]:
    lines = reply_lines(replies)
    responses = [ModelResponse.from_dict(json.loads(line)) for line in lines]
    return compare("render.decide", lambda: decide_all(responses), lambda: load_lines(lines), repeat, clock)


def measure_read_and_decide(replies: int, repeat: int, clock: Callable[[], float] = time.process_time) -> list[Row]:
    lines = reply_lines(replies)
    return compare("from_dict + decide", lambda: read_and_decide_all(lines), lambda: load_lines(lines), repeat, clock)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=10_000, help="steps in the generated run")
    parser.add_argument("--replies", type=int, default=10_000, help="captured replies to decide")
    parser.add_argument("--repeat", type=int, default=7, help="best of this many runs")
    parser.add_argument("--result-bytes", type=int, nargs="+", default=RESULT_BYTES, help="sizes of result")
    parser.add_argument("--clock", choices=CLOCKS, default="cpu", help="time by CPU time (default) or the wall clock")
    parser.add_argument("--passes", action="store_true", help="also count the collector's passes a render sets off")
    parser.add_argument("--faults", action="store_true", help="also count the pages a render faults in")
    args = parser.parse_args(argv)
    print(
        f"python {sys.version.split()[0]}, {args.steps} steps, {args.replies} replies, best of {args.repeat}, "
        f"{args.clock} time"
    )
    print(f"{'':56} {'time':>9} {'json.loads':>11} {'ratio':>6}")
    rows = measure(args.steps, args.replies, args.repeat, args.result_bytes, CLOCKS[args.clock])
    for label, work_time, base_time, ratio in rows:
        print(f"{label:56} {work_time * 1000:7.1f}ms {base_time * 1000:9.1f}ms {ratio:6.2f}")
    ratios = {label: ratio for label, _, _, ratio in rows}
    for what in RENDERS:
        worst = max(
            args.result_bytes, key=lambda size: ratios[f"{render_label(size, what)} [gc on]"] / render_target(size)
        )
        label = f"{render_label(worst, what)} [gc on]"
        print(f"worst render with the collector on: {label} -> {ratios[label]:.2f} (target <= {render_target(worst)})")
    counts: tuple[tuple[bool, str, Callable[[int, int, str], tuple[Any, Any]], Callable[[Any], str]], ...] = (
        (args.passes, "collector passes a call (young / middle / full)", measure_passes, _passes),
        (args.faults, "pages faulted in a call", measure_faults, _pages),
    )
    for asked, title, count, shown in counts:
        if not asked:
            continue
        print(f"{title}, collector on:")
        for what in RENDERS:
            for size in args.result_bytes:
                work, baseline = count(args.steps, size, what)
                print(f"  {what}, {size:>6,} B results: {shown(work)}, json.loads {shown(baseline)}")


def _passes(passes: Passes) -> str:
    return " / ".join(f"{count:.1f}" for count in passes)


def _pages(pages: float) -> str:
    return f"{pages:,.0f}"


if __name__ == "__main__":
    main()
