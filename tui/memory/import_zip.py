"""`memtui import`: an archive `memtui export` made, merged into this machine's stores.

An archive is data from elsewhere, so every entry is judged before a byte of it is used,
and only what passes reaches a store, through the safe-write path (one undoable change
per store). Skipped, each kind said in one sentence: absolute names, names that climb
out with `..`, symlinks, what no store can hold (`.git`, empty or non-UTF-8 parts, a
path separator of another system), names past 255 bytes, files that are no memory
(`.md`), names the archive holds twice or that differ from another only in case (a
case-insensitive disk would let one overwrite the other), entries outside the
manifest's projects, damaged or encrypted entries, files holding a secret, and
unpacking past the bounds (`MAX_FILE_BYTES` a file, `MAX_RATIO` times its packed
size, `MAX_TOTAL_BYTES` in all): a zip bomb stops at its header, never in memory.

A file the store already holds merges as sync's first contact does (`tui.sync.merge`):
identical bytes silently, differing memories with the body-only conflict markers,
`MEMORY.md` as an ordered set of index lines.
"""

from __future__ import annotations

import json
import os
import stat
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from tui.claude.paths import INDEX_NAME
from tui.memory.export_zip import FORMAT, MANIFEST
from tui.memory.writes import FileChange, read_bytes

MAX_FILE_BYTES = 5 * 1024 * 1024  # as sync: no memory is this big
MAX_TOTAL_BYTES = 256 * 1024 * 1024
MAX_RATIO = 100  # text packs 3-10x; more than 100x is a bomb's filler
_RATIO_FROM = 64 * 1024  # a small file may pack as tightly as it likes
MAX_MANIFEST_BYTES = 16 * 1024 * 1024
MAX_NAME_BYTES = 255
MAX_ENTRIES = 100_000  # forty stores hold 6,000 files; a million entries is an attack


class ImportRefused(Exception):
    """An archive that cannot be imported at all; the message is one sentence."""


# What was skipped, by kind: the sentence that says it, given the count and some names.
_SKIPPED = {
    "absolute": "{n} with an absolute name ({names}) skipped: an archive writes only inside "
                "the store",
    "parent": "{n} whose name climbs out with `..` ({names}) skipped",
    "symlink": "{n} stored as a symlink ({names}) skipped: a link could point anywhere",
    "unsafe": "{n} with a name no store can hold ({names}) skipped",
    "long": "{n} with a name part over 255 bytes ({names}) skipped",
    "not_md": "{n} that is no memory, not a .md file ({names}) skipped",
    "duplicate": "{n} appearing more than once in the archive ({names}) skipped, every copy",
    "case": "{n} differing from another only in case or Unicode form ({names}) skipped, "
            "all of them: on macOS or Windows one would overwrite the other",
    "outside": "{n} outside every project of the manifest ({names}) skipped",
    "damaged": "{n} damaged or encrypted ({names}) skipped",
    "bomb": "{n} unpacking to over 5 MB or over 100 times its packed size ({names}) skipped "
            "(a zip bomb's shape)",
    "total": "{n} past the 256 MB the archive may unpack to in all ({names}) skipped",
    "secret": "{n} holding a secret ({names}) refused: credentials do not travel into memory",
    "taken": "{n} whose place in the store a folder, a link or a file takes ({names}) skipped",
    "no_store": "{n} of a project the manifest names by no path ({names}) skipped: name a "
                "TARGET store to import a single project",
}


def skipped_sentences(skipped: dict[str, list[str]]) -> list[str]:
    """One sentence per kind of what was skipped, in a fixed order."""
    from tui.visible import visible

    sentences = []
    for kind, template in _SKIPPED.items():
        names = skipped.get(kind)
        if not names:
            continue
        shown = ", ".join(visible(shown_name(name)[:80]) for name in names[:3])
        if len(names) > 3:
            shown += f" and {len(names) - 3} more"
        what = "1 entry" if len(names) == 1 else f"{len(names)} entries"
        sentences.append(template.format(n=what, names=shown) + ".")
    return sentences


def shown_name(name: str) -> str:
    """A name fit to print: any secret in it replaced."""
    from tui.memory.secrets import find_secrets, redact

    for hit in sorted(find_secrets(name), key=lambda hit: -hit.start):
        name = redact(name, hit)
    return name


