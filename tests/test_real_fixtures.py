"""Real, unmodified public histories (``tests/fixtures/real/MANIFEST.json`` names each one's source, commit and
licence) import whole: one step per request, every tool use and its result in a conversation, turns that alternate."""

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

from agentrender import RunFileError, imports, write_run
from agentrender.cli._check import check
from agentrender.runfile import read_records
from agentrender.views import Views
from tests._support import real, runschema

REAL = real.REAL
MANIFEST = real.histories()
CLAUDE_CODE = [entry for entry in MANIFEST if entry["format"] == "claude_code"]


def ids(entries: list[dict[str, Any]]) -> list[str]:
    return [entry["path"] for entry in entries]


def claude_code_runs(entry: dict[str, Any], **options: Any) -> list[Any]:
    """The runs of a Claude Code fixture (a hand-written one's tool uses with no id among them: each gets one made
    from its line and block, ``line-N-block-J``)."""
    return imports.from_claude_code(REAL / entry["path"], **options)


def test_the_manifest_names_a_source_commit_and_licence_for_every_file():
    """Every file under ``tests/fixtures/real`` is in the manifest, with where it came from and its licence; a
    licence's text beside a fixture (``LICENSE``, which the Apache License asks to be given with the work) is named
    by an entry of its folder."""
    kept = ("MANIFEST.json", "README.md", "LICENSE")
    files = {str(p.relative_to(REAL)) for p in REAL.rglob("*") if p.is_file() and p.name not in kept}
    assert files == {entry["path"] for entry in real.entries()}
    for text in REAL.rglob("LICENSE"):
        folder = str(text.parent.relative_to(REAL))
        beside = [entry for entry in real.entries() if str(Path(entry["path"]).parent) == folder]
        assert any("beside" in entry.get("licence_file", "") for entry in beside), text
    for entry in real.entries():
        assert re.fullmatch(r"[0-9a-f]{40}", entry["commit"]) and entry["repo"] and entry["licence"], entry["path"]
        assert (REAL / entry["path"]).stat().st_size == entry["bytes"], entry["path"]


def records_of(path: Path) -> list[tuple[int, dict[str, Any]]]:
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        if line.strip():
            out.append((number, json.loads(line)))
    return out


def branch_lines(runs: list[Any]) -> set[int]:
    """The lines a warning names as on branches the conversation left (a rewind or a retry)."""
    lines: set[int] = set()
    for run in runs:
        for warning in run.warnings:
            if "branches the conversation left" in warning.text:
                found = re.search(r"lines ([\d, ]+)", warning.text)
                assert found and "..." not in warning.text, warning.text
                lines.update(int(n) for n in found.group(1).split(", "))
    return lines


@pytest.mark.parametrize("entry", CLAUDE_CODE, ids=ids(CLAUDE_CODE))
def test_a_claude_code_session_has_one_step_and_one_model_call_per_request(entry):
    """Each run has one step and one model call per reply (``message.id``) its records hold, and the turns of its
    steps alternate as the API wants them. An agent forked from the session holds the session's records it was sent
    too (``forked_from``): its model calls are its own replies, those flagged as a sub-agent's. A hand-written
    record with no ``message.id`` is no reply the API gave, and no model call."""
    for run in claude_code_runs(entry):
        forked = "forked_from" in run.header["source"]
        replies = {
            r["message"]["id"]
            for r in run.header["source"]["transcript"]
            if r["type"] == "assistant"
            and "id" in r["message"]
            and not str(r["message"].get("model", "")).startswith("<")
            and (r.get("isSidechain") or not forked)
        }
        assert len(run.model_calls) == len(replies), run.run_id
        # two replies share a step only where the file lacks what was sent between them, and a warning says so
        joined = sum(w.count for w in run.warnings if "an assistant message right after another" in w.text)
        assert len({call.step for call in run.model_calls}) == len(run.model_calls) - joined, run.run_id
        for index in range(len(run.steps)):
            sent = run.step_records[index]["sent"]
            assert sent["assistant"] and all(b.get("type") != "tool_result" for b in sent["assistant"])
            assert sent.get("user") is None or all(b.get("type") != "tool_use" for b in sent["user"])


