"""Every finding of a store, one per row, what costs most first (the order `memtui audit`
tells them, tui/memory/triage.py); the highlighted one in full below, with the keys that
fix it. Keys act on the highlighted finding, or on the marked ones."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from tui.app.widgets.virtual_table import Place, VirtualTable
from tui.memory import triage
from tui.memory.audit import SEVERITIES, Finding
from tui.render import SEVERITY_STYLE
from tui.visible import visible
from tui.words import plural

# The store screen's keys (binding ids) that fix a finding of each kind, first the best.
ORPHAN_FIX = ("store.relink", "store.edit", "store.archive", "store.delete", "store.history")
FIXES: dict[str, tuple[str, ...]] = {
    "unindexed": ORPHAN_FIX,
    "beyond_cut": ORPHAN_FIX,
    "linked_from": ORPHAN_FIX,  # r gives it a line of its own in MEMORY.md too
    "dangling": ("store.remove_dangling",),
    "long_index_line": ("store.shorten", "store.edit"),
    "index_over_limit": ("store.shorten", "store.edit"),
    "duplicate": ("store.archive", "store.delete", "store.edit", "store.history"),
    "stranded_store": ("store.rescue",),
    "rescued_store": ("store.rescue",),  # R on a rescued store offers to archive it
    "secret": ("store.redact", "store.edit"),
    "sync_conflict": ("store.keep_side", "store.edit", "store.history"),
    "outside_store": ("store.edit",),
    "untrusted_setting": (),
    "read_only": (),
    "unmatched_wiki_link": (),
    "duplicate_search_cut": (),
    "paths_unchecked": (),
}
# A stale path with a successor is rewritten; one without (deleted) is the memory's to fix.
RENAMED_PATH_FIX = ("store.repath", "store.edit", "store.history")
GONE_PATH_FIX = ("store.edit", "store.archive", "store.history")
MEMORY_FIX = ("store.edit", "store.archive", "store.delete", "store.history")
# What a fix does, when its key's name alone does not say it.
FIX_NOTES = {
    "stranded_store": "copies its memories into the store its sessions use now; from a shell: "
                      "memtui fix … rescue",
    "rescued_store": "archives this store, now that every memory is home (u brings it "
                     "back); from a shell: memtui fix … retire",
}


def fix_note(finding: Finding) -> str | None:
    if finding.kind == "stale_path" and finding.other:
        return (f"writes {finding.other} in its place; from a shell: memtui fix … repath")
    return FIX_NOTES.get(finding.kind)


NO_FIX = {
    "untrusted_setting": "nothing to fix here: the setting is in the repository",
    "read_only": "nothing memtui can fix: make the memory directory writable (its mode or "
                 "its mount)",
    "paths_unchecked": "nothing to repair in the store: the checkout cannot be read",
    "unmatched_wiki_link": "nothing to repair: a memory worth writing later",
    "duplicate_search_cut": "nothing to repair: the duplicates listed may not be all of them",
}
PLURALS = {"error": "errors", "warning": "warnings", "info": "info"}
# (key, width). The severity is the kind's colour and the first word of the highlighted
# finding's detail: its width goes to the message, which wraps.
COLUMNS = (("mark", 1), ("kind", 20), ("where", 24), ("message", 20))
COLUMN_PRIORITY = ("kind", "mark", "where", "message")


def fixes(finding: Finding) -> tuple[str, ...]:
    if finding.kind == "stale_path":
        return RENAMED_PATH_FIX if finding.other else GONE_PATH_FIX
    if finding.kind in FIXES:
        return FIXES[finding.kind]
    return MEMORY_FIX if finding.file and finding.file != "MEMORY.md" else ("store.edit",)


def where(finding: Finding) -> str:
    """The file and line a finding is about; a memory past the cut is placed at its file
    alone, as `memtui audit` places it (its line is the index's, which the message names)."""
    place = finding.file or ""
    return f"{place}:{finding.line}" if finding.line and finding.kind != "beyond_cut" else place


def message_beside(finding: Finding) -> str:
    """The message as the row shows it, beside `where`: without the file name it starts
    with, which `where` shows already."""
    message, file = finding.message, finding.file
    if file and message.startswith(file):
        rest = message[len(file):]
        for joint in (": ", " "):
            if rest.startswith(joint) and rest[len(joint):]:
                return rest[len(joint):]
    return message


@dataclass(frozen=True)
class FindingRow:
    key: str  # stays the same across reloads, so marks survive them
    finding: Finding
    label: Text  # the kind in its severity's colour, one shared by every row of a kind

    @property
    def cells(self) -> tuple[object, ...]:
        # Made when the row is drawn: a 50 MB index has half a million rows, a screenful shown.
        finding = self.finding
        return ("", self.label, visible(where(finding)), visible(message_beside(finding)))


def finding_rows(findings: list[Finding], types: Mapping[str, str | None]) -> list[FindingRow]:
    """One row per finding, in the order `memtui audit` tells them: what costs most first
    (`types`: each memory file's type; a feedback rule Claude cannot see comes first)."""
    rows = []
    seen: Counter[str] = Counter()
    labels: dict[tuple[str, str], Text] = {}
    for finding in triage.ordered(findings, types):
        base = f"{finding.kind}|{finding.file}|{finding.line}|{finding.target}|{finding.other}"
        seen[base] += 1
        label = (finding.severity, finding.kind)
        if label not in labels:
            labels[label] = Text(finding.kind, style=SEVERITY_STYLE[finding.severity])
        rows.append(FindingRow(f"{base}|{seen[base]}", finding, labels[label]))
    return rows


@dataclass(frozen=True)
class FindingsShown:
    """What the view shows of a store's findings, made in the load worker (on a 50 MB index
    half a million rows take seconds, which the UI thread must not spend)."""

    rows: list[FindingRow]
    tally: Text


def shown_findings(findings: list[Finding], types: Mapping[str, str | None],
                   duplicates_skipped: bool = False) -> FindingsShown:
    return FindingsShown(finding_rows(findings, types), tally(findings, duplicates_skipped))


AUDITING = FindingsShown([], Text("Auditing…", style="dim"))


def tally(findings: list[Finding], duplicates_skipped: bool) -> Text:
    """One line: how many findings of each severity."""
    if not findings:
        text = Text("No findings: Claude sees every memory.", style="green")
    else:
        counts = Counter(f.severity for f in findings)
        text = Text(f"{plural(len(findings), 'finding')}: ", style="bold")
        text.append(", ".join(f"{counts[s]:,} {PLURALS[s] if counts[s] > 1 else s}"
                              for s in SEVERITIES if counts[s]))
    if duplicates_skipped:
        text.append("  (near-duplicate check skipped: too many memories here; "
                    "`memtui audit` runs it)", style="dim")
    return text


class FindingsView(Vertical):
    DEFAULT_CSS = """
    FindingsView #findings-tally { height: 1; }
    FindingsView #findings-table { height: 1fr; }
    FindingsView #findings-detail {
        height: auto; max-height: 6; border-top: solid $primary-background;
    }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.rows: list[FindingRow] = []
        self.marked: set[str] = set()
        self.place: Place | None = None  # where the cursor was before a re-audit

    def compose(self) -> ComposeResult:
        yield Static(id="findings-tally")
        yield VirtualTable(COLUMNS, stretch="message", labels={"mark": ""}, keep_end={"where"},
                           priority=COLUMN_PRIORITY, grow={"where"}, fit={"kind"},
                           wrap="message", id="findings-table")
        yield Static(id="findings-detail")

    @property
    def table(self) -> VirtualTable:
        return self.query_one("#findings-table", VirtualTable)

    def show(self, shown: FindingsShown | None) -> None:
        """What `shown_findings` made, or None while the audit runs. After a fix the store
        is audited again: the cursor comes back to where it was, on the finding that took
        the fixed one's place."""
        if shown is None:
            if self.place is None and self.rows:
                self.place = self.table.place
            place, shown = None, AUDITING
        else:
            place, self.place = self.place or self.table.place, None
        self.rows = shown.rows
        if self.marked:
            self.marked &= {row.key for row in self.rows}
        self.query_one("#findings-tally", Static).update(shown.tally)
        self.table.set_rows(self.rows, place=place)
        self.table.set_marked(self.marked)
        self.show_detail()

    @property
    def highlighted(self) -> Finding | None:
        row = self.table.highlighted
        return row.finding if row is not None else None

    def chosen(self) -> list[Finding]:
        """The marked findings, else the highlighted one."""
        marked = [row.finding for row in self.rows if row.key in self.marked]
        if marked:
            return marked
        return [self.highlighted] if self.highlighted is not None else []

    def toggle_mark(self) -> None:
        row = self.table.highlighted
        if row is None:
            return
        self.marked.symmetric_difference_update({row.key})
        self.table.set_marked(self.marked)
        self.table.action_cursor_down()

    def clear_marks(self) -> None:
        self.marked.clear()
        self.table.set_marked(self.marked)

    def on_virtual_table_highlighted(self, event: VirtualTable.Highlighted) -> None:
        self.show_detail()  # and the event goes on up: the screen's footer follows it

    def show_detail(self) -> None:
        detail = self.query_one("#findings-detail", Static)
        finding = self.highlighted
        if finding is None:
            detail.update("")
            return
        style = SEVERITY_STYLE[finding.severity]
        text = Text.assemble((finding.severity, style), " ", (finding.kind, f"bold {style}"),
                             (f"  {visible(where(finding))}", "bold"), "\n",
                             visible(finding.message), "\n")
        keys = [self.key_label(binding_id) for binding_id in fixes(finding)]
        if keys:
            text.append("fix: ", style="bold")
            text.append(" · ".join(k for k in keys if k), style="dim")
            if note := fix_note(finding):
                text.append(f" ({note})", style="dim")
            if self.marked:
                text.append(f"  (on the {len(self.marked)} marked)", style="bold")
        else:
            text.append(NO_FIX.get(finding.kind, "nothing for memtui to fix"), style="dim")
        detail.update(text)

    def key_label(self, binding_id: str) -> str:
        for _, binding, _, _ in self.screen.active_bindings.values():
            if binding.id == binding_id:
                return f"{self.app.get_key_display(binding)} {binding.description.lower()}"
        return ""
