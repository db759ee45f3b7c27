"""Time the transcript scan behind history and lost updates, against `grep -rcF`.

    python benchmarks/bench_transcripts.py [--size-mb 1024] [--dir DIR] [--check]

Generates (once; a manifest lets later runs reuse it) a corpus of session transcripts in
the record shapes Claude Code writes: user prompts, assistant text / thinking / tool_use
records, big Read and Bash results, progress and file-history-snapshot records, subagent
files, and now and then a Read, Write or Edit of a memory file and a `memory_saved`
record, spread over a main checkout and two worktrees of one project. Then, in one run
and with a warm page cache (an untimed pass reads every file first):
  grep         `grep -rcF <store path> <corpus>`, the floor: find the lines, nothing else
  cold scan    every event of the store, with an empty cache
  warm rescan  the same again: nothing changed, so only stat calls and the cache
  appended     after appending a session's worth of lines to 5 files
  peak RSS     of this process (resource.getrusage)
`--check` exits 1 unless cold <= 3x grep, warm <= cold / 10 and peak RSS < 200 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tui.claude.paths import sanitize  # noqa: E402
from tui.history.scan_cache import ScanCache  # noqa: E402
from tui.history.writes_log import scan_events, transcript_files  # noqa: E402

GENERATOR_VERSION = 3
DEFAULT_ROOT = Path(__file__).resolve().parent / ".data"
PROJECT = "/home/dev/work/shop"
CWDS = (PROJECT, f"{PROJECT}-worktrees/feature-a", f"{PROJECT}-worktrees/feature-b")
WORDS = (
    "def class return import self value cache index store memory session token parser "
    "request response error retry timeout config module schema table column query row "
    "the a to of and in for with on is that this it as be by from at or an test build"
).split()
MEMORY_FILES = ("feedback_testing.md", "project_release.md", "user_role.md", "MEMORY.md")


class Corpus:
    def __init__(self, root: Path, size_mb: int, seed: int = 7):
        self.root = root
        self.home = root / "config"
        self.store = self.home / "projects" / sanitize(PROJECT) / "memory"
        self.size = size_mb << 20
        self.random = random.Random(seed)
        self.texts = [self._text(n) for n in (40, 200, 800, 3_000, 12_000, 40_000) for _ in range(8)]

    def _text(self, words: int) -> str:
        lines, line = [], []
        for _ in range(words):
            line.append(self.random.choice(WORDS))
            if len(line) > 12:
                lines.append(" ".join(line))
                line = []
        return "\n".join(lines) + "\n"

    def manifest(self) -> dict:
        return {"version": GENERATOR_VERSION, "size": self.size}

    def ensure(self) -> None:
        marker = self.root / "manifest.json"
        if marker.exists() and json.loads(marker.read_text()) == self.manifest():
            return
        shutil.rmtree(self.root, ignore_errors=True)
        self.store.mkdir(parents=True)
        for name in MEMORY_FILES:
            (self.store / name).write_text(self.texts[1])
        written = 0
        while written < self.size:
            cwd = self.random.choice(CWDS)
            folder = self.home / "projects" / sanitize(cwd)
            session = str(uuid.UUID(int=self.random.getrandbits(128)))
            target = min(self.random.choice((1, 2, 4, 8, 16, 32)) << 18, self.size - written)
            written += self._session(folder / f"{session}.jsonl", session, cwd, target)
            if self.random.random() < 0.3:
                agent = folder / session / "subagents" / f"agent-a{self.random.getrandbits(32):08x}.jsonl"
                written += self._session(agent, session, cwd, target // 4, sidechain=True)
        marker.write_text(json.dumps(self.manifest()))

    def _session(self, path: Path, session: str, cwd: str, size: int, sidechain: bool = False) -> int:
        path.parent.mkdir(parents=True, exist_ok=True)
        written = 0
        clock = 1_767_225_600 + self.random.randrange(0, 90 * 86_400)
        with open(path, "w", encoding="utf-8") as out:
            out.write(json.dumps({"type": "file-history-snapshot", "messageId": session,
                                  "snapshot": {"trackedFileBackups": {}}}) + "\n")
            while written < max(size, 1):
                clock += self.random.randrange(1, 40)
                for record in self._turn(session, cwd, clock, sidechain):
                    line = json.dumps(record, ensure_ascii=False) + "\n"
                    out.write(line)
                    written += len(line)
        return written

    def _base(self, kind: str, session: str, cwd: str, clock: int, sidechain: bool) -> dict:
        return {
            "parentUuid": str(uuid.UUID(int=self.random.getrandbits(128))),
            "isSidechain": sidechain, "userType": "external", "cwd": cwd, "sessionId": session,
            "version": "2.1.39", "gitBranch": cwd.rsplit("/", 1)[-1], "type": kind,
            "uuid": str(uuid.UUID(int=self.random.getrandbits(128))),
            "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(clock)),
        }

    def _tool(self, session, cwd, clock, sidechain, name, tool_input, result, text) -> list[dict]:
        tool_id = f"toolu_{self.random.getrandbits(96):024x}"
        use = self._base("assistant", session, cwd, clock, sidechain)
        use["message"] = {
            "model": "claude-opus-4-6", "id": f"msg_{self.random.getrandbits(96):024x}",
            "type": "message", "role": "assistant", "stop_reason": None,
            "content": [{"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}],
            "usage": {"input_tokens": 3, "cache_read_input_tokens": 28_615, "output_tokens": 120},
        }
        answer = self._base("user", session, cwd, clock + 1, sidechain)
        answer["message"] = {"role": "user", "content": [
            {"tool_use_id": tool_id, "type": "tool_result", "content": text}]}
        answer["toolUseResult"] = result
        return [use, answer]

    def _turn(self, session: str, cwd: str, clock: int, sidechain: bool) -> list[dict]:
        pick = self.random.random()
        args = (session, cwd, clock, sidechain)
        if pick < 0.02:
            return self.memory_turn(*args)
        if pick < 0.35:
            content = self.random.choice(self.texts)
            path = f"{cwd}/src/{self.random.choice(WORDS)}.py"
            lines = content.count("\n")
            return self._tool(*args, "Read", {"file_path": path}, {"type": "text", "file": {
                "filePath": path, "content": content, "numLines": lines, "startLine": 1,
                "totalLines": lines}}, content)
        if pick < 0.55:
            stdout = self.random.choice(self.texts)
            return self._tool(*args, "Bash", {"command": "pytest -q", "description": "Run tests"},
                              {"stdout": stdout, "stderr": "", "interrupted": False}, stdout)
        if pick < 0.7:
            progress = self._base("progress", *args)
            progress["data"] = {"type": "hook_progress", "hookEvent": "PostToolUse"}
            return [progress]
        record = self._base("assistant", *args)
        record["message"] = {"model": "claude-opus-4-6", "id": f"msg_{self.random.getrandbits(96):024x}",
                             "type": "message", "role": "assistant", "content": [
                                 {"type": "thinking", "thinking": self.random.choice(self.texts[:24])},
                                 {"type": "text", "text": self.random.choice(self.texts[:16])}]}
        return [record]

    def memory_turn(self, session: str, cwd: str, clock: int, sidechain: bool = False) -> list[dict]:
        args = (session, cwd, clock, sidechain)
        path = str(self.store / self.random.choice(MEMORY_FILES))
        before = self.random.choice(self.texts[:16])
        after = before + f"- {' '.join(self.random.sample(WORDS, 8))}\n"
        lines = before.count("\n")
        records = self._tool(*args, "Read", {"file_path": path}, {"type": "text", "file": {
            "filePath": path, "content": before, "numLines": lines, "startLine": 1,
            "totalLines": lines}}, before)
        records += self._tool(*args, "Write", {"file_path": path, "content": after}, {
            "type": "update", "filePath": path, "content": after, "structuredPatch": [],
            "originalFile": before}, f"The file {path} has been updated successfully.")
        saved = self._base("system", *args)
        saved.update(subtype="memory_saved", writtenPaths=[path])
        return [*records, saved]


def _timed(run) -> tuple[float, object]:
    start = time.perf_counter()
    result = run()
    return time.perf_counter() - start, result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=128, help="corpus size (default: 128)")
    parser.add_argument("--dir", type=Path, help="corpus dir (default: benchmarks/.data/transcripts-<size>)")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args()

    corpus = Corpus(args.dir or DEFAULT_ROOT / f"transcripts-{args.size_mb}mb", args.size_mb)
    generate_time, _ = _timed(corpus.ensure)
    folders = sorted(p for p in (corpus.home / "projects").iterdir() if p.is_dir())
    files = transcript_files(folders)
    total = sum(f.stat().st_size for f in files)
    for file in files:  # warm the page cache so both sides read from memory
        with open(file, "rb") as handle:
            while handle.read(1 << 24):
                pass

    grep_time, grep = _timed(lambda: subprocess.run(
        ["grep", "-rcF", str(corpus.store), *map(str, folders)],
        capture_output=True, text=True, check=False,
    ))
    grep_lines = sum(int(line.rsplit(":", 1)[1]) for line in grep.stdout.splitlines())
    with tempfile.TemporaryDirectory() as cache_dir:
        with ScanCache(Path(cache_dir) / "scan.sqlite") as cache:
            cold, events = _timed(lambda: scan_events(corpus.store, files, cache))
            warm, again = _timed(lambda: scan_events(corpus.store, files, cache))
            sizes = {file: file.stat().st_size for file in files[:5]}
            try:
                for file in sizes:
                    with open(file, "a", encoding="utf-8") as out:
                        for _ in range(20):
                            for record in corpus.memory_turn("bench", CWDS[0], 1_775_000_000):
                                out.write(json.dumps(record) + "\n")
                appended, grown = _timed(lambda: scan_events(corpus.store, files, cache))
            finally:
                for file, size in sizes.items():  # leave the corpus as generated
                    os.truncate(file, size)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    assert len(again) == len(events)

    print(f"corpus       {total / 2**20:,.0f} MB in {len(files)} files ({corpus.root}; "
          f"generated in {generate_time:.1f} s)")
    print(f"grep -rcF    {grep_time:6.2f} s   {grep_lines} matching lines")
    print(f"cold scan    {cold:6.2f} s   {len(events)} events   {cold / grep_time:.2f}x grep "
          f"({total / 2**20 / cold:,.0f} MB/s)")
    print(f"warm rescan  {warm:6.3f} s   {warm / cold:.4f} of cold")
    print(f"appended     {appended:6.3f} s   {len(grown) - len(events)} new events in 5 grown files")
    print(f"peak RSS     {rss_mb:6.0f} MB")
    missed = [
        name for name, ok in (
            ("cold scan within 3x grep", cold <= 3 * grep_time),
            ("warm rescan at most 1/10 of cold", warm <= cold / 10),
            ("peak RSS under 200 MB", rss_mb < 200),
        ) if not ok
    ]
    for name in missed:
        print(f"MISSED: {name}")
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
