"""The doctor's report: one check per cause, each with a status, what was found and the fix.

Plain values, shared by the CLI (`memtui doctor`, `--json`) and the app's doctor screen.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

OK, WARN, FAIL, SKIP = "ok", "warn", "fail", "skip"
STATUSES = (OK, WARN, FAIL, SKIP)
SECRET_MIN = 8  # shorter values are no credential, and replacing them would garble messages

# Every check in the order a report lists them; `api_probe` only with --online.
CHECK_IDS = (
    "auto_memory", "settings_keys", "memory_dir",
    "api_base_url", "api_key", "api_model", "proxy", "oauth",
    "dream_gates", "dream_lock", "index_size",
    "extraction", "compaction", "worktrees", "user_claude_md", "memtui_files",
    "api_probe",
)


@dataclass(frozen=True)
class Check:
    id: str
    status: str
    message: str  # one sentence (or a few joined) with the evidence: file, line, value, time
    fix: str | None = None  # the exact command, settings line or variable; None when none

    def to_json(self) -> dict:
        return {"id": self.id, "status": self.status, "message": self.message, "fix": self.fix}


def worst(statuses: Iterable[str]) -> str:
    """The most serious of some statuses: fail, then warn, then ok, then skip."""
    found = set(statuses)
    return next((status for status in (FAIL, WARN, OK) if status in found), SKIP)


@dataclass(frozen=True)
class DoctorReport:
    project: str | None  # the project path the checks were made for
    store: str | None  # its memory directory
    checks: tuple[Check, ...]

    @property
    def failed(self) -> tuple[Check, ...]:
        return tuple(check for check in self.checks if check.status == FAIL)

    def check(self, check_id: str) -> Check | None:
        return next((check for check in self.checks if check.id == check_id), None)

    @property
    def exit_code(self) -> int:
        return 1 if self.failed else 0

    def to_json(self) -> dict:
        return {"project": self.project, "store": self.store,
                "checks": [check.to_json() for check in self.checks]}

    def redacted(self, secrets: Iterable[str]) -> DoctorReport:
        """The same report with every secret value replaced: a last guard, so that no key or
        token reaches output even through a library's error message."""
        values = sorted({s for s in secrets if len(s.strip()) >= SECRET_MIN}, key=len, reverse=True)
        values += [v.strip() for v in values if v.strip() != v]

        def clean(text: str | None) -> str | None:
            if text is None:
                return None
            for value in values:
                text = text.replace(value, "[hidden]")
            return text

        return DoctorReport(self.project, self.store, tuple(
            Check(c.id, c.status, clean(c.message) or "", clean(c.fix)) for c in self.checks))
