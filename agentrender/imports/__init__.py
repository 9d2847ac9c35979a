"""Bring your own run: real agents' histories as runs that render exactly what their model was sent.

Each importer reads one format and gives ``Run``s that every instrument takes (views,
widgets, frames, the CLI, ``check``):

- ``from_anthropic``: a Messages API request body, a bare ``messages`` list, a request with
  the ``Message`` that answered it, or a log of calls (``.json``/``.jsonl``);
- ``from_claude_code``: a Claude Code session transcript (``.jsonl``); its sub-agents'
  sidechains are runs of their own;
- ``from_inspect``: an Inspect AI log (``.eval`` or ``.json``), one run per sample
  (extra ``inspect`` for the zstandard of an ``.eval`` and for older logs);
- ``from_openai``: an OpenAI-style chat (``messages`` with ``tool_calls`` and ``role: tool``),
  as LiteLLM, LangChain and SWE-agent trajectories keep them; ``openai.from_tau_bench``:
  tau-bench's results, one run per result;
- ``from_responses``: an OpenAI Responses API conversation (a request's ``input`` items, or a log of
  requests) or a Codex CLI session (``~/.codex/sessions/.../rollout-*.jsonl``; the TypeScript CLI's
  ``rollout-*.json``).

``load(source)`` finds which of these (or a run file) it is given. An imported run's
``options()`` replay what was sent: the view at step ``k`` is exactly the conversation of
the request that decided step ``k``. ``run.options(recent_results=6, result_bytes=16384)``
shows the same history under the contract's window and cap instead: what the model would
have seen, and what that would have saved. Results keep no summary unless a summariser
gives them one (``first_line_summary``, or any ``str -> str``); the header names it.
``with_summaries(run, summarise)`` gives them one after the import, whatever the format.

What an importer cannot map is a warning on the run (``Run.warnings``), with where it was;
input it cannot read raises ``RunFileError`` naming the file, the line and the field.
"""

from agentrender.imports.anthropic import from_anthropic
from agentrender.imports.claude_code import from_claude_code
from agentrender.imports.conversation import first_line_summary
from agentrender.imports.detect import FORMATS, load, load_runs
from agentrender.imports.inspect import from_inspect
from agentrender.imports.openai import from_openai
from agentrender.imports.responses import from_responses
from agentrender.imports.summaries import with_summaries

__all__ = [
    "FORMATS",
    "first_line_summary",
    "from_anthropic",
    "from_claude_code",
    "from_inspect",
    "from_openai",
    "from_responses",
    "load",
    "load_runs",
    "with_summaries",
]
