"""`memtui projects`, `audit` and `index`: what the config home and its stores hold.

Exit codes: 0 fine, 1 audit found errors, 2 bad usage or unreadable input.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path

from tui.claude import paths
from tui.claude.memory_files import TEAM_FOLDER
from tui.cli.support import (
    UsageError,
    command_name,
    config_home_of,
    env_of,
    existing_store,
    print_json,
    tidy_store,
)


def cmd_projects(args: argparse.Namespace) -> int:
    from tui.claude.discovery import discover

    home = projects_home(args)
    inventory = discover(home, env_of(args), args.settings)
    rescued = {}
    if any(project.stranded for project in inventory.projects):  # rescue.py loads the writes
        from tui.memory.rescue import rescued_stores

        rescued = rescued_stores(inventory.projects, home, env_of(args), args.settings)
    if args.json:
        print_json([project_to_json(p, rescued.get(p.store) if p.store else None)
                    for p in inventory.projects])
    else:
        from tui.render import print_projects, project_rows  # Rich only for human output

        print_projects(project_rows(inventory.projects, rescued), home)
    return 0


def project_to_json(project, rescued_into: Path | None = None) -> dict:
    """`rescued_into`: for a stranded store whose rescue is done, the store holding its
    memories."""
    return {
        "name": project.name,
        "store": str(project.store) if project.store else None,
        "store_exists": project.store_exists,
        "key_path": project.key_path,
        "paths": list(project.paths),
        "transcript_dirs": [str(d) for d in project.transcript_dirs],
        "transcript_folders": [
            {
                "path": str(f.path),
                "cwd": f.cwds[0] if f.cwds else None,
                "role": f.role,
                "mapped_by": f.mapped_by,
                "sessions": f.sessions,
                "note": f.note or None,
            }
            for f in project.transcript_folders
        ],
        "sessions": project.sessions,
        "memories": project.memories,
        "stranded": project.stranded,
        "stranded_reason": project.stranded_reason or None,
        "rescued_into": str(rescued_into) if rescued_into else None,
        "resting": project.resting,
        "last_consolidated": project.last_consolidated,
        "note": project.note or None,
    }


def _load_target(args: argparse.Namespace):
    from tui.memory.store import load_store

    target = existing_store(args, args.target)
    return target, load_store(target.memory_dir)


def projects_home(args: argparse.Namespace) -> Path:
    """The config home of a whole-tree command; UsageError when it has no projects."""
    home = config_home_of(args)
    if not os.path.isdir(paths.projects_dir(home)):
        raise UsageError(
            f"No Claude Code projects folder at {paths.projects_dir(home)}; "
            f"set CLAUDE_CONFIG_DIR or run `{command_name()} demo` to try memtui on demo data."
        )
    return home


def cmd_audit_all(args: argparse.Namespace) -> int:
    from contextlib import nullcontext

    from tui.claude.discovery import discover
    from tui.collector import collector_paused
    from tui.memory.audit_cache import AuditCache
    from tui.memory.bulk import AuditRun, checked_against_code

    home = projects_home(args)
    for store in likely_stores(home):  # what a killed memtui left, as for one named store
        tidy_store(store)
    # A one-shot run of ~100,000 objects without cycles: collecting them only costs (~10%).
    with collector_paused():
        with nullcontext() if args.no_cache else AuditCache() as cache, \
                AuditRun(cache=cache) as run:
            run.start(likely_stores(home))  # audited by the workers while discovery runs
            inventory = discover(home, env_of(args), args.settings)
            audits = run.finish([(p.store, p.stranded_reason or None)
                                 for p in inventory.projects if p.store_exists])
            audits = checked_against_code(audits, {p.store: p.key_path for p in
                                                   inventory.projects if p.store_exists}, cache)
        audits = [_with_rescue(args, audit) for audit in audits]
        if args.json:
            from tui.memory.triage import cost

            print_json([
                {"store": str(a.store), "memories": a.memories, "errors": a.errors,
                 "cached": a.cached, "cost": cost(a.findings).to_json(),
                 "findings": [f.to_json() for f in a.findings]}
                for a in audits
            ])
        else:
            from tui.render import print_audit_summary

            labels = {p.store: p.key_path or str(p.store) for p in inventory.projects if p.store}
            print_audit_summary(audits, labels)
    return 1 if any(a.errors for a in audits) else 0


def _with_rescue(args: argparse.Namespace, audit):
    """A stranded store's audit, its `stranded_store` error an info once its rescue is done."""
    from dataclasses import replace

    if not any(f.kind == "stranded_store" for f in audit.findings):
        return audit
    return replace(audit, findings=tuple(_rescued(args, audit.store, audit.findings)))


