"""All-or-nothing change sets across crashes: an intent record first, recovery next time.

Before a change set touches anything, `<state dir>/intents/<store key>/<id>.json` says
that it is under way and where its record starts in the undo log (`undo_log`), and the
record (every file's old and new bytes) is appended to the log. Both are synced before
the first file of the store changes. The intent is removed once every file is in place:
that is the moment the change is made. A process killed before it leaves the intent
behind, and the next memtui command that opens the store (or starts at all, see
`recover_pending`) rolls the change back under the store lock: files holding the new
bytes get the old ones back, files moved aside return, staged temp files go, and the
record is cut from the log. An outside write found there is kept, never overwritten.

A change spanning two stores (`tui.memory.pairs`) stands under a pair mark,
`<state dir>/pairs/<id>.json`, written before either half starts: each half's intent
names the mark and stays until both halves are made, then the mark goes (the moment the
pair is made), then the intents. Recovery rolls back a half whose mark still stands, and
only tidies one whose mark is gone; so a kill anywhere leaves both stores changed or
neither.

Stray memtui temp files in a store (from a crash, or from memtui before intents existed)
are tidied the same way, and store copies left in the temp dir by killed runs are removed.
An intent record that cannot be read is moved aside, with one sentence.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from tui import xdg
from tui.claude.lock import LOCK_TEMP_SUFFIX
from tui.memory import undo_log
from tui.memory.store_lock import StoreBusy, store_lock
from tui.memory.swap import (
    LEGACY_SUFFIX,
    NEW_SUFFIX,
    OLD_SUFFIX,
    fsync_dir,
    read_nofollow,
    temp_name,
    write_new_file,
)
from tui.walk import walk
from tui.words import plural
from tui.xdg import intents_dir, pairs_dir


def _decode(text: str | None) -> bytes | None:
    return None if text is None else base64.b64decode(text)


class Intent:
    """A change set under way: its intent record written, its undo-log record appended."""

    def __init__(self, store: Path, record_id: str, label: str, log_line: str,
                 pair: str | None = None):
        self.store = store
        self.log_offset = undo_log.log_size(store)
        self.path = _write_intent(store, record_id, label, self.log_offset, pair)
        try:
            undo_log.append(store, log_line)
        except BaseException:
            clear_intent(self.path)  # the log was cut back: nothing is under way
            raise

    def commit(self) -> None:
        """The change is made: every file is in place."""
        clear_intent(self.path)

    def abandon(self) -> None:
        """The change was not made (every file is back): its record leaves the log."""
        undo_log.cut_back(self.store, self.log_offset)
        clear_intent(self.path)

    def roll_back(self) -> str | None:
        """The change was made, but its pair was not: put its files back and take its
        record out, as recovery would (the sentence recovery says, if any)."""
        return _recover_intent(self.store, self.path)


def _write_intent(store: Path, record_id: str, label: str, log_offset: int,
                  pair: str | None) -> Path:
    folder = intents_dir(store)
    folder.mkdir(parents=True, exist_ok=True)
    body = json.dumps({"id": record_id, "store": str(store), "label": label,
                       "pid": os.getpid(), "log_offset": log_offset,
                       **({"pair": pair} if pair else {})})
    path = folder / f"{record_id}.json"
    partial = _partial(folder, record_id)
    write_new_file(partial, body.encode("utf-8", "surrogateescape"), None, None)
    os.replace(partial, path)
    fsync_dir(folder)
    return path


class PairMark:
    """A change spanning two stores under way: while this file stands, recovery rolls
    back either half it finds (see the module's note)."""

    def __init__(self, mark: str, halves: list[tuple[Path, str]]):
        folder = pairs_dir()
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / f"{mark}.json"
        partial = _partial(folder, mark)
        body = json.dumps({"halves": [[str(store), record_id] for store, record_id in halves]})
        write_new_file(partial, body.encode("utf-8", "surrogateescape"), None, None)
        os.replace(partial, self.path)
        fsync_dir(folder)

    def clear(self) -> None:
        """The pair is made (or both halves are rolled back)."""
        clear_intent(self.path)


def _pair_stands(mark: str) -> bool:
    return (pairs_dir() / f"{mark}.json").exists()


def _halves(mark_path: Path) -> list[tuple[Path, str]] | None:
    try:
        halves = json.loads(mark_path.read_bytes())["halves"]
        return [(Path(store), record_id) for store, record_id in halves]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def forget_pair(mark: str) -> None:
    """Remove the mark once neither half has an intent left."""
    path = pairs_dir() / f"{mark}.json"
    halves = _halves(path)
    if halves is not None and not any((intents_dir(store) / f"{record_id}.json").exists()
                                      for store, record_id in halves):
        clear_intent(path)


def _partial(folder: Path, name: str) -> Path:
    """Where a record is written before it is renamed in: named after this process, so
    one a kill cut short is known for abandoned from its name alone (`_sweep_partials`)."""
    partial = folder / f".{name}.{os.getpid()}.json.partial"
    partial.unlink(missing_ok=True)
    return partial


def _sweep_partials(folder: Path) -> None:
    """Remove the records cut short by a kill (their process is gone) in `folder`."""
    from tui.claude.lock import pid_alive

    for partial in folder.glob(".*.json.partial"):
        pid = partial.name.removesuffix(".json.partial").rsplit(".", 1)[-1]
        if not (pid.isdigit() and pid_alive(int(pid))):
            partial.unlink(missing_ok=True)


def clear_intent(path: Path) -> None:
    path.unlink(missing_ok=True)
    fsync_dir(path.parent)
    try:
        # An empty folder left behind would have the next command (a dry run among them)
        # load the recovery code to remove it. The store lock is held: no intent comes now.
        path.parent.rmdir()
    except OSError:
        pass  # another intent of the store is still there


def keep_copy(store: Path, record_id: str, file: str, data: bytes) -> Path:
    """Save bytes recovery could not put anywhere, beside the change's backups."""
    target = undo_log.backups_dir(store) / record_id / "kept" / file
    target.parent.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)
    write_new_file(target, data, None, None)
    return target


