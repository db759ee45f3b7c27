"""A staging copy of a store and the only tools a model may use on it.

The model never touches the live store: it reads and writes a temporary copy (mtimes
kept) through these tools. Paths are store-relative; absolute paths, `..`, links,
non-`.md` targets and the consolidate lock are refused, and every refusal is told to the
model and written to the run log. There is no shell.

The copy holds regular files only, so nothing written in it can land anywhere else. A
symlink in the store is never copied as a link: one that points at a file inside the store
is copied as a read-only regular file (the run can read it), one that leaves the store or
dangles is left out. Whatever a run does to a linked name is dropped from its change set,
with a note saying so, since memtui never writes through links.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import stat
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from tui.agents.guards import Declared
from tui.claude import transcripts
from tui.claude.files import decode_utf8, not_text
from tui.claude.lines import read_store_text
from tui.claude.paths import INDEX_NAME, LOCK_NAME
from tui.memory.intents import remove_abandoned_run_copies, run_copy_dir
from tui.walk import walk

READ_LIMIT = 40_000  # characters returned by one read
GREP_MATCHES = 20
GREP_SNIPPET = 240
GREP_FILES = 200
GREP_SECONDS = 10.0  # one search's budget, however big the transcripts

# What one run may do at most; past a cap the tool is refused and the run says so.
MAX_FILES_CREATED = 200
MAX_BYTES_WRITTEN = 5 * 1024 * 1024
MAX_TOOL_CALLS = 400
SETTLED_NS = 2_000_000_000  # a file system's mtime may be as coarse as 2 s (FAT)


class PathRefused(Exception):
    """A path the model may not use; the message goes back to the model."""


class LimitReached(Exception):
    """The run hit one of its caps; the message is one sentence for the model and the user."""


# Errors of writing the copy (not of reading the store): the run stops with one sentence.
_COPY_FAILED = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS})


@dataclass
class Staging:
    """A temporary copy of `store`; `deleted` records files the model removed, `links`
    the store's symlinks (store-relative name -> where the link points)."""

    store: Path
    root: Path
    originals: dict[str, bytes] = field(default_factory=dict)  # every .md as staged
    deleted: set[str] = field(default_factory=set)
    links: dict[str, str] = field(default_factory=dict)
    not_text: dict[str, str] = field(default_factory=dict)  # index: why it is no text
    declared: Declared = field(default_factory=Declared)  # what the run says of its change
    mtimes: dict[str, float] = field(default_factory=dict)  # every .md's mtime as staged
    _known: dict[str, tuple[tuple[int, int], bytes]] = field(default_factory=dict)
    _texts: dict[str, tuple[tuple[int, int], str]] = field(default_factory=dict)

    @classmethod
    def create(cls, store: Path) -> Staging:
        remove_abandoned_run_copies()
        root = run_copy_dir(_bytes_under(store)) / "memory"
        root.mkdir()
        staging = cls(store, root)
        copied: dict[str, bytes] = {}
        if store.is_dir():
            try:
                copied = staging._copy_regular_files()
            except BaseException:
                staging.discard()
                raise
        for name in staging.markdown():
            data = copied[name] if name in copied else (root / name).read_bytes()
            status = os.stat(os.path.join(root, name))
            staging.originals[name] = data
            staging.mtimes[name] = status.st_mtime
            staging._known[name] = ((status.st_size, status.st_mtime_ns), data)
        for name, data in staging.originals.items():
            reason = not_text(data)
            if reason and name.rpartition("/")[2] == INDEX_NAME:
                staging.not_text[name] = reason
        return staging

    def _copy_regular_files(self) -> dict[str, bytes]:
        """Copies the store's regular files; the bytes of the .md files copied."""
        copied: dict[str, bytes] = {}
        real_store = os.path.realpath(self.store)
        for folder, dirs, files in walk(self.store):
            relative_folder = Path(folder).relative_to(self.store)
            for name in list(dirs):
                if os.path.islink(os.path.join(folder, name)):
                    dirs.remove(name)
                    self.links[(relative_folder / name).as_posix()] = os.readlink(
                        os.path.join(folder, name))
            (self.root / relative_folder).mkdir(parents=True, exist_ok=True)
            for name in files:
                source = os.path.join(folder, name)
                relative = (relative_folder / name).as_posix()
                if relative == LOCK_NAME:
                    continue
                if os.path.islink(source):
                    self.links[relative] = os.readlink(source)
                    target = os.path.realpath(source)
                    if not target.startswith(real_store + os.sep) or not os.path.isfile(target):
                        continue  # leaves the store or dangles: not ours to read
                elif not os.path.isfile(source):
                    continue  # a FIFO, socket or device is never opened
                try:
                    if name.endswith(".md"):
                        copied[relative] = _copy_read(source, self.root / relative)
                    else:
                        shutil.copy2(source, self.root / relative, follow_symlinks=True)
                except OSError as error:
                    if error.errno in _COPY_FAILED:  # a full temp disk: no copy to run on
                        raise OSError(error.errno, error.strerror,
                                      str(self.root / relative)) from error
                    continue  # unreadable in the store: the run does without it
        return copied

    def markdown(self) -> list[str]:
        """Every .md file in the copy, store-relative."""
        root = os.fspath(self.root)
        found = []
        for folder, _dirs, files in walk(root):
            # (string work: the steps ask for the list again and again, of 50,000 files)
            under = "" if folder == root else folder[len(root) + 1:].replace(os.sep, "/") + "/"
            found.extend(under + file for file in files if file.endswith(".md"))
        return sorted(found)

    @contextmanager
    def step(self, *, in_place: bool = False) -> Iterator[None]:
        """Declare what one step of the offline engine changes. Its steps change structure,
        never meaning (a merge's links and frontmatter, a date or a path written anew, a
        hook copied in), so a memory a step touches keeps its mtime: Claude Code orders
        recall by it and says how old a memory is from it. An `in_place` step rewrites
        lines where they stand (a date, a path): each is a rewrite made on purpose."""
        before = {name: self._text(name) for name in self.markdown()}
        yield
        for name in self.markdown():
            signature, data = before.get(name, (None, b""))
            if signature == self._signature(name):
                continue
            if signature is not None and in_place:
                self.declared.rewrote_lines(data.decode("utf-8", "replace"),
                                            self._text(name)[1].decode("utf-8", "replace"))
            if name in self.originals and name.rpartition("/")[2] != INDEX_NAME:
                # (an index is no memory: recall neither reads nor orders it)
                self.declared.mtimes.setdefault(name, self.mtimes[name])

    def _text(self, name: str) -> tuple[tuple[int, int], bytes]:
        """A file's signature and bytes, read again only when it changed."""
        signature = self._signature(name)
        known = self._known.get(name)
        if known is None or known[0] != signature:
            known = self._known[name] = (signature, (self.root / name).read_bytes())
        return known

    def text(self, name: str) -> str:
        """A staged file's text as `read_store_text` reads it, kept for the run: read again
        only when its size or mtime changed (each step reads every file; decoding 50,000
        files four times was a tenth of a dream)."""
        signature = self._signature(name)
        cached = self._texts.get(name)
        if cached is not None and cached[0] == signature:
            return cached[1]
        known = self._known.get(name)
        if known is not None and known[0] == signature and _settled(signature):
            text = decode_utf8(known[1], "replace")
        else:
            text = read_store_text(self.root / name)
        if _settled(signature):
            self._texts[name] = (signature, text)
        return text

    def _signature(self, name: str) -> tuple[int, int]:
        status = os.stat(os.path.join(self.root, name))
        return status.st_size, status.st_mtime_ns

    def linked(self, relative: str) -> str | None:
        """The link in the store that `relative` is, or lies under; None when none."""
        parts = relative.split("/")
        for end in range(len(parts), 0, -1):
            name = "/".join(parts[:end])
            if name in self.links:
                return name
        return None

    def staged(self) -> tuple[dict[str, bytes], list[str]]:
        """The copy's .md files after the run, without linked names; and a note for each
        linked name the run changed (those changes are dropped)."""
        files: dict[str, bytes] = {}
        notes: list[str] = []
        for name in self.markdown():
            data = (self.root / name).read_bytes()
            if name in self.not_text:
                files[name] = self.originals[name]
                if data != self.originals[name]:
                    notes.append(f"{name} is not text ({self.not_text[name]}); the run left it "
                                 "as it is: put back a good copy first.")
                continue
            link = self.linked(name)
            if link is None:
                files[name] = data
                continue
            if name in self.originals:
                files[name] = self.originals[name]
            if data != self.originals.get(name):
                notes.append(f"{name} is a symlink (to {self.links[link]}) in the store; memtui "
                             "does not write through links, so the run's change to it was left out.")
        for name in sorted(self.deleted):
            link = self.linked(name)
            if link is not None and name in self.originals:
                files[name] = self.originals[name]
                notes.append(f"{name} is a symlink (to {self.links[link]}); it was not removed.")
        return files, notes

    def discard(self) -> None:
        shutil.rmtree(self.root.parent, ignore_errors=True)

    def resolve(self, relative: str, *, writing: bool) -> Path:
        """The staging path for a store-relative name, or PathRefused saying why not."""
        if not isinstance(relative, str) or not relative.strip():
            raise PathRefused("a store-relative file name is required")
        name = relative.strip().replace("\\", "/")
        if "\0" in name:
            raise PathRefused(f"{relative!r} contains a NUL byte")
        if name.startswith(("/", "~")) or re.match(r"^[A-Za-z]:", name):
            raise PathRefused(f"{relative} is an absolute path; use a path relative to the store")
        parts = [p for p in name.split("/") if p not in ("", ".")]
        if ".." in parts:
            raise PathRefused(f"{relative} leaves the store (`..` is not allowed)")
        if not parts:
            raise PathRefused(f"{relative} names the store itself, not a file")
        if parts[-1] == LOCK_NAME:
            raise PathRefused(f"{LOCK_NAME} belongs to the consolidation lock and is not a memory")
        path = self.root.joinpath(*parts)
        link = self.linked("/".join(parts))
        if link is not None and (writing or not path.is_file()):
            raise PathRefused(f"{relative} is a symlink (to {self.links[link]}) in the store; "
                              "memtui does not write through links or follow them out of the store")
        if writing and "/".join(parts) in self.not_text:
            raise PathRefused(f"{relative} is not text ({self.not_text['/'.join(parts)]}); "
                              "memtui leaves it as it is until a good copy is put back")
        if writing and not parts[-1].endswith(".md"):
            raise PathRefused(f"{relative} is not a .md file; only memory files can be written")
        return path

    def relative(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()


def _settled(signature: tuple[int, int]) -> bool:
    """Whether a file's (size, mtime) names its bytes: not when it was written within the
    clock's coarsest tick, when a second write of the same size could keep that mtime."""
    return time.time_ns() - signature[1] > SETTLED_NS


def _copy_read(source: str, target: Path) -> bytes:
    """`shutil.copy2` of a memory file, but for extended attributes, returning its bytes:
    the run reads every one of them next."""
    with open(source, "rb") as handle:
        data = handle.read()
        status = os.fstat(handle.fileno())
    with open(target, "wb") as copy:
        copy.write(data)
    os.utime(target, ns=(status.st_atime_ns, status.st_mtime_ns))
    os.chmod(target, stat.S_IMODE(status.st_mode))
    return data


def _bytes_under(store: Path) -> int:
    """What a copy of the store's files takes, about (links counted as themselves)."""
    total = 0
    for folder, _dirs, files in walk(store):
        for name in files:
            try:
                total += os.lstat(os.path.join(folder, name)).st_size
            except OSError:
                continue
    return total


@dataclass(frozen=True)
class ToolResult:
    text: str
    is_error: bool = False


ToolHandler = Callable[[dict], ToolResult]


def _schema(properties: dict, required: Sequence[str]) -> dict:
    return {"type": "object", "properties": properties, "required": list(required)}


_PATH = {"type": "string", "description": "path relative to the memory directory"}


class Toolbox:
    """The sandboxed tools; `log(kind, text)` receives tool calls and refusals."""

    def __init__(self, staging: Staging, transcript_dirs: Sequence[Path],
                 log: Callable[[str, str], None], cancel: threading.Event | None = None):
        self.staging = staging
        self.transcript_dirs = tuple(transcript_dirs)
        self.log = log
        self.cancel = cancel or threading.Event()
        self.refusals: list[str] = []
        self.limits_hit: list[str] = []  # one sentence per cap the run ran into
        self.written: set[str] = set()
        self.created: set[str] = set()
        self.bytes_written = 0
        self.calls = 0
        self.topics_done: set[str] = set()
        self._handlers: dict[str, ToolHandler] = {
            "list_files": self.list_files,
            "read_file": self.read_file,
            "grep_transcripts": self.grep_transcripts,
            "write_file": self.write_file,
            "edit_file": self.edit_file,
            "delete_file": self.delete_file,
        }

    @staticmethod
    def definitions() -> list[dict]:
        topic = {"type": "string", "description": "the topic this write covers (optional)"}
        return [
            {"name": "list_files", "description":
                "List the memory directory: memory files, MEMORY.md and daily logs, with sizes "
                "and modification dates.", "input_schema": _schema({}, [])},
            {"name": "read_file", "description": "Read one file of the memory directory.",
             "input_schema": _schema({"path": _PATH}, ["path"])},
            {"name": "grep_transcripts", "description":
                "Search the project's session transcripts for a narrow regular expression. "
                f"Returns at most {GREP_MATCHES} short snippets; never reads a transcript whole.",
             "input_schema": _schema({"pattern": {"type": "string"}}, ["pattern"])},
            {"name": "write_file", "description":
                "Create or replace a .md file in the memory directory (MEMORY.md included).",
             "input_schema": _schema({"path": _PATH, "content": {"type": "string"},
                                      "topic": topic}, ["path", "content"])},
            {"name": "edit_file", "description":
                "Replace one exact occurrence of old_text with new_text in a .md file.",
             "input_schema": _schema({"path": _PATH, "old_text": {"type": "string"},
                                      "new_text": {"type": "string"}, "topic": topic},
                                     ["path", "old_text", "new_text"])},
            {"name": "delete_file", "description":
                "Remove a memory file (it is archived, never destroyed).",
             "input_schema": _schema({"path": _PATH}, ["path"])},
        ]

    def call(self, name: str, arguments: dict) -> ToolResult:
        handler = self._handlers.get(name)
        if handler is None:
            return self._refuse(f"{name}: there is no such tool")
        if not isinstance(arguments, dict):
            arguments = {}
        self.calls += 1
        if self.calls > MAX_TOOL_CALLS:
            raise LimitReached(self._limit(f"The run reached its cap of {MAX_TOOL_CALLS} tool "
                                           "calls and was stopped there"))
        self.log("tool", f"{name} {_brief(arguments)}")
        try:
            return handler(arguments)
        except PathRefused as refusal:
            return self._refuse(f"{name}: {refusal}")
        except LimitReached as limit:
            return ToolResult(f"Refused: {limit}.", is_error=True)
        except OSError as error:
            return ToolResult(f"{name} failed: {error.strerror or error}", is_error=True)
        except UnicodeError:
            return ToolResult(f"{name} failed: the text is not valid Unicode (a lone surrogate?)",
                              is_error=True)

    def _limit(self, sentence: str) -> str:
        if sentence not in self.limits_hit:
            self.limits_hit.append(sentence)
            self.log("refused", sentence)
        return sentence

    def _budget_write(self, path: Path, content: str) -> bytes:
        """The bytes to write, or LimitReached when they would pass a cap of the run."""
        data = content.encode("utf-8")
        if not path.exists() and self.staging.relative(path) not in self.created:
            if len(self.created) >= MAX_FILES_CREATED:
                raise LimitReached(self._limit(
                    f"The run reached its cap of {MAX_FILES_CREATED} new files; "
                    "no more are created"))
        if self.bytes_written + len(data) > MAX_BYTES_WRITTEN:
            raise LimitReached(self._limit(
                f"The run reached its cap of {_size(MAX_BYTES_WRITTEN)} written; "
                "no more is written"))
        return data

    def _refuse(self, text: str) -> ToolResult:
        self.refusals.append(text)
        self.log("refused", text)
        return ToolResult(f"Refused: {text}.", is_error=True)

    def list_files(self, _: dict) -> ToolResult:
        rows = []
        for folder, _dirs, files in sorted(walk(self.staging.root)):
            for file in sorted(files):
                path = Path(folder) / file
                if file == LOCK_NAME:
                    continue
                stat = path.lstat()
                rows.append(f"{self.staging.relative(path)}\t{stat.st_size} bytes\t"
                            f"{_date(stat.st_mtime)}")
        return ToolResult("\n".join(rows) or "(the memory directory is empty)")

    def read_file(self, arguments: dict) -> ToolResult:
        path = self.staging.resolve(arguments.get("path", ""), writing=False)
        if not path.is_file():
            return ToolResult(f"{arguments.get('path')} does not exist", is_error=True)
        text = read_store_text(path)
        if len(text) > READ_LIMIT:
            text = text[:READ_LIMIT] + f"\n[… {len(text) - READ_LIMIT} more characters not shown]"
        return ToolResult(text)

    def write_file(self, arguments: dict) -> ToolResult:
        relative = arguments.get("path", "")
        path = self.staging.resolve(relative, writing=True)
        content = arguments.get("content")
        if not isinstance(content, str):
            return ToolResult("write_file needs a string `content`", is_error=True)
        existed = path.exists()
        data = self._budget_write(path, content)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        self.bytes_written += len(data)
        if not existed and self.staging.relative(path) not in self.staging.originals:
            self.created.add(self.staging.relative(path))
        self._wrote(path, arguments)
        return ToolResult(f"{'Replaced' if existed else 'Created'} {self.staging.relative(path)}")

    def edit_file(self, arguments: dict) -> ToolResult:
        path = self.staging.resolve(arguments.get("path", ""), writing=True)
        old, new = arguments.get("old_text"), arguments.get("new_text")
        if not path.is_file():
            return ToolResult(f"{arguments.get('path')} does not exist", is_error=True)
        if not isinstance(old, str) or not isinstance(new, str) or not old:
            return ToolResult("edit_file needs non-empty old_text and a new_text", is_error=True)
        text = read_store_text(path)
        count = text.count(old)
        if count != 1:
            return ToolResult(f"old_text occurs {count} times; it must occur exactly once",
                              is_error=True)
        data = self._budget_write(path, text.replace(old, new, 1))
        path.write_bytes(data)
        self.bytes_written += len(data)
        self._wrote(path, arguments)
        return ToolResult(f"Edited {self.staging.relative(path)}")

    def delete_file(self, arguments: dict) -> ToolResult:
        path = self.staging.resolve(arguments.get("path", ""), writing=True)
        relative = self.staging.relative(path)
        if relative == INDEX_NAME:
            raise PathRefused("MEMORY.md cannot be deleted; rewrite it instead")
        if not path.is_file():
            return ToolResult(f"{relative} does not exist", is_error=True)
        path.unlink()
        self.staging.deleted.add(relative)
        return ToolResult(f"Removed {relative} (it will be archived, not destroyed)")

    def _wrote(self, path: Path, arguments: dict) -> None:
        relative = self.staging.relative(path)
        self.written.add(relative)
        self.staging.deleted.discard(relative)
        if isinstance(arguments.get("topic"), str):
            self.topics_done.add(arguments["topic"].strip())

    def grep_transcripts(self, arguments: dict) -> ToolResult:
        """A search in linear time (RE2: no backtracking, so no pattern can hang it), within
        a time budget, stopping when the run is cancelled."""
        pattern = arguments.get("pattern")
        if not isinstance(pattern, str) or len(pattern.strip()) < 3:
            return ToolResult("grep_transcripts needs a pattern of at least 3 characters",
                              is_error=True)
        regex = _linear_regex(pattern)
        snippets: list[str] = []
        files = sorted(
            (f for folder in self.transcript_dirs for f in transcripts.session_files(folder)),
            key=_mtime, reverse=True,
        )[:GREP_FILES]
        deadline = time.monotonic() + GREP_SECONDS
        for file in files:
            for number, line in enumerate(transcripts.iter_lines(file)):
                if number % 256 == 0 and (self.cancel.is_set() or time.monotonic() > deadline):
                    note = "cancelled" if self.cancel.is_set() else f"{GREP_SECONDS:.0f} s budget used up"
                    return ToolResult("\n".join(snippets + [f"[search stopped: {note}]"]))
                text = line.decode("utf-8", errors="replace")
                match = regex.search(text)
                if not match:
                    continue
                start = max(0, match.start() - GREP_SNIPPET // 2)
                snippet = text[start:start + GREP_SNIPPET].replace("\n", " ")
                snippets.append(f"{file.stem[:8]}: …{snippet}…")
                if len(snippets) >= GREP_MATCHES:
                    return ToolResult("\n".join(snippets) + "\n[more matches not shown]")
        return ToolResult("\n".join(snippets) or "no matches")


def _linear_regex(pattern: str):
    """The model's pattern under RE2, case-insensitive; a pattern RE2 cannot read (a
    backreference, a lookaround) is searched for as plain text."""
    import re2

    options = re2.Options()
    options.case_sensitive = False
    options.log_errors = False
    options.max_mem = 8 << 20
    try:
        return re2.compile(pattern, options)
    except re2.error:
        return re2.compile(re2.escape(pattern), options)


def _size(count: int) -> str:
    return f"{count / (1024 * 1024):g} MB" if count >= 1024 * 1024 else f"{count:,} bytes"


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _date(mtime: float) -> str:
    import datetime as dt

    return dt.datetime.fromtimestamp(mtime).strftime("%Y-%m-%d %H:%M")


def _brief(arguments: dict) -> str:
    shown = {k: (v if not isinstance(v, str) or len(v) < 60 else v[:57] + "…")
             for k, v in arguments.items() if k != "content"}
    if "content" in arguments:
        shown["content"] = f"{len(str(arguments['content']))} chars"
    return ", ".join(f"{k}={v!r}" for k, v in shown.items())
