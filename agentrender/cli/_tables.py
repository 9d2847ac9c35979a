"""``steps``, ``context``, ``keys`` and ``samples``: tables of facts read off the run and its views."""

from __future__ import annotations

import dataclasses
import numbers
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from agentrender._display.said import (
    end_said,
    inherited_said,
    link_role,
    media_short,
    scores_of,
    scores_words,
    source_said,
    tools_said,
    warning_groups,
)
from agentrender._types import Step
from agentrender._words import plural
from agentrender.cli._show import NO_DECISION_SKIPPED, NO_DECISION_YET, said_warning_lines, warning_lines
from agentrender.cli._term import (
    DISAGREE,
    INHERITED,
    KIND_STYLES,
    MUTED,
    SKIPPED,
    TAGS,
    AtWidth,
    Console,
    ConsoleOptions,
    Copyable,
    Fitted,
    Group,
    Gutter,
    RenderResult,
    Table,
    Text,
    box,
    cell_len,
    clean,
)
from agentrender.frame import STEP_LEAD_COLUMNS, kinds_listed, other_tools, steps_frame, tools_kept
from agentrender.runfile import Run
from agentrender.views import (
    ENDED_SAW,
    LEFT_OUT_SAID,
    LEFT_OUT_TEXT,
    NO_VALUE,
    PREFILL_SAID,
    SKIPPED_SAW,
    SizeSeries,
    Views,
    listed_kind,
)

if TYPE_CHECKING:
    import pandas as pd

    from agentrender.frame import ParquetExport

__all__ = [
    "FORMULA_STARTS",
    "PREFILL_KIND",
    "StepsTable",
    "context_json",
    "context_renderables",
    "csv_cell",
    "filter_misses",
    "key_rows",
    "keys_renderable",
    "kind_asked",
    "run_row",
    "runs_listed",
    "runs_renderable",
    "sample_row",
    "samples_renderable",
    "steps_rows",
]


