"""Hostile run files, written into a folder: each generator gives the paths it wrote.

The seed is a bundled sample run (real shape: a header with tools, steps recorded twice,
model calls with replies, an end). Generators either mutate its bytes at random (seeded, so
a failure names a file that can be made again) or plant one hostile thing in it.
"""

from __future__ import annotations

import copy
import gzip
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agentrender import samples
from tests._support import real

SEED = "malformed-replies"
"""The sample the mutations start from: small, with every record type and replies that decide oddly."""

TOKENS = (
    b"{", b"}", b"[", b"]", b'"', b",", b":", b"\\", b"\\u", b"\\ud800", b"null", b"true", b"1e999", b"NaN",
    b"-1", b"\x00", b"\xff", b"\xc3", b"\r", b"\n", b"\r\n", b"\xef\xbb\xbf", b'"type":"step"', b'"index":',
    b"<script>", b"$\\href{javascript:alert(1)}{x}$", b"\xe2\x80\xae",
)  # fmt: skip
"""What the mutations insert: JSON's punctuation, bad bytes, and pieces of the format."""


def seed_bytes() -> bytes:
    """The seed file's bytes."""
    return samples.path(SEED).read_bytes()


def seed_records() -> list[dict[str, Any]]:
    """The seed file's records."""
    return [json.loads(line) for line in seed_bytes().splitlines() if line.strip()]


def write_records(path: Path, records: list[Any]) -> Path:
    """``records`` as a run file's lines (ASCII-escaped, so any string is one line of UTF-8)."""
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


def mutate(data: bytes, rng: random.Random) -> bytes:
    """``data`` with one random change: a byte changed, a span cut, a token inserted or two lines swapped."""
    how = rng.randrange(4)
    at = rng.randrange(len(data))
    if how == 0:
        return data[:at] + bytes([rng.randrange(256)]) + data[at + 1 :]
    if how == 1:
        return data[:at] + data[at + rng.randrange(1, 200) :]
    if how == 2:
        return data[:at] + rng.choice(TOKENS) + data[at:]
    lines = data.splitlines(keepends=True)
    first, second = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[first], lines[second] = lines[second], lines[first]
    return b"".join(lines)


def mutated(folder: Path, count: int, *, seed: int = 15) -> Iterator[Path]:
    """``count`` files, each the seed with one to three random changes."""
    rng = random.Random(seed)
    data = seed_bytes()
    for number in range(count):
        changed = data
        for _ in range(rng.randrange(1, 4)):
            changed = mutate(changed, rng)
        path = folder / f"mutated-{seed}-{number}.jsonl"
        path.write_bytes(changed)
        yield path


# A value of every JSON type, and the edge values of the types a field is likely to hold.
WRONG_VALUES: tuple[Any, ...] = (
    None, True, 0, -1, 10**30, 1.5, -0.0, "", "x", "\x00\ud800\u202e<b>$x$", [], [1], {}, {"a": 1},
)  # fmt: skip


