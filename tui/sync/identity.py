"""A store's name on the sync remote: the same on every machine, whatever the local path.

The repository's normalised `origin` URL (`git@github.com:ana/app.git`,
`https://github.com/ana/app` and `ssh://git@github.com:22/ana/app` are all
`github.com/ana/app`), else a name the user gave the store once (`memtui sync --name`).
A credential in the URL (`https://user:token@host/...`) never becomes part of it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from tui.claude.gitroot import find_git_root, gitdir_pointer, read_small_text

_SCP_FORM = re.compile(r"^(?:[^@/\s]+@)?([^:/\s]+):(?!//)(.+)$")
_URL_FORM = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://(?:[^@/]*@)?([^/:]+)(?::\d*)?(/.*)?$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
_SECTION = re.compile(r'^\s*\[\s*remote\s+"origin"\s*\]\s*$')


@dataclass(frozen=True)
class Identity:
    key: str | None  # the folder on the remote, e.g. "github.com/ana/app"
    reason: str = ""  # why there is none

    @property
    def remote_folder(self) -> str:
        assert self.key is not None
        return f"{self.key}/memory"


def valid_name(name: str) -> bool:
    """A name the user gives: one path segment of letters, digits, `.`, `_`, `-`."""
    return bool(_NAME.match(name)) and name not in {".", ".."}


def normalise_origin(url: str) -> str | None:
    """`host/owner/repo` for a remote URL (scp-like, ssh, https, git, file or a path);
    None when it names nothing usable."""
    url = url.strip()
    if not url or any(ord(char) < 32 for char in url):
        return None
    host = ""
    url_form = _URL_FORM.match(url)
    if url_form and not url.lower().startswith("file://"):
        host, path = url_form.group(1).lower(), url_form.group(2) or ""
    elif url.lower().startswith("file://"):
        path = url[len("file://"):]
    elif os.path.isabs(url) or url.startswith((".", "~")):
        path = url
    elif scp := _SCP_FORM.match(url):
        host, path = scp.group(1).lower(), scp.group(2)
    else:
        return None
    parts = [part for part in path.replace("\\", "/").split("/") if part]
    if parts and parts[-1].endswith(".git"):
        parts[-1] = parts[-1][:-4]
    parts = [part for part in parts if part]
    if not parts or any(part in {".", "..", "~"} or part.startswith("~") for part in parts):
        return None
    return "/".join([host or "file", *parts])


def origin_url(project_root: str | os.PathLike[str]) -> str | None:
    """The `remote "origin"` URL in the repository's git config, read without running git."""
    git_root = find_git_root(project_root)
    if git_root is None:
        return None
    dot_git = Path(git_root) / ".git"
    git_dir = dot_git if dot_git.is_dir() else gitdir_pointer(dot_git)
    if git_dir is None:
        return None
    common = read_small_text(git_dir / "commondir")  # a worktree: the config is the main one's
    if common is not None:
        git_dir = git_dir / common.strip()
    text = read_small_text(git_dir / "config")
    if text is None:
        return None
    inside = False
    for line in text.splitlines():
        if line.lstrip().startswith("["):
            inside = bool(_SECTION.match(line))
            continue
        key, sep, value = line.partition("=")
        if inside and sep and key.strip().lower() == "url":
            return value.strip().strip('"')
    return None


def identity_of(project_root: str | None, given_name: str | None,
                stranded: str | None = None) -> Identity:
    """The store's identity: the name the user gave, else the origin, else why there is none.
    A stranded store (`stranded`: why no session loads it) has none unless named: it would
    push memories no session reads under its project's name, or take that name from the
    store the project's sessions do use."""
    if given_name:
        return Identity(given_name)
    if stranded:
        return Identity(None, f"stranded: {stranded} (`memtui audit` says what can be done)")
    if not project_root:
        return Identity(None, "its project path is unknown on this machine; "
                              "give it a name with `memtui sync --name NAME TARGET`")
    url = origin_url(project_root)
    if url is None:
        return Identity(None, f"{project_root} has no git origin; "
                              "give it a name with `memtui sync --name NAME TARGET`")
    key = normalise_origin(url)
    if key is None:
        return Identity(None, "its origin URL cannot be read as a repository address; "
                              "give it a name with `memtui sync --name NAME TARGET`")
    return Identity(key)
