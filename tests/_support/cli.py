"""Running the ``agentrender`` command in the test's own process."""

from __future__ import annotations

import io

from agentrender.cli import main


def run_cli(*argv: str) -> tuple[int, str, str]:
    """Run ``agentrender argv`` in this process: its exit status, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    code = main([*argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()
