"""Claude Code session transcripts import as runs that render what their model was sent."""

import gzip
import json
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentrender import ContentBlock, Message, RunFileError, StepInput, render
from agentrender._api_rules import message_problems
from agentrender._types import check_block
from agentrender.imports import first_line_summary, from_claude_code, load, load_runs
from agentrender.imports.conversation import plain_blocks
from agentrender.runfile import Run
from agentrender.views import Views
from tests._support import real
from tests._support.cli import run_cli
from tests._support.examples import examples
from tests._support.fuzz import CLAUDE_CODE_SESSION, FLAGGED_ON_MAIN, JSON_VALUES, paths, sidechain_flagged_on_main
from tests._support.real import REAL

FIXTURES = Path(__file__).parent / "fixtures" / "imports" / "claude-code"
GOLDEN = Path(__file__).parent / "golden"
SESSION = "7f3c2a91-5b0e-4d8a-9c61-2e4f8b7d1a05"
TRANSCRIPT = FIXTURES / f"{SESSION}.jsonl"


def parts(run: Run) -> list[tuple[int, int, Any]]:
    """The run's conversations as (first step, end, opening override): one before each compaction, then the last."""
    compactions = run.header.get("compactions", ())
    starts = [0] + [c["step"] for c in compactions]
    openings = [None] + [tuple(ContentBlock.from_dict(b) for b in c["opening"]) for c in compactions]
    ends = [*starts[1:], len(run.steps)]
    return list(zip(starts, ends, openings, strict=True))


def rendered(run: Run, start: int, end: int, opening: Any) -> list[dict[str, Any]]:
    """Steps ``start`` to ``end`` rendered as sent, after ``opening`` (``None``: the run's own)."""
    options = run.options() if opening is None else replace(run.options(), opening=opening)
    steps = list(run.steps)[start:end]
    messages = [m.to_dict() for m in render.messages(StepInput(steps=steps), options)]
    if steps and run.step_records[steps[-1].index]["sent"].get("user") is None:
        messages.pop()  # the contract's nudge: nothing was sent after that reply
    return messages


def as_sent(run: Run, at: int) -> list[dict[str, Any]]:
    """The messages of the request that decided step ``at``, by the run file's rule: after a compaction, its opening
    and the steps since it."""
    start, _, opening = [part for part in parts(run) if part[0] <= at][-1]
    return rendered(run, start, at, opening)


def sent(run: Run) -> list[list[dict[str, Any]]]:
    """Every conversation the run's model was sent, whole: the one before each compaction, then the last one."""
    return [rendered(run, *part) for part in parts(run)]


def view(run: Run, at: int) -> list[dict[str, Any]]:
    """The messages of the request that decided step ``at``, rendered from the run."""
    return as_sent(run, at)


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write(path: Path, records: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def runs() -> list[Run]:
    return from_claude_code(TRANSCRIPT)


def test_the_runs_are_the_whole_main_thread_then_each_sidechain(runs):
    """The main thread, its compaction included, is the first run, then each sub-agent's."""
    assert [run.run_id for run in runs] == [SESSION, f"{SESSION}/agent-b41e9c2", f"{SESSION}/agent-a9d07f3"]
    assert [run.header["source"]["thread"] for run in runs] == ["main", "sidechain", "sidechain"]
    assert runs[0].goal == "the price tests fail, can you look?"  # the session's first prompt, not the summary


def test_each_run_renders_back_the_conversations_as_sent(runs, golden):
    """Every run renders exactly the turns its model was sent, compared with the reviewed golden conversations."""
    conversations = {run.run_id: sent(run) for run in runs}
    golden("imports/claude_code_sent.json", json.dumps(conversations, indent=1, ensure_ascii=False) + "\n")


def test_the_view_at_each_step_is_the_request_of_that_step(runs):
    """The view at step k is the start of the reviewed conversation it belongs to: the request that decided step k."""
    conversations = json.loads((GOLDEN / "imports" / "claude_code_sent.json").read_text(encoding="utf-8"))
    for run in runs:
        parts = conversations[run.run_id]
        starts = [0] + [c["step"] for c in run.header.get("compactions", ())]
        for step in run.steps:
            part = max(i for i, start in enumerate(starts) if start <= step.index)
            expected = parts[part][: 2 * (step.index - starts[part]) + 1]
            assert view(run, step.index) == expected, (run.run_id, step.index)


def test_one_request_is_one_step_and_its_parallel_results_one_user_turn(runs):
    """A reply written one block a record is one assistant turn and one model call; its results are one user turn,
    in the order of its tool uses."""
    before = sent(runs[0])[0]
    assert [b["type"] for b in before[1]["content"]] == ["thinking", "tool_use"]
    assert [b.get("id") for b in before[3]["content"]] == [None, "toolu_01Cd4", "toolu_01Ef5"]
    assert [b["tool_use_id"] for b in before[4]["content"]] == ["toolu_01Cd4", "toolu_01Ef5"]
    assert not [w for w in runs[0].warnings if "joined" in w.text and w.line < 24]
    for run in runs:
        assert len(run.model_calls) == len({c.response.id for c in run.model_calls}) == len(run.steps)


def test_a_rewound_branch_is_not_sent_and_is_named_in_a_warning(runs):
    """Records on a branch the conversation left are in no run, and a warning names their lines."""
    everything = json.dumps([sent(run) for run in runs])
    assert "Understood, I won't edit it." not in everything
    assert "The file /home/dev/shop/price.py has been updated." in everything
    assert any("branches the conversation left" in w.text and "lines 17, 18" in w.text for w in runs[0].warnings)


def test_a_compaction_is_part_of_the_run_and_its_views_start_from_the_summary(runs):
    """The conversation before a compaction and the one after it are one run; from the compaction on, the model
    was sent the summary and what followed, and the header says where and how it happened."""
    main = runs[0]
    (compaction,) = main.header["compactions"]
    assert {k: v for k, v in compaction.items() if k != "opening"} == {
        "step": 5, "summary_blocks": [0], "trigger": "manual", "tokens_before": 21558,
        "at": "2026-01-02T19:12:21.118Z", "line": 24,
    }  # fmt: skip
    assert compaction["opening"][0]["text"].startswith("This session is being continued")
    assert view(main, 5)[0]["content"] == compaction["opening"] and len(view(main, 5)) == 1
    # the summary, then a local command's caveat, the command and the user's prompt, sent with it as they are
    assert [fact.kind for fact in Views(main).at(5).opening.blocks] == ["compaction", "as_sent", "as_sent", "as_sent"]
    assert view(main, 4)[0]["content"][0]["text"] == "the price tests fail, can you look?"
    assert main.step_records[4]["sent"].get("user") is None  # nothing was sent after that answer but /compact
    joined = [w for w in main.warnings if "joined into one turn" in w.text]
    assert [(w.line, w.count) for w in joined] == [(26, 3)]  # alike warnings are one, counted


def test_tool_use_results_are_kept_in_the_records_not_in_what_was_sent(runs):
    """``toolUseResult`` is in the run's source beside each record, never in the messages."""
    main = runs[0]
    assert "numLines" not in json.dumps(sent(main))
    kept = [r["toolUseResult"] for r in main.header["source"]["transcript"] if "toolUseResult" in r]
    assert {"status": "completed", "prompt": "List every caller of round_price in /home/dev/shop.",
            "agentId": "b41e9c2", "totalDurationMs": 5120, "totalTokens": 9120} in kept  # fmt: skip


def test_the_source_keeps_the_session_model_version_and_directory(runs):
    """Session id, Claude Code version, working directory, branch and model are in the header."""
    source = runs[0].header["source"]
    assert (source["session_id"], source["version"], source["cwd"], source["git_branch"]) == (
        SESSION,
        "2.0.76",
        "/home/dev/shop",
        "main",
    )
    assert runs[0].model == "claude-sonnet-4-5-20250929"
    assert runs[1].model == "claude-haiku-4-5-20251001"
    assert source["summaries"] == [
        {"line": 1, "summary": "Fix failing price rounding test", "leafUuid": "00000013-1c2d-4e5f-8a9b-000000000013"}
    ]
    assert "system prompt" in source["note"]
    assert source["outside_threads"] == {"file-history-snapshot": [2], "last-prompt": [32]}
    assert source["not_sent"] == {"system/compact_boundary": 1, "system/stop_hook_summary": 1}


def test_each_reply_is_a_model_call_with_its_recorded_usage(runs):
    """One model call per reply (``message.id``), for the step it decided, whose decision it gives again."""
    main = runs[0]
    assert [(c.step, c.response.id) for c in main.model_calls][:5] == [
        (0, "msg_01Hq7YtR2mVbN4kP8sWc3DfA"),
        (1, "msg_01Kc9VnW3xZpQ6rT1uYe5GhB"),
        (2, "msg_01Mn2PqS4tUvW7xY9zAb6CdE"),
        (3, "msg_01Pq3RsT5uVwX8yZ0aBc7DeF"),
        (4, "msg_01Rs4TuV6wXyZ9aBc1DeF8Gh"),
    ]
    assert main.model_calls[0].usage["cache_read_input_tokens"] == 14210
    for call in main.model_calls:
        assert render.decide(call.response) == main.steps[call.step].decision


def test_sidechains_are_their_own_runs_linked_to_the_step_that_started_them(runs):
    """An inline sidechain and a sub-agent's own file each give a run of the sub-agent's conversation; the main run
    names the step whose tool use started a sub-agent, and the sub-agent's run names it back."""
    main, inline, own_file = runs
    assert sent(inline)[0][0]["content"] == [
        {"type": "text", "text": "List every caller of round_price in /home/dev/shop."}
    ]
    assert [s.decision.tool for s in inline.steps] == ["Grep", ""]
    assert own_file.header["source"]["not_sent"] == {"progress": 1}
    assert own_file.path.endswith("subagents/agent-a9d07f3.jsonl")
    assert len(from_claude_code(TRANSCRIPT, subagents=False)) == 2
    link = {"step": 1, "tool_use_id": "toolu_01Ef5"}
    assert inline.header["source"]["parent"] == {"run_id": SESSION, **link}
    assert main.header["source"]["subagents"] == [{"run_id": inline.run_id, **link}]
    assert main.steps[1].decision.tool == "Read" or any(
        b["id"] == "toolu_01Ef5" for b in main.step_records[1]["sent"]["assistant"] if b["type"] == "tool_use"
    )


WORKFLOW_SESSION = (
    Path(__file__).parent / "fixtures" / "real" / "claude-code" / "daaain-claude-code-log" / "workflow_scriptpath"
    / "22220000-0000-4000-8000-000000000002.jsonl"
)  # fmt: skip


def test_a_workflows_agents_are_runs_linked_to_the_step_that_launched_the_workflow():
    """Claude Code writes the agents of a dynamic workflow one folder deeper than a sub-agent's
    (``subagents/workflows/<run id>/agent-<id>.jsonl``); each is a run, linked both ways with the step whose
    ``Workflow`` tool use launched it, by the run id its result names (a public fixture)."""
    main, agent = from_claude_code(WORKFLOW_SESSION)
    link = {"step": 0, "tool_use_id": "toolu_wfsp01"}
    assert agent.run_id == "22220000-0000-4000-8000-000000000002/agent-agsp0001"
    assert agent.path.endswith("subagents/workflows/wf_sp01/agent-agsp0001.jsonl")
    assert sent(agent)[0][0]["content"] == [{"type": "text", "text": "Sweep docs batches a and b."}]
    assert agent.header["source"]["workflow"] == "wf_sp01"
    assert agent.header["source"]["parent"] == {"run_id": main.run_id, **link}
    assert main.header["source"]["subagents"] == [{"run_id": agent.run_id, **link}]
    assert [step.decision.tool for step in main.steps] == ["Workflow", "Workflow"]
    assert len(from_claude_code(WORKFLOW_SESSION, subagents=False)) == 1


def test_every_agent_file_beside_a_session_is_read_and_a_workflows_journal_is_not(tmp_path):
    """A session's sub-agents in ``subagents/`` and the agents of each of its workflows in
    ``subagents/workflows/<run id>/`` are all read, in that order; a workflow whose launch names only its transcripts'
    folder is linked by that folder's name; the workflow's ``journal.jsonl`` and each agent's ``.meta.json`` are not
    transcripts and are not read."""
    session = write(tmp_path / "s.jsonl", [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s",
         "message": {"role": "user", "content": "go"}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s",
         "message": {"role": "assistant", "id": "m1", "content": [
             {"type": "tool_use", "id": "t1", "name": "Task", "input": {"prompt": "Look around."}},
             {"type": "tool_use", "id": "t2", "name": "Workflow", "input": {"script": "export default 1"}}]}},
        {"type": "user", "uuid": "u2", "parentUuid": "a1", "sessionId": "s",
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "Done."}]}},
        {"type": "user", "uuid": "u3", "parentUuid": "u2", "sessionId": "s",
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t2", "content": "Launched."}]},
         "toolUseResult": {"status": "async_launched", "transcriptDir": "/p/s/subagents/workflows/wf_9/"}},
    ])  # fmt: skip

    def agent(path: Path, agent_id: str, prompt: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        write(path, [
            {"type": "user", "uuid": f"{agent_id}-u", "parentUuid": None, "sessionId": "s", "isSidechain": True,
             "agentId": agent_id, "message": {"role": "user", "content": prompt}},
            {"type": "assistant", "uuid": f"{agent_id}-a", "parentUuid": f"{agent_id}-u", "sessionId": "s",
             "isSidechain": True, "agentId": agent_id,
             "message": {"role": "assistant", "id": f"m-{agent_id}", "content": [{"type": "text", "text": "Done."}]}},
        ])  # fmt: skip

    folder = tmp_path / "s" / "subagents"
    agent(folder / "agent-look.jsonl", "look", "Look around.")
    for name in ("agent-w2.jsonl", "agent-w1.jsonl"):
        agent(folder / "workflows" / "wf_9" / name, name[6:8], "One part of the work.")
    (folder / "workflows" / "wf_9" / "journal.jsonl").write_text('{"type": "started", "agentId": "w1"}\n')
    (folder / "workflows" / "wf_9" / "agent-w1.meta.json").write_text('{"agentType": "workflow-subagent"}')
    main, *agents = from_claude_code(session)
    assert [run.run_id for run in agents] == ["s/agent-look", "s/agent-w1", "s/agent-w2"]
    assert [run.header["source"].get("workflow") for run in agents] == [None, "wf_9", "wf_9"]
    assert [run.header["source"]["parent"]["tool_use_id"] for run in agents] == ["t1", "t2", "t2"]
    assert [link["run_id"] for link in main.header["source"]["subagents"]] == [run.run_id for run in agents]
    assert not [warning for run in (main, *agents) for warning in run.warnings]


AGENT_SESSION = REAL / "claude-code" / "jessitron-claude-log" / "ff80b049-3eff-495f-b4f0-c4071d615994.jsonl"
"""A real session of one sub-agent, its transcript and sidecar in ``<session-id>/subagents/``."""


def test_two_files_of_one_agent_id_give_runs_of_ids_unique_stable_and_naming_the_agent(tmp_path):
    """A real session whose sub-agent's transcript is also beside it in Claude Code 2.0's layout (two files of one
    ``agentId``) gives two runs of different ids, the first file's ``<session>/agent-<id>`` and the other's
    ``<session>/agent-<id>/1``, the same at every load, each linked from the main run and the second saying why it
    was renamed; ``runs_frame`` over the folder keeps a row for each, where both runs had one id."""
    from agentrender.frame import runs_frame

    if not AGENT_SESSION.is_file():
        pytest.skip("the real fixtures are not in this checkout")
    session = tmp_path / AGENT_SESSION.name
    shutil.copy(AGENT_SESSION, session)
    shutil.copytree(AGENT_SESSION.with_suffix(""), tmp_path / AGENT_SESSION.stem)
    [transcript] = (tmp_path / AGENT_SESSION.stem / "subagents").glob("agent-*.jsonl")
    shutil.copy(transcript, tmp_path / transcript.name)
    main, *agents = load_runs(session)
    first = f"{AGENT_SESSION.stem}/{transcript.stem}"
    assert [run.run_id for run in agents] == [first, f"{first}/1"]
    assert [run.path for run in agents] == [str(transcript), str(tmp_path / transcript.name)]
    assert [run.run_id for run in load_runs(session)] == [main.run_id, first, f"{first}/1"]
    assert [link["run_id"] for link in main.header["source"]["subagents"]] == [first, f"{first}/1"]
    said = [warning.text for warning in agents[1].warnings if "renamed" in warning.text]
    assert said == [f"{first} is also the id of the run of {transcript}: this run is renamed {first}/1"], said
    frame = runs_frame(tmp_path, workers=1, progress=False)
    assert frame["run_id"].tolist() == [main.run_id, first, f"{first}/1"] and frame["error"].isna().all()


SHOWCASE = (
    Path(__file__).parent / "fixtures" / "real" / "claude-code" / "daaain-claude-code-log"
    / "55550000-0000-4000-8000-000000000001.jsonl"
)  # fmt: skip


def test_what_claude_code_wrote_of_each_sub_agent_beside_its_transcript_is_in_its_runs_source():
    """A sub-agent's ``agent-<id>.meta.json`` (its type, description, and the id of the tool use that started it) is
    its run's ``source.meta``, as written, in the public fixtures of both layouts; the run is linked to that tool
    use."""
    for session in (SHOWCASE, WORKFLOW_SESSION):
        agents = from_claude_code(session)[1:]
        assert agents
        for agent in agents:
            sidecar = Path(agent.path).with_suffix(".meta.json")
            assert agent.header["source"]["meta"] == json.loads(sidecar.read_text("utf-8"))
            started_by = agent.header["source"]["meta"].get("toolUseId")
            if started_by is not None:
                assert agent.header["source"]["parent"]["tool_use_id"] == started_by
    assert [agent.header["source"]["meta"]["description"] for agent in from_claude_code(SHOWCASE)[1:]] == [
        "Survey the web module",
        "Survey the jobs module",
    ]


def test_a_gzipped_sub_agents_transcript_keeps_what_claude_code_wrote_of_it_beside(tmp_path):
    """A sub-agent's transcript compressed with gzip (``agent-<id>.jsonl.gz``) beside its ``agent-<id>.meta.json``
    gives the run it gave uncompressed, its ``source.meta`` the sidecar's, where the sidecar was looked for as
    ``agent-<id>.jsonl.meta.json`` and left out without a word."""
    if not SHOWCASE.is_file():
        pytest.skip("the real fixtures are not in this checkout")
    shutil.copy(SHOWCASE, tmp_path / SHOWCASE.name)
    shutil.copytree(SHOWCASE.with_suffix(""), tmp_path / SHOWCASE.stem)
    for transcript in (tmp_path / SHOWCASE.stem / "subagents").glob("*.jsonl"):
        transcript.with_suffix(".jsonl.gz").write_bytes(gzip.compress(transcript.read_bytes()))
        transcript.unlink()
    plain, packed = from_claude_code(SHOWCASE)[1:], from_claude_code(tmp_path / SHOWCASE.name)[1:]
    assert [run.header["source"]["meta"] for run in packed] == [run.header["source"]["meta"] for run in plain]
    assert [run.header["source"]["parent"] for run in packed] == [run.header["source"]["parent"] for run in plain]
    assert len(plain) == 2


def test_a_session_gzipped_whole_keeps_what_claude_code_wrote_of_each_sub_agent(tmp_path):
    """A session's folder compressed whole, as ``gzip -r`` leaves it (``agent-<id>.jsonl.gz`` beside
    ``agent-<id>.meta.json.gz``), gives each sub-agent the ``source.meta`` and the link to its tool use it had
    uncompressed, where the compressed sidecar was not looked for and left out without a word; a compressed sidecar
    that is no JSON object is said as a plain one is."""
    if not SHOWCASE.is_file():
        pytest.skip("the real fixtures are not in this checkout")
    shutil.copy(SHOWCASE, tmp_path / SHOWCASE.name)
    shutil.copytree(SHOWCASE.with_suffix(""), tmp_path / SHOWCASE.stem)
    for file in (tmp_path / SHOWCASE.stem / "subagents").glob("*.json*"):
        file.with_name(file.name + ".gz").write_bytes(gzip.compress(file.read_bytes()))
        file.unlink()
    plain, packed = from_claude_code(SHOWCASE)[1:], from_claude_code(tmp_path / SHOWCASE.name)[1:]
    assert [run.header["source"]["meta"] for run in packed] == [run.header["source"]["meta"] for run in plain]
    assert [run.header["source"]["parent"] for run in packed] == [run.header["source"]["parent"] for run in plain]
    assert len(plain) == 2 and all(run.warnings == () for run in packed)
    sidecar = next((tmp_path / SHOWCASE.stem / "subagents").glob("*.meta.json.gz"))
    sidecar.write_bytes(gzip.compress(b"[1]"))
    said = [warning.text for run in from_claude_code(tmp_path / SHOWCASE.name)[1:] for warning in run.warnings]
    assert said == ["expected a JSON object, got array: the sub-agent's description is left out"], said


def test_a_sub_agent_is_linked_by_the_tool_use_its_sidecar_names_and_a_broken_sidecar_is_said(tmp_path):
    """A sub-agent whose prompt and id match no tool use is linked to the one its ``.meta.json`` names; a sidecar that
    is not a JSON object is left out with a warning naming its file, and the agent's run is made as without one."""
    session = write(tmp_path / "s.jsonl", [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s",
         "message": {"role": "user", "content": "go"}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s",
         "message": {"role": "assistant", "id": "m1", "content": [
             {"type": "tool_use", "id": "t1", "name": "Agent", "input": {"prompt": "Something else."}}]}},
        {"type": "user", "uuid": "u2", "parentUuid": "a1", "sessionId": "s",
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "Done."}]}},
    ])  # fmt: skip
    folder = tmp_path / "s" / "subagents"
    folder.mkdir(parents=True)
    for agent_id, sidecar in (("one", '{"toolUseId": "t1", "description": "Look"}'), ("two", "[1]"), ("three", "{")):
        write(folder / f"agent-{agent_id}.jsonl", [
            {"type": "user", "uuid": f"{agent_id}-u", "parentUuid": None, "sessionId": "s", "isSidechain": True,
             "agentId": agent_id, "message": {"role": "user", "content": "Look around."}},
        ])  # fmt: skip
        (folder / f"agent-{agent_id}.meta.json").write_text(sidecar)
    main, one, three, two = from_claude_code(session)
    assert one.header["source"]["meta"] == {"toolUseId": "t1", "description": "Look"}
    assert one.header["source"]["parent"] == {"run_id": "s", "step": 0, "tool_use_id": "t1"}
    assert [link["run_id"] for link in main.header["source"]["subagents"]] == ["s/agent-one"]
    for run, what in ((two, "expected a JSON object, got array"), (three, "not JSON (")):
        assert "meta" not in run.header["source"] and "parent" not in run.header["source"]
        (warning,) = [warning for warning in run.warnings if warning.path.endswith(".meta.json")]
        assert warning.path == str(Path(run.path).with_suffix(".meta.json")) and warning.text.startswith(what)
        assert warning.text.endswith(": the sub-agent's description is left out")


