"""JupyterLab on 127.0.0.1 for the browser tests: a fresh root and Jupyter setup, a server with a token, its shutdown.

``serve(folder)`` starts JupyterLab over a fresh root in ``folder`` (this interpreter's kernel,
this checkout's agentrender first on PYTHONPATH, nothing of the machine's own Jupyter setup),
yields it as a ``Lab``, and always stops it and the kernels it started. The browser tests share
one (the session's ``jupyter_lab`` fixture): ``Lab.opened(name, notebook)`` writes a notebook
into the root and gives the URL that opens it in a workspace of its own, and shuts down every
kernel when the test is done, so no test meets another's tabs or kernels.
"""

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
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests._support.browser import missing_chromium

CHECKOUT = Path(__file__).resolve().parents[2]
SERVER_START_SECONDS = 60
"""How long JupyterLab may take to answer its status API (a cold start on a busy 2-core machine)."""
LAB_CONFIG = {
    # Nothing may leave 127.0.0.1: no news feed, no update check, no PyPI extension manager.
    "LabApp": {
        "news_url": None,
        "check_for_updates_class": "jupyterlab.NeverCheckForUpdate",
        "extension_manager": "readonly",
    },
}


STEP_MS = 45_000
"""The bound on each wait in the page: loading JupyterLab, the kernel, running the cells, the widget."""


def missing_requirement() -> str | None:
    """What a JupyterLab browser test cannot run without, or ``None`` when everything is there."""
    for module, why in (
        ("playwright", "playwright is not installed (pip install '.[dev]'; the browser is Debian's chromium)"),
        ("jupyterlab", "jupyterlab is not installed (pip install '.[dev]')"),
        ("jupyterlab_widgets", "jupyterlab_widgets (the ipywidgets extension) is not installed (pip install '.[dev]')"),
        ("ipykernel", "ipykernel is not installed (pip install '.[dev]')"),
    ):
        if importlib.util.find_spec(module) is None:
            return why
    return missing_chromium()


def cleared(path: Path) -> dict[str, Any]:
    """The notebook at ``path`` with its outputs, execution counts and widget state cleared."""
    notebook: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    notebook["metadata"].pop("widgets", None)
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
    return notebook


def code_notebook(*cells: str, markdown: tuple[str, ...] = ()) -> dict[str, Any]:
    """A notebook of ``markdown`` cells, then one code cell for each of ``cells``, not yet run, for this
    environment's kernel."""

    def cell(kind: str, source: str) -> dict[str, Any]:
        made: dict[str, Any] = {"cell_type": kind, "metadata": {}, "source": source}
        if kind == "code":
            made.update(outputs=[], execution_count=None)
        return made

    return {
        "cells": [*(cell("markdown", text) for text in markdown), *(cell("code", text) for text in cells)],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def lab_root(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """An empty root folder for the notebooks, and the server's environment.

    The kernel spec is this interpreter's, so the kernel runs in the environment under test,
    and PYTHONPATH puts this checkout's agentrender first. Jupyter's config, data, runtime and
    settings folders are fresh, so nothing from the machine's own Jupyter setup takes part.
    """
    root = tmp_path / "root"
    root.mkdir()

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


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


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


@dataclass(frozen=True, slots=True)
class Lab:
    """A running JupyterLab: its base URL, token and root folder."""

    base: str
    token: str
    root: Path

    @contextmanager
    def opened(self, name: str, notebook: Mapping[str, Any]) -> Iterator[str]:
        """Write ``notebook`` into the root as ``name``; yield the URL that opens it in a workspace of its own (no
        tab of an earlier test is restored); then shut down every kernel, as a server of its own stopping would."""
        (self.root / name).write_text(json.dumps(notebook), encoding="utf-8")
        workspace = secrets.token_hex(8)
        try:
            yield f"{self.base}/lab/workspaces/{workspace}/tree/{name}?token={self.token}"
        finally:
            self.shut_down_kernels()

    def shut_down_kernels(self) -> None:
        """Delete every session and every kernel the server runs (a session's kernel goes with it)."""
        for session in self._api("GET", "/api/sessions"):
            self._api("DELETE", f"/api/sessions/{session['id']}")
        for kernel in self._api("GET", "/api/kernels"):
            self._api("DELETE", f"/api/kernels/{kernel['id']}")
        left = self._api("GET", "/api/kernels")
        assert not left, f"JupyterLab still runs kernels after shutting them down: {left}"

    def _api(self, method: str, path: str) -> Any:
        request = urllib.request.Request(
            f"{self.base}{path}", method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            body = response.read()
        return json.loads(body) if body else None


@contextmanager
def serve(tmp_path: Path) -> Iterator[Lab]:
    """JupyterLab on a free 127.0.0.1 port with a token over an empty root in ``tmp_path``."""
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
        base = f"http://127.0.0.1:{port}"
        wait_until_up(server, f"{base}/api/status?token={token}", log)
        yield Lab(base, token, root)
    finally:
        stop(server)


def open_notebook(page: Any, url: str) -> None:
    """Open the notebook at ``url`` and wait for its kernel to be idle; a kernel prompt is answered with the
    notebook's own kernel (a run-all issued while the session is being set up asks which to use)."""
    page.goto(url)
    kernel_dialog = page.locator(".jp-Dialog", has_text="Select Kernel")
    page.add_locator_handler(kernel_dialog, lambda dialog: dialog.locator(".jp-mod-accept").click())
    page.locator(".jp-Notebook").first.wait_for(state="visible")
    page.locator(".jp-StatusBar-TextItem", has_text="| Idle").first.wait_for(state="visible")


def run_all(page: Any, url: str) -> None:
    """Open the notebook at ``url`` in ``page`` (waits bounded by ``STEP_MS``) and run every cell from the Run menu."""
    page.set_default_timeout(STEP_MS)
    open_notebook(page, url)
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
