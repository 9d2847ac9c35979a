"""steps_frame and model_calls_frame: columns, dtypes and values, checked against a real render."""

from __future__ import annotations

import gc
import json
import random
import re
import subprocess
import sys
import tempfile
import textwrap
from collections import Counter
from itertools import pairwise
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agentrender import ContentBlock, Decision, ModelResponse, Observation, Step, render
from agentrender import frame as frame_module
from agentrender.frame import MODEL_CALL_COLUMNS, RUN_COLUMNS, STEP_COLUMNS, Column, model_calls_frame, steps_frame
from agentrender.runfile import ModelCall, Run, load_run, parse_timestamp, write_run
from agentrender.views import RESULT_KINDS, Views
from tests._support.examples import examples
from tests._support.steps import decisions, make_steps, observations, step_bodies

NA = pd.NA


def _call(step: int, stop: str, usage: dict[str, Any] | None, *blocks: dict[str, Any], **kw: Any) -> ModelCall:
    wire = {"id": f"msg_{step}_{stop}", "model": "claude-test", "content": list(blocks), "stop_reason": stop}
    if usage is not None:
        wire["usage"] = usage
    return ModelCall(step=step, response=ModelResponse.from_dict(wire), **kw)


def _every_case() -> Run:
    """A run with every decision kind, every status, undecided and unanswered steps."""
    calls = (("read_file", {"path": "a.py"}), ("write_file", {"path": "b.py", "text": "x"}))
    steps = [
        Step(
            index=0,
            decision=Decision(kind="tool_call", tool=calls[0][0], args=calls[0][1], reason="Look first."),
            observation=Observation(content="print('hi')\n", summary="read a.py (1 line)"),
        ),
        Step(
            index=1,
            decision=Decision(kind="tool_call", tool=calls[1][0], args=calls[1][1]),
            observation=Observation(status="error", content="permission denied", summary="write failed"),
        ),
        Step(index=2),
        Step(
            index=3,
            decision=Decision(kind="tool_call", tool="run_tests", args=None, reason="Run them."),
            observation=Observation(status="interrupted"),
        ),
        Step(
            index=4,
            decision=Decision(kind="no_tool_call", reason=""),
            observation=Observation(status="invalid_decision", summary="no tool call"),
        ),
        Step(
            index=5,
            decision=Decision(kind="truncated", reason="I was about to"),
            observation=Observation(status="invalid_decision", summary="truncated"),
        ),
        Step(
            index=6,
            decision=Decision(kind="tool_call", tool="write_file", invalid_args="{not json"),
            observation=Observation(status="invalid_decision", summary="arguments are not JSON."),
        ),
        Step(
            index=7,
            decision=Decision(kind="tool_call", tool="write_file", invalid_args="/w==", invalid_base64=True),
            observation=Observation(status="invalid_decision", summary="arguments are not UTF-8"),
        ),
        Step(index=8, decision=Decision(kind="complete", reason="done"), observation=Observation(content="ok")),
        Step(
            index=9,
            decision=Decision(kind="mystery", reason="?"),
            observation=Observation(status="invalid_decision", summary="unknown kind mystery"),
        ),
        Step(
            index=10,
            decision=Decision(kind="tool_call", tool="", args={}),
            observation=Observation(status="invalid_decision", summary="no tool named"),
        ),
        Step(index=11, decision=Decision(kind="tool_call", tool="search", args={"q": "héllo"})),
        Step(
            index=12,
            decision=Decision(kind="tool_call", tool="read_file", args=[1, 2.5, None], reason="é"),
            observation=Observation(content="héllo ✓", summary=""),
        ),
    ]
    model_calls = [
        _call(0, "max_tokens", {"input_tokens": 100, "output_tokens": 10}, {"type": "text", "text": "Look"}, line=3),
        _call(
            0,
            "tool_use",
            {"input_tokens": 120, "output_tokens": 12, "cache_read_input_tokens": 90},
            {"type": "text", "text": "Look first."},
            {"type": "tool_use", "id": "t0", "name": "read_file", "input": {"path": "a.py"}},
            latency_ms=812.5,
            request_key="k" * 64,
            line=4,
        ),
        _call(
            1,
            "tool_use",
            {"input_tokens": 200, "output_tokens": 20},
            {"type": "thinking", "thinking": "hmm", "signature": "sig"},
            {"type": "tool_use", "id": "t1", "name": "write_file", "input": {"path": "b.py", "text": "x"}},
            {"type": "tool_use", "id": "t2", "name": "delete_file", "input": {}},
            line=6,
        ),
        _call(4, "refusal", None, line=9),
    ]
    records = {
        0: {"type": "step", "index": 0, "started_at": "2026-11-29T10:00:00Z", "ended_at": "2026-11-29T10:00:01.250Z"},
        1: {"type": "step", "index": 1, "started_at": "2026-11-29T11:00:01+01:00"},
    }
    return Run(
        header={"type": "run", "run_id": "r-1", "goal": "Fix the test."},
        steps=steps,
        step_records=records,
        model_calls=model_calls,
    )


def _dtypes(columns: tuple[Column, ...]) -> list[tuple[str, str]]:
    return [(column.name, column.dtype) for column in columns]


def _frame_dtypes(frame: pd.DataFrame) -> list[tuple[str, str]]:
    return [(name, str(dtype)) for name, dtype in frame.dtypes.items()]


def test_step_columns_are_the_declared_table() -> None:
    """steps_frame has exactly the columns of STEP_COLUMNS, in order, each with its declared dtype."""
    frame = steps_frame(_every_case())
    assert _frame_dtypes(frame) == _dtypes(STEP_COLUMNS)
    assert len(frame) == 13


_ODD_USAGE_CALLS = st.sampled_from([["odd"], "odd", 3]).map(
    lambda usage: ModelCall(step=0, response=ModelResponse(content=(), stop_reason="end_turn", usage=usage))
)
"""Calls built in memory whose usage is no object: no count can be read off them."""
_PARTS = {"shown_type": st.sampled_from(["tool_result", "text", "tool_use", ""]) | st.text(max_size=12)}
_ODD_ARGS = st.sampled_from([{"a": 1 + 2j}, {"half": "\ud800"}, "\ud800", ["é", {"x": None}], "line\nbreak"])


@settings(max_examples=examples(100), deadline=None)
@given(data=st.data())
def test_a_column_computed_at_once_is_its_value_of_each_row(data: st.DataObject) -> None:
    """A column whose values are computed for all rows at once (Column.values) holds what its value gives for each
    row, for any fields: non-ASCII text, lone surrogates, arguments that are not JSON (the same error)."""
    for column in (c for c in (*STEP_COLUMNS, *MODEL_CALL_COLUMNS, *RUN_COLUMNS) if c.values is not None):
        assert column.value is not None
        owner, _, field = column.of.partition(".")
        if field:
            owners = data.draw(st.lists(_FIELD_OWNERS[owner], max_size=8))
            fields = [getattr(x, field) for x in owners]
        else:  # a part of the row as it is: the type of a block shown
            fields = data.draw(st.lists(_PARTS[owner], max_size=8))
        if field == "args":
            fields += data.draw(st.lists(_ODD_ARGS, max_size=2))
        try:
            expected: Any = [column.value(f) for f in fields]
        except Exception as error:  # the same error, computed either way
            expected = type(error)
        try:
            got: Any = column.values(fields)
        except Exception as error:
            got = type(error)
        assert got == expected, column.name


def _plain(frame: pd.DataFrame, name: str) -> list[Any]:
    """A column's values as Python values, ``None`` for a null."""
    column = frame[name].astype(object)
    return column.where(column.notna(), None).tolist()


