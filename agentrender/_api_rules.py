"""The Messages API's rules for a conversation, checked in one place.

The Anthropic adapter checks a request's messages (their wire form) before it sends them
(``adapters.anthropic.check_params``), and ``agentrender check`` checks every message of
a run's views (``Message`` objects). The rules below read a ``ContentBlock``'s fields, and
a wire block is read into the same five (``_Block``), so the two can never disagree about
what the API takes.

The rules: at least one message; the first a user turn and the roles alternating; no
empty content and no blank text block; each tool use with an id (letters, digits, ``_``
and ``-``) used once in the conversation, a name of 1 to 64 such characters and an object
as input; and the tool uses of an assistant turn answered by ``tool_result`` blocks at the
start of the next user turn, with no result answering anything else. The results may come in
any order: the API matches them by id and prescribes no order (its guide to parallel tool use),
and Claude Code sends them as its tools finish (``imports.claude_code``). A tool the API runs
itself (a ``server_tool_use``, an ``mcp_tool_use``) keeps the same rules for its id, name and
input, and is answered in its own turn, by a block of its result (``web_search_tool_result``,
...) with its id: the API answers 400 "`web_search` tool use with id ... was found without a
corresponding `web_search_tool_result` block" to one that is not (AnswerDotAI/lisette#108), unless
the turn is the request's last, a reply paused (``pause_turn``) and sent back to go on. A Codex
web search, which the Responses API answered out of sight, is such a use with no id and no result.

The text rule holds in user and assistant turns alike: the API answers 400
``invalid_request_error`` "messages: text content blocks must be non-empty" to an empty text
block (anthropics/anthropic-sdk-python#461: the API may *return* one beside a tool use, and
refuses it when it is sent back) and "messages: text content blocks must contain non-whitespace
text" to one of only whitespace (anthropics/claude-code#23352, #23440, in assistant turns too:
anomalyco/opencode#31259). A recorded session that holds such blocks and was accepted was sent
without them: the importer says what was sent (Inspect sends ``(no content)``,
``imports.inspect.NO_CONTENT``), and the rule stays.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from agentrender._json import type_name
from agentrender._types import ContentBlock, Message

__all__ = [
    "RUNTIME_TOOL_KEYS",
    "TOOL_KEYS",
    "Problem",
    "content_blocks",
    "continued",
    "defined_tool",
    "message_problems",
    "prefill_of",
    "prefill_said",
    "step_decided",
    "system_text",
    "wire_problems",
    "wire_tool",
]

TOOL_KEYS = (
    "name",
    "description",
    "input_schema",
    "cache_control",
    "type",
    "strict",
    "input_examples",
    "defer_loading",
    "allowed_callers",
    "eager_input_streaming",
)
"""What a custom tool definition of the Messages API (no ``type``, or ``"custom"``: the SDK's ``ToolParam``) may
hold; the API refuses any other field. The rest of a run's custom tool record (a runtime's timeout, say) is not
sent."""

RUNTIME_TOOL_KEYS = ("read_only",)
"""What a run's tool record holds for its runtime, never sent: whether the tool changes anything."""


def defined_tool(tool: Mapping[str, Any]) -> bool:
    """Whether ``tool`` is one the API defines: its ``type`` (not ``"custom"``) names it and its version
    (``bash_20250124``, ``web_search_20250305``, ``computer_toolset_20260801``, ...: the SDK's ``ToolUnionParam``)
    and says which other fields it takes, which the API checks. It has no ``input_schema``, and a toolset no name."""
    kind = tool.get("type")
    return isinstance(kind, str) and kind != "custom"


def wire_tool(tool: Mapping[str, Any]) -> dict[str, Any]:
    """``tool`` as a request sends it, its fields in its own order: a custom tool's ``TOOL_KEYS``, every field of a
    tool the API defines (``defined_tool``); the runtime's (``RUNTIME_TOOL_KEYS``) left out."""
    if defined_tool(tool):
        return {key: value for key, value in tool.items() if key not in RUNTIME_TOOL_KEYS}
    return {key: value for key, value in tool.items() if key in TOOL_KEYS}


