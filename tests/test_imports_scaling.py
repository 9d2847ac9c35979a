"""Importers cost what their input costs: no step of an import is quadratic in the input (issue 26, point 4).

No time is asserted here: a quadratic step is caught by counting the work it does, and
``bench/bench_scaling.py`` (run below on a tiny size) times every importer at n, 2n and 4n.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agentrender.imports.conversation import Where, unanswered_warning


class _Id(str):
    """A tool use's id that counts how often it is compared for equality."""

    compared = 0

    def __eq__(self, other: object) -> bool:
        _Id.compared += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def test_tool_uses_answered_in_reverse_are_matched_in_linear_work() -> None:
    """2,000 tool uses answered in reverse order: their ids are compared a few times each, not once per pair."""
    uses = [_Id(f"toolu_{i}") for i in range(2000)]
    answered = [_Id(use) for use in reversed(uses)]
    _Id.compared = 0
    assert unanswered_warning(Where("<x>"), 1, list(uses), answered[:-1]) is not None  # the first use left out
    assert _Id.compared < 10 * len(uses)


def test_an_unanswered_use_is_still_named() -> None:
    """The warning names exactly the uses no result answers."""
    warning = unanswered_warning(Where("f.json", 3, "messages"), 1, ["a", "b", "c"], ["c", "a"])
    assert (
        warning is not None
        and str(warning) == "f.json:3: messages[1]: tool use(s) b have no tool_result in the next turn"
    )
    assert unanswered_warning(Where("f.json"), 1, ["a", "b"], ["b", "a"]) is None


@pytest.mark.slow
def test_bench_scaling_prints_every_shape_and_the_worst(run_bench: Callable[..., str]) -> None:
    """Run as a user runs it on tiny sizes: every importer's shapes, two doublings each, then the worst growth."""
    out = run_bench("bench_scaling", "--scale", "0.01", "--rounds", "1")
    lines = out.splitlines()
    for shape in ("anthropic/reverse", "claude_code/chain", "claude_code/roots", "claude_code/compactions",
                  "openai/reverse", "inspect/json", "runfile/notes"):  # fmt: skip
        assert sum(line.startswith(shape + " ") for line in lines) == 2, shape
    assert lines[-1].startswith("worst: ") and "(limit 2.6)" in lines[-1]


def test_a_call_log_of_many_sessions_finds_each_ones_calls_in_linear_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """2,000 sessions of Claude Code in one log open alike (the same 20 KB of reminders, then their prompts): each
    call's conversation is found without comparing its opening with every other session's, as a bucket of openings
    alike once did (4 s at 2,000 sessions, 17 s at 4,000)."""
    from agentrender.imports import anthropic

    compared = 0
    same = anthropic._same

    def counted(message: object, other: object) -> bool:
        nonlocal compared
        compared += 1
        return same(message, other)

    monkeypatch.setattr(anthropic, "_same", counted)
    reminder = {"type": "text", "text": "<system-reminder>" + "x" * 20_000 + "</system-reminder>"}
    entries = [
        anthropic.Entry(
            n, {"messages": [{"role": "user", "content": [reminder, {"type": "text", "text": f"do {n}"}]}]}, None, {}
        )
        for n in range(2000)
    ]
    assert anthropic._conversations(entries)[0] == [1999]  # no conversation grew: the later of the longest
    assert compared < 2 * len(entries)
