"""``ConversationView``: the model's view at any step of a run, as chat turns."""

from __future__ import annotations

from bisect import bisect_left
from typing import TYPE_CHECKING, Any

from agentrender._display.values import SHOWN_STEPS
from agentrender.notebook._base import Widget, stepper, widgets
from agentrender.render import RECENT_RESULTS, RESULT_BYTES, Options
from agentrender.views import View, Views
from agentrender.views.html import view_html

if TYPE_CHECKING:
    from agentrender.runfile import Run

COUNTED_STEPS = 2_000
"""The most steps a run may have for its views' bytes, replay key and change to be counted from the
first display; a longer run's header counts them once the ``count`` box is ticked."""


class ConversationView(Widget):
    """The view at one step of ``run``, with a step slider and the window's two settings.

    ``at`` is the step whose decision the view preceded (``None``: after the last step);
    ``options`` default to ``run.options()``. The header gives the message count, bytes,
    approximate tokens, the replay key and what changed since the previous step; the turns
    are coloured by what each block is (see the legend). ``last_steps`` bounds how many
    steps the HTML shows, so a long run stays light in the page. ``run`` may be a ``Views``
    (to set what the replay key hashes, such as ``max_output_tokens``).

    What reads every step before the view (its bytes, tokens, replay key and what changed) is
    counted while the ``count`` box is ticked: from the start for a run of at most
    ``COUNTED_STEPS`` steps, on demand for a longer one, so its first display and each move
    cost what the steps shown cost.

    An imported run has two views (``Views.mode``, named in the header): as sent (its recorded
    turns, every result in full) and under the contract's window and cap. For it, an ``as
    sent`` box switches between them; the window's two settings apply under the contract.
    """

    def __init__(
        self,
        run: Run | Views,
        at: int | None = None,
        options: Options | None = None,
        *,
        last_steps: int = SHOWN_STEPS,
    ) -> None:
        if isinstance(run, Views) and options is not None:
            raise ValueError("ConversationView(views, options=...): Views carry their options; pass the run instead")
        self.views = run if isinstance(run, Views) else Views(run, options)
        """The views of the run at the current settings."""
        self._first = self.views
        self._by_result_bytes: dict[int, Views] = {self.views.options.result_bytes: self.views}
        as_sent = self.views.mode == "as sent"
        self.as_sent = widgets.Checkbox(
            value=as_sent,
            description="as sent",
            indent=False,
            layout=widgets.Layout(width="90px", display="" if self.views.mode else "none"),
        )
        """For an imported run: show what its agent sent (checked), or the run under the contract's window and cap."""
        self._sent_views: Views | None = self.views if as_sent else None
        stops = self.views.stops
        self.stops = stops
        """The steps a view can be taken at (the slider's positions)."""
        start = len(stops) - 1 if at is None else min(bisect_left(stops, at), len(stops) - 1)
        self.slider, self.previous_button, self.next_button = stepper(len(stops), start, "step")
        self.position_label = widgets.Label(layout=widgets.Layout(flex="0 0 auto"))
        options_now = self.views.options
        # as sent, the window holds everything; the settings start at the contract's, ready for the what-if
        window = (RECENT_RESULTS, RESULT_BYTES) if as_sent else (options_now.recent_results, options_now.result_bytes)
        self.recent_results = widgets.BoundedIntText(
            value=min(window[0], 1_000_000),
            min=0,
            max=1_000_000,
            description="recent_results",
            style={"description_width": "initial"},
            layout=widgets.Layout(width="190px"),
        )
        self.result_bytes = widgets.BoundedIntText(
            value=min(window[1], 1 << 40),
            min=0,
            max=1 << 40,
            description="result_bytes",
            style={"description_width": "initial"},
            layout=widgets.Layout(width="200px"),
        )
        self.last_steps = widgets.BoundedIntText(
            value=last_steps,
            min=1,
            max=100_000,
            description="steps shown",
            style={"description_width": "initial"},
            layout=widgets.Layout(width="170px"),
        )
        self.count = widgets.Checkbox(
            value=len(self.views.steps) <= COUNTED_STEPS,
            description="count",
            tooltip="count the view's bytes, tokens, replay key and change (reads every step before it)",
            indent=False,
            layout=widgets.Layout(width="70px"),
        )
        """Count what reads every step before the view into the header (ticked from the start for a short run)."""
        self.html = widgets.HTML()
        controls = (self.slider, self.as_sent, self.recent_results, self.result_bytes, self.last_steps, self.count)
        for control in controls:
            control.observe(self._refresh, names="value")
        self.widget = widgets.VBox(
            [
                widgets.HBox([self.previous_button, self.slider, self.next_button, self.position_label]),
                widgets.HBox([self.as_sent, self.recent_results, self.result_bytes, self.last_steps, self.count]),
                self.html,
            ]
        )
        self._refresh()

    @property
    def at(self) -> int:
        """The step the view is taken at (the slider's stop)."""
        return self.stops[int(self.slider.value)]

    @at.setter
    def at(self, step: int) -> None:
        self.slider.value = min(bisect_left(self.stops, step), len(self.stops) - 1)

    @property
    def view(self) -> View:
        """The view shown now."""
        return self.views.at(self.at)

    def _current_views(self) -> Views:
        run = self._first.run
        imported = run is not None and bool(self._first.mode)
        self.recent_results.disabled = self.result_bytes.disabled = imported and self.as_sent.value
        if imported and self.as_sent.value:
            if self._sent_views is None:
                self._sent_views = self._first.under(run.options() if run is not None else self._first.options)
            return self._sent_views
        result_bytes = self.result_bytes.value
        base = self._by_result_bytes.get(result_bytes)
        if base is None or (imported and base.mode == "as sent"):
            if imported and run is not None:
                # the run's own options give the window and cap to its recorded turns (Run.options)
                options = run.options(recent_results=self.recent_results.value, result_bytes=result_bytes)
                base = self._first.under(options)
            else:
                base = self.views.with_options(result_bytes=result_bytes)
            self._by_result_bytes[result_bytes] = base
        if base.options.recent_results != self.recent_results.value:
            # a new window reuses the per-step renders of the same result_bytes
            return base.with_options(recent_results=self.recent_results.value)
        return base

    def _refresh(self, _change: Any = None) -> None:
        self.views = self._current_views()
        at = self.at
        last = self.slider.value == len(self.stops) - 1
        view = self.views.at(at)
        self.position_label.value = (
            f"deciding step {at}"
            + (" (after the last recorded step)" if last else "")
            + (" \u2702 right after a compaction" if any(c.step == at for c in self.views.compactions) else "")
            + (" \u00b7 the conversation as it ended" if view.ended else "")
        )
        self.html.value = view_html(view, last_steps=self.last_steps.value, counted=self.count.value)
