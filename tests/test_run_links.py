"""A run's links to the other runs of its file (``Run.links``), read once and said the same by every display: the
run's facts (``show``'s panel, the explorer's run tab, the page), ``runs``' table, the step of ``show`` that started a
sub-agent, and the ``--json`` outputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentrender import html, imports
from agentrender._display.said import link_role, run_facts_said
from agentrender.runfile import Run, RunLink, RunLinks
from tests._support import real
from tests._support.cli import run_cli

CLAUDE_CODE = real.REAL / "claude-code"
SESSION = CLAUDE_CODE / "jessitron-claude-log" / "ff80b049-3eff-495f-b4f0-c4071d615994.jsonl"
"""A real session whose step 2 started one sub-agent (the Agent tool)."""
PARALLEL = CLAUDE_CODE / "daaain-claude-code-log" / "55550000-0000-4000-8000-000000000001.jsonl"
"""A real session whose step 3 started two sub-agents at once (two Task calls in one reply)."""
FORKED = CLAUDE_CODE / "marot-spotter" / "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
"""A real session whose step 89 started a sub-agent, and whose compaction before step 71 a forked agent wrote."""


def flat(text: str) -> str:
    """``text`` with its runs of white space as one space: the words a terminal wrapped, as one line."""
    return " ".join(text.split())


def test_a_runs_links_are_read_from_its_header_once_typed() -> None:
    """``Run.links`` gives a real session's started runs in step order (a sub-agent a tool use started, the agent
    forked to write a compaction) and each sub-agent's parent, as typed values; a run of no link has none (falsy)."""
    session, agent, fork = imports.load_runs(FORKED)
    assert session.links == RunLinks(
        started=(
            RunLink(run_id=fork.run_id, step=71, compaction_line=714),
            RunLink(run_id=agent.run_id, step=89, tool_use_id="toolu_017SvvKc8KLbhGMG3tXkf21Z"),
        )
    )
    assert session.links.run_ids == (fork.run_id, agent.run_id) and session.links.parent is None
    use = "toolu_017SvvKc8KLbhGMG3tXkf21Z"
    assert agent.links == RunLinks(parent=RunLink(run_id=session.run_id, step=89, tool_use_id=use))
    assert fork.links.parent is not None and fork.links.parent.is_compaction and not fork.links.started
    assert not Run().links and Run().links == RunLinks()


@pytest.mark.parametrize(
    "source",
    [
        {"parent": {"run_id": 7, "step": 2}},  # an id that is no string
        {"parent": {"run_id": "a", "step": True}},  # a step that is a bool, not an int
        {"parent": "a", "subagents": {"run_id": "b", "step": 1}},  # no object; no list
        {"subagents": [{"run_id": "b"}, None, ["b", 1]]},  # items of another shape
        "claude-code",  # a source that is no object
    ],
)
def test_a_link_of_another_shape_is_not_one(source: object) -> None:
    """A header's ``source.parent`` or ``source.subagents`` item that does not name a run (a string ``run_id``) and a
    step (an int) is not a link: another importer's source may use those names otherwise."""
    assert Run(header={"run_id": "x", "source": source}).links == RunLinks()


def test_a_links_optional_fields_of_another_type_are_left_out() -> None:
    """A link's ``tool_use_id`` that is no string and ``compaction_line`` that is no int are read as not recorded,
    and the started runs come in step order whatever order the header lists them in."""
    source = {
        "subagents": [
            {"run_id": "b", "step": 5, "tool_use_id": 3, "compaction_line": "714"},
            {"run_id": "a", "step": 1, "tool_use_id": "t"},
        ]
    }
    links = Run(header={"source": source}).links
    assert links.started == (RunLink(run_id="a", step=1, tool_use_id="t"), RunLink(run_id="b", step=5))


