"""One nesting limit for all the JSON agentrender reads: below it every instrument works, past it a clear error.

``agentrender._json.MAX_DEPTH`` is enforced where JSON is decoded (run-file lines, the
importers' files, JSON text inside fields such as tool arguments) and on values handed over
already decoded (an SDK's tool input). A file past it is a ``RunFileError`` naming its line
and the field; a model reply past it is ``decide``'s out-of-band arguments, never an exception.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

from agentrender import RunFileError, load_run, render
from agentrender._json import MAX_DEPTH, NestingError, canonical, check_depth, deep_canonical, strict_loads, too_deep
from agentrender._types import ModelResponse
from agentrender.frame import model_calls_frame, steps_frame
from agentrender.imports import from_openai, load
from agentrender.notebook import DecideStepper, RunExplorer
from agentrender.runfile import write_run
from agentrender.views import Views
from tests._support import hostile_files
from tests._support.attacks import problems, survive
from tests._support.fuzz import JSON_VALUES

NOTEBOOK_STACK = 500
"""Frames under the instruments in the limit's test: more than twice a notebook cell's (about 200)."""

TOO_DEEP = f"nested deeper than {MAX_DEPTH} levels"


def _reply(tool_input: Any) -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": tool_input}],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def _run_file(path: Path, args: str) -> Path:
    """A run of one step whose arguments (and its reply's tool input) are the JSON text ``args``."""
    header = {"type": "run", "format": "agentrender.run/1", "run_id": "r", "goal": "g"}
    step = {"type": "step", "index": 0, "decision": {"kind": "tool_call", "tool": "f", "args": "ARGS"}}
    step["observation"] = {"status": "ok", "content": "done"}
    call = {"type": "model_call", "step": 0, "response": _reply("ARGS")}
    lines = [json.dumps(header), json.dumps(step), json.dumps(call)]
    path.write_text("\n".join(line.replace('"ARGS"', args) for line in lines) + "\n", encoding="utf-8")
    return path


def _from_deep_stack(frames: int, call: Callable[[], Any]) -> Any:
    return call() if frames == 0 else _from_deep_stack(frames - 1, call)


def test_every_instrument_works_at_the_limit_from_a_stack_deeper_than_a_notebooks(tmp_path: Path) -> None:
    """A run nested exactly to the limit goes through every instrument called from 500 frames deep."""
    # the model_call line nests deepest: record, response, content, block, then the input
    path = _run_file(tmp_path / "deep.jsonl", hostile_files.deep_json(MAX_DEPTH - 4))
    assert sys.getrecursionlimit() == 1000

    def every_instrument() -> None:
        run = load_run(path)
        views = Views(run)
        for at in range(len(run.steps) + 1):
            views.at(at)._repr_html_()
        views.sizes()
        run._repr_html_()
        steps_frame(run)
        model_calls_frame(run)
        [render.decide(call.response) for call in run.model_calls]
        explorer = RunExplorer(run)
        explorer.conversation.at = 1
        DecideStepper(run)
        write_run(run, tmp_path / "again.jsonl")
        assert load_run(tmp_path / "again.jsonl").steps == run.steps

    _from_deep_stack(NOTEBOOK_STACK, every_instrument)


def test_a_line_one_level_past_the_limit_is_refused_naming_its_line_and_field(tmp_path: Path) -> None:
    """One level more than the limit is a RunFileError at the line, naming where the nesting is."""
    path = _run_file(tmp_path / "deep.jsonl", hostile_files.deep_json(MAX_DEPTH - 3))
    with pytest.raises(RunFileError) as raised:
        load_run(path)
    assert str(raised.value) == f"{path}:3: response.content[0].input.a[0]…: {TOO_DEEP}"


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 1_000, 100_000])
def test_decide_keeps_raw_arguments_nested_past_the_limit_as_invalid_arguments(depth: int) -> None:
    """A reply whose tool input is text holding JSON too deep is a tool call with the text out of band."""
    text = hostile_files.deep_json(depth)
    decision = render.decide(ModelResponse.from_dict(_reply(text)))
    assert (decision.kind, decision.tool, decision.args) == ("tool_call", "f", None)
    assert decision.invalid_args == text and not decision.invalid_base64
    assert render.decided(ModelResponse.from_dict(_reply(text))).args == "too_deep"


