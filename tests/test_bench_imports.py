"""The importers' benchmark keeps working: it runs on a tiny size and what it generates imports (no timing asserted)."""

import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from agentrender.imports import from_claude_code, from_openai


@pytest.fixture
def bench(import_bench: Callable[[str], ModuleType]) -> ModuleType:
    return import_bench("bench_claude_code")


def test_the_generated_conversations_import_with_every_turn(bench: ModuleType, tmp_path: Path) -> None:
    """A generated session and chat of 5 turns import as runs of 5 tool-using steps with no warning."""
    session = tmp_path / "s.jsonl"
    session.write_text("".join(json.dumps(r) + "\n" for r in bench.session_lines(5)), encoding="utf-8")
    (run,) = from_claude_code(session)
    assert [s.decision.tool for s in run.steps] == ["Read"] * 5 and run.warnings == ()
    chat = tmp_path / "c.json"
    chat.write_text(json.dumps(bench.chat(5)), encoding="utf-8")
    assert [s.decision.tool for s in from_openai(chat).steps] == ["read"] * 5


def test_bench_main_prints_both_ratios(bench: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    """main() runs end to end on a tiny size and prints both ratios."""
    bench.main(["--turns", "3", "--runs", "1"])
    out = capsys.readouterr().out
    assert "from_claude_code" in out and "from_openai" in out
