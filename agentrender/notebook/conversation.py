"""``ConversationView``: the model's view at any step of a run, as chat turns."""

from __future__ import annotations

from bisect import bisect_left
from typing import TYPE_CHECKING, Any

from agentrender._display.values import SHOWN_STEPS
from agentrender.notebook._base import Widget, stepper, widgets
from agentrender.render import Options
from agentrender.views import View, Views
from agentrender.views.html import view_html

if TYPE_CHECKING:
    from agentrender.runfile import Run


class ConversationView(Widget):
    """The view at one step of ``run``, with a step slider and the window's two settings.

    ``at`` is the step whose decision the view preceded (``None``: after the last step);
    ``options`` default to ``run.options()``. The header gives the message count, bytes,
    approximate tokens, the replay key and what changed since the previous step; the turns
    are coloured by what each block is (see the legend). ``last_steps`` bounds how many
    steps the HTML shows, so a long run stays light in the page. ``run`` may be a ``Views``
    (to set what the replay key hashes, such as ``max_output_tokens``).
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
        self._by_result_bytes: dict[int, Views] = {self.views.options.result_bytes: self.views}
        stops = self.views.stops
        self.stops = stops
        """The steps a view can be taken at (the slider's positions)."""
        start = len(stops) - 1 if at is None else min(bisect_left(stops, at), len(stops) - 1)
        self.slider, self.previous_button, self.next_button = stepper(len(stops), start, "step")
        self.position_label = widgets.Label(layout=widgets.Layout(flex="0 0 auto"))
        options_now = self.views.options
        self.recent_results = widgets.BoundedIntText(
            value=min(options_now.recent_results, 1_000_000),
            min=0,
            max=1_000_000,
            description="recent_results",
            style={"description_width": "initial"},
            layout=widgets.Layout(width="190px"),
        )
        self.result_bytes = widgets.BoundedIntText(
            value=options_now.result_bytes,
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
        self.html = widgets.HTML()
        for control in (self.slider, self.recent_results, self.result_bytes, self.last_steps):
            control.observe(self._refresh, names="value")
        self.widget = widgets.VBox(
            [
                widgets.HBox([self.previous_button, self.slider, self.next_button, self.position_label]),
                widgets.HBox([self.recent_results, self.result_bytes, self.last_steps]),
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
        result_bytes = self.result_bytes.value
        base = self._by_result_bytes.get(result_bytes)
        if base is None:
            base = self._by_result_bytes[result_bytes] = self.views.with_options(result_bytes=result_bytes)
        if base.options.recent_results != self.recent_results.value:
            # a new window reuses the per-step renders of the same result_bytes
            return base.with_options(recent_results=self.recent_results.value)
        return base

    def _refresh(self, _change: Any = None) -> None:
        self.views = self._current_views()
        at = self.at
        last = self.slider.value == len(self.stops) - 1
        self.position_label.value = f"deciding step {at}" + (" (after the last recorded step)" if last else "")
        self.html.value = view_html(self.views.at(at), last_steps=self.last_steps.value)
