"""What the process reads from files, as Linux counts it: a test that a file is read once, or only in part."""

from __future__ import annotations

from pathlib import Path

COUNTED = Path("/proc/self/io").exists()
"""Whether Linux counts the bytes this process reads (``/proc/self/io``): a test of them is skipped elsewhere."""


def bytes_read() -> int:
    """The bytes this process has read from files so far (``rchar`` of ``/proc/self/io``)."""
    with open("/proc/self/io", "rb") as counters:
        return next(int(line.split()[1]) for line in counters if line.startswith(b"rchar:"))
