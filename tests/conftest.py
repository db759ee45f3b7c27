"""Shared fixtures: a throw-away config home, a git identity, and builders for memory files,
indexes and transcripts in the shapes Claude Code writes them."""

from __future__ import annotations

import json
import os
import resource
import socket
import tempfile
import threading
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from waiting import PATIENCE

from tui.claude import paths

# The real Claude Code transcripts beside the repository (read only, never copied in); a
# checkout elsewhere (a worktree in /tmp) names them with MEMTUI_SHARED_TRANSCRIPTS.
SHARED_TRANSCRIPTS = Path(os.environ.get("MEMTUI_SHARED_TRANSCRIPTS") or Path(__file__).resolve()
                          .parent.parent.parent / "shared" / "data" / "claude-transcripts")

# Hypothesis's timing checks (200 ms for each example, a limit on slow data generation) judge
# the machine, not the code: a loaded one trips them.
settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("suite")

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Memtui Tests",
    "GIT_AUTHOR_EMAIL": "tests@memtui.invalid",
    "GIT_COMMITTER_NAME": "Memtui Tests",
    "GIT_COMMITTER_EMAIL": "tests@memtui.invalid",
}
NETWORK_VARIABLES = ("ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL", "CLAUDE_CODE_OAUTH_TOKEN",
                     "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY",
                     "all_proxy", "NO_PROXY", "no_proxy")
_CLAUDE_ENV = (
    "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE",
    "CLAUDE_CODE_REMOTE_MEMORY_DIR",
    "CLAUDE_CODE_PROJECT_DIR_NAME",
    "CLAUDE_CODE_DISABLE_AUTO_MEMORY",
)


def pytest_xdist_auto_num_workers(config) -> int:
    """Two workers per core for `-n auto`: a third of a worker's time is spent waiting on git,
    a terminal or a child process, and a second worker on the core uses it."""
    return 2 * len(os.sched_getaffinity(0))


def isolate_git(patch: pytest.MonkeyPatch) -> None:
    """git with the tests' identity, and neither the user's config nor the system's."""
    for name, value in GIT_IDENTITY.items():
        patch.setenv(name, value)
    patch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    patch.setenv("GIT_CONFIG_NOSYSTEM", "1")


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory, monkeypatch):
    """No test sees the user's config home, memory overrides or git identity."""
    for name in _CLAUDE_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path_factory.mktemp("no-config-home")))
    isolate_git(monkeypatch)
    # memtui's own journal, backups, caches and config never land in the user's XDG dirs,
    # and no test talks to the Anthropic API with the user's key.
    places = tmp_path_factory.mktemp("memtui-dirs")
    for name in ("MEMTUI_DATA_DIR", "MEMTUI_CACHE_DIR", "MEMTUI_STATE_DIR", "MEMTUI_CONFIG_DIR"):
        monkeypatch.setenv(name, str(places / name.removeprefix("MEMTUI_").lower()))
    # A temp dir of its own, here and in the processes it starts: a run's store copy there is
    # named after its process, and a killed run's copy left by a test running beside this
    # one would otherwise be this test's to recover.
    scratch = tmp_path_factory.mktemp("tmp")
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    # Nor with the user's endpoint, model or proxy: the fake servers listen on 127.0.0.1, and
    # the doctor's report (and the store screen's line) must not depend on the machine.
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", *NETWORK_VARIABLES):
        monkeypatch.delenv(name, raising=False)
    # Nor does a sentence the core left for an earlier test's command (tui.notices).
    from tui import notices

    notices.take()


@pytest.fixture(autouse=True)
def lasting_notifications(monkeypatch):
    """An app's notifications (and their toasts) last until the test has read them: their
    5 to 15 seconds can run out first on a loaded machine, and Textual forgets them then."""
    from tui.app.app import MemtuiApp

    notify = MemtuiApp.notify

    def lasting(self, message, *, timeout=None, **options):
        return notify(self, message, timeout=3600, **options)

    monkeypatch.setattr(MemtuiApp, "notify", lasting)


@pytest.fixture
def fake():
    """A fake Messages API on 127.0.0.1 for the real anthropic SDK to talk to."""
    from fake_anthropic import FakeAnthropic

    with FakeAnthropic() as server:
        yield server


