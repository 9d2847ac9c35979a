"""The core's public face and its promise to import the standard library and msgspec, its one base dependency."""

import subprocess
import sys

import pytest

import agentrender
from agentrender import render

THIRD_PARTY = ("pandas", "ipywidgets", "rich", "anthropic", "numpy", "pydantic", "tqdm", "matplotlib")


@pytest.mark.slow
def test_core_imports_only_the_standard_library_and_msgspec() -> None:
    """Importing agentrender and agentrender.render in a fresh process loads no third-party package but msgspec."""
    code = (
        "import sys; import agentrender, agentrender.render, agentrender.runfile; "
        f"print(','.join(m for m in {THIRD_PARTY!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
    stdlib = set(sys.stdlib_module_names)
    code = (
        "import sys; before = set(sys.modules); import agentrender, agentrender.render; "
        "print('\\n'.join(sorted(set(sys.modules) - before)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = {name.split(".")[0] for name in out.stdout.split()}
    # msgspec itself imports typing_extensions when another package installed it; a base install has none
    assert loaded - stdlib - {"agentrender", "typing_extensions"} == {"msgspec"}


def test_all_is_sorted_and_complete() -> None:
    """Each public module's __all__ is sorted and names only what the module defines."""
    for module in (agentrender, render):
        assert list(module.__all__) == sorted(module.__all__, key=lambda n: (not n.isupper(), n))
        for name in module.__all__:
            assert hasattr(module, name), name


def test_contract_names_are_importable() -> None:
    """Every name CONTRACT.md fixes is importable from where it says."""
    for name in ("Step", "Decision", "Observation", "StepInput", "ContentBlock", "Message", "ModelResponse"):
        assert name in agentrender.__all__
    for name in ("Options", "messages", "decide", "args", "truncate", "default_observation", "replay_key"):
        assert name in render.__all__
