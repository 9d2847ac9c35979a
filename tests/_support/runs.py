"""Runs and steps built in memory: every kind of step, long runs, hostile text, a rejected decision."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from agentrender import ContentBlock, Decision, ModelResponse, Observation, Step
from agentrender.runfile import ModelCall, Run
from agentrender.views import View, Views

SAMPLE_RUNS = Path(__file__).resolve().parents[2] / "sample_runs"

HOSTILE = (
    "<script>window.__pwned = 1</script>"
    '<img src=x onerror="window.__pwned = 2">'
    '<a href="javascript:window.__pwned = 3">click</a>'
    "</style><style>body{display:none}</style>"
    "<div><b>unbalanced <i>tags"
    "\u202eevil\u202c \u2066isolate"
    "</textarea></pre>]]>-->"
)
"""Text a model or a tool might write that must never become markup."""

UNSEEN = "tags:\U000e0069\U000e0067\U000e006e\U000e006f\U000e0072\U000e0065 half a pair:\ud800 end"
"""Text a reader could not see raw: ASCII smuggled as tag characters (U+E0069...), and a lone surrogate."""
UNSEEN_RAW = ("\U000e0069", "\ud800")
"""Characters of ``UNSEEN`` no output may hold raw."""
UNSEEN_SHOWN = ("[U+E0069]", "[U+E0065]", "[U+D800]")
"""The markers a page shows for them."""


def call(tool: str, reason: str = "", **args: object) -> Decision:
    """A tool_call decision."""
    return Decision(kind="tool_call", tool=tool, args=args or None, reason=reason)


def rejected(index: int, decision: Decision, summary: str | None = None) -> Step:
    """A step whose decision the driver rejected: an ``invalid_decision`` observation, by default naming the kind."""
    if summary is None:
        summary = f"unknown decision kind {decision.kind!r}"
    return Step(index=index, decision=decision, observation=Observation(status="invalid_decision", summary=summary))


def every_kind_run(*, content: str = "line one\nline two\n" * 40, header: dict[str, object] | None = None) -> Run:
    """A run with a step of every kind the renderer knows, and a model call for some."""
    steps = [
        Step(
            index=0,
            decision=call("read_file", "Look at the test first.", path="tests/test_a.py"),
            observation=Observation(content=content, summary="read tests/test_a.py (80 lines)"),
        ),
        Step(
            index=1,
            decision=Decision(kind="tool_call", tool="run_tests", args={}, reason="Run it."),
            observation=Observation(status="error", content="FAILED test_a - assert 1 == 2\n" * 30, summary="1 failed"),
        ),
        Step(index=2, decision=Decision(kind="no_tool_call", reason="I think it's fine.")),
        Step(index=3, decision=Decision(kind="truncated", reason="")),
        Step(
            index=4,
            decision=Decision(kind="tool_call", tool="write_file", invalid_args="{path: a.py"),
            observation=Observation(status="invalid_decision", summary="arguments are not JSON."),
        ),
        Step(index=5),
        Step(
            index=6,
            decision=call("write_file", "Fix it.", path="a.py", text="x = 2\n"),
            observation=Observation(status="interrupted"),
        ),
        Step(index=7, decision=call("list_dir", "", path=".")),
        Step(
            index=8,
            decision=call("read_file", "Again.", path="a.py"),
            observation=Observation(content="x = 2\n" * 5000, summary=""),
        ),
        Step(
            index=9,
            decision=Decision(kind="complete", reason="Done."),
            observation=Observation(status="invalid_decision", summary="complete is not a decision an agent makes"),
        ),
        Step(index=10, decision=Decision(kind="tool_call", tool="", reason="half a call")),
        Step(
            index=11,
            decision=call("run_tests", "Check."),
            observation=Observation(content="1 passed", summary="1 passed"),
        ),
        Step(
            index=12,
            decision=call("search", "Find more.", query="TODO"),
            observation=Observation(content="a.py:1: TODO\n" * 20, summary="20 matches"),
        ),
        Step(index=13),
    ]
    reply = ModelResponse(
        content=(
            ContentBlock(type="thinking", text="Let me think.", signature="sig"),
            ContentBlock(type="text", text="Run it."),
            ContentBlock(type="tool_use", tool_use_id="toolu_1", name="run_tests", input={}),
        ),
        stop_reason="tool_use",
        model="claude-test",
    )
    calls = [ModelCall(step=1, response=reply, request_key="")]
    return Run(
        header=header
        or {
            "type": "run",
            "run_id": "r-every",
            "goal": "Fix the failing test.",
            "opening": "Fix the failing test in tests/test_a.py.",
            "system": "You are careful.",
            "model": "claude-test",
            "tools": [{"name": "read_file", "description": "Read a file.", "input_schema": {"type": "object"}}],
        },
        steps=tuple(steps),
        model_calls=tuple(calls),
    )


SHOWN_KINDS = (
    "opening",
    "reason",
    "no_call",
    "tool_use",
    "result",
    "cut",
    "summary",
    "nudge_no_tool_call",
    "nudge_truncated",
    "nudge_invalid",
    "interrupted",
)
"""The kinds of block ``every_kind_view`` shows in its turns: every one of ``BLOCK_KINDS`` but a hook's block."""


