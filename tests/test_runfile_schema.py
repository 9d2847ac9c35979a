"""The run file's published JSON Schema: generated from the record structs, it accepts what is written and
loaded, and refuses the wrong shapes the loader refuses."""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from msgspec import UNSET

from agentrender import Decision, Observation, Step, imports, load_run, samples, write_run
from agentrender._json import MAX_DEPTH
from agentrender.cli import main
from agentrender.runfile import RunFileError, RunWriter, check_record, json_schema, read_records, schema
from agentrender.runfile.lines import decode_line
from agentrender.runfile.model import as_record
from agentrender.runfile.read import Loader
from agentrender.runfile.schema import (
    CheckedCallRecord,
    KnownStep,
    ModelCallRecord,
    ShallowStep,
    StepRecord,
    is_timestamp,
    quick_record,
    quick_records,
    untimely,
)
from tests._support import runschema
from tests._support.adapter import API_TOOLS
from tests._support.examples import examples

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_IMPORTS = sorted(path for path in (ROOT / "sample_imports").iterdir() if path.suffix in (".json", ".jsonl"))

HEADER = {"type": "run", "format": "agentrender.run/1", "run_id": "r-1", "goal": "Fix it.", "tools": [{"name": "t"}]}
REPLY = {"content": [{"type": "text", "text": "Done."}], "stop_reason": "end_turn", "usage": {"input_tokens": 3}}

# Records of the wrong shape, each refused by the loader (check_record) for its fields' types or presence.
WRONG_SHAPES: list[dict[str, Any]] = [
    {"index": 0},
    {"type": 3},
    {"type": "step"},
    {"type": "step", "index": None},
    {"type": "step", "index": "0"},
    {"type": "step", "index": True},
    {"type": "step", "index": -1},
    {"type": "step", "index": 2**53},
    {"type": "step", "index": 0, "decision": []},
    {"type": "step", "index": 0, "decision": {}},
    {"type": "step", "index": 0, "decision": {"kind": 7}},
    {"type": "step", "index": 0, "decision": {"kind": "tool_call", "invalid_base64": "yes"}},
    {"type": "step", "index": 0, "observation": {"content": ["a"]}},
    {"type": "step", "index": 0, "sent": {"user": []}},
    {**HEADER, "tools": {}},
    {**HEADER, "tools": ["read_file"]},
    {**HEADER, "tools": [{"description": "x"}]},
    {**HEADER, "tools": [{"type": "custom", "input_schema": {}}]},
    {**HEADER, "tools": [{"type": 5, "name": "t"}]},
    {**HEADER, "tools": [{"type": "bash_20250124", "name": "bash", "strict": "yes"}]},
    {**HEADER, "tools": [{"type": "computer_toolset_20260801", "name": 3}]},
    {**HEADER, "goal": 1.5},
    {**HEADER, "max_output_tokens": "4096"},
    {**HEADER, "max_output_tokens": -1},
    {**HEADER, "warnings": [{"line": 1}]},
    {**HEADER, "warnings": [{"line": 1, "text": "x", "count": 0}]},
    {**HEADER, "compactions": [{"step": 1}]},
    {**HEADER, "compactions": [{"step": 1, "opening": []}]},
    {**HEADER, "compactions": [{"step": "1", "opening": [{"type": "text", "text": "a"}]}]},
    {**HEADER, "compactions": [{"step": 1, "opening": [{"type": "text", "text": "a"}], "summary_blocks": 0}]},
    {**HEADER, "compactions": [{"step": 1, "opening": [{"type": "text", "text": "a"}], "summary_blocks": [-1]}]},
    {**HEADER, "compactions": [{"step": 1, "opening": [{"type": "text", "text": "a"}], "summary_blocks": ["0"]}]},
    {"type": "model_call", "step": 0},
    {"type": "model_call", "step": 0, "response": REPLY, "latency_ms": "fast"},
    {"type": "model_call", "step": 0, "response": []},
    {"type": "model_call_error", "step": 0},
    {"type": "model_call_error", "step": 0, "error": {"status": "500"}},
    {"type": "end", "status": False},
    {"type": "end", "error": ["x"]},
    # the blocks of recorded turns and of replies, and the replies' own fields
    {"type": "step", "index": 0, "sent": {"assistant": [{"type": "text"}]}},
    {"type": "step", "index": 0, "sent": {"assistant": ["Done."]}},
    {"type": "step", "index": 0, "sent": {"assistant": [{"type": "tool_use", "id": "t", "name": 3}]}},
    {"type": "step", "index": 0, "sent": {"assistant": [], "user": [{"type": "tool_result", "tool_use_id": None}]}},
    {"type": "step", "index": 0, "sent": {"assistant": [], "user": [{"type": "tool_result", "tool_use_id": "t",
                                                                     "content": [{"type": "text", "text": 5}]}]}},
    {"type": "step", "index": 0, "sent": {"assistant": [], "user": [{"type": "tool_result", "tool_use_id": "t",
                                                                     "is_error": "yes"}]}},
    {"type": "step", "index": 0, "sent": {"assistant": [{"type": "thinking", "thinking": "", "signature": 5}]}},
    {"type": "step", "index": 0, "sent": {"assistant": [{"type": "redacted_thinking"}]}},
    {**HEADER, "opening_content": [{"type": ""}]},
    {**HEADER, "opening_content": [{"text": "Fix it."}]},
    {**HEADER, "compactions": [{"step": 1, "opening": [{"type": "text", "text": None}]}]},
    {"type": "model_call", "step": 0, "response": {"stop_reason": "end_turn"}},
    {"type": "model_call", "step": 0, "response": {**REPLY, "content": "Done."}},
    {"type": "model_call", "step": 0, "response": {**REPLY, "content": [{"type": "text"}]}},
    {"type": "model_call", "step": 0, "response": {**REPLY, "stop_reason": 5}},
    {"type": "model_call", "step": 0, "response": {**REPLY, "type": "reply"}},
    {"type": "model_call", "step": 0, "response": {**REPLY, "role": "user"}},
    {"type": "model_call", "step": 0, "response": {**REPLY, "usage": [3]}},
    {"type": "model_call", "step": 0, "response": {**REPLY, "model": 4}},
    {"type": "model_call", "step": 0, "response": {**REPLY, "content": [
        {"type": "tool_use", "id": "t", "name": "n", "input_base64": "not base64!"}]}},
    {"type": "model_call", "step": 0, "response": {**REPLY, "content": [
        {"type": "tool_use", "id": "t", "name": "n", "input_base64": "/w==", "input": {}}]}},
    {"type": "model_call", "step": 0, "response": {**REPLY, "content": [
        {"type": "tool_use", "id": "t", "name": "n", "input_base64": 255}]}},
]  # fmt: skip


