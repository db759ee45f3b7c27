"""`memtui sync` on a user's first real day: machines that already hold memories, remotes
holding what no store can hold, secrets in names and encodings, a host that never answers,
and a dry run that leaves no trace. Real git, a local bare remote, three machines."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid

import pytest
from conftest import memory_text
from hostile_remotes import (
    TOKEN,
    BlackHole,
    holds_token,
    hostile_entries,
    processes_with,
    push_entries,
    remote_objects,
    secret_texts,
    snapshot_tree,
)
from sync_machines import git, make_machines

from tui.memory.audit import audit_store
from tui.memory.conflicts import find_conflicts
from tui.memory.frontmatter import parse
from tui.memory.store import load_store

INDEX = "# Memory\n- [Testing](testing.md) — how we test\n"
TESTING = memory_text(body="Run the whole suite.\nUse the fixtures.\nKeep it fast.\n")
FOLDER = "github.com/ana/app/memory"


@pytest.fixture
def world(tmp_path, capsys):
    return make_machines(tmp_path, capsys)


def started(world):
    remote, (a, b, c) = world
    a.write("MEMORY.md", INDEX)
    a.write("testing.md", TESTING)
    a.sync("--remote", str(remote))
    b.sync("--remote", str(remote))
    return a, b, c


def remote_files(remote) -> list[str]:
    return git("--git-dir", str(remote), "ls-tree", "-r", "--name-only", "main").split()


def reading_problems(store) -> dict[str, set[str]]:
    """Files by audit kind, of the kinds that say Claude Code cannot read a frontmatter."""
    found: dict[str, set[str]] = {}
    for finding in audit_store(load_store(store)):
        if finding.kind in ("missing_frontmatter", "bad_frontmatter", "unindexed"):
            found.setdefault(finding.kind, set()).add(finding.file)
    return found


# --- first contact -----------------------------------------------------------------------

def claude_memory(session: str, modified: str, body: str) -> str:
    return (f"---\nname: deploy-days\ndescription: When we deploy\nmetadata:\n  type: project\n"
            f"  node_type: memory\n  originSessionId: {session}\n  modified: {modified}\n"
            f"---\n\n{body}")


def test_two_machines_that_already_hold_memories_merge_on_first_contact(world):
    """Both machines saved the same memories in their own sessions (different session ids
    and times); one memory also says something different on each."""
    remote, (a, b, _) = world
    same = "Deploy on Tuesdays.\n\n**Why:** the freeze.\n"
    index = "# Memory\n" + "".join(f"- [Deploy {n}](deploy_{n}.md) — when\n" for n in range(20))
    for machine, stamp in ((a, "2026-05-01T10:00:00.100Z"), (b, "2026-05-01T10:00:00.900Z")):
        machine.write("MEMORY.md", index)
        for n in range(20):
            machine.write(f"deploy_{n}.md", claude_memory(str(uuid.uuid4()), stamp, same))
    a.write("deploy_0.md", claude_memory("a", "2026-05-01T10:00:00.100Z",
                                         "Deploy on Tuesdays.\nNever on Fridays.\n"))
    b.write("deploy_0.md", claude_memory("b", "2026-05-01T10:00:00.900Z",
                                         "Deploy on Tuesdays.\nFridays after noon only.\n"))
    before = {machine.name: reading_problems(machine.store) for machine in (a, b)}
    a.sync("--remote", str(remote))
    result = b.sync("--remote", str(remote))["projects"][0]
    assert result["conflicts"] == ["deploy_0.md"]
    a.sync()
    for machine in (a, b):
        text = machine.read("deploy_0.md")
        assert parse(text).present and parse(text).error is None
        assert text.count("Deploy on Tuesdays.") == 1  # what both have, once
        [conflict] = find_conflicts(text)
        assert conflict.first == ("Fridays after noon only.\n",)  # only the differing hunk
        assert conflict.second == ("Never on Fridays.\n",)
        assert conflict.machine == "B" and re.fullmatch(r"A, \d{4}-\d\d-\d\d \d\d:\d\d UTC",
                                                        conflict.other)
        # The others merged silently: B's later bookkeeping, no marker anywhere.
        assert machine.read("deploy_7.md") == b.read("deploy_7.md")
        assert "2026-05-01T10:00:00.900Z" in machine.read("deploy_7.md")
        assert reading_problems(machine.store) == before[machine.name]


def test_copies_that_differ_only_in_line_endings_meet_without_a_conflict_or_a_rewrite(world):
    """One machine's memories have CRLF line endings (an editor on Windows, a copy through
    a Windows share), the other's LF: the same texts to Claude Code, which drops each `\r`."""
    remote, (a, b, _) = world
    text = "---\nname: n\ndescription: note\ntype: user\n---\n\nSame text.\n"
    index = "# Memory\n- [N](n.md) — note\n"
    a.write("MEMORY.md", index.replace("\n", "\r\n"))
    a.write("n.md", text.replace("\n", "\r\n"))
    b.write("MEMORY.md", index)
    b.write("n.md", text)
    before = {machine.name: snapshot_tree(machine.store) for machine in (a, b)}
    for round_ in range(4):
        for machine in (a, b):
            result = machine.sync("--remote", str(remote))["projects"][0]
            assert result["conflicts"] == [] and result["pulled"] == [], result
            if round_:  # after the first round nothing goes back and forth
                assert result["pushed"] == [], (round_, machine.name, result)
    for machine in (a, b):
        assert snapshot_tree(machine.store) == before[machine.name]  # not a byte rewritten
    code, out, _ = b.run("sync", "--all", "--remote", str(remote))
    assert code == 0 and "in sync" in out
    # Words changed on one machine only come in whole on the other, with no conflict.
    b.write("n.md", text.replace("Same text.", "Edited on B.").replace("\n", "\r\n"))
    b.sync()
    result = a.sync()["projects"][0]
    assert result["conflicts"] == [] and result["pulled"] == ["n.md"]
    assert a.read("n.md") == text.replace("Same text.", "Edited on B.")  # read_text: \r\n -> \n


