"""A run file's bytes as lines of JSON: one record a line, plain or in a gzip stream.

- ``decode_line`` reads one line's JSON strictly (RFC 8259, as ``render.decide`` reads
  tool arguments, within the one nesting limit); ``encode_line`` writes one record as one line of UTF-8.
- ``gzip_lines`` gives the lines of a ``.jsonl.gz`` stream, read up to where it ends
  when a process was killed while writing it.
- ``first_line`` reads a file's first line alone (inflated, of a gzip stream): what the file holds is told by it.
- ``binary_at`` finds where a line stops being text, for the message of a file that is no run file at all.
- ``GrowingFile``, what reads a file being written a growth at a time, gives the complete lines it gained since
  they were last taken.
- ``name_ends`` tells a file by how its name ends, in any case (``RUN.JSONL.GZ`` as ``run.jsonl.gz``): every rule
  that reads a file's kind from its name reads it there.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import zlib
from collections.abc import Iterator, Mapping, Sequence
from typing import IO, Any, Final

import msgspec

from agentrender import _json

__all__ = [
    "GZIP_MAGIC",
    "JSON_LINES_NAMES",
    "JSON_SPACE",
    "RUN_FILE_SUFFIXES",
    "GrowingFile",
    "StreamError",
    "binary_at",
    "decode_line",
    "encode_line",
    "first_line",
    "gzip_lines",
    "inflate_limit",
    "name_ends",
    "open_lines",
]

JSON_SPACE = " \t\n\r"
"""JSON's white space, these four characters only: ``str.isspace()`` would let a vertical tab or U+2028 pass."""

_decode = msgspec.json.Decoder()


JSON_LINES_NAMES = (".jsonl", ".jsonl.gz")
"""How the name of a file of JSON lines ends (``name_ends``, in any case): a run file, or a history of one value a
line, plain or gzip-compressed, read a line at a time; a file of any other name may be one JSON document."""
RUN_FILE_SUFFIXES: Final = (".jsonl", ".jsonl.gz", ".eval", ".eval.gz")
"""The endings of the names of the files a folder holds that are read (``frame.run_files``): run files and agents' JSON
Lines histories (``.jsonl``, ``.jsonl.gz``), and Inspect's ``.eval`` logs (``.eval.gz``, compressed with gzip, as
``gzip -r`` leaves a logs folder), each in any case (``RUN.JSONL`` too). Of its
``.json`` files (and ``.json.gz``, compressed with gzip), Inspect's logs are read too, told by their members as
``load`` tells them (``imports.shapes.is_json_log``)."""


def name_ends(path: str | os.PathLike[str], endings: str | tuple[str, ...]) -> bool:
    """Whether the name of the file ``path`` ends with ``endings`` (one ending, or any of several, in lower case) in
    any case: ``RUN.JSONL.GZ`` as ``run.jsonl.gz``, as a file system that ignores case, or a tool that writes
    capitals, may name it. The one rule by which a file is told by its name: what a folder lists, what a file named
    alone is read as, whether a run file written is gzip-compressed, what cannot be followed."""
    return os.fspath(path).lower().endswith(endings)


def _decode_strictly(text: str) -> Any:
    try:
        return _decode.decode(text)
    except msgspec.DecodeError:
        # msgspec refuses a lone surrogate (``"\\ud800"``), which RFC 8259 allows and a run file
        # keeps; what is not JSON at all gets the standard decoder's words (line and column).
        return _json.STRICT_DECODER.decode(text)


decode_line = _json.limited(_decode_strictly)
"""One JSON value (msgspec's decoder); ``json.JSONDecodeError`` (or ``ValueError``) when ``text`` is not
exactly one, ``_json.NestingError`` when it nests deeper than ``_json.MAX_DEPTH``."""


def encode_line(record: Mapping[str, Any]) -> bytes:
    """One record as one line of UTF-8 JSON; strings holding lone surrogates are escaped so the file stays UTF-8."""
    text = json.dumps(record, ensure_ascii=False, allow_nan=False, default=_as_list)
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        return json.dumps(record, allow_nan=False, default=_as_list).encode("ascii") + b"\n"


