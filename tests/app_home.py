"""A small config home for the app tests: one project whose store shows every status."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from conftest import ClaudeHome, index_line, memory_text, write_index, write_memory

FIXED_MTIME = 1_767_225_600.0  # 2026-01-01 00:00 UTC
FILLER_LINES = 196  # with the 4 links above, the index reaches exactly 200 lines


@dataclass
class AppHome:
    home: Path
    env: dict[str, str]
    project: Path
    store: Path


def build_app_home(claude_home: ClaudeHome, tmp_path: Path) -> AppHome:
    project = tmp_path / "work" / "shop"
    project.mkdir(parents=True)
    claude_home.session(project, mtime=FIXED_MTIME + 3600)
    store = claude_home.store(project)
    memories = {
        "user_role.md": memory_text("user role", "the user is a backend engineer on the shop",
                                    "user", "Prefers Go and Postgres.\n"),
        "feedback_testing.md": memory_text("testing", "integration tests must hit a real database",
                                           "feedback"),
        "reference_dashboards.md": memory_text("dashboards", "grafana dashboards for checkout latency",
                                               "reference", "See grafana.internal/d/checkout.\n"),
        "project_launch.md": memory_text("launch", "the spring launch freezes merges in March",
                                         "project"),
        "project_orphan.md": memory_text("payments", "payments provider migration to stripe",
                                         "project", "We move to Stripe.\n**Why:** fees.\n"
                                         "**How to apply:** new code uses the stripe client.\n"),
    }
    for offset, (file, text) in enumerate(sorted(memories.items())):
        write_memory(store, file, text, mtime=FIXED_MTIME + offset)
    lines = [
        index_line("user_role.md", "User role", "backend engineer"),
        index_line("feedback_testing.md", "Testing", "real database in integration tests"),
        index_line("reference_dashboards.md", "Dashboards", "checkout latency"),
        index_line("gone.md", "Gone", "a memory deleted by hand"),
        *(f"- note {n}: kept for the fixture" for n in range(FILLER_LINES)),
        index_line("project_launch.md", "Launch", "merge freeze in March"),
    ]
    write_index(store, lines)
    os.utime(store / "MEMORY.md", (FIXED_MTIME, FIXED_MTIME))
    return AppHome(claude_home.home, dict(claude_home.env), project, store)


async def open_first_store(app, pilot, home: AppHome):
    """Push the store screen of the home's first project and wait until it has settled."""
    from conftest import settle

    from tui.app.screens.store import StoreScreen
    from tui.claude.discovery import discover

    project = discover(home.home, home.env).projects[0]
    screen = StoreScreen(project)
    app.push_screen(screen)
    await settle(app, pilot)
    return screen


def demo_app(folder: Path):
    """An app on the demo config home built in `folder`, and the demo's big store's project
    (past the cut, with orphans and every kind of finding)."""
    from tui.app.app import MemtuiApp
    from tui.claude.discovery import discover
    from tui.demo import build_demo

    demo = build_demo(folder)
    env = {"CLAUDE_CONFIG_DIR": str(demo.home)}
    webapp = max(discover(demo.home, env).projects, key=lambda project: project.memories)
    return MemtuiApp(demo.home, env), webapp


async def open_review(app, pilot, result):
    """Push the review of a run's `result` over the projects screen, settled."""
    from conftest import settle

    from tui.app.screens.review import ReviewScreen

    await settle(app, pilot)
    screen = ReviewScreen(result, "~/code/webapp")
    app.push_screen(screen)
    await settle(app, pilot)
    return screen
