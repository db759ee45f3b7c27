"""Conflicts `memtui sync` left in a memory file, and resolving them.

A conflict sync could not merge sits in the file's body, after its frontmatter, as both
texts between marker lines, on every machine: first the text of the machine that merged,
named by its machine name, then the remote's, named by the machine that pushed it and when
(`<<<<<<< memtui sync: laptop` ... `>>>>>>> memtui sync: desktop, 2026-05-02 14:03 UTC`).
A frontmatter key both machines set differently keeps the newer value in the frontmatter;
both values are shown in a block of the body whose labels end in ` (frontmatter)`.

`memtui merge FILE --keep first|second|both` (or an edit) resolves it; the next sync sends
the resolution everywhere. Keeping one side of a frontmatter block sets its keys in the
frontmatter; keeping both keeps the frontmatter as it is and both texts as body lines.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from tui.claude.lines import lines_with_endings
from tui.history.markers import MARK_OURS, MARK_SPLIT, MARK_THEIRS
from tui.memory.frontmatter import parse
from tui.memory.frontmatter_keys import overlay

SYNC_LABEL = "memtui sync:"  # starts both marker labels, so a conflict is found as sync's
KEEP_CHOICES = ("first", "second", "both")
CONFLICT_OPEN = f"{MARK_OURS} {SYNC_LABEL} "  # a line starting so opens a sync conflict
_CLOSE = f"{MARK_THEIRS} {SYNC_LABEL} "
FRONTMATTER_TAG = " (frontmatter)"
_LEGACY_REMOTE = "from the remote"  # the second label before machines named the remote's text


def marker_labels(first: str, second: str, *, frontmatter: bool = False) -> tuple[str, str]:
    """The labels of a conflict's marker lines: `first` names the machine that merged,
    `second` the machine whose text came from the remote, and when."""
    tag = FRONTMATTER_TAG if frontmatter else ""
    return f"{SYNC_LABEL} {first}{tag}", f"{SYNC_LABEL} {second}{tag}"


def conflict_block(labels: tuple[str, str], first: list[str], second: list[str]) -> list[str]:
    """Both texts (lines with their endings) between marker lines."""
    return [f"{MARK_OURS} {labels[0]}\n", *first, f"{MARK_SPLIT}\n", *second,
            f"{MARK_THEIRS} {labels[1]}\n"]


@dataclass(frozen=True)
class SyncConflict:
    line: int  # 1-based line of the opening marker
    first_label: str  # "memtui sync: <machine>"
    first: tuple[str, ...]
    second_label: str  # "memtui sync: <machine>, <date>"
    second: tuple[str, ...]

    @property
    def machine(self) -> str:
        """The machine that merged: its text is the first."""
        return _source(self.first_label)

    @property
    def other(self) -> str:
        """Where the second text came from: its machine and date ("the remote" in files an
        older memtui wrote)."""
        source = _source(self.second_label)
        return "the remote" if source == _LEGACY_REMOTE else source

    @property
    def in_frontmatter(self) -> bool:
        """Both values of frontmatter keys, the newer of which is in the frontmatter."""
        return self.first_label.endswith(FRONTMATTER_TAG)


def _source(label: str) -> str:
    return label.removeprefix(SYNC_LABEL).strip().removesuffix(FRONTMATTER_TAG.strip()).strip()


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
    """The text with each conflict block replaced by the text(s) to keep; a frontmatter
    block's kept side set in the frontmatter."""
    lines = lines_with_endings(text)
    out: list[str] = []
    settings: list[list[str]] = []
    position = 0
    for conflict, start, end in _blocks(lines):
        out.extend(lines[position:start])
        position = end + 1
        if conflict.in_frontmatter and keep != "both":
            settings.append(list(conflict.first if keep == "first" else conflict.second))
            continue
        if keep in ("first", "both"):
            out.extend(conflict.first)
        if keep in ("second", "both"):
            out.extend(conflict.second)
    out.extend(lines[position:])
    resolved = "".join(out)
    for setting in settings:
        # No block to set the keys in (an edit took it away): they stay as body lines.
        resolved = overlay(resolved, setting) or _as_body(resolved, setting)
    return resolved


def _as_body(text: str, lines: list[str]) -> str:
    body = parse(text).body
    head = text[:len(text) - len(body)]
    return head + "".join(lines) + body
