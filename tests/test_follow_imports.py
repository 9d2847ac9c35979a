"""Following what an importer reads while it is written: Claude Code sessions and ``record(client)`` recordings."""

import json
import shutil
import tempfile
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agentrender
from agentrender import imports
from agentrender.imports import claude_code
from agentrender.imports.claude_code import GrowingSession, from_claude_code
from agentrender.imports.following import ImportFollower, follower
from agentrender.runfile import Follower, Growth, Run, RunFileError
from agentrender.runfile.following import REMOVED
from agentrender.runfile.write import write_run
from agentrender.views import Views
from tests._support import growing, real
from tests._support.conversations import prefilled_log
from tests._support.fuzz import FLAGGED_ON_MAIN, sidechain_flagged_on_main
from tests._support.growing import Writer, header, line, step

ROOT = Path(__file__).resolve().parents[1]
SESSION = ROOT / "sample_imports" / "python-to-rust-port.claude-code.jsonl"
REAL = real.REAL


def real_sessions(*features: str) -> list[Path]:
    """The real Claude Code transcripts of the fixtures' manifest with any of ``features``, of at most
    ``real.LARGE_BYTES`` (none when not there): a larger one is grown in a few chunks instead
    (``test_a_large_real_session_and_its_agents_grown_in_chunks``)."""
    return [
        REAL / entry["path"]
        for entry in real.histories()
        if entry["format"] == "claude_code"
        and set(features) & set(entry["features"])
        and entry["bytes"] <= real.LARGE_BYTES
        and (REAL / entry["path"]).is_file()
    ]


LARGE_SESSIONS = [
    REAL / entry["path"]
    for entry in real.histories()
    if entry["format"] == "claude_code"
    and "main" in entry["features"]
    and entry["bytes"] > real.LARGE_BYTES
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


@pytest.mark.parametrize("which", [None, "0"], ids=["undecided", "--run"])
def test_a_first_line_being_written_is_pending_not_an_error(tmp_path: Path, which: str | None) -> None:
    """A followed file whose first line has no newline and no whole JSON value yet waits for it as for any line
    (``pending``, ``pending_line`` 1), with no ``waiting`` reason: not the importer's 'the line breaks off ...; a
    process killed while writing leaves this', as of a crash, which a --run follow gave before."""
    path = tmp_path / "run.jsonl"
    text = line(header())
    path.write_text(text[:30])
    tracker = follower(path, which)
    assert tracker.poll() is None
    assert (tracker.waiting, tracker.pending_line, tracker.pending) == ("", 1, 30)
    with path.open("a") as file:
        file.write(text[30:] + line(step(0)))
    grown = tracker.poll()
    assert grown is not None and [s.index for s in grown.run.steps] == [0]
    assert (tracker.pending_line, tracker.pending) == (0, 0)


def test_a_later_line_of_json_lines_imported_whole_is_pending(tmp_path: Path) -> None:
    """A file of JSON lines imported again whole (a run file followed with --run) whose last line has no newline yet
    says that line as pending (its number and bytes), as a run file's follower does, where it said none before; a
    document of one line, complete without a newline, has none pending."""
    path = tmp_path / "run.jsonl"
    path.write_text(line(header()) + line(step(0)))
    tracker = ImportFollower(path, "0")
    assert tracker.poll() is not None
    with path.open("a") as file:
        file.write(line(step(1))[:25])
    assert tracker.poll() is None
    assert (tracker.waiting, tracker.pending_line, tracker.pending) == ("", 3, 25)
    with path.open("a") as file:
        file.write(line(step(1))[25:])
    grown = tracker.poll()
    assert grown is not None and [s.index for s in grown.run.steps] == [0, 1]
    assert (tracker.pending_line, tracker.pending) == (0, 0)
    document = tmp_path / "conversation.json"
    document.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}]}))
    whole = ImportFollower(document)
    assert whole.poll() is not None and (whole.pending_line, whole.pending) == (0, 0)


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


@pytest.mark.parametrize("how", ["removed", "written again in place"])
def test_a_session_removed_or_written_again_in_place_is_imported_from_its_start(tmp_path: Path, how: str) -> None:
    """A transcript removed while followed makes ``waiting`` say so, and one written in its place (another session,
    longer than what was read, its inode perhaps the old one's) is imported from its start with a notice; so is one
    truncated and written again longer between two looks. Before, the session was read on from the old offset, in
    the middle of a line of the new file: 'not JSON' on that line."""
    lines = SESSION.read_bytes().splitlines(keepends=True)
    other = (REAL / "claude-code" / "marot-spotter" / "tool_heavy.jsonl").read_bytes()
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(lines[:20]))
    tracker = ImportFollower(path)
    assert tracker.poll() is not None
    if how == "removed":
        path.unlink()
        assert tracker.poll() is None and tracker.waiting == REMOVED
    path.write_bytes(other)
    growth = tracker.poll()
    said = "removed, and written again" if how == "removed" else "written again: its bytes before the"
    assert growth is not None and said in growth.notice and growth.changed_from == 0 and tracker.waiting == ""
    assert growth.run.steps == from_claude_code(path)[0].steps


def test_a_session_emptied_then_written_again_longer_is_imported_again_and_said(tmp_path: Path) -> None:
    """A look that finds the transcript emptied gives nothing, and the next growth (the file written again,
    longer than what was imported) is the session read again from its start, with the notice the empty look
    could not give."""
    lines = SESSION.read_bytes().splitlines(keepends=True)
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(lines[:20]))
    tracker = ImportFollower(path)
    assert tracker.poll() is not None
    path.write_bytes(b"")
    assert tracker.poll() is None
    path.write_bytes(b"".join(lines[:60]))
    growth = tracker.poll()
    assert growth is not None and "truncated" in growth.notice and growth.changed_from == 0
    assert growth.run.steps == from_claude_code(path)[0].steps
    path.write_bytes(b"".join(lines[:61]))
    later = tracker.poll()
    assert later is None or later.notice == ""  # said once
    assert len(tracker.notices) == 1