@pytest.mark.parametrize("entry", CLAUDE_CODE, ids=ids(CLAUDE_CODE))
def test_every_tool_use_of_a_claude_code_session_is_sent_with_its_result(entry):
    """Every tool use the file holds is in a run's conversation, answered in the turn after it when the file holds
    its result, unless a warning names its line as on a branch the conversation left. A hand-written tool use with no
    id is sent as ``line-N-block-J``, and a result with no ``tool_use_id`` answers it from the record it hangs from."""
    path = REAL / entry["path"]
    runs = claude_code_runs(entry, subagents=False)
    left = branch_lines(runs)
    uses: dict[str, int] = {}
    answered: set[str] = set()
    made: dict[str, list[str]] = {}  # by the uuid of their record, the ids of the tool uses written without one
    for number, value in records_of(path):
        content = (value.get("message") or {}).get("content") if isinstance(value.get("message"), dict) else None
        unnamed = made.get(value.get("parentUuid"), [])
        for j, block in enumerate(content if isinstance(content, list) else ()):
            if block.get("type") == "tool_use" and value.get("type") == "assistant":
                if "id" not in block:
                    made.setdefault(value["uuid"], []).append(f"line-{number}-block-{j}")
                uses.setdefault(block.get("id", f"line-{number}-block-{j}"), number)
            if block.get("type") == "tool_result":
                answered.add(block["tool_use_id"] if "tool_use_id" in block else unnamed.pop(0))
    sent_uses: dict[str, set[str]] = {}
    for run in runs:
        for index in range(len(run.steps)):
            sent = run.step_records[index]["sent"]
            results = {b.get("tool_use_id") for b in sent.get("user") or () if b.get("type") == "tool_result"}
            for block in sent["assistant"]:
                if block.get("type") == "tool_use":
                    sent_uses[block["id"]] = results
    for use, line in uses.items():
        if line in left:
            continue
        assert use in sent_uses, f"{entry['path']}:{line}: tool use {use} is in no run"
        if use in answered and sent_uses[use]:
            assert use in sent_uses[use], f"{entry['path']}:{line}: the result of {use} is not in the turn after it"


@pytest.mark.parametrize("entry", MANIFEST, ids=ids(MANIFEST))
def test_every_real_file_loads_through_the_one_entry_point(entry):
    """``imports.load_runs`` reads every real file, whatever its format, hand-written ones with tool uses that have
    no id included."""
    assert imports.load_runs(REAL / entry["path"])


REFUSED = real.refused()


@pytest.mark.parametrize("entry", REFUSED, ids=ids(REFUSED))
def test_a_real_file_of_no_run_is_refused_saying_why(entry):
    """A real file that holds no run (tau-bench's results of a task that raised before its chat began; a Codex
    rollout whose prompt is only in an event) is refused through the one entry point with an error naming the file,
    the line (``refused_line``, else 1) and what its source holds of why: the error once said there was no
    conversation, and not the error tau-bench wrote, and once that the rollout began with a reply, and not where its
    prompt was."""
    with pytest.raises(RunFileError) as raised:
        imports.load_runs(REAL / entry["path"])
    said = str(raised.value)
    line = entry.get("refused_line", 1)
    assert said.startswith(f"{REAL / entry['path']}:{line}: ") and said.endswith(entry["refused"]), said


@pytest.mark.parametrize("entry", CLAUDE_CODE, ids=ids(CLAUDE_CODE))
def test_the_white_space_warning_names_the_line_of_a_block_it_left_out(entry):
    """The warning of reply text blocks of white space only left out names the line of the first of them (a reply's
    record holding one), not the thread's first line."""
    for run in claude_code_runs(entry):
        for warning in run.warnings:
            if "of white space only left out" not in warning.text:
                continue
            # a forked agent's chain holds records of the session's file: the warning names the file too
            lines = Path(warning.path).read_text(encoding="utf-8").split("\n")
            record = json.loads(lines[warning.line - 1])
            assert record["type"] == "assistant", (run.run_id, warning.line)
            blocks = record["message"]["content"]
            assert any(b.get("type") == "text" and not b.get("text", "").strip() for b in blocks), warning.line