def test_decide_keeps_an_sdk_input_nested_past_the_limit_as_invalid_arguments() -> None:
    """An input an SDK decoded already, too deep, is kept as its JSON text out of band; at the limit it is the args."""
    at_limit = json.loads(hostile_files.deep_json(MAX_DEPTH))
    assert render.decide(ModelResponse.from_dict(_reply(at_limit))).args == at_limit
    past = json.loads(hostile_files.deep_json(MAX_DEPTH + 1))
    decision = render.decide(ModelResponse.from_dict(_reply(past)))
    assert decision.args is None and decision.invalid_args == hostile_files.deep_json(MAX_DEPTH + 1)
    assert render.args(decision) == {"invalid_json": decision.invalid_args}


def test_the_depth_check_counts_brackets_outside_strings_only() -> None:
    """Brackets inside strings (escaped quotes too) are text, not nesting."""
    inside = json.dumps(["[" * 1000, '\\"{' * 1000])
    check_depth(inside)
    assert strict_loads(inside)[0] == "[" * 1000
    with pytest.raises(NestingError):
        check_depth("[" * (MAX_DEPTH + 1))


@given(JSON_VALUES)
def test_deep_canonical_is_canonical_and_too_deep_is_the_depth(value: Any) -> None:
    """The encoder for values past the limit writes what canonical writes; too_deep agrees with the text."""
    assert deep_canonical(value) == canonical(value)
    text = canonical(value)
    for limit in range(4):
        try:
            check_depth(text, limit)
            deep = False
        except NestingError:
            deep = True
        assert too_deep(value, limit) == deep


def test_load_says_a_deep_document_is_too_deep(tmp_path: Path) -> None:
    """load on a document nested past the limit says so, not that no JSON value could be read."""
    path = tmp_path / "deep.json"
    path.write_text(json.dumps({"messages": "DEEP"}).replace('"DEEP"', hostile_files.deep_json(5_000)))
    with pytest.raises(RunFileError) as raised:
        load(path)
    assert str(raised.value) == f"{path}:1: messages.a[0].a[0].a…: {TOO_DEEP}"


def test_a_call_log_whose_second_line_is_deep_is_refused_at_that_line(tmp_path: Path) -> None:
    """A call log's deep second line is a RunFileError at line 2, not a RecursionError."""
    first, second = Path("sample_imports/stock-lookup.calls.jsonl").read_text().splitlines()[:2]
    deep = second.replace('"stream": false', f'"stream": {hostile_files.deep_json(3_000)}', 1)
    path = tmp_path / "calls.jsonl"
    path.write_text(f"{first}\n{deep}\n")
    with pytest.raises(RunFileError, match=f"^{path}:2: request.stream.a\\[0\\].a\\[0\\]…: {TOO_DEEP}$"):
        load(path)


def test_from_openai_on_a_deep_json_is_refused(tmp_path: Path) -> None:
    """from_openai on a document too deep names the file and line; its deep arguments text imports as invalid."""
    chat = json.loads(Path("tests/fixtures/imports/openai/chat.json").read_text())
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(chat).replace('"temperature": 0', f'"temperature": {hostile_files.deep_json(2_000)}'))
    with pytest.raises(RunFileError, match=f"^{path}:1: temperature.a\\[0\\].a\\[0\\].a…: {TOO_DEEP}$"):
        from_openai(path)


@pytest.mark.slow  # each file in a child process: about a minute
def test_the_depth_sweep_imports_and_shows_or_refuses_as_documented(tmp_path: Path) -> None:
    """At every position that holds JSON, 100 to 100,000 levels deep, a file imports and goes through every
    instrument, or is refused as too deep; one too deep as the text of tool arguments imports."""
    paths = list(hostile_files.depth_files(tmp_path))
    outcomes = survive(paths, thorough=True)
    assert not problems(outcomes), "\n\n".join(problems(outcomes)[:5])
    for outcome in outcomes:
        depth = int(Path(outcome.path).stem.rsplit("-", 1)[1])
        if depth <= 100:
            assert outcome.loaded, outcome.refused
        elif not outcome.loaded:
            assert outcome.refused.endswith(TOO_DEEP), outcome.refused
        else:
            assert "-text-" in Path(outcome.path).name, outcome.path
