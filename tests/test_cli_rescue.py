"""`memtui fix STRANDED rescue`: a stranded store's memories brought into the store its
project's sessions use, shown as a diff first, applied on --yes, taken back by
`memtui undo` on the live store."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import index_line, memory_text, snapshot, write_index, write_memory
from rescue_home import TABS_LINE, build_rescue_home

from tui import cli
from tui.memory.index import parse_index

RESCUED = {"feedback_tabs.md", "topics/api.md", "project_notes.md",
           "feedback_testing-from-shop-wt.md"}


@pytest.fixture
def rescue_home(claude_home, tmp_path):
    return build_rescue_home(claude_home, tmp_path)


def run(home, capsys, *args: str) -> tuple[int, str, str]:
    code = cli.main(["--config-dir", str(home.home), *args])
    out, err = capsys.readouterr()
    return code, out, err


def one_sentence(err: str) -> str:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("memtui: "), err
    return lines[0]


def visible_files(store) -> set[str]:
    text = (store / "MEMORY.md").read_text(encoding="utf-8")
    return {link.file for link in parse_index(text).links if link.visible}


def test_fix_rescue_applies_and_memtui_undo_on_the_live_store_takes_it_back(rescue_home, capsys):
    live_before = snapshot(rescue_home.live, recursive=True)
    stranded_before = snapshot(rescue_home.stranded, recursive=True)
    code, out, err = run(rescue_home, capsys, "fix", str(rescue_home.stranded), "rescue", "--yes")
    assert (code, err) == (0, ""), err
    assert out.startswith(f"Rescue 4 memories from shop-wt in {rescue_home.live}:")
    assert f"+{TABS_LINE}" in out  # the index diff
    assert f"undo {rescue_home.live}" in out.splitlines()[-1]
    assert RESCUED <= visible_files(rescue_home.live)
    assert snapshot(rescue_home.stranded, recursive=True) == stranded_before

    code, out, err = run(rescue_home, capsys, "undo", str(rescue_home.live))
    assert (code, err) == (0, "") and out.startswith("Undid rescue 4 memories")
    assert snapshot(rescue_home.live, recursive=True) == live_before


def test_fix_rescue_takes_the_removed_worktrees_path_as_its_target(rescue_home, capsys):
    code, out, err = run(rescue_home, capsys, "fix", str(rescue_home.worktree), "rescue",
                         "--dry-run")
    assert (code, err) == (0, ""), err
    assert f"The memories go to {rescue_home.live}" in out


def test_fix_rescue_dry_run_shows_the_diff_and_writes_nothing(rescue_home, capsys):
    before = snapshot(rescue_home.live, recursive=True)
    code, out, err = run(rescue_home, capsys, "fix", str(rescue_home.stranded), "rescue",
                         "--dry-run")
    assert (code, err) == (0, "")
    assert "+++ b/feedback_tabs.md" in out and "+++ b/MEMORY.md" in out
    assert "feedback_testing.md differs from the live store's" in out
    assert out.splitlines()[-1] == "Dry run: nothing was written."
    assert snapshot(rescue_home.live, recursive=True) == before


def test_fix_rescue_json_names_both_stores(rescue_home, capsys):
    code, out, err = run(rescue_home, capsys, "fix", str(rescue_home.stranded), "rescue",
                         "--yes", "--json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert (data["store"], data["rescued_from"]) == (str(rescue_home.live),
                                                      str(rescue_home.stranded))
    assert data["applied"] and str(rescue_home.live) in data["undo"]
    assert {change["file"] for change in data["changes"]} == RESCUED | {"MEMORY.md"}


def test_fix_rescue_of_a_store_that_is_not_stranded_is_refused(rescue_home, capsys):
    before = snapshot(rescue_home.live, recursive=True)
    code, out, err = run(rescue_home, capsys, "fix", str(rescue_home.live), "rescue", "--yes")
    assert (code, out) == (2, "")
    assert "is not stranded (sessions load it), so there is nothing to rescue." in \
        one_sentence(err)
    assert snapshot(rescue_home.live, recursive=True) == before


def test_fix_rescue_without_a_live_store_says_so_and_writes_nothing(claude_home, tmp_path,
                                                                    capsys):
    home = build_rescue_home(claude_home, tmp_path, worktree_state=False)
    before = snapshot(home.live, recursive=True)
    code, out, err = run(home, capsys, "fix", str(home.stranded), "rescue", "--yes")
    assert (code, out) == (2, "")
    assert one_sentence(err) == (
        f"memtui: No live store was found for {home.stranded}: {home.worktree} no longer "
        "exists, and no session names the checkout it came from; nothing was written.")
    assert snapshot(home.live, recursive=True) == before


def test_fix_rescue_takes_no_file(rescue_home, capsys):
    code, _, err = run(rescue_home, capsys, "fix", str(rescue_home.stranded), "rescue", "x.md",
                       "--yes")
    assert code == 2 and "takes no FILE" in one_sentence(err)


def test_fix_rescue_into_a_full_index_needs_push_out(rescue_home, capsys):
    write_index(rescue_home.live, [index_line(f"n{n}.md", f"Note {n}") for n in range(200)])
    for n in range(200):
        write_memory(rescue_home.live, f"n{n}.md", memory_text(f"n{n}", f"note {n}"))
    before = snapshot(rescue_home.live, recursive=True)
    code, _, err = run(rescue_home, capsys, "fix", str(rescue_home.stranded), "rescue", "--yes")
    assert code == 2 and "--push-out" in one_sentence(err)
    assert snapshot(rescue_home.live, recursive=True) == before


def test_fix_rescue_end_to_end_as_a_user_runs_it(rescue_home):
    """The installed command in a subprocess: no terminal, --yes, then audit says the
    live store's sessions see every rescued memory."""
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(rescue_home.home)}
    command = [sys.executable, "-m", "tui", "--config-dir", str(rescue_home.home)]
    result = subprocess.run([*command, "fix", str(rescue_home.stranded), "rescue", "--yes"],
                            capture_output=True, text=True, timeout=120, env=env,
                            stdin=subprocess.DEVNULL)
    assert (result.returncode, result.stderr) == (0, ""), result.stderr
    assert result.stdout.splitlines()[-1].startswith("Applied: 5 files changed.")
    audit = subprocess.run([*command, "audit", str(rescue_home.live), "--json"],
                           capture_output=True, text=True, timeout=120, env=env,
                           stdin=subprocess.DEVNULL)
    findings = json.loads(audit.stdout)["findings"]
    assert not [f for f in findings if f["kind"] in ("unindexed", "beyond_cut")]
    assert RESCUED <= visible_files(rescue_home.live)


