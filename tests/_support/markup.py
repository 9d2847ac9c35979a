"""What a browser would build from an HTML fragment, and the check that hostile text built none of it."""

from __future__ import annotations

from html.parser import HTMLParser

from agentrender._display.values import STYLE

DANGEROUS_TAGS = {
    "script",
    "img",
    "iframe",
    "object",
    "embed",
    "svg",
    "math",
    "form",
    "input",
    "textarea",
    "link",
    "meta",
    "base",
}


class Markup(HTMLParser):
    """Collects every element and attribute a browser would build from an HTML string."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def assert_inert(fragment: str) -> Markup:
    """Assert ``fragment`` holds no element, attribute or character hostile text could have injected."""
    parser = Markup()
    parser.feed(fragment)
    parser.close()
    for tag, attrs in parser.tags:
        assert tag not in DANGEROUS_TAGS, tag
        for name, value in attrs:
            assert not name.startswith("on"), (tag, name)
            assert name in {"class", "title", "open"}, (tag, name)
            assert "javascript:" not in (value or "").lower(), (tag, value)
    assert [tag for tag, _ in parser.tags].count("style") == fragment.count(STYLE)
    for ch in "\u202e\u202c\u2066":
        assert ch not in fragment, f"U+{ord(ch):04X} reached the page unneutralised"
    return parser
