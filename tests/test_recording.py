"""agentrender.record: an agent on the real Anthropic SDK, recorded against the local Messages API stand-in."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import inspect
import json
import os
import signal
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any

import anthropic
import httpx2
import pydantic
import pytest

import agentrender
from agentrender import imports, load_run, render
from agentrender._display.said import NO_END_RECORDED, end_said
from agentrender.frame import model_calls_frame
from agentrender.imports.conversation import Where, normalise_messages
from agentrender.testing import Cut, Failure, MessagesServer, stream_events
from agentrender.views import Views
from tests._support.cli import run_cli

# An integration test: the real SDK or pyarrow against local servers and files, seconds in all.
pytestmark = pytest.mark.slow

MODEL = "claude-test"
SYSTEM = "You read files until you know the answer."
TOOLS = [
    {
        "name": "read_file",
        "description": "Read a file of the scratch folder.",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    }
]
# The agent switches parallel tool use off, as the driver does (the stand-in allows either).
TOOL_CHOICE = {"type": "auto", "disable_parallel_tool_use": True}
FILES = {"a.txt": "see b.txt", "b.txt": "see c.txt", "c.txt": "the answer is 42"}
MODES = ["create", "stream", "create-stream"]


def _reply(number: int) -> dict[str, Any]:
    """The scripted reply to the agent's ``number``-th request: three reads, then the answer."""
    usage = {"input_tokens": 100 + 10 * number, "output_tokens": 20}
    if number < 3:
        name = "abc"[number] + ".txt"
        content = [
            {"type": "text", "text": f"I will read {name}."},
            {"type": "tool_use", "id": f"toolu_{number:02d}", "name": "read_file", "input": {"path": name}},
        ]
        return {
            "id": f"msg_{number:02d}",
            "model": MODEL,
            "content": content,
            "stop_reason": "tool_use",
            "usage": usage,
        }
    content = [{"type": "text", "text": "The answer is 42."}]
    return {"id": "msg_03", "model": MODEL, "content": content, "stop_reason": "end_turn", "usage": usage}


def _params(messages: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "model": MODEL,
        "max_tokens": 512,
        "system": SYSTEM,
        "tools": TOOLS,
        "tool_choice": TOOL_CHOICE,
        "messages": list(messages),
    }


def _next_turns(message: anthropic.types.Message) -> list[dict[str, Any]]:
    """The turns an agent appends after ``message``: the reply as the SDK gave it, and the tool's result."""
    turns: list[dict[str, Any]] = [{"role": "assistant", "content": message.content}]
    for block in message.content:
        if block.type == "tool_use":
            result = {"type": "tool_result", "tool_use_id": block.id, "content": FILES[block.input["path"]]}
            turns.append({"role": "user", "content": [result]})
    return turns


def _run_agent(client: anthropic.Anthropic, mode: str) -> list[anthropic.types.Message]:
    """A small agent loop: ask, run the tool the model chose, until it answers."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "What is the answer? Start at a.txt."}]
    replies = []
    while True:
        if mode == "create":
            message = client.messages.create(**_params(messages))
        elif mode == "stream":
            with client.messages.stream(**_params(messages)) as stream:
                message = stream.get_final_message()
        else:
            events = client.messages.create(**_params(messages), stream=True)
            message = _final(list(events))
        replies.append(message)
        if message.stop_reason != "tool_use":
            return replies
        messages += _next_turns(message)


async def _run_agent_async(client: anthropic.AsyncAnthropic, mode: str) -> list[anthropic.types.Message]:
    """The same loop on the async client."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "What is the answer? Start at a.txt."}]
    replies = []
    while True:
        if mode == "create":
            message = await client.messages.create(**_params(messages))
        elif mode == "stream":
            async with client.messages.stream(**_params(messages)) as stream:
                message = await stream.get_final_message()
        else:
            events = await client.messages.create(**_params(messages), stream=True)
            message = _final([event async for event in events])
        replies.append(message)
        if message.stop_reason != "tool_use":
            return replies
        messages += _next_turns(message)


def _final(events: list[Any]) -> anthropic.types.Message:
    """The message a list of raw stream events builds, as an agent using ``create(stream=True)`` would."""
    message = events[0].message.model_copy(deep=True)
    partial: dict[int, str] = {}
    for event in events[1:]:
        if event.type == "content_block_start":
            message.content.append(event.content_block.model_copy(deep=True))
        elif event.type == "content_block_delta" and event.delta.type == "text_delta":
            message.content[event.index].text += event.delta.text
        elif event.type == "content_block_delta" and event.delta.type == "input_json_delta":
            partial[event.index] = partial.get(event.index, "") + event.delta.partial_json
        elif event.type == "content_block_stop" and event.index in partial:
            message.content[event.index].input = json.loads(partial.pop(event.index))
        elif event.type == "message_delta":
            message.stop_reason = event.delta.stop_reason
    return message


def _client(server: MessagesServer) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=server.base_url, api_key="local", max_retries=0, timeout=10.0)


def _async_client(server: MessagesServer) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(base_url=server.base_url, api_key="local", max_retries=0, timeout=10.0)


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _calls(path: Path) -> list[dict[str, Any]]:
    """The records of the recording at ``path`` after its header, without the ``end`` record it was closed with."""
    records = _lines(path)[1:]
    return records[:-1] if records and records[-1]["type"] == "end" else records


def _check_recording(path: Path, server: MessagesServer, replies: list[anthropic.types.Message], mode: str) -> None:
    """The recording imports as the agent's conversation: its steps, its calls, and each view as it was sent."""
    assert [received.reason for received in server.rejections] == []
    assert [reply.id for reply in replies] == ["msg_00", "msg_01", "msg_02", "msg_03"]
    records = _lines(path)
    assert records[0]["type"] == "run"
    assert records[0]["format"] == "agentrender.run/2"
    assert records[0]["source"]["format"] == "anthropic-record"
    assert [record["type"] for record in records[1:]] == ["model_call"] * 4 + ["end"]
    assert records[-1]["status"] == "closed" and records[-1]["reason"] == "the agent closed the recorded client"
    for record, received in zip(records[1:-1], server.received, strict=True):
        assert record["request"] == received.body
    sent_keys = {"model", "max_tokens", "system", "tools", "tool_choice", "messages"}
    assert set(records[1]["request"]) == sent_keys | ({"stream"} if mode != "create" else set())

    run = imports.load(path)
    assert run.warnings == ()
    assert run.end is not None and run.end["status"] == "closed"
    assert run.run_id == path.name.split(".")[0]
    assert len(run.steps) == 4
    assert [call.step for call in run.model_calls] == [0, 1, 2, 3]
    assert [call.record["response"]["id"] for call in run.model_calls] == ["msg_00", "msg_01", "msg_02", "msg_03"]
    assert [call.record["response"]["content"] for call in run.model_calls] == [_reply(n)["content"] for n in range(4)]
    assert all(isinstance(call.latency_ms, float) and call.latency_ms > 0 for call in run.model_calls)
    assert [step.decision.tool for step in run.steps if step.decision is not None][:3] == ["read_file"] * 3
    for call, received in zip(run.model_calls, server.received, strict=True):
        view = [message.to_dict() for message in render.messages(run.step_input(call.step), run.options())]
        assert view == normalise_messages(received.body["messages"], Where("sent"))


@pytest.mark.parametrize("mode", MODES)
def test_a_recorded_agent_imports_as_the_conversation_it_sent(tmp_path: Path, mode: str) -> None:
    """Each call of a sync agent is a model call of the imported run, and the view at its step is what was sent."""
    path = tmp_path / "agent.jsonl"
    with (
        MessagesServer.scripted([_reply(n) for n in range(4)]) as server,
        agentrender.record(_client(server), path) as client,
    ):
        replies = _run_agent(client, mode)
    assert all(isinstance(reply, anthropic.types.Message) for reply in replies)
    _check_recording(path, server, replies, mode)


@pytest.mark.parametrize("mode", MODES)
def test_a_recorded_async_agent_imports_as_the_conversation_it_sent(tmp_path: Path, mode: str) -> None:
    """The async client is recorded the same way: create, create(stream=True) and stream."""
    path = tmp_path / "agent.jsonl"

    async def main(server: MessagesServer) -> list[anthropic.types.Message]:
        async with agentrender.record(_async_client(server), path) as client:
            return await _run_agent_async(client, mode)

    with MessagesServer.scripted([_reply(n) for n in range(4)]) as server:
        replies = asyncio.run(main(server))
    _check_recording(path, server, replies, mode)


def test_a_compressed_recording_imports_too(tmp_path: Path) -> None:
    """compress=True writes a gzip run file, which imports as the plain one does."""
    path = tmp_path / "agent.jsonl.gz"
    with (
        MessagesServer.scripted([_reply(n) for n in range(4)]) as server,
        agentrender.record(_client(server), path, run_id="zipped", compress=True) as client,
    ):
        _run_agent(client, "create")
    assert path.read_bytes()[:2] == b"\x1f\x8b"
    run = imports.load(path)
    assert run.run_id == "zipped"
    assert [call.step for call in run.model_calls] == [0, 1, 2, 3]


@pytest.mark.parametrize(
    ("failure", "error_class"),
    [
        (Failure(status=429, error_type="rate_limit_error", message="Too many requests"), anthropic.RateLimitError),
        (Failure(status=400, error_type="invalid_request_error", message="messages.2: bad"), anthropic.BadRequestError),
    ],
)
@pytest.mark.parametrize("mode", ["create", "stream"])
def test_an_api_error_is_recorded_and_raised_unchanged(
    tmp_path: Path, failure: Failure, error_class: type[anthropic.APIStatusError], mode: str
) -> None:
    """An error status is re-raised as the SDK raised it, and kept as a model_call_error the import warns of."""
    path = tmp_path / "agent.jsonl"
    with (
        MessagesServer.scripted([_reply(0), failure]) as server,
        agentrender.record(_client(server), path) as client,
        pytest.raises(error_class) as raised,
    ):
        _run_agent(client, mode)
    assert raised.value.status_code == failure.status
    assert failure.message in str(raised.value)
    error = _lines(path)[2]
    assert error["type"] == "model_call_error"
    assert error["step"] == 1
    assert error["request"] == server.received[1].body
    assert error["error"]["type"] == error_class.__name__
    assert error["error"]["status"] == failure.status
    assert error["error"]["body"]["error"]["message"] == failure.message

    assert any(f"{error_class.__name__} {failure.status}" in warning.text for warning in load_run(path).warnings)
    run = imports.load(path)
    assert [call.step for call in run.model_calls] == [0]
    (warning,) = run.warnings
    assert warning.line == 3
    assert f"call 2 gave no complete reply (step 1, {error_class.__name__} {failure.status}" in warning.text
    # The failed call's request holds the longest conversation: its steps are what was sent.
    assert len(run.steps) == 1


def test_a_stream_cut_short_is_recorded_with_what_arrived(tmp_path: Path) -> None:
    """A stream whose connection ends before the reply does is a model_call_error holding the partial reply."""
    path = tmp_path / "agent.jsonl"
    with (
        MessagesServer.scripted([Cut(reply=_reply(0), events=4)]) as server,
        agentrender.record(_client(server), path) as client,
        client.messages.stream(**_params([{"role": "user", "content": "Go."}])) as stream,
    ):
        texts = list(stream.text_stream)
    assert texts == ["I will re", "ad a.txt."]
    (error,) = _calls(path)
    assert error["type"] == "model_call_error"
    assert error["error"]["type"] == "incomplete"
    assert error["partial"]["content"] == [{"type": "text", "text": "I will read a.txt."}]
    assert error["request"] == server.received[0].body


@pytest.mark.parametrize("how", ["dropped", "closed", "with-block"])
def test_a_stream_that_ends_after_the_recording_is_closed_is_named_in_a_warning(tmp_path: Path, how: str) -> None:
    """A stream the agent drops (Python collects it), closes or leaves the block of once the recorded client is
    closed is not recorded, and a RuntimeWarning at the agent's line names the call and says what to do, where Python
    printed an ignored "run writer is closed" error, or the agent's close() raised it."""
    path = tmp_path / "agent.jsonl"
    params = _params([{"role": "user", "content": "Go."}])
    with (
        MessagesServer.scripted([_reply(0)]) as server,
        pytest.warns(
            RuntimeWarning, match=r"model call \(step 0, model .*, id msg_00\) ended after the recording was"
        ) as lost,
    ):
        client = agentrender.record(_client(server), path)
        if how == "with-block":
            with client.messages.stream(**params) as stream:
                next(iter(stream))
                client.close()
        else:
            events = client.messages.create(**params, stream=True)
            loop = iter(events)
            next(loop)
            client.close()
            if how == "closed":
                events.close()
            del loop, events
            gc.collect()
    assert _calls(path) == []
    assert [warning.filename for warning in lost] == [__file__]  # the agent's line that ended it


