"""The CLI on files of several runs (``--run``, ``runs``), and what every display says of a run: its end,
its warnings grouped, a media block in one line, a turn of many blocks folded, a tool use's size."""

from __future__ import annotations

import base64
import gzip
import io
import json
import re
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any

import pytest

from agentrender import imports, samples
from agentrender.cli import _tables, build_parser
from agentrender.cli._term import make_console
from agentrender.html import page
from agentrender.runfile import Run, RunWarning, write_run
from agentrender.views import NO_VALUE, Views
from tests._support import cli

ROOT = Path(__file__).resolve().parents[1]
SESSION = "tests/fixtures/imports/claude-code/7f3c2a91-5b0e-4d8a-9c61-2e4f8b7d1a05.jsonl"
"""A Claude Code session of 3 runs: the main thread (its compaction included), two sub-agents."""
MAIN = "7f3c2a91-5b0e-4d8a-9c61-2e4f8b7d1a05"
EVAL = "tests/fixtures/inspect/arith.eval"


@pytest.fixture(autouse=True)
def _in_the_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def run_cli(*argv: str) -> tuple[int, str, str]:
    """Run ``agentrender argv`` plain, 200 columns wide: its exit status, stdout and stderr."""
    return cli.run_cli(*argv, "--color", "never", "--width", "200")


def test_runs_lists_every_run_of_a_file_with_its_number_id_and_counts() -> None:
    """``runs --json`` gives one row per run of the file, in the order ``--run N`` counts them."""
    code, out, err = run_cli("runs", SESSION, "--json")
    assert (code, err) == (0, "")
    rows = json.loads(out)
    assert [row["number"] for row in rows] == [0, 1, 2]
    assert [row["run_id"] for row in rows] == [MAIN, f"{MAIN}/agent-b41e9c2", f"{MAIN}/agent-a9d07f3"]
    assert [(row["steps"], row["model_calls"]) for row in rows] == [(7, 7), (2, 2), (2, 2)]
    # the main thread's three "joined into one turn" warnings are one, beside the rewound branch's
    assert rows[0]["warnings"] == 2 and rows[0]["source"] == "claude-code, thread main"
    code, out, _ = run_cli("runs", SESSION)
    assert code == 0 and "3 runs" in out and f"{MAIN}/agent-a9d07f3" in out


def test_runs_says_which_workflow_a_workflow_agents_run_comes_from() -> None:
    """A dynamic workflow's agent is a run of the session's file, and ``runs`` names its workflow beside its thread."""
    session = (
        "tests/fixtures/real/claude-code/daaain-claude-code-log/workflow_scriptpath/"
        "22220000-0000-4000-8000-000000000002.jsonl"
    )
    if not Path(session).is_file():
        pytest.skip("the real fixtures are not in this checkout")
    code, out, _ = run_cli("runs", session, "--json")
    rows = json.loads(out)
    assert code == 0 and [row["source"] for row in rows] == [
        "claude-code, thread main",
        "claude-code, thread sidechain, workflow wf_sp01, agent id agsp0001",
    ]


def test_runs_gives_a_sub_agents_description_from_its_sidecar() -> None:
    """A sub-agent's description, which Claude Code writes beside its transcript, is in ``runs``' "from" column."""
    session = "tests/fixtures/real/claude-code/daaain-claude-code-log/55550000-0000-4000-8000-000000000001.jsonl"
    if not Path(session).is_file():
        pytest.skip("the real fixtures are not in this checkout")
    code, out, _ = run_cli("runs", session, "--json")
    assert code == 0 and [row["source"] for row in json.loads(out)][1:] == [
        "claude-code, thread sidechain, agent id showcol1, “Survey the web module”",
        "claude-code, thread sidechain, agent id showcol2, “Survey the jobs module”",
    ]


def test_runs_says_which_compaction_a_forked_agent_wrote() -> None:
    """The agent Claude Code forked to write a compaction's summary is a run of the session's file as long as the
    conversation it was sent, one model call its own, and ``runs`` names the compaction it wrote."""
    session = "tests/fixtures/real/claude-code/marot-spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl"
    if not Path(session).is_file():
        pytest.skip("the real fixtures are not in this checkout")
    code, out, _ = run_cli("runs", session, "--json")
    rows = json.loads(out)
    assert code == 0 and [(row["steps"], row["model_calls"], row["source"]) for row in rows] == [
        (152, 152, "claude-code, thread main"),
        (3, 3, "claude-code, thread sidechain, agent id a881341"),
        (
            103,
            1,
            "claude-code, thread sidechain, agent id acompact-fffbd0, wrote the compaction at line 1256 "
            "(its first 102 steps are the session's)",
        ),
    ]


def test_steps_dims_the_session_steps_a_forked_agent_holds() -> None:
    """In ``steps`` of the agent forked to write a compaction, the rows of the session's steps it was sent are dimmed
    (an error row stays red, dimmed) and the title says how many they are; the agent's own step is not dimmed."""
    session = "tests/fixtures/real/claude-code/marot-spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl"
    if not Path(session).is_file():
        pytest.skip("the real fixtures are not in this checkout")
    code, out, _ = cli.run_cli("steps", session, "--run", "2", "--color", "always", "--width", "200")
    lines = out.splitlines()
    assert code == 0 and "its first 102 steps are the session's" in lines[0]
    rows = {int(plain.split()[0]): line for line in lines[1:] if (plain := _unstyled(line).strip())[:1].isdigit()}
    assert sorted(rows) == list(range(103))
    dim = re.compile("\x1b\\[2(;[0-9]+)*m")  # dim, with the row's own colour after it
    assert [index for index, line in rows.items() if not dim.search(line)] == [102]
    errors = [index for index, line in rows.items() if " error " in _unstyled(line)]
    assert errors and all("\x1b[2;31m" in rows[index] for index in errors)
    # the session's own run holds no step it did not decide: nothing dimmed, nothing said
    code, out, _ = cli.run_cli("steps", session, "--run", "0", "--color", "always", "--width", "200")
    assert code == 0 and not dim.search(out) and "the session's" not in out


def _unstyled(line: str) -> str:
    return re.sub("\x1b\\[[0-9;]*m", "", line)


def test_check_names_the_file_of_a_finding_in_another_file_than_the_runs() -> None:
    """A run read from two files (a session and the agent forked from it) says each finding's file when it is not the
    run's own: in ``--json`` as ``file``, in the terminal before the message."""
    session = "tests/fixtures/real/claude-code/marot-spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl"
    if not Path(session).is_file():
        pytest.skip("the real fixtures are not in this checkout")
    agent = session.removesuffix(".jsonl") + "/subagents/agent-acompact-fffbd0.jsonl"
    code, out, _ = run_cli("check", session, "--run", "0", "--json")
    (report,) = json.loads(out)
    said = [(f["file"], f["line"]) for f in report["findings"] if "does not hold" in f["message"]]
    assert code == 0 and said == [(agent, 1), (agent, 2)]
    assert {f["file"] for f in report["findings"] if "white space" in f["message"]} == {None}
    code, out, _ = run_cli("check", session, "--run", "2", "--json")
    (report,) = json.loads(out)
    assert {f["file"] for f in report["findings"]} == {session, None}
    _, out, _ = run_cli("check", session, "--run", "0")
    # the path is folded over lines of the table, never cut
    assert f"{agent}:1:parentUuid:amessagethesession'sfiledoesnothold" in "".join(out.split())