@pytest.mark.parametrize(
    ("lines", "line", "what"),
    [
        (["not json"], 1, "not JSON: "),
        (
            [{"type": "assistant", "uuid": "x1", "parentUuid": None, "sessionId": "s", "isSidechain": True,
              "agentId": "x", "message": {"role": "assistant", "content": "I start.", "id": "msg_x"}}],
            1,
            "parentUuid: the thread starts with an assistant message: the request that it answered is not in this file",
        ),
    ],
    ids=["not JSON", "a thread that starts with a reply"],
)  # fmt: skip
def test_a_sub_agents_file_that_cannot_be_read_is_left_out_and_said(tmp_path, lines, line, what):
    """One sub-agent's file that cannot be read (read alone, or only once its threads are made) keeps neither the
    session nor its other agents from being read: it is left out, and the session's run says which file, which line
    and what is wrong, as a record lost, which ``check`` reports as an error. The session's own file still refuses."""
    session = forked_session(tmp_path)
    folder = tmp_path / "s" / "subagents"
    bad, text = (
        folder / "agent-bad.jsonl",
        "".join(item if isinstance(item, str) else json.dumps(item) for item in lines),
    )
    bad.write_text(text + "\n")
    main, fork = from_claude_code(session)
    bad.unlink()
    expected = from_claude_code(session)
    assert [run.run_id for run in (main, fork)] == [run.run_id for run in expected]
    assert list(fork.steps) == list(expected[1].steps) and list(main.steps) == list(expected[0].steps)
    (said,) = [w for w in main.warnings if w.path == str(bad)]
    assert (said.line, said.lost) == (line, True)
    assert said.text.startswith(f"a sub-agent's file that cannot be read, left out with its runs: {what}")
    bad.write_text(text + "\n")
    code, out, _ = run_cli("check", str(session), "--run", "0", "--json")
    (checked,) = json.loads(out)
    assert code == 1 and [
        (f["code"], f["file"], f["line"]) for f in checked["findings"] if f["code"] != "load-warning"
    ] == [("lost-record", str(bad), line)]
    session.write_text("not json\n")
    with pytest.raises(RunFileError, match=r"s\.jsonl:1: not JSON"):
        from_claude_code(session)


def test_a_sub_agent_files_sidecar_is_read_once_for_all_its_threads(tmp_path):
    """A sub-agent's file of two threads has one sidecar: each thread's run holds it, and a broken one is said once."""
    session = write(tmp_path / "s.jsonl", MINIMAL)
    folder = tmp_path / "s" / "subagents"
    folder.mkdir(parents=True)
    write(folder / "agent-x.jsonl", [
        {"type": "user", "uuid": f"{agent_id}-u", "parentUuid": None, "sessionId": "s", "isSidechain": True,
         "agentId": agent_id, "message": {"role": "user", "content": "Look around."}}
        for agent_id in ("x", "y")
    ])  # fmt: skip
    (folder / "agent-x.meta.json").write_text('{"description": "Look"}')
    agents = from_claude_code(session)[1:]
    assert [run.header["source"]["meta"] for run in agents] == [{"description": "Look"}] * 2
    (folder / "agent-x.meta.json").write_text("[]")
    said = [w for run in from_claude_code(session) for w in run.warnings if w.path.endswith(".meta.json")]
    assert [(warning.count, warning.text[:35]) for warning in said] == [(1, "expected a JSON object, got array: ")]


def compacted(logical: str, summary: str = "Summary.", **metadata: Any) -> list[dict[str, Any]]:
    """A compaction as Claude Code writes it: its boundary (``b1``, naming ``logical`` as the last record before it,
    with ``trigger`` auto unless ``metadata`` says otherwise), then the summary (``u5``) the conversation after it
    opens with."""
    boundary = {"type": "system", "subtype": "compact_boundary", "uuid": "b1", "parentUuid": None, "sessionId": "s",
                "logicalParentUuid": logical, "compactMetadata": {"trigger": "auto", **metadata}}  # fmt: skip
    return [boundary, {**record("u5", "b1", "user", [{"type": "text", "text": summary}]), "isCompactSummary": True}]


def compacted_session(folder: Path, *after: dict[str, Any]) -> Path:
    """A session of one answered prompt, a compaction (its summary ``u5``) and the records ``after`` it."""
    return write(folder / "s.jsonl", [
        record("u1", None, "user", [{"type": "text", "text": "go"}]),
        record("a1", "u1", "assistant", [{"type": "text", "text": "Done."}], "msg_1"),
        *compacted("a1", summary="Summary of the work."), *after,
    ])  # fmt: skip


def test_a_prompt_after_a_compaction_is_sent_with_its_summary_and_labelled_as_the_users(tmp_path: Path) -> None:
    """The user's next prompt after a compaction is joined to the summary in one turn: the header's compaction says
    which block is the summary (``summary_blocks``), and the view labels the summary the summary and the prompt as
    sent, not as part of the summary."""
    session = compacted_session(
        tmp_path,
        record("u6", "u5", "user", [{"type": "text", "text": "Now the tests."}]),
        record("a6", "u6", "assistant", [{"type": "text", "text": "On it."}], "msg_6"),
    )
    (run,) = from_claude_code(session)
    (compaction,) = run.header["compactions"]
    assert compaction["summary_blocks"] == [0] and run.compactions[0].summary_blocks == (0,)
    assert view(run, 1) == [{"role": "user", "content": [{"type": "text", "text": "Summary of the work."},
                                                         {"type": "text", "text": "Now the tests."}]}]  # fmt: skip
    assert [fact.kind for fact in Views(run).at(1).opening.blocks] == ["compaction", "as_sent"]


def test_a_compaction_with_no_prompt_after_it_opens_with_its_summary_alone(tmp_path: Path) -> None:
    """A reply right after the summary (a compaction that kept the last messages): every block of the opening is the
    summary; and a compaction with no ``isCompactSummary`` record after it says nothing of which block is, so every
    block is taken for the summary, as before."""
    reply = record("a6", "u5", "assistant", [{"type": "text", "text": "On it."}], "msg_6")
    (run,) = from_claude_code(compacted_session(tmp_path, reply))
    assert run.header["compactions"][0]["summary_blocks"] == [0]
    assert [fact.kind for fact in Views(run).at(1).opening.blocks] == ["compaction"]
    records = lines_of(compacted_session(tmp_path, reply))
    del records[3]["isCompactSummary"]
    (run,) = from_claude_code(write(tmp_path / "s.jsonl", records))
    assert "summary_blocks" not in run.header["compactions"][0] and run.compactions[0].summary_blocks is None
    assert [fact.kind for fact in Views(run).at(1).opening.blocks] == ["compaction"]


def forked_agent(folder: Path, records: list[dict[str, Any]]) -> Path:
    """The file of the agent Claude Code forked from the session ``s`` in ``folder`` (``acompact-1``): ``records``,
    each marked as that agent's, as it writes them."""
    agents = folder / "s" / "subagents"
    agents.mkdir(parents=True, exist_ok=True)
    marked = [{**made, "isSidechain": True, "agentId": "acompact-1"} for made in records]
    return write(agents / "agent-acompact-1.jsonl", marked)


def forked_session(folder: Path, *, compaction: bool = True) -> Path:
    """A session of two tool uses (lines 1-5), then (``compaction``) a compaction (line 6) and a reply after it; beside
    it, the file of the agent Claude Code forked to write the summary: a hook's reminder the session's file lacks,
    sent after the first result (line 1), another after the second (line 2), the request for the summary (line 3)
    and the summary (line 4), each hanging from the record it was sent after."""
    session = write(folder / "s.jsonl", [
        record("u1", None, "user", [{"type": "text", "text": "go"}]),
        record("a1", "u1", "assistant", [tool_use("t1")], "msg_1"),
        {**results("u2", "a1", "t1"), "sessionId": "s"},
        record("a2", "u2", "assistant", [tool_use("t2")], "msg_2"),
        {**results("u3", "a2", "t2"), "sessionId": "s"},
        *([*compacted("u3", preTokens=155000), record("a5", "u5", "assistant", [{"type": "text", "text": "On."}],
                                                     "msg_5")]
          if compaction else []),
    ])  # fmt: skip

    def forked(uuid: str, parent: str, role: str, text: str, **fields: Any) -> dict[str, Any]:
        return {**record(uuid, parent, role, [{"type": "text", "text": text}], "msg_s"), **fields}

    forked_agent(folder, [
        forked("r1", "u2", "user", "<system-reminder>The hook said A.</system-reminder>", isMeta=True),
        forked("r2", "u3", "user", "<system-reminder>The hook said B.</system-reminder>", isMeta=True),
        forked("p", "r2", "user", "Summarise the conversation so far."),
        forked("s1", "p", "assistant", "Summary."),
    ])  # fmt: skip
    return session


def test_a_compactions_agent_was_sent_the_conversation_it_summarised(tmp_path):
    """The agent Claude Code forks to write a compaction's summary was sent the session's conversation up to the
    compaction, with the hook reminders the session's file does not hold after the records they followed, then its
    request: its run is that conversation, its one model call its own, linked both ways with the compaction. A
    reminder it was sent before a later request of the session's was sent in that request too: the session's run
    holds it, and says so."""
    main, fork = from_claude_code(forked_session(tmp_path))
    result = lambda tool_id: {"type": "tool_result", "tool_use_id": tool_id, "content": f"{tool_id} done"}  # noqa: E731
    text = lambda text: {"type": "text", "text": text}  # noqa: E731
    assert view(fork, 2) == [
        {"role": "user", "content": [text("go")]},
        {"role": "assistant", "content": [tool_use("t1")]},
        {"role": "user", "content": [result("t1"), text("<system-reminder>The hook said A.</system-reminder>")]},
        {"role": "assistant", "content": [tool_use("t2")]},
        {"role": "user", "content": [result("t2"), text("<system-reminder>The hook said B.</system-reminder>"),
                                     text("Summarise the conversation so far.")]},
    ]  # fmt: skip
    # the session sent the first reminder too, in its request for step 1; the second came after its last request
    assert view(main, 1) == view(fork, 2)[:3]
    assert fork.steps[2].decision.reason == "Summary."
    assert [run.end and run.end["reason"] for run in (main, fork)] == [
        "the session's last reply is an answer",
        "the agent's last reply is an answer",
    ]
    assert [(call.step, call.response.id) for call in fork.model_calls] == [(2, "msg_s")]
    source = fork.header["source"]
    assert source["forked_from"] == {"line": 5, "uuid": "u3", "steps": 2}  # steps 0 and 1 are the session's
    assert source["parent"] == {"run_id": "s", "step": 2, "compaction_line": 6}
    assert main.header["source"]["subagents"] == [{"run_id": "s/agent-acompact-1", "step": 2, "compaction_line": 6}]
    # the session's run is no agent's, though it holds a message of one
    assert "agent_id" not in main.header["source"] and source["agent_id"] == "acompact-1"
    assert [c["step"] for c in main.header["compactions"]] == [2]
    # each joined turn said, in the file that holds the record: the forked agent's; and the session's run says where
    # the message its file lacks came from
    assert {(Path(w.path).name, w.line) for w in fork.warnings} == {("agent-acompact-1.jsonl", 1)}
    said = [(Path(w.path).name, w.line, w.text) for w in main.warnings]
    assert [(name, line) for name, line, _ in said] == [("agent-acompact-1.jsonl", 1)] * 2
    assert "a message the session's file does not hold, sent after its line 3: read into" in said[0][2]
    assert "a user message right after another" in said[1][2]


def test_a_forked_agents_frames_mark_the_session_steps_it_holds(tmp_path):
    """The steps a compaction's agent holds but did not decide (the session's conversation it was sent) are marked in
    its steps frame and counted in its row of runs_frame, written and read back, so that a count over the session's
    runs can leave them out."""
    from agentrender.frame import runs_frame, steps_frame
    from agentrender.runfile import write_run

    main, fork = from_claude_code(forked_session(tmp_path))
    assert (main.inherited_steps, fork.inherited_steps) == (0, 2)
    assert steps_frame(fork)["inherited"].tolist() == [True, True, False]
    assert steps_frame(main)["inherited"].tolist() == [False] * len(main.steps)
    paths = [tmp_path / "main.jsonl", tmp_path / "fork.jsonl"]
    for run, path in zip((main, fork), paths, strict=True):
        write_run(run, path)
    runs = runs_frame(paths)
    assert runs["inherited_steps"].tolist() == [0, 2]
    assert (runs["steps"] - runs["inherited_steps"]).sum() == len(main.steps) + 1  # the summary is the agent's own


def test_every_display_says_where_a_forked_agents_run_comes_from(tmp_path):
    """``runs``, the header of ``show``, a run's HTML in a notebook and its page each say which compaction a forked
    agent wrote and how many of its steps are the session's, in the same words; a recorded run says none."""
    from agentrender import samples
    from agentrender.html import page

    session = forked_session(tmp_path)
    _, fork = from_claude_code(session)
    said = "wrote the compaction at line 6 (its first 2 steps are the session"  # then 's), escaped in HTML
    code, out, _ = run_cli("show", str(session), "--run", "1", "--width", "300")
    (line,) = [line for line in out.splitlines() if line.lstrip("│ ").startswith("from ")]
    assert code == 0 and line.split(" from ", 1)[1].split("│")[0].strip() == (
        f"claude-code, thread sidechain, agent id acompact-1, {said}'s)"
    )
    assert said in fork._repr_html_() and said in page(fork)
    recorded = samples.load("flaky-build-resumed")
    assert ">from<" not in recorded._repr_html_() and "agent id" not in page(recorded)


def test_a_reminder_after_a_result_that_forks_off_the_thread_joins_that_results_turn(tmp_path):
    """Claude Code writes each parallel tool use's result as a child of its own tool use, so one result is off the
    thread's chain. A reminder a forked agent kept after that result was sent in the reply's results turn, in the
    session's requests after it and in the agent's; it makes no thread of its own."""
    session = write(tmp_path / "s.jsonl", [
        record("u1", None, "user", [{"type": "text", "text": "go"}]),
        record("a1", "u1", "assistant", [tool_use("t1")], "msg_1"),
        record("a2", "a1", "assistant", [tool_use("t2")], "msg_1"),
        {**results("r1", "a1", "t1"), "sessionId": "s"},
        {**results("r2", "a2", "t2"), "sessionId": "s"},
        record("a3", "r2", "assistant", [{"type": "text", "text": "Both ran."}], "msg_2"),
        {**results("r3", "a3"), "message": {"role": "user", "content": "And now?"}, "sessionId": "s"},
        record("a4", "r3", "assistant", [{"type": "text", "text": "Done."}], "msg_3"),
        *compacted("a4"), record("a5", "u5", "assistant", [{"type": "text", "text": "On."}], "msg_5"),
    ])  # fmt: skip
    forked_agent(tmp_path, [
        {**record("m1", "r1", "user", [{"type": "text", "text": "<system-reminder>After t1.</system-reminder>"}]),
         "isMeta": True},
        record("p", "a4", "user", [{"type": "text", "text": "Summarise."}]),
        record("s1", "p", "assistant", [{"type": "text", "text": "Summary."}], "msg_s"),
    ])  # fmt: skip
    main, forked = from_claude_code(session)
    results_turn = {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": "t1 done"},
        {"type": "tool_result", "tool_use_id": "t2", "content": "t2 done"},
        {"type": "text", "text": "<system-reminder>After t1.</system-reminder>"},
    ]}  # fmt: skip
    assert view(main, 1)[2] == results_turn == view(forked, 3)[2]
    sent = view(forked, 3)
    assert sent[:-2] == view(main, 2) and sent[-1] == {
        "role": "user",
        "content": [{"type": "text", "text": "Summarise."}],
    }
    assert forked.header["source"]["parent"] == {"run_id": "s", "step": 3, "compaction_line": 9}
    assert [w.line for w in main.warnings if "sent after its line 4: read into" in w.text] == [1]


def test_a_compactions_agent_that_hangs_from_a_result_off_the_thread_is_linked_to_its_compaction(tmp_path):
    """The last message before a compaction can be a parallel tool use's result that is off the thread's chain (each
    result is written as a child of its own tool use). The agent that wrote the summary hangs from it: it went on from
    that result's line, was sent the whole results turn, and is linked to the compaction all the same."""
    session = write(tmp_path / "s.jsonl", [
        record("u1", None, "user", [{"type": "text", "text": "go"}]),
        record("a1", "u1", "assistant", [tool_use("t1")], "msg_1"),
        record("a2", "a1", "assistant", [tool_use("t2")], "msg_1"),
        {**results("r2", "a2", "t2"), "sessionId": "s"},
        {**results("r1", "a1", "t1"), "sessionId": "s"},
        *compacted("r2"), record("a5", "u5", "assistant", [{"type": "text", "text": "On."}], "msg_5"),
    ])  # fmt: skip
    forked_agent(tmp_path, [
        record("p", "r1", "user", [{"type": "text", "text": "Summarise."}]),
        record("s1", "p", "assistant", [{"type": "text", "text": "Summary."}], "msg_s"),
    ])  # fmt: skip
    main, forked = from_claude_code(session)
    assert view(forked, 1) == [
        {"role": "user", "content": [{"type": "text", "text": "go"}]},
        {"role": "assistant", "content": [tool_use("t1"), tool_use("t2")]},
        {"role": "user", "content": [  # the results in the order they were written: t2's finished first
            {"type": "tool_result", "tool_use_id": "t2", "content": "t2 done"},
            {"type": "tool_result", "tool_use_id": "t1", "content": "t1 done"},
            {"type": "text", "text": "Summarise."},
        ]},
    ]  # fmt: skip
    source = forked.header["source"]
    assert source["forked_from"] == {"line": 5, "uuid": "r1", "steps": 1}
    assert source["parent"] == {"run_id": "s", "step": 1, "compaction_line": 6}
    assert main.header["source"]["subagents"] == [{"run_id": "s/agent-acompact-1", "step": 1, "compaction_line": 6}]