def test_a_run_file_is_followed_incrementally_and_a_transcript_by_import(tmp_path: Path) -> None:
    """follower() reads a run file's new bytes only, and imports anything else again."""
    run_file = tmp_path / "run.jsonl"
    run_file.write_text(line(header()) + line(step(0)))
    assert isinstance(follower(run_file), Follower)
    assert isinstance(follower(SESSION), ImportFollower)


@pytest.mark.slow
def recorded(recording: Path) -> None:
    """A record(client) recording of four calls at ``recording``, each answering the tool call before it."""
    anthropic = pytest.importorskip("anthropic")
    from agentrender.testing import MessagesServer

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


def test_a_recording_of_record_client_followed(tmp_path: Path) -> None:
    """A record(client) recording, written a call at a time by another process: each growth's views agree."""
    recording = tmp_path / "recorded.jsonl"
    recorded(recording)
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


def test_a_call_log_whose_call_ended_with_a_prefill_followed_as_imported(tmp_path: Path) -> None:
    """A call log followed a call at a time, its second call ending with a prefill its reply went on from, shows at
    each growth what a fresh import shows, and once that call is logged the view deciding its step ends with it."""
    source = prefilled_log(tmp_path / "log.jsonl", marked=True)
    folder = tmp_path / "followed"
    folder.mkdir()
    assert follow_and_compare(source, folder, 1) == 2
    view = Views(imports.load(folder / "log.jsonl")).at(1)
    assert view.prefilled is not None and view.messages[-1] == view.prefilled.message


def test_a_recording_written_into_a_file_followed_while_empty_is_imported(tmp_path: Path) -> None:
    """A file followed before its first line is written is read as that line says: a recording by import, its steps
    all there (a run-file follower, chosen by an empty file, made none from its model calls)."""
    recording = tmp_path / "recorded.jsonl"
    recorded(recording)
    target = tmp_path / "followed.jsonl"
    target.write_text("")
    tracker = follower(target)
    assert tracker.poll() is None
    with target.open("ab") as file:
        file.write(recording.read_bytes()[:10])  # not a whole line yet: still undecided
    assert tracker.poll() is None
    target.write_bytes(recording.read_bytes())
    growth = tracker.poll()
    assert growth is not None
    assert growth.run.steps == agentrender.load(recording).steps and len(growth.run.steps) == 4


def test_a_session_written_into_a_file_followed_while_empty_is_imported(tmp_path: Path) -> None:
    """A Claude Code session or a Codex rollout written into a file followed while empty imports, where the run-file
    follower the empty file chose said 'missing run header'."""
    for source in (SESSION, *sorted((REAL / "codex").rglob("rollout-*.jsonl"))[:1]):
        target = tmp_path / source.name
        target.write_text("")
        tracker = follower(target)
        target.write_bytes(source.read_bytes())
        growth = tracker.poll()
        assert growth is not None and growth.run.steps == agentrender.load(source).steps, source


@pytest.mark.parametrize("name", ["rollout.jsonl", "ROLLOUT.JSONL"])
def test_a_codex_rollout_named_in_capitals_is_followed_a_growth_at_a_time(tmp_path: Path, name: str) -> None:
    """A Codex rollout named .JSONL in any case is followed a growth at a time, as rollout.jsonl is: its complete lines
    show while its last is half written, held back (``pending``); ROLLOUT.JSONL waited for the line to end, read whole
    again at every change."""
    source = sorted((REAL / "codex").rglob("rollout-*.jsonl"))[0]
    data = source.read_bytes()
    cut = data.rindex(b"\n", 0, len(data) - 1) + 1 + 10  # ten bytes into the last line
    target = tmp_path / name
    target.write_bytes(data[:cut])
    tracker = follower(target)
    growth = tracker.poll()
    assert growth is not None and tracker.pending == 10
    target.write_bytes(data)
    growth = tracker.poll()
    assert growth is not None and growth.run.steps == agentrender.load(source).steps


@pytest.mark.parametrize("name", ["RUN.JSONL.GZ", "session.jsonl.Gz"])
def test_a_file_named_gz_in_any_case_is_refused_to_follow_at_once(tmp_path: Path, name: str) -> None:
    """Following a file whose name ends in .gz, in any case, fails at once saying why, before any waiting, as for
    run.jsonl.gz: RUN.JSONL.GZ was followed as plain text."""
    with pytest.raises(RunFileError, match="cannot be followed"):
        Follower(tmp_path / name)
    with pytest.raises(RunFileError, match="a gzip-compressed file cannot be followed"):
        follower(tmp_path / name)


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


# --- a Claude Code session read a growth at a time (GrowingSession) equals a fresh import of the same bytes ---

SESSION_ID = "5e551011-0000-4000-8000-000000000000"


def _uuid(n: int) -> str:
    return f"00000000-0000-4000-8000-{n:012x}"


