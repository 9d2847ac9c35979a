"""``ConversationView``: the model's view at any step of a run, as chat turns."""

from __future__ import annotations

import os
import threading
import time
from bisect import bisect_left
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agentrender._display.said import warning_groups
from agentrender._display.values import SHOWN_STEPS
from agentrender._words import plural
from agentrender.imports import load
from agentrender.imports.following import follower
from agentrender.notebook._base import Widget, row, stepper, widgets
from agentrender.render import RECENT_RESULTS, RESULT_BYTES, Options
from agentrender.runfile.following import POLL_INTERVAL
from agentrender.views import View, Views
from agentrender.views.html import view_html

if TYPE_CHECKING:
    from agentrender.runfile import Growth, Run

LIVE = "\u25cf live"
"""What the position line begins with while a followed file is watched for growth."""

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

    ``follow=True`` with ``run`` a path follows the file while it is written (a run file, a
    Claude Code session, a recording: ``imports.following.follower``): a thread looks at it every
    ``runfile.following.POLL_INTERVAL`` seconds, and each growth extends the views and moves the
    slider to the newest step, unless the user moved it away; the position line begins with
    ``LIVE`` until ``stop_following()`` (or a file that can no longer be read, which it then says).
    A file with no run in it yet is waited for, ``wait`` seconds at most.

    A run read with warnings (``Run.warnings``: lines an importer could not read as they are, turns its views lack)
    gets a line under the controls saying how many and where to see them, unless ``note_warnings=False`` (the
    explorer's conversation tab: the explorer lists them in its run tab).
    """

    def __init__(
        self,
        run: Run | Views | str | os.PathLike[str],
        at: int | None = None,
        options: Options | None = None,
        *,
        last_steps: int = SHOWN_STEPS,
        follow: bool = False,
        wait: float = 10.0,
        note_warnings: bool = True,
    ) -> None:
        self._tracker: Any = None
        self._stopped = threading.Event()
        self._polling = threading.Lock()  # the watching thread and catch_up take turns with the file
        self.on_growth: list[Callable[[Growth], None]] = []
        """Called with each growth of a followed file, once the view took it in (``RunExplorer`` listens)."""
        self.problem = ""
        """Why following stopped, when the file could no longer be read; else ``""``."""
        if isinstance(run, str | os.PathLike):
            run = self._first_run(run, follow, wait)
        elif follow:
            raise ValueError("ConversationView(..., follow=True) follows a file: give its path, not a run")
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
        self.warnings_note = widgets.Label(layout=widgets.Layout(display="none"))
        """Under the controls: how many warnings the run was read with, and where to see them (hidden when none)."""
        self._note_warnings = note_warnings
        self._warnings_said = -1  # how many warnings the line says (-1: not yet said)
        self.html = widgets.HTML()
        controls = (self.slider, self.as_sent, self.recent_results, self.result_bytes, self.last_steps, self.count)
        for control in controls:
            control.observe(self._refresh, names="value")
        self.widget = widgets.VBox(
            [
                row([self.previous_button, self.slider, self.next_button, self.position_label]),
                row([self.as_sent, self.recent_results, self.result_bytes, self.last_steps, self.count]),
                self.warnings_note,
                self.html,
            ]
        )
        self._refresh()
        if self._tracker is not None:
            threading.Thread(target=self._watch, name=f"follow {run.path}", daemon=True).start()

    def _first_run(self, path: str | os.PathLike[str], follow: bool, wait: float) -> Run:
        """The run in the file at ``path`` (read once, or as the first growth of a follow, waited for)."""
        if not follow:
            return load(path)
        self._tracker = follower(path)
        until = time.monotonic() + wait
        while (growth := self._tracker.poll()) is None:
            if time.monotonic() > until:
                why = self._tracker.waiting  # an importer's error: a document half written
                said = f"it does not import yet: {why}" if why else "is its agent writing it?"
                raise ValueError(f"{os.fspath(path)}: no run in it after {wait:g} s: {said}")
            time.sleep(POLL_INTERVAL)
        run: Run = growth.run
        return run

    @property
    def following(self) -> bool:
        """The file is being watched for growth."""
        return self._tracker is not None and not self._stopped.is_set()

    def stop_following(self) -> None:
        """Stop watching the file; the view stays as it is."""
        with self._polling:
            self._stopped.set()
        self._refresh()

    def _watch(self) -> None:
        while not self._stopped.wait(POLL_INTERVAL):
            self.catch_up()

    def catch_up(self) -> None:
        """Take in what the followed file gained, now, without waiting for the thread's next look."""
        with self._polling:
            if self._stopped.is_set():
                return
            try:
                growth = self._tracker.poll()
            except ValueError as error:  # a RunFileError: the file no longer reads
                self.problem = str(error)
                self._stopped.set()
                self._refresh()
                return
            if growth is not None:
                self.take_in(growth)

    def take_in(self, growth: Growth) -> None:
        """Take a growth of the followed file: the views extend, and the slider moves to the newest step
        when it stood at the last one (a user who moved it away keeps their step)."""
        first = self._first
        if growth.notice or first.run is None:
            first = Views(growth.run, first.options if not first.mode else None)
        else:
            first.extend(growth.run, growth.changed_from)
        self._first = first
        self._by_result_bytes = {first.options.result_bytes: first}
        self._sent_views = first if first.mode == "as sent" else None
        newest = self.slider.value == len(self.stops) - 1
        self.stops = first.stops
        last = len(self.stops) - 1
        with self.slider.hold_trait_notifications():
            self.slider.max = max(0, last)
            self.slider.disabled = last < 1
        if newest and self.slider.value != last:
            self.slider.value = last  # observed: refreshes the view
        else:
            self._refresh()
        for listener in self.on_growth:
            listener(growth)

    @property
    def base(self) -> Views:
        """The views under the options the widget was made with (the ones a followed file's growth extends)."""
        return self._first

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
        run = self.views.run
        live = ""
        if self._tracker is not None:
            if self.following:
                live = f"{LIVE} \u00b7 "
            elif self.problem:
                live = f"stopped: {self.problem} \u00b7 "
            if run is not None and run.end is not None:
                live += f"ended ({run.end.get('status')}) \u00b7 "
        self.position_label.value = (
            live
            + view.where  # deciding step K, or the view beside a prefill no model decided
            + (" (after the last recorded step)" if last and not view.prefill else "")
            + (" \u2702 right after a compaction" if any(c.step == at for c in self.views.compactions) else "")
            + (" \u00b7 the conversation as it ended" if view.ended else "")
        )
        self.html.value = view_html(view, last_steps=self.last_steps.value, counted=self.count.value)
        self._say_warnings(run)

    def _say_warnings(self, run: Run | None) -> None:
        """The line under the controls as the run's warnings are (a followed file's may come with a growth): counted
        again only when they changed, not at each move."""
        warnings = run.warnings if run is not None and self._note_warnings else ()
        if len(warnings) == self._warnings_said:
            return
        self._warnings_said = len(warnings)
        groups = len(warning_groups(warnings))
        if groups:
            self.warnings_note.value = (
                f"read with {plural(groups, 'warning')}: RunExplorer(run) lists them in its run tab, as "
                "agentrender show prints them; run.warnings holds each"
            )
        self.warnings_note.layout.display = "" if groups else "none"