@pytest.mark.parametrize("answered", ["reply", "error"])
@pytest.mark.parametrize("how", ["create", "raw-create", "parse", "raw-parse"])
@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_call_that_ends_after_the_recording_is_closed_gives_the_agent_its_reply(
    tmp_path: Path, answered: str, how: str, kind: str
) -> None:
    """A call whose reply (or error) comes once the recorded client is closed (by another thread or task of the agent's)
    gives the agent its reply, or the SDK's error, with a RuntimeWarning naming the file and the call, at the agent's
    line that made it, where the agent got a "run writer is closed" ValueError in their place."""
    path = tmp_path / "agent.jsonl"
    answer: Any = _ANSWER if answered == "reply" else _OVERLOADED

    def close_then_answer() -> Any:
        client.close()
        return answer

    async def close_then_answer_async() -> Any:
        await client.close()
        return answer

    def call(messages: Any) -> Any:
        if how == "create":
            return messages.create(**_ASKED)
        if how == "raw-create":
            return messages.with_raw_response.create(**_ASKED)
        if how == "parse":
            return messages.parse(**_ASKED, output_format=_Answer)
        return messages.with_raw_response.parse(**_ASKED, output_format=_Answer)

    async def call_async() -> Any:
        got = await call(client.beta.messages if "parse" in how else client.messages)
        return (await got.parse()) if how.startswith("raw") else got

    named = r"agent\.jsonl: a model call \(step 0, model claude-test" + (", id msg_00" if answered == "reply" else "")
    with (
        pytest.warns(
            RuntimeWarning, match=named + r"\) ended after the recording was closed, and is not recorded"
        ) as lost,
        contextlib.nullcontext() if answered == "reply" else pytest.raises(anthropic.InternalServerError) as raised,
    ):
        if kind == "async":
            client = agentrender.record(_over_transport([close_then_answer_async], is_async=True, max_retries=0), path)
            message = asyncio.run(call_async())
        else:
            client = agentrender.record(_over_transport([close_then_answer], max_retries=0), path)
            got = call(client.beta.messages if "parse" in how else client.messages)
            message = got.parse() if how.startswith("raw") else got
    if answered == "reply":
        assert message.id == "msg_00"
        assert message.content[0].text == '{"value": 42}'
        if "parse" in how:
            assert message.parsed_output == _Answer(value=42)
    else:
        assert raised.value.status_code == 529
        assert "Overloaded" in str(raised.value)
    assert _calls(path) == []
    assert [warning.filename for warning in lost] == [__file__]


@pytest.mark.parametrize("how", ["stream", "create-stream"])
def test_a_stream_left_early_is_recorded_as_left(tmp_path: Path, how: str) -> None:
    """An agent leaving a stream before its end loses no call: what arrived is recorded, and that it stopped reading."""
    path = tmp_path / "agent.jsonl"
    params = _params([{"role": "user", "content": "Go."}])
    with MessagesServer.scripted([_reply(0)]) as server, agentrender.record(_client(server), path) as client:
        if how == "stream":
            with client.messages.stream(**params) as stream:
                first = next(iter(stream))
        else:
            with client.messages.create(**params, stream=True) as events:
                first = next(events)
    assert first.type == "message_start"
    (error,) = _calls(path)
    assert error["type"] == "model_call_error"
    assert error["error"]["type"] == "left"
    assert error["partial"]["id"] == "msg_00"
    assert error["partial"]["content"] == []
    assert error["request"] == server.received[0].body


def test_a_call_interrupted_before_it_was_sent_records_the_body_the_sdk_would_send(tmp_path: Path) -> None:
    """Ctrl-C as the request leaves records the body the SDK built, without its NOT_GIVEN and omit parameters."""
    path = tmp_path / "agent.jsonl"
    built: list[Any] = []

    def interrupt(request: Any) -> None:
        built.append(json.loads(request.content))
        raise KeyboardInterrupt

    http_client = anthropic.DefaultHttpxClient(event_hooks={"request": [interrupt]})
    sdk = anthropic.Anthropic(base_url="http://127.0.0.1:9", api_key="local", max_retries=0, http_client=http_client)
    # An agent passes NOT_GIVEN or omit for what it leaves out; the SDK sends neither.
    params = {
        **_params([{"role": "user", "content": "Go."}]),
        "system": anthropic.NOT_GIVEN,
        "metadata": anthropic.omit,
    }
    with agentrender.record(sdk, path) as client, pytest.raises(KeyboardInterrupt):
        client.messages.create(**params)
    (error,) = _calls(path)
    assert error["type"] == "model_call_error"
    assert error["error"]["type"] == "KeyboardInterrupt"
    assert error["request"] == built[0]


# A call the SDK refuses before sending (its own TypeError): a misspelt argument, and a required one left out.
_REFUSALS = {
    "create-unknown": ("create", {"temprature": 0.5}, "temprature"),
    "create-missing": ("create", {"max_tokens": anthropic.omit}, "Missing required arguments"),
    "stream-unknown": ("stream", {"temprature": 0.5}, "temprature"),
    "raw-missing": ("raw", {"max_tokens": anthropic.omit}, "Missing required arguments"),
}


@pytest.mark.parametrize("refusal", list(_REFUSALS))
def test_a_call_the_sdk_refused_before_sending_is_recorded_as_never_sent(tmp_path: Path, refusal: str) -> None:
    """A call the SDK refuses before sending is kept with sent: false, its TypeError raised unchanged, and no reader
    takes it for a request the model received: the run's steps are what was sent, and each reader says why."""
    how, change, said = _REFUSALS[refusal]
    path = tmp_path / "agent.jsonl"
    messages: list[dict[str, Any]] = [{"role": "user", "content": "What is the answer? Start at a.txt."}]
    with MessagesServer.scripted([_reply(0)]) as server, agentrender.record(_client(server), path) as client:
        message = client.messages.create(**_params(messages))
        messages += _next_turns(message)
        params = {key: value for key, value in {**_params(messages), **change}.items() if value is not anthropic.omit}
        with pytest.raises(TypeError, match=said):
            if how == "create":
                client.messages.create(**params)
            elif how == "raw":
                client.messages.with_raw_response.create(**params)
            else:
                with client.messages.stream(**params) as stream:
                    stream.get_final_message()
    assert len(server.received) == 1
    call, refused = _calls(path)
    assert call["type"] == "model_call"
    assert refused["type"] == "model_call_error"
    assert refused["sent"] is False
    assert refused["step"] == 1
    assert refused["error"]["type"] == "TypeError" and said in refused["error"]["message"]
    assert [message["role"] for message in refused["request"]["messages"]] == ["user", "assistant", "user"]
    assert refused["request"]["messages"][2] == messages[2]

    (loaded,) = [warning for warning in load_run(path).warnings if warning.line == 3]
    assert "never sent" in loaded.text and "TypeError" in loaded.text
    run = imports.load(path)
    assert [call.step for call in run.model_calls] == [0]
    assert len(run.steps) == 1  # the conversation as the model received it, not as the refused call held it
    (warning,) = run.warnings
    assert warning.line == 3
    assert "refused before sending it" in warning.text and "never sent" in warning.text
    code, out, _ = run_cli("check", str(path), "--json")
    assert code == 0
    (report,) = json.loads(out)
    assert any("never sent" in finding["message"] for finding in report["findings"])


@pytest.mark.parametrize("how", ["create", "stream"])
def test_an_async_call_the_sdk_refused_is_recorded_as_never_sent(tmp_path: Path, how: str) -> None:
    """The async client's calls the SDK refuses before sending are kept with sent: false too."""
    path = tmp_path / "agent.jsonl"
    params = {"model": MODEL, "messages": [{"role": "user", "content": "Hi."}], "temprature": 0.5}

    async def main(server: MessagesServer) -> None:
        async with agentrender.record(_async_client(server), path) as client:
            if how == "create":
                await client.messages.create(max_tokens=64, **params)
            else:
                async with client.messages.stream(max_tokens=64, **params) as stream:
                    await stream.get_final_message()

    with MessagesServer.scripted([]) as server, pytest.raises(TypeError, match="temprature"):
        asyncio.run(main(server))
    assert server.received == []
    (refused,) = _calls(path)
    assert (refused["type"], refused["sent"], refused["error"]["type"]) == ("model_call_error", False, "TypeError")


def test_a_recording_of_refused_calls_alone_has_no_conversation_and_says_why(tmp_path: Path) -> None:
    """A recording whose only call the SDK refused imports as no conversation, the error naming the refused call."""
    path = tmp_path / "agent.jsonl"
    with (
        MessagesServer.scripted([]) as server,
        agentrender.record(_client(server), path) as client,
        pytest.raises(TypeError),
    ):
        client.messages.create(model=MODEL, messages=[{"role": "user", "content": "Hi."}])
    assert server.received == []
    with pytest.raises(agentrender.RunFileError, match=r"no model call yet.*line 2.*refused before sending it"):
        imports.load(path)


def test_a_sent_mark_that_is_not_a_boolean_is_an_error_naming_its_line(tmp_path: Path) -> None:
    """A model_call_error whose sent is neither true nor false is refused by each reader, naming its line and field."""
    path = tmp_path / "agent.jsonl"
    header = {"type": "run", "run_id": "agent", "format": "agentrender.run/2", "source": {"format": "anthropic-record"}}
    error = {
        "type": "model_call_error",
        "step": 0,
        "request": {"model": MODEL, "messages": [{"role": "user", "content": "Hi."}]},
        "error": {"type": "TypeError", "message": "bad"},
        "sent": "no",
    }
    path.write_text("".join(json.dumps(record) + "\n" for record in (header, error)), encoding="utf-8")
    with pytest.raises(agentrender.RunFileError, match=r":2: .*sent: expected .*str"):
        imports.load(path)
    with pytest.raises(agentrender.RunFileError, match=r":2: model_call_error.sent: expected true or false"):
        imports.from_anthropic(path)
    with pytest.raises(agentrender.RunFileError, match=r":2: .*sent: expected .*str"):
        load_run(path)


def test_a_call_that_failed_to_connect_is_not_marked_never_sent(tmp_path: Path) -> None:
    """A call the SDK tried to send (a connection that failed: the SDK's APIConnectionError) is kept with no sent
    mark: the recorder cannot tell whether the model received it."""
    path = tmp_path / "agent.jsonl"
    sdk = anthropic.Anthropic(base_url="http://127.0.0.1:9", api_key="local", max_retries=0)
    with agentrender.record(sdk, path) as client, pytest.raises(anthropic.APIConnectionError):
        client.messages.create(**_params([{"role": "user", "content": "Go."}]))
    (error,) = _calls(path)
    assert error["error"]["type"] == "APIConnectionError"
    assert "sent" not in error


def test_a_reply_the_run_file_refuses_is_still_kept(tmp_path: Path) -> None:
    """A reply the run file's checks refuse reaches the agent, and is recorded as a model_call_error holding it."""
    path = tmp_path / "agent.jsonl"
    broken = {"id": "msg_00", "model": MODEL, "content": [{"type": "text"}], "stop_reason": "end_turn"}
    with MessagesServer.scripted([broken]) as server, agentrender.record(_client(server), path) as client:
        message = client.messages.create(**_params([{"role": "user", "content": "Go."}]))
    assert message.id == "msg_00"
    (error,) = _calls(path)
    assert error["type"] == "model_call_error"
    assert error["error"]["type"] == "unrecordable"
    assert "content[0].text: missing" in error["error"]["message"]
    assert error["partial"]["content"] == [{"type": "text"}]


