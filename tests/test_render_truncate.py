"""render.truncate (CONTRACT §7): a byte bound, a mark, and never a split character."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentrender import render
from agentrender.render import truncate

MARK = "…"


def utf8_len(s: str) -> int:
    return len(s.encode("utf-8", "surrogatepass"))


def reference(s: str, n: int) -> str:
    """The contract spelled out character by character, independent of the implementation."""
    n = max(n, 0)
    if utf8_len(s) <= n:
        return s
    budget, mark = (n - 3, MARK) if n >= 3 else (n, "")
    kept = ""
    for char in s:
        if utf8_len(kept + char) > budget:
            break
        kept += char
    return kept + mark


@pytest.mark.parametrize(
    ("s", "n", "expected"),
    [
        ("hello", 5, "hello"),
        ("hello", 100, "hello"),
        ("hello", 4, "h…"),
        ("hello", 3, "…"),
        ("hello", 2, "he"),
        ("hello", 1, "h"),
        ("hello", 0, ""),
        ("hello", -1, ""),
        ("hello", -100, ""),
        ("", 0, ""),
        ("", -1, ""),
        # a=1, é=2, €=3, 😀=4 bytes: 10 in all.
        ("aé€😀", 10, "aé€😀"),
        ("aé€😀", 9, "aé€…"),
        ("aé€😀", 8, "aé…"),
        ("aé€😀", 7, "aé…"),
        ("aé€😀", 6, "aé…"),
        ("aé€😀", 5, "a…"),
        ("aé€😀", 4, "a…"),
        ("aé€😀", 3, "…"),
        ("aé€😀", 2, "a"),
        ("aé€😀", 1, "a"),
        ("aé€😀", 0, ""),
        ("😀", 3, "…"),
        ("😀", 2, ""),
        ("é", 1, ""),
        # Lone surrogates count 3 bytes, as surrogatepass encodes them.
        ("\ud800abc", 6, "\ud800abc"),
        ("\ud800abc", 5, "…"),
        ("ab\udc00cd", 6, "ab…"),
        ("ab\udc00cdef", 8, "ab\udc00…"),
        ("ab\udc00cd", 2, "ab"),
    ],
)
def test_truncate_table(s: str, n: int, expected: str) -> None:
    """Each row of the table is truncated to exactly the expected string."""
    assert truncate(s, n) == expected
    assert reference(s, n) == expected


@pytest.mark.parametrize("char", ["x", "é", "€", "😀", "\ud83d"])
def test_truncate_every_cut_point(char: str) -> None:
    """Strings of 1-, 2-, 3-, 4-byte characters and lone surrogates agree with the reference at every n."""
    for s in (char * 7, "ab" + char * 3 + "cd", char + "x" + char + "yy" + char):
        for n in range(-2, utf8_len(s) + 3):
            got = truncate(s, n)
            assert got == reference(s, n), (s, n)
            assert utf8_len(got) <= max(n, 0)


def test_truncate_returns_the_same_object_when_within_bound() -> None:
    """A string already within n bytes is returned unchanged, not rebuilt."""
    s = "already short é"
    assert truncate(s, 100) is s
    assert truncate(s, utf8_len(s)) is s


def test_truncate_long_strings_on_the_fast_paths() -> None:
    """Long ASCII and long non-ASCII strings are cut at exactly n bytes including the mark."""
    ascii_text = "a" * 100_000
    assert truncate(ascii_text, 16384) == "a" * 16381 + MARK
    wide = "€" * 100_000
    cut = truncate(wide, 16384)
    assert cut == "€" * 5460 + MARK
    assert utf8_len(cut) == 16383


@settings(max_examples=300, deadline=None)
@given(
    st.text(st.characters(codec="utf-8"), max_size=40) | st.sampled_from(["", "é€😀" * 5, "😀" * 10, "a" * 12]),
    st.text(st.characters(codec="utf-8"), max_size=40),
    st.booleans(),
    st.integers(min_value=-2, max_value=170),
)
def test_a_results_text_is_truncate_of_it_and_its_row_says_whether_it_was_cut(
    content: str, summary: str, full: bool, cap: int
) -> None:
    """result_and_rule shows truncate of the content (in the window) or of the summary at any cap, those of at most
    a quarter of the cap's characters included, and names the cut row exactly when the text was over the cap."""
    shown, rule = render.result_and_rule(content, summary, full, cap)
    if not full and not summary:
        assert (shown, rule) == (render.NO_SUMMARY_TEXT, "no_summary")
        return
    text = content if full else summary
    cut = utf8_len(text) > max(cap, 0)
    assert shown == reference(text, cap)
    assert rule == ("full" if full else "summary") + ("_cut" if cut else "")
