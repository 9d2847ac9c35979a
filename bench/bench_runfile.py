"""load_run on a generated 100,000-step run file: peak memory against the file's size, time against json.loads.

    PYTHONPATH=. python bench/bench_runfile.py [--steps N] [--gzip]
    PYTHONPATH=. python bench/bench_runfile.py --grid [--max-mib M]

``--grid``: ``load_run`` against ``pandas.read_json(lines=True)`` (target <= 0.4) and its peak
memory against the file's size (target <= 1.5) on every cell of the frame bench's grid (steps x
result sizes x model calls or not x records per step), with the collector on as users run it, each
cell in a fresh process of its own.

Each step is recorded twice, as a runtime records it (when decided, then when the tool
answers). Targets: peak memory of load_run (tracemalloc) at most 3x the file's size; the
time is reported as a ratio to the baseline of ``json.loads`` on each line of the same file.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import tempfile
import tracemalloc
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _gen import CLOCKS, best_of, in_fresh_process, step_records

from agentrender import load_run
from agentrender.runfile import RunWriter


def generate(path: Path, steps: int) -> None:
    """A run header, each step recorded when decided and again when answered, and an end."""
    with RunWriter(path) as writer:
        writer.header(run_id="bench", goal="A long run.", tools=[{"name": "read_file"}])
        for record in step_records(steps):
            writer.write({**record, "observation": None})
            writer.write(record)
        writer.end("completed", at="2026-01-01T00:00:00Z")


def baseline(path: Path) -> int:
    """json.loads of each line, keeping nothing: the least any loader must do."""
    count = 0
    with open(path, "rb") as file:
        for line in file:
            json.loads(line)
            count += 1
    return count


def peak_of(path: Path) -> int:
    """The peak memory (tracemalloc) of ``load_run(path)``, from a collected start."""
    gc.collect()
    tracemalloc.start()
    run = load_run(path)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del run
    return peak


def bench_grid(
    folder: Path,
    repeat: int,
    max_mib: float,
    clock: str = "cpu",
    *,
    steps: Sequence[int] | None = None,
    result_bytes: Sequence[int] | None = None,
) -> list[tuple[str, float, float]]:
    """``load_run`` / ``read_json(lines=True)`` and peak / file size on every cell of ``bench_frame``'s grid (or of
    ``steps`` x ``result_bytes`` in its shapes); returns and prints ``(cell, time, memory)`` rows and the worst of each.

    Each cell's file is written here and measured in a fresh process of its own (``compare_cell``, through
    ``in_fresh_process``), as the frame's grid measures its cells since session 37: in one process ``read_json`` of a
    cell measured after others met what they left to the allocator, and took less (bench/README.md, session 37).
    """
    from bench_frame import GRID_RESULT_BYTES, GRID_STEPS, grid_files

    print(
        f"load_run / pandas.read_json(lines=True), best of {repeat} each (target <= 0.4); peak / file (<= 1.5); "
        "each cell in a process of its own"
    )
    print(
        f"  {'steps':>7} {'result':>7} {'model calls':>11} {'records/step':>12} {'file':>9} {'time':>6} {'memory':>6}"
    )
    rows = []
    cells = grid_files(folder, steps or GRID_STEPS, result_bytes or GRID_RESULT_BYTES, max_mib)
    for cell, _, path in cells:
        time, memory = in_fresh_process(cell.strip(), "bench_runfile", "compare_cell", str(path), repeat, clock)
        rows.append((cell, time, memory))
        print(f"{cell} {path.stat().st_size / 2**20:7.1f} MiB {time:6.2f} {memory:6.2f}")
    for name, at in (("time", 1), ("memory", 2)):
        worst = max(rows, key=lambda row: row[at])
        print(f"  worst {name}: {worst[0].strip()} -> {worst[at]:.2f}")
    return rows


def compare_cell(path: str, repeat: int, clock: str) -> list[float]:
    """``load_run`` / ``read_json(lines=True)`` of the run file at ``path``, best of ``repeat`` each, the two in turn
    (so a busy moment weighs on both alike), timed by ``CLOCKS[clock]``, and ``load_run``'s peak / the file's size;
    measured in this process."""
    import pandas as pd

    memory = peak_of(Path(path)) / os.path.getsize(path)
    base = ours = float("inf")
    for _ in range(repeat):
        base = min(base, best_of(1, lambda: pd.read_json(path, lines=True), CLOCKS[clock]))
        ours = min(ours, best_of(1, lambda: load_run(path), CLOCKS[clock]))
    return [ours / base, memory]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--gzip", action="store_true", help="also measure the same run as .jsonl.gz")
    parser.add_argument("--grid", action="store_true", help="only the grid: load_run against read_json, and memory")
    parser.add_argument("--max-mib", type=float, default=1024, help="skip grid cells whose file passes this size")
    parser.add_argument(
        "--clock", choices=CLOCKS, default="cpu", help="time the grid by CPU time (default) or wall clock"
    )
    options = parser.parse_args(argv)
    if options.grid:
        with tempfile.TemporaryDirectory() as folder:
            bench_grid(Path(folder), options.runs, options.max_mib, options.clock)
        return

    with tempfile.TemporaryDirectory() as folder:
        plain = Path(folder) / "run.jsonl"
        generate(plain, options.steps)
        text_size = os.path.getsize(plain)
        base = best_of(options.runs, lambda: baseline(plain))
        for path in [plain, Path(folder) / "run.jsonl.gz"] if options.gzip else [plain]:
            if path != plain:
                generate(path, options.steps)
            size = os.path.getsize(path)

            peak = peak_of(path)

            loaded = best_of(options.runs, lambda path=path: load_run(path))  # type: ignore[misc]
            print(f"{path.name}: {options.steps:,} steps, {size / 2**20:,.1f} MiB on disk")
            print(f"  peak memory of load_run: {peak / 2**20:,.1f} MiB = {peak / size:.2f}x the file on disk")
            print(f"  = {peak / text_size:.2f}x the JSON text it holds (target <= 3x for a plain file)")
            print(f"  load_run: {loaded:.2f} s; json.loads of each line of the plain file: {base:.2f} s")
            print(f"  ratio load_run / json.loads: {loaded / base:.2f}")


if __name__ == "__main__":
    main()
