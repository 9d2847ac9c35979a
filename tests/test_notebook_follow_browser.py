"""``ConversationView(path, follow=True)`` and ``RunExplorer(path, follow=True)`` in JupyterLab in Chromium while
this process appends to the run file.

The time from each write to the view of the new step in the page is measured (the write's wall
clock here, the page's ``Date.now()`` at the first DOM change that shows it: the same machine's
clock), printed and written to ``tests/artifacts/notebook-follow.json`` (``notebook-follow-explorer.json``
for the explorer, whose conversation tab is watched); no time is asserted. What is asserted:
each step written reaches the page, with the live mark, and the end shows; the explorer's
steps table counts every step written.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests._support.browser import CHROMIUM, FLAGS
from tests._support.growing import header, line, step
from tests._support.jupyterlab import Lab, code_notebook, open_notebook

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = Path(__file__).parent / "artifacts"
WAIT_MS = 60_000
VIEW_AT = ".jp-OutputArea .agentrender .ar-header > span:first-child"
"""The first item of the view's header: ``view deciding step K``."""

# The page's clock when a visible element matching the selector first has the expected text.
SHOWN_WATCH = r"""
([selector, expected]) => {
  window.__arShownAt = null;
  const shown = () => [...document.querySelectorAll(selector)].some(
    (element) => element.offsetParent !== null && element.textContent.trim() === expected
  );
  const observer = new MutationObserver(() => {
    if (shown()) { observer.disconnect(); window.__arShownAt = Date.now(); }
  });
  observer.observe(document.body, { subtree: true, childList: true, characterData: true });
}
"""


@pytest.fixture(params=["ConversationView", "RunExplorer"])
def lab(tmp_path: Path, jupyter_lab: Lab, request: pytest.FixtureRequest) -> Iterator[tuple[str, Path, str]]:
    """The session's JupyterLab over a notebook whose one cell follows a run file of three steps with the widget
    named."""
    widget = request.param
    path = tmp_path / "live-run.jsonl"
    path.write_text("".join(map(line, [header(), step(0), step(1), step(2)])))
    notebook = code_notebook(
        f"from agentrender.notebook import {widget}\nview = {widget}({str(path)!r}, follow=True)\nview"
    )
    with jupyter_lab.opened(f"follow-{widget}.ipynb", notebook) as url:
        yield url, path, widget


def test_a_followed_view_in_jupyterlab_shows_each_write_live(lab: tuple[str, Path, str]) -> None:
    """Each step appended while the notebook shows ConversationView(path, follow=True), or RunExplorer(path,
    follow=True) on its conversation tab, reaches the page with the live mark; the times from write to display are
    recorded (target: under 1 s)."""
    from playwright.sync_api import expect, sync_playwright

    url, path, widget = lab
    explorer = widget == "RunExplorer"
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(WAIT_MS)
            open_notebook(page, url)
            page.locator(".jp-Notebook .jp-CodeCell").first.locator(".jp-InputArea-prompt").click()
            page.keyboard.press("Shift+Enter")
            if explorer:
                page.locator(".jp-OutputArea .lm-TabBar-tab", has_text="conversation").first.click()
            expect(page.locator(f"{VIEW_AT}:visible").first).to_have_text("view deciding step 3")
            expect(page.locator(".jp-OutputArea .widget-label:visible", has_text="● live").first).to_be_visible()
            latencies = []
            for index in range(3, 13):
                page.evaluate(SHOWN_WATCH, [VIEW_AT, f"view deciding step {index + 1}"])
                written = time.time() * 1000
                with path.open("a") as file:
                    file.write(line(step(index)))
                page.wait_for_function("window.__arShownAt !== null", timeout=WAIT_MS)
                latencies.append(float(page.evaluate("window.__arShownAt")) - written)
            with path.open("a") as file:
                file.write(line({"type": "end", "status": "completed", "reason": "completed"}))
            expect(
                page.locator(".jp-OutputArea .widget-label:visible", has_text="ended (completed)").first
            ).to_be_visible()
            if explorer:  # the other tabs caught up with the growths too
                page.locator(".jp-OutputArea .lm-TabBar-tab", has_text="steps").first.click()
                expect(page.locator(".jp-OutputArea .widget-label:visible", has_text="of 13 steps").first).to_have_text(
                    "13 of 13 steps"
                )
            name = "notebook-follow-explorer" if explorer else "notebook-follow"
            page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
        finally:
            browser.close()
    figures = {
        "write_to_display_ms": [round(ms, 1) for ms in latencies],
        "median_ms": round(statistics.median(latencies), 1),
        "worst_ms": round(max(latencies), 1),
    }
    (ARTIFACTS / f"{name}.json").write_text(json.dumps(figures, indent=2) + "\n")
    print(
        f"\n{widget}: write to display: median {figures['median_ms']} ms, worst {figures['worst_ms']} ms: {latencies}"
    )
    assert len(latencies) == 10
