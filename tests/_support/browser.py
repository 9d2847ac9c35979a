"""Debian's Chromium through Playwright, for the browser tests and tools/screenshots.py.

A browser test that cannot run fails under CI (``CI`` set), where the browser must be there,
and elsewhere skips, saying what to install.
"""

from __future__ import annotations

import os
import shutil
from typing import Any

import pytest


def find_chromium() -> str | None:
    """Where Chromium is: ``$CHROMIUM`` when set, Debian's ``/usr/bin/chromium``, else the first on PATH."""
    named = os.environ.get("CHROMIUM")
    if named:
        return named if os.path.exists(named) else None
    if os.path.exists("/usr/bin/chromium"):
        return "/usr/bin/chromium"
    return shutil.which("chromium") or shutil.which("chromium-browser")


CHROMIUM = find_chromium()
"""The Chromium every browser test and the screenshot tool launch (``None``: there is none), found once."""
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


def missing_chromium(path: str | None = CHROMIUM) -> str | None:
    """Why Chromium at ``path`` cannot be launched, or ``None`` when it can."""
    if path is None:
        return (
            "no Chromium found ($CHROMIUM, /usr/bin/chromium, or on PATH): apt-get install chromium (as .ci/run does)"
        )
    if not os.path.exists(path):
        return f"Chromium is not at {path}: apt-get install chromium (as .ci/run does)"
    return None


def chromium(path: str | None = CHROMIUM) -> Any:
    """Playwright, to launch Chromium at ``path``; fail under CI when either is missing, else skip saying why."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        require("playwright is not installed (pip install playwright; the browser is Debian's chromium)")
    require(missing_chromium(path))
    return sync_playwright()