@settings(max_examples=examples(100), deadline=None)
@given(bodies=step_bodies | st.lists(st.tuples(decisions, observations), max_size=14))
def test_a_column_of_a_steps_part_is_its_value_of_each_step(bodies: list[tuple[Any, Any]]) -> None:
    """Every step column read off the step, its decision or its observation (read a field at a time where every step
    has both, else together in one pass) holds what the column's value gives for that step's part, a step at a time;
    ``absent`` where the part is missing."""
    steps = make_steps(bodies)
    frame = steps_frame(Run(header={"goal": "g"}, steps=steps))
    for column in STEP_COLUMNS:
        part, _, field = column.of.partition(".")
        if column.value is None or part not in ("step", "decision", "observation"):
            continue
        owners = [step if part == "step" else getattr(step, part) for step in steps]
        expected = [
            column.absent if owner is None else column.value(getattr(owner, field) if field else owner)
            for owner in owners
        ]
        assert _plain(frame, column.name) == expected, column.name


def _by_pandas(column: Column, values: list[Any]) -> Any:
    """A column of ``values`` as pandas itself converts them: the route every value took before the frame made a
    column of one boolean, or of no value, whole."""
    if column.dtype == "category":
        from agentrender.frame import _categories

        labels = pd.Index(_categories(column, values), dtype=pd.StringDtype("python", na_value=float("nan")))
        return pd.Categorical(values, categories=labels)
    return pd.array(values, dtype=column.dtype)


_ONE_OR_MORE = st.lists(st.booleans(), min_size=1, max_size=6) | st.booleans().map(lambda b: [b] * 5)


@settings(max_examples=examples(150), deadline=None)
@given(
    values=_ONE_OR_MORE
    | st.lists(st.booleans() | st.none(), min_size=1, max_size=6)
    | st.lists(st.sampled_from([1, 0, 1.0, pd.NA]), min_size=1, max_size=4).map(lambda rest: [True, *rest]),
    nullable=st.booleans(),
)
def test_a_boolean_column_is_pandas_conversion_of_its_values(values: list[Any], nullable: bool) -> None:
    """A boolean column, whose values all one boolean are made whole, holds what pandas makes of its values (or
    refuses them alike): of one value, of both, with nulls, of numbers equal to a boolean, with pandas' NA."""
    from agentrender.frame import _array

    column = Column("b", "boolean" if nullable else "bool", "a test column", bool)
    try:
        expected: Any = pd.Series(_by_pandas(column, values)).tolist()
    except (TypeError, ValueError) as error:
        expected = type(error)
    try:
        got: Any = pd.Series(_array(pd, column, values)).tolist()
    except (TypeError, ValueError) as error:
        got = type(error)
    assert got == expected


_INTEGERS = st.integers(min_value=-(2**63), max_value=2**63 - 1) | st.sampled_from(
    [2**63, -(2**63) - 1, 2**64, True, False, np.int64(3), np.int32(-2), np.uint64(2**64 - 1), np.True_, 1.0, 0.5]
)
_NOT_INTEGERS = st.sampled_from([float("nan"), None, pd.NA, "3"])


@settings(max_examples=examples(150), deadline=None)
@given(
    values=st.lists(st.integers(min_value=-(2**63), max_value=2**63 - 1), min_size=1, max_size=6)
    | st.lists(_INTEGERS | _NOT_INTEGERS, min_size=1, max_size=4),
    nullable=st.booleans(),
)
@example(values=[1, 2.5], nullable=True)  # a fraction is refused, not cut to its integer
@example(values=[True, 2], nullable=False)
def test_an_integer_column_is_pandas_conversion_of_its_values(values: list[Any], nullable: bool) -> None:
    """An integer column, whose values all integers of int64 are read into an array at once, holds what pandas
    makes of its values (or refuses them alike): integers at and past int64's ends, booleans, NumPy scalars,
    numbers with or without a fraction, nulls, pandas' NA, texts."""
    from agentrender.frame import _array

    column = Column("n", "Int64" if nullable else "int64", "a test column", int)

    def outcome(make: Any) -> Any:
        try:
            return pd.Series(make()).tolist(), str(pd.Series(make()).dtype)
        except (TypeError, ValueError, OverflowError, RuntimeWarning) as error:
            return type(error)

    assert outcome(lambda: _array(pd, column, values)) == outcome(lambda: _by_pandas(column, values))


@settings(max_examples=examples(100), deadline=None)
@given(values=st.lists(st.none() | st.sampled_from(["ok", "error", "other", ""]), max_size=6))
def test_a_categorical_column_is_pandas_conversion_of_its_values(values: list[str | None]) -> None:
    """A categorical column, whose codes a column of no value makes whole, holds pandas' categorical of its values
    with the column's categories (those it offers, then the others seen, sorted)."""
    from agentrender.frame import _array

    column = Column("c", "category", "a test column", str, categories=("ok", "error"))
    got, expected = _array(pd, column, values), _by_pandas(column, values)
    assert list(got.categories) == list(expected.categories)
    assert got.codes.tolist() == expected.codes.tolist()


@settings(max_examples=examples(150), deadline=None)
@given(
    values=st.lists(
        st.none() | st.sampled_from([pd.NA, 0, False, "", float("nan"), (), "None"]) | st.builds(np.zeros, st.just(2)),
        max_size=6,
    )
)
def test_a_column_of_no_value_is_one_of_nones_only(values: list[Any]) -> None:
    """A column is taken for one of no value (its nulls made whole) exactly when each of its values is None, whatever
    the others are: pandas' NA (whose equality is no boolean), a NumPy array (whose equality is an array), falsy
    values."""
    from agentrender.frame import _no_value

    assert _no_value(values) is all(value is None for value in values)


_DTYPES = ["bool", "boolean", "int64", "Int64", "Float64", "string", "category", "datetime64[us, UTC]"]


@settings(max_examples=examples(200), deadline=None)
@given(
    dtype=st.sampled_from(_DTYPES),
    value=st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.sampled_from([1, 0, 1.0, 0.5, pd.NA, np.True_, np.int64(3), "ok", "error", "other", "", "\ud800"]),
    count=st.integers(min_value=0, max_value=4),
)
@example(dtype="Int64", value=2**63, count=1)  # refused alike: it was an OverflowError made whole, a TypeError listed
@example(dtype="int64", value=-(2**63) - 1, count=2)
def test_a_column_of_one_value_made_so_is_the_column_of_those_values(dtype: str, value: Any, count: int) -> None:
    """A column of one value made so (OneValue), whose array is made whole from its first value, is the array of the
    same values in a plain list (each looked at), or refused alike: nulls, booleans, numbers equal to a boolean,
    integers past int64, NumPy scalars, texts, pandas' NA, for every dtype."""
    from agentrender.frame import _array
    from agentrender.views import one_value

    column = Column("c", dtype, "a test column", str, categories=("ok", "error"))

    def outcome(values: list[Any]) -> Any:
        try:
            array = _array(pd, column, values)
        except (TypeError, ValueError, OverflowError) as error:
            return type(error)
        frame = pd.DataFrame({"c": pd.Series(array)})
        categories = list(array.categories) if dtype == "category" else None
        return str(frame["c"].dtype), _plain(frame, "c"), categories

    assert outcome(one_value(value, count)) == outcome([value] * count)


def test_every_real_fixtures_and_samples_frame_is_pandas_conversion_of_its_values() -> None:
    """Over every run of every real fixture and sample, each boolean and categorical column of the steps frame holds
    what pandas makes of the column's values, and the model calls and parallel tools are those of each step: the
    columns made whole (no model calls, no parallel tools, one boolean, no value) are the same values."""
    from agentrender import imports, samples
    from agentrender.frame import _step_lists
    from tests._support import real

    runs = [samples.load(name) for name in samples.names()]
    for entry in real.histories():
        runs += imports.load_runs(real.REAL / entry["path"])
    assert len(runs) > 30, "the real fixtures and samples are found"
    for run in runs:
        frame = steps_frame(run)
        lists = _step_lists(run, Views(run).at(None))
        for column in STEP_COLUMNS:
            if column.dtype in ("bool", "boolean", "category"):
                expected = pd.Series(_by_pandas(column, lists[column.name]), name=column.name)
                assert frame[column.name].equals(expected), (run.run_id, column.name)  # dtype, categories and values
        calls = Counter(call.step for call in run.model_calls)
        assert frame["model_calls"].tolist() == [calls[step.index] for step in run.steps], run.run_id
        parallel = run.parallel_tools()
        others = [json.dumps(parallel[s.index][1:]) if parallel.get(s.index) else None for s in run.steps]
        assert [None if o is None else json.dumps(json.loads(o)) for o in _plain(frame, "other_tools")] == others


