"""The shared page (agentrender.html) in headless Chromium, opened from file://: each view is what ``Views.at``
says, hostile run text stays text, the as-sent/what-if toggle works, and a 100,000-step run stays quick."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from html import unescape
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from agentrender import html, imports, load_run, render, samples
from agentrender._display.said import block_said, end_said, scores_said, source_said, warning_groups
from agentrender._display.values import SHOWN_STEPS
from agentrender.runfile import Run
from agentrender.views import (
    BLOCK_LABELS,
    ENDED_SAW,
    ENDED_TEXT,
    LEFT_OUT_TEXT,
    NO_VALUE,
    PREFILL_ENDED_TEXT,
    PREFILL_REASON,
    PREFILL_SAID,
    PREFILLED_TEXT,
    REPLY_REASON,
    SKIPPED_SAW,
    BlockFact,
    Views,
    compare_recorded,
)
from agentrender.views.html import view_html
from tests._support import runs
from tests._support.browser import CHROMIUM, FLAGS, LOW_CONTRAST, chromium, current_row
from tests._support.cli import run_cli
from tests._support.compacted import compacted_run, compaction
from tests._support.conversations import REPLIED_THEN_PREFILL, json_file, parallel_then_prefilled_log, prefilled_log
from tests._support.real import REAL
from tests._support.runs import HOSTILE, UNSEEN, hostile_run
from tests._support.sweep import run_lines

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = Path(__file__).parent / "artifacts"

TURNS = """() => [...document.querySelectorAll('.ar-view > .ar-turn, .ar-view > .ar-skipped')].map(node =>
    node.classList.contains('ar-skipped') ? ['skipped', node.textContent] :
    [node.classList.contains('ar-assistant') ? 'assistant' : 'user',
     [...node.querySelectorAll(':scope > .ar-block')].map(block =>
        [[...block.classList].filter(name => name !== 'ar-block').join(' '),
         block.querySelector(':scope > pre').textContent])])"""
"""What the page's conversation shows: each turn's role and, for each block, its classes and its text."""


def body(fact: BlockFact) -> str:
    """The text the page shows for a block: as every display says it (a tool use's input as JSON, a result's
    content, an image in one line, else its text)."""
    return block_said(fact.block).body


def classes(fact: BlockFact) -> str:
    return f"ar-{fact.kind}" + (" ar-failed" if fact.failed else "")


def expected_turns(views: Views, at: int) -> list[Any]:
    """The turns of the view at ``at`` as ``Views`` gives them, in the shape ``TURNS`` reads from the page."""
    view = views.at(at)
    turns: list[Any] = [["user", [[classes(fact), body(fact)] for fact in view.opening.blocks]]]
    for fact in view.step_facts():
        if not fact.rendered:
            turns.append(["skipped", fact.skipped_label])
            continue
        assert fact.assistant is not None and (fact.result is not None or fact.ended)
        for role, message in (("assistant", fact.assistant), ("user", fact.result)):
            if message is not None:  # as sent, nothing answered a reply the conversation ended on
                turns.append([role, [[classes(block), body(block)] for block in message.blocks]])
    return turns


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            yield launched
        finally:
            launched.close()


def open_page(browser: Any, path: Path, address: str = "", **context: Any) -> tuple[Any, list[str], list[str]]:
    """The page at ``path`` opened from file://, with the dialogs it opened and the requests it made, and no error."""
    page = browser.new_page(viewport={"width": 1200, "height": 1400}, **context)
    dialogs: list[str] = []
    requests: list[str] = []
    errors: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.on("request", lambda request: requests.append(request.url))
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto(path.as_uri() + address)
    settled(page)
    assert errors == []
    return page, dialogs, requests


def settled(page: Any, timeout: float = 30_000) -> None:
    """Wait until the page has drawn and filled in every text it shows (it reads its texts as they are shown)."""
    page.wait_for_selector('#ar-page[data-ready][data-pending="0"]', state="attached", timeout=timeout)


def saved(run: Run, folder: Path, name: str, options: Any = None) -> Path:
    path = folder / f"{name}.html"
    html.save(run, path, options)
    return path


