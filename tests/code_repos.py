"""Real git repositories for checking memories against code: renames, chains, deletions,
ignored files, worktrees, submodules, shallow clones, made with the git CLI."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

SHOP_FILES = {
    "README.md": "# shop\n",
    ".gitignore": "build/\n.env\n",
    "src/billing/old_api.py": "def charge_amount(order):\n    return order.total\n",
    "src/billing/invoice.py": "class Invoice:\n    pass\n",
    "src/util/strings.py": "def slug(text):\n    return text.lower()\n",
    "docs/setup.md": "Run make.\n",
    "tests/test_billing.py": "def test_charge():\n    pass\n",
}


def git(repo: Path, *args: str, date: str = "2026-10-01T09:00:00+00:00") -> str:
    """git in `repo`, committing at `date` (author and committer)."""
    env = {**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    done = subprocess.run(["git", "-C", str(repo), *args], env=env, check=True,
                          capture_output=True, text=True)
    return done.stdout.strip()


def commit_files(repo: Path, files: dict[str, str], message: str, date: str) -> None:
    for name, text in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git(repo, "add", "--all")
    git(repo, "commit", "-q", "-m", message, date=date)


def new_repo(path: Path, files: dict[str, str], date: str = "2026-10-01T09:00:00+00:00") -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "core.hooksPath", os.devnull)
    commit_files(path, files, "initial", date)
    return path


def shop_repo(path: Path) -> Path:
    """A checkout whose history moved src/billing/old_api.py to src/payments/api.py on
    2026-11-02 (and deleted docs/setup.md then), and src/util/strings.py through
    src/util/text.py to src/common/text.py."""
    new_repo(path, SHOP_FILES)
    (path / "src" / "payments").mkdir(parents=True)
    git(path, "mv", "src/billing/old_api.py", "src/payments/api.py")
    git(path, "rm", "-q", "docs/setup.md")
    git(path, "commit", "-q", "-m", "payments move out of billing",
        date="2026-11-02T10:00:00+00:00")
    git(path, "mv", "src/util/strings.py", "src/util/text.py")
    git(path, "commit", "-q", "-m", "strings is text", date="2026-11-10T10:00:00+00:00")
    (path / "src" / "common").mkdir()
    git(path, "mv", "src/util/text.py", "src/common/text.py")
    git(path, "commit", "-q", "-m", "text is common", date="2026-11-20T10:00:00+00:00")
    return path


def commit_of(repo: Path, message: str) -> str:
    """The abbreviated id of the commit with this subject."""
    return git(repo, "log", "--format=%h", f"--grep=^{message}$")