class SessionWriter:
    """Claude Code's records, as it writes them: each reply one block a record, results as they come."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []
        self.count = 0
        self.leaf: str | None = None
        self.replies = 0

    def _record(self, kind: str, sidechain: bool = False, parent: str | None = None, **fields: Any) -> str:
        self.count += 1
        uuid = _uuid(self.count)
        base = {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": SESSION_ID, "isSidechain": sidechain}
        base["timestamp"] = f"2026-01-05T09:{self.count // 60 % 60:02d}:{self.count % 60:02d}Z"
        self.lines.append({**base, **fields})
        return uuid

    def prompt(self, text: str, sidechain: bool = False, **fields: Any) -> None:
        message = {"role": "user", "content": text}
        self.leaf = self._record("user", sidechain, self.leaf, message=message, **fields)

    def reply(
        self, blocks: list[dict[str, Any]], sidechain: bool = False, results: bool = True, stop: str = "", **fields: Any
    ) -> None:
        """A reply written a block a record; each tool use answered right after its own record. ``stop``: what it
        stopped on, when not what its blocks say (``tool_use`` or ``end_turn``)."""
        self.replies += 1
        stop = stop or ("tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn")
        message = {"id": f"msg_{self.replies}", "model": "claude-sonnet-4-5", "role": "assistant", "type": "message",
                   "stop_reason": stop, "usage": {"input_tokens": 10, "output_tokens": 5}}  # fmt: skip
        for block in blocks:
            self.leaf = self._record(
                "assistant", sidechain, self.leaf, message={**message, "content": [block]}, **fields
            )
            if block["type"] == "tool_use" and results:
                result = {"type": "tool_result", "tool_use_id": block["id"], "content": f"result of {block['id']}"}
                self.leaf = self._record(
                    "user", sidechain, self.leaf, message={"role": "user", "content": [result]}, **fields
                )

    def turn(self, number: int, uses: int = 1, **fields: Any) -> None:
        blocks: list[dict[str, Any]] = [{"type": "text", "text": f"Step {number}."}]
        blocks += [
            {"type": "tool_use", "id": f"toolu_{number}_{n}", "name": "Read", "input": {"file_path": f"/f{n}"}}
            for n in range(uses)
        ]
        self.reply(blocks, **fields)

    def system(self, subtype: str, content: str = "noted") -> None:
        self.leaf = self._record("system", parent=self.leaf, subtype=subtype, content=content)

    def failed(self, text: str) -> None:
        """The reply Claude Code writes itself for a request that failed (never sent to the model)."""
        message = {"id": f"synthetic-{self.count}", "model": "<synthetic>", "role": "assistant", "type": "message",
                   "content": [{"type": "text", "text": text}]}  # fmt: skip
        self.leaf = self._record("assistant", parent=self.leaf, message=message, isApiErrorMessage=True)

    def attachment(self, kind: str, **fields: Any) -> None:
        self.leaf = self._record("attachment", parent=self.leaf, attachment={"type": kind, **fields})

    def api_errors(self, count: int) -> None:
        """The records Claude Code writes when the next request fails ``count`` times and it tries again."""
        body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
        overloaded = {"status": 529, "headers": {}, "requestID": None, "error": body}
        for attempt in range(1, count + 1):
            self.leaf = self._record(
                "system", parent=self.leaf, subtype="api_error", level="error", error=overloaded,
                retryInMs=500 * attempt, retryAttempt=attempt, maxRetries=10,
            )  # fmt: skip

    def compaction(self) -> None:
        before, self.leaf = self.leaf, None
        self.leaf = self._record(
            "system", subtype="compact_boundary", logicalParentUuid=before,
            compactMetadata={"trigger": "auto", "preTokens": 1000}, content="Conversation compacted",
        )  # fmt: skip
        self.prompt("This session is continued from a previous conversation. Summary: ...", isCompactSummary=True)

    def rewind(self, back: int) -> None:
        """The next record answers the message ``back`` message records before the last (a rewind)."""
        messages = [line["uuid"] for line in self.lines if line["type"] in ("user", "assistant")]
        self.leaf = messages[max(0, len(messages) - 1 - back)]

    def sub_agent(self, agent: str, turns: int) -> None:
        """A sub-agent's thread in this file (as older versions write it), between the main thread's records."""
        leaf = self.leaf
        self.leaf = None
        self.prompt(f"Sub-agent {agent}: look at the tests.", sidechain=True, agentId=agent)
        for number in range(turns):
            self.turn(100 + number, sidechain=True, agentId=agent)
        self.reply([{"type": "text", "text": "Done."}], sidechain=True, agentId=agent)
        self.leaf = leaf

    def summary(self) -> None:
        self.lines.append({"type": "summary", "summary": "A session", "leafUuid": self.leaf})

    def queued(self, operation: str, content: str | None = None) -> None:
        """A record of the prompt queue (no uuid: in no thread)."""
        made = {"type": "queue-operation", "operation": operation, "sessionId": SESSION_ID}
        self.lines.append(made if content is None else {**made, "content": content})

    def text(self) -> bytes:
        return "".join(json.dumps(line) + "\n" for line in self.lines).encode()


def grown_equals_fresh(data: bytes, path: Path, cuts: list[int]) -> tuple[int, int]:
    """``growing.grown_equals_fresh`` of a Claude Code session: how many growths were read on, and made whole."""
    read_on, whole, _ = growing.grown_equals_fresh(data, path, cuts, GrowingSession, from_claude_code)
    return read_on, whole


def every_line_and_mid_line(data: bytes) -> list[int]:
    ends = [i + 1 for i, byte in enumerate(data) if byte == ord("\n")]
    cuts = []
    for start, end in pairwise([0, *ends]):
        cuts += [start + (end - start) // 2, end]
    return cuts


def test_an_agents_file_beside_a_claude_code_2_0_session_is_read_once_it_names_the_session(tmp_path: Path) -> None:
    """A followed 2.0 session whose sub-agent's file appears beside it: while the agent's first line is half written
    nothing changes; once it names the session, the agent is one of the session's runs, as a fresh import has it."""

    def message(uuid: str, parent: str | None, role: str, text: str, **more: Any) -> dict[str, Any]:
        said = {"role": role, "content": text, **({"id": uuid, "model": "m"} if role == "assistant" else {})}
        return {"type": role, "uuid": uuid, "parentUuid": parent, "sessionId": "s-one", **more, "message": said}

    path = tmp_path / "s-one.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in [message("u1", None, "user", "go"),
                                                            message("a1", "u1", "assistant", "Done.")]))  # fmt: skip
    session = GrowingSession(path)
    grown = session.grow()
    assert grown is not None and len(grown[0]) == 1
    agent = [message("w1", None, "user", "Warmup", isSidechain=True, agentId="w"),
             message("w2", "w1", "assistant", "Ready.", isSidechain=True, agentId="w")]  # fmt: skip
    text = "".join(json.dumps(r) + "\n" for r in agent)
    (tmp_path / "agent-w.jsonl").write_text(text[:40])
    assert session.grow() is None
    (tmp_path / "agent-w.jsonl").write_text(text)
    grown = session.grow()
    assert grown is not None and grown[0] == from_claude_code(path)
    assert [run.run_id for run in grown[0]] == ["s-one", "s-one/agent-w"]


