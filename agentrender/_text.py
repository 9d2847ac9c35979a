"""Unsafe text: the one set of characters no instrument shows raw, and its escapes for HTML and terminals.

Everything a run holds was written by a model or a tool and is untrusted. A character is
unsafe when a reader cannot see it for what it is: it draws nothing, or it makes a terminal
do something, or it changes how the text around it is drawn. Each such character is shown
as a visible escape naming its code point (``[U+202E]`` on a page, ``\\u202e`` in a
terminal), so no text can hide, reorder or rewrite what is around it, and two texts that
differ never look the same. ``UNSAFE_CLASSES`` lists the set, each class with why it is in.

Everything else passes as it is: letters, marks, digits, symbols, emoji and spaces of every
width draw something (a space is seen as a space), and unassigned code points draw a
replacement box. Newline and tab keep their meaning; a terminal's one-line form shows them
as ``↵`` and a space. On a page, a text that could hold TeX is also kept from MathJax
(``NO_MATH``), which JupyterLab runs over every HTML output.

Standard library only.
"""

from __future__ import annotations

import html
import re
from typing import NamedTuple

__all__ = [
    "MARK_TITLE",
    "NO_MATH",
    "UNSAFE",
    "UNSAFE_CLASSES",
    "UnsafeClass",
    "escape_html",
    "escape_json",
    "escape_terminal",
    "mark_text",
    "split_unsafe",
]


class UnsafeClass(NamedTuple):
    """One class of unsafe characters: what it is, why a reader must see it, and its code points."""

    name: str
    """What the class is."""
    why: str
    """Why a reader must see each of its characters as an escape."""
    ranges: tuple[tuple[int, int], ...]
    """Its code points, as inclusive ``(first, last)`` ranges."""


UNSAFE_CLASSES: tuple[UnsafeClass, ...] = (
    UnsafeClass(
        "C0 and C1 controls but newline and tab, and DEL (general category Cc)",
        "A terminal obeys them: they move the cursor, rewrite a line (carriage return, backspace), "
        "set colours, titles and links (ESC, CSI, OSC) and ring the bell. A page draws nothing for them. "
        "A carriage return right before a newline (a Windows line ending) rewrites nothing and passes, but "
        "in text shown on one line.",
        ((0x00, 0x08), (0x0B, 0x1F), (0x7F, 0x9F)),
    ),
    UnsafeClass(
        "format characters (general category Cf) but the tag characters",
        "They draw nothing of their own and change what is around them: bidirectional marks, "
        "embeddings, overrides and isolates reorder a line so it reads other than it is stored "
        "(Trojan Source); zero-width spaces and joiners, the word joiner, invisible operators, the "
        "byte-order mark and the soft hyphen split or join words unseen, so two different texts look "
        "alike; interlinear annotation marks (U+FFF9-FFFB) hide the annotation between them; the "
        "prepended marks and the Egyptian, shorthand and musical format controls change how what "
        "follows them is laid out. U+2065 (reserved, to be ignored) is taken with its neighbours.",
        (
            (0x00AD, 0x00AD),
            (0x0600, 0x0605),
            (0x061C, 0x061C),
            (0x06DD, 0x06DD),
            (0x070F, 0x070F),
            (0x0890, 0x0891),
            (0x08E2, 0x08E2),
            (0x180E, 0x180E),
            (0x200B, 0x200F),
            (0x202A, 0x202E),
            (0x2060, 0x206F),
            (0xFEFF, 0xFEFF),
            (0xFFF9, 0xFFFB),
            (0x110BD, 0x110BD),
            (0x110CD, 0x110CD),
            (0x13430, 0x1343F),
            (0x1BCA0, 0x1BCA3),
            (0x1D173, 0x1D17A),
        ),
    ),
    UnsafeClass(
        "tag characters (U+E0000-E007F) and the rest of plane 14's ignorable block (U+E0080-E00FF, U+E01F0-E0FFF)",
        "Invisible copies of ASCII: a model reads the text they spell and a reader sees nothing "
        "(prompt injection by 'ASCII smuggling').",
        ((0xE0000, 0xE00FF), (0xE01F0, 0xE0FFF)),
    ),
    UnsafeClass(
        "the other default-ignorable characters: variation selectors, fillers, the combining grapheme joiner",
        "Unicode asks every renderer to draw them as nothing. A run of variation selectors "
        "(U+FE00-FE0F, U+E0100-E01EF) after a visible character can carry any bytes unseen; the Hangul "
        "fillers (U+115F, U+1160, U+3164, U+FFA0) make a name or a line look empty; the combining "
        "grapheme joiner, the Khmer inherent vowels and the Mongolian free variation selectors draw "
        "nothing either; U+FFF0-FFF8 are reserved as ignorable. One exception keeps emoji whole: a "
        "single text or emoji presentation selector (U+FE0E, U+FE0F) right after a visible character "
        "passes; a second one in a row is escaped.",
        (
            (0x034F, 0x034F),
            (0x115F, 0x1160),
            (0x17B4, 0x17B5),
            (0x180B, 0x180D),
            (0x180F, 0x180F),
            (0x3164, 0x3164),
            (0xFE00, 0xFE0F),
            (0xFFA0, 0xFFA0),
            (0xFFF0, 0xFFF8),
            (0xE0100, 0xE01EF),
        ),
    ),
    UnsafeClass(
        "line and paragraph separators (U+2028, U+2029: general categories Zl, Zp)",
        "Some terminals and editors break the line at them and others draw nothing, so a line can "
        "look whole or broken at will.",
        ((0x2028, 0x2029),),
    ),
    UnsafeClass(
        "lone surrogates (U+D800-DFFF: general category Cs)",
        "Half of a UTF-16 pair is not a character: it cannot be written as UTF-8, so a page or a "
        "terminal would fail on it or silently replace it.",
        ((0xD800, 0xDFFF),),
    ),
    UnsafeClass(
        "private-use characters (general category Co) and the noncharacters",
        "A private-use character means only what a private agreement says; fonts draw it as nothing, "
        "as a box or as an icon of their own, so a reader cannot tell what it is. Noncharacters "
        "(U+FDD0-FDEF and the last two code points of every plane) are never text at all.",
        (
            (0xE000, 0xF8FF),
            (0xFDD0, 0xFDEF),
            *((plane + 0xFFFE, plane + 0xFFFF) for plane in range(0, 0xF0000, 0x10000)),
            (0xF0000, 0x10FFFF),
        ),
    ),
)
"""The classes of unsafe characters, each with why a reader must see it: together, the one set
the HTML and the terminal escape."""


