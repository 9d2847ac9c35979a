"""Inspect AI logs: real logs of a small task run offline with mockllm import as runs that render what was sent."""

from __future__ import annotations

import dataclasses
import gzip
import io
import json
import os
import struct
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import hypothesis
import msgspec
import pytest
from hypothesis import strategies as st
from msgspec.structs import replace

from agentrender import render
from agentrender.imports import from_inspect, load, load_runs
from agentrender.runfile import Run, RunFileError
from agentrender.views import Views
from tests._support.examples import examples
from tests._support.inspect_task import ANSWERS, QUESTIONS, SYSTEM, run_task_apart

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "inspect" / "arith.eval"

OLDER_LOG = (
    ROOT / "tests" / "fixtures" / "real" / "inspect" / "UKGovernmentBEIS-inspect_ai" / "log_tool_call_error.json"
)
"""A real log older than the eval's ``eval_id``: only Inspect's reader reads it exactly."""

RUN_IDS = {"arith/double/1", "arith/double/2", "arith/sum3/1", "arith/sum3/2"}

# What the sample "sum3" sent, in the Messages API's shape: the mock model's script in
# tests/_support/inspect_task.py, converted as Inspect's Anthropic provider sends it.
SUM3 = [
    {"role": "user", "content": [{"type": "text", "text": QUESTIONS["sum3"]}]},
    {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "Add 1 + 2 and 2 + 3 at once.", "signature": "sig-1"},
            {"type": "text", "text": "Adding."},
            {"type": "tool_use", "id": "call_sum3_0_0", "name": "add", "input": {"x": 1, "y": 2}},
            {"type": "tool_use", "id": "call_sum3_0_1", "name": "add", "input": {"x": 2, "y": 3}},
        ],
    },
    {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "call_sum3_0_0", "content": "3"},
            {"type": "tool_result", "tool_use_id": "call_sum3_0_1", "content": "5"},
        ],
    },
    {
        "role": "assistant",
        "content": [
            # the reply's empty text, as Inspect's Anthropic provider sends it (the API refuses empty text)
            {"type": "text", "text": "(no content)"},
            {"type": "tool_use", "id": "call_sum3_1_0", "name": "add", "input": {"x": -1, "y": 2}},
        ],
    },
    {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "call_sum3_1_0",
                "content": "negative numbers are not supported",
                "is_error": True,
            }
        ],
    },
    {"role": "assistant", "content": [{"type": "text", "text": "The answer is 6."}]},
]


def _by_id(runs: list[Run]) -> dict[str, Run]:
    return {run.run_id: run for run in runs}


def _view(run: Run, step: int) -> list[dict[str, Any]]:
    return [message.to_dict() for message in render.messages(run.step_input(step), run.options())]


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The logs Inspect wrote of the task run offline (two samples, two epochs), by kind: ``.eval`` and ``.json``."""
    kinds = ("eval", "json")
    return dict(zip(kinds, run_task_apart(tmp_path_factory.mktemp("inspect"), *kinds), strict=True))


@pytest.fixture(params=["eval", "json"])
def log(request: pytest.FixtureRequest, logs: dict[str, Path]) -> Path:
    """One of the logs Inspect wrote."""
    path = logs[request.param]
    assert path.suffix == f".{request.param}"
    return path


@pytest.fixture
def json_log(tmp_path: Path) -> Path:
    """The committed log written again by Inspect as a ``.json`` log, to be broken by a test."""
    from inspect_ai.log import read_eval_log, write_eval_log

    path = tmp_path / "arith.json"
    write_eval_log(read_eval_log(str(FIXTURE)), str(path), format="json")
    return path


def _edit_json(path: Path, edit: Any) -> Path:
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _sample(data: dict[str, Any], sample_id: str, epoch: int) -> dict[str, Any]:
    return next(s for s in data["samples"] if s["id"] == sample_id and s["epoch"] == epoch)


@pytest.mark.slow
def test_one_run_per_sample_and_epoch_with_the_sample_in_its_source(log: Path) -> None:
    """Each sample of each epoch is a run named <task>/<sample id>/<epoch>; its header's source keeps the
    sample id, epoch, task, model, target and scores."""
    runs = _by_id(from_inspect(log))
    assert set(runs) == RUN_IDS
    for run_id, run in runs.items():
        _, sample_id, epoch = run_id.split("/")
        source = run.header["source"]
        assert (source["format"], source["task"], source["model"]) == ("inspect-ai", "arith", "mockllm/model")
        assert (source["sample_id"], source["epoch"], source["target"]) == (sample_id, int(epoch), ANSWERS[sample_id])
        assert source["scores"]["includes"]["value"] == "C"
        assert source["scores"]["model_graded_fact"]["value"] == "C"
        assert run.warnings == ()


@pytest.mark.slow
def test_the_conversation_renders_back_exactly_as_converted(log: Path) -> None:
    """The view at each step is the sample's conversation up to it in the Messages API's shape: the system
    message as system, reasoning as thinking, tool calls as tool uses, two tool messages as one turn of
    results, a failed tool as an is_error result."""
    run = _by_id(from_inspect(log))["arith/sum3/1"]
    assert run.header["system"] == SYSTEM
    assert [tool["name"] for tool in run.header["tools"]] == ["add"]
    assert len(run.steps) == 3
    for step in range(3):
        assert _view(run, step) == SUM3[: 2 * step + 1]
    assert run.steps[2].decision.reason == "The answer is 6."
    assert run.steps[1].observation is not None and run.steps[1].observation.status == "error"


@pytest.mark.slow
def test_each_model_event_is_a_model_call_of_the_step_it_decided(log: Path) -> None:
    """Every ModelEvent of the agent is a model call of the step its input decides: its reply is the assistant
    turn of that step, its usage and stop reason in the API's terms, and its request is the view at that step.
    The grader's call (model_graded_fact) is another conversation: it is counted in the source, not made a call."""
    run = _by_id(from_inspect(log))["arith/sum3/2"]
    assert [call.step for call in run.model_calls] == [0, 1, 2]
    assert run.header["source"]["scorer_model_calls"] == 1
    for call in run.model_calls:
        response = call.record["response"]
        assert response["content"] == SUM3[2 * call.step + 1]["content"]
        assert response["usage"] == {"input_tokens": 100 * (call.step + 1), "output_tokens": 20}
        assert call.record["request"]["system"] == SYSTEM
        assert "messages" not in call.record["request"]  # they are the view at its step, checked when imported
    assert [call.stop_reason for call in run.model_calls] == ["tool_use", "tool_use", "end_turn"]


def _offered_in_turn(data: dict[str, Any]) -> None:
    """Offer sample sum3/1's model events other tools in turn: its own, then more (one's description an attachment),
    then its own again, then none."""
    sample = _sample(data, "sum3", 1)
    own = next(e for e in sample["events"] if e["event"] == "model")["tools"]
    sample.setdefault("attachments", {})["0" * 32] = "Multiply two numbers."
    schema = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}  # as Inspect logs it
    more = [*own, {"name": "multiply", "description": "attachment://" + "0" * 32, "parameters": schema}]
    events = [e for e in sample["events"] if e["event"] == "model"]
    for event, tools in zip(events, [own, more, own, []], strict=False):
        event["tools"] = tools


def test_each_model_call_keeps_the_tools_its_event_was_offered(json_log: Path) -> None:
    """Each model call's request holds the tools its own event was offered, attachments read back, when they change
    from event to event (an event offered the same JSON text as the one before is given the same tools), and the
    header the last event's."""
    _edit_json(json_log, _offered_in_turn)
    run = _by_id(from_inspect(json_log))["arith/sum3/1"]
    schema = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
    multiply = {"name": "multiply", "description": "Multiply two numbers.", "input_schema": schema}
    add = run.model_calls[0].record["request"]["tools"]
    assert [tool["name"] for tool in add] == ["add"]
    assert [call.record["request"].get("tools") for call in run.model_calls] == [add, [*add, multiply], add]
    assert run.header["tools"] == add


@pytest.mark.slow
def test_load_finds_the_log_by_what_it_is(log: Path) -> None:
    """load_runs reads an Inspect log of either kind as from_inspect does; load gives its first run and says
    how many more there are."""
    assert [run.run_id for run in load_runs(log)] == [run.run_id for run in from_inspect(log)]
    first = load(log)
    assert first.run_id in RUN_IDS
    assert "3 more run(s) in this file" in first.warnings[-1].text


def test_the_committed_log_imports_without_warnings() -> None:
    """A log Inspect wrote (committed, see tests/fixtures/inspect/README.md) imports as four runs, each rendering
    its conversation as sent, with no warning."""
    runs = _by_id(from_inspect(FIXTURE))
    assert set(runs) == RUN_IDS
    assert all(run.warnings == () for run in runs.values())
    assert _view(runs["arith/sum3/1"], 2) == SUM3[:5]
    assert len(runs["arith/double/2"].model_calls) == 2


def test_a_json_log_larger_than_load_reads_at_once_is_still_recognised(json_log: Path) -> None:
    """load recognises a .json log by how Inspect starts it when the file is too large to parse as a whole."""
    padded = _edit_json(json_log, lambda data: data["samples"][0]["metadata"].update(padding="x" * (2 << 20)))
    assert len(load_runs(padded)) == 4


@pytest.mark.slow
def test_without_inspect_ai_a_log_imports_and_an_older_one_names_the_extra(tmp_path: Path) -> None:
    """Without inspect_ai, the committed log imports (agentrender reads its JSON), directly or through load; a log
    only Inspect's reader reads exactly (one older than eval_id) fails with the pip line of the inspect extra."""
    for use in ("from agentrender.imports import from_inspect as read", "from agentrender.imports import load as read"):
        for path, works in ((FIXTURE, True), (OLDER_LOG, False)):
            script = f"import sys\nsys.modules['inspect_ai'] = None\n{use}\nprint(type(read({str(path)!r})).__name__)"
            env = {**os.environ, "PYTHONPATH": str(ROOT)}
            done = subprocess.run(
                [sys.executable, "-c", script],
                capture_output=True,
                text=True,
                cwd=tmp_path,
                env=env,
                timeout=120,
                check=False,
            )
            if works:
                assert done.returncode == 0, done.stderr
                assert done.stdout.strip() in ("list", "Run")  # from_inspect's runs; load's first run
                continue
            assert done.returncode != 0
            last = done.stderr.strip().splitlines()[-1]
            assert last.endswith("needs inspect_ai, which is not installed: pip install 'agentrender[inspect]'"), last


@pytest.mark.slow
def test_without_inspect_ai_a_broken_log_names_the_file_and_the_field(json_log: Path, tmp_path: Path) -> None:
    """Without inspect_ai, a JSON log whose sample's epoch is not a number, or one of whose messages has no known
    role, raises RunFileError naming the file and the field, as agentrender's reader finds it."""
    role = tmp_path / "role.json"
    role.write_bytes(json_log.read_bytes())
    _edit_json(role, lambda data: _sample(data, "sum3", 1)["messages"][1].update(role="robot"))
    epoch = _edit_json(json_log, lambda data: data["samples"][1].update(epoch="two"))
    expected = {
        epoch: f"{epoch}:1: not an Inspect AI log: samples[1].epoch: Expected `int`, got `str`",
        role: f"{role}:1: samples[id=sum3, epoch=1].messages[1].role: expected 'system', 'user', 'assistant' or "
        "'tool', got 'robot'",
    }
    for path, message in expected.items():
        script = (
            "import sys\nsys.modules['inspect_ai'] = None\nfrom agentrender.imports import from_inspect\n"
            f"from agentrender.runfile import RunFileError\ntry:\n    from_inspect({str(path)!r})\n"
            "except RunFileError as error:\n    print(error)"
        )
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        done = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120, check=False
        )
        assert done.stdout.strip() == message, done.stderr


def test_a_message_inspect_cannot_read_names_the_file_and_the_sample(json_log: Path) -> None:
    """A JSON log whose sample holds a message of no known role raises RunFileError naming the file, the sample,
    the message and the field."""
    _edit_json(json_log, lambda data: _sample(data, "sum3", 1)["messages"][1].update(role="robot"))
    with pytest.raises(RunFileError) as caught:
        from_inspect(json_log)
    assert str(caught.value).startswith(f"{json_log}:1: samples[id=sum3, epoch=1].messages[1].role: ")


def test_a_broken_sample_of_an_eval_log_is_named(tmp_path: Path) -> None:
    """An .eval log with one sample Inspect cannot read raises RunFileError naming the file and that sample."""
    broken = tmp_path / "broken.eval"
    with zipfile.ZipFile(FIXTURE) as source, zipfile.ZipFile(broken, "w") as out:
        for name in source.namelist():
            data = source.read(name)
            if name == "samples/double_epoch_2.json":
                sample = json.loads(data)
                sample["messages"][1]["content"] = 5
                data = json.dumps(sample).encode()
            out.writestr(name, data)
    with pytest.raises(RunFileError) as caught:
        from_inspect(broken)
    assert str(caught.value).startswith(f"{broken}:1: samples[id=double, epoch=2]: cannot be read: messages[1].")


def test_a_tool_message_answering_no_call_names_its_sample(json_log: Path) -> None:
    """A tool message without the id of the call it answers raises RunFileError naming the sample and field."""
    _edit_json(json_log, lambda data: _sample(data, "double", 2)["messages"][3].pop("tool_call_id"))
    with pytest.raises(RunFileError) as caught:
        from_inspect(json_log)
    assert str(caught.value) == (
        f"{json_log}:1: samples[id=double, epoch=2].messages[3].tool_call_id: "
        "missing: a tool message answers a tool call"
    )