@pytest.mark.parametrize("command", ["show", "steps", "context", "keys", "decide"])
def test_each_command_reads_the_run_named_by_id_or_number_and_says_which(command: str) -> None:
    """``--run`` takes a run id or a number counted from 0; stderr names the run chosen by that number, and the
    numbers the file's runs take."""
    by_number = run_cli(command, SESSION, "--run", "1", "--json")
    by_id = run_cli(command, SESSION, "--run", f"{MAIN}/agent-b41e9c2", "--json")
    assert by_number == by_id
    code, out, err = by_number
    assert code == 0 and err == f"agentrender: {SESSION}: run 1 of runs 0 to 2: {MAIN}/agent-b41e9c2\n"
    first = run_cli(command, SESSION, "--json")
    assert first[1] != out
    said = f"agentrender: {SESSION}: run 0 of runs 0 to 2: {MAIN}"
    note, *warned = first[2].splitlines()  # then the chosen run's warnings, which the JSON has no place for
    assert note == f"{said}; pick another with --run N or ID (agentrender runs lists them)"
    assert all(line.startswith(f"agentrender: warning: {SESSION}:") for line in warned), warned


CLAUDE_TRACE = "tests/fixtures/real/claude-trace/hanqunfeng-claude-trace/log-2026-06-15-09-15-50.jsonl"
"""A real claude-trace log of 4 conversations: 4 runs, the later ones named log.jsonl/1 to log.jsonl/3."""


def test_a_runs_number_is_one_number_wherever_a_user_sees_it() -> None:
    """On a real log of 4 runs, the number runs lists (its # column and --json), the number --run takes, the number
    stderr says of the run read, and the range an out-of-range --run names are the same count from 0."""
    if not (ROOT / CLAUDE_TRACE).is_file():
        pytest.skip("the real fixtures are not in this checkout")
    runs = imports.load_runs(CLAUDE_TRACE)
    code, out, _ = run_cli("runs", CLAUDE_TRACE, "--json")
    listed = [(row["number"], row["run_id"]) for row in json.loads(out)]
    assert code == 0 and listed == [(number, run.run_id) for number, run in enumerate(runs)] and len(listed) == 4
    _, table, _ = run_cli("runs", CLAUDE_TRACE)
    rows = [[line.split()[0], line.split()[-1]] for line in table.splitlines() if line[:4].strip().isdigit()]
    assert rows == [[str(number), run_id] for number, run_id in listed]
    assert "--run ID|N (N: the run's #, counted from 0)" in table
    for number, run_id in listed:
        code, out, err = run_cli("steps", CLAUDE_TRACE, "--run", str(number), "--json")
        assert code == 0 and err.startswith(f"agentrender: {CLAUDE_TRACE}: run {number} of runs 0 to 3: {run_id}\n")
        assert run_cli("steps", CLAUDE_TRACE, "--run", run_id, "--json") == (code, out, err)
    _, _, err = run_cli("steps", CLAUDE_TRACE, "--json")
    assert err.startswith(f"agentrender: {CLAUDE_TRACE}: run 0 of runs 0 to 3: {listed[0][1]}; pick another with")
    code, _, err = run_cli("steps", CLAUDE_TRACE, "--run", "4")
    assert code == 2 and "--run 4: no run of that id, nor a number from 0 to 3; the file holds 4 runs: 0: " in err


def test_runs_lists_a_number_past_999_as_run_takes_it() -> None:
    """The # column of runs shows run 1234 as 1234, what --run takes, never 1,234."""
    import io

    from agentrender.cli._tables import run_row, runs_renderable
    from agentrender.cli._term import make_console

    out = io.StringIO()
    make_console(out, width=120, color="never").print(
        runs_renderable("log.eval", [run_row(1234, samples.load("fix-failing-test"))])
    )
    row = next(line.split() for line in out.getvalue().splitlines() if "fix-failing-test" in line)
    assert row[0] == "1234" and row[-1] == "fix-failing-test" and "1,234" not in out.getvalue()


def test_a_followed_file_names_the_runs_a_run_it_does_not_hold_may_be() -> None:
    """Following a file of several runs (a log of requests, which may come to hold more) for a run it does not hold
    waits saying for which run and what the file holds so far: the numbers from 0 and the runs; a number in range
    follows that run."""
    if not (ROOT / CLAUDE_TRACE).is_file():
        pytest.skip("the real fixtures are not in this checkout")
    from agentrender.imports.following import follower

    tracker = follower(CLAUDE_TRACE, "4")
    assert tracker.poll() is None and tracker.waiting_for == "4"
    assert tracker.waiting.startswith("the file holds so far 4 runs: 0: log-")
    growth = follower(CLAUDE_TRACE, "3").poll()
    assert growth is not None and growth.run.run_id == imports.load_runs(CLAUDE_TRACE)[3].run_id


def test_show_of_the_chosen_run_is_that_run() -> None:
    """``show --run`` shows the run named, not the file's first."""
    code, out, _ = run_cli("show", SESSION, "--run", "2", "--json")
    assert code == 0 and json.loads(out)["run_id"] == f"{MAIN}/agent-a9d07f3"


def test_a_run_the_file_does_not_hold_is_one_line_listing_what_it_holds() -> None:
    """A ``--run`` that is neither an id of the file nor a number in range exits 2 and lists the runs."""
    for which in ("3", "nope"):
        code, out, err = run_cli("show", SESSION, "--run", which)
        assert code == 2 and out == ""
        assert err.startswith(f"agentrender: {SESSION}: --run {which}: no run of that id, nor a number from 0 to 2")
        assert f"the file holds 3 runs: 0: {MAIN}, 1: {MAIN}/agent-b41e9c2" in err
        assert err.count("\n") == 1


def test_a_file_of_one_run_says_nothing_of_runs() -> None:
    """A file of one run is read as before: no note on stderr; ``--run 0`` and its id name it."""
    assert run_cli("show", "fix-failing-test", "--json")[2] == ""
    run_id = samples.load("fix-failing-test").run_id
    assert run_cli("show", "fix-failing-test", "--run", run_id, "--json")[2] == ""
    assert run_cli("show", "fix-failing-test", "--run", "0", "--json")[0] == 0