def test_a_message_two_forked_agents_kept_is_read_into_the_session_once(tmp_path):
    """Two agents forked from the session (a compaction's, a prompt suggestion's) that both kept the same reminder:
    the session's turn holds it once, and one warning says so."""
    session = forked_session(tmp_path)
    agents = tmp_path / "s" / "subagents"
    kept = lines_of(agents / "agent-acompact-1.jsonl")
    write(agents / "agent-aprompt_suggestion-2.jsonl", [{**line, "agentId": "aprompt_suggestion-2"} for line in kept])
    main, *forked = from_claude_code(session)
    assert [run.run_id for run in forked] == ["s/agent-acompact-1", "s/agent-aprompt_suggestion-2"]
    assert view(main, 1) == view(forked[0], 2)[:3] == view(forked[1], 2)[:3]
    assert [w.count for w in main.warnings if "the session's file does not hold" in w.text] == [1]


def test_an_agent_forked_before_its_compaction_is_written_goes_on_from_the_session(tmp_path):
    """While the compaction's boundary is not written yet (the session is being followed), the forked agent's run is
    still the conversation it was sent, linked to nothing yet: not even to a ``Task`` tool use whose prompt is the
    session's first, which the agent's conversation opens with too."""
    session = forked_session(tmp_path, compaction=False)
    records = lines_of(session)
    records[1]["message"]["content"][0].update(name="Task", input={"prompt": "go"})
    main, fork = from_claude_code(write(session, records))
    assert len(fork.steps) == 3 and fork.header["source"]["forked_from"]["uuid"] == "u3"
    assert fork.header["source"]["forked_from"]["steps"] == 2
    assert "parent" not in fork.header["source"] and "subagents" not in main.header["source"]
    assert (main.steps[0].decision.tool, main.steps[0].decision.args) == ("Task", {"prompt": "go"})
    code, out, _ = run_cli("runs", str(session), "--json")
    assert code == 0 and json.loads(out)[1]["source"] == (
        "claude-code, thread sidechain, agent id acompact-1, forked at line 5 of the session (its first 2 steps are "
        "the session's)"
    )


SPOTTER = REAL / "claude-code" / "marot-spotter" / "258c7280-ae70-4798-800f-63464d01a85d.jsonl"
"""A real session of 152 requests with a compaction, and beside it the agent forked to write the summary (public:
``tests/fixtures/real/README.md``)."""


