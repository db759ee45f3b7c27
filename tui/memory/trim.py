"""Trimming a store's undo log and backup copies by the retention policy, crash-safe.

What goes: the log's oldest records past the policy (`retention`), as one prefix of the
log, and the backup folders of those records; folders no record names (left by a change
that was rolled back, or by a trim killed half-way) once they are older than the policy's
days. What stays: every record the policy keeps, and every record an undo or redo it
keeps reverted (so each kept record is still undone and redone exactly as before), and
the `kept/` copies recovery set aside of outside writes, unless `include_kept` and they
are older than the policy's days (a younger one stays, with its folder).

Order: the log is rewritten first (a temp file beside it, synced, renamed over it), then
the folders are removed. A crash in between leaves folders no record names, which the
next trim removes; never a record whose copies are gone. Undo reads the bytes from the log
itself: the folders are plain copies for humans.

A trim runs under the store's memtui lock with no change set in flight (no intent record
left after recovery), so no write can append to the log between its read and its rename.
After a write it runs by itself (`after_write`) once the log has doubled since the last
trim and is past `AUTO_FLOOR`: its cost is amortised over the writes that grew the log,
and it removes at most `AUTO_FOLDERS` folders, so no write waits long for it (the next
writes remove the rest, as many at a time).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import stat
import time
from dataclasses import dataclass, replace
from pathlib import Path

from tui import failpoints, xdg
from tui.disk_use import tree_bytes
from tui.memory.intents import recover_store
from tui.memory.retention import Retention
from tui.memory.store_lock import store_lock
from tui.memory.swap import fsync_dir
from tui.memory.undo_log import LOG_NAME, backups_dir
from tui.walk import walk

KEPT = "kept"
AUTO_FLOOR = 1 << 20  # a log smaller than this is never trimmed after a write
# Folders an automatic trim removes at most, so that no write waits long for one (about a
# millisecond each on a slow disk); the rest go with the next trim.
AUTO_FOLDERS = 500
TEMP_SUFFIX = ".memtui-tmp"


@dataclass(frozen=True)
class TrimResult:
    """What a trim did (or, in a dry run, would do) to one store's backups."""

    store: Path
    changes: int  # records in the log before
    pruned: int  # records dropped from it
    folders: int  # backup folders removed
    freed: int  # bytes on disk
    kept_copies: int  # copies recovery kept that stay
    kept_bytes: int
    kept_removed: int = 0  # copies recovery kept that went (only when asked)
    skipped: str | None = None  # why nothing was done

    def to_json(self) -> dict:
        return {"store": str(self.store), "changes": self.changes, "pruned": self.pruned,
                "folders": self.folders, "freed_bytes": self.freed,
                "kept_copies": self.kept_copies, "kept_bytes": self.kept_bytes,
                "kept_removed": self.kept_removed, "skipped": self.skipped}


@dataclass(frozen=True)
class _Line:
    offset: int
    size: int
    id: str | None  # None: a line cut short by a crash
    time: float
    undoes: str | None


@dataclass(frozen=True)
class _Plan:
    lines: list[_Line]
    cut: int  # lines before this index go
    drop: list[Path]  # backup folders to remove
    kept: list[Path]  # kept copies that stay (or go, with include_kept)


def _state_path(store: Path) -> Path:
    return xdg.state_dir() / "trim" / f"{xdg.store_key(store)}.json"


def _left_behind_path(store: Path) -> Path:
    """There while a trim limited to a few folders left others for the next one."""
    return _state_path(store).with_suffix(".left-behind")


def _read_state(store: Path) -> dict:
    try:
        state = json.loads(_state_path(store).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return state if isinstance(state, dict) else {}


def _write_state(store: Path, state: dict) -> None:
    """Best effort: losing it only makes the next automatic trim come sooner."""
    path = _state_path(store)
    temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}{TEMP_SUFFIX}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp.write_text(json.dumps(state), encoding="utf-8")
        os.replace(temp, path)
    except OSError:
        temp.unlink(missing_ok=True)


def _number(value: object) -> float:
    return float(value) if type(value) in (int, float) else 0.0


