"""`stale_path` only where git's history is the evidence, in the shapes real memories that
repositories commit beside their code were found to take: paths git never had (hook
patterns, import specifiers, examples), mentions the memory itself calls moved or gone,
folders renamed with a file or two left behind, paths written from a subfolder, files
every project has; and `repath` bringing a link's target along with its text and keeping
each file's mtime to the nanosecond through undo."""

from __future__ import annotations

import os

import pytest
import test_stale_paths
from code_repos import commit_files, commit_of, git
from conftest import index_line, snapshot, write_index
from test_stale_paths import (
    audited_all,
    findings,
    run,
    settled_store_with,
    stale_targets,
    write_body,
)

# The shop checkout and its store, as test_stale_paths makes them.
shop = test_stale_paths.shop
store = test_stale_paths.store


def test_a_path_git_never_had_is_no_finding_even_in_a_folder_it_tracks(shop, store):
    git(shop, "rm", "-q", "README.md")  # a root file gone: the root is a folder git had
    git(shop, "commit", "-q", "-m", "no readme", date="2026-11-24T10:00:00+00:00")
    write_body(store, "Retries will go in src/billing/retry.py.\n"
                      "The page imports `./icons.js` and `./theme.css`.\n"
                      "Example: `tests/test_example.py` holds one test.\n"
                      "Setup steps: docs/setup.md")
    assert [f.target for f in findings(store, shop)] == ["docs/setup.md"]


TOLD_GONE = [
    "Renamed `src/billing/old_api.py` -> `src/payments/api.py` in November.",
    "`src/billing/old_api.py` → `src/payments/api.py` (12 imports updated)",
    "There is no `docs/setup.md`; setup lives in the Makefile.",
    "The old setup guide (docs/setup.md) was deleted with the payments move.",
    "- docs/setup.md (didn't exist)",
    "`docs/setup.md` удалён вместе с переездом.",
    "`src/util/strings.py` ist nach src/common/text.py verschoben.",
    "Name the service file (e.g. `src/util/strings.py`) in the spec.",
    "**How to apply:** Nunca criar `docs/setup.md`: setup lives in the Makefile.",
    "Uncommitted at the session's end:\n D docs/setup.md\n?? notes.txt",
    "## Files to delete\n\n### Docs\n- `docs/setup.md` (3 KB)\n\n## Still here",
]


@pytest.mark.parametrize("sentence", TOLD_GONE)
def test_a_mention_the_memory_calls_moved_or_gone_is_no_finding_and_repath_leaves_it(
        claude_home, capsys, shop, store, sentence):
    write_body(store, sentence + "\nCharges live in src/billing/old_api.py.")
    control = 8 + sentence.count("\n")  # the control's line: the body starts on line 7
    assert [(f.target, f.line) for f in findings(store, shop)] == \
        [("src/billing/old_api.py", control)]
    code, _, _ = run(claude_home, capsys, "fix", str(shop), "repath", "--yes")
    assert code == 0
    text = (store / "project_billing.md").read_text()
    assert sentence in text and "Charges live in src/payments/api.py." in text


def test_audit_all_lets_off_what_the_memory_calls_gone_from_its_cache_too(
        claude_home, capsys, shop, store):
    settled_store_with(store, "There is no `docs/setup.md` any more.\n"
                              "Charges live in src/billing/old_api.py.")
    expected = [("stale_path", "src/billing/old_api.py", "src/payments/api.py")]
    assert stale_targets(audited_all(claude_home, capsys, store)) == expected
    git(shop, "mv", "src/billing/invoice.py", "src/payments/invoice.py")
    git(shop, "commit", "-q", "-m", "invoices too", date="2026-11-28T10:00:00+00:00")
    again = audited_all(claude_home, capsys, store)  # judged again from the kept mentions
    assert stale_targets(again) == expected


def test_a_path_beyond_a_symlink_git_tracks_is_the_symlinks_target(shop, store, tmp_path):
    """A folder of scripts replaced by a symlink to a shared copy outside the repository:
    git says the files went, yet they live on where the link points."""
    commit_files(shop, {"scripts/distribute/post.py": "print('post')\n" * 8},
                 "distribution", "2026-11-21T10:00:00+00:00")
    git(shop, "rm", "-q", "-r", "scripts/distribute")
    (shop / "scripts").mkdir(exist_ok=True)
    (shop / "scripts" / "distribute").symlink_to(tmp_path / "shared-distribute")
    git(shop, "add", "scripts/distribute")
    git(shop, "commit", "-q", "-m", "shared distribution", date="2026-11-22T10:00:00+00:00")
    write_body(store, "Post with `python3 scripts/distribute/post.py`; setup: docs/setup.md")
    assert [f.target for f in findings(store, shop)] == ["docs/setup.md"]