def _roll_back_file(store: Path, record_id: str, file: str, before: bytes | None,
                    after: bytes | None, mtime: float | None, follow: bool = False) -> bool:
    """Put one file of an interrupted change back to `before`; True when it was touched.

    The file is found in one of four states: untouched (it is `before`), moved aside (the
    aside holds `before`), swapped (it is `after`, the aside may still be there), or
    changed by someone else meanwhile (kept: never overwritten)."""
    path = _path_of(store, file, follow)
    aside = temp_name(path, record_id, OLD_SUFFIX)
    temp_name(path, record_id, NEW_SUFFIX).unlink(missing_ok=True)
    current = _read(path)
    present = os.path.lexists(path)
    if os.path.lexists(aside):
        moved = _read(aside)
        if not present:
            os.rename(aside, path)  # killed between moving it aside and installing
            return True
        if current == after and after is not None:
            os.replace(aside, path)  # ours is in place: the old file returns
            return True
        if moved is not None and moved != before:
            keep_copy(store, record_id, file, moved)
        os.unlink(aside)
        return False
    ours = current == after if after is not None else not present
    if not ours or current == before:
        return False  # untouched, or someone else's write since: theirs stays
    if before is None:
        os.unlink(path)
    else:
        staged = temp_name(path, record_id, NEW_SUFFIX)
        write_new_file(staged, before, None, mtime)
        os.replace(staged, path)
    return True


def _path_of(store: Path, file: str, follow: bool) -> Path:
    """Where a change wrote `file`: through a symlink when it followed one."""
    path = Path(store, *file.split("/"))
    return Path(os.path.realpath(path)) if follow and path.is_symlink() else path


def _read(path: Path) -> bytes | None:
    try:
        return read_nofollow(path)
    except OSError:
        return None


