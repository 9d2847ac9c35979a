"""Unsafe text: one set of characters, escaped visibly for HTML and for terminals, checked over every code point."""

from __future__ import annotations

import html
import unicodedata
from functools import cache
from html.parser import HTMLParser

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agentrender._text import MARK_TITLE, NO_MATH, UNSAFE, UNSAFE_CLASSES, escape_html, escape_terminal, split_unsafe
from tests._support.examples import examples

CATEGORIES = (
    *("Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No"),
    *("Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So"),
    *("Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co", "Cn"),
)
"""Every Unicode general category."""

# The oracle, written from the Unicode data rather than from agentrender._text's ranges.
UNSAFE_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Zl", "Zp"}
INVISIBLE_NAMES = ("VARIATION SELECTOR", "HANGUL FILLER", "HANGUL CHOSEONG FILLER", "HANGUL JUNGSEONG FILLER")
INVISIBLE_NAMES += ("COMBINING GRAPHEME JOINER", "KHMER VOWEL INHERENT")
RESERVED_IGNORABLE = ((0x2060, 0x206F), (0xFFF0, 0xFFF8), (0xE0000, 0xE0FFF), (0x13430, 0x1343F))
"""Unassigned code points Unicode reserves as default-ignorable or as format controls."""
PRESENTATION = "\ufe0e\ufe0f"


def noncharacter(code: int) -> bool:
    return 0xFDD0 <= code <= 0xFDEF or code & 0xFFFE == 0xFFFE


def unsafe_by_unicode(char: str) -> bool:
    """Whether a reader could not see ``char`` for what it is, from its category, name and code point."""
    code, category = ord(char), unicodedata.category(char)
    if char in "\n\t":
        return False
    if category in UNSAFE_CATEGORIES or noncharacter(code):
        return True
    if category in ("Mn", "Lo") and any(word in unicodedata.name(char, "") for word in INVISIBLE_NAMES):
        return True
    return category == "Cn" and any(first <= code <= last for first, last in RESERVED_IGNORABLE)


unsafe = cache(unsafe_by_unicode)


def passes(text: str, i: int, *, one_line: bool = False) -> bool:
    """A lone presentation selector right after a visible character: the second half of an emoji; or a carriage
    return before a newline (a Windows line ending), but on one line, where the newline is a mark."""
    if text[i] == "\r":
        return not one_line and text[i + 1 : i + 2] == "\n"
    return text[i] in PRESENTATION and i > 0 and not unsafe(text[i - 1]) and not text[i - 1].isspace()


def escaped(text: str, i: int, *, one_line: bool = False) -> bool:
    return (unsafe(text[i]) and not passes(text, i, one_line=one_line)) or (one_line and text[i] in "\n\t")


def terminal_escape(char: str) -> str:
    code = ord(char)
    if char == "\n":
        return "\u21b5 "
    if char == "\t":
        return " "
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def expected_terminal(text: str, *, one_line: bool = False) -> str:
    return "".join(
        terminal_escape(char) if escaped(text, i, one_line=one_line) else char for i, char in enumerate(text)
    )


def expected_page_text(text: str) -> str:
    """The text a browser shows for ``text``: each escaped character as its ``[U+XXXX]`` marker."""
    return "".join(f"[U+{ord(char):04X}]" if escaped(text, i) else char for i, char in enumerate(text))


NONCHARACTERS = [chr(plane + last) for plane in range(0, 0x110000, 0x10000) for last in (0xFFFE, 0xFFFF)]
CHARACTERS = st.one_of(
    *(st.characters(codec=None, categories=[category]) for category in CATEGORIES),
    st.characters(min_codepoint=0xE0000, max_codepoint=0xE0FFF),  # tag characters, variation selectors 17-256
    st.characters(min_codepoint=0xFE00, max_codepoint=0xFE0F),  # variation selectors 1-16
    st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, codec=None),  # lone surrogates
    st.sampled_from(NONCHARACTERS + [chr(code) for code in range(0xFDD0, 0xFDF0)]),
    st.characters(min_codepoint=0x10000),  # the astral planes
    st.sampled_from(["\U0001f600", "\u2764", "\u263a", "\ufe0f", "\ufe0e"]),  # emoji and their selectors
    st.sampled_from([*"<>&\"'\n\t\r;#xU+[]/=", "&amp;", "<script>", "&#x27;", "]]>", "-->"]),
    st.sampled_from(["$", "$$", "\\", "\\(", "\\[", "\\href{javascript:alert(1)}{x}", "\\begin{equation}"]),
)
TEXTS = st.lists(CHARACTERS, max_size=40).map("".join)


