"""The CLI on long runs: ``show`` on a 10,000-step run at any step, ``check`` on a 100,000-step run.

    PYTHONPATH=. python bench/bench_cli.py [--show-steps N] [--check-steps N] [--repeat R]

Each figure is the command's whole time (reading the file, building the views, printing to
a string at 100 columns) as a ratio to ``load_run`` of the same file, measured in the same
process: 1.0 would mean the command costs one more load of the file on top of the load it
does. The generated runs have a model call per step, a step without a decision every 50
and a few-KiB result per step (``_gen.step_records``).
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _gen import TOOLS, best_of, reply_records, step_records

from agentrender import ModelResponse, Step, load_run, render
from agentrender.cli import main
from agentrender.runfile import RunWriter, step_record


def generate(path: Path, steps: int) -> None:
    """A run of ``steps`` steps, each decided by ``render.decide`` of a captured reply (as a runtime records
    it), a step interrupted before deciding every 50, and an end; it offers the tools its steps call."""
    replies = reply_records(min(steps, 1000))
    decisions = [
        step_record(Step(index=0, decision=render.decide(ModelResponse.from_dict(r))))["decision"] for r in replies
    ]
    with RunWriter(path) as writer:
        # the tools its steps call: check finds each call of a tool the run did not offer
        writer.header(run_id="bench", goal="A long run.", tools=[{"name": name} for name in TOOLS])
        for record in step_records(steps):
            index = record["index"]
            writer.write({"type": "model_call", "step": index, "response": replies[index % len(replies)]})
            if index % 50 == 49:
                record = {**record, "decision": None, "observation": None}
            else:
                record = {**record, "decision": decisions[index % len(decisions)]}
            writer.write(record)
        writer.end("completed", at="2026-01-01T00:00:00Z")


def command(*argv: str) -> Callable[[], int]:
    """A call of the CLI that prints to a string at 100 columns, and fails loudly on an error."""

    def run() -> int:
        out, err = io.StringIO(), io.StringIO()
        code = main([*argv, "--width", "100", "--color", "never"], stdout=out, stderr=err)
        if code not in (0, 1):
            raise RuntimeError(err.getvalue())
        return code

    return run


def measure(folder: Path, show_steps: int, check_steps: int, repeat: int) -> list[tuple[str, float, float]]:
    """(what, seconds, ratio to load_run) for each measure."""
    rows = []
    show_file = folder / f"show-{show_steps}.jsonl"
    generate(show_file, show_steps)
    load = best_of(repeat, lambda: load_run(show_file))
    rows.append((f"load_run, {show_steps:,} steps (the baseline)", load, 1.0))
    for at in (0, show_steps // 2, show_steps - 1, None):
        argv = ["show", str(show_file)] + ([] if at is None else ["--at", str(at)])
        seconds = best_of(repeat, command(*argv))
        label = "after the last step" if at is None else f"--at {at:,}"
        rows.append((f"show {label}", seconds, seconds / load))
    seconds = best_of(repeat, command("show", str(show_file), "--json"))
    rows.append(("show --json (every message's wire form)", seconds, seconds / load))
    check_file = folder / f"check-{check_steps}.jsonl"
    generate(check_file, check_steps)
    load = best_of(repeat, lambda: load_run(check_file))
    rows.append((f"load_run, {check_steps:,} steps (the baseline)", load, 1.0))
    seconds = best_of(repeat, command("check", str(check_file)))
    rows.append((f"check, {check_steps:,} steps", seconds, seconds / load))
    return rows


def main_bench(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--show-steps", type=int, default=10_000)
    parser.add_argument("--check-steps", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        rows = measure(Path(folder), args.show_steps, args.check_steps, args.repeat)
    print(f"{'measure':<48} {'seconds':>9} {'vs load_run':>12}")
    for what, seconds, ratio in rows:
        print(f"{what:<48} {seconds:>9.3f} {ratio:>12.2f}")


if __name__ == "__main__":
    main_bench()
