"""Finding the lines of big files that hold something, searching whole blocks.

A file is read in blocks into one reused buffer (no fresh megabyte per block, no copy of
what is left over) and each block is searched at C speed (`bytes.find`, `re`); only the
lines around a hit are cut out and handed on. Memory use is one block plus the longest line.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

from tui.claude.files import open_binary

BLOCK = 1 << 20

Starts = Callable[[bytearray, int], Iterable[int]]  # (buffer, end) -> hits in buffer[:end], ascending
OnLine = Callable[[bytes, int], None]  # (line without its newline, offset in the file)


def needle_starts(needle: bytes) -> Starts:
    """Where `needle` occurs."""
    def starts(buffer: bytearray, end: int) -> Iterable[int]:
        found = buffer.find(needle, 0, end)
        while found != -1:
            yield found
            found = buffer.find(needle, found + 1, end)
    return starts


def search_lines(path: str | os.PathLike[str], starts: Starts, on_line: OnLine, start: int = 0,
                 *, unterminated: bool = False, block: int = BLOCK) -> int:
    """Call `on_line(line, offset)` once for each complete line from `start` with a hit.

    With `unterminated`, a last line without its newline is given too (a file that simply
    ends without one); otherwise it is left for a later scan, as a line still being written.
    Returns the offset just past the last complete line, where a later scan resumes.
    OSError when the file cannot be opened or read.
    """
    with open_binary(path, buffering=0) as handle:
        # No bigger than what there is to read (and a byte to see its end): a bytearray is
        # zeroed when made, and most transcripts are a fraction of a block (a cold
        # discovery searched 532 files, zeroing 532 MB).
        left = os.fstat(handle.fileno()).st_size - start
        buffer = bytearray(max(1, min(block, left + 1)))
        handle.seek(start)
        done = start
        kept = 0  # the start of a line not yet complete, at the front of the buffer
        while True:
            if kept == len(buffer):  # a line longer than the buffer
                buffer.extend(bytes(len(buffer)))
            with memoryview(buffer) as view:
                size = handle.readinto(view[kept:])
            end = kept + size
            complete = buffer.rfind(b"\n", 0, end) + 1 if size else end
            if not size and not unterminated:
                return done
            after = 0  # past the last line given: one call per line, whatever its hits
            for found in starts(buffer, complete):
                if found < after:
                    continue
                line_start = buffer.rfind(b"\n", 0, found) + 1
                line_end = buffer.find(b"\n", found, complete)
                line_end = complete if line_end == -1 else line_end
                on_line(bytes(buffer[line_start:line_end]), done + line_start)
                after = line_end + 1
            if not size:
                return done
            done += complete
            kept = end - complete
            buffer[:kept] = buffer[complete:end]