def test_fix_rescue_waits_for_a_dream_that_holds_the_live_store(rescue_home, capsys):
    (rescue_home.live / ".consolidate-lock").write_text(str(os.getpid()))
    before = snapshot(rescue_home.live, recursive=True)
    code, out, err = run(rescue_home, capsys, "fix", str(rescue_home.stranded), "rescue", "--yes")
    assert (code, out) == (2, "")
    assert f"consolidation (process {os.getpid()}) is running in {rescue_home.live}" in \
        one_sentence(err)
    assert snapshot(rescue_home.live, recursive=True) == before


def test_audit_of_a_stranded_store_names_the_rescue(rescue_home, capsys):
    code, out, err = run(rescue_home, capsys, "audit", str(rescue_home.stranded))
    assert (code, err) == (1, "")
    assert f"fix: memtui fix {rescue_home.stranded} rescue copies its memories" in out


def test_audit_of_a_stranded_store_with_no_live_store_offers_no_rescue(claude_home, tmp_path,
                                                                      capsys):
    """The audit offers only the rescue `memtui fix ... rescue` would carry out."""
    home = build_rescue_home(claude_home, tmp_path, worktree_state=False)
    code, out, err = run(home, capsys, "audit", str(home.stranded))
    assert (code, err) == (1, "")
    assert "rescue copies" not in out
    assert (f"no rescue: no store to copy its memories into ({home.worktree} no longer "
            "exists, and no session names the checkout it came from)") in out