class Page(HTMLParser):
    """The elements and the text a browser builds from an HTML string."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.ends: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))

    def handle_endtag(self, tag: str) -> None:
        self.ends.append(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def handle_comment(self, data: str) -> None:
        raise AssertionError(f"a comment was made of text: {data!r}")

    def unknown_decl(self, data: str) -> None:
        raise AssertionError(f"a declaration was made of text: {data!r}")


@settings(max_examples=examples(200), deadline=None)
@given(TEXTS)
def test_the_html_escape_makes_no_markup_and_shows_every_unsafe_character(text: str) -> None:
    """Any text escapes to HTML whose only elements are the markers (inside one that MathJax skips when it
    holds a $ or a backslash), whose text is the input with each unsafe character as [U+XXXX], and which
    holds no unsafe character raw."""
    out = escape_html(text)
    page = Page()
    page.feed(out)
    page.close()
    tags = page.tags
    if "$" in text or "\\" in text:
        assert tags[0] == ("span", [("class", NO_MATH)]) and out.endswith("</span>"), "TeX is kept from MathJax"
        tags = tags[1:]
    for tag, attrs in tags:
        assert tag == "span" and [name for name, _ in attrs] == ["class", "title"], (tag, attrs)
        assert attrs[0][1] == "ar-ctl" and (attrs[1][1] or "").startswith("U+"), attrs
    assert page.ends == ["span"] * len(page.tags)
    assert "".join(page.text) == expected_page_text(text)
    raw = [char for char in out if unsafe(char)]
    assert raw == [char for i, char in enumerate(text) if unsafe(char) and passes(text, i)]
    out.encode("utf-8")  # no lone surrogate left to fail the page


@settings(max_examples=examples(200), deadline=None)
@given(TEXTS, st.booleans())
def test_the_terminal_escape_leaves_no_unsafe_character(text: str, one_line: bool) -> None:
    """Any text escapes for a terminal to the input with each unsafe character as its visible escape."""
    out = escape_terminal(text, one_line=one_line)
    assert out == expected_terminal(text, one_line=one_line)
    left = [char for char in out if unsafe(char) or (one_line and char in "\n\t")]
    assert left == [char for i, char in enumerate(text) if unsafe(char) and passes(text, i, one_line=one_line)]
    out.encode("utf-8")


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(CHARACTERS.filter(lambda char: len(char) > 1 or not unsafe(char)), max_size=40).map("".join))
def test_safe_text_passes_unchanged(text: str) -> None:
    """Text with no unsafe character is printed as it is, and only html.escape'd for a page (and kept from
    MathJax when it holds a $ or a backslash)."""
    assert escape_terminal(text) == text
    escaped = html.escape(text, quote=True)
    tex = "$" in text or "\\" in text
    assert escape_html(text) == (f'<span class="{NO_MATH}">{escaped}</span>' if tex else escaped)


@settings(max_examples=examples(100), deadline=None)
@given(TEXTS, st.integers(min_value=0, max_value=30))
def test_a_capped_text_shows_its_first_characters_and_counts_the_rest(text: str, limit: int) -> None:
    """With a limit, the page shows the first ``limit`` characters, then how many more and the whole size."""
    out = escape_html(text, limit)
    if len(text) <= limit:
        assert out == escape_html(text)
    else:
        more = f"… {len(text) - limit:,} more characters not shown here"
        size = f"({len(text.encode('utf-8', 'surrogatepass')):,} bytes in all)"
        assert out.startswith(escape_html(text[:limit])) and out.endswith(f'<span class="ar-more">{more} {size}</span>')


@pytest.mark.slow
def test_every_code_point_is_escaped_exactly_when_its_class_is_unsafe() -> None:
    """Over all 1,114,112 code points, the one set is exactly the unsafe categories, the noncharacters
    and the default-ignorable characters; both escapes show exactly those."""
    everything = "".join(map(chr, range(0x110000)))
    oracle = set(filter(unsafe_by_unicode, everything))
    assert set(UNSAFE.findall(everything)) == oracle
    # In code point order no presentation selector follows a visible character: every unsafe one is shown.
    assert escape_terminal(everything) == "".join(terminal_escape(c) if c in oracle else c for c in everything)
    assert escape_html(everything).count('<span class="ar-ctl"') == len(oracle)


def test_the_tag_characters_and_lone_surrogates_are_shown() -> None:
    """ASCII smuggled as tag characters, and half a surrogate pair, show as code points in both escapes."""
    smuggled = "ok\U000e0069\U000e0067\U000e006e\U000e006f\U000e0072\U000e0065 \ud83d"
    assert escape_terminal(smuggled) == "ok\\U000e0069\\U000e0067\\U000e006e\\U000e006f\\U000e0072\\U000e0065 \\ud83d"
    page = escape_html(smuggled)
    assert "[U+E0069]" in page and "[U+D83D]" in page and "\U000e0069" not in page


def test_one_presentation_selector_keeps_an_emoji_and_a_run_of_selectors_is_shown() -> None:
    """A heart with its emoji selector passes; selectors hiding bytes after it, or alone, are escaped."""
    assert escape_terminal("\u2764\ufe0f ok") == "\u2764\ufe0f ok"
    assert escape_terminal("\u2764\ufe0f\ufe0e\U000e0101") == "\u2764\ufe0f\\ufe0e\\U000e0101"
    assert escape_terminal("\ufe0f \ufe0f\n\ufe0f") == "\\ufe0f \\ufe0f\n\\ufe0f"
    assert escape_terminal("\u2764\ufe00") == "\u2764\\ufe00"


def test_each_class_of_the_set_says_why_it_is_unsafe() -> None:
    """Every class names itself, gives its reason, and holds code points of Unicode's range."""
    for unsafe_class in UNSAFE_CLASSES:
        assert unsafe_class.name and unsafe_class.why.endswith(".")
        assert all(0 <= first <= last <= 0x10FFFF for first, last in unsafe_class.ranges)


