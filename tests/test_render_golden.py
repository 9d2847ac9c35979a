"""Whole rendered conversations for hand-built runs, compared exactly with tests/golden/render_*.json."""

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from agentrender import Decision, Observation, Step, StepInput, render
from tests._support.runs import rejected


def call(index: int, tool: str, args: object, reason: str, content: str, summary: str, status: str = "ok") -> Step:
    return Step(
        index=index,
        decision=Decision(kind="tool_call", tool=tool, args=args, reason=reason),
        observation=Observation(status=status, content=content, summary=summary),
    )


def long_run() -> list[Step]:
    """Ten calls past a window of six: four summaries (one of them an error), six full results."""
    steps = []
    for i in range(10):
        status = "error" if i in (2, 8) else "ok"
        steps.append(
            call(
                i,
                "read_file",
                {"path": f"src/m{i}.py"},
                f"Read module {i}.",
                f"def f{i}():\n    return {i}\n",
                f"read src/m{i}.py (2 lines)",
                status,
            )
        )
    return steps


RUNS: dict[str, tuple[list[Step], render.Options]] = {
    "long_run": (long_run(), render.Options(opening="Fix the failing test in src/.")),
    "no_decision_in_window": (
        [
            call(0, "list_dir", {"path": "."}, "Start with the layout.", "src\ntests\n", "2 entries"),
            Step(index=1),  # interrupted while deciding: no decision, takes no place in the window
            call(2, "read_file", {"path": "src/a.py"}, "", "x = 1\n", "read src/a.py"),
            Step(index=3, observation=Observation(status="interrupted")),
            call(4, "run_tests", None, "Run them.", "1 failed", "1 failed, 3 passed", "error"),
            Step(index=5),  # the step being decided
        ],
        render.Options(opening="Make the tests pass.", recent_results=2),
    ),
    "no_tool_call": (
        [
            rejected(0, Decision(kind="no_tool_call", reason="I think the fix is to change line 3.")),
            rejected(1, Decision(kind="no_tool_call")),
            call(2, "read_file", {"path": "a.py"}, "Fine, reading.", "x = 1\n", "read a.py"),
        ],
        render.Options(opening="Fix a.py."),
    ),
    "truncated": (
        [
            rejected(0, Decision(kind="truncated", reason="Here is the whole new file: import os…")),
            call(1, "write_file", {"path": "a.py", "content": "x = 2\n"}, "Shorter.", "wrote 6 bytes", "wrote a.py"),
        ],
        render.Options(opening="Rewrite a.py."),
    ),
    "invalid_decision": (
        [
            rejected(
                0,
                Decision(kind="tool_call", tool="write_file", args={"content": "x"}, reason="Write it."),
                "args: 'path' is a required property.",
            ),
            rejected(1, Decision(kind="finish_now", reason="Done, I believe.")),
            rejected(2, Decision(kind="tool_call", tool="", reason="Calling."), ""),
        ],
        render.Options(opening="Write a.py."),
    ),
    "interrupted": (
        [
            call(0, "fetch_url", {"url": "https://example.com"}, "Fetch.", "partial", "s", "interrupted"),
            Step(index=1, decision=Decision(kind="tool_call", tool="read_file", args={"path": "a.py"})),
        ],
        render.Options(opening="Summarise example.com."),
    ),
    "out_of_band_args": (
        [
            Step(
                index=0,
                decision=Decision(kind="tool_call", tool="write_file", invalid_args='{"path": "a.py", "content": "x'),
                observation=Observation(status="error", content="arguments were not JSON", summary="bad args"),
            ),
            Step(
                index=1,
                decision=Decision(kind="tool_call", tool="write_file", invalid_args="/w==", invalid_base64=True),
                observation=Observation(status="error", content="arguments were not JSON", summary="bad args"),
            ),
        ],
        render.Options(opening="Write a.py."),
    ),
    "content_over_cap": (
        [
            call(0, "read_file", {"path": "big.txt"}, "Read.", "é€😀 " * 40, "summary é€😀 " * 10),
            call(1, "read_file", {"path": "big.txt"}, "Again.", "é€😀 " * 40, "short"),
        ],
        render.Options(opening="Read big.txt.", recent_results=1, result_bytes=40),
    ),
    "no_summary": (
        [
            call(0, "run_tests", {}, "Run.", "4 passed", ""),
            call(1, "run_tests", {}, "Again.", "4 passed", ""),
        ],
        render.Options(opening="Check the tests.", recent_results=1),
    ),
}


@pytest.mark.parametrize("name", sorted(RUNS))
def test_golden_conversation(name: str, golden: Callable[[str, str], None]) -> None:
    """The run renders to exactly the conversation stored in tests/golden/render_<name>.json."""
    steps, options = RUNS[name]
    conversation = [message.to_dict() for message in render.messages(StepInput(steps=steps), options)]
    golden(f"render_{name}.json", json.dumps(conversation, indent=2, ensure_ascii=False) + "\n")


def test_golden_files_all_have_a_run() -> None:
    """Every tests/golden/render_*.json belongs to a run here, so no stale golden file lingers."""
    stored = {path.name for path in (Path(__file__).parent / "golden").glob("render_*.json")}
    assert stored == {f"render_{name}.json" for name in RUNS}