def test_sync_leaves_a_stranded_worktree_store_out_and_syncs_the_live_one(claude_home,
                                                                         tmp_path, capsys):
    """The worktree's store has its repository's origin too: synced, it would push
    memories no session reads under the project's name, or take that name from the store
    the sessions use (whichever came first)."""
    home = build_rescue_home(claude_home, tmp_path, remove=False)
    subprocess.run(["git", "-C", str(home.repo), "remote", "add", "origin",
                    "https://github.com/ana/shop.git"], check=True)
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    code, out, err = run(home, capsys, "sync", "--all", "--remote", str(remote), "--json")
    assert code == 0, err
    projects = {Path(p["store"]): p for p in json.loads(out)["projects"]}
    assert projects[home.stranded]["skipped"].startswith(
        f"not synced: stranded: it is keyed by {home.worktree}, but sessions there use ")
    live = projects[home.live]
    assert live["skipped"] is None and live["identity"] == "github.com/ana/shop"
    assert set(live["pushed"]) == {"MEMORY.md", "user_role.md", "feedback_testing.md"}


def test_fix_rescue_takes_a_worktree_that_still_exists_by_its_path(claude_home, tmp_path,
                                                                   capsys):
    """Sessions in a worktree use the main store, so its path names that store elsewhere;
    for a rescue it names the store keyed by it, the one to bring home."""
    home = build_rescue_home(claude_home, tmp_path, remove=False)
    code, out, err = run(home, capsys, "fix", str(home.worktree), "rescue", "--dry-run")
    assert (code, err) == (0, ""), err
    assert out.startswith(f"Rescue 4 memories from shop-wt in {home.live}:")
    assert (f"The memories go to {home.live}: sessions in {home.worktree} use it (the path "
            "the stranded store is keyed by).") in out


def test_a_second_fix_rescue_says_only_that_there_is_nothing_to_change(rescue_home, capsys):
    run(rescue_home, capsys, "fix", str(rescue_home.stranded), "rescue", "--yes")
    code, out, err = run(rescue_home, capsys, "fix", str(rescue_home.stranded), "rescue",
                         "--yes")
    assert (code, err) == (0, "")
    assert out.startswith(f"Nothing to change in {rescue_home.live}:\n")
    assert f"  feedback_tabs.md is already in {rescue_home.live} (identical); not copied." in out
    assert "Rescue 0 memories" not in out and "Undo it with" not in out
    code, out, err = run(rescue_home, capsys, "fix", str(rescue_home.stranded), "rescue",
                         "--dry-run", "--json")
    said = json.loads(out)
    assert (said["label"], said["changes"], said["applied"]) == \
        ("nothing to rescue from shop-wt", [], False)


def test_a_rescue_that_only_links_memories_already_copied_says_so_in_its_label(rescue_home,
                                                                               capsys):
    """The memories came over before, but the live index lost their lines: the rescue
    writes only index lines, and its label (the undo's too) does not read "0 memories"."""
    index = rescue_home.live / "MEMORY.md"
    index_before = index.read_bytes()
    run(rescue_home, capsys, "fix", str(rescue_home.stranded), "rescue", "--yes")
    index.write_bytes(index_before)
    code, out, err = run(rescue_home, capsys, "fix", str(rescue_home.stranded), "rescue",
                         "--yes")
    assert (code, err) == (0, ""), err
    assert out.startswith(f"Rescue index lines from shop-wt in {rescue_home.live}:")
    assert "0 memories" not in out
    code, out, err = run(rescue_home, capsys, "undo", str(rescue_home.live), "--list")
    assert "rescue index lines from shop-wt" in out and "0 memories" not in out
    assert index.read_bytes() != index_before


def doctor_rescue_fix(home, capsys, *options: str) -> str:
    code, out, err = run(home, capsys, *options, "doctor", str(home.stranded), "--json")
    assert err == "", err
    return next(check["fix"] for check in json.loads(out)["checks"]
                if check["id"] == "memory_dir")


def rescue_destination(home, capsys, *options: str) -> str:
    code, out, err = run(home, capsys, *options, "fix", str(home.stranded), "rescue",
                         "--dry-run", "--json")
    assert (code, err) == (0, ""), err
    return json.loads(out)["store"]