def _text_columns(frame: pd.DataFrame) -> list[str]:
    return [str(name) for name, dtype in frame.dtypes.items() if str(dtype) in ("string", "category", "object")]


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What a spreadsheet reads as the start of a formula (OWASP's CSV injection guidance)."""


def csv_cell(text: str) -> str:
    """``text`` for a CSV cell: one that starts like a formula (``FORMULA_STARTS``: ``=HYPERLINK(...)``,
    ``=cmd|...``) gets a leading ``'``, so a spreadsheet shows it as text instead of running it, as OWASP's
    CSV injection guidance says."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


@dataclass(frozen=True, slots=True)
class StepsTable:
    """The rows of ``agentrender.frame.steps_frame`` that passed the filters, out of ``total``.

    ``frame`` has every column of ``agentrender.frame.STEP_COLUMNS``, what the model saw of
    each step (``shown_as``, a kind of ``views.BLOCK_KINDS``) among them.
    """

    frame: pd.DataFrame
    total: int
    media: Mapping[int, str] = dataclasses.field(default_factory=dict)
    """The images and documents the result of each step that holds any showed the model (``media_short``), by the
    step's index: the table says them beside its content's bytes, which count its text alone."""
    reasons: Mapping[int, str] = dataclasses.field(default_factory=dict)
    """The reason of each step the table says otherwise than its decision holds it (``Views.reasons_said``: the
    caller's prefill marked, the note on further tool uses its agent ran left off, as its tool column names them), by
    the step's index; ``--json`` and ``--csv`` keep the reason as the run holds it."""
    misses: tuple[str, ...] = ()
    """What a filter asked that no step of the run has, one sentence each with the values it does have
    (``filter_misses``): said on stderr, since an empty table alone reads as a run without such steps."""

    def records(self) -> list[dict[str, Any]]:
        """One dict per row: every column of the frame (timestamps in ISO 8601, nulls as None; ``other_tools``, the
        frame's JSON text, as the list it holds)."""
        names = [str(name) for name in self.frame.columns]
        rows = [
            {name: _plain(value) for name, value in zip(names, values, strict=True)}
            for values in self.frame.itertuples(index=False)
        ]
        for row, others in zip(rows, other_tools(self.frame), strict=True):
            if row["other_tools"] is not None:
                row["other_tools"] = list(others)
        return rows

    def write_csv(self, out: IO[str]) -> None:
        """The rows as CSV; text is cleaned, since a CSV is as often read in a terminal as in a program, and a text
        cell a spreadsheet would run as a formula is neutralised (``csv_cell``)."""
        frame = self.frame.copy()
        for name in _text_columns(frame):
            frame[name] = frame[name].astype("object").map(lambda v: clean(csv_cell(v)) if isinstance(v, str) else v)
        frame.to_csv(out, index=False, lineterminator="\n", date_format="%Y-%m-%dT%H:%M:%S.%fZ")

    def renderable(self, run: Run, yet: Callable[[Step], bool] | None = None) -> Group:
        """The rows as a terminal table (what the model saw in one column), with how many steps matched; ``yet``:
        whether a step with no decision may still get one (a follow's, ``_follow.undecided``), which its row says
        (``NO_DECISION_YET``), not that the model saw it skipped."""
        table = Table(box=box.SIMPLE_HEAD, header_style="bold", pad_edge=False, expand=True, padding=(0, 1, 0, 0))
        # every step's number whole, and a header no narrower than its name: a long tool name (an MCP server's
        # mcp__server__tool) is cut instead, where it would have squeezed the other columns to "…"
        last = int(self.frame["index"].max()) if len(self.frame) else 0
        for name, header, justify in _SHOWN_COLUMNS:
            if name == "reason":
                table.add_column(header, ratio=1, min_width=10, overflow="ellipsis")
            elif name == "shown_as":  # words that wrap ("nothing: the conversation ended") where the table is narrow
                table.add_column(header)
            else:
                widest = len(f"{last:,}") if name == "index" else len(header)
                table.add_column(
                    header,
                    justify=justify,  # type: ignore[arg-type]
                    no_wrap=True,
                    min_width=widest,
                    max_width=_TOOL_CHARS if name == "tool" else None,
                    overflow="ellipsis",
                )
        columns = [name for name, _, _ in _SHOWN_COLUMNS]
        marks = (
            "other_tools",
            "ended",
            "prefill",
            "in_view",
            "compaction",
            "compaction_bytes_before",
            "compaction_bytes_after",
            "inherited",
        )
        read = [*columns, *(name for name in marks if name in self.frame)]
        called = other_tools(self.frame)
        compacted = False
        to_come = {step.index for step in run.steps if step.decision is None and yet(step)} if yet is not None else ()
        for values, others in zip(self.frame[read].itertuples(index=False), called, strict=True):
            record = dict(zip(read, (None if _null(v) else v for v in values), strict=True))
            kind = record["shown_as"]
            if record.get("compaction") is not None:
                table.add_row(*_compaction_cells(columns, record), style="bold")
            if record.get("ended"):
                saw = Text(ENDED_SAW, style=SKIPPED)
                style = ""
            elif record.get("in_view") is False:  # as sent, before the compaction the last view restarts from
                saw = Text(LEFT_OUT_SAID, style=SKIPPED)  # in short, a row a line: said in full under the rows
                compacted = True
                style = SKIPPED
            elif kind is None:
                saw = Text(NO_DECISION_YET if record["index"] in to_come else SKIPPED_SAW, style=SKIPPED)
                style = SKIPPED
            else:
                saw = Text(TAGS.get(kind, kind), style=KIND_STYLES.get(kind, ""))
                style = "red" if record["status"] == "error" else ""
            if record.get("inherited"):
                style = f"{style} {INHERITED}".strip()
            index = record["index"]
            if record["content_bytes"] is not None and index is not None and (media := self.media.get(int(index))):
                record["content_bytes"] = f"{record['content_bytes']:,} + {media}"
            if others:
                record["tool"] = tools_said(str(record["tool"]), others)
            if index is not None and (said := self.reasons.get(int(index))) is not None:
                record["reason"] = said
            record["kind"] = listed_kind(record["kind"], prefill=bool(record.get("prefill")))
            if record["summary_bytes"] == 0:  # no summary (an imported run's steps), not one of 0 bytes: --csv's 0
                record["summary_bytes"] = None
            table.add_row(*(saw if name == "shown_as" else _cell(name, record[name]) for name in columns), style=style)
        shown = len(self.frame)
        what = f"{shown:,} of {plural(self.total, 'step')}" if shown != self.total else plural(self.total, "step")
        heading = Text(f"  {what} \u00b7 'the model saw': its user turn in the view after the last step", style=MUTED)
        if run.inherited_steps:
            heading.append(f" \u00b7 {inherited_said(run.inherited_steps)}", style=MUTED)
        title = _title_line(run.run_id or run.path, heading)
        # narrow, the words of what the model saw wrap, then the reason (in full in --json) is cut below its 10
        # columns, then left out; only then a tool's name (the others called beside it first) and the kind last
        narrow = tuple(map(columns.index, ("shown_as", "reason", "tool", "kind")))
        fitted = Fitted(table, narrow, leave=columns.index("reason"), left_out=_reasons_left_out)
        if compacted:
            return Group(title, fitted, Text(f"{LEFT_OUT_SAID}: {LEFT_OUT_TEXT}", style=MUTED))
        return Group(title, fitted)


def _compaction_cells(columns: list[str], record: dict[str, Any]) -> list[Text]:
    """A row marking the compaction right before the step ``record`` is of, with the view's bytes before and after."""
    before, after = record.get("compaction_bytes_before"), record.get("compaction_bytes_after")
    sizes = f": the view {before:,} bytes just before, {after:,} just after" if before is not None else ""
    said = {
        "index": "\u2702",
        "kind": "compaction",
        "tool": str(record["compaction"]),
        "reason": f"before step {record['index']}{sizes}",
    }
    # one line, its words cut where the table ends as a reason's are (the sizes in full: --json, show, context)
    return [Text(clean(said.get(name, ""), one_line=True), no_wrap=True, overflow="ellipsis") for name in columns]


_TOOL_CHARS = 28
"""The most characters the steps table gives a tool's name (the whole name is in ``--json`` and ``--csv``)."""

# The terminal's headers and alignments of the columns it shows (agentrender.frame.STEP_LEAD_COLUMNS; the frame's
# others are in --json and --csv), where they are not the column's name and "left".
_HEADERS: dict[str, tuple[str, str]] = {
    "index": ("#", "right"),
    "shown_as": ("the model saw", "left"),
    "content_bytes": ("content", "right"),
    "summary_bytes": ("summary", "right"),
}
_SHOWN_COLUMNS = tuple((name, *_HEADERS.get(name, (name, "left"))) for name in STEP_LEAD_COLUMNS)


def _plain(value: Any) -> Any:
    """A frame cell as a JSON value: nulls as None, numpy numbers as Python's, ISO 8601 times, durations in seconds."""
    if _null(value):
        return None
    # a bool first: numpy's (a nullable boolean column's cell) is no numbers.Integral, and JSON would get its repr
    if isinstance(value, bool) or getattr(getattr(value, "dtype", None), "kind", "") == "b":
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if hasattr(value, "total_seconds"):
        return value.total_seconds()
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def _null(value: Any) -> bool:
    try:
        return bool(value is None or value != value or str(value) == "<NA>")
    except (TypeError, ValueError):  # pandas.NA refuses comparison in a bool context
        return True


def _reasons_left_out(width: int, keeps: int) -> str:
    return f"the reasons are left out at {width} columns: --json has each in full, --width {keeps} shows them"


_CELL_CHARS = 1000
"""The most characters of a value a table cell is given: more than a terminal line holds.

A 10 MB reason is cut here before it is cleaned, not cleaned whole and cut by the table.
"""


def _cell(name: str, value: Any) -> Text:
    if value is None:
        return Text(NO_VALUE, style=MUTED)
    if isinstance(value, bool):
        return Text("yes" if value else "no")
    if isinstance(value, numbers.Integral):
        return Text(f"{value:,}")
    text = str(value)
    shown = clean(text[:_CELL_CHARS], one_line=True) + ("\u2026" if len(text) > _CELL_CHARS else "")
    if name == "reason":
        # one line, cut with an ellipsis where the table ends: the reason in full is in --json
        return Text(shown, no_wrap=True, overflow="ellipsis")
    return Text(shown)


def _keep(column: pd.Series, wanted: Sequence[str] | None) -> pd.Series:
    """Rows whose value is one of ``wanted`` (``none`` matches a null); every row when nothing is wanted."""
    if not wanted:
        return column.notna() | column.isna()
    values = column.astype("object")
    matched = values.isin([w for w in wanted if w != "none"])
    if "none" in wanted:
        matched = matched | values.isna()
    return matched.fillna(False).astype(bool)


PREFILL_KIND = "prefill"
"""What ``steps --kind`` takes for the kind of a prefill no reply answered, the caller's text (``views.listed_kind``:
the table lists it as ``views.PREFILL_SAID``, whose first word this is, and takes that whole label too), and names it
by among the kinds a run's steps have."""


def kind_asked(kind: str) -> str:
    """A value of ``--kind`` as the CLI's filters compare it (``PREFILL_KIND`` for the whole prefill label)."""
    return PREFILL_KIND if kind == PREFILL_SAID else kind


def _kinds(frame: pd.DataFrame) -> pd.Series:
    """The kind each row of a ``steps_frame`` is kept by under ``--kind`` (``frame.kinds_listed``, a prefill's said
    ``PREFILL_KIND``)."""
    return kinds_listed(frame).replace(PREFILL_SAID, PREFILL_KIND)


def steps_rows(
    run: Run,
    *,
    recent_results: int | None = None,
    result_bytes: int | None = None,
    tool: Sequence[str] | None = None,
    status: Sequence[str] | None = None,
    kind: Sequence[str] | None = None,
) -> StepsTable:
    """The steps table of ``run``: ``steps_frame`` under the run's options with the window settings given, filtered."""
    overrides = {"recent_results": recent_results, "result_bytes": result_bytes}
    views = Views(run, run.options(**{name: value for name, value in overrides.items() if value is not None}))
    frame = steps_frame(run, views=views)
    media: dict[int, str] = {}
    if run.records_sent:  # only results as sent hold images or documents
        for step, shown in zip(run.steps, views.at(None).result_blocks(), strict=True):
            if shown is not None and (said := media_short(shown.block)):
                media[step.index] = said
    # a reply of parallel tool uses is kept for any of them, not only its decision's first
    tools = tools_kept(frame, tool) if tool else _keep(frame["tool"], None)
    listed = frame
    if kind:  # a prefill is the caller's text, kept by its own kind and never as the no_tool_call the run recorded
        kind = [kind_asked(asked) for asked in kind]
        listed = frame.assign(kind=_kinds(frame))
    keep = tools & _keep(listed["status"], status) & _keep(listed["kind"], kind)
    misses = filter_misses(listed, tool=tool, status=status, kind=kind)
    return StepsTable(
        frame=frame[keep].reset_index(drop=True),
        total=len(frame),
        media=media,
        reasons=views.reasons_said(),
        misses=misses,
    )


def filter_misses(frame: pd.DataFrame, **wanted: Sequence[str] | None) -> tuple[str, ...]:
    """For each filter of the steps table (a column of ``frame`` and the values asked of it), the values no row has,
    in a sentence naming the values the rows do have and how many of each (``none``: a null, as ``_keep`` takes it).
    The tools of a reply of parallel tool uses (the frame's ``other_tools``) count as its step's, as ``--tool`` keeps
    it."""
    said = []
    for name, values in wanted.items():
        if not values:
            continue
        here = Counter(frame[name].astype("object").fillna("none"))
        if name == "tool":  # the steps that called a tool beside their decision's first
            pairs = zip(frame["tool"].tolist(), other_tools(frame), strict=True)
            here.update(tool for first, others in pairs if others for tool in set(others) - {first})
        missed = [value for value in dict.fromkeys(values) if value not in here]
        if missed:
            has = ", ".join(f"{value} ({count:,})" for value, count in sorted(here.items()))
            said.append(
                f"--{name} {', '.join(missed)}: no step has this {name}; "
                + (f"its steps have {has}" if has else "the run has no step")
            )
    return tuple(said)


# ---------------------------------------------------------------------------- context


def context_json(series: SizeSeries) -> list[dict[str, Any]]:
    """One dict per view: the columns of ``SizeSeries``."""
    columns = series.columns()
    names = list(columns)
    return [dict(zip(names, values, strict=True)) for values in zip(*columns.values(), strict=True)]


_BAR = 16
"""The widest a bar of ``context`` is drawn: the largest view's size."""

_NOTE_CHARS = 12
"""The narrowest the note column of ``context`` is made (it wraps)."""

_SIZE_COLUMNS = ("at", "messages", "bytes", "~tokens", "no window", "prefix", "re-sent")


_PAST = "\u00bb"
"""The last character of a bar whose view is larger than the scale's largest (a row ``context --follow`` prints)."""


def _bar(prefix: int, total: int, largest: int, chars: int) -> Text:
    """``chars`` for a view of ``largest`` bytes; a larger one (``context --follow``, to its table's scale) is the
    whole bar, ending in ``_PAST``."""
    past = total > largest > 0
    width = chars - 1 if past else round(chars * total / largest) if largest else 0
    kept = min(width, round(chars * prefix / largest)) if largest else 0
    bar = Text("\u2588" * kept, style=MUTED)
    bar.append("\u2588" * max(0, width - kept), style="cyan")
    if past:
        bar.append(_PAST, style="bold cyan")
    return bar


def _note(row: dict[str, Any]) -> Text:
    """What happened to the cache prefix at a view: a result left the window, a compaction restarted it, nothing."""
    note = Text("")
    if row["compaction"] is not None and row["first_diff"] == 0:
        note.append(f"\u2702 compaction ({row['compaction']}): the conversation restarted", style="bold")
    else:
        if row["left_window"] is not None:
            note.append(f"\u2702 step {row['left_window']} left the window", style="yellow")
        if row["compaction"] is not None:  # under the contract's options the whole history is rendered
            note.append("; " if note else "")
            note.append(f"compaction ({row['compaction']}) here as sent: rendered across", style=MUTED)
    if row["first_diff"] is None:
        undecided = row.get("undecided")
        what = NO_DECISION_YET if row.get("yet") else NO_DECISION_SKIPPED
        said = "unchanged" if undecided is None else f"step {undecided:,}: {what}"
        note.append(said, style=MUTED)
    return note


def _undecided(
    rows: list[dict[str, Any]], steps: Sequence[Step], yet: Callable[[Step], bool] | None = None
) -> list[dict[str, Any]]:
    """``rows`` (of ``context_json``), each view just after a step that recorded no decision marked with that step
    (``undecided``): the render skips such a step, so the view is the one before it, which ``_note`` says so, not
    as a view merely unchanged; ``yet``: whether such a step may still get a decision (a follow's, ``undecided``),
    which its row then says (``yet``), not that it is skipped."""
    skipped = {step.index + 1: step for step in steps if step.decision is None}
    if not skipped:
        return rows
    return [
        {**row, "undecided": step.index, **({"yet": True} if yet is not None and yet(step) else {})}
        if (step := skipped.get(row["at"])) is not None
        else row
        for row in rows
    ]


@dataclass(slots=True)
class SizesLayout:
    """How the sizes table of ``context`` was laid out, for the lines ``context --follow`` prints under it: each
    column of numbers as wide as in the table (or wider, for a larger number), the bar to the table's scale (a view
    larger than its largest: the whole bar, ending in ``_PAST``)."""

    widths: list[int]
    """The width of each column of numbers, in the order of ``_SIZE_COLUMNS``; ``[]``: no table laid out yet."""
    largest: int = 0
    """The bytes of the largest view: the longest bar."""
    chars: int = _BAR
    """How many characters the longest bar takes."""
    below: bool = False
    """Whether the notes are lines under the table (no room for their column)."""


@dataclass(frozen=True, slots=True)
class _SizesTable:
    """The sizes of ``context`` as a table laid out for the width it is printed at: each column of numbers as wide
    as its widest number. What gives way in a narrow terminal is the bar (drawn shorter, to scale), then the headers
    (over two lines), and the note wraps: at 80 columns every number is whole and no column is left out. Narrower
    than the numbers and a note column of ``_NOTE_CHARS`` need, each note is a line under the table (``at 7: ...``)
    instead, where the table squeezed the note column out.

    ``layout``: where the table records its layout (``header``), or the layout its rows follow (no ``header``: the
    rows ``context --follow`` prints under the table, in its columns)."""

    rows: list[dict[str, Any]]
    layout: SizesLayout | None = None
    header: bool = True

    @property
    def plain(self) -> str:
        """What its rows say, one a line: a row printed again says nothing new (``--follow`` compares them)."""
        return "\n".join(repr(row) for row in self.rows)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        cells = [
            [
                f"{row[name]:,}"
                for name in ("at", "messages", "bytes", "tokens", "bytes_no_window", "prefix_bytes", "resent_bytes")
            ]
            for row in self.rows
        ]
        widest = [max((len(line[i]) for line in cells), default=0) for i in range(len(_SIZE_COLUMNS))]
        largest = max((row["bytes"] for row in self.rows), default=0)
        layout = self.layout
        headers = list(_SIZE_COLUMNS)
        if layout is not None and not self.header and layout.widths:  # a line under the table: in its columns
            widths = [max(a, b) for a, b in zip(layout.widths, widest, strict=True)]
            chars, largest, below = layout.chars, layout.largest or largest, layout.below
        else:
            widths = [max(len(header), width) for header, width in zip(headers, widest, strict=True)]
            # the table's two edges, and between two columns a space of padding and the box's divider
            padding = 2 + 2 * (len(headers) + 1)
            room = options.max_width - sum(widths) - padding - _NOTE_CHARS
            if room < 4:  # the headers wider than their numbers go over two lines
                headers = [header.replace(" ", "\n") for header in headers]
                widths = [
                    max(*map(len, header.split("\n")), width) for header, width in zip(headers, widest, strict=True)
                ]
                room = options.max_width - sum(widths) - padding - _NOTE_CHARS
            below = room < 1  # no room for a bar and the note column: the notes go under the table
            if below:
                room = options.max_width - sum(widths) - padding + 2
            chars = max(1, min(_BAR, room))
            if layout is not None:
                layout.widths, layout.largest, layout.chars, layout.below = widths, largest, chars, below
        # a line under the table is a table built as the table was (its edges too: Rich spreads the width left over,
        # or takes what is missing, by the whole width), of which the row alone is printed
        table = Table(
            box=box.SIMPLE_HEAD,
            header_style="bold",
            pad_edge=False,
            expand=True,
            padding=(0, 1, 0, 0),
            show_header=self.header,
        )
        for header, width in zip(headers, widths, strict=True):
            table.add_column(header, justify="right", no_wrap=True, width=width)
        table.add_column("", no_wrap=True, width=chars)
        if not below:
            table.add_column("note", ratio=1)
        notes = []
        for row, line in zip(self.rows, cells, strict=True):
            bar, note = _bar(row["prefix_bytes"], row["bytes"], largest, chars), _note(row)
            table.add_row(*line, bar, *(() if below else (note,)))
            if below and note:
                notes.append(Text.assemble(Text(f"at {line[0]}: ", style=MUTED), note))
        if self.header:
            yield table
        else:  # the edges are a blank line above the row and one below it
            for segments in console.render_lines(table, options, new_lines=True)[1:-1]:
                yield from segments
        if notes:
            if table.show_header:
                yield Text("notes, by the view they are at:", style=MUTED)
            yield from notes


def size_row(views: Views, at: int) -> dict[str, Any]:
    """The row of ``context_json`` for the view deciding step ``at`` alone: what ``context --follow`` prints of it."""
    view = views.at(at)
    change = view.change
    compacted = [compaction.trigger or "compaction" for compaction in views.compactions if compaction.step == at]
    return {
        "at": at,
        "messages": view.message_count,
        "bytes": view.bytes,
        "tokens": view.tokens,
        "bytes_no_window": view.bytes_no_window,
        "prefix_bytes": change.prefix_bytes,
        "resent_bytes": change.resent_bytes,
        "first_diff": change.first_diff,
        "left_window": change.left_window,
        "compaction": compacted[0] if compacted else None,
    }


def size_line(
    views: Views,
    at: int,
    layout: SizesLayout,
    before: Step | None = None,
    yet: Callable[[Step], bool] | None = None,
) -> _SizesTable:
    """The view deciding step ``at`` as a row of the sizes table, laid out in the columns ``layout`` recorded;
    ``before``: the step before it, which the note names when it recorded no decision (``yet``: as ``_undecided``)."""
    row = [size_row(views, at)]
    return _SizesTable(_undecided(row, [before], yet) if before is not None else row, layout, header=False)


def context_renderables(
    run: Run, series: SizeSeries, layout: SizesLayout | None = None, yet: Callable[[Step], bool] | None = None
) -> list[Any]:
    """The size of the view at every step as a table, a bar per step: grey the cached prefix, cyan re-sent;
    ``layout``: where the table records how it was laid out (for ``size_line``); ``yet``: whether a step with no
    decision may still get one (a follow's), which its row says (``_undecided``)."""
    breaks = len(series.breaks)
    title = _title_line(
        run.run_id or run.path,
        Text(
            f"  {plural(len(series), 'view')} \u00b7 the cache prefix breaks {plural(breaks, 'time')} \u00b7 "
            "tokens are bytes / 4, a scale, not a count",
            style=MUTED,
        ),
    )
    legend = Text("bars: ", style=MUTED)
    legend.append("\u2588", style=MUTED)
    legend.append(" prefix ", style=MUTED)
    legend.append("\u2588", style="cyan")
    legend.append(" re-sent, the longest the largest view", style=MUTED)
    if layout is not None:  # the rows context --follow prints under the table keep its scale
        legend.append(f"; a larger view after it: the whole bar and {_PAST}", style=MUTED)
    return [title, _SizesTable(_undecided(context_json(series), run.steps, yet), layout), legend]


# ---------------------------------------------------------------------------- keys


def key_rows(views: Views) -> list[dict[str, Any]]:
    """The replay key of the view at every step, with the request keys the run recorded for it."""
    rows = []
    for at in views.stops:
        view = views.at(at)
        recorded = list(view.recorded_keys)
        rows.append(
            {
                "at": at,
                "replay_key": view.replay_key,
                "recorded_keys": recorded,
                "matches": (view.replay_key in recorded) if recorded else None,
                "why": view.key_differs,
            }
        )
    return rows


def _short(key: str) -> str:
    return key if len(key) <= KEY_CHARS else key[:KEY_CHARS] + "\u2026"


KEY_CHARS = 24
"""How many hex digits of a key the table shows; ``--json`` gives them whole."""


def _key_cell(*keys: str) -> Text:
    """Keys as a table cell: one a line, each of ``KEY_CHARS`` digits, cut shorter (not wrapped) in a narrow column."""
    return Text(clean("\n".join(_short(key) for key in keys)), no_wrap=True, overflow="ellipsis")


NO_KEYS_SAID = (
    "no request key is recorded here: a run carries one only where it holds each request its agent sent with the "
    "reply (a run of agentrender.agent, a recording by agentrender.record, an Anthropic call log or a request saved "
    "with its response, a runtime that passes request_key to RunWriter.model_call); a Claude Code, Codex, Inspect or "
    "OpenAI-style history, or a request alone, keeps the conversation, not each request as sent"
)
"""What ``keys`` says under a table of no recorded request key: which runs carry one (every writer of a
``model_call``'s ``request_key``: ``agent.ModelAgent``, ``imports.anthropic``'s calls, ``RunWriter.model_call``)."""


def keys_renderable(run: Run, rows: list[dict[str, Any]]) -> Group:
    """The replay keys as a table: a tick where a recorded key matches, a cross where none does."""
    # Every column is kept at any width: the step and the verdict whole, the keys one a line (a step called several
    # times has several) and cut shorter where the terminal is narrow, never a column squeezed out.
    table = Table(box=box.SIMPLE_HEAD, header_style="bold", pad_edge=False)
    table.add_column("at", justify="right", no_wrap=True, min_width=len(f"{rows[-1]['at']:,}") if rows else 2)
    table.add_column("replay key of the view", overflow="ellipsis")
    table.add_column("recorded request key", overflow="ellipsis")
    table.add_column("", no_wrap=True)
    for row in rows:
        recorded = row["recorded_keys"]
        if row["matches"] is None:
            shown, mark = Text("\u2014", style=MUTED), Text("none recorded", style=MUTED)
        elif row["matches"]:
            shown, mark = _key_cell(row["replay_key"]), Text("\u2713 matches", style="green")
        else:
            shown = _key_cell(*recorded)
            mark = Text("\u2717 differs", style="bold red")
        table.add_row(f"{row['at']:,}", _key_cell(row["replay_key"]), shown, mark)
    mismatched = sum(1 for row in rows if row["matches"] is False)
    compared = sum(1 for row in rows if row["matches"] is not None)
    said = Text(f"  {plural(len(rows), 'view')} \u00b7 {compared:,} with a recorded request key", style=MUTED)
    if mismatched:
        said.append(f" \u00b7 {mismatched:,} differ", style="bold red")
    title = _title_line(run.run_id or run.path, said)
    parts: list[Any] = [title, table]
    for row in rows:
        if row["why"]:
            parts.append(Text(clean(f"at {row['at']:,}: {row['why']}"), style=MUTED))
    if rows and not compared:
        parts.append(Text(NO_KEYS_SAID, style=MUTED))
    if mismatched and mismatched == compared and not any(row["why"] for row in rows):
        parts.append(
            Text(
                "every recorded key differs: the run's agent sent other request settings than the key here hashes "
                "(the messages, the run's system, tools, model and max_output_tokens; --max-output-tokens); "
                "where only some differ, those views differ",
                style=MUTED,
            )
        )
    return Group(*parts)


# ---------------------------------------------------------------------------- samples


def sample_row(name: str, run: Run) -> dict[str, Any]:
    """What ``samples`` says of one sample run; how it ended as ``runs`` and ``show`` say it."""
    return {
        "name": name,
        "run_id": run.run_id,
        "steps": len(run.steps),
        "model_calls": len(run.model_calls),
        "end": end_said(run.end, run.header)[0],
        "goal": run.goal,
        "path": run.path,
    }


def samples_renderable(rows: list[dict[str, Any]]) -> Group:
    """The sample runs as a table, with the command that shows one."""
    table = Table(box=box.SIMPLE_HEAD, header_style="bold", pad_edge=False, expand=True)
    table.add_column("name", no_wrap=True, style="bold")
    table.add_column("steps", justify="right", no_wrap=True)
    table.add_column("calls", justify="right", no_wrap=True)
    # a word longer than its column (a stop's reason, repeated_tool_failures) goes on over lines, never cut
    table.add_column("how it ended", ratio=1, overflow="fold")
    table.add_column("goal", ratio=1)
    for row in rows:
        table.add_row(
            Text(clean(row["name"], one_line=True)),
            f"{row['steps']:,}",
            f"{row['model_calls']:,}",
            Text(clean(row["end"], one_line=True)),
            Text(clean(row["goal"], one_line=True)),
        )
    return Group(table, Copyable(Text("show one: ", style=MUTED), "agentrender show NAME", style="bold"))


# ---------------------------------------------------------------------------- runs of a file


def run_row(number: int, run: Run) -> dict[str, Any]:
    """What ``runs`` says of one run of a file: its number and id (what ``--run`` takes), its counts, its end. Its
    warnings are counted as ``check`` reports them, a finding each (``warning_groups``), and those of records the file
    lost (``lost``, which ``check`` rates as errors) apart too; ``role``: what it is to the runs of its file it is
    linked to (``link_role``: a session's sub-agent, a session that started some), and ``links``: those links
    (``Run.links``). A run its source scored (an Inspect sample, a tau-bench task) has ``scores``, each scorer's value
    (``scores_of``); a run of no score has none, and is said as before."""
    said, _ = end_said(run.end, run.header)
    groups = warning_groups(run.warnings)
    row = {
        "number": number,
        "run_id": run.run_id,
        "steps": len(run.steps),
        "model_calls": len(run.model_calls),
        "warnings": len(groups),
        "lost": sum(group.lost for group in groups),
        "end": said,
        "source": source_said(run),
        "role": link_role(run.links),
        "links": dataclasses.asdict(run.links),
    }
    scores = scores_of(run)
    if scores:
        row["scores"] = scores
    return row


def runs_renderable(name: str, rows: list[dict[str, Any]], *, hint: bool = True) -> Group:
    """The runs of the file ``name``, with the command that shows one (``runs_hint``; without ``hint``, a folder's
    tables, said once under them all). Each run's id is whole on one line, to copy (what ``--run ID`` takes): where the
    line has room for the longest id beside the counts, as a table, each id on the first line of its row and how the
    run ended and where it comes from under it, wrapped to the id's width or more; where it has not, each run's id on
    a line of its own (``Copyable``: past the width where it is longer, for the terminal to wrap), its number and
    counts and the rest under it (``runs_listed``). A table that folds the ids, or cuts them, cannot be copied from."""
    table = Table(box=box.SIMPLE_HEAD, header_style="bold", pad_edge=False, expand=True)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("steps", justify="right", no_wrap=True)
    table.add_column("calls", justify="right", no_wrap=True)
    table.add_column("warnings", justify="right", no_wrap=True)
    # the rest of the line, at least as wide as the longest id: the words under it wrapped to its width (one longer
    # than it, a source's format, folded)
    longest = max((cell_len(clean(row["run_id"], one_line=True)) for row in rows), default=0)
    scored = " \u00b7 score" if any(_scored(row) for row in rows) else ""
    table.add_column(f"run id \u00b7 how it ended{scored} \u00b7 from", ratio=1, min_width=longest, overflow="fold")
    for row in rows:
        said = Text(clean(row["run_id"], one_line=True), style="bold")
        said.append_text(_ended_said(row))
        said.append("\nfrom " + clean(row["source"], one_line=True), style=MUTED)
        if row["role"]:  # what it is to the other runs of its file: a session's sub-agent, a session that started some
            said.append("\n" + clean(row["role"], one_line=True))
        table.add_row(str(row["number"]), f"{row['steps']:,}", f"{row['model_calls']:,}", _warnings_said(row), said)
    title = _title_line(name, Text(f"  {plural(len(rows), 'run')}", style=MUTED))
    fitted = Fitted(table, ())

    def lay(console: Console, options: ConsoleOptions) -> list[Any]:
        return [fitted] if fitted.fits(console, options) else list(runs_listed(rows))

    return Group(title, AtWidth(lay), *([runs_hint()] if hint else []))


def _title_line(name: str, said: Text) -> AtWidth:
    """A table's title: the run id or file path it is of (``name``), whole on a line to copy, and ``said`` of it after
    it: where the line has room for the name, the words wrapped after it; where it has not, the name on a line of its
    own (``Copyable``: past the width, for the terminal to wrap; never folded inside) and the words under it."""
    name = clean(name, one_line=True)

    def lay(console: Console, options: ConsoleOptions) -> list[Any]:
        if cell_len(name) <= options.max_width:  # rich wraps the words after it, never inside it
            return [Text(name, style="bold") + said]
        return [Copyable(Text(), name, said, style="bold")]

    return AtWidth(lay)


def _ended_said(row: dict[str, Any]) -> Text:
    """A runs row's words of how the run ended, on a line of their own, and of how it was scored (``_scored``), where
    its source scored it, on the next."""
    said = Text("\n" + clean(row["end"], one_line=True))
    scored = _scored(row)
    if scored:
        said.append("\nscored " + clean(scored, one_line=True))
    return said


def _scored(row: dict[str, Any]) -> str:
    """A runs row's words of its ``scores``, but for those how it ended says already (``scores_words``)."""
    return scores_words(row.get("scores") or {}, ended=row["end"])


def _warnings_said(row: dict[str, Any], *, noun: bool = False) -> Text:
    """A runs row's count of warnings (``noun``: and the word), and of those the records the file lost, coloured as
    ``check`` rates them."""
    return Text(
        (plural(row["warnings"], "warning") if noun else f"{row['warnings']:,}")
        + (f" ({row['lost']:,} lost)" if row["lost"] else ""),
        style=DISAGREE if row["lost"] else "yellow" if row["warnings"] else "",
    )


def runs_listed(rows: list[dict[str, Any]]) -> Iterator[Any]:
    """The runs of ``runs_renderable`` where the line has no room for their table: each run's id whole on a line of
    its own, to copy, and under it, indented, its number (``#``, what ``--run N`` takes), its counts, how it ended,
    where it comes from and what it is to the other runs of its file, the table's words each wrapped under the
    indent; a blank line before each run and after the last, as the table has before and after its rows."""
    for row in rows:
        yield Text("")
        yield Copyable(Text(), clean(row["run_id"], one_line=True), style="bold")
        said = Text(f"#{row['number']}", style="bold")  # as --run N takes it: no thousands separator
        said.append(f" \u00b7 {plural(row['steps'], 'step')} \u00b7 {plural(row['model_calls'], 'model call')} \u00b7 ")
        said.append_text(_warnings_said(row, noun=True))
        said.append_text(_ended_said(row))
        said.append("\nfrom " + clean(row["source"], one_line=True), style=MUTED)
        if row["role"]:
            said.append("\n" + clean(row["role"], one_line=True))
        yield Gutter(said, "", _RUNS_INDENT)
    yield Text("")


_RUNS_INDENT = "  "
"""How far ``runs_listed`` indents the facts of a run under its id."""


def runs_hint() -> Copyable:
    """The command that shows one run of a runs table."""
    said = Text(" (N: the run's #, counted from 0)", style=MUTED)
    return Copyable(Text("show one: ", style=MUTED), "agentrender show FILE --run ID|N", said, style="bold")


def export_renderable(done: ParquetExport) -> Group:
    """What ``export`` did: the runs written, the files skipped and the runs they hold, the rows written, each file
    that could not be read, and the warnings of each run the files given hold, as ``import`` says a run's
    (``warning_lines``): a skipped file's as its runs row says them."""
    rows = done.rows or {}
    # a file that could not be read is written too, as its row of the runs table: it is counted as such, not as a run
    unreadable = {path for path, _ in done.errors}
    runs = rows.get("runs", 0) - sum(path in unreadable for path in done.written)
    skipped = plural(len(done.unchanged), "unchanged file")
    lines: list[Any] = [
        Text(
            f"{done.out}: wrote {plural(runs, 'run')} "
            f"({plural(rows.get('steps', 0), 'step')}, {plural(rows.get('model_calls', 0), 'model call')}), "
            f"skipped {skipped}"
            + (f" ({plural(done.unchanged_runs, 'run')})" if done.unchanged else "")
            + (
                f", removed {plural(len(done.removed), 'gone file')} ({plural(done.removed_runs, 'run')})"
                if done.removed
                else ""
            )
        )
    ]
    said = [(path, run_id, list(warning_lines(warnings))) for path, run_id, warnings in done.warnings]
    said += [(path, run_id, list(said_warning_lines(texts))) for path, run_id, texts in done.unchanged_warnings]
    order = {path: i for i, path in enumerate((*done.written, *done.unchanged))}
    for _, run_id, warned in sorted(said, key=lambda run: order.get(run[0], -1)):
        lines.append(Text(f"run {clean(run_id, one_line=True)}:", style=MUTED))
        lines.extend(warned)
    if done.errors:
        lines.append(
            Text(f"{plural(len(done.errors), 'file')} could not be read (rows of the runs table with their error):")
        )
        # each its own lines: what wraps hangs under its file, never at the margin where the next file's name starts
        lines.extend(
            Gutter(Text(clean(error, one_line=True), style=MUTED), MUTED, "    ", first="  ")
            for _, error in done.errors
        )
    return Group(*lines)
