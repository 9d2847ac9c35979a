"""Hostile run text in real JupyterLab: MathJax/LaTeX payloads, tag characters and bidi overrides stay inert.

JupyterLab typesets the math in every HTML output with MathJax, so a run's text that holds
``$\\href{javascript:...}{x}$`` would become a typeset link if it reached the page as it is. A
notebook shows a Run and a View of a run full of such payloads; headless Chromium checks the
live DOM: nothing typeset from run text, no ``javascript:`` link, the text shown literally.
A control output of plain HTML math proves MathJax is there and typesets HTML outputs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests._support.browser import CHROMIUM, FLAGS
from tests._support.jupyterlab import STEP_MS, Lab, code_notebook, run_all

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = Path(__file__).parent / "artifacts"
NAME = "hostile-run.ipynb"

PAYLOADS = (
    r"$\href{javascript:alert(1)}{x}$",
    r"$$\unicode{x1F600}\href{javascript:alert(2)}{y}$$",
    r"\(\href{javascript:alert(3)}{z}\)",
    r"\[w^2\]",
    r"\begin{equation}v^2\end{equation}",
)
"""TeX that MathJax typesets with JupyterLab's settings: inline and display delimiters, an environment."""

MAKE_RUN = """
import json, pathlib
from agentrender import load_run
from agentrender.views import Views

PAYLOADS = {payloads!r}
TEXT = " ".join(PAYLOADS) + " \\u202eevil\\u202c \\U000e0041\\U000e0042 <b>bold</b>"
records = [
    {{"type": "run", "format": "agentrender.run/1", "run_id": "r " + TEXT, "goal": "goal " + TEXT,
     "model": TEXT, "tools": [{{"name": "t " + TEXT, "input_schema": {{"type": "object"}}}}]}},
    {{"type": "step", "index": 0, "decision": {{"kind": "tool_call", "tool": "t " + TEXT,
     "args": {{"k " + TEXT: "v " + TEXT}}, "reason": "reason " + TEXT}},
     "observation": {{"status": "error", "content": "content " + TEXT, "summary": "summary " + TEXT}},
     PAYLOADS[0]: "an unknown field, named in a warning"}},
    {{"type": "step", "index": 1, "decision": {{"kind": "tool_call", "tool": "t", "args": {{}}, "reason": TEXT}},
     "observation": {{"status": "ok", "content": TEXT, "summary": TEXT}}}},
    {{"type": "end", "status": "failed", "reason": TEXT, "error": "error " + TEXT}},
]
path = pathlib.Path("hostile.jsonl")
path.write_text("".join(json.dumps(record) + "\\n" for record in records), encoding="utf-8")
run = load_run(path)
run
"""

SHOW_VIEWS = """
views = Views(run)
display(views.at(1))
views.at(None)
"""

CONTROL = """
from IPython.display import HTML
HTML('<div class="control">control: $c^2$</div>')
"""


@pytest.fixture
def jupyterlab(jupyter_lab: Lab) -> Iterator[str]:
    """The session's JupyterLab serving a notebook that shows a hostile run, its views, then a control of plain
    HTML math."""
    notebook = code_notebook(MAKE_RUN.format(payloads=PAYLOADS), SHOW_VIEWS, CONTROL)
    with jupyter_lab.opened(NAME, notebook) as url:
        yield url


def test_math_tag_characters_and_bidi_overrides_in_a_run_are_inert_in_jupyterlab(jupyterlab: str) -> None:
    """In JupyterLab, a run's TeX payloads are shown as text (none typeset, no javascript: link), its
    invisible and direction-changing characters as [U+XXXX] markers, while HTML math outside the run typesets."""
    from playwright.sync_api import expect, sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1600})
            run_all(page, jupyterlab)

            # The last cell's output typeset: MathJax is loaded and has typeset the outputs before it.
            expect(page.locator(".jp-OutputArea .control mjx-container").first).to_be_attached(timeout=STEP_MS)
            shown = page.locator(".jp-OutputArea-output:has(.agentrender)")
            expect(shown).to_have_count(3, timeout=STEP_MS)  # the run, the view at step 1, the view after the last
            page.wait_for_timeout(1000)  # a typeset pass still under way would show here
            shown.first.scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / "notebook-attacks-jupyterlab.png"))

            assert page.locator(".jp-OutputArea mjx-container, .jp-OutputArea .MathJax").count() == 1, (
                "only the control's math is typeset"
            )
            assert shown.locator("mjx-container, .MathJax, math, svg").count() == 0
            assert page.locator("[href*='javascript' i], [src*='javascript' i]").count() == 0
            assert shown.locator("b").filter(has_text=re.compile("^bold$")).count() == 0, "run text made no markup"
            errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
            assert errors.count() == 0, errors.first.inner_text()

            texts = [shown.nth(n).text_content() or "" for n in range(3)]
            for payload in PAYLOADS:
                assert all(payload in text for text in texts), payload
            for marker in ("[U+202E]", "[U+202C]", "[U+E0041]", "[U+E0042]"):
                assert all(marker in text for text in texts), marker
            assert all("\u202e" not in text and "\U000e0041" not in text for text in texts)
            assert "<b>bold</b>" in texts[0]

        finally:
            browser.close()