@pytest.fixture(scope="module")
def validator() -> Any:
    return runschema.validator()


def lines_of(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def test_every_line_of_every_sample_run_is_valid(validator: Any) -> None:
    """Each line of each bundled sample run is valid under the schema."""
    for name in samples.names():
        for number, record in enumerate(lines_of(samples.path(name)), start=1):
            errors = [error.message for error in validator.iter_errors(record)]
            assert errors == [], f"{name}:{number}"


@pytest.mark.parametrize("source", SAMPLE_IMPORTS, ids=lambda path: path.name)
def test_every_line_write_run_writes_is_valid(tmp_path: Path, validator: Any, source: Path) -> None:
    """Each line write_run writes of each sample import (header warnings, sent turns, compactions) is valid, but
    for the unknown fields its source held, which the run keeps and the loader names in a warning."""
    for position, run in enumerate(imports.load_runs(source)):
        written = tmp_path / f"{position}.jsonl"
        write_run(run, written)
        assert runschema.schema_errors(written, validator) == []


def test_every_record_the_writer_writes_is_valid(tmp_path: Path, validator: Any) -> None:
    """Records written one at a time with RunWriter, nulls and timestamps included, are valid."""
    path = tmp_path / "run.jsonl"
    with RunWriter(path) as writer:
        writer.header(run_id="r-1", goal="Fix it.", started_at="2026-01-05T09:00:16Z", tools=[{"name": "t"}])
        writer.write({"type": "step", "index": 0, "decision": None, "started_at": "2026-01-05T09:00:17+01:00"})
        writer.write({"type": "model_call", "step": 0, "response": REPLY, "latency_ms": 12.5, "request_key": None})
        writer.write({"type": "model_call_error", "step": 1, "error": {"type": "overloaded", "status": 529}})
        writer.write({"type": "end", "status": "completed", "at": "2026-01-05T09:01:00.123Z"})
    assert len(load_run(path).records) == 5
    for record in lines_of(path):
        assert list(validator.iter_errors(record)) == []


@pytest.mark.parametrize("record", WRONG_SHAPES, ids=lambda record: json.dumps(record)[-60:])
def test_the_schema_refuses_what_the_loader_refuses(validator: Any, record: dict[str, Any]) -> None:
    """A record of the wrong shape is refused by the loader and by the schema alike."""
    with pytest.raises(ValueError):
        check_record(record)
    assert not validator.is_valid(record)


VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-1, 1), st.sampled_from(["", " ", "x", "/w=="]), st.just([]), st.just({})
)
"""A field's value: of each JSON type, the empty ones and ``null`` included."""
FIELDS = ["text", "id", "name", "input", "tool_use_id", "content", "is_error", "thinking", "signature", "data"]
"""The fields of the known block types, which each type checks, or keeps as the extra fields of another type."""
KINDS = ["text", "tool_use", "tool_result", "thinking", "redacted_thinking", "image", ""]
ABSENT = object()


