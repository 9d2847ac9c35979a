"""The Anthropic adapter: a rendered conversation into Messages API parameters, and the reply back.

``to_params`` turns ``render.messages`` output into ``MessageParam`` dicts, replacing a raw
assistant block (``RAW_ASSISTANT_BLOCK``) by the provider's own content blocks it carries.
``Request`` is what an agent sends: its ``params()`` are the ``messages.create`` arguments
(parallel tool use switched off) and its ``replay_key`` is ``render.replay_key`` over the
same content. ``response_from_sdk`` reads the SDK's ``Message``; ``AnthropicModel`` calls
the API; ``ReplayModel`` answers from a recorded run instead, by replay key.

The SDK is imported in one place (``_sdk``), and only by what needs it: building params,
replaying and reading a reply work without it.
"""

from __future__ import annotations

import inspect
import json
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from types import ModuleType
from typing import TYPE_CHECKING, Any

import msgspec

from agentrender import _api_rules, render
from agentrender._extras import require
from agentrender._json import display, strict_loads, type_name
from agentrender._types import ContentBlock, Message, ModelResponse, Step

if TYPE_CHECKING:
    import anthropic

    from agentrender.runfile import ModelCall, Run

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_MODEL",
    "RAW_ASSISTANT_BLOCK",
    "TOOL_CHOICE",
    "AnthropicModel",
    "ModelCallError",
    "ReplayMiss",
    "ReplayModel",
    "Request",
    "check_params",
    "raw_assistant_block",
    "replay_options",
    "response_from_sdk",
    "to_params",
    "tool_param",
]

RAW_ASSISTANT_BLOCK = "anthropic_raw_assistant"
"""The type of a block whose ``text`` is the provider's own assistant content, as a JSON list.

The seed's ``Model.RawAssistantBlock()``: an assistant hook returns one such block to have
a turn replayed exactly as the provider wrote it (signed thinking blocks included).
"""
DEFAULT_MODEL = "claude-sonnet-4-6"
"""The model ``AnthropicModel`` calls when none is named."""
DEFAULT_MAX_TOKENS = 4096
"""The output cap of a ``Request`` when none is given (the seed's agent asks for 4096)."""
TOOL_CHOICE: Mapping[str, Any] = {"type": "auto", "disable_parallel_tool_use": True}
"""The ``tool_choice`` every request with tools sends: only the first tool use executes, so ask for one."""

# The reply was cut or refused, so any tool use in it may be half-written: it never runs,
# and it is not replayed either (a replayed tool use would need a result nobody produced).
_CUT_STOP_REASONS = frozenset({render.STOP_MAX_TOKENS, render.STOP_CONTEXT_WINDOW_EXCEEDED, render.STOP_REFUSAL})


def _sdk() -> ModuleType:
    """The Anthropic SDK, or an ``ImportError`` saying how to install it."""
    return require("anthropic", "anthropic", feature="agentrender.adapters.anthropic")


# --- messages -----------------------------------------------------------------------------


