"""`memtui sync`: three machines, one bare repository as the remote, real git."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time

import pytest
from conftest import memory_text
from sync_machines import git, make_machines

from tui import failpoints

INDEX = "# Memory\n- [Testing](testing.md) — how we test\n"
TESTING = memory_text(body="Run the whole suite.\nUse the fixtures.\nKeep it fast.\n")


@pytest.fixture
def world(tmp_path, capsys):
    remote, machines = make_machines(tmp_path, capsys)
    return remote, machines


def started(world):
    """A's first memories, synced to every machine."""
    remote, (a, b, c) = world
    a.write("MEMORY.md", INDEX)
    a.write("testing.md", TESTING)
    first = a.sync("--remote", str(remote))
    assert first["projects"][0]["pushed"] == ["MEMORY.md", "testing.md"]
    for machine in (b, c):
        assert machine.sync("--remote", str(remote))["projects"][0]["pulled"] == [
            "MEMORY.md", "testing.md"]
    return a, b, c


def remote_files(remote) -> list[str]:
    return git("--git-dir", str(remote), "ls-tree", "-r", "--name-only", "main").split()


def test_a_memory_written_on_a_appears_on_b_and_c_under_one_identity(world):
    remote, _ = world
    a, b, c = started(world)
    for machine in (b, c):
        assert machine.read("testing.md") == TESTING
        assert machine.read("MEMORY.md") == INDEX
    # Three paths, three URL forms of one origin: one folder on the remote.
    assert remote_files(remote) == ["github.com/ana/app/memory/MEMORY.md",
                                    "github.com/ana/app/memory/testing.md"]
    assert len({str(m.store) for m in (a, b, c)}) == 3


def test_a_pull_is_a_journalled_undoable_change(world):
    from tui.history.journal import Journal
    from tui.memory.writes import history

    a, b, _ = started(world)
    with b.active():
        records = history(b.store)
        assert [r.label.split(" from ")[0] for r in records] == ["sync"]
        assert Journal(b.store).log()[0][2].startswith("sync from")
    code, _, err = b.run("undo", str(b.store))
    assert code == 0, err
    assert b.read("testing.md") is None


def test_the_remote_is_remembered_and_a_sync_with_nothing_new_is_in_sync(world):
    a, _, _ = started(world)
    code, out, _ = a.run("sync", "--all")
    assert code == 0
    assert "github.com/ana/app: in sync" in out


def test_edits_to_different_files_on_a_and_b_both_survive(world):
    a, b, c = started(world)
    a.write("deploy.md", memory_text(name="deploy", body="Deploy on Tuesdays.\n"))
    b.write("review.md", memory_text(name="review", body="Two reviewers.\n"))
    a.sync()
    result = b.sync()["projects"][0]
    assert result["pulled"] == ["deploy.md"] and result["pushed"] == ["review.md"]
    a.sync()
    c.sync()
    for machine in (a, b, c):
        assert "Deploy on Tuesdays." in machine.read("deploy.md")
        assert "Two reviewers." in machine.read("review.md")


def test_edits_to_different_lines_of_one_file_both_survive(world):
    a, b, c = started(world)
    a.write("testing.md", TESTING.replace("Run the whole suite.", "Run the whole suite twice."))
    b.write("testing.md", TESTING.replace("Keep it fast.", "Keep it under a minute."))
    a.sync()
    assert b.sync()["projects"][0]["conflicts"] == []
    a.sync()
    c.sync()
    for machine in (a, b, c):
        text = machine.read("testing.md")
        assert "Run the whole suite twice." in text and "Keep it under a minute." in text
        assert "<<<<<<<" not in text


def test_the_same_line_changed_on_both_is_a_conflict_keeping_both_texts(world):
    a, b, c = started(world)
    a.write("testing.md", TESTING.replace("Use the fixtures.", "Use the A fixtures."))
    b.write("testing.md", TESTING.replace("Use the fixtures.", "Use the B fixtures."))
    assert a.sync()["projects"][0]["conflicts"] == []
    result = b.sync()["projects"][0]
    assert result["conflicts"] == ["testing.md"]
    text = b.read("testing.md")
    assert "Use the A fixtures." in text and "Use the B fixtures." in text
    # B merged: its text first, by its machine name; then A's, with when A pushed it.
    assert re.search(r"\n<<<<<<< memtui sync: B\nUse the B fixtures.\n=======\nUse the A "
                     r"fixtures.\n>>>>>>> memtui sync: A, \d{4}-\d\d-\d\d \d\d:\d\d UTC\n", text)
    a.sync()
    c.sync()
    assert a.read("testing.md") == c.read("testing.md") == text
    code, out, _ = b.run("sync", "--all")
    assert code == 0 and "testing.md still holds both texts of a conflict" in out
    # the command to paste names the file: `memtui merge testing.md` would not find it
    assert f"merge {b.store / 'testing.md'} --keep first|second|both`, or K in the app" in out


