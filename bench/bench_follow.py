"""What taking in one new step of a followed run costs, at 100 steps and at 100,000.

    python bench/bench_follow.py [--small 100] [--large 100000] [--steps 300] [--repeat 3]
    python bench/bench_follow.py --claude-code [--small 100] [--large 10000] [--steps 20]

A run file of ``--small`` (and of ``--large``) generated steps is followed (``runfile.Follower``)
and viewed (``Views``, its sizes measured); then ``--steps`` more steps are appended one at a time,
and each is taken in: ``Follower.poll`` (one stat, the new line read, loaded, the run's snapshot
made), ``Views.extend`` with the growth, and what the CLI's ``--follow`` shows of the new stop
(its ``Change`` and the new step's facts). Writing the line is not timed. The figure is the
median cost of a step (best of ``--repeat`` rounds); target: large / small <= 2.

``--claude-code``: the same for a Claude Code transcript (``bench_claude_code.session_lines``,
three lines a turn), followed by ``imports.following.ImportFollower`` (``claude_code.GrowingSession``:
the new lines read, the last turn read again); a turn is its three lines written at once. Two
figures: the whole take-in (poll, ``Views.extend``, the new view's change and size) and the poll
alone (the importer's share).
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
from bench_claude_code import session_lines  # noqa: E402

from agentrender.imports.following import ImportFollower  # noqa: E402
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


def take_in_session(size: int, turns: int) -> tuple[float, float]:
    """The median seconds to take in one new turn of a Claude Code session of ``size`` turns, and to poll it."""
    lines = [json.dumps(record) + "\n" for record in session_lines(size + turns)]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "session.jsonl"
        path.write_text("".join(lines[: 1 + 3 * size]))
        follower = ImportFollower(path)
        growth = follower.poll()
        assert growth is not None
        views = Views(growth.run)
        views.sizes()
        costs, polls = [], []
        with path.open("a") as file:
            for turn in range(size, size + turns):
                file.write("".join(lines[1 + 3 * turn : 4 + 3 * turn]))
                file.flush()
                start = time.perf_counter()
                growth = follower.poll()
                polled = time.perf_counter()
                assert growth is not None and growth.changed_from is not None
                views.extend(growth.run, growth.changed_from)
                view = views.at(None)
                _ = view.change, view.bytes
                costs.append(time.perf_counter() - start)
                polls.append(polled - start)
        assert len(growth.run.steps) == size + turns
    return statistics.median(costs), statistics.median(polls)


def main(argv: list[str] | None = None) -> list[tuple[int, float]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claude-code", action="store_true", help="a Claude Code session, read a growth at a time")
    parser.add_argument("--small", type=int, default=100)
    parser.add_argument("--large", type=int)
    parser.add_argument("--steps", type=int)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    large = args.large or (10_000 if args.claude_code else 100_000)
    steps = args.steps or (20 if args.claude_code else 300)
    if args.claude_code:
        sessions = {size: [take_in_session(size, steps) for _ in range(args.repeat)] for size in (args.small, large)}
        for size, measured in sessions.items():
            total, poll = min(cost for cost, _ in measured), min(poll for _, poll in measured)
            print(f"one new turn at {size:>7,} turns: {total * 1e6:10.1f} us ({poll * 1e6:.1f} us of it the poll)")
        small, big = (min(sessions[size]) for size in (args.small, large))
        small_poll, big_poll = (min(poll for _, poll in sessions[size]) for size in (args.small, large))
        print(f"ratio {large:,} / {args.small:,}: {big[0] / small[0]:.2f}, the poll alone {big_poll / small_poll:.2f}")
        return [(args.small, small[0]), (large, big[0])]
    rows = [(size, min(take_in(size, steps) for _ in range(args.repeat))) for size in (args.small, large)]
    for size, cost in rows:
        print(f"one new step at {size:>9,} steps: {cost * 1e6:10.1f} us")
    print(f"ratio {large:,} / {args.small:,}: {rows[1][1] / rows[0][1]:.2f} (target <= 2)")
    return rows


if __name__ == "__main__":
    main()
