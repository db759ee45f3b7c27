"""One finding of an audit, as plain values: what `audit --json` prints and the audit cache
keeps. Its own module so a run answered from the cache loads none of the audit's rules."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from tui.disk_errors import unwritable

SEVERITIES = ("error", "warning", "info")


@dataclass(frozen=True, init=False)
class Finding:
    kind: str
    severity: str
    file: str | None
    line: int | None
    message: str
    target: str | None = None  # dangling / outside_store: the link target; stale_path: the path
    other: str | None = None  # duplicate: the other file; stale_path: the path's successor
    score: float | None = None  # duplicate: similarity 0-100

    def __init__(self, kind: str, severity: str, file: str | None, line: int | None,
                 message: str, target: str | None = None, other: str | None = None,
                 score: float | None = None) -> None:
        # The instance dict set whole, not the frozen __setattr__ eight times over: a 50 MB
        # index makes half a million findings, and a cached run rebuilds 30,000.
        object.__setattr__(self, "__dict__", {
            "kind": kind, "severity": severity, "file": file, "line": line, "message": message,
            "target": target, "other": other, "score": score,
        })

    def __reduce__(self) -> tuple:
        # Workers send their findings back pickled: as the fields in order, a third of what
        # pickling the instance dict costs on both sides.
        return Finding, tuple(vars(self).values())

    def to_json(self) -> dict:
        """The fields in order, the optional ones only when set."""
        # Every field is a plain value: a copy of vars() is asdict() without its deep copy,
        # and dropping the three optional ones is a third of filtering all eight.
        fields = vars(self).copy()
        for optional in _OPTIONAL:
            if fields[optional] is None and (optional, self.kind) not in _KEPT_WHEN_NONE:
                del fields[optional]
        return fields


_OPTIONAL = ("target", "other", "score")
# A stale path's successor is part of its answer: null says it has none (deleted).
_KEPT_WHEN_NONE = frozenset({("other", "stale_path")})


def lines_by_index(findings: Iterable[Finding]) -> dict[str, list[int]]:
    """The index lines these findings name, as the line repairs take them:
    {index file: line numbers}."""
    lines: dict[str, set[int]] = {}
    for finding in findings:
        if finding.file and finding.line:
            lines.setdefault(finding.file, set()).add(finding.line)
    return {file: sorted(numbers) for file, numbers in lines.items()}


def rescued_findings(findings: Iterable[Finding], live: str, memories: int,
                     stranded: str) -> list[Finding]:
    """The findings of a stranded store whose rescue is done: its `stranded_store` error
    is an `info` saying so, and how to archive the store."""
    held = (f"every memory of it is in {live} already" if memories
            else "it holds no memory")
    rescued = Finding("rescued_store", "info", None, None,
                      f"stranded store, rescued: {held}; archive it "
                      f"(memtui fix {stranded} retire, R in the app; undo brings it back)",
                      target=live)
    # No session loads this store: what its own index hides, Claude sees in the live one.
    return [rescued if finding.kind == "stranded_store"
            else _as_info(finding) if finding.kind in _SEEN_ELSEWHERE else finding
            for finding in findings]


_SEEN_ELSEWHERE = frozenset({"unindexed", "beyond_cut", "index_over_limit"})


def _as_info(finding: Finding) -> Finding:
    fields = vars(finding).copy()
    fields["severity"] = "info"
    return Finding(**fields)


def standing_findings(store: Path, stranded_reason: str | None) -> tuple[Finding, ...]:
    """What is wrong with the store as a whole, judged as it stands now: stranded, or
    read-only (a mode or a mount, which no listing of its files shows, so no cached audit
    holds these)."""
    found = []
    if stranded_reason:
        found.append(Finding("stranded_store", "error", None, None,
                             f"stranded store: {stranded_reason}"))
    if why := unwritable(store):
        found.append(Finding("read_only", "error", None, None,
                             f"the memory directory is read-only ({why}): Claude Code cannot "
                             "save a memory in it, and no change memtui offers can be applied"))
    return tuple(found)
