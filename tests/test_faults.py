"""Faults a real machine has, one regression test per case of `scripts/torture_faults.py`.

The `memtui` command runs in its own process, as a user runs it: under a file-size limit
(RLIMIT_FSIZE, set in the child), with a failpoint raising ENOSPC, EROFS or EACCES at a
chosen moment, with a file where memtui needs a folder (and the other way round), with its
own files damaged, and with a folder 1,500 levels deep in the store. A write must leave
the store as it was (exit 2, one sentence naming the path) or changed whole, and `memtui
undo` must then take back the change the user last saw applied.
"""

from __future__ import annotations

import os
import random
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import index_line, memory_text, snapshot, write_index, write_memory

from tui import xdg

TRACEBACK = "Traceback (most recent call last)"


@pytest.fixture
def store(claude_home, monkeypatch) -> Path:
    """A store whose last change (`fix delete C.md`) the user saw applied."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude_home.home))
    store = claude_home.store(folder="-work-faults")
    for name in ("A", "B", "C"):
        write_memory(store, f"{name}.md", memory_text(name, f"{name} notes", "project",
                                                      f"{name} body " + "x" * 400 + "\n"))
    for n in range(3):
        write_memory(store, f"note{n}.md", memory_text(f"note {n}", "a note", "project",
                                                       f"We moved service {n} yesterday.\n"))
    write_index(store, [index_line(f"{name}.md") for name in "ABC"])
    assert memtui("fix", store, "delete", "C.md", "--yes").returncode == 0
    return store


def memtui(*argv, fsize: int | None = None, xfsz_default: bool = False,
           failpoint: str | None = None, env: dict[str, str] | None = None
           ) -> subprocess.CompletedProcess:
    """`memtui ARGV` in a process of its own; no traceback, ever."""
    env = dict(os.environ if env is None else env)
    env.pop("MEMTUI_FAILPOINT", None)
    if failpoint:
        env["MEMTUI_FAILPOINT"] = failpoint

    def limits() -> None:
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL if xfsz_default else signal.SIG_IGN)

    done = subprocess.run([sys.executable, "-m", "tui", *map(str, argv)], env=env,
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                          preexec_fn=limits)
    assert TRACEBACK not in done.stdout + done.stderr, done.stderr
    return done


def one_sentence(done: subprocess.CompletedProcess) -> str:
    """The one line a refused command said on stderr."""
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("memtui: "), done.stderr
    return lines[0]


def log_of(store: Path) -> Path:
    return xdg.data_dir() / "backups" / xdg.store_key(store) / "log.jsonl"


def memories(store: Path) -> dict[str, bytes]:
    return {name: data for name, data in snapshot(store).items() if name.endswith(".md")}


def assert_undo_takes_back_the_delete_of_c(store: Path) -> None:
    """The change the user last saw applied was `fix delete C.md`: undo brings C back."""
    done = memtui("undo", store)
    assert done.returncode == 0 and "Undid delete 1 memory." in done.stdout, done.stderr
    assert (store / "C.md").exists() and (store / "A.md").exists() and (store / "B.md").exists()
    assert "C.md" in (store / "MEMORY.md").read_text()


# --- a file-size limit (finding 1) ---------------------------------------------------------


@pytest.mark.parametrize(("short", "xfsz_default"), [(1, False), (700, False), (200, True)],
                         ids=["1 B short", "700 B short", "200 B short, SIGXFSZ default"])
def test_a_delete_under_a_file_size_limit_below_the_log_changes_nothing_and_says_so(
        store, xfsz_default, short):
    """The torture run's case: both files were deleted, the index still linked them, memtui
    said nothing was changed, and undo took back the change before."""
    before, log = memories(store), log_of(store).read_bytes()
    growth = len(log) + 2000  # what a delete of A and B adds, at the least
    limit = len(log) + (growth - len(log)) // 2 - short

    done = memtui("fix", store, "delete", "A.md", "B.md", "--yes", fsize=limit,
                  xfsz_default=xfsz_default)

    assert done.returncode == 2
    said = one_sentence(done)
    assert f"Recording the change failed at {log_of(store)}" in said
    assert "file-size limit (ulimit -f), so nothing was changed; raise the limit" in said
    assert memories(store) == before
    assert log_of(store).read_bytes() == log  # no half record left behind
    assert not list(xdg.intents_dir(store).glob("*.json"))
    assert_undo_takes_back_the_delete_of_c(store)


def memtui_folders(store: Path) -> dict[str, bytes]:
    """What memtui keeps of the store in its data dir: backup copies and archive copies."""
    found = {}
    for folder in (xdg.data_dir() / "backups" / xdg.store_key(store),
                   xdg.data_dir() / "archive" / xdg.store_key(store)):
        for top, _, names in os.walk(folder):
            found.update({os.path.join(top, name): Path(top, name).read_bytes()
                          for name in names})
    return found


@pytest.mark.parametrize("moment", ["fsize", "io.write:3", "io.write:4", "io.write:5",
                                    "apply.logged", "apply.before_commit"])
def test_a_refused_archive_leaves_no_archive_or_backup_copy(store, moment):
    """"Nothing was changed" holds for memtui's own folders too: the refused change's
    archive copies and backup copies go with it."""
    before, kept = memories(store), memtui_folders(store)
    limit = log_of(store).stat().st_size + 200 if moment == "fsize" else None
    point, _, nth = moment.partition(":")

    done = memtui("fix", store, "archive", "A.md", "B.md", "--yes", fsize=limit,
                  failpoint=None if limit else f"{point}:{nth or 1}:ENOSPC")

    assert done.returncode == 2, done.stdout
    assert "nothing was changed" in one_sentence(done)
    assert memories(store) == before
    assert memtui_folders(store) == kept


def test_one_fault_that_stops_the_journal_and_the_write_is_one_sentence(store):
    """Claude Code wrote A.md since memtui last looked, and memtui's data dir can take no
    write: the journal's snapshot of that write fails, then the write is refused. The user
    reads the refusal alone, not a second sentence about memtui's changes it did not make."""
    (store / "A.md").write_text(memory_text("A", "A notes", "project", "Rewritten by Claude.\n"))
    before = memories(store)

    done = memtui("fix", store, "archive", "A.md", "B.md", "--yes", fsize=300)

    assert done.returncode == 2
    said = one_sentence(done)
    assert "nothing was changed" in said and "raise the limit" in said
    assert memories(store) == before


