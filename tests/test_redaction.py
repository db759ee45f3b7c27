"""Redacting a secret leaves it in none of memtui's files: not in the store, the undo log,
the backup copies, the archive, the journal's history (any object git holds, reachable or
not) or the caches; and undo never brings it back."""

from __future__ import annotations

import base64
import binascii
import os
import re
import subprocess
import zlib
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import index_line, memory_text, settle, tool_use_record, user_record, write_index

from tui import cli
from tui.history.recovery import apply_journalled, write_journalled
from tui.memory import curate
from tui.memory.store import load_store

TOKEN = "ghp_" + "Zq7Lm2Xv9Bn4Kt8Wr3Hy6Pc1Fd5Js0Ga7Ue2M"  # a GitHub token's shape (fake)
DEPLOY = "project_deploy.md"
OLD_DEPLOY = "reference_old_deploy.md"
BASE64_RUN = re.compile(rb"[A-Za-z0-9+/]{16,}={0,2}")


def places_holding(secret: str) -> list[str]:
    """Every place in memtui's data, state and cache dirs that holds `secret`: a file's
    bytes, base64 inside a file (the undo log), a loose git object, and every object of
    every git repository there, reachable or not, loose or packed, with its whole history."""
    needle = secret.encode()
    found = []
    for variable in ("MEMTUI_DATA_DIR", "MEMTUI_STATE_DIR", "MEMTUI_CACHE_DIR"):
        for path in sorted(Path(os.environ[variable]).rglob("*")):
            if path.is_dir() and (path / "HEAD").is_file() and (path / "objects").is_dir():
                found += [f"{path}: {what}" for what in git_holding(path, needle)]
            elif path.is_file() and not path.is_symlink():
                data = path.read_bytes()
                if needle in data or needle in decoded(data) or needle in inflated(data):
                    found.append(str(path))
    return found


def git_holding(repository: Path, needle: bytes) -> list[str]:
    env = {**os.environ, "GIT_DIR": str(repository)}

    def git(*args: str) -> bytes:
        return subprocess.run(["git", *args], env=env, capture_output=True, check=True).stdout

    found = []
    if needle in git("cat-file", "--batch-all-objects", "--batch"):
        found.append("an object")
    if git("for-each-ref") and needle in git("log", "-p", "--all"):
        found.append("the history")
    revisions = git("rev-list", "--all").decode().split()
    if revisions and subprocess.run(["git", "grep", "-q", "-F", needle.decode(), *revisions],
                                    env=env, capture_output=True).returncode == 0:
        found.append("git grep")
    return found


def decoded(data: bytes) -> bytes:
    """Whatever base64 runs in `data` decode to."""
    parts = []
    for run in BASE64_RUN.findall(data):
        try:
            parts.append(base64.b64decode(run + b"=" * (-len(run) % 4)))
        except (binascii.Error, ValueError):
            continue
    return b"\n".join(parts)


def inflated(data: bytes) -> bytes:
    try:
        return zlib.decompress(data)
    except zlib.error:
        return b""


@dataclass
class Leaked:
    home: Path
    project: Path
    store: Path

    def run(self, capsys, *args: str) -> tuple[int, str, str]:
        code = cli.main(["--config-dir", str(self.home), *args])
        out, err = capsys.readouterr()
        return code, out, err

    @property
    def env(self) -> dict[str, str]:
        return {"CLAUDE_CONFIG_DIR": str(self.home)}

    def deploy(self) -> str:
        return (self.store / DEPLOY).read_text(encoding="utf-8")


