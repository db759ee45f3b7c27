"""Memories checked against the code they describe: `stale_path`, `paths_unchecked` and the
`repath` repair, on real repositories built with git (renames, chains, deletions, ignored
files, a worktree, a submodule, a checkout that is gone, a shallow clone)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
from code_repos import commit_of, git, new_repo, shop_repo
from conftest import index_line, memory_text, real, snapshot, write_index, write_memory
from waiting import wait_until

from tui import cli, xdg
from tui.claude import checkout as checkout_module
from tui.claude.checkout import CheckoutCache, Unchecked, read_checkout
from tui.memory.stale_paths import code_findings
from tui.memory.store import load_store


def body_memory(body: str) -> str:
    return memory_text("billing", "where the billing code lives", "project",
                       body + "\n**Why:** x.\n**How to apply:** y.\n")


@pytest.fixture
def shop(tmp_path, fake_home):
    """The shop checkout under the user's home (so messages read `~/code/shop`)."""
    return real(shop_repo(fake_home / "code" / "shop"))


@pytest.fixture
def store(claude_home, shop):
    claude_home.session(shop)
    store = claude_home.store(shop)
    write_index(store, [index_line("project_billing.md")])
    return store


def write_body(store: Path, body: str) -> None:
    write_memory(store, "project_billing.md", body_memory(body))


def findings(store: Path, checkout, kind: str | None = "stale_path", cache=None):
    cache = CheckoutCache(Path(os.devnull)) if cache is None else cache
    found = code_findings(load_store(store), str(checkout), cache)
    return [f for f in found if kind is None or f.kind == kind]


def run(claude_home, capsys, *args: str) -> tuple[int, str, str]:
    code = cli.main(["--config-dir", str(claude_home.home), *args])
    out, err = capsys.readouterr()
    return code, out, err


def audit_json(claude_home, capsys, target) -> list[dict]:
    code, out, err = run(claude_home, capsys, "audit", str(target), "--json")
    assert code in (0, 1) and err == "", err
    return json.loads(out)["findings"]


# --- the finding ------------------------------------------------------------------------------


def test_a_renamed_path_is_stale_with_its_successor_and_when_and_where_it_went(
        claude_home, capsys, shop, store):
    write_body(store, "Charges live in `src/billing/old_api.py`.")
    commit = commit_of(shop, "payments move out of billing")
    [found] = [f for f in audit_json(claude_home, capsys, shop) if f["kind"] == "stale_path"]
    assert found == {
        "kind": "stale_path", "severity": "warning", "file": "project_billing.md", "line": 7,
        "message": f"mentions src/billing/old_api.py, gone from ~/code/shop since 2026-11-02 "
                   f"(moved to src/payments/api.py in {commit})",
        "target": "src/billing/old_api.py", "other": "src/payments/api.py",
    }


def test_a_chain_of_renames_is_followed_to_todays_path(shop, store):
    write_body(store, "Slugs are made in src/util/strings.py.")
    [found] = findings(store, shop)
    first, second = commit_of(shop, "strings is text"), commit_of(shop, "text is common")
    assert (found.target, found.other) == ("src/util/strings.py", "src/common/text.py")
    assert found.message.endswith(
        f"since 2026-11-10 (moved to src/common/text.py in {first} and {second})")


def test_a_deleted_path_has_no_successor_and_its_message_says_edit_or_archive(
        claude_home, capsys, shop, store):
    write_body(store, "Setup steps: docs/setup.md")
    commit = commit_of(shop, "payments move out of billing")
    [found] = [f for f in audit_json(claude_home, capsys, shop) if f["kind"] == "stale_path"]
    assert found["other"] is None  # in the JSON, as null: it has none
    assert found["message"] == (f"mentions docs/setup.md, gone from ~/code/shop since "
                                f"2026-11-02 (deleted in {commit}); edit or archive the memory")


def test_a_path_renamed_then_deleted_names_its_last_name(shop, store):
    git(shop, "rm", "-q", "src/common/text.py")
    git(shop, "commit", "-q", "-m", "no more text", date="2026-11-25T10:00:00+00:00")
    write_body(store, "Slugs: src/util/strings.py")
    [found] = findings(store, shop)
    assert found.other is None
    assert "moved to src/common/text.py in" in found.message
    assert f"then deleted in {commit_of(shop, 'no more text')}" in found.message