def reply_mark(response: Any) -> bytes:
    """What the line a reply was read from holds of it: its id; for a reply its file gives no id (a Codex rollout's
    items have none), its last block's (a tool use's id, a text's first words, a thinking block's signature)."""
    if response.id:
        return response.id.encode()
    last = response.content[-1]
    if last.type == "tool_use":
        return last.tool_use_id.encode()
    if last.type == "thinking":
        return last.signature.encode()
    return json.dumps(last.text[:40], ensure_ascii=False)[1:-1].encode()


def loaded_runs(entry: dict[str, Any]) -> list[Any]:
    """The runs ``imports.load_runs`` reads from a fixture."""
    return imports.load_runs(REAL / entry["path"])


@pytest.mark.parametrize("entry", MANIFEST, ids=ids(MANIFEST))
def test_each_model_call_is_at_the_line_of_its_file_that_holds_its_reply(entry):
    """Each model call's ``line`` (what ``decide`` and ``check`` point a user to) is a line of the file its run was
    read from that holds the reply (its id, or of a reply with none its last block), or 0 for a file of no lines (an
    Inspect log): never the line of a run file the user never saw."""
    runs = loaded_runs(entry)
    for run in runs:
        lines = Path(run.path).read_bytes().split(b"\n")
        for call in run.model_calls:
            if entry["format"] == "inspect":
                assert call.line == 0, run.run_id
                continue
            assert 0 < call.line <= len(lines), (run.run_id, call.step)
            mark = reply_mark(call.response)
            held = lines[call.line - 1]
            if held == b"  {":  # a message of claude-code-action's indented JSON array, from its line to the next's
                end = next((n for n in range(call.line, len(lines)) if lines[n] == b"  {"), len(lines))
                held = b"\n".join(lines[call.line - 1 : end])
            assert mark and mark in held, (run.run_id, call.line)


@pytest.mark.parametrize("entry", MANIFEST, ids=ids(MANIFEST))
def test_every_line_of_a_real_file_written_as_a_run_file_is_valid_under_the_schema(entry, tmp_path):
    """Every run of every real file, written as a run file, is valid under ``agentrender schema`` line by line (its
    blocks and replies as the Messages API has them), but for the unknown fields its source held, which the run keeps
    and the loader names."""
    runs = loaded_runs(entry)
    check = runschema.validator()
    for position, run in enumerate(runs):
        written = tmp_path / f"{position}.jsonl"
        write_run(run, written)
        assert runschema.schema_errors(written, check) == []


@pytest.mark.parametrize("entry", MANIFEST, ids=ids(MANIFEST))
def test_the_model_calls_of_every_real_file_load_together_as_each_read_on_its_own(entry):
    """Every run's model calls, handed over as an importer hands them (their replies checked: ``read_records``
    loads them together, in one conversion), load as each record checked on its own loads: the same calls at the
    same lines, the same warnings."""
    runs = loaded_runs(entry)
    for run in runs:
        ends = [run.end] if run.end is not None else []
        header = {key: value for key, value in run.header.items() if key != "compactions"}  # of steps not given here
        records = [header, *(call.record for call in run.model_calls), *ends]
        lines = [1, *(call.line for call in run.model_calls), *[0] * len(ends)]
        together = read_records(records, path=run.path, lines=lines, blocks_checked=True, replies_checked=True)
        alone = read_records(records, path=run.path, lines=lines, blocks_checked=True)
        assert together.model_calls == alone.model_calls
        assert len(together.model_calls) == len(run.model_calls), run.run_id
        assert together.warnings == alone.warnings


FINISHED = [entry for entry in MANIFEST if entry.get("ran_to_end")]


@pytest.mark.parametrize("entry", FINISHED, ids=ids(FINISHED))
def test_check_finds_no_error_in_a_session_that_ran_to_its_end(entry):
    """A session the API accepted to its end gives ``check`` nothing to call an error."""
    report = check(str(REAL / entry["path"]))
    assert not report.error and report.errors == 0, [f.message for f in report.findings if f.severity == "error"]


