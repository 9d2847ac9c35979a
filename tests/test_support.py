"""The shared test helpers hold what the tests rely on them for."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests._support.browser import chromium, require
from tests._support.runs import HOSTILE


def test_hostile_text_constant_covers_the_attack_kinds() -> None:
    """The hostile payload holds a script, an onerror image, a javascript: link, </style>, unbalanced tags and RTL."""
    for piece in ("<script>", "onerror", "javascript:", "</style>", "<b>unbalanced", "\u202e"):
        assert piece in HOSTILE


def test_the_browser_tests_fail_under_ci_when_chromium_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without Chromium the browser tests fail when CI is set, and skip with the reason otherwise."""
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setenv("CI", "1")
    with pytest.raises(pytest.fail.Exception, match="Chromium is not at /nonexistent/chromium"):
        chromium("/nonexistent/chromium")
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="apt-get install chromium"):
        chromium("/nonexistent/chromium")


def test_a_missing_browser_fails_under_ci_and_skips_elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    """With CI set, the end-to-end test's missing browser or JupyterLab is a failure; without it, a skip."""
    monkeypatch.setenv("CI", "1")
    with pytest.raises(pytest.fail.Exception, match="browser test under CI: Chromium is not at"):
        require("Chromium is not at /usr/bin/chromium")
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="jupyterlab is not installed"):
        require("jupyterlab is not installed")
    require(None)


def test_chromium_is_found_once_and_the_launch_uses_what_the_guard_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Chromium named by $CHROMIUM or found on PATH (snap, /usr/local/bin) is the one the guard accepts and
    the tests launch: a path the guard accepts is never one the launch cannot find."""
    from tests._support import browser

    elsewhere = tmp_path / "chromium"
    elsewhere.write_text("#!/bin/sh\n", encoding="utf-8")
    monkeypatch.setenv("CHROMIUM", str(elsewhere))
    assert browser.find_chromium() == str(elsewhere)
    assert browser.missing_chromium(browser.find_chromium()) is None
    monkeypatch.setenv("CHROMIUM", str(tmp_path / "nowhere"))
    assert browser.find_chromium() is None
    assert "no Chromium found" in (browser.missing_chromium(None) or "")
    monkeypatch.delenv("CHROMIUM")
    monkeypatch.setattr(browser.os.path, "exists", lambda path: path == str(elsewhere))
    monkeypatch.setattr(browser.shutil, "which", lambda name: str(elsewhere) if name == "chromium" else None)
    assert browser.find_chromium() == str(elsewhere)