def _block(kind: Any, fields: dict[str, Any]) -> dict[str, Any]:
    return fields if kind is ABSENT else {"type": kind, **fields}


BLOCKS = (
    st.recursive(
        st.builds(
            _block,
            st.one_of(st.sampled_from(KINDS), st.just(ABSENT), VALUES),
            st.dictionaries(st.sampled_from([*FIELDS, "citations"]), VALUES, max_size=4),
        ),
        # a result's content as a list of blocks
        lambda blocks: st.builds(
            lambda fields, content: {"type": "tool_result", **fields, "content": content},
            st.dictionaries(st.sampled_from(["tool_use_id", "is_error"]), VALUES | st.just("t"), max_size=2),
            st.lists(blocks, max_size=2),
        ),
        max_leaves=4,
    )
    | VALUES
)
"""A block, or a value where one belongs: every known type with each of its fields of every JSON type, present,
null or absent, beside other types and fields."""


def taken(record: dict[str, Any]) -> bool:
    """Whether the loader takes ``record``: ``check_record`` raises nothing."""
    try:
        check_record(record)
    except ValueError:
        return False
    return True


@settings(max_examples=examples(400), deadline=None)
@given(blocks=st.lists(BLOCKS, max_size=3))
def test_the_schema_takes_the_blocks_of_recorded_turns_the_loader_takes(validator: Any, blocks: list[Any]) -> None:
    """A recorded turn's blocks (a step's ``sent``, the header's opening and compactions) are valid under the schema
    exactly when the loader takes them: both check a known type's fields and let other fields and types be."""
    for record in (
        {"type": "step", "index": 0, "sent": {"assistant": blocks}},
        {**HEADER, "opening_content": blocks},
        {**HEADER, "compactions": [{"step": 0, "opening": [*blocks, {"type": "text", "text": "Go on."}]}]},
    ):
        assert validator.is_valid(record) == taken(record), record


RAW_INPUT_USES = st.builds(
    lambda fields: {"type": "tool_use", "id": "t", "name": "n", **fields},
    st.dictionaries(st.sampled_from(["input_base64", "input"]), VALUES | st.text("AB/+=", max_size=6), max_size=2),
)
"""A reply's tool use whose raw arguments are written as base64 (or as text that is not), beside input or not."""
REPLIES = st.builds(
    lambda fields, content: fields if content is ABSENT else {**fields, "content": content},
    st.dictionaries(
        st.sampled_from(["type", "role", "stop_reason", "usage", "model", "id", "stop_sequence"]),
        VALUES | st.sampled_from(["message", "assistant", "end_turn"]),
        max_size=4,
    ),
    st.lists(BLOCKS | RAW_INPUT_USES, max_size=3) | st.just(ABSENT) | VALUES,
)
"""A reply, or a value where one belongs: its fields of every JSON type, present, null or absent, and its blocks."""
PADDED_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")


@settings(max_examples=examples(400), deadline=None)
@given(reply=REPLIES)
def test_the_schema_takes_a_reply_only_when_the_loader_does(validator: Any, reply: Any) -> None:
    """A model call's reply valid under the schema is one the loader takes, and one the loader takes is valid but
    where a tool use's ``input_base64`` is base64 only to Python's lenient reader (such as padding after a whole
    quantum): the schema holds a writer to the padded base64 ``response_record`` writes."""
    record = {"type": "model_call", "step": 0, "response": reply}
    loaded, valid = taken(record), validator.is_valid(record)
    assert loaded or not valid, record
    if loaded and not valid:
        raw = [block["input_base64"] for block in reply["content"] if "input_base64" in block]
        assert not all(PADDED_BASE64.fullmatch(text) for text in raw), record