def test_failed_requests_and_local_commands_are_followed_as_imported(tmp_path: Path) -> None:
    """A session with a request that failed mid-way (the reply Claude Code wrote for it, never sent), local commands
    between two prompts (sent as user text) and a last request that failed, grown a line and half a line at a time:
    each growth equals a fresh import, its end (failed, then not) included."""

    def message(uuid: str, parent: str | None, role: str, content: Any, **more: Any) -> dict[str, Any]:
        return {"type": role, "uuid": uuid, "parentUuid": parent, "sessionId": "s", "isSidechain": False,
                "message": {"role": role, "content": content, **more}}  # fmt: skip

    def failed(uuid: str, parent: str, text: str) -> dict[str, Any]:
        reply = message(uuid, parent, "assistant", [{"type": "text", "text": text}], id=uuid, model="<synthetic>")
        return {**reply, "isApiErrorMessage": True}

    def command(uuid: str, parent: str, text: str) -> dict[str, Any]:
        return {"type": "system", "subtype": "local_command", "content": text, "uuid": uuid, "parentUuid": parent,
                "sessionId": "s", "isSidechain": False}  # fmt: skip

    use = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}
    records = [
        message("u1", None, "user", "go"),
        message("a1", "u1", "assistant", [use], id="msg_1", model="m"),
        message("r1", "a1", "user", [{"type": "tool_result", "tool_use_id": "t1", "content": "a b"}]),
        failed("e1", "r1", "Request timed out"),
        message("u2", "e1", "user", "continue"),
        message("a2", "u2", "assistant", [{"type": "text", "text": "Done."}], id="msg_2", model="m"),
        command("c1", "a2", "<command-name>/cost</command-name>"),
        command("c2", "c1", "<local-command-stdout>$0.10</local-command-stdout>"),
        message("u3", "c2", "user", "And now?"),
        message("a3", "u3", "assistant", [{"type": "text", "text": "Now this."}], id="msg_3", model="m"),
        message("u4", "a3", "user", "Once more."),
        failed("e2", "u4", "API Error: 529 Overloaded"),
    ]
    data = "".join(json.dumps(record) + "\n" for record in records).encode()
    read_on, whole = grown_equals_fresh(data, tmp_path / "s.jsonl", every_line_and_mid_line(data))
    assert read_on and whole
    (run,) = from_claude_code(tmp_path / "s.jsonl")
    assert run.end is not None and run.end["error"] == "API Error: 529 Overloaded" and len(run.steps) == 3


def test_requests_tried_again_are_followed_as_imported(tmp_path: Path) -> None:
    """A session whose requests failed and were tried again (system/api_error records) before a reply, before the
    reply Claude Code wrote when it gave up, and at the file's end, grown a line and half a line at a time: each growth
    equals a fresh import, the warnings that say them and the model calls' tries included."""
    writer = SessionWriter()
    writer.prompt("Begin.")
    writer.turn(0)
    writer.api_errors(2)
    writer.turn(1)
    writer.api_errors(3)
    writer.failed("Request timed out")
    writer.prompt("continue")
    writer.reply([{"type": "text", "text": "Done."}])
    writer.prompt("Once more.")
    writer.api_errors(1)
    data = writer.text()
    read_on, whole = grown_equals_fresh(data, tmp_path / "s.jsonl", every_line_and_mid_line(data))
    assert read_on and whole
    (run,) = from_claude_code(tmp_path / "s.jsonl")
    assert [len(call.retried) for call in run.model_calls] == [0, 2, 0]
    assert sum("system/api_error" in warning.text for warning in run.warnings) == 3


@pytest.mark.parametrize("session", real_sessions("main", "real_session", "hand_written_fixture", "subagent"), ids=str)
def test_a_real_session_read_on_a_line_at_a_time_equals_a_fresh_import(session: Path, tmp_path: Path) -> None:
    """A real Claude Code transcript grown a line (and half a line) at a time: after every growth the runs read on
    equal a fresh import of the complete lines, warnings included."""
    grown_equals_fresh(session.read_bytes(), tmp_path / session.name, every_line_and_mid_line(session.read_bytes()))