def test_every_column_says_what_it_means() -> None:
    """Each declared column has a unique name, a meaning, and exactly one way of being computed."""
    for table in (STEP_COLUMNS, MODEL_CALL_COLUMNS, RUN_COLUMNS):
        names = [column.name for column in table]
        assert len(names) == len(set(names))
        for column in table:
            assert column.meaning.endswith("."), column.name
            assert (column.value is None) != (column.derive is None), column.name


def test_step_values_for_every_kind_and_status() -> None:
    """Kind, tool, status and the flags are read from each step verbatim, null where the record is silent."""
    frame = steps_frame(_every_case())
    assert frame["index"].tolist() == list(range(13))
    assert frame["kind"].astype(object).where(frame["kind"].notna(), None).tolist() == [
        "tool_call", "tool_call", None, "tool_call", "no_tool_call", "truncated", "tool_call",
        "tool_call", "complete", "mystery", "tool_call", "tool_call", "tool_call",
    ]  # fmt: skip
    assert list(frame["kind"].cat.categories) == ["tool_call", "complete", "truncated", "no_tool_call", "mystery"]
    assert list(frame["status"].cat.categories) == ["ok", "error", "invalid_decision", "interrupted"]
    assert (
        frame["tool"].isna().tolist()
        == [False, False, True, False, True, True] + [False] * 2 + [True] * 3 + [False] * 2
    )
    assert frame["status"].isna().tolist() == [False, False, True] + [False] * 8 + [True, False]
    assert frame["failed"].tolist() == [False, True, NA, False, True, True, True, True, False, True, True, NA, False]
    assert frame["interrupted"].tolist() == [False, False, NA, True] + [False] * 7 + [NA, False]
    assert frame["args"].tolist() == [
        '{"path":"a.py"}', '{"path":"b.py","text":"x"}', NA, NA, NA, NA, NA, NA, NA, NA, "{}", '{"q":"héllo"}',
        "[1,2.5,null]",
    ]  # fmt: skip
    assert frame["args_invalid"].tolist() == [False] * 2 + [NA] + [False] * 3 + [True, True] + [False] * 5
    assert frame["args_base64"].tolist() == [False] * 2 + [NA] + [False] * 4 + [True] + [False] * 5
    assert frame["invalid_args"].tolist()[6:8] == ["{not json", "/w=="]
    assert frame["reason_bytes"].tolist()[:5] == [11, 0, NA, 9, 0]
    assert frame["reason_bytes"].iloc[12] == 2
    assert frame["content_bytes"].iloc[12] == len("héllo ✓".encode())
    assert frame["summary_bytes"].tolist()[:4] == [18, 12, NA, 0]


def test_the_args_of_many_items_are_the_compact_json_of_the_whole() -> None:
    """An argument object of 25,001 keys, or an array of 25,001 items, is one compact JSON text in the args column."""
    import json

    many = {str(n): [n, "é\ud800"] for n in range(25_001)}
    items = list(range(25_001))
    steps = tuple(
        Step(index=n, decision=Decision(kind="tool_call", tool="t", args=args)) for n, args in enumerate((many, items))
    )
    compact = [json.dumps(args, ensure_ascii=False, separators=(",", ":")) for args in (many, items)]
    assert steps_frame(Run(header={"goal": "g"}, steps=steps))["args"].tolist() == compact


def test_render_facts_for_every_case() -> None:
    """rendered, position, tool_use_id, full and nudge say what the render showed for each step."""
    frame = steps_frame(_every_case())
    assert frame["rendered"].tolist() == [True, True, False] + [True] * 10
    assert frame["position"].tolist() == [0, 1, NA, *range(2, 12)]
    assert frame["tool_use_id"].tolist() == ["step_0", "step_1", NA] + [f"step_{i}" for i in range(3, 13)]
    # 12 rendered steps, a window of 6: the last six rendered ones, steps 7 to 12.
    assert frame["full"].tolist() == [False] * 7 + [True] * 6
    assert frame["nudge"].tolist() == [False] * 4 + [True, True, False, False, True, True, True, False, False]
    assert frame["shown_bytes"].iloc[12] == len("héllo ✓".encode())
    assert frame["shown_bytes"].iloc[0] == len("read a.py (1 line)")
    assert frame["shown_as"].astype(object).where(frame["shown_as"].notna(), None).tolist() == [
        "summary", "summary", None, "interrupted", "nudge_no_tool_call", "nudge_truncated", "nudge_invalid",
        "nudge_invalid", "nudge_no_tool_call", "nudge_invalid", "nudge_invalid", "interrupted", "result",
    ]  # fmt: skip
    assert list(frame["shown_as"].cat.categories) == list(RESULT_KINDS)
    # the two summaries hide the whole content; nothing else hides anything
    assert frame["hidden_bytes"].tolist() == [12, 17, NA] + [0] * 10


def test_shown_as_and_hidden_bytes_are_the_views_facts() -> None:
    """shown_as and hidden_bytes are what views says of each step's result block, a cut and a hook's block too."""
    run = _every_case()

    def observation(step: Step, tool_use_id: str, full: bool) -> ContentBlock | None:
        return ContentBlock(type="text", text="mine") if step.index == 1 else None

    options = run.options(recent_results=12, result_bytes=8, observation=observation)
    frame = steps_frame(run, options)
    facts = Views(run, options).at(None).steps
    assert frame["shown_as"].astype(object).where(frame["shown_as"].notna(), None).tolist() == [
        fact.result_block.kind if fact.result_block is not None else None for fact in facts
    ]
    assert frame["hidden_bytes"].tolist() == [
        fact.result_block.hidden_bytes if fact.result_block is not None else NA for fact in facts
    ]
    # step 0's 12-byte content is cut at 8 bytes, the mark's 3 included: 7 bytes unseen
    assert (frame["shown_as"].iloc[0], frame["hidden_bytes"].iloc[0]) == ("cut", 12 - 5)
    assert (frame["shown_as"].iloc[1], frame["hidden_bytes"].iloc[1], frame["nudge"].iloc[1]) == ("hook", 0, True)


def test_model_call_columns_of_a_step() -> None:
    """A step's stop reason and tokens are its last model call's; model_calls counts them all."""
    frame = steps_frame(_every_case())
    assert frame["model_calls"].tolist() == [2, 1, 0, 0, 1] + [0] * 8
    assert frame["stop_reason"].astype(object).tolist()[:2] == ["tool_use", "tool_use"]
    assert frame["stop_reason"].iloc[4] == "refusal"
    assert frame["stop_reason"].isna().sum() == 10
    assert frame["input_tokens"].tolist()[:5] == [120, 200, NA, NA, NA]
    assert frame["output_tokens"].tolist()[:2] == [12, 20]


_MAX_COUNT = 2**53 - 1
_USAGE_KEYS = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
_COUNTS = st.integers(min_value=0, max_value=_MAX_COUNT) | st.sampled_from([0, 7, -1, 2**53, 1.5, 2.0, True, "9", None])
_USAGES = st.none() | st.dictionaries(st.sampled_from(_USAGE_KEYS), _COUNTS, max_size=4)
_REPLY_BLOCKS = st.sampled_from(
    [
        {"type": "text", "text": "Look."},
        {"type": "text", "text": "héllo ✓"},
        {"type": "text", "text": ""},
        {"type": "tool_use", "id": "t", "name": "read_file", "input": {"path": "a.py"}},
        {"type": "thinking", "thinking": "hmm", "signature": "sig"},
        {"type": "redacted_thinking", "data": "xyz"},
    ]
)
_NO_KEY = object()


