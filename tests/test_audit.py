"""Audit findings: one test per kind, with the severities documented in tui/memory/audit.py."""

from __future__ import annotations

import json
import os

import pytest
from conftest import (
    index_line,
    letters,
    memory_text,
    sync_conflicted_memory,
    write_index,
    write_memory,
)
from hypothesis import given
from hypothesis import strategies as st

from tui import cli
from tui.memory.audit import SEVERITIES, audit_store, worst_severity
from tui.memory.store import load_store

GOOD = memory_text()


@pytest.fixture
def store(tmp_path):
    memory = tmp_path / "projects" / "-p" / "memory"
    memory.mkdir(parents=True)
    return memory


def audit(store, **kwargs):
    return audit_store(load_store(store), **kwargs)


def only(findings, kind, file=None):
    matches = [f for f in findings if f.kind == kind and (file is None or f.file == file)]
    assert len(matches) == 1, [(f.kind, f.file) for f in findings]
    return matches[0]


def kinds(findings, file=None):
    return sorted(f.kind for f in findings if file is None or f.file == file)


def test_audit_clean_store_has_no_findings(store):
    write_memory(store, "testing.md", GOOD)
    write_index(store, [index_line("testing.md")])
    assert audit(store) == []


def test_audit_every_finding_has_kind_severity_file_line_message(store):
    write_memory(store, "a.md", "no frontmatter, said yesterday\n")
    write_index(store, ["- [Gone](gone.md) — g", "x" * 220])
    findings = audit(store, stranded_reason="keyed by a deleted path")
    assert findings
    for finding in findings:
        data = finding.to_json()
        assert {"kind", "severity", "file", "line", "message"} <= data.keys()
        assert finding.severity in SEVERITIES
        assert finding.message
    assert worst_severity(findings) == "error"


def test_audit_unindexed_memory_is_an_error(store):
    write_memory(store, "testing.md", GOOD)
    write_index(store, [])
    finding = only(audit(store), "unindexed", "testing.md")
    assert (finding.severity, finding.line) == ("error", None)


def test_audit_beyond_cut_and_index_over_limit(store):
    write_memory(store, "late.md", GOOD)
    lines = [f"- filler line {i}" for i in range(202)] + [index_line("late.md")]
    write_index(store, lines)
    findings = audit(store)
    late = only(findings, "beyond_cut", "late.md")
    assert (late.severity, late.line) == ("error", 203)
    over = only(findings, "index_over_limit")
    assert (over.severity, over.file, over.line) == ("error", "MEMORY.md", 201)
    assert "203 lines" in over.message


def test_audit_dangling_link_names_its_target(store):
    write_index(store, ["- [Gone](gone.md) — missing"])
    finding = only(audit(store), "dangling")
    assert (finding.severity, finding.file, finding.line, finding.target) == (
        "warning", "MEMORY.md", 1, "gone.md"
    )


def test_audit_long_index_lines_are_warnings_they_hide_nothing(store):
    write_memory(store, "a.md", GOOD)
    write_memory(store, "b.md", memory_text("b", "other", "user", "Other.\n"))
    write_index(store, [
        index_line("a.md", hook="x" * 150),  # 151+ chars
        index_line("b.md", hook="y" * 200),
        "z" * 150,
    ])
    long_lines = [f for f in audit(store) if f.kind == "long_index_line"]
    assert [(f.line, f.severity) for f in long_lines] == [(1, "warning"), (2, "warning")]
    assert "keep it under 200" in long_lines[1].message
    assert cli.main(["audit", str(store)]) == 0  # every memory is seen: no error


def test_audit_missing_frontmatter_is_a_warning_on_line_1(store):
    write_memory(store, "plain.md", "Just a note.\n")
    write_index(store, [index_line("plain.md")])
    finding = only(audit(store), "missing_frontmatter")
    assert (finding.severity, finding.file, finding.line) == ("warning", "plain.md", 1)


def test_audit_reads_frontmatter_after_a_bom_like_the_memory_scanner(store):
    write_memory(store, "bom.md", "\ufeff" + GOOD)
    write_index(store, [index_line("bom.md")])
    kinds = {f.kind for f in audit(store) if f.file == "bom.md"}
    assert not kinds & {"missing_frontmatter", "bad_frontmatter", "missing_description"}


def test_audit_block_closing_after_line_30_is_missing_frontmatter(store):
    keys = "".join(f"key{n}: value\n" for n in range(30))
    write_memory(store, "long.md", f"---\nname: x\ndescription: d\ntype: user\n{keys}---\nbody\n")
    write_index(store, [index_line("long.md")])
    finding = only(audit(store), "missing_frontmatter")
    assert "first 30 lines" in finding.message