@pytest.mark.parametrize("session", LARGE_SESSIONS, ids=str)
def test_a_large_real_session_and_its_agents_grown_in_chunks(session: Path, tmp_path: Path) -> None:
    """A real session of more than ``real.LARGE_BYTES``, its sub-agents' files (if any) in place from the start (an
    agent forked for a compaction among them), grown in twelve chunks of whole lines: after each growth the runs equal
    a fresh import, the forked agent's too (read on its own while the records it hangs from are not written yet)."""
    if session.with_suffix("").is_dir():  # a session that started no sub-agent has no folder of them
        shutil.copytree(session.with_suffix(""), tmp_path / session.stem)
    data = session.read_bytes()
    ends = [at + 1 for at, byte in enumerate(data) if byte == ord("\n")]
    cuts = [ends[len(ends) * chunk // 12 - 1] for chunk in range(1, 13)]
    read_on, whole = grown_equals_fresh(data, tmp_path / session.name, cuts)
    assert read_on + whole == 12


def test_a_message_joined_into_the_opening_before_any_reply_reaches_the_followed_views(tmp_path: Path) -> None:
    """A prompt, then a hook's reminder joined into the same first turn before the model replied: the growth that
    brings the reminder has no step, and the followed views open with the prompt and the reminder, as a fresh import's
    do, as sent and under the contract."""
    writer = SessionWriter()
    writer.prompt("Look at the tests.")
    writer.prompt("<system-reminder>The hook said: the build is broken.</system-reminder>")
    writer.turn(0)
    source = tmp_path / "source.jsonl"
    source.write_bytes(writer.text())
    target = tmp_path / "followed.jsonl"
    followed: list[Views] = []
    for growth in grow_line_by_line(source, target, 1):
        assert growth is not None
        if not followed:
            followed = [Views(growth.run), Views(growth.run, growth.run.options(recent_results=1))]
        for views in followed:
            views.extend(growth.run, growth.changed_from)
        fresh = imports.load(target)
        assert followed[0].at(0).messages == Views(fresh).at(0).messages
        assert followed[1].at(0).messages == Views(fresh, fresh.options(recent_results=1)).at(0).messages
    assert "the build is broken" in json.dumps(followed[0].at(0).messages[0].to_dict())


def test_a_reply_record_flagged_as_a_sidechain_on_the_main_thread_is_followed_as_imported(tmp_path: Path) -> None:
    """The transcript the fuzz test found (a reply's middle record flagged ``isSidechain`` on the main thread; see
    ``test_imports_claude_code``) grown a line and half a line at a time: each growth equals a fresh import, its
    warning included once it is written."""
    data = "".join(json.dumps(record) + "\n" for record in sidechain_flagged_on_main()).encode()
    read_on, whole = grown_equals_fresh(data, tmp_path / "s.jsonl", every_line_and_mid_line(data))
    assert read_on and whole
    flagged = [w for w in from_claude_code(tmp_path / "s.jsonl")[0].warnings if w.text.startswith("isSidechain")]
    assert [w.line for w in flagged] == [FLAGGED_ON_MAIN + 1]


def test_a_plain_session_is_read_on_and_not_made_whole_again(tmp_path: Path) -> None:
    """A session that only goes on (turns, parallel tool uses, system notes, titles) is read on at every growth
    after the first: none is made whole again, and each equals a fresh import."""
    writer = SessionWriter()
    writer.prompt("Fix the failing test.")
    for number in range(12):
        writer.turn(number, uses=1 + number % 3)
        if number % 4 == 3:
            writer.system("turn_duration")
            writer.summary()
    writer.reply([{"type": "text", "text": "Fixed."}, {"type": "text", "text": "  "}])
    data = writer.text()
    read_on, whole = grown_equals_fresh(data, tmp_path / "s.jsonl", every_line_and_mid_line(data))
    assert whole == 1 and read_on > 40


def test_a_reply_cut_at_the_output_cap_is_truncated_read_whole_or_a_growth_at_a_time(tmp_path: Path) -> None:
    """A reply that stopped at the output cap (its records' ``stop_reason`` ``max_tokens``) is decided ``truncated``,
    as ``render.decide`` decides it, whether the session is imported whole or followed a growth at a time."""
    writer = SessionWriter()
    writer.prompt("Fix the failing test.")
    writer.turn(0)
    writer.reply([{"type": "text", "text": "The fix is to"}], stop="max_tokens")
    writer.prompt("Go on.")
    writer.turn(1)
    data = writer.text()
    grown_equals_fresh(data, tmp_path / "s.jsonl", every_line_and_mid_line(data))
    (run,) = from_claude_code(tmp_path / "s.jsonl")
    assert [step.decision.kind for step in run.steps] == ["tool_call", "truncated", "tool_call"]
    assert [agentrender.render.decide(call.response) for call in run.model_calls] == [s.decision for s in run.steps]


def test_a_compaction_a_sub_agent_and_a_rewind_mid_session_are_imported_whole(tmp_path: Path) -> None:
    """A compaction, a sub-agent's thread and a rewind appearing mid-session: each growth equals a fresh import
    (those growths are made whole again, and the session is read on again once it simply goes on)."""
    writer = SessionWriter()
    writer.prompt("Port the module.")
    for number in range(4):
        writer.turn(number)
    writer.rewind(3)
    writer.turn(10)
    writer.turn(11)
    writer.sub_agent("a1b2", 2)
    writer.turn(12)
    writer.compaction()
    for number in range(20, 24):
        writer.turn(number)
    data = writer.text()
    read_on, whole = grown_equals_fresh(data, tmp_path / "s.jsonl", every_line_and_mid_line(data))
    assert read_on > 10 and whole > 3


def followed_session(folder: Path) -> tuple[SessionWriter, Path, GrowingSession]:
    """A session of one prompt and one turn written in ``folder``, followed by a ``GrowingSession`` that read it."""
    writer = SessionWriter()
    writer.prompt("Look at the tests.")
    writer.turn(0)
    path = folder / f"{SESSION_ID}.jsonl"
    path.write_bytes(writer.text())
    session = GrowingSession(path)
    grown = session.grow()
    assert grown is not None and len(grown[0]) == 1
    return writer, path, session


@pytest.mark.parametrize("folder", ["subagents", "subagents/workflows/wf_1"])
def test_a_sub_agent_file_appearing_mid_session_is_read(tmp_path: Path, folder: str) -> None:
    """A sub-agent's own file (``<session>/subagents/agent-<id>.jsonl``, or a workflow agent's in
    ``subagents/workflows/<run id>/``) that appears and grows while the session does not: the next growth has its
    run, as a fresh import has."""
    _, path, session = followed_session(tmp_path)
    agent = SessionWriter()
    agent.sub_agent("c3d4", 1)
    (tmp_path / SESSION_ID / folder).mkdir(parents=True)
    (tmp_path / SESSION_ID / folder / "agent-c3d4.jsonl").write_bytes(agent.text())
    grown = session.grow()
    assert grown is not None and grown[0] == from_claude_code(path) and len(grown[0]) == 2
    assert session.grow() is None


def test_a_sub_agents_file_that_cannot_be_read_is_followed_as_a_fresh_import_reads_it(tmp_path: Path) -> None:
    """A sub-agent's file that appears broken while the session is followed is left out and said, as a fresh import
    leaves it out; the session's run goes on being read."""
    writer, path, session = followed_session(tmp_path)
    bad = tmp_path / SESSION_ID / "subagents" / "agent-bad.jsonl"
    bad.parent.mkdir(parents=True)
    bad.write_text("not json\n")
    grown = session.grow()
    assert grown is not None and grown[0] == from_claude_code(path) and len(grown[0]) == 1
    assert [(w.path, w.line, w.lost) for w in grown[0][0].warnings] == [(str(bad), 1, True)]
    writer.turn(1)
    path.write_bytes(writer.text())
    grown = session.grow()
    assert grown is not None and grown[0] == from_claude_code(path) and len(grown[0][0].steps) == 2


def test_a_sub_agents_sidecar_written_after_its_transcript_is_read(tmp_path: Path) -> None:
    """A sub-agent's ``.meta.json`` written after its transcript, and written again: each next growth has it, as a
    fresh import has, though no transcript grew."""
    writer = SessionWriter()
    writer.prompt("Look at the tests.")
    writer.turn(0)
    path = tmp_path / f"{SESSION_ID}.jsonl"
    path.write_bytes(writer.text())
    agent = SessionWriter()
    agent.sub_agent("c3d4", 1)
    folder = tmp_path / SESSION_ID / "subagents"
    folder.mkdir(parents=True)
    (folder / "agent-c3d4.jsonl").write_bytes(agent.text())
    session = GrowingSession(path)
    grown = session.grow()
    assert grown is not None and "meta" not in grown[0][1].header["source"]
    for description in ("Look", "Look again, longer"):
        (folder / "agent-c3d4.meta.json").write_text(json.dumps({"description": description}))
        grown = session.grow()
        assert grown is not None and grown[0] == from_claude_code(path)
        assert grown[0][1].header["source"]["meta"] == {"description": description}
    assert session.grow() is None


EVENTS = ("turn", "parallel", "prompt", "system", "summary", "rewind", "compaction", "agent", "blank", "failed",
          "command", "attachment", "queued", "cut", "retried")  # fmt: skip
"""What a generated session is made of (``test_generated_sessions_read_on_equal_fresh_imports``)."""


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(EVENTS), min_size=1, max_size=14), st.integers(min_value=1, max_value=3))
def test_generated_sessions_read_on_equal_fresh_imports(events: list[str], every: int) -> None:
    """Sessions of any mix of turns, parallel tool uses, prompts, notes, rewinds, compactions, sub-agents, failed
    requests, local commands, attachments, messages queued while the model worked and replies the output cap cut,
    grown ``every`` lines at a time: each growth equals a fresh import of the same lines."""
    writer = SessionWriter()
    writer.prompt("Begin.")
    for number, event in enumerate(events):
        if event == "turn":
            writer.turn(number)
        elif event == "parallel":
            writer.turn(number, uses=3)
        elif event == "prompt":
            writer.reply([{"type": "text", "text": "Done."}])
            writer.prompt(f"Now part {number}.")
        elif event == "system":
            writer.system("stop_hook_summary")
        elif event == "summary":
            writer.summary()
        elif event == "rewind":
            writer.rewind(2)
            writer.turn(number)
        elif event == "compaction":
            writer.compaction()
        elif event == "agent":
            writer.sub_agent(f"agent{number}", 1)
        elif event == "failed":
            writer.failed("API Error: 529 Overloaded")
        elif event == "retried":  # said with what comes next: a reply, a failed request, a prompt, the file's end
            writer.api_errors(2)
        elif event == "command":
            writer.system("local_command", "<command-name>/cost</command-name>")
            writer.system("local_command", "<local-command-stdout>Total cost: $0.10</local-command-stdout>")
        elif event == "attachment":
            writer.attachment("queued_command", prompt="also run the linter")
            writer.attachment("hook_success", hookEvent="PostToolUse", content="logged")
        elif event == "queued":  # taken to be sent, held by no record: said once the queue gives it up
            writer.queued("enqueue", f"and part {number} too")
            writer.turn(number)
            writer.queued("remove")
        elif event == "cut":  # a reply the output cap cut: decided truncated, then the user asks for more
            writer.reply([{"type": "text", "text": "The fix is to"}], stop="max_tokens")
            writer.prompt(f"Go on with part {number}.")
        else:
            writer.reply([{"type": "text", "text": " "}, {"type": "text", "text": "Thinking."}])
    data = writer.text()
    ends = [i + 1 for i, byte in enumerate(data) if byte == ord("\n")]
    with tempfile.TemporaryDirectory() as folder:
        grown_equals_fresh(data, Path(folder) / "s.jsonl", [*ends[::every], len(data)])


