"""How many examples a property test tries: its own count, scaled by the hypothesis profile in use.

Hypothesis' default profile tries 100 examples, and a test's own count stands as it is. The
``dev`` profile (the checkout's conftest.py), which the everyday loop ``-m "not slow"`` loads, tries
10: each property test then tries a tenth of its count (at least 10), so the loop stays fast
while the full suite tries them all.
"""

from __future__ import annotations

from hypothesis import settings

FULL = 100
"""The ``max_examples`` of hypothesis' default profile: a profile with it keeps every test's own count."""


def examples(count: int) -> int:
    """``count`` scaled by the loaded profile's ``max_examples`` against ``FULL``, and never below 10."""
    return max(10, count * settings.default.max_examples // FULL)