def test_a_dream_that_could_not_record_its_change_says_so_once_without_an_undo_hint(store):
    before = memories(store)

    done = memtui("dream", store, "--engine", "offline", "--yes",
                  fsize=log_of(store).stat().st_size + 100)

    assert done.returncode == 2
    said = [line for line in done.stderr.splitlines() if line.startswith("memtui: ")]
    assert len(said) == 1 and "Recording the change failed" in said[0], done.stderr
    assert "undo" not in done.stdout and "Refused" not in done.stdout
    assert memories(store) == before
    assert not (store / ".consolidate-lock").exists()  # not counted as a consolidation


def test_a_dream_whose_store_copy_cannot_be_written_stops_rather_than_run_on_part_of_it(
        store, tmp_path):
    """A copy missing a file would show the dream an index line to a file that is gone."""
    write_memory(store, "big.md", memory_text("big", "a big one", "project", "x" * 60_000))
    before = memories(store)
    env = {**os.environ, "TMPDIR": str(tmp_path)}

    done = memtui("dream", store, "--engine", "offline", "--yes", fsize=40_000, env=env)

    assert done.returncode == 2
    said = [line for line in done.stderr.splitlines() if line.startswith("memtui: ")]
    assert len(said) == 1 and "The run stopped at " in said[0] and "/memory/big.md" in said[0]
    assert "so nothing was applied" in said[0]
    assert memories(store) == before
    assert not list(tmp_path.glob("memtui-run-*"))


# --- ENOSPC, EROFS, EACCES at each moment of a write (finding 1, the second item) -------------


MOMENTS = ["io.write:1", "io.write:2", "io.write:3", "io.write:4", "io.write:5",
           "apply.logged", "apply.staged", "swap.aside:2", "swap.installed:1",
           "apply.swapped", "apply.before_commit"]