def test_a_claude_code_session_written_by_another_process_is_read_on(tmp_path: Path) -> None:
    """A session written by another process while followed (``follower``): each growth's run equals a fresh import
    and is read on (``changed_from`` names the last step or later), and its views equal fresh views."""
    writer = SessionWriter()
    writer.prompt("Fix the failing test.")
    for number in range(8):
        writer.turn(number)
    lines = writer.text().decode().splitlines(keepends=True)
    path = tmp_path / "live.jsonl"
    process = Writer(path)
    try:
        process.append("".join(lines[:3]))
        tracker = follower(path)
        assert isinstance(tracker, ImportFollower)
        growth = tracker.poll()
        assert growth is not None
        views = Views(growth.run)
        for start in range(3, len(lines), 2):
            process.append("".join(lines[start : start + 2]))
            steps = len(growth.run.steps)
            growth = tracker.poll()
            assert growth is not None and growth.run == from_claude_code(path)[0]
            assert growth.changed_from is not None and growth.changed_from >= max(0, steps - 1)
            views.extend(growth.run, growth.changed_from)
            same_as_fresh(views, path)
    finally:
        process.close()


def test_a_second_result_of_a_tool_use_makes_the_session_whole_again(tmp_path: Path) -> None:
    """A result written again for a tool use (a retried result, hanging from the last record), of the last turn or of
    one before: each growth that brings one is made whole again, and every growth equals a fresh import."""
    writer = SessionWriter()
    writer.prompt("Fix the failing test.")
    for number, answered in ((0, None), (1, "toolu_0_0"), (2, "toolu_2_0"), (3, None)):
        writer.turn(number)
        if answered is not None:
            again = {"type": "tool_result", "tool_use_id": answered, "content": f"result of {answered}, again"}
            writer.leaf = writer._record("user", parent=writer.leaf, message={"role": "user", "content": [again]})
    data = writer.text()
    read_on, whole = grown_equals_fresh(data, tmp_path / "s.jsonl", every_line_and_mid_line(data))
    assert whole == 3 and read_on > 5


