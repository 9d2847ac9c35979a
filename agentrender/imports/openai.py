"""OpenAI-style chats (Chat Completions ``messages``), as runs in the Messages API's shape.

``from_openai(source)`` takes, from a dict or list, a ``.json`` file or a ``.jsonl`` file:

- a bare ``messages`` list, or a request body (``{"model", "messages", "tools", ...}``), as
  LiteLLM, LangChain's OpenAI adapters and most agent logs keep them; a LiteLLM log that
  holds the request's ``messages`` and its ``response`` (``choices[0].message``) gives the
  reply as the last step, and as its model call (``finish_reason`` as a stop reason). The
  run's request is what the model was sent: the fields of a Chat Completions request (the
  openai SDK's ``CompletionCreateParams``), wherever the log holds them (beside the messages,
  under ``request``, or an OpenHands log's ``kwargs``); any other field there (a log's own, such
  as a gateway's ``backing_model``) is kept in the run's ``source.log``, and named in a warning
  unless it is one the importer knows (an OpenHands log's ``cost``, ``timestamp``, ...);
- LangChain message dicts (``{"type": "human" | "ai" | "system" | "tool", "data": {...}}``,
  as ``messages_to_dict`` writes them, or the flat ``model_dump`` form);
- a SWE-agent trajectory (``.traj``): its ``history`` (messages with ``message_type``,
  ``tool_calls`` and ``tool_call_ids``); its ``info`` and ``trajectory`` are kept in the run's
  source, and a step of the trajectory whose reply the history does not hold is named in a warning;
- a mini-swe-agent trajectory (``.traj.json``, ``trajectory_format`` ``mini-swe-agent-1.1``): its
  ``messages``; the ``exit`` message it ends on (how the run ended, never sent) and its ``info``
  are kept in the run's source, and make its end; the completion mini-swe-agent 2.x keeps of each
  reply (its message's ``extra.response``) is the model call of the reply's step (its id, model,
  ``finish_reason`` as a stop reason, token counts), at the line of the file its id is on; each
  step has the times its messages record (``extra.timestamp``, seconds since 1970): it started
  when its reply was written and ended when the last output sent after it was (a timestamp that
  is no time is named in a warning, and gives no step its time);
- a ``.jsonl`` file of messages, one a line, or of requests, one a line (then the longest
  conversation is the run).

The conversation is converted to the wire shape of the Anthropic Messages API, the shape
every instrument here reads: system messages before the conversation become ``system`` (one
sent after it began is text of the user turn it was sent in, with a warning); an assistant's
``tool_calls`` become ``tool_use`` blocks whose ``input`` is the parsed ``arguments`` (text
that is not a JSON object is kept as it is, and ``render.decide`` shows it as invalid
arguments); consecutive ``role: tool`` messages become one user turn of ``tool_result``
blocks, which come first in their turn (a system or user message sent between a call and its
result is shown after the results, with a warning); ``image_url`` parts become image blocks
(a ``data:`` URL as base64, any other URL as a URL source); the legacy ``function_call`` and
``role: function`` become a tool use and its result with ids made from their position. What
has no counterpart (audio and file parts, refusals, reasoning text) is kept in the run's
``source`` (``unmapped``, by where it was) and named in a warning; fields a message carries
beside what was sent (SWE-agent's ``message_type``, ``thought``, ``agent``; a tool call's
``index``) are kept there too. The run's ``source`` says it was converted: "as sent" means
as sent, in the Messages API's shape. Every message is checked when the chat is imported (an
error names its file, line and field); each turn's blocks are made when its step is first
read, so an import costs about what parsing the file does.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import msgspec
from msgspec import UNSET, UnsetType

from agentrender._json import type_name
from agentrender._words import clipped, first_few, plural, shown
from agentrender.imports.conversation import (
    MadeTurns,
    Summariser,
    Where,
    body_decoder,
    check_blocks,
    checked_run,
    instructed_warnings,
    is_time,
    model_call,
    own_copy,
    read_json_values,
    request_body,
    results_first,
    time_of,
    tool_input,
    unanswered_warning,
)
from agentrender.imports.shapes import LANGCHAIN_ROLES, OPENAI_REQUEST_KEYS, looks_like_tau_bench
from agentrender.runfile import Run, RunWarning, RunWarnings
from agentrender.runfile.schema import is_count

__all__ = [
    "chat_request",
    "from_openai",
    "from_tau_bench",
    "url_image",
]

CONVERTED = (
    "converted from an OpenAI-style chat to the Messages API's shape: system messages before the conversation as the "
    "system prompt, later ones as text where they were sent, tool_calls as tool_use blocks, tool messages as "
    "tool_result blocks"
)
"""What an imported chat's ``source.converted`` says."""

_ROLES = ("system", "developer", "user", "assistant", "tool", "function")
# Fields of a message that the conversion maps; any other is kept in the run's source.
_MAPPED = {"role", "content", "tool_calls", "tool_call_id", "tool_call_ids", "function_call"}
_DATA_URL = re.compile(r"data:(?P<media>[\w.+-]+/[\w.+-]+)?(?P<params>(?:;[^;,]*)*?);base64,(?P<data>.*)", re.DOTALL)
# The fields of a tool call, and of its function, that the conversion maps.
_CALL_KEYS = frozenset(("id", "type", "function"))
_FUNCTION_KEYS = frozenset(("name", "arguments"))
# The fields of the messages nearly every chat is made of, checked at once and made into blocks when their
# turn is first read (_Converter._quick, _quick_blocks); a message with a field of _READ_WHOLE that is not
# null is read whole, as is one of another shape.
_QUICK_FIELDS = {
    "user": frozenset(("role", "content")).issuperset,
    "assistant": frozenset(("role", "content", "tool_calls")).issuperset,
    "tool": frozenset(("role", "content", "tool_call_id")).issuperset,
}
_call_has_only = _CALL_KEYS.issuperset
_function_has_only = _FUNCTION_KEYS.issuperset
_READ_WHOLE = frozenset(("thinking_blocks", "refusal", "reasoning_content", "function_call", "tool_call_ids"))


def from_openai(source: Any, *, run_id: str | None = None, summarise: Summariser | None = None) -> Run:
    """A run of an OpenAI-style chat, converted to the Messages API's shape, that renders it as it was sent.

    ``source`` is a dict or list as described in the module, or a path to a ``.json``,
    ``.traj`` or ``.jsonl`` file holding one. ``summarise`` (e.g. ``imports.first_line_summary``)
    gives each result a summary, for the view under the contract's window. Raises
    ``RunFileError`` naming the file, line and field of what cannot be read; what is read
    but has no counterpart in the Messages API is a warning on the run.
    """
    warnings: list[RunWarning] = RunWarnings()  # alike warnings counted as made
    typed = None
    if isinstance(source, str | os.PathLike):
        path = os.fspath(source)
        name = Path(path).name
        origin: dict[str, Any] = {"format": "openai-chat", "path": path}
        typed = _typed_chat(path, warnings)
        values = read_json_values(path, warnings) if typed is None else []
    else:
        path, name = "<openai>", "conversation"
        values = [(1, own_copy(source, path))]  # checked to be JSON, and never shared with the caller
        origin = {"format": "openai-chat"}
    chat, where = _chat(values, path, warnings) if typed is None else (typed, Where(path, 1, "messages"))
    return _chat_run(chat, where, warnings, origin, run_id or name, summarise)


def _chat_run(
    chat: dict[str, Any],
    where: Where,
    warnings: list[RunWarning],
    origin: dict[str, Any],
    run_id: str,
    summarise: Summariser | None,
    *,
    end: Mapping[str, Any] | None = None,
) -> Run:
    """The run of one chat (``_one_chat``'s shape) read at ``where``; ``end``: how it ended, when its source says
    so beside the chat (else a trajectory's own end, if it has one)."""
    chat = _without_exits(chat)
    converter = _Converter(where, warnings)
    turns, system = converter.convert(chat)
    request = dict(chat.get("request") or {})
    if system:
        request["system"] = system
    if converter.extra:
        origin["unmapped"] = converter.extra
    if chat.get("kind"):
        origin["format"] = chat["kind"]
    if chat.get("trajectory") is not None:
        origin["trajectory"] = chat["trajectory"]
    for key in ("info", "log", "exit"):
        if chat.get(key) is not None:
            origin[key] = chat[key]
    kept = (chat.get("response") or {}).get("kept")
    if kept:
        # the completion around the reply: not a step, but what the provider said of it
        origin["response"] = kept
        if "other_choices" in kept:
            others = len(kept["other_choices"])
            warnings.append(
                chat["response"]["choices"].warning(
                    f"{others} other choice(s): only the first is the reply, "
                    "the others are kept in source.response.other_choices"
                )
            )
    origin["converted"] = CONVERTED
    if not turns:
        raise where.error("the conversation has no user or assistant messages")
    if turns.roles[0] != "user":
        raise where.at("[0].role").error("a conversation starts with a user turn (the opening)")
    if not turns[0]["content"]:
        raise where.error("the first user message is empty: there is no opening to render")
    # the turns alternate (a role that repeats joins the turn before), and unanswered tool uses were warned of
    for missing in (_refused_replies(chat, where), _steps_not_in_history(chat, where)):
        if missing is not None:
            warnings.append(missing)
    trajectory = chat.get("trajectory")
    info = trajectory.get("info") if isinstance(trajectory, Mapping) else None
    exits = chat.get("exit") or []
    reply_call = (
        _reply_call(chat["response"], turns, converter.reply_step) if converter.reply_step is not None else None
    )
    calls, call_lines = _trajectory_calls(chat, turns, where)
    if reply_call is not None:
        # at the line its id is on: a document's reply may be a line of its own (a log written indented)
        line = [where.line] if chat.get("one_line") else _lines_of_ids(where, [reply_call["response"]["id"]])
        calls, call_lines = [*calls, reply_call], [*call_lines, *line]
    return checked_run(
        turns,
        where=where,
        run_id=run_id,
        source=origin,
        request=request,
        calls=calls,
        call_lines=call_lines,
        summarise=summarise,
        warnings=warnings,
        end=end if end is not None else _swe_agent_end(info if isinstance(info, Mapping) else {}, exits),
    )