SAMPLE_RECORDS = [record for name in samples.names() for record in lines_of(samples.path(name))]
"""Every record of the bundled sample runs: a header, steps, model calls, an end."""


def _places(value: Any, place: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place inside ``value`` (a key or a position at each level), the deepest last."""
    inner: list[tuple[Any, ...]] = []
    if type(value) is dict:
        inner = [found for key, item in value.items() for found in _places(item, (*place, key))]
    elif type(value) is list:
        inner = [found for at, item in enumerate(value) for found in _places(item, (*place, at))]
    return [place, *inner] if place else inner


@st.composite
def changed_records(draw: st.DrawFn) -> dict[str, Any]:
    """A sample record with one value in it replaced by a value of another JSON type (or of the same), or deleted."""
    record = json.loads(json.dumps(draw(st.sampled_from(SAMPLE_RECORDS))))
    place = draw(st.sampled_from(_places(record)))
    holder = record
    for key in place[:-1]:
        holder = holder[key]
    if type(holder) is dict and draw(st.booleans()):
        del holder[place[-1]]
    else:
        holder[place[-1]] = draw(VALUES | st.sampled_from([2**53, 1.5, "2026-01-05T09:00:16Z"]))
    return record


@settings(max_examples=examples(400), deadline=None)
@given(record=changed_records())
def test_a_record_valid_under_the_schema_is_one_the_loader_takes(validator: Any, record: dict[str, Any]) -> None:
    """A runtime that checks its lines with the schema writes only lines the loader takes: a sample record with any
    one value changed or deleted, if valid, is taken."""
    assert taken(record) or not validator.is_valid(record), record


def test_unknown_fields_and_types_are_loaded_but_not_in_the_schema(validator: Any) -> None:
    """The loader keeps unknown fields and record types (with a warning); a writer checked by the schema writes none."""
    for record in ({**HEADER, "team": "x"}, {"type": "checkpoint"}, {"type": "step", "index": 0, "cost": 3}):
        check_record(record)
        assert not validator.is_valid(record)


def test_the_tools_the_api_takes_are_valid_and_loaded(validator: Any) -> None:
    """A header of tools as the Messages API takes them, those it defines with their own fields, is valid under the
    schema and taken by the loader, and a custom tool's field the API does not take is neither."""
    check_record({**HEADER, "tools": list(API_TOOLS)})
    assert validator.is_valid({**HEADER, "tools": list(API_TOOLS)})
    assert not validator.is_valid({**HEADER, "tools": [{"name": "t", "timeout_s": 30}]})


def test_which_blocks_of_a_compactions_opening_are_its_summary_is_in_the_schema(validator: Any) -> None:
    """A compaction's ``summary_blocks`` (indices of its opening's blocks) is valid under the schema and taken by the
    loader, left out or empty too; an index past the opening is the loader's to refuse, naming it."""
    opening = [{"type": "text", "text": "Summary."}, {"type": "text", "text": "Now the tests."}]
    for told in ([0], [], [0, 1], None):
        record = {**HEADER, "compactions": [{"step": 1, "opening": opening, "summary_blocks": told}]}
        check_record(record)
        assert validator.is_valid(record), told
    with pytest.raises(ValueError, match=r"\$\.compactions\[0\]\.summary_blocks\[0\]: expected an index"):
        check_record({**HEADER, "compactions": [{"step": 1, "opening": opening, "summary_blocks": [2]}]})


def test_agentrender_schema_prints_the_schema(capsys: pytest.CaptureFixture[str]) -> None:
    """`agentrender schema` prints the schema as JSON, with its dialect, title and every record type."""
    assert main(["schema"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json_schema()
    assert printed["$schema"] == "https://json-schema.org/draft/2020-12/schema" and "run file" in printed["title"]
    records = [printed["$defs"][ref["$ref"].rsplit("/", 1)[1]] for ref in printed["anyOf"]]
    kinds = {record["properties"]["type"]["enum"][0] for record in records}
    assert kinds == {"run", "step", "model_call", "model_call_error", "end"}


def test_the_docs_show_the_schema_the_command_prints() -> None:
    """docs/runfile.md holds the schema as `agentrender schema` prints it (the docs' terminal blocks are checked)."""
    page = (ROOT / "docs" / "runfile.md").read_text("utf-8")
    assert "<!-- terminal: agentrender schema -->" in page
    assert '"title": "A line of an agentrender run file (agentrender.run/1)"' in page


def test_every_step_and_model_call_of_the_samples_is_read_straight_into_its_struct() -> None:
    """``load_run`` reads a plain step or model call line in one typed decode (``schema.quick_record``), and a
    step's struct gives back the record its line held (``as_record``)."""
    read = 0
    for name in samples.names():
        for line in samples.path(name).read_bytes().splitlines():
            record = json.loads(line)
            if record["type"] not in ("step", "model_call"):
                assert quick_record(line) is None
                continue
            typed = quick_record(line)
            assert typed is not None, f"{name}: {line[:80]!r}"
            if record["type"] == "step":
                assert as_record(typed) == record
            read += 1
    assert read > 100


STEP = {"type": "step", "index": 0, "decision": {"kind": "tool_call", "tool": "t", "args": {}}}
CALL = {"type": "model_call", "step": 0, "response": REPLY}


@pytest.mark.parametrize(
    "record",
    [
        {**STEP, "note": "an unknown field"},
        {**STEP, "decision": {**STEP["decision"], "x": 1}},
        {**STEP, "decision": {**STEP["decision"], "args": {"a": "\ud800"}}},
        {**STEP, "decision": {**STEP["decision"], "args": json.loads("[" * 300 + "]" * 300)}},
        {**STEP, "index": -1},
        {**CALL, "latency_ms": 2**64},
        {**CALL, "response": {**REPLY, "usage": {"input_tokens": -3}}},
        {"type": "note", "index": 0},
        HEADER,
        {"type": "end", "status": "completed"},
    ],
    ids=lambda record: json.dumps(record)[:60],
)
def test_a_line_the_quick_read_leaves_to_the_checked_one(record: dict[str, Any]) -> None:
    """What a struct cannot hold as written, or the frames cannot read, is read and worded the slow way."""
    assert quick_record(json.dumps(record).encode()) is None


def test_the_quick_read_gives_back_nulls_and_fields_left_out_as_written() -> None:
    record = {
        "type": "step",
        "index": 3,
        "started_at": "2026-01-05T09:00:16.25+00:00",
        "ended_at": "2026-01-05T09:00:16.250000+02:00",
        "decision": {"kind": "final_answer", "reason": "", "args": None, "invalid_base64": False},
        "observation": None,
        "sent": {"assistant": [{"type": "text", "text": "hi", "extra": 1}], "user": None},
    }
    typed = quick_record(json.dumps(record).encode())
    assert isinstance(typed, StepRecord)
    assert as_record(typed) == record


@pytest.mark.parametrize(
    ("blocks", "checked"),
    [
        ([{"type": "text", "text": "hi"}, {"type": "tool_use", "id": "tu", "name": "bash", "input": {"c": 1}}], True),
        (
            [{"type": "thinking", "thinking": "so", "signature": "s"}, {"type": "redacted_thinking", "data": "e30="}],
            True,
        ),
        ([{"type": "text", "text": "hi", "citations": None}], False),
        ([{"type": "server_tool_use", "id": "s", "name": "web_search", "input": {}}], False),
        ([{"type": "tool_use", "id": "tu", "name": "bash", "input_base64": "/w=="}], False),
        ([{"type": "tool_result", "tool_use_id": "tu", "content": [{"type": "text", "text": "x"}]}], False),
        ([{"type": "text", "text": 5}], False),
    ],
)
def test_a_model_calls_reply_is_checked_in_its_decode_when_its_blocks_allow(
    blocks: list[dict[str, Any]], checked: bool
) -> None:
    """A reply of the blocks the contract reads, each with only its keys, is decoded and checked in one pass (a
    ``CheckedCallRecord``); any other is decoded as a dict, which the loader checks block by block."""
    typed = quick_record(json.dumps({**CALL, "response": {**REPLY, "content": blocks}}).encode())
    assert type(typed) is (CheckedCallRecord if checked else ModelCallRecord)


_PLAIN = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
_ARGS = st.recursive(_PLAIN, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3))


@settings(max_examples=examples(200), deadline=None)
@given(args=_ARGS, sent=st.booleans(), kind=st.sampled_from(["tool_call", "my_kind"]))
def test_a_step_whose_type_says_it_is_shallow_is_read_without_measuring_its_nesting(
    args: Any, sent: bool, kind: str
) -> None:
    """A step of arguments that hold no object or list (or none), no turns sent, and a kind the contract names is
    decoded as a ``ShallowStep``, whose type says how deep it nests, so its arguments are not looked at in Python
    (``_step_too_deep``), alone or in a batch; any other as before (a ``KnownStep`` of the contract's kinds, a
    ``StepRecord`` of others). Each gives back the record its line held."""
    long = {"content": "x" * 2 * MAX_DEPTH}  # a line this long may nest past the limit, were it measured
    record: dict[str, Any] = {**STEP, "decision": {"kind": kind, "tool": "t", "args": args}, "observation": long}
    if sent:
        record["sent"] = {"assistant": [{"type": "text", "text": "hi"}]}
    line = json.dumps(record).encode()
    plain = type(args) not in (dict, list) or not any(type(v) in (dict, list) for v in _values(args))
    expected = StepRecord if kind == "my_kind" else ShallowStep if plain and not sent else KnownStep
    with patch.object(schema, "_step_too_deep", wraps=schema._step_too_deep) as measured:
        typed = quick_record(line)
        batch = quick_records([line, line])
    assert type(typed) is expected
    assert typed is not None and as_record(typed) == record
    assert batch is not None and [type(each) for each in batch] == [expected, expected]
    assert [as_record(each) for each in batch if each is not None] == [record, record]
    assert measured.call_count == (0 if expected is ShallowStep else 3)


def _values(args: dict[str, Any] | list[Any]) -> list[Any]:
    return list(args.values()) if type(args) is dict else list(args)


def test_a_loader_reads_wider_once_a_step_needs_it() -> None:
    """A loader decodes steps as ``ShallowStep``s until one needs a ``KnownStep`` (arguments that nest), then as
    ``KnownStep``s; until one needs a ``StepRecord`` (a kind the contract does not name), then as those: each batch
    decoded once, not tried narrow first again."""
    header = json.dumps({"type": "run", "format": "agentrender.run/1", "run_id": "r"}).encode() + b"\n"
    steps = [{**STEP, "index": i} for i in range(4)]
    steps[1] = {**steps[1], "decision": {"kind": "tool_call", "tool": "t", "args": {"a": [1]}}}
    steps[3] = {**steps[3], "decision": {"kind": "my_kind"}}
    loader = Loader("run.jsonl")
    loader.read([header])
    reads = []
    for step in steps:
        loader.read([json.dumps(step).encode() + b"\n"])
        reads.append((loader.shallow, loader.known))
    assert reads == [(True, True), (False, True), (False, True), (False, False)]
    assert [type(record) for record in loader.records[1:]] == [ShallowStep, KnownStep, KnownStep, StepRecord]
    together = Loader("run.jsonl")  # the same steps new to the run, read in batches of several lines
    together.read([header])
    widened = []
    for batch in (steps[:3], [steps[3], {**STEP, "index": 4}]):
        together.read([json.dumps(step).encode() + b"\n" for step in batch])
        widened.append((together.shallow, together.known))
    assert widened == [(False, True), (False, False)]
    assert [type(record) for record in together.records[1:]] == [KnownStep] * 3 + [StepRecord] * 2


def test_steps_new_to_the_run_read_together_have_the_blocks_of_their_turns_checked(tmp_path: Path) -> None:
    """Steps new to the run read in one batch have the blocks of the turns they sent checked as a step read alone
    does: a wrong block is refused on its step's line, in the same words."""
    records = [
        HEADER,
        {**STEP, "index": 0},
        {**STEP, "index": 1, "sent": {"assistant": [{"type": "text"}]}},  # a text block with no text
        {**STEP, "index": 2},
    ]
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"".join(json.dumps(record).encode() + b"\n" for record in records))
    with pytest.raises(RunFileError) as loaded:
        load_run(path)
    with pytest.raises(RunFileError) as alone:
        read_records(records, path=str(path))
    assert loaded.value.line == 3
    assert str(loaded.value) == str(alone.value)


def _nested(levels: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(levels - 1):
        value = [value]
    return value


@pytest.mark.parametrize("depth", [MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1])
@pytest.mark.parametrize("where", ["args", "sent", "response"])
def test_the_quick_read_takes_a_line_nested_as_deep_as_the_limit_and_no_deeper(where: str, depth: int) -> None:
    """A line nesting deeper than MAX_DEPTH is left to the slow read, which refuses it naming the field; one at the
    limit is read quickly, whatever holds the nesting (measured on the values, or the line's brackets)."""
    long = "x" * 2 * MAX_DEPTH  # a line this long may nest past the limit, so it is measured
    if where == "args":
        record: dict[str, Any] = {
            **STEP,
            "decision": {**STEP["decision"], "args": _nested(depth - 2)},
            "observation": {"content": long},
        }
    elif where == "sent":
        record = {**STEP, "sent": {"assistant": [{"type": "text", "text": long, "x": _nested(depth - 4)}]}}
    else:
        record = {**CALL, "response": {**REPLY, "x": _nested(depth - 2), "id": long}}
    line = json.dumps(record).encode()
    assert (quick_record(line) is not None) == (depth <= MAX_DEPTH)
    # decoded in a batch, where a step is admitted without _admitted's call: the same records (a batch of a step
    # whose arguments nest is decoded as KnownSteps, where the shallow line alone is a ShallowStep)
    shallow = json.dumps({**STEP, "observation": {"content": long}}).encode()
    admitted = [None if typed is None else as_record(typed) for typed in quick_records([shallow, line]) or ()]
    assert admitted == [as_record(typed) if typed else None for typed in (quick_record(shallow), quick_record(line))]
    if depth > MAX_DEPTH:
        with pytest.raises(ValueError, match="nested deeper than"):
            decode_line(line.decode())


def test_untimely_finds_the_steps_whose_timestamps_are_none() -> None:
    """The timestamps of the steps read quickly are checked a run at a time; each found is worded by ``doubts``."""
    times = [
        ("2026-01-05T09:00:16Z", None),
        ("2026-01-05T09:00:16.25+00:00", "2026-01-05T09:00:16.250000+02:00"),
        ("yesterday", None),
        (None, "2026-02-30T09:00:16Z"),
        ("9999-12-31T23:59:59-01:00", None),
        ("0001-01-01T00:00:00+01:00", None),
        ("2026-01-05t09:00:16z", None),
        ("2026-01-05", "2026-01-05T09:00"),
    ]
    records = [
        StepRecord(index=at, started_at=started or UNSET, ended_at=ended) for at, (started, ended) in enumerate(times)
    ]
    assert untimely(records) == [2, 3, 4, 5, 6]
    assert untimely(records[:2]) == untimely(records[7:]) == []
    # texts that read as times and are given back as they were, but where an offset moves the year out of 1-9999
    assert untimely(records[4:6]) == [0, 1]
    assert untimely([records[0], records[4]]) == [1]
    assert untimely([records[5], records[0]]) == [0]


_MOMENTS = st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31))
_WRITTEN = st.builds(
    lambda moment, fraction, offset: moment.isoformat(timespec=fraction) + offset,
    _MOMENTS,
    st.sampled_from(["seconds", "milliseconds", "microseconds", "minutes"]),
    st.sampled_from(["Z", "+00:00", "+02:00", "-01:00", "", "z", "+24:00"]),
)
_TEXTS = _WRITTEN | _WRITTEN.map(lambda text: text.replace("T", " ")) | st.text(max_size=12)


