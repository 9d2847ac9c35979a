"""``RunExplorer``: a run's steps, conversation, decisions and view size, in tabs."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

from agentrender._display.values import escape_text, table_html, wrap
from agentrender._extras import require
from agentrender.frame import TEXT_DTYPE, steps_frame
from agentrender.notebook._base import Widget, widgets
from agentrender.notebook.conversation import ConversationView
from agentrender.notebook.decide import DecideStepper
from agentrender.views import SizeSeries, Views

if TYPE_CHECKING:
    import pandas as pd

    from agentrender.runfile import Run

ALL = "(all)"
"""The filter value that keeps every row."""
NONE = "(none)"
"""The filter value of a row with no value in the column (a step without a decision has no kind)."""
SHOWN_ROWS = 200
"""How many rows of the steps table the page shows at most; the count says how many matched."""


def size_chart_png(series: SizeSeries, *, width: float = 9.0, height: float = 3.6) -> bytes:
    """A PNG of the view's bytes per step with and without the window, marking where the cache prefix breaks."""
    require("notebook", "matplotlib")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=96)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    axes.plot(series.at, series.bytes_no_window, label="without the window (every result in full)", color="#8c959f")
    axes.plot(series.at, series.bytes, label="with the window (as rendered)", color="#0969da")
    breaks = [at for at, left in zip(series.at, series.left_window, strict=True) if left is not None]
    if breaks:
        sizes = dict(zip(series.at, series.bytes, strict=True))
        axes.scatter(
            breaks,
            [sizes[at] for at in breaks],
            marker="v",
            color="#cf222e",
            s=18,
            zorder=3,
            label="cache prefix breaks (a result left the window)",
        )
    axes.set_xlabel("step (the view the model saw deciding it)")
    axes.set_ylabel("bytes of messages")
    axes.grid(alpha=0.3)
    axes.legend(loc="upper left", fontsize=8)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def _labels(column: pd.Series) -> pd.Series:
    """A column's values as the filters name them: text, with a missing value as ``NONE``."""
    return column.astype(TEXT_DTYPE).fillna(NONE)


class RunExplorer(Widget):
    """Tabs for a run: the steps table (filterable), the conversation, decide, and the view's size."""

    def __init__(self, run: Run, options: Any = None) -> None:
        self.run = run
        """The run explored."""
        self.views = Views(run, options)
        """The views of the run (shared with the conversation tab)."""
        self.frame = steps_frame(run, views=self.views)
        """The steps table (``agentrender.frame.steps_frame``), unfiltered."""
        self.conversation = ConversationView(self.views)
        """The conversation tab."""
        self.decide = DecideStepper(run)
        """The decide tab."""

        def choices(column: str) -> list[str]:
            return [ALL, *sorted(set(_labels(self.frame[column])))]

        self.kind_filter = widgets.Dropdown(options=choices("kind"), description="kind")
        self.status_filter = widgets.Dropdown(options=choices("status"), description="status")
        self.tool_filter = widgets.Dropdown(options=choices("tool"), description="tool")
        self.text_filter = widgets.Text(description="reason has", continuous_update=False)
        self.rendered_only = widgets.Checkbox(description="rendered steps only", value=False)
        self.table = widgets.HTML()
        self.count = widgets.Label()
        for control in (self.kind_filter, self.status_filter, self.tool_filter, self.text_filter, self.rendered_only):
            control.observe(self._filter, names="value")
        steps_tab = widgets.VBox(
            [
                widgets.HBox([self.kind_filter, self.status_filter, self.tool_filter]),
                widgets.HBox([self.text_filter, self.rendered_only, self.count]),
                self.table,
            ]
        )
        self.series = self.views.sizes()
        """The size series the chart draws."""
        self.chart = widgets.Image(value=size_chart_png(self.series), format="png")
        totals = widgets.HTML(self._totals_html())
        self.tabs = widgets.Tab(
            children=[steps_tab, self.conversation.widget, self.decide.widget, widgets.VBox([self.chart, totals])]
        )
        for number, title in enumerate(("steps", "conversation", "decide", "size")):
            self.tabs.set_title(number, title)
        self.widget = self.tabs
        self._filter()

    def filtered(self) -> pd.DataFrame:
        """The rows of the steps table the filters keep."""
        frame = self.frame
        keep = frame.index == frame.index
        for column, control in (("kind", self.kind_filter), ("status", self.status_filter), ("tool", self.tool_filter)):
            if control.value != ALL:
                keep &= _labels(frame[column]) == control.value
        if self.text_filter.value:
            reasons = frame["reason"].astype(TEXT_DTYPE)
            keep &= reasons.str.contains(self.text_filter.value, case=False, regex=False).fillna(False)
        if self.rendered_only.value:
            keep &= frame["rendered"].astype(bool)
        return frame[keep]

    def _filter(self, _change: Any = None) -> None:
        rows = self.filtered()
        self.count.value = f"{len(rows):,} of {len(self.frame):,} steps"
        from pandas import NA

        shown = rows.head(SHOWN_ROWS)
        # one mark for a missing value whatever the column's dtype (a category's is a float nan)
        shown = shown.astype(object).where(shown.notna(), NA)  # type: ignore[arg-type]  # pandas-stubs omit NA
        table = table_html(list(rows.columns), shown.itertuples(index=False, name=None))
        more = f'<div class="ar-elided">showing the first {SHOWN_ROWS} rows</div>' if len(rows) > SHOWN_ROWS else ""
        self.table.value = wrap(f"{table}{more}")

    def _totals_html(self) -> str:
        series = self.series
        if not len(series):
            return ""
        breaks = sum(left is not None for left in series.left_window)
        resent = sum(series.resent_bytes)
        total = sum(series.bytes)
        mode = self.views.describe_mode()
        return wrap(
            '<div class="ar-header">'
            + (f"<span><b>{escape_text(mode, 500)}</b></span>" if mode else "")
            + f"<span><b>{len(series):,}</b> views</span>"
            f"<span>last view <b>{series.bytes[-1]:,}</b> bytes (~{series.tokens[-1]:,} tokens), "
            f"<b>{series.bytes_no_window[-1]:,}</b> without the window</span>"
            f"<span>the cache prefix broke <b>{breaks:,}</b> times</span>"
            f"<span>over the run <b>{resent:,}</b> of <b>{total:,}</b> bytes sent were re-sent after the prefix</span>"
            "</div>"
        )