def _reply_call(response: Mapping[str, Any], turns: _Turns, step: int) -> dict[str, Any] | None:
    """The ``model_call`` record of a chat's reply (its ``response``, read as the chat's last turn, which decided
    ``step``), in the Messages API's shape: its blocks, its ``finish_reason`` as a stop reason, its token counts
    (the prompt's tokens read from the cache apart from its ``input_tokens``, as the Messages API counts them).
    ``None`` when the response is a bare message, which says none of these: the turn is then the whole reply."""
    kept = response.get("kept")
    if not kept:
        return None
    return model_call(
        step,
        turns[len(turns) - 1]["content"],
        reply_id=kept.get("id"),
        model=kept.get("model"),
        finish=kept.get("choices[0].finish_reason"),
        usage=_token_counts(kept.get("usage")),
    )


def _token_counts(usage: Any) -> dict[str, Any] | None:
    """A completion's ``usage`` as the Messages API counts tokens (the prompt's tokens read from the cache apart from
    its ``input_tokens``), the counts it gives; ``None`` when it gives no ``usage``."""
    if not isinstance(usage, Mapping):
        return None
    prompt, cached = usage.get("prompt_tokens"), None
    details = usage.get("prompt_tokens_details")
    if isinstance(details, Mapping) and is_count(details.get("cached_tokens")) and is_count(prompt):
        # OpenAI counts the prompt's tokens read from the cache among prompt_tokens; the Messages API apart
        cached = details["cached_tokens"] if details["cached_tokens"] <= prompt else None
    given = {
        "input_tokens": prompt - cached if cached is not None else prompt,
        "output_tokens": usage.get("completion_tokens"),
        # LiteLLM's, from a provider that caches (Anthropic's): the Messages API's own names
        "cache_read_input_tokens": usage.get("cache_read_input_tokens", cached),
        "cache_creation_input_tokens": usage.get("cache_creation_input_tokens"),
    }
    return {key: count for key, count in given.items() if is_count(count)}


def _trajectory_calls(chat: Mapping[str, Any], turns: _Turns, where: Where) -> tuple[list[dict[str, Any]], list[int]]:
    """The model calls of a mini-swe-agent trajectory, and the line of the file each one's reply is at.

    mini-swe-agent (2.x) keeps the completion of each reply it appends, under its message's ``extra.response``: its
    id, model, finish reason and token counts. Each is the model call of the step its reply's turn decided, its
    reply that turn, as ``_reply_call`` reads a chat's reply. A reply kept without one (a message of another agent,
    an older trajectory's) is no model call. The line is the one the completion's id is on in the file (which
    mini-swe-agent writes indented), else the trajectory's.
    """
    if chat.get("kind") != "mini-swe-agent-trajectory":
        return [], []
    messages = chat["messages"]
    calls: list[dict[str, Any]] = []
    for step, turn in enumerate(t for t, role in enumerate(turns.roles) if role == "assistant"):
        completion = next(filter(None, map(_kept_completion, (messages[i] for i in turns.messages_of(turn)))), None)
        if completion is not None:
            finish = completion["choices"][0].get("finish_reason")
            counts = _token_counts(completion.get("usage"))
            reply_id, model = completion.get("id"), completion.get("model")
            content = turns[turn]["content"]
            calls.append(model_call(step, content, reply_id=reply_id, model=model, finish=finish, usage=counts))
    return calls, _lines_of_ids(where, [call["response"]["id"] for call in calls])


def _kept_completion(message: Any) -> Mapping[str, Any] | None:
    """The completion a mini-swe-agent message keeps of its reply (``extra.response``, holding ``choices``), else
    ``None``."""
    extra = message.get("extra") if isinstance(message, Mapping) else None
    response = extra.get("response") if isinstance(extra, Mapping) else None
    if not isinstance(response, Mapping):
        return None
    choices = response.get("choices")
    return response if isinstance(choices, list) and choices and isinstance(choices[0], Mapping) else None


def _lines_of_ids(where: Where, ids: Sequence[str]) -> list[int]:
    """The line of the file at ``where`` each id is on, the ids found in their order; an id that is none, or not
    found, is at the line of ``where``, as is every id of a chat given as a value (no file)."""
    try:
        data = Path(where.path).read_bytes() if ids else b""
    except OSError:
        data = b""
    lines: list[int] = []
    at, line = 0, 1  # a place in the file's bytes (searched as bytes: an id as JSON is ASCII), and its line
    for reply_id in ids:
        found = data.find(json.dumps(reply_id).encode("ascii"), at) if reply_id and data else -1
        if found < 0:
            lines.append(where.line)
            continue
        line += data.count(b"\n", at, found)
        at = found
        lines.append(line)
    return lines


# SWE-agent's exit statuses: ``submitted`` is done; an error (``exit_error``, ``exit_format``, ``exit_api``,
# ``exit_environment_error``) is a failure; any other (a cost, context, time or step limit: ``exit_cost``,
# ``submitted (exit_context)``, ``early_exit``, ...) stopped the run. mini-swe-agent's are ``Submitted``,
# ``LimitsExceeded``, or the name of the exception that ended the run (its ``exit`` message then holds
# ``exception_str`` and ``traceback``: a failure). The status is the end's reason, as written.
_SWE_AGENT_FAILURES = ("error", "format", "api", "environment")


def _swe_agent_end(info: Mapping[str, Any], exits: Sequence[Any] = ()) -> dict[str, Any] | None:
    """The run's ``end`` record from a trajectory's ``info`` (SWE-agent's, mini-swe-agent's; kept whole in the
    source) and the ``exit`` messages mini-swe-agent ends one on: the ``exit_status`` (the info's, else the last
    exit message's), or a ``submission`` alone; ``None`` when they say neither. An exception that ended the run
    (an exit message's ``exception_str``) is the end's ``error``."""
    said: Mapping[str, Any] = next(
        (message["extra"] for message in reversed(exits) if isinstance(message.get("extra"), Mapping)), {}
    )
    status = info.get("exit_status") or said.get("exit_status")
    if not isinstance(status, str) or not status:
        submitted = info.get("submission") or said.get("submission")
        return {"type": "end", "status": "completed", "reason": "submitted"} if submitted else None
    exception = info.get("exception_str") or said.get("exception_str")
    if status.lower() == "submitted":
        kind = "completed"
    elif exception or any(word in status.lower() for word in _SWE_AGENT_FAILURES):
        kind = "failed"
    else:
        kind = "stopped"
    end = {"type": "end", "status": kind, "reason": status}
    if kind == "failed" and isinstance(exception, str) and exception.strip():
        end["error"] = exception.strip().splitlines()[0]
    return end


