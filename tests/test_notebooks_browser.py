"""01-explore-a-run end to end: JupyterLab on 127.0.0.1, headless Chromium runs every cell and moves the step slider."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests._support.browser import CHROMIUM, FLAGS, LOW_CONTRAST
from tests._support.jupyterlab import STEP_MS, Lab, cleared, code_notebook, run_all

pytestmark = pytest.mark.browser

CHECKOUT = Path(__file__).resolve().parents[1]
NOTEBOOK = CHECKOUT / "notebooks" / "01-explore-a-run.ipynb"
ARTIFACTS = Path(__file__).parent / "artifacts"


@pytest.fixture
def jupyterlab(jupyter_lab: Lab) -> Iterator[str]:
    """The session's JupyterLab over a copy of the notebook with its outputs cleared; yields the notebook's URL."""
    with jupyter_lab.opened(NOTEBOOK.name, cleared(NOTEBOOK)) as url:
        yield url


def visible_text(page: Any, selector: str) -> str:
    return str(page.locator(f"{selector}:visible").first.inner_text(timeout=STEP_MS))


def test_explore_a_run_runs_in_jupyterlab_and_its_step_slider_moves_the_conversation(jupyterlab: str) -> None:
    """Run-all in JupyterLab renders the explorer at the failing step; the slider's End key brings in summaries."""
    from playwright.sync_api import expect, sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1400})
            run_all(page, jupyterlab)

            header = page.locator(".jp-OutputArea .agentrender .ar-header:visible").first
            expect(header).to_contain_text("deciding step 3", timeout=STEP_MS)
            result = page.locator(".jp-OutputArea .ar-turn .ar-result:visible")
            summary = page.locator(".jp-OutputArea .ar-turn .ar-summary:visible")
            expect(result.first).to_be_visible(timeout=STEP_MS)
            assert summary.count() == 0, "deciding step 3, every result is inside the window"
            before = visible_text(page, ".jp-OutputArea .agentrender:has(.ar-header)")

            handle = page.locator(".jp-OutputArea .widget-slider .noUi-handle:visible").first
            handle.scroll_into_view_if_needed()
            handle.focus()
            for _ in range(6):  # from the view at step 3 to the last stop, step 9
                handle.press("ArrowRight")
            expect(header).to_contain_text("deciding step 9", timeout=STEP_MS)
            expect(summary.first).to_be_visible(timeout=STEP_MS)
            expect(result.first).to_be_visible(timeout=STEP_MS)
            after = visible_text(page, ".jp-OutputArea .agentrender:has(.ar-header)")
            assert after != before
            assert summary.count() == 3, "after step 8, the first three of nine rendered steps are outside the window"

            no_errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
            assert no_errors.count() == 0, no_errors.first.inner_text()
            assert page.get_by_text("Jupyter news").count() == 0, "the news prompt was answered in the settings"
            page.locator(".jp-OutputArea .widget-tab:visible").first.scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / "notebook-01-jupyterlab.png"))
        finally:
            browser.close()


@contextmanager
def lab_page(
    jupyter_lab: Lab, name: str, notebook: dict[str, Any], width: int = 760, height: int = 1000
) -> Iterator[Any]:
    """A page of headless Chromium ``width`` pixels wide (760: an output area of about 400) that opened ``notebook`` as
    ``name`` in the session's JupyterLab and ran every cell."""
    from playwright.sync_api import sync_playwright

    with jupyter_lab.opened(name, notebook) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            run_all(page, url)
            yield page
        finally:
            browser.close()


PAST_THE_EDGE = """() => [...document.querySelectorAll('.jp-OutputArea-output')].flatMap(output => {
    const edge = output.getBoundingClientRect().right;
    return [...output.querySelectorAll('.widget-hbox > *')].filter(control => {
        const box = control.getBoundingClientRect();
        return box.width > 0 && box.right > edge + 1;
    }).map(control => (control.querySelector('label, button')?.textContent || control.className).trim());
})"""
"""The controls of the widgets' rows (a label's or button's words, else the control's class) that lie past the right
edge of the output area that shows them."""


SCROLLED = """() => {
    const table = document.querySelector('.jp-OutputArea-output .widget-tab table');
    const output = table.closest('.jp-OutputArea-output'), edge = output.getBoundingClientRect().left;
    const rows = [...output.querySelectorAll('.widget-label')].find(label => label.textContent.startsWith('rows '));
    return {table: table.getBoundingClientRect().left - edge, rows: rows.getBoundingClientRect().left - edge};
}"""
"""How far right of the left edge of its output area the explorer's steps table and its "rows 1-10 of 10" begin."""


