"""The run file's JSON Schema as a writer's check: what a written run file's lines hold that it does not take."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema

from agentrender import load_run
from agentrender.runfile import json_schema

UNKNOWN_FIELD = re.compile(r"unknown field (\w+)((?:\.\w+|\[\d+\])+) kept")


def validator() -> Any:
    """A validator of one line of a run file by ``agentrender schema``, the schema itself checked first."""
    schema = json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def without(record: dict[str, Any], path: str) -> None:
    """Delete the field at ``path`` (``.tools[1].timeout_s``) from ``record``, where it has one."""
    steps = re.findall(r"\.(\w+)|\[(\d+)\]", path)
    held: Any = record
    try:
        for key, position in steps[:-1]:
            held = held[key] if key else held[int(position)]
    except (KeyError, IndexError, TypeError):
        return
    if isinstance(held, dict):
        held.pop(steps[-1][0], None)


def schema_errors(path: Path, check: Any) -> list[str]:
    """What ``check`` (``validator()``) finds in each line of the run file ``path``, as ``name:line: message``, once
    the unknown fields the loader names in its warnings are left out: a run keeps what its source held, which the
    schema, a writer's check, does not take."""
    kept: dict[int, list[str]] = {}
    carried: dict[str, list[str]] = {}  # an import's warnings, kept in the header: at lines of the file it read
    for warning in load_run(path).warnings:
        if match := UNKNOWN_FIELD.search(warning.text):
            if warning.path == str(path):
                kept.setdefault(warning.line, []).append(match[2])
            else:
                carried.setdefault(match[1], []).append(match[2])
    errors = []
    lines = [line for line in path.read_text("utf-8").splitlines() if line.strip()]
    for number, line in enumerate(lines, start=1):
        record = json.loads(line)
        for field in [*kept.get(number, ()), *carried.get(record.get("type"), ())]:
            without(record, field)
        errors += [f"{path.name}:{number}: {error.message}" for error in check.iter_errors(record)]
    return errors
