"""The speed tricks keep their promises: the collector is paused while a large run loads or is checked.

What a user can see of the pause is what ``gc`` itself reports: whether the collector is on,
and (through ``gc.callbacks``) every collection that starts. A collection that starts while
the collector is off is one asked for by name; one that starts while it is on is the
collector's own, triggered by the objects being made. Which generation an object is in is
what ``gc.get_objects`` lists. The last tests state what
``frozen_factory``, ``BoundedMemo``, ``fast_json_encoder`` and ``digit_shapes`` promise the
modules that use them.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import gc
import io
import json
import re
import subprocess
import sys
import time
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentrender import _fast, load_run, render
from agentrender.runfile import RunFileError, write_run
from tests._support.examples import examples
from tests._support.runs import long_run

STEPS = 1_000
"""Enough steps that building their objects sets off the collector many times over when it is on."""


@pytest.fixture(autouse=True)
def _collector_on() -> Iterator[None]:
    """Each test starts with the collector on, and leaves it as the test run had it."""
    was = gc.isenabled()
    gc.enable()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


@pytest.fixture(scope="module")
def large_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run file of ``STEPS`` steps."""
    run = long_run(STEPS)
    path = tmp_path_factory.mktemp("large") / "large.jsonl"
    write_run(dataclasses.replace(run, header={"type": "run", **run.header}), path)
    return path


Collection = tuple[int, bool, int]
"""A collection that started: its generation, whether the collector was on, and how much output was written."""