def every_kind_view() -> View:
    """The view after the last step of ``every_kind_run``, under options that show every one of ``SHOWN_KINDS``."""
    run = every_kind_run()
    return Views(run, run.options(recent_results=5, result_bytes=600)).at(None)


def long_run(n: int, *, every: int = 7) -> Run:
    """``n`` steps of calls, with a skipped step every ``every`` and an occasional failure."""
    steps = []
    for index in range(n):
        if index % every == every - 1:
            steps.append(Step(index=index))
            continue
        steps.append(
            Step(
                index=index,
                decision=call("read_file", f"step {index}", path=f"f{index}.py"),
                observation=Observation(
                    status="error" if index % 5 == 0 else "ok",
                    content=f"content of f{index}.py\n" * (1 + index % 9),
                    summary=f"read f{index}.py" if index % 4 else "",
                ),
            )
        )
    return Run(header={"run_id": "r-long", "goal": "Read everything."}, steps=tuple(steps))


def hostile_run(text: str = HOSTILE) -> Run:
    """A run where every piece of text a model or a tool wrote is ``text``, hostile by default."""
    steps = [
        Step(
            index=0,
            decision=Decision(kind="tool_call", tool=text, args={text: text}, reason=text),
            observation=Observation(status="error", content=text * 3, summary=text),
        ),
        Step(
            index=1,
            decision=Decision(kind="tool_call", tool="t", invalid_args=text),
            observation=Observation(status="invalid_decision", summary=text),
        ),
        Step(index=2, decision=Decision(kind=text, reason=text)),
        Step(index=3),
        Step(
            index=4,
            decision=Decision(kind="tool_call", tool="t", reason=text),
            observation=Observation(content=text, summary=text),
        ),
    ]
    reply = ModelResponse(
        content=(
            ContentBlock(type="thinking", text=text, signature=text),
            ContentBlock(type="text", text=text),
            ContentBlock(type="tool_use", tool_use_id=text, name=text, input={text: text}),
            ContentBlock(type="tool_use", tool_use_id="b", name=text, input=text),
        ),
        stop_reason=text,
        model=text,
    )
    return Run(
        header={
            "run_id": text,
            "goal": text,
            "opening": text,
            "system": text,
            "model": text,
            "tools": [{"name": text, "description": text}],
        },
        steps=tuple(steps),
        model_calls=(ModelCall(step=0, response=reply, request_key=text),),
        end={"type": "end", "status": text, "reason": text},
        warnings=(text,),
    )


RETRIED_TRIES = (
    {"at_ms": 0, "latency_ms": 1520.5, "error": {"type": "OverloadedError", "message": "Overloaded", "status": 529}},
    {"at_ms": 2000, "latency_ms": 30, "error": {"type": "APIConnectionError", "message": "Connection error."}},
)
"""The tries a recording holds of a call the SDK retried twice, 1,550.5 ms of them together."""


def retried_run_file(path: Path, tries: Sequence[Mapping[str, Any]] = RETRIED_TRIES, *, known: bool = True) -> Path:
    """The sample fix-failing-test written to ``path``, its model call for step 1 holding ``tries`` as the SDK
    recorder writes them (``retried``, left out when none), and ``"tries_known": false`` when not ``known``."""
    records = [json.loads(line) for line in (SAMPLE_RUNS / "fix-failing-test.jsonl").read_text().splitlines()]
    for record in records:
        if record["type"] == "model_call" and record["step"] == 1:
            if tries:
                record["retried"] = list(tries)
            if not known:
                record["tries_known"] = False
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path
