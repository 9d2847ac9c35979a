"""agentrender.dask.read_runs: a table of many run files as a Dask data frame, equal to the frames, on any scheduler."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path
from types import ModuleType

import pandas as pd
import pytest

from agentrender import samples
from agentrender.dask import file_groups, read_runs
from agentrender.frame import PARQUET_TABLES, table_frame
from tests._support.conversations import REPLIED_THEN_PREFILL
from tests._support.sweep import write_sweep
from tests._support.tables import BROKEN, concatenated, in_declared_order, run_table, runs_folder

TABLES = tuple(PARQUET_TABLES)


def _computed(frame: object, table: str) -> pd.DataFrame:
    """The data frame computed by the synchronous scheduler, indexed from 0, its categories in declared order."""
    computed = frame.compute(scheduler="sync")  # type: ignore[attr-defined]
    return in_declared_order(computed.reset_index(drop=True), table)


def _expected(paths: list[Path], table: str, options: dict[str, int] | None = None) -> pd.DataFrame:
    """Every readable file's frame of ``table``, one after another (every file's row, for the runs table)."""
    readable = [path for path in paths if table == "runs" or path.name != "broken.jsonl"]
    return concatenated([run_table(path, table, options) for path in readable], table)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A folder of run files: the bundled samples, a few runs of a sweep, one with a lone surrogate, one broken."""
    lone = [
        {"type": "run", "format": "agentrender.run/1", "run_id": "lone", "goal": "x"},
        {"type": "step", "index": 0, "decision": {"kind": "tool_call", "tool": "t", "reason": "half \ud800"},
         "observation": {"status": "ok", "content": "c"}},
    ]  # fmt: skip
    return runs_folder(tmp_path / "runs", {"lone": lone})


def _runs(folder: Path) -> list[Path]:
    return sorted(path.resolve() for path in folder.glob("*.jsonl"))


@pytest.mark.parametrize("table", TABLES)
def test_the_computed_table_is_every_runs_frame_one_after_another(folder: Path, table: str) -> None:
    """Computed, each table is the concatenation of every file's frame in file order: the same columns, dtypes
    (text as Python strings, which keep a lone surrogate) and values, over partitions of a few files."""
    frame = read_runs(folder, table=table, partition_bytes=40_000)
    assert frame.npartitions > 2
    got = _computed(frame, table)
    pd.testing.assert_frame_equal(got, _expected(_runs(folder), table), check_exact=True)
    if table == "steps":
        assert got.loc[got.run_id == "lone", "reason"].tolist() == ["half \ud800"]


def test_the_meta_is_the_declared_columns_and_nothing_is_read(tmp_path: Path) -> None:
    """The data frame's columns and dtypes are the table's declared ones before any file is read (a file that
    does not exist yet is not an error until computed); categoricals wait for the data to know their categories."""
    for table, columns in PARQUET_TABLES.items():
        frame = read_runs([tmp_path / "not-yet.jsonl"], table=table)
        assert list(frame.columns) == [column.name for column in columns]
        declared = {column.name: column.dtype for column in columns}
        assert {name: str(dtype) for name, dtype in frame.dtypes.items()} == declared
        meta = table_frame([], table)
        for column in columns:
            if column.dtype == "category":
                assert not frame[column.name].cat.known
            else:
                assert frame[column.name].dtype == meta[column.name].dtype, column.name
        assert not frame.known_divisions


def test_the_runs_tables_prefill_is_computed_as_its_meta_declares(tmp_path: Path) -> None:
    """The runs table's prefill has the meta's dtype once computed, True for a run that ended on a prefill no reply
    answered and False for one that did not, as runs_frame gives it."""
    prefilled = tmp_path / "replied-then-prefill.json"
    prefilled.write_text(json.dumps(REPLIED_THEN_PREFILL), encoding="utf-8")
    plain = samples.path(samples.names()[0])
    frame = read_runs([prefilled, plain], table="runs", partition_bytes=1)
    got = _computed(frame, "runs")
    assert got["prefill"].dtype == frame["prefill"].dtype == table_frame([], "runs")["prefill"].dtype
    assert got["prefill"].tolist() == [True, False]
    pd.testing.assert_frame_equal(got, _expected([prefilled, plain], "runs"), check_exact=True)


