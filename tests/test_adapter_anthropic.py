"""The Anthropic adapter without the SDK: the wire forms it sends, the API's rules, raw blocks and replay keys.

What needs the SDK itself (its types, its Message, its client against the local stand-in) is in
test_adapter_anthropic_sdk.py, with the integration tests.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from agentrender import ContentBlock, Message, ModelResponse, Step, StepInput, render
from agentrender.adapters.anthropic import (
    RAW_ASSISTANT_BLOCK,
    TOOL_CHOICE,
    Request,
    check_params,
    raw_assistant_block,
    to_params,
)
from agentrender.testing import body_key
from tests._support.adapter import API_TOOLS, THINKING, TOOL_USE, TOOLS, call

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
        ("assistant", json.dumps({"type": "text"}), "holds a JSON object, not a list of blocks"),
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
    check_params(params["messages"])


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


def test_a_request_sends_each_tool_the_api_takes_as_written() -> None:
    """A custom tool's fields of the API (type, strict, input_examples, ...) and the tools the API defines (no input
    schema; a toolset with no name) are sent as the run holds them, in their order, only read_only left out."""
    request = Request(
        messages=render.messages(StepInput(), render.Options(opening="Hi.")),
        tools=[{**tool, "read_only": True} for tool in API_TOOLS],
        model="m",
    )
    assert request.params()["tools"] == list(API_TOOLS)
    assert [list(tool) for tool in request.params()["tools"]] == [list(tool) for tool in API_TOOLS]


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
