"""Malformed config homes: the faults a memory store and its transcripts meet on real disks
(written by models, editors, sync clients and other tools), alone or in random combinations.

A home is a healthy base (a project whose checkout exists, a deleted worktree mapped by its
memory writes, a store with an index and a few memories, a settings file) with faults laid
on top. `tests/test_hostile_homes.py` runs the CLI on a few dozen of them;
`scripts/fuzz_homes.py` on hundreds. Stdlib only, so the script needs no test dependency.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import stat
import sys
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tui.claude import paths

SESSION_TIME = "2026-01-02T03:04:05.000Z"


@dataclass
class HostileHome:
    """The places of one generated home, and the faults laid on it."""

    root: Path
    rng: random.Random
    faults: list[str] = field(default_factory=list)

    @property
    def home(self) -> Path:
        return self.root / "claude"

    @property
    def projects(self) -> Path:
        return self.home / "projects"

    @property
    def code(self) -> Path:
        return self.root / "code"

    @property
    def checkout(self) -> Path:
        return self.code / "proj"

    @property
    def store_folder(self) -> Path:
        return self.projects / paths.sanitize(str(self.checkout))

    @property
    def store(self) -> Path:
        return self.store_folder / paths.MEMORY_DIR_NAME

    @property
    def gone_folder(self) -> Path:
        """The transcript folder of a deleted worktree of the checkout."""
        return self.projects / paths.sanitize(str(self.code / "proj-wt"))

    @property
    def config_toml(self) -> Path:
        return self.root / "memtui" / "config" / "config.toml"

    @property
    def cache(self) -> Path:
        return self.root / "memtui" / "cache"

    @property
    def env(self) -> dict[str, str]:
        """The environment a CLI run on this home gets: nothing of the real user's."""
        env = {key: value for key, value in os.environ.items()
               if not key.startswith(("CLAUDE_", "ANTHROPIC_", "MEMTUI_", "XDG_"))}
        env.update({
            "CLAUDE_CONFIG_DIR": str(self.home),
            "HOME": str(self.root / "user"),
            "MEMTUI_DATA_DIR": str(self.root / "memtui" / "data"),
            "MEMTUI_STATE_DIR": str(self.root / "memtui" / "state"),
            "MEMTUI_CACHE_DIR": str(self.cache),
            "MEMTUI_CONFIG_DIR": str(self.config_toml.parent),
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "memtui", "GIT_AUTHOR_EMAIL": "memtui@invalid",
            "GIT_COMMITTER_NAME": "memtui", "GIT_COMMITTER_EMAIL": "memtui@invalid",
        })
        return env

    def transcript(self, folder: Path, lines: list[bytes | dict], name: str | None = None) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / (name or f"{uuid.UUID(int=self.rng.getrandbits(128))}.jsonl")
        path.write_bytes(b"".join(
            line if isinstance(line, bytes) else json.dumps(line).encode() + b"\n"
            for line in lines
        ))
        return path

    def memory_path(self, file: str) -> str:
        return f"{self.store}/{file}"


def build_base(root: Path, seed: int) -> HostileHome:
    """A healthy home: the faults need something to break."""
    home = HostileHome(root, random.Random(seed))
    home.projects.mkdir(parents=True)
    (home.root / "user").mkdir()
    home.config_toml.parent.mkdir(parents=True)
    (home.checkout / ".git").mkdir(parents=True)
    home.store.mkdir(parents=True)
    memories = {
        "user_role.md": "---\nname: user_role\ndescription: the user's role\ntype: user\n---\n\n"
                        "Backend engineer.\n",
        "feedback_tests.md": "---\nname: feedback_tests\ndescription: run the suite\nmetadata:\n"
                             "  type: feedback\n  node_type: memory\n---\n\nRun all tests.\n"
                             "**Why:** it caught bugs.\n**How to apply:** always.\n",
        "project_notes.md": "Old store: no frontmatter, content here.\n",
    }
    for file, text in memories.items():
        (home.store / file).write_text(text, encoding="utf-8")
    (home.store / paths.INDEX_NAME).write_text(
        "- [Role](user_role.md) — who the user is\n- [Tests](feedback_tests.md) — run them\n",
        encoding="utf-8",
    )
    cwd = str(home.checkout)
    write = home.memory_path("user_role.md")
    home.transcript(home.store_folder, [
        {"type": "file-history-snapshot", "messageId": "m", "snapshot": {}},
        _user(cwd, "hello"),
        _user(cwd, "", toolUseResult={"type": "create", "filePath": write, "content": "a\nb\n",
                                      "structuredPatch": [], "originalFile": None}),
        _user(cwd, "", toolUseResult={"filePath": write, "oldString": "a", "newString": "c",
                                      "originalFile": "a\nb\n", "structuredPatch": []}),
        {"type": "system", "subtype": "memory_saved", "writtenPaths": [write]},
    ])
    gone = str(home.code / "proj-wt")
    home.transcript(home.gone_folder, [
        _user(gone, "hi"),
        _user(gone, "", toolUseResult={"type": "update", "filePath": home.memory_path("x.md"),
                                       "content": "x\n", "structuredPatch": [],
                                       "originalFile": "y\n"}),
        {"type": "worktree-state", "worktreeSession": {"originalCwd": cwd, "worktreePath": gone}},
    ])
    (home.home / "settings.json").write_text('{"autoMemoryEnabled": true}\n')
    return home