def test_files_on_disk_that_git_ignores_or_does_not_track_count_as_existing(shop, store):
    (shop / "build").mkdir()
    (shop / "build" / "bundle.js").write_text("ignored\n")
    (shop / "src" / "billing" / "draft.py").write_text("untracked\n")
    write_body(store, "Output: build/bundle.js; a draft in src/billing/draft.py; "
                      "and docs/setup.md")
    assert [f.target for f in findings(store, shop)] == ["docs/setup.md"]


def test_a_folder_whose_files_all_moved_together_is_renamed_one_emptied_is_gone(shop, store):
    git(shop, "mv", "src/billing", "src/ledger")
    git(shop, "commit", "-q", "-m", "billing is the ledger", date="2026-11-21T10:00:00+00:00")
    write_body(store, "Invoices: src/billing/ (and tests/ and w/: one level is not clearly "
                      "a folder)")
    [found] = findings(store, shop)
    assert (found.target, found.other) == ("src/billing/", "src/ledger/")
    (shop / "src" / "billing").mkdir()  # an empty folder left on disk is no folder of code
    assert [f.other for f in findings(store, shop)] == ["src/ledger/"]
    git(shop, "rm", "-q", "-r", "src/ledger")
    git(shop, "commit", "-q", "-m", "no ledger", date="2026-11-22T10:00:00+00:00")
    [found] = findings(store, shop)
    assert (found.target, found.other) == ("src/billing/", None)


def test_a_path_seen_from_a_subdirectory_is_found_and_its_successor_written_the_same_way(
        shop, store):
    write_body(store, "From src/: billing/invoice.py is fine; billing/old_api.py charges.")
    [found] = findings(store, shop)
    assert (found.target, found.other) == ("billing/old_api.py", "payments/api.py")


def test_a_path_only_a_live_worktree_has_is_not_stale(shop, store, tmp_path):
    tree = tmp_path / "shop-feature"
    git(shop, "worktree", "add", "-q", "-b", "feature", str(tree))
    (tree / "src" / "billing" / "refunds.py").write_text("def refund(): ...\n")
    git(tree, "add", "--all")
    git(tree, "commit", "-q", "-m", "refunds", date="2026-11-26T10:00:00+00:00")
    write_body(store, "Refunds: src/billing/refunds.py; setup: docs/setup.md")
    assert [f.target for f in findings(store, shop)] == ["docs/setup.md"]
    # And checked from the worktree (a store keyed by it), the main checkout counts too.
    (shop / "docs").mkdir()
    (shop / "docs" / "setup.md").write_text("untracked in main\n")
    assert findings(store, tree) == []


def test_paths_inside_a_submodule_belong_to_it_not_to_the_checkout(shop, store, tmp_path):
    library = new_repo(tmp_path / "library", {"lib/core.py": "x = 1\n"})
    git(shop, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library),
        "vendor/library")
    git(shop, "commit", "-q", "-m", "vendor the library", date="2026-11-27T10:00:00+00:00")
    write_body(store, "The vendored vendor/library/lib/core.py and vendor/library/lib/gone.py")
    assert findings(store, shop) == []
    shutil.rmtree(shop / "vendor" / "library")  # not checked out: still the library's
    (shop / "vendor" / "library").mkdir()
    assert findings(store, shop) == []


def test_mentions_in_fenced_shell_commands_count_and_other_fences_do_not(shop, store):
    write_body(store, "```bash\npython src/billing/old_api.py --dry-run\n```\n"
                      "```python\nimport src/util/strings.py  # not a command\n```\n"
                      "```\n$ cat docs/setup.md\n```\n")
    assert [f.target for f in findings(store, shop)] == ["src/billing/old_api.py",
                                                          "docs/setup.md"]


