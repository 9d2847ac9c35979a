"""The shared test helpers hold what the tests rely on them for."""

from __future__ import annotations

import shutil

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