@st.composite
def _model_calls(draw: st.DrawFn, steps: int) -> ModelCall:
    """A call in memory for one of ``steps`` steps or a step past them (no step record): its reply's stop reason left
    out, null or given, its usage left out, null or of counts and values that are no count, any blocks; a latency,
    request key, line and tries of every shape."""
    wire: dict[str, Any] = {"content": draw(st.lists(_REPLY_BLOCKS, max_size=4))}
    for key, values in (
        ("stop_reason", st.sampled_from([_NO_KEY, None, "", "tool_use", "end_turn", "refusal", "pause_turn"])),
        ("usage", st.just(_NO_KEY) | _USAGES),
        ("id", st.sampled_from([_NO_KEY, None, "", "msg_1"])),
        ("model", st.sampled_from([_NO_KEY, None, "claude-test", "other"])),
    ):
        value = draw(values)
        if value is not _NO_KEY:
            wire[key] = value
    record: dict[str, Any] = {}
    tries = draw(st.sampled_from(["none", "timed", "untimed", "unknown"]))
    if tries == "timed":
        record["retried"] = [{"latency_ms": draw(st.sampled_from([5, 2.5, 2**60]))}]
    elif tries == "untimed":
        record["retried"] = [{}, {"latency_ms": 3}]
    elif tries == "unknown":
        record["tries_known"] = False
    step = draw(st.integers(min_value=0, max_value=steps + 1))
    if record:  # a call recorded with its tries: its record whole, as a recorder keeps it
        record.update(type="model_call", step=step, response={"type": "message", "role": "assistant", **wire})
    return ModelCall(
        step=step,
        response=ModelResponse.from_dict(wire),
        latency_ms=draw(st.sampled_from([None, 0, 812.5, 12, -3, 2**60])),
        request_key=draw(st.sampled_from(["", "k" * 64])),
        line=draw(st.sampled_from([0, 0, 3, 17])),
        record=record,
    )


_FIELD_OWNERS = {
    "decision": decisions,
    "observation": observations,
    "call": _model_calls(3) | _ODD_USAGE_CALLS,
    "reply": _model_calls(3).map(lambda call: call.response),
}
_PARTS["call"] = _model_calls(3)
"""What a column computed at once (``Column.values``) may be computed from: a field of a part, or a part as it is."""


def _count(usage: Any, key: str) -> Any:
    value = usage.get(key) if usage is not None else None
    return value if type(value) is int and 0 <= value <= _MAX_COUNT else None


def _plain_model_call(call: ModelCall) -> dict[str, Any]:
    """The row of ``model_calls_frame`` for ``call``, computed here a value at a time from the call's own fields."""
    latency = call.latency_ms
    blocks = call.response.content
    usage = call.usage
    return {
        "step": call.step,
        "line": call.line or None,
        "latency_ms": latency
        if type(latency) is float or (type(latency) is int and abs(latency) <= _MAX_COUNT)
        else None,
        "tries": len(call.retried) + 1 if call.tries_known else None,
        "retried_ms": call.retried_ms,
        "request_key": call.request_key or None,
        "response_id": call.response.id or None,
        "model": call.response.model or None,
        "stop_reason": call.stop_reason or None,
        **{key: _count(usage, key) for key in _USAGE_KEYS},
        "tool_uses": sum(block.type == "tool_use" for block in blocks),
        "text_bytes": sum(len(block.text.encode()) for block in blocks if block.type == "text"),
        "thinking": any(block.type in ("thinking", "redacted_thinking") for block in blocks),
    }


def _same_values(frame: pd.DataFrame, columns: tuple[Column, ...], expected: dict[str, list[Any]]) -> None:
    """``frame``'s columns of ``expected`` hold those values (NaN as a null), with their declared dtypes, and each
    categorical offers its declared categories, then the others its values hold, sorted."""
    assert _frame_dtypes(frame) == _dtypes(columns)
    declared = {column.name: column for column in columns}
    for name, values in expected.items():
        got = [None if value != value else value for value in _plain(frame, name)]  # a NaN latency is a null
        assert got == [None if value != value else value for value in values], name
        if declared[name].dtype == "category":
            seen = sorted({value for value in values if value is not None} - set(declared[name].categories))
            assert frame[name].cat.categories.tolist() == [*declared[name].categories, *seen], name


def _error_of(make: Any) -> tuple[type[BaseException], list[str]] | None:
    try:
        make()
    except Exception as error:
        return type(error), getattr(error, "__notes__", [])
    return None


@settings(max_examples=examples(150), deadline=None)
@given(data=st.data(), bodies=step_bodies, loaded=st.booleans())
def test_the_model_call_columns_are_each_calls_own_values(data: st.DataObject, bodies: list[Any], loaded: bool) -> None:
    """The model call columns of both frames hold, for each step (its last call: null where it has none) and each
    call, the values read off that call alone, with their dtypes and nulls: replies with and without a usage or a
    stop reason, counts that are no count, several calls a step, calls for a step the run does not hold, tries of
    every shape; for a run built in memory and the same run written and loaded. A usage that is no object is the same
    error either way, naming the column and the row."""
    steps = make_steps(bodies)
    calls = data.draw(st.lists(_model_calls(len(steps)), max_size=8))
    run = Run(header={"type": "run", "goal": "g"}, steps=steps, model_calls=calls)
    if loaded:
        with tempfile.TemporaryDirectory() as folder:
            write_run(run, Path(folder) / "run.jsonl")
            run = load_run(Path(folder) / "run.jsonl")
    calls = list(run.model_calls)
    last = {call.step: call for call in calls}
    counts = Counter(call.step for call in calls)
    owned = [last.get(step.index) for step in run.steps]
    expected = {
        "model_calls": [counts[step.index] for step in run.steps],
        "stop_reason": [None if call is None else call.stop_reason or None for call in owned],
        **{key: [None if call is None else _count(call.usage, key) for call in owned] for key in _USAGE_KEYS[:2]},
    }
    _same_values(steps_frame(run), STEP_COLUMNS, expected)
    rows = [_plain_model_call(call) for call in calls]
    _same_values(
        model_calls_frame(run), MODEL_CALL_COLUMNS, {c.name: [row[c.name] for row in rows] for c in MODEL_CALL_COLUMNS}
    )


@pytest.mark.parametrize("usage", [["odd"], "odd", 3])
def test_a_usage_that_is_no_object_names_the_column_and_the_row(usage: Any) -> None:
    """A call built in memory whose usage is no object cannot give its counts: the error names the first column
    that reads them and the row, in both frames."""
    calls = [
        _call(0, "tool_use", {"input_tokens": 1}),
        ModelCall(step=1, response=ModelResponse(content=(), stop_reason="end_turn", usage=usage)),
    ]
    run = Run(header={"goal": "g"}, steps=[Step(index=0), Step(index=1)], model_calls=calls)
    error = _error_of(lambda: steps_frame(run))
    assert error is not None and error[0] is AttributeError
    assert "computing column 'input_tokens' for step 1" in error[1]
    error = _error_of(lambda: model_calls_frame(run))
    assert error is not None and error[0] is AttributeError
    assert "computing column 'input_tokens' for model call 1 (step 1)" in error[1]