def test_check_names_the_run_it_checked_in_each_file() -> None:
    """``check --run`` checks that run of the file, and its report names it."""
    code, out, _ = run_cli("check", SESSION, EVAL, "--run", "1", "--json")
    assert code == 0
    reports = json.loads(out)
    assert [report["run_id"] for report in reports] == [f"{MAIN}/agent-b41e9c2", "arith/sum3/1"]
    assert reports[0]["chosen"] == f"run 1 of runs 0 to 2: {MAIN}/agent-b41e9c2"
    _, out, _ = run_cli("check", SESSION, "--run", "0")
    assert f"(run 0 of runs 0 to 2: {MAIN})" in out


def test_check_of_a_file_of_several_runs_checks_every_run_and_says_which_it_picked_with_run() -> None:
    """``check`` of a file of several runs checks every run (stderr says nothing of a run picked); ``--run`` checks
    the one it names and stderr says which, as every command does."""
    code, out, err = run_cli("check", SESSION, EVAL, "--json")
    assert (code, err) == (0, "")
    every = [run.run_id for name in (SESSION, EVAL) for run in imports.load_runs(name)]
    assert [report["run_id"] for report in json.loads(out)] == every
    assert (
        run_cli("check", SESSION, "--run", "1", "--json")[2]
        == f"agentrender: {SESSION}: run 1 of runs 0 to 2: {MAIN}/agent-b41e9c2\n"
    )


def _broken_third_run(tmp_path: Path) -> Path:
    """A copy of ``SESSION`` whose third run (its second sub-agent, a transcript of its own) ends on a line cut
    short: a lost record, an error of that run alone."""
    folder = Path(SESSION).with_suffix("")
    copy = tmp_path / Path(SESSION).name
    copy.write_bytes(Path(SESSION).read_bytes())
    agents = tmp_path / folder.name / "subagents"
    agents.mkdir(parents=True)
    agent = folder / "subagents" / "agent-a9d07f3.jsonl"
    (agents / agent.name).write_bytes(agent.read_bytes()[:-40])
    return copy


def test_check_all_checks_every_run_of_each_file() -> None:
    """``check --all`` (what ``check`` does anyway) gives a report for each run of each file (a session and its
    sub-agents, an eval log's samples), each naming its run, and exits on the worst of them; it cannot be asked with
    ``--run``."""
    code, out, _ = run_cli("check", SESSION, EVAL, "--all", "--json")
    reports = json.loads(out)
    every = [run.run_id for name in (SESSION, EVAL) for run in imports.load_runs(name)]
    assert [report["run_id"] for report in reports] == every and len(every) > 3
    assert [report["chosen"] for report in reports[:3]] == [
        f"run {number} of runs 0 to 2: {run_id}" for number, run_id in enumerate(every[:3])
    ]
    alone = [json.loads(run_cli("check", SESSION, "--run", str(n), "--json")[1])[0] for n in range(3)]
    assert [report["findings"] for report in reports[:3]] == [report["findings"] for report in alone]
    codes = [
        run_cli("check", name, "--run", run.run_id)[0] for name in (SESSION, EVAL) for run in imports.load_runs(name)
    ]
    assert code == max(codes)
    _, out, _ = run_cli("check", SESSION, "--all")
    assert "3 runs checked in 1 file:" in out and "pick another with --run" not in out
    with pytest.raises(SystemExit) as refused:
        cli.main(["check", SESSION, "--all", "--run", "1"])
    assert refused.value.code == 2


def test_check_fails_a_file_whose_third_run_is_broken_and_names_the_run(tmp_path: Path) -> None:
    """``check`` of a file whose third run is broken exits 1 without being asked for every run: the report of each
    run names its number and id, the broken one's finding is under it, and a last line counts the runs checked and
    failed; ``--run 0`` checks the first alone, which passes, and ``--all`` is what ``check`` does anyway."""
    session = str(_broken_third_run(tmp_path))
    code, out, err = run_cli("check", session)
    assert (code, err) == (1, "")
    said = " ".join(out.split())
    broken = f"(run 2 of runs 0 to 2: {MAIN}/agent-a9d07f3) read from "
    assert broken in said and said.index(broken) < said.index("1 step, 1 model call 1 error")
    assert said.index("1 step, 1 model call 1 error") < said.index("lost-record the last line is cut short")
    assert f"(run 1 of runs 0 to 2: {MAIN}/agent-b41e9c2) 2 steps, 2 model calls ✓ clean" in said
    assert out.rstrip().splitlines()[-1] == (
        "3 runs checked in 1 file: 1 failed; 1 clean, 1 with errors, 1 with warnings only, 0 unreadable"
    )
    code, out, _ = run_cli("check", session, "--json")
    reports = json.loads(out)
    assert code == 1 and [(r["number"], r["run_id"], r["errors"]) for r in reports] == [
        (0, MAIN, 0),
        (1, f"{MAIN}/agent-b41e9c2", 0),
        (2, f"{MAIN}/agent-a9d07f3", 1),
    ]
    assert run_cli("check", session, "--all") == run_cli("check", session)
    assert run_cli("check", session, "--run", "0")[0] == 0
    assert run_cli("check", session, "--run", "2")[0] == 1


def test_runs_counts_each_runs_warnings_and_lost_records_as_check_reports_them(tmp_path: Path) -> None:
    """``runs --json`` gives each run's warnings as ``check`` reports them (its load-warning and lost-record
    findings) and, apart, the records it lost (``lost``: check's lost-record errors); the terminal table says the lost
    ones beside the count, and stderr says what was lost, as every command does, where runs said nothing of it."""
    session = str(_broken_third_run(tmp_path))
    code, out, err = run_cli("runs", session, "--json")
    rows = json.loads(out)
    reports = json.loads(run_cli("check", session, "--json")[1])
    assert code == 0 and [(row["warnings"], row["lost"]) for row in rows] == [
        (report["counts"].get("load-warning", 0) + report["counts"].get("lost-record", 0),
         report["counts"].get("lost-record", 0))
        for report in reports
    ] == [(2, 0), (0, 0), (1, 1)]  # fmt: skip
    agent = str(tmp_path / Path(SESSION).stem / "subagents" / "agent-a9d07f3.jsonl")
    assert err == f"agentrender: warning: {agent}:5: the last line is cut short (the session was being written): " + (
        "left out\n"
    )
    code, out, err = run_cli("runs", session)
    assert code == 0 and "1 (1 lost)" in out and "cut short" in err


