"""Run files: load_run reads RUNFILE.md exactly, refuses bad input by line and field, and the writer round-trips."""

from __future__ import annotations

import base64
import gzip
import json
import random
import zlib
from pathlib import Path
from typing import Any

import pytest

import agentrender
from agentrender import ContentBlock, Decision, ModelResponse, Observation, Step, load_run, render
from agentrender.runfile import (
    FORMAT,
    Follower,
    ModelCall,
    RunFileError,
    RunWarning,
    RunWriter,
    check_record,
    read_records,
    response_from_record,
    response_record,
    step_record,
    write_run,
)
from agentrender.runfile import following as runfile_following
from agentrender.runfile import read as runfile_read
from agentrender.runfile.lines import StreamError, gzip_lines, inflate_limit, open_lines
from agentrender.views import Views
from tests._support import real
from tests._support.adapter import API_TOOLS
from tests._support.reads import COUNTED, bytes_read

HEADER: dict[str, Any] = {
    "type": "run",
    "format": FORMAT,
    "run_id": "r-1",
    "goal": "Fix the failing test.",
    "opening": "Fix the failing test in tests/test_a.py.",
    "system": "You fix bugs.",
    "model": "claude-test",
    "tools": [{"name": "read_file", "description": "Read a file.", "input_schema": {"type": "object"}}],
}
STEP0 = {
    "type": "step",
    "index": 0,
    "decision": {"kind": "tool_call", "tool": "read_file", "args": {"path": "a.py"}, "reason": "Look first."},
    "observation": {"status": "ok", "content": "print('hi')\n", "summary": "read a.py (1 line)"},
}
RESPONSE = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-test",
    "content": [
        {"type": "text", "text": "Look first."},
        {"type": "tool_use", "id": "t1", "name": "read_file", "input": {}},
    ],
    "stop_reason": "tool_use",
    "usage": {"input_tokens": 10, "output_tokens": 5},
}
# A tool use whose arguments were raw bytes that are not UTF-8 ({"path": "caf\xe9"}), as a run file holds them.
RAW_ARGUMENTS = b'{"path": "caf\xe9"}'
RAW_USE: dict[str, Any] = {
    "type": "tool_use",
    "id": "t2",
    "name": "read_file",
    "input_base64": base64.b64encode(RAW_ARGUMENTS).decode(),
}
CALL0 = {"type": "model_call", "step": 0, "latency_ms": 812, "request_key": "k", "response": RESPONSE}
END = {"type": "end", "status": "completed", "reason": "completed", "at": "2026-01-01T00:00:05Z"}


def lines(*records: Any) -> bytes:
    return b"".join((r if isinstance(r, bytes) else json.dumps(r).encode()) + b"\n" for r in records)


