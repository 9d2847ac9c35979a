"""For the tests of following a file: a writer in another process that appends to it when told to, and a check that
a file read a growth at a time gives what a fresh import gives (``grown_equals_fresh``)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import pytest

from agentrender import Run

_WRITER = r"""
import json, os, sys
path = sys.argv[1]
for line in sys.stdin:
    action = json.loads(line)
    kind, data = action["do"], action.get("data", "").encode("utf-8")
    if kind == "append":
        with open(path, "ab") as file:
            file.write(data)
    elif kind == "append_each":  # one write (and flush) a record, as fast as the process can
        with open(path, "ab", buffering=0) as file:
            for record in action["records"]:
                file.write(record.encode("utf-8"))
    elif kind == "truncate":
        with open(path, "r+b") as file:
            file.truncate(action["size"])
    elif kind == "replace":
        with open(path + ".new", "wb") as file:
            file.write(data)
        os.replace(path + ".new", path)
    print("done", flush=True)
"""


class Writer:
    """A process appending to ``path``: each call returns once the process has done it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.process = subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def _do(self, **action: Any) -> None:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(action) + "\n")
        self.process.stdin.flush()
        assert self.process.stdout.readline() == "done\n"

    def append(self, text: str) -> None:
        self._do(do="append", data=text)

    def records(self, *records: dict[str, Any]) -> None:
        """Append each record as one line, in one write each."""
        self._do(do="append_each", records=[json.dumps(record) + "\n" for record in records])

    def truncate(self, size: int) -> None:
        self._do(do="truncate", size=size)

    def replace(self, text: str) -> None:
        """Write ``text`` to a new file and rename it over the followed one (a new inode)."""
        self._do(do="replace", data=text)

    def close(self) -> None:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.close()
        self.process.wait(timeout=10)
        self.process.stdout.close()


def header(run_id: str = "growing") -> dict[str, Any]:
    return {"type": "run", "format": "agentrender.run/1", "run_id": run_id, "goal": "follow me"}


def step(index: int, *, answered: bool = True) -> dict[str, Any]:
    """A step calling read_file; ``answered=False``: recorded when decided, before its tool answered."""
    record: dict[str, Any] = {
        "type": "step",
        "index": index,
        "decision": {"kind": "tool_call", "tool": "read_file", "args": {"path": f"f{index}.py"}, "reason": "look"},
    }
    if answered:
        record["observation"] = {"status": "ok", "content": f"contents of f{index}.py", "summary": f"read f{index}"}
    return record


def line(record: dict[str, Any]) -> str:
    return json.dumps(record) + "\n"


class Grower(Protocol):
    """A reader of a file a growth at a time (``GrowingSession``, ``GrowingRollout``)."""

    @property
    def pending(self) -> int: ...

    def grow(self) -> tuple[list[Run], int | None] | None: ...


def grown_equals_fresh(
    data: bytes, path: Path, cuts: list[int], grower: Callable[[Path], Grower], fresh: Callable[[Path], list[Run]]
) -> tuple[int, int, int]:
    """Grow ``path`` to each of ``cuts`` bytes of ``data`` and read it on (``grower(path)``, made of it empty): after
    each growth the runs equal ``fresh(path)`` of the complete lines, warnings included, or both refuse them alike,
    and a line not complete yet waits; how many growths were read on (the first step that may have changed said),
    made whole (none said), and refused."""
    path.write_bytes(b"")
    growing = grower(path)
    read_on = whole = refused = 0
    for cut in cuts:
        path.write_bytes(data[:cut])
        complete = data[: data.rfind(b"\n", 0, cut) + 1]
        try:
            grown = growing.grow()
        except ValueError as error:
            path.write_bytes(complete)
            with pytest.raises(ValueError) as fresh_error:
                fresh(path)
            assert str(fresh_error.value) == str(error)
            refused += 1
            continue
        if grown is None:
            assert growing.pending == cut - len(complete)
            continue
        runs, changed = grown
        path.write_bytes(complete)  # the fresh import reads the same path, without the line not complete yet
        made = fresh(path)
        assert runs == made, f"cut at byte {cut}"
        assert [run.warnings for run in runs] == [run.warnings for run in made]
        if changed is None:
            whole += 1
        else:
            read_on += 1
            assert changed <= len(made[0].steps)
    return read_on, whole, refused
