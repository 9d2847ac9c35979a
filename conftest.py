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
    """Mark every notebook cell and every browser test ``slow``; keep a notebook's cells on one worker.

    nbval runs a notebook's cells in order in one kernel, so under ``pytest -n`` (with
    ``--dist loadgroup``, set in pyproject) all of a notebook's cells go to the same worker.
    """
    for item in items:
        if item.path.suffix == ".ipynb":
            item.add_marker(pytest.mark.slow)
            item.add_marker(pytest.mark.xdist_group(name=str(item.path)))
        elif item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.slow)
