"""to_parquet and ``agentrender export --parquet``: many runs as one dataset, equal to the frames, and incremental."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any, cast

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentrender import imports, samples, write_run
from agentrender.cli import main
from agentrender.frame import (
    PARQUET_TABLES,
    TEXT_DTYPE,
    runs_frame,
    steps_frame,
    table_frame,
    to_parquet,
)
from tests._support.conversations import REPLIED_THEN_PREFILL
from tests._support.examples import examples
from tests._support.runs import retried_run_file
from tests._support.sweep import write_sweep
from tests._support.tables import in_declared_order, run_table, runs_folder

# An integration test: the real SDK or pyarrow against local servers and files, seconds in all.
pytestmark = pytest.mark.slow

TABLES = tuple(PARQUET_TABLES)
ROOT = Path(__file__).resolve().parents[1]
SESSION = ROOT / "tests/fixtures/imports/claude-code/7f3c2a91-5b0e-4d8a-9c61-2e4f8b7d1a05.jsonl"
"""A Claude Code session of 3 runs (its main thread and two sub-agents): no run file, an agent's own history."""
EVAL = ROOT / "tests/fixtures/inspect/arith.eval"
"""An Inspect eval log of 4 samples, a run each."""


def _parts(out: Path, table: str) -> list[Path]:
    """The Parquet files of ``table`` of the export ``out``: its parts, in the order their names sort."""
    return sorted((out / table).glob("*.parquet"))


def _table(out: Path, table: str) -> pd.DataFrame:
    """``table`` of the export ``out`` as one frame (of no rows when no part holds one)."""
    parts = _parts(out, table)
    if not parts:
        return pd.DataFrame({column.name: [] for column in PARQUET_TABLES[table]})
    return pd.read_parquet(out / table)


def _rows(out: Path, table: str, path: Path) -> pd.DataFrame:
    """The rows of the file ``path`` in ``table`` of the export ``out``, indexed from 0, each categorical's
    categories as the file's own frame has them (``in_declared_order``)."""
    read = _table(out, table)
    return in_declared_order(read[read["path"] == str(path)].reset_index(drop=True), table) if len(read) else read


def _same_tables(out: Path, expected: Path) -> None:
    """The export ``out`` holds the rows of ``expected``, each once: each table equal, rows sorted, categoricals as
    text."""
    for table, order in (("steps", ["path", "index"]), ("model_calls", ["path", "line"]), ("runs", ["path"])):
        got, want = (_as_text(_table(folder, table), table) for folder in (out, expected))
        assert len(got) == len(want), table
        if len(want):
            pd.testing.assert_frame_equal(
                got.sort_values(order, ignore_index=True), want.sort_values(order, ignore_index=True)
            )


def _assert_same(read: pd.DataFrame, expected: pd.DataFrame) -> None:
    """``read`` is ``expected``: the same columns, dtypes and values, and each categorical's categories in order.

    A categorical's categories come back as pandas' default text (Parquet holds them as its
    dictionary, not their pandas dtype), and a part with no rows has none at all (they are
    kept with the data): there the dtype is still categorical. A list of texts (``warning_texts``) comes back as an
    array of them a row, compared as the list it holds.
    """
    categoricals = [name for name, dtype in expected.dtypes.items() if isinstance(dtype, pd.CategoricalDtype)]
    for name in categoricals:
        assert isinstance(read[name].dtype, pd.CategoricalDtype), name
        if len(expected):
            assert list(read[name].cat.categories) == list(expected[name].cat.categories), name
    as_text = dict.fromkeys(categoricals, TEXT_DTYPE)
    read = read.astype(as_text)
    for name in (name for name, dtype in expected.dtypes.items() if str(dtype) == "object"):  # a list of texts a row
        assert all(isinstance(value, list) or value is None for value in expected[name]), name
        # pandas reads a Parquet list as an array a row
        read[name] = read[name].map(lambda value: None if value is None else list(value)).astype(object)
    pd.testing.assert_frame_equal(read, expected.astype(as_text), check_exact=True)


def _stamps(out: Path) -> dict[str, tuple[int, int]]:
    """Every part of the export: its inode and mtime, which a rewrite changes."""
    return {
        str(part.relative_to(out)): (part.stat().st_ino, part.stat().st_mtime_ns)
        for table in TABLES
        for part in (out / table).glob("*.parquet")
    }


def _as_text(frame: pd.DataFrame, table: str) -> pd.DataFrame:
    """``frame`` with its categoricals as strings: frames of several runs disagree on categories, not values."""
    return frame.astype({column.name: TEXT_DTYPE for column in PARQUET_TABLES[table] if column.dtype == "category"})


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A folder of run files: the bundled samples, a few runs of a generated sweep, a run with times in other
    shapes (an offset, microseconds, a date alone, a step with no end), and one broken file."""
    odd = [
        {"type": "run", "format": "agentrender.run/1", "run_id": "odd-times", "goal": "x", "started_at": "2026-11-29"},
        {"type": "step", "index": 0, "decision": {"kind": "no_tool_call"}, "observation": {"status": "ok"},
         "started_at": "2026-11-29T10:00:00.123456+02:00", "ended_at": "2026-11-29T10:00:01Z"},
        {"type": "step", "index": 1, "decision": None, "observation": None, "started_at": "2026-11-29T08:00:05Z"},
    ]  # fmt: skip
    return runs_folder(tmp_path / "runs", {"odd-times": odd})


def _runs(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.jsonl"))


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_each_part_reads_back_as_the_table_frame_of_its_files(folder: Path, tmp_path: Path, workers: int) -> None:
    """pandas.read_parquet of a part gives back ``table_frame`` of the files it holds, in its order, exactly:
    values, dtypes and categories, with run_id and path in front of every step and model call; and each file's
    rows are its own frame."""
    out = tmp_path / "out"
    to_parquet(folder, out, workers=workers, progress=False)
    for table in TABLES:
        for part in _parts(out, table):
            read = pd.read_parquet(part)
            _assert_same(read, table_frame(list(dict.fromkeys(read["path"])), table))
    for path in _runs(folder):
        path = path.resolve()
        for table in TABLES:
            if path.name == "broken.jsonl" and table != "runs":
                assert len(_rows(out, table, path)) == 0
                continue
            _assert_same(_rows(out, table, path), in_declared_order(run_table(path, table), table))


def test_the_dataset_reads_as_one_table_of_every_run(folder: Path, tmp_path: Path) -> None:
    """Each table's folder reads as one frame: the concatenation of every run's frame, with the frames' dtypes."""
    out = tmp_path / "out"
    to_parquet(folder, out, workers=1, progress=False)
    paths = [path.resolve() for path in _runs(folder)]
    for table, order in (("steps", ["path", "index"]), ("model_calls", ["path", "line"]), ("runs", ["path"])):
        read = pd.read_parquet(out / table)
        readable = [path for path in paths if table == "runs" or path.name != "broken.jsonl"]
        expected = pd.concat([run_table(path, table) for path in readable], ignore_index=True)
        assert {name: str(dtype) for name, dtype in read.dtypes.items()} == {
            column.name: column.dtype for column in PARQUET_TABLES[table]
        }
        pd.testing.assert_frame_equal(
            _as_text(read, table).sort_values(order, ignore_index=True),
            _as_text(expected, table).sort_values(order, ignore_index=True),
        )


def test_a_bad_file_is_a_row_of_the_runs_table_with_its_error(folder: Path, tmp_path: Path) -> None:
    """A file that cannot be read, or is missing, is a runs row with its error (PATH:LINE: what) and fails nothing."""
    out = tmp_path / "out"
    missing = folder / "gone.jsonl"
    done = to_parquet([*_runs(folder), missing], out, workers=1, progress=False)
    runs = pd.read_parquet(out / "runs").set_index("path")
    broken = str((folder / "broken.jsonl").resolve())
    assert runs.loc[broken, "error"] == f"{broken}:2: $: expected a JSON object, got array"
    assert "No such file" in runs.loc[str(missing.resolve()), "error"]
    assert runs.loc[broken].drop("error").isna().all()
    assert {path for path, _ in done.errors} == {broken, str(missing.resolve())}
    assert runs.error.isna().sum() == len(_runs(folder)) - 1


@pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame.reset_index")  # Dask's read_parquet, not ours
def test_dask_cannot_combine_the_runs_of_a_part_of_bad_files_only_as_the_guide_says(
    folder: Path, tmp_path: Path
) -> None:
    """Dask's read_parquet of the runs folder of an export one part of which holds only a file that could not be read
    (its model column holds no value, so it reads back with categories of object dtype) fails to combine the parts,
    as the frames guide says (dask/dask#10659), and reads them with dtype_backend="pyarrow"; pandas reads them as
    one. A part that holds readable files beside it reads back with their categories: Dask combines it."""
    dataframe = pytest.importorskip("dask.dataframe")
    out, together = tmp_path / "out", tmp_path / "together"
    files = _runs(folder)
    broken = folder / "broken.jsonl"
    to_parquet([path for path in files if path != broken], out, workers=1, progress=False)
    to_parquet([broken], out, workers=1, progress=False)
    assert pd.read_parquet(out / "runs").error.notna().sum() == 1
    with pytest.raises(TypeError, match="dtype of categories must be the same"):
        dataframe.read_parquet(out / "runs").compute(scheduler="sync")
    assert len(dataframe.read_parquet(out / "runs", dtype_backend="pyarrow").compute(scheduler="sync")) == len(files)
    to_parquet(files, together, workers=1, progress=False)
    assert len(dataframe.read_parquet(together / "runs").compute(scheduler="sync")) == len(files)


def test_the_runs_table_keeps_which_run_ended_on_a_prefill(tmp_path: Path) -> None:
    """The runs table's prefill reads back from the export as runs_frame gives it: True for a run that ended on a
    prefill no reply answered, False for a bundled sample, as a boolean column."""
    prefilled = tmp_path / "replied-then-prefill.json"
    prefilled.write_text(json.dumps(REPLIED_THEN_PREFILL), encoding="utf-8")
    plain = samples.path(samples.names()[0])
    out = tmp_path / "out"
    assert to_parquet([prefilled, plain], out, workers=1, progress=False).errors == ()
    read = pd.read_parquet(out / "runs").set_index("path")
    assert str(read["prefill"].dtype) == "boolean"
    assert read["prefill"].to_dict() == {str(prefilled): True, str(plain): False}
    frame = runs_frame([prefilled, plain], workers=1, progress=False).set_index("path")
    assert read.loc[frame.index, "prefill"].tolist() == frame["prefill"].tolist()


def test_an_agents_history_is_exported_as_every_run_it_holds(tmp_path: Path) -> None:
    """A Claude Code session and an Inspect eval log are exported as the runs every command reads of them: a row of
    the runs table each, their steps and model calls under their run ids and the file's path, each table equal to
    ``table_frame`` of the files (which reads them too), and ``runs_frame`` gives a row per run."""
    out = tmp_path / "out"
    done = to_parquet([SESSION, EVAL], out, workers=1, progress=False)
    read = [run for path in (SESSION, EVAL) for run in imports.load_runs(path)]
    assert done.errors == () and done.written == (str(SESSION), str(EVAL))
    runs = pd.read_parquet(out / "runs")
    assert sorted(runs.run_id) == sorted(run.run_id for run in read) and runs.error.isna().all()
    # a sub-agent's run, read from its own transcript beside the session's, is a row of the file exported
    assert set(runs.path) == {str(SESSION), str(EVAL)}
    steps = pd.read_parquet(out / "steps")
    assert steps.groupby("run_id").size().to_dict() == {run.run_id: len(run.steps) for run in read}
    assert set(steps.path) == {str(SESSION), str(EVAL)}
    for table, order in (("steps", ["run_id", "index"]), ("model_calls", ["run_id", "line"]), ("runs", ["run_id"])):
        pd.testing.assert_frame_equal(
            _as_text(pd.read_parquet(out / table), table).sort_values(order, ignore_index=True),
            _as_text(table_frame([SESSION, EVAL], table), table).sort_values(order, ignore_index=True),
        )
    frame = runs_frame([SESSION, EVAL], workers=2, progress=False)
    assert frame.run_id.tolist() == [run.run_id for run in read]
    assert frame.warnings.tolist() == [len(run.warnings) for run in read]
    # exported again unchanged: skipped, as a run file is
    assert to_parquet([SESSION, EVAL], out, workers=1, progress=False).unchanged == (str(SESSION), str(EVAL))


def test_a_folder_of_claude_code_sessions_gives_each_sub_agent_once(tmp_path: Path) -> None:
    """A folder holding a Claude Code session and its ``<session>/subagents/`` transcripts is exported, read by
    ``runs_frame`` and by Dask's ``read_runs`` as the session's runs, each once: a sub-agent's transcript is read with
    its session, not again on its own (where it was a second row of the same run id); named alone, it is read."""
    folder = tmp_path / "project"
    shutil.copytree(SESSION.parent, folder)
    session = folder / SESSION.name
    agent = folder / SESSION.stem / "subagents" / "agent-a9d07f3.jsonl"
    ids = [run.run_id for run in imports.load_runs(session)]
    done = to_parquet(folder, tmp_path / "out", workers=1, progress=False)
    assert done.written == (str(session),)
    assert sorted(pd.read_parquet(tmp_path / "out" / "runs").run_id) == sorted(ids)
    assert runs_frame(folder, workers=1, progress=False).run_id.tolist() == ids
    assert runs_frame([session, agent], workers=1, progress=False).run_id.tolist() == [*ids, ids[2]]
    dask = pytest.importorskip("agentrender.dask")
    assert dask.read_runs(str(folder), table="runs").compute(scheduler="sync").run_id.tolist() == ids


def test_text_parquet_cannot_hold_makes_the_run_a_row_with_its_error(tmp_path: Path) -> None:
    """A reason with a lone surrogate (valid in a run file, not in Parquet's UTF-8) makes the run an error row
    that names the column, instead of failing the export or altering the text."""
    path = tmp_path / "surrogate.jsonl"
    path.write_text(
        '{"type": "run", "format": "agentrender.run/1", "run_id": "s", "goal": "x"}\n'
        '{"type": "step", "index": 0, "decision": {"kind": "tool_call", "tool": "t", "reason": "a\\ud800b"}}\n',
        encoding="utf-8",
    )
    done = to_parquet([path], tmp_path / "out", workers=1, progress=False)
    (error,) = [error for _, error in done.errors]
    assert error == f"{path.resolve()}: column 'reason' (row 0): text with a lone surrogate, which Parquet cannot store"
    assert len(_rows(tmp_path / "out", "steps", path.resolve())) == 0


def test_a_second_export_of_unchanged_files_rewrites_nothing(folder: Path, tmp_path: Path) -> None:
    """Exporting the same files again skips every one: no part is rewritten (same inode, same mtime)."""
    out = tmp_path / "out"
    first = to_parquet(folder, out, workers=1, progress=False)
    before = _stamps(out)
    again = to_parquet(folder, out, workers=1, progress=False)
    assert again.written == () and set(again.unchanged) == set(first.written)
    assert again.rows == {"steps": 0, "model_calls": 0, "runs": 0}
    assert _stamps(out) == before
    assert again.errors == first.errors  # an unchanged bad file is still reported


def test_adding_a_run_writes_only_its_parts(folder: Path, tmp_path: Path) -> None:
    """Exporting a new run into the dataset adds one part of each table and leaves every other part as it was."""
    out = tmp_path / "out"
    to_parquet(folder, out, workers=1, progress=False)
    before = _stamps(out)
    (new,) = write_sweep(tmp_path / "more", 1, first=100)
    done = to_parquet([new], out, workers=1, progress=False)
    after = _stamps(out)
    added = {name: stamp for name, stamp in after.items() if name not in before}
    (part,) = {Path(name).name for name in added}
    assert sorted(added) == sorted(f"{table}/{part}" for table in TABLES)
    assert {name: after[name] for name in before} == before
    assert done.written == (str(new.resolve()),)
    assert pd.read_parquet(out / "runs").run_id.eq("sweep-00100").sum() == 1


def _grow(path: Path) -> None:
    """Add a step to the sweep's run file ``path``: its last step again, one index on."""
    lines = path.read_text(encoding="utf-8").splitlines()
    step = json.loads(lines[-2])
    step["index"] += 1
    path.write_text("\n".join([*lines[:-1], json.dumps(step), lines[-1]]) + "\n", encoding="utf-8")