@pytest.mark.parametrize("worktree", ["removed", "still there, with --settings"])
def test_the_doctors_rescue_names_the_store_the_rescue_writes(claude_home, tmp_path, capsys,
                                                              worktree):
    home = build_rescue_home(claude_home, tmp_path, remove=worktree == "removed")
    options: tuple[str, ...] = ()
    live = str(home.live)
    if worktree != "removed":  # sessions run with this file keep every memory elsewhere
        flag = tmp_path / "flag-settings.json"
        live = str(tmp_path / "elsewhere")
        flag.write_text(json.dumps({"autoMemoryDirectory": live}))
        options = ("--settings", str(flag))

    fix = doctor_rescue_fix(home, capsys, *options)

    assert rescue_destination(home, capsys, *options) == live
    command, said = fix.split(" copies ")
    assert said == f"its memories into {live} (memtui undo there takes it back)"
    # The command as printed, run: it writes where the doctor says.
    program, *argv = shlex.split(command)
    assert program == "memtui" and argv[-2:] == [str(home.stranded), "rescue"]
    code, out, err = run(home, capsys, *argv, "--dry-run", "--json")
    assert (code, err) == (0, ""), err
    assert json.loads(out)["store"] == live


def test_a_rescue_under_settings_takes_the_worktree_path_before_its_new_store_exists(
        claude_home, tmp_path, capsys):
    """The worktree's path names the store keyed by it; the directory the settings file
    sends sessions to need not exist yet for the rescue to be planned."""
    home = build_rescue_home(claude_home, tmp_path, remove=False)
    elsewhere = tmp_path / "elsewhere"
    flag = tmp_path / "flag-settings.json"
    flag.write_text(json.dumps({"autoMemoryDirectory": str(elsewhere)}))
    code, out, err = run(home, capsys, "--settings", str(flag), "fix", str(home.worktree),
                         "rescue", "--dry-run", "--json")
    assert (code, err) == (0, ""), err
    assert json.loads(out)["store"] == str(elsewhere)
    assert json.loads(out)["rescued_from"] == str(home.stranded)
    assert not elsewhere.exists()  # a dry run


# --- `memtui audit PATH` says which store a path names, and why ----------------------------


def test_audit_of_a_worktree_path_names_the_store_its_sessions_use_and_the_stranded_one(
        claude_home, tmp_path, capsys):
    """Issue: on a stranded worktree's path, audit audited the main checkout's store (the
    one its sessions use) without saying so, while the stranded store had that path's name."""
    home = build_rescue_home(claude_home, tmp_path, remove=False)
    code, out, err = run(home, capsys, "audit", str(home.worktree))
    assert err == ""
    lines = out.splitlines()
    assert lines[0] == f"Store {home.live}"
    assert (f"chosen because {home.worktree} is a worktree of {home.repo}, and a worktree's "
            "sessions use the main checkout's store") in lines
    assert (f"not {home.stranded}: the store keyed by that path itself, which no session "
            f"loads (`memtui fix {home.stranded} rescue` brings its memories here)") in lines

    code, out, _ = run(home, capsys, "audit", str(home.worktree), "--json")
    report = json.loads(out)
    assert report["store"] == str(home.live)
    assert report["target"] == {
        "how": "project path",
        "why": f"{home.worktree} is a worktree of {home.repo}, and a worktree's sessions use "
               "the main checkout's store",
        "keyed_store": str(home.stranded)}


def test_audit_of_a_removed_worktrees_path_says_it_audits_the_store_keyed_by_it(
        rescue_home, capsys):
    code, out, _ = run(rescue_home, capsys, "audit", str(rescue_home.worktree), "--json")
    report = json.loads(out)
    assert report["store"] == str(rescue_home.stranded)
    assert report["target"] == {
        "how": "project path", "keyed_store": None,
        "why": f"{rescue_home.worktree} no longer exists; this is the store keyed by it"}


