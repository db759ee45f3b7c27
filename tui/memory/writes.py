"""Every write to a memory dir: checked, backed up, atomic, crash-safe, logged, undoable.

One change set goes, under the store's memtui lock (`store_lock`): finish any change a
crash interrupted (`intents.recover_store`) -> refuse if a dream holds the consolidate
lock -> check each target is still the bytes it was read as -> copy the old bytes to the
backups -> write the intent record and append the record to the undo log (`intents.Intent`,
`undo_log`), both synced -> stage every new file beside its target -> swap each file in
with a verified compare-and-swap (`swap.FileSwap`) -> drop the intent: the change is made.

An apply is all-or-nothing: when a swap finds an outside write, or anything fails before
the intent is dropped (a full disk, a file-size limit, a read-only folder), the files
already swapped are put back (an outside write that arrived meanwhile is kept) and the
record leaves the log before the error is raised. So "nothing was changed" is only said
when nothing was, and the newest record in the log is always the change the user last
saw made: the one undo takes back. When the process dies half-way, the intent record
lets the next command roll it back.

A change spanning two stores (a move) is a change set in each, made, undone and redone
together: `tui.memory.pairs`, through `make_held` here.

Archiving: a change set applied with `archive=True` (or, by default, whose label starts
with "archive") first copies every file it deletes to `archive_dir(store)`.

Layout under `xdg.data_dir()`:
    backups/<store key>/log.jsonl        one JSON record a line, old and new bytes in base64
    backups/<store key>/<record id>/...  plain copies of the old files, for humans
    archive/<store key>/...              archived memories

The log and the copies are trimmed by the retention policy (`trim`, `retention`).
"""

from __future__ import annotations

import base64
import json
import os
import re
import secrets
import stat
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from tui import disk_errors, failpoints, xdg
from tui.claude.files import read_regular
from tui.claude.lock import LockLease, read_lock
from tui.memory import trim, undo_log
from tui.memory.intents import Intent, keep_copy, recover_store
from tui.memory.refusals import WriteRefused
from tui.memory.store_lock import store_lock
from tui.memory.swap import FileSwap, Mtime, SwapConflict, fsync_dir, mtime_ns
from tui.memory.undo_log import backups_dir
from tui.walk import walk
from tui.xdg import store_key

_ARCHIVED_STAMP = re.compile(r"\.archived-\d{8}T\d{6}(?:-\d+)?(?=\.md$)")


class ConflictError(WriteRefused):
    """A target is no longer the bytes it was read as."""

    def __init__(self, file: str, expected: bytes | None, actual: bytes | None,
                 kept: Sequence[str] = ()):
        self.file = file
        self.expected = expected
        self.actual = actual
        also = [other for other in kept if other != file]
        extra = f" (an outside write to {', '.join(also)} was kept too)" if also else ""
        super().__init__(
            f"{file} changed on disk since it was read; nothing was written{extra}, "
            "reload and review the change again."
        )


class UndoConflict(ConflictError):
    """Undoing (or redoing) would overwrite what was written on the same lines since."""

    def __init__(self, file: str, expected: bytes | None, actual: bytes | None, label: str):
        super().__init__(file, expected, actual)
        if actual is None:
            what = f"{file} was deleted on disk since memtui's change ({label})"
        elif expected is None:
            what = f"{file} was written again on disk since memtui's change ({label}) removed it"
        else:
            what = (f"{file} changed on disk since memtui's change ({label}), on the same "
                    "lines it touched")
        self.args = (f"{what}, so taking that change back would lose what was written since; "
                     f"nothing was written. h on {file} shows its versions.",)


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
    mtime: Mtime | None = None  # give the written file this mtime (undo, restore)
    # The file may be a symlink to a regular file elsewhere (the user's own CLAUDE.md kept
    # in a dotfiles repo): that file is written, in its own folder, and the link stays.
    follow: bool = False

    @property
    def verb(self) -> str:
        """What happens to the file, in the past tense."""
        if self.before is None:
            return "created"
        if self.after is None:
            return "deleted"
        return "changed"