def _as_list(value: Any) -> list[Any]:
    """A sequence that is no list as the JSON list it stands for (a followed Claude Code session's
    ``source.transcript``, read from the list the session grows in); anything else is no JSON."""
    if isinstance(value, Sequence) and not isinstance(value, str | bytes | bytearray):
        return list(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


# Bytes no text holds (NUL and the other C0 controls but tab, newline, form feed, carriage return and escape).
_BINARY_BYTE = re.compile(b"[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f]")

_BINARY_KINDS: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"%PDF", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive"),
    (b"BZh", "a bzip2 stream"),
    (b"\xfd7zXZ\x00", "an xz stream"),
    (b"\x28\xb5\x2f\xfd", "a zstd stream"),
    (b"SQLite format 3\x00", "an SQLite database"),
)
"""The first bytes of a few binary formats a run file is mistaken for, and what each is called."""


def binary_at(line: bytes, *, complete: bool = True) -> str:
    """Where ``line`` (a file's first line) stops being text, in words; ``""`` when it is text.

    Text is UTF-8 without NUL or the other control bytes no text holds. A multi-byte character
    cut at the end of a line that is not ``complete`` (a file cut short) is text.
    """
    found: list[tuple[int, str]] = []
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as error:
        if complete or error.end < len(line) or error.reason != "unexpected end of data":
            found.append((error.start, "not UTF-8 text"))
    if (control := _BINARY_BYTE.search(line)) is not None:
        byte = control.group()[0]
        found.append((control.start(), "a NUL byte" if byte == 0 else f"a control byte 0x{byte:02x}"))
    return _binary(line, *min(found)) if found else ""


def _binary(line: bytes, at: int, what: str) -> str:
    said = f"binary data ({what}) at byte {at + 1:,}"
    kind = next((name for magic, name in _BINARY_KINDS if line.startswith(magic)), "")
    return f"{said}; it begins like {kind}" if kind else said


GZIP_MAGIC = b"\x1f\x8b"
"""The first two bytes of a gzip stream, by which a compressed run file is recognised."""


def open_lines(path: str) -> io.BufferedReader:
    """``path`` opened to be read a line at a time, through a buffer of 128 KiB.

    Python's default of 8 KiB makes a read of the operating system's every 8 KiB, and a line longer than that one
    join of several: the lines of 20,000 steps of 200-byte results took 10.1 ms against 3.2, those of 2,000 steps of
    30 KiB results 52 ms against 17 (256 KiB: 15; 64 KiB made a load of those 1.3 times as long). The buffer is
    counted in the load's peak memory: 0.09 of a 1.4 MiB file (``bench/README.md``).
    """
    return io.BufferedReader(io.FileIO(path), 1 << 17)


_CHUNK = 1 << 16
_SPACES = re.compile(b"[ \t\r\n]+")

INFLATE_FLOOR = 8 << 20
"""What any gzip run file may inflate to (8 MiB), beside ``INFLATE_RATIO`` times its size."""
INFLATE_RATIO = 100
"""How many times its compressed size a gzip run file may inflate to, beside ``INFLATE_FLOOR``.

The bundled samples compress 5 to 8 times, a run of repetitive results some tens of times;
deflate can reach about 1,000 times, which only a made-up stream (a gzip bomb) does. The
whole stream is measured before any line of it is read (the file read once, and inflated at
zlib's speed, a few GB/s on a bomb; its first ``_KEPT`` inflated bytes kept to be read, the
rest thrown away and inflated again when read): a stream past the limit is refused there,
before a single record is built, and a long line or a flood of blank lines costs nothing first.
"""


def inflate_limit(compressed: int) -> int:
    """The most bytes a gzip run file of ``compressed`` bytes may inflate to."""
    return INFLATE_FLOOR + INFLATE_RATIO * compressed


def open_inflated(path: str) -> tuple[io.BufferedIOBase, int]:
    """The file at ``path`` open to read its bytes, inflated when it is a gzip stream (by its magic bytes, as
    ``load_run`` tells), and the most bytes it may give: its size, or a stream's ``inflate_limit``. The caller
    closes it (``with``)."""
    size = os.path.getsize(path)
    with open(path, "rb") as raw:
        compressed = raw.read(2) == GZIP_MAGIC
    if compressed:
        return gzip.open(path, "rb"), inflate_limit(size)
    return open(path, "rb"), size  # the caller closes it


_BLANK = re.compile(rb"(?:[ \t\r\n]|\xef\xbb\xbf)*")
"""White space and byte order marks: what comes before a file's first value."""
_FIRST_READ = 1 << 12
"""How much of a file ``first_line`` reads first, then twice as much at each read (of a gzip stream: inflates at a
time)."""


