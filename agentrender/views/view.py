"""The model's view at any step of a run: ``Views`` renders each step once, ``View`` is one step's view.

The view at step ``k`` is exactly ``render.messages(run.step_input(k), options)``,
assembled by slicing per-step renders (``agentrender.views.renders``), with its facts, its
bytes and what changed since the view before it. An imported run viewed as sent is what its
source sent: a view after a compaction (``Run.compactions``) is the compaction's opening and
the turns since, and the view after a reply nothing answered ends on that reply (``View.ended``).
"""

from __future__ import annotations

import numbers
import reprlib
import sys
from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import fields
from functools import cached_property
from operator import lt, sub
from typing import TYPE_CHECKING, Any

from agentrender import _api_rules, render
from agentrender._json import canonical
from agentrender._types import Message, Messages, Step, StepInput
from agentrender._words import plural
from agentrender.render import Options
from agentrender.views.facts import (
    BlockFact,
    Change,
    CompactionFact,
    MessageFact,
    SizeSeries,
    StepFact,
    StepsRead,
    compaction_name,
    ended_text,
    marked_fact,
    one_value,
    prefill_where,
    reason_said,
)
from agentrender.views.html import view_html
from agentrender.views.renders import StepRenders, given_fact
from agentrender.views.sizes import approx_tokens, json_bytes, list_bytes, message_bytes

if TYPE_CHECKING:
    from agentrender._types import Message
    from agentrender.runfile import Compaction, Run

__all__ = ["NO_WINDOW", "View", "Views", "checked_at", "window_json"]

NO_WINDOW = sys.maxsize
"""A ``recent_results`` that shows every result in full: the view as if there were no window."""


def window_json(options: Options) -> dict[str, int | None]:
    """``options``' ``recent_results`` and ``result_bytes`` as JSON a program reads: ``None`` (null) for no window or
    no cap (``NO_WINDOW``, an imported run's view as sent), which JavaScript's ``JSON.parse`` would round to
    another number; the numbers otherwise."""
    return {
        "recent_results": None if options.recent_results >= NO_WINDOW else options.recent_results,
        "result_bytes": None if options.result_bytes >= NO_WINDOW else options.result_bytes,
    }


def checked_at(at: object, last: int) -> int | None:
    """``at`` as a step a view is taken at, of a run whose last stop is ``last`` (one past its last step's index):
    ``None``, or an int from 0 to ``last``; else ``IndexError`` (a step before or past the run) or ``TypeError`` (no
    int: a string, a float, a bool), naming the range. ``Views.at`` and ``Run.step_input`` check a step so."""
    if at is None:
        return None
    if type(at) is int and 0 <= at <= last:  # the usual case, checked first
        return at
    taken = f"its steps end at {last - 1}, so a view is taken at 0 to {last} ({last}: after the last step)"
    if last == 0:
        taken = "it holds no steps, so a view is taken at 0 only (its opening)"
    if isinstance(at, bool) or not isinstance(at, numbers.Integral):
        raise TypeError(f"step {reprlib.repr(at)} is a {type(at).__name__}, not a step's index (an int): {taken}")
    step = int(at)  # a numpy integer too
    if not 0 <= step <= last:
        raise IndexError(f"step {step} is {'past' if step > last else 'before'} the run: {taken}")
    return step


