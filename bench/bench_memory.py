"""The memory each format's import takes at its peak, against the file's size: at most 3x the file plus 200 MB.

Target (issue 26): importing a file never holds more than ``3 * size + 200 MB``, where ``size``
is the file's bytes (a gzip file's inflated bytes). Each file is imported in a process of its
own (its modules compiled before, as an installed package's are), and the peak resident memory
of that process (Linux's ``VmHWM``, which a new program starts afresh, where ``ru_maxrss`` keeps
its parent's) is read after it, less its resident memory just before the import (Python and the
package). The formats: a run file of many tiny
records, and of steps (``load_run``); a call log, plain and gzip (``from_anthropic``: each call
repeating the conversation, and many tiny records of a recording); a Claude Code session
(``from_claude_code``); an OpenAI chat (``from_openai``); an Inspect ``.json`` log
(``from_inspect``). The worst ratio (peak over size) is last.

    PYTHONPATH=. python bench/bench_memory.py                 # files of about 50 MB
    PYTHONPATH=. python bench/bench_memory.py --mb 2          # quick
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _gen import fresh_process, words
from bench_imports import claude_code_lines, conversation, openai_chat

FLOOR_MB = 200
TIMES = 3

_CHILD = """
import sys
from agentrender import load_run
from agentrender.imports import from_anthropic, from_claude_code, from_inspect, from_openai

def status(field):
    with open("/proc/self/status") as file:
        return next(int(line.split()[1]) * 1024 for line in file if line.startswith(field + ":"))

before = status("VmRSS")
result = {name}(sys.argv[1])
print(status("VmHWM") - before)
"""


def _lines(records: Sequence[Any]) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


def _reply(n: int) -> dict[str, Any]:
    return {
        "id": f"msg_{n}", "type": "message", "role": "assistant", "model": "m", "stop_reason": "end_turn",
        "content": [{"type": "text", "text": f"Step {n}: " + words(random.Random(n), 300)}],
        "usage": {"input_tokens": 3, "output_tokens": 1},
    }  # fmt: skip


def call_log(mb: float) -> str:
    """A log of calls, each request the conversation so far (about ``mb`` MB).

    Its texts are words, as a conversation's are, not one letter over and over: gzipped, a log of those inflated
    more than 100 times its size, and the reader refuses such a stream as a gzip bomb (``runfile.INFLATE_RATIO``)."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Fix the test."}]
    lines, size = [], 0
    n = 0
    while size < mb * 2**20:
        line = json.dumps({"request": {"model": "m", "max_tokens": 64, "messages": messages}, "response": _reply(n)})
        lines.append(line + "\n")
        size += len(line) + 1
        messages = [
            *messages,
            {"role": "assistant", "content": _reply(n)["content"]},
            {"role": "user", "content": words(random.Random(f"user {n}"), 300)},
        ]
        n += 1
    return "".join(lines)


def tiny_recording(mb: float) -> str:
    """A recording of one call, then tiny records that are not calls (about ``mb`` MB)."""
    request = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "go"}]}
    head = [{"type": "run", "format": "agentrender.run/1", "run_id": "r", "goal": "go"}]
    head.append({"type": "model_call", "step": 0, "request": request, "response": _reply(0)})
    return _lines(head) + "".join(f'{{"type": "progress", "n": {n}}}\n' for n in range(int(mb * 2**20 / 30)))


def tiny_run(mb: float) -> str:
    """A run file of a header and tiny records of an unknown type (about ``mb`` MB)."""
    tiny = '{"type": "progress"}\n'
    return _lines([{"type": "run", "format": "agentrender.run/1", "run_id": "r", "goal": "go"}]) + tiny * int(
        mb * 2**20 / len(tiny)
    )


def step_run(mb: float) -> str:
    from _gen import step_lines

    header = json.dumps({"type": "run", "format": "agentrender.run/1", "run_id": "r", "goal": "go"})
    return "\n".join([header, *step_lines(int(mb * 2**20 / 3300))]) + "\n"


def _turns(mb: float) -> int:
    return max(4, int(mb * 2**20 / 1300))


FORMATS: dict[str, tuple[str, str, Callable[[float], str]]] = {
    "runfile/tiny": ("load_run", ".jsonl", tiny_run),
    "runfile/steps": ("load_run", ".jsonl", step_run),
    "calls/log": ("from_anthropic", ".jsonl", call_log),
    "calls/log.gz": ("from_anthropic", ".jsonl.gz", call_log),
    "calls/tiny.gz": ("from_anthropic", ".jsonl.gz", tiny_recording),
    "claude_code": (
        "from_claude_code",
        ".jsonl",
        lambda mb: "".join(claude_code_lines(conversation(_turns(mb), 1000, 1))),
    ),
    "openai": ("from_openai", ".json", lambda mb: json.dumps(openai_chat(conversation(_turns(mb), 1000, 1)))),
}


def inspect_log(mb: float, path: Path) -> None:
    from bench_inspect import generate

    turns = max(4, int((mb * 2**20 / 3000) ** 0.5))  # each model event holds the conversation so far
    generate(path.with_suffix(".eval"), turns)
    from inspect_ai.log import read_eval_log, write_eval_log

    write_eval_log(read_eval_log(str(path.with_suffix(".eval"))), str(path), format="json")
    path.with_suffix(".eval").unlink()


def peak(function: str, path: Path) -> int:
    """The peak resident bytes ``function(path)`` added, in a process of its own (``fresh_process``: its modules
    compiled before, as an installed package's are)."""
    return int(fresh_process(f"{function}({path.name})", _CHILD.format(name=function), str(path)).split()[-1])


def main(argv: Sequence[str] | None = None) -> list[tuple[str, int, int]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--mb", type=float, default=50.0, help="about how large each file is")
    args = parser.parse_args(argv)
    print(f"{'format':<16} {'file':>10} {'inflated':>10} {'peak':>10} {'peak/size':>9} {'bound':>10}")
    figures = []
    with tempfile.TemporaryDirectory() as name:
        cases: list[tuple[str, str, Path]] = []
        for label, (function, suffix, make) in FORMATS.items():
            path = Path(name) / f"{label.replace('/', '-')}{suffix}"
            data = make(args.mb).encode()
            path.write_bytes(gzip.compress(data) if suffix.endswith(".gz") else data)
            cases.append((label, function, path))
        inspect = Path(name) / "inspect.json"
        inspect_log(args.mb, inspect)
        cases.append(("inspect/json", "from_inspect", inspect))
        for label, function, path in cases:
            size = len(gzip.decompress(path.read_bytes())) if path.name.endswith(".gz") else path.stat().st_size
            used = peak(function, path)
            bound = TIMES * size + FLOOR_MB * 2**20
            figures.append((label, size, used))
            print(
                f"{label:<16} {path.stat().st_size / 2**20:>8.1f}MB {size / 2**20:>8.1f}MB {used / 2**20:>8.1f}MB "
                f"{used / size:>9.2f} {'ok' if used <= bound else 'OVER':>10}",
                flush=True,
            )
    label, size, used = max(figures, key=lambda figure: figure[2] / figure[1])
    print(f"worst: {label} at {used / size:.2f}x its size ({used / 2**20:.1f} MB of {size / 2**20:.1f} MB)")
    return figures


if __name__ == "__main__":
    main()