@dataclass(frozen=True)
class Pair:
    """The other half of a change spanning two stores (a move), made, undone and redone
    together with this one (`tui.memory.pairs`)."""
    store: Path
    id: str  # its record in that store's undo log
    label: str
    first: bool  # this half was made first (an undo makes the other first)
    journalled: bool = True  # that store keeps a journal (the config home does not)


@dataclass(frozen=True)
class ChangeRecord:
    id: str
    store: Path
    label: str
    time: float
    changes: tuple[FileChange, ...]
    undoes: str | None = None  # the id of the record this one reverted
    undone: bool = False
    # Undo passes over it: a redaction, whose old bytes (the secret) memtui keeps no copy of.
    final: bool = False
    pair: Pair | None = None

    def summary(self, also: Sequence[str] = ()) -> str:
        """One line: when, what, each file; `also`: what it changed outside the files."""
        parts = [f"{change.verb} {change.file}" for change in self.changes] + list(also)
        stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.time))
        text = f"{stamp} {self.label}: {', '.join(parts) or 'no files'}"
        if self.pair is not None:
            text += f", with its other half in {self.pair.store}"
        return f"{text} (undone)" if self.undone else text


def archive_dir(store: Path) -> Path:
    return xdg.data_dir() / "archive" / store_key(store)


def _target(store: Path, file: str, follow: bool = False) -> Path:
    """The path of a store-relative file, refusing anything that leaves the store;
    `follow`: a symlink there gives the regular file it leads to."""
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
        if follow:
            return _link_target(file, path)
        raise WriteRefused(f"{file} is a symlink; memtui only writes regular files.")
    return path


def _link_target(file: str, link: Path) -> Path:
    """The regular file `link` leads to, or one sentence why it leads to none."""
    real = Path(os.path.realpath(link))
    try:
        mode = os.stat(real).st_mode
    except FileNotFoundError:
        raise WriteRefused(f"{file} is a symlink to {os.readlink(link)}, which does not exist; "
                           "point the link at a file (or remove it) first.") from None
    except OSError as error:
        raise WriteRefused(f"{file} is a symlink memtui cannot follow "
                           f"({error.strerror or error}).") from None
    if stat.S_ISDIR(mode):
        raise WriteRefused(f"{file} is a symlink to the folder {real}, not to a file; "
                           "memtui writes only a file there.")
    if not stat.S_ISREG(mode):
        raise WriteRefused(f"{file} is a symlink to {real}, which is not a regular file.")
    return real


def read_bytes(store: Path, file: str, follow: bool = False) -> bytes | None:
    """The file's bytes now, or None when it is absent (a named pipe or a device in its
    place is refused, never opened: reading it would wait or act). `follow`: through a
    symlink (see `FileChange.follow`)."""
    try:
        return read_regular(_target(store, file, follow))
    except FileNotFoundError:
        return None
    except OSError as error:
        raise WriteRefused(f"{file} cannot be read ({error.strerror or error}).") from error


def write_atomic(path: Path, data: bytes, mtime: Mtime | None = None) -> None:
    """Replace `path` with `data` so a reader sees the old or the new file, never half."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = None
    path.parent.mkdir(parents=True, exist_ok=True)
    failpoints.reached("io.write", str(path))
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
            os.utime(temp, ns=(mtime_ns(mtime), mtime_ns(mtime)))
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def new_record_id() -> str:
    return time.strftime("%Y%m%dT%H%M%S") + "-" + secrets.token_hex(3)


def _encode(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def _decode(text: str | None) -> bytes | None:
    return None if text is None else base64.b64decode(text)


def _save_backups(folder: Path, store: Path, changes: Sequence[FileChange],
                  made: list[Path]) -> None:
    """Plain copies of the old files, for humans, each added to `made` before it is
    written. Not synced one by one: the intent record and the log, both synced, hold the
    same bytes for recovery and undo."""
    for change in changes:
        if change.before is not None:
            copy = folder / change.file
            copy.parent.mkdir(parents=True, exist_ok=True)
            failpoints.reached("io.write", str(copy))
            made.append(copy)
            copy.write_bytes(change.before)
            mtime = mtime_ns_of(_target(store, change.file, change.follow))
            if mtime is not None:
                os.utime(copy, ns=(mtime, mtime))


def mtime_of(path: Path) -> float | None:
    """A file's mtime, None when it is not there."""
    try:
        return path.stat().st_mtime
    except OSError:
        return None


