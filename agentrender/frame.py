"""Runs as pandas frames: one row per step, per captured model call, or per run (a run file's one, or each of an
agent's history that ``agentrender.imports`` reads).

Every column is declared once, in ``STEP_COLUMNS``, ``MODEL_CALL_COLUMNS`` and
``RUN_COLUMNS``: its name, its dtype, what it means and how it is computed. The frames are
built from those tables and nothing else, so reading a table is reading the frame.

Columns use pandas' nullable dtypes (``Int64``, ``boolean``, ``string``, UTC datetimes)
and categoricals for the few-valued ones. A null means the record did not say: ``kind`` is
null for a step with no decision, ``status`` for a step with no observation. What the model
was shown (``rendered``, ``full``, ``nudge``, ``tool_use_id``, ``shown_as``, ``hidden_bytes``)
is read off the view after the last step (``agentrender.views``, the one source of these
facts for every instrument), never re-derived.

Needs the ``frame`` extra: ``pip install 'agentrender[frame]'``.
"""

from __future__ import annotations

import array
import contextlib
import hashlib
import json
import multiprocessing
import multiprocessing.context
import os
import re
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from itertools import accumulate, chain, pairwise, repeat
from operator import attrgetter, is_
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Final, NamedTuple, cast

import msgspec

from agentrender import render
from agentrender._display.said import warning_groups
from agentrender._extras import require
from agentrender._json import type_name
from agentrender._types import KINDS, STATUSES, ContentBlock, Decision, Observation, Step
from agentrender.imports import load_runs
from agentrender.imports.shapes import JSON_LOG_NAMES, is_json_log
from agentrender.runfile import ModelCall, Run, RunFileError, RunLink, RunLinks, RunWarning, parse_timestamp
from agentrender.runfile.lines import RUN_FILE_SUFFIXES, name_ends
from agentrender.runfile.schema import is_count, is_milliseconds
from agentrender.runfile.write import warning_record
from agentrender.views import (
    RESULT_KINDS,
    OneValue,
    StepsRead,
    View,
    Views,
    listed_kind,
    one_value,
    utf8_bytes,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "MODEL_CALL_COLUMNS",
    "PARQUET_TABLES",
    "RUN_COLUMNS",
    "RUN_FILE_SUFFIXES",
    "RUN_KEY_COLUMNS",
    "STEP_COLUMNS",
    "STEP_LEAD_COLUMNS",
    "Column",
    "NoRunFilesError",
    "ParquetExport",
    "arrow_schema",
    "distinct_paths",
    "kept_by_tool",
    "kinds_listed",
    "model_calls_frame",
    "other_tools",
    "run_files",
    "runs_frame",
    "source_id",
    "steps_frame",
    "table_frame",
    "to_parquet",
    "tools_kept",
]


@dataclass(frozen=True, slots=True)
class Column:
    """One column of a frame: its name, dtype and meaning, and how it is computed.

    ``value`` computes the column's value for one row, from the row's field ``of`` (or the
    whole row, or a field of that field: ``"decision.reason"``); where that field is ``None``
    the column holds ``absent``. A column computed from other columns of the frame sets
    ``derive`` instead.
    """

    name: str
    """The column's name in the frame."""
    dtype: str
    """The pandas dtype: ``Int64``, ``Float64``, ``boolean``, ``bool``, ``int64``, ``string``, ``category``, ..."""
    meaning: str
    """What the column says, in one sentence."""
    value: Callable[[Any], Any] | None = None
    """The value from one row's field ``of`` (``None`` for a null)."""
    derive: Callable[[dict[str, Any]], Any] | None = None
    """The column from the columns built before it, for a column computed from others."""
    of: str = ""
    """The field of the row type ``value`` is given (``"decision"``, ``"facts"``, ...), or a field of it
    (``"decision.reason"``: the column is ``absent`` where the decision is ``None``); ``""`` for the whole row."""
    absent: Any = None
    """The value when that field is ``None`` (no decision, not rendered, ...): null unless set."""
    categories: tuple[str, ...] = ()
    """For a categorical: the values it always offers, in this order; values seen besides follow, sorted."""
    values: Callable[[list[Any]], list[Any]] | None = None
    """``value`` of each of a list of fields at once, for a column where one call for all of them costs less than
    a call each: ``values(fields) == [value(field) for field in fields]``."""


_STOPS = (
    render.STOP_TOOL_USE,
    render.STOP_END_TURN,
    render.STOP_MAX_TOKENS,
    render.STOP_REFUSAL,
    render.STOP_CONTEXT_WINDOW_EXCEEDED,
)
_STARTED_BY = ("tool_use", "compaction")
_END_REASONS = ("completed", "repeated_tool_failures", "max_steps", "loop_detected", "interrupted", "agent_error")
_TIMESTAMP = "datetime64[us, UTC]"
_DURATION = "timedelta64[us]"
_TEXTS = "object"
"""The dtype of a column of lists of texts (a run's warnings): Python's lists of Python's strings."""


def _or_null(text: str) -> str | None:
    """``text``, or ``None`` for an empty one (or a line number of 0: no line)."""
    return text or None


def _or_nulls(texts: list[str]) -> list[str | None]:
    """``_or_null`` of each of ``texts``, without a call for each: a column of empty texts (no invalid arguments, the
    usual case) made whole, and one of texts none empty (every decision names its tool) is ``texts`` itself, where a
    copy cost 0.6 ms for 20,000 steps."""
    if not any(texts):
        return one_value(None, len(texts))
    if all(texts):
        return cast("list[str | None]", texts)  # read only, as every column's list is
    return [text or None for text in texts]


def _truths(texts: list[str]) -> list[bool]:
    """``bool`` of each of ``texts``: a column of empty texts (no invalid arguments, the usual case) made whole."""
    if not any(texts):
        return one_value(False, len(texts))
    return list(map(bool, texts))


def _nudges(kinds: list[str | None], block_types: list[str | None]) -> list[bool]:
    """Whether the render answered each step with a text nudge, from the kind (of ``views.BLOCK_KINDS``) and the type
    of the block its user turn showed for the step: a block that is no ``tool_result``, made by the contract or a
    hook; never a block shown as sent (``as_sent``), which the imported agent sent itself (after a final answer, the
    user's next prompt); ``False`` where the view has no user turn for the step (``None``)."""
    if set(block_types) == {"tool_result"}:  # every step answered by a result (most runs): no nudge, made whole
        return one_value(False, len(block_types))
    return [
        kind is not None and kind != "as_sent" and block_type != "tool_result"
        for kind, block_type in zip(kinds, block_types, strict=True)
    ]


def _failed(status: str) -> bool:
    """Whether an observation of ``status`` failed (``Observation.failed``)."""
    return Observation(status=status).failed


def _interrupted(status: str) -> bool:
    """Whether an observation of ``status`` was interrupted (``Observation.interrupted``)."""
    return Observation(status=status).interrupted


def _per_status(answer: Callable[[str], bool]) -> Callable[[list[str]], list[bool]]:
    """The ``Column.values`` of ``answer``: asked once for each status a column holds (a run has a few), where
    asking an observation for each step cost 2 ms a column at 20,000 steps."""

    def values(statuses: list[str]) -> list[bool]:
        answers = {status: answer(status) for status in set(statuses)}
        given = set(answers.values())
        if len(given) == 1:  # one answer for every status the run holds (none interrupted, say): made whole
            (only,) = given
            return one_value(only, len(statuses))
        return list(map(answers.__getitem__, statuses))

    return values


def _json_or_null(value: Any) -> str | None:
    """``value`` as compact JSON text (``_encode_json``); ``None`` for ``None``."""
    return None if value is None else _encode_json(value)


def _jsons_or_nulls(values: list[Any]) -> list[str | None]:
    """``_json_or_null`` of each of ``values``: encoded together, one line each, where every one of them can be."""
    try:
        encoded = _ENCODER.encode_lines(values)
    except UnicodeEncodeError:  # a lone surrogate, which _encode_json keeps: each encoded alone
        return list(map(_json_or_null, values))
    # compact JSON holds no line break (a text's is escaped), so each line is one value
    lines: list[Any] = encoded.decode().split("\n")
    # None is encoded as the line null: where no line is, no value is None, told by one search of the bytes (a look
    # at each value cost 0.5 ms for 20,000 steps, in a frame)
    if not (encoded.startswith(b"null\n") or b"\nnull\n" in encoded):
        del lines[len(values) :]  # the empty text after the last line break
        return lines
    return [None if value is None else line for value, line in zip(values, lines, strict=False)]


_ENCODER = msgspec.json.Encoder()


def _utf8_sizes(texts: list[str]) -> list[int]:
    """``utf8_bytes`` of each of ``texts``: when every one is ASCII (the usual case), their lengths, with no call of
    ours for each (2 ms against 4 for 20,000 results)."""
    if all(map(str.isascii, texts)):
        return list(map(len, texts))
    return list(map(utf8_bytes, texts))


def _encode_json(value: Any) -> str:
    """``value`` as compact JSON text, non-ASCII kept as it is."""
    try:
        return msgspec.json.encode(value).decode()
    except UnicodeEncodeError:
        # A lone surrogate ("\ud800", valid JSON), which UTF-8 cannot hold: kept in the text, as
        # every text column keeps it (a column that cannot hold it shows it escaped).
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _one(values: Callable[[list[Any]], list[Any]]) -> Callable[[Any], Any]:
    """The ``Column.value`` of a column whose rule is its ``values``: ``values`` of a list of one."""
    return lambda field: values([field])[0]


def _usage_counts(key: str) -> Callable[[list[Any]], list[Any]]:
    """The ``Column.values`` of the usage count ``key`` of each reply's ``usage``: null where the usage has none, or
    one that is not a count (which the loader reported: null here, as its warning says); each usage's count read by
    one comprehension and checked at once (``_kept``), where a call of ours for each cost 1 us a row."""

    def values(usages: list[Any]) -> list[Any]:
        return _kept(is_count, [None if usage is None else usage.get(key) for usage in usages])

    return values


def _usage_column(name: str, meaning: str) -> Column:
    """The column of the usage count ``name`` of each call's reply (``_usage_counts``)."""
    counts = _usage_counts(name)
    return Column(name, "Int64", meaning, _one(counts), of="call.usage", values=counts)


def _latencies(values: list[Any]) -> list[Any]:
    """Each call's latency as the frames read it (``is_milliseconds``): null for one they cannot."""
    return _kept(is_milliseconds, values, frozenset({float}))


def _kept(test: Callable[[Any], bool], values: list[Any], whole: frozenset[type] = frozenset()) -> list[Any]:
    """``value if test(value) else None`` for each of ``values``, where ``test`` (``is_count``, ``is_milliseconds``)
    passes an integer in a range and each value of the types ``whole``: where every value is ``None``, an integer or
    of those types and the least and greatest integer pass, ``values`` as they are, with no call for each."""
    types = set(map(type, values))
    if types <= {type(None), int, *whole}:
        ints = values if types == {int} else [value for value in values if type(value) is int]
        if not ints or (test(min(ints)) and test(max(ints))):
            return values
    return [value if test(value) else None for value in values]


# ---------------------------------------------------------------------------- steps


def _itself(value: Any) -> Any:
    """The value of a column that is its part as it is."""
    return value


_STEP_PARTS = (
    "step",
    "inherited",
    "decision",
    "observation",
    "started_at",
    "ended_at",
    "rendered",
    "position",
    "tool_use_id",
    "full",
    "ended",
    "prefill",
    "in_view",
    "shown_as",
    "nudge",
    "shown_bytes",
    "hidden_bytes",
    "call",
    "calls",
    "compaction",
    "other_tools",
)
"""What a column of ``steps_frame`` is computed from, for one step (a ``Column``'s ``of``):

- ``step``, ``decision``, ``observation``: the step and its decision and observation (the fields of these the
  columns read are read with them, in one pass: ``_step_fields``);
- ``inherited``: whether the run holds the step but did not decide it (``Run.inherited_steps``);
- ``started_at``, ``ended_at``: the timestamps of the step's record in the run file, as it wrote them
  (``Run.step_times``; ``None`` for a step built in memory, or a record without one);
- ``rendered``, ``position``, ``tool_use_id``, ``full``, ``ended``, ``prefill``, ``in_view``: the step's facts in the
  view after the last step (``View.step_columns``); ``None`` (but ``rendered``, ``ended``, ``prefill`` and ``in_view``)
  when that view skips it; ``full`` is ``None`` too for a step that view does not hold (``in_view`` false: before the
  compaction it restarts from);
- ``shown_as``, ``shown_bytes``, ``hidden_bytes``: the kind, shown and hidden bytes of the ``BlockFact`` of the
  step's user turn in that view, what the model was shown for it (``View.result_columns``); ``None`` when the view
  has no user turn for the step (it skips the step, does not hold it, or ended on it);
- ``nudge``: whether that block is the render's text nudge (``_nudges``, from its kind and block type);
- ``call`` and ``calls``: the last model call made for the step, and how many were;
- ``compaction``: the compaction right before the step (its request was the first sent after it), in that view's terms;
- ``other_tools``: the tools the step's reply called besides its decision's, which its agent ran with it, as compact
  JSON (``Run.parallel_tools``); ``None`` for a step that called one.
"""