def test_an_agent_using_parallel_tool_uses_is_recorded_with_every_result(tmp_path: Path) -> None:
    """An agent that leaves parallel tool use on (no tool_choice) runs against the stand-in, each result in its view."""
    path = tmp_path / "agent.jsonl"
    uses = [
        {"type": "tool_use", "id": f"toolu_{n}", "name": "read_file", "input": {"path": name}}
        for n, name in enumerate(FILES)
    ]
    first = {"id": "msg_00", "model": MODEL, "content": uses, "stop_reason": "tool_use"}
    last = {"id": "msg_01", "model": MODEL, "content": [{"type": "text", "text": "42."}], "stop_reason": "end_turn"}
    params = {"model": MODEL, "max_tokens": 512, "tools": TOOLS}
    messages: list[dict[str, Any]] = [{"role": "user", "content": "What is the answer?"}]
    with MessagesServer.scripted([first, last]) as server, agentrender.record(_client(server), path) as client:
        message = client.messages.create(**params, messages=messages)
        results = [
            {"type": "tool_result", "tool_use_id": block.id, "content": FILES[block.input["path"]]}
            for block in message.content
            if block.type == "tool_use"
        ]
        messages += [{"role": "assistant", "content": message.content}, {"role": "user", "content": results}]
        client.messages.create(**params, messages=messages)
    assert [received.reason for received in server.rejections] == []
    run = imports.load(path)
    assert run.warnings == ()
    assert run.parallel_tools() == {0: ("read_file", "read_file", "read_file")}
    view = [message.to_dict() for message in render.messages(run.step_input(1), run.options())]
    assert view == normalise_messages(server.received[1].body["messages"], Where("sent"))
    assert [block["content"] for block in view[2]["content"]] == list(FILES.values())


def test_an_agent_with_server_tools_is_recorded_with_their_blocks(tmp_path: Path) -> None:
    """Server and versioned tools and a custom tool's own fields pass the stand-in; the server blocks are kept, and
    the tools load with no warning."""
    path = tmp_path / "agent.jsonl"
    tools = [
        {**TOOLS[0], "type": "custom", "strict": True},
        {"type": "web_search_20250305", "name": "web_search", "max_uses": 2},
        {"type": "bash_20250124", "name": "bash"},
    ]
    search = [
        {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "the answer"}},
        {
            "type": "web_search_tool_result",
            "tool_use_id": "srvtoolu_01",
            "content": [
                {"type": "web_search_result", "url": "https://a.example", "title": "A", "encrypted_content": "e"}
            ],
        },
        {"type": "text", "text": "It is 42."},
    ]
    reply = {"id": "msg_00", "model": MODEL, "content": search, "stop_reason": "end_turn"}
    messages = [{"role": "user", "content": "What is the answer?"}]
    with MessagesServer.scripted([reply]) as server, agentrender.record(_client(server), path) as client:
        message = client.messages.create(model=MODEL, max_tokens=512, tools=tools, messages=messages)
    assert [received.reason for received in server.rejections] == []
    assert message.content[2].text == "It is 42."
    run = imports.load(path)
    assert list(map(str, run.warnings)) == []
    (call,) = run.model_calls
    assert call.record["request"]["tools"] == tools
    assert call.record["response"]["content"] == search


def test_calls_from_several_threads_are_each_one_whole_record(tmp_path: Path) -> None:
    """Calls made at once from threads are each recorded, one whole line each."""
    path = tmp_path / "agent.jsonl"
    questions = [[{"role": "user", "content": f"Question {n}."}] for n in range(6)]
    with (
        MessagesServer.scripted([_reply(3)] * 6) as server,
        agentrender.record(_client(server), path) as client,
        ThreadPoolExecutor(3) as pool,
    ):
        list(pool.map(lambda messages: client.messages.create(**_params(messages)), questions))
    calls = _calls(path)
    assert sorted(call["request"]["messages"][0]["content"] for call in calls) == [f"Question {n}." for n in range(6)]
    assert all(call["type"] == "model_call" and call["step"] == 0 for call in calls)


def test_load_run_of_a_recording_says_which_reader_gives_its_steps(tmp_path: Path) -> None:
    """load_run of a recording (calls, no steps) warns that agentrender.load reads its calls as steps."""
    path = tmp_path / "agent.jsonl"
    with (
        MessagesServer.scripted([_reply(n) for n in range(4)]) as server,
        agentrender.record(_client(server), path) as client,
    ):
        _run_agent(client, "create")
    run = load_run(path)
    assert run.steps == () and len(run.model_calls) == 4
    assert any(
        "4 model calls and no steps" in warning.text and "agentrender.load" in warning.text for warning in run.warnings
    )
    assert len(agentrender.load(path).steps) == 4


def test_a_recording_of_several_conversations_loads_each_as_a_run(tmp_path: Path) -> None:
    """A side request the agent made (a summary) is a run of its own in load_runs, as the load warning says."""
    path = tmp_path / "agent.jsonl"
    side = {
        "id": "msg_side",
        "model": MODEL,
        "content": [{"type": "text", "text": "A summary."}],
        "stop_reason": "end_turn",
    }
    with (
        MessagesServer.scripted([_reply(0), side, *(_reply(n) for n in range(1, 4))]) as server,
        agentrender.record(_client(server), path) as client,
    ):
        messages: list[dict[str, Any]] = [{"role": "user", "content": "What is the answer? Start at a.txt."}]
        message = client.messages.create(**_params(messages))
        client.messages.create(model=MODEL, max_tokens=64, messages=[{"role": "user", "content": "Summarise a.txt."}])
        while message.stop_reason == "tool_use":
            messages += _next_turns(message)
            message = client.messages.create(**_params(messages))
    assert any(
        "agent/1: imports.load_runs, agentrender runs" in warning.text for warning in imports.load(path).warnings
    )
    runs = imports.load_runs(path)
    assert [(run.run_id, len(run.steps)) for run in runs] == [("agent", 4), ("agent/1", 1)]
    assert runs[1].model_calls[0].record["response"]["id"] == "msg_side"


@pytest.mark.parametrize("system", [SYSTEM, [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}]])
def test_a_recording_replays_through_the_stand_in(tmp_path: Path, system: Any) -> None:
    """MessagesServer.from_run of a recording answers the agent run again with its recorded replies, by its requests."""
    path = tmp_path / "agent.jsonl"
    with (
        MessagesServer.scripted([_reply(n) for n in range(4)]) as server,
        agentrender.record(_client(server), path) as client,
    ):
        messages: list[dict[str, Any]] = [{"role": "user", "content": "What is the answer? Start at a.txt."}]
        message = client.messages.create(**{**_params(messages), "system": system})
        while message.stop_reason == "tool_use":
            messages += _next_turns(message)
            message = client.messages.create(**{**_params(messages), "system": system})
    with MessagesServer.from_run(imports.load(path)) as replay:
        client = _client(replay)
        replayed = [client.messages.create(**call["request"]) for call in _calls(path)]
    assert [received.reason for received in replay.rejections] == []
    assert [message.id for message in replayed] == ["msg_00", "msg_01", "msg_02", "msg_03"]


def test_a_replay_of_a_recording_says_which_field_of_the_request_changed(tmp_path: Path) -> None:
    """Replayed from a recording with its system prompt changed, the stand-in's 400 names the recorded request of the
    step and the field that differs, recorded and now, as the recording's request bodies hold them. Before, it said
    only "no recorded reply for this request (replay key ...)"."""
    path = tmp_path / "agent.jsonl"
    with (
        MessagesServer.scripted([_reply(n) for n in range(4)]) as server,
        agentrender.record(_client(server), path) as client,
    ):
        _run_agent(client, "create")
    with MessagesServer.from_run(imports.load(path)) as replay, pytest.raises(anthropic.BadRequestError) as refused:
        _client(replay).messages.create(**{**_lines(path)[2]["request"], "system": "You guess."})
    said = (
        ": the nearest request the run recorded, of step 1, has the same messages; "
        'system (recorded "You read files until you know the answer.", now "You guess.") differ'
    )
    assert replay.rejections[0].reason.endswith(said) and said in str(refused.value)


def test_from_anthropic_reads_a_recording(tmp_path: Path) -> None:
    """imports.from_anthropic reads a recording as load does, named by the recording's run id."""
    path = tmp_path / "agent.jsonl"
    with (
        MessagesServer.scripted([_reply(n) for n in range(4)]) as server,
        agentrender.record(_client(server), path, run_id="my-agent") as client,
    ):
        _run_agent(client, "create")
    run = imports.from_anthropic(path)
    assert run.run_id == "my-agent"
    assert run.header["source"]["format"] == "anthropic-record"
    assert run.header["source"]["calls"] == 4
    assert run == imports.load(path)


_KILLED_AGENT = """
import sys, anthropic, agentrender
client = agentrender.record(
    anthropic.Anthropic(base_url=sys.argv[1], api_key="local", max_retries=0, timeout=60.0), sys.argv[2]
)
messages = [{"role": "user", "content": "Count."}]
while True:
    message = client.messages.create(model="m", max_tokens=64, messages=messages)
    messages += [{"role": "assistant", "content": message.content}, {"role": "user", "content": "Go on."}]
"""


@pytest.mark.slow
def test_a_run_killed_mid_call_leaves_every_completed_call(tmp_path: Path) -> None:
    """SIGKILL while the server holds a reply leaves a file that imports with every call that had ended, and says it
    was cut short: no end record, which a closed recording has (before, it read as a recording closed)."""
    path = tmp_path / "killed.jsonl"
    replies: list[Mapping[str, Any] | Failure] = [
        {"id": f"msg_{n}", "content": [{"type": "text", "text": f"{n}"}], "stop_reason": "end_turn"} for n in range(3)
    ]
    with MessagesServer.scripted([*replies, Failure(status=500, delay=60.0)]) as server:
        agent = subprocess.Popen([sys.executable, "-c", _KILLED_AGENT, server.base_url, str(path)])
        try:
            deadline = time.monotonic() + 60
            while len(server.received) < 4 and agent.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            assert len(server.received) == 4, "the agent did not reach its fourth call"
        finally:
            os.kill(agent.pid, signal.SIGKILL)
            agent.wait()
    assert agent.returncode == -signal.SIGKILL
    run = imports.load(path)
    assert [call.step for call in run.model_calls] == [0, 1, 2]
    assert [call.record["request"] for call in run.model_calls] == [received.body for received in server.received[:3]]
    assert len(run.steps) == 3
    assert [(warning.line, warning.text.partition(":")[0]) for warning in run.warnings] == [
        (4, "the recording has no end record, which agentrender.record writes as the recording is closed")
    ]
    assert run.end is None and end_said(run.end, run.header) == (NO_END_RECORDED, False)


_UNCLOSED_AGENT = """
import sys, anthropic, agentrender
client = agentrender.record(anthropic.Anthropic(base_url=sys.argv[1], api_key="local", max_retries=0), sys.argv[2])
client.messages.create(model="m", max_tokens=64, messages=[{"role": "user", "content": "Hi."}])
"""


@pytest.mark.slow
def test_a_compressed_recording_is_finished_when_the_agent_exits_without_closing(tmp_path: Path) -> None:
    """An agent that never closes its client still leaves a whole gzip stream: no data is reported lost."""
    path = tmp_path / "agent.jsonl.gz"
    reply = {"id": "msg_0", "content": [{"type": "text", "text": "Hello."}], "stop_reason": "end_turn"}
    with MessagesServer.scripted([reply]) as server:
        subprocess.run([sys.executable, "-c", _UNCLOSED_AGENT, server.base_url, str(path)], check=True, timeout=120)
    run = imports.load(path)
    assert [call.record["response"]["id"] for call in run.model_calls] == ["msg_0"]
    assert run.warnings == ()
    assert run.end is not None
    assert run.end["reason"] == "the agent's process exited without closing the recorded client"
    # Read as a plain run file, a recording has no opening or steps of its own (its calls hold
    # them): those are the loader's warnings, of its header, and nothing is reported lost or cut.
    warnings = load_run(path).warnings
    assert [warning.text for warning in warnings if warning.lost or "gzip" in warning.text] == []
    assert [warning.line for warning in warnings] == [1, 1]


