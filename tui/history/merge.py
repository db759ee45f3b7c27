"""Three-way line merge that keeps both sides' changes and never drops one silently.

Changes of `ours` and `theirs` against `base` that touch different base lines are both
kept; two insertions at the same place are both kept, ours first (appending a memory on
each side is the common case, and both memories should survive). Changes that overlap and
differ are conflicts: reported with the three texts, never resolved by guessing.
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher

from tui.claude.lines import lines_with_endings
from tui.history.markers import MARK_OURS, MARK_SPLIT, MARK_THEIRS


@dataclass(frozen=True)
class Conflict:
    base: tuple[str, ...]
    ours: tuple[str, ...]
    theirs: tuple[str, ...]


@dataclass(frozen=True)
class MergeResult:
    text: str  # with conflicts, our side of each is kept here (both, with `markers`)
    conflicts: tuple[Conflict, ...]

    @property
    def clean(self) -> bool:
        return not self.conflicts


@dataclass(frozen=True)
class _Hunk:
    start: int
    end: int  # base[start:end] is replaced by lines
    lines: tuple[str, ...]
    side: int  # 0 ours, 1 theirs


def _hunks(base: list[str], other: list[str], side: int) -> list[_Hunk]:
    matcher = SequenceMatcher(None, base, other, autojunk=False)
    return [
        _Hunk(i1, i2, tuple(other[j1:j2]), side)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def _overlaps(group_end: int, group_start: int, hunk: _Hunk) -> bool:
    if hunk.start == hunk.end:  # an insertion overlaps only when strictly inside
        return group_start < hunk.start < group_end
    return hunk.start < group_end


def _side_text(base: list[str], start: int, end: int, hunks: list[_Hunk]) -> tuple[str, ...]:
    out: list[str] = []
    position = start
    for hunk in hunks:
        out.extend(base[position:hunk.start])
        out.extend(hunk.lines)
        position = hunk.end
    out.extend(base[position:end])
    return tuple(out)


def merge3(base: str, ours: str, theirs: str, markers: tuple[str, str] | None = None) -> MergeResult:
    """`markers` (our label, their label): write each conflict as both texts between
    git-style marker lines instead of keeping only ours."""
    base_lines = lines_with_endings(base)
    ours_lines = lines_with_endings(ours)
    theirs_lines = lines_with_endings(theirs)
    # A last line without a newline would glue onto a line inserted after it.
    for lines in (base_lines, ours_lines, theirs_lines):
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
    hunks = sorted(
        _hunks(base_lines, ours_lines, 0) + _hunks(base_lines, theirs_lines, 1),
        key=lambda h: (h.start, h.end, h.side),
    )
    out: list[str] = []
    conflicts: list[Conflict] = []
    position = 0
    index = 0
    while index < len(hunks):
        group = [hunks[index]]
        start, end = group[0].start, group[0].end
        index += 1
        while index < len(hunks) and (
            _overlaps(end, start, hunks[index])
            or start == end == hunks[index].start == hunks[index].end
        ):
            end = max(end, hunks[index].end)
            group.append(hunks[index])
            index += 1
        out.extend(base_lines[position:start])
        position = end
        sides = {h.side for h in group}
        if len(sides) == 1:
            out.extend(_side_text(base_lines, start, end, group))
            continue
        mine = _side_text(base_lines, start, end, [h for h in group if h.side == 0])
        other = _side_text(base_lines, start, end, [h for h in group if h.side == 1])
        original = tuple(base_lines[start:end])
        if mine == other or other == original:
            out.extend(mine)
        elif mine == original:
            out.extend(other)
        elif not original:  # both inserted at the same place: keep both
            out.extend(mine + other)
        else:
            conflicts.append(Conflict(original, mine, other))
            if markers:
                out.append(f"{MARK_OURS} {markers[0]}\n")
                out.extend(mine)
                out.append(f"{MARK_SPLIT}\n")
                out.extend(other)
                out.append(f"{MARK_THEIRS} {markers[1]}\n")
            else:
                out.extend(mine)
    out.extend(base_lines[position:])
    text = "".join(out)
    if ours and not ours.endswith("\n") and text.endswith("\n"):
        text = text[:-1]
    return MergeResult(text, tuple(conflicts))
