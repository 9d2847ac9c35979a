"""from_claude_code and from_openai on generated conversations, as a ratio to json.loads of the same file.

    PYTHONPATH=. python bench/bench_claude_code.py [--turns 1000 5000 10000] [--runs 3]

A Claude Code session of N tool-using turns is written as Claude Code writes it (each reply
in two records sharing ``message.id``, each result with its ``toolUseResult``, a system record
between prompts); an OpenAI-style chat of N turns as one ``.json`` request. The baseline is
``json.loads`` of every line (or of the document): the least any importer must do. Target
(issue 12): at most 2x for a 10,000-turn conversation.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _gen import best_of

from agentrender.imports import from_claude_code, from_openai

SESSION = "0b1e6a52-3c7d-4f19-8a2e-5d6c7b8a9f01"


def _uuid(n: int) -> str:
    return f"{n:08x}-0000-4000-8000-{n:012x}"


def session_lines(turns: int) -> list[dict[str, Any]]:
    """A Claude Code transcript: a prompt, then ``turns`` replies (text + tool use) each answered by a result."""
    base = {"isSidechain": False, "userType": "external", "cwd": "/w", "sessionId": SESSION, "version": "2.0.76"}
    lines: list[dict[str, Any]] = [
        {**base, "type": "user", "parentUuid": None, "uuid": _uuid(0), "message": {"role": "user", "content": "go"}}
    ]
    n = 0
    for turn in range(turns):
        message = {"model": "claude-sonnet-4-5", "id": f"msg_{turn}", "type": "message", "role": "assistant"}
        usage = {"input_tokens": 4, "cache_read_input_tokens": 1000 + turn, "output_tokens": 30}
        text = {"type": "text", "text": f"Step {turn}: reading the next file."}
        use = {"type": "tool_use", "id": f"toolu_{turn}", "name": "Read", "input": {"file_path": f"/w/f{turn}.py"}}
        result = "".join(f"{i:6}\u2192line {i} of file {turn}\n" for i in range(1, 40))
        for block in (text, use):
            lines.append(
                {**base, "type": "assistant", "parentUuid": _uuid(n), "uuid": _uuid(n + 1),
                 "message": {**message, "content": [block], "usage": usage}, "requestId": f"req_{turn}"}
            )  # fmt: skip
            n += 1
        lines.append(
            {**base, "type": "user", "parentUuid": _uuid(n), "uuid": _uuid(n + 1),
             "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{turn}",
                                                       "content": result}]},
             "toolUseResult": {"type": "text", "file": {"filePath": f"/w/f{turn}.py", "numLines": 39}}}
        )  # fmt: skip
        n += 1
    return lines


def chat(turns: int) -> dict[str, Any]:
    """An OpenAI-style request of ``turns`` tool calls, each answered by a tool message."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": "s"}, {"role": "user", "content": "go"}]
    for turn in range(turns):
        call = {"id": f"call_{turn}", "type": "function",
                "function": {"name": "read", "arguments": json.dumps({"path": f"/w/f{turn}.py"})}}  # fmt: skip
        messages.append({"role": "assistant", "content": f"Step {turn}.", "tool_calls": [call]})
        result = "".join(f"{i:6}\u2192line {i} of file {turn}\n" for i in range(1, 40))
        messages.append({"role": "tool", "tool_call_id": f"call_{turn}", "content": result})
    return {"model": "gpt-4o", "messages": messages}


def baseline_lines(path: Path) -> int:
    """json.loads of each line, keeping nothing."""
    count = 0
    with open(path, "rb") as file:
        for line in file:
            json.loads(line)
            count += 1
    return count


def measure(turns: int, runs: int, folder: Path) -> tuple[float, float]:
    """``(claude code ratio, openai ratio)`` for conversations of ``turns`` turns."""
    session = folder / f"{SESSION}.jsonl"
    session.write_text("".join(json.dumps(r) + "\n" for r in session_lines(turns)), encoding="utf-8")
    base = best_of(runs, lambda: baseline_lines(session))
    claude = best_of(runs, lambda: from_claude_code(session))
    document = folder / "chat.json"
    document.write_text(json.dumps(chat(turns)), encoding="utf-8")
    base_chat = best_of(runs, lambda: json.loads(document.read_bytes()))
    openai = best_of(runs, lambda: from_openai(document))
    return claude / base, openai / base_chat


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, nargs="+", default=[1000, 5000, 10_000])
    parser.add_argument("--runs", type=int, default=3)
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as name:
        for turns in options.turns:
            claude, openai = measure(turns, options.runs, Path(name))
            print(
                f"{turns:>7} turns  from_claude_code {claude:5.2f}x json.loads   from_openai {openai:5.2f}x json.loads"
            )


if __name__ == "__main__":
    main()