@pytest.mark.parametrize(
    "payload",
    [
        r"$\href{javascript:alert(1)}{x}$",
        r"$$\unicode{x1F600}$$",
        r"\(\href{javascript:alert(1)}{x}\)",
        r"\[x^2\]",
        r"\begin{equation}x\end{equation}",
        "costs $5",
    ],
)
def test_tex_in_run_text_is_kept_from_mathjax_and_shown_literally(payload: str) -> None:
    """A text that holds a TeX delimiter is shown literally inside one span of the classes MathJax 2 and 3 skip."""
    out = escape_html(f"a {payload} \u202e b", 200)
    assert out.startswith('<span class="tex2jax_ignore mathjax_ignore">') and out.endswith("</span>")
    page = Page()
    page.feed(out)
    page.close()
    assert "".join(page.text) == f"a {payload} [U+202E] b"
    assert "href=" not in out.replace(payload, "")


def test_text_without_a_tex_delimiter_gets_no_wrapper() -> None:
    """Run text with no $ or backslash escapes as before: no span around it, so most pages are unchanged."""
    assert escape_html("if a < b: print('x')") == "if a &lt; b: print(&#x27;x&#x27;)"


@settings(max_examples=examples(100), deadline=None)
@given(TEXTS, st.one_of(st.none(), st.integers(min_value=0, max_value=30)))
@example("an emoji \U0001f600\ufe0f, a tag \U000e0041, a $\\href{x}{y}$ \u202e", 20)
def test_the_pieces_a_page_lays_out_are_the_html_escape(text: str, limit: int | None) -> None:
    """``split_unsafe``'s pieces, laid out as a page's script does (text as text, a code point as its marker, the
    count of what is not shown after ``-1``), are exactly ``escape_html`` of the same text and limit."""
    pieces = split_unsafe(text, limit)
    laid_out = []
    more = False
    for piece in pieces:
        if piece == -1:
            more = True
        elif more:
            laid_out.append(f'<span class="ar-more">{piece}</span>')
        elif isinstance(piece, int):
            code = f"U+{piece:04X}"
            laid_out.append(f'<span class="ar-ctl" title="{code}: {MARK_TITLE}">[{code}]</span>')
        else:
            laid_out.append(html.escape(piece, quote=True))
    assert "".join(laid_out) == _without_math(escape_html(text, limit))


def _without_math(out: str) -> str:
    """``escape_html``'s output without the ``NO_MATH`` wrapper: a page keeps all of its text from MathJax at once."""
    wrapper = f'<span class="{NO_MATH}">'
    if not out.startswith(wrapper):
        return out
    body = out.removeprefix(wrapper)
    more = '</span><span class="ar-more">'
    if more in body:
        cut = body.rindex(more)
        return body[:cut] + body[cut + len("</span>") :]
    return body.removesuffix("</span>")


def test_a_windows_line_ending_is_a_line_end_and_a_lone_carriage_return_a_mark() -> None:
    """A carriage return before a newline (every line of a file written on Windows, a SWE-agent issue's text) ends
    the line and passes: a red [U+000D] on every line drowned what it ended. A lone one still rewrites a terminal
    line and is marked, and so is one before a newline shown on one line (as ``↵``)."""
    text = "first line\r\nsecond\rover\r\n"
    assert (
        escape_html(text)
        == 'first line\r\nsecond<span class="ar-ctl" title="U+000D: ' + MARK_TITLE + '">[U+000D]</span>over\r\n'
    )
    assert split_unsafe(text) == ("first line\r\nsecond", 0x0D, "over\r\n")
    assert escape_terminal(text) == "first line\r\nsecond\\x0dover\r\n"
    assert escape_terminal(text, one_line=True) == "first line\\x0d\u21b5 second\\x0dover\\x0d\u21b5 "
