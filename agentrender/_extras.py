"""Optional dependencies: import an extra's package, or say exactly how to install it.

Every optional layer (``frame``, ``notebook``, ``cli``, the Anthropic adapter, the agent)
imports its extra's third-party packages through ``require`` and nowhere else, so a missing
package is always reported the same way, ending in the line that installs it::

    agentrender.frame needs pandas, which is not installed: pip install 'agentrender[frame]'

Standard library only, and it imports nothing from agentrender: any layer may use it.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["install_line", "require"]


def install_line(extra: str) -> str:
    """The command that installs the extra ``extra``: ``pip install 'agentrender[extra]'``."""
    return f"pip install 'agentrender[{extra}]'"


def require(extra: str, module: str, *, feature: str | None = None) -> ModuleType:
    """Import ``module`` (of the extra ``extra``), or raise ``ImportError`` naming its package and the pip line.

    ``feature`` is what needs the module, as the message names it (by default
    ``agentrender.<extra>``). The ``ImportError`` is chained from the original one, which
    stays visible in the traceback.
    """
    try:
        return importlib.import_module(module)
    except ImportError as error:
        package = module.partition(".")[0]
        needs = feature if feature is not None else f"agentrender.{extra}"
        raise ImportError(f"{needs} needs {package}, which is not installed: {install_line(extra)}") from error
