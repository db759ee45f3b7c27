"""memtui's own places on disk (never inside a memory store).

XDG base directories, each overridable for tests and unusual setups with
`MEMTUI_DATA_DIR`, `MEMTUI_STATE_DIR` and `MEMTUI_CACHE_DIR`.
"""

from __future__ import annotations

import os
from pathlib import Path


def _place(override: str, xdg: str, fallback: str) -> Path:
    if os.environ.get(override):
        return Path(os.environ[override]).expanduser()
    base = os.environ.get(xdg) or str(Path.home() / fallback)
    return Path(base) / "memtui"


def data_dir() -> Path:
    """Backups, archive, journal: what must outlive the app."""
    return _place("MEMTUI_DATA_DIR", "XDG_DATA_HOME", ".local/share")


def state_dir() -> Path:
    """Cursors and other small state."""
    return _place("MEMTUI_STATE_DIR", "XDG_STATE_HOME", ".local/state")


def cache_dir() -> Path:
    """Throw-away caches."""
    return _place("MEMTUI_CACHE_DIR", "XDG_CACHE_HOME", ".cache")


def config_dir() -> Path:
    """The optional `config.toml` (API settings for runs)."""
    return _place("MEMTUI_CONFIG_DIR", "XDG_CONFIG_HOME", ".config")


# Where a killed memtui leaves work for the next command to finish (tui.memory.intents):
# intent records of half-applied changes, leases of Claude Code's lock taken by a dream, and
# store copies of runs in the temp dir (or in memory, below), named `memtui-run-<pid>-...`.
RUN_COPY_PREFIX = "memtui-run-"
# Linux's folder in memory: a run's copy of a store goes there when no temp dir was chosen
# (TMPDIR): it is thrown away after the run, and on a disk the unlinking of 50,000 files
# written back meanwhile took longer than the whole run.
MEMORY_TEMP_DIR = "/dev/shm"
MEMORY_TEMP_ROOM = 4  # the copy goes in memory when that holds this many times its bytes
# ... and temp files in the store itself: `.<name>.memtui-new` and the like, every one a
# dot file holding this mark (tui.memory.swap, tui.claude.lock).
TEMP_MARK = ".memtui-"


def run_copy_owner(name: str) -> int | None:
    """The PID of the run a `memtui-run-<pid>-…` store copy belongs to (None: not named so)."""
    return temp_owner(name, RUN_COPY_PREFIX)


def temp_owner(name: str, prefix: str) -> int | None:
    """The PID of the process a `<prefix><pid>-…` temp folder is named after (None: not
    named so)."""
    pid = name.removeprefix(prefix).split("-", 1)[0]
    return int(pid) if pid.isdigit() and len(pid) <= 10 else None


def temp_folders(prefix: str) -> list[tuple[Path, int | None]]:
    """memtui's `<prefix>…` folders in the temp dir and in memory, each with the PID it is
    named after."""
    import tempfile

    entries: list[Path] = []
    for folder in dict.fromkeys((tempfile.gettempdir(), MEMORY_TEMP_DIR)):
        try:
            entries += Path(folder).glob(f"{prefix}*")
        except OSError:
            continue
    return [(entry, temp_owner(entry.name, prefix)) for entry in entries]


def run_copy_parent(size: int) -> str | None:
    """Where a run copies a store of `size` bytes: in memory when no temp dir was chosen
    and memory has room for it; None: the temp dir."""
    if any(os.environ.get(name) for name in ("TMPDIR", "TEMP", "TMP")):
        return None
    try:
        room = os.statvfs(MEMORY_TEMP_DIR)
    except OSError:
        return None
    if not os.access(MEMORY_TEMP_DIR, os.W_OK | os.X_OK):
        return None
    return MEMORY_TEMP_DIR if room.f_bavail * room.f_frsize > MEMORY_TEMP_ROOM * size else None


def is_temp_name(name: str) -> bool:
    """Whether a file name in a store is one of memtui's temp files (a write in flight)."""
    return name.startswith(".") and TEMP_MARK in name


def intents_dir(store: Path | None = None) -> Path:
    """Where intent records are kept: every store's, or one store's."""
    base = state_dir() / "intents"
    return base if store is None else base / store_key(store)


def pairs_dir() -> Path:
    """Marks of changes spanning two stores under way (`tui.memory.intents.PairMark`)."""
    return state_dir() / "pairs"


def lock_leases_dir() -> Path:
    return state_dir() / "lock-leases"


def store_key(store: Path) -> str:
    """`<X>` for `<home>/projects/<X>/memory`, else a short hash of the path."""
    store = Path(os.path.abspath(store))
    if store.name == "memory" and store.parent.parent.name == "projects":
        return store.parent.name
    import hashlib  # ~3 ms, for stores outside a projects folder only

    digest = hashlib.sha256(os.path.realpath(store).encode("utf-8", "surrogateescape"))
    return f"path-{digest.hexdigest()[:12]}"


def journal_dir(store: Path) -> Path:
    """Where `tui.history.journal` keeps a store's history (a git repository)."""
    return data_dir() / "journal" / store_key(store)
