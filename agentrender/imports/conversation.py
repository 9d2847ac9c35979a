"""A conversation in the Messages API's shape, made into the records of a run that renders it as it was sent.

Every importer turns its format into the same thing: the messages an agent sent (the
Anthropic Messages API's wire shape), the request around them (system, tools, model, output
cap), and the model calls it logged. ``conversation_records`` makes the run's records from
them; ``agentrender.runfile.read_records`` reads those records as ``load_run`` reads a file,
so an imported run is checked as a recorded one is and writes to a run file as it is.

A conversation maps onto the render contract this way:

- the first message (a user turn) is the opening, kept as its blocks;
- each assistant turn and the user turn that answers it are one step: the decision is
  ``render.decide`` of the assistant turn, the observation the ``tool_result`` that answers
  its first tool use (its text; ``error`` when ``is_error``); the step record keeps both turns
  exactly as sent (``"sent"``), with the id of the first tool use;
- a last assistant turn with nothing after it is a step with no observation: the reply to the
  last request, which was received, not sent.

``Run.options()`` of such a run replays the recorded ids and turns, so the view at step
``k`` is exactly the ``messages`` of the request that decided step ``k``. Standard library only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import pairwise
from typing import Any, NoReturn

from agentrender import render
from agentrender._types import check_block, utf8_bytes
from agentrender.runfile import FORMAT_SENT, RunFileError, RunWarning, decision_record
from agentrender.runfile.sent import result_text

__all__ = ["Summariser", "Where", "conversation_records", "first_line_summary", "normalise_messages"]


class Where:
    """Where in the input a value was found, for errors and warnings: the file, the line and the field."""

    def __init__(self, path: str, line: int = 1, field: str = "") -> None:
        self.path, self.line, self.field = path, line, field

    def at(self, field: str) -> Where:
        """The same place, one field deeper (``messages[3]`` then ``messages[3].content``)."""
        joined = f"{self.field}{field}" if field.startswith("[") or not self.field else f"{self.field}.{field}"
        return Where(self.path, self.line, joined)

    def error(self, what: str) -> RunFileError:
        """The error for a value found here that cannot be read."""
        return RunFileError(self.path, self.line, f"{self.field}: {what}" if self.field else what)

    def warning(self, what: str) -> RunWarning:
        """A warning about a value found here that was read but could not be mapped."""
        return RunWarning(line=self.line, text=f"{self.field}: {what}" if self.field else what, path=self.path)


def normalise_messages(messages: Any, where: Where) -> list[dict[str, Any]]:
    """The messages with string content as one text block, each block read as the API has it.

    Raises ``RunFileError`` naming the message and field that is not a message: a role other
    than ``user``/``assistant``, content neither text nor a list of blocks, a block without a
    type, a field of a known block of the wrong type, a tool use whose input is not an object.
    """
    if not isinstance(messages, list):
        raise where.error(f"expected a list of messages, got {type(messages).__name__}")
    out = []
    for i, message in enumerate(messages):
        if type(message) is not dict:
            if not isinstance(message, Mapping):
                raise where.at(f"[{i}]").error(f"expected a message object, got {type(message).__name__}")
            message = dict(message)
        role = message.get("role")
        if role != "user" and role != "assistant":
            raise where.at(f"[{i}]").at("role").error(f"expected 'user' or 'assistant', got {role!r}")
        content = message.get("content")
        if type(content) is str:
            out.append({**message, "content": [{"type": "text", "text": content}]})
            continue
        if type(content) is not list:
            got = type(content).__name__
            raise where.at(f"[{i}]").at("content").error(f"expected text or a list of blocks, got {got}")
        for j, block in enumerate(content):
            try:
                check_block(block)
            except ValueError:
                _block_error(block, where.at(f"[{i}]"), j)
            # the API's own tool uses carry an object; raw argument text is what other providers send
            # (an OpenAI-style chat's arguments that are not JSON), which render.decide keeps out of band
            if block["type"] in _USES and not isinstance(block.get("input"), Mapping | str):
                _block_error(block, where.at(f"[{i}]"), j)
        out.append(message)
    return out


def _block_error(block: Any, here: Where, j: int) -> NoReturn:
    """Raise the error for the ``j``-th block of the message at ``here``, naming its field."""
    try:
        check_block(block, f"content[{j}]")
    except ValueError as error:
        raise Where(here.path, here.line).error(f"{here.field}.{error}") from None
    got = "missing" if "input" not in block else f"got {type(block['input']).__name__}"
    raise here.at(f"content[{j}].input").error(f"expected an object (the tool's input) or its raw text, {got}")


_USES = ("tool_use", "server_tool_use")
"""The blocks that call a tool: the API takes their ``input`` only as an object."""


_REQUEST_FIELDS: tuple[tuple[str, type | tuple[type, ...], str], ...] = (
    ("model", str, "a string"),
    ("system", (str, list), "a string or a list of text blocks"),
    ("tools", list, "a list of tool definitions"),
    ("max_tokens", int, "an integer"),
)
"""The fields of a request the run's header keeps, with the type the API takes."""


def first_line_summary(content: str) -> str:
    """A summary for a result its tool did not summarise: its first non-blank line, and its size.

    ``"Traceback (most recent call last): … (2,345 bytes, 40 lines)"``; ``""`` for an empty result.
    """
    if not content:
        return ""
    lines = content.splitlines()
    first = next((line.strip() for line in lines if line.strip()), "")
    size = f"({utf8_bytes(content):,} bytes, {len(lines):,} line{'s' if len(lines) != 1 else ''})"
    first = render.truncate(first, 200)
    return f"{first} … {size}" if len(lines) > 1 or first != content else f"{first} {size}"


