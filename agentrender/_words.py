"""How agentrender says a count in words, the same in the terminal, the HTML and the errors, and the words it sizes
a view with (``VIEW_TERMS``, which ``agentrender.views`` re-exports: the CLI's help reads them without loading it).

Standard library only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["FEW", "VIEW_TERMS", "a_noun", "clipped", "elapsed", "first_few", "number_ranges", "plural", "shown"]

FEW = 10
"""How many of a long list of names a warning names (``first_few``), the rest counted."""

VIEW_TERMS: dict[str, str] = {
    "window": "the results seen in full",
    "replay key": "SHA-256 of the exact request",
    "cacheable prefix": "unchanged since the previous view, so a prompt cache reuses it",
    "re-sent": "the rest",
}
"""The words an instrument sizes a view and its change with, and what each means: a legend's and a help's."""


def a_noun(noun: str) -> str:
    """``noun`` after its article, by how it is spelt: ``"an image"``, ``"an unknown"``, ``"a tool_use"``."""
    return f"{'an' if noun[:1].lower() in ('a', 'e', 'i', 'o') or noun[:2].lower() == 'un' else 'a'} {noun}"


def first_few(names: Sequence[str], few: int = FEW) -> str:
    """``names`` joined by commas, the first ``few`` of them and how many more where there are more: ``"a, b and 3
    more"``, so a warning naming what a file held (thousands of odd fields) stays one short line."""
    shown_names = ", ".join(names[:few])
    return shown_names if len(names) <= few else f"{shown_names} and {len(names) - few:,} more"


def number_ranges(numbers: Iterable[int]) -> str:
    """``[0, 1, 2, 5, 7, 8]`` as ``"0-2, 5, 7-8"``."""
    spans: list[list[int]] = []
    for number in numbers:
        if spans and number == spans[-1][1] + 1:
            spans[-1][1] = number
        else:
            spans.append([number, number])
    return ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in spans)


def plural(count: int, noun: str, nouns: str = "") -> str:
    """``count`` and ``noun``, the noun in the plural unless the count is one: ``"1 step"``, ``"1,024 steps"``.

    ``nouns`` is the plural when it is not ``noun + "s"`` (``plural(2, "reply", "replies")``).
    """
    return f"{count:,} {noun if count == 1 else (nouns or noun + 's')}"


def elapsed(milliseconds: float) -> str:
    """A length of time as a person reads it, to the unit that matters: ``"250 ms"``, ``"3.2 s"``, ``"3 min 3 s"``,
    ``"4 h 3 min"``, ``"2 d 5 h"``."""
    if milliseconds < 1000:
        return f"{milliseconds:.0f} ms"
    if milliseconds < 59_950:
        return f"{milliseconds / 1000:.1f} s"
    minutes, seconds = divmod(round(milliseconds / 1000), 60)
    if minutes < 60:
        return f"{minutes} min {seconds} s"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {minutes} min"
    days, hours = divmod(hours, 24)
    return f"{days:,} d {hours} h"


def shown(value: Any, limit: int = 200) -> str:
    """``value`` as an error or a warning quotes what a file held: its ``repr``, cut after ``limit`` characters
    (``...``) where longer, and an integer too long to read said by its digits, so a value of any size is quoted
    in one short line. 200 keeps whole any id or name a history holds (a Responses API id is 53 characters)."""
    if type(value) is int and abs(value) >= 10**40:
        return f"(an integer of {len(str(abs(value)))} digits)"
    return clipped(repr(value[: limit + 1] if type(value) is str else value), limit)


def clipped(text: str, limit: int = 200) -> str:
    """``text`` (a name a file gave, a value's ``repr``) cut after ``limit`` characters, with ``...``, where longer."""
    return text if len(text) <= limit else text[:limit] + "..."