def test_a_loaded_run_gives_the_frames_of_the_run_it_was_written_from(tmp_path: Path) -> None:
    """steps_frame and model_calls_frame of a loaded run equal those of the run it was written from."""
    built = _every_case()
    write_run(built, tmp_path / "run.jsonl")
    loaded = load_run(tmp_path / "run.jsonl")
    calls = ["model_calls", "stop_reason", "input_tokens", "output_tokens"]
    pd.testing.assert_frame_equal(steps_frame(loaded)[calls], steps_frame(built)[calls])
    pd.testing.assert_frame_equal(
        model_calls_frame(loaded).drop(columns="line"), model_calls_frame(built).drop(columns="line")
    )


@pytest.mark.parametrize("frame", [steps_frame, model_calls_frame])
@pytest.mark.parametrize("as_path", [str, Path])
def test_a_path_given_for_a_run_is_refused_saying_how_to_read_it(frame: Any, as_path: Any) -> None:
    """A file's path given to steps_frame or model_calls_frame (which take a Run) is a TypeError naming the path and
    how to read it, not an AttributeError of a str."""
    from agentrender import samples

    path = as_path(samples.path("fix-failing-test"))
    table = frame.__name__.removesuffix("_frame")
    with pytest.raises(TypeError) as refused:
        frame(path)
    said = str(refused.value)
    assert said.startswith(f"{frame.__name__}: run is a Run, not a path ({str(path)!r})")
    assert "agentrender.load(path)" in said and f"table_frame(path, {table!r})" in said


def test_timestamps_and_duration() -> None:
    """started_at and ended_at are UTC datetimes from the step records; duration is their difference."""
    frame = steps_frame(_every_case())
    assert frame["started_at"].iloc[0] == pd.Timestamp("2026-11-29T10:00:00Z")
    assert frame["started_at"].iloc[1] == pd.Timestamp("2026-11-29T10:00:01Z")
    assert frame["duration"].iloc[0] == pd.Timedelta(milliseconds=1250)
    assert frame["duration"].isna().tolist() == [False] + [True] * 12


def test_model_calls_frame_values() -> None:
    """model_calls_frame gives one typed row per captured call, in file order."""
    frame = model_calls_frame(_every_case())
    assert _frame_dtypes(frame) == _dtypes(MODEL_CALL_COLUMNS)
    assert frame["step"].tolist() == [0, 0, 1, 4]
    assert frame["line"].tolist() == [3, 4, 6, 9]
    assert frame["latency_ms"].tolist() == [NA, 812.5, NA, NA]
    assert frame["request_key"].tolist() == [NA, "k" * 64, NA, NA]
    assert frame["stop_reason"].astype(object).tolist() == ["max_tokens", "tool_use", "tool_use", "refusal"]
    assert frame["input_tokens"].tolist() == [100, 120, 200, NA]
    assert frame["cache_read_input_tokens"].tolist() == [NA, 90, NA, NA]
    assert frame["tool_uses"].tolist() == [0, 1, 2, 0]
    assert frame["text_bytes"].tolist() == [4, 11, 0, 0]
    assert frame["thinking"].tolist() == [False, False, True, False]
    assert frame["model"].astype(object).tolist() == ["claude-test"] * 4


def test_empty_run() -> None:
    """A run with no steps and no calls gives empty frames that still have every column and dtype."""
    run = Run(header={"goal": "g"})
    steps = steps_frame(run)
    calls = model_calls_frame(run)
    assert len(steps) == 0 and len(calls) == 0
    assert _frame_dtypes(steps) == _dtypes(STEP_COLUMNS)
    assert _frame_dtypes(calls) == _dtypes(MODEL_CALL_COLUMNS)


def test_run_without_model_calls() -> None:
    """A scripted run (no captured calls) has null stop reasons and tokens and zero calls per step."""
    run = Run(header={"goal": "g"}, steps=_every_case().steps)
    frame = steps_frame(run)
    assert frame["model_calls"].eq(0).all()
    assert frame["stop_reason"].isna().all() and frame["input_tokens"].isna().all()
    assert len(model_calls_frame(run)) == 0


def test_a_run_of_undecided_steps_has_its_absent_values() -> None:
    """Where no step has a part (no decision, so the view shows none of them; no model call), each column of that
    part holds its absent value for every row: False for full and nudge, null for the others."""
    frame = steps_frame(Run(header={"goal": "g"}, steps=[Step(index=0), Step(index=1)]))
    assert frame["full"].tolist() == [False, False]
    assert frame["nudge"].tolist() == [False, False]
    assert frame["rendered"].tolist() == [False, False]
    for name in ("kind", "args_invalid", "status", "shown_as", "shown_bytes", "stop_reason", "input_tokens"):
        assert frame[name].isna().all(), name


def test_run_without_opening_still_has_its_facts() -> None:
    """A run whose header has no opening or goal gets the same render facts as one that has."""
    steps = _every_case().steps
    bare = steps_frame(Run(steps=steps))
    with_goal = steps_frame(Run(header={"goal": "Fix it."}, steps=steps))
    pd.testing.assert_frame_equal(bare, with_goal)


def test_options_hooks_decide_ids_and_window() -> None:
    """The frame follows the options given: their tool_use_id hook and their recent-results window."""
    run = _every_case()
    options = run.options(
        recent_results=2, tool_use_id=lambda step: f"toolu_{step.index:03d}" if step.index % 2 else ""
    )
    frame = steps_frame(run, options)
    assert frame["tool_use_id"].tolist()[:4] == ["step_0", "toolu_001", NA, "toolu_003"]
    assert frame["full"].tolist() == [False] * 11 + [True] * 2


def test_a_usage_count_that_is_not_a_count_reads_as_null() -> None:
    """A usage count that is not an integer from 0 to 2**53 - 1 (which the loader warns about) reads as null."""
    for odd in ("many", -1, 2**53, 1.5, True):
        run = Run(
            header={"goal": "g"}, steps=[Step(index=5)], model_calls=[_call(5, "tool_use", {"input_tokens": odd})]
        )
        assert steps_frame(run)["input_tokens"].isna().all()
        assert model_calls_frame(run)["input_tokens"].isna().all()


def test_bad_timestamp_names_the_step() -> None:
    """A timestamp that is not text is an error naming the column and step; text not ISO 8601 reads as NaT."""
    run = Run(header={"goal": "g"}, steps=[Step(index=0), Step(index=1)], step_records={1: {"ended_at": 1700000000}})
    with pytest.raises(ValueError, match=r"column 'ended_at' \(step 1: 1700000000\)"):
        steps_frame(run)
    run = Run(header={"goal": "g"}, steps=[Step(index=0), Step(index=1)], step_records={1: {"ended_at": "yesterday"}})
    assert steps_frame(run)["ended_at"].isna().all()


@pytest.mark.parametrize("odd", [b"2026-01-05T09:00:00Z", 1700000000, 17e8, ["2026-01-05T09:00:00Z"]])
def test_a_timestamp_that_is_no_text_beside_texts_names_its_step(odd: Any) -> None:
    """Where a run records both timestamps, read as one column of all their texts, a value of either that is not text
    (bytes too, which Arrow would read as text) is an error naming its column and step, as when read alone."""
    steps = [Step(index=i) for i in range(3)]
    at = "2026-01-05T09:00:00Z"
    records = {i: {"started_at": at, "ended_at": at} for i in range(3)}
    records[1]["ended_at"] = odd
    with pytest.raises(ValueError, match=rf"column 'ended_at' \(step 1: {re.escape(repr(odd))}\)"):
        steps_frame(Run(header={"goal": "g"}, steps=steps, step_records=records))