@pytest.mark.parametrize(("moment", "error"), [
    *((moment, "ENOSPC") for moment in MOMENTS),
    *((moment, error) for moment in ("io.write:2", "swap.installed:1") for error in ("EROFS",
                                                                                   "EACCES")),
])
def test_a_disk_error_at_any_moment_of_a_write_leaves_it_whole_or_undone(store, moment, error):
    point, _, nth = moment.partition(":")
    before = memories(store)

    done = memtui("fix", store, "delete", "A.md", "B.md", "--yes",
                  failpoint=f"{point}:{nth or 1}:{error}")

    after = memories(store)
    if done.returncode == 2:  # refused: nothing changed, and it says what to do
        assert after == before
        said = one_sentence(done)
        assert "nothing was changed" in said and "try again" in said
        assert_undo_takes_back_the_delete_of_c(store)
    else:  # the failpoint was past the moments this write reaches: applied whole
        assert done.returncode == 0 and "Applied" in done.stdout
        assert set(before) - set(after) == {"A.md", "B.md"}
        assert "A.md" not in after["MEMORY.md"].decode()
        assert memtui("undo", store).returncode == 0
        assert memories(store) == before
    assert not [name for name in os.listdir(store) if ".memtui-" in name]
    assert not list(xdg.intents_dir(store).glob("*.json"))


def test_a_failed_delete_writes_the_deleted_files_back(store):
    """After the old files were dropped, a failure before the change is made must bring
    the deleted files back (the rollback used to skip them)."""
    before = memories(store)
    done = memtui("fix", store, "delete", "A.md", "B.md", "--yes",
                  failpoint="apply.before_commit:1:ENOSPC")
    assert done.returncode == 2 and memories(store) == before


# --- a file where a folder should be, a folder where a file should be ------------------------


@pytest.mark.parametrize("command", [["history", "{store}/A.md"],
                                     ["sync", "{store}", "--remote", "{remote}"],
                                     ["fix", "{store}", "delete", "A.md", "--yes"]])
def test_a_state_dir_that_is_a_file_is_one_sentence_naming_it(store, tmp_path, command):
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    blocked = tmp_path / "state-home"
    blocked.write_text("not a folder\n")
    env = {k: v for k, v in os.environ.items() if k != "MEMTUI_STATE_DIR"}
    env["XDG_STATE_HOME"] = str(blocked)
    before = memories(store)

    done = memtui(*(word.format(store=store, remote=remote) for word in command), env=env)

    assert done.returncode == 2
    assert f"{blocked} is a file where a folder is needed" in one_sentence(done)
    assert memories(store) == before