def test_a_deletion_propagates(world):
    a, b, c = started(world)
    (a.store / "testing.md").unlink()
    assert a.sync()["projects"][0]["pushed"] == ["testing.md"]
    assert b.sync()["projects"][0]["pulled"] == ["testing.md"]
    c.sync()
    assert b.read("testing.md") is None and c.read("testing.md") is None
    assert "github.com/ana/app/memory/testing.md" not in remote_files(world[0])


def test_a_deletion_is_reported_as_one_not_as_a_text_sent_or_received(world):
    a, b, _ = started(world)
    (a.store / "testing.md").unlink()
    code, out, _ = a.run("sync", "--all", "--dry-run")
    assert code == 0 and "1 would be deleted on the remote (testing.md)" in out
    code, out, _ = a.run("sync", "--all")
    assert code == 0 and "1 deleted on the remote (testing.md)" in out and "pushed" not in out
    code, out, _ = b.run("sync", "--all")
    assert code == 0 and "1 deleted here, as on the remote (testing.md)" in out
    assert "pulled" not in out and b.read("testing.md") is None
    # --json keeps its lists (a deletion is in them) and adds which of them are deletions
    (b.store / "MEMORY.md").unlink()
    b.write("new.md", TESTING)
    result = b.sync()["projects"][0]
    assert result["pushed"] == ["MEMORY.md", "new.md"]
    assert result["pushed_deletions"] == ["MEMORY.md"] and result["pulled_deletions"] == []
    result = a.sync()["projects"][0]
    assert result["pulled"] == ["MEMORY.md", "new.md"]
    assert result["pulled_deletions"] == ["MEMORY.md"] and result["pushed_deletions"] == []


def test_a_deletion_gives_way_to_a_change_on_the_other_side(world):
    a, b, _ = started(world)
    (a.store / "testing.md").unlink()
    b.write("testing.md", TESTING + "One more rule.\n")
    b.sync()
    result = a.sync()["projects"][0]
    assert result["pulled"] == ["testing.md"]
    assert "One more rule." in a.read("testing.md")


def test_index_lines_merge_as_an_ordered_set(world):
    a, b, c = started(world)
    a.write("deploy.md", memory_text(name="deploy"))
    a.write("MEMORY.md", INDEX + "- [Deploy](deploy.md) — when we ship\n")
    b.write("review.md", memory_text(name="review"))
    b.write("MEMORY.md", INDEX + "- [Review](review.md) — who reviews\n")
    a.sync()
    result = b.sync()["projects"][0]
    assert result["conflicts"] == []
    expected = INDEX + "- [Review](review.md) — who reviews\n- [Deploy](deploy.md) — when we ship\n"
    assert b.read("MEMORY.md") == expected
    a.sync()
    c.sync()
    assert a.read("MEMORY.md") == c.read("MEMORY.md") == expected


def test_a_second_index_line_added_on_each_machine_survives_on_both(world):
    """Both machines add a second entry for a memory that already has one; syncing B, A,
    B must keep both lines everywhere (a deliberate entry is no duplicate to drop)."""
    a, b, _ = started(world)
    a.write("deploy.md", memory_text(name="deploy"))
    a.write("MEMORY.md", INDEX + "- [Deploy](deploy.md) — when we ship\n")
    a.sync()
    b.sync()
    a_line = "- [Testing, again](testing.md) — the fixtures first\n"
    b_line = "- [Deploy, again](deploy.md) — Fridays are off\n"
    a.write("MEMORY.md", a.read("MEMORY.md") + a_line)
    b.write("MEMORY.md", b.read("MEMORY.md") + b_line)
    b.sync()
    assert a.sync()["projects"][0]["conflicts"] == []
    b.sync()
    for machine in (a, b):
        index = machine.read("MEMORY.md")
        assert a_line in index and b_line in index, (machine.store, index)


