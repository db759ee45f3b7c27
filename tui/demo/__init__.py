"""`memtui demo`: a realistic Claude Code config home to try memtui on.

Everything is generated here (no user data): real git repositories with worktrees under
`<root>/code`, and under `<root>/claude` the stores and transcripts Claude Code would have
left after a few weeks of work, including every problem memtui finds.

A demo built in the temp dir is named after the process that built it
(`memtui-demo-<pid>-…`) and lasts until it is replaced: the next demo built removes those
whose process has ended, and this process's own earlier ones, so trying the demo again and
again leaves one folder, not one per try.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from tui.claude.paths import MEMORY_DIR_NAME, normalize_path, projects_dir, sanitize

MARKER = ".memtui-demo"
TEMP_PREFIX = "memtui-demo-"
HOME_NAME = "claude"  # the demo's config home, beside the marker
DAY = 86_400.0


@dataclass(frozen=True)
class Demo:
    root: Path  # holds everything
    home: Path  # the config home (CLAUDE_CONFIG_DIR)
    audit_example: str  # a project path that makes a good `memtui audit` example


def _prepare(where: Path | None) -> Path:
    """An empty folder to build in: new, empty, or a previous demo (which is cleared)."""
    if where is None:
        remove_replaced_demos()
        return Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-"))
    if where.exists() and not where.is_dir():
        raise ValueError(f"{where} is a file; give a new or empty folder for the demo.")
    if not where.exists():
        try:
            where.mkdir(parents=True)
        except OSError as error:
            raise ValueError(f"Cannot make the folder {where} for the demo: "
                             f"{error.strerror or error}.") from None
    elif (where / MARKER).is_file():
        for child in where.iterdir():
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
    elif any(where.iterdir()):
        raise ValueError(
            f"{where} is not empty and holds no memtui demo; give a new or empty folder."
        )
    return where


def remove_replaced_demos() -> int:
    """Remove the temp-dir demos a new one replaces: built by a process that has ended, or
    by this one; how many were removed. A demo another running memtui built stays."""
    from tui.claude.lock import pid_alive
    from tui.xdg import temp_folders

    removed = 0
    for entry, builder in temp_folders(TEMP_PREFIX):
        if builder is None or not (entry / MARKER).is_file():
            continue  # not a demo this memtui named (nor a folder of the user's)
        if builder == os.getpid() or not pid_alive(builder):
            shutil.rmtree(entry, ignore_errors=True)
            removed += 1
    return removed


def is_demo_home(home: Path) -> bool:
    """True for the config home of a demo `build_demo` made (its folder holds the marker)."""
    return home.name == HOME_NAME and (home.parent / MARKER).is_file()


def _store(projects: Path, path: str) -> Path:
    return projects / sanitize(path) / MEMORY_DIR_NAME


def build_demo(where: Path | None = None, *, now: float | None = None) -> Demo:
    """Build the demo in `where` (default: a new temp dir); `now` fixes every timestamp."""
    from tui.demo import memories, repos, sessions, stores

    now = time.time() if now is None else now
    root = Path(normalize_path(_prepare(where)))
    marker = root / MARKER
    marker.write_text("A memtui demo; `memtui demo` may rebuild this folder.\n")
    os.utime(marker, (now, now))
    home = root / HOME_NAME
    code = root / "code"
    projects = projects_dir(home)

    created = now - 150 * DAY
    webapp = repos.create_webapp(code, created)
    cli_tool = repos.create_cli_tool(code, created)
    notes = repos.create_notes_app(code, created)
    webapp_path = normalize_path(webapp.root)
    feature_auth = normalize_path(webapp.worktrees["feature-auth"])
    deleted = str(webapp.deleted_worktree)
    places = sessions.Places(
        projects=projects,
        webapp=webapp_path,
        frontend=normalize_path(webapp.subdirectory),
        feature_auth=feature_auth,
        fix_cache=normalize_path(webapp.worktrees["fix-cache"]),
        deleted_worktree=deleted,
        cli_tool=normalize_path(cli_tool),
        gone_project=str(code / "graphql-spike"),
        webapp_store=_store(projects, webapp_path),
        stranded_store=_store(projects, feature_auth),
        cli_store=_store(projects, normalize_path(cli_tool)),
    )

    webapp_texts = stores.write_store(places.webapp_store, memories.webapp_plan(), now)
    stores.write_daily_logs(places.webapp_store, now, {
        3: ["Checkout e2e flake traced to the 3-D Secure iframe timeout.",
            "User prefers one PR per migration; asked to split WEB-4190."],
        1: ["Release freeze confirmed with Marcus; hotfixes only after it starts.",
            "Cache key for product prices now includes the currency."],
    })
    stores.write_stale_lock(places.webapp_store, now - 2.2 * DAY)
    stranded_texts = stores.write_store(places.stranded_store, memories.stranded_plan(), now)
    cli_texts = stores.write_store(places.cli_store, memories.healthy_plan(), now)
    stores.write_store(_store(projects, normalize_path(notes)), memories.resting_plan(), now)

    sessions.write_sessions(places, now, webapp_texts, stranded_texts, cli_texts)
    return Demo(root, home, webapp_path)