def test_every_display_says_a_runs_links_among_its_facts() -> None:
    """The facts every display lists (``run_facts_said``: ``show``'s panel, the page's "the run", the explorer's run
    tab) say the runs a session started, each by its step, and of a sub-agent the run and step that started it, right
    after the run's id; a forked agent says the compaction it wrote. Before, they said nothing of either."""
    session, agent = imports.load_runs(SESSION)
    facts = dict(run_facts_said(session))
    assert list(facts)[list(facts).index("run") + 1] == "started"
    assert facts["started"] == f"1 sub-agent: run {agent.run_id} (step 2)"
    use = agent.links.parent.tool_use_id if agent.links.parent else None
    assert dict(run_facts_said(agent))["parent"] == (
        f"a sub-agent of run {session.run_id}, started by its step 2 (tool use {use})"
    )
    main, sub, fork = imports.load_runs(FORKED)
    assert dict(run_facts_said(main))["started"] == (
        f"1 sub-agent: run {sub.run_id} (step 89); "
        f"1 agent forked to write a compaction: run {fork.run_id} (before step 71)"
    )
    assert dict(run_facts_said(fork))["parent"] == (
        f"forked from run {main.run_id} to write the compaction before its step 71"
    )
    assert "parent" not in dict(run_facts_said(main)) and "started" not in dict(run_facts_said(sub))


def test_the_page_and_runs_say_what_a_run_is_to_the_others_in_one_wording() -> None:
    """The page's run picker and ``runs`` word what each run is in the one wording (``link_role``), and a session
    that forked an agent to write a compaction says so apart from the sub-agents it started. Before, that agent was
    counted as a sub-agent ("started 2 sub-agents")."""
    runs = imports.load_runs(FORKED)
    main, sub, fork = runs
    assert [link_role(run.links) for run in runs] == [
        "started 1 sub-agent, forked 1 agent to write a compaction",
        f"sub-agent, from step 89 of {main.run_id}",
        f"forked to write a compaction, from step 71 of {main.run_id}",
    ]
    facts = html.payload(main, beside=runs)
    table = facts["texts"]
    assert [table[role] for _, role, *_ in facts["runs"]] == [link_role(run.links) for run in (main, sub, fork)]


def test_runs_says_what_each_run_is_to_the_others() -> None:
    """``agentrender runs`` says under each run of a session what it is to the others (the words of the page's run
    picker), and ``--json`` gives those words and the links themselves. Before, the table said nothing of them."""
    runs = imports.load_runs(PARALLEL)
    code, out, _ = run_cli("runs", str(PARALLEL))
    assert code == 0
    said = flat(out)
    assert "started 2 sub-agents" in said
    for agent in runs[1:]:
        assert f"{agent.run_id} completed" in said and f"sub-agent, from step 3 of {runs[0].run_id}" in said
    code, out, _ = run_cli("runs", str(PARALLEL), "--json")
    rows = json.loads(out)
    assert [row["role"] for row in rows] == [link_role(run.links) for run in runs]
    assert rows[0]["links"] == {
        "parent": None,
        "started": [
            {
                "run_id": run.run_id,
                "step": 3,
                "tool_use_id": f"toolu_sc_{run.run_id.rsplit('-', 1)[1]}",
                "compaction_line": None,
            }
            for run in runs[1:]
        ],
    }
    assert rows[1]["links"]["parent"]["run_id"] == runs[0].run_id and rows[1]["links"]["started"] == []