def _recover_intent(store: Path, intent: Path) -> str | None:
    """Finish one intent record: a sentence when files had to be put back (or when the
    record could not be read and was moved aside)."""
    try:
        data = json.loads(intent.read_bytes())
        record_id, label = data["id"], data["label"]
        if "files" in data:  # written by a memtui that logged a change after making it
            return _recover_logged_after(store, intent, data)
        offset, pair = data["log_offset"], data.get("pair")
        if not (isinstance(record_id, str) and isinstance(offset, int)
                and isinstance(pair, str | None)):
            raise TypeError
    except (IsADirectoryError, ValueError, KeyError, TypeError):
        return f"{store}: {_move_aside(intent)}"
    if pair is not None and not _pair_stands(pair):
        clear_intent(intent)  # its pair was made: the change stands, whole
        return None
    record = undo_log.record_after(store, offset, record_id)
    restored = 0
    if record is not None:
        entries = [(c["file"], _decode(c.get("before")), _decode(c.get("after")),
                    c.get("before_mtime"), c.get("follow") is True) for c in record["changes"]]
        restored = _roll_back(store, record_id, entries)
    undo_log.cut_back(store, offset)  # the record, or what a crash left of it
    clear_intent(intent)
    if pair is not None:
        forget_pair(pair)
    return _rolled_back(store, label, restored)


def _recover_logged_after(store: Path, intent: Path, data: dict) -> str | None:
    """An intent record holding the files' bytes itself, from a memtui whose change was
    made once its record was in the log."""
    record_id, label = data["id"], data["label"]
    entries = [(f["file"], _decode(f["before"]), _decode(f["after"]), f.get("mtime"))
               for f in data["files"]]
    if any(record["id"] == record_id for record in undo_log.records(store)):
        # The change was recorded: only its leftovers remain.
        for file, *_ in entries:
            path = Path(store, *file.split("/"))
            for suffix in (NEW_SUFFIX, OLD_SUFFIX):
                temp_name(path, record_id, suffix).unlink(missing_ok=True)
        clear_intent(intent)
        return None
    restored = _roll_back(store, record_id, entries)
    clear_intent(intent)
    return _rolled_back(store, label, restored)


def _roll_back(store: Path, record_id: str, entries: list[tuple]) -> int:
    """Put every file of an interrupted change back; how many had to be. An entry:
    (file, before, after, mtime[, follow])."""
    restored = sum(_roll_back_file(store, record_id, *entry) for entry in reversed(entries))
    for folder in {_path_of(store, entry[0], len(entry) > 4 and entry[4]).parent
                   for entry in entries}:
        fsync_dir(folder)
    return restored


def _rolled_back(store: Path, label: str, restored: int) -> str | None:
    if not restored:
        return None
    return (f"{store}: rolled back an interrupted change ({label}); "
            f"{plural(restored, 'file')} put back as {'it was' if restored == 1 else 'they were'}.")


def _move_aside(intent: Path) -> str:
    """An intent record that cannot be read (a damaged disk, a hand edit), kept for a look
    beside its store's backups, out of the way of every later write; one sentence."""
    stamp = time.strftime("%Y%m%dT%H%M%S")
    aside = xdg.data_dir() / "backups" / intent.parent.name / f"{intent.stem}.{stamp}.damaged"
    aside.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(intent, aside)
    return (f"the record of an interrupted memtui change could not be read; it was moved "
            f"aside to {aside} and the store left as it is (`memtui undo --list` shows "
            "memtui's changes).")


def _sweep_temp_files(store: Path) -> int:
    """Remove memtui temp files no intent accounts for; a moved-aside file whose name is
    free goes back to it. Returns how many were tidied."""
    tidied = 0
    for folder, dirs, names in walk(store):
        dirs[:] = [d for d in dirs if not d.startswith(".git")]
        for name in names:
            if name.endswith(LOCK_TEMP_SUFFIX) and name.startswith("."):
                tidied += _sweep_lock_temp(Path(folder, name))
                continue
            if not name.endswith((NEW_SUFFIX, OLD_SUFFIX, LEGACY_SUFFIX)) or not name.startswith("."):
                continue
            path = Path(folder, name)
            if name.endswith(OLD_SUFFIX):
                original = path.with_name(name[1:].rsplit(".", 2)[0])
                if not os.path.lexists(original):
                    os.rename(path, original)
                    tidied += 1
                    continue
                data = _read(path)
                if data is not None and _read(original) != data:
                    keep_copy(store, "stray", path.relative_to(store).as_posix(), data)
            path.unlink(missing_ok=True)
            tidied += 1
    return tidied


def _sweep_lock_temp(path: Path) -> int:
    """A consolidate-lock temp file left by a memtui killed before its rename (its PID is
    in its name); one still being written by a live process is left alone."""
    from tui.claude.lock import pid_alive

    pid = path.name.removesuffix(LOCK_TEMP_SUFFIX).rsplit(".", 1)[-1]
    if pid.isdigit() and len(pid) <= 10 and pid_alive(int(pid)):
        return 0
    path.unlink(missing_ok=True)
    return 1