@pytest.mark.parametrize("entry", CLAUDE_CODE, ids=ids(CLAUDE_CODE))
def test_a_real_session_with_any_record_flagged_otherwise_imports_or_is_refused_clearly(entry, tmp_path):
    """Each record's ``isSidechain`` flipped in turn (a main thread's record flagged a sub-agent's, or the other way,
    as the fuzz test once found crashing the import): the session imports, or is refused with an error naming the
    file and line, never another exception. In a history of more than ``real.LARGE_BYTES``, 20 records spread
    through it are flipped."""
    lines = (REAL / entry["path"]).read_text(encoding="utf-8").splitlines()
    flagged = [number for number, text in enumerate(lines) if '"isSidechain"' in text]
    if entry["bytes"] > real.LARGE_BYTES:
        flagged = flagged[:: math.ceil(len(flagged) / 20)]
    path = tmp_path / Path(entry["path"]).name
    for number in flagged:
        record = json.loads(lines[number])
        record["isSidechain"] = not record["isSidechain"]
        path.write_text("\n".join([*lines[:number], json.dumps(record), *lines[number + 1 :]]) + "\n", encoding="utf-8")
        try:
            runs = imports.from_claude_code(path, subagents=False)
        except RunFileError as error:
            assert re.match(rf"{re.escape(str(path))}:\d+: ", str(error)), error
            continue
        assert runs, f"{entry['path']}:{number + 1}"
    assert flagged or entry.get("kind") == "hand_written_fixture"


FORKED = [entry for entry in CLAUDE_CODE if {"main", "forked_compaction_agent"} <= set(entry["features"])]


@pytest.mark.parametrize("entry", FORKED, ids=ids(FORKED))
def test_every_reminder_a_compactions_agent_kept_is_read_into_the_session(entry):
    """A real session whose compaction's agent is beside it: each agent file is one run (no thread of its own for a
    message it kept), the compaction's agent is linked to its compaction, and every message it kept that hangs from
    a record before its own request is read into the session's turns once, with a warning naming its line."""
    path = REAL / entry["path"]
    agent_files = sorted(path.with_suffix("").glob("subagents/*.jsonl"))
    runs = imports.from_claude_code(path)
    assert len(runs) == 1 + len(agent_files)
    (forked,) = [run for run in runs if "forked_from" in run.header["source"]]
    source = forked.header["source"]
    assert source["parent"]["step"] == runs[0].compactions[0].step
    kept = records_of(Path(source["path"]))
    session = {value["uuid"]: number for number, value in records_of(path) if "uuid" in value}
    before_its_request = [
        number
        for number, value in kept
        if value.get("isMeta") and session.get(value.get("parentUuid"), 1 << 30) < source["forked_from"]["line"]
    ]
    said = [w for w in runs[0].warnings if "a message the session's file does not hold" in w.text]
    assert [(Path(w.path).name, w.line, w.count) for w in said] == [
        (Path(source["path"]).name, number, 1) for number in before_its_request
    ]
    sent = json.dumps([message.to_dict() for message in Views(runs[0]).at(source["parent"]["step"] - 1).messages])
    for number in before_its_request:
        assert json.dumps(dict(kept)[number]["message"]["content"])[1:-1] in sent, number


@pytest.mark.parametrize("entry", CLAUDE_CODE, ids=ids(CLAUDE_CODE))
def test_a_steps_shown_result_is_the_one_that_answers_its_own_call(entry):
    """Claude Code sends a reply's parallel results in the order they finished: the result a step's frame row and its
    facts describe (``shown_bytes``, what the model saw of the step's observation) is the one that answers the step's
    own call, not the turn's first block. In the real sessions 8 rows once described another call's result."""
    pytest.importorskip("pandas")
    from agentrender.frame import steps_frame

    for run in claude_code_runs(entry):
        frame = steps_frame(run)
        shown = frame[(frame["shown_as"] == "as_sent") & frame["full"].fillna(False).astype(bool)]
        answered = shown[shown["status"] == "ok"]
        assert list(answered["shown_bytes"]) == list(answered["content_bytes"]), run.run_id
        view = Views(run).at(None)
        for fact in view.steps:
            message = fact.result
            if message is not None:
                assert [block.block for block in message.blocks] == list(message.message.content)
