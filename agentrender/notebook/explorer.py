"""``RunExplorer``: a run's steps (a page at a time), conversation, decisions and view size, in tabs."""

from __future__ import annotations

import io
import itertools
import os
import re
from bisect import bisect_left
from functools import cached_property
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from agentrender._display.said import warning_groups
from agentrender._display.values import escape_text, table_html, wrap
from agentrender._extras import require
from agentrender._text import mark_text
from agentrender._words import plural
from agentrender.frame import STEP_COLUMNS, STEP_LEAD_COLUMNS, TEXT_DTYPE, kinds_listed, steps_frame, tools_kept
from agentrender.html import save
from agentrender.imports import load_runs
from agentrender.notebook._base import Widget, row, widgets
from agentrender.notebook.conversation import ConversationView
from agentrender.notebook.decide import DecideStepper
from agentrender.views import ENDED_SAW, LEFT_OUT_TEXT, SKIPPED_SAW, SizeSeries, Views, listed_kind, utf8_bytes
from agentrender.views.html import run_facts_html

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pandas as pd

    from agentrender.runfile import Growth, Run

ALL = "(all)"
"""The filter value that keeps every row."""
NONE = "(none)"
"""The filter value of a row with no value in the column (a step without a decision has no kind)."""
PAGE_ROWS = 50
"""How many rows of the steps table a page shows; the page buttons move through the rest."""
FILTERED_COLUMNS = ("kind", "status", "tool")
"""The columns of the steps table a dropdown filters on."""
TABLE_COLUMNS = (*STEP_LEAD_COLUMNS, *(column.name for column in STEP_COLUMNS if column.name not in STEP_LEAD_COLUMNS))
"""The steps table's columns in the order it shows them: the CLI's (``STEP_LEAD_COLUMNS``: the step, its kind,
tool and status, what the model saw of it, its bytes, the reason), then every other column of ``steps_frame``; the
reason and its ``reason_bytes`` as the tables of steps say it (``Views.reasons_said``)."""


_CHART_COLOURS = {
    "#000001": "var(--ar-muted)",  # the words, ticks and edges
    "#000002": "var(--ar-border)",  # the grid (drawn see-through)
    "#000003": "var(--ar-chart-full)",
    "#000004": "var(--ar-chart-window)",
    "#000005": "var(--ar-red)",  # a break of the cache prefix
    "#000006": "var(--ar-chart-compaction)",
}
"""The colour matplotlib draws each part of the size chart in, and the stylesheet's colour (``STYLE``: the theme's,
light or dark) the chart is given in its place."""
_CHARTS = itertools.count(1)


