"""A redaction that leaves the secret in none of memtui's own files.

memtui keeps copies of what it reads and changes: the undo log and a backup copy of each
change, the archive, the journal (a git repository of every version of the store) and
caches of what it read (transcript scans, audits). Redacting the store's files is not
enough: once they are redacted, every copy is scrubbed too, the same secret replaced by
`[REDACTED]` in each record and file; the journal's history is rewritten (exported,
scrubbed, imported over itself, the old objects pruned) and cache rows are rewritten in
place. The redaction's own record then holds the redacted text on both sides, and undo
passes over it (`ChangeRecord.final`): nothing memtui keeps can bring the secret back.

Out of memtui's reach, and said before applying: Claude Code's session transcripts,
whatever memtui sync pushed to its remote, any copy made elsewhere. Only revoking the
credential helps there.

The store is redacted first and memtui's copies right after, under the store's lock; a
process killed in between leaves copies unscrubbed, which a redaction cannot find again
(the store no longer holds the secret): the window is kept to the scrubbing itself.
"""

from __future__ import annotations

import base64
import json
import os
import re
import sqlite3
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from tui import xdg
from tui.claude.lines import split_lines
from tui.memory.curate import Plan
from tui.memory.secrets import find_secrets
from tui.memory.store_lock import store_lock
from tui.memory.undo_log import LOG_NAME, backups_dir, rewrite
from tui.memory.writes import ChangeRecord, FileChange, archive_dir, write_atomic
from tui.walk import walk

REDACTED = "[REDACTED]"
# A secret this short (a URL's password) could be any word: it is scrubbed together with
# the run of non-blank characters around it (the whole URL), not wherever it occurs.
WHOLE_SECRET = 8
SQLITE_HEADER = b"SQLite format 3\x00"
BLOCK = 1 << 20
# What the confirmation says besides the plan's own sentences.
NOTES = (
    "memtui scrubs it from its own copies too: the backups and undo log of its changes, "
    "its archive, its caches, and the journal's history (memtui's own git repository of "
    "this store, rewritten).",
    "This cannot be undone: memtui keeps no copy of a secret it redacted, so an undo "
    "leaves it redacted (and takes back the change before it).",
    "Revoke the credential all the same: Claude Code's session transcripts still hold it, "
    "and so does anything memtui sync already pushed, or any copy made elsewhere.",
)

Needle = tuple[bytes, bytes]  # (what is scrubbed, what it becomes)


@dataclass(frozen=True)
class Redaction(Plan):
    """A redaction's plan: applied with `apply_redaction`, never as a plain change."""


def as_redaction(plan: Plan) -> Plan:
    """The redaction plan `curate.plan_redact_secrets` made, saying what else it does."""
    if not plan.changes:
        return plan
    return Redaction(plan.label, plan.changes, [*plan.summary, *NOTES], plan.pushed_out,
                     plan.options)


def needles(changes: Sequence[FileChange]) -> list[Needle]:
    """What to scrub from memtui's copies: each secret the changes redact, as found in
    the text they replace (long ones alone, short ones with the word around them)."""
    found: dict[bytes, bytes] = {}
    for change in changes:
        if change.before is None:
            continue
        text = change.before.decode("utf-8", "surrogateescape")
        lines = split_lines(text)
        for hit in find_secrets(text):
            line = lines[hit.line - 1]
            start, end = hit.start, hit.end
            if end - start < WHOLE_SECRET:  # with the run of non-blank characters around it
                start -= len(re.search(r"\S*$", line[:start]).group())
                end += len(re.match(r"\S*", line[end:]).group())
            word = line[start:end]
            scrubbed = line[start:hit.start] + REDACTED + line[hit.end:end]
            found[_encoded(word)] = _encoded(scrubbed)
    # Longest first: a short secret's word may hold a long one's text.
    return sorted(found.items(), key=lambda needle: -len(needle[0]))