def test_check_names_the_file_a_run_was_read_from_when_it_is_not_the_file_checked(tmp_path: Path) -> None:
    """A sub-agent's run of a session is read from its own transcript: its report names that file (``file`` in
    ``--json``, ``read from`` in the terminal's title), so the line of a finding in it (``file`` null: the run's own)
    is not taken for a line of the session's, where the title named the session alone."""
    session = str(_broken_third_run(tmp_path))
    agent = str(tmp_path / Path(SESSION).stem / "subagents" / "agent-a9d07f3.jsonl")
    reports = json.loads(run_cli("check", session, "--json")[1])
    assert [report["file"] for report in reports] == [None, None, agent]
    assert [(f["code"], f["line"], f["file"]) for f in reports[2]["findings"]] == [("lost-record", 5, None)]
    _, out, _ = run_cli("check", session)
    said = " ".join(out.split())
    assert f"(run 2 of runs 0 to 2: {MAIN}/agent-a9d07f3) read from {agent} 1 step" in said
    assert said.count("read from") == 1


def test_check_counts_a_run_failed_on_warnings_under_strict() -> None:
    """The last line of ``check`` counts as failed the runs that fail its exit status: one with warnings only under
    ``--strict``, none without."""
    code, out, _ = run_cli("check", SESSION, EVAL)
    assert code == 0 and out.rstrip().splitlines()[-1] == (
        "7 runs checked in 2 files: 0 failed; 6 clean, 0 with errors, 1 with warnings only, 0 unreadable"
    )
    code, out, _ = run_cli("check", SESSION, EVAL, "--strict")
    assert code == 1 and out.rstrip().splitlines()[-1].startswith("7 runs checked in 2 files: 1 failed;")


def test_check_help_says_every_run_is_checked_and_all_is_the_default() -> None:
    """``check --help`` says a file of several runs is checked on every run, and that ``--all``, kept for the
    scripts that give it, is the default."""
    parser = build_parser()._subparsers._group_actions[0].choices["check"]  # type: ignore[union-attr]
    text = " ".join(parser.format_help().split())
    assert "checked on every run" in text and "the default" in text.split("--all", 2)[2]


def test_an_imported_run_with_no_end_says_its_source_records_none() -> None:
    """The header of an imported run without an end says the source records no end; a recorded run's says it
    was still going or its process died; the HTML of a run and its page say the same."""
    _, out, _ = run_cli("show", "tests/fixtures/imports/openai/chat.json")
    assert "│ end the source records no end" in " ".join(out.split()) and "process died" not in out
    recorded = samples.load("fix-failing-test")
    unended = Run(header=recorded.header, steps=recorded.steps)
    assert "no end record: the run was still going, or its process died" in unended._repr_html_()
    imported = Run(header={**recorded.header, "source": {"format": "inspect-ai"}}, steps=recorded.steps)
    assert "the source records no end" in imported._repr_html_()
    # the shared page says it in the same words
    assert "the source records no end" in page(imported)
    assert "no end record: the run was still going, or its process died" in page(unended)


def test_every_display_shows_the_system_prompt_the_model_saw(tmp_path: Path) -> None:
    """The system prompt, which the model saw before every view, is in the header of ``show`` (a long one as its
    first line and its size; with ``--full``, whole, as a long goal is), of a run's HTML and of its page; a run with
    none says so ("—", ``NO_VALUE``), where its row was left out."""
    system = "You are a careful engineer.\n" + "Follow the repository's conventions. " * 20 + "\nNever push."
    recorded = samples.load("fix-failing-test")
    run = Run(header={**recorded.header, "system": system}, steps=recorded.steps)
    path = tmp_path / "long-system.jsonl"
    write_run(run, path)
    _, out, _ = run_cli("show", str(path))
    said = " ".join(out.split())
    assert "│ system You are a careful engineer.… (" in said and "--full prints it whole)" in said
    assert "Never push." not in out
    _, out, _ = run_cli("show", str(path), "--full")
    assert "Never push." in out and "--full prints it whole" not in out
    assert "Never push." in run._repr_html_() and "Never push." in page(run)
    bare = Run(header={k: v for k, v in recorded.header.items() if k != "system"}, steps=recorded.steps)
    _, out, _ = run_cli("show", "fix-failing-test")
    assert "│ system You are a careful software engineer" in " ".join(out.split())
    assert f"<th>system</th><td>{NO_VALUE}</td>" in bare._repr_html_() and ">system<" in run._repr_html_()
    # a goal of many lines (an imported opening) is folded the same way
    opening = "Fix the build.\n" + "The logs say this. " * 40 + "\nThe end of the opening."
    long_goal = tmp_path / "long-goal.jsonl"
    write_run(Run(header={**recorded.header, "goal": opening, "opening": opening}, steps=recorded.steps), long_goal)
    _, folded, _ = run_cli("show", str(long_goal))
    _, whole, _ = run_cli("show", str(long_goal), "--full")
    header = [out.split("╰")[0] for out in (folded, whole)]
    assert "│ goal Fix the build.… (" in " ".join(header[0].split()) and "The end of the opening." not in header[0]
    assert "The end of the opening." in header[1]


def test_identical_warnings_are_one_line_with_their_count_and_lines() -> None:
    """The same warning on several records is one warning, printed once with how many, in show and check (the
    importer counts alike warnings as it makes them: runfile.RunWarnings)."""
    _, out, _ = run_cli("show", SESSION)
    joined = "a user message right after another: joined into one turn, as the Messages API would"
    said = f"parentUuid: {joined} (and 2 more record(s) like it)"
    assert out.count(joined) == 1
    assert f"{SESSION}:26: {said}" in " ".join(out.split())
    _, out, _ = run_cli("check", SESSION, "--json")
    findings = [f for f in json.loads(out)[0]["findings"] if joined in f["message"]]
    assert [(f["line"], f["message"]) for f in findings] == [(26, said)]


def test_many_lines_of_one_warning_are_shortened() -> None:
    """A warning on many scattered lines names the first spans and counts the rest."""
    warnings = tuple(RunWarning(line=line, text="odd", path="f.jsonl") for line in (1, 2, 3, 5, 7, 9, 11, 13, 15, 20))
    run = Run(header={"type": "run", "run_id": "r", "goal": "g"}, warnings=warnings)
    html = run._repr_html_()
    assert "f.jsonl:1: odd (\u00d710: lines 1-3, 5, 7, 9, 11, 13, \u2026 2 more)" in html


def _png(width: int, height: int) -> bytes:
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + header
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + chunk + struct.pack(">I", zlib.crc32(chunk)) + bytes(5000)


def test_an_image_block_is_one_line_with_its_type_size_and_dimensions(tmp_path: Path) -> None:
    """An image in a turn is printed as one line (media type, bytes, width x height), not its base64, in show
    and in the HTML; a document says its type and size."""
    png = _png(640, 480)
    data = base64.b64encode(png).decode()
    pdf = base64.b64encode(b"%PDF-1.4 " + bytes(300)).decode()
    conversation = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "what is in it?"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}},
                    {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": pdf}},
                ],
            },
            {"role": "assistant", "content": [{"type": "text", "text": "a picture"}]},
        ]
    }
    source = tmp_path / "image.json"
    source.write_text(json.dumps(conversation), encoding="utf-8")
    code, out, err = run_cli("show", str(source))
    assert code == 0, err
    assert f"[image/png, {len(png):,} bytes, 640\u00d7480]" in out
    assert "[application/pdf, 309 bytes]" in out
    assert data[:40] not in out and pdf[:40] not in out
    html = Views(imports.load(source)).at(None)._repr_html_()
    assert f"[image/png, {len(png):,} bytes, 640\u00d7480]" in html and data[:40] not in html


