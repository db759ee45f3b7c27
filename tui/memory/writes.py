"""Every write to a memory dir: checked, backed up, atomic, logged and undoable.

One change set goes: refuse if a dream holds the lock -> check each target is still the
bytes it was read as -> copy the old bytes to the backups -> write each file atomically
(a temp file in the same dir, fsync, `os.replace`) -> append a record to the log.

An apply is all-or-nothing: when a write fails half-way, the files already written are put
back from their old bytes before the error is raised. Only if that rollback fails too is
the partial change logged, so `undo_last` can still restore it.

Archiving: a change set applied with `archive=True` (or, by default, whose label starts
with "archive") first copies every file it deletes to `archive_dir(store)`.

Layout under `xdg.data_dir()`:
    backups/<store key>/log.jsonl        one JSON record a line, old and new bytes in base64
    backups/<store key>/<record id>/...  plain copies of the old files, for humans
    archive/<store key>/...              archived memories
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import secrets
import stat
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from tui import xdg
from tui.claude.lock import read_lock

LOG_NAME = "log.jsonl"
_ARCHIVED_STAMP = re.compile(r"\.archived-\d{8}T\d{6}(?:-\d+)?(?=\.md$)")


class WriteRefused(Exception):
    """A change that was not made; the message is one sentence for the user."""


class ConflictError(WriteRefused):
    """A target is no longer the bytes it was read as."""

    def __init__(self, file: str, expected: bytes | None, actual: bytes | None):
        self.file = file
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"{file} changed on disk since it was read; nothing was written, "
            "reload and review the change again."
        )


class StoreLocked(WriteRefused):
    """A dream (consolidation) holds the store's `.consolidate-lock`."""

    def __init__(self, pid: int):
        self.pid = pid
        super().__init__(
            f"A memory consolidation (process {pid}) is running in this store; "
            "try again when it has finished."
        )


@dataclass(frozen=True)
class FileChange:
    file: str  # store-relative, e.g. "MEMORY.md"
    before: bytes | None  # None: the file is absent
    after: bytes | None
    mtime: float | None = None  # give the written file this mtime (undo, restore)

    @property
    def verb(self) -> str:
        """What happens to the file, in the past tense."""
        if self.before is None:
            return "created"
        if self.after is None:
            return "deleted"
        return "changed"


@dataclass(frozen=True)
class ChangeRecord:
    id: str
    store: Path
    label: str
    time: float
    changes: tuple[FileChange, ...]
    undoes: str | None = None  # the id of the record this one reverted
    undone: bool = False

    def summary(self) -> str:
        parts = [f"{change.verb} {change.file}" for change in self.changes]
        stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.time))
        text = f"{stamp} {self.label}: {', '.join(parts) or 'no files'}"
        return f"{text} (undone)" if self.undone else text


def store_key(store: Path) -> str:
    """`<X>` for `<home>/projects/<X>/memory`, else a short hash of the path."""
    store = Path(os.path.abspath(store))
    if store.name == "memory" and store.parent.parent.name == "projects":
        return store.parent.name
    digest = hashlib.sha256(os.path.realpath(store).encode("utf-8", "surrogateescape"))
    return f"path-{digest.hexdigest()[:12]}"


def backups_dir(store: Path) -> Path:
    return xdg.data_dir() / "backups" / store_key(store)


def archive_dir(store: Path) -> Path:
    return xdg.data_dir() / "archive" / store_key(store)


def _target(store: Path, file: str) -> Path:
    """The path of a store-relative file, refusing anything that leaves the store."""
    pure = PurePosixPath(file.replace("\\", "/"))
    if not file or pure.is_absolute() or re.match(r"^[A-Za-z]:", file) or ".." in pure.parts:
        raise WriteRefused(f"{file!r} is not a path inside the memory directory; refused.")
    if pure.suffix != ".md":
        raise WriteRefused(f"{file} is not a Markdown (.md) file; memtui only writes memories.")
    path = Path(store, *pure.parts)
    root = os.path.realpath(store)
    if os.path.commonpath([root, os.path.realpath(path.parent)]) != root:
        raise WriteRefused(f"{file} leads out of the memory directory; refused.")
    if path.is_symlink():
        raise WriteRefused(f"{file} is a symlink; memtui only writes regular files.")
    return path


def read_bytes(store: Path, file: str) -> bytes | None:
    """The file's bytes now, or None when it is absent."""
    try:
        return _target(store, file).read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise WriteRefused(f"{file} cannot be read ({error.strerror or error}).") from error


