"""agentrender.html: one self-contained page of a run, its payload, its size, its policy, and the command."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from agentrender import html, imports, load_run, render, samples
from agentrender.cli import main
from agentrender.frame import STEP_LEAD_COLUMNS
from agentrender.views import Views
from tests._support import real
from tests._support.cli import run_cli
from tests._support.conversations import prefilled_log
from tests._support.runs import HOSTILE, hostile_run, retried_run_file

FIXED_BYTES = 250_000
"""The most a page may add to the run it carries, whatever its size (the script, the style, the layout)."""


def page_parts(page: str) -> tuple[str, str, str, str]:
    """The page's policy, its style, its script and its payload, as the page holds them."""
    policy = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', page)
    style = re.search(r"<style>(.*?)</style>", page, re.S)
    script = re.search(r"<script>(.*?)</script>", page, re.S)
    payload = re.search(r'<script type="application/json" id="ar-payload">(.*?)</script>', page, re.S)
    assert policy and style and script and payload
    return policy.group(1), style.group(1), script.group(1), payload.group(1)


def sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"


def test_the_policy_allows_only_the_pages_own_script_and_style() -> None:
    """The Content-Security-Policy names no origin, and its hashes are those of the inlined script and style."""
    policy, style, script, _ = page_parts(html.page(samples.load("fix-failing-test")))
    rules = dict(rule.strip().split(" ", 1) for rule in policy.split(";"))
    assert rules["default-src"] == "'none'"
    assert rules["script-src"] == sha256(script) and rules["style-src"] == sha256(style)
    assert "http" not in policy and "*" not in policy and "unsafe" not in policy


def test_the_page_holds_no_reference_to_anything_outside_it() -> None:
    """No src, href, @import or url() anywhere in the page: it opens with no network."""
    page = html.page(samples.load("flaky-build-resumed"))
    assert re.search(r"\b(src|href)\s*=|@import|url\(", page) is None


CHUNK = re.compile(r'<script type="application/(gzip\+base64|json)" id="ar-t(\d+)">(.*?)</script>', re.S)
PART = re.compile(r'<script type="application/json" id="(ar-[mr][-\d]+)">(.*?)</script>', re.S)


def page_texts(page: str) -> list[object]:
    """The texts a page carries, read back from its chunks (in the order of their numbers), plain or compressed."""
    chunks = sorted((int(number), kind, chunk) for kind, number, chunk in CHUNK.findall(page))
    assert [number for number, _, _ in chunks] == list(range(len(chunks)))
    return [
        text
        for _, kind, chunk in chunks
        for text in json.loads(chunk if kind == "json" else gzip.decompress(base64.b64decode(chunk)))
    ]


def joined(parts: list[dict[str, Any]], name: str) -> list[Any]:
    """One series of a mode's (or the table's) parts, whole."""
    return [value for part in parts for value in part[name]]


def characters(text: object) -> int:
    """How many characters of the run's a text of the table stands for (an unsafe one is one code point)."""
    pieces = [text] if isinstance(text, str) else text
    assert isinstance(pieces, list)
    return sum(len(piece) if isinstance(piece, str) else 1 for piece in pieces)


def test_run_text_cannot_end_the_elements_that_carry_it() -> None:
    """Hostile run text holding ``</script>`` and ``<!--`` stays inside the data elements, which read back whole."""
    page = html.page(hostile_run(HOSTILE + "<!--<script>"))
    elements = re.findall(r'<script type="application/[^"]*"[^>]*>(.*?)</script>', page, re.S)
    assert page.count("</script>") == len(elements) + 1  # and the page's own script
    assert not any("<" in element for element in elements)
    whole = ["".join(piece for piece in text if isinstance(piece, str)) for text in page_texts(page)]  # type: ignore[union-attr]
    assert any("<script>window.__pwned = 1</script>" in text and "<!--<script>" in text for text in whole)


