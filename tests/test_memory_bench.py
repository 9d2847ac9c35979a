"""bench/bench_memory.py keeps working: run on tiny files, it prints every format's peak and the worst (no bound
asserted)."""

from collections.abc import Callable

import pytest


@pytest.mark.slow
def test_bench_memory_prints_every_format_and_the_worst(run_bench: Callable[..., str]) -> None:
    """Run as a user runs it on files of about 0.2 MB: a line a format, then the worst ratio."""
    lines = run_bench("bench_memory", "--mb", "0.2").splitlines()
    for name in ("runfile/tiny", "calls/log.gz", "calls/tiny.gz", "claude_code", "openai", "inspect/json"):
        assert sum(line.startswith(name + " ") for line in lines) == 1, name
    assert lines[-1].startswith("worst: ")