Summariser = Callable[[str], str]


def conversation_records(
    messages: Sequence[Mapping[str, Any]],
    *,
    where: Where,
    run_id: str,
    source: Mapping[str, Any],
    request: Mapping[str, Any] | None = None,
    calls: Iterable[Mapping[str, Any]] = (),
    final: Mapping[str, Any] | None = None,
    summarise: Summariser | None = None,
    warnings: list[RunWarning] | None = None,
) -> list[dict[str, Any]]:
    """The records of a run that renders ``messages`` exactly as they were sent.

    ``messages`` are normalised (``normalise_messages``); ``request`` holds the rest of the
    request (``system``, ``tools``, ``model``, ``max_tokens`` and any other parameter, kept in
    the header); ``calls`` are model-call records already made (a call log's); ``final`` is
    the reply to the last request (a ``Message`` object), made the last step when the
    conversation ends on a user turn. ``summarise`` fills each result's summary (the header
    names it); without one, results carry none, as the conversation recorded none.
    ``warnings`` collects what was read but could not be mapped (``RunWarning``s, with where it was).
    """
    request = dict(request or {})
    if not messages:
        raise where.error("the conversation has no messages")
    if messages[0]["role"] != "user":
        raise where.at("[0].role").error("a conversation starts with a user turn (the opening)")
    turns = list(messages)
    if final is not None:
        if turns[-1]["role"] != "user":
            raise where.error("a reply was given, but the conversation does not end on a user turn")
        turns.append({"role": "assistant", "content": list(final.get("content") or [])})
    roles = [turn["role"] for turn in turns]
    i = next((i for i, (before, role) in enumerate(pairwise(roles), start=1) if before == role), 0)
    if i:
        raise where.at(f"[{i}].role").error(
            f"two {turns[i]['role']} turns in a row (messages[{i - 1}] and [{i}]): the API would merge them, "
            "so they cannot be rendered as sent; join their content into one turn"
        )
    # the request's own fields are named as the request has them (a call log's under "request.")
    prefix = where.field.rsplit("messages", 1)[0] if where.field.endswith("messages") else ""
    for key, expected, what in _REQUEST_FIELDS:
        value = request.get(key)
        if key in request and (not isinstance(value, expected) or isinstance(value, bool)):
            raise Where(where.path, where.line, f"{prefix}{key}").error(f"expected {what}, got {type(value).__name__}")
    for i, tool in enumerate(request.get("tools") or ()):
        if not isinstance(tool, Mapping):
            raise Where(where.path, where.line, f"{prefix}tools[{i}]").error(
                f"expected a tool definition (an object), got {type(tool).__name__}"
            )
    system = request.get("system")
    if isinstance(system, list):
        for i, block in enumerate(system):
            if not isinstance(block, Mapping) or not isinstance(block.get("text"), str):
                raise Where(where.path, where.line, f"{prefix}system[{i}]").error(
                    f"expected a text block ({{'type': 'text', 'text': ...}}), got {block!r:.80}"
                )
    opening = turns[0]["content"]
    opening_text = "\n".join(block["text"] for block in opening if block.get("type") == "text")
    header: dict[str, Any] = {
        "type": "run",
        "format": FORMAT_SENT,
        "run_id": run_id,
        "goal": opening_text,
        "opening": opening_text,
        "opening_content": opening,
        "source": dict(source),
    }
    for key, name in (
        ("system", "system"),
        ("model", "model"),
        ("tools", "tools"),
        ("max_tokens", "max_output_tokens"),
    ):
        if key in request:
            header[name] = request.pop(key)
    request.pop("messages", None)
    if request:
        header["request"] = request
    if summarise is not None:
        header["summariser"] = getattr(summarise, "__name__", repr(summarise))
    records: list[dict[str, Any]] = [header]
    for index, start in enumerate(range(1, len(turns), 2)):
        assistant = turns[start]["content"]
        user = turns[start + 1]["content"] if start + 1 < len(turns) else None
        records.append(
            _step_record(
                index, assistant, user, where.at(f"[{start}]"), summarise, warnings if warnings is not None else []
            )
        )
    records.extend(dict(call) for call in calls)
    return records


def _step_record(
    index: int,
    assistant: list[dict[str, Any]],
    user: list[dict[str, Any]] | None,
    where: Where,
    summarise: Summariser | None,
    warnings: list[RunWarning],
) -> dict[str, Any]:
    uses = [block for block in assistant if block["type"] == "tool_use"]
    decision = render.decide_blocks(assistant, "tool_use" if uses else "end_turn")
    first_id = str(uses[0].get("id", "")) if uses else ""
    sent: dict[str, Any] = {"tool_use_id": first_id, "assistant": assistant}
    record: dict[str, Any] = {"type": "step", "index": index, "decision": decision_record(decision)}
    if user is not None:
        sent["user"] = user
        answered = {block.get("tool_use_id"): block for block in user if block.get("type") == "tool_result"}
        missing = [str(use.get("id")) for use in uses if use.get("id") not in answered]
        if missing:
            warnings.append(where.warning(f"tool use(s) {', '.join(missing)} have no tool_result in the next turn"))
        if summarise is not None and answered:
            sent["summaries"] = {
                str(key): summarise(result_text(block.get("content", ""))) for key, block in answered.items()
            }
        result = answered.get(first_id) if uses else None
        if result is not None:
            content = result_text(result.get("content", ""))
            observation = {"status": "error" if result.get("is_error") else "ok", "content": content}
            if summarise is not None:
                observation["summary"] = summarise(content)
            record["observation"] = observation
    record["sent"] = sent
    return record
