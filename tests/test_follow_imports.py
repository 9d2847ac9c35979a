"""Following what an importer reads while it is written: Claude Code sessions and ``record(client)`` recordings."""

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import agentrender
from agentrender import imports
from agentrender.imports.following import ImportFollower, follower
from agentrender.runfile import Follower, Growth
from agentrender.views import Views
from tests._support.growing import Writer, header, line, step

ROOT = Path(__file__).resolve().parents[1]
SESSION = ROOT / "sample_imports" / "python-to-rust-port.claude-code.jsonl"
REAL = ROOT / "tests" / "fixtures" / "real"


def real_sessions(*features: str) -> list[Path]:
    """The real Claude Code transcripts of the fixtures' manifest with any of ``features`` (none when not there)."""
    manifest = REAL / "MANIFEST.json"
    if not manifest.is_file():
        return []
    entries = json.loads(manifest.read_text("utf-8"))
    return [
        REAL / entry["path"]
        for entry in entries
        if entry["format"] == "claude_code"
        and set(features) & set(entry["features"])
        and (REAL / entry["path"]).is_file()
    ]


def same_as_fresh(views: Views, path: Path) -> None:
    """Every stop of ``views`` shows what fresh views of the file imported now show."""
    fresh = Views(imports.load(path))
    assert views.stops == fresh.stops
    assert views.sizes() == fresh.sizes()
    for stop in fresh.stops:
        assert views.at(stop).messages == fresh.at(stop).messages, stop
        assert views.at(stop).restart_label == fresh.at(stop).restart_label, stop


def grow_line_by_line(source: Path, into: Path, every: int) -> Iterator[Growth | None]:
    """Copy ``source`` into ``into`` ``every`` lines at a time, polling a follower after each write."""
    lines = source.read_bytes().splitlines(keepends=True)
    if lines and not lines[-1].endswith(b"\n"):
        lines[-1] += b"\n"
    into.write_bytes(lines[0])
    tracker = follower(into)
    yield tracker.poll()
    for start in range(1, len(lines), every):
        with into.open("ab") as file:
            file.write(b"".join(lines[start : start + every]))
        yield tracker.poll()


def follow_and_compare(source: Path, folder: Path, every: int) -> int:
    """Follow ``source`` as it is written, extending views at each growth; how many growths there were."""
    target = folder / source.name
    views: Views | None = None
    grown = 0
    for growth in grow_line_by_line(source, target, every):
        if growth is None:
            continue
        grown += 1
        if views is None:
            views = Views(growth.run)
        else:
            views.extend(growth.run, growth.changed_from)
        same_as_fresh(views, target)
    return grown


def test_a_claude_code_session_followed_as_it_is_written(tmp_path: Path) -> None:
    """A Claude Code transcript written a few records at a time: each growth's views equal a fresh import's."""
    assert follow_and_compare(SESSION, tmp_path, every=5) > 10


@pytest.mark.parametrize(
    ("session", "every"),
    [(path, 3) for path in real_sessions("compact_boundary", "isCompactSummary", "auto_compaction")]
    + [(path, 2) for path in real_sessions("subagent", "subagent_parent", "agent_tool")],
    ids=str,
)
def test_a_real_session_with_a_compaction_or_a_sub_agent_followed(session: Path, every: int, tmp_path: Path) -> None:
    """A real session that compacts, rewinds or starts a sub-agent mid-way, followed as it is written: at every
    growth the extended views equal a fresh import's (the fixtures' manifest: run after they land on main)."""
    try:
        imports.load(session)
    except ValueError as error:
        pytest.skip(f"does not import: {error}")
    follow_and_compare(session, tmp_path, every=every)


