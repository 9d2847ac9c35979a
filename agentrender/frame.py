"""Runs as pandas frames: one row per step, per captured model call, or per run file.

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

import json
import multiprocessing
import multiprocessing.context
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from agentrender import _fast, render
from agentrender._extras import require
from agentrender._types import Decision, Observation, Step
from agentrender.runfile import ModelCall, Run, RunFileError, load_run
from agentrender.views import RESULT_KINDS, BlockFact, StepFact, View, Views, utf8_bytes

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "MODEL_CALL_COLUMNS",
    "RUN_COLUMNS",
    "STEP_COLUMNS",
    "Column",
    "model_calls_frame",
    "runs_frame",
    "steps_frame",
]


@dataclass(frozen=True, slots=True)
class Column:
    """One column of a frame: its name, dtype and meaning, and how it is computed.

    ``value`` computes the column's value for one row, from the row's field ``of`` (or the
    whole row); where that field is ``None`` the column holds ``absent``. A column computed
    from other columns of the frame sets ``derive`` instead.
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
    """The field of the row type ``value`` is given (``"decision"``, ``"facts"``, ...); ``""`` for the whole row."""
    absent: Any = None
    """The value when that field is ``None`` (no decision, not rendered, ...): null unless set."""
    categories: tuple[str, ...] = ()
    """For a categorical: the values it always offers, in this order; values seen besides follow, sorted."""


_KINDS = ("tool_call", "complete", "truncated", "no_tool_call")
_STATUSES = ("ok", "error", "invalid_decision", "interrupted")
_STOPS = (
    render.STOP_TOOL_USE,
    render.STOP_END_TURN,
    render.STOP_MAX_TOKENS,
    render.STOP_REFUSAL,
    render.STOP_CONTEXT_WINDOW_EXCEEDED,
)
_END_REASONS = ("completed", "repeated_tool_failures", "max_steps", "loop_detected", "interrupted", "agent_error")
_TIMESTAMP = "datetime64[us, UTC]"
_DURATION = "timedelta64[us]"


def _or_null(text: str) -> str | None:
    return text or None


_encode_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode


def _usage(call: ModelCall, key: str) -> Any:
    usage = call.usage
    return usage.get(key) if usage is not None else None


# ---------------------------------------------------------------------------- steps


class _StepRow(NamedTuple):
    """Everything one row of ``steps_frame`` is computed from."""

    step: Step
    decision: Decision | None
    observation: Observation | None
    record: Mapping[str, Any]
    facts: StepFact | None
    """The step's facts in the view after the last step; ``None`` when that view skips it."""
    shown: BlockFact | None
    """The block of the step's user turn in that view: what the model was shown for it."""
    call: ModelCall | None
    """The last model call made for the step."""
    calls: int


