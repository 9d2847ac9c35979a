"""bench/bench_memory.py keeps working: run on tiny files, it prints every format's peak and the worst (no bound
asserted)."""

import gzip
from collections.abc import Callable
from types import ModuleType

import pytest

from agentrender.runfile.lines import INFLATE_RATIO


@pytest.mark.slow
def test_bench_memory_prints_every_format_and_the_worst(run_bench: Callable[..., str]) -> None:
    """Run as a user runs it on files of about 0.2 MB: a line a format, then the worst ratio."""
    lines = run_bench("bench_memory", "--mb", "0.2").splitlines()
    for name in ("runfile/tiny", "calls/log.gz", "calls/tiny.gz", "claude_code", "openai", "inspect/json"):
        assert sum(line.startswith(name + " ") for line in lines) == 1, name
    assert lines[-1].startswith("worst: ")


def test_each_gzip_file_compresses_as_its_records_do_well_within_what_the_reader_takes(
    import_bench: Callable[[str], ModuleType],
) -> None:
    """A gzip file of the bench inflates a few times to a few tens of times its size, as logs of words do, never near
    the ratio the reader refuses as a gzip bomb (``INFLATE_RATIO``): a call log of one letter over and over inflated
    105-115 times, so the bench's default of 50 MB stopped at it with the reader's refusal."""
    bench_memory = import_bench("bench_memory")
    for name, (_, suffix, make) in bench_memory.FORMATS.items():
        if suffix.endswith(".gz"):
            data = make(1).encode()
            assert len(data) / len(gzip.compress(data)) < INFLATE_RATIO / 4, name