def _fsync_dir(folder: Path) -> None:
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)


def write_atomic(path: Path, data: bytes, mtime: float | None = None) -> None:
    """Replace `path` with `data` so a reader sees the old or the new file, never half."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = None
    path.parent.mkdir(parents=True, exist_ok=True)
    # Not ending in .md, so Claude Code's scanner never picks a temp file up.
    temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.memtui-tmp")
    # 0o666 lets the umask decide, as for any new file; an existing file keeps its mode.
    handle = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        if mode is not None:
            os.chmod(temp, mode)
        if mtime is not None:
            os.utime(temp, (mtime, mtime))
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def _remove(path: Path) -> None:
    path.unlink(missing_ok=True)
    _fsync_dir(path.parent)


def _put(path: Path, data: bytes | None, mtime: float | None = None) -> None:
    if data is None:
        _remove(path)
    else:
        write_atomic(path, data, mtime)


def _new_id() -> str:
    return time.strftime("%Y%m%dT%H%M%S") + "-" + secrets.token_hex(3)


def _encode(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def _decode(text: str | None) -> bytes | None:
    return None if text is None else base64.b64decode(text)


def _save_backups(folder: Path, store: Path, changes: Sequence[FileChange]) -> None:
    for change in changes:
        if change.before is not None:
            old = _target(store, change.file)
            write_atomic(folder / change.file, change.before, _mtime(old))


def _mtime(path: Path) -> float | None:
    try:
        return path.stat().st_mtime
    except OSError:
        return None


def _archive(store: Path, change: FileChange, moment: float) -> None:
    """Copy a file about to be deleted into the archive, never overwriting another copy."""
    assert change.before is not None
    folder = archive_dir(store)
    destination = folder / change.file
    if destination.exists():
        if destination.read_bytes() == change.before:
            return
        stamp = time.strftime("%Y%m%dT%H%M%S", time.localtime(moment))
        stem = destination.name.removesuffix(".md")
        destination = destination.with_name(f"{stem}.archived-{stamp}.md")
        count = 1
        while destination.exists():
            count += 1
            destination = destination.with_name(f"{stem}.archived-{stamp}-{count}.md")
    write_atomic(destination, change.before, _mtime(_target(store, change.file)))


def list_archived(store: Path) -> list[Path]:
    """Archived memories of a store, newest first."""
    folder = archive_dir(store)
    if not folder.is_dir():
        return []
    found = [path for path in folder.rglob("*.md") if path.is_file()]
    return sorted(found, key=lambda path: (-path.stat().st_mtime, str(path)))


def archived_name(store: Path, archived: Path) -> str:
    """The store-relative name an archived copy restores to (its timestamp dropped)."""
    relative = archived.relative_to(archive_dir(store)).as_posix()
    return _ARCHIVED_STAMP.sub("", relative)


def restore_change(store: Path, archived: Path) -> FileChange:
    """Bring an archived memory back under its own name, with its old mtime."""
    file = archived_name(store, archived)
    return FileChange(file, read_bytes(store, file), archived.read_bytes(),
                      archived.stat().st_mtime)


def _record_json(record: ChangeRecord, mtimes: dict[str, float | None]) -> str:
    return json.dumps({
        "id": record.id,
        "store": str(record.store),
        "label": record.label,
        "time": record.time,
        "undoes": record.undoes,
        "changes": [
            {"file": c.file, "before": _encode(c.before), "after": _encode(c.after),
             "before_mtime": mtimes.get(c.file)}
            for c in record.changes
        ],
    })


def _append_log(store: Path, line: str) -> None:
    log = backups_dir(store) / LOG_NAME
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "a+b") as out:
        if out.tell():
            out.seek(-1, os.SEEK_END)
            if out.read(1) != b"\n":  # a line cut short by a crash must not swallow ours
                line = "\n" + line
        out.write(line.encode("utf-8") + b"\n")
        out.flush()
        os.fsync(out.fileno())


def _check(store: Path, changes: Sequence[FileChange]) -> dict[str, Path]:
    lock = read_lock(store)
    if lock.held() and lock.pid is not None:
        raise StoreLocked(lock.pid)
    targets: dict[str, Path] = {}
    for change in changes:
        if change.file in targets:
            raise WriteRefused(f"{change.file} appears twice in one change; refused.")
        targets[change.file] = _target(store, change.file)
    for change in changes:
        actual = read_bytes(store, change.file)
        if actual != change.before:
            raise ConflictError(change.file, change.before, actual)
    return targets


def _apply(
    store: Path, changes: Sequence[FileChange], label: str, *, archive: bool,
    undoes: str | None = None,
) -> ChangeRecord:
    store = Path(store)
    changes = tuple(changes)
    if not changes:
        raise WriteRefused("There is nothing to change.")
    targets = _check(store, changes)
    record = ChangeRecord(_new_id(), store, label, time.time(), changes, undoes)
    mtimes = {c.file: _mtime(targets[c.file]) for c in changes}
    try:
        _save_backups(backups_dir(store) / record.id, store, changes)
        if archive:
            for change in changes:
                if change.after is None and change.before is not None:
                    _archive(store, change, record.time)
    except OSError as error:
        raise WriteRefused(
            f"Could not save the backup copies ({error.strerror or error}); nothing was changed."
        ) from error

    written: list[FileChange] = []
    for change in changes:
        try:
            _put(targets[change.file], change.after, change.mtime)
        except OSError as error:
            reason = f"Writing {change.file} failed ({error.strerror or error})"
            _roll_back(store, record, written, targets, mtimes, reason)
            raise WriteRefused(f"{reason}; nothing was changed.") from error
        written.append(change)
    try:
        _append_log(store, _record_json(record, mtimes))
    except OSError as error:
        reason = f"Recording the change failed ({error.strerror or error})"
        _roll_back(store, record, written, targets, mtimes, reason)
        raise WriteRefused(f"{reason}; nothing was changed.") from error
    return record


def _roll_back(
    store: Path, record: ChangeRecord, written: list[FileChange], targets: dict[str, Path],
    mtimes: dict[str, float | None], reason: str,
) -> None:
    """Put back the files an interrupted apply already wrote; log what could not be."""
    while written:
        change = written[-1]
        try:
            _put(targets[change.file], change.before, mtimes[change.file])
        except OSError as error:
            partial = replace(record, label=f"{record.label} (interrupted)", changes=tuple(written))
            _append_log(store, _record_json(partial, mtimes))
            raise WriteRefused(
                f"{reason} and {change.file} could not be put back; use undo to restore it."
            ) from error
        written.pop()


def apply_changes(
    store: Path, changes: Sequence[FileChange], label: str, *, archive: bool | None = None,
) -> ChangeRecord:
    """Write a change set to a store, or raise WriteRefused having written nothing.

    `archive` defaults to "the label starts with 'archive'".
    """
    if archive is None:
        archive = label.lower().startswith("archive")
    return _apply(store, changes, label, archive=archive)


def _read_log(store: Path) -> list[tuple[ChangeRecord, dict[str, float | None]]]:
    log = backups_dir(store) / LOG_NAME
    try:
        lines = log.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []
    entries = []
    for line in lines:
        try:
            raw = json.loads(line)
            changes = tuple(
                FileChange(c["file"], _decode(c["before"]), _decode(c["after"]))
                for c in raw["changes"]
            )
            mtimes = {c["file"]: c.get("before_mtime") for c in raw["changes"]}
            record = ChangeRecord(raw["id"], Path(raw["store"]), raw["label"], raw["time"],
                                  changes, raw.get("undoes"))
        except (ValueError, KeyError, TypeError):
            continue  # a line cut short by a crash
        entries.append((record, mtimes))
    return entries


def history(store: Path) -> list[ChangeRecord]:
    """Every change memtui made to this store, newest first."""
    entries = _read_log(store)
    undone = {record.undoes for record, _ in entries if record.undoes}
    records = [replace(record, undone=record.id in undone) for record, _ in entries]
    return records[::-1]


def undo_last(store: Path) -> ChangeRecord | None:
    """Revert the newest change not yet undone, byte for byte; None when there is none.

    Undo records are themselves never undone here, so repeated calls walk back in time.
    """
    entries = _read_log(store)
    undone = {record.undoes for record, _ in entries if record.undoes}
    candidates = (
        (record, mtimes) for record, mtimes in reversed(entries)
        if record.undoes is None and record.id not in undone
    )
    record, mtimes = next(candidates, (None, {}))
    if record is None:
        return None
    reverse = tuple(
        FileChange(c.file, c.after, c.before, mtimes.get(c.file))
        for c in reversed(record.changes)
    )
    return _apply(store, reverse, f"undo {record.label}", archive=False, undoes=record.id)
