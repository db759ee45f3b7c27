"""Checking memories against their code: `memtui audit` of 2,000 memories against a
5,000-file repository with a history of renames, against baselines measured in the same run.

    python benchmarks/bench_stale_paths.py [--files 5000] [--memories 2000] [--runs 3]

Generates (under `$TMPDIR/memtui-bench-stale`, outside any repository, as a user's checkouts
are; reused while the parameters match) a git repository of `--files` files whose history renames, chains renames and deletes a few
hundred of them over 40 commits, and a config home whose store for it holds `--memories`
memories, each mentioning a few paths: current ones, renamed ones, deleted ones, ones git
never had, and URLs or globs that are no paths.

Each memtui command runs as its own process, with fresh XDG dirs for "cold" (no checkout
cache, no audit cache). Printed, each the best of `--runs`, with CPU seconds (user + system,
the process and its children):
  baseline git      `git ls-files` and the rename query memtui runs, as plain commands
  baseline audit    `memtui audit --json` of the same store when its checkout is no git
                    repository (every rule but this one runs; no git at all)
  audit cold        `memtui audit --json` with no cache: target < 5 s
  audit warm        the same again: the checkout is read from its cache (no git)
  audit --all x2    `memtui audit --all --json` twice: the second answers the store from its
                    cache and checks its mentions against the cached checkout
and the ratios of the cold audit to each baseline.
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
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from tui.claude.paths import sanitize  # noqa: E402

DATA = Path(tempfile.gettempdir()) / "memtui-bench-stale"
COMMITS = 40
FOLDERS = ("src/billing", "src/payments", "src/users", "src/search", "src/util", "api/v1",
           "api/v2", "web/components", "web/pages", "lib/core", "lib/io", "tests/unit",
           "tests/e2e", "docs/guides", "scripts")
EXTENSIONS = (".py", ".ts", ".tsx", ".md", ".json", ".yml")
GIT_ENV = {"GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
           "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.com",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def git(repo: Path, *args: str, day: int = 0) -> str:
    stamp = f"{1_790_000_000 + day * 86_400} +0000"
    env = {**os.environ, **GIT_ENV, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    return subprocess.run(["git", "-C", str(repo), *args], env=env, check=True,
                          capture_output=True, text=True).stdout


def build_repo(repo: Path, files: int, rng: random.Random) -> dict[str, list[str]]:
    """The repository, and its paths by fate: "current", "renamed" (old names), "deleted"."""
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    paths = []
    for number in range(files):
        folder = rng.choice(FOLDERS)
        paths.append(f"{folder}/module_{number}{rng.choice(EXTENSIONS)}")
    for path in paths:
        target = repo / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(f"# {path}\nvalue = {rng.random()}\n" * 3)
    git(repo, "add", "--all")
    git(repo, "commit", "-q", "-m", "initial")
    current = set(paths)
    renamed: list[str] = []
    deleted: list[str] = []
    for commit in range(1, COMMITS + 1):
        for old in rng.sample(sorted(current), 12):
            new = f"{rng.choice(FOLDERS)}/moved_{commit}_{Path(old).name}"
            (repo / new).parent.mkdir(parents=True, exist_ok=True)
            os.replace(repo / old, repo / new)
            current.discard(old)
            current.add(new)
            renamed.append(old)
        for old in rng.sample(sorted(current), 3):
            (repo / old).unlink()
            current.discard(old)
            deleted.append(old)
        git(repo, "add", "--all")
        git(repo, "commit", "-q", "-m", f"move things {commit}", day=commit)
    gone = set(renamed) | set(deleted)
    return {"current": sorted(current - gone), "renamed": sorted(set(renamed) - current),
            "deleted": sorted(set(deleted) - current)}


def build_store(store: Path, memories: int, fates: dict[str, list[str]], rng: random.Random,
                ) -> None:
    store.mkdir(parents=True)
    lines = []
    for number in range(memories):
        mentions = [f"`{rng.choice(fates['current'])}`", rng.choice(fates["current"]),
                    f"see {rng.choice(fates['renamed'])}",
                    f"[the spec]({rng.choice(fates['current'])})",
                    "https://example.com/src/billing/x.py", "src/**/*.ts", "{module}/x.py"]
        if number % 5 == 0:
            mentions.append(rng.choice(fates["deleted"]))
        if number % 7 == 0:
            mentions.append(f"src/billing/never_{number}.py")
        body = "\n".join(f"- Note {line}: {mention} holds the {rng.choice(['rules', 'cache'])}."
                         for line, mention in enumerate(mentions))
        (store / f"project_note_{number}.md").write_text(
            f"---\nname: note {number}\ndescription: where note {number}'s code lives\n"
            f"type: project\n---\n\n{body}\n**Why:** x.\n**How to apply:** y.\n")
        lines.append(f"- [Note {number}](project_note_{number}.md) — where its code lives")
    (store / "MEMORY.md").write_text("\n".join(lines) + "\n")


def generate(files: int, memories: int) -> tuple[Path, Path, Path]:
    """(config home, repository, a copy of it that is no git repository)."""
    manifest = DATA / "manifest.json"
    wanted = {"files": files, "memories": memories, "commits": COMMITS, "version": 1}
    home, repo, plain = DATA / "config", DATA / "code" / "shop", DATA / "code" / "plain-shop"
    if manifest.exists() and json.loads(manifest.read_text()) == wanted:
        return home, repo, plain
    shutil.rmtree(DATA, ignore_errors=True)
    rng = random.Random(1)
    fates = build_repo(repo, files, rng)
    shutil.copytree(repo, plain, ignore=shutil.ignore_patterns(".git"))
    for checkout in (repo, plain):
        store = home / "projects" / sanitize(str(checkout.resolve())) / "memory"
        build_store(store, memories, fates, random.Random(2))
        session = store.parent / "00000000-0000-4000-8000-000000000001.jsonl"
        session.write_text(json.dumps({"type": "user", "cwd": str(checkout.resolve()),
                                       "sessionId": "s", "message": {"content": "hi"}}) + "\n")
    manifest.write_text(json.dumps(wanted))
    return home, repo, plain


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of it and its children, stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed: {done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def fresh_env(home: Path, places: Path) -> dict[str, str]:
    env = {**os.environ, **GIT_ENV, "CLAUDE_CONFIG_DIR": str(home), "HOME": str(places)}
    for name in ("MEMTUI_DATA_DIR", "MEMTUI_CACHE_DIR", "MEMTUI_STATE_DIR", "MEMTUI_CONFIG_DIR"):
        env[name] = str(places / name.lower())
    return env


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--memories", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    home, repo, plain = generate(args.files, args.memories)
    memtui = [sys.executable, "-m", "tui"]
    best: dict[str, tuple[float, float]] = {}

    def keep(name: str, wall: float, cpu: float) -> None:
        if name not in best or wall < best[name][0]:
            best[name] = (wall, cpu)

    stale = 0
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="memtui-bench-") as temp:
            env = fresh_env(home, Path(temp))
            wall_ls, cpu_ls, _ = timed(["git", "-C", str(repo), "ls-files", "-z", "--stage"], env)
            wall_log, cpu_log, _ = timed(
                ["git", "-C", str(repo), "log", "-z", "--format=%h %cs", "-M",
                 "--diff-filter=DR", "--name-status", "--no-merges", "HEAD", "--"], env)
            keep("baseline git (ls-files + log)", wall_ls + wall_log, cpu_ls + cpu_log)
            keep("baseline git ls-files", wall_ls, cpu_ls)
            keep("baseline audit (no git repository)",
                 *timed([*memtui, "audit", str(plain), "--json"], env)[:2])
            wall, cpu, out = timed([*memtui, "audit", str(repo), "--json"], env)
            keep("audit cold", wall, cpu)
            stale = sum(1 for f in json.loads(out)["findings"] if f["kind"] == "stale_path")
            keep("audit warm", *timed([*memtui, "audit", str(repo), "--json"], env)[:2])
            timed([*memtui, "audit", "--all", "--json"], env)
            keep("audit --all, cached", *timed([*memtui, "audit", "--all", "--json"], env)[:2])
    print(f"{args.files:,}-file repository, {COMMITS} commits of renames; {args.memories:,} "
          f"memories; {stale:,} stale_path findings; best of {args.runs}")
    width = max(map(len, best))
    for name, (wall, cpu) in best.items():
        print(f"  {name:<{width}}  {wall:6.2f} s wall  {cpu:6.2f} s CPU")
    cold = best["audit cold"][0]
    print(f"audit cold: {cold:.2f} s (target < 5 s: {'met' if cold < 5 else 'MISSED'}); "
          f"{cold / best['baseline git ls-files'][0]:.1f}x git ls-files, "
          f"{cold / best['baseline git (ls-files + log)'][0]:.1f}x git's two queries, "
          f"{cold / best['baseline audit (no git repository)'][0]:.2f}x the audit without git")
    print(f"audit warm / baseline audit: "
          f"{best['audit warm'][0] / best['baseline audit (no git repository)'][0]:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