def step_decided(messages: Any) -> int:
    """The step a request's ``messages`` decide: how many assistant turns they hold before the reply. A last
    assistant message is a prefill, the start of the reply's own turn (the reply continues its text), not a turn;
    assistant messages in a row are one turn, as the API combines consecutive turns of one role."""
    if not isinstance(messages, list):
        return 0
    roles = [message.get("role") if isinstance(message, Mapping) else None for message in messages]
    turns = sum(1 for i, role in enumerate(roles) if role == "assistant" and (i == 0 or roles[i - 1] != "assistant"))
    return turns - (prefill_of(messages) is not None)


def prefill_of(messages: Any) -> Mapping[str, Any] | None:
    """The prefill a request's ``messages`` end with: a last assistant message, which the reply goes on from
    (``continued``); ``None`` when they end otherwise."""
    last = messages[-1] if isinstance(messages, list) and messages else None
    return last if isinstance(last, Mapping) and last.get("role") == "assistant" else None


def prefill_said(step: int, *, saved: bool = False) -> str:
    """What a run says of its last step ``step``, a request's last assistant message no reply to which it holds: a
    prefill, the caller's text, not a decision of the model. ``saved``: the source may be a conversation saved with
    its reply last, which reads the same (a request body alone)."""
    said = (
        "the request ends with an assistant message: sent as it is, that is a prefill, the turn the model was to go on "
        f"from, and no reply to it is held: step {step} is that prefill, the caller's text, not a decision of the model"
    )
    return (
        f"{said} (a conversation saved with its reply last reads the same: the file cannot say which)"
        if saved
        else said
    )


def content_blocks(content: Any) -> list[Any] | None:
    """A message's content as blocks: a string is one text block; ``None`` for content of another type."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content if isinstance(content, list) else None


def continued(prefill: Mapping[str, Any], reply: Mapping[str, Any], *, joined: bool) -> list[Any] | None:
    """The blocks of the turn that is the ``prefill`` a request ended with (``step_decided``), continued by the
    ``reply`` to it: the prefill's blocks then the reply's, and with ``joined`` the prefill's last text and the
    reply's first as one text block (the text the model went on with, as an agent merges them); ``None`` when either
    holds no blocks, or, ``joined``, when those two are not texts."""
    before, after = content_blocks(prefill.get("content")), content_blocks(reply.get("content"))
    if before is None or after is None:
        return None
    if not joined:
        return [*before, *after]
    if not before or not after or not _is_text(before[-1]) or not _is_text(after[0]):
        return None
    return [*before[:-1], {**after[0], "text": before[-1]["text"] + after[0]["text"]}, *after[1:]]


def _is_text(block: Any) -> bool:
    return isinstance(block, Mapping) and block.get("type") == "text" and isinstance(block.get("text"), str)


def system_text(system: Any) -> str:
    """A request's system prompt as text: the string, or its text blocks' texts joined with newlines."""
    if isinstance(system, list):
        return "\n".join(str(block.get("text", "")) for block in system if isinstance(block, Mapping))
    return str(system or "")


# The Messages API's patterns for a tool_use id and for a tool's name.
_ID = re.compile(r"[a-zA-Z0-9_-]+")
_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")


class Problem(NamedTuple):
    """One thing the API would refuse: the message's index, where exactly, and what."""

    position: int
    """The index of the message that breaks the rule."""
    where: str
    """``messages[i] (role)`` for the message, ``messages[i].content[j]`` for one of its blocks."""
    what: str
    """The rule it breaks, in a sentence."""