def _refused_replies(chat: Mapping[str, Any], where: Where) -> RunWarning | None:
    """The warning for the model's replies a mini-swe-agent trajectory does not hold, else ``None``.

    mini-swe-agent refuses a reply it cannot act on (a ``FormatError``: no tool call, or one it cannot parse) and
    sends back only an error, a user message whose ``extra.interrupt_type`` says so; the reply is not kept. The
    views hold what was sent (the error, joined to the user turn before it), but no step or model call stands for
    the reply: the run has fewer calls than the model answered (``info.model_stats.api_calls`` counts them all).
    """
    if chat.get("kind") != "mini-swe-agent-trajectory":
        return None
    messages = chat["messages"]
    refused = [
        i
        for i, message in enumerate(messages)
        if isinstance(message, Mapping)
        and message.get("role") == "user"
        and isinstance(message.get("extra"), Mapping)
        and message["extra"].get("interrupt_type") == "FormatError"
    ]
    if not refused:
        return None
    info = (chat.get("trajectory") or {}).get("info")
    stats = info.get("model_stats") if isinstance(info, Mapping) else None
    calls = stats.get("api_calls") if isinstance(stats, Mapping) else None
    replies = sum(1 for message in messages if isinstance(message, Mapping) and message.get("role") == "assistant")
    counted = (
        f" (info.model_stats.api_calls: {calls:,}; the trajectory holds {plural(replies, 'reply', 'replies')})"
        if isinstance(calls, int) and not isinstance(calls, bool)
        else ""
    )
    shown = ", ".join(f"[{i}]" for i in refused[:6]) + (f" and {len(refused) - 6:,} more" if len(refused) > 6 else "")
    return where.at(f"[{refused[0]}]").warning(
        f"{plural(len(refused), 'reply', 'replies')} of the model that mini-swe-agent refused (FormatError) "
        f"{'is' if len(refused) == 1 else 'are'} not in the trajectory: it kept only the error it sent back, "
        f"the user message{'' if len(refused) == 1 else 's'} at messages{shown}, which the views hold; no step or "
        "model call stands for "
        f"{'it' if len(refused) == 1 else 'them'}{counted}"
    )


def _steps_not_in_history(chat: Mapping[str, Any], where: Where) -> RunWarning | None:
    """The warning for the steps of a SWE-agent trajectory whose reply its ``history`` does not hold, else ``None``.

    The run is the history, the messages the model was sent. SWE-agent 1.x does not write the step that ends the run
    (the model's last reply, its ``submit``) to the history, and a demonstration edited by hand can leave a step out
    of it: such a step's ``response`` is in the trajectory (kept in the run's source) and no step or model call
    stands for it. A step is in the history when an assistant message there holds its ``response``; only a
    trajectory of more steps than the history has replies is said to miss any (a demonstration whose step and
    history were reworded apart is not).
    """
    if chat.get("kind") != "swe-agent-trajectory":
        return None
    rest = chat.get("trajectory")
    steps = rest.get("trajectory") if isinstance(rest, Mapping) else None
    if not isinstance(steps, list):
        return None
    said = Counter(
        message["content"].strip()
        for message in chat["messages"]
        if isinstance(message, Mapping)
        and message.get("role") == "assistant"
        and isinstance(message.get("content"), str)
    )
    replies = sum(said.values())
    if len(steps) <= replies:
        return None
    missing = []
    for i, step in enumerate(steps):
        response = step.get("response") if isinstance(step, Mapping) else None
        text = response.strip() if isinstance(response, str) else None
        if text is not None and said[text] > 0:
            said[text] -= 1
        else:
            missing.append(i)
    if not missing:
        return None
    info = rest.get("info") if isinstance(rest, Mapping) else None
    stats = info.get("model_stats") if isinstance(info, Mapping) else None
    calls = stats.get("api_calls") if isinstance(stats, Mapping) else None
    counted = (
        f" (info.model_stats.api_calls: {calls:,}; the history holds {plural(replies, 'reply', 'replies')})"
        if isinstance(calls, int) and not isinstance(calls, bool) and calls > 0
        else f" (the history holds {plural(replies, 'reply', 'replies')})"
    )
    named = ", ".join(
        f"[{i}] {shown(steps[i].get('action'), 60)}" if isinstance(steps[i], Mapping) else f"[{i}]" for i in missing[:6]
    ) + (f" and {len(missing) - 6:,} more" if len(missing) > 6 else "")
    one = len(missing) == 1
    return Where(where.path, where.line, f"trajectory[{missing[0]}]").warning(
        f"{plural(len(missing), 'step')} of the trajectory ({named}) {'is' if one else 'are'} not in the history: "
        f"the model's reply of {'that step' if one else 'those steps'} was not written to the messages the model was "
        f"sent, so no step or model call stands for {'it' if one else 'them'}; source.trajectory keeps "
        f"{'it' if one else 'them'}{counted}"
    )


def _without_exits(chat: dict[str, Any]) -> dict[str, Any]:
    """The chat without the messages of role ``exit`` it ends on, kept in its ``exit``: mini-swe-agent ends a
    trajectory on one, which says how the run ended (``extra.exit_status``, an exception's traceback) and was never
    sent to the model."""
    messages = chat["messages"]
    kept = len(messages)
    while kept and isinstance(messages[kept - 1], Mapping) and messages[kept - 1].get("role") == "exit":
        kept -= 1
    if kept == len(messages):
        return chat
    out = {**chat, "messages": messages[:kept], "exit": messages[kept:]}
    if chat.get("lines"):
        out["lines"] = chat["lines"][:kept]
    return out


def from_tau_bench(source: str | os.PathLike[str], *, summarise: Summariser | None = None) -> list[Run]:
    """The runs of a tau-bench results file (sierra-research/tau-bench: a JSON list of results, as its runs write
    them and its ``historical_trajectories`` keep them), one run per result, in the file's order.

    Each result's ``traj`` is the chat its tool-calling agent had (OpenAI's shape: a system prompt, the simulated
    user's turns, tool calls and tool messages), read as ``from_openai`` reads a chat. Its run is named
    ``<file's stem>/<task_id>/<trial>``; the result's ``reward``, ``info`` (the task, the reward's reasons) and
    ``trial`` are kept in the run's source. The episode ran to its end, its reward given: the run ended
    ``completed``, its reason the reward. A task that raised, written with no chat, makes no run, and a warning on
    every run names it (a file of no chat at all is refused, the error saying what tau-bench wrote of the first
    task); a task and trial written twice are named ``...#<place in the file>`` the second time. Raises
    ``RunFileError`` naming the file and the result of what cannot be read.
    """
    path = os.fspath(source)
    notes: list[RunWarning] = RunWarnings()
    values = read_json_values(path, notes)
    line, results = values[0] if len(values) == 1 else (values[0][0], None)
    where = Where(path, line, "")
    if not isinstance(results, list) or not looks_like_tau_bench(results):
        raise where.error("expected a list of tau-bench results (each with its task_id and its traj)")
    stem = Path(path).stem
    for number, result in enumerate(results):
        if not isinstance(result, Mapping) or not isinstance(result.get("traj"), list) or "task_id" not in result:
            raise where.at(f"[{number}]").error(
                "expected a tau-bench result: an object with its task_id and its traj (a list of messages)"
            )
    # a task that raised is written with no chat (traj [], info {"error": ...}): no run, and every run says so
    empty = [number for number, result in enumerate(results) if not result["traj"]]
    raised: list[str] = []  # what tau-bench wrote of each task of no chat that raised
    for number in empty:
        info = results[number].get("info")
        error = info.get("error") if isinstance(info, Mapping) else None
        task = f"task {shown(results[number]['task_id'])}"
        said = f"its error: {str(error)[:200]}" if error else "no error"
        notes.append(where.at(f"[{number}]").warning(f"{task} has no chat, so no run (tau-bench wrote {said})"))
        if error:
            raised.append(f"{task}: {said}")
    if len(empty) == len(results):
        # no run carries the warnings: the error says what tau-bench wrote of the first task that raised
        first = raised[0] if raised else f"task {shown(results[0]['task_id'])}: no error"
        more = f"; {len(empty) - 1} more task(s) of no chat" if len(empty) > 1 else ""
        raise where.error(f"no tau-bench result holds a chat, so no run (tau-bench wrote of {first}{more})")
    runs = []
    named: set[str] = set()
    for number, result in enumerate(results):
        if not result["traj"]:
            continue
        trial = result.get("trial")
        kept = {key: value for key, value in result.items() if key != "traj"}
        origin = {"format": "tau-bench", "path": path, "result": number, **kept}
        chat = {"messages": result["traj"], "field": f"[{number}].traj", "kind": "tau-bench"}
        reward = result.get("reward")
        end = {"type": "end", "status": "completed", "reason": f"reward {reward}" if reward is not None else "ended"}
        run_id = f"{stem}/{result['task_id']}/{trial if trial is not None else 0}"
        if run_id in named:  # a task and trial written twice: each run its own name, by its place in the file
            run_id = f"{run_id}#{number}"
        named.add(run_id)
        runs.append(
            _chat_run(chat, where.at(f"[{number}].traj"), RunWarnings(notes), origin, run_id, summarise, end=end)
        )
    return runs


