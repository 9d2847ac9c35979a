"""runs_frame: many run files in parallel, one typed row each, and no file lost to an error."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from agentrender.frame import RUN_COLUMNS, run_files, runs_frame, steps_frame, table_frame, to_parquet
from agentrender.imports import load_runs
from agentrender.runfile import load_run
from tests._support.conversations import REPLIED_THEN_PREFILL
from tests._support.real import REAL

NA = pd.NA


def _header(run_id: str, **more: Any) -> dict[str, Any]:
    return {"type": "run", "format": "agentrender.run/1", "run_id": run_id, "goal": "Fix the test.", **more}


def _step(index: int, decision: dict[str, Any] | None, observation: dict[str, Any] | None) -> dict[str, Any]:
    return {"type": "step", "index": index, "decision": decision, "observation": observation}


def _call(step: int, input_tokens: int, output_tokens: int) -> dict[str, Any]:
    response = {
        "id": f"msg_{step}",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [{"type": "tool_use", "id": f"t{step}", "name": "read_file", "input": {}}],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
    }
    return {"type": "model_call", "step": step, "latency_ms": 10, "response": response}


READ = {"kind": "tool_call", "tool": "read_file", "args": {"path": "a.py"}}


def _lines(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


def _store(folder: Path) -> dict[str, Path]:
    """A folder of run files: a finished run, a gzipped one cut short, a bad one, a nested one, and a stray."""
    finished = [
        _header("finished", model="claude-test", started_at="2026-11-29T10:00:00Z"),
        _call(0, 100, 10),
        _step(0, READ, {"status": "ok", "content": "x", "summary": "x"}),
        _call(1, 150, 15),
        _step(1, READ, {"status": "error", "content": "boom", "summary": "boom"}),
        _step(2, None, None),
        _step(3, READ, {"status": "interrupted"}),
        _step(4, {"kind": "no_tool_call"}, {"status": "invalid_decision", "summary": "no call"}),
        {"type": "end", "status": "completed", "reason": "completed", "at": "2026-11-29T10:01:30Z"},
    ]
    paths = {
        "finished": folder / "a-finished.jsonl",
        "cut": folder / "b-cut.jsonl.gz",
        "bad": folder / "c-bad.jsonl",
        "nested": folder / "sub" / "d-nested.jsonl",
    }
    paths["finished"].write_text(_lines(finished), encoding="utf-8")
    cut = _lines([_header("cut"), _step(0, READ, {"status": "ok"})]) + '{"type": "step", "ind'
    paths["cut"].write_bytes(gzip.compress(cut.encode()))
    paths["bad"].write_text(_lines([_header("bad")]) + "[1, 2]\n", encoding="utf-8")
    paths["nested"].parent.mkdir()
    paths["nested"].write_text(_lines([_header("nested")]), encoding="utf-8")
    (folder / "notes.txt").write_text("not a run\n", encoding="utf-8")
    return paths


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path]]:
    folder = tmp_path_factory.mktemp("runs")
    return folder, _store(folder)


def _row(frame: pd.DataFrame, path: Path) -> pd.Series:
    rows = frame[frame["path"] == str(path)]
    assert len(rows) == 1
    return rows.iloc[0]


def test_folder_gives_one_typed_row_per_run_file(store: tuple[Path, dict[str, Path]]) -> None:
    """Every *.jsonl and *.jsonl.gz under the folder, nested ones included, is one row with the declared dtypes."""
    folder, paths = store
    frame = runs_frame(folder, workers=1, progress=False)
    assert [(name, str(dtype)) for name, dtype in frame.dtypes.items()] == [(c.name, c.dtype) for c in RUN_COLUMNS]
    assert frame["path"].tolist() == [str(paths[name]) for name in ("finished", "cut", "bad", "nested")]


def test_a_finished_run_is_summed_up(store: tuple[Path, dict[str, Path]]) -> None:
    """Steps, rendered steps, failures, interruptions, tokens, end and times are the run's."""
    _, paths = store
    row = _row(runs_frame(store[0], workers=1, progress=False), paths["finished"])
    assert row["run_id"] == "finished" and row["model"] == "claude-test"
    assert (row["steps"], row["rendered_steps"], row["failures"], row["interruptions"]) == (5, 4, 2, 1)
    assert (row["model_calls"], row["input_tokens"], row["output_tokens"]) == (2, 250, 25)
    assert (row["end_status"], row["end_reason"], row["warnings"]) == ("completed", "completed", 0)
    assert row["duration"] == pd.Timedelta(seconds=90)
    assert row["error"] is NA


def test_a_run_without_end_is_kept_with_its_warning(store: tuple[Path, dict[str, Path]]) -> None:
    """A gzipped run whose last line was cut loads with a warning and null end columns."""
    _, paths = store
    row = _row(runs_frame(store[0], workers=1, progress=False), paths["cut"])
    assert (row["steps"], row["warnings"], row["error"]) == (1, 1, NA)
    assert pd.isna(row["end_status"]) and pd.isna(row["end_reason"]) and pd.isna(row["ended_at"])
    assert (row["input_tokens"], row["model_calls"]) == (0, 0)


def test_a_bad_file_is_a_row_naming_where(store: tuple[Path, dict[str, Path]]) -> None:
    """A file that fails to load keeps its row: the error names file and line, every other column is null."""
    _, paths = store
    row = _row(runs_frame(store[0], workers=1, progress=False), paths["bad"])
    assert row["error"].startswith(f"{paths['bad']}:2:")
    assert row.drop(["path", "error"]).isna().all()


@pytest.mark.slow  # starts worker processes
def test_two_workers_give_the_same_frame(store: tuple[Path, dict[str, Path]]) -> None:
    """Reading in two worker processes gives exactly the frame one process gives, in the same order."""
    folder, _ = store
    one = runs_frame(folder, workers=1, progress=False)
    two = runs_frame(folder, workers=2, progress=False)
    pd.testing.assert_frame_equal(one, two)