def mtime_ns_of(path: Path) -> int | None:
    """A file's mtime in nanoseconds (given back exactly: a float of seconds is not), None
    when it is not there."""
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return None


def _archive(store: Path, change: FileChange, moment: float, made: list[Path]) -> None:
    """Copy a file about to be deleted into the archive, never overwriting another copy;
    a new copy is added to `made`."""
    assert change.before is not None
    folder = archive_dir(store)
    destination = folder / change.file
    if destination.exists():
        if destination.read_bytes() == change.before:
            return  # archived before: that copy is not this change's
        stamp = time.strftime("%Y%m%dT%H%M%S", time.localtime(moment))
        stem = destination.name.removesuffix(".md")
        destination = destination.with_name(f"{stem}.archived-{stamp}.md")
        count = 1
        while destination.exists():
            count += 1
            destination = destination.with_name(f"{stem}.archived-{stamp}-{count}.md")
    write_atomic(destination, change.before, mtime_ns_of(_target(store, change.file)))
    made.append(destination)


def list_archived(store: Path) -> list[Path]:
    """Archived memories of a store, newest first."""
    folder = archive_dir(store)
    if not folder.is_dir():
        return []
    found = [path for top, _, names in walk(folder) for name in names
             if name.endswith(".md") and (path := Path(top, name)).is_file()]
    return sorted(found, key=lambda path: (-path.stat().st_mtime, str(path)))


def archived_name(store: Path, archived: Path) -> str:
    """The store-relative name an archived copy restores to (its timestamp dropped)."""
    relative = archived.relative_to(archive_dir(store)).as_posix()
    return _ARCHIVED_STAMP.sub("", relative)


def restore_change(store: Path, archived: Path) -> FileChange:
    """Bring an archived memory back under its own name, with its old mtime."""
    file = archived_name(store, archived)
    return FileChange(file, read_bytes(store, file), archived.read_bytes(),
                      archived.stat().st_mtime_ns)


def _record_json(record: ChangeRecord, mtimes: dict[str, Mtime | None]) -> str:
    return json.dumps({
        "id": record.id,
        "store": str(record.store),
        "label": record.label,
        "time": record.time,
        "undoes": record.undoes,
        **({"final": True} if record.final else {}),
        **({"pair": _pair_json(record.pair)} if record.pair else {}),
        "changes": [
            {"file": c.file, "before": _encode(c.before), "after": _encode(c.after),
             "before_mtime": mtimes.get(c.file), **({"follow": True} if c.follow else {})}
            for c in record.changes
        ],
    })


def _pair_json(pair: Pair) -> dict:
    return {"store": str(pair.store), "id": pair.id, "label": pair.label, "first": pair.first,
            **({} if pair.journalled else {"journalled": False})}


def _pair_of(raw) -> Pair | None:
    """A record's pair, as `_pair_json` wrote it; TypeError when it is damaged."""
    if raw is None:
        return None
    if not (isinstance(raw, dict) and all(isinstance(raw.get(key), str)
                                          for key in ("store", "id", "label"))
            and isinstance(raw.get("first"), bool)):
        raise TypeError("a damaged pair")
    return Pair(Path(raw["store"]), raw["id"], raw["label"], raw["first"],
                raw.get("journalled") is not False)


def _check(store: Path, changes: Sequence[FileChange], lease: LockLease | None) -> dict[str, Path]:
    lock = read_lock(store)
    if lock.held() and lock.pid is not None and not (lease and lease.pid == lock.pid):
        raise StoreLocked(lock.pid)
    targets: dict[str, Path] = {}
    for change in changes:
        if change.file in targets:
            raise WriteRefused(f"{change.file} appears twice in one change; refused.")
        targets[change.file] = _target(store, change.file, change.follow)
    for change in changes:
        actual = read_bytes(store, change.file, change.follow)
        if actual != change.before:
            raise ConflictError(change.file, change.before, actual)
    return targets


