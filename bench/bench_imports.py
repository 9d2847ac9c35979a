"""How much importing an agent's own conversation costs, against ``json.loads`` of the same file, for every format.

Target (issue 22, was 2x in issue 12): importing a 10,000-turn conversation costs at most ``json.loads`` of it.
A turn is one message: 10,000 turns are 5,000 assistant turns (a reason and one or three tool
uses), each answered by a user turn of as many results (every seventh as a list of blocks,
every tenth an error), with or without the user's text beside the results. The same
conversation is written in each format an importer reads:

- ``anthropic``: a Messages API request body (``.json``), read by ``from_anthropic``;
- ``calls``: a Messages API call log (``.jsonl``, one ``{"request", "response"}`` per model
  call, each request holding the conversation so far), read by ``from_anthropic``. A log holds
  the conversation once per call, so it grows with the square of the turns: its cells stop
  where the log would pass ``--log-limit`` MiB;
- ``claude_code``: a Claude Code transcript (``.jsonl``: each reply one record a block sharing
  ``message.id``, each result its own record with ``toolUseResult``, each record its ``timestamp``), read by
  ``from_claude_code``;
- ``openai``: a Chat Completions request body (``.json``: ``tool_calls``, ``role: tool``), read
  by ``from_openai``;
- ``codex``: a Codex CLI session (``.jsonl``: a ``{timestamp, type, payload}`` record a line, each item Codex sent a
  ``response_item``, a ``turn_context`` and an encrypted ``reasoning`` item before each reply, an ``agent_message``
  event after each of its texts, an ``exec_command_end`` event after each output and a ``token_count`` event after
  each reply, as real rollouts hold them), read by ``from_responses``.

Each record of the two agents' sessions is written 37 ms after the one before (``_stamp``), as the agents write them.

The baseline is ``json.loads`` of the file's text (of each line, for ``.jsonl``): the least any importer must do. Each
cell's file is written by the measuring process and read, imported and timed in a fresh process of its own
(``measure``): in one process a cell met the memory the cells before it had freed, and its figure moved with the cells
asked for before it (by up to 0.2, bench/README.md, session 37). Each side is the best of ``--rounds`` calls (more for a
small file, see ``MIN_SECONDS``), the sides called in turn, the collector on as it is in a user's program (an importer
that pauses it pays the collection that ends the pause), timed by the process's CPU time (``--clock wall`` for the wall
clock: on a machine shared with other work it also counts the waits for a processor, which fall on the two sides
unequally; this benchmark timed by it until session 34). Printed per cell: the import, and the import followed by
reading every step (``list(run.steps)``, which decides each: steps are made when first read). The worst cell of each
format and of all is last.

    PYTHONPATH=. python bench/bench_imports.py                          # the whole grid, best of 3
    PYTHONPATH=. python bench/bench_imports.py --formats anthropic --turns 1000 --rounds 1
"""

from __future__ import annotations

import argparse
import base64
import gc
import hashlib
import json
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _gen import CLOCKS, clock_name, in_fresh_process

from agentrender.imports import from_anthropic, from_claude_code, from_openai, from_responses
from agentrender.runfile import Run

TARGET = 1.0
"""The issue's bound: an import costs at most ``json.loads`` of the same file (issue 22; issue 12 asked for 2x)."""
ROUNDS = 3
TURNS = (1_000, 10_000)
RESULT_BYTES = (60, 1024, 30 * 1024)
TOOL_USES = (1, 3)
BESIDE = (False, True)
FORMATS = ("anthropic", "calls", "claude_code", "openai", "codex")
LOG_LIMIT = 200
"""The largest call log (MiB) a cell writes: a log of every call holds the conversation once per call."""

SESSION = "0b1e6a52-3c7d-4f19-8a2e-5d6c7b8a9f01"


class Cell(NamedTuple):
    """One shape of conversation, in one format."""

    format: str
    turns: int
    result_bytes: int
    tool_uses: int
    beside: bool


class Figure(NamedTuple):
    """What one cell measured: its file's size, the import's ratio, and the ratio with every step read."""

    cell: Cell
    file_bytes: int
    ratio: float
    read_all: float