WRONG_MESSAGES: dict[str, tuple[Callable[[list[dict[str, Any]]], Any], str]] = {
    "messages[1].role": (lambda m: m[1].update(role="robot"), "expected 'system', 'user', 'assistant' or 'tool', got "),
    "messages[1].content": (lambda m: m[1].update(content=5), "expected text or a list of content, got int"),
    "messages[1].content[0]": (lambda m: m[1].update(content=[{"text": "Hi"}]), "expected a content item with a type"),
    "messages[2].tool_calls": (lambda m: m[2].update(tool_calls=5), "expected a list of tool calls, got int"),
    "messages[2].tool_calls[0]": (
        lambda m: m[2]["tool_calls"][0].pop("id"),
        "expected a tool call with an id and a function",
    ),
    "messages[3].content": (lambda m: m[3].update(content=5), "expected text or a list of content, got int"),
}


@pytest.mark.parametrize("field", list(WRONG_MESSAGES))
def test_a_sample_message_of_the_wrong_shape_is_refused_naming_its_field(
    json_log: Path, monkeypatch: pytest.MonkeyPatch, field: str
) -> None:
    """A sample's message of the wrong shape (a role, its content, a content item, its tool calls) raises
    RunFileError naming the file, the sample, the message and the field, in agentrender's words."""
    from agentrender.imports import inspect as importer

    edit, said = WRONG_MESSAGES[field]
    _edit_json(json_log, lambda data: edit(_sample(data, "double", 2)["messages"]))
    monkeypatch.setattr(importer, "_has_inspect", lambda: False)
    with pytest.raises(RunFileError) as caught:
        from_inspect(json_log)
    assert str(caught.value).startswith(f"{json_log}:1: samples[id=double, epoch=2].{field}: {said}")


def test_a_tool_call_whose_arguments_could_not_be_parsed_is_a_warning_naming_it(json_log: Path) -> None:
    """A sample's tool call that Inspect could not parse the arguments of is imported, with a warning on its run
    naming the sample, the message and the call, and what Inspect said."""
    _edit_json(
        json_log, lambda data: _sample(data, "double", 2)["messages"][2]["tool_calls"][0].update(parse_error="x")
    )
    (run,) = [run for run in from_inspect(json_log) if run.run_id.endswith("/double/2")]
    said = "samples[id=double, epoch=2].messages[2].tool_calls[0]: its arguments could not be parsed: x"
    assert said in [warning.text for warning in run.warnings]


@pytest.mark.parametrize(
    ("cut", "said"),
    [
        (0, "the file is empty (an .eval log is a zip archive)"),
        (100, "the .eval archive is cut short: "),
        (3000, "the .eval archive is cut short: "),
    ],
)
def test_a_file_that_is_no_log_names_the_file(tmp_path: Path, cut: int, said: str) -> None:
    """An empty or truncated .eval file raises RunFileError naming the file and saying, in words, what is wrong with
    it (not the zip reader's 'EOCD not found')."""
    truncated = tmp_path / "cut.eval"
    truncated.write_bytes(FIXTURE.read_bytes()[:cut])
    with pytest.raises(RunFileError) as caught:
        from_inspect(truncated)
    assert str(caught.value).startswith(f"{truncated}:1: {said}")


def test_an_eval_file_that_is_no_zip_at_all_is_for_inspect_to_judge(tmp_path: Path) -> None:
    """An .eval file that does not start as a zip archive is left to Inspect's reader, which says it is no log."""
    other = tmp_path / "other.eval"
    other.write_bytes(b"not a zip archive\n")
    with pytest.raises(RunFileError) as caught:
        from_inspect(other)
    assert str(caught.value).startswith(f"{other}:1: not an Inspect AI log Inspect can read: ")


def test_a_json_object_that_is_no_log_names_what_is_missing(tmp_path: Path) -> None:
    """A JSON file with the keys of a log but not its header raises RunFileError naming the missing field."""
    path = tmp_path / "fake.json"
    path.write_text(json.dumps({"version": 2, "eval": {"task": "x"}, "samples": []}), encoding="utf-8")
    with pytest.raises(RunFileError) as caught:
        load_runs(path)
    assert str(caught.value).startswith(f"{path}:1: not an Inspect AI log Inspect can read: eval.")


def _user_message_before_the_outputs(at: int) -> Callable[[dict[str, Any]], None]:
    """Send sample sum3/1 a user message after its first reply's calls, as its ``at``-th message: before both their
    outputs (3) or between them (4), in its messages and in the inputs of the model events after it."""

    def edit(data: dict[str, Any]) -> None:
        sample = _sample(data, "sum3", 1)
        hurry = {"id": "hurry", "role": "user", "content": "Hurry.", "source": "input"}
        sample["messages"].insert(at, hurry)
        for event in sample["events"]:
            if event["event"] == "model" and len(event["input"]) > at:
                event["input"].insert(at, hurry)

    return edit


@pytest.mark.parametrize("at", [3, 4])
def test_a_user_message_sent_between_a_call_and_its_output_is_shown_after_the_outputs(json_log: Path, at: int) -> None:
    """A user message sent after a reply's calls and before their outputs is shown after the outputs, as the
    Messages API has a turn's results first, with a warning naming it: the turn held it before a result, and
    ``check`` rejected the run."""
    from agentrender.cli import main

    _edit_json(json_log, _user_message_before_the_outputs(at))
    run = _by_id(from_inspect(json_log))["arith/sum3/1"]
    turn = [*SUM3[2]["content"], {"type": "text", "text": "Hurry."}]
    assert _view(run, 1)[-1] == {"role": "user", "content": turn}
    assert [warning.text for warning in run.warnings] == [
        f"samples[id=sum3, epoch=1].messages[{at}]: a user message sent before the output of a call of the reply "
        f"before it, shown after the outputs, as the Messages API has a turn's results first: messages[{at}]"
    ]
    assert main(["check", str(json_log)]) == 0


def _rewritten_messages(data: dict[str, Any]) -> None:
    """Rewrite sample sum3/1's first reply in its messages, after its model events were sent it (as a solver may)."""
    _sample(data, "sum3", 1)["messages"][2]["content"] = "Adding, rewritten."


def test_a_history_rewritten_after_a_call_is_a_warning_naming_the_sample_and_the_event(json_log: Path) -> None:
    """When a sample's messages are not what its model events were sent (a solver rewrote them), each event whose
    input differs from the run's view is a warning naming the sample and the event."""
    _edit_json(json_log, _rewritten_messages)
    run = _by_id(from_inspect(json_log))["arith/sum3/1"]
    texts = [warning.text for warning in run.warnings]
    assert len(texts) == 2, texts
    assert all(text.startswith("samples[id=sum3, epoch=1].events[") for text in texts)
    assert "its input differs from the run's view at step 1: message 1 differs" in texts[0]
    assert "at step 2" in texts[1]
    assert _view(run, 1)[1]["content"][0] == {"type": "text", "text": "Adding, rewritten."}
    sent = [call.record["request"].get("messages") for call in run.model_calls]
    assert sent[0] is None and sent[1] == SUM3[:3] and sent[2] == SUM3[:5]


def _cut_inside_a_turn(data: dict[str, Any]) -> None:
    """Make sample sum3/1's second model event sent its first messages but only one of the two results that answer
    the first reply."""
    events = [event for event in _sample(data, "sum3", 1)["events"] if event["event"] == "model"]
    del events[1]["input"][4]  # the second result of the first reply


def _ending_on_a_reply(data: dict[str, Any]) -> None:
    """Make sample sum3/1's second model event sent its first messages up to its first reply, with nothing after."""
    sample = _sample(data, "sum3", 1)
    events = [event for event in sample["events"] if event["event"] == "model"]
    events[1]["input"] = sample["messages"][:3]  # the system message, the question, the first reply


def test_a_model_event_sent_part_of_a_turn_is_a_warning_naming_it(json_log: Path) -> None:
    """An event whose input is the sample's first messages but stops inside a turn (one of the two results that
    answer a reply) was not sent the run's view at its step: a warning names it, and its request keeps what it
    was sent."""
    run = _by_id(from_inspect(_edit_json(json_log, _cut_inside_a_turn)))["arith/sum3/1"]
    texts = [warning.text for warning in run.warnings]
    assert len(texts) == 1, texts
    assert "its input differs from the run's view at step 1: message 2 differs" in texts[0]
    sent = [call.record["request"].get("messages") for call in run.model_calls]
    assert sent[0] is None and sent[2] is None
    assert sent[1][:2] == SUM3[:2] and sent[1][2]["content"] == SUM3[2]["content"][:1]


@pytest.mark.parametrize("pooled", [False, True], ids=["whole", "pooled"])
def test_a_model_event_sent_up_to_a_reply_is_a_warning_naming_it(json_log: Path, pooled: bool) -> None:
    """An event whose input is the sample's first messages up to a reply, with nothing after it, was not sent the
    run's view at any step (a view ends on a user turn): a warning names it, and its request keeps what it was
    sent; the events sent the sample's first turns are not named."""
    _edit_json(json_log, lambda data: (_ending_on_a_reply(data), pooled and _pool_the_inputs(data)))
    run = _by_id(from_inspect(json_log))["arith/sum3/1"]
    texts = [warning.text for warning in run.warnings]
    assert len(texts) == 1, texts
    assert texts[0].startswith("samples[id=sum3, epoch=1].events[")
    assert "its input differs from the run's view at step 1: the view has 3 messages, the input 2" in texts[0]
    sent = [call.record["request"].get("messages") for call in run.model_calls]
    assert sent[0] is None and sent[1] == SUM3[:2] and sent[2] is None


CRITIQUE = "Criticise this answer to 1 + 2 + 3: 6."


def _beside_the_conversation(before: int) -> Callable[[dict[str, Any]], None]:
    """An edit giving sample sum3/1 a model event made beside its conversation, as Inspect's ``self_critique`` makes
    one (the model asked to criticise an answer, in a conversation of one message), before its model event number
    ``before`` of the three its agent made (3: after the last)."""

    def edit(data: dict[str, Any]) -> None:
        events = _sample(data, "sum3", 1)["events"]
        agents = [at for at, event in enumerate(events) if event["event"] == "model"][:3]
        critique = json.loads(json.dumps(events[agents[0]]))
        critique.update(uuid="critique-event", input=[{"id": "critique-in", "role": "user", "content": CRITIQUE}])
        message = critique["output"]["choices"][0]["message"]
        message.update(id="critique-out", content="The answer is right.", tool_calls=None)
        critique["output"]["choices"][0]["stop_reason"] = "stop"
        events.insert(agents[before] if before < 3 else agents[-1] + 1, critique)

    return edit


@pytest.mark.parametrize("before", [0, 1, 3], ids=["before-the-first", "between", "after-the-last"])
def test_a_model_event_beside_the_conversation_is_a_call_of_the_step_it_was_made_for(
    json_log: Path, before: int
) -> None:
    """A model event sent another conversation (its input does not open with the sample's first message, and its
    reply is none of the sample's) is a call of the step being decided when it was made: that of the agent's next
    call, before it, so that each step's last call is still the reply its decision came from; after the agent's
    last call, of the step after it. A warning names it and says so, its request keeps what it was sent, and
    ``check`` finds no decision that disagrees with its reply (as step 0's last call, it did)."""
    from tests._support.cli import run_cli

    run = _by_id(from_inspect(_edit_json(json_log, _beside_the_conversation(before))))["arith/sum3/1"]
    steps = [0, 1, 2]
    steps.insert(before, before)
    assert [call.step for call in run.model_calls] == steps
    critique = run.model_calls[before]
    assert critique.response.id == "critique-out"
    assert critique.record["request"]["messages"] == [{"role": "user", "content": [{"type": "text", "text": CRITIQUE}]}]
    last = run.last_calls()
    agents = [call.response.id for call in run.model_calls if call is not critique]
    assert [last[step].response.id for step in range(3)] == agents
    assert all(render.decide(last[step].response) == run.steps[step].decision for step in range(3))
    (said,) = [warning.text for warning in run.warnings]
    assert said.startswith("samples[id=sum3, epoch=1].events[")
    assert "(critique-event) was made beside the conversation" in said
    assert f"It is placed on step {before}, the step being decided when it was made" in said
    code, out, _ = run_cli("check", str(json_log), "--run", "arith/sum3/1", "--json")
    (report,) = json.loads(out)
    assert code == 0 and report["errors"] == 0
    orphans = [finding["step"] for finding in report["findings"] if finding["code"] == "orphan-call"]
    assert orphans == ([3] if before == 3 else [])


def _opening_rewritten(data: dict[str, Any]) -> None:
    """Rewrite sample sum3/1's question in its messages, after its model events were sent it (as a solver may)."""
    _sample(data, "sum3", 1)["messages"][1]["content"] = "What is 1 + 2 + 3, rewritten?"


def test_a_model_event_whose_reply_is_the_samples_is_of_the_conversation_whatever_it_opens_with(
    json_log: Path,
) -> None:
    """An event whose input opens otherwise than the sample's messages (the question rewritten after it was sent)
    but whose reply is one of the sample's messages is a call of the conversation, of the step its input's replies
    count: each is named as differing from the run's view, none as made beside it."""
    run = _by_id(from_inspect(_edit_json(json_log, _opening_rewritten)))["arith/sum3/1"]
    assert [call.step for call in run.model_calls] == [0, 1, 2]
    texts = [warning.text for warning in run.warnings]
    assert len(texts) == 3 and not any("beside" in text for text in texts), texts
    assert all("its input differs from the run's view at step" in text for text in texts)
    assert all(text.endswith("message 0 differs") for text in texts)