def test_every_widgets_controls_stay_inside_a_narrow_output(jupyter_lab: Lab) -> None:
    """In an output area a few hundred pixels wide, each control of ConversationView, DecideStepper and RunExplorer
    lies inside it, the rows wrapping, where a row ran on past its right edge and cut off "steps shown", "count" and
    the step each view is at; the explorer's steps table, wider than the output, scrolls sideways alone, where the
    whole tab scrolled with it and cut "rows 1-10 of 10" and the filters at the left edge."""
    notebook = code_notebook(
        "from agentrender import samples\n"
        "from agentrender.notebook import ConversationView, DecideStepper, RunExplorer",
        'ConversationView(samples.load("fix-failing-test"), at=3)',
        'DecideStepper(samples.load("malformed-replies"))',
        'RunExplorer(samples.load("flaky-build-resumed"))',
    )
    with lab_page(jupyter_lab, "narrow.ipynb", notebook) as page:
        page.locator(".jp-OutputArea .lm-TabBar-tab", has_text="steps").first.wait_for(state="visible")
        page.locator(".jp-OutputArea .widget-hbox").first.wait_for(state="visible")
        width = page.evaluate("() => document.querySelector('.jp-OutputArea-output').getBoundingClientRect().width")
        assert 300 < width < 600, width
        assert page.evaluate(PAST_THE_EDGE) == []
        page.screenshot(path=str(ARTIFACTS / "widgets-narrow.png"), full_page=True)
        table = page.locator(".jp-OutputArea .widget-tab table").first
        table.scroll_into_view_if_needed()
        table.hover()
        page.mouse.wheel(400, 0)
        page.wait_for_function(f"() => ({SCROLLED})().table < 0")
        assert page.evaluate(SCROLLED)["rows"] >= 0, page.evaluate(SCROLLED)
        page.screenshot(path=str(ARTIFACTS / "explorer-table-scrolled-narrow.png"))


CHART = """() => {
    const chart = document.querySelector('.jp-OutputArea-output .ar-chart-scroll svg');
    const output = chart.closest('.jp-OutputArea-output');
    let scroller = chart.parentElement;
    while (scroller !== output && scroller.scrollWidth <= scroller.clientWidth) scroller = scroller.parentElement;
    const edge = output.getBoundingClientRect().right;
    const legend = [...output.querySelectorAll('.ar-chart-legend > span')];
    return {
        shown: chart.getBoundingClientRect().width, drawn: chart.width.baseVal.value,
        output: output.getBoundingClientRect().width, overflows: output.scrollWidth > output.clientWidth + 1,
        scrolls: scroller !== output && getComputedStyle(scroller).overflowX !== 'hidden',
        legend: legend.map(entry => entry.textContent),
        cut: legend.filter(entry => entry.getBoundingClientRect().right > edge + 1).map(entry => entry.textContent),
    };
}"""
"""The explorer's size chart in its output area: the width it is shown at and the width it was drawn at, the output's
width and whether the output runs on past its edge, whether a box inside the output scrolls the chart sideways, and
the entries of its legend, and those of them that run on past the output's right edge."""


def test_the_explorers_size_chart_keeps_its_size_in_a_narrow_output(jupyter_lab: Lab) -> None:
    """In an output area a few hundred pixels wide, RunExplorer's size chart is shown at the width it was drawn at,
    its words at their size, and scrolls sideways inside the output, where it was scaled to the output's width and its
    words shrank to two fifths; its legend wraps inside the output, where drawn in the chart it was cut until
    scrolled."""
    notebook = code_notebook(
        "from agentrender import samples\nfrom agentrender.notebook import RunExplorer",
        'explorer = RunExplorer(samples.load("flaky-build-resumed"))\nexplorer.tabs.selected_index = 3\nexplorer',
    )
    with lab_page(jupyter_lab, "chart.ipynb", notebook) as page:
        page.locator(".jp-OutputArea-output .ar-chart-scroll svg").first.wait_for(state="visible")
        chart = page.evaluate(CHART)
        assert chart["output"] < chart["drawn"] and chart["shown"] == chart["drawn"], chart
        assert chart["scrolls"] and not chart["overflows"], chart
        assert len(chart["legend"]) == 3 and chart["cut"] == [], chart
        page.screenshot(path=str(ARTIFACTS / "explorer-size-narrow.png"))


THEMES = {"JupyterLab Light": "rgba(0, 0, 0, 0.54)", "JupyterLab Dark": "rgba(255, 255, 255, 0.7)"}
"""JupyterLab's two themes, each with its secondary text colour (``--jp-content-font-color2``) as a browser gives it."""
SECONDARY = """() => { const probe = document.createElement('span');
    probe.style.color = 'var(--jp-content-font-color2)'; document.body.append(probe);
    const colour = getComputedStyle(probe).color; probe.remove(); return colour; }"""
"""The theme's secondary text colour, as the browser gives it."""