class Views:
    """The model's view at every step of one run under one ``Options``, from per-step renders.

    ``source`` is a ``Run`` (its steps, goal, run id and tools; ``options`` defaults to
    ``run.options()``) or a ``StepInput`` (then ``options`` is required). The view at step
    ``k`` is ``render.messages`` of the steps with an index below ``k``. Each step is
    rendered once in each form, the first time a view shows it in that form; ``at`` then
    only slices.

    ``system``, ``tools``, ``model`` and ``max_output_tokens`` are what ``View.replay_key``
    hashes with the messages. For a ``Run`` they default to the run's header: its system,
    model and ``max_output_tokens`` (0 when not recorded), and its tools as a request sends
    them (``read_only`` and any other field of the run file's own left out; a run that records
    what its agent sent, an import, holds them as they were sent, every field kept). So for a
    run whose header records what its agent sent, a view's key is the ``request_key`` the agent
    recorded, with no arguments beyond the options it rendered with.
    """

    def __init__(
        self,
        source: Run | StepInput,
        options: Options | None = None,
        *,
        system: str | None = None,
        tools: Sequence[Any] | None = None,
        model: str | None = None,
        max_output_tokens: int | None = None,
        _renders: StepRenders | None = None,
    ) -> None:
        self.source = source
        """The run (or step input) the views are of."""
        settings_given = (system, tools, model, max_output_tokens) != (None, None, None, None)
        if isinstance(source, StepInput):
            if options is None:
                raise ValueError("Views(step_input, options): a StepInput carries no opening, so options are required")
            self.run: Run | None = None
            steps, goal, run_id, offered = source.steps, source.goal, source.run_id, tuple(source.tools)
            self._end_index = source.index
            compactions: tuple[Compaction, ...] = ()
        else:
            self.run = source
            options = source.options() if options is None else options
            steps, goal, run_id, offered = source.steps, source.goal, source.run_id, source.tools
            self._end_index = None
            compactions = source.compactions
            system = source.system if system is None else system
            model = source.model if model is None else model
            if tools is None:
                # a run that records what its agent sent holds its tools as they were sent, every field kept
                tools = list(offered) if source.records_sent else [_api_rules.wire_tool(tool) for tool in offered]
            if max_output_tokens is None:
                max_output_tokens = source.max_output_tokens
        if not isinstance(options, Options):
            raise TypeError(f"Views: options must be render.Options, got {type(options).__name__}")
        self.options: Options = options
        """The options every view is rendered with."""
        self.goal, self.run_id, self.tools = goal, run_id, offered
        self.system = system or ""
        self.request_tools = tuple(offered if tools is None else tools)
        self.model = model or ""
        self.max_output_tokens = max_output_tokens or 0
        self._renders = _renders if _renders is not None else StepRenders(steps, options)
        # the steps and the stops as tuples, made again when the renders grew (``extend``): (growths, tuple)
        self._steps: tuple[int, tuple[Step, ...]] = (-1, ())
        self._stops: tuple[int, tuple[int, ...]] = (-1, ())
        self._openings: dict[Any, tuple[Message, int]] = {}
        self.compactions = compactions
        """The run's compactions (``Run.compactions``): where its conversation restarted with a summary."""
        # The as-sent views restart at each compaction; under the contract's options the whole history is rendered.
        self._restarts = compactions if self.run is not None and self.run.is_as_sent(options) else ()
        self._restart_steps = [compaction.step for compaction in self._restarts]
        # an import's calls record the request each step was decided with: its settings are the step's own
        self._sent_requests: dict[int, Any] | None = (
            None if self.run is None or not self.run.records_sent or settings_given else {}
        )
        self._breakpoints: dict[int | None, tuple[render.Breakpoint, ...]] = {}  # each stop's, as the hook gives
        self._parallel: Mapping[int, tuple[str, ...]] | None = None  # parallel_tools, and reasons_said: made once
        self._reasons: dict[int, str] | None = None

    @property
    def rendered_across(self) -> tuple[Compaction, ...]:
        """The compactions the views render across: all of them under the contract's options, which render the whole
        history; none as sent, where each view restarts from the last compaction before it."""
        return () if self._restarts else self.compactions

    def with_options(self, **changes: Any) -> Views:
        """The same run under ``Options`` with ``changes``; a change of ``recent_results`` alone
        reuses every per-step render."""
        return self.under(_replace_options(self.options, **changes))

    def under(self, options: Options) -> Views:
        """The same run under ``options``, its replay keys hashed with the same request settings; options
        that differ from these in ``recent_results`` alone reuse every per-step render."""
        same = all(
            getattr(options, f.name) is getattr(self.options, f.name)
            for f in fields(Options)
            if f.name != "recent_results"
        )
        return Views(
            self.source,
            options,
            system=self.system,
            tools=self.request_tools,
            model=self.model,
            max_output_tokens=self.max_output_tokens,
            _renders=self._renders if same else None,
        )

    @property
    def mode(self) -> str:
        """Which of an imported run's two views these are, as the instruments word it.

        ``"as sent"``: the run's recorded turns, every result in full, exactly what its agent
        sent; ``"under the contract (window N, cap M bytes)"``: the same history under the
        contract's window and cap, what the model would have seen. ``""`` for a run this
        package's own driver recorded (its views are the contract's, and say so already).
        """
        run = self.run
        if run is None or not run.records_sent:
            return ""
        if not self.steps or run.is_as_sent(self.options):
            return "as sent"
        options = self.options
        return f"under the contract (window {options.recent_results:,}, cap {options.result_bytes:,} bytes)"

    @property
    def summariser(self) -> str:
        """The summariser an importer gave the run's results (``""``: none, or not an imported run)."""
        return self.run.summariser if self.run is not None else ""

    def describe_mode(self) -> str:
        """``mode`` and what the results' summaries are, in one line (``""`` when ``mode`` is ``""``)."""
        mode = self.mode
        if not mode:
            return ""
        if self.summariser:
            return f"{mode}; results summarised by {self.summariser}"
        if mode != "as sent":
            return f"{mode}; no summariser: a result outside the window shows {render.NO_SUMMARY_TEXT!r}"
        return mode

    @property
    def steps(self) -> tuple[Step, ...]:
        """The run's steps, in index order."""
        renders = self._renders
        made, steps = self._steps
        if made != renders.growths:
            steps = tuple(renders.steps)
            self._steps = (renders.growths, steps)
        return steps

    def prefill(self, step: Step) -> bool:
        """Whether ``step``'s turn is a prefill no reply answered, the caller's text the conversation ended on, not a
        decision of the model (``runfile.Sent.prefill``; ``View.prefill`` of the view that ends on it)."""
        return self._renders.prefill(step)

    def prefilled(self, step: Step) -> Message | None:
        """The prefill the request that decided ``step`` ended with, as sent: the caller's text its reply went on from,
        which the view deciding it ends with (``View.prefilled``) and the step's turn holds merged with the reply;
        ``None`` when that request ended otherwise."""
        prefill = self._prefill(step.index)
        return None if prefill is None else prefill[0]

    def parallel_tools(self) -> Mapping[int, tuple[str, ...]]:
        """``Run.parallel_tools`` of the run the views are of (empty for views of a step input): the tools the reply of
        each step that called several called, by the step's index, read once for every table of these views' steps,
        and again when the views grow (``extend``)."""
        if self._parallel is None:
            self._parallel = self.run.parallel_tools() if self.run is not None else {}
        return self._parallel

    def reasons_said(self) -> Mapping[int, str]:
        """The reason of each step a table of steps says otherwise than its decision holds it, by the step's index:
        ``reason_said`` of it, the caller's prefill marked (all of a prefill no reply answered, which the view after
        the last step ends on: ``View.prefill_step``; the prefill each step's deciding request ended with:
        ``prefilled``), and the contract's note on further tool uses left off where the run's agent ran them all the
        same (``Run.parallel_notes``). Every table of steps (``agentrender steps``, the notebook explorer's, the
        offline page's) says its reasons so; made once, and again when the views grow (``extend``)."""
        said = self._reasons
        if said is None:
            renders = self._renders
            prefilled = {renders.indices[position]: made[0] for position, made in renders.prefills.items()}
            notes = self.run.parallel_notes(self.parallel_tools()) if self.run is not None else {}
            prefill = self.at(None).prefill_step
            said = self._reasons = {}
            steps = renders.steps
            for index in sorted({*prefilled, *notes, *(() if prefill is None else (prefill,))}):
                position = renders.position(index)
                step = steps[position] if position < len(steps) else None
                # a call may be of a step the run does not hold yet (the next one's), and a skipped step has no reason
                if step is not None and step.index == index and step.decision is not None:
                    note, marked = notes.get(index, ""), prefilled.get(index)
                    said[index] = reason_said(
                        step.decision.reason, prefill=index == prefill, prefilled=marked, note=note
                    )
        return said

    def extend(self, run: Run, changed_from: int | None) -> None:
        """Take ``run``, the run these views are of as it has grown (``runfile.Growth``), in place.

        ``changed_from`` is the lowest index of a step that may differ from the steps held (a
        new step, or one recorded again; ``None``: none did). Every stop before it keeps what
        was rendered and measured of it: only the steps from it on are rendered, so a run
        that grows by a step costs the render of that step, however long it is. Views made
        from these by ``under`` or ``with_options`` share their renders, and so their steps. For a
        run that records what its agent sent (an import), the options are made again from ``run``
        (``run.options()``, or with the window and cap of these under the contract).
        """
        if self.run is None:
            raise TypeError("Views.extend: these are views of a StepInput, not of a run")
        renders = self._renders
        sent = getattr(self.options.observation, "__self__", None)
        # a user message joined into the first turn before any reply changes the opening of a run with no new step
        reopened = _opening_of(run) != _opening_of(self.run)
        if (changed_from is not None or reopened) and run.records_sent and hasattr(sent, "under_contract"):
            # the hooks replaying an imported run's recorded turns read them when made: made again from the run
            # as it grew (the turns of the steps already rendered are the same), as sent or under the contract
            options = self.options
            under = {"recent_results": options.recent_results, "result_bytes": options.result_bytes}
            self.options = renders.options = run.options(**(under if getattr(sent, "under_contract", False) else {}))
            self._openings.clear()  # the recorded opening too, which a rewound session may have changed
        if changed_from is not None:
            position = bisect_left(renders.indices, changed_from)
            renders.grow(position, run.steps[position:])
        self.source = self.run = run
        compactions = run.compactions
        if compactions != self.compactions:
            self.compactions = compactions
            self._restarts = compactions if run.is_as_sent(self.options) else ()
            self._restart_steps = [compaction.step for compaction in self._restarts]
            self._openings.clear()  # the openings of the compactions
        if callable(self.options.opening):
            self._openings.clear()  # an opening made by a hook from the steps before its stop
        if self._sent_requests is not None:
            self._sent_requests = {}
        self._breakpoints.clear()
        self._parallel = self._reasons = None  # a new step may answer an earlier one's tool uses, or end on a prefill

    @property
    def stops(self) -> tuple[int, ...]:
        """The steps a view can be taken at: each step's index, then one past the last.

        The last is the view after every recorded step (what the model would see next).
        """
        renders = self._renders
        made, stops = self._stops
        if made != renders.growths:
            indices = renders.indices
            stops = (*indices, indices[-1] + 1) if indices else (0,)
            self._stops = (renders.growths, stops)
        return stops

    def step_input(self, at: int | None) -> StepInput:
        """The ``StepInput`` the view at ``at`` renders: the steps with an index below ``at`` (checked as ``at``)."""
        at = self._checked(at)
        position = self._renders.position(at)
        index = self._end_index if at is None else at
        return StepInput(
            steps=tuple(self._renders.steps[:position]),
            goal=self.goal,
            run_id=self.run_id,
            index=index,
            tools=self.tools,
        )

    def _stop(self, at: int | None) -> int:
        """The stop ``at`` names: ``at``, or one past the last step for ``None``."""
        if at is not None:
            return at
        indices = self._renders.indices  # the last stop, one past the last step, without making every stop
        return indices[-1] + 1 if indices else 0

    def _base(self, at: int | None) -> int:
        """Which compaction the view at ``at`` restarts from (an index of ``_restarts``); -1: none, it opens the run."""
        return bisect_right(self._restart_steps, self._stop(at)) - 1 if self._restarts else -1

    def _start(self, base: int) -> int:
        """How many rendered steps come before the compaction ``base`` (0 for -1): those its views leave out."""
        if base < 0:
            return 0
        renders = self._renders
        return renders.rendered_before[renders.position(self._restarts[base].step)]

    def _opening(self, at: int | None) -> tuple[Message, int]:
        """The opening message of the view at ``at``, and its bytes."""
        return self._opening_of(self._base(at), at)

    def _opening_of(self, base: int, at: int | None) -> tuple[Message, int]:
        """The message a view at ``at`` opens with when it restarts from compaction ``base`` (-1: the run's opening)."""
        opening = self.options.opening
        key: Any = ("compaction", base) if base >= 0 else at if callable(opening) else None
        cached = self._openings.get(key)
        if cached is None:
            if base >= 0:
                message = Message(role="user", content=self._restarts[base].opening)
            else:
                # a text opening reads no StepInput: one copies every step before the stop (a growth's, each run's)
                given = self.step_input(at) if callable(opening) else _TEXT_OPENS
                message = Message(role="user", content=render.opening_blocks(given, self.options))
            if len(self._openings) > 4096:
                self._openings.clear()
            cached = self._openings[key] = (message, message_bytes(message))
        return cached

    def _span(self, start: int, now: int, cut: int, opening: int, at: int | None) -> tuple[int, int]:
        """(message count, bytes as a compact JSON list) of an opening of ``opening`` bytes and the rendered
        steps ``[start:now]``, those before ``cut`` as summaries; a last step the conversation ended on
        (``StepRenders.ended``) brings its assistant turn only, and the view at ``at`` ends with the prefill its
        request did (``_prefill``)."""
        renders = self._renders
        sizes = renders.sizes
        total = opening + sizes.steps(now, cut) - sizes.steps(start, cut)
        count = 1 + 2 * (now - start)
        if now > start and renders.ended[now - 1]:
            total -= sizes.user(now - 1, now - 1 >= cut)
            count -= 1
        prefill = self._prefill(at)
        if prefill is not None:
            total += prefill[1]
            count += 1
        return count, list_bytes(count, total)

    def _prefill(self, at: int | None) -> tuple[Message, int] | None:
        """The prefill the view at ``at`` ends with, and its bytes: the caller's text the request that decided step
        ``at`` ended with, as sent (``StepRenders.prefills``); ``None`` when it ended otherwise."""
        renders = self._renders
        prefills = renders.prefills
        if not prefills or at is None:
            return None
        position = renders.position(at)
        return prefills.get(position) if position < len(renders.indices) and renders.indices[position] == at else None

    def messages(self, at: int | None = None) -> Messages:
        """The conversation the model saw deciding step ``at`` (checked as ``at``): ``render.messages`` of it, by
        slicing."""
        at = self._checked(at)
        rendered, base = self._rendered(at), self._base(at)
        start = self._start(base)
        cut = render.window_start(rendered, self.options.recent_results)
        summaries, fulls = self._renders.interleaved(rendered, cut, start)
        out = Messages((self._opening_of(base, at)[0],))
        out += summaries[2 * start : 2 * cut]
        out += fulls[2 * max(start, cut) : 2 * rendered]
        if rendered > start and self._renders.ended[rendered - 1]:
            out.pop()  # the conversation ended on that reply: nothing was sent after it
        prefill = self._prefill(at)
        if prefill is not None:
            out.append(prefill[0])  # the request ended with the caller's prefill, the start of step at's turn
        marks = self._marks(at, len(out))
        return render.with_breakpoints(out, marks) if marks else out

    def _marks(self, at: int | None, count: int) -> tuple[render.Breakpoint, ...]:
        """The cache breakpoints of the view at ``at`` (of ``count`` messages) that ``render.with_breakpoints`` places:
        what the options' ``breakpoints`` hook gives for its step input, on the messages the view holds."""
        hook = self.options.breakpoints
        if hook is None:
            return ()
        marks = self._breakpoints.get(at)
        if marks is None:
            marks = self._breakpoints[at] = tuple(hook(self.step_input(at)))
        return tuple(mark for mark in marks if mark[0] < count)

    def _request_sent(self, at: int | None) -> Any:
        """The request the last model call for step ``at`` recorded, for an import's views; else ``None``."""
        requests = self._sent_requests
        if requests is None or at is None or self.run is None:
            return None
        if not requests:
            # a call for a step the run does not hold (a side request after its last call) decided no view of it
            held = {step.index for step in self.run.steps}
            for call in self.run.model_calls:
                if call.step in held:
                    request = call.record.get("request")
                    requests[call.step] = request if isinstance(request, dict) else None
            requests[-1] = None  # read once, even when no call recorded a request
        return requests.get(at)

    def at(self, at: int | None = None) -> View:
        """The view at step ``at``: what the model saw deciding step ``at``, the steps with an index below it.

        ``at`` is one of 0 to ``stops[-1]``, one past the last step's index: the view after the last
        step (what the model would see deciding the next one, as ``None`` gives). A step's index is
        never negative, so a negative ``at`` counts nothing from the end: it raises ``IndexError``,
        as an ``at`` past the run does, naming the range; ``at`` that is no int (a string, a float,
        a bool) raises ``TypeError``, naming it too. So does every method here that takes a step.
        """
        return View(self, self._checked(at))

    def _checked(self, at: object) -> int | None:
        """``at`` as a step a view is taken at (``at``): ``None``, or an int from 0 to ``stops[-1]``, read without
        making every stop (``_stop``): a followed run checks a step at each growth, and ``stops`` is made again after
        one."""
        return checked_at(at, self._stop(None))

    def previous_stop(self, at: int | None) -> int | None:
        """The stop before ``at`` (checked as ``at``): the view a move to ``at`` comes from; ``None`` for the first."""
        at = self._checked(at)
        # the stops are the steps' indices and one past the last, so the stop before any is a step's index
        indices = self._renders.indices
        here = len(indices) if at is None else bisect_left(indices, at)
        return indices[here - 1] if here > 0 else None

    def _rendered(self, at: int | None) -> int:
        renders = self._renders
        return renders.rendered_before[renders.position(at)]

    def _bytes(self, at: int | None, recent_results: int) -> tuple[int, int]:
        """(message count, bytes as a compact JSON list) of the view at ``at`` under ``recent_results``."""
        rendered, base = self._rendered(at), self._base(at)
        cut = render.window_start(rendered, recent_results)
        count, size = self._span(self._start(base), rendered, cut, self._opening_of(base, at)[1], at)
        return count, size + _marks_bytes(self._marks(at, count))

    def change(self, at: int | None) -> Change:
        """What changed between the view at the stop before ``at`` and the view at ``at`` (checked as ``at``)."""
        at = self._checked(at)
        previous = self.previous_stop(at)
        window = self.options.recent_results
        now = self._rendered(at)
        base = self._base(at)
        opening, opening_bytes = self._opening_of(base, at)
        if previous is None:
            _, size = self._bytes(at, window)
            return Change(
                previous=None,
                first_diff=0,
                prefix_bytes=0,
                resent_bytes=size,
                added_step=None,
                left_window=None,
                bytes_delta=size,
            )
        before = self._rendered(previous)
        old_base = self._base(previous)
        previous_opening, previous_opening_bytes = self._opening_of(old_base, previous)
        first_diff, prefix, size, previous_size, left = self._diff(
            (self._start(old_base), before, previous_opening_bytes),
            (self._start(base), now, opening_bytes),
            previous_opening != opening,
            (previous, at),
        )
        return Change(
            previous=previous,
            first_diff=first_diff,
            prefix_bytes=prefix,
            resent_bytes=size - prefix,
            # a view that restarts from a compaction may leave out the step it comes after
            added_step=self._renders.rendered[now - 1].index if now > max(before, self._start(base)) else None,
            left_window=left,
            bytes_delta=size - previous_size,
        )

    def _diff(
        self,
        old: tuple[int, int, int],
        new: tuple[int, int, int],
        opening_changed: bool,
        stops: tuple[int | None, int | None],
    ) -> tuple[int | None, int, int, int, int | None]:
        """From a view to the next, each given as (first rendered step, rendered steps, opening bytes), from
        the sizes alone: (first differing message, prefix bytes, bytes, previous bytes, the step that left the window).
        ``stops`` are the two views' stops, for the bytes of their cache breakpoints (``_marks``): a message whose
        breakpoint moved does not differ for that, as a prompt cache compares the content it marks.

        A plain tuple, because the series asks this for every step and a frozen dataclass
        costs more to build than all of this arithmetic.
        """
        renders = self._renders
        sizes = renders.sizes
        window = self.options.recent_results
        (old_start, before, old_opening), (start, now, opening) = old, new
        old_cut, new_cut = render.window_start(before, window), render.window_start(now, window)
        count, size = self._span(start, now, new_cut, opening, stops[1])
        previous_count, previous_size = self._span(old_start, before, old_cut, old_opening, stops[0])
        first_diff: int | None = None
        left: int | None = None
        if opening_changed or start != old_start:
            first_diff = 0
        else:
            # Between adjacent stops one step is added at most, and one result leaves the window
            # at most; the first one whose summary differs from its full form breaks the prefix.
            for position in range(max(start, old_cut), min(new_cut, before)):
                if not sizes.same[position]:
                    first_diff = 2 + 2 * (position - start)
                    left = renders.rendered[position].index
                    break
            if first_diff is None:
                first_diff = self._after_prefill(stops[0], before, previous_count, count)
        # a breakpoint moved is no change of the prefix: the cache reads the content before it, which the marker is
        # not part of (the real claude-trace log's replies read the prefix from the cache as the marker moves on)
        old_marks, new_marks = self._marks(stops[0], previous_count), self._marks(stops[1], count)
        size += _marks_bytes(new_marks)
        previous_size += _marks_bytes(old_marks)
        if first_diff is None:
            prefix = size
        elif first_diff == 0:
            prefix = 0
        else:
            whole = (first_diff - 1) // 2
            shared = opening + sizes.steps(start + whole, new_cut) - sizes.steps(start, new_cut)
            if (first_diff - 1) % 2:
                shared += sizes.assistant[start + whole]
            shared += _marks_bytes(tuple(mark for mark in new_marks if mark[0] < first_diff))
            # the list's "[" and the "," after each shared message
            prefix = min(size, 1 + shared + first_diff)
        return first_diff, prefix, size, previous_size, left

    def _after_prefill(self, previous: int | None, before: int, previous_count: int, count: int) -> int | None:
        """The first message that differs from the view at stop ``previous`` (of ``previous_count`` messages, the
        rendered steps before it ``before``) to the next (of ``count``), when they open alike and no result left the
        window between them: the prefill the first ends with (``_prefill``), which the next holds merged with the
        reply in its step's turn, unless that turn is the prefill as it was; else the first message past the first
        view, or ``None`` when there is none."""
        prefill = self._prefill(previous)
        if prefill is not None and self._renders.assistants(before, before + 1)[0] != prefill[0]:
            return previous_count - 1
        return previous_count if count != previous_count else None

    def compaction(self, at: int | None) -> CompactionFact | None:
        """The compaction right before the view at ``at`` (checked as ``at``), with the view's size just before and
        after; else ``None``.

        Before: the view as it would have been without it (the opening before it, or the previous
        compaction's, and every step since); after: the view at ``at``. Under the contract's
        options the whole history is rendered, so the two are the same.
        """
        at = self._checked(at)
        stop = self._stop(at)
        compactions = self.compactions
        here = next((i for i, compaction in enumerate(compactions) if compaction.step == stop), None)
        if here is None:
            return None
        compaction = compactions[here]
        window = self.options.recent_results
        now = self._rendered(at)
        _, after = self._bytes(at, window)
        before, replaced = after, 0
        honoured = bool(self._restarts)
        if honoured:
            base = self._base(at)
            start, old_start = self._start(base), self._start(base - 1)
            _, before = self._span(
                old_start, now, render.window_start(now, window), self._opening_of(base - 1, at)[1], at
            )
            replaced = start - old_start
        return CompactionFact(
            at=stop,
            trigger=compaction.trigger,
            honoured=honoured,
            replaced_steps=replaced,
            bytes_before=before,
            bytes_after=after,
            source_tokens=compaction.tokens_before,
        )

    def sizes(self) -> SizeSeries:
        """The size of the view at every stop, with and without the window, and its cacheable prefix.

        Every step's turns are sized in both forms: the contract's own counted from their parts
        (``views.sizes.default_turns_bytes``), a hook's rendered and measured; what the measuring
        keeps is numbers, which the collector does not track. A compaction shows as the drop in
        bytes at the stop right after it (as sent), and in the ``compaction`` column.
        """
        options = self.options
        if not self._restarts and options.breakpoints is None and not callable(options.opening):
            return self._plain_sizes()
        renders = self._renders
        window = options.recent_results
        columns: dict[str, list[Any]] = {f.name: [] for f in fields(SizeSeries)}
        at_, messages_, bytes_, tokens_, no_window_, prefix_, resent_, diff_, left_, compaction_ = columns.values()
        compacted = {compaction.step: compaction.trigger or "compaction" for compaction in self.compactions}
        # Stop j is taken before steps[j], so its rendered count is rendered_before[j], no search needed.
        previous: int | None = None
        first_diff: int | None
        left: int | None
        old: tuple[int, int, int] = (0, 0, 0)
        old_message = self._opening(self.stops[0])[0]
        for at, now in zip(self.stops, renders.rendered_before, strict=True):
            base = self._base(at)
            start = self._start(base)
            message, opening = self._opening_of(base, at)
            if previous is None:
                count, size = self._span(start, now, render.window_start(now, window), opening, at)
                size += _marks_bytes(self._marks(at, count))
                first_diff, prefix, left = 0, 0, None
            else:
                changed = message is not old_message and message != old_message
                first_diff, prefix, size, _, left = self._diff(old, (start, now, opening), changed, (previous, at))
                count = self._span(start, now, render.window_start(now, window), opening, at)[0]
            at_.append(at)
            messages_.append(count)
            bytes_.append(size)
            tokens_.append(approx_tokens(size))
            no_window_.append(self._span(start, now, 0, opening, at)[1] + _marks_bytes(self._marks(at, count)))
            prefix_.append(prefix)
            resent_.append(size - prefix)
            diff_.append(first_diff)
            left_.append(left)
            compaction_.append(compacted.get(at))
            previous, old, old_message = at, (start, now, opening), message
        return SizeSeries(**{name: tuple(values) for name, values in columns.items()})

    def _plain_sizes(self) -> SizeSeries:
        """``sizes`` of views that all open with the same message, restart from no compaction and carry no cache
        breakpoint: every view is the opening and the first rendered steps, so each figure is arithmetic on the
        steps' summed sizes (``Sizes``), a column at a time, where the general route (``_span``, ``_diff``) makes a
        dozen calls and more a stop. A property test holds the two routes together (tests/test_views_sizes.py).
        """
        renders = self._renders
        sizes = renders.sizes
        summary_sums, full_sums, assistant, same = sizes.summary_sums, sizes.full_sums, sizes.assistant, sizes.same
        ended, rendered = renders.ended, renders.rendered
        window, window_start = self.options.recent_results, render.window_start
        opening = self._opening_of(-1, None)[1]
        stops = self.stops
        nows = renders.rendered_before  # stop j is taken before steps[j]: its rendered count
        cuts = [window_start(now, window) for now in nows]
        # the opening, the steps before the window as summaries and those in it in full: each view a JSON list
        totals = [
            opening + summary_sums[cut] + full_sums[now] - full_sums[cut] for now, cut in zip(nows, cuts, strict=True)
        ]
        everything = [opening + full_sums[now] for now in nows]
        counts = [1 + 2 * now for now in nows]
        if any(ended):
            for stop, (now, cut) in enumerate(zip(nows, cuts, strict=True)):
                if now and ended[now - 1]:  # the view ends on that step's reply: its user turn is not sent
                    last = now - 1
                    everything[stop] -= full_sums[now] - full_sums[last] - assistant[last]
                    sums = full_sums if last >= cut else summary_sums
                    totals[stop] -= sums[now] - sums[last] - assistant[last]
                    counts[stop] -= 1
        prefills = renders.prefills
        for stop, (_, size) in prefills.items():  # stop j decides steps[j]: the view ends with its prefill
            counts[stop] += 1
            totals[stop] += size
            everything[stop] += size
        bytes_ = list(map(list_bytes, counts, totals))
        # what each view shares with the one before it
        first_diffs: list[int | None] = [0]
        lefts: list[int | None] = [None]
        prefixes = [0]
        add_diff, add_left, add_prefix = first_diffs.append, lefts.append, prefixes.append
        pairs = zip(nows, cuts, cuts[1:], counts, counts[1:], bytes_[1:], strict=False)  # each stop and the next
        for previous, (before, previous_cut, cut, previous_count, count, size) in enumerate(pairs):
            # one step is added at most, so one result leaves the window at most: the prefix breaks at it when its
            # summary differs from its result in full
            if previous_cut < cut and previous_cut < before and not same[previous_cut]:
                first_diff = 2 + 2 * previous_cut
                add_left(rendered[previous_cut].index)
            else:
                add_left(None)
                if prefills:  # a view that ends with a prefill differs from the next at it
                    after = self._after_prefill(stops[previous], before, previous_count, count)
                else:
                    after = previous_count if count != previous_count else None
                if after is None:
                    add_diff(None)
                    add_prefix(size)
                    continue
                first_diff = after
            add_diff(first_diff)
            whole = (first_diff - 1) // 2
            shared = opening + (
                summary_sums[whole] if whole <= cut else summary_sums[cut] + full_sums[whole] - full_sums[cut]
            )
            if (first_diff - 1) % 2:
                shared += assistant[whole]
            # the list's "[" and the "," after each shared message
            add_prefix(min(size, 1 + shared + first_diff))
        compacted = {compaction.step: compaction.trigger or "compaction" for compaction in self.compactions}
        return SizeSeries(
            at=stops,
            messages=tuple(counts),
            bytes=tuple(bytes_),
            tokens=tuple(map(approx_tokens, bytes_)),
            bytes_no_window=tuple(map(list_bytes, counts, everything)),
            prefix_bytes=tuple(prefixes),
            resent_bytes=tuple(map(sub, bytes_, prefixes)),
            first_diff=tuple(first_diffs),
            left_window=tuple(lefts),
            compaction=tuple(map(compacted.get, stops)) if compacted else (None,) * len(stops),
        )