def _chat(values: Sequence[tuple[int, Any]], path: str, warnings: list[RunWarning]) -> tuple[dict[str, Any], Where]:
    """The one chat in the values (``{"messages", "request", "response", "kind", "info"}``; ``one_line`` when it is one
    line of JSON Lines) and where it is."""
    if len(values) > 1:
        if all(isinstance(value, Mapping) and ("role" in value or "type" in value) for _, value in values):
            lines = [n for n, _ in values]
            return {"messages": [value for _, value in values], "lines": lines}, Where(path, lines[0], "")
        chats = [(line, _one_chat(value, Where(path, line, ""), warnings)) for line, value in values]
        line, chat = max(chats, key=lambda item: (len(item[1]["messages"]), item[0]))
        warnings.append(
            Where(path, line, "").warning(
                f"{len(chats)} requests in the file: the run is the longest conversation (line {line})"
            )
        )
        chat["one_line"] = True  # a line of JSON Lines holds the whole request, its reply too
        return chat, Where(path, line, chat.get("field", ""))
    line, value = values[0]
    chat = _one_chat(value, Where(path, line, ""), warnings)
    return chat, Where(path, line, chat.get("field", ""))


def _one_chat(value: Any, where: Where, warnings: list[RunWarning]) -> dict[str, Any]:
    if isinstance(value, list):
        return {"messages": value, "field": ""}
    if not isinstance(value, Mapping):
        raise where.error(f"expected a list of messages or an object holding them, got {type_name(value)}")
    form = value.get("trajectory_format")
    if "messages" in value and isinstance(form, str) and form.startswith("mini-swe-agent"):
        messages = value["messages"]
        if not isinstance(messages, list):
            raise where.at("messages").error(f"expected a list of messages, got {type_name(messages)}")
        # its info (exit status, submission, the agent's config) and the rest are kept as they are, in the source
        rest = {key: item for key, item in value.items() if key != "messages"}
        return {"messages": messages, "field": "messages", "kind": "mini-swe-agent-trajectory", "trajectory": rest}
    if "history" in value and "messages" not in value:
        history = value["history"]
        if not isinstance(history, list):
            raise where.at("history").error(f"expected a list of messages, got {type_name(history)}")
        # the rest of the trajectory (its steps, info, replay config) is kept as it is, in the source
        rest = {key: item for key, item in value.items() if key != "history"}
        return {"messages": history, "field": "history", "kind": "swe-agent-trajectory", "trajectory": rest}
    if "messages" in value and isinstance(value.get("kwargs"), Mapping):
        return _completion_log(value, where, warnings)
    request: Mapping[str, Any] = value
    if "messages" not in value:
        inner = next((value[key] for key in OPENAI_REQUEST_KEYS if key in value), None)
        if not isinstance(inner, Mapping) or "messages" not in inner:
            raise where.error("no 'messages' (a chat) and no 'history' (a SWE-agent trajectory): not an OpenAI chat")
        request = inner
    messages = request["messages"]
    field = "messages" if request is value else next(key for key in OPENAI_REQUEST_KEYS if key in value) + ".messages"
    if not isinstance(messages, list):
        raise where.at(field).error(f"expected a list of messages, got {type_name(messages)}")
    # what the chat's request is: the fields of a Chat Completions request; the others (a log's own: a gateway's
    # names for its model, ids, timing) are kept in the source, under the name of the request's field when inside it
    read = ("messages", "response", "info") if request is value else ("messages", "response")
    inside = field.removesuffix("messages").rstrip(".")
    parameters, others = _parted(
        {key: item for key, item in request.items() if key not in read},
        where.at(inside),
        warnings,
        prefix=f"{inside}." if inside else "",
    )
    out: dict[str, Any] = {
        "messages": messages,
        "field": field,
        "request": chat_request(parameters, where.at(inside), warnings),
    }
    response = value.get("response", request.get("response"))
    if response is not None:
        out["response"] = _response_message(response, where.at("response"))
    if "info" in value:
        out["info"] = value["info"]
    log = others
    if request is not value:
        # a log around the request (LiteLLM's: ids, cost, timing): kept as it is, in the source
        log = {key: item for key, item in value.items() if item is not request and key not in ("response", "info")}
        log.update(others)
    if log:
        out["log"] = log
    return out


def _completion_log(value: Mapping[str, Any], where: Where, warnings: list[RunWarning]) -> dict[str, Any]:
    """The chat of a completion log as the OpenHands agent-sdk writes one for each call (``log_completions``): the
    ``messages`` sent, the call's other parameters under ``kwargs`` (the request is those), its ``tools``, the reply
    and the log's own fields (``cost``, ``timestamp``, ``latency_sec``, ``context_window``), kept in the source.

    Where the agent called a model without function calling, it wrote the tools into the prompt and read the calls
    out of the reply's text: ``messages`` are still what was sent (the calls as text), ``raw_messages`` the agent's
    own form of them, ``response`` the reply as the agent read it (its calls as tool calls, ids it made), and
    ``raw_response`` the reply before it read it (``_model_reply``): the model's text, calls and all, as the earlier
    replies are in ``messages``. That is the reply, with the id, model and token counts of ``response`` (the raw one
    has none); ``response`` is kept in the source beside the raw fields. A raw reply whose tool calls were logged as
    empty objects (a call the model made natively, which the log lost) is not: the reply is then ``response``, and a
    warning says so.
    """
    messages = value["messages"]
    if not isinstance(messages, list):
        raise where.at("messages").error(f"expected a list of messages, got {type_name(messages)}")
    kwargs = value["kwargs"]
    parameters, out_log = _parted(
        {key: item for key, item in kwargs.items() if key != "messages"}, where.at("kwargs"), warnings, prefix="kwargs."
    )
    if "messages" in kwargs:  # the messages as the call's keywords held them too: kept, not read twice
        out_log["kwargs.messages"] = kwargs["messages"]
    logged = {"messages", "kwargs", "response"}
    response = value.get("response")
    raw = None
    if response is not None:
        raw = _model_reply(value.get("raw_response"), where.at("raw_response"), warnings)
        if raw is not None and isinstance(response, Mapping):
            logged.discard("response")  # the reply is the raw one: the agent's reading is kept in the source
    # a parameter beside kwargs (the tools, which the agent-sdk logs there) is the request's where kwargs lacks it
    top = {key: item for key, item in value.items() if key not in logged}
    parameters, log = _parted(top, where, warnings, request=parameters, known=_IN_REQUEST)
    out: dict[str, Any] = {
        "messages": messages,
        "field": "messages",
        "request": chat_request(parameters, where.at("kwargs"), warnings),
    }
    if response is not None:
        if "response" not in logged:
            # the model's own reply, in the completion the agent logged of it
            out["response"] = _response_message({**response, "choices": raw}, where.at("raw_response"))
        else:
            out["response"] = _response_message(response, where.at("response"))
    out["log"] = {**log, **out_log}
    return out


