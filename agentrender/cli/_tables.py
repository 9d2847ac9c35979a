"""``steps``, ``context``, ``keys`` and ``samples``: tables of facts read off the run and its views."""

from __future__ import annotations

import csv
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO, Any

from agentrender.cli._show import utf8_len
from agentrender.cli._term import KIND_STYLES, MUTED, SKIPPED, TAGS, Group, Table, Text, box, clean
from agentrender.runfile import Run
from agentrender.views import SizeSeries, StepFact, Views

__all__ = [
    "STEP_COLUMNS",
    "StepsTable",
    "context_json",
    "context_renderables",
    "key_rows",
    "keys_renderable",
    "sample_row",
    "samples_renderable",
    "steps_rows",
]


@dataclass(frozen=True, slots=True)
class StepColumn:
    """One column of the steps table: its name, what it says, and its value for a step's fact."""

    name: str
    meaning: str
    value: Callable[[StepFact], Any]
    justify: str = "left"


def _kind(fact: StepFact) -> str | None:
    decision = fact.step.decision
    return None if decision is None else decision.kind


def _tool(fact: StepFact) -> str | None:
    decision = fact.step.decision
    return None if decision is None or not decision.tool else decision.tool


def _status(fact: StepFact) -> str | None:
    observation = fact.step.observation
    return None if observation is None else observation.status


def _block(fact: StepFact) -> str | None:
    return None if fact.result is None else fact.result.blocks[0].kind


def _bytes_of(field: str) -> Callable[[StepFact], int | None]:
    def value(fact: StepFact) -> int | None:
        observation = fact.step.observation
        return None if observation is None else utf8_len(getattr(observation, field))

    return value


def _reason(fact: StepFact) -> str | None:
    decision = fact.step.decision
    return None if decision is None else decision.reason


STEP_COLUMNS: tuple[StepColumn, ...] = (
    StepColumn("index", "the step's index in the run", lambda fact: fact.step.index, "right"),
    StepColumn("kind", "the decision's kind; null: no decision", _kind),
    StepColumn("tool", "the tool the decision names; null when it names none", _tool),
    StepColumn("status", "the observation's status; null: no observation", _status),
    StepColumn("rendered", "the step has a decision, so it is part of the model's view", lambda f: f.rendered),
    StepColumn(
        "full",
        "its result is in full in the view after the last step (inside the window); null: not rendered",
        lambda fact: fact.full,
    ),
    StepColumn("shown_as", "what the model's user turn for the step holds (a kind of views.BLOCK_KINDS)", _block),
    StepColumn("content_bytes", "UTF-8 bytes of the result's content", _bytes_of("content"), "right"),
    StepColumn("summary_bytes", "UTF-8 bytes of the result's summary", _bytes_of("summary"), "right"),
    StepColumn("reason", "the decision's reason", _reason),
)
"""The columns of ``agentrender steps``, in order: the JSON keys, the CSV header, the table's columns."""


def _matches(value: str | None, wanted: Sequence[str] | None) -> bool:
    return not wanted or (value if value is not None else "none") in wanted


@dataclass(frozen=True, slots=True)
class StepsTable:
    """The rows of the steps table that passed the filters, and how many steps there were."""

    rows: tuple[tuple[Any, ...], ...]
    total: int

    def records(self) -> list[dict[str, Any]]:
        """One dict per row, keyed by column name."""
        names = [column.name for column in STEP_COLUMNS]
        return [dict(zip(names, row, strict=True)) for row in self.rows]

    def write_csv(self, out: IO[str]) -> None:
        """The rows as CSV; text is cleaned, since a CSV is as often read in a terminal as in a program."""
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(column.name for column in STEP_COLUMNS)
        for row in self.rows:
            writer.writerow("" if value is None else clean(value) if isinstance(value, str) else value for value in row)

    def renderable(self, run: Run) -> Group:
        """The rows as a terminal table (what the model saw in one column), with how many steps matched."""
        table = Table(box=box.SIMPLE_HEAD, header_style="bold", pad_edge=False, expand=True, padding=(0, 1))
        for name, justify in _SHOWN_COLUMNS:
            if name == "reason":
                table.add_column(name, ratio=1, min_width=12, overflow="ellipsis")
            else:
                table.add_column(name, justify=justify, no_wrap=True)  # type: ignore[arg-type]
        names = [column.name for column in STEP_COLUMNS]
        for row in self.rows:
            record = dict(zip(names, row, strict=True))
            saw = Text("skipped", style=SKIPPED) if not record["rendered"] else Text(TAGS[record["shown_as"]])
            if record["rendered"]:
                saw.stylize(KIND_STYLES[record["shown_as"]])
            style = SKIPPED if not record["rendered"] else ("red" if record["status"] == "error" else "")
            table.add_row(
                _cell("index", record["index"]),
                _cell("kind", record["kind"]),
                _cell("tool", record["tool"]),
                _cell("status", record["status"]),
                saw,
                _cell("content_bytes", record["content_bytes"]),
                _cell("summary_bytes", record["summary_bytes"]),
                _cell("reason", record["reason"]),
                style=style,
            )
        what = (
            f"{len(self.rows):,} of {self.total:,} steps" if len(self.rows) != self.total else f"{self.total:,} steps"
        )
        title = Text(clean(run.run_id or run.path, one_line=True), style="bold")
        title.append(
            f"  {what} \u00b7 'the model saw': the step's user turn in the view after the last step", style=MUTED
        )
        return Group(title, table)


