"""Data never drives the terminal: control characters made visible before they are shown.

Memory files, indexes, file names and transcripts are written by models, tools and sync
clients; an ESC in a description could clear the screen, retitle the window or plant a
link. Everything memtui shows a human goes through `visible()`: C0 controls (but newline
and tab) become their Unicode control pictures (ESC -> ␛), DEL becomes ␡, C1 controls and
the bidirectional overrides that reorder what is read become `<U+009B>`. Lone surrogates,
which no terminal encoding can write, are shown too: a byte of a file name that is not
UTF-8 (Python's `\udcff`) as `\xff`, one from a JSON transcript (`\ud800`) as `<U+D800>`.
`--json` output stays exact: JSON escapes them instead (`json_visible`).
"""

from __future__ import annotations

import io
import re

TYPE_CHECKING = False  # importing typing costs 2 ms of every command's start
if TYPE_CHECKING:
    from typing import TextIO

_BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
CONTROL_CHARS = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}\ud800-\udfff]")


def _picture(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    return f"<U+{code:04X}>"


def visible(text: str) -> str:
    """`text` with every control character shown instead of obeyed (newlines and tabs kept)."""
    return CONTROL_CHARS.sub(_picture, text) if CONTROL_CHARS.search(text) else text


def one_line(text: str) -> str:
    """`visible(text)` with newlines shown too: a message that must stay on one line."""
    return visible(text).replace("\n", "\u240a")


def has_controls(text: str) -> bool:
    return CONTROL_CHARS.search(text) is not None


def utf8_json_is_visible(data: bytes) -> bool:
    """Whether JSON text in UTF-8 holds nothing `json_visible` would escape. JSON escapes
    C0 itself: only DEL, C1 controls, the bidi marks and surrogates are looked for, by
    their UTF-8 bytes (a byte search of megabytes runs at memory speed; a lead byte that
    starts another character too, such as a no-break space's, only sends the text the
    slower way)."""
    if any(lead in data for lead in (b"\x7f", b"\xc2", b"\xed")):  # DEL, C1, surrogates
        return False
    # The bidi marks: U+061C, and U+200E-U+2069 (only if their lead bytes are there at all).
    return not (b"\xd8" in data and b"\xd8\x9c" in data) and not (
        b"\xe2" in data and (b"\xe2\x80" in data or b"\xe2\x81" in data))


def json_visible(text: str) -> str:
    """JSON text with C1 controls, bidi overrides and lone surrogates escaped too (JSON
    escapes C0 itself): the same data, nothing a terminal acts on or cannot encode."""
    if text.isascii():  # all of those are past ASCII; isascii() is a flag lookup
        return text
    return CONTROL_CHARS.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


class VisibleStream(io.TextIOBase):
    """A text stream that shows control characters instead of writing them; `raw` is the
    stream underneath, for output that must stay exact (JSON, our own colours)."""

    def __init__(self, raw: TextIO):
        self.raw = raw

    def write(self, text: str) -> int:
        self.raw.write(visible(text))
        return len(text)

    def flush(self) -> None:
        self.raw.flush()

    def isatty(self) -> bool:
        return self.raw.isatty()

    def fileno(self) -> int:
        return self.raw.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.raw, "encoding", "utf-8")

    def writable(self) -> bool:
        return True


def raw_stream(stream: TextIO) -> TextIO:
    """The stream under a `VisibleStream`, or the stream itself."""
    return stream.raw if isinstance(stream, VisibleStream) else stream
