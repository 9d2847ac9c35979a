"""The Anthropic adapter with the real SDK in the loop: its types accept what the adapter sends, its ``Message``
feeds ``response_from_sdk``, and its client talks to the local Messages API stand-in.

Integration tests (the SDK and pydantic take a second to import): the full suite runs them, the everyday loop
does not.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import warnings
from collections.abc import Iterator
from typing import Any

import anthropic
import pytest
from anthropic.types import Message as SDKMessage
from hypothesis import given, settings
from hypothesis import strategies as st

import agentrender
from agentrender import ContentBlock, Decision, Message, ModelResponse, Observation, Step, StepInput, render
from agentrender.adapters.anthropic import (
    AnthropicModel,
    ModelCallError,
    Request,
    replay_options,
    response_from_sdk,
    to_params,
)
from agentrender.testing import Failure, MessagesServer
from tests._support.adapter import API_TOOLS, THINKING, TOOL_USE, TOOLS, call
from tests._support.examples import examples
from tests._support.sdk import request_accepts

pytestmark = pytest.mark.slow


def sdk_message(content: list[dict[str, Any]], stop_reason: str) -> SDKMessage:
    """An SDK ``Message`` built the way the SDK builds one from a response body."""
    body = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }
    return SDKMessage.model_validate(body)


CITATION = {
    "type": "char_location",
    "cited_text": "x",
    "document_index": 0,
    "document_title": None,
    "start_char_index": 0,
    "end_char_index": 1,
}

# --- replies ------------------------------------------------------------------------------


def test_response_from_sdk_keeps_every_block_as_the_server_sent_it() -> None:
    """The SDK Message's content survives into the ModelResponse: signed thinking, text, tool use, unknown fields."""
    text = {"type": "text", "text": "See.", "citations": [CITATION]}
    response = response_from_sdk(sdk_message([THINKING, text, TOOL_USE], "tool_use"))
    assert [block.to_dict() for block in response.content] == [THINKING, text, TOOL_USE]
    assert (response.stop_reason, response.model, response.id) == ("tool_use", "claude-test", "msg_1")
    assert render.decide(response) == Decision(kind="tool_call", tool="read_file", args={"path": "a.py"}, reason="See.")


@pytest.mark.parametrize("stop_reason", ["max_tokens", "model_context_window_exceeded", "refusal"])
def test_a_cut_or_refused_reply_loses_its_tool_uses(stop_reason: str) -> None:
    """The tool uses of a reply cut by max_tokens or the context window, or refused, are dropped."""
    response = response_from_sdk(sdk_message([THINKING, {"type": "text", "text": "Hm"}, TOOL_USE], stop_reason))
    assert [block.type for block in response.content] == ["thinking", "text"]
    assert not render.decide(response).calls


def test_replay_options_render_recorded_turns_the_api_accepts() -> None:
    """Casework-style options replay each step's reply and answer its tool use by the reply's own id."""
    replies = {
        0: ModelResponse.from_dict({"content": [THINKING, TOOL_USE], "stop_reason": "tool_use", "model": "c"}),
        1: ModelResponse.from_dict({"content": [{"type": "text", "text": "Stuck"}], "stop_reason": "max_tokens"}),
    }
    steps = [
        call(0),
        Step(
            index=1,
            decision=Decision(kind="truncated", reason="Stuck"),
            observation=Observation(status="invalid_decision"),
        ),
        call(2),
    ]
    options = replay_options(replies, opening="Fix it.", model="c")
    params = to_params(render.messages(StepInput(steps=steps), options))
    request_accepts({"messages": params})
    assert params[1]["content"] == [THINKING, TOOL_USE]
    assert params[2]["content"][0]["tool_use_id"] == "toolu_01"
    assert params[3]["content"] == [{"type": "text", "text": "Stuck"}]
    assert params[5]["content"][1]["id"] == "step_2"
    other_model = to_params(render.messages(StepInput(steps=steps), replay_options(replies, opening="Go.", model="x")))
    assert other_model[1]["content"][-1]["id"] == "step_0"


# --- property: any render converts to params the SDK and the API accept --------------------

_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
_decisions = st.one_of(
    st.none(),
    st.builds(
        Decision,
        kind=st.just("tool_call"),
        tool=st.sampled_from(["read_file", ""]),
        reason=_text,
        args=st.one_of(st.none(), st.dictionaries(_text, _text, max_size=2)),
    ),
    st.builds(Decision, kind=st.sampled_from(["truncated", "no_tool_call", "complete", "weird"]), reason=_text),
    st.builds(
        Decision,
        kind=st.just("tool_call"),
        tool=st.just("t"),
        invalid_args=_text.filter(bool),
        invalid_base64=st.booleans(),
    ),
)
_observations = st.one_of(
    st.none(),
    st.builds(
        Observation,
        status=st.sampled_from(["ok", "error", "invalid_decision", "interrupted"]),
        content=_text,
        summary=_text,
    ),
)


@st.composite
def _step_inputs(draw: st.DrawFn) -> StepInput:
    decisions = draw(st.lists(st.tuples(_decisions, _observations), max_size=12))
    return StepInput(steps=[Step(index=i, decision=d, observation=o) for i, (d, o) in enumerate(decisions)])


@settings(max_examples=examples(60), deadline=None)
@given(_step_inputs(), st.integers(0, 8), st.integers(0, 40))
def test_every_render_converts_to_params_the_sdk_and_the_api_accept(
    step_input: StepInput, recent: int, result_bytes: int
) -> None:
    """Whatever the steps and window, to_params gives MessageParams the SDK accepts that obey the API's rules."""
    options = render.Options(opening="Fix the test.", recent_results=recent, result_bytes=result_bytes)
    params = Request(messages=render.messages(step_input, options), tools=TOOLS, model="m").params()
    request_accepts(params)


