"""What taking in one new step of a followed run costs, at 100 steps and at 100,000.

    python bench/bench_follow.py [--small 100] [--large 100000] [--steps 300] [--repeat 3]

A run file of ``--small`` (and of ``--large``) generated steps is followed (``runfile.Follower``)
and viewed (``Views``, its sizes measured); then ``--steps`` more steps are appended one at a time,
and each is taken in: ``Follower.poll`` (one stat, the new line read, loaded, the run's snapshot
made), ``Views.extend`` with the growth, and what the CLI's ``--follow`` shows of the new stop
(its ``Change`` and the new step's facts). Writing the line is not timed. The figure is the
median cost of a step (best of ``--repeat`` rounds); target: large / small <= 2.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

for _path in (Path(__file__).resolve().parents[1], Path(__file__).resolve().parent):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from _gen import step_records  # noqa: E402

from agentrender.runfile import Follower  # noqa: E402
from agentrender.views import Views  # noqa: E402

HEADER = {"type": "run", "format": "agentrender.run/1", "run_id": "bench", "goal": "Fix the failing test."}


def take_in(size: int, steps: int) -> float:
    """The median seconds to take in one new step of a followed run of ``size`` steps."""
    records = step_records(size + steps, content_bytes=1000)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "run.jsonl"
        with path.open("w") as file:
            file.write(json.dumps(HEADER) + "\n")
            file.writelines(json.dumps(record) + "\n" for record in records[:size])
        follower = Follower(path)
        growth = follower.poll()
        assert growth is not None
        views = Views(growth.run)
        views.sizes()
        costs = []
        with path.open("a") as file:
            for record in records[size:]:
                file.write(json.dumps(record) + "\n")
                file.flush()
                start = time.perf_counter()
                growth = follower.poll()
                assert growth is not None
                views.extend(growth.run, growth.changed_from)
                view = views.at(None)
                _ = view.change, view.step_facts(view.step_count - 1)[0].result, view.bytes
                costs.append(time.perf_counter() - start)
        assert len(growth.run.steps) == size + steps
    return statistics.median(costs)


def main(argv: list[str] | None = None) -> list[tuple[int, float]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", type=int, default=100)
    parser.add_argument("--large", type=int, default=100_000)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    rows = [(size, min(take_in(size, args.steps) for _ in range(args.repeat))) for size in (args.small, args.large)]
    for size, cost in rows:
        print(f"one new step at {size:>9,} steps: {cost * 1e6:8.1f} us")
    print(f"ratio {args.large:,} / {args.small:,}: {rows[1][1] / rows[0][1]:.2f} (target <= 2)")
    return rows


if __name__ == "__main__":
    main()