def _user(cwd: object, text: str, **extra) -> dict:
    record = {"type": "user", "uuid": str(uuid.uuid4()), "parentUuid": None,
              "sessionId": str(uuid.uuid4()), "timestamp": SESSION_TIME, "cwd": cwd,
              "message": {"role": "user", "content": text}}
    record.update(extra)
    return record


# --- the faults ---------------------------------------------------------------------------
# Each takes the home and lays one fault on it. Names are what a failure report shows.

Fault = Callable[[HostileHome], None]
FAULTS: dict[str, Fault] = {}
# Faults that only bite without root's permission bypass (see `drop_root_bypass`).
PERMISSION_FAULTS: set[str] = set()


def fault(name: str, *, permissions: bool = False) -> Callable[[Fault], Fault]:
    def register(function: Fault) -> Fault:
        FAULTS[name] = function
        if permissions:
            PERMISSION_FAULTS.add(name)
        return function
    return register


def _replace(path: Path) -> Path:
    """Clear the place for a fault's file, whatever an earlier fault left there."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif os.path.lexists(path):
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def _put(path: Path, data: str | bytes) -> None:
    """A fault's file, written over what is there: never into a FIFO an earlier fault made
    (an open for writing waits for a reader forever)."""
    _replace(path).write_bytes(data if isinstance(data, bytes) else data.encode())


def _fifo(path: Path) -> None:
    os.mkfifo(_replace(path))


def _socket(path: Path) -> None:
    os.mknod(_replace(path), 0o600 | stat.S_IFSOCK)


def _link(path: Path, target: str) -> None:
    os.symlink(target, _replace(path))


@fault("fifo MEMORY.md")
def _(h): _fifo(h.store / "MEMORY.md")
@fault("fifo memory file")
def _(h): _fifo(h.store / "x.md")
@fault("fifo in subfolder")
def _(h): _fifo(h.store / "topics" / "deep.md")
@fault("fifo .consolidate-lock")
def _(h): _fifo(h.store / paths.LOCK_NAME)
@fault("socket memory file")
def _(h): _socket(h.store / "s.md")
@fault("socket MEMORY.md")
def _(h): _socket(h.store / "MEMORY.md")
@fault("MEMORY.md -> /dev/zero")
def _(h): _link(h.store / "MEMORY.md", "/dev/zero")
@fault("memory -> /dev/zero")
def _(h): _link(h.store / "zero.md", "/dev/zero")
@fault("memory -> /dev/urandom")
def _(h): _link(h.store / "random.md", "/dev/urandom")
@fault("memory -> /dev/null")
def _(h): _link(h.store / "null.md", "/dev/null")
@fault("fifo session transcript")
def _(h): _fifo(h.store_folder / f"{uuid.UUID(int=7)}.jsonl")
@fault("fifo subagent transcript")
def _(h): _fifo(h.store_folder / str(uuid.UUID(int=8)) / "subagents" / "agent-a1.jsonl")
@fault("subagent transcript -> /dev/zero")
def _(h): _link(h.store_folder / str(uuid.UUID(int=9)) / "subagents" / "agent-z.jsonl", "/dev/zero")
@fault("old subagent transcript -> /dev/zero")
def _(h): _link(h.store_folder / "agent-old.jsonl", "/dev/zero")
@fault("fifo settings.json")
def _(h): _fifo(h.home / "settings.json")
@fault("fifo config.toml")
def _(h): _fifo(h.config_toml)


@fault("symlink loops in store")
def _(h):
    for number in range(1, 4):
        os.symlink(".", h.store / f"loop{number}")
    (h.store / "topics").mkdir(exist_ok=True)
    os.symlink("..", h.store / "topics" / "up")


@fault("symlink loop in projects")
def _(h):
    os.symlink(".", h.projects / "loop1")
    os.symlink("..", h.projects / "loop2")


@fault("memory symlink to itself")
def _(h): _link(h.store / "self.md", "self.md")
@fault("broken symlink memory")
def _(h): _link(h.store / "gone.md", "nowhere/gone.md")
@fault("MEMORY.md is a directory")
def _(h): _replace(h.store / "MEMORY.md").mkdir()
@fault("memory file is a directory")
def _(h): _replace(h.store / "dir.md").mkdir()
@fault("memory dir is a file")
def _(h): _put(h.store, "not a dir\n")
@fault("memory dir is a fifo")
def _(h): _fifo(h.store)
@fault("projects is a file")
def _(h): _put(h.projects, "x")
@fault("deep store")
def _(h):
    folder = h.store
    for number in range(60):
        folder = folder / f"d{number}"
    folder.mkdir(parents=True)
    _put(folder / "deep.md", "---\nname: deep\n---\n")


@fault("comment bomb index")
def _(h): _put(h.store / "MEMORY.md", "<!--" * 50_000)
@fault("unclosed comment index")
def _(h): _put(h.store / "MEMORY.md", "<!-- x\n" + "- [a](a.md) — a\n" * 20_000)
@fault("binary MEMORY.md")
def _(h): _put(h.store / "MEMORY.md", _binary(h.rng, 20_000))
@fault("non-UTF-8 MEMORY.md")
def _(h): _put(h.store / "MEMORY.md", "- [Café](user_role.md) - été\n".encode("latin-1"))
@fault("escape sequences in index")
def _(h): _put(h.store / "MEMORY.md", "- [\x1b[2J\x1b]0;pwned\x07](user_role.md) — \x9b31m\n")
@fault("huge index line")
def _(h): _put(h.store / "MEMORY.md", "- [a](user_role.md) " + "x" * 3_000_000 + "\n")
@fault("index of 300k lines")
def _(h): _put(h.store / "MEMORY.md", "- [a](user_role.md) — a\n" * 300_000)
@fault("index of 100k links")
def _(h): _put(h.store / "MEMORY.md", "[a](a.md)" * 100_000)
@fault("index with brackets")
def _(h): _put(h.store / "MEMORY.md", "[" * 100_000 + "](" * 50_000 + "`" * 30_000)


@fault("yaml error and a 200 KB value")
def _(h):
    _put((h.store / "big.md"),
        "---\nname: a: b\ndescription: " + "x" * 200_000 + "\ntype: [\n---\nbody\n")


@fault("yaml alias bomb")
def _(h):
    text = ["---", "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for level in range(1, 10):
        text.append(f"a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * 9) + "]")
    text.append("description: *a9")
    _put(h.store / "bomb.md", "\n".join(text) + "\n---\nbody\n")


@fault("deeply nested yaml")
def _(h): _put(h.store / "deep.md", "---\ndescription: " + "[" * 100_000 + "\n---\n")
@fault("deeply nested block yaml")
def _(h):
    lines = [" " * depth + "- x:" for depth in range(0, 2_000)]
    _put(h.store / "deep2.md", "---\n" + "\n".join(lines[:29]) + "\n---\n")


@fault("frontmatter of odd types")
def _(h):
    _put((h.store / "odd.md"),
        "---\nname: [1, {a: b}]\ndescription: {x: [1, 2]}\ntype: 5\nmetadata: [x]\n---\nbody\n")


@fault("frontmatter numbers past limits")
def _(h):
    _put((h.store / "num.md"),
        f"---\nname: {'9' * 5000}\ndescription: 0x{'f' * 5000}\ntype: 1e99999\n---\n")


@fault("NUL and controls in memory")
def _(h):
    _put(h.store / "nul.md", b"---\nname: a\x00b\ndescription: \x1b[31mred\x07\n---\n\x00\x00")


@fault("encoded surrogates in memory")
def _(h): _put(h.store / "sur.md", b"---\nname: \xed\xa0\x80\n---\n\xed\xb0\x80 body\n")
@fault("binary memory")
def _(h): _put(h.store / "bin.md", _binary(h.rng, 50_000))
@fault("memory of one 5 MB line")
def _(h): _put(h.store / "long.md", "---\nname: " + "y" * 5_000_000)
@fault("memory file name with escapes")
def _(h): _put(h.store / "\x1b[2Jname\x07.md", "---\nname: x\n---\n")
@fault("memory file name not UTF-8")
def _(h): _put(Path(os.fsdecode(os.fsencode(h.store) + b"/caf\xe9.md")), "---\nname: x\n---\n")


@fault("consolidate lock of 5,000 digits")
def _(h): _put(h.store / paths.LOCK_NAME, "7" * 5000)
@fault("consolidate lock binary")
def _(h): _put(h.store / paths.LOCK_NAME, _binary(h.rng, 3000))


@fault("transcript cwd with a lone surrogate")
def _(h): h.transcript(h.projects / "-weird", [b'{"type":"user","cwd":"/tmp/\\ud800x"}\n'])
@fault("transcript cwd with NUL")
def _(h): h.transcript(h.projects / "-nul", [b'{"type":"user","cwd":"/tmp/a\\u0000b"}\n'])
@fault("transcript cwd of odd types")
def _(h):
    h.transcript(h.projects / "-types", [_user(5, ""), _user(["a"], ""), _user({"a": 1}, ""),
                                         _user(None, ""), _user("", "")])


@fault("transcript cwd long and not UTF-8")
def _(h):
    long_dir = os.fsencode(h.code) + b"/" + b"d" * 180 + b"\xff" + b"e" * 40
    os.makedirs(long_dir)
    cwd = os.fsdecode(long_dir)
    h.transcript(h.projects / paths.sanitize(cwd), [
        b'{"type":"user","cwd":' + json.dumps(cwd).encode() + b"}\n"])


@fault("project folder not UTF-8")
def _(h):
    folder = os.fsencode(h.projects) + b"/-bad\xff\xfename"
    os.makedirs(folder + b"/memory")
    with open(folder + b"/memory/MEMORY.md", "wb") as out:
        out.write(b"- [a](a.md) \xff\n")
    with open(folder + b"/memory/a\xff.md", "wb") as out:
        out.write(b"---\nname: a\n---\n")
    with open(folder + b"/" + str(uuid.UUID(int=3)).encode() + b".jsonl", "wb") as out:
        out.write(b'{"type":"user","cwd":"/nowhere/bad\\udcff"}\n')


@fault("project folder long and not UTF-8")
def _(h):
    folder = os.fsencode(h.projects) + b"/-" + b"x" * 205 + b"\xff"
    os.makedirs(folder + b"/memory")
    with open(folder + b"/memory/m.md", "wb") as out:
        out.write(b"---\nname: m\n---\n")


@fault("toolUseResult of odd types")
def _(h):
    path = h.memory_path("user_role.md")
    results = [{"type": {"a": 1}, "filePath": path, "structuredPatch": []},
               {"type": ["create"], "filePath": path}, {"type": "create", "filePath": [path]},
               {"type": "text", "file": {"filePath": path, "content": 5, "startLine": {}}},
               {"type": "text", "file": {"filePath": path, "content": "x", "startLine": [],
                                         "numLines": {}, "totalLines": []}},
               {"type": "create", "filePath": path, "content": {"a": 1}, "originalFile": [1]}]
    h.transcript(h.store_folder, [_user(str(h.checkout), "", toolUseResult=r) for r in results])


@fault("Edit result with edits [5]")
def _(h):
    path = h.memory_path("user_role.md")
    h.transcript(h.store_folder, [
        _user(str(h.checkout), "", toolUseResult={"filePath": path, "edits": [5],
                                                  "originalFile": "a\nb\n"}),
        _user(str(h.checkout), "", toolUseResult={"filePath": path, "edits": [None, "x", []],
                                                  "originalFile": "a"}),
        _user(str(h.checkout), "", toolUseResult={"filePath": path, "edits": {"a": 1},
                                                  "originalFile": "a"}),
        _user(str(h.checkout), "", toolUseResult={"filePath": path, "oldString": ["a"],
                                                  "newString": 5, "originalFile": "a"}),
    ])


@fault("lone surrogates in write results")
def _(h):
    path = h.memory_path("user_role.md").encode()
    h.transcript(h.store_folder, [
        b'{"type":"user","sessionId":"\\ud800","timestamp":"\\udfff","cwd":"/x",'
        b'"toolUseResult":{"type":"update","filePath":"' + path +
        b'","content":"a\\ud800b","originalFile":"\\udc00"}}\n',
        b'{"type":"system","subtype":"memory_saved","writtenPaths":["' + path + b'\\ud800", 5]}\n',
    ])


@fault("deeply nested transcript line")
def _(h):
    h.transcript(h.store_folder, [b'{"cwd":"/memory/","a":' + b"[" * 200_000 + b"\n",
                                  b'{"x":' * 100_000 + b"\n"])


@fault("transcript of one 8 MB line")
def _(h): h.transcript(h.store_folder, [b'{"type":"user","cwd":"' + b"/memory/" * 1_000_000 + b'"}\n'])
@fault("transcript not UTF-8")
def _(h): h.transcript(h.store_folder, [_binary(h.rng, 30_000), b'{"cwd":"\xff\xfe/memory/"}\n'])
@fault("transcript numbers past limits")
def _(h): h.transcript(h.store_folder, [b'{"type":"user","cwd":' + b"9" * 5000 + b',"x":1e999}\n'])


@fault("worktree-state of odd types")
def _(h):
    h.transcript(h.gone_folder, [
        {"type": "worktree-state", "worktreeSession": {"originalCwd": 5}},
        {"type": "worktree-state", "worktreeSession": [1]},
        b'{"type":"worktree-state","worktreeSession":{"originalCwd":"/a\\u0000b"}}\n',
        b'{"type":"worktree-state","worktreeSession":{"originalCwd":"/a\\ud800"}}\n',
    ])


@fault("transcript folder is a symlink loop")
def _(h): _link(h.projects / "-looped", "-looped")
@fault("transcript is a directory")
def _(h): (h.store_folder / f"{uuid.UUID(int=11)}.jsonl").mkdir()


@fault("settings.json not UTF-8")
def _(h): _put(h.home / "settings.json", b'{"autoMemoryDirectory": "/tmp/\xff"}')
@fault("settings.json deeply nested")
def _(h): _put(h.home / "settings.json", "[" * 100_000)
@fault("settings.json of odd types")
def _(h): _put(h.home / "settings.json", '{"autoMemoryDirectory": ["x"], "autoMemoryEnabled": {}}')
@fault("settings.json memory dir with NUL")
def _(h): _put(h.home / "settings.json", '{"autoMemoryDirectory": "/tmp/a\\u0000b"}')
@fault("settings.json memory dir with a surrogate")
def _(h): _put(h.home / "settings.json", '{"autoMemoryDirectory": "/tmp/\\ud800"}')
@fault("settings.json is a directory")
def _(h): _replace(h.home / "settings.json").mkdir()
@fault("project settings deeply nested")
def _(h):
    (h.checkout / ".claude").mkdir(exist_ok=True)
    _put(h.checkout / ".claude" / "settings.local.json", '{"a":' * 100_000)
    _put(h.checkout / ".claude" / "settings.json", b"\xff\xfe" + b"\x00" * 100)


@fault("config.toml not UTF-8")
def _(h): _put(h.config_toml, b'[anthropic]\nmodel = "\xff\xfe"\n')
@fault("config.toml deeply nested")
def _(h): _put(h.config_toml, "x = " + "[" * 100_000)
@fault("config.toml of odd types")
def _(h): _put(h.config_toml, 'anthropic = 5\n[x]\ntimeout = [1]\n')
@fault("config.toml odd timeout")
def _(h): _put(h.config_toml, f'[anthropic]\ntimeout = {"9" * 400}.0\nmodel = 5\n')


@fault(".git file pointing at a fifo")
def _(h):
    _replace(h.checkout / ".git")
    gitdir = h.code / "real.git" / "worktrees" / "proj"
    gitdir.mkdir(parents=True)
    os.mkfifo(gitdir / "commondir")
    os.mkfifo(gitdir / "gitdir")
    _put(h.checkout / ".git", f"gitdir: {gitdir}\n")


@fault(".git file with NUL")
def _(h):
    _replace(h.checkout / ".git")
    _put(h.checkout / ".git", b"gitdir: /tmp/a\x00b\n")


@fault(".git file huge")
def _(h):
    _replace(h.checkout / ".git")
    _put(h.checkout / ".git", b"gitdir: " + b"a/" * 3_000_000)


@fault(".git is a fifo")
def _(h):
    _replace(h.checkout / ".git")
    os.mkfifo(h.checkout / ".git")


@fault("caches of garbage")
def _(h):
    h.cache.mkdir(parents=True, exist_ok=True)
    _put(h.cache / "transcript-evidence.json", json.dumps(
        {str(p): [p.stat().st_size, p.stat().st_mtime_ns, 5, {"a": 1}]
         for p in h.projects.rglob("*.jsonl")}))
    from importlib.metadata import version

    for name in ("audits.sqlite", "transcript-scan.sqlite",
                 f"secret-rules-{version('detect-secrets')}.json"):
        _put(h.cache / name, _binary(h.rng, 5000))


@fault("cache files that are folders and fifos")
def _(h):
    from importlib.metadata import version

    h.cache.mkdir(parents=True, exist_ok=True)
    folders = (f"discovery{paths.sanitize(os.path.abspath(h.home))}.json", "audits.sqlite")
    fifos = ("transcript-evidence.json", "transcript-scan.sqlite",
             f"secret-rules-{version('detect-secrets')}.json")
    for name in folders:
        (h.cache / name).mkdir()
    for name in fifos:
        os.mkfifo(h.cache / name)


@fault("unreadable memory file", permissions=True)
def _(h): os.chmod(h.store / "user_role.md", 0)
@fault("unreadable MEMORY.md", permissions=True)
def _(h): os.chmod(h.store / "MEMORY.md", 0)
@fault("unreadable memory dir", permissions=True)
def _(h): os.chmod(h.store, 0)
@fault("memory dir not searchable", permissions=True)
def _(h): os.chmod(h.store, 0o644)
@fault("unreadable subfolder", permissions=True)
def _(h):
    (h.store / "topics").mkdir(exist_ok=True)
    _put(h.store / "topics" / "t.md", "x")
    os.chmod(h.store / "topics", 0)


@fault("unreadable transcript folder", permissions=True)
def _(h): os.chmod(h.gone_folder, 0)
@fault("transcript folder not searchable", permissions=True)
def _(h): os.chmod(h.store_folder, 0o644)
@fault("unreadable transcript", permissions=True)
def _(h):
    for transcript in h.store_folder.glob("*.jsonl"):
        os.chmod(transcript, 0)


@fault("unreadable projects folder", permissions=True)
def _(h): os.chmod(h.projects, 0)
@fault("unreadable settings.json", permissions=True)
def _(h): os.chmod(h.home / "settings.json", 0)
@fault("unreadable config.toml", permissions=True)
def _(h):
    _put(h.config_toml, "[anthropic]\n")
    os.chmod(h.config_toml, 0)


@fault("unreadable cache dir", permissions=True)
def _(h):
    h.cache.mkdir(parents=True, exist_ok=True)
    os.chmod(h.cache, 0)


def _binary(rng: random.Random, size: int) -> bytes:
    """Bytes of a binary file: NULs, escapes, bells, invalid UTF-8."""
    pieces = [b"\x00", b"\x1b[2J", b"\x1b]0;title\x07", b"\x07", b"\xff\xfe", b"\x9b", b"\n",
              b"PK\x03\x04", b"\xed\xa0\x80"]
    out = bytearray()
    while len(out) < size:
        out += rng.choice(pieces) if rng.random() < 0.3 else bytes([rng.randrange(256)])
    return bytes(out)


def build(root: Path, seed: int, faults: list[str]) -> HostileHome:
    """A home with these faults, in this order. A fault that an earlier one leaves no place
    for (a transcript when `projects` is a file) is left out of `faults`: that combination
    cannot exist on a disk."""
    home = build_base(root, seed)
    for name in faults:
        try:
            FAULTS[name](home)
        except OSError:
            if not home.faults:
                raise
            continue
        home.faults.append(name)
    return home


def random_faults(rng: random.Random, can_deny: bool) -> list[str]:
    """Two to five faults, drawn without repeats."""
    names = sorted(name for name in FAULTS if can_deny or name not in PERMISSION_FAULTS)
    return rng.sample(names, rng.randint(2, 5))


def homes(count: int, seed: int, can_deny: bool) -> list[tuple[int, list[str]]]:
    """(seed, faults) of `count` homes: every single fault first, then random combinations."""
    singles = [name for name in FAULTS if can_deny or name not in PERMISSION_FAULTS]
    rng = random.Random(seed)
    plans = [(seed + number, [name]) for number, name in enumerate(singles)]
    while len(plans) < count:
        plans.append((seed + len(plans), random_faults(rng, can_deny)))
    return plans[:count] if count >= len(singles) else plans


def make_writable(root: Path) -> None:
    """Give back every permission a fault took away, so the home can be deleted."""
    for folder, dirs, files in os.walk(root, topdown=True):
        for name in dirs + files:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                try:
                    os.chmod(path, 0o700 if os.path.isdir(path) else 0o600)
                except OSError:
                    pass
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]


# Read commands, with TARGET standing for the home's store.
READ_COMMANDS = [
    ["projects"], ["projects", "--json"], ["audit", "--all"], ["audit", "--all", "--json"],
    ["index", "TARGET", "--loaded"], ["index", "TARGET"], ["audit", "TARGET"],
    ["audit", "TARGET", "--json"], ["overwrites", "TARGET"], ["overwrites", "TARGET", "--json"],
    ["history", "backfill", "TARGET"], ["dream", "TARGET", "--dry-run", "--engine", "offline"],
    ["undo", "TARGET", "--list"], ["doctor", "TARGET"], ["doctor", "TARGET", "--json"],
    ["fix", "TARGET", "relink", "--dry-run"], ["fix", "TARGET", "dangling", "--dry-run"],
    ["fix", "TARGET", "shorten", "--dry-run"], ["fix", "TARGET", "redact", "--dry-run"],
    ["search", "the"], ["search", "memory", "--project", "TARGET", "--json"],
]


def command_line(home: HostileHome, command: list[str]) -> list[str]:
    words = [str(home.store) if word == "TARGET" else word for word in command]
    return [sys.executable, "-m", "tui", *words]


def drop_root_bypass() -> None:
    """For a child process run by root: give up the capabilities that skip permission checks
    (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH), so unreadable files are unreadable to it too."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    pr_capbset_drop = 24
    for capability in (1, 2):
        if libc.prctl(pr_capbset_drop, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")


def can_deny_permissions() -> bool:
    """Whether permission faults can be tested here (not root, or root able to drop them)."""
    return os.geteuid() != 0 or sys.platform == "linux"


# Faults whose files are megabytes: the full run takes them, the in-suite sample does not.
HEAVY_FAULTS = {"huge index line", "index of 300k lines", "index of 100k links",
                "index with brackets", "memory of one 5 MB line", "transcript of one 8 MB line",
                "deeply nested transcript line", ".git file huge"}

# Runs CLI commands one after another in one interpreter (the imports are paid once), each
# on a stdout and stderr that encode strictly like a real terminal's, and reports
# [exit code, printed a traceback] per command as JSON on its own stdout.
IN_PROCESS_RUNNER = """
import contextlib, io, json, sys, traceback
from tui import cli
results = []
for argv in json.loads(sys.argv[1]):
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(argv)
        out.flush(); err.flush()
        printed = out.buffer.getvalue() + err.buffer.getvalue()
        results.append([code, b"Traceback" in printed])
    except BaseException:
        results.append([None, True])
        print(traceback.format_exc(), file=sys.stderr)
print(json.dumps(results))
"""


def in_process_command(home: HostileHome, commands: list[list[str]]) -> list[str]:
    words = [[str(home.store) if word == "TARGET" else word for word in command]
             for command in commands]
    return [sys.executable, "-c", IN_PROCESS_RUNNER, json.dumps(words)]