CHAT = ROOT / "sample_imports" / "stock-lookup.openai-chat.json"
"""An OpenAI-style chat, a JSON document written over many lines: 2 steps (the last answered by a tool)."""
EVAL = real.REAL / "inspect" / "METR-inspect-action" / "small.eval"


def test_documents_an_importer_reads_whole_are_followed_by_import_and_a_broken_run_file_by_its_reader(
    tmp_path: Path,
) -> None:
    """An Inspect ``.eval`` log (a ZIP archive), a JSON document over many lines or on one, and a JSON list are
    followed by import, as ``load`` reads them (they were followed as run files, which refused them: "not JSON",
    "not a run file"); a file whose first line is JSON lines broken is still the run-file follower's to word."""
    pretty, one_line, listed, broken = (tmp_path / name for name in ("a.json", "b.json", "c.json", "d.jsonl"))
    pretty.write_bytes(CHAT.read_bytes())
    one_line.write_text(json.dumps(json.loads(CHAT.read_text("utf-8"))), "utf-8")  # no newline after it
    listed.write_text(json.dumps(json.loads(CHAT.read_text("utf-8"))["messages"], indent=1), "utf-8")
    broken.write_text('{"type": "run", "run_id": \n' + line(step(0)), "utf-8")
    for path in (pretty, one_line, listed, *([EVAL] if EVAL.is_file() else [])):
        tracker = follower(path)
        assert isinstance(tracker, ImportFollower), path
        growth = tracker.poll()
        assert growth is not None and growth.run == imports.load_runs(path)[0], path
    assert isinstance(follower(broken), Follower)


