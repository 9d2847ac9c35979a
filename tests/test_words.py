"""How agentrender says a noun, or a length of time, in words (``agentrender._words``)."""

from __future__ import annotations

import pytest

from agentrender._words import a_noun, elapsed


@pytest.mark.parametrize(
    ("noun", "said"),
    [
        ("image block", "an image block"),
        ("unknown block", "an unknown block"),
        ("Opening", "an Opening"),
        ("tool_use block", "a tool_use block"),
        ("text block", "a text block"),
        ("redacted_thinking block", "a redacted_thinking block"),
        ("", "a "),
    ],
)
def test_a_noun_takes_the_article_its_spelling_asks_for(noun: str, said: str) -> None:
    """A noun that begins with a vowel's letter (or ``un``) takes "an", any other "a": the CLI said "a image block"."""
    assert a_noun(noun) == said


@pytest.mark.parametrize(
    ("milliseconds", "said"),
    [
        (0, "0 ms"),
        (999.4, "999 ms"),
        (1000, "1.0 s"),
        (59_949, "59.9 s"),
        (59_950, "1 min 0 s"),
        (183_318, "3 min 3 s"),
        (3_599_499, "59 min 59 s"),
        (3_599_500, "1 h 0 min"),
        (14_592_000, "4 h 3 min"),
        (47 * 3_600_000 + 59 * 60_000, "47 h 59 min"),
        (48 * 3_600_000, "2 d 0 h"),
        (1000 * 86_400_000, "1,000 d 0 h"),
    ],
)
def test_a_length_of_time_is_said_to_the_unit_that_matters(milliseconds: float, said: str) -> None:
    """A wait or a span of a transcript is said in ms under a second, in tenths of a second under a minute, then in
    minutes and seconds, hours and minutes, days and hours: never "60.0 s" or "60 min"."""
    assert elapsed(milliseconds) == said