def test_a_claude_code_line_half_written_is_waited_for(tmp_path: Path) -> None:
    """A transcript whose last line has no newline yet is not imported until it has one: no 'cut short' warning."""
    lines = SESSION.read_bytes().splitlines(keepends=True)
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(lines[:20]))
    tracker = ImportFollower(path)
    first = tracker.poll()
    assert first is not None
    with path.open("ab") as file:
        file.write(lines[20][:30])
    assert tracker.poll() is None
    with path.open("ab") as file:
        file.write(lines[20][30:])
    grown = tracker.poll()
    assert grown is not None and not any("cut short" in str(w) for w in grown.run.warnings)


def test_a_truncated_session_is_imported_again_and_said(tmp_path: Path) -> None:
    """A transcript cut below what was imported is imported again, and the growth says so."""
    lines = SESSION.read_bytes().splitlines(keepends=True)
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(lines[:60]))
    tracker = ImportFollower(path)
    assert tracker.poll() is not None
    path.write_bytes(b"".join(lines[:20]))
    growth = tracker.poll()
    assert growth is not None and "truncated" in growth.notice and growth.changed_from == 0


def test_a_run_file_is_followed_incrementally_and_a_transcript_by_import(tmp_path: Path) -> None:
    """follower() reads a run file's new bytes only, and imports anything else again."""
    run_file = tmp_path / "run.jsonl"
    run_file.write_text(line(header()) + line(step(0)))
    assert isinstance(follower(run_file), Follower)
    assert isinstance(follower(SESSION), ImportFollower)


@pytest.mark.slow
def test_a_recording_of_record_client_followed(tmp_path: Path) -> None:
    """A record(client) recording, written a call at a time by another process: each growth's views agree."""
    anthropic = pytest.importorskip("anthropic")
    from agentrender.testing import MessagesServer

    recording = tmp_path / "recorded.jsonl"
    replies = [_reply(n) for n in range(4)]
    with MessagesServer.scripted(replies) as server:
        client = agentrender.record(
            anthropic.Anthropic(base_url=server.base_url, api_key="test", max_retries=0), recording
        )
        with client:
            messages: list[dict[str, Any]] = [{"role": "user", "content": "What is the answer? Start at a.txt."}]
            for number in range(4):
                message = client.messages.create(
                    model="claude-test", max_tokens=256, messages=messages, tools=TOOLS, tool_choice=CHOICE
                )
                messages.append({"role": "assistant", "content": [block.model_dump() for block in message.content]})
                if number < 3:
                    result = {"type": "tool_result", "tool_use_id": f"toolu_{number:02d}", "content": f"file {number}"}
                    messages.append({"role": "user", "content": [result]})
    assert isinstance(follower(recording), ImportFollower)
    target = tmp_path / "followed.jsonl"
    writer = Writer(target)
    try:
        lines = recording.read_text("utf-8").splitlines(keepends=True)
        writer.append(lines[0])
        tracker = follower(target)
        assert isinstance(tracker, ImportFollower)
        views: Views | None = None
        for text in lines[1:]:
            writer.append(text)
            growth = tracker.poll()
            assert growth is not None
            if views is None:
                views = Views(growth.run)
            else:
                views.extend(growth.run, growth.changed_from)
            same_as_fresh(views, target)
        assert views is not None and len(views.steps) == 4
    finally:
        writer.close()


CHOICE = {"type": "auto", "disable_parallel_tool_use": True}
TOOLS = [{"name": "read_file", "description": "Read a file.", "input_schema": {"type": "object"}}]


def _reply(number: int) -> dict[str, Any]:
    usage = {"input_tokens": 100, "output_tokens": 20}
    if number < 3:
        content = [
            {"type": "tool_use", "id": f"toolu_{number:02d}", "name": "read_file", "input": {"path": f"{number}"}}
        ]
        return {
            "id": f"msg_{number}",
            "model": "claude-test",
            "content": content,
            "stop_reason": "tool_use",
            "usage": usage,
        }
    content = [{"type": "text", "text": "The answer is 42."}]
    return {"id": "msg_3", "model": "claude-test", "content": content, "stop_reason": "end_turn", "usage": usage}
