"""The data types (CONTRACT §2): properties, wire forms, and reading Anthropic JSON."""

import gc
import json
import pickle
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentrender import ContentBlock, Decision, Message, ModelResponse, Observation, Step, StepInput, render
from agentrender._types import check_response
from tests._support.examples import examples


def test_decision_calls() -> None:
    """Decision.calls is true only for a tool_call naming a tool."""
    assert Decision(kind="tool_call", tool="t").calls
    assert not Decision(kind="tool_call").calls
    assert not Decision(kind="complete", tool="t").calls
    assert not Decision(kind="no_tool_call").calls


@pytest.mark.parametrize(
    ("status", "failed", "interrupted"),
    [("ok", False, False), ("error", True, False), ("invalid_decision", True, False), ("interrupted", False, True)],
)
def test_observation_properties(status: str, failed: bool, interrupted: bool) -> None:
    """Observation.failed covers error and invalid_decision; interrupted only interrupted."""
    observation = Observation(status=status)
    assert (observation.failed, observation.interrupted) == (failed, interrupted)


VALUES = (Decision, Observation, Step, StepInput, ContentBlock, Message, ModelResponse, render.Decided)


@pytest.mark.parametrize("cls", VALUES, ids=lambda cls: cls.__name__)
def test_values_are_frozen_keyword_only_structs(cls: type[msgspec.Struct]) -> None:
    """Every value is a msgspec Struct that is frozen (assigning a field raises) and takes keywords only."""
    value = msgspec.convert(EXAMPLES[cls], cls)
    assert isinstance(value, msgspec.Struct)
    assert cls.__struct_config__.frozen
    field = msgspec.structs.fields(cls)[0].name
    with pytest.raises(AttributeError, match="immutable"):
        setattr(value, field, getattr(value, field))
    with pytest.raises(TypeError):
        cls(*EXAMPLES[cls].values())


@pytest.mark.parametrize("cls", VALUES, ids=lambda cls: cls.__name__)
def test_values_are_not_tracked_by_the_cyclic_collector(cls: type[msgspec.Struct]) -> None:
    """A value holds no cycle, so the collector never walks one: not tracked, even when it holds containers."""
    value = msgspec.convert(EXAMPLES[cls], cls)
    assert not gc.is_tracked(value)


def test_values_pickle_hash_and_compare_by_their_fields() -> None:
    """A value pickles to an equal one; equal values hash alike; a value of another type is never equal."""
    step = Step(index=3, decision=Decision(kind="tool_call", tool="ls"), observation=Observation(content="a"))
    copy = pickle.loads(pickle.dumps(step))
    assert copy == step and hash(copy) == hash(step) and copy is not step
    assert msgspec.structs.replace(step, index=4) != step
    assert {step, copy} == {step}
    assert Observation() != Decision(kind="ok")
    with pytest.raises(TypeError):
        hash(Decision(kind="tool_call", args={"a": 1}))  # a dict in a field is unhashable, as in a tuple


EXAMPLES: dict[type, dict[str, Any]] = {
    Decision: {"kind": "tool_call", "tool": "ls", "args": {"path": ["."]}},
    Observation: {"status": "ok", "content": "a.py"},
    Step: {"index": 0, "decision": {"kind": "complete"}, "observation": {"content": "done"}},
    StepInput: {"steps": [{"index": 0}], "tools": [{"name": "ls"}]},
    ContentBlock: {"type": "tool_use", "name": "ls", "input": {"path": "."}, "raw": {"type": "tool_use"}},
    Message: {"role": "user", "content": [{"type": "text", "text": "hi"}]},
    ModelResponse: {"content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn", "usage": {"x": 1}},
    render.Decided: {
        "decision": {"kind": "no_tool_call"},
        "rule": "no_tool_use",
        "args": "",
        "text": "",
        "tool_uses": ["a"],
        "note": "",
        "reason_budget": 500,
    },
}
"""Keyword arguments for one value of each type, with containers in it."""


# -- wire forms ------------------------------------------------------------------------

WIRE: list[tuple[ContentBlock, dict[str, Any]]] = [
    (ContentBlock(type="text", text="hi"), {"type": "text", "text": "hi"}),
    (
        ContentBlock(type="tool_use", tool_use_id="step_1", name="read", input={"a": [1]}),
        {"type": "tool_use", "id": "step_1", "name": "read", "input": {"a": [1]}},
    ),
    (
        ContentBlock(type="tool_result", tool_use_id="step_1", content="ok"),
        {"type": "tool_result", "tool_use_id": "step_1", "content": "ok"},
    ),
    (
        ContentBlock(type="tool_result", tool_use_id="step_1", content="boom", is_error=True),
        {"type": "tool_result", "tool_use_id": "step_1", "content": "boom", "is_error": True},
    ),
    (
        ContentBlock(type="thinking", text="hmm", signature="EqQB"),
        {"type": "thinking", "thinking": "hmm", "signature": "EqQB"},
    ),
    (ContentBlock(type="redacted_thinking", text="EmwK"), {"type": "redacted_thinking", "data": "EmwK"}),
]


