"""Where Claude Code keeps things, and how it names project folders.

Folder names are a lossy encoding of a path: we only ever encode, never decode.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from tui.claude.files import STEP

MAX_FOLDER_NAME = 200
MEMORY_DIR_NAME = "memory"
INDEX_NAME = "MEMORY.md"
LOCK_NAME = ".consolidate-lock"

_PROJECT_DIR_NAME_OVERRIDE = re.compile(r"[A-Za-z0-9_-]{1,64}")


def config_home(env: Mapping[str, str] | None = None) -> Path:
    """`$CLAUDE_CONFIG_DIR`, else `~/.claude`."""
    env = os.environ if env is None else env
    configured = env.get("CLAUDE_CONFIG_DIR")
    if configured:
        return Path(configured).expanduser()
    return Path.home() / ".claude"


def projects_dir(home: Path) -> Path:
    return home / "projects"


_NOT_ASCII_ALNUM = re.compile(r"[^A-Za-z0-9]")


def _dashes(match: re.Match[str]) -> str:
    """One `-` per UTF-16 code unit: two for a character past the BMP."""
    return "--" if ord(match.group()) > 0xFFFF else "-"


def path_hash(text: str) -> str:
    """A base-36 suffix for over-long names.

    Claude Code's own hash depends on its runtime and cannot be reproduced, so folders
    longer than the cap are matched by prefix (see `folder_matches`); this hash only
    makes the names we create ourselves (demo, benchmarks) distinct and realistic.
    """
    value = 0
    for unit in text.encode("utf-16-le", "surrogatepass"):  # a JS string may hold lone ones
        value = (value * 31 + unit) & 0xFFFFFFFF
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        value, rest = divmod(value, 36)
        out = digits[rest] + out
        if not value:
            return out


# Every byte but [A-Za-z0-9] to `-`: an ASCII path in one C call (a regex substitution per
# separator costs 7x as much, and discovery encodes ~7,000 paths on a cold run).
_ASCII_DASHES = bytes(c if chr(c).isascii() and chr(c).isalnum() else ord("-")
                      for c in range(256))


def encode_path(path: str) -> str:
    """The sanitized form before the length cap."""
    if path.isascii():
        return path.encode("ascii").translate(_ASCII_DASHES).decode("ascii")
    return _NOT_ASCII_ALNUM.sub(_dashes, path)


def sanitize(path: str) -> str:
    """Claude Code's folder name for a path.

    Every UTF-16 code unit that is not [A-Za-z0-9] becomes '-' (so an emoji, two code
    units, becomes '--'); runs are kept. Past 200 characters: the first 200, '-', a hash.
    """
    name = encode_path(path)
    if len(name) <= MAX_FOLDER_NAME:
        return name
    return f"{name[:MAX_FOLDER_NAME]}-{path_hash(path)}"


def normalize_path(path: str | os.PathLike[str]) -> str:
    """The realpath, NFC-normalised: the form Claude Code sanitizes. A path no file can
    have (a NUL, a lone surrogate, from a transcript) names nothing to resolve: it is only
    made absolute and normalised."""
    path = os.fspath(path)
    try:
        real = os.path.realpath(path)
    except ValueError:
        real = os.path.abspath(path)
    return unicodedata.normalize("NFC", real)


class RealPaths:
    """`normalize_path` for many paths in one pass: each folder's realpath is worked out
    once (a tree's cwds share most of their folders; `os.path.realpath` looks at every
    part of every path again). Only for a pass: links may change between passes.

    `is_link` answers `os.path.islink` (a caller that lstats the same paths anyway passes
    its own, so that each is looked at once)."""

    def __init__(self, is_link: Callable[[str], bool] = os.path.islink) -> None:
        self._real: dict[str, str] = {"/": "/"}
        self._normalized: dict[str, str] = {}
        self._is_link = is_link

    def __call__(self, path: str | os.PathLike[str]) -> str:
        path = os.fspath(path)
        found = self._normalized.get(path)
        if found is None:
            real = self._realpath(path) if _clean(path) else None
            found = self._normalized[path] = (
                normalize_path(path) if real is None else unicodedata.normalize("NFC", real))
        return found

    def real(self, path: str) -> str:
        """`os.path.realpath(path)` itself (not normalised)."""
        return self._realpath(path) if _clean(path) else os.path.realpath(path)

    def _realpath(self, path: str) -> str:
        """`os.path.realpath` of a clean absolute path, from its parent's."""
        real = self._real.get(path)
        if real is None:
            parent, name = path.rsplit("/", 1)
            joined = os.path.join(self._realpath(parent or "/"), name)
            try:
                real = os.path.realpath(joined) if self._is_link(joined) else joined
            except ValueError:  # a lone surrogate
                real = os.path.abspath(joined)
            self._real[path] = real
        return real


def _clean(path: str) -> bool:
    """Absolute, with no `.`, `..` or empty part and no NUL: a path `RealPaths` builds
    from its parent's (anything else goes to realpath itself)."""
    return (path.startswith("/") and not ({"", ".", ".."} & set(path.split("/")[1:]))
            and "\0" not in path)


def folder_matches(folder: str, sanitized: str) -> bool:
    """Does an on-disk folder name belong to this sanitized name?

    Names over the cap carry a hash we cannot compute, so they match by prefix.
    """
    if len(sanitized) <= MAX_FOLDER_NAME:
        return folder == sanitized
    prefix = sanitized[: MAX_FOLDER_NAME + 1]
    return folder.startswith(prefix)


def find_folder(names: Iterable[str], sanitized: str) -> str | None:
    """The existing folder for a sanitized name; an exact match wins over a prefix match."""
    names = list(names)
    if sanitized in names:
        return sanitized
    for name in names:
        if folder_matches(name, sanitized):
            return name
    return None


def project_dir_name_override(env: Mapping[str, str]) -> str | None:
    """`CLAUDE_CODE_PROJECT_DIR_NAME`, honoured only beside `CLAUDE_CONFIG_DIR`."""
    name = env.get("CLAUDE_CODE_PROJECT_DIR_NAME")
    if name and env.get("CLAUDE_CONFIG_DIR") and _PROJECT_DIR_NAME_OVERRIDE.fullmatch(name):
        return name
    return None


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def as_written(text: str) -> str:
    """A string from Claude Code's JSON (a transcript, a settings file) as its runtime puts
    it on disk, in a file or a file name: a lone surrogate, legal in a JSON string and not
    in UTF-8, becomes U+FFFD."""
    return _LONE_SURROGATE.sub("\ufffd", text) if _LONE_SURROGATE.search(text) else text


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")  # two UTF-16 units each


def utf16_len(text: str) -> int:
    """Length as JavaScript counts it."""
    if text.isascii():
        return len(text)
    if len(text) <= STEP:
        return len(text.encode("utf-16-le", "surrogatepass")) // 2
    return len(text) + sum(len(_ASTRAL.findall(text, start, start + STEP))
                           for start in range(0, len(text), STEP))


def has_astral(text: str) -> bool:
    """Whether a character of `text` takes two UTF-16 units (a megabyte at a time)."""
    return any(_ASTRAL.search(text, start, start + STEP) for start in range(0, len(text), STEP))