STEP_COLUMNS: tuple[Column, ...] = (
    Column("index", "int64", "The step's index in the run.", lambda step: step.index, of="step"),
    Column("kind", "category", "The decision's kind.", lambda d: d.kind, of="decision", categories=_KINDS),
    Column(
        "tool",
        "category",
        "The tool the decision names; null when it names none.",
        lambda d: d.tool or None,
        of="decision",
    ),
    Column("reason", "string", "The decision's reason text.", lambda d: d.reason, of="decision"),
    Column("reason_bytes", "Int64", "UTF-8 bytes of the reason.", lambda d: utf8_bytes(d.reason), of="decision"),
    Column(
        "args",
        "string",
        "The decision's arguments as compact JSON text; null when it recorded none.",
        lambda d: _encode_json(d.args) if d.args is not None else None,
        of="decision",
    ),
    Column(
        "args_invalid",
        "boolean",
        "True when the arguments were not JSON and are kept out of band in invalid_args.",
        lambda d: d.invalid_args != "",
        of="decision",
    ),
    Column(
        "args_base64",
        "boolean",
        "True when invalid_args is base64 because the raw arguments were not UTF-8.",
        lambda d: d.invalid_base64,
        of="decision",
    ),
    Column(
        "invalid_args",
        "string",
        "The out-of-band arguments (text, or base64 of the raw bytes); null when there are none.",
        lambda d: d.invalid_args or None,
        of="decision",
    ),
    Column(
        "status", "category", "The observation's status.", lambda o: o.status, of="observation", categories=_STATUSES
    ),
    Column(
        "failed",
        "boolean",
        "True when the observation is an error or an invalid decision (rendered with is_error).",
        lambda o: o.failed,
        of="observation",
    ),
    Column(
        "interrupted",
        "boolean",
        "True when the process died while the tool ran, so the outcome is unknown.",
        lambda o: o.interrupted,
        of="observation",
    ),
    Column(
        "content_bytes",
        "Int64",
        "UTF-8 bytes of the observation's content.",
        lambda o: utf8_bytes(o.content),
        of="observation",
    ),
    Column(
        "summary_bytes",
        "Int64",
        "UTF-8 bytes of the observation's summary.",
        lambda o: utf8_bytes(o.summary),
        of="observation",
    ),
    Column(
        "rendered",
        "bool",
        "True when the render showed the step (it has a decision); other steps take no place in the window.",
        lambda facts: True,
        of="facts",
        absent=False,
    ),
    Column(
        "position",
        "Int64",
        "The step's place among the rendered steps, from 0 (what the window counts).",
        lambda facts: facts.position,
        of="facts",
    ),
    Column(
        "tool_use_id",
        "string",
        "The id the render gave the step's tool_use block and result (the options' hook, else step_<index>).",
        lambda facts: facts.tool_use_id,
        of="facts",
    ),
    Column(
        "full",
        "bool",
        "True when the render showed the result in full: the step is inside the recent-results window.",
        lambda facts: facts.full,
        of="facts",
        absent=False,
    ),
    Column(
        "nudge",
        "bool",
        "True when the render answered the step with a text nudge instead of a tool_result.",
        lambda shown: shown.block.type != "tool_result",
        of="shown",
        absent=False,
    ),
    Column(
        "shown_bytes",
        "Int64",
        "UTF-8 bytes of what the render's user turn showed for the step.",
        lambda shown: shown.shown_bytes,
        of="shown",
    ),
    Column(
        "shown_as",
        "category",
        "What the model was shown for the step (a key of views.BLOCK_KINDS): the result in full (result), "
        "cut at the cap (cut), its summary (summary), a nudge (nudge_no_tool_call, nudge_truncated, "
        "nudge_invalid), the interrupted re-request (interrupted), or a hook's block (hook); null when skipped.",
        lambda shown: shown.kind,
        of="shown",
        categories=RESULT_KINDS,
    ),
    Column(
        "hidden_bytes",
        "Int64",
        "Bytes of the step's content the model was not shown: all of it for a summary, the rest past the cap "
        "for a cut result, else 0; null when skipped.",
        lambda shown: shown.hidden_bytes,
        of="shown",
    ),
    Column("started_at", _TIMESTAMP, "When the step started.", lambda record: record.get("started_at"), of="record"),
    Column("ended_at", _TIMESTAMP, "When the step ended.", lambda record: record.get("ended_at"), of="record"),
    Column(
        "duration", _DURATION, "ended_at - started_at.", derive=lambda built: built["ended_at"] - built["started_at"]
    ),
    Column("model_calls", "int64", "How many model calls were captured for the step.", lambda n: n, of="calls"),
    Column(
        "stop_reason",
        "category",
        "The stop reason of the step's last model call.",
        lambda call: call.stop_reason or None,
        of="call",
        categories=_STOPS,
    ),
    Column(
        "input_tokens",
        "Int64",
        "Input tokens of the step's last model call, as the provider reported them.",
        lambda call: _usage(call, "input_tokens"),
        of="call",
    ),
    Column(
        "output_tokens",
        "Int64",
        "Output tokens of the step's last model call, as the provider reported them.",
        lambda call: _usage(call, "output_tokens"),
        of="call",
    ),
)
"""The columns of ``steps_frame``, in order."""

_NO_RECORD: dict[str, Any] = {}


def steps_frame(run: Run, options: render.Options | None = None, *, views: Views | None = None) -> pd.DataFrame:
    """One row per step of ``run``, in index order, with the columns of ``STEP_COLUMNS``.

    What the model was shown (``rendered``, ``full``, ``nudge``, ``shown_as``, ...) are the
    facts of the view after the last step under ``options`` (default ``run.options()``):
    ``Views(run, options).at(None).steps``. A caller that holds ``Views`` of ``run`` already
    passes them as ``views`` (and no ``options``), so no step is rendered a second time.
    """
    pandas = require("frame", "pandas")
    if views is not None and (options is not None or views.run is not run):
        raise ValueError("steps_frame: views must be of the same run, and come without options")
    with _fast.paused():
        view = (
            views.at(None) if views is not None else _view(run, options if options is not None else facts_options(run))
        )
        return _steps_frame(pandas, run, view)


