"""Deterministic synthetic runs of realistic sizes, the timer, and a cell's fresh process, shared by the benchmarks."""

from __future__ import annotations

import contextlib
import gc
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

_WORDS = (
    "def return self value path file line error test import class None True result "
    "config read write check status index step tool model agent run".split()
)


def _below(getrandbits: Callable[[int], int], count: int) -> int:
    """``random.Random._randbelow(count)``: the same draws, so the texts are those ``rng.choice`` made."""
    bits = count.bit_length()
    drawn = getrandbits(bits)
    while drawn >= count:
        drawn = getrandbits(bits)
    return drawn


def words(rng: random.Random, size: int) -> str:
    """Lines of 3 to 12 words, a fifth of them quoted: ``rng.randint(3, 12)`` words of ``rng.choice(_WORDS)``
    each, drawn as those draw (the same text for the same seed) at a third of their cost."""
    getrandbits, words = rng.getrandbits, len(_WORDS)
    lines, total = [], 0
    while total < size:
        line = " ".join([_WORDS[_below(getrandbits, words)] for _ in range(3 + _below(getrandbits, 10))])
        if rng.random() < 0.2:
            line = '    "' + line + '"'
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines)[:size]


TOOLS = ("read_file", "write_file", "run_tests", "search", "list_dir")
"""The tools the steps of ``step_records`` and the replies of ``reply_records`` call: a run of them offers these."""


