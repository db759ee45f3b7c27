"""Whole-tree commands print the same bytes however fast they got there: from a cold or a
warm evidence cache, with audits started before discovery or after it, in workers or here.

The tree is `benchmarks/generate.py`'s heavy user's shape, small: deleted worktrees mapped
by transcript evidence, resting stores, near-duplicates, broken files.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from tui.cli import main
from tui.memory.bulk import audit_many, checked_against_code

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import generate  # noqa: E402


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    return generate.ensure(tmp_path_factory.mktemp("tree") / "heavy", projects=40,
                           memories=900, quiet=True, transcript_mb=6)


def printed(capsys, *argv: str) -> str:
    main(list(argv))
    return capsys.readouterr().out


def test_projects_json_is_the_same_from_a_cold_and_a_warm_evidence_cache(tree, capsys):
    from tui import xdg

    cache = xdg.cache_dir()
    shutil.rmtree(cache, ignore_errors=True)
    cold = printed(capsys, "--config-dir", str(tree), "projects", "--json")
    assert (cache / "transcript-evidence.json").exists()
    warm = printed(capsys, "--config-dir", str(tree), "projects", "--json")
    assert warm == cold
    mapped = [f["mapped_by"] for p in json.loads(cold) for f in p["transcript_folders"]]
    assert "evidence" in mapped  # the tree has deleted worktrees found through transcripts


def test_a_cold_run_reading_with_a_forked_child_prints_what_one_process_prints(
        tree, capsys, monkeypatch):
    """The first cwds read ahead, half in a child, and every folder's evidence search
    split with one: the same projects, byte for byte."""
    from tui import forked, xdg
    from tui.claude import transcripts

    shutil.rmtree(xdg.cache_dir(), ignore_errors=True)
    alone = printed(capsys, "--config-dir", str(tree), "projects", "--json")
    shutil.rmtree(xdg.cache_dir(), ignore_errors=True)
    forks = []
    real_fork = forked.fork_call
    monkeypatch.setattr(forked, "fork_call", lambda *args: forks.append(args[1].__name__)
                        or real_fork(*args))
    monkeypatch.setattr(transcripts, "FIRST_CWDS_SHARED", 2)
    monkeypatch.setattr(transcripts, "PARALLEL_BYTES", 0)
    assert printed(capsys, "--config-dir", str(tree), "projects", "--json") == alone
    assert {"_first_cwd_of", "_memory_dir_search_of"} <= set(forks)


def test_audit_all_json_is_what_a_plain_audit_of_each_store_gives(tree, capsys):
    from tui.claude.discovery import discover
    from tui.memory.triage import cost

    printed_json = printed(capsys, "--config-dir", str(tree), "audit", "--all", "--json",
                           "--no-cache")
    inventory = discover(tree, {"CLAUDE_CONFIG_DIR": str(tree)})
    stores = [p for p in inventory.projects if p.store_exists]
    plain = checked_against_code(  # each store's paths against its checkout, as `audit` does
        audit_many([(p.store, p.stranded_reason or None) for p in stores], workers=1),
        {p.store: p.key_path for p in stores})
    expected = json.dumps([
        {"store": str(a.store), "memories": a.memories, "errors": a.errors,
         "cached": a.cached, "cost": cost(a.findings).to_json(),
         "findings": [f.to_json() for f in a.findings]}
        for a in plain
    ], indent=2, ensure_ascii=False) + "\n"
    assert printed_json == expected
    assert sum(a.memories for a in plain) >= 900


# --- the discovery cache against changes between runs ------------------------------------

AGED = generate.EPOCH  # files written by a test, dated back as if the change were old
# The trees are made once for the module: its tests in one worker of a parallel run.
pytestmark = pytest.mark.xdist_group("tree_output")


@pytest.fixture(scope="module")
def small_tree_made(tmp_path_factory) -> Path:
    """Where the small tree is, and a copy of it as generated and aged: generating it takes
    seconds of CPU, a copy a tenth of that."""
    import os

    place = tmp_path_factory.mktemp("small-tree")
    home = generate.ensure(place / "heavy", projects=40, memories=300, quiet=True)
    age(home / "settings.json")
    for folder, _, names in os.walk(home.parent / "code"):  # pointer files, listed folders
        for name in names:
            age(Path(folder) / name)
        age(Path(folder))
    age(home.parent / "code")
    for listed in (home / "projects").glob("*/memory"):  # listings counted
        age(listed)
    for listed in (home / "projects").iterdir():  # transcript folders listed
        age(listed)
    shutil.copytree(place / "heavy", place / "as-made", symlinks=True)  # times kept
    return place


@pytest.fixture
def small_tree(small_tree_made) -> Path:
    """The small tree as made, whatever an earlier test did to it: put back at the one path
    its files name (transcripts' cwds, folder names, git pointers)."""
    heavy = small_tree_made / "heavy"
    shutil.rmtree(heavy)
    shutil.copytree(small_tree_made / "as-made", heavy, symlinks=True)
    return heavy / "config"


def age(path: Path, seconds: int = 0) -> None:
    import os

    os.utime(path, (AGED + seconds, AGED + seconds))


def projects_json(capsys, home: Path) -> str:
    return printed(capsys, "--config-dir", str(home), "projects", "--json")


def uncached_projects_json(capsys, home: Path) -> str:
    from tui import xdg

    shutil.rmtree(xdg.cache_dir(), ignore_errors=True)
    return projects_json(capsys, home)


def cached_then_uncached(capsys, home: Path, change) -> tuple[str, str, str]:
    """(before the change, cached run after it, uncached run after it)."""
    before = projects_json(capsys, home)
    assert projects_json(capsys, home) == before  # the cache is warm and agrees
    change()
    return before, projects_json(capsys, home), uncached_projects_json(capsys, home)


def folders(output: str) -> dict[str, dict]:
    return {Path(f["path"]).name: f for p in json.loads(output) for f in p["transcript_folders"]}


def test_a_warm_discovery_resolves_no_cwd_again(small_tree, capsys, monkeypatch):
    from tui.claude import discovery

    projects_json(capsys, small_tree)
    resolved = []
    real = discovery.canonical_project_root
    monkeypatch.setattr(discovery, "canonical_project_root",
                        lambda cwd: resolved.append(cwd) or real(cwd))
    projects_json(capsys, small_tree)
    assert resolved == []


def test_switching_between_two_config_homes_keeps_both_warm(small_tree, claude_home, capsys,
                                                           monkeypatch):
    """Someone with a work and a personal CLAUDE_CONFIG_DIR: one shared cache was all
    resolved again at every switch."""
    from tui import xdg
    from tui.claude import discovery

    claude_home.session(claude_home.home.parent / "elsewhere")
    projects_json(capsys, small_tree)
    projects_json(capsys, claude_home.home)
    resolved = []
    real = discovery.canonical_project_root
    monkeypatch.setattr(discovery, "canonical_project_root",
                        lambda cwd, *rest: resolved.append(cwd) or real(cwd, *rest))
    projects_json(capsys, small_tree)
    projects_json(capsys, claude_home.home)
    assert resolved == []
    assert not (xdg.cache_dir() / "discovery.json").exists()


def test_one_stores_audit_neither_reads_nor_rewrites_the_whole_trees_cache(small_tree, capsys,
                                                                          monkeypatch):
    """A single store's stranded state is worked out from its own folder (~1 ms), not by
    loading the tree's discovery cache (~20 ms on a heavy tree), and the cache is left as it
    was; the audit says what it says with no cache at all."""
    import os

    from tui.claude import discovery_cache
    from tui.claude.discovery_cache import cache_path

    projects_json(capsys, small_tree)
    stranded = next(p for p in json.loads(projects_json(capsys, small_tree))
                    if p["store_exists"] and p["stranded"])
    # Taken after the second run: the first may leave entries it could not trust yet (files
    # changed in the last 2 s), which the second then writes.
    cache = cache_path(small_tree)
    before = (cache.read_bytes(), os.stat(cache).st_mtime_ns)
    read = []
    real_read = discovery_cache.read_regular
    monkeypatch.setattr(discovery_cache, "read_regular",
                        lambda path, *rest: read.append(str(path)) or real_read(path, *rest))
    audited = printed(capsys, "--config-dir", str(small_tree), "audit", stranded["store"], "--json")
    assert str(cache) not in read
    assert (cache.read_bytes(), os.stat(cache).st_mtime_ns) == before
    cache.write_text('{"version": 1}')  # a cache that answers nothing
    assert printed(capsys, "--config-dir", str(small_tree), "audit", stranded["store"],
                   "--json") == audited
    assert "stranded_store" in audited


def test_new_transcripts_in_a_new_checkout_are_seen_by_a_cached_run(small_tree, capsys):
    import git

    new_repo = small_tree.parent / "code" / "new-checkout"
    git.Repo.init(new_repo)
    source = next((small_tree / "projects").glob("*/*.jsonl"))
    first = json.loads(source.read_text().splitlines()[1])
    folder = small_tree / "projects" / generate.sanitize(str(new_repo))
    existing = next(f for f in (small_tree / "projects").iterdir()
                    if f != source.parent and any(f.glob("*.jsonl")))

    def change():
        folder.mkdir()
        for place in (folder, existing):  # a new folder, and the newest session of another
            copy = place / "00000000-0000-4000-8000-000000000000.jsonl"
            copy.write_text(source.read_text().replace(first["cwd"], str(new_repo)))
            age(copy, 200 * 86_400)

    before, cached, uncached = cached_then_uncached(capsys, small_tree, change)
    assert cached == uncached
    assert folder.name not in folders(before)
    assert folders(cached)[folder.name]["mapped_by"] == "git"
    assert folders(cached)[existing.name]["cwd"] == str(new_repo)


def test_a_removed_worktree_is_seen_by_a_cached_run(small_tree, capsys):
    before = projects_json(capsys, small_tree)
    worktree = next(f for f in folders(before).values() if f["role"] == "worktree")

    def change():
        shutil.rmtree(worktree["cwd"])

    before, cached, uncached = cached_then_uncached(capsys, small_tree, change)
    assert cached == uncached
    assert folders(cached)[Path(worktree["path"]).name]["role"] == "deleted"


def test_a_changed_auto_memory_directory_is_seen_by_a_cached_run(small_tree, capsys):
    before = projects_json(capsys, small_tree)
    main = next(f for f in folders(before).values() if f["role"] == "main")
    elsewhere = small_tree.parent / "elsewhere-memory"
    local = Path(main["cwd"]) / ".claude" / "settings.local.json"
    user = small_tree / "settings.json"

    def project_setting():
        local.parent.mkdir(exist_ok=True)
        local.write_text(json.dumps({"autoMemoryDirectory": str(elsewhere)}))
        age(local, 60)

    _, cached, uncached = cached_then_uncached(capsys, small_tree, project_setting)
    assert cached == uncached
    assert str(elsewhere) in [p["store"] for p in json.loads(cached)]

    def user_setting():  # same size, a new mtime: only the file's signature tells
        user.write_text(json.dumps({"autoMemoryDirectory": str(elsewhere) + "-user"}))
        age(user, 120)

    _, cached, uncached = cached_then_uncached(capsys, small_tree, user_setting)
    assert cached == uncached
    assert str(elsewhere) + "-user" in [p["store"] for p in json.loads(cached)]


def test_a_new_store_is_seen_by_a_cached_run(small_tree, capsys):
    before = projects_json(capsys, small_tree)
    unstored = next(p for p in json.loads(before) if p["store"] and not p["store_exists"])

    def change():
        Path(unstored["store"]).mkdir()
        (Path(unstored["store"]) / "fact.md").write_text("---\nname: fact\n---\nbody\n")

    _, cached, uncached = cached_then_uncached(capsys, small_tree, change)
    assert cached == uncached
    assert next(p for p in json.loads(cached) if p["store"] == unstored["store"])["memories"] == 1


def test_a_damaged_discovery_cache_is_read_again(small_tree, capsys):
    from tui.claude.discovery_cache import cache_path

    expected = projects_json(capsys, small_tree)
    cache = cache_path(small_tree)
    assert cache.exists()
    for damage in ('{"version": 1, "context": [], "transcripts": [1], "resolutions": 7}',
                   cache.read_text()[:-40], '{"version": 1, "transcripts": {"x": [1, 2, 3, 4]}}'):
        cache.write_text(damage)
        assert projects_json(capsys, small_tree) == expected


def test_memories_added_to_a_store_and_its_subfolder_are_counted_by_a_cached_run(
        small_tree, capsys):
    before = projects_json(capsys, small_tree)
    stored = next(p for p in json.loads(before) if p["store_exists"] and p["memories"] > 1)
    store = Path(stored["store"])
    topic = next(f for f in store.glob("*.md") if f.name != "MEMORY.md")

    def change():
        (store / "team").mkdir(exist_ok=True)
        (store / "team" / "shared.md").write_text("---\nname: shared\n---\nbody\n")
        topic.unlink()  # one memory less at the top, one more below: the store's own
        (store / "renamed.md").write_text("x")  # listing changes, not its count alone

    _, cached, uncached = cached_then_uncached(capsys, small_tree, change)
    assert cached == uncached
    after = next(p for p in json.loads(cached) if p["store"] == stored["store"])
    assert after["memories"] == stored["memories"] + 1


def test_a_resting_store_whose_checkout_moved_is_seen_by_a_cached_run(small_tree, capsys):
    before = projects_json(capsys, small_tree)
    resting = next(p for p in json.loads(before) if p["resting"] and not p["stranded"])
    checkout = Path(resting["key_path"])

    def change():
        checkout.rename(checkout.with_name(checkout.name + "-moved"))

    _, cached, uncached = cached_then_uncached(capsys, small_tree, change)
    assert cached == uncached
    after = next(p for p in json.loads(cached) if p["name"] == resting["name"])
    assert after["stranded"] and not after["resting"]


def test_a_store_folder_that_is_a_link_is_looked_at_by_every_run(small_tree, capsys, tmp_path):
    """A folder lists the same when the target of its `memory` link is removed."""
    before = json.loads(projects_json(capsys, small_tree))
    stored = next(p for p in before if p["store_exists"] and p["transcript_folders"]
                  and Path(p["store"]).parent.parent == small_tree / "projects")
    store = Path(stored["store"])
    target = tmp_path / "store-elsewhere"
    store.rename(target)
    store.symlink_to(target, target_is_directory=True)
    age(store.parent, 10)  # listed differently, and old enough for the cache to trust
    linked = json.loads(projects_json(capsys, small_tree))
    assert next(p for p in linked if p["store"] == stored["store"])["store_exists"]

    _, cached, uncached = cached_then_uncached(
        capsys, small_tree, lambda: target.rename(tmp_path / "gone"))
    assert cached == uncached
    assert stored["store"] not in [p["store"] for p in json.loads(cached) if p["store_exists"]]


def test_a_deleted_transcript_leaves_the_evidence_cache_and_the_output_as_if_never_cached(
        small_tree, capsys):
    from tui.claude.transcripts import evidence_cache_path

    before = projects_json(capsys, small_tree)
    by_evidence = next(f for f in folders(before).values() if f["mapped_by"] == "evidence")
    transcripts = sorted(Path(by_evidence["path"]).glob("*.jsonl"))
    assert {str(t) for t in transcripts} <= set(json.loads(evidence_cache_path().read_text()))
    deleted = transcripts[0]
    deleted.unlink()
    age(deleted.parent, 300)  # a new listing, as Claude Code's delete gives

    cached = projects_json(capsys, small_tree)
    kept = set(json.loads(evidence_cache_path().read_text()))
    assert str(deleted) not in kept and {str(t) for t in transcripts[1:]} <= kept
    assert projects_json(capsys, small_tree) == cached  # from the pruned cache
    assert uncached_projects_json(capsys, small_tree) == cached