def _apply(
    store: Path, changes: Sequence[FileChange], label: str, *, archive: bool,
    undoes: str | None = None, lease: LockLease | None = None, empty: bool = False,
    final: bool = False,
) -> ChangeRecord:
    """`empty`: a change of no file is logged all the same (see `record_unchanged`)."""
    store = Path(store)
    changes = tuple(changes)
    if not changes and not empty:
        raise WriteRefused("There is nothing to change.")
    with store_lock(store):
        recover_store(store)
        if changes:
            record = _apply_locked(store, changes, label, archive=archive, undoes=undoes,
                                   lease=lease, final=final)
        else:
            record = _log_unchanged(store, label, undoes, lease)
        trim.after_write(store)  # once the log has grown enough (see `trim`)
        return record


def _log_unchanged(store: Path, label: str, undoes: str | None,
                   lease: LockLease | None) -> ChangeRecord:
    """A change of no file: nothing to roll back, its record alone (appended whole or
    not at all, see `undo_log.append`)."""
    _check(store, (), lease)
    record = ChangeRecord(new_record_id(), store, label, time.time(), (), undoes)
    try:
        undo_log.append(store, _record_json(record, {}))
    except OSError as error:
        raise WriteRefused(_nothing_changed(error, "Recording the change failed")) from error
    return record


def _apply_locked(
    store: Path, changes: tuple[FileChange, ...], label: str, *, archive: bool,
    undoes: str | None, lease: LockLease | None, final: bool,
) -> ChangeRecord:
    """The change set under the store lock (`_make_change`). See `swap` for what each swap
    guarantees."""
    targets = _check(store, changes, lease)
    record = ChangeRecord(new_record_id(), store, label, time.time(), changes, undoes, final=final)
    made: list[Path] = []  # memtui's own copies of the old files, made for this change
    try:
        _make_change(store, record, targets, archive, made)
    except BaseException:
        # Not made (or left for recovery to roll back): "nothing was changed" holds for
        # memtui's own folders too.
        _remove_copies(made, (backups_dir(store), archive_dir(store)))
        raise
    failpoints.reached("apply.intent_cleared", str(store))
    failpoints.reached("apply.committed", str(store))
    return record


@dataclass(frozen=True)
class HeldChange:
    """One store's half of a pair, made, its intent record still standing."""
    record: ChangeRecord
    intent: Intent
    copies: list[Path]  # memtui's own copies of the old files

    def take_back(self) -> str | None:
        """Roll the half back as recovery would (an outside write since is kept); the
        sentence recovery says, if any. OSError leaves it to the next command."""
        message = self.intent.roll_back()
        _remove_copies(self.copies, (backups_dir(self.record.store),
                                     archive_dir(self.record.store)))
        return message


def check_changes(store: Path, changes: Sequence[FileChange]) -> None:
    """Refuse (ConflictError, StoreLocked, WriteRefused) a change set that cannot be made
    now, writing nothing; the caller holds the store's lock."""
    _check(store, changes, None)


def make_held(store: Path, changes: tuple[FileChange, ...], label: str, *, record_id: str,
              pair: Pair, archive: bool, undoes: str | None) -> HeldChange:
    """One half of a pair, under the caller's lock on its store (recovered): made like any
    change set, but its intent left standing (see `tui.memory.pairs`)."""
    targets = _check(store, changes, None)
    record = ChangeRecord(record_id, store, label, time.time(), changes, undoes, pair=pair)
    made: list[Path] = []
    try:
        intent = _make_change(store, record, targets, archive, made)
    except BaseException:
        _remove_copies(made, (backups_dir(store), archive_dir(store)))
        raise
    return HeldChange(record, intent, made)


def _remove_copies(copies: Sequence[Path], roots: Sequence[Path]) -> None:
    """Remove the copies, and the folders they leave empty up to (and with) `roots`; a
    copy that cannot be removed stays (the refusal being said matters more)."""
    for copy in copies:
        try:
            copy.unlink(missing_ok=True)
        except OSError:
            continue
        folder = copy.parent
        while any(folder.is_relative_to(root) for root in roots):
            try:
                folder.rmdir()
            except OSError:
                break
            folder = folder.parent


