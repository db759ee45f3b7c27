"""Write demo memory stores: memory files, MEMORY.md, daily logs and the consolidate lock."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from tui.claude.lock import pid_alive
from tui.claude.paths import INDEX_NAME, LOCK_NAME
from tui.demo.memories import StorePlan, render, render_index
from tui.demo.sessionlog import demo_uuid, iso

DAY = 86_400.0
DEAD_PID = 48_613


def _write(path: Path, text: str, when: float) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.utime(path, (when, when))


def write_store(memory_dir: Path, plan: StorePlan, now: float) -> dict[str, str]:
    """Write every memory and the index; returns each file's text, MEMORY.md included
    (sessions quote them)."""
    texts: dict[str, str] = {}
    newest = now - 30 * DAY
    for memory in plan.memories:
        when = now - memory.age_days * DAY
        text = render(memory, demo_uuid("origin", memory_dir.parent.name, memory.file), iso(when))
        _write(memory_dir / memory.file, text, when)
        texts[memory.file] = text
        newest = max(newest, when)
    texts[INDEX_NAME] = render_index(list(plan.index))
    _write(memory_dir / INDEX_NAME, texts[INDEX_NAME], newest)
    return texts


def write_daily_logs(memory_dir: Path, now: float, entries: dict[int, list[str]]) -> None:
    """`logs/YYYY/MM/YYYY-MM-DD.md`, one per day-offset, timestamped bullets."""
    for days_ago, bullets in entries.items():
        day_start = now - days_ago * DAY
        date = datetime.fromtimestamp(day_start, UTC)
        path = memory_dir / "logs" / f"{date:%Y}" / f"{date:%m}" / f"{date:%Y-%m-%d}.md"
        lines = [f"# {date:%Y-%m-%d}", ""]
        for offset, bullet in enumerate(bullets):
            stamp = datetime.fromtimestamp(day_start + offset * 2400, UTC)
            lines.append(f"- {stamp:%H:%M} {bullet}")
        _write(path, "\n".join(lines) + "\n", day_start + len(bullets) * 2400)


def write_stale_lock(memory_dir: Path, when: float) -> None:
    """A lock left by a consolidation that crashed: a dead PID, mtime = last consolidated."""
    pid = DEAD_PID
    while pid_alive(pid):
        pid += 1
    _write(memory_dir / LOCK_NAME, f"{pid}\n", when)