def test_sync_all_removes_what_a_killed_write_left_in_a_store(world):
    """A staged file a killed memtui left (a hard link of the memory, no intent record):
    `sync --all`, which names no store, tidies every store it syncs as `sync STORE` does."""
    a, _, _ = started(world)
    left = a.store / ".testing.md.20261207T120000-abcdef.memtui-new"
    os.link(a.store / "testing.md", left)
    code, _, err = a.run("sync", "--all")
    assert code == 0, err
    assert not os.path.lexists(left)
    assert "removed 1 temp file" in err


def test_a_rejected_push_fetches_merges_and_retries(world):
    """B pushes between A's fetch and A's push: A's push is rejected, A merges and retries."""
    a, b, _ = started(world)
    a.write("deploy.md", memory_text(name="deploy"))
    b.write("review.md", memory_text(name="review"))
    pushed_between = []

    def b_pushes_first(_commit: str) -> None:
        if not pushed_between:
            pushed_between.append(True)
            failpoints.on("sync.before_push", None)
            b.sync()

    failpoints.on("sync.before_push", b_pushes_first)
    try:
        with a.active():
            from tui.cli import main

            a.capsys.readouterr()
            assert main(["sync", "--all", "--json"]) == 0
            result = json.loads(a.capsys.readouterr().out)["projects"][0]
    finally:
        failpoints.on("sync.before_push", None)
    assert pushed_between
    assert result["pulled"] == ["review.md"] and result["pushed"] == ["deploy.md"]
    assert sorted(remote_files(world[0])) == [
        f"github.com/ana/app/memory/{name}" for name in
        ("MEMORY.md", "deploy.md", "review.md", "testing.md")]


def test_two_machines_syncing_at_the_same_moment_end_with_the_union(world):
    remote, _ = world
    a, b, _ = started(world)
    for number in range(6):
        a.write(f"a-{number}.md", memory_text(name=f"a-{number}"))
        b.write(f"b-{number}.md", memory_text(name=f"b-{number}"))
    processes = [machine.spawn("sync", "--all", "--json") for machine in (a, b)]
    outputs = [process.communicate(timeout=120) for process in processes]
    assert [process.returncode for process in processes] == [0, 0], outputs
    wanted = {f"{side}-{n}.md" for side in "ab" for n in range(6)} | {"MEMORY.md", "testing.md"}
    on_remote = {path.rsplit("/", 1)[1] for path in remote_files(remote)}
    assert on_remote == wanted
    a.sync()
    b.sync()
    for machine in (a, b):
        assert {p.name for p in machine.store.iterdir() if p.suffix == ".md"} == wanted


def test_a_token_in_a_memory_blocks_that_file(world):
    remote, _ = world
    a, b, _ = started(world)
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    a.write("ci.md", memory_text(name="ci", body=f"CI runs on push.\nThe token is {token}\n"))
    a.write("deploy.md", memory_text(name="deploy"))
    result = a.sync()["projects"][0]
    assert result["pushed"] == ["deploy.md"]
    [blocked] = result["blocked"]
    assert blocked["file"] == "ci.md"
    assert "line 8" in blocked["reason"] and token not in blocked["reason"]
    assert "github.com/ana/app/memory/ci.md" not in remote_files(remote)
    b.sync()
    assert b.read("ci.md") is None and b.read("deploy.md") is not None
    code, out, _ = a.run("sync", "--all")
    assert "ci.md blocked: secret on line 8" in out and token not in out


def test_an_unreachable_remote_changes_nothing_and_says_so(world, tmp_path):
    remote, _ = world
    a, b, _ = started(world)
    a.write("deploy.md", memory_text(name="deploy"))
    a.sync()
    moved = tmp_path / "unplugged.git"
    os.rename(remote, moved)  # the shared disk is gone
    before = {p.name: p.read_bytes() for p in b.store.iterdir()}
    code, out, err = b.run("sync", "--all")
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "cannot be reached" in err and "nothing was changed" in err
    assert "does not appear to be a git repository" in err  # git's cause, not its advice
    assert {p.name: p.read_bytes() for p in b.store.iterdir()} == before
    os.rename(moved, remote)  # back online: the next sync catches up
    assert b.sync()["projects"][0]["pulled"] == ["deploy.md"]