def test_a_json_document_written_again_in_place_is_waited_for_while_half_written(tmp_path: Path) -> None:
    """A conversation kept as one JSON document, written again after each step (as SWE-agent writes its trajectory):
    while it is half written it does not import, and the follower waits and says why, even after a run was imported;
    once whole, it is imported again, and only the steps that changed are given as changed."""
    document = json.loads(CHAT.read_text("utf-8"))
    messages = document["messages"]
    path = tmp_path / "chat.json"
    shorter = json.dumps({**document, "messages": messages[:3]}, indent=2)
    path.write_text(shorter[: len(shorter) // 2], "utf-8")  # half of its first writing
    tracker = ImportFollower(path)
    assert tracker.poll() is None and tracker.waiting.startswith(f"{path}:")
    path.write_text(shorter, "utf-8")
    first = tracker.poll()
    assert first is not None and len(first.run.steps) == 1 and tracker.waiting == ""
    whole = json.dumps(document, indent=2)
    path.write_text(whole[:-40] + "\n" * 100, "utf-8")  # written again in place, longer, not yet whole
    assert tracker.poll() is None and tracker.waiting
    path.write_text(whole, "utf-8")
    grown = tracker.poll()
    assert grown is not None and grown.run == imports.load(path) and len(grown.run.steps) == 2
    assert grown.changed_from == 0 and grown.notice == ""  # step 0 was the last step: how it was answered changed
    same_as_fresh(Views(grown.run), path)


def test_show_follow_of_a_document_says_what_it_waits_for_then_shows_it(tmp_path: Path) -> None:
    """``show --follow`` of a JSON document not whole yet says on stderr, once, why it waits (it was silent, or
    refused the file as a run file that is not JSON); of an Inspect log it shows the log's first run."""
    from tests._support.cli import run_cli

    path = tmp_path / "chat.json"
    text = CHAT.read_text("utf-8")
    path.write_text(text[: len(text) // 2], "utf-8")
    code, out, err = run_cli("show", str(path), "--follow", "--follow-for", "1")
    assert code == 0 and out == ""
    assert err.count("agentrender: waiting until the file imports: ") == 1 and str(path) in err
    if EVAL.is_file():
        code, out, err = run_cli("show", str(EVAL), "--follow", "--follow-for", "1")
        assert code == 0 and "oxdna_simple/default/1" in out and f"following {EVAL}" in out


def test_parallel_results_without_ids_that_hang_one_from_another_are_followed_as_imported(tmp_path: Path) -> None:
    """A hand-written session whose results with no ``tool_use_id`` hang one from another is followed as a fresh
    import reads it: refused while the results written do not yet answer every tool use with no id of their reply,
    read once the last is written, then read on."""

    def record(uuid: str, parent: str | None, role: str, blocks: list[dict[str, Any]]) -> dict[str, Any]:
        message: dict[str, Any] = {"role": role, "content": blocks}
        if role == "assistant":
            message.update(id=f"msg_{uuid}", model="m", type="message", stop_reason=None)
        return {"type": role, "uuid": uuid, "parentUuid": parent, "sessionId": "s", "message": message}

    uses = [{"type": "tool_use", "name": "Bash", "input": {"command": f"ls {n}"}} for n in range(3)]
    records = [record("u1", None, "user", [{"type": "text", "text": "go"}]), record("a1", "u1", "assistant", uses)]
    for n in range(3):
        records.append(record(f"r{n}", records[-1]["uuid"], "user", [{"type": "tool_result", "content": f"{n}"}]))
    records.append(record("a2", "r2", "assistant", [{"type": "text", "text": "Done."}]))
    records.append(record("u2", "a2", "user", [{"type": "text", "text": "Again."}]))
    records.append(record("a3", "u2", "assistant", [{"type": "text", "text": "Again done."}]))
    data = "".join(json.dumps(made) + "\n" for made in records).encode()
    read_on, whole, refused = growing.grown_equals_fresh(
        data, tmp_path / "s.jsonl", every_line_and_mid_line(data), GrowingSession, from_claude_code
    )
    assert (refused, whole, read_on) == (2, 2, 4)  # r0 and r1 refused, r2 read whole, each turn after it read on
    (run,) = from_claude_code(tmp_path / "s.jsonl")
    assert [(b["tool_use_id"], b["content"]) for b in run.step_records[0]["sent"]["user"]] == [
        (f"line-2-block-{n}", f"{n}") for n in range(3)
    ]


def turns_written(path: Path, turns: int, written: int) -> list[bytes]:
    """The lines of a session of a prompt and ``turns`` turns (text, tool use, result: three records each); the
    prompt and the first ``written`` turns are written to ``path``."""
    writer = SessionWriter()
    writer.prompt("Port the parser.")
    for number in range(turns):
        writer.turn(number)
    lines = writer.text().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[: 1 + 3 * written]))
    return lines


def test_a_followed_sessions_growth_copies_what_the_turn_adds_not_the_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session of 60 turns followed a turn at a time: each growth's snapshots of what it made (the steps, their
    records, the calls, ``source.transcript``) copy the items of the turns read again, not the session's (the transcript
    was a list copied at each growth, the most of a growth's cost at 10,000 turns: ``bench_follow.py``, session 40),
    while each run, the ones before included, equals a fresh import of the file as it was and writes out alike."""
    copied: list[int] = []
    settled = claude_code._Settled

    class Counted(settled):  # type: ignore[misc,valid-type]
        __slots__ = ()

        def __init__(self, items: list[Any], count: int) -> None:
            copied.append(len(items) - count)  # the items the snapshot holds itself, copied off the list
            super().__init__(items, count)

    monkeypatch.setattr(claude_code, "_Settled", Counted)
    path = tmp_path / "s.jsonl"
    lines = turns_written(path, 60, 30)
    session = GrowingSession(path)
    assert session.grow() is not None
    runs: list[tuple[Run, bytes]] = []
    for end in range(94, len(lines) + 1, 3):
        with path.open("ab") as file:
            file.write(b"".join(lines[end - 3 : end]))
        copied.clear()
        grown = session.grow()
        assert grown is not None and grown[1] is not None  # read on, not made again whole
        (run,) = grown[0]
        transcript = run.header["source"]["transcript"]
        assert isinstance(transcript, Counted) and len(transcript) == end
        assert copied and max(copied) <= 6, copied  # the turn read again (from the last mark) and the new one
        (fresh,) = from_claude_code(path)
        assert run == fresh
        write_run(run, tmp_path / "followed.jsonl")
        write_run(fresh, tmp_path / "fresh.jsonl")
        assert (tmp_path / "followed.jsonl").read_bytes() == (tmp_path / "fresh.jsonl").read_bytes()
        runs.append((run, path.read_bytes()))
    for run, data in runs[::10]:  # a run taken in before keeps what it held, though the session grew on
        (tmp_path / "then.jsonl").write_bytes(data)
        (then,) = from_claude_code(tmp_path / "then.jsonl")
        assert run.header["source"]["transcript"] == then.header["source"]["transcript"]
        assert run.steps == then.steps and run.step_records == then.step_records


def test_a_followed_sessions_growth_taken_in_makes_no_step_input_for_a_text_opening(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A followed session's growth taken in by its views (``Views.extend``, then what ``--follow`` asks of the new
    view: its change and bytes) makes no ``StepInput``, a tuple of every step before the stop, for an opening of text,
    which reads none: it made one at each growth for the opening, a sixth of a growth's cost at 10,000 turns."""
    path = tmp_path / "s.jsonl"
    lines = turns_written(path, 6, 3)
    tracker = ImportFollower(path)
    growth = tracker.poll()
    assert growth is not None
    views = Views(growth.run)
    views.sizes()

    def every_step(self: Views, at: int | None) -> Any:
        raise AssertionError("made the StepInput of every step before the stop")

    monkeypatch.setattr(Views, "step_input", every_step)
    for end in range(13, len(lines) + 1, 3):
        with path.open("ab") as file:
            file.write(b"".join(lines[end - 3 : end]))
        growth = tracker.poll()
        assert growth is not None and growth.changed_from is not None
        views.extend(growth.run, growth.changed_from)
        view = views.at(None)
        _ = view.change, view.bytes
    monkeypatch.undo()
    same_as_fresh(views, path)
