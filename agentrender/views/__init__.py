"""The model's view at any step of a run, annotated: one source of facts for every instrument.

``Views(run)`` renders each step of a run once (its assistant turn, and its user turn in
the full and the summary form, each the first time a view shows it) and assembles the view
at any step ``k`` from those pieces. The view at ``k`` is exactly
``render.messages(run.step_input(k), options)``: hooks see only a step, its id and the
``full`` flag, so a step renders the same in every view that holds it, and only *which*
form a step shows depends on ``k``. One view costs about one render; the next reuses it.

From the same pieces come the facts the HTML, the CLI and the frames show and never
re-derive: what each block is (``BLOCK_KINDS``; a step's user turn one of ``RESULT_KINDS``),
which steps were skipped, what of a result the model did not see, the bytes of the view at
every step, and between consecutive views the first message that differs (how much of the
prompt stays a cacheable prefix and how much is re-sent).

    views = Views(run)                   # or Views(step_input, options)
    view = views.at(12)                  # what the model saw when deciding step 12
    view.messages                        # == render.messages(run.step_input(12), options)
    for fact in view.steps: ...          # StepFact: rendered?, full?, result_block, hidden_text()
    view.bytes, view.tokens, view.replay_key, view.change
    views.sizes()                        # SizeSeries: bytes per step, with and without the window

``explain_decide(response)`` says which rule of ``render.decide`` fired for a model reply
and why (given ``answered_tool_uses(run, step)``, also which calls the contract would not run
the run's agent ran); ``disagreements(decision, recorded)`` names the fields where two
decisions differ, and ``compare_recorded(call, recorded)`` holds a captured reply against its
step's recorded decision (a prefill the reply went on from included).

The package, one concept a module: ``view`` (``Views``, ``View``), ``renders`` (each step
rendered once, through the contract's per-step calls), ``facts`` (what each block, message
and step is), ``sizes`` (bytes without encoding), ``explain`` (``decide``'s rule, explained).
The base install's only: the standard library and msgspec.
"""

from agentrender._display.said import run_facts_said, steps_summary
from agentrender._types import utf8_bytes
from agentrender.views.explain import (
    ARGS_OUTCOMES,
    DECIDE_RULES,
    Compared,
    DecideExplanation,
    answered_tool_uses,
    compare_recorded,
    disagreements,
    explain_decide,
)
from agentrender.views.facts import (
    BLOCK_KINDS,
    BLOCK_LABELS,
    CHART_MARKS,
    ENDED_SAW,
    ENDED_TEXT,
    LEFT_OUT_SAID,
    LEFT_OUT_TEXT,
    LEGEND_MARKS,
    NO_VALUE,
    OUTSIDE_KINDS,
    PREFILL_ENDED_TEXT,
    PREFILL_REASON,
    PREFILL_SAID,
    PREFILLED_TEXT,
    REPLY_REASON,
    RESULT_KINDS,
    SIZE_LEGEND,
    SKIPPED_SAW,
    VIEW_TERMS,
    BlockFact,
    Change,
    CompactionFact,
    Legend,
    MessageFact,
    OneValue,
    SizeSeries,
    StepFact,
    StepsRead,
    compaction_mark,
    legend_kinds,
    legend_of,
    listed_kind,
    one_value,
    reason_said,
    step_said,
)
from agentrender.views.sizes import approx_tokens, message_bytes
from agentrender.views.view import NO_WINDOW, View, Views, window_json

__all__ = [
    "ARGS_OUTCOMES",
    "BLOCK_KINDS",
    "BLOCK_LABELS",
    "CHART_MARKS",
    "DECIDE_RULES",
    "ENDED_SAW",
    "ENDED_TEXT",
    "LEFT_OUT_SAID",
    "LEFT_OUT_TEXT",
    "LEGEND_MARKS",
    "NO_VALUE",
    "NO_WINDOW",
    "OUTSIDE_KINDS",
    "PREFILLED_TEXT",
    "PREFILL_ENDED_TEXT",
    "PREFILL_REASON",
    "PREFILL_SAID",
    "REPLY_REASON",
    "RESULT_KINDS",
    "SIZE_LEGEND",
    "SKIPPED_SAW",
    "VIEW_TERMS",
    "BlockFact",
    "Change",
    "CompactionFact",
    "Compared",
    "DecideExplanation",
    "Legend",
    "MessageFact",
    "OneValue",
    "SizeSeries",
    "StepFact",
    "StepsRead",
    "View",
    "Views",
    "answered_tool_uses",
    "approx_tokens",
    "compaction_mark",
    "compare_recorded",
    "disagreements",
    "explain_decide",
    "legend_kinds",
    "legend_of",
    "listed_kind",
    "message_bytes",
    "one_value",
    "reason_said",
    "run_facts_said",
    "step_said",
    "steps_summary",
    "utf8_bytes",
    "window_json",
]

# The public face: a class shows (in reprs, tracebacks, pickles) under the name it is imported by.
for _name in __all__:
    if isinstance(globals()[_name], type):
        globals()[_name].__module__ = __name__