def test_the_runs_tables_link_columns_are_computed_as_runs_frame_gives_them(claude_code_sessions: list[Path]) -> None:
    """Computed over a partition a session, the runs table says how each session's runs are linked (the run and step
    that started each, how, and how many each started) with the meta's dtypes, as runs_frame does."""
    frame = read_runs(claude_code_sessions, table="runs", partition_bytes=1)
    assert frame.npartitions == 3
    got = _computed(frame, "runs")
    links = ["parent_run_id", "parent_step", "parent_tool_use_id", "started_by", "started_runs"]
    assert got.started_runs.tolist() == [1, 0, 2, 0, 0, 2, 0, 0]
    assert got.started_by.value_counts().to_dict() == {"tool_use": 4, "compaction": 1}
    assert all(got[name].dtype == table_frame([], "runs")[name].dtype for name in links if name != "started_by")
    pd.testing.assert_frame_equal(got, _expected(claude_code_sessions, "runs"), check_exact=True)


def test_partitions_are_groups_of_consecutive_files_up_to_the_bytes_given(folder: Path) -> None:
    """Each partition reads consecutive files of at most partition_bytes together, one file when it is larger;
    the default puts a small sweep in one partition; partition i holds the rows of group i."""
    paths = _runs(folder)
    sizes = {str(path): path.stat().st_size for path in paths}
    groups = file_groups(folder, partition_bytes=40_000)
    assert [path for group in groups for path in group] == [str(path) for path in paths]
    assert all(sum(sizes[path] for path in group) <= 40_000 or len(group) == 1 for group in groups)
    assert all(sum(sizes[path] for path in group) + sizes[after[0]] > 40_000 for group, after in pairwise(groups))
    assert file_groups(folder) == [tuple(map(str, paths))]
    assert [len(group) for group in file_groups(folder, partition_bytes=1)] == [1] * len(paths)
    frame = read_runs(folder, table="runs", partition_bytes=40_000)
    assert frame.npartitions == len(groups)
    for i, group in enumerate(groups):
        assert frame.partitions[i].compute(scheduler="sync").path.tolist() == list(group)


def test_a_bad_or_missing_file_is_a_runs_row_with_its_error_and_fails_nothing(folder: Path) -> None:
    """A broken file and one that does not exist compute without error: each is a runs row naming the file and
    what was wrong (PATH:LINE: what), every other column null, and has no steps or model calls."""
    missing = folder / "gone.jsonl"
    paths = [*_runs(folder), missing]
    runs = read_runs(paths, table="runs").compute(scheduler="sync").set_index("path")
    broken = str(folder.resolve() / "broken.jsonl")
    assert runs.loc[broken, "error"] == f"{broken}:2: $: expected a JSON object, got array"
    assert "No such file" in runs.loc[str(missing), "error"]
    assert runs.loc[broken].drop("error").isna().all()
    assert runs.error.notna().sum() == 2
    steps = read_runs(paths).compute(scheduler="sync")
    assert not steps.path.isin([broken, str(missing)]).any()
    assert set(steps.path) == {str(path) for path in _runs(folder)} - {broken}


