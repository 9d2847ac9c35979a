"""The public conversations shipped to import: named with their sources, and imported exactly as they were sent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentrender import load_run, samples, write_run
from agentrender.imports import first_line_summary, from_anthropic, from_claude_code, load, load_runs
from agentrender.views import Views

FOLDER = samples.imports_folder()
README = (FOLDER / "README.md").read_text(encoding="utf-8")
ANTHROPIC = ["largest-city-thinking.json", "python-to-rust-port.messages.json", "youngest-parallel-tools.json"]
CALL_LOGS = ["stock-lookup.calls.jsonl"]
SUB_AGENT_SESSION = FOLDER / "ff80b049-3eff-495f-b4f0-c4071d615994.jsonl"
"""A real Claude Code session whose step 2 started an Explore sub-agent, its transcript in the folder beside it."""


def wire(message: dict[str, Any]) -> dict[str, Any]:
    """A message as the Messages API reads it: string content is one text block."""
    content = message["content"]
    return {**message, "content": [{"type": "text", "text": content}] if isinstance(content, str) else content}


def last_request(path: Path) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The messages of the file's last (for a log, longest) request, and the reply to it if the file has one."""
    if path.suffix == ".jsonl":
        calls = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        call = max(calls, key=lambda c: len(c["request"]["messages"]))
        return call["request"]["messages"], call["response"]
    value = json.loads(path.read_text(encoding="utf-8"))
    if "request" in value:
        return value["request"]["messages"], value["response"]
    return value["messages"], None


def test_imports_folder_is_the_checkouts_sample_imports_apart_from_the_runs() -> None:
    """In a checkout, imports_folder() is sample_imports/; every .jsonl under samples.folder() stays a run file."""
    assert Path(__file__).resolve().parents[1] / "sample_imports" == FOLDER
    for path in samples.folder().rglob("*.jsonl"):
        first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
        assert first["type"] == "run", f"{path} is not a run file, yet runs_frame(samples.folder()) would read it"


def test_every_conversation_is_named_in_the_readme_with_its_source() -> None:
    """Each file beside the README, or in a folder beside it (a session's sub-agents), is listed in it by its path;
    the README names each source's repository, commit and licence, and the ISC licence's notice."""
    files = sorted(path.relative_to(FOLDER).as_posix() for path in FOLDER.rglob("*") if path.is_file())
    files.remove("README.md")
    assert files, "no conversations shipped"
    for name in files:
        assert f"`{name}`" in README, f"{name} is not described in sample_imports/README.md"
    for repository in (
        "https://github.com/pydantic/pydantic-ai",
        "https://github.com/DRMacIver/claude-reliability",
        "https://github.com/jessitron/claude-log",
    ):
        assert repository in README
    assert README.count("MIT licence") == 2 and README.count("ISC licence") == 2
    for commit in (
        "4fda38988f2939fa6ea9cdefcf120693e10ef491",
        "4e49f16a86de76d9b0dc3ea2b8526677abe89f52",
        "b219770ce8cb0b0e7bf66b60b6a1504620492fa3",
    ):
        assert commit in README
    assert "> Copyright (c) Jessica Kerr\n>\n> Permission to use, copy, modify, and/or distribute" in README


def test_the_session_with_a_sub_agent_is_the_real_one_byte_for_byte_in_claude_codes_layout() -> None:
    """The bundled session, its sub-agent's transcript and its sidecar are the real fixture's files, byte for byte,
    in the folders Claude Code writes (SESSION-ID.jsonl, SESSION-ID/subagents/agent-ID.jsonl and .meta.json)."""
    real = Path(__file__).resolve().parent / "fixtures" / "real" / "claude-code" / "jessitron-claude-log"
    if not real.is_dir():
        pytest.skip("the real fixtures are not in this checkout")
    shipped = sorted(
        path.relative_to(FOLDER) for path in (FOLDER / SUB_AGENT_SESSION.stem).rglob("*") if path.is_file()
    )
    assert [path.as_posix() for path in shipped] == [
        f"{SUB_AGENT_SESSION.stem}/subagents/agent-ad106947ff439c8f3.jsonl",
        f"{SUB_AGENT_SESSION.stem}/subagents/agent-ad106947ff439c8f3.meta.json",
    ]
    for path in [SUB_AGENT_SESSION.relative_to(FOLDER), *shipped]:
        assert (FOLDER / path).read_bytes() == (real / path).read_bytes(), path