def test_a_result_that_is_an_image_says_so_beside_its_text_bytes(tmp_path: Path) -> None:
    """A tool result whose content is an image and no text is said as holding one, with its size, where its bytes
    (of text) are said: show's block line, steps' content cell and the --follow line of the step; a result of text and
    a document says both. Before, each said ``0 bytes`` and nothing of the image."""
    from agentrender.cli._follow import show_line, step_line

    png = _png(600, 134)
    data = base64.b64encode(png).decode()
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}
    pdf = base64.b64encode(b"%PDF-1.4 " + bytes(300)).decode()
    document = {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": pdf}}

    def call(ref: str) -> dict[str, Any]:
        return {"role": "assistant", "content": [{"type": "tool_use", "id": ref, "name": "Read", "input": {}}]}

    def result(ref: str, content: list[Any]) -> dict[str, Any]:
        return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": ref, "content": content}]}

    messages = [
        {"role": "user", "content": "look at the screenshot"},
        call("t1"),
        result("t1", [image]),
        call("t2"),
        result("t2", [{"type": "text", "text": "page 1"}, document]),
        {"role": "assistant", "content": [{"type": "text", "text": "done"}]},
    ]
    source = tmp_path / "image.json"
    source.write_text(json.dumps({"messages": messages}), encoding="utf-8")
    code, out, err = run_cli("show", str(source), "--width", "200", "--color", "never")
    assert code == 0, err
    assert f"a tool_result block · 0 bytes of text, an image of {len(png):,} bytes · answers Read" in out, out
    assert "a tool_result block · 6 bytes of text, a document of 309 bytes · answers Read" in out, out
    code, out, err = run_cli("steps", str(source), "--width", "200", "--color", "never")
    assert code == 0, err
    assert f" 0 + {len(png):,} image " in out and " 6 + 309 document " in out, out
    run = imports.load(source)
    said = f"step 0 · Read · ok (0 bytes of text, an image of {len(png):,} bytes)"
    assert step_line(run.steps[0], Views(run)).plain == said
    said = "step 1 · Read · ok (6 bytes of text, a document of 309 bytes) →"
    assert show_line(Views(run), run.steps[1]).plain.startswith(said)


@pytest.mark.parametrize(
    ("head", "size"),
    [
        (b"GIF89a" + struct.pack("<HH", 31, 17) + bytes(20), (31, 17)),
        (
            b"\xff\xd8\xff\xe0"
            + struct.pack(">H", 16)
            + bytes(14)
            + b"\xff\xc0\x00\x11\x08"
            + struct.pack(">HH", 90, 160)
            + bytes(20),
            (160, 90),
        ),
        (
            b"RIFF\x00\x00\x00\x00WEBPVP8X" + bytes(8) + (99).to_bytes(3, "little") + (49).to_bytes(3, "little"),
            (100, 50),
        ),
    ],
)
def test_gif_jpeg_and_webp_dimensions_are_read_from_their_first_bytes(head: bytes, size: tuple[int, int]) -> None:
    """The dimensions of a GIF, a JPEG and a WebP are read off their headers."""
    from agentrender._display.said import media_label

    data = base64.b64encode(head).decode()
    label = media_label({"type": "image", "source": {"type": "base64", "media_type": "image/x", "data": data}})
    assert label == f"[image/x, {len(head):,} bytes, {size[0]:,}\u00d7{size[1]:,}]"


def _wide_turn(tmp_path: Path, uses: int) -> Path:
    """A conversation whose one assistant turn holds ``uses`` tool uses, each answered in the next user turn."""
    conversation = {
        "messages": [
            {"role": "user", "content": "read them all"},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": f"toolu_{i}", "name": "read_file", "input": {"path": f"f{i}.py"}}
                    for i in range(uses)
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": f"file {i}"} for i in range(uses)
                ],
            },
        ]
    }
    path = tmp_path / "wide.json"
    path.write_text(json.dumps(conversation), encoding="utf-8")
    return path


def test_show_folds_a_turn_of_many_blocks_and_full_prints_them(tmp_path: Path) -> None:
    """A turn of 30 tool uses shows its first and last 4 blocks and one line counting the 22 between, with their
    bytes; --full prints every block; a turn of 12 blocks is not folded."""
    path = str(_wide_turn(tmp_path, 30))
    _, out, _ = run_cli("show", path)
    shown = [f"toolu_{i} " for i in range(30) if f"id toolu_{i} " in out]
    assert shown == [f"toolu_{i} " for i in (0, 1, 2, 3, 26, 27, 28, 29)]
    # the folded tool uses' inputs: 6 of 16 bytes ({"path":"fN.py"}, N of 4 to 9) and 16 of 17 (N of 10 to 25)
    assert "\u22ef 22 more blocks (22 as sent; 368 bytes) not printed here (the model saw them)" in out
    assert out.count("22 more blocks") == 2
    _, full, _ = run_cli("show", path, "--full")
    assert all(f"id toolu_{i} " in full for i in range(30)) and "more blocks" not in full
    _, short, _ = run_cli("show", str(_wide_turn(tmp_path, 12)))
    assert "more blocks" not in short and all(f"id toolu_{i} " in short for i in range(12))


def test_the_html_of_a_view_folds_a_turn_of_many_blocks(tmp_path: Path) -> None:
    """The HTML of a view shows a long turn's first and last blocks and counts the rest, as show does."""
    html = Views(imports.load(_wide_turn(tmp_path, 30))).at(None)._repr_html_()
    assert "toolu_3<" in html and "toolu_26<" in html and "toolu_4<" not in html and "toolu_25<" not in html
    assert html.count("22 more blocks") == 2


def test_an_as_sent_tool_use_is_labelled_with_its_inputs_json_bytes(tmp_path: Path) -> None:
    """A tool use replayed as sent says the bytes of its input as compact JSON, not 0."""
    _, out, _ = run_cli("show", str(_wide_turn(tmp_path, 1)))
    assert "read_file  a tool_use block \u00b7 16 bytes" in out
    assert "0 bytes" not in out