def test_audit_unrescued_frontmatter_is_bad_with_no_type_or_description(store):
    write_memory(store, "lease.md", "---\nname: lease\n"
                 'description: "Short-term lease type" is a NEGATIVE signal\n'
                 "type: feedback\n---\nNo Why here.\n")
    write_index(store, [index_line("lease.md")])
    findings = [f for f in audit(store) if f.file == "lease.md"]
    bad = only(findings, "bad_frontmatter")
    assert bad.severity == "error" and "no name, description or type" in bad.message
    # Claude Code sees no type, so nothing is judged as a feedback memory.
    assert not {f.kind for f in findings} & {"missing_why", "missing_how_to_apply"}
    memory = load_store(store).memory("lease.md")
    assert (memory.type, memory.description) == (None, "")


def test_audit_bad_frontmatter_is_an_error(store):
    write_memory(store, "bad.md", "---\nname: x\n[unclosed\n---\nbody\n")
    write_index(store, [index_line("bad.md")])
    finding = only(audit(store), "bad_frontmatter")
    assert (finding.severity, finding.line) == ("error", 1)


def test_audit_unknown_type_is_a_warning(store):
    write_memory(store, "idea.md", memory_text(type="idea"))
    write_index(store, [index_line("idea.md")])
    finding = only(audit(store), "unknown_type")
    assert finding.severity == "warning" and "'idea'" in finding.message


def test_audit_missing_type_is_legal(store):
    write_memory(store, "legacy.md", memory_text(type=None))
    write_index(store, [index_line("legacy.md")])
    assert audit(store) == []


def test_audit_missing_description_is_a_warning(store):
    write_memory(store, "nodesc.md", "---\nname: x\ntype: user\n---\nbody\n")
    write_index(store, [index_line("nodesc.md")])
    assert only(audit(store), "missing_description").severity == "warning"


@pytest.mark.parametrize("kind", ["feedback", "project"])
def test_audit_missing_why_and_how_to_apply_are_info(store, kind):
    write_memory(store, "rule.md", memory_text(type=kind, body="Always do X.\n"))
    write_index(store, [index_line("rule.md")])
    findings = audit(store)
    assert only(findings, "missing_why").severity == "info"
    assert only(findings, "missing_how_to_apply").severity == "info"


@pytest.mark.parametrize("body", [
    "Always do X.\n**Why:** it broke.\n**How to apply:** always.\n",
    "Always do X.\nWHY: it broke.\nHOW TO APPLY : always.\n",
    "Always do X. why:it broke. How To Apply** : always.\n",
])
def test_audit_why_and_how_to_apply_are_found_in_any_case_and_emphasis(store, body):
    write_memory(store, "rule.md", memory_text(type="feedback", body=body))
    write_index(store, [index_line("rule.md")])
    assert audit(store) == []


def test_audit_why_is_not_asked_of_user_memories(store):
    write_memory(store, "me.md", memory_text(type="user", body="Senior engineer.\n"))
    write_index(store, [index_line("me.md")])
    assert audit(store) == []


def test_audit_duplicate_names_the_other_file_and_score(store):
    body = "Run the integration tests against a real database, never mocks.\n"
    write_memory(store, "db_a.md", memory_text("a", "integration tests use a real database", "user", body))
    write_memory(store, "db_b.md", memory_text("b", "integration tests use a real database", "user", body))
    write_index(store, [index_line("db_a.md"), index_line("db_b.md")])
    finding = only(audit(store), "duplicate")
    # Each holds every line of the other: the finding names the one to archive.
    assert (finding.severity, finding.file, finding.other) == ("warning", "db_b.md", "db_a.md")
    assert finding.message.startswith("db_b.md says nothing db_a.md does not")
    assert 90 <= finding.score <= 100


def test_audit_says_when_the_duplicate_search_of_a_template_store_was_cut_short(store):
    """Hundreds of notes from one template over a few words: the search stays within its
    budget and the audit says, once for the store, that some pairs may be missing."""
    import random

    rng = random.Random(11)
    words = ["alder", "birch", "cedar", "elm", "fir", "hazel", "larch", "maple", "oak", "pine",
             "rowan", "spruce", "teak", "walnut", "yew", "ash", "beech", "holly", "lime", "poplar",
             "willow", "cherry", "apple", "plum", "pear", "olive", "palm", "cork", "fig", "box"]
    folder = store / "Contacts"
    folder.mkdir()
    for number in range(1500):
        name = " ".join(rng.sample(words, 3)).upper()  # named without a number
        fields = "\n".join(f"{field}: {' '.join(rng.choices(words, k=rng.randint(2, 6)))}"
                           for field in ("Role", "Company", "Skills", "Notes"))
        (folder / f"{name} {letters(number)}.md").write_text(
            f"---\nname: {name}\ndescription: a contact\ntype: reference\n---\n{fields}\n")
    finding = only(audit(store), "duplicate_search_cut")
    assert (finding.severity, finding.file, finding.line) == ("info", None, None)
    assert "of 1,500 memories" in finding.message and "may not be listed" in finding.message
    assert "duplicate_search_cut" not in kinds(audit_store(load_store(store), duplicates=False))


