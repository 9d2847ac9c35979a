"""Hand-made imported run files whose conversation was compacted: written as JSONL, read with ``load_run``.

Each step reads a file (a tool use answered by a 400-byte result); the last one, with
``answered_last=False``, is a final answer nothing answered, as a session that ended on it.
A compaction object names the step it comes before; its opening is a summary text block.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentrender import Run, load_run

OPENING = [{"type": "text", "text": "Port the parser to Rust."}]


def summary(step: int) -> list[dict[str, Any]]:
    """The opening a compaction before ``step`` restarts the conversation with."""
    return [
        {"type": "text", "text": f"This session is being continued from a previous conversation (up to step {step})."}
    ]


def compaction(step: int, trigger: str | None = "auto", **fields: Any) -> dict[str, Any]:
    """A header's compaction object before ``step``, with ``summary(step)`` as its opening."""
    return {"step": step, "opening": summary(step), "trigger": trigger, **fields}


def step_record(index: int, *, final: bool = False, answered: bool = True, lines: int = 66) -> dict[str, Any]:
    """Step ``index``: a read of ``f{index}.py``, its result ``lines`` lines long; or a final answer (``final``)."""
    if final:
        assistant = [{"type": "text", "text": "Done: the parser is ported."}]
        decision: dict[str, Any] = {"kind": "complete", "reason": "Done: the parser is ported."}
        sent: dict[str, Any] = {"tool_use_id": "", "assistant": assistant}
        if answered:
            sent["user"] = [{"type": "text", "text": "Thanks."}]
        return {"type": "step", "index": index, "decision": decision, "sent": sent}
    use = f"toolu_{index:03d}"
    assistant = [
        {"type": "text", "text": f"Reading f{index}.py."},
        {"type": "tool_use", "id": use, "name": "read_file", "input": {"path": f"f{index}.py"}},
    ]
    content = f"# f{index}.py\n" + "x = 1\n" * lines
    record: dict[str, Any] = {
        "type": "step",
        "index": index,
        "decision": {"kind": "tool_call", "tool": "read_file", "args": {"path": f"f{index}.py"}, "reason": ""},
        "sent": {"tool_use_id": use, "assistant": assistant},
    }
    if answered:
        record["sent"]["user"] = [{"type": "tool_result", "tool_use_id": use, "content": content}]
        record["observation"] = {"status": "ok", "content": content}
    return record


def compacted_records(
    steps: int, compactions: list[dict[str, Any]], *, answered_last: bool = False, lines: int = 66
) -> list[dict[str, Any]]:
    """The records of an imported run of ``steps`` steps (the last a final answer), ``compactions`` in its header."""
    header: dict[str, Any] = {
        "type": "run",
        "format": "agentrender.run/2",
        "run_id": "compacted",
        "goal": "Port the parser to Rust.",
        "opening_content": OPENING,
        "model": "claude-test",
    }
    if compactions:
        header["compactions"] = compactions
    records = [header]
    records += [
        step_record(i, final=i == steps - 1, answered=answered_last or i < steps - 1, lines=lines) for i in range(steps)
    ]
    return records


def write_records(path: Path, records: list[dict[str, Any]]) -> Path:
    """``records`` as a JSONL run file at ``path``."""
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


def compacted_run(
    folder: Path, steps: int, compactions: list[dict[str, Any]], *, answered_last: bool = False, lines: int = 66
) -> Run:
    """``compacted_records`` written to a run file in ``folder`` and loaded from it."""
    records = compacted_records(steps, compactions, answered_last=answered_last, lines=lines)
    return load_run(write_records(folder / "compacted.jsonl", records))