class _Block(NamedTuple):
    """What the rules read of a block: a ``ContentBlock``'s fields, read off a wire block by ``_of_wire``.

    ``tool_use_id`` is a tool use's own id or the id a result answers, as in ``ContentBlock``.
    """

    type: Any
    text: Any
    tool_use_id: Any
    name: Any
    input: Any


_Content = Sequence[_Block | ContentBlock | None] | str
"""A message's blocks (``None`` for one that is not an object), or what is wrong with its content."""


def message_problems(messages: Sequence[Message]) -> Iterator[Problem]:
    """Each thing in ``messages`` (``Message`` objects, as the render gives them) the API would refuse."""
    return _problems((message.role, message.content) for message in messages)


def wire_problems(messages: Iterable[Any]) -> Iterator[Problem]:
    """Each thing in ``messages`` (their wire form, as a request sends them) the API would refuse."""
    return _problems(_of_wire(message) for message in messages)


def _of_wire(message: Any) -> tuple[Any, _Content]:
    if not isinstance(message, Mapping):
        return None, "a message must be an object"
    content = message.get("content")
    if isinstance(content, str):  # the API's short form of one text block
        return message.get("role"), [_Block("text", content, None, None, None)]
    if not isinstance(content, list):
        return message.get("role"), "content must be a non-empty list of blocks"
    blocks: list[_Block | ContentBlock | None] = []
    for block in content:
        if not isinstance(block, Mapping):
            blocks.append(None)
            continue
        blocks.append(_wire_block(block))
    return message.get("role"), blocks


def _wire_block(block: Mapping[str, Any]) -> _Block:
    kind = block.get("type")
    # The wire names a tool use's id "id" and the id a result answers "tool_use_id".
    return _Block(
        kind,
        block.get("text"),
        block.get("id") if kind == "tool_use" or kind in _OWN_TURN_USES else block.get("tool_use_id"),
        block.get("name"),
        block.get("input"),
    )


def _fields(block: _Block | ContentBlock) -> _Block | ContentBlock:
    """What the rules read of a block, off its wire form when it is a ``ContentBlock`` of a type it does not know
    (a server tool's use or result), whose fields are left empty."""
    return _wire_block(block.raw or {}) if isinstance(block, ContentBlock) else block


_OWN_TURN_USES = frozenset(("server_tool_use", "mcp_tool_use"))
"""The tool uses the API runs itself, answered in their own turn by a block of their result."""


