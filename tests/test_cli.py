"""agentrender's command line: golden output on the samples, JSON checked against the views' facts, exit codes."""

from __future__ import annotations

import contextlib
import csv
import fcntl
import gzip
import io
import json
import os
import pty
import re
import signal
import struct
import subprocess
import sys
import termios
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import msgspec
import pytest

from agentrender import ContentBlock, Decision, ModelResponse, Observation, Step, render, samples, write_run
from agentrender.cli import build_parser, main
from agentrender.cli._check import FINDINGS
from agentrender.cli._inputs import REPLY_NEEDS
from agentrender.cli._tables import context_json, size_row
from agentrender.imports import load_runs
from agentrender.runfile import ModelCall, Run
from agentrender.views import (
    ENDED_SAW,
    LEFT_OUT_SAID,
    NO_VALUE,
    PREFILL_REASON,
    REPLY_REASON,
    SKIPPED_SAW,
    VIEW_TERMS,
    Views,
    explain_decide,
)
from tests._support import real
from tests._support.cli import run_cli
from tests._support.runs import retried_run_file

ROOT = Path(__file__).resolve().parents[1]
WIDTH = "100"


@pytest.fixture(autouse=True)
def _in_the_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run every command from the checkout, so sample paths print the same on every machine."""
    monkeypatch.chdir(ROOT)


def terminal(*argv: str) -> str:
    """The terminal output of a command that succeeds, at the golden width, without colour."""
    code, out, err = run_cli(*argv, "--width", WIDTH, "--color", "never")
    assert (code, err) == (0, ""), err
    return out


def as_json(*argv: str, code: int = 0) -> object:
    """The ``--json`` output of a command, parsed."""
    status, out, err = run_cli(*argv, "--json")
    assert (status, err) == (code, ""), err
    return json.loads(out)


def clean_run() -> Run:
    """A run with nothing for ``check`` to report: summaries, a matching reply, no orphan call."""
    reply = ModelResponse(
        content=(
            ContentBlock(type="text", text="Read it."),
            ContentBlock(type="tool_use", tool_use_id="toolu_1", name="read_file", input={"path": "a.py"}),
        ),
        stop_reason="tool_use",
    )
    step = Step(
        index=0,
        decision=render.decide(reply),
        observation=Observation(content="x = 1\n" * 10, summary="read a.py (10 lines)"),
    )
    return Run(
        header={"type": "run", "format": "agentrender.run/1", "run_id": "r-clean", "goal": "Read a.py."},
        steps=(step,),
        model_calls=(ModelCall(step=0, response=reply),),
    )


# ---------------------------------------------------------------------------- golden


GOLDEN_COMMANDS: dict[str, tuple[str, ...]] = {
    **{f"show_{name}": ("show", name) for name in samples.names()},
    "show_fix-failing-test_at_3": ("show", "fix-failing-test", "--at", "3"),
    "show_flaky-build-resumed_full": ("show", "flaky-build-resumed", "--full"),
    "show_out-of-steps_window_2_cap_40": (
        "show",
        "out-of-steps",
        "--recent-results",
        "2",
        "--result-bytes",
        "40",
        "--steps",
        "4",
    ),
    **{f"steps_{name}": ("steps", name) for name in samples.names()},
    "steps_malformed-replies_filtered": (
        "steps",
        "malformed-replies",
        "--status",
        "invalid_decision",
        "--tool",
        "write_file",
    ),
    "steps_flaky-build-resumed_csv": ("steps", "flaky-build-resumed", "--csv"),
    **{f"decide_{name}": ("decide", name) for name in samples.names()},
    "decide_malformed-replies_step_3": ("decide", "malformed-replies", "--step", "3"),
    **{f"context_{name}": ("context", name) for name in samples.names()},
    "keys_fix-failing-test": ("keys", "fix-failing-test"),
    "keys_fix-failing-test_max_output_tokens": ("keys", "fix-failing-test", "--max-output-tokens", "1024"),
    "samples": ("samples",),
}


@pytest.mark.parametrize("name", sorted(GOLDEN_COMMANDS))
def test_command_output_matches_its_golden_file(name: str, golden: Callable[[str, str], None]) -> None:
    """Each command's terminal output on the bundled samples is exactly its golden file at 100 columns."""
    golden(f"cli/{name}.txt", terminal(*GOLDEN_COMMANDS[name]))


def test_check_output_on_every_sample_matches_its_golden_file(golden: Callable[[str, str], None]) -> None:
    """check over all four samples lists each file's warnings and a total, and exits 0: they hold no error."""
    code, out, err = run_cli("check", *samples.names(), "--width", WIDTH, "--color", "never")
    assert (code, err) == (0, "")
    golden("cli/check_samples.txt", out)
    assert run_cli("check", "--strict", *samples.names())[0] == 1


def test_show_names_every_block_kind_the_view_holds() -> None:
    """show marks each block with the label its kind has in the widgets, for every kind in the view."""
    from agentrender.cli._term import TAGS

    for name in samples.names():
        view = Views(samples.load(name)).at(None)
        out = terminal("show", name)
        kinds = {
            block.kind
            for fact in view.steps
            if fact.rendered
            for m in (fact.assistant, fact.result)
            for block in m.blocks
        }  # type: ignore[union-attr]
        for kind in kinds:
            assert TAGS[kind] in out, (name, kind)
        for fact in view.skipped:
            assert f"step {fact.step.index}: no decision recorded, so it is skipped" in out


def test_show_folds_long_blocks_and_full_prints_them() -> None:
    """A result longer than ten lines is folded with its size stated; --full prints all of it."""
    run = samples.load("flaky-build-resumed")
    content = run.steps[1].observation.content  # type: ignore[union-attr]
    assert content.count("\n") > 20
    folded = terminal("show", "flaky-build-resumed", "--recent-results", "20")
    assert "not printed here (the model saw them); --full prints everything" in folded
    full = terminal("show", "flaky-build-resumed", "--recent-results", "20", "--full")
    assert "not printed here" not in full
    for line in content.splitlines()[-3:]:
        assert line.strip()[:60] in full


def test_show_full_prints_what_the_model_did_not_see() -> None:
    """Behind a summary, show states the hidden size, and --full prints the hidden content marked as hidden."""
    run = samples.load("flaky-build-resumed")
    hidden_line = run.steps[1].observation.content.splitlines()[-1].strip()  # type: ignore[union-attr]
    out = terminal("show", "flaky-build-resumed")
    assert "hidden from the model: the full result, 18,046 bytes (it saw the summary)" in out
    assert hidden_line[:50] not in out
    assert hidden_line[:50] in terminal("show", "flaky-build-resumed", "--full")


def test_show_steps_elides_earlier_steps_with_a_count() -> None:
    """--steps N prints the last N steps and counts the earlier ones and their messages."""
    out = terminal("show", "fix-failing-test", "--steps", "2")
    assert "6 earlier steps (12 messages) not printed here" in out
    assert "step 5 · run_check" not in out and "step 6 · search" in out


def test_show_names_the_step_whose_model_call_the_sdk_retried(tmp_path: Path) -> None:
    """A step whose model call took several HTTP tries (the SDK's retries, as recorded) says in its heading how many
    failed and how long they took, where its latency went; check finds nothing wrong with it."""
    path = retried_run_file(tmp_path / "retried.jsonl")
    out = terminal("show", str(path), "--full")
    assert "model calls  8 (retried: 2 failed tries, 1.6 s)" in out
    assert "step 1 · run_check · retried: 2 failed tries, 1.6 s ─" in out
    assert "step 2 · read_file ─" in out
    assert "✓ clean" in terminal("check", str(path))


def test_show_says_how_many_tries_is_not_known_of_a_call_whose_recording_does_not_know(tmp_path: Path) -> None:
    """show names the step of a model call recorded with "tries_known": false, saying it was retried at least so many
    times (how many not known), or that how many tries is not known, where it said nothing of it."""
    path = retried_run_file(tmp_path / "untold.jsonl", [{"error": {"type": "APIConnectionError"}}], known=False)
    out = run_cli("show", str(path), "--width", "200", "--color", "never")[1]
    assert "model calls  8 (retried: at least 1 failed try (how many is not known))" in out
    assert "step 1 · run_check · retried: at least 1 failed try (how many is not known) ─" in out
    path = retried_run_file(tmp_path / "unknown.jsonl", [], known=False)
    out = terminal("show", str(path), "--full")
    assert "model calls  8 (how many tries is not known)" in out
    assert "step 1 · run_check · how many tries is not known ─" in out
    assert "✓ clean" in terminal("check", str(path))


def test_show_json_gives_null_tries_of_a_step_whose_model_call_does_not_know_them(tmp_path: Path) -> None:
    """show --json gives a null tries (and retried_ms) on the step of a model call recorded with "tries_known": false,
    not a count it does not know."""
    view = as_json("show", str(retried_run_file(tmp_path / "unknown.jsonl", [], known=False)))
    assert {step["index"]: (step["tries"], step["retried_ms"]) for step in view["steps"] if "tries" in step} == {
        1: (None, None)
    }


def test_show_json_gives_the_tries_of_a_step_whose_model_call_the_sdk_retried(tmp_path: Path) -> None:
    """show --json gives, on each step whose model call the SDK retried, its tries and the time the failed ones took
    (the model-calls frame's tries and retried_ms), where it said nothing of them; other steps have neither."""
    view = as_json("show", str(retried_run_file(tmp_path / "retried.jsonl")))
    assert isinstance(view, dict)
    retried = {step["index"]: (step["tries"], step["retried_ms"]) for step in view["steps"] if "tries" in step}
    assert retried == {1: (3, 1550.5)}
    assert all("retried_ms" not in step for step in view["steps"] if step["index"] != 1)


def test_show_says_one_earlier_step_in_the_singular() -> None:
    """One step left out is '1 earlier step', where it said '1 earlier steps'."""
    out = terminal("show", "fix-failing-test", "--steps", "7")
    assert "1 earlier step (2 messages) not printed here" in out


def test_show_ends_with_the_views_facts_and_a_line_explaining_their_terms() -> None:
    """show prints the view's facts last (where, size, window, replay key, change), after every turn, with one
    legend line giving each term's meaning from views.VIEW_TERMS; the header before the turns is the run's."""
    view = Views(samples.load("fix-failing-test")).at(None)
    out = terminal("show", "fix-failing-test")
    head, tail = out.split("step 7 · finish", 1)
    last = [line.rstrip() for line in tail.rstrip("\n").splitlines()]
    start = next(n for n, line in enumerate(last) if line.startswith("the view after the last step"))
    summary = last[start:]
    assert len(summary) <= 12
    flat = " ".join(" ".join(summary).split())
    assert f"size 17 messages · {view.bytes:,} bytes · ~{view.tokens:,} tokens" in flat
    assert "window the last 6 of 8 steps' results in full" in flat and view.replay_key in flat
    assert f"change {view.change.describe()}" in flat
    terms = flat[flat.index("terms ") :]
    for term, meaning in VIEW_TERMS.items():
        assert f"{term}: {meaning}" in terms
    assert "replay key" not in head and "cacheable prefix" not in head


def test_show_of_the_first_view_explains_only_the_terms_it_uses() -> None:
    """The view before any step has no previous view: its change says so and its legend leaves out prefix terms."""
    out = terminal("show", "fix-failing-test", "--at", "0")
    assert "change      first view: all 267 bytes are new" in out
    assert "terms  window: " in out and "cacheable prefix" not in out and "re-sent" not in out