def write(tmp_path: Path, data: bytes, name: str = "run.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def said(run: agentrender.Run) -> tuple[str, ...]:
    """Each of ``run``'s warnings as the one line a person is shown."""
    return tuple(map(str, run.warnings))


def error_of(tmp_path: Path, data: bytes) -> str:
    path = write(tmp_path, data)
    with pytest.raises(RunFileError) as caught:
        load_run(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:{caught.value.line}: ")
    return message.removeprefix(f"{path}:")


def test_loads_every_record_kind(tmp_path: Path) -> None:
    """Header, step, model call and end load into the typed fields, and records keep them in file order."""
    path = write(tmp_path, lines(HEADER, CALL0, STEP0, END))
    run = load_run(path)
    assert run.path == str(path)
    assert run.header == HEADER and run.run_id == "r-1" and run.model == "claude-test"
    assert run.opening == HEADER["opening"]
    assert run.steps == (
        Step(
            index=0,
            decision=Decision(kind="tool_call", tool="read_file", args={"path": "a.py"}, reason="Look first."),
            observation=Observation(status="ok", content="print('hi')\n", summary="read a.py (1 line)"),
        ),
    )
    [call] = run.model_calls
    assert (call.step, call.latency_ms, call.request_key, call.line) == (0, 812, "k", 2)
    assert call.response.stop_reason == "tool_use" and call.response.content[1].name == "read_file"
    assert run.calls_for(0) == (call,)
    assert run.end == END
    assert list(run.records) == [HEADER, CALL0, STEP0, END]
    assert run.warnings == ()


def test_decision_and_observation_may_be_null_or_absent(tmp_path: Path) -> None:
    """A step with a null or missing decision and observation loads as a step with neither."""
    path = write(tmp_path, lines(HEADER, {"type": "step", "index": 0, "decision": None}, {"type": "step", "index": 1}))
    run = load_run(path)
    assert run.steps == (Step(index=0), Step(index=1))
    assert run.warnings == ()


def test_out_of_band_arguments_load(tmp_path: Path) -> None:
    """invalid_args and invalid_base64 load into the Decision and render as the seed says."""
    decision = {"kind": "tool_call", "tool": "t", "invalid_args": "/w==", "invalid_base64": True, "reason": ""}
    path = write(tmp_path, lines(HEADER, {"type": "step", "index": 0, "decision": decision}))
    [step] = load_run(path).steps
    assert step.decision == Decision(kind="tool_call", tool="t", invalid_args="/w==", invalid_base64=True)
    assert render.args(step.decision) == {"invalid_json_base64": "/w=="}


def test_a_later_record_replaces_an_earlier_one_quietly(tmp_path: Path) -> None:
    """Recording a step when decided and again when answered loads the later record, with no warning."""
    decided = {**STEP0, "observation": None}
    path = write(tmp_path, lines(HEADER, {"type": "step", "index": 0}, decided, STEP0))
    run = load_run(path)
    assert [s.observation is not None for s in run.steps] == [True]
    assert run.step_records[0] == STEP0
    assert len(run.records) == 4
    assert run.warnings == ()


def test_a_record_that_changes_an_earlier_one_is_reported(tmp_path: Path) -> None:
    """A later step record with a different decision is loaded, kept, and reported with both lines."""
    other = {**STEP0, "decision": {**STEP0["decision"], "tool": "write_file"}}
    path = write(tmp_path, lines(HEADER, STEP0, other))
    run = load_run(path)
    assert run.steps[0].decision is not None and run.steps[0].decision.tool == "write_file"
    assert len(run.records) == 3
    [warning] = run.warnings
    assert warning.line == 3 and warning.path == str(path)
    assert warning.text.startswith("step 0 recorded again with a different decision than on line 2")


def test_steps_are_ordered_by_index(tmp_path: Path) -> None:
    """Steps recorded out of order load ordered by index."""
    path = write(tmp_path, lines(HEADER, {"type": "step", "index": 2}, {"type": "step", "index": 0}))
    assert [s.index for s in load_run(path).steps] == [0, 2]


def test_unknown_records_and_fields_are_kept_and_reported(tmp_path: Path) -> None:
    """Unknown record types and unknown fields (at any depth) are kept and reported once each, never an error."""
    step = {**STEP0, "cost": 3, "decision": {**STEP0["decision"], "confidence": 0.5}}
    step2 = {**step, "index": 1}
    path = write(tmp_path, lines({**HEADER, "team": "x"}, step, step2, {"type": "checkpoint", "at": 1}))
    run = load_run(path)
    assert run.records[1]["cost"] == 3 and run.records[3] == {"type": "checkpoint", "at": 1}
    assert said(run) == (
        f"{path}:1: unknown field run.team kept (not loaded into the typed fields)",
        f"{path}:2: unknown field step.cost kept (not loaded into the typed fields) (and 1 more record(s) like it)",
        f"{path}:2: unknown field step.decision.confidence kept (not loaded into the typed fields)"
        " (and 1 more record(s) like it)",
        f"{path}:4: unknown record type 'checkpoint' kept (not loaded into the typed fields)",
    )


def test_a_record_of_very_many_unknown_fields_is_said_in_one_short_warning_that_counts_them(tmp_path: Path) -> None:
    """A step record holding a thousand unknown fields loads with one warning that counts them, names the first few
    and says the record keeps them all (``Run.records``), where it gave a warning a field: a thousand lines."""
    step = {**STEP0} | {f"field_{i:04}": i for i in range(1_000)}
    path = write(tmp_path, lines(HEADER, step))
    run = load_run(path)
    (warning,) = run.warnings
    assert warning.line == 2 and len(warning.text) < 1_000, warning.text[:300]
    assert warning.text.startswith("1,000 unknown fields kept (not loaded into the typed fields): step.field_0000, ")
    assert "step.field_0009 and 990 more" in warning.text and "Run.records" in warning.text
    assert run.records[1]["field_0999"] == 999


def test_a_tools_cache_breakpoint_is_a_field_of_the_run_file_and_is_sent(tmp_path: Path) -> None:
    """A header tool's cache_control (prompt caching's breakpoint, which a request sends) loads with no warning and is
    in the request a view hashes, as the API's tool definitions hold it."""
    cached = {**HEADER["tools"][0], "cache_control": {"type": "ephemeral", "ttl": "1h"}}
    run = load_run(write(tmp_path, lines({**HEADER, "tools": [cached]}, STEP0)))
    assert said(run) == ()
    view = Views(run).at(None)
    assert view.replay_key == render.replay_key(
        view.messages, system=run.system, tools=[cached], model=run.model, max_output_tokens=run.max_output_tokens
    )


def test_a_tool_the_api_takes_loads_with_no_warning_and_a_view_sends_it_as_written(tmp_path: Path) -> None:
    """Header tools as the Messages API takes them (a custom tool's type, strict, input_examples and the rest; tools
    the API defines, a toolset with no name among them, with their own fields) load with no warning, and a view
    sends each as written, its fields in its order, only the runtime's read_only left out."""
    run = load_run(write(tmp_path, lines({**HEADER, "tools": [{**tool, "read_only": True} for tool in API_TOOLS]})))
    assert said(run) == ()
    view = Views(run).at(None)
    assert view.replay_key == render.replay_key(
        view.messages, system=run.system, tools=list(API_TOOLS), model=run.model, max_output_tokens=0
    )


def test_a_custom_tools_field_the_api_does_not_take_is_reported_and_not_sent(tmp_path: Path) -> None:
    """A custom tool's field the API does not take (a runtime's timeout) is kept and reported, and not sent."""
    tool = {**HEADER["tools"][0], "timeout_s": 30}
    run = load_run(write(tmp_path, lines({**HEADER, "tools": [tool]})))
    assert said(run) == (f"{run.path}:1: unknown field run.tools[0].timeout_s kept (not loaded into the typed fields)",)
    assert run.tools == (tool,)
    view = Views(run).at(None)
    assert view.replay_key == render.replay_key(
        view.messages, system=run.system, tools=HEADER["tools"], model=run.model, max_output_tokens=0
    )


@pytest.mark.parametrize("tool", [{"input_schema": {}}, {"type": "custom", "input_schema": {}}, {"type": None}])
def test_a_custom_tool_with_no_name_is_an_error_naming_the_field(tmp_path: Path, tool: dict[str, Any]) -> None:
    """A custom tool (no type, or type custom) needs a name, as the API's does: one with none is an error naming it."""
    assert error_of(tmp_path, lines({**HEADER, "tools": [tool]})) == (
        "1: $.tools[0].name: missing: a custom tool (no type, or type 'custom') needs a name"
    )


def test_a_warning_holds_its_line_and_text_and_prints_as_one_line(tmp_path: Path) -> None:
    """Each warning gives its file, its line and its text as fields, and str() is the line a person reads."""
    path = write(tmp_path, lines({**HEADER, "team": "x"}, STEP0))
    [warning] = load_run(path).warnings
    assert warning == agentrender.RunWarning(
        line=1, text="unknown field run.team kept (not loaded into the typed fields)", path=str(path)
    )
    assert warning.count == 1 and warning.message == warning.text
    assert str(warning) == f"{path}:1: unknown field run.team kept (not loaded into the typed fields)"


def test_a_warning_given_by_many_records_counts_them_from_the_first(tmp_path: Path) -> None:
    """Records that give the same warning make one warning on the first one's line, saying how many more there are."""
    steps = [{**STEP0, "index": index, "cost": 3} for index in range(3)]
    path = write(tmp_path, lines(HEADER, *steps))
    [warning] = load_run(path).warnings
    assert (warning.line, warning.count) == (2, 3)
    assert warning.text == "unknown field step.cost kept (not loaded into the typed fields)"
    assert warning.message == warning.text + " (and 2 more record(s) like it)"
    assert str(warning) == f"{path}:2: {warning.message}"


def test_a_warning_made_in_memory_prints_like_a_loaded_one() -> None:
    """A RunWarning built by hand is a plain value: equal by its fields, printed PATH:LINE: TEXT."""
    warning = RunWarning(line=4, text="a second end record", path="run.jsonl", count=2)
    assert warning == RunWarning(line=4, text="a second end record", path="run.jsonl", count=2)
    assert str(warning) == "run.jsonl:4: a second end record (and 1 more record(s) like it)"
    assert str(RunWarning(line=1, text="x")) == ":1: x"


def test_a_header_without_or_with_another_format_is_read_with_a_warning(tmp_path: Path) -> None:
    """A header that names no format, or an unknown one, is read as agentrender.run/1 and reported; /2 is known."""
    bare = {k: v for k, v in HEADER.items() if k != "format"}
    assert "names no format" in load_run(write(tmp_path, lines(bare))).warnings[0].text
    other = load_run(write(tmp_path, lines({**HEADER, "format": "agentrender.run/3"}))).warnings[0].text
    assert "'agentrender.run/3', not agentrender.run/1 or agentrender.run/2" in other
    assert load_run(write(tmp_path, lines({**HEADER, "format": "agentrender.run/2"}))).warnings == ()


@pytest.mark.parametrize("drop", [{"goal": "", "opening": " \n"}, {"goal": None, "opening": None}])
def test_a_header_with_neither_opening_nor_goal_loads_with_a_warning_and_opens_with_a_stand_in(
    tmp_path: Path, drop: dict[str, Any]
) -> None:
    """A header whose opening and goal are absent or blank loads, warns naming both fields, and its views open."""
    header = {key: value for key, value in {**HEADER, **drop}.items() if value is not None}
    run = load_run(write(tmp_path, lines(header, STEP0, CALL0, END)))
    [warning] = run.warnings
    assert warning.line == 1 and "neither 'opening' nor 'goal'" in warning.text and not warning.lost
    view = Views(run).at(None)
    assert view.messages[0].content[0].text == "(this run recorded no opening)"
    assert len(view.messages) == 3
    assert run.options(opening="Mine.").opening == "Mine."


def test_records_after_the_end_are_loaded_with_a_warning(tmp_path: Path) -> None:
    """A run that went on after its end record (resumed) loads every record and says so."""
    stopped = {"type": "end", "status": "interrupted", "reason": "interrupted"}
    path = write(tmp_path, lines(HEADER, stopped, STEP0, END))
    run = load_run(path)
    assert run.end == END and len(run.steps) == 1
    assert said(run) == (
        f"{path}:3: a record after the end record on line 2; loaded (the run went on) (and 1 more record(s) like it)",
        f"{path}:4: a second end record; it replaces the one on line 2",
    )


# --- bad input: every case of RUNFILE.md, each an error naming the line and what was wrong


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"", "1: missing run header: the file is empty"),
        (
            lines(STEP0),
            "1: missing run header: a run file whose first line is a 'step' record, not the 'run' header it must start "
            "with (its header line was lost, or never written)",
        ),
        (lines(HEADER, STEP0, HEADER), "3: a second run header (the first is on line 1)"),
        (lines(HEADER, b"[1, 2]"), "2: $: expected a JSON object, got array"),
        (lines(HEADER, b'"step"'), "2: $: expected a JSON object, got string"),
        (lines(HEADER, b"{not json}"), "2: not JSON: Expecting property name enclosed in double quotes at column 2"),
        (lines(HEADER, b'{"type": "step", "index": 1'), "2: not JSON: Expecting ',' delimiter at column 28"),
        (lines(HEADER, b'{"type": "step", "index": '), "2: not JSON: Expecting value at column 26"),
        (lines(HEADER, b'{"type": "step", "index": NaN}'), "2: not JSON: NaN is not JSON"),
        (lines(HEADER, b'{"type": "step", "note": "a\x07"}'), "2: not JSON: Invalid control character at column 28"),
        (lines(HEADER, b'{"type": "end", "x": 1e999}'), "2: not JSON: 1e999 overflows to infinity"),
        (lines(HEADER, b"[" * 100_000), "2: [0][0][0][0][0][0]…: nested deeper than 256 levels"),
        (lines(HEADER, {"index": 0}), "2: $.type: missing: every record names its type"),
        (lines(HEADER, {"type": 3}), "2: $.type: expected a string, got int"),
        (lines(HEADER, {"type": "step"}), "2: $.index: missing"),
        (lines(HEADER, {"type": "step", "index": None}), "2: $.index: expected `int`, got `null`"),
        (lines(HEADER, {"type": "step", "index": "0"}), "2: $.index: expected `int`, got `str`"),
        (lines(HEADER, {"type": "step", "index": True}), "2: $.index: expected `int`, got `bool`"),
        (lines(HEADER, {"type": "step", "index": -1}), "2: $.index: expected `int` >= 0, got -1"),
        (
            lines(HEADER, {"type": "step", "index": 0, "decision": []}),
            "2: $.decision: expected `object | null`, got `array`",
        ),
        (lines(HEADER, {"type": "step", "index": 0, "decision": {}}), "2: $.decision.kind: missing"),
        (
            lines(HEADER, {"type": "step", "index": 0, "decision": {"kind": 7}}),
            "2: $.decision.kind: expected `str`, got `int`",
        ),
        (
            lines(HEADER, {"type": "step", "index": 0, "decision": {"kind": "tool_call", "invalid_base64": "yes"}}),
            "2: $.decision.invalid_base64: expected `bool`, got `str`",
        ),
        (
            lines(HEADER, {"type": "step", "index": 0, "observation": {"content": ["a"]}}),
            "2: $.observation.content: expected `str`, got `array`",
        ),
        (lines(HEADER, {**HEADER, "type": "run"}), "2: a second run header (the first is on line 1)"),
        (lines({**HEADER, "tools": {}}), "1: $.tools: expected `array | null`, got `object`"),
        (lines({**HEADER, "tools": ["read_file"]}), "1: $.tools[0]: expected `object`, got `str`"),
        (
            lines({**HEADER, "tools": [{"description": "x"}]}),
            "1: $.tools[0].name: missing: a custom tool (no type, or type 'custom') needs a name",
        ),
        (lines({**HEADER, "goal": 1.5}), "1: $.goal: expected `str | null`, got `float`"),
        (lines(HEADER, {"type": "model_call", "step": 0}), "2: $.response: missing"),
        (lines(HEADER, {**CALL0, "latency_ms": "fast"}), "2: $.latency_ms: expected `int | float | null`, got `str`"),
        (
            lines(HEADER, {**CALL0, "response": {**RESPONSE, "content": [{"type": "text", "text": 5}]}}),
            "2: $.response.content[0].text: expected a string, got int",
        ),
        (
            lines(HEADER, {**CALL0, "response": {**RESPONSE, "stop_reason": 1}}),
            "2: $.response.stop_reason: expected a string, got int",
        ),
        (lines(HEADER, {"type": "end", "status": False}), "2: $.status: expected `str | null`, got `bool`"),
        (lines(HEADER, {"type": "end", "error": ["x"]}), "2: $.error: expected `str | null`, got `array`"),
        (lines({**HEADER, "max_output_tokens": "4096"}), "1: $.max_output_tokens: expected `int | null`, got `str`"),
        (lines({**HEADER, "max_output_tokens": -1}), "1: $.max_output_tokens: expected `int` >= 0, got -1"),
        (
            lines(HEADER, {**CALL0, "response": {**RESPONSE, "content": [{**RAW_USE, "input_base64": "%%"}]}}),
            "2: $.response.content[0].input_base64: not base64 (",
        ),
        (
            lines(HEADER, {**CALL0, "response": {**RESPONSE, "content": [{**RAW_USE, "input_base64": 5}]}}),
            "2: $.response.content[0].input_base64: expected a string of base64, got int",
        ),
        (
            lines(HEADER, {**CALL0, "response": {**RESPONSE, "content": [{**RAW_USE, "input": {}}]}}),
            "2: $.response.content[0].input_base64: a tool_use block holds its arguments in input or in "
            "input_base64, not both",
        ),
        (lines(HEADER, b'{"type": "step", "index": 0, "x": "\xff"}'), "2: not UTF-8: invalid start byte at byte 36"),
        (lines(HEADER, b'{"type": "end", "reason": "\xed\xa0\x80"}'), "2: not UTF-8: invalid continuation byte"),
        (  # in a key of a reply that its typed decode skips unread
            lines(HEADER, b'{"type": "model_call", "step": 0, "response": {"content": [], "\xffx": 1}}'),
            "2: not UTF-8: invalid start byte at byte 64",
        ),
    ],
)
def test_bad_input_is_an_error_naming_line_and_field(tmp_path: Path, data: bytes, expected: str) -> None:
    """Each bad input of RUNFILE.md raises RunFileError: PATH:LINE: then what was wrong and where."""
    assert error_of(tmp_path, data).startswith(expected)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (
            real.REAL / "swe-agent" / "SWE-agent-mini-swe-agent" / "marshmallow-code__marshmallow-1343.traj.json",
            "1: not JSON: Expecting property name enclosed in double quotes at column 2; ",
        ),
        (
            real.REAL / "claude-code" / "DRMacIver-claude-reliability" / "coverage-test-fix" / "transcript.jsonl",
            "1: missing run header: the first record is a 'queue-operation' record, not 'run'; ",
        ),
    ],
)
def test_an_agents_own_history_given_to_load_run_is_pointed_to_agentrender_load(path: Path, expected: str) -> None:
    """A real agent's history (a pretty-printed JSON trajectory, a Claude Code session) read as a run file fails on its
    first line with the reason, then the words that the importers read it (``agentrender.load``)."""
    with pytest.raises(RunFileError) as caught:
        load_run(path)
    said = str(caught.value).removeprefix(f"{path}:")
    assert said.startswith(expected) and said.endswith("is read by agentrender.load or `agentrender import`")
    assert agentrender.load(path).steps  # which it is