@settings(max_examples=examples(200), deadline=None)
@given(times=st.lists(st.tuples(st.none() | _TEXTS, st.none() | _TEXTS), max_size=12))
@example([("2026-01-05T09:00:16Z", "9999-12-31T23:59:59-01:00")])  # read as a time out of the years
@example([("0001-01-01T00:00:00+01:00", None), ("2026-01-05T09:00:16.250000+02:00", None)])
def test_untimely_is_the_steps_whose_texts_are_no_timestamp(times: list[tuple[str | None, str | None]]) -> None:
    """The steps untimely finds, their texts read as times at once and compared with msgspec's writing of them as
    JSON, are those holding a text that is no timestamp by is_timestamp, the definition: texts of every form, year
    and offset (year 1 and 9999 among them), and texts that are none."""
    records = [StepRecord(index=at, started_at=started, ended_at=ended) for at, (started, ended) in enumerate(times)]
    expected = [at for at, pair in enumerate(times) if any(text and not is_timestamp(text) for text in pair)]
    assert untimely(records) == expected


def _decided(index: int, args: Any, observation: dict[str, Any] | None = None) -> dict[str, Any]:
    decision = {"kind": "tool_call", "tool": "read_file", "args": args, "reason": "look"}
    return {"type": "step", "index": index, "decision": decision, "observation": observation}