NOT_PATHS = [
    "See https://example.com/src/billing/old_api.py and www.example.com/src/billing/x.html",
    "Version 1.2.3, e.g. this, i.e. that, e.g./i.e., km/h, 1.2/3.4, and/or, w/ tests, I/O.",
    "Absolute: /src/billing/old_api.py and C:/src/billing/old_api.py",
    "Home: ~/src/billing/old_api.py",
    "Up: ../src/billing/old_api.py and src/../../billing/old_api.py",
    "Globs: src/**/*.py, src/billing/*.py, src/billing/old_?.py, src/billing/[ab].py",
    "Placeholders: src/{module}/api.py, src/<name>/api.py, {module}_project.md",
    "Example: path/to/file.py and logs/YYYY/MM/YYYY-MM-DD.md and src/billing/xxx.py",
    "A variable: $SRC/billing/old_api.py and %APPDATA%/src/billing/old_api.py",
    "In github.com/acme/other-shop the file src/billing/old_api.py is current.",
    "```python\npath = 'src/billing/old_api.py'\n```",
    "node_modules/left-pad/index.js and .venv/lib/site.py: never tracked folders",
]


@pytest.mark.parametrize("body", NOT_PATHS)
def test_what_is_no_path_of_this_repository_is_never_a_finding(shop, store, body):
    write_body(store, body)
    assert findings(store, shop) == []
    write_body(store, body + "\nBut charges live in src/billing/old_api.py")  # the control
    assert [f.target for f in findings(store, shop)] == ["src/billing/old_api.py"]


def test_a_line_naming_another_checkout_is_that_checkouts(shop, store, fake_home):
    other = new_repo(fake_home / "code" / "other", {"src/main.py": "pass\n"})
    write_body(store, f"In {other}: src/billing/old_api.py is live.\n"
                      "In ~/code/other too: `src/billing/old_api.py`.\n"
                      f"And in {shop} itself src/billing/old_api.py charges.")
    assert [f.line for f in findings(store, shop)] == [9]


def test_a_link_to_a_memory_of_the_store_is_no_path_of_the_code(shop, store):
    write_memory(store, "src/billing/notes.md", memory_text("notes", "billing notes"))
    write_body(store, "Notes: [billing notes](src/billing/notes.md)")
    assert findings(store, shop) == []


def test_daily_logs_keep_the_paths_of_their_day(shop, store):
    write_memory(store, "logs/2026/10/2026-10-05.md", "- 09:00 edited src/billing/old_api.py\n")
    assert findings(store, shop) == []


# --- when it cannot check ---------------------------------------------------------------------


def shallow_clone(shop: Path, where: Path) -> Path:
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{shop}", str(where)],
                   check=True, capture_output=True)
    return where


@pytest.mark.parametrize("case, reason", [
    ("gone", "~/code/shop no longer exists"),
    ("not git", "~/code/shop is not a git repository, so a renamed path cannot be told from "
                "one that never existed"),
    ("shallow", "~/code/shop is a shallow clone: its history is cut, so where a path went "
                "cannot be told"),
])
def test_a_checkout_that_cannot_be_checked_gives_one_info_finding_saying_why(
        claude_home, capsys, shop, store, tmp_path, case, reason):
    write_body(store, "Charges: src/billing/old_api.py and src/util/strings.py")
    moved = tmp_path / "moved-shop"
    shutil.move(shop, moved)
    if case == "not git":
        shutil.copytree(moved, shop, ignore=shutil.ignore_patterns(".git"))
    elif case == "shallow":
        shallow_clone(moved, shop)
    found = audit_json(claude_home, capsys, store)
    assert [f for f in found if f["kind"] == "stale_path"] == []
    [info] = [f for f in found if f["kind"] == "paths_unchecked"]
    assert info == {"kind": "paths_unchecked", "severity": "info", "file": None, "line": None,
                    "message": f"2 path mentions not checked against the code: {reason}"}


def test_a_store_that_mentions_no_path_asks_nothing_of_git(shop, store, monkeypatch):
    write_body(store, "Charges are made on Fridays.")
    monkeypatch.setattr(checkout_module, "run_git", _no_git)
    shutil.rmtree(shop)
    assert findings(store, shop, None) == []  # no mention: not even a paths_unchecked


def _no_git(*args, **kwargs):
    raise AssertionError("git was asked")


# --- git, its timeout and its cache -----------------------------------------------------------


def count_git(monkeypatch) -> list[list[str]]:
    calls: list[list[str]] = []
    real_run = checkout_module.run_git

    def counted(root, args, seconds):
        calls.append(args)
        return real_run(root, args, seconds)

    monkeypatch.setattr(checkout_module, "run_git", counted)
    return calls


