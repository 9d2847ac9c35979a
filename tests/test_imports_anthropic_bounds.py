"""An Anthropic import keeps what it reads, in bounded memory (issue 26, points 5 and 6).

Alike warnings are one warning with a count as they are made; a call log's repeated
conversation is held once; a call log's and its messages' fields beyond what the run's
records hold are kept in the run's ``source`` and written with it.
"""

from __future__ import annotations

import gc
import gzip
import json
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from agentrender import load_run, write_run
from agentrender.imports import from_anthropic
from agentrender.runfile import RunWarning, RunWarnings

T = TypeVar("T")


def _reply(text: str) -> dict[str, Any]:
    return {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "m", "stop_reason": "end_turn",
        "content": [{"type": "text", "text": text}], "usage": {"input_tokens": 3, "output_tokens": 1},
    }  # fmt: skip


def _lines(values: list[Any]) -> str:
    return "".join(json.dumps(value) + "\n" for value in values)


def test_alike_warnings_are_one_with_a_count_as_they_are_made() -> None:
    """A warning of the same file and text as one held adds to its count and keeps its first line."""
    warnings = RunWarnings([RunWarning(line=3, text="odd", path="f")])
    warnings.append(RunWarning(line=9, text="odd", path="f"))
    warnings.extend([RunWarning(line=5, text="other", path="f"), RunWarning(line=12, text="odd", path="f")])
    assert [(w.line, w.text, w.count) for w in warnings] == [(3, "odd", 3), (5, "other", 1)]
    assert str(warnings[0]) == "f:3: odd (and 2 more record(s) like it)"


def _peak(work: Callable[[], T]) -> tuple[T, int]:
    """What ``work`` returns, and the most memory Python's allocator held while it ran (``tracemalloc``)."""
    gc.collect()
    tracemalloc.start()
    try:
        made = work()
        return made, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_recording_of_many_records_that_are_not_calls_gives_one_warning_as_it_reads(tmp_path: Path) -> None:
    """100,000 records that are not calls, gzip-compressed: one warning naming the first line and counting all, and
    the import never holds more than a few MB (a warning a record, or the file's values, held 22 to 60 MB)."""
    request = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "go"}]}
    records = [{"type": "run", "format": "agentrender.run/1", "run_id": "r", "goal": "go"}]
    records.append({"type": "model_call", "step": 0, "request": request, "response": _reply("done")})
    records.extend({"type": "progress", "n": n} for n in range(100_000))
    path = tmp_path / "rec.jsonl.gz"
    path.write_bytes(gzip.compress(_lines(records).encode()))
    run, peak = _peak(lambda: from_anthropic(path))
    (warning,) = run.warnings
    assert warning.line == 3 and warning.count == 100_000 and "'progress' record is not a call" in warning.text
    assert peak < 5_000_000, peak


def _growing_log(calls: int, text_bytes: int) -> str:
    """A log of ``calls`` calls, each request holding the conversation so far (two messages a call)."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Fix the test."}]
    lines = []
    for n in range(calls):
        reply = _reply(f"Step {n}: " + "x" * text_bytes)
        lines.append({"request": {"model": "m", "max_tokens": 64, "messages": list(messages)}, "response": reply})
        messages += [{"role": "assistant", "content": reply["content"]}, {"role": "user", "content": "y" * text_bytes}]
    return _lines(lines)


def test_a_call_log_holds_its_repeated_conversation_once(tmp_path: Path) -> None:
    """A 300-call log (each call repeating the conversation, 18 MB) imports within its own size in memory at peak,
    where holding every call's copy of the conversation as read took about four times the file."""
    path = tmp_path / "calls.jsonl"
    path.write_text(_growing_log(300, 200), encoding="utf-8")
    size = path.stat().st_size
    run, peak = _peak(lambda: from_anthropic(path))
    assert len(run.model_calls) == 300 and len(run.steps) == 300
    assert peak < size, (peak, size)


def test_a_call_logs_fields_and_its_messages_fields_are_written_and_loaded_back(tmp_path: Path) -> None:
    """A call's timestamp, trace_id, cost and error object, and a message's name, id and timestamp, are in the
    run's source after the import, and after writing the run and loading it back."""
    first = {"role": "user", "content": "go", "name": "alice", "id": "m0", "timestamp": "2026-01-05T09:00:00Z"}
    answer = {"role": "assistant", "content": "ok", "id": "m1"}
    calls = [
        {"request": {"model": "m", "messages": [first]}, "response": _reply("ok"), "timestamp": "2026-01-05T09:00:01Z",
         "trace_id": "t-1", "cost": 0.002},
        {"request": {"model": "m", "messages": [first, answer, {"role": "user", "content": "more"}]},
         "error": {"type": "overloaded_error", "message": "Overloaded"}, "trace_id": "t-2"},
    ]  # fmt: skip
    path = tmp_path / "calls.jsonl"
    path.write_text(_lines(calls), encoding="utf-8")
    run = from_anthropic(path)
    out = tmp_path / "run.jsonl"
    write_run(run, out)
    for source in (run.header["source"], load_run(out).header["source"]):
        assert source["entries"] == [
            {"call": 0, "line": 1, "fields": {"timestamp": "2026-01-05T09:00:01Z", "trace_id": "t-1", "cost": 0.002}},
            {"call": 1, "line": 2, "fields": {"error": {"type": "overloaded_error", "message": "Overloaded"},
                                               "trace_id": "t-2"}},
        ]  # fmt: skip
        assert source["message_fields"] == [
            {"message": 0, "fields": {"name": "alice", "id": "m0", "timestamp": "2026-01-05T09:00:00Z"}},
            {"message": 1, "fields": {"id": "m1"}},
        ]


def test_a_request_bodys_message_fields_are_kept() -> None:
    """A request body given in memory keeps its messages' fields beyond role and content in the source."""
    run = from_anthropic({"messages": [{"role": "user", "content": "go", "name": "bob"}]})
    assert run.header["source"]["message_fields"] == [{"message": 0, "fields": {"name": "bob"}}]
