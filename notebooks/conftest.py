"""nbval's kernels import this checkout's agentrender, whatever else the environment has installed."""

import os
from pathlib import Path

import pytest

CHECKOUT = str(Path(__file__).resolve().parents[1])


def pytest_configure(config: pytest.Config) -> None:
    # The kernel is a child process: pytest's own `pythonpath` setting does not reach it, PYTHONPATH does.
    paths = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    if CHECKOUT not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([CHECKOUT, *filter(None, paths)])