def size_chart_html(
    series: SizeSeries, *, width: float = 9.0, height: float = 3.6, rendered_across: bool = False
) -> str:
    """The view's bytes per step with and without the window, marking where the cache prefix breaks and each
    compaction (``rendered_across``: the views render the history across it, ``Views.rendered_across``), as HTML: a
    legend that wraps at any width above an SVG of ``width`` by ``height`` inches at 96 pixels an inch, which scrolls
    sideways where the output is narrower, its words kept at their size. Its colours are the stylesheet's, so it follows
    the theme (light, dark, JupyterLab's) as the rest of a view does."""
    require("notebook", "matplotlib")
    from matplotlib import rc_context, style
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    from matplotlib.figure import Figure

    muted, grid, full, window, red, compaction = _CHART_COLOURS
    # drawn from matplotlib's defaults, not the user's settings (a matplotlibrc, plt.style.use): the same chart on every
    # machine, its words measured in DejaVu Sans, which matplotlib ships and its default font list names first; ids
    # unique to the chart: a hidden tab's chart would otherwise hold the clip paths another chart's lines name
    salt = f"agentrender-chart-{next(_CHARTS)}"
    with style.context("default"), rc_context({"svg.fonttype": "none", "svg.hashsalt": salt}):
        figure = Figure(figsize=(width, height), dpi=96, facecolor="none")
        FigureCanvasSVG(figure)
        axes = figure.add_subplot(facecolor="none")
        axes.plot(series.at, series.bytes_no_window, color=full)
        axes.plot(series.at, series.bytes, color=window)
        breaks = series.marked_breaks  # the offline page's chart marks the same
        if breaks:
            axes.scatter([series.at[i] for i in breaks], [series.bytes[i] for i in breaks], marker="v", color=red,
                         s=18, zorder=3)  # fmt: skip
        marked = [(at, size) for at, size, mark in zip(series.at, series.bytes, series.compaction, strict=True) if mark]
        if marked:
            for at, _ in marked:
                axes.axvline(at, color=compaction, linestyle="--", linewidth=1, zorder=2)
            axes.scatter([at for at, _ in marked], [size for _, size in marked], marker="D", color=compaction, s=22,
                         zorder=3)  # fmt: skip
        axes.set_xlabel("step (the view the model saw deciding it)", color=muted)
        axes.set_ylabel("bytes of messages", color=muted)
        axes.tick_params(colors=muted)
        for spine in axes.spines.values():
            spine.set_color(muted)
        axes.grid(color=grid, alpha=0.6)  # see-through, behind the marks
        figure.tight_layout()
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    # the picture alone: no XML prologue, no metadata, and not matplotlib's stylesheet, whose rule for every element
    # ("*") would reach past the picture into the notebook
    picture = buffer.getvalue()
    picture = re.sub(
        r"<metadata>.*?</metadata>|<style[^>]*>.*?</style>", "", picture[picture.index("<svg") :], flags=re.S
    )
    picture = re.sub("|".join(_CHART_COLOURS), lambda found: _CHART_COLOURS[found[0]], picture)
    legend = series.legend(rendered_across=rendered_across)  # the offline page's chart shows the same words
    words = "".join(f'<span class="ar-swatch-{mark}">{escape_text(said, 200)}</span>' for mark, said in legend)
    return wrap(
        f'<div class="ar-legend ar-chart-legend">{words}</div><div class="ar-chart ar-chart-scroll">{picture}</div>'
    )


def _labels(column: pd.Series) -> pd.Series:
    """A column's values as the filters name them: text, with a missing value as ``NONE``."""
    return column.astype(TEXT_DTYPE).fillna(NONE)


def filter_choices(run: Run, views: Views | None = None) -> dict[str, list[str]]:
    """For each of ``FILTERED_COLUMNS``, what its dropdown offers: ``ALL``, then every label the
    column of ``steps_frame(run, views=views)`` holds, sorted, read off the steps by the column's own
    rule (``STEP_COLUMNS``) without building the frame; the kinds as the table lists them
    (``views.listed_kind``: a prefill the view after the last step ends on, ``View.prefill_step``,
    by its own label); the tools, those called in parallel too (``Run.parallel_tools``), by which the
    tool filter keeps a step (``frame.tools_kept``)."""
    views = views if views is not None else Views(run)
    prefill = views.at(None).prefill_step
    parts: dict[str, list[Any]] = {}
    choices = {}
    for column in STEP_COLUMNS:
        if column.name not in FILTERED_COLUMNS:
            continue
        assert column.value is not None  # a filtered column is computed from its row, not derived
        # a column is of a step's decision or observation, or of a field of it ("decision.tool")
        owner, _, field = column.of.partition(".")
        if owner not in parts:
            parts[owner] = list(map(attrgetter(owner), run.steps))
        present = [part for part in parts[owner] if part is not None]
        found = set(map(column.value, map(attrgetter(field), present) if field else present))
        if column.name == "kind" and prefill is not None:  # the caller's text, listed by its own label
            found = {
                column.value(listed_kind(step.decision.kind, prefill=step.index == prefill))
                for step in run.steps
                if step.decision is not None
            }
        if len(present) < len(run.steps):
            found.add(column.absent)
        if column.name == "tool":  # and the tools a reply of parallel tool uses called beside its decision's
            found.update(name for names in views.parallel_tools().values() for name in names)
        choices[column.name] = [ALL, *sorted({NONE if value is None else str(value) for value in found})]
    return {name: choices[name] for name in FILTERED_COLUMNS}