def test_args_of_no_value_are_null_wherever_they_stand() -> None:
    """A step that recorded no arguments has a null in the args column, first, last or between others; arguments
    that encode as JSON's null (a NaN) are that text."""
    args = [None, {"a": 1}, None, float("nan"), [None], None]
    steps = tuple(
        Step(index=n, decision=Decision(kind="tool_call", tool="t", args=value)) for n, value in enumerate(args)
    )
    frame = steps_frame(Run(header={"goal": "g"}, steps=steps))
    assert _plain(frame, "args") == [None, '{"a":1}', None, "null", "[null]", None]
    for kept, expected in (
        (slice(0, 2), [None, '{"a":1}']),
        (slice(1, 3), ['{"a":1}', None]),
        (slice(1, 2), ['{"a":1}']),
    ):
        assert _plain(steps_frame(Run(header={"goal": "g"}, steps=steps[kept])), "args") == expected


def _two(valid: int, high: int, low: int = 0) -> st.SearchStrategy[str]:
    """Two digits: from ``low`` to ``valid`` (a field's own range) half the time, else from 0 to ``high``."""
    inside = st.integers(min_value=low, max_value=valid)
    return st.one_of(inside, st.integers(min_value=0, max_value=high)).map(lambda n: f"{n:02d}")


# Timestamps of the loader's definition, and texts a digit or a letter away: every date and time
# field over its range and past it, fractions of 1 to 9 digits, offsets of a day or more.
_TIMESTAMPS = st.builds(
    lambda year, month, day, time, offset: f"{year}-{month}-{day}{time}{offset if time else ''}",
    st.sampled_from(["0000", "0001", "1600", "1677", "1969", "2026", "2262", "2263", "9999"]),
    _two(12, 13, low=1),
    _two(28, 32, low=1),
    st.one_of(
        st.just(""),
        st.builds(
            lambda hour, minute, second, fraction: f"T{hour}:{minute}{second}{fraction if second else ''}",
            _two(23, 25),
            _two(59, 61),
            st.one_of(st.just(""), _two(59, 61).map(lambda s: f":{s}")),
            st.one_of(st.just(""), st.integers(min_value=1, max_value=9).map(lambda n: "." + "9" * n)),
        ),
    ),
    st.one_of(
        st.just(""),
        st.just("Z"),
        st.builds(lambda sign, h, m: f"{sign}{h}:{m}", st.sampled_from("+-"), _two(23, 99), _two(59, 99)),
    ),
)


@settings(max_examples=examples(150), deadline=None)
@given(
    st.one_of(
        st.lists(st.one_of(st.none(), _TIMESTAMPS), min_size=1, max_size=6),
        st.lists(
            st.one_of(
                st.none(),
                st.sampled_from(
                    # the last: year 1 in its own offset, year 0 in UTC (the loader reads no time)
                    ["2026-01-05t09:00:00z", "2026-01-05 09:00", "soon", "2026", "0001-01-01T00:00+00:01"]
                ),
                _TIMESTAMPS,
            ),
            min_size=1,
            max_size=12,
        ),
    )
)
@example(["0001-01-01T00:00+00:01", "2026-01-05T09:00:00Z"])
@example(["9999-12-31T23:59:59-01:00", "2026-01-05T09:00:00Z"])  # read by Arrow past the last year datetime holds
def test_a_timestamp_column_is_parse_timestamp_of_each_text(texts: list[str | None]) -> None:
    """Each timestamp is the instant parse_timestamp reads (the loader's definition), NaT where it reads none: with
    the step's end read alone (a run that records none) and together with its start (one that records both)."""
    steps = [Step(index=i) for i in range(len(texts))]
    ends = texts[::-1]
    for recorded in ({"started_at": texts}, {"started_at": texts, "ended_at": ends}):
        records = {i: {name: values[i] for name, values in recorded.items()} for i in range(len(texts))}
        frame = steps_frame(Run(header={"goal": "g"}, steps=steps, step_records=records))
        for name, values in (
            ("started_at", texts),
            ("ended_at", ends if "ended_at" in recorded else [None] * len(ends)),
        ):
            expected = [None if text is None else parse_timestamp(text) for text in values]
            assert frame[name].dtype == "datetime64[us, UTC]"
            assert [None if pd.isna(value) else value.to_pydatetime() for value in frame[name]] == expected


def _shaped_by_re2(texts: list[str | None]) -> bool:
    """Whether RE2 finds each text of the forms ``frame._ISO_TIMESTAMP``, of a year other than 0 (``_iso_times``)."""
    column = pa.array(texts, pa.string())
    return not (
        pc.match_substring_regex(column, frame_module._ISO_TIMESTAMP).false_count
        or pc.starts_with(column, "0000").true_count
    )


@settings(max_examples=examples(100), deadline=None)
@given(
    stretches=st.lists(
        st.tuples(
            _TIMESTAMPS,
            st.integers(min_value=1, max_value=6000),
            st.lists(st.tuples(st.integers(min_value=0), st.integers(min_value=0), st.sampled_from("09:-T.Z+ /é\n"))),
        ),
        min_size=1,
        max_size=4,
    ),
    holes=st.lists(st.tuples(st.integers(min_value=0), st.sampled_from([None, ""])), max_size=3),
    seed=st.integers(min_value=0, max_value=2**32),
)
# 3,276 texts of 20 bytes a block: a character changed in the last text of the first block, in the first of the next
@example([("2026-01-05T09:00:16Z", 4000, [(3275, 19, "/")])], [], 0)
@example([("2026-01-05T09:00:16Z", 4000, [(3276, 3, ":")])], [], 0)
@example([("2026-01-05", 3, [(2, 0, "0"), (2, 1, "0"), (2, 2, "0"), (2, 3, "0")])], [], 0)  # year 0
@example([("2026-01-05", 3, [])], [(1, None), (1, "")], 0)  # a null, and an empty text
def test_times_told_alike_are_those_re2_finds_of_the_timestamp_forms(
    stretches: list[tuple[str, int, list[tuple[int, int, str]]]],
    holes: list[tuple[int, str | None]],
    seed: int,
) -> None:
    """frame._shaped_alike, which compares a column's texts with the first of each stretch of one length, says yes
    only where RE2 finds every text of the forms (with a character changed anywhere, at a block's edges, nulls and
    empty texts among them, a year 0), and says yes to stretches of times each written as the one before (its
    digits any)."""
    digits = random.Random(seed)  # each text's digits drawn here: hypothesis drawing each would be too much to shrink
    texts: list[str | None] = []
    changed = False
    for base, count, changes in stretches:
        stretch = [
            "".join(digits.choice("0123456789") if char.isdigit() else char for char in base) for _ in range(count)
        ]
        for row, position, char in changes:
            text = stretch[row % count]
            at = position % len(text)
            stretch[row % count] = text[:at] + char + text[at + 1 :]
            changed = True
        texts.extend(stretch)
    for row, hole in holes:
        texts.insert(row % (len(texts) + 1), hole)
    alike = frame_module._shaped_alike(pa.array(texts, pa.string()))
    assert not alike or _shaped_by_re2(texts)
    forms = [re.sub("[0-9]", "0", base) for base, _, _ in stretches]
    one_form_a_length = all(len(a) != len(b) or a == b for a, b in pairwise(forms))
    if not changed and None not in texts and "" not in texts and one_form_a_length and _shaped_by_re2(texts):
        assert alike


# ------------------------------------------------------------ full against a real render


def _plain_calls(shape: list[bool]) -> list[Step]:
    """Steps that call a tool (True) or have no decision (False); content and summary differ."""
    return [
        Step(
            index=i,
            decision=Decision(kind="tool_call", tool="read_file", args={"i": i}),
            observation=Observation(status="error" if i % 5 == 0 else "ok", content=f"content {i}", summary=f"sum {i}"),
        )
        if decided
        else Step(index=i)
        for i, decided in enumerate(shape)
    ]


def _shown_results(conversation: list[Any]) -> dict[str, str]:
    """What each tool_result block of a rendered conversation showed, by the id it answers."""
    return {
        block.tool_use_id: block.content
        for message in conversation
        for block in message.content
        if block.type == "tool_result"
    }