def test_moving_the_slider_shows_the_view_views_give(browser: Any, tmp_path: Path) -> None:
    """Opened at #step=K, then moved with the arrow keys and the slider, the page shows exactly the turns and the
    kinds of block of ``Views.at(k)`` for each k, the same size, and highlights the row of k in the steps table."""
    run = samples.load("flaky-build-resumed")
    views = Views(run, run.options(recent_results=2))
    page, _, _ = open_page(browser, saved(run, tmp_path, "flaky", views.options), "#step=3")
    stops = views.stops
    assert page.evaluate(TURNS) == expected_turns(views, 3)
    page.keyboard.press("ArrowRight")
    settled(page)
    assert page.evaluate(TURNS) == expected_turns(views, stops[stops.index(3) + 1])
    for at in (0, stops[len(stops) // 2], stops[-2], stops[-1]):
        page.locator("input[aria-label=step]").fill(str(stops.index(at)))
        settled(page)
        assert page.evaluate(TURNS) == expected_turns(views, at), at
        header = page.inner_text(".ar-view > .ar-header")
        assert f"{views.at(at).bytes:,} bytes" in header
    page.locator("input[aria-label=step]").fill(str(stops.index(stops[-2])))
    page.click("button[data-tab=steps]")
    assert page.inner_text("tr.ar-current td >> nth=0") == str(stops[-2])
    page.screenshot(path=str(_artifacts() / "page-steps.png"))


def test_each_view_says_what_changed_and_its_openings_bytes_as_the_notebooks_view(browser: Any, tmp_path: Path) -> None:
    """On a real session with a compaction after a rewind, as sent and under the contract, each view of the page
    says what changed since the one before it as ``Change.describe`` does (the notebook's view, ``show``, ``follow``):
    the first view's new bytes, the step it added and by how many bytes it grew, not a sentence of its own; and heads
    its opening (the compaction's summary, after it) with its bytes, as it heads every other turn."""
    run = imports.load(REAL / "claude-code" / "daaain-claude-code-log" / "dag_compact_after_rewind.jsonl")
    options = run.options(recent_results=1, result_bytes=200)
    page, _, _ = open_page(browser, saved(run, tmp_path, "changes", options))
    sent = Views(run)
    for views in (sent, sent.under(options)):
        if views is not sent:
            page.uncheck("#ar-as-sent")
        for stop, at in enumerate(views.stops):
            page.locator("input[aria-label=step]").fill(str(stop))
            settled(page)
            view = views.at(at)
            assert page.inner_text(".ar-view .ar-change") == view.change.describe(), at
            opening = page.locator(".ar-view > .ar-turn > .ar-role").first.text_content()
            assert opening == f"user \u00b7 opening \u00b7 {view.opening.bytes:,} bytes", at


def test_a_run_of_several_parts_reads_each_when_shown(
    browser: Any, tmp_path: Path, import_bench: Callable[[str], ModuleType]
) -> None:
    """On a run longer than a part, opened at a step whose part comes after the page's script, the page shows the
    view ``Views.at`` gives, moves across a part's edge, filters the whole steps table and charts every view."""
    path = tmp_path / "run.jsonl"
    import_bench("bench_cli").generate(path, 2 * html.PART_STEPS + 10)
    run = load_run(path)
    views = Views(run)
    page, _, _ = open_page(browser, saved(run, tmp_path, "parts"), f"#step={html.PART_STEPS}")
    page.locator("input[type=number]").fill(str(len(run.steps)))  # every step of the view shown
    page.locator("input[type=number]").dispatch_event("change")
    settled(page)
    assert page.evaluate(TURNS) == expected_turns(views, html.PART_STEPS)
    page.click("h1")
    page.keyboard.press("ArrowLeft")
    settled(page)
    assert page.evaluate(TURNS) == expected_turns(views, html.PART_STEPS - 1)
    assert page.evaluate("() => location.hash") == f"#step={html.PART_STEPS - 1}"
    page.click("button[data-tab=steps]")
    page.select_option("select[aria-label=tool]", label="search")
    settled(page)
    kept = sum(1 for step in run.steps if step.decision and step.decision.tool == "search")
    assert page.inner_text("[data-panel=steps] .ar-muted") == f"{kept:,} of {len(run.steps):,} steps"
    page.click("button[data-tab=size]")
    page.wait_for_selector("[data-panel=size] svg")
    assert f"{len(views.stops):,} views" in page.inner_text("[data-panel=size]")


def test_the_steps_table_pages_and_filters(browser: Any, tmp_path: Path) -> None:
    """The table's headers are the payload's columns' (the ones every table of steps leads with); filtering by tool
    keeps exactly the run's steps that call it; the pages hold 50 rows each."""
    run = samples.load("flaky-build-resumed")
    page, _, _ = open_page(browser, saved(run, tmp_path, "table"))
    page.click("button[data-tab=steps]")
    headers = page.eval_on_selector_all("[data-panel=steps] thead th", "cells => cells.map(c => c.textContent)")
    assert headers == ["step", "kind", "tool", "status", "the model saw", "content bytes", "summary bytes", "reason"]
    tool = next(step.decision.tool for step in run.steps if step.decision and step.decision.tool)
    page.select_option("select[aria-label=tool]", label=tool)
    shown = page.eval_on_selector_all(
        "[data-panel=steps] tbody tr td:first-child", "cells => cells.map(c => c.textContent)"
    )
    assert shown == [str(step.index) for step in run.steps if step.decision and step.decision.tool == tool]


def test_the_steps_tab_says_each_row_in_the_words_of_agentrender_steps(browser: Any, tmp_path: Path) -> None:
    """Every row of the page's steps tab says what ``agentrender steps`` says of its step: of a step with no decision
    ``skipped`` and "—" for its kind, tool, status, bytes and reason, of the step the conversation ended on (as sent)
    that nothing answered it, "—" for its tool and status, where those cells were empty. The filters offer a missing
    value as "(none)", as ``steps --kind none`` takes it, never "—" (which no filter of ``steps`` takes), and
    "(none)" keeps the rows ``steps --kind none`` keeps."""
    cells = "rows => rows.map(row => [...row.cells].map(cell => cell.textContent))"
    sample = samples.load("flaky-build-resumed")
    for run in (sample, imports.load(parallel_then_prefilled_log(tmp_path / "log.jsonl"))):
        code, out, _ = run_cli("steps", str(run.path), "--width", "250", "--color", "never")
        said = [line.split() for line in out.splitlines() if re.match(r"\s*[0-9]+\s", line)]
        page, _, _ = open_page(browser, saved(run, tmp_path, "words"))
        page.click("button[data-tab=steps]")
        settled(page)
        rows = [" ".join(row).split() for row in page.eval_on_selector_all("[data-panel=steps] tbody tr", cells)]
        assert code == 0 and rows == said, (rows, said)
        page.close()
    assert said[1][4:9] == [*ENDED_SAW.split(), NO_VALUE] and said[1][2:4] == [NO_VALUE] * 2
    page, _, _ = open_page(browser, saved(sample, tmp_path, "none"))
    page.click("button[data-tab=steps]")
    settled(page)
    for column in ("kind", "tool", "status"):
        offered = page.eval_on_selector_all(f"select[aria-label={column}] option", "nodes => nodes.map(n => n.text)")
        assert "(none)" in offered and NO_VALUE not in offered, offered
    page.select_option("select[aria-label=kind]", label="(none)")
    settled(page)
    kept = page.eval_on_selector_all(
        "[data-panel=steps] tbody tr td:first-child", "cells => cells.map(c => c.textContent)"
    )
    assert kept == [
        str(row["index"]) for row in json.loads(run_cli("steps", str(sample.path), "--kind", "none", "--json")[1])
    ]
    assert kept == ["2"]


def test_the_steps_table_colours_what_the_model_saw_as_the_view_colours_that_kind_of_block(
    browser: Any, tmp_path: Path
) -> None:
    """Each cell of what the model saw in the steps tab has the class the conversation gives a block of that kind (a
    result in full green, a summary amber, an interrupted call's re-request orange), as the notebook explorer's
    table has; a step with no decision, which no view holds, says so as the conversation marks it (``SKIPPED_SAW``,
    as the explorer's table and ``agentrender steps`` say it), where its cell was empty."""
    run = samples.load("flaky-build-resumed")
    page, _, _ = open_page(browser, saved(run, tmp_path, "saw"))
    page.click("button[data-tab=steps]")
    settled(page)
    cells = page.eval_on_selector_all(
        "[data-panel=steps] tbody tr", "rows => rows.map(row => [row.cells[4].className, row.cells[4].textContent])"
    )
    saw = Views(run).at(None).result_blocks()
    assert cells == [
        ["ar-" + fact.kind, BLOCK_LABELS[fact.kind]] if fact else ["ar-skipped", SKIPPED_SAW] for fact in saw
    ]
    assert {"ar-result", "ar-summary", "ar-interrupted"} <= {kind for kind, _ in cells}


def test_the_steps_table_names_and_filters_the_tools_called_in_parallel(browser: Any, tmp_path: Path) -> None:
    """On a real Claude Code session whose steps 2 and 3 each made two tool uses at once, the steps tab names every
    tool of those replies as ``steps`` does (``WebSearch (+ Glob)``), and its tool filter offers a tool called beside
    the decision's and keeps the step for it, as ``steps --tool`` does. Before, the tab said ``WebSearch`` alone and
    the filter had no ``Glob``."""
    path = REAL / "claude-code" / "marot-spotter" / "tool_heavy.jsonl"
    if not path.is_file():
        pytest.skip("tests/fixtures/real is not in this checkout")
    page, _, _ = open_page(browser, saved(imports.load(path), tmp_path, "parallel"))
    page.click("button[data-tab=steps]")
    cells = "rows => rows.map(row => [row.cells[0].textContent, row.cells[2].textContent])"
    rows = page.eval_on_selector_all("[data-panel=steps] tbody tr", cells)
    assert rows == [["0", "Bash"], ["1", "Bash"], ["2", "WebSearch (+ Glob)"], ["3", "Read (+ WebFetch)"]]
    for tool, kept in (("Glob", [["2", "WebSearch (+ Glob)"]]), ("WebFetch", [["3", "Read (+ WebFetch)"]])):
        page.select_option("select[aria-label=tool]", label=tool)
        settled(page)
        assert page.eval_on_selector_all("[data-panel=steps] tbody tr", cells) == kept
        assert page.inner_text("[data-panel=steps] .ar-muted") == "1 of 4 steps"
    page.select_option("select[aria-label=tool]", label="Bash")
    settled(page)
    assert page.eval_on_selector_all("[data-panel=steps] tbody tr", cells) == [["0", "Bash"], ["1", "Bash"]]


def test_a_page_saved_at_a_step_opens_there_unless_its_address_names_another(browser: Any, tmp_path: Path) -> None:
    """``html.save(run, path, at=3)`` writes a page that opens at the view deciding step 3 (what a notebook explorer
    showed when saved), and ``#step=5`` in its address still opens step 5. Before, no page could open but after the
    last step without an address naming one."""
    run = samples.load("fix-failing-test")
    path = tmp_path / "at.html"
    html.save(run, path, at=3)
    views = Views(run)
    page, _, _ = open_page(browser, path)
    assert page.evaluate(TURNS) == expected_turns(views, 3)
    assert "deciding step 3" in page.inner_text("#ar-page")
    page, _, _ = open_page(browser, path, "#step=5")
    assert page.evaluate(TURNS) == expected_turns(views, 5)
    with pytest.raises(IndexError, match="step 99 is past the run"):
        html.save(run, tmp_path / "past.html", at=99)


def test_a_forked_agents_page_dims_the_session_steps_it_holds(browser: Any, tmp_path: Path) -> None:
    """The page of the agent Claude Code forked to write a compaction (a real session's) dims the rows of the
    session's steps it was sent, on every page of the table and under a filter, says how many they are, and leaves
    the agent's own step as it is."""
    session = REAL / "claude-code" / "marot-spotter" / "258c7280-ae70-4798-800f-63464d01a85d.jsonl"
    if not session.is_file():
        pytest.skip("the real fixtures are not in this checkout")
    run = imports.load_runs(session)[2]
    assert run.inherited_steps == 102 and len(run.steps) == 103
    page, _, _ = open_page(browser, saved(run, tmp_path, "forked"))
    page.click("button[data-tab=steps]")
    assert page.inner_text("[data-panel=steps] .ar-muted") == "103 of 103 steps · its first 102 steps are the session's"
    rows = "[data-panel=steps] tbody tr"
    dimmed = "rows => rows.map(row => [row.cells[0].textContent, row.classList.contains('ar-inherited')])"
    page.click("text=last »")
    last = page.eval_on_selector_all(rows, dimmed)
    assert last[-1] == ["102", False] and all(inherited for _, inherited in last[:-1])
    assert float(page.eval_on_selector(f"{rows}.ar-inherited td", "cell => getComputedStyle(cell).opacity")) < 1
    page.screenshot(path=str(_artifacts() / "page-forked-steps.png"))
    page.click("text=« first")
    assert all(inherited for _, inherited in page.eval_on_selector_all(rows, dimmed))
    page.select_option("select[aria-label=tool]", label="Write")
    written = page.eval_on_selector_all(rows, dimmed)
    assert written and all(inherited == (int(index) < 102) for index, inherited in written)
    # a run that forked from nothing dims nothing and says nothing of a session
    page, _, _ = open_page(browser, saved(imports.load_runs(session)[0], tmp_path, "session"))
    page.click("button[data-tab=steps]")
    assert page.locator(f"{rows}.ar-inherited").count() == 0
    assert "session" not in page.inner_text("[data-panel=steps] .ar-muted")


def test_a_sessions_link_opens_the_agent_it_forked_at_the_agents_own_step(browser: Any, tmp_path: Path) -> None:
    """On a real session's page with the agent Claude Code forked to write a compaction, the link at the step that
    started it opens that agent at the first step it decided itself (its first 102 are the session's), and Back
    returns to the session's step. Before, it opened after the agent's last step."""
    session = REAL / "claude-code" / "marot-spotter" / "258c7280-ae70-4798-800f-63464d01a85d.jsonl"
    if not session.is_file():
        pytest.skip("the real fixtures are not in this checkout")
    runs = imports.load_runs(session)
    forked = runs[2]
    started = runs[0].links.started[0]
    assert forked.inherited_steps == 102 and (started.run_id, started.step) == (forked.run_id, 102)
    path = tmp_path / "session.html"
    html.save(runs[0], path, beside=runs)
    page, _, _ = open_page(browser, path, "#step=102")
    page.click(".ar-view > .ar-run-link:has-text('agent-acompact') button")
    page.wait_for_selector('#ar-page[data-run="2"][data-pending="0"]', state="attached")
    assert page.evaluate("location.hash") == "#run=2&step=102"
    assert page.inner_text("[data-panel=conversation] .ar-where") == "deciding step 102"
    assert page.inner_text("#ar-page > .ar-run-link").startswith(f"forked from run {runs[0].run_id} to write")
    page.go_back()
    page.wait_for_selector('#ar-page[data-run="0"][data-pending="0"]', state="attached")
    assert page.evaluate("location.hash") == "#step=102"
    assert page.input_value("input[aria-label=step]") == "102"


def test_a_forked_agents_dimmed_rows_stay_readable_in_light_and_dark(browser: Any, tmp_path: Path) -> None:
    """The rows of the session's steps a forked agent's page dims still meet WCAG's AA contrast in either colour
    scheme, dimmed but readable, where drawn at 0.55 opacity they read at 3.7 on white."""
    session = REAL / "claude-code" / "marot-spotter" / "258c7280-ae70-4798-800f-63464d01a85d.jsonl"
    if not session.is_file():
        pytest.skip("the real fixtures are not in this checkout")
    path = saved(imports.load_runs(session)[2], tmp_path, "forked")
    for scheme in ("light", "dark"):
        page, _, _ = open_page(browser, path, color_scheme=scheme)
        page.click("button[data-tab=steps]")
        settled(page)
        assert page.locator("[data-panel=steps] tbody tr.ar-inherited").count() > 0
        assert (scheme, page.evaluate(LOW_CONTRAST)) == (scheme, [])
        page.close()


def test_the_current_row_keeps_its_kind_colour_and_stands_out_in_light_and_dark(browser: Any, tmp_path: Path) -> None:
    """The steps table's current row keeps the colour of what the model saw of it (a summary's amber, as in the other
    rows), and is outlined, at least 2 pixels, in a colour that stands out from the page by WCAG's 3 for a graphic,
    in either colour scheme, where its blue fill hid the kind's colour."""
    path = saved(samples.load("flaky-build-resumed"), tmp_path, "current")
    for scheme in ("light", "dark"):
        page, _, _ = open_page(browser, path, "#step=3", color_scheme=scheme)  # a summary, as steps 0 and 1 are
        page.click("button[data-tab=steps]")
        settled(page)
        assert (scheme, *current_row(page)) == (scheme, "ar-summary", [])
        page.close()


def test_the_steps_tab_says_the_model_saw_nothing_of_the_step_the_conversation_ended_on(
    browser: Any, tmp_path: Path
) -> None:
    """The steps tab of a real Claude Code session says, of its last step (a reply nothing answered: the conversation
    ended on it), "nothing: the conversation ended", as ``agentrender steps`` and the notebook's table say, where the
    cell was empty; the steps before it keep what the model saw of them."""
    path = REAL / "claude-code" / "DRMacIver-claude-reliability" / "hello-world-script" / "transcript.jsonl"
    run = imports.load(path)
    page, errors, _ = open_page(browser, saved(run, tmp_path, "ended"))
    page.click("button[data-tab=steps]")
    saw = page.eval_on_selector_all("[data-panel=steps] tbody tr", "rows => rows.map(row => row.cells[4].textContent)")
    assert saw == ["as sent", "as sent", "as sent", ENDED_SAW] and not errors


def test_the_steps_tab_says_a_dash_of_a_step_with_no_summary_as_the_cli_does(browser: Any, tmp_path: Path) -> None:
    """The steps tab of a real Claude Code session, whose steps hold no summary, says "—" under summary bytes, as
    ``agentrender steps`` says it, where each cell said 0 and read as a 0-byte summary (or was empty, as the content
    bytes of a step with no result were); a sample's summaries keep their bytes."""
    cells = (
        "table => { const at = [...table.tHead.rows[0].cells].findIndex(cell => cell.textContent === 'content bytes');"
        " return [...table.tBodies[0].rows].map(row => [row.cells[at].textContent, row.cells[at + 1].textContent]); }"
    )
    path = REAL / "claude-code" / "DRMacIver-claude-reliability" / "hello-world-script" / "transcript.jsonl"
    for run, expected in (
        (imports.load(path), [["55", "—"], ["11", "—"], ["—", "—"], ["—", "—"]]),
        (samples.load("fix-failing-test"), [["45", "20"], ["215", "18"], ["377", "42"]]),
    ):
        page, _, _ = open_page(browser, saved(run, tmp_path, "summaries"))
        page.click("button[data-tab=steps]")
        settled(page)
        assert page.eval_on_selector("[data-panel=steps] table", cells)[: len(expected)] == expected
        page.close()


def test_a_compacted_runs_page_says_where_its_views_restart_and_charts_the_compaction(
    browser: Any, tmp_path: Path
) -> None:
    """Past a compaction, the page's view opens with the sentence ``views.html`` opens with (the compaction right
    before it, or the one it restarts from) and the steps since it: the steps before it are not in the view, so it
    asks no one to raise "steps shown" for them. Under the contract's options a mark stands where the history is
    rendered across it. The size chart marks it, and counts it among the cache prefix's breaks."""
    run = compacted_run(tmp_path, 8, [compaction(3)])
    views = Views(run)
    page, _, _ = open_page(browser, saved(run, tmp_path, "compacted"), "#step=6")
    view = views.at(6)
    assert page.inner_text(".ar-view > .ar-compacted") == view.restart_label
    turns = page.evaluate(TURNS)
    assert len(turns) == 1 + 2 * (6 - view.first_step) and "raise" not in page.inner_text(".ar-view")
    assert turns[1:] == expected_turns(views, 6)[1 + 2 * view.first_step :]
    page.locator("input[type=number]").fill("1")  # one step shown: the one earlier step since the compaction elided
    page.locator("input[type=number]").dispatch_event("change")
    settled(page)
    said = view_html(view, last_steps=1)
    elided = said.split('<div class="ar-elided">', 1)[1].split(" not shown here", 1)[0]
    assert elided == "… 2 earlier steps (4 messages)"
    assert page.inner_text(".ar-view > .ar-elided").startswith(elided + " not shown here; raise")
    page.locator("input[aria-label=step]").fill(str(views.stops.index(3)))
    settled(page)
    fact = views.at(3).compaction
    assert fact is not None and page.inner_text(".ar-view > .ar-compacted") == fact.describe()
    page.locator("input[type=number]").fill("40")
    page.locator("input[type=number]").dispatch_event("change")
    page.locator("input[aria-label=step]").fill(str(views.stops.index(6)))
    page.click("input[type=checkbox]")  # the same history under the contract's options: rendered across
    settled(page)
    marks = page.eval_on_selector_all(
        ".ar-view > .ar-compacted, .ar-view > .ar-assistant > .ar-role",
        "nodes => nodes.map(node => node.textContent)",
    )
    mark = "compaction (auto) here in the session as sent; rendered across under the contract"
    assert marks.index(mark) == 3 and marks[4].startswith("assistant · step 3")
    page.click("input[type=checkbox]")
    page.click("button[data-tab=steps]")  # the last view holds nothing of the steps before the compaction
    saw = page.eval_on_selector_all("[data-panel=steps] tbody tr", "rows => rows.map(row => row.cells[4].textContent)")
    assert saw[:3] == [LEFT_OUT_TEXT] * 3 and LEFT_OUT_TEXT not in saw[3:]
    page.click("button[data-tab=size]")
    page.wait_for_selector("[data-panel=size] svg")
    assert page.locator("[data-panel=size] rect.ar-compaction").count() == 1
    words = page.inner_text("[data-panel=size]")
    assert "the cache prefix broke 1 time" in words
    assert f"compaction (auto) before step 3: {fact.bytes_after:,} bytes after" in words
    page.screenshot(path=str(_artifacts() / "page-compaction-size.png"))
    page.click("input[type=checkbox]")  # under the contract's options the chart's compaction is rendered across
    page.wait_for_selector("[data-panel=size] svg")
    assert "compaction in the session as sent (rendered across here)" in page.inner_text("[data-panel=size]")


def _artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


TEX = r"$\href{javascript:window.__pwned=4}{x}$ $$\unicode{x}$$ \(\alert{1}\)"
"""MathJax and LaTeX payloads: a typeset link to javascript: and macros a TeX renderer would run."""


MARKUP = (
    "<script>window.__pwned = 1</script>",
    '<img src=x onerror="window.__pwned = 2">',
    '<a href="javascript:window.__pwned = 3">click</a>',
    "</style><style>body{display:none}</style>",
    TEX,
)
"""The hostile pieces that are markup or math, with no unsafe character in them."""
MARKED = ("[U+202E]evil[U+202C] [U+2066]isolate", "tags:[U+E0069][U+E0067]", "half a pair:[U+D800] end")
"""How the page shows the pieces with unsafe characters (bidi overrides, tag characters, a lone surrogate)."""


@pytest.mark.parametrize(
    ("text", "shown"),
    [(HOSTILE + TEX + UNSEEN, MARKUP + MARKED), ("".join(MARKUP), MARKUP)],
    ids=["with unsafe characters", "markup alone"],
)
def test_the_hostile_run_stays_text(browser: Any, tmp_path: Path, text: str, shown: tuple[str, ...]) -> None:
    """Every piece of a hostile run (script, onerror, javascript: links, TeX, bidi overrides, tag characters) is shown
    literally, with its unsafe characters as markers; no dialog opens, nothing is requested, no script of it runs."""
    page, dialogs, requests = open_page(browser, saved(hostile_run(text), tmp_path, "hostile"))
    for tab in ("conversation", "steps", "decide", "size"):
        page.click(f"button[data-tab={tab}]")
        if tab == "decide":
            page.wait_for_selector("[data-panel=decide] .ar-why")
        settled(page)
        page.evaluate("() => document.querySelectorAll('details').forEach(details => { details.open = true; })")
        page.wait_for_timeout(100)
        if tab in ("conversation", "decide"):
            words = page.inner_text("#ar-page")
            for payload in shown:
                assert payload in words, (tab, payload)
        page.screenshot(path=str(_artifacts() / f"page-hostile-{tab}.png"))
    assert page.evaluate("() => typeof window.__pwned") == "undefined"
    assert page.locator("#ar-page img, #ar-page iframe, #ar-page a, #ar-page script").count() == 0
    assert dialogs == []
    assert requests == [page.url.split("#")[0]]  # the file itself, and nothing else


def test_an_imported_run_toggles_between_as_sent_and_the_what_if(browser: Any, tmp_path: Path) -> None:
    """An imported sample opens as sent; unticking "as sent" shows the view under the contract's options given at
    export, block for block as ``Views`` under those options; ticking it again goes back."""
    run = imports.load(samples.imports_folder() / "stock-lookup.calls.jsonl")
    options = run.options(recent_results=1, result_bytes=200)
    page, _, _ = open_page(browser, saved(run, tmp_path, "imported", options))
    sent, what_if = Views(run), Views(run).under(options)
    last = sent.stops[-1]
    assert page.evaluate(TURNS) == expected_turns(sent, last)
    assert "as sent" in page.inner_text(".ar-view > .ar-header")
    page.uncheck("#ar-as-sent")
    settled(page)
    assert page.evaluate(TURNS) == expected_turns(what_if, last)
    assert what_if.describe_mode() in page.inner_text(".ar-view > .ar-header")
    # results outside the what-if's window, in the turns (its legend names only what they hold: no summary here)
    assert page.locator(".ar-turn .ar-summary, .ar-turn .ar-cut, .ar-turn .ar-no_summary").count() > 0
    page.screenshot(path=str(_artifacts() / "page-what-if.png"))
    page.check("#ar-as-sent")
    settled(page)
    assert page.evaluate(TURNS) == expected_turns(sent, last)


def test_an_imported_runs_view_as_sent_reads_as_one_with_no_window_in_the_browser(browser: Any, tmp_path: Path) -> None:
    """The page of an imported run, read by the browser's JSON.parse, holds its as-sent view's window and cap as null
    and shows that view as sent, every result in full, with no number standing for "no window" anywhere."""
    run = imports.load(samples.imports_folder() / "stock-lookup.calls.jsonl")
    page, _, _ = open_page(browser, saved(run, tmp_path, "as-sent"))
    modes = page.evaluate('() => JSON.parse(document.getElementById("ar-payload").textContent).modes')
    assert [(mode["recent_results"], mode["result_bytes"]) for mode in modes] == [
        (None, None),
        (render.RECENT_RESULTS, render.RESULT_BYTES),
    ]
    assert "as sent" in page.inner_text(".ar-view > .ar-header")
    assert page.evaluate(TURNS) == expected_turns(Views(run), Views(run).stops[-1])
    shown = page.inner_text("body")
    assert "9,223,372" not in shown and "9223372" not in shown and "e+18" not in shown


def test_a_page_of_a_request_ending_with_a_prefill_says_its_last_turn_is_the_callers(
    browser: Any, tmp_path: Path
) -> None:
    """The page of a request body ending with a prefill says after that turn that it is the caller's prefill no
    reply answered, as the views do, never that nothing was sent after a reply of the model."""
    body = tmp_path / "request.json"
    asked = {"role": "user", "content": "Write a haiku about rain."}
    prefill = {"role": "assistant", "content": "Here is a haiku:"}
    body.write_text(json.dumps({"model": "claude-sonnet-4-5", "max_tokens": 256, "messages": [asked, prefill]}))
    page, _, _ = open_page(browser, saved(imports.load(body), tmp_path, "prefill"))
    view = page.inner_text(".ar-view")
    assert PREFILL_ENDED_TEXT in view and ENDED_TEXT not in view
    page.screenshot(path=str(_artifacts() / "page-prefill.png"))


def test_a_page_of_a_request_ending_with_a_prefill_titles_its_step_as_the_callers_text(
    browser: Any, tmp_path: Path
) -> None:
    """The page heads the turn of a request's closing prefill, and lists its step in the steps tab (its kind, and
    the kind filter's value that keeps it), as the caller's prefill, never by a decision's kind."""
    body = tmp_path / "request.json"
    asked = {"role": "user", "content": "Write a haiku about rain."}
    prefill = {"role": "assistant", "content": "Here is a haiku:"}
    body.write_text(json.dumps({"model": "claude-sonnet-4-5", "max_tokens": 256, "messages": [asked, prefill]}))
    page, _, _ = open_page(browser, saved(imports.load(body), tmp_path, "prefill-title"))
    labels = page.eval_on_selector_all(".ar-view .ar-role", "labels => labels.map(label => label.textContent)")
    assert re.fullmatch(rf"assistant · step 0 · {re.escape(PREFILL_SAID)} · [0-9]+ bytes", labels[-1]), labels
    page.screenshot(path=str(_artifacts() / "page-prefill-title.png"))
    page.click("button[data-tab=steps]")
    settled(page)
    cells = "rows => rows.map(row => [row.cells[0].textContent, row.cells[1].textContent])"
    assert page.eval_on_selector_all("[data-panel=steps] tbody tr", cells) == [["0", PREFILL_SAID]]
    page.select_option("select[aria-label=kind]", label=PREFILL_SAID)
    assert page.eval_on_selector_all("[data-panel=steps] tbody tr", cells) == [["0", PREFILL_SAID]]
    assert "no_tool_call" not in page.inner_text("body")


def test_the_slider_never_says_a_prefill_was_decided(browser: Any, tmp_path: Path) -> None:
    """At each stop of a run ending on the caller's prefill, the slider's words and the view's heading say which
    view it is: deciding the model's steps, then before the prefill's step and after it, which no model decided
    (never "deciding step 2" of the prefill, nor "deciding step 3 (after the last recorded step)" of a request the
    model was to go on from)."""
    run = imports.load(json_file(tmp_path / "request.json", REPLIED_THEN_PREFILL))
    page, _, _ = open_page(browser, saved(run, tmp_path, "prefill-slider"))  # opened after the last step
    said = []
    for stop in reversed(range(4)):
        said.append((page.inner_text(".ar-where"), page.inner_text(".ar-view > .ar-header > span:first-child")))
        if stop >= 2:  # after the prefill, and before it
            page.screenshot(path=str(_artifacts() / f"page-prefill-slider-{stop}.png"))
        page.keyboard.press("ArrowLeft")
        settled(page)
    before = "before step 2, the caller's prefill: no model decided it"
    after = "after step 2, the caller's prefill: the request the model was to go on from"
    assert said[::-1] == [
        ("deciding step 0", "view deciding step 0"),
        ("deciding step 1", "view deciding step 1"),
        (before, f"view {before}"),
        (after, f"view {after}"),
    ], said


def test_a_page_of_a_call_ending_with_a_prefill_shows_the_prefill_the_model_saw(browser: Any, tmp_path: Path) -> None:
    """The page's view deciding a step whose call ended with a prefill ends with that prefill, said to be the caller's
    text, with the request's message count and a replay key that matches the call's; the view after it does not."""
    log = prefilled_log(tmp_path / "log.jsonl")
    path = saved(imports.load(log), tmp_path, "prefilled")
    page, _, _ = open_page(browser, path, "#step=1")
    view = " ".join(page.inner_text(".ar-view").split())
    assert f"assistant · step 1 · {PREFILL_SAID} · 71 bytes" in view.lower() and PREFILLED_TEXT in view, view
    assert "4 messages" in view and "matches the recorded request key" in view and ENDED_TEXT not in view
    page.screenshot(path=str(_artifacts() / "page-prefilled.png"))
    page, _, _ = open_page(browser, path, "#step=2")
    view = " ".join(page.inner_text(".ar-view").split())
    assert PREFILLED_TEXT not in view and "The answer is 42." in view and ENDED_TEXT in view


def test_the_steps_tab_marks_the_callers_prefill_in_the_reason(browser: Any, tmp_path: Path) -> None:
    """The page's steps tab says, in a step's reason, which text is the caller's prefill: all of a prefill no reply
    answered, and the prefill a reply went on from apart from that reply, as steps does."""
    cells = "rows => rows.map(row => [row.cells[0].textContent, row.cells[row.cells.length - 1].textContent])"
    for run, expected in (
        (imports.load(prefilled_log(tmp_path / "log.jsonl")), f"{PREFILL_REASON} The answer is {REPLY_REASON} 42."),
        (imports.load(json_file(tmp_path / "request.json", REPLIED_THEN_PREFILL)), f'{PREFILL_REASON} {{"answer":'),
    ):
        page, _, _ = open_page(browser, saved(run, tmp_path, "prefill-reasons"))
        page.click("button[data-tab=steps]")
        settled(page)
        rows = page.eval_on_selector_all("[data-panel=steps] tbody tr", cells)
        assert rows[-1][1] == expected, rows
        assert all(PREFILL_REASON not in reason for _, reason in rows[:-1]), rows


def test_the_steps_tab_never_says_tool_uses_its_agent_ran_were_not_executed(browser: Any, tmp_path: Path) -> None:
    """The page of a real Claude Code session whose replies called tools in parallel, each run by its agent, lists
    those steps' reasons without the contract's note that the others were not executed, beside their tools."""
    source = REAL / "claude-code" / "DRMacIver-claude-reliability" / "coverage-test-fix" / "transcript.jsonl"
    page, _, _ = open_page(browser, saved(imports.load(source), tmp_path, "parallel"))
    page.click("button[data-tab=steps]")
    settled(page)
    cells = "rows => rows.map(row => [...row.cells].map(cell => cell.textContent))"
    rows = {row[0]: row for row in page.eval_on_selector_all("[data-panel=steps] tbody tr", cells)}
    assert "not executed" not in page.inner_text("[data-panel=steps]")
    assert rows["1"][2] == "Read (+ Read)" and rows["1"][-1] == "", rows["1"]
    assert rows["2"][-1].endswith("and a test for it in `test_math_utils.py`."), rows["2"]


def test_every_sample_page_opens_in_light_and_dark(browser: Any, tmp_path: Path) -> None:
    """Each bundled sample's page opens with no error in either colour scheme; screenshots are kept."""
    for name in samples.names():
        for scheme in ("light", "dark"):
            page, _, _ = open_page(browser, saved(samples.load(name), tmp_path, name), color_scheme=scheme)
            assert page.locator(".ar-view .ar-turn").count() > 0
            page.screenshot(path=str(_artifacts() / f"page-{name}-{scheme}.png"))
            page.close()


def test_every_text_of_the_page_is_readable_in_light_and_dark(browser: Any, tmp_path: Path) -> None:
    """Each text of each tab of a sample's page and of a compacted run's stands out from its background by WCAG's AA
    ratio in either colour scheme, where in dark a failed result's tag, the bytes hidden from the model, "agrees" and
    the size chart's legend kept their light colours."""
    pages = [saved(samples.load("fix-failing-test"), tmp_path, "sample")]
    pages.append(saved(compacted_run(tmp_path, 8, [compaction(3)]), tmp_path, "compacted"))
    for path in pages:
        for scheme in ("light", "dark"):
            page, _, _ = open_page(browser, path, "#step=8", color_scheme=scheme)
            for tab in ("conversation", "steps", "decide", "size"):
                page.locator(f"[data-tab={tab}]").click()
                settled(page)
                assert (path.name, scheme, tab, page.evaluate(LOW_CONTRAST)) == (path.name, scheme, tab, [])
            page.close()


def test_the_step_and_reply_buttons_are_named_in_words(browser: Any, tmp_path: Path) -> None:
    """The conversation's and the decide tab's arrow buttons are named for a screen reader and a pointer's tooltip
    (previous step, next step, previous reply, next reply), where each was its glyph alone, read out as a triangle;
    pressing one by that name moves the view."""
    page, _, _ = open_page(browser, saved(samples.load("fix-failing-test"), tmp_path, "named"), "#step=3")
    for tab, names in (("conversation", ("previous step", "next step")), ("decide", ("previous reply", "next reply"))):
        page.locator(f"[data-tab={tab}]").click()
        for name in names:
            named = page.get_by_role("button", name=name, exact=True)
            assert named.count() == 1, name
            assert named.get_attribute("title") == name
    page.locator("[data-tab=conversation]").click()
    page.get_by_role("button", name="next step", exact=True).click()
    settled(page)
    assert page.evaluate("() => location.hash") == "#step=4"


LEGEND = """() => [...document.querySelector('.ar-legend').children].map(mark => [mark.textContent, mark.title])"""
"""What a legend shows: each mark's words and its meaning (its title)."""


def views_legend(browser: Any, views: Views, at: int, shown: int) -> list[list[str]]:
    """What the legend of the view at ``at`` says in a notebook (``view_html``, its ``shown`` last steps), as
    ``LEGEND`` reads it."""
    page = browser.new_page()
    try:
        page.set_content(view_html(views.at(at), last_steps=shown))
        return page.evaluate(LEGEND)  # type: ignore[no-any-return]
    finally:
        page.close()


def claude_code_session() -> Run:
    """The real Claude Code session the package ships (``sample_imports``): imported, as sent, with a sub-agent."""
    return imports.load_runs(samples.imports_folder() / "ff80b049-3eff-495f-b4f0-c4071d615994.jsonl")[0]


@pytest.mark.parametrize(
    ("name", "recent"),
    [("fix-failing-test", 100), ("flaky-build-resumed", 1), ("malformed-replies", 0), ("claude-code", None)],
)
def test_the_pages_legend_is_the_legend_of_the_view_on_screen(
    browser: Any, tmp_path: Path, name: str, recent: int | None
) -> None:
    """As the reader moves from step to step and changes how many steps are shown, the page's legend names what a
    notebook's view of the same steps names, with the same meanings: the kinds of the blocks on screen and the marks
    they carry, so a run whose results never leave the window lists no summary, and an early view no later kind (an
    imported session's views as sent, too)."""
    run = claude_code_session() if recent is None else samples.load(name)
    views = Views(run) if recent is None else Views(run, run.options(recent_results=recent))
    page, _, _ = open_page(browser, saved(run, tmp_path, name, None if recent is None else views.options), "#step=0")
    stops = views.stops
    for stop in range(len(stops)):
        if stop:
            page.keyboard.press("ArrowRight")
            settled(page)
        assert page.evaluate(LEGEND) == views_legend(browser, views, stops[stop], SHOWN_STEPS), stops[stop]
    page.locator("label:has-text('steps shown') input").fill("2")
    page.locator("label:has-text('steps shown') input").dispatch_event("change")
    settled(page)
    assert page.evaluate(LEGEND) == views_legend(browser, views, stops[-1], 2)
    if recent is not None and recent >= len(run.steps):  # no result ever leaves the window
        assert BLOCK_LABELS["summary"] not in [words for words, _ in page.evaluate(LEGEND)]


def test_a_step_move_keeps_the_turns_the_views_share_as_the_reader_left_them(browser: Any, tmp_path: Path) -> None:
    """A step move lays out again only the turns the next view does not share: what the model did not see of an
    earlier result, opened by the reader, stays open after a move forward and back (the whole view was drawn anew,
    and closed it), while the turn whose result left the window is drawn in its new form."""
    run = samples.load("fix-failing-test")
    views = Views(run, run.options(recent_results=1))
    page, _, _ = open_page(browser, saved(run, tmp_path, "kept", views.options), "#step=4")
    earlier = page.locator(".ar-view > .ar-turn.ar-user", has_text="user · step 1 · outside the window")
    earlier.locator("details.ar-hidden > summary").click()
    page.keyboard.press("ArrowRight")
    settled(page)
    page.keyboard.press("ArrowLeft")
    settled(page)
    assert earlier.locator("details.ar-hidden").get_attribute("open") is not None
    assert page.evaluate(TURNS) == expected_turns(views, 4)
    page.keyboard.press("ArrowRight")
    settled(page)
    assert page.evaluate(TURNS) == expected_turns(views, views.stops[views.stops.index(4) + 1])


def test_a_printed_page_shows_each_text_of_the_view_whole_and_no_controls(browser: Any, tmp_path: Path) -> None:
    """Printed (the print medium), the view on screen shows every text whole, where a long result's box printed
    its first 24 lines and cut the rest, and leaves out the tabs, the buttons and the slider a reader of paper cannot
    use."""
    runs = imports.load_runs(samples.imports_folder() / "ff80b049-3eff-495f-b4f0-c4071d615994.jsonl")
    page, _, _ = open_page(browser, saved(runs[0], tmp_path, "printed"))
    cut = "() => [...document.querySelectorAll('.ar-view pre')].filter(pre => pre.scrollHeight > pre.clientHeight + 1)"
    assert page.evaluate(cut + ".length") > 0  # on screen, the long texts scroll within their boxes
    page.emulate_media(media="print")
    assert page.evaluate(cut + ".length") == 0
    controls = ".ar-tabs, .ar-bar button, .ar-bar input[type=range]"
    assert page.locator(controls).count() > 0 and all(
        not shown
        for shown in page.locator(controls).evaluate_all("nodes => nodes.map(node => node.getClientRects().length > 0)")
    )


def test_a_row_of_the_steps_table_opens_its_step_from_the_keyboard(browser: Any, tmp_path: Path) -> None:
    """A row of the steps table takes the focus with Tab, shows that it has it, and opens its step's view on Enter
    (and on Space), as a click does: the rows opened by the mouse alone."""
    run = samples.load("fix-failing-test")
    page, _, _ = open_page(browser, saved(run, tmp_path, "keyboard"))
    page.click("button[data-tab=steps]")
    settled(page)
    page.locator("select[aria-label=kind]").focus()
    focused = "() => document.activeElement.closest('tr.ar-row')?.dataset.row ?? null"
    for _ in range(6):  # Tab on, past the page's buttons, to the table's first row
        page.keyboard.press("Tab")
        if page.evaluate(focused) is not None:
            break
    assert page.evaluate(focused) == "0"
    page.screenshot(path=str(_artifacts() / "page-row-focused.png"))
    assert page.evaluate("() => getComputedStyle(document.activeElement).outlineStyle") != "none"
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    settled(page)
    assert page.evaluate("() => location.hash") == "#step=2"
    assert page.locator("[data-panel=conversation]").is_visible()
    page.click("button[data-tab=steps]")
    settled(page)
    page.locator("tr.ar-row[data-row='5']").focus()
    page.keyboard.press(" ")
    settled(page)
    assert page.evaluate("() => location.hash") == "#step=5"


def test_a_100000_step_run_opens_and_moves_quickly(browser: Any, tmp_path: Path, long_run: Path) -> None:
    """On the generated run of 100,000 steps (the sweep's, which the notebook explorer's test opens too), the page's
    first view is shown while the browser still reads the rest of the file, and a step move and a jump are timed in
    the page once it has read it; the figures are printed (docs/performance.md records them) and only generous
    bounds asserted."""
    page_path = saved(load_run(long_run), tmp_path, "long")
    page = browser.new_page(viewport={"width": 1200, "height": 1400})
    page.goto(page_path.as_uri(), timeout=120_000, wait_until="commit")
    settled(page, timeout=120_000)
    first, reading = page.evaluate("() => [+document.getElementById('ar-page').dataset.settled, document.readyState]")
    page.wait_for_load_state("domcontentloaded", timeout=120_000)
    read = page.evaluate("() => performance.getEntriesByType('navigation')[0].domContentLoadedEventStart")
    moves = []
    for _ in range(9):
        page.keyboard.press("ArrowLeft")
        settled(page)
        moves.append(float(page.evaluate("() => +document.getElementById('ar-page').dataset.drawMs")))
    page.locator("input[aria-label=step]").fill("50000")  # a jump to a step whose part and texts are not read yet
    settled(page)
    jump = float(page.evaluate("() => +document.getElementById('ar-page').dataset.drawMs"))
    page.screenshot(path=str(_artifacts() / "page-100000-steps.png"))
    sizes = (long_run.stat().st_size, page_path.stat().st_size)
    print(
        f"\n100,000 steps: run file {sizes[0]:,} bytes, page {sizes[1]:,} bytes; the first view shown {first:.0f} ms "
        f"after navigation (the file still being read: {reading == 'loading'}), the whole file read in {read:.0f} ms; "
        f"a step move {min(moves):.1f}-{max(moves):.1f} ms (median {sorted(moves)[4]:.1f}), a jump to step 50,000 "
        f"{jump:.1f} ms"
    )
    assert first < 30_000 and max(moves) < 1_000 and jump < 1_000


SELF_CRITIQUE = (
    REAL
    / "inspect"
    / "asapsav-teormineval-sample-review"
    / "2025-10-07T18-09-36+03-00_multi-problems-eval_gLLMPPTkQ7ZPeEezLNzAbe.eval"
)
SWE_AGENT = REAL / "swe-agent" / "princeton-nlp-SWE-agent" / "function_calling_simple.traj"


@pytest.mark.skipif(not SELF_CRITIQUE.is_file(), reason="the real fixtures are not in this checkout")
def test_a_real_log_reads_as_text_and_labels_a_call_beside_the_conversation(browser: Any, tmp_path: Path) -> None:
    """The page of a real Gemini log: the model's reasoning, sent back as a thinking block without a signature, is
    its text (it was a JSON dump of the block's keys); the critique made beside the conversation is not called a
    retry on the decide tab (it opens on the reply that decided step 1, the step in view, and the one before it is the
    critique); a SWE-agent issue written with Windows line endings shows no [U+000D] on every line,
    where a lone carriage return would still show one."""
    run = imports.load_runs(SELF_CRITIQUE)[0]
    page, _, _ = open_page(browser, saved(run, tmp_path, "critique"), "#step=1")
    words = page.inner_text("#ar-page")
    assert "Summary of my thinking process" in words
    assert '"thinking":' not in words and '"type": "thinking"' not in words
    page.click("button[data-tab=decide]")
    page.wait_for_selector("[data-panel=decide] .ar-why")
    assert page.inner_text("[data-panel=decide] .ar-reply-said") == "call 3 of 3: the reply that decided step 1"
    page.click("[data-panel=decide] button:has-text('◀')")
    page.wait_for_function("() => document.querySelector('[data-panel=decide]').innerText.includes('call 2 of 3')")
    decided = page.inner_text("[data-panel=decide]")
    assert "an earlier reply captured for this step (a retry, or a call beside the conversation)" in decided
    page.screenshot(path=str(_artifacts() / "page-critique-decide.png"))
    if SWE_AGENT.is_file():
        trajectory = imports.load(SWE_AGENT)
        assert "\r\n" in trajectory.header["opening"]
        page, _, _ = open_page(browser, saved(trajectory, tmp_path, "crlf"), "#step=0")
        assert "[U+000D]" not in page.inner_text("#ar-page")


IMAGES = REAL / "inspect" / "UKGovernmentBEIS-inspect_ai" / "log_images_tc.json"


@pytest.mark.skipif(not IMAGES.is_file(), reason="the real fixtures are not in this checkout")
def test_an_image_the_model_was_sent_is_said_in_one_line_not_as_its_base64(browser: Any, tmp_path: Path) -> None:
    """An image in a real log's opening is said as ``show`` and the notebook say it (its media type, size and
    dimensions); the page printed 8 KB of its base64 as a JSON dump."""
    run = imports.load_runs(IMAGES)[0]
    page, _, requests = open_page(browser, saved(run, tmp_path, "images"), "#step=1")
    words = page.inner_text("#ar-page")
    assert "[image/png, 6,395 bytes, 34\u00d730]" in words
    assert "iVBORw0KGgo" not in words and '"media_type"' not in words
    assert requests == [page.url.split("#")[0]]


FAILED_CALLS = (
    REAL / "inspect" / "gspencergoog-A2UI" / "2026-07-22T16-51-18-00-00_a2ui-v1-0-eval_nXpB6sZohVsmQgnyUD8nuj.eval"
)


@pytest.mark.skipif(not FAILED_CALLS.is_file(), reason="the real fixtures are not in this checkout")
def test_how_a_run_ended_is_said_beside_its_folded_facts_and_a_failed_one_shows_them(
    browser: Any, tmp_path: Path
) -> None:
    """The run's facts are folded under "the run", which now says how it ended; a run that failed opens them, its
    error among them (a real sample whose model call failed showed an opening and "no steps yet", and nothing said
    it failed). A run that completed keeps them folded."""
    failed = imports.load_runs(FAILED_CALLS)[0]
    page, _, _ = open_page(browser, saved(failed, tmp_path, "failed"))
    assert page.inner_text("#ar-page > details > summary") == "the run \u00b7 failed: error"
    assert page.evaluate("() => document.querySelector('#ar-page > details').open") is True
    assert 'TypeError("Client.__init__() got an unexpected keyword argument' in page.inner_text("#ar-page > details")
    page.screenshot(path=str(_artifacts() / "page-failed-run.png"))
    page, _, _ = open_page(browser, saved(samples.load("fix-failing-test"), tmp_path, "completed"))
    assert page.inner_text("#ar-page > details > summary") == "the run \u00b7 completed"
    assert page.evaluate("() => document.querySelector('#ar-page > details').open") is False


def test_the_decide_tab_reaches_any_reply_with_its_slider(browser: Any, tmp_path: Path) -> None:
    """On a real Codex rollout of 39 replies, the decide tab's slider (the notebook's ``DecideStepper`` has one too)
    shows any reply at once, where its buttons took a click a reply; the buttons then move on from it, and move the
    slider with them."""
    run = imports.load(REAL / "codex" / "AcidicSoil-codex-session-view" / ROLLOUT_39)
    calls = run.model_calls
    page, _, _ = open_page(browser, saved(run, tmp_path, "replies"))
    page.click("button[data-tab=decide]")
    slider = page.locator("[data-panel=decide] input[aria-label=reply]")
    assert slider.get_attribute("max") == str(len(calls) - 1)
    slider.fill("30")
    settled(page)
    said = page.inner_text("[data-panel=decide] .ar-reply-said")
    assert said == f"call 31 of {len(calls)}: the reply that decided step {calls[30].step}"
    page.click("[data-panel=decide] button[aria-label='next reply']")
    settled(page)
    assert page.inner_text("[data-panel=decide] .ar-reply-said").startswith("call 32 of")
    assert slider.input_value() == "31"


ROLLOUT_39 = "rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl"


def test_the_decide_tab_shows_the_reply_of_the_step_in_view(browser: Any, tmp_path: Path) -> None:
    """On a real Codex rollout, the decide tab opens on the reply that decided the step in view and says so; its own
    slider still reaches any reply (which then says the step it decided, and offers the step in view's again), and
    once the step moves the tab follows it again. Before, the tab kept its own reply whatever step was in view."""
    run = imports.load(REAL / "codex" / "AcidicSoil-codex-session-view" / ROLLOUT_39)
    count = len(run.model_calls)
    page, _, _ = open_page(browser, saved(run, tmp_path, "follow"), "#step=12")
    page.click("button[data-tab=decide]")
    settled(page)
    said, followed = "[data-panel=decide] .ar-reply-said", "[data-panel=decide] .ar-follow"
    assert page.inner_text(said) == f"call 13 of {count}: the reply that decided step 12"
    assert page.inner_text(followed) == "· the step in view"
    page.locator("[data-panel=decide] input[aria-label=reply]").fill("30")
    settled(page)
    assert page.inner_text(said) == f"call 31 of {count}: the reply that decided step 30"
    assert page.inner_text(followed) == "show the reply that decided step 12, the step in view"
    page.click("button[data-tab=conversation]")
    page.keyboard.press("ArrowRight")
    settled(page)
    page.click("button[data-tab=decide]")
    settled(page)
    assert page.inner_text(said) == f"call 14 of {count}: the reply that decided step 13"
    assert page.locator("[data-panel=decide] input[aria-label=reply]").input_value() == "13"
    page.click("[data-panel=decide] button[aria-label='previous reply']")
    settled(page)
    page.click(f"{followed} button")
    settled(page)
    assert page.inner_text(said) == f"call 14 of {count}: the reply that decided step 13"
    page.screenshot(path=str(_artifacts() / "page-decide-follows.png"))


def test_the_decide_tab_holds_a_prefilled_reply_against_its_decision_as_decide_does(
    browser: Any, tmp_path: Path
) -> None:
    """At the step whose request ended with a prefill ("The answer is") its reply (" 42.") went on from, the decide
    tab says the reply agrees with the decision the run recorded of the two together, in ``agentrender decide``'s
    words (``Compared.said``), then the note naming the prefill, and shows no recorded decision against it; before,
    it said the reason differs."""
    run = imports.load(prefilled_log(tmp_path / "log.jsonl"))
    compared = compare_recorded(run.model_calls[1], run.steps[1].decision)
    assert compared.prefill == "The answer is"
    page, _, _ = open_page(browser, saved(run, tmp_path, "prefilled"), "#step=1")
    page.click("button[data-tab=decide]")
    settled(page)
    panel = "[data-panel=decide]"
    assert page.inner_text(f"{panel} .ar-reply-said") == "call 2 of 2: the reply that decided step 1"
    assert page.locator(f"{panel} .ar-disagree").count() == 0
    assert page.inner_text(f"{panel} .ar-agree") == compared.said
    assert compared.said == "agrees with the decision the run recorded, of the reply and its prefill"
    note = page.locator(f"{panel} .ar-agree + .ar-muted")
    assert note.inner_text() == compared.prefill_said and "a prefill ('The answer is')" in compared.prefill_said
    page.screenshot(path=str(_artifacts() / "page-decide-prefilled.png"))


SESSION = REAL / "claude-code" / "jessitron-claude-log" / "ff80b049-3eff-495f-b4f0-c4071d615994.jsonl"
"""A real Claude Code session whose step 2 started a sub-agent (the Agent tool), its transcript beside the session's."""


@pytest.mark.parametrize("width", [800, 1600])
def test_a_sessions_page_opens_the_sub_agent_a_step_started_and_goes_back(
    browser: Any, tmp_path: Path, width: int
) -> None:
    """The page of a real session written with its file's other runs says, at the step whose tool use started a
    sub-agent (in its view's header, and after that step's turn in every later view), which run it started, and
    opens it at its first step: the sub-agent's own views, under its title, saying which step started it; from there
    the page goes back to that step, and the run picker reaches either run, where it opens. Before, the page showed
    the session alone."""
    session, agent = runs = imports.load_runs(SESSION)
    use = agent.header["source"]["parent"]["tool_use_id"]
    path = tmp_path / "session.html"
    html.save(session, path, beside=runs)
    page, _, _ = open_page(browser, path, "#step=2")
    page.set_viewport_size({"width": width, "height": 1000})
    started = f"started the sub-agent run {agent.run_id} (tool use {use})"
    assert page.locator(".ar-view > .ar-run-link").all_inner_texts() == [f"{started} open that run ▸"]
    page.keyboard.press("ArrowRight")  # the view deciding step 3 holds step 2's turn, the link right after it
    settled(page)
    after = ".ar-view > .ar-assistant + .ar-run-link"
    assert page.locator(after).all_inner_texts() == [f"{started} open that run ▸"]
    page.locator(after).scroll_into_view_if_needed()
    page.screenshot(path=str(_artifacts() / f"page-sub-agent-link-{width}.png"))
    page.click(f"{after} button")
    page.wait_for_selector('#ar-page[data-run="1"][data-pending="0"]', state="attached")
    assert page.inner_text("#ar-page h1") == f"agentrender · {agent.run_id}"
    assert page.evaluate("location.hash") == "#run=1&step=0"
    assert page.evaluate(TURNS) == expected_turns(Views(agent), 0)
    back = f"a sub-agent of run {session.run_id}, started by its step 2 (tool use {use}) ◂ back to step 2"
    assert page.inner_text("#ar-page > .ar-run-link") == back
    page.screenshot(path=str(_artifacts() / f"page-sub-agent-{width}.png"))
    page.click("#ar-page > .ar-run-link button")
    page.wait_for_selector('#ar-page[data-run="0"][data-pending="0"]', state="attached")
    assert page.evaluate(TURNS) == expected_turns(Views(session), 2)
    assert page.inner_text("#ar-page h1") == f"agentrender · {session.run_id}"
    page.select_option("select[aria-label=run]", "1")
    page.wait_for_selector('#ar-page[data-run="1"][data-pending="0"]', state="attached")
    assert page.evaluate(TURNS) == expected_turns(Views(agent), None)


def shown(page: Any, run: int) -> tuple[str, str, str]:
    """Once the page shows its run ``run``, settled: the address, the tab shown, and where the conversation's step
    slider is (the view of a run whose steps are numbered from 0 on: the step it decides)."""
    page.wait_for_selector(f'#ar-page[data-run="{run}"][data-pending="0"]', state="attached")
    tab = page.get_attribute("[role=tab][aria-selected=true]", "data-tab")
    return page.evaluate("location.hash"), tab, page.input_value("input[aria-label=step]")


def test_back_and_forward_go_between_a_session_and_its_sub_agent_on_the_readers_tab(
    browser: Any, tmp_path: Path
) -> None:
    """On a session's page opened at step 2 (saved there, no address), "open that run ▸" on the decide tab shows the
    sub-agent at its first step on the decide tab; a step moved there rewrites the address without adding to the
    browser's history; Back shows the session's step 2 again, Forward the sub-agent at the step the reader left it
    at, "◂ back to step 2" the session's step 2 (Back from there, the sub-agent), on the tab the reader is on. Before,
    Back left the sub-agent on screen, and a run always opened on its conversation tab at its last view."""
    session, agent = runs = imports.load_runs(SESSION)
    session_views, agent_views = Views(session), Views(agent)
    path = tmp_path / "session.html"
    html.save(session, path, at=2, beside=runs)
    page, _, _ = open_page(browser, path)
    page.click("button[data-tab=decide]")
    settled(page)
    page.click("[data-panel=decide] .ar-run-link button")
    assert shown(page, 1) == ("#run=1&step=0", "decide", "0")
    assert page.inner_text("[data-panel=decide] .ar-reply-said").endswith("the reply that decided step 0")
    page.screenshot(path=str(_artifacts() / "page-history-sub-agent-decide.png"))
    page.click("button[data-tab=conversation]")
    entries = page.evaluate("history.length")
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => location.hash === '#run=1&step=1'")
    assert shown(page, 1) == ("#run=1&step=1", "conversation", "1")
    assert page.evaluate(TURNS) == expected_turns(agent_views, 1)
    assert page.evaluate("history.length") == entries  # a move within a run: the entry it is on, rewritten
    page.go_back()
    page.wait_for_selector('#ar-page[data-run="0"]', state="attached")
    assert shown(page, 0) == ("", "conversation", "2")
    assert page.evaluate(TURNS) == expected_turns(session_views, 2)
    page.screenshot(path=str(_artifacts() / "page-history-back.png"))
    page.click("button[data-tab=steps]")
    page.go_forward()
    page.wait_for_selector('#ar-page[data-run="1"]', state="attached")
    assert shown(page, 1) == ("#run=1&step=1", "steps", "1")
    assert page.locator("[data-panel=steps] tr.ar-current").get_attribute("data-row") == "1"
    page.screenshot(path=str(_artifacts() / "page-history-forward.png"))
    page.click("#ar-page > .ar-run-link button")
    assert shown(page, 0) == ("#step=2", "steps", "2")
    assert page.locator("[data-panel=steps] tr.ar-current").get_attribute("data-row") == "2"
    page.go_back()
    page.wait_for_selector('#ar-page[data-run="1"]', state="attached")
    assert shown(page, 1) == ("#run=1&step=1", "steps", "1")


def test_the_run_picker_keeps_the_readers_tab_when_the_run_has_it(browser: Any, tmp_path: Path) -> None:
    """The run picker shows another run where it opens, on the tab the reader is on when that run has it (else its
    conversation: the session's warnings tab, for a sub-agent with no warnings), and Back returns to the run before,
    on the reader's tab. Before, every run opened on its conversation tab, and Back left the run on screen."""
    session, agent = runs = imports.load_runs(SESSION)
    assert session.warnings and not agent.warnings
    path = tmp_path / "session.html"
    html.save(session, path, beside=runs)
    page, _, _ = open_page(browser, path)
    page.click("button[data-tab=warnings]")
    page.select_option("select[aria-label=run]", "1")
    assert shown(page, 1) == ("#run=1&step=10", "conversation", "10")
    page.click("button[data-tab=size]")
    page.wait_for_selector("[data-panel=size] svg")
    page.go_back()
    page.wait_for_selector('#ar-page[data-run="0"]', state="attached")
    assert shown(page, 0) == ("", "size", "60")
    page.wait_for_selector("[data-panel=size] svg")
    page.go_forward()
    page.wait_for_selector('#ar-page[data-run="1"]', state="attached")
    assert shown(page, 1) == ("#run=1&step=10", "size", "10")


def test_an_address_past_the_pages_runs_or_steps_shows_the_nearest_and_says_so(browser: Any, tmp_path: Path) -> None:
    """An address naming a run past the page's runs or a step past a run's (a hand-edited ``#run=9&step=999``), on
    opening the page or once it is open, shows the nearest the page holds (its last run, the view after that run's
    last step), says what was named and why it is not there in the words ``Views.at`` refuses such a step with, and
    rewrites the address to what is shown; the note goes once the reader moves. Before, an opening address past the
    runs showed the first run, and one set later was ignored, saying nothing."""
    session, agent = runs = imports.load_runs(SESSION)
    path = tmp_path / "session.html"
    html.save(session, path, beside=runs)
    with pytest.raises(IndexError) as refused:
        Views(agent).at(999)
    page, _, _ = open_page(browser, path, "#run=9&step=999")
    assert shown(page, 1) == ("#run=1&step=10", "conversation", "10")
    assert page.evaluate(TURNS) == expected_turns(Views(agent), None)
    assert page.inner_text(".ar-address-note") == (
        f"The address named #run=9&step=999: run 9 is past the page's runs: it holds runs 0 to 1; "
        f"{str(refused.value).replace('the run', 'run 1')}. Shown instead, the nearest: #run=1&step=10."
    )
    page.screenshot(path=str(_artifacts() / "page-address-past.png"))
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("() => location.hash === '#run=1&step=9'")
    assert shown(page, 1) == ("#run=1&step=9", "conversation", "9")
    assert page.locator(".ar-address-note").count() == 0
    with pytest.raises(IndexError) as refused:
        Views(session).at(70)
    page.evaluate("() => { location.hash = '#step=70'; }")
    page.wait_for_selector('#ar-page[data-run="0"]', state="attached")
    assert shown(page, 0) == ("#step=60", "conversation", "60")
    assert page.inner_text(".ar-address-note") == (
        f"The address named #step=70: {refused.value}. Shown instead, the nearest: #step=60."
    )
    page.evaluate("() => { location.hash = '#step=20'; }")
    page.wait_for_function("() => document.querySelector('input[aria-label=step]').value === '20'")
    assert page.locator(".ar-address-note").count() == 0


def test_the_warnings_tab_says_the_warnings_in_line_order_naming_the_file_alone(browser: Any, tmp_path: Path) -> None:
    """A real session whose importer warned of its lines from the last back: the page's warnings tab lists them in
    the order of their lines, grouped as every display groups them (``warning_groups``), and names the file by its
    name alone, as "the run" does: the folders it was read from are the machine's, and never reach a shared page."""
    source = (
        REAL
        / "claude-code"
        / "frederick-douglas-pearce-claude-code-sessions"
        / "hook-trace-denial-and-stop-ladder.jsonl"
    )
    private = tmp_path / "home-of-someone" / source.name
    private.parent.mkdir()
    private.write_bytes(source.read_bytes())
    run = imports.load(private)
    groups = warning_groups(run.warnings)
    assert [group.line for group in groups] == sorted(group.line for group in groups) != [w.line for w in run.warnings]
    page, _, _ = open_page(browser, saved(run, tmp_path, "warned"))
    page.click("button[data-tab=warnings]")
    page.click("#ar-page > details > summary")
    assert page.locator("[data-panel=warnings] li").all_inner_texts() == [group.said(shared=True) for group in groups]
    assert all(
        text.startswith(f"{source.name}:") for text in page.locator("[data-panel=warnings] li").all_inner_texts()
    )
    assert "home-of-someone" not in page.inner_text("#ar-page")


def test_a_step_named_in_the_address_of_an_open_page_is_moved_to(browser: Any, tmp_path: Path) -> None:
    """``#step=K`` set on a page already open (a link within it, or typed in the address bar) moves the view to step
    K, as opening the page at it does; it did nothing once the page had opened."""
    run = samples.load("flaky-build-resumed")
    views = Views(run, run.options(recent_results=2))
    page, _, _ = open_page(browser, saved(run, tmp_path, "flaky", views.options), "#step=1")
    stops = views.stops
    for at in (stops[-2], stops[2], stops[1]):
        page.evaluate(f"() => {{ location.hash = '#step={at}'; }}")
        page.wait_for_function(f"() => document.querySelector('input[aria-label=step]').value === '{stops.index(at)}'")
        settled(page)
        assert page.evaluate(TURNS) == expected_turns(views, at), at


def test_a_folded_thinking_block_of_a_reply_shows_that_it_opens(browser: Any, tmp_path: Path) -> None:
    """A reply's thinking on the decide tab is folded under its tag, which had no mark to say it opens (its summary is
    a tag, drawn as a block of its own): it now shows one, turned when open."""
    page, _, _ = open_page(browser, saved(samples.load("fix-failing-test"), tmp_path, "thinking"))
    page.click("button[data-tab=decide]")
    page.wait_for_selector("[data-panel=decide] details > summary.ar-tag")
    tag = "document.querySelector('[data-panel=decide] details > summary.ar-tag')"
    mark = f"() => getComputedStyle({tag}, '::before').content"
    assert page.evaluate(mark) == '"\u25b8 "'
    page.click("[data-panel=decide] details > summary.ar-tag")
    assert page.evaluate(mark) == '"\u25be "'
    assert "Start by seeing what is in the repository." in page.inner_text("[data-panel=decide]")


@pytest.mark.parametrize("width", [800, 400])
def test_a_narrow_window_keeps_the_page_its_width(browser: Any, tmp_path: Path, width: int) -> None:
    """In a window of 800 or 400 pixels the steps table scrolls within its panel and the tabs wrap, so the page is
    no wider than the window (it was 953 px wide, its last column cut, and the last tab out of sight)."""
    run = imports.load_runs(REAL / "claude-code" / "jessitron-claude-log" / "agents-observe-bug.jsonl")[0]
    path = saved(run, tmp_path, "narrow")
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(path.as_uri())
    settled(page)
    for tab in ("conversation", "steps", "decide", "warnings"):
        page.click(f"button[data-tab={tab}]")
        settled(page)
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width, tab
    tabs = page.evaluate(
        "() => [...document.querySelectorAll('.ar-tabs button')].map(b => b.getBoundingClientRect().right)"
    )
    assert max(tabs) <= width
    page.click("button[data-tab=steps]")
    panel = "document.querySelector('[data-panel=steps]')"
    assert page.evaluate(f"() => {panel}.scrollWidth > {panel}.clientWidth")  # the table scrolls within it


@pytest.mark.parametrize("width", [1200, 420])
def test_the_size_charts_words_keep_their_size_in_a_narrow_window(browser: Any, tmp_path: Path, width: int) -> None:
    """The size chart's axis words (its largest bytes, its first and last step) are drawn at the page's 11 pixels in
    a window of 1,200 or of 420 pixels, where the chart was drawn 900 wide and scaled to the window, its words
    shrunk to 5 pixels at 420."""
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(saved(samples.load("flaky-build-resumed"), tmp_path, "chart").as_uri())
    settled(page)
    page.click("button[data-tab=size]")
    page.wait_for_selector(".ar-chart svg text")
    heights = page.evaluate(
        "() => [...document.querySelectorAll('.ar-chart svg text')].map(t => t.getBoundingClientRect().height)"
    )
    assert len(heights) >= 5 and all(10 <= height <= 16 for height in heights), heights
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize("width", [1200, 420])
def test_every_word_of_the_size_chart_lies_within_it(browser: Any, tmp_path: Path, width: int) -> None:
    """On a run of 1,000 steps, whose last tick (1,000) falls at the chart's right end, every word of the size chart
    (each tick's, the step in view's, the axes') is drawn within the chart, in a wide and a narrow window: the last
    tick's was centred on its tick, and cut to "1,00"."""
    path = tmp_path / "thousand.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in run_lines(0, steps=1_000)), encoding="utf-8")
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(saved(load_run(path), tmp_path, "thousand").as_uri() + "#step=0")
    settled(page)
    page.click("button[data-tab=size]")
    page.wait_for_selector(".ar-chart svg text")
    outside = page.evaluate(
        """() => { const chart = document.querySelector('.ar-chart svg').getBoundingClientRect();
        return [...document.querySelectorAll('.ar-chart svg text')].filter(t => t.textContent).map(t =>
            [t.textContent, t.getBoundingClientRect()]).filter(([, box]) => box.left < chart.left - 0.5 ||
            box.right > chart.right + 0.5).map(([words]) => words); }"""
    )
    assert "1,000" in page.evaluate("() => document.querySelector('.ar-chart svg').textContent") and outside == []


def test_the_size_chart_has_ticks_at_round_numbers_and_names_the_step_in_view(browser: Any, tmp_path: Path) -> None:
    """The page's size chart marks its bytes and its steps at round numbers (as the notebook's chart does), where it
    named only its largest bytes and its first and last step, and its line of the view in view says which step that
    view decides, and follows the reader to another."""
    run = samples.load("flaky-build-resumed")
    page, _, _ = open_page(browser, saved(run, tmp_path, "ticks"), "#step=10")
    page.click("button[data-tab=size]")
    page.wait_for_selector(".ar-chart svg text.ar-now")
    texts = "() => [...document.querySelectorAll('.ar-chart svg text')].map(t => t.textContent)"
    said = page.evaluate(texts)
    most = max(Views(run).sizes().bytes_no_window)
    bytes_ticks = [int(text.replace(",", "")) for text in said if text.replace(",", "").isdigit() and "," in text]
    assert bytes_ticks == [5_000, 10_000, 15_000] and most < 20_000, (said, most)
    assert said[: said.index("15,000") + 1] == ["0", "5,000", "10,000", "15,000"]
    assert said[said.index("bytes") + 1 : said.index("step")] == ["0", "2", "4", "6", "8", "10"]
    assert said[-1] == "step 10"
    page.click("button[data-tab=conversation]")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    page.click("button[data-tab=size]")
    page.wait_for_function("() => document.querySelector('.ar-chart svg text.ar-now').textContent === 'step 8'")


def test_the_as_sent_box_stays_beside_its_words_in_a_narrow_window(browser: Any, tmp_path: Path) -> None:
    """In a window of 400 pixels the "as sent" box of an imported run's page is on the line where its words begin,
    which wrap beside it, where the box was left alone on a line above them; clicking the words still toggles it."""
    run = imports.load(samples.imports_folder() / "stock-lookup.calls.jsonl")
    page = browser.new_page(viewport={"width": 400, "height": 900})
    page.goto(saved(run, tmp_path, "narrow-mode").as_uri())
    settled(page)
    box, words = page.evaluate(
        """() => {
            const box = document.getElementById("ar-as-sent");
            const label = document.querySelector(`label[for=ar-as-sent], label:has(#ar-as-sent)`);
            const text = [...label.childNodes].find(node => node.nodeType === Node.TEXT_NODE && node.data.trim());
            const range = document.createRange();
            range.setStart(text, text.data.search(/\\S/));
            range.setEnd(text, text.data.search(/\\S/) + 1);
            const first = range.getClientRects()[0], square = box.getBoundingClientRect();
            return [[square.top, square.bottom], [first.top, first.bottom]];
        }"""
    )
    assert words[0] < box[1] and box[0] < words[1], (box, words)  # the box and the first word share a line
    page.click("text=as sent (uncheck")
    assert not page.is_checked("#ar-as-sent")


def test_a_count_of_one_is_said_in_the_singular(browser: Any, tmp_path: Path) -> None:
    """The page says '1 message' of the view deciding step 0 (the opening alone), where it said '1 messages'."""
    run = samples.load("flaky-build-resumed")
    page, _, _ = open_page(browser, saved(run, tmp_path, "flaky"), "#step=0")
    header = page.inner_text(".ar-view > .ar-header")
    assert Views(run).at(0).message_count == 1
    assert "1 message\n" in header + "\n" or "1 message " in header, header
    assert "1 messages" not in header


CHART_LEGEND = """() => [...document.querySelectorAll('[data-panel=size] .ar-chart > div:first-child > span')]
    .map(mark => [mark.className, mark.textContent])"""
"""What the page's size chart's legend shows: each mark's class (its colour) and its words."""


def explorers_legend(run: Run, options: Any = None) -> list[list[str]]:
    """What ``RunExplorer``'s size chart's legend shows for ``run`` under ``options``, in ``CHART_LEGEND``'s shape."""
    from agentrender.notebook import RunExplorer

    explorer = RunExplorer(run, options)
    explorer.tabs.selected_index = 3
    legend = explorer.chart.value.split('<div class="ar-chart ', 1)[0]
    return [[swatch, unescape(words)] for swatch, words in re.findall(r'<span class="([^"]+)">([^<]*)</span>', legend)]


def size_tabs(browser: Any, folder: Path) -> Iterator[tuple[str, Run, Any, Any]]:
    """The page of the sample, of a long run and of a compacted run (one compaction with a trigger, one without), each
    on its size tab in each of its modes: its name, its run, the options of the mode (``None``: as saved), the page."""
    compacted = compacted_run(folder, 8, [compaction(3), compaction(6, None)])
    contract = compacted.options(recent_results=render.RECENT_RESULTS, result_bytes=render.RESULT_BYTES)
    for name, run, what_if in (
        ("sample", samples.load("flaky-build-resumed"), None),
        ("long", runs.long_run(60), None),
        ("compacted", compacted, contract),
    ):
        page, _, _ = open_page(browser, saved(run, folder, name))
        for options in (None, what_if) if what_if else (None,):
            if options is not None:
                page.click("input[type=checkbox]")  # the same history under the contract's options
                settled(page)
            page.click("button[data-tab=size]")
            page.wait_for_selector("[data-panel=size] svg")
            yield name, run, options, page
            page.click("button[data-tab=conversation]")
        page.close()


def test_the_size_charts_legend_says_what_the_explorers_says(browser: Any, tmp_path: Path) -> None:
    """The page's size chart shows the legend the explorer's shows for the same run and options, word for word and
    colour for colour: with breaks of the cache prefix or none, a compaction restarted from or rendered across."""
    for name, run, options, page in size_tabs(browser, tmp_path):
        expected = explorers_legend(run, options)
        assert len(expected) >= 3, expected
        assert (name, options, page.evaluate(CHART_LEGEND)) == (name, options, expected)


MARKED_STEPS = """(count) => {
    const axis = document.querySelector('[data-panel=size] line.ar-axis').getBoundingClientRect();
    return [...document.querySelectorAll('[data-panel=size] .ar-break')].map(mark => {
        const box = mark.getBoundingClientRect();
        return Math.round((box.left + box.width / 2 - axis.left) / axis.width * (count - 1));
    });
}"""
"""The views the page's size chart marks as a break of the cache prefix, by their position on its axis (of ``count``
views)."""


def test_a_long_runs_size_chart_marks_the_breaks_the_explorers_marks(
    browser: Any, tmp_path: Path, scattered: list[tuple[list[Any], str]]
) -> None:
    """A run whose cache prefix breaks over 2,000 times gets on its page's size chart the marks of a break the
    explorer's chart draws, evenly over the whole run (``SizeSeries.marked_breaks``), where the page marked the first
    2,000 breaks and none after them."""
    from agentrender.notebook import RunExplorer
    from agentrender.views import CHART_MARKS

    run = runs.long_run(2400)
    series = Views(run).sizes()
    assert len(series.breaks) > CHART_MARKS
    marked = [series.at[i] for i in series.marked_breaks]
    assert marked[-1] > series.at[series.breaks[CHART_MARKS - 1]], "the marks reach past the first 2,000 breaks"
    explorer = RunExplorer(run)
    explorer.tabs.selected_index = 3
    assert [at for at, marker in scattered if marker == "v"] == [marked]
    page, _, _ = open_page(browser, saved(run, tmp_path, "long"))
    page.click("button[data-tab=size]")
    page.wait_for_selector("[data-panel=size] svg")
    assert [series.at[i] for i in page.evaluate(MARKED_STEPS, len(series))] == marked


CHART_TOTALS = """() => [...document.querySelectorAll('[data-panel=size] .ar-header > span')]
    .map(fact => [...fact.childNodes].map(part => [part.textContent, part.nodeName === 'B']))"""
"""What the page's size tab's totals show: each fact as its parts, each its words and whether it is bold."""


def joined(parts: list[list[Any]]) -> list[list[Any]]:
    """``parts`` (each ``[words, bold]``) with the empty ones dropped and neighbours alike in boldness joined."""
    said: list[list[Any]] = []
    for words, bold in parts:
        if said and said[-1][1] == bold:
            said[-1][0] += words
        elif words:
            said.append([words, bold])
    return said


def explorers_totals(run: Run, options: Any = None) -> list[list[list[Any]]]:
    """What ``RunExplorer``'s size tab's totals show for ``run`` under ``options``, in ``CHART_TOTALS``'s shape."""
    from agentrender.notebook import RunExplorer

    explorer = RunExplorer(run, options)
    explorer.tabs.selected_index = 3
    totals = explorer.size_tab.children[1].value
    return [
        [[unescape(words), n % 2 == 1] for n, words in enumerate(re.split(r"</?b>", fact))]
        for fact in re.findall(r"<span>(.*?)</span>", totals)
    ]


def test_the_size_tabs_totals_say_what_the_explorers_say(browser: Any, tmp_path: Path) -> None:
    """The page's size tab shows under its chart the totals the explorer's shows for the same run and options, word
    for word and bold where it is bold: the views' mode, the views, the last view, the breaks, each compaction (one
    with no trigger named ``compaction``) and what was re-sent."""
    for name, run, options, page in size_tabs(browser, tmp_path):
        expected = [joined(fact) for fact in explorers_totals(run, options)]
        assert len(expected) >= 4, expected
        shown = [joined(fact) for fact in page.evaluate(CHART_TOTALS)]
        assert (name, options, shown) == (name, options, expected)


def test_a_sessions_run_links_and_picker_are_readable_in_light_and_dark(browser: Any, tmp_path: Path) -> None:
    """The links between a session's runs (after the turn that started a sub-agent, and on the sub-agent's run), the
    run picker, and what the page says of an address past a run stand out from their background by WCAG's AA ratio
    in either colour scheme."""
    session, agent = runs = imports.load_runs(SESSION)
    path = tmp_path / "session.html"
    html.save(session, path, beside=runs)
    for scheme in ("light", "dark"):
        page, _, _ = open_page(browser, path, "#step=3", color_scheme=scheme)
        assert page.locator(".ar-run-link").count() == 1
        assert (scheme, "session", page.evaluate(LOW_CONTRAST)) == (scheme, "session", [])
        page.click(".ar-view > .ar-run-link button")
        page.wait_for_selector('#ar-page[data-run="1"][data-pending="0"]', state="attached")
        assert page.locator("#ar-page > .ar-run-link").count() == 1
        assert (scheme, agent.run_id, page.evaluate(LOW_CONTRAST)) == (scheme, agent.run_id, [])
        page.evaluate("() => { location.hash = '#run=1&step=99'; }")
        page.wait_for_selector(".ar-address-note")
        assert (scheme, "past", page.evaluate(LOW_CONTRAST)) == (scheme, "past", [])
        page.close()


EVAL_LOG = REAL / "inspect" / "METR-inspect-action" / "small.eval"
"""A real Inspect log of six samples (one task, six epochs), each scored."""

RUN_LIST = """() => [...document.querySelectorAll('.ar-run-list tbody tr')].map(tr =>
    [...tr.children].map(td => td.innerText))"""
"""The page's list of its runs: each row's cells, as shown."""


@pytest.mark.skipif(not EVAL_LOG.is_file(), reason="the real fixtures are not in this checkout")
@pytest.mark.parametrize("width", [1200, 420])
def test_a_page_of_every_sample_of_an_eval_log_opens_each_from_its_list_by_the_keyboard(
    browser: Any, tmp_path: Path, width: int
) -> None:
    """``agentrender html`` of a real Inspect log of six samples writes one page of them all: its list of runs says
    each sample's number, id, sample id and epoch, steps, how it ended and its score, in ``agentrender runs``' words;
    from the keyboard (Tab to a row, Enter) each row shows its sample's last view, the row marked as the one shown and
    the address ``#run=K``, and Back returns to the run before; an address naming sample K at a step opens it there,
    in a window 420 px wide too. Before, the page held sample 0 alone."""
    runs = imports.load_runs(EVAL_LOG)
    path = tmp_path / "eval.html"
    code, _, _ = run_cli("html", str(EVAL_LOG), "-o", str(path))
    assert code == 0 and len(runs) == 6
    page, _, _ = open_page(browser, path)
    page.set_viewport_size({"width": width, "height": 1000})
    page.focus(".ar-run-list > summary")
    page.keyboard.press("Enter")  # the list opens, and is laid out
    page.wait_for_selector(".ar-run-list tbody tr")
    expected = [
        [
            str(number),
            run.run_id,
            source_said(run),
            str(len(run.steps)),
            end_said(run.end, run.header)[0],
            scores_said(run),
        ]
        for number, run in enumerate(runs)
    ]
    assert page.evaluate(RUN_LIST) == expected
    assert expected[3][2] == "inspect-ai, sample id default, epoch 4" and expected[3][5] == "score_metr_task 1"
    assert page.evaluate("document.documentElement.scrollWidth") <= width  # the list scrolls within itself
    page.screenshot(path=str(_artifacts() / f"page-eval-runs-{width}.png"))
    for number, run in enumerate(runs):
        if number:
            page.focus(".ar-run-list > summary")
            page.keyboard.press("Enter")
        for _ in range(number + 1):
            page.keyboard.press("Tab")  # the rows take the focus, one after the other
        assert page.evaluate("document.activeElement.dataset.run") == str(number)
        page.keyboard.press("Enter")
        assert shown(page, number) == (
            f"#run={number}&step={len(run.steps)}" if number else "",
            "conversation",
            str(len(run.steps)),
        )
        assert page.inner_text("#ar-page h1") == f"agentrender · {run.run_id}"
        assert page.evaluate(TURNS) == expected_turns(Views(run), None)
        assert page.get_attribute(".ar-run-list tr[aria-current=true]", "data-run") == str(number)
        assert page.evaluate("document.activeElement.tagName") == "SUMMARY"
    page.go_back()
    assert shown(page, 4)[0] == f"#run=4&step={len(runs[4].steps)}"
    page.close()
    page, _, _ = open_page(browser, path, "#run=3&step=5")
    page.set_viewport_size({"width": width, "height": 1000})
    assert shown(page, 3) == ("#run=3&step=5", "conversation", "5")
    assert page.evaluate(TURNS) == expected_turns(Views(runs[3]), 5)
    assert page.input_value("select[aria-label=run]") == "3"
    page.screenshot(path=str(_artifacts() / f"page-eval-sample-3-{width}.png"))


@pytest.mark.skipif(not EVAL_LOG.is_file(), reason="the real fixtures are not in this checkout")
def test_the_list_of_an_eval_logs_samples_is_readable_in_light_and_dark(browser: Any, tmp_path: Path) -> None:
    """The list of a page's runs, open, its row of the run shown marked, stands out from its background by WCAG's AA
    ratio in either colour scheme."""
    runs = imports.load_runs(EVAL_LOG)
    path = tmp_path / "eval.html"
    html.save(runs[0], path, beside=runs, every=True)
    for scheme in ("light", "dark"):
        page, _, _ = open_page(browser, path, "#run=2", color_scheme=scheme)
        page.click(".ar-run-list > summary")
        page.wait_for_selector(".ar-run-list tr[aria-current=true][data-run='2']")
        assert (scheme, page.evaluate(LOW_CONTRAST)) == (scheme, [])
        page.close()
