"""Human output for the CLI: Rich tables, colour only where the terminal supports it."""

from __future__ import annotations

import heapq
import os
import re
import shlex
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from tui.claude import paths
from tui.claude.discovery import Project
from tui.disk_errors import unwritable
from tui.memory import triage
from tui.visible import raw_stream, visible
from tui.words import plural

UNWRAPPED = 100_000  # the width human output gets when it is not going to a terminal
SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
SHOWN_PER_KIND = 8  # findings of one costly kind printed by `audit`; a count says how many more


def condense(path: str | None, home: str | None = None) -> str:
    """A path as a user reads it: the home directory as `~`, control characters shown."""
    if not path:
        return "?"
    home = home or os.path.expanduser("~")  # Path.home(), 4x slower, for every row of a table
    if path == home or path.startswith(home.rstrip("/") + "/"):
        return visible("~" + path[len(home.rstrip("/")):])
    return visible(path)


def condense_paths(text: str, home: str | None = None) -> str:
    """A sentence with every path under the home directory written from `~`: a path starts
    the text or follows a space or an opening bracket."""
    home = (home or os.path.expanduser("~")).rstrip("/")
    if not home:
        return text
    return re.sub(rf"(?<![^\s(\[]){re.escape(home)}(?=/|$|[\s.,:;)\]])", "~", text)


def store_place(store: Path, key_path: str | None) -> str:
    """Where a store lives, condensed; its folder under projects/ is shown as `…` when it is
    named after `key_path`, the project path a screen's title already shows."""
    if key_path and store.name == "memory" and \
            paths.folder_matches(store.parent.name, paths.sanitize(key_path)):
        return f"{condense(str(store.parent.parent))}/…/memory"
    return condense(str(store))


def _console() -> Console:
    """Rich writes our colours to the real stream; data reaches it through `visible()`.
    Piped or redirected, lines are never wrapped: a path cut in two is no path."""
    out = raw_stream(sys.stdout)
    if out.isatty():
        return Console(file=out)
    return Console(file=out, width=UNWRAPPED)


def _print_table(console: Console, table: Table) -> None:
    """A table on a terminal as Rich draws it; for a pipe without the spaces Rich pads each
    line's last cell and the title with, which `grep 'ok$'` and `diff` would trip on."""
    if console.is_terminal:
        console.print(table)
        return
    with console.capture() as captured:
        console.print(table)
    console.file.write("".join(f"{line.rstrip(' ')}\n" for line in captured.get().splitlines()))


def _fill(console: Console) -> int | None:
    """The ratio that lets a column take the terminal's spare width; none when piped."""
    return 1 if console.is_terminal else None


def age(timestamp: float | None, now: float | None = None) -> str:
    if timestamp is None:
        return "never"
    seconds = max(0.0, (now or time.time()) - timestamp)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit} ago"
    return "just now"


# A project's state in one word or three, the same in the CLI and the app (README: Words).
PROJECT_STATUS_STYLES = {
    "ok": "",
    "stranded": "bold red",
    "rescued": "green",
    "no store": "yellow",
    "no sessions": "cyan",
    "no memory yet": "dim",
    "read-only": "bold yellow",
}


def project_status(project: Project, rescued: bool = False) -> str:
    """`rescued`: the project is a stranded store whose rescue is done (rescue.py)."""
    if project.store is None:
        return "no store"
    if project.stranded:
        return "rescued" if rescued else "stranded"
    if project.resting:
        return "no sessions"
    if not project.store_exists:
        return "no memory yet"
    if unwritable(project.store):
        return "read-only"
    return "ok"


@dataclass(frozen=True)
class ProjectRow:
    project: Project
    path: str
    status: str
    rescued_into: Path | None = None  # the live store holding a rescued store's memories


def project_rows(projects: list[Project],
                 rescued: Mapping[Path, Path] | None = None) -> list[ProjectRow]:
    """`rescued`: the stranded stores whose rescue is done, and where their memories are."""
    rescued = rescued or {}
    rows = []
    for project in projects:
        path = project.key_path or (project.paths[0] if project.paths else project.name)
        live = rescued.get(project.store) if project.store else None
        rows.append(ProjectRow(project, condense(path), project_status(project, live is not None),
                               live))
    return rows


def print_projects(rows: list[ProjectRow], home: Path) -> None:
    console = _console()
    table = Table(title=f"Claude Code projects in {condense(str(home))}", title_justify="left",
                  box=None, header_style="bold", pad_edge=False)
    table.add_column("project", overflow="fold", ratio=_fill(console))
    table.add_column("memories", justify="right", no_wrap=True)
    table.add_column("sessions", justify="right", no_wrap=True)
    table.add_column("folders", justify="right", no_wrap=True)
    table.add_column("last dream", no_wrap=True)
    table.add_column("status", no_wrap=True)
    for row in rows:
        project = row.project
        table.add_row(
            row.path,
            str(project.memories) if project.store else "-",
            str(project.sessions),
            str(len(project.transcript_folders)),
            age(project.last_consolidated),
            Text(row.status, style=PROJECT_STATUS_STYLES[row.status]),
        )
    _print_table(console, table)
    for row in rows:
        reason = row.project.stranded_reason or row.project.note
        if row.rescued_into is not None:
            store = visible(shlex.quote(str(row.project.store)))
            reason = (f"every memory of it is in {condense(str(row.rescued_into))} already; "
                      f"memtui fix {store} retire archives it (memtui undo brings it back)")
        if row.status == "read-only":
            reason = (f"{condense(str(row.project.store))} cannot be written "
                      f"({unwritable(row.project.store)}): Claude Code cannot save a memory "
                      "there, and no repair can be applied")
        if reason:
            console.print(Text(f"{row.status}: {visible(reason)}", style="dim"))


