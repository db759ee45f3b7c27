"""Every finding of a store, grouped by kind, each group with the keys that fix it."""

from __future__ import annotations

from itertools import groupby

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from tui.memory.audit import SEVERITIES, Finding
from tui.render import SEVERITY_STYLE
from tui.visible import visible

FIX_KEYS = {
    "unindexed": "r relink · e edit · a archive · D delete",
    "beyond_cut": "r relink · e edit · a archive · D delete",
    "linked_from": "r on the memory indexes it too",
    "dangling": "d remove dangling lines",
    "long_index_line": "S shorten long lines",
    "index_over_limit": "S shorten long lines · a archive · D delete",
    "duplicate": "a archive · D delete · e edit",
    "stranded_store": "",
    "secret": "X redact",
    "unmatched_wiki_link": "",  # a memory worth writing later: nothing to repair
}
DEFAULT_FIX = "e edit · a archive · D delete"
SHOWN_PER_KIND = 100  # a Static holding tens of thousands of rows would stall the screen


def _order(finding: Finding) -> tuple[int, str]:
    return SEVERITIES.index(finding.severity), finding.kind


def findings_renderable(findings: list[Finding], duplicates_skipped: bool = False) -> Group:
    parts: list = []
    if duplicates_skipped:
        parts.append(Text("Near-duplicate check skipped: this store is too large to compare "
                          "every pair here; `memtui audit` runs it.\n", style="dim"))
    if not findings:
        parts.append(Text("No findings: Claude sees every memory.", style="green"))
        return Group(*parts)
    for kind, group in groupby(sorted(findings, key=_order), key=lambda f: f.kind):
        items = list(group)
        severity = items[0].severity
        fix = FIX_KEYS.get(kind, DEFAULT_FIX)
        parts.append(Text.assemble(
            (f"{kind} ", "bold"), (f"({len(items)}, {severity})", SEVERITY_STYLE[severity]),
            (f"   fix: {fix}" if fix else "", "dim"),
        ))
        table = Table(show_header=False, box=None, padding=(0, 1), expand=True)
        table.add_column("where", no_wrap=True, ratio=1)
        table.add_column("message", ratio=4)
        for finding in items[:SHOWN_PER_KIND]:
            where = finding.file or ""
            if finding.line:
                where += f":{finding.line}"
            table.add_row(Text(visible(where)), Text(visible(finding.message)))
        parts.append(table)
        if len(items) > SHOWN_PER_KIND:
            parts.append(Text(f"  … and {len(items) - SHOWN_PER_KIND} more", style="dim"))
        parts.append(Text(""))
    return Group(*parts)


class FindingsView(VerticalScroll):
    def compose(self):
        yield Static(id="findings-text")

    def show(self, findings: list[Finding], duplicates_skipped: bool = False) -> None:
        self.query_one("#findings-text", Static).update(
            findings_renderable(findings, duplicates_skipped)
        )
