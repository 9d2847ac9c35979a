"""The shared test helpers hold what the tests rely on them for."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from agentrender import samples
from tests._support import attacks
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


@pytest.mark.slow
def test_a_test_run_leaves_no_temporary_folder_behind(tmp_path: Path) -> None:
    """What a test (or a docs example) makes with tempfile.mkdtemp is gone when the pytest run ends."""
    import subprocess
    import sys

    record = tmp_path / "made.txt"
    probe = tmp_path / "test_probe.py"
    probe.write_text(
        "import tempfile\nfrom pathlib import Path\n\n\n"
        "def test_makes_a_folder() -> None:\n"
        '    """A folder made the way the docs make them."""\n'
        f"    Path({str(record)!r}).write_text(tempfile.mkdtemp())\n",
        encoding="utf-8",
    )
    root = Path(__file__).parents[1]
    # the checkout's conftest, loaded as a plugin: the probe lives outside the checkout
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "conftest", str(probe)],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    made = Path(record.read_text())
    assert made.name.startswith("tmp") and not made.exists()


@pytest.mark.parametrize("files,count", [(0, 1), (1, 1), (99, 2), (100, 2), (101, 2), (7, 3), (2400, 2)])
def test_the_hostile_files_are_dealt_among_children_evenly_and_their_outcomes_come_back_in_order(
    files: int, count: int
) -> None:
    """Each child takes every count-th file, none more than one over another; the outcomes come back in order."""
    paths = [Path(f"f{n}") for n in range(files)]
    shares = attacks._shares(paths, count)
    assert len(shares) == count and sorted(path for share in shares for path in share) == sorted(paths)
    assert max(map(len, shares)) - min(map(len, shares)) <= 1
    outcomes = [[attacks.Outcome(path=str(path)) for path in share] for share in shares]
    assert [outcome.path for outcome in attacks._in_turn(outcomes)] == list(map(str, paths))


def test_the_files_are_shared_among_as_many_children_as_cores_and_files_fill(monkeypatch: pytest.MonkeyPatch) -> None:
    """One child per core, but one for fewer than two shares' worth of files, and one under pytest-xdist."""
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    for at_least in (attacks.SHARE_AT_LEAST, attacks.SHARE_THOROUGH_AT_LEAST):
        assert [attacks._children(n, at_least) for n in (1, 2 * at_least - 1, 2 * at_least, 2400)] == [1, 1, 2, 2]
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    assert attacks._children(2400, attacks.SHARE_AT_LEAST) == 1


@pytest.mark.slow  # three child processes, two side by side: seconds
def test_a_child_that_dies_on_a_file_makes_that_its_outcome_and_another_takes_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files dealt to two children, one of which dies on its first file: that file's outcome says the process died,
    a new child takes the files after it, and every outcome comes back in the files' order."""
    files = [tmp_path / f"run-{n}.jsonl" for n in range(4)]
    for file in files:
        shutil.copyfile(samples.path("fix-failing-test"), file)
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(attacks, "SHARE_AT_LEAST", 1)
    monkeypatch.setenv("AGENTRENDER_ATTACKS_DIE_ON", str(files[1]))
    outcomes = attacks.survive(files)
    assert [outcome.path for outcome in outcomes] == list(map(str, files))
    assert outcomes[1].problems[0].startswith("the process died (70)") and not outcomes[1].loaded
    assert all(outcome.loaded and not outcome.problems for outcome in outcomes[:1] + outcomes[2:])
