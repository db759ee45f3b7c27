"""The floors `bench_tree.py` compares memtui with: plain Python doing the least I/O a
command's answer needs. Run as its own process, like memtui, so both pay a start-up:

    python -I benchmarks/floors.py io|lines PROJECTS_DIR

io     read every MEMORY.md, stat every memory file, read the first 4 KB of every session
       transcript (what claude-memory-manager's first load does: 1.27x this floor)
lines  read the first 30 lines of every memory file (frontmatter and the top of the body)

Prints what it touched, so a floor that found nothing is seen.
"""

from __future__ import annotations

import os
import sys


def memory_files(memory_dir: str):
    for folder, _, names in os.walk(memory_dir):
        for name in names:
            if name.endswith(".md"):
                yield os.path.join(folder, name)


def io_floor(projects: str) -> str:
    indexes = stats = transcripts = 0
    for folder in os.scandir(projects):
        if not folder.is_dir():
            continue
        memory = os.path.join(folder.path, "memory")
        try:
            with open(os.path.join(memory, "MEMORY.md"), "rb") as handle:
                handle.read()
            indexes += 1
        except OSError:
            pass
        for path in memory_files(memory):
            os.stat(path)
            stats += 1
        for entry in os.scandir(folder.path):
            if entry.name.endswith(".jsonl") and entry.is_file():
                with open(entry.path, "rb") as handle:
                    handle.read(4096)
                transcripts += 1
    return f"{indexes} indexes, {stats} memory files, {transcripts} transcripts"


def lines_floor(projects: str) -> str:
    files = lines = 0
    for folder in os.scandir(projects):
        if not folder.is_dir():
            continue
        for path in memory_files(os.path.join(folder.path, "memory")):
            with open(path, "rb") as handle:
                for _ in range(30):
                    if not handle.readline():
                        break
                    lines += 1
            files += 1
    return f"{files} memory files, {lines} lines"


if __name__ == "__main__":
    kind, projects = sys.argv[1], sys.argv[2]
    print({"io": io_floor, "lines": lines_floor}[kind](projects))
