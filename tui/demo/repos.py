"""The demo's source trees: real git repositories, worktrees included."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from tui.demo.memories import COMPONENTS

AUTHOR = ("Dana Developer", "dana@example.com")

WEBAPP_FILES = {
    "README.md": "# webapp\n\nCustomer-facing web app: API in `api/`, React frontend in `frontend/`.\n",
    "package.json": '{\n  "name": "webapp",\n  "private": true,\n  "packageManager": "pnpm@9.12.0"\n}\n',
    "api/server.ts": "export function start(port = 8080) {\n  console.log(`listening on ${port}`);\n}\n",
    "frontend/package.json": '{\n  "name": "@webapp/frontend",\n  "private": true\n}\n',
    "frontend/src/App.tsx": "export function App() {\n  return <main>webapp</main>;\n}\n",
    "tests/conftest.ts": "export async function db() {\n  return connect(process.env.TEST_DB);\n}\n",
}
# What the memories say of each component holds: its tests, its settings.
WEBAPP_FILES.update({
    path: text for slug, _ in COMPONENTS for path, text in (
        (f"tests/{slug}/{slug}.test.ts", f"test('{slug}', () => {{}});\n"),
        (f"config/{slug}.yaml", f"{slug}:\n  enabled: true\n"),
    )
})
# Moved after a memory named it: the demo's `stale_path` finding, and `p` rewrites it.
WEBAPP_MOVE = ("tests/conftest.ts", "tests/fixtures/db.ts", 128)  # (from, to, days after start)
CLI_FILES = {
    "Cargo.toml": '[package]\nname = "acme-release"\nversion = "0.4.2"\nedition = "2021"\n',
    "src/main.rs": 'fn main() {\n    println!("acme-release");\n}\n',
}
NOTES_FILES = {"README.md": "# Notes app\n\nA SwiftUI notes app with Automerge sync.\n"}


@dataclass(frozen=True)
class Webapp:
    root: Path
    subdirectory: Path
    worktrees: dict[str, Path]  # branch -> live worktree
    deleted_worktree: Path  # added, then removed from disk


def _write_tree(root: Path, files: dict[str, str], when: float) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        os.utime(path, (when, when))


def _repository(root: Path, files: dict[str, str], when: float, commit: bool = True):
    """`git init` with a branch named main, the files and (optionally) one commit."""
    import git

    root.mkdir(parents=True, exist_ok=True)
    repo = git.Repo.init(root, initial_branch="main")
    with repo.config_writer() as config:
        # A user's global hooks must not run inside the demo (speed, side effects).
        config.set_value("core", "hooksPath", os.devnull)
    _write_tree(root, files, when)
    if commit:
        _commit(repo, "Initial commit", when)
    return repo


def _commit(repo, message: str, when: float) -> None:
    """Commit everything in the work tree, as the demo's author at `when`."""
    name, email = AUTHOR
    stamp = f"{int(when)} +0000"
    # Two git calls in all: GitPython's index would spawn one `hash-object` per file.
    with repo.git.custom_environment(
        GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=email, GIT_AUTHOR_DATE=stamp,
        GIT_COMMITTER_NAME=name, GIT_COMMITTER_EMAIL=email, GIT_COMMITTER_DATE=stamp,
    ):
        repo.git.add("--all")
        repo.git.commit("-m", message, "--no-verify", "--no-gpg-sign")


def create_webapp(code: Path, when: float) -> Webapp:
    """The main repository (with a file moved after a memory named it), two live
    worktrees and one that was deleted by hand."""
    root = code / "webapp"
    worktrees_dir = code / "webapp-worktrees"
    worktrees = {}
    with _repository(root, WEBAPP_FILES, when) as repo:
        old, new, days = WEBAPP_MOVE
        (root / new).parent.mkdir(parents=True, exist_ok=True)
        os.replace(root / old, root / new)  # before the worktrees: none keeps the old name
        _commit(repo, "Move the db fixture out of conftest", when + days * 86_400)
        for branch in ("feature-auth", "fix-cache", "spike-sse"):
            repo.git.worktree("add", "-b", branch, str(worktrees_dir / branch))
            worktrees[branch] = worktrees_dir / branch
    deleted = worktrees.pop("spike-sse")
    shutil.rmtree(deleted)  # like `rm -rf`, without `git worktree remove`
    return Webapp(root, root / "frontend", worktrees, deleted)


def create_cli_tool(code: Path, when: float) -> Path:
    root = code / "cli-tool"
    _repository(root, CLI_FILES, when).close()
    return root


def create_notes_app(code: Path, when: float) -> Path:
    """A repository whose path has a space and a non-ASCII letter."""
    root = code / "café notes"
    _repository(root, NOTES_FILES, when, commit=False).close()
    return root
