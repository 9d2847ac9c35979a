"""What the CLI hands the user to copy (a command, a path, a replay key) is printed whole on one line at any width,
for the terminal to wrap, so that what a user selects and pastes is what was meant: a command runs as it says."""

from __future__ import annotations

import itertools
import json
import shlex
import shutil
from pathlib import Path

import pytest

from agentrender import samples
from tests._support import cli

SESSION = samples.imports_folder() / "ff80b049-3eff-495f-b4f0-c4071d615994.jsonl"
"""A Claude Code session whose step 2 started a sub-agent: the file holds both runs."""
MAIN = "ff80b049-3eff-495f-b4f0-c4071d615994"
AGENT = f"{MAIN}/agent-ad106947ff439c8f3"

WIDTHS = (40, 60, 80, 200)
AWKWARD = 'it\'s a "run" folder'
"""A folder a shell must be given quoted: spaces, a quote of each kind."""


@pytest.fixture
def session(tmp_path: Path) -> str:
    """The session's file (with the folder of its sub-agents beside it) in a folder of spaces and quotes."""
    folder = tmp_path / AWKWARD
    folder.mkdir()
    shutil.copyfile(SESSION, folder / SESSION.name)
    shutil.copytree(SESSION.with_suffix(""), folder / MAIN)
    return str(folder / SESSION.name)


def run_at(width: int | None, *argv: str) -> str:
    """``agentrender argv``'s output, plain, ``width`` columns wide (``None``: piped, no width given); it succeeds."""
    sized = () if width is None else ("--width", str(width))
    code, out, err = cli.run_cli(argv[0], "--color", "never", *sized, *argv[1:])  # before a "--" that argv may hold
    assert code == 0, err
    return out


def line_with(out: str, value: str) -> str:
    """The first line of ``out`` that holds ``value`` whole (a line that cut or wrapped it holds none)."""
    lines = [line for line in out.splitlines() if value in line]
    assert lines, f"{value!r} is not whole on one line of:\n{out}"
    return lines[0]


def pasted(out: str, command: str) -> list[str]:
    """The command a user copies from the line of ``out`` that gives ``command`` (from its ``agentrender`` to the
    line's end), as a shell reads it: the words after ``agentrender``."""
    line = line_with(out, command)
    words = shlex.split(line[line.index("agentrender show ") :])
    assert words == shlex.split(command)
    return words[1:]