def _problems(messages: Iterable[tuple[Any, _Content]]) -> Iterator[Problem]:
    # Where a problem is (``_turn``, ``_block``) is worded only when there is one: a long
    # run's views hold hundreds of thousands of messages, nearly always without any.
    seen_ids: set[str] = set()
    pending: list[Any] = []  # the tool uses of the assistant turn before, still to be answered
    unanswered: list[str] = []  # the uses the API ran in the turn before that it holds no result of
    previous = None
    index = -1
    for index, (role, content) in enumerate(messages):
        if unanswered:  # a turn sent on with another after it: not a reply paused to go on
            yield Problem(index - 1, _turn(index - 1, previous), _never_answered(unanswered, in_turn=True))
            unanswered = []
        if role not in ("user", "assistant"):
            yield Problem(index, _turn(index, role), f"expected a user or an assistant turn, got role {role!r}")
        elif role == (previous or "assistant"):
            expected = "an assistant" if role == "user" else "a user"
            yield Problem(
                index, _turn(index, role), f"expected {expected} turn (the first is user, then they alternate)"
            )
        previous = role
        if isinstance(content, str):
            yield Problem(index, _turn(index, role), content)
            content = []
        elif not content:
            yield Problem(index, _turn(index, role), "content must be a non-empty list of blocks")
        uses: list[Any] = []
        own: dict[Any, Any] = {}  # the uses the API ran itself, by id (their names): answered in this turn
        for position, block in enumerate(content):
            if block is None:
                yield Problem(index, _block(index, position), "a block must be an object")
                continue
            kind = block.type
            if kind == "text" and not (isinstance(block.text, str) and block.text.strip()):
                yield Problem(index, _block(index, position), "text blocks must contain non-whitespace text")
            elif kind == "tool_use":
                uses.append(block.tool_use_id)
                for what in _tool_use_problems(block, seen_ids):
                    yield Problem(index, _block(index, position), what)
            elif kind in _OWN_TURN_USES:
                block = _fields(block)
                own[block.tool_use_id if isinstance(block.tool_use_id, str) and block.tool_use_id else object()] = (
                    block.name
                )
                for what in _tool_use_problems(block, seen_ids):
                    yield Problem(index, _block(index, position), what)
            elif own and isinstance(kind, str) and kind != "tool_result" and kind.endswith("_tool_result"):
                own.pop(_fields(block).tool_use_id, None)
        unanswered = [repr(key) if isinstance(key, str) else f"{name} with no id" for key, name in own.items()]
        if role == "user":
            if pending:
                leading = [_answer(block) for block in content[: len(pending)]]
                if not _answers_each(leading, pending):
                    yield Problem(
                        index,
                        _turn(index, role),
                        f"the tool uses {pending} of the turn before must be answered first, by tool_result "
                        f"blocks with those ids (in any order); found {leading}",
                    )
            unasked = [
                block.tool_use_id
                for block in content
                if block is not None and block.type == "tool_result" and block.tool_use_id not in pending
            ]
            if unasked:
                what = f"tool_result for {unasked}, which the turn before did not use"
                yield Problem(index, _turn(index, role), what)
            pending = []
        else:
            pending = uses
    if index < 0:
        yield Problem(0, "messages", "there must be at least one message")
    elif pending:
        yield Problem(index, _turn(index, "assistant"), _never_answered(list(map(repr, pending))))


def _never_answered(uses: list[str], *, in_turn: bool = False) -> str:
    """What the API says of ``uses`` (each said as its id's repr, or its name and no id) that nothing answers;
    ``in_turn``: uses the API ran itself, whose result comes in their own turn."""
    said = f"its tool uses [{', '.join(uses)}] are never answered"
    return f"{said} (the API runs them: their results come in the same turn)" if in_turn else said


def _turn(index: int, role: Any) -> str:
    return f"messages[{index}] ({role})"


def _block(index: int, position: int) -> str:
    return f"messages[{index}].content[{position}]"


def _answers_each(leading: list[Any], pending: list[Any]) -> bool:
    """Whether the ids ``leading`` answer each tool use of ``pending`` once, in any order (ids may be of any type
    here: a tool use's id of the wrong type is a problem of its own)."""
    rest = list(pending)
    for answer in leading:
        if answer not in rest:
            return False
        rest.remove(answer)
    return not rest


def _answer(block: _Block | ContentBlock | None) -> Any:
    """The id a block answers: a ``tool_result``'s ``tool_use_id``; ``None`` for any other block."""
    return block.tool_use_id if block is not None and block.type == "tool_result" else None


def _tool_use_problems(block: _Block | ContentBlock, seen_ids: set[str]) -> list[str]:
    problems = []
    tool_use_id, kind = block.tool_use_id, block.type
    if not isinstance(tool_use_id, str) or not tool_use_id:
        problems.append(f"a {kind} needs an id")
    elif not _ID.fullmatch(tool_use_id):
        problems.append(f"{kind} id {tool_use_id!r} is not letters, digits, _ and -")
    elif tool_use_id in seen_ids:
        problems.append(f"{kind} id {tool_use_id!r} was used before")
    else:
        seen_ids.add(tool_use_id)
    if not isinstance(block.name, str) or not _NAME.fullmatch(block.name):
        problems.append(f"tool name {block.name!r} is not 1 to 64 letters, digits, _ and -")
    if not isinstance(block.input, Mapping):
        problems.append(f"{kind} input must be an object, got {type_name(block.input)}")
    return problems