def test_memories_that_come_in_past_the_cut_are_named(world):
    """Nothing this machine saw is hidden, so nothing is held; but the other machine's
    memories land past the loaded cut here, where Claude does not see them: said."""
    remote, (a, b, _) = world
    for machine, prefix in ((a, "alpha"), (b, "beta")):
        machine.write("MEMORY.md", "".join(f"- [{prefix} {n}]({prefix}_{n}.md) — a note\n"
                                           for n in range(120)))
        for n in range(120):
            machine.write(f"{prefix}_{n}.md", memory_text(name=f"{prefix} {n}"))
    a.sync("--remote", str(remote))
    result = b.sync("--remote", str(remote), "--dry-run")["projects"][0]
    assert result["skipped"] is None
    assert result["arrived_past_cut"] == sorted(f"alpha_{n}.md" for n in range(80, 120))
    code, out, _ = b.run("sync", "--all", "--remote", str(remote), "--dry-run")
    assert code == 0 and "40 memories would come in past the loaded cut, where" in out
    code, out, _ = b.run("sync", "--all", "--remote", str(remote))
    assert code == 0 and ("40 memories came in past the loaded cut, where Claude does not "
                          "see them (alpha_100.md, alpha_101.md, ") in out
    code, out, _ = b.run("sync", "--all")
    assert code == 0 and "came in past" not in out  # said when they came


def test_a_machine_name_is_given_once_remembered_and_labels_its_side(world):
    remote, (a, b, _) = world
    code, out, err = b.run("sync", "--machine", "desk-pc")
    assert code == 0 and "This machine is desk-pc in sync conflicts." in out, err
    assert json.loads((b.root / "config_dir" / "sync.json").read_text())["machine"] == "desk-pc"
    a.write("rule.md", memory_text(name="rule", body="Tabs.\n"))
    b.write("rule.md", memory_text(name="rule", body="Spaces.\n"))
    a.sync("--remote", str(remote))
    code, out, _ = b.run("sync", "--all", "--remote", str(remote))
    [line] = [line for line in out.splitlines() if "1 conflict," in line]
    assert code == 0 and line.startswith("  github.com/ana/app: ")  # not "None: "
    [conflict] = find_conflicts(b.read("rule.md"))
    assert conflict.machine == "desk-pc" and conflict.other.startswith("A, ")
    assert b.run("sync", "--machine", "no good")[0] == 2
    code, _, err = b.run("sync", "--machine", TOKEN)
    assert code == 2 and "looks like a secret" in err and TOKEN not in err


def test_two_machines_left_with_one_hostname_are_told_how_to_tell_them_apart(world):
    remote, (a, b, _) = world
    for machine in (a, b):
        machine.write_settings({"remote": str(remote), "names": {}, "machine": "vm"})
    a.write("rule.md", memory_text(name="rule", body="Tabs.\n"))
    b.write("rule.md", memory_text(name="rule", body="Spaces.\n"))
    a.sync()
    code, out, _ = b.run("sync", "--all")
    assert code == 0 and "1 conflict," in out
    [line] = [line for line in out.splitlines() if "1 conflict," in line]
    assert "the other machine is called vm too: give this one its own name with " \
           "`memtui sync --machine NAME`" in line
    assert line.startswith("  github.com/ana/app: ")  # the project, not the machine's name


# --- delete vs edit ------------------------------------------------------------------------

