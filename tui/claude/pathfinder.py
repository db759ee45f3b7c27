"""Find the real path behind a folder name when no transcript is left to tell it.

Walks the real filesystem from the root, listing one level at a time and keeping only the
entries whose encoded name continues the folder name. The cost is bounded by directories
that exist, never by guesses over which dashes were slashes.
"""

from __future__ import annotations

import os
import unicodedata

from tui.claude.paths import MAX_FOLDER_NAME, encode_path


def _matches(encoded: str, target: str) -> bool:
    if len(target) <= MAX_FOLDER_NAME:
        return encoded == target
    return len(encoded) > MAX_FOLDER_NAME and target.startswith(encoded[: MAX_FOLDER_NAME + 1])


def _continues(encoded: str, target: str) -> bool:
    """Could a child of a path encoded as `encoded` still reach `target`?"""
    head = target[:MAX_FOLDER_NAME] if len(target) > MAX_FOLDER_NAME else target
    if len(encoded) >= len(head):
        return len(target) > MAX_FOLDER_NAME and encoded == head
    return head.startswith(encoded) and head[len(encoded)] == "-"


class DirectoryLister:
    """Lists directories once per discovery, shared by every walk."""

    def __init__(self) -> None:
        self._cache: dict[str, list[str]] = {}

    def subdirectories(self, path: str) -> list[str]:
        cached = self._cache.get(path)
        if cached is None:
            cached = []
            try:
                with os.scandir(path) as entries:
                    for entry in entries:
                        try:
                            if entry.is_dir(follow_symlinks=False):
                                cached.append(entry.name)
                        except OSError:
                            continue
            except OSError:
                pass
            self._cache[path] = cached
        return cached


def paths_for_folder(
    folder: str, root: str = "/", lister: DirectoryLister | None = None, limit: int = 8,
    listed: list[str] | None = None,
) -> list[str]:
    """Existing directories whose sanitized path is `folder` (at most `limit`); `listed`
    gets every directory listed on the way."""
    lister = lister or DirectoryLister()
    found: list[str] = []
    stack = [root]
    while stack and len(found) < limit:
        parent = stack.pop()
        if listed is not None:
            listed.append(parent)
        for name in lister.subdirectories(parent):
            child = os.path.join(parent, name)
            encoded = encode_path(unicodedata.normalize("NFC", child))
            if _matches(encoded, folder):
                found.append(child)
            elif _continues(encoded, folder):
                stack.append(child)
    return sorted(found)
