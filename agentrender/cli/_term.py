"""The terminal: rich, imported here and nowhere else, and text made safe to print.

Everything a run holds was written by a model or a tool and is untrusted. It reaches the
terminal only as ``rich.text.Text`` built from ``clean(...)``: never as markup (the console
parses none), never with an unsafe character left in it. ``clean`` shows every character of
``agentrender._text``'s one set (controls, bidirectional overrides, invisible format and tag
characters, lone surrogates, ...) as a visible escape (``\\x1b``, ``\\u202e``), so no text can
move the cursor, open a link, rewrite a line or reorder or hide what is around it.
"""

from __future__ import annotations

import contextlib
import copy
import os
import sys
from collections.abc import Callable, Iterable
from typing import IO, TYPE_CHECKING, Any

from agentrender._extras import require
from agentrender._text import escape_terminal
from agentrender.views import BLOCK_LABELS

if TYPE_CHECKING:
    from rich import box
    from rich.cells import cell_len
    from rich.console import Console, ConsoleOptions, Group, RenderResult
    from rich.highlighter import JSONHighlighter
    from rich.measure import Measurement
    from rich.padding import Padding
    from rich.panel import Panel
    from rich.rule import Rule
    from rich.segment import Segment
    from rich.table import Table
    from rich.text import Text
else:
    box = require("cli", "rich.box")
    cell_len = require("cli", "rich.cells").cell_len
    _console = require("cli", "rich.console")
    Console, ConsoleOptions, Group, RenderResult = (
        _console.Console,
        _console.ConsoleOptions,
        _console.Group,
        _console.RenderResult,
    )
    JSONHighlighter = require("cli", "rich.highlighter").JSONHighlighter
    Measurement = require("cli", "rich.measure").Measurement
    Padding = require("cli", "rich.padding").Padding
    Panel = require("cli", "rich.panel").Panel
    Rule = require("cli", "rich.rule").Rule
    Segment = require("cli", "rich.segment").Segment
    Table = require("cli", "rich.table").Table
    Text = require("cli", "rich.text").Text

__all__ = [
    "KIND_STYLES",
    "TAGS",
    "AtWidth",
    "Console",
    "ConsoleOptions",
    "Copyable",
    "Fitted",
    "Group",
    "Gutter",
    "Labelled",
    "Padding",
    "Panel",
    "RenderResult",
    "Rule",
    "Table",
    "Text",
    "box",
    "cell_len",
    "clean",
    "json_text",
    "make_console",
    "print_all",
]


def clean(text: str, *, one_line: bool = False) -> str:
    """``text`` safe for a terminal: every unsafe character (``agentrender._text``) shown as a visible escape.

    With ``one_line``, newlines are shown as ``↵`` and tabs as spaces, for a table cell.
    """
    return escape_terminal(text, one_line=one_line)


# One style per kind of block, following the HTML's colours in the terminal's own palette,
# so a light or a dark theme keeps them readable.
KIND_STYLES: dict[str, str] = {
    "opening": "bright_black",
    "reason": "bright_black",
    "no_call": "bright_black italic",
    "tool_use": "blue",
    "result": "green",
    "cut": "green",
    "summary": "yellow",
    "no_summary": "yellow italic",
    "nudge_no_tool_call": "magenta",
    "nudge_truncated": "magenta",
    "nudge_invalid": "magenta",
    "interrupted": "dark_orange",
    "hook": "bright_black",
    "as_sent": "grey70",
    "compaction": "bold bright_blue",
}
"""The colour of each kind of block (``agentrender.views.BLOCK_KINDS``)."""

TAGS: dict[str, str] = BLOCK_LABELS
"""The label of each kind of block: ``views.BLOCK_LABELS``, the words the HTML and the widgets use."""

FAILED = "bold red"
SKIPPED = "bright_black"
HIDDEN = "red"
MUTED = "bright_black"
INHERITED = "dim"
"""A step the run holds but did not decide (``Run.inherited_steps``): dimmed, in whatever colour its row has."""
AGREE = "bold green"
DISAGREE = "bold red"


