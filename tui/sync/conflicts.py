"""Sync conflicts left in a memory file, and resolving them.

A conflict `memtui sync` could not merge sits in the file as both texts between marker
lines (see `plan`), on every machine: first the text of the machine that merged (named),
then the remote's. `memtui merge FILE --keep first|second|both` (or an edit) resolves it;
the next sync sends the resolution everywhere.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from tui.claude.lines import lines_with_endings
from tui.history.markers import MARK_OURS, MARK_SPLIT, MARK_THEIRS

SYNC_LABEL = "memtui sync:"  # starts both marker labels, so a conflict is found as sync's
KEEP_CHOICES = ("first", "second", "both")
CONFLICT_OPEN = f"{MARK_OURS} {SYNC_LABEL} "  # a line starting so opens a sync conflict
_CLOSE = f"{MARK_THEIRS} {SYNC_LABEL} "


@dataclass(frozen=True)
class SyncConflict:
    line: int  # 1-based line of the opening marker
    first_label: str  # "memtui sync: <machine>"
    first: tuple[str, ...]
    second_label: str  # "memtui sync: from the remote"
    second: tuple[str, ...]

    @property
    def machine(self) -> str:
        """The machine that merged: its text is the first."""
        return self.first_label.removeprefix(SYNC_LABEL).strip()


def find_conflicts(text: str) -> list[SyncConflict]:
    """Every complete conflict block in the text, in order."""
    return [conflict for conflict, _, _ in _blocks(lines_with_endings(text))]


def _blocks(lines: list[str]):
    """(conflict, opening line, closing line) of each block: an opening marker, the first
    split after it, the first closing marker after that; a marker line may end in CRLF
    (an editor that saved the file so; `memtui sync` still calls it unresolved). Linear:
    each marker's line is found once (a file of opening markers alone took a scan to its
    end for each)."""
    splits = [n for n, line in enumerate(lines) if line.rstrip("\r\n") == MARK_SPLIT]
    closes = [n for n, line in enumerate(lines) if line.startswith(_CLOSE)]
    index = 0
    while index < len(lines):
        if not lines[index].startswith(CONFLICT_OPEN):
            index += 1
            continue
        at = bisect_right(splits, index)
        close_at = bisect_right(closes, splits[at]) if at < len(splits) else len(closes)
        if close_at == len(closes):
            return  # no split, or no close after it: no later opening can find one either
        split, close = splits[at], closes[close_at]
        label = lines[index][len(MARK_OURS) + 1:].rstrip("\r\n")
        other = lines[close][len(MARK_THEIRS) + 1:].rstrip("\r\n")
        yield (SyncConflict(index + 1, label, tuple(lines[index + 1:split]), other,
                            tuple(lines[split + 1:close])), index, close)
        index = close + 1


def resolve(text: str, keep: str) -> str:
    """The text with each conflict block replaced by the text(s) to keep."""
    lines = lines_with_endings(text)
    out: list[str] = []
    position = 0
    for conflict, start, end in _blocks(lines):
        out.extend(lines[position:start])
        if keep in ("first", "both"):
            out.extend(conflict.first)
        if keep in ("second", "both"):
            out.extend(conflict.second)
        position = end + 1
    out.extend(lines[position:])
    return "".join(out)