def test_the_bundled_session_imports_with_its_sub_agent_linked_both_ways() -> None:
    """load_runs of the bundled session gives the session, then the Explore sub-agent its step 2 started (read from
    SESSION-ID/subagents/ with its .meta.json), each naming the other in Run.links."""
    session, agent = load_runs(SUB_AGENT_SESSION)
    assert (session.run_id, agent.run_id) == (
        SUB_AGENT_SESSION.stem,
        f"{SUB_AGENT_SESSION.stem}/agent-ad106947ff439c8f3",
    )
    assert session.steps[2].decision.tool == "Agent"
    (started,) = session.links.started
    assert (started.run_id, started.step, started.is_compaction) == (agent.run_id, 2, False)
    assert agent.links.parent is not None and (agent.links.parent.run_id, agent.links.parent.step) == (
        session.run_id,
        2,
    )
    assert agent.links.started == () and session.links.parent is None
    assert agent.header["source"]["meta"] == {"agentType": "Explore", "description": "Explore codebase architecture"}
    assert load(SUB_AGENT_SESSION).run_id == session.run_id


def test_the_folder_of_samples_read_as_runs_reads_the_sub_agent_once_with_its_session() -> None:
    """runs_frame of the samples folder reads the sub-agent's transcript with its session, not a second time alone:
    each of the two runs is one row, beside the other samples' runs."""
    pytest.importorskip("pandas")
    from agentrender.frame import runs_frame

    frame = runs_frame(FOLDER, workers=1, progress=False)
    rows = frame[frame["path"].str.contains(SUB_AGENT_SESSION.stem, regex=False)]
    assert sorted(rows["run_id"]) == [SUB_AGENT_SESSION.stem, f"{SUB_AGENT_SESSION.stem}/agent-ad106947ff439c8f3"]
    assert frame["run_id"].is_unique and frame["error"].isna().all()


@pytest.mark.parametrize("name", ANTHROPIC + CALL_LOGS)
def test_each_view_is_the_request_that_decided_its_step(name: str) -> None:
    """Loaded as it ships, the view at every step equals the first messages of the file's last request, as sent."""
    path = FOLDER / name
    run = load(path)
    messages, reply = last_request(path)
    views = Views(run)
    assert run.is_as_sent(views.options)
    assert len(run.steps) == len(messages) // 2 + (reply is not None)
    for k in range(len(run.steps)):
        assert [m.to_dict() for m in views.at(k).messages] == [wire(m) for m in messages[: 2 * k + 1]], (name, k)


