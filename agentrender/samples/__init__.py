"""The bundled sample runs: realistic recorded runs to try every instrument on.

``folder()`` is where they are, ``names()`` lists them, ``path(name)`` finds one's file and
``load(name)`` reads it: data access only, no extra needed. They ship in the wheel,
so they load after a plain ``pip install`` too; the agent that records them from their
scripts is ``agentrender.agent`` (``python -m agentrender.agent.record``).

``imports_folder()`` is where the real, public conversations to import are (a call log, a
Claude Code session, ...: ``agentrender.imports`` reads them; the README beside them names
each one's source). They are kept apart from the run files, so that a folder of runs holds
only runs.
"""

from __future__ import annotations

from pathlib import Path

from agentrender.runfile import Run, load_run

__all__ = ["folder", "imports_folder", "load", "names", "path"]


def folder() -> Path:
    """The folder holding the sample run files, in an installed wheel or a source checkout."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "runs", here.parents[1] / "sample_runs"):
        if any(candidate.glob("*.jsonl")):
            return candidate
    raise FileNotFoundError(f"agentrender's sample runs are missing: neither {here / 'runs'} nor the checkout has them")


def imports_folder() -> Path:
    """The folder holding the public conversations to import, in an installed wheel or a source checkout."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "imports", here.parents[1] / "sample_imports"):
        if (candidate / "README.md").is_file():
            return candidate
    raise FileNotFoundError(
        f"agentrender's sample conversations are missing: neither {here / 'imports'} nor the checkout has them"
    )


def names() -> list[str]:
    """The names of the sample runs, sorted."""
    return sorted(file.name.removesuffix(".jsonl") for file in folder().glob("*.jsonl"))


def path(name: str) -> Path:
    """The run file of the sample ``name``; ``KeyError`` lists the names when there is no such sample."""
    file = folder() / f"{name}.jsonl"
    if not file.is_file():
        raise KeyError(f"no sample run {name!r}; the samples are: {', '.join(names())}")
    return file


def load(name: str) -> Run:
    """The sample run ``name``, loaded."""
    return load_run(path(name))