# A compaction of sample sum3/1 as Inspect's summary strategy writes one (inspect_ai 0.3.170 on): its react agent asks
# the strategy to compact the messages before a call (``agent/_react.py``'s ``_model_generate``); the strategy sends
# the sample's system and input messages and a summary message of metadata ``summary`` (``model/_compaction/
# summary.py``), which the agent appends to the sample's messages; ``_compaction.py`` logs a CompactionEvent of the
# strategy's type, the model's role, ``source="inspect"``, the tokens before and after, and metadata of the strategy,
# the message counts and the trigger (``"threshold"``, or ``"forced"`` when the context overflowed); the model event
# after it was sent the compacted messages. The events are made by inspect_ai's own types, as it logs them.
SUMMARY = "[CONTEXT COMPACTION SUMMARY]\n\n<summary>\n1 + 2 = 3 and 2 + 3 = 5.\n</summary>\n\nPlease continue."


def _compaction_event(kind: str = "summary", trigger: str = "threshold") -> dict[str, Any]:
    from inspect_ai.event import CompactionEvent

    metadata = {"strategy": "CompactionSummary", "messages_before": 5, "messages_after": 3, "trigger": trigger}
    event = CompactionEvent(type=kind, source="inspect", tokens_before=900, tokens_after=120, metadata=metadata)
    return event.model_dump(mode="json", exclude_none=True)


def _compacted(data: dict[str, Any], kind: str = "summary") -> dict[str, Any]:
    """Compact sample sum3/1 before its second model event (of step 1), with Inspect's summary strategy (``kind``
    "summary") or its trim strategy (``"trim"``: the first step left out of what the next call was sent, no summary);
    the compaction event is returned."""
    from inspect_ai.model import ChatMessageUser

    sample = _sample(data, "sum3", 1)
    messages, events = sample["messages"], sample["events"]
    model = [number for number, event in enumerate(events) if event["event"] == "model"]
    compaction = _compaction_event(kind)
    if kind == "summary":
        summary = ChatMessageUser(content=SUMMARY, metadata={"summary": True}).model_dump(
            mode="json", exclude_none=True
        )
        messages.insert(5, summary)  # after the results of the first reply, as the agent appends it
        events[model[1]]["input"] = [*messages[:2], summary]
        events[model[2]]["input"] = [*messages[:2], summary, *messages[6:8]]
    else:
        events[model[2]]["input"] = [*messages[:2], *messages[5:7]]  # trimmed before the last call
        model[1] = model[2]
    compaction["span_id"] = events[model[1]]["span_id"]
    events.insert(model[1], compaction)
    if kind == "summary":  # the strategy's call to the model that wrote the summary, logged before the compaction
        events.insert(model[1], _summarising_event(events[model[1] + 1], [*messages[:5]]))
    return compaction


def _summarising_event(agent: dict[str, Any], conversation: list[dict[str, Any]]) -> dict[str, Any]:
    """The model event of the summary strategy's call (a copy of the agent's ``agent``, sent the ``conversation`` and
    the strategy's prompt, its reply the summary), as ``model/_compaction/summary.py`` makes it."""
    from inspect_ai.model import ChatMessageAssistant, ChatMessageUser

    event = json.loads(json.dumps(agent))
    event.pop("call", None)
    event["uuid"] = "summarising-event"
    prompt = ChatMessageUser(content="Write a continuation summary.").model_dump(mode="json", exclude_none=True)
    event["input"] = [*conversation, prompt]
    reply = ChatMessageAssistant(id="summary-out", content="1 + 2 = 3 and 2 + 3 = 5.", model="model")
    event["output"]["choices"][0]["message"] = reply.model_dump(mode="json", exclude_none=True)
    event["output"]["choices"][0]["stop_reason"] = "stop"
    return event


def test_a_summary_compaction_restarts_the_views_as_sent_with_what_the_model_was_sent_after_it(json_log: Path) -> None:
    """A compaction event of Inspect's summary strategy is the run's compaction: from the step of the model event
    after it, the views as sent are what that event and the ones after it were sent (the question and the summary,
    then the turns since), with no warning; its step, opening, trigger, token count and time are the header's, the
    event as logged is in the run's source, and ``show``, ``steps`` and ``check`` name it. The strategy's call that
    wrote the summary is a call beside the conversation, on the compaction's step, keeping what it was sent."""
    from tests._support.cli import run_cli

    compaction: dict[str, Any] = {}
    _edit_json(json_log, lambda data: compaction.update(_compacted(data)))
    run = _by_id(from_inspect(json_log))["arith/sum3/1"]
    assert run.warnings == ()
    assert [call.step for call in run.model_calls] == [0, 1, 1, 2]
    summarising = run.model_calls[1]  # the call that wrote the summary: beside the conversation, what it was sent kept
    assert summarising.response.id == "summary-out" and run.last_calls()[1].response.id != "summary-out"
    prompt = {"type": "text", "text": "Write a continuation summary."}
    assert summarising.record["request"]["messages"] == [
        *SUM3[:2],
        {**SUM3[2], "content": [*SUM3[2]["content"], prompt]},
    ]
    (restart,) = run.compactions
    opening = [{"type": "text", "text": QUESTIONS["sum3"]}, {"type": "text", "text": SUMMARY}]
    assert (restart.step, restart.trigger, restart.tokens_before) == (1, "threshold", 900)
    assert [block.to_dict() for block in restart.opening] == opening and restart.at == compaction["timestamp"]
    views = Views(run)
    seen = [[message.to_dict() for message in views.at(step).messages] for step in range(3)]
    assert seen == [
        SUM3[:1],
        [{"role": "user", "content": opening}],
        [{"role": "user", "content": opening}, *SUM3[3:5]],
    ]
    assert [call.record["request"].get("messages") is None for call in run.model_calls] == [True, False, True, True]
    (logged,) = run.header["source"]["compactions"]
    assert logged["type"] == "summary" and logged["tokens_after"] == 120 and logged["uuid"] == compaction["uuid"]
    code, out, _ = run_cli("show", str(json_log), "--run", "arith/sum3/1", "--at", "1", "--color", "never")
    assert code == 0 and "compaction (threshold) before step 1: the conversation restarted with its summary" in out
    code, out, _ = run_cli("steps", str(json_log), "--run", "arith/sum3/1", "--color", "never")
    assert code == 0 and any(line.split()[:3] == ["✂", "compaction", "threshold"] for line in out.splitlines())
    code, out, _ = run_cli("check", str(json_log), "--run", "arith/sum3/1", "--json")
    (report,) = json.loads(out)
    assert code == 0 and report["errors"] == 0 and report["warnings"] == 0


def _told_nothing(run: Run) -> Run:
    """The same run with no compaction saying which blocks of its opening are the summary (every block is taken)."""
    told = [{k: v for k, v in c.items() if k != "summary_blocks"} for c in run.header["compactions"]]
    return dataclasses.replace(run, header={**run.header, "compactions": told})


def test_of_an_inspect_summary_compactions_opening_only_the_summary_is_labelled_the_summary(
    json_log: Path, tmp_path: Path
) -> None:
    """The turn Inspect's summary strategy restarts the conversation with holds the sample's input, then the summary
    message (metadata ``summary``): the compaction's ``summary_blocks`` names the summary's block alone, so the view
    labels it the summary and the input as sent; the messages and bytes sent are those of the opening as before, and
    the run file written and read back keeps ``summary_blocks``."""
    from agentrender import load_run, write_run

    _edit_json(json_log, _compacted)
    run = _by_id(from_inspect(json_log))["arith/sum3/1"]
    (restart,) = run.compactions
    assert restart.summary_blocks == (1,) and run.header["compactions"][0]["summary_blocks"] == [1]
    views, before = Views(run), Views(_told_nothing(run))
    opening = views.at(1).opening
    assert [(fact.kind, fact.block.text) for fact in opening.blocks] == [
        ("as_sent", QUESTIONS["sum3"]),
        ("compaction", SUMMARY),
    ]
    assert [fact.kind for fact in before.at(1).opening.blocks] == ["compaction", "compaction"]
    for step in range(3):
        assert [m.to_dict() for m in views.at(step).messages] == [m.to_dict() for m in before.at(step).messages]
        assert views.at(step).bytes == before.at(step).bytes
    write_run(run, tmp_path / "again.jsonl")
    again = load_run(tmp_path / "again.jsonl")
    assert again.compactions[0].summary_blocks == (1,)
    assert [fact.kind for fact in Views(again).at(1).opening.blocks] == ["as_sent", "compaction"]


def test_an_inspect_restart_with_no_message_marked_the_summary_does_not_say_which_blocks_are(json_log: Path) -> None:
    """A compaction whose restarted turn holds no message of metadata ``summary`` (a strategy this importer does not
    know) leaves ``summary_blocks`` out: every block of its opening is taken for the summary, as before."""

    def unmarked(data: dict[str, Any]) -> None:
        _compacted(data)
        sample = _sample(data, "sum3", 1)
        for message in [*sample["messages"], *(m for e in sample["events"] for m in e.get("input") or ())]:
            message.pop("metadata", None)

    _edit_json(json_log, unmarked)
    run = _by_id(from_inspect(json_log))["arith/sum3/1"]
    (restart,) = run.compactions
    assert restart.summary_blocks is None and "summary_blocks" not in run.header["compactions"][0]
    assert [fact.kind for fact in Views(run).at(1).opening.blocks] == ["compaction", "compaction"]


def test_a_compaction_the_views_cannot_show_is_a_warning_and_each_call_after_it_keeps_what_it_was_sent(
    json_log: Path,
) -> None:
    """A compaction after which the model was not sent a conversation restarted with one user turn (Inspect's trim
    strategy: the question, then the turns from a later step) is no compaction of the run: a warning names its
    event, and the call after it, placed by its reply, keeps in its request what it was sent."""
    compaction: dict[str, Any] = {}
    _edit_json(json_log, lambda data: compaction.update(_compacted(data, "trim")))
    run = _by_id(from_inspect(json_log))["arith/sum3/1"]
    assert run.compactions == () and [call.step for call in run.model_calls] == [0, 1, 2]
    texts = [warning.text for warning in run.warnings]
    assert texts[0] == (
        "samples[id=sum3, epoch=1].events[22]: a trim compaction, which the run does not show: the model call after "
        "it was not sent a conversation restarted with one user turn (what the run's views can show): the views "
        "render the sample's whole conversation across it, and each call after it keeps in its request what it was "
        "sent"
    )
    assert (
        len(texts) == 2
        and "model event 23" in texts[1]
        and "its input differs from the run's view at step 2" in texts[1]
    )
    assert run.model_calls[2].record["request"]["messages"] == [SUM3[0], *SUM3[3:5]]
    assert run.header["source"]["compactions"][0]["type"] == "trim"


def test_a_compaction_with_no_model_call_after_it_is_a_warning(json_log: Path) -> None:
    """A compaction after the agent's last model call (nothing was sent after it) is named by a warning: what it
    left of the conversation is not known."""

    def edit(data: dict[str, Any]) -> None:
        events = _sample(data, "sum3", 1)["events"]
        last = max(number for number, event in enumerate(events) if event["event"] == "model" and number < 26)
        events.insert(last + 1, _compaction_event(trigger="forced"))

    run = _by_id(from_inspect(_edit_json(json_log, edit)))["arith/sum3/1"]
    assert run.compactions == ()
    assert [warning.text for warning in run.warnings] == [
        "samples[id=sum3, epoch=1].events[23]: a summary compaction, which the run does not show: no model call was "
        "made after it: what it left of the conversation is not known, nor shown"
    ]


def test_an_event_of_a_type_the_importer_does_not_know_is_named_once_by_type(json_log: Path) -> None:
    """Events of a type this importer does not know (a later Inspect's) are not dropped without a word: one warning
    per type names the first one's place and how many more there are, and the run's source counts them; the event
    types Inspect writes that hold nothing the model was sent beyond the sample's messages (state, tool, span, score,
    ...) are left out quietly, as before."""

    def edit(data: dict[str, Any]) -> None:
        events = _sample(data, "sum3", 1)["events"]
        for at in (30, 12, 5):
            events.insert(at, {"event": "telepathy", "timestamp": "2026-12-06T00:00:00+00:00", "working_start": 0})

    run = _by_id(from_inspect(_edit_json(json_log, edit)))["arith/sum3/1"]
    assert [warning.text for warning in run.warnings] == [
        "samples[id=sum3, epoch=1].events[5]: an event of type 'telepathy' (and 2 more events of the type), which "
        "this importer does not know, is not read: the run may not show what it did (the run's source counts it, "
        "under unread_events)"
    ]
    assert run.header["source"]["unread_events"] == {"telepathy": 3}
    assert _by_id(from_inspect(json_log))["arith/sum3/2"].warnings == ()


def _no_content_before_calls(version: str) -> Callable[[dict[str, Any]], None]:
    """An edit: the log written by Inspect ``version``, sample sum3/1's first reply of no content (``[]``) before its
    two tool calls, in its messages and in every model event's input that holds it (as Claude's replies of tool
    calls alone are logged)."""

    def edit(data: dict[str, Any]) -> None:
        data["eval"]["packages"]["inspect_ai"] = version
        sample = _sample(data, "sum3", 1)
        reply = sample["messages"][2]["id"]
        inputs = [event["input"] for event in sample["events"] if event["event"] == "model"]
        for message in [*sample["messages"], *(message for given in inputs for message in given)]:
            if message.get("id") == reply:
                message["content"] = []

    return edit