def test_git_is_asked_once_per_head_and_asked_again_when_head_moves(shop, monkeypatch):
    calls = count_git(monkeypatch)
    first = read_checkout(str(shop), CheckoutCache())
    assert [args[0] for args in calls] == ["ls-files", "log"]  # one listing, one history
    again = read_checkout(str(shop), CheckoutCache())  # another process, the same cache file
    assert len(calls) == 2 and again.tracked == first.tracked
    assert again.departures == first.departures
    git(shop, "mv", "src/billing/invoice.py", "src/payments/invoice.py")
    git(shop, "commit", "-q", "-m", "invoices too", date="2026-11-28T10:00:00+00:00")
    moved = read_checkout(str(shop), CheckoutCache())
    # A commit on top of the HEAD it knew: only that commit's history is read.
    assert [args[0] for args in calls[2:]] == ["ls-files", "merge-base", "log"]
    assert calls[-1][-2] == f"{first.head}..HEAD"
    assert moved.departures["src/billing/invoice.py"].renamed_to == "src/payments/invoice.py"
    assert moved.departures["src/billing/old_api.py"] == first.departures["src/billing/old_api.py"]
    assert moved.head == git(shop, "rev-parse", "HEAD")  # read from .git's files


def test_a_reset_forgets_the_renames_of_the_commits_it_dropped(shop, store, monkeypatch):
    write_body(store, "Invoices: src/billing/invoice.py")
    git(shop, "mv", "src/billing/invoice.py", "src/payments/invoice.py")
    git(shop, "commit", "-q", "-m", "invoices too", date="2026-11-28T10:00:00+00:00")
    assert [f.other for f in findings(store, shop, cache=CheckoutCache())] == [
        "src/payments/invoice.py"]
    git(shop, "reset", "-q", "--hard", "HEAD~1")
    calls = count_git(monkeypatch)
    assert findings(store, shop, cache=CheckoutCache()) == []
    assert [args[0] for args in calls] == ["ls-files", "merge-base", "log"]
    assert calls[-1][-2] == "HEAD"  # the whole history again


def test_staging_a_file_asks_git_for_its_files_again(shop, monkeypatch):
    read_checkout(str(shop), CheckoutCache())
    calls = count_git(monkeypatch)
    (shop / "src" / "billing" / "tax.py").write_text("RATE = 0\n")
    git(shop, "add", "src/billing/tax.py")
    staged = read_checkout(str(shop), CheckoutCache())
    assert "src/billing/tax.py" in staged.tracked
    assert [args[0] for args in calls] == ["ls-files"]  # HEAD did not move: no history


