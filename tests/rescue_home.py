"""A stranded store in the shape issue #81833 leaves: a real repository, a worktree added
with git, sessions run in it that kept their own memory store, then the worktree removed
with git. The main checkout's store is where those memories belong now."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from conftest import (
    ClaudeHome,
    add_worktree,
    index_line,
    make_repo,
    memory_text,
    real,
    worktree_state_record,
    write_index,
    write_memory,
)

STRANDED_MTIME = 1_767_225_600.0  # 2026-01-01 00:00 UTC
TABS = memory_text("tabs", "indent with tabs in this repository", "feedback")
API = memory_text("api", "the public API is versioned by date", "reference")
NOTES = memory_text("release notes", "release notes are written by hand before each tag",
                    "project")
ROLE = memory_text("user role", "the user maintains the shop backend", "user")
LIVE_TESTING = memory_text("testing", "integration tests hit a real database", "feedback")
WORKTREE_TESTING = memory_text("testing", "the worktree's tests run against sqlite",
                               "feedback", "Use sqlite in the feature branch.\n")
TABS_LINE = "- [Tabs rule](feedback_tabs.md) — indent with tabs, never spaces"
API_LINE = "- [API versions](topics/api.md) — versioned by date, see the changelog"
TESTING_LINE = "- [Testing in the branch](feedback_testing.md) — sqlite, not postgres"


@dataclass
class RescueHome:
    claude: ClaudeHome
    repo: Path  # the main checkout, still there
    worktree: Path  # removed, unless the fixture kept it
    stranded: Path  # the store keyed by the worktree
    live: Path  # the main checkout's store

    @property
    def home(self) -> Path:
        return self.claude.home

    @property
    def env(self) -> dict[str, str]:
        return self.claude.env


def build_rescue_home(claude: ClaudeHome, tmp_path: Path, *, worktree_state: bool = True,
                      inside: bool = False, remove: bool = True,
                      live_store: bool = True) -> RescueHome:
    """`inside`: the worktree lived in the checkout (`.claude/worktrees/`, where
    `claude --worktree` puts it) rather than beside it."""
    repo = make_repo(tmp_path / "shop")
    checkout = real(tmp_path / "shop")
    place = checkout / ".claude" / "worktrees" / "shop-wt" if inside else tmp_path / "shop-wt"
    worktree = real(add_worktree(repo, place, "feature"))
    stranded = claude.store(worktree)
    for file, text in [("feedback_tabs.md", TABS), ("topics/api.md", API),
                       ("project_notes.md", NOTES), ("user_role.md", ROLE),
                       ("feedback_testing.md", WORKTREE_TESTING)]:
        write_memory(stranded, file, text, mtime=STRANDED_MTIME)
    write_index(stranded, ["# Memory", "", TABS_LINE, API_LINE,
                           index_line("user_role.md", "User role", "maintains the backend"),
                           TESTING_LINE])
    extra = [worktree_state_record(str(checkout), str(worktree))] if worktree_state else []
    claude.session(worktree, *extra)
    live = claude.store(checkout) if live_store else claude.projects / "unused"
    if live_store:
        write_memory(live, "user_role.md", ROLE)
        write_memory(live, "feedback_testing.md", LIVE_TESTING)
        write_index(live, [index_line("user_role.md", "User role", "maintains the backend"),
                           index_line("feedback_testing.md", "Testing", "a real database")])
    else:
        from tui.claude import paths

        live = claude.projects / paths.sanitize(str(checkout)) / paths.MEMORY_DIR_NAME
    claude.session(checkout)
    if remove:
        repo.git.worktree("remove", "--force", str(worktree))
        assert not os.path.exists(worktree)
    return RescueHome(claude, checkout, worktree, stranded, live)
