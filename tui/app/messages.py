"""Results that workers post back to the UI thread."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message
from textual.worker import get_current_worker

if TYPE_CHECKING:  # annotations only: the audit's modules load once a store is opened
    from textual.message_pump import MessagePump

    from tui.app.memory_rows import MemoryRow
    from tui.app.summaries import StoreSummary
    from tui.app.widgets.findings import FindingsShown
    from tui.claude.discovery import Inventory
    from tui.memory.audit import MemoryStatus
    from tui.memory.store import Store


def post_unless_replaced(target: MessagePump, message: Message) -> None:
    """Post a worker's result, unless a newer run of its exclusive group replaced it:
    Textual cancels the replaced thread worker, but its thread runs on, and its older result
    must not land over the newer one. Call it from the worker's thread."""
    if not get_current_worker().is_cancelled:
        target.post_message(message)


@dataclass
class ProjectsScanned(Message):
    inventory: Inventory
    summaries: dict[Path, StoreSummary] | None  # None: still being read (rows come first)
    rescued: dict[Path, Path] = field(default_factory=dict)  # stranded store -> live store


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