def test_each_text_is_stored_once(import_bench: Callable[[str], ModuleType], tmp_path: Path) -> None:
    """A result shown in full in six views and as its summary in the rest is one text of the page, and so is every
    longer text; a short one (a tool's name, a label) is stored at most once in each chunk the page reads at once."""
    path = tmp_path / "run.jsonl"
    import_bench("bench_cli").generate(path, 600)
    run = load_run(path)
    texts = page_texts(html.page(run))
    assert texts == html.payload(run)["texts"] and len(texts) > 2 * html.TEXT_CHUNK
    long = [json.dumps(text) for text in texts if characters(text) > html.SHORT_TEXT]
    assert len(long) == len(set(long))
    for start in range(0, len(texts), html.TEXT_CHUNK):
        chunk = [json.dumps(text) for text in texts[start : start + html.TEXT_CHUNK]]
        assert len(chunk) == len(set(chunk))
    assert texts.count(run.steps[2].observation.content) == 1  # type: ignore[union-attr]


def test_the_last_view_comes_before_the_script(import_bench: Callable[[str], ModuleType], tmp_path: Path) -> None:
    """The page's script comes right after what the last view shows (its parts, its rows of the steps table, the
    texts of its blocks and of the labels), which is a small part of a long run's page: the browser shows that view
    while it still reads the rest."""
    path = tmp_path / "run.jsonl"
    import_bench("bench_cli").generate(path, 2 * html.PART_STEPS + 1)
    page = html.page(load_run(path))
    script = page.index("<script>")
    before = {name for name, _ in PART.findall(page[:script])}
    chunks = {int(number) for kind, number, _ in CHUNK.findall(page[:script]) if kind == "json"}
    facts = json.loads(page_parts(page)[3])
    assert before == {"ar-m0-2", "ar-m0-1", "ar-r2", "ar-r1"}
    parts = {name: json.loads(part) for name, part in PART.findall(page)}
    steps = joined([parts[f"ar-m0-{number}"] for number in range(3)], "steps")[-facts["shown_steps"] :]
    shown = [block for step in steps if len(step) == 5 for blocks in step[1:4] for block in blocks or ()]
    numbers = {number for block in shown for number in block[1:5] + block[6:]}
    numbers |= {facts["title"], *(number for pair in facts["kinds"] for number in pair)}
    numbers |= {number for values in facts["filters"].values() for number in values}
    assert {number // html.TEXT_CHUNK for number in numbers} <= chunks
    assert len(chunks) < len(CHUNK.findall(page)) / 2


def test_the_filters_hold_each_value_once(import_bench: Callable[[str], ModuleType], tmp_path: Path) -> None:
    """Each filter of the steps table lists each of its column's values once, however many chunks of texts the run
    spans, and each row holds the number of its own step's value."""
    path = tmp_path / "run.jsonl"
    import_bench("bench_cli").generate(path, 300)
    run = load_run(path)
    facts = html.payload(run)
    texts = facts["texts"]
    assert len(texts) > 2 * html.TEXT_CHUNK
    tools = [texts[number] for number in facts["filters"]["tool"]]
    assert tools == sorted({step.decision.tool or "" if step.decision else "" for step in run.steps})
    assert [tools[code] for code in joined(facts["rows"], "tool")] == [
        step.decision.tool or "" if step.decision else "" for step in run.steps
    ]


def test_the_steps_tables_columns_are_the_ones_every_table_of_steps_leads_with() -> None:
    """The page's steps table has the columns ``agentrender.frame.STEP_LEAD_COLUMNS`` names, in its order (the CLI's
    and the explorer's), each with the words its header says."""
    columns = html.payload(samples.load("fix-failing-test"))["columns"]
    assert [name for name, _ in columns] == list(STEP_LEAD_COLUMNS)
    assert [header for _, header in columns] == [
        "step",
        "kind",
        "tool",
        "status",
        "the model saw",
        "content bytes",
        "summary bytes",
        "reason",
    ]


def test_the_steps_table_says_a_skipped_and_an_ended_step_as_agentrender_steps_does(tmp_path: Path) -> None:
    """The page's steps table holds the words ``agentrender steps`` says of what the model saw of a step with no
    decision (``SKIPPED_SAW``), of one the last view leaves out and of the one the conversation ended on, and the mark
    of a value a step has none of (``NO_VALUE``: a skipped step's reason), where its cells were empty; its filters
    offer the missing value as the empty value, which the page names "(none)", as ``steps --kind none`` takes it."""
    from agentrender.views import ENDED_SAW, LEFT_OUT_TEXT, NO_VALUE, SKIPPED_SAW

    code, out, _ = run_cli("steps", "flaky-build-resumed", "--width", "200", "--color", "never")
    [row] = [line for line in out.splitlines() if line.lstrip().startswith("2 ")]
    assert code == 0 and row.split() == ["2", NO_VALUE, NO_VALUE, NO_VALUE, SKIPPED_SAW, NO_VALUE, NO_VALUE, NO_VALUE]
    facts = html.payload(samples.load("flaky-build-resumed"))
    texts = facts["texts"]
    assert [texts[number] for number in facts["saw_said"]] == [SKIPPED_SAW, LEFT_OUT_TEXT, ENDED_SAW]
    assert texts[facts["no_value"]] == NO_VALUE
    saw, rows = joined(facts["modes"][0]["parts"], "saw"), facts["rows"]
    assert saw[2] == 0 and min(saw[:2] + saw[3:]) > 0  # the skipped step, said SKIPPED_SAW; the others by their kind
    assert texts[joined(rows, "reason")[2]] == NO_VALUE
    for column in ("kind", "tool", "status"):
        assert texts[facts["filters"][column][joined(rows, column)[2]]] == ""
    ended = html.payload(imports.load(prefilled_log(tmp_path / "log.jsonl", replied=False)))
    assert joined(ended["modes"][0]["parts"], "saw")[-1] == -2


def test_unsafe_characters_travel_as_their_code_points() -> None:
    """A bidi override and a tag character reach the payload as numbers the page shows as markers, never raw."""
    facts = html.payload(hostile_run("a\u202eb\U000e0041c"))
    assert ["a", 0x202E, "b", 0xE0041, "c"] in facts["texts"]
    assert "\u202e" not in html.page(hostile_run("a\u202eb"))


def test_each_view_is_what_views_say() -> None:
    """For every stop, the payload's numbers give the view's rendered steps and its window as ``Views.at`` does."""
    run = samples.load("flaky-build-resumed")
    views = Views(run, run.options(recent_results=2))
    parts = html.payload(run, views.options)["modes"][0]["parts"]
    assert joined(parts, "at") == list(views.stops)
    steps, rendered_counts, full_from = (joined(parts, name) for name in ("steps", "rendered", "full_from"))
    numbers = [number for number, step in enumerate(steps) if len(step) == 5]  # the rendered steps
    assert [step[0] for step in steps] == [sum(n < number for n in numbers) for number in range(len(steps))]
    for stop, at in enumerate(views.stops):
        view = views.at(at)
        facts = view.step_facts()
        rendered = [number for number, fact in enumerate(facts) if fact.rendered]
        assert numbers[: rendered_counts[stop]] == rendered
        full = [fact.full for fact in facts if fact.rendered]
        first_full = full_from[stop]
        assert full == [position >= first_full for position in range(len(full))]


def test_an_imported_run_carries_its_view_as_sent_and_the_what_if() -> None:
    """An imported sample's page holds two modes: as sent, and under the contract's window and cap given at export."""
    from agentrender import imports

    run = imports.load(samples.imports_folder() / "stock-lookup.calls.jsonl")
    facts = html.payload(run, run.options(recent_results=1, result_bytes=100))
    sent, what_if = facts["modes"]
    texts = facts["texts"]
    assert texts[sent["describe"]] == Views(run).describe_mode() == "as sent"
    assert (what_if["recent_results"], what_if["result_bytes"]) == (1, 100)
    assert texts[what_if["describe"]].startswith("under the contract (window 1, cap 100 bytes)")


def test_an_imported_runs_page_says_its_view_as_sent_has_no_window_as_null() -> None:
    """The page's data gives the as-sent view's window and cap as null (no window, no cap), never sys.maxsize, which
    the page's JSON.parse would round to another number; the view under the contract keeps its numbers."""
    run = imports.load(samples.imports_folder() / "stock-lookup.calls.jsonl")
    page = html.page(run)
    assert str(sys.maxsize) not in page
    sent, what_if = html.payload(run)["modes"]
    assert (sent["recent_results"], sent["result_bytes"]) == (None, None)
    assert (what_if["recent_results"], what_if["result_bytes"]) == (render.RECENT_RESULTS, render.RESULT_BYTES)


def test_a_reply_whose_further_calls_the_agent_ran_says_so() -> None:
    """A real Claude Code session (``tests/fixtures/real``) ran both calls of its third and fourth replies: the
    page's explanation of each says so, as ``decide`` does; its first replies, of one call, say nothing of it."""
    run = imports.load(real.REAL / "claude-code" / "marot-spotter" / "tool_heavy.jsonl")
    facts = html.payload(run)
    texts = facts["texts"]
    said = [[texts[number] for number in reply[4]] for reply in facts["replies"]]
    ran = "this run's agent ran them all the same: the turn it sent next holds their results."
    assert [ran in why for why in said] == [False, False, True, True]


@pytest.mark.slow
def test_the_page_is_at_most_a_third_larger_than_the_run_and_a_fixed_part(
    import_bench: Callable[[str], ModuleType], tmp_path: Path
) -> None:
    """The page of a generated 3,000-step run (results of a few KiB, captured replies) is at most 1.3 times its file
    plus 250 KB, and the page of a run with one step is under the fixed part alone."""
    path = tmp_path / "run.jsonl"
    import_bench("bench_cli").generate(path, 3_000)
    size = len(html.page(load_run(path)).encode("utf-8"))
    assert size <= 1.3 * path.stat().st_size + FIXED_BYTES, (size, path.stat().st_size)
    small = tmp_path / "small.jsonl"
    import_bench("bench_cli").generate(small, 1)
    assert len(html.page(load_run(small)).encode("utf-8")) < FIXED_BYTES


def test_the_command_writes_the_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``agentrender html RUN -o PATH`` writes the page the library makes with the window given."""
    out = tmp_path / "run.html"
    assert main(["html", "fix-failing-test", "-o", str(out), "--recent-results", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "path": str(out),
        "run_id": "fix-failing-test",
        "steps": 8,
        "linked_runs": [],
        "runs": [{"number": 0, "run_id": "fix-failing-test", "steps": 8}],
        "left_out": [],
    }
    run = samples.load("fix-failing-test")
    assert out.read_text("utf-8") == html.page(run, run.options(recent_results=2))


def test_the_command_writes_a_page_that_opens_at_the_step_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``agentrender html RUN --at K`` writes the page ``html.page(run, at=K)`` makes, which opens at step K (as
    ``show --at K``); a step past the run is refused as show refuses it, and no file is written."""
    out = tmp_path / "run.html"
    assert main(["html", "fix-failing-test", "-o", str(out), "--at", "3"]) == 0
    run = samples.load("fix-failing-test")
    assert out.read_text("utf-8") == html.page(run, at=3) != html.page(run)
    capsys.readouterr()
    missing = tmp_path / "past.html"
    assert main(["html", "fix-failing-test", "-o", str(missing), "--at", "99"]) == 2
    err = capsys.readouterr().err
    assert main(["show", "fix-failing-test", "--at", "99"]) == 2
    assert err == capsys.readouterr().err and "--at 99: step 99 is past the run" in err
    assert not missing.exists()


def test_the_command_refuses_to_overwrite_a_file_without_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``agentrender html -o PATH`` leaves an existing PATH as it is unless --force is given, and refuses a folder
    as a folder, as ``import -o`` does: one line naming the file, exit 2."""
    out = tmp_path / "run.html"
    out.write_text("precious\n", encoding="utf-8")
    assert main(["html", "fix-failing-test", "-o", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == f"agentrender: {out}: already exists; --force overwrites it\n"
    assert out.read_text("utf-8") == "precious\n"
    assert main(["html", "fix-failing-test", "-o", str(out), "--force"]) == 0
    assert out.read_text("utf-8") == html.page(samples.load("fix-failing-test"))
    for argv in ([], ["--force"]):
        assert main(["html", "fix-failing-test", "-o", str(tmp_path), *argv]) == 2
        assert capsys.readouterr().err == f"agentrender: {tmp_path}: a folder; -o names the HTML file to write\n"


def test_an_interrupted_page_leaves_the_file_it_was_to_replace_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``html -o PATH --force`` interrupted while it makes the page (Ctrl-C on a long run) leaves PATH as it was and
    no other file, where PATH was already emptied."""
    out = tmp_path / "run.html"
    out.write_text("the page shared yesterday\n", encoding="utf-8")

    def interrupted(*args: object, **kwargs: object) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr("agentrender.html._page.page", interrupted)
    assert main(["html", "fix-failing-test", "-o", str(out), "--force"]) == 130
    assert out.read_text("utf-8") == "the page shared yesterday\n" and list(tmp_path.iterdir()) == [out]


def test_the_command_names_what_a_file_holds_for_a_wrong_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--run`` that the file does not hold fails with exit 2, listing the runs it does hold."""
    assert main(["html", "fix-failing-test", "--run", "7", "-o", str(tmp_path / "x.html")]) == 2
    error = capsys.readouterr().err
    assert "--run 7: no run of that id" in error and "0: fix-failing-test" in error
    assert not (tmp_path / "x.html").exists()


REAL = real.REAL
MANIFEST = real.histories()


@pytest.mark.slow
@pytest.mark.parametrize("entry", MANIFEST, ids=[entry["path"] for entry in MANIFEST])
def test_every_real_history_makes_a_page_within_the_size_bound(entry: dict[str, object]) -> None:
    """Each run of a real public history makes a page whose views are the stops ``Views`` gives (as sent and under
    the contract), at most 1.3 times the history's file plus the fixed part."""
    path = REAL / str(entry["path"])
    runs = imports.load_runs(path)
    pages = 0
    for run in runs:
        page = html.page(run)
        pages += len(page.encode("utf-8"))
        facts = html.payload(run)
        assert [joined(mode["parts"], "at") for mode in facts["modes"]] == [list(Views(run).stops)] * len(
            facts["modes"]
        )
    assert pages <= 1.3 * path.stat().st_size + FIXED_BYTES * len(runs)


ARITH = Path(__file__).parent / "fixtures" / "inspect" / "arith.eval"
"""An Inspect log of four samples, each scored by two scorers."""


def test_the_command_writes_every_run_of_a_file_of_several_on_one_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """For a file of several runs (an Inspect log of four samples), ``agentrender html`` writes one page of every run,
    numbered as the file's runs are (``html.page(runs[0], beside=runs, every=True)``), says so, and says no "pick
    another"; ``--run`` picks one by id or by number, names it on stderr, and writes its page alone. Before, the page
    held the first sample alone."""
    runs = imports.load_runs(ARITH)
    out = tmp_path / "run.html"
    assert main(["html", str(ARITH), "-o", str(out), "--width", "200"]) == 0
    said = capsys.readouterr()
    assert said.err == "" and f"4 runs · {sum(len(run.steps) for run in runs)} steps" in said.out
    assert out.read_text("utf-8") == html.page(runs[0], beside=runs, every=True) != html.page(runs[0])
    assert main(["html", str(ARITH), "--run", "2", "-o", str(out), "--width", "200", "--force"]) == 0
    assert f"run 2 of runs 0 to 3: {runs[2].run_id}" in capsys.readouterr().err
    assert out.read_text("utf-8") == html.page(runs[2])
    assert main(["html", str(ARITH), "--run", runs[3].run_id, "-o", str(out), "--force"]) == 0
    assert out.read_text("utf-8") == html.page(runs[3])


def test_the_command_says_which_runs_past_max_runs_it_left_out_and_how_to_write_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--max-runs N`` puts a file's first N runs on the page; stderr says how many runs the file holds, which the
    page left out and the options that write them, the terminal counts them, and ``--json`` lists the runs written
    and those left out, by number and id. Nothing is left out silently."""
    runs = imports.load_runs(ARITH)
    out = tmp_path / "run.html"
    assert main(["html", str(ARITH), "-o", str(out), "--max-runs", "2", "--width", "300"]) == 0
    said = capsys.readouterr()
    assert said.err == (
        f"agentrender: {ARITH}: holds 4 runs: the page holds runs 0 to 1 (--max-runs 2) and leaves out runs 2 to 3; "
        "write them all with --max-runs 4, or one with --run N (agentrender runs lists them)\n"
    )
    assert f"2 runs · {len(runs[0].steps) + len(runs[1].steps)} steps · 2 runs left out" in said.out
    assert out.read_text("utf-8") == html.page(runs[0], beside=runs[:2], every=True)
    code, printed, err = run_cli("html", str(ARITH), "-o", str(out), "--max-runs", "3", "--force", "--json")
    assert code == 0 and "the page holds runs 0 to 2 (--max-runs 3) and leaves out run 3;" in err
    facts = json.loads(printed)
    assert facts["runs"] == [{"number": n, "run_id": runs[n].run_id, "steps": len(runs[n].steps)} for n in range(3)]
    assert facts["left_out"] == [{"number": 3, "run_id": runs[3].run_id}]
    capsys.readouterr()
    with pytest.raises(SystemExit) as refused:
        main(["html", str(ARITH), "-o", str(out), "--max-runs", "0", "--force"])
    assert refused.value.code == 2 and "argument --max-runs: expected 1 or more, got 0" in capsys.readouterr().err


def test_the_html_help_names_the_default_bound_on_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """``html --help`` says the most runs a page holds unless told, the number the command uses (``MAX_RUNS``)."""
    with pytest.raises(SystemExit):
        main(["html", "--help"])
    assert f"its first N; stderr says which it left out (default: {html.MAX_RUNS})" in " ".join(
        capsys.readouterr().out.split()
    )


def test_a_page_of_every_sample_says_each_ones_sample_epoch_steps_end_and_score() -> None:
    """A page of every sample of an Inspect log lists each run in ``agentrender runs``' words (its id, where in its
    source it comes from: the sample's id and epoch, how it ended) with its steps and its score, each scorer by
    name; a run no source scored says none. Before, the page's runs said their id and role alone."""
    runs = imports.load_runs(ARITH)
    facts = html.payload(runs[0], beside=runs, every=True)
    assert len(facts["beside"]) == 3 and facts["run_steps"] == [len(run.steps) for run in runs]
    said = [[words(facts, number) for number in run] for run in facts["runs"]]
    source = runs[1].header["source"]
    assert said[1] == [
        runs[1].run_id,
        "",
        f"inspect-ai, sample id {source['sample_id']}, epoch {source['epoch']}",
        "completed",
        ", ".join(f"{name} {score['value']}" for name, score in source["scores"].items()),
    ]
    assert said[1][4].startswith("includes ")
    assert [
        words(each, number) for each in [html.payload(samples.load("fix-failing-test"))] for number in each["runs"][0]
    ][4] == ""


def test_a_run_whose_model_call_does_not_know_its_tries_says_so_beside_its_calls(tmp_path: Path) -> None:
    """The page's header and the notebook's HTML of a run one of whose calls is recorded with "tries_known": false say
    how many tries is not known, where they counted its calls alone."""
    run = load_run(retried_run_file(tmp_path / "unknown.jsonl", [], known=False))
    said = "8 (how many tries is not known)"
    assert said in page_texts(html.page(run))
    assert said in run._repr_html_()


def test_a_run_whose_model_call_was_retried_says_so_beside_its_calls(tmp_path: Path) -> None:
    """The page's header and the notebook's HTML of a run count its model calls with the tries the SDK made again
    and the time they took (a recorded call it retried twice), where they said the count alone."""
    run = load_run(retried_run_file(tmp_path / "retried.jsonl"))
    said = "8 (retried: 2 failed tries, 1.6 s)"
    assert said in page_texts(html.page(run))
    assert said in run._repr_html_()


SESSION = real.REAL / "claude-code" / "jessitron-claude-log" / "ff80b049-3eff-495f-b4f0-c4071d615994.jsonl"
"""A real Claude Code session whose step 2 started a sub-agent (the Agent tool), its transcript beside the session's."""


def words(facts: dict[str, Any], number: int) -> Any:
    """Text ``number`` of a payload, plain."""
    text = facts["texts"][number]
    return text if isinstance(text, str) else "".join(piece for piece in text if isinstance(piece, str))


def test_a_sessions_page_holds_the_sub_agent_a_step_started_linked_both_ways() -> None:
    """Written with the other runs of its file, a real session's page holds the sub-agent its step 2 started: the
    step names that run (by its number on the page) and its tool use, the sub-agent's facts name the step back, and
    the run picker says what each run is. Before, the page held the session alone and said nothing of its
    sub-agent."""
    runs = imports.load_runs(SESSION)
    session, agent = runs
    assert html.linked(session, runs) == [agent] and html.linked(agent, runs) == [session]
    facts = html.payload(session, beside=runs)
    use = agent.header["source"]["parent"]["tool_use_id"]
    assert [[words(facts, run_id), words(facts, role)] for run_id, role, *_ in facts["runs"]] == [
        [session.run_id, "started 1 sub-agent"],
        [agent.run_id, f"sub-agent, from step 2 of {session.run_id}"],
    ]
    assert [[step, run, words(facts, said)] for step, run, said in facts["started"]] == [
        [2, 1, f"started the sub-agent run {agent.run_id} (tool use {use})"]
    ]
    assert facts["parent"] is None
    (beside,) = facts["beside"]
    assert beside["ids"] == "ar-s1-" and beside["steps"] == len(agent.steps) and beside["started"] == []
    number, step, said = beside["parent"]
    assert (number, step) == (0, 2)
    assert words(facts, said) == f"a sub-agent of run {session.run_id}, started by its step 2 (tool use {use})"
    page = html.page(session, beside=runs)
    assert '<script type="application/json" id="ar-s1-payload">' in page
    assert page.index('id="ar-s1-payload"') < page.index('id="ar-s1-m0-0"') < page.index('id="ar-s1-replies"')
    assert page.index("<script>") < page.index('id="ar-s1-payload"')  # read once the first run is shown


def test_a_page_written_without_the_linked_runs_names_them_as_not_on_it() -> None:
    """A session's page written alone still says which run its step started, and that the run is not on the page
    (no number to open); so does a sub-agent's of the session; and runs no link joins (an eval log's samples) stay
    off each other's pages, which are as they were."""
    runs = imports.load_runs(SESSION)
    facts = html.payload(runs[0])
    assert [[step, run] for step, run, _ in facts["started"]] == [[2, None]]
    assert words(facts, facts["started"][0][2]).endswith(" (not on this page)")
    alone = html.payload(runs[1])
    assert alone["parent"][:2] == [None, 2] and words(alone, alone["parent"][2]).endswith(" (not on this page)")
    samples_of = imports.load_runs(Path(__file__).parent / "fixtures" / "inspect" / "arith.eval")
    assert html.linked(samples_of[1], samples_of) == []
    assert html.page(samples_of[1], beside=samples_of) == html.page(samples_of[1])


def test_the_command_writes_a_sessions_page_with_the_runs_linked_to_it(tmp_path: Path) -> None:
    """``agentrender html SESSION`` writes the page of the session with its sub-agent's run on it, as
    ``html.page(run, beside=runs)`` makes it, and ``--run`` of the sub-agent writes the sub-agent's with the session
    on it; ``--json`` names the runs linked."""
    runs = imports.load_runs(SESSION)
    out = tmp_path / "session.html"
    assert main(["html", str(SESSION), "-o", str(out), "--json"]) == 0
    assert out.read_text("utf-8") == html.page(runs[0], beside=runs)
    code, out_text, _ = run_cli("html", str(SESSION), "--run", "1", "-o", str(tmp_path / "agent.html"), "--json")
    assert code == 0 and json.loads(out_text)["linked_runs"] == [runs[0].run_id]
    assert (tmp_path / "agent.html").read_text("utf-8") == html.page(runs[1], beside=runs)


def test_each_reply_says_which_step_it_decided() -> None:
    """Each captured reply of a real Inspect log carries what it was to its step, as the decide tab heads it: the
    reply that decided step K, or an earlier reply of that step (a critique made beside the conversation), which did
    not; the tab finds the reply of the step in view by the same mark (its fields that differ are not 0). Before,
    the tab said only "for step K" of both."""
    run = imports.load_runs(CRITIQUE)[0]
    facts = html.payload(run)
    said = [(reply[0], words(facts, reply[8]), reply[6] != 0) for reply in facts["replies"]]
    assert said == [
        (0, "the reply that decided step 0", True),
        (1, "an earlier reply for step 1, not the one that decided it", False),
        (1, "the reply that decided step 1", True),
    ]


CRITIQUE = (
    real.REAL
    / "inspect"
    / "asapsav-teormineval-sample-review"
    / "2025-10-07T18-09-36+03-00_multi-problems-eval_gLLMPPTkQ7ZPeEezLNzAbe.eval"
)


def test_the_page_bench_measures_the_pages_size_against_its_run_file(
    import_bench: Callable[[str], ModuleType], capsys: pytest.CaptureFixture[str]
) -> None:
    """``bench/bench_page.py`` writes a generated run and its page, and prints the page's size over the run file's at
    each size it is given (its browser half is the slow tests' and the bench's own)."""
    figures = import_bench("bench_page").main(["--steps", "20", "40", "--no-browser"])
    out = capsys.readouterr().out
    assert set(figures) == {20, 40} and all(figure["page / run file"] > 0 for figure in figures.values())
    assert "20 steps: page / run file" in out and "40 steps: page / run file" in out
