"""Bring your own run: real agents' histories as runs that render exactly what their model was sent.

Each importer reads one format and gives ``Run``s that every instrument takes (views,
widgets, frames, the CLI, ``check``):

- ``from_anthropic``: a Messages API request body, a bare ``messages`` list, a request with
  the ``Message`` that answered it, or a log of calls (``.json``/``.jsonl``);
- ``from_claude_code``: a Claude Code session transcript (``.jsonl``), or Claude Code's headless
  output (``claude -p --output-format stream-json --verbose``, the Agent SDK's messages,
  claude-code-action's ``execution_file``); its sub-agents' sidechains are runs of their own;
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

Each importer is imported when first used: ``load`` recognises a file by ``imports.shapes`` (which imports
none of them) and imports the one its file needs, and ``from_claude_code`` and the other names here import
their module when first asked for.
"""

import importlib
import typing

from agentrender.imports.detect import FORMATS, load, load_runs

if typing.TYPE_CHECKING:
    from agentrender.imports.anthropic import from_anthropic
    from agentrender.imports.claude_code import from_claude_code
    from agentrender.imports.conversation import first_line_summary
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


_MODULES = {
    "first_line_summary": "conversation",
    "from_anthropic": "anthropic",
    "from_claude_code": "claude_code",
    "from_inspect": "inspect",
    "from_openai": "openai",
    "from_responses": "responses",
    "with_summaries": "summaries",
}
"""The module of this package each name ``__getattr__`` gives is defined in."""


def __getattr__(name: str) -> object:
    """The importers' names, each importing its module when first asked for (PEP 562), so that ``import
    agentrender.imports`` and ``load`` import no importer a file does not need."""
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module 'agentrender.imports' has no attribute {name!r}")
    return getattr(importlib.import_module(f"agentrender.imports.{module}"), name)


def __dir__() -> list[str]:
    """The module's names with those ``__getattr__`` gives, as ``dir(agentrender.imports)`` and completion list them."""
    return sorted({*globals(), *__all__})