def test_locks_and_memtuis_own_files_never_travel_and_a_dream_is_skipped(world):
    remote, _ = world
    a, b, _ = started(world)
    (a.store / ".consolidate-lock").write_text(str(os.getpid()))  # a dream, running now
    a.write("notes.txt", "not a memory\n")
    (a.store / "link.md").symlink_to(a.store / "testing.md")
    result = a.sync()["projects"][0]
    assert "consolidation" in result["skipped"] and result["pushed"] == []
    (a.store / ".consolidate-lock").write_text("999999999")  # done: the pid is gone
    os.utime(a.store / ".consolidate-lock", (1, 1))
    a.write("deploy.md", memory_text(name="deploy"))
    assert a.sync()["projects"][0]["pushed"] == ["deploy.md"]
    names = {path.rsplit("/", 1)[1] for path in remote_files(remote)}
    assert names == {"MEMORY.md", "testing.md", "deploy.md"}


def test_a_store_without_identity_is_listed_with_the_reason_until_named(world, tmp_path):
    remote, (a, b, _) = world
    started(world)
    loose = {}
    for machine, where in ((a, "scratch"), (b, "elsewhere/scratch")):
        folder = machine.root / where
        folder.mkdir(parents=True)
        machine.home.session(os.path.realpath(folder))
        store = machine.home.store(os.path.realpath(folder))
        loose[machine.name] = (folder, store)
    (loose["A"][1] / "idea.md").write_text(memory_text(name="idea"))
    projects = a.sync()["projects"]
    skipped = [p for p in projects if p["identity"] is None]
    assert len(skipped) == 1 and "has no git origin" in skipped[0]["skipped"]
    assert "--name NAME TARGET" in skipped[0]["skipped"]
    code, _, err = a.run("sync", "--name", "scratch", str(loose["A"][0]), "--json")
    assert code == 0, err
    code, out, err = b.run("sync", "--name", "scratch", str(loose["B"][0]), "--json")
    assert code == 0, err
    assert json.loads(out)["projects"][0]["pulled"] == ["idea.md"]
    assert (loose["B"][1] / "idea.md").exists()
    assert "scratch/memory/idea.md" in remote_files(remote)


def test_dry_run_changes_nothing(world):
    remote, _ = world
    a, b, _ = started(world)
    a.write("deploy.md", memory_text(name="deploy"))
    result = a.sync("--dry-run")["projects"][0]
    assert result["pushed"] == ["deploy.md"]
    assert "github.com/ana/app/memory/deploy.md" not in remote_files(remote)
    a.sync()
    before = sorted(p.name for p in b.store.iterdir())
    assert b.sync("--dry-run")["projects"][0]["pulled"] == ["deploy.md"]
    assert sorted(p.name for p in b.store.iterdir()) == before


def test_a_merged_index_that_pushes_entries_past_the_cut_asks_first(world):
    a, b, _ = started(world)
    filler = "".join(f"- [Note {n}](note-{n}.md) — a note\n" for n in range(190))
    a.write("MEMORY.md", INDEX + filler)
    a.sync()
    b.sync()
    b.write("MEMORY.md", INDEX.replace("# Memory\n", "# Memory\n" + "".join(
        f"- [B {n}](b-{n}.md) — from B\n" for n in range(12))) + filler)
    b.sync()
    a.write("MEMORY.md", INDEX + filler + "- [Last](last.md) — newest\n")
    result = a.sync()["projects"][0]
    assert result["skipped"] and "past the loaded cut" in result["skipped"]
    named = result["skipped"].split(" would leave ")[1].split(" past the")[0].split(", ")
    unseen = "it" if len(named) == 1 else "them"
    assert f"where Claude does not see {unseen};" in result["skipped"], result["skipped"]
    assert "--yes" in result["skipped"] and result["pulled"] == []
    result = a.sync("--yes")["projects"][0]
    assert result["skipped"] is None and result["pulled"] == ["MEMORY.md"]


def test_print_hooks_is_a_settings_snippet_and_edits_nothing(world):
    _, (a, _, _) = world
    code, out, err = a.run("sync", "--print-hooks")
    assert code == 0
    hooks = json.loads(out)["hooks"]
    assert sorted(hooks) == ["SessionEnd", "Stop"]
    for event in hooks:
        assert hooks[event][0]["hooks"][0]["command"].startswith(("memtui ", "nohup memtui ",
                                                                  sys.executable, "nohup "))
    assert "Stop (after every turn)" in err and "no network" in err  # says which does what
    assert not (a.home.home / "settings.json").exists()