def test_show_says_at_the_step_which_sub_agents_it_started_and_how_to_show_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``agentrender show`` says under step 3's reply each sub-agent its tool uses started, with the command that
    shows that run, and names them in the run's facts; ``show --run`` of a sub-agent names the step that started it.
    Before, neither said anything of the other runs."""
    monkeypatch.setenv("COLUMNS", "400")  # the lines whole, to read
    main, one, two = imports.load_runs(PARALLEL)
    code, out, _ = run_cli("show", str(PARALLEL))
    assert code == 0
    lines = out.splitlines()
    for agent in (one, two):
        use = agent.links.parent.tool_use_id if agent.links.parent else None
        at = next(
            n for n, line in enumerate(lines) if f"started the sub-agent run {agent.run_id} (tool use {use})" in line
        )
        assert f"show it: agentrender show {PARALLEL} --run {agent.run_id}" in lines[at + 1]
    step_3 = next(n for n, line in enumerate(lines) if line.startswith("assistant · step 3"))
    step_3_result = next(n for n, line in enumerate(lines) if line.startswith("user · step 3"))
    assert step_3 < at < step_3_result  # under the reply whose tool uses started them, before their results
    assert f"started 2 sub-agents: run {one.run_id} (step 3), run {two.run_id} (step 3)" in flat(out)
    code, out, _ = run_cli("show", str(PARALLEL), "--run", one.run_id)
    assert code == 0 and f"a sub-agent of run {main.run_id}, started by its step 3" in flat(out)
    assert "show it:" not in out  # it started no run


def test_show_says_which_agent_wrote_the_compaction_before_a_step(monkeypatch: pytest.MonkeyPatch) -> None:
    """At the step after the compaction a forked agent wrote, ``show`` says which run wrote it, above the step's reply,
    with the command that shows that run."""
    monkeypatch.setenv("COLUMNS", "400")
    *_, fork = imports.load_runs(FORKED)
    code, out, _ = run_cli("show", str(FORKED), "--full")
    assert code == 0
    lines = out.splitlines()
    at = next(n for n, line in enumerate(lines) if "the compaction before this step was written by" in line)
    assert fork.run_id in lines[at] and f"--run {fork.run_id}" in lines[at + 1]
    assert lines[at - 1].startswith("step 71 ")  # the step's title, right above


def test_show_of_a_linked_run_gives_the_command_that_shows_where_it_started(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under the panel of a sub-agent's run, ``show`` gives the command that shows the session's step that started
    it (the view right after that step, whose last step says it started this run), and under a forked compaction
    agent's, the command that shows the session's view right after the compaction it wrote; a session gives none."""
    monkeypatch.setenv("COLUMNS", "400")
    main, one, _ = imports.load_runs(PARALLEL)
    code, out, _ = run_cli("show", str(PARALLEL), "--run", one.run_id)
    command = f"agentrender show {PARALLEL} --run {main.run_id} --at 4"
    assert code == 0 and f"show the step that started it: {command}" in out
    code, out, _ = run_cli(*command.split()[1:])
    steps = [line for line in out.splitlines() if line.startswith("step ")]
    assert code == 0 and steps[-1].startswith("step 3 ") and f"started the sub-agent run {one.run_id}" in out
    session, *_, fork = imports.load_runs(FORKED)
    code, out, _ = run_cli("show", str(FORKED), "--run", fork.run_id)
    command = f"agentrender show {FORKED} --run {session.run_id} --at 71"
    assert code == 0 and f"show the session after the compaction it wrote: {command}" in out
    code, out, _ = run_cli(*command.split()[1:])
    assert code == 0 and "compaction (auto) before step 71" in out
    code, out, _ = run_cli("show", str(PARALLEL))
    assert code == 0 and "\u21b0" not in out


def test_show_of_a_run_written_alone_says_its_linked_runs_are_not_in_its_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session and its sub-agent each written to a run file of its own (``agentrender import --run N``): ``show``
    of either still says its links, but that the other run is not in the file, and gives no command that would fail
    to find it."""
    monkeypatch.setenv("COLUMNS", "400")
    session, agent = imports.load_runs(SESSION)
    for number in (0, 1):
        code, _, err = run_cli("import", str(SESSION), "--run", str(number), "-o", str(tmp_path / f"{number}.jsonl"))
        assert code == 0, err
    code, out, _ = run_cli("show", str(tmp_path / "0.jsonl"), "--at", "3")  # the view right after step 2
    assert code == 0 and f"started the sub-agent run {agent.run_id}" in out
    assert f"{agent.run_id} (tool use " in out and "(not in this file)" in out and "show it:" not in out
    code, out, _ = run_cli("show", str(tmp_path / "1.jsonl"))
    assert code == 0 and f"the run that started it, {session.run_id}, is not in this file" in out
    assert "show the step that started it" not in out


def test_show_json_names_the_runs_links() -> None:
    """``show --json`` gives the run's links (``Run.links``) as plain values: the sub-agent's parent and the session's
    started runs."""
    session, agent = imports.load_runs(SESSION)
    code, out, _ = run_cli("show", str(SESSION), "--run", "1", "--json")
    assert code == 0
    parent = agent.links.parent
    assert parent is not None
    assert json.loads(out)["links"] == {
        "parent": {"run_id": session.run_id, "step": 2, "tool_use_id": parent.tool_use_id, "compaction_line": None},
        "started": [],
    }
    code, out, _ = run_cli("show", str(SESSION), "--json")
    assert [link["run_id"] for link in json.loads(out)["links"]["started"]] == [agent.run_id]
