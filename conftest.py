"""pytest for the whole checkout: the docs' code blocks run as tests, and what is slow is marked so.

Every Python code block of the docs (docs/**/*.md and README.md) is a test. The blocks are
collected by pytest-markdown-docs' own collector. Its ``--markdown-docs`` flag would do the
same, but would also import every test module to search its docstrings for code; the docs
are only these Markdown files, so they alone are handed to it. A block that is shown but not
meant to run is fenced as ``python notest``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest_markdown_docs.plugin import MarkdownTextFile

ROOT = Path(__file__).resolve().parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"


def is_doc(path: Path) -> bool:
    """True for the Markdown files whose code blocks are tests."""
    path = path.resolve()
    return path.suffix == ".md" and (path == README or DOCS in path.parents)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    # Under --markdown-docs the plugin collects these files itself; collecting them twice
    # would run every block twice.
    if parent.config.option.markdowndocs or not is_doc(file_path):
        return None
    collector: pytest.Collector = MarkdownTextFile.from_parent(parent, path=file_path)
    return collector


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every notebook cell and every browser test is ``slow``."""
    for item in items:
        if item.path.suffix == ".ipynb" or item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.slow)