STEP_COLUMNS: tuple[Column, ...] = (
    Column("index", "int64", "The step's index in the run.", _itself, of="step.index"),
    Column("kind", "category", "The decision's kind.", _itself, of="decision.kind", categories=KINDS),
    Column(
        "tool",
        "category",
        "The tool the decision names; null when it names none.",
        _or_null,
        of="decision.tool",
        values=_or_nulls,
    ),
    Column(
        "other_tools",
        "string",
        "The tools the step's reply called besides the decision's (parallel tool uses, which its agent ran with it), "
        "in the order called, as a compact JSON array; null when it called one, or in a run whose agent runs a reply's "
        "first call alone (a run file's, under the contract).",
        _itself,
        of="other_tools",
    ),
    Column(
        "reason",
        "string",
        "The decision's reason text, as the run holds it: a reply that called several tools ends it with the "
        "contract's note '[K further tool call(s) not executed: ...]', also where its agent ran them all (an imported "
        "run's: other_tools lists them), which the tables of steps leave off (Views.reasons_said).",
        _itself,
        of="decision.reason",
    ),
    Column("reason_bytes", "Int64", "UTF-8 bytes of the reason.", utf8_bytes, of="decision.reason", values=_utf8_sizes),
    Column(
        "args",
        "string",
        "The decision's arguments as compact JSON text; null when it recorded none.",
        _json_or_null,
        of="decision.args",
        values=_jsons_or_nulls,
    ),
    Column(
        "args_invalid",
        "boolean",
        "True when the arguments were not JSON and are kept out of band in invalid_args.",
        bool,
        of="decision.invalid_args",
        values=_truths,
    ),
    Column(
        "args_base64",
        "boolean",
        "True when invalid_args is base64 because the raw arguments were not UTF-8.",
        _itself,
        of="decision.invalid_base64",
    ),
    Column(
        "invalid_args",
        "string",
        "The out-of-band arguments (text, or base64 of the raw bytes); null when there are none.",
        _or_null,
        of="decision.invalid_args",
        values=_or_nulls,
    ),
    Column("status", "category", "The observation's status.", _itself, of="observation.status", categories=STATUSES),
    Column(
        "failed",
        "boolean",
        "True when the observation is an error or an invalid decision (rendered with is_error).",
        _failed,
        of="observation.status",
        values=_per_status(_failed),
    ),
    Column(
        "interrupted",
        "boolean",
        "True when the process died while the tool ran, so the outcome is unknown.",
        _interrupted,
        of="observation.status",
        values=_per_status(_interrupted),
    ),
    Column(
        "content_bytes",
        "Int64",
        "UTF-8 bytes of the observation's content.",
        utf8_bytes,
        of="observation.content",
        values=_utf8_sizes,
    ),
    Column(
        "summary_bytes",
        "Int64",
        "UTF-8 bytes of the observation's summary.",
        utf8_bytes,
        of="observation.summary",
        values=_utf8_sizes,
    ),
    Column(
        "rendered",
        "bool",
        "True when the render showed the step (it has a decision); other steps take no place in the window.",
        _itself,
        of="rendered",
    ),
    Column(
        "position",
        "Int64",
        "The step's place among the rendered steps, from 0 (what the window counts).",
        _itself,
        of="position",
    ),
    Column(
        "tool_use_id",
        "string",
        "The id the render gave the step's tool_use block and result (the options' hook, else step_<index>).",
        _itself,
        of="tool_use_id",
    ),
    Column(
        "full",
        "bool",
        "True when the render showed the result in full: the step is inside the recent-results window.",
        _itself,
        of="full",
        absent=False,
    ),
    Column(
        "nudge",
        "bool",
        "True when the render answered the step with a text nudge instead of a tool_result (the contract's: shown_as "
        "nudge_no_tool_call, nudge_truncated or nudge_invalid; or a hook's text); false for a step shown as sent "
        "(shown_as as_sent): what an imported agent sent after it is its own, after a final answer the user's next "
        "prompt, not the render's nudge.",
        _itself,
        of="nudge",
        absent=False,
    ),
    Column(
        "shown_bytes",
        "Int64",
        "UTF-8 bytes of what the render's user turn showed for the step.",
        _itself,
        of="shown_bytes",
    ),
    Column(
        "shown_as",
        "category",
        "What the model was shown for the step (a key of views.BLOCK_KINDS): the result in full (result), "
        "cut at the cap (cut), its summary (summary), the stand-in for none its tool wrote (no_summary), a nudge "
        "(nudge_no_tool_call, nudge_truncated, nudge_invalid), the interrupted re-request (interrupted), a hook's "
        "block (hook), or the block an imported run sent, replayed as it was (as_sent); null when skipped or not in "
        "the view (in_view).",
        _itself,
        of="shown_as",
        categories=RESULT_KINDS,
    ),
    Column(
        "hidden_bytes",
        "Int64",
        "Bytes of the step's content the model was not shown: all of it for a summary, the rest past the cap "
        "for a cut result, else 0; null when skipped or not in the view (in_view).",
        _itself,
        of="hidden_bytes",
    ),
    Column(
        "ended",
        "bool",
        "True when, as sent, nothing answered the step's turn: the conversation ended on it (the model's reply, or a "
        "prefill the caller ended its last request with, as the run's warnings say), so the view has no user turn "
        "for it (shown_as is null; under the contract the contract's nudge or re-request shows instead).",
        _itself,
        of="ended",
    ),
    Column(
        "prefill",
        "bool",
        "True when the step's turn, the one the conversation ended on (ended), is a prefill no reply answered: the "
        "text the caller ended its last request with, for the model to go on from, not a decision of the model "
        "(its kind is then the kind the run recorded, no_tool_call; the displays call it views.PREFILL_SAID).",
        _itself,
        of="prefill",
    ),
    Column(
        "in_view",
        "bool",
        "True when the view after the last step holds the step; false (as sent) for a step before the compaction "
        "that view restarts from: the compaction's summary stands for it, so the model was shown nothing of it.",
        _itself,
        of="in_view",
    ),
    Column(
        "compaction",
        "string",
        "The trigger of a compaction right before the step (the step's request was the first sent after it; "
        "'compaction' when the source recorded none); null for the other steps.",
        lambda c: c.trigger or "compaction",
        of="compaction",
    ),
    Column(
        "compaction_bytes_before",
        "Int64",
        "For a step right after a compaction: bytes of the view deciding it as it would have been without the "
        "compaction (as sent; under the contract, the same as after).",
        attrgetter("bytes_before"),
        of="compaction",
    ),
    Column(
        "compaction_bytes_after",
        "Int64",
        "For a step right after a compaction: bytes of the view deciding it, which restarts with the summary.",
        attrgetter("bytes_after"),
        of="compaction",
    ),
    Column("started_at", _TIMESTAMP, "When the step started.", _itself, of="started_at"),
    Column("ended_at", _TIMESTAMP, "When the step ended.", _itself, of="ended_at"),
    Column(
        "duration", _DURATION, "ended_at - started_at.", derive=lambda built: built["ended_at"] - built["started_at"]
    ),
    Column("model_calls", "int64", "How many model calls were captured for the step.", _itself, of="calls"),
    Column(
        "stop_reason",
        "category",
        "The stop reason of the step's last model call.",
        _or_null,
        of="call.stop_reason",
        categories=_STOPS,
        values=_or_nulls,
    ),
    _usage_column(
        "input_tokens",
        "Input tokens of the step's last model call, as the provider reported them, counted as the Messages API "
        "counts them: those neither read from its prompt cache nor written to it (model_calls_frame has those).",
    ),
    _usage_column("output_tokens", "Output tokens of the step's last model call, as the provider reported them."),
    Column(
        "inherited",
        "bool",
        "Whether the run holds the step but did not decide it: a forked agent's run opens with the steps of the "
        "session it was forked from (Run.inherited_steps). Leave these out when counting over a session's runs.",
        _itself,
        of="inherited",
    ),
)
"""The columns of ``steps_frame``, in order."""

STEP_LEAD_COLUMNS: Final = ("index", "kind", "tool", "status", "shown_as", "content_bytes", "summary_bytes", "reason")
"""The columns of ``steps_frame`` a table of steps shows first, in this order: the step, its decision's kind and tool,
how its observation ended, what the model saw of its result (``shown_as``: in full, as its summary, ...), the bytes
of its content and of its summary, and the decision's reason. The CLI's ``agentrender steps`` shows these alone; the
notebook explorer's steps table leads with them, then every other column in the frame's order."""


def steps_frame(
    run: Run, options: render.Options | None = None, *, views: Views | None = None, rows: slice | None = None
) -> pd.DataFrame:
    """One row per step of ``run``, in index order, with the columns of ``STEP_COLUMNS``.

    What the model was shown (``rendered``, ``full``, ``nudge``, ``shown_as``, ...) are the
    facts of the view after the last step under ``options`` (default ``run.options()``):
    ``Views(run, options).at(None).steps``. A caller that holds ``Views`` of ``run`` already
    passes them as ``views`` (and no ``options``), so no step is rendered a second time.

    ``rows`` keeps the rows of the steps ``run.steps[rows]`` only (a page of the table), each
    with the values it has in the whole frame, and renders only those steps; a categorical
    column offers its declared categories and the values seen in those rows.
    """
    _refuse_path(run, "steps_frame", "steps")
    pandas = require("frame", "pandas")
    if views is not None and (options is not None or views.run is not run):
        raise ValueError("steps_frame: views must be of the same run, and come without options")
    view = views.at(None) if views is not None else _view(run, options if options is not None else run.options())
    lists = _step_lists(run, view, rows)
    del view  # a view made here is freed before the arrays are built: a collection there walks none of its lists
    steps = run.steps if rows is None else run.steps[rows]
    return _build(pandas, STEP_COLUMNS, lists, lambda i: f"step {steps[i].index}")


def kept_by_tool(tool: Any, others: Sequence[str], wanted: Collection[str]) -> bool:
    """Whether a filter of the steps table by the tools ``wanted`` keeps a step whose decision called ``tool`` (no
    tool, or a null: ``none`` keeps it) and whose reply of parallel tool uses called ``others`` beside it (the
    ``other_tools`` column, ``Run.parallel_tools``): it is kept for any of them, not only its first. The CLI's
    ``--tool`` (on the table and on each followed step) and the notebook explorer's tool filter keep by this rule."""
    return (tool if isinstance(tool, str) and tool else "none") in wanted or (
        bool(others) and not set(others).isdisjoint(wanted)  # no set made for a step of one tool: see tools_kept
    )


def other_tools(frame: pd.DataFrame) -> list[tuple[str, ...]]:
    """The ``other_tools`` column of a ``steps_frame`` (or of rows of one) read back: each row's tools called beside
    its decision's, as a tuple (as ``Run.parallel_tools`` gives them; the one empty tuple for a null: a step that
    called one tool, so a long run's rows cost no new object, see ``tools_kept``). The one reader of its JSON text."""
    return [_beside(text) for text in frame["other_tools"].tolist()]


def _beside(text: object) -> tuple[str, ...]:
    """A cell of the ``other_tools`` column read back (its JSON text; a null: no tools, the one empty tuple)."""
    return tuple(json.loads(text)) if isinstance(text, str) else ()


def tools_kept(frame: pd.DataFrame, wanted: Collection[str]) -> pd.Series:
    """``kept_by_tool`` of each row of a ``steps_frame``, by its ``tool`` and ``other_tools`` columns.

    It makes no object a row where the step called one tool (most rows): a new list or set each of 100,000 rows
    set off Python's garbage collector, which walked the whole loaded run again and again (a fifth of a second at
    each change of the explorer's tool filter). The columns are read as lists, not stepped through element by
    element."""
    pandas = require("frame", "pandas")
    pairs = zip(frame["tool"].tolist(), frame["other_tools"].tolist(), strict=True)
    kept = [kept_by_tool(tool, _beside(text), wanted) for tool, text in pairs]
    series: pd.Series = pandas.Series(kept, index=frame.index, dtype=bool)
    return series


def kinds_listed(frame: pd.DataFrame) -> pd.Series:
    """``views.listed_kind`` of each row of a ``steps_frame`` (or of rows of one), by its ``kind`` and ``prefill``
    columns: the kind every table of steps lists the row under and its kind filter keeps it by, a prefill's
    ``views.PREFILL_SAID`` where the frame's ``kind`` keeps the ``no_tool_call`` the run recorded (null: no decision).
    """
    kinds: pd.Series = frame["kind"].astype("object")
    prefill = frame["prefill"].to_numpy(dtype=bool) & kinds.notna().to_numpy()
    if prefill.any():  # the few rows listed otherwise than by the kind they hold (a table of many steps: read once)
        kinds = kinds.copy()
        kinds[prefill] = [listed_kind(str(kind), prefill=True) for kind in kinds[prefill]]
    return kinds


def _step_lists(run: Run, view: View, kept: slice | None = None) -> dict[str, list[Any]]:
    """Each computed column of ``steps_frame`` as a list (of the steps ``kept``, or all)."""
    parts, made, held = _step_parts(run, view, kept)
    return _lists(STEP_COLUMNS, parts, _step_label(parts["step"]), made, held)


def _step_label(steps: Sequence[Step]) -> Callable[[int], str]:
    """How an error names the row ``i`` of a steps table of ``steps``."""
    return lambda i: f"step {steps[i].index}"


_READ_SIZES = tuple(column for column in STEP_COLUMNS if column.name in ("content_bytes", "summary_bytes"))
"""The columns ``_step_parts`` computes (``_lists``) before the view's result columns, which read them
(``views.StepsRead``): each observation's content's and summary's UTF-8 bytes."""


def _step_parts(
    run: Run, view: View, kept: slice | None = None
) -> tuple[dict[str, list[Any]], dict[str, list[Any]], tuple[str, ...]]:
    """Each of ``_STEP_PARTS`` for every step (of the steps ``kept``, or all), a list of them in step order; the
    columns of ``_READ_SIZES``, computed on the way; and the parts every step has (none ``None``: ``_lists``'s
    ``held``)."""
    if kept is None:
        steps, facts = run.steps, view.step_columns()
        calls = run.model_calls
    else:
        start, stop, step = kept.indices(len(run.steps))
        if step != 1:
            raise ValueError(f"steps_frame: rows must be a slice of consecutive steps, not one with step {step}")
        steps, facts = run.steps[start:stop], view.step_columns(start, stop)
        wanted = {s.index for s in steps}
        calls = [call for call in run.model_calls if call.step in wanted]
    every_held = all(facts["in_view"])
    if not every_held:  # a step the view does not hold is not shown in full there either
        facts = {
            **facts,
            "full": [full if held else None for full, held in zip(facts["full"], facts["in_view"], strict=True)],
        }
    fields, every = _step_fields(steps)
    # full is None only for a step the view skips or does not hold: for none where it holds every step and its
    # rendered column is one value made so, true (View.step_columns)
    rendered = facts["rendered"]
    every_shown = every_held and type(rendered) is OneValue and bool(rendered) and rendered[0] is True
    held = ("step", *(("decision", "observation") if every else ()), *(("full",) if every_shown else ()))
    sizes = _lists(_READ_SIZES, fields, _step_label(steps), held=held)
    read = StepsRead(
        fields["decision.kind"],
        fields["decision.tool"],
        fields["observation.status"],
        sizes["content_bytes"],
        sizes["summary_bytes"],
    )
    shown = view.result_columns(read=read) if kept is None else view.result_columns(start, stop, read)
    indices = fields["step.index"]
    last = {call.step: call for call in calls}
    counts = Counter(call.step for call in calls)
    started_at, ended_at = run.step_times(indices)
    compactions = view.views.compactions
    present = set(indices) if compactions else set()
    compacted = {c.step: view.views.compaction(c.step) for c in compactions if c.step in present}
    inherited = run.inherited_steps
    called = view.views.parallel_tools()
    parts = {
        "step": list(steps),
        "inherited": [index < inherited for index in indices] if inherited else one_value(False, len(indices)),
        **fields,
        "started_at": started_at,
        "ended_at": ended_at,
        **facts,
        "shown_as": shown["kind"],
        "nudge": _nudges(shown["kind"], shown["type"]),
        "shown_bytes": shown["shown_bytes"],
        "hidden_bytes": shown["hidden_bytes"],
        # a run with no model calls, or no reply of parallel tool uses (most runs), has none of a step to look up
        "call": list(map(last.get, indices)) if last else one_value(None, len(indices)),
        "calls": [counts.get(index, 0) for index in indices] if counts else one_value(0, len(indices)),
        "compaction": list(map(compacted.get, indices)) if compacted else one_value(None, len(indices)),
        "other_tools": [_json_or_null(others[1:]) if (others := called.get(index)) else None for index in indices]
        if called
        else one_value(None, len(indices)),
    }
    return parts, sizes, held


def _step_fields(steps: Sequence[Step]) -> tuple[dict[str, list[Any]], bool]:
    """Each step's index, decision and observation, and the fields of those the columns read (``"decision.kind"``:
    ``None`` where the step has no decision), a list each; and whether every step has a decision and an observation.

    Where every step has a decision and an observation (most runs), each field is read off the list of decisions or
    of observations by a pass of its own, which costs less than the one pass over the steps the others take
    (``_steps_fields``): 8-10 ms against 10-11 for 20,000 steps, in a frame. ``_lists`` reads any other field of a
    part itself.
    """
    decisions = [step.decision for step in steps]
    observations = [step.observation for step in steps]
    decided = cast("list[Decision]", decisions)
    observed = cast("list[Observation]", observations)
    try:  # a step with no decision or no observation stops these at its None, which has neither field
        kinds = [decision.kind for decision in decided]
        statuses = [observation.status for observation in observed]
    except AttributeError:
        return _steps_fields(steps), False
    fields: dict[str, list[Any]] = {
        "step.index": [step.index for step in steps],
        "decision": decisions,
        "observation": observations,
        "decision.kind": kinds,
        "decision.tool": [decision.tool for decision in decided],
        "decision.reason": [decision.reason for decision in decided],
        "decision.args": [decision.args for decision in decided],
        "decision.invalid_args": [decision.invalid_args for decision in decided],
        "decision.invalid_base64": [decision.invalid_base64 for decision in decided],
        "observation.status": statuses,
        "observation.content": [observation.content for observation in observed],
        "observation.summary": [observation.summary for observation in observed],
    }
    return fields, True