def test_the_hooks_commit_after_each_turn_locally_and_sync_in_the_background_at_the_end(
        world):
    """A fetch and a push after every turn, with 120 s to wait: the turn's hook is a local
    journal commit, the network sync starts at SessionEnd and nobody waits for it."""
    from tui.history.journal import Journal

    remote, machines = world
    a, *_ = started(world)
    hooks = json.loads(a.run("sync", "--print-hooks")[1])["hooks"]
    (stop,) = hooks["Stop"][0]["hooks"]
    (end,) = hooks["SessionEnd"][0]["hooks"]
    assert " sync" not in stop["command"] and stop["timeout"] <= 30
    assert " sync --all " in end["command"] and end["command"].endswith("&")
    pushed = git("--git-dir", str(remote), "rev-parse", "main")
    a.write("deploys.md", memory_text(name="deploys", body="Deploy on Tuesdays.\n"))

    def hook(entry: dict) -> float:
        """Run as Claude Code runs a hook: a shell in the project, its time on the clock."""
        began = time.monotonic()
        done = subprocess.run(entry["command"], shell=True, cwd=a.checkout, timeout=60,
                              env={**os.environ, **a.env()})
        assert done.returncode == 0
        return time.monotonic() - began

    hook(stop)
    with a.active():
        journal = Journal(a.store)
        assert b"Deploy on Tuesdays." in journal.read(journal.head(), "deploys.md")
    assert git("--git-dir", str(remote), "rev-parse", "main") == pushed  # nothing sent
    assert hook(end) < 5  # the sync runs on after the hook has returned
    deadline = time.monotonic() + 60
    sent = "github.com/ana/app/memory/deploys.md"
    while sent not in remote_files(remote) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert sent in remote_files(remote)


def test_no_remote_yet_is_bad_usage(world):
    _, (a, _, _) = world
    code, out, err = a.run("sync", "--all")
    assert code == 2 and "--remote URL" in err


@pytest.mark.parametrize("url", [
    "git@github.com:ana/app.git", "https://github.com/ana/app", "https://github.com/ana/app.git/",
    "ssh://git@github.com:22/ana/app.git", "https://ana:ghp_secret@GitHub.com/ana/app.git",
    "git://github.com/ana/app",
])
def test_origin_forms_normalise_to_one_identity(url):
    from tui.sync.identity import normalise_origin

    assert normalise_origin(url) == "github.com/ana/app"


def test_origin_paths_and_nonsense():
    from tui.sync.identity import normalise_origin

    assert normalise_origin("/srv/git/app.git") == "file/srv/git/app"
    assert normalise_origin("file:///srv/git/app.git") == "file/srv/git/app"
    assert normalise_origin("https://host/../x") is None
    assert normalise_origin("") is None


def test_index_merge_keeps_order_drops_removed_and_never_duplicates():
    from tui.sync.plan import merge_index

    base = "# M\n- a\n- b\n- c\n"
    ours = "# M\n- a\n- c\n- new ours\n"  # removed b
    theirs = "# M\n- a\n- b\n- b2\n- c\n- new ours\n"  # added b2 after b, and the same line
    assert merge_index(base, ours, theirs) == "# M\n- a\n- b2\n- c\n- new ours\n"


def test_unreachable_ssh_host_is_one_sentence(world, monkeypatch):
    _, (a, _, _) = world
    monkeypatch.setenv("GIT_SSH_COMMAND", "false")
    a.write("x.md", memory_text(name="x"))
    code, out, err = a.run("sync", "--all", "--remote", "git@memtui.invalid:ana/memory.git")
    assert code == 1 and err.startswith("memtui: The sync remote git@memtui.invalid")
    assert err.count("\n") == 1
    code, _, err = a.run("sync", "--all")
    assert code == 2  # an unreachable remote was never remembered