def _parted(
    fields: Mapping[str, Any],
    where: Where,
    warnings: list[RunWarning],
    *,
    prefix: str = "",
    request: dict[str, Any] | None = None,
    known: Collection[str] = (),
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(request, others)``: ``fields``, those of a chat's request or of the log that holds it (at ``where``), parted
    into what the model was sent, the fields of a Chat Completions request (``_API_FIELDS``, added to ``request``
    where it does not hold them already), and the others, in their order, each named ``prefix`` and its name, which
    the run keeps in its source (``source.log``). Those the importer does not know as a log's own (``_LOG_FIELDS``,
    and ``known``: a parameter given twice) are named in one warning: nothing the file holds is dropped, and nothing
    unknown is taken for what the model was sent."""
    request = {} if request is None else request
    others: dict[str, Any] = {}
    unknown = []
    for key, item in fields.items():
        if key in _IN_REQUEST and key not in request:
            request[key] = item
            continue
        others[prefix + key] = item
        if key not in _LOG_FIELDS and key not in known:
            unknown.append(clipped(key, 60))
    if unknown:
        warnings.append(
            where.warning(
                f"{plural(len(unknown), 'field')} beside the messages that OpenAI's Chat Completions request does "
                f"not have ({first_few(unknown)}): kept in source.log, not in the run's request (what the model was "
                "sent)"
            )
        )
    return request, others


def _model_reply(raw: Any, where: Where, warnings: list[RunWarning]) -> list[Any] | None:
    """The choices of a completion log's ``raw_response`` (the reply before the agent read calls out of its text),
    when its reply is whole: a message whose tool calls, if any, each name a function. ``None`` when the log has
    none, or (with a warning) when its tool calls were logged as empty objects."""
    choices = raw.get("choices") if isinstance(raw, Mapping) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        return None
    message = choices[0].get("message")
    if not isinstance(message, Mapping):
        return None
    calls = message.get("tool_calls") or []
    if not isinstance(calls, list):
        return None
    if all(isinstance(call, Mapping) and isinstance(call.get("function"), Mapping) for call in calls):
        return choices
    warnings.append(
        where.at("choices[0].message.tool_calls").warning(
            "the model's reply was logged with tool calls that are empty objects (lost when logged): the reply is "
            "the agent's reading of it (response)"
        )
    )
    return None


def chat_request(request: Mapping[str, Any], where: Where, warnings: list[RunWarning]) -> dict[str, Any]:
    """The request's parameters (a chat's, a Responses API request's) under the Messages API's names where they have
    one; the rest kept as they are.

    A parameter the run header would hold but of another type (a model that is not text, tools
    that are not a list of objects) is kept under ``openai_<name>`` in the request instead, with a
    warning. A tool with no function name (a provider's own, such as the Responses API's
    ``web_search``) is not among the run's tools, and a warning names it; every tool as given is
    kept in ``openai_tools``.
    """
    out = dict(request)
    if "max_completion_tokens" in out and "max_tokens" not in out:
        out["max_tokens"] = out.pop("max_completion_tokens")
    tools = out.get("tools")
    if isinstance(tools, list) and all(isinstance(tool, Mapping) for tool in tools):
        mapped = [_tool(tool) for tool in tools]
        for at, (tool, made) in enumerate(zip(tools, mapped, strict=True)):
            if made is None:  # a provider's own tool (the Responses API's web_search, file_search, ...)
                warnings.append(
                    where.at(f"tools[{at}]").warning(
                        f"a {shown(tool.get('type'))} tool with no function name has no counterpart in the Messages "
                        "API: not among the run's tools, kept in openai_tools"
                    )
                )
        kept = [tool for tool in mapped if tool is not None]
        if kept:
            out["tools"] = kept
        else:
            del out["tools"]
        out["openai_tools"] = tools  # as given (strict, and any other field), beside the mapped ones
    checks: dict[str, Callable[[Any], bool]] = {
        "model": lambda v: isinstance(v, str),
        "max_tokens": lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0,
        "system": lambda v: isinstance(v, str),
        "tools": lambda v: isinstance(v, list) and "openai_tools" in out,
    }
    for name, fits in checks.items():
        if name in out and not fits(out[name]):
            warnings.append(where.at(name).warning(f"not of the Messages API's shape: kept as openai_{name}"))
            out[f"openai_{name}"] = out.pop(name)
    return out


def _tool(tool: Mapping[str, Any]) -> dict[str, Any] | None:
    """A Chat Completions tool (or a Responses API function tool, its fields at the top) as the Messages API has it:
    ``parameters`` its ``input_schema``, ``strict`` its ``strict`` (the same promise, that the input follows the
    schema); ``None`` when it has no function name."""
    function = tool.get("function") if "function" in tool else tool
    if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
        return None
    out: dict[str, Any] = {"name": function["name"]}
    if isinstance(function.get("description"), str):
        out["description"] = function["description"]
    if isinstance(function.get("parameters"), Mapping):
        out["input_schema"] = dict(function["parameters"])
    if isinstance(function.get("strict"), bool):
        out["strict"] = function["strict"]
    return out


def _response_message(response: Any, where: Where) -> dict[str, Any]:
    """The reply a response holds: ``choices[0].message`` of a completion, or a message itself; and the rest of
    a completion (``kept``: its ``id``, ``model``, ``usage``, the reply's ``finish_reason``, its other choices),
    for the run's source."""
    if not isinstance(response, Mapping):
        raise where.error(f"expected a chat completion or a message, got {type_name(response)}")
    choices = response.get("choices")
    if choices is not None:
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
            raise where.at("choices").error("expected a list of choices holding the reply")
        message = choices[0].get("message")
        if not isinstance(message, Mapping):
            raise where.at("choices[0].message").error("missing: the reply")
        kept = {key: item for key, item in response.items() if key != "choices"}
        kept.update({f"choices[0].{key}": item for key, item in choices[0].items() if key != "message"})
        if len(choices) > 1:
            kept["other_choices"] = choices[1:]
        return {
            "message": dict(message),
            "where": where.at("choices[0].message"),
            "kept": kept,
            "choices": where.at("choices"),
        }
    return {"message": dict(response), "where": where}


class _Converter:
    """Turns OpenAI-style messages into Messages API turns; collects what has no counterpart."""

    def __init__(self, where: Where, warnings: list[RunWarning]) -> None:
        self.where = where
        self.warnings = warnings
        self.extra: dict[str, Any] = {}
        self.legacy_ids: list[str] = []
        self.legacy_made = 0
        self.lines: Sequence[int] | None = None
        self.roles: list[str] = []
        self.reply_step: int | None = None
        """The step the chat's reply (a ``response`` beside its messages) decided, once it is read as its last turn."""

    def convert(self, chat: Mapping[str, Any]) -> tuple[_Turns, str]:
        """``(turns, system)``: the turns of the chat (its reply last, when it has one), each made when first read.

        Every message is read and checked here; a message of the shapes nearly every chat is
        made of (``_quick``) is only checked, and its blocks are made with its turn's
        (``_Turns``); any other is read whole now (``_message``, ``_blocks``, ``_keep_extra``),
        its blocks checked. The tool uses each assistant turn leaves unanswered are warned of
        as the reading goes (``unanswered_warning``).

        A user turn holds its results first, as the Messages API takes a turn: when a result was sent after a
        message of the turn (a system message sent while the call ran), the turn is made with its results first and
        the texts after them (``_Turns``), and the messages sent before the result are named in a warning
        (``instructed_warnings``), with the system messages sent after the chat began.
        """
        messages = chat["messages"]
        read: dict[int, list[dict[str, Any]] | None] = {}  # blocks the whole reading made, by message (None: system)
        starts: list[int] = []  # the message each turn starts at
        roles = self.roles
        system: list[str] = []
        self.lines = chat.get("lines")
        quick = self._quick
        only_results = False  # the last turn holds only tool results
        uses: list[Any] = []  # the tool-use ids of the last assistant turn
        answered: list[Any] = []  # the ids of the results in the user turn after it
        role_of_last = None
        instructed = False  # the last message read was a system message sent after the chat began
        late: list[Where] = []  # where each system message sent after the chat began is
        said: list[int] = []  # the messages of the user turns that are not results (texts, late system messages)
        said_from = 0  # where the last user turn's are in ``said``
        moved: set[int] = set()  # the user turns with a result sent after a message of theirs: made results first
        before_output: dict[Where, None] = {}  # where each message sent before a result of its turn is
        for i, raw in enumerate(messages):
            kind = type(raw)
            was_instructed, instructed = instructed, False
            if kind is not dict and kind in _RECORDS:  # decoded as a record: checked already
                role, is_result = raw.role, kind is _ToolMessage
                if is_result:
                    role = "user"
                    answered.append(raw.tool_call_id)
                elif kind is _AssistantMessage:
                    called = [call.id for call in raw.tool_calls] if raw.tool_calls else []
                elif kind is _SystemMessage:
                    if not roles or not raw.content:  # before the chat: the system prompt's
                        system.append(raw.content)
                        read[i] = None
                        continue
                    role, read[i], instructed = "user", [{"type": "text", "text": raw.content}], True
                    late.append(self._here(i))
            elif (role := quick(raw, i)) is not None:
                is_result = role == "tool"
                if is_result:
                    role = "user"
                    answered.append(raw["tool_call_id"])
                elif role == "assistant":
                    calls = raw.get("tool_calls")
                    called = [call["id"] for call in calls] if calls else []
            else:
                here = self._here(i)
                message = self._message(raw, here)
                role = message["role"]
                if role in ("system", "developer"):
                    text = self._system_text(message.get("content"), here.at("content"))
                    self._keep_extra(message, here)
                    if not roles or not text:  # before the chat: the system prompt's
                        system.append(text)
                        read[i] = None
                        continue
                    role, read[i], is_result, instructed = "user", [{"type": "text", "text": text}], False, True
                    late.append(here)
                else:
                    is_result = role in ("tool", "function")
                    blocks, role = self._blocks(message, role, here)
                    self._keep_extra(message, here)
                    check_blocks(blocks, here.at("content"))
                    read[i] = blocks
                    if role == "assistant":
                        called = [block.get("id") for block in blocks if block["type"] == "tool_use"]
                    else:
                        answered.extend(block.get("tool_use_id") for block in blocks if block["type"] == "tool_result")
            if role == role_of_last:
                # Results and then the user's text are one user turn in the Messages API: expected; so is a system
                # message sent with them (text of that turn), and a result sent after a message of a turn that
                # answers a reply (shown first, and warned of).
                if is_result and not only_results and len(roles) > 1:
                    moved.add(len(roles) - 1)
                    before_output.update(dict.fromkeys(self._here(at) for at in said[said_from:]))
                elif not (only_results or instructed or was_instructed):
                    joined = f"two {role} turns in a row: joined into one turn, as the Messages API would"
                    self.warnings.append(self._here(i).warning(joined))
                only_results = only_results and is_result
                if role == "assistant":
                    uses.extend(called)
                elif not is_result:
                    said.append(i)
                continue
            if role == "assistant":
                if len(roles) >= 2 and (warning := unanswered_warning(self.where, len(roles) - 2, uses, answered)):
                    self.warnings.append(warning)
                uses, answered = called, []
            else:
                said_from = len(said)
                if not is_result:
                    said.append(i)
            starts.append(i)
            roles.append(role)
            role_of_last, only_results = role, is_result
        ends_on_results = roles[-2:] == ["assistant", "user"]  # no assistant turn after them closes the last step
        if ends_on_results and (warning := unanswered_warning(self.where, len(roles) - 2, uses, answered)):
            self.warnings.append(warning)
        response = chat.get("response")
        if response is not None:
            where = response["where"]
            reply = self._message(response["message"], where)
            blocks, _ = self._blocks(reply, "assistant", where)
            self._keep_extra(reply, where)  # what the reply holds besides its text and calls, as a message's is
            check_blocks(blocks, where.at("content"))
            if roles and roles[-1] == "user":
                read[len(messages)] = blocks  # the reply, one past the messages
                starts.append(len(messages))
                self.reply_step = roles.count("assistant")  # the step the reply decided: its model call's
                roles.append("assistant")
            else:
                self.warnings.append(
                    self.where.warning("a response was given, but the conversation ends on an assistant turn")
                )
        self.warnings.extend(instructed_warnings(late, before_output, _place))
        times, unread = _step_times(chat, starts, roles, self._here)
        if unread is not None:
            self.warnings.append(unread)
        return _Turns(messages, read, starts, roles, _failed_commands(chat), moved, times), "\n\n".join(system)

    def _here(self, i: int) -> Where:
        """Where the ``i``-th message is: its line in a file of messages, else its index in the chat."""
        lines = self.lines
        return Where(self.where.path, lines[i], "") if lines else self.where.at(f"[{i}]")

    def _quick(self, raw: Any, i: int) -> str | None:
        """The role of a message of the shapes nearly every chat is made of, checked; ``None`` for any other.

        A user's text, an assistant's text (or none) and tool calls of JSON-text arguments, a
        tool's text result: ``_quick_blocks`` makes their blocks, when their turn is first read.
        A field beside those is kept in the source, as the whole reading keeps it; a message with
        a field the whole reading reads (thinking blocks, a refusal, a legacy function call) is
        left to it, as is anything else, which it words the error of.
        """
        if type(raw) is not dict:
            return None
        role = raw.get("role")
        has_only = _QUICK_FIELDS.get(role) if type(role) is str else None
        if has_only is None:
            return None
        content = raw.get("content")
        if role == "tool":
            if type(raw.get("tool_call_id")) is not str or type(content) is not str:
                return None
        elif type(content) is not str and (content is not None or role == "user"):
            return None
        elif role == "assistant" and (calls := raw.get("tool_calls")) is not None:
            if type(calls) is not list:
                return None
            for call in calls:
                function = call.get("function") if type(call) is dict else None
                if not (
                    type(function) is dict
                    and _call_has_only(call)
                    and _function_has_only(function)
                    and type(function.get("name")) is str
                    and type(call.get("id")) is str
                    and type(function.get("arguments")) is str
                ):
                    return None
        if not has_only(raw):
            if any(raw[key] is not None for key in raw.keys() & _READ_WHOLE):
                return None
            self._keep_extra(raw, self._here(i))
        return role

    def _message(self, raw: Any, here: Where) -> dict[str, Any]:
        if type(raw) is not dict and not isinstance(raw, Mapping):
            raise here.error(f"expected a message object, got {type_name(raw)}")
        message = raw if type(raw) is dict else dict(raw)  # read, never changed
        if "role" not in message and message.get("type") in LANGCHAIN_ROLES:
            message = _from_langchain(message, here)
        role = message.get("role")
        if role not in _ROLES:
            raise here.at("role").error(f"expected one of {', '.join(_ROLES)}, got {shown(role)}")
        return message

    def _system_text(self, content: Any, here: Where) -> str:
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            texts = []
            for j, part in enumerate(content):
                if not isinstance(part, Mapping) or not isinstance(part.get("text"), str):
                    raise here.at(f"[{j}]").error("expected a text part in a system message")
                texts.append(part["text"])
            return "\n".join(texts)
        raise here.error(f"expected text or a list of text parts, got {type_name(content)}")

    def _blocks(self, message: Mapping[str, Any], role: str, here: Where) -> tuple[list[dict[str, Any]], str]:
        if role == "tool":
            return [self._tool_result(message, here)], "user"
        if role == "function":
            name = message.get("name")
            if not self.legacy_ids:
                raise here.error("a function result with no function_call before it to answer")
            tool_id = self.legacy_ids.pop(0)
            block = {"type": "tool_result", "tool_use_id": tool_id, "content": self._result_content(message, here)}
            self.warnings.append(here.warning(f"a legacy function result ({shown(name)}): given the id {tool_id}"))
            return [block], "user"
        content = message.get("content")
        if type(content) is str:  # the common case, said as _content says it
            blocks = [{"type": "text", "text": content}] if content or role != "assistant" else []
        else:
            blocks = self._content(content, here.at("content"), role)
        if role == "assistant":
            blocks = self._thinking(message, here) + blocks
            calls = message.get("tool_calls")
            if calls is not None:
                if not isinstance(calls, list):
                    raise here.at("tool_calls").error(f"expected a list of tool calls, got {type_name(calls)}")
                blocks.extend(self._tool_use(call, here, k) for k, call in enumerate(calls))
            call = message.get("function_call")
            if call is not None:
                self.legacy_made += 1
                tool_id = f"call_legacy_{self.legacy_made}"
                self.legacy_ids.append(tool_id)
                blocks.append(self._tool_use({"id": tool_id, "function": call}, here, None))
            for name in ("refusal", "reasoning_content"):
                if message.get(name):
                    # worded alike for every message (where each is: source.unmapped), so a chat that has it in
                    # each reply is said once, counted (RunWarnings)
                    self.warnings.append(
                        Where(self.where.path, here.line).warning(
                            f"an assistant message's {name} has no counterpart in the Messages API: kept in the "
                            "source (unmapped)"
                        )
                    )
        return blocks, role

    def _thinking(self, message: Mapping[str, Any], here: Where) -> list[dict[str, Any]]:
        blocks = message.get("thinking_blocks")
        if isinstance(blocks, list) and blocks and all(isinstance(b, Mapping) and "type" in b for b in blocks):
            return [dict(block) for block in blocks]
        return []

    def _content(self, content: Any, here: Where, role: str) -> list[dict[str, Any]]:
        if content is None:
            if role == "assistant":
                return []  # a reply of tool calls only
            raise here.error("missing: a user message has content")
        if isinstance(content, str):
            return [{"type": "text", "text": content}] if content or role != "assistant" else []
        if not isinstance(content, list):
            raise here.error(f"expected text, a list of content parts or null, got {type_name(content)}")
        return [self._part(part, here.at(f"[{j}]")) for j, part in enumerate(content)]

    def _part(self, part: Any, here: Where) -> dict[str, Any]:
        if isinstance(part, str):
            return {"type": "text", "text": part}
        if not isinstance(part, Mapping):
            raise here.error(f"expected a content part, got {type_name(part)}")
        kind = part.get("type")
        if kind == "text":
            if not isinstance(part.get("text"), str):
                raise here.at("text").error(f"expected text, got {type_name(part.get('text'))}")
            return dict(part)
        if kind == "image_url":
            return self._image(part, here)
        if not isinstance(kind, str):
            raise here.at("type").error(f"expected the part's type, got {shown(kind)}")
        self.warnings.append(
            here.warning(f"a {shown(kind)} part has no counterpart in the Messages API: kept as it is")
        )
        return dict(part)

    def _image(self, part: Mapping[str, Any], here: Where) -> dict[str, Any]:
        image = part.get("image_url")
        url = image.get("url") if isinstance(image, Mapping) else image
        if not isinstance(url, str):
            raise here.at("image_url.url").error(f"expected the image's URL, got {type_name(url)}")
        if isinstance(image, Mapping) and set(image) - {"url"}:
            self.extra.setdefault(here.field, {})["image_url"] = dict(image)
        image_block = url_image(url)
        if image_block is None:
            self.warnings.append(here.warning("a data URL that is not base64: kept as the part it is"))
            return dict(part)
        return image_block

    def _tool_use(self, call: Any, message: Where, k: int | None) -> dict[str, Any]:
        """The tool use of the ``k``-th tool call of the message at ``message`` (``None``: its legacy function call)."""
        here = message.at("function_call" if k is None else f"tool_calls[{k}]")
        if not isinstance(call, Mapping):
            raise here.error(f"expected a tool call object, got {type_name(call)}")
        function = call.get("function")
        if not isinstance(function, Mapping):
            raise here.at("function").error(f"expected the called function, got {type_name(function)}")
        name = function.get("name")
        if not isinstance(name, str):
            raise here.at("function.name").error(f"expected the function's name, got {type_name(name)}")
        tool_id = call.get("id")
        if not isinstance(tool_id, str):
            raise here.at("id").error(f"expected the tool call's id, got {type_name(tool_id)}")
        arguments = function.get("arguments", "")
        if type(arguments) is not str and isinstance(arguments, Mapping):
            value: Any = dict(arguments)
        elif isinstance(arguments, str):
            value = tool_input(arguments)
        else:
            raise here.at("function.arguments").error(f"expected JSON text, got {type_name(arguments)}")
        if call.keys() <= _CALL_KEYS and function.keys() <= _FUNCTION_KEYS:
            return {"type": "tool_use", "id": tool_id, "name": name, "input": value}
        extra = {key: item for key, item in call.items() if key not in _CALL_KEYS}
        extra.update({key: item for key, item in function.items() if key not in _FUNCTION_KEYS})
        if extra:
            self.extra.setdefault(_place(here), {}).update(extra)
        return {"type": "tool_use", "id": tool_id, "name": name, "input": value}

    def _tool_result(self, message: Mapping[str, Any], here: Where) -> dict[str, Any]:
        tool_id = message.get("tool_call_id")
        if tool_id is None and isinstance(message.get("tool_call_ids"), list):
            ids = message["tool_call_ids"]
            if len(ids) != 1 or not isinstance(ids[0], str):
                raise here.at("tool_call_ids").error("expected the one id of the call this answers")
            tool_id = ids[0]
        if not isinstance(tool_id, str):
            raise here.at("tool_call_id").error(f"expected the id of the call this answers, got {shown(tool_id)}")
        return {"type": "tool_result", "tool_use_id": tool_id, "content": self._result_content(message, here)}

    def _result_content(self, message: Mapping[str, Any], here: Where) -> str | list[dict[str, Any]]:
        content = message.get("content")
        if isinstance(content, str):
            return content
        if content is None:
            return ""
        if isinstance(content, list):
            return self._content(content, here.at("content"), "tool")
        raise here.at("content").error(f"expected text or a list of content parts, got {type_name(content)}")

    def _keep_extra(self, message: Mapping[str, Any], here: Where) -> None:
        if message.keys() <= _MAPPED:
            return
        extra = {key: value for key, value in message.items() if key not in _MAPPED}
        if message.get("role") == "function":
            extra.pop("name", None)  # the function's name: its tool use has it
        if message.get("role") == "assistant" and "thinking_blocks" in extra and self._thinking(message, here):
            del extra["thinking_blocks"]
        if extra:
            self.extra.setdefault(_place(here), {}).update(extra)


def _place(here: Where) -> str:
    """How the run's ``source.unmapped`` and a warning name where a value was: its field (``messages[3]``), or its line
    in a file of messages (``line 4``)."""
    return here.field or f"line {here.line}"


def url_image(url: str) -> dict[str, Any] | None:
    """The image block of an image's URL (a ``data:`` URL as base64, any other as a URL source); ``None`` for a
    ``data:`` URL that is not base64, which has no counterpart."""
    match = _DATA_URL.fullmatch(url)
    if match:
        media = match.group("media") or "application/octet-stream"
        return {"type": "image", "source": {"type": "base64", "media_type": media, "data": match.group("data")}}
    if url.startswith("data:"):
        return None
    return {"type": "image", "source": {"type": "url", "url": url}}


def _quick_blocks(message: dict[str, Any] | _Record) -> list[dict[str, Any]]:
    """The blocks of a message ``_Converter._quick`` checked, or decoded as a record: its text, its tool calls
    or its result."""
    if not isinstance(message, dict):
        return message.blocks()
    content = message.get("content")
    if message["role"] == "tool":
        return [{"type": "tool_result", "tool_use_id": message["tool_call_id"], "content": content}]
    blocks = [{"type": "text", "text": content}] if content or message["role"] == "user" else []
    for call in message.get("tool_calls") or ():
        function = call["function"]
        input_ = tool_input(function["arguments"])
        blocks.append({"type": "tool_use", "id": call["id"], "name": function["name"], "input": input_})
    return blocks


def _failed_commands(chat: Mapping[str, Any]) -> frozenset[str]:
    """The ids of the tool calls whose command a mini-swe-agent trajectory says exited with a code but 0: its tool
    message's ``extra.returncode``, which mini-swe-agent told the model as ``<returncode>N</returncode>`` (``-1``
    for a command it stopped at its time limit). Their steps are errors, as the model was told; the blocks stay
    as sent (the chat's tool messages have no error flag)."""
    if chat.get("kind") != "mini-swe-agent-trajectory":
        return frozenset()
    failed = set()
    for message in chat["messages"]:
        if not isinstance(message, Mapping) or message.get("role") != "tool":
            continue
        extra, call_id = message.get("extra"), message.get("tool_call_id")
        code = extra.get("returncode") if isinstance(extra, Mapping) else None
        if type(code) is int and code != 0 and isinstance(call_id, str):
            failed.add(call_id)
    return frozenset(failed)


def _step_times(
    chat: Mapping[str, Any], starts: Sequence[int], roles: Sequence[str], here: Callable[[int], Where]
) -> tuple[dict[int, dict[str, Any]], RunWarning | None]:
    """The times of each step of a mini-swe-agent trajectory, by the turn of its reply, as its messages record them
    (``started_at`` and ``ended_at``, each as given: ``_Turns`` makes it a timestamp with its turn); and the warning
    naming each timestamp that is no time (no step takes one from it), else ``None``.

    mini-swe-agent writes when each message of the model and of a command was made into its ``extra.timestamp``
    (``time.time()``: seconds since 1970): a step started when its reply was written, and ended when the last output
    of the turn after it was; a reply that calls nothing, with nothing after it, ended when it was written. A turn
    whose messages record no time gives its step none. ``here`` says where the ``i``-th message is.
    """
    if chat.get("kind") != "mini-swe-agent-trajectory":
        return {}, None
    messages = chat["messages"]
    unread: list[tuple[Where, Any]] = []  # where each timestamp that is no time is, and what it holds
    written: list[list[Any]] = []  # the times each turn's messages record, in order
    for turn in range(len(roles)):
        stamps = []
        for i in _messages_of(starts, turn, len(messages)):
            extra = messages[i].get("extra") if isinstance(messages[i], Mapping) else None
            given = extra.get("timestamp") if isinstance(extra, Mapping) else None
            if given is None:
                continue
            if is_time(given):
                stamps.append(given)
            else:
                unread.append((here(i).at("extra.timestamp"), given))
        written.append(stamps)
    times: dict[int, dict[str, Any]] = {}
    for turn, role in enumerate(roles):
        if role != "assistant":
            continue
        made = {"started_at": written[turn][0]} if written[turn] else {}
        if turn + 1 < len(roles):
            if written[turn + 1]:
                made["ended_at"] = written[turn + 1][-1]
        elif written[turn] and not any(_calls(messages[i]) for i in range(starts[turn], len(messages))):
            made["ended_at"] = written[turn][-1]
        if made:
            times[turn] = made
    if not unread:
        return times, None
    one = len(unread) == 1
    first, given = unread[0]
    return times, first.warning(
        f"{plural(len(unread), 'timestamp')} that {'is' if one else 'are'} no time (seconds since 1970, or an ISO "
        f"8601 date-time; {'it holds' if one else 'the first holds'} {shown(given, 60)}): "
        f"{first_few([_place(where) for where, _ in unread])}; no step takes its time from {'it' if one else 'them'}"
    )


def _messages_of(starts: Sequence[int], turn: int, messages: int) -> range:
    """The places of the messages turn ``turn`` is made of, the turns starting at ``starts`` among ``messages``."""
    return range(starts[turn], starts[turn + 1] if turn + 1 < len(starts) else messages)


def _calls(message: Any) -> bool:
    """Whether a message of a reply calls a tool."""
    return isinstance(message, Mapping) and bool(message.get("tool_calls") or message.get("function_call"))


class _Turns(MadeTurns):
    """The chat's turns in the Messages API's shape (``{"role", "content"}``), each made when first read, and kept.

    Turn ``t`` is made of the messages from ``starts[t]`` to the next turn's start: each one
    ``_Converter._quick`` checked is made into blocks here (``_quick_blocks``); the whole
    reading made the blocks of the others (``read``, by message; ``None`` for a system
    message, which is no turn's). A run's steps read their turns when they are first read
    (``runfile.ConversationSteps``): an import checks every message, and makes the blocks of
    those it is asked for.
    """

    __slots__ = ("_failed", "_messages", "_moved", "_read", "_starts", "_times", "roles")

    def __init__(
        self,
        messages: list[Any],
        read: dict[int, list[dict[str, Any]] | None],
        starts: list[int],
        roles: list[str],
        failed: frozenset[str] = frozenset(),
        moved: Collection[int] = (),
        times: Mapping[int, Mapping[str, Any]] | None = None,
    ) -> None:
        self._messages, self._read, self._starts, self._failed = messages, read, starts, failed
        self._moved = moved
        """The user turns with a result sent after a message of theirs: made with their results first."""
        self._times = times or {}
        """The ``started_at`` and ``ended_at`` of the steps the source says were when, by the turn of their reply, as
        the source gives them (``_step_times``): its step record's, made timestamps (``runfile.ConversationSteps``)."""
        self.roles = roles
        """Each turn's role: ``user`` and ``assistant`` in turn (a role that repeats joins the turn before)."""
        super().__init__(len(roles))

    def messages_of(self, at: int) -> range:
        """The places of the messages turn ``at`` is made of (a system message among them is none of its blocks)."""
        return _messages_of(self._starts, at, len(self._messages))

    def make(self, at: int) -> dict[str, Any]:
        role, content = self.roles[at], self._content(at)
        turn = {"role": role, "content": content}
        if self._times and (times := self._times.get(at)):
            turn.update((name, time_of(given)) for name, given in times.items())
        if self._failed and role == "user":
            # the calls whose command the source says failed: their steps are errors (runfile.ConversationSteps)
            failed = [block["tool_use_id"] for block in content
                      if block["type"] == "tool_result" and block["tool_use_id"] in self._failed]  # fmt: skip
            if failed:
                turn["failed"] = failed
        return turn

    def _content(self, at: int) -> list[dict[str, Any]]:
        starts, read, messages = self._starts, self._read, self._messages
        t = at
        end = starts[t + 1] if t + 1 < len(starts) else max(len(messages), starts[t] + 1)
        content: list[dict[str, Any]] = []
        for i in range(starts[t], end):
            if i not in read:
                content.extend(_quick_blocks(messages[i]))
            elif (blocks := read[i]) is not None:
                content.extend(blocks)
        if self._moved and at in self._moved:  # the results first, as the Messages API takes a turn
            return results_first(content)
        return content


def _from_langchain(message: Mapping[str, Any], here: Where) -> dict[str, Any]:
    """A LangChain message dict (``messages_to_dict``'s or ``model_dump``'s) as an OpenAI-style message."""
    data = message.get("data", message)
    if not isinstance(data, Mapping):
        raise here.at("data").error(f"expected the message's fields, got {type_name(data)}")
    role = LANGCHAIN_ROLES[str(message["type"])]
    out: dict[str, Any] = {key: value for key, value in data.items() if key not in ("type", "tool_calls")}
    out["role"] = role
    calls = data.get("tool_calls")
    if role == "assistant" and isinstance(calls, list) and calls:
        converted = []
        for k, call in enumerate(calls):
            if not isinstance(call, Mapping):
                raise here.at(f"data.tool_calls[{k}]").error(f"expected a tool call, got {type_name(call)}")
            if "function" in call:
                converted.append(dict(call))
                continue
            args = call.get("args", {})
            converted.append(
                {
                    "id": call.get("id"),
                    "type": "function",
                    "function": {"name": call.get("name"), "arguments": args},
                }
            )
        out["tool_calls"] = converted
    elif role == "assistant":
        kwargs = data.get("additional_kwargs")
        if isinstance(kwargs, Mapping) and isinstance(kwargs.get("tool_calls"), list):
            out["tool_calls"] = kwargs["tool_calls"]
    return out


# A chat of the messages nearly every chat is made of, decoded and checked in one pass in C: each record is
# the message as ``_Converter._quick`` takes it, with no field beside (an unknown one fails the decoding). A
# chat of anything else, or anything wrong, is read as JSON values, which keeps every field and words every
# error. The records are made into blocks when their turn is first read (``_Turns``).


class _Function(msgspec.Struct, frozen=True, gc=False, forbid_unknown_fields=True):
    name: str
    arguments: str


class _Call(msgspec.Struct, frozen=True, gc=False, forbid_unknown_fields=True):
    id: str
    function: _Function
    type: str | UnsetType = UNSET
    """``function``, as the API has it; not kept (a tool use has no type of call)."""


class _SystemMessage(msgspec.Struct, tag_field="role", tag="system", frozen=True, gc=False, forbid_unknown_fields=True):
    """A system message of text, which goes to the system prompt."""

    role: ClassVar[str] = "system"
    content: str

    def blocks(self) -> list[dict[str, Any]]:
        return []


class _UserMessage(msgspec.Struct, tag_field="role", tag="user", frozen=True, gc=False, forbid_unknown_fields=True):
    """A user's text."""

    role: ClassVar[str] = "user"
    content: str

    def blocks(self) -> list[dict[str, Any]]:
        return [{"type": "text", "text": self.content}]


class _AssistantMessage(
    msgspec.Struct, tag_field="role", tag="assistant", frozen=True, gc=False, forbid_unknown_fields=True
):
    """A reply: its text (or none) and its tool calls."""

    role: ClassVar[str] = "assistant"
    content: str | None = None
    tool_calls: list[_Call] | None = None

    def blocks(self) -> list[dict[str, Any]]:
        blocks: list[dict[str, Any]] = [{"type": "text", "text": self.content}] if self.content else []
        for call in self.tool_calls or ():
            function = call.function
            input_ = tool_input(function.arguments)
            blocks.append({"type": "tool_use", "id": call.id, "name": function.name, "input": input_})
        return blocks


class _ToolMessage(msgspec.Struct, tag_field="role", tag="tool", frozen=True, gc=False, forbid_unknown_fields=True):
    """A tool's text result."""

    role: ClassVar[str] = "tool"
    tool_call_id: str
    content: str

    def blocks(self) -> list[dict[str, Any]]:
        return [{"type": "tool_result", "tool_use_id": self.tool_call_id, "content": self.content}]


_Record = _SystemMessage | _UserMessage | _AssistantMessage | _ToolMessage
_RECORDS = frozenset((_SystemMessage, _UserMessage, _AssistantMessage, _ToolMessage))
_MESSAGES = msgspec.json.Decoder(list[_Record])
_OF_A_LOG = ("history", "response", "info", *OPENAI_REQUEST_KEYS)
"""Fields of a value that is more than a request body: read as JSON values."""


_API_FIELDS = (
    "model",
    "audio",
    "frequency_penalty",
    "function_call",
    "functions",
    "logit_bias",
    "logprobs",
    "max_completion_tokens",
    "max_tokens",
    "metadata",
    "modalities",
    "moderation",
    "n",
    "parallel_tool_calls",
    "prediction",
    "presence_penalty",
    "prompt_cache_key",
    "prompt_cache_options",
    "prompt_cache_retention",
    "reasoning_effort",
    "response_format",
    "safety_identifier",
    "seed",
    "service_tier",
    "stop",
    "store",
    "stream",
    "stream_options",
    "temperature",
    "tool_choice",
    "tools",
    "top_logprobs",
    "top_p",
    "user",
    "verbosity",
    "web_search_options",
    "extra_body",
)
"""The fields of a Chat Completions request beside its messages: those of the openai SDK's ``CompletionCreateParams``
(openai-python 3.3.1, ``src/openai/types/chat/completion_create_params.py`` at e43b4224, read with the search tools:
``model``, then the others in the alphabet's order as it has them, ``stream`` among them), and ``extra_body``, the
keyword of its ``chat.completions.create`` (and LiteLLM's ``completion``) whose fields are sent in the request's body.
What a chat's request holds is these (``_parted``); a request of plain messages and these is decoded in one pass
(``_BODY``); one with another field fails it, and is read again field by field."""

_IN_REQUEST = frozenset(_API_FIELDS)

_LOG_FIELDS = frozenset(
    ("response", "info", "context_window", "cost", "timestamp", "latency_sec", "raw_messages", "raw_response")
)
"""The fields beside a chat's request that the importer knows are a log's own, kept in the source with no warning: the
reply and a trajectory's ``info``, which it reads, and the OpenHands agent-sdk's (``_completion_log``)."""

_BODY = body_decoder(_Record, (*_API_FIELDS, *_OF_A_LOG))


def _typed_chat(path: str, warnings: list[RunWarning]) -> dict[str, Any] | None:
    """The file as a request body whose messages ``_MESSAGES`` decodes, as ``_chat`` gives a chat; ``None`` for
    anything else (a trajectory, a log, another message, an error), read then as JSON values."""
    body = request_body(path, _MESSAGES, _OF_A_LOG, _BODY)
    if body is None:
        return None
    messages, _, fields = body
    request, others = _parted(fields, Where(path, 1, ""), warnings)
    chat = {"messages": messages, "field": "messages", "request": chat_request(request, Where(path, 1, ""), warnings)}
    if others:
        chat["log"] = others
    return chat
