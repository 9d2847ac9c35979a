"""The views' HTML in headless Chromium: the highlights are there, styled, and no injected script runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentrender import Decision, samples
from agentrender.views import Views, explain_decide
from agentrender.views.html import explanation_html, view_html
from tests._support.browser import CHROMIUM, FLAGS, LOW_CONTRAST, chromium, current_row
from tests._support.conversations import prefilled_log
from tests._support.runs import SHOWN_KINDS, every_kind_run, every_kind_view, hostile_run

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).parent / "artifacts"


def page_of(*fragments: str) -> str:
    body = "\n<hr>\n".join(fragments)
    return (
        f'<!doctype html><html><head><meta charset="utf-8"><title>agentrender</title></head><body>{body}</body></html>'
    )


def conversation_page() -> str:
    return page_of(view_html(every_kind_view()))


def hostile_page() -> str:
    run = hostile_run()
    explanation = explain_decide(run.model_calls[0].response)
    fragments = [view_html(Views(run, run.options(recent_results=1)).at(at)) for at in (None, 1)]
    fragments.append(explanation_html(explanation, run.steps[0].decision, compare=True))
    fragments.append(run._repr_html_())
    return page_of(*fragments)


def test_the_conversation_view_renders_its_highlights_light_and_dark() -> None:
    """Every kind of block carries its class and its own colour; screenshots are kept for light and dark."""
    ARTIFACTS.mkdir(exist_ok=True)
    with chromium() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            for scheme in ("light", "dark"):
                page = browser.new_page(viewport={"width": 1100, "height": 1400}, color_scheme=scheme)
                page.set_content(conversation_page())
                for kind in SHOWN_KINDS:
                    assert page.locator(f".agentrender .ar-turn .ar-{kind}").count() > 0, kind
                assert page.locator(".agentrender > .ar-skipped").count() >= 2
                assert page.locator(".ar-turn .ar-failed").count() > 0
                assert page.locator("details.ar-hidden").count() > 0
                colours = page.evaluate(
                    """() => ['result', 'summary', 'interrupted', 'nudge_truncated'].map(kind =>
                        getComputedStyle(document.querySelector('.ar-turn .ar-' + kind)).borderLeftColor)"""
                )
                assert len(set(colours)) == 4, colours  # each kind is told apart at a glance
                background = page.evaluate(
                    "() => getComputedStyle(document.querySelector('.agentrender')).backgroundColor"
                )
                assert background == ("rgb(255, 255, 255)" if scheme == "light" else "rgb(13, 17, 23)")
                page.locator("details.ar-hidden").first.locator("summary").click()
                page.screenshot(path=str(ARTIFACTS / f"conversation-{scheme}.png"), full_page=False)
                page.close()
        finally:
            browser.close()


THEMES = {
    "light": ("light", ""),
    "dark": ("dark", ""),
    "JupyterLab's dark theme": (
        "light",
        'data-jp-theme-light="false" style="--jp-layout-color0: #111111; --jp-layout-color1: #212121; '
        "--jp-content-font-color1: rgba(255, 255, 255, 1); --jp-content-font-color2: rgba(255, 255, 255, 0.7); "
        'background: #111111"',
    ),
    "JupyterLab's light theme": (
        "dark",
        'data-jp-theme-light="true" style="--jp-layout-color0: #ffffff; --jp-layout-color1: #ffffff; '
        "--jp-content-font-color1: rgba(0, 0, 0, 0.87); --jp-content-font-color2: rgba(0, 0, 0, 0.54); "
        'background: #ffffff"',
    ),
}
"""Each colour scheme a view is shown in: the browser's scheme, and the body attributes and variables the theme
sets (JupyterLab's own, which a notebook follows whatever the browser prefers)."""


def test_every_text_of_the_views_html_is_readable_in_light_and_dark() -> None:
    """Each text of a view, a decision's agreement and its disagreement, the explorer's steps table (what the model
    saw coloured as the view colours that kind of block) and its size chart stands out from its background (a striped
    one's least distinct stripe) by WCAG's AA ratio in light, in dark and in JupyterLab's two themes, and each line and
    mark of the chart by WCAG's 3 for a graphic, where a failed result's tag, the bytes hidden from the model and
    "agrees" kept their light colours on a dark background, the chart was a white picture in a dark theme, and muted
    words on a block's tint took JupyterLab's light secondary colour as it is, at 4.3 to 4.5."""
    from agentrender.notebook import RunExplorer

    run = samples.load("malformed-replies")
    call = run.model_calls[2]
    explanation = explain_decide(call.response)
    shown = every_kind_view()
    explorer = RunExplorer(samples.load("flaky-build-resumed"))
    explorer.tabs.selected_index = 3
    ARTIFACTS.mkdir(exist_ok=True)
    body = "\n<hr>\n".join(
        [
            view_html(shown),
            RunExplorer(every_kind_run(), shown.options).table.value,
            explorer.chart.value,
            view_html(Views(hostile_run()).at(None)),
            explanation_html(explanation, explanation.decision, compare=True),
            explanation_html(explanation, Decision(kind="tool_call", tool="finish"), compare=True),
        ]
    )
    with chromium() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            for theme, (scheme, attributes) in THEMES.items():
                page = browser.new_page(viewport={"width": 1100, "height": 1400}, color_scheme=scheme)
                page.set_content(f'<!doctype html><html><head><meta charset="utf-8"></head><body {attributes}>{body}')
                assert page.locator(".ar-agree").count() == 1 and page.locator(".ar-disagree").count() == 1
                assert page.locator(".ar-failed .ar-fail").count() > 0 and page.locator(".ar-ctl").count() > 0
                assert {"result", "cut", "summary", "interrupted"} <= {
                    kind[3:] for kind in page.eval_on_selector_all("td[class]", "cells => cells.map(c => c.className)")
                }
                assert page.locator(".ar-chart-scroll svg text").count() > 10, "the chart's words are in the page"
                page.locator("details.ar-hidden > summary").first.click()
                assert (theme, page.evaluate(LOW_CONTRAST)) == (theme, [])
                named = "-".join(theme.lower().replace("'s", "").split())
                page.locator(".ar-chart-scroll").screenshot(path=str(ARTIFACTS / f"size-chart-{named}.png"))
                page.close()
        finally:
            browser.close()


def srgb(colour: str) -> tuple[float, ...]:
    """A computed CSS colour (``rgb(r, g, b)``, ``rgba(r, g, b, a)`` or a ``color-mix()``'s ``color(srgb r g b / a)``)
    as its red, green and blue from 0 to 255, to two places, and its alpha."""
    words = colour[colour.index("(") + 1 : colour.index(")")].replace(",", " ").replace("/", " ").split()
    scale, numbers = (255, words[1:]) if words[0] == "srgb" else (1, words)
    red, green, blue, *alpha = (float(number) for number in numbers)
    return (*(round(value * scale, 2) for value in (red, green, blue)), *(alpha or [1.0]))


MUTED = """() => ['.ar-legend > .ar-result', '.ar-legend > .ar-summary', '.ar-legend > .ar-opening', '.ar-role']
    .map((selector) => getComputedStyle(document.querySelector(selector)).color)"""
"""The colour of the legend's words on a result's and a summary's tint, and of muted words on no tint (the legend's
untinted opening, a turn's role)."""


def test_muted_words_on_a_tint_follow_the_themes_secondary_colour_and_keep_the_browsers() -> None:
    """Muted words on a block's tint move with JupyterLab's secondary text colour (a theme's darker one darkens them)
    and stand darker than it on a tint in its light theme, lighter in its dark one, and in the browser's own light and
    dark schemes keep the colour muted words have off a tint."""
    light = THEMES["JupyterLab's light theme"][1]
    darker = light.replace(
        "--jp-content-font-color2: rgba(0, 0, 0, 0.54)", "--jp-content-font-color2: rgba(0, 0, 0, 0.7)"
    )
    assert darker != light
    seen = {}
    with chromium() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            for theme, (scheme, attributes) in [*THEMES.items(), ("a darker light theme", ("light", darker))]:
                page = browser.new_page(viewport={"width": 1100, "height": 900}, color_scheme=scheme)
                page.set_content(
                    f'<!doctype html><html><head><meta charset="utf-8"></head><body {attributes}>'
                    f"{view_html(every_kind_view())}"
                )
                seen[theme] = [srgb(colour) for colour in page.evaluate(MUTED)]
                page.close()
        finally:
            browser.close()
    for scheme in ("light", "dark"):
        result, summary, untinted, role = seen[scheme]
        assert (scheme, result, summary, untinted) == (scheme, role, role, role)
    result, summary, untinted, role = seen["JupyterLab's light theme"]
    assert result == summary and untinted == role == (0, 0, 0, 0.54) and result[:3] == (0, 0, 0) and result[3] > 0.54
    assert seen["a darker light theme"][0][:3] == (0, 0, 0) and seen["a darker light theme"][0][3] > result[3]
    result, summary, untinted, role = seen["JupyterLab's dark theme"]
    assert untinted == role == (255, 255, 255, 0.7) and result[:3] == (255, 255, 255) and result[3] > 0.7


def test_the_explorers_current_row_keeps_its_kind_colour_and_stands_out_in_light_and_dark() -> None:
    """The steps table's current row keeps the colour of what the model saw of it (a summary's amber, as in the other
    rows), and is outlined, at least 2 pixels, in a colour that stands out from the background by WCAG's 3 for a
    graphic, in light, in dark and in JupyterLab's two themes, where its blue fill hid the kind's colour."""
    from agentrender.notebook import RunExplorer

    explorer = RunExplorer(samples.load("flaky-build-resumed"))
    explorer.conversation.at = 3  # a summary, as steps 0 and 1 are
    with chromium() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            for theme, (scheme, attributes) in THEMES.items():
                page = browser.new_page(viewport={"width": 1100, "height": 900}, color_scheme=scheme)
                page.set_content(
                    f'<!doctype html><html><head><meta charset="utf-8"></head><body {attributes}>{explorer.table.value}'
                )
                assert (theme, *current_row(page)) == (theme, "ar-summary", [])
                assert (theme, page.evaluate(LOW_CONTRAST)) == (theme, [])
                page.close()
        finally:
            browser.close()


def test_no_injected_script_runs() -> None:
    """Hostile run text loaded as the views' HTML sets no window.__pwned, opens no dialog, loads nothing."""
    ARTIFACTS.mkdir(exist_ok=True)
    with chromium() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 1200})
            dialogs: list[str] = []
            requests: list[str] = []
            page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
            page.on("request", lambda request: requests.append(request.url))
            page.set_content(hostile_page())
            for link in page.locator("a").all():
                link.click()
            for opener in page.locator("details > summary").all():
                opener.click()
            page.wait_for_timeout(200)
            assert page.evaluate("() => typeof window.__pwned") == "undefined"
            assert page.locator("script, img, iframe, a[href^='javascript']").count() == 0
            assert page.evaluate("() => getComputedStyle(document.body).display") != "none"
            assert "window.__pwned" in page.inner_text("body")  # shown as text
            assert dialogs == [] and [url for url in requests if not url.startswith("data:")] == []
            page.screenshot(path=str(ARTIFACTS / "hostile.png"), full_page=False)
        finally:
            browser.close()


def test_the_stepper_shows_a_prefilled_reply_agreeing_with_its_decision(tmp_path: Path) -> None:
    """The notebook's ``DecideStepper`` at a reply that went on from its request's prefill shows, in Chromium, the
    agreement of ``agentrender decide`` in its agreeing colour and the note naming the prefill under it, no
    disagreement; a screenshot is kept."""
    from agentrender import imports
    from agentrender.notebook import DecideStepper

    stepper = DecideStepper(imports.load(prefilled_log(tmp_path / "log.jsonl")))
    stepper.slider.value = 1
    ARTIFACTS.mkdir(exist_ok=True)
    with chromium() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 900, "height": 900})
            page.set_content(page_of(stepper.html.value))
            assert page.locator(".ar-disagree").count() == 0
            said = page.inner_text(".ar-agree")
            assert said == "agrees with the decision the run recorded, of the reply and its prefill"
            assert "a prefill ('The answer is')" in page.inner_text(".ar-agree + .ar-muted")
            assert page.evaluate(LOW_CONTRAST) == []
            page.screenshot(path=str(ARTIFACTS / "stepper-prefilled.png"), full_page=True)
            page.close()
        finally:
            browser.close()