@pytest.mark.skipif(not SPOTTER.is_file(), reason="the real fixtures are not in this checkout")
def test_a_real_compactions_agent_was_sent_the_session_up_to_the_compaction():
    """The real forked agent's request is the session's conversation before the compaction (the request of the step
    before it, that step's reply and its result), then the request for the summary; its run is linked both ways with
    the compaction. The two hook reminders its file holds, which the session's file does not, are in the turns of the
    records they hang from, in its run and in the session's: the session's replies right after them answer them."""
    main, _, forked = from_claude_code(SPOTTER)
    (compaction,) = main.compactions
    step = compaction.step
    assert (step, compaction.line) == (102, 1256)
    assert forked.header["source"]["parent"] == {"run_id": main.run_id, "step": step, "compaction_line": 1256}
    assert {"run_id": forked.run_id, "step": step, "compaction_line": 1256} in main.header["source"]["subagents"]
    assert forked.header["source"]["forked_from"]["line"] == 1255
    assert forked.header["source"]["forked_from"]["steps"] == step  # its own step is its last
    assert len(forked.steps) == step + 1 and [call.step for call in forked.model_calls] == [step]
    sent = view(forked, step)
    assert sent[:-2] == view(main, step - 1) and sent[-2]["role"] == "assistant"
    assert sent[-1]["content"][-1]["text"].startswith("Your task is to create a detailed summary of the conversation")
    assert forked.steps[step].decision.reason.lstrip().startswith("<analysis>")
    agent_file = lines_of(SPOTTER.with_suffix("") / "subagents" / "agent-acompact-fffbd0.jsonl")
    reminders = [line["message"]["content"] for line in agent_file if line.get("isMeta")]
    shown = [
        (number, turn["content"][-1]["text"])
        for number, turn in enumerate(sent)
        if turn["role"] == "user" and turn["content"][-1].get("text") in reminders
    ]
    assert [text for _, text in shown] == reminders
    for number, text in shown:  # the reply after each reminder is the session's: it was sent the reminder
        step_after = (number + 1) // 2
        assert view(main, step_after)[number]["content"][-1]["text"] == text
    assert "Right — I added `:state` to the accept list" in main.steps[(shown[0][0] + 1) // 2].decision.reason
    revealed = [w for w in main.warnings if "a message the session's file does not hold" in w.text]
    assert [(Path(w.path).name, w.line) for w in revealed] == [
        ("agent-acompact-fffbd0.jsonl", 1),
        ("agent-acompact-fffbd0.jsonl", 2),
    ]


SPOTTER_PARALLEL = REAL / "claude-code" / "marot-spotter" / "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
"""A real Claude Code 2.1.39 session whose parallel tool uses finished out of order (``tests/fixtures/real``)."""


@pytest.mark.skipif(not SPOTTER_PARALLEL.is_file(), reason="the real fixtures are not in this checkout")
def test_real_parallel_results_are_sent_in_the_order_they_finished():
    """A real reply's Glob then Read (lines 929-930): the Read finished first, and Claude Code wrote its result first
    (line 933, then 936). It sent them so, and so does the view; ``check`` finds nothing to say of the order."""
    lines = lines_of(SPOTTER_PARALLEL)
    uses = lines[928]["message"]["content"] + lines[929]["message"]["content"]
    assert [use["name"] for use in uses] == ["Glob", "Read"]
    written = [lines[number - 1]["message"]["content"][0]["tool_use_id"] for number in (933, 936)]
    assert written == [uses[1]["id"], uses[0]["id"]]
    main = from_claude_code(SPOTTER_PARALLEL)[0]
    last = view(main, len(main.steps) - 1)
    at = next(i for i, turn in enumerate(last) if [b for b in turn["content"] if b["type"] == "tool_use"] == uses)
    assert [block["tool_use_id"] for block in last[at + 1]["content"]] == written
    assert list(message_problems([Message.from_dict(turn) for turn in last])) == []


def test_the_end_of_a_session_comes_from_its_last_reply(runs, tmp_path):
    """A session whose last reply answers (no tool use) completed; one that stops on a tool use records no end."""
    assert runs[0].end is not None and runs[0].end["status"] == "completed"
    assert runs[0].end["at"] == "2026-01-02T19:13:07.118Z"
    (cut,) = from_claude_code(write(tmp_path / "s.jsonl", MINIMAL[:2]))
    assert cut.end is None


JESSITRON = REAL / "claude-code" / "jessitron-claude-log"
"""Real sessions of Claude Code 2.1.89-2.1.105 (public: ``tests/fixtures/real/README.md``)."""


def failed_request(uuid: str, parent: str, text: str) -> dict[str, Any]:
    """The reply Claude Code writes itself when a request fails: ``isApiErrorMessage``, model ``<synthetic>``."""
    failed = record(uuid, parent, "assistant", [{"type": "text", "text": text}], f"synthetic-{uuid}")
    failed["message"]["model"] = "<synthetic>"
    return {**failed, "isApiErrorMessage": True, "timestamp": "2026-04-17T08:10:28.297Z"}


def local_command(uuid: str, parent: str, text: str) -> dict[str, Any]:
    """A ``system`` record of a local command (``/cost``) or its output, as Claude Code writes it."""
    return {"type": "system", "subtype": "local_command", "content": text, "level": "info", "isMeta": False,
            "uuid": uuid, "parentUuid": parent, "sessionId": "s", "isSidechain": False}  # fmt: skip


@pytest.mark.skipif(not JESSITRON.is_dir(), reason="the real fixtures are not in this checkout")
def test_the_reply_claude_code_wrote_for_a_failed_request_was_never_sent():
    """In a real session, a request timed out and Claude Code wrote "Request timed out" as a reply of its own
    (line 71), which it never sends to the model: no request holds it, the user's "continue" (line 74) joins the turn
    of the result before it (line 60) as Claude Code joined them, and the record is kept, counted and said. The
    ``<synthetic>`` "No response requested." it does send stays."""
    path = JESSITRON / "agents-observe-bug.jsonl"
    lines = lines_of(path)
    assert lines[70]["isApiErrorMessage"] and lines[70]["message"]["model"] == "<synthetic>"
    (run,) = from_claude_code(path)
    sent = [view(run, at) for at in range(len(run.steps))]
    assert not any("Request timed out" in json.dumps(messages) for messages in sent)
    continued = [
        at for at, messages in enumerate(sent) if {"type": "text", "text": "continue"} in messages[-1]["content"]
    ]
    assert continued and sent[continued[0]][-2:] == [
        {"role": "assistant", "content": [block for line in lines[56:59] for block in line["message"]["content"]]},
        {"role": "user", "content": [*lines[59]["message"]["content"], {"type": "text", "text": "continue"}]},
    ]
    assert 71 in [record["line"] for record in run.header["source"]["transcript"]]
    assert run.header["source"]["not_sent"]["assistant/api_error"] == 1
    (said,) = [warning for warning in run.warnings if warning.line == 71]
    assert "a request that failed ('Request timed out')" in said.text and not said.lost
    assert any("No response requested." in json.dumps(messages) for messages in sent)


def test_a_session_that_stops_on_a_failed_request_failed(tmp_path):
    """A thread whose last record is the reply Claude Code wrote for a failed request (a usage limit) ended failed,
    with what it said, in every display; a request that failed mid-way and was followed by more ends as the rest
    does."""
    from agentrender.html import page

    opening = [
        record("u1", None, "user", [{"type": "text", "text": "go"}]),
        record("a1", "u1", "assistant", [tool_use("t1")], "msg_1"),
        {**results("r1", "a1", "t1"), "sessionId": "s"},
    ]
    limit = failed_request("e1", "r1", "You've hit your limit · resets 1:20am (Europe/Berlin)")
    (stopped,) = from_claude_code(write(tmp_path / "stopped.jsonl", [*opening, limit]))
    assert [step.index for step in stopped.steps] == [0] and stopped.steps[0].observation.content == "t1 done"
    assert stopped.end == {"type": "end", "status": "failed", "reason": "the session's last request failed",
                           "error": "You've hit your limit · resets 1:20am (Europe/Berlin)",
                           "at": "2026-04-17T08:10:28.297Z"}  # fmt: skip
    code, out, _ = run_cli("runs", str(tmp_path / "stopped.jsonl"), "--json")
    assert code == 0 and json.loads(out)[0]["end"] == "failed: the session's last request failed"
    # show, a run's HTML and its page each say how it ended, and what the failed request said
    _, out, _ = run_cli("show", str(tmp_path / "stopped.jsonl"), "--width", "200", "--color", "never")
    rows = {line.split()[1]: " ".join(line.split()[2:-1]) for line in out.splitlines() if line.startswith("│ ")}
    assert rows["end"] == "failed: the session's last request failed"
    assert rows["error"] == "You've hit your limit · resets 1:20am (Europe/Berlin)"
    said = ("failed: the session's last request failed", "You've hit your limit · resets 1:20am (Europe/Berlin)")
    notebook, shared = stopped._repr_html_(), page(stopped)  # HTML-escaped, and the page's texts as JSON
    assert all(text.replace("'", "&#x27;") in notebook and text in shared for text in said)
    went_on = [*opening, limit, record("u2", "e1", "user", [{"type": "text", "text": "continue"}]),
               record("a2", "u2", "assistant", [{"type": "text", "text": "Done."}], "msg_2")]  # fmt: skip
    (run,) = from_claude_code(write(tmp_path / "went-on.jsonl", went_on))
    assert view(run, 1)[-1]["content"] == [{"type": "tool_result", "tool_use_id": "t1", "content": "t1 done"},
                                           {"type": "text", "text": "continue"}]  # fmt: skip
    assert run.end is not None and run.end["status"] == "completed"


SPOTTER_FOLDER = REAL / "claude-code" / "marot-spotter"


@pytest.mark.skipif(not SPOTTER_FOLDER.is_dir(), reason="the real fixtures are not in this checkout")
@pytest.mark.skipif(not JESSITRON.is_dir(), reason="the real fixtures are not in this checkout")
def test_a_real_request_claude_code_tried_again_and_gave_up_on_is_said_at_its_first_failure():
    """In a real session (2.1.89) a request failed ten times, Claude Code writing a system/api_error record each time
    (lines 61-70, each error ``{}``) before it tried again, and then gave up with a reply of its own (line 71): one
    warning at line 61 says how many times, that the records hold no error, the retries' count and limit, how long
    Claude Code waited (``retryInMs``) and how long passed (the timestamps). The records stay counted in not_sent, and
    no model call is said to have been retried: the request given up on got no reply."""
    (run,) = from_claude_code(JESSITRON / "agents-observe-bug.jsonl")
    said = [(warning.line, warning.text) for warning in run.warnings if "system/api_error" in warning.text]
    assert said == [(61, (
        "the request after step 13 failed and Claude Code tried it again 10 times (system/api_error at lines 61-70, "
        "counted in not_sent): the last try failed too, and Claude Code gave up: it wrote the reply at line 71 itself; "
        "the records do not say what the error was (each error is {}); the last retry was number 10 of at most 10; "
        "Claude Code waited 3 min 3 s in all before its retries (retryInMs); 4 h 3 min passed from the first failure "
        "to Claude Code's reply (2026-04-02 06:07:56 to 10:11:08 UTC)"
    ))]  # fmt: skip
    assert run.header["source"]["not_sent"]["system/api_error"] == 10
    assert not any(call.retried for call in run.model_calls)


OVERLOADED = {"status": 529, "headers": {"retry-after": "1"}, "requestID": "req_011", "error": {"type": "error",
              "error": {"type": "overloaded_error", "message": "Overloaded"}, "request_id": "req_011"}}  # fmt: skip
"""An ``api_error`` record's ``error`` for an overloaded API, as Claude Code 2.0.35 to 2.1.80 write it (the SDK's
``APIError`` as JSON: chrisguillory/claude-session-mcp's ``ApiError``, validated on real sessions)."""
SERVER_ERROR = {"status": 500, "headers": {}, "requestID": None, "error": {
    "type": "error", "error": {"type": "api_error", "message": "Internal server error"}}}  # fmt: skip
"""The same of a server error (the Messages API's error body for a 500)."""
RESET = {"code": "ECONNRESET", "path": "https://api.anthropic.com/v1/messages?beta=true", "errno": 0}
"""A connection that failed, as such a record's ``cause`` and its error's (claude-session-mcp's ``ConnectionError``)."""


def api_error(uuid: str, parent: str, attempt: int, error: Any, wait: float, at: str, **more: Any) -> dict[str, Any]:
    """A ``system`` record of a request that failed and that Claude Code will try again (retry ``attempt`` of at most
    10, in ``wait`` ms), with the fields 2.0.35 to 2.1.80 write (claude-session-mcp's ``ApiErrorSystemRecord``)."""
    return {"type": "system", "subtype": "api_error", "level": "error", "error": error, "retryInMs": wait,
            "retryAttempt": attempt, "maxRetries": 10, "uuid": uuid, "parentUuid": parent, "sessionId": "s",
            "isSidechain": False, "timestamp": f"2026-04-17T08:10:{at}Z", **more}  # fmt: skip


def test_a_request_that_went_through_after_failing_says_its_tries_and_its_model_call_holds_them(tmp_path):
    """A request that failed twice (overloaded, then a server error) before its reply came: a warning at the first
    failure says how many times, the first and last errors as written, the wait, the time that passed and the step;
    the reply's model call holds the two failed tries (``retried``, each error's status, message and body: no time,
    which the records do not hold), so the frames count 3 tries and show names the step; the run file keeps them."""
    from agentrender.frame import model_calls_frame
    from agentrender.runfile import load_run, write_run

    records = [
        record("u1", None, "user", [{"type": "text", "text": "go"}]),
        record("a1", "u1", "assistant", [tool_use("t1")], "msg_1"),
        {**results("r1", "a1", "t1"), "sessionId": "s"},
        api_error("e1", "r1", 1, OVERLOADED, 1000.5, "01.000"),
        api_error("e2", "e1", 2, SERVER_ERROR, 2000, "03.500"),
        {**record("a2", "e2", "assistant", [{"type": "text", "text": "Done."}], "msg_2"),
         "timestamp": "2026-04-17T08:10:08.000Z"},
    ]  # fmt: skip
    (run,) = from_claude_code(write(tmp_path / "s.jsonl", records))
    said = [(warning.line, warning.text) for warning in run.warnings]
    assert said == [(4, (
        "the request for step 1 failed and Claude Code tried it again 2 times (system/api_error at lines 4-5, counted "
        "in not_sent): it went through on try 3: the reply at line 6; the first error: 529 overloaded_error "
        "'Overloaded'; the last: 500 api_error 'Internal server error'; the last retry was number 2 of at most 10; "
        "Claude Code waited 3.0 s in all before its retries (retryInMs); 7.0 s passed from the first failure to the "
        "reply (2026-04-17 08:10:01 to 08:10:08 UTC)"
    ))]  # fmt: skip
    assert run.header["source"]["not_sent"] == {"system/api_error": 2}
    tries = [
        {"error": {"message": "Overloaded", "status": 529, "body": OVERLOADED["error"]}},
        {"error": {"message": "Internal server error", "status": 500, "body": SERVER_ERROR["error"]}},
    ]
    assert [(call.step, list(call.retried)) for call in run.model_calls] == [(0, []), (1, tries)]
    calls = model_calls_frame(run)
    assert calls["tries"].tolist() == [1, 3] and calls["retried_ms"].isna().tolist() == [False, True]
    _, out, _ = run_cli("show", str(tmp_path / "s.jsonl"), "--width", "200", "--color", "never")
    assert [line for line in out.splitlines() if "step 1" in line and "tries" in line]
    write_run(run, tmp_path / "run.jsonl")
    assert [list(call.retried) for call in load_run(tmp_path / "run.jsonl").model_calls] == [[], tries]
    # the conversation is the one the same session without the failures gives
    (plain,) = from_claude_code(write(tmp_path / "plain.jsonl", [*records[:3], {**records[5], "parentUuid": "r1"}]))
    assert [view(run, at) for at in range(2)] == [view(plain, at) for at in range(2)]


CODOXEAR = REAL / "claude-code" / "yiwenlu66-codoxear" / "claude_api_error_sample.jsonl"


@pytest.mark.skipif(not CODOXEAR.is_file(), reason="the real fixtures are not in this checkout")
def test_a_real_api_error_record_of_a_newer_version_is_said_as_written(tmp_path):
    """The api_error record a real session of Claude Code 2.1.119 wrote (a 502 a proxy gave, with the response's
    headers and a body of the API's shape), hung in a session of its own: the warning says its status, type and
    message as written, and the reply's model call holds the try, its error's status, message and body."""
    (failure,) = lines_of(CODOXEAR)
    records = [
        record("u1", None, "user", [{"type": "text", "text": "go"}]),
        {**failure, "parentUuid": "u1"},
        {**record("a1", failure["uuid"], "assistant", [{"type": "text", "text": "Done."}], "msg_1"),
         "timestamp": "2026-05-27T12:32:01.000Z"},
    ]  # fmt: skip
    (run,) = from_claude_code(write(tmp_path / "s.jsonl", records))
    (said,) = [warning.text for warning in run.warnings if warning.line == 2]
    assert said == (
        "the request for step 0 failed and Claude Code tried it again once (system/api_error at line 2, counted in "
        "not_sent): it went through on try 2: the reply at line 3; the error: 502 upstream_error 'Upstream service "
        "temporarily unavailable'; the last retry was number 1 of at most 10; Claude Code waited 545 ms in all "
        "before its retries (retryInMs); 1.7 s passed from the first failure to the reply (2026-05-27 12:31:59 to "
        "12:32:01 UTC)"
    )
    body = failure["error"]["error"]
    assert [list(call.retried) for call in run.model_calls] == [
        [{"error": {"message": "Upstream service temporarily unavailable", "status": 502, "body": body}}]
    ]


@pytest.mark.skipif(not CODOXEAR.is_file(), reason="the real fixtures are not in this checkout")
def test_a_file_of_failed_requests_alone_says_they_failed_not_that_nothing_was_sent(tmp_path):
    """A transcript of ``api_error`` records and no message (the real record alone, then two written after a user
    message the file does not hold) is refused, as no run can be made of it, but not as a file that sent nothing:
    the error names the records, at the first one's line, and what the first says."""
    refused = (
        f"{CODOXEAR}:1: no user or assistant message in the transcript: what was sent is not in the file, but "
        "Claude Code's request failed (system/api_error at line 1; the first: 502 upstream_error 'Upstream service "
        "temporarily unavailable')"
    )
    with pytest.raises(RunFileError) as raised:
        from_claude_code(CODOXEAR)
    assert str(raised.value) == refused
    records = [
        {"type": "summary", "summary": "A session", "leafUuid": "u0"},
        api_error("e1", "u0", 1, OVERLOADED, 500, "00.000"),
        api_error("e2", "e1", 2, OVERLOADED, 1000, "01.000"),
    ]
    with pytest.raises(
        RunFileError,
        match=r"s\.jsonl:2: .*requests failed \(system/api_error at lines 2-3; the "
        r"first: 529 overloaded_error 'Overloaded'\)$",
    ):
        from_claude_code(write(tmp_path / "s.jsonl", records))


def test_failures_no_reply_followed_are_said_and_a_long_waits_records_are_one_failure(tmp_path):
    """A connection that failed (its ``cause``), written again every 30 s of a long wait as Claude Code's unattended
    mode does (records of the same ``retryAttempt`` in a row: one failure), then one whose error says nothing, then
    the user's message: said, with the step it came after, as followed by no reply; a last failure with nothing after
    it in the file is said too."""
    records = [
        record("u1", None, "user", [{"type": "text", "text": "go"}]),
        record("a1", "u1", "assistant", [tool_use("t1")], "msg_1"),
        {**results("r1", "a1", "t1"), "sessionId": "s"},
        api_error("e1", "r1", 1, {"cause": RESET}, 60000, "00.000", cause=RESET),
        api_error("e2", "e1", 1, {"cause": RESET}, 30000, "30.000", cause=RESET),
        api_error("e3", "e2", 2, {}, 1000, "59.000"),
        record("u2", "e3", "user", [{"type": "text", "text": "[Request interrupted by user]"}]),
        record("a2", "u2", "assistant", [{"type": "text", "text": "Stopped."}], "msg_2"),
        record("u3", "a2", "user", [{"type": "text", "text": "Again."}]),
        api_error("e4", "u3", 1, OVERLOADED, 700, "59.500"),
    ]
    (run,) = from_claude_code(write(tmp_path / "s.jsonl", records))
    said = sorted((warning.line, warning.text) for warning in run.warnings if "api_error" in warning.text)
    assert said == [(4, (
        "the request after step 0 failed and Claude Code tried it again 2 times (system/api_error at lines 4-6, "
        "counted in not_sent): no reply follows: the user's message at line 7 is next; the first error: (cause "
        "'ECONNRESET'); the last: not said; the last retry was number 2 of at most 10; Claude Code waited 1 min 1 s in "
        "all before its retries (retryInMs); 59.0 s passed from the first failure to the last failure (2026-04-17 "
        "08:10:00 to 08:10:59 UTC)"
    )), (10, (
        "the request after the last message (line 9) failed and Claude Code tried it again once (system/api_error at "
        "line 10, counted in not_sent): no reply follows in the file; the error: 529 overloaded_error 'Overloaded'; "
        "the last retry was number 1 of at most 10; Claude Code waited 700 ms in all before its retries (retryInMs)"
    ))]  # fmt: skip
    assert run.header["source"]["not_sent"] == {"system/api_error": 4}
    assert not any(call.retried for call in run.model_calls)


def test_failures_after_a_compaction_name_the_runs_step(tmp_path):
    """The failures of a request after a compaction name the step the run numbers it, not the part's own."""
    records = [
        record("u1", None, "user", [{"type": "text", "text": "go"}]),
        record("a1", "u1", "assistant", [tool_use("t1")], "msg_1"),
        {**results("r1", "a1", "t1"), "sessionId": "s"},
        *compacted("r1"),
        api_error("e1", "u5", 1, OVERLOADED, 500, "01.000"),
        record("a2", "e1", "assistant", [{"type": "text", "text": "Done."}], "msg_2"),
    ]
    (run,) = from_claude_code(write(tmp_path / "s.jsonl", records))
    (said,) = [warning.text for warning in run.warnings if "api_error" in warning.text]
    assert said.startswith("the request for step 1 failed and Claude Code tried it again once")
    assert [(call.step, len(call.retried)) for call in run.model_calls] == [(0, 0), (1, 1)]


def test_a_real_session_the_user_interrupted_at_its_end_was_stopped(tmp_path):
    """A real session that ends on Claude Code's own note that the user stopped it (``[Request interrupted by
    user]`` while the model answered, ``... for tool use]`` while a tool waited), with nothing sent after it but
    local commands (short.jsonl's /model), was stopped, at the note; a prompt sent after the note is answered as
    ever, and a prompt with no reply says nothing of the end."""
    (answering,) = from_claude_code(SPOTTER_FOLDER / "tool_heavy.jsonl", subagents=False)
    assert answering.end == {"type": "end", "status": "stopped", "at": "2026-02-10T22:59:46.748Z",
                             "reason": "the user interrupted the session's last request"}  # fmt: skip
    (rejected,) = from_claude_code(SPOTTER_FOLDER / "short.jsonl", subagents=False)
    assert rejected.end == {"type": "end", "status": "stopped", "at": "2026-02-10T21:12:02.480Z",
                            "reason": "the user interrupted the session's last tool use"}  # fmt: skip
    assert [step.decision.tool for step in rejected.steps] == ["Bash"]  # Bash and Glob, both refused
    assert view(rejected, 1)[-1]["content"][-3]["text"] == "[Request interrupted by user for tool use]"
    code, out, _ = run_cli("runs", str(SPOTTER_FOLDER / "short.jsonl"), "--json")
    assert code == 0 and json.loads(out)[0]["end"] == "stopped: the user interrupted the session's last tool use"
    # the note followed by a prompt: a session still going on (its reply not yet written), then one answered
    lines = (SPOTTER_FOLDER / "tool_heavy.jsonl").read_text("utf-8").splitlines()
    last = json.loads(lines[-1])
    prompt = {**last, "uuid": "p1", "parentUuid": last["uuid"], "message": {"role": "user", "content": "go on"}}
    (going,) = from_claude_code(write(tmp_path / "going.jsonl", [*map(json.loads, lines), prompt]), subagents=False)
    assert going.end is None
    answer = {
        **record("a1", "p1", "assistant", [{"type": "text", "text": "Done."}], "msg_1"),
        "sessionId": last["sessionId"],
    }
    (answered,) = from_claude_code(
        write(tmp_path / "answered.jsonl", [*map(json.loads, lines), prompt, answer]), subagents=False
    )
    assert answered.end is not None and answered.end["status"] == "completed"


@pytest.mark.skipif(not JESSITRON.is_dir(), reason="the real fixtures are not in this checkout")
def test_a_real_session_that_ends_on_commands_in_user_records_completed_on_its_last_reply():
    """Claude Code wrote a local command as user records (the caveat, bare up to 2.0 and in a
    ``<local-command-caveat>`` tag from 2.1, the command, its output) before it wrote ``local_command`` system
    records: a real 1.0.128 session that ends on ``/model`` and a 2.1.89 one that ends on ``/exit``, each after an
    answer, completed on that answer, at its time (not the command's, two hours later for ``/exit``), where they
    recorded no end."""
    pasted = REAL / "claude-code/daaain-claude-code-log/real_projects/-Users-dain-workspace-danieldemmel-me-next"
    ends = {
        pasted / "4379d1bf-ccb1-414e-a856-9791b73f3af2.jsonl": "2025-09-29T19:32:11.101Z",
        REAL / "claude-code/jessitron-claude-log/agents-observe-bug.jsonl": "2026-04-02T23:41:39.434Z",
    }
    for path, at in ends.items():
        (run,) = from_claude_code(path, subagents=False)
        assert run.end == {"type": "end", "status": "completed", "at": at,
                           "reason": "the session's last reply is an answer"}, path  # fmt: skip
        assert view(run, len(run.steps))[-1]["content"][-1]["text"].startswith("<local-command-stdout>")  # sent


@pytest.mark.skipif(not JESSITRON.is_dir(), reason="the real fixtures are not in this checkout")
def test_a_local_commands_records_are_sent_as_user_text():
    """In a real session, the user ran ``/buddy pet`` between two prompts (lines 127 and 128, ``system`` records of
    subtype ``local_command``): Claude Code sends each as a user message of its text, so the next request's user turn
    is the command, its output and the prompt (line 130). The records are in the run's transcript."""
    path = JESSITRON / "ff80b049-3eff-495f-b4f0-c4071d615994.jsonl"
    lines = lines_of(path)
    assert [lines[at]["subtype"] for at in (126, 127)] == ["local_command"] * 2
    run = from_claude_code(path)[0]
    turn = {"role": "user", "content": [{"type": "text", "text": lines[126]["content"]},
                                        {"type": "text", "text": lines[127]["content"]},
                                        {"type": "text", "text": lines[129]["message"]["content"]}]}  # fmt: skip
    sent = [view(run, at) for at in range(len(run.steps))]
    first = next(at for at, messages in enumerate(sent) if turn in messages)
    assert sent[first][-1] == turn and all(messages[: len(sent[first])] == sent[first] for messages in sent[first:])
    kept = [record for record in run.header["source"]["transcript"] if record.get("subtype") == "local_command"]
    assert [record["line"] for record in kept] == [127, 128]
    assert "system/local_command" not in run.header["source"].get("not_sent", {})


def test_local_commands_after_the_last_reply_leave_its_end_as_it_was(tmp_path):
    """A ``/cost`` run after the session's last reply was sent with no request: the session still completed on that
    reply; a command before a prompt opens the next request's turn."""
    answered = [
        record("u1", None, "user", [{"type": "text", "text": "go"}]),
        record("a1", "u1", "assistant", [{"type": "text", "text": "Done."}], "msg_1"),
    ]
    cost, output = (
        "<command-name>/cost</command-name>",
        "<local-command-stdout>Total cost: $0.10</local-command-stdout>",
    )
    commands = [local_command("c1", "a1", cost), local_command("c2", "c1", output)]
    (run,) = from_claude_code(write(tmp_path / "s.jsonl", [*answered, *commands]))
    assert run.end is not None and run.end["status"] == "completed" and len(run.steps) == 1
    more = [record("u2", "c2", "user", [{"type": "text", "text": "And now?"}]),
            record("a2", "u2", "assistant", [{"type": "text", "text": "Now this."}], "msg_2")]  # fmt: skip
    (run,) = from_claude_code(write(tmp_path / "t.jsonl", [*answered, *commands, *more]))
    assert view(run, 1)[-1]["content"] == [{"type": "text", "text": text} for text in (cost, output, "And now?")]
    assert run.end is not None and run.end["reason"] == "the session's last reply is an answer"


@pytest.mark.skipif(not JESSITRON.is_dir(), reason="the real fixtures are not in this checkout")
def test_an_attachment_claude_code_may_send_is_said_not_passed_over():
    """A real session's queued commands (lines 87 and 105: a background command's ``<task-notification>``, which the
    model's next reply acts on) are attachments Claude Code sends the model in words of its own: the import does not
    write those words, so each is counted in ``source.not_read`` and said, where a ``PostToolUse`` hook's success,
    which Claude Code sends nothing of, is only counted in ``source.not_sent``."""
    path = JESSITRON / "episode-8-before.jsonl"
    lines = lines_of(path)
    assert [lines[at]["attachment"]["type"] for at in (86, 104)] == ["queued_command"] * 2
    assert "failed with exit code 1" in lines[86]["attachment"]["prompt"]
    assert "Let me check the Vite failure" in lines[87]["message"]["content"][0]["text"]  # the reply right after it
    run = from_claude_code(path)[0]
    source = run.header["source"]
    assert source["not_read"]["attachment/queued_command"] == 2
    assert source["not_sent"]["attachment/hook_success"] > 0
    (said,) = [warning for warning in run.warnings if "queued_command" in warning.text]
    assert said.line == 87 and "the views may lack it" in said.text and not said.lost
    hooks = {
        line["attachment"]["hookEvent"]
        for line in lines
        if (line.get("attachment") or {}).get("type") == "hook_success"
    }
    assert {"PreToolUse", "PostToolUse"} <= hooks
    assert not any("hook_success" in warning.text and warning.line > 2 for warning in run.warnings)


@pytest.mark.skipif(not JESSITRON.is_dir(), reason="the real fixtures are not in this checkout")
def test_a_message_queued_while_the_model_worked_that_no_record_holds_is_said():
    """Real sessions of Claude Code 2.1.89: what the user typed while the model worked (a ``queue-operation``
    ``enqueue``) and Claude Code took from the queue (``remove``) was sent with the next request, and the model's
    next reply answers it ("Great idea!"), but no message or attachment of the transcript holds it. No view can show
    it, so each is counted in ``source.not_read`` and said at its line (the views lacked it in silence). A queued
    prompt an attachment holds (episode 8's, lines 87 and 105) is the attachment's to say, not said twice."""
    path = JESSITRON / "agents-observe-bug.jsonl"
    lines = lines_of(path)
    assert [lines[50]["operation"], lines[51]["operation"]] == ["enqueue", "remove"]
    assert lines[53]["message"]["content"][0]["text"].startswith("\U0001f955 Great idea!")  # the reply after it
    run = from_claude_code(path)[0]
    assert run.header["source"]["not_read"]["queue-operation/enqueue"] == 1
    (said,) = [warning for warning in run.warnings if "a message the user queued" in warning.text]
    assert said.line == 51 and said.text.startswith("content: a message the user queued while the model worked (")
    assert "wait, I have an idea." in said.text and "taken from the queue at line 52" in said.text
    assert "the views from then on lack it" in said.text and not said.lost
    assert not any("wait, I have an idea" in json.dumps(message) for message in view(run, len(run.steps)))
    run = from_claude_code(JESSITRON / "ff80b049-3eff-495f-b4f0-c4071d615994.jsonl")[0]
    said_at = [(warning.line, warning.text) for warning in run.warnings if "a message the user queued" in warning.text]
    assert [line for line, _ in said_at] == [108, 152]
    assert "taken from the queue at line 111" in said_at[0][1] and "at line 154" in said_at[1][1]
    episode = from_claude_code(JESSITRON / "episode-8-before.jsonl")[0]
    assert "queue-operation/enqueue" not in episode.header["source"]["not_read"]
    assert not any("a message the user queued" in warning.text for warning in episode.warnings)


@pytest.mark.skipif(not JESSITRON.is_dir(), reason="the real fixtures are not in this checkout")
def test_every_note_of_claude_code_on_the_main_thread_is_counted_the_last_ones_too():
    """A real session ends on a stop hook's summary and the turn's duration (lines 199 and 200), after its last
    reply: no thread reads them, and they went uncounted. Every ``system`` record of the main thread is now counted
    in ``source.not_sent`` (a local command, sent as a user message, is not one of them)."""
    path = JESSITRON / "ff80b049-3eff-495f-b4f0-c4071d615994.jsonl"
    lines = lines_of(path)
    assert [lines[at]["subtype"] for at in (198, 199)] == ["stop_hook_summary", "turn_duration"]
    written: dict[str, int] = {}
    for line in lines:
        if line["type"] == "system" and not line.get("isSidechain") and line["subtype"] != "local_command":
            written[f"system/{line['subtype']}"] = written.get(f"system/{line['subtype']}", 0) + 1
    assert (
        from_claude_code(path)[0].header["source"]["not_sent"]
        == written
        == {
            "system/stop_hook_summary": 15,
            "system/turn_duration": 4,
        }
    )


def _note(uuid: str, parent: str, **fields: Any) -> dict[str, Any]:
    """A record of Claude Code's that is no message (a system note, an attachment), on the main thread."""
    return {"uuid": uuid, "parentUuid": parent, "sessionId": "s", "isSidechain": False, **fields}


@pytest.mark.parametrize(
    ("after", "counted"),
    [
        (
            [_note("s1", "a1", type="system", subtype="stop_hook_summary"),
             _note("s2", "s1", type="system", subtype="turn_duration"),
             _note("x1", "s2", type="attachment", attachment={"type": "queued_command", "prompt": "and more"})],
            {"system/stop_hook_summary": 2, "system/turn_duration": 1, "attachment/queued_command": 1},
        ),
        (
            [_note("s1", "u1", type="system", subtype="turn_duration")],  # on a branch the thread left: in no count
            {"system/stop_hook_summary": 1},
        ),
        (
            [_note("s1", "a1", type="system", subtype="stop_hook_summary"),
             {"type": "user", "uuid": "u2", "parentUuid": "s1", "sessionId": "s", "isSidechain": False,
              "message": {"role": "user", "content": "Go on."}}],
            {"system/stop_hook_summary": 2},  # on the thread now: counted once, as the thread reads it
        ),
    ],
    ids=["after-the-last-reply", "on-a-branch", "before-a-later-message"],
)  # fmt: skip
def test_the_notes_after_the_last_message_are_counted_not_sent(tmp_path, after, counted):
    """The records that hang after the main thread's last message (a turn's notes, an attachment no request took)
    are counted in ``source.not_sent``, once, as the ones on the thread are; one on a branch the thread left is not."""
    records = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s", "isSidechain": False,
         "message": {"role": "user", "content": "go"}},
        _note("s0", "u1", type="system", subtype="stop_hook_summary"),
        {"type": "assistant", "uuid": "a1", "parentUuid": "s0", "sessionId": "s", "isSidechain": False,
         "message": {"role": "assistant", "id": "m1", "model": "m", "content": [{"type": "text", "text": "Done."}]}},
        *after,
    ]  # fmt: skip
    run = from_claude_code(write(tmp_path / "s.jsonl", records))[0]
    assert run.header["source"]["not_sent"] == counted
    assert "not_read" not in run.header["source"]


def _queue(operation: str, content: str | None = None) -> dict[str, Any]:
    """A record of Claude Code's prompt queue, as it writes one (no uuid: in no thread)."""
    made = {"type": "queue-operation", "operation": operation, "timestamp": "2026-01-05T09:00:00Z", "sessionId": "s"}
    return made if content is None else {**made, "content": content}