@pytest.mark.parametrize(("block", "expected"), WIRE, ids=[b.type + str(b.is_error) for b, _ in WIRE])
def test_block_wire_form_round_trips(block: ContentBlock, expected: dict[str, Any]) -> None:
    """Each known block type has the Anthropic wire shape (is_error only when true) and reads back equal."""
    assert block.to_dict() == expected
    assert list(block.to_dict()) == list(expected)
    assert ContentBlock.from_dict(expected) == block


def test_unknown_block_type_without_raw_keeps_its_set_fields() -> None:
    """A block of a type the core does not know, built in code, carries its non-empty fields."""
    block = ContentBlock(type="raw_anthropic", text='{"role": "assistant"}')
    assert block.to_dict() == {"type": "raw_anthropic", "text": '{"role": "assistant"}'}


@pytest.mark.parametrize(
    "wire",
    [
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "x"}},
        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [{"type": "web_search_result"}]},
        {"type": "text", "text": "cited", "citations": [{"type": "char_location", "cited_text": "c"}]},
        {"type": "text", "text": "plain", "citations": None},
        {"type": "tool_use", "id": "toolu_1", "caller": None, "input": {}, "name": "t", "toolset_name": None},
        {"type": "text", "text": "cached", "cache_control": {"type": "ephemeral"}},
        {"type": "thinking", "thinking": "no signature yet"},
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "x", "is_error": False},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}},
    ],
)
def test_from_dict_keeps_unknown_types_and_extra_keys_losslessly(wire: dict[str, Any]) -> None:
    """A block with an unknown type or keys the fields cannot carry gives back exactly what was read."""
    block = ContentBlock.from_dict(wire)
    assert block.to_dict() == wire
    assert block.type == wire["type"]


def test_a_result_given_as_a_list_of_blocks_keeps_its_wire_form() -> None:
    """A tool_result whose content is a list of blocks (valid in the API) reads its text and gives the list back."""
    parts = [{"type": "text", "text": "line one"}, {"type": "image", "source": {}}, {"type": "text", "text": "two"}]
    wire = {"type": "tool_result", "tool_use_id": "toolu_1", "content": parts}
    block = ContentBlock.from_dict(wire)
    assert (block.tool_use_id, block.content) == ("toolu_1", "line one\ntwo")
    assert block.to_dict() == wire


def test_from_dict_fills_fields_of_a_known_block_kept_raw() -> None:
    """A known block kept raw for an extra key still exposes its text and input to decide."""
    block = ContentBlock.from_dict(
        {"type": "tool_use", "id": "toolu_1", "name": "t", "input": {"a": 1}, "caller": None}
    )
    assert (block.tool_use_id, block.name, block.input) == ("toolu_1", "t", {"a": 1})


@pytest.mark.parametrize(
    ("wire", "message"),
    [
        ("text", r"block: expected an object, got string"),
        ({}, r"block\.type: expected a non-empty string, got None"),
        ({"type": ""}, r"block\.type: expected a non-empty string"),
        ({"type": 3}, r"block\.type: expected a non-empty string, got 3"),
        ({"type": "text", "text": 5}, r"block\.text: expected a string, got int"),
        ({"type": "text"}, r"block\.text: missing from a 'text' block"),
        ({"type": "tool_use", "name": "t", "input": {}}, r"block\.id: missing"),
        ({"type": "tool_use", "id": "x", "input": {}}, r"block\.name: missing"),
        ({"type": "tool_use", "id": 1, "name": "t"}, r"block\.id: expected a string, got int"),
        ({"type": "tool_result", "content": "x"}, r"block\.tool_use_id: missing"),
        ({"type": "tool_result", "tool_use_id": "a", "is_error": "yes"}, r"block\.is_error: expected a boolean"),
        ({"type": "thinking", "signature": "s"}, r"block\.thinking: missing"),
        ({"type": "redacted_thinking"}, r"block\.data: missing"),
        ({"type": "tool_result", "tool_use_id": "a", "content": [{"text": "x"}]}, r"block\.content\[0\]\.type"),
        ({"type": "tool_result", "tool_use_id": "a", "content": 7}, r"block\.content: expected a string, got int"),
    ],
)
def test_from_dict_errors_name_the_field(wire: Any, message: str) -> None:
    """Bad block input raises a ValueError naming the field and what was wrong."""
    with pytest.raises(ValueError, match=message):
        ContentBlock.from_dict(wire)


