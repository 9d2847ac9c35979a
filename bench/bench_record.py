"""agentrender.record's cost per call: a recorded client against the same client unrecorded, over conversation sizes.

    PYTHONPATH=. python bench/bench_record.py [--turns 10 100 1000] [--calls 20] [--result-bytes 1024]

Both clients are the real Anthropic SDK talking to the local Messages API stand-in
(``agentrender.testing.MessagesServer``), sending the same request: a conversation of
``turns`` tool uses and their results (each result ``--result-bytes`` long). The figure is
the median time of a recorded ``messages.create`` over the median of a plain one, measured
in alternating rounds in one process; what it adds is reading the body the SDK sent,
dumping the reply, and checking and writing one record. No target: it is printed per size.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anthropic

import agentrender
from agentrender.testing import MessagesServer

REPLY = {"id": "msg_bench", "model": "m", "content": [{"type": "text", "text": "Done."}], "stop_reason": "end_turn"}


def conversation(turns: int, result_bytes: int) -> list[dict[str, Any]]:
    """A user question, then ``turns`` tool uses each answered by a result of ``result_bytes`` characters."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Read every file."}]
    for n in range(turns):
        use = {"type": "tool_use", "id": f"toolu_{n:05d}", "name": "read_file", "input": {"path": f"f{n}.txt"}}
        result = {"type": "tool_result", "tool_use_id": use["id"], "content": "x" * result_bytes}
        messages += [{"role": "assistant", "content": [use]}, {"role": "user", "content": [result]}]
    return messages


def params(turns: int, result_bytes: int) -> dict[str, Any]:
    """The request both clients send."""
    tools = [{"name": "read_file", "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}]
    return {
        "model": "m",
        "max_tokens": 256,
        "tools": tools,
        "tool_choice": {"type": "auto", "disable_parallel_tool_use": True},
        "messages": conversation(turns, result_bytes),
    }


def timed(call: Callable[[], Any]) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def measure(turns: int, calls: int, result_bytes: int, folder: Path) -> tuple[float, float]:
    """(median seconds of a plain call, median seconds of a recorded one), in alternating rounds."""
    request = params(turns, result_bytes)
    with MessagesServer.scripted([REPLY] * (2 * calls + 2)) as server:
        plain = anthropic.Anthropic(base_url=server.base_url, api_key="local", max_retries=0)
        with plain, agentrender.record(plain.copy(), folder / f"bench-{turns}.jsonl") as recorded:
            plain.messages.create(**request)  # warm both: connections, the SDK's caches
            recorded.messages.create(**request)
            plain_times, recorded_times = [], []
            for _ in range(calls):
                plain_times.append(timed(lambda: plain.messages.create(**request)))
                recorded_times.append(timed(lambda: recorded.messages.create(**request)))
    return statistics.median(plain_times), statistics.median(recorded_times)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--turns", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--result-bytes", type=int, default=1024)
    options = parser.parse_args(argv)
    print(f"{'turns':>6} {'plain ms':>10} {'recorded ms':>12} {'ratio':>6}")
    with tempfile.TemporaryDirectory() as folder:
        for turns in options.turns:
            plain, recorded = measure(turns, options.calls, options.result_bytes, Path(folder))
            print(f"{turns:>6} {plain * 1000:>10.2f} {recorded * 1000:>12.2f} {recorded / plain:>6.2f}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