def test_a_run_files_later_line_that_is_not_json_is_not_said_to_be_another_format(tmp_path: Path) -> None:
    """Past a run file's header, a line that is not JSON is said to be so and no more: the file is a run file."""
    assert error_of(tmp_path, lines(HEADER, b"{not json}")) == (
        "2: not JSON: Expecting property name enclosed in double quotes at column 2"
    )


def test_run_file_error_is_a_value_error_with_its_parts(tmp_path: Path) -> None:
    """RunFileError is a ValueError carrying the path, the line and what was wrong."""
    path = write(tmp_path, lines(HEADER, b"nope"))
    with pytest.raises(ValueError) as caught:
        load_run(path)
    error = caught.value
    assert isinstance(error, RunFileError)
    assert (error.path, error.line) == (str(path), 2) and error.what.startswith("not JSON")


def test_a_cut_short_last_line_is_a_warning(tmp_path: Path) -> None:
    """A last line with no newline that is not JSON is reported, and every earlier record is loaded."""
    whole = lines(HEADER, STEP0)
    path = write(tmp_path, whole + lines(END)[:20])
    run = load_run(path)
    assert len(run.records) == 3 - 1 and run.end is None
    assert said(run) == (
        f"{path}:3: the last line is cut short (no newline, not JSON): 20 bytes not loaded; "
        "a process killed while writing leaves this",
    )


def test_a_last_line_cut_inside_a_character_is_a_warning(tmp_path: Path) -> None:
    """A last line cut in the middle of a UTF-8 character is a cut-short line, not an error."""
    path = write(tmp_path, lines(HEADER) + '{"type": "end", "reason": "é'.encode()[:-1])
    run = load_run(path)
    assert "cut short (no newline, not UTF-8)" in run.warnings[0].text


def test_a_complete_last_line_without_newline_loads(tmp_path: Path) -> None:
    """A last record that is whole JSON but lacks its newline is loaded, not reported."""
    path = write(tmp_path, lines(HEADER) + json.dumps(END).encode())
    run = load_run(path)
    assert run.end == END and run.warnings == ()


