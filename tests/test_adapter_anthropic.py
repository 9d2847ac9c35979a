"""The Anthropic adapter: params the SDK's own types accept, the API's rules, replies, and the model client."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import anthropic
import pytest
from anthropic.types import Message as SDKMessage
from hypothesis import given, settings
from hypothesis import strategies as st

from agentrender import ContentBlock, Decision, Message, ModelResponse, Observation, Step, StepInput, render
from agentrender.adapters.anthropic import (
    RAW_ASSISTANT_BLOCK,
    TOOL_CHOICE,
    AnthropicModel,
    ModelCallError,
    Request,
    check_params,
    raw_assistant_block,
    replay_options,
    response_from_sdk,
    to_params,
)
from agentrender.testing import Failure, MessagesServer, body_key
from tests._support.examples import examples
from tests._support.sdk import request_accepts

TOOLS = (
    {
        "name": "read_file",
        "description": "Read a file.",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        "read_only": True,
    },
)


def call(index: int, tool: str = "read_file", **observation: Any) -> Step:
    """A step that called ``tool``, with an observation built from ``observation``."""
    return Step(
        index=index,
        decision=Decision(kind="tool_call", tool=tool, args={"path": f"f{index}.py"}, reason=f"Reason {index}."),
        observation=Observation(**observation) if observation else Observation(content="c", summary="s"),
    )


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
THINKING = {"type": "thinking", "thinking": "Let me look.", "signature": "c2lnbmVk"}
TOOL_USE = {"type": "tool_use", "id": "toolu_01", "name": "read_file", "input": {"path": "a.py"}}


# --- to_params ----------------------------------------------------------------------------


def test_to_params_gives_the_core_wire_forms_for_a_default_render() -> None:
    """Without raw blocks, to_params is exactly Message.to_dict of each rendered message."""
    steps = [call(0), call(1, status="error", content="boom"), Step(index=2)]
    rendered = render.messages(StepInput(steps=steps), render.Options(opening="Fix it."))
    assert to_params(rendered) == [message.to_dict() for message in rendered]


def test_a_raw_block_is_replaced_by_its_blocks_verbatim_and_in_order() -> None:
    """A raw assistant block expands to the provider's blocks in order, the signed thinking block as written."""
    blocks = [THINKING, {"type": "text", "text": "Reading."}, TOOL_USE]
    raw = ContentBlock(type=RAW_ASSISTANT_BLOCK, text=json.dumps(blocks))
    messages = [
        Message(role="user", content=(ContentBlock(type="text", text="Go."),)),
        Message(role="assistant", content=(raw,)),
    ]
    assert to_params(messages)[1] == {"role": "assistant", "content": blocks}


def test_empty_text_in_replayed_content_is_dropped() -> None:
    """Blank text blocks inside a raw block are dropped; the other blocks keep their order."""
    blocks = [{"type": "text", "text": ""}, THINKING, {"type": "text", "text": "  \n"}, TOOL_USE]
    raw = ContentBlock(type=RAW_ASSISTANT_BLOCK, text=json.dumps(blocks))
    assert to_params([Message(role="assistant", content=(raw,))])[0]["content"] == [THINKING, TOOL_USE]


@pytest.mark.parametrize(
    ("role", "text", "expected"),
    [
        ("user", json.dumps([TOOL_USE]), "message 0 (user), block 0: a raw assistant block in a user turn"),
        ("assistant", "{not json", "message 0 (assistant), block 0: a raw assistant block's text is not JSON"),
        ("assistant", json.dumps({"type": "text"}), "holds dict, not a list of blocks"),
        ("assistant", json.dumps(["text"]), "raw content block 0 is not an object with a type"),
        ("assistant", json.dumps([{"type": "text", "text": ""}]), "message 0 (assistant): no content left to send"),
    ],
)
def test_a_bad_raw_block_is_an_error_naming_the_message_and_block(role: str, text: str, expected: str) -> None:
    """A raw block that cannot be sent raises ValueError saying which message and block, and why."""
    with pytest.raises(ValueError) as caught:
        to_params([Message(role=role, content=(ContentBlock(type=RAW_ASSISTANT_BLOCK, text=text),))])
    assert expected in str(caught.value)


# --- requests -----------------------------------------------------------------------------


def test_request_params_switch_parallel_tool_use_off_and_send_only_api_tool_fields() -> None:
    """params() sends system, API tool fields (not read_only) and tool_choice auto with parallel use off."""
    rendered = render.messages(StepInput(steps=[call(0)]), render.Options(opening="Fix it."))
    params = Request(messages=rendered, system="Be brief.", tools=TOOLS, model="m", max_tokens=100).params()
    assert params["tool_choice"] == {"type": "auto", "disable_parallel_tool_use": True} == dict(TOOL_CHOICE)
    assert params["tools"] == [{key: TOOLS[0][key] for key in ("name", "description", "input_schema")}]
    assert (params["model"], params["max_tokens"], params["system"]) == ("m", 100, "Be brief.")
    request_accepts(params)


def test_a_request_without_tools_or_system_sends_neither_nor_tool_choice() -> None:
    """An empty system and no tools leave system, tools and tool_choice out (the API refuses a lone tool_choice)."""
    params = Request(messages=render.messages(StepInput(), render.Options(opening="Hi.")), model="m").params()
    assert set(params) == {"model", "max_tokens", "messages"}


def test_a_tool_without_a_schema_is_an_error_naming_the_step_and_tool() -> None:
    """A tool definition with no input_schema raises ValueError naming the step and the tool."""
    request = Request(
        messages=render.messages(StepInput(), render.Options(opening="Hi.")), tools=[{"name": "x"}], step=4
    )
    with pytest.raises(ValueError, match=r"step 4: tools\[0\] \(x\): a tool needs an input_schema object"):
        request.params()