@pytest.mark.parametrize(
    ("at", "said"),
    [
        (3, "every one of the 4 results in full, as sent"),  # step 1 made two calls: its turn holds two results
        (6, "its one result in full, as sent: no window, no cap; the 5 steps before the compaction are not in it"),
        (7, "the 5 steps before the compaction are not in it; nothing answered the last reply"),
    ],
)
def test_the_window_of_an_as_sent_view_counts_the_results_the_view_holds(at: int, said: str) -> None:
    """The results the view holds are counted (two parallel calls' are two); after a compaction the view holds only
    the results since it; at the end, the last reply went unanswered."""
    status, out, _ = run_cli("show", SESSION, "--at", str(at))
    assert status == 0
    window = " ".join(out.split("window", 1)[1].split("replay key", 1)[0].split())
    assert said in window, window


def test_a_run_number_of_a_digit_that_is_no_number_is_refused_clearly() -> None:
    """``--run ²`` (a Unicode digit ``int`` cannot read) names the runs the file holds, where it was an internal
    ValueError."""
    code, out, err = run_cli("show", SESSION, "--run", "\u00b2")
    assert code == 2 and out == ""
    assert "--run \u00b2: no run of that id, nor a number from 0 to" in err and "internal error" not in err


def test_the_steps_table_printed_at_two_widths_is_laid_out_for_each() -> None:
    """The steps table of a real Codex session printed at 60 columns and then at 120 is, at 120, what a table printed
    at 120 alone is: laying it out for a narrow terminal does not leave its columns narrowed."""
    path = next((Path(__file__).parent / "fixtures" / "real" / "codex").rglob("rollout-2026-05-11*.jsonl"))
    run = imports.load(path)

    def printed(renderable: object, width: int) -> str:
        out = io.StringIO()
        make_console(out, width=width, color="never").print(renderable)
        return out.getvalue()

    table = _tables.steps_rows(run).renderable(run)
    printed(table, 60)
    assert printed(table, 120) == printed(_tables.steps_rows(run).renderable(run), 120)


def test_following_a_file_of_one_run_for_a_run_it_does_not_hold_is_refused_at_once(tmp_path: Path) -> None:
    """show/steps/context --follow --run N of a file that holds one run however it grows (a run file, a Codex rollout)
    exit 2 at once saying what --run says without --follow, where they waited forever (a .jsonl.gz is refused as
    without --run); a file of several runs that may come to hold it (a log of requests) is waited for, saying for
    which run and what it holds so far."""
    rollout = "tests/fixtures/real/codex/codemie-ai-codemie-code/rollout-2026-01-02T18-39-45-019b7f94-51b4-7593-922e-"
    rollout += "ba12b5b73b52.jsonl"
    files = ["sample_runs/fix-failing-test.jsonl", *([rollout] if (ROOT / rollout).is_file() else [])]
    for path in files:
        code, _, once = run_cli("show", path, "--run", "5")
        assert code == 2 and once.startswith(f"agentrender: {path}: --run 5: no run of that id, nor its number")
        for command in ("show", "steps", "context"):
            code, out, err = run_cli(command, path, "--run", "5", "--follow", "--follow-for", "5")
            assert (code, out, err) == (2, "", once), command
    gz = tmp_path / "run.jsonl.gz"
    gz.write_bytes(gzip.compress((ROOT / files[0]).read_bytes()))
    for which in ((), ("--run", "0"), ("--run", "5")):  # as without --run, where --run waited
        code, out, err = run_cli("show", str(gz), *which, "--follow", "--follow-for", "5")
        assert (code, out) == (2, "") and "a gzip-compressed file cannot be followed" in err, which
    if not (ROOT / CLAUDE_TRACE).is_file():
        return
    code, _, err = run_cli("steps", CLAUDE_TRACE, "--run", "5", "--follow", "--follow-for", "0.5")
    assert code == 0
    assert err.startswith(f"agentrender: {CLAUDE_TRACE}: waiting for run 5: the file holds so far 4 runs: 0: log-")


def test_run_of_a_file_of_one_run_says_it_holds_one_and_that_no_run_is_needed() -> None:
    """``--run 3`` of a file of one run says it holds that one run and that it is read without --run, where it said
    'nor a number from 0 to 0'."""
    code, _, err = run_cli("show", "fix-failing-test", "--run", "3")
    assert code == 2
    assert err == (
        "agentrender: fix-failing-test: --run 3: no run of that id, nor its number; the file holds 1 run, "
        "0: fix-failing-test, which is read without --run\n"
    )


COMPACTED = "tests/fixtures/real/claude-code/marot-spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl"
"""A real session of three runs, the last one's id 59 characters long (an agent that wrote a compaction)."""


SPOTTER = "tests/fixtures/real/claude-code/marot-spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
"""A real session of three runs, the last an agent that wrote a compaction: how it ended and where it comes from
are long words of each."""


def test_a_runs_row_stays_within_a_few_lines_at_100_columns_its_id_whole() -> None:
    """At 100 columns each run of a real session is a row of at most 6 lines, its id whole on its first line (the
    id --run ID takes, to copy), how it ended, where it comes from and what it is to the other runs under it, where
    the compaction agent's row took 13 lines, its words squeezed into two columns of 12."""
    if not (ROOT / SPOTTER).is_file():
        pytest.skip("the real fixtures are not in this checkout")
    code, out, err = cli.run_cli("runs", SPOTTER, "--width", "100", "--color", "never")
    rows = json.loads(run_cli("runs", SPOTTER, "--json")[1])
    lines = out.splitlines()
    assert code == 0 and all(len(line) <= 100 for line in lines), err
    starts = [index for index, line in enumerate(lines) if line[:4].strip().isdigit()]  # the # column's
    ends = [*starts[1:], next(index for index, line in enumerate(lines) if line.startswith("show one"))]
    assert len(starts) == len(rows) == 3
    for row, start, end in zip(rows, starts, ends, strict=True):
        shown = [line for line in lines[start:end] if line.strip()]
        assert len(shown) <= 6, out
        assert shown[0].split()[0] == str(row["number"]) and shown[0].split()[-1] == row["run_id"], out
        words = " ".join(" ".join(shown).split())
        assert row["end"] in words and f"from {row['source']}" in words and row["role"] in words, out


def test_a_warning_of_a_long_path_hangs_under_its_label_at_100_columns() -> None:
    """show at 100 columns prints each warning with "warning: " and the start of its file's long path on one line,
    the rest indented under the path, where "warning: " stood alone on a line and the path began the next."""
    if not (ROOT / SPOTTER).is_file():
        pytest.skip("the real fixtures are not in this checkout")
    code, out, err = cli.run_cli("show", SPOTTER, "--run", "2", "--width", "100", "--color", "never")
    lines = out.splitlines()
    labelled = [index for index, line in enumerate(lines) if line.startswith("warning:")]
    assert code == 0 and len(labelled) == 2, err
    agent = "tests/fixtures/real/claude-code/marot-spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20/subagents/"
    assert lines[labelled[0]].startswith("warning: " + agent[:80]), out
    for first, last in zip(labelled, [*labelled[1:], labelled[1] + 4], strict=True):
        assert all(line.startswith(" " * 9) and line[9] != " " for line in lines[first + 1 : last]), out
    # the path folds (one word longer than the line), and reads whole with the indent taken off each line
    warned = "".join(line[9:].rstrip() for line in lines[labelled[0] : labelled[1]])
    assert warned.startswith(agent + "agent-acompact-f46190.jsonl:1: parentUuid:"), out


