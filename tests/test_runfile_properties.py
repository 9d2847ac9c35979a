"""Properties of run files: load_run loads or names a line, never loses a record unreported; write is lossless."""

from __future__ import annotations

import gzip
import json
import tempfile
from pathlib import Path
from typing import Any
from unittest.mock import patch

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentrender import ContentBlock, Decision, ModelResponse, Observation, Step, load_run, render, samples
from agentrender.runfile import RunFileError, read_records, response_from_record, response_record, write_run
from agentrender.runfile import read as runfile_read
from tests._support.examples import examples

SOURCE = samples.path("malformed-replies").read_bytes()
LINES = SOURCE.splitlines(keepends=True)
FAST = settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _load(data: bytes, name: str = "run.jsonl") -> Any:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(data)
        try:
            return load_run(path)
        except RunFileError as error:
            assert str(error).startswith(f"{path}:{error.line}: ")
            assert 1 <= error.line <= data.count(b"\n") + 1
            return error


def _parsed(line: bytes, first: bool) -> Any:
    try:
        return json.loads(line.decode("utf-8-sig" if first else "utf-8"))
    except ValueError:
        return None


def _check_nothing_lost(data: bytes, result: Any) -> None:
    """Every line that is a JSON object is a record of the run; a line that is not is the reported last one."""
    if isinstance(result, RunFileError):
        return
    lines = data.split(b"\n")
    whole = [_parsed(line, n == 0) for n, line in enumerate(lines) if line.strip()]
    objects = [value for value in whole if isinstance(value, dict)]
    assert list(result.records) == objects
    if len(objects) < len(whole) or (lines[-1].strip() and _parsed(lines[-1], len(lines) == 1) is None):
        assert any("cut short" in warning.text for warning in result.warnings)


mutations = st.one_of(
    st.tuples(st.just("cut"), st.integers(0, len(SOURCE))),
    st.tuples(st.just("flip"), st.integers(0, len(SOURCE) - 1), st.integers(1, 255)),
    st.tuples(st.just("splice"), st.lists(st.integers(0, len(LINES) - 1), min_size=1, max_size=12)),
    st.tuples(st.just("insert"), st.integers(0, len(SOURCE)), st.sampled_from([b"\xff", b"\xed\xa0\x80", b"\xc3"])),
    st.tuples(
        st.just("escape"), st.integers(1, len(LINES) - 1), st.sampled_from(["\\ud800", "\\udfff", "\\ud83d\\ude00"])
    ),
    st.tuples(
        st.just("retype"),
        st.integers(0, len(LINES) - 1),
        st.sampled_from(["index", "step", "type", "kind", "status", "decision", "response", "tools", "content"]),
        st.sampled_from([1, "x", None, [], {}, True, -1, 1.5]),
    ),
)


def _mutate(data: bytes, mutation: tuple[Any, ...]) -> bytes:
    kind = mutation[0]
    if kind == "cut":
        return data[: mutation[1]]
    if kind == "flip":
        if not data:
            return data
        at, bits = mutation[1] % len(data), mutation[2]
        return data[:at] + bytes([data[at] ^ bits]) + data[at + 1 :]
    if kind == "splice":
        return b"".join(LINES[i] for i in mutation[1])
    if kind == "insert":
        at = min(mutation[1], len(data))
        return data[:at] + mutation[2] + data[at:]
    if kind == "escape":
        line = LINES[mutation[1]].replace(b'"reason": "', b'"reason": "' + mutation[2].encode(), 1)
        return b"".join(LINES[: mutation[1]]) + line + b"".join(LINES[mutation[1] + 1 :])
    _, at, field, value = mutation
    record = json.loads(LINES[at])

    def retype(node: Any) -> None:
        if isinstance(node, dict):
            if field in node:
                node[field] = value
            for child in list(node.values()):
                retype(child)
        elif isinstance(node, list):
            for child in node:
                retype(child)

    retype(record)
    return b"".join(LINES[:at]) + json.dumps(record).encode() + b"\n" + b"".join(LINES[at + 1 :])


