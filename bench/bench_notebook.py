"""The notebook widgets on long runs: the first display and a slider move, against ``load_run`` of the same file.

Run with ``PYTHONPATH=. python bench/bench_notebook.py`` (``--steps`` and ``--results``
change the grid; ``--repeat`` the best-of). Each cell of the grid is a generated run file
(``bench_frame.write_run``: a model call and a step record per step) of that many steps,
with results of about that many bytes. Measured in this process, best of ``repeat``:

- ``load_run(path)``: the baseline, what a user waits for before any widget;
- ``RunExplorer(run)``: the first display, from a loaded run to a widget whose every HTML
  (the first page of the steps table, the conversation's view after the last step, the
  first reply) is built;
- ``ConversationView(run)``: the same for the conversation alone;
- a slider move: the explorer's conversation slider set to each of 20 random steps in turn,
  with the conversation tab open (where the slider is), the mean per move;
- a page turn: with the steps tab open, the next and previous page buttons clicked in turn
  from the middle of the table, the mean per click (what a move costs when the table shows);
- a filter change: with the steps tab open, the tool filter set to each tool of the run and
  back to all, the mean per change (the whole steps frame, which the first filter builds, is
  built before: a change filters it and shows the first page of what it keeps).

Each figure is printed as a ratio to ``load_run`` and in seconds, beside the issue's bounds
(the first display under 1 s, a move under 50 ms); the worst cell of each is printed last.
The browser's figures for the same (the widget round trip through JupyterLab) come from
``tests/test_notebook_scale_browser.py``, which writes them to ``bench/results/``.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _gen import best_of
from bench_frame import write_run

STEPS = (2_000, 20_000, 100_000)
RESULTS = (200, 3_000, 30_000)
"""The grid: steps per run, and the bytes of a result (the generator varies each by half either way)."""
BOUNDS = {"first display": 1.0, "slider move": 0.05, "page turn": 0.05}
"""The issue's bounds, in seconds (it set none for a filter change)."""
MOVES = 20


def measure(path: Path, steps: int, repeat: int) -> dict[str, float]:
    """Seconds of each measure on the run file at ``path``."""
    from agentrender.notebook import ConversationView, RunExplorer
    from agentrender.runfile import load_run

    load = best_of(repeat, lambda: load_run(path))
    run = load_run(path)
    first = best_of(repeat, lambda: RunExplorer(run))
    conversation = best_of(repeat, lambda: ConversationView(run))
    explorer = RunExplorer(run)
    first_page = f"rows 1-{min(steps, explorer.page_rows):,} of {steps:,}"
    assert explorer.rows_label.value == first_page, "the explorer is not showing its first page"
    rng = random.Random(3)
    targets = [rng.randrange(steps + 1) for _ in range(MOVES)]

    def moves() -> None:
        for step in targets:
            explorer.conversation.at = step

    explorer.tabs.selected_index = 1
    move = best_of(repeat, moves) / MOVES
    explorer.tabs.selected_index = 0
    assert explorer.marked_step in (targets[-1], None), "the table did not follow the slider"
    explorer.page = explorer.pages // 2

    def turns() -> None:
        for _ in range(MOVES // 2):
            explorer.next_page_button.click()
            explorer.previous_page_button.click()

    turn = best_of(repeat, turns) / MOVES
    from agentrender.notebook.explorer import ALL

    tools = [value for _, value in explorer.tool_filter.options if value != ALL]
    explorer.tool_filter.value = tools[0]  # the first filter builds the whole frame: outside the timing
    explorer.tool_filter.value = ALL

    def changes() -> None:
        for tool in tools:
            explorer.tool_filter.value = tool
            explorer.tool_filter.value = ALL

    change = best_of(repeat, changes) / (2 * len(tools))
    assert explorer.matched == steps, "the tool filter did not come back to all steps"
    return {
        "load_run": load,
        "first display": first,
        "ConversationView": conversation,
        "slider move": move,
        "page turn": turn,
        "filter change": change,
    }


def main(argv: list[str] | None = None) -> list[tuple[int, int, dict[str, float]]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, nargs="+", default=list(STEPS))
    parser.add_argument("--results", type=int, nargs="+", default=list(RESULTS), help="bytes of a result")
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args(argv)
    _warm_up()
    cells: list[tuple[int, int, dict[str, float]]] = []
    print(f"notebook widgets, best of {options.repeat}; ratios to load_run of the same file, and seconds")
    print(
        f"{'steps':>8} {'result':>7} {'load_run':>9} {'explorer':>17} {'conversation':>17} {'slider move':>17}"
        f" {'page turn':>17} {'filter change':>17}"
    )
    with tempfile.TemporaryDirectory(prefix="bench_notebook_") as tmp:
        for steps in options.steps:
            for result in options.results:
                path = write_run(Path(tmp) / f"run-{steps}-{result}.jsonl", steps, content_bytes=result)
                figures = measure(path, steps, options.repeat)
                path.unlink()
                cells.append((steps, result, figures))
                load = figures["load_run"]
                print(
                    f"{steps:>8,} {result:>6,}B {load:8.2f}s"
                    + "".join(
                        f" {figures[name] / load:7.4f}x {_seconds(figures[name]):>8}"
                        for name in ("first display", "ConversationView", "slider move", "page turn", "filter change")
                    )
                )
    for name in (*BOUNDS, "filter change"):
        steps, result, figures = max(cells, key=lambda cell: cell[2][name])
        bound = BOUNDS.get(name)
        verdict = "" if bound is None else f"; bound {_seconds(bound)}: {'met' if figures[name] <= bound else 'MISSED'}"
        print(
            f"worst {name}: {_seconds(figures[name])} ({figures[name] / figures['load_run']:.4f}x load_run) "
            f"at {steps:,} steps of {result:,}-byte results{verdict}"
        )
    return cells


def _seconds(value: float) -> str:
    return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"


def _warm_up() -> None:
    """Import what the first widget of a session imports (pandas, ipywidgets) outside the timings."""
    from agentrender import Decision, Observation, Step
    from agentrender.notebook import RunExplorer
    from agentrender.runfile import Run

    step = Step(index=0, decision=Decision(kind="tool_call", tool="t"), observation=Observation(content="x"))
    run: Any = Run(header={"run_id": "warm", "goal": "Warm up."}, steps=(step,))
    RunExplorer(run)


if __name__ == "__main__":
    main()