def test_delete_here_edit_there_never_makes_an_orphan(world):
    remote, _ = world
    a, b, c = started(world)
    (a.store / "testing.md").unlink()
    a.write("MEMORY.md", "# Memory\n")
    b.write("testing.md", TESTING + "Edited on B.\n")
    a.sync()
    b.sync()
    a.sync()
    c.sync("--remote", str(remote))
    for machine in (a, b, c):
        assert "Edited on B." in machine.read("testing.md")
        assert machine.read("MEMORY.md") == INDEX
        assert "unindexed" not in reading_problems(machine.store)


# --- hostile remote entries ------------------------------------------------------------------

def named_store(machine, name: str):
    """A second project with no origin, named `name` on the remote."""
    folder = machine.root / "scratch" / name
    folder.mkdir(parents=True)
    machine.home.session(os.path.realpath(folder))
    store = machine.home.store(os.path.realpath(folder))
    code, _, err = machine.run("sync", "--name", name, str(folder))
    assert code == 0, err
    return store


@pytest.mark.parametrize("kind", ["dot-dot", "dot", "absolute", "long-name", "not-utf8",
                                  "symlink", "dot-git", "not-md", "too-big", "file-and-folder",
                                  "submodule"])
def test_an_entry_no_store_can_hold_is_left_alone_and_everything_else_syncs(world, kind):
    remote, _ = world
    a, b, _ = started(world)
    notes = {machine.name: named_store(machine, "notes") for machine in (a, b)}
    entries, reason, path = hostile_entries(remote)[kind]
    push_entries(remote, FOLDER, entries)
    a.write("fresh.md", memory_text(name="fresh"))
    (notes["A"] / "idea.md").write_text(memory_text(name="idea"))
    a.sync()
    b.write("from-b.md", memory_text(name="from b"))
    for _ in range(2):  # not once: every sync
        projects = {p["identity"]: p for p in b.sync()["projects"]}
        app = projects["github.com/ana/app"]
        assert app["skipped"] is None and projects["notes"]["skipped"] is None
        [blocked] = [item for item in app["blocked"] if reason in item["reason"]]
        assert blocked["reason"].startswith("not pulled: ")
        if path.isascii() and len(path) < 80:
            assert blocked["file"] == path
    assert b.read("fresh.md") is not None and (notes["B"] / "idea.md").is_file()
    assert f"{FOLDER}/from-b.md" in remote_files(remote)
    assert git("--git-dir", str(remote), "cat-file", "-p", f"main:{FOLDER}").count(
        entries[0][1].decode("utf-8", "replace") + "\n") or kind in ("absolute", "not-utf8")
    # Nothing was written where the entry pointed, and no clone was put aside.
    escaped = [p for p in b.root.rglob("*") if p.name in ("escape.md", "config.md", "passwd.md")]
    assert escaped == []
    assert not list((b.root / "state_dir").rglob("*.broken-*"))
    code, out, _ = b.run("sync", "--all")
    assert code == 0 and "not pulled and left as they are" in out


def test_a_folder_here_where_the_remote_has_a_file_and_the_reverse(world):
    """Two machines that made the same name a memory on one and a folder of memories on
    the other, on their first sync."""
    remote, (a, b, _) = world
    a.write("topics.md/api.md", memory_text(name="api"))
    a.write("shared.md", memory_text(name="shared"))
    b.write("topics.md", memory_text(name="topics"))
    a.sync("--remote", str(remote))
    for _ in range(2):
        result = b.sync("--remote", str(remote))["projects"][0]
        assert result["skipped"] is None
        reasons = {item["file"]: item["reason"] for item in result["blocked"]}
        assert reasons == {"topics.md": "not pushed: the remote has a folder of this name",
                           "topics.md/api.md": "not pulled: topics.md here is no folder"}
        assert b.read("shared.md") is not None
    assert b.read("topics.md") is not None and f"{FOLDER}/topics.md/api.md" in remote_files(remote)


def test_broken_clones_do_not_pile_up(world):
    from tui.sync.remote import clone_dir

    remote, _ = world
    a, b, _ = started(world)
    with b.active():
        clone = clone_dir(str(remote))
    for number in range(3):
        (clone / "config").write_text("[core\nnot a git config\n")
        b.write(f"note-{number}.md", memory_text(name=f"note {number}"))
        assert b.sync()["projects"][0]["pushed"] == [f"note-{number}.md"]
    assert len([p for p in clone.parent.iterdir() if ".broken-" in p.name]) == 1


# --- secrets ---------------------------------------------------------------------------------