class Fitted:
    """A table laid out for the width it is printed at, with none of its columns' information lost.

    rich gives a ratio column what the others leave, and where they leave too little it narrows
    every column alike, to nothing if need be. Here each column is first as wide as its widest
    cell; where that leaves the ratio columns less than their ``min_width``, the columns of
    ``narrow`` give way in turn, each down to ``floor`` or its header's width (their cells are cut
    where a cell says so; one that folds a word longer than it, over lines) and a column of words
    that wrap down to its longest word, so each column keeps its cells' words. A ratio column
    among them gives way below its ``min_width`` (its cells cut), so that the columns after it keep
    theirs; where even that is too wide, the column ``leave`` is left out, and ``left_out`` (given
    the width, and the least width that keeps it) is said under the table, and then the table's edges, before the
    columns after it in ``narrow`` are cut.
    """

    def __init__(
        self,
        table: Table,
        narrow: tuple[int, ...],
        floor: int = 4,
        *,
        leave: int | None = None,
        left_out: Callable[[int, int], str] | None = None,
    ) -> None:
        self.table = table
        self.narrow = narrow
        self.floor = floor
        self.leave = leave
        self.left_out = left_out
        self.caps = [(column.max_width, column.min_width) for column in table.columns]
        """Each column's own cap and least width: a layout narrows the columns it is given, and each layout starts
        again from these."""

    def fits(self, console: Console, options: ConsoleOptions) -> bool:
        """Whether the table fits ``options``' width with no column given way: each as wide as its widest cell, a
        ratio column as its ``min_width``."""
        widths = self._widths(console, options)
        return self._over(widths, range(len(widths)), self.table.show_edge, options.max_width) <= 0

    def _widths(self, console: Console, options: ConsoleOptions) -> list[int]:
        """Each column's width before any gives way (its caps as given back from a layout at another width)."""
        widths = []
        for column, (cap, least) in zip(self.table.columns, self.caps, strict=True):
            column.max_width, column.min_width = cap, least  # what a layout at another width narrowed is given back
            if column.ratio:
                widths.append(column.min_width or 1)
                continue
            cells = [column.header, *column.cells]
            widest = max(Measurement.get(console, options, cell).maximum for cell in cells)
            widths.append(min(widest, column.max_width or widest))
        return widths

    def _over(self, widths: list[int], kept: Iterable[int], edges: bool, width: int) -> int:
        """How much wider than ``width`` the columns ``kept`` are at ``widths``, with the table's edges or not."""
        kept = list(kept)
        _, right, _, left = self.table.padding
        # the edges, a divider between two columns, and each column's padding but at the table's edges
        extra = (2 if edges else 0) + len(kept) - 1 + (left + right) * len(kept)
        if not self.table.pad_edge:
            extra -= left + right
        return sum(widths[index] for index in kept) + extra - width

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        table, columns = self.table, self.table.columns
        widths = self._widths(console, options)
        kept = list(range(len(columns)))
        edges = table.show_edge
        keeps = 0  # the least width that keeps the column ``leave``, where it is left out

        def over() -> int:
            return self._over(widths, kept, edges, options.max_width)

        for index in self.narrow:
            if over() <= 0:
                break
            column = columns[index]
            least = max(self.floor, Measurement.get(console, options, column.header).minimum)
            if not column.ratio and not column.no_wrap and column.overflow != "fold":  # words that wrap: to the longest
                least = max([least, *(Measurement.get(console, options, cell).minimum for cell in column.cells)])
            given = max(least, widths[index] - over())
            widths[index] = given
            if column.ratio:
                column.min_width = given
            else:
                column.max_width = given
            if index == self.leave and over() > 0:
                # every column before it is at its least, and it at its own: what is still over is what it needs
                keeps = options.max_width + over()
                kept.remove(index)
                if over() > 0:
                    edges = False
        if len(kept) == len(columns) and edges == table.show_edge:
            yield table
            return
        shown = copy.copy(table)
        shown.columns = [columns[index] for index in kept]
        shown.show_edge = edges
        yield shown
        if self.left_out is not None and self.leave not in kept:
            yield Text(self.left_out(options.max_width, keeps), style=MUTED)


