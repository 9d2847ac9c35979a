"""``DecideStepper``: captured model replies, the decisions they become, and why."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import TYPE_CHECKING, Any, overload

from agentrender._display.values import escape_text, wrap
from agentrender._json import display, strict_loads
from agentrender._text import escape_json
from agentrender._types import Decision, ModelResponse
from agentrender.notebook._base import Widget, row, stepper, widgets
from agentrender.runfile import ModelCall, response_from_record, response_record
from agentrender.views import Compared, DecideExplanation, answered_tool_uses, compare_recorded, explain_decide
from agentrender.views.html import explanation_html

if TYPE_CHECKING:
    from agentrender.runfile import Run


@dataclass(frozen=True, slots=True, kw_only=True)
class Reply:
    """One reply the stepper steps through."""

    label: str
    """Where it came from: the step and call number, or its position in the list given."""
    response: ModelResponse
    """The reply as captured."""
    recorded: Decision | None = None
    """The decision the run recorded for the step (for a run's replies)."""
    compare: bool = False
    """Compare the decision with ``recorded`` (true for a run's replies)."""
    answered: frozenset[str] = frozenset()
    """The ids of the tool uses the run's agent answered after the reply, as it sent them (``answered_tool_uses``)."""
    call: ModelCall | None = None
    """The model call the reply was captured by (for a run's replies): its request may end with a prefill the reply
    went on from, which the recorded decision holds (``views.compare_recorded``)."""


class _RunReplies(Sequence[Reply]):
    """A run's replies, each read from its model call when first asked for: the stepper shows one at a
    time, and reading every reply of a long run would cost its first display that many parses."""

    def __init__(self, run: Run) -> None:
        self._run = run
        self._calls = run.model_calls
        self._steps = run.steps
        self._last = run.last_calls()
        self._made: dict[int, Reply] = {}

    def __len__(self) -> int:
        return len(self._calls)

    @overload
    def __getitem__(self, number: int) -> Reply: ...
    @overload
    def __getitem__(self, number: slice) -> list[Reply]: ...
    def __getitem__(self, number: int | slice) -> Reply | list[Reply]:
        if isinstance(number, slice):
            return [self[n] for n in range(*number.indices(len(self)))]
        calls = self._calls
        number = range(len(calls))[number]  # negative numbers count from the end; out of range raises IndexError
        reply = self._made.get(number)
        if reply is None:
            call = calls[number]
            # a run's steps are in index order: the step a call was made for is found, not indexed in advance
            steps = self._steps
            position = bisect_left(steps, call.step, key=attrgetter("index"))
            found = position < len(steps) and steps[position].index == call.step
            recorded = steps[position].decision if found else None
            where = f"call {number + 1} of {len(calls)}, for step {call.step}"
            # Only a step's last reply became its recorded decision; earlier ones (retries) are not compared.
            compare = self._last[call.step] is call
            reply = self._made[number] = Reply(
                label=where,
                response=call.response,
                recorded=recorded,
                compare=compare,
                answered=answered_tool_uses(self._run, call.step),
                call=call,
            )
        return reply


def replies_of(source: Run | Iterable[ModelResponse | Mapping[str, Any]]) -> Sequence[Reply]:
    """The replies of a run's model calls (with each step's recorded decision), or of a list of replies.

    A run's replies are read from its model calls as they are asked for.
    """
    if getattr(source, "model_calls", None) is not None:
        return _RunReplies(source)  # type: ignore[arg-type]
    replies = []
    for number, item in enumerate(source):  # type: ignore[arg-type]
        response = item if isinstance(item, ModelResponse) else response_from_record(item, where=f"replies[{number}]")
        replies.append(Reply(label=f"reply {number + 1}", response=response))
    return replies


class DecideStepper(Widget):
    """Step through captured model replies and see what ``render.decide`` makes of each.

    ``run_or_replies`` is a ``Run`` (its model calls, compared with the decision each step
    recorded) or a list of replies (``ModelResponse``, or ``Message`` dicts as a run file records them). For
    each: the reply (text, thinking collapsed, every tool use, stop reason), the decision,
    the rule that fired and why, and the agreement with the recorded decision. The editor
    holds the reply's JSON, each invisible or direction-changing character in it written as
    JSON's ``\\uXXXX`` escape (so it is seen, and reads back as itself): change it and the
    decision below follows; JSON that does not read as a reply shows an error in the widget.
    """

    def __init__(self, run_or_replies: Run | Iterable[ModelResponse | Mapping[str, Any]]) -> None:
        self.replies = replies_of(run_or_replies)
        """The replies stepped through, in order."""
        self.slider, self.previous_button, self.next_button = stepper(len(self.replies), 0, "reply")
        self.label = widgets.Label()
        self.editor = widgets.Textarea(
            description="reply JSON",
            continuous_update=False,
            layout=widgets.Layout(width="100%", height="16em"),
            style={"description_width": "initial"},
        )
        self.reset_button = widgets.Button(
            description="reset to the captured reply", layout=widgets.Layout(width="auto")
        )
        self.error = widgets.HTML()
        self.html = widgets.HTML()
        self.explanation: DecideExplanation | None = None
        """The explanation shown now (``None`` when the editor holds no readable reply)."""
        self.slider.observe(self._load, names="value")
        self.editor.observe(self._decide, names="value")
        self.reset_button.on_click(lambda _: self._load())
        editor = widgets.Accordion(children=[widgets.VBox([self.editor, self.reset_button])], selected_index=None)
        editor.set_title(0, "edit the reply")
        self.widget = widgets.VBox(
            [
                row([self.previous_button, self.slider, self.next_button, self.label]),
                self.error,
                self.html,
                editor,
            ]
        )
        self._load()

    @property
    def reply(self) -> Reply | None:
        """The reply at the slider's position (``None`` when there are none)."""
        return self.replies[self.slider.value] if self.replies else None

    def _load(self, _change: Any = None) -> None:
        reply = self.reply
        if reply is None:
            self.label.value = "no model replies to step through"
            self.html.value = ""
            return
        self.label.value = reply.label
        # The editor holds the reply as a run file records it, so raw argument bytes read back as bytes,
        # and an unsafe character (a bidi override, NUL, a zero-width space) as JSON's own \uXXXX escape
        # of it: the editor shows it, and the text reads back as the same reply.
        text = escape_json(display(response_record(reply.response)))
        if self.editor.value == text:
            self._decide()
        else:
            self.editor.value = text  # observed: decides

    def _decide(self, _change: Any = None) -> None:
        reply = self.reply
        if reply is None:
            return
        try:
            wire = strict_loads(self.editor.value)
            response = response_from_record(wire, where="reply")
        except ValueError as error:  # json.JSONDecodeError is a ValueError
            self.explanation = None
            self.error.value = wrap(
                f'<div class="ar-disagree">the edited reply cannot be read: {escape_text(str(error))}</div>'
            )
            return
        self.error.value = ""
        self.explanation = explain_decide(response, answered=reply.answered)
        compared = _compared(reply, wire, self.explanation) if reply.compare else None
        self.html.value = explanation_html(self.explanation, reply.recorded, compare=reply.compare, compared=compared)


def _compared(reply: Reply, wire: Mapping[str, Any], explanation: DecideExplanation) -> Compared | None:
    """The reply in the editor (``wire``, as it reads) held against its step's recorded decision as ``agentrender
    decide`` holds it (``views.compare_recorded``): by the call it was captured by, its request and so its prefill,
    with the edited reply in place of the captured one."""
    call = reply.call
    if call is None:
        return None
    edited = ModelCall(step=call.step, response=explanation.response, record={**call.record, "response": wire})
    return compare_recorded(edited, reply.recorded, explanation.decision)