def _steps_frame(pandas: ModuleType, run: Run, view: View) -> pd.DataFrame:
    facts = view.steps
    last = run.last_calls()
    counts = Counter(call.step for call in run.model_calls)
    records = run.step_records
    rows = [
        _StepRow(
            step,
            step.decision,
            step.observation,
            records.get(step.index, _NO_RECORD),
            fact if fact.rendered else None,
            fact.result_block,
            last.get(step.index),
            counts.get(step.index, 0),
        )
        for step, fact in zip(run.steps, facts, strict=True)
    ]
    return _frame(pandas, STEP_COLUMNS, rows, lambda i: f"step {rows[i].step.index}")


_NO_OPENING = "(this run recorded no opening)"


def facts_options(run: Run, **overrides: Any) -> render.Options:
    """``run.options(**overrides)``, with a stand-in opening for a run that recorded neither opening nor goal.

    Such a run cannot be rendered as recorded, but what a view shows for each step does not
    depend on the opening text: the stand-in gives the same per-step facts instead of
    refusing the whole run. The frames and the CLI's steps table read runs with it.
    """
    if not run.opening.strip():
        overrides = {"opening": _NO_OPENING, **overrides}
    return run.options(**overrides)


def _view(run: Run, options: render.Options) -> View:
    """The view after the last step of ``run``: where every per-step fact of a frame comes from."""
    return Views(run, options).at(None)


# ---------------------------------------------------------------------- model calls


def _blocks(call: ModelCall, kind: str) -> int:
    return sum(1 for block in call.response.content if block.type == kind)


MODEL_CALL_COLUMNS: tuple[Column, ...] = (
    Column("step", "int64", "The index of the step the call was made for.", lambda c: c.step),
    Column(
        "line",
        "Int64",
        "The run-file line the call was read from; null for a call built in memory.",
        lambda c: c.line or None,
    ),
    Column("latency_ms", "Float64", "How long the call took, in milliseconds.", lambda c: c.latency_ms),
    Column("request_key", "string", "The replay key of the request that was sent.", lambda c: _or_null(c.request_key)),
    Column("response_id", "string", "The provider's message id.", lambda c: _or_null(c.response.id)),
    Column("model", "category", "The model that replied.", lambda c: _or_null(c.response.model)),
    Column(
        "stop_reason",
        "category",
        "Why the model stopped; null when the reply recorded none.",
        lambda c: _or_null(c.stop_reason),
        categories=_STOPS,
    ),
    Column(
        "input_tokens", "Int64", "Input tokens, as the provider reported them.", lambda c: _usage(c, "input_tokens")
    ),
    Column(
        "output_tokens", "Int64", "Output tokens, as the provider reported them.", lambda c: _usage(c, "output_tokens")
    ),
    Column(
        "cache_read_input_tokens",
        "Int64",
        "Input tokens read from the provider's prompt cache.",
        lambda c: _usage(c, "cache_read_input_tokens"),
    ),
    Column(
        "cache_creation_input_tokens",
        "Int64",
        "Input tokens written to the provider's prompt cache.",
        lambda c: _usage(c, "cache_creation_input_tokens"),
    ),
    Column(
        "tool_uses",
        "int64",
        "How many tool_use blocks the reply holds (only the first runs).",
        lambda c: _blocks(c, "tool_use"),
    ),
    Column(
        "text_bytes",
        "int64",
        "UTF-8 bytes of the reply's text blocks.",
        lambda c: sum(utf8_bytes(block.text) for block in c.response.content if block.type == "text"),
    ),
    Column(
        "thinking",
        "bool",
        "True when the reply holds a thinking or redacted-thinking block.",
        lambda c: any(block.type in ("thinking", "redacted_thinking") for block in c.response.content),
    ),
)
"""The columns of ``model_calls_frame``, in order."""