def test_audit_of_an_ordinary_store_does_not_say_its_duplicate_search_was_cut(store):
    import random

    rng = random.Random(3)
    words = [letters(number) * 3 for number in range(300)]
    for number in range(40):
        name = f"m{letters(number)}"
        body = " ".join(rng.sample(words, 12)) + ".\n"
        write_memory(store, f"{name}.md", memory_text(name, f"fact {name}", "user", body))
    write_memory(store, "mcopy.md", (store / "ma.md").read_text())
    assert "duplicate_search_cut" not in kinds(audit(store))
    assert "duplicate" in kinds(audit(store))


@pytest.mark.parametrize("phrase", ["yesterday", "last week", "next Thursday", "昨天", "上周"])
def test_audit_relative_date(store, phrase):
    text = f"---\nname: when\ndescription: a decision\ntype: user\n---\nFine.\nDecided {phrase}.\n"
    write_memory(store, "when.md", text)
    write_index(store, [index_line("when.md")])
    finding = only(audit(store), "relative_date")
    assert (finding.severity, finding.line) == ("info", 7)  # the line in the file
    assert phrase in finding.message
    assert "nothing in the file says which day it was written" in finding.message


def test_audit_relative_date_in_code_is_ignored(store):
    write_memory(store, "code.md", memory_text(type="user", body="Run `git log --since=yesterday`.\n"))
    write_index(store, [index_line("code.md")])
    assert audit(store) == []


def test_audit_beyond_recall_scan_flags_the_oldest_of_201(store):
    for i in range(201):
        write_memory(store, f"m{i:03}.md", memory_text(f"m{i}", f"memory {i}", "user", "x\n"),
                     mtime=1_700_000_000 + i)
    write_index(store, [])
    finding = only(audit(store, duplicates=False), "beyond_recall_scan")
    assert (finding.severity, finding.file) == ("warning", "m000.md")


def test_audit_beyond_recall_scan_counts_logs_toward_200(store):
    for i in range(199):
        write_memory(store, f"m{i:03}.md", memory_text(f"m{i}", f"memory {i}", "user", "x\n"),
                     mtime=1_700_000_000 + i)
    write_memory(store, "logs/2026/01/2026-01-01.md", "- a log line\n", mtime=1_800_000_000)
    write_memory(store, "logs/2026/01/2026-01-02.md", "- a log line\n", mtime=1_800_000_001)
    write_index(store, [])
    flagged = [f.file for f in audit(store, duplicates=False) if f.kind == "beyond_recall_scan"]
    assert flagged == ["m000.md"]


def test_audit_a_memory_that_cannot_be_read_takes_no_recall_scan_slot(store):
    """Reference §4/§5: the scanner keeps the 200 newest files it could read; one it cannot
    read (its mode) is dropped before the cut, so the 200 others all stay in the scan."""
    import subprocess
    import sys

    import hostile_homes

    if not hostile_homes.can_deny_permissions():
        pytest.skip("permissions cannot be denied here (root without prctl)")
    for i in range(200):
        write_memory(store, f"m{i:03}.md", memory_text(f"m{i}", f"memory {i}", "user", "x\n"),
                     mtime=1_700_000_000 + i)
    locked = write_memory(store, "locked.md", GOOD, mtime=1_800_000_000)  # the newest
    write_index(store, [])
    locked.chmod(0)
    try:
        result = subprocess.run(
            [sys.executable, "-m", "tui", "audit", str(store), "--json"], capture_output=True,
            text=True, timeout=60,
            preexec_fn=hostile_homes.drop_root_bypass if os.geteuid() == 0 else None)
    finally:
        locked.chmod(0o644)
    findings = json.loads(result.stdout)["findings"]
    assert [f["file"] for f in findings if f["kind"] == "unreadable"] == ["locked.md"]
    assert [f["file"] for f in findings if f["kind"] == "beyond_recall_scan"] == []


def test_audit_stranded_store_is_an_error(store):
    finding = only(audit(store, stranded_reason="it is keyed by a worktree"), "stranded_store")
    assert (finding.severity, finding.file, finding.line) == ("error", None, None)


def test_audit_cli_reports_stranded_store_for_a_deleted_path(tmp_path, claude_home, capsys):
    memory = claude_home.store(tmp_path / "deleted-project")
    claude_home.session(tmp_path / "deleted-project")
    code = cli.main(["--config-dir", str(claude_home.home), "audit", str(memory), "--json"])
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert code == 1
    assert [f["kind"] for f in findings] == ["stranded_store"]