def _class(ranges: list[tuple[int, int]]) -> str:
    return "".join(f"{re.escape(chr(first))}-{re.escape(chr(last))}" for first, last in ranges)


_RANGES = sorted(span for unsafe in UNSAFE_CLASSES for span in unsafe.ranges)
UNSAFE = re.compile(f"[{_class(_RANGES)}]")
"""Matches each character of ``UNSAFE_CLASSES``: the one set. A single presentation selector after a
visible character still passes both escapes (see the default-ignorable class)."""

# The escapes scan with a class of the set's BMP ranges plus every astral character, which the
# regex engine tests with one table look-up per character; a class holding the astral ranges
# themselves is tested range by range, several times slower on every character of a text. The
# replacement then lets an astral character outside the set pass.
_BMP = [(first, min(last, 0xFFFF)) for first, last in _RANGES if first <= 0xFFFF]
_SCAN = re.compile(f"[{_class(_BMP)}\U00010000-\U0010ffff]")
_SCAN_LINE = re.compile(f"[{_class(_BMP)}\U00010000-\U0010ffff\n\t]")

_PRESENTATION = "\ufe0e\ufe0f"


def _passes(match: re.Match[str]) -> bool:
    """An astral character outside the set, a single presentation selector right after a visible
    character (the second half of most emoji), or a carriage return that ends a line with its newline
    (Windows' line ending: it moves nothing the newline does not), except in one line, where the newline
    is itself shown as a mark."""
    char = match.group()
    if char > "\uffff":
        return UNSAFE.match(char) is None
    if char == "\r":
        return match.re is not _SCAN_LINE and match.string.startswith("\n", match.end())
    start = match.start()
    if char not in _PRESENTATION or start == 0:
        return False
    before = match.string[start - 1]
    return not before.isspace() and UNSAFE.match(before) is None


MARK_TITLE = "an invisible or direction-changing character"
"""What a marker's title says its character is (after its ``U+XXXX``)."""


def _mark(match: re.Match[str]) -> str:
    if _passes(match):
        return match.group()
    code = f"U+{ord(match.group()):04X}"
    return f'<span class="ar-ctl" title="{code}: {MARK_TITLE}">[{code}]</span>'


def _plain_mark(match: re.Match[str]) -> str:
    return match.group() if _passes(match) else f"[U+{ord(match.group()):04X}]"