def test_a_git_that_hangs_is_killed_with_what_it_started_and_said_in_one_clause(
        shop, tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    child = tmp_path / "child.pid"
    (bin_dir / "git").write_text(f"#!/bin/sh\nsleep 60 &\necho $! > {child}\nwait\n")
    (bin_dir / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(checkout_module, "GIT_SECONDS", 0.5)
    started = time.monotonic()
    found = read_checkout(str(shop), CheckoutCache(Path(os.devnull)))
    assert time.monotonic() - started < 10
    assert isinstance(found, Unchecked)
    assert found.reason == "git cannot read ~/code/shop (`git ls-files` took more than 0.5 s)"
    pid = int(child.read_text())
    assert wait_until(lambda: not _alive(pid))  # the killed sleep is reaped by init


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie waiting for its parent is dead too
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"
    except OSError:
        return False


def test_a_checkout_git_cannot_read_is_said_and_not_a_traceback(shop, store):
    write_body(store, "Charges: src/billing/old_api.py")
    (shop / ".git" / "HEAD").write_text("garbage\n")
    [info] = findings(store, shop, "paths_unchecked")
    assert info.message.startswith("1 path mention not checked against the code: git cannot "
                                   "read ~/code/shop (")


def settled_store_with(store: Path, body: str) -> None:
    """The store holding `body`, old enough for the audit cache to keep it."""
    write_body(store, body)
    os.utime(store / "project_billing.md", (1e9, 1e9))
    os.utime(store / "MEMORY.md", (1e9, 1e9))
    time.sleep(2.1)  # the store's ctime settles too (audit_cache.SETTLE_NS)


def audited_all(claude_home, capsys, store: Path) -> dict:
    code, out, err = run(claude_home, capsys, "audit", "--all", "--json")
    assert err == ""
    [found] = [a for a in json.loads(out) if a["store"] == str(store)]
    return found


def stale_targets(audit: dict) -> list[tuple[str, str, str | None]]:
    return [(f["kind"], f["target"], f["other"]) for f in audit["findings"]]


def test_audit_all_answers_from_its_cache_yet_sees_a_rename_committed_since(
        claude_home, capsys, shop, store):
    settled_store_with(store, "Invoices: src/billing/invoice.py")
    first = audited_all(claude_home, capsys, store)
    assert not first["cached"] and first["findings"] == []
    git(shop, "mv", "src/billing/invoice.py", "src/payments/invoice.py")
    git(shop, "commit", "-q", "-m", "invoices too", date="2026-11-28T10:00:00+00:00")
    second = audited_all(claude_home, capsys, store)
    assert second["cached"]
    assert stale_targets(second) == [
        ("stale_path", "src/billing/invoice.py", "src/payments/invoice.py")]
    assert audited_all(claude_home, capsys, store) == second  # its verdicts, kept


def test_audit_all_sees_a_rename_once_committed_not_while_only_staged(
        claude_home, capsys, shop, store):
    settled_store_with(store, "Invoices: src/billing/invoice.py")
    assert audited_all(claude_home, capsys, store)["findings"] == []
    git(shop, "mv", "src/billing/invoice.py", "src/payments/invoice.py")
    # Not in HEAD's history yet: nothing says where it went, so no finding yet.
    assert audited_all(claude_home, capsys, store)["findings"] == []
    git(shop, "commit", "-q", "-m", "invoices too", date="2026-11-28T10:00:00+00:00")
    assert stale_targets(audited_all(claude_home, capsys, store)) == [
        ("stale_path", "src/billing/invoice.py", "src/payments/invoice.py")]


def test_cached_audit_all_keeps_its_verdicts_while_store_and_checkout_are_unchanged(
        claude_home, capsys, shop, store, monkeypatch):
    settled_store_with(store, "Charges: src/billing/old_api.py; invoices: "
                              "src/billing/invoice.py; setup: docs/setup.md")
    first = audited_all(claude_home, capsys, store)
    assert [f["target"] for f in first["findings"]] == ["src/billing/old_api.py",
                                                         "docs/setup.md"]

    def judged_again(*args, **kwargs):
        raise AssertionError("mentions judged again though nothing changed")

    monkeypatch.setattr("tui.memory.stale_paths._Judge.verdict", judged_again)
    calls = count_git(monkeypatch)
    again = audited_all(claude_home, capsys, store)
    assert again["cached"] and again["findings"] == first["findings"]
    assert calls == []


def test_cached_audit_all_sees_a_file_made_or_removed_that_git_does_not_track(
        claude_home, capsys, shop, store):
    """HEAD and the index say nothing of an untracked or ignored file: the disk is asked
    again before kept verdicts are used."""
    settled_store_with(store, "Setup: docs/setup.md")
    assert [f["target"] for f in audited_all(claude_home, capsys, store)["findings"]] == [
        "docs/setup.md"]
    draft = shop / "docs" / "setup.md"
    draft.parent.mkdir()
    draft.write_text("untracked\n")
    assert audited_all(claude_home, capsys, store)["findings"] == []
    draft.unlink()
    assert [f["target"] for f in audited_all(claude_home, capsys, store)["findings"]] == [
        "docs/setup.md"]


# --- the repair -------------------------------------------------------------------------------


def test_fix_repath_previews_rewrites_journals_and_undoes_and_leaves_deleted_paths(
        claude_home, capsys, shop, store):
    write_body(store, "Charges in `src/billing/old_api.py`, slugs in ./src/util/strings.py.\n"
                      "Setup: docs/setup.md")
    write_index(store, [index_line("project_billing.md", "Billing",
                                   "charges: src/billing/old_api.py")])
    os.utime(store / "project_billing.md", (1e9, 1e9))
    before = snapshot(store)
    code, out, _ = run(claude_home, capsys, "fix", str(shop), "repath", "--dry-run")
    assert code == 0 and snapshot(store) == before
    assert "-Charges in `src/billing/old_api.py`, slugs in ./src/util/strings.py." in out
    assert "+Charges in `src/payments/api.py`, slugs in ./src/common/text.py." in out
    assert "docs/setup.md (project_billing.md line 8) has no successor (deleted in" in out

    code, out, _ = run(claude_home, capsys, "fix", str(shop), "repath", "--yes")
    assert code == 0 and "Applied: 2 files changed." in out
    text = (store / "project_billing.md").read_text()
    assert "`src/payments/api.py`" in text and "./src/common/text.py" in text
    assert "docs/setup.md" in text  # deleted: the user's to edit or archive
    assert (store / "project_billing.md").stat().st_mtime == 1e9  # recall order kept
    assert "src/payments/api.py" in (store / "MEMORY.md").read_text()
    left = [f for f in audit_json(claude_home, capsys, shop) if f["kind"] == "stale_path"]
    assert [f["target"] for f in left] == ["docs/setup.md"]

    code, out, _ = run(claude_home, capsys, "undo", str(shop))
    assert code == 0 and out.startswith("Undid update 3 renamed paths")
    assert snapshot(store) == before


def test_fix_repath_given_a_file_rewrites_that_file_only(claude_home, capsys, shop, store):
    write_body(store, "Charges: src/billing/old_api.py")
    write_memory(store, "other.md", body_memory("Slugs: src/util/strings.py"))
    code, out, _ = run(claude_home, capsys, "fix", str(shop), "repath", "other.md", "--yes",
                       "--json")
    result = json.loads(out)
    assert (code, [c["file"] for c in result["changes"]]) == (0, ["other.md"])
    assert "src/billing/old_api.py" in (store / "project_billing.md").read_text()


def test_fix_repath_over_the_store_leaves_a_symlinked_memory_and_says_so(
        claude_home, capsys, shop, store, tmp_path):
    write_body(store, "Charges: src/billing/old_api.py")
    shared = tmp_path / "shared.md"
    shared.write_text(body_memory("Slugs: src/util/strings.py"))
    (store / "shared.md").symlink_to(shared)
    code, out, err = run(claude_home, capsys, "fix", str(shop), "repath", "--yes")
    assert (code, err) == (0, "")
    assert ("shared.md is a symlink, and memtui writes only regular files: update its renamed "
            "paths in the file it points to.") in out
    assert "src/payments/api.py" in (store / "project_billing.md").read_text()
    assert shared.read_text() == body_memory("Slugs: src/util/strings.py")


def test_fix_repath_refuses_in_one_sentence_when_the_checkout_is_gone(
        claude_home, capsys, shop, store):
    write_body(store, "Charges: src/billing/old_api.py")
    shutil.rmtree(shop)
    before = snapshot(store)
    code, out, err = run(claude_home, capsys, "fix", str(store), "repath", "--yes")
    assert code == 2 and out == ""
    assert err == ("memtui: The paths cannot be checked against the code: ~/code/shop no "
                   "longer exists.\n")
    assert snapshot(store) == before


# --- dreams -----------------------------------------------------------------------------------


def test_the_offline_dream_updates_renamed_paths_in_its_consolidate_phase(shop, store):
    from tui.agents.dream import run_dream

    write_body(store, "Charges: src/billing/old_api.py; setup: docs/setup.md")
    result = run_dream(store, engine="offline", checkout=str(shop), dry_run=True)
    assert result.status == "succeeded", result.error
    [change] = [f for f in result.changeset.files if f.file == "project_billing.md"]
    assert "Charges: src/payments/api.py; setup: docs/setup.md" in change.after.decode()
    consolidate = next(p for p in result.phases if p.name == "Consolidate")
    assert consolidate.note.endswith(", 1 renamed path updated")


def test_the_anthropic_dream_is_told_the_stale_paths_and_their_successors_when_it_orients(
        fake, shop, store):
    from fake_anthropic import reply, text

    from tui.agents.client import ClientConfig
    from tui.agents.dream import run_dream

    write_body(store, "Charges: src/billing/old_api.py; setup: docs/setup.md")
    fake.queue(*(reply(text("Nothing to change.")) for _ in range(4)))
    result = run_dream(store, engine="anthropic", dry_run=True, checkout=str(shop),
                       config=ClientConfig(api_key="test-key", base_url=fake.url,
                                           retry_delay=0.01))
    assert result.status == "succeeded", result.error
    orient = fake.requests[0]["body"]["messages"][0]["content"][0]["text"]
    commit = commit_of(shop, "payments move out of billing")
    assert (f"- project_billing.md line 7: src/billing/old_api.py is now src/payments/api.py "
            f"(renamed in {commit})") in orient
    assert f"- project_billing.md line 7: docs/setup.md was deleted (in {commit})" in orient


def test_a_section_about_another_repository_is_that_repositorys(shop, store):
    git(shop, "remote", "add", "origin", "git@github.com:acme/shop.git")
    write_body(store, "## Tracker\n- Git repo: `acme/tracker`\n- `src/billing/old_api.py` "
                      "parses logs\n### Its tests\n- src/billing/test_api.py\n"
                      "## This shop (repo `acme/shop`)\n- charges: src/billing/old_api.py\n"
                      "- in the `shop` repo: src/billing/old_api.py\n"
                      "- `themes/`: git repo (`themes`), has its own src/billing/old_api.py\n"
                      "- and src/billing/old_api.py, said after it, is the themes' too\n")
    assert [(f.line, f.target) for f in findings(store, shop)] == [
        (13, "src/billing/old_api.py"), (14, "src/billing/old_api.py")]


def test_audit_all_checks_each_store_against_its_own_checkout(claude_home, capsys, shop, store,
                                                              fake_home):
    write_body(store, "Charges: src/billing/old_api.py")
    other = new_repo(fake_home / "code" / "blog", {"posts/draft.md": "hi\n"})
    git(other, "mv", "posts/draft.md", "posts/first.md")
    git(other, "commit", "-q", "-m", "publish", date="2026-11-05T10:00:00+00:00")
    other = real(other)
    claude_home.session(other)
    blog = claude_home.store(other)
    write_memory(blog, "project_blog.md", body_memory("The draft: posts/draft.md"))
    write_index(blog, [index_line("project_blog.md")])
    code, out, err = run(claude_home, capsys, "audit", "--all", "--json")
    found = {a["store"]: [(f["target"], f["other"]) for f in a["findings"]
                          if f["kind"] == "stale_path"] for a in json.loads(out)}
    assert found == {str(store): [("src/billing/old_api.py", "src/payments/api.py")],
                     str(blog): [("posts/draft.md", "posts/first.md")]}


def test_a_memory_that_is_a_listing_of_paths_is_checked_for_its_first_two_thousand():
    from tui.memory.path_mentions import MENTIONS_PER_FILE, find_mentions

    listing = "".join(f"- src/module_{number}.py\n" for number in range(5_000))
    found = find_mentions("m.md", listing)
    assert len(found) == MENTIONS_PER_FILE
    assert found[-1].line == MENTIONS_PER_FILE


def test_memories_shaped_like_real_ones_get_no_wrong_stale_path_and_every_right_successor(
        tmp_path):
    """bodies.py's memories (dates, versions, flags, `fn()`, tables, fences, CJK) over
    checkouts whose paths were kept, renamed, chained, deleted or never committed: no
    finding the answer does not hold (a path never committed is none), and a stale mention
    is missed only where a rule says (a `path[0]` pattern, a line naming another
    repository)."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from stale_paths_accuracy import measure

    result = measure(stores=2, memories=20, seed=1, where=tmp_path)
    totals = result.totals
    assert result.wrong == []
    assert totals["right"] > 40
    assert totals["successor right"] == totals["right"]
    assert "missed, other" not in result.missed
    for fate in ("renamed", "chain", "deleted"):
        assert result.by_fate[(fate, True)] > 0


def test_a_cached_store_whose_kept_mentions_are_gone_finds_them_again(
        claude_home, capsys, shop, store):
    settled_store_with(store, "Invoices: src/billing/invoice.py")
    assert audited_all(claude_home, capsys, store)["findings"] == []
    with sqlite3.connect(xdg.cache_dir() / "audits.sqlite") as db:
        db.execute("DELETE FROM mentions")
    git(shop, "mv", "src/billing/invoice.py", "src/payments/invoice.py")
    git(shop, "commit", "-q", "-m", "invoices too", date="2026-11-28T10:00:00+00:00")
    again = audited_all(claude_home, capsys, store)
    assert again["cached"] and stale_targets(again) == [
        ("stale_path", "src/billing/invoice.py", "src/payments/invoice.py")]