def to_params(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """The ``MessageParam`` dicts for a rendered conversation, in order.

    Each block is its wire form (``ContentBlock.to_dict``), except a ``RAW_ASSISTANT_BLOCK``,
    which is replaced by the content blocks its text holds, verbatim and in order; empty
    text blocks among those are dropped (the API refuses them). Raises ``ValueError``
    naming the message and block for a raw block that is not a JSON list of blocks, a raw
    block outside an assistant turn, or a message left with no content.
    """
    out: list[dict[str, Any]] = []
    for i, message in enumerate(messages):
        where = f"message {i} ({message.role})"
        content: list[dict[str, Any]] = []
        for j, block in enumerate(message.content):
            if block.type != RAW_ASSISTANT_BLOCK:
                content.append(block.to_dict())
                continue
            if message.role != "assistant":
                raise ValueError(f"{where}, block {j}: a raw assistant block in a {message.role} turn")
            content.extend(wire for wire in _raw_blocks(block.text, f"{where}, block {j}") if not _empty_text(wire))
        if not content:
            raise ValueError(f"{where}: no content left to send")
        out.append({"role": message.role, "content": content})
    return out


def _raw_blocks(text: str, where: str) -> list[dict[str, Any]]:
    try:
        blocks = strict_loads(text)
    except ValueError as error:
        raise ValueError(f"{where}: a raw assistant block's text is not JSON: {error}") from None
    if not isinstance(blocks, list):
        raise ValueError(f"{where}: a raw assistant block holds a JSON {type_name(blocks)}, not a list of blocks")
    for k, wire in enumerate(blocks):
        if not isinstance(wire, dict) or not isinstance(wire.get("type"), str):
            raise ValueError(f"{where}: raw content block {k} is not an object with a type")
    return blocks


def _empty_text(wire: Mapping[str, Any]) -> bool:
    text = wire.get("text")
    return wire.get("type") == "text" and (not isinstance(text, str) or not text.strip())


def tool_param(tool: Mapping[str, Any], where: str = "tool") -> dict[str, Any]:
    """The ``ToolUnionParam`` for one tool definition, as the run holds it (``_api_rules.wire_tool``): a custom
    tool's name, description, input schema and the API's other fields of one; a tool the API defines whole.

    Raises ``ValueError`` when a custom tool's name or input schema is missing.
    """
    if _api_rules.defined_tool(tool):  # its type says what it holds; the API checks it
        return _api_rules.wire_tool(tool)
    if not isinstance(tool.get("name"), str) or not tool["name"]:
        raise ValueError(f"{where}: a tool needs a name, got {tool.get('name')!r}")
    if not isinstance(tool.get("input_schema"), Mapping):
        raise ValueError(f"{where} ({tool['name']}): a tool needs an input_schema object")
    return _api_rules.wire_tool(tool)


def check_params(messages: Sequence[Mapping[str, Any]]) -> None:
    """Raise ``ValueError`` naming the message (and block) when ``messages`` break a rule of the Messages API.

    The rules: at least one message, the first a user turn, roles alternating, no empty
    content and no blank text block, tool-use ids well formed and unique, names well formed
    and inputs objects, and every assistant turn's tool uses answered by ``tool_result``
    blocks at the start of the next user turn, with matching ids (and no result answering
    anything else). They are ``agentrender check``'s rules too: both read them from one place.
    """
    problem = next(_api_rules.wire_problems(messages), None)
    if problem is not None:
        raise ValueError(f"{problem.where}: {problem.what}")


# --- requests -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Request:
    """One model call as an agent builds it: the rendered messages and what goes with them.

    ``replay_key`` is ``render.replay_key`` over exactly what ``params()`` sends: the
    model, the system text, ``max_tokens``, the tool definitions as sent (``tool_param``)
    and the messages as sent (``to_params``: raw assistant blocks expanded). Only
    ``tool_choice`` is left out, which this adapter always sets to ``TOOL_CHOICE``. For a
    render without raw blocks, whose tools carry only API fields, that is the key
    ``render.replay_key`` gives over the rendered messages themselves; a server can compute
    it from the request body it receives (``agentrender.testing.body_key``).
    """

    messages: Sequence[Message]
    """The rendered conversation (``render.messages``)."""
    system: str = ""
    """The system prompt; not sent when empty."""
    tools: Sequence[Mapping[str, Any]] = ()
    """The tool definitions, sent as ``tool_param`` gives them (a runtime's ``read_only`` is not sent)."""
    model: str = ""
    """The model to call; ``AnthropicModel`` and ``ReplayModel`` fill in their own when empty."""
    max_tokens: int = DEFAULT_MAX_TOKENS
    """The output token cap."""
    step: int | None = None
    """The index of the step being decided, so that errors can name it; not sent, not in the key."""

    @property
    def replay_key(self) -> str:
        """``render.replay_key`` over what ``params()`` sends (see the class docstring)."""
        params = self.params()
        return render.replay_key(
            params["messages"],
            system=self.system,
            tools=params.get("tools", ()),
            model=self.model,
            max_output_tokens=self.max_tokens,
        )

    def params(self) -> dict[str, Any]:
        """The keyword arguments of ``client.messages.create``, parallel tool use switched off.

        Raises ``ValueError`` naming the step and the message for what cannot be sent.
        """
        params: dict[str, Any] = {"model": self.model, "max_tokens": self.max_tokens}
        if self.system:
            params["system"] = self.system
        try:
            params["messages"] = to_params(self.messages)
            if self.tools:
                params["tools"] = [tool_param(tool, f"tools[{i}]") for i, tool in enumerate(self.tools)]
                params["tool_choice"] = dict(TOOL_CHOICE)
        except ValueError as error:
            raise ValueError(f"{_step_name(self.step)}: {error}") from None
        return params


def _step_name(step: int | None) -> str:
    return f"step {step}" if step is not None else "a model call"


# --- replies ------------------------------------------------------------------------------


def response_from_sdk(message: Any) -> ModelResponse:
    """The SDK's ``Message`` (or its JSON as a dict) as a ``ModelResponse``.

    Every block is kept as the server sent it (thinking with its signature, citations and
    unknown blocks in their raw form), so the turn can be replayed; the tool uses of a
    reply cut by ``max_tokens`` or the context window, or refused, are dropped, since
    nothing half-written may run.
    """
    wire = message if isinstance(message, Mapping) else message.to_dict()
    response = ModelResponse.from_dict(wire, where="Anthropic message")
    if response.stop_reason not in _CUT_STOP_REASONS:
        return response
    kept = tuple(block for block in response.content if block.type != "tool_use")
    return msgspec.structs.replace(response, content=kept)


def _replayable(response: ModelResponse) -> list[dict[str, Any]]:
    """The reply's blocks as they can be sent back: tool uses dropped when cut, only the first kept otherwise.

    Nothing, when the tool use that ran has arguments that are not a JSON object (raw text
    another provider sent): the API takes only objects, so that turn cannot be replayed as
    written and is synthesized instead (its ``tool_use`` carrying ``render.args``).
    """
    cut = response.stop_reason in _CUT_STOP_REASONS
    blocks: list[dict[str, Any]] = []
    used = False
    for block in response.content:
        if block.type == "tool_use":
            # Only the first tool use runs, and the API wants a result for every one sent back.
            if cut or used:
                continue
            if not isinstance(block.input, Mapping):
                return []
            used = True
        wire = block.to_dict()
        if not _empty_text(wire):
            blocks.append(wire)
    return blocks


def raw_assistant_block(response: ModelResponse) -> ContentBlock | None:
    """The ``RAW_ASSISTANT_BLOCK`` that replays ``response`` as the assistant turn, or ``None``.

    Its text is the reply's content blocks as JSON, as the provider wrote them, less what
    cannot be sent back: tool uses of a cut or refused reply, tool uses after the first
    (never executed, so never answered) and empty text. ``None`` when nothing is left, or
    when the tool use that ran has arguments that are not a JSON object, so that an
    assistant hook returning ``[block] if block else None`` falls back to the synthesized
    turn.
    """
    blocks = _replayable(response)
    if not blocks:
        return None
    return ContentBlock(type=RAW_ASSISTANT_BLOCK, text=json.dumps(blocks, ensure_ascii=False, separators=(",", ":")))


def replay_options(
    calls: Mapping[int, ModelResponse], opening: str | Callable[..., str], *, model: str = "", **overrides: Any
) -> render.Options:
    """``render.Options`` that replay each step's recorded reply as its assistant turn (Casework's way).

    ``calls`` maps a step index to the reply that decided it. A step with a reply (from
    ``model``, when given) renders that reply's content verbatim and answers it under the
    id of the reply's own tool use; every other step renders the default way.
    """

    def turn(step: Step) -> ModelResponse | None:
        response = calls.get(step.index)
        if response is None or (model and response.model != model):
            return None
        return response

    def tool_use_id(step: Step) -> str:
        response = turn(step)
        if response is None:
            return ""
        for block in _replayable(response):
            if block["type"] == "tool_use":
                return str(block["id"])
        return ""

    def assistant(step: Step, _id: str) -> list[ContentBlock] | None:
        response = turn(step)
        block = raw_assistant_block(response) if response is not None else None
        return [block] if block is not None else None

    return render.Options(opening=opening, tool_use_id=tool_use_id, assistant=assistant, **overrides)


# --- models -------------------------------------------------------------------------------


class ModelCallError(RuntimeError):
    """A model call that failed; the message names the step and says what the API answered."""

    def __init__(self, step: int | None, what: str, *, status: int | None = None) -> None:
        super().__init__(f"{_step_name(step)}: {what}")
        self.step = step
        """The index of the step being decided, when the request said."""
        self.status = status
        """The HTTP status the API answered with, when it answered."""


class AnthropicModel:
    """A model that answers through ``anthropic.Anthropic``'s Messages API.

    ``send`` sends a ``Request`` (its ``model`` defaulting to this model's) and returns the
    reply's JSON exactly as the API returned it (what a run file records); ``generate``
    returns it as a ``ModelResponse`` (``response_from_sdk``). SDK errors become
    ``ModelCallError``s naming the step. The client is a sync one (``anthropic.Anthropic``, or
    ``agentrender.record`` of one): an async client's call is a ``TypeError`` saying so, nothing sent.
    """

    def __init__(self, client: anthropic.Anthropic | None = None, *, model: str = DEFAULT_MODEL) -> None:
        self._sdk = _sdk()
        self.client = client if client is not None else self._sdk.Anthropic()
        """The SDK client requests go through."""
        self.model = model
        """The model requests without one are sent to."""

    def request(self, request: Request) -> Request:
        """``request`` with this model's name filled in when it names none."""
        return request if request.model else replace(request, model=self.model)

    def send(self, request: Request) -> dict[str, Any]:
        """Send ``request``; the reply's JSON as returned. Raises ``ModelCallError`` naming the step on failure."""
        request = self.request(request)
        params = request.params()
        sdk = self._sdk
        try:
            raw = self.client.messages.with_raw_response.create(**params)
            if inspect.isawaitable(raw):  # an async client's call, which nothing here awaits
                getattr(raw, "close", lambda: None)()  # never sent: no "never awaited" warning either
                raise TypeError(
                    f"{_step_name(request.step)}: AnthropicModel sends through a sync client (anthropic.Anthropic), "
                    f"and its client is async ({type(self.client).__name__}): its messages.create gives a coroutine "
                    "that send() cannot await; give it anthropic.Anthropic()"
                )
            wire = raw.json()
        except sdk.APITimeoutError as error:
            raise ModelCallError(request.step, f"the Anthropic API did not answer in time ({error})") from error
        except sdk.APIConnectionError as error:
            raise ModelCallError(request.step, f"could not reach the Anthropic API ({error})") from error
        except sdk.APIStatusError as error:
            raise ModelCallError(request.step, _status_text(error), status=error.status_code) from error
        except ValueError as error:
            raise ModelCallError(
                request.step, f"the Anthropic API answered with a body that is not JSON ({error})"
            ) from error
        if not isinstance(wire, dict) or wire.get("type", "message") != "message":
            raise ModelCallError(request.step, f"the Anthropic API answered with no message: {_short_value(wire)}")
        return wire

    def generate(self, request: Request) -> ModelResponse:
        """Send ``request`` and return the reply; raises ``ModelCallError`` naming the step on failure."""
        return response_from_sdk(self.send(request))


def _status_text(error: Any) -> str:
    kind = f" {error.type}" if error.type else ""
    said = error.api_message or str(error)
    request_id = f" (request id {error.request_id})" if error.request_id else ""
    return f"the Anthropic API answered {error.status_code}{kind}: {said}{request_id}"


# --- replay -------------------------------------------------------------------------------


class ReplayMiss(LookupError):
    """A request a recorded run holds no reply for; the message names the step and what differs."""

    def __init__(self, step: int | None, what: str, *, message_index: int | None = None) -> None:
        super().__init__(f"{_step_name(step)}: {what}")
        self.step = step
        """The index of the step being decided, when the request said."""
        self.message_index = message_index
        """The first message that differs from the recorded request, when that is what differs."""


class ReplayModel:
    """A model that answers from a recorded run's model calls, looked up by the request's replay key.

    Calls recorded with the same key are answered in file order. A miss raises
    ``ReplayMiss``: when the request says its step, the recorded request for that step is
    rendered again from the recorded steps (with ``options``, the run's own by default) and
    the first differing message, or the differing field, is named. ``max_tokens`` is the
    output cap the recorded requests asked for, the run header's ``max_output_tokens`` by
    default; a miss names it when it differs.
    """

    def __init__(self, run: Run, *, options: render.Options | None = None, max_tokens: int | None = None) -> None:
        self.run = run
        """The recorded run the replies come from."""
        self.model = run.model
        """The model requests without one are taken to be for: the run's."""
        self.options = options
        """How the recorded requests were rendered; ``run.options()`` when ``None``."""
        self._max_tokens = max_tokens if max_tokens is not None else (run.max_output_tokens or None)
        self._replies: dict[str, deque[ModelCall]] = {}
        for call in run.model_calls:
            if call.request_key:
                self._replies.setdefault(call.request_key, deque()).append(call)

    def request(self, request: Request) -> Request:
        """``request`` with the run's model filled in when it names none."""
        return request if request.model else replace(request, model=self.model)

    def generate(self, request: Request) -> ModelResponse:
        """The recorded reply to ``request``; raises ``ReplayMiss`` when the run holds none."""
        return self.answer(request).response

    def send(self, request: Request) -> Mapping[str, Any]:
        """The recorded reply to ``request`` as its record holds it; raises ``ReplayMiss`` when there is none."""
        return self.answer(request).wire_response

    def answer(self, request: Request) -> ModelCall:
        """The recorded call that answers ``request`` (its reply, latency and record)."""
        request = self.request(request)
        queue = self._replies.get(request.replay_key)
        if queue:
            return queue.popleft()
        raise self._miss(request)

    def _miss(self, request: Request) -> ReplayMiss:
        step = request.step
        if step is None:
            return ReplayMiss(step, "no recorded model call has this request's replay key (the step is unknown)")
        try:
            recorded = [call for call in self.run.calls_for(step) if call.request_key]
        except IndexError:  # an agent gone past the run's steps: the run recorded no call for it
            recorded = []
        if not recorded:
            return ReplayMiss(step, f"the recorded run made no model call for step {step}")
        options = self.options if self.options is not None else self.run.options()
        then = render.messages(self.run.step_input(at=step), options)
        then_wire = [message.to_dict() for message in then]
        now_wire = [message.to_dict() for message in request.messages]
        for i, (was, now) in enumerate(zip(then_wire, now_wire, strict=False)):
            if was != now:
                return ReplayMiss(
                    step,
                    f"the request differs from the recorded one at message {i} ({now['role']}): "
                    f"recorded {_short(was)}, now {_short(now)}",
                    message_index=i,
                )
        if len(then_wire) != len(now_wire):
            i = min(len(then_wire), len(now_wire))
            return ReplayMiss(
                step,
                f"the request has {len(now_wire)} messages, the recorded one {len(then_wire)}; "
                f"they differ from message {i}",
                message_index=i,
            )
        fields: dict[str, tuple[Any, Any]] = {
            "model": (self.run.model, request.model),
            "system": (self.run.system, request.system),
            "tools": ([dict(t) for t in self.run.tools], [dict(t) for t in request.tools]),
        }
        if self._max_tokens is not None:
            fields["max_tokens"] = (self._max_tokens, request.max_tokens)
        differing = [
            f"{name} (recorded {_short_value(was)}, now {_short_value(now)})"
            for name, (was, now) in fields.items()
            if was != now
        ]
        if differing:
            return ReplayMiss(step, f"the messages match the recorded request but {'; '.join(differing)} differ")
        return ReplayMiss(
            step,
            "the messages match a render of the recorded steps, yet no recorded call has this key: "
            "the recorded calls were made with other settings (max_tokens?) or other render options",
        )


def _short(wire: Mapping[str, Any], limit: int = 300) -> str:
    return render.truncate(display(wire, indent=None), limit)


def _short_value(value: Any, limit: int = 300) -> str:
    return render.truncate(repr(value), limit)