# --- the model client ---------------------------------------------------------------------


def test_a_missing_sdk_raises_import_error_with_the_install_line() -> None:
    """Without the anthropic package, AnthropicModel raises ImportError giving the exact pip line."""
    code = (
        "import sys; sys.modules['anthropic'] = None\n"
        "from agentrender.adapters.anthropic import AnthropicModel, to_params\n"
        "try:\n    AnthropicModel()\nexcept ImportError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=".")
    assert out.stdout.strip() == (
        "agentrender.adapters.anthropic needs anthropic, which is not installed: pip install 'agentrender[anthropic]'"
    )


@pytest.fixture
def server() -> Iterator[MessagesServer]:
    """A local Messages API answering one recorded reply to a one-step request."""
    with MessagesServer([(_one_step_request().replay_key, sdk_message([TOOL_USE], "tool_use").to_dict())]) as s:
        yield s


def _one_step_request() -> Request:
    rendered = render.messages(StepInput(steps=[call(0)]), render.Options(opening="Fix it."))
    return Request(messages=rendered, tools=TOOLS, model="claude-test", step=1)


def _model(server: MessagesServer, timeout: float = 5.0) -> AnthropicModel:
    client = anthropic.Anthropic(base_url=server.base_url, api_key="local", max_retries=0, timeout=timeout)
    return AnthropicModel(client, model="claude-test")


def test_generate_sends_the_request_through_the_sdk_and_reads_the_reply(server: MessagesServer) -> None:
    """AnthropicModel.generate goes through the real SDK; the server sees the same replay key and no rule broken."""
    response = _model(server).generate(_one_step_request())
    assert [block.to_dict() for block in response.content] == [TOOL_USE]
    assert [received.key for received in server.received] == [_one_step_request().replay_key]
    assert server.rejections == []


@pytest.mark.parametrize(
    ("failure", "expected"),
    [
        (
            Failure(status=400, error_type="invalid_request_error", message="messages.1: bad block"),
            r"^step 1: the Anthropic API answered 400 invalid_request_error: messages.1: bad block"
            r" \(request id req_local_\d+\)$",
        ),
        (
            Failure(status=429, error_type="rate_limit_error", message="slow down"),
            r"^step 1: .* 429 rate_limit_error: slow down",
        ),
        (
            Failure(status=529, error_type="overloaded_error", message="Overloaded"),
            r"^step 1: .* 529 overloaded_error: Overloaded",
        ),
    ],
)
def test_an_api_error_names_the_step_and_what_the_api_said(
    server: MessagesServer, failure: Failure, expected: str
) -> None:
    """A 400 with a body, a 429 and a 529 surface as ModelCallError naming the step, the status and the message."""
    server.fail_next(failure)
    with pytest.raises(ModelCallError, match=expected) as caught:
        _model(server).generate(_one_step_request())
    assert (caught.value.step, caught.value.status) == (1, failure.status)


def test_a_timeout_names_the_step(server: MessagesServer) -> None:
    """A reply slower than the client's timeout surfaces as ModelCallError naming the step."""
    server.fail_next(Failure(status=200, delay=2.0))
    with pytest.raises(ModelCallError, match=r"^step 1: the Anthropic API did not answer in time") as caught:
        _model(server, timeout=0.2).generate(_one_step_request())
    assert caught.value.status is None


def test_every_tool_the_api_takes_is_sent_through_the_sdk_as_the_run_holds_it() -> None:
    """Tools the API takes (a custom tool's own fields, tools the API defines, a toolset with no name) make a request
    the SDK's types take, which reaches the stand-in with each tool as the run holds it, under the request's key."""
    rendered = render.messages(StepInput(steps=[call(0)]), render.Options(opening="Fix it."))
    tools = [{**tool, "read_only": True} for tool in API_TOOLS]
    request = Request(messages=rendered, tools=tools, model="claude-test", step=1)
    request_accepts(request.params())
    with MessagesServer([(request.replay_key, sdk_message([TOOL_USE], "tool_use").to_dict())]) as server:
        _model(server).generate(request)
    assert server.rejections == []
    assert server.received[0].body["tools"] == list(API_TOOLS)


def test_a_request_the_server_rejects_shows_the_reason(server: MessagesServer) -> None:
    """A request breaking an API rule is refused by the local server with the rule in the error."""
    bad = Request(messages=[Message(role="assistant", content=(ContentBlock(type="text", text="x"),))], model="m")
    with pytest.raises(ModelCallError, match=r"messages\[0\] \(assistant\): expected a user turn"):
        _model(server).generate(bad)
    assert server.rejections[0].reason.startswith("messages[0] (assistant)")


@pytest.mark.parametrize("recorded", [False, True])
def test_an_async_client_is_refused_with_what_to_give_and_nothing_is_sent(
    server: MessagesServer, tmp_path: Any, recorded: bool
) -> None:
    """AnthropicModel given an AsyncAnthropic (or agentrender.record of one) raises a TypeError naming the step, the
    client and the sync one to give, sends nothing and leaves no coroutine never awaited. Before, it was
    "AttributeError: 'coroutine' object has no attribute 'json'" and a RuntimeWarning of a coroutine never awaited."""
    client: Any = anthropic.AsyncAnthropic(base_url=server.base_url, api_key="local", max_retries=0)
    if recorded:
        client = agentrender.record(client, tmp_path / "async.jsonl")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(TypeError, match=r"^step 1: AnthropicModel sends through a sync client .* give it "):
                AnthropicModel(client, model="claude-test").send(_one_step_request())
    finally:
        asyncio.run(client.close())
    assert server.received == []
