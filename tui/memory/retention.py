"""How long memtui keeps its undo log and backup copies: the retention policy.

Per store, the undo log keeps the newest `keep_changes` changes and every change younger
than `keep_days` days; older ones, and their backup copies, are trimmed (`tui.memory.trim`).
Both come from `[backups]` in memtui's config.toml:

    [backups]
    keep_changes = 100
    keep_days = 30

Copies recovery kept of outside writes (`kept/` folders) are never trimmed unless asked.
The journal is never trimmed: it is the long-term history of every store.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tui.config import ConfigError, config_file, read_table, refuse_unknown_keys
from tui.words import plural

DEFAULT_KEEP_CHANGES = 100
DEFAULT_KEEP_DAYS = 30.0
DAY = 86400.0


@dataclass(frozen=True)
class Retention:
    keep_changes: int = DEFAULT_KEEP_CHANGES
    keep_days: float = DEFAULT_KEEP_DAYS

    @property
    def keep_seconds(self) -> float:
        return self.keep_days * DAY

    def in_words(self) -> str:
        """The policy as words ("the newest 100 changes and those of the last 30 days");
        a part set to 0 keeps nothing, so it is left out."""
        newest = "change" if self.keep_changes == 1 else plural(self.keep_changes, "change")
        days = f"{self.keep_days:g} day{'' if self.keep_days == 1 else 's'}"
        if not self.keep_days:
            return f"the newest {newest}" if self.keep_changes else "no change"
        if not self.keep_changes:
            return f"the changes of the last {days}"
        return f"the newest {newest} and those of the last {days}"

    def to_json(self) -> dict:
        return {"keep_changes": self.keep_changes, "keep_days": self.keep_days}


def retention_policy() -> Retention:
    """The policy config.toml sets (defaults for what it leaves out); ConfigError (one
    sentence) for a key it does not know or a value that is no count of changes or of days."""
    path = config_file()
    table = read_table(path, "backups")
    refuse_unknown_keys(path, "backups", table, ("keep_changes", "keep_days"))
    changes = table.get("keep_changes", DEFAULT_KEEP_CHANGES)
    days = table.get("keep_days", DEFAULT_KEEP_DAYS)
    if type(changes) is not int or changes < 0:
        raise ConfigError(f"{path}: `keep_changes` in [backups] must be a whole number of "
                          "changes, 0 or more.")
    if type(days) not in (int, float) or not 0 <= days < math.inf:
        raise ConfigError(f"{path}: `keep_days` in [backups] must be a number of days, "
                          "0 or more.")
    return Retention(changes, float(days))