@contextlib.contextmanager
def collections(output: io.StringIO | None = None) -> Iterator[list[Collection]]:
    """Every collection that starts in the block, as ``Collection``s."""
    seen: list[Collection] = []

    def started(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            seen.append((info["generation"], gc.isenabled(), len(output.getvalue()) if output else 0))

    gc.callbacks.append(started)
    try:
        yield seen
    finally:
        gc.callbacks.remove(started)


def automatic(seen: list[Collection]) -> list[Collection]:
    """The collections the collector started on its own."""
    return [collection for collection in seen if collection[1]]


def quietly(call: Callable[[], object]) -> None:
    """Run ``call`` once with its output thrown away: its imports and first-use set-up are then done."""
    with contextlib.redirect_stdout(io.StringIO()):
        call()


def test_a_collector_that_was_off_stays_off_and_collects_nothing(large_run: Path) -> None:
    """With the collector off, load_run starts no collection at all and leaves it off."""
    gc.disable()
    with collections() as seen:
        load_run(large_run)
    assert seen == []
    assert not gc.isenabled()


def test_load_run_restores_the_collector_when_the_file_is_bad(tmp_path: Path) -> None:
    """A run file load_run refuses leaves the collector on."""
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"type": "run"}\n{not json\n')
    with pytest.raises(RunFileError):
        load_run(path)
    assert gc.isenabled()


def test_render_messages_renders_a_large_run_without_the_collector_running() -> None:
    """While render.messages renders a large run no collection of the collector's own starts, and it is on after."""
    run = long_run(STEPS)
    with collections() as seen:
        conversation = render.messages(run.step_input(), render.Options(opening="Go."))
    assert len(conversation) == 1 + 2 * sum(step.decision is not None for step in run.steps)
    assert automatic(seen) == [], seen
    assert gc.isenabled()


def _walked_while(call: Callable[[], Any]) -> tuple[Any, list[set[int]], list[int]]:
    """What ``call`` returns, the young generations as each collection during it started, and the generation of each
    collection the collector started on its own (while on)."""
    walked: list[set[int]] = []
    own: list[int] = []

    def started(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            walked.append(young())
            if gc.isenabled():
                own.append(info["generation"])

    gc.collect()
    gc.callbacks.append(started)
    try:
        return call(), walked, own
    finally:
        gc.callbacks.remove(started)


def test_worth_promoting_is_a_young_generation_of_objects_or_more() -> None:
    """A block is worth promoting once it makes as many objects as bring the youngest generation's collection."""
    threshold = gc.get_threshold()[0]
    assert _fast.worth_promoting(threshold) and not _fast.worth_promoting(threshold - 1)


@pytest.mark.parametrize(
    "name",
    ["python-to-rust-port.claude-code.jsonl", "python-to-rust-port.messages.json", "stock-lookup.openai-chat.json"],
)
def test_an_imported_run_holds_no_cycle_so_dropping_it_frees_it_at_once(name: str) -> None:
    """An imported conversation's run, every step read, is freed by reference counting when dropped: no garbage
    cycle is left for the collector. A process that imports file after file does nearly all its work inside the
    collector's pauses, where no full collection comes; a cycle (the conversation's steps and the views of them,
    once) kept each run's objects, 1,200 of them for 200 turns, until one did."""
    from agentrender import samples
    from agentrender.imports import load

    path = samples.imports_folder() / name
    load(path)  # first-use set-up (imports, caches) is not the run's
    gc.collect()
    gc.disable()
    try:
        run = load(path)
        assert list(run.steps) and dict(run.step_records)  # every step and record made
        del run
        assert gc.collect() == 0
    finally:
        gc.enable()


def young() -> set[int]:
    """The ids of the objects in the collector's two young generations."""
    return {id(thing) for generation in (0, 1) for thing in gc.get_objects(generation=generation)}


def test_promote_moves_what_a_paused_block_made_to_the_oldest_generation_with_no_collection() -> None:
    """In a block of ``paused(promoting=True)``, ``promote`` puts what the block made in the oldest generation,
    starting no collection of the collector's own; the collector is on again after the block."""
    with _fast.paused(promoting=True):
        made = [{"record": [n]} for n in range(STEPS)]
        with collections() as seen:
            _fast.promote()
        assert automatic(seen) == []
        assert id(made) not in young() and id(made[-1]) not in young()
        assert any(thing is made for thing in gc.get_objects(generation=2))
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_promote_leaves_the_collector_alone_outside_a_pause_and_with_frozen_objects() -> None:
    """With the collector on, in a block that is not ``promoting``, off by the caller's own choice, or objects of the
    program frozen, ``promote`` moves nothing (unfreezing would move the program's frozen objects too)."""
    gc.collect()
    made = [{"record": [n]} for n in range(10)]
    _fast.promote()
    assert id(made) in young()
    with _fast.paused():
        made = [{"record": [n]} for n in range(10)]
        _fast.promote()
        assert id(made) in young()
    gc.disable()
    with _fast.paused(promoting=True):
        made = [{"record": [n]} for n in range(10)]
        _fast.promote()
        assert id(made) in young()
    gc.enable()
    gc.freeze()
    try:
        with _fast.paused(promoting=True):
            made = [{"record": [n]} for n in range(10)]
            _fast.promote()
            assert id(made) in young() and gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


class _Node:
    """An object that can be in a cycle and be watched by a weak reference."""

    me: _Node


def test_promote_never_moves_garbage_made_before_its_block() -> None:
    """A promoting block collects the young generations as it begins: a cycle of garbage made before it is freed,
    not moved to the oldest generation, where only a full collection would free it."""
    gc.collect()
    node = _Node()
    node.me = node
    freed = weakref.ref(node)
    del node
    with _fast.paused(promoting=True):
        made = [{"record": [n]} for n in range(STEPS)]
        _fast.promote()
    assert freed() is None and id(made) not in young()


def test_promote_keeps_the_clock_of_full_collections() -> None:
    """``gc.freeze`` zeroes the collector's counts; ``promote`` winds them back, so the collections of the middle
    generation since the last full one (what brings the next) still count."""
    gc.collect()
    for _ in range(4):
        gc.collect(1)
    gc.collect(0)
    assert gc.get_count()[1:] == (1, 4)
    with _fast.paused(promoting=True):  # its start is a collection of the middle generation: the fifth
        made = [{"record": [n]} for n in range(STEPS)]
        _fast.promote()
        assert gc.get_count()[1:] == (0, 5) and id(made) not in young()


_FILE_AFTER_FILE = """
import gc, io, sys
from pathlib import Path
from agentrender import load_run
from agentrender.cli import main
from agentrender.frame import steps_frame
from agentrender.imports import from_claude_code
from agentrender.views import Views

transcript, run_file = Path(sys.argv[1]), Path(sys.argv[2])

def explore(run):
    steps_frame(run)
    Views(run).at(None)._repr_html_()

for load in (lambda: from_claude_code(transcript)[0], lambda: load_run(run_file)):
    for round in range(80):
        explore(load())
        main(["steps", str(run_file)], stdout=io.StringIO(), stderr=io.StringIO())
        if round == 20:
            settled = len(gc.get_objects())
    print(len(gc.get_objects()) - settled)
"""


@pytest.mark.slow
def test_a_process_that_loads_file_after_file_keeps_no_garbage(tmp_path: Path, import_bench: Any) -> None:
    """Importing transcripts or loading run files one after another, and exploring each (frame, view, a command),
    keeps the collector's full collections coming, so the garbage cycles of frames and views are freed: the objects
    it tracks stay about as many. (``promote`` once zeroed the collector's counts on every load: no full collection
    came, and the 2,400 cut files of the attack tests grew one process past 200 MB.)"""
    bench = import_bench("bench_imports")
    transcript = tmp_path / "session.jsonl"
    transcript.write_text("".join(bench.claude_code_lines(bench.conversation(200, 60, 1))), encoding="utf-8")
    run_file = tmp_path / "run.jsonl"
    run = long_run(200)
    write_run(dataclasses.replace(run, header={"type": "run", **run.header}), run_file)
    child = subprocess.run(
        [sys.executable, "-c", _FILE_AFTER_FILE, str(transcript), str(run_file)],
        capture_output=True, text=True, check=True, timeout=600,
    )  # fmt: skip
    grown = [int(line) for line in child.stdout.split()]
    assert len(grown) == 2 and all(growth < 10_000 for growth in grown), grown


_AGENT_LOOP = """
import gc, sys
from agentrender import render
from agentrender.render import StepInput
from tests._support.runs import long_run

class Client:
    def __init__(self):
        self.me = self

steps = long_run(int(sys.argv[1])).steps
options = render.Options(opening="Go.")
lasting = []
for n in range(1, len(steps) + 1):
    wire = [message.to_dict() for message in render.messages(StepInput(steps=steps[:n]), options)]
    lasting.append([Client() for _ in range(50)])  # cycles that outlive a few steps, as a client's objects do
    if len(lasting) > 20:
        del lasting[0]
    if n == len(steps) // 4:
        del wire
        settled = len(gc.get_objects())
del wire
print(len(gc.get_objects()) - settled)
"""


@pytest.mark.slow
def test_an_agent_that_renders_every_step_keeps_no_garbage() -> None:
    """An agent renders its whole conversation before each model call, promoted each time it is large enough, while
    its own code makes garbage cycles that live a while: full collections keep coming, so the objects it tracks stay
    as many. (With ``promote`` not winding the clock back, they grow by about 37,000 over 750 steps.)"""
    child = subprocess.run(
        [sys.executable, "-c", _AGENT_LOOP, "1000"],
        capture_output=True, text=True, check=True, timeout=600, cwd=Path(__file__).parents[1],
    )  # fmt: skip
    assert int(child.stdout) < 5_000, child.stdout


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


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Block:
    """A frozen, slotted value of a module (so that it pickles), for frozen_factory's tests."""

    type: str
    text: str = ""
    tool_use_id: str = ""
    content: str = ""
    is_error: bool = False


def test_frozen_factory_builds_the_class_itself_equal_to_its_init_and_as_frozen() -> None:
    """A value made by the factory (filled as an unfrozen twin) is of the class itself, and behaves as cls(...) does:
    equal, same hash and repr, frozen, copied and pickled as one; a class with a base is refused."""
    import copy
    import pickle
    from dataclasses import FrozenInstanceError, dataclass, replace

    make = _fast.frozen_factory(Block, "type", "text", "tool_use_id", "content", "is_error")
    made = make("tool_result", "", "step_1", content="ok", is_error=True)
    built = Block(type="tool_result", tool_use_id="step_1", content="ok", is_error=True)
    assert type(made) is Block and isinstance(made, Block)
    assert made == built and hash(made) == hash(built) and repr(made) == repr(built)
    with pytest.raises(FrozenInstanceError):
        made.content = "changed"  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        del made.content  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(made)) == built and copy.deepcopy(made) == built
    assert replace(made, content="other") == replace(built, content="other")
    assert make("text", "hi") == Block(type="text", text="hi")  # the defaults are the fields' own

    @dataclass(frozen=True, slots=True)
    class Base:
        left: int

    @dataclass(frozen=True, slots=True)
    class Derived(Base):
        right: int

    with pytest.raises(ValueError, match="no base class"):
        _fast.frozen_factory(Derived, "left", "right")


def test_bounded_memo_keeps_results_until_it_is_full() -> None:
    """keep() remembers a result while there is room and returns it either way."""
    memo: _fast.BoundedMemo[str, int] = _fast.BoundedMemo(2)
    assert [memo.keep(key, len(key)) for key in ("a", "bb", "ccc")] == [1, 2, 3]
    assert memo == {"a": 1, "bb": 2} and memo.get("ccc") is None


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=examples(200), deadline=None)
@given(values=st.lists(_JSON, min_size=1, max_size=5), ensure_ascii=st.booleans(), allow_nan=st.booleans())
def test_fast_json_encoder_gives_the_encoders_text_and_errors(
    values: list[Any], ensure_ascii: bool, allow_nan: bool
) -> None:
    """fast_json_encoder gives, value after value, the text encoder.encode gives, or the same error."""
    encoder = json.JSONEncoder(ensure_ascii=ensure_ascii, separators=(",", ":"), allow_nan=allow_nan)
    encode = _fast.fast_json_encoder(encoder)
    for value in values:
        try:
            expected: Any = encoder.encode(value)
        except ValueError as error:
            expected = error
        if isinstance(expected, ValueError):
            with pytest.raises(ValueError, match=re.escape(str(expected))):
                encode(value)
        else:
            assert encode(value) == expected