_MARK_KEY = len(',"cache_control":')


def _marks_bytes(marks: tuple[Any, ...]) -> int:
    """The bytes ``_marked`` adds to a view's compact JSON: each breakpoint's key and value (a block holds none)."""
    return sum(_MARK_KEY + json_bytes(mark[2]) for mark in marks)


def _key_text(message: Any) -> str:
    """A message as a replay key encodes it (its keys in their order); its ``repr`` when it is not JSON."""
    try:
        return canonical(message)
    except (TypeError, ValueError):
        return repr(message)


def _as_blocks(message: Any) -> Any:
    """A recorded request's message as a view holds it: a text sent as a string is its text block."""
    if isinstance(message, dict) and isinstance(message.get("content"), str):
        return {**message, "content": [{"type": "text", "text": message["content"]}]}
    return message


def _replace_options(options: Options, **changes: Any) -> Options:
    settings = {f.name: getattr(options, f.name) for f in fields(Options)}
    unknown = set(changes) - set(settings)
    if unknown:
        raise TypeError(f"Options has no field {sorted(unknown)[0]!r}")
    settings.update(changes)
    return Options(**settings)


_TEXT_OPENS = StepInput()
"""What ``render.opening_blocks`` is given for an opening of text, which it does not read."""


def _opening_of(run: Run) -> tuple[Any, Any]:
    """What a run's header says its conversation opened with: its ``opening`` text and, for an import, the blocks it
    sent (``opening_content``)."""
    return run.header.get("opening"), run.header.get("opening_content")


