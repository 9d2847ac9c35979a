"""Running the ``agentrender`` command: in the test's own process, or as a child a test interrupts (Ctrl-C)."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from agentrender.cli import main

ROOT = Path(__file__).resolve().parents[2]


def run_cli(*argv: str) -> tuple[int, str, str]:
    """Run ``agentrender argv`` in this process: its exit status, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    code = main([*argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interruptible_cli(
    *argv: str, cwd: Path | None = None, preexec_fn: Callable[[], object] = _sigint_default
) -> subprocess.Popen[str]:
    """``python -m agentrender argv`` from the checkout, its output piped as text, started as a terminal starts it:
    with SIGINT at its default, so that ``send_signal(SIGINT)`` is a Ctrl-C. A test run started in the background
    (``pytest &`` in a script) ignores SIGINT, and a child would inherit that and never see the Ctrl-C; the command
    itself leaves an ignored SIGINT ignored, as a nohup job means it. ``preexec_fn``: what the child runs before
    the command in place of that."""
    return subprocess.Popen(
        [sys.executable, "-m", "agentrender", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        preexec_fn=preexec_fn,
    )