@pytest.mark.parametrize(("version", "filled"), [("0.3.90", True), ("0.3.146", True), ("0.3.147", False)])
def test_a_reply_of_tool_calls_alone_is_sent_as_the_logs_inspect_sent_it(
    json_log: Path, version: str, filled: bool
) -> None:
    """An assistant message of no content and tool calls was sent by Inspect's Anthropic provider with "(no content)"
    before its calls until 0.3.146, and with its calls alone from 0.3.147: the view follows the version that wrote
    the log (every view of an older log differed from what was sent from that reply on), which the run's source
    names; what the model events were sent agrees, so no warning says otherwise."""
    run = _by_id(from_inspect(_edit_json(json_log, _no_content_before_calls(version))))["arith/sum3/1"]
    assert run.header["source"]["inspect_ai"] == version
    sent = _view(run, 1)[1]["content"]
    assert [block["type"] for block in sent] == ["text", "tool_use", "tool_use"] if filled else ["tool_use"] * 2
    if filled:
        assert sent[0] == {"type": "text", "text": "(no content)"}
    assert run.warnings == ()


def test_content_with_no_messages_api_block_is_a_warning_not_a_loss_in_silence(json_log: Path) -> None:
    """Audio in a user message has no Messages API block: it is left out with a warning naming the sample,
    the message and the content item."""

    def add_audio(data: dict[str, Any]) -> None:
        message = _sample(data, "double", 1)["messages"][1]
        message["content"] = [
            {"type": "text", "text": message["content"]},
            {"type": "audio", "audio": "a.wav", "format": "wav"},
        ]

    _edit_json(json_log, add_audio)
    run = _by_id(from_inspect(json_log))["arith/double/1"]
    assert (
        "samples[id=double, epoch=1].messages[1].content[1]: 'audio' content has no Messages API block: left out"
        in [warning.text for warning in run.warnings]
    )
    assert _view(run, 0) == [{"role": "user", "content": [{"type": "text", "text": QUESTIONS["double"]}]}]


PLACEHOLDER = {
    "model": "mockllm/model",
    "completion": "",
    "choices": [
        {
            "message": {"id": "x", "content": "", "source": "generate", "role": "assistant", "model": "mockllm/model"},
            "stop_reason": "stop",
        }
    ],
}
"""The output Inspect records for a model call that failed: an empty reply the model never gave."""


@pytest.mark.parametrize(
    "output", [{"model": "mockllm/model", "choices": []}, PLACEHOLDER], ids=["none", "placeholder"]
)
def test_a_failed_model_event_is_a_warning_and_no_call(json_log: Path, output: dict[str, Any]) -> None:
    """A model event that got no reply (its output has no choices, or it has an ``error`` and its output is Inspect's
    empty placeholder) is a warning naming it, not a model call."""

    def fail(data: dict[str, Any]) -> None:
        sample = _sample(data, "double", 1)
        event = next(e for e in sample["events"] if e["event"] == "model")
        event["output"] = output
        event["error"] = "RateLimitError: slow down\ntraceback..."

    _edit_json(json_log, fail)
    run = _by_id(from_inspect(json_log))["arith/double/1"]
    assert [call.step for call in run.model_calls] == [1]
    (warning,) = [w.text for w in run.warnings]
    assert warning.startswith("samples[id=double, epoch=1].events[")
    assert warning.endswith("model event has no reply (RateLimitError: slow down): no model call is made")


# A model event's output of the wrong shape: the field given a value, and what agentrender's reader says of it.
WRONG_OUTPUTS = {
    "output": (5, "expected an object, got int"),
    "output.choices": (5, "expected a list of choices, got int"),
    "output.choices[0]": (5, "expected an object, got int"),
    "output.choices[0].message": (5, "expected an object, got int"),
    "output.choices[0].message.tool_calls[0].function": (5, "expected a string, got int"),
    "output.choices[0].message.content[0].signature": (7, "expected a string, got int"),
}


def _wrong_output(field: str) -> Callable[[dict[str, Any]], str]:
    """An edit of sample sum3/1's first model event (its output only, not the sample's messages): ``field`` of it
    given the value of ``WRONG_OUTPUTS``; the edit gives the event's place (``events[11]``)."""

    def edit(data: dict[str, Any]) -> str:
        events = _sample(data, "sum3", 1)["events"]
        number, event = next((n, e) for n, e in enumerate(events) if e["event"] == "model")
        value = WRONG_OUTPUTS[field][0]
        message = event["output"]["choices"][0]["message"]
        if field.endswith("signature"):
            message["content"] = [
                {"type": "reasoning", "reasoning": "Add them.", "signature": value},
                {"type": "text", "text": "Adding."},
            ]
        elif field.endswith("function"):
            message["tool_calls"][0]["function"] = value
        else:
            *path, last = field.replace("[0]", ".0").split(".")
            place: Any = event
            for key in path:
                place = place[int(key) if key.isdigit() else key]
            place[int(last) if last.isdigit() else last] = value
        return f"events[{number}]"

    return edit


@pytest.mark.parametrize("field", list(WRONG_OUTPUTS))
def test_a_model_output_of_the_wrong_shape_is_refused_naming_its_field(
    json_log: Path, monkeypatch: pytest.MonkeyPatch, field: str
) -> None:
    """A model event's output of the wrong shape (not an object, choices not a list, a tool call's function or a
    reasoning's signature not a string: values its record's reply would carry as they are) raises RunFileError:
    without inspect_ai, agentrender's naming the event's field; with it, Inspect's reader's, which refuses the log."""
    from agentrender.imports import inspect as importer

    at: list[str] = []
    _edit_json(json_log, lambda data: at.append(_wrong_output(field)(data)))
    with monkeypatch.context() as patched:
        patched.setattr(importer, "_has_inspect", lambda: False)
        with pytest.raises(RunFileError) as ours:
            from_inspect(json_log)
    said = WRONG_OUTPUTS[field][1]
    assert str(ours.value) == f"{json_log}:1: samples[id=sum3, epoch=1].{at[0]}.{field}: {said}"
    with pytest.raises(RunFileError) as theirs:
        from_inspect(json_log)
    inspects = field.replace("content[0].signature", "content.str")
    assert str(theirs.value).startswith(f"{json_log}:1: samples[id=sum3, epoch=1].{at[0]}.model.{inspects}: ")


def _reply_of(event: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = event["output"]["choices"][0]["message"]
    return message


def _call_of(event: dict[str, Any]) -> dict[str, Any]:
    call: dict[str, Any] = _reply_of(event)["tool_calls"][0]
    return call


def _attached(event: dict[str, Any]) -> None:
    """The reply's content as content items, a text and an argument of its call read back from attachments."""
    _reply_of(event)["content"] = [{"type": "text", "text": "attachment://0123"}]
    _call_of(event)["arguments"] = {"x": "attachment://0123", "y": ["attachment://0123", 2]}


# Edits of sample sum3/1's first model event's output: whether the typed decode takes it (``inspect_log.Output``),
# and the edit. Those it refuses have the sample read by the general decode, whose outputs the importer checks.
OUTPUT_EDITS: dict[str, tuple[bool, Callable[[dict[str, Any]], Any]]] = {
    "as-written": (True, lambda event: None),
    "no-choices": (True, lambda event: event["output"].pop("choices")),
    "no-message": (True, lambda event: event["output"]["choices"][0].pop("message")),
    "two-choices": (True, lambda event: event["output"]["choices"].append(event["output"]["choices"][0])),
    "attachments": (True, _attached),
    "parse-error": (True, lambda event: _call_of(event).update(parse_error="bad JSON")),
    "no-arguments": (True, lambda event: _call_of(event).pop("arguments")),
    "usage-of-a-bool": (True, lambda event: event["output"].update(usage={"input_tokens": True, "output_tokens": 3})),
    "content-null": (True, lambda event: _reply_of(event).update(content=None)),
    "failed": (True, lambda event: event.update(error="RateLimitError")),
    "calls-of-0": (False, lambda event: _reply_of(event).update(tool_calls=0)),
    "function-empty": (False, lambda event: _call_of(event).update(function="")),
    "function-int": (False, lambda event: _call_of(event).update(function=5)),
    "no-call-id": (False, lambda event: _call_of(event).pop("id")),
    "second-choice-int": (False, lambda event: event["output"]["choices"].append(5)),
    "message-of-0": (False, lambda event: event["output"]["choices"][0].update(message=0)),
    "content-and-function-wrong": (
        False,
        lambda event: (_reply_of(event).update(content=5), _call_of(event).update(function=5)),
    ),
    "failed-and-choice-wrong": (False, lambda event: event.update(error="RateLimitError", output={"choices": [5]})),
}


@pytest.mark.parametrize("edit", list(OUTPUT_EDITS))
def test_a_model_output_imports_alike_read_typed_or_as_the_logs_json(
    json_log: Path, monkeypatch: pytest.MonkeyPatch, edit: str
) -> None:
    """A model event's output is read as typed structs (``Output``) where their types take it as it stands, and the
    import gives the same runs and warnings, or the same error, as when the sample is read by the general decode
    (its outputs the JSON the log holds, checked by ``inspect._output`` as far as the importer reads them): for each
    edit the types take, and each they refuse."""
    from agentrender.imports import inspect as importer
    from agentrender.imports import inspect_log
    from agentrender.imports.inspect_log import Output

    typed, change = OUTPUT_EDITS[edit]

    def edited(data: dict[str, Any]) -> None:
        sample = _sample(data, "sum3", 1)
        sample.setdefault("attachments", {})["0123"] = "an attached text"
        change(next(e for e in sample["events"] if e["event"] == "model"))

    _edit_json(json_log, edited)
    sample = next(s for s in inspect_log.read_log(str(json_log)).samples or () if s.id == "sum3" and s.epoch == 1)
    event = next(e for e in sample.events if e.event == "model")
    assert isinstance(event.output, Output) is typed

    monkeypatch.setattr(importer, "_has_inspect", lambda: False)  # this package's words, not Inspect's reader's
    as_typed, general = _both_decodes(_imports, json_log, monkeypatch)
    assert as_typed == general


def test_the_committed_log_rewritten_as_json_imports_as_it_does(json_log: Path) -> None:
    """The committed log written again by Inspect as .json imports as the .eval does: the edits the other tests
    make to it are what they see."""
    assert [(r.run_id, len(r.steps), len(r.model_calls)) for r in from_inspect(json_log)] == [
        (r.run_id, len(r.steps), len(r.model_calls)) for r in from_inspect(FIXTURE)
    ]


def test_a_log_with_no_samples_says_so(json_log: Path) -> None:
    """A log whose samples are gone (a run that failed before any) raises RunFileError naming the file and the
    log's status, rather than giving no run."""
    _edit_json(json_log, lambda data: data.update(samples=[], status="error"))
    with pytest.raises(RunFileError) as caught:
        load(json_log)
    assert str(caught.value) == f"{json_log}:1: the Inspect log holds no samples (its status is 'error')"


def test_the_benchmark_runs_on_tiny_logs(
    capsys: pytest.CaptureFixture[str], import_bench: Callable[[str], ModuleType]
) -> None:
    """bench/bench_inspect.py keeps working: on .eval and .json logs of 2 and 5 turns it checks each import and
    prints its ratio to json.loads (no timing is asserted)."""
    bench = import_bench("bench_inspect")
    bench.main(["--turns", "2", "5", "--json-turns", "2", "5", "--repeat", "1", "--inspect"])
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(" (")[0].split() for line in lines] == [
        ["2", "turns", ".eval"],
        ["5", "turns", ".eval"],
        ["2", "turns", ".json"],
        ["5", "turns", ".json"],
    ]
    assert all("json.loads" in line and "read_eval_log" in line and line.endswith("x") for line in lines)


def _submit_only_in_the_last_event(data: dict[str, Any]) -> None:
    """Make sample sum3/1 end as Inspect's ``react`` agent ends: its last reply, a ``submit`` call, is only in
    its model event's output, not in the sample's messages."""
    sample = _sample(data, "sum3", 1)
    last = sample["messages"].pop()
    event = next(
        e
        for e in sample["events"]
        if e["event"] == "model" and e["output"]["choices"][0]["message"].get("id") == last["id"]
    )
    message = event["output"]["choices"][0]["message"]
    message.update(content="", tool_calls=[{"id": "call_submit", "function": "submit", "arguments": {"answer": "6"}}])
    event["output"]["choices"][0]["stop_reason"] = "tool_calls"


def test_a_final_submit_only_in_the_last_model_event_is_the_runs_last_step(json_log: Path) -> None:
    """The last model event's reply, missing from the sample's messages (a ``submit`` call), is the run's last
    step: its decision is the call, as ``decide`` reads the recorded reply, and the call is that step's."""
    _edit_json(json_log, _submit_only_in_the_last_event)
    run = _by_id(from_inspect(json_log))["arith/sum3/1"]
    assert len(run.steps) == 3 and run.warnings == ()
    last = run.steps[-1].decision
    assert (last.kind, last.tool, last.args) == ("tool_call", "submit", {"answer": "6"})
    call = run.model_calls[-1]
    assert call.step == 2
    assert render.decide(call.response) == last