def test_only_a_cut_short_header_is_a_missing_header(tmp_path: Path) -> None:
    """A file holding only a cut-short header has no run header: an error on line 1."""
    assert error_of(tmp_path, lines(HEADER)[:30]).startswith("1: missing run header: no complete record")


PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01"


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (PNG, "1: not a run file: binary data (not UTF-8 text) at byte 1; it begins like a PNG image."),
        (bytes(range(128, 256)) * 4, "1: not a run file: binary data (not UTF-8 text) at byte 1."),
        (b"abc\x00\xff\xfe more", "1: not a run file: binary data (a NUL byte) at byte 4."),
        (b"\x00" * 64, "1: not a run file: binary data (a NUL byte) at byte 1."),
        (b"\n\n\x07\x08\n", "3: not a run file: binary data (a control byte 0x07) at byte 1 of the line."),
    ],
    ids=["png", "high bytes", "nul then not utf-8", "nuls", "controls after blank lines"],
)
def test_a_binary_file_is_said_to_be_no_run_file(tmp_path: Path, data: bytes, expected: str) -> None:
    """Binary data where the header should be (an image, random bytes, NULs; with a newline or none) is an error
    saying it is not a run file and where the text stops, never 'missing run header: no complete record'."""
    message = error_of(tmp_path, data)
    assert message.startswith(expected) and message.endswith("A run file is JSON lines of UTF-8 text")


def test_a_binary_line_after_the_header_is_still_a_cut_short_line(tmp_path: Path) -> None:
    """Once a run has its header, NULs in a last line with no newline (a crash's zero-filled tail) are a warning."""
    run = load_run(write(tmp_path, lines(HEADER, STEP0) + b"\x00" * 40))
    assert len(run.steps) == 1 and "cut short (no newline, not JSON)" in run.warnings[0].text


def test_a_line_not_at_the_end_that_is_not_json_is_an_error(tmp_path: Path) -> None:
    """A broken line followed by a newline is not a cut-short last line: it is an error."""
    assert error_of(tmp_path, lines(HEADER) + lines(END)[:20] + b"\n").startswith("2: not JSON")


@pytest.mark.parametrize("space", ["\x0b", "\x0c", "\u2028", "\x85"], ids=["VT", "FF", "LS", "NEL"])
def test_only_json_white_space_surrounds_a_record(tmp_path: Path, space: str) -> None:
    """White space str.isspace() accepts but JSON does not: an error mid-file, a cut-short line at the end."""
    assert error_of(tmp_path, lines(HEADER) + space.encode() + b"\n" + lines(END)).startswith("2: not JSON")
    path = write(tmp_path, lines(HEADER) + json.dumps(END).encode() + space.encode())
    run = load_run(path)
    assert run.end is None and list(run.records) == [HEADER]
    assert "cut short" in run.warnings[0].text


def test_a_byte_order_mark_is_skipped_with_a_warning(tmp_path: Path) -> None:
    """A UTF-8 byte order mark before the header is skipped and reported."""
    path = write(tmp_path, b"\xef\xbb\xbf" + lines(HEADER))
    run = load_run(path)
    assert run.header == HEADER
    assert said(run) == (f"{path}:1: the file begins with a UTF-8 byte order mark; skipped",)


def test_blank_lines_and_crlf_are_read(tmp_path: Path) -> None:
    """Blank lines hold no record and are skipped; CRLF line ends load."""
    path = write(tmp_path, lines(HEADER).replace(b"\n", b"\r\n") + b"\n  \n" + lines(END))
    run = load_run(path)
    assert run.end == END and run.warnings == ()


def test_lone_surrogate_escapes_load_and_round_trip(tmp_path: Path) -> None:
    """A JSON-escaped lone surrogate loads as it is, and writing it back keeps the file valid UTF-8."""
    path = write(tmp_path, lines(HEADER, b'{"type": "end", "reason": "half \\ud800 a pair"}'))
    run = load_run(path)
    assert run.end is not None and run.end["reason"] == "half \ud800 a pair"
    out = tmp_path / "out.jsonl"
    write_run(run, out)
    out.read_bytes().decode("utf-8")
    assert load_run(out).records == run.records


# --- gzip


def test_gzip_files_load_like_plain_ones(tmp_path: Path) -> None:
    """A .jsonl.gz file loads exactly as the same lines uncompressed."""
    data = lines(HEADER, CALL0, STEP0, END)
    plain = load_run(write(tmp_path, data))
    packed = load_run(write(tmp_path, gzip.compress(data), "run.jsonl.gz"))
    assert packed.records == plain.records and packed.warnings == ()


@pytest.mark.parametrize("name", ["RUN.JSONL.GZ", "run.jsonl.Gz", "run.jsonl", "RUN.JSONL"])
def test_a_name_ending_in_gz_in_any_case_is_written_gzip_compressed(tmp_path: Path, name: str) -> None:
    """write_run and RunWriter write a file whose name ends in .gz, in any case, gzip-compressed, as its name asks
    (RUN.JSONL.GZ held plain text), and any other plain; each loads back as the run written."""
    run = load_run(write(tmp_path, lines(HEADER, CALL0, STEP0, END), "source.jsonl"))
    compressed = name.lower().endswith(".gz")
    write_run(run, tmp_path / name)
    assert (tmp_path / name).read_bytes()[:2] == (b"\x1f\x8b" if compressed else b'{"')
    assert load_run(tmp_path / name).records == run.records
    with RunWriter(tmp_path / f"w-{name}") as writer:
        writer.write(HEADER)
    assert (tmp_path / f"w-{name}").read_bytes()[:2] == (b"\x1f\x8b" if compressed else b'{"')


def test_gzip_with_several_members_loads_all(tmp_path: Path) -> None:
    """Concatenated gzip members (a file appended to by several processes) load as one stream of lines."""
    data = gzip.compress(lines(HEADER, STEP0)) + gzip.compress(lines(END))
    run = load_run(write(tmp_path, data, "run.jsonl.gz"))
    assert run.end == END and run.warnings == ()


def test_a_truncated_gzip_stream_reads_its_prefix(tmp_path: Path) -> None:
    """A gzip stream that ends early is read up to where it ends, with warnings, never an error."""
    # Flushed in the middle of a record and never finished: what a process killed while writing leaves.
    stream = zlib.compressobj(wbits=31)
    data = stream.compress(lines(HEADER, STEP0) + json.dumps(END).encode()[:25]) + stream.flush(zlib.Z_SYNC_FLUSH)
    run = load_run(write(tmp_path, data, "run.jsonl.gz"))
    assert len(run.records) == 2
    assert len(run.warnings) == 2
    assert "cut short" in run.warnings[0].text and "gzip stream ends early" in run.warnings[1].text


@pytest.mark.slow  # hundreds of files, one per prefix
def test_every_prefix_of_a_gzip_file_loads_or_says_the_stream_ends_early(tmp_path: Path) -> None:
    """Any byte prefix of a written .jsonl.gz either loads its whole records or, cut before its first record
    (even inside the gzip header), is an error on line 1 saying the stream ends early: the file is truncated."""
    full = tmp_path / "full.jsonl.gz"
    with RunWriter(full) as writer:
        for record in (HEADER, STEP0, CALL0, END):
            writer.write(record)
    data = full.read_bytes()
    cut = tmp_path / "cut.jsonl.gz"
    seen = set()
    for size in range(len(data) + 1):
        cut.write_bytes(data[:size])
        try:
            run = load_run(cut)
        except RunFileError as error:
            expected = {0: "missing run header: the file is empty", 1: "not a run file: binary data"}.get(
                size, "the gzip stream ends early: the file is truncated before its first complete record"
            )
            assert error.line == 1 and error.what.startswith(expected), (size, error)
            continue
        seen.add(len(run.records))
        assert run.records == [HEADER, STEP0, CALL0, END][: len(run.records)]
    assert seen == {1, 2, 3, 4}


def test_a_corrupt_gzip_stream_is_an_error(tmp_path: Path) -> None:
    """Bytes that are not a valid deflate stream after the gzip magic are an error naming the line."""
    data = bytearray(gzip.compress(lines(HEADER, STEP0, END)))
    data[12:20] = b"\xff" * 8
    message = error_of(tmp_path, bytes(data))
    assert "the gzip stream is corrupt" in message