@pytest.mark.parametrize(
    ("between", "said"),
    [
        ([_queue("enqueue", "and the docs"), _queue("remove")], [2]),
        ([_queue("enqueue", "and the docs"), _queue("remove", "and the docs")], [2]),
        ([_queue("enqueue", "one"), _queue("enqueue", "two"), _queue("remove"), _queue("remove")], [2, 3]),
        ([_queue("enqueue", "one"), _queue("enqueue", "two"), _queue("dequeue"), _queue("remove")], [3]),
        ([_queue("enqueue", "one"), _queue("enqueue", "two"), _queue("remove", "two")], [3]),
        ([_queue("enqueue", "and the docs"), _queue("popAll")], []),
        ([_queue("enqueue", "and the docs")], []),
        ([_queue("enqueue", "   "), _queue("remove")], []),
        ([_queue("enqueue", "and the docs"), _queue("remove"),
          {"type": "user", "uuid": "u2", "parentUuid": "u1", "sessionId": "s", "isSidechain": False,
           "message": {"role": "user", "content": "and the docs"}}], []),
        (
            [_queue("enqueue", "and the docs"), _queue("remove"),
             {"type": "attachment", "uuid": "x1", "parentUuid": "u1", "sessionId": "s", "isSidechain": False,
              "attachment": {"type": "queued_command", "prompt": [{"type": "text", "text": "and the docs"}]}}],
            [],
        ),
    ],
    ids=["removed", "removed-by-name", "two-removed", "one-dequeued", "the-second-removed-by-name", "taken-back",
         "still-queued", "blank", "a-message-holds-it", "an-attachment-holds-it"],
)  # fmt: skip
def test_a_queued_message_is_said_when_taken_to_be_sent_and_held_by_no_record(tmp_path, between, said):
    """A queued prompt taken from the queue by ``remove`` (the oldest, or the one it names) is said when no user
    message or ``queued_command`` attachment holds its text; one taken by ``dequeue`` (sent as the next prompt),
    taken back to edit (``popAll``), still queued, blank, or held by a record is not."""
    records = [
        record("u1", None, "user", [{"type": "text", "text": "go"}]),
        *between,
        record("a1", next((line["uuid"] for line in reversed(between) if "uuid" in line), "u1"), "assistant",
               [{"type": "text", "text": "Done."}], "msg_1"),
    ]  # fmt: skip
    (run,) = from_claude_code(write(tmp_path / "s.jsonl", records))
    queued = [warning.line for warning in run.warnings if "a message the user queued" in warning.text]
    assert queued == said
    assert run.header["source"].get("not_read", {}).get("queue-operation/enqueue") == (len(said) or None)


@pytest.mark.parametrize(
    ("attachment", "said"),
    [
        ({"type": "hook_success", "hookEvent": "PostToolUse", "content": "logged"}, False),
        ({"type": "hook_success", "hookEvent": "SessionStart", "content": ""}, False),
        ({"type": "hook_success", "hookEvent": "SessionStart", "content": "Branch: main"}, True),
        ({"type": "dynamic_skill", "skillNames": ["x"]}, False),
        ({"type": "hook_non_blocking_error", "hookName": "Stop"}, False),
        ({"type": "queued_command", "prompt": "also run the linter"}, True),
        ({"type": "a_type_claude_code_writes_next_year"}, True),
        ("not an object", True),
    ],
)
def test_each_attachment_is_counted_as_sent_nothing_of_or_said(tmp_path, attachment, said):
    """An attachment on the thread whose type Claude Code sends nothing of is counted in ``not_sent``; any other (one
    it sends, or one of a type it may send that the import does not know) is counted in ``not_read`` and said."""
    records = [
        record("u1", None, "user", [{"type": "text", "text": "go"}]),
        {"type": "attachment", "attachment": attachment, "uuid": "x1", "parentUuid": "u1", "sessionId": "s",
         "isSidechain": False},
        record("a1", "x1", "assistant", [{"type": "text", "text": "Done."}], "msg_1"),
    ]  # fmt: skip
    (run,) = from_claude_code(write(tmp_path / "s.jsonl", records))
    kind = attachment["type"] if isinstance(attachment, dict) else "?"
    counted = run.header["source"].get("not_read" if said else "not_sent", {})
    assert counted == {f"attachment/{kind}": 1}
    assert [warning.line for warning in run.warnings] == ([2] if said else [])


AI_BLAME = REAL / "claude-code" / "ai4curation-ai-blame"
"""A real Claude Code 2.0.75 session, its two sub-agents' files beside it (``tests/fixtures/real/README.md``)."""


@pytest.mark.skipif(not AI_BLAME.is_dir(), reason="the real fixtures are not in this checkout")
def test_a_claude_code_2_0_sessions_agents_beside_it_are_its_runs():
    """Claude Code 2.0 wrote a session's sub-agents beside its file (``agent-<id>.jsonl``, naming the session in
    ``sessionId``): they are the session's runs, as a 2.1 session's ``subagents/`` are; an agent's file read alone
    has no agent beside it. Each of the session's replies of ten parallel tool uses is one step, its ten results one
    turn in the order of the tool uses."""
    session = AI_BLAME / "2c965cfd-41e4-4e31-8339-2986ebced03c.jsonl"
    runs = from_claude_code(session)
    stem = session.stem
    assert [run.run_id for run in runs] == [stem, f"{stem}/agent-ad47cca", f"{stem}/agent-ae9a854"]
    assert [view(run, 0)[0] for run in runs[1:]] == [
        {"role": "user", "content": [{"type": "text", "text": "Warmup"}]}
    ] * 2
    assert [run.run_id for run in from_claude_code(session, subagents=False)] == [stem]
    assert [run.run_id for run in from_claude_code(AI_BLAME / "agent-ad47cca.jsonl")] == [f"{stem}/agent-ad47cca"]
    main = runs[0]
    last = view(main, len(main.steps) - 1)
    parallel = [at for at in range(1, len(last), 2) if sum(b["type"] == "tool_use" for b in last[at]["content"]) == 10]
    assert len(parallel) == 2
    for at in parallel:
        uses = [block["id"] for block in last[at]["content"] if block["type"] == "tool_use"]
        assert [block["tool_use_id"] for block in last[at + 1]["content"]] == uses


IN_FILE_AGENTS = REAL / "claude-code" / "d-kimuson-claude-code-viewer" / "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"
"""Claude Code 1.0.108 output whose two Task sub-agents are written in the session's own file
(``tests/fixtures/real/README.md``)."""


@pytest.mark.skipif(not IN_FILE_AGENTS.is_file(), reason="the real fixtures are not in this checkout")
def test_a_claude_code_1_0_sessions_agents_in_its_own_file_are_runs_of_the_task_uses_that_started_them():
    """Claude Code 1.0 wrote a Task's agent in the session's file (``isSidechain``, its first record with no parent):
    each agent is a run of its own, named by the session, linked both ways to the step and the Task use whose result
    it gave. A reply of two parallel Task uses and a TodoWrite is one step, the first Task (sent with no prompt)
    failed at once and started no agent; the next reply starts it again, and its agent is the second run. (The
    repository's mock agent file beside it, ``agent-test-hash-123.jsonl``, names this session too: it is not read
    here.)"""
    runs = from_claude_code(IN_FILE_AGENTS, subagents=False)
    stem = IN_FILE_AGENTS.stem
    assert [(run.run_id, len(run.steps), len(run.model_calls)) for run in runs] == [
        (stem, 10, 10),
        (f"{stem}/sidechain-1", 3, 3),
        (f"{stem}/sidechain-2", 7, 7),
    ]
    main = runs[0]
    records = lines_of(IN_FILE_AGENTS)
    uses = {block["id"]: block for at in (12, 13, 25) for block in records[at - 1]["message"]["content"]}
    parallel = ["toolu_018t5jce2ZNoGr2ADsHGQife", "toolu_014YF9TXhDRR7BnpasNJ7gjC"]  # lines 12 and 13
    again = "toolu_01LKfUwrsnof18CpWZQcJH44"  # line 25
    assert main.header["source"]["subagents"] == [
        {"run_id": f"{stem}/sidechain-1", "step": 2, "tool_use_id": parallel[1]},
        {"run_id": f"{stem}/sidechain-2", "step": 3, "tool_use_id": again},
    ]
    for run, step, use in ((runs[1], 2, parallel[1]), (runs[2], 3, again)):
        assert run.header["source"]["parent"] == {"run_id": stem, "step": step, "tool_use_id": use}
        (prompt,) = view(run, 0)
        assert prompt == {"role": "user", "content": [{"type": "text", "text": uses[use]["input"]["prompt"]}]}
        assert run.end is not None and run.end["status"] == "completed"
    decided = view(main, 3)
    assert [b.get("name") for b in decided[-2]["content"] if b["type"] == "tool_use"] == ["Task", "Task", "TodoWrite"]
    failed = {b["tool_use_id"]: b.get("is_error", False) for b in decided[-1]["content"]}
    assert failed[parallel[0]] and not failed[parallel[1]] and "prompt" not in uses[parallel[0]]["input"]
    assert main.steps[2].observation is not None and main.steps[2].observation.status == "error"


HEADLESS_2_1_152 = REAL / "claude-code" / "kvsankar-agent-history" / "session-01.jsonl"
"""A real headless Claude Code 2.1.152 run (claude-opus-4-7) of one answer, its texts and ids redacted."""


@pytest.mark.skipif(not HEADLESS_2_1_152.is_file(), reason="the real fixtures are not in this checkout")
def test_a_claude_code_2_1_152_answer_keeps_its_reply_whole_and_its_other_records_by_line():
    """Claude Code 2.1.152's reply (``stop_details``; usage with ``iterations``, ``speed`` and ``inference_geo``) is
    one step and one model call holding the message as written; the queue operations and the ``last-prompt``
    record are kept by their lines; the run ends completed at the reply's time, with no warning."""
    (run,) = from_claude_code(HEADLESS_2_1_152)
    written = lines_of(HEADLESS_2_1_152)[3]["message"]
    (call,) = run.model_calls
    assert call.record["response"] == written and (call.step, call.line) == (0, 4)
    assert [step.decision.kind for step in run.steps] == ["no_tool_call"] and run.warnings == ()
    source = run.header["source"]
    assert (source["version"], source["models"]) == ("2.1.152", ["claude-opus-4-7"])
    assert source["outside_threads"] == {"queue-operation": [1, 2], "last-prompt": [5]}
    assert run.end == {
        "type": "end",
        "status": "completed",
        "reason": "the session's last reply is an answer",
        "at": "2026-06-05T04:56:35.619Z",
    }


PASTED = (
    REAL / "claude-code" / "daaain-claude-code-log" / "real_projects" / "-Users-dain-workspace-danieldemmel-me-next"
)
"""Real Claude Code 1.0.128 and 2.0.5 sessions whose prompts hold a pasted screenshot (``tests/fixtures/real``)."""


def pasted(path: Path, line: int) -> list[dict[str, Any]]:
    """The content of the prompt at ``line`` (from 1) of ``path``: the pasted image, then the prompt's text."""
    content = lines_of(path)[line - 1]["message"]["content"]
    assert [block["type"] for block in content] == ["image", "text"]
    assert content[0]["source"]["type"] == "base64" and content[0]["source"]["media_type"] == "image/png"
    return content


@pytest.mark.skipif(not PASTED.is_dir(), reason="the real fixtures are not in this checkout")
def test_a_real_screenshot_pasted_into_the_opening_prompt_is_sent_as_an_image_block():
    """After ``/clear`` (three user records, one turn with the prompt), the opening ends with the prompt as Claude
    Code wrote it: the pasted PNG, its base64 data whole, then the text; ``show`` prints it as an image with its media
    type, size and dimensions."""
    path = PASTED / "4379d1bf-ccb1-414e-a856-9791b73f3af2.jsonl"
    (run,) = from_claude_code(path)
    (opening,) = view(run, 0)
    assert opening["role"] == "user" and opening["content"][-2:] == pasted(path, 4)
    assert [block["type"] for block in opening["content"]] == ["text", "text", "text", "image", "text"]
    code, out, _ = run_cli("show", str(path), "--step", "0")
    assert code == 0 and "opening  [image/png, 395,728 bytes, 1,592\u00d7798]" in out


@pytest.mark.skipif(not PASTED.is_dir(), reason="the real fixtures are not in this checkout")
def test_a_real_screenshot_pasted_into_a_later_prompt_is_in_every_view_from_its_step_on():
    """The prompt at line 225, after step 90's answer, is the last user turn of the view that decided step 91 (the
    pasted PNG, then the text, as written), is in no view before it and in each after it; ``show`` prints it, as
    an image block the session sent."""
    path = PASTED / "9e953218-585f-4692-89df-9e0747a31c68.jsonl"
    (run,) = from_claude_code(path)
    assert len(run.steps) == 101 and run.steps[90].decision.kind == "no_tool_call"
    prompt = {"role": "user", "content": pasted(path, 225)}
    assert view(run, 91)[-1] == prompt
    assert [prompt in view(run, at) for at in range(len(run.steps))] == [False] * 91 + [True] * 10
    code, out, _ = run_cli("show", str(path), "--step", "91")
    assert code == 0 and "as sent  an image block · 198,066 bytes  [image/png, 148,489 bytes, 1,002\u00d7606]" in out


def test_a_large_file_named_like_an_agent_beside_a_session_is_not_read_whole(tmp_path):
    """Finding a session's agents beside it reads at most 1 MiB of each ``agent-*.jsonl`` there: 64 MiB of data with
    no newline, so named, costs the import a few MiB of memory at most, and is no agent of the session."""
    import tracemalloc

    done = record("a1", "u1", "assistant", [{"type": "text", "text": "Done."}], "msg_1")
    write(tmp_path / "s.jsonl", [record("u1", None, "user", [{"type": "text", "text": "go"}]), done])
    with (tmp_path / "agent-huge.jsonl").open("wb") as file:
        for _ in range(64):
            file.write(b"\x00" * (1 << 20))
    tracemalloc.start()
    try:
        runs = from_claude_code(tmp_path / "s.jsonl")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [run.run_id for run in runs] == ["s"] and peak < 8 << 20


def test_only_the_agents_beside_a_session_that_name_it_are_read_with_it(tmp_path):
    """In a 2.0 project's folder, the agents' files of every session sit together: a session (its file named after
    its id or not) reads those whose first line names it, and none of another session's, nor a file that names none."""
    opening = [{"type": "text", "text": "go"}]

    def agent(name: str, session: str) -> None:
        first = {**record("w1", None, "user", [{"type": "text", "text": "Warmup"}]), "sessionId": session}
        reply_ = {
            **record("w2", "w1", "assistant", [{"type": "text", "text": "Ready."}], "msg_w"),
            "sessionId": session,
        }
        write(tmp_path / f"agent-{name}.jsonl", [{**first, "isSidechain": True, "agentId": name},
                                                 {**reply_, "isSidechain": True, "agentId": name}])  # fmt: skip

    for session in ("s-one", "s-two"):
        answered = [record("u1", None, "user", opening), record("a1", "u1", "assistant", opening, "msg_1")]
        write(tmp_path / f"{session}.jsonl", [{**message, "sessionId": session} for message in answered])
    agent("a1", "s-one")
    agent("b1", "s-two")
    (tmp_path / "agent-broken.jsonl").write_text("not json\n")
    (tmp_path / "agent-blank.jsonl").write_text("")
    assert [run.run_id for run in from_claude_code(tmp_path / "s-one.jsonl")] == ["s-one", "s-one/agent-a1"]
    shutil.copy(tmp_path / "s-two.jsonl", tmp_path / "renamed.jsonl")
    assert [run.run_id for run in from_claude_code(tmp_path / "renamed.jsonl")] == ["s-two", "s-two/agent-b1"]
    # an agent given a 2 MiB prompt is found by the sessionId its first line begins with; 8 MiB of binary data so
    # named names no session
    prompt = {**record("w1", None, "user", [{"type": "text", "text": "x" * (2 << 20)}]), "sessionId": "s-one"}
    answer = {**record("w2", "w1", "assistant", [{"type": "text", "text": "Read."}], "msg_w"), "sessionId": "s-one"}
    big = [{"sessionId": "s-one", **line, "isSidechain": True, "agentId": "big"} for line in (prompt, answer)]
    write(tmp_path / "agent-big.jsonl", big)
    (tmp_path / "agent-binary.jsonl").write_bytes(bytes(range(256)) * (8 << 12))
    runs = from_claude_code(tmp_path / "s-one.jsonl")
    assert [run.run_id for run in runs] == ["s-one", "s-one/agent-a1", "s-one/agent-big"]


def test_a_summariser_gives_the_what_if_view_its_summaries(runs):
    """With a summariser, the view under the contract's window shows summaries for old results."""
    run = from_claude_code(TRANSCRIPT, summarise=first_line_summary)[0]
    assert run.summariser == "first_line_summary"
    windowed = [m.to_dict() for m in render.messages(run.step_input(), run.options(recent_results=1))]
    first_result = windowed[2]["content"][0]
    assert first_result["content"].startswith("F. …")


def test_load_detects_a_claude_code_session(tmp_path):
    """``load`` reads a transcript as its main run and ``load_runs`` gives every run."""
    assert load(TRANSCRIPT).run_id == SESSION
    assert len(load_runs(TRANSCRIPT)) == 3
    copy = shutil.copy(FIXTURES / SESSION / "subagents" / "agent-a9d07f3.jsonl", tmp_path / "agent.jsonl")
    assert load(copy).run_id == f"{SESSION}/agent-a9d07f3"


MINIMAL: list[dict[str, Any]] = [
    {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s", "isSidechain": False,
     "message": {"role": "user", "content": "hi"}},
    {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s", "isSidechain": False,
     "message": {"role": "assistant", "id": "msg_1", "model": "m",
                 "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}]}},
    {"type": "user", "uuid": "u2", "parentUuid": "a1", "sessionId": "s", "isSidechain": False,
     "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a.py"}]}},
    {"type": "summary", "summary": "Listing", "leafUuid": "u2"},
]  # fmt: skip


def mutated(change: Callable[[list[dict[str, Any]]], None]) -> list[dict[str, Any]]:
    records = json.loads(json.dumps(MINIMAL))
    change(records)
    return records


def at(line: int, *path: str | int) -> Callable[[Any], Callable[[list[dict[str, Any]]], None]]:
    def setter(value: Any) -> Callable[[list[dict[str, Any]]], None]:
        def change(records: list[dict[str, Any]]) -> None:
            target: Any = records[line - 1]
            for key in path[:-1]:
                target = target[key]
            if value is DELETE:
                del target[path[-1]]
            else:
                target[path[-1]] = value

        return change

    return setter


DELETE = object()

MALFORMED = [
    (1, "type", at(1, "type")(7)),
    (1, "type", at(1, "type")(DELETE)),
    (1, "uuid", at(1, "uuid")(12)),
    (1, "uuid", at(1, "uuid")(DELETE)),
    (2, "parentUuid", at(2, "parentUuid")(["u1"])),
    (1, "sessionId", at(1, "sessionId")("")),
    (1, "isSidechain", at(1, "isSidechain")("no")),
    (2, "isMeta", at(2, "isMeta")(1)),
    (1, "message", at(1, "message")(DELETE)),
    (1, "message", at(1, "message")("hi")),
    (1, "message.role", at(1, "message", "role")("assistant")),
    (1, "message.content", at(1, "message", "content")(5)),
    (1, "message.content: missing", at(1, "message", "content")(DELETE)),
    (1, "message.role: missing", at(1, "message", "role")(DELETE)),
    (2, "message.id", at(2, "message", "id")(3)),
    (2, "message.model", at(2, "message", "model")({})),
    (2, "content[0]", at(2, "message", "content", 0, "type")(None)),
    (3, "content[0]", at(3, "message", "content", 0)("a.py")),
    (4, "summary", at(4, "summary")(["Listing"])),
    (4, "leafUuid", at(4, "leafUuid")(9)),
    (1, "logicalParentUuid", at(1, "logicalParentUuid")(0)),
    (2, "agentId", at(2, "agentId")("")),
    (1, "message.content", at(1, "message", "content")([])),
]


@pytest.mark.parametrize(("line", "field", "change"), MALFORMED, ids=[f"{n}-{f}" for n, f, _ in MALFORMED])
def test_a_field_of_the_wrong_type_or_missing_is_one_error_naming_file_line_and_field(tmp_path, line, field, change):
    """Each malformed field raises one ``RunFileError`` naming the file, the line and the field."""
    path = write(tmp_path / "s.jsonl", mutated(change))
    with pytest.raises(RunFileError) as raised:
        from_claude_code(path)
    assert str(raised.value).startswith(f"{path}:{line}:")
    assert field in str(raised.value)