def test_what_no_store_sends_is_never_pulled(world, tmp_path):
    """Another tool put a text file and a symlink in the project's folder on the remote."""
    remote, _ = world
    a, b, _ = started(world)
    other = tmp_path / "other"
    git("clone", "--quiet", str(remote), str(other))
    folder = other / "github.com/ana/app/memory"
    (folder / "notes.txt").write_text("not a memory\n")
    (folder / "escape.md").symlink_to("/etc/passwd")
    (folder / "real.md").write_text(memory_text(name="real"))
    git("add", "-A", cwd=other)
    git("-c", "user.name=x", "-c", "user.email=x@x", "commit", "--quiet", "-m", "other tool",
        cwd=other)
    git("push", "--quiet", "origin", "HEAD:main", cwd=other)
    result = b.sync()["projects"][0]
    assert result["skipped"] is None and result["pulled"] == ["real.md"]
    assert sorted(p.name for p in b.store.iterdir()) == ["MEMORY.md", "real.md", "testing.md"]


def test_a_sync_conflict_is_shown_and_resolved_by_memtui_merge(world):
    a, b, c = started(world)
    a.write("testing.md", TESTING.replace("Use the fixtures.", "Use the A fixtures."))
    b.write("testing.md", TESTING.replace("Use the fixtures.", "Use the B fixtures."))
    a.sync()
    code, out, _ = b.run("sync", "--all")
    assert code == 0
    assert f"keep one with `memtui merge {b.store / 'testing.md'} --keep first|second|both` " \
           "or K in the app" in out
    path = str(b.store / "testing.md")
    code, out, _ = b.run("merge", path)
    assert code == 1
    assert "1 conflict from memtui sync" in out
    assert "Use the B fixtures." in out and "Use the A fixtures." in out
    code, out, err = b.run("merge", path, "--keep", "second", "--yes")
    assert code == 0, err
    assert b.read("testing.md") == TESTING.replace("Use the fixtures.", "Use the A fixtures.")
    assert b.sync()["projects"][0]["pushed"] == ["testing.md"]
    a.sync()
    c.sync()
    assert a.read("testing.md") == c.read("testing.md") == b.read("testing.md")
    code, _, err = b.run("undo", str(b.store))  # the resolution is undoable like any change
    assert code == 0 and "<<<<<<<" in b.read("testing.md")


