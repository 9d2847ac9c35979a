"""A plain, non-editable install ships what the checkout has: the sample runs and the live agent's recording."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("site")
    result = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target), str(ROOT)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return target


def run_installed(target: Path, code: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    # Run from a folder outside the checkout with only the installed copy first on the path.
    env = {**os.environ, "PYTHONPATH": str(target)}
    return subprocess.run([sys.executable, *code], capture_output=True, text=True, env=env, cwd=cwd)


def test_samples_load_from_a_wheel_install(installed: Path, tmp_path: Path) -> None:
    """Every bundled sample loads, without warnings, from the installed package rather than the checkout."""
    code = (
        "import json, agentrender, agentrender.samples as s; "
        "print(json.dumps({'file': agentrender.__file__, "
        "'runs': {n: [len(s.load(n).steps), len(s.load(n).warnings)] for n in s.names()}}))"
    )
    result = run_installed(installed, ["-c", code], tmp_path)
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    assert Path(found["file"]).is_relative_to(installed)
    expected = sorted(path.name.removesuffix(".jsonl") for path in (ROOT / "sample_runs").glob("*.jsonl"))
    assert sorted(found["runs"]) == expected
    assert all(steps > 0 and warnings == 0 for steps, warnings in found["runs"].values())


def test_the_cli_runs_from_a_wheel_install(installed: Path, tmp_path: Path) -> None:
    """python -m agentrender from the installed package lists the bundled samples."""
    result = run_installed(installed, ["-m", "agentrender", "samples", "--json"], tmp_path)
    assert result.returncode == 0, result.stderr
    names = [sample["name"] for sample in json.loads(result.stdout)]
    assert "fix-failing-test" in names


def test_the_live_recording_ships_in_a_wheel_install(installed: Path, tmp_path: Path) -> None:
    """The live agent's bundled recording is inside the installed package and loads like the one in the checkout."""
    code = (
        "import json; from agentrender.agent import live; from agentrender.runfile import load_run; "
        "run = load_run(live.REPLAY); "
        "print(json.dumps({'file': live.REPLAY, 'steps': len(run.steps), 'warnings': len(run.warnings)}))"
    )
    result = run_installed(installed, ["-c", code], tmp_path)
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    assert Path(found["file"]).is_relative_to(installed)
    assert Path(found["file"]).read_bytes() == (ROOT / "agentrender" / "agent" / "live_replay.jsonl").read_bytes()
    assert found["steps"] > 0 and found["warnings"] == 0


def test_the_conversations_to_import_ship_in_a_wheel_install(installed: Path, tmp_path: Path) -> None:
    """samples.imports_folder() of the installed package holds every file of sample_imports/, those of a session's
    sub-agents folder too, and they import: the Claude Code session with its sub-agent, linked."""
    session = "ff80b049-3eff-495f-b4f0-c4071d615994.jsonl"
    code = (
        "import json; from agentrender import samples; from agentrender.imports import load, load_runs; "
        "folder = samples.imports_folder(); "
        "print(json.dumps({'folder': str(folder), "
        "'files': sorted(p.relative_to(folder).as_posix() for p in folder.rglob('*') if p.is_file()), "
        "'steps': len(load(folder / 'stock-lookup.calls.jsonl').steps), "
        f"'linked': [run.links.run_ids for run in load_runs(folder / {session!r})]}}))"
    )
    result = run_installed(installed, ["-c", code], tmp_path)
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    assert Path(found["folder"]).is_relative_to(installed)
    folder = ROOT / "sample_imports"
    assert found["files"] == sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    assert found["steps"] == 4
    agent = session.removesuffix(".jsonl") + "/agent-ad106947ff439c8f3"
    assert found["linked"] == [[agent], [session.removesuffix(".jsonl")]]


def test_the_page_builds_from_a_wheel_install(installed: Path, tmp_path: Path) -> None:
    """``agentrender html`` from the installed package writes the page: its script, style and layout ship with it."""
    out = tmp_path / "run.html"
    result = run_installed(installed, ["-m", "agentrender", "html", "fix-failing-test", "-o", str(out)], tmp_path)
    assert result.returncode == 0, result.stderr
    page = out.read_text("utf-8")
    assert page.startswith("<!doctype html>") and "Content-Security-Policy" in page and "ar-payload" in page