class RunExplorer(Widget):
    """Tabs for a run: the steps table (filterable, a page at a time), the conversation, decide, the view's size, and
    the run: its facts (its file, goal, model, steps, how it ended, its source) and the warnings it was read with,
    as ``agentrender show`` prints them above a view, the tab's title counting the warnings.

    The first display builds what its first screen shows: a page of ``page_rows`` rows of the
    steps table, the filters, and the other tabs' first views. The whole table (``frame``) is
    built when a filter first needs it, the size chart when its tab is first opened. Moving the
    conversation's step slider moves the table to the page of that step and highlights its row.

    ``RunExplorer(path, follow=True)`` follows the file while it is written, as
    ``ConversationView(path, follow=True)`` does (the conversation tab moves to the newest step
    unless moved away, and says it is live); each growth recounts the steps table, the size chart,
    the decide tab and the run tab. The filters offer the choices of the run as it was first read.
    """

    def __init__(
        self,
        run: Run | str | os.PathLike[str],
        options: Any = None,
        *,
        page_rows: int = PAGE_ROWS,
        follow: bool = False,
    ) -> None:
        if page_rows < 1:
            raise ValueError(f"RunExplorer: page_rows must be at least 1, got {page_rows}")
        self._path = os.fspath(run) if isinstance(run, str | os.PathLike) else None
        if isinstance(run, str | os.PathLike):
            self.conversation = ConversationView(run, options=options, follow=follow, note_warnings=False)
            """The conversation tab."""
            self.views = self.conversation.base
            """The views of the run (shared with the conversation tab)."""
            assert self.views.run is not None  # views of a file's run
            run = self.views.run
        else:
            if follow:
                raise ValueError("RunExplorer(..., follow=True) follows a file: give its path, not a run")
            self.views = Views(run, options)
            self.conversation = ConversationView(self.views, note_warnings=False)
        self.run = run
        """The run explored (as last read, for a followed file)."""
        self.page_rows = page_rows
        """How many rows a page of the steps table shows."""
        self.decide = DecideStepper(run)
        """The decide tab."""

        choices = filter_choices(run, self.views)
        # a label shows each unsafe character as a marker; the value is the text as the run holds it
        labelled = {name: [(mark_text(choice), choice) for choice in offered] for name, offered in choices.items()}
        self.kind_filter = widgets.Dropdown(options=labelled["kind"], description="kind")
        self.status_filter = widgets.Dropdown(options=labelled["status"], description="status")
        self.tool_filter = widgets.Dropdown(options=labelled["tool"], description="tool")
        self.text_filter = widgets.Text(description="reason has", continuous_update=False)
        self.rendered_only = widgets.Checkbox(description="rendered steps only", value=False)
        # a table wider than the output scrolls sideways in its own box, where the whole tab scrolled with it and
        # the filters, the page buttons and "rows 1-10 of 10" went past the output's left edge
        self.table = widgets.HTML(layout=widgets.Layout(overflow="auto"))
        self.count = widgets.Label()
        self.rows_label = widgets.Label()
        """Which rows the page shows: ``rows 1,001-1,050 of 100,000``."""
        button = widgets.Layout(width="auto", flex="0 0 auto")
        self.first_button = widgets.Button(description="« first", layout=button)
        self.previous_page_button = widgets.Button(description="◀ previous page", layout=button)
        self.next_page_button = widgets.Button(description="next page ▶", layout=button)
        self.last_button = widgets.Button(description="last »", layout=button)
        self.first_button.on_click(lambda _: self._go(0))
        self.previous_page_button.on_click(lambda _: self._go(self.page - 1))
        self.next_page_button.on_click(lambda _: self._go(self.page + 1))
        self.last_button.on_click(lambda _: self._go(self.pages - 1))
        self._kept: pd.DataFrame | None = None
        self._page = 0
        self._stale = False
        self._shown: tuple[Any, tuple[pd.DataFrame, list[tuple[Any, ...]], list[int]]] | None = None
        self.marked_step: int | None = None
        """The step whose row the table highlights: the conversation's step (``None``: no row, as after the last)."""
        for control in (self.kind_filter, self.status_filter, self.tool_filter, self.text_filter, self.rendered_only):
            control.observe(self._filter, names="value")
        steps_tab = widgets.VBox(
            [
                row([self.kind_filter, self.status_filter, self.tool_filter]),
                row([self.text_filter, self.rendered_only, self.count]),
                row(
                    [
                        self.first_button,
                        self.previous_page_button,
                        self.next_page_button,
                        self.last_button,
                        self.rows_label,
                    ]
                ),
                self.table,
            ]
        )
        self.chart = widgets.HTML()
        """The size chart and its legend (``size_chart_html``), drawn when the size tab is first opened."""
        self.size_tab = widgets.VBox(
            [widgets.HTML(wrap('<div class="ar-elided">the size chart is drawn when this tab is opened</div>'))]
        )
        self.facts = widgets.HTML()
        """The run tab (``views.html.run_facts_html``): the run's facts and the warnings it was read with (such as a
        message its views lack), what ``agentrender show`` prints above a view and the offline page folds under "the
        run"."""
        tabs = [steps_tab, self.conversation.widget, self.decide.widget, self.size_tab, self.facts]
        self.tabs = widgets.Tab(children=tabs)
        for number, title in enumerate(("steps", "conversation", "decide", "size")):
            self.tabs.set_title(number, title)
        self._list_facts()
        self.tabs.observe(self._open, names="selected_index")
        self.conversation.slider.observe(self._follow, names="value")
        self.conversation.on_growth.append(self._grown)
        self.widget = self.tabs
        self._filter()

    def save_html(self, path: str | os.PathLike[str], *, beside: Sequence[Run] | None = None) -> None:
        """Write the explorer as one offline HTML page (``agentrender.html.save``): the same views, table, chart,
        replies and warnings, in a file that opens in any browser with no kernel, at the step the explorer shows
        (its address may name another: ``#step=K``). An imported run's page shows it as sent, and as a toggle
        under the conversation tab's window and cap.

        ``beside``: the other runs of the run's file, of which those linked to it (``Run.links``: a Claude Code
        session's sub-agents, the session of a sub-agent) are on the page too, as ``agentrender html`` puts them
        (``html.save``'s ``beside``). ``None``: for an explorer made from a path, the file's runs, read again when the
        run has links (``imports.load_runs``); for one made from a ``Run``, none (give them: ``load_runs(path)``).
        Given here rather than to the explorer, which holds the one run it explores: the other runs are read, and
        held, only for the page."""
        conversation = self.conversation
        newest = conversation.slider.value == len(conversation.stops) - 1  # the page's own first view
        if beside is None:
            beside = load_runs(self._path) if self._path is not None and self.run.links else ()
        at = None if newest else conversation.at
        save(self.run, path, conversation.views.options, at=at, beside=beside)

    def _grown(self, growth: Growth) -> None:
        """A growth of the followed file, which the conversation took in: the other tabs catch up."""
        self.run = growth.run
        self.views = self.conversation.base
        for made in ("frame", "series"):
            self.__dict__.pop(made, None)
        self.decide = DecideStepper(growth.run)
        children = list(self.tabs.children)
        children[2] = self.decide.widget
        self.tabs.children = children
        self._list_facts()
        self.chart.value = ""  # drawn again when the size tab is next opened, or now when it is open
        if self.tabs.selected_index == 3:
            self._open({"new": 3})
        self._filter()

    def _list_facts(self) -> None:
        """The run tab as the run is: its facts (the step of a prefill no reply answered said to be the caller's, as
        ``agentrender show`` says it) and warnings, its title counting the warnings when it has any."""
        groups = warning_groups(self.run.warnings)
        prefill = self.views.at(None).prefill_step
        self.facts.value = run_facts_html(self.run, prefill=prefill, groups=groups)
        self.tabs.set_title(4, f"run ({plural(len(groups), 'warning')})" if groups else "run")

    @cached_property
    def frame(self) -> pd.DataFrame:
        """The steps table (``agentrender.frame.steps_frame``), unfiltered, built when first asked for."""
        return steps_frame(self.run, views=self.views)

    @cached_property
    def series(self) -> SizeSeries:
        """The size series the chart draws, counted when first asked for (it reads every step)."""
        return self.views.sizes()

    def _filtering(self) -> bool:
        controls = (self.kind_filter, self.status_filter, self.tool_filter)
        return any(c.value != ALL for c in controls) or bool(self.text_filter.value) or self.rendered_only.value

    def filtered(self) -> pd.DataFrame:
        """The rows of the steps table the filters keep."""
        frame = self.frame
        keep = frame.index == frame.index
        # a prefill is kept by its own label, never as the no_tool_call the run recorded
        for column, control in ((kinds_listed(frame), self.kind_filter), (frame["status"], self.status_filter)):
            if control.value != ALL:
                keep &= _labels(column) == control.value
        if (tool := self.tool_filter.value) != ALL:  # a reply of parallel tool uses is kept for any of them
            keep &= tools_kept(frame, ["none" if tool == NONE else tool])
        if self.text_filter.value:
            reasons = frame["reason"].astype(TEXT_DTYPE)
            keep &= reasons.str.contains(self.text_filter.value, case=False, regex=False).fillna(False)
        if self.rendered_only.value:
            keep &= frame["rendered"].astype(bool)
        return frame[keep]

    @property
    def matched(self) -> int:
        """How many rows the filters keep."""
        return len(self.run.steps) if self._kept is None else len(self._kept)

    @property
    def pages(self) -> int:
        """How many pages the kept rows fill (one, empty, when none are kept)."""
        return max(1, -(-self.matched // self.page_rows))

    @property
    def page(self) -> int:
        """The page of the steps table shown, from 0."""
        return self._page

    @page.setter
    def page(self, number: int) -> None:
        self._go(number)

    def page_of(self, step: int) -> int:
        """The page where the row of ``step`` is, or would be among the kept rows (the last page past them)."""
        if self._kept is None:
            position = bisect_left(self.conversation.stops, step)
        else:
            position = int(self._kept["index"].searchsorted(step))
        return min(position // self.page_rows, self.pages - 1)

    def page_frame(self) -> pd.DataFrame:
        """The rows of the steps table on the page shown: ``page_rows`` of the kept rows from ``page * page_rows``."""
        return self._page_cells()[0]

    def _page_cells(self) -> tuple[pd.DataFrame, list[tuple[Any, ...]], list[int]]:
        """The page's rows, their cells as the table shows them, and their steps; kept while the page is shown."""
        start = self._page * self.page_rows
        key = (self._kept is None, start)
        if self._shown is not None and self._shown[0] == key:
            return self._shown[1]
        if self._kept is not None:
            rows = self._kept.iloc[start : start + self.page_rows]
        elif "frame" in self.__dict__:  # the whole table is built already: slice it
            rows = self.frame.iloc[start : start + self.page_rows]
        else:
            rows = steps_frame(self.run, views=self.views, rows=slice(start, start + self.page_rows))
        rows = rows[list(TABLE_COLUMNS)]
        from pandas import NA

        # one mark for a missing value whatever the column's dtype (a category's is a float nan)
        cells = rows.astype(object).where(rows.notna(), NA)  # type: ignore[arg-type]  # pandas-stubs omit NA
        # no summary (an imported run's steps), not one of 0 bytes: missing, as agentrender steps says it ("—")
        cells["summary_bytes"] = cells["summary_bytes"].where(rows["summary_bytes"].ne(0), NA)
        if rows["prefill"].any():  # the caller's text a request ended with, not a decision of the model: said so
            kinds = kinds_listed(rows)
            cells["kind"] = kinds.where(kinds.notna(), NA)
        # a step with no decision, which no view holds; as sent, a step before the compaction the last view restarts
        # from, and the one the conversation ended on: what the model saw of them, said as the CLI's table says it
        cells["shown_as"] = cells["shown_as"].where(rows["shown_as"].notna(), SKIPPED_SAW)
        for column, said in (("in_view", LEFT_OUT_TEXT), ("ended", ENDED_SAW)):
            nothing = rows[column].eq(column == "ended").fillna(False).to_numpy(dtype=bool)
            if nothing.any():
                cells.loc[nothing, "shown_as"] = said
        # the caller's prefill marked in a reason, and the note on tool uses its agent ran left off, as steps says them;
        # its bytes those of the reason shown, so a reason that was only the note is empty beside 0 bytes
        if reasons := self.views.reasons_said():
            shown = [reasons.get(at) for at in rows["index"].tolist()]
            cells["reason"] = [
                held if text is None else text for text, held in zip(shown, cells["reason"], strict=True)
            ]
            cells["reason_bytes"] = [
                held if text is None else utf8_bytes(text)
                for text, held in zip(shown, cells["reason_bytes"], strict=True)
            ]
        page = (rows, list(cells.itertuples(index=False, name=None)), rows["index"].tolist())
        self._shown = (key, page)
        return page

    def _filter(self, _change: Any = None) -> None:
        self._kept = self.filtered() if self._filtering() else None
        self._shown = None
        self.count.value = f"{self.matched:,} of {len(self.run.steps):,} steps"
        self._go(0)

    def _follow(self, _change: Any = None) -> None:
        conversation = self.conversation
        at = conversation.at
        # every stop is a step's index but the last, the view after the last step
        self.marked_step = at if conversation.slider.value < len(conversation.stops) - 1 else None
        self._go(self.page_of(at))

    def _go(self, page: int) -> None:
        """Show page ``page`` (clamped to the pages there are): drawn now with the steps tab open, else once it is."""
        self._page = max(0, min(page, self.pages - 1))
        start, matched = self._page * self.page_rows, self.matched
        shown = min(self.page_rows, matched - start)
        self.rows_label.value = f"rows {start + 1:,}-{start + shown:,} of {matched:,}" if matched else "no rows"
        first, last = self._page == 0, self._page == self.pages - 1
        self.first_button.disabled = self.previous_page_button.disabled = first
        self.next_page_button.disabled = self.last_button.disabled = last
        self._stale = self.tabs.selected_index != 0
        if not self._stale:
            self._draw()

    def _draw(self) -> None:
        rows, cells, steps = self._page_cells()
        marked = steps.index(self.marked_step) if self.marked_step in steps else None
        self.table.value = wrap(table_html(list(rows.columns), cells, marked=marked, kind_columns=("shown_as",)))
        self._stale = False

    def _open(self, change: Any) -> None:
        if change["new"] == 0 and self._stale:
            self._draw()
        if change["new"] == 3 and not self.chart.value:
            self.chart.value = size_chart_html(self.series, rendered_across=bool(self.views.rendered_across))
            self.size_tab.children = (self.chart, widgets.HTML(self._totals_html()))

    def _totals_html(self) -> str:
        totals = self.series.totals(self.views.describe_mode())  # the offline page's size tab shows the same
        if not totals:
            return ""
        said = "".join(
            "<span>"
            + "".join(f"<b>{escape_text(words, 500)}</b>" if bold else escape_text(words, 500) for words, bold in fact)
            + "</span>"
            for fact in totals
        )
        return wrap(f'<div class="ar-header">{said}</div>')
