"""The as-sent rule, checked on any imported run: every as-sent view holds what the source sent, and nothing else.

``as_sent_problems(run)`` rebuilds, from the run's own records (the header's opening and
compactions, each step's ``sent`` turns), the conversation each stop's request carried, and
compares every view of ``Views(run)`` with it. It is meant to be parametrised over any
imported file: the bundled samples, ``tests/fixtures/imports/``, and the real fixtures of
``tests/fixtures/real/MANIFEST.json`` once they land.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from agentrender import Run
from agentrender.views import Views

INVENTED_KINDS = frozenset(
    {"nudge_no_tool_call", "nudge_truncated", "nudge_invalid", "interrupted", "reason", "no_call"}
)
"""Kinds of blocks only the contract makes: an as-sent view never holds one."""


def sent_conversation(run: Run, stop: int) -> list[dict[str, Any]]:
    """The messages the source sent for the request at ``stop``, read off the run's records alone.

    The opening (or the last compaction's opening at or before ``stop``), then each step's recorded
    assistant turn and, when the source sent one, the user turn after it; each cache breakpoint the run records for
    that request (the step's ``sent.breakpoints``, else the header's) on its block, as its last field.
    """
    header = run.header
    start, opening = 0, header.get("opening_content") or [{"type": "text", "text": run.opening}]
    for compaction in header.get("compactions") or ():
        if compaction["step"] <= stop:
            start, opening = compaction["step"], compaction["opening"]
    out = [{"role": "user", "content": list(opening)}]
    for index in range(start, stop):
        sent: Mapping[str, Any] = run.step_records[index].get("sent") or {}
        out.append({"role": "assistant", "content": list(sent.get("assistant") or ())})
        if sent.get("user") is not None:
            out.append({"role": "user", "content": list(sent["user"])})
    if "breakpoints" in header:
        own = run.step_records[stop].get("sent") if stop in run.step_records else None
        marks = (own or {}).get("breakpoints", header["breakpoints"])
        for mark in marks:
            at, position = mark["message"], mark["block"]
            if at < len(out):
                message = out[at] = {**out[at], "content": list(out[at]["content"])}
                block = {k: v for k, v in message["content"][position].items() if k != "cache_control"}
                message["content"][position] = {**block, "cache_control": mark["cache_control"]}
    return out


def as_sent_problems(run: Run) -> Iterator[str]:
    """Each way an as-sent view of ``run`` differs from what its source sent; nothing for a faithful run."""
    views = Views(run)
    if views.mode != "as sent":
        yield f"{run.path}: its views are not as sent ({views.mode!r})"
        return
    for at in views.stops:
        view = views.at(at)
        got = [message.to_dict() for message in view.messages]
        expected = sent_conversation(run, at)
        where = f"{run.path}: the view at step {at}"
        if len(got) != len(expected):
            yield f"{where} holds {len(got)} messages, the source sent {len(expected)}"
        for position, (mine, theirs) in enumerate(zip(got, expected, strict=False)):
            if mine != theirs:
                yield f"{where}: message {position} is not the one the source sent"
        for fact in view.step_facts(view.first_step):
            blocks = [*(fact.assistant.blocks if fact.assistant else ()), *(fact.result.blocks if fact.result else ())]
            for block in blocks:
                if block.kind in INVENTED_KINDS:
                    yield f"{where}: step {fact.step.index} holds a {block.kind} block, which the source did not send"
        ended = bool(expected) and expected[-1]["role"] == "assistant"
        if view.ended != ended:
            said = "ended" if ended else "went on"
            yield f"{where}: ended is {view.ended}, yet the source's conversation {said} there"