def test_a_samples_end_is_the_runs_end_record(json_log: Path) -> None:
    """How Inspect says a sample ended is the run's end: done is ``completed``, a limit ``stopped`` (naming it),
    an error ``failed`` (with its first line); what Inspect wrote stays in the source."""

    def end_three_ways(data: dict[str, Any]) -> None:
        _sample(data, "sum3", 1)["limit"] = {"type": "message", "limit": 5}
        _sample(data, "double", 1)["error"] = {
            "message": "RuntimeError: boom\nmore",
            "traceback": "",
            "traceback_ansi": "",
        }

    _edit_json(json_log, end_three_ways)
    runs = _by_id(from_inspect(json_log))
    ends = {run_id: {k: v for k, v in run.end.items() if k != "at"} for run_id, run in runs.items() if run.end}
    assert ends == {
        "arith/sum3/1": {"type": "end", "status": "stopped", "reason": "message_limit"},
        "arith/double/1": {"type": "end", "status": "failed", "reason": "error", "error": "RuntimeError: boom"},
        "arith/sum3/2": {"type": "end", "status": "completed", "reason": "completed"},
        "arith/double/2": {"type": "end", "status": "completed", "reason": "completed"},
    }
    assert runs["arith/sum3/1"].header["source"]["limit"] == {"type": "message", "limit": 5}
    assert runs["arith/sum3/2"].end["at"].startswith("20")


