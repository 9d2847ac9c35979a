"""The data of a run and of a conversation: pure values, no behaviour beyond their wire forms.

Every type is a frozen, keyword-only ``msgspec.Struct``: its ``__init__``, equality, hash and
pickling are msgspec's, in C. None of them is tracked by the cyclic collector (``gc=False``):
a value holds strings, numbers, other values and the JSON values it was given, trees that
never refer back to it, so no cycle runs through one. Change a field with
``msgspec.structs.replace``; list them with ``msgspec.structs.fields``. Identity (run ids,
file positions) is a storage concern and lives in the run-file layer, not here.

``ContentBlock`` stays one struct with one set of fields for every block type, as the seed
has it, rather than a tagged union of one struct per type of the Messages API. A renderer's
hooks, the run files and every layer above build and read blocks as
``ContentBlock(type=..., text=...)`` and branch on ``block.type``; a block of a type nobody
knows yet (a provider's new one, kept in ``raw``) needs a place in the same type. One struct
per type is where it is plainer, in checking a block's wire form: ``check_block`` converts a
block into its type's wire shape (``msgspec.convert``, one C pass, no unknown key allowed),
and only a block that does not fit one (an unknown type, an extra key, an error to word)
takes the worded check that ``from_dict`` makes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, get_args

import msgspec

from agentrender._display.values import decision_html, messages_html
from agentrender._json import says_nothing, type_name

__all__ = [
    "FAILED_STATUSES",
    "KINDS",
    "STATUSES",
    "CheckedReply",
    "ContentBlock",
    "Decision",
    "Kind",
    "Message",
    "Messages",
    "ModelResponse",
    "Observation",
    "Status",
    "Step",
    "StepInput",
]

Kind = Literal["tool_call", "complete", "truncated", "no_tool_call"]
"""The kinds of decision the contract names (``Decision.kind``); a runtime may record any other."""
KINDS: tuple[str, ...] = get_args(Kind)
"""Every kind the contract names (``Decision.kind``), in this order; a runtime may record any other."""

Status = Literal["ok", "error", "invalid_decision", "interrupted"]
"""The statuses the contract names (``Observation.status``)."""
STATUSES: tuple[str, ...] = get_args(Status)
"""Every status an observation has (``Observation.status``); any other is rendered as ``"ok"`` is."""
FAILED_STATUSES = frozenset({"error", "invalid_decision"})
"""The statuses whose result is flagged ``is_error`` (``Observation.failed``)."""


class Decision(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """What an agent decided for one step: a tool call, or one of the runtime's other kinds.

    The renderer never rejects a kind; an unknown one is kept verbatim and rendered as a nudge.
    """

    kind: str
    """``"tool_call"``, ``"complete"``, ``"truncated"``, ``"no_tool_call"`` or any kind a runtime recorded."""
    tool: str = ""
    """The tool the decision calls; empty when it calls none."""
    args: Any = None
    """The parsed JSON value of the arguments, or ``None`` when there were none (or they were not JSON)."""
    reason: str = ""
    """The model's text that came with the decision, capped by ``render.decide`` at ``REASON_BYTES``."""
    invalid_args: str = ""
    """Arguments that were not JSON, kept out of band: the text, or base64 of the raw bytes."""
    invalid_base64: bool = False
    """True when ``invalid_args`` is base64 because the raw arguments were not UTF-8."""

    @property
    def calls(self) -> bool:
        """True when this decision is a call of a named tool (a ``tool_use`` block renders)."""
        return self.kind == "tool_call" and self.tool != ""

    def _repr_html_(self) -> str:
        return decision_html(self)


