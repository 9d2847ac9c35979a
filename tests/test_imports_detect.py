"""``load`` finds a file's format by its first JSON value, whatever that value's size."""

from __future__ import annotations

import gzip
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

import agentrender
from agentrender import render
from agentrender.imports import from_anthropic, from_openai, load_runs
from agentrender.runfile import FORMAT, Run, RunFileError, load_run
from tests._support import real
from tests._support.reads import COUNTED, bytes_read

FIXTURES = Path(__file__).parent / "fixtures" / "imports" / "openai"
BIG = "x" * (3 << 20)
"""A text larger than the MiB that ``load`` reads first."""


def _rendered(run: Run) -> list[dict[str, object]]:
    return [m.to_dict() for m in render.messages(run.step_input(len(run.steps)), run.options())]


def _steps(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agentrender", "steps", str(path)], capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize("indent", [None, 1])
def test_a_json_conversation_over_a_mib_loads_as_its_importer_reads_it(tmp_path: Path, indent: int | None) -> None:
    """A ``.json`` chat larger than the window ``load`` reads first (on one line, or pretty-printed) is
    recognised, in Python and in the CLI, and loads as ``from_openai`` reads it."""
    chat = json.loads((FIXTURES / "chat.json").read_text(encoding="utf-8"))
    chat["messages"][0]["content"] = BIG
    path = tmp_path / "big.json"
    path.write_text(json.dumps(chat, indent=indent), encoding="utf-8")
    assert path.stat().st_size > 3 << 20
    run = agentrender.load(path)
    assert run.header["source"]["format"] == "openai-chat"
    assert _rendered(run) == _rendered(from_openai(path))
    shown = _steps(path)
    assert shown.returncode == 0, shown.stderr


def test_a_jsonl_whose_first_record_is_over_a_mib_loads(tmp_path: Path) -> None:
    """A ``.jsonl`` call log whose first line is larger than the window ``load`` reads first is recognised,
    in Python and in the CLI, and loads as ``from_anthropic`` reads it."""
    request = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": BIG}]}
    response = {"id": "r", "type": "message", "role": "assistant", "model": "m", "stop_reason": "end_turn"}
    response["content"] = [{"type": "text", "text": "done"}]
    path = tmp_path / "calls.jsonl"
    path.write_text(json.dumps({"request": request, "response": response}) + "\n", encoding="utf-8")
    run = agentrender.load(path)
    assert run.header["source"]["format"] == from_anthropic(path).header["source"]["format"]
    assert _rendered(run) == _rendered(from_anthropic(path))
    shown = _steps(path)
    assert shown.returncode == 0, shown.stderr


@pytest.mark.parametrize("byte", [b"\x00", b"\x07", b"\x1b"])
@pytest.mark.parametrize(
    "history",
    [
        "claude-code/DRMacIver-claude-reliability/hello-world-script/transcript.jsonl",
        "codex/daaain-claude-code-log/rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl",
        "claude-trace/hanqunfeng-claude-trace/log-2026-06-15-09-15-50.jsonl",
    ],
)
def test_a_control_byte_in_a_string_of_a_real_historys_first_line_is_said_as_on_any_line(
    tmp_path: Path, history: str, byte: bytes
) -> None:
    """A real history whose first line holds a raw control byte in a string is refused by its own importer at line 1
    as that line's JSON, as a later line's is, where it was refused as 'not a run file: binary data'."""
    data = (real.REAL / history).read_bytes()
    inside = data.index(b'":"') + 3  # the first string value's first character
    path = tmp_path / Path(history).name
    path.write_bytes(data[:inside] + byte + data[inside:])
    with pytest.raises(RunFileError) as caught:
        agentrender.load(path)
    said = str(caught.value)
    assert said.startswith(f"{path}:1: not JSON: ") and "run file" not in said, said


@pytest.mark.skipif(not COUNTED, reason="the bytes a process reads are counted by Linux")
@pytest.mark.parametrize("name", ["run.jsonl", "run.jsonl.gz"])
def test_a_run_file_is_told_from_its_first_line_not_its_first_mib(tmp_path: Path, name: str) -> None:
    """``load_runs`` of a run file of a few MiB reads it as ``load_run`` does, and before that its first line (within
    a few tens of KiB), where it read its first MiB (inflated, of a gzip stream) a second time."""
    randomly = random.Random(7)
    header = {"type": "run", "format": FORMAT, "run_id": "r", "goal": "g", "tools": [{"name": "read_file"}]}
    records = [header]
    for index in range(400):
        decision = {"kind": "tool_call", "tool": "read_file", "args": {"path": "a.py"}}
        content = randomly.randbytes(3000).hex()  # compresses to about half: a gzip stream's MiB is 0.5 MiB read
        records.append({"type": "step", "index": index, "decision": decision, "observation": {"content": content}})
    data = b"".join(json.dumps(record).encode() + b"\n" for record in records)
    path = tmp_path / name
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    assert load_runs(path) == [load_run(path)]
    before = bytes_read()
    load_run(path)
    once = bytes_read() - before
    before = bytes_read()
    load_runs(path)
    extra = bytes_read() - before - once
    assert path.stat().st_size > 1 << 20 and 0 <= extra <= 96 << 10, (once, extra)


_ASKED = {"model": "m", "max_tokens": 64, "messages": [{"role": "user", "content": "What is the answer?"}]}
_LOGGED = {"request": _ASKED, "response": {"type": "message", "role": "assistant", "content": [], "stop_reason": None}}


@pytest.mark.parametrize(
    "data",
    [
        json.dumps(_ASKED, indent=1).encode(),  # a request body over several lines
        (json.dumps(_LOGGED) + '\n{"request": {"model": \n').encode(),  # a call log whose second line breaks
        b'{"x": 1}\n{"y": 2}\n',  # no format agentrender reads
        (json.dumps(_LOGGED) + "\n").encode(),  # a call log
    ],
)
@pytest.mark.parametrize("name", ["LOG.JSONL", "Log.Jsonl.Gz"])
def test_a_file_of_json_lines_named_in_capitals_is_read_as_in_lower_case(
    tmp_path: Path, data: bytes, name: str
) -> None:
    """A file named .JSONL or .JSONL.GZ, in any case, is read a line at a time as one named in lower case is, with the
    same runs or the same error: a request body over several lines in LOG.JSONL was read whole as a document, where
    log.jsonl is refused at its first line."""

    def read(path: Path) -> str:
        try:
            said = json.dumps([list(run.records) for run in load_runs(path)])
        except RunFileError as error:
            said = str(error)
        return said.replace(path.name, "FILE")

    packed = name.lower().endswith(".gz")
    said = [
        read(write)
        for write in (tmp_path / name, tmp_path / name.lower())
        if write.write_bytes(gzip.compress(data) if packed else data)
    ]
    assert said[0] == said[1], said


_HEADLESS = (
    "missing run header: a run file whose first line is a {kind} record, not the 'run' header it must start with "
    "(its header line was lost, or never written)"
)
"""What ``load`` and ``load_run`` say of a run file whose first line is a ``kind`` record, not its header."""


@pytest.mark.parametrize("kind", ["step", "model_call", "model_call_error", "end"])
def test_a_run_file_whose_header_line_is_lost_is_said_to_be_one(tmp_path: Path, kind: str) -> None:
    """``load`` of a run file whose first line is one of a run file's records (a step, a model call, an end), its
    header line lost, says it is a run file that must start with its 'run' header, at line 1, as ``load_run`` says
    it, where it said the file was no format it knows and listed every format it tried."""
    sample = agentrender.samples.path("fix-failing-test").read_text(encoding="utf-8").splitlines(keepends=True)
    records = [line for line in sample[1:] if json.loads(line)["type"] == kind]
    records = records or [json.dumps({"type": kind, "step": 0, "error": {"type": "APIError"}}) + "\n"]
    path = tmp_path / "headless.jsonl"
    path.write_text("".join(records[:1] + sample[1:]), encoding="utf-8")
    said = f"{path}:1: {_HEADLESS.format(kind=repr(kind))}"
    with pytest.raises(RunFileError) as raised:
        agentrender.load(path)
    assert str(raised.value) == said
    if kind == "step":  # load_run reads the record before it asks for the header: a step it reads, the same words
        with pytest.raises(RunFileError) as raised:
            load_run(path)
        assert str(raised.value) == said


@pytest.mark.parametrize(
    "first",
    [{"type": "checkpoint", "index": 0}, {"type": ["step"], "index": 0}, {"type": "Step", "index": 0}],
)
def test_a_file_whose_first_record_is_of_no_run_file_type_is_still_of_no_known_format(
    tmp_path: Path, first: dict[str, object]
) -> None:
    """A file whose first record names a type no run file holds (another, a list, another case) is said as any file
    of no known format is: what it holds and the formats tried, never a run file's missing header."""
    path = tmp_path / "other.jsonl"
    path.write_text(json.dumps(first) + "\n", encoding="utf-8")
    with pytest.raises(RunFileError) as raised:
        agentrender.load(path)
    assert str(raised.value).startswith(
        f"{path}:1: not a run, nor a conversation agentrender can import: it holds a JSON object with the keys type, "
        "index. Tried: agentrender run file"
    )


@pytest.mark.parametrize(("name", "what"), [("nonexist.jsonl", "no such file"), (".", "not a file")])
def test_a_path_that_is_no_file_is_an_error_of_the_whole_file(tmp_path: Path, name: str, what: str) -> None:
    """A missing file or a folder is an error at line 1, as every error of a whole file is (before, line 0, which is
    no line)."""
    path = tmp_path / name
    with pytest.raises(RunFileError) as caught:
        load_runs(path)
    assert (str(caught.value), caught.value.line) == (f"{path}:1: {what}", 1)
