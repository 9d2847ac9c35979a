"""The notebooks: executed and committed with real output, checked by nbval, free of network and clock."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from nbval.plugin import get_sanitize_patterns

from agentrender import render

CHECKOUT = Path(__file__).resolve().parents[1]
NOTEBOOKS = CHECKOUT / "notebooks"
NAMES = [
    "01-explore-a-run",
    "02-the-render-contract",
    "03-decide-outcomes",
    "04-debug-a-models-view",
    "05-bring-your-own-run",
    "06-watch-a-live-agent",
]
CHECK = "nbval-check-output"
WIDGET = "application/vnd.jupyter.widget-view+json"
PNG = "image/png"
HTML = "text/html"
SVG_CHART = '<div class="ar-chart ar-chart-scroll"><svg '
# Modules whose use makes a cell depend on the network, the clock or chance.
UNSTABLE_MODULES = {
    "anthropic",
    "datetime",
    "http",
    "httpx",
    "random",
    "requests",
    "secrets",
    "socket",
    "time",
    "urllib",
    "uuid",
}


def notebook(name: str) -> dict[str, Any]:
    return dict(json.loads((NOTEBOOKS / f"{name}.ipynb").read_text(encoding="utf-8")))


def code_cells(name: str) -> list[dict[str, Any]]:
    return [cell for cell in notebook(name)["cells"] if cell["cell_type"] == "code"]


def source(cell: dict[str, Any]) -> str:
    text = cell["source"]
    return text if isinstance(text, str) else "".join(text)


def test_the_notebooks_are_the_ones_the_issues_list() -> None:
    """notebooks/ holds exactly the six teaching notebooks, in reading order."""
    assert sorted(path.stem for path in NOTEBOOKS.glob("*.ipynb")) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_every_code_cell_was_run_in_order_and_none_failed(name: str) -> None:
    """The committed notebook was executed top to bottom in one kernel, and no cell raised or wrote to stderr."""
    cells = code_cells(name)
    assert [cell["execution_count"] for cell in cells] == list(range(1, len(cells) + 1))
    for number, cell in enumerate(cells):
        for output in cell["outputs"]:
            assert output["output_type"] != "error", f"{name} code cell {number} raised: {output.get('ename')}"
            assert output.get("name") != "stderr", f"{name} code cell {number} wrote to stderr: {output['text']}"


@pytest.mark.parametrize("name", NAMES)
def test_every_cell_shows_real_output_and_every_unchecked_cell_is_a_widget_or_a_chart(name: str) -> None:
    """Every code cell after the first (setup) has committed output; nbval compares all but widgets and charts.

    A widget's output is a model id and a truncated repr: what it shows is asserted by the
    checked cells that script it, and in a browser by the end-to-end test. A chart is a PNG or
    the size chart's SVG (its words laid out by the machine's fonts), which nbval does not
    compare; its cell may also be the first to load matplotlib, whose one-off font-cache
    notice on stderr is no reason to fail.
    """
    for number, cell in enumerate(code_cells(name)):
        where = f"{name} code cell {number}"
        assert cell["outputs"] or number == 0, f"{where} has no output"
        if CHECK in cell.get("metadata", {}).get("tags", []):
            continue
        shown = [output.get("data", {}) for output in cell["outputs"]]
        assert any(WIDGET in data or PNG in data or SVG_CHART in "".join(data.get(HTML, "")) for data in shown), (
            f"{where} is not tagged {CHECK}, so nbval would not compare it, and it displays no widget or chart"
        )


@pytest.mark.parametrize("name", NAMES)
def test_no_cell_depends_on_the_network_the_clock_or_chance(name: str) -> None:
    """No code cell imports a module for the network, the time of day or randomness."""
    for number, cell in enumerate(code_cells(name)):
        for node in ast.walk(ast.parse(source(cell))):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or ""]
            else:
                continue
            for module in modules:
                assert module.split(".")[0] not in UNSTABLE_MODULES, f"{name} code cell {number} imports {module}"


@pytest.mark.parametrize("name", NAMES)
def test_every_notebook_teaches_in_prose(name: str) -> None:
    """A notebook opens with a title, is divided into sections, and has a prose cell for every two code cells."""
    cells = notebook(name)["cells"]
    assert cells[0]["cell_type"] == "markdown" and source(cells[0]).startswith("# ")
    prose = [source(cell) for cell in cells if cell["cell_type"] == "markdown"]
    assert sum(text.startswith("## ") for text in prose) >= 3
    assert 2 * len(prose) >= len(cells) - len(prose)


def test_notebook_02_prints_every_fixed_text_the_default_rendering_shows_a_model() -> None:
    """Notebook 02's checked outputs hold, printed by its code, each fixed text the contract's default rendering
    can put before a model (both nudges, the re-request, the two stand-ins, the rejection line with and without a
    summary), where it never printed the rejection line of a summary that was empty."""
    printed = "".join(
        "".join(output.get("text", ""))
        for cell in code_cells("02-the-render-contract")
        if CHECK in cell["metadata"].get("tags", [])
        for output in cell["outputs"]
    )
    texts = [
        render.NUDGE_NO_TOOL_CALL,
        render.NUDGE_TRUNCATED,
        render.INTERRUPTED_TEXT,
        render.NO_SUMMARY_TEXT,
        "(no tool call)",
        render.invalid_nudge(""),
        render.invalid_nudge("timed out").split("timed out")[0],
    ]
    assert [text for text in texts if text not in printed] == []


@pytest.mark.parametrize("name", NAMES)
def test_every_page_the_prose_sends_a_reader_to_is_in_the_checkout(name: str) -> None:
    """A Markdown file a notebook's prose names (`docs/runfile.md`) is a file of the checkout a learner can open,
    where notebook 01 sent its reader to RUNFILE.md, a spec no checkout holds."""
    named = {
        path
        for cell in notebook(name)["cells"]
        if cell["cell_type"] == "markdown"
        for path in re.findall(r"`([\w/.-]+\.md)`", source(cell))
    }
    assert [path for path in sorted(named) if not (CHECKOUT / path).is_file()] == []


def test_the_readme_test_command_runs_the_notebooks_through_nbval_in_this_environment() -> None:
    """pytest's own config collects notebooks/ with nbval, in this interpreter's kernel, with the sanitiser."""
    options = tomllib.loads((CHECKOUT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    assert "notebooks" in options["testpaths"]
    assert "--nbval-lax" in options["addopts"]
    assert "--nbval-current-env" in options["addopts"]
    assert "--nbval-sanitize-with=notebooks/nbval_sanitize.cfg" in options["addopts"]


def sanitize(text: str) -> str:
    patterns = get_sanitize_patterns((NOTEBOOKS / "nbval_sanitize.cfg").read_text(encoding="utf-8"))
    assert patterns, "nbval_sanitize.cfg has no regex/replace pairs nbval can read"
    for regex, replace in patterns:
        text = re.sub(regex, replace, text)
    return text


def test_the_sanitiser_hides_what_varies_between_runs_and_installs() -> None:
    """Widget model ids, object addresses and where the sample runs are installed all compare equal after it."""
    pairs = [
        ('{"model_id": "acd350d0cbdb4f1e9ac23b3f4e826fc3"}', '{"model_id": "0123456789abcdef0123456789abcdef"}'),
        ("<agentrender.views.View at 0x7f31194fbd90>", "<agentrender.views.View at 0x55d2c0a1e4f0>"),
        (
            "Run(path='/work/checkout/sample_runs/out-of-steps.jsonl', ...)",
            "Run(path='/usr/lib/python3.11/site-packages/agentrender/samples/runs/out-of-steps.jsonl', ...)",
        ),
        (
            "<td>/home/me/agentrender/sample_runs/fix-failing-test.jsonl</td>",
            "<td>C:/venv/Lib/site-packages/agentrender/samples/runs/fix-failing-test.jsonl</td>",
        ),
    ]
    for committed, fresh in pairs:
        assert committed != fresh
        assert sanitize(committed) == sanitize(fresh)


def test_the_sanitiser_leaves_what_the_notebooks_teach_alone() -> None:
    """Replay keys, byte counts, step ids and sample names are compared as they are."""
    kept = [
        "step 6: recorded 08268247b2a875c5…  view 08268247b2a875c5…  same: True",
        "deciding step 6: 11 messages, 18,404 bytes",
        "tool_result for=step_0: read part_0.txt (1 line)",
        "['fix-failing-test', 'flaky-build-resumed', 'malformed-replies', 'out-of-steps']",
        "dff08ece447e5610d0053fbda9c8664d5234b7c02d03303d1a2c6f9d54da8827",
    ]
    for text in kept:
        assert sanitize(text) == text


@pytest.mark.slow
def test_nbval_fails_a_checked_cell_whose_committed_output_no_longer_matches(tmp_path: Path) -> None:
    """A copy of notebook 02 with one checked output altered fails nbval on that cell, and only there."""
    original = notebook("02-the-render-contract")
    altered = None
    for number, cell in enumerate(code for code in original["cells"] if code["cell_type"] == "code"):
        streams = [output for output in cell["outputs"] if output.get("name") == "stdout"]
        if CHECK in cell["metadata"].get("tags", []) and streams and "step_0" in "".join(streams[0]["text"]):
            streams[0]["text"] = "".join(streams[0]["text"]).replace("step_0", "step_9")
            altered = number
            break
    assert altered is not None
    copy = tmp_path / "altered.ipynb"
    copy.write_text(json.dumps(original), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(CHECKOUT), os.environ.get("PYTHONPATH")]))}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", str(copy), "-p", "no:cacheprovider", "-q", "-c", "pyproject.toml"],
        cwd=CHECKOUT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1, result.stdout[-3000:]
    failed = re.findall(r"^FAILED .*::Cell (\d+)", result.stdout, flags=re.MULTILINE)
    assert failed == [str(altered)], result.stdout[-3000:]
    assert "Cell outputs differ" in result.stdout


LEGEND_SWATCH = re.compile(r'<span class="ar-block [^"]*" title="([^"]*)">([^<]*)</span>')
"""A swatch of a view's legend in a notebook's HTML (a cell's output, a widget's state): its title (a kind's
meaning) and its label."""


def strings(value: Any) -> list[str]:
    """Every string a notebook's JSON holds, at any depth (a cell's output, a widget's saved state)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in strings(item)]
    if isinstance(value, list):
        return [text for item in value for text in strings(item)]
    return []


@pytest.mark.parametrize("name", NAMES)
def test_every_legend_in_a_notebook_says_the_kinds_words_of_today(name: str) -> None:
    """Each swatch of a view's legend a notebook holds (its outputs, its widgets' saved state) is titled with its
    kind's meaning as ``BLOCK_KINDS`` says it now (``views.html``'s legend): a notebook executed before the words
    changed would show a reader the old ones."""
    import html

    from agentrender.views import BLOCK_KINDS, BLOCK_LABELS

    meanings = {label: BLOCK_KINDS[kind] for kind, label in BLOCK_LABELS.items()}
    seen = {
        (html.unescape(label), html.unescape(title))
        for text in strings(notebook(name))
        if "ar-block" in text
        for title, label in LEGEND_SWATCH.findall(text)
    }
    for label, title in seen:
        assert label in meanings and title == meanings[label], (name, label, title)