@FAST
@given(st.lists(mutations, min_size=1, max_size=3))
def test_mutated_run_files_load_or_name_a_line(chain: list[tuple[Any, ...]]) -> None:
    """Cut, flipped, spliced, retyped, invalid-UTF-8 and surrogate-holding files load or raise RunFileError."""
    data = SOURCE
    for mutation in chain:
        data = _mutate(data, mutation)
    result = _load(data)
    _check_nothing_lost(data, result)


def _outcome(data: bytes) -> Any:
    """What loading ``data`` gives, in values that compare: the error's text, or the records, steps and warnings."""
    result = _load(data)
    if isinstance(result, RunFileError):
        return str(result).split(": ", 1)[1]  # past the temporary folder's path
    return list(result.records), result.steps, result.model_calls, [(w.line, w.text, w.count) for w in result.warnings]


@FAST
@given(
    st.lists(mutations, min_size=1, max_size=3),
    st.lists(st.integers(0, len(LINES) - 1), max_size=40),
    st.lists(st.tuples(st.integers(1, 80), st.sampled_from([b"\n", b" \t\n", b"\r\n", b"\n\n\n"])), max_size=3),
    st.lists(st.tuples(st.integers(1, 80), st.sampled_from([b"", b" ", b"\r"]), st.booleans()), max_size=2),
    st.integers(2, 5),
    st.sampled_from([1 << 16, 1, 700]),
)
def test_a_file_loads_the_same_in_batches_of_any_size_as_line_by_line(
    chain: list[tuple[Any, ...]],
    more: list[int],
    blanks: list[tuple[int, bytes]],
    joined: list[tuple[int, bytes, bool]],
    lines: int,
    size: int,
) -> None:
    """``Loader.read`` decodes its lines in batches (``schema.quick_records``), and each line alone when one in a
    batch is not a step or a model call: whatever the batch's bounds, the same records, steps, calls and warnings
    in the same order, or the same error naming the same line, as reading each line alone."""
    data = SOURCE + b"".join(LINES[i] for i in more)  # many step and model call lines, batched
    for mutation in chain:
        data = _mutate(data, mutation)
    split = data.splitlines(keepends=True)
    for at, blank in blanks:  # blank lines among them, which a batch's decode would skip
        split.insert(min(at, len(split)), blank)
    for at, joint, blank in joined:  # two records on one line, which a batch's decode reads as two values
        if at < len(split) and split[at].endswith(b"\n"):
            split[at] = split[at][:-1] + joint
            split.insert(at + 1, b"\n" * blank)  # and, in the same batch, a blank line, which it skips
    data = b"".join(split)
    with patch.object(runfile_read, "_BATCH_LINES", 1):
        alone = _outcome(data)
    with patch.object(runfile_read, "_BATCH_LINES", lines), patch.object(runfile_read, "_BATCH_BYTES", size):
        assert _outcome(data) == alone


@pytest.mark.parametrize("joint", [b"", b" ", b"\r"])
def test_two_records_on_one_line_are_refused_in_a_batch_with_a_blank_line(joint: bytes) -> None:
    """A batch's decode reads two values on one line, and skips a blank line: a line holding two records, with a
    blank line beside it, is still refused as not JSON, naming its line, in every batch that holds both."""
    for at in range(1, 6):
        data = b"".join([*LINES[:at], LINES[at][:-1] + joint + LINES[at + 1], b"\n", *LINES[at + 2 :]])
        with patch.object(runfile_read, "_BATCH_LINES", 1):
            alone = _outcome(data)
        assert alone == f"not JSON: Extra data at column {len(LINES[at]) + len(joint)}"
        for lines in range(2, 8):
            with patch.object(runfile_read, "_BATCH_LINES", lines):
                assert _outcome(data) == alone, (at, lines)