class View:
    """The view at one step: the messages the model saw, what each is, and what it costs.

    Made by ``Views.at``; cheap to make, and every fact is computed when first asked for:
    the messages are sliced from per-step renders, and ``steps`` renders only what its
    facts are asked for.
    """

    def __init__(self, views: Views, at: int | None) -> None:
        self.views = views
        """The views of the run this one belongs to."""
        self.at = at
        """The step the view is taken at (``None``: after every step)."""

    @cached_property
    def messages(self) -> Messages:
        """Exactly ``render.messages(step_input, options)``."""
        return self.views.messages(self.at)

    @property
    def options(self) -> Options:
        """The options the view is rendered with."""
        return self.views.options

    @cached_property
    def step_input(self) -> StepInput:
        """The ``StepInput`` this view renders."""
        return self.views.step_input(self.at)

    @cached_property
    def opening(self) -> MessageFact:
        """The opening message and its fact."""
        message, size = self.views._opening(self.at)  # the message the view begins with, its bytes counted once
        restart = self.restarts_from
        if restart is None:
            kinds = ["opening"] * len(message.content)
        else:  # its summary, and what was sent with it as it is (the user's next prompt)
            kinds = ["compaction" if restart.is_summary(i) else "as_sent" for i in range(len(message.content))]
        fact = MessageFact(
            message=message,
            turn="opening",
            step=None,
            full=None,
            blocks=tuple(map(given_fact, message.content, kinds)),
            bytes=size,
        )
        return marked_fact(fact, [(block, control) for index, block, control in self._marks if index == 0])

    @cached_property
    def _marks(self) -> tuple[render.Breakpoint, ...]:
        """The cache breakpoints the view's messages carry (``Views._marks``)."""
        return self.views._marks(self.at, self.message_count)

    @cached_property
    def restarts_from(self) -> Compaction | None:
        """The compaction this view restarts from (it opens with its summary, as sent); ``None``: it opens the run."""
        views = self.views
        base = views._base(self.at)
        return views._restarts[base] if base >= 0 else None

    @property
    def restart_label(self) -> str:
        """The compaction the view restarts from, in a sentence; ``""`` for a view that opens the run."""
        compaction = self.restarts_from
        if compaction is None:
            return ""
        return (
            f"{compaction_name(compaction.trigger)} before step {compaction.step}: the conversation restarted with "
            f"its summary; the {self.first_step:,} steps before it are not in this view"
        )

    @property
    def first_step(self) -> int:
        """How many of the steps before ``at`` precede the compaction the view restarts from: not in its messages."""
        compaction = self.restarts_from
        return 0 if compaction is None else self.views._renders.position(compaction.step)

    @cached_property
    def compaction(self) -> CompactionFact | None:
        """The compaction right before this view (``Views.compaction``), with its size just before and after."""
        return self.views.compaction(self.at)

    @property
    def ended(self) -> bool:
        """The view is the conversation as it ended (``ENDED_TEXT``): as sent, nothing answered its last reply,
        so it ends on that assistant turn."""
        renders = self.views._renders
        rendered = self.rendered_count
        return rendered > self._first_rendered and renders.ended[rendered - 1]

    @property
    def prefill(self) -> bool:
        """The view is the conversation as it ended (``ended``) on a prefill no reply answered: the turn it ends on
        is the caller's text, which the model was to go on from, not a reply of the model (``PREFILL_ENDED_TEXT``)."""
        renders = self.views._renders
        return self.ended and renders.prefill(renders.rendered[self.rendered_count - 1])

    @property
    def prefill_step(self) -> int | None:
        """The index of the step whose turn the view ends on when that turn is a prefill no reply answered
        (``prefill``), the caller's text, no decision of the model; ``None`` when the view ends on none."""
        return self.views._renders.rendered[self.rendered_count - 1].index if self.prefill else None

    @property
    def where(self) -> str:
        """Which view this is, as every display heads it: ``deciding step K`` (the model decided step ``at`` from it),
        ``after the last step`` (``at`` is ``None``); beside a prefill no reply answered, which no model decided,
        ``prefill_where`` of its step: the view that ends on it (``prefill_step``), and the view before it."""
        if (prefill := self.prefill_step) is not None:
            return prefill_where(prefill, after=True)
        renders = self.views._renders
        position = renders.position(self.at)  # the step this view comes right before, if any
        if position < len(renders.steps) and renders.prefill(step := renders.steps[position]):
            return prefill_where(step.index, after=False)
        return "after the last step" if self.at is None else f"deciding step {self.at}"

    @property
    def ended_text(self) -> str:
        """What a display says of how the view ends: ``ENDED_TEXT``, ``PREFILL_ENDED_TEXT`` when it ends on a prefill
        (``prefill``), ``""`` when it is not the conversation as it ended."""
        return ended_text(ended=self.ended, prefill=self.prefill)

    @property
    def _first_rendered(self) -> int:
        return self.views._renders.rendered_before[self.first_step]

    def _stretch(self, start: int, stop: int | None) -> tuple[int, int, int, int, int]:
        """The view's steps ``[lo:hi]`` of ``[start:stop]``, the rendered steps ``[first:last]`` among them, and
        the first rendered step whose result the view shows in full."""
        rendered_before = self.views._renders.rendered_before
        lo, hi, _ = slice(start, stop).indices(self.step_count)
        hi = max(lo, hi)
        return lo, hi, rendered_before[lo], rendered_before[hi], self._window_start

    def step_facts(self, start: int = 0, stop: int | None = None) -> tuple[StepFact, ...]:
        """The facts of the view's steps ``[start:stop]`` (as in ``steps``), rendered or skipped; a step before the
        compaction the view restarts from is marked ``in_view=False``.

        Their user turns are rendered here, each in the form this view shows (what every reader
        of the facts asks for); their facts are made when first asked for.
        """
        renders = self.views._renders
        lo, hi, first, last, first_full = self._stretch(start, stop)
        if first < first_full:
            renders.users(False, first, min(last, first_full))
        if last > max(first, first_full):
            renders.users(True, max(first, first_full), last)
        columns = self.step_columns(start, stop)
        rendered_before, offset = renders.rendered_before, self._first_rendered
        out = []
        for index, step, rendered, position, tool_use_id, full, ended, prefill, in_view in zip(
            range(lo, hi), renders.steps[lo:hi], *columns.values(), strict=True
        ):
            message_index = 1 + 2 * (rendered_before[index] - offset) if in_view else 0
            if not rendered:
                out.append(StepFact(step=step, rendered=False, message_index=message_index, in_view=in_view))
                continue
            marks = (
                tuple((i - message_index, block, control) for i, block, control in own if 0 <= i - message_index < 2)
                if (own := self._marks) and in_view
                else ()
            )
            out.append(
                StepFact(
                    step=step,
                    rendered=True,
                    message_index=message_index,
                    tool_use_id=tool_use_id,
                    full=full,
                    _renders=renders,
                    position=position,
                    ended=ended,
                    prefill=prefill,
                    in_view=in_view,
                    marks=marks,
                )
            )
        return tuple(out)

    def step_columns(self, start: int = 0, stop: int | None = None) -> dict[str, list[Any]]:
        """The facts of ``step_facts(start, stop)`` that a table shows, a list each (for a table of many steps: no
        ``StepFact`` per step, nothing rendered): ``rendered``, ``position``, ``tool_use_id``, ``full``, ``ended``,
        ``prefill`` and ``in_view``, as the facts hold them; ``None`` for a skipped step's ``position``,
        ``tool_use_id`` and ``full``. A column of one value made so is a ``OneValue``.
        """
        renders = self.views._renders
        rendered_before, ids = renders.rendered_before, renders.ids
        lo, hi, first, last, first_full = self._stretch(start, stop)
        positions: list[int | None] = list(rendered_before[lo:hi])
        last_ended = self.rendered_count - 1 if self.ended else -1  # only the view's last step can end it
        decided: list[bool]
        if last - first == hi - lo:  # every step rendered: the columns made whole
            decided = one_value(True, hi - lo)
            summaries = min(max(first_full - first, 0), hi - lo)
            tool_use_ids: list[str | None] = list(ids[first:last])
            full: list[bool | None] = [*[False] * summaries, *[True] * (hi - lo - summaries)]
            if first <= last_ended < last:
                ended = [False] * (hi - lo)
                ended[last_ended - first] = True
            else:
                ended = one_value(False, hi - lo)
        else:
            decided = list(map(lt, rendered_before[lo:hi], rendered_before[lo + 1 : hi + 1]))
            positions = [p if rendered else None for p, rendered in zip(positions, decided, strict=True)]
            tool_use_ids = [None if p is None else ids[p] for p in positions]
            full = [None if p is None else p >= first_full for p in positions]
            ended = [p == last_ended for p in positions]
        first_step = self.first_step  # the steps before the compaction the view restarts from are not in it
        in_view = one_value(True, hi - lo) if first_step <= lo else [index >= first_step for index in range(lo, hi)]
        return {
            "rendered": decided,
            "position": positions,
            "tool_use_id": tool_use_ids,
            "full": full,
            "ended": ended,
            # only the view's last step can end it, and be a prefill no reply answered
            "prefill": ended if self.ended and self.prefill else one_value(False, hi - lo),
            "in_view": in_view,
        }

    def result_blocks(self, start: int = 0, stop: int | None = None) -> tuple[BlockFact | None, ...]:
        """``result_block`` of each of the view's steps ``[start:stop]`` (as in ``step_facts``; ``None`` for a
        skipped step, and for one the view does not hold): what the model was shown for each, made together for a
        table of them."""
        renders = self.views._renders
        lo, hi, first, last, first_full = self._stretch(start, stop)
        shown = [
            *renders.result_blocks(False, first, max(first, min(last, first_full))),
            *renders.result_blocks(True, max(first, first_full), last),
        ]
        return tuple(self._per_step(lo, hi, shown))

    def result_columns(
        self, start: int = 0, stop: int | None = None, read: StepsRead | None = None
    ) -> dict[str, list[Any]]:
        """What ``result_blocks(start, stop)`` says that a table shows, a list each, where possible without
        rendering a step (``StepRenders.result_columns``): each block's ``kind``, ``type``, ``shown_bytes`` and
        ``hidden_bytes``, as its fact holds them; ``None`` where ``result_blocks`` has ``None``.

        ``read``: the fields of the view's steps ``[start:stop]`` the caller has read already (``StepsRead``, a table
        that reads them for its own columns), which spares reading them again when every one of those steps is
        rendered."""
        renders = self.views._renders
        lo, hi, first, last, first_full = self._stretch(start, stop)
        cut = max(first, min(last, first_full))
        summary_read = full_read = None
        if read is not None and last - first == hi - lo:  # each step rendered: the rendered ones are the steps
            if len(read.kinds) != hi - lo:
                raise ValueError(
                    f"View.result_columns: read holds {len(read.kinds)} steps, not the {hi - lo} asked for"
                )
            summary_read, full_read = read.part(0, cut - first), read.part(max(first, first_full) - first)
        summaries = renders.result_columns(False, first, cut, summary_read)
        fulls = renders.result_columns(True, max(first, first_full), last, full_read)
        return {name: self._per_step(lo, hi, summaries[name] + fulls[name]) for name in summaries}

    def _per_step(self, lo: int, hi: int, values: list[Any]) -> list[Any]:
        """``values``, one for each rendered step of the view's steps ``[lo:hi]``, placed one a step: ``None`` for a
        skipped step, for a step before the compaction the view restarts from (the view does not hold it: the
        compaction's summary stands for it), and for a last step nothing answered (as sent, the conversation ended
        on it)."""
        steps = self.views._renders.steps[lo:hi]
        if len(values) != len(steps):
            shown = iter(values)
            values = [None if step.decision is None else next(shown) for step in steps]
        left_out = min(self.first_step, hi) - lo
        if left_out > 0:
            values = [*[None] * left_out, *values[left_out:]]
        if self.ended and hi == self.step_count:  # as sent, nothing answered the last reply: nothing was shown
            # the last decided step of those asked for, where any is (rows past it may be asked for: none then)
            last = next((i for i in range(len(steps) - 1, -1, -1) if steps[i].decision is not None), None)
            if last is not None:
                values = [*values[:last], None, *values[last + 1 :]]
        return values

    @cached_property
    def steps(self) -> tuple[StepFact, ...]:
        """Every step before ``at``, in order: rendered ones with their messages' facts, skipped ones
        marked ``rendered=False`` where they stand."""
        return self.step_facts()

    @property
    def step_count(self) -> int:
        """How many steps the view covers (rendered or skipped)."""
        return self.views._renders.position(self.at)

    @property
    def rendered_count(self) -> int:
        """How many of those steps are rendered (have a decision, or are a closing prefill no reply answered, the
        caller's text: ``prefill``): two messages each after the opening."""
        return self.views._rendered(self.at)

    @property
    def message_count(self) -> int:
        """``len(messages)``, without building them: the opening and two messages a rendered step (since the
        compaction the view restarts from; one, its assistant turn, for a step the conversation ended on), and the
        prefill the view ends with (``prefilled``)."""
        return 1 + 2 * (self.rendered_count - self._first_rendered) - self.ended + (self._prefill is not None)

    @cached_property
    def _prefill(self) -> tuple[Message, int] | None:
        return self.views._prefill(self.at)

    @cached_property
    def prefilled(self) -> MessageFact | None:
        """The prefill the view ends with: the caller's text the request that decided step ``at`` ended with, as sent
        (``runfile.Sent.prefilled``), the start of that step's turn, which the run holds merged with the reply. Not a
        turn of the model nor a step's (``turn`` is ``"prefill"``); ``None`` when the request ended otherwise."""
        made = self._prefill
        if made is None:
            return None
        message, size = made
        fact = MessageFact(
            message=message,
            turn="prefill",
            step=self.at,
            full=None,
            blocks=tuple(given_fact(block, "as_sent") for block in message.content),
            bytes=size,
        )
        last = self.message_count - 1
        return marked_fact(fact, [(block, control) for index, block, control in self._marks if index == last])

    @property
    def full_count(self) -> int:
        """How many rendered steps show their result in full: the last ``recent_results`` of them."""
        return self.rendered_count - self._window_start

    @property
    def _window_start(self) -> int:
        """The first rendered step whose result the view shows in full (``render.window_start``)."""
        return render.window_start(self.rendered_count, self.options.recent_results)

    @property
    def window_step(self) -> int:
        """Where the window starts among the view's steps (a position, as ``step_facts`` and ``result_columns`` take
        them): the steps before it that are rendered show their results outside the window (``full`` is ``False``),
        those from it on in full; ``step_count`` when no result is in full. Reads no step."""
        return bisect_left(self.views._renders.rendered_before, self._window_start, 0, self.step_count + 1)

    @property
    def skipped(self) -> tuple[StepFact, ...]:
        """The steps before ``at`` with no decision: not part of the model's view."""
        return tuple(fact for fact in self.steps if not fact.rendered)

    @cached_property
    def _size(self) -> tuple[int, int]:
        return self.views._bytes(self.at, self.options.recent_results)

    @property
    def bytes(self) -> int:
        """UTF-8 bytes of the messages as a compact JSON list."""
        return self._size[1]

    @property
    def tokens(self) -> int:
        """``approx_tokens(bytes)``: a scale, not a count."""
        return approx_tokens(self.bytes)

    @cached_property
    def bytes_no_window(self) -> int:
        """The bytes this view would take with every result in full."""
        return self.views._bytes(self.at, NO_WINDOW)[1]

    @cached_property
    def replay_key(self) -> str:
        """``render.replay_key`` of the messages with the run's system, tools and model.

        For a run that records what its agent sent, whose model calls record their requests (an
        imported call log), the system, tools, model and output cap are those of the request
        that decided this step, as it was sent: a run's tools may change between its calls.
        """
        views = self.views
        system, tools, model, cap = views.system, views.request_tools, views.model, views.max_output_tokens
        request = views._request_sent(self.at)
        if request is not None:
            system = _api_rules.system_text(request.get("system", ""))
            tools = request.get("tools") if isinstance(request.get("tools"), list) else []
            model = str(request.get("model", ""))
            cap = request.get("max_tokens") if type(request.get("max_tokens")) is int else 0
        return render.replay_key(self.messages, system=system, tools=tools, model=model, max_output_tokens=cap)

    @cached_property
    def recorded_keys(self) -> tuple[str, ...]:
        """The request keys the run recorded for model calls made deciding this step."""
        run = self.views.run
        if run is None or self.at is None:
            return ()
        return tuple(call.request_key for call in run.calls_for(self.at) if call.request_key)

    @cached_property
    def key_differs(self) -> str:
        """Why none of ``recorded_keys`` is the view's ``replay_key``, in a sentence; ``""`` when one is, or none was
        recorded, or the run is not an import (its views are the contract's, and its key the agent's own).

        An import's view as sent is its step's recorded request, cache breakpoints included, wherever the call
        recorded that request whole: what is left is a view under the contract, settings given in place of the
        call's, a call that recorded its key but not its request, and a message the call sent in another form than
        the run's turns hold (its longest call's), and a request that ended with a prefill a run file holds no
        ``sent.prefilled`` of (written before agentrender kept it): the view of a step whose request did ends with it
        (``prefilled``) where the run records it.

        A view that ends on a prefill no reply answered (``prefill``) is the request that ended with it, which had no
        reply: no model call was made of it, so none recorded its key, and this says so in place of ``""``.
        """
        recorded, views = self.recorded_keys, self.views
        if not recorded and (step := self.prefill_step) is not None:
            return (
                f"the view ends on step {step:,}'s prefill, the caller's text no reply answered: its request had no "
                "reply, so no model call was made of it and none recorded its key"
            )
        if not recorded or self.replay_key in recorded or views.run is None or not views.run.records_sent:
            return ""
        if views.mode != "as sent":
            return f"the view is {views.mode}, not the request its agent sent"
        if views._sent_requests is None:
            return (
                "the key is hashed with the request settings given (system, tools, model, output cap), not the call's"
            )
        request = views._request_sent(self.at)
        sent = request.get("messages") if isinstance(request, dict) else None
        if not isinstance(sent, list):
            return (
                "the call recorded its key but not its request: the view is hashed with the run's system, tools, "
                "model and output cap, which may not be the call's"
            )
        mine = [_key_text(message.to_dict()) for message in self.messages]
        theirs = [_key_text(_as_blocks(message)) for message in sent]
        differ = next((i for i, (a, b) in enumerate(zip(mine, theirs, strict=False)) if a != b), None)
        if differ is not None:
            return (
                f"message {differ} of the recorded request is not the view's: the run's turns are as its longest "
                "call sent them, and this call sent that message otherwise"
            )
        if len(theirs) == len(mine) + 1 and _api_rules.prefill_of(sent) is not None:
            return (
                "the recorded request ends with a prefill, which the view leaves out: the run records no "
                "sent.prefilled for the step (a run file written before agentrender kept it; import the log again)"
            )
        if len(mine) != len(theirs):
            return f"the recorded request holds {plural(len(theirs), 'message')}, the view {len(mine):,}"
        return "the recorded request's messages are the view's: the key was recorded over other settings"

    @cached_property
    def change(self) -> Change:
        """What changed since the view at the previous step."""
        return self.views.change(self.at)

    def _repr_html_(self) -> str:
        return view_html(self)