def _rescued(args: argparse.Namespace, store: Path, findings):
    """`findings` of a stranded store, told it is rescued when every memory is home."""
    from tui.memory.finding import rescued_findings
    from tui.memory.rescue import finished_rescue

    rescue = finished_rescue(store, config_home_of(args), env_of(args), args.settings)
    if rescue is None:
        return findings
    return rescued_findings(findings, str(rescue.live), rescue.memories,
                            shlex.quote(str(store)))


def likely_stores(home: Path) -> list[Path]:
    """The memory dirs under the projects folder: most of what discovery will find."""
    projects = paths.projects_dir(home)
    try:
        names = os.listdir(projects)
    except OSError:
        return []
    return [store for name in names
            if os.path.isdir(store := projects / name / paths.MEMORY_DIR_NAME)]


def cmd_audit(args: argparse.Namespace) -> int:
    if args.all:
        if args.target:
            raise UsageError("Give either a TARGET or --all, not both.")
        return cmd_audit_all(args)
    from tui.memory.audit import audit_store  # after --all: the cache may answer every store
    from tui.memory.report import AuditReport
    from tui.memory.stale_paths import code_findings

    target, store = _load_target(args)
    untrusted = (target.untrusted.value, target.untrusted.source) if target.untrusted else None
    findings = audit_store(
        store, stranded_reason=target.stranded_reason, untrusted_setting=untrusted
    )
    findings += code_findings(store, target.project_path)
    if target.stranded_reason:
        findings = _rescued(args, store.path, findings)
    report = AuditReport(store, tuple(findings))
    if args.json:
        print_json({**report.to_json(), "target": target.to_json()})
    else:
        from tui.render import print_audit

        print_audit(report, target, _no_rescue(args, store.path, target.stranded_reason))
    return 1 if report.errors else 0


def _no_rescue(args: argparse.Namespace, store: Path, stranded_reason: str | None) -> str | None:
    """Why a stranded store has no rescue (no live store to copy its memories into), so the
    audit does not offer one `memtui fix ... rescue` would refuse; None when it has one."""
    if not stranded_reason:
        return None
    from tui.claude.discovery import live_store

    found = live_store(store, config_home_of(args), env_of(args), args.settings)
    return found.why if found.stranded and found.store is None else None


def cmd_index(args: argparse.Namespace) -> int:
    _, store = _load_target(args)
    index = store.team_index if args.team else store.indexes[0]
    if index is None:
        team = store.path / TEAM_FOLDER
        if os.path.lexists(team):
            raise UsageError(f"{team} is no folder (a file, or a link to none): no team memory "
                             "to print.")
        raise UsageError(f"{store.path} has no team/ folder: no team memory to print.")
    index_path = store.path / index.file
    if index.not_text:
        raise UsageError(f"{index_path} is not text ({index.not_text}); "
                         "memtui does not print it.")
    if index.error and not index.loaded.exists:
        raise UsageError(f"{store.path}: {index.error}.")
    if not index.loaded.exists:
        # No index is a state Claude Code knows: it loads none, so there is nothing to print.
        kind = "team index" if args.team else "index"
        print(f"memtui: {store.path} has no {index.file}: Claude Code loads no {kind} for it.",
              file=sys.stderr)
        return 0
    text = index.loaded.model_text if args.loaded else (index.text or "")
    sys.stdout.write(text if text.endswith("\n") or not text else text + "\n")
    return 0


def add_store_commands(commands) -> None:
    projects = commands.add_parser("projects", help="every project and memory store")
    projects.add_argument("--json", action="store_true", help="machine-readable output")
    projects.set_defaults(run=cmd_projects)

    audit = commands.add_parser("audit", help="findings for one store (exit 1 on errors)")
    audit.add_argument("target", nargs="?", help="memory dir, project path, project name or folder name")
    audit.add_argument("--json", action="store_true", help="machine-readable output")
    audit.add_argument("--all", action="store_true", help="every store under the config home")
    audit.add_argument("--no-cache", action="store_true",
                       help="with --all: read every store again, even unchanged ones")
    audit.set_defaults(run=cmd_audit)

    index = commands.add_parser("index", help="print MEMORY.md")
    index.add_argument("target", nargs="?", help="memory dir, project path, project name or folder name")
    index.add_argument("--loaded", action="store_true",
                       help="print exactly what Claude loads, warning included")
    index.add_argument("--team", action="store_true",
                       help="team/MEMORY.md, the index of team memory, instead")
    index.set_defaults(run=cmd_index)