def test_a_changed_file_moves_its_rows_and_rewrites_only_the_part_that_held_them(folder: Path, tmp_path: Path) -> None:
    """A file that grew is exported again into a new part, and its rows leave the part that held them, which is
    written again without them; a part of other files is untouched, and the dataset holds the file's new rows once,
    as a clean export does."""
    out = tmp_path / "out"
    files = _runs(folder)
    to_parquet(files[:4], out, workers=1, progress=False)
    to_parquet(files[4:], out, workers=1, progress=False)
    before = _stamps(out)
    changed = folder / "sweep-00002.jsonl"
    assert changed in files[4:]
    _grow(changed)
    done = to_parquet(folder, out, workers=1, progress=False)
    assert done.written == (str(changed.resolve()),)
    after = _stamps(out)
    first, second = sorted({Path(name).name for name in before if name.startswith("runs/")})
    (new,) = {Path(name).name for name in after if name not in before}
    assert set(after) == {f"{table}/{part}" for table in TABLES for part in (first, second, new)}
    assert {name for name in before if after[name] != before[name]} == {f"{table}/{second}" for table in TABLES}
    _assert_same(
        _rows(out, "steps", changed.resolve()), in_declared_order(run_table(changed.resolve(), "steps"), "steps")
    )
    to_parquet(folder, tmp_path / "clean", workers=1, progress=False)
    _same_tables(out, tmp_path / "clean")


def test_a_call_writes_a_few_parts_not_one_per_file(tmp_path: Path) -> None:
    """An export of 40 files writes one part of each table in this process, and a few a worker with two workers
    (four each at most, by default), where it wrote a part of each table per file: 120 Parquet files."""
    write_sweep(tmp_path / "runs", 40)
    to_parquet(tmp_path / "runs", tmp_path / "one", workers=1, progress=False)
    to_parquet(tmp_path / "runs", tmp_path / "two", workers=2, progress=False)
    assert [len(_parts(tmp_path / "one", table)) for table in TABLES] == [1, 1, 1]
    assert all(2 <= len(_parts(tmp_path / "two", table)) <= 8 for table in TABLES)
    _same_tables(tmp_path / "two", tmp_path / "one")
    assert len(pd.read_parquet(tmp_path / "one" / "runs")) == 40


def test_a_default_export_of_a_few_files_starts_no_worker_process(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without ``workers``, an export of a few MiB of run files works in this process (starting worker processes,
    each importing pandas and pyarrow, costs more than such an export), where it started one per CPU; with
    ``workers=2`` it starts them."""
    from agentrender import frame

    started: list[int] = []

    class Pool(frame.ProcessPoolExecutor):
        def __init__(self, max_workers: int, **kwargs: Any) -> None:
            started.append(max_workers)
            super().__init__(max_workers, **kwargs)

    monkeypatch.setattr(frame, "ProcessPoolExecutor", Pool)
    monkeypatch.setattr(frame.os, "cpu_count", lambda: 4)
    assert len(to_parquet(folder, tmp_path / "default", progress=False).written) == len(_runs(folder))
    assert started == []
    to_parquet(folder, tmp_path / "two", workers=2, progress=False)
    assert started == [2]
    _same_tables(tmp_path / "two", tmp_path / "default")


def test_an_export_of_the_first_format_is_refused_with_what_to_do(folder: Path, tmp_path: Path) -> None:
    """A folder exported by an agentrender that wrote a Parquet file per run file (format agentrender.parquet/1) is
    not added to (its parts would be read beside the new ones): to_parquet and ``export`` say what it is and to
    export to a new folder, and write nothing."""
    out = tmp_path / "old"
    (out / "steps").mkdir(parents=True)
    manifest = {"format": "agentrender.parquet/1", "schema": "0", "options": {}, "sources": {}}
    (out / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(ValueError, match=r"format agentrender\.parquet/1 \(a Parquet file per run file\).*new folder"):
        to_parquet(folder, out, workers=1, progress=False)
    code, printed, err = _cli("export", "fix-failing-test", "--parquet", str(out))
    assert (code, printed) == (2, "") and err.count("\n") == 1 and "export to a new folder" in err
    assert sorted(path.name for path in out.rglob("*")) == ["manifest.json", "steps"]


def _rows_once(out: Path) -> None:
    """No row of the export ``out`` is there twice: a file's run once in the runs table, a step or model call once."""
    for table, key in (("steps", ["path", "run_id", "index"]), ("model_calls", ["path", "run_id", "line"])):
        read = _table(out, table)
        assert not read.duplicated(key).any(), table
    runs = _table(out, "runs")
    assert not runs.duplicated(["path", "run_id"]).any()


class _Stop(Exception):
    """The failure injected into an export (a full disk, say)."""


@pytest.mark.parametrize("stop", [_Stop, KeyboardInterrupt])
@pytest.mark.parametrize("killed", [False, True], ids=["stopped", "killed"])
def test_an_export_interrupted_at_any_write_is_repaired_by_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stop: type[BaseException], killed: bool
) -> None:
    """An export stopped at each of its writes in turn (a part or the manifest fails: disk full, an interrupt; or,
    killed, nothing is written after it, not even the manifest an interrupted call saves) leaves no row twice, and
    the next export gives exactly the tables of a clean export of the same files: a changed file's rows once, a
    pruned file's gone, a new file's there."""
    from agentrender import frame

    runs = tmp_path / "runs"
    files = write_sweep(runs, 8)
    base = tmp_path / "base"
    to_parquet(files[:4], base, workers=1, progress=False)
    to_parquet(files[4:], base, workers=1, progress=False)
    _grow(files[1])
    _grow(files[6])
    files[5].unlink()
    write_sweep(runs, 1, first=8)
    to_parquet(runs, tmp_path / "clean", workers=1, progress=False)
    real_part, real_manifest = frame._write_part, frame._write_atomic
    writes: list[str] = []

    def counted(real: Callable[[Path, Any], None], fail_at: int | None) -> Callable[[Path, Any], None]:
        def write(path: Path, data: Any) -> None:
            writes.append(path.name)
            if len(writes) == fail_at:
                raise stop("no space left on device")
            if killed and fail_at is not None and len(writes) > fail_at:
                raise _Stop("killed")
            real(path, data)

        return write

    def export(out: Path, fail_at: int | None) -> None:
        monkeypatch.setattr(frame, "_write_part", counted(real_part, fail_at))
        monkeypatch.setattr(frame, "_write_atomic", counted(real_manifest, fail_at))
        try:
            to_parquet(runs, out, workers=1, progress=False, prune=True)
        finally:
            monkeypatch.setattr(frame, "_write_part", real_part)
            monkeypatch.setattr(frame, "_write_atomic", real_manifest)

    shutil.copytree(base, tmp_path / "count")
    export(tmp_path / "count", None)
    _same_tables(tmp_path / "count", tmp_path / "clean")
    # the manifest, two parts rewritten (each three tables), the new part's three, the manifest
    assert len(writes) == 11, writes
    for fail_at in range(1, len(writes) + 1):
        writes.clear()
        out = tmp_path / f"stopped-{fail_at}"
        shutil.copytree(base, out)
        with pytest.raises((_Stop, stop)):
            export(out, fail_at)
        _rows_once(out)
        again = to_parquet(runs, out, workers=1, progress=False, prune=True)
        _same_tables(out, tmp_path / "clean")
        assert set(again.written) | set(again.unchanged) == {str(path.resolve()) for path in sorted(runs.glob("*"))}
        assert to_parquet(runs, out, workers=1, progress=False).written == ()


def test_a_file_an_interrupted_export_was_moving_is_exported_again_though_not_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A changed file whose rows an export had removed from their old part when it was stopped is exported again by
    the next call even when that call names other files only (its rows were nowhere), and said among those written."""
    from agentrender import frame

    runs = tmp_path / "runs"
    files = write_sweep(runs, 3)
    out = tmp_path / "out"
    to_parquet(runs, out, workers=1, progress=False)
    _grow(files[0])
    real = frame._write_part
    calls: list[Path] = []

    def stop_at_the_new_part(path: Path, data: Any) -> None:
        calls.append(path)
        if len(calls) > len(TABLES):  # the old part's three tables rewritten, then the new part
            raise KeyboardInterrupt
        real(path, data)

    monkeypatch.setattr(frame, "_write_part", stop_at_the_new_part)
    with pytest.raises(KeyboardInterrupt):
        to_parquet(runs, out, workers=1, progress=False)
    monkeypatch.setattr(frame, "_write_part", real)
    assert len(_rows(out, "runs", files[0].resolve())) == 0
    (new,) = write_sweep(tmp_path / "more", 1, first=10)
    again = to_parquet([new], out, workers=1, progress=False)
    assert again.written == (str(new.resolve()), str(files[0].resolve()))
    to_parquet([*files, new], tmp_path / "clean", workers=1, progress=False)
    _same_tables(out, tmp_path / "clean")


_OPERATIONS = st.lists(
    st.tuples(st.sampled_from(["export", "prune", "grow", "delete", "add"]), st.integers(0, 4)), max_size=8
)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(operations=_OPERATIONS)
def test_any_sequence_of_exports_and_changes_gives_the_tables_of_one_clean_export(
    operations: list[tuple[str, int]],
) -> None:
    """Whatever exports (all files, or one; with prune or not), changed files, deleted and added files come in
    any order, an export with prune then holds exactly the tables of one clean export of the files that exist."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        runs, out = root / "runs", root / "out"
        files = write_sweep(runs, 5)
        for operation, number in operations:
            path = files[number]
            if operation in ("export", "prune"):
                to_parquet(runs if number % 2 else [path], out, workers=1, progress=False, prune=operation == "prune")
            elif operation == "grow" and path.exists():
                _grow(path)
            elif operation == "delete" and path.exists():
                path.unlink()
            elif operation == "add" and not path.exists():
                write_sweep(runs, 1, first=number)
        if not any(runs.glob("*.jsonl")):
            write_sweep(runs, 1)
        to_parquet(runs, out, workers=1, progress=False, prune=True)
        _rows_once(out)
        to_parquet(runs, root / "clean", workers=1, progress=False)
        _same_tables(out, root / "clean")