def test_a_gzip_stream_corrupt_after_many_lines_names_the_line_after_the_last_read(tmp_path: Path) -> None:
    """Lines are read in batches: those a stream gave before it broke are read first, so the error names the line
    after the last complete one, and an error in a line before it comes first."""
    steps = [{**STEP0, "index": i} for i in range(300)]
    broken = b"\x1f\x8b\x08\x00" + b"\xff" * 40  # a second member whose deflate stream is corrupt
    message = error_of(tmp_path, gzip.compress(lines(HEADER, *steps)) + broken)
    assert message.startswith("302: the gzip stream is corrupt")
    steps[250] = {**STEP0, "index": "x"}
    message = error_of(tmp_path, gzip.compress(lines(HEADER, *steps)) + broken)
    assert message.startswith("252: $.index: expected")


@pytest.mark.skipif(not COUNTED, reason="the bytes a process reads are counted by Linux")
def test_a_gzip_file_is_read_once(tmp_path: Path) -> None:
    """``load_run`` of a ``.jsonl.gz`` reads its bytes once, where it read them a second time to measure the stream
    against the gzip-bomb limit before reading its lines."""
    randomly = random.Random(11)
    steps = [{**STEP0, "index": i, "reason": randomly.randbytes(2000).hex()} for i in range(1000)]
    path = write(tmp_path, gzip.compress(lines(HEADER, *steps, END)), "run.jsonl.gz")
    before = bytes_read()
    run = load_run(path)
    read = bytes_read() - before
    size = path.stat().st_size
    assert len(run.steps) == 1000 and size > 1 << 21
    assert size <= read < size + (256 << 10), (size, read)


def _hex_lines(count: int, seed: int) -> bytes:
    """``count`` lines of 1,000 random hex digits: text that compresses to about half."""
    digits = random.Random(seed).randbytes(500 * count).hex().encode()
    return b"".join(digits[start : start + 1000] + b"\n" for start in range(0, len(digits), 1000))


def test_the_lines_of_a_gzip_stream_past_32_mib_are_its_lines(tmp_path: Path) -> None:
    """The lines of a gzip stream inflating past the 32 MiB its measuring keeps are the stream's lines, in order,
    and a stream that ends early or breaks past them is read up to where it does, as a shorter one is."""
    data = _hex_lines(36_000, 3)
    packed = gzip.compress(data, compresslevel=1)
    broken = b"\x1f\x8b\x08\x00" + b"\xff" * 40  # a second member whose deflate stream is corrupt
    for stream, ends in ((packed, None), (packed[:-1000], "early"), (packed + broken, "corrupt")):
        path = write(tmp_path, stream, "lines.gz")
        notes: list[str] = []
        given: list[bytes] = []
        with path.open("rb") as file:
            try:
                given.extend(gzip_lines(file, notes, inflate_limit(len(packed))))
            except StreamError as error:
                assert ends == "corrupt" and "the gzip stream is corrupt" in str(error)
            else:
                assert ends != "corrupt"
        assert len(data) > 32 << 20
        if ends == "early":
            assert b"".join(given) == data[: len(b"".join(given))] and len(b"".join(given)) > 32 << 20
            assert notes == ["the gzip stream ends early (a process killed while writing); read up to where it ends"]
        else:
            assert b"".join(given) == data and notes == []
            assert given[:2] == [data[:1001], data[1001:2002]]


# --- writing


def test_writer_flushes_each_record(tmp_path: Path) -> None:
    """Each record is on disk when write returns: a reader sees it before the writer is closed."""
    for name in ("run.jsonl", "run.jsonl.gz"):
        path = tmp_path / name
        writer = RunWriter(path)
        writer.header(run_id="r", goal="g", tools=[{"name": "t", "read_only": True}])
        writer.step(Step(index=0), started_at="2026-01-01T00:00:00Z")
        assert [r["type"] for r in load_run(path).records] == ["run", "step"]
        writer.model_call(0, RESPONSE, latency_ms=3, request_key="k")
        writer.end("completed", at="2026-01-01T00:00:01Z")
        run = load_run(path)
        assert [r["type"] for r in run.records] == ["run", "step", "model_call", "end"]
        writer.close()
        assert load_run(path).warnings == ()


def test_writer_refuses_what_the_loader_refuses(tmp_path: Path) -> None:
    """The writer checks each record as load_run would and writes nothing it would refuse."""
    with RunWriter(tmp_path / "run.jsonl") as writer:
        with pytest.raises(ValueError, match="first record must be the run header"):
            writer.write(STEP0)
        writer.write(HEADER)
        with pytest.raises(ValueError, match="already has its run header"):
            writer.write(HEADER)
        with pytest.raises(ValueError, match=r"\$.decision.kind: expected `str`, got `int`"):
            writer.write({"type": "step", "index": 0, "decision": {"kind": 1}})
        with pytest.raises(ValueError, match="Out of range float"):
            writer.write({"type": "end", "x": float("nan")})
    assert load_run(tmp_path / "run.jsonl").records == [HEADER]
    with pytest.raises(ValueError, match="closed"):
        writer.write(END)


def test_writer_appends_to_a_run(tmp_path: Path) -> None:
    """append=True goes on with a run a killed process left, in plain and gzip files."""
    for name in ("run.jsonl", "run.jsonl.gz"):
        path = tmp_path / name
        with RunWriter(path) as writer:
            writer.write(HEADER)
        with RunWriter(path, append=True) as writer:
            writer.write(STEP0)
        assert load_run(path).records == [HEADER, STEP0]


def test_appending_to_a_cut_gzip_stream_is_refused(tmp_path: Path) -> None:
    """A gzip stream that ends early cannot take a new member; the writer says what to do instead."""
    path = tmp_path / "run.jsonl.gz"
    writer = RunWriter(path)
    writer.write(HEADER)
    with pytest.raises(ValueError, match="ends early"):
        RunWriter(path, append=True)
    writer.close()


def test_writer_output_is_deterministic(tmp_path: Path) -> None:
    """The same records give the same bytes, compressed or not (no time or name in the gzip header)."""
    for name in ("a.jsonl.gz", "b.jsonl.gz", "a.jsonl", "b.jsonl"):
        with RunWriter(tmp_path / name, fsync=True) as writer:
            for record in (HEADER, STEP0, END):
                writer.write(record)
    assert (tmp_path / "a.jsonl.gz").read_bytes() == (tmp_path / "b.jsonl.gz").read_bytes()
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()


def test_round_trip_is_lossless(tmp_path: Path) -> None:
    """load -> write_run -> load gives the same records and warnings, unknown records and fields included."""
    source = lines(
        {**HEADER, "team": "x"},
        {"type": "step", "index": 0},
        {**STEP0, "extra": [1, 2.5, None]},
        {"type": "checkpoint", "state": {"a": 1}},
        CALL0,
        END,
    )
    first = load_run(write(tmp_path, source))
    for name in ("again.jsonl", "again.jsonl.gz"):
        write_run(first, tmp_path / name)
        again = load_run(tmp_path / name)
        assert again.records == first.records
        assert again.steps == first.steps and again.model_calls == first.model_calls
        assert [(w.line, w.message) for w in again.warnings] == [(w.line, w.message) for w in first.warnings]


@pytest.mark.parametrize("kind", ["model_call", "model_call_error"])
def test_a_call_whose_tries_are_not_known_says_so_and_keeps_it_through_a_round_trip(tmp_path: Path, kind: str) -> None:
    """A model call (or one that gave no reply) recorded with "tries_known": false reads as one whose tries are not
    known, and load -> write_run -> load keeps the field."""
    record: dict[str, Any] = {**CALL0, "tries_known": False}
    if kind == "model_call_error":
        record = {"type": kind, "step": 0, "error": {"type": "KeyboardInterrupt"}, "tries_known": False}
    first = load_run(write(tmp_path, lines(HEADER, STEP0, record, END)))
    if kind == "model_call":
        assert [call.tries_known for call in first.model_calls] == [False]
    else:
        assert any("how many times it was tried is not known" in warning.text for warning in first.warnings)
    write_run(first, tmp_path / "again.jsonl")
    again = load_run(tmp_path / "again.jsonl")
    assert [line for line in again.records if line.get("type") == kind] == [record]
    assert [call.tries_known for call in again.model_calls] == [call.tries_known for call in first.model_calls]