def test_globs_folders_files_and_lists_name_the_same_files(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A glob (relative or absolute, ** at any depth), a folder (its run files at any depth), one file and a list
    give the files sorted and absolute; a list keeps its order."""
    nested = folder / "more" / "deeper"
    nested.mkdir(parents=True)
    write_sweep(nested, 2, first=100)
    (folder / "notes.txt").write_text("not a run")
    every = sorted(str(path.resolve()) for path in folder.rglob("*.jsonl"))
    flat = [str(path) for path in _runs(folder)]
    monkeypatch.chdir(folder.parent)

    def files(source: object) -> list[str]:
        return [path for group in file_groups(source, partition_bytes=1) for path in group]  # type: ignore[arg-type]

    assert files("runs/*.jsonl") == flat
    assert files(str(folder / "*.jsonl")) == flat
    assert files("runs/**/*.jsonl") == every
    assert files(folder) == files("runs") == every
    assert files("runs/lone.jsonl") == [str(folder.resolve() / "lone.jsonl")]
    lone, broken = (str(folder.resolve() / name) for name in ("lone.jsonl", "broken.jsonl"))
    assert files(["runs/lone.jsonl", folder / "broken.jsonl"]) == [lone, broken]
    got = read_runs("runs/**/sweep-*.jsonl", table="runs").compute(scheduler="sync")
    assert got.run_id.tolist() == [f"sweep-{n:05d}" for n in (100, 101, *range(6))]  # sorted by path: runs/more/ first


def test_a_folder_names_the_files_runs_frame_reads_of_it(tmp_path: Path) -> None:
    """A folder names the run files runs_frame and to_parquet read of it: a linked folder's too (each file once,
    however many links name it), none of a hidden folder's (a notebook's checkpoints)."""
    from agentrender.frame import runs_frame

    folder, elsewhere = tmp_path / "runs", tmp_path / "elsewhere"
    write_sweep(folder, 2)
    write_sweep(elsewhere, 1, first=10)
    write_sweep(folder / ".ipynb_checkpoints", 1, first=20)
    (folder / "linked").symlink_to(elsewhere, target_is_directory=True)
    (folder / "again").symlink_to(elsewhere, target_is_directory=True)
    files = [path for group in file_groups(folder, partition_bytes=1) for path in group]
    assert files == runs_frame(folder, workers=1, progress=False).path.tolist()
    assert [Path(path).name for path in files] == ["sweep-00010.jsonl", "sweep-00000.jsonl", "sweep-00001.jsonl"]


def test_a_list_that_names_a_file_twice_reads_it_once(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A list that names a file twice (two globs that overlap, its path relative and absolute) reads it once, where
    it was first named, as runs_frame and to_parquet do; its rows were there twice."""
    monkeypatch.chdir(folder)
    runs = _runs(folder)
    named = [*runs, runs[0], "lone.jsonl"]
    got = read_runs(named, table="runs", partition_bytes=1).compute(scheduler="sync")  # a partition a file
    assert got.path.tolist() == [str(path) for path in runs]


def test_a_glob_or_folder_with_no_run_files_is_a_clear_error(tmp_path: Path) -> None:
    """A pattern that matches no file and an empty folder each raise one error naming what was given, before
    anything is computed (the folder's as the frames say it, ``run_files``)."""
    with pytest.raises(FileNotFoundError, match=r"read_runs: no run files match '.*/nothing-\*\.jsonl'"):
        read_runs(str(tmp_path / "nothing-*.jsonl"))
    with pytest.raises(
        FileNotFoundError,
        match=r"no run files under .* \(none named \*\.jsonl, \*\.jsonl\.gz, \*\.eval or \*\.eval\.gz, nor a \*\.",
    ):
        read_runs(tmp_path)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"table": "step"}, r"table is one of 'steps', 'model_calls', 'runs', not 'step'"),
        ({"options": {"recent": 2}}, r"options takes recent_results and result_bytes, not 'recent'"),
        ({"options": {"recent_results": -1}}, r"options\['recent_results'\] must be an integer of 0 or more"),
        ({"partition_bytes": 0}, r"read_runs: partition_bytes must be an integer of 1 or more, got 0"),
    ],
)
def test_what_it_cannot_read_by_is_refused_at_once(folder: Path, kwargs: dict[str, object], message: str) -> None:
    """An unknown table, window option or partition size is a ValueError when read_runs is called, not a failed
    task later."""
    with pytest.raises(ValueError, match=message):
        read_runs(folder, **kwargs)  # type: ignore[arg-type]