def test_a_record_across_two_lines_is_refused_in_a_batch_with_two_records_on_one_line() -> None:
    """A batch's decode reads a value across two lines when the second begins with an object: a step record
    written across two lines, with two records on one line after it in the same batch (as many values as lines),
    is refused as not JSON naming its first line, as when each line is read alone, where it loaded."""
    header = json.dumps({"type": "run", "format": "agentrender.run/1", "run_id": "r"}).encode()
    steps = [json.dumps({"type": "step", "index": index}).encode() for index in range(4)]
    across = [steps[0][:-1] + b', "observation":', b'{"content": "ok"}}']  # one step, its observation on the next
    data = b"\n".join([header, *across, steps[1] + steps[2], steps[3]]) + b"\n"
    with patch.object(runfile_read, "_BATCH_LINES", 1):
        alone = _load(data)
    assert isinstance(alone, RunFileError) and alone.line == 2 and "not JSON: Expecting value" in str(alone)
    assert _outcome(data) == str(alone).split(": ", 1)[1]


_moments = st.sampled_from(["2026-01-05T09:00:16Z", "2026-01-05T09:00:16.5+02:00", "yesterday", "2026-13-01", None])


@st.composite
def step_lines(draw: st.DrawFn) -> bytes:
    """A run of step records, often of the same index, of good and bad timestamps, known and unknown kinds and
    statuses, among records of other types and an end record: each line JSON, some with a field written empty."""
    lines = [b'{"type": "run", "run_id": "r"}\n']
    for _ in range(draw(st.integers(0, 40))):
        what = draw(st.sampled_from(["step"] * 6 + ["note", "end"]))
        if what != "step":
            other = {"type": what, "status": "completed"} if what == "end" else {"type": what}
            lines.append(json.dumps(other).encode() + b"\n")
            continue
        record: dict[str, Any] = {"type": "step", "index": draw(st.integers(0, 12))}
        for name in ("started_at", "ended_at"):
            if draw(st.booleans()):
                record[name] = draw(_moments)
        if draw(st.integers(0, 3)):
            decision = {"kind": draw(st.sampled_from(["tool_call", "complete", "mine"]))}
            decision.update(draw(st.fixed_dictionaries({}, optional={"tool": st.sampled_from(["", "read", "Bash"])})))
            decision.update(draw(st.fixed_dictionaries({}, optional={"args": st.sampled_from([None, {"a": 1}, [1]])})))
            record["decision"] = decision
        if draw(st.integers(0, 3)):
            record["observation"] = draw(
                st.fixed_dictionaries(
                    {},
                    optional={"status": st.sampled_from(["ok", "error", "odd"]), "content": st.sampled_from(["", "x"])},
                )
            )
        lines.append(json.dumps(record).encode() + b"\n")
    return b"".join(lines)


@FAST
@given(step_lines(), st.integers(2, 6), st.sampled_from([1 << 16, 300]))
def test_step_records_load_the_same_in_batches_as_line_by_line(data: bytes, lines: int, size: int) -> None:
    """A batch of lines is decoded together (``schema.quick_records``): whatever the batch's bounds, the same records,
    steps, step records, timestamps and warnings (a step recorded again, a bad timestamp, a record after the end,
    each on its line) as reading each line alone."""

    def outcome() -> Any:
        run = _load(data)
        assert not isinstance(run, RunFileError)
        indices = list(run.step_records)
        return (
            list(run.records),
            run.steps,
            {index: run.step_records[index] for index in indices},
            run.step_field("started_at", indices),
            [(w.line, w.text, w.count, w.lost) for w in run.warnings],
        )

    with patch.object(runfile_read, "_BATCH_LINES", 1):
        alone = outcome()
    with patch.object(runfile_read, "_BATCH_LINES", lines), patch.object(runfile_read, "_BATCH_BYTES", size):
        assert outcome() == alone


@FAST
@given(st.integers(0, 10_000))
def test_any_prefix_of_a_gzip_run_loads_its_whole_records(cut: int) -> None:
    """A .jsonl.gz cut at any byte loads every record it still holds whole, or is a missing-header error."""
    packed = gzip.compress(SOURCE, mtime=0)
    result = _load(packed[: cut % (len(packed) + 1)], "run.jsonl.gz")
    if not isinstance(result, RunFileError):
        assert list(result.records) == [json.loads(line) for line in LINES[: len(result.records)]]