def test_the_showcase_runs_first_step_has_a_summary_and_check_is_clean() -> None:
    """fix-failing-test's step 0 shows its tool's summary outside the window, not (no summary); check exits 0, clean."""
    out = terminal("show", "fix-failing-test")
    assert "answers list_dir \u00b7 id step_0  listed . (4 entries)" in out and "(no summary)" not in out
    code, printed, _ = run_cli("check", "--strict", "fix-failing-test", "--color", "never")
    assert code == 0 and "clean" in printed


@pytest.mark.parametrize(
    ("command", "terms"),
    [
        ("show", ("window", "replay key", "cacheable prefix", "re-sent")),
        ("context", ("window", "cacheable prefix", "re-sent")),
        ("keys", ("replay key",)),
    ],
)
def test_help_explains_the_terms_a_command_prints(
    command: str, terms: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    """The --help of each command that sizes views lists the terms its output uses, each with its meaning."""
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = capsys.readouterr().out
    for term in terms:
        # a meaning too long for the line goes on under itself
        meaning = r"\s+".join(map(re.escape, VIEW_TERMS[term].split()))
        assert re.search(rf"\n  {re.escape(term)} +{meaning}\n", text), term


@pytest.mark.parametrize("columns", [60, 80, 120])
def test_every_help_fits_the_terminal(columns: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The --help of the program and of each command keeps every line within the terminal's width (its paragraphs
    filled to it, a term's meaning and an example command wrapped under themselves), where lines wrapped by hand at
    100 columns broke in two in a terminal of 80; the words are all there, in their order."""
    monkeypatch.setenv("COLUMNS", str(columns))
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    for name, sub in {"": parser, **commands}.items():
        text = sub.format_help()
        assert max(map(len, text.splitlines())) <= columns, name
        for said in filter(None, (sub.description, sub.epilog)):
            assert " ".join(said.split()) in " ".join(text.split()), name


def test_steps_help_says_the_words_of_what_the_model_saw() -> None:
    """steps --help says the column the table has, what the model saw of each step, in the words the table says it
    with (skipped, nothing: the conversation ended, compacted away) and the marks of a prefill's reason, where it
    described a rendered and a full column the table no longer has."""
    text = build_parser()._subparsers._group_actions[0].choices["steps"].format_help()  # type: ignore[union-attr]
    said = " ".join(text.split())
    for words in (SKIPPED_SAW, ENDED_SAW, LEFT_OUT_SAID, PREFILL_REASON, REPLY_REASON, "what the model saw"):
        assert words in said, words
    assert "whether it is rendered" not in said


def test_steps_filters_do_what_the_help_says_of_them() -> None:
    """steps --help says that ``--tool`` keeps a step that called the tool beside its decision's (a parallel call),
    that a filter given again adds a value (either kept), and that each filter given must match; and so the
    filters do on a real Claude Code session of parallel calls. Before, the help said ``--tool`` kept the steps "whose
    decision names this tool", and "a row is kept when it matches every filter" of repeated values."""
    text = build_parser()._subparsers._group_actions[0].choices["steps"].format_help()  # type: ignore[union-attr]
    said = " ".join(text.split())
    assert "parallel calls made beside it" in said and "one given again adds a value" in said, said
    assert "matches each filter given" in said
    session = "tests/fixtures/real/claude-code/marot-spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
    if not (ROOT / session).is_file():
        pytest.skip("the real fixtures are not in this checkout")

    def kept(*filters: str) -> list[dict[str, Any]]:  # the session's warnings are said on stderr
        code, out, _ = run_cli("steps", session, "--json", *filters)
        assert code == 0
        rows: list[dict[str, Any]] = json.loads(out)
        return rows

    def called(row: dict[str, Any]) -> set[str]:
        return {row["tool"], *(row["other_tools"] or ())}

    rows = kept()
    beside = [row["index"] for row in rows if "Read" in called(row) and row["tool"] != "Read"]
    assert beside, "the session has a step that called Read beside another tool"
    assert [row["index"] for row in kept("--tool", "Read")] == [row["index"] for row in rows if "Read" in called(row)]
    either = [row["index"] for row in kept("--tool", "Grep", "--tool", "Read")]
    assert either == [row["index"] for row in rows if {"Grep", "Read"} & called(row)] and set(beside) <= set(either)
    both = kept("--tool", "Read", "--status", "error")
    assert both == [row for row in rows if "Read" in called(row) and row["status"] == "error"]


def test_schema_help_says_its_output_options_change_nothing_and_they_do_not() -> None:
    """schema prints the same JSON with or without --json, at any --width and --color, and its help says so, where it
    offered --json "instead of the terminal view" with "the run's warnings" of a command that reads no run."""
    text = build_parser()._subparsers._group_actions[0].choices["schema"].format_help()  # type: ignore[union-attr]
    assert "--json, --width and --color change nothing" in " ".join(text.split())
    printed = {run_cli("schema", *argv)[1] for argv in ((), ("--json",), ("--width", "20", "--color", "always"))}
    assert len(printed) == 1 and json.loads(printed.pop())["$schema"].endswith("2020-12/schema")


def test_check_help_names_every_kind_of_finding() -> None:
    """check --help names every kind of finding check reports (unplaced-breakpoint and converted-reject among them,
    which it left out), by the code the output and --json give it."""
    text = build_parser()._subparsers._group_actions[0].choices["check"].format_help()  # type: ignore[union-attr]
    assert [code for code in FINDINGS if code not in text] == []


# ---------------------------------------------------------------------------- JSON


def test_show_json_is_the_views_facts_and_messages() -> None:
    """show --json holds the view's messages, bytes, key, change and every block's kind, as views has them."""
    for name in samples.names():
        for at in (None, 2):
            argv = ("show", name) if at is None else ("show", name, "--at", str(at))
            data = as_json(*argv)
            assert isinstance(data, dict)
            view = Views(samples.load(name)).at(at)
            assert data["at"] == at
            assert data["messages"] == [message.to_dict() for message in view.messages]
            assert data["message_count"] == len(view.messages)
            assert (data["bytes"], data["tokens"], data["bytes_no_window"]) == (
                view.bytes,
                view.tokens,
                view.bytes_no_window,
            )
            assert data["replay_key"] == view.replay_key
            assert data["change"]["describe"] == view.change.describe()
            assert data["change"]["prefix_bytes"] == view.change.prefix_bytes
            assert [s["index"] for s in data["steps"]] == [fact.step.index for fact in view.steps]
            for item, fact in zip(data["steps"], view.steps, strict=True):
                assert item["rendered"] == fact.rendered
                if fact.rendered:
                    assert item["full"] == fact.full
                    assert [b["kind"] for b in item["result"]["blocks"]] == [b.kind for b in fact.result.blocks]  # type: ignore[union-attr]
                    assert item["result"]["blocks"][0]["hidden_bytes"] == fact.result.blocks[0].hidden_bytes  # type: ignore[union-attr]


def test_show_window_options_reach_the_views() -> None:
    """--recent-results and --result-bytes render the view under those options, as render.messages would."""
    run = samples.load("out-of-steps")
    data = as_json("show", "out-of-steps", "--recent-results", "1", "--result-bytes", "10")
    expected = render.messages(run.step_input(), run.options(recent_results=1, result_bytes=10))
    assert data["messages"] == [m.to_dict() for m in expected]  # type: ignore[index]


def test_a_run_with_no_opening_is_listed_as_steps_frame_does_and_shown_with_a_stand_in(tmp_path: Path) -> None:
    """A run whose header has neither opening nor goal is shown with a stand-in opening and a warning naming both."""
    from agentrender.frame import steps_frame

    run = samples.load("flaky-build-resumed")
    bare = replace(run, header={key: value for key, value in run.header.items() if key not in ("opening", "goal")})
    path = tmp_path / "bare.jsonl"
    write_run(replace(bare, records=()), path)
    status, out, err = run_cli("steps", str(path), "--recent-results", "1", "--json")
    rows = json.loads(out)
    assert [row["full"] for row in rows] == steps_frame(bare, run.options(recent_results=1))["full"].tolist()
    assert err == f"agentrender: warning: {path}:1: the run header has neither 'opening' nor 'goal' (the text the " \
        "agent opened with): its views open with '(this run recorded no opening)' in its place\n"  # fmt: skip
    status, out, err = run_cli("show", str(path), "--width", "1000")  # no temporary path of any length wraps
    assert (status, err) == (0, "")
    assert "(this run recorded no opening)" in out and "list_dir" in out
    assert "warning: " + f"{path}:1: the run header has neither 'opening' nor 'goal'" in out


def test_a_long_unsafe_reason_is_one_short_escaped_line_of_the_steps_table(tmp_path: Path) -> None:
    """A reason of 400,000 bidi overrides and tag characters is shown escaped, cut with an ellipsis on one line."""
    reason = "\u202e<" * 200_000
    step = Step(index=0, decision=Decision(kind="tool_call", tool="t", args={}, reason=reason))
    path = tmp_path / "long.jsonl"
    write_run(Run(header={"type": "run", "run_id": "long", "goal": "g"}, steps=(step,)), path)
    out = terminal("steps", str(path))
    [row] = [line for line in out.splitlines() if "\\u202e<" in line]
    assert row.rstrip().endswith("\u2026") and "\u202e" not in out
    assert len(out) < 5_000


def test_check_takes_no_render_option(capsys: pytest.CaptureFixture[str]) -> None:
    """check reads each result in both forms under the run's own options: a window setting is refused, not ignored."""
    for option in ("--recent-results", "--result-bytes"):
        with pytest.raises(SystemExit) as refused:
            run_cli("check", "fix-failing-test", option, "1")
        assert refused.value.code == 2 and f"unrecognized arguments: {option} 1" in capsys.readouterr().err


def test_an_option_is_its_whole_name_and_show_takes_step_as_decide_does(capsys: pytest.CaptureFixture[str]) -> None:
    """``show --step K`` is the view deciding step K, as ``--at K`` is (``decide --step K`` is that step's replies); a
    near miss of an option's name (``--ste``, ``--ful``) is refused with its name, never taken for another option
    (argparse's prefixes once read ``show --step 3`` as ``--steps 3``, the last three steps of the last view)."""
    assert run_cli("show", "fix-failing-test", "--step", "2") == run_cli("show", "fix-failing-test", "--at", "2")
    assert run_cli("show", "fix-failing-test", "--step", "2") != run_cli("show", "fix-failing-test", "--steps", "2")
    for command, option, value in (("show", "--ste", "2"), ("show", "--ful", ""), ("steps", "--too", "t")):
        with pytest.raises(SystemExit) as refused:
            run_cli(command, "fix-failing-test", option, *([value] if value else []))
        assert refused.value.code == 2 and f"unrecognized arguments: {option}" in capsys.readouterr().err


def test_an_unknown_option_is_refused_by_the_commands_own_usage_naming_the_command_that_takes_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``keys RUN --at 3`` is refused with the usage of ``keys`` and ``agentrender keys: error:``, where it gave the
    top-level usage, and names the commands that take ``--at``; an option no command takes gets no such hint."""
    with pytest.raises(SystemExit) as refused:
        run_cli("keys", "fix-failing-test", "--at", "3")
    err = capsys.readouterr().err
    assert refused.value.code == 2
    assert err.startswith("usage: agentrender keys [-h]") and "COMMAND ..." not in err, err
    said = "unrecognized arguments: --at 3 (--at is an option of show and html)"
    assert err.splitlines()[-1] == f"agentrender keys: error: {said}"
    with pytest.raises(SystemExit) as refused:
        run_cli("context", "fix-failing-test", "--full", "--no-such")
    last = capsys.readouterr().err.splitlines()[-1]
    assert refused.value.code == 2
    said = "unrecognized arguments: --full --no-such (--full is an option of show and decide)"
    assert last == f"agentrender context: error: {said}"


def test_a_number_option_given_no_number_says_what_it_expected(capsys: pytest.CaptureFixture[str]) -> None:
    """``--recent-results x`` or ``--width 2.5`` is refused with what the option takes and what it got, where argparse
    named the private function that reads it (``invalid _count value: 'x'``)."""
    for option, value, expected in (("--recent-results", "x", "0 or more"), ("--width", "2.5", "1 or more")):
        with pytest.raises(SystemExit) as refused:
            run_cli("context", "fix-failing-test", option, value)
        last = capsys.readouterr().err.splitlines()[-1]
        assert refused.value.code == 2
        assert (
            last == f"agentrender context: error: argument {option}: expected a whole number, {expected}, got {value!r}"
        )


@pytest.mark.parametrize("command", [["show"], ["html", "-o", "page.html"]])
def test_a_step_before_the_first_says_how_to_see_the_view_after_the_last(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """``--at -1`` (a user's way to say "the last") is refused saying that without --at the view is the one after the
    last step, where it said only 'expected 0 or more'."""
    with pytest.raises(SystemExit) as refused:
        run_cli(command[0], "fix-failing-test", *command[1:], "--at", "-1")
    last = capsys.readouterr().err.splitlines()[-1]
    assert refused.value.code == 2
    assert last == (
        f"agentrender {command[0]}: error: argument --at/--step: expected 0 or more, got -1 "
        "(without --at: the view after the last step)"
    )


def test_steps_given_both_csv_and_json_refuses_them_rather_than_print_one() -> None:
    """``steps --csv --json`` exits 2 saying to give one of them, where it printed JSON and dropped --csv unsaid."""
    code, out, err = run_cli("steps", "fix-failing-test", "--csv", "--json")
    assert (code, out) == (2, "")
    assert err == "agentrender: --csv and --json each print the table for a program: give one of them\n"


def test_a_long_tool_name_squeezes_no_column_of_the_steps_table(tmp_path: Path) -> None:
    """An MCP tool's long name (``mcp__server__tool``) is cut in the steps table at 100 columns, where it used to
    squeeze every other column: each step's number stays whole, and each header its name."""
    tool = "mcp__honeycomb-dogfood__get_workspace_context_for_the_current_environment"
    steps = tuple(
        Step(index=i, decision=Decision(kind="tool_call", tool=tool, reason="Look."), observation=Observation())
        for i in range(120)
    )
    path = tmp_path / "mcp.jsonl"
    write_run(Run(header={"type": "run", "run_id": "mcp", "goal": "g"}, steps=steps), path)
    code, out, _ = run_cli("steps", str(path), "--width", "100", "--color", "never")
    lines = out.splitlines()
    head = next(line for line in lines if line.strip().startswith("#"))
    assert code == 0 and head.split() == [
        "#",
        "kind",
        "tool",
        "status",
        "the",
        "model",
        "saw",
        "content",
        "summary",
        "reason",
    ]
    numbers = [line.split()[0] for line in lines if line.strip()[:1].isdigit() or line.strip().startswith("…")]
    assert numbers == [str(i) for i in range(120)]
    assert all(tool[:20] in line and tool not in line for line in lines if line.split()[:1] in (["0"], ["119"]))


def _summary_cells(out: str) -> list[str]:
    """The summary column's cell of each step's row of a steps table (right-aligned under its header)."""
    lines = out.splitlines()
    head = next(line for line in lines if line.strip().startswith("#"))
    end = head.index(" summary") + len(" summary")
    return [line[:end].split()[-1] for line in lines if line.strip()[:1].isdigit()]


def test_the_steps_table_says_a_dash_of_a_step_with_no_summary_and_its_bytes_of_one_with_one() -> None:
    """An imported Claude Code session's steps, which hold no summary, show "—" in the summary column (as the table
    says of any absent value), where each said 0 and read as a 0-byte summary; --csv keeps the run's 0 bytes, and a
    sample's summaries keep their bytes."""
    source = str(real.REAL / "claude-code" / "marot-spotter" / "tool_heavy.jsonl")
    code, out, _ = run_cli("steps", source, "--width", "120", "--color", "never")
    assert code == 0 and _summary_cells(out) == ["—"] * 4, out
    code, csv_out, _ = run_cli("steps", source, "--csv")
    assert code == 0 and [row["summary_bytes"] for row in csv.DictReader(io.StringIO(csv_out))] == ["0"] * 4
    code, out, _ = run_cli("steps", "fix-failing-test", "--width", "120", "--color", "never")
    assert _summary_cells(out)[:3] == ["20", "18", "42"], out


CLAUDE_TRACE = "tests/fixtures/real/claude-trace/hanqunfeng-claude-trace/log-2026-06-15-09-15-50.jsonl"
"""A real claude-trace log: long numbers in context, a conversation's end in steps, a source format in runs."""


def _called_three_times(tmp_path: Path) -> str:
    """fix-failing-test with its step 2 called three times (a retried call), none of them with its view's key."""
    lines = samples.path("fix-failing-test").read_text("utf-8").splitlines()
    out = []
    for line in lines:
        record = json.loads(line)
        if record.get("type") == "model_call" and record["step"] == 2:
            out += [json.dumps({**record, "request_key": digit * 64}) for digit in "abc"]
        else:
            out.append(line)
    path = tmp_path / "retried.jsonl"
    path.write_text("\n".join(out) + "\n", "utf-8")
    return str(path)


@pytest.mark.parametrize("width", ["80", "100"])
def test_every_table_keeps_every_columns_information_at_80_and_100_columns(tmp_path: Path, width: str) -> None:
    """keys, context, steps and runs at 80 and 100 columns keep every column: each view's step and verdict beside
    every recorded key (where keys dropped them), every number whole (context cut them), the reason (steps dropped
    it) and a source's format folded, not cut (runs)."""
    if not (ROOT / CLAUDE_TRACE).is_file():
        pytest.skip("the real fixtures are not in this checkout")

    def shown(*argv: str) -> list[str]:
        code, out, _ = run_cli(*argv, "--width", width, "--color", "never")
        # the file's path, which runs titles its table with, is whole on its line to copy, past the width
        assert code == 0 and max(len(line) for line in out.splitlines() if line != argv[1]) <= int(width)
        return out.splitlines()

    def data(*argv: str) -> list[dict[str, Any]]:
        code, out, _ = run_cli(*argv, "--json")  # stderr names the log's run read
        assert code == 0
        return list(json.loads(out))

    retried = _called_three_times(tmp_path)
    lines = shown("keys", retried)
    rows = [line.split() for line in lines if line.split()[:1] and line.split()[0].isdigit()]
    expected = data("keys", retried)
    assert [row[0] for row in rows] == [str(row["at"]) for row in expected]
    for row, words in zip(expected, rows, strict=True):
        verdict = (
            ["none", "recorded"] if row["matches"] is None else ["✓", "matches"] if row["matches"] else ["✗", "differs"]
        )
        assert words[1] == row["replay_key"][:24] + "…" and words[-2:] == verdict
    assert all(digit * 24 + "…" in "\n".join(lines) for digit in "abc")

    for run in ("fix-failing-test", CLAUDE_TRACE):
        lines = shown("context", run)
        header = next(line for line in lines if line.split()[:1] == ["at"]).split()
        assert header[:2] == ["at", "messages"] and {"bytes", "~tokens", "prefix", "re-sent", "note"} <= set(header)
        rows = [line.split() for line in lines if line.split()[:1] and line.split()[0].isdigit()]
        expected = data("context", run)
        numbers = ("at", "messages", "bytes", "tokens", "bytes_no_window", "prefix_bytes", "resent_bytes")
        assert [words[:7] for words in rows] == [[f"{row[name]:,}" for name in numbers] for row in expected]

    lines = shown("steps", CLAUDE_TRACE)
    assert next(line for line in lines if line.split()[:1] == ["#"]).split()[-1] == "reason"
    reasons = [row["reason"][:4] for row in data("steps", CLAUDE_TRACE)]
    rows = [line for line in lines if line.split()[:1] and line.split()[0].isdigit()]
    assert len(rows) == len(reasons) and all(reason in line for reason, line in zip(reasons, rows, strict=True))
    last = lines.index(rows[-1])  # what the model saw of the last step, its words wrapped over the lines of its row
    assert {"nothing:", "the", "conversation", "ended"} <= set(" ".join(lines[last : last + 3]).split())

    table = "\n".join(shown("runs", CLAUDE_TRACE))  # a word longer than its column folds over lines
    assert table.count("anthropic-me") == 4 and "…" not in table


def test_steps_json_rows_are_the_steps_frame_and_filters_keep_matching_rows() -> None:
    """steps --json is steps_frame row for row, what the model saw as the views say; filters keep matching rows."""
    from agentrender.frame import STEP_COLUMNS, steps_frame

    run = samples.load("flaky-build-resumed")
    view = Views(run).at(None)
    rows = as_json("steps", "flaky-build-resumed")
    assert isinstance(rows, list)
    frame = steps_frame(run)
    assert [row["index"] for row in rows] == frame["index"].tolist() == [step.index for step in run.steps]
    assert list(rows[0]) == [column.name for column in STEP_COLUMNS]
    # each value is JSON's own of its column's type (a nullable boolean's cell was once written as "np.False_")
    json_types = {"bool": bool, "boolean": bool, "int64": int, "Int64": int, "Float64": float, "string": str}
    json_types |= {"category": str, "datetime64[us, UTC]": str, "timedelta64[us]": float}
    for column in STEP_COLUMNS:
        values = [row[column.name] for row in rows]
        assert all(value is None or type(value) is json_types[column.dtype] for value in values), (column, values)
        assert column.dtype not in ("bool", "boolean") or any(value is not None for value in values), column
    for row, fact, full, status in zip(rows, view.steps, frame["full"], frame["status"], strict=True):
        assert row["rendered"] == fact.rendered and row["full"] == bool(full) == bool(fact.full)
        assert (
            row["status"]
            == (None if fact.step.observation is None else fact.step.observation.status)
            == (None if str(status) == "nan" else status)
        )
        assert row["shown_as"] == (fact.result.blocks[0].kind if fact.result else None)
    windowed = as_json("steps", "flaky-build-resumed", "--recent-results", "1")
    assert [row["full"] for row in windowed] == steps_frame(run, run.options(recent_results=1))["full"].tolist()  # type: ignore[union-attr]
    errors = as_json("steps", "flaky-build-resumed", "--status", "error", "--tool", "run_check")
    assert [row["index"] for row in errors] == [  # type: ignore[union-attr]
        s.index
        for s in run.steps
        if s.observation and s.observation.status == "error" and s.decision.tool == "run_check"  # type: ignore[union-attr]
    ]
    skipped = as_json("steps", "flaky-build-resumed", "--kind", "none")
    assert [row["index"] for row in skipped] == [s.index for s in run.steps if s.decision is None]  # type: ignore[union-attr]


@pytest.mark.parametrize("json_output", [False, True], ids=["terminal", "json"])
def test_a_filter_value_no_step_has_is_said_on_stderr_with_the_values_the_steps_have(json_output: bool) -> None:
    """steps --status/--tool/--kind with a value no step has (a word from elsewhere, a case slip) still prints the
    table of what matched, and says on stderr, a line a filter, which value matched nothing and what the steps have."""
    argv = (
        "steps",
        "out-of-steps",
        "--status",
        "failed",
        "--status",
        "ok",
        "--tool",
        "Read_file",
        "--kind",
        "tool_call",
    )
    code, out, err = run_cli(*argv, *(("--json",) if json_output else ()))
    assert code == 0 and out
    assert err.splitlines() == [
        "agentrender: out-of-steps: --tool Read_file: no step has this tool; "
        "its steps have list_dir (2), none (1), read_file (3), search (3)",
        "agentrender: out-of-steps: --status failed: no step has this status; "
        "its steps have error (2), invalid_decision (1), ok (6)",
    ]
    assert run_cli("steps", "out-of-steps", "--status", "error", "--tool", "read_file")[2] == ""


def test_decide_json_is_explain_decide_of_each_captured_reply() -> None:
    """decide --json gives each call's rule and decision as explain_decide has them; a step's last reply is compared."""
    for name in samples.names():
        run = samples.load(name)
        rows = as_json("decide", name)
        assert isinstance(rows, list) and len(rows) == len(run.model_calls)
        recorded = {step.index: step.decision for step in run.steps}
        for row, call in zip(rows, run.model_calls, strict=True):
            explanation = explain_decide(call.response)
            assert row["ran_anyway"] == []  # a run under the contract: its agent ran the first call only
            assert (row["step"], row["line"], row["rule"]) == (call.step, call.line, explanation.rule)
            assert row["decision"]["kind"] == explanation.decision.kind
            assert row["why"] == explanation.why
            if row["compared"]:
                agrees = recorded[call.step] == explanation.decision
                assert row["agrees"] == agrees and (row["differs"] == []) == agrees


@pytest.mark.parametrize("name", ["reply.json", "REPLY.JSON"])
def test_decide_reads_a_reply_file(tmp_path: Path, name: str) -> None:
    """decide REPLY.json explains the one reply in the file, with nothing to compare it with, its name in any case
    (REPLY.JSON was read as a history, and refused as a reply where a run was meant)."""
    wire = samples.load("fix-failing-test").model_calls[4].record["response"]
    path = tmp_path / name
    path.write_text(json.dumps(wire), encoding="utf-8")
    (row,) = as_json("decide", str(path))  # type: ignore[misc]
    explanation = explain_decide(ModelResponse.from_dict(wire))
    assert row["rule"] == explanation.rule and row["not_executed"] == list(explanation.not_executed)
    assert row["compared"] is False and row["agrees"] is None
    out = terminal("decide", str(path))
    assert "further tool use(s) not executed" in out and "agrees" not in out


def test_decide_reads_a_reply_pasted_as_an_assistant_turn_alone(tmp_path: Path) -> None:
    """A reply of no ``type`` and no ``stop_reason`` (``{"role": "assistant", "content": [...]}``, an assistant turn
    alone, which no conversation is) is read as the reply, with the decision its record gives; one whose content is
    no list of blocks is refused with what a reply's content must be. Before, both were refused as 'not a run, nor a
    conversation', which never says a reply."""
    wire = samples.load("fix-failing-test").model_calls[4].record["response"]
    turn = {"role": "assistant", "content": wire["content"]}
    path = tmp_path / "turn.json"
    path.write_text(json.dumps(turn), encoding="utf-8")
    (row,) = as_json("decide", str(path))  # type: ignore[misc]
    explanation = explain_decide(ModelResponse.from_dict({**wire, "stop_reason": None}))
    assert row["rule"] == explanation.rule and row["decision"]["tool"] == explanation.decision.tool
    assert row["compared"] is False
    path.write_text(json.dumps({"role": "assistant", "content": "Done."}), encoding="utf-8")
    code, out, err = run_cli("decide", str(path))
    assert (code, out) == (2, "") and f"{path}:1: reply.content: expected a list of blocks, got string" in err, err


def test_decide_of_a_reply_without_its_type_or_role_says_what_a_reply_needs(tmp_path: Path) -> None:
    """A file of a reply's content and stop reason with no ``"type": "message"`` and no ``"role": "assistant"`` is
    refused as a reply, naming the keys it holds and what a reply needs (REPLY_NEEDS), where it got the generic
    "not a run, nor a conversation agentrender can import"."""
    path = tmp_path / "reply.json"
    use = {"type": "tool_use", "id": "toolu_1", "name": "t", "input": "{bad"}
    path.write_text(json.dumps({"content": [use], "stop_reason": "tool_use"}), encoding="utf-8")
    code, out, err = run_cli("decide", str(path))
    said = f'{path}:1: not a model reply: it holds content, stop_reason, but no "type": "message" nor "role": '
    assert (code, out) == (2, "") and err == f'agentrender: {said}"assistant"; {REPLY_NEEDS}\n', err


@pytest.mark.parametrize("width", [60, 80])
def test_a_narrow_steps_table_keeps_every_kind_tool_and_status_whole(width: int) -> None:
    """At 60 columns the steps table keeps every step's kind, tool, status and what the model saw whole (its words
    wrapped), leaving out the reason column, with a line saying where each reason is; at 80 it keeps the reason too,
    cut. Before, at 60 every kind was cut to ``too…``, what the model saw to ``summ…`` and a tool to ``write_f…``."""
    run = samples.load("fix-failing-test")
    code, out, err = run_cli("steps", "fix-failing-test", "--width", str(width), "--color", "never")
    assert code == 0, err
    assert all(len(line) <= width for line in out.splitlines()), out
    rows = [line.split() for line in out.splitlines() if line[:3].strip().isdigit()]
    decided = [step for step in run.steps if step.decision]
    assert [row[1:4] for row in rows] == [
        [step.decision.kind, step.decision.tool, step.observation.status]  # type: ignore[union-attr]
        for step in decided
    ], out
    words = " ".join(out.split())
    assert "summ…" not in words and "resu…" not in words
    header = next(line for line in out.splitlines() if line.split()[:1] == ["#"]).split()
    if width == 60:
        assert "reason" not in header
        assert "the reasons are left out at 60 columns: --json has each in full, --width 69 shows them" in words
    else:
        assert header[-1] == "reason" and "left out" not in out
        assert all(row[-1].endswith("…") for row in rows)


@pytest.mark.parametrize("name", sorted(path.name for path in (ROOT / "sample_runs").glob("*.jsonl")))
def test_the_width_a_narrow_steps_table_names_shows_its_reasons(name: str) -> None:
    """Where the steps table leaves its reasons out, the width its line names is the least that shows them: at it the
    reason column is there, one column narrower it is not. The line named 80 whatever the table needed (85 for a run
    whose tools have longer names), and 80 left them out again."""
    path = ROOT / "sample_runs" / name
    code, out, err = run_cli("steps", str(path), "--width", "40", "--color", "never")
    assert code == 0, err
    said = re.search(r"--width (\d+) shows them", " ".join(out.split()))
    assert said is not None, out
    keeps = int(said.group(1))
    for width, shown in ((keeps, True), (keeps - 1, False)):
        code, out, err = run_cli("steps", str(path), "--width", str(width), "--color", "never")
        header = next(line for line in out.splitlines() if line.split()[:1] == ["#"]).split()
        assert code == 0 and ("reason" in header) is shown and ("left out" in out) is not shown, (width, out)


@pytest.mark.parametrize(
    ("columns", "width"),
    [("60", 60), ("140", 140), ("", 100), ("wide", 100), ("0", 100), ("²", 100), ("٣", 100), ("-80", 100)],
)
def test_piped_output_is_laid_out_at_columns_when_it_is_set(monkeypatch: pytest.MonkeyPatch, columns: str,
                                                             width: int) -> None:  # fmt: skip
    """Piped (``| less``, ``> file``), the output is laid out at ``COLUMNS`` where the user set it to a plain
    positive number of columns, and at 100 where it is unset or is not one (then one line on stderr says it is
    ignored; a superscript ``²`` was an internal error); ``--width`` still wins. Before, ``COLUMNS`` was ignored
    when piped."""
    monkeypatch.setenv("COLUMNS", columns)
    said = (
        "" if columns in ("", str(width)) else f"agentrender: COLUMNS={columns!r} is not a number of columns; ignored\n"
    )
    code, out, err = run_cli("steps", "fix-failing-test", "--color", "never")
    assert (code, err) == (0, said), err
    assert max(map(len, out.splitlines())) == width, out
    code, out, err = run_cli("steps", "fix-failing-test", "--color", "never", "--width", "80")
    assert code == 0 and max(map(len, out.splitlines())) == 80, out


def test_a_runs_file_is_named_as_near_the_working_folder_as_it_is_and_no_tools_are_said_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run's HTML (the notebook's run tab, ``Run._repr_html_``) and ``show`` name its file relative to the working
    folder when that is shorter (beside it too: ``../runs/run.jsonl`` from a notebook's folder, the same on every
    machine), else whole; and a run that records no tools says so ("—", ``NO_VALUE``), as ``show`` and the page do,
    where its HTML left the row out and the page left it empty."""
    from agentrender.views.html import run_html

    (tmp_path / "runs").mkdir()
    (tmp_path / "notebooks").mkdir()
    path = tmp_path / "runs" / "run.jsonl"
    path.write_bytes(samples.path("fix-failing-test").read_bytes())
    run = load_runs(path)[0]
    monkeypatch.chdir(tmp_path / "notebooks")
    assert "<th>file</th><td>../runs/run.jsonl</td>" in run_html(run, None)
    code, out, err = run_cli("show", str(path), "--width", "200", "--color", "never")
    assert code == 0 and "file         ../runs/run.jsonl" in out, err
    monkeypatch.chdir("/")
    assert f"<th>file</th><td>{path.relative_to('/')}</td>" in run_html(run, None)
    deep = tmp_path.joinpath("notebooks", *["n"] * (len(str(path)) // 3))
    deep.mkdir(parents=True)
    monkeypatch.chdir(deep)
    assert f"<th>file</th><td>{path}</td>" in run_html(run, None)  # ../../(...)/runs/run.jsonl is the longer
    toolless = replace(run, header={key: value for key, value in run.header.items() if key != "tools"})
    assert run.tools and not toolless.tools
    assert "<th>tools</th><td>read_file, " in run_html(run, None)
    assert f"<th>tools</th><td>{NO_VALUE}</td>" in run_html(toolless, None)


def test_a_tool_with_no_name_is_listed_by_its_type_in_every_header(tmp_path: Path) -> None:
    """A tool the API defines that has no name (a toolset such as ``computer_toolset_20260801``) is listed by its
    type in the run's header, as show, a run's HTML and the shared page print it, where each printed ``?``."""
    from agentrender import html
    from agentrender.views.html import run_html
    from tests.test_html_page import page_texts

    lines = samples.path("fix-failing-test").read_text(encoding="utf-8").splitlines(keepends=True)
    header = json.loads(lines[0])
    header["tools"] = [{"name": "read_file", "input_schema": {"type": "object"}}, {"type": "computer_toolset_20260801"}]
    path = tmp_path / "run.jsonl"
    path.write_text(json.dumps(header) + "\n" + "".join(lines[1:]), encoding="utf-8")
    run = load_runs(path)[0]
    assert run.warnings == ()
    code, out, err = run_cli("show", str(path), "--width", "200", "--color", "never")
    assert code == 0, err
    (line,) = [line.strip("│ ") for line in out.splitlines() if line.strip("│ ").startswith("tools ")]
    assert line == "tools        read_file, computer_toolset_20260801", line
    assert "read_file, computer_toolset_20260801" in run_html(run, None)
    assert "read_file, computer_toolset_20260801" in page_texts(html.page(run))


def test_context_and_keys_count_views_as_the_page_does(tmp_path: Path) -> None:
    """context's and keys' titles count the run's views as views (one a step, and the one after the last), as the
    page's size tab does, beside steps' count of steps; a run of no steps has 1 view. Before, context said 'the view
    at 9 steps' of a run of 8 steps, and keys '1 views'."""
    run = samples.load("fix-failing-test")
    views = len(Views(run).stops)
    assert views == len(run.steps) + 1
    for command in ("context", "keys"):
        first = run_cli(command, "fix-failing-test", "--width", "200", "--color", "never")[1].splitlines()[0]
        assert first.startswith(f"fix-failing-test  {views} views \u00b7 "), first
    assert f"{len(run.steps)} steps" in run_cli("steps", "fix-failing-test", "--width", "200")[1].splitlines()[0]
    empty = tmp_path / "empty.jsonl"
    empty.write_text(json.dumps({"type": "run", "format": "agentrender.run/1", "run_id": "e", "goal": "g"}) + "\n")
    for command in ("context", "keys"):
        first = run_cli(command, str(empty), "--width", "200", "--color", "never")[1].splitlines()[0]
        assert first.startswith("e  1 view \u00b7 "), first


def test_context_json_is_the_views_size_series() -> None:
    """context --json is views.sizes(): one row per stop with every column of the series."""
    for name in samples.names():
        series = Views(samples.load(name)).sizes()
        rows = as_json("context", name)
        columns = series.columns()
        assert rows == [dict(zip(columns, values, strict=True)) for values in zip(*columns.values(), strict=True)]


def test_a_context_follow_row_is_the_row_context_json_gives_its_view() -> None:
    """``context --follow`` makes the row of each new view by its own route (``size_row``, from the view alone);
    it is the row ``context --json`` gives that view (from the series), every column, over every sample and the real
    histories with a compaction or a window the views cut."""
    runs = [samples.load(name) for name in samples.names()]
    rollouts = [entry for entry in real.histories() if entry["format"] == "codex_rollout"]
    runs += [load_runs(real.REAL / entry["path"])[0] for entry in rollouts]
    assert any(run.compactions for run in runs)
    for run in runs:
        views = Views(run)
        rows = context_json(views.sizes())
        assert [size_row(views, at) for at in views.stops] == rows, run.run_id


def test_keys_json_are_the_replay_keys_of_every_view() -> None:
    """keys --json gives each stop's replay key, and with no settings beyond the run's header matches every
    recorded key."""
    run = samples.load("fix-failing-test")
    views = Views(run)
    rows = as_json("keys", "fix-failing-test")
    assert [row["at"] for row in rows] == list(views.stops)  # type: ignore[union-attr]
    assert [row["replay_key"] for row in rows] == [views.at(at).replay_key for at in views.stops]  # type: ignore[union-attr]
    # the header records the max_tokens the samples' driver sent, so every recorded key is the view's
    recorded = [row for row in rows if row["recorded_keys"]]  # type: ignore[union-attr]
    assert recorded and all(row["matches"] and row["replay_key"] in row["recorded_keys"] for row in recorded)


def test_samples_json_lists_every_bundled_sample() -> None:
    """samples --json names every bundled sample with its step and call counts."""
    rows = as_json("samples")
    assert [row["name"] for row in rows] == samples.names()  # type: ignore[union-attr]
    for row in rows:  # type: ignore[union-attr]
        run = samples.load(row["name"])
        assert (row["steps"], row["model_calls"]) == (len(run.steps), len(run.model_calls))


def test_samples_say_how_each_run_ended_as_runs_and_show_do() -> None:
    """samples' "how it ended" is the words runs and show give (status, then reason), where it gave a stopped run's
    reason alone ("max_steps") beside a completed run's status, in one column."""
    rows = {row["name"]: row for row in as_json("samples")}  # type: ignore[union-attr]
    for name in samples.names():
        [listed] = as_json("runs", name)  # type: ignore[misc]
        assert rows[name]["end"] == listed["end"], name  # type: ignore[index]
    assert rows["out-of-steps"]["end"] == "stopped: max_steps"
    assert "stopped: max_steps" in terminal("samples")


def test_check_json_findings() -> None:
    """check --json names each finding's kind and step, and counts them per file."""
    reports = as_json("check", *samples.names(), code=0)
    by_name = {report["run"]: report for report in reports}  # type: ignore[union-attr]
    out_of_steps = by_name["out-of-steps"]
    assert out_of_steps["counts"] == {"summary-longer": 4, "no-summary": 1}
    assert (out_of_steps["errors"], out_of_steps["warnings"]) == (0, 5)
    assert {f["severity"] for f in out_of_steps["findings"]} == {"warning"}
    # step 5's reply sent argument bytes that are not UTF-8: read back as bytes, it decides as recorded; step 7's
    # names append_file, which the run does not offer
    malformed = {(f["code"], f["step"]) for f in by_name["malformed-replies"]["findings"]}
    assert malformed == {("no-summary", 4), ("unoffered-tool", 7)}


def test_check_names_the_line_of_the_step_a_finding_is_about(tmp_path: Path) -> None:
    """A finding about a step's result or render (no-summary, summary-longer, api-reject) names the line of the
    step's last record, as the docs say every finding names its line, where it gave none ("—")."""
    path = tmp_path / "out-of-steps.jsonl"
    path.write_bytes(samples.path("out-of-steps").read_bytes())
    lines = path.read_text("utf-8").splitlines()
    last = {json.loads(text)["index"]: number for number, text in enumerate(lines, 1) if '"type": "step"' in text}
    [report] = as_json("check", str(path), code=0)
    findings = report["findings"]  # type: ignore[index]
    assert {f["code"] for f in findings} == {"no-summary", "summary-longer"}
    assert [(f["step"], f["line"]) for f in findings] == [(f["step"], last[f["step"]]) for f in findings]
    base = clean_run()
    odd = Step(index=1, decision=Decision(kind="tool_call", tool="bad name!", args={}), observation=Observation())
    written = tmp_path / "odd.jsonl"
    write_run(Run(header=base.header, steps=(*base.steps, odd), model_calls=()), written)
    step_line = len(written.read_text("utf-8").splitlines())
    findings = as_json("check", str(written), code=1)[0]["findings"]  # type: ignore[index]
    rejected = {(f["step"], f["line"]) for f in findings if f["code"] == "api-reject"}
    assert (1, step_line) in rejected, findings


def test_check_warns_of_a_status_the_render_does_not_know(tmp_path: Path) -> None:
    """An observation whose status is none of the four (a runtime's "failed") is an unknown-status warning at its
    step and line, since the render shows its result as one that did not fail; it was loaded and shown in silence."""
    base = clean_run()
    odd = Step(
        index=1,
        decision=Decision(kind="tool_call", tool="read_file", args={"path": "b.py"}),
        observation=Observation(status="failed", content="no such file", summary="no such file"),
    )
    path = tmp_path / "failed.jsonl"
    write_run(Run(header=base.header, steps=(*base.steps, odd), model_calls=()), path)
    [report] = as_json("check", str(path), code=0)
    findings = [f for f in report["findings"] if f["code"] == "unknown-status"]  # type: ignore[index]
    assert [(f["severity"], f["step"], f["line"]) for f in findings] == [
        ("warning", 1, len(path.read_text("utf-8").splitlines()))
    ]
    assert findings[0]["message"].startswith("$.observation.status: 'failed' is none of ok, error, ")
    assert run_cli("check", "--strict", str(path))[0] == 1
    assert as_json("check", "fix-failing-test", code=0)[0]["clean"]  # type: ignore[index]


def test_check_finds_a_recorded_decision_its_reply_does_not_make(tmp_path: Path) -> None:
    """A step whose recorded decision is not what render.decide makes of its last reply is a decide-disagrees
    finding naming the fields that differ."""
    base = clean_run()
    [step] = base.steps
    assert step.decision is not None
    changed = Step(
        index=0, decision=msgspec.structs.replace(step.decision, tool="write_file"), observation=step.observation
    )
    path = tmp_path / "disagrees.jsonl"
    write_run(Run(header=base.header, steps=(changed,), model_calls=base.model_calls), path)
    [report] = as_json("check", str(path), code=1)
    [finding] = report["findings"]  # type: ignore[index]
    assert (finding["code"], finding["step"]) == ("decide-disagrees", 0)
    assert finding["message"].endswith("in: tool")


@pytest.mark.parametrize(
    "merged",
    [
        "The answer is 42.",  # the prefill's text and the reply's joined
        [{"type": "text", "text": "The answer is"}, {"type": "text", "text": " 42."}],  # their blocks in turn
    ],
)
def test_check_reads_a_prefilled_calls_reply_as_the_prefill_going_on(tmp_path: Path, merged: Any) -> None:
    """A call whose request ended with a prefill decided the prefill continued by its reply: an imported log of one,
    later sent merged either way, and one that is the log's last, is clean, not a decide-disagrees."""
    base = {"model": "claude-test", "max_tokens": 64}
    asked = {"role": "user", "content": "What is the answer?"}
    prefill = {"role": "assistant", "content": "The answer is"}
    reply = {"type": "message", "role": "assistant", "stop_reason": "end_turn"}
    calls = [
        {"request": {**base, "messages": [asked, prefill]}, "response": {**reply, "id": "msg_0", "content": [
            {"type": "text", "text": " 42."}]}},
        {"request": {**base, "messages": [asked, {"role": "assistant", "content": merged},
                                          {"role": "user", "content": "And twice that?"}, prefill]},
         "response": {**reply, "id": "msg_1", "content": [{"type": "text", "text": " 84."}]}},
    ]  # fmt: skip
    path = tmp_path / "calls.jsonl"
    path.write_text("".join(json.dumps(call) + "\n" for call in calls), encoding="utf-8")
    [report] = as_json("check", str(path), code=0)
    assert report["findings"] == []  # type: ignore[index]


def _text_reply(number: int, text: str, stop_reason: str = "end_turn") -> dict[str, Any]:
    """A Messages API reply of one text block."""
    content = [{"type": "text", "text": text}]
    return {
        "type": "message",
        "role": "assistant",
        "id": f"msg_{number}",
        "stop_reason": stop_reason,
        "content": content,
    }


def test_decide_holds_a_prefilled_calls_reply_against_its_decision_as_check_does(tmp_path: Path) -> None:
    """A call whose request ended with the caller's prefill ("It is", answered " sunny.") recorded the decision of
    the two together ("It is sunny."): decide agrees with it, as check does, and says the prefill explains why the
    reply alone decides "sunny.", where it said the recorded decision differs in its reason."""
    base = {"model": "claude-test", "max_tokens": 64}
    asked = {"role": "user", "content": "Weather?"}
    call = {"request": {**base, "messages": [asked, {"role": "assistant", "content": "It is"}]}}
    path = tmp_path / "prefilled.jsonl"
    path.write_text(json.dumps({**call, "response": _text_reply(0, " sunny.")}) + "\n", encoding="utf-8")
    [report] = as_json("check", str(path), code=0)
    assert report["findings"] == []  # type: ignore[index]
    [row] = as_json("decide", str(path))  # type: ignore[misc]
    assert (row["decision"]["reason"], row["recorded"]["reason"]) == ("sunny.", "It is sunny.")
    assert (row["agrees"], row["differs"], row["prefill"]) == (True, [], "It is")
    out = " ".join(terminal("decide", str(path)).split())
    assert "agrees with the decision the run recorded, of the reply and its prefill" in out
    assert "a prefill ('It is')" in out and "differs" not in out


def test_decide_holds_a_reply_after_a_pause_turn_against_the_turn_it_went_on_with(tmp_path: Path) -> None:
    """A reply that paused (pause_turn) is sent back as the request's last turn and the next reply goes on with it:
    the step records the decision of the whole turn, and decide agrees with it as check does, naming the paused
    turn's words as the prefill, where it said the reason differs."""
    base = {"model": "claude-test", "max_tokens": 64}
    asked = {"role": "user", "content": "Weather?"}
    paused = _text_reply(0, "Searching.", "pause_turn")
    calls = [
        {"request": {**base, "messages": [asked]}, "response": paused},
        {"request": {**base, "messages": [asked, {"role": "assistant", "content": paused["content"]}]},
         "response": _text_reply(1, "It is sunny.")},
    ]  # fmt: skip
    path = tmp_path / "paused.jsonl"
    path.write_text("".join(json.dumps(call) + "\n" for call in calls), encoding="utf-8")
    [report] = as_json("check", str(path), code=0)
    assert report["findings"] == []  # type: ignore[index]
    rows = as_json("decide", str(path))
    assert isinstance(rows, list) and [row["compared"] for row in rows] == [False, True]
    assert (rows[1]["agrees"], rows[1]["prefill"]) == (True, "Searching.")
    assert rows[1]["recorded"]["reason"].startswith("Searching.") and rows[1]["decision"]["reason"] == "It is sunny."


# ---------------------------------------------------------------------------- check


def test_check_finds_a_tool_use_naming_a_tool_its_request_did_not_offer(tmp_path: Path) -> None:
    """A reply whose tool use names a tool the request did not offer (nonexistent_tool), which the agent answered as
    an error, is an unoffered-tool warning at its step and line naming the tools offered and the status answered,
    where check said the run was clean; a tool use of a tool offered is none."""
    tools = [{"name": "get_weather", "input_schema": {"type": "object"}}]
    asked = {"role": "user", "content": "Weather?"}
    request = {"model": "claude-test", "max_tokens": 64, "tools": tools, "messages": [asked]}
    use = {"type": "tool_use", "id": "toolu_0", "name": "nonexistent_tool", "input": {}}
    reply = {"type": "message", "role": "assistant", "id": "msg_0", "stop_reason": "tool_use", "content": [use]}
    result = {"type": "tool_result", "tool_use_id": "toolu_0", "content": "unknown tool", "is_error": True}
    after = {
        **request,
        "messages": [asked, {"role": "assistant", "content": [use]}, {"role": "user", "content": [result]}],
    }
    done = {"type": "message", "role": "assistant", "id": "msg_1", "stop_reason": "end_turn", "content": [
        {"type": "text", "text": "Sorry."}]}  # fmt: skip
    path = tmp_path / "calls.jsonl"
    lines = [{"request": request, "response": reply}, {"request": after, "response": done}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    [report] = as_json("check", str(path), code=0)
    [finding] = report["findings"]  # type: ignore[index]
    assert (finding["code"], finding["severity"], finding["step"], finding["line"]) == (
        "unoffered-tool", "warning", 0, 1
    )  # fmt: skip
    assert "'nonexistent_tool'" in finding["message"] and "(it offered 'get_weather')" in finding["message"]
    assert finding["message"].endswith("invalid_decision; this run answered it with status 'error'")
    use["name"] = "get_weather"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert as_json("check", str(path), code=0)[0]["findings"] == []  # type: ignore[index]


def test_check_exit_codes_clean_findings_unreadable(tmp_path: Path) -> None:
    """check exits 0 on a clean run or one with warnings only (1 with --strict), 1 with errors, 2 when any file
    cannot be read (and still reports the rest, the unreadable one once, among them)."""
    clean = tmp_path / "clean.jsonl"
    write_run(clean_run(), clean)
    assert run_cli("check", str(clean))[0] == 0
    assert run_cli("check", str(clean), "out-of-steps")[0] == 0
    assert run_cli("check", "--strict", str(clean), "out-of-steps")[0] == 1
    cut = tmp_path / "cut.jsonl"
    cut.write_text(clean.read_text(encoding="utf-8") + '{"type": "step", "ind', encoding="utf-8")
    assert run_cli("check", str(cut))[0] == 1
    missing = str(tmp_path / "missing.jsonl")
    # laid out wider than any temporary path, which would otherwise wrap the line at a width its length decides
    code, out, err = run_cli("check", str(clean), "out-of-steps", missing, "--color", "never", "--width", "1000")
    assert code == 2 and err == ""
    assert "clean" in out and "summary-longer" in out and out.count("missing.jsonl: no such file") == 1


def test_show_and_check_say_a_run_file_whose_header_line_is_lost_is_one(tmp_path: Path) -> None:
    """A run file whose first line is a step record, its header line lost, is said to be a run file that must start
    with its 'run' header, at line 1: ``show`` in one line on stderr, ``check`` in the file's report, each exit 2,
    where both listed every format ``load`` tried."""
    path = tmp_path / "headless.jsonl"
    path.write_bytes(b"".join(samples.path("fix-failing-test").read_bytes().splitlines(keepends=True)[1:]))
    said = (
        f"{path}:1: missing run header: a run file whose first line is a 'step' record, not the 'run' header it must "
        "start with (its header line was lost, or never written)"
    )
    assert run_cli("show", str(path)) == (2, "", f"agentrender: {said}\n")
    code, out, err = run_cli("check", str(path), "--json")
    assert (code, err) == (2, "") and [report["error"] for report in json.loads(out)] == [said]
    code, out, err = run_cli("check", str(path), "--width", "1000")
    assert (code, err) == (2, "") and out == f"{path}  unreadable: {said}\n"


def test_check_finds_orphan_calls_api_rejections_and_load_warnings(tmp_path: Path) -> None:
    """A call for no step, a tool_use input that is not an object and an unknown field are each reported."""
    base = clean_run()
    odd = Step(
        index=1,
        decision=Decision(kind="tool_call", tool="bad name!", args=[1, 2]),
        observation=Observation(content="x", summary="x"),
    )
    orphan = ModelCall(step=7, response=base.model_calls[0].response)
    run = Run(header=base.header, steps=(*base.steps, odd), model_calls=(*base.model_calls, orphan))
    path = tmp_path / "odd.jsonl"
    write_run(run, path)
    with path.open("a", encoding="utf-8") as file:
        file.write(json.dumps({"type": "step", "index": 2, "decision": None, "mystery": 1}) + "\n")
    reports = as_json("check", str(path), code=1)
    findings = reports[0]["findings"]  # type: ignore[index]
    codes = {(f["code"], f["step"]) for f in findings}
    severities = {f["code"]: f["severity"] for f in findings}
    assert severities == {"orphan-call": "warning", "api-reject": "error", "load-warning": "warning"}
    assert ("orphan-call", 7) in codes
    assert ("api-reject", 1) in codes
    messages = [f["message"] for f in findings if f["code"] == "api-reject"]
    assert any("input must be an object" in m for m in messages) and any("tool name" in m for m in messages)
    warning = next(f for f in findings if f["code"] == "load-warning")
    last_line = len(path.read_text(encoding="utf-8").splitlines())
    assert warning["line"] == last_line and "step.mystery" in warning["message"]


def test_check_holds_no_request_rule_against_the_reply_an_imported_conversation_ends_on(tmp_path: Path) -> None:
    """An imported conversation that ends on a reply calling a tool (an agent's last call, run and never answered in
    the history) ends on a turn that was received, not sent: no request holds it, so check finds nothing there; a
    tool use left unanswered before a later request is still one the API refuses."""

    def message(role: str, content: list[dict[str, object]]) -> dict[str, object]:
        return {"role": role, "content": content}

    use = {"type": "tool_use", "id": "t1", "name": "submit", "input": {"answer": "42"}}
    ended = tmp_path / "ended.json"
    ended.write_text(json.dumps({"model": "m", "messages": [message("user", [{"type": "text", "text": "go"}]),
                                                            message("assistant", [use])]}))  # fmt: skip
    assert as_json("check", str(ended))[0]["findings"] == []  # type: ignore[index]
    unanswered = tmp_path / "unanswered.json"
    unanswered.write_text(json.dumps({"model": "m", "messages": [
        message("user", [{"type": "text", "text": "go"}]), message("assistant", [use]),
        message("user", [{"type": "text", "text": "And?"}]), message("assistant", [{"type": "text", "text": "Done."}]),
    ]}))  # fmt: skip
    findings = as_json("check", str(unanswered), code=1)[0]["findings"]  # type: ignore[index]
    (refused,) = [f["message"] for f in findings if f["code"] == "api-reject"]
    assert refused.startswith("message #2: the tool uses ['t1'] of the turn before must be answered first")


def test_check_reports_each_load_warning_at_its_line_with_its_count(tmp_path: Path) -> None:
    """A load warning given by several records is one finding on the first one's line, saying how many more."""
    base = samples.load("fix-failing-test")
    path = tmp_path / "odd.jsonl"
    write_run(replace(base, end=None, records=()), path)
    first = len(path.read_text(encoding="utf-8").splitlines()) + 1
    with path.open("a", encoding="utf-8") as file:
        for index in (50, 51):
            file.write(json.dumps({"type": "step", "index": index, "decision": None, "mystery": 1}) + "\n")
    reports = as_json("check", str(path), code=0)
    warnings = [f for f in reports[0]["findings"] if f["code"] == "load-warning"]  # type: ignore[index]
    assert warnings == [
        {
            "code": "load-warning",
            "severity": "warning",
            "step": None,
            "line": first,
            "file": None,  # the line is the run file's own
            "message": "unknown field step.mystery kept (not loaded into the typed fields)"
            " (and 1 more record(s) like it)",
        }
    ]


# ---------------------------------------------------------------------------- errors


BROKEN = '{"type": "run", "run_id": "r"}\n{"type": "step", "index": "three"}\n'


@pytest.mark.parametrize(
    "command", [("show",), ("steps",), ("decide",), ("check",), ("context",), ("keys",), ("show", "--json")]
)
def test_a_broken_run_file_is_one_line_naming_file_and_line(tmp_path: Path, command: tuple[str, ...]) -> None:
    """Every command given a broken run file prints one line with the file, the line and what, and exits 2."""
    path = tmp_path / "broken.jsonl"
    path.write_text(BROKEN, encoding="utf-8")
    # laid out wider than any temporary path, which would otherwise wrap check's report at a width its length decides
    code, out, err = run_cli(command[0], str(path), *command[1:], "--width", "1000")
    assert code == 2
    said = f"{path}:2: $.index: expected `int`, got `str`"
    if command[0] == "check":  # check reports every file it was given among the others, the unreadable ones too
        assert err == "" and "unreadable" in out and out.count(f"{path.name}:2: $.index") == 1
    else:
        assert (err, out) == (f"agentrender: {said}\n", "")


@pytest.mark.parametrize("compress", [False, True], ids=["jsonl", "gzip"])
@pytest.mark.parametrize(
    "command", [("steps",), ("context",), ("keys",), ("decide",), ("show", "--json"), ("steps", "--json")]
)
def test_every_command_says_on_stderr_where_a_cut_file_lost_records(
    tmp_path: Path, command: tuple[str, ...], compress: bool
) -> None:
    """A run file cut in its last line (plain, or a gzip stream that ends early) makes every command print its output
    of what was read and, on stderr, the file, line and what was lost, one line each, as show lists them."""
    whole = tmp_path / "whole.jsonl"
    write_run(samples.load("fix-failing-test"), whole)
    data = whole.read_bytes()
    cut_at = data.rindex(b"\n", 0, len(data) - 1) + 20  # 20 bytes into the last line
    path = tmp_path / ("cut.jsonl.gz" if compress else "cut.jsonl")
    path.write_bytes(gzip.compress(data[:cut_at])[:-8] if compress else data[:cut_at])  # -8: no gzip trailer
    code, out, err = run_cli(command[0], str(path), *command[1:], "--width", WIDTH)
    lines = data[:cut_at].count(b"\n") + 1
    assert code == 0 and out
    if "--json" in command:
        json.loads(out)
    said = err.splitlines()
    assert len(said) == 1 + compress
    assert all(line.startswith(f"agentrender: warning: {path}:{lines}: ") for line in said)
    assert "the last line is cut short" in said[0] and ("the gzip stream ends early" in err) == compress


WARNED = (
    '{"type": "run", "format": "agentrender.run/1", "run_id": "w", "goal": "List."}\n'
    '{"type": "step", "index": 0, "decision": {"kind": "tool_call", "tool": "ls", "args": {}}, '
    '"observation": {"status": "ok", "content": "a.txt", "summary": "1 file"}, "mood": "calm"}\n'
    '{"type": "checkpoint", "at": 1}\n'
    '{"type": "step", "ind'
)
"""A run file of three warnings: an unknown field kept (line 2), an unknown record kept (3), a cut line lost (4)."""


@pytest.mark.parametrize(
    "command",
    [("steps", "--json"), ("steps", "--csv"), ("context", "--json"), ("keys", "--json"), ("decide", "--json")],
)
def test_an_output_a_program_reads_as_a_list_or_csv_says_every_warning_on_stderr(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    """A list of JSON or CSV has no place for a run's warnings: stderr says every one, one line each with the file
    and line (what was kept but not loaded too, not only what was lost), and stdout keeps its shape. Before, only the
    lost line was said, and the others were nowhere a program could read."""
    path = tmp_path / "warned.jsonl"
    path.write_text(WARNED, encoding="utf-8")
    code, out, err = run_cli(command[0], str(path), *command[1:])
    assert code == 0 and (isinstance(json.loads(out), list) if "--json" in command else out.startswith("index,"))
    warned = err.splitlines()
    if command[0] == "decide":  # its file holds no reply: said last, as decide --json says it of every such run
        assert warned.pop().startswith(f"agentrender: {path}: no model replies were captured in this run: "), err
    assert [line.split(": ", 3)[2] for line in warned] == [f"{path}:{line}" for line in (2, 3, 4)], err
    assert "unknown field step.mood kept" in err and "unknown record type 'checkpoint' kept" in err
    _, terminal, said = run_cli(command[0], str(path))  # a table's reader sees only what the file lost on stderr
    assert terminal and said.splitlines() == warned[2:], said


def test_an_output_that_is_one_object_holds_every_warning_as_a_run_file_keeps_them(tmp_path: Path) -> None:
    """show --json (one object) holds the run's warnings in ``warnings``, each as a run file's header keeps it
    (path, line, text; ``lost`` for what was not loaded), as the terminal lists them above the view, and stderr
    still says what was lost; import --json gives each run's so too. Before, show --json held none of them, and
    import --json gave each as a line of text."""
    path = tmp_path / "warned.jsonl"
    path.write_text(WARNED, encoding="utf-8")
    code, out, err = run_cli("show", str(path), "--json")
    warnings = json.loads(out)["warnings"]
    assert code == 0 and [(w["path"], w["line"], w.get("lost", False)) for w in warnings] == [
        (str(path), 2, False),
        (str(path), 3, False),
        (str(path), 4, True),
    ], warnings
    assert warnings[0]["text"] == "unknown field step.mood kept (not loaded into the typed fields)"
    assert err.splitlines() == [f"agentrender: warning: {path}:4: {warnings[2]['text']}"]
    code, out, _ = run_cli("import", CLAUDE_TRACE, "-o", str(tmp_path / "port.jsonl"), "--json")
    [written] = json.loads(out)
    assert code == 0 and written["warnings"] and all(set(w) >= {"path", "line", "text"} for w in written["warnings"])
    assert written["warnings"] == json.loads(run_cli("show", str(tmp_path / "port.jsonl"), "--json")[1])["warnings"]


@pytest.mark.parametrize(
    "source",
    [
        "claude-code/jessitron-claude-log/episode-8-before.jsonl",
        "claude-trace/hanqunfeng-claude-trace/log-2026-06-15-09-15-50.jsonl",
    ],
    ids=["claude-code", "call-log"],
)
def test_a_gzipped_history_cut_short_says_its_loss_where_its_text_ends(tmp_path: Path, source: str) -> None:
    """A gzipped Claude Code session or call log whose stream ends early in its last line says, as a cut run file
    does, at the line its text ends on, both that the stream ended early and that its cut last line was lost (the
    stream's end was said at line 1, and the session's cut line was no loss)."""
    data = (ROOT / "tests" / "fixtures" / "real" / source).read_bytes()
    cut_at = data.rindex(b"\n", 0, len(data) - 1) + 20  # 20 bytes into the last line
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(gzip.compress(data[:cut_at])[:-8])  # -8: no gzip trailer
    lines = data[:cut_at].count(b"\n") + 1
    code, out, err = run_cli("steps", str(path), "--width", WIDTH)
    assert code == 0 and out
    said = [line for line in err.splitlines() if line.startswith("agentrender: warning: ")]
    assert len(said) == 2, err
    assert all(line.startswith(f"agentrender: warning: {path}:{lines}: ") for line in said), err
    assert "the last line is cut short" in err and "the gzip stream ends early" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("show", "no-such-sample"), "no-such-sample: no such file, and no bundled sample of that name"),
        (("show", "missing/run.jsonl"), "missing/run.jsonl: no such file"),
        (
            ("show", "fix-failing-test", "--at", "99"),
            "--at 99: step 99 is past the run: its steps end at 7, so a view is taken at 0 to 8 (8: after",
        ),
        (("decide", "fix-failing-test", "--step", "42"), "no model call was captured for step 42"),
        (("decide", "missing.json"), "missing.json: no such file"),
        (("show", "tests"), "tests: a folder, not a run file"),
    ],
)
def test_bad_arguments_are_one_line_and_exit_2(argv: tuple[str, ...], message: str) -> None:
    """A missing file, an unknown sample, a step past the run: one line on stderr, exit 2, nothing on stdout."""
    code, out, err = run_cli(*argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err, err


@pytest.mark.parametrize("name", ["x.eval", "x.jsonl.gz", "x.jsonl", "MISSING.JSONL", "X.EVAL", "x.Jsonl.GZ", "X.JSON"])
def test_a_missing_file_named_as_a_readers_file_is_no_sample(name: str) -> None:
    """A missing file whose name ends as the files the readers take (an Inspect ``.eval`` log among them), in any case,
    is said to be missing, never looked up as a bundled sample: ``x.eval``, then ``MISSING.JSONL``, said "no such file,
    and no bundled sample of that name"."""
    code, out, err = run_cli("show", name)
    assert (code, out, err) == (2, "", f"agentrender: {name}: no such file\n")


def test_a_reply_file_that_is_not_json_names_its_line(tmp_path: Path) -> None:
    """decide REPLY.json with broken JSON names the file, the line and the column as FILE:LINE:COLUMN:, as a history
    of broken JSON is named (a comma before a closing bracket where the comma stands), and a reply cut short says it
    breaks off; it said 'FILE:2: not JSON: ... at column 14'."""
    path = tmp_path / "reply.json"
    path.write_text('{\n  "content": [,]\n}\n', encoding="utf-8")
    code, _, err = run_cli("decide", str(path))
    assert code == 2 and err.startswith(f"agentrender: {path}:2:15: not valid JSON: Expecting value"), err
    path.write_text('{"role": "assistant",\n  "content": [{"type": "text", "text": "x"},\n]}\n', encoding="utf-8")
    code, _, err = run_cli("decide", str(path))
    expected = f"agentrender: {path}:2:44: not valid JSON: a comma before the closing ']' on line 3, where no value"
    assert code == 2 and err.startswith(expected), err
    path.write_text('{"role": "assistant", "content": [{"type": "te', encoding="utf-8")
    code, _, err = run_cli("decide", str(path))
    assert code == 2 and err.startswith(f"agentrender: {path}:1: the line breaks off"), err


# ---------------------------------------------------------------------------- as a user runs it


_CTRL_C_AT_START = """\
import os, signal
os.kill(os.getpid(), signal.SIGINT)  # a Ctrl-C while Python imports the command line (it imports argparse)
raise AssertionError("the Ctrl-C was not delivered")
"""
"""A stand-in for ``argparse``, which ``agentrender.cli`` imports as it starts and ``import agentrender`` does not: it
sends its own process a Ctrl-C, which so lands inside the command's start-up import every time."""


def _console_script() -> list[str]:
    """The command the ``agentrender`` console script runs: the function ``[project.scripts]`` names, called as pip's
    generated script calls it (``sys.exit(main())``)."""
    import tomllib

    target = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["scripts"]["agentrender"]
    module, function = target.split(":")
    return [sys.executable, "-c", f"import sys; from {module} import {function}; sys.exit({function}())"]


@pytest.mark.parametrize("started", ["python -m agentrender", "the console script"])
def test_a_ctrl_c_while_the_command_starts_ends_it_quietly_with_130(tmp_path: Path, started: str) -> None:
    """A Ctrl-C while Python imports the command line (its first moments) ends it as a Ctrl-C as the command starts
    does: status 130 and no traceback, for ``python -m agentrender`` and the console script alike."""
    (tmp_path / "argparse.py").write_text(_CTRL_C_AT_START, "utf-8")
    command = [sys.executable, "-m", "agentrender"] if started.startswith("python") else _console_script()
    done = subprocess.run(
        [*command, "steps", "fix-failing-test"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as a terminal starts it
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (130, "", ""), done.stderr


def subprocess_cli(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    """``python -m agentrender argv`` in a fresh process, from the checkout."""
    return subprocess.run(
        [sys.executable, "-m", "agentrender", *argv],
        cwd=ROOT,
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
        timeout=120,
        check=False,
    )


@pytest.mark.slow
def test_python_m_agentrender_show_runs_as_a_user_runs_it() -> None:
    """python -m agentrender show fix-failing-test prints the view (no colour when piped) and exits 0."""
    done = subprocess_cli("show", "fix-failing-test")
    assert done.returncode == 0 and done.stderr == b""
    text = done.stdout.decode("utf-8")
    assert "\x1b" not in text
    assert "fix-failing-test" in text and "step 7 · finish" in text and "full result" in text


def terminal_cli(*argv: str, env: dict[str, str], columns: int = 90) -> tuple[int, str, str]:
    """``python -m agentrender argv`` in a fresh process with its stdin and stdout on a terminal (a pseudo-terminal
    ``columns`` wide): its exit status, what the terminal showed (``\\r\\n`` as ``\\n``) and stderr."""
    screen, child = pty.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    with subprocess.Popen(
        [sys.executable, "-m", "agentrender", *argv],
        cwd=ROOT,
        stdin=child,
        stdout=child,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
    ) as process:
        os.close(child)
        shown = bytearray()
        with contextlib.suppress(OSError):  # EIO once the command has closed the terminal
            while chunk := os.read(screen, 1 << 16):
                shown += chunk
        os.close(screen)
        assert process.stderr is not None
        err = process.stderr.read().decode("utf-8")
        code = process.wait(timeout=120)
    return code, shown.decode("utf-8").replace("\r\n", "\n"), err


@pytest.mark.slow
@pytest.mark.parametrize(("name", "value", "unit"), [("COLUMNS", "²", "columns"), ("LINES", "²", "lines"),
                                                     ("COLUMNS", "٣", "columns"), ("LINES", "0", "lines")])  # fmt: skip
def test_a_columns_or_lines_that_is_not_a_number_is_ignored_with_one_line(name: str, value: str, unit: str) -> None:
    """``COLUMNS`` or ``LINES`` set to what is not a plain positive number (``COLUMNS=² agentrender show ...``) is
    ignored with one line on stderr, piped and on a terminal, and the command runs at the width it would without
    it; rich raised an internal error on a superscript digit before."""
    said = f"agentrender: {name}={value!r} is not a number of {unit}; ignored\n"
    piped = subprocess_cli("show", "fix-failing-test", env={name: value})
    assert (piped.returncode, piped.stderr.decode("utf-8")) == (0, said), piped.stderr
    text = piped.stdout.decode("utf-8")
    assert "step 7 · finish" in text and max(map(len, text.splitlines())) == 100, text
    code, shown, err = terminal_cli("show", "fix-failing-test", env={name: value}, columns=90)
    assert (code, err) == (0, said), err
    plain = re.sub(r"\x1b\[[0-9;]*m", "", shown)
    assert "\x1b" in shown and "step 7 · finish" in plain and max(map(len, plain.splitlines())) == 90, shown


@pytest.mark.slow
def test_subprocess_exit_codes_and_one_line_errors(tmp_path: Path) -> None:
    """In a fresh process: check exits 1 on warnings under --strict, a broken file exits 2 with one line and no
    traceback."""
    assert subprocess_cli("check", "--strict", "out-of-steps").returncode == 1
    path = tmp_path / "broken.jsonl"
    path.write_text(BROKEN, encoding="utf-8")
    done = subprocess_cli("show", str(path))
    assert done.returncode == 2 and done.stdout == b""
    assert b"Traceback" not in done.stderr and done.stderr.count(b"\n") == 1


def test_a_bare_agentrender_lists_the_commands_as_its_help_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """agentrender with no command prints its usage, every command with what it does (as --help and a bare git list
    them) and what to give, on stderr, exit 2 as any usage error; before, it said only "the following arguments are
    required: COMMAND"."""
    monkeypatch.setenv("COLUMNS", "100")
    code, out, err = run_cli()
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert lines[0] == "usage: agentrender [-h] [--version] COMMAND ..." and "commands:" in lines
    listed = dict(re.findall(r"^  ([a-z]+) +(\S.*)$", err, re.MULTILINE))
    assert listed["show"] == "the model's view at a step, as chat turns"
    assert set(listed) == set(build_parser()._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
    assert lines[-1] == "agentrender: error: give a COMMAND (agentrender COMMAND --help says what one takes)"


@pytest.mark.slow
def test_every_command_has_help_text() -> None:
    """--help of the program and of every command exits 0 and describes the command."""
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert set(commands) == {
        "show",
        "steps",
        "decide",
        "check",
        "context",
        "keys",
        "export",
        "samples",
        "import",
        "runs",
        "html",
        "schema",
    }
    for name, sub in commands.items():
        text = sub.format_help()
        assert "--json" in text and len(sub.description or "") > 40, name
    done = subprocess_cli("--help")
    assert done.returncode == 0 and b"exit status" in done.stdout


@pytest.mark.slow
def test_without_rich_a_command_prints_the_install_line() -> None:
    """With rich missing, a command says so with the exact pip line and exits 2; --help still works."""
    code = "import sys; sys.modules['rich'] = None\nfrom agentrender.cli import main\nsys.exit(main(sys.argv[1:]))\n"
    done = subprocess.run(
        [sys.executable, "-c", code, "samples"],
        cwd=ROOT,
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.decode().strip() == (
        "agentrender: agentrender.cli needs rich, which is not installed: pip install 'agentrender[cli]'"
    )
    helped = subprocess.run(
        [sys.executable, "-c", code, "show", "--help"],
        cwd=ROOT,
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
        check=False,
    )
    assert helped.returncode == 0 and b"--recent-results" in helped.stdout


def test_each_command_imports_only_the_modules_it_uses() -> None:
    """In a fresh process, ``show`` of a sample imports no importer, recorder, frame, nor another command's module;
    ``check`` after it adds its own module only, and ``steps`` the tables and the frames they are made of."""
    code = (
        "import io, sys\n"
        "from agentrender.cli import main\n"
        "for command in ('show', 'check', 'steps'):\n"
        "    main([command, 'fix-failing-test'], stdout=io.StringIO(), stderr=io.StringIO())\n"
        "    print(' '.join(sorted(m for m in sys.modules if m.startswith('agentrender'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True
    )
    show, check, steps = (set(line.split()) for line in done.stdout.splitlines())
    importers = ("anthropic", "claude_code", "conversation", "inspect", "inspect_log", "openai", "responses")
    others = {
        *(f"agentrender.imports.{name}" for name in importers),
        *(f"agentrender.cli._{name}" for name in ("check", "decide", "follow", "html", "import", "tables")),
        "agentrender.recording",
        "agentrender.frame",
        "agentrender.html",
    }
    assert "agentrender.cli._show" in show and show & others == set()
    assert check - show == {"agentrender.cli._check"}
    assert {"agentrender.cli._tables", "agentrender.frame"} <= steps - check
    assert steps & {f"agentrender.imports.{name}" for name in importers} == set()


@pytest.mark.parametrize("argv", [["--help"], ["show", "--help"], ["context", "--help"]])
def test_the_help_imports_no_views(argv: list[str]) -> None:
    """In a fresh process, ``agentrender --help`` (and a command's, which lists the terms of its output) imports none
    of ``agentrender.views``: the help's words are the base floor's, and a user asking for help waits for no view."""
    code = (
        "import io, sys\n"
        "from agentrender.cli import main\n"
        "try:\n"
        f"    main({argv!r}, stdout=io.StringIO(), stderr=io.StringIO())\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('agentrender'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True
    )
    loaded = set(done.stdout.splitlines()[-1].split())  # under the help argparse printed
    assert "agentrender.cli" in loaded and {m for m in loaded if m.startswith("agentrender.views")} == set()


def test_the_console_script_is_declared() -> None:
    """pyproject.toml installs the agentrender command as agentrender.__main__:main, what python -m agentrender runs (it
    imports the CLI itself, so that a Ctrl-C as it does ends it quietly)."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["scripts"]["agentrender"] == "agentrender.__main__:main"
    assert any(dep.startswith("rich") for dep in project["optional-dependencies"]["cli"])


def test_decide_json_writes_raw_argument_bytes_as_a_run_file_does_and_reads_them_back(tmp_path: Path) -> None:
    """decide --json gives a reply's non-UTF-8 argument bytes as input_base64; that reply, read back from a file,
    decides as the run recorded."""
    [row] = as_json("decide", "malformed-replies", "--step", "5")  # type: ignore[misc]
    [use] = [block for block in row["reply"]["content"] if block["type"] == "tool_use"]
    assert "input" not in use and use["input_base64"] == row["recorded"]["invalid_args"]
    reply = tmp_path / "reply.json"
    reply.write_text(json.dumps(row["reply"]), encoding="utf-8")
    [again] = as_json("decide", str(reply))  # type: ignore[misc]
    assert again["decision"] == row["recorded"] and again["args"] == "invalid_base64"


def test_check_lists_the_first_findings_of_a_kind_and_counts_them_all(tmp_path: Path) -> None:
    """The terminal lists SHOWN_PER_KIND findings of a kind and says how many there are; --json gives every one."""
    from agentrender.cli._check import SHOWN_PER_KIND

    many = SHOWN_PER_KIND + 5
    steps = tuple(
        Step(
            index=i,
            decision=Decision(kind="tool_call", tool="read_file", args={"path": f"f{i}.py"}, reason="Read it."),
            observation=Observation(content=f"file {i}", summary=""),
        )
        for i in range(many)
    )
    path = tmp_path / "unsummarised.jsonl"
    header = {"type": "run", "format": "agentrender.run/1", "run_id": "u", "goal": "Read."}
    write_run(Run(header=header, steps=steps), path)
    status, out, _ = run_cli("check", str(path), "--width", WIDTH, "--color", "never")
    assert status == 0
    assert out.count("no-summary") == SHOWN_PER_KIND + 1  # the rows listed, and the count line
    assert f"{many:,} \u00d7 no-summary (warning): " in out and f"(the first {SHOWN_PER_KIND} are listed; --json" in out
    (report,) = as_json("check", str(path), code=0)  # type: ignore[misc]
    assert report["counts"] == {"no-summary": many} and len(report["findings"]) == many


def test_decide_step_out_of_range_names_the_steps_that_have_replies() -> None:
    """decide --step K for a step with no captured reply says which steps have one, as ranges."""
    code, out, err = run_cli("decide", "fix-failing-test", "--step", "99")
    assert (code, out) == (2, "")
    assert err.rstrip().endswith("no model call was captured for step 99; --step takes a step with one: 0-7")


def test_counts_are_said_in_words_with_their_plural() -> None:
    """One of a thing is singular and several plural: '1 reply', '2 times', never '1 replies'."""
    _, out, _ = run_cli("decide", "malformed-replies", "--step", "3", "--color", "never")
    assert "1 reply ·" in out and "1 replies" not in out
    _, out, _ = run_cli("context", "malformed-replies", "--color", "never", "--width", "200")
    assert "the cache prefix breaks 1 time ·" in out


def test_context_keeps_its_notes_below_80_columns() -> None:
    """context at any width says where the cache prefix broke: below the width its table and a note column need, each
    note is a line under the table (at 7: step 0 left the window), where the table squeezed the note column out."""
    _, wide, _ = run_cli("context", "fix-failing-test", "--color", "never", "--width", "100")
    assert "✂ step 0 left the" in wide and "at 7:" not in wide
    for width in (71, 60, 40):
        _, out, _ = run_cli("context", "fix-failing-test", "--color", "never", "--width", str(width))
        lines = [line.rstrip() for line in out.splitlines()]
        assert "at 7: ✂ step 0 left the window" in lines and "at 8: ✂ step 1 left the window" in lines, (width, out)
        assert max(len(line) for line in lines) <= width, (width, out)
