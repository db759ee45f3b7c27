"""Generate a heavy Claude Code user's config home for the benchmarks.

    python benchmarks/generate.py [DIR] [--projects 1000] [--memories 20000] [--seed 1]
                                  [--transcript-mb 0]

DIR (default `benchmarks/.data/heavy`, git-ignored) receives:
- `config/`: the config home (`CLAUDE_CONFIG_DIR`) with `projects/<sanitized>/` folders holding
  session transcripts (`<uuid>.jsonl`, subagent files) and `memory/` stores;
- `code/`: the real project directories the transcripts' `cwd` fields point at (git checkouts,
  subdirectories, linked worktrees), so discovery resolves them; some cwds are left missing
  on purpose (deleted worktrees and checkouts).

Memories are spread unevenly (a few big stores, many small), in the three frontmatter forms,
with MEMORY.md indexes (big stores run past the loaded cut), dangling links, relative dates,
near-duplicates and a few broken files. With `--transcript-mb N`, the transcripts are then
grown to about N MB in all with big Read results (real sessions are mostly tool output),
unevenly, a few of them reading a memory file. The same seed gives the same bytes and mtimes; a
manifest records the parameters so a second run with the same ones reuses the data.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bodies  # noqa: E402

from tui.claude.paths import sanitize  # noqa: E402

GENERATOR_VERSION = 6
DEFAULT_DIR = Path(__file__).resolve().parent / ".data" / "heavy"
MANIFEST = "manifest.json"
EPOCH = 1_767_225_600  # 2026-01-01T00:00:00Z: every generated mtime is this plus an offset
DAY = 86_400

ORGS = ("acme", "globex", "initech", "umbrella", "hooli", "personal", "oss", "work", "labs")
WORDS = (
    "auth cache billing search index parser deploy review pipeline schema queue token "
    "session upload report metrics alert worker client server gateway router storage "
    "payment invoice ledger export import migration config feature flag rollout canary "
    "retry timeout backoff logging tracing test fixture snapshot coverage lint format "
    "release branch commit rebase merge hotfix incident postmortem oncall dashboard api"
).split()
TYPES = ("user", "feedback", "project", "reference")
TYPE_WEIGHTS = (10, 38, 40, 12)  # as real stores name their files
RELATIVE = ("yesterday", "last week", "next Thursday", "two days ago", "上周", "this sprint")


@dataclass
class Store:
    folder: str  # sanitized folder name under projects/
    memories: int
    files: list[str] = field(default_factory=list)


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


FUNCTION_WORDS = (
    "the a to of and in for on with is it that we use not when run from by at as be this "
    "only after before always never should must can"
).split()
SYLLABLES = "ka lo mi ne ru sa ti vo ze pra sto gle dri fen mab cor tul vex quin ham".split()
# Real memories name many distinct things: a vocabulary of a few thousand, Zipf-distributed.
VOCABULARY = WORDS + [
    a + b + c for a in SYLLABLES for b in SYLLABLES for c in ("", "r", "n", "s", "ter")
]
ZIPF = [1.0 / (rank + 1) for rank in range(len(VOCABULARY))]


def _words(rng: random.Random, count: int) -> str:
    words = []
    for _ in range(count):
        if rng.random() < 0.4:
            words.append(rng.choice(FUNCTION_WORDS))
        elif rng.random() < 0.05:
            words.append(f"v{rng.randint(1, 9)}.{rng.randint(0, 40)}")
        else:
            words.extend(rng.choices(VOCABULARY, weights=ZIPF))
    return " ".join(words)


def _write(path: Path, text: str, mtime: float) -> None:
    path.write_text(text, encoding="utf-8")
    os.utime(path, (mtime, mtime))


def memory_counts(rng: random.Random, stores: int, total: int) -> list[int]:
    """A few big stores, many small: the biggest holds a quarter, the rest falls off Zipf-like."""
    if stores == 0:
        return []
    biggest = total // 4
    weights = [1.0 / (rank + 1) ** 1.1 for rank in range(1, stores)]
    rest = total - biggest
    scale = sum(weights) or 1.0
    counts = [biggest] + [max(1, int(rest * w / scale)) for w in weights]
    counts[0] += total - sum(counts)  # rounding lands on the biggest store
    rng.shuffle(counts)
    return counts


def frontmatter_text(rng: random.Random, name: str, kind: str, description: str) -> str:
    form = rng.random()
    if form < 0.03:
        return ""
    if form < 0.45:
        return f"---\nname: {name}\ndescription: {description}\ntype: {kind}\n---\n\n"
    if form < 0.47:  # needs Claude Code's quoting retry
        return f"---\nname: {name}\ndescription: {description}: see {rng.choice(WORDS)} #ops\ntype: {kind}\n---\n\n"
    if form < 0.48:  # the rewrite that blanked name and dropped the rest (issue #63989)
        return f'---\nname: ""\nmetadata:\n  node_type: memory\n  originSessionId: {_uuid(rng)}\n---\n\n'
    if form < 0.485:
        return f"---\nname: [{name}\ndescription: {{broken\n---\n\n"
    metadata = "metadata: " if rng.random() < 0.1 else "metadata:"
    modified = f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00.000Z"
    extra = f"  priority: {rng.randint(1, 5)}\n" if rng.random() < 0.1 else ""
    quoted = f'"{description}"' if rng.random() < 0.1 else description
    return (
        f"---\nname: {name.replace('_', '-')}\ndescription: {quoted}\n{metadata}\n  type: {kind}\n"
        f"  node_type: memory\n  originSessionId: {_uuid(rng)}\n  modified: {modified}\n{extra}---\n\n"
    )


def memory_text(rng: random.Random, name: str, kind: str, description: str,
                store: bodies.StoreWords, names: list[str]) -> str:
    """A memory file as real ones look (see bodies.py): its frontmatter, then a body of a
    real length holding code spans, lists, links and rationale lines at the real shares."""
    head = frontmatter_text(rng, name, kind, description)
    length = max(200, bodies.body_length(rng) - len(head))
    return head + bodies.memory_body(rng, kind, store, names, length)


def write_store(rng: random.Random, memory_dir: Path, count: int, now: int) -> None:
    memory_dir.mkdir(parents=True)
    store = bodies.StoreWords(rng)
    written: list[tuple[str, str, str]] = []  # (file, title, text)
    names: list[str] = []  # the memories' `name:`s, for [[wiki]] links to earlier ones
    taken: set[str] = set()
    for number in range(count):
        kind = rng.choices(TYPES, weights=TYPE_WEIGHTS)[0]
        topic = "_".join(rng.sample(WORDS, 2))
        file = f"{kind}_{topic}.md"
        if file in taken:
            file = f"{kind}_{topic}_{number}.md"
        taken.add(file)
        if written and rng.random() < 0.02:  # a near-duplicate of an earlier memory
            text = rng.choice(written)[2].replace(".\n", ". Still true.\n", 1)
        else:
            text = memory_text(rng, topic, kind, bodies.description(rng, store), store,
                               names[-200:])
        names.append(topic.replace("_", "-"))
        mtime = now - rng.randint(0, 400) * DAY - rng.randint(0, DAY)
        if rng.random() < 0.002:
            (memory_dir / file).write_bytes(b"---\nname: latin\n---\ncaf\xe9 notes\n")
            os.utime(memory_dir / file, (mtime, mtime))
        else:
            _write(memory_dir / file, text, mtime)
        written.append((file, topic.replace("_", " ").title(), text))
    if count > 40 and rng.random() < 0.5:
        logs = memory_dir / "logs" / "2026" / "03"
        logs.mkdir(parents=True)
        _write(logs / "2026-03-02.md", "- 09:12 moved the deploy to Fridays\n", now - 30 * DAY)

    lines = ["# Memory index", ""]
    grouped = rng.random() < 0.5  # half the indexes group their lines under type headings
    kind = None
    for file, title, _ in sorted(written) if grouped else written:
        if rng.random() < 0.08:
            continue  # unindexed
        if grouped and file.split("_")[0] != kind:
            kind = file.split("_")[0]
            lines += ["", f"## {kind.title()}"]
        hook = bodies.sentence(rng, store, 0.3, rng.randint(4, 30 if rng.random() < 0.05 else 14))
        lines.append(f"- [{title}]({file}) — {hook}")
    for _ in range(rng.randint(0, 3)):
        lines.append(f"- [Gone](deleted_{rng.choice(WORDS)}.md) — removed by a dream")
    if rng.random() < 0.1:
        lines.insert(2, "<!-- curated by hand -->")
    _write(memory_dir / "MEMORY.md", "\n".join(lines) + "\n", now - rng.randint(0, 30) * DAY)
    if rng.random() < 0.2:
        _write(memory_dir / ".consolidate-lock", "999999999\n", now - rng.randint(1, 20) * DAY)


def git_checkout(repo: Path) -> None:
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")


def git_worktree(repo: Path, worktree: Path, name: str) -> None:
    admin = repo / ".git" / "worktrees" / name
    admin.mkdir(parents=True)
    worktree.mkdir(parents=True)
    (admin / "commondir").write_text("../..\n")
    (admin / "gitdir").write_text(f"{worktree}/.git\n")
    (worktree / ".git").write_text(f"gitdir: {admin}\n")


def transcript(rng: random.Random, cwd: str, session: str, memory_dir: str | None,
               saves: bool = False) -> str:
    """One session in the real record shapes; the first line carries no cwd. It saves a
    memory to `memory_dir` (when given) at random, or always when `saves`."""
    def record(kind: str, **fields) -> dict:
        base = {
            "parentUuid": None, "isSidechain": False, "userType": "external", "cwd": cwd,
            "sessionId": session, "version": "2.1.88", "gitBranch": "main", "type": kind,
            "uuid": _uuid(rng), "timestamp": "2026-03-01T10:00:00.000Z",
        }
        base.update(fields)
        return base

    records: list[dict] = [{
        "type": "file-history-snapshot", "messageId": _uuid(rng),
        "snapshot": {"messageId": _uuid(rng), "trackedFileBackups": {}}, "isSnapshotUpdate": False,
    }]
    for _ in range(rng.randint(4, 14)):
        records.append(record("user", message={"role": "user", "content": _words(rng, 12)}))
        content = [{"type": "text", "text": _words(rng, rng.randint(10, 60))}]
        if rng.random() < 0.3:
            content.append({"type": "tool_use", "id": "toolu_" + _uuid(rng)[:12], "name": "Read",
                            "input": {"file_path": f"{cwd}/src/{rng.choice(WORDS)}.py"}})
        records.append(record("assistant", message={
            "id": "msg_" + _uuid(rng)[:12], "model": "claude-sonnet-4-5", "role": "assistant",
            "content": content, "stop_reason": "end_turn",
            "usage": {"input_tokens": rng.randint(10, 9000), "output_tokens": rng.randint(10, 900)},
        }))
    if memory_dir and (saves or rng.random() < 0.6):
        target = f"{memory_dir}/feedback_{rng.choice(WORDS)}.md"
        records.append(record("assistant", message={
            "id": "msg_" + _uuid(rng)[:12], "model": "claude-sonnet-4-5", "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "Write",
                         "input": {"file_path": target, "content": "---\nname: x\n---\nbody\n"}}],
        }))
        records.append(record("user", toolUseResult={
            "type": "create", "filePath": target, "content": "---\nname: x\n---\nbody\n",
            "structuredPatch": [], "originalFile": None,
        }))
        records.append(record("system", subtype="memory_saved", writtenPaths=[target]))
    lines = [json.dumps(r, ensure_ascii=False) for r in records]
    if rng.random() < 0.05:
        lines.append('{"type":"assistant","message":{"content":[{"type":"te')  # cut short
    return "\n".join(lines) + "\n"


def write_sessions(rng: random.Random, folder: Path, cwd: str, memory_dir: str | None,
                   count: int, now: int, saves: bool = False) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for _ in range(count):
        session = _uuid(rng)
        path = folder / f"{session}.jsonl"
        _write(path, transcript(rng, cwd, session, memory_dir, saves),
               now - rng.randint(0, 29) * DAY)
        if rng.random() < 0.15:
            sub = folder / session / "subagents"
            sub.mkdir(parents=True)
            _write(sub / f"agent-a{rng.getrandbits(24):06x}.jsonl",
                   transcript(rng, cwd, session, None), now - rng.randint(0, 29) * DAY)


CODE_WORDS = (
    "def class return import self value cache index store session token parser request "
    "response error retry timeout config module schema table column query row if else for"
).split()


def pad_transcripts(projects_dir: Path, total_mb: int, seed: int) -> None:
    """Grow the transcripts to about `total_mb` in all with Read tool uses and results.

    A separate random stream, so the tree without padding stays byte-identical."""
    rng = random.Random(seed + 1_000_003)
    files = sorted(projects_dir.rglob("*.jsonl"))
    missing = (total_mb << 20) - sum(f.stat().st_size for f in files)
    if not files or missing <= 0:
        return
    pool = " ".join(rng.choice(CODE_WORDS) for _ in range(400_000))
    pool = "\n".join(pool[i:i + 80] for i in range(0, len(pool), 80))
    weights = [rng.lognormvariate(0, 1.2) for _ in files]
    scale = missing / sum(weights)
    for path, weight in zip(files, weights, strict=True):
        stat = path.stat()
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        try:
            first = json.loads(lines[1])
        except (IndexError, ValueError):
            continue
        cwd, session = first.get("cwd", "/"), first.get("sessionId", "")
        wanted, added = int(weight * scale), []
        while wanted > 0:
            size = max(1, min(wanted // 2, rng.choice((2_000, 8_000, 30_000, 120_000))))
            start = rng.randrange(0, len(pool) - size)
            content = pool[start:start + size]
            target = (f"{projects_dir / sanitize(cwd)}/memory/MEMORY.md" if rng.random() < 0.01
                      else f"{cwd}/src/{rng.choice(WORDS)}.py")
            tool = "toolu_" + _uuid(rng)[:12]
            base = {"parentUuid": None, "isSidechain": False, "cwd": cwd, "sessionId": session,
                    "version": "2.1.88", "timestamp": "2026-03-01T10:00:00.000Z"}
            use = json.dumps({**base, "type": "assistant", "uuid": _uuid(rng), "message": {
                "role": "assistant", "content": [{"type": "tool_use", "id": tool, "name": "Read",
                                                  "input": {"file_path": target}}]}}) + "\n"
            result = json.dumps({**base, "type": "user", "uuid": _uuid(rng), "message": {
                "role": "user", "content": [{"tool_use_id": tool, "type": "tool_result",
                                             "content": content}]},
                "toolUseResult": {"type": "text", "file": {"filePath": target,
                                                            "content": content}}}) + "\n"
            added += (use, result)
            wanted -= len(use) + len(result)
        cut = min(3, len(lines))
        path.write_text("".join(lines[:cut] + added + lines[cut:]), encoding="utf-8")
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def generate(root: Path, projects: int, memories: int, seed: int) -> dict:
    rng = random.Random(seed)
    root = Path(os.path.realpath(root))
    home, code = root / "config", root / "code"
    projects_dir = home / "projects"
    projects_dir.mkdir(parents=True)
    code.mkdir(parents=True)
    (home / "settings.json").write_text('{"autoMemoryEnabled": true}\n')
    now = EPOCH + 120 * DAY

    with_store = [i for i in range(projects) if rng.random() < 0.7] or [0]
    counts = dict(zip(with_store, memory_counts(rng, len(with_store), memories), strict=True))
    stats = {"stores": 0, "memory_files": 0, "transcripts": 0, "missing_cwds": 0}
    deleted_worktrees = resting_stores = 0
    for number in range(projects):
        org = ORGS[number % len(ORGS)]
        repo = code / org / f"{rng.choice(WORDS)}-{rng.choice(WORDS)}-{number}"
        role = rng.random()
        store_folder = sanitize(str(repo))
        memory_dir = projects_dir / store_folder / "memory"
        if number in counts:
            write_store(rng, memory_dir, counts[number], now)
            stats["stores"] += 1
            stats["memory_files"] += counts[number]
        if role < 0.07:
            # swept and deleted: a store with transcripts whose cwd is gone
            write_sessions(rng, projects_dir / store_folder, str(repo), str(memory_dir),
                           rng.randint(1, 3), now)
            stats["missing_cwds"] += 1
            continue
        git_checkout(repo)
        (repo / "src").mkdir()
        # A resting store: no transcript left, found by walking the disk. The first store
        # with a checkout rests, so even a small tree has one.
        if number in counts and (role < 0.12 or not resting_stores):
            resting_stores += 1
            continue
        write_sessions(rng, projects_dir / store_folder, str(repo), str(memory_dir),
                       rng.randint(1, 4), now)
        if rng.random() < 0.15:
            sub = repo / "src"
            write_sessions(rng, projects_dir / sanitize(str(sub)), str(sub), str(memory_dir),
                           rng.randint(1, 2), now)
        if rng.random() < 0.1:
            name = f"wt-{number}"
            worktree = code / org / ".worktrees" / name
            if rng.random() < 0.3:  # a deleted worktree: its cwd no longer exists
                # The first has two sessions, and they save memories: even a small tree's
                # evidence search splits, and finds the store they used.
                write_sessions(rng, projects_dir / sanitize(str(worktree)), str(worktree),
                               str(memory_dir), 1 if deleted_worktrees else 2, now,
                               saves=not deleted_worktrees)
                deleted_worktrees += 1
                stats["missing_cwds"] += 1
            else:
                git_worktree(repo, worktree, name)
                write_sessions(rng, projects_dir / sanitize(str(worktree)), str(worktree),
                               str(memory_dir), rng.randint(1, 2), now)
    stats["transcripts"] = sum(1 for _ in projects_dir.rglob("*.jsonl"))
    return stats


def _generated(root: Path, params: dict) -> bool:
    """Whether `root` already holds what `params` generate; if not, it is cleared for them."""
    try:
        if json.loads((root / MANIFEST).read_text())["params"] == params:
            return True
    except (OSError, ValueError, KeyError, TypeError):
        pass
    if root.exists():
        shutil.rmtree(root)
    return False


def ensure(root: Path = DEFAULT_DIR, projects: int = 1000, memories: int = 20000,
           seed: int = 1, quiet: bool = False, transcript_mb: int = 0) -> Path:
    """The config home for these parameters, generated unless the manifest already matches."""
    params = {"version": GENERATOR_VERSION, "projects": projects, "memories": memories,
              "seed": seed}
    if transcript_mb:
        params["transcript_mb"] = transcript_mb
    manifest = root / MANIFEST
    if _generated(root, params):
        return root / "config"
    if not quiet:
        print(f"generating {projects} projects, {memories} memories in {root} ...", file=sys.stderr)
    stats = generate(root, projects, memories, seed)
    if transcript_mb:
        pad_transcripts(root / "config" / "projects", transcript_mb, seed)
    stats["transcript_mb"] = round(sum(
        f.stat().st_size for f in (root / "config" / "projects").rglob("*.jsonl")) / 2**20, 1)
    manifest.write_text(json.dumps({"params": params, "stats": stats}, indent=2) + "\n")
    return root / "config"


HUGE_DIR = Path(__file__).resolve().parent / ".data" / "huge-index"
HUGE_FOLDER = "-home-me-code-huge-index"


def ensure_huge_index(root: Path = HUGE_DIR, megabytes: int = 50, memories: int = 300,
                      seed: int = 1, quiet: bool = False) -> Path:
    """A config home with one store whose MEMORY.md is `megabytes` MB: index lines in the
    real shape (`- [Title](file.md) — hook`, of 40 to 300 characters) linking
    the store's memories first, then files that do not exist. Its memory dir is
    `<config>/projects/HUGE_FOLDER/memory`; the same seed gives the same bytes."""
    params = {"version": GENERATOR_VERSION, "megabytes": megabytes, "memories": memories,
              "seed": seed}
    manifest = root / MANIFEST
    if _generated(root, params):
        return root / "config"
    if not quiet:
        print(f"generating a {megabytes} MB MEMORY.md in {root} ...", file=sys.stderr)
    rng = random.Random(seed)
    store = root / "config" / "projects" / HUGE_FOLDER / "memory"
    store.mkdir(parents=True)
    files = []
    words = bodies.StoreWords(rng)
    for number in range(memories):
        kind = rng.choice(TYPES)
        name = f"{kind}_{_words(rng, 2).replace(' ', '_')}_{number}"
        files.append(f"{name}.md")
        _write(store / f"{name}.md", memory_text(rng, name, kind, _words(rng, 8), words, []),
               EPOCH)
    pool = _words(rng, 100_000).split()  # drawn once: 50 MB of lines are sliced from it
    lines, size, number = [], 0, 0
    while size < megabytes << 20:
        target = files[number] if number < len(files) else f"topic_{number}.md"
        start, count = rng.randrange(len(pool) - 50), rng.randint(4, 40)
        title = " ".join(pool[start:start + 3]).title()
        line = f"- [{title}]({target}) — {' '.join(pool[start + 3:start + 3 + count])}"
        lines.append(line)
        size += len(line.encode()) + 1
        number += 1
    _write(store / "MEMORY.md", "\n".join(lines) + "\n", EPOCH)
    manifest.write_text(json.dumps({"params": params, "stats": {"lines": len(lines)}}) + "\n")
    return root / "config"


ONE_STORE_DIR = Path(__file__).resolve().parent / ".data" / "one-store"


def ensure_one_store(memories: int, root: Path | None = None, seed: int = 1,
                     quiet: bool = False) -> Path:
    """A config home holding one store of `memories` memories written by `write_store` (the
    heavy tree's shape: 8% unindexed, the rest indexed, most of it past the loaded cut, some
    links dangling), its project a checkout with a session. Returns the memory dir.

    The one memory in ~500 that `write_store` writes in Latin-1 is written in UTF-8 here:
    `fix shorten` refuses a whole store when a memory it would keep a hook in is not UTF-8,
    and a benchmark of a refusal would time nothing."""
    root = root or ONE_STORE_DIR / str(memories)
    params = {"version": GENERATOR_VERSION, "memories": memories, "seed": seed, "utf8": True}
    repo = Path(os.path.realpath(root)) / "code" / "big-store"
    memory_dir = root / "config" / "projects" / sanitize(str(repo)) / "memory"
    if _generated(root, params):
        return memory_dir
    if not quiet:
        print(f"generating one store of {memories} memories in {root} ...", file=sys.stderr)
    rng = random.Random(seed)
    now = EPOCH + 120 * DAY
    git_checkout(repo)
    write_store(rng, memory_dir, memories, now)
    for path in memory_dir.glob("*.md"):
        data = path.read_bytes()
        try:
            data.decode()
        except UnicodeDecodeError:
            status = path.stat()
            path.write_bytes(data.decode("latin-1").encode())
            os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))
    write_sessions(rng, memory_dir.parent, str(repo), str(memory_dir), 1, now)
    (root / MANIFEST).write_text(json.dumps({"params": params, "stats": {
        "memory_files": memories}}) + "\n")
    return memory_dir


TEMPLATE_DIR = Path(__file__).resolve().parent / ".data" / "template-50k"


def ensure_template_store(root: Path = TEMPLATE_DIR, memories: int = 50_000,
                          vocabulary: int = 100, seed: int = 1, quiet: bool = False) -> Path:
    """A config home whose one store holds `memories` template-made notes, every word of
    them drawn from `vocabulary` words: real stores hold hundreds of
    `Contacts/Contractors/<id> - <NAME>.md` made from one template. No word is rare, so
    every note shares its rarest words with thousands of others (the near-duplicate search's
    worst case). Returns the config home; the same seed gives the same bytes."""
    params = {"version": GENERATOR_VERSION, "memories": memories, "vocabulary": vocabulary,
              "seed": seed}
    if _generated(root, params):
        return root / "config"
    if not quiet:
        print(f"generating a store of {memories} notes from {vocabulary} words in {root} ...",
              file=sys.stderr)
    rng = random.Random(seed)
    home = root / "config"
    repo = root / "code" / "contacts-crm"
    git_checkout(repo)
    store = home / "projects" / sanitize(str(repo)) / "memory"
    write_sessions(rng, store.parent, str(repo), str(store), 1, EPOCH)
    words = bodies.ENGLISH[:vocabulary]
    fields = ("Role", "Company", "Rate", "Skills", "Notes", "Last contact")
    index = ["# Contacts", ""]
    for number in range(memories):
        name = f"{number:05d} - {' '.join(rng.sample(words, 2)).upper()}"
        file = f"Contacts/{rng.choice(('Contractors', 'Clients', 'Vendors'))}/{name}.md"
        lines = [f"{field}: {' '.join(rng.choices(words, k=rng.randint(2, 12)))}"
                 for field in fields]
        text = (f"---\nname: {name}\ndescription: {' '.join(rng.choices(words, k=8))}\n"
                f"type: reference\n---\n\n" + "\n".join(lines) + "\n")
        (store / file).parent.mkdir(parents=True, exist_ok=True)
        _write(store / file, text, EPOCH - rng.randint(0, 400) * DAY)
        if number < 150:
            index.append(f"- [{name}]({file.replace(' ', '%20')}) — {rng.choice(words)}")
    _write(store / "MEMORY.md", "\n".join(index) + "\n", EPOCH)
    (root / MANIFEST).write_text(json.dumps({"params": params, "stats": {
        "memory_files": memories}}) + "\n")
    return home


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", nargs="?", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--projects", type=int, default=1000)
    parser.add_argument("--memories", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--transcript-mb", type=int, default=0,
                        help="grow the transcripts to about this many MB in all")
    args = parser.parse_args(argv)
    home = ensure(args.dir, args.projects, args.memories, args.seed,
                  transcript_mb=args.transcript_mb)
    print(json.loads((args.dir / MANIFEST).read_text())["stats"])
    print(f"CLAUDE_CONFIG_DIR={home}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