@pytest.mark.parametrize(("line", "kind", "role"), [(1, "user", "assistant"), (2, "assistant", "user")])
def test_a_message_of_the_other_role_is_said_in_words(tmp_path, line, kind, role):
    """A record whose message has the other role is refused in plain words, its kind after its article ('in an
    assistant record'), where it said 'in a assistant record'."""
    path = write(tmp_path / "s.jsonl", mutated(at(line, "message", "role")(role)))
    with pytest.raises(RunFileError) as raised:
        from_claude_code(path)
    article = "an" if kind == "assistant" else "a"
    said = f"{path}:{line}: message.role: expected {kind!r} in {article} {kind} record, got {role!r}"
    assert str(raised.value) == said


def test_a_record_of_another_type_holding_a_message_on_the_thread_is_warned_of(tmp_path):
    """A record on the thread whose type is none Claude Code writes a message in, but which holds one (a type a newer
    Claude Code writes, or a corrupted one), is warned of at its line and counted, where it was only counted."""
    path = write(tmp_path / "s.jsonl", mutated(at(2, "type")("assistant-v2")))
    run = from_claude_code(path)[0]
    [warning] = [w for w in run.warnings if w.line == 2]
    assert warning.text.startswith("type: a record of type 'assistant-v2' holding a message"), warning.text
    assert run.header["source"]["not_sent"] == {"assistant-v2": 1}


def test_the_minimal_transcript_reads(tmp_path):
    """The transcript the malformed cases start from is read without a warning."""
    run = from_claude_code(write(tmp_path / "s.jsonl", MINIMAL))[0]
    assert (run.warnings, len(run.steps), run.steps[0].observation.content) == ((), 1, "a.py")


@pytest.mark.parametrize(
    ("text", "line", "what"),
    [
        ("not json\n", 2, "not JSON"),
        ("[1, 2]\n", 2, "expected a transcript record"),
        ('{"type": "user"\n', 2, "not JSON"),
    ],
)
def test_a_bad_line_is_an_error_naming_its_line(tmp_path, text, line, what):
    """A line that is not a JSON object (and is not the cut-short last one) is an error at its line."""
    first, *rest = [json.dumps(r) + "\n" for r in MINIMAL]
    path = tmp_path / "s.jsonl"
    path.write_text(first + text + "".join(rest), encoding="utf-8")
    with pytest.raises(RunFileError, match=what) as raised:
        from_claude_code(path)
    assert str(raised.value).startswith(f"{path}:{line}:")


def test_a_file_that_is_not_utf8_or_empty_is_an_error(tmp_path):
    """Bytes that are not UTF-8 on a full line, and a file with no record, are errors."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"type": "user", "x": "\xff"}\n' + json.dumps(MINIMAL[0]).encode() + b"\n")
    with pytest.raises(RunFileError, match="not UTF-8"):
        from_claude_code(path)
    path.write_text("\n\n", encoding="utf-8")
    with pytest.raises(RunFileError, match="no transcript record"):
        from_claude_code(path)
    with pytest.raises(RunFileError, match="nothing was sent"):
        from_claude_code(write(path, [MINIMAL[3]]))


def test_a_cut_short_last_line_is_a_warning(tmp_path):
    """A session still being written ends mid-line: the records before it are read, with a warning."""
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in MINIMAL) + '{"type": "assistant", "uu', encoding="utf-8")
    run = from_claude_code(path)[0]
    assert len(run.steps) == 1
    assert [(w.line, "cut short" in w.text) for w in run.warnings] == [(5, True)]


def test_a_parent_uuid_pointing_nowhere_is_a_warning_naming_its_line(tmp_path):
    """A thread whose first record's parent is not in the file is read from there, with a warning."""
    run = from_claude_code(write(tmp_path / "s.jsonl", mutated(at(1, "parentUuid")("gone"))))[0]
    assert [(w.line, w.text.split(":")[0]) for w in run.warnings] == [(1, "parentUuid")]
    assert len(run.steps) == 1


def test_a_parent_loop_and_a_thread_starting_with_a_reply_are_errors(tmp_path):
    """Parents that loop, or a thread whose first message is the model's, cannot be read as sent."""
    looped = mutated(at(1, "parentUuid")("u2"))
    with pytest.raises(RunFileError, match="loop") as raised:
        from_claude_code(write(tmp_path / "a.jsonl", looped))
    assert "parentUuid" in str(raised.value)
    reply_first = mutated(lambda records: records.pop(0))
    reply_first[0]["parentUuid"] = None
    with pytest.raises(RunFileError, match="starts with an assistant message") as raised:
        from_claude_code(write(tmp_path / "b.jsonl", reply_first))
    assert str(raised.value).startswith(f"{tmp_path / 'b.jsonl'}:1:")


def test_a_file_whose_records_have_no_parent_uuid_field_is_refused_saying_so(tmp_path):
    """Records written with no ``parentUuid`` field at all (as a hand-written sample may be; Claude Code writes one on
    every message, null at a root) are not linked, so a reply is a thread of its own: the error says the field is
    missing, rather than that the request the reply answered is not in the file."""
    records = [
        {"type": "user", "uuid": "u1", "sessionId": "s", "message": {"role": "user", "content": "Write hello."}},
        {"type": "assistant", "uuid": "a1", "sessionId": "s",
         "message": {"role": "assistant", "id": "msg_1", "content": [{"type": "text", "text": "Done."}]}},
    ]  # fmt: skip
    with pytest.raises(RunFileError, match="starts with an assistant message that has no parentUuid field") as raised:
        from_claude_code(write(tmp_path / "s.jsonl", records))
    assert "the file does not link its records" in str(raised.value)
    assert "is not in this file" not in str(raised.value)


def test_a_repeated_uuid_and_two_prompts_in_a_row_are_warnings(tmp_path):
    """A record whose uuid was seen is left out, and two user messages in a row are joined, each with a warning."""
    records = mutated(lambda r: r.insert(3, {**r[0], "parentUuid": "u2", "uuid": "u3"}))
    records.insert(4, dict(records[0]))
    run = from_claude_code(write(tmp_path / "s.jsonl", records))[0]
    texts = [(w.line, w.text) for w in run.warnings]
    assert any(line == 5 and "uuid of line 1" in text for line, text in texts)
    assert any(line == 4 and "joined into one turn" in text for line, text in texts)
    assert [b["type"] for b in run.step_records[0]["sent"]["user"]] == ["tool_result", "text"]


