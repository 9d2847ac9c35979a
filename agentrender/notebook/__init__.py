"""Notebook widgets that show what a run's model saw, step by step (extra: ``notebook``).

- ``ConversationView(run, at=None, options=None)``: the view at any step, as chat turns.
- ``DecideStepper(run_or_replies)``: captured replies, the decision ``render.decide`` makes
  of each and which rule fired, with an editor to change a reply and see the decision change.
- ``RunExplorer(run)``: the steps table (a page at a time, following the step slider), the
  conversation, decide, and the view's size per step; a long run's first display builds only what it shows.

Each wraps ``agentrender.views`` (the facts) and ``ipywidgets``; display one by leaving it
as a cell's last expression, or reach its parts (``.widget``, ``.slider``, ...) to script it.
Without ipywidgets, importing this raises an ``ImportError`` saying what to install.
"""

from agentrender._extras import install_line
from agentrender.notebook.conversation import ConversationView
from agentrender.notebook.decide import DecideStepper
from agentrender.notebook.explorer import RunExplorer

__all__ = ["INSTALL", "ConversationView", "DecideStepper", "RunExplorer"]

INSTALL = install_line("notebook")
"""The command that installs everything ``agentrender.notebook`` needs."""