@pytest.mark.parametrize("where", ["checkout", "subfolder", "settings", "variable"])
def test_audit_of_a_checkout_path_says_why_it_names_its_store(rescue_home, tmp_path, capsys,
                                                              monkeypatch, where):
    path, options = rescue_home.repo, []
    why = f"Claude Code keys the store of sessions in {rescue_home.repo} by that path"
    if where == "subfolder":
        path = rescue_home.repo / "src"
        path.mkdir()
        why = (f"{path} is inside {rescue_home.repo}, and sessions in a subfolder use its "
               "root's store")
    elif where == "settings":
        flag = tmp_path / "flag.json"
        flag.write_text(json.dumps({"autoMemoryDirectory": str(rescue_home.live)}))
        options = ["--settings", str(flag)]
        why = f"autoMemoryDirectory in {flag} names it"
    elif where == "variable":
        monkeypatch.setenv("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", str(rescue_home.live))
        why = "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE names it, before any setting"
    code, out, _ = run(rescue_home, capsys, "audit", str(path), "--json", *options)
    assert json.loads(out)["target"] == {"how": "project path", "why": why, "keyed_store": None}
    code, out, _ = run(rescue_home, capsys, "audit", str(path), *options)
    assert f"chosen because {why}" in out.splitlines()


def test_a_rescued_stranded_store_is_no_error_and_retire_archives_it_undoably(rescue_home,
                                                                             capsys):
    stranded = rescue_home.stranded
    assert run(rescue_home, capsys, "audit", str(stranded))[0] == 1
    before = snapshot(stranded, recursive=True)
    run(rescue_home, capsys, "fix", str(stranded), "rescue", "--yes")

    code, out, err = run(rescue_home, capsys, "audit", str(stranded))
    assert (code, err) == (0, ""), out
    assert f"memtui fix {stranded} retire archives it" in out
    code, out, _ = run(rescue_home, capsys, "audit", str(stranded), "--json")
    [finding] = [f for f in json.loads(out)["findings"] if f["kind"].endswith("_store")]
    assert (finding["kind"], finding["severity"], finding["target"]) == (
        "rescued_store", "info", str(rescue_home.live))
    code, out, _ = run(rescue_home, capsys, "audit", "--all", "--json")
    [entry] = [e for e in json.loads(out) if e["store"] == str(stranded)]
    assert entry["errors"] == 0
    code, out, _ = run(rescue_home, capsys, "fix", str(stranded), "rescue", "--dry-run")
    assert f"The rescue is done: nothing of {stranded} is lost" in out

    code, out, err = run(rescue_home, capsys, "fix", str(stranded), "retire", "--yes")
    assert (code, err) == (0, ""), err
    assert not any(path.is_file() for path in stranded.rglob("*"))
    from tui.memory.writes import archive_dir

    archived = snapshot(archive_dir(stranded), recursive=True)
    assert archived == {file: data for file, data in before.items() if file in archived}
    assert {"feedback_tabs.md", "topics/api.md", "MEMORY.md"} <= set(archived)
    code, out, err = run(rescue_home, capsys, "undo", str(stranded))
    assert (code, err) == (0, "")
    assert snapshot(stranded, recursive=True) == before


def test_retire_before_the_rescue_is_refused_and_writes_nothing(rescue_home, capsys):
    before = snapshot(rescue_home.stranded, recursive=True)
    code, out, err = run(rescue_home, capsys, "fix", str(rescue_home.stranded), "retire", "--yes")
    assert code == 2 and "rescue` first" in one_sentence(err)
    assert snapshot(rescue_home.stranded, recursive=True) == before


def test_projects_calls_a_store_rescued_once_every_memory_is_home(rescue_home, capsys):
    """`memtui projects` says "stranded" until the rescue is done, then "rescued" with the
    retire that archives it, as the audit and the doctor do."""
    stranded = rescue_home.stranded

    def status() -> tuple[str, str, dict]:
        _, out, _ = run(rescue_home, capsys, "projects")
        [row] = [line for line in out.splitlines() if line.startswith(str(rescue_home.worktree))]
        _, listed, _ = run(rescue_home, capsys, "projects", "--json")
        [entry] = [e for e in json.loads(listed) if e["store"] == str(stranded)]
        return row.split()[-1], out, entry

    word, out, entry = status()
    assert word == "stranded" and entry["stranded"] and entry["rescued_into"] is None
    run(rescue_home, capsys, "fix", str(stranded), "rescue", "--yes")

    word, out, entry = status()
    assert word == "rescued"
    assert entry["stranded"] and entry["rescued_into"] == str(rescue_home.live)
    [note] = [line for line in out.splitlines() if line.startswith(("rescued: ", "stranded: "))]
    assert note.startswith(f"rescued: every memory of it is in {rescue_home.live} already")
    assert f"memtui fix {stranded} retire archives it" in note
