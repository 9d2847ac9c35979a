"""Real tools working on a scratch folder, for the sample runs and for trying the driver.

Every path is relative to the folder and may not leave it; every message names paths as
the model gave them, never the folder's own location, so a run records the same bytes
wherever it is made.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from collections.abc import Collection
from pathlib import Path
from typing import Any

import msgspec

from agentrender._types import Observation
from agentrender._words import plural
from agentrender.agent.driver import Tool

__all__ = ["scratch_tools"]


def _inside(root: Path, relative: str) -> Path:
    path = (root / relative).resolve()
    if path != root and root not in path.parents:
        raise ValueError(f"{relative!r} is outside the working folder")
    return path


def _count(n: int, what: str) -> str:
    plural = what + ("es" if what.endswith("ch") else "s")
    return f"{n} {what}" if n == 1 else f"{n} {plural}"


def _missing(relative: str) -> Observation:
    return Observation(status="error", content=f"no such file: {relative}", summary=f"{relative} does not exist")


_PATH = {"type": "string", "description": "A path relative to the working folder."}


def scratch_tools(root: Path, *, check: str = "check.py", unsummarised: Collection[str] = ()) -> list[Tool]:
    """read_file, write_file, list_dir, search, run_check and finish, working on the folder ``root``.

    ``run_check`` runs the folder's ``check`` script with this Python. Every tool writes a
    summary, but those named in ``unsummarised`` write none for a result that is ``ok``: outside
    the window it then shows ``(no summary)``, as a careless agent's tool would.
    """
    root = root.resolve()

    def read_file(args: dict[str, Any]) -> Observation:
        relative = args["path"]
        path = _inside(root, relative)
        if not path.is_file():
            return _missing(relative)
        text = path.read_text(encoding="utf-8")
        size = len(text.encode("utf-8"))
        return Observation(
            content=text, summary=f"read {relative} ({_count(text.count(chr(10)), 'line')}, {size} bytes)"
        )

    def write_file(args: dict[str, Any]) -> Observation:
        relative, text = args["path"], args["content"]
        path = _inside(root, relative)
        path.parent.mkdir(parents=True, exist_ok=True)
        existed = path.exists()
        path.write_text(text, encoding="utf-8")
        did = "replaced" if existed else "created"
        lines = _count(text.count("\n"), "line")
        return Observation(content=f"{did} {relative} ({lines})", summary=f"{did} {relative} ({lines})")

    def list_dir(args: dict[str, Any]) -> Observation:
        relative = args.get("path", ".")
        path = _inside(root, relative)
        if not path.is_dir():
            return _missing(relative)
        names = sorted(child.name + ("/" if child.is_dir() else "") for child in path.iterdir())
        entries = plural(len(names), "entry", "entries")
        return Observation(content="\n".join(names), summary=f"listed {relative} ({entries})")

    def search(args: dict[str, Any]) -> Observation:
        pattern, relative = args["pattern"], args.get("path", ".")
        base = _inside(root, relative)
        hits = []
        for file in sorted(p for p in base.rglob("*") if p.is_file()):
            for number, line in enumerate(file.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
                if pattern in line:
                    hits.append(f"{file.relative_to(root).as_posix()}:{number}: {line.strip()}")
        summary = f"{_count(len(hits), 'match')} for {pattern!r}"
        return Observation(content="\n".join(hits) or "no matches", summary=summary)

    def run_check(args: dict[str, Any]) -> Observation:
        done = subprocess.run(
            [sys.executable, "-B", check], cwd=root, capture_output=True, text=True, timeout=120, check=False
        )
        output = (done.stdout + done.stderr).replace(str(root), ".")
        last = output.strip().splitlines()[-1] if output.strip() else f"exit status {done.returncode}"
        return Observation(status="ok" if done.returncode == 0 else "error", content=output, summary=last)

    def finish(args: dict[str, Any]) -> Observation:
        return Observation(content=f"finished: {args['summary']}", summary="finished")

    tools = [
        Tool(
            name="read_file",
            description="Read a UTF-8 text file.",
            input_schema={"type": "object", "properties": {"path": _PATH}, "required": ["path"]},
            run=read_file,
            read_only=True,
        ),
        Tool(
            name="write_file",
            description="Create or replace a text file with the given content.",
            input_schema={
                "type": "object",
                "properties": {"path": _PATH, "content": {"type": "string"}},
                "required": ["path", "content"],
            },
            run=write_file,
        ),
        Tool(
            name="list_dir",
            description="List a folder's entries (folders end with /).",
            input_schema={"type": "object", "properties": {"path": _PATH}},
            run=list_dir,
            read_only=True,
        ),
        Tool(
            name="search",
            description="Find lines containing a literal text, in every file under a folder.",
            input_schema={
                "type": "object",
                "properties": {"pattern": {"type": "string", "minLength": 1}, "path": _PATH},
                "required": ["pattern"],
            },
            run=search,
            read_only=True,
        ),
        Tool(
            name="run_check",
            description=f"Run the project's checks ({check}) and report what failed.",
            input_schema={"type": "object", "properties": {}},
            run=run_check,
            read_only=True,
        ),
        Tool(
            name="finish",
            description="Finish the task, saying what was done. Call it only when the checks pass.",
            input_schema={
                "type": "object",
                "properties": {"summary": {"type": "string", "minLength": 1}},
                "required": ["summary"],
            },
            run=finish,
            terminal=True,
        ),
    ]
    unknown = set(unsummarised) - {tool.name for tool in tools}
    if unknown:
        raise ValueError(f"scratch_tools: unsummarised names no tool of these: {', '.join(sorted(unknown))}")
    return [_unsummarised(tool) if tool.name in unsummarised else tool for tool in tools]


def _unsummarised(tool: Tool) -> Tool:
    run = tool.run

    def without_summary(args: Any) -> Observation:
        observation = run(args)
        return msgspec.structs.replace(observation, summary="") if observation.status == "ok" else observation

    return dataclasses.replace(tool, run=without_summary)