@pytest.mark.slow  # starts a Python process and its workers
def test_a_script_that_starts_workers_unguarded_is_told_so_not_sent_to_a_run_file(
    store: tuple[Path, dict[str, Path]], tmp_path: Path
) -> None:
    """A script that calls runs_frame with workers at its top level, not under `if __name__ == "__main__":`, ends on
    an error saying so (each worker imports the script), where it ended on a broken pool "while reading run file"
    the first file, which holds nothing wrong."""
    folder, _ = store
    script = tmp_path / "sweep.py"
    call = f"runs_frame({str(folder)!r}, workers=2, progress=False)"
    script.write_text(f"from agentrender.frame import runs_frame\n\nprint(len({call}))\n", encoding="utf-8")
    root = str(Path(__file__).resolve().parents[1])
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": root},
        check=False,
    )
    # the workers' own tracebacks may come after it: they write to the same stderr
    said = [line for line in done.stderr.splitlines() if line.startswith("RuntimeError: runs_frame: a worker process")]
    assert done.returncode == 1 and len(said) == 1, done.stderr
    assert 'if __name__ == "__main__":' in said[0] and "workers=1" in said[0]
    assert "while reading run file" not in done.stderr


def test_a_list_of_paths_keeps_its_order_and_missing_files(store: tuple[Path, dict[str, Path]], tmp_path: Path) -> None:
    """An explicit list is read in its order; a file that does not exist is an error row, not a crash."""
    _, paths = store
    missing = tmp_path / "gone.jsonl"
    frame = runs_frame([paths["nested"], missing, str(paths["finished"])], workers=2, progress=False)
    assert frame["run_id"].tolist() == ["nested", NA, "finished"]
    assert str(missing) in frame["error"].iloc[1]