def _parse(line: bytes, offset: int) -> _Line:
    try:
        raw = json.loads(line)
        record_id, stamp, undoes = raw["id"], raw["time"], raw.get("undoes")
        if not isinstance(record_id, str) or not isinstance(raw["changes"], list):
            raise TypeError
    except (ValueError, KeyError, TypeError):
        return _Line(offset, len(line), None, 0.0, None)
    return _Line(offset, len(line), record_id, _number(stamp),
                 undoes if isinstance(undoes, str) else None)


def _read_lines(log: Path) -> list[_Line]:
    lines: list[_Line] = []
    offset = 0
    try:
        with open(log, "rb") as source:
            for line in source:
                lines.append(_parse(line, offset))
                offset += len(line)
    except FileNotFoundError:
        pass
    return lines


def _cut(lines: list[_Line], policy: Retention, now: float) -> int:
    """The first line kept: the newest `keep_changes` records and every young one, and
    every record a kept undo or redo reverted (an undoer always follows what it undid)."""
    records = [index for index, line in enumerate(lines) if line.id is not None]
    cut = len(lines)
    if policy.keep_changes and records:
        cut = records[-min(policy.keep_changes, len(records))]
    oldest_kept = now - policy.keep_seconds
    cut = min([cut, *(i for i in records if lines[i].time >= oldest_kept)])
    position = {lines[i].id: i for i in records}
    for index in range(len(lines) - 1, -1, -1):
        if index < cut:
            break
        target = position.get(lines[index].undoes)
        if target is not None and target < cut:
            cut = target
    return cut


def _plan(store: Path, policy: Retention, now: float, include_kept: bool) -> _Plan:
    folder = backups_dir(store)
    lines = _read_lines(folder / LOG_NAME)
    cut = _cut(lines, policy, now)
    staying = {line.id for line in lines[cut:] if line.id}
    going = {line.id for line in lines[:cut] if line.id}
    moment = now - policy.keep_seconds
    drop: list[Path] = []
    kept: list[Path] = []
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError:
        entries = []
    for entry in entries:
        if not entry.is_dir(follow_symlinks=False):
            continue
        copies = _kept_copies(entry.path)
        kept += copies
        if entry.name in staying:
            continue
        path = Path(entry.path)
        if not _holds_more_than_kept(path):
            # What a trim already emptied: only kept copies are left, each going by its age.
            if include_kept and (not copies or any(_made_before(c, moment) for c in copies)):
                drop.append(path)
        elif entry.name in going or _older_than(path, moment, copies):
            drop.append(path)
    return _Plan(lines, cut, drop, kept)


def _kept_copies(folder: str) -> list[Path]:
    """The copies recovery kept in a backup folder (one lstat when there are none: this
    runs for every folder)."""
    kept = os.path.join(folder, KEPT)
    try:
        if not stat.S_ISDIR(os.lstat(kept).st_mode):
            return []
    except OSError:
        return []
    return sorted(Path(folder, name) for folder, _, names in walk(kept) for name in names)


def _holds_more_than_kept(folder: Path) -> bool:
    try:
        return any(name != KEPT for name in os.listdir(folder))
    except OSError:
        return False


def _older_than(folder: Path, moment: float, kept: list[Path]) -> bool:
    """A folder no record names is old when the change it was made for (or, for another
    folder, its last change) and every copy it keeps are."""
    try:
        made = time.mktime(time.strptime(folder.name[:15], "%Y%m%dT%H%M%S"))
    except ValueError:  # not named after a change: `stray`
        made = None
    try:
        if made is None:
            made = folder.lstat().st_mtime
    except OSError:
        return False
    return made < moment and all(_made_before(path, moment) for path in kept)


def _made_before(path: Path, moment: float) -> bool:
    try:
        return path.lstat().st_mtime < moment
    except OSError:
        return False


def _removable_bytes(folder: Path, going_kept: list[Path]) -> int:
    return (tree_bytes(folder) - tree_bytes(folder / KEPT)
            + sum(tree_bytes(path) for path in going_kept))