def _steps_fields(steps: Sequence[Step]) -> dict[str, list[Any]]:
    """``_step_fields`` of steps some of which have no decision or no observation (their fields ``None``), read in
    one pass over the steps."""
    index: list[int] = []
    decisions: list[Decision | None] = []
    observations: list[Observation | None] = []
    kinds: list[str | None] = []
    tools: list[str | None] = []
    reasons: list[str | None] = []
    args: list[Any] = []
    invalid: list[str | None] = []
    base64: list[bool | None] = []
    statuses: list[str | None] = []
    contents: list[str | None] = []
    summaries: list[str | None] = []
    undecided = (kinds.append, tools.append, reasons.append, args.append, invalid.append, base64.append)
    unobserved = (statuses.append, contents.append, summaries.append)
    for step in steps:
        index.append(step.index)
        decision = step.decision
        decisions.append(decision)
        if decision is None:
            for add in undecided:
                add(None)
        else:
            kinds.append(decision.kind)
            tools.append(decision.tool)
            reasons.append(decision.reason)
            args.append(decision.args)
            invalid.append(decision.invalid_args)
            base64.append(decision.invalid_base64)
        observation = step.observation
        observations.append(observation)
        if observation is None:
            for add in unobserved:
                add(None)
        else:
            statuses.append(observation.status)
            contents.append(observation.content)
            summaries.append(observation.summary)
    return {
        "step.index": index,
        "decision": decisions,
        "observation": observations,
        "decision.kind": kinds,
        "decision.tool": tools,
        "decision.reason": reasons,
        "decision.args": args,
        "decision.invalid_args": invalid,
        "decision.invalid_base64": base64,
        "observation.status": statuses,
        "observation.content": contents,
        "observation.summary": summaries,
    }


def _refuse_path(run: object, caller: str, table: str) -> None:
    """Refuse a file's path given for a run, saying how to read the file, where using it as a run would raise an
    ``AttributeError`` of one of its parts (``'str' object has no attribute 'options'``)."""
    if isinstance(run, str | os.PathLike):
        raise TypeError(
            f"{caller}: run is a Run, not a path ({os.fspath(run)!r}): read the file with agentrender.load(path), "
            f"or every run it holds with table_frame(path, {table!r})"
        )


def _view(run: Run, options: render.Options) -> View:
    """The view after the last step of ``run``: where every per-step fact of a frame comes from."""
    return Views(run, options).at(None)


# ---------------------------------------------------------------------- model calls


def _tries(calls: list[ModelCall]) -> list[int | None]:
    """How many HTTP tries each of ``calls`` took, ``None`` where its recording does not know."""
    return [len(call.retried) + 1 if call.tries_known else None for call in calls]


_TYPE = attrgetter("type")
_THINKING = frozenset({"thinking", "redacted_thinking"})


def _tool_uses(contents: list[Sequence[ContentBlock]]) -> list[int]:
    """How many ``tool_use`` blocks each reply's ``contents`` hold."""
    return [list(map(_TYPE, content)).count("tool_use") for content in contents]


def _text_bytes(contents: list[Sequence[ContentBlock]]) -> list[int]:
    """UTF-8 bytes of the text blocks of each reply's ``contents``."""
    return [sum(_utf8_sizes([block.text for block in content if block.type == "text"])) for content in contents]


def _thinks(contents: list[Sequence[ContentBlock]]) -> list[bool]:
    """Whether each reply's ``contents`` hold a thinking or redacted-thinking block."""
    return [not _THINKING.isdisjoint(map(_TYPE, content)) for content in contents]


MODEL_CALL_COLUMNS: tuple[Column, ...] = (
    Column(
        "step",
        "int64",
        "The index of the step the call was made for: steps_frame's index, so calls join their steps on path, run_id "
        "and step = index (a step may have several calls; its model_calls counts them).",
        _itself,
        of="call.step",
    ),
    Column(
        "line",
        "Int64",
        "The line of the file the call was read from (a run file's, or the history it was imported from); null for "
        "a call built in memory or read from a file that holds no lines (a JSON document, an Inspect log).",
        _or_null,
        of="call.line",
        values=_or_nulls,
    ),
    Column(
        "latency_ms",
        "Float64",
        "How long the call took, in milliseconds.",
        _one(_latencies),
        of="call.latency_ms",
        values=_latencies,
    ),
    Column(
        "tries",
        "Int64",
        "How many HTTP tries the call took: 1, and one more for each the SDK retried (an overloaded or rate-limited "
        "API, a server error, a dropped connection), as a recording holds them (ModelCall.retried); null where the "
        "recording does not know how many (ModelCall.tries_known: an SDK that sends no retry count).",
        _one(_tries),
        of="call",
        values=_tries,
    ),
    Column(
        "retried_ms",
        "Float64",
        "How long the tries before the last took together, in milliseconds (part of latency_ms): 0 for a call "
        "tried once; null when the recording holds the tries without their times (an SDK without middleware), or "
        "does not know how many there were.",
        _itself,
        of="call.retried_ms",
    ),
    Column(
        "request_key",
        "string",
        "The replay key of the request that was sent.",
        _or_null,
        of="call.request_key",
        values=_or_nulls,
    ),
    Column("response_id", "string", "The provider's message id.", _or_null, of="reply.id", values=_or_nulls),
    Column("model", "category", "The model that replied.", _or_null, of="reply.model", values=_or_nulls),
    Column(
        "stop_reason",
        "category",
        "Why the model stopped; null when the reply recorded none.",
        _or_null,
        of="call.stop_reason",
        categories=_STOPS,
        values=_or_nulls,
    ),
    _usage_column(
        "input_tokens",
        "Input tokens, as the provider reported them, counted as the Messages API counts them: those neither read "
        "from its prompt cache nor written to it, so the request's whole input is this plus "
        "cache_read_input_tokens and cache_creation_input_tokens (an OpenAI prompt's cached tokens are moved so).",
    ),
    _usage_column("output_tokens", "Output tokens, as the provider reported them."),
    _usage_column("cache_read_input_tokens", "Input tokens read from the provider's prompt cache."),
    _usage_column("cache_creation_input_tokens", "Input tokens written to the provider's prompt cache."),
    Column(
        "tool_uses",
        "int64",
        "How many tool_use blocks the reply holds (only the first runs).",
        _one(_tool_uses),
        of="reply.content",
        values=_tool_uses,
    ),
    Column(
        "text_bytes",
        "int64",
        "UTF-8 bytes of the reply's text blocks.",
        _one(_text_bytes),
        of="reply.content",
        values=_text_bytes,
    ),
    Column(
        "thinking",
        "bool",
        "True when the reply holds a thinking or redacted-thinking block.",
        _one(_thinks),
        of="reply.content",
        values=_thinks,
    ),
)
"""The columns of ``model_calls_frame``, in order."""


def model_calls_frame(run: Run) -> pd.DataFrame:
    """One row per captured model call of ``run``, in file order, with the columns of ``MODEL_CALL_COLUMNS``."""
    _refuse_path(run, "model_calls_frame", "model_calls")
    pandas = require("frame", "pandas")
    calls = run.model_calls

    def label(i: int) -> str:
        return f"model call {i} (step {calls[i].step})"

    return _build(pandas, MODEL_CALL_COLUMNS, _call_lists(calls, label), label)


def _call_lists(calls: Sequence[ModelCall], label: Callable[[int], str]) -> dict[str, list[Any]]:
    """Each computed column of ``model_calls_frame`` of ``calls`` as a list, from the calls (``"call"``) and their
    replies (``"reply"``), each reply read once for every column of it."""
    parts: dict[str, list[Any]] = {"call": list(calls), "reply": [call.response for call in calls]}
    return _lists(MODEL_CALL_COLUMNS, parts, label, held=("call", "reply"))


# ----------------------------------------------------------------------------- runs


class _RunFacts(NamedTuple):
    """Everything one row of ``runs_frame`` is computed from."""

    run: Run
    view: View
    links: RunLinks
    """``Run.links``, read once for the row's columns of them."""
    parent: RunLink | None
    """``links.parent``: the run and step that started the run, ``None`` (every column of it null) for none."""

    @classmethod
    def of(cls, run: Run, options: render.Options) -> _RunFacts:
        """The facts of ``run`` read under ``options``."""
        links = run.links
        return cls(run, _view(run, options), links, links.parent)


def _count(steps: Iterable[Step], test: Callable[[Observation], bool]) -> int:
    return sum(1 for step in steps if step.observation is not None and test(step.observation))


def _total(run: Run, key: str) -> int:
    counts: list[int | None] = _usage_counts(key)([call.usage for call in run.model_calls])
    return sum(count for count in counts if count is not None)


def _end(run: Run, key: str) -> Any:
    return run.end.get(key) if run.end is not None else None


def _warning_texts(warnings: Sequence[RunWarning]) -> list[str]:
    """Each of ``warnings`` as every display says it (``_display.said.warning_groups``), a lone surrogate shown as its
    escape (as every display shows it, and as Parquet can store it)."""
    return [_escaped_surrogates(str(group)) for group in warning_groups(warnings)]


RUN_COLUMNS: tuple[Column, ...] = (
    Column(
        "path",
        "string",
        "The file the run was read from, by its absolute path (os.path.abspath, links not resolved), as every table "
        "names it, so tables join on it (a Claude Code session's, for its sub-agents' runs too).",
        lambda run: run.path,
        of="run",
    ),
    Column("run_id", "string", "The run's id from its header.", lambda run: run.run_id or None, of="run"),
    Column("model", "category", "The model named in the run's header.", lambda run: run.model or None, of="run"),
    Column("steps", "Int64", "How many steps the run recorded.", lambda run: len(run.steps), of="run"),
    Column(
        "inherited_steps",
        "Int64",
        "How many of those it holds but did not decide: a forked agent's, the session's steps it was sent "
        "(Run.inherited_steps); 0 for any other run.",
        lambda run: run.inherited_steps,
        of="run",
    ),
    Column(
        "parent_run_id",
        "string",
        "The run_id of the run that started this one, of the same file (path): the Claude Code session whose step "
        "launched it as a sub-agent or forked it to write a compaction's summary (Run.links.parent); null for a run "
        "no run started.",
        _itself,
        of="parent.run_id",
    ),
    Column(
        "parent_step",
        "Int64",
        "The index of that run's step that started it, steps_frame's index of its row (join on path, run_id and "
        "index): the step whose tool use launched the sub-agent, or the first step after the compaction the forked "
        "agent wrote; null for a run no run started.",
        _itself,
        of="parent.step",
    ),
    Column(
        "parent_tool_use_id",
        "string",
        "The id of the tool use (a Task or Agent call) that launched the sub-agent, as recorded: that step's "
        "tool_use_id in steps_frame, or, for a step that made several calls at once, the id of another of them; null "
        "for a forked agent, and for a run no run started.",
        _itself,
        of="parent.tool_use_id",
    ),
    Column(
        "started_by",
        "category",
        "How that run started this one: tool_use, a sub-agent its step's tool use launched; compaction, an agent it "
        "forked to write a compaction's summary (RunLink.is_compaction); null for a run no run started.",
        lambda parent: "compaction" if parent.is_compaction else "tool_use",
        of="parent",
        categories=_STARTED_BY,
    ),
    Column(
        "started_runs",
        "Int64",
        "How many runs this one's steps started (Run.links.started): a session's sub-agents and the agents it forked "
        "to write its compactions' summaries; 0 for a run that started none.",
        len,
        of="links.started",
    ),
    Column(
        "rendered_steps",
        "Int64",
        "How many steps the view after the last step shows: those with a decision, and a prefill no reply answered "
        "(the caller's text the run ended its last request with, no decision of the model: steps_frame's prefill).",
        lambda view: view.rendered_count,
        of="view",
    ),
    Column(
        "prefill",
        "boolean",
        "True when the run ended on a prefill no reply answered: the view after the last step ends on the caller's "
        "text its last request ended with, no decision of the model (View.prefill; the step steps_frame marks prefill, "
        "counted in rendered_steps).",
        lambda view: view.prefill,
        of="view",
    ),
    Column(
        "failures",
        "Int64",
        "Steps whose observation failed (an error or an invalid decision).",
        lambda run: _count(run.steps, lambda o: o.failed),
        of="run",
    ),
    Column(
        "interruptions",
        "Int64",
        "Steps whose tool was interrupted (outcome unknown).",
        lambda run: _count(run.steps, lambda o: o.interrupted),
        of="run",
    ),
    Column(
        "model_calls", "Int64", "How many model calls the run captured.", lambda run: len(run.model_calls), of="run"
    ),
    Column(
        "input_tokens",
        "Int64",
        "Input tokens over all captured model calls, as model_calls_frame counts them: those neither read from the "
        "provider's prompt cache nor written to it (a Claude Code session's requests are mostly read from it: "
        "cache_read_input_tokens and cache_creation_input_tokens hold the rest).",
        lambda run: _total(run, "input_tokens"),
        of="run",
    ),
    Column(
        "output_tokens",
        "Int64",
        "Output tokens over all captured model calls.",
        lambda run: _total(run, "output_tokens"),
        of="run",
    ),
    Column(
        "cache_read_input_tokens",
        "Int64",
        "Input tokens read from the provider's prompt cache over all captured model calls (model_calls_frame's, "
        "summed): with input_tokens and cache_creation_input_tokens, the whole input the run's requests sent.",
        lambda run: _total(run, "cache_read_input_tokens"),
        of="run",
    ),
    Column(
        "cache_creation_input_tokens",
        "Int64",
        "Input tokens written to the provider's prompt cache over all captured model calls (model_calls_frame's, "
        "summed).",
        lambda run: _total(run, "cache_creation_input_tokens"),
        of="run",
    ),
    Column(
        "end_status",
        "category",
        "The end record's status; null when the run has no end (still going, or its process died).",
        lambda run: _end(run, "status"),
        of="run",
    ),
    Column(
        "end_reason",
        "category",
        "The end record's reason; null when the run has no end. A run file's is what its agent wrote (the agent's "
        "codes are the first categories: completed, repeated_tool_failures, ...); an imported history's, what its "
        "importer says of how it ended, a text of its own (a Claude Code session's 'the session's last reply is an "
        "answer', a Codex rollout's 'task_complete'), so end_status counts outcomes across formats.",
        lambda run: _end(run, "reason"),
        of="run",
        categories=_END_REASONS,
    ),
    Column(
        "end_error",
        "string",
        "The end record's error: what stopped a run that failed (null when it names none).",
        lambda run: _end(run, "error"),
        of="run",
    ),
    Column(
        "warnings",
        "Int64",
        "How many things the loader read but did not load, or loaded with a doubt.",
        lambda run: len(run.warnings),
        of="run",
    ),
    Column(
        "warning_texts",
        _TEXTS,
        "Those warnings as every display says them, a text each (PATH:LINE: what, alike ones once with their count "
        "and lines; the path absolute, as path is), in the order found; an empty list for a run with none.",
        lambda run: _warning_texts(run.warnings),
        of="run",
    ),
    Column(
        "lost",
        "boolean",
        "Whether the run's file lost something, as its warnings say: a part it held was not loaded at all (a line "
        "cut short, a gzip stream ended early), so the run is cut short (runs[runs.lost]). False for a file read "
        "whole, though a run with no end record (end_status null: still going, or its process died) may have "
        "stopped early too; null only on a file that could not be read (error).",
        lambda run: any(warning.lost for warning in run.warnings),
        of="run",
    ),
    Column(
        "started_at",
        _TIMESTAMP,
        "When the run started, from its header.",
        lambda run: run.header.get("started_at"),
        of="run",
    ),
    Column("ended_at", _TIMESTAMP, "When the run ended, from its end record.", lambda run: _end(run, "at"), of="run"),
    Column(
        "duration", _DURATION, "ended_at - started_at.", derive=lambda built: built["ended_at"] - built["started_at"]
    ),
    Column(
        "error",
        "string",
        "Why the file could not be read (PATH:LINE: what); null when it was. Other columns are then null.",
        lambda row: None,
    ),
)
"""The columns of ``runs_frame``, in order."""

_RUN_VALUES = tuple(column for column in RUN_COLUMNS if column.value is not None)
_PATH, _ERROR = (tuple(column.name for column in _RUN_VALUES).index(name) for name in ("path", "error"))