def test_the_replay_key_is_render_replay_key_over_the_same_content() -> None:
    """For a default render, Request.replay_key equals render.replay_key over the rendered messages and sent tools."""
    rendered = render.messages(StepInput(steps=[call(0), call(1)]), render.Options(opening="Fix it."))
    sent_tools = [{key: TOOLS[0][key] for key in ("name", "description", "input_schema")}]
    request = Request(messages=rendered, system="S", tools=TOOLS, model="m", max_tokens=7, step=2)
    expected = render.replay_key(rendered, system="S", tools=sent_tools, model="m", max_output_tokens=7)
    assert request.replay_key == expected == body_key(request.params())


def test_the_replay_key_changes_with_any_rendered_byte() -> None:
    """Changing one byte of one result, the system, the cap or the model changes the key; the step does not."""
    base = Request(messages=render.messages(StepInput(steps=[call(0)]), render.Options(opening="Fix it.")), model="m")
    changed = render.messages(StepInput(steps=[call(0, content="d", summary="s")]), render.Options(opening="Fix it."))
    keys = {
        base.replay_key,
        Request(messages=changed, model="m").replay_key,
        Request(messages=base.messages, model="m", system="x").replay_key,
        Request(messages=base.messages, model="m", max_tokens=1).replay_key,
        Request(messages=base.messages, model="n").replay_key,
    }
    assert len(keys) == 5
    assert Request(messages=base.messages, model="m", step=9).replay_key == base.replay_key


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


def test_raw_assistant_block_keeps_only_what_can_be_sent_back() -> None:
    """The raw block holds the reply's blocks less empty text and every tool use after the first."""
    second = {"type": "tool_use", "id": "toolu_02", "name": "write_file", "input": {}}
    response = ModelResponse.from_dict(
        {"content": [THINKING, {"type": "text", "text": ""}, TOOL_USE, second], "stop_reason": "tool_use"}
    )
    block = raw_assistant_block(response)
    assert block is not None and block.type == RAW_ASSISTANT_BLOCK
    assert json.loads(block.text) == [THINKING, TOOL_USE]


def test_raw_assistant_block_is_none_when_nothing_can_be_replayed() -> None:
    """A cut reply holding only a tool use leaves nothing to replay, so the hook falls back."""
    assert raw_assistant_block(ModelResponse.from_dict({"content": [TOOL_USE], "stop_reason": "max_tokens"})) is None


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


# --- the API's rules ----------------------------------------------------------------------


def _user(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "user", "content": list(blocks)}


def _assistant(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": list(blocks)}


TEXT = {"type": "text", "text": "x"}
RESULT = {"type": "tool_result", "tool_use_id": "toolu_01", "content": "ok"}


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        ([], "at least one message"),
        ([_assistant(TEXT)], r"messages\[0\] \(assistant\): expected a user turn"),
        ([_user(TEXT), _user(TEXT)], r"messages\[1\] \(user\): expected an assistant turn"),
        ([_user()], r"messages\[0\] \(user\): content must be a non-empty list"),
        ([_user({"type": "text", "text": " "})], r"messages\[0\]\.content\[0\]: text blocks must contain"),
        ([_user(TEXT), _assistant(TOOL_USE), _user(TEXT, RESULT)], r"messages\[2\].*must be answered first"),
        ([_user(TEXT), _assistant(TOOL_USE), _user(TEXT)], r"messages\[2\].*must be answered first"),
        ([_user(TEXT), _assistant(TEXT), _user(RESULT)], r"messages\[2\].*tool_result for \['toolu_01'\]"),
        ([_user(TEXT), _assistant(TOOL_USE)], r"messages\[1\].*never answered"),
        (
            [_user(TEXT), _assistant(TOOL_USE), _user(RESULT), _assistant(TOOL_USE), _user(RESULT)],
            r"messages\[3\]\.content\[0\]: tool_use id 'toolu_01' was used before",
        ),
        ([_user(TEXT), _assistant({**TOOL_USE, "input": [1]}), _user(RESULT)], "input must be an object"),
    ],
)
def test_check_params_names_the_rule_and_the_message(messages: list[dict[str, Any]], expected: str) -> None:
    """Each API rule broken raises ValueError naming the message (and block) that breaks it."""
    with pytest.raises(ValueError, match=expected):
        check_params(messages)


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


@pytest.mark.slow
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


def test_a_request_the_server_rejects_shows_the_reason(server: MessagesServer) -> None:
    """A request breaking an API rule is refused by the local server with the rule in the error."""
    bad = Request(messages=[Message(role="assistant", content=(ContentBlock(type="text", text="x"),))], model="m")
    with pytest.raises(ModelCallError, match=r"messages\[0\] \(assistant\): expected a user turn"):
        _model(server).generate(bad)
    assert server.rejections[0].reason.startswith("messages[0] (assistant)")


def test_a_views_replay_key_is_the_requests_when_the_run_records_more_of_a_tool() -> None:
    """A header tool with fields a request does not carry (read_only, a runtime's timeout) hashes as sent in both."""
    from agentrender.runfile import Run
    from agentrender.views import Views

    tools = [{**TOOLS[0], "read_only": True, "timeout_s": 30}]
    run = Run(
        header={
            "type": "run",
            "opening": "Fix it.",
            "system": "S",
            "model": "m",
            "max_output_tokens": 7,
            "tools": tools,
        },
        steps=(call(0), call(1)),
    )
    view = Views(run).at(2)
    request = Request(messages=view.messages, system="S", tools=tools, model="m", max_tokens=7, step=2)
    assert view.replay_key == request.replay_key
