"""The notebook extra's third-party imports, in one place, failing with the line that installs them."""

from __future__ import annotations

import importlib
from types import ModuleType

INSTALL = "pip install 'agentrender[notebook]'"
"""The command that installs everything ``agentrender.notebook`` needs."""


def require(module: str) -> ModuleType:
    """Import ``module``, or raise an ``ImportError`` naming it and the install line."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(
            f"agentrender.notebook needs {module.split('.')[0]}, which is not installed: {INSTALL}"
        ) from error


widgets = require("ipywidgets")
