"""What `memtui sync` remembers in memtui's config: the remote, and the names users gave.

`<config dir>/sync.json`: {"remote": URL, "names": {store path: name}, "machine": NAME}.
The machine name labels this machine's side of a sync conflict (default: the hostname).
Written whole, atomically; a damaged file reads as a UsageError-worthy sentence, never a
traceback.
"""

from __future__ import annotations

import json
import os
import re
import socket
from dataclasses import dataclass, field
from pathlib import Path

from tui import xdg

SETTINGS_LIMIT = 1 << 20


class SettingsError(Exception):
    """The sync settings cannot be read or written; one sentence for the user."""


@dataclass
class SyncSettings:
    remote: str | None = None
    names: dict[str, str] = field(default_factory=dict)
    machine: str | None = None  # given with `memtui sync --machine NAME`

    def name_of(self, store: Path) -> str | None:
        return self.names.get(store_id(store))

    def give_name(self, store: Path, name: str) -> None:
        self.names[store_id(store)] = name


def default_machine() -> str:
    """The hostname, in the letters a name may hold."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", socket.gethostname()).strip("-.")
    return name[:100] or "this-machine"


def machine_name() -> str:
    """The name this machine's text carries in a sync conflict: the one given, else the
    hostname (also when the settings cannot be read: the sync itself says why)."""
    try:
        return load_settings().machine or default_machine()
    except SettingsError:
        return default_machine()


def store_id(store: Path) -> str:
    """One key per store however it was reached (`sync TARGET` or `--all`, via a symlink)."""
    return os.path.realpath(store)


def settings_path() -> Path:
    return xdg.config_dir() / "sync.json"


def load_settings() -> SyncSettings:
    path = settings_path()
    try:
        with open(path, "rb") as handle:
            data = handle.read(SETTINGS_LIMIT + 1)
    except FileNotFoundError:
        return SyncSettings()
    except OSError as error:
        raise SettingsError(f"{path} cannot be read ({error.strerror or error}).") from None
    try:
        raw = json.loads(data.decode("utf-8"))
        remote = raw.get("remote")
        names = raw.get("names") or {}
        machine = raw.get("machine")
        if not (remote is None or isinstance(remote, str)) or not isinstance(names, dict) or not all(
            isinstance(key, str) and isinstance(value, str) for key, value in names.items()
        ) or not (machine is None or isinstance(machine, str)):
            raise ValueError("unexpected shape")
    except (ValueError, UnicodeDecodeError, AttributeError):
        raise SettingsError(f"{path} is not the JSON memtui writes; fix or remove it.") from None
    return SyncSettings(remote, dict(names), machine)


def save_settings(settings: SyncSettings) -> None:
    path = settings_path()
    saved = {"remote": settings.remote, "names": settings.names}
    if settings.machine:
        saved["machine"] = settings.machine
    body = json.dumps(saved, indent=2) + "\n"
    import secrets  # here: the app reads the settings at start-up and saves them rarely

    temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp.write_text(body, encoding="utf-8")
        os.replace(temp, path)
    except OSError as error:
        temp.unlink(missing_ok=True)
        raise SettingsError(f"{path} cannot be written ({error.strerror or error}).") from None