@pytest.fixture
def refused_port() -> Iterator[int]:
    """A port on 127.0.0.1 that refuses connections: bound and never listening, so that no
    other process (a server of a test running beside this one) can take it meanwhile."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        yield held.getsockname()[1]


@pytest.fixture
def git_env() -> dict[str, str]:
    """An environment for git subprocesses with a committer identity and no user config."""
    env = dict(os.environ)
    env.update(GIT_IDENTITY)
    return env


def cpu_seconds() -> float:
    """CPU time used so far by this process and the children it has waited for. A bound on
    work set in it holds on a loaded machine, where wall time grows with every other
    process sharing the cores."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def real(path: str | os.PathLike[str]) -> Path:
    return Path(os.path.realpath(path))


# --- memory files -------------------------------------------------------------------------


def letters(number: int) -> str:
    """A name without digits for `number` (a, b, ..., z, ba, bb, ...): memories named by
    different numbers are never taken for duplicates."""
    word = ""
    while True:
        number, digit = divmod(number, 26)
        word = "abcdefghijklmnopqrstuvwxyz"[digit] + word
        if not number:
            return word


def memory_text(
    name: str = "testing",
    description: str = "how we test",
    type: str | None = "feedback",
    body: str = "Run the whole suite.\n**Why:** it caught bugs.\n**How to apply:** always.\n",
    form: str = "flat",
) -> str:
    """A memory file in one of the three forms Claude Code leaves on disk."""
    if form == "none":
        return body
    if form == "flat":
        head = f"name: {name}\ndescription: {description}\n"
        if type is not None:
            head += f"type: {type}\n"
    else:
        head = f"name: {name}\ndescription: {description}\nmetadata:\n"
        if type is not None:
            head += f"  type: {type}\n"
        head += (
            "  node_type: memory\n"
            f"  originSessionId: {uuid.UUID(int=1)}\n"
            "  modified: 2026-01-02T03:04:05.000Z\n"
        )
    return f"---\n{head}---\n\n{body}"


def index_line(file: str, title: str | None = None, hook: str = "a memory") -> str:
    return f"- [{title or file.removesuffix('.md')}]({file}) — {hook}"


# --- transcripts --------------------------------------------------------------------------


def user_record(cwd: str | None, text: str = "hello", **extra) -> dict:
    record = {
        "type": "user",
        "uuid": str(uuid.uuid4()),
        "parentUuid": None,
        "isSidechain": False,
        "sessionId": str(uuid.uuid4()),
        "version": "2.1.88",
        "timestamp": "2026-01-02T03:04:05.000Z",
        "message": {"role": "user", "content": text},
    }
    if cwd is not None:
        record["cwd"] = cwd
    record.update(extra)
    return record


def tool_use_record(cwd: str, tool: str, file_path: str) -> dict:
    tool_input: dict = {"file_path": file_path}
    if tool == "Write":
        tool_input["content"] = "x"
    elif tool == "Edit":
        tool_input.update(old_string="a", new_string="b")
    elif tool == "MultiEdit":
        tool_input["edits"] = [{"old_string": "a", "new_string": "b"}]
    return {
        "type": "assistant",
        "uuid": str(uuid.uuid4()),
        "cwd": cwd,
        "message": {
            "id": "msg_1",
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": tool, "input": tool_input}],
        },
    }


def write_result_record(cwd: str, file_path: str) -> dict:
    """The user record carrying a Write tool's structured result."""
    return user_record(
        cwd,
        toolUseResult={
            "type": "create",
            "filePath": file_path,
            "content": "x",
            "structuredPatch": [],
            "originalFile": None,
        },
    )


def edit_result_record(cwd: str, file_path: str) -> dict:
    """The user record carrying an Edit tool's structured result (it has no `type`)."""
    return user_record(
        cwd,
        toolUseResult={
            "filePath": file_path,
            "oldString": "a",
            "newString": "b",
            "originalFile": "a",
            "structuredPatch": [],
            "userModified": False,
            "replaceAll": False,
        },
    )