def _encoded(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def scrub(data: bytes, found: Sequence[Needle]) -> bytes:
    for needle, scrubbed in found:
        data = data.replace(needle, scrubbed)
    return data


def holds(data: bytes, found: Sequence[Needle]) -> bool:
    return any(needle in data for needle, _ in found)


def file_holds(path: Path, found: Sequence[Needle]) -> bool:
    """Whether the file holds a needle, read a block at a time (a cache may be big)."""
    overlap = max(len(needle) for needle, _ in found) - 1
    tail = b""
    with open(path, "rb") as source:
        while block := source.read(BLOCK):
            if holds(tail + block, found):
                return True
            tail = block[-overlap:] if overlap else b""
    return False


def apply_redaction(store: Path, plan: Plan) -> tuple[ChangeRecord, list[str]]:
    """Redact the store's files as `plan` says (journalled, final), then scrub every copy
    memtui keeps. Returns the change's record and what could not be scrubbed (one
    sentence each); raises `WriteRefused` having written nothing."""
    from tui.history.recovery import apply_journalled

    found = needles(plan.changes)
    with store_lock(store):
        record = apply_journalled(store, plan.changes, plan.label, final=True)
        return record, purge(store, found)


def purge(store: Path, found: Sequence[Needle]) -> list[str]:
    """Scrub `found` from every copy memtui keeps of this store, and from its caches."""
    problems: list[str] = []
    if not found:
        return problems
    steps = [
        (f"the undo log at {backups_dir(store) / LOG_NAME}", lambda: _purge_undo_log(store, found)),
        (f"the backups at {backups_dir(store)}", lambda: _purge_files(backups_dir(store), found)),
        (f"the archive at {archive_dir(store)}", lambda: _purge_files(archive_dir(store), found)),
        *((f"the journal at {journal}", lambda journal=journal: _rewrite_history(journal, found))
          for journal in _journals(store)),
        (f"the caches at {xdg.cache_dir()}", lambda: _purge_caches(found)),
    ]
    for where, step in steps:
        try:
            step()
        except (OSError, sqlite3.Error, subprocess.CalledProcessError) as error:
            said = getattr(error, "strerror", None) or _git_said(error) or str(error)
            problems.append(f"The secret could not be scrubbed from {where} ({said}); "
                            "delete it there yourself.")
    return problems


def _git_said(error: Exception) -> str:
    stderr = getattr(error, "stderr", b"") or b""
    lines = stderr.decode("utf-8", "replace").strip().splitlines()
    return lines[-1] if lines else ""


# --- the undo log and plain copies -------------------------------------------------------

def _purge_undo_log(store: Path, found: Sequence[Needle]) -> None:
    """Each record's old and new bytes (base64 in the log) scrubbed; a line that cannot
    be read as a record is scrubbed as it is."""

    def scrubbed(line: bytes) -> bytes:
        try:
            record = json.loads(line)
            for change in record["changes"]:
                for side in ("before", "after"):
                    if change.get(side) is not None:
                        data = base64.b64decode(change[side])
                        change[side] = base64.b64encode(scrub(data, found)).decode("ascii")
        except (ValueError, KeyError, TypeError, AttributeError):
            return scrub(line, found)
        return json.dumps(record).encode("utf-8")

    rewrite(store, scrubbed)


def _purge_files(folder: Path, found: Sequence[Needle]) -> None:
    """Every file below `folder` but the undo log rewritten without the secret, keeping
    its mtime (the archive and the backups are ordered by it)."""
    for top, _, names in walk(folder):
        for name in names:
            path = Path(top, name)
            if path.is_symlink() or (name == LOG_NAME and Path(top) == folder):
                continue
            if file_holds(path, found):
                write_atomic(path, scrub(path.read_bytes(), found), path.stat().st_mtime)


# --- the journal ---------------------------------------------------------------------------

def _journals(store: Path) -> list[Path]:
    """The store's journal, and any damaged one moved aside beside it."""
    journal = xdg.journal_dir(store)
    siblings = journal.parent.glob(f"{journal.name}.broken-*") if journal.parent.is_dir() else []
    return [path for path in (journal, *sorted(siblings)) if (path / "HEAD").is_file()]


def _rewrite_history(journal: Path, found: Sequence[Needle]) -> None:
    """Every version of every branch scrubbed: the history exported, scrubbed as it
    streams (a big store's history need not fit in memory), imported over itself; then
    every object no branch reaches any more is pruned (reflogs included), so not even
    git's own object store keeps the old bytes."""
    env = {**os.environ, "GIT_DIR": str(journal)}
    with tempfile.TemporaryFile() as said:
        export = subprocess.Popen(
            ["git", "fast-export", "--all", "--signed-tags=strip", "--reencode=no",
             "--use-done-feature"],  # a stream cut short moves no branch
            env=env, stdout=subprocess.PIPE, stderr=said)
        imported = subprocess.Popen(["git", "fast-import", "--force", "--quiet"], env=env,
                                    stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                    stderr=said)
        try:
            changed = _scrub_stream(export.stdout, imported.stdin, found)
        finally:  # both pipes closed before waiting: neither git waits on the other
            imported.stdin.close()
            export.stdout.close()
            codes = (export.wait(), imported.wait())
        if any(codes):
            said.seek(0)
            raise subprocess.CalledProcessError(max(codes), "git fast-import", stderr=said.read())
    if changed:
        for args in (["reflog", "expire", "--expire=now", "--all"], ["gc", "--prune=now", "--quiet"]):
            subprocess.run(["git", *args], env=env, capture_output=True, check=True)


def _scrub_stream(source: BinaryIO, sink: BinaryIO, found: Sequence[Needle]) -> bool:
    """Copy a `git fast-export` stream with every blob and message scrubbed (each
    `data <n>` payload, its length said anew); whether anything was."""
    changed = False
    while line := source.readline():
        if not line.startswith(b"data "):
            sink.write(line)
            continue
        payload = source.read(int(line[5:]))
        scrubbed = scrub(payload, found)
        changed = changed or scrubbed != payload
        sink.write(b"data %d\n" % len(scrubbed))
        sink.write(scrubbed)
    return changed


# --- caches ----------------------------------------------------------------------------------

def _purge_caches(found: Sequence[Needle]) -> None:
    """An SQLite cache holding the secret is scrubbed in place (a transcript read again
    from the start would only find it once more); any other cache file holding it goes."""
    folder = xdg.cache_dir()
    databases: set[Path] = set()
    others: list[Path] = []
    for top, _, names in walk(folder):
        for name in names:
            path = Path(top, name)
            if path.is_symlink():
                continue
            with open(path, "rb") as source:
                head = source.read(len(SQLITE_HEADER))
            base = Path(re.sub(r"-(wal|shm|journal)$", "", str(path)))
            if head == SQLITE_HEADER or base != path:
                databases.add(base)
            else:
                others.append(path)
    for database in databases:
        if any(file_holds(part, found) for part in _database_files(database)):
            _scrub_database(database, found)
    for path in others:
        if file_holds(path, found):
            path.unlink()


def _database_files(database: Path) -> list[Path]:
    return [path for path in (database, *(Path(f"{database}-{end}") for end in
                                          ("wal", "journal"))) if path.is_file()]


def _scrub_database(database: Path, found: Sequence[Needle]) -> None:
    """Every text and blob value holding the secret rewritten, then the file rebuilt
    (VACUUM) and its write-ahead log emptied: SQLite keeps deleted bytes in free pages."""
    db = sqlite3.connect(database, timeout=30)
    try:
        tables = [row[0] for row in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
        for table in tables:
            quoted = _quoted(table)
            for column in [row[1] for row in db.execute(f"PRAGMA table_info({quoted})")]:
                name = _quoted(column)
                for needle, _ in found:  # the rows holding it, found by SQLite
                    rows = db.execute(f"SELECT rowid, {name} FROM {quoted} "
                                      f"WHERE instr(CAST({name} AS BLOB), ?) > 0",
                                      (needle,)).fetchall()
                    for rowid, value in rows:
                        db.execute(f"UPDATE {quoted} SET {name} = ? WHERE rowid = ?",
                                   (_scrubbed_value(value, found), rowid))
        db.commit()
        db.execute("VACUUM")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        db.close()


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _scrubbed_value(value: object, found: Sequence[Needle]) -> object:
    """The value without the secret, of the same type."""
    if isinstance(value, bytes):
        return scrub(value, found)
    if isinstance(value, str):
        return scrub(_encoded(value), found).decode("utf-8", "surrogateescape")
    return value