def _make_change(store: Path, record: ChangeRecord, targets: dict[str, Path], archive: bool,
                 made: list[Path]) -> Intent:
    """Backups, intent and log record, staged files, the swaps, the intent dropped; raises
    having changed nothing in the store (or left the intent for recovery to roll back).
    A half of a pair keeps its intent standing, returned: `pairs` drops it once the other
    half is made too."""
    changes = record.changes
    mtimes = {c.file: mtime_ns_of(targets[c.file]) for c in changes}
    try:
        _save_backups(backups_dir(store) / record.id, store, changes, made)
        if archive:
            for change in changes:
                if change.after is None and change.before is not None:
                    _archive(store, change, record.time, made)
    except OSError as error:
        raise WriteRefused(_nothing_changed(error, "Saving a backup copy failed")) from error
    try:
        intent = Intent(store, record.id, record.label, _record_json(record, mtimes),
                        pair=_pair_mark(record))
    except OSError as error:
        raise WriteRefused(_nothing_changed(error, "Recording the change failed")) from error
    swaps = [FileSwap(c.file, targets[c.file], c.before, c.after, record.id,
                      _mode(targets[c.file]), c.mtime, mtimes[c.file]) for c in changes]
    current = swaps[0]
    try:
        try:
            failpoints.reached("apply.logged", str(store))
            for current in swaps:
                current.stage()
            failpoints.reached("apply.staged", str(store))
            for current in swaps:
                current.swap()
            failpoints.reached("apply.swapped", str(store))
            for current in swaps:  # the old file goes the moment it is seen unchanged
                current.verify()
                current.drop_aside()
            for swap in swaps:  # while the intent stands: a kill now leaves it to recovery
                swap.discard_temp()
            for folder in {swap.path.parent for swap in swaps}:
                fsync_dir(folder)
            failpoints.reached("apply.before_commit", str(store))
            current = None
            if record.pair is None:
                intent.commit()
        except SwapConflict as conflict:
            kept, stuck = _roll_back(store, record, swaps, intent)
            if stuck:
                raise WriteRefused(f"{conflict.file} changed on disk while memtui wrote it, "
                                   f"and {stuck}{_LATER}.") from None
            before = next(c.before for c in changes if c.file == conflict.file)
            raise ConflictError(conflict.file, before, conflict.actual, kept) from None
        except OSError as error:
            failed = f"Writing {current.file} failed" if current else "Finishing the change failed"
            kept, stuck = _roll_back(store, record, swaps, intent)
            outcome = f"{stuck}{_LATER}" if stuck else f"nothing was changed{_kept_note(kept)}"
            raise WriteRefused(disk_errors.sentence(error, failed, outcome)) from error
    finally:
        for swap in swaps:
            swap.discard_temp()
    return intent


def _pair_mark(record: ChangeRecord) -> str | None:
    """The name of the mark a pair stands under while it is made: its first half's id."""
    if record.pair is None:
        return None
    return record.id if record.pair.first else record.pair.id


def _nothing_changed(error: OSError, failed: str) -> str:
    return disk_errors.sentence(error, failed, "nothing was changed")


def _mode(path: Path) -> int | None:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return None


_LATER = " could not be put back yet (the next memtui command puts it back)"


def _roll_back(store: Path, record: ChangeRecord, swaps: Sequence[FileSwap],
               intent: Intent) -> tuple[list[str], str]:
    """Undo the swaps made so far, newest first, and take the record back out of the log.
    Returns the files where an outside write arrived meanwhile and was kept (ours gave way
    to it), and what could not be put back ("" when all was): then the intent record
    stays for the next command to finish."""
    kept: list[str] = []
    stuck: list[str] = []
    for swap in reversed(swaps):
        try:
            if not swap.roll_back():
                kept.append(swap.file)
            _save_leftover(store, record, swap)
        except OSError:
            stuck.append(swap.file)
    if not stuck:
        try:
            intent.abandon()
        except OSError:
            stuck.append("its record in the undo log")
    return kept, ", ".join(stuck)


def _save_leftover(store: Path, record: ChangeRecord, swap: FileSwap) -> None:
    """A moved-aside file whose name an outside write took: keep its bytes if unique."""
    if swap.aside is None:
        return
    data = swap.aside.read_bytes()
    if data != swap.before:
        keep_copy(store, record.id, swap.file, data)
    swap.aside.unlink(missing_ok=True)
    swap.aside = None


def _kept_note(kept: Sequence[str]) -> str:
    if not kept:
        return ""
    return f" (kept the outside write to {', '.join(kept)} that arrived meanwhile)"