def model_calls_frame(run: Run) -> pd.DataFrame:
    """One row per captured model call of ``run``, in file order, with the columns of ``MODEL_CALL_COLUMNS``."""
    pandas = require("frame", "pandas")
    calls = run.model_calls
    with _fast.paused():
        return _frame(pandas, MODEL_CALL_COLUMNS, calls, lambda i: f"model call {i} (step {calls[i].step})")


# ----------------------------------------------------------------------------- runs


class _RunFacts(NamedTuple):
    """Everything one row of ``runs_frame`` is computed from."""

    run: Run
    view: View


def _count(steps: Iterable[Step], test: Callable[[Observation], bool]) -> int:
    return sum(1 for step in steps if step.observation is not None and test(step.observation))


def _total(run: Run, key: str) -> int:
    total = 0
    for call in run.model_calls:
        value = _usage(call, key)
        if value is None:
            continue
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValueError(f"line {call.line}: usage.{key}: expected an integer, got {value!r}")
        total += value
    return total


def _end(run: Run, key: str) -> Any:
    return run.end.get(key) if run.end is not None else None


RUN_COLUMNS: tuple[Column, ...] = (
    Column("path", "string", "The run file.", lambda run: run.path, of="run"),
    Column("run_id", "string", "The run's id from its header.", lambda run: run.run_id or None, of="run"),
    Column("model", "category", "The model named in the run's header.", lambda run: run.model or None, of="run"),
    Column("steps", "Int64", "How many steps the run recorded.", lambda run: len(run.steps), of="run"),
    Column(
        "rendered_steps",
        "Int64",
        "How many steps the view after the last step shows (those with a decision).",
        lambda view: view.rendered_count,
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
        "Input tokens over all captured model calls.",
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
        "end_status",
        "category",
        "The end record's status; null when the run has no end (still going, or its process died).",
        lambda run: _end(run, "status"),
        of="run",
    ),
    Column(
        "end_reason",
        "category",
        "The end record's reason; null when the run has no end.",
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


def _run_values(path: str) -> list[Any]:
    """One run file's row of ``runs_frame`` as plain values (what a worker process sends back)."""
    try:
        run = load_run(path)
        row = _RunFacts(run, _view(run, facts_options(run)))
        return [_cell(column, row) for column in _RUN_VALUES]
    except (ValueError, OSError) as error:
        values: list[Any] = [None] * len(_RUN_VALUES)
        values[_PATH] = path
        # A RunFileError already begins with PATH:LINE:; anything else is given its file here.
        values[_ERROR] = str(error) if isinstance(error, RunFileError) else f"{path}: {error}"
        return values


def runs_frame(
    paths_or_folder: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    workers: int | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """One row per run file, read in parallel worker processes, with the columns of ``RUN_COLUMNS``.

    ``paths_or_folder`` is a folder (every ``*.jsonl`` and ``*.jsonl.gz`` under it, sorted),
    one file, or an iterable of files (kept in its order). ``workers`` is the number of
    processes (default: one per CPU, at most one per file; ``1`` reads in this process).
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
    with tqdm(total=len(paths), unit="run", disable=not progress, desc="runs") as bar:
        for values in _read_all(paths, workers):
            rows.append(values)
            bar.update(1)
    lists = {column.name: [row[i] for row in rows] for i, column in enumerate(_RUN_VALUES)}
    return _build(pandas, RUN_COLUMNS, lists, lambda i: f"run file {paths[i]}")


def _read_all(paths: Sequence[str], workers: int) -> Iterator[list[Any]]:
    """Each file's row values, in the order of ``paths``, as they arrive."""
    if workers == 1 or len(paths) <= 1:
        results: Iterator[list[Any]] = map(_run_values, paths)
        for path in paths:
            yield _next(results, path)
        return
    # Several files per task: a task's round trip costs more than reading a small run.
    chunk = max(1, min(64, len(paths) // (workers * 8)))
    with ProcessPoolExecutor(max_workers=workers, mp_context=_start_method()) as pool:
        results = pool.map(_run_values, paths, chunksize=chunk)
        for path in paths:
            yield _next(results, path)


def _start_method() -> multiprocessing.context.BaseContext:
    # Not fork: the caller may have threads (tqdm's monitor, a notebook's kernel), and a
    # process forked from a threaded one can inherit a held lock. The workers only need
    # agentrender's stdlib core to start, since pandas is imported where frames are built.
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def _next(results: Iterator[list[Any]], path: str) -> list[Any]:
    try:
        return next(results)
    except Exception as error:
        error.add_note(f"while reading run file {path}")
        raise


def _run_paths(paths_or_folder: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> list[str]:
    if isinstance(paths_or_folder, str | os.PathLike):
        root = Path(paths_or_folder)
        if root.is_dir():
            return sorted(
                str(path) for path in root.rglob("*") if path.name.endswith((".jsonl", ".jsonl.gz")) and path.is_file()
            )
        if not root.exists():
            raise FileNotFoundError(f"runs_frame: no such file or folder: {root}")
        return [str(root)]
    return [os.fspath(path) for path in paths_or_folder]


# ------------------------------------------------------------------------- building


def _frame(
    pandas: ModuleType, columns: Sequence[Column], rows: Sequence[Any], label: Callable[[int], str]
) -> pd.DataFrame:
    """The frame of ``rows`` under ``columns``: one pass per column into a list, then one conversion each."""
    fields: dict[str, list[Any]] = {"": list(rows)}
    lists: dict[str, list[Any]] = {}
    for column in columns:
        value = column.value
        if value is None:
            continue
        if column.of not in fields:
            fields[column.of] = list(map(attrgetter(column.of), rows))
        parts, absent = fields[column.of], column.absent
        try:
            lists[column.name] = [absent if part is None else value(part) for part in parts]
        except Exception as error:
            error.add_note(f"computing column {column.name!r} for {label(_first_failing(value, parts))}")
            raise
    return _build(pandas, columns, lists, label)


def _cell(column: Column, row: Any) -> Any:
    """One row's value of ``column`` (what ``_frame`` computes a column at a time)."""
    assert column.value is not None
    part = getattr(row, column.of) if column.of else row
    return column.absent if part is None else column.value(part)


def _first_failing(value: Callable[[Any], Any], parts: Sequence[Any]) -> int:
    for i, part in enumerate(parts):
        try:
            if part is not None:
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
    built: dict[str, Any] = {}
    for column in columns:
        if column.derive is not None:
            built[column.name] = column.derive(built).astype(_pandas_dtype(pandas, column.dtype))
            continue
        values = lists[column.name]
        try:
            built[column.name] = _series(pandas, column, values)
        except (TypeError, ValueError) as error:
            at = next((i for i, value in enumerate(values) if not _converts(pandas, column, value)), None)
            where = f" ({label(at)}: {values[at]!r})" if at is not None else ""
            raise ValueError(f"column {column.name!r}{where}: {error}") from error
    frame: pd.DataFrame = pandas.DataFrame(built, copy=False)
    return frame


def _series(pandas: ModuleType, column: Column, values: list[Any]) -> Any:
    dtype = column.dtype
    if dtype == "category":
        seen = set(values)
        seen.discard(None)
        categories = [*column.categories, *sorted(seen.difference(column.categories))]
        # Coding the values here is several times faster than letting Categorical factorize them.
        code = {category: i for i, category in enumerate(categories)}
        code[None] = -1
        # the labels are pandas' own text dtype ("str"), held by Python's strings (see TEXT_DTYPE)
        labels = pandas.Index(categories, dtype=pandas.StringDtype("python", na_value=float("nan")))
        return pandas.Series(pandas.Categorical.from_codes([code[value] for value in values], categories=labels))
    if dtype.startswith("datetime64"):
        for value in values:
            if value is not None and not isinstance(value, str):
                raise TypeError(f"expected an ISO 8601 timestamp, got {type(value).__name__}")
        return pandas.to_datetime(pandas.Series(values, dtype=object), utc=True, format="ISO8601").astype(dtype)
    return pandas.Series(pandas.array(values, dtype=_pandas_dtype(pandas, dtype)))


def _pandas_dtype(pandas: ModuleType, name: str) -> Any:
    """The dtype a column's declared name means: ``string`` is ``TEXT_DTYPE``."""
    return TEXT_DTYPE if name == "string" else name


def _converts(pandas: ModuleType, column: Column, value: Any) -> bool:
    try:
        _series(pandas, column, [value])
    except (TypeError, ValueError):
        return False
    return True