@dataclass
class ArchiveProject:
    """One project of the archive: what the manifest says of it, and its files that
    passed (store-relative name -> bytes, mtime in seconds or None)."""
    folder: str
    path: str | None
    name: str
    project_folder: str | None  # its folder under `projects/` where it was exported
    mtimes: dict[str, int] = field(default_factory=dict)  # in ns, as the manifest gives them
    files: dict[str, tuple[bytes, int | None]] = field(default_factory=dict)


@dataclass
class Archive:
    projects: list[ArchiveProject]
    skipped: dict[str, list[str]] = field(default_factory=dict)

    def skip(self, kind: str, name: str) -> None:
        self.skipped.setdefault(kind, []).append(name)


def _name_kind(name: str) -> str | None:
    """Why an entry's name is skipped before anything else is looked at; None: it may do."""
    if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
        return "absolute"
    parts = name.split("/")
    if ".." in parts or ".." in name.split("\\"):
        return "parent"
    if "\\" in name or any(part in ("", ".") or part.lower() == ".git" for part in parts):
        return "unsafe"
    if any(len(part.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES for part in parts):
        return "long"
    if PurePosixPath(name).suffix != ".md":
        return "not_md"
    return None


def _manifest(archive: zipfile.ZipFile, source: Path) -> list[ArchiveProject]:
    broken = f"{source} is not an archive `memtui export` made (its {MANIFEST} "
    try:
        info = archive.getinfo(MANIFEST)
    except KeyError:
        raise ImportRefused(broken + "is missing); nothing was imported.") from None
    if info.file_size > MAX_MANIFEST_BYTES:
        raise ImportRefused(broken + "is too large to be one); nothing was imported.")
    try:
        with archive.open(info) as handle:
            data = json.loads(handle.read(MAX_MANIFEST_BYTES + 1))
    except (ValueError, zipfile.BadZipFile, RuntimeError, NotImplementedError):
        raise ImportRefused(broken + "cannot be read); nothing was imported.") from None
    projects = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(projects, list):
        raise ImportRefused(broken + "says otherwise); nothing was imported.")
    result = []
    for entry in projects:
        folder = entry.get("folder") if isinstance(entry, dict) else None
        if not isinstance(folder, str) or _name_kind(folder + "/x.md") is not None \
                or "/" in folder:
            raise ImportRefused(broken + "names a project folder no archive holds); "
                                "nothing was imported.")
        if any(project.folder == folder for project in result):
            raise ImportRefused(broken + "names one project folder twice); nothing was "
                                "imported.")
        path, name, keyed = entry.get("path"), entry.get("name"), entry.get("project_folder")
        if not isinstance(keyed, str) or "/" in keyed or _name_kind(keyed + "/x.md"):
            keyed = None
        result.append(ArchiveProject(folder, path if isinstance(path, str) and path else None,
                                     name if isinstance(name, str) else folder, keyed,
                                     _mtimes(entry.get("files"))))
    return result


def _mtimes(files: object) -> dict[str, int]:
    if not isinstance(files, dict):
        return {}
    mtimes = {}
    for file, facts in files.items():
        value = facts.get("mtime_ns") if isinstance(facts, dict) else None
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**63:
            mtimes[file] = value
    return mtimes


def _folded(name: str) -> str:
    """What a case-insensitive, normalising disk (macOS, Windows) takes a name for."""
    import unicodedata

    return unicodedata.normalize("NFC", name).casefold()


def _is_symlink(info: zipfile.ZipInfo) -> bool:
    return stat.S_ISLNK(info.external_attr >> 16)


def read_archive(source: Path) -> Archive:
    """The projects of an archive with the files that may be imported; ImportRefused when
    it is no archive `memtui export` made."""
    from tui.memory.secrets import find_secrets, first_secret_in_bytes

    try:
        archive = zipfile.ZipFile(source)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError):
        raise ImportRefused(f"{source} is not a zip archive; nothing was imported.") from None
    except IsADirectoryError:
        raise ImportRefused(f"{source} is a folder, not a zip archive.") from None
    with archive:
        if len(archive.infolist()) > MAX_ENTRIES:
            raise ImportRefused(f"{source} holds over {MAX_ENTRIES:,} entries, more than "
                                "any export of memories; nothing was imported.")
        projects = _manifest(archive, source)
        by_folder = {project.folder: project for project in projects}
        result = Archive(projects)
        entries = [info for info in archive.infolist()
                   if info.filename != MANIFEST and not info.is_dir()]
        counts = Counter(info.filename for info in entries)
        cases = Counter(_folded(info.filename) for info in set(entries)
                        if counts[info.filename] == 1)
        total = 0
        for info in entries:
            name = info.filename
            kind = _name_kind(name)
            if kind is None and _is_symlink(info):
                kind = "symlink"
            if kind is None and counts[name] > 1:
                kind = "duplicate"
            if kind is None and cases[_folded(name)] > 1:
                kind = "case"
            folder, _, file = name.partition("/")
            if kind is None and folder not in by_folder:
                kind = "outside"
            if kind is None and info.flag_bits & 0x1:
                kind = "damaged"
            if kind is None and (info.file_size > MAX_FILE_BYTES or (
                    info.file_size > _RATIO_FROM
                    and info.file_size > MAX_RATIO * max(info.compress_size, 1))):
                kind = "bomb"
            if kind is None and total + info.file_size > MAX_TOTAL_BYTES:
                kind = "total"
            if kind is not None:
                if kind != "duplicate" or name not in result.skipped.get(kind, ()):
                    result.skip(kind, name)
                continue
            total += info.file_size
            try:
                with archive.open(info) as handle:
                    data = handle.read(MAX_FILE_BYTES + 1)
            except (zipfile.BadZipFile, RuntimeError, NotImplementedError, OSError, EOFError,
                    ValueError):
                result.skip("damaged", name)
                continue
            if next(find_secrets(name), None) or first_secret_in_bytes(data):
                result.skip("secret", name)
                continue
            project = by_folder[folder]
            project.files[file] = (data, project.mtimes.get(file))
    return result