def apply_changes(
    store: Path, changes: Sequence[FileChange], label: str, *, archive: bool | None = None,
    lease: LockLease | None = None, final: bool = False,
) -> ChangeRecord:
    """Write a change set to a store, or raise WriteRefused having written nothing.

    `archive` defaults to "the label starts with 'archive'". `lease`: the dream holding the
    consolidate lock applies its own change set through it. `final`: undo passes over this
    change (a redaction, whose old bytes are then purged: `tui.history.redaction`).
    """
    if archive is None:
        archive = label.lower().startswith("archive")
    return _apply(store, changes, label, archive=archive, lease=lease, final=final)


def record_unchanged(store: Path, label: str, lease: LockLease | None = None) -> ChangeRecord:
    """Log a change that wrote no file, so that it is listed and undone like any other: a
    dream that found nothing to change still set the consolidate lock (`lease`), which its
    undo puts back."""
    return _apply(store, (), label, archive=False, lease=lease, empty=True)


def _read_log(store: Path) -> list[tuple[ChangeRecord, dict[str, Mtime | None]]]:
    entries = []
    for raw in undo_log.records(store):
        try:
            changes = tuple(
                FileChange(c["file"], _decode(c["before"]), _decode(c["after"]),
                           follow=c.get("follow") is True)
                for c in raw["changes"]
            )
            mtimes = {c["file"]: c.get("before_mtime") for c in raw["changes"]}
            record = ChangeRecord(raw["id"], Path(raw["store"]), raw["label"], raw["time"],
                                  changes, raw.get("undoes"), final=raw.get("final") is True,
                                  pair=_pair_of(raw.get("pair")))
        except (ValueError, KeyError, TypeError, AttributeError):
            continue  # damaged: what is readable around it still counts
        entries.append((record, mtimes))
    return entries


FORWARD, UNDO, REDO = "forward", "undo", "redo"


def _states(records: Sequence[ChangeRecord]) -> tuple[dict[str, str], set[str]]:
    """Each record's kind (a change, an undo, a redo: an undo of an undo), and the ids of
    the records whose effect is reverted now: those an undo or redo not itself reverted
    has reverted."""
    kinds: dict[str, str] = {}
    undoers: dict[str, list[str]] = {}
    for record in records:
        target = record.undoes
        if target is None:
            kinds[record.id] = FORWARD
        else:
            kinds[record.id] = REDO if kinds.get(target) == UNDO else UNDO
            undoers.setdefault(target, []).append(record.id)
    undone: set[str] = set()
    for record in reversed(records):  # an undoer always comes after what it reverts
        if any(undoer not in undone for undoer in undoers.get(record.id, ())):
            undone.add(record.id)
    return kinds, undone


def history(store: Path) -> list[ChangeRecord]:
    """Every change memtui made to this store, newest first."""
    entries = _read_log(store)
    _, undone = _states([record for record, _ in entries])
    records = [replace(record, undone=record.id in undone) for record, _ in entries]
    return records[::-1]


def undone_phrase(label: str) -> str:
    """What an undo did, as a sentence: 'Undid relink 1 memory.'"""
    return f"Undid {label.removeprefix('undo ')}."


def redone_phrase(label: str) -> str:
    """What a redo did, as a sentence: 'Redid relink 1 memory.'"""
    return f"Redid {label.removeprefix('redo ')}."


@dataclass(frozen=True)
class LogState:
    """A store's undo log as undo and redo see it."""
    entries: list[tuple[ChangeRecord, dict[str, Mtime | None]]]
    kinds: dict[str, str]
    undone: set[str]

    def next_undo(self) -> tuple[ChangeRecord, dict[str, Mtime | None]] | None:
        """The newest change not yet undone (a redone change counts as a change again); a
        final change (a redaction) is passed over: nothing of what it took is kept."""
        return next(((record, mtimes) for record, mtimes in reversed(self.entries)
                     if self.kinds[record.id] != UNDO and record.id not in self.undone
                     and not record.final), None)

    def next_redo(self) -> tuple[ChangeRecord, dict[str, Mtime | None]] | None:
        """The newest undo not yet redone; None once a change was made after it."""
        for record, mtimes in reversed(self.entries):
            if self.kinds[record.id] == FORWARD:
                return None  # a change made after the undos: they stay undone
            if self.kinds[record.id] == REDO or record.id in self.undone:
                continue
            return record, mtimes
        return None

    def next_step(self, step: str) -> tuple[ChangeRecord, dict[str, Mtime | None]] | None:
        return self.next_undo() if step == UNDO else self.next_redo()

    def holds(self, record_id: str) -> bool:
        return record_id in self.kinds