def _runs_of(path: str) -> list[Run]:
    """The runs of the file ``path``, as every command of the CLI reads them (``imports.load_runs``): a run file's
    one, or each run of an agent's history (a Claude Code session and its sub-agents, an eval log's samples).

    Raises what ``load_runs`` raises (a ``RunFileError`` naming the line and field, or the formats tried), and a
    missing file's ``FileNotFoundError``.
    """
    os.stat(path)  # a missing file says so as the operating system does, as it did when the frames read run files
    return load_runs(path)


def _run_values(path: str) -> list[list[Any]]:
    """One file's rows of ``runs_frame`` as plain values (what a worker process sends back): one a run, or one
    saying why the file cannot be read."""
    try:
        return [_values_of(path, _RunFacts.of(run, run.options())) for run in _runs_of(path)]
    except (ValueError, OSError) as error:
        return [_error_values(path, error)]


def _values_of(path: str, row: _RunFacts) -> list[Any]:
    """The row of ``runs_frame`` of a run read from the file ``path`` as plain values. Its ``path`` is ``path``, as
    its steps' rows say, also where the run was read from a file beside it (a Claude Code sub-agent's transcript)."""
    values = [_cell(column, row) for column in _RUN_VALUES]
    values[_PATH] = path
    return values


def _error_values(path: str, failure: Exception) -> list[Any]:
    """The row of the runs table of a file that cannot be read: its path and why, every other value null."""
    values: list[Any] = [None] * len(_RUN_VALUES)
    values[_PATH] = path
    values[_ERROR] = _failure_text(path, failure)
    return values


def _failure_text(path: str, failure: Exception) -> str:
    """Why a file cannot be read, as its row says it. A RunFileError already begins with PATH:LINE: (and for a
    file of no format agentrender reads, says what it holds and the formats tried); anything else is given its
    file here: an ``OSError`` in the system's words (``PATH: cannot be read: No such file or directory``), where
    Python's ``[Errno 2] ...: 'PATH'`` named the file a second time, by its absolute path."""
    if isinstance(failure, RunFileError):
        return str(failure)
    if isinstance(failure, OSError) and failure.strerror:
        return f"{path}: cannot be read: {failure.strerror}"
    return f"{path}: {failure}"


def runs_frame(
    paths_or_folder: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    workers: int | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """One row per run, read in parallel worker processes, with the columns of ``RUN_COLUMNS``.

    A run file holds one run; any other file is read as every command of the CLI reads it
    (``agentrender.imports.load_runs``), a row for each run of an agent's history (a Claude Code
    session's main thread and sub-agents, an eval log's samples), in the file's order. Each file
    is read by its absolute path, which its rows' ``path`` holds (and what they say of it: ``error``,
    ``warning_texts``), as every table of ``PARQUET_TABLES`` names it, so a frame and an export join on ``path``.
    ``paths_or_folder`` is a folder (its run files, sorted: every ``*.jsonl``, ``*.jsonl.gz``, ``*.eval`` and
    ``*.eval.gz`` under it, ``run_files``; a folder of none raises ``NoRunFilesError``), one file, or an iterable of
    files (kept in its order, each file once: ``distinct_paths``; an empty one gives a frame of no rows).
    ``workers`` is the number of processes (default: one per CPU, at most one per file; ``1`` reads in this process).
    ``progress`` shows a tqdm bar (a widget in notebooks). Workers start by forkserver (or
    spawn), never fork, so a script that uses ``workers`` above 1 calls this under
    ``if __name__ == "__main__":``, as any such process pool needs; a notebook needs nothing.

    A file that cannot be read (a ``RunFileError``; an ``OSError`` such as a missing or
    unreadable file; a ``ValueError`` for a value no column can hold, such as a token count
    that is not an integer) still gets its row: ``error`` says what was wrong and where (for
    a bad record, ``PATH:LINE: what``), ``path`` names the file and every other column is
    null; ``frame[frame.error.notna()]`` lists them. Any other exception is a bug and is
    raised, with the file named in a note.
    """
    pandas = require("frame", "pandas")
    tqdm = require("frame", "tqdm.auto").tqdm
    paths = _run_paths(paths_or_folder)
    if workers is None:
        workers = max(1, min(os.cpu_count() or 1, len(paths)))
    if workers < 1:
        raise ValueError(f"runs_frame: workers must be 1 or more, got {workers}")

    rows: list[list[Any]] = []
    with tqdm(total=len(paths), unit="file", disable=not progress, desc="runs") as bar:
        for values in _read_all(paths, workers):
            rows.extend(values)
            bar.update(1)
    lists = {column.name: [row[i] for row in rows] for i, column in enumerate(_RUN_VALUES)}
    paths = lists["path"]
    return _build(pandas, RUN_COLUMNS, lists, lambda i: f"run file {paths[i]}")


def _read_all(paths: Sequence[str], workers: int) -> Iterator[list[list[Any]]]:
    """Each file's rows' values, in the order of ``paths``, as they arrive: each file read by its absolute path, which
    its rows hold (every table's ``path``), and named in a note as it was given."""
    absolute = list(map(os.path.abspath, paths))
    if workers == 1 or len(paths) <= 1:
        results: Iterator[list[list[Any]]] = map(_run_values, absolute)
        for path in paths:
            yield _next(results, path)
        return
    # Several files per task: a task's round trip costs more than reading a small run.
    chunk = max(1, min(64, len(paths) // (workers * 8)))
    with ProcessPoolExecutor(max_workers=workers, mp_context=_start_method()) as pool:
        results = pool.map(_run_values, absolute, chunksize=chunk)
        for path in paths:
            yield _next(results, path)


def _start_method() -> multiprocessing.context.BaseContext:
    # Not fork: the caller may have threads (tqdm's monitor, a notebook's kernel), and a
    # process forked from a threaded one can inherit a held lock. The workers only need
    # agentrender's stdlib core to start, since pandas is imported where frames are built.
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def _next(results: Iterator[list[list[Any]]], path: str) -> list[list[Any]]:
    try:
        return next(results)
    except BrokenProcessPool as error:  # no file's doing
        raise _stopped("runs_frame") from error
    except Exception as error:
        error.add_note(f"while reading run file {path}")
        raise


def _stopped(caller: str) -> RuntimeError:
    """What a pool of worker processes one of which stopped before it answered says."""
    return RuntimeError(
        f"{caller}: a worker process stopped before it answered. A script that reads with worker processes "
        f'(workers above 1) calls {caller} under `if __name__ == "__main__":`, since each worker starts by '
        "importing the script (as every Python process pool does), or passes workers=1; "
        "else the process was killed (out of memory, say)."
    )


def _run_paths(
    paths_or_folder: str | os.PathLike[str] | Iterable[str | os.PathLike[str]], caller: str = "runs_frame"
) -> list[str]:
    """The files ``caller`` reads of what it was given: a folder's run files (``run_files``), one file, or a list of
    files, each once (``distinct_paths``)."""
    if isinstance(paths_or_folder, str | os.PathLike):
        root = Path(paths_or_folder)
        if root.is_dir():
            return run_files(root)
        if not root.exists():
            raise FileNotFoundError(f"{caller}: no such file or folder: {root}")
        return [str(root)]
    return distinct_paths(paths_or_folder)


def distinct_paths(paths: Iterable[str | os.PathLike[str]]) -> list[str]:
    """``paths`` in their order, each file once: where it is first named, however it is named after (relative or
    absolute, by two globs that overlap). What ``runs_frame``, ``table_frame``, ``to_parquet`` and
    ``agentrender.dask.read_runs`` read of a list of files."""
    named: dict[str, str] = {}
    for given in paths:
        path = os.fspath(given)
        named.setdefault(os.path.abspath(path), path)
    return list(named.values())


def _special(path: str) -> bool:
    """Whether ``path`` is something other than a file that exists (a pipe, a socket, a device) or a link that points
    nowhere: a pipe is read by waiting for its writer."""
    return os.path.exists(path) and not os.path.isfile(path)


_LISTED_SUFFIXES = (*RUN_FILE_SUFFIXES, *JSON_LOG_NAMES)
"""The endings of the names of the files ``run_files`` looks at: a ``.json`` (``.json.gz``) is listed when it is an
Inspect log."""


class NoRunFilesError(FileNotFoundError):
    """A folder given to be read holds no run file (``run_files``): the error names it and the names looked for."""


def run_files(folder: str | os.PathLike[str]) -> list[str]:
    """The run files of ``folder``, sorted: what ``runs_frame``, ``to_parquet`` and ``agentrender.dask.read_runs``
    read of a folder.

    Every file named ``*.jsonl``, ``*.jsonl.gz``, ``*.eval`` or ``*.eval.gz`` (``RUN_FILE_SUFFIXES``, in any case) at
    any depth under it, and every ``*.json`` (or ``*.json.gz``) that is an Inspect log as ``load`` tells one, keys in
    any order (``imports.shapes.is_json_log``: the other JSON files a folder holds beside logs, a ``package.json`` or
    Inspect's own ``logs.json``, are no runs, and are read when named one by one; a ``.json`` that cannot be read is
    listed, so its row says why), a linked folder's too; each file once, under
    the first of its paths in sorted order, however many links name it (a link to a folder it is in is not followed
    again). A file or folder whose name starts with ``.`` holds none (a notebook's ``.ipynb_checkpoints`` keeps copies
    of the files it edited), as for Parquet's and Dask's readers; nor does a pipe or a device. A link that points
    nowhere is kept, so it is read as a file that is missing: a row with its error. Each path starts with ``folder`` as
    given. A Claude Code sub-agent's own transcript is left out where its session's is among them: it is read with the
    session (``imports.claude_code.without_sub_agents``).

    A folder that holds none raises ``NoRunFilesError`` (a ``FileNotFoundError``) naming it, the names looked for and
    how many other ``*.json`` files it holds: a folder named to ``runs_frame``, ``to_parquet`` or ``read_runs`` is never
    read as no runs without a word.
    """
    found: list[tuple[str, str]] = []  # each file's path, and the path of the file itself
    folders: set[str] = set()
    other_json = 0
    for top, names, files in os.walk(os.fspath(folder), followlinks=True):
        real = os.path.realpath(top)
        if real in folders:  # reached again through a link
            names.clear()
            continue
        folders.add(real)
        names[:] = sorted(name for name in names if not name.startswith("."))
        for name in files:
            path = os.path.join(top, name)
            # RUN.JSONL as run.jsonl (name_ends); a link that points nowhere is kept (a row with its error), a pipe or
            # a device is no file
            if name.startswith(".") or not name_ends(name, _LISTED_SUFFIXES) or _special(path):
                continue
            if _listed(path):
                found.append((path, os.path.realpath(path) if os.path.islink(path) else os.path.join(real, name)))
            elif name_ends(name, ".json"):
                other_json += 1
    seen: set[str] = set()
    paths = []
    for path, itself in sorted(found):
        if itself not in seen:
            seen.add(itself)
            paths.append(path)
    if not paths:
        *names, last = (f"*{suffix}" for suffix in RUN_FILE_SUFFIXES)
        others = f"; other *.json files, each read when named alone: {other_json:,}" if other_json else ""
        raise NoRunFilesError(
            f"no run files under {folder} (none named {', '.join(names)} or {last}, nor a *.json or *.json.gz "
            f"that is an Inspect log, at any depth{others})"
        )
    from agentrender.imports.claude_code import without_sub_agents  # the importer, when a folder is listed

    return without_sub_agents(paths)


def _listed(path: str) -> bool:
    """Whether ``run_files`` lists the file ``path`` (no pipe nor device): a run file's name, in any case, or a
    ``.json`` (``.json.gz``) that is an Inspect log, or cannot be read to tell."""
    if name_ends(path, RUN_FILE_SUFFIXES):
        return True
    if not name_ends(path, JSON_LOG_NAMES):
        return False
    try:
        return is_json_log(path)
    except OSError:
        return True  # what it is cannot be told: its row says why it cannot be read


# ------------------------------------------------------------------------- building


def _lists(
    columns: Sequence[Column],
    parts: Mapping[str, list[Any]],
    label: Callable[[int], str],
    made: Mapping[str, list[Any]] | None = None,
    held: Collection[str] = (),
) -> dict[str, list[Any]]:
    """Each computed column as a list of plain values (``None`` for a null), from ``parts``: for each field a
    column may be ``of``, that field of every row, in row order (a field of a field is taken from it here). The
    columns ``made`` already (by this function, of the same parts) are taken as they are; the parts ``held`` are
    known to the caller to be ``None`` in no row, and are not looked through for one."""
    lists: dict[str, list[Any]] = {}
    holes: dict[str, bool] = {}
    missing: set[str] = set()
    fields: dict[str, list[Any]] = {}
    for column in columns:
        value = column.value
        if value is None:
            continue
        if made is not None and column.name in made:
            lists[column.name] = made[column.name]
            continue
        of = column.of
        part, _, field = of.partition(".")
        owners = parts[part]
        if value is _itself and column.absent is None and not field:
            lists[column.name] = owners  # the part as it is, a null where it is None: no look for holes needed
            continue
        if part not in holes:
            if part in held:
                holes[part] = False
            elif type(owners) is OneValue:
                holes[part] = bool(owners) and owners[0] is None
            else:
                holes[part] = any(map(is_, owners, repeat(None)))
            if holes[part] and (type(owners) is OneValue or all(map(is_, owners, repeat(None)))):
                missing.add(part)
        if part in missing:  # no row has the part (a run without compactions or model calls): nothing to compute
            lists[column.name] = [column.absent] * len(owners)
            continue
        values = fields.get(of)
        if values is None:
            values = parts.get(of) if field else owners  # a field the parts were read with (_step_fields)
        if values is None:
            values = fields[of] = _fields(owners, field, holes[part])
        try:
            if value is _itself and (column.absent is None or not holes[part]):
                lists[column.name] = values
            elif column.values is not None:
                lists[column.name] = _all_at_once(column, owners, values, holes[part])
            elif holes[part]:
                absent = column.absent
                pairs = zip(owners, values, strict=True)
                lists[column.name] = [absent if owner is None else value(v) for owner, v in pairs]
            else:
                lists[column.name] = list(map(value, values))
        except Exception as error:
            error.add_note(f"computing column {column.name!r} for {label(_first_failing(value, owners, values))}")
            raise
    return lists


def _all_at_once(column: Column, owners: list[Any], values: list[Any], holes: bool) -> list[Any]:
    """``column.values`` of ``values``, ``column.absent`` where the owner of the value is ``None``."""
    assert column.values is not None
    if not holes:
        return column.values(values)
    made = iter(column.values([value for owner, value in zip(owners, values, strict=True) if owner is not None]))
    return [column.absent if owner is None else next(made) for owner in owners]


def _fields(owners: list[Any], field: str, holes: bool) -> list[Any]:
    """The attribute ``field`` of each of ``owners``, ``None`` for an owner that is ``None``."""
    if holes:
        return [None if owner is None else getattr(owner, field) for owner in owners]
    return list(map(attrgetter(field), owners))


def _cell(column: Column, row: Any) -> Any:
    """One row's value of ``column`` (what ``_frame`` computes a column at a time)."""
    assert column.value is not None
    part, _, field = column.of.partition(".")
    owner = getattr(row, part) if part else row
    if owner is None:
        return column.absent
    return column.value(getattr(owner, field) if field else owner)


def _first_failing(value: Callable[[Any], Any], owners: Sequence[Any], values: Sequence[Any]) -> int:
    for i, (owner, part) in enumerate(zip(owners, values, strict=True)):
        try:
            if owner is not None:
                value(part)
        except Exception:
            return i
    return -1


TEXT_DTYPE: Final = "string[python]"
"""The dtype of the frames' text (``string`` columns and the categories' labels): Python's own strings.

pandas stores text in Arrow whenever pyarrow is installed, and Arrow cannot hold a lone
surrogate, which a run's text may carry (the instruments show it escaped, never drop it).
"""


def _build(
    pandas: ModuleType, columns: Sequence[Column], lists: dict[str, list[Any]], label: Callable[[int], str]
) -> pd.DataFrame:
    """The frame of ``columns`` from ``lists``, each computed column's values (``_lists``), which it empties: each
    list is let go once its array is built, so a pass of the collector while the frame is built (pandas makes
    hundreds of objects the collector tracks) walks no list of values (NumPy's arrays are not the collector's to
    walk): 1 ms of a 20,000-step frame of a run just loaded, where the view's and the columns' lists made it 13."""
    built: dict[str, Any] = {}
    times = _times_together(pandas, columns, lists)
    for column in columns:
        if column.derive is not None:
            built[column.name] = column.derive(built).astype(_pandas_dtype(pandas, column.dtype))
            continue
        if column.name in times:
            del lists[column.name]
            built[column.name] = times[column.name]
            continue
        values = lists.pop(column.name)
        try:
            built[column.name] = _array(pandas, column, values)
        except (TypeError, ValueError) as error:
            at = next((i for i, value in enumerate(values) if not _converts(pandas, column, value)), None)
            where = f" ({label(at)}: {values[at]!r})" if at is not None else ""
            raise ValueError(f"column {column.name!r}{where}: {error}") from error
    # Arrays, not series: a frame made of series first aligns their indexes, a cost per column.
    frame: pd.DataFrame = pandas.DataFrame(built, copy=False)
    return frame


def _times_together(pandas: ModuleType, columns: Sequence[Column], lists: dict[str, list[Any]]) -> dict[str, Any]:
    """The timestamp columns of ``lists`` (a step's start and end), read in one pass of ``_timestamps`` as one
    column of all their texts, then cut apart: a parse's fixed cost paid once. ``{}`` when there are fewer than
    two, or when a column holds no timestamp at all or a value that is no text (each is then read alone, and the
    error names its row)."""
    named = [column.name for column in columns if column.derive is None and column.dtype == _TIMESTAMP]
    if len(named) < 2:
        return {}
    joined = [value for name in named for value in lists[name]]
    if not all(map(any, map(lists.__getitem__, named))):
        return {}
    texts = _arrow_texts(joined)
    if texts is None:
        return {}
    times = _timestamps(pandas, joined, _TIMESTAMP, texts)
    cuts = list(accumulate((len(lists[name]) for name in named), initial=0))
    return {name: times[start:stop] for name, start, stop in zip(named, cuts[:-1], cuts[1:], strict=True)}


def _array(pandas: ModuleType, column: Column, values: list[Any]) -> Any:
    try:
        return _typed_array(pandas, column, values)
    except UnicodeEncodeError:
        # A lone surrogate (valid JSON, "\ud800") that an Arrow-backed string cannot hold:
        # shown as its escape, as every other instrument shows it.
        return _typed_array(pandas, column, [_escaped_surrogates(value) for value in values])


def _typed_array(pandas: ModuleType, column: Column, values: list[Any]) -> Any:
    dtype = column.dtype
    if type(values) is OneValue and values and (whole := _whole(pandas, column, values[0], len(values))) is not None:
        return whole
    if dtype in _NULLABLE and _no_value(values):
        # A column with no value at all (a run with no model calls, say): one null repeated,
        # rather than a list of nulls converted one by one.
        return _null(pandas, dtype).repeat(len(values))
    if dtype == "category":
        numpy = require("frame", "numpy")
        seen = set(values)
        categories = _categories(column, seen)
        if _no_value(values):  # no value at all (no model call's stop reason): every code a null's
            codes = numpy.full(len(values), -1, "int32")
        elif len(seen) == 1:  # one value in every row (every step's status ok, say): its code made whole
            codes = numpy.full(len(values), categories.index(*seen), "int32")
        else:
            # Coding the values here is several times faster than letting Categorical factorize them
            # (by dict.get: a dict's __getitem__, called through its slot wrapper, costs ten times as much).
            code = {category: i for i, category in enumerate(categories)}
            code[None] = -1
            codes = numpy.fromiter(map(code.get, values), "int32", len(values))
        return pandas.Categorical.from_codes(codes, dtype=_categorical(pandas, tuple(categories)))
    if dtype.startswith("datetime64"):
        for value in values:
            if value is not None and not isinstance(value, str):
                raise TypeError(f"expected an ISO 8601 timestamp, got {type_name(value)}")
        return _timestamps(pandas, values, dtype)
    if dtype in _BOOLEANS and (one := _one_boolean(values)) is not None:
        # A column of one boolean (a step rendered, held by the view, not inherited: most columns of a run), made whole.
        numpy = require("frame", "numpy")
        array = numpy.full(len(values), one, bool)
        return pandas.arrays.BooleanArray(array, numpy.zeros(len(values), bool)) if dtype == "boolean" else array
    if dtype in _NUMBERS and values:
        # A whole column of integers (or of booleans) is one NumPy array, read in C; pandas.array would
        # look at each value in Python first. Any other column (a null, a value of another type: NumPy
        # gives it another dtype) is left to pandas.array, which converts or refuses it as it always did.
        numpy = require("frame", "numpy")
        array = _int64s(numpy, values) if dtype in ("int64", "Int64") else None
        if array is None:
            array = numpy.array(values)
        if array.dtype == _NUMBERS[dtype]:
            if dtype == "Int64":
                return pandas.arrays.IntegerArray(array, numpy.zeros(len(array), bool))
            if dtype == "boolean":
                return pandas.arrays.BooleanArray(array, numpy.zeros(len(array), bool))
            return array
    # a list is copied into the array whatever copy says: a second copy cost 0.16 ms a column of 20,000 texts
    return pandas.array(values, dtype=_pandas_dtype(pandas, dtype), copy=False)


def _int64s(numpy: ModuleType, values: list[Any]) -> Any:
    """``values`` as a NumPy array of int64, read in one pass of C over them, when each is an integer that fits
    (``array.array`` refuses any other value, where NumPy first looks at each for a type and then reads it); else
    ``None``."""
    try:
        return numpy.frombuffer(array.array("q", values), numpy.int64)
    except (TypeError, OverflowError):
        return None


def _whole(pandas: ModuleType, column: Column, value: Any, count: int) -> Any:
    """The array of ``column`` of ``count`` rows each holding ``value``, made whole: what ``_typed_array`` makes of
    those values, for a null, a boolean, an integer or a categorical's text; ``None`` for any other (a value of another
    type is left to ``_typed_array``, which converts or refuses it as it does any column)."""
    numpy, dtype = require("frame", "numpy"), column.dtype
    if value is None:
        if dtype in _NULLABLE:
            return _null(pandas, dtype).repeat(count)
        if dtype == "category":
            labels = tuple(_categories(column, ()))
            return pandas.Categorical.from_codes(numpy.full(count, -1, "int32"), dtype=_categorical(pandas, labels))
        return None
    if dtype in _BOOLEANS and (value is True or value is False):
        array = numpy.full(count, value, bool)
        return pandas.arrays.BooleanArray(array, numpy.zeros(count, bool)) if dtype == "boolean" else array
    # an integer past int64 is left to _typed_array, which refuses it as it refuses a list of it
    if dtype in ("int64", "Int64") and type(value) is int and -(2**63) <= value < 2**63:
        array = numpy.full(count, value, "int64")
        return pandas.arrays.IntegerArray(array, numpy.zeros(count, bool)) if dtype == "Int64" else array
    if dtype == "category" and type(value) is str:
        categories = _categories(column, (value,))
        codes = numpy.full(count, categories.index(value), "int32")
        return pandas.Categorical.from_codes(codes, dtype=_categorical(pandas, tuple(categories)))
    return None


@lru_cache(maxsize=64)
def _null(pandas: ModuleType, dtype: str) -> Any:
    """An array of one null of the nullable ``dtype``, made once: a column of no value is it repeated, where making
    it cost each such column 20-30 us (the dtype found by its name, the value checked), most of its time in a small
    run's frame (a run without model calls has eight)."""
    return pandas.array([None], dtype=_pandas_dtype(pandas, dtype))


@lru_cache(maxsize=256)
def _categorical(pandas: ModuleType, categories: tuple[Any, ...]) -> Any:
    """The dtype of a categorical of ``categories``, made once for each: making it checks its labels, a fixed cost
    of each column that weighs on a small run's frame. The labels are pandas' own text dtype ("str"), held by
    Python's strings (see ``TEXT_DTYPE``)."""
    return pandas.CategoricalDtype(pandas.Index(categories, dtype=pandas.StringDtype("python", na_value=float("nan"))))


def _no_value(values: list[Any]) -> bool:
    """Whether each of ``values`` is ``None``: counted, each ``None`` found by identity (a twentieth of a look at each
    value by ``operator.is_``), once the first is one (a column of values is known at its first)."""
    if values and values[0] is not None:
        return False
    try:
        return values.count(None) == len(values)
    except (TypeError, ValueError):  # a value whose equality with None is no boolean (pandas' NA): it is a value
        return False


_BOOLEANS = frozenset({"bool", "boolean"})


def _one_boolean(values: list[Any]) -> bool | None:
    """The boolean each of ``values`` is, or ``None`` when they are not all one boolean (a number equal to one is
    not: pandas refuses 1 in a column of nullable booleans). Looking each value up as that object costs half of what
    NumPy's look at each value for its type does; the last is looked at first (a window's ``full``: false, then
    true for the last few steps, told at once)."""
    first = values[0] if values else None
    if (first is True or first is False) and values[-1] is first and all(map(is_, values, repeat(first))):
        return first
    return None


_NUMBERS = {"int64": "int64", "Int64": "int64", "bool": "bool", "boolean": "bool"}
"""The dtypes of ``Column`` a column of plain values is read into by NumPy, and the NumPy dtype those values give."""


# The timestamps Arrow's and pandas' ISO 8601 parsers read as ``parse_timestamp`` does: those of the
# loader's definition with at most 6 fraction digits, and a year other than 0. A date or an offset
# that does not exist, Arrow refuses and pandas reads as NaT. Matched a column at once: in Python on the
# first of each stretch of texts written alike (``_shaped_alike``), else by Arrow's regular expressions
# (RE2); Python's, a text at a time, cost more than the parse.
_ISO_TIMESTAMP = (
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,6})?)?(Z|[+-][0-9]{2}:[0-9]{2})?)?$"
)
_EARLIEST, _LATEST = (
    (moment - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)
    for moment in (datetime.min.replace(tzinfo=UTC), datetime.max.replace(tzinfo=UTC))
)
"""The first and last microsecond ``datetime`` holds, as microseconds since 1970 (an Arrow time's value)."""


