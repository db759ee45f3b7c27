"""The store table's rows, computed once per load and filtered by rapidfuzz per keystroke."""

from __future__ import annotations

import time
from dataclasses import dataclass

from rapidfuzz import fuzz, process, utils
from rich.text import Text

from tui.memory.audit import Finding, MemoryStatus
from tui.memory.store import Store

# The table's type column: Claude Code's four types in four letters at most, so the
# description keeps the width (F1 on the table spells them out).
TYPE_TAGS = {"user": "user", "feedback": "fdbk", "project": "proj", "reference": "ref"}
TYPE_STYLES = {
    "user": "bold magenta",
    "feedback": "bold yellow",
    "project": "bold green",
    "reference": "bold cyan",
}
STATUS_STYLES = {
    "ok": "green",
    "unreadable": "bold red",  # the file cannot be read: the audit says why
    "unindexed": "bold red",
    "past cut": "bold red",
    "dangling": "yellow",
    "error": "bold red",  # an error of its own: a secret, a frontmatter Claude cannot read
    "lint": "yellow",
    "conflict": "bold red",  # holds both texts of a change memtui sync could not merge
    "linked": "cyan",  # indexed by another memory (a second-level index), not by MEMORY.md
    "log": "dim",  # a daily log or session note: never indexed
}
ORPHAN_STATUSES = ("unindexed", "past cut")
RELINKABLE_STATUSES = (*ORPHAN_STATUSES, "linked")
HAYSTACK_CHARS = 2_000  # enough body to find a memory by, bounded for speed
FILTER_CUTOFF = 75
HEAD_CHARS = 200  # fuzzy matching looks at name, description and the start of the body
FUZZY_LIMIT = 200
# Index lines of missing files listed as rows; past this a row says how many more (a 50 MB
# index has 270,000, and building each row is work the table would only scroll past).
DANGLING_ROWS = 5_000
# Findings that are about the index or recall order, not a flaw in the memory itself.
NOT_LINT = {"unindexed", "beyond_cut", "beyond_recall_scan", "linked_from", "missing_why",
            "missing_how_to_apply", "unmatched_wiki_link"}


@dataclass(frozen=True)
class MemoryRow:
    key: str  # the memory's file, or "dangling:<target>" for an index line with no file
    file: str | None
    status: str
    cells: tuple[object, ...]
    haystack: str


def type_badge(kind: str | None) -> Text:
    if not kind:
        return Text("—", style="dim")
    return Text(TYPE_TAGS.get(kind, kind), style=TYPE_STYLES.get(kind, "italic"))


def human_size(size: int) -> str:
    return f"{size} B" if size < 1024 else f"{size / 1024:.1f} KB"


def build_rows(store: Store, findings: list[Finding], statuses: dict[str, MemoryStatus]) -> list[MemoryRow]:
    linted = {f.file for f in findings if f.file and f.kind not in NOT_LINT}
    erred = {f.file for f in findings if f.file and f.kind not in NOT_LINT
             and f.severity == "error"}
    conflicted = {f.file for f in findings if f.kind == "sync_conflict"}
    rows = []
    for memory in store.memories:
        status = statuses[memory.file]
        if memory.error:
            label = "unreadable"
        elif memory.is_log:
            label = "log"
        elif status.linked_from:
            label = "linked"
        elif not status.indexed:
            label = "unindexed"
        elif not status.visible:
            label = "past cut"
        elif memory.file in conflicted:
            label = "conflict"
        elif memory.file in erred:
            label = "error"
        elif memory.file in linted:
            label = "lint"
        else:
            label = "ok"
        modified = time.strftime("%Y-%m-%d %H:%M", time.localtime(memory.mtime))
        cells = (
            "",
            type_badge(memory.type),
            Text(memory.name),
            Text(label, style=STATUS_STYLES[label]),
            Text(memory.description),
            modified,
            human_size(memory.size),
        )
        text = f"{memory.name} {memory.description} {memory.body[:HAYSTACK_CHARS]}"
        rows.append(MemoryRow(memory.file, memory.file, label, cells, utils.default_process(text)))
    dangling = [finding for finding in findings if finding.kind == "dangling"]
    for finding in dangling[:DANGLING_ROWS]:
        target = finding.target or "?"
        cells = ("", type_badge(None), Text(target), Text("dangling", style=STATUS_STYLES["dangling"]),
                 Text(f"MEMORY.md line {finding.line} links a missing file"), "", "")
        rows.append(MemoryRow(f"dangling:{finding.line}:{target}", None, "dangling", cells,
                              utils.default_process(target)))
    if len(dangling) > DANGLING_ROWS:
        more = f"{len(dangling) - DANGLING_ROWS:,} more"
        cells = ("", type_badge(None), Text(f"… {more}"),
                 Text("dangling", style=STATUS_STYLES["dangling"]),
                 Text("index lines link missing files (the Findings tab counts them all)"), "", "")
        rows.append(MemoryRow("dangling:more", None, "dangling", cells, "dangling more"))
    return rows


def filter_rows(rows: list[MemoryRow], query: str) -> list[MemoryRow]:
    """Rows holding every word of `query`; if none does, the closest fuzzy matches."""
    wanted = utils.default_process(query)
    if not wanted:
        return rows
    exact = rows
    for word in wanted.split():  # one pass per word: much faster than all() per row
        exact = [row for row in exact if word in row.haystack]
    if exact:
        return exact
    matches = process.extract(
        wanted, [row.haystack[:HEAD_CHARS] for row in rows], scorer=fuzz.WRatio,
        score_cutoff=FILTER_CUTOFF, limit=FUZZY_LIMIT,
    )
    return [rows[index] for _, _, index in matches]
