"""Debian's Chromium through Playwright, for the browser tests and tools/screenshots.py.

A browser test that cannot run fails under CI (``CI`` set), where the browser must be there,
and elsewhere skips, saying what to install.
"""

from __future__ import annotations

import os
import shutil
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def require(missing: str | None) -> None:
    """Fail under CI when something is missing; elsewhere skip, saying what is missing."""
    if missing is not None:
        if os.environ.get("CI"):
            pytest.fail(f"browser test under CI: {missing}")
        pytest.skip(missing)


def chromium(path: str = CHROMIUM) -> Any:
    """Playwright, to launch Chromium at ``path``; fail under CI when either is missing, else skip saying why."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        require("playwright is not installed (pip install playwright; the browser is Debian's chromium)")
    if not (os.path.exists(path) or shutil.which("chromium")):
        require(f"Chromium is not at {path}: apt-get install chromium (as .ci/run does)")
    return sync_playwright()