class Observation(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """What came back for a step: a tool's result, the driver's rejection, or an interruption."""

    status: str = "ok"
    """``"ok"``, ``"error"``, ``"invalid_decision"`` (nothing ran) or ``"interrupted"`` (outcome unknown)."""
    content: str = ""
    """The tool's full result, shown to the model while the step is inside the recent-results window."""
    summary: str = ""
    """The tool's short account of the result, shown to the model once the step has left the window."""

    @property
    def failed(self) -> bool:
        """True for ``"error"`` and ``"invalid_decision"``: the result is flagged ``is_error``."""
        return self.status in FAILED_STATUSES

    @property
    def interrupted(self) -> bool:
        """True when the process died while the tool ran, so its outcome is unknown."""
        return self.status == "interrupted"


class Step(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One recorded step of a run: a decision and what came back for it."""

    index: int
    """The step's position in the run, from 0; the default ``tool_use`` id is ``step_<index>``."""
    decision: Decision | None = None
    """``None`` when no decision was recorded: the step being decided, or one interrupted while deciding."""
    observation: Observation | None = None
    """``None`` when nothing came back (yet)."""


class StepInput(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """What an agent is given to decide a step: the run's recorded steps so far, in order."""

    steps: Sequence[Step] = ()
    """The recorded steps, oldest first."""
    goal: str = ""
    """The run's goal, for an opening that is built from it."""
    run_id: str = ""
    """The run's identifier."""
    index: int | None = None
    """The index of the step being decided, when known."""
    tools: Sequence[Mapping[str, Any]] = ()
    """The tool definitions offered to the model (name, description, input_schema)."""


_NOT_SAID = object()


class ContentBlock(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One block of a message, with one set of fields for every block type (as the seed has it).

    ``text`` carries a text block's text, a thinking block's thinking, a redacted thinking
    block's data, or a raw assistant turn. ``tool_use_id`` is the id of a ``tool_use``
    block and the reference of a ``tool_result`` block.
    """

    type: str
    """``"text"``, ``"tool_use"``, ``"tool_result"``, ``"thinking"``, ``"redacted_thinking"``, or another type."""
    text: str = ""
    """Text, thinking, redacted-thinking data, or a raw assistant turn."""
    tool_use_id: str = ""
    """A ``tool_use`` block's id, or the id a ``tool_result`` block answers."""
    name: str = ""
    """A ``tool_use`` block's tool name."""
    input: Any = None
    """A ``tool_use`` block's arguments: a JSON value, or ``str``/``bytes`` of raw argument text."""
    content: str = ""
    """A ``tool_result`` block's content."""
    is_error: bool = False
    """A ``tool_result`` block's error flag."""
    signature: str = ""
    """A thinking block's signature, replayed as the provider wrote it."""
    raw: Mapping[str, Any] | None = None
    """The block's wire form as received, when it holds more than the fields above can carry.

    Set by ``from_dict`` for unknown block types and for extra keys (citations, cache control),
    so that ``to_dict`` gives back exactly what was read.
    """

    @property
    def opaque(self) -> bool:
        """Whether only the block's wire form (``raw``) says what it holds: a type this module does not know, or a
        key its fields cannot carry (citations, cache control), holding something. A block that keeps its wire form
        only for the order of its keys or for an empty value written out (``"is_error": false``, ``"citations":
        null``: a recorded turn replayed as sent) is said by its fields, as every display shows it."""
        if self.raw is None:
            return False
        said = msgspec.structs.replace(self, raw=None).to_dict()
        return any(said.get(key, _NOT_SAID) != value and not says_nothing(value) for key, value in self.raw.items())

    def to_dict(self) -> dict[str, Any]:
        """The block's wire form: the Anthropic Messages API shape."""
        if self.raw is not None:
            return dict(self.raw)
        kind = self.type
        if kind == "text":
            return {"type": "text", "text": self.text}
        if kind == "tool_result":
            if self.is_error:
                return {
                    "type": "tool_result",
                    "tool_use_id": self.tool_use_id,
                    "content": self.content,
                    "is_error": True,
                }
            return {"type": "tool_result", "tool_use_id": self.tool_use_id, "content": self.content}
        if kind == "tool_use":
            return {"type": "tool_use", "id": self.tool_use_id, "name": self.name, "input": self.input}
        if kind == "thinking":
            return {"type": "thinking", "thinking": self.text, "signature": self.signature}
        if kind == "redacted_thinking":
            return {"type": "redacted_thinking", "data": self.text}
        wire: dict[str, Any] = {"type": kind}
        for key, value, empty in (
            ("text", self.text, ""),
            ("id", self.tool_use_id, ""),
            ("name", self.name, ""),
            ("input", self.input, None),
            ("content", self.content, ""),
            ("is_error", self.is_error, False),
            ("signature", self.signature, ""),
        ):
            if value != empty:
                wire[key] = value
        return wire

    @classmethod
    def from_dict(cls, wire: Mapping[str, Any], *, where: str = "block") -> ContentBlock:
        """Read one block of an Anthropic message; ``where`` names it in errors.

        A block of a type this module does not know, or with keys its fields cannot carry
        (citations, cache control), keeps its wire form in ``raw`` so ``to_dict`` gives back
        exactly what was read. Raises ``ValueError`` naming the field that is missing or of
        the wrong type.
        """
        kind, values = _block_values(wire, where)
        if values is None:
            return cls(type=kind, raw=dict(wire))
        block = cls(type=kind, **values)
        if block.to_dict() != dict(wire):  # a key the fields cannot carry, or a value they change
            return cls(type=kind, raw=dict(wire), **values)
        return block


def check_block(wire: Any, where: str = "block") -> None:
    """Raise what ``ContentBlock.from_dict(wire, where=where)`` raises, without building the block.

    For a reader that checks many blocks it keeps as they are (an importer, a run file's
    recorded turns). A block of a known type with only that type's keys is checked in one
    pass of ``msgspec.convert`` into its wire shape (a result's list of blocks then block by
    block); any other takes ``from_dict``'s own check, which accepts it or words the error.
    """
    kind = wire.get("type") if type(wire) is dict else None
    shape = _WIRE_SHAPES.get(kind) if type(kind) is str else None
    if shape is not None:
        try:
            checked = msgspec.convert(wire, shape)
        except msgspec.ValidationError:
            pass
        else:
            nested = checked.content if isinstance(checked, _ToolResultWire) else None
            if nested is None or type(nested) is str:
                return
            if type(nested) is list:
                for i, block in enumerate(nested):
                    check_block(block, f"{where}.content[{i}]")
                return
    _block_values(wire, where)


def _block_values(wire: Any, where: str) -> tuple[str, dict[str, Any] | None]:
    """Check one block's wire form: its type and the values of its known fields (``None`` for an unknown type)."""
    if not isinstance(wire, Mapping):
        raise ValueError(f"{where}: expected an object, got {type_name(wire)}")
    kind = wire.get("type")
    if not isinstance(kind, str) or not kind:
        raise ValueError(f"{where}.type: expected a non-empty string, got {kind!r}")
    known = _KNOWN_BLOCK_KEYS.get(kind)
    if known is None:
        return kind, None
    values: dict[str, Any] = {}
    for wire_key, (attribute, expected) in known.items():
        value = wire.get(wire_key)
        if value is None and wire_key not in _REQUIRED_BLOCK_KEYS[kind]:
            continue  # absent, or written as null as real writers do (not recorded): its default
        if wire_key not in wire:
            raise ValueError(f"{where}.{wire_key}: missing from a {kind!r} block")
        if kind == "tool_result" and wire_key == "content" and isinstance(value, list):
            # The API also takes a result as a list of blocks. Its text is what a reader is
            # shown; the list itself stays in ``raw``, so the wire form is given back as read.
            parts = _blocks(value, f"{where}.content")
            value = "\n".join(part.text for part in parts if part.type == "text")
        if expected is not None and not isinstance(value, expected):
            raise ValueError(f"{where}.{wire_key}: expected {_TYPE_NAMES[expected]}, got {type_name(value)}")
        values[attribute] = value
    return kind, values


_TYPE_NAMES: dict[Any, str] = {str: "a string", bool: "a boolean"}

_KNOWN_BLOCK_KEYS: dict[str, dict[str, tuple[str, Any]]] = {
    "text": {"text": ("text", str)},
    "tool_use": {"id": ("tool_use_id", str), "name": ("name", str), "input": ("input", None)},
    "tool_result": {"tool_use_id": ("tool_use_id", str), "content": ("content", str), "is_error": ("is_error", bool)},
    "thinking": {"thinking": ("text", str), "signature": ("signature", str)},
    "redacted_thinking": {"data": ("text", str)},
}

# The keys without which a block of a known type means nothing; the others may be absent.
_REQUIRED_BLOCK_KEYS: dict[str, frozenset[str]] = {
    "text": frozenset({"text"}),
    "tool_use": frozenset({"id", "name"}),
    "tool_result": frozenset({"tool_use_id"}),
    "thinking": frozenset({"thinking"}),
    "redacted_thinking": frozenset({"data"}),
}


# The wire shapes of the known block types, for ``check_block``'s quick pass: what each accepts,
# ``_block_values`` accepts too (a key it may go without may be null; no other key). A list is
# left to ``check_block``: ``msgspec.convert`` would take a tuple or a set for one.
class _TextWire(msgspec.Struct, tag_field="type", tag="text", forbid_unknown_fields=True, gc=False):
    text: str


class _ToolUseWire(msgspec.Struct, tag_field="type", tag="tool_use", forbid_unknown_fields=True, gc=False):
    id: str
    name: str
    input: Any = None


class _ToolResultWire(msgspec.Struct, tag_field="type", tag="tool_result", forbid_unknown_fields=True, gc=False):
    tool_use_id: str
    content: Any = None
    is_error: bool | None = None


class _ThinkingWire(msgspec.Struct, tag_field="type", tag="thinking", forbid_unknown_fields=True, gc=False):
    thinking: str
    signature: str | None = None


class _RedactedThinkingWire(
    msgspec.Struct, tag_field="type", tag="redacted_thinking", forbid_unknown_fields=True, gc=False
):
    data: str


# By type, rather than a union of them: a struct's conversion is prepared once and kept on its
# class, a union's is made again at each call (ten times the cost of the conversion itself).
_WIRE_SHAPES: dict[str, type[msgspec.Struct]] = {
    shape.__struct_config__.tag: shape  # type: ignore[misc]  # each has a tag
    for shape in (_TextWire, _ToolUseWire, _ToolResultWire, _ThinkingWire, _RedactedThinkingWire)
}


class Message(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One turn of a conversation: a role and its blocks."""

    role: str
    """``"user"`` or ``"assistant"``."""
    content: Sequence[ContentBlock] = ()
    """The turn's blocks, in order."""

    def to_dict(self) -> dict[str, Any]:
        """The message's wire form: ``{"role": ..., "content": [block, ...]}``."""
        blocks = self.content
        # A rendered turn holds one block or two: listed as they are, with no loop to enter a run's every turn
        # (bench/bench_render.py)
        count = len(blocks)
        if count == 1:
            return {"role": self.role, "content": [blocks[0].to_dict()]}
        if count == 2:
            return {"role": self.role, "content": [blocks[0].to_dict(), blocks[1].to_dict()]}
        return {"role": self.role, "content": [block.to_dict() for block in blocks]}

    @classmethod
    def from_dict(cls, wire: Mapping[str, Any], *, where: str = "message") -> Message:
        """Read a message in its wire form (content as a string becomes one text block)."""
        if not isinstance(wire, Mapping):
            raise ValueError(f"{where}: expected an object, got {type_name(wire)}")
        role = wire.get("role")
        if role not in ("user", "assistant"):
            raise ValueError(f"{where}.role: expected 'user' or 'assistant', got {role!r}")
        content = wire.get("content")
        if isinstance(content, str):
            return cls(role=role, content=(ContentBlock(type="text", text=content),))
        return cls(role=role, content=_blocks(content, f"{where}.content"))


class Messages(list[Message]):
    """A conversation as ``render.messages`` returns it: a plain list that a notebook shows as chat turns."""

    __slots__ = ()

    def _repr_html_(self) -> str:
        return messages_html(self)


def _block_list(content: Any, where: str) -> list[Any]:
    if not isinstance(content, list):
        raise ValueError(f"{where}: expected a list of blocks, got {type_name(content)}")
    return content


def utf8_bytes(text: str) -> int:
    """The UTF-8 bytes of ``text``, a lone surrogate counted as 3 (as ``render.truncate`` counts it)."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def _blocks(content: Any, where: str) -> tuple[ContentBlock, ...]:
    return tuple(
        ContentBlock.from_dict(block, where=f"{where}[{i}]") for i, block in enumerate(_block_list(content, where))
    )


class ModelResponse(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A model's reply, as the Anthropic Messages API returns it."""

    content: Sequence[ContentBlock]
    """The reply's blocks in order: text, thinking, redacted thinking, tool uses."""
    stop_reason: str
    """Why the model stopped: ``"tool_use"``, ``"end_turn"``, ``"max_tokens"``, ``"refusal"``, ..."""
    model: str = ""
    """The model that replied."""
    id: str = ""
    """The provider's message id."""
    usage: Mapping[str, Any] | None = None
    """Token usage as the provider reported it."""

    @classmethod
    def from_dict(cls, wire: Mapping[str, Any], *, where: str = "response") -> ModelResponse:
        """Read an Anthropic ``Message`` JSON object; ``where`` names it in errors.

        Thinking and redacted-thinking blocks are kept (they are never part of a reason);
        a ``tool_use`` block's ``input`` may be a parsed JSON value or raw ``str``/``bytes``.
        A ``null`` stop reason (a streamed message not yet finished) reads as ``""``; any other
        field written as ``null`` (an ``id``, a ``model``) was not recorded, and reads as absent.
        """
        _check_reply_fields(wire, where)
        usage = wire.get("usage")
        return cls(
            content=_blocks(wire["content"], f"{where}.content"),
            stop_reason=wire.get("stop_reason") or "",
            model=wire.get("model") or "",
            id=wire.get("id") or "",
            usage=dict(usage) if usage is not None else None,
        )

    def to_dict(self) -> dict[str, Any]:
        """The reply's wire form, as an Anthropic ``Message`` object."""
        wire: dict[str, Any] = {"type": "message", "role": "assistant"}
        if self.id:
            wire["id"] = self.id
        if self.model:
            wire["model"] = self.model
        wire["content"] = [block.to_dict() for block in self.content]
        wire["stop_reason"] = self.stop_reason
        if self.usage is not None:
            wire["usage"] = dict(self.usage)
        return wire


def _check_reply_fields(wire: Any, where: str) -> None:
    """Check a reply's fields other than its blocks, raising what ``ModelResponse.from_dict`` raises."""
    try:
        msgspec.convert(wire, _ReplyWire)
        return
    except msgspec.ValidationError:
        pass  # the checks below word what is wrong, or accept what the quick pass does not
    if not isinstance(wire, Mapping):
        raise ValueError(f"{where}: expected an object, got {type_name(wire)}")
    for key, expected in (("type", "message"), ("role", "assistant")):
        if wire.get(key) not in (None, expected):
            raise ValueError(f"{where}.{key}: expected {expected!r}, got {wire[key]!r}")
    if "content" not in wire:
        raise ValueError(f"{where}.content: missing (a reply's list of blocks)")
    stop_reason = wire.get("stop_reason")
    if stop_reason is not None and not isinstance(stop_reason, str):
        raise ValueError(f"{where}.stop_reason: expected a string, got {type_name(stop_reason)}")
    usage = wire.get("usage")
    if usage is not None and not isinstance(usage, Mapping):
        raise ValueError(f"{where}.usage: expected an object, got {type_name(usage)}")
    for key in ("model", "id"):
        if type(wire.get(key)) not in _TEXT_OR_NONE:
            raise ValueError(f"{where}.{key}: expected a string, got {type_name(wire[key])}")


_TEXT_OR_NONE = (str, type(None))


class _ReplyWire(msgspec.Struct, gc=False):
    """The fields of a reply ``_check_reply_fields`` checks, for its quick pass (other keys are allowed)."""

    content: Any
    type: Literal["message"] | None = None
    role: Literal["assistant"] | None = None
    stop_reason: str | None = None
    usage: dict[str, Any] | None = None
    model: str | None = None
    id: str | None = None


class CheckedReply(_ReplyWire, gc=False):
    """A reply all of whose blocks are of the types the contract reads, each with only its own keys.

    A reader holding a reply's JSON decodes it as this, in one pass in C: what decodes is a reply
    ``check_response`` accepts (the blocks' shapes are ``check_block``'s quick pass). What does not
    (a block of another type, a ``tool_result`` among them, or with more keys, raw input as base64, a
    wrong value) is checked by ``check_response``, which accepts it or words what is wrong.
    """

    content: list[_TextWire | _ToolUseWire | _ThinkingWire | _RedactedThinkingWire]
    """The reply's blocks, each a ``text``, ``tool_use``, ``thinking`` or ``redacted_thinking`` of its own keys only."""


def check_response(wire: Any, *, where: str = "response", blocks_checked: bool = False) -> None:
    """Raise the ``ValueError`` ``ModelResponse.from_dict(wire, where=where)`` would raise, without building the reply.

    For a reader that checks every reply when it reads a file but builds one only when asked.
    ``blocks_checked=True`` says the reader checked each of its blocks as it is (``check_block``),
    as an importer does when it reads them: only the reply's own fields are checked.
    """
    _check_reply_fields(wire, where)
    blocks = wire["content"]
    if type(blocks) is not list:
        blocks = _block_list(blocks, f"{where}.content")
    if blocks_checked:
        return
    for i, block in enumerate(blocks):
        check_block(block, f"{where}.content[{i}]")


_BLOCK_NAMES = {
    "text": "TextBlock",
    "tool_use": "ToolUseBlock",
    "tool_result": "ToolResultBlock",
    "thinking": "ThinkingBlock",
    "redacted_thinking": "RedactedThinkingBlock",
}
"""The name of each known block type's definition in ``wire_json_schema``."""


def wire_json_schema(ref_template: str) -> dict[str, dict[str, Any]]:
    """JSON Schema (2020-12) definitions, by name, of what ``check_block`` and ``check_response`` accept; each
    refers to another by ``ref_template`` (``"#/$defs/{name}"``).

    ``ContentBlock`` is a block of any type: one of a known type has that type's definition, generated from
    its wire shape (the struct ``check_block`` converts it into); any other key is allowed, as ``from_dict``
    keeps it (``raw``), and so is a block of another type. ``Reply`` is a Messages API ``Message``.
    """
    block = {"$ref": ref_template.format(name="ContentBlock")}
    _, shapes = msgspec.json.schema_components([*_WIRE_SHAPES.values(), _ReplyWire], ref_template=ref_template)
    definitions: dict[str, dict[str, Any]] = {
        "ContentBlock": {
            "title": "ContentBlock",
            "description": (
                "A Messages API content block. A block of a known type has its fields (null on an optional one: "
                "not recorded); a block may hold other fields (citations, cache_control), and be of another type."
            ),
            "type": "object",
            "properties": {"type": {"type": "string", "minLength": 1}},
            "required": ["type"],
            "allOf": [
                {
                    "if": {"properties": {"type": {"const": kind}}, "required": ["type"]},
                    "then": {"$ref": ref_template.format(name=name)},
                }
                for kind, name in _BLOCK_NAMES.items()
            ],
        }
    }
    for kind, shape in _WIRE_SHAPES.items():
        schema = shapes[shape.__name__]
        del schema["additionalProperties"]  # the quick check's alone: other keys are kept
        definitions[_BLOCK_NAMES[kind]] = {**schema, "title": _BLOCK_NAMES[kind]}
    # a result's content: its text, or a list of blocks (text blocks, as the API has them)
    result = definitions["ToolResultBlock"]["properties"]
    result["content"] = {"anyOf": [{"type": "string"}, {"type": "array", "items": block}, {"type": "null"}]}
    reply = shapes[_ReplyWire.__name__]
    definitions["Reply"] = {
        **reply,
        "title": "Reply",
        "description": "A Messages API Message, as the model replied: its blocks; any other field is kept as written.",
        "properties": {**reply["properties"], "content": {"type": "array", "items": block}},
    }
    return definitions