def test_message_to_dict_and_back() -> None:
    """Message.to_dict gives the role and block wire forms; from_dict reads them back (a string as one text block)."""
    message = Message(
        role="assistant",
        content=(
            ContentBlock(type="text", text="Look."),
            ContentBlock(type="tool_use", tool_use_id="step_0", name="read", input={}),
        ),
    )
    wire = message.to_dict()
    assert wire == {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Look."},
            {"type": "tool_use", "id": "step_0", "name": "read", "input": {}},
        ],
    }
    assert Message.from_dict(wire) == message
    assert Message.from_dict({"role": "user", "content": "hi"}) == Message(
        role="user", content=(ContentBlock(type="text", text="hi"),)
    )


@pytest.mark.parametrize("count", [0, 1, 2, 3, 4])
def test_message_to_dict_lists_every_block_in_order(count: int) -> None:
    """Message.to_dict holds each block's wire form in the message's order, however many blocks it has."""
    blocks = tuple(ContentBlock(type="text", text=str(n)) for n in range(count))
    wire = Message(role="user", content=blocks).to_dict()
    assert wire == {"role": "user", "content": [{"type": "text", "text": str(n)} for n in range(count)]}
    assert list(wire) == ["role", "content"]


@pytest.mark.parametrize(
    ("wire", "message"),
    [
        ({"role": "system", "content": []}, r"message\.role: expected 'user' or 'assistant', got 'system'"),
        ({"role": "user"}, r"message\.content: expected a list of blocks, got null"),
        ({"role": "user", "content": [{"type": "text", "text": 1}]}, r"message\.content\[0\]\.text: expected a string"),
    ],
)
def test_message_from_dict_errors(wire: Any, message: str) -> None:
    """Bad message input raises a ValueError naming the field, down to the block index."""
    with pytest.raises(ValueError, match=message):
        Message.from_dict(wire)


# -- ModelResponse.from_dict on Anthropic Message JSON ----------------------------------

# The shape the Anthropic SDK's Message.model_dump(mode="json") produces (anthropic 2.x).
SDK_DUMP: dict[str, Any] = {
    "id": "msg_01",
    "container": None,
    "content": [
        {"signature": "EqQBCkYIBxgCKkB", "thinking": "The test fails on line 3.", "type": "thinking"},
        {"data": "EmwKAhgBEgy3", "type": "redacted_thinking"},
        {"citations": None, "text": "Let me read the file.", "type": "text"},
        {
            "id": "toolu_01A",
            "caller": None,
            "input": {"path": "a.py"},
            "name": "read_file",
            "type": "tool_use",
            "toolset_name": None,
        },
    ],
    "model": "claude-sonnet-4-5",
    "role": "assistant",
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "type": "message",
    "usage": {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": None},
}

# The shape the Messages API itself returns.
API_JSON: dict[str, Any] = {
    "id": "msg_02",
    "type": "message",
    "role": "assistant",
    "model": "claude-opus-4-1",
    "content": [
        {"type": "text", "text": "Reading both."},
        {"type": "tool_use", "id": "toolu_01", "name": "read_file", "input": {"path": "a.py"}},
        {"type": "tool_use", "id": "toolu_02", "name": "read_file", "input": {"path": "b.py"}},
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 2095, "output_tokens": 503},
}


def test_response_from_sdk_dump() -> None:
    """An SDK dump reads with thinking kept (never in the reason) and round-trips its blocks exactly."""
    response = ModelResponse.from_dict(SDK_DUMP)
    assert [b.type for b in response.content] == ["thinking", "redacted_thinking", "text", "tool_use"]
    assert response.content[0].text == "The test fails on line 3."
    assert response.content[0].signature == "EqQBCkYIBxgCKkB"
    assert response.content[1].text == "EmwKAhgBEgy3"
    assert (response.model, response.id, response.stop_reason) == ("claude-sonnet-4-5", "msg_01", "tool_use")
    assert response.usage == SDK_DUMP["usage"]
    assert [b.to_dict() for b in response.content] == SDK_DUMP["content"]
    assert render.decide(response) == Decision(
        kind="tool_call", tool="read_file", args={"path": "a.py"}, reason="Let me read the file."
    )


def test_response_from_api_json() -> None:
    """The API's own JSON reads and decides to the first call, naming the second."""
    response = ModelResponse.from_dict(API_JSON)
    assert response.to_dict() == {key: value for key, value in API_JSON.items() if key != "stop_sequence"}
    assert render.decide(response) == Decision(
        kind="tool_call",
        tool="read_file",
        args={"path": "a.py"},
        reason="Reading both. [1 further tool call(s) not executed: read_file]",
    )


def test_response_from_json_text_with_a_null_stop_reason() -> None:
    """A streamed message not yet finished (stop_reason null) reads as an empty stop reason."""
    response = ModelResponse.from_dict(json.loads('{"content": [], "stop_reason": null}'))
    assert response == ModelResponse(content=(), stop_reason="")


def test_response_raw_string_input() -> None:
    """A tool_use input held as raw text (another provider's form) is kept for decide to parse."""
    wire = {"content": [{"type": "tool_use", "id": "c1", "name": "t", "input": '{"a": 1}'}], "stop_reason": "tool_use"}
    response = ModelResponse.from_dict(wire)
    assert response.content[0].input == '{"a": 1}'
    assert render.decide(response).args == {"a": 1}


@pytest.mark.parametrize(
    ("wire", "message"),
    [
        ([], r"response: expected an object, got array"),
        ({"stop_reason": "end_turn"}, r"response\.content: missing"),
        ({"content": {}, "stop_reason": "end_turn"}, r"response\.content: expected a list of blocks, got object"),
        ({"content": [], "stop_reason": 3}, r"response\.stop_reason: expected a string, got int"),
        ({"content": [], "usage": []}, r"response\.usage: expected an object, got array"),
        ({"content": [], "model": 4}, r"response\.model: expected a string, got int"),
        ({"content": [], "id": 3}, r"response\.id: expected a string, got int"),
        ({"content": [], "type": "error"}, r"response\.type: expected 'message', got 'error'"),
        ({"content": [], "role": "user"}, r"response\.role: expected 'assistant', got 'user'"),
        ({"content": [{"type": "tool_use", "name": "t"}]}, r"response\.content\[0\]\.id: missing"),
        ({"content": ["x"]}, r"response\.content\[0\]: expected an object, got string"),
    ],
)
def test_response_from_dict_errors(wire: Any, message: str) -> None:
    """Bad reply input raises a ValueError naming the field (with the block index) and what was wrong."""
    with pytest.raises(ValueError, match=message):
        ModelResponse.from_dict(wire)


# -- the quick checks: exactly what from_dict accepts and refuses ------------------------

WIRE_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(), st.sampled_from(["", "x", "message", "assistant"]), st.lists(st.none())
)
"""Values a reply's or a block's field may hold on the wire, right or wrong."""