@pytest.mark.parametrize(("padded", "size"), [(1, 40 << 20), (4, 6 << 20)])
def test_an_eval_zip_bomb_is_refused_before_inspect_reads_it(tmp_path: Path, padded: int, size: int) -> None:
    """The committed log with samples padded with spaces (still valid JSON) that inflate past 8 MiB + 100 times
    their compressed size (one member, or all of them while each is under the bound alone) is a RunFileError
    naming the policy, not read."""
    import inspect_ai.log  # noqa: F401  (reads the fixture's zstd members: Inspect adds zstd to zipfile)

    path = tmp_path / "bomb.eval"
    with zipfile.ZipFile(FIXTURE) as source, zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as bomb:
        samples = [name for name in source.namelist() if name.startswith("samples/")][:padded]
        for name in source.namelist():
            pad = b" " * size if name in samples else b""
            bomb.writestr(name, source.read(name) + pad)
    assert path.stat().st_size < 1 << 20
    with pytest.raises(RunFileError) as caught:
        load(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:1: the .eval archive's ")
    assert message.endswith("refused as a zip bomb")
    assert (f"member {samples[0]!r}" in message) == (padded == 1)


def _pool_the_inputs(data: dict[str, Any]) -> None:
    """Keep each model event's input as Inspect condenses it: ``input_refs`` into the sample's message pool."""
    for sample in data["samples"]:
        pool: list[Any] = []
        for event in sample["events"]:
            if event["event"] == "model" and event.get("input"):
                event["input_refs"] = [[len(pool), len(pool) + len(event["input"])]]
                pool.extend(event["input"])
                event["input"] = []
        sample["events_data"] = {"messages": pool, "calls": []}


def _pool_as_inspect_writes(data: dict[str, Any]) -> None:
    """Keep each model event's input as Inspect writes an ``.eval``: each message once in the sample's pool, an
    input that goes on from the pool's first messages one range from its start, any other input ranges of it."""
    for sample in data["samples"]:
        pool: list[Any] = []
        for event in sample["events"]:
            if event["event"] == "model" and event.get("input"):
                given = event["input"]
                shared = next((k for k, (a, b) in enumerate(zip(pool, given, strict=False)) if a != b), None)
                shared = min(len(pool), len(given)) if shared is None else shared
                rest = given[shared:]
                if shared == len(pool):  # the input goes on from the pool's whole
                    pool.extend(rest)
                    refs = [[0, len(pool)]]
                else:
                    refs = [[0, shared]] if shared else []
                    refs += [[len(pool), len(pool) + len(rest)]] if rest else []
                    pool.extend(rest)
                event["input_refs"] = refs
                event["input"] = []
        sample["events_data"] = {"messages": pool, "calls": []}


@pytest.mark.parametrize("resolves", [True, False])
@pytest.mark.parametrize("kind", ["json", "eval"])
def test_inputs_kept_as_references_into_the_message_pool_are_what_was_sent(
    json_log: Path, monkeypatch: pytest.MonkeyPatch, resolves: bool, kind: str
) -> None:
    """A log whose model events keep their input as ``input_refs`` into the sample's message pool (as the
    committed .eval does) imports as the log of whole inputs does, with no warning, whether the installed
    inspect_ai resolves them or not."""
    whole = [(r.run_id, [c.step for c in r.model_calls], r.warnings) for r in from_inspect(json_log)]
    if kind == "json":
        _edit_json(json_log, _pool_the_inputs)
    else:
        json_log = FIXTURE
    if not resolves:  # an inspect_ai that does not know the pool (older than the log) leaves the references
        for module in [m for name, m in sys.modules.items() if name.startswith("inspect_ai.")]:
            if hasattr(module, "resolve_sample_events_data"):
                monkeypatch.setattr(module, "resolve_sample_events_data", lambda sample: sample)
            if hasattr(module, "resolve_model_event_inputs"):
                monkeypatch.setattr(module, "resolve_model_event_inputs", lambda events, pool: list(events))
    runs = from_inspect(json_log)
    assert [(r.run_id, [c.step for c in r.model_calls], r.warnings) for r in runs] == whole
    sum3 = _by_id(runs)["arith/sum3/1"]
    assert [call.record["request"].get("messages") for call in sum3.model_calls] == [None, None, None]


def test_what_inspect_logs_while_reading_stays_off_the_terminal_and_is_a_warning(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    """A warning inspect_ai logs while it reads a log (one only its reader reads exactly) reaches neither the
    terminal nor the root logger: it is a warning on each run, once; what it logs below a warning is dropped."""
    import logging

    import inspect_ai.log

    real = inspect_ai.log.read_eval_log

    def chatty(*args: Any, **kwargs: Any) -> Any:
        logger = logging.getLogger("inspect_ai.log._file")
        logger.warning("Log file written by a newer inspect_ai\ndetails")
        logger.warning("Log file written by a newer inspect_ai\ndetails")
        logger.info("reading")
        return real(*args, **kwargs)

    monkeypatch.setattr(inspect_ai.log, "read_eval_log", chatty)
    caplog.set_level(logging.DEBUG)
    runs = from_inspect(OLDER_LOG)  # a log agentrender leaves to Inspect's reader
    assert [w.text for w in runs[0].warnings] == ["inspect_ai, reading the log: Log file written by a newer inspect_ai"]
    assert all(len(run.warnings) == 1 for run in runs)
    assert [record for record in caplog.records if record.name.startswith("inspect_ai")] == []
    assert capfd.readouterr() == ("", "")
    assert logging.getLogger("inspect_ai").propagate  # as it was


def test_an_empty_reply_is_sent_as_inspect_sends_it_and_check_finds_no_api_error(json_log: Path) -> None:
    """An empty reply (Inspect logs content ``""``) is the text ``(no content)``, as Inspect's Anthropic provider
    sends it (the API refuses empty text blocks), so ``agentrender check`` finds nothing the API would refuse."""
    from agentrender.cli import main

    def empty_reply(data: dict[str, Any]) -> None:
        sample = _sample(data, "double", 1)
        last = sample["messages"][-1]
        last["content"] = ""
        for event in sample["events"]:
            if event["event"] == "model" and event["output"]["choices"][0]["message"].get("id") == last["id"]:
                event["output"]["choices"][0]["message"]["content"] = ""

    _edit_json(json_log, empty_reply)
    run = from_inspect(json_log)[0]
    assert run.run_id == "arith/double/1"  # the run load and check read
    assert [block.text for block in run.model_calls[-1].response.content] == ["(no content)"]
    assert main(["check", str(json_log)]) == 0


def test_a_real_samples_failed_results_in_its_opening_are_marked_failed() -> None:
    """A real sample that opens with tool results that failed (Inspect's own log of a tool output over its limit):
    the view's opening marks each failed, as a step's result is marked, sized by its content; show's legend, its
    blocks and the page say so."""
    from agentrender.html import payload
    from agentrender.views import Views
    from tests._support.cli import run_cli

    run = from_inspect(OLDER_LOG)[0]
    opening = Views(run).at(None).opening
    flagged = [fact for fact in opening.blocks if fact.block.is_error]
    assert len(flagged) == 11 and all(fact.failed for fact in flagged)
    assert [fact.shown_bytes for fact in flagged] == [len(fact.block.content.encode()) for fact in flagged]
    assert not any(fact.failed for fact in opening.blocks if not fact.block.is_error)
    code, out, _ = run_cli("show", str(OLDER_LOG), "--width", "150", "--color", "never")
    assert code == 0 and "legend \u258copening  \u2717 failed" in out and out.count("opening \u2717 failed") == 11
    page = payload(run)
    (opening_rows,) = page["modes"][0]["openings"]
    assert sum(row[5] & 1 for row in opening_rows) == 11  # the page's block flags: 1 is failed


CUT_AT_THE_CAP = (
    ROOT / "tests/fixtures/real/inspect/meridianlabs-ai-inspect_flow"
    / "2026-01-09T18-27-59+00-00_mmlu-0-shot_AaMwC64MK8EccYgfhUqy3n.eval"
)  # fmt: skip
"""A real log whose one model call stopped at its output cap (max_tokens 16): a redacted reasoning block, no text."""


def test_a_real_reply_cut_at_the_output_cap_is_truncated_and_check_is_clean() -> None:
    """The step of a reply that stopped at ``max_tokens`` is decided ``truncated``, as ``render.decide`` decides the
    call's reply, so ``check`` finds nothing wrong in the log (it said the decision disagreed)."""
    from tests._support.cli import run_cli

    (run,) = from_inspect(CUT_AT_THE_CAP)
    (call,) = run.model_calls
    assert call.response.stop_reason == "max_tokens" and run.steps[0].decision.kind == "truncated"
    assert run.steps[0].decision == render.decide(call.response)
    code, out, _ = run_cli("check", "--all", str(CUT_AT_THE_CAP), "--color", "never")
    assert code == 0 and "clean" in out


SUMMARISED_REASONING = (
    ROOT / "tests/fixtures/real/inspect/meridianlabs-ai-inspect_flow"
    / "2025-12-11T18-00-43+00-00_gpqa-diamond_NL3aygdanSgqAJfzoMFuH6.eval"
)  # fmt: skip
"""A real log of openai/gpt-5 whose replies each hold a redacted reasoning with its summary, and text."""


def test_an_openai_reasoning_with_its_summary_is_a_thinking_block_of_the_summary() -> None:
    """A redacted reasoning with a summary (Inspect's record of an OpenAI reasoning item: its encrypted content and
    the text OpenAI gave of it) is a thinking block of the summary, signed with the encrypted content, in the reply
    and in the conversation: the summary is seen, where the import left it out for a redacted block of the data."""
    runs = from_inspect(SUMMARISED_REASONING)
    with zipfile.ZipFile(SUMMARISED_REASONING) as archive:
        samples = [json.loads(archive.read(name)) for name in archive.namelist() if name.startswith("samples/")]
    reasoning = {sample["epoch"]: sample["messages"][-1]["content"][0] for sample in samples}
    assert len(runs) == len(reasoning) == 4
    for run in runs:
        given = reasoning[int(run.run_id.rsplit("/", 1)[1])]
        assert given["redacted"] and given["summary"] and given["reasoning"].startswith("gAAAAA")
        (call,) = run.model_calls
        assert [block.type for block in call.response.content] == ["thinking", "text"]
        thinking = call.response.content[0]
        assert (thinking.text, thinking.signature) == (given["summary"], given["reasoning"])
        assert run.steps[0].decision.kind == "no_tool_call" and run.steps[0].decision.reason.endswith("ANSWER: B")
        assert not run.warnings
    shown = json.dumps(_view(runs[0], 1))
    assert json.dumps(reasoning[1]["summary"])[1:-1] in shown and "redacted_thinking" not in shown


CANCELLED_BUT_SCORED = (
    ROOT / "tests/fixtures/real/inspect/UKGovernmentBEIS-inspect_ai/2025-05-12T20-28-13-04-00_popularity.json"
)
"""A real Inspect 0.3.95 log cancelled after its three samples were answered and scored, none with ``completed_at``."""


def test_a_scored_sample_of_a_cancelled_log_completed() -> None:
    """A sample with scores finished its solver, though its log was cancelled and (before Inspect wrote it) records
    no ``completed_at``: its run ends ``completed``, where it said the source records no end."""
    runs = from_inspect(CANCELLED_BUT_SCORED)
    assert json.loads(CANCELLED_BUT_SCORED.read_text(encoding="utf-8"))["status"] == "cancelled"
    assert [run.end for run in runs] == [{"type": "end", "status": "completed", "reason": "completed"}] * 3


REAL_LOGS = sorted((ROOT / "tests" / "fixtures" / "real" / "inspect").rglob("*.json"))
REAL_EVALS = sorted((ROOT / "tests" / "fixtures" / "real" / "inspect").rglob("*.eval"))


def _imported(runs: list[Run]) -> list[tuple[str, bytes, tuple[Any, ...]]]:
    """What an import gives, to compare exactly: each run's id, its records as JSON, its warnings."""
    return [(run.run_id, msgspec.json.encode(list(run.records or ())), run.warnings) for run in runs]


def _both_ways(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``path`` imports to the same runs through agentrender's reader of the log's JSON as through Inspect's own
    reader (``read_eval_log``), and the first read does not call Inspect's; and to the same runs when every model
    event's input is checked against the rendered view, as those not sent the sample's first turns are."""
    import inspect_ai.log

    from agentrender.imports import inspect as importer
    from agentrender.imports.inspect_log import NeedsInspect

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("Inspect's reader was called")

    def needs_inspect(path: str, *notes: Any) -> Any:
        raise NeedsInspect("this test reads the log with Inspect's reader")

    with monkeypatch.context() as patched:
        patched.setattr(inspect_ai.log, "read_eval_log", refuse)
        ours = _imported(from_inspect(path))
    with monkeypatch.context() as patched:
        patched.setattr(importer, "read_log", needs_inspect)
        theirs = _imported(from_inspect(path))
    assert ours == theirs
    with monkeypatch.context() as patched:
        patched.setattr(importer, "_sent_the_sample", lambda *args: False)
        rendered = _imported(from_inspect(path))
    assert ours == rendered


# Real logs older than the eval's ``eval_id`` (Inspect's reader composes one from a hash of the run): read by
# Inspect's reader, as before.
OLDER_THAN_EVAL_ID = {
    "log_tool_call_error.json",
    "2024-11-05T13-31-45-05-00_input-task_8zXjbRzCWrL9GXiXo2vus9.json",
    "log_images_tc.json",
}


@pytest.mark.parametrize("path", [FIXTURE, *REAL_LOGS], ids=lambda path: path.name)
def test_each_fixture_imports_alike_through_either_reader(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The committed log and each real Inspect log import to the same runs (records and warnings, byte for byte)
    whether read as JSON by agentrender or by Inspect's ``read_eval_log``; a log only Inspect's reader reads
    exactly (older than ``eval_id``) is said to be one."""
    from agentrender.imports.inspect_log import NeedsInspect, read_log

    if path.name in OLDER_THAN_EVAL_ID:
        with pytest.raises(NeedsInspect, match="eval_id"):
            read_log(str(path))
        return
    _both_ways(path, monkeypatch)


def _limit_and_error(data: dict[str, Any]) -> None:
    """A limit and an error; numbers Inspect reads as floats written as ints (a limit, a model event's time)."""
    _sample(data, "sum3", 1)["limit"] = {"type": "message", "limit": 5}
    next(e for e in _sample(data, "sum3", 1)["events"] if e["event"] == "model")["working_time"] = 2
    _sample(data, "double", 1)["error"] = {"message": "RuntimeError: boom\nmore", "traceback": "", "traceback_ansi": ""}


def _audio_and_citations(data: dict[str, Any]) -> None:
    message = _sample(data, "double", 1)["messages"][1]
    message["content"] = [
        {"type": "text", "text": "Hello", "citations": [{"type": "url", "url": "https://example.com"}]},
        {"type": "audio", "audio": "data:audio/wav;base64,AAAA", "format": "wav"},
        {"type": "image", "image": "data:image/png;base64,iVBO"},
    ]


def _cited_reply(data: dict[str, Any]) -> None:
    """Give sample sum3/1's first reply a text with Inspect's citations, wherever the log holds it (its messages,
    the model event it is the output of, the inputs after)."""
    sample = _sample(data, "sum3", 1)
    reply = next(message for message in sample["messages"] if message["role"] == "assistant")
    content = [{"type": "text", "text": "Adding.", "citations": [{"type": "url", "url": "https://example.com"}]}]
    for event in sample["events"]:
        if event["event"] == "model":
            said = [event["output"]["choices"][0]["message"], *(event.get("input") or ())]
            for message in said:
                if message.get("id") == reply["id"]:
                    message["content"] = content
    reply["content"] = content


def _rewritten_history(data: dict[str, Any]) -> None:
    sample = _sample(data, "sum3", 1)
    event = [e for e in sample["events"] if e["event"] == "model"][1]
    event["input"][0]["content"] = "a question the sample never asked"


def _attachments(data: dict[str, Any]) -> None:
    """Condense each sample's user texts to attachments, as Inspect does with long texts."""
    for sample in data["samples"]:
        for message in [*sample["messages"], *(m for e in sample["events"] for m in e.get("input") or ())]:
            if message["role"] == "user" and isinstance(message["content"], str):
                key = f"{abs(hash(message['content'])):032x}"[:32]
                sample.setdefault("attachments", {})[key] = message["content"]
                message["content"] = f"attachment://{key}"


@pytest.mark.parametrize(
    "edit",
    [
        None,
        _pool_the_inputs,
        _submit_only_in_the_last_event,
        _limit_and_error,
        _audio_and_citations,
        _cited_reply,
        lambda data: (_cited_reply(data), _pool_as_inspect_writes(data)),
        _rewritten_history,
        _rewritten_messages,
        _cut_inside_a_turn,
        _ending_on_a_reply,
        lambda data: (_ending_on_a_reply(data), _pool_the_inputs(data)),
        _pool_as_inspect_writes,
        lambda data: (_rewritten_messages(data), _pool_as_inspect_writes(data)),
        lambda data: (_rewritten_history(data), _pool_as_inspect_writes(data)),
        lambda data: (_cut_inside_a_turn(data), _pool_as_inspect_writes(data)),
        lambda data: (_ending_on_a_reply(data), _pool_as_inspect_writes(data)),
        _attachments,
        lambda data: (_attachments(data), _pool_the_inputs(data)),
        _offered_in_turn,
        _no_content_before_calls("0.3.90"),
        _compacted,
        lambda data: (_compacted(data), _pool_as_inspect_writes(data)),
        lambda data: _compacted(data, "trim"),
    ],
    ids=[
        "as-written",
        "pooled",
        "submit",
        "limit-error",
        "audio",
        "cited-reply",
        "cited-reply-inspect-pooled",
        "rewritten",
        "rewritten-messages",
        "cut-turn",
        "ending-on-reply",
        "ending-on-reply-pooled",
        "inspect-pooled",
        "rewritten-messages-inspect-pooled",
        "rewritten-inspect-pooled",
        "cut-turn-inspect-pooled",
        "ending-on-reply-inspect-pooled",
        "attachments",
        "attachments-pooled",
        "tools-in-turn",
        "no-content-before-calls",
        "compacted",
        "compacted-inspect-pooled",
        "compacted-trim",
    ],
)
def test_a_json_log_imports_alike_through_either_reader(
    json_log: Path, monkeypatch: pytest.MonkeyPatch, edit: Callable[[dict[str, Any]], None] | None
) -> None:
    """The committed log written as .json, as written and with each edit the other tests make, imports to the same
    runs through agentrender's reader and through Inspect's."""
    if edit is not None:
        _edit_json(json_log, edit)
    _both_ways(json_log, monkeypatch)


def test_a_generated_log_imports_alike_through_either_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, import_bench: Callable[[str], ModuleType]
) -> None:
    """The benchmark's log (written by Inspect: pooled inputs, attachments, raw calls by reference) imports to the
    same runs through either reader."""
    path = tmp_path / "generated.eval"
    import_bench("bench_inspect").generate(path, 6)
    _both_ways(path, monkeypatch)


@pytest.mark.slow
def test_an_eval_log_without_the_zstandard_codec_names_the_extra(tmp_path: Path) -> None:
    """Reading an .eval archive of zstandard members (as Inspect writes them) where Python's zipfile does not know
    zstandard (before 3.14) and neither Inspect nor its codec is installed fails with the inspect extra's pip line."""
    script = (
        "import sys, zipfile\nsys.modules['inspect_ai'] = sys.modules['zipfile_zstd'] = None\n"
        "assert not hasattr(zipfile, 'ZIP_ZSTANDARD')\n"
        f"from agentrender.imports import from_inspect\nfrom_inspect({str(FIXTURE)!r})"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120, check=False
    )
    last = done.stderr.strip().splitlines()[-1]
    assert last.endswith("needs zipfile_zstd, which is not installed: pip install 'agentrender[inspect]'"), last


def _corrupt_member(data: bytes) -> bytes:
    """The ``.eval`` archive ``data`` with the middle of its first sample's compressed bytes overwritten."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        member = next(info for info in archive.infolist() if info.filename.startswith("samples/"))
    name_size, extra_size = struct.unpack("<HH", data[member.header_offset + 26 : member.header_offset + 30])
    start = member.header_offset + 30 + name_size + extra_size + 8
    return data[:start] + b"\xff" * 64 + data[start + 64 :]


def _corrupt_directory(data: bytes) -> bytes:
    """The ``.eval`` archive ``data`` with its central directory's last entry no longer starting as one."""
    at = data.rfind(b"PK\x01\x02")
    return data[:at] + b"PK\x00\x00" + data[at + 4 :]


@pytest.mark.parametrize("corrupt", [_corrupt_member, _corrupt_directory], ids=["member", "directory"])
@pytest.mark.parametrize(
    "name",
    [
        "meridianlabs-ai-inspect_flow/2026-01-09T18-27-59+00-00_mmlu-0-shot_AaMwC64MK8EccYgfhUqy3n.eval",  # deflate
        "gspencergoog-A2UI/2026-07-22T16-51-18-00-00_a2ui-v1-0-eval_nXpB6sZohVsmQgnyUD8nuj.eval",  # zstandard
    ],
)
def test_a_real_eval_log_with_corrupt_bytes_is_refused_naming_the_file_not_a_traceback(
    name: str, corrupt: Callable[[bytes], bytes], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real ``.eval`` log whose compressed bytes or zip directory are corrupt is refused with a RunFileError naming
    the file and what is broken (the member, or the archive), where the decompressor's or zipfile's own error
    escaped; with Inspect installed its reader then judges the file, and refuses it or reads it, never a traceback."""
    from agentrender.imports import inspect as importer

    path = tmp_path / "corrupt.eval"
    path.write_bytes(corrupt((ROOT / "tests/fixtures/real/inspect" / name).read_bytes()))
    with monkeypatch.context() as patched:
        patched.setattr(importer, "_has_inspect", lambda: False)
        with pytest.raises(RunFileError) as caught:
            from_inspect(path)
    said = str(caught.value)
    broken = "samples/" if corrupt is _corrupt_member else "the .eval archive cannot be read: "
    assert said.startswith(f"{path}:1: {broken}"), said
    with monkeypatch.context() as patched:
        patched.setattr(importer, "_has_inspect", lambda: True)
        try:
            assert from_inspect(path)
        except RunFileError as error:
            assert str(error).startswith(f"{path}:1: "), str(error)


REAL_JSON_LOG = (
    ROOT
    / "tests/fixtures/real/inspect/UKGovernmentBEIS-inspect_ai"
    / "2024-11-05T13-31-45-05-00_input-task_8zXjbRzCWrL9GXiXo2vus9.json"
)
"""A real Inspect ``.json`` log, whose JSON is indented over lines."""


@pytest.mark.skipif(not REAL_JSON_LOG.is_file(), reason="the real fixtures are not in this checkout")
def test_a_json_log_of_broken_json_is_said_where_it_breaks(tmp_path: Path) -> None:
    """A ``.json`` log with a stray comma is said at the comma's line and column, and one cut short as ending early at
    its last line, by this package's reader and through Inspect's alike: Inspect's reader said 'FILE:1: not an Inspect
    AI log Inspect can read: ValueError: trailing comma at line 134 column 15', this package's 'FILE:1: not JSON: JSON
    is malformed: trailing comma in object (byte 6212)'."""
    from agentrender.imports.inspect_log import read_log

    lines = REAL_JSON_LOG.read_text("utf-8").split("\n")
    at = next(i for i in range(1, len(lines)) if lines[i].strip() == "}" and lines[i - 1].rstrip()[-1:] not in ",{[")
    lines[at - 1] += ","
    comma, cut = tmp_path / "comma.json", tmp_path / "cut.json"
    comma.write_text("\n".join(lines), "utf-8")
    head = REAL_JSON_LOG.read_bytes()[:12_000]
    cut.write_bytes(head)
    column, last = len(lines[at - 1]), head.rstrip().count(b"\n") + 1  # the last line the log holds text on
    expected = {
        comma: f"{comma}:{at}:{column}: not valid JSON: a comma before the closing '}}' on line {at + 1}, where no",
        cut: f"{cut}:{last}: the JSON document ends early",
    }
    for path, said in expected.items():
        for read in (read_log, load):
            with pytest.raises(RunFileError) as caught:
                read(path)
            assert str(caught.value).startswith(said), (read, str(caught.value))


@pytest.mark.skipif(not REAL_JSON_LOG.is_file(), reason="the real fixtures are not in this checkout")
def test_a_json_log_whose_line_ends_before_its_value_or_comma_is_said_where_that_line_ends(tmp_path: Path) -> None:
    """A real ``.json`` log whose line ends where its value should be (``"commit": `` then the newline, the log going on
    after it), or where its comma should be, is said at that line, just past its last character, by this package's
    reader and through Inspect's alike, where the error named the first character of the next line."""
    from agentrender.imports.inspect_log import read_log

    lines = REAL_JSON_LOG.read_text("utf-8").split("\n")
    cut = next(i for i in range(len(lines) - 1) if '": "' in lines[i] and lines[i + 1].strip() in ("}", "},"))
    uncut = next(i for i in range(len(lines) - 1) if lines[i].endswith('",') and lines[i + 1].strip().startswith('"'))
    no_value, no_comma = lines.copy(), lines.copy()
    no_value[cut] = lines[cut][: lines[cut].index('": "') + 3]
    no_comma[uncut] = lines[uncut][:-1]
    for edited, at, said in ((no_value, cut, "Expecting value"), (no_comma, uncut, "Expecting ',' delimiter")):
        path = tmp_path / f"{at}.json"
        path.write_text("\n".join(edited), "utf-8")
        column = len(edited[at].rstrip()) + 1
        for read in (read_log, load):
            with pytest.raises(RunFileError) as caught:
                read(path)
            assert str(caught.value) == f"{path}:{at + 1}:{column}: not valid JSON: {said}", (read, caught)


@pytest.mark.skipif(not REAL_JSON_LOG.is_file(), reason="the real fixtures are not in this checkout")
def test_a_json_log_with_a_byte_not_utf8_is_said_at_its_line(tmp_path: Path) -> None:
    """A real ``.json`` log with a byte that is not UTF-8 in a message is refused at that byte's line and its byte
    in the line, by this package's reader and through Inspect's alike, where both said line 1 (with the byte's
    offset in the whole file, or no place at all)."""
    from agentrender.imports.inspect_log import read_log

    data = REAL_JSON_LOG.read_bytes()
    at = data.index(b'"content": "') + len(b'"content": "')
    line, start = data.count(b"\n", 0, at) + 1, data.rfind(b"\n", 0, at) + 1
    path = tmp_path / "log.json"
    path.write_bytes(data[:at] + b"\xff" + data[at + 1 :])
    for read in (read_log, load):
        with pytest.raises(RunFileError) as caught:
            read(path)
        said = f"{path}:{line}: not UTF-8 text (invalid start byte at byte {at - start})"
        assert str(caught.value) == said, (read, str(caught.value))


@pytest.mark.skipif(not REAL_JSON_LOG.is_file(), reason="the real fixtures are not in this checkout")
def test_a_json_log_with_a_control_byte_raw_in_a_string_is_said_at_its_line_and_column(tmp_path: Path) -> None:
    """A real ``.json`` log with a control byte raw in a message's string is refused at its line and column in plain
    words, by this package's reader and through Inspect's alike, where the decoder's message was left ending 'at'."""
    from agentrender.imports.inspect_log import read_log

    data = REAL_JSON_LOG.read_bytes()
    at = data.index(b'"content": "') + len(b'"content": "')
    line, column = data.count(b"\n", 0, at) + 1, at - data.rfind(b"\n", 0, at)
    path = tmp_path / "log.json"
    path.write_bytes(data[:at] + b"\x07" + data[at:])
    for read in (read_log, load):
        with pytest.raises(RunFileError) as caught:
            read(path)
        assert str(caught.value) == f"{path}:{line}:{column}: not valid JSON: Invalid control character", (read, caught)


def test_a_json_log_that_begins_with_a_byte_order_mark_reads_as_without_it(tmp_path: Path) -> None:
    """A real ``.json`` log written with a UTF-8 byte order mark (as Windows tools write text) imports as the same log
    without it, as every other format's file does, where it was refused as 'Unexpected UTF-8 BOM'."""
    log = ROOT / "tests/fixtures/real/inspect/UKGovernmentBEIS-inspect_ai/2025-05-12T20-28-13-04-00_popularity.json"
    path = tmp_path / log.name
    path.write_bytes(b"\xef\xbb\xbf" + log.read_bytes())
    runs, plain = load_runs(path), load_runs(log)
    assert [run.run_id for run in runs] == [run.run_id for run in plain]
    assert [len(run.steps) for run in runs] == [len(run.steps) for run in plain] != []


IMAGES_LOG = ROOT / "tests" / "fixtures" / "real" / "inspect" / "UKGovernmentBEIS-inspect_ai" / "log_images_tc.json"
"""A real log of the older layout Inspect's reader migrates (its sample's events under ``transcript``), which holds
no message id and no event uuid."""


def test_an_older_layout_log_that_begins_with_a_byte_order_mark_reads_as_without_it(tmp_path: Path) -> None:
    """A real ``.json`` log of the older layout Inspect's own reader migrates, written with a UTF-8 byte order mark,
    imports as the same log without it; Inspect's reader, which reads such a log, refused the mark."""
    pytest.importorskip("inspect_ai")
    path = tmp_path / IMAGES_LOG.name
    path.write_bytes(b"\xef\xbb\xbf" + IMAGES_LOG.read_bytes())
    runs, plain = load_runs(path), load_runs(IMAGES_LOG)
    assert [(run.run_id, len(run.steps), [w.text for w in run.warnings]) for run in runs] == [
        (run.run_id, len(run.steps), [w.text for w in run.warnings]) for run in plain
    ]
    assert (
        [step.observation for run in runs for step in run.steps]
        == [step.observation for run in plain for step in run.steps]
        != []
    )


def _no_message_ids(data: dict[str, Any]) -> None:
    """Take every message id out of sample sum3/1: its messages, its model events' inputs and outputs."""
    sample = _sample(data, "sum3", 1)
    for event in sample["events"]:
        if event["event"] == "model":
            for message in [*(event.get("input") or ()), *(c["message"] for c in event["output"]["choices"])]:
                message.pop("id", None)
    for message in sample["messages"]:
        message.pop("id", None)


def test_a_replys_id_is_the_one_its_message_holds_in_the_log_else_none(
    json_log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model call's ``response.id`` is the id of the message the log holds as its event's output, through either
    reader; a log whose messages hold none gives an empty id (null in the frame's ``response_id``), never one made
    up."""

    def reply_ids() -> dict[str, list[str]]:
        return {
            run.run_id: [call.record["response"]["id"] for call in run.model_calls] for run in from_inspect(json_log)
        }

    logged = reply_ids()
    _edit_json(json_log, _no_message_ids)
    _both_ways(json_log, monkeypatch)
    said = reply_ids()
    assert all(all(ids) for ids in logged.values()) and len(logged["arith/sum3/1"]) == 3
    assert said == {**logged, "arith/sum3/1": ["", "", ""]}


@pytest.mark.skipif(not IMAGES_LOG.is_file(), reason="the real fixtures are not in this checkout")
def test_an_older_layout_inspect_migrates_keeps_the_logs_ids_and_makes_up_none(tmp_path: Path) -> None:
    """A log whose events Inspect's reader migrates from a sample's ``transcript`` (and gives each message and event
    that holds no id a random one) imports with the reply's id and the event's uuid the log holds: none (an empty
    ``response.id``, no ``uuid`` under ``request.inspect``) where it holds none, which were random on each read."""
    (run,) = from_inspect(IMAGES_LOG)
    (call,) = run.model_calls
    assert call.record["response"]["id"] == ""
    assert "uuid" not in call.record["request"]["inspect"]

    def give_ids(data: dict[str, Any]) -> None:
        event = data["samples"][0]["transcript"]["events"][5]
        event["uuid"] = "event-uuid-of-the-log"
        event["output"]["choices"][0]["message"]["id"] = "reply-id-of-the-log"

    path = tmp_path / IMAGES_LOG.name
    path.write_bytes(IMAGES_LOG.read_bytes())
    _edit_json(path, give_ids)
    (run,) = from_inspect(path)
    (call,) = run.model_calls
    assert call.record["response"]["id"] == "reply-id-of-the-log"
    assert call.record["request"]["inspect"]["uuid"] == "event-uuid-of-the-log"


def test_a_json_logs_samples_are_read_as_the_file_holds_them_once_for_all_of_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The log read as plain JSON beside Inspect's reader (the ids it holds, a sample's pool of messages) is read
    once for every sample of a JSON log, not once a sample; a sample it does not hold, or a file it cannot read,
    gives ``{}`` and takes every id as held (as Inspect's reader gives it)."""
    from agentrender.imports import inspect as inspect_import

    samples = [{"id": n, "epoch": 1, "messages": [{"id": f"m{n}", "role": "user", "content": "hi"}]} for n in range(3)]
    path = tmp_path / "log.json"
    path.write_text(json.dumps({"version": 2, "samples": samples}), encoding="utf-8")
    reads: list[str] = []
    real = inspect_import._loads
    monkeypatch.setattr(inspect_import, "_loads", lambda text: reads.append(text) or real(text))
    log = inspect_import._PlainLog(str(path))
    assert [log.sample(n, 1) for n in range(3)] == samples and len(reads) == 1
    assert log.holds(1, 1, "m1") and not log.holds(1, 1, "m0") and not log.holds(1, 1, None)
    assert log.message(2, 1, {"id": "made-up", "role": "user"}) == {"role": "user"}
    assert log.sample(9, 1) == {} and log.holds(9, 1, "anything") and len(reads) == 1
    unreadable = inspect_import._PlainLog(str(tmp_path / "gone.json"))
    assert unreadable.sample(0, 1) == {} and unreadable.holds(0, 1, "anything")


EVAL_LOGS = sorted((ROOT / "tests" / "fixtures").rglob("*.eval"))


def _read_every_value(*args: Any) -> None:
    """In place of ``inspect_log._read_inputs``: the general decode reads the log (every value as it stands)."""
    raise msgspec.DecodeError("this test reads every value as it stands")


def _imports(path: Path) -> Any:
    """What importing ``path`` gives: its runs (``_imported``), or the error it raises, in words."""
    try:
        return _imported(from_inspect(path))
    except (RunFileError, ImportError) as error:
        return f"{type(error).__name__}: {error}"


def _reads(path: Path) -> Any:
    """What ``inspect_log.read_log`` gives of ``path``: its samples' messages and events, as JSON, but the events'
    outputs (typed structs where the typed decode reads the sample, the log's JSON where the general decode does:
    ``_imports`` compares what the import makes of them); or the error it raises, in words."""
    from agentrender.imports.inspect_log import NeedsInspect, read_log

    try:
        samples = read_log(str(path)).samples or ()
        return msgspec.json.encode([[s.messages, [replace(e, output=None) for e in s.events]] for s in samples])
    except (RunFileError, NeedsInspect) as error:
        return f"{type(error).__name__}: {error}"


def _both_decodes(outcome: Callable[[Path], Any], path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    """``outcome(path)`` with the model events' inputs read from their text a message once, and by the general
    decode."""
    from agentrender.imports import inspect_log

    once = outcome(path)
    with monkeypatch.context() as patched:
        patched.setattr(inspect_log, "_read_inputs", _read_every_value)
        general = outcome(path)
    return once, general


@pytest.mark.parametrize("path", [*EVAL_LOGS, *REAL_LOGS], ids=lambda path: path.name)
def test_each_logs_inputs_read_a_message_once_import_as_every_value_decoded(
    path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every fixture log, and each ``.eval`` written again by Inspect as a ``.json`` log (its model events' inputs
    whole, each the one before and more), imports to the same runs, warnings word for word, with its events' inputs
    read from their text a message once (``inspect_log._read_inputs``) as when the log's every value is decoded."""
    from inspect_ai.log import read_eval_log, write_eval_log

    paths = [path]
    if path.suffix == ".eval":
        paths.append(tmp_path / f"{path.stem}.json")
        write_eval_log(read_eval_log(str(path)), str(paths[-1]), format="json")
    for each in paths:
        once, general = _both_decodes(_imports, each, monkeypatch)
        assert once == general, each.name


HEADER = {"version": 2, "status": "success", "eval": {"task": "t", "model": "m", "eval_id": "e"}}


def _log_text(inputs: list[str], messages: list[Any]) -> bytes:
    """A ``.json`` log of one sample whose model events were sent ``inputs`` (each its JSON text, as spelled)."""
    events = [
        {
            "event": "model",
            "model": "mockllm/model",
            "input": f"@input{n}@",
            "output": {"choices": [{"message": {"role": "assistant", "content": "ok"}, "stop_reason": "stop"}]},
        }
        for n in range(len(inputs))
    ]
    sample = {"id": "s", "epoch": 1, "messages": messages, "events": events}
    text = json.dumps({**HEADER, "samples": [sample]}, indent=1)
    for n, spelled in enumerate(inputs):
        text = text.replace(f'"@input{n}@"', spelled)
    return text.encode("utf-8", errors="surrogateescape")


# Messages, each spelled in ways that decode to equal values (1 == 1.0, escapes, spaces).
CALL = '{"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "function": "add", "arguments": {"x": %s}}]}'
SPELLINGS = [
    ['{"role": "user", "content": "Add 1 and 2."}', '{"role":"user","content":"Add 1 and \\u0032."}'],
    [CALL % "1", CALL % "1.0"],
    ['{"role": "tool", "tool_call_id": "c1", "content": "3"}', '{ "role" : "tool", "tool_call_id":"c1","content":"3"}'],
    ['{"role": "assistant", "content": "3 \\u2014 done."}', '{"role": "assistant", "content": "3 — done."}'],
]


@hypothesis.settings(
    max_examples=examples(120), deadline=None, suppress_health_check=[hypothesis.HealthCheck.function_scoped_fixture]
)
@hypothesis.given(
    data=st.data(),
    blanks=st.lists(st.sampled_from(["", " ", "\n  ", "\n\t\r "]), min_size=3, max_size=3),
)
def test_inputs_however_spelled_read_a_message_once_as_every_value_decoded(
    data: st.DataObject, blanks: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Model events' inputs of a ``.json`` log, each the one before and more, the same, shorter or respelled (equal
    values in other text: ``1.0`` for ``1``, an escape, spaces), import as when the log's every value is decoded."""
    inputs = []
    for _ in range(data.draw(st.integers(1, 5))):
        count = data.draw(st.integers(0, len(SPELLINGS)))
        spelled = [data.draw(st.sampled_from(SPELLINGS[n])) for n in range(count)]
        inputs.append("[" + blanks[0] + ("," + blanks[1]).join(spelled) + blanks[2] + "]")
    path = tmp_path / "log.json"
    path.write_bytes(_log_text(inputs, [json.loads(spellings[0]) for spellings in SPELLINGS]))
    for outcome in (_reads, _imports):
        once, general = _both_decodes(outcome, path, monkeypatch)
        assert once == general


@pytest.mark.parametrize(
    "broken",
    ['"\\q"', '"\\ud800"', "1e999", '"\udcff"', '"a\x01"', "[1,]"],
    ids=["escape", "surrogate", "out-of-range", "not-utf-8", "control", "trailing-comma"],
)
@pytest.mark.parametrize("kind", ["json", "eval"])
def test_an_input_the_general_decode_refuses_is_said_as_it_says_it(
    broken: str, kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model event's new message holding what the decode of the log's every value refuses (a string's escape or
    UTF-8, a number out of range, JSON the skip of an input's text refuses too) is said in its words, for a ``.json``
    log and an ``.eval`` archive's sample."""
    first = SPELLINGS[0][0]
    bad = '{"role": "user", "content": ' + broken + "}"
    text = _log_text(["[" + first + "]", "[" + first + ", " + bad + "]"], [json.loads(first)])
    path = tmp_path / f"log.{kind}"
    if kind == "json":
        path.write_bytes(text)
    else:
        sample = text[text.index(b'"samples": [') + len(b'"samples": [') : text.rindex(b"]")]
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("header.json", json.dumps(HEADER))
            archive.writestr("samples/s_epoch_1.json", sample)
    once, general = _both_decodes(_reads, path, monkeypatch)
    assert once == general and isinstance(once, str), once


def _bomb(path: Path) -> None:
    """The committed log with a sample padded to inflate past what a run file may (a zip bomb)."""
    import inspect_ai.log  # noqa: F401  (reads the fixture's zstd members: Inspect adds zstd to zipfile)

    with zipfile.ZipFile(FIXTURE) as source, zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as bomb:
        for name in source.namelist():
            bomb.writestr(name, source.read(name) + (b" " * (40 << 20) if name.startswith("samples/") else b""))


@pytest.mark.parametrize(
    "write",
    [
        lambda path: path.write_bytes(b""),
        lambda path: path.write_bytes(FIXTURE.read_bytes()[:3000]),
        _bomb,
    ],
    ids=["empty", "cut-short", "zip-bomb"],
)
def test_an_eval_file_refused_before_it_is_read_is_said_alike_with_inspect_ai_or_without(
    write: Callable[[Path], None], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An ``.eval`` file empty, cut short or a zip bomb is refused in the same words whether Inspect's reader would
    be tried after agentrender's (``inspect_ai`` installed) or not: the archive checked where it is opened, once."""
    path = tmp_path / "refused.eval"
    write(path)
    said = _refusals(path, monkeypatch)
    assert said[0] == said[1] and said[0].startswith(f"{path}:1: the ")


def _refusals(path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What ``from_inspect`` refuses ``path`` with, ``inspect_ai`` taken as installed (its reader tried after
    agentrender's), then not."""
    from agentrender.imports import inspect as importer

    said = []
    for installed in (True, False):
        with monkeypatch.context() as patched:
            patched.setattr(importer, "_has_inspect", lambda installed=installed: installed)
            with pytest.raises(RunFileError) as caught:
                from_inspect(path)
        said.append(str(caught.value))
    return said


JSON_LOG = ROOT / "tests" / "fixtures" / "real" / "inspect" / "UKGovernmentBEIS-inspect_ai" / "log_read_sample.json"
"""A real ``.json`` log agentrender's own reader reads."""


@pytest.mark.parametrize("source", [JSON_LOG, OLDER_LOG], ids=["read-by-agentrender", "read-by-inspect"])
def test_a_json_log_compressed_with_gzip_loads_as_the_json_it_holds(source: Path, tmp_path: Path) -> None:
    """A real Inspect ``.json`` log compressed with gzip (``log.json.gz``, as ``gzip -r`` leaves a logs folder), one
    agentrender's reader reads and one only Inspect's reader reads, loads as the same runs as the ``.json`` (steps,
    what each was sent, warnings), their file and source naming the ``.json.gz`` given, where it was refused."""
    if source == OLDER_LOG:
        pytest.importorskip("inspect_ai")
    if not source.is_file():
        pytest.skip("the real fixtures are not in this checkout")
    _gzipped_loads_as(source, tmp_path / "log.json.gz")


def test_a_json_log_compressed_with_gzip_under_an_eval_name_is_read_as_the_json_it_holds(tmp_path: Path) -> None:
    """A real Inspect ``.json`` log only Inspect's reader reads, compressed with gzip and named ``log.eval.gz``, loads
    as the ``.json`` does: Inspect's reader is told the format of the bytes the stream holds, not of the name, where
    it was told to read a zip archive and refused it."""
    pytest.importorskip("inspect_ai")
    packed = tmp_path / "log.eval.gz"
    packed.write_bytes(gzip.compress(OLDER_LOG.read_bytes()))
    runs, plain = load_runs(packed), load_runs(OLDER_LOG)
    assert [(run.run_id, run.steps) for run in runs] == [(run.run_id, run.steps) for run in plain] != []


@pytest.mark.parametrize(
    ("source", "name"), [(JSON_LOG, "log.json.gz"), (FIXTURE, "log.eval.gz")], ids=["json", "eval"]
)
def test_a_log_whose_gzip_stream_lacks_only_its_trailer_loads_each_run_saying_so(
    source: Path, name: str, tmp_path: Path
) -> None:
    """An Inspect ``.json`` (real) or ``.eval`` log compressed with gzip whose stream stops after the whole log but
    before its last 8 bytes (a copy that stopped early) loads as the log does, each run warned that the stream ends
    early."""
    if not source.is_file():
        pytest.skip("the real fixtures are not in this checkout")
    if source == FIXTURE:
        pytest.importorskip("inspect_ai")  # the archive's zstandard members
    packed = tmp_path / name
    packed.write_bytes(gzip.compress(source.read_bytes())[:-8])
    runs, plain = load_runs(packed), load_runs(source)
    assert [(run.run_id, run.steps) for run in runs] == [(run.run_id, run.steps) for run in plain] != []
    for run, whole in zip(runs, plain, strict=True):
        [note] = [warning for warning in run.warnings if warning.text not in {w.text for w in whole.warnings}]
        assert note.text.startswith("the gzip stream ends early") and note.lost and note.path == str(packed)


@pytest.mark.parametrize("source", [FIXTURE, *REAL_EVALS], ids=lambda path: path.name)
def test_an_eval_log_compressed_with_gzip_loads_as_the_eval_it_holds(source: Path, tmp_path: Path) -> None:
    """An ``.eval`` log compressed with gzip (``log.eval.gz``, as ``gzip -r`` leaves a logs folder), one agentrender's
    reader reads or one only Inspect's reader reads, loads as the same runs as the ``.eval`` (steps, what each was
    sent, warnings), their file and source naming the ``.eval.gz`` given, where it was refused, saying to gunzip it."""
    pytest.importorskip("inspect_ai")  # the archives' zstandard members
    _gzipped_loads_as(source, tmp_path / "log.eval.gz")


def _gzipped_loads_as(source: Path, packed: Path) -> None:
    """``source`` compressed with gzip into ``packed`` loads as ``source`` does (the same runs, steps and warnings),
    each run's file and source naming ``packed``."""
    packed.write_bytes(gzip.compress(source.read_bytes()))
    runs, plain = load_runs(packed), load_runs(source)
    assert [(run.run_id, run.steps, [w.text for w in run.warnings]) for run in runs] == [
        (run.run_id, run.steps, [w.text for w in run.warnings]) for run in plain
    ]
    assert runs and all(run.path == run.header["source"]["path"] == str(packed) for run in runs)


def _corrupt(data: bytes) -> bytes:
    """A gzip stream with bytes of its middle overwritten."""
    middle = len(data) // 2
    return data[:middle] + b"\xff" * 64 + data[middle + 64 :]


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (_corrupt, "the gzip stream is corrupt ("),
        (lambda data: data[: len(data) // 2], "the gzip stream ends early"),
        (lambda data: gzip.compress(b" " * (40 << 20) + gzip.decompress(data)), "refused as a gzip bomb"),
    ],
    ids=["corrupt", "cut-short", "bomb"],
)
def test_a_json_log_compressed_with_gzip_that_cannot_be_inflated_is_refused_naming_the_file_and_why(
    make: Callable[[bytes], bytes], said: str, tmp_path: Path
) -> None:
    """A real Inspect ``.json`` log compressed with gzip whose stream is corrupt, cut short, or inflates past what a
    gzip run file may (a gzip bomb) is refused naming the file and what is wrong with its stream (no ``.jsonl``)."""
    if not JSON_LOG.is_file():
        pytest.skip("the real fixtures are not in this checkout")
    packed = tmp_path / "log.json.gz"
    packed.write_bytes(make(gzip.compress(JSON_LOG.read_bytes())))
    with pytest.raises(RunFileError) as caught:
        from_inspect(packed)
    assert str(caught.value).startswith(f"{packed}:") and said in str(caught.value), str(caught.value)
    assert ".jsonl" not in str(caught.value)  # the bomb's advice names no run file


def _zip_bomb_gzipped(data: bytes) -> bytes:
    """The committed ``.eval`` log, a sample padded to inflate past what its inflated archive may give (a zip bomb),
    compressed with gzip: the gzip stream is well within its own bound, the zip in it is not."""
    with zipfile.ZipFile(io.BytesIO(gzip.decompress(data))) as source:
        members = {name: source.read(name) for name in source.namelist()}
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, text in members.items():
            archive.writestr(name, text + (b" " * (40 << 20) if name.startswith("samples/") else b""))
    return gzip.compress(bomb.getvalue())


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (_corrupt, "the gzip stream is corrupt ("),
        (lambda data: data[: len(data) // 2], "the .eval archive is cut short"),
        (lambda data: gzip.compress(b"\0" * (40 << 20) + gzip.decompress(data)), "refused as a gzip bomb"),
        (_zip_bomb_gzipped, "refused as a zip bomb"),
        (lambda data: gzip.compress(b""), "the gzip stream holds nothing"),
    ],
    ids=["corrupt", "cut-short", "gzip-bomb", "zip-bomb", "empty"],
)
def test_an_eval_log_compressed_with_gzip_that_cannot_be_read_is_refused_naming_the_file_and_why(
    make: Callable[[bytes], bytes], said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An ``.eval`` log compressed with gzip whose stream is corrupt, cut short (the archive in it then cut short), a
    gzip bomb, or holds an archive that is a zip bomb or nothing, is refused naming the file and what is wrong, in
    the same words whether Inspect's reader would be tried after agentrender's or not."""
    pytest.importorskip("inspect_ai")  # the fixture's zstandard members
    packed = tmp_path / "log.eval.gz"
    packed.write_bytes(make(gzip.compress(FIXTURE.read_bytes())))
    errors = _refusals(packed, monkeypatch)
    assert errors[0] == errors[1], errors
    assert errors[0].startswith(f"{packed}:") and said in errors[0], errors[0]
    assert "gunzip it and" not in errors[0]


OLDER_EVAL = (
    ROOT
    / "tests"
    / "fixtures"
    / "real"
    / "inspect"
    / "UKGovernmentBEIS-inspect_ai"
    / "2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval"
)
"""A real ``.eval`` log older than the eval's ``eval_id``: only Inspect's reader reads it exactly."""


@pytest.mark.parametrize(
    ("source", "name"),
    [(OLDER_EVAL, "LOG.EVAL"), (OLDER_LOG, "LOG.JSON"), (OLDER_LOG, "inspect-log.txt")],
    ids=["eval-in-capitals", "json-in-capitals", "json-named-otherwise"],
)
def test_a_log_only_inspects_reader_reads_loads_whatever_its_name(source: Path, name: str, tmp_path: Path) -> None:
    """A real log only Inspect's own reader reads, named in capitals or with no Inspect ending, loads as the same
    runs as under its own name, where Inspect's reader, which picks its format by a lower-case ending, refused it."""
    pytest.importorskip("inspect_ai")
    path = tmp_path / name
    path.write_bytes(source.read_bytes())
    runs, plain = load_runs(path), load_runs(source)
    assert [(run.run_id, len(run.steps)) for run in runs] == [(run.run_id, len(run.steps)) for run in plain] != []
    assert all(run.path == str(path) for run in runs)


@pytest.mark.parametrize("name", ["log.bin", "log.zip", "log.gz"])
def test_an_eval_log_under_another_name_is_refused_saying_what_it_is(tmp_path: Path, name: str) -> None:
    """A real Inspect ``.eval`` log copied under a name that does not end ``.eval`` (or ``.eval.gz``: gzipped, as
    ``log.gz``) is refused with an error that says it holds an Inspect log's members and to name it ``.eval``, where it
    said only "binary data ... begins like a ZIP archive"."""
    from tests._support.real import REAL

    data = (REAL / "inspect" / "METR-inspect-action" / "small.eval").read_bytes()
    path = tmp_path / name
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    renamed = tmp_path / ("log.eval.gz" if name.endswith(".gz") else "log.eval")
    with pytest.raises(RunFileError) as raised:
        load_runs(path)
    said = str(raised.value)
    assert said.startswith(f"{path}:1: ") and "begins like a ZIP archive" in said, said
    told = f". The file is an Inspect .eval log (its first member is _journal/start.json): name it {renamed.name},"
    assert told in said, said
    path.rename(renamed)
    assert len(load_runs(renamed)) == len(load_runs(REAL / "inspect" / "METR-inspect-action" / "small.eval"))
    other = tmp_path / "other.zip"  # a zip of anything else: said to begin like one, no more
    with zipfile.ZipFile(other, "w") as archive:
        archive.writestr("notes.txt", "hello")
    with pytest.raises(RunFileError, match="begins like a ZIP archive") as raised:
        load_runs(other)
    assert "Inspect" not in str(raised.value)