ANSWER = {"status": "ok", "content": "12 lines", "summary": "read"}


def test_a_step_recorded_again_holds_what_it_repeats_once_and_only_what_is_the_same_json(tmp_path: Path) -> None:
    """A step recorded when decided and again when answered holds one decision, where the two are the same JSON;
    arguments Python takes as equal but JSON does not (1 and 1.0, 1 and true, keys in another order) are kept
    apart, so the steps load the later record and the records write back as the lines they were read from."""
    records = [
        {"type": "run", "format": "agentrender.run/1", "run_id": "again", "goal": "g"},
        _decided(0, {"path": "a.py", "limit": 3}),
        _decided(0, {"path": "a.py", "limit": 3}, ANSWER),
        _decided(1, {"limit": 1}),
        _decided(1, {"limit": 1.0}, ANSWER),
        _decided(2, {"a": 1, "b": 2}),
        _decided(2, {"b": 2, "a": 1}, ANSWER),
        _decided(3, 1),
        _decided(3, True, ANSWER),
        _decided(4, "x", ANSWER),
        _decided(4, "x", ANSWER),  # recorded again whole: its observation is held once too
        _decided(5, [0.0]),
        _decided(5, [-0.0], ANSWER),
    ]
    path = tmp_path / "again.jsonl"
    lines = [json.dumps(record) for record in records]
    path.write_text("".join(line + "\n" for line in lines))
    loader = Loader(str(path))
    loader.read(path.read_bytes().splitlines(keepends=True))
    held = loader.records  # the header, then each step record as the run holds it
    assert all(isinstance(item, StepRecord) for item in held[1:])
    shared = [held[at].decision is held[at + 1].decision for at in range(1, len(records), 2)]
    assert shared == [True, False, False, False, True, False]
    assert held[9].observation is held[10].observation
    run = loader.run(())
    assert [json.dumps(dict(record)) for record in run.records] == lines
    assert [json.dumps(step.decision.args) for step in run.steps] == [
        json.dumps(records[at]["decision"]["args"]) for at in range(2, len(records), 2)
    ]
    assert run.steps[0].decision is loader.steps[0].decision
    assert (
        list(run.steps)
        == list(load_run(path).steps)
        == [
            Step(index=record["index"], decision=Decision(**record["decision"]), observation=Observation(**ANSWER))
            for record in records[2::2]
        ]
    )


