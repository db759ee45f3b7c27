"""`memtui export`: stores packed in one zip, to carry to another machine or keep.

The archive holds, for each store, every memory file (`.md`, subfolders included: what
sync carries) under a folder of its own, and `manifest.json`: the format, and for each
store its project path (as `memtui projects` shows it: the same path on another machine
names the same project there), its folder in the archive, and each file's mtime in
nanoseconds (a zip's own timestamps keep two seconds and no time zone).

The zip is written beside its final name and renamed in whole; an existing file of that
name is never replaced.
"""

from __future__ import annotations

import json
import os
import time
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tui.claude.paths import MEMORY_DIR_NAME, sanitize

MANIFEST = "manifest.json"
FORMAT = "memtui-export"
VERSION = 1
_ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)  # the earliest time a zip entry can hold


class ExportRefused(Exception):
    """An export that did not happen; the message is one sentence for the user."""


@dataclass(frozen=True)
class ExportStore:
    """A store to export: its memory dir, and the project path it belongs to (None:
    not known)."""
    memory_dir: Path
    project_path: str | None
    name: str


@dataclass(frozen=True)
class ExportReport:
    output: Path
    stores: int
    files: int
    size: int  # the bytes of the files, unpacked
    secrets: tuple[str, ...]  # "folder/file" of files holding a secret


def store_files(store: Path) -> dict[str, tuple[bytes, int]]:
    """Every memory file of a store that travels (as sync carries it: regular `.md`
    files, no symlink, nothing under `.git`, no lock or temp file): bytes and mtime_ns."""
    from tui.history.journal import scan_store

    contents = scan_store(store)
    if contents is None:
        return {}
    if contents.unreadable:
        path, why = next(iter(sorted(contents.unreadable.items())))
        raise ExportRefused(f"{store / path} cannot be read ({why}); nothing was exported "
                            "(make it readable, then export again).")
    files = {}
    for file, data in sorted(contents.files.items()):
        if file.endswith(".md"):
            try:
                files[file] = (data, os.lstat(store / file).st_mtime_ns)
            except FileNotFoundError:
                continue  # gone since it was read
    return files


def _folder_names(stores: Sequence[ExportStore]) -> list[str]:
    """A folder in the archive for each store, unique: its project folder's name."""
    names: list[str] = []
    for number, store in enumerate(stores, 1):
        if store.project_path:
            base = sanitize(store.project_path)
        elif store.memory_dir.name == MEMORY_DIR_NAME and store.memory_dir.parent.name:
            base = store.memory_dir.parent.name
        else:
            base = f"store-{number}"
        name, count = base, 1
        while name in names or name == MANIFEST:
            count += 1
            name = f"{base}-{count}"
        names.append(name)
    return names


def _project_folder(memory_dir: Path) -> str | None:
    """The store's folder under the config home's `projects/`, the name Claude Code keys it
    by (an import with no project path to go by uses it); None for a store elsewhere."""
    parent = memory_dir.parent
    if memory_dir.name == MEMORY_DIR_NAME and parent.parent.name == "projects":
        return parent.name
    return None


def _entry(name: str, mtime_ns: int) -> zipfile.ZipInfo:
    stamp = time.localtime(mtime_ns / 1e9)[:6]
    info = zipfile.ZipInfo(name, max(stamp, _ZIP_EPOCH))
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o100644 << 16  # a regular file, for unzip
    return info


def export_stores(stores: Sequence[ExportStore], output: Path) -> ExportReport:
    """Write the stores to a new zip at `output`; ExportRefused (nothing written) when a
    store cannot be read or `output` exists."""
    from tui.memory.secrets import find_secrets, first_secret_in_bytes

    if os.path.lexists(output):
        raise ExportRefused(f"{output} already exists; memtui never replaces a file, so "
                            "give another name (or remove it first).")
    contents = [store_files(store.memory_dir) for store in stores]
    folders = _folder_names(stores)
    manifest = {"format": FORMAT, "version": VERSION, "created": time.time(), "projects": [
        {"name": store.name, "path": store.project_path, "folder": folder,
         "project_folder": _project_folder(store.memory_dir),
         "files": {file: {"mtime_ns": mtime} for file, (_, mtime) in files.items()}}
        for store, folder, files in zip(stores, folders, contents, strict=True)]}
    secrets = tuple(f"{folder}/{file}" for folder, files in zip(folders, contents, strict=True)
                    for file, (data, _) in files.items()
                    if next(find_secrets(file), None) or first_secret_in_bytes(data))
    output = output.absolute()
    temp = output.with_name(f".{output.name}.memtui-export-tmp")
    try:
        with zipfile.ZipFile(temp, "w", zipfile.ZIP_DEFLATED) as archive:
            info = _entry(MANIFEST, time.time_ns())
            archive.writestr(info, json.dumps(manifest, indent=1, ensure_ascii=False))
            for folder, files in zip(folders, contents, strict=True):
                for file, (data, mtime) in files.items():
                    archive.writestr(_entry(f"{folder}/{file}", mtime), data)
        with open(temp, "rb") as written:
            os.fsync(written.fileno())
        os.replace(temp, output)
    finally:
        temp.unlink(missing_ok=True)
    return ExportReport(output, len(stores), sum(map(len, contents)),
                        sum(len(data) for files in contents for data, _ in files.values()),
                        secrets)
