"""load_run on a generated 100,000-step run file: peak memory against the file's size, time against json.loads.

    PYTHONPATH=. python bench/bench_runfile.py [--steps N] [--gzip]

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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _gen import best_of, step_records

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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--gzip", action="store_true", help="also measure the same run as .jsonl.gz")
    options = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as folder:
        plain = Path(folder) / "run.jsonl"
        generate(plain, options.steps)
        text_size = os.path.getsize(plain)
        base = best_of(options.runs, lambda: baseline(plain))
        for path in [plain, Path(folder) / "run.jsonl.gz"] if options.gzip else [plain]:
            if path != plain:
                generate(path, options.steps)
            size = os.path.getsize(path)

            gc.collect()
            tracemalloc.start()
            run = load_run(path)
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            assert len(run.steps) == options.steps and not run.warnings
            del run

            loaded = best_of(options.runs, lambda path=path: load_run(path))  # type: ignore[misc]
            print(f"{path.name}: {options.steps:,} steps, {size / 2**20:,.1f} MiB on disk")
            print(f"  peak memory of load_run: {peak / 2**20:,.1f} MiB = {peak / size:.2f}x the file on disk")
            print(f"  = {peak / text_size:.2f}x the JSON text it holds (target <= 3x for a plain file)")
            print(f"  load_run: {loaded:.2f} s; json.loads of each line of the plain file: {base:.2f} s")
            print(f"  ratio load_run / json.loads: {loaded / base:.2f}")


if __name__ == "__main__":
    main()