# The terminal's columns: what the model saw (rendered, full, shown_as) is one column there.
_SHOWN_COLUMNS = (
    ("#", "right"),
    ("kind", "left"),
    ("tool", "left"),
    ("status", "left"),
    ("the model saw", "left"),
    ("content", "right"),
    ("summary", "right"),
    ("reason", "left"),
)


def _cell(name: str, value: Any) -> Text:
    if name == "reason" and value is not None:
        # one line, cut with an ellipsis where the table ends: the reason in full is in --json
        return Text(clean(str(value), one_line=True), no_wrap=True, overflow="ellipsis")
    if value is None:
        return Text("\u2014", style=MUTED)
    if isinstance(value, bool):
        return Text("yes" if value else "no")
    if isinstance(value, int):
        return Text(f"{value:,}")
    return Text(clean(str(value), one_line=True))


def steps_rows(
    run: Run,
    views: Views,
    *,
    tool: Sequence[str] | None = None,
    status: Sequence[str] | None = None,
    kind: Sequence[str] | None = None,
) -> StepsTable:
    """The steps table of ``run``: one row per step of the view after the last step, filtered."""
    facts = views.at(None).steps
    rows = []
    for fact in facts:
        if _matches(_tool(fact), tool) and _matches(_status(fact), status) and _matches(_kind(fact), kind):
            rows.append(tuple(column.value(fact) for column in STEP_COLUMNS))
    return StepsTable(rows=tuple(rows), total=len(facts))


# ---------------------------------------------------------------------------- context


def context_json(series: SizeSeries) -> list[dict[str, Any]]:
    """One dict per view: the columns of ``SizeSeries``."""
    columns = series.columns()
    names = list(columns)
    return [dict(zip(names, values, strict=True)) for values in zip(*columns.values(), strict=True)]


_BAR = 16


def _bar(prefix: int, total: int, largest: int) -> Text:
    width = round(_BAR * total / largest) if largest else 0
    kept = round(_BAR * prefix / largest) if largest else 0
    bar = Text("\u2588" * kept, style=MUTED)
    bar.append("\u2588" * max(0, width - kept), style="cyan")
    return bar


def context_renderables(run: Run, series: SizeSeries) -> list[Any]:
    """The size of the view at every step as a table, a bar per step: grey the cached prefix, cyan re-sent."""
    table = Table(box=box.SIMPLE_HEAD, header_style="bold", pad_edge=False, expand=True)
    for name in ("at", "messages", "bytes", "~tokens", "no window", "prefix", "re-sent"):
        table.add_column(name, justify="right", no_wrap=True)
    legend = Text("prefix ", style="bold")
    legend.append("\u2588", style=MUTED)
    legend.append(" re-sent ")
    legend.append("\u2588", style="cyan")
    table.add_column(legend, no_wrap=True, min_width=_BAR)
    table.add_column("note", ratio=1, min_width=12)
    largest = max(series.bytes, default=0)
    for row in context_json(series):
        note = Text("")
        if row["left_window"] is not None:
            note = Text(f"\u2702 step {row['left_window']} left the window", style="yellow")
        elif row["first_diff"] is None:
            note = Text("unchanged", style=MUTED)
        elif row["first_diff"] == 0 and row["prefix_bytes"] == 0 and row["at"] != series.at[0]:
            note = Text("the opening changed", style="yellow")
        table.add_row(
            f"{row['at']:,}",
            f"{row['messages']:,}",
            f"{row['bytes']:,}",
            f"{row['tokens']:,}",
            f"{row['bytes_no_window']:,}",
            f"{row['prefix_bytes']:,}",
            f"{row['resent_bytes']:,}",
            _bar(row["prefix_bytes"], row["bytes"], largest),
            note,
        )
    breaks = sum(1 for left in series.left_window if left is not None)
    title = Text(clean(run.run_id or run.path, one_line=True), style="bold")
    title.append(
        f"  the view at {len(series):,} steps \u00b7 the cache prefix breaks at {breaks:,} \u00b7 "
        "tokens are bytes / 4, a scale, not a count",
        style=MUTED,
    )
    return [title, table]


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
            }
        )
    return rows