@pytest.mark.parametrize("width", [*WIDTHS, None])
def test_show_gives_a_sub_agents_command_whole_and_it_shows_the_sub_agent(
    session: str, width: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under the step that started a sub-agent, ``show``'s "show it" command is on one line at any width, a path with
    spaces and quotes quoted, and pasted (``shlex.split``) it shows the sub-agent's run. Before, rich wrapped it at
    its spaces at 80 columns and less, and indented what it wrapped."""
    monkeypatch.delenv("COLUMNS", raising=False)
    out = run_at(width, "show", session, "--at", "3")
    command = f"agentrender show {shlex.quote(session)} --run {shlex.quote(AGENT)}"
    argv = pasted(out, command)
    assert line_with(out, command).strip() in (f"show it: {command}", command)  # nothing but the words that lead to it
    shown = run_at(400, *argv)
    assert shown.splitlines()[0].startswith(f"\u256d\u2500 {AGENT} ")  # the sub-agent's panel
    assert f"a sub-agent of run {MAIN}, started by its step 2" in shown


@pytest.mark.parametrize("width", [*WIDTHS, None])
def test_a_sub_agents_command_for_the_step_that_started_it_is_whole_and_shows_that_step(
    session: str, width: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under a sub-agent's panel, the command that shows the session's step that started it is on one line at any
    width, and pasted it shows the view right after that step, whose last step says it started the sub-agent."""
    monkeypatch.delenv("COLUMNS", raising=False)
    out = run_at(width, "show", session, "--run", "1")
    command = f"agentrender show {shlex.quote(session)} --run {MAIN} --at 3"
    argv = pasted(out, command)
    shown = run_at(400, *argv)
    steps = [line for line in shown.splitlines() if line.startswith("step ")]
    assert steps[-1].startswith("step 2 ") and "the view deciding step 3" in shown
    assert f"started the sub-agent run {AGENT} (tool use toolu_01QgUbC29ZXemZhZzPjQqbTS)" in shown


@pytest.mark.parametrize("width", [*WIDTHS, None])
def test_show_gives_the_replay_key_whole_on_its_line(width: int | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The view's replay key is whole on one line at any width, as ``--json`` gives it. Before, it was cut with "…"
    where its row had less than its 64 characters."""
    monkeypatch.delenv("COLUMNS", raising=False)
    key = json.loads(run_at(None, "show", "fix-failing-test", "--at", "3", "--json"))["replay_key"]
    out = run_at(width, "show", "fix-failing-test", "--at", "3")
    assert line_with(out, key).split()[:3] in (["replay", "key", key], [key])


@pytest.mark.parametrize("width", WIDTHS)
def test_the_paths_import_and_html_wrote_are_whole_on_their_lines(
    tmp_path: Path, width: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``import`` and ``html`` name each file they wrote whole on one line at any width, spaces and quotes and all,
    and ``check`` names each file it read so. Before, rich wrapped a path at its spaces."""
    monkeypatch.chdir(tmp_path)  # the paths said as given, not relative to the checkout
    out = run_at(width, "import", str(SESSION), "--all", "-o", AWKWARD)
    written = sorted(str(path) for path in Path(AWKWARD).iterdir())
    assert len(written) == 2
    for path in written:
        line_with(out, path)
    out = run_at(width, "check", *written)
    for path in written:
        line_with(out, path)
    page = "the page's file of one run.html"
    out = run_at(width, "html", str(SESSION), "--run", "1", "-o", page)
    line_with(out, page)


@pytest.mark.parametrize("width", WIDTHS)
def test_the_hints_of_runs_and_samples_give_their_command_whole(width: int) -> None:
    """``runs`` and ``samples`` end with the command that shows one, whole on one line at any width."""
    line_with(run_at(width, "runs", str(SESSION)), "agentrender show FILE --run ID|N")
    line_with(run_at(width, "samples"), "agentrender show NAME")


def test_a_command_whose_path_or_run_id_begins_with_a_dash_still_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the file's path given (``show -- -dir/FILE``) and the run's id both begin with "-", the commands ``show``
    gives keep each from being read as an option (``./-dir/FILE``, ``--run=-ID``), and pasted they show the sub-agent
    and the step that started it. Before, the command gave ``-dir/FILE`` and ``--run -ID`` as they were, and
    ``agentrender show`` refused them."""
    monkeypatch.chdir(tmp_path)
    main = "-session"
    folder = Path("-dir") / MAIN / "subagents"
    folder.mkdir(parents=True)
    (folder.parents[1] / SESSION.name).write_text(SESSION.read_text("utf-8").replace(MAIN, main), "utf-8")
    for agent in (SESSION.with_suffix("") / "subagents").iterdir():
        (folder / agent.name).write_text(agent.read_text("utf-8").replace(MAIN, main), "utf-8")
    name, sub_agent = f"-dir/{SESSION.name}", AGENT.replace(MAIN, main)
    out = run_at(60, "show", "--at", "3", "--", name)
    shown = run_at(400, *pasted(out, f"agentrender show ./{name} --run={sub_agent}"))
    assert shown.splitlines()[0].startswith(f"\u256d\u2500 {sub_agent} ")
    out = run_at(60, "show", "--run", "1", "--", name)
    shown = run_at(400, *pasted(out, f"agentrender show ./{name} --run={main} --at 3"))
    assert "the view deciding step 3" in shown and f"started the sub-agent run {sub_agent} " in shown


def word_with(out: str, value: str) -> str:
    """``value``, found as a word (between spaces) of a line of ``out``: what a user selects with a double-click, or a
    program splitting the line, gets whole."""
    assert any(value in line.split() for line in out.splitlines()), f"{value!r} is no word of a line of:\n{out}"
    return value


@pytest.mark.parametrize("width", [*WIDTHS, 100, None])
def test_runs_gives_each_run_id_whole_and_it_shows_that_run(width: int | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """``runs`` gives each run id (the session's, 36 characters, its sub-agent's, 61) whole on one line at any width
    and piped, and pasted into ``--run`` it shows that run. Before, the sub-agent's id folded over two lines at 80
    columns and less, the session's at 60 and less."""
    monkeypatch.delenv("COLUMNS", raising=False)
    out = run_at(width, "runs", str(SESSION))
    for run_id in (MAIN, AGENT):
        shown = run_at(400, "show", str(SESSION), "--run", word_with(out, run_id))
        assert shown.splitlines()[0].startswith(f"\u256d\u2500 {run_id} ")


@pytest.mark.parametrize("width", [*WIDTHS, None])
def test_shows_panel_gives_the_run_id_and_its_file_whole_and_they_show_that_run(
    session: str, width: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``show``'s run id and the file it was read from (a sub-agent's, under a folder of spaces and quotes) are each
    whole on one line at any width and piped, after their names (in the panel where it has room for them, else above
    it), and pasted they show that run: ``--run ID`` of the session's file, and the file alone. Before, both were cut
    with "…" in the panel's rows where it had no room for them, and the id in the panel's title."""
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.chdir(Path(session).parent.parent)  # the file said relative to here, as a user in this folder gives it
    name = str(Path(session).relative_to(Path.cwd()))
    out = run_at(width, "show", name, "--run", "1")
    file = f"{AWKWARD}/{MAIN}/subagents/agent-ad106947ff439c8f3.jsonl"
    lines = out.splitlines()
    for label, value in (("run", AGENT), ("file", file)):  # after its name on its line, or alone under it
        beside = [line.strip(" \u2502").split(maxsplit=1) == [label, value] for line in lines]
        under = [line == value and before == label for before, line in itertools.pairwise(lines)]
        assert beside.count(True) + under.count(True) == 1, out
    assert run_at(400, "show", name, "--run", AGENT).splitlines()[0].startswith(f"\u256d\u2500 {AGENT} ")
    assert run_at(400, "show", file).splitlines()[0].startswith(f"\u256d\u2500 {AGENT} ")


@pytest.mark.parametrize("width", [*WIDTHS, None])
def test_a_run_id_in_shows_sentences_is_never_cut(width: int | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run id inside a sentence of ``show``'s panel (the session's "started 1 sub-agent: run ID", the sub-agent's "a
    sub-agent of run ID") is whole at any width: on one line where the panel has room, else folded over lines at the
    panel's edge, never cut with "…"; and so is "started the sub-agent run ID" under the step that started it."""
    monkeypatch.delenv("COLUMNS", raising=False)

    def squeezed(out: str) -> str:  # the words of the output, the panel's borders and every space taken out
        return "".join(out.replace("\u2502", "").split())

    session = squeezed(run_at(width, "show", str(SESSION), "--at", "3"))
    assert f"started1sub-agent:run{AGENT}(step2)" in session
    assert f"startedthesub-agentrun{AGENT}(tooluse" in session
    assert f"asub-agentofrun{MAIN},startedbyitsstep2" in squeezed(run_at(width, "show", str(SESSION), "--run", "1"))


@pytest.mark.parametrize("width", [*WIDTHS, None])
def test_runs_gives_a_long_file_path_whole_on_its_title_line(
    tmp_path: Path, width: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``runs`` names the file whole on one line at any width and piped (its count of runs beside it where the line
    has room, else under it), and so do the titles of ``steps``, ``context`` and ``keys`` of a run with no id, named by
    its file; pasted, the path lists the same runs. Before, the title folded a long path over lines at 80 columns
    and less."""
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.chdir(tmp_path)
    folder = Path("a-rather-long-folder-of-runs") / "and-another-level-deeper-still" / "the-runs-of-last-week"
    folder.mkdir(parents=True)
    path = str(folder / SESSION.name)
    shutil.copyfile(SESSION, path)
    shutil.copytree(SESSION.with_suffix(""), folder / MAIN)
    out = run_at(width, "runs", path)
    assert line_with(out, path).split() in ([path, "2", "runs"], [path])
    assert word_with(run_at(400, "runs", word_with(out, path)), AGENT)
    unnamed = str(folder / "a-run-file-of-no-run-id-named-by-its-path.jsonl")
    Path(unnamed).write_text('{"type": "run", "format": "agentrender.run/1", "goal": "No id."}\n', encoding="utf-8")
    for command in ("steps", "context", "keys"):
        line_with(run_at(width, command, unnamed), unnamed)


@pytest.mark.parametrize("width", [*WIDTHS, None])
def test_a_run_id_in_shows_lines_under_a_step_is_whole_on_its_line(
    tmp_path: Path, width: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under the step that started a sub-agent, "started the sub-agent run ID (tool use ...)" gives the id whole on
    one line at any width and piped (the words before and after it wrapped around it), as the command under it does;
    and so does a sub-agent written alone, "the run that started it, ID, is not in this file". Before, the id folded
    in its middle at 60 columns and less."""
    monkeypatch.delenv("COLUMNS", raising=False)
    out = run_at(width, "show", str(SESSION), "--at", "3")
    line_with(out, AGENT)
    assert f"started the sub-agent run {AGENT} (tool use toolu_01QgUbC29ZXemZhZzPjQqbTS)" in " ".join(out.split())
    written = tmp_path / "agent.jsonl"
    code, _, err = cli.run_cli("import", str(SESSION), "--run", "1", "-o", str(written))
    assert code == 0, err
    out = run_at(width, "show", str(written))
    line_with(out, MAIN)
    assert f"the run that started it, {MAIN}, is not in this file" in " ".join(out.split())
