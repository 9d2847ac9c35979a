"""What every display (the terminal's ``show`` and ``check``, the HTML of a run) says of a run's
facts in words: which facts a run has and in what order, how it ended, its warnings grouped, a content block as text
to read (a media block in one line).

Said once here, so the terminal and the page cannot word the same fact two ways. Like
``values``, it reads the values it is given by their attributes and imports nothing of
agentrender but the base floor.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import os
import re
import struct
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agentrender._json import display, says_nothing
from agentrender._words import elapsed, number_ranges, plural

__all__ = [
    "FOLD_BLOCKS",
    "KEPT_BLOCKS",
    "MEDIA_TYPES",
    "NO_END_IMPORTED",
    "NO_END_RECORDED",
    "NO_VALUE",
    "WIRE_SAID",
    "WRITES_END",
    "BlockSaid",
    "WarningGroup",
    "block_said",
    "calls_said",
    "encrypted_bytes",
    "encrypted_said",
    "end_said",
    "folded_blocks",
    "inherited_said",
    "link_role",
    "media_held",
    "media_label",
    "media_short",
    "offered_said",
    "parent_said",
    "retries",
    "retries_said",
    "run_facts_said",
    "scores_of",
    "scores_said",
    "scores_words",
    "shown_path",
    "source_said",
    "started_parts",
    "started_said",
    "steps_summary",
    "tool_uses",
    "tools_said",
    "tried_said",
    "turn_uses",
    "warning_groups",
]

NO_VALUE = "\u2014"
"""What a display says of a value a run or a step has none of: a run's fact of no value (``run_facts_said``: a run of
no id, no system prompt, no model or no tools recorded), and in a table of steps a cell of a value the step has none of
(a skipped step's kind, tool, status, bytes and reason; the tool of a decision that called none): ``agentrender
steps`` and the offline page's steps tab, whose filters offer it as ``(none)``, as ``steps --tool none`` takes it. The
notebook explorer, a table of the frame's every column, says pandas' ``<NA>``."""

NO_END_RECORDED = "no end record: the run was still going, or its process died"
"""A recorded run's header when its file holds no ``end`` record."""
WRITES_END = "writes_end"
"""The key of a run header's ``source`` (``true``) saying its writer writes an ``end`` record as it closes the file,
as ``agentrender.record`` does: a file without one was cut short (its process killed) or is still being written, as a
recorded run without one. A recording of an agentrender before it has no such key, and no end record says nothing."""
NO_END_IMPORTED = "the source records no end"
"""An imported run's header when its importer found no end in its source (a history, not a live process)."""


def end_said(end: Mapping[str, Any] | None, header: Mapping[str, Any]) -> tuple[str, bool]:
    """How the run ended, in words, and whether it completed.

    With no ``end`` record, an imported run (its header names its ``source``) says its source
    records no end; a recorded run says it was still going or its process died, and so does a recording
    whose recorder writes an end as it is closed (its source's ``writes_end``: ``agentrender.record``'s).
    """
    if end is None:
        source = header.get("source")
        live = not source or (isinstance(source, Mapping) and source.get(WRITES_END) is True)
        return (NO_END_RECORDED if live else NO_END_IMPORTED), False
    status, reason = str(end.get("status", "?")), str(end.get("reason", ""))
    said = status if not reason or reason == status else f"{status}: {reason}"
    return said, status == "completed"


def offered_said(tools: Iterable[Mapping[str, Any]]) -> str:
    """The tools a run offered, in words: each tool's name, or for one the API defines with no name (a toolset such as
    ``computer_toolset_20260801``) its type; ``?`` for a definition of neither."""
    return ", ".join(str(tool.get("name") or tool.get("type") or "?") for tool in tools)


def source_said(run: Any) -> str:
    """Where in its source a run comes from, in a few words: an imported run's format and thread, or sample, and for
    an agent forked from a session the compaction it wrote and how many of its steps are the session's; ``"run
    file"`` for a run its runtime recorded. ``run`` is read by its ``header`` and ``inherited_steps``."""
    source = run.header.get("source")
    if not isinstance(source, dict):
        return "run file"
    said = [str(source.get("format") or "imported")]
    for key in ("thread", "workflow", "agent_id", "sample_id", "epoch"):
        value = source.get(key)
        if isinstance(value, str | int) and not isinstance(value, bool) and value != "":
            said.append(f"{key.replace('_', ' ')} {value}")
    forked = source.get("forked_from")  # an agent forked from the session: the conversation it went on from
    if isinstance(forked, dict) and type(forked.get("line")) is int:
        compaction = source.get("compaction_line")
        said.append(
            f"wrote the compaction at line {compaction}"
            if type(compaction) is int
            else f"forked at line {forked['line']} of the session"
        )
        if inherited := run.inherited_steps:
            said[-1] += f" ({inherited_said(inherited)})"
    meta = source.get("meta")  # what Claude Code wrote of a sub-agent beside its transcript
    if isinstance(meta, dict) and isinstance(meta.get("description"), str) and meta["description"]:
        said.append(f"“{meta['description']}”")
    return ", ".join(said)


def scores_of(run: Any) -> dict[str, Any]:
    """How an imported sample was scored, as values: each scorer's name and the value its source logged (an Inspect
    sample's ``scores``: ``{"match": "C"}``, ``{"score_metr_task": 1}``), or a tau-bench task's ``{"reward": 0.0}``;
    ``{}`` for a run its source scored not. ``runs --json`` gives them; ``run`` is read by its ``header``."""
    source = run.header.get("source")
    if not isinstance(source, dict):
        return {}
    if source.get("format") == "tau-bench" and source.get("reward") is not None:  # as its end says it
        return {"reward": source["reward"]}
    return _logged_scores(source)


def _logged_scores(source: Mapping[str, Any]) -> dict[str, Any]:
    """The scorers' values an Inspect sample's ``scores`` logged, by name (``{}`` where the source holds none)."""
    scores = source.get("scores")
    if not isinstance(scores, dict):
        return {}
    return {name: score.get("value") if isinstance(score, dict) else score for name, score in scores.items()}


def scores_said(run: Any) -> str:
    """How an imported sample was scored, in a few words: each scorer's name and value as its source logged it (an
    Inspect sample's ``scores``: ``match C``, ``score_metr_task 1``; a value that is no number or text, as compact
    JSON), ``", "`` between them; ``""`` for a run its source scored not (a tau-bench task says its reward in how it
    ended, ``end_said``). The offline page's list of its runs says it beside each, where a reader picks the sample
    that failed. ``run`` is read by its ``header``."""
    source = run.header.get("source")
    return scores_words(_logged_scores(source) if isinstance(source, dict) else {})


def scores_words(scores: Mapping[str, Any], *, ended: str = "") -> str:
    """The words of ``scores`` (``scores_of``'s values, by scorer), as ``scores_said`` says them: each scorer's name
    and value, ``", "`` between them, but for one whose words ``ended`` (how the run ended, ``end_said``) ends with
    already (a tau-bench task's ``completed: reward 0.0``). ``agentrender runs`` says them under how each run ended."""
    said = []
    for name, value in scores.items():
        shown = value if isinstance(value, str) and value else display(value, indent=None)
        words = f"{name} {shown if len(shown) <= 60 else shown[:59] + '…'}"
        if not (ended == words or ended.endswith((f" {words}", f":{words}"))):
            said.append(words)
    return ", ".join(said)


def run_facts_said(run: Any, *, prefill: int | None = None, shared: bool = False) -> list[tuple[str, str]]:
    """The facts of a run every display lists (``agentrender show``'s panel, the offline page's "the run", a run's HTML
    and the notebook explorer's run tab), in the one order, as (name, text) pairs: where it is (``file``, and for an
    imported run ``from``: ``source_said``), what it is (``run``: its id; for a run linked to others of its file,
    ``parent``: ``parent_said``, and ``started``: the runs it started, each by its step), what the model was given
    (``goal``, ``system``, ``model``, ``tools``), what it did (``steps``: ``steps_summary``, counting the step of
    ``prefill`` as the caller's; ``model calls``: ``calls_said``) and how it ended (``end``: ``end_said``, and the
    ``error`` that ended it). A display lays them out, styles and escapes them; the warnings (``warning_groups``) come
    after, as each lays them out.

    The run's id, goal, system prompt, model and tools are said whether the run records them or not, ``NO_VALUE`` for
    one it does not (an imported history may record no system prompt or tools the model was offered): a missing row
    would not say whether the run has none or the display leaves it out. The file, the source and the error are facts
    only some runs have (one read from a file, an imported one, one that ended on an error) and are left out where
    they do not apply. ``shared``: the file by its name alone, for a page shared with others, where the folders it
    lies in are the machine's (perhaps private, and meaningless elsewhere); else as ``shown_path`` names it. ``run``
    is read by its ``path``, ``header``, ``run_id``, ``links``, ``goal``, ``system``, ``model``, ``tools``, ``steps``,
    ``model_calls``, ``end`` and ``inherited_steps``."""
    facts: list[tuple[str, str]] = []
    if run.path:
        facts.append(("file", os.path.basename(run.path) if shared else shown_path(run.path)))
    if run.header.get("source"):  # an imported run: where in its source
        facts.append(("from", source_said(run)))
    facts.append(("run", run.run_id or NO_VALUE))
    links = run.links  # the runs of its file it is linked to: the session of a sub-agent, a session's sub-agents
    if links.parent is not None:
        facts.append(("parent", parent_said(links.parent)))
    if links.started:
        facts.append(("started", _started_list(links.started)))
    facts += [
        ("goal", run.goal or NO_VALUE),
        ("system", run.system or NO_VALUE),  # what the model saw before every view
        ("model", run.model or NO_VALUE),
        ("tools", offered_said(run.tools) or NO_VALUE),
        ("steps", steps_summary(run.steps, prefill)),
        ("model calls", calls_said(run.model_calls)),
        ("end", end_said(run.end, run.header)[0]),
    ]
    if run.end and run.end.get("error"):  # what the error that ended it said (a failed request's words, say)
        facts.append(("error", str(run.end["error"])))
    return facts


def _tool_use(link: Any) -> str:
    return f" (tool use {link.tool_use_id})" if link.tool_use_id else ""


def parent_said(link: Any) -> str:
    """What a run is to the run that started it (``Run.links.parent``, a ``RunLink``, read by its ``run_id``, ``step``,
    ``tool_use_id`` and ``is_compaction``): a sub-agent a step's tool use started, or the agent forked from a session
    to write a compaction. The run's facts (``run_facts_said``: ``parent``) and the offline page say it so."""
    if link.is_compaction:
        return f"forked from run {link.run_id} to write the compaction before its step {link.step}"
    return f"a sub-agent of run {link.run_id}, started by its step {link.step}{_tool_use(link)}"


def started_said(link: Any) -> str:
    """What a step did of a run it started (an item of ``Run.links.started``, read as ``parent_said`` reads one), as
    ``agentrender show`` says it under the step and the offline page at the step: it started a sub-agent, or the
    compaction before it was written by a forked agent."""
    return "".join(started_parts(link))


def started_parts(link: Any) -> tuple[str, str, str]:
    """``started_said`` in three parts: the words before the run's id, the id, the words after it; for a display that
    keeps the id whole, to copy."""
    if link.is_compaction:
        return "the compaction before this step was written by the agent of run ", link.run_id, ""
    return "started the sub-agent run ", link.run_id, _tool_use(link)


def _started_list(started: Sequence[Any]) -> str:
    """The runs a run started, each by its step: the run's ``started`` fact (``run_facts_said``)."""
    agents = [link for link in started if not link.is_compaction]
    forks = [link for link in started if link.is_compaction]
    said = []
    if agents:
        runs = ", ".join(f"run {link.run_id} (step {link.step})" for link in agents)
        said.append(f"{plural(len(agents), 'sub-agent')}: {runs}")
    if forks:
        runs = ", ".join(f"run {link.run_id} (before step {link.step})" for link in forks)
        what = "a compaction" if len(forks) == 1 else "compactions"
        said.append(f"{plural(len(forks), 'agent')} forked to write {what}: {runs}")
    return "; ".join(said)


def link_role(links: Any) -> str:
    """What a run is among the runs of its file it is linked to, in a few words (``Run.links``, read by its ``parent``
    and ``started``): ``"sub-agent, from step K of X"``, ``"started 2 sub-agents"``; ``""`` for a run of no link.
    ``agentrender runs`` says it under each run, and the offline page's run picker beside each."""
    if (parent := links.parent) is not None:
        what = "forked to write a compaction" if parent.is_compaction else "sub-agent"
        return f"{what}, from step {parent.step} of {parent.run_id}"
    agents = sum(not link.is_compaction for link in links.started)
    forks = len(links.started) - agents
    said = [f"started {plural(agents, 'sub-agent')}"] if agents else []
    if forks:
        said.append(f"forked {plural(forks, 'agent')} to write {'a compaction' if forks == 1 else 'compactions'}")
    return ", ".join(said)


def inherited_said(steps: int) -> str:
    """The words for a forked agent's first ``steps`` steps (``Run.inherited_steps``): the session's, not its own."""
    return "its first step is the session's" if steps == 1 else f"its first {steps:,} steps are the session's"


def retries(calls: Iterable[Any]) -> tuple[int, float | None, bool]:
    """How many HTTP tries of ``calls`` (model calls, read by their ``retried``, ``retried_ms`` and ``tries_known``)
    failed and were made again by the SDK, how long they took together, in milliseconds (part of the calls'
    latency): ``None`` when one of them has no time the frames can read; and whether that count is known (false
    where a call's recording does not know how many tries it took: then it is how many at least)."""
    failed = 0
    took: float | None = 0.0
    known = True
    for call in calls:
        if not call.tries_known:
            known = False
            took = None
        if call.retried:
            failed += len(call.retried)
            took = None if took is None or call.retried_ms is None else took + call.retried_ms
    return failed, took, known


def tried_said(failed: int, known: bool = True) -> str:
    """How many times a model call was tried, of the ``failed`` tries before its last that its record holds and
    whether the recording knows how many there were: ``""`` for a call tried once."""
    if not known:  # the record's "tries_known": false
        return "tried more than once (how many is not known)" if failed else "how many times it was tried is not known"
    return f"tried {failed + 1:,} times" if failed else ""


def retries_said(calls: Iterable[Any]) -> str:
    """The tries the SDK made again of ``calls`` (``retries``) in a few words, ``""`` when none was tried again: how
    many tries failed before a reply came, and the time they took, part of the calls' latency (not bad data: the reply
    is the last try's); or that how many is not known, where a call's recording does not know it."""
    failed, took, known = retries(calls)
    if not known:
        if not failed:
            return "how many tries is not known"
        return f"retried: at least {plural(failed, 'failed try', 'failed tries')} (how many is not known)"
    if not failed:
        return ""
    said = f"retried: {plural(failed, 'failed try', 'failed tries')}"
    if took is not None:
        said += f", {elapsed(took)}"
    return said


def calls_said(calls: Sequence[Any], noun: str = "") -> str:
    """How many model calls ``calls`` are (with ``noun``, ``plural`` of it), and the tries the SDK made again of them
    (``retries_said``) beside."""
    said = plural(len(calls), noun) if noun else f"{len(calls):,}"
    retried = retries_said(calls)
    return f"{said} ({retried})" if retried else said


def steps_summary(steps: Sequence[Any], prefill: int | None = None) -> str:
    """How many steps (each with a ``decision``, ``None`` when it has none), and how many of them a view renders:
    ``"12 (11 rendered, 1 without a decision)"``; with ``prefill``, the step of a prefill no reply answered
    (``View.prefill_step`` of the view after the last step), that it is rendered but the caller's text, no decision of
    the model. Every display that lists a run's facts says its steps so (``show``, the offline page's run facts, a
    run's HTML and the notebook explorer's run tab)."""
    rendered = sum(step.decision is not None for step in steps)
    said = f"{len(steps):,} ({rendered:,} rendered, {len(steps) - rendered:,} without a decision"
    if prefill is not None:
        said += f"; step {prefill} is the caller's prefill, no decision of the model"
    return said + ")"


SHOWN_RANGES = 6
"""How many spans of lines a grouped warning names before it says how many more there are."""


@dataclass(frozen=True, slots=True)
class WarningGroup:
    """Warnings with the same text from the same file, said once: where they occurred and how often."""

    path: str
    text: str
    lines: tuple[int, ...]
    """The lines the warnings name, in order, each once; the first is the group's line."""
    count: int
    """How many records gave this warning (one warning may already stand for several: its ``count``)."""
    lost: bool
    """Something the file held was not loaded at all."""
    alone: str = ""
    """The one warning's own message when the group holds one warning (it may say its own count)."""

    @property
    def line(self) -> int:
        """The first line the group's warnings name."""
        return self.lines[0]

    @property
    def message(self) -> str:
        """The text, with how many records gave it and on which lines (shortened) when more than one."""
        if self.alone:
            return self.alone
        spans = number_ranges(self.lines).split(", ")
        named = ", ".join(spans[:SHOWN_RANGES])
        if len(spans) > SHOWN_RANGES:
            named += f", \u2026 {len(spans) - SHOWN_RANGES:,} more"
        return f"{self.text} (\u00d7{self.count:,}: lines {named})"

    def said(self, *, shared: bool = False) -> str:
        """The group in one line, ``PATH:LINE: MESSAGE``, as every display says it. ``shared``: the file by its name
        alone, as ``run_facts_said`` names it for a page shared with others."""
        if not self.path and not self.line:  # a warning given as plain text
            return self.message
        return f"{os.path.basename(self.path) if shared else self.path}:{self.line}: {self.message}"

    def __str__(self) -> str:
        return self.said()


def warning_groups(warnings: Sequence[Any]) -> list[WarningGroup]:
    """``warnings`` (``RunWarning``s: ``path``, ``line``, ``text``, ``count``, ``lost``, ``message``) grouped by
    file and text: the files in the order each first occurs, and each file's groups in the order of their first
    lines (an importer may warn of a file's lines from its last back), a warning of no line first."""
    groups: dict[tuple[str, str], list[tuple[int, int, bool, str]]] = {}
    for warning in warnings:
        text = getattr(warning, "text", None)
        if isinstance(text, str):
            key, said = (warning.path, text), (warning.line, warning.count, warning.lost, warning.message)
        else:  # a warning given as plain text
            key, said = ("", str(warning)), (0, 1, False, str(warning))
        groups.setdefault(key, []).append(said)
    files: dict[str, int] = {}
    for path, _ in groups:
        files.setdefault(path, len(files))
    ordered = sorted(groups.items(), key=lambda group: (files[group[0][0]], min(said[0] for said in group[1])))
    return [
        WarningGroup(
            path=path,
            text=text,
            lines=tuple(sorted({line for line, _, _, _ in members})),
            count=sum(count for _, count, _, _ in members),
            lost=any(lost for _, _, lost, _ in members),
            alone=members[0][3] if len(members) == 1 else "",
        )
        for (path, text), members in ordered
    ]


FOLD_BLOCKS = 12
"""A turn of more blocks than this is folded: its first and last ``KEPT_BLOCKS`` shown, the rest counted."""
KEPT_BLOCKS = 4
"""How many of a folded turn's first blocks, and of its last, are shown."""


def folded_blocks(count: int) -> range:
    """The positions of a turn's ``count`` blocks a display folds (counts, shows not): empty for a short turn."""
    if count <= FOLD_BLOCKS:
        return range(0)
    return range(KEPT_BLOCKS, count - KEPT_BLOCKS)


MEDIA_TYPES = frozenset(("image", "document"))
"""The block types a display says in one line instead of printing their data."""

_HEAD_CHARS = 4096
"""How much of a block's base64 is decoded to read its dimensions: 3 KiB of header bytes."""


def _dimensions(head: bytes) -> tuple[int, int] | None:
    """Width and height read off the first bytes of a PNG, GIF, JPEG or WebP image; ``None`` when not there."""
    if head.startswith(b"\x89PNG\r\n\x1a\n") and head[12:16] == b"IHDR" and len(head) >= 24:
        width, height = struct.unpack(">II", head[16:24])
        return width, height
    if head[:6] in (b"GIF87a", b"GIF89a") and len(head) >= 10:
        width, height = struct.unpack("<HH", head[6:10])
        return width, height
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP" and len(head) >= 30:
        chunk = head[12:16]
        if chunk == b"VP8X":
            return 1 + int.from_bytes(head[24:27], "little"), 1 + int.from_bytes(head[27:30], "little")
        if chunk == b"VP8 ":
            width, height = struct.unpack("<HH", head[26:30])
            return width & 0x3FFF, height & 0x3FFF
        if chunk == b"VP8L" and len(head) >= 25:
            bits = int.from_bytes(head[21:25], "little")
            return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
        return None
    if head[:2] == b"\xff\xd8":
        return _jpeg_dimensions(head)
    return None


def _jpeg_dimensions(head: bytes) -> tuple[int, int] | None:
    at = 2
    while at + 9 <= len(head):
        if head[at] != 0xFF:
            return None
        marker = head[at + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
            at += 1 if marker == 0xFF else 2
            continue
        length = int.from_bytes(head[at + 2 : at + 4], "big")
        # the start-of-frame markers (not DHT C4, JPG C8, DAC CC) hold the height, then the width
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", head[at + 5 : at + 9])
            return width, height
        at += 2 + length
    return None


def media_label(raw: Mapping[str, Any]) -> str | None:
    """An image or document block (its wire form) in one line: ``[image/png, 12,345 bytes, 640\u00d7480]``.

    The bytes are counted from the base64's length; the dimensions of a PNG, GIF, JPEG or WebP image
    are read from its first few KiB, decoded alone. ``None`` for any other block.
    """
    kind = raw.get("type")
    if kind not in MEDIA_TYPES:
        return None
    source = raw.get("source")
    if not isinstance(source, Mapping):
        return f"[{kind}]"
    media_type = str(source.get("media_type") or kind)
    data = source.get("data")
    said = [media_type]
    if source.get("type") == "url":
        said.append(f"at {str(source.get('url', ''))[:200]}")
    elif isinstance(data, str):
        if source.get("type") == "base64":
            said.append(f"{_media_bytes(source):,} bytes")
            try:
                head = base64.b64decode(data[:_HEAD_CHARS], validate=False)
            except (binascii.Error, ValueError):
                head = b""
            dimensions = _dimensions(head) if kind == "image" else None
            if dimensions is not None:
                said.append(f"{dimensions[0]:,}\u00d7{dimensions[1]:,}")
        else:
            said.append(f"{len(data.encode('utf-8', 'surrogatepass')):,} bytes of {source.get('type') or 'data'}")
    elif source.get("type"):
        said.append(str(source["type"]))
    return "[" + ", ".join(said) + "]"


def _media_bytes(source: Mapping[str, Any]) -> int:
    """The bytes a media block's source holds: its base64 decoded (counted from its length), its text else; 0 for a
    source of no data (a URL)."""
    data = source.get("data")
    if not isinstance(data, str):
        return 0
    if source.get("type") == "base64":
        return len(data) * 3 // 4 - (len(data) - len(data.rstrip("=")))
    return len(data.encode("utf-8", "surrogatepass"))


def media_held(block: Any) -> str:
    """The images and documents among the parts of a result block (``block``, a ``ContentBlock`` read by its
    attributes, whose wire form holds them), in words with their bytes as ``media_label`` counts them: ``an image of
    13,686 bytes``, ``2 images and a document of 40,120 bytes``; ``""`` for a block that holds none. What a display
    says beside the bytes of a result's text, which count none of them."""
    held = _media_parts(block)
    if held is None:
        return ""
    counts, size = held
    kinds = [f"{_ARTICLES[kind]} {kind}" if count == 1 else f"{count} {kind}s" for kind, count in counts.items()]
    return f"{' and '.join(kinds)} of {size:,} bytes"


def media_short(block: Any) -> str:
    """``media_held`` in a table's few words: its bytes then what they are (``13,686 image``, ``40,120 images and
    document``); ``""`` for a block that holds none."""
    held = _media_parts(block)
    if held is None:
        return ""
    counts, size = held
    return f"{size:,} " + " and ".join(kind if count == 1 else f"{kind}s" for kind, count in counts.items())


_ARTICLES = {"image": "an", "document": "a"}


def _media_parts(block: Any) -> tuple[dict[str, int], int] | None:
    """How many images and documents the parts of a result block hold, images first, and their bytes together;
    ``None`` for a block that holds none (``media_held``)."""
    raw = block.raw
    parts = raw.get("content") if raw is not None and _is_result(str(raw.get("type", ""))) else None
    if not isinstance(parts, list):
        return None
    media = [part for part in parts if isinstance(part, Mapping) and part.get("type") in MEDIA_TYPES]
    if not media:
        return None
    counts = Counter(str(part["type"]) for part in media)
    size = sum(_media_bytes(source) for part in media if isinstance(source := part.get("source"), Mapping))
    return {kind: counts[kind] for kind in _ARTICLES if kind in counts}, size


@dataclass(frozen=True, slots=True)
class BlockSaid:
    """A content block as every display says it: its body as text to read, and what else it holds, in words."""

    body: str
    """What the block holds, to read: a text's or a thinking's text, a result's content (a list of parts said part by
    part), a tool use's input as JSON, an image or a document in one line, a block of a type no display knows as the
    JSON of its wire form."""
    value: Any = None
    """For a ``json`` body, the value it shows (a terminal prints a short one on one line)."""
    json: bool = False
    """The body is JSON (a tool use's input, a block of a type no display knows)."""
    name: str = ""
    """The tool a tool use calls (``tool_use``, ``server_tool_use``, ``mcp_tool_use``)."""
    ref: str = ""
    """A tool use's id, or the id of the tool use a result answers."""
    notes: tuple[str, ...] = ()
    """What the block holds besides its body, each in a few words: ``"cache breakpoint"``, ``"caller: {...}"``."""
    answers: str = ""
    """For a result, when the display knows the turn it answers: the tool use of that id, in words (``answers
    Read``), so a result read out of order (parallel calls answered as they finished) names its call."""
    wire: str = ""
    """When the body is not the block's JSON as ``display`` writes it (a tool use's input whose strings hold line
    breaks, shown as lines): that JSON, exactly what was sent, for a display to offer beside the body."""


_USES = frozenset(("tool_use", "server_tool_use", "mcp_tool_use"))
"""The blocks that call a tool: said by their name, id and input (the API's own tools and an MCP server's too)."""

_SAID_KEYS: dict[str, frozenset[str]] = {
    "text": frozenset(("type", "text")),
    "thinking": frozenset(("type", "thinking", "signature")),
    "redacted_thinking": frozenset(("type", "data")),
    "tool_result": frozenset(("type", "tool_use_id", "content", "is_error")),  # is_error: the block's fact says it
    **dict.fromkeys(_USES, frozenset(("type", "id", "name", "input"))),
    **dict.fromkeys(MEDIA_TYPES, frozenset(("type", "source"))),
}
"""The keys of a wire form that a block's body (with its name and id) says, by type; any other key is a note."""

_BODY_KEYS = {"text": "text", "thinking": "thinking", "redacted_thinking": "data"}
"""The key holding the body of a block whose body is one text."""


def _is_result(kind: str) -> bool:
    """A block that answers a tool use: a ``tool_result``, an MCP server's, or one of the API's own tools'."""
    return kind == "tool_result" or kind.endswith("_tool_result")


def tool_uses(*turns: Iterable[Any]) -> dict[str, str]:
    """The tool each tool use among the blocks of ``turns`` (``ContentBlock``s, read by their attributes) calls, by the
    use's id: what ``block_said`` names a result by. Give it the assistant turn a user turn's results answer (and, for
    an assistant turn, that turn itself: a server tool's result follows its use there)."""
    named: dict[str, str] = {}
    for turn in turns:
        for block in turn:
            if block.type == "tool_use":
                named[block.tool_use_id] = block.name
            elif block.type in _USES and block.raw is not None:
                named[str(block.raw.get("id", ""))] = str(block.raw.get("name", ""))
    return named


def turn_uses(turn: Any, step: Any = None) -> dict[str, str] | None:
    """The tool uses the results of ``turn`` (a view's ``MessageFact``) may answer (``tool_uses``): for a step's user
    turn, the uses of its assistant turn (of ``step``, a ``StepFact``); for an assistant turn, its own (a server tool's
    result follows its use); ``None`` for the opening, which answers no turn."""
    if turn.turn == "assistant":
        return tool_uses(turn.message.content)
    if turn.turn == "result" and step is not None and step.assistant is not None:
        return tool_uses(step.assistant.message.content)
    return None


def _answers(ref: str, uses: Mapping[str, str] | None) -> str:
    """The tool use of id ``ref`` among ``uses`` (``tool_uses``), in words; ``""`` when the turn before is unknown or
    holds no tool use of that id as a block: a hook's block may carry the turn as raw text, so a display says only the
    id, and ``check`` is what judges a result that answers nothing."""
    name = uses.get(ref) if uses is not None and ref else None
    return "" if name is None else f"answers {name or 'a tool use'}"


def block_said(block: Any, uses: Mapping[str, str] | None = None) -> BlockSaid:
    """``block`` (a ``ContentBlock``, read by its attributes) as every display says it (``BlockSaid``).

    A block its fields say whole is said by them. A block that keeps its wire form (``raw``) for what they cannot
    carry is said from that: a result whose content is a list of parts says each part (its text, an image in one
    line), a key no body says (a cache breakpoint, a caller, citations) is a note, and a block of a type no display
    knows is the JSON of its wire form, whole. ``uses`` (``tool_uses`` of the turn a result answers) names the tool
    use a result answers.
    """
    said = _said(block)
    if said.ref and not said.name and uses is not None:
        return dataclasses.replace(said, answers=_answers(said.ref, uses))
    return said


def _said(block: Any) -> BlockSaid:
    raw = block.raw
    if raw is None or not block.opaque:
        kind = block.type
        if kind == "tool_use":
            return _use_said(block.input, block.name, block.tool_use_id)
        if kind == "tool_result":
            return BlockSaid(block.content, ref=block.tool_use_id)
        return BlockSaid(encrypted_said(block) or block.text)
    return wire_said(raw)


def encrypted_said(block: Any) -> str:
    """A reasoning block that is only encrypted, in one line as a media block is: what it is and the size of what was
    sent (``encrypted_bytes``), where it showed as an empty thinking block or a base64 blob; ``""`` for any other
    block. ``block`` is a ``ContentBlock`` (read by its attributes) or a block's wire form."""
    encrypted = _encrypted(block)
    if encrypted is None:
        return ""
    secret, what = encrypted
    return f"[encrypted reasoning: {_utf8_bytes(secret):,} bytes of {what}, sent back as it was]"


def encrypted_bytes(block: Any) -> int | None:
    """The UTF-8 bytes a reasoning block that is only encrypted (``encrypted_said``) sent: its signature, or a
    ``redacted_thinking`` block's data; ``None`` for any other block. ``block`` as ``encrypted_said`` takes it."""
    encrypted = _encrypted(block)
    return None if encrypted is None else _utf8_bytes(encrypted[0])


def _encrypted(block: Any) -> tuple[str, str] | None:
    """What a reasoning block that is only encrypted sent, and what it is called; ``None`` for any other block.

    Such a block is a thinking block of no text but its signature (a Responses API reasoning item, whose
    ``encrypted_content`` is its signature; a Claude thinking block whose text was left out), or a Claude
    ``redacted_thinking`` block, whose ``data`` is the reasoning encrypted. The agent sends it back as it was.
    """
    if isinstance(block, Mapping):
        kind, text = block.get("type"), block.get("thinking")
        secret = block.get("signature") if kind == "thinking" else block.get("data")
    else:
        kind, text = block.type, block.text
        secret = block.signature if kind == "thinking" else block.text
    if kind == "thinking" and not text and isinstance(secret, str) and secret:
        return secret, "signature"
    if kind == "redacted_thinking" and isinstance(secret, str):
        return secret, "data"
    return None


def _utf8_bytes(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def wire_said(wire: Mapping[str, Any]) -> BlockSaid:
    """A block's wire form as ``block_said`` says it."""
    kind = str(wire.get("type", ""))
    result = _is_result(kind)
    said_keys = _SAID_KEYS.get(kind, frozenset(("type", "tool_use_id", "content")) if result else None)
    if said_keys is None:  # a type no display knows: its wire form, whole
        whole = dict(wire)
        return BlockSaid(display(whole), whole, True)
    notes = tuple(_note(key, value) for key, value in wire.items() if key not in said_keys and not says_nothing(value))
    if kind in _USES:
        return _use_said(wire.get("input"), str(wire.get("name", "")), str(wire.get("id", "")), notes)
    if result:
        return BlockSaid(_content_said(wire.get("content")), ref=str(wire.get("tool_use_id", "")), notes=notes)
    if kind in MEDIA_TYPES:
        return BlockSaid(media_label(wire) or f"[{kind}]", notes=notes)
    return BlockSaid(encrypted_said(wire) or str(wire.get(_BODY_KEYS[kind], "")), notes=notes)


TEXT_INPUT = "its input is text, sent as it is"
"""The note of a tool use whose input is a text, not a JSON value (Codex's ``apply_patch``: the patch itself)."""
WIRE_SAID = "its wire form, as JSON"
"""What a display calls a block's wire form as JSON, offered beside a body that shows it otherwise
(``BlockSaid.wire``)."""
LINES_INPUT = "line breaks in its strings shown as lines"
"""The note of a tool use whose input's strings hold line breaks, shown as lines (``BlockSaid.wire``: its JSON)."""

_LINE_BREAK = re.compile(r"(?<!\\)((?:\\\\)*)\\n")
"""A ``\\n`` escape in JSON text (after an even number of backslashes: not an escaped backslash and an ``n``)."""


def _use_said(value: Any, name: str, ref: str, notes: tuple[str, ...] = ()) -> BlockSaid:
    """A tool use by its name, id and input: a text input (a custom tool's such as Codex's ``apply_patch``, arguments
    that were not JSON) as its lines, as a text result is, with a note that it is text; a JSON input as JSON, each
    line break in its strings (an ``Edit``'s ``old_string``, a ``Write``'s ``content``) shown as one, with a note and
    its wire form as JSON (``wire``) beside it, where both were one line of ``\\n`` escapes."""
    if isinstance(value, str):
        return BlockSaid(value, value, False, name, ref, (TEXT_INPUT, *notes))
    encoded = display(value)
    lines = _LINE_BREAK.sub(lambda found: found.group(1) + "\n", encoded)
    if lines == encoded:
        return BlockSaid(encoded, value, True, name, ref, notes)
    return BlockSaid(lines, value, True, name, ref, (LINES_INPUT, *notes), wire=encoded)


def _content_said(content: Any) -> str:
    """A result's content as text: a string as it is, a list of parts each said on its own lines, else its JSON."""
    if isinstance(content, str):
        return content
    if content is None:
        return ""
    if not isinstance(content, list):
        return display(content)
    said = []
    for part in content:
        if not isinstance(part, Mapping):
            said.append(display(part))
            continue
        part_said = wire_said(part)
        notes = f" [{'; '.join(part_said.notes)}]" if part_said.notes else ""
        said.append(part_said.body + notes)
    return "\n".join(said)


def _note(key: str, value: Any) -> str:
    """A key of a block's wire form that its body does not say, in a few words: a cache breakpoint (with its time to
    live), else the key and its value's compact JSON."""
    if key == "cache_control" and isinstance(value, Mapping) and set(value) <= {"type", "ttl"}:
        ttl = value.get("ttl")
        kind = value.get("type")
        said = "cache breakpoint" if kind == "ephemeral" else f"cache breakpoint ({display(kind, indent=None)})"
        return f"{said}, ttl {ttl}" if isinstance(ttl, str) and ttl else said
    return f"{key}: {display(value, indent=None)}"


def tools_said(first: str, others: Sequence[str]) -> str:
    """The tools a reply of parallel tool uses called: the first (the decision's) then, in brackets, the others, each
    once in the order first called, with how many times when more than once (``Read (+ WebFetch)``,
    ``exec_command (+ exec_command \u00d72)``)."""
    counts = Counter(others)
    said = ", ".join(name if counts[name] == 1 else f"{name} \u00d7{counts[name]}" for name in counts)
    return f"{first} (+ {said})"


def shown_path(path: str) -> str:
    """``path`` as a display names a run's file: relative to the working folder when that is shorter (a file under it,
    or beside it: ``../sample_runs/run.jsonl`` from a notebook's folder), the same on every machine that holds the
    same tree; else as it is."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive, on Windows
        return path
    return relative if len(relative) < len(path) else path
