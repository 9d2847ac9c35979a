"""How JSON values are shown: ``display`` (to a person) and ``escaped`` (a command's ``--json``).

Both give exactly the text ``json.dumps`` gives with an indent of 2, to the byte, for every value;
they get it by writing the value compact in C and indenting that (``_json._indented``), since
``json.dumps`` given an indent writes in Python, item by item.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentrender._json import _shown, display, escaped

_TEXTS = st.text(st.characters(codec=None, categories=None), max_size=8)
"""Any text: control characters, non-ASCII, characters beyond the BMP and lone surrogates included."""

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**64, max_value=2**200)
    | st.floats()
    | _TEXTS
    | st.binary(max_size=6)
)

VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner) | st.dictionaries(_TEXTS, inner, max_size=4),
    max_leaves=12,
)
"""Values of every shape ``display`` and ``escaped`` are handed, with what JSON cannot hold among them: ``NaN`` and
the infinities, bytes, integers past 64 bits, tuples."""


def _stdlib_escaped(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True, indent=2, default=_shown)


def _stdlib_display(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, indent=2, allow_nan=False, default=_shown)
    except ValueError:
        return repr(value)


@given(VALUES)
def test_escaped_is_json_dumps_indented_to_the_byte(value: Any) -> None:
    assert escaped(value) == _stdlib_escaped(value)


@given(VALUES)
def test_display_is_json_dumps_indented_to_the_byte(value: Any) -> None:
    assert display(value) == _stdlib_display(value)


@pytest.mark.parametrize(
    "value",
    [
        {},
        [],
        {"empty": {}, "none": [], "nested": [[], [{}], {"a": []}]},
        {"é": '😀 \u2028\u2029 \x00\x1f\x7f /\\"', "\ud800": ["\udfff", "a\ud83d"]},
        [1e16, -0.0, 1e-7, 5e-324, 1.7976931348623157e308, 10**40, -(10**40)],
        [math.nan, math.inf, -math.inf],
        {"bytes": b"text", "not utf-8": b"\xff\xfe", "other": {1, 2}},
        {1: "int key", 2.5: "float key", False: "bool key", None: "null key"},
        ("a", ("tuple", "inside")),
    ],
    ids=[
        "empty dict",
        "empty list",
        "empties nested",
        "every kind of text",
        "numbers",
        "not numbers",
        "not JSON",
        "keys not text",
        "tuples",
    ],
)
def test_the_cases_the_two_writers_could_part_on(value: Any) -> None:
    """Each case where msgspec's indenting and ``json.dumps``'s could differ: they do not, or the value is not
    indented by msgspec at all (``NaN``, a lone surrogate)."""
    assert escaped(value) == _stdlib_escaped(value)
    assert display(value) == _stdlib_display(value)


@pytest.mark.parametrize("depth", [1, 100, 400])
def test_deep_values_are_indented_the_same(depth: int) -> None:
    value: Any = "leaf"
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    assert escaped(value) == _stdlib_escaped(value)
    assert display(value) == _stdlib_display(value)


def test_a_value_json_can_write_is_not_indented_by_the_python_writer(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast path is taken: ``json.dumps`` writes nothing in Python (its item-by-item writer, which an indent
    asks for, is unreachable here) unless the value holds what only it writes."""

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("json.dumps wrote in Python")

    plain = {"role": "user", "content": [{"type": "tool_result", "content": "é😀", "input": {"n": [1, 2.5, None]}}]}
    expected = (_stdlib_escaped(plain), _stdlib_display(plain))
    monkeypatch.setattr(json.encoder, "_make_iterencode", refused)
    assert (escaped(plain), display(plain)) == expected
    with pytest.raises(AssertionError, match="wrote in Python"):
        escaped([math.nan])  # only json.dumps writes NaN: the slow path, as before