@pytest.mark.parametrize("kind", ["model_call", "model_call_error"])
def test_a_tries_known_that_is_not_a_boolean_is_an_error_naming_line_and_field(tmp_path: Path, kind: str) -> None:
    """A model call's "tries_known" that is not true or false is a RunFileError naming the line and the field."""
    record: dict[str, Any] = {**CALL0, "tries_known": "no"}
    if kind == "model_call_error":
        record = {"type": kind, "step": 0, "error": {"type": "KeyboardInterrupt"}, "tries_known": 0}
    said = error_of(tmp_path, lines(HEADER, STEP0, record))
    assert said.startswith("3: ") and "$.tries_known" in said and "bool" in said


def test_write_run_writes_a_run_built_in_memory(tmp_path: Path) -> None:
    """A Run with no records is written from its typed fields and loads back to the same steps."""
    steps = (
        Step(index=0, decision=Decision(kind="tool_call", tool="t", args={"a": 1}, reason="r"), observation=None),
        Step(index=1, decision=Decision(kind="tool_call", tool="t", invalid_args="e30=", invalid_base64=True)),
    )
    run = agentrender.Run(header=HEADER, steps=steps)
    write_run(run, tmp_path / "mem.jsonl")
    assert load_run(tmp_path / "mem.jsonl").steps == steps


def test_step_record_is_what_the_loader_reads() -> None:
    """step_record gives a record check_record accepts and the loader turns back into the same step."""
    step = Step(index=3, decision=Decision(kind="no_tool_call", reason="hm"), observation=Observation(status="error"))
    record = step_record(step, started_at="t0")
    check_record(record)
    assert list(record) == ["type", "index", "started_at", "decision", "observation"]


# --- model replies: raw argument bytes, which JSON cannot hold, as input_base64


def test_raw_argument_bytes_load_as_bytes_input(tmp_path: Path) -> None:
    """A recorded tool use with input_base64 loads as the raw bytes, which decide turns into invalid_base64 args."""
    call = {**CALL0, "response": {**RESPONSE, "content": [{"type": "text", "text": "Again."}, RAW_USE]}}
    run = load_run(write(tmp_path, lines(HEADER, call)))
    assert run.warnings == ()
    block = run.model_calls[0].response.content[1]
    assert (block.type, block.tool_use_id, block.name, block.input, block.raw) == (
        "tool_use",
        "t2",
        "read_file",
        RAW_ARGUMENTS,
        None,
    )
    decision = render.decide(run.model_calls[0].response)
    assert decision.invalid_args == RAW_USE["input_base64"] and decision.invalid_base64
    assert list(run.records)[1] == call  # the record itself is kept as written


def test_response_record_writes_bytes_input_as_input_base64_and_reads_back() -> None:
    """response_record puts bytes input in input_base64 where input was; response_from_record gives the reply back."""
    response = ModelResponse(
        content=(
            ContentBlock(type="text", text="Again."),
            ContentBlock(type="tool_use", tool_use_id="t2", name="read_file", input=RAW_ARGUMENTS),
            ContentBlock(type="tool_use", tool_use_id="t3", name="read_file", input='{"path": "a"}'),
        ),
        stop_reason="tool_use",
    )
    wire = response_record(response)
    assert wire["content"][1] == RAW_USE
    assert list(wire["content"][1]) == ["type", "id", "name", "input_base64"]
    assert wire["content"][2]["input"] == '{"path": "a"}'  # text is JSON already
    json.dumps(wire)
    assert response_from_record(wire) == response
    assert response_from_record(json.loads(json.dumps(wire))) == response


def test_a_tool_use_with_extra_keys_keeps_them_beside_its_bytes() -> None:
    """A recorded tool use with input_base64 and a key the block cannot carry round-trips through both functions."""
    wire = {**RESPONSE, "content": [{**RAW_USE, "cache_control": {"type": "ephemeral"}}]}
    response = response_from_record(wire)
    assert response.content[0].input == RAW_ARGUMENTS
    assert response_record(response) == {**wire, "content": [{**RAW_USE, "cache_control": {"type": "ephemeral"}}]}


def test_input_base64_outside_a_tool_use_is_an_unknown_field_kept_raw() -> None:
    """Only a tool_use block's input_base64 is decoded; on another block it is kept in the block's raw form."""
    wire = {**RESPONSE, "content": [{"type": "text", "text": "hi", "input_base64": "AA=="}]}
    block = response_from_record(wire).content[0]
    assert block.text == "hi" and block.raw == wire["content"][0]


def test_the_writer_records_a_response_with_bytes_input(tmp_path: Path) -> None:
    """RunWriter.model_call and write_run of a run built in memory write bytes input as input_base64."""
    response = ModelResponse(
        content=(ContentBlock(type="tool_use", tool_use_id="t2", name="read_file", input=RAW_ARGUMENTS),),
        stop_reason="tool_use",
    )
    with RunWriter(tmp_path / "run.jsonl") as writer:
        writer.header(run_id="r")
        writer.model_call(0, response)
    [call] = load_run(tmp_path / "run.jsonl").model_calls
    assert call.response == response and call.record["response"]["content"] == [RAW_USE]
    built = agentrender.Run(header=HEADER, model_calls=(ModelCall(step=0, response=response),))
    assert built.model_calls[0].wire_response["content"] == [RAW_USE]
    write_run(built, tmp_path / "mem.jsonl")
    assert load_run(tmp_path / "mem.jsonl").model_calls[0].response == response


def test_max_output_tokens_and_an_end_error_are_known_fields(tmp_path: Path) -> None:
    """The header's max_output_tokens and the end record's error load without a warning, as the writer writes them."""
    with RunWriter(tmp_path / "run.jsonl") as writer:
        writer.header(run_id="r", goal="g", max_output_tokens=4096)
        writer.end("failed", "agent_error", error="step 0: the API answered 529", at="2026-01-05T09:00:09Z")
    run = load_run(tmp_path / "run.jsonl")
    assert run.warnings == () and run.max_output_tokens == 4096
    assert run.end == {
        "type": "end",
        "status": "failed",
        "reason": "agent_error",
        "error": "step 0: the API answered 529",
        "at": "2026-01-05T09:00:09Z",
    }
    assert load_run(write(tmp_path, lines(HEADER))).max_output_tokens == 0


def test_a_runs_repr_is_one_short_line(tmp_path: Path) -> None:
    """repr(run) names the run and counts its parts instead of printing every record."""
    path = write(tmp_path, lines(HEADER, STEP0, CALL0, END))
    assert repr(load_run(path)) == (
        f"Run(path={str(path)!r}, run_id='r-1', steps=1, model_calls=1, end='completed', warnings=0)"
    )


def test_run_file_error_crosses_process_boundaries(tmp_path: Path) -> None:
    """A RunFileError survives pickling with its parts, so a worker process can hand it back."""
    import pickle

    error = RunFileError("runs/a.jsonl", 3, "not JSON")
    copy = pickle.loads(pickle.dumps(error))
    assert (type(copy), str(copy), copy.path, copy.line, copy.what) == (
        RunFileError,
        "runs/a.jsonl:3: not JSON",
        "runs/a.jsonl",
        3,
        "not JSON",
    )


PUBLIC_CALL_FIELDS = ("step", "response", "latency_ms", "request_key", "line", "record")


def test_a_loaded_call_keeps_its_line_and_reads_back_its_record(tmp_path: Path) -> None:
    """A loaded model call knows its line; its record, stop reason, usage and wire reply are what the file holds."""
    run = load_run(write(tmp_path, lines(HEADER, CALL0, STEP0, END)))
    (call,) = run.model_calls
    assert call.line == 2
    assert (call.stop_reason, call.usage) == ("tool_use", {"input_tokens": 10, "output_tokens": 5})
    assert call.record == CALL0
    assert run.records[1] == call.record and call.wire_response == call.record["response"] == RESPONSE
    assert repr(call) == repr(ModelCall(**{name: getattr(call, name) for name in PUBLIC_CALL_FIELDS}))