def test_audit_untrusted_setting_is_a_warning(store, tmp_path):
    source = tmp_path / ".claude" / "settings.json"
    finding = only(audit(store, untrusted_setting=("/root/.ssh", source)), "untrusted_setting")
    assert (finding.severity, finding.file, finding.target) == ("warning", str(source), "/root/.ssh")


def test_audit_non_utf8_memory_is_unreadable(store):
    write_memory(store, "binary.md", b"---\nname: \xff\xfe\n---\n")
    write_index(store, [index_line("binary.md")])
    finding = only(audit(store), "unreadable", "binary.md")
    assert finding.severity == "error" and "UTF-8" in finding.message


def test_audit_non_utf8_index_is_unreadable(store):
    (store / "MEMORY.md").write_bytes(b"- [A](a.md) \xff\n")
    finding = only(audit(store), "unreadable", "MEMORY.md")
    assert finding.severity == "error"


def test_audit_broken_symlink_memory_is_unreadable(store, tmp_path):
    (store / "ghost.md").symlink_to(tmp_path / "nowhere.md")
    write_index(store, [index_line("ghost.md")])
    finding = only(audit(store), "unreadable", "ghost.md")
    assert finding.severity == "error" and "broken symlink" in finding.message


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_audit_permission_denied_memory_is_unreadable(store):
    locked = write_memory(store, "locked.md", GOOD)
    write_index(store, [index_line("locked.md")])
    locked.chmod(0)
    try:
        assert only(audit(store), "unreadable", "locked.md").severity == "error"
    finally:
        locked.chmod(0o644)


def test_audit_symlinked_memory_pointing_outside_the_store(store, tmp_path):
    outside = write_memory(tmp_path, "secret.md", GOOD)
    (store / "linked.md").symlink_to(outside)
    write_index(store, [index_line("linked.md")])
    findings = audit(store)
    by_file = only(findings, "outside_store", "linked.md")
    assert (by_file.severity, by_file.target) == ("warning", str(outside))
    by_link = only(findings, "outside_store", "MEMORY.md")
    assert by_link.line == 1


def test_audit_index_link_leaving_the_store_is_a_warning(store):
    write_index(store, ["- [Up](../x.md) — escapes"])  # made by hand: Claude follows it
    finding = only(audit(store), "outside_store")
    assert (finding.severity, finding.line, finding.target) == ("warning", 1, "../x.md")


FINDING_FIELDS = st.tuples(
    st.sampled_from(["dangling", "duplicate", "secret"]), st.sampled_from(SEVERITIES),
    st.none() | st.text(max_size=5), st.none() | st.integers(0, 99), st.text(max_size=5),
    st.none() | st.text(max_size=5), st.none() | st.text(max_size=5),
    st.none() | st.floats(0, 100))


@given(FINDING_FIELDS)
def test_a_findings_json_is_its_fields_in_order_the_optional_ones_only_when_set(fields):
    from tui.memory.finding import Finding

    data = Finding(*fields).to_json()
    names = ("kind", "severity", "file", "line", "message", "target", "other", "score")
    expected = {name: value for name, value in zip(names, fields, strict=True)
                if value is not None or name in ("file", "line")}
    assert list(data.items()) == list(expected.items())


def test_audit_sync_conflict_where_its_markers_open(store):
    text = sync_conflicted_memory()
    write_memory(store, "rule.md", text)
    write_index(store, [index_line("rule.md")])
    found = only(audit(store), "sync_conflict")
    opening = text.split("\n").index("<<<<<<< memtui sync: laptop") + 1
    assert (found.severity, found.file, found.line) == ("warning", "rule.md", opening)
    assert "from laptop and from desktop, 2026-05-02 14:03 UTC" in found.message


def test_audit_sync_conflict_an_older_memtui_left_names_the_remote(store):
    text = sync_conflicted_memory().replace("desktop, 2026-05-02 14:03 UTC", "from the remote")
    write_memory(store, "rule.md", text)
    write_index(store, [index_line("rule.md")])
    assert "from laptop and from the remote" in only(audit(store), "sync_conflict").message


def test_audit_markers_that_are_no_complete_sync_conflict_are_no_finding(store):
    text = sync_conflicted_memory()
    write_memory(store, "half.md", text.replace(
        ">>>>>>> memtui sync: desktop, 2026-05-02 14:03 UTC\n", ""))
    write_memory(store, "git.md", text.replace("memtui sync: ", ""))  # git's own markers
    write_index(store, [index_line("half.md"), index_line("git.md")])
    assert "sync_conflict" not in kinds(audit(store))