def _result(step: int, number: int, size: int) -> str:
    """A tool's output of ``size`` bytes: lines of a test run or a file, as agents' tools print them."""
    line = f"tests/test_pricing.py::test_discount_{step}_{number} PASSED [{step % 100:3d}%]\n"
    return (line * (size // len(line) + 1))[:size]


def conversation(turns: int, result_bytes: int, tool_uses: int, beside: bool = False) -> dict[str, Any]:
    """A request body whose ``messages`` are ``turns`` turns: an opening, then assistant turns (a reason and
    ``tool_uses`` tool uses) each answered by a user turn of as many results (every tenth an error, every
    seventh as a list of blocks), with a line of the user's text after them when ``beside``."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Make the failing test in test_pricing.py pass."}]
    step = 0
    while len(messages) < turns:
        uses = [
            {
                "type": "tool_use",
                "id": f"toolu_{step:05d}_{number}",
                "name": ("read_file", "run_tests", "search")[number % 3],
                "input": {"path": f"src/pricing_{step % 50}.py", "pattern": "discount"},
            }
            for number in range(tool_uses)
        ]
        reason = {"type": "text", "text": f"Step {step}: the discount is applied twice; checking the callers."}
        messages.append({"role": "assistant", "content": [reason, *uses]})
        results: list[dict[str, Any]] = []
        for number, use in enumerate(uses):
            text = _result(step, number, result_bytes)
            result: dict[str, Any] = {"type": "tool_result", "tool_use_id": use["id"]}
            result["content"] = [{"type": "text", "text": text}] if step % 7 == 0 else text
            if step % 10 == 0:
                result["is_error"] = True
            results.append(result)
        if beside:
            results.append({"type": "text", "text": f"Note {step}: keep the public API as it is."})
        messages.append({"role": "user", "content": results})
        step += 1
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 4096,
        "system": "You fix failing tests.",
        "tools": [{"name": name, "input_schema": {"type": "object"}} for name in ("read_file", "run_tests", "search")],
        "messages": messages[:turns],
    }


def _reply(number: int, content: list[dict[str, Any]], model: str) -> dict[str, Any]:
    uses = any(block["type"] == "tool_use" for block in content)
    return {
        "id": f"msg_{number:05d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "tool_use" if uses else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1000 + number, "output_tokens": 40},
    }


def call_log_lines(body: dict[str, Any]) -> list[str]:
    """The body as a log of the calls that made it: one ``{"request", "response"}`` line per assistant turn."""
    messages = body["messages"]
    lines = []
    for at in range(1, len(messages), 2):
        request = {**body, "messages": messages[:at]}
        reply = _reply(at // 2, messages[at]["content"], body["model"])
        lines.append(json.dumps({"request": request, "response": reply, "latency_ms": 900}) + "\n")
    return lines


def _uuid(n: int) -> str:
    return f"{n:08x}-0000-4000-8000-{n:012x}"


_START = datetime(2026, 5, 11, 8, 27, 17, 490000, tzinfo=UTC)


def _stamp(n: int) -> str:
    """The time record ``n`` was written, 37 ms after the one before, as Claude Code and Codex write it
    (``2026-05-11T08:27:17.490Z``): each record its own, as in a real session (since session 27; before, the Claude
    Code cells' records had none and the Codex cells' all had one, which an importer's check of each could skip)."""
    return (_START + timedelta(milliseconds=37 * n)).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def claude_code_lines(body: dict[str, Any]) -> list[str]:
    """The body as Claude Code writes a session: a record a block of each reply (sharing its ``message.id``,
    each the parent of the next), each result a record whose parent is the tool use it answers, the user's
    text beside the results in the last result's record."""
    base = {"isSidechain": False, "userType": "external", "cwd": "/w", "sessionId": SESSION, "version": "2.0.76"}
    n = 0
    opening = body["messages"][0]
    lines: list[dict[str, Any]] = [
        {**base, "type": "user", "parentUuid": None, "uuid": _uuid(0), "timestamp": _stamp(0), "message": dict(opening)}
    ]
    parent = _uuid(0)
    messages = body["messages"]
    for at in range(1, len(messages), 2):
        reply = _reply(at // 2, [], body["model"])
        del reply["content"]
        uses: dict[str, str] = {}
        for block in messages[at]["content"]:
            n += 1
            lines.append(
                {**base, "type": "assistant", "parentUuid": parent, "uuid": _uuid(n), "timestamp": _stamp(n),
                 "message": {**reply, "content": [block]}, "requestId": f"req_{at}"}
            )  # fmt: skip
            parent = _uuid(n)
            if block["type"] == "tool_use":
                uses[block["id"]] = parent
        if at + 1 >= len(messages):
            break
        blocks = messages[at + 1]["content"]
        results = [block for block in blocks if block["type"] == "tool_result"]
        texts = [block for block in blocks if block["type"] != "tool_result"]
        for position, result in enumerate(results):
            n += 1
            content = [result, *texts] if position == len(results) - 1 else [result]
            lines.append(
                {**base, "type": "user", "parentUuid": uses[result["tool_use_id"]], "uuid": _uuid(n),
                 "timestamp": _stamp(n), "message": {"role": "user", "content": content},
                 "toolUseResult": {"type": "text", "file": {"filePath": "/w/src/pricing.py", "numLines": 39}}}
            )  # fmt: skip
        parent = _uuid(n)
    return [json.dumps(line) + "\n" for line in lines]


def openai_chat(body: dict[str, Any]) -> dict[str, Any]:
    """The body as an OpenAI-style request: ``tool_calls`` with JSON arguments, a ``role: tool`` message per result."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": body["system"]},
        {"role": "user", "content": body["messages"][0]["content"]},
    ]
    for turn in body["messages"][1:]:
        if turn["role"] == "assistant":
            text = "\n".join(block["text"] for block in turn["content"] if block["type"] == "text")
            calls = [
                {"id": block["id"], "type": "function",
                 "function": {"name": block["name"], "arguments": json.dumps(block["input"])}}
                for block in turn["content"] if block["type"] == "tool_use"
            ]  # fmt: skip
            messages.append({"role": "assistant", "content": text, "tool_calls": calls})
            continue
        for block in turn["content"]:
            if block["type"] == "tool_result":
                content = block["content"]
                text = content if isinstance(content, str) else content[0]["text"]
                messages.append({"role": "tool", "tool_call_id": block["tool_use_id"], "content": text})
            else:
                messages.append({"role": "user", "content": block["text"]})
    tools = [
        {"type": "function", "function": {"name": tool["name"], "parameters": tool["input_schema"]}}
        for tool in body["tools"]
    ]
    return {"model": "gpt-4o", "max_tokens": body["max_tokens"], "tools": tools, "messages": messages}


def _reasoning(step: int) -> dict[str, Any]:
    """The reasoning item Codex writes before a reply: a summary of one bold line, as the real rollouts' summaries are
    (``**Planning repository inspection**``), and the reasoning itself encrypted, 1,316 characters of base64 (the
    median of the 25 of Codex 0.128's session in ``tests/fixtures/real/codex``; the 0.40 and 0.58 sessions' are
    1,228 to 1,420)."""
    secret = base64.urlsafe_b64encode(b"".join(hashlib.sha256(b"%d-%d" % (step, n)).digest() for n in range(31)))
    summary = [{"type": "summary_text", "text": f"**Checking step {step}'s callers**"}]
    encrypted = "gAAAAAB" + secret[:1309].decode()  # a Fernet token's head, as Codex's are
    return {"type": "reasoning", "summary": summary, "content": None, "encrypted_content": encrypted}


def _command_end(call: str, output: str) -> dict[str, Any]:
    """The ``exec_command_end`` event Codex 0.128 writes after a command's output: the command, its parsed form, the
    output again (``aggregated_output``), its exit code and how long it ran."""
    command = f"sed -n '1,180p' src/pricing_{len(output) % 50}.py"
    return {"type": "exec_command_end", "call_id": call, "process_id": "48230",
            "turn_id": "019e1625-d031-75e3-a85f-f143e43c0d84", "command": ["/bin/zsh", "-lc", command], "cwd": "/w",
            "parsed_cmd": [{"type": "read", "cmd": command, "name": "pricing.py", "path": "src/pricing.py"}],
            "source": "unified_exec_startup", "stdout": "", "stderr": "", "aggregated_output": output, "exit_code": 0,
            "duration": {"secs": 0, "nanos": 87741459}, "formatted_output": "", "status": "completed"}  # fmt: skip


def codex_lines(body: dict[str, Any]) -> list[str]:
    """The body as Codex CLI writes a session: its meta and turn context, then each item it sent a ``response_item``
    (the reply's text an assistant message after a ``reasoning`` item, each call a ``function_call`` with JSON
    arguments, each result a ``function_call_output``, the user's text beside them a user message), and the records
    Codex writes beside the items: a ``turn_context`` before each reply, an ``agent_reasoning`` event before its
    reasoning (the summary again), an ``agent_message`` event after each of its texts (the text again), an
    ``exec_command_end`` event after each output (the command's output again) and a ``token_count`` event after the
    reply. A third of a real rollout's lines are such records (``tests/fixtures/real/codex``: a ``turn_context`` about
    each call, an event each reply), which the importer reads another way than the items; a session of the items alone
    would measure a shape no user has. The reasoning is as a real rollout's (``_reasoning``), and the command's end
    as Codex 0.128 writes it (the Desktop session of ``tests/fixtures/real/codex/codemie-ai-codemie-code``)."""

    def record(kind: str, payload: dict[str, Any]) -> str:
        return json.dumps({"timestamp": _stamp(len(lines)), "type": kind, "payload": payload}) + "\n"

    lines: list[str] = []

    meta = {"id": SESSION, "cwd": "/w", "cli_version": "0.125.0", "base_instructions": {"text": body["system"]}}
    lines.append(record("session_meta", meta))
    lines.append(record("turn_context", {"cwd": "/w", "model": "gpt-5.4"}))
    opening = body["messages"][0]["content"]
    lines.append(record("response_item", {"type": "message", "role": "user",
                                          "content": [{"type": "input_text", "text": opening}]}))  # fmt: skip
    context = {"cwd": "/w", "approval_policy": "on-request", "sandbox_policy": {"type": "workspace-write"},
               "model": "gpt-5.4", "effort": "medium", "summary": "auto"}  # fmt: skip
    for number, turn in enumerate(body["messages"][1:]):
        if turn["role"] == "assistant":
            lines.append(record("turn_context", context))
            reasoning = _reasoning(number // 2)
            lines.append(record("event_msg", {"type": "agent_reasoning", "text": reasoning["summary"][0]["text"]}))
            lines.append(record("response_item", reasoning))
        for block in turn["content"]:
            if block["type"] == "text":
                kind = "output_text" if turn["role"] == "assistant" else "input_text"
                content = [{"type": kind, "text": block["text"]}]
                lines.append(record("response_item", {"type": "message", "role": turn["role"], "content": content}))
                if turn["role"] == "assistant":
                    lines.append(record("event_msg", {"type": "agent_message", "message": block["text"]}))
            elif block["type"] == "tool_use":
                call = {"type": "function_call", "name": block["name"], "arguments": json.dumps(block["input"]),
                        "call_id": block["id"]}  # fmt: skip
                lines.append(record("response_item", call))
            else:
                content = block["content"]
                output = content if isinstance(content, str) else content[0]["text"]
                lines.append(record("response_item", {"type": "function_call_output", "call_id": block["tool_use_id"],
                                                      "output": output}))  # fmt: skip
                lines.append(record("event_msg", _command_end(block["tool_use_id"], output)))
        if turn["role"] == "assistant":
            usage = {"input_tokens": 1000, "output_tokens": 40, "total_tokens": 1040}
            lines.append(record("event_msg", {"type": "token_count", "info": {"last_token_usage": usage}}))
    return lines


def write(cell: Cell, folder: Path) -> Path | None:
    """The cell's conversation written in its format; ``None`` when a call log would pass ``LOG_LIMIT``."""
    body = conversation(cell.turns, cell.result_bytes, cell.tool_uses, cell.beside)
    name = "-".join(map(str, cell))
    if cell.format == "anthropic":
        path = folder / f"{name}.json"
        path.write_text(json.dumps(body), encoding="utf-8")
    elif cell.format == "openai":
        path = folder / f"{name}.json"
        path.write_text(json.dumps(openai_chat(body)), encoding="utf-8")
    elif cell.format == "calls":
        size = len(json.dumps(body))
        if size * cell.turns / 4 > LOG_LIMIT * 2**20:  # about half the conversation, once a call
            return None
        path = folder / f"{name}.jsonl"
        path.write_text("".join(call_log_lines(body)), encoding="utf-8")
    elif cell.format == "codex":
        path = folder / f"rollout-{name}.jsonl"
        path.write_text("".join(codex_lines(body)), encoding="utf-8")
    else:
        path = folder / f"{SESSION}-{name}.jsonl"
        path.write_text("".join(claude_code_lines(body)), encoding="utf-8")
    return path


IMPORTERS: dict[str, Callable[[Path], Run]] = {
    "anthropic": from_anthropic,
    "calls": from_anthropic,
    "claude_code": lambda path: from_claude_code(path)[0],
    "openai": from_openai,
    "codex": from_responses,
}


def baseline(path: Path) -> object:
    """``json.loads`` of the file's text, or of each of its lines for JSON Lines: the least an importer does."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines()]
    return json.loads(text)


MIN_SECONDS = 0.5
"""Each side of a cell is called at least ``rounds`` times, and more (up to 50) until it has run this long: the
best of a few calls of a few milliseconds is mostly the machine's noise."""


def best(
    rounds: int,
    *sides: Callable[[], object],
    min_seconds: float = MIN_SECONDS,
    clock: Callable[[], float] = time.process_time,
) -> list[float]:
    """The fastest call of each of ``sides`` in seconds by ``clock``, the collector on, the sides called in turn round
    after round (so a spell of load on the machine falls on all of them); what a call made is freed untimed."""
    times: list[list[float]] = [[] for _ in sides]
    while len(times[0]) < rounds or (min(map(sum, times)) < min_seconds and len(times[0]) < 50):
        for side, taken in zip(sides, times, strict=True):
            gc.collect()
            start = clock()
            made = side()
            taken.append(clock() - start)
            del made
    return [min(taken) for taken in times]


def measure(
    cell: Cell,
    folder: Path,
    rounds: int,
    min_seconds: float = MIN_SECONDS,
    clock: Callable[[], float] = time.process_time,
) -> Figure | None:
    """The cell's figure, its file written here and measured in a fresh process of its own (``compare_cell`` there,
    through ``in_fresh_process``); ``None`` for a call log past ``LOG_LIMIT``.

    In one process a cell met the memory the cells before it had freed (the grid measures them one after the other),
    which spared its ``json.loads`` the pages it faults in alone more than it spared the import: Codex's 1,000 turns of
    1 KiB results, one use, text beside measured 1.00-1.04 after the cells before it and 0.87-0.91 alone, its
    ``json.loads`` faulting in no page a call after them and ~1,600 alone; Claude Code's 10,000 turns of 60 B results,
    one use, text beside 2.36-2.56 and 2.28-2.38 (higher after them by 0.19-0.24 in four rounds of five), its
    ``json.loads`` ~10,300-10,900 pages a call after them and ~13,900-14,200 alone (bench/README.md, session 37). So a
    cell's figure moved with the cells a run asked for before it.
    """
    name = clock_name(clock)
    path = write(cell, folder)
    if path is None:
        return None
    try:
        ratio, read_all = in_fresh_process(repr(cell), "bench_imports", "compare_cell", cell, str(path), rounds,
                                           min_seconds, name)  # fmt: skip
        return Figure(cell, path.stat().st_size, ratio, read_all)
    finally:
        path.unlink()


def compare_cell(cell: Sequence[Any], path: str, rounds: int, min_seconds: float, clock_name: str) -> list[float]:
    """The import's and the import-and-read-every-step's ratios to ``json.loads`` of the cell's file at ``path``,
    measured in this process (``best``), timed by ``CLOCKS[clock_name]``; the import checked before it is timed."""
    shape, file = Cell(*cell), Path(path)
    importer = IMPORTERS[shape.format]
    run = importer(file)
    assert len(run.steps) == shape.turns // 2, (shape, len(run.steps))
    del run

    def read_all() -> Run:
        run = importer(file)
        list(run.steps)
        return run

    base, imported, every = best(
        rounds, lambda: baseline(file), lambda: importer(file), read_all, min_seconds=min_seconds,
        clock=CLOCKS[clock_name],
    )  # fmt: skip
    return [imported / base, every / base]


def grid(
    formats: Sequence[str] = FORMATS,
    turns: Sequence[int] = TURNS,
    result_bytes: Sequence[int] = RESULT_BYTES,
    tool_uses: Sequence[int] = TOOL_USES,
    beside: Sequence[bool] = BESIDE,
    rounds: int = ROUNDS,
    show: Callable[[Figure], None] = lambda figure: None,
    min_seconds: float = MIN_SECONDS,
    clock: Callable[[], float] = time.process_time,
) -> list[Figure]:
    """Every cell's figure, each measured in a fresh process of its own (``measure``) and shown as it is measured."""
    figures = []
    with tempfile.TemporaryDirectory() as name:
        for form in formats:
            for cell_turns in turns:
                for size in result_bytes:
                    for uses in tool_uses:
                        for text in beside:
                            cell = Cell(form, cell_turns, size, uses, text)
                            figure = measure(cell, Path(name), rounds, min_seconds, clock)
                            if figure is not None:
                                show(figure)
                                figures.append(figure)
    return figures


def _line(figure: Figure) -> str:
    cell = figure.cell
    return (
        f"{cell.format:>11} {cell.turns:>7,} {cell.result_bytes:>7,}B {cell.tool_uses:>4} "
        f"{'yes' if cell.beside else 'no':>6} {figure.file_bytes / 2**20:>8.1f}MiB {figure.ratio:>7.2f} "
        f"{figure.read_all:>10.2f}"
    )


def main(argv: Sequence[str] | None = None) -> list[Figure]:
    """Print every cell's ratios, then the worst of each format and of all against the target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--formats", nargs="+", choices=FORMATS, default=list(FORMATS))
    parser.add_argument("--turns", type=int, nargs="+", default=list(TURNS))
    parser.add_argument("--results", type=int, nargs="+", default=list(RESULT_BYTES), help="result sizes in bytes")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument(
        "--min-seconds", type=float, default=MIN_SECONDS, help="call a side again until it has run this long"
    )
    parser.add_argument("--clock", choices=CLOCKS, default="cpu", help="time by CPU time (default) or wall clock")
    args = parser.parse_args(argv)
    names = ("format", 11), ("turns", 7), ("result", 8), ("uses", 4), ("beside", 6), ("file", 11), ("import", 7)
    print(" ".join(f"{name:>{width}}" for name, width in names), f"{'+ steps':>10}")
    figures = grid(
        args.formats,
        args.turns,
        args.results,
        rounds=args.rounds,
        show=lambda figure: print(_line(figure), flush=True),
        min_seconds=args.min_seconds,
        clock=CLOCKS[args.clock],
    )
    for form in args.formats:
        mine = [figure for figure in figures if figure.cell.format == form]
        if mine:
            print(f"worst {form}: {_line(max(mine, key=lambda figure: figure.ratio)).strip()}")
    worst = max(figures, key=lambda figure: figure.ratio)
    verdict = "meets" if worst.ratio <= TARGET else "misses"
    print(f"worst: {worst.ratio:.2f} ({_line(worst).strip()}); {verdict} the {TARGET}x target")
    return figures


if __name__ == "__main__":
    main()