@settings(max_examples=examples(60), deadline=None)
@given(shape=st.lists(st.booleans(), max_size=20), window=st.integers(min_value=0, max_value=8))
def test_full_is_what_the_render_shows(shape: list[bool], window: int) -> None:
    """For any run and window, a step is full exactly when render.messages showed its content, not its summary."""
    run = Run(header={"goal": "g"}, steps=_plain_calls(shape))
    options = run.options(recent_results=window)
    frame = steps_frame(run, options)
    shown = _shown_results(render.messages(run.step_input(), options))
    assert set(frame.loc[frame["rendered"], "tool_use_id"]) == set(shown)
    for row in frame.itertuples(index=False):
        if row.rendered:
            assert shown[row.tool_use_id] in (f"content {row.index}", f"sum {row.index}")
            assert row.full == (shown[row.tool_use_id] == f"content {row.index}")
            assert row.shown_bytes == len(shown[row.tool_use_id])
        else:
            assert not row.full and f"step_{row.index}" not in shown


def test_full_matches_the_render_of_every_case() -> None:
    """On the every-case run, each full call step's rendered result is its content and the others' is not."""
    run = _every_case()
    frame = steps_frame(run)
    shown = _shown_results(render.messages(run.step_input(), run.options()))
    for i in (0, 1, 12):
        content = run.steps[i].observation.content  # type: ignore[union-attr]
        assert (shown[f"step_{i}"] == content) == frame["full"].iloc[i]


def test_observation_hook_is_kept() -> None:
    """A consumer's observation hook still answers the steps it knows; the frame shows what it returned."""
    run = Run(header={"goal": "g"}, steps=_plain_calls([True, True, True]))

    def observation(step: Step, tool_use_id: str, full: bool) -> ContentBlock | None:
        if step.index != 1:
            return None
        return ContentBlock(type="tool_result", tool_use_id=tool_use_id, content="custom!" * 3)

    frame = steps_frame(run, run.options(observation=observation))
    assert frame["shown_bytes"].tolist() == [len("content 0"), 21, len("content 2")]


# ---------------------------------------------------------------------- without pandas

_BLOCK = """
import importlib.abc, sys
class Missing(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == {name!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None
sys.meta_path.insert(0, Missing())
"""


def _without(package: str, code: str) -> subprocess.CompletedProcess[str]:
    script = _BLOCK.format(name=package) + textwrap.dedent(code)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)


@pytest.mark.slow
def test_missing_pandas_says_how_to_install() -> None:
    """Without pandas the module imports, its tables read, and a frame call names the exact pip line."""
    out = _without(
        "pandas",
        """
        import agentrender.frame as frame
        from agentrender.runfile import Run
        print(len(frame.STEP_COLUMNS))
        try:
            frame.steps_frame(Run(header={"goal": "g"}))
        except ImportError as error:
            print(error)
        """,
    )
    assert out.returncode == 0, out.stderr
    count, message = out.stdout.splitlines()
    assert int(count) == len(STEP_COLUMNS)
    assert message == "agentrender.frame needs pandas, which is not installed: pip install 'agentrender[frame]'"


@pytest.mark.slow
def test_missing_tqdm_says_how_to_install() -> None:
    """Without tqdm, runs_frame names the same pip line."""
    out = _without(
        "tqdm",
        """
        import agentrender.frame as frame
        try:
            frame.runs_frame([], progress=False)
        except ImportError as error:
            print(error)
        """,
    )
    assert out.returncode == 0, out.stderr
    assert (
        out.stdout.strip() == "agentrender.frame needs tqdm, which is not installed: pip install 'agentrender[frame]'"
    )


@pytest.mark.slow
def test_importing_the_module_loads_neither_pandas_nor_tqdm() -> None:
    """agentrender.frame and agentrender.views import only the stdlib until a frame is built (workers stay light)."""
    code = "import sys, agentrender.frame; print(sorted({'pandas', 'tqdm', 'numpy'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_steps_frame_of_views_already_made_renders_no_step_again() -> None:
    """Given the Views of the run, steps_frame reads their facts: the same frame, and no step rendered twice."""
    from tests._support.runs import long_run

    run = long_run(30)
    rendered: list[tuple[int, bool]] = []

    def counting(step: Step, tool_use_id: str, full: bool) -> ContentBlock | None:
        rendered.append((step.index, full))
        return None  # the default observation

    views = Views(run, run.options(observation=counting, recent_results=3))
    views.at(None).steps  # noqa: B018  # what a widget showing the last view has already rendered
    before = len(rendered)
    frame = steps_frame(run, views=views)
    assert len(rendered) == before and len(set(rendered)) == len(rendered)
    pd.testing.assert_frame_equal(frame, steps_frame(run, views.options))
    with pytest.raises(ValueError, match="same run, and come without options"):
        steps_frame(run, views.options, views=views)
    with pytest.raises(ValueError, match="same run"):
        steps_frame(long_run(3), views=views)


def test_a_value_no_column_can_compute_names_the_column_and_the_step() -> None:
    """An exception while computing a column carries a note naming the column and the first step it failed on."""
    steps = (
        Step(index=0, decision=Decision(kind="tool_call", tool="t", args={"a": 1})),
        Step(index=1, decision=Decision(kind="tool_call", tool="t", args={"a": 1 + 2j})),  # no JSON for a complex
    )
    run = Run(header={"type": "run", "opening": "Go."}, steps=steps)
    with pytest.raises(TypeError) as raised:
        steps_frame(run)
    assert "computing column 'args' for step 1" in raised.value.__notes__


def test_a_slice_of_the_steps_frame_has_the_rows_of_the_whole_frame() -> None:
    """``steps_frame(run, rows=slice)`` holds exactly those rows of the whole frame, each value the same,
    wherever the slice falls (inside the window or not, with calls or without); a strided slice is refused."""
    run = _every_case()
    whole = steps_frame(run)
    n = len(run.steps)
    for start, stop in [(0, 3), (2, 9), (n - 4, n), (n - 1, n + 5), (0, n), (5, 5)]:
        part = steps_frame(run, rows=slice(start, stop))
        expected = whole.iloc[start:stop].reset_index(drop=True)
        assert list(part.columns) == list(whole.columns)
        assert part.astype(object).equals(expected.astype(object)), (start, stop)
    views = Views(run)
    assert (
        steps_frame(run, views=views, rows=slice(1, 4))
        .astype(object)
        .equals(whole.iloc[1:4].reset_index(drop=True).astype(object))
    )
    with pytest.raises(ValueError, match="consecutive steps"):
        steps_frame(run, rows=slice(0, n, 2))


@pytest.mark.parametrize("name", ["stock-lookup.calls.jsonl", "largest-city-thinking.json"])
def test_a_slice_past_the_last_step_of_a_conversation_that_ended_as_sent_is_empty(name: str) -> None:
    """An imported conversation ends on a reply nothing answered, which its frame says so; a slice of its rows that
    starts at or past its end holds none of them, and one that takes in its last step holds that step's row, as the
    whole frame has it. A slice with no decided step raised ``ValueError: max() arg is an empty sequence``."""
    from agentrender import load

    run = load(Path(__file__).resolve().parents[1] / "sample_imports" / name)
    assert not isinstance(run, list)
    whole, n = steps_frame(run), len(run.steps)
    assert whole["ended"].iloc[-1]
    for start, stop in [(n, n + 50), (n + 5, n + 50), (n - 1, n + 5), (0, n + 50)]:
        part = steps_frame(run, rows=slice(start, stop))
        assert list(part.columns) == list(whole.columns)
        expected = whole.iloc[start:stop].reset_index(drop=True)
        assert part.astype(object).equals(expected.astype(object)), (start, stop)


