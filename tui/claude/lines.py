"""Store text split into lines the way Claude Code splits it: on `\\n` and nothing else.

A CRLF line keeps its `\\r` at the end; a lone `\\r`, U+2028, U+2029, NEL (U+0085), form
feed and vertical tab are characters inside a line. Python's `str.splitlines()` and
`Path.read_text()` both break on all of those, so store text is never read or split with
them: a MEMORY.md written with bare carriage returns is one long line to Claude Code.
"""

from __future__ import annotations

import os

from tui.claude.files import STEP, read_text


def split_lines(text: str) -> list[str]:
    """The lines of `text`; a trailing newline leaves an empty last line, as in JavaScript."""
    return text.split("\n")


def line_count(text: str) -> int:
    """How many lines Claude Code counts in `text` (`text.split("\\n").length`)."""
    if len(text) <= STEP:
        return text.count("\n") + 1
    return sum(text.count("\n", start, start + STEP) for start in range(0, len(text), STEP)) + 1


def lines_with_endings(text: str) -> list[str]:
    """The lines of `text`, each with its `\\n`; joined, they give `text` back."""
    lines = text.split("\n")
    ends_with_newline = lines[-1] == ""
    if ends_with_newline:
        lines.pop()
    with_endings = [line + "\n" for line in lines]
    if with_endings and not ends_with_newline:
        with_endings[-1] = with_endings[-1][:-1]
    return with_endings


def read_store_text(path: str | os.PathLike[str]) -> str:
    """A store file's text, its line endings untouched; bytes that are not UTF-8 are replaced.
    Only a regular file is read: a FIFO or a device is an OSError (see `claude.files`)."""
    return read_text(path)