def test_secrets_never_leave_in_a_name_or_in_any_encoding(world):
    remote, _ = world
    a, b, _ = started(world)
    a.write(f"{TOKEN}.md", memory_text(name="token as a name"))
    a.write(f"{TOKEN}/inside.md", memory_text(name="token as a folder"))
    for encoding, data in secret_texts().items():
        path = a.store / f"ci-{encoding}.md"
        path.write_bytes(data)
    a.write("clean.md", memory_text(name="clean"))
    code, out, err = a.run("sync", "--all", "--json")
    assert code == 0, err
    [project] = json.loads(out)["projects"]
    assert project["pushed"] == ["clean.md"]
    blocked = {item["file"]: item["reason"] for item in project["blocked"]}
    assert blocked["[REDACTED].md"].startswith("secret in its name (GitHub Token)")
    assert blocked["[REDACTED]/inside.md"].startswith("secret in its name")
    for encoding in secret_texts():
        assert blocked[f"ci-{encoding}.md"].startswith("secret on line 5 (GitHub Token)")
    assert TOKEN not in out + err
    code, out, err = a.run("sync", "--all")
    assert TOKEN not in out + err and "[REDACTED].md blocked: secret in its name" in out
    # Nothing on the remote holds the token: no path, no blob, no commit message.
    assert not any(TOKEN in path for path in remote_files(remote))
    assert not any(holds_token(data) for data in remote_objects(remote))


# --- a remote that never answers -------------------------------------------------------------

def test_a_remote_that_never_answers_ends_within_30_s_and_leaves_no_process(world):
    """ssh (banner never sent), git:// (no timeout of its own) and http (no reply), each
    against a port that accepts and stays silent; and one run ended by SIGTERM meanwhile."""
    _, (a, _, _) = world
    a.write("x.md", memory_text(name="x"))
    marker = uuid.uuid4().hex  # in the environment of memtui and everything it starts
    env = {key: value for key, value in os.environ.items()
           if key not in ("GIT_SSH_COMMAND", "GIT_SSH")}
    env.update(a.env(), MEMTUI_BLACK_HOLE_TEST=marker)
    with BlackHole() as hole:
        started_at = time.monotonic()
        runs = {scheme: subprocess.Popen(
            [sys.executable, "-m", "tui", "sync", "--all", "--remote", url], env=env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for scheme, url in hole.urls().items()}
        other = uuid.uuid4().hex
        url = hole.urls()["git"].replace("memory.git", "other.git")  # a clone of its own
        terminated = subprocess.Popen(
            [sys.executable, "-m", "tui", "sync", "--all", "--remote", url],
            env={**env, "MEMTUI_BLACK_HOLE_TEST": other}, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        while not processes_with(other, "git", "fetch") and time.monotonic() - started_at < 20:
            time.sleep(0.1)
        # Its git is waiting on the silent host.
        assert processes_with(other, "git", "fetch"), terminated.poll() or terminated.communicate()
        terminated.send_signal(signal.SIGTERM)
        asked = time.monotonic()
        terminated.communicate(timeout=10)
        assert time.monotonic() - asked < 5
        for scheme, process in runs.items():
            out, err = process.communicate(timeout=60)
            took = time.monotonic() - started_at
            assert took < 30, (scheme, took)
            assert process.returncode == 1 and out == "", (scheme, out, err)
            assert err.count("\n") == 1 and err.startswith("memtui: The sync remote "), err
            assert "nothing was changed" in err
        assert processes_with(marker) == [] and processes_with(other) == []
        assert terminated.returncode == 128 + signal.SIGTERM


# --- dry runs and first steps ------------------------------------------------------------------

def test_a_dry_run_writes_nothing_under_memtuis_state(world):
    remote, _ = world
    a, b, c = started(world)
    a.write("deploy.md", memory_text(name="deploy"))
    a.sync()
    state = b.root / "state_dir"
    before = snapshot_tree(state)
    assert b.sync("--dry-run")["projects"][0]["pulled"] == ["deploy.md"]
    assert snapshot_tree(state) == before
    # A machine that never synced: no state dir, no remembered remote, after a dry run.
    c.store.rmdir()
    result = c.sync("--remote", str(remote), "--dry-run")["projects"][0]
    assert result["pulled"] == ["MEMORY.md", "deploy.md", "testing.md"]
    assert not (c.root / "state_dir").exists()
    assert json.loads((c.root / "config_dir" / "sync.json").read_text())["remote"] is None
    assert not c.store.exists()


def test_sync_name_before_any_remote_is_remembered(world):
    remote, (a, _, c) = world
    folder = c.root / "notes"
    folder.mkdir()
    c.home.session(os.path.realpath(folder))
    store = c.home.store(os.path.realpath(folder))
    (store / "idea.md").write_text(memory_text(name="idea"))
    code, out, err = c.run("sync", "--name", "notes", str(folder))
    assert code == 0, err
    assert "is notes on the remote." in out and "No sync remote yet" in out
    projects = {p["identity"]: p for p in c.sync("--remote", str(remote))["projects"]}
    assert projects["notes"]["pushed"] == ["idea.md"]
    assert "notes/memory/idea.md" in remote_files(remote)