def print_audit(report, target, no_rescue: str | None = None) -> None:
    """`no_rescue`: why a stranded store has no store to be rescued into, when it has none."""
    from tui.memory.index import MAX_LINES  # loaded with the store

    console = _console()
    store = report.store
    console.print(Text(f"Store {condense(str(store.path))}", style="bold"))
    if target.project_path:
        console.print(Text(f"project {condense(target.project_path)} ({target.how}, {target.source})"))
    if target.how == "project path":  # the store a path names is Claude Code's choice
        console.print(Text(f"chosen because {condense_paths(visible(target.why))}"))
    if target.passed_over:
        passed_over = condense(str(target.passed_over))
        console.print(Text(f"not {passed_over}: the store keyed by that path itself, which no "
                           f"session loads (`memtui fix {passed_over} rescue` brings its "
                           "memories here)", style="yellow"))
    for name, index_file in zip(("index", "team index"), store.indexes, strict=False):
        index = index_file.loaded
        gauge = f"{name} {index.lines:,}/200 lines, {index.chars:,}/25,000 chars"
        if index.cut:
            gauge += f"  (cut by {index.cut}: {index.loaded_lines:,} lines loaded)"
        console.print(gauge, style="red" if index.cut else "")
    logs = sum(1 for memory in store.memories if memory.is_log)
    of_which = f" ({plural(logs, 'daily log')})" if logs else ""
    console.print(f"{plural(len(store.memories), 'memory', 'memories')}{of_which}, "
                  f"{plural(len(report.findings), 'finding')}")
    if not report.findings:
        console.print(Text("No findings: Claude sees every memory.", style="green"))
        return
    cost = triage.cost(report.findings)
    headline = cost.headline(len(store.memories))
    console.print(Text(headline[:1].upper() + headline[1:] + ".",
                       style="bold red" if cost.needs_look else "green"))
    groups: dict[tuple[str, str], list] = {}
    for finding in report.findings:
        groups.setdefault((finding.severity, finding.kind), []).append(finding)
    order = triage.kind_order(report.findings)
    costliest = triage.costliest({memory.file: memory.type for memory in store.memories})

    elided = False
    hinted: set[str] = set()
    # The index lines the cut can still take, against the memories that want one.
    room = max(0, MAX_LINES - store.index.loaded_lines) - cost.unseen
    sections = {group: triage.section(groups[group][0]) for group in order}
    first = [group for group in order if sections[group]]
    for title in [title for title, _ in triage.FIRST] + [triage.OTHER_ERRORS]:
        shown = [group for group in first if sections[group] == title]
        if not shown:
            continue
        console.print()
        console.print(Text(title, style="bold"))
        for group in shown:
            found = groups[group]
            # Only what is printed is sorted: a 50 MB index has half a million findings.
            for finding in heapq.nsmallest(SHOWN_PER_KIND, found, key=costliest):
                console.print(_finding_line(finding))
            if len(found) > SHOWN_PER_KIND:
                elided = True
                console.print(Text(f"        ... and {len(found) - SHOWN_PER_KIND:,} more "
                                   f"{group[1]}", style="dim"))
            _print_fix(console, group[1], found, store.path, no_rescue, hinted, room)
    rest = [group for group in order if group not in first]
    if rest:
        console.print()
        console.print(Text("Also found" if first else "Found", style="bold"))
    for group in rest:
        found = groups[group]
        example = min(found, key=lambda f: (f.file or "", f.line or 0))
        if len(found) > 1:
            elided = True
        console.print(_finding_line(example, count=len(found)))
        _print_fix(console, group[1], found, store.path, no_rescue, hinted, room)
    if elided:
        console.print(Text("memtui audit --json lists every finding.", style="dim"))