class Gutter:
    """A renderable with a coloured bar down its left side: a block of the conversation, marked by kind."""

    def __init__(self, inner: Any, style: str, bar: str = "\u258c ", *, first: str | None = None) -> None:
        self.inner = inner
        self.style = style
        self.bar = bar
        self.first = bar if first is None else first
        """The bar of the first line (a bullet, with ``bar`` the hanging indent under it)."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = max(1, options.max_width - max(len(self.bar), len(self.first)))
        lines = console.render_lines(self.inner, options.update(width=width), pad=False)
        style = console.get_style(self.style)
        for number, line in enumerate(lines):
            yield Segment(self.first if number == 0 else self.bar, style)
            yield from line
            yield Segment.line()


class Labelled:
    """A block's label and its one short line of body: on one line, the label first, when both fit the width; else
    the label on its own line(s) and the body under it, as a longer body is. A body never comes before its label, and
    a label never ends mid-line after a body that wrapped."""

    def __init__(self, label: Text, body: Text) -> None:
        self.label = label
        self.body = body

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.label.cell_len + 2 + self.body.cell_len <= options.max_width:
            line = self.label.copy()
            line.append("  ")
            line.append_text(self.body)
            yield line
            return
        yield self.label
        yield self.body


class Copyable:
    """A line that hands the user something to copy (a command, a path, a key), whole: ``lead`` (the words before it,
    ``indent`` first), ``value``, then ``tail``, on one line where they fit the width; else the lead and the value where
    they fit, or the lead then the value on a line of its own (after ``indent`` where it fits there, else at the
    margin); and the tail under them, the words each wrapped by rich and hanging under ``indent`` (what the tail begins
    with up to its first space, a comma, kept after the value).

    The value itself is never wrapped, cut or indented inside by rich: a value longer than the line goes on past the
    width, for the terminal to wrap as it wraps any long line, so that a user who selects it (or a program that reads
    the output) gets it as it was printed, on one line. ``print_all`` prints it so; it must be printed by it, at the
    top of what a command prints: nothing that lays it out inside a narrower box (a panel, a gutter, a table cell)
    can keep it whole.
    """

    def __init__(self, lead: Text, value: str, tail: Text | None = None, *, indent: str = "", style: str = "") -> None:
        self.lead = lead
        self.value = value
        self.tail = tail if tail is not None else Text()
        self.indent = indent
        self.style = style

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        line = self.lead.copy()
        line.append(self.value, style=self.style)
        if line.cell_len + self.tail.cell_len <= width:
            line.append_text(self.tail)
            yield _unwrapped(line)
            return
        # what the tail begins with up to its first space (the comma of "run ID, is ...") stays after the value, where
        # a line of its own would begin with it; the spaces that part the rest from the value are no part of its line
        plain = self.tail.plain
        glued = next((at for at, char in enumerate(plain) if char.isspace()), len(plain))
        tail = self.tail[glued:]
        tail = tail[len(tail.plain) - len(tail.plain.lstrip()) :]
        line.append_text(self.tail[:glued])
        if line.cell_len <= width:
            yield _unwrapped(line)
        else:
            lead = self.lead.copy()
            lead.rstrip()
            if lead:
                yield Gutter(lead, "", " " * len(self.indent), first="")
            value = Text(self.value, style=self.style) + self.tail[:glued]
            indent = self.indent if len(self.indent) + value.cell_len <= width else ""
            yield _unwrapped(Text(indent) + value)
        if tail:
            yield Gutter(tail, "", self.indent)


class AtWidth:
    """What is printed laid out for the width it is printed at: ``lay(console, options)`` gives the renderables (one
    layout where the line has room for what must be whole, another where it has not). ``print_all`` prints them as it
    prints a ``Group``'s, so that a ``Copyable`` among them is printed whole."""

    def __init__(self, lay: Callable[[Console, ConsoleOptions], Iterable[Any]]) -> None:
        self.lay = lay

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield from self.lay(console, options)


def _unwrapped(line: Text) -> Text:
    """``line`` as rich prints it whole: not wrapped, not cut (``print_all`` does not crop it)."""
    line.no_wrap, line.overflow, line.end = True, "ignore", "\n"
    return line