def _remove_folder(folder: Path, going_kept: list[Path]) -> None:
    """A backup folder but for its `kept/` copies not in `going_kept`: those stay, with
    the folders holding them."""
    kept = folder / KEPT
    if not os.path.lexists(kept) or set(_kept_copies(str(folder))) <= set(going_kept):
        shutil.rmtree(folder)
        return
    for entry in os.scandir(folder):
        if entry.name == KEPT:
            continue
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path)
        else:
            os.unlink(entry.path)
    for path in going_kept:
        path.unlink()
    for below, _, _ in walk(kept, topdown=False):
        if below != str(kept) and not os.listdir(below):
            os.rmdir(below)


def _rewrite_log(log: Path, keep_from: int) -> None:
    """The log from byte `keep_from` on, in place of the whole, atomically."""
    temp = log.with_name(f".{log.name}.{secrets.token_hex(4)}{TEMP_SUFFIX}")
    try:
        with open(log, "rb") as source, open(temp, "xb") as out:
            source.seek(keep_from)
            shutil.copyfileobj(source, out, 1 << 20)
            out.flush()
            os.fsync(out.fileno())
        failpoints.reached("trim.log_written", str(log))
        os.replace(temp, log)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    fsync_dir(log.parent)
    failpoints.reached("trim.log_replaced", str(log))


def _remove_stale_temp_files(folder: Path) -> None:
    """Temp logs of a trim that was killed before its rename (we hold the lock: no other
    trim is writing one)."""
    try:
        names = [name for name in os.listdir(folder)
                 if name.startswith(".") and name.endswith(TEMP_SUFFIX)]
    except OSError:
        return
    for name in names:
        Path(folder, name).unlink(missing_ok=True)


def logged_store(folder: Path) -> Path | None:
    """The store a backups folder is of, as its undo log names it; None when no record
    does (or names a store that is keyed elsewhere)."""
    try:
        with open(folder / LOG_NAME, "rb") as source:
            for line in source:
                try:
                    store = json.loads(line)["store"]
                except (ValueError, KeyError, TypeError):
                    continue
                if isinstance(store, str) and xdg.store_key(Path(store)) == folder.name:
                    return Path(store)
                return None
    except OSError:
        pass
    return None


def in_flight(store: Path) -> bool:
    """Whether a change set of this store is in flight (or was interrupted and not yet
    rolled back): an intent record for it."""
    try:
        with os.scandir(xdg.intents_dir(store)) as entries:
            return any(entry.name.endswith(".json") for entry in entries)
    except FileNotFoundError:
        return False


IN_FLIGHT = ("a change to this store is in flight or was interrupted and could not be rolled "
             "back yet, so nothing was trimmed")
# A dry run neither waits nor rolls back, so it cannot say what the trim would find.
IN_FLIGHT_DRY = ("a change to this store is in flight or was interrupted: memtui gc waits for "
                 "it or rolls it back before it trims, so a dry run cannot say what would go")


def _going_kept(folder: Path, plan: _Plan, include_kept: bool, moment: float) -> list[Path]:
    """The kept copies that go: only when asked, only in a folder that goes, and only
    those older than the policy's days (they are outside writes: the user's data)."""
    if not include_kept:
        return []
    dropped = {path.name for path in plan.drop}
    return [path for path in plan.kept
            if path.relative_to(folder).parts[0] in dropped and _made_before(path, moment)]


