"""Optional dependencies: one message, ending in the pip line, for every extra and every layer that needs one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentrender._extras import require

ROOT = Path(__file__).resolve().parents[1]


def test_require_returns_the_module_when_it_is_installed() -> None:
    """require gives back the imported module itself."""
    assert require("frame", "json.decoder") is sys.modules["json.decoder"]


def test_require_names_the_feature_the_package_and_the_pip_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """A missing module raises ImportError naming what needs it, its top-level package and the exact pip line,
    chained from the original error."""
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError) as caught:
        require("frame", "pandas")
    assert str(caught.value) == (
        "agentrender.frame needs pandas, which is not installed: pip install 'agentrender[frame]'"
    )
    assert isinstance(caught.value.__cause__, ImportError)


def test_require_names_a_given_feature() -> None:
    """feature replaces the default agentrender.<extra> as what needs the module."""
    with pytest.raises(ImportError) as caught:
        require("agent", "agentrender_no_such_package.sub", feature="the live agent")
    assert str(caught.value) == (
        "the live agent needs agentrender_no_such_package, which is not installed: pip install 'agentrender[agent]'"
    )
    assert isinstance(caught.value.__cause__, ModuleNotFoundError)


# Each optional layer, used as a user would use it with one package of its extra missing.
LAYERS = {
    "frame": (
        "pandas",
        "import agentrender.frame as frame\nframe.runs_frame([], progress=False)",
    ),
    "dask": ("dask", "from agentrender.dask import read_runs\nread_runs('runs/*.jsonl')"),
    "notebook": ("ipywidgets", "import agentrender.notebook"),
    "cli": (
        "rich",
        "from agentrender.cli import main\nsys.exit(main(['samples']))",
    ),
    "anthropic": (
        "anthropic",
        "from agentrender.adapters.anthropic import AnthropicModel\nAnthropicModel()",
    ),
    "agent": (
        "jsonschema",
        "import runpy\nsys.argv = ['live', '--out', 'live-run.jsonl']\n"
        "runpy.run_module('agentrender.agent.live', run_name='__main__')",
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("extra", sorted(LAYERS))
def test_each_layer_names_its_extra_when_a_package_is_missing(extra: str, tmp_path: Path) -> None:
    """With a package of its extra missing, using the layer fails with the one message: it names the package
    and ends in the pip line of that extra."""
    package, use = LAYERS[extra]
    script = f"import sys\nsys.modules[{package!r}] = None\n" + use
    env = {key: value for key, value in os.environ.items() if key != "ANTHROPIC_API_KEY"}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120, check=False
    )
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.endswith(f"needs {package}, which is not installed: pip install 'agentrender[{extra}]'"), last
