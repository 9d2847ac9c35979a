"""The offline page (``agentrender html``) of generated runs: its size against the run file's, and a step move in
Chromium against a jump that shares no turn with the view before it.

Two ratios, each against a baseline measured in the same process:

- ``page / run file``: the page's bytes over its run file's, at each size. A page stores each text once and each view
  as a few numbers, so the ratio must not grow with the run (a view stored whole would make it grow with the steps).
- ``move / jump``: 100 one-step moves (the arrow key) over 100 jumps between views far apart (the slider), both laid
  out in the page once its parts and texts are read (a first pass reads them, the second is timed; the median over
  rounds). A jump shares no turn with the view before it, so it lays out every turn on screen; a move shares all
  but one or two, so a page that lays out only what changed moves at a fraction of a jump's cost (one that redraws
  the whole view, at about 1).

A file of many runs (``--log``: a real eval log's samples, each a run) as one page, against a page of each run:

- ``one page / a page each``: the bytes of the page of every run over the sum of each run's own page (the script,
  the style and the texts the runs share, stored once), and the bytes each run adds to it, a step.
- ``first paint / first run alone``: the time to the first view shown (``data-ready``) of the page of every run over
  that of the page of its first run alone (the median over rounds): each other run is read only when shown, so the
  ratio stays near 1 however many runs the page holds.

    PYTHONPATH=. python bench/bench_page.py                    # 1,000 and 10,000 steps of 3 KiB results
    PYTHONPATH=. python bench/bench_page.py --steps 500 --rounds 1
    PYTHONPATH=. python bench/bench_page.py --steps --log tests/fixtures/real/inspect/METR-inspect-action/small.eval
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _gen import step_lines

from agentrender import html, imports, load_run

STEPS = (1_000, 10_000)
CONTENT_BYTES = 3_072
ROUNDS = 3
MOVES = 100

_MOVES = """([count, far]) => {
  const slider = document.querySelector('input[aria-label=step]'), last = Number(slider.max);
  const jump = (stop) => { slider.value = String(stop); slider.dispatchEvent(new Event('input')); };
  const key = () => document.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowLeft', bubbles: true }));
  const stops = Array.from({ length: count }, (_, i) => last - (i % 2 ? far + i : i));
  const laidOut = () => void document.body.offsetHeight;
  const timed = (work) => { const t = performance.now(); work(); laidOut(); return performance.now() - t; };
  const moves = () => { jump(last); laidOut(); return timed(() => { for (let i = 0; i < count; i++) key(); }); };
  const jumps = () => timed(() => { for (const stop of stops) jump(stop); });
  moves(); jumps();  // the parts and texts both read: the timed pass lays out, reads nothing
  return [moves(), jumps()];
}"""
"""In the page: the time of ``count`` one-step moves back from the last view, and of ``count`` jumps between views
``far`` apart and more (none shares a turn with the one before it), each after a pass that read what it shows."""


def write_run(folder: Path, steps: int, content_bytes: int = CONTENT_BYTES) -> Path:
    """A generated run of ``steps`` steps (``_gen.step_lines``), written to ``folder``."""
    path = folder / f"run-{steps}.jsonl"
    header = json.dumps({"type": "run", "format": "agentrender.run/1", "run_id": f"gen{steps}", "goal": "go"})
    path.write_text("\n".join([header, *step_lines(steps, content_bytes=content_bytes)]) + "\n", encoding="utf-8")
    return path


def page_ratio(run_path: Path) -> tuple[Path, float]:
    """The page of the run at ``run_path``, written beside it, and its size over the run file's."""
    page_path = run_path.with_suffix(".html")
    html.save(load_run(run_path), page_path)
    return page_path, page_path.stat().st_size / run_path.stat().st_size