def first_line(path: str, within: int) -> bytes | None:
    """The first line of the file at ``path`` that is not blank (white space and byte order marks), with its newline,
    inflated when the file is a gzip stream (by its magic bytes, as ``load_run`` tells); ``None`` when it does not end
    (nor does the file) within the first ``within`` bytes, or the stream is corrupt.

    The file is read a piece at a time up to where that line ends, not past it: a JSON Lines file's first record
    costs what reading its line costs, whatever the file's size. A stream that ends early ends its last line there.
    """
    with open(path, "rb", buffering=0) as file:
        piece = file.read(_FIRST_READ)
        pieces: Iterator[bytes] = _pieces(file, piece)
        if piece[:2] == GZIP_MAGIC:
            file.seek(0)
            pieces = _inflated(file, [], _FIRST_READ)
        chunks: list[bytes] = []
        size = 0
        try:
            for piece in pieces:
                chunks.append(piece)
                size += len(piece)
                if b"\n" not in piece and size < within:
                    continue
                data = b"".join(chunks)
                chunks = [data]
                start = _blank(data)
                if (end := data.find(b"\n", start, within)) >= 0:
                    return data[start : end + 1]
                if size >= within:
                    return None
        except StreamError:
            return None
    data = b"".join(chunks)
    return data[_blank(data) :] or None


def _blank(data: bytes) -> int:
    """Where ``data``'s white space and byte order marks end."""
    found = _BLANK.match(data)
    return found.end() if found is not None else 0


def _pieces(file: IO[bytes], first: bytes) -> Iterator[bytes]:
    """``first``, then the rest of ``file``, each read twice as long as the one before."""
    size = len(first)
    while first:
        yield first
        size *= 2
        first = file.read(size)


class StreamError(Exception):
    """The bytes of the file could not be read as a stream of lines (a corrupt gzip stream, a gzip bomb)."""

    def __init__(self, what: str, line: int | None = None) -> None:
        super().__init__(what)
        self.line = line
        """The 1-based line the stream was on when it was refused; ``None``: the line being read."""


class _Inflater:
    """A gzip stream (several members allowed) inflated from ``file``'s position, ``size`` bytes at a time; ``copy``
    goes on from where it is.

    A corrupt stream raises ``StreamError``; one that ends early ends, with a note in ``notes``.
    """

    def __init__(self, file: IO[bytes], size: int = _CHUNK) -> None:
        self.file, self.size = file, size
        self.decompressor = zlib.decompressobj(wbits=31)
        self.chunk = b""  # read and not inflated yet
        self.full = False  # the last output was ``size`` bytes: zlib may hold more, even with no input left
        self.fed = False  # the member being inflated was given input and has not ended

    def copy(self, file: IO[bytes]) -> _Inflater:
        """What goes on from here, reading ``file`` (a copy of this one's, at its position)."""
        other = _Inflater(file, self.size)
        other.decompressor = self.decompressor.copy()
        other.chunk, other.full, other.fed = self.chunk, self.full, self.fed
        return other

    def pieces(self, notes: list[str]) -> Iterator[bytes]:
        """The inflated bytes, from here to the stream's end."""
        size = self.size
        while (chunk := self.chunk or self.file.read(_CHUNK)) or self.full:
            self.fed = True
            try:
                data = self.decompressor.decompress(chunk, size)
            except zlib.error as error:
                raise StreamError(f"the gzip stream is corrupt ({error})") from None
            if self.decompressor.eof:
                self.chunk, self.full, self.fed = self.decompressor.unused_data, False, False
                self.decompressor = zlib.decompressobj(wbits=31)
            else:
                self.chunk, self.full = self.decompressor.unconsumed_tail, len(data) == size
            yield data
        if self.fed:
            notes.append("the gzip stream ends early (a process killed while writing); read up to where it ends")


def _inflated(file: IO[bytes], notes: list[str], size: int = _CHUNK) -> Iterator[bytes]:
    """The inflated bytes of a gzip stream from ``file``'s position (several members allowed), ``size`` (64 KiB) at a
    time.

    A corrupt stream raises ``StreamError``; one that ends early ends, with a note in ``notes``.
    """
    return _Inflater(file, size).pieces(notes)


_KEPT = 32 << 20
"""How many of a gzip run file's inflated bytes are kept while it is measured, to be read as lines without inflating
them again (32 MiB): a run file of up to that much is inflated once; past it, the rest is inflated a second time."""