@pytest.mark.parametrize("width", [40, 60, 80, 100, 200])
def test_runs_gives_each_run_id_whole_on_one_line_at_any_width(width: int) -> None:
    """runs gives every run id whole on one line at any width: where the line has room for the longest beside the
    counts (100 columns and more: the session's id is 36 characters, its agents' 50 and more) as a table, each id on
    the first line of its row; narrower, each id on a line of its own, its number, counts and the rest indented under
    it, every line but an id's within the width. Before, narrower than 100 columns an id folded over lines."""
    if not (ROOT / COMPACTED).is_file():
        pytest.skip("the real fixtures are not in this checkout")
    code, out, err = cli.run_cli("runs", COMPACTED, "--width", str(width), "--color", "never")
    assert code == 0, err
    lines = out.splitlines()
    rows = json.loads(run_cli("runs", COMPACTED, "--json")[1])
    ids = [row["run_id"] for row in rows]
    assert "\u2026" not in out
    if width >= 100:
        assert all(len(line) <= width for line in lines), out
        for row in rows:  # the row's first line: its number, its counts, its id
            line = next(line for line in lines if line.split()[:1] == [str(row["number"])])
            assert line.split()[-1] == row["run_id"], out
        return
    assert not any(line.split()[:1] == ["#"] for line in lines)  # no table
    assert all(len(line) <= width or line in [*ids, COMPACTED] for line in lines), out  # the file's path, whole too
    for row in rows:  # the id alone on its line, its number and counts first under it
        at = lines.index(row["run_id"])
        said = f"#{row['number']} \u00b7 {row['steps']:,} steps \u00b7 "
        assert lines[at + 1].startswith("  " + said), out


def test_runs_of_a_folder_lists_the_runs_of_each_file_under_it(tmp_path: Path) -> None:
    """``runs FOLDER`` lists the runs of each run file under it, as ``export`` reads a folder: a table a file, titled
    with it, and in ``--json`` a row a run naming its file; a file that cannot be read is said on stderr (exit 2) and
    the others listed all the same. Before, it said "a folder, not a run file"."""
    import shutil

    log, run = tmp_path / "a.eval", tmp_path / "b" / "c.jsonl"
    run.parent.mkdir()
    shutil.copy(ROOT / EVAL, log)
    shutil.copy(samples.path("fix-failing-test"), run)
    code, out, err = run_cli("runs", str(tmp_path), "--json")
    assert (code, err) == (0, "")
    rows = json.loads(out)
    assert [(row["file"], row["number"]) for row in rows] == [(str(log), n) for n in range(4)] + [(str(run), 0)]
    assert run_cli("runs", str(run), "--json")[1] == json.dumps(rows[4:], indent=2) + "\n"  # a file's rows alike
    code, out, err = run_cli("runs", str(tmp_path))
    assert (code, err) == (0, "")
    assert f"{log}  4 runs" in out and f"{run}  1 run" in out and out.count("show one:") == 1, out
    (tmp_path / "d.jsonl").write_text("not json\n")
    code, out, err = run_cli("runs", str(tmp_path), "--json")
    assert code == 2 and err.startswith(f"agentrender: {tmp_path / 'd.jsonl'}:1:"), err
    assert [row["file"] for row in json.loads(out)] == [str(log)] * 4 + [str(run)]
    (tmp_path / "empty").mkdir()
    code, out, err = run_cli("runs", str(tmp_path / "empty"))
    assert (code, out) == (2, "") and err.startswith(f"agentrender: no run files under {tmp_path / 'empty'} ("), err


