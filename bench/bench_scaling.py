"""Every importer is linear: each shape of input, imported at n, 2n and 4n, takes about twice as long per doubling.

Target (issue 26): the time of an import grows as its file does. For each importer and shape
the file is written at ``n``, ``2n`` and ``4n`` (``n`` picked so the import takes 0.05-1 s on
a laptop) and each import timed (best of ``--rounds``, the collector on, garbage collected
between calls, ``_gen.best_of``); printed per doubling is the growth, ``t(2n) / t(n)`` for a
file twice the size (``2 * (t(2n) / t(n)) / (size(2n) / size(n))``: a shape whose file grows
faster than ``n``, an Inspect log whose every model event holds the conversation so far, is
judged by its bytes). Linear is 2; a quadratic import is 4. The check: every shape's growth, the
mean of its two doublings, stays under ``LIMIT`` (2.6, room for the machine's noise); the worst
single doubling is printed beside it. The shapes are the ones issue 26 found
quadratic, and the ordinary conversation of each format:

- ``anthropic``: a request body (``body``); one assistant turn of ``n`` tool uses answered in
  reverse (``reverse``, what ``unanswered_warning`` looks at); a call log of ``n`` calls (``calls``,
  each a short request, the longest found among them); a recording of ``n`` records that are not
  calls (``notes``, one warning each, collapsed as they are made);
- ``claude_code``: a session (``session``); one sub-agent's chain of ``n`` records (``chain``);
  ``n`` sub-agents of two records each (``roots``); ``n`` compactions (``compactions``);
- ``openai``: a chat (``chat``); one message of ``n`` tool calls answered in reverse (``reverse``);
- ``inspect``: a ``.json`` log of one sample of ``n`` tool calls, a model event each (``json``);
- ``runfile``: a run file of ``n`` steps (``steps``); of ``n`` records of an unknown type (``notes``).

    PYTHONPATH=. python bench/bench_scaling.py                       # every shape, best of 3
    PYTHONPATH=. python bench/bench_scaling.py --shapes anthropic/reverse --scale 0.1 --rounds 1
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from collections.abc import Callable, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any, NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _gen import best_of
from bench_imports import claude_code_lines, conversation, openai_chat

from agentrender.imports import from_anthropic, from_claude_code, from_inspect, from_openai
from agentrender.runfile import load_run

LIMIT = 2.6
"""The largest growth per doubling that is still linear, with room for noise (a quadratic import's is 4)."""
ROUNDS = 3
SESSION = "0b1e6a52-3c7d-4f19-8a2e-5d6c7b8a9f01"
BASE = {"userType": "external", "cwd": "/w", "sessionId": SESSION, "version": "2.0.76"}


def _lines(records: Sequence[Any]) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


def _uuid(n: int) -> str:
    return f"{n:08x}-0000-4000-8000-{n:012x}"


def _record(n: int, parent: int | None, role: str, content: Any, **more: Any) -> dict[str, Any]:
    """A Claude Code record ``n`` (uuid from it) under ``parent``, holding one message of ``role``."""
    message: dict[str, Any] = {"role": role, "content": content}
    if role == "assistant":
        message.update(id=f"msg_{n}", type="message", model="claude-sonnet-4-5", stop_reason="end_turn")
    return {
        **BASE, "isSidechain": False, "type": role, "uuid": _uuid(n),
        "parentUuid": _uuid(parent) if parent is not None else None, "message": message, **more,
    }  # fmt: skip


def _main_thread(first: int) -> list[dict[str, Any]]:
    """A main thread of one exchange, its records numbered from ``first``."""
    return [
        _record(first, None, "user", "Fix the failing test."),
        _record(first + 1, first, "assistant", [{"type": "text", "text": "Done."}]),
    ]


def claude_code_chain(n: int) -> str:
    """A session whose one sub-agent's thread is a chain of ``n`` records (prompt, then reply and answer in turn)."""
    records = _main_thread(0)
    side = {"isSidechain": True, "agentId": "a1b2c3d"}
    for i in range(n):
        role = "assistant" if i % 2 else "user"
        content = [{"type": "text", "text": f"Turn {i} of the sub-agent."}]
        records.append(_record(10 + i, 10 + i - 1 if i else None, role, content, **side))
    return _lines(records)


def claude_code_roots(n: int) -> str:
    """A session with ``n`` sub-agents, each a prompt and its reply."""
    records = _main_thread(0)
    for i in range(n):
        side = {"isSidechain": True, "agentId": f"{i:07x}"}
        records.append(_record(10 + 2 * i, None, "user", f"Sub-task {i}: read one file.", **side))
        records.append(_record(11 + 2 * i, 10 + 2 * i, "assistant", [{"type": "text", "text": f"Read {i}."}], **side))
    return _lines(records)


def claude_code_compactions(n: int) -> str:
    """A session compacted ``n`` times: each compaction a boundary, its summary and one exchange after it."""
    records = _main_thread(0)
    last = 1
    for i in range(n):
        at = 10 + 4 * i
        records.append(
            {**BASE, "isSidechain": False, "type": "system", "subtype": "compact_boundary", "uuid": _uuid(at),
             "parentUuid": None, "logicalParentUuid": _uuid(last), "content": "Conversation compacted",
             "compactMetadata": {"trigger": "auto", "preTokens": 150000}}
        )  # fmt: skip
        records.append(_record(at + 1, at, "user", f"Summary {i} of what came before.", isCompactSummary=True))
        records.append(_record(at + 2, at + 1, "user", f"Go on with part {i}."))
        records.append(_record(at + 3, at + 2, "assistant", [{"type": "text", "text": f"Part {i} done."}]))
        last = at + 3
    return _lines(records)


def _reverse_turns(n: int) -> list[dict[str, Any]]:
    """An opening, one assistant turn of ``n`` tool uses, and the user turn answering them in reverse order."""
    uses = [{"type": "tool_use", "id": f"toolu_{i:07d}", "name": "read", "input": {"n": i}} for i in range(n)]
    results = [{"type": "tool_result", "tool_use_id": use["id"], "content": "ok"} for use in reversed(uses)]
    return [
        {"role": "user", "content": "Read every file."},
        {"role": "assistant", "content": uses},
        {"role": "user", "content": results},
    ]


def openai_reverse(n: int) -> dict[str, Any]:
    """An OpenAI-style chat of one assistant message of ``n`` tool calls, each answered, in reverse order."""
    calls = [
        {"id": f"call_{i:07d}", "type": "function", "function": {"name": "read", "arguments": "{}"}} for i in range(n)
    ]
    tools = [{"role": "tool", "tool_call_id": call["id"], "content": "ok"} for call in reversed(calls)]
    opening = [{"role": "user", "content": "Read every file."}]
    return {
        "model": "gpt-4o",
        "messages": [*opening, {"role": "assistant", "content": "", "tool_calls": calls}, *tools],
    }


def _reply(i: int) -> dict[str, Any]:
    return {
        "id": f"msg_{i}", "type": "message", "role": "assistant", "model": "m", "stop_reason": "end_turn",
        "content": [{"type": "text", "text": "a bug"}], "usage": {"input_tokens": 9, "output_tokens": 2},
    }  # fmt: skip


def anthropic_calls(n: int) -> str:
    """A log of ``n`` calls, each a request of a short conversation (an opening and one exchange) and its reply."""
    lines = []
    for i in range(n):
        messages = [
            {"role": "user", "content": f"Classify item {i}."},
            {"role": "assistant", "content": [{"type": "text", "text": "Reading it."}]},
            {"role": "user", "content": f"Item {i}: the discount is applied twice."},
        ]
        lines.append({"request": {"model": "m", "max_tokens": 64, "messages": messages}, "response": _reply(i)})
    return _lines(lines)


def anthropic_notes(n: int) -> str:
    """A recording's header, one call, then ``n`` records that are not calls (each a warning)."""
    body = {"messages": [{"role": "user", "content": "go"}], "model": "m", "max_tokens": 8}
    records: list[dict[str, Any]] = [{"type": "run", "format": "agentrender.run/1", "run_id": "r", "goal": "go"}]
    records.append({"type": "model_call", "step": 0, "request": body, "response": _reply(0)})
    records.extend({"type": "progress", "n": i} for i in range(n))
    return _lines(records)


def runfile_steps(n: int) -> str:
    from _gen import step_records

    header = {"type": "run", "format": "agentrender.run/1", "run_id": "r", "goal": "go"}
    return _lines([header, *step_records(n, content_bytes=200, summary_bytes=40)])


def runfile_notes(n: int) -> str:
    header = {"type": "run", "format": "agentrender.run/1", "run_id": "r", "goal": "go"}
    return _lines([header, *({"type": "progress", "n": i} for i in range(n))])


def inspect_json(n: int, path: Path) -> None:
    """An Inspect ``.json`` log of one sample of ``n`` tool calls, written by Inspect (``bench_inspect.generate``)."""
    from bench_inspect import generate

    generate(path.with_suffix(".eval"), n)
    from inspect_ai.log import read_eval_log, write_eval_log

    write_eval_log(read_eval_log(str(path.with_suffix(".eval"))), str(path), format="json")
    path.with_suffix(".eval").unlink()


class Shape(NamedTuple):
    """One shape of input: its name, the ``n`` it is timed at first, what writes it and what imports it."""

    name: str
    n: int
    suffix: str
    write: Callable[[int, Path], None]
    load: Callable[[Path], object]


def _text(make: Callable[[int], str]) -> Callable[[int, Path], None]:
    return lambda n, path: path.write_text(make(n), encoding="utf-8")


def _json(make: Callable[[int], Any]) -> Callable[[int, Path], None]:
    return lambda n, path: path.write_text(json.dumps(make(n)), encoding="utf-8")


SHAPES = (
    Shape("anthropic/body", 16000, ".json", _json(lambda n: conversation(n, 200, 1)), from_anthropic),
    Shape("anthropic/reverse", 20000, ".json", _json(lambda n: {"messages": _reverse_turns(n)}), from_anthropic),
    Shape("anthropic/calls", 4000, ".jsonl", _text(anthropic_calls), from_anthropic),
    Shape("anthropic/notes", 60000, ".jsonl", _text(anthropic_notes), from_anthropic),
    Shape(
        "claude_code/session",
        4000,
        ".jsonl",
        _text(lambda n: "".join(claude_code_lines(conversation(n, 200, 1)))),
        from_claude_code,
    ),
    Shape("claude_code/chain", 4000, ".jsonl", _text(claude_code_chain), from_claude_code),
    Shape("claude_code/roots", 2000, ".jsonl", _text(claude_code_roots), from_claude_code),
    Shape("claude_code/compactions", 1000, ".jsonl", _text(claude_code_compactions), from_claude_code),
    Shape("openai/chat", 16000, ".json", _json(lambda n: openai_chat(conversation(n, 200, 1))), from_openai),
    Shape("openai/reverse", 20000, ".json", _json(openai_reverse), from_openai),
    Shape("inspect/json", 50, ".json", inspect_json, from_inspect),
    Shape("runfile/steps", 8000, ".jsonl", _text(runfile_steps), load_run),
    Shape("runfile/notes", 60000, ".jsonl", _text(runfile_notes), load_run),
)


class Figure(NamedTuple):
    """What one doubling of one shape measured: ``n``, the two times and sizes, and the growth."""

    shape: str
    n: int
    seconds: tuple[float, float]
    sizes: tuple[int, int]

    @property
    def growth(self) -> float:
        """``t(2n) / t(n)`` for a file twice the size: 2 is linear, 4 quadratic."""
        return 2 * (self.seconds[1] / self.seconds[0]) / (self.sizes[1] / self.sizes[0])


def measure(shape: Shape, scale: float, rounds: int, folder: Path) -> list[Figure]:
    """The shape timed at n, 2n and 4n: the two doublings' figures."""
    n = max(2, round(shape.n * scale))
    timed = []
    for size in (n, 2 * n, 4 * n):
        path = folder / f"{SESSION}-{size}{shape.suffix}"
        shape.write(size, path)
        shape.load(path)  # read once untimed: what it raises is raised here
        timed.append((size, best_of(rounds, lambda path=path: shape.load(path)), path.stat().st_size))
        path.unlink()
    return [
        Figure(shape.name, small[0], (small[1], large[1]), (small[2], large[2])) for small, large in pairwise(timed)
    ]


def _line(figure: Figure) -> str:
    return (
        f"{figure.shape:<24} {figure.n:>8,} {figure.sizes[0] / 2**20:>8.2f}MiB {figure.seconds[0]:>8.3f}s "
        f"{figure.seconds[1]:>8.3f}s {figure.growth:>7.2f}"
    )


def main(argv: Sequence[str] | None = None) -> list[Figure]:
    """Print each shape's doublings, then the worst against ``LIMIT``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--shapes", nargs="+", choices=[shape.name for shape in SHAPES], metavar="SHAPE")
    parser.add_argument("--scale", type=float, default=1.0, help="times each shape's first n")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    args = parser.parse_args(argv)
    print(f"{'shape':<24} {'n':>8} {'file (n)':>11} {'t(n)':>9} {'t(2n)':>9} {'growth':>7}")
    figures = []
    with tempfile.TemporaryDirectory() as name:
        for shape in SHAPES:
            if args.shapes and shape.name not in args.shapes:
                continue
            for figure in measure(shape, args.scale, args.rounds, Path(name)):
                print(_line(figure), flush=True)
                figures.append(figure)
    # A shape's growth is the mean of its two doublings (the square root of t(4n)/t(n) for a file four times
    # the size): a quadratic shape grows by 4 at both, where one doubling of a quick cell moves by +-0.5 on a
    # busy machine.
    by_shape: dict[str, list[float]] = {}
    for figure in figures:
        by_shape.setdefault(figure.shape, []).append(figure.growth)
    means = {shape: math.prod(growths) ** (1 / len(growths)) for shape, growths in by_shape.items()}
    single = max(figures, key=lambda figure: figure.growth)
    print(f"worst single doubling: {single.growth:.2f} ({_line(single).strip()})")
    shape = max(means, key=lambda name: means[name])
    verdict = "linear" if means[shape] <= LIMIT else "NOT linear"
    print(f"worst: {means[shape]:.2f} ({shape}, the mean of its doublings from n to 4n); {verdict} (limit {LIMIT})")
    return figures


if __name__ == "__main__":
    main()