@pytest.mark.slow  # 10 MB lines, several times over
def test_a_ten_megabyte_line_loads_or_is_named() -> None:
    """A 10 MB record loads; a 10 MB line that is not JSON is an error on its line; cut short, a warning."""
    big = json.dumps({"type": "step", "index": 99, "observation": {"content": "x" * 10_000_000}}).encode()
    loaded = _load(SOURCE + big + b"\n")
    assert not isinstance(loaded, RunFileError) and len(loaded.steps[-1].observation.content) == 10_000_000
    broken = _load(SOURCE + big[:-1] + b"\n")
    assert isinstance(broken, RunFileError) and broken.line == len(LINES) + 1
    cut = _load(SOURCE + big[:-1])
    assert not isinstance(cut, RunFileError) and "cut short" in cut.warnings[-1].text


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(codec=None, exclude_categories=()), max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
# A prefix no known field has keeps the generated fields unknown.
extra_fields = st.dictionaries(st.text(max_size=6).map(lambda name: "x-" + name), json_values, max_size=2)


@st.composite
def runs(draw: st.DrawFn) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = [
        {"type": "run", "format": "agentrender.run/1", "run_id": "r", **draw(extra_fields)}
    ]
    for index in range(draw(st.integers(0, 4))):
        decision = draw(
            st.none()
            | st.fixed_dictionaries(
                {"kind": st.sampled_from(["tool_call", "no_tool_call", "truncated", "other"]), "args": json_values},
                optional={"reason": st.text(max_size=20), "tool": st.text(max_size=5)},
            )
        )
        records.append({"type": "step", "index": index, "decision": decision, **draw(extra_fields)})
        if draw(st.booleans()):
            records.append({"type": draw(st.sampled_from(["note", "checkpoint"])), "value": draw(json_values)})
    if draw(st.booleans()):
        records.append({"type": "end", "status": "completed", **draw(extra_fields)})
    return records


@FAST
@given(runs(), st.booleans())
def test_load_write_load_is_lossless(records: list[dict[str, Any]], compress: bool) -> None:
    """Writing a loaded run and loading it again gives the same records, steps and warnings."""
    data = b"".join(json.dumps(record).encode() + b"\n" for record in records)
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "in.jsonl"
        source.write_bytes(data)
        first = load_run(source)
        target = Path(folder) / ("out.jsonl.gz" if compress else "out.jsonl")
        write_run(first, target)
        again = load_run(target)
    assert again.records == first.records == records
    assert again.steps == first.steps
    assert [(w.line, w.message) for w in again.warnings] == [(w.line, w.message) for w in first.warnings]


@FAST
@given(
    raw=st.binary(max_size=64),
    text=st.text(max_size=20),
    stop=st.sampled_from(["tool_use", "end_turn", "max_tokens"]),
)
def test_a_reply_with_raw_argument_bytes_survives_its_record_and_decides_the_same(
    raw: bytes, text: str, stop: str
) -> None:
    """Any reply whose tool input is raw bytes, written as a run file records it and read back, is the same reply
    and decides the same."""
    response = ModelResponse(
        content=(
            ContentBlock(type="text", text=text),
            ContentBlock(type="tool_use", tool_use_id="t", name="write_file", input=raw),
        ),
        stop_reason=stop,
    )
    wire = json.loads(json.dumps(response_record(response)))
    again = response_from_record(wire)
    assert again == response
    assert render.decide(again) == render.decide(response)


_TIMES = st.sampled_from(
    [
        "2026-01-05T09:00:16Z",
        "2026-01-05T09:00:16.250000Z",
        "2026-01-05T09:00:16+02:00",
        "2026-01-05T09:00:16",
        "2026-01-05T09:00:16+00:00",
        "2026-01-05T09:00:16.25Z",
        "2026-01-05t09:00:16z",
        "2026-01-05",
        "9999-12-31T23:59:59-01:00",
        "2026-02-30T09:00:16Z",
        "yesterday",
    ]
)


