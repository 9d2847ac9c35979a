"""The explorer on a 100,000-step run in JupyterLab: its first display and slider moves, timed in the page.

The figures (milliseconds by ``performance.now()`` in Chromium, through the real widget round
trip: the key press, the comm message to the kernel, the widget's update back, the DOM) are
printed and written to ``tests/artifacts/notebook-scale.json``, beside the same moves of a bare
``IntSlider`` whose observer sets an ``HTML`` widget (the baseline, in the same page and kernel:
the least a move costs through the round trip); no time is asserted. What is
asserted: after each move the view shows the step moved to, and the steps table shows the page
holding it with its row highlighted.
"""

from __future__ import annotations

import json
import os
import re
import statistics
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from tests._support.browser import CHROMIUM, FLAGS
from tests._support.jupyterlab import Lab, code_notebook, open_notebook
from tests._support.sweep import LONG_RUN_STEPS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

STEPS = LONG_RUN_STEPS
ARTIFACTS = Path(__file__).parent / "artifacts"
STEP_MS = 120_000
"""The bound on each wait in the page (loading a 100,000-step run in the kernel on a busy 2-core machine)."""
NOTEBOOK = "scale.ipynb"

# Times from the next keydown (capture phase, so before any widget sees it) to the first DOM
# change after which a visible element matching the selector has text matching the pattern.
MOVE_WATCH = r"""
([selector, expected]) => {
  window.__arMoved = null;
  const pattern = new RegExp(expected);
  let start = null;
  document.addEventListener("keydown", () => { start = performance.now(); }, { capture: true, once: true });
  const shown = () => [...document.querySelectorAll(selector)].some(
    (element) => element.offsetParent !== null && pattern.test(element.textContent)
  );
  const observer = new MutationObserver(() => {
    if (start !== null && shown()) {
      observer.disconnect();
      window.__arMoved = performance.now() - start;
    }
  });
  observer.observe(document.body, { subtree: true, childList: true, characterData: true });
}
"""
VIEW_AT = ".jp-OutputArea .agentrender .ar-header > span:first-child"
"""The first item of the view's header: ``view deciding step K``."""
BARE = "bare-round-trip"
"""The class of the baseline: a bare IntSlider whose observer sets an HTML widget to ``at K``."""
BARE_AT = f".jp-OutputArea .{BARE} .bare-at"
# Times from the Shift+Enter that runs the explorer's cell to the first page of its steps table in the DOM.
FIRST_WATCH = r"""
() => {
  window.__arShown = null;
  let start = null;
  document.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && event.shiftKey) start = performance.now();
  }, { capture: true });
  const observer = new MutationObserver(() => {
    if (start !== null && document.querySelector(".jp-OutputArea .widget-tab .agentrender table tbody tr")) {
      observer.disconnect();
      window.__arShown = performance.now() - start;
    }
  });
  observer.observe(document.body, { subtree: true, childList: true, characterData: true });
}
"""


@pytest.fixture
def jupyterlab(jupyter_lab: Lab, long_run: Path) -> Iterator[str]:
    """The session's JupyterLab over a notebook that loads the generated 100,000-step run, then shows a RunExplorer
    of it."""
    notebook = code_notebook(
        "import time\n"
        "import pandas, agentrender.notebook\n"
        "from agentrender.runfile import load_run\n"
        f"run = load_run({str(long_run)!r})\n"
        "len(run.steps)",
        "started = time.perf_counter()\n"
        "explorer = agentrender.notebook.RunExplorer(run)\n"
        "built = time.perf_counter() - started\n"
        "explorer",
        'print(f"kernel: RunExplorer(run) in {built * 1000:.0f} ms")',
        # The baseline: the least a slider move can cost through the same widget round trip.
        "import ipywidgets\n"
        f"bare = ipywidgets.IntSlider(value={STEPS}, max={STEPS})\n"
        "shown = ipywidgets.HTML(f\"<div class='bare-at'>at {bare.value}</div>\")\n"
        "bare.observe(lambda change: setattr(shown, 'value', f\"<div class='bare-at'>at {change['new']}</div>\"), "
        "names='value')\n"
        f"ipywidgets.VBox([bare, shown]).add_class({BARE!r})",
    )
    with jupyter_lab.opened(NOTEBOOK, notebook) as url:
        yield url


def run_cell(page: Any, number: int) -> None:
    """Select code cell ``number`` (from 0) and run it with Shift+Enter."""
    cell = page.locator(".jp-Notebook .jp-CodeCell").nth(number)
    cell.locator(".jp-InputArea-prompt").click()
    page.keyboard.press("Shift+Enter")


def visible(page: Any, selector: str) -> Any:
    return page.locator(f"{selector}:visible").first


def timed_move(page: Any, selector: str, expected: str, act: Any) -> float:
    """Milliseconds from the key ``act`` presses to the text of ``selector`` matching ``expected`` (a regex)."""
    page.evaluate(MOVE_WATCH, [selector, expected])
    act()
    page.wait_for_function("window.__arMoved !== null", timeout=STEP_MS)
    return float(page.evaluate("window.__arMoved"))