def test_a_loaded_run_holds_each_kind_and_status_the_contract_names_once(tmp_path: Path) -> None:
    """Steps of a kind and a status the contract names share one text of each, in their steps and their records,
    where each held a copy of its own; a kind and a status it does not name load as written, as before."""
    header = {"type": "run", "format": "agentrender.run/1", "run_id": "kinds", "goal": "g"}
    named = [_decided(index, {"path": "a.py"}, ANSWER) for index in range(3)]
    handoff = {"type": "step", "index": 3, "decision": {"kind": "handoff"}, "observation": {"status": "queued"}}
    other = [*named, handoff, _decided(4, {"path": "b.py"}, ANSWER)]
    runs = []
    for name, steps in (("named", named), ("other", other)):
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps(record) + "\n" for record in [header, *steps]))
        run = load_run(path)
        assert list(run.records) == [header, *steps] and run.warnings == ()
        runs.append(run)
    first, second, third = runs[0].steps
    assert first.decision.kind is second.decision.kind is third.decision.kind == "tool_call"
    assert first.observation.status is second.observation.status is third.observation.status == "ok"
    records = [runs[0].step_records[index] for index in range(3)]
    assert records[0]["decision"]["kind"] is records[2]["decision"]["kind"]
    assert records[0]["observation"]["status"] is records[2]["observation"]["status"]
    assert runs[1].steps[:3] == runs[0].steps
    assert (runs[1].steps[3].decision.kind, runs[1].steps[3].observation.status) == ("handoff", "queued")
    assert runs[1].steps[4] == Step(
        index=4, decision=Decision(**other[4]["decision"]), observation=Observation(**ANSWER)
    )