def step_records(n: int, *, seed: int = 7, content_bytes: int = 3000, summary_bytes: int = 100) -> list[dict[str, Any]]:
    """``n`` step records as a run file holds them: a few-KiB result and a 100-byte summary each."""
    rng = random.Random(seed)
    tools = list(TOOLS)
    records = []
    for index in range(n):
        tool = rng.choice(tools)
        records.append(
            {
                "type": "step",
                "index": index,
                "decision": {
                    "kind": "tool_call",
                    "tool": tool,
                    "args": {"path": f"src/module_{rng.randint(0, 99)}.py", "limit": rng.randint(1, 500)},
                    "reason": words(rng, rng.randint(40, 200)),
                },
                "observation": {
                    "status": "error" if rng.random() < 0.05 else "ok",
                    "content": words(rng, rng.randint(content_bytes // 2, content_bytes * 3 // 2)),
                    "summary": words(rng, summary_bytes),
                },
            }
        )
    return records


def step_lines(n: int, **kwargs: Any) -> list[str]:
    """The same records as JSON lines."""
    return [json.dumps(record, ensure_ascii=False) for record in step_records(n, **kwargs)]


def reply_records(n: int, *, seed: int = 11) -> list[dict[str, Any]]:
    """``n`` captured replies as the Anthropic Messages API returns them, in a realistic mix.

    Mostly one tool use with a sentence of text; some with signed thinking, some with a
    second tool use, some that end the turn without a call or hit the output cap.
    """
    rng = random.Random(seed)
    tools = list(TOOLS)
    records = []
    for index in range(n):
        content: list[dict[str, Any]] = []
        roll = rng.random()
        if roll < 0.2:
            content.append({"type": "thinking", "thinking": words(rng, 400), "signature": "Eq" + "A" * 180})
        content.append({"type": "text", "text": words(rng, rng.randint(40, 300))})
        stop = "tool_use"
        if roll > 0.95:
            stop = "max_tokens"
        elif roll > 0.9:
            stop = "end_turn"
        else:
            for _ in range(2 if roll > 0.85 else 1):
                content.append(
                    {
                        "type": "tool_use",
                        "id": f"toolu_{index:08d}{rng.randint(0, 10**6):06d}",
                        "name": rng.choice(tools),
                        "input": {"path": f"src/module_{rng.randint(0, 99)}.py", "limit": rng.randint(1, 500)},
                    }
                )
        records.append(
            {
                "id": f"msg_{index:08d}",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": content,
                "stop_reason": stop,
                "stop_sequence": None,
                "usage": {"input_tokens": rng.randint(1000, 90000), "output_tokens": rng.randint(20, 400)},
            }
        )
    return records


def reply_lines(n: int, **kwargs: Any) -> list[str]:
    """The same replies as JSON lines."""
    return [json.dumps(record, ensure_ascii=False) for record in reply_records(n, **kwargs)]


CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}
"""The clocks a call can be timed by: the process's CPU time, or the wall clock. On a machine shared with
other work the wall clock also counts the waits for a processor, which fall on a call and its baseline
unequally; CPU time does not."""


def best_of(repeat: int, work: Callable[[], object], clock: Callable[[], float] = time.perf_counter) -> float:
    """The fastest of ``repeat`` calls of ``work`` timed by ``clock``, in seconds.

    What ``work`` returns is freed after the clock stops, and garbage is collected between
    calls, so each side is timed building its result, not freeing the previous one.
    """
    times = []
    for _ in range(repeat):
        gc.collect()
        start = clock()
        result = work()
        times.append(clock() - start)
        del result
    return min(times)


def clock_name(clock: Callable[[], float]) -> str:
    """The name ``clock`` has in ``CLOCKS``, by which a fresh process can be told it."""
    name = next((name for name, known in CLOCKS.items() if known is clock), None)
    if name is None:
        raise ValueError(f"clock: one of CLOCKS ({', '.join(CLOCKS)}), which a cell's process can be told by name")
    return name


PYCACHE = Path(tempfile.gettempdir()) / "agentrender-bench" / "pycache"
"""Where the processes a benchmark starts keep the modules they compile (``PYTHONPYCACHEPREFIX``), kept between runs:
it mirrors each source's absolute path, so each checkout's modules have their own, and Python compiles a module again
when its source changes."""


def child_env(**changes: str) -> dict[str, str]:
    """The environment of a process a benchmark starts, with ``changes``: a user's installed package has its
    bytecode, so the process reads each module's compiled code from ``PYCACHE`` and writes what it compiles there.
    Without it, with ``PYTHONDONTWRITEBYTECODE`` set (as this machine's shells set it), each process would compile
    every module it imports: time a user's process does not spend, and garbage on its heap that moved what the process
    measured after it (``json.loads`` of a 1,000-turn cell's lines by 8%, bench/README.md, session 41)."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPYCACHEPREFIX": str(PYCACHE), **changes}


@contextlib.contextmanager
def pools_as_installed(*modules: str) -> Iterator[None]:
    """Within it, the worker processes this process starts (``workers=2``'s pool, a Dask cluster) start as
    ``child_env``'s, with ``modules`` compiled into ``PYCACHE`` first; this process's environment is given back after.
    A pool's workers inherit this process's environment, and under ``PYTHONDONTWRITEBYTECODE`` each would compile every
    module it imports inside the timed call (``frame.py`` alone is 2,600 lines), which an installed package's workers
    do not. Enter it before the first pool starts: a forkserver keeps the environment it started with."""
    saved = dict(os.environ)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ.update(child_env())
    try:
        if modules:
            fresh_process("compiling the workers' modules", "import " + ", ".join(modules))
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _compiled() -> dict[Path, int]:
    """Each compiled module in ``PYCACHE`` and when it was written."""
    return {path: path.stat().st_mtime_ns for path in PYCACHE.rglob("*.pyc")}


RUNS = 3
"""How many times a fresh process is started before one compiles nothing (``fresh_process``): the first compiles what
is not in ``PYCACHE`` yet; another may meet a module another benchmark's process was compiling meanwhile."""


def fresh_process(what: str, code: str, *argv: str) -> str:
    """The output of ``python -c code *argv`` in a fresh process of ``child_env()``; ``what`` names it in the error if
    that process fails. A process that compiled a module (one ``PYCACHE`` did not hold, or held for an older source)
    measured with the compiler's garbage on its heap, so it is run again, until one compiles nothing."""
    for _ in range(RUNS):
        before = _compiled()
        command = [sys.executable, "-c", code, *argv]
        done = subprocess.run(command, env=child_env(), capture_output=True, text=True, check=False)
        if done.returncode:
            raise RuntimeError(f"{what}: its process failed\n{done.stderr}")
        if _compiled() == before:
            return done.stdout
    raise RuntimeError(f"{what}: each of {RUNS} processes compiled modules: is {PYCACHE} writable?")


def in_fresh_process(what: str, module: str, function: str, *args: Any) -> Any:
    """``function(*args)`` of the benchmark ``module`` (a file beside this one) in a fresh Python process
    (``fresh_process``: its modules compiled before, as an installed package's are), its arguments and its result
    through JSON; ``what`` names the cell in the error if that process fails.

    A cell measured in a process that measured other cells before it meets the memory they freed: the arenas the
    small-object allocator and ``malloc`` keep mapped, which spare a call the pages the system zeroes at their first
    touch (3-4 us a page on bench/README.md's machine), and which the cells asked for before decide. So a cell's figure
    moved with the other cells a run asked for: the render's 1 KiB cell by ~0.03 (session 36), an import's by up to
    0.2 (session 37). In a process of its own a cell holds its own data and nothing an earlier cell let go of, as a
    user's process that reads one file does; its work and its baseline still alternate there, so they meet the same
    memory.
    """
    code = (
        f"import json, sys; sys.path.insert(0, {str(Path(__file__).resolve().parent)!r}); import {module}; "
        f"print(json.dumps({module}.{function}(*json.loads(sys.argv[1]))))"
    )
    return json.loads(fresh_process(what, code, json.dumps(args)))