WIRE_BLOCKS = st.recursive(
    st.dictionaries(
        st.sampled_from(["type", "text", "id", "name", "input", "tool_use_id", "content", "is_error", "data"]),
        WIRE_VALUES,
    ).map(lambda block: {"type": "text", **block})
    | st.sampled_from(
        [{"type": "tool_use", "id": "a", "name": "n", "input": {}}, {"type": "thinking", "thinking": "t"}]
    ),
    lambda inner: st.builds(
        lambda content, extra: {"type": "tool_result", "tool_use_id": "t", "content": content, **extra},
        st.lists(inner, max_size=2) | st.tuples(inner),
        st.dictionaries(st.sampled_from(["is_error", "cache_control"]), WIRE_VALUES, max_size=1),
    ),
    max_leaves=4,
)
"""Blocks as a reply holds them: of known types or not, with keys right, wrong, missing or extra, nested in results."""


@settings(max_examples=examples(400), deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["type", "role", "stop_reason", "usage", "model", "id", "stop_sequence"]),
        WIRE_VALUES | st.dictionaries(st.just("input_tokens"), st.integers(), max_size=1),
    ),
    st.lists(WIRE_BLOCKS, max_size=3) | WIRE_VALUES,
    st.booleans(),
)
def test_check_response_raises_what_from_dict_raises(fields: dict[str, Any], content: Any, with_content: bool) -> None:
    """check_response, whose quick pass converts a reply into its wire shape, accepts and refuses exactly the replies
    ModelResponse.from_dict does, with the same message; with blocks_checked, its own fields alike."""
    wire = {**fields, "content": content} if with_content else fields
    try:
        ModelResponse.from_dict(wire)
    except ValueError as error:
        with pytest.raises(ValueError) as caught:
            check_response(wire)
        assert str(caught.value) == str(error)
    else:
        check_response(wire)
    own_fields = {**wire, "content": []} if with_content and isinstance(content, list) else wire
    try:
        ModelResponse.from_dict(own_fields)
    except ValueError as error:
        with pytest.raises(ValueError) as caught:
            check_response(wire, blocks_checked=True)
        assert str(caught.value) == str(error)
    else:
        check_response(wire, blocks_checked=True)