def memory_saved_record(written: list[str]) -> dict:
    return {
        "type": "system",
        "subtype": "memory_saved",
        "uuid": str(uuid.uuid4()),
        "writtenPaths": written,
    }


def worktree_state_record(original_cwd: str, worktree_path: str) -> dict:
    return {
        "type": "worktree-state",
        "worktreeSession": {
            "originalCwd": original_cwd,
            "worktreePath": worktree_path,
            "worktreeName": Path(worktree_path).name,
            "worktreeBranch": "wt",
        },
    }


SNAPSHOT_RECORD = {"type": "file-history-snapshot", "messageId": "m", "snapshot": {}}


@dataclass
class ClaudeHome:
    """A config home in a tmp dir, with builders for the folders Claude Code leaves there."""

    home: Path

    @property
    def projects(self) -> Path:
        return paths.projects_dir(self.home)

    @property
    def env(self) -> dict[str, str]:
        return {"CLAUDE_CONFIG_DIR": str(self.home)}

    def folder(self, name: str) -> Path:
        folder = self.projects / name
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def store(self, project_path: str | os.PathLike[str] | None = None, *, folder: str | None = None) -> Path:
        """The memory dir keyed by a project path (sanitized) or by an explicit folder name."""
        name = folder or paths.sanitize(str(project_path))
        memory = self.folder(name) / paths.MEMORY_DIR_NAME
        memory.mkdir(exist_ok=True)
        return memory

    def transcript(
        self,
        folder_name: str,
        records: Iterable[dict | bytes | str],
        *,
        session_id: str | None = None,
        mtime: float | None = None,
    ) -> Path:
        """A session file; dicts become JSON lines, bytes/str are written as they are."""
        folder = self.folder(folder_name)
        path = folder / f"{session_id or uuid.uuid4()}.jsonl"
        write_jsonl(path, records)
        if mtime is not None:
            os.utime(path, (mtime, mtime))
        return path

    def session(self, cwd: str | os.PathLike[str], *extra: dict, mtime: float | None = None) -> Path:
        """A transcript of a session started in `cwd`, in the folder Claude Code would use."""
        cwd = str(cwd)
        records = [SNAPSHOT_RECORD, user_record(cwd), *extra]
        return self.transcript(paths.sanitize(cwd), records, mtime=mtime)


def write_jsonl(path: Path, records: Iterable[dict | bytes | str]) -> None:
    chunks = []
    for record in records:
        if isinstance(record, dict):
            chunks.append(json.dumps(record).encode() + b"\n")
        elif isinstance(record, str):
            chunks.append(record.encode())
        else:
            chunks.append(record)
    path.write_bytes(b"".join(chunks))


SYNC_PUSHED_AT = 1_777_730_580.0  # when the remote's text of sync_conflicted_memory was pushed


def sync_conflicted_memory(machine: str = "laptop") -> str:
    """A memory as `memtui sync` on `machine` leaves it after a conflict with a text
    `desktop` pushed at SYNC_PUSHED_AT (2026-05-02 14:03 UTC): both texts between markers."""
    from tui.sync.merge import Side
    from tui.sync.plan import merge_file

    base = memory_text(name="rule", body="Indent with tabs.\n")
    ours = memory_text(name="rule", body="Indent with two spaces.\n")
    theirs = memory_text(name="rule", body="Indent with four spaces.\n")
    merged, conflict = merge_file("rule.md", base.encode(), ours.encode(), theirs.encode(),
                                  Side(machine), Side("desktop", SYNC_PUSHED_AT))
    assert conflict
    return merged.decode()


def write_memory(store: Path, file: str, text: str | bytes, mtime: float | None = None) -> Path:
    path = store / file
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def write_whole(store: Path, file: str, text: str) -> Path:
    """Write a file that a watcher of `store` can only see whole: written outside the store,
    then renamed in. A plain write creates the file empty first, and a watcher polling every
    50 ms on a loaded machine may see it empty for two polls and commit it twice."""
    staged = store.parent / f".staged-{uuid.uuid4().hex}"
    staged.write_text(text, encoding="utf-8")
    return staged.replace(store / file)


