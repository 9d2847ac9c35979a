"""The real public files of ``tests/fixtures/real``, as its ``MANIFEST.json`` lists them (each one's source, commit
and licence): the histories an importer reads, and the files Claude Code writes beside them (sidecars)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
"""Where the real public files are kept."""

HISTORY_FORMATS = frozenset(
    {
        "anthropic_log",
        "claude_code",
        "claude_code_stream",
        "codex_rollout",
        "inspect",
        "openai_chat",
        "swe_agent",
        "tau_bench",
    }
)
"""The formats of the histories; any other entry (``claude_code_meta``: a sub-agent's ``.meta.json``) is a file
read beside one, not a history of its own."""


LARGE_BYTES = 200_000
"""A history larger than this is too large for the tests that import it again once a line (each import costs its
size, so such a test costs the square of it): they take it in a few chunks, or at a few lines spread through it."""


def entries() -> list[dict[str, Any]]:
    """Every entry of the manifest, in its order (none when the manifest is not in this checkout)."""
    manifest = REAL / "MANIFEST.json"
    return json.loads(manifest.read_text(encoding="utf-8")) if manifest.is_file() else []


def histories() -> list[dict[str, Any]]:
    """The manifest's entries that are histories (``HISTORY_FORMATS``) its importer reads into runs."""
    return [entry for entry in entries() if entry["format"] in HISTORY_FORMATS and "refused" not in entry]


def refused() -> list[dict[str, Any]]:
    """The manifest's entries of real files that hold no run, which their importer refuses: each one's ``refused``
    gives the words of the error it must give (what the file's source said of why there is no run)."""
    return [entry for entry in entries() if "refused" in entry]


def history_paths() -> list[str]:
    """The paths of the histories, relative to ``REAL``."""
    return [entry["path"] for entry in histories()]
