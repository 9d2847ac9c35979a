"""The tables of many runs built by hand from the frames: each run's frame, with its keys, one after another."""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from agentrender import samples
from agentrender.frame import PARQUET_TABLES, TEXT_DTYPE, model_calls_frame, runs_frame, steps_frame
from agentrender.runfile import load_run
from tests._support.sweep import write_sweep

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


BROKEN = '{"type": "run", "run_id": "broken", "goal": "x"}\n[1, 2]\n'
"""A run file that cannot be read: its line 2 is an array (``PATH:2: $: expected a JSON object, got array``)."""


def runs_folder(folder: Path, extra: Mapping[str, Sequence[Mapping[str, Any]]]) -> Path:
    """``folder`` made and filled with run files: the bundled samples, six runs of the sweep, each of ``extra``
    (``NAME.jsonl``: its records) and ``broken.jsonl`` (``BROKEN``)."""
    folder.mkdir()
    for name in samples.names():
        shutil.copyfile(samples.path(name), folder / f"{name}.jsonl")
    write_sweep(folder, 6)
    for name, records in extra.items():
        (folder / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    (folder / "broken.jsonl").write_text(BROKEN, encoding="utf-8")
    return folder