def slider_moves(page: Any, box: str, selector: str, prefix: str) -> list[tuple[str, float]]:
    """Move the visible slider in ``box`` by keys (5 left from the end, Home, 3 right, End) and by typing 4 steps
    into its readout; each move's milliseconds until ``selector`` reads ``prefix`` and the step."""
    handle = visible(page, f"{box} .widget-slider .noUi-handle")
    handle.scroll_into_view_if_needed()
    handle.focus()
    moves: list[tuple[str, float]] = []
    keys = [("ArrowLeft", k) for k in range(STEPS - 1, STEPS - 6, -1)]
    keys += [("Home", 0), ("ArrowRight", 1), ("ArrowRight", 2), ("ArrowRight", 3), ("End", STEPS)]
    for name, k in keys:
        moves.append((name, timed_move(page, selector, rf"{prefix}{k}(?!\d)", partial(handle.press, name))))
    readout = visible(page, f"{box} .widget-slider .widget-readout")
    for k in (54_321, 7_777, 99_000, 54_321):
        readout.click()
        page.keyboard.press("Control+A")
        page.keyboard.type(str(k))
        moves.append(("typed", timed_move(page, selector, rf"{prefix}{k}(?!\d)", lambda: page.keyboard.press("Enter"))))
    return moves


def test_the_explorer_of_a_100000_step_run_shows_quickly_and_follows_its_slider(jupyterlab: str) -> None:
    """On a 100,000-step run the explorer displays its first page, the slider moves the view to each step
    (by arrow keys, Home, End and a typed value), and the steps table then shows that step's page with its row
    highlighted; the times of each are printed and recorded, not asserted."""
    from playwright.sync_api import expect, sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1400})
            page.set_default_timeout(STEP_MS)
            open_notebook(page, jupyterlab)
            run_cell(page, 0)
            outputs = page.locator(".jp-Notebook .jp-CodeCell .jp-OutputArea-output")
            expect(outputs.first).to_contain_text(f"{STEPS}", timeout=STEP_MS)
            page.locator(".jp-StatusBar-TextItem", has_text="| Idle").first.wait_for(state="visible")

            page.evaluate(FIRST_WATCH)
            run_cell(page, 1)
            page.wait_for_function("window.__arShown !== null", timeout=STEP_MS)
            first_display = float(page.evaluate("window.__arShown"))
            rows_label = visible(page, ".jp-OutputArea .widget-tab .widget-label:has-text('rows ')")
            expect(rows_label).to_have_text(f"rows 1-50 of {STEPS:,}")
            run_cell(page, 2)
            kernel = page.locator(".jp-OutputArea-output", has_text="kernel: RunExplorer(run) in").first
            expect(kernel).to_be_visible()
            kernel_ms = int(re.findall(r"in (\d+) ms", kernel.inner_text())[0])

            visible(page, ".jp-OutputArea .lm-TabBar-tab:has-text('conversation')").click()
            header = visible(page, ".jp-OutputArea .agentrender .ar-header")
            expect(header).to_contain_text(f"deciding step {STEPS}")  # the view after the last step
            moves = slider_moves(page, ".jp-OutputArea .widget-tab", VIEW_AT, "deciding step ")
            expect(header.locator("span").first).to_have_text("view deciding step 54321")
            page.screenshot(path=str(ARTIFACTS / "notebook-scale-conversation.png"))

            visible(page, ".jp-OutputArea .lm-TabBar-tab:has-text('steps')").click()
            expect(rows_label).to_have_text(f"rows 54,301-54,350 of {STEPS:,}")
            current = visible(page, ".jp-OutputArea .agentrender tr.ar-current")
            expect(current.locator("td").first).to_have_text("54321")
            assert page.locator(".jp-OutputArea .agentrender tr.ar-current:visible").count() == 1
            current.scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / "notebook-scale-steps.png"))

            run_cell(page, 3)
            expect(visible(page, BARE_AT)).to_have_text(f"at {STEPS}")
            bare_moves = slider_moves(page, f".jp-OutputArea .{BARE}", BARE_AT, "at ")
            expect(visible(page, BARE_AT)).to_have_text("at 54321")

            no_errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
            assert no_errors.count() == 0, no_errors.first.inner_text()
        finally:
            browser.close()

    times = [ms for _, ms in moves]
    bare_times = [ms for _, ms in bare_moves]
    figures = {
        "steps": STEPS,
        "first_display_ms": round(first_display, 1),
        "kernel_build_ms": kernel_ms,
        "moves_ms": [[name, round(ms, 1)] for name, ms in moves],
        "move_median_ms": round(statistics.median(times), 1),
        "move_max_ms": round(max(times), 1),
        "bare_moves_ms": [[name, round(ms, 1)] for name, ms in bare_moves],
        "bare_move_median_ms": round(statistics.median(bare_times), 1),
        "move_over_bare": round(statistics.median(times) / statistics.median(bare_times), 2),
        "load_average": [round(load, 2) for load in os.getloadavg()],
    }
    (ARTIFACTS / "notebook-scale.json").write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    print(
        f"\nRunExplorer of a {STEPS:,}-step run in JupyterLab: first display {first_display:.0f} ms "
        f"(the kernel built it in {kernel_ms} ms); slider move to the updated view: median "
        f"{figures['move_median_ms']} ms, worst {figures['move_max_ms']} ms over {len(times)} moves; "
        f"a bare IntSlider's round trip {figures['bare_move_median_ms']} ms median, so a move is "
        f"{figures['move_over_bare']}x the bare round trip "
        f"(load average {figures['load_average'][0]} on {os.cpu_count()} CPUs)"
    )