_AGENT_KILLED_AFTER_TWO_CALLS = """
import os, signal, sys, anthropic, agentrender
client = agentrender.record(anthropic.Anthropic(base_url=sys.argv[1], api_key="local", max_retries=0), sys.argv[2])
messages = [{"role": "user", "content": "Count."}]
for _ in range(2):
    message = client.messages.create(model="m", max_tokens=64, messages=messages)
    messages += [{"role": "assistant", "content": message.content}, {"role": "user", "content": "Go on."}]
os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.parametrize("name", ["resumed.jsonl", "resumed.jsonl.gz"])
def test_a_resumed_agent_goes_on_with_its_killed_recording(tmp_path: Path, name: str) -> None:
    """record(client, path, append=True) in the process that resumes a killed agent keeps the calls the killed one
    recorded (a gzip recording's stream, left without its end, made whole first) and writes its own after them: the
    file imports as the one conversation of all three calls. Before, record had no append, and a path already there
    was replaced: the killed process's calls were lost without a word."""
    path = tmp_path / name
    replies = [
        {"id": f"msg_{n}", "content": [{"type": "text", "text": f"{n}"}], "stop_reason": "end_turn"} for n in range(3)
    ]
    with MessagesServer.scripted(replies[:2]) as server:
        killed = subprocess.run(
            [sys.executable, "-c", _AGENT_KILLED_AFTER_TWO_CALLS, server.base_url, str(path)], timeout=120, check=False
        )
    assert killed.returncode == -signal.SIGKILL
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Count."}]
    for reply in replies[:2]:
        messages += [{"role": "assistant", "content": reply["content"]}, {"role": "user", "content": "Go on."}]
    with (
        MessagesServer.scripted(replies[2:]) as server,
        agentrender.record(_client(server), path, append=True) as client,
    ):
        client.messages.create(model="m", max_tokens=64, messages=messages)
    run = imports.load(path)
    assert run.warnings == () and run.run_id == "resumed"
    assert [call.record["response"]["id"] for call in run.model_calls] == ["msg_0", "msg_1", "msg_2"]
    assert [call.step for call in run.model_calls] == [0, 1, 2] and len(run.steps) == 3
    assert [record["type"] for record in load_run(path).records].count("run") == 1


@pytest.mark.parametrize("name", ["closed.jsonl", "closed.jsonl.gz"])
def test_a_resumed_agent_goes_on_after_the_end_its_recording_was_closed_with(tmp_path: Path, name: str) -> None:
    """append=True over a recording that was closed (its last record the end record) removes that end, as the
    recording goes on, and writes the calls made now after the calls before it: one end, the last record, when the
    resumed agent closes, and the run imports with no warning."""
    path = tmp_path / name
    replies = [
        {"id": f"msg_{n}", "content": [{"type": "text", "text": f"{n}"}], "stop_reason": "end_turn"} for n in (0, 1)
    ]
    asked: list[dict[str, Any]] = [{"role": "user", "content": "Count."}]
    with MessagesServer.scripted(replies[:1]) as server, agentrender.record(_client(server), path) as client:
        client.messages.create(model="m", max_tokens=64, messages=asked)
    asked += [{"role": "assistant", "content": replies[0]["content"]}, {"role": "user", "content": "Go on."}]
    with (
        MessagesServer.scripted(replies[1:]) as server,
        agentrender.record(_client(server), path, append=True) as client,
    ):
        client.messages.create(model="m", max_tokens=64, messages=asked)
    assert [record["type"] for record in load_run(path).records] == ["run", "model_call", "model_call", "end"]
    run = imports.load(path)
    assert run.warnings == () and run.end is not None and run.end["status"] == "closed"
    assert [call.record["response"]["id"] for call in run.model_calls] == ["msg_0", "msg_1"]


def test_two_assistant_turns_in_a_row_of_a_real_agent_read_as_the_api_combined_them(tmp_path: Path) -> None:
    """An agent on the SDK that sends a pause_turn reply back to be continued and appends the continuation as an
    assistant turn of its own (two in a row, which the API takes and combines) leaves a recording that imports: the
    two turns one step, each reply's blocks in order, a warning at the line and field of the call that sent them
    (before, the whole recording was an error)."""
    path = tmp_path / "paused.jsonl"
    answers = [
        {"id": "msg_0", "model": "m", "content": [{"type": "text", "text": "Searching."}], "stop_reason": "pause_turn"},
        {"id": "msg_1", "model": "m", "content": [{"type": "text", "text": "Sunny."}], "stop_reason": "end_turn"},
        {"id": "msg_2", "model": "m", "content": [{"type": "text", "text": "Bye."}], "stop_reason": "end_turn"},
    ]
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Weather?"}]
    with agentrender.record(_over_transport(answers, max_retries=0), path) as client:
        for _ in range(3):
            reply = client.messages.create(model="m", max_tokens=64, messages=messages)
            messages.append(
                {"role": "assistant", "content": [block.model_dump(exclude_none=True) for block in reply.content]}
            )
            if reply.stop_reason == "end_turn" and len(messages) < 4:
                messages.append({"role": "user", "content": "Thanks."})
    assert [record["step"] for record in _calls(path)] == [0, 0, 1]
    run = imports.load(path)
    assert [(warning.line, warning.text.partition(":")[0]) for warning in run.warnings] == [
        (4, "request.messages[2].role")
    ]
    assert "two assistant turns in a row (messages[1] and [2]): combined into one turn" in run.warnings[0].text
    view = [message.to_dict() for message in render.messages(run.step_input(1), run.options())]
    assert [block["text"] for block in view[1]["content"]] == ["Searching.", "Sunny."]
    assert [call.record["response"]["id"] for call in run.model_calls] == ["msg_0", "msg_1", "msg_2"]


@pytest.mark.parametrize("dump", ["model_dump", "model_dump exclude_none", "message model_dump"])
def test_an_agent_that_appends_the_sdks_dumped_blocks_imports_as_one_conversation(tmp_path: Path, dump: str) -> None:
    """An agent on the SDK that appends each reply to its history as ``block.model_dump()`` gives it (null fields
    the reply had no key for: ``citations``, ``caller``), with or without ``exclude_none``, or as
    ``message.model_dump()["content"]``, and sends a pause_turn reply back to be continued, leaves a recording that
    imports as one conversation: no warning, the continuation a call of the paused step, every request as sent."""
    path = tmp_path / "dumped.jsonl"
    answers = [
        {"id": "msg_0", "model": "m", "content": [{"type": "text", "text": "Searching."}], "stop_reason": "pause_turn"},
        {
            "id": "msg_1",
            "model": "m",
            "content": [
                {"type": "text", "text": " Found it."},
                {"type": "tool_use", "id": "toolu_01", "name": "read_file", "input": {"path": "c.txt"}},
            ],
            "stop_reason": "tool_use",
        },
        {"id": "msg_2", "model": "m", "content": [{"type": "text", "text": "42."}], "stop_reason": "end_turn"},
    ]

    def dumped(message: anthropic.types.Message) -> list[dict[str, Any]]:
        if dump == "message model_dump":
            return list(message.model_dump()["content"])
        return [block.model_dump(exclude_none=dump.endswith("exclude_none")) for block in message.content]

    messages: list[dict[str, Any]] = [{"role": "user", "content": "What is the answer?"}]
    sent = []
    with agentrender.record(_over_transport(answers, max_retries=0), path) as client:
        while True:
            sent.append(json.loads(json.dumps(messages)))
            reply = client.messages.create(model="m", max_tokens=64, tools=TOOLS, messages=messages)
            if messages[-1]["role"] == "assistant":  # the paused turn, continued: one turn of both replies' blocks
                messages[-1]["content"] += dumped(reply)
            else:
                messages.append({"role": "assistant", "content": dumped(reply)})
            if reply.stop_reason == "end_turn":
                break
            if reply.stop_reason == "tool_use":
                result = {"type": "tool_result", "tool_use_id": "toolu_01", "content": FILES["c.txt"]}
                messages.append({"role": "user", "content": [result]})
    assert ("citations" in sent[1][1]["content"][0]) is (dump != "model_dump exclude_none")
    assert [record["request"]["messages"] for record in _calls(path)] == sent  # as the agent sent them
    run = imports.load(path)
    assert run.warnings == ()
    assert [call.step for call in run.model_calls] == [0, 0, 1]
    assert [call.record["request"]["messages"] for call in run.model_calls] == sent
    views = Views(run)
    assert [views.at(step).key_differs for step in (0, 1)] == ["", ""]  # each view as sent is its request
    prefill = views.at(0).prefilled
    assert prefill is not None and prefill.message.to_dict() == sent[1][1]


def test_append_refuses_what_it_cannot_go_on_with_and_leaves_the_file(tmp_path: Path) -> None:
    """append=True on a file that is no recording, or a recording whose last line a kill cut short, is a ValueError
    naming the file and line and what to do, and the file is left byte for byte; no file there is a new recording."""
    sdk = anthropic.Anthropic(api_key="local")
    other = tmp_path / "driven.jsonl"
    other.write_bytes(agentrender.samples.path("fix-failing-test").read_bytes())
    cut = tmp_path / "cut.jsonl"
    with agentrender.record(sdk, cut):
        pass
    cut.write_bytes(cut.read_bytes() + b'{"type": "model_call", "step": 0, "lat')
    for path, said in [
        (other, r"driven\.jsonl:1: append=True goes on with a recording agentrender\.record wrote .*this file is none"),
        (cut, r"cut\.jsonl:3: the recording's last line is cut short \(38 bytes, no newline\)"),
    ]:
        before = path.read_bytes()
        with pytest.raises(ValueError, match=said):
            agentrender.record(sdk, path, append=True)
        assert path.read_bytes() == before
    with agentrender.record(sdk, tmp_path / "new.jsonl", append=True):
        pass
    assert [record["type"] for record in _lines(tmp_path / "new.jsonl")] == ["run", "end"]


@pytest.mark.parametrize("stream", [False, True])
def test_a_call_through_with_raw_response_is_recorded(tmp_path: Path, stream: bool) -> None:
    """messages.with_raw_response.create is recorded as create is; the agent still gets the headers and its reply."""
    path = tmp_path / "agent.jsonl"
    params = _params([{"role": "user", "content": "What is the answer? Start at a.txt."}])
    with MessagesServer.scripted([_reply(0)]) as server, agentrender.record(_client(server), path) as client:
        raw = client.messages.with_raw_response.create(**params, **({"stream": True} if stream else {}))
        assert raw.headers["request-id"] == "req_local_1"
        parsed = raw.parse()
        message = _final(list(parsed)) if stream else parsed
    assert message.id == "msg_00"
    assert message.content[1].input == {"path": "a.txt"}
    (call,) = imports.load(path).model_calls
    assert call.record["request"] == server.received[0].body
    assert call.record["response"]["content"] == _reply(0)["content"]


@pytest.mark.parametrize("stream", [False, True])
def test_an_async_call_through_with_raw_response_is_recorded(tmp_path: Path, stream: bool) -> None:
    """The async client's messages.with_raw_response.create is recorded too."""
    path = tmp_path / "agent.jsonl"
    params = _params([{"role": "user", "content": "What is the answer? Start at a.txt."}])

    async def main(server: MessagesServer) -> anthropic.types.Message:
        async with agentrender.record(_async_client(server), path) as client:
            raw = await client.messages.with_raw_response.create(**params, **({"stream": True} if stream else {}))
            assert raw.headers["request-id"] == "req_local_1"
            parsed = await raw.parse()
            return _final([event async for event in parsed]) if stream else parsed

    with MessagesServer.scripted([_reply(0)]) as server:
        message = asyncio.run(main(server))
    assert message.id == "msg_00"
    (call,) = imports.load(path).model_calls
    assert call.record["request"] == server.received[0].body
    assert call.record["response"]["content"] == _reply(0)["content"]


def test_everything_else_on_the_client_passes_through(tmp_path: Path) -> None:
    """Attributes, other resources and other methods are the client's own; with_options stays recorded."""
    path = tmp_path / "agent.jsonl"
    with MessagesServer.scripted([_reply(0)]) as server:
        inner = _client(server)
        with agentrender.record(inner, path) as client:
            assert client.api_key == "local"
            assert str(client.base_url).rstrip("/") == server.base_url
            assert client.models is inner.models
            assert client.messages.batches is inner.messages.batches
            assert client.messages.count_tokens == inner.messages.count_tokens
            # The stand-in has no token counting: the SDK's own error, and nothing recorded.
            with pytest.raises(anthropic.NotFoundError):
                client.messages.count_tokens(model=MODEL, messages=[{"role": "user", "content": "Hi."}])
            quicker = client.with_options(timeout=5.0)
            assert quicker.timeout == 5.0
            message = quicker.messages.create(**_params([{"role": "user", "content": "Hi."}]))
    assert message.id == "msg_00"
    assert [record["type"] for record in _lines(path)] == ["run", "model_call", "end"]


# Beta features a beta call asks for (the SDK sends them in the anthropic-beta header).
BETAS = ["context-management-2025-06-27", "interleaved-thinking-2025-05-14"]


@pytest.mark.parametrize("mode", MODES)
def test_a_beta_call_is_recorded_with_the_betas_it_was_sent_with(tmp_path: Path, mode: str) -> None:
    """client.beta.messages' create, create(stream=True) and stream are recorded as messages' are, the request
    holding the betas it was sent with; the rest of client.beta is the client's own."""
    path = tmp_path / "agent.jsonl"
    params = {**_params([{"role": "user", "content": "What is the answer? Start at a.txt."}]), "betas": BETAS}
    with MessagesServer.scripted([_reply(0)]) as server:
        inner = _client(server)
        with agentrender.record(inner, path) as client:
            assert client.beta.models is inner.beta.models
            if mode == "create":
                message = client.beta.messages.create(**params)
            elif mode == "stream":
                with client.beta.messages.stream(**params) as stream:
                    message = stream.get_final_message()
            else:
                message = _final(list(client.beta.messages.create(**params, stream=True)))
    assert type(message).__name__ in ("BetaMessage", "ParsedBetaMessage")
    assert message.content[1].input == {"path": "a.txt"}
    assert _lines(path)[1]["request"] == {**server.received[0].body, "betas": BETAS}
    run = imports.load(path)
    (call,) = run.model_calls
    assert call.record["request"] == server.received[0].body
    assert run.header["source"]["entries"] == [{"call": 0, "line": 2, "fields": {"betas": BETAS}}]
    assert call.record["response"]["content"] == _reply(0)["content"]


def test_a_recorded_beta_calls_betas_are_kept_beside_its_request_not_as_a_field_of_its_body(tmp_path: Path) -> None:
    """The betas a recorded call was sent with (the anthropic-beta header, not a field of the body) are kept beside
    its request, in its entry of the run's source with its line; neither the header's request nor the model call's
    request, each the body the model was sent, holds them, where both held them as a body field."""
    path = tmp_path / "agent.jsonl"
    asked = [{"role": "user", "content": "What is the answer? Start at a.txt."}]
    with MessagesServer.scripted([_reply(0), _reply(1)]) as server, agentrender.record(_client(server), path) as client:
        first = client.messages.create(**_params(asked))
        client.beta.messages.create(**_params([*asked, *_next_turns(first)]), betas=BETAS)
    assert _lines(path)[2]["request"]["betas"] == BETAS  # the recording holds them as the SDK takes them
    run = imports.load(path)
    assert run.header["request"] == {"tool_choice": TOOL_CHOICE}
    assert [call.record["request"] for call in run.model_calls] == [received.body for received in server.received]
    assert run.header["source"]["entries"] == [{"call": 1, "line": 3, "fields": {"betas": BETAS}}]


@pytest.mark.parametrize("mode", ["create", "stream"])
def test_an_async_beta_call_is_recorded(tmp_path: Path, mode: str) -> None:
    """The async client's beta.messages.create and stream are recorded too, with their betas."""
    path = tmp_path / "agent.jsonl"
    params = {**_params([{"role": "user", "content": "What is the answer? Start at a.txt."}]), "betas": BETAS}

    async def main(server: MessagesServer) -> Any:
        async with agentrender.record(_async_client(server), path) as client:
            if mode == "create":
                return await client.beta.messages.create(**params)
            async with client.beta.messages.stream(**params) as stream:
                return await stream.get_final_message()

    with MessagesServer.scripted([_reply(0)]) as server:
        message = asyncio.run(main(server))
    assert message.id == "msg_00"
    assert _lines(path)[1]["request"] == {**server.received[0].body, "betas": BETAS}


class _Answer(pydantic.BaseModel):
    """The structured output an agent asks messages.parse for."""

    value: int


_ANSWER = {
    "id": "msg_00",
    "model": MODEL,
    "content": [{"type": "text", "text": '{"value": 42}'}],
    "stop_reason": "end_turn",
}
_ASKED = {"model": MODEL, "max_tokens": 64, "messages": [{"role": "user", "content": "The answer?"}]}


@pytest.mark.parametrize("how", ["parse", "raw-parse", "async-parse"])
def test_a_beta_parse_is_recorded_as_the_request_it_sent(tmp_path: Path, how: str) -> None:
    """beta.messages.parse, of which the SDK gives a raw response, is recorded as create is: the body it sent (the
    JSON schema it made of output_format) and the reply as the API gave it; the agent gets its parsed output."""
    path = tmp_path / "agent.jsonl"

    async def main(server: MessagesServer) -> Any:
        async with agentrender.record(_async_client(server), path) as client:
            return await client.beta.messages.parse(**_ASKED, output_format=_Answer)

    with MessagesServer.scripted([_ANSWER]) as server:
        if how == "async-parse":
            message = asyncio.run(main(server))
        else:
            with agentrender.record(_client(server), path) as client:
                if how == "parse":
                    message = client.beta.messages.parse(**_ASKED, output_format=_Answer)
                else:
                    message = client.beta.messages.with_raw_response.parse(**_ASKED, output_format=_Answer).parse()
    assert message.parsed_output == _Answer(value=42)
    (call,) = imports.load(path).model_calls
    sent = server.received[0].body
    assert sent["output_config"]["format"]["type"] == "json_schema"
    assert call.record["request"] == sent
    assert call.record["response"]["content"] == _ANSWER["content"]


def test_calls_the_recorder_cannot_record_are_the_clients_own_and_write_nothing(tmp_path: Path) -> None:
    """messages.parse and with_streaming_response, which the docs say are not recorded, are the client's own: each
    gives the agent what it gives unrecorded, and nothing is written."""
    path = tmp_path / "agent.jsonl"
    with MessagesServer.scripted([_ANSWER] * 3) as server:
        inner = _client(server)
        with agentrender.record(inner, path) as client:
            assert client.messages.parse == inner.messages.parse
            assert client.messages.with_streaming_response is inner.messages.with_streaming_response
            assert client.beta.messages.with_streaming_response is inner.beta.messages.with_streaming_response
            assert client.with_streaming_response is inner.with_streaming_response
            parsed = client.messages.parse(**_ASKED, output_format=_Answer)
            with client.messages.with_streaming_response.create(**_ASKED) as response:
                streamed = response.parse()
            with client.beta.messages.with_streaming_response.create(**_ASKED, stream=True) as response:
                lines = list(response.iter_lines())
    assert parsed.parsed_output == _Answer(value=42)
    assert streamed.content[0].text == '{"value": 42}'
    assert "event: message_stop" in lines
    assert len(server.received) == 3
    assert [record["type"] for record in _lines(path)] == ["run", "end"]


def test_a_call_through_the_clients_with_raw_response_is_recorded(tmp_path: Path) -> None:
    """client.with_raw_response.messages.create and its beta.messages.create are recorded as
    messages.with_raw_response.create is; the rest of client.with_raw_response is the client's own."""
    path = tmp_path / "agent.jsonl"
    with MessagesServer.scripted([_ANSWER] * 2) as server:
        inner = _client(server)
        with agentrender.record(inner, path) as client:
            assert client.with_raw_response.models is inner.with_raw_response.models
            raw = client.with_raw_response.messages.create(**_ASKED)
            beta = client.with_raw_response.beta.messages.create(**_ASKED, betas=BETAS)
    assert raw.headers["request-id"] == "req_local_1"
    assert (raw.parse().id, beta.parse().id) == ("msg_00", "msg_00")
    calls = _calls(path)
    assert [call["type"] for call in calls] == ["model_call", "model_call"]
    assert calls[0]["request"] == server.received[0].body
    assert calls[1]["request"] == {**server.received[1].body, "betas": BETAS}


@pytest.mark.parametrize("part", ["beta", "messages", "beta.messages"])
def test_record_refuses_a_resource_of_a_client_naming_what_to_pass(tmp_path: Path, part: str) -> None:
    """record(client.beta) or another resource of a client is refused at once: the error names it and says to pass
    the client."""
    resource: Any = anthropic.Anthropic(api_key="local")
    for name in part.split("."):
        resource = getattr(resource, name)
    with pytest.raises(TypeError, match=rf"got {type(resource).__name__}: pass the client itself, record\(client"):
        agentrender.record(resource, tmp_path / "agent.jsonl")
    assert not (tmp_path / "agent.jsonl").exists()


def test_a_client_made_with_middleware_is_recorded_to_the_same_file(tmp_path: Path) -> None:
    """with_middleware, as with_options and copy, gives a client whose calls are recorded to the same file."""
    path = tmp_path / "agent.jsonl"
    seen: list[Any] = []

    def middleware(request: Any, call_next: Any) -> Any:
        seen.append(request)
        return call_next(request)

    with MessagesServer.scripted([_reply(0)]) as server, agentrender.record(_client(server), path) as client:
        message = client.with_middleware(middleware).messages.create(**_params([{"role": "user", "content": "Hi."}]))
    assert message.id == "msg_00"
    assert len(seen) == 1
    assert [record["type"] for record in _lines(path)] == ["run", "model_call", "end"]


def test_record_refuses_what_is_not_a_client(tmp_path: Path) -> None:
    """A value with no messages.create is refused at once, naming what it got."""
    with pytest.raises(TypeError, match="got dict"):
        agentrender.record({}, tmp_path / "agent.jsonl")
    assert not (tmp_path / "agent.jsonl").exists()


def test_record_adds_no_third_party_import() -> None:
    """import agentrender and the name agentrender.record load no third-party package but msgspec (the core's one)."""
    code = (
        "import sys; before = set(sys.modules); import agentrender; agentrender.record; "
        "print('\\n'.join(sorted(set(sys.modules) - before)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = {name.split(".")[0] for name in out.stdout.split()}
    # msgspec itself imports typing_extensions when another package installed it; a base install has none
    assert loaded - set(sys.stdlib_module_names) - {"agentrender", "typing_extensions"} == {"msgspec"}
    assert callable(agentrender.record)


def test_the_recording_benchmark_runs(
    import_bench: Callable[[str], ModuleType], capsys: pytest.CaptureFixture[str]
) -> None:
    """bench/bench_record.py measures a recorded and a plain client on a tiny size and prints each figure."""
    bench = import_bench("bench_record")
    bench.main(["--turns", "2", "--calls", "1"])
    header, row = capsys.readouterr().out.splitlines()
    assert header.split() == ["turns", "plain", "ms", "recorded", "ms", "ratio"]
    assert row.split()[0] == "2" and float(row.split()[-1]) > 0


def test_a_prefilled_call_is_the_step_its_reply_decided(tmp_path: Path) -> None:
    """A call whose request ends with a prefill, continued by a turn holding the prefill and its reply, is one run."""
    path = tmp_path / "agent.jsonl"
    answer, thanks = (
        {"id": f"msg_0{n}", "model": MODEL, "content": [{"type": "text", "text": text}], "stop_reason": "end_turn"}
        for n, text in enumerate([" 42.", "Welcome."])
    )
    with (
        MessagesServer.scripted([answer, thanks]) as server,
        agentrender.record(_client(server), path) as client,
    ):
        messages: list[dict[str, Any]] = [{"role": "user", "content": "What is the answer?"}]
        prefill = {"role": "assistant", "content": "The answer is"}
        message = client.messages.create(model=MODEL, max_tokens=64, messages=[*messages, prefill])
        messages += [{"role": "assistant", "content": "The answer is" + message.content[0].text}]
        messages += [{"role": "user", "content": "Thanks."}]
        client.messages.create(model=MODEL, max_tokens=64, messages=messages)
    assert [received.reason for received in server.rejections] == []
    assert [record["step"] for record in _calls(path)] == [0, 1]
    run = imports.load(path)
    assert run.warnings == ()
    assert [call.step for call in run.model_calls] == [0, 1]
    assert len(run.steps) == 2
    assert run.steps[0].decision is not None


@pytest.mark.parametrize(
    ("reply", "turn", "decided"),
    [
        (  # the reply goes on with the prefill's text: one text, as the model wrote it
            [{"type": "text", "text": " 42."}],
            [{"type": "text", "text": "The answer is 42."}],
            ("no_tool_call", "", "The answer is 42."),
        ),
        (  # the reply calls a tool after the prefill's text
            [{"type": "tool_use", "id": "toolu_09", "name": "read_file", "input": {"path": "b.txt"}}],
            [
                {"type": "text", "text": "The answer is"},
                {"type": "tool_use", "id": "toolu_09", "name": "read_file", "input": {"path": "b.txt"}},
            ],
            ("tool_call", "read_file", "The answer is"),
        ),
    ],
)
def test_a_recording_whose_longest_call_is_prefilled_ends_on_its_reply(
    tmp_path: Path, reply: list[dict[str, Any]], turn: list[dict[str, Any]], decided: tuple[str, str, str]
) -> None:
    """A recording whose longest call ends with a prefill ends on that call's reply, prefill included, as its last
    step's turn and decision: what the model made of the turn it was given to go on with."""
    path = tmp_path / "agent.jsonl"
    last = {
        "id": "msg_01",
        "model": MODEL,
        "content": reply,
        "stop_reason": "tool_use" if len(turn) > 1 else "end_turn",
    }
    with MessagesServer.scripted([_reply(0), last]) as server, agentrender.record(_client(server), path) as client:
        messages: list[dict[str, Any]] = [{"role": "user", "content": "What is the answer?"}]
        first = client.messages.create(**_params(messages))
        messages += _next_turns(first)
        client.messages.create(**_params([*messages, {"role": "assistant", "content": "The answer is"}]))
    assert [received.reason for received in server.rejections] == []
    run = imports.load(path)
    assert run.warnings == ()
    assert [call.step for call in run.model_calls] == [0, 1]
    assert len(run.steps) == 2
    decision = run.steps[1].decision
    assert decision is not None and (decision.kind, decision.tool, decision.reason) == decided
    assert Views(run).at(None).messages[-1].to_dict() == {"role": "assistant", "content": turn}


class _AgentError(Exception):
    pass


@pytest.mark.parametrize("how", ["raise", "break", "close", "raise-in-with"])
def test_a_create_stream_loop_left_is_recorded_then_as_what_ended_it(tmp_path: Path, how: str) -> None:
    """A create(stream=True) loop left mid-reply is recorded before the next call: what arrived and what ended it."""
    path = tmp_path / "agent.jsonl"
    params = _params([{"role": "user", "content": "Go."}])
    with MessagesServer.scripted([_reply(0), _reply(3)]) as server, agentrender.record(_client(server), path) as client:
        events = client.messages.create(**params, stream=True)
        try:
            with events if how == "raise-in-with" else contextlib.nullcontext(events):
                for event in events:
                    if event.type == "content_block_delta":
                        if how == "break":
                            break
                        if how == "close":
                            events.close()
                            break
                        raise _AgentError("the agent's own error")
        except _AgentError:
            pass
        client.messages.create(**params)
    error, call = _calls(path)
    assert error["type"] == "model_call_error"
    assert error["error"]["type"] == ("_AgentError" if how == "raise-in-with" else "left")
    assert error["partial"]["content"][0]["text"] != ""
    assert error["request"] == server.received[0].body
    assert call["response"]["id"] == "msg_03"


def test_a_streamed_reply_is_recorded_as_the_same_reply_not_streamed(tmp_path: Path) -> None:
    """create, create(stream=True) and messages.stream record the same reply the same: only the fields the API sent."""
    path = tmp_path / "agent.jsonl"
    with (
        MessagesServer.scripted([_reply(0)] * len(MODES)) as server,
        agentrender.record(_client(server), path) as client,
    ):
        for mode in MODES:
            messages: list[dict[str, Any]] = [{"role": "user", "content": "What is the answer? Start at a.txt."}]
            if mode == "create":
                client.messages.create(**_params(messages))
            elif mode == "stream":
                with client.messages.stream(**_params(messages)) as stream:
                    stream.get_final_message()
            else:
                list(client.messages.create(**_params(messages), stream=True))
    created, streamed, created_streamed = (record["response"] for record in _calls(path))
    assert "stop_details" not in created
    assert streamed == created
    assert created_streamed == created


def test_a_streamed_tool_use_whose_arguments_are_not_json_reaches_the_agent_as_the_api_streams_it(
    tmp_path: Path,
) -> None:
    """A scripted reply whose tool use's input is text ('{"path": "a.txt"', cut) is streamed by the stand-in as that
    text, as the API streams a model's arguments: the SDK reads what it can of it, as it does of the API's, and the
    recording keeps the text, which decide gives back as invalid arguments. Before, the stand-in streamed the text as
    a JSON string, in halves the SDK refused ("Unable to parse tool parameter JSON from model")."""
    path = tmp_path / "agent.jsonl"
    cut = '{"path": "a.txt"'
    reply = {**_reply(0), "content": [{"type": "tool_use", "id": "toolu_00", "name": "read_file", "input": cut}]}
    assert [event["delta"] for name, event in stream_events(reply) if name == "content_block_delta"] == [
        {"type": "input_json_delta", "partial_json": part} for part in ('{"path":', ' "a.txt"')
    ]
    with (
        MessagesServer.scripted([reply]) as server,
        agentrender.record(_client(server), path) as client,
        client.messages.stream(**_params([{"role": "user", "content": "Read a.txt."}])) as stream,
    ):
        message = stream.get_final_message()
    assert message.content[0].input == {"path": "a.txt"}
    (call,) = imports.load(path).model_calls
    assert call.record["response"]["content"][0]["input"] == cut
    assert render.decide(call.response).invalid_args == cut


class _StreamWithoutRawEvents:
    """An SDK ``MessageStream`` that shows no ``_raw_stream`` (as an SDK that keeps its events elsewhere would)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def __getattr__(self, name: str) -> Any:
        if name == "_raw_stream":
            raise AttributeError(name)
        return getattr(self._stream, name)


class _MessagesWithoutRawEvents:
    def __init__(self, messages: Any) -> None:
        self._messages = messages

    @contextlib.contextmanager
    def stream(self, **params: Any) -> Any:
        with self._messages.stream(**params) as stream:
            yield _StreamWithoutRawEvents(stream)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._messages, name)


class _ClientWithoutRawEvents:
    def __init__(self, client: anthropic.Anthropic) -> None:
        self._client = client
        self.messages = _MessagesWithoutRawEvents(client.messages)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


def test_a_stream_whose_raw_events_cannot_be_read_is_recorded_from_the_sdks_snapshot(tmp_path: Path) -> None:
    """messages.stream of an SDK whose stream shows no raw events records the reply the SDK accumulated, whole when
    it completed, and what arrived with the agent's error when the block was left before it did."""
    path = tmp_path / "agent.jsonl"
    params = _params([{"role": "user", "content": "Go."}])
    with (
        MessagesServer.scripted([_reply(0), _reply(0)]) as server,
        agentrender.record(_ClientWithoutRawEvents(_client(server)), path) as client,
    ):
        with client.messages.stream(**params) as stream:
            final = stream.get_final_message()
        with pytest.raises(KeyError), client.messages.stream(**params) as stream:
            next(iter(stream.text_stream))
            raise KeyError("the agent's own error")
    call, error = _calls(path)
    assert call["type"] == "model_call"
    assert call["response"]["content"] == final.model_dump(mode="json", exclude_unset=True)["content"]
    assert call["response"]["stop_reason"] == final.stop_reason
    assert call["request"] == server.received[0].body
    assert error["type"] == "model_call_error"
    assert error["error"]["type"] == "KeyError"
    assert error["partial"]["id"] == "msg_00"
    assert error["request"] == server.received[1].body


@pytest.mark.parametrize("how", ["create-stream", "stream"])
@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_stream_loop_left_by_break_is_recorded_when_the_agent_stops(tmp_path: Path, how: str, kind: str) -> None:
    """A `for`/`async for` over a stream left by a break is recorded as soon as the agent stops reading (its loop, or
    the stream's `with` block), as what arrived, with the time it stopped: not later, when the stream is collected."""
    path = tmp_path / "agent.jsonl"
    params = _params([{"role": "user", "content": "Go."}])
    stopped: list[float] = []
    written: list[int] = []

    def stop(started: float) -> None:
        stopped.append((time.perf_counter() - started) * 1000)
        written.append(len(_lines(path)) - 1)

    async def read_async(client: anthropic.AsyncAnthropic) -> None:
        started = time.perf_counter()
        if how == "stream":
            async with client.messages.stream(**params) as stream:
                async for _ in stream:
                    break
        else:
            events = await client.messages.create(**params, stream=True)
            async for _ in events:
                break
        stop(started)
        for _ in range(5):  # the event loop runs on: nothing of the call is left for it to record
            await asyncio.sleep(0.02)

    def read(client: anthropic.Anthropic) -> None:
        started = time.perf_counter()
        if how == "stream":
            with client.messages.stream(**params) as stream:
                for _ in stream:
                    break
        else:
            for _ in client.messages.create(**params, stream=True):
                break
        stop(started)
        time.sleep(0.1)

    async def main_async(server: MessagesServer) -> None:
        async with agentrender.record(_async_client(server), path) as client:
            await read_async(client)

    with MessagesServer.scripted([_reply(0)]) as server:
        if kind == "async":
            asyncio.run(main_async(server))
        else:
            with agentrender.record(_client(server), path) as client:
                read(client)
    (error,) = _calls(path)
    assert written == [1]
    assert error["type"] == "model_call_error"
    assert error["error"]["type"] == "left"
    assert error["partial"]["id"] == "msg_00"
    assert error["latency_ms"] <= stopped[0]


def _over_transport(answers: list[Any], *, is_async: bool = False, **options: Any) -> Any:
    """An SDK client (sync or async) whose HTTP tries are answered in order from ``answers``, by a fake transport: a
    status and body, an ``httpx2`` exception raised, or a reply (streamed as events when the request asks); or a
    function called as the try is made, giving one of those (awaited, on the async client)."""

    def answer(request: httpx2.Request, given: Any) -> httpx2.Response:
        head = {"retry-after-ms": "1", "request-id": "req_fake"}
        if isinstance(given, Exception):
            raise given
        if isinstance(given, tuple):
            return httpx2.Response(given[0], json=given[1], headers=head)
        reply = {"type": "message", "role": "assistant", **given}
        if json.loads(request.content).get("stream"):
            events = "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in stream_events(reply))
            return httpx2.Response(200, text=events, headers={**head, "content-type": "text/event-stream"})
        return httpx2.Response(200, json=reply, headers=head)

    def answer_sync(request: httpx2.Request) -> httpx2.Response:
        given = answers.pop(0)
        return answer(request, given() if callable(given) else given)

    async def answer_async(request: httpx2.Request) -> httpx2.Response:
        given = answers.pop(0)
        return answer(request, (await given()) if callable(given) else given)

    if is_async:
        http = anthropic.DefaultAsyncHttpxClient(transport=httpx2.MockTransport(answer_async))
        return anthropic.AsyncAnthropic(api_key="local", http_client=http, **options)
    http = anthropic.DefaultHttpxClient(transport=httpx2.MockTransport(answer_sync))
    return anthropic.Anthropic(api_key="local", http_client=http, **options)


_OVERLOADED = (529, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_call_the_sdk_retried_is_recorded_with_each_try_that_failed(tmp_path: Path, mode: str, kind: str) -> None:
    """A call the SDK retried (an overloaded API, a dropped connection) records, beside its reply, each earlier try:
    when it began, how long it took and the error it gave; the reader and the importer keep them, with no warning."""
    path = tmp_path / "agent.jsonl"
    answers = [_OVERLOADED, httpx2.ConnectError("connection refused"), _reply(3)]

    async def main_async() -> None:
        async with agentrender.record(_over_transport(answers, is_async=True, max_retries=2), path) as client:
            await _run_agent_async(client, mode)

    if kind == "async":
        asyncio.run(main_async())
    else:
        with agentrender.record(_over_transport(answers, max_retries=2), path) as client:
            _run_agent(client, mode)
    (call,) = _calls(path)
    assert call["type"] == "model_call"
    assert call["response"]["id"] == "msg_03"
    overloaded, dropped = call["retried"]
    assert overloaded["error"]["type"] == "OverloadedError"
    assert overloaded["error"]["status"] == 529
    assert overloaded["error"]["body"]["error"]["type"] == "overloaded_error"
    assert dropped["error"]["type"] == "APIConnectionError"
    assert 0 <= overloaded["at_ms"] < dropped["at_ms"] < call["latency_ms"]
    assert all(0 <= failed["latency_ms"] < call["latency_ms"] for failed in call["retried"])

    assert [warning for warning in load_run(path).warnings if "unknown" in warning.text] == []
    run = imports.load(path)
    assert run.warnings == ()
    assert run.model_calls[0].record["response"]["id"] == "msg_03"
    assert list(run.model_calls[0].retried) == call["retried"]
    assert "entries" not in run.header["source"]
    assert model_calls_frame(run)["tries"].tolist() == [3]


@pytest.mark.parametrize("when", ["after", "before"])
def test_a_call_a_middleware_failed_is_recorded_as_sent_when_it_was(tmp_path: Path, when: str) -> None:
    """A call a middleware of the agent's fails with its own exception is recorded with that error: as sent (no
    "sent" mark, with the body that went out over HTTP) when it failed the response, "sent": false when it failed the
    request before it went out."""
    sent: list[Any] = []

    def refuse(request: Any, call_next: Callable[[Any], Any]) -> Any:
        if when == "after":
            sent.append(json.loads(call_next(request).http_request.content))
        raise ValueError(f"the middleware refuses it {when} sending")

    path = tmp_path / "agent.jsonl"
    sdk = _over_transport([_reply(3)], max_retries=0).with_middleware(refuse)
    with agentrender.record(sdk, path) as client, pytest.raises(ValueError, match="refuses"):
        client.messages.create(**_params([{"role": "user", "content": "Go."}]))
    (error,) = _calls(path)
    assert error["type"] == "model_call_error"
    assert error["error"] == {"type": "ValueError", "message": f"the middleware refuses it {when} sending"}
    never = [warning for warning in load_run(path).warnings if "never sent" in warning.text]
    if when == "after":
        assert "sent" not in error
        assert error["request"] == sent[0]
        assert never == []
    else:
        assert error["sent"] is False
        assert len(never) == 1


def test_a_call_whose_every_try_failed_says_so_and_each_error(tmp_path: Path) -> None:
    """A call the SDK retried until it gave up is a model_call_error of its last try, holding the ones before it, and
    the reader's warning says how many times it was tried."""
    path = tmp_path / "agent.jsonl"
    rate_limited = (429, {"type": "error", "error": {"type": "rate_limit_error", "message": "Too many requests"}})
    with (
        agentrender.record(_over_transport([_OVERLOADED, rate_limited], max_retries=1), path) as client,
        pytest.raises(anthropic.RateLimitError),
    ):
        client.messages.create(**_params([{"role": "user", "content": "Go."}]))
    (error,) = _calls(path)
    assert error["error"]["type"] == "RateLimitError"
    assert [failed["error"]["type"] for failed in error["retried"]] == ["OverloadedError"]
    (warning,) = [warning for warning in load_run(path).warnings if "no complete reply" in warning.text]
    assert "RateLimitError 429: " in warning.text and "tried 2 times" in warning.text


@pytest.mark.parametrize("where", ["event-hook", "transport"])
def test_an_error_raised_as_the_response_came_is_recorded_as_sent_with_its_cause(tmp_path: Path, where: str) -> None:
    """An exception an httpx event hook or a transport of the agent's raises once the response came, which the SDK
    wraps in its APIConnectionError, is recorded as sent, with the exception it was raised from as its cause."""

    def answer(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, json={"type": "message", "role": "assistant", **_reply(3)})

    def refuse(response: httpx2.Response) -> None:
        raise ValueError("the hook refuses the response")

    class Refusing(httpx2.MockTransport):
        def handle_request(self, request: httpx2.Request) -> httpx2.Response:
            super().handle_request(request)
            raise ValueError("the hook refuses the response")

    if where == "event-hook":
        http = anthropic.DefaultHttpxClient(transport=httpx2.MockTransport(answer), event_hooks={"response": [refuse]})
    else:
        http = anthropic.DefaultHttpxClient(transport=Refusing(answer))
    path = tmp_path / "agent.jsonl"
    sdk = anthropic.Anthropic(api_key="local", max_retries=0, http_client=http)
    with agentrender.record(sdk, path) as client, pytest.raises(anthropic.APIConnectionError):
        client.messages.create(**_params([{"role": "user", "content": "Go."}]))
    (error,) = _calls(path)
    assert "sent" not in error
    assert error["error"]["type"] == "APIConnectionError"
    assert error["error"]["cause"] == "ValueError: the hook refuses the response"
    assert any(
        "(from ValueError: the hook refuses the response)" in warning.text for warning in load_run(path).warnings
    )


@pytest.mark.parametrize(
    ("kind", "stop"), [("sync", KeyboardInterrupt), ("async", KeyboardInterrupt), ("async", asyncio.CancelledError)]
)
@pytest.mark.parametrize("failed", ["status", "connection"])
def test_a_call_interrupted_as_the_sdk_waited_to_retry_keeps_the_try_that_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, stop: type[BaseException], failed: str
) -> None:
    """Ctrl-C (or a cancelled task) while the SDK waits to try a failed call again records the interruption as the
    call's error and the try that failed among the tries before it ("retried"), where the rule "every try but the
    last" left it out."""
    path = tmp_path / "agent.jsonl"
    answer: Any = _OVERLOADED if failed == "status" else httpx2.ConnectError("connection refused")

    def interrupt(*args: Any, **kwargs: Any) -> None:
        raise stop

    async def interrupt_async(*args: Any, **kwargs: Any) -> None:
        raise stop

    monkeypatch.setattr(anthropic._base_client.SyncAPIClient, "_sleep_for_retry", interrupt)
    monkeypatch.setattr(anthropic._base_client.AsyncAPIClient, "_sleep_for_retry", interrupt_async)
    params = _params([{"role": "user", "content": "Go."}])

    async def main_async() -> None:
        async with agentrender.record(_over_transport([answer], is_async=True, max_retries=2), path) as client:
            await client.messages.create(**params)

    with pytest.raises(stop):
        if kind == "async":
            asyncio.run(main_async())
        else:
            with agentrender.record(_over_transport([answer], max_retries=2), path) as client:
                client.messages.create(**params)
    (error,) = _calls(path)
    assert error["error"]["type"] == stop.__name__
    (tried,) = error["retried"]
    assert tried["error"]["type"] == ("OverloadedError" if failed == "status" else "APIConnectionError")
    (warning,) = [warning for warning in load_run(path).warnings if "no complete reply" in warning.text]
    assert stop.__name__ in warning.text and "tried 2 times" in warning.text


class _ClientBeforeMiddleware:
    """An SDK client of a version before middleware: the client's own, but with no ``with_middleware``."""

    def __init__(self, client: anthropic.Anthropic) -> None:
        self._client = client
        self.messages = client.messages

    def __getattr__(self, name: str) -> Any:
        if name == "with_middleware":
            raise AttributeError(name)
        return getattr(self._client, name)


@pytest.mark.parametrize("mode", MODES)
def test_a_call_an_sdk_without_middleware_retried_says_how_many_times(tmp_path: Path, mode: str) -> None:
    """A call retried by an SDK that has no middleware, whose tries the recorder cannot see, still says how many tries
    went before its last (the retry count the SDK sent with it), each as an empty object."""
    path = tmp_path / "agent.jsonl"
    sdk = _over_transport([_OVERLOADED, httpx2.ConnectError("connection refused"), _reply(3)], max_retries=2)
    with agentrender.record(_ClientBeforeMiddleware(sdk), path) as client:
        _run_agent(client, mode)
    (call,) = _calls(path)
    assert call["response"]["id"] == "msg_03"
    assert call["retried"] == [{}, {}]
    assert [warning for warning in load_run(path).warnings if "unknown" in warning.text] == []


class _ClientWithoutItsMiddleware(_ClientBeforeMiddleware):
    """A client that has ``with_middleware`` but does not show the middleware it holds (a stand-in, a subclass)."""

    def __getattr__(self, name: str) -> Any:
        if name == "middleware":
            raise AttributeError(name)
        return getattr(self._client, name)

    def with_middleware(self, *middleware: Any) -> Any:
        return self._client.with_middleware(*middleware)


def test_a_client_whose_middleware_cannot_be_read_is_recorded_as_one_without(tmp_path: Path) -> None:
    """A client with ``with_middleware`` whose own middleware cannot be read is recorded as a client without any
    (its tries told by the retry count it sends), where ``record`` raised as it made its copy."""
    path = tmp_path / "agent.jsonl"
    sdk = _over_transport([_OVERLOADED, _reply(3)], max_retries=2)
    with agentrender.record(_ClientWithoutItsMiddleware(sdk), path) as client:
        _run_agent(client, "create")
    (call,) = _calls(path)
    assert call["response"]["id"] == "msg_03" and call["retried"] == [{}]


def _without_retry_count(sdk: Any) -> Any:
    """An SDK client of a version before middleware that sends no retry count (no ``x-stainless-retry-count``)."""
    return _ClientBeforeMiddleware(sdk.with_options(default_headers={"x-stainless-retry-count": anthropic.Omit()}))


@pytest.mark.parametrize("mode", MODES)
def test_a_call_of_an_sdk_that_sends_no_retry_count_says_its_tries_are_not_known(tmp_path: Path, mode: str) -> None:
    """A call of an SDK without middleware that sends no retry count is recorded with "tries_known": false, its
    tries null in the frame (of the run file and of its import), where it read as tried once when the SDK had retried
    it."""
    path = tmp_path / "agent.jsonl"
    sdk = _over_transport([_OVERLOADED, _reply(3)], max_retries=2)
    with agentrender.record(_without_retry_count(sdk), path) as client:
        _run_agent(client, mode)
    (call,) = _calls(path)
    assert call["tries_known"] is False
    assert "retried" not in call
    run = load_run(path)
    assert run.model_calls[0].tries_known is False
    calls = model_calls_frame(run)
    assert calls["tries"].isna().tolist() == [True]
    assert calls["retried_ms"].isna().tolist() == [True]
    imported = imports.load(path)  # the import of the recording keeps it in the model call, as it keeps "retried"
    assert imported.warnings == ()
    assert [call.tries_known for call in imported.model_calls] == [False]
    assert model_calls_frame(imported)["tries"].isna().tolist() == [True]


def test_a_call_of_an_sdk_that_sends_its_retry_count_knows_its_tries(tmp_path: Path) -> None:
    """A call of an SDK without middleware that sends its retry count writes no "tries_known": the count is known."""
    path = tmp_path / "agent.jsonl"
    sdk = _over_transport([_OVERLOADED, _reply(3)], max_retries=2)
    with agentrender.record(_ClientBeforeMiddleware(sdk), path) as client:
        _run_agent(client, "create")
    (call,) = _calls(path)
    assert call["retried"] == [{}]
    assert "tries_known" not in call
    assert model_calls_frame(load_run(path))["tries"].tolist() == [2]


def test_a_call_interrupted_as_an_sdk_that_sends_no_retry_count_waited_was_tried_more_than_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C as an SDK without middleware that sends no retry count waits to try a call again keeps the try that
    failed, and the reader says the call was tried more than once, how many times not known."""
    path = tmp_path / "agent.jsonl"

    def interrupt(self: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(anthropic._base_client.SyncAPIClient, "_sleep_for_retry", interrupt)
    sdk = _over_transport([httpx2.ConnectError("connection refused")] * 3, max_retries=2)
    with agentrender.record(_without_retry_count(sdk), path) as client, pytest.raises(KeyboardInterrupt):
        client.messages.create(**_params([{"role": "user", "content": "Go."}]))
    (error,) = _calls(path)
    assert [tried["error"]["type"] for tried in error["retried"]] == ["APIConnectionError"]
    assert error["tries_known"] is False
    (warning,) = [warning for warning in load_run(path).warnings if "no complete reply" in warning.text]
    assert "tried more than once (how many is not known)" in warning.text
    assert "tried 2 times" not in warning.text


def test_a_call_an_sdk_without_middleware_interrupted_as_it_sent_a_later_try_does_not_know_its_tries(
    tmp_path: Path,
) -> None:
    """A call of an SDK without middleware interrupted as it sent its second try, where nothing the recorder is shown
    says an earlier one failed, is recorded with "tries_known": false and the reader says how many times it was tried
    is not known, where it read as tried once."""
    path = tmp_path / "agent.jsonl"

    def interrupt() -> Any:
        raise KeyboardInterrupt

    sdk = _ClientBeforeMiddleware(_over_transport([_OVERLOADED, interrupt], max_retries=2))
    with agentrender.record(sdk, path) as client, pytest.raises(KeyboardInterrupt):
        client.messages.create(**_params([{"role": "user", "content": "Go."}]))
    (error,) = _calls(path)
    assert error["error"]["type"] == "KeyboardInterrupt"
    assert "retried" not in error
    assert error["tries_known"] is False
    (warning,) = [warning for warning in load_run(path).warnings if "no complete reply" in warning.text]
    assert "how many times it was tried is not known" in warning.text


def test_a_call_refused_before_it_was_sent_knows_it_made_no_try(tmp_path: Path) -> None:
    """A call an SDK without middleware refused before sending it (its own TypeError) writes no "tries_known": no try
    was made, and that is known."""
    path = tmp_path / "agent.jsonl"
    sdk = _ClientBeforeMiddleware(_over_transport([], max_retries=2))
    with agentrender.record(sdk, path) as client, pytest.raises(TypeError):
        client.messages.create(**_params([{"role": "user", "content": "Go."}]), not_a_parameter=1)
    (error,) = _calls(path)
    assert error["sent"] is False
    assert "tries_known" not in error


class _Overloaded(Exception):
    """An agent's own exception for an overloaded API, which its middleware raises in place of the SDK's."""


class _OverloadedRetryable(anthropic.RetryableError):
    """An agent's own exception for an overloaded API that asks the SDK to try again."""


@pytest.mark.parametrize(
    ("how", "then"),
    [("response", "ends"), ("connection", "ends"), ("response", "retried"), ("refuses-next", "retried")],
)
def test_a_try_a_middleware_of_the_agents_turned_into_its_own_exception_is_retried_only_when_tried_again(
    tmp_path: Path, how: str, then: str
) -> None:
    """A try an agent's middleware turns into its own exception (an overloaded API, a dropped connection) is listed in
    "retried" when the SDK tried the call again, and is the call's last try, not one retried, when it ended the call."""
    path = tmp_path / "agent.jsonl"
    seen: list[int] = []

    def overloaded(request: Any, call_next: Callable[[Any], Any]) -> Any:
        seen.append(len(seen))
        if how == "refuses-next" and len(seen) == 2:
            raise _Overloaded("the middleware refuses to try again")
        try:
            response = call_next(request)
        except anthropic.APIConnectionError:
            raise _Overloaded("the connection dropped") from None
        if response.http_response.status_code == 529:
            raise (_OverloadedRetryable if then == "retried" else _Overloaded)("the API is overloaded")
        return response

    first: Any = httpx2.ConnectError("connection refused") if how == "connection" else _OVERLOADED
    answers = [first, _reply(3)]
    sdk = _over_transport(answers, max_retries=2).with_middleware(overloaded)
    params = _params([{"role": "user", "content": "Go."}])
    with agentrender.record(sdk, path) as client:
        if how == "response" and then == "retried":
            client.messages.create(**params)
        else:
            with pytest.raises(_Overloaded):
                client.messages.create(**params)
    (call,) = _calls(path)
    tried = [failed.get("error", {}).get("type") for failed in call.get("retried", [])]
    if then == "ends":
        assert call["type"] == "model_call_error"
        assert call["error"]["type"] == "_Overloaded"
        assert tried == []
        (warning,) = [warning for warning in load_run(path).warnings if "no complete reply" in warning.text]
        assert "tried" not in warning.text
    elif how == "response":
        assert call["type"] == "model_call"
        assert tried == ["OverloadedError"]
        assert model_calls_frame(load_run(path))["tries"].tolist() == [2]
    else:
        assert call["type"] == "model_call_error"
        assert call["error"]["type"] == "_Overloaded"
        assert tried == ["OverloadedError"]


@pytest.mark.parametrize(("kind", "stop"), [("sync", KeyboardInterrupt), ("async", asyncio.CancelledError)])
@pytest.mark.parametrize("failed", ["status", "connection"])
@pytest.mark.parametrize("before", [0, 1])
def test_a_call_an_sdk_without_middleware_retried_keeps_the_try_that_failed_when_interrupted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, stop: type[BaseException], failed: str, before: int
) -> None:
    """Ctrl-C (or a cancelled task) as an SDK without middleware waits to try a call again records, among the tries
    before the interruption, each try that failed (as many as the retry count the SDK sent with the last), the last
    with the error it gave."""
    path = tmp_path / "agent.jsonl"
    answer: Any = _OVERLOADED if failed == "status" else httpx2.ConnectError("connection refused")
    waits: list[int] = []

    def interrupt(self: Any, *, response: Any, **kwargs: Any) -> None:
        waits.append(1)
        if len(waits) <= before:
            return
        if response is not None:  # an SDK before middleware waits as it handles the status error of httpx
            try:
                response.raise_for_status()
            except httpx2.HTTPStatusError:
                raise stop from None
        raise stop

    async def interrupt_async(self: Any, **kwargs: Any) -> None:
        interrupt(self, **kwargs)

    monkeypatch.setattr(anthropic._base_client.SyncAPIClient, "_sleep_for_retry", interrupt)
    monkeypatch.setattr(anthropic._base_client.AsyncAPIClient, "_sleep_for_retry", interrupt_async)
    params = _params([{"role": "user", "content": "Go."}])
    sdk = _over_transport([answer] * (before + 1), is_async=kind == "async", max_retries=2)

    async def call_async() -> None:
        async with agentrender.record(_ClientBeforeMiddleware(sdk), path) as client:
            try:
                raise _AgentError("an earlier failure the agent is handling as it calls")
            except _AgentError:
                await client.messages.create(**params)

    with pytest.raises(stop):
        if kind == "async":
            asyncio.run(call_async())
        else:
            with agentrender.record(_ClientBeforeMiddleware(sdk), path) as client:
                try:
                    raise _AgentError("an earlier failure the agent is handling as it calls")
                except _AgentError:
                    client.messages.create(**params)
    (error,) = _calls(path)
    assert error["error"]["type"] == stop.__name__
    *unseen, last = error["retried"]
    assert unseen == [{}] * before
    if failed == "status":
        assert last["error"]["status"] == 529
        assert last["error"]["body"]["error"]["type"] == "overloaded_error"
    else:
        assert last["error"]["type"] == "APIConnectionError"
    (warning,) = [warning for warning in load_run(path).warnings if "no complete reply" in warning.text]
    assert f"tried {before + 2} times" in warning.text


def test_a_call_interrupted_on_its_first_try_as_the_agent_handles_an_api_error_was_not_retried(tmp_path: Path) -> None:
    """A call of an SDK without middleware interrupted as it is first sent, made as the agent handles an earlier call's
    API error, records no try before its last: the agent's error is not one of the call's tries."""
    path = tmp_path / "agent.jsonl"

    def interrupt() -> Any:
        raise KeyboardInterrupt

    earlier = anthropic.APIConnectionError(request=httpx2.Request("POST", "https://api.anthropic.com/v1/messages"))
    sdk = _ClientBeforeMiddleware(_over_transport([interrupt], max_retries=2))
    with agentrender.record(sdk, path) as client, pytest.raises(KeyboardInterrupt):
        try:
            raise earlier
        except anthropic.APIConnectionError:
            client.messages.create(**_params([{"role": "user", "content": "Go."}]))
    (error,) = _calls(path)
    assert error["error"]["type"] == "KeyboardInterrupt"
    assert "retried" not in error


def test_a_dropped_stream_collected_where_no_line_of_the_agents_runs_is_named_at_the_line_that_opened_it(
    tmp_path: Path,
) -> None:
    """A stream the agent drops unread once the recording is closed, which the garbage collector finalises where none
    of the agent's lines runs (another thread), is named in a RuntimeWarning at the agent's line that opened it."""
    path = tmp_path / "agent.jsonl"
    params = _params([{"role": "user", "content": "Go."}])
    with MessagesServer.scripted([_reply(0)]) as server, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        client = agentrender.record(_client(server), path)
        here = inspect.currentframe()
        assert here is not None
        opened = here.f_lineno + 1
        events = client.messages.create(**params, stream=True)
        loop = iter(events)
        next(loop)
        cycle: list[Any] = [loop, events]
        cycle.append(cycle)  # freed by the garbage collector alone, in the thread that runs it
        client.close()
        del loop, events, cycle
        collector = threading.Thread(target=gc.collect)
        collector.start()
        collector.join()
    (lost,) = [warning for warning in caught if issubclass(warning.category, RuntimeWarning)]
    assert "ended after the recording was closed" in str(lost.message)
    assert (lost.filename, lost.lineno) == (__file__, opened)


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_stream_the_agent_drops_unread_is_recorded_as_left(tmp_path: Path, kind: str) -> None:
    """A create(stream=True) call whose stream the agent drops without reading it, sent and answered all the same,
    is recorded as left when Python lets go of it, in order with the calls around it, where it was not recorded; a
    stream read to its end in a loop that holds its iterator alone is its reply."""
    path = tmp_path / "agent.jsonl"
    params = _params([{"role": "user", "content": "Go."}])
    answers = [_reply(0), _reply(1), _reply(2)]

    async def main_async() -> None:
        async with agentrender.record(_over_transport(answers, is_async=True), path) as client:
            async for _ in await client.messages.create(**params, stream=True):
                pass
            events = await client.messages.create(**params, stream=True)
            del events
            await client.messages.create(**params)

    if kind == "async":
        asyncio.run(main_async())
    else:
        with agentrender.record(_over_transport(answers), path) as client:
            for _ in client.messages.create(**params, stream=True):
                pass
            events = client.messages.create(**params, stream=True)
            del events
            client.messages.create(**params)
    read, dropped, answered = _calls(path)
    assert read["response"]["id"] == "msg_00"
    assert dropped["type"] == "model_call_error"
    assert dropped["error"]["type"] == "left"
    assert dropped["request"]["stream"] is True
    assert answered["response"]["id"] == "msg_02"


def test_a_stream_the_garbage_collector_finalises_as_the_recorder_writes_is_recorded_without_a_hang(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stream the agent dropped, which Python finalises as the recorder writes another call (the garbage collector
    runs where the writer allocates), is recorded before that call, and the agent goes on, where it hung."""
    path = tmp_path / "agent.jsonl"
    params = _params([{"role": "user", "content": "Go."}])
    write = agentrender.RunWriter.write
    held: list[Any] = []

    def finalising(self: Any, record: Mapping[str, Any]) -> None:
        held.clear()  # the stream's last reference goes here, as the collector would free it
        write(self, record)

    def agent() -> None:
        with agentrender.record(_over_transport([_reply(0), _reply(1)]), path) as client:
            held.append(client.messages.create(**params, stream=True))
            monkeypatch.setattr(agentrender.RunWriter, "write", finalising)
            client.messages.create(**params)

    running = threading.Thread(target=agent, daemon=True)
    running.start()
    running.join(timeout=10)
    assert not running.is_alive()
    dropped, answered = _calls(path)
    assert dropped["error"]["type"] == "left"
    assert answered["response"]["id"] == "msg_01"


def test_record_into_a_folder_that_does_not_exist_says_so_and_makes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """record(client, "runs/x.jsonl") with no runs/ folder raises a FileNotFoundError that names the folder and the
    file, in the CLI's words (no folder FOLDER to write it in), and makes no folder; RunWriter, which opens the file,
    says the same. Before, it was open()'s bare "No such file or directory: 'runs/x.jsonl'"."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError) as raised:
        agentrender.record(anthropic.Anthropic(api_key="test"), "runs/x.jsonl")
    said = "[Errno 2] no folder runs to write it in (the file is made, not the folders it is in): 'runs/x.jsonl'"
    assert str(raised.value) == said
    assert raised.value.filename == "runs/x.jsonl" and list(tmp_path.iterdir()) == []
    with pytest.raises(FileNotFoundError, match=r"^\[Errno 2\] no folder runs to write it in .*: 'runs/x\.jsonl'$"):
        agentrender.RunWriter("runs/x.jsonl")


_REFUSED_AND_KEPT = """
import sys
import anthropic
import agentrender
try:
    agentrender.record(anthropic.Anthropic(api_key="test"), sys.argv[1])
except FileNotFoundError as error:
    kept = error  # its traceback keeps the refused recorder alive to the end, as a notebook's last error does
"""


def test_a_refused_recording_leaves_nothing_to_close_at_exit(tmp_path: Path) -> None:
    """A recording refused as it is made (no folder to write it in), its error kept to the end of the process as an
    interactive session or a notebook keeps the last one, leaves the process to exit with nothing on stderr: the
    close at exit is registered once the file is open. Before, the exit closed a recorder that had no file
    ("Exception ignored in atexit callback ... no attribute 'writer'")."""
    done = subprocess.run(
        [sys.executable, "-c", _REFUSED_AND_KEPT, str(tmp_path / "no-folder" / "x.jsonl")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert list(tmp_path.iterdir()) == []