def move_ratio(browser: Any, page_path: Path, rounds: int = ROUNDS, moves: int = MOVES) -> tuple[float, float]:
    """The median over rounds of (``moves`` moves / as many jumps) in the page at ``page_path``, and a move's ms."""
    page = browser.new_page(viewport={"width": 1200, "height": 1000})
    try:
        page.goto(page_path.as_uri(), timeout=120_000)
        page.wait_for_selector('#ar-page[data-ready][data-pending="0"]', state="attached", timeout=120_000)
        far = 2 * int(page.evaluate("() => document.querySelector('label input[type=number]').value"))
        timings = [page.evaluate(_MOVES, [moves, far]) for _ in range(rounds)]
    finally:
        page.close()
    return statistics.median(move / jump for move, jump in timings), statistics.median(m for m, _ in timings) / moves


def log_ratios(log: Path, folder: Path) -> tuple[Path, Path, dict[str, float]]:
    """The page of every run of ``log`` and the page of its first run alone, written to ``folder``, and the bytes of
    the one over the sum of each run's own page, with what a run and a step add to it."""
    runs = imports.load_runs(log)
    every, alone = folder / f"{log.stem}-every.html", folder / f"{log.stem}-first.html"
    html.save(runs[0], every, beside=runs, every=True)
    html.save(runs[0], alone)
    each = sum(len(html.page(run).encode("utf-8")) for run in runs)
    added = every.stat().st_size - alone.stat().st_size  # what the runs after the first add
    steps = sum(len(run.steps) for run in runs[1:])
    return (
        every,
        alone,
        {
            "runs": len(runs),
            "one page / a page each": every.stat().st_size / each,
            "one page bytes": every.stat().st_size,
            "bytes a run adds": added / max(1, len(runs) - 1),
            "steps a run": steps / max(1, len(runs) - 1),
        },
    )


def first_paint(browser: Any, page_path: Path) -> float:
    """The ms from the page's start to its first view shown (``data-ready``), once."""
    page = browser.new_page(viewport={"width": 1200, "height": 1000})
    try:
        page.goto(page_path.as_uri(), timeout=120_000)
        page.wait_for_selector('#ar-page[data-ready][data-pending="0"]', state="attached", timeout=120_000)
        return float(page.evaluate("() => Number(document.getElementById('ar-page').dataset.ready)"))
    finally:
        page.close()


def main(argv: list[str] | None = None) -> dict[int, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, nargs="*", default=list(STEPS))
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--no-browser", action="store_true", help="the sizes alone")
    parser.add_argument("--log", type=Path, nargs="*", default=[], help="files of many runs, each as one page")
    args = parser.parse_args(argv)
    figures: dict[int, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        logs = {}
        for log in args.log:
            every, alone, said = log_ratios(log, Path(folder))
            logs[log] = (every, alone)
            print(
                f"{log.name}: {said['runs']:,} runs, one page {said['one page bytes']:,.0f} bytes, / a page each "
                f"{said['one page / a page each']:.3f}; a run adds {said['bytes a run adds']:,.0f} bytes "
                f"({said['steps a run']:.1f} steps a run)"
            )
        pages = {}
        for steps in args.steps:
            pages[steps], ratio = page_ratio(write_run(Path(folder), steps))
            figures[steps] = {"page / run file": ratio}
            print(f"{steps:>7,} steps: page / run file {ratio:.3f}")
        if args.no_browser:
            return figures
        from playwright.sync_api import sync_playwright

        from tests._support.browser import CHROMIUM, FLAGS

        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
            try:
                for log, (every, alone) in logs.items():
                    paints = [(first_paint(browser, every), first_paint(browser, alone)) for _ in range(args.rounds)]
                    ratio = statistics.median(one / other for one, other in paints)
                    ms = statistics.median(one for one, _ in paints)
                    print(f"{log.name}: first paint / first run alone {ratio:.2f} ({ms:.0f} ms, every run)")
                for steps, page_path in pages.items():
                    ratio, each = move_ratio(browser, page_path, args.rounds)
                    figures[steps] |= {"move / jump": ratio, "move ms": each}
                    print(f"{steps:>7,} steps: move / jump {ratio:.2f} (a move {each:.2f} ms in the page)")
            finally:
                browser.close()
    return figures


if __name__ == "__main__":
    main()