def test_a_loaded_calls_request_is_its_records_and_none_without_one(tmp_path: Path) -> None:
    """A loaded call's request is the request body its record holds, the same for a call built in memory with that
    record; a record that holds none (a runtime's call, which keeps its replay key) gives None."""
    request = {"model": "claude-x", "max_tokens": 64, "tools": [{"name": "read_file"}], "messages": []}
    sent = {**CALL0, "request": request}
    run = load_run(write(tmp_path, lines(HEADER, CALL0, sent, STEP0, END)))
    bare, with_request = run.model_calls
    assert (bare.request, with_request.request) == (None, request)
    built = ModelCall(step=0, response=with_request.response, record=sent)
    assert built.request == request and ModelCall(step=0, response=bare.response).request is None


def test_a_model_calls_fields_are_read_only_and_each_says_what_it_is(tmp_path: Path) -> None:
    """Every field of a model call, loaded or built in memory, refuses assignment, and help(ModelCall) describes it."""
    import pydoc

    (loaded,) = load_run(write(tmp_path, lines(HEADER, CALL0, STEP0, END))).model_calls
    built = ModelCall(step=0, response=loaded.response, latency_ms=812, request_key="k", line=2, record=CALL0)
    for call in (loaded, built):
        for name in PUBLIC_CALL_FIELDS:
            with pytest.raises(AttributeError):
                setattr(call, name, getattr(call, name))
    assert loaded == built and loaded.record == CALL0
    described = " ".join(pydoc.render_doc(ModelCall, renderer=pydoc.plaintext).split())
    for said in ("The index of the step the call was made for.", "How long the call took, when recorded.",
                 "The replay key of the request that was sent, when recorded.", "The record as read, unknown fields",
                 "The model's reply, read from the Anthropic ``Message`` object the record holds.",
                 "The line of the run file the record was read from"):  # fmt: skip
        assert said in described


def test_a_model_call_refuses_a_response_that_is_no_model_response() -> None:
    """ModelCall(response=...) of something that is no ModelResponse is a TypeError naming the field and the type."""
    with pytest.raises(TypeError, match="ModelCall's response must be a ModelResponse, not NoneType"):
        ModelCall(step=0, response=None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not dict"):
        ModelCall(step=0, response=RESPONSE)  # type: ignore[arg-type]


def test_a_loaded_call_pickles_as_its_line(tmp_path: Path) -> None:
    """A loaded call pickles as its line's text, smaller than an equal call built in memory, and reads back equal."""
    import pickle

    (loaded,) = load_run(write(tmp_path, lines(HEADER, CALL0, STEP0, END))).model_calls
    pickled = pickle.dumps(loaded)
    built = ModelCall(step=0, response=loaded.response, latency_ms=812, request_key="k", line=2, record=loaded.record)
    assert len(pickled) < len(pickle.dumps(built))
    again = pickle.loads(pickled)
    assert again == loaded == built and repr(again) == repr(built)


def test_a_loaded_run_knows_the_line_of_its_header_and_of_each_steps_last_record(tmp_path: Path) -> None:
    """A run read from a file holds the line its header was read from and, in the order of its steps, the line of
    each step's last record (blank lines, other records, a step recorded again, steps out of order counted), and a
    follower's run holds the same lines at each growth, so what it says of a step can name its line without reading
    the file again; a run built in memory holds none."""
    step1 = {"type": "step", "index": 1}
    data = lines(b"", HEADER, step1, CALL0, b"  ", {"type": "checkpoint", "at": 1}, STEP0, {**step1, "x": 1}, END)
    path = write(tmp_path, data)
    run = load_run(path)
    assert (run.header_line, list(run.step_lines), repr(run.step_lines)) == (2, [7, 8], "(7, 8)")
    follower = runfile_following.Follower(str(tmp_path / "grown.jsonl"))
    for cut in range(1, len(data.splitlines()) + 1):
        (tmp_path / "grown.jsonl").write_bytes(b"".join(data.splitlines(keepends=True)[:cut]))
        follower.poll()
        if follower.run is not None:
            fresh = load_run(tmp_path / "grown.jsonl")
            assert (follower.run.steps, follower.run.header_line) == (fresh.steps, fresh.header_line), cut
            assert list(follower.run.step_lines) == list(fresh.step_lines), cut
    assert follower.run is not None and list(follower.run.step_lines) == [7, 8]
    built = agentrender.Run(header=HEADER, steps=run.steps)
    assert (built.header_line, built.step_lines) == (0, ())


def test_a_loaded_run_survives_pickling_and_copying(tmp_path: Path) -> None:
    """A loaded run, its undecoded model calls and its records pickle and deep-copy to equal values."""
    import copy
    import pickle

    run = load_run(write(tmp_path, lines(HEADER, CALL0, STEP0, {"type": "checkpoint", "at": 1}, END)))
    for again in (pickle.loads(pickle.dumps(run)), copy.deepcopy(run)):
        assert again == run and again.records == run.records and list(again.records)[1] == CALL0
        (call,) = again.model_calls
        assert (call.stop_reason, call.usage, call.record) == ("tool_use", RESPONSE["usage"], CALL0)


def test_a_loaded_runs_records_are_a_sequence_equal_to_the_list_of_them(tmp_path: Path) -> None:
    """Run.records reads like the list of records: index, slice, iterate, compare either way round."""
    records = [HEADER, STEP0, CALL0, {"type": "checkpoint", "at": 1}, END]
    got = load_run(write(tmp_path, lines(*records))).records
    assert len(got) == 5 and got[2] == CALL0 and got[-1] == END and got[1:3] == [STEP0, CALL0]
    assert list(got) == records and got == records and records == got and got == tuple(records)
    assert got != records[:4] and got != [*records[:4], {"type": "end"}] and got != "not records"
    assert repr(got) == repr(records)
    with pytest.raises(IndexError):
        got[5]
    with pytest.raises(TypeError, match="unhashable"):
        hash(got)


def test_a_loaded_calls_response_is_what_response_from_record_builds(tmp_path: Path) -> None:
    """A loaded call's reply equals response_from_record of its record, raw argument bytes included."""
    raw_call = {**CALL0, "step": 1, "response": {**RESPONSE, "content": [RAW_USE]}}
    run = load_run(write(tmp_path, lines(HEADER, CALL0, raw_call)))
    first, second = run.model_calls
    assert first.response == response_from_record(RESPONSE)
    assert second.response == response_from_record(raw_call["response"])
    assert second.response.content[0].input == RAW_ARGUMENTS
    assert first == ModelCall(step=0, response=first.response, latency_ms=812, request_key="k", line=2, record=CALL0)
    with pytest.raises(AttributeError, match="no attribute 'respons'"):
        first.respons  # type: ignore[attr-defined]  # noqa: B018


def test_stop_reason_and_usage_are_read_without_building_the_response(tmp_path: Path) -> None:
    """ModelCall.stop_reason and .usage read a loaded call's record, and a call built in memory's response."""
    unfinished = {**CALL0, "response": {**RESPONSE, "stop_reason": None, "usage": None}}
    run = load_run(write(tmp_path, lines(HEADER, CALL0, unfinished)))
    loaded, cut = run.model_calls
    assert (loaded.stop_reason, loaded.usage) == ("tool_use", {"input_tokens": 10, "output_tokens": 5})
    assert (cut.stop_reason, cut.usage) == ("", None)
    assert (loaded.stop_reason, loaded.usage) == (loaded.response.stop_reason, loaded.response.usage)
    in_memory = ModelCall(step=0, response=ModelResponse(content=(), stop_reason="end_turn", usage={"input_tokens": 3}))
    assert (in_memory.stop_reason, in_memory.usage) == ("end_turn", {"input_tokens": 3})


@pytest.mark.parametrize(
    "wire",
    [
        {"type": "note", "content": []},
        {"role": "user", "content": []},
        {"stop_reason": "end_turn"},
        {"content": [], "usage": [1]},
        {"content": [], "model": 4},
        {"content": [], "id": 3},
        {"content": {}},
        {"content": [3]},
        {"content": [{"type": ""}]},
        {"content": [{"type": "tool_use", "name": "x"}]},
        {"content": [{"type": "tool_result", "tool_use_id": "t", "is_error": "yes"}]},
        {"content": [{"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text", "text": 1}]}]},
        {"content": [{"type": "thinking", "thinking": "hm", "signature": 2}]},
    ],
)
def test_checking_a_reply_refuses_what_building_it_refuses(tmp_path: Path, wire: Any) -> None:
    """A reply that ModelResponse.from_dict refuses is refused at load, with from_dict's field and words."""
    with pytest.raises(ValueError) as built:
        response_from_record(wire, where="$.response")
    assert error_of(tmp_path, lines(HEADER, {**CALL0, "response": wire})) == f"2: {built.value}"


