"""A store's undo log: one JSON record a line, each change set's old and new bytes.

`<data dir>/backups/<store key>/log.jsonl`. A change set's record is appended (and synced)
before the first byte of the store changes; a change set that then fails, or is
interrupted and rolled back, takes its record out again by cutting the log back to the
length it had (`cut_back`), so the log holds exactly the changes that were made. Only the
holder of the store's lock appends or cuts, so a record in flight is always the last.

Reading keeps what can be read: a line cut short by a crash, or damaged, is skipped (and
counted), never fatal.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path

from tui import failpoints, xdg
from tui.disk_errors import naming
from tui.memory.swap import fsync_dir
from tui.words import plural

LOG_NAME = "log.jsonl"


def backups_dir(store: Path) -> Path:
    return xdg.data_dir() / "backups" / xdg.store_key(store)


def log_path(store: Path) -> Path:
    return backups_dir(store) / LOG_NAME


def log_size(store: Path) -> int:
    """The log's length in bytes now (0 when there is none yet)."""
    try:
        return os.stat(log_path(store)).st_size
    except FileNotFoundError:
        return 0


def append(store: Path, line: str) -> None:
    """Add one record, synced. When writing fails (a full disk, a file-size limit) the log
    is cut back to what it was before the OSError is raised: no half record stays."""
    log = log_path(store)
    log.parent.mkdir(parents=True, exist_ok=True)
    failpoints.reached("io.write", str(log))
    data = line.encode("utf-8") + b"\n"
    handle = os.open(log, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o644)
    try:
        size = os.fstat(handle).st_size
        if size and os.pread(handle, 1, size - 1) != b"\n":
            data = b"\n" + data  # a line cut short by a crash must not swallow ours
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(handle, view):]
            os.fsync(handle)
        except BaseException as error:
            os.ftruncate(handle, size)
            if isinstance(error, OSError):
                naming(error, log)
            raise
    finally:
        os.close(handle)


def cut_back(store: Path, size: int) -> None:
    """Take back whatever was appended after the log's first `size` bytes: the record of a
    change set that did not happen."""
    try:
        handle = os.open(log_path(store), os.O_RDWR | os.O_NOFOLLOW)
    except FileNotFoundError:
        return
    try:
        if os.fstat(handle).st_size > size:
            os.ftruncate(handle, size)
            os.fsync(handle)
    finally:
        os.close(handle)


def record_after(store: Path, offset: int, record_id: str) -> dict | None:
    """The record `record_id` if it was appended whole at or after `offset`, else None."""
    try:
        with open(log_path(store), "rb") as source:
            source.seek(offset)
            for line in source:
                record = _parsed(line)
                if record is not None and record["id"] == record_id:
                    return record
    except FileNotFoundError:
        pass
    return None


def records(store: Path) -> Iterator[dict]:
    """Every readable record, oldest first."""
    for record in _lines(store):
        if record is not None:
            yield record


def unreadable_lines(store: Path) -> int:
    """How many lines are damaged (a last line cut short by a crash is not counted: the
    next record is written after it, and it holds nothing that happened)."""
    found = list(_lines(store))
    if found and found[-1] is None:
        found.pop()
    return sum(record is None for record in found)


def damage_note(store: Path) -> str | None:
    """One sentence when lines of the log could not be read, else None."""
    count = unreadable_lines(store)
    if not count:
        return None
    return (f"{plural(count, 'line')} of memtui's undo log at {log_path(store)} "
            f"{'is' if count == 1 else 'are'} damaged and {'was' if count == 1 else 'were'} "
            "skipped; undo works through the other changes.")


def rewrite(store: Path, change: Callable[[bytes], bytes]) -> None:
    """Every line of the log (without its line break) passed through `change`, the log
    replaced whole, atomically; the caller holds the store's lock, with no change set in
    flight (a record in flight is found by its offset, which this moves)."""
    log = log_path(store)
    try:
        lines = log.read_bytes().split(b"\n")
    except FileNotFoundError:
        return
    temp = log.with_name(f".{log.name}.{secrets.token_hex(4)}.memtui-tmp")
    try:
        with open(temp, "xb") as out:
            out.write(b"\n".join(change(line) if line.strip() else line for line in lines))
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, log)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    fsync_dir(log.parent)


def _lines(store: Path) -> Iterator[dict | None]:
    try:
        source = open(log_path(store), "rb")
    except FileNotFoundError:
        return
    with source:
        for line in source:
            if line.strip():
                yield _parsed(line)


def _parsed(line: bytes) -> dict | None:
    """A record with the fields every reader relies on, or None."""
    try:
        record = json.loads(line)
        if not (isinstance(record, dict) and isinstance(record.get("id"), str)
                and isinstance(record.get("changes"), list)):
            return None
        if not all(isinstance(change, dict) and isinstance(change.get("file"), str)
                   for change in record["changes"]):
            return None
    except ValueError:  # not JSON, not UTF-8
        return None
    return record