def print_all(console: Console, renderables: Iterable[Any]) -> None:
    """Print each of ``renderables`` (a ``Group``'s one by one, an ``AtWidth``'s as laid out at the console's width):
    a ``Copyable`` not cut at the console's width, so that its value reaches the terminal whole; everything else as
    ``console.print`` prints it."""
    for renderable in renderables:
        if isinstance(renderable, Group):
            print_all(console, renderable.renderables)
        elif isinstance(renderable, AtWidth):
            print_all(console, renderable.lay(console, console.options))
        else:
            console.print(renderable, crop=not isinstance(renderable, Copyable))


_highlight_json = JSONHighlighter()


def json_text(encoded: str) -> Text:
    """JSON text, cleaned, with rich's JSON colours."""
    text = Text(clean(encoded))
    _highlight_json.highlight(text)
    return text


def screen_environ(err: IO[str] | None) -> dict[str, str]:
    """The environment with ``COLUMNS`` and ``LINES`` left out where one is set to what is not a plain positive
    number (``wide``, ``0``, a superscript ``²``), each said in one line on ``err``: rich reads them, and took
    ``²`` for a number it then could not read."""
    environ = dict(os.environ)
    for name, unit in (("COLUMNS", "columns"), ("LINES", "lines")):
        value = environ.get(name, "")
        if value and not (value.isascii() and value.isdigit() and int(value) > 0):
            del environ[name]
            if err is not None:
                print(f"agentrender: {name}={clean(repr(value), one_line=True)} is not a number of {unit}; ignored",
                      file=err)  # fmt: skip
    return environ


def _terminal_size(file: IO[str]) -> tuple[int, int]:
    """The columns and lines of the terminal ``file``, or else of the first of stdin, stdout and stderr that is one
    (as rich asks), or 80 by 25."""
    descriptors: list[int] = []
    with contextlib.suppress(AttributeError, ValueError, OSError):
        descriptors.append(file.fileno())
    for descriptor in (*descriptors, 0, 1, 2):
        with contextlib.suppress(ValueError, OSError):
            size = os.get_terminal_size(descriptor)
            if size.columns > 0 and size.lines > 0:
                return size.columns, size.lines
    return 80, 25


class _Console(Console):
    """rich's console, but for a reader that went away (``| head``): rich's ``on_broken_pipe`` exits 1, before the
    output it could not write was all in the pipe; here it raises the ``BrokenPipeError`` a plain write raises, which
    ``cli.main`` ends with 0, one end for every command and output size."""

    def on_broken_pipe(self) -> None:
        self.quiet = True  # nothing more is written to the pipe the reader closed
        raise BrokenPipeError


def make_console(
    file: IO[str] | None = None, *, width: int | None = None, color: str = "auto", err: IO[str] | None = None
) -> Console:
    """A console that parses no markup, no emoji codes and highlights nothing on its own.

    ``color`` is ``auto`` (colour on a terminal, none when piped; ``NO_COLOR`` is honoured),
    ``always`` or ``never``. ``width`` defaults to the terminal's; piped, to ``COLUMNS`` where that is a plain
    positive number of columns (as rich and most tools read it), or 100. A ``COLUMNS`` or ``LINES`` that is not
    one is ignored, and said on ``err`` (``screen_environ``).
    """
    file = file if file is not None else sys.stdout
    is_terminal = hasattr(file, "isatty") and file.isatty()
    environ = screen_environ(err)
    if width is None and not is_terminal:
        width = int(environ.get("COLUMNS") or 100)
    height: int | None = None
    if any(os.environ.get(name) != environ.get(name) for name in ("COLUMNS", "LINES")):
        # rich reads COLUMNS and LINES from os.environ unless it is given both sizes: here it is, the terminal's
        # own where the environment's is ignored, fixed from now on (a resized terminal is not followed).
        columns, lines = _terminal_size(file)
        width = width if width is not None else int(environ.get("COLUMNS") or columns)
        height = int(environ.get("LINES") or lines)
    return _Console(
        file=file,
        width=width,
        height=height,
        markup=False,
        emoji=False,
        highlight=False,
        soft_wrap=False,
        force_terminal=True if color == "always" else (False if color == "never" else None),
        no_color=color == "never",
        color_system="auto" if color != "never" else None,
        legacy_windows=False,
        safe_box=False,
        tab_size=4,
    )