@pytest.fixture
def leaked(claude_home, tmp_path, capsys) -> Leaked:
    """A store whose memory holds a token, and every copy memtui keeps of it: Claude wrote
    it in a session (the transcript), memtui edited it once (undo log, backup copy,
    journal), archived an older memory holding it too (archive), rebuilt its history from
    the transcript (the journal's backfill branch) and scanned and audited it (caches)."""
    project = tmp_path / "work" / "shop"
    project.mkdir(parents=True)
    store = claude_home.store(project)
    text = memory_text("deploy", "how the deploy authenticates", "project",
                       f"The deploy pushes with {TOKEN} as the registry password.\n")
    path = store / DEPLOY
    write = tool_use_record(str(project), "Write", str(path))
    write["message"]["content"][0]["input"]["content"] = text
    claude_home.session(project, write, user_record(str(project), toolUseResult={
        "type": "create", "filePath": str(path), "content": text, "structuredPatch": [],
        "originalFile": None}))
    path.write_text(text, encoding="utf-8")
    (store / OLD_DEPLOY).write_text(memory_text(
        "old deploy", "the deploy before the registry", "reference", f"Token: {TOKEN}\n"),
        encoding="utf-8")
    write_index(store, [index_line(DEPLOY, "Deploy", "registry auth"),
                        index_line(OLD_DEPLOY, "Old deploy", "before the registry")])
    home = Leaked(claude_home.home, project, store)
    write_journalled(store, DEPLOY, text.encode(), (text + "Rotated yearly.\n").encode(),
                     f"edit {DEPLOY}")
    apply_journalled(store, curate.plan_archive(load_store(store), [OLD_DEPLOY]).changes,
                     f"archive {OLD_DEPLOY}")
    for command in (["history", "backfill", str(store)], ["overwrites", str(store)],
                    ["audit", "--all"]):
        code, _, err = home.run(capsys, *command)
        assert code in (0, 1), err
    held = places_holding(TOKEN)
    for place in ("backups", "log.jsonl", "archive", "journal", "cache"):
        assert any(place in where for where in held), (place, held)
    return home


def test_fix_redact_leaves_the_token_in_none_of_memtuis_files(leaked, capsys):
    code, out, err = leaked.run(capsys, "fix", str(leaked.store), "redact", "--yes")
    assert (code, err) == (0, "")
    assert TOKEN not in out
    assert "journal's history" in out and "cannot be undone" in out and "Revoke" in out
    assert TOKEN not in leaked.deploy() and "[REDACTED]" in leaked.deploy()
    assert places_holding(TOKEN) == []
    code, out, err = leaked.run(capsys, "history", str(leaked.store / DEPLOY))
    assert (code, err) == (0, "") and TOKEN not in out  # the rewritten journal reads on

    # Undo passes over the redaction: the changes before it come back, scrubbed.
    code, out, err = leaked.run(capsys, "undo", str(leaked.store))
    assert (code, out, err) == (0, f"Undid archive {OLD_DEPLOY}.\n", "")
    old = (leaked.store / OLD_DEPLOY).read_text(encoding="utf-8")
    assert TOKEN not in old and "[REDACTED]" in old
    code, out, err = leaked.run(capsys, "undo", str(leaked.store))
    assert (code, out, err) == (0, f"Undid edit {DEPLOY}.\n", "")
    assert "Rotated yearly." not in leaked.deploy() and "[REDACTED]" in leaked.deploy()
    assert places_holding(TOKEN) == []


def test_fix_redact_json_says_no_undo_and_what_was_not_scrubbed(leaked, capsys):
    import json

    code, out, err = leaked.run(capsys, "fix", str(leaked.store), "redact", "--yes", "--json")
    assert (code, err) == (0, "")
    result = json.loads(out)
    assert result["applied"] is True and result["undo"] is None
    assert result["not_scrubbed"] == []
    assert places_holding(TOKEN) == []


async def test_redacting_in_the_app_says_what_it_scrubs_and_undo_keeps_it_redacted(leaked):
    from app_home import open_first_store

    from tui.app.app import MemtuiApp
    from tui.app.screens.confirm import ConfirmScreen
    from tui.app.widgets.virtual_table import VirtualTable

    app = MemtuiApp(leaked.home, leaked.env)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        screen = await open_first_store(app, pilot, leaked)
        await pilot.press("3")
        table = screen.query_one("#findings-table", VirtualTable)
        table.move_cursor([row.finding.kind for row in table.rows].index("secret"))
        await pilot.press("X")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        asked = " ".join(app.screen.plan.summary)
        assert "journal's history" in asked and "memtui's own git repository" in asked
        assert "cannot be undone" in asked and "memtui sync already pushed" in asked
        await pilot.press("y")
        await settle(app, pilot)
        said = [toast.message for toast in app._notifications]
        assert any("scrubbed from memtui's backups, journal and caches" in s for s in said)
        assert not any("Press u to undo" in s for s in said)
        assert TOKEN not in leaked.deploy()
        assert places_holding(TOKEN) == []
        await pilot.press("u")
        await settle(app, pilot)
        assert TOKEN not in leaked.deploy() and "[REDACTED]" in leaked.deploy()
    assert places_holding(TOKEN) == []
