"""01-explore-a-run end to end: JupyterLab on 127.0.0.1, headless Chromium runs every cell and moves the step slider."""

from __future__ import annotations

import importlib.util
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests._support.browser import CHROMIUM, FLAGS, missing_chromium, require

pytestmark = pytest.mark.browser

CHECKOUT = Path(__file__).resolve().parents[1]
NOTEBOOK = CHECKOUT / "notebooks" / "01-explore-a-run.ipynb"
ARTIFACTS = Path(__file__).parent / "artifacts"
SERVER_START_SECONDS = 60
"""How long JupyterLab may take to answer its status API (a cold start on a busy 2-core machine)."""
STEP_MS = 45_000
"""The bound on each wait in the page: loading JupyterLab, the kernel, running the cells, the widget."""
LAB_CONFIG = {
    # Nothing may leave 127.0.0.1: no news feed, no update check, no PyPI extension manager.
    "LabApp": {
        "news_url": None,
        "check_for_updates_class": "jupyterlab.NeverCheckForUpdate",
        "extension_manager": "readonly",
    },
}


def missing_requirement() -> str | None:
    """What the test cannot run without, or ``None`` when everything is there."""
    for module, why in (
        ("playwright", "playwright is not installed (pip install '.[dev]'; the browser is Debian's chromium)"),
        ("jupyterlab", "jupyterlab is not installed (pip install '.[dev]')"),
        ("jupyterlab_widgets", "jupyterlab_widgets (the ipywidgets extension) is not installed (pip install '.[dev]')"),
        ("ipykernel", "ipykernel is not installed (pip install '.[dev]')"),
    ):
        if importlib.util.find_spec(module) is None:
            return why
    if missing_chromium() is not None:
        return missing_chromium()
    return None


@pytest.fixture
def requirements() -> None:
    """The browser, JupyterLab, its widgets extension and ipykernel are there (see ``require``)."""
    require(missing_requirement())


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def lab_root(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A root folder holding a copy of the notebook with its outputs cleared, and the server's environment.

    The kernel spec is this interpreter's, so the kernel runs in the environment under test,
    and PYTHONPATH puts this checkout's agentrender first. Jupyter's config, data, runtime and
    settings folders are fresh, so nothing from the machine's own Jupyter setup takes part.
    """
    root = tmp_path / "root"
    root.mkdir()
    notebook = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    notebook["metadata"].pop("widgets", None)
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
    (root / NOTEBOOK.name).write_text(json.dumps(notebook), encoding="utf-8")

    jupyter_path = tmp_path / "share" / "jupyter"
    kernel = jupyter_path / "kernels" / "python3"
    kernel.mkdir(parents=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (this environment)",
        "language": "python",
    }
    (kernel / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")
    config = tmp_path / "config"
    config.mkdir()
    (config / "jupyter_lab_config.json").write_text(json.dumps(LAB_CONFIG), encoding="utf-8")
    # The user's answer to "get notified about Jupyter news?", given in advance: no toast asks it.
    notification = tmp_path / "lab-settings" / "@jupyterlab" / "apputils-extension"
    notification.mkdir(parents=True)
    (notification / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}), encoding="utf-8"
    )

    env = dict(os.environ)
    env.update(
        PYTHONPATH=os.pathsep.join(filter(None, [str(CHECKOUT), os.environ.get("PYTHONPATH", "")])),
        JUPYTER_PATH=str(jupyter_path),
        JUPYTER_CONFIG_DIR=str(config),
        JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(tmp_path / "lab-settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "lab-workspaces"),
        JUPYTER_PLATFORM_DIRS="1",
    )
    return root, env


def wait_until_up(server: subprocess.Popen[bytes], url: str, log: Path) -> None:
    deadline = time.monotonic() + SERVER_START_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"JupyterLab exited with {server.returncode} before answering:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.5)
    pytest.fail(f"JupyterLab did not answer {SERVER_START_SECONDS}s after starting:\n{log.read_text()[-3000:]}")


def stop(server: subprocess.Popen[bytes]) -> None:
    """Stop the server and the kernels it started (its own process group), politely and then not."""
    if server.poll() is not None:
        return
    os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(timeout=15)


@pytest.fixture
def jupyterlab(requirements: None, tmp_path: Path) -> Iterator[str]:
    """A JupyterLab server on a free 127.0.0.1 port with a token; yields the notebook's URL; always shut down."""
    root, env = lab_root(tmp_path)
    port, token = free_port(), secrets.token_hex(16)
    log = tmp_path / "jupyterlab.log"
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
    ]
    if os.geteuid() == 0:  # CI containers run as root, which JupyterLab refuses unless told
        command.append("--allow-root")
    with log.open("wb") as output:
        server = subprocess.Popen(
            command, cwd=root, env=env, stdout=output, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        wait_until_up(server, f"http://127.0.0.1:{port}/api/status?token={token}", log)
        yield f"http://127.0.0.1:{port}/lab/tree/{NOTEBOOK.name}?token={token}"
    finally:
        stop(server)


def visible_text(page: Any, selector: str) -> str:
    return str(page.locator(f"{selector}:visible").first.inner_text(timeout=STEP_MS))


def test_explore_a_run_runs_in_jupyterlab_and_its_step_slider_moves_the_conversation(jupyterlab: str) -> None:
    """Run-all in JupyterLab renders the explorer at the failing step; the slider's End key brings in summaries."""
    from playwright.sync_api import expect, sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1400})
            page.set_default_timeout(STEP_MS)
            page.goto(jupyterlab)
            # A run-all issued while the session is still being set up asks which kernel to use:
            # the one offered is the notebook's own, this environment's.
            kernel_dialog = page.locator(".jp-Dialog", has_text="Select Kernel")
            page.add_locator_handler(kernel_dialog, lambda dialog: dialog.locator(".jp-mod-accept").click())
            page.locator(".jp-Notebook").first.wait_for(state="visible")
            page.locator(".jp-StatusBar-TextItem", has_text="| Idle").first.wait_for(state="visible")

            page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
            page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()

            header = page.locator(".jp-OutputArea .agentrender .ar-header:visible").first
            expect(header).to_contain_text("deciding step 3", timeout=STEP_MS)
            result = page.locator(".jp-OutputArea .ar-turn .ar-result:visible")
            summary = page.locator(".jp-OutputArea .ar-turn .ar-summary:visible")
            expect(result.first).to_be_visible(timeout=STEP_MS)
            assert summary.count() == 0, "deciding step 3, every result is inside the window"
            before = visible_text(page, ".jp-OutputArea .agentrender:has(.ar-header)")

            handle = page.locator(".jp-OutputArea .widget-slider .noUi-handle:visible").first
            handle.scroll_into_view_if_needed()
            handle.focus()
            for _ in range(6):  # from the view at step 3 to the last stop, step 9
                handle.press("ArrowRight")
            expect(header).to_contain_text("deciding step 9", timeout=STEP_MS)
            expect(summary.first).to_be_visible(timeout=STEP_MS)
            expect(result.first).to_be_visible(timeout=STEP_MS)
            after = visible_text(page, ".jp-OutputArea .agentrender:has(.ar-header)")
            assert after != before
            assert summary.count() == 3, "after step 8, the first three of nine rendered steps are outside the window"

            no_errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
            assert no_errors.count() == 0, no_errors.first.inner_text()
            assert page.get_by_text("Jupyter news").count() == 0, "the news prompt was answered in the settings"
            page.locator(".jp-OutputArea .widget-tab:visible").first.scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / "notebook-01-jupyterlab.png"))
        finally:
            browser.close()
