"""Human output for the CLI: Rich tables, colour only where the terminal supports it."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from tui.claude.discovery import Project

SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def condense(path: str | None, home: str | None = None) -> str:
    """A path as a user reads it: the home directory as `~`."""
    if not path:
        return "?"
    home = home or str(Path.home())
    if path == home or path.startswith(home.rstrip("/") + "/"):
        return "~" + path[len(home.rstrip("/")):]
    return path


def age(timestamp: float | None, now: float | None = None) -> str:
    if timestamp is None:
        return "never"
    seconds = max(0.0, (now or time.time()) - timestamp)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit} ago"
    return "just now"


@dataclass(frozen=True)
class ProjectRow:
    project: Project
    path: str
    status: str


def project_rows(projects: list[Project]) -> list[ProjectRow]:
    rows = []
    for project in projects:
        if project.store is None:
            status = "unmapped"
        elif project.stranded:
            status = "stranded"
        elif project.resting:
            status = "resting"
        elif not project.store_exists:
            status = "no memory"
        else:
            status = "ok"
        path = project.key_path or (project.paths[0] if project.paths else project.name)
        rows.append(ProjectRow(project, condense(path), status))
    return rows


def print_projects(rows: list[ProjectRow], home: Path) -> None:
    console = Console()
    table = Table(title=f"Claude Code projects in {condense(str(home))}", title_justify="left")
    table.add_column("project")
    table.add_column("memories", justify="right")
    table.add_column("sessions", justify="right")
    table.add_column("folders", justify="right")
    table.add_column("consolidated")
    table.add_column("status")
    for row in rows:
        project = row.project
        style = {"stranded": "bold red", "unmapped": "yellow", "resting": "cyan"}.get(row.status, "")
        table.add_row(
            row.path,
            str(project.memories) if project.store else "-",
            str(project.sessions),
            str(len(project.transcript_folders)),
            age(project.last_consolidated),
            Text(row.status, style=style),
        )
    console.print(table)
    notes = [r for r in rows if r.project.stranded_reason or r.project.note]
    for row in notes:
        reason = row.project.stranded_reason or row.project.note
        console.print(Text(f"{row.path}: {reason}", style="dim"))


def print_audit(report, target) -> None:
    console = Console()
    store = report.store
    index = store.index
    console.print(Text(f"Store {condense(str(store.path))}", style="bold"))
    if target.project_path:
        console.print(f"project {condense(target.project_path)} ({target.how}, {target.source})")
    gauge = f"index {index.lines}/200 lines, {index.chars:,}/25,000 chars"
    if index.cut:
        gauge += f"  (cut by {index.cut}: {index.loaded_lines} lines loaded)"
    console.print(gauge, style="red" if index.cut else "")
    console.print(f"{len(store.memories)} memories, {len(report.findings)} findings")
    if not report.findings:
        console.print(Text("No findings: Claude sees every memory.", style="green"))
        return
    table = Table(show_header=True, header_style="bold")
    table.add_column("severity")
    table.add_column("kind")
    table.add_column("where")
    table.add_column("message", overflow="fold")
    for finding in report.findings:
        where = finding.file or ""
        if finding.line:
            where += f":{finding.line}"
        table.add_row(
            Text(finding.severity, style=SEVERITY_STYLE[finding.severity]),
            finding.kind, where, finding.message,
        )
    console.print(table)