def test_fast_json_encoder_forgets_a_failed_value() -> None:
    """A value whose encoding failed encodes once fixed (no false circular reference), and a cycle is still one."""
    encode = _fast.fast_json_encoder(json.JSONEncoder(separators=(",", ":")))
    value: dict[str, Any] = {"ok": [1], "bad": {1, 2}}
    with pytest.raises(TypeError, match="set is not JSON serializable"):
        encode(value)
    value["bad"] = []
    assert encode(value) == '{"ok":[1],"bad":[]}'
    cycle: list[Any] = []
    cycle.append(cycle)
    with pytest.raises(ValueError, match="Circular reference detected"):
        encode(cycle)


def test_fast_json_encoder_encodes_the_same_value_in_threads_at_once() -> None:
    """Threads encoding one shared value at once, each switching to the others inside it, get the encoder's text."""

    def slow_repr(value: Any) -> str:
        time.sleep(0)  # lets another thread run while this one is inside the value
        return repr(value)

    encoder = json.JSONEncoder(separators=(",", ":"), default=slow_repr)
    encode = _fast.fast_json_encoder(encoder)
    shared = {"a": [1, {2, 3}, {"b": frozenset({4})}], "c": {5}}
    expected = encoder.encode(shared)
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        texts = list(pool.map(lambda _: encode(shared), range(400)))
    assert texts == [expected] * 400


def test_digit_shapes_are_the_texts_with_their_digits_as_zero() -> None:
    """digit_shapes gives each text with every digit as 0, once each; a text holding a newline gives None."""
    texts = ["2026-11-29T10:00:01Z", "1999-01-01T23:59:59Z", "2026-11-29", "id-٣"]
    assert _fast.digit_shapes(texts) == {"0000-00-00T00:00:00Z", "0000-00-00", "id-٣"}
    assert _fast.digit_shapes([]) == set()
    assert _fast.digit_shapes(["1", "2\n3"]) is None