@pytest.mark.parametrize("name", CALL_LOGS)
def test_each_call_of_a_log_is_a_model_call_of_the_step_its_request_decided(name: str) -> None:
    """Every line of a call log is a model call, made for the step its request decides, with the reply it got."""
    path = FOLDER / name
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    run = load(path)
    assert [call.step for call in run.model_calls] == [len(line["request"]["messages"]) // 2 for line in lines]
    assert [call.response.to_dict()["content"] for call in run.model_calls] == [
        line["response"]["content"] for line in lines
    ]


@pytest.mark.parametrize("name", [*CALL_LOGS, "largest-city-thinking.json", "youngest-parallel-tools.json"])
def test_the_view_at_each_called_step_has_the_key_the_call_recorded(name: str, tmp_path: Path) -> None:
    """Rendered as sent, the view at each step a call decided has that call's request_key (blocks' keys in the order
    sent, every field of the tools kept, the tools of that call's own request), also once written and loaded again."""
    run = load(FOLDER / name)
    write_run(run, tmp_path / "run.jsonl")
    for each in (run, load_run(tmp_path / "run.jsonl")):
        views = Views(each)
        assert each.model_calls and all(call.request_key for call in each.model_calls)
        for call in each.model_calls:
            assert views.at(call.step).replay_key == call.request_key, (name, call.step)
            assert call.request_key in views.at(call.step).recorded_keys


def test_the_call_log_keeps_the_failed_call_and_the_tool_search_field() -> None:
    """The stock-lookup log's validation failure is an error observation, and defer_loading (tool search's field of
    a tool definition) is kept with no warning."""
    run = load(FOLDER / "stock-lookup.calls.jsonl")
    assert [step.observation.status if step.observation else None for step in run.steps] == ["ok", "error", "ok", None]
    assert run.tools[1]["defer_loading"] is True
    assert run.warnings == ()


def test_a_logs_unknown_tool_field_is_said_at_the_line_of_its_longest_call(tmp_path: Path) -> None:
    """A custom tool's field the API does not take, in a call log, is kept with a warning naming the log's line the
    run's tools were read from (its longest call's), not a run file's header line."""
    calls = (FOLDER / "stock-lookup.calls.jsonl").read_text(encoding="utf-8").splitlines()
    longest = json.loads(calls[3])
    longest["request"]["tools"][0]["timeout_s"] = 30
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join([*calls[:3], json.dumps(longest)]) + "\n", encoding="utf-8")
    assert [(w.line, w.text) for w in load(path).warnings] == [
        (4, "unknown field run.tools[0].timeout_s kept (not loaded into the typed fields)")
    ]


def test_the_messages_file_is_the_claude_code_transcript_joined_into_turns() -> None:
    """The messages file holds the Claude Code transcript's message records, same-role neighbours joined, in order."""
    records = [
        json.loads(line)
        for line in (FOLDER / "python-to-rust-port.claude-code.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    turns: list[dict[str, Any]] = []
    for record in records:
        if record.get("type") not in ("user", "assistant"):
            continue
        message = wire(record["message"])
        if turns and turns[-1]["role"] == message["role"]:
            turns[-1]["content"] += message["content"]
        else:
            turns.append({"role": message["role"], "content": list(message["content"])})
    body = json.loads((FOLDER / "python-to-rust-port.messages.json").read_text(encoding="utf-8"))
    assert [wire(m) for m in body["messages"]] == turns
    assert {r["message"]["model"] for r in records if r.get("type") == "assistant"} == {body["model"]}


def test_the_claude_code_transcript_imports_as_the_conversation_it_sent() -> None:
    """Its parallel tool uses' results that fork off the thread are sent: each view is the messages file's request."""
    (run,) = from_claude_code(FOLDER / "python-to-rust-port.claude-code.jsonl")
    messages = json.loads((FOLDER / "python-to-rust-port.messages.json").read_text(encoding="utf-8"))["messages"]
    views = Views(run)
    assert run.is_as_sent(views.options)
    assert len(run.steps) == len(messages) // 2
    for k in range(len(run.steps)):
        assert [m.to_dict() for m in views.at(k).messages] == [wire(m) for m in messages[: 2 * k + 1]], k
    assert [w.text for w in run.warnings if "branches" in w.text or "no tool_result" in w.text] == []


def test_under_the_contract_the_long_session_is_smaller_and_breaks_the_cache_prefix() -> None:
    """With first_line_summary under the contract's window and cap, the session's requests shrink and stop appending."""
    path = FOLDER / "python-to-rust-port.messages.json"
    run = from_anthropic(path, summarise=first_line_summary)
    as_sent = Views(run).sizes()
    contract = Views(run, run.options(recent_results=6, result_bytes=16384)).sizes()
    assert sum(contract.bytes) < sum(as_sent.bytes)
    assert sum(contract.resent_bytes) > sum(as_sent.resent_bytes)
    assert [left for left in contract.left_window if left is not None] == list(range(len(run.steps) - 6))