def log_state(store: Path) -> LogState:
    entries = _read_log(store)
    kinds, undone = _states([record for record, _ in entries])
    return LogState(entries, kinds, undone)


def next_pair(store: Path, step: str) -> Pair | None:
    """The other half of the change an undo (`UNDO`) or redo (`REDO`) of this store would
    take back next, read without the lock: which stores to lock and journal for it."""
    found = log_state(store).next_step(step)
    return found[0].pair if found else None


def undo_last(store: Path, merge: Merge | None = None) -> ChangeRecord | None:
    """Revert the newest change not yet undone, byte for byte; None when there is none.
    With `merge`, a file written since keeps those later writes (see `reverted_changes`).
    A final change (a redaction) is passed over: nothing of what it took is kept to put
    back. A change spanning two stores is undone in both (`pairs.step_pair`).

    Undo records are themselves never undone here (`redo_last` does that), so repeated
    calls walk back in time; a redone change counts as a change again.
    """
    with store_lock(Path(store)):
        recover_store(store)
        return _step_locked(Path(store), UNDO, None, merge)


# merge(file, base, ours, theirs): `ours` and `theirs` both changed `base`; the bytes
# keeping both, or None when they changed the same lines (or are not text).
Merge = Callable[[str, bytes, bytes, bytes], bytes | None]


def reverted_changes(store: Path, record: ChangeRecord, mtimes: dict[str, Mtime | None],
                     merge: Merge | None) -> tuple[FileChange, ...]:
    """The changes taking `record` back. A file written again since (Claude Code appends
    to the index all the time) gets its old text back with the later writes merged in,
    when `merge` can keep both; otherwise `UndoConflict`, nothing written."""
    changes = []
    for change in reversed(record.changes):
        actual = read_bytes(store, change.file, change.follow)
        if actual == change.after:
            changes.append(FileChange(change.file, change.after, change.before,
                                      mtimes.get(change.file), change.follow))
            continue
        merged = None
        if merge is not None and None not in (actual, change.after, change.before):
            merged = merge(change.file, change.after, change.before, actual)
        if merged is None:
            raise UndoConflict(change.file, change.after, actual, record.label)
        changes.append(FileChange(change.file, actual, merged, follow=change.follow))
    return tuple(changes)


def step_label(step: str, record: ChangeRecord) -> str:
    """The label of the undo (or redo) of `record`: 'undo relink 1 memory'."""
    if step == UNDO:
        return f"undo {record.label.removeprefix('redo ')}"
    return f"redo {record.label.removeprefix('undo ')}"


def _step_locked(store: Path, step: str, refuse, merge: Merge | None) -> ChangeRecord | None:
    found = log_state(store).next_step(step)
    if found is None:
        return None
    record, mtimes = found
    if step == REDO and refuse is not None and (reason := refuse(record)):
        raise WriteRefused(reason)
    if record.pair is not None:
        from tui.memory.pairs import step_pair

        made = step_pair(store, step, record, mtimes, merge)
        if made is not None:
            return made
    return _apply(store, reverted_changes(store, record, mtimes, merge), step_label(step, record),
                  archive=False, undoes=record.id, empty=not record.changes)


def redo_last(store: Path, refuse: Callable[[ChangeRecord], str | None] | None = None,
              merge: Merge | None = None) -> ChangeRecord | None:
    """Put back what the newest undo took, byte for byte; None when no undo is left to
    redo (none yet, all redone, or a new change was made since, as in every editor).

    `refuse(undo)`, given the undo record that would be taken back, may return why it
    cannot: raised as `WriteRefused`, nothing written. `merge` as for `undo_last`.
    """
    with store_lock(Path(store)):
        recover_store(store)
        return _step_locked(Path(store), REDO, refuse, merge)