def test_sync_commands_import_nothing_heavy(world):
    _, (a, _, _) = world
    script = ("import sys; from tui.cli import main; main(['sync', '--print-hooks']); "
              "print(sorted(m for m in ('git', 'textual', 'detect_secrets') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env={**os.environ, **a.env()}).stdout
    assert out.rstrip().endswith("[]")


def test_one_base_whether_a_store_is_synced_by_path_or_with_all(world, tmp_path):
    """`sync TARGET` through a symlinked path and `sync --all` agree on the last base, so
    edits to different lines on two machines still merge without a conflict."""
    a, b, _ = started(world)
    link = tmp_path / "link-to-checkout"
    link.symlink_to(b.checkout)
    b.write("testing.md", TESTING.replace("Keep it fast.", "Keep it under a minute."))
    code, _, err = b.run("sync", str(link), "--json")
    assert code == 0, err
    a.write("testing.md", TESTING.replace("Run the whole suite.", "Run the whole suite twice."))
    b.write("testing.md", b.read("testing.md").replace("Use the fixtures.", "Use fixtures."))
    a.sync()
    assert b.sync()["projects"][0]["conflicts"] == []
    text = b.read("testing.md")
    assert "twice." in text and "under a minute." in text and "Use fixtures." in text


def test_a_damaged_clone_is_put_aside_and_fetched_again(world):
    from tui.sync.remote import clone_dir

    remote, _ = world
    a, b, _ = started(world)
    with b.active():
        clone = clone_dir(str(remote))
    (clone / "config").write_text("[core\nnot a git config\n")
    a.write("deploy.md", memory_text(name="deploy"))
    b.write("review.md", memory_text(name="review"))
    a.sync()
    result = b.sync()["projects"][0]
    assert result["pulled"] == ["deploy.md"] and result["pushed"] == ["review.md"]
    assert result["conflicts"] == []  # the bases outlived the clone
    assert any(p.name.startswith(clone.name + ".broken-") for p in clone.parent.iterdir())


def test_a_token_in_the_remote_url_is_never_printed(world):
    _, (a, _, _) = world
    a.write("x.md", memory_text(name="x"))
    url = "https://ana:ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8@memtui.invalid/ana/memory.git"
    code, out, err = a.run("sync", "--all", "--remote", url)
    assert code == 1 and "ghp_" not in out + err
    assert "https://memtui.invalid/ana/memory.git" in err


def test_a_conflict_resolved_elsewhere_is_not_called_unresolved_after_pulling_it(world):
    a, b, _ = started(world)
    a.write("testing.md", TESTING.replace("Use the fixtures.", "Use the A fixtures."))
    b.write("testing.md", TESTING.replace("Use the fixtures.", "Use the B fixtures."))
    a.sync()
    b.sync()
    a.sync()  # A now holds the conflict too
    assert "<<<<<<<" in a.read("testing.md")
    assert b.run("merge", str(b.store / "testing.md"), "--keep", "second", "--yes")[0] == 0
    b.sync()
    code, out, _ = a.run("sync", "--all")  # pulls B's resolution
    assert code == 0 and "<<<<<<<" not in a.read("testing.md")
    assert "1 pulled (testing.md)" in out
    assert "still hold" not in out


def test_a_new_machine_syncing_one_project_by_path_receives_its_memory(world):
    remote, (a, _, c) = world
    a.write("MEMORY.md", INDEX)
    a.write("testing.md", TESTING)
    a.sync("--remote", str(remote))
    c.store.rmdir()  # a fresh machine: the project is checked out, no memory here yet
    code, out, err = c.run("sync", str(c.checkout), "--remote", str(remote))
    assert code == 0, err
    assert "2 pulled (MEMORY.md, testing.md)" in out
    assert c.read("testing.md") == TESTING
    code, out, err = c.run("sync", str(c.checkout))  # and the remote was remembered
    assert code == 0 and "in sync" in out, err


def test_a_project_without_memory_or_origin_says_why_it_cannot_sync(world, tmp_path):
    remote, (_, _, c) = world
    loose = tmp_path / "loose"
    loose.mkdir()
    code, _, err = c.run("sync", str(loose), "--remote", str(remote))
    assert code == 2
    assert "no memory directory" in err and "no git origin" in err and "--name NAME" in err


def test_a_new_machine_with_sessions_but_no_memory_yet_receives_it(world):
    remote, (a, _, c) = world
    a.write("MEMORY.md", INDEX)
    a.write("testing.md", TESTING)
    a.sync("--remote", str(remote))
    c.store.rmdir()  # C has worked in the project, Claude Code has written no memory yet
    loose = c.root / "scratch"  # and a project with no origin and no memory: not listed
    loose.mkdir()
    c.home.session(os.path.realpath(loose))
    dry = c.sync("--remote", str(remote), "--dry-run")["projects"]
    assert [p["pulled"] for p in dry] == [["MEMORY.md", "testing.md"]]
    assert not c.store.exists()
    [result] = c.sync("--remote", str(remote))["projects"]
    assert result["pulled"] == ["MEMORY.md", "testing.md"] and result["skipped"] is None
    assert c.read("testing.md") == TESTING


@pytest.mark.parametrize("hidden", ["testing.md", "topics"])
def test_a_memory_that_cannot_be_read_is_no_deletion(world, hidden):
    """A file this machine cannot read (its mode, a folder's) is not gone: sync skips the
    store with the reason, and the other machines keep the memory."""
    import hostile_homes

    if not hostile_homes.can_deny_permissions():
        pytest.skip("permissions cannot be denied here (root without prctl)")
    remote, _ = world
    a, b, c = started(world)
    a.write("topics/api.md", TESTING)
    a.sync()
    b.sync()
    (a.store / hidden).chmod(0)
    try:
        result = subprocess.run(
            [sys.executable, "-m", "tui", "sync", "--all", "--json"],
            env={**os.environ, **a.env()}, capture_output=True, text=True, timeout=120,
            preexec_fn=hostile_homes.drop_root_bypass if os.geteuid() == 0 else None)
    finally:
        (a.store / hidden).chmod(0o755 if hidden == "topics" else 0o644)
    assert result.returncode == 0, result.stderr
    project = json.loads(result.stdout)["projects"][0]
    assert project["pushed"] == [] and project["pushed_deletions"] == []
    assert f"{hidden} cannot be read" in project["skipped"]
    assert {"github.com/ana/app/memory/testing.md",
            "github.com/ana/app/memory/topics/api.md"} <= set(remote_files(remote))
    b.sync()
    assert b.read("testing.md") == TESTING and b.read("topics/api.md") == TESTING