def write_index(store: Path, lines: Iterable[str] | str) -> Path:
    text = lines if isinstance(lines, str) else "\n".join(lines) + "\n"
    path = store / paths.INDEX_NAME
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def make_home(tmp_path):
    """A factory for fresh config homes under this test's tmp dir."""
    count = 0

    def make() -> ClaudeHome:
        nonlocal count
        count += 1
        home = tmp_path / f"claude-home-{count}"
        home.mkdir()
        (home / "projects").mkdir()
        return ClaudeHome(home)

    return make


@pytest.fixture
def claude_home(make_home) -> ClaudeHome:
    return make_home()


@pytest.fixture
def fake_home(tmp_path, monkeypatch) -> Path:
    """The user's home directory (`~`) pointed at a tmp dir."""
    home = tmp_path / "user-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home


# --- git ----------------------------------------------------------------------------------


def make_repo(path: Path):
    """A real git repository with one commit."""
    import git

    path.mkdir(parents=True, exist_ok=True)
    repo = git.Repo.init(path, initial_branch="main")
    (path / "README.md").write_text("hello\n")
    repo.index.add(["README.md"])
    repo.index.commit("initial")
    return repo


def add_worktree(repo, path: Path, branch: str) -> Path:
    repo.git.worktree("add", "-b", branch, str(path))
    return path


class HeldFirstCall:
    """A function to monkeypatch in: its first call is held until `release()` and then
    answered by `first` (the function itself unless given); every other call goes
    straight through. For a worker that a newer one replaces while it is held:
    `answered` is set once the held call has returned."""

    def __init__(self, function, first=None):
        self.function = function
        self.first = first or function
        self.entered = threading.Event()
        self.released = threading.Event()
        self.answered = threading.Event()
        self._taken = threading.Lock()

    def __call__(self, *args, **kwargs):
        # The first call only: a worker thread is pooled, and its next call goes through.
        if self._taken.acquire(blocking=False):
            self.entered.set()
            self.released.wait(PATIENCE)
            try:
                return self.first(*args, **kwargs)
            finally:
                self.answered.set()
        return self.function(*args, **kwargs)

    def release(self) -> None:
        self.released.set()


async def settle(app, pilot) -> None:
    """Let the app process its messages and finish its workers (the disk watcher aside).

    A few rounds, because one worker's message may start the next (prepare, confirm, write).
    """
    for _ in range(3):
        await pilot.pause()
        await app.settled()
    await pilot.pause()


def painted(content, width: int = 200, wrap: bool = False) -> str:
    """What a widget's content reads as, without colour, on a terminal `width` columns wide.

    Each line stays whole unless `wrap`: a sentence naming a temp path (longer under xdist,
    whose worker adds `popen-gw0` to it twice) must not wrap mid-phrase."""
    import io

    from rich.console import Console

    console = Console(width=width, file=io.StringIO(), color_system=None, soft_wrap=not wrap)
    console.print(content)
    return console.file.getvalue()


def on_screen(widget) -> list:
    """The widget's lines as the terminal shows them: each as it was last painted (a line
    nobody refreshed keeps its old paint), not rendered anew as `render_line` would."""
    from textual.geometry import Region

    return widget.render_lines(Region(0, 0, *widget.region.size))


def lines_in_style(widget, component: str) -> list[str]:
    """The text of the lines on screen whose background is the `component` style's (a
    cursor's): what the user sees highlighted."""
    colour = widget.get_component_rich_style(component).bgcolor
    return [strip.text for strip in on_screen(widget)
            if any(segment.style is not None and segment.style.bgcolor == colour
                   for segment in strip)]


@pytest.fixture
def worktrees(tmp_path, claude_home):
    """A repository with two linked worktrees, and the one store they all share."""
    repo = make_repo(tmp_path / "shop")
    tree_a = add_worktree(repo, tmp_path / "shop-wt-a", "feature-a")
    tree_b = add_worktree(repo, tmp_path / "shop-wt-b", "feature-b")
    store = claude_home.store(real(tmp_path / "shop"))
    return claude_home, real(tree_a), real(tree_b), store


def snapshot(folder: Path, recursive: bool = False) -> dict[str, bytes]:
    """Every file's bytes, by path relative to `folder`."""
    files = folder.rglob("*") if recursive else folder.iterdir()
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(files) if p.is_file()}