def _fields(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The path of every value in a record (object keys and array positions), parents first."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*path, key)
            yield from _fields(item, (*path, key))
    elif isinstance(value, list):
        for position, item in enumerate(value[:3]):
            yield (*path, position)
            yield from _fields(item, (*path, position))


def _replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, *rest = path
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[head] = _replaced(value[head], tuple(rest), new)
    return copy


def wrong_types(folder: Path) -> Iterator[Path]:
    """For every field of every kind of record in the seed, a file with it holding each of ``WRONG_VALUES``."""
    records = seed_records()
    firsts: dict[str, int] = {}
    for position, record in enumerate(records):
        kind = (
            record["type"]
            + ("+decision" if record.get("decision") else "")
            + ("+observation" if record.get("observation") else "")
        )
        firsts.setdefault(kind, position)
    number = 0
    for position in firsts.values():
        for field in _fields(records[position]):
            for new in WRONG_VALUES:
                number += 1
                changed = list(records)
                changed[position] = _replaced(records[position], field, new)
                yield write_records(folder / f"wrong-{number}.jsonl", changed)


def planted(folder: Path) -> Iterator[Path]:
    """One file for each hostile thing the issue names that fits in a small file."""
    data = seed_bytes()
    records = seed_records()
    header, first, *rest = records
    step = next(record for record in records if record["type"] == "step" and record.get("decision"))

    def bytes_file(name: str, content: bytes) -> Path:
        path = folder / name
        path.write_bytes(content)
        return path

    def with_step(name: str, **fields: Any) -> Path:
        return write_records(folder / name, [*records, {**step, **fields}])

    yield bytes_file("invalid-utf8.jsonl", data.replace(b'"goal": "', b'"goal": "\xff\xfe', 1))
    yield bytes_file("invalid-utf8-last.jsonl", data + b'{"type": "step", "index": 9, "\xff')
    yield bytes_file("raw-nul.jsonl", data.replace(b'"goal": "', b'"goal": "\x00', 1))
    yield bytes_file("nul-between.jsonl", data.replace(b"\n", b"\n\x00\n", 1))
    yield with_step(
        "escaped-nul-and-surrogates.jsonl",
        observation={"status": "ok", "content": "\x00\ud800\udfff\ud83d", "summary": "\udc00"},
    )
    yield write_records(
        folder / "surrogate-everywhere.jsonl", json.loads(json.dumps(records).replace(': "', ': "\\ud800'))
    )
    yield bytes_file("nan.jsonl", data.replace(b'"max_output_tokens": 4096', b'"max_output_tokens": NaN', 1))
    yield bytes_file(
        "infinity.jsonl", data + b'{"type": "model_call", "step": 0, "latency_ms": Infinity, "response": {}}\n'
    )
    yield bytes_file(
        "overflow.jsonl", data + b'{"type": "model_call", "step": 0, "latency_ms": 1e400, "response": {}}\n'
    )
    yield with_step("huge-int-index.jsonl", index=10**30)
    yield with_step("huge-int-args.jsonl", decision={**step["decision"], "args": {"n": 10**4000, "m": -(10**300)}})
    yield bytes_file("int-past-str-digits.jsonl", data + b'{"type": "step", "index": 1' + b"0" * 5000 + b"}\n")
    yield write_records(folder / "huge-tokens.jsonl", [{**header, "max_output_tokens": 10**30}, first, *rest])
    yield bytes_file(
        "huge-latency.jsonl",
        data
        + b'{"type": "model_call", "step": 0, "latency_ms": 1e308, '
        + b'"response": {"content": [], "usage": {"input_tokens": '
        + b"1" * 30
        + b"}}}\n",
    )
    yield bytes_file("duplicate-keys.jsonl", data + b'{"type": "step", "index": 7, "index": 8, "type": "step"}\n')
    yield bytes_file("crlf.jsonl", data.replace(b"\n", b"\r\n"))
    yield bytes_file("bom.jsonl", b"\xef\xbb\xbf" + data)
    yield bytes_file("bom-crlf-blank.jsonl", b"\xef\xbb\xbf" + data.replace(b"\n", b"\r\n\r\n"))
    indices = [record for record in records if record["type"] == "step"]
    yield write_records(folder / "steps-reversed.jsonl", [header, *reversed(indices)])
    yield write_records(folder / "steps-gap.jsonl", [*records, {**step, "index": 1_000_000}])
    yield write_records(folder / "steps-duplicate.jsonl", [header, *indices, *indices])
    yield with_step("step-negative.jsonl", index=-1)
    yield write_records(
        folder / "model-call-negative.jsonl",
        [*records, {"type": "model_call", "step": -3, "response": {"content": []}}],
    )
    yield write_records(
        folder / "model-call-far.jsonl", [*records, {"type": "model_call", "step": 10**9, "response": {"content": []}}]
    )
    deep = 970  # just under what the decoder takes, so the record loads and the consumers get it
    yield bytes_file(
        "deep-args.jsonl",
        data
        + b'{"type": "step", "index": 9, "decision": {"kind": "tool_call", "tool": "t", "args": {"a": '
        + b"[" * deep
        + b"]" * deep
        + b"}}}\n",
    )
    yield bytes_file(
        "deep-100000.jsonl",
        data
        + b'{"type": "step", "index": 9, "decision": {"kind": "tool_call", "args": '
        + b"[" * 100_000
        + b"]" * 100_000
        + b"}}\n",
    )
    yield bytes_file("deep-unclosed.jsonl", data + b"[" * 100_000 + b"\n")
    yield with_step("bad-timestamps.jsonl", started_at="2026-01{-05T09:00:16Z", ended_at="not a time")
    yield write_records(folder / "bad-end-time.jsonl", [*records[:-1], {**records[-1], "at": "2026-99-99"}])
    yield bytes_file("only-header.jsonl", data.splitlines(keepends=True)[0])
    yield bytes_file("empty.jsonl", b"")
    yield bytes_file("blank.jsonl", b"\n\r\n \n")
    yield bytes_file("not-json.jsonl", b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    yield bytes_file("vertical-tab.jsonl", data.replace(b"\n", b"\x0b\n", 1))
    yield bytes_file("line-separator.jsonl", data.replace(b'"goal": "', '"goal": "\u2028\u2029'.encode(), 1))


def big(folder: Path) -> Iterator[Path]:
    """The heavy ones: a 10 MB single line (a result, an argument, a reason), and gzip bombs."""
    records = seed_records()
    step = next(record for record in records if record["type"] == "step" and record.get("decision"))
    ten = 10 * 1024 * 1024
    yield write_records(
        folder / "long-result.jsonl",
        [
            *records,
            {
                **step,
                "index": 20,
                "observation": {"status": "ok", "content": "x\n" * (ten // 2), "summary": "y" * 1000},
            },
        ],
    )
    yield write_records(
        folder / "long-reason.jsonl",
        [*records, {**step, "index": 20, "decision": {**step["decision"], "reason": "\u202e<" * (ten // 4)}}],
    )
    yield write_records(
        folder / "long-args.jsonl",
        [*records, {**step, "index": 20, "decision": {**step["decision"], "args": {"k": "$" * ten}}}],
    )
    yield write_records(
        folder / "many-keys.jsonl",
        [
            *records,
            {**step, "index": 20, "decision": {**step["decision"], "args": {str(i): i for i in range(ten // 16)}}},
        ],
    )
    path = folder / "long-junk.jsonl"
    path.write_bytes(seed_bytes() + b"x" * ten + b"\n")
    yield path


def gzip_cuts(folder: Path, *, every: int = 1) -> Iterator[Path]:
    """The seed, gzip-compressed, cut at every offset (or every ``every``-th)."""
    packed = gzip.compress(seed_bytes())
    for cut in range(0, len(packed), every):
        path = folder / f"cut-{cut}.jsonl.gz"
        path.write_bytes(packed[:cut])
        yield path


def gzip_bomb(path: Path, inflated: int, *, line: bytes = b"") -> Path:
    """A gzip file of the seed followed by about ``inflated`` bytes of ``line`` repeated (zeros when empty).

    The repeats are one 16 MiB member written again and again (a stream may hold several),
    so a file that inflates to gigabytes is made in a second.
    """
    size = 16 << 20
    block = line * (size // len(line)) if line else bytes(size)
    member = gzip.compress(block, compresslevel=9)
    with path.open("wb") as file:
        file.write(gzip.compress(seed_bytes()))
        for _ in range(inflated // len(block)):
            file.write(member)
    return path


def gzip_bombs(folder: Path, inflated: int = 4 << 30) -> Iterator[Path]:
    """Gzip files of a few MB inflating to ``inflated`` bytes: zeros, newlines, blanks, records, tiny records."""
    yield gzip_bomb(folder / "bomb-zeros.jsonl.gz", inflated)
    yield gzip_bomb(folder / "bomb-newlines.jsonl.gz", inflated, line=b"\n")
    yield gzip_bomb(folder / "bomb-blanks.jsonl.gz", inflated, line=b" \r\n")


def record_bombs(folder: Path, inflated: int = 4 << 30) -> Iterator[Path]:
    """Gzip files of a few MB inflating to ``inflated`` bytes of valid records: the seed's steps, tiny records."""
    step = next(line for line in seed_bytes().splitlines(keepends=True) if b'"type": "step"' in line)
    yield gzip_bomb(folder / "bomb-steps.jsonl.gz", inflated, line=step)
    yield gzip_bomb(folder / "bomb-tiny.jsonl.gz", inflated, line=b'{"type":"x"}\n')


# ---------------------------------------------------------------------------- other agents' histories

REPO = Path(__file__).resolve().parents[2]

_IMPORT_SUFFIXES = (".json", ".jsonl", ".traj", ".eval")


def real_fixtures() -> list[Path]:
    """Every real public history ``tests/fixtures/real/MANIFEST.json`` lists, and every real file of no run (none
    when there is no manifest)."""
    return [real.REAL / path for path in [*real.history_paths(), *(entry["path"] for entry in real.refused())]]


def import_fixtures() -> list[Path]:
    """Every file of another agent's history the project holds: the bundled samples, the importers'
    fixtures (Anthropic, Claude Code, Inspect, OpenAI chat, SWE-agent) and the real files of the manifest."""
    own = [REPO / "sample_imports", REPO / "tests" / "fixtures" / "imports", REPO / "tests" / "fixtures" / "inspect"]
    found = sorted(path for folder in own for path in folder.rglob("*") if path.suffix in _IMPORT_SUFFIXES)
    return found + real_fixtures()


HOSTILE_VALUES: tuple[Any, ...] = (
    *WRONG_VALUES, "\u202e\u2066gnp.exe\u2069\x1b[31m\u200b\ufeff", {"type": "text"}, [{}], [None], "[" * 400,
)  # fmt: skip
"""What a mutant puts in place of a value: every JSON type, edge values, unsafe text, half a nesting."""


def _as_json_log(path: Path, folder: Path) -> Path:
    """An Inspect ``.eval`` log (a zip of compressed JSON members) as the same log in Inspect's JSON format."""
    from inspect_ai.log import read_eval_log, write_eval_log

    written = folder / f"{path.stem}.json"
    write_eval_log(read_eval_log(str(path)), str(written), format="json")
    return written


class _Line(str):
    """A line of a JSON-lines history that holds no JSON (a real file's malformed line), kept as its text: a mutant
    moves, doubles or drops it as a line, and writes it back as it was."""


def _read_history(path: Path) -> tuple[str, list[Any]]:
    """``(kind, values)``: a document (one value) or JSON lines (a value a line; a line of no JSON a ``_Line``)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return "lines", [_line_value(line) for line in text.splitlines() if line.strip()]
    return "document", [json.loads(text)]


def _line_value(line: str) -> Any:
    try:
        return json.loads(line)
    except json.JSONDecodeError:
        return _Line(line)


def _write_history(path: Path, kind: str, values: list[Any]) -> Path:
    if kind == "lines":
        lines = (value if isinstance(value, _Line) else json.dumps(value) for value in values)
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    else:
        path.write_text(json.dumps(values[0]), encoding="utf-8")
    return path


def _container_at(value: Any, place: tuple[Any, ...]) -> Any:
    for step in place:
        value = value[step]
    return value


def _mutate_structure(values: list[Any], rng: random.Random) -> None:
    """One change to the parsed values: a value replaced, a key or item removed, an item doubled or moved."""
    target = rng.randrange(len(values))
    places = [()] + [place for place in _fields(values[target]) if place]
    place = rng.choice(places)
    how = rng.randrange(5)
    if not place or how == 0:
        values[target] = _replaced(values[target], place, rng.choice(HOSTILE_VALUES)) if place else values[target]
        if not place:  # the whole value: a line removed, doubled or moved
            move = rng.randrange(3)
            if move == 0 and len(values) > 1:
                del values[target]
            elif move == 1:
                values.insert(rng.randrange(len(values) + 1), values[target])
            else:
                values.insert(rng.randrange(len(values) + 1), values.pop(target))
        return
    *parent_place, last = place
    parent = _container_at(values[target], tuple(parent_place))
    if how == 1:
        del parent[last]
    elif how == 2 and isinstance(parent, list):
        parent.insert(rng.randrange(len(parent) + 1), json.loads(json.dumps(parent[last])))
    elif how == 3 and isinstance(parent, list) and len(parent) > 1:
        parent.insert(rng.randrange(len(parent)), parent.pop(last))
    elif how == 4:
        parent[last] = None  # null, as real writers write what they did not record
    else:
        parent[last] = rng.choice(HOSTILE_VALUES)


def import_mutants(fixture: Path, folder: Path, count: int, *, seed: int = 26) -> Iterator[Path]:
    """``count`` structure-aware mutants of ``fixture``: its JSON parsed, one to three values changed
    (``_mutate_structure``), written back in its own format; named ``STEM-SEED-N`` with its suffix,
    so a failing one is made again from its name."""
    if fixture.suffix == ".eval":  # mutated as the same log in Inspect's JSON form
        fixture = _as_json_log(fixture, folder)
    kind, original = _read_history(fixture)
    rng = random.Random(f"{seed}:{fixture.name}")
    for number in range(count):
        values = copy.deepcopy(original)  # a _Line stays one
        for _ in range(rng.randrange(1, 4)):
            _mutate_structure(values, rng)
        if not values:
            values = [{}]
        yield _write_history(folder / f"{fixture.stem}-{seed}-{number}{fixture.suffix}", kind, values)


# ---------------------------------------------------------------------------- depth

DEPTHS = (100, 300, 975, 1_000, 3_000, 10_000, 100_000)
"""How deep the depth sweep nests: below the limit, past it, just within the decoder's own reach (975:
without the limit, the instruments' encoders failed there), past it, and far past."""

DEPTH_POSITIONS: tuple[tuple[str, str, str, bool], ...] = (
    ("run-step-args", "sample_runs/malformed-replies.jsonl", "args", False),
    ("run-header-tool-schema", "sample_runs/malformed-replies.jsonl", "input_schema", False),
    ("run-tool-input", "sample_runs/fix-failing-test.jsonl", "input", False),
    ("anthropic-tool-input", "sample_imports/python-to-rust-port.messages.json", "input", False),
    ("anthropic-tool-input-text", "sample_imports/python-to-rust-port.messages.json", "input", True),
    ("anthropic-body-tool-schema", "sample_imports/largest-city-thinking.json", "input_schema", False),
    ("anthropic-call-log-line", "sample_imports/stock-lookup.calls.jsonl", "stream", False),
    ("openai-arguments-text", "tests/fixtures/imports/openai/chat.json", "arguments", True),
    ("swe-agent-arguments-text", "tests/fixtures/imports/openai/swe-agent.traj", "arguments", True),
    ("claude-code-message", "sample_imports/python-to-rust-port.claude-code.jsonl", "input", False),
    ("claude-code-message-text", "sample_imports/python-to-rust-port.claude-code.jsonl", "input", True),
    ("inspect-event", "tests/fixtures/inspect/arith.eval", "arguments", False),
)
"""Every place that holds JSON, as ``(name, fixture, key, as_text)``: the first value under ``key`` in the
fixture is replaced by deep JSON (``as_text``: by a string holding it, as tool arguments come)."""

_PLACEHOLDER = "\x00deep\x00"


def _first_place(values: list[Any], key: str) -> tuple[int, tuple[Any, ...]]:
    """The first value under ``key`` in ``values`` (a line's, a document's): its value's position and path."""
    for position, value in enumerate(values):
        if position == 0 and key == "stream":
            continue  # the call log's second line, as the issue has it
        for place in _fields(value):
            if place[-1] == key:
                return position, place
    raise LookupError(f"no {key!r} in the fixture")


def deep_json(depth: int) -> str:
    """JSON text ``depth`` levels deep, objects and arrays in turn (``{"a": [{"a": [ ... 0 ]}]}``)."""
    opening = ('{"a":', "[")
    return (
        "".join(opening[level % 2] for level in range(depth))
        + "0"
        + "".join("}" if level % 2 == 0 else "]" for level in reversed(range(depth)))
    )


def depth_files(folder: Path, depths: tuple[int, ...] = DEPTHS) -> Iterator[Path]:
    """For each of ``DEPTH_POSITIONS`` and each of ``depths``, its fixture holding deep JSON there; named
    ``POSITION-DEPTH`` with the fixture's suffix."""
    for name, fixture, key, as_text in DEPTH_POSITIONS:
        source = REPO / fixture
        if source.suffix == ".eval":
            source = _as_json_log(source, folder)
        kind, values = _read_history(source)
        position, place = _first_place(values, key)
        values[position] = _replaced(values[position], place, _PLACEHOLDER)
        plain = folder / f"{name}{source.suffix}"
        text = _write_history(plain, kind, values).read_text(encoding="utf-8")
        plain.unlink()
        for depth in depths:
            deep = deep_json(depth)
            path = folder / f"{name}-{depth}{source.suffix}"
            path.write_text(text.replace(json.dumps(_PLACEHOLDER), json.dumps(deep) if as_text else deep), "utf-8")
            yield path