def _print_fix(console: Console, kind: str, found, store: Path, no_rescue: str | None,
               hinted: set[str], room: int) -> None:
    """The repair of a group of findings, when memtui has one and has not said it; `room`:
    the index lines left in the cut once every unseen memory has one (below 0: they do
    not all fit)."""
    quoted = visible(shlex.quote(str(store)))
    if kind == "stranded_store" and no_rescue:
        hint = (f"no rescue: no store to copy its memories into "
                f"({condense_paths(visible(no_rescue))})")
    elif kind == "stranded_store":
        hint = f"fix: memtui fix {quoted} rescue copies its memories into the store its sessions use"
    elif kind == "rescued_store":
        hint = f"fix: memtui fix {quoted} retire archives it (memtui undo brings it back)"
    elif kind in ("unindexed", "beyond_cut") and room >= 0:
        hint = f"fix: memtui fix {quoted} relink puts them inside the loaded cut"
    elif kind in ("unindexed", "beyond_cut"):
        hint = ("fix: they do not all fit in the loaded cut: "
                f"memtui fix {quoted} relink FILE... links the ones Claude should see")
    elif kind == "stale_path" and any(f.other for f in found):
        hint = f"fix: memtui fix {quoted} repath writes each renamed path's successor in its place"
    else:
        return
    if hint not in hinted:
        hinted.add(hint)
        console.print(Text(f"        {hint}", style="dim"))


def _finding_line(finding, count: int = 1) -> Text:
    """A finding; with a `count`, as the example of that many of its kind."""
    line = Text()
    line.append(f"{finding.severity:<8}", style=SEVERITY_STYLE[finding.severity])
    line.append(f"{finding.kind}  ", style="bold")
    if count > 1:
        line.append(f"×{count:,}, e.g. ", style="bold")
    line.append(visible(finding.message))
    # beyond_cut's line is the MEMORY.md line, which its message already names.
    if finding.line and finding.file and finding.kind != "beyond_cut":
        line.append(f"  ({visible(finding.file)}:{finding.line})", style="dim")
    return line


NEEDS_A_LOOK = 5  # stores `audit --all` names first


def print_audit_summary(audits, labels: dict[Path, str]) -> None:
    console = _console()
    costs = {audit.store: triage.cost(audit.findings) for audit in audits}
    ranked = sorted((audit for audit in audits if costs[audit.store].needs_look),
                    key=lambda audit: costs[audit.store].rank)
    if ranked:
        console.print(Text(f"Needs a look first ({len(ranked)} of {plural(len(audits), 'store')}"
                           " with errors):", style="bold"))
        for place, audit in enumerate(ranked[:NEEDS_A_LOOK], start=1):
            line = Text(f"{place:>2}. ")
            line.append(condense(labels.get(audit.store, str(audit.store))), style="bold")
            line.append(f"  {costs[audit.store].headline(audit.memories)}")
            console.print(line)
        if len(ranked) > NEEDS_A_LOOK:
            console.print(Text(f"    ... and {len(ranked) - NEEDS_A_LOOK} more (errors column)",
                               style="dim"))
        console.print(Text("memtui audit STORE says what and how to fix it.", style="dim"))
        console.print()
    else:
        console.print(Text(f"No store hides a memory from Claude ({plural(len(audits), 'store')}"
                           " audited).", style="green"))
    table = Table(box=None, header_style="bold", pad_edge=False)
    table.add_column("project", overflow="fold", ratio=_fill(console))
    table.add_column("memories", justify="right", no_wrap=True)
    table.add_column("errors", justify="right", no_wrap=True)
    table.add_column("warnings", justify="right", no_wrap=True)
    for audit in audits:
        warnings = sum(1 for f in audit.findings if f.severity == "warning")
        table.add_row(
            condense(labels.get(audit.store, str(audit.store))), str(audit.memories),
            Text(str(audit.errors), style="bold red" if audit.errors else "green"),
            str(warnings),
        )
    _print_table(console, table)
    cached = sum(1 for audit in audits if audit.cached)
    if cached:
        console.print(Text(f"{cached} of {len(audits)} stores unchanged since the last audit, "
                           "answered from the cache (--no-cache reads them all)", style="dim"))


MATCH_STYLE = "bold reverse"


def marked_text(line: str, marks, style: str = "", match_style: str = MATCH_STYLE) -> Text:
    """A line with its [start, end) marks styled, every part made visible (a control
    character's picture may be longer than it: the marks follow the parts, not offsets)."""
    text = Text(style=style)
    done = 0
    for start, end in marks:
        text.append(visible(line[done:start]))
        text.append(visible(line[start:end]), style=match_style)
        done = end
    text.append(visible(line[done:]))
    return text


def print_search_hits(hits, total: int) -> None:
    """Each hit: its project, file and line number, and type; its description; the matching
    line with the match marked. How many more matched goes to stderr."""
    console = _console()
    for hit in hits:
        document = hit.document
        head = Text()
        head.append(condense(document.project), style="bold")
        head.append("  ")
        head.append(visible(document.file), style="cyan")
        if hit.line_number is not None:
            head.append(f":{hit.line_number}", style="cyan")
        head.append("  ")
        head.append(visible(document.type or "-"), style="magenta" if document.type else "dim")
        console.print(head, soft_wrap=True)
        if document.description and hit.field != "description":
            console.print(Text("  " + visible(document.description), style="dim"),
                          soft_wrap=True)
        line = marked_text(hit.line, hit.marks)
        console.print(Text("  ") + line, soft_wrap=True)
    if total > len(hits):
        print(f"memtui: {len(hits)} of {plural(total, 'memory', 'memories')} that match "
              "shown; --limit 0 shows them all.", file=sys.stderr)