def test_the_window_options_apply_to_every_run(folder: Path) -> None:
    """options={"recent_results": 1} reads every run's steps under a window of one result, as steps_frame does."""
    options = {"recent_results": 1}
    got = _computed(read_runs(folder, options=options, partition_bytes=40_000), "steps")
    pd.testing.assert_frame_equal(got, _expected(_runs(folder), "steps", options), check_exact=True)
    full = got[got.rendered].groupby("path").full.sum()
    assert (full <= 1).all() and (full == 1).any()


def test_without_dask_read_runs_names_the_extra(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With dask missing, read_runs fails with the dask extra's pip line."""
    monkeypatch.setitem(sys.modules, "dask.dataframe", None)
    with pytest.raises(ImportError, match=r"needs dask, which is not installed: pip install 'agentrender\[dask\]'"):
        read_runs(folder)


@pytest.mark.slow
def test_a_local_cluster_of_two_processes_reads_200_runs_as_pandas_does(tmp_path: Path) -> None:
    """On a LocalCluster of two worker processes, 200 generated run files and a broken one give the steps, model
    calls and runs that pandas gives (runs_frame, and every run's frames one after another), exactly."""
    from distributed import Client, LocalCluster

    folder = tmp_path / "sweep"
    paths = [path.resolve() for path in write_sweep(folder, 200)]
    broken = folder / "broken.jsonl"
    broken.write_text(BROKEN, encoding="utf-8")
    paths = sorted([*paths, broken.resolve()])
    cluster = LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0"
    )
    with cluster, Client(cluster) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        frames = {table: read_runs(folder / "*.jsonl", table=table, partition_bytes=200_000) for table in TABLES}
        assert frames["steps"].npartitions > 10
        computed = dict(zip(TABLES, client.compute(list(frames.values()), sync=True), strict=True))
    for table, frame in computed.items():
        got = in_declared_order(frame.reset_index(drop=True), table)
        pd.testing.assert_frame_equal(got, _expected(paths, table), check_exact=True)
    runs = computed["runs"]
    assert runs.error.notna().sum() == 1 and runs.loc[runs.error.notna(), "path"].item() == str(broken.resolve())


@pytest.mark.slow
def test_bench_dask_prints_every_figure(
    import_bench: Callable[[str], ModuleType], capsys: pytest.CaptureFixture[str]
) -> None:
    """bench/bench_dask.py runs on a tiny sweep and prints runs per second and a ratio for each way of reading."""
    import_bench("bench_dask").main(["--runs", "6", "--mib", "0.05", "--dask-workers", "1", "--repeat", "1"])
    out = capsys.readouterr().out
    for label in ("pandas, 1 process (baseline)", "process pool, 2 processes", "dask LocalCluster, 1 worker"):
        assert out.count(label) >= 2, label
    assert "groupby there" in out and "a partition:" in out and "runs/s" in out


def test_read_runs_is_the_same_on_a_threaded_scheduler(folder: Path) -> None:
    """The threads scheduler (Dask's default without a cluster) computes the same table as the synchronous one."""
    frame = read_runs(folder, partition_bytes=40_000)
    threads = in_declared_order(frame.compute(scheduler="threads").reset_index(drop=True), "steps")
    pd.testing.assert_frame_equal(threads, _computed(frame, "steps"), check_exact=True)


def test_a_lone_surrogate_in_a_category_fails_the_compute_as_documented(tmp_path: Path) -> None:
    """A tool name holding a lone surrogate in two partitions cannot be combined (pandas' union_categoricals
    hashes it as UTF-8): the documented limit, raised when computed, not when read_runs is called."""
    for name in ("a", "b"):
        records = [
            {"type": "run", "format": "agentrender.run/1", "run_id": name, "goal": "x"},
            {"type": "step", "index": 0, "decision": {"kind": "tool_call", "tool": f"{name}\ud800"}},
        ]
        (tmp_path / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    frame = read_runs(tmp_path, partition_bytes=1)
    with pytest.raises(UnicodeEncodeError):
        frame.compute(scheduler="sync")
    assert [part.compute(scheduler="sync").tool.tolist() for part in frame.partitions] == [["a\ud800"], ["b\ud800"]]
