"""Joining transcript folders (keyed by cwd) to memory stores (keyed by git root), reference §1."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import (
    add_worktree,
    cpu_seconds,
    make_repo,
    memory_saved_record,
    real,
    user_record,
    worktree_state_record,
    write_memory,
)

from tui.claude import paths
from tui.claude.discovery import discover


def scan(claude_home):
    return discover(claude_home.home, claude_home.env)


def project_named(inventory, name):
    project = inventory.find(name)
    assert project is not None, [p.name for p in inventory.projects]
    return project


def folder_named(project, name):
    return next(f for f in project.transcript_folders if f.name == name)


@pytest.fixture
def repo(tmp_path):
    make_repo(tmp_path / "repo")
    return real(tmp_path / "repo")


def test_discovery_worktree_transcripts_map_to_main_store_by_git(tmp_path, repo, claude_home):
    import git

    worktree = real(add_worktree(git.Repo(repo), tmp_path / "wt", "feature"))
    store = claude_home.store(repo)
    claude_home.session(repo)
    claude_home.session(worktree)
    claude_home.session(worktree)
    project = project_named(scan(claude_home), paths.sanitize(str(repo)))
    assert project.store == store
    assert not project.stranded
    main = folder_named(project, paths.sanitize(str(repo)))
    linked = folder_named(project, paths.sanitize(str(worktree)))
    assert (main.mapped_by, main.role) == ("git", "main")
    assert (linked.mapped_by, linked.role, linked.sessions) == ("git", "worktree", 2)
    assert project.sessions == 3
    assert str(worktree) in project.paths


def test_discovery_subdirectory_transcripts_map_to_root_store(repo, claude_home):
    (repo / "src").mkdir()
    store = claude_home.store(repo)
    claude_home.session(repo / "src")
    project = project_named(scan(claude_home), paths.sanitize(str(repo)))
    sub = folder_named(project, paths.sanitize(str(repo / "src")))
    assert project.store == store
    assert (sub.mapped_by, sub.role) == ("git", "subdirectory")
    assert project.key_path == str(repo)


def test_discovery_deleted_worktree_folder_mapped_by_memory_evidence(tmp_path, repo, claude_home):
    store = claude_home.store(repo)
    claude_home.session(repo)
    gone = str(tmp_path / "deleted-worktree")
    # Written on another machine's config home: the folder name is what identifies the store.
    elsewhere = f"/home/someone/.claude/projects/{store.parent.name}/memory/feedback_x.md"
    claude_home.session(gone, memory_saved_record([elsewhere]))
    project = project_named(scan(claude_home), store.parent.name)
    deleted = folder_named(project, paths.sanitize(gone))
    assert (deleted.mapped_by, deleted.role) == ("evidence", "deleted")
    assert deleted.note


@pytest.mark.parametrize("local", [True, False], ids=["folder here", "folder only there"])
def test_a_memory_path_written_on_windows_names_its_folder_not_the_projects_folder(
        tmp_path, claude_home, local):
    """`C:\\Users\\me\\.claude\\projects\\<F>\\memory\\x.md`: on POSIX the whole
    path is one name, so its folder was taken as "" and the store as `projects/memory`."""
    folder = "C--Users-me-repo"
    if local:
        (claude_home.home / "projects" / folder / "memory").mkdir(parents=True)
    written = rf"C:\Users\me\.claude\projects\{folder}\memory\feedback_x.md"
    gone = str(tmp_path / "gone-checkout")
    claude_home.session(gone, memory_saved_record([written]))
    project, mapped = next((p, f) for p in scan(claude_home).projects
                           for f in p.transcript_folders if f.name == paths.sanitize(gone))
    expected = (claude_home.home / "projects" / folder / "memory" if local
                else Path(written.rpartition("\\")[0]))
    assert (project.store, mapped.mapped_by) == (expected, "evidence")


def test_discovery_deleted_worktree_folder_mapped_by_worktree_state(tmp_path, repo, claude_home):
    store = claude_home.store(repo)
    gone = str(tmp_path / "repo-wt-gone")
    claude_home.session(gone, worktree_state_record(str(repo), gone))
    project = project_named(scan(claude_home), store.parent.name)
    deleted = folder_named(project, paths.sanitize(gone))
    assert (deleted.mapped_by, deleted.role) == ("worktree-state", "deleted")
    assert str(repo) in deleted.note


def test_discovery_unmapped_folder_gets_a_note(tmp_path, claude_home):
    gone = str(tmp_path / "vanished")
    claude_home.session(gone)
    project = project_named(scan(claude_home), paths.sanitize(gone))
    assert project.store is None
    assert project.transcript_folders[0].mapped_by == "unmapped"
    assert gone in project.note and "no longer exists" in project.note


def test_discovery_folder_without_any_cwd_is_unmapped_with_a_note(claude_home):
    claude_home.transcript("-somewhere", [user_record(None)])
    project = project_named(scan(claude_home), "-somewhere")
    assert project.store is None
    assert project.note == "no transcript record names a working directory"


def test_discovery_stranded_store_keyed_by_a_worktree_path(tmp_path, repo, claude_home):
    import git

    worktree = real(add_worktree(git.Repo(repo), tmp_path / "wt", "feature"))
    claude_home.store(repo)
    stranded = claude_home.store(worktree)
    write_memory(stranded, "lost.md", "a memory\n")
    claude_home.session(worktree)
    project = project_named(scan(claude_home), stranded.parent.name)
    assert project.stranded
    assert str(repo) in project.stranded_reason
    assert project.memories == 1


def test_discovery_stranded_store_keyed_by_worktree_path_without_transcripts(tmp_path, repo, claude_home):
    import git

    worktree = real(add_worktree(git.Repo(repo), tmp_path / "wt2", "other"))
    stranded = claude_home.store(worktree)
    project = project_named(scan(claude_home), stranded.parent.name)
    assert project.stranded
    assert project.key_path == str(worktree)


def test_discovery_stranded_store_keyed_by_a_path_that_no_longer_exists(tmp_path, claude_home):
    gone = str(tmp_path / "deleted-checkout")
    store = claude_home.store(gone)
    claude_home.session(gone)
    (project,) = scan(claude_home).projects  # the folder and its store are one project
    assert project.store == store
    assert project.stranded
    assert "no longer exists" in project.stranded_reason
    assert project.sessions == 1
    assert project.transcript_folders[0].mapped_by == "folder"


def test_discovery_folder_without_any_cwd_joins_the_store_inside_it(claude_home):
    store = claude_home.store(folder="-somewhere")
    claude_home.transcript("-somewhere", [user_record(None)])
    (project,) = scan(claude_home).projects
    assert (project.store, project.sessions) == (store, 1)
    assert (project.transcript_folders[0].mapped_by, project.transcript_folders[0].role) == (
        "folder", "other")


def test_discovery_memory_writes_outrank_the_store_inside_the_folder(tmp_path, repo, claude_home):
    """A gone worktree that once had its own store (issue #81833) but wrote the main one."""
    main_store = claude_home.store(repo)
    gone = str(tmp_path / "repo-wt-gone")
    own_store = claude_home.store(gone)
    claude_home.session(gone, memory_saved_record([str(main_store / "feedback_x.md")]))
    inventory = scan(claude_home)
    main = project_named(inventory, main_store.parent.name)
    assert folder_named(main, paths.sanitize(gone)).mapped_by == "evidence"
    stranded = project_named(inventory, own_store.parent.name)
    assert (stranded.sessions, stranded.key_path, stranded.stranded) == (0, gone, True)


def test_discovery_worktree_state_finds_the_store_of_a_gone_checkout_without_transcripts(
        tmp_path, claude_home):
    # Transcripts are swept after 30 days; memory directories never are.
    checkout = str(tmp_path / "gone-checkout")
    store = claude_home.store(checkout)
    worktree = str(tmp_path / "gone-checkout-wt")
    claude_home.session(worktree, worktree_state_record(checkout, worktree))
    (project,) = scan(claude_home).projects
    assert project.store == store
    assert folder_named(project, paths.sanitize(worktree)).mapped_by == "worktree-state"


def test_discovery_stranded_store_no_path_on_this_machine(claude_home):
    store = claude_home.store(folder="-nowhere-at-all-on-this-machine")
    project = project_named(scan(claude_home), store.parent.name)
    assert project.stranded
    assert project.key_path is None
    assert "no path on this machine" in project.stranded_reason


def test_discovery_resting_project_found_by_walking_the_filesystem(tmp_path, claude_home):
    resting = real(tmp_path / "my_project.v2")
    resting.mkdir()
    store = claude_home.store(resting)
    project = project_named(scan(claude_home), store.parent.name)
    assert project.resting
    assert not project.stranded
    assert project.key_path == str(resting)
    assert project.sessions == 0


def test_discovery_filesystem_walk_with_many_dashes_stays_fast(tmp_path, claude_home):
    base = real(tmp_path)
    # Every prefix of the name also exists as a sibling: each is a plausible branch.
    parts = [f"p{i}" for i in range(12)]
    deep = base / "-".join(parts)
    deep.mkdir()
    for i in range(1, len(parts)):
        (base / "-".join(parts[:i])).mkdir()
        (base / "-".join(parts[:i]) / "-".join(parts[i:])).mkdir()
    store = claude_home.store(deep)
    started = cpu_seconds()
    project = project_named(scan(claude_home), store.parent.name)
    assert cpu_seconds() - started < 10
    assert project.resting
    assert project.key_path in {str(base / "-".join(parts[:i]) / "-".join(parts[i:]))
                                for i in range(1, len(parts))} | {str(deep)}


def test_discovery_last_consolidated_is_the_lock_mtime(repo, claude_home):
    store = claude_home.store(repo)
    lock = store / paths.LOCK_NAME
    lock.write_text("")
    os.utime(lock, (1_700_000_000, 1_700_000_000))
    project = project_named(scan(claude_home), store.parent.name)
    assert project.last_consolidated == 1_700_000_000


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_discovery_survives_an_unreadable_transcript(tmp_path, repo, claude_home):
    claude_home.store(repo)
    claude_home.session(repo)
    locked = claude_home.session(repo)
    locked.chmod(0)
    try:
        project = project_named(scan(claude_home), paths.sanitize(str(repo)))
        assert project.sessions == 2
    finally:
        locked.chmod(0o644)


def test_discovery_survives_broken_symlinks_in_projects(tmp_path, repo, claude_home):
    claude_home.store(repo)
    claude_home.session(repo)
    (claude_home.projects / "-dangling").symlink_to(tmp_path / "missing-dir")
    folder = claude_home.folder(paths.sanitize(str(repo)))
    (folder / "00000000-0000-0000-0000-000000000000.jsonl").symlink_to(tmp_path / "missing.jsonl")
    project = project_named(scan(claude_home), paths.sanitize(str(repo)))
    assert project.sessions == 1


def test_discovery_projects_folder_with_2000_entries_completes(tmp_path, claude_home):
    gone = tmp_path / "gone"
    for i in range(1000):
        claude_home.session(f"{gone}/t{i}")
    for i in range(1000):
        claude_home.store(gone / f"s{i}")
    started = cpu_seconds()
    inventory = scan(claude_home)
    assert len(inventory.projects) == 2000
    assert cpu_seconds() - started < 60


def test_a_gone_folder_naming_two_stores_alike_maps_the_same_on_every_run(tmp_path, claude_home):
    """A tie between two stores the transcripts name once each goes to the first by path,
    not to whichever a set iterates first (that changes with the hash seed)."""
    import json
    import subprocess
    import sys

    stores = [claude_home.store(tmp_path / name) for name in ("beta", "alpha")]
    gone = str(tmp_path / "gone-checkout")
    claude_home.session(gone, memory_saved_record([str(s / "fact.md") for s in stores]))
    mapped = set()
    for seed in range(6):
        result = subprocess.run(
            [sys.executable, "-m", "tui", "projects", "--json"], capture_output=True, text=True,
            env={**os.environ, **claude_home.env, "PYTHONHASHSEED": str(seed)}, timeout=60)
        folder = next(f for p in json.loads(result.stdout) for f in p["transcript_folders"]
                      if f["cwd"] == gone)
        mapped.add(next(p["store"] for p in json.loads(result.stdout)
                        if folder in p["transcript_folders"]))
    assert mapped == {str(min(stores))}


# --- the evidence cache forgets deleted transcripts -----------------------------------------


def evidence_keys() -> set[str]:
    import json

    from tui.claude.transcripts import evidence_cache_path

    return set(json.loads(evidence_cache_path().read_text()))


def test_a_deleted_transcript_leaves_no_evidence_entry(tmp_path, repo, claude_home):
    import shutil

    store = claude_home.store(repo)
    gone = str(tmp_path / "deleted-worktree")
    saved = memory_saved_record([str(store / "feedback_x.md")])
    kept, deleted = claude_home.session(gone, saved), claude_home.session(gone, saved)
    scan(claude_home)
    assert evidence_keys() == {str(kept), str(deleted)}
    deleted.unlink()

    inventory = scan(claude_home)

    assert evidence_keys() == {str(kept)}
    assert folder_named(project_named(inventory, store.parent.name),
                        paths.sanitize(gone)).mapped_by == "evidence"
    shutil.rmtree(kept.parent)  # no folder needs evidence now: the cache is still pruned
    scan(claude_home)
    assert evidence_keys() == set()


def test_evidence_of_transcripts_still_on_disk_is_kept(tmp_path, repo, make_home):
    import json

    from tui.claude.transcripts import evidence_cache_path

    here, other = make_home(), make_home()
    store = here.store(repo)
    saved = memory_saved_record([str(store / "feedback_x.md")])
    other_home = other.session(str(tmp_path / "gone-elsewhere"), saved)
    discover(other.home, other.env)
    listed = here.session(str(tmp_path / "gone-here"), saved)
    # A file under this home that no discovery listing names (not a session transcript):
    unlisted = listed.parent / "agent-1.jsonl"
    unlisted.write_text(listed.read_text())
    discover(here.home, here.env)
    entries = json.loads(evidence_cache_path().read_text())
    entries[str(unlisted)] = entries[str(listed)]
    evidence_cache_path().write_text(json.dumps(entries))

    discover(here.home, here.env)

    assert evidence_keys() == {str(other_home), str(listed), str(unlisted)}


def test_cache_files_a_folder_took_the_place_of_cost_time_and_leave_nothing_behind(
        tmp_path, repo, claude_home):
    """A cache that cannot be replaced is not written, run after run, without a partial
    file left beside it each time."""
    from tui import xdg
    from tui.claude.discovery_cache import cache_path
    from tui.claude.transcripts import evidence_cache_path

    store = claude_home.store(repo)
    gone = str(tmp_path / "deleted-worktree")
    claude_home.session(gone, memory_saved_record([str(store / "feedback_x.md")]))
    for cache in (cache_path(claude_home.home), evidence_cache_path()):
        cache.mkdir(parents=True)
    before = set(os.listdir(xdg.cache_dir()))

    for _ in range(2):
        inventory = scan(claude_home)
        assert folder_named(project_named(inventory, store.parent.name),
                            paths.sanitize(gone)).mapped_by == "evidence"

    assert set(os.listdir(xdg.cache_dir())) - before <= {"transcript-scan.sqlite"}
