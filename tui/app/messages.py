"""Results that workers post back to the UI thread."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:  # the audit's modules load once a store is opened, not at start-up
    from tui.app.memory_rows import MemoryRow
    from tui.app.summaries import StoreSummary
    from tui.app.widgets.findings import FindingsShown
    from tui.claude.discovery import Inventory
    from tui.memory.audit import MemoryStatus
    from tui.memory.store import Store


@dataclass
class ProjectsScanned(Message):
    inventory: Inventory
    summaries: dict[Path, StoreSummary] | None  # None: still being read (rows come first)


@dataclass
class DemoBuilt(Message):
    home: Path


@dataclass
class StoreLoaded(Message):
    """A store read in a worker, with the rows its screen shows already made there: on a
    50 MB index a sort or a table of rows is seconds, which the UI thread must not spend.
    The first message comes before the audit (`shown` None), the next after it."""

    store: Store
    statuses: dict[str, MemoryStatus]
    signature: frozenset[tuple[str, int, int]]
    rows: list[MemoryRow]
    shown: FindingsShown | None


@dataclass
class StoreRead(Message):
    """A read of a store ended (shown, cancelled or failed) after `seconds`."""

    seconds: float


@dataclass
class StoreChangedOnDisk(Message):
    signature: frozenset[tuple[str, int, int]]


@dataclass
class LockLapsed(Message):
    """The consolidation lock was freed (or taken) without a write: its holder exited, or
    its hour ran out."""


@dataclass
class ChangeApplied(Message):
    """A write (or undo) finished: `text` is what to tell the user."""

    text: str
    severity: str = "information"