def mark_text(text: str) -> str:
    """``text`` for a control that shows plain text (a dropdown's label): each unsafe character as the
    ``[U+XXXX]`` marker ``escape_html`` shows, without the markup."""
    return _SCAN.sub(_plain_mark, text)


def _json_escape(match: re.Match[str]) -> str:
    if _passes(match):
        return match.group()
    code = ord(match.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    high, low = divmod(code - 0x10000, 0x400)
    return f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}"


def escape_json(text: str) -> str:
    """JSON ``text`` (as ``json.dumps`` writes it, so unsafe characters are only inside its strings) with each
    unsafe character written as JSON's own ``\\uXXXX`` escape: the same JSON value, with every one visible.

    For an editor of JSON: what it shows reads back as what it was given, and a character a
    reader types stays what it is.
    """
    return _SCAN.sub(_json_escape, text)


NO_MATH = "tex2jax_ignore mathjax_ignore"
"""The classes that tell MathJax to leave an element's text alone (MathJax 2's and MathJax 3's names).

JupyterLab, Jupyter Notebook and many documentation sites run MathJax over every HTML output,
and it reads TeX from the page's text: ``$\\href{javascript:...}{x}$`` in a run's text would
become a typeset link. HTML entities do not help (the page's text holds ``$`` again), so run
text holding a ``$`` or a ``\\`` (every TeX delimiter has one) is wrapped in an element of
these classes; MathJax skips it, and it is shown literally.
"""

_TEX = re.compile(r"[$\\]")


def escape_html(text: str, limit: int | None = None) -> str:
    """``text`` as HTML that makes no markup and no math: ``html.escape`` (quotes included), each unsafe
    character shown as a visible ``[U+XXXX]`` marker (a ``span`` of class ``ar-ctl``), and a text that
    holds a TeX delimiter's ``$`` or ``\\`` inside a ``span`` of classes ``NO_MATH``.

    With ``limit``, only the first ``limit`` characters are shown, followed by how many more there
    are and the size of the whole text in bytes (a ``span`` of class ``ar-more``).
    """
    shown = text if limit is None or len(text) <= limit else text[:limit]
    out = _SCAN.sub(_mark, html.escape(shown, quote=True))
    if _TEX.search(shown) is not None:
        out = f'<span class="{NO_MATH}">{out}</span>'
    if len(shown) < len(text):
        out += f'<span class="ar-more">{_more(text, len(shown))}</span>'
    return out


def _more(text: str, shown: int) -> str:
    """What a text cut to its first ``shown`` characters leaves out, in a sentence."""
    total = len(text.encode("utf-8", "surrogatepass"))
    return f"… {len(text) - shown:,} more characters not shown here ({total:,} bytes in all)"


def split_unsafe(text: str, limit: int | None = None) -> tuple[str | int, ...]:
    """``text`` as pieces a page lays out as text nodes: each run of safe text a ``str``, each unsafe
    character its code point (an ``int``, shown as the ``[U+XXXX]`` marker ``escape_html`` makes).

    With ``limit``, only the first ``limit`` characters are split, and the last piece is the sentence
    saying how many more there are (as ``escape_html`` words it), a ``str`` after an ``int`` ``-1``.
    A text of safe characters alone, within the limit, is one piece.
    """
    shown = text if limit is None or len(text) <= limit else text[:limit]
    pieces: list[str | int] = []
    start = 0
    for match in _SCAN.finditer(shown):
        if _passes(match):
            continue
        if match.start() > start:
            pieces.append(shown[start : match.start()])
        pieces.append(ord(match.group()))
        start = match.end()
    if start < len(shown) or not pieces:
        pieces.append(shown[start:])
    if len(shown) < len(text):
        pieces += [-1, _more(text, len(shown))]
    return tuple(pieces)


def _escape(match: re.Match[str]) -> str:
    if _passes(match):
        return match.group()
    code = ord(match.group())
    if code == 0x0A:
        return "\u21b5 "  # ↵: a newline in one-line text
    if code == 0x09:
        return " "
    if code < 0x100:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def escape_terminal(text: str, *, one_line: bool = False) -> str:
    """``text`` safe to print to a terminal: each unsafe character shown as a visible escape
    (``\\x1b``, ``\\u202e``, ``\\U000e0041``).

    With ``one_line``, newlines are shown as ``↵`` and tabs as spaces, for a table cell.
    """
    return (_SCAN_LINE if one_line else _SCAN).sub(_escape, text)
