"""from_inspect on generated Inspect AI logs of growing samples, against json.loads of the same log.

    PYTHONPATH=. python bench/bench_inspect.py [--turns 50 200 800] [--json-turns 50 200] [--repeat 5]
                                               [--clock cpu|wall] [--inspect]

Each log holds one sample of ``turns`` tool calls (a tool use, its few-KiB result) and a
model event per call whose input is the conversation so far, as Inspect records an agent's
loop; the log is written by Inspect (``write_eval_log``), from the committed fixture's header.
An ``.eval`` archive (zstandard members) keeps the inputs as references into the sample's
message pool and its long texts as attachments; a ``.json`` log keeps each input whole, so it
grows with the square of the turns (67 MB at 200 turns, about 1 GB at 800: ``--json-turns``
stops at 200). The baseline is ``json.loads`` of the log's JSON (of each JSON member of an
``.eval``, read from the archive): issue 22's target is ``from_inspect`` at most 1x it.
Inspect's own reader (``read_eval_log(path, resolve_attachments="core")``, which ``from_inspect``
used to start with) is timed beside it with ``--inspect``. Each side is timed by the process's CPU time
(``--clock wall`` for the wall clock), the best of ``--repeat`` calls, with the collector on; the calls of each
side are interleaved with the other's (one of each in turn), so both are timed under the machine's same load. Each log
is written here and checked, read and timed in a fresh process of its own (``compare_cell``, through
``in_fresh_process``): in one process a log met the memory the logs before it had freed and the objects Inspect's
writer left, and its figure moved with both, by up to 0.7 (bench/README.md, session 37).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _gen import CLOCKS, best_of, in_fresh_process

from agentrender.imports import from_inspect

FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "inspect" / "arith.eval"


def generate(path: Path, turns: int) -> None:
    """A log with one sample of ``turns`` tool calls and a model event for each reply, written by Inspect."""
    from inspect_ai.log import read_eval_log, write_eval_log
    from inspect_ai.model import ChatMessageAssistant, ChatMessageTool, ChatMessageUser, ModelOutput
    from inspect_ai.tool import ToolCall

    log = read_eval_log(str(FIXTURE))
    sample = log.samples[0]
    template = next(event for event in sample.events if event.event == "model")
    messages: list[Any] = [ChatMessageUser(content="List the files, one directory at a time.")]
    events = []
    for turn in range(turns + 1):
        if turn < turns:
            call = ToolCall(id=f"call_{turn}", function="bash", arguments={"cmd": f"ls -la /srv/dir{turn}"})
            reply = ChatMessageAssistant(content=f"Looking at directory {turn}.", tool_calls=[call])
        else:
            reply = ChatMessageAssistant(content="Done: every directory is listed.")
        output = ModelOutput(model="mockllm/model", choices=[{"message": reply, "stop_reason": "stop"}])
        events.append(template.model_copy(update={"input": list(messages), "input_refs": None, "output": output}))
        messages.append(reply)
        if turn < turns:
            listing = "".join(f"-rw-r--r-- 1 root root {n * 37} file_{turn}_{n}.txt\n" for n in range(60))
            messages.append(ChatMessageTool(content=listing, tool_call_id=f"call_{turn}", function="bash"))
    sample = sample.model_copy(update={"messages": messages, "events": events, "events_data": None})
    write_eval_log(log.model_copy(update={"samples": [sample]}), str(path), format=path.suffix[1:])


def baseline(path: Path) -> Any:
    """``json.loads`` of the log's JSON: a ``.json`` log's text, or each JSON member of an ``.eval`` archive."""
    if path.suffix == ".json":
        return json.loads(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        return [json.loads(archive.read(name)) for name in archive.namelist() if name.endswith(".json")]


def inspect_reader(path: Path) -> Any:
    """Inspect's own reader, as ``from_inspect`` used to start with it."""
    from inspect_ai.log import read_eval_log

    return read_eval_log(str(path), resolve_attachments="core")


def compare_cell(path: str, turns: int, repeat: int, clock_name: str, inspect: bool) -> list[float]:
    """The best times of ``json.loads`` of the log at ``path``, of ``from_inspect`` of it (and of Inspect's reader when
    ``inspect``), measured in this process by ``CLOCKS[clock_name]``; the import checked before it is timed."""
    log, clock = Path(path), CLOCKS[clock_name]
    (run,) = from_inspect(log)
    assert len(run.steps) == turns + 1 and len(run.model_calls) == turns + 1 and not run.warnings
    del run
    loads = imported = float("inf")
    for _ in range(repeat):  # one of each in turn: a load that comes and goes falls on both sides
        loads = min(loads, best_of(1, lambda: baseline(log), clock))
        imported = min(imported, best_of(1, lambda: from_inspect(log), clock))
    if not inspect:
        return [loads, imported]
    return [loads, imported, best_of(repeat, lambda: inspect_reader(log), clock)]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, nargs="*", default=[50, 200, 800], help="sizes of the .eval logs")
    parser.add_argument("--json-turns", type=int, nargs="*", default=[50, 200], help="sizes of the .json logs")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--clock", choices=CLOCKS, default="cpu", help="time by CPU time (default) or wall clock")
    parser.add_argument("--inspect", action="store_true", help="time Inspect's read_eval_log too")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as directory:
        cells = [(turns, "eval") for turns in args.turns] + [(turns, "json") for turns in args.json_turns]
        for turns, kind in cells:
            path = Path(directory) / f"log-{turns}.{kind}"
            generate(path, turns)
            label = f"{turns:>6} turns .{kind:<4} ({path.stat().st_size:>10,} bytes)"
            loads, imported, *read = in_fresh_process(
                label.strip(), "bench_inspect", "compare_cell", str(path), turns, args.repeat, args.clock, args.inspect
            )
            path.unlink()
            line = f"{label}: json.loads {loads:.3f}s, from_inspect {imported:.3f}s"
            if read:
                line += f", read_eval_log {read[0]:.3f}s ({read[0] / loads:.2f}x)"
            print(f"{line}: {imported / loads:.2f}x")


if __name__ == "__main__":
    main()