def test_a_list_that_names_a_file_twice_gives_its_row_once(
    store: tuple[Path, dict[str, Path]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A list that names a file twice (two globs that overlap, its path relative and absolute) gives one row of it,
    where it was first named, as to_parquet exports it once; it gave a row each time."""
    folder, paths = store
    monkeypatch.chdir(folder)
    named = [*sorted(folder.glob("*.jsonl")), *sorted(folder.glob("**/*.jsonl")), "a-finished.jsonl"]
    runs = runs_frame(named, workers=1, progress=False)
    assert runs["path"].tolist() == [str(paths[name]) for name in ("finished", "bad", "nested")]
    assert runs["run_id"].tolist() == ["finished", NA, "nested"]
    steps = table_frame(named, "steps")
    assert steps["path"].tolist() == [str(paths["finished"])] * 5  # the nested run has no steps


def test_one_file_and_no_files(store: tuple[Path, dict[str, Path]], tmp_path: Path) -> None:
    """A single file path gives its one row; an empty list an empty typed frame; a missing path an error."""
    _, paths = store
    assert runs_frame(paths["finished"], progress=False)["run_id"].tolist() == ["finished"]
    empty = runs_frame([], progress=False)
    assert len(empty) == 0 and list(empty.columns) == [c.name for c in RUN_COLUMNS]
    with pytest.raises(FileNotFoundError, match="no_such_folder"):
        runs_frame(tmp_path / "no_such_folder", progress=False)
    with pytest.raises(ValueError, match="workers must be 1 or more"):
        runs_frame([], workers=0, progress=False)


def test_a_folder_is_read_through_its_links_each_file_once_and_without_its_hidden_files(tmp_path: Path) -> None:
    """A folder's run files are those at any depth under it, a linked folder's too, each file once however many
    links name it; a hidden file or folder (a notebook's checkpoints) holds none of them, nor is a pipe one, and a
    link that points nowhere is a row with its error."""
    folder, elsewhere = tmp_path / "runs", tmp_path / "elsewhere"
    (folder / ".ipynb_checkpoints").mkdir(parents=True)
    elsewhere.mkdir()
    one = _lines([_header("one")])
    (folder / "a.jsonl").write_text(one, encoding="utf-8")
    (folder / ".ipynb_checkpoints" / "a-checkpoint.jsonl").write_text(one, encoding="utf-8")
    (folder / ".b.jsonl").write_text(_lines([_header("hidden")]), encoding="utf-8")
    (elsewhere / "c.jsonl").write_text(_lines([_header("linked")]), encoding="utf-8")
    (folder / "linked").symlink_to(elsewhere, target_is_directory=True)
    (folder / "same-as-c.jsonl").symlink_to(elsewhere / "c.jsonl")
    (folder / "loop").symlink_to(folder, target_is_directory=True)
    (folder / "gone.jsonl").symlink_to(tmp_path / "nowhere.jsonl")
    os.mkfifo(folder / "pipe.jsonl")  # no file: reading it would wait for a writer forever
    assert [Path(path).name for path in run_files(folder)] == ["a.jsonl", "gone.jsonl", "c.jsonl"]
    frame = runs_frame(folder, workers=1, progress=False)
    assert frame["path"].tolist() == [str(folder / name) for name in ("a.jsonl", "gone.jsonl", "linked/c.jsonl")]
    assert frame["run_id"].tolist() == ["one", NA, "linked"]
    assert "No such file or directory" in frame["error"].iloc[1]


def test_progress_bar_counts_the_files(store: tuple[Path, dict[str, Path]], capsys: pytest.CaptureFixture[str]) -> None:
    """With progress on, a tqdm bar on stderr counts every file read; with it off, nothing is printed."""
    folder, _ = store
    runs_frame(folder, workers=1, progress=True)
    assert "4/4" in capsys.readouterr().err
    runs_frame(folder, workers=1, progress=False)
    assert capsys.readouterr().err == ""


def test_samples_frames_agree_with_their_render() -> None:
    """Over every bundled sample, runs_frame has one clean row each and steps_frame's full matches the render."""
    from agentrender import render, samples

    runs = runs_frame(samples.folder(), workers=2, progress=False)
    assert sorted(runs["run_id"]) == samples.names()
    assert runs["error"].isna().all() and runs["end_reason"].notna().all()
    checked = 0
    for name in samples.names():
        run = samples.load(name)
        frame = steps_frame(run)
        assert frame["index"].tolist() == [step.index for step in run.steps]
        conversation = render.messages(run.step_input(), run.options())
        results = {
            block.tool_use_id: block.content
            for message in conversation
            for block in message.content
            if block.type == "tool_result"
        }
        for row, step in zip(frame.itertuples(index=False), run.steps, strict=True):
            shown = results.get(row.tool_use_id) if row.rendered else None
            if shown is not None and step.observation is not None and step.observation.status in ("ok", "error"):
                assert row.full == (shown == render.truncate(step.observation.content, render.RESULT_BYTES)) or (
                    step.observation.content == step.observation.summary
                )
                checked += 1
        assert int(runs.loc[runs["run_id"] == name, "rendered_steps"].iloc[0]) == int(frame["rendered"].sum())
    assert checked >= 10


def test_rendered_steps_counts_and_says_a_closing_prefill(tmp_path: Path) -> None:
    """runs_frame's rendered_steps counts a request's closing prefill (the caller's text, no decision of the model)
    as steps_frame's rendered does, and its meaning says so rather than "those with a decision"."""
    path = tmp_path / "replied-then-prefill.json"
    path.write_text(json.dumps(REPLIED_THEN_PREFILL), encoding="utf-8")
    row = runs_frame([str(path)], workers=1).iloc[0]
    frame = steps_frame(load_runs(path)[0])
    assert (row["steps"], row["rendered_steps"], int(frame["prefill"].sum())) == (3, 3, 1)
    meaning = {column.name: column.meaning for column in RUN_COLUMNS}["rendered_steps"]
    assert "prefill" in meaning and "(those with a decision)" not in meaning


def test_prefill_says_which_runs_ended_on_a_prefill_no_reply_answered(tmp_path: Path) -> None:
    """runs_frame's prefill is True for a run whose last request ended on a prefill no reply answered, False for a
    run that ended otherwise, null for a file that cannot be read, and its meaning says so."""
    prefilled = tmp_path / "replied-then-prefill.json"
    prefilled.write_text(json.dumps(REPLIED_THEN_PREFILL), encoding="utf-8")
    plain = tmp_path / "plain.jsonl"
    decision = {"kind": "tool_call", "tool": "t", "args": {}}
    plain.write_text(_lines([_header("plain"), _step(0, decision, {"status": "ok", "content": "c"})]), "utf-8")
    broken = tmp_path / "broken.jsonl"
    broken.write_text("{not json\n", encoding="utf-8")
    runs = runs_frame([prefilled, plain, broken], workers=1, progress=False)
    assert str(runs["prefill"].dtype) == "boolean"
    assert runs["prefill"].tolist() == [True, False, NA]
    meaning = {column.name: column.meaning for column in RUN_COLUMNS}["prefill"]
    assert "prefill no reply answered" in meaning


def test_a_failed_run_says_what_stopped_it(tmp_path: Path) -> None:
    """A run ended by an agent error has end_reason agent_error (a known category) and the error's text."""
    path = tmp_path / "failed.jsonl"
    end = {"type": "end", "status": "failed", "reason": "agent_error", "error": "step 0: the API answered 529"}
    path.write_text(_lines([_header("failed"), _step(0, None, None), end]), encoding="utf-8")
    row = runs_frame(path, workers=1, progress=False).iloc[0]
    assert (row["end_status"], row["end_reason"], row["end_error"]) == ("failed", "agent_error", end["error"])
    assert "agent_error" in RUN_COLUMNS[[c.name for c in RUN_COLUMNS].index("end_reason")].categories


def test_a_usage_count_that_is_not_a_count_is_left_out_of_the_total_with_a_warning(tmp_path: Path) -> None:
    """A usage count that is not an integer is named by a load warning and left out of the run's token total."""
    odd, fine = _call(0, 1, 1), _call(1, 5, 1)
    odd["response"]["usage"]["input_tokens"] = "many"
    path, copy = tmp_path / "odd.jsonl", tmp_path / "copy.jsonl"
    path.write_text(_lines([_header("odd"), odd, fine, _step(0, READ, {"status": "ok"})]), encoding="utf-8")
    copy.write_bytes(path.read_bytes())
    frame = runs_frame([path, copy], workers=2, progress=False)
    assert frame["error"].isna().all()
    assert frame["input_tokens"].tolist() == [5, 5]
    assert frame["warnings"].tolist() == [1, 1]
    [warning] = load_run(path).warnings
    assert (warning.line, "usage.input_tokens 'many' is not a count" in warning.text) == (2, True)


def test_a_folder_of_inspect_logs_gives_a_row_per_sample(tmp_path: Path) -> None:
    """A folder holding an Inspect ``.eval`` log beside a run file gives a row for each of the log's samples and one
    for the run, from ``runs_frame`` and Dask's ``read_runs`` alike (``run_files`` lists ``*.eval``), where the log was
    left out of the folder without a word."""
    from agentrender import samples

    pytest.importorskip("zstandard")
    log = Path(__file__).resolve().parent / "fixtures" / "inspect" / "arith.eval"
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / log.name).write_bytes(log.read_bytes())
    run = tmp_path / "run.jsonl"
    run.write_bytes(samples.path("fix-failing-test").read_bytes())
    assert run_files(tmp_path) == [str(tmp_path / "logs" / log.name), str(run)]
    ids = [r.run_id for r in load_runs(log)] + [samples.load("fix-failing-test").run_id]
    frame = runs_frame(tmp_path, workers=1, progress=False)
    assert frame["error"].isna().all() and frame["run_id"].tolist() == ids and len(ids) > 2
    dask = pytest.importorskip("agentrender.dask")
    assert sorted(dask.read_runs(tmp_path, table="runs").compute(scheduler="sync").run_id) == sorted(ids)


def test_a_folder_lists_its_inspect_json_logs_and_no_other_json(tmp_path: Path) -> None:
    """A folder's Inspect ``.json`` logs are listed and read, a row per sample, told by how Inspect starts a log (one
    cut short is listed too, as is a link to no file, to get their rows with their errors) from the JSON files beside
    them that are no log (a ``package.json``, Inspect's own ``logs.json`` of log headers, a chat), which are left out;
    every ``.json`` log was left out of the folder without a word."""
    from tests._support import real

    logs = real.REAL / "inspect" / "UKGovernmentBEIS-inspect_ai"
    if not logs.is_dir():
        pytest.skip("the real fixtures are not in this checkout")
    names = ["2025-05-12T20-28-13-04-00_popularity.json", "log_read_sample.json"]
    (tmp_path / "logs").mkdir()
    for name in names:
        (tmp_path / "logs" / name).write_bytes((logs / name).read_bytes())
    header = json.loads((logs / names[1]).read_text("utf-8"))
    del header["samples"]
    (tmp_path / "logs" / "logs.json").write_text(json.dumps({names[1]: header}, indent=2), "utf-8")
    (tmp_path / "package.json").write_text('{"name": "evals", "version": "1.0.0"}', "utf-8")
    (tmp_path / "chat.json").write_text('{"version": 2, "messages": [{"role": "user", "content": "hi"}]}', "utf-8")
    listed = [str(tmp_path / "logs" / name) for name in names]
    assert run_files(tmp_path) == listed
    frame = runs_frame(tmp_path, workers=1, progress=False)
    ids = [run.run_id for name in names for run in load_runs(logs / name)]
    assert frame["error"].isna().all() and frame["run_id"].tolist() == ids and len(ids) > 2
    (tmp_path / "logs" / "cut.json").write_bytes((logs / names[1]).read_bytes()[:3000])
    (tmp_path / "gone.json").symlink_to(tmp_path / "nowhere.json")
    assert run_files(tmp_path) == [
        str(tmp_path / "gone.json"),
        listed[0],
        str(tmp_path / "logs" / "cut.json"),
        listed[1],
    ]


def test_a_folder_lists_an_inspect_json_log_in_any_key_order_after_any_white_space(tmp_path: Path) -> None:
    """A real Inspect ``.json`` log saved again with its keys sorted (its ``error`` a traceback past the bytes read at
    once), or after 5 KB or 200 KB of white space, is listed from a folder and read, as ``load`` reads each of them
    named alone, where the folder left them out without a word; a JSON object holding ``eval`` and ``version`` but
    ``eval`` no object, or ``eval`` only nested, or only as a string, is still no log."""
    from tests._support import real

    log = real.REAL / "inspect" / "UKGovernmentBEIS-inspect_ai" / "log_read_sample.json"
    if not log.is_file():
        pytest.skip("the real fixtures are not in this checkout")
    value = json.loads(log.read_text("utf-8"))
    text = log.read_text("utf-8")
    (tmp_path / "sorted.json").write_text(json.dumps(value, sort_keys=True), "utf-8")
    failed = {**value, "error": {"message": "boom", "traceback": "Traceback ...\n" * 20_000}}
    (tmp_path / "sorted_failed.json").write_text(json.dumps(failed, sort_keys=True, indent=2), "utf-8")
    (tmp_path / "spaced.json").write_text(" " * 5_000 + text, "utf-8")
    (tmp_path / "very_spaced.json").write_text("\n" * 200_000 + text, "utf-8")
    others = {
        "eval_a_string.json": {"eval": "yes", "version": 2},
        "eval_nested.json": {"config": {"eval": {"epochs": 1}}, "version": 2, "notes": ["x" * 100_000]},
        "eval_named.json": {"notes": '"eval": {', "version": 2},
    }
    for name, other in others.items():
        (tmp_path / name).write_text(json.dumps(other), "utf-8")
    names = ["sorted.json", "sorted_failed.json", "spaced.json", "very_spaced.json"]
    assert run_files(tmp_path) == [str(tmp_path / name) for name in names]
    frame = runs_frame(tmp_path, workers=1, progress=False)
    ids = [run.run_id for _ in names for run in load_runs(log)]
    assert frame["error"].isna().all() and frame["run_id"].tolist() == ids and len(ids) == 4
    assert [len(load_runs(tmp_path / name)) for name in names] == [1, 1, 1, 1]


def test_a_folder_lists_an_inspect_json_log_whose_eval_key_is_written_with_json_escapes(tmp_path: Path) -> None:
    """A real Inspect ``.json`` log whose ``eval`` key is written with JSON escapes (``"\\u0065val"``, as a tool that
    escapes letters writes it) is listed from a folder and read, as ``load`` reads it named alone, where the folder
    left it out without a word; a JSON object whose escaped key only looks like it (``"\\u0065vals"``) is no log."""
    from tests._support import real

    log = real.REAL / "inspect" / "UKGovernmentBEIS-inspect_ai" / "log_read_sample.json"
    if not log.is_file():
        pytest.skip("the real fixtures are not in this checkout")
    value = json.loads(log.read_text("utf-8"))
    escaped = {"samples": value["samples"], **{key: item for key, item in value.items() if key != "samples"}}
    text = json.dumps(escaped, indent=1)
    (tmp_path / "escaped.json").write_text(text.replace('"eval":', '"\\u0065val":', 1), "utf-8")
    (tmp_path / "middle.json").write_text(text.replace('"eval":', '"ev\\u0061l":', 1), "utf-8")
    (tmp_path / "other.json").write_text(text.replace('"eval":', '"\\u0065vals":', 1), "utf-8")
    names = ["escaped.json", "middle.json"]
    assert run_files(tmp_path) == [str(tmp_path / name) for name in names]
    ids = [run.run_id for name in names for run in load_runs(tmp_path / name)]
    assert ids == [run.run_id for _ in names for run in load_runs(log)] != []
    frame = runs_frame(tmp_path, workers=1, progress=False)
    assert frame["error"].isna().all() and frame["run_id"].tolist() == ids


def test_a_folder_lists_an_inspect_json_log_compressed_with_gzip_and_no_other_gzipped_json(tmp_path: Path) -> None:
    """A folder's real Inspect ``.json`` logs compressed with gzip (``log.json.gz``, as ``gzip -r`` leaves a logs
    folder; one saved with its keys sorted) are listed and read as their ``.json`` are, a row per sample, where the
    folder left them out without a word; a ``package.json.gz`` is no log and is left out, and one whose stream is
    corrupt is listed (what it is cannot be told), its row naming the file and what is wrong."""
    from tests._support import real

    log = real.REAL / "inspect" / "UKGovernmentBEIS-inspect_ai" / "log_read_sample.json"
    if not log.is_file():
        pytest.skip("the real fixtures are not in this checkout")
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "log.json.gz").write_bytes(gzip.compress(log.read_bytes()))
    value = json.loads(log.read_text("utf-8"))
    (tmp_path / "logs" / "sorted.json.gz").write_bytes(gzip.compress(json.dumps(value, sort_keys=True).encode()))
    (tmp_path / "package.json.gz").write_bytes(gzip.compress(b'{"name": "evals", "version": "1.0.0"}'))
    names = ["logs/log.json.gz", "logs/sorted.json.gz"]
    assert run_files(tmp_path) == [str(tmp_path / name) for name in names]
    ids = [run.run_id for _ in names for run in load_runs(log)]
    frame = runs_frame(tmp_path, workers=1, progress=False)
    assert frame["error"].isna().all() and frame["run_id"].tolist() == ids and len(ids) == 2
    packed = gzip.compress(log.read_bytes())
    (tmp_path / "broken.json.gz").write_bytes(packed[:40] + b"\xff" * 64 + packed[104:])
    assert run_files(tmp_path) == [str(tmp_path / "broken.json.gz"), *(str(tmp_path / name) for name in names)]
    [error] = runs_frame(tmp_path, workers=1, progress=False)["error"].dropna().tolist()
    assert error.startswith(f"{tmp_path / 'broken.json.gz'}:") and "the gzip stream is corrupt" in error, error


def test_a_folder_lists_an_inspect_eval_log_compressed_with_gzip(tmp_path: Path) -> None:
    """A folder's real Inspect ``.eval`` log compressed with gzip (``log.eval.gz``, as ``gzip -r`` leaves a logs
    folder, in any case) is listed and read as its ``.eval`` is, a row per sample, where the folder left it out
    without a word; one whose stream is corrupt is listed, its row naming the file and what is wrong."""
    from tests._support import real

    [log] = (real.REAL / "inspect" / "meridianlabs-ai-inspect_scout").glob("*popularity*.eval") or [None]
    if log is None:
        pytest.skip("the real fixtures are not in this checkout")
    pytest.importorskip("inspect_ai")  # the archive's zstandard members
    (tmp_path / "logs").mkdir()
    packed = gzip.compress(log.read_bytes())
    (tmp_path / "logs" / "log.eval.gz").write_bytes(packed)
    (tmp_path / "logs" / "LOG2.EVAL.GZ").write_bytes(packed)
    names = ["logs/LOG2.EVAL.GZ", "logs/log.eval.gz"]
    assert run_files(tmp_path) == [str(tmp_path / name) for name in names]
    ids = [run.run_id for _ in names for run in load_runs(log)]
    frame = runs_frame(tmp_path, workers=1, progress=False)
    assert frame["error"].isna().all() and frame["run_id"].tolist() == ids and ids
    assert sorted(set(frame["path"])) == [str(tmp_path / name) for name in names]
    (tmp_path / "broken.eval.gz").write_bytes(
        packed[: len(packed) // 2] + b"\xff" * 64 + packed[len(packed) // 2 + 64 :]
    )
    [error] = runs_frame(tmp_path, workers=1, progress=False)["error"].dropna().tolist()
    assert error.startswith(f"{tmp_path / 'broken.eval.gz'}:") and "the gzip stream is corrupt" in error, error


def test_a_file_whose_name_ends_in_capitals_is_listed_and_loaded(tmp_path: Path) -> None:
    """A folder lists its ``RUN.JSONL``, ``Run.Jsonl.GZ``, ``LOG.EVAL`` and Inspect ``LOG.JSON`` (as a file system that
    ignores case, or a tool that writes capitals, names them) as it lists their lower-case names, and each loads, the
    ``.EVAL`` named alone too, where the folder left them out without a word and ``load`` took the ``.EVAL`` for a run
    file of binary data."""
    from agentrender import samples
    from tests._support import real

    pytest.importorskip("zstandard")
    fixtures = Path(__file__).resolve().parent / "fixtures"
    json_log = real.REAL / "inspect" / "UKGovernmentBEIS-inspect_ai" / "log_read_sample.json"
    if not json_log.is_file():
        pytest.skip("the real fixtures are not in this checkout")
    (tmp_path / "RUN.JSONL").write_bytes(samples.path("fix-failing-test").read_bytes())
    (tmp_path / "Run.Jsonl.GZ").write_bytes(gzip.compress(samples.path("out-of-steps").read_bytes()))
    (tmp_path / "LOG.EVAL").write_bytes((fixtures / "inspect" / "arith.eval").read_bytes())
    (tmp_path / "LOG.JSON").write_bytes(json_log.read_bytes())
    (tmp_path / "OTHER.JSON").write_text('{"name": "evals", "version": "1.0.0"}', "utf-8")
    names = ["LOG.EVAL", "LOG.JSON", "RUN.JSONL", "Run.Jsonl.GZ"]
    assert run_files(tmp_path) == [str(tmp_path / name) for name in names]
    ids = [run.run_id for name in names for run in load_runs(tmp_path / name)]
    assert ids[0] == load_runs(fixtures / "inspect" / "arith.eval")[0].run_id
    frame = runs_frame(tmp_path, workers=1, progress=False)
    assert frame["error"].isna().all() and frame["run_id"].tolist() == ids and len(ids) > 4


def test_a_history_that_is_no_run_file_is_read_as_every_command_reads_it() -> None:
    """runs_frame (and export, and Dask) read an agent's history as the CLI's commands do (``imports.load_runs``): a
    real tau-bench results file and a real Claude Code session give a row per run each, where their rows once said
    only that they were no run file and the command that writes their runs as run files."""
    from tests._support import real

    tau = real.REAL / "tau-bench" / "sierra-research-tau-bench" / "gpt-4o-airline.json"
    session = real.REAL / "claude-code" / "marot-spotter" / "tool_heavy.jsonl"
    if not tau.is_file():
        pytest.skip("the real fixtures are not in this checkout")
    frame = runs_frame([str(tau), str(session)], workers=1, progress=False)
    each = {str(path): load_runs(path) for path in (tau, session)}
    assert frame["error"].isna().all()
    assert frame["run_id"].tolist() == [run.run_id for runs in each.values() for run in runs]
    assert frame["steps"].tolist() == [len(run.steps) for runs in each.values() for run in runs]
    assert frame["path"].tolist() == [path for path, runs in each.items() for _ in runs] and len(frame) > 2


def test_a_folder_with_no_run_files_is_one_error_from_every_reader(tmp_path: Path) -> None:
    """A folder that holds no run file (an empty one, or one of other files and hidden ones) raises the one error that
    names it and the names looked for, from runs_frame, to_parquet and Dask's read_runs alike, where the frames gave
    an empty table without a word; an empty list names nothing, and gives an empty table from each."""
    pytest.importorskip("pyarrow")
    dask = pytest.importorskip("agentrender.dask")
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "notes.json").write_text("{}", encoding="utf-8")
    (folder / ".hidden.jsonl").write_text("", encoding="utf-8")
    said = (
        f"no run files under {folder} (none named *.jsonl, *.jsonl.gz, *.eval or *.eval.gz, nor a *.json or *.json.gz "
        "that is an Inspect log, at any depth; other *.json files, each read when named alone: 1)"
    )
    for read in (
        lambda: runs_frame(folder, progress=False),
        lambda: to_parquet(folder, tmp_path / "out", progress=False),
        lambda: to_parquet([folder], tmp_path / "out", progress=False),
        lambda: dask.read_runs(folder),
    ):
        with pytest.raises(FileNotFoundError) as raised:
            read()
        assert str(raised.value) == said
    assert len(runs_frame([], progress=False)) == 0
    assert to_parquet([], tmp_path / "out", progress=False).written == ()
    assert len(dask.read_runs([], table="runs").compute(scheduler="sync")) == 0


def test_every_table_names_a_file_by_its_absolute_path_so_tables_join(
    store: tuple[Path, dict[str, Path]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder or files named relatively give every table (runs_frame, table_frame, the Parquet export) the files'
    absolute paths, so a frame joins an export on ``path``: runs_frame kept "runs/a.jsonl" while the export stored
    "/.../runs/a.jsonl", and a join matched nothing."""
    pytest.importorskip("pyarrow")
    folder, paths = store
    monkeypatch.chdir(folder.parent)
    named = folder.name
    absolute = [str(paths[name]) for name in ("finished", "cut", "bad", "nested")]
    assert runs_frame(named, workers=1, progress=False)["path"].tolist() == absolute
    assert runs_frame(named, workers=2, progress=False)["path"].tolist() == absolute
    relative = [os.path.relpath(path) for path in absolute]
    assert table_frame(relative, "runs")["path"].tolist() == absolute
    assert set(table_frame(relative, "steps")["path"]) == {absolute[0], absolute[1]}
    out = tmp_path / "out"
    to_parquet(named, out, workers=1, progress=False)
    exported = pd.read_parquet(out / "steps")
    joined = runs_frame(named, workers=1, progress=False).merge(exported, on="path", suffixes=("", "_step"))
    assert len(joined) == len(exported) > 0


def test_the_runs_table_says_each_warning_in_full_in_every_table(
    store: tuple[Path, dict[str, Path]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The runs table holds each run's warnings as they are said (``PATH:LINE: what``, the path absolute as in
    ``path``) beside their count, the same in runs_frame, the Parquet export and Dask, so a user can filter and read
    them; it held their count alone. A run with none holds an empty list, a file that could not be read a null."""
    pytest.importorskip("pyarrow")
    dask = pytest.importorskip("agentrender.dask")
    folder, paths = store
    monkeypatch.chdir(folder.parent)
    [warning] = load_run(paths["cut"]).warnings
    said = f"{paths['cut']}:{warning.line}: {warning.message}"
    frame = runs_frame(folder.name, workers=1, progress=False).set_index("path")
    assert frame.loc[str(paths["cut"]), "warning_texts"] == [said]
    assert frame.loc[str(paths["cut"]), "warnings"] == 1
    assert frame.loc[str(paths["finished"]), "warning_texts"] == []
    assert frame.loc[str(paths["bad"]), "warning_texts"] is None
    assert frame.loc[
        frame.warning_texts.map(lambda texts: any("cut short" in text for text in texts or ()))
    ].index.tolist() == [str(paths["cut"])]
    to_parquet(folder.name, tmp_path / "out", workers=1, progress=False)
    for table in (
        pd.read_parquet(tmp_path / "out" / "runs"),
        dask.read_runs(folder.name, table="runs").compute(scheduler="sync"),
    ):
        texts = table.set_index("path")["warning_texts"]
        assert list(texts[str(paths["cut"])]) == [said] and list(texts[str(paths["finished"])]) == []
        assert texts[str(paths["bad"])] is None


def test_table_frame_reads_a_folder_or_a_file_named_alone_as_runs_frame_does(
    store: tuple[Path, dict[str, Path]],
) -> None:
    """``table_frame`` of a folder reads its run files and of one file's name reads that file, as ``runs_frame`` does,
    where it read each letter of the name as a file and gave an empty steps table without a word."""
    folder, paths = store
    listed = run_files(folder)
    for table in ("steps", "model_calls", "runs"):
        pd.testing.assert_frame_equal(table_frame(folder, table), table_frame(listed, table))
    alone = table_frame(str(paths["finished"]), "steps")
    pd.testing.assert_frame_equal(alone, table_frame([paths["finished"]], "steps"))
    assert len(alone) == 5 and set(alone["path"]) == {str(paths["finished"])}
    with pytest.raises(FileNotFoundError, match="table_frame: no such file or folder"):
        table_frame(folder / "missing", "steps")


LINKED = {
    "sub-agent": REAL / "claude-code/jessitron-claude-log/ff80b049-3eff-495f-b4f0-c4071d615994.jsonl",
    "two at one step": REAL / "claude-code/daaain-claude-code-log/55550000-0000-4000-8000-000000000001.jsonl",
    "forked and sub-agent": REAL / "claude-code/marot-spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl",
}
"""Real Claude Code sessions whose runs are linked: one sub-agent; two started by one step; an agent forked to write
a compaction's summary, then a sub-agent."""
LINK_COLUMNS = ["run_id", "parent_run_id", "parent_step", "parent_tool_use_id", "started_by", "started_runs"]


def _link_rows(frame: pd.DataFrame) -> list[tuple[Any, ...]]:
    """The link columns of each row of ``frame``, a null as ``None``."""
    links = frame[LINK_COLUMNS].astype(object)
    return [tuple(row) for row in links.where(links.notna(), None).itertuples(index=False)]


def test_runs_frame_says_how_the_runs_of_a_session_are_linked() -> None:
    """Each run of a session names the run and step that started it, the tool use that launched a sub-agent, whether
    it was launched by a tool use or forked to write a compaction, and how many runs it started."""
    frame = runs_frame(list(LINKED.values()), workers=1, progress=False)
    one, two = "ff80b049-3eff-495f-b4f0-c4071d615994", "55550000-0000-4000-8000-000000000001"
    marot = "258c7280-ae70-4798-800f-63464d01a85d"
    assert _link_rows(frame) == [
        (one, None, None, None, None, 1),
        (f"{one}/agent-ad106947ff439c8f3", one, 2, "toolu_01QgUbC29ZXemZhZzPjQqbTS", "tool_use", 0),
        (two, None, None, None, None, 2),
        (f"{two}/agent-showcol1", two, 3, "toolu_sc_showcol1", "tool_use", 0),
        (f"{two}/agent-showcol2", two, 3, "toolu_sc_showcol2", "tool_use", 0),
        (marot, None, None, None, None, 2),
        (f"{marot}/agent-a881341", marot, 117, "toolu_01VmaERAwhb19LGUwu9GenaK", "tool_use", 0),
        (f"{marot}/agent-acompact-fffbd0", marot, 102, None, "compaction", 0),
    ]
    assert list(frame.started_by.cat.categories) == ["tool_use", "compaction"]
    sessions = frame.parent_run_id.fillna(frame.run_id)
    assert frame.groupby(sessions).input_tokens.sum()[marot] == frame.loc[sessions == marot, "input_tokens"].sum()
    assert frame.loc[frame.run_id == marot, "started_runs"].item() == frame.parent_run_id.eq(marot).sum()


def test_a_runs_tokens_are_its_model_calls_summed_the_prompt_caches_apart() -> None:
    """Each run's input, prompt cache read and written, and output tokens are its model calls' summed, so a Claude
    Code session, whose requests are mostly read from the cache, says what it sent, not its uncached input alone."""
    counts = ["input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "output_tokens"]
    paths = list(LINKED.values())
    runs = runs_frame(paths, workers=1, progress=False).set_index(["path", "run_id"])
    calls = table_frame(paths, "model_calls").groupby(["path", "run_id"])[counts].sum()
    assert runs[counts].astype("int64").equals(calls.reindex(runs.index, fill_value=0)[counts].astype("int64"))
    marot = runs.loc[(os.path.abspath(LINKED["forked and sub-agent"]), "258c7280-ae70-4798-800f-63464d01a85d")]
    assert (marot.input_tokens, marot.cache_read_input_tokens, marot.cache_creation_input_tokens) == (
        180,
        14771617,
        349474,
    )


def test_a_sub_agents_row_joins_the_step_whose_tool_use_started_it() -> None:
    """Joined on path, run_id and index, a sub-agent's parent_run_id and parent_step find its session's step in
    steps_frame's rows: the step of the Task or Agent call of its parent_tool_use_id (among the calls of a step that
    made several at once)."""
    paths = list(LINKED.values())
    runs = runs_frame(paths, workers=1, progress=False)
    steps = table_frame(paths, "steps")
    started = runs[runs.started_by == "tool_use"]
    joined = started.merge(
        steps[["path", "run_id", "index", "tool", "tool_use_id"]],
        left_on=["path", "parent_run_id", "parent_step"],
        right_on=["path", "run_id", "index"],
        suffixes=("", "_step"),
        validate="many_to_one",
    )
    assert len(joined) == len(started) == 4
    assert joined.tool.astype(str).tolist() == ["Agent", "Agent", "Agent", "Task"]
    by_id = joined[joined.parent_tool_use_id == joined.tool_use_id]
    assert sorted(by_id.parent_step.tolist()) == [2, 3, 117]  # the second call of step 3 is not the step's own id


def test_a_run_no_run_started_and_that_started_none_has_null_links_and_no_started_runs(
    store: tuple[Path, dict[str, Path]],
) -> None:
    """A run file's run, linked to no run, has null parent columns and 0 started runs; a file that cannot be read has
    nulls there too, as in every column but path and error."""
    folder, _ = store
    frame = runs_frame(folder, workers=1, progress=False)
    read = frame[frame.error.isna()]
    assert len(read) and read[LINK_COLUMNS[1:5]].isna().all().all()
    assert (read.started_runs == 0).all()
    assert frame.loc[frame.error.notna(), LINK_COLUMNS[1:]].isna().all().all()


def test_the_parquet_export_keeps_the_link_columns(tmp_path: Path) -> None:
    """The runs table of a Parquet export holds the link columns as runs_frame does, with their dtypes."""
    paths = list(LINKED.values())
    to_parquet(paths, tmp_path / "out", workers=1, progress=False)
    stored = pd.read_parquet(tmp_path / "out" / "runs")
    frame = runs_frame(paths, workers=1, progress=False)
    stored = stored.set_index("run_id").loc[frame.run_id].reset_index()
    assert _link_rows(stored) == _link_rows(frame)
    assert [str(stored[name].dtype) for name in LINK_COLUMNS[1:]] == ["string", "Int64", "string", "category", "Int64"]


def test_an_export_of_other_columns_is_refused_naming_what_changed(tmp_path: Path) -> None:
    """Adding to an export whose runs table an earlier version wrote without the link columns is refused before
    anything is written, naming the table and the columns it lacks, never mixing the two schemas."""
    pq = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "out"
    to_parquet([LINKED["sub-agent"]], out, workers=1, progress=False)
    # What an earlier version left: its runs parts without the new columns, its manifest of another schema.
    new = ["parent_run_id", "parent_step", "parent_tool_use_id", "started_by", "started_runs"]
    for part in (out / "runs").glob("*.parquet"):
        pq.write_table(pq.read_table(part).drop_columns(new).replace_schema_metadata(None), part)
    manifest = json.loads((out / "manifest.json").read_text("utf-8"))
    manifest["schema"] = "0123456789abcdef"
    (out / "manifest.json").write_text(json.dumps(manifest), "utf-8")
    before = sorted((path, path.stat().st_mtime_ns) for path in out.rglob("*"))
    with pytest.raises(ValueError) as refused:
        to_parquet([LINKED["two at one step"]], out, workers=1, progress=False)
    said = str(refused.value)
    assert said.startswith(f"{out}: exported with other columns")
    assert f"runs: new {', '.join(new)}" in said and "export to a new folder" in said
    assert sorted((path, path.stat().st_mtime_ns) for path in out.rglob("*")) == before


BEGAN = {
    "a Claude Code session": (REAL / "claude-code" / "marot-spotter" / "short.jsonl", "2026-02-10T21:11:56.846Z"),
    "Claude Code's headless output": (
        REAL / "claude-code-stream" / "link-assistant-hive-mind" / "background-disabled.jsonl",
        "2026-09-29T06:31:48.772Z",
    ),
    "an Inspect sample": (
        REAL / "inspect" / "gspencergoog-A2UI" / "2026-07-22T16-51-18-00-00_a2ui-v1-0-eval_nXpB6sZohVsmQgnyUD8nuj.eval",
        "2026-07-22T16:51:18.535759+00:00",
    ),
}


@pytest.mark.parametrize("name", list(BEGAN))
def test_an_imported_run_starts_when_its_source_says(name: str) -> None:
    """An imported history whose source says when the run began (a transcript's first record's timestamp, the
    headless output's first message's, an Inspect sample's started_at) gives the runs table its started_at, so a run
    that ended has a duration."""
    path, began = BEGAN[name]
    runs = table_frame(str(path), "runs")
    first = runs.iloc[0]
    assert first.started_at == pd.Timestamp(began)
    if pd.notna(first.ended_at):
        assert first.duration == first.ended_at - first.started_at and first.duration >= pd.Timedelta(0)
    assert runs.started_at.notna().all()


def test_a_sub_agent_starts_at_its_own_first_record() -> None:
    """A Claude Code sub-agent's run starts when its own thread's first record was written, not when the session
    did."""
    folder = REAL / "claude-code" / "jazzyalex-agent-sessions" / "subagent"
    runs = load_runs(str(folder / "0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f.jsonl"))
    transcript = folder / "0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f" / "subagents" / "agent-a0ad4f44468bdf20d.jsonl"
    first = json.loads(transcript.read_text("utf-8").splitlines()[0])["timestamp"]
    sub = [run for run in runs if run.header["source"]["thread"] != "main"]
    assert sub and sub[0].header["started_at"] == first != runs[0].header["started_at"]


def test_an_imported_runs_start_survives_a_run_file(tmp_path: Path) -> None:
    """A run file written from an imported session (as agentrender import writes it) keeps its started_at, and the
    runs table reads the same start and end from either."""
    from agentrender.runfile import write_run

    path = BEGAN["a Claude Code session"][0]
    written = tmp_path / "run.jsonl"
    write_run(load_runs(str(path))[0], written)
    assert load_run(written).header["started_at"] == BEGAN["a Claude Code session"][1]
    columns = ["started_at", "ended_at", "duration"]
    assert table_frame(str(written), "runs")[columns].equals(table_frame(str(path), "runs")[columns])


def test_the_runs_table_says_which_runs_lost_part_of_their_file(
    store: tuple[Path, dict[str, Path]], tmp_path: Path
) -> None:
    """``lost`` is true for a run whose file was cut short (its warnings say a part was not loaded), false for a run
    read whole, though its warnings doubt something or it has no end, and null only for a file that could not be
    read; the Parquet export holds it as a bool column."""
    pytest.importorskip("pyarrow")
    _, paths = store
    doubted = tmp_path / "doubted.jsonl"
    doubted.write_text("\ufeff" + _lines([_header("doubted"), _step(0, READ, {"status": "ok"})]), encoding="utf-8")
    frame = runs_frame([*paths.values(), doubted], workers=1, progress=False).set_index("path")
    assert str(frame.lost.dtype) == "boolean"
    assert frame.loc[str(doubted), "warnings"] == 1 and pd.isna(frame.loc[str(paths["nested"]), "end_status"])
    lost = {path: None if pd.isna(value) else bool(value) for path, value in frame.lost.items()}
    assert lost == {
        str(paths["finished"]): False,
        str(paths["cut"]): True,
        str(paths["bad"]): None,
        str(paths["nested"]): False,
        str(doubted): False,
    }
    assert frame[frame.lost.fillna(False)].index.tolist() == [str(paths["cut"])]
    to_parquet([*paths.values(), doubted], tmp_path / "out", workers=1, progress=False)
    stored = pd.read_parquet(tmp_path / "out" / "runs").set_index("path").loc[frame.index]
    assert stored.lost.astype("boolean").equals(frame.lost)


def test_an_export_without_the_lost_column_is_refused_naming_it(
    store: tuple[Path, dict[str, Path]], tmp_path: Path
) -> None:
    """Adding to an export whose runs table an earlier version wrote without ``lost`` is refused, naming the new
    column, so a user exports again rather than mixing the two schemas."""
    pq = pytest.importorskip("pyarrow.parquet")
    _, paths = store
    out = tmp_path / "out"
    to_parquet([paths["finished"]], out, workers=1, progress=False)
    for part in (out / "runs").glob("*.parquet"):
        pq.write_table(pq.read_table(part).drop_columns(["lost"]).replace_schema_metadata(None), part)
    manifest = json.loads((out / "manifest.json").read_text("utf-8"))
    manifest["schema"] = "0123456789abcdef"
    (out / "manifest.json").write_text(json.dumps(manifest), "utf-8")
    with pytest.raises(ValueError) as refused:
        to_parquet([paths["cut"]], out, workers=1, progress=False)
    said = str(refused.value)
    assert said.startswith(f"{out}: exported with other columns") and "runs: new lost" in said
