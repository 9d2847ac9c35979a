"""Summaries for an imported run's results, given after the import: ``with_summaries(run, summarise)``.

An importer gives a result a summary only when asked (``summarise=``); a run read without one
shows ``(no summary)`` for every result the contract's window leaves out. ``with_summaries``
gives each result of an already imported run the summary ``summarise`` makes of it, as the
importer would have, whatever format the run came from: it rewrites the records an importer
made (``step.sent.summaries`` and the step's observation) and names the summariser in the
header.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from agentrender.imports.conversation import Summariser
from agentrender.runfile import FORMAT_SENT, Run, read_records
from agentrender.runfile.sent import result_text

__all__ = ["with_summaries"]


def with_summaries(run: Run, summarise: Summariser) -> Run:
    """``run`` with each result summarised by ``summarise`` (a ``str -> str``), its header naming the summariser.

    Only a run that records what its agent sent (format ``agentrender.run/2``, an import) is
    changed; a run this package's driver recorded keeps the summaries its tools gave, and is
    returned as it is. The run's warnings are kept as they were.
    """
    if run.header.get("format") != FORMAT_SENT:
        return run
    records: list[dict[str, Any]] = []
    for record in run.records:
        if record.get("type") == "run":
            records.append({**record, "summariser": getattr(summarise, "__name__", repr(summarise))})
        elif record.get("type") == "step" and isinstance(record.get("sent"), Mapping):
            records.append(_summarised_step(record, summarise))
        else:
            records.append(dict(record))
    calls = iter(run.model_calls)  # in the order of their records: each keeps the line of the file it came from
    lines = [next(calls).line if record.get("type") == "model_call" else 0 for record in records]
    return replace(read_records(records, path=run.path, blocks_checked=True, lines=lines), warnings=run.warnings)


def _summarised_step(record: Mapping[str, Any], summarise: Summariser) -> dict[str, Any]:
    sent = dict(record["sent"])
    user = sent.get("user")
    answered = {
        str(block.get("tool_use_id")): block
        for block in user or ()
        if isinstance(block, Mapping) and block.get("type") == "tool_result"
    }
    out = {**record, "sent": sent}
    if answered:
        sent["summaries"] = {key: summarise(result_text(block.get("content", ""))) for key, block in answered.items()}
    observation = record.get("observation")
    if isinstance(observation, Mapping):
        out["observation"] = {**observation, "summary": summarise(str(observation.get("content", "")))}
    return out