def _trim_locked(store: Path, policy: Retention, *, include_kept: bool, dry_run: bool,
                 now: float, folder_limit: int | None = None) -> TrimResult:
    """The trim; `folder_limit`: remove at most that many folders now (the oldest), the
    others stay behind as folders no record names, for a later trim."""
    folder = backups_dir(store)
    log = folder / LOG_NAME
    plan = _plan(store, policy, now, include_kept)
    left_behind = 0
    if folder_limit is not None:
        left_behind = max(0, len(plan.drop) - folder_limit)
        plan = replace(plan, drop=plan.drop[:folder_limit])
    records = sum(line.id is not None for line in plan.lines)
    pruned = sum(line.id is not None for line in plan.lines[:plan.cut])
    going_kept = _going_kept(folder, plan, include_kept, now - policy.keep_seconds)
    stays = [path for path in plan.kept if path not in going_kept]
    kept_bytes = sum(tree_bytes(path) for path in stays)
    result = TrimResult(store, records, pruned, len(plan.drop), 0, len(stays), kept_bytes,
                        len(going_kept))
    if in_flight(store):
        return replace(result, pruned=0, folders=0, kept_removed=0,
                       skipped=IN_FLIGHT_DRY if dry_run else IN_FLIGHT)
    # The log's share counted in bytes, not blocks, so a dry run says what the trim frees.
    log_bytes = sum(line.size for line in plan.lines[:plan.cut])
    going_by_folder = {path: [copy for copy in going_kept if copy.is_relative_to(path)]
                       for path in plan.drop}
    folders_bytes = sum(_removable_bytes(path, going_by_folder[path]) for path in plan.drop)
    if dry_run:
        return replace(result, freed=log_bytes + folders_bytes)
    _remove_stale_temp_files(folder)
    if plan.cut:
        keep_from = plan.lines[plan.cut].offset if plan.cut < len(plan.lines) else \
            plan.lines[-1].offset + plan.lines[-1].size
        _rewrite_log(log, keep_from)
    for path in plan.drop:
        _remove_folder(path, going_by_folder[path])
        failpoints.reached("trim.folder_removed", path.name)
    _record(store, log, plan, now, left_behind)
    return replace(result, freed=log_bytes + folders_bytes)


def _record(store: Path, log: Path, plan: _Plan, now: float, left_behind: int) -> None:
    """Remember the log's size and any folders left behind (for the next automatic trim),
    and what went (for undo)."""
    marker = _left_behind_path(store)
    if left_behind:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
    else:
        marker.unlink(missing_ok=True)
    state = _read_state(store)
    try:
        state["log_bytes"] = log.stat().st_size
    except OSError:
        state["log_bytes"] = 0
    gone = [line for line in plan.lines[:plan.cut] if line.id is not None]
    if gone:
        state["trimmed"] = int(_number(state.get("trimmed"))) + len(gone)
        state["trimmed_until"] = max(_number(state.get("trimmed_until")),
                                     *(line.time for line in gone))
        state["trimmed_at"] = now
    _write_state(store, state)


def trim_store(store: Path, policy: Retention, *, include_kept: bool = False,
               dry_run: bool = False, now: float | None = None) -> TrimResult:
    """Trim one store's backups by `policy`. A dry run reads only (no lock, no write).
    Otherwise under the store lock, after finishing any interrupted change set; StoreBusy
    (one sentence) when another memtui holds the store past the usual wait."""
    store = Path(store)
    now = time.time() if now is None else now
    if dry_run:
        return _trim_locked(store, policy, include_kept=include_kept, dry_run=True, now=now)
    with store_lock(store):
        recover_store(store)
        return _trim_locked(store, policy, include_kept=include_kept, dry_run=False, now=now)


def after_write(store: Path) -> None:
    """The automatic trim, called under the store lock once a change set is logged: only
    when the log is past `AUTO_FLOOR` and twice its size after the last trim, or when the
    last trim left folders behind (`AUTO_FOLDERS`). Otherwise one or two stats. Never fails
    the write: a config it cannot read, or a disk error, leaves the trim to `memtui gc`."""
    try:
        size = os.stat(backups_dir(store) / LOG_NAME).st_size
    except OSError:
        return
    if not (os.path.exists(_left_behind_path(store)) or _doubled(store, size)):
        return
    from tui.config import ConfigError
    from tui.memory.retention import retention_policy

    try:
        policy = retention_policy()
        _trim_locked(store, policy, include_kept=False, dry_run=False, now=time.time(),
                     folder_limit=AUTO_FOLDERS)
    except (ConfigError, OSError):
        pass


def _doubled(store: Path, size: int) -> bool:
    if size < AUTO_FLOOR:
        return False
    last = _number(_read_state(store).get("log_bytes"))
    return not last <= size < 2 * last


def trimmed_note(store: Path) -> str | None:
    """What undo says when it has nothing left and the policy trimmed older changes."""
    state = _read_state(store)
    until = _number(state.get("trimmed_until"))
    if not state.get("trimmed") or not until:
        return None
    stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(until))
    return (f"memtui's changes up to {stamp} were trimmed from the undo log by its retention "
            "policy, and the journal still has every version (memtui history FILE)")
