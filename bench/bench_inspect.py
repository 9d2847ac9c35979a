"""from_inspect on generated Inspect AI logs of growing samples, against Inspect's own read_eval_log of the same log.

    PYTHONPATH=. python bench/bench_inspect.py [--turns 50 200 800] [--repeat 3]

Each log holds one sample of ``turns`` tool calls (a tool use, its few-KiB result) and a
model event per call whose input is the conversation so far, as Inspect records an agent's
loop; the log is written by Inspect (``write_eval_log``, ``.eval``), from the committed
fixture's header. The baseline is ``read_eval_log(path, resolve_attachments="full")``; ``from_inspect``
starts with ``read_eval_log(path, resolve_attachments="core")`` (the providers' raw calls left as the
log keeps them), which is printed too, with the import's ratio to it: what the conversion, the run's
records and the check of each model event's input against the view at its step add to its own read.
Both grow with the square of the turns (each event's input holds every turn before it).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _gen import best_of

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
    write_eval_log(log.model_copy(update={"samples": [sample]}), str(path), format="eval")


def baseline(path: Path, attachments: str = "full") -> Any:
    """Inspect's own reader, every attachment read back (``"full"``), or as ``from_inspect`` calls it (``"core"``:
    not in the providers' raw calls, which stay as the log keeps them; Inspect's walk to leave them costs more)."""
    from inspect_ai.log import read_eval_log

    return read_eval_log(str(path), resolve_attachments=attachments)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, nargs="+", default=[50, 200, 800])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as directory:
        for turns in args.turns:
            path = Path(directory) / f"log-{turns}.eval"
            generate(path, turns)
            (run,) = from_inspect(path)
            assert len(run.steps) == turns + 1 and len(run.model_calls) == turns + 1 and not run.warnings
            read = best_of(args.repeat, lambda path=path: baseline(path))
            core = best_of(args.repeat, lambda path=path: baseline(path, "core"))
            imported = best_of(args.repeat, lambda path=path: from_inspect(path))
            print(
                f"{turns:>6} turns ({path.stat().st_size:,} bytes): read_eval_log {read:.3f}s "
                f"(as from_inspect reads it: {core:.3f}s), from_inspect {imported:.3f}s "
                f"({imported / core:.2f}x its own read), {imported / read:.2f}x"
            )


if __name__ == "__main__":
    main()