def test_a_touched_file_with_the_same_content_is_skipped(folder: Path, tmp_path: Path) -> None:
    """A new mtime alone (a copy, a checkout) does not rewrite a file's parts: its content hash is unchanged."""
    out = tmp_path / "out"
    to_parquet(folder, out, workers=1, progress=False)
    before = _stamps(out)
    touched = folder / "sweep-00001.jsonl"
    stat = touched.stat()
    os.utime(touched, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    done = to_parquet(folder, out, workers=1, progress=False)
    assert done.written == () and _stamps(out) == before


def test_a_change_that_keeps_size_and_mtime_is_found_by_its_hash(folder: Path, tmp_path: Path) -> None:
    """A file rewritten with the same size and mtime soon after its export is compared by content, and rewritten."""
    out = tmp_path / "out"
    to_parquet(folder, out, workers=1, progress=False)
    target = folder / "sweep-00003.jsonl"
    stat = target.stat()
    text = target.read_text(encoding="utf-8")
    target.write_text(text.replace('"status": "ok"', '"status": "no"', 1), encoding="utf-8")
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert target.stat().st_size == stat.st_size
    done = to_parquet(folder, out, workers=1, progress=False)
    assert done.written == (str(target.resolve()),)


def test_a_file_that_turns_bad_loses_its_steps_and_model_calls(folder: Path, tmp_path: Path) -> None:
    """A file exported readable and then broken keeps only its runs row, with the error; its other parts go."""
    out = tmp_path / "out"
    to_parquet(folder, out, workers=1, progress=False)
    target = (folder / "sweep-00004.jsonl").resolve()
    target.write_text('{"type": "step"}\n', encoding="utf-8")
    to_parquet(folder, out, workers=1, progress=False)
    assert len(_rows(out, "steps", target)) == 0 and len(_rows(out, "model_calls", target)) == 0
    assert _rows(out, "runs", target).error.str.startswith(f"{target}:1: ").all()


@pytest.mark.parametrize("table", TABLES)
def test_a_part_deleted_by_hand_is_written_again(folder: Path, tmp_path: Path, table: str) -> None:
    """The files of a part one table of which was deleted by hand are exported again, their rows back in the
    dataset once (they were skipped as unchanged, their rows gone until the file changed, and their warnings no
    longer said); the files of other parts are skipped."""
    out = tmp_path / "out"
    files = _runs(folder)
    to_parquet(files[:5], out, workers=1, progress=False)
    to_parquet(files[5:], out, workers=1, progress=False)
    lost = _parts(out, "runs")[1].name
    (out / table / lost).unlink()
    again = to_parquet(folder, out, workers=1, progress=False)
    assert again.written == tuple(str(path.resolve()) for path in files[5:])
    assert again.unchanged == tuple(str(path.resolve()) for path in files[:5])
    assert not any((out / name / lost).exists() for name in TABLES)
    to_parquet(folder, tmp_path / "clean", workers=1, progress=False)
    _same_tables(out, tmp_path / "clean")


def test_a_deleted_file_is_kept_until_pruned(folder: Path, tmp_path: Path) -> None:
    """A run whose file is gone stays in the dataset (an export adds runs); prune=True removes its parts."""
    out = tmp_path / "out"
    to_parquet(folder, out, workers=1, progress=False)
    gone = (folder / "sweep-00005.jsonl").resolve()
    gone.unlink()
    kept = to_parquet(folder, out, workers=1, progress=False)
    assert kept.removed == () and len(_rows(out, "steps", gone)) > 0
    pruned = to_parquet(folder, out, workers=1, progress=False, prune=True)
    assert pruned.removed == (str(gone),)
    assert not any(len(_rows(out, table, gone)) for table in TABLES)
    to_parquet(folder, tmp_path / "clean", workers=1, progress=False)
    _same_tables(out, tmp_path / "clean")


def test_the_window_options_apply_to_every_run_and_stay_with_the_export(folder: Path, tmp_path: Path) -> None:
    """options sets the window of every run's steps; adding to the export with other options is refused."""
    out = tmp_path / "out"
    to_parquet(folder, out, options={"recent_results": 2}, workers=1, progress=False)
    path = (folder / "sweep-00000.jsonl").resolve()
    _assert_same(_rows(out, "steps", path), in_declared_order(run_table(path, "steps", {"recent_results": 2}), "steps"))
    with pytest.raises(ValueError, match="exported with options"):
        to_parquet(folder, out, workers=1, progress=False)
    with pytest.raises(ValueError, match="options takes recent_results and result_bytes, not 'opening'"):
        to_parquet(folder, tmp_path / "other", options={"opening": 1}, workers=1, progress=False)


def test_a_folder_that_is_not_an_export_is_refused(folder: Path, tmp_path: Path) -> None:
    """to_parquet will not write its tables into a non-empty folder that holds no export (a data folder of Parquet
    files and a run folder, say), and leaves everything in it as it was: nothing deleted, nothing added."""
    busy = tmp_path / "busy"
    (busy / "runs").mkdir(parents=True)
    (busy / "notes.txt").write_text("mine\n", encoding="utf-8")
    pd.DataFrame({"mine": [1, 2]}).to_parquet(busy / "data.parquet")
    (busy / "runs" / "old.parquet").write_bytes((busy / "data.parquet").read_bytes())
    before = _contents(busy)
    with pytest.raises(ValueError, match="not a Parquet export of agentrender"):
        to_parquet(folder, busy, workers=1, progress=False)
    assert _contents(busy) == before


def _contents(folder: Path) -> dict[str, bytes | None]:
    """Every file and folder under ``folder``, by its path in it: a file's bytes, a folder's ``None``."""
    return {str(path.relative_to(folder)): path.read_bytes() if path.is_file() else None for path in folder.rglob("*")}


def _users_parquet(path: Path) -> bytes:
    """Write a Parquet file of the user's own (not a part of an export) at ``path``; its bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame({"mine": [1, 2, 3]}).to_parquet(path)
    return path.read_bytes()


def _exported_sweep(tmp_path: Path, runs: int) -> tuple[Path, list[Path], Path]:
    """``runs`` sweep files in ``tmp_path / "runs"`` exported to ``tmp_path / "out"``: the folder, the files, OUT."""
    folder = tmp_path / "runs"
    files = write_sweep(folder, runs)
    out = tmp_path / "out"
    to_parquet(folder, out, workers=1, progress=False)
    return folder, files, out


def test_a_users_parquet_file_in_a_table_folder_is_never_deleted_and_named(tmp_path: Path) -> None:
    """A Parquet file of the user's in a table's folder survives every export (again with a changed file, again
    unchanged, with prune) with its bytes: each is refused, naming it and saying what to do, and changes nothing; once
    it is moved out, the export goes on."""
    runs, files, out = _exported_sweep(tmp_path, 3)
    mine = out / "steps" / "mine.parquet"
    kept = _users_parquet(mine)
    _grow(files[0])
    files[2].unlink()
    before = _contents(out)
    for named, prune in ((runs, False), ([files[1]], False), (runs, True)):
        with pytest.raises(ValueError) as refused:
            to_parquet(named, out, workers=1, progress=False, prune=prune)
        assert str(refused.value) == (
            f"{out}: a file in its tables' folders that the export did not write ({mine}), which every reader of "
            f"the table would read as its rows: move it out of {out}, then export again (nothing was written or "
            "deleted)"
        )
        assert _contents(out) == before and mine.read_bytes() == kept
    mine.rename(tmp_path / "mine.parquet")
    done = to_parquet(runs, out, workers=1, progress=False, prune=True)
    assert done.written == (str(files[0]),) and done.removed == (str(files[2].resolve()),)
    to_parquet(runs, tmp_path / "clean", workers=1, progress=False)
    _same_tables(out, tmp_path / "clean")


@pytest.mark.parametrize(
    "name", ["mine.parquet", "part-0.snappy.parquet", "notes.txt", "_metadata", ".hidden.parquet", "0123-00000.parquet"]
)
def test_anything_in_a_table_folder_a_reader_would_read_and_the_export_did_not_write_is_refused(
    tmp_path: Path, name: str
) -> None:
    """Any file in a table's folder that pandas, Dask, DuckDB or Polars would read as the table's (anything but a
    hidden file that is not ``*.parquet``) and that is not named as the export names its parts is refused and kept,
    and so is a folder in it (pyarrow reads a table's folder at any depth)."""
    runs, _, out = _exported_sweep(tmp_path, 2)
    kept = _users_parquet(out / "runs" / name)
    nested = _users_parquet(out / "model_calls" / "older" / "0000000000000000-00000.parquet")
    with pytest.raises(ValueError, match="that the export did not write") as refused:
        to_parquet(runs, out, workers=1, progress=False)
    assert f"2 files in its tables' folders that the export did not write ({out / 'model_calls' / 'older'}, " in str(
        refused.value
    )
    assert f"{out / 'runs' / name}), " in str(refused.value)
    assert (out / "runs" / name).read_bytes() == kept
    assert (out / "model_calls" / "older" / "0000000000000000-00000.parquet").read_bytes() == nested


def test_a_hidden_file_in_a_table_folder_is_left_alone_and_the_export_goes_on(tmp_path: Path) -> None:
    """A hidden file that is not ``*.parquet`` (a file manager's ``.DS_Store``), which no reader of the table reads,
    does not stop the export, which keeps it as it is."""
    runs, files, out = _exported_sweep(tmp_path, 2)
    (out / "steps" / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1")
    _grow(files[0])
    assert to_parquet(runs, out, workers=1, progress=False).written == (str(files[0]),)
    assert (out / "steps" / ".DS_Store").read_bytes() == b"\x00\x00\x00\x01Bud1"


def test_the_repair_after_an_interrupted_export_keeps_a_users_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After an export killed between its parts and its manifest, the next export finds a user's Parquet file in a
    table's folder: it refuses, naming the file, and deletes nothing (neither the file nor the killed export's parts);
    with the file moved out, it deletes the killed export's parts and gives the tables of a clean export."""
    from agentrender import frame

    runs, files, out = _exported_sweep(tmp_path, 3)
    _grow(files[1])

    def killed(path: Path, data: bytes) -> None:  # the manifest is never saved again: nothing after the parts
        raise KeyboardInterrupt

    monkeypatch.setattr(frame, "_write_atomic", killed)
    with pytest.raises(KeyboardInterrupt):
        to_parquet(runs, out, workers=1, progress=False)
    monkeypatch.undo()
    mine = out / "model_calls" / "mine.parquet"
    kept = _users_parquet(mine)
    before = _contents(out)
    with pytest.raises(ValueError, match=f"did not write \\({mine}\\)"):
        to_parquet(runs, out, workers=1, progress=False)
    assert _contents(out) == before and mine.read_bytes() == kept
    mine.rename(tmp_path / "mine.parquet")
    to_parquet(runs, out, workers=1, progress=False)
    to_parquet(runs, tmp_path / "clean", workers=1, progress=False)
    _same_tables(out, tmp_path / "clean")
    assert len(_parts(out, "steps")) == len(_parts(tmp_path / "clean", "steps")) + 1  # the old part, the new


@pytest.mark.parametrize("table", ["manifest", *TABLES])
def test_the_temporary_file_of_an_interrupted_write_is_deleted_by_the_next_export(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, table: str
) -> None:
    """A write killed before its file was renamed into place (a part's table, or the manifest) leaves its temporary
    file, which the next export deletes, as it does only the export's own."""
    from agentrender import frame

    runs = tmp_path / "runs"
    write_sweep(runs, 2)
    out = tmp_path / "out"
    real = os.replace

    def killed(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
        if Path(target).parent == (out if table == "manifest" else out / table):
            raise KeyboardInterrupt
        real(source, target)

    monkeypatch.setattr(frame.os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        to_parquet(runs, out, workers=1, progress=False)
    monkeypatch.undo()
    (left,) = out.rglob(".*")
    assert left.name.endswith(".partial")
    to_parquet(runs, out, workers=1, progress=False)
    assert not left.exists() and not list(out.rglob(".*"))
    to_parquet(runs, tmp_path / "clean", workers=1, progress=False)
    _same_tables(out, tmp_path / "clean")


def test_a_table_folder_without_a_manifest_is_not_an_export_of_the_users_files(folder: Path, tmp_path: Path) -> None:
    """An OUT holding only a ``steps`` folder of the user's Parquet files (no manifest) is refused as no export,
    naming the files, and left as it was: nothing deleted, no folder added."""
    out = tmp_path / "data"
    kept = {name: _users_parquet(out / "steps" / name) for name in ("a.parquet", "b.parquet")}
    with pytest.raises(ValueError) as refused:
        to_parquet(folder, out, workers=1, progress=False)
    assert str(refused.value) == (
        f"{out}: not a Parquet export of agentrender (no manifest.json), and its tables' folders hold 2 files it did "
        f"not write ({out / 'steps' / 'a.parquet'}, {out / 'steps' / 'b.parquet'}): export to a new folder"
    )
    assert _contents(out) == {"steps": None, **{f"steps/{name}": data for name, data in kept.items()}}


@pytest.mark.slow
def test_worker_processes_write_the_same_dataset(folder: Path, tmp_path: Path) -> None:
    """Exporting with two worker processes writes the same tables as exporting in this process, in more parts."""
    to_parquet(folder, tmp_path / "one", workers=1, progress=False)
    to_parquet(folder, tmp_path / "two", workers=2, progress=False)
    _same_tables(tmp_path / "two", tmp_path / "one")
    assert len(_parts(tmp_path / "one", "runs")) == 1 < len(_parts(tmp_path / "two", "runs"))


# ------------------------------------------------------------------ DuckDB and Polars


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Parquet export of 60 runs of the generated sweep."""
    root = tmp_path_factory.mktemp("sweep")
    write_sweep(root / "runs", 60)
    to_parquet(root / "runs", root / "out", workers=1, progress=False)
    return root / "out"


def _failing_tools_pandas(out: Path) -> pd.DataFrame:
    steps = pd.read_parquet(out / "steps")
    late = steps[steps["index"] > 20]
    table = late.groupby("tool", observed=True).agg(steps=("failed", "size"), failures=("failed", "sum"))
    table = table.reset_index().astype({"tool": "string", "steps": "int64", "failures": "int64"})
    return table.sort_values(["failures", "tool"], ascending=[False, True], ignore_index=True)


@pytest.mark.slow
def test_duckdb_and_polars_find_the_tool_that_fails_most_as_pandas_does(sweep: Path) -> None:
    """Which tool fails most after step 20: DuckDB's SQL and Polars' lazy query give pandas' table."""
    import duckdb  # imported where used: slow to import, and only these tests need it
    import polars as pl

    expected = _failing_tools_pandas(sweep)
    by_duckdb = duckdb.sql(
        f"""
        SELECT tool, count(*) AS steps, count(*) FILTER (WHERE failed) AS failures
        FROM read_parquet('{sweep}/steps/*.parquet')
        WHERE index > 20
        GROUP BY tool
        ORDER BY failures DESC, tool
        """
    ).df()
    by_polars = (
        pl.scan_parquet(sweep / "steps" / "*.parquet")
        .filter(pl.col("index") > 20)
        .group_by(pl.col("tool").cast(pl.String))
        .agg(steps=pl.len(), failures=pl.col("failed").sum())
        .sort(["failures", "tool"], descending=[True, False])
        .collect()
        .to_pandas()
    )
    for frame in (by_duckdb, by_polars):
        got = frame.astype({"tool": "string", "steps": "int64", "failures": "int64"})
        pd.testing.assert_frame_equal(got, expected)
    assert expected.tool[0] == "run_tests"


@pytest.mark.slow
def test_duckdb_and_polars_sum_the_bytes_the_window_saved_per_model_as_pandas_does(sweep: Path) -> None:
    """Bytes the window hid, per model (steps joined to their run): DuckDB and Polars agree with pandas."""
    import duckdb  # imported where used: slow to import, and only these tests need it
    import polars as pl

    steps, runs = pd.read_parquet(sweep / "steps"), pd.read_parquet(sweep / "runs")
    joined = steps.merge(runs[["path", "model"]], on="path")
    expected = (
        joined.groupby("model", observed=True)["hidden_bytes"]
        .sum()
        .reset_index()
        .astype({"model": "string", "hidden_bytes": "int64"})
        .sort_values("model", ignore_index=True)
    )
    by_duckdb = duckdb.sql(
        f"""
        SELECT r.model, sum(s.hidden_bytes) AS hidden_bytes
        FROM read_parquet('{sweep}/steps/*.parquet') s JOIN read_parquet('{sweep}/runs/*.parquet') r USING (path)
        GROUP BY r.model ORDER BY r.model
        """
    ).df()
    by_polars = (
        pl.scan_parquet(sweep / "steps" / "*.parquet")
        .join(pl.scan_parquet(sweep / "runs" / "*.parquet").select("path", "model"), on="path")
        .group_by(pl.col("model").cast(pl.String))
        .agg(pl.col("hidden_bytes").sum())
        .sort("model")
        .collect()
        .to_pandas()
    )
    for frame in (by_duckdb, by_polars):
        pd.testing.assert_frame_equal(frame.astype({"model": "string", "hidden_bytes": "int64"}), expected)
    assert len(expected) == 3 and (expected.hidden_bytes > 0).all()


# ------------------------------------------------------------------------------ CLI


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main([*argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.slow
def test_export_prints_what_it_wrote_and_skipped_as_json(folder: Path, tmp_path: Path) -> None:
    """agentrender export --json lists the files written, skipped and unreadable; exit 1 when one was unreadable."""
    out = tmp_path / "out"
    code, printed, err = _cli("export", str(folder), "--parquet", str(out), "--workers", "1", "--json")
    summary = json.loads(printed)
    broken = str((folder / "broken.jsonl").resolve())
    assert (code, err) == (1, "")
    assert len(summary["written"]) == len(_runs(folder)) and summary["unchanged"] == []
    assert summary["errors"] == [{"path": broken, "error": f"{broken}:2: $: expected a JSON object, got array"}]
    assert summary["rows"]["runs"] == len(_runs(folder))

    code, printed, _ = _cli("export", *map(str, _runs(folder)[-2:]), "--parquet", str(out), "--json")
    assert code == 0 and json.loads(printed)["written"] == [] and len(json.loads(printed)["unchanged"]) == 2


def test_export_takes_bundled_samples_and_says_what_it_did(tmp_path: Path) -> None:
    """A sample's name is a RUN as in every command; the terminal summary counts runs, steps and model calls."""
    code, printed, err = _cli("export", "fix-failing-test", "--parquet", str(tmp_path / "out"), "--width", "200")
    frame = steps_frame(samples.load("fix-failing-test"))
    assert (code, err) == (0, "")
    assert printed.startswith(f"{tmp_path / 'out'}: wrote 1 run ({len(frame)} steps, ")
    assert pd.read_parquet(tmp_path / "out" / "runs").run_id.tolist() == ["fix-failing-test"]


def test_export_counts_a_file_it_could_not_read_as_such_not_as_a_run_written(tmp_path: Path) -> None:
    """The terminal summary's runs written are the runs read, where a file that could not be read (written as its
    error's row of the runs table) was counted among them: two samples and a broken file said "wrote 3 runs"."""
    runs, out = tmp_path / "runs", tmp_path / "out"
    runs.mkdir()
    for name in ("fix-failing-test", "out-of-steps"):
        write_run(samples.load(name), runs / f"{name}.jsonl")
    (runs / "broken.jsonl").write_text("[]\n", encoding="utf-8")
    code, printed, err = _cli("export", str(runs), "--parquet", str(out), "--workers", "1", "--width", "200")
    steps = sum(len(samples.load(name).steps) for name in ("fix-failing-test", "out-of-steps"))
    assert (code, err) == (1, "")
    assert printed.startswith(f"{out}: wrote 2 runs ({steps} steps, "), printed
    assert "\n1 file could not be read (rows of the runs table with their error):\n" in printed, printed
    assert len(pd.read_parquet(out / "runs")) == 3


def test_export_says_each_file_it_could_not_read_in_words_on_lines_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder's member that cannot be read (a link to no file) is said as the system says it, by the name it is
    found by (``runs/gone.jsonl: cannot be read: No such file or directory``), where it printed Python's
    ``[Errno 2] ...`` naming the file again by its absolute path; an error longer than the line hangs under its file's
    name, where its rest began at the margin as a file's name does."""
    monkeypatch.chdir(tmp_path)
    Path("binary.jsonl").write_bytes(bytes(range(256)))  # its error says what it is in more than a line
    Path("runs").mkdir()
    Path("runs/gone.jsonl").symlink_to(tmp_path / "nowhere.jsonl")
    code, printed, err = _cli("export", "binary.jsonl", "runs", "--parquet", "out", "--workers", "1", "--width", "80")
    assert (code, err) == (1, "")
    said = printed.split("rows of the runs table with their error):\n")[1].splitlines()
    assert said[0].startswith("  binary.jsonl:1: not a run file: ")
    assert all(line.startswith("    ") for line in said[1:-1]), said
    assert said[-1] == f"  {Path('runs', 'gone.jsonl')}: cannot be read: No such file or directory"
    assert "Errno" not in pd.read_parquet("out/runs").error.str.cat()


@pytest.mark.parametrize("named", [("gone.jsonl",), ("fix-failing-test", "gone.jsonl"), ("fix-failng-test",)])
def test_export_refuses_a_named_file_that_does_not_exist_before_it_writes_anything(
    tmp_path: Path, named: tuple[str, ...]
) -> None:
    """``agentrender export`` of a file named that does not exist (alone or beside one that does, or a sample's name
    misspelt) exits 2 with one line on stderr naming it, as every other command does, and makes no OUT, where it made
    OUT, wrote the name as a row of the runs table with its error and exited 1."""
    out = tmp_path / "out"
    code, printed, err = _cli("export", *[str(tmp_path / name) if name == "gone.jsonl" else name for name in named],
                              "--parquet", str(out))  # fmt: skip
    missing = str(tmp_path / "gone.jsonl") if "gone.jsonl" in named else "fix-failng-test"
    assert (
        (code, printed) == (2, "") and err.startswith(f"agentrender: {missing}: no such file") and err.count("\n") == 1
    )
    assert not out.exists()


def test_an_export_says_which_run_files_it_read_without_all_they_hold(tmp_path: Path) -> None:
    """A run file whose last line was cut short (an agent killed while writing) is exported with what it holds, and
    the export says so: its lost warning (PATH:LINE: what) among the run's warnings in
    to_parquet's result, in --json and in the terminal summary, where it said only "wrote 2 runs"."""
    runs, out = tmp_path / "runs", tmp_path / "out"
    runs.mkdir()
    write_run(samples.load("fix-failing-test"), runs / "whole.jsonl")
    lines = samples.path("out-of-steps").read_text("utf-8").splitlines(keepends=True)
    cut = runs / "cut.jsonl"
    cut.write_text("".join(lines[:4]) + lines[4][:20], encoding="utf-8")
    said = f"{cut}:5: the last line is cut short (no newline, not JSON): 20 bytes not loaded"

    done = to_parquet(runs, out, workers=1, progress=False)
    lost = [(path, str(warning)) for path, _, warnings in done.warnings for warning in warnings if warning.lost]
    assert [path for path, _ in lost] == [str(cut)] and lost[0][1].startswith(said), done.warnings
    assert done.errors == () and pd.read_parquet(out / "runs").set_index("path").loc[str(cut), "warnings"] == 1

    code, printed, err = _cli("export", str(runs), "--parquet", str(tmp_path / "out2"), "--json")
    assert (code, err) == (0, "")
    warned = [warning for warning in json.loads(printed)["warnings"] if warning.get("lost")]
    assert [f"{w['path']}:{w['line']}: {w['text']}"[: len(said)] for w in warned] == [said]
    code, printed, err = _cli("export", str(runs), "--parquet", str(tmp_path / "out3"), "--width", "400")
    assert (code, err) == (0, "")
    assert f"\nwarning: {said}" in printed


def test_a_script_that_exports_with_workers_unguarded_is_told_so(folder: Path, tmp_path: Path) -> None:
    """A script that calls to_parquet with workers at its top level, not under `if __name__ == "__main__":`, ends on
    an error saying so (each worker imports the script), where it ended on "A process in the process pool was
    terminated abruptly"."""
    script = tmp_path / "export.py"
    call = f"to_parquet({str(folder)!r}, {str(tmp_path / 'out')!r}, workers=2, progress=False)"
    script.write_text(f"from agentrender.frame import to_parquet\n\n{call}\n", encoding="utf-8")
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": root}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, env=env)
    # the workers' own tracebacks may come after it: they write to the same stderr
    said = [line for line in done.stderr.splitlines() if line.startswith("RuntimeError: to_parquet: a worker process")]
    assert done.returncode == 1 and len(said) == 1, done.stderr
    assert 'if __name__ == "__main__":' in said[0] and "workers=1" in said[0]


def test_export_of_a_claude_code_session_writes_its_runs_and_prints_its_warnings(tmp_path: Path) -> None:
    """``agentrender export session.jsonl --parquet OUT`` of a Claude Code session writes its three runs, counts
    them, and prints the session's warnings as ``import`` prints a run's (``--json`` holds them, with their run's
    id), where it wrote the file as a run it could not read, exit 1."""
    out = tmp_path / "out"
    code, printed, err = _cli("export", str(SESSION), "--parquet", str(out), "--workers", "1", "--width", "300")
    read = imports.load_runs(SESSION)
    steps, calls = sum(len(run.steps) for run in read), sum(len(run.model_calls) for run in read)
    assert (code, err) == (0, ""), printed
    assert printed.startswith(f"{out}: wrote 3 runs ({steps} steps, {calls} model calls), skipped 0 unchanged files\n")
    said = [line for line in printed.splitlines() if line.startswith("warning: ")]
    assert said == [f"warning: {warning}" for warning in read[0].warnings] and len(said) == 2
    assert f"run {read[0].run_id}" in printed
    assert sorted(pd.read_parquet(out / "runs").run_id) == sorted(run.run_id for run in read)
    other = tmp_path / "other"
    code, printed, _ = _cli("export", str(SESSION), "--parquet", str(other), "--workers", "1", "--json")
    assert code == 0 and json.loads(printed)["warnings"] == [
        {"run_id": read[0].run_id, "path": warning.path, "line": warning.line, "text": warning.text}
        | ({"count": warning.count} if warning.count > 1 else {})
        for warning in read[0].warnings
    ]


def test_export_prune_removes_the_runs_whose_file_is_gone_and_says_so(tmp_path: Path) -> None:
    """agentrender export --prune drops the parts of a file deleted since the last export, and its summary counts it."""
    runs, out = tmp_path / "runs", tmp_path / "out"
    runs.mkdir()
    for name in ("fix-failing-test", "out-of-steps"):
        write_run(samples.load(name), runs / f"{name}.jsonl")
    assert _cli("export", str(runs), "--parquet", str(out), "--workers", "1")[0] == 0
    gone = (runs / "out-of-steps.jsonl").resolve()
    gone.unlink()
    code, printed, err = _cli("export", str(runs), "--parquet", str(out), "--workers", "1", "--prune", "--width", "200")
    assert (code, err) == (0, "")
    assert printed.strip().endswith("skipped 1 unchanged file (1 run), removed 1 gone file (1 run)")
    assert not any(len(_rows(out, table, gone)) for table in TABLES)
    assert pd.read_parquet(out / "runs").run_id.tolist() == ["fix-failing-test"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--recent-results", "2"], "exported with options {}, not {'recent_results': 2}"),
        ([], "not a Parquet export of agentrender"),
    ],
)
def test_export_refuses_an_out_it_cannot_add_to_in_one_line(tmp_path: Path, argv: list[str], message: str) -> None:
    """An OUT exported with other options, or a folder holding something else, exits 2 with one line on stderr."""
    out = tmp_path / "out"
    assert _cli("export", "fix-failing-test", "--parquet", str(out))[0] == 0
    if not argv:
        out = tmp_path / "busy"
        out.mkdir()
        (out / "notes.txt").write_text("mine\n", encoding="utf-8")
    code, printed, err = _cli("export", "fix-failing-test", "--parquet", str(out), *argv)
    assert (code, printed) == (2, "")
    assert err.count("\n") == 1 and err.startswith("agentrender: ") and message in err


def test_export_refuses_an_out_holding_a_users_file_in_one_line_naming_it(tmp_path: Path) -> None:
    """``agentrender export`` to an OUT whose steps folder holds a Parquet file it did not write exits 2 with one line
    on stderr naming the file and what to do, and the file keeps its bytes."""
    out = tmp_path / "out"
    assert _cli("export", "fix-failing-test", "--parquet", str(out))[0] == 0
    mine = out / "steps" / "mine.parquet"
    kept = _users_parquet(mine)
    code, printed, err = _cli("export", "fix-failing-test", "--parquet", str(out), "--prune")
    assert (code, printed) == (2, "")
    assert err == (
        f"agentrender: {out}: a file in its tables' folders that the export did not write ({mine}), which every "
        f"reader of the table would read as its rows: move it out of {out}, then export again (nothing was written "
        "or deleted)\n"
    )
    assert mine.read_bytes() == kept


def test_export_to_an_out_that_cannot_be_a_folder_says_so_in_words(tmp_path: Path) -> None:
    """--parquet naming a file (or a path under one) exits 2 with one line naming OUT, what went wrong and with what
    path, where it printed Python's '[Errno 20] Not a directory: ...'."""
    taken = tmp_path / "notes.txt"
    taken.write_text("mine\n", encoding="utf-8")
    code, printed, err = _cli("export", "fix-failing-test", "--parquet", str(taken))
    assert (code, printed) == (2, "")
    assert err == f"agentrender: --parquet {taken}: cannot be written: Not a directory ({taken / 'steps'})\n"


@pytest.mark.slow
def test_bench_parquet_prints_every_figure(
    import_bench: Callable[[str], ModuleType], capsys: pytest.CaptureFixture[str]
) -> None:
    """bench/bench_parquet.py runs on a tiny grid and prints the baseline and each ratio (no time is asserted)."""
    import_bench("bench_parquet").main(["--runs", "4", "--steps", "3", "--repeat", "1"])
    out = capsys.readouterr().out
    labels = ("frames in pandas (baseline)", "export (workers=1)", "again, unchanged", "again, one changed")
    for label in (*labels, "read_parquet", "scaling"):
        assert label in out


def test_an_export_stopped_before_its_manifest_can_be_resumed(folder: Path, tmp_path: Path) -> None:
    """A folder holding only an export's table folders (no manifest yet) is exported into, not refused."""
    out = tmp_path / "out"
    (out / "steps").mkdir(parents=True)
    done = to_parquet(folder, out, workers=1, progress=False)
    assert len(done.written) == len(_runs(folder))


def test_without_pyarrow_the_export_names_the_extra(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With pyarrow missing, to_parquet fails before writing anything, with the frame extra's pip line."""
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(ImportError, match=r"needs pyarrow, which is not installed: pip install 'agentrender\[frame\]'"):
        to_parquet(folder, tmp_path / "out", workers=1, progress=False)
    assert not (tmp_path / "out").exists()


def test_export_of_a_folder_with_no_run_files_says_so_and_writes_nothing(tmp_path: Path) -> None:
    """``agentrender export FOLDER`` of a folder that holds no run file says so in one line naming it and the names
    looked for, exit 2, and makes no OUT, where it wrote an empty export and said "wrote 0 runs"."""
    empty, out = tmp_path / "empty", tmp_path / "out"
    empty.mkdir()
    code, printed, err = _cli("export", str(empty), "--parquet", str(out))
    said = (
        f"no run files under {empty} (none named *.jsonl, *.jsonl.gz, *.eval or *.eval.gz, nor a *.json or *.json.gz "
        "that is an Inspect log, at any depth)"
    )
    assert (code, printed, err) == (2, "", f"agentrender: {said}\n")
    assert not out.exists()


def test_an_export_says_every_warning_it_holds_as_named_and_counts_the_runs_it_skips(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``agentrender export`` says each warning with its file as the user named it (it printed the absolute path),
    says a skipped file's warnings again from its stored runs row (it said them once, when written), and counts the
    files it skips and the runs they hold (it said "skipped 2 unchanged" of a file of one run and a session of
    three)."""
    runs = tmp_path / "runs"
    runs.mkdir()
    lines = samples.path("out-of-steps").read_text("utf-8").splitlines(keepends=True)
    (runs / "cut.jsonl").write_text("".join(lines[:4]) + lines[4][:20], encoding="utf-8")
    shutil.copy(SESSION, runs / SESSION.name)
    shutil.copytree(SESSION.with_suffix(""), runs / SESSION.stem)  # its sub-agents
    monkeypatch.chdir(tmp_path)
    session, [cut] = imports.load_runs(f"runs/{SESSION.name}"), imports.load_runs("runs/cut.jsonl")
    said = [f"warning: {warning}" for warning in (*session[0].warnings, *cut.warnings)]  # in the folder's order
    assert len(said) == 3 and said[2].startswith("warning: runs/cut.jsonl:5: the last line is cut short")

    def warnings_printed(*more: str) -> tuple[str, list[str]]:
        code, printed, err = _cli("export", "runs", "--parquet", "out", "--workers", "1", "--width", "400", *more)
        assert (code, err) == (0, ""), printed
        return printed.splitlines()[0], [line for line in printed.splitlines() if line.startswith("warning: ")]

    assert len(session) == 3
    first, printed = warnings_printed()
    assert first.startswith("out: wrote 4 runs (") and first.endswith(", skipped 0 unchanged files"), first
    assert printed == said
    again, printed = warnings_printed()
    assert again == "out: wrote 0 runs (0 steps, 0 model calls), skipped 2 unchanged files (4 runs)"
    assert printed == said
    code, out, _ = _cli("export", "runs", "--parquet", "out", "--json")
    summary = json.loads(out)
    assert (code, summary["unchanged_runs"], summary["warnings"]) == (0, 4, [])
    assert [f"warning: {warning['said']}" for warning in summary["unchanged_warnings"]] == said
    assert [warning["run_id"] for warning in summary["unchanged_warnings"]] == [session[0].run_id] * 2 + [cut.run_id]


def test_an_export_names_a_file_it_could_not_read_as_the_user_named_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file an export could not read is named in its summary as the user named it, when written and when skipped
    as unchanged, where the summary gave its absolute path; its runs row names it absolutely, as every table does."""
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "broken.jsonl").write_text("[]\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for _ in range(2):
        code, printed, err = _cli("export", "runs", "--parquet", "out", "--width", "300")
        assert (code, err) == (1, "")
        assert "\n  runs/broken.jsonl:1: not a run, nor a conversation" in printed, printed
    [row] = pd.read_parquet(tmp_path / "out" / "runs").itertuples()
    assert row.path == str(tmp_path / "runs" / "broken.jsonl") and row.error.startswith(f"{row.path}:1: ")


@pytest.mark.parametrize("relative", [True, False], ids=["relative", "absolute"])
def test_an_export_says_each_file_as_named_and_its_tables_join_the_runs_frame_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, relative: bool
) -> None:
    """What an export says names each file as the user named it (its summary's files written, skipped and unreadable,
    and the files its warnings and errors name, printed and in --json; the lists of files were absolute where the
    texts were as named), while its tables, as ``runs_frame``'s, name each file, in ``path``, ``error`` and
    ``warning_texts``, by its absolute path, so ``runs_frame`` of the same folder joins each table on ``path``."""
    runs = tmp_path / "runs"
    runs.mkdir()
    write_run(samples.load("fix-failing-test"), runs / "whole.jsonl")
    lines = samples.path("out-of-steps").read_text("utf-8").splitlines(keepends=True)
    (runs / "cut.jsonl").write_text("".join(lines[:4]) + lines[4][:20], encoding="utf-8")
    (runs / "broken.jsonl").write_text("[]\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    folder = "runs" if relative else str(runs)
    named = [os.path.join(folder, name) for name in ("broken.jsonl", "cut.jsonl", "whole.jsonl")]

    def summary() -> dict[str, Any]:
        code, printed, err = _cli("export", folder, "--parquet", "out", "--workers", "1", "--json")
        assert (code, err) == (1, "")
        return cast("dict[str, Any]", json.loads(printed))

    first, again = summary(), summary()
    assert (first["written"], first["unchanged"], again["written"], again["unchanged"]) == ([*named], [], [], named)
    for said in (first, again):
        assert [error["path"] for error in said["errors"]] == [named[0]]
        assert said["errors"][0]["error"].startswith(f"{named[0]}:1: not a run"), said["errors"]
    assert [warning["path"] for warning in first["warnings"]] == [named[1]]
    assert [warning["said"][: len(named[1]) + 3] for warning in again["unchanged_warnings"]] == [f"{named[1]}:5:"]
    code, printed, _ = _cli("export", folder, "--parquet", "out", "--width", "300")
    assert code == 1 and f"\nwarning: {named[1]}:5: the last line is cut short" in printed
    assert f"\n  {named[0]}:1: not a run" in printed, printed

    frame = runs_frame(folder, workers=1, progress=False)
    absolute = [str(tmp_path / path) for path in ("runs/broken.jsonl", "runs/cut.jsonl", "runs/whole.jsonl")]
    assert list(frame.path) == absolute and frame.error[0].startswith(f"{absolute[0]}:1: ")
    assert [text[: len(absolute[1]) + 3] for text in frame.warning_texts[1]] == [f"{absolute[1]}:5:"]
    for table in TABLES:
        read = pd.read_parquet(tmp_path / "out" / table)
        joined = read.merge(frame[["path", "run_id"]], on="path", suffixes=("", "_frame"))
        assert len(joined) == len(read) > 0 and joined.run_id.equals(joined.run_id_frame), table
    stored = pd.read_parquet(tmp_path / "out" / "runs").set_index("path")
    assert stored.loc[absolute[0], "error"] == frame.error[0]
    assert list(stored.loc[absolute[1], "warning_texts"]) == frame.warning_texts[1]


def test_export_prune_counts_the_files_gone_and_the_runs_they_held(tmp_path: Path) -> None:
    """``export --prune`` of a Claude Code session (three runs) whose file is gone says it removed one file and its
    three runs (``removed_runs`` in --json), where it said "removed 1 run" of the file, counting files as runs."""
    runs, out = tmp_path / "runs", tmp_path / "out"
    runs.mkdir()
    shutil.copy(SESSION, runs / SESSION.name)
    shutil.copytree(SESSION.with_suffix(""), runs / SESSION.stem)  # its sub-agents
    write_run(samples.load("fix-failing-test"), runs / "kept.jsonl")
    assert _cli("export", str(runs), "--parquet", str(out), "--workers", "1")[0] == 0
    (runs / SESSION.name).unlink()
    shutil.rmtree(runs / SESSION.stem)
    code, printed, err = _cli("export", str(runs), "--parquet", str(out), "--prune", "--width", "200")
    assert (code, err) == (0, "")
    assert printed.strip().endswith("skipped 1 unchanged file (1 run), removed 1 gone file (3 runs)"), printed
    code, printed, err = _cli("export", str(runs), "--parquet", str(out), "--prune", "--json")
    assert (code, err, json.loads(printed)["removed"], json.loads(printed)["removed_runs"]) == (0, "", [], 0)


def test_a_call_the_sdk_retried_is_exported_with_its_tries_and_their_time(tmp_path: Path) -> None:
    """The Parquet export's model_calls table holds, as the frame does, how many HTTP tries each call took and the time
    its failed ones took (a recorded call the SDK retried twice)."""
    (tmp_path / "runs").mkdir()
    path = retried_run_file(tmp_path / "runs" / "retried.jsonl")
    to_parquet(path.parent, tmp_path / "out", workers=1, progress=False)
    calls = _rows(tmp_path / "out", "model_calls", path.resolve())
    assert calls["tries"].tolist() == [1, 3, 1, 1, 1, 1, 1, 1]
    assert calls["retried_ms"].tolist() == [0, 1550.5, 0, 0, 0, 0, 0, 0]


def test_an_export_names_a_bundled_sample_as_the_user_named_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``agentrender export fix-failing-test`` names the sample by that name in what it says, written and skipped as
    unchanged (--json's lists), where it named the sample's file in the package; its tables name that file."""
    monkeypatch.chdir(tmp_path)
    name = "fix-failing-test"
    for expected in ({"written": [name], "unchanged": []}, {"written": [], "unchanged": [name]}):
        code, printed, err = _cli("export", "fix-failing-test", "--parquet", "out", "--workers", "1", "--json")
        assert (code, err) == (0, "")
        summary = json.loads(printed)
        assert {key: summary[key] for key in expected} == expected
    [row] = pd.read_parquet(tmp_path / "out" / "runs").itertuples()
    assert row.path == str(samples.path("fix-failing-test"))