@pytest.fixture
def unwritable_folder(tmp_path):
    """An empty folder nobody can create anything in, root included (`chattr +i`: root
    writes into a folder whose mode is read-only, and the tests run as root)."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    if subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode != 0:
        pytest.skip("this file system has no immutable flag (chattr +i)")
    yield folder
    subprocess.run(["chattr", "-i", str(folder)], check=True)


@pytest.mark.parametrize("command", [["history", "{store}/A.md"],
                                     ["sync", "{store}", "--remote", "{remote}"],
                                     ["fix", "{store}", "delete", "A.md", "--yes"]])
def test_a_read_only_state_dir_is_one_sentence_naming_it(store, tmp_path, unwritable_folder,
                                                         command):
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    env = {k: v for k, v in os.environ.items() if k != "MEMTUI_STATE_DIR"}
    env["XDG_STATE_HOME"] = str(unwritable_folder)
    before = memories(store)

    done = memtui(*(word.format(store=store, remote=remote) for word in command), env=env)

    assert done.returncode == 2
    said = one_sentence(done)
    assert f" at {unwritable_folder}/memtui" in said
    assert "permission denied" in said and "give your user access to it" in said
    assert memories(store) == before


def test_a_store_lock_that_is_a_folder_is_moved_aside_and_the_write_goes_on(store):
    lock = xdg.state_dir() / "locks" / f"{xdg.store_key(store)}.lock"
    lock.unlink()
    (lock / "inside").mkdir(parents=True)

    history = memtui("history", store / "A.md")
    done = memtui("fix", store, "delete", "A.md", "--yes")

    assert history.returncode == 0
    [aside] = lock.parent.glob("*.not-a-lock")
    assert f"memtui's lock file {lock} was not a file; it was moved aside to {aside}" in \
        history.stderr
    assert done.returncode == 0 and not (store / "A.md").exists()


def test_an_undo_log_that_is_a_folder_refuses_the_write_in_one_sentence(store):
    log = log_of(store)
    log.unlink()
    log.mkdir()
    before = memories(store)

    done = memtui("fix", store, "delete", "A.md", "--yes")

    assert done.returncode == 2
    said = one_sentence(done)
    assert f"at {log}: it is a folder where a file is needed, so nothing was changed" in said
    assert memories(store) == before


# --- memtui's own files damaged ---------------------------------------------------------------


def test_random_bytes_in_the_undo_log_keep_its_readable_records(store):
    with open(log_of(store), "ab") as log:
        log.write(random.Random(1).randbytes(5000))

    listed = memtui("undo", store, "--list")
    done = memtui("fix", store, "delete", "A.md", "--yes")
    undone = memtui("undo", store)

    assert listed.returncode == 0 and "delete 1 memory: deleted C.md" in listed.stdout
    assert "of memtui's undo log" in listed.stderr and "damaged" in listed.stderr
    assert done.returncode == 0 and undone.returncode == 0
    assert (store / "A.md").exists() and not (store / "C.md").exists()


def test_a_journal_that_lost_old_objects_is_moved_aside_and_started_again(store):
    """git opens it (the branch tip is whole); reading its history fails on the way."""
    journal = xdg.journal_dir(store)
    for file in ("B.md", "note0.md"):
        memtui("fix", store, "delete", file, "--yes")
    env = {**os.environ, "GIT_DIR": str(journal)}

    def git(*args: str, data: bytes | None = None) -> str:
        return subprocess.run(["git", *args], input=data, env=env, capture_output=True,
                              check=True).stdout.decode().strip()

    for pack in sorted((journal / "objects" / "pack").glob("*.pack")):
        data = pack.read_bytes()
        pack.unlink()
        pack.with_suffix(".idx").unlink()
        git("unpack-objects", "-q", data=data)
    oldest = git("rev-list", "--reverse", "main").split()[0]
    tree = git("rev-parse", f"{oldest}^{{tree}}")
    (journal / "objects" / tree[:2] / tree[2:]).unlink()

    for command in (["history", store / "A.md"], ["doctor", store], ["overwrites", store],
                    ["dream", store, "--engine", "offline", "--yes"]):
        done = memtui(*command)
        assert done.returncode in (0, 1), (command, done.stderr)
        if command[0] == "history":
            [moved] = journal.parent.glob(f"{journal.name}.broken-*")
            assert f"The journal of {store} was damaged (" in done.stderr
            assert f"moved aside to {moved} and a new one started from the store" in done.stderr


def test_an_intent_record_of_random_bytes_is_moved_aside_with_one_sentence(store):
    before = memories(store)
    intent = xdg.intents_dir(store) / "20990101T000000-abcdef.json"
    intent.parent.mkdir(parents=True, exist_ok=True)
    intent.write_bytes(random.Random(2).randbytes(300))

    done = memtui("audit", store)

    assert "the record of an interrupted memtui change could not be read; it was moved aside" \
        in done.stderr
    assert not intent.exists() and memories(store) == before
    assert memtui("fix", store, "delete", "A.md", "--yes").returncode == 0


# --- a folder 1,500 levels deep (finding 3) ---------------------------------------------------


@pytest.fixture
def deep_folder(store):
    """A folder 1,500 levels deep in the store, removed after the test with `rm -rf`:
    pytest's own clean-up of old temp dirs recurses, and would stop every later session
    of anyone on this machine with a RecursionError."""
    top = store / "d"
    folder = os.open(store, os.O_RDONLY)
    try:
        for _ in range(1500):  # os.makedirs recurses: a level at a time
            os.mkdir("d", dir_fd=folder)
            inner = os.open("d", os.O_RDONLY, dir_fd=folder)
            os.close(folder)
            folder = inner
    finally:
        os.close(folder)
    yield top
    subprocess.run(["rm", "-rf", str(top)], check=True)


def test_a_folder_1500_levels_deep_is_walked_to_32_levels_by_every_command(store, deep_folder):
    for command in (["index", store, "--loaded"], ["overwrites", store], ["audit", store],
                    ["history", store / "A.md"]):
        done = memtui(*command)
        assert done.returncode in (0, 1), (command, done.stderr[-500:])
    assert memtui("fix", store, "delete", "A.md", "--yes").returncode == 0


def test_the_walk_stops_32_levels_down_and_never_enters_a_symlinked_folder(tmp_path):
    from tui.walk import MAX_DEPTH, walk

    deep = tmp_path
    for _ in range(40):
        deep = deep / "d"
    deep.mkdir(parents=True)
    (tmp_path / "d" / "loop").symlink_to(tmp_path)

    folders = [folder for folder, _, _ in walk(tmp_path)]

    assert len(folders) == MAX_DEPTH + 1  # the top and 32 levels below it
    assert not any("loop" in folder for folder in folders)
    assert "loop" in next(names for folder, names, _ in walk(tmp_path) if folder.endswith("/d"))


# --- a huge index (finding 6): parsed in its head, measured whole ------------------------------


def test_an_index_too_big_to_parse_whole_has_the_cut_and_size_of_the_whole(store, monkeypatch):
    from tui.memory import store as stores
    from tui.memory.index import parse_index

    text = "".join(f"- [Note {n}](note_{n}.md) — about {n} 😀\n" for n in range(5000))
    write_index(store, text)
    whole = parse_index(text)
    monkeypatch.setattr(stores, "INDEX_HEAD_LIMIT", 50_000)

    loaded = stores.load_store(store)

    index = loaded.index
    assert (index.lines, index.chars, index.cut, index.warning, index.loaded) == (
        whole.lines, whole.chars, whole.cut, whole.warning, whole.loaded)
    assert len(index.links) < len(whole.links)  # the links of the head only
    assert "MEMORY.md has 5,000 lines; memtui reads the links of its first" in loaded.index_error


def test_a_relink_of_an_index_too_big_to_parse_whole_keeps_the_rest_byte_for_byte(
        store, monkeypatch, capsys):
    from tui.cli import main
    from tui.memory import store as stores

    tail = "".join(f"- [Later {n}](later_{n}.md) — past the head\n" for n in range(3000))
    head = "".join(f"- [Note {n}](note{n % 3}.md) — a note\n" for n in range(2000))
    write_index(store, head + tail)
    before = (store / "MEMORY.md").read_bytes()
    monkeypatch.setattr(stores, "INDEX_HEAD_LIMIT", len(head.encode()) + 10)

    assert main(["fix", str(store), "relink", "A.md", "--yes"]) == 0

    after = (store / "MEMORY.md").read_bytes()
    out = capsys.readouterr().out
    assert "edits its first" in out and "keeps the rest as it is" in out
    assert after.endswith(tail.encode()) and b"(A.md)" in after[:len(head) + 200]
    assert main(["undo", str(store)]) == 0
    assert (store / "MEMORY.md").read_bytes() == before


def test_the_diff_of_a_line_added_to_a_huge_file_is_the_few_lines_around_it():
    from tui.agents.changeset import unified

    lines = [f"line {n}\n" for n in range(200_000)]
    before = "".join(lines).encode()
    after = "".join([*lines[:150_000], "added\n", *lines[150_000:]]).encode()

    diff = unified("MEMORY.md", before, after)

    assert diff.splitlines()[2] == "@@ -149998,6 +149998,7 @@"
    assert "+added" in diff.splitlines() and len(diff.splitlines()) == 10


@pytest.mark.parametrize("status, said", [(128, "git exited with 128"),
                                          (-signal.SIGKILL, "git was stopped by SIGKILL")])
def test_a_damaged_journal_is_named_by_why_git_stopped_never_by_its_command_line(status, said):
    """git may end having said nothing on stderr (its stream not read to the end, or it was
    killed): GitPython's text is then its command line, which is no reason a person can read."""
    import git

    from tui.history.journal import damaged

    error = git.GitCommandError(["git", "log", "refs/heads/main", "--raw", "-z"], status, "")
    sentence = damaged(Path("/s/memory"), error)
    assert sentence == f"The journal of /s/memory is damaged ({said})."
