"""What the importers' fuzz tests mutate a fixture with (any small JSON value, at any place in it), and what they
found, kept as fixed cases."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)
"""Small JSON values of every type, to put where a fixture holds another."""


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place inside ``value``: the keys and indices that lead to each of its items, nested ones too."""
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            out.extend(paths(item, (*prefix, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out.extend(paths(item, (*prefix, index)))
    return out


CLAUDE_CODE_SESSION = (
    Path(__file__).resolve().parents[1]
    / "fixtures"
    / "imports"
    / "claude-code"
    / "7f3c2a91-5b0e-4d8a-9c61-2e4f8b7d1a05.jsonl"
)
"""The hand-made Claude Code session the importer's fuzz test mutates."""

FLAGGED_ON_MAIN = 7
"""The record (from 0) of ``CLAUDE_CODE_SESSION`` that ``sidechain_flagged_on_main`` flags: the middle one of a reply
written in three records (text, tool use, tool use)."""


def sidechain_flagged_on_main() -> list[dict[str, Any]]:
    """The records of ``CLAUDE_CODE_SESSION`` with record ``FLAGGED_ON_MAIN`` flagged ``isSidechain`` while its parents
    lead to the main thread: the fuzz test's find, which failed the import with an IndexError."""
    lines = CLAUDE_CODE_SESSION.read_text("utf-8").splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    records[FLAGGED_ON_MAIN]["isSidechain"] = True
    return records