def _measured(file: IO[bytes], limit: int, notes: list[str]) -> Iterator[bytes]:
    """The inflated bytes of the gzip stream from ``file``'s position, once the whole stream is measured:
    ``StreamError`` when it inflates past ``limit`` bytes, before any is given.

    The file is read once, its compressed bytes held; the first ``_KEPT`` inflated bytes are kept as they are
    measured and given as they are, and the rest is inflated again from where they end. A corrupt stream is
    measured up to where it breaks, and raises ``StreamError`` there once the bytes before are given.
    """
    held = file.read()
    stream = _Inflater(io.BytesIO(held))
    kept: list[bytes] = []
    rest: _Inflater | None = None  # where the kept bytes end, when the stream goes on past them
    ended: list[str] = []
    broken: StreamError | None = None
    inflated = lines = 0
    try:
        for data in stream.pieces(ended):
            inflated += len(data)
            if inflated > limit:
                lines += data.count(b"\n", 0, len(data) - (inflated - limit))
                break
            lines += data.count(b"\n")
            if rest is None:
                kept.append(data)
                if inflated >= _KEPT:
                    rest = stream.copy(io.BytesIO(held))
                    rest.file.seek(stream.file.tell())
    except StreamError as error:
        broken = error
    if inflated > limit:
        raise StreamError(
            f"the gzip stream inflates to more than {limit >> 20} MiB, over {INFLATE_RATIO} times the file's size: "
            "refused as a gzip bomb (to read it anyway, decompress it with gunzip and load the file it leaves)",
            lines + 1,
        )
    del held, stream  # the rest, if any, reads its own copy
    kept.reverse()
    while kept:
        yield kept.pop()
    if rest is not None:
        yield from rest.pieces(notes)
        return
    if broken is not None:
        raise broken
    notes.extend(ended)


def gzip_lines(file: IO[bytes], notes: list[str], limit: int | None = None) -> Iterator[bytes]:
    """The lines of a gzip stream (several members allowed); a stream that ends early is read up to its end.

    A stream that ends early adds a note to ``notes``; a corrupt one, or one that inflates
    past ``limit`` bytes (``inflate_limit``; ``None``: no limit), raises ``StreamError``: a
    stream past the limit before its first line is given. The stream is inflated 64 KiB at
    a time, however much a chunk of it holds.
    """
    pending: list[bytes] = []
    for data in _inflated(file, notes) if limit is None else _measured(file, limit, notes):
        start = 0
        while (end := data.find(b"\n", start)) >= 0:
            if not pending and (spaces := _SPACES.match(data, start)) is not None and spaces.end() > end + 1:
                # Blank lines in a row are given as one (the reader counts its newlines):
                # a stream of nothing but newlines is read at the speed of zlib.
                blank_end = data.rfind(b"\n", start, spaces.end())
                yield data[start : blank_end + 1]
                start = blank_end + 1
                continue
            if pending:
                pending.append(data[start : end + 1])
                yield b"".join(pending)
                pending.clear()
            else:
                yield data[start : end + 1]
            start = end + 1
        if start < len(data):
            pending.append(data[start:])
    if pending:
        yield b"".join(pending)


class GrowingFile:
    """A file being written, read a growth at a time (a reader of one subclasses it): ``gained`` gives each complete
    line not taken yet, with its number in the file, and ``taken`` takes them in, so a reader that cannot read one
    leaves them all to be given again. A last line whose newline is not written yet waits (``pending``)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.lines = 0
        """How many complete lines were taken."""
        self._offset = 0
        self._partial = b""
        self._next: tuple[int, bytes, int] = (0, b"", 0)  # what ``taken`` takes: offset, partial line, lines

    @property
    def pending(self) -> int:
        """The bytes of a last line whose newline is not written yet: given once it is."""
        return len(self._partial)

    def gained(self) -> list[tuple[int, bytes]]:
        """Each complete line after those taken (blank lines left out), with its number, counted from 1."""
        with open(self.path, "rb") as file:
            file.seek(self._offset)
            data = self._partial + file.read()
            offset = file.tell()
        end = data.rfind(b"\n") + 1
        lines = data[:end].split(b"\n")[:-1]
        self._next = (offset, data[end:], self.lines + len(lines))
        return [(number, raw) for number, raw in enumerate(lines, start=self.lines + 1) if raw.strip()]

    def taken(self) -> None:
        """Take in the lines the last ``gained`` gave."""
        self._offset, self._partial, self.lines = self._next
