#!/usr/bin/env python3
"""`memtui export --all` then `memtui import` onto an empty config home, on real stores.

    .venv/bin/python scripts/export_roundtrip.py [STORES_DIR]   # default: ../realstores

STORES_DIR holds `<name>/memory/` folders (the corpus beside the repository). Each is copied
into a temp config home as a project folder, exported, imported into a second config home
by the real `memtui` command, and compared: every file byte for byte and its mtime to the
nanosecond, and what import refused (files holding a secret) named. Prints the times and
exits 1 on any difference.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MEMTUI = Path(sys.executable).with_name("memtui")


def files_of(store: Path) -> dict[str, tuple[bytes, int]]:
    found = {}
    for folder, dirs, names in os.walk(store):
        dirs[:] = [d for d in dirs if not d.startswith(".git")]
        for name in names:
            path = Path(folder, name)
            if name.endswith(".md") and path.is_file() and not path.is_symlink():
                found[path.relative_to(store).as_posix()] = (path.read_bytes(),
                                                             path.stat().st_mtime_ns)
    return found


def main() -> int:
    corpus = Path(sys.argv[1] if len(sys.argv) > 1 else REPO.parent / "realstores")
    stores = sorted(p for p in corpus.glob("*/memory") if p.is_dir())
    if not stores:
        print(f"No <name>/memory folders under {corpus}; nothing to measure.")
        return 0
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        source, target = work / "a", work / "b"
        for store in stores:
            shutil.copytree(store, source / "projects" / f"-corpus-{store.parent.name}" / "memory",
                            symlinks=True)
        env = {**os.environ, "TMPDIR": scratch,
               **{f"MEMTUI_{kind}_DIR": str(work / kind) for kind in ("DATA", "CACHE", "STATE",
                                                                       "CONFIG")}}
        archive = work / "all.zip"
        timings = []
        for argv, home in ((["export", "--all", "-o", str(archive)], source),
                           (["import", str(archive)], target)):
            started = time.perf_counter()
            done = subprocess.run([str(MEMTUI), "--config-dir", str(home), *argv], env=env,
                                  capture_output=True, text=True)
            timings.append(time.perf_counter() - started)
            print(done.stdout.splitlines()[0] if done.stdout else "", done.stderr.strip())
            if done.returncode:
                return 1
        refused = [line for line in done.stdout.splitlines() if "secret" in line]
        differences = missing = compared = 0
        for folder in (source / "projects").iterdir():
            before = files_of(folder / "memory")
            after = files_of(target / "projects" / folder.name / "memory")
            for file, (data, mtime) in before.items():
                if file not in after:
                    missing += 1
                    continue
                compared += 1
                if after[file] != (data, mtime):
                    differences += 1
                    print(f"differs: {folder.name}/{file}")
        size = archive.stat().st_size
        print(f"{len(stores)} stores, {compared} files compared, {differences} differ, "
              f"{missing} not imported ({'; '.join(refused) or 'none refused'}); "
              f"zip {size / 1e6:.1f} MB; export {timings[0]:.2f} s, import {timings[1]:.2f} s")
        return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