def theme(page: Any, name: str) -> None:
    """Choose JupyterLab's theme ``name`` from its Settings menu, as a user does, and wait until its colours are the
    page's and the splash it shows while it changes them is gone (a screenshot would show it over the view)."""
    page.locator(".lm-MenuBar-itemLabel", has_text="Settings").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Theme").first.hover()
    page.locator(".lm-Menu-itemLabel", has_text=name).first.click()
    page.wait_for_function(f"() => ({SECONDARY})() === {THEMES[name]!r}")
    page.locator("#jupyterlab-splash").wait_for(state="detached")


PAINTED = """() => [...document.querySelectorAll('.jp-OutputArea-output .agentrender :is(pre, code)')]
  .map(e => [e.tagName.toLowerCase(), e.textContent.slice(0, 30), getComputedStyle(e).backgroundColor,
    getComputedStyle(e).fontSize])
  .filter(([tag, text, background, size]) => background !== 'rgba(0, 0, 0, 0)' || (tag === 'pre' && size !== '12px'))"""
"""Each ``pre`` or ``code`` of a view in a notebook's output that paints a background of its own, or a ``pre`` not at
the view's 12px: ``[tag, its first words, background, font size]``."""


def test_a_views_words_are_readable_in_jupyterlabs_light_and_dark_themes(jupyter_lab: Lab) -> None:
    """In JupyterLab itself, with its light theme and with its dark one, every word of a view with every kind of block
    and its legend stands out from what is behind it by WCAG's AA ratio, where muted words on a block's tint took the
    light theme's secondary colour, at 4.3 to 4.5; and its texts show the block's tint through at the view's size,
    where JupyterLab's own rule for an output's ``pre`` and ``code`` painted each a strip of the page's colour."""
    from playwright.sync_api import sync_playwright

    notebook = code_notebook(
        "from IPython.display import HTML\n"
        "from agentrender.views.html import view_html\n"
        "from tests._support.runs import every_kind_view",
        "HTML(view_html(every_kind_view()))",
    )
    ARTIFACTS.mkdir(exist_ok=True)
    with jupyter_lab.opened("themes.ipynb", notebook) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1400})
            run_all(page, url)
            page.locator(".jp-OutputArea .agentrender .ar-legend").first.wait_for(state="visible")
            try:
                for name in THEMES:
                    theme(page, name)
                    found = page.evaluate(LOW_CONTRAST, ".jp-OutputArea-output")
                    page.screenshot(path=str(ARTIFACTS / f"view-{name.lower().replace(' ', '-')}.png"))
                    assert (name, found) == (name, [])
                    assert (name, page.evaluate(PAINTED)) == (name, [])
            finally:
                theme(page, "JupyterLab Light")  # the session's other tests see the theme they were written for
        finally:
            browser.close()


def test_the_explorers_run_tab_is_readable_in_jupyterlabs_light_and_dark_themes(jupyter_lab: Lab) -> None:
    """In JupyterLab, with its light theme and with its dark one, RunExplorer's run tab of a real Claude Code session
    read with warnings shows the run's facts and its warnings under a title counting them, every word of the tab
    standing out from what is behind it by WCAG's AA ratio (the tab bar's own titles are JupyterLab's)."""
    from playwright.sync_api import expect

    notebook = code_notebook(
        "from agentrender import load\n"
        "from agentrender.notebook import RunExplorer\n"
        "from tests._support.real import REAL",
        'explorer = RunExplorer(load(REAL / "claude-code" / "marot-spotter" / '
        '"258c7280-ae70-4798-800f-63464d01a85d.jsonl"))\nexplorer.tabs.selected_index = 4\nexplorer',
    )
    ARTIFACTS.mkdir(exist_ok=True)
    with lab_page(jupyter_lab, "run-tab.ipynb", notebook, width=1400, height=1400) as page:
        tab = page.locator(".jp-OutputArea .lm-TabBar-tab.lm-mod-current").first
        expect(tab).to_have_text("run (8 warnings)", timeout=STEP_MS)
        facts = page.locator(".jp-OutputArea .agentrender table:visible").first
        expect(facts).to_contain_text("the views from then on lack it", timeout=STEP_MS)
        expect(facts).to_contain_text("claude-code, thread main", timeout=STEP_MS)
        try:
            for name in THEMES:
                theme(page, name)
                found = page.evaluate(LOW_CONTRAST, ".jp-OutputArea-output .agentrender")  # the tab bar is JupyterLab's
                page.screenshot(path=str(ARTIFACTS / f"explorer-run-tab-{name.lower().replace(' ', '-')}.png"))
                assert (name, found) == (name, [])
        finally:
            theme(page, "JupyterLab Light")  # the session's other tests see the theme they were written for
