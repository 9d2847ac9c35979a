"""The views' HTML in headless Chromium: the highlights are there, styled, and no injected script runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentrender.views import Views, explain_decide
from agentrender.views.html import explanation_html, view_html
from tests._support.browser import CHROMIUM, FLAGS, chromium
from tests._support.runs import SHOWN_KINDS, every_kind_view, hostile_run

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
