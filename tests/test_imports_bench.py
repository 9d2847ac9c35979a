"""bench/bench_imports.py keeps working: it runs a tiny grid, printing every cell and the worst (no time asserted)."""

from collections.abc import Callable
from types import ModuleType

import pytest

from agentrender.imports import from_anthropic


def test_bench_imports_prints_every_cell_and_the_worst(
    capsys: pytest.CaptureFixture[str], import_bench: Callable[[str], ModuleType]
) -> None:
    """On 20- and 40-turn conversations with one round, each of the 8 cells is printed, then the worst against 2x."""
    bench = import_bench("bench_imports")
    cells = bench.main(["--turns", "20", "--turns", "40", "--rounds", "1"])
    out = capsys.readouterr().out
    assert len(cells) == 8 and {cell[0] for cell in cells} == {
        (turns, size, uses) for turns in (20, 40) for size in (60, 3072) for uses in (1, 3)
    }
    assert out.count("\n") == 10 and "worst: " in out and "the 2.0x target" in out


def test_the_benchmarks_conversation_is_what_its_cell_says(import_bench: Callable[[str], ModuleType]) -> None:
    """A cell's conversation has its turns, results of its size and its tool uses per turn, and imports cleanly."""
    bench = import_bench("bench_imports")
    body = bench.conversation(41, 3072, 3)
    messages = body["messages"]
    assert len(messages) == 41 and messages[-1]["role"] == "user"
    uses = [block for block in messages[1]["content"] if block["type"] == "tool_use"]
    results = messages[2]["content"]
    assert len(uses) == 3 and [r["tool_use_id"] for r in results] == [u["id"] for u in uses]
    texts = [r["content"][0]["text"] if isinstance(r["content"], list) else r["content"] for r in results]
    assert [len(text) for text in texts] == [3072] * 3
    run = from_anthropic(body)
    assert len(run.steps) == 20 and not run.warnings