def test_a_folder_renamed_with_one_file_left_behind_is_renamed_not_deleted(shop, store):
    commit_files(shop, {f"src/reports/{name}.py": f"# {name}\n" * 8
                        for name in ("daily", "weekly", "monthly", "yearly", "custom")},
                 "reports", "2026-11-21T10:00:00+00:00")
    (shop / "src" / "analytics").mkdir()
    for name in ("daily", "weekly", "monthly", "yearly"):
        git(shop, "mv", f"src/reports/{name}.py", f"src/analytics/{name}.py")
    git(shop, "rm", "-q", "src/reports/custom.py")
    git(shop, "commit", "-q", "-m", "reports are analytics", date="2026-11-22T10:00:00+00:00")
    write_body(store, "Report builders: src/reports/")
    [found] = findings(store, shop)
    assert (found.target, found.other) == ("src/reports/", "src/analytics/")
    assert f"moved to src/analytics/ in {commit_of(shop, 'reports are analytics')}" in \
        found.message


def test_a_folder_written_from_a_subfolder_is_followed_to_its_new_name(shop, store):
    commit_files(shop, {f"src/features/fantasy/{name}.ts": f"// {name}\n" * 8
                        for name in ("lineup", "scoring", "wildcards")},
                 "fantasy", "2026-11-21T10:00:00+00:00")
    (shop / "src" / "features" / "game").mkdir()
    for name in ("lineup", "scoring", "wildcards"):
        git(shop, "mv", f"src/features/fantasy/{name}.ts", f"src/features/game/{name}.ts")
    git(shop, "commit", "-q", "-m", "fantasy is game", date="2026-11-22T10:00:00+00:00")
    write_body(store, "From src/: the lineup code is in features/fantasy/.")
    [found] = findings(store, shop)
    assert (found.target, found.other) == ("features/fantasy/", "features/game/")


def test_a_file_written_from_a_subfolder_that_moved_twice_is_followed_to_today(shop, store):
    commit_files(shop, {"src/components/Button.tsx": "export const Button = 1;\n" * 8},
                 "button", "2026-11-21T10:00:00+00:00")
    (shop / "src" / "ui" / "components").mkdir(parents=True)
    git(shop, "mv", "src/components/Button.tsx", "src/ui/components/Button.tsx")
    git(shop, "commit", "-q", "-m", "ui kit", date="2026-11-22T10:00:00+00:00")
    git(shop, "mv", "src/ui/components/Button.tsx", "src/ui/Button.tsx")
    git(shop, "commit", "-q", "-m", "flat ui", date="2026-11-23T10:00:00+00:00")
    # Both old names end with the mention, and both lead to src/ui/Button.tsx.
    write_body(store, "From src/: buttons are components/Button.tsx.")
    [found] = findings(store, shop)
    assert (found.target, found.other) == ("components/Button.tsx", "ui/Button.tsx")


def test_a_rename_of_a_file_every_project_has_is_no_repair(claude_home, capsys, shop, store):
    commit_files(shop, {".claude/settings.json": '{"hooks": {}}\n' * 4},
                 "settings", "2026-11-21T10:00:00+00:00")
    (shop / "config").mkdir()
    git(shop, "mv", ".claude/settings.json", "config/claude-settings.json")
    git(shop, "commit", "-q", "-m", "settings elsewhere", date="2026-11-22T10:00:00+00:00")
    sentence = "Hooks go in each project's `.claude/settings.json`, never the user's."
    write_body(store, sentence)
    [found] = findings(store, shop)
    assert found.other is None
    assert "every project has one" in found.message
    code, out, _ = run(claude_home, capsys, "fix", str(shop), "repath", "--yes")
    assert code == 0 and sentence in (store / "project_billing.md").read_text()


@pytest.mark.parametrize(("before", "after"), [
    ("Charges: [`src/billing/old_api.py`](../../src/billing/old_api.py#L3).",
     "Charges: [`src/payments/api.py`](../../src/payments/api.py#L3)."),
    ("- [src/billing/old_api.py](src/billing/old_api.py) — charges",
     "- [src/payments/api.py](src/payments/api.py) — charges"),
])
def test_repath_rewrites_a_links_target_with_its_text(claude_home, capsys, shop, store,
                                                       before, after):
    write_body(store, before)
    code, _, _ = run(claude_home, capsys, "fix", str(shop), "repath", "--yes")
    assert code == 0
    assert after in (store / "project_billing.md").read_text()


def test_repath_and_its_undo_keep_each_files_mtime_to_the_nanosecond(
        claude_home, capsys, shop, store):
    write_body(store, "Charges in `src/billing/old_api.py`.")
    write_index(store, [index_line("project_billing.md", "Billing",
                                   "charges: src/billing/old_api.py")])
    written = 1_700_000_000_123_456_789
    for name in ("project_billing.md", "MEMORY.md"):
        os.utime(store / name, ns=(written, written))
    before = snapshot(store)
    code, _, _ = run(claude_home, capsys, "fix", str(shop), "repath", "--yes")
    assert code == 0 and "src/payments/api.py" in (store / "project_billing.md").read_text()
    assert (store / "project_billing.md").stat().st_mtime_ns == written
    code, _, _ = run(claude_home, capsys, "undo", str(shop))
    assert code == 0 and snapshot(store) == before
    assert [(store / name).stat().st_mtime_ns for name in ("project_billing.md", "MEMORY.md")] \
        == [written, written]