def _checked_folder(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    """A folder of a good run, a run whose last line is cut short (a lost-record error) and, a folder deeper, an
    Inspect eval log (an agent's history, 4 runs); beside them a file of no run file's name and a hidden folder's run
    file, which a folder's reader leaves out. The folder, then the three files in the order ``runs`` lists them."""
    import shutil

    good, cut, log = tmp_path / "a-good.jsonl", tmp_path / "b-cut.jsonl", tmp_path / "deeper" / "c.eval"
    log.parent.mkdir()
    shutil.copy(samples.path("fix-failing-test"), good)
    cut.write_bytes(good.read_bytes() + b'{"type": "step", "ind')
    shutil.copy(ROOT / EVAL, log)
    (tmp_path / "notes.txt").write_text("not a run\n")
    (tmp_path / ".hidden").mkdir()
    shutil.copy(good, tmp_path / ".hidden" / "copy.jsonl")
    return tmp_path, good, cut, log


def test_check_of_a_folder_checks_every_run_file_under_it_as_runs_finds_them(tmp_path: Path) -> None:
    """``check FOLDER`` checks each run file under it, at any depth, the files ``runs FOLDER`` lists (not a hidden
    folder's, not a file of another name): a report a run, each naming its file's path (``run`` in ``--json``), and
    the exit status the worst of them (1: the cut file's lost record). Before, it said "a folder, not a run file"."""
    folder, good, cut, log = _checked_folder(tmp_path)
    code, out, err = run_cli("check", str(folder), "--json")
    assert (code, err) == (1, "")
    reports = json.loads(out)
    listed = [row["file"] for row in json.loads(run_cli("runs", str(folder), "--json")[1])]
    assert [report["run"] for report in reports] == listed == [str(good), str(cut), *[str(log)] * 4]
    assert [(report["errors"], list(report["counts"])) for report in reports[:2]] == [(0, []), (1, ["lost-record"])]
    assert [report["run_id"] for report in reports[2:]] == [run.run_id for run in imports.load_runs(log)]
    # each file's reports are those it gets named alone
    alone = [report for name in (good, cut, log) for report in json.loads(run_cli("check", str(name), "--json")[1])]
    assert reports == alone
    code, out, err = run_cli("check", str(folder))
    assert (code, err) == (1, "")
    assert f"{cut}  8 steps, 8 model calls  1 error" in out and f"{good}  8 steps, 8 model calls  ✓ clean" in out
    assert out.rstrip().splitlines()[-1] == (
        "6 runs checked in 3 files: 1 failed; 5 clean, 1 with errors, 0 with warnings only, 0 unreadable"
    )
    # a folder among files and samples: each stands for its own
    code, out, _ = run_cli("check", str(folder / "deeper"), "out-of-steps", "--json")
    assert code == 0 and [report["run"] for report in json.loads(out)] == [str(log)] * 4 + ["out-of-steps"]
    assert run_cli("check", str(folder / "deeper"), "out-of-steps", "--strict")[0] == 1


def test_check_checks_a_file_once_however_many_names_it_is_given_by(tmp_path: Path, monkeypatch: Any) -> None:
    """A file named again, by another name or inside a folder named too, is checked once, where it is first named (as
    ``export`` reads it once): ``check runs/ runs/a.jsonl`` checked that file twice and counted it twice."""
    folder, good, cut, log = _checked_folder(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_cli("check", str(folder), str(good), "./b-cut.jsonl", str(folder / "deeper"), "--json")
    assert code == 1
    assert [report["run"] for report in json.loads(out)] == [str(good), str(cut), *[str(log)] * 4]
    code, out, _ = run_cli("check", "b-cut.jsonl", str(folder), "fix-failing-test", "fix-failing-test", "--json")
    assert [report["run"] for report in json.loads(out)] == [
        "b-cut.jsonl",
        str(good),
        *[str(log)] * 4,
        "fix-failing-test",
    ]
    _, out, _ = run_cli("check", str(good), str(good))
    assert out.count(f"{good}  8 steps") == 1, out


def test_check_of_a_folder_reports_a_file_it_cannot_read_among_the_others_and_exits_2(tmp_path: Path) -> None:
    """A file under the folder that cannot be read is one report among the others, which are checked all the same,
    and the exit status is 2, as for files named one by one."""
    folder, good, cut, log = _checked_folder(tmp_path)
    broken = folder / "deeper" / "d.jsonl"
    broken.write_text("not json\n")
    code, out, err = run_cli("check", str(folder), "--json")
    assert (code, err) == (2, "")
    reports = json.loads(out)
    assert [report["run"] for report in reports] == [str(good), str(cut), *[str(log)] * 4, str(broken)]
    assert [report["readable"] for report in reports] == [True] * 6 + [False]
    assert reports[-1]["error"].startswith(f"{broken}:1: ")
    assert run_cli("check", str(good), str(cut), str(log), str(broken))[0] == 2
    _, out, _ = run_cli("check", str(folder))
    assert out.rstrip().splitlines()[-1].endswith("1 unreadable")


def test_check_of_a_folder_of_no_run_file_is_one_line_on_stderr(tmp_path: Path) -> None:
    """A folder that holds no run file (only files of other names, or a hidden folder's) is an error naming it, as
    ``runs`` says it, exit 2, with nothing checked, even beside a file that would pass."""
    empty = tmp_path / "empty"
    (empty / ".hidden").mkdir(parents=True)
    (empty / ".hidden" / "run.jsonl").write_bytes(samples.path("fix-failing-test").read_bytes())
    (empty / "notes.txt").write_text("not a run\n")
    code, out, err = run_cli("check", str(empty))
    said = f"agentrender: no run files under {empty} (none named *.jsonl, *.jsonl.gz, *.eval or *.eval.gz, nor a "
    assert (code, out) == (2, "") and err.startswith(said) and err.count("\n") == 1, err
    assert run_cli("runs", str(empty))[2] == err
    assert run_cli("check", "fix-failing-test", str(empty), "--json") == (2, "", err)


def test_check_help_says_a_folder_stands_for_its_run_files_and_what_exits_2() -> None:
    """``check --help`` says RUN takes a folder, which stands for the run files under it, and that a file that
    cannot be read, or a folder of none, exits 2."""
    parser = build_parser()._subparsers._group_actions[0].choices["check"]  # type: ignore[union-attr]
    text = " ".join(parser.format_help().split())
    assert "of a folder: every run file under it, at any depth, as runs and export find them" in text
    assert "RUN run files, folders of them," in text
    assert "2: a file is unreadable (its report says why, and the others are checked all the same)" in text
    assert "or a folder holds no run file" in text


REAL_EVALS = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "tests/fixtures/real/inspect").glob("*/*.eval"))
"""The real Inspect ``.eval`` logs: all but one score each sample, the other (A2UI's) none."""


def _logged_scores(path: str) -> list[dict[str, Any]]:
    """Each sample's scorers' values, as the ``.eval`` archive at ``path`` holds them (its ``samples/*.json``)."""
    with zipfile.ZipFile(ROOT / path) as archive:
        samples = [json.loads(archive.read(name)) for name in archive.namelist() if name.startswith("samples/")]
    return [{name: score["value"] for name, score in (sample.get("scores") or {}).items()} for sample in samples]


@pytest.mark.parametrize("path", REAL_EVALS)
@pytest.mark.parametrize("width", ["80", "piped"])
def test_runs_says_each_samples_score_as_its_log_holds_it(
    path: str, width: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """runs of a real Inspect log says each sample's scores under how it ended (``scored NAME VALUE``), within the
    width at 80 columns and piped, and ``--json`` gives them as values (``scores``), each sample's as its log holds it;
    a log that scored no sample is listed as before, with no score. Before, no run said its score."""
    monkeypatch.delenv("COLUMNS", raising=False)  # piped: 100 columns
    code, out, err = cli.run_cli("runs", path, "--color", "never", *(["--width", width] if width != "piped" else []))
    rows = json.loads(run_cli("runs", path, "--json")[1])
    assert code == 0, err
    logged = _logged_scores(path)
    encoded = sorted(json.dumps(scores, sort_keys=True) for scores in logged if scores)
    assert sorted(json.dumps(row["scores"], sort_keys=True) for row in rows if "scores" in row) == encoded
    whole = [path, *(row["run_id"] for row in rows)]  # a title's path and an id are whole on their line, to copy
    lines = [line for line in out.splitlines() if not any(name in line for name in whole)]
    assert all(len(line) <= (80 if width == "80" else 100) for line in lines), out
    said = [line.strip() for line in out.splitlines() if line.strip().startswith("scored ")]
    assert len(said) == len(encoded), out
    for line, row in zip(said, [row for row in rows if "scores" in row], strict=True):
        assert line.startswith(f"scored {next(iter(row['scores']))} "), out
    if not encoded:
        assert "score" not in out, out


def test_runs_of_tau_bench_gives_each_tasks_reward_as_a_value_said_once() -> None:
    """runs --json of tau-bench results gives each task's reward as a value (``scores``: ``{"reward": 0.0}``), and
    the table says it once, in how the run ended (``completed: reward 0.0``), with no ``scored`` line repeating it."""
    path = "tests/fixtures/real/tau-bench/sierra-research-tau-bench/gpt-4o-airline.json"
    if not (ROOT / path).is_file():
        pytest.skip("the real fixtures are not in this checkout")
    results = [result for result in json.loads((ROOT / path).read_text(encoding="utf-8")) if result["traj"]]
    rows = json.loads(run_cli("runs", path, "--json")[1])
    assert [row["scores"] for row in rows] == [{"reward": result["reward"]} for result in results]
    code, out, err = cli.run_cli("runs", path, "--width", "80", "--color", "never")
    assert code == 0 and "scored" not in out and "completed: reward 1.0" in out, err
