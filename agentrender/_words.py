"""How agentrender says a count in words, the same in the terminal, the HTML and the errors.

Standard library only.
"""

from __future__ import annotations

__all__ = ["plural"]


def plural(count: int, noun: str, nouns: str = "") -> str:
    """``count`` and ``noun``, the noun in the plural unless the count is one: ``"1 step"``, ``"1,024 steps"``.

    ``nouns`` is the plural when it is not ``noun + "s"`` (``plural(2, "reply", "replies")``).
    """
    return f"{count:,} {noun if count == 1 else (nouns or noun + 's')}"
