"""Pausing Python's cyclic garbage collector around work that builds many objects and keeps them.

Loading a large run, building its frame or checking it makes millions of objects and frees
almost none, none of them in a cycle. With the collector running, each of its full passes
walks every object already kept, again and again as the heap grows: for a 100,000-step run
that cost as much as the work itself. Reference counting still frees what the work drops;
only cycles made while paused wait for the next collection after it.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """The collector off for the ``with`` block and restored after (left off if it was off)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
