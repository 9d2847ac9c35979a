"""The tables of many runs built by hand from the frames: each run's frame, with its keys, one after another."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from agentrender.frame import PARQUET_TABLES, TEXT_DTYPE, model_calls_frame, runs_frame, steps_frame
from agentrender.runfile import load_run

_LABELS = pd.StringDtype("python", na_value=float("nan"))  # the frames' categories are Python's strings


def with_keys(frame: pd.DataFrame, run_id: str | None, path: str) -> pd.DataFrame:
    """``frame`` with the run's id and path in front, as the tables of many runs hold its steps and model calls."""
    frame = frame.copy()
    frame.insert(0, "path", pd.array([path] * len(frame), dtype=TEXT_DTYPE))
    frame.insert(0, "run_id", pd.array([run_id] * len(frame), dtype=TEXT_DTYPE))
    return frame


def run_table(path: Path | str, table: str, options: Mapping[str, int] | None = None) -> pd.DataFrame:
    """One run file's rows of ``table``: its ``runs_frame`` row, or its steps or model calls frame with its keys."""
    if table == "runs":
        return runs_frame([str(path)], workers=1, progress=False)
    run = load_run(path)
    frame = steps_frame(run, run.options(**(options or {}))) if table == "steps" else model_calls_frame(run)
    return with_keys(frame, run.run_id or None, str(path))


def in_declared_order(frame: pd.DataFrame, table: str) -> pd.DataFrame:
    """``frame`` with each categorical's categories as one frame of the table has them: the column's own, then
    the others it holds, sorted (a table read in parts lists them part by part)."""
    frame = frame.copy()
    for column in PARQUET_TABLES[table]:
        if column.dtype != "category":
            continue
        values = frame[column.name]
        others = sorted(set(values.dropna()).difference(column.categories))
        dtype = pd.CategoricalDtype(pd.Index([*column.categories, *others], dtype=_LABELS))
        if isinstance(values.dtype, pd.CategoricalDtype):
            frame[column.name] = values.cat.set_categories(dtype.categories)
        else:
            frame[column.name] = values.astype(dtype)
    return frame


def concatenated(frames: Sequence[pd.DataFrame], table: str) -> pd.DataFrame:
    """``frames`` one after another, indexed from 0, in the table's dtypes: the categoricals as ``in_declared_order``
    makes them (pandas alone turns a categorical whose frames disagree on categories into text)."""
    text = {column.name: TEXT_DTYPE for column in PARQUET_TABLES[table] if column.dtype == "category"}
    joined = pd.concat([frame.astype(text) for frame in frames], ignore_index=True)
    return in_declared_order(joined, table)