def test_a_result_of_a_tool_use_the_thread_answers_again_stays_on_its_abandoned_branch(tmp_path):
    """A result off the thread whose tool use the thread answers again (a retry) is not sent, and is warned of."""
    retried = {
        **MINIMAL[2],
        "uuid": "u2b",
        "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a.py b.py"}]},
    }
    reply = {
        **MINIMAL[1],
        "uuid": "a2",
        "parentUuid": "u2b",
        "message": {
            "role": "assistant",
            "id": "msg_2",
            "model": "m",
            "content": [{"type": "text", "text": "Two files."}],
        },
    }
    run = from_claude_code(write(tmp_path / "s.jsonl", [*MINIMAL[:3], retried, reply]))[0]
    assert [step.observation.content for step in run.steps if step.observation] == ["a.py b.py"]
    assert [w.text for w in run.warnings if "branches the conversation left" in w.text and "lines 3)" in w.text]


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzzed_transcripts_raise_only_run_file_error(tmp_path_factory, data):
    """A fixture with a field replaced, removed or the file cut anywhere either reads or raises ``RunFileError``."""
    records = lines_of(TRANSCRIPT)
    for _ in range(data.draw(st.integers(1, 3))):
        line = data.draw(st.integers(0, len(records) - 1))
        places = paths(records[line])
        target_path = data.draw(st.sampled_from(places))
        parent: Any = records[line]
        for key in target_path[:-1]:
            parent = parent[key]
        if data.draw(st.booleans()) and isinstance(parent, dict):
            del parent[target_path[-1]]
        else:
            parent[target_path[-1]] = data.draw(JSON_VALUES)
    text = "".join(json.dumps(r) + "\n" for r in records)
    text = text[: data.draw(st.integers(len(text) // 2, len(text)))]
    path = tmp_path_factory.mktemp("fuzz") / "s.jsonl"
    path.write_text(text, encoding="utf-8")
    try:
        runs = from_claude_code(path, subagents=False)
    except RunFileError:
        return
    for run in runs:
        [m.to_dict() for m in render.messages(run.step_input(), run.options())]


def test_a_reply_record_flagged_as_a_sidechain_on_the_main_thread_is_read_as_a_reply_of_its_own(tmp_path):
    """The fuzz test's find: the middle record of a reply written in three (text, tool use, tool use), flagged
    ``isSidechain`` while its parents lead to the main thread, was looked up among the main thread's records of
    its reply, all taken already, and the import failed with an IndexError. It is read as a reply of its own, no
    block lost, and a warning names its line and field."""
    records, middle = sidechain_flagged_on_main(), FLAGGED_ON_MAIN
    assert CLAUDE_CODE_SESSION == TRANSCRIPT
    assert (
        records[middle]["message"]["id"] == records[middle - 1]["message"]["id"] == records[middle + 1]["message"]["id"]
    )
    path = write(tmp_path / "s.jsonl", records)
    run = from_claude_code(path, subagents=False)[0]
    uses = [b["id"] for m in render.messages(run.step_input(), run.options()) for b in m.to_dict()["content"]
            if b["type"] == "tool_use"]  # fmt: skip
    main = [r for r in lines_of(TRANSCRIPT) if r["type"] == "assistant" and not r["isSidechain"]]
    written = [b["id"] for r in main for b in r["message"]["content"] if b["type"] == "tool_use"]
    assert sorted(uses) == sorted(written)  # every tool use of the main thread is still sent, none twice
    assert (
        uses.index(records[middle]["message"]["content"][0]["id"])
        == uses.index(records[middle + 1]["message"]["content"][0]["id"]) + 1
    )  # its own reply, after the reply it was written in
    flagged = [w for w in run.warnings if w.text.startswith("isSidechain: true on a record of the main thread")]
    assert [w.line for w in flagged] == [middle + 1]
    assert not [w for w in from_claude_code(TRANSCRIPT, subagents=False)[0].warnings if "isSidechain" in w.text]


def test_a_line_nested_too_deeply_is_an_error_naming_its_line(tmp_path):
    """A record nested deeper than the decoder can follow is one ``RunFileError`` at its line, not a RecursionError."""
    path = tmp_path / "s.jsonl"
    deep = '{"type": "user", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    path.write_text(json.dumps(MINIMAL[0]) + "\n" + deep + "\n", encoding="utf-8")
    with pytest.raises(RunFileError, match="nested deeper than 256 levels") as raised:
        from_claude_code(path)
    assert str(raised.value).startswith(f"{path}:2:")


@pytest.mark.parametrize("depth", [257, 300])
def test_a_line_past_the_nesting_limit_names_its_field(tmp_path: Path, depth: int) -> None:
    """A record nested past 256 levels (which the decoder itself follows) is refused naming its line and field;
    brackets inside strings, however many, are text."""
    path = tmp_path / "s.jsonl"
    deep = {**MINIMAL[0], "uuid": "u2", "x": json.loads("[" * (depth - 1) + "]" * (depth - 1))}
    path.write_text(json.dumps(MINIMAL[0]) + "\n" + json.dumps(deep) + "\n", encoding="utf-8")
    with pytest.raises(RunFileError, match=r":2: x.*nested deeper than 256 levels"):
        from_claude_code(path)
    shallow = {**MINIMAL[0], "uuid": "u2", "message": {"role": "user", "content": "[{" * 1000}}
    path.write_text(json.dumps(MINIMAL[0]) + "\n" + json.dumps(shallow) + "\n", encoding="utf-8")
    assert from_claude_code(path)[0].header["opening"] == "[{" * 1000


def tool_use(tool_id: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": "ls"}}


def reply(uuid: str, parent: str, blocks: list[dict[str, Any]], **message: Any) -> dict[str, Any]:
    """An assistant record of one reply's blocks (``msg_1`` from model ``m`` unless said otherwise)."""
    return {**MINIMAL[1], "uuid": uuid, "parentUuid": parent,
            "message": {"role": "assistant", "id": "msg_1", "model": "m", "content": blocks, **message}}  # fmt: skip


def results(uuid: str, parent: str, *tool_ids: str) -> dict[str, Any]:
    """A user record of the results of ``tool_ids``."""
    content = [{"type": "tool_result", "tool_use_id": tool_id, "content": f"{tool_id} done"} for tool_id in tool_ids]
    return {**MINIMAL[2], "uuid": uuid, "parentUuid": parent, "message": {"role": "user", "content": content}}


@pytest.mark.parametrize(
    ("content", "sent"),
    [
        ([("result", "t1"), ("result", "t2"), ("text", "")], ["t1", "t2", "text"]),  # in order: the record's own list
        ([("text", ""), ("result", "t1"), ("result", "t2")], ["t1", "t2", "text"]),
        ([("result", "t2"), ("result", "t1")], ["t2", "t1"]),
        ([("result", "t2"), ("text", ""), ("result", "t1")], ["t2", "t1", "text"]),
    ],
)
def test_one_record_of_results_is_sent_with_the_results_first_in_the_order_written(tmp_path, content, sent):
    """A user record holding a reply's results (and text beside them) is sent as one turn: the results first, in the
    order the record wrote them (the order they finished, not the tool uses'), then the rest."""
    blocks = [{"type": "text", "text": "Also, keep the API."} if kind == "text" else results("-", "-", use)["message"]
              ["content"][0] for kind, use in content]  # fmt: skip
    answer = {**MINIMAL[2], "uuid": "r1", "parentUuid": "a2", "message": {"role": "user", "content": blocks}}
    records = [MINIMAL[0], reply("a1", "u1", [tool_use("t1")]), reply("a2", "a1", [tool_use("t2")]), answer,
               reply("a3", "r1", [{"type": "text", "text": "Both ran."}], id="msg_2")]  # fmt: skip
    (run,) = from_claude_code(write(tmp_path / "s.jsonl", records))
    assert [b.get("tool_use_id", b["type"]) for b in run.step_records[0]["sent"]["user"]] == sent
    assert [r["uuid"] for r in run.header["source"]["transcript"]] == ["u1", "a1", "a2", "r1", "a3"]
    assert run.warnings == ()


def test_a_parallel_result_is_sent_among_the_results_before_a_note_of_the_thread(tmp_path):
    """A result that forks off the thread joins its turn's results even when a note of Claude Code's follows them."""
    note = {"type": "system", "subtype": "note", "uuid": "s1", "parentUuid": "r2", "sessionId": "s"}
    records = [MINIMAL[0], reply("a1", "u1", [tool_use("t1")]), reply("a2", "a1", [tool_use("t2")]),
               results("r2", "a2", "t2"), note, results("r1", "a1", "t1"),
               reply("a3", "s1", [{"type": "text", "text": "Both ran."}], id="msg_2")]  # fmt: skip
    (run,) = from_claude_code(write(tmp_path / "s.jsonl", records))
    assert [b["tool_use_id"] for b in run.step_records[0]["sent"]["user"]] == ["t2", "t1"]  # the order written
    assert run.steps[0].observation.content == "t1 done"
    assert run.header["source"]["not_sent"] == {"system/note": 1} and run.warnings == ()


def test_a_reply_split_by_a_record_of_another_is_one_turn_and_one_model_call(tmp_path):
    """A record of Claude Code's own between two records of one reply does not split the reply: the reply is one
    turn and one model call, its result follows it, and the note is a turn of its own after them."""
    said = {"type": "text", "text": "(interrupted)"}
    records = [MINIMAL[0], reply("a1", "u1", [{"type": "text", "text": "Listing."}]),
               reply("a2", "a1", [said], id="msg_x", model="<synthetic>"), reply("a3", "a2", [tool_use("t1")]),
               results("r1", "a3", "t1")]  # fmt: skip
    (run,) = from_claude_code(write(tmp_path / "s.jsonl", records))
    assert [b["type"] for b in run.step_records[0]["sent"]["assistant"]] == ["text", "tool_use"]
    assert run.step_records[0]["sent"]["user"][0]["tool_use_id"] == "t1"
    assert run.step_records[1]["sent"]["assistant"] == [said]  # Claude Code's own note, after the reply's results
    (call,) = run.model_calls
    assert [b.to_dict() for b in call.response.content] == [{"type": "text", "text": "Listing."}, tool_use("t1")]


@pytest.mark.parametrize(
    ("change", "what"),
    [
        ({"stop_reason": 3}, "message.stop_reason: expected a string, got int"),
        ({"usage": [1]}, "message.usage: expected an object, got array"),
        ({"type": "error"}, "message.type: expected 'message', got 'error'"),
        ({"content": [{**tool_use("t1"), "input_base64": "AA=="}]}, "input or in input_base64, not both"),
    ],
)
def test_a_reply_the_run_cannot_hold_is_warned_of_and_not_a_model_call(tmp_path, change, what):
    """A reply whose own fields are not a Message's, or whose tool use holds its input twice, is sent all the same
    but is no model call: a warning names its line and field."""
    records = mutated(lambda records: records[1]["message"].update(change))
    (run,) = from_claude_code(write(tmp_path / "s.jsonl", records))
    assert run.model_calls == () and len(run.steps) == 1
    assert [(w.line, what in w.text) for w in run.warnings] == [(2, True)]


def test_a_tool_use_without_an_id_is_named_by_where_it_is_and_its_result_by_the_record_it_hangs_from(tmp_path):
    """A tool use with no ``id`` (a hand-written transcript's) is imported with an id made from its line and block,
    and the result with no ``tool_use_id`` in the record that hangs from it answers it; a warning at each line says
    what was missing and what is used in its place."""
    records = mutated(lambda records: (records[1]["message"]["content"][0].pop("id"),
                                       records[2]["message"]["content"][0].pop("tool_use_id")))  # fmt: skip
    path = write(tmp_path / "s.jsonl", records)
    (run,) = from_claude_code(path)
    sent = run.step_records[0]["sent"]
    assert sent["assistant"] == [tool_use("line-2-block-0")]
    assert sent["user"] == [{"type": "tool_result", "tool_use_id": "line-2-block-0", "content": "a.py"}]
    assert run.steps[0].observation.content == "a.py"
    assert [(w.line, w.text) for w in run.warnings] == [
        (2, "message.content[0].id: missing from the tool use: 'line-2-block-0' is used in its place, made from its "
            "line and block"),
        (3, "message.content[0].tool_use_id: missing from the tool result: 'line-2-block-0' is used in its place, the "
            "id made for the tool use with no id of the record it hangs from (parentUuid 'a1', line 2)"),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("uses", "results", "why"),
    [
        (
            ["t1"],
            [None],
            "no record before it that it hangs from (parentUuid 'a1') holds a tool use without an id, or results "
            "without an id that hang from one",
        ),
        (
            [None],
            [None, None],
            "the record it hangs from (parentUuid 'a1', line 2) holds 1 tool use(s) without an id "
            "for 2 result(s) without one",
        ),
        (
            [None, None],
            [None],
            "the record it hangs from (parentUuid 'a1', line 2) holds 2 tool use(s) without an id "
            "for 1 result(s) without one",
        ),
    ],
)
def test_a_result_without_a_tool_use_id_that_cannot_be_matched_is_refused_saying_why(tmp_path, uses, results, why):
    """A result with no ``tool_use_id`` whose record does not hang from a record of as many tool uses with no id is
    refused with an error naming its line and field and saying why it cannot be matched."""
    assistant = reply("a1", "u1", [tool_use(f"t{n}") if use else {k: v for k, v in tool_use("-").items() if k != "id"}
                                   for n, use in enumerate(uses, 1)])  # fmt: skip
    answers = {**MINIMAL[2], "message": {"role": "user", "content": [
        {"type": "tool_result", "content": "done"} for _ in results]}}  # fmt: skip
    path = write(tmp_path / "s.jsonl", [MINIMAL[0], assistant, answers])
    with pytest.raises(RunFileError) as raised:
        from_claude_code(path)
    assert str(raised.value) == (f"{path}:3: message.content[0].tool_use_id: missing from the tool result, and which "
                                 f"tool use it answers cannot be told: {why}")  # fmt: skip


def without_ids(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``blocks`` with no tool use ``id`` and no result ``tool_use_id``, as a hand-written transcript may have them."""
    return [{k: v for k, v in block.items() if k not in ("id", "tool_use_id")} for block in blocks]


def chained_results(uses: int, texts: list[str]) -> list[dict[str, Any]]:
    """A session whose reply holds ``uses`` tool uses with no id in one record (line 2), then a record a text of
    ``texts`` (a result with no ``tool_use_id``, or the user's words after ``say:``), each hanging from the one before
    (lines 3 on), as Claude Code writes parallel results."""
    records = [
        record("u1", None, "user", [{"type": "text", "text": "go"}]),
        record("a1", "u1", "assistant", without_ids([tool_use(f"t{n}") for n in range(uses)]), "msg_1"),
    ]
    for n, text in enumerate(texts, 1):
        said = text.removeprefix("say:")
        block = {"type": "text", "text": said} if said != text else {"type": "tool_result", "content": text}
        records.append(record(f"r{n}", records[-1]["uuid"], "user", [block]))
    return records


@pytest.mark.parametrize("uses", [2, 3])
def test_parallel_results_without_ids_that_hang_one_from_another_answer_the_uses_in_order(tmp_path, uses):
    """Results with no ``tool_use_id`` written one a record, each hanging from the one before (as Claude Code writes
    parallel results), answer in order the tool uses with no id of the record the first hangs from: one results turn,
    and a warning at each line saying which id is used and why."""
    texts = [f"result {n}" for n in range(uses)]
    (run,) = from_claude_code(write(tmp_path / "s.jsonl", chained_results(uses, texts)))
    ids = [f"line-2-block-{n}" for n in range(uses)]
    assert view(run, 1)[1:] == [
        {"role": "assistant", "content": [tool_use(made) for made in ids]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": made, "content": text}
                                     for made, text in zip(ids, texts, strict=True)]},
    ]  # fmt: skip
    said = {w.line: w.text for w in run.warnings if "tool_use_id: missing" in w.text}
    assert said[3].endswith(f"{ids[0]!r} is used in its place, the id made for the tool use with no id of the record "
                            "it hangs from (parentUuid 'a1', line 2)")  # fmt: skip
    assert [said[n + 3].split(": ", 2)[2] for n in range(1, uses)] == [
        f"{ids[n]!r} is used in its place, in order, the next of the ids made for the tool uses with no id of line 2, "
        f"whose results hang one from another from line 3 (parentUuid 'r{n}')"
        for n in range(1, uses)
    ]


@pytest.mark.parametrize(
    ("uses", "texts", "line", "why"),
    [
        (
            2,
            ["one", "two", "three"],
            5,
            "the results it hangs from (parentUuid 'r2'), one from another from line 3, hang from line 2, which holds "
            "2 tool use(s) without an id for 3 result(s) without one",
        ),
        (
            3,
            ["one", "two"],
            4,
            "the results it hangs from (parentUuid 'r1'), one from another from line 3, hang from line 2, which holds "
            "3 tool use(s) without an id for 2 result(s) without one",
        ),
        (
            2,
            ["one", "say:and now?", "two"],
            5,
            "no record before it that it hangs from (parentUuid 'r2') holds a tool use without an id, or results "
            "without an id that hang from one",
        ),
    ],
)
def test_parallel_results_without_ids_that_cannot_be_matched_are_refused_saying_why(tmp_path, uses, texts, line, why):
    """Results with no ``tool_use_id`` that hang one from another are refused, naming the file, line and field, when
    they are more or fewer than the tool uses with no id of the record the first hangs from, or when a message of the
    user's breaks the chain: which tool use each answers cannot be told."""
    path = write(tmp_path / "s.jsonl", chained_results(uses, texts))
    with pytest.raises(RunFileError) as raised:
        from_claude_code(path)
    assert str(raised.value) == (f"{path}:{line}: message.content[0].tool_use_id: missing from the tool result, and "
                                 f"which tool use it answers cannot be told: {why}")  # fmt: skip


def test_parallel_results_without_ids_of_uses_written_one_a_record_are_refused(tmp_path):
    """Claude Code's own parallel tool uses written one a record, their results hanging one from another from the
    last (ai4curation/ai-blame's session, lines 5 to 16), with the ids taken out: the first result hangs from the
    second use's record, though it may answer either use, so the second result is one too many there and the session
    is refused at its line, not paired by a guess."""
    records = chained_results(1, ["one", "two"])
    records.insert(2, record("a2", "a1", "assistant", without_ids([tool_use("t9")]), "msg_1"))
    records[3]["parentUuid"] = "a2"
    path = write(tmp_path / "s.jsonl", records)
    with pytest.raises(RunFileError) as raised:
        from_claude_code(path)
    assert str(raised.value) == (
        f"{path}:5: message.content[0].tool_use_id: missing from the tool result, and which tool use it answers cannot "
        "be told: the results it hangs from (parentUuid 'r1'), one from another from line 4, hang from line 3, which "
        "holds 1 tool use(s) without an id for 2 result(s) without one"
    )


def test_a_real_sub_agents_tool_use_without_an_id_is_answered_by_its_result():
    """The jazzyalex/agent-sessions sub-agent (hand-written, with no tool use id and no ``tool_use_id``) imports: its
    bash call is answered in the turn after it, and a warning at each of the two lines says which id is used; read
    with its session, its ids name its file."""
    path = REAL / "claude-code/jazzyalex-agent-sessions/subagent/0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f"
    agent_id = "agent-a0ad4f44468bdf20d"
    (run,) = from_claude_code(path / "subagents" / f"{agent_id}.jsonl")
    sent = run.step_records[0]["sent"]
    assert [b.get("id") for b in sent["assistant"]] == [None, "line-2-block-1"]
    assert sent["user"] == [{"type": "tool_result", "tool_use_id": "line-2-block-1", "content": "a.txt:1: TODO fix"}]
    assert [w.line for w in run.warnings if "is used in its place" in w.text] == [2, 3]
    session, agent = from_claude_code(path.with_suffix(".jsonl"))
    assert session.step_records[0]["sent"]["assistant"][1]["id"] == "line-3-block-1"
    assert [b.get("id") for b in agent.step_records[0]["sent"]["assistant"]] == [None, f"{agent_id}-line-2-block-1"]


def test_ids_made_in_a_forked_agents_file_are_not_the_sessions(tmp_path):
    """A tool use with no id in a forked agent's file, at the line and block of one in the session's file, gets an id
    that names the agent's file: the forked run, which holds both, keeps the session's two parallel results (one of
    them off the thread's chain) and pairs the agent's own result with the agent's use."""
    session = write(tmp_path / "s.jsonl", [
        record("u1", None, "user", [{"type": "text", "text": "go"}]),
        record("a1", "u1", "assistant", without_ids([tool_use("t1")]), "msg_1"),
        record("a2", "a1", "assistant", without_ids([tool_use("t2")]), "msg_1"),
        record("r1", "a1", "user", [{"type": "tool_result", "content": "t1 done"}]),
        record("r2", "a2", "user", [{"type": "tool_result", "content": "t2 done"}]),
        record("a3", "r2", "assistant", [{"type": "text", "text": "Both ran."}], "msg_2"),
    ])  # fmt: skip
    forked_agent(tmp_path, [
        record("p", "r2", "user", [{"type": "text", "text": "Summarise."}]),
        record("s1", "p", "assistant", without_ids([tool_use("t3")]), "msg_s"),
        record("s2", "s1", "user", [{"type": "tool_result", "content": "mine"}]),
        record("s3", "s2", "assistant", [{"type": "text", "text": "Summary."}], "msg_s2"),
    ])  # fmt: skip
    main, forked = from_claude_code(session)
    ids = ["line-2-block-0", "line-3-block-0"]
    both = {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": ids[0], "content": "t1 done"},
        {"type": "tool_result", "tool_use_id": ids[1], "content": "t2 done"},
    ]}  # fmt: skip
    assert view(main, 1)[2] == both
    assert view(forked, 1)[2] == {**both, "content": [*both["content"], {"type": "text", "text": "Summarise."}]}
    own = "agent-acompact-1-line-2-block-0"
    assert view(forked, 2)[3:] == [
        {"role": "assistant", "content": [tool_use(own)]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": own, "content": "mine"}]},
    ]
    assert [w.text for w in forked.warnings if w.line == 2 and w.path.endswith("agent-acompact-1.jsonl")] == [
        f"message.content[0].id: missing from the tool use: {own!r} is used in its place, made from its file's name, "
        "line and block"
    ]
    assert not [w for w in forked.warnings if "no tool_result" in w.text]


_PLAIN_VALUES = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=3), st.just({}), st.just([]))


@st.composite
def blocks(draw: st.DrawFn, depth: int = 2) -> Any:
    """Blocks of the shapes the quick look knows, some right and some wrong, results of a list of blocks among them."""
    kind = draw(st.sampled_from(["text", "tool_use", "tool_result", "image", None]))
    fields = {
        "text": ["text"],
        "tool_use": ["id", "name", "input"],
        "tool_result": ["tool_use_id", "content", "is_error"],
    }
    block: dict[str, Any] = {} if kind is None else {"type": kind}
    for name in fields.get(kind or "", []):
        if draw(st.integers(0, 4)):
            right = {"text": st.text(max_size=3), "id": st.text(max_size=3), "name": st.text(max_size=3),
                     "input": st.just({"a": 1}) | st.text(max_size=3), "tool_use_id": st.text(max_size=3),
                     "content": st.text(max_size=3), "is_error": st.booleans()}[name]  # fmt: skip
            if name == "content" and depth:
                right = right | st.lists(blocks(depth - 1), max_size=2)
            block[name] = draw(right if draw(st.integers(0, 5)) else _PLAIN_VALUES)
    return block


@settings(max_examples=examples(300), deadline=None)
@given(content=st.lists(blocks(), max_size=3))
def test_the_quick_look_at_blocks_accepts_only_what_the_whole_check_accepts(content):
    """``plain_blocks`` (the look that lets an import skip the whole check; a result of a list of blocks included)
    never passes a block that ``check_block`` refuses, nor a tool use whose input is neither an object nor text."""
    if plain_blocks(content):
        for block in content:
            check_block(block)  # raises for a block the whole check refuses
            if block["type"] == "tool_use":
                assert isinstance(block["input"], dict | str)


def record(uuid: str, parent: str | None, role: str, blocks: list[dict[str, Any]], message_id: str = "") -> dict:
    """A message record as Claude Code writes it (an assistant's with its reply's ``message.id``)."""
    message: dict[str, Any] = {"role": role, "content": blocks}
    if role == "assistant":
        message.update(id=message_id, model="m", type="message", stop_reason=None)
    return {"type": role, "uuid": uuid, "parentUuid": parent, "sessionId": "s", "isSidechain": False,
            "requestId": f"req_{message_id}", "message": message}  # fmt: skip


@st.composite
def interleaved_sessions(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[tuple[list[Any], list[str]]]]:
    """A session written the ways Claude Code writes a reply: one record a block, its results interleaved with its
    tool uses (each result the parent of the next block), forking off them (each result a child of its own tool use,
    written in the order the tools finished: any), or all of a reply's blocks in one record; with what each request
    held (its blocks, and the ids its results answer, in the order they were written)."""
    records = [record("u0", None, "user", [{"type": "text", "text": "go"}])]
    expected = []
    leaf = "u0"
    for r in range(draw(st.integers(1, 5))):
        uses = [f"t{r}_{i}" for i in range(draw(st.integers(0, 3)))]
        text = [{"type": "text", "text": f"reply {r}"}] if draw(st.booleans()) or not uses else []
        blocks = text + [{"type": "tool_use", "id": u, "name": "Bash", "input": {"n": i}} for i, u in enumerate(uses)]
        mid = f"msg_{r}"
        shape = draw(st.sampled_from(["interleaved", "forked", "one record"]))
        if shape == "one record" or not uses:
            records.append(record(f"a{r}", leaf, "assistant", blocks, mid))
            leaf = f"a{r}"
            if uses:
                results = [{"type": "tool_result", "tool_use_id": u, "content": f"{u} done"} for u in uses]
                records.append(record(f"r{r}", leaf, "user", results))
            else:  # an answer: the person's next prompt starts the next request
                records.append(record(f"r{r}", leaf, "user", [{"type": "text", "text": "and then?"}]))
            leaf = f"r{r}"
        else:
            parent = leaf
            pending = []
            for j, block in enumerate(blocks):
                records.append(record(f"a{r}_{j}", parent, "assistant", [block], mid))
                parent = f"a{r}_{j}"
                if block["type"] == "tool_use":
                    answer = [{"type": "tool_result", "tool_use_id": block["id"], "content": "done"}]
                    result = record(f"r{r}_{j}", parent, "user", answer)
                    if shape == "interleaved":
                        records.append(result)
                        parent = result["uuid"]
                    else:
                        pending.append(result)
            order = draw(st.permutations(pending)) if pending else []
            records.extend(order)
            leaf = parent if shape == "interleaved" or not order else order[-1]["uuid"]
            if order:
                uses = [result["message"]["content"][0]["tool_use_id"] for result in order]
        expected.append((blocks, uses))
    return records, expected


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(session=interleaved_sessions())
def test_each_request_is_one_step_however_its_records_were_written(tmp_path_factory, session):
    """Whichever way a reply's records and its results were written, each request is one step and one model call,
    its assistant turn holds every block of the reply in order, and its results follow in one user turn, in the order
    they were written; every tool use is in the conversation with its result, and no branch is reported."""
    records, expected = session
    path = tmp_path_factory.mktemp("cc") / "s.jsonl"
    (run,) = from_claude_code(write(path, records))
    assert len(run.steps) == len(run.model_calls) == len(expected)
    for index, (blocks, uses) in enumerate(expected):
        sent_step = run.step_records[index]["sent"]
        assert sent_step["assistant"] == blocks
        if uses:
            assert [b["tool_use_id"] for b in sent_step["user"]] == uses
    assert not [w for w in run.warnings if "branches" in w.text or "joined" in w.text]


@st.composite
def forked_sessions(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[str], str]:
    """A session written any way ``interleaved_sessions`` writes one; the user records (results, prompts) after
    which a hook added a reminder the session's file does not hold, in the order they were written; and the record a
    compaction after it names as the last before it (``logicalParentUuid``): the last written, or another result of
    the last reply's tool uses written after that reply, so that the last written is off the chain."""
    records, _ = draw(interleaved_sessions())
    users = [r["uuid"] for r in records if r["type"] == "user"]
    hung = draw(st.lists(st.sampled_from(users), unique=True, max_size=4))
    last_reply = max(at for at, r in enumerate(records) if r["type"] == "assistant")
    results = [r["uuid"] for r in records[last_reply + 1 :]]
    logical = draw(st.sampled_from(results)) if results else records[-1]["uuid"]
    return records, sorted(hung, key=users.index), logical


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(session=forked_sessions())
def test_each_reminder_a_forked_agent_kept_is_sent_once_in_the_turn_of_the_record_it_hangs_from(
    tmp_path_factory, session
):
    """However the session's replies and results were written, the agent forked after its last record to write a
    compaction's summary was sent the session's whole conversation with each reminder in the turn of the record it
    hangs from, then its request, and is linked to that compaction, even when that record is a result off the chain;
    the session's run holds every reminder but one after its last record (no request of its came after that one), and
    is otherwise the run imported without the agent's file."""
    records, hung, logical = session
    folder = tmp_path_factory.mktemp("cc")
    leaf = records[-1]["uuid"]
    path = write(folder / "s.jsonl", [*records, *compacted(logical)])

    def text(words: str) -> list[dict[str, Any]]:
        return [{"type": "text", "text": words}]

    kept = [{**record(f"m{i}", uuid, "user", text(f"<system-reminder>after {uuid}</system-reminder>")),
             "isMeta": True} for i, uuid in enumerate(hung)]  # fmt: skip
    asked = kept[-1]["uuid"] if hung and hung[-1] == leaf else leaf  # the request hangs from what was sent last
    forked_agent(folder, [
        *kept,
        record("p", asked, "user", text("Summarise.")),
        record("s1", "p", "assistant", text("Summary."), "msg_s"),
    ])  # fmt: skip
    (alone,) = from_claude_code(path, subagents=False)
    main, forked = from_claude_code(path)
    steps = len(alone.steps)
    whole, asked_for = sent(main)[0], view(forked, steps)
    assert len(forked.steps) == steps + 1 and [call.step for call in forked.model_calls] == [steps]
    assert forked.header["source"]["forked_from"] == {"line": len(records), "uuid": leaf, "steps": steps}
    assert forked.header["source"]["parent"] == {"run_id": "s", "step": steps, "compaction_line": len(records) + 1}
    assert not [w for w in (*main.warnings, *forked.warnings) if "not in this file" in w.text or "branches" in w.text]

    def without(conversation: list[dict[str, Any]], *texts: str) -> list[dict[str, Any]]:
        kept_blocks = [[b for b in m["content"] if b.get("text") not in texts] for m in conversation]
        return [{**m, "content": blocks} for m, blocks in zip(conversation, kept_blocks, strict=True) if blocks]

    reminders = [line["message"]["content"][0]["text"] for line in kept]
    assert without(whole, *reminders) == sent(alone)[0]
    assert without(asked_for, *reminders, "Summarise.") == sent(alone)[0]
    for uuid, reminder in zip(hung, reminders, strict=True):
        first = next(r for r in records if r["uuid"] == uuid)["message"]["content"][0]
        for conversation, sent_there in ((asked_for, True), (whole, uuid != leaf)):
            turns = [m["content"] for m in conversation if {"type": "text", "text": reminder} in m["content"]]
            assert len(turns) == (1 if sent_there else 0), (uuid, sent_there)
            assert not turns or first in turns[0], uuid
    said = [w for w in main.warnings if "the session's file does not hold" in w.text]
    assert sum(w.count for w in said) == len([uuid for uuid in hung if uuid != leaf])


def test_a_compaction_whose_logical_parent_is_not_in_the_file_joins_the_chain_before_it(tmp_path):
    """When ``logicalParentUuid`` names a record the file lacks, the conversation before the boundary is the chain
    that ends where the boundary starts, and a warning says how it was joined."""
    compaction = compacted("gone", "This session is being continued...", preTokens=155000)
    after = record("a5", "u5", "assistant", [{"type": "text", "text": "Carrying on."}], "msg_5")
    (run,) = from_claude_code(write(tmp_path / "s.jsonl", [*MINIMAL[:3], *compaction, after]))
    assert len(run.steps) == 2 and run.goal == "hi"
    assert [(c["step"], c["trigger"], c["tokens_before"]) for c in run.header["compactions"]] == [(1, "auto", 155000)]
    assert [w.line for w in run.warnings if "taken to end at line 3" in w.text] == [4]


def test_a_compact_with_nothing_after_it_is_a_compaction_at_the_end(tmp_path):
    """A ``/compact`` after which the session ended is one run: its steps, then a compaction after the last one."""
    (run,) = from_claude_code(write(tmp_path / "s.jsonl", [*MINIMAL[:3], *compacted("u2", trigger="manual")]))
    assert len(run.steps) == 1
    assert [(c["step"], c["trigger"], c["opening"]) for c in run.header["compactions"]] == [
        (1, "manual", [{"type": "text", "text": "Summary."}])
    ]


def test_a_parent_missing_from_the_middle_of_the_main_thread_joins_the_chain_written_before_it(tmp_path):
    """A writer that left a record out breaks the chain: the thread goes on from the message written before the
    orphan, with a warning naming both lines, instead of losing everything before it."""
    records = [*MINIMAL[:3], record("a2", "missing", "assistant", [{"type": "text", "text": "Done."}], "msg_2")]
    (run,) = from_claude_code(write(tmp_path / "s.jsonl", records))
    assert len(run.steps) == 2 and run.steps[1].decision.reason == "Done."
    assert [w.line for w in run.warnings if "joined to line 3" in w.text] == [4]


def test_whitespace_only_text_of_a_reply_is_left_out_with_a_note(tmp_path):
    """Claude Code records text blocks of white space only in replies but never sends them back (the API refuses
    them): they are left out of the turn sent, and a warning counts them."""
    records = [MINIMAL[0], record("a1", "u1", "assistant", [{"type": "text", "text": "\n\n"}], "msg_1"),
               record("a2", "a1", "assistant", [tool_use("t1")], "msg_1"), {**results("r1", "a2", "t1")}]  # fmt: skip
    (run,) = from_claude_code(write(tmp_path / "s.jsonl", records))
    assert run.step_records[0]["sent"]["assistant"] == [tool_use("t1")]
    assert [w.text for w in run.warnings if "white space only" in w.text]


@pytest.mark.parametrize(
    "path", [("isMeta",), ("isSidechain",), ("agentId",), ("message", "model"), ("message", "id")], ids=str
)
def test_a_field_written_as_null_means_not_recorded(tmp_path, path):
    """Writers put null in an optional field they did not record; it reads as if the field were absent."""
    records = mutated(at(2, *path)(None))
    (run,) = from_claude_code(write(tmp_path / "s.jsonl", records))
    assert len(run.steps) == 1 and run.warnings == ()


def test_a_sub_agents_chain_broken_by_a_record_left_out_joins_the_record_written_before_it(tmp_path):
    """A sub-agent's reply whose parent the file lacks goes on from the sub-agent's record written before it, so the
    sub-agent is one run that starts with its prompt, not an error."""
    prompt = {**record("s1", None, "user", [{"type": "text", "text": "Find it."}]), "isSidechain": True, "agentId": "x"}
    answer = {**record("s2", "gone", "assistant", [{"type": "text", "text": "Found."}], "msg_s"),
              "isSidechain": True, "agentId": "x"}  # fmt: skip
    main, sub = from_claude_code(write(tmp_path / "s.jsonl", [*MINIMAL[:3], prompt, answer]))
    assert sub.goal == "Find it." and [s.decision.reason for s in sub.steps] == ["Found."]
    assert [w.line for w in main.warnings if "joined to line 4, the last message of the sub-agent" in w.text] == [5]


def test_two_replies_in_a_row_are_one_turn_decided_by_the_last(tmp_path):
    """When the file lacks what was sent between two replies, they are joined into one turn with a warning, and the
    step is what the model said last, as its last model call says."""
    records = [MINIMAL[0], record("a1", "u1", "assistant", [{"type": "text", "text": "CONTINUING"}], "msg_1"),
               record("a2", "a1", "assistant", [{"type": "text", "text": "NOTED"}], "msg_2")]  # fmt: skip
    (run,) = from_claude_code(write(tmp_path / "s.jsonl", records))
    assert [b["text"] for b in run.step_records[0]["sent"]["assistant"]] == ["CONTINUING", "NOTED"]
    assert run.steps[0].decision.reason == "NOTED" == render.decide(run.model_calls[-1].response).reason
    assert [w.text for w in run.warnings if "an assistant message right after another" in w.text]


def test_a_compaction_that_keeps_its_last_messages_takes_the_conversation_written_before_it(tmp_path):
    """A boundary whose ``logicalParentUuid`` names a message kept after the summary (written again there) has the
    conversation written before it as what came before, with a warning, not an error."""
    kept = record("a5", "u5", "assistant", [{"type": "text", "text": "Kept."}], "msg_5")
    (run,) = from_claude_code(write(tmp_path / "s.jsonl", [*MINIMAL[:3], *compacted("a5"), kept]))
    assert len(run.steps) == 2 and [c["step"] for c in run.header["compactions"]] == [1]
    assert [w.line for w in run.warnings if "a record the conversation after it holds" in w.text] == [4]


def test_a_line_msgspec_refuses_is_read_as_json_reads_it(tmp_path: Path) -> None:
    """A line of JSON that the C decoder refuses (a lone surrogate escaped, as JavaScript writes a cut emoji) is
    read as json.loads reads it, its text kept; a line that is not JSON still names its line."""
    path = tmp_path / "session.jsonl"
    first = {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s", "message": {"role": "user",
             "content": "PLACEHOLDER"}}  # fmt: skip
    path.write_text(json.dumps(first).replace("PLACEHOLDER", "cut \\ud83d here") + "\n")
    (run,) = from_claude_code(path)
    assert run.header["opening"] == "cut \ud83d here"
    path.write_text(json.dumps(first) + "\n" + '{"type": "user", "uuid": [1,\n')
    path.write_text(path.read_text() + json.dumps(first) + "\n")
    with pytest.raises(RunFileError, match=r":2: not JSON: "):
        from_claude_code(path)


_FIELD_VALUES = {
    "uuid": st.just("x1"),
    "sessionId": st.just("s"),
    "agentId": st.just("ag"),
    "subtype": st.just("note"),
    "parentUuid": st.just("u1") | st.just("gone"),
    "logicalParentUuid": st.just("u1"),
    "leafUuid": st.just("u1"),
    "isSidechain": st.just(False),
    "isMeta": st.booleans(),
    "isCompactSummary": st.booleans(),
    "summary": st.just("A title"),
}


_CHECKED = {"type", "uuid", "sessionId", "parentUuid", "isSidechain", "message", "role", "content", "id", "model"}
"""The fields every record or message of the plain shapes has, or that the quick look reads of nearly every one."""


@st.composite
def transcript_records(draw: st.DrawFn) -> Any:
    """A transcript record of any type, each field the whole check reads present or absent, then, most often, one
    of its fields (or its message's) made wrong: another JSON type, null, empty, or gone."""
    kind = draw(st.sampled_from(["user", "assistant", "user", "assistant", "system", "summary", "progress"]))
    record: dict[str, Any] = {"type": kind}
    for name, right in _FIELD_VALUES.items():
        if name in ("uuid", "sessionId") or draw(st.integers(0, 7)) == 0:
            record[name] = draw(right)
    if kind in ("user", "assistant"):
        content = st.text(max_size=3) | st.just([{"type": "text", "text": "x"}]) | st.lists(blocks(), max_size=2)
        message: dict[str, Any] = {"role": kind, "content": draw(content)}
        if draw(st.booleans()):
            message.update(id="msg_9", model="m")
        record["message"] = message
    if draw(st.integers(0, 3)):
        holder = record["message"] if "message" in record and draw(st.booleans()) else record
        checked = sorted(set(holder) & _CHECKED)
        name = draw(st.sampled_from(checked if checked and draw(st.integers(0, 3)) else sorted(holder)))
        if draw(st.integers(0, 3)):
            holder[name] = draw(st.sampled_from(["", None, 0, True, [], {}]))
        else:
            del holder[name]
    return record if draw(st.integers(0, 20)) else draw(_PLAIN_VALUES)


def _imported(path: Path) -> Any:
    try:
        return from_claude_code(path)
    except RunFileError as error:
        return str(error)


@settings(max_examples=examples(600), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(record=transcript_records())
def test_the_quick_look_at_records_reads_a_session_as_the_whole_check_does(tmp_path, record):
    """A session of a record of any shape between two plain ones imports the same (the same runs and warnings, or
    the same error) with the quick look at each record as with the whole check of every record alone."""
    _same_with_the_whole_check(write(tmp_path / "s.jsonl", [MINIMAL[0], record, *MINIMAL[1:3]]))


def _same_with_the_whole_check(path: Path) -> None:
    """Assert that ``path`` imports the same (runs, warnings, headers, or the error) with the quick look at each record
    as with the whole check of every record alone."""
    quick = _imported(path)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("agentrender.imports.claude_code._plain_record", lambda line, value: None)
        whole = _imported(path)
    assert quick == whole
    if not isinstance(quick, str):
        assert [run.warnings for run in quick] == [run.warnings for run in whole]
        assert [run.header for run in quick] == [run.header for run in whole]


CLAUDE_CODE = [entry for entry in real.histories() if entry["format"] == "claude_code"]


@pytest.mark.parametrize("entry", CLAUDE_CODE, ids=[entry["path"] for entry in CLAUDE_CODE])
def test_the_quick_look_at_records_reads_each_real_session_as_the_whole_check_does(entry: dict[str, Any]) -> None:
    """Each real session (its sub-agents' files with it) imports the same, runs, warnings and source records, with
    the quick look at each record as with the whole check of every record alone."""
    _same_with_the_whole_check(real.REAL / entry["path"])


@pytest.mark.parametrize("entry", CLAUDE_CODE, ids=[entry["path"] for entry in CLAUDE_CODE])
def test_each_step_of_a_real_session_has_the_times_its_records_were_written(entry: dict[str, Any]) -> None:
    """Each step of the session's run started when the first record of its reply was written and ended when the last
    result of its calls was (a reply that calls nothing: its last record; calls with no result: no end), read off the
    records by the reply's ``message.id`` and the results' ``tool_use_id`` (the frames gave NaT for every step)."""
    path = real.REAL / entry["path"]
    by_reply: dict[str, list[tuple[int, str]]] = {}  # a reply's records' lines and times
    by_result: dict[str, list[tuple[int, str]]] = {}  # the records that answer a tool use
    for line, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        record = json.loads(text) if text.strip() else None
        if not isinstance(record, dict) or not isinstance(record.get("timestamp"), str):
            continue
        message = record.get("message") if isinstance(record.get("message"), dict) else {}
        if record.get("type") == "assistant" and isinstance(message.get("id"), str):
            by_reply.setdefault(message["id"], []).append((line, record["timestamp"]))
        for block in message.get("content") if isinstance(message.get("content"), list) else ():
            if isinstance(block, dict) and block.get("type") == "tool_result":
                by_result.setdefault(block.get("tool_use_id"), []).append((line, record["timestamp"]))
    run = load_runs(path)[0]
    replies: dict[int, list[str]] = {}
    for call in run.model_calls:
        replies.setdefault(call.step, []).append(call.response.id)
    checked = 0
    for step, ids in replies.items():
        if not all(reply in by_reply for reply in ids):
            continue  # a reply written in another file (a forked agent's first)
        sent = run.step_records[step]["sent"]
        uses = [block["id"] for block in sent["assistant"] if block["type"] == "tool_use"]
        started = min(by_reply[ids[0]])[1]
        if uses:
            results = [max(by_result[use]) for use in uses if use in by_result]
            ended = max(results)[1] if len(results) == len(uses) else None
        else:
            ended = max(by_reply[ids[-1]])[1]
        assert (run.step_field("started_at", [step])[0], run.step_field("ended_at", [step])[0]) == (started, ended)
        checked += 1
    assert checked or not run.model_calls


def test_a_gzipped_session_loads_as_the_session_does_and_a_cut_one_says_what_it_lost(tmp_path: Path) -> None:
    """A Claude Code session archived with gzip (its sub-agents' files too) loads the same runs as the plain transcript,
    in Python and in the CLI; one whose gzip stream ends early imports what it holds, with a warning of the loss."""
    data = TRANSCRIPT.read_bytes()
    packed = tmp_path / f"{SESSION}.jsonl.gz"
    packed.write_bytes(gzip.compress(data))
    shutil.copytree(FIXTURES / SESSION, tmp_path / SESSION)  # its sub-agents, gzipped as `gzip -r` leaves them
    for agent in (tmp_path / SESSION).rglob("*.jsonl"):
        agent.with_name(agent.name + ".gz").write_bytes(gzip.compress(agent.read_bytes()))
        agent.unlink()
    plain, zipped = load_runs(TRANSCRIPT), load_runs(packed)
    assert [run.run_id for run in zipped] == [run.run_id for run in plain]
    assert [run.steps for run in zipped] == [run.steps for run in plain]
    assert run_cli("steps", str(packed), "--json")[1] == run_cli("steps", str(TRANSCRIPT), "--json")[1]
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(gzip.compress(data)[:-8])  # the trailer gone: the stream ends early
    warnings = [str(warning) for warning in load(cut).warnings if warning.lost]
    assert any("the gzip stream ends early" in warning for warning in warnings), warnings


def test_a_sub_agents_metadata_file_is_said_to_be_one_and_points_to_its_transcript(tmp_path: Path) -> None:
    """A Claude Code sub-agent's ``agent-<id>.meta.json`` (its type, task and tool use id: no history) given to load
    is refused in words that say what it is and name the transcript beside it, where the error only listed its keys
    and every format; any other JSON object of those keys, under another name, is refused as before."""
    meta = {"agentType": "general-purpose", "description": "Survey the web module", "toolUseId": "toolu_1"}
    path = tmp_path / "agent-a1b2.meta.json"
    path.write_text(json.dumps(meta), "utf-8")
    with pytest.raises(RunFileError) as caught:
        load(path)
    said = str(caught.value)
    assert said.startswith(f"{path}:1: not a run, nor a conversation agentrender can import: it holds a JSON object")
    assert "a Claude Code sub-agent's metadata" in said and "that is agent-a1b2.jsonl beside it" in said, said
    other = tmp_path / "notes.json"
    other.write_text(json.dumps(meta), "utf-8")
    with pytest.raises(RunFileError) as caught:
        load(other)
    assert "sub-agent" not in str(caught.value)
    code, _, err = run_cli("show", str(path))
    assert code == 2 and "agent-a1b2.jsonl beside it" in err, err


def test_a_sub_agents_metadata_file_compressed_is_said_to_be_one(tmp_path: Path) -> None:
    """A sub-agent's metadata compressed with gzip (``agent-<id>.meta.json.gz``, as ``gzip -r`` leaves a session's
    folder) given to load is refused in words that say what it is and name its transcript, compressed beside it, as
    the plain file is; it was told only as a JSON object of unknown keys."""
    meta = {"agentType": "general-purpose", "description": "Survey the web module", "toolUseId": "toolu_1"}
    path = tmp_path / "agent-a1b2.meta.json.gz"
    path.write_bytes(gzip.compress(json.dumps(meta).encode()))
    with pytest.raises(RunFileError) as caught:
        load(path)
    said = str(caught.value)
    assert "a Claude Code sub-agent's metadata" in said and "that is agent-a1b2.jsonl.gz beside it" in said, said


@pytest.mark.parametrize(
    "meta",
    [
        JESSITRON / "episode-8-before" / "subagents" / "agent-ae20659fd0f63295e.meta.json",
        REAL
        / "claude-code"
        / "daaain-claude-code-log"
        / "workflow_scriptpath"
        / "22220000-0000-4000-8000-000000000002"
        / "subagents"
        / "workflows"
        / "wf_sp01"
        / "agent-agsp0001.meta.json",
    ],
    ids=["type-and-description", "workflow-agent-type-only"],
)
def test_a_sub_agents_metadata_file_without_a_tool_use_id_is_said_to_be_one(meta: Path) -> None:
    """A real ``.meta.json`` that names no tool use (Claude Code 2.1.89's, holding the type and description; a
    workflow agent's, its type alone) is refused as a sub-agent's metadata that names its transcript, where it was
    told only as a JSON object of unknown keys."""
    with pytest.raises(RunFileError) as caught:
        load(meta)
    said = str(caught.value)
    transcript = meta.name.removesuffix(".meta.json") + ".jsonl"
    assert "a Claude Code sub-agent's metadata" in said and f"that is {transcript} beside it" in said, said
    assert (meta.parent / transcript).is_file()


def test_export_of_a_sub_agents_metadata_file_says_what_every_other_command_says(tmp_path: Path) -> None:
    """export given a real sub-agent's ``.meta.json`` gives it the runs row of the error every other command gives
    it (a Claude Code sub-agent's metadata, its transcript beside it), where the row said '$.type: missing'."""
    meta = JESSITRON / "ff80b049-3eff-495f-b4f0-c4071d615994" / "subagents" / "agent-ad106947ff439c8f3.meta.json"
    code, _, err = run_cli("steps", str(meta))
    assert code == 2
    code, out, _ = run_cli("export", str(meta), "--parquet", str(tmp_path / "out"), "--json", "--workers", "1")
    [failed] = json.loads(out)["errors"]
    assert code == 1 and failed["error"] == err.removeprefix("agentrender: ").strip()
    assert "a Claude Code sub-agent's metadata" in failed["error"] and "$.type" not in failed["error"]


def test_a_transcript_that_begins_with_a_byte_order_mark_imports_as_without_it(tmp_path: Path) -> None:
    """A transcript an editor saved with a UTF-8 byte order mark imports as the same session without it, as a Codex
    rollout and a call log do; before, it was refused: '...:1: not JSON: Unexpected UTF-8 BOM'."""
    shutil.copytree(FIXTURES, tmp_path / "sessions")  # with its sub-agents' transcripts beside it
    marked = tmp_path / "sessions" / TRANSCRIPT.name
    marked.write_bytes(b"\xef\xbb\xbf" + TRANSCRIPT.read_bytes())
    runs, plain = from_claude_code(marked), from_claude_code(TRANSCRIPT)
    assert [(run.steps, run.model_calls) for run in runs] == [(run.steps, run.model_calls) for run in plain]
    assert [[(w.line, w.text) for w in run.warnings] for run in runs] == [
        [(w.line, w.text) for w in run.warnings] for run in plain
    ]


@pytest.mark.skipif(not PASTED.is_dir(), reason="the real fixtures are not in this checkout")
def test_a_sessions_goal_is_its_prompt_not_the_echo_of_a_command_the_user_ran_before_it(tmp_path):
    """A real session opened after ``/clear`` sends the model Claude Code's caveat, the command and its output before
    the prompt, all in the opening; the run's goal is the prompt, where it was the caveat ('Caveat: The messages
    below were generated by the user while running local commands...')."""
    cleared = {
        PASTED / "4379d1bf-ccb1-414e-a856-9791b73f3af2.jsonl": "[Image #1] Can you please add margin-bottom to the "
        "details element when it's not open?",
        REAL / "claude-code/jnarowski-agentcmd/full-session-two.jsonl": "please move the + button to it's own button "
        "to the right of the search in @apps/web/src/client/components/AppInnerSidebar.tsx ",
    }
    for path, prompt in cleared.items():
        run = from_claude_code(path)[0]
        assert run.header["goal"] == prompt, path
        assert run.header["opening"].startswith("Caveat: The messages below were generated by the user"), path
    # from 2.1 the caveat is in a tag: the real /exit of agents-observe-bug.jsonl (its last three records) opening a
    # session is left out of its goal as well
    *_, caveat, command, output = lines_of(REAL / "claude-code/jessitron-claude-log/agents-observe-bug.jsonl")
    assert caveat["message"]["content"].startswith("<local-command-caveat>Caveat: The messages below")
    prompt = {**output, "uuid": "p1", "parentUuid": output["uuid"], "message": {"role": "user", "content": "go"}}
    answer = record("a1", "p1", "assistant", [{"type": "text", "text": "Done."}], "msg_1")
    session = [{**caveat, "parentUuid": None}, command, output, prompt, {**answer, "sessionId": caveat["sessionId"]}]
    (run,) = from_claude_code(write(tmp_path / "tagged.jsonl", session), subagents=False)
    assert run.header["goal"] == "go" and run.header["opening"].startswith("<local-command-caveat>")


def test_a_sessions_goal_leaves_out_the_file_the_user_had_open_in_the_ide(tmp_path: Path) -> None:
    """Claude Code in an IDE writes the file the user has open (``<ide_opened_file>``), or the lines selected in it
    (``<ide_selection>``), before the user's words, in the same text: a real 2.0.5 session's prompt starts so. The
    run's goal is the user's words (it started with the IDE's note); the opening keeps all the model was sent."""
    path = PASTED / "9e953218-585f-4692-89df-9e0747a31c68.jsonl"
    run = from_claude_code(path)[0]
    opened = "<ide_opened_file>The user opened the file /Users/dain/workspace/danieldemmel.me-next/public/tokenizer"
    assert run.header["goal"].startswith("I have @public/tokenizer.css, @public/tokenizer.html and"), run.header["goal"]
    assert opened in run.header["opening"]
    selected = "<ide_selection>The user selected the lines 5 to 10 from a.py:\nx = 1\n</ide_selection>\n"
    for text, goal in (
        (f"{selected}Rename x", "Rename x"),
        (f"{selected}<ide_opened_file>a.py</ide_opened_file>\nRename x", "Rename x"),
        ("Why does Claude Code write <ide_selection>...</ide_selection>?", None),  # the user's words: kept whole
    ):
        session = [
            record("u1", None, "user", [{"type": "text", "text": text}]),
            record("a1", "u1", "assistant", [{"type": "text", "text": "Done."}], "msg_1"),
        ]
        (run,) = from_claude_code(write(tmp_path / "ide.jsonl", session), subagents=False)
        assert run.header["goal"] == (goal or text) and run.header["opening"] == text