def _maybe(values: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """A field's value, ``None`` (written as null), or ``...`` (left out)."""
    return st.just(...) | st.none() | values


@st.composite
def step_records(draw: st.DrawFn, index: int) -> dict[str, Any]:
    """A step record with each field left out, null, or of a value of every kind it may hold."""
    fields = {
        "started_at": draw(_maybe(_TIMES)),
        "ended_at": draw(_maybe(_TIMES)),
        "decision": draw(
            _maybe(
                st.fixed_dictionaries(
                    {"kind": st.sampled_from(["tool_call", "final_answer", "other"])},
                    optional={
                        "tool": st.text(max_size=5),
                        "args": json_values,
                        "reason": st.text(max_size=20),
                        "invalid_args": st.text(max_size=5),
                        "invalid_base64": st.booleans(),
                    },
                )
            )
        ),
        "observation": draw(
            _maybe(
                st.fixed_dictionaries(
                    {},
                    optional={
                        "status": st.sampled_from(["ok", "error", "interrupted"]),
                        "content": st.text(max_size=20),
                        "summary": st.text(max_size=10),
                    },
                )
            )
        ),
    }
    record = {"type": "step", "index": index, **{name: value for name, value in fields.items() if value is not ...}}
    return {**record, **draw(extra_fields)} if draw(st.integers(0, 4)) == 0 else record


def _line(record: dict[str, Any]) -> bytes:
    """``record`` as a line of a run file: UTF-8, non-ASCII text as it is, except where a text holds a lone surrogate
    (``json_values`` makes them), which JSON holds only as its escape, so every text is escaped then."""
    text = json.dumps(record, ensure_ascii=False)
    try:
        return text.encode() + b"\n"
    except UnicodeEncodeError:
        return json.dumps(record).encode() + b"\n"


@FAST
@given(st.lists(st.integers(0, 3), max_size=6).flatmap(lambda at: st.tuples(*(step_records(i) for i in at))))
def test_a_file_read_quickly_loads_as_its_records_read_one_by_one(steps: tuple[dict[str, Any], ...]) -> None:
    """``load_run`` reads plain step lines straight into structs (``schema.quick_record``); what it gives is what
    checking each record as a dict gives (``read_records``): the same steps, records and warnings."""
    records = [{"type": "run", "format": "agentrender.run/1", "run_id": "r"}, *steps]
    data = b"".join(_line(record) for record in records)
    loaded = _load(data)
    one_by_one = read_records(records, path=loaded.path)
    assert list(loaded.records) == records
    assert loaded.steps == one_by_one.steps
    last = {record["index"]: record for record in steps}
    assert loaded.steps == tuple(
        Step(
            index=index,
            decision=msgspec.convert(record["decision"], Decision) if record.get("decision") is not None else None,
            observation=msgspec.convert(record["observation"], Observation)
            if record.get("observation") is not None
            else None,
        )
        for index, record in sorted(last.items())
    )
    assert dict(loaded.step_records) == dict(one_by_one.step_records) == last
    # The same warnings, in line order (a quick read checks the timestamps after the steps, so two warnings of
    # one line may come in the other order).
    assert [w.line for w in loaded.warnings] == [w.line for w in one_by_one.warnings]
    assert sorted((w.line, w.message) for w in loaded.warnings) == sorted(
        (w.line, w.message) for w in one_by_one.warnings
    )


def _loaded_state(data: list[bytes], lines: int, *, quick: bool) -> Any:
    """What a ``Loader`` holds after reading ``data`` in batches of ``lines`` lines, read quickly (``quick_record``,
    ``quick_records``) or in the general way: the lines read, records, steps, step records, lines, steps touched,
    timestamps, model calls and warnings; or the error's line and words."""
    loader = runfile_read.Loader("run.jsonl")
    with patch.object(runfile_read, "_BATCH_LINES", lines):
        try:
            if quick:
                loader.read(data)
            else:
                with (
                    patch.object(runfile_read, "quick_record", lambda line, **reads: None),
                    patch.object(runfile_read, "quick_records", lambda lines, **reads: None),
                ):
                    loader.read(data)
        except RunFileError as error:
            return error.line, str(error)
    touched = list(loader.touched)
    last_line = loader.last_line
    run = loader.run(())
    indices = list(run.step_records)
    return (
        last_line,
        list(run.records),
        run.steps,
        {index: run.step_records[index] for index in indices},
        list(run.step_lines),
        touched,
        run.step_field("started_at", indices),
        run.step_field("ended_at", indices),
        [
            (call.step, call.line, call.latency_ms, call.request_key, call.stop_reason, call.usage, call.record)
            for call in run.model_calls
        ],
        [call.response for call in run.model_calls],
        sorted((w.line, w.text, w.count, w.lost) for w in run.warnings),
    )


_OTHER_RECORDS = st.sampled_from([{"type": "note"}, {"type": "end", "status": "completed"}])


@FAST
@given(
    st.lists(st.integers(0, 3), max_size=8).flatmap(lambda at: st.tuples(*(step_records(i) for i in at))),
    st.lists(st.tuples(st.integers(0, 8), _OTHER_RECORDS), max_size=3),
    st.integers(1, 4),
)
def test_a_step_read_quickly_loads_as_read_the_general_way(
    steps: tuple[dict[str, Any], ...], others: list[tuple[int, dict[str, Any]]], lines: int
) -> None:
    """A step line read straight into its struct (``Loader.read_batch``, which holds a step new to the run without
    ``keep`` and ``add_step``) leaves the loader as the general read of the same line does: the same records,
    steps, step records, lines, steps touched, timestamps and warnings, among unknown and end records."""
    records: list[dict[str, Any]] = [{"type": "run", "format": "agentrender.run/1", "run_id": "r"}, *steps]
    for at, other in others:
        records.insert(1 + min(at, len(records) - 1), other)
    data = [_line(record) for record in records]
    assert _loaded_state(data, lines, quick=True) == _loaded_state(data, lines, quick=False)


_ANY_VALUE = st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.text(max_size=4), st.just([]), st.just({}))


