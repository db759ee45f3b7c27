"""line_search finds exactly the lines a plain split of the file finds, whatever the block
size, the buffer's first size (no bigger than the file) and where the scan starts."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tui.claude.line_search import needle_starts, search_lines

NEEDLE = b"memory/"
pieces = st.lists(st.sampled_from([b"a", b"\n", NEEDLE, b"xy" * 40, b"\n\n"]), max_size=60)


def _plain(data: bytes, start: int, unterminated: bool) -> tuple[list[tuple[bytes, int]], int]:
    """The lines from `start` holding the needle, with their offsets (a last line without its
    line break only when `unterminated`), and where a later scan resumes: past the last
    complete line."""
    found = []
    offset = start
    lines = data[start:].split(b"\n")
    complete, last = lines[:-1], lines[-1]
    for line in complete:
        if NEEDLE in line:
            found.append((line, offset))
        offset += len(line) + 1
    if unterminated and NEEDLE in last:
        found.append((last, offset))
    return found, offset


@settings(max_examples=300, deadline=None)
@given(pieces, st.integers(1, 64), st.integers(0, 40), st.booleans())
def test_the_lines_a_plain_split_finds(tmp_path_factory, parts, block, start_line, unterminated):
    data = b"".join(parts)
    starts = [0] + [i + 1 for i, byte in enumerate(data) if byte == ord("\n")]
    start = starts[min(start_line, len(starts) - 1)]
    path = tmp_path_factory.mktemp("lines") / "t.jsonl"
    path.write_bytes(data)
    found: list[tuple[bytes, int]] = []
    resumed = search_lines(path, needle_starts(NEEDLE), lambda line, at: found.append((line, at)),
                           start, unterminated=unterminated, block=block)
    assert (found, resumed) == _plain(data, start, unterminated)


def test_a_start_past_the_end_finds_nothing(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"memory/\n")
    found: list = []
    assert search_lines(path, needle_starts(NEEDLE), lambda *hit: found.append(hit), 20) == 20
    assert found == []