def recover_store(store: Path, wait: float = 2.0) -> list[str]:
    """Roll back this store's interrupted change sets and tidy its temp files; one line
    per change put back. Runs under the store lock (re-entrant); StoreBusy when another
    memtui holds it longer than `wait` (that one will finish its own change)."""
    store = Path(store)
    messages: list[str] = []
    with store_lock(store, wait=wait):
        folder = intents_dir(store)
        intents = sorted(folder.glob("*.json"), reverse=True) if folder.is_dir() else []
        for partial in folder.glob(".*.partial") if folder.is_dir() else ():
            partial.unlink(missing_ok=True)  # cut short before it was complete
        for intent in intents:
            message = _recover_intent(store, intent)
            if message:
                messages.append(message)
        if store.is_dir():
            tidied = _sweep_temp_files(store)
            if tidied and not messages:
                messages.append(f"{store}: removed {plural(tidied, 'temp file')} left by an "
                                "interrupted memtui write.")
    return messages


def recover_pending() -> list[str]:
    """Every store with an interrupted change set, recovered; store copies of killed runs
    removed. Cheap when there is nothing to do (one listing). Stores another memtui is
    writing right now are left to it."""
    messages: list[str] = []
    base = intents_dir()
    try:
        folders = [entry for entry in base.iterdir() if entry.is_dir()]
    except OSError:
        folders = []
    for folder in folders:
        store = _store_of(folder, messages)
        if store is None:
            continue
        try:
            messages += recover_store(store)
        except StoreBusy:
            continue
    _sweep_pair_marks()
    from tui.claude.lock import recover_abandoned_leases

    messages += recover_abandoned_leases()
    remove_abandoned_run_copies()
    return messages


def _sweep_pair_marks() -> None:
    """Remove pair marks neither of whose halves has an intent left (both rolled back, or
    a kill before the first half began). Under both stores' locks, taken at once or not
    at all: a memtui making that pair right now holds them."""
    try:
        marks = list(pairs_dir().glob("*.json"))
        _sweep_partials(pairs_dir())  # a mark cut short: its pair never began
    except OSError:
        return
    from tui.memory.store_lock import store_locks

    try:
        pairs_dir().rmdir()
    except OSError:
        pass  # marks (or a live partial) still there

    for mark in marks:
        halves = _halves(mark)
        if halves is None:
            continue
        try:
            with store_locks([store for store, _ in halves], wait=0):
                forget_pair(mark.stem)
        except StoreBusy:
            continue


def _store_of(folder: Path, messages: list[str]) -> Path | None:
    for intent in folder.glob("*.json"):
        try:
            return Path(json.loads(intent.read_bytes())["store"])
        except (IsADirectoryError, ValueError, KeyError, TypeError):
            messages.append(_move_aside(intent))
    _sweep_partials(folder)  # an intent cut short: its change never began
    try:
        folder.rmdir()
    except OSError:
        pass
    return None


def run_copy_dir(size: int = 0) -> Path:
    """A new temp dir for a run's copy of a store of `size` bytes, named after this process
    (`memtui-run-<pid>-…`), so a killed run's copy is recognised from its name alone; in
    memory when there is room (`xdg.run_copy_parent`)."""
    return Path(tempfile.mkdtemp(prefix=f"{xdg.RUN_COPY_PREFIX}{os.getpid()}-",
                                 dir=xdg.run_copy_parent(size)))


def remove_abandoned_run_copies() -> int:
    """Store copies in the temp dir whose run's process is gone; how many were removed."""
    from tui.claude.lock import pid_alive

    removed = 0
    for entry, owner in xdg.temp_folders(xdg.RUN_COPY_PREFIX):
        if owner is not None and pid_alive(owner):
            continue
        if owner is None and not _older_than_an_hour(entry):
            continue  # named by an older memtui: only a stale one is surely abandoned
        shutil.rmtree(entry, ignore_errors=True)
        removed += 1
    return removed


def _older_than_an_hour(path: Path) -> bool:
    try:
        return time.time() - path.stat().st_mtime > 3600
    except OSError:
        return False