def test_last_calls_names_the_reply_each_recorded_decision_came_from(tmp_path: Path) -> None:
    """Run.last_calls maps each step with a model call to its last one, in file order."""
    retry = {**CALL0, "request_key": "first"}
    run = load_run(write(tmp_path, lines(HEADER, retry, CALL0, STEP0, END)))
    assert list(run.last_calls()) == [0]
    assert run.last_calls()[0] is run.model_calls[1] and run.model_calls[1].request_key == "k"


def test_records_of_a_type_the_run_does_not_load_are_kept_whole_and_read_back(tmp_path):
    """A record of an unknown type is kept (as its line's text, for memory) and ``Run.records`` gives it back as
    the file holds it, every time it is read."""
    path = tmp_path / "r.jsonl"
    lines = [
        {"type": "run", "format": "agentrender.run/1", "run_id": "r", "goal": "g"},
        {"type": "progress", "pct": 5, "nested": {"a": [1, 2]}},
        {"type": "step", "index": 0},
        {"type": "progress", "pct": 9},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    run = load_run(path)
    assert list(run.records) == lines == list(run.records)
    assert run.records[1] == lines[1] and run.records[-1] == lines[3]


def test_a_long_stretch_of_unloaded_records_reads_back_whole_by_position_and_in_order(tmp_path):
    """Thousands of records of an unknown type, kept as stretches of text, come back from ``Run.records`` in file
    order, by position (negative and slices included) and when iterated, between the records the run loads."""
    path = tmp_path / "r.jsonl"
    lines: list[dict] = [{"type": "run", "format": "agentrender.run/1", "run_id": "r", "goal": "g"}]
    lines += [{"type": "progress", "n": n} for n in range(9000)]
    lines += [{"type": "step", "index": 0}, {"type": "progress", "n": -1}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    records = load_run(path).records
    assert len(records) == len(lines) and list(records) == lines
    assert [records[i] for i in (0, 1, 4096, 4097, 8999, 9000, 9001, -1, -2)] == [
        lines[i] for i in (0, 1, 4096, 4097, 8999, 9000, 9001, -1, -2)
    ]
    assert records[4095:4099] == lines[4095:4099]
    with pytest.raises(IndexError):
        records[len(lines)]


def test_step_field_reads_a_field_of_each_record_as_its_dict_gives_it(tmp_path: Path) -> None:
    """``Run.step_field`` gives what ``step_records[i].get(name)`` gives, for a run read in one go (its plain steps
    held as structs, an odd one as a dict), followed, and built in memory, without making the dicts."""
    records = [
        HEADER,
        {**STEP0, "started_at": "2026-01-05T09:00:16Z", "ended_at": None},
        {**STEP0, "index": 1, "started_at": "2026-01-05T09:00:17.5+01:00", "x-note": "held as a dict"},
        {**STEP0, "index": 3, "observation": None},
    ]
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    follower = Follower(path)
    follower.poll()
    for run in (load_run(path), follower.run, read_records(records)):
        assert run is not None
        for name in ("started_at", "ended_at", "decision", "observation", "x-note", "nothing"):
            indices = [0, 1, 2, 3]
            expected = [run.step_records[i].get(name) if i in run.step_records else None for i in indices]
            assert run.step_field(name, indices) == expected
        assert run.step_field("started_at", [0, 1, 2, 3]) == [
            "2026-01-05T09:00:16Z",
            "2026-01-05T09:00:17.5+01:00",
            None,
            None,
        ]
        assert run.step_field("decision", [3]) == [STEP0["decision"]]
        # steps whose records are all structs, read in one pass: a text, a null, a field left out, an object
        assert run.step_field("started_at", iter([0, 3])) == ["2026-01-05T09:00:16Z", None]
        assert run.step_field("ended_at", [3, 0]) == [None, None]
        assert run.step_field("observation", [0, 3]) == [STEP0["observation"], None]
        assert run.step_field("nothing", [0, 3]) == [None, None]


def test_step_times_are_the_step_fields_of_both_timestamps(tmp_path: Path) -> None:
    """``Run.step_times`` gives ``step_field`` of ``started_at`` and of ``ended_at`` (a text, a null, one left out:
    ``None``), for a run read in one go (all its records structs, or one a dict), followed, and built in memory."""
    records = [
        HEADER,
        {**STEP0, "started_at": "2026-01-05T09:00:16Z", "ended_at": None},
        {**STEP0, "index": 1, "ended_at": "2026-01-05T09:00:17.5+01:00"},
        {**STEP0, "index": 3, "observation": None},
    ]
    odd = {**STEP0, "index": 4, "started_at": "2026-01-05T09:00:19Z", "x-note": "held as a dict"}
    for number, lines in enumerate((records, [*records, odd])):
        path = tmp_path / f"run{number}.jsonl"
        path.write_text("".join(json.dumps(record) + "\n" for record in lines))
        follower = Follower(path)
        follower.poll()
        for run in (load_run(path), follower.run, read_records(lines)):
            assert run is not None
            for indices in ([0, 1, 3], [3, 0], [0, 2, 4] if number else [2, 1]):
                started = run.step_field("started_at", indices)
                assert run.step_times(iter(indices)) == (started, run.step_field("ended_at", indices))
            assert run.step_times([0, 1, 3]) == (
                ["2026-01-05T09:00:16Z", None, None],
                [None, "2026-01-05T09:00:17.5+01:00", None],
            )


def test_a_run_file_is_read_a_line_at_a_time_through_a_buffer_of_128_kib(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``load_run`` and a ``Follower`` read their lines through ``open_lines``, whose reads take 128 KiB at a time:
    Python's default buffer of 8 KiB made a read of the system's every 8 KiB, and a line of a 30 KiB result several
    of them, a third of the whole load of such a file."""
    decision = {"kind": "tool_call", "tool": "read_file", "args": {"path": "a.py"}, "reason": "look"}
    observation = {"status": "ok", "content": "x" * 30_000, "summary": "read"}
    steps = ({"type": "step", "index": i, "decision": decision, "observation": observation} for i in range(12))
    path = write(tmp_path, lines(HEADER, *steps))
    assert path.stat().st_size > 1 << 17
    filled = []

    def opened(name: str) -> Any:
        file = open_lines(name)
        filled.append(len(file.peek(1)))  # what the first read of the file took in
        return file

    monkeypatch.setattr(runfile_read, "open_lines", opened)
    monkeypatch.setattr(runfile_following, "open_lines", opened)
    assert len(load_run(path).steps) == 12
    growth = Follower(path).poll()
    assert growth is not None and len(growth.run.steps) == 12
    assert filled == [1 << 17, 1 << 17]


@pytest.mark.parametrize("at", [-1, 9, 99, True, "2", 1.5])
def test_a_runs_step_input_and_calls_refuse_a_step_outside_the_run_as_views_do(at: Any) -> None:
    """``Run.step_input(k)`` and ``Run.calls_for(k)`` refuse a step the run has no view at (negative, past one after
    the last step, a bool, no int) with the error and the words of ``Views.at``; 0 to one past the last step and
    ``None`` are taken. Before, ``step_input(-1)`` gave a StepInput of no steps, ``step_input(99)`` every step at index
    99, ``step_input(True)`` the first step, and ``calls_for`` no calls, or step 1's for ``True``."""
    from agentrender import samples
    from agentrender.views import Views

    run = samples.load("fix-failing-test")
    assert run.steps[-1].index == 7
    with pytest.raises((IndexError, TypeError)) as views_said:
        Views(run).at(at)
    for method in (run.step_input, run.calls_for):
        with pytest.raises(views_said.type) as said:
            method(at)
        assert str(said.value) == str(views_said.value)
    assert "so a view is taken at 0 to 8 (8: after the last step)" in str(views_said.value)
    assert run.step_input(8).steps == run.step_input(None).steps == tuple(run.steps)
    assert run.step_input(0).steps == () and run.calls_for(8) == ()
