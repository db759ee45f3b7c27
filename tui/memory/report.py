"""A store's audit as plain data: the shape `memtui audit --json` prints."""

from __future__ import annotations

from dataclasses import dataclass

from tui.memory.audit import Finding, memory_statuses
from tui.memory.store import Store
from tui.memory.triage import cost


@dataclass(frozen=True)
class AuditReport:
    store: Store
    findings: tuple[Finding, ...]

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == "error")

    def to_json(self) -> dict:
        index = self.store.index
        statuses = memory_statuses(self.store)
        return {
            "store": str(self.store.path),
            "index": {
                "exists": index.exists,
                "lines": index.lines,
                "chars": index.chars,
                "loaded_lines": index.loaded_lines,
                "loaded_chars": index.loaded_chars,
                "cut": index.cut,
                "warning": index.warning,
            },
            "memories": [
                {
                    "file": m.file,
                    "name": m.name,
                    "type": m.type,
                    "description": m.description,
                    "indexed": statuses[m.file].indexed,
                    "visible": statuses[m.file].visible,
                    "form": m.frontmatter.form,
                    "mtime": m.mtime,
                    "size": m.size,
                }
                for m in self.store.memories
            ],
            "cost": cost(self.findings).to_json(),
            "findings": [f.to_json() for f in self.findings],
        }