def _timestamps(pandas: ModuleType, values: list[str | None], dtype: str, texts: Any = None) -> Any:
    """``parse_timestamp`` of each text, NaT where it gives ``None`` (the loader warned about those).

    Read by the loader's own definition of a timestamp, which Arrow's and pandas' parsers do not
    match (they read some texts the loader refuses). A column whose texts are all of the forms where
    they agree, each read, and inside the years ``datetime`` holds, is read at once. ``texts``: the values as an
    Arrow string array, where the caller made it (``_arrow_texts``).
    """
    times = _iso_times(pandas, values, dtype, texts)
    if times is not None:
        return times
    return pandas.array([None if value is None else parse_timestamp(value) for value in values], dtype=dtype)


def _iso_times(pandas: ModuleType, values: list[str | None], dtype: str, texts: Any = None) -> Any:
    """The times of ``values`` read at once, when each text is of the forms ``_ISO_TIMESTAMP`` and is read (NaT
    only for a null) inside the years ``datetime`` holds; else ``None``. ``texts``: the values as an Arrow string
    array, where the caller made it.

    Checked in Arrow, which holds the column already: a check of a pandas series costs it a fixed tenth of a
    millisecond or so, most of a small run's column."""
    pa, compute = require("frame", "pyarrow"), require("frame", "pyarrow.compute")
    column = texts
    if column is None:
        try:
            column = pa.array(values, pa.string())
        except UnicodeEncodeError:  # a lone surrogate: no timestamp
            return None
    nulls = column.null_count
    if nulls == len(column):
        return None
    if not _shaped_alike(column) and (
        compute.match_substring_regex(column, _ISO_TIMESTAMP).false_count
        or compute.starts_with(column, "0000").true_count
    ):
        return None
    try:
        # Arrow's parse is several times faster than pandas', but refuses a whole column for one time
        # that does not exist or has no offset; pandas reads those (as NaT, and as UTC).
        moments = column.cast(pa.timestamp("us", tz="UTC"))
    except pa.ArrowInvalid:
        read = pandas.to_datetime(values, format="ISO8601", utc=True, errors="coerce")
        moments = pa.array(read).cast(pa.timestamp("us", tz="UTC"))
    # a time of year 0 (an offset's worth before year 1) is no datetime
    bounds = compute.min_max(moments)
    if moments.null_count != nulls or bounds["min"].value < _EARLIEST or bounds["max"].value > _LATEST:
        return None
    return pandas.array(moments.to_numpy(zero_copy_only=False), dtype=dtype)


def _arrow_texts(values: list[Any]) -> Any:
    """``values`` as an Arrow string array, when each is a text or ``None``: the type Arrow finds as it reads them (a
    look at each value's type in Python cost 0.75 ms for 40,000 times); ``None`` for any other value (bytes, which
    Arrow would take for a text, make it binary) or a lone surrogate."""
    pa = require("frame", "pyarrow")
    try:
        column = pa.array(values)
    except (pa.ArrowException, UnicodeEncodeError):
        return None
    return column if column.type == pa.string() else None


_STRETCHES = 16
"""The most stretches of texts of one length ``_shaped_alike`` looks at; a column of more is left to RE2."""

_BLOCK_BYTES = 1 << 16
"""About how many bytes of texts ``_shaped_alike`` compares at a time: each comparison's arrays stay in the
processor's cache (40,000 times compared 1 MiB at once cost 3.1 ms, 64 KiB at a time 0.9)."""


def _shaped_alike(column: Any) -> bool:
    """Whether each text of the Arrow string ``column`` (nulls aside) is of the forms ``_ISO_TIMESTAMP`` and of a
    year other than 0, told by comparing the texts with one another; ``False`` when this cannot tell (RE2 decides).

    A column of times is a few stretches of texts of one length, each written as the one before (one format): the
    first text of a stretch is matched by the pattern (in Python), and each other text of the stretch must hold a
    digit wherever the first holds one and the first's character everywhere else, so that the pattern matches it
    the same way. Compared in NumPy a block of texts at a time: 0.9 ms for 40,000 times, where RE2, which looks at
    each text alone, costs 3.1. Held to RE2 by ``tests/test_frame.py``.
    """
    pa, numpy = require("frame", "pyarrow"), require("frame", "numpy")
    if type(column) is not pa.StringArray:
        return False
    count = len(column)
    offsets = numpy.frombuffer(column.buffers()[1], numpy.int32, count + 1, column.offset * 4)
    lengths = numpy.diff(offsets)
    starts = [0, *(numpy.flatnonzero(lengths[1:] != lengths[:-1]) + 1).tolist(), count]
    if len(starts) > _STRETCHES + 1:
        return False
    data = numpy.frombuffer(column.buffers()[2] or b"", numpy.uint8)
    for start, stop in pairwise(starts):
        length = int(lengths[start])
        nulls = column.slice(start, stop - start).null_count
        if nulls != (stop - start if length == 0 else 0):  # a null has no text, and an empty text is no time
            return False
        if length and not _alike(numpy, data[offsets[start] : offsets[stop]], length):
            return False
    return True


