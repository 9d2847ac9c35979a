"""pytest for the whole checkout: the docs' code blocks run as tests, and what is slow is marked so.

Every Python code block of the docs (docs/**/*.md and README.md) is a test. The blocks are
collected by pytest-markdown-docs' own collector. Its ``--markdown-docs`` flag would do the
same, but would also import every test module to search its docstrings for code; the docs
are only these Markdown files, so they alone are handed to it. A block that is shown but not
meant to run is fenced as ``python notest``.

The everyday loop (``-m "not slow"``) does not import the files whose tests are all slow, and
its property tests try a tenth of their examples: it loads hypothesis' ``dev`` profile unless
``--hypothesis-profile`` names one (see ``tests/_support/examples.py``). The full suite tries
them all.
"""

from __future__ import annotations

import functools
import multiprocessing.util
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings
from pytest_markdown_docs.plugin import MarkdownTextFile

ROOT = Path(__file__).resolve().parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"


def is_doc(path: Path) -> bool:
    """True for the Markdown files whose code blocks are tests."""
    path = path.resolve()
    return path.suffix == ".md" and (path == README or DOCS in path.parents)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    # Under --markdown-docs the plugin collects these files itself; collecting them twice
    # would run every block twice.
    if parent.config.option.markdowndocs or not is_doc(file_path):
        return None
    collector: pytest.Collector = MarkdownTextFile.from_parent(parent, path=file_path)
    return collector


_HEAVY_IMPORT = re.compile(r"^(import|from) (anthropic|agentrender\.dask|dask|distributed)\b", re.MULTILINE)
_SLOW_MODULE = re.compile(rb"^pytestmark = .*\bpytest\.mark\.(slow|browser)\b", re.MULTILINE)


@functools.cache
def slow_file(path: Path) -> bool:
    """True for a file all of whose tests are ``slow``: a notebook, a test of a benchmark script, the tests that
    load Inspect AI or Dask (seconds of imports), and a module that marks itself ``slow`` or ``browser``."""
    if path.suffix == ".ipynb":
        return True
    if path.suffix != ".py" or not path.name.startswith("test_"):
        return False
    return (
        "bench" in path.stem
        or path.stem in ("test_imports_inspect", "test_dask")
        or bool(_SLOW_MODULE.search(path.read_bytes()))
    )


def everyday(config: pytest.Config) -> bool:
    """True when the run leaves the slow tests out (``-m "not slow"``, the everyday loop)."""
    return "not slow" in (config.option.markexpr or "")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """The everyday loop does not even import a file whose tests are all slow: their imports (the SDK, pyarrow,
    Inspect AI, notebooks) are seconds of its time."""
    if everyday(config) and collection_path.is_file() and slow_file(collection_path):
        return True
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test of a slow file (``slow_file``), every browser test, every docs block over the 1,000-run sweep
    or with the Anthropic SDK or Dask (a second of imports each) and every test that builds the docs site is
    ``slow``."""
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        if (
            slow_file(item.path)
            or item.get_closest_marker("browser")
            or "evaluation_sweep" in fixtures
            or "site" in fixtures
            or _HEAVY_IMPORT.search(getattr(item, "code", ""))
        ):
            item.add_marker(pytest.mark.slow)


_TEMPORARY = pytest.StashKey[tuple[str, "str | None", "str | None"]]()
_BYTECODE = pytest.StashKey[tuple[bool, "str | None"]]()


settings.register_profile("dev", max_examples=10)


def pytest_configure(config: pytest.Config) -> None:
    """The everyday loop's hypothesis profile (see the module's docstring). What the tests, the docs' examples
    and the processes they start make with ``tempfile`` goes in one folder of this run, removed when the run
    ends; pytest's own ``tmp_path`` folders stay where pytest keeps (and prunes) them."""
    if everyday(config) and config.getoption("hypothesis_profile", None) is None:
        settings.load_profile("dev")
    config.stash[_BYTECODE] = (sys.dont_write_bytecode, sys.pycache_prefix)
    if sys.dont_write_bytecode and sys.pycache_prefix is None:
        # PYTHONDONTWRITEBYTECODE keeps __pycache__ folders out of the sources, and with it every
        # run compiles the package and rewrites every test module again: 1.5 s of the everyday
        # loop. Their compiled forms go to the test cache instead, never beside the sources.
        sys.pycache_prefix = str(config.rootpath / ".pytest_cache" / "pycache")
        sys.dont_write_bytecode = False
    os.environ.setdefault("PYTEST_DEBUG_TEMPROOT", tempfile.gettempdir())
    # multiprocessing makes its own folder once and removes it at exit, after this run's is gone:
    # made now, it is in the system's temporary folder, where its own cleanup finds it.
    multiprocessing.util.get_temp_dir()
    folder = tempfile.mkdtemp(prefix="agentrender-tests-")
    config.stash[_TEMPORARY] = (folder, tempfile.tempdir, os.environ.get("TMPDIR"))
    tempfile.tempdir = folder
    os.environ["TMPDIR"] = folder


def pytest_unconfigure(config: pytest.Config) -> None:
    sys.dont_write_bytecode, sys.pycache_prefix = config.stash[_BYTECODE]
    folder, tempdir, tmpdir = config.stash[_TEMPORARY]
    tempfile.tempdir = tempdir
    if tmpdir is None:
        os.environ.pop("TMPDIR", None)
    else:
        os.environ["TMPDIR"] = tmpdir
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def evaluation_sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of 1,000 generated run files, as an evaluation sweep writes them (the Parquet guide's queries)."""
    from tests._support.sweep import write_sweep

    folder = tmp_path_factory.mktemp("evaluation-sweep") / "runs"
    write_sweep(folder, 1000)
    return folder


@pytest.fixture(scope="session")
def claude_code_sessions() -> list[Path]:
    """Three real Claude Code sessions whose runs are linked (the frames guide's sessions and sub-agents): one
    sub-agent; two launched by one step; an agent forked to write a compaction's summary, then a sub-agent."""
    real = Path(__file__).parent / "tests" / "fixtures" / "real" / "claude-code"
    return [
        real / "jessitron-claude-log" / "ff80b049-3eff-495f-b4f0-c4071d615994.jsonl",
        real / "daaain-claude-code-log" / "55550000-0000-4000-8000-000000000001.jsonl",
        real / "marot-spotter" / "258c7280-ae70-4798-800f-63464d01a85d.jsonl",
    ]
