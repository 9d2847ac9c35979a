"""How agentrender says a noun in words (``agentrender._words``)."""

from __future__ import annotations

import pytest

from agentrender._words import a_noun


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