def _alike(numpy: ModuleType, texts: Any, length: int) -> bool:
    """Whether the bytes ``texts``, texts of ``length`` bytes one after another, are each of the forms
    ``_ISO_TIMESTAMP`` as the first is, and of a year other than 0 (``_shaped_alike``)."""
    first = texts[:length]
    if first.max() >= 0x80 or re.fullmatch(_ISO_TIMESTAMP, first.tobytes().decode("ascii")) is None:
        return False
    table = texts.reshape(-1, length)  # a text a row
    if numpy.logical_and.reduce([table[:, at] == ord("0") for at in range(4)]).any():
        return False  # year 0
    per_block = max(1, _BLOCK_BYTES // length)
    wanted = numpy.tile(first, per_block)
    digit_at = numpy.tile((first >= ord("0")) & (first <= ord("9")), per_block)
    size = per_block * length
    for at in range(0, len(texts), size):
        block = texts[at : at + size]
        end = len(block)
        digit = (block >= ord("0")) & (block <= ord("9"))
        # a digit wherever the first text has one, the first's character everywhere else
        if not numpy.where(digit_at[:end], digit, block == wanted[:end]).all():
            return False
    return True


_NULLABLE = frozenset({"Int64", "Float64", "boolean", "string", _TIMESTAMP, _DURATION})
"""The dtypes of ``Column`` that hold a null as such (``category`` codes it in its own way)."""


def _pandas_dtype(pandas: ModuleType, name: str) -> Any:
    """The dtype a column's declared name means: ``string`` is ``TEXT_DTYPE``."""
    return TEXT_DTYPE if name == "string" else name


def _categories(column: Column, values: Iterable[Any]) -> list[Any]:
    """A categorical's categories: those the column always offers, then the other values seen, sorted."""
    seen = set(values)
    seen.discard(None)
    return [*column.categories, *sorted(seen.difference(column.categories))]


def _escaped_surrogates(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    return value.encode("utf-8", "backslashreplace").decode("utf-8")


def _converts(pandas: ModuleType, column: Column, value: Any) -> bool:
    try:
        _array(pandas, column, [value])
    except (TypeError, ValueError):
        return False
    return True


# -------------------------------------------------------------------------- parquet

RUN_KEY_COLUMNS: tuple[Column, ...] = (
    Column("run_id", "string", "The run's id from its header: the key that joins a row to its run.", of="run_id"),
    Column(
        "path",
        "string",
        "The file the row was read from, by its absolute path, as the runs table names it (unique where ids are not).",
        of="path",
    ),
)
"""The columns ``to_parquet`` puts before a step's or model call's own, so every row names its run."""

PARQUET_TABLES: dict[str, tuple[Column, ...]] = {
    "steps": (*RUN_KEY_COLUMNS, *STEP_COLUMNS),
    "model_calls": (*RUN_KEY_COLUMNS, *MODEL_CALL_COLUMNS),
    "runs": RUN_COLUMNS,
}
"""The tables of many runs, each with its columns in order: a folder of a Parquet export, a ``table_frame``."""

# Each pandas dtype of a column table and the Arrow type it is stored as, and whether a null
# can occur. Chosen, not inferred per file: pyarrow would give a categorical int8 indices in
# one file and int16 in another, and a dataset whose files disagree cannot be read as one.
_ARROW_TYPES: dict[str, tuple[str, bool]] = {
    "int64": ("int64", False),
    "Int64": ("int64", True),
    "Float64": ("float64", True),
    "bool": ("bool", False),
    "boolean": ("bool", True),
    "string": ("string", True),
    "category": ("dictionary<int32, string>", True),
    _TIMESTAMP: ("timestamp[us, UTC]", True),
    _DURATION: ("duration[us]", True),
    _TEXTS: ("list<string>", True),
}

_MANIFEST = "manifest.json"
_EXPORT_FORMAT = "agentrender.parquet/2"
_FIRST_EXPORT_FORMAT = "agentrender.parquet/1"
_WINDOW_SETTINGS = ("recent_results", "result_bytes")
# A file changed within this long of being read may keep its size and mtime (filesystems
# store mtimes in steps of up to 2 s): its content hash decides whether it changed.
_MTIME_STEP_NS = 2_000_000_000


def arrow_schema(columns: Sequence[Column]) -> Any:
    """The ``pyarrow.Schema`` a table of ``columns`` is stored with: each pandas dtype mapped to one Arrow type.

    ``int64``/``Int64`` are ``int64`` (not null / nullable), ``Float64`` is ``float64``,
    ``bool``/``boolean`` are ``bool``, ``string`` is ``string``, a categorical is
    ``dictionary<int32, string>``, timestamps are ``timestamp[us, UTC]``, durations
    ``duration[us]`` and a list of texts (``object``: ``warning_texts``) ``list<string>``, which pandas reads back as
    an array of texts a row. Needs pyarrow (extra ``frame``).
    """
    pa = require("frame", "pyarrow")
    types = {
        "int64": pa.int64(),
        "float64": pa.float64(),
        "bool": pa.bool_(),
        "string": pa.string(),
        "dictionary<int32, string>": pa.dictionary(pa.int32(), pa.string()),
        "timestamp[us, UTC]": pa.timestamp("us", tz="UTC"),
        "duration[us]": pa.duration("us"),
        "list<string>": pa.list_(pa.string()),
    }
    fields = []
    for column in columns:
        arrow, nullable = _ARROW_TYPES[column.dtype]
        fields.append(pa.field(column.name, types[arrow], nullable=nullable))
    return pa.schema(fields)


def _schema_key() -> str:
    """What the parts of an export must agree on: every table's columns and their dtypes."""
    tables = {name: [[column.name, column.dtype] for column in columns] for name, columns in PARQUET_TABLES.items()}
    return hashlib.sha256(_encode_json(tables).encode()).hexdigest()[:16]


def source_id(path: str | os.PathLike[str]) -> str:
    """The stable id of a run file in a Parquet export: 16 hex digits of the SHA-256 of its absolute path.

    ``OUT/manifest.json`` names each file exported by it (``sources``, with the part that holds its rows) and lists
    each part's files by it (``parts``); the same file, named relatively or not, has the same id. A part's rows say
    their file in ``path``.
    """
    absolute = os.path.abspath(os.fspath(path))
    return hashlib.sha256(absolute.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def table_frame(
    paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    table: str = "steps",
    *,
    options: Mapping[str, int] | None = None,
) -> pd.DataFrame:
    """One table of ``PARQUET_TABLES`` for the files ``paths`` (run files, or agents' histories: each of their runs;
    a folder is its run files and one name that file, as ``runs_frame`` reads them), read one after another in this
    process.

    ``"steps"`` and ``"model_calls"`` are each file's ``steps_frame`` or ``model_calls_frame`` in the order of
    ``paths`` (each file once: ``distinct_paths``), with its ``run_id`` and ``path`` in front (the rows
    ``to_parquet`` stores); ``"runs"`` is ``runs_frame(paths, workers=1)``. The columns and dtypes are the table's;
    a categorical's categories are those its column always offers, then the others the files hold, sorted; the index
    counts the rows from 0. A file that cannot be read has no steps or model calls: its row of the runs table says
    why (``error``), and nothing is raised. ``options`` sets the window the steps are read under,
    ``{"recent_results": N, "result_bytes": B}`` (default: each run's own), as in ``to_parquet``.

    Each partition of ``agentrender.dask.read_runs`` is one ``table_frame`` of a group of files.
    """
    pandas = require("frame", "pandas")
    columns = PARQUET_TABLES.get(table)
    if columns is None:
        raise ValueError(f"table_frame: table is one of {', '.join(map(repr, PARQUET_TABLES))}, not {table!r}")
    overrides = _window_overrides(options, "table_frame")
    named = _run_paths(paths, "table_frame")
    if table == "runs":
        return runs_frame(named, workers=1, progress=False)
    lists: dict[str, list[Any]] = {column.name: [] for column in columns if column.derive is None}
    for path in named:
        absolute = os.path.abspath(path)  # what every table's path holds
        try:
            runs = _runs_of(absolute)
        except (ValueError, OSError):
            continue  # its row of the runs table holds the error
        owned = []
        for run in runs:
            try:
                view = _view(run, run.options(**overrides)) if table == "steps" else None
                owned.append((run, _own_lists(run, table, view)))
            except Exception as error:
                error.add_note(f"while reading run file {path}")
                raise
        for name, values in _keyed(absolute, owned).items():
            lists[name] += values
    paths = lists["path"]
    return _build(pandas, columns, lists, lambda i: f"run file {paths[i]}")


def _own_lists(run: Run, table: str, view: View | None) -> tuple[dict[str, list[Any]], int]:
    """The run's own columns of ``table`` (steps, read off ``view``, or model calls) as lists, and how many
    rows they hold."""
    if table == "steps":
        assert view is not None
        return _step_lists(run, view), len(run.steps)
    calls = run.model_calls
    return _call_lists(calls, lambda i: f"model call {i}"), len(calls)


@dataclass(frozen=True, slots=True, kw_only=True)
class ParquetExport:
    """What one ``to_parquet`` call did: which files it wrote, which it skipped as unchanged, which failed, and the
    warnings of the runs it read.

    It names each file as the user named it (a folder's files: the folder as named, joined with each file's name), in
    its lists and in the texts of its errors and warnings, as every command says a file; the tables name each by its
    absolute path (``os.path.abspath`` of a name here is its ``path`` there), so they join ``runs_frame``'s.
    """

    out: str
    """The export's folder."""
    written: tuple[str, ...]
    """The files whose rows were written (new or changed), in the order given, as named; then any file an interrupted
    export had not finished moving, by its absolute path (exported again though not given)."""
    unchanged: tuple[str, ...]
    """The files skipped, as named: the same size and mtime (or content) as when they were last exported."""
    errors: tuple[tuple[str, str], ...]
    """``(path, error)`` of each file given that could not be read, as named: its row of the runs table says why."""
    removed: tuple[str, ...] = ()
    """The files whose rows ``prune`` removed because the file no longer exists: by the absolute path the export
    recorded, where this call was not given it."""
    removed_runs: int = 0
    """How many runs those files held."""
    rows: Mapping[str, int] | None = None
    """How many rows of each table the written parts hold (``steps``, ``model_calls``, ``runs``)."""
    warnings: tuple[tuple[str, str, tuple[RunWarning, ...]], ...] = ()
    """``(path, run_id, warnings)`` of each run read from the files written that has warnings (what the file held
    and the run did not load, or loaded with a doubt), in the order given, the file and each warning's as named; the
    runs table holds them too (``warnings``, ``warning_texts``)."""
    unchanged_runs: int = 0
    """How many runs the files skipped as unchanged hold."""
    unchanged_warnings: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    """``(path, run_id, texts)`` of each run of the files skipped as unchanged that has warnings, in the order given:
    its ``warning_texts`` read back from its runs row, each file in them as it was named now, so an export says every
    warning of the files it was given, not only of those it wrote."""

    def to_json(self) -> dict[str, Any]:
        """The summary as JSON values (what ``agentrender export --json`` prints): each warning as a run file's
        header keeps it, with its run's id; a skipped file's as it is said (``said``), with its run's id."""
        return {
            "out": self.out,
            "written": list(self.written),
            "unchanged": list(self.unchanged),
            "unchanged_runs": self.unchanged_runs,
            "errors": [{"path": path, "error": error} for path, error in self.errors],
            "removed": list(self.removed),
            "removed_runs": self.removed_runs,
            "rows": dict(self.rows or {}),
            "warnings": [
                {"run_id": run_id, **warning_record(warning)}
                for _, run_id, warnings in self.warnings
                for warning in warnings
            ],
            "unchanged_warnings": [
                {"run_id": run_id, "said": text} for _, run_id, texts in self.unchanged_warnings for text in texts
            ],
        }


class _Batch(NamedTuple):
    """Files to export into one part, as a worker process receives them."""

    part: str
    """The part's id (``_part_id``): its tables are ``<table>/<part>.parquet`` (``_part_path``)."""
    paths: tuple[str, ...]
    out: str
    overrides: dict[str, int]


# The names an export gives its files, each written once here beside the pattern its repair knows it by: the repair
# deletes a file of these forms the manifest does not name, and refuses to touch any other (``_clear_strays``).
_PART_ID = re.compile(r"(?P<stamp>[0-9a-f]{16,})-[0-9]{5,}")
"""What ``_part_id`` makes: any ``stamp`` and ``place`` of 0 or more, as its format pads them."""
_PART_FILE = re.compile(rf"(?P<part>{_PART_ID.pattern})\.parquet")
"""What ``_part_path`` names a part's table."""
_PART_PARTIAL = re.compile(rf"\.{_PART_FILE.pattern}\.[0-9]+\.partial")
"""What ``_partial_path`` names a part's table while it is written (the number: the writing process's id)."""
_MANIFEST_PARTIAL = re.compile(rf"\.{re.escape(_MANIFEST)}\.[0-9]+\.partial")
"""What ``_partial_path`` names the manifest while it is written."""


def _part_id(stamp: int, place: int) -> str:
    """The id of the part at ``place`` among the parts of the call of time ``stamp`` (ns since the epoch, in hex:
    later calls' ids sort after)."""
    return f"{stamp:016x}-{place:05d}"


def _part_path(root: Path, table: str, part: str) -> Path:
    """The Parquet file of ``table`` of ``part`` in the export ``root``."""
    return root / table / f"{part}.parquet"


def _partial_path(path: Path) -> Path:
    """The temporary name ``path`` is written under, then renamed from: a name starting with "." is not read as part
    of the dataset by pyarrow (pandas, Dask), and ``.partial`` is not ``*.parquet`` for DuckDB's and Polars' globs."""
    return path.with_name(f".{path.name}.{os.getpid()}.partial")


_PART_BYTES = 32 << 20
"""About the most bytes of run files one part holds. The files of a part are read and their tables built in one
process before it is written (a Parquet file is written whole), so this bounds what a worker holds: their values and
tables, about three times their bytes (95 MiB for a part of 28 MiB of run files of 40 steps). A file larger than this
is a part alone."""

_POOL_BYTES = 64 << 20
"""By default the export starts a worker process per this many bytes of run files to write (at most one per CPU):
below it, starting a pool (each worker importing pandas and pyarrow, a second or more) costs more than it saves. On
2026-12-07's two loaded CPUs, 1,000 files of 40 steps (83 MiB) took 2.1 s in this process and 4.0 s in two."""

_BATCHES_PER_WORKER = 4
"""With worker processes, the files are cut into at least this many parts a worker (each no more than
``_PART_BYTES``): parts of unequal cost still keep every worker busy to the end."""


def to_parquet(
    sources: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    *,
    options: Mapping[str, int] | None = None,
    workers: int | None = None,
    progress: bool = True,
    prune: bool = False,
    names: Mapping[str, str] | None = None,
) -> ParquetExport:
    """Export the steps, model calls and one row per run of many files as a Parquet dataset in ``out``.

    ``sources`` is a file or a folder (its run files, ``run_files``: a folder of none raises ``NoRunFilesError`` before
    ``out`` is made), or an iterable of them. A run file holds one
    run; any other file is read as every command of the CLI reads it (``agentrender.imports.load_runs``): an agent's
    history gives each of its runs (a Claude Code session's main thread and sub-agents, an eval log's samples), and
    ``ParquetExport.warnings`` holds the warnings of each run read (``unchanged_warnings`` those of the runs of a file
    skipped as unchanged, as its runs row says them). The result names each file as it was given (its lists of files,
    and the file each error and warning names), where the tables name it by its absolute path. ``out`` gets three
    folders, ``steps/``, ``model_calls/`` and ``runs/``, and in each a Parquet file per part
    (``<part>.parquet``): a part holds the rows of many files (at most about 32 MiB of run files; with
    ``workers``, at least four parts a worker), since writing a Parquet file costs a fixed time that
    a file's own rows do not outweigh. The columns are those of ``PARQUET_TABLES``, stored as
    ``arrow_schema`` maps them: ``pandas.read_parquet(out / "steps")``, DuckDB's
    ``read_parquet('out/steps/*.parquet')`` and Polars' ``scan_parquet`` read each folder
    as one table. Every step and model call carries its run's ``run_id`` and ``path``, which says
    the file a row is of (a part's files are in ``out/manifest.json``).

    The export is incremental: ``out/manifest.json`` records each file's size, mtime, content
    hash and part, so a file exported before and unchanged is skipped, and files not given this
    time keep their rows (``prune=True`` removes the rows of files that no longer exist). A
    changed file's rows are written in a new part with the other files this call writes, and
    removed from the part that held them, which is written again without them (or deleted, when
    it holds no other file): a changed file costs its own rows and the rewrite of its old part. A
    file modified within 2 s of its last export, or whose mtime changed but not its size, is
    compared by content hash. Each part is written whole under a temporary name, then renamed;
    an interrupted export (stopped, killed, out of disk) leaves no file's rows twice, and the
    next call exports again each file whose rows it had not finished moving. It deletes only files of the names the
    export gives (a part the manifest does not name, a temporary file): anything else in a table's folder but a
    hidden file, which every reader of the table would read as its rows, makes it raise ``ValueError`` naming each
    such file before it writes or deletes anything, as does an ``out`` without a manifest that holds anything but the
    export's folders. An export of the
    earlier format (``agentrender.parquet/1``, a Parquet file per run file) is refused: export to a new folder.

    A file that cannot be read is a row of the runs table with its ``error`` (as in
    ``runs_frame``) and has no steps or model calls; it never fails the export. A file read
    without all it holds (a last line cut short) is exported with what it holds, and its
    run's warnings (``ParquetExport.warnings``) say what was left out, each ``lost``.
    ``options`` sets the window every run is read under, ``{"recent_results": N,
    "result_bytes": B}`` (default: each run's own); an export holds one setting, so
    adding to ``out`` with another raises ``ValueError``. ``workers`` and ``progress``
    are as in ``runs_frame``, but by default the export starts a worker process per 64 MiB of run files it writes, at
    most one per CPU (under 128 MiB it works in this process: starting worker processes costs more). ``names``
    gives what the user called a source that its path is not (the CLI's bundled sample, by its name): the result
    names it so. Needs pyarrow (extra ``frame``).
    """
    require("frame", "pyarrow")
    tqdm = require("frame", "tqdm.auto").tqdm
    overrides = _window_overrides(options, "to_parquet")
    given = [sources] if isinstance(sources, str | os.PathLike) else list(sources)
    # A folder stands for its run files (one of none raises, before OUT is made); a file that is missing is a row with
    # its error.
    found = [_run_paths(path) if Path(path).is_dir() else [os.fspath(path)] for path in given]
    called = names or {}
    given_paths = distinct_paths(path for paths in found for path in paths)
    named = {os.path.abspath(path): called.get(path, path) for path in given_paths}
    root = Path(out)
    exported = (root / _MANIFEST).exists()
    manifest = _read_manifest(root, overrides)
    entries: dict[str, dict[str, Any]] = manifest["sources"]
    parts: dict[str, dict[str, Any]] = manifest["parts"]
    _clear_strays(root, parts, exported)
    for table in PARQUET_TABLES:
        (root / table).mkdir(parents=True, exist_ok=True)
    lost = _parts_lost(root, parts)
    for part in lost:
        # a table of the part deleted by hand: each of its files is exported again, not skipped without its rows
        for source in parts[part]["sources"]:
            if source in entries:
                entries[source]["part"] = None
    # A file whose rows an interrupted call was moving is exported again, given or not, while it exists.
    for entry in entries.values():
        if _pending(entry, parts) and entry["path"] not in named and os.path.exists(entry["path"]):
            named[entry["path"]] = entry["path"]
    paths = list(named)  # what the tables and the manifest hold; what is said of a file names it as given (named)
    ids = {path: source_id(path) for path in paths}
    todo: list[str] = []
    unchanged: list[str] = []
    hashed = False  # a file compared by its content hash, found unchanged: its entry records its mtime now
    for path in paths:
        known = entries.get(ids[path])
        state = "changed" if known is None or _pending(known, parts) else _unchanged(path, known)
        if state == "maybe":
            assert known is not None
            state = "same" if _same_content(path, known) else "changed"
            hashed = hashed or state == "same"
        (unchanged if state == "same" else todo).append(path)
    moving = {ids[path] for path in todo}
    gone = [
        source
        for source, entry in entries.items()
        if prune and source not in moving and entry["path"] not in named and not os.path.exists(entry["path"])
    ]

    sizes = [_size(path) for path in todo]
    if workers is None:
        workers = max(1, min(os.cpu_count() or 1, len(todo), sum(sizes) // _POOL_BYTES))
    if workers < 1:
        raise ValueError(f"to_parquet: workers must be 1 or more, got {workers}")
    written: list[str] = []
    warned: list[tuple[str, str, tuple[RunWarning, ...]]] = []
    rows = dict.fromkeys(PARQUET_TABLES, 0)
    removed = [entries[source] for source in gone]
    shrunk: dict[str, list[str]] = {}
    try:
        # The order of the writes keeps each file's rows at most once in the dataset, and a file's manifest entry
        # names a part only while that part holds its rows: first the manifest, marking every file whose rows move
        # as not exported (and forgetting the files pruned); then the parts that held them, rewritten without
        # them; then the new parts; then the manifest naming them. A part not in the manifest is deleted by the
        # next call, and a file marked not exported is exported again.
        for source in moving & entries.keys():
            entries[source]["part"] = None
        for source in gone:
            del entries[source]
        kept = {part: [s for s in held["sources"] if _holds(entries, s, part)] for part, held in parts.items()}
        shrunk = {part: sources for part, sources in kept.items() if sources != parts[part]["sources"]}
        if shrunk:
            _save_manifest(root, manifest)
        for part, sources in shrunk.items():
            counts = _rewrite_part(root, part, {entries[source]["path"] for source in sources})
            if sources:
                parts[part] = {"sources": sources, "rows": counts}
            else:
                del parts[part]
        batches = _batches(todo, sizes, root, overrides, workers, parts)
        with tqdm(total=len(todo), unit="file", disable=not progress, desc="export") as bar:
            for batch, results in zip(batches, _export_all(batches, workers, bar), strict=True):
                parts[batch.part] = {
                    "sources": [ids[path] for path in batch.paths],
                    "rows": {table: sum(result["entry"]["rows"][table] for result in results) for table in rows},
                }
                for path, result in zip(batch.paths, results, strict=True):
                    entries[ids[path]] = {**result["entry"], "part": batch.part}
                    written.append(path)
                    for table, count in result["entry"]["rows"].items():
                        rows[table] += count
                    warned += [
                        (path, run_id, tuple(_warning_as_named(w, path, named[path]) for w in warnings))
                        for run_id, warnings in result["warnings"]
                    ]
    finally:
        # Written after every part it names, and also when interrupted: what was done is kept. Not written when
        # nothing changed (the export of unchanged files writes nothing).
        if todo or gone or lost or hashed or shrunk:
            _save_manifest(root, manifest)

    errors = [
        (path, _as_named(entry["error"], path, named[path]))
        for entry in entries.values()
        if (path := entry["path"]) in named and entry.get("error") is not None
    ]
    order = {path: i for i, path in enumerate(paths)}
    kept_entries = [entries[ids[path]] for path in unchanged]
    stored = _stored_warnings(root, [entry for entry in kept_entries if entry.get("warnings") != 0])
    return ParquetExport(
        out=str(root),
        written=tuple(named[path] for path in sorted(written, key=order.__getitem__)),
        unchanged=tuple(named[path] for path in unchanged),
        errors=tuple((named[path], error) for path, error in sorted(errors, key=lambda error: order[error[0]])),
        removed=tuple(named.get(entry["path"], entry["path"]) for entry in removed),
        removed_runs=sum(len(entry.get("run_ids") or ()) for entry in removed),
        rows=rows,
        warnings=tuple((named[path], run_id, said) for path, run_id, said in sorted(warned, key=lambda w: order[w[0]])),
        unchanged_runs=sum(len(entry.get("run_ids") or ()) for entry in kept_entries),
        unchanged_warnings=tuple(
            (named[path], run_id, tuple(_as_named(text, path, named[path]) for text in texts))
            for path in unchanged
            for run_id, texts in stored.get(path, ())
        ),
    )


def _as_named(text: str, absolute: str, named: str) -> str:
    """``text``, said of the file ``absolute`` or of a file beside it (a Claude Code session's sub-agent), with the
    path it opens with as the user named the file (``named``): the tables name every file by its absolute path, and
    what is said to the user names it as it was given (a bundled sample by its name, a file in a folder given by the
    folder as given)."""
    if text == absolute or text.startswith(f"{absolute}:"):
        return named + text[len(absolute) :]
    folder = os.path.join(os.path.dirname(absolute), "")
    if named == absolute or not text.startswith(folder):
        return text
    return os.path.join(os.path.dirname(named), "") + text[len(folder) :]


def _warning_as_named(warning: RunWarning, absolute: str, named: str) -> RunWarning:
    """``warning`` of a run read from the file ``absolute``, its file as the user named that one (``_as_named``)."""
    return replace(warning, path=_as_named(warning.path, absolute, named))


def _stored_warnings(root: Path, entries: Sequence[Mapping[str, Any]]) -> dict[str, list[tuple[str, list[str]]]]:
    """``(run_id, warning_texts)`` of each run that has warnings of the files of ``entries`` (by the path the manifest
    records), in the order of its part: what an export wrote of those files' warnings, read back, each part once."""
    parquet = require("frame", "pyarrow.parquet")
    wanted: dict[str, set[str]] = {}
    for entry in entries:
        wanted.setdefault(entry["part"], set()).add(entry["path"])
    stored: dict[str, list[tuple[str, list[str]]]] = {}
    for part, paths in wanted.items():
        try:
            rows = parquet.read_table(_part_path(root, "runs", part), columns=["path", "run_id", "warning_texts"])
        except FileNotFoundError:  # removed since this export looked for it (_parts_lost)
            continue
        for row in rows.to_pylist():
            if row["path"] in paths and row["warning_texts"]:
                stored.setdefault(row["path"], []).append((row["run_id"] or "", row["warning_texts"]))
    return stored


def _window_overrides(options: Mapping[str, int] | None, caller: str) -> dict[str, int]:
    overrides = dict(options or {})
    for key, value in overrides.items():
        if key not in _WINDOW_SETTINGS:
            raise ValueError(f"{caller}: options takes {' and '.join(_WINDOW_SETTINGS)}, not {key!r}")
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"{caller}: options[{key!r}] must be an integer of 0 or more, got {value!r}")
    return overrides


def _read_manifest(root: Path, overrides: dict[str, int]) -> dict[str, Any]:
    """The export's manifest, or a new one; an export made with other columns or options, or of another format, is
    refused."""
    fresh = {"format": _EXPORT_FORMAT, "schema": _schema_key(), "options": overrides, "sources": {}, "parts": {}}
    path = root / _MANIFEST
    if not path.exists():
        # An export stopped before its first manifest leaves only its own folders and parts (what is in those is
        # for _clear_strays to judge), and the manifest it was writing.
        names = [p.name for p in root.iterdir()] if root.is_dir() else []
        others = [name for name in names if name not in PARQUET_TABLES and not _MANIFEST_PARTIAL.fullmatch(name)]
        if others:
            raise ValueError(f"{root}: not a Parquet export of agentrender (no {_MANIFEST}), and not empty")
        return fresh
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ValueError(f"{path}: cannot be read: {error}") from error
    if isinstance(manifest, dict) and manifest.get("format") == _FIRST_EXPORT_FORMAT:
        raise ValueError(
            f"{root}: a Parquet export of the earlier format {_FIRST_EXPORT_FORMAT} (a Parquet file per run file), "
            f"which this agentrender does not add to (it writes {_EXPORT_FORMAT}, many run files a Parquet file): "
            "export to a new folder"
        )
    if not isinstance(manifest, dict) or manifest.get("format") != _EXPORT_FORMAT:
        raise ValueError(f"{path}: not a manifest of format {_EXPORT_FORMAT}")
    if manifest.get("schema") != fresh["schema"]:
        changes = _column_changes(root, manifest)
        raise ValueError(
            f"{root}: exported with other columns (another version of agentrender{changes}): an export holds one "
            "set of columns, so export to a new folder"
        )
    if manifest.get("options") != overrides:
        raise ValueError(
            f"{root}: exported with options {manifest.get('options')}, not {overrides}: "
            "an export holds one window setting, so export to a new folder"
        )
    return manifest


def _column_changes(root: Path, manifest: Mapping[str, Any]) -> str:
    """How the columns of the tables of the export ``root`` differ from ``PARQUET_TABLES``'s, read off the schema of a
    part of each table (``; runs: new parent_run_id, started_runs``), for the refusal to add to it; ``""`` where no
    part says (none holds the table's rows, or it cannot be read), or where only dtypes differ."""
    parquet = require("frame", "pyarrow.parquet")
    parts = manifest.get("parts")
    said = []
    for table, columns in PARQUET_TABLES.items():
        held = [
            part
            for part, entry in (parts.items() if isinstance(parts, dict) else ())
            if isinstance(entry, dict) and isinstance(entry.get("rows"), dict) and entry["rows"].get(table)
        ]
        names = None
        for part in sorted(held):
            with contextlib.suppress(OSError, ValueError, TypeError):
                names = list(parquet.read_schema(_part_path(root, table, part)).names)
                break
        if names is None:
            continue
        now = [column.name for column in columns]
        new, gone = [n for n in now if n not in names], [n for n in names if n not in now]
        change = ", ".join(
            [*(["new " + ", ".join(new)] if new else []), *(["no longer " + ", ".join(gone)] if gone else [])]
        )
        if change:
            said.append(f"{table}: {change}")
    return "".join(f"; {one}" for one in said)


def _manifest_text(manifest: Mapping[str, Any]) -> str:
    # On one line: Python's JSON encoder is its C one only without an indent (with one, 40 ms for 1,000 files).
    return json.dumps(manifest, sort_keys=True) + "\n"


def _save_manifest(root: Path, manifest: Mapping[str, Any]) -> None:
    _write_atomic(root / _MANIFEST, _manifest_text(manifest).encode())


def _pending(entry: Mapping[str, Any], parts: Mapping[str, Any]) -> bool:
    """Whether the manifest says no part holds the rows of the file of ``entry``: an interrupted call was moving them,
    or its part lost a table."""
    return entry.get("part") not in parts


def _holds(entries: Mapping[str, Mapping[str, Any]], source: str, part: str) -> bool:
    """Whether the manifest says ``part`` holds the rows of ``source``: a source its part lists and whose entry does
    not name that part had its rows on the way out of it."""
    entry = entries.get(source)
    return entry is not None and entry.get("part") == part


def _clear_strays(root: Path, parts: Collection[str], exported: bool) -> None:
    """Delete what an interrupted call left: in the tables' folders a part's table the manifest does not name
    (written, and never recorded) and one under its temporary name, and beside the manifest the manifest under its
    temporary name. Only files of the names an export gives: a table's folder that holds anything else but a hidden
    file (``_foreign``) is refused before anything is deleted, since every reader of the table would read it as rows
    of the table. ``exported``: whether ``root`` holds a manifest (else the refusal says it is no export)."""
    strays: list[str] = []
    foreign: list[str] = []
    for table in PARQUET_TABLES:
        try:
            found = list(os.scandir(root / table))
        except FileNotFoundError:
            continue
        for entry in found:
            own = _PART_FILE.fullmatch(entry.name)
            partial = _PART_PARTIAL.fullmatch(entry.name)
            if (own is None and partial is None) or not entry.is_file(follow_symlinks=False):
                if _foreign(entry.name):
                    foreign.append(entry.path)
            elif partial is not None or (own is not None and own["part"] not in parts):
                strays.append(entry.path)
    if foreign:
        raise ValueError(_foreign_text(root, sorted(foreign), exported))
    if root.is_dir():
        strays += [entry.path for entry in os.scandir(root) if _MANIFEST_PARTIAL.fullmatch(entry.name)]
    for path in strays:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


def _foreign(name: str) -> bool:
    """Whether a file (or folder) ``name`` in a table's folder that the export did not write is read by a reader of
    the table: pyarrow's datasets (pandas', Dask's) read every name but those starting with "." or "_", at any depth,
    and DuckDB's and Polars' ``*.parquet`` every name so ending. A hidden file (``.DS_Store``) is read by none."""
    return not name.startswith(".") or name.endswith(".parquet")


def _foreign_text(root: Path, paths: Sequence[str], exported: bool) -> str:
    """Why an export refuses to write to ``root``, whose tables' folders hold the files ``paths`` it did not write."""
    shown = ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")
    files = "a file" if len(paths) == 1 else f"{len(paths)} files"
    if not exported:
        return (
            f"{root}: not a Parquet export of agentrender (no {_MANIFEST}), and its tables' folders hold {files} "
            f"it did not write ({shown}): export to a new folder"
        )
    return (
        f"{root}: {files} in its tables' folders that the export did not write ({shown}), which every reader of the "
        f"table would read as its rows: move {'it' if len(paths) == 1 else 'them'} out of {root}, then export "
        "again (nothing was written or deleted)"
    )


def _parts_lost(root: Path, parts: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The parts that miss a table the manifest says they have rows in (deleted by hand)."""
    return [
        part
        for part, held in parts.items()
        if any(count and not _part_path(root, table, part).is_file() for table, count in held["rows"].items())
    ]


def _unchanged(path: str, entry: Mapping[str, Any]) -> str:
    """``"same"`` when the file's size and mtime are as recorded, ``"maybe"`` when its content hash must
    decide (the size is, the mtime is not or cannot be trusted), else ``"changed"``."""
    if entry["sha256"] is None:
        return "changed"
    try:
        stat = os.stat(path)
    except OSError:
        return "changed"
    if stat.st_size != entry["size"]:
        return "changed"
    if stat.st_mtime_ns == entry["mtime_ns"] and stat.st_mtime_ns < entry["checked_ns"] - _MTIME_STEP_NS:
        return "same"
    return "maybe"


def _same_content(path: str, entry: dict[str, Any]) -> bool:
    """Whether the file holds what it held when exported (its content hash), recording its size and mtime now when
    it does."""
    # The clock is read before the file: a write after it makes the file look changed, never unchanged.
    checked = time.time_ns()
    try:
        stat = os.stat(path)
        same = stat.st_size == entry["size"] and bool(_hash(path) == entry["sha256"])
    except OSError:
        return False
    if same:
        entry.update(size=stat.st_size, mtime_ns=stat.st_mtime_ns, checked_ns=checked)
    return same


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0  # a row with its error


def _batches(
    paths: Sequence[str],
    sizes: Sequence[int],
    root: Path,
    overrides: dict[str, int],
    workers: int,
    parts: Collection[str],
) -> list[_Batch]:
    """``paths`` cut into parts in their order: each at most about ``_PART_BYTES`` of run files, and with workers at
    least ``_BATCHES_PER_WORKER`` a worker; each named by the time of this call and its place, after every part
    before it. ``sizes``: the bytes of each file."""
    total = sum(sizes)
    count = min(len(paths), max(-(-total // _PART_BYTES), workers * _BATCHES_PER_WORKER if workers > 1 else 1))
    groups: dict[int, list[str]] = {}
    start = 0
    for at, (path, size) in enumerate(zip(paths, sizes, strict=True)):
        # the part of the bytes before it (of the files, when they hold none): count parts of about equal bytes
        groups.setdefault(start * count // total if total else at * count // len(paths), []).append(path)
        start += size
    earlier = (_PART_ID.fullmatch(part) for part in parts)
    stamp = max([time.time_ns(), *(int(match["stamp"], 16) + 1 for match in earlier if match)])
    return [_Batch(_part_id(stamp, i), tuple(group), str(root), overrides) for i, group in enumerate(groups.values())]


def _export_all(batches: Sequence[_Batch], workers: int, bar: Any) -> Iterator[list[dict[str, Any]]]:
    """Each batch's results, in order: in this process, or through the process pool ``runs_frame`` reads with; the
    progress bar ``bar`` counts the files as they are read."""
    if workers == 1 or len(batches) <= 1:
        for batch in batches:
            yield _export_batch(batch, bar.update)
        return
    with ProcessPoolExecutor(max_workers=workers, mp_context=_start_method()) as pool:
        try:
            for batch, results in zip(batches, pool.map(_export_batch, batches), strict=True):
                bar.update(len(batch.paths))
                yield results
        except BrokenProcessPool as error:
            raise _stopped("to_parquet") from error


def _hash(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _export_batch(batch: _Batch, tick: Callable[[int], object] | None = None) -> list[dict[str, Any]]:
    """Read the files of ``batch`` and write its part (in a worker process): what the manifest records of each file,
    and each run's warnings. ``tick`` is told of each file read."""
    pandas = require("frame", "pandas")
    read = []
    for path in batch.paths:
        read.append(_read_source(path, batch.overrides))
        if tick is not None:
            tick(1)
    tables = _part_tables(pandas, read)
    folder = Path(batch.out)
    for table, data in tables.items():
        if data.num_rows:
            _write_part(_part_path(folder, table, batch.part), data)
    return [{"entry": one["entry"], "warnings": one["warnings"]} for one in read]


def _read_source(path: str, overrides: dict[str, int]) -> dict[str, Any]:
    """The values of each table of the runs of the file ``path``, as lists, and what the manifest records of it."""
    entry: dict[str, Any] = {"path": path, "size": None, "mtime_ns": None, "sha256": None}
    # The clock is read before the file: a write after it makes the file look changed, never unchanged.
    entry["checked_ns"] = time.time_ns()
    runs: list[Run] = []
    try:
        stat = os.stat(path)
        entry.update(size=stat.st_size, mtime_ns=stat.st_mtime_ns, sha256=_hash(path))
        runs = _runs_of(path)
        facts = [_RunFacts.of(run, run.options(**overrides)) for run in runs]
        rows = [_values_of(path, row) for row in facts]
        lists = {
            table: _keyed(path, [(row.run, _own_lists(row.run, table, row.view)) for row in facts])
            for table in ("steps", "model_calls")
        }
        error = None
    except (ValueError, OSError) as failure:
        error = _failure_text(path, failure)
        rows, runs, lists = [_error_values(path, failure)], [], {}
    entry.update(run_ids=[run.run_id or None for run in runs], error=error)
    entry["rows"] = {"steps": 0, "model_calls": 0, **{t: len(values["path"]) for t, values in lists.items()}}
    entry["rows"]["runs"] = len(rows)
    entry["warnings"] = sum(len(run.warnings) for run in runs)  # when 0, an export that skips it reads nothing back
    warnings = [(run.run_id, tuple(run.warnings)) for run in runs if run.warnings]
    return {"entry": entry, "lists": lists, "rows": rows, "warnings": warnings}


def _part_tables(pandas: ModuleType, read: list[dict[str, Any]]) -> dict[str, Any]:
    """The Arrow table of each table of the files ``read`` (``_read_source``), one after another. A file whose
    values Parquet cannot store (a lone surrogate) is made its runs row with the error, as one that cannot be read."""
    while True:
        try:
            return {table: _arrow(pandas, table, _joined(read, table)) for table in PARQUET_TABLES}
        except ValueError:
            if not _unstorable(pandas, read):
                raise


def _unstorable(pandas: ModuleType, read: list[dict[str, Any]]) -> bool:
    """Make each file of ``read`` whose steps or model calls Arrow refuses a file that cannot be read (its runs row
    says why); whether there was one."""
    found = False
    for one in read:
        path = one["entry"]["path"]
        try:
            for table, lists in one["lists"].items():
                _arrow(pandas, table, dict(lists))
        except ValueError as failure:
            found = True
            one["entry"].update(run_ids=[], error=_failure_text(path, failure), warnings=0)
            one["entry"]["rows"] = {"steps": 0, "model_calls": 0, "runs": 1}
            one.update(lists={}, rows=[_error_values(path, failure)], warnings=[])
    return found


def _joined(read: Sequence[Mapping[str, Any]], table: str) -> dict[str, list[Any]]:
    """The lists of ``table`` of the files ``read``, one after another."""
    if table == "runs":
        rows = [row for one in read for row in one["rows"]]
        return {column.name: [row[i] for row in rows] for i, column in enumerate(_RUN_VALUES)}
    held = [one["lists"][table] for one in read if table in one["lists"]]
    if len(held) == 1:
        return dict(held[0])
    names = [column.name for column in PARQUET_TABLES[table] if column.derive is None]
    return {name: list(chain.from_iterable(lists.get(name, ()) for lists in held)) for name in names}


def _keyed(path: str, owned: Sequence[tuple[Run, tuple[dict[str, list[Any]], int]]]) -> dict[str, list[Any]]:
    """The rows of one table of the runs of the file ``path`` (each run's own lists and how many rows they hold,
    ``_own_lists``), one after another, with each row's ``run_id`` and ``path`` in front."""
    if len(owned) == 1:  # a run file: its lists as they are
        ((run, (lists, count)),) = owned
        return {"run_id": [run.run_id or None] * count, "path": [path] * count, **lists}
    keyed: dict[str, list[Any]] = {"run_id": [], "path": []}
    for run, (lists, count) in owned:
        keyed["run_id"] += [run.run_id or None] * count
        keyed["path"] += [path] * count
        for name, values in lists.items():
            keyed.setdefault(name, []).extend(values)
    return keyed


# The Python types a column of each dtype converts to Arrow directly; a column holding any
# other value (a token count written as text, say) is converted by pandas, as in the frames.
_PLAIN: dict[str, frozenset[type]] = {
    "int64": frozenset({int, type(None)}),
    "Int64": frozenset({int, type(None)}),
    "Float64": frozenset({int, float, type(None)}),
    "bool": frozenset({bool, type(None)}),
    "boolean": frozenset({bool, type(None)}),
    "string": frozenset({str, type(None)}),
    "category": frozenset({str, type(None)}),
}


def _arrow(pandas: ModuleType, table: str, lists: dict[str, list[Any]]) -> Any:
    """The Arrow table of the ``lists`` of ``table`` of one file or many: the values their frames hold, without
    building the frames. An error names the file of the row it is about.

    A pandas frame costs a fixed time per column that dominates for a run of a few dozen
    steps; Arrow arrays from the same lists cost a fraction of it. Timestamps, durations and
    any value of an unexpected type still go through the frame's own conversion, so the
    stored values are the frame's (the round-trip tests hold the two equal).
    """
    pa = require("frame", "pyarrow")
    columns = PARQUET_TABLES[table]
    schema = _parquet_schema(pandas, table)
    paths = lists["path"]
    built = _Series(pandas, columns, lists, paths.__getitem__)
    arrays = []
    for column, field in zip(columns, schema, strict=True):
        values = lists.get(column.name)
        plain = _PLAIN.get(column.dtype)
        # each value's type looked up in C (map, set), where a look at each in Python cost 0.5 s of 1,000 files
        if values is not None and plain is not None and set(map(type, values)) <= plain:
            if column.dtype == "category":
                categories = _categories(column, values)
                bad = next((category for category in categories if not _utf8(category)), None)
                if bad is not None:
                    raise ValueError(
                        f"column {column.name!r} (row {values.index(bad)}): text with a lone surrogate, "
                        "which Parquet cannot store"
                    )
                code = {category: i for i, category in enumerate(categories)}
                indices = pa.array(list(map(code.get, values)), pa.int32())  # a null's code: None, not in code
                arrays.append(pa.DictionaryArray.from_arrays(indices, pa.array(categories, pa.string())))
            else:
                try:
                    arrays.append(pa.array(values, field.type))
                except UnicodeEncodeError:
                    at = next(i for i, v in enumerate(values) if isinstance(v, str) and not _utf8(v))
                    raise ValueError(
                        f"column {column.name!r} (row {at}): text with a lone surrogate, which Parquet cannot store"
                    ) from None
            continue
        if values is not None and _no_value(values):
            arrays.append(pa.nulls(len(values), field.type))
            continue
        series = (
            built[column.name]
            if column.derive is None
            else column.derive(built).astype(_pandas_dtype(pandas, column.dtype))
        )
        arrays.append(pa.Array.from_pandas(series, type=field.type))
    return pa.Table.from_arrays(arrays, schema=schema)


class _Series(dict[str, Any]):
    """The frame's series of each column of ``lists``, built when first asked for (by a derived column, say)."""

    def __init__(
        self, pandas: ModuleType, columns: Sequence[Column], lists: dict[str, list[Any]], label: Callable[[int], str]
    ) -> None:
        super().__init__()
        self.pandas, self.columns, self.lists, self.label = pandas, {c.name: c for c in columns}, lists, label

    def __missing__(self, name: str) -> Any:
        column = self.columns[name]
        series = _build(self.pandas, (column,), {name: self.lists[name]}, self.label)[name]
        self[name] = series
        return series


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


_SCHEMAS: dict[str, Any] = {}


def _parquet_schema(pandas: ModuleType, table: str) -> Any:
    """The Arrow schema of ``table`` with pandas' metadata, so ``pandas.read_parquet`` gives back the frame's dtypes."""
    schema = _SCHEMAS.get(table)
    if schema is None:
        pa = require("frame", "pyarrow")
        columns = PARQUET_TABLES[table]
        empty = _build(pandas, columns, {column.name: [] for column in columns if column.derive is None}, str)
        schema = pa.Table.from_pandas(empty, schema=arrow_schema(columns), preserve_index=False).schema
        # pyarrow records text as "string", which pandas reads back in its default storage
        # (Arrow's, which cannot hold a lone surrogate); the frames' own dtype is named instead.
        metadata = json.loads(schema.metadata[b"pandas"])
        for entry in metadata["columns"]:
            if entry["numpy_type"] == "string":
                entry["numpy_type"] = TEXT_DTYPE
        schema = schema.with_metadata({b"pandas": json.dumps(metadata).encode()})
        _SCHEMAS[table] = schema
    return schema


def _write_part(path: Path, data: Any) -> None:
    parquet = require("frame", "pyarrow.parquet")
    partial = _partial_path(path)
    parquet.write_table(data, partial)
    os.replace(partial, path)


def _write_atomic(path: Path, data: bytes) -> None:
    partial = _partial_path(path)
    partial.write_bytes(data)
    os.replace(partial, path)


def _rewrite_part(root: Path, part: str, paths: Collection[str]) -> dict[str, int]:
    """Write each table of ``part`` again with the rows of the files ``paths`` only (deleted when it holds none of
    theirs); how many rows each holds now. Each categorical's categories are made again of the values left, as the
    frames of those files have them."""
    pa, compute = require("frame", "pyarrow"), require("frame", "pyarrow.compute")
    parquet = require("frame", "pyarrow.parquet")
    pandas = require("frame", "pandas")
    counts = dict.fromkeys(PARQUET_TABLES, 0)
    for table in PARQUET_TABLES:
        file = _part_path(root, table, part)
        if not paths or not file.is_file():
            with contextlib.suppress(FileNotFoundError):
                file.unlink()
            continue
        data = parquet.read_table(file)
        data = data.filter(compute.is_in(data["path"], value_set=pa.array(sorted(paths), pa.string())))
        if not data.num_rows:
            file.unlink()
            continue
        arrays = []
        for column in PARQUET_TABLES[table]:
            values = data[column.name]
            if column.dtype != "category":
                values = values.combine_chunks()
            else:  # as text first: the row groups of a large part may each hold a dictionary of their own
                texts = values.cast(pa.string()).combine_chunks()
                categories = pa.array(_categories(column, compute.unique(texts).to_pylist()), pa.string())
                values = pa.DictionaryArray.from_arrays(
                    compute.index_in(texts, value_set=categories).cast(pa.int32()), categories
                )
            arrays.append(values)
        _write_part(file, pa.Table.from_arrays(arrays, schema=_parquet_schema(pandas, table)))
        counts[table] = len(arrays[0])
    return counts
