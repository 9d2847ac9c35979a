"""The cyclic collector is paused around the work that builds a large run's objects, and always restored."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agentrender import _fast, frame, runfile, samples
from agentrender.cli import _check
from tests.test_runfile import CALL0, END, HEADER, STEP0, lines, write


@pytest.fixture(autouse=True)
def _collector_on() -> Iterator[None]:
    """Each test starts with the collector on, and leaves it as the test run had it."""
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_paused_turns_the_collector_off_for_the_block_and_back_on_after() -> None:
    with _fast.paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_what_the_block_keeps_is_collected_once_into_the_oldest_generation() -> None:
    """Leaving the block promotes what it made and kept, so the young passes never walk it again."""
    with _fast.paused():
        kept = [[] for _ in range(1000)]
    oldest = {id(thing) for thing in gc.get_objects(generation=2)}
    assert id(kept) in oldest and id(kept[0]) in oldest


def test_a_collector_that_was_off_collects_nothing_when_the_block_ends() -> None:
    gc.disable()
    with _fast.paused():
        kept = [[] for _ in range(1000)]
    assert id(kept) in {id(thing) for thing in gc.get_objects(generation=0)}


def test_paused_restores_the_collector_when_the_block_raises() -> None:
    with pytest.raises(KeyError), _fast.paused():
        raise KeyError("boom")
    assert gc.isenabled()


def test_paused_leaves_a_collector_that_was_off_off() -> None:
    gc.disable()
    with _fast.paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def _spy(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[bool]:
    """Replace ``owner.name`` by a wrapper that records whether the collector was on when it ran."""
    seen: list[bool] = []
    original: Callable[..., Any] = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, wrapper)
    return seen


def test_load_run_reads_with_the_collector_paused(tmp_path: Path) -> None:
    """No collection runs while a run is read, only the one that ends the pause; the collector is on after."""
    steps = [{**STEP0, "index": index} for index in range(500)]
    path = write(tmp_path, lines(HEADER, CALL0, *steps, END))
    generations: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            generations.append(info["generation"])

    gc.collect()
    gc.callbacks.append(seen)
    try:
        run = runfile.load_run(path)
    finally:
        gc.callbacks.remove(seen)
    assert generations == [1] and gc.isenabled() and len(run.steps) == 500


def test_load_run_restores_the_collector_when_the_file_is_bad(tmp_path: Path) -> None:
    with pytest.raises(runfile.RunFileError):
        runfile.load_run(write(tmp_path, lines(HEADER) + b"{not json\n"))
    assert gc.isenabled()


def test_steps_frame_builds_with_the_collector_paused(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _spy(monkeypatch, frame, "_steps_frame")
    steps = frame.steps_frame(samples.load("fix-failing-test"))
    assert seen == [False] and gc.isenabled() and len(steps) > 0


def test_check_finds_with_the_collector_paused(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _spy(monkeypatch, _check, "_findings")
    report = _check.check("fix-failing-test")
    assert seen == [False] and gc.isenabled() and report.error == "" and report.steps > 0


def test_frozen_factory_leaves_the_unset_fields_empty_until_a_slot_setter_fills_them() -> None:
    """A field named in ``unset`` is not there until filled once; the value stays frozen."""
    from dataclasses import FrozenInstanceError, dataclass

    @dataclass(frozen=True, slots=True, kw_only=True)
    class Pair:
        left: int
        right: str = ""

    make = _fast.frozen_factory(Pair, "left", unset=("right",))
    pair = make(1)
    with pytest.raises(AttributeError):
        _ = pair.right
    _fast.slot_setter(Pair, "right")(pair, "filled")
    assert pair == Pair(left=1, right="filled")
    with pytest.raises(FrozenInstanceError):
        pair.left = 2  # type: ignore[misc]
    with pytest.raises(ValueError, match="name every field"):
        _fast.frozen_factory(Pair, "left")


def test_bounded_memo_keeps_results_until_it_is_full() -> None:
    """keep() remembers a result while there is room and returns it either way."""
    memo: _fast.BoundedMemo[str, int] = _fast.BoundedMemo(2)
    assert [memo.keep(key, len(key)) for key in ("a", "bb", "ccc")] == [1, 2, 3]
    assert memo == {"a": 1, "bb": 2} and memo.get("ccc") is None