def _mostly(valid: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """``valid``, and one time in five any value: a reply wrong in one place at most, most often."""
    return st.integers(0, 4).flatmap(lambda n: _ANY_VALUE if n == 0 else valid)


def _with_extra(block: dict[str, Any]) -> Any:
    """``block``, or it with a key its type does not have."""
    return st.one_of(st.just(block), st.just({**block, "citations": None}))


_REPLY_BLOCKS = st.one_of(
    st.fixed_dictionaries({"type": st.just("text"), "text": _mostly(st.text(max_size=8))}),
    st.fixed_dictionaries(
        {"type": st.just("tool_use"), "id": _mostly(st.just("tu_1")), "name": _mostly(st.just("bash"))},
        optional={"input": _mostly(st.just({"cmd": ["ls", {"a": 1}]})), "input_base64": st.just("AA==")},
    ),
    st.fixed_dictionaries(
        {"type": st.just("thinking"), "thinking": _mostly(st.text(max_size=5))},
        optional={"signature": _mostly(st.one_of(st.none(), st.just("sig")))},
    ),
    st.fixed_dictionaries({"type": st.just("redacted_thinking"), "data": _mostly(st.just("e30="))}),
    st.fixed_dictionaries(
        {"type": st.just("tool_result"), "tool_use_id": st.just("tu_1")},
        optional={"content": _mostly(st.just([{"type": "text", "text": "ok"}])), "is_error": _ANY_VALUE},
    ),
    st.fixed_dictionaries({"type": st.sampled_from(["server_tool_use", "", 3])}, optional={"x": _ANY_VALUE}),
).flatmap(_with_extra)


@st.composite
def _replies(draw: st.DrawFn) -> Any:
    """A reply as a model call records it: right, or wrong in a few places."""
    reply: dict[str, Any] = {"content": draw(_mostly(st.lists(_REPLY_BLOCKS, max_size=4)))}
    optional = {
        "type": st.just("message"),
        "role": st.just("assistant"),
        "stop_reason": st.sampled_from(["end_turn", "tool_use", None]),
        "usage": st.just({"input_tokens": 3, "output_tokens": 4}),
        "model": st.just("claude"),
        "id": st.just("msg_1"),
        "container": _ANY_VALUE,
    }
    for name, values in optional.items():
        if draw(st.booleans()):
            reply[name] = draw(_mostly(values))
    if draw(st.integers(0, 19)) == 0:
        del reply["content"]
    return reply if draw(st.integers(0, 19)) else draw(_ANY_VALUE)


@FAST
@given(st.lists(_replies(), min_size=1, max_size=3))
def test_a_model_call_read_quickly_loads_as_its_record_read_on_its_own(replies: list[dict[str, Any]]) -> None:
    """``load_run`` decodes a model call's reply with its blocks checked in the same pass (``CheckedReply``), and
    checks any other reply block by block; either way it loads what checking the record as a dict loads, or
    refuses the line with the same error."""
    records = [{"type": "run", "format": "agentrender.run/1", "run_id": "r"}]
    records += [{"type": "model_call", "step": 0, "latency_ms": 5, "response": reply} for reply in replies]
    loaded = _load(b"".join(json.dumps(record).encode() + b"\n" for record in records))
    try:
        one_by_one = read_records(records, path=loaded.path)
    except RunFileError as error:
        assert isinstance(loaded, RunFileError)
        assert (loaded.line, str(loaded).partition(": ")[2]) == (error.line, str(error).partition(": ")[2])
        return
    assert not isinstance(loaded, RunFileError), loaded
    assert list(loaded.records) == records
    for quick, slow in zip(loaded.model_calls, one_by_one.model_calls, strict=True):
        assert (quick.step, quick.line, quick.latency_ms, quick.stop_reason, quick.usage) == (
            slow.step,
            slow.line,
            slow.latency_ms,
            slow.stop_reason,
            slow.usage,
        )
        assert quick.response == slow.response


_COUNTS = st.sampled_from([0, 3, -1, 2**53 - 1, 2**53, 1.5, "7", None, True])


def _seldom(usual: st.SearchStrategy[Any], odd: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """``usual``, and one time in eight ``odd``."""
    return st.integers(0, 7).flatmap(lambda n: odd if n == 0 else usual)


@st.composite
def _imported_calls(draw: st.DrawFn) -> dict[str, Any]:
    """A model call record as an importer hands it over, its reply a right one: its step, latency, request key and
    token counts of every kind, most of them right, and now and then a field no model call has."""
    counts = st.dictionaries(
        st.sampled_from(["input_tokens", "output_tokens", "x"]), _seldom(st.integers(0, 9), _COUNTS)
    )
    reply: dict[str, Any] = {"type": "message", "role": "assistant", "content": [{"type": "text", "text": "hi"}]}
    usage = draw(st.one_of(st.none(), counts))
    if usage is not None or draw(st.booleans()):
        reply["usage"] = usage
    step = draw(_seldom(st.integers(0, 2), st.sampled_from([-1, "0", 2**60])))
    record: dict[str, Any] = {"type": "model_call", "step": step, "response": reply}
    for name, values in (
        ("latency_ms", _seldom(st.sampled_from([None, 5, 2.5, 2**53 - 1]), st.sampled_from([2**60, -(2**60), "5"]))),
        ("request_key", _seldom(st.sampled_from([None, "k"]), st.just(3))),
    ):
        if draw(st.booleans()):
            record[name] = draw(values)
    if draw(st.integers(0, 7)) == 0:
        record["odd"] = 1  # a field no model call has
    return record


@FAST
@given(
    st.lists(
        _seldom(
            _imported_calls(),
            st.sampled_from([{"type": "end", "status": "done"}, {"type": "note"}, {"type": "run", "run_id": "again"}]),
        ),
        max_size=8,
    ),
    _seldom(st.just(True), st.just(False)),
)
def test_an_importers_model_calls_load_together_as_each_read_on_its_own(records: list[Any], header: bool) -> None:
    """An importer's model calls whose replies it checked (``read_records(replies_checked=True)``) are loaded together
    in one conversion; what it gives is what loading each record on its own gives: the same error, or the same
    calls, records and warnings (in the same words, at the same lines)."""
    if header:
        records = [{"type": "run", "format": "agentrender.run/1", "run_id": "r"}, *records]
    lines = [10 * position + 7 for position in range(len(records))]
    try:
        one_by_one = read_records(records, path="x.jsonl", lines=lines)
    except RunFileError as error:
        with pytest.raises(RunFileError) as together:
            read_records(records, path="x.jsonl", lines=lines, replies_checked=True)
        assert (together.value.line, str(together.value)) == (error.line, str(error))
        return
    read = read_records(records, path="x.jsonl", lines=lines, replies_checked=True)
    assert list(read.records) == list(one_by_one.records) == records
    assert read.model_calls == one_by_one.model_calls
    assert [(call.line, call.stop_reason, call.usage) for call in read.model_calls] == [
        (call.line, call.stop_reason, call.usage) for call in one_by_one.model_calls
    ]
    assert read.warnings == one_by_one.warnings


@pytest.mark.parametrize("response", [["x"], "x", None])
def test_an_importers_model_call_whose_reply_is_no_object_is_refused_as_a_file_would_be(response: Any) -> None:
    """A reply taken as its maker checked it (``replies_checked=True``, not converted again) that is no object after
    all is refused as a run file's line holding it is, naming the record's line and ``$.response``."""
    reply = {"type": "message", "role": "assistant", "content": [{"type": "text", "text": "hi"}]}
    records = [
        {"type": "run", "format": "agentrender.run/1", "run_id": "r"},
        {"type": "model_call", "step": 0, "response": reply},
        {"type": "model_call", "step": 0, "response": response},
    ]
    with pytest.raises(RunFileError, match=r"^x\.jsonl:27: \$\.response: expected `object`, got `"):
        read_records(records, path="x.jsonl", lines=[7, 17, 27], replies_checked=True)


def _quick_calls(draw_reply: bool) -> st.SearchStrategy[dict[str, Any]]:
    """A model call record for a run file: an importer's (its reply right, its counts and latency now and then not),
    or, with ``draw_reply``, one whose reply is right or wrong in a few places (``_replies``)."""
    if not draw_reply:
        return _imported_calls()
    return _replies().map(lambda reply: {"type": "model_call", "step": 1, "latency_ms": 5, "response": reply})


def _recorded_again(first: dict[str, Any]) -> st.SearchStrategy[tuple[dict[str, Any], ...]]:
    """A step record and the same step recorded again, as a runtime records it when its tool answers (the same
    decision, an observation), or saying something else."""
    answered = {**first, "observation": {"status": "ok", "content": "done"}}
    return st.one_of(st.just((first, answered)), step_records(first["index"]).map(lambda again: (first, again)))


@FAST
@given(
    st.lists(
        st.one_of(
            st.integers(0, 3).flatmap(step_records).map(lambda record: (record,)),
            st.integers(0, 3).flatmap(step_records).flatmap(_recorded_again),
            _quick_calls(False).map(lambda record: (record,)),
            _quick_calls(True).map(lambda record: (record,)),
            _OTHER_RECORDS.map(lambda record: (record,)),
        ),
        max_size=6,
    ).map(lambda groups: [record for group in groups for record in group]),
    st.integers(1, 4),
)
def test_a_batch_read_quickly_loads_as_read_the_general_way(records: list[dict[str, Any]], lines: int) -> None:
    """A batch of lines read straight into their structs (``Loader.read_batch``, which holds a step new to the run
    and a model call whose reply was checked in its decode in its own loop) leaves the loader as the general read of
    the same lines does, in batches of 1 to 4 lines: the same records, steps, step records, lines, steps touched,
    timestamps, model calls and warnings, or the same error on the same line."""
    records = [{"type": "run", "format": "agentrender.run/1", "run_id": "r"}, *records]
    data = [_line(record) for record in records]
    assert _loaded_state(data, lines, quick=True) == _loaded_state(data, lines, quick=False)