@dataclass
class StoreImport:
    """What importing one project into one store changes."""
    store: Path
    project: ArchiveProject
    changes: list[FileChange] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    merged: list[str] = field(default_factory=list)
    conflicted: list[str] = field(default_factory=list)
    identical: list[str] = field(default_factory=list)
    skipped: dict[str, list[str]] = field(default_factory=dict)


def plan_import(store: Path, project: ArchiveProject, source_name: str) -> StoreImport:
    """The change set bringing `project`'s files into `store`, merged with what it holds."""
    from tui.memory.refusals import WriteRefused
    from tui.memory.writes import mtime_of
    from tui.sync.merge import Side, merge_index, merge_memory

    plan = StoreImport(store, project)
    for file, (data, mtime) in sorted(project.files.items()):
        try:
            ours = read_bytes(store, file) if _place_free(store, file) else False
        except WriteRefused:
            ours = False
        if ours is False:
            plan.skipped.setdefault("taken", []).append(f"{project.folder}/{file}")
            continue
        if ours is None:
            plan.changes.append(FileChange(file, None, data, mtime))
            plan.created.append(file)
            continue
        if ours == data:
            plan.identical.append(file)
            continue
        if PurePosixPath(file).name == INDEX_NAME:
            merged = merge_index(None, _text(ours), _text(data)).encode("utf-8",
                                                                        "surrogateescape")
            conflicted = False
        else:
            merged, conflicted = merge_memory(
                None, ours, data, Side("this machine", mtime_of(store / file)),
                Side(f"the archive {source_name}", None if mtime is None else mtime / 1e9))
        if merged == ours:
            plan.identical.append(file)
            continue
        plan.changes.append(FileChange(file, ours, merged))
        (plan.conflicted if conflicted else plan.merged).append(file)
    return plan


def _place_free(store: Path, file: str) -> bool:
    """Whether the file's place in the store is a file or nothing, under folders only."""
    path = store
    for part in PurePosixPath(file).parts[:-1]:
        path = path / part
        if os.path.lexists(path) and (os.path.islink(path) or not os.path.isdir(path)):
            return False
    target = path / PurePosixPath(file).name
    return not os.path.lexists(target) or (os.path.isfile(target)
                                          and not os.path.islink(target))


def _text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")