def _short(key: str) -> str:
    return key if len(key) <= KEY_CHARS else key[:KEY_CHARS] + "\u2026"


KEY_CHARS = 24
"""How many hex digits of a key the table shows; ``--json`` gives them whole."""


def keys_renderable(run: Run, rows: list[dict[str, Any]]) -> Group:
    """The replay keys as a table: a tick where a recorded key matches, a cross where none does."""
    table = Table(box=box.SIMPLE_HEAD, header_style="bold", pad_edge=False, expand=True)
    table.add_column("at", justify="right", no_wrap=True)
    table.add_column("replay key of the view", no_wrap=True)
    table.add_column("recorded request key", no_wrap=True)
    table.add_column("", ratio=1)
    for row in rows:
        recorded = row["recorded_keys"]
        if row["matches"] is None:
            shown, mark = Text("\u2014", style=MUTED), Text("none recorded", style=MUTED)
        elif row["matches"]:
            shown, mark = Text(_short(row["replay_key"])), Text("\u2713 matches", style="green")
        else:
            shown = Text(clean(", ".join(_short(key) for key in recorded), one_line=True))
            mark = Text("\u2717 differs", style="bold red")
        table.add_row(f"{row['at']:,}", _short(row["replay_key"]), shown, mark)
    mismatched = sum(1 for row in rows if row["matches"] is False)
    compared = sum(1 for row in rows if row["matches"] is not None)
    title = Text(clean(run.run_id or run.path, one_line=True), style="bold")
    title.append(f"  {len(rows):,} views \u00b7 {compared:,} with a recorded request key", style=MUTED)
    if mismatched:
        title.append(f" \u00b7 {mismatched:,} differ", style="bold red")
    parts: list[Any] = [title, table]
    if mismatched and mismatched == compared:
        parts.append(
            Text(
                "every recorded key differs: the run's agent sent other request settings than the key here hashes "
                "(the messages, the run's system, tools and model, and --max-output-tokens); "
                "where only some differ, those views differ",
                style=MUTED,
            )
        )
    return Group(*parts)


# ---------------------------------------------------------------------------- samples


def sample_row(name: str, run: Run) -> dict[str, Any]:
    """What ``samples`` says of one sample run."""
    end = run.end
    return {
        "name": name,
        "run_id": run.run_id,
        "steps": len(run.steps),
        "model_calls": len(run.model_calls),
        "end": None if end is None else end.get("reason") or end.get("status"),
        "goal": run.goal,
        "path": run.path,
    }


def samples_renderable(rows: list[dict[str, Any]]) -> Group:
    """The sample runs as a table, with the command that shows one."""
    table = Table(box=box.SIMPLE_HEAD, header_style="bold", pad_edge=False, expand=True)
    table.add_column("name", no_wrap=True, style="bold")
    table.add_column("steps", justify="right", no_wrap=True)
    table.add_column("calls", justify="right", no_wrap=True)
    table.add_column("how it ended", no_wrap=True)
    table.add_column("goal", ratio=1)
    for row in rows:
        table.add_row(
            Text(clean(row["name"], one_line=True)),
            f"{row['steps']:,}",
            f"{row['model_calls']:,}",
            Text(clean(str(row["end"] or "no end record"), one_line=True)),
            Text(clean(row["goal"], one_line=True)),
        )
    hint = Text("show one: ", style=MUTED)
    hint.append("agentrender show NAME", style="bold")
    return Group(table, hint)
