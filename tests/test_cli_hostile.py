"""Hostile run content through every command: markup printed literally, terminal controls shown as escapes."""

from __future__ import annotations

import io
import json
import re
from dataclasses import replace
from pathlib import Path

import msgspec
import pytest

from agentrender import Decision, Observation, Step, write_run
from agentrender.cli import main
from agentrender.cli._term import clean
from agentrender.runfile import ModelCall
from tests._support.runs import HOSTILE, hostile_run

TERMINAL_HOSTILE = (
    "[bold red]markup[/bold red] [link=https://evil.example]a link[/link] :smile: "
    "\x1b[31mred\x1b[0m \x1b]8;;https://evil.example\x07osc8 link\x1b]8;;\x07 \x1b]0;new title\x07 "
    "over\rwrite back\x08\x08space \x9b31m c1 \x07bell \x00nul \x7fdel "
    "\u202eevil\u202c \u2066isolate\u2069 \u200bzero-width \U000e0041tag \ud800surrogate "
    "line\u2028separator"
)
"""Text that would restyle, move the cursor, retitle, link, rewrite or reorder a terminal if printed raw."""

EVIL = HOSTILE + TERMINAL_HOSTILE
# Every control character and invisible format character the text holds, which must not reach the output.
FORBIDDEN = sorted({c for c in EVIL if clean(c) != c and c not in "\n\t"})


def hostile_file(folder: Path) -> Path:
    """A run file whose every model- or tool-written text is hostile, with a reply for every decide rule."""
    base = hostile_run(EVIL)
    step_0, *middle, step_4 = base.steps
    steps = (
        msgspec.structs.replace(
            step_0, observation=Observation(status="error", content=(EVIL + "\n") * 20, summary=EVIL)
        ),
        *middle,
        msgspec.structs.replace(step_4, observation=Observation(content=EVIL, summary=EVIL * 3)),
        Step(
            index=5,
            decision=Decision(kind="tool_call", tool="t", reason=EVIL),
            observation=Observation(content=EVIL, summary=EVIL),
        ),
    )
    reply = base.model_calls[0].response
    run = replace(
        base,
        header={"type": "run", **base.header},
        steps=steps,
        model_calls=(*base.model_calls, ModelCall(step=9, response=reply)),
        warnings=(),
    )
    path = folder / "hostile.jsonl"
    write_run(run, path)
    with path.open("a", encoding="utf-8") as file:
        file.write(json.dumps({"type": EVIL, EVIL: EVIL}) + "\n")
    (folder / "reply.json").write_text(json.dumps(reply.to_dict()), encoding="utf-8")
    return path


COMMANDS = [
    ("show", "{run}"),
    ("show", "{run}", "--full"),
    ("show", "{run}", "--at", "3"),
    ("show", "{run}", "--json"),
    ("steps", "{run}"),
    ("steps", "{run}", "--csv"),
    ("steps", "{run}", "--json"),
    ("decide", "{run}"),
    ("decide", "{run}", "--full"),
    ("decide", "{run}", "--json"),
    ("decide", "{reply}"),
    ("check", "{run}"),
    ("check", "{run}", "--json"),
    ("context", "{run}"),
    ("keys", "{run}"),
    ("keys", "{run}", "--json"),
]

_SGR = re.compile("\x1b\\[[0-9;]*m")


@pytest.mark.parametrize("color", ["never", "always"])
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: "-".join(c).replace("{", "").replace("}", ""))
def test_hostile_text_is_printed_inert(tmp_path: Path, command: tuple[str, ...], color: str) -> None:
    """No control character from the run reaches the output; markup and emoji codes are printed literally."""
    path = hostile_file(tmp_path)
    argv = [part.format(run=path, reply=tmp_path / "reply.json") for part in command]
    out, err = io.StringIO(), io.StringIO()
    code = main([*argv, "--width", "120", "--color", color], stdout=out, stderr=err)
    assert code in (0, 1), err.getvalue()
    text = out.getvalue()
    text.encode("utf-8")  # no lone surrogate made it through
    # colour is the only escape sequence the output may hold, and only when asked for
    plain = _SGR.sub("", text)
    if color == "never":
        assert plain == text
    for character in FORBIDDEN:
        assert character not in plain, f"{character!r} reached the output of {command}"
    if "--json" in argv:
        json.loads(text)
        assert text.isascii()
    elif argv[0] != "check" and "--csv" not in argv:  # check prints no run text, only where and what
        assert "[bold red]markup[/bold red]" in plain and "[link=https://evil.example]" in plain
        assert ":smile:" in plain and "\\x1b[31mred" in plain and "\\u202eevil" in plain


def test_clean_shows_each_unsafe_character_as_a_visible_escape() -> None:
    """clean keeps text, newlines and tabs, and writes every control or invisible character as its escape."""
    assert clean("a\tb\nc [bold]") == "a\tb\nc [bold]"
    assert clean("\x1b[2J\r\x08\x9b\u202e\u2066\ufeff\ud800\U000e0041") == (
        "\\x1b[2J\\x0d\\x08\\x9b\\u202e\\u2066\\ufeff\\ud800\\U000e0041"
    )
    assert clean("one\ntwo\tthree", one_line=True) == "one\u21b5 two three"


FORMULAS = (
    '=HYPERLINK("https://evil.example","click")',
    "=cmd|' /C calc'!A0",
    "+1+1",
    "-2+3",
    "@SUM(A1)",
    "\tx",
    "\r=1",
)
"""Cells a spreadsheet would run as formulas (OWASP's CSV injection list: = + - @ tab carriage return)."""


def test_steps_csv_neutralises_every_cell_that_starts_like_a_formula(tmp_path: Path) -> None:
    """Each text cell of ``steps --csv`` that starts with = + - @ tab or carriage return starts with a ' instead, so
    a spreadsheet shows it as text; numbers and other text are written as they are."""
    csv = pytest.importorskip("csv")
    steps = tuple(
        Step(
            index=index,
            decision=Decision(kind="tool_call", tool=formula if index % 2 else "t", args={}, reason=formula),
            observation=Observation(status="ok", content="x", summary="x"),
        )
        for index, formula in enumerate(FORMULAS)
    )
    path = tmp_path / "formulas.jsonl"
    base = hostile_run("ok")
    write_run(replace(base, header={"type": "run", **base.header}, steps=steps, model_calls=(), warnings=()), path)
    out = io.StringIO()
    assert main(["steps", str(path), "--csv"], stdout=out, stderr=io.StringIO()) == 0
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert [row["reason"] for row in rows] == ["'" + clean(formula) for formula in FORMULAS]
    assert [row["tool"] for row in rows][1::2] == ["'" + clean(formula) for formula in FORMULAS[1::2]]
    assert [row["index"] for row in rows] == [str(index) for index in range(len(FORMULAS))]
    for row in rows:
        assert not any(cell.startswith(("=", "+", "-", "@", "\t", "\r")) for cell in row.values() if cell)
