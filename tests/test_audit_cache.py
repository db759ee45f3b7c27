"""`audit --all` answers unchanged stores from its cache, and never an outdated answer."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import write_index, write_memory

from tui.memory import audit_cache
from tui.memory import store as store_module
from tui.memory.audit_cache import AuditCache
from tui.memory.bulk import audit_many

NOTE = "---\nname: {name}\ndescription: {name} notes\ntype: {kind}\n---\nBody of {name}.\n"


def later_clock() -> int:
    """A clock two minutes ahead: every file written by the test counts as settled."""
    return time.time_ns() + 120 * 10**9


@pytest.fixture
def stores(tmp_path) -> list[Path]:
    made = []
    for project in ("alpha", "beta"):
        store = tmp_path / project / "memory"
        write_memory(store, "user_role.md", NOTE.format(name="role", kind="user"))
        write_memory(store, "orphan.md", NOTE.format(name="orphan", kind="user"))
        write_index(store, ["- [Role](user_role.md) — who I am", "- [Gone](gone.md) — missing"])
        made.append(store)
    return made


@pytest.fixture
def loads(monkeypatch) -> list[Path]:
    """Every store read from disk, in order."""
    seen: list[Path] = []
    real = store_module.load_store

    def counting(store, *args, **kwargs):
        seen.append(Path(store))
        return real(store, *args, **kwargs)

    monkeypatch.setattr(store_module, "load_store", counting)
    return seen


def audit(stores, cache, reasons=None):
    reasons = reasons or [None] * len(stores)
    return audit_many(list(zip(stores, reasons, strict=True)), workers=1, cache=cache)


def answers(audits) -> list[tuple]:
    """What an audit says of each store, whether or not it came from the cache."""
    return [(a.store, a.memories, a.findings) for a in audits]


def kinds(result) -> list[str]:
    return [f.kind for f in result.findings]


def test_unchanged_stores_are_answered_from_the_cache_with_the_same_findings(stores, loads, tmp_path):
    with AuditCache(tmp_path / "cache.sqlite", clock=later_clock) as cache:
        first = audit(stores, cache)
    with AuditCache(tmp_path / "cache.sqlite", clock=later_clock) as cache:
        second = audit(stores, cache)
    assert answers(second) == answers(first) == answers(audit(stores, None))
    assert [a.cached for a in first + second] == [False, False, True, True]
    assert "unindexed" in kinds(first[0]) and "dangling" in kinds(first[0])
    assert loads == stores + stores  # read by the first run and the uncached one only


def test_a_memory_rewritten_with_the_same_size_and_times_is_audited_again(stores, tmp_path):
    cache = AuditCache(tmp_path / "cache.sqlite", clock=later_clock)
    assert "unknown_type" not in kinds(audit(stores, cache)[0])
    memory = stores[0] / "user_role.md"
    before = memory.stat()
    time.sleep(0.05)  # past the filesystem's timestamp tick
    memory.write_text(memory.read_text().replace("type: user", "type: usex"))
    os.utime(memory, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert memory.stat().st_size == before.st_size
    assert "unknown_type" in kinds(audit(stores, cache)[0])


def test_a_store_changed_in_the_last_two_seconds_is_not_cached(stores, loads, tmp_path):
    cache = AuditCache(tmp_path / "cache.sqlite")  # the real clock: the files are brand new
    audit(stores, cache)
    audit(stores, cache)
    assert loads == stores + stores


def test_a_store_holding_a_symlink_is_audited_afresh_every_time(stores, tmp_path):
    elsewhere = tmp_path / "shared-note.md"
    elsewhere.write_text(NOTE.format(name="shared", kind="user"))
    (stores[0] / "shared.md").symlink_to(elsewhere)
    cache = AuditCache(tmp_path / "cache.sqlite", clock=later_clock)
    assert "missing_description" not in kinds(audit(stores, cache)[0])
    elsewhere.write_text("---\nname: shared\ntype: user\n---\nNo description now.\n")
    assert "missing_description" in kinds(audit(stores, cache)[0])


def test_cached_audits_are_dropped_when_memtuis_audit_code_changes(stores, loads, tmp_path,
                                                                   monkeypatch):
    cache = AuditCache(tmp_path / "cache.sqlite", clock=later_clock)
    audit(stores, cache)
    monkeypatch.setattr(audit_cache, "rules_digest", lambda: "an upgraded memtui")
    audit(stores, cache)
    assert loads == stores + stores


def test_a_stranded_store_is_still_reported_stranded_from_the_cache(stores, tmp_path):
    cache = AuditCache(tmp_path / "cache.sqlite", clock=later_clock)
    audit(stores, cache)
    cached = audit(stores, cache, reasons=["its worktree was deleted", None])
    assert kinds(cached[0])[0] == "stranded_store"
    assert "stranded_store" not in kinds(cached[1])


def test_a_damaged_cache_file_is_replaced(stores, loads, tmp_path):
    from tui import notices

    path = tmp_path / "cache.sqlite"
    path.write_bytes(b"this is not an SQLite database" * 100)
    notices.take()
    with AuditCache(path, clock=later_clock) as cache:
        first = audit(stores, cache)
    assert notices.take() == [f"memtui's cache {path} was damaged; it was replaced by a new "
                              "one (a cache holds nothing that is not on disk elsewhere)."]
    with AuditCache(path, clock=later_clock) as cache:
        assert answers(audit(stores, cache)) == answers(first)
    assert loads == stores
    assert notices.take() == []  # said once: the new one is whole


def test_an_unwritable_cache_place_means_no_cache_not_an_error(stores, tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache folder should be")
    cache = AuditCache(blocker / "cache.sqlite", clock=later_clock)
    assert answers(audit(stores, cache)) == answers(audit(stores, None))


def test_a_cache_busy_in_another_run_is_kept_and_the_audit_goes_on(stores, tmp_path):
    import sqlite3

    path = tmp_path / "cache.sqlite"
    with AuditCache(path, clock=later_clock) as cache:
        audit(stores, cache)
    write_memory(stores[0], "project_new.md", NOTE.format(name="new", kind="project"))
    write_memory(stores[1], "project_new.md", NOTE.format(name="new", kind="project"))
    other_run = sqlite3.connect(path)
    other_run.execute("BEGIN EXCLUSIVE")  # another memtui in the middle of writing
    try:
        with AuditCache(path, clock=later_clock) as cache:
            result = audit(stores, cache)
    finally:
        other_run.rollback()
        other_run.close()
    assert answers(result) == answers(audit(stores, None))
    assert "project_new.md" in {f.file for f in result[0].findings}
    with sqlite3.connect(path) as db:  # still there, with the first run's audits
        assert db.execute("SELECT count(*) FROM audits").fetchone()[0] == 2


def test_a_file_name_that_is_not_utf8_is_cached_like_any_other(stores, loads, tmp_path):
    with open(os.path.join(os.fsencode(stores[0]), b"caf\xe9.md"), "w") as handle:
        handle.write(NOTE.format(name="cafe", kind="user"))
    with AuditCache(tmp_path / "cache.sqlite", clock=later_clock) as cache:
        first = audit(stores, cache)
        assert answers(audit(stores, cache)) == answers(first)
    assert "unindexed" in {f.kind for f in first[0].findings if f.file == "caf\udce9.md"}
    assert loads == stores  # the second run came from the cache


def test_the_summary_says_how_many_stores_came_from_the_cache(stores, tmp_path, capsys):
    from tui.render import print_audit_summary

    with AuditCache(tmp_path / "cache.sqlite", clock=later_clock) as cache:
        audit(stores, cache)
        print_audit_summary(audit(stores, cache), {})
    assert "2 of 2 stores unchanged since the last audit" in capsys.readouterr().out


def test_a_run_the_cache_answers_whole_loads_none_of_the_audits_rules(stores, tmp_path):
    with AuditCache(tmp_path / "cache.sqlite", clock=later_clock) as cache:
        audit(stores, cache)
    script = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from tui.memory.audit_cache import AuditCache\n"
        "from tui.memory.bulk import audit_many\n"
        "def later():\n"
        "    return time.time_ns() + 120 * 10**9\n"
        "cache = AuditCache(Path(sys.argv[1]), clock=later)\n"
        "audits = audit_many([(Path(store), None) for store in sys.argv[2:]], cache=cache)\n"
        "print([audit.cached for audit in audits])\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    result = subprocess.run([sys.executable, "-c", script, str(tmp_path / "cache.sqlite"),
                             *map(str, stores)], capture_output=True, text=True, timeout=60)
    cached, modules = result.stdout.splitlines()
    assert cached == "[True, True]"
    rules = {"tui.memory.audit", "tui.memory.store", "tui.memory.dates", "tui.memory.similarity",
             "tui.memory.frontmatter", "yaml", "rapidfuzz", "importlib.metadata"}
    assert not set(modules.split()) & rules


def test_the_rules_digest_names_each_rule_librarys_installed_version():
    from importlib.metadata import version

    records = audit_cache._installed_records()
    for library, distribution in (("rapidfuzz", "rapidfuzz"), ("pyyaml", "pyyaml"),
                                  ("detect_secrets", "detect-secrets"),
                                  ("markdown_it_py", "markdown-it-py")):
        assert f"{library}-{version(distribution)}.dist-info/".encode() in records.lower()


def test_worker_processes_look_stores_up_in_the_cache_and_fill_it(stores, tmp_path):
    pairs = [(store, None) for store in stores]
    with AuditCache(tmp_path / "cache.sqlite", clock=later_clock) as cache:
        first = audit_many(pairs, workers=2, cache=cache)
        second = audit_many(pairs, workers=2, cache=cache)
        uncached = audit(stores, None)
        memory = stores[0] / "user_role.md"
        before = memory.stat()
        time.sleep(0.05)  # past the filesystem's timestamp tick
        memory.write_text(memory.read_text().replace("type: user", "type: usex"))
        os.utime(memory, ns=(before.st_atime_ns, before.st_mtime_ns))
        third = audit_many(pairs, workers=2, cache=cache)
    assert [a.cached for a in first + second + third] == [False, False, True, True, False, True]
    assert answers(second) == answers(first) == answers(uncached)
    assert "unknown_type" in kinds(third[0]) and "unknown_type" not in kinds(first[0])