@settings(max_examples=examples(100), deadline=None)
@given(
    shown=st.lists(
        st.tuples(st.none() | st.sampled_from(RESULT_KINDS), st.none() | st.sampled_from(["tool_result", "text", ""])),
        max_size=8,
    ),
    answered=st.booleans(),
)
def test_the_nudge_column_is_the_rule_of_each_step(shown: list[tuple[str | None, str | None]], answered: bool) -> None:
    """The nudge column, made whole where every step's block is a tool_result (no step nudged), is the rule of each
    step: a block that is no tool_result and not shown as sent, where the view has a user turn for the step."""
    from agentrender.frame import _nudges

    if answered:  # every step answered by a result, the usual run
        shown = [(kind, "tool_result") for kind, _ in shown]
    kinds, types = [kind for kind, _ in shown], [kind for _, kind in shown]
    expected = [kind is not None and kind != "as_sent" and shape != "tool_result" for kind, shape in shown]
    assert _nudges(kinds, types) == expected


def test_a_user_s_next_prompt_shown_as_sent_is_no_nudge() -> None:
    """An imported conversation of two prompts: the final answer's step is answered by the user's next prompt
    (shown_as as_sent, a text block, as sent and under the contract's options alike), which is not the render's nudge
    (nudge was True); the contract's own text nudges stay True (test_render_facts_for_every_case)."""
    from agentrender.imports import from_anthropic

    use = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"path": "a.py"}}
    again = {**use, "id": "toolu_2"}
    run = from_anthropic(
        {
            "model": "m",
            "messages": [
                {"role": "user", "content": "Read a.py."},
                {"role": "assistant", "content": [use]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "x = 1"}]},
                {"role": "assistant", "content": [{"type": "text", "text": "It sets x."}]},
                {"role": "user", "content": "Now read it again."},
                {"role": "assistant", "content": [again]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_2", "content": "x = 1"}]},
            ],
        }
    )
    sent = steps_frame(run)
    assert sent["kind"].tolist() == ["tool_call", "no_tool_call", "tool_call"]
    assert sent["shown_as"].tolist() == ["as_sent"] * 3 and sent["nudge"].tolist() == [False] * 3
    contract = steps_frame(run, run.options(recent_results=5))  # the user's prompt is theirs under the contract too
    assert contract["shown_as"].tolist() == ["result", "as_sent", "result"]
    assert contract["nudge"].tolist() == [False] * 3


def test_no_list_of_a_columns_values_is_alive_while_the_frame_is_made(monkeypatch: pytest.MonkeyPatch) -> None:
    """When pandas makes the steps frame, no list of a column's texts (the columns' values, the view's) is still
    alive beside the arrays for the collector's passes there to walk (13 ms of a 20,000-step frame, now 1)."""
    decided = Decision(kind="tool_call", tool="read_file", args={"path": "a.py"})
    steps = [
        Step(
            index=i,
            decision=msgspec.structs.replace(decided, reason=f"step {i}"),
            observation=Observation(content="x" * i),
        )
        for i in range(317)  # no list of this length is alive but the frame's
    ]
    run = Run(header={"type": "run", "opening": "Go."}, steps=steps)
    alive: list[int] = []

    def texts_lists() -> list[list[Any]]:
        lists = (o for o in gc.get_objects() if type(o) is list and len(o) == len(run.steps))
        return [texts for texts in lists if all(type(text) is str for text in texts)]

    gc.collect()
    before = {id(texts) for texts in texts_lists()}  # another test's, left in this worker: not the frame's

    def counting(*args: Any, **kwargs: Any) -> pd.DataFrame:
        alive.extend(len(texts) for texts in texts_lists() if id(texts) not in before)
        return pd.DataFrame(*args, **kwargs)

    class Pandas:  # pandas, but for the frame's maker
        DataFrame = staticmethod(counting)

        def __getattr__(self, name: str) -> Any:
            return getattr(pd, name)

    require = frame_module.require
    monkeypatch.setattr(frame_module, "require", lambda *names: Pandas() if names[1] == "pandas" else require(*names))
    frame = steps_frame(run)
    monkeypatch.undo()
    pd.testing.assert_frame_equal(frame, steps_frame(run))
    assert alive == []


def test_a_call_the_sdk_retried_shows_its_tries_and_their_time(tmp_path: Path) -> None:
    """A recorded call that holds the tries the SDK made before its last has tries (1 and one a retry) and retried_ms
    (their time together) in model_calls_frame, read from a file or built in memory; a call whose tries have no time
    (an SDK without middleware) has its count and a null time."""
    overloaded = {"type": "OverloadedError", "message": "Overloaded", "status": 529}
    tries = [
        {"at_ms": 0.0, "latency_ms": 120.5, "error": overloaded},
        {"at_ms": 900.0, "latency_ms": 30, "error": {"type": "APIConnectionError", "message": "Connection error."}},
    ]
    reply = {"type": "message", "role": "assistant", "id": "msg_1", "model": "claude-test", "content": []}
    records = [
        {"type": "run", "format": "agentrender.run/1", "run_id": "retried", "goal": "g"},
        {"type": "model_call", "step": 0, "latency_ms": 2000, "response": {**reply, "stop_reason": "end_turn"}},
        {"type": "model_call", "step": 0, "latency_ms": 2000, "retried": tries, "response": reply},
        {"type": "model_call", "step": 0, "latency_ms": 2000, "retried": [{}, {}, {}], "response": reply},
    ]
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    run = load_run(path)
    assert run.warnings == ()
    built = [ModelCall(step=0, response=call.response, record=call.record) for call in run.model_calls]
    for calls in (model_calls_frame(run), model_calls_frame(Run(header=run.header, model_calls=built))):
        assert calls["tries"].tolist() == [1, 3, 4]
        assert calls["retried_ms"].tolist() == [0.0, 150.5, NA]


def test_a_try_whose_time_is_too_large_for_a_float_reads_as_null_with_a_warning(tmp_path: Path) -> None:
    """A recorded try whose latency no float holds makes its call's retried_ms null, with a warning naming it, where
    model_calls_frame failed with an OverflowError."""
    reply = {"type": "message", "role": "assistant", "id": "msg_1", "model": "claude-test", "content": []}
    records = [
        {"type": "run", "format": "agentrender.run/1", "run_id": "retried", "goal": "g"},
        {"type": "model_call", "step": 0, "retried": [{"latency_ms": 10**400}], "response": reply},
    ]
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    run = load_run(path)
    (warning,) = run.warnings
    assert (
        warning.line == 2 and "model_call.retried[0].latency_ms (an integer of 401 digits) is too large" in warning.text
    )
    calls = model_calls_frame(run)
    assert calls["tries"].tolist() == [2]
    assert calls["retried_ms"].tolist() == [NA]


def test_tools_kept_keeps_a_step_by_its_tool_by_a_tool_called_beside_it_or_as_none() -> None:
    """``tools_kept`` on a steps frame keeps a step whose reply called several tools for any of them, a step of one
    tool for it alone, and a step of no tool (no decision, no call, a call without a name) for ``none`` only."""
    from agentrender.frame import tools_kept
    from agentrender.imports import load
    from tests._support.real import REAL
    from tests._support.runs import every_kind_run

    parallel = steps_frame(load(REAL / "claude-code" / "marot-spotter" / "tool_heavy.jsonl"))
    assert list(parallel["other_tools"].fillna("")) == ["", "", '["Glob"]', '["WebFetch"]']
    for wanted, kept in (
        (["Glob"], [2]),
        (["WebFetch", "Bash"], [0, 1, 3]),
        (["WebSearch", "Read"], [2, 3]),
        (["none"], []),
    ):
        assert list(parallel["index"][tools_kept(parallel, wanted)]) == kept, wanted
    mixed = steps_frame(every_kind_run())
    for wanted, kept in ((["none"], [2, 3, 5, 9, 10, 13]), (["write_file", "search"], [4, 6, 12])):
        assert list(mixed["index"][tools_kept(mixed, wanted)]) == kept, wanted
    assert tools_kept(mixed.iloc[[]], ["none"]).empty
