"""The package leaves the user's garbage collector alone, and what it makes holds no cycle.

The collector is the user's: no module pauses, freezes or switches it (``tests/test_plain_code.py``
checks the source for the calls). What a user can see is what ``gc`` itself reports: whether the
collector is on, and (through ``gc.callbacks``) every collection that starts. The values of a run
are ``msgspec.Struct``s the collector does not track, and an imported run is freed by reference
counting when dropped; a process that loads run after run, or an agent that renders before every
call, keeps the collector's full collections coming and its tracked objects about as many.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import io
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentrender import load_run
from agentrender.runfile import RunFileError, write_run
from tests._support.runs import long_run

STEPS = 1_000
"""Enough steps that building their objects sets off the collector many times over when it is on."""


@pytest.fixture(autouse=True)
def _collector_on() -> Iterator[None]:
    """Each test starts with the collector on, and leaves it as the test run had it."""
    was = gc.isenabled()
    gc.enable()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


@pytest.fixture(scope="module")
def large_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run file of ``STEPS`` steps."""
    run = long_run(STEPS)
    path = tmp_path_factory.mktemp("large") / "large.jsonl"
    write_run(dataclasses.replace(run, header={"type": "run", **run.header}), path)
    return path


Collection = tuple[int, bool, int]
"""A collection that started: its generation, whether the collector was on, and how much output was written."""


@contextlib.contextmanager
def collections(output: io.StringIO | None = None) -> Iterator[list[Collection]]:
    """Every collection that starts in the block, as ``Collection``s."""
    seen: list[Collection] = []

    def started(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            seen.append((info["generation"], gc.isenabled(), len(output.getvalue()) if output else 0))

    gc.callbacks.append(started)
    try:
        yield seen
    finally:
        gc.callbacks.remove(started)


def test_a_collector_that_was_off_stays_off_and_collects_nothing(large_run: Path) -> None:
    """With the collector off, load_run starts no collection at all and leaves it off."""
    gc.disable()
    with collections() as seen:
        load_run(large_run)
    assert seen == []
    assert not gc.isenabled()


def test_load_run_restores_the_collector_when_the_file_is_bad(tmp_path: Path) -> None:
    """A run file load_run refuses leaves the collector on."""
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"type": "run"}\n{not json\n')
    with pytest.raises(RunFileError):
        load_run(path)
    assert gc.isenabled()


@pytest.mark.parametrize(
    "name",
    ["python-to-rust-port.claude-code.jsonl", "python-to-rust-port.messages.json", "stock-lookup.openai-chat.json"],
)
def test_an_imported_run_holds_no_cycle_so_dropping_it_frees_it_at_once(name: str) -> None:
    """An imported conversation's run, every step read, is freed by reference counting when dropped: no garbage
    cycle is left for the collector to find (a cycle between the conversation's steps and the views of them once
    kept each run's objects, 1,200 of them for 200 turns, until a full collection came)."""
    from agentrender import samples
    from agentrender.imports import load

    path = samples.imports_folder() / name
    load(path)  # first-use set-up (imports, caches) is not the run's
    gc.collect()
    gc.disable()
    try:
        run = load(path)
        assert list(run.steps) and dict(run.step_records)  # every step and record made
        del run
        assert gc.collect() == 0
    finally:
        gc.enable()


_FILE_AFTER_FILE = """
import gc, io, sys
from pathlib import Path
from agentrender import load_run
from agentrender.cli import main
from agentrender.frame import steps_frame
from agentrender.imports import from_claude_code
from agentrender.views import Views

transcript, run_file = Path(sys.argv[1]), Path(sys.argv[2])

def explore(run):
    steps_frame(run)
    Views(run).at(None)._repr_html_()

for load in (lambda: from_claude_code(transcript)[0], lambda: load_run(run_file)):
    for round in range(80):
        explore(load())
        main(["steps", str(run_file)], stdout=io.StringIO(), stderr=io.StringIO())
        if round == 20:
            settled = len(gc.get_objects())
    print(len(gc.get_objects()) - settled)
"""


@pytest.mark.slow
def test_a_process_that_loads_file_after_file_keeps_no_garbage(tmp_path: Path, import_bench: Any) -> None:
    """Importing transcripts or loading run files one after another, and exploring each (frame, view, a command),
    keeps the collector's full collections coming, so the garbage cycles of frames and views are freed: the objects
    it tracks stay about as many. (When the loaders moved what they read to the oldest generation, they zeroed the
    collector's counts on every load: no full collection came, and one process of the attack tests grew past 200 MB.)"""
    bench = import_bench("bench_imports")
    transcript = tmp_path / "session.jsonl"
    transcript.write_text("".join(bench.claude_code_lines(bench.conversation(200, 60, 1))), encoding="utf-8")
    run_file = tmp_path / "run.jsonl"
    run = long_run(200)
    write_run(dataclasses.replace(run, header={"type": "run", **run.header}), run_file)
    child = subprocess.run(
        [sys.executable, "-c", _FILE_AFTER_FILE, str(transcript), str(run_file)],
        capture_output=True, text=True, check=True, timeout=600,
    )  # fmt: skip
    grown = [int(line) for line in child.stdout.split()]
    assert len(grown) == 2 and all(growth < 10_000 for growth in grown), grown


_AGENT_LOOP = """
import gc, sys
from agentrender import render
from agentrender.render import StepInput
from tests._support.runs import long_run

class Client:
    def __init__(self):
        self.me = self

steps = long_run(int(sys.argv[1])).steps
options = render.Options(opening="Go.")
lasting = []
for n in range(1, len(steps) + 1):
    wire = [message.to_dict() for message in render.messages(StepInput(steps=steps[:n]), options)]
    lasting.append([Client() for _ in range(50)])  # cycles that outlive a few steps, as a client's objects do
    if len(lasting) > 20:
        del lasting[0]
    if n == len(steps) // 4:
        del wire
        settled = len(gc.get_objects())
del wire
print(len(gc.get_objects()) - settled)
"""


@pytest.mark.slow
def test_an_agent_that_renders_every_step_keeps_no_garbage() -> None:
    """An agent renders its whole conversation before each model call while its own code makes garbage cycles that
    live a while: full collections keep coming, so the objects it tracks stay as many."""
    child = subprocess.run(
        [sys.executable, "-c", _AGENT_LOOP, "1000"],
        capture_output=True, text=True, check=True, timeout=600, cwd=Path(__file__).parents[1],
    )  # fmt: skip
    assert int(child.stdout) < 5_000, child.stdout
