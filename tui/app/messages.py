"""Results that workers post back to the UI thread."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual.message import Message

from tui.app.summaries import StoreSummary
from tui.claude.discovery import Inventory
from tui.memory.audit import Finding, MemoryStatus
from tui.memory.store import Store


@dataclass
class ProjectsScanned(Message):
    inventory: Inventory
    summaries: dict[Path, StoreSummary]


@dataclass
class DemoBuilt(Message):
    home: Path


@dataclass
class StoreLoaded(Message):
    store: Store
    findings: list[Finding]
    statuses: dict[str, MemoryStatus]
    signature: frozenset[tuple[str, int, int]]


@dataclass
class StoreChangedOnDisk(Message):
    signature: frozenset[tuple[str, int, int]]


@dataclass
class ChangeApplied(Message):
    """A write (or undo) finished: `text` is what to tell the user."""

    text: str
    severity: str = "information"
