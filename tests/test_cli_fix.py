"""`memtui fix`: the app's repairs on the command line, on stores in the real shapes.

Each repair is run as a user runs it (`cli.main`), the files on disk are checked
afterwards, `audit` is asked whether the finding is gone, and `memtui undo` must put every
byte back.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import index_line, memory_text, real, snapshot, write_index, write_memory
from real_shapes import FAKE_TOKEN, build, long_lines

from tui import cli

ORPHAN_KINDS = {"unindexed", "beyond_cut"}
PROMPT = "Apply this change? [y/N] "


class Shaped:
    """A project whose store was built in one of the real shapes."""

    def __init__(self, home, project: Path, store: Path, files: list[str]):
        self.home = home
        self.project = project
        self.store = store
        self.files = files

    def run(self, capsys, *args: str) -> tuple[int, str, str]:
        code = cli.main(["--config-dir", str(self.home.home), *args])
        out, err = capsys.readouterr()
        return code, out, err

    def fix(self, capsys, *args: str) -> tuple[int, str, str]:
        return self.run(capsys, "fix", str(self.store), *args)

    def kinds(self, capsys) -> dict[str, list[str | None]]:
        code, out, err = self.run(capsys, "audit", str(self.store), "--json")
        assert code in (0, 1) and err == ""
        found: dict[str, list[str | None]] = {}
        for finding in json.loads(out)["findings"]:
            found.setdefault(finding["kind"], []).append(finding["file"])
        return found

    def files_on_disk(self) -> dict[str, bytes]:
        return snapshot(self.store, recursive=True)

    def undo(self, capsys) -> None:
        code, out, err = self.run(capsys, "undo", str(self.store))
        assert (code, err) == (0, ""), err
        assert out.startswith("Undid ")


@pytest.fixture
def shaped(claude_home, tmp_path):
    def make(shape: str) -> Shaped:
        project = real(tmp_path) / "work" / shape
        project.mkdir(parents=True)
        claude_home.session(project)
        store = claude_home.store(project)
        return Shaped(claude_home, project, store, build(store, shape))

    return make


def one_sentence(err: str) -> str:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("memtui: "), err
    return lines[0]


class Terminal(io.StringIO):
    """stdin as a terminal the user answers on; `meanwhile` runs while they read the plan."""

    def __init__(self, answer: str, meanwhile=None):
        super().__init__(answer + "\n")
        self.meanwhile = meanwhile

    def isatty(self) -> bool:
        return True

    def readline(self, *args) -> str:
        if self.meanwhile is not None:
            self.meanwhile()
        return super().readline(*args)


# --- relink and dangling, audited afterwards ------------------------------------------------


@pytest.mark.parametrize("shape, orphans", [
    ("topics_and_skills_subfolders", ["skills/deploy/steps.md"]),
    ("team_memory", ["team/release.md"]),
    ("old_store_without_frontmatter", ["architecture_notes.md"]),
    ("memory_folder_is_a_git_repository", ["CLAUDE.md", "README.md"]),
])
def test_fix_relink_links_every_orphan_and_undo_takes_it_back(shaped, capsys, shape, orphans):
    store = shaped(shape)
    assert sorted(file for kind in ORPHAN_KINDS
                  for file in store.kinds(capsys).get(kind, [])) == orphans
    before = store.files_on_disk()

    code, out, err = store.fix(capsys, "relink", "--yes")
    assert (code, err) == (0, "")
    for file in orphans:
        assert f"Add an index line for {file}" in out
    assert f"undo {store.store}" in out.splitlines()[-1]
    assert not ORPHAN_KINDS & store.kinds(capsys).keys()
    after = store.files_on_disk()
    changed = {name for name in after if after[name] != before.get(name)}
    index = "team/MEMORY.md" if shape == "team_memory" else "MEMORY.md"
    assert changed == {index}
    # The lines that were there keep their bytes; the new ones are added, nothing else.
    old_lines = before[index].decode().splitlines()
    new_lines = after[index].decode().splitlines()
    assert [line for line in new_lines if line in old_lines] == old_lines
    assert len(new_lines) == len(old_lines) + len(orphans)

    store.undo(capsys)
    assert store.files_on_disk() == before


def test_fix_relink_given_files_relinks_only_those(shaped, capsys):
    store = shaped("memory_folder_is_a_git_repository")
    code, out, err = store.fix(capsys, "relink", "CLAUDE.md", "--yes")
    assert (code, err) == (0, "")
    assert store.kinds(capsys)["unindexed"] == ["README.md"]
    assert "(CLAUDE.md)" in (store.store / "MEMORY.md").read_text()


def test_fix_relink_takes_a_memory_file_by_its_path_too(shaped, capsys):
    store = shaped("topics_and_skills_subfolders")
    path = store.store / "skills" / "deploy" / "steps.md"
    code, _, err = store.fix(capsys, "relink", str(path), "--yes")
    assert (code, err) == (0, "")
    assert "unindexed" not in store.kinds(capsys)


def test_fix_takes_a_path_from_the_current_directory(shaped, capsys, monkeypatch):
    store = shaped("index_under_type_headings")
    monkeypatch.chdir(store.store.parent)
    code, _, err = store.run(capsys, "fix", str(store.store), "delete", "memory/user_1.md",
                             "--yes")
    assert (code, err) == (0, "")
    assert not (store.store / "user_1.md").exists()


def test_fix_relink_with_no_orphan_changes_nothing(shaped, capsys):
    store = shaped("crlf_files")
    before = store.files_on_disk()
    code, out, err = store.fix(capsys, "relink", "--yes")
    assert (code, err) == (0, "")
    assert "No orphan" in out and "undo" not in out
    assert out == (f"Nothing to change in {store.store}:\n"
                   "  No orphan: every memory is linked inside the loaded cut.\n")
    assert store.files_on_disk() == before


def drop_memory(store: Shaped, file: str) -> None:
    """A memory gone from disk while its index line stays: what a dangling line is."""
    (store.store / file).unlink()
    store.files.remove(file)


@pytest.mark.parametrize("shape, gone", [
    ("crlf_files", "user_role.md"),
    ("index_under_type_headings", "feedback_1.md"),
    ("topics_and_skills_subfolders", "topics/database.md"),
    ("bom_on_every_file", "feedback_style.md"),
])
def test_fix_dangling_drops_exactly_the_dangling_lines_and_undo_restores(shaped, capsys,
                                                                          shape, gone):
    store = shaped(shape)
    drop_memory(store, gone)
    assert "dangling" in store.kinds(capsys)
    index_before = (store.store / "MEMORY.md").read_bytes()
    before = store.files_on_disk()

    code, out, err = store.fix(capsys, "dangling", "--yes")
    assert (code, err) == (0, "")
    assert f"which links the missing {gone}" in out
    assert "dangling" not in store.kinds(capsys)
    after = store.files_on_disk()
    assert {name for name in after if after[name] != before[name]} == {"MEMORY.md"}
    # Every other line keeps its bytes, line endings (CRLF) and byte-order mark included.
    kept = [line for line in index_before.split(b"\n") if f"({gone})".encode() not in line]
    assert after["MEMORY.md"].split(b"\n") == kept

    store.undo(capsys)
    assert store.files_on_disk() == before


@pytest.fixture
def three_dangling(claude_home):
    """MEMORY.md lines 2 and 4 and team/MEMORY.md line 1 link missing files."""
    store = claude_home.store(folder="-home-me-dangling")
    write_memory(store, "kept.md", memory_text("kept"))
    write_index(store, [index_line("kept.md"), index_line("gone.md"), "# Later",
                        index_line("lost.md")])
    write_memory(store, "team/shared.md", memory_text("shared", "the team's release rota"))
    (store / "team" / "MEMORY.md").write_text(index_line("missing.md") + "\n"
                                              + index_line("shared.md") + "\n")
    return store


def dangling_lines(claude_home, capsys, store: Path) -> set[str]:
    assert cli.main(["--config-dir", str(claude_home.home), "audit", str(store), "--json"]) in (0, 1)
    findings = json.loads(capsys.readouterr()[0])["findings"]
    return {f"{f['file']}:{f['line']}" for f in findings if f["kind"] == "dangling"}


@pytest.mark.parametrize("given, removed", [
    (["MEMORY.md:4"], {"MEMORY.md:4"}),
    (["2"], {"MEMORY.md:2"}),
    (["team/MEMORY.md:1", "MEMORY.md:2"], {"team/MEMORY.md:1", "MEMORY.md:2"}),
])
def test_fix_dangling_takes_the_lines_audit_names(three_dangling, claude_home, capsys,
                                                  given, removed):
    every = {"MEMORY.md:2", "MEMORY.md:4", "team/MEMORY.md:1"}
    assert dangling_lines(claude_home, capsys, three_dangling) == every
    code = cli.main(["--config-dir", str(claude_home.home), "fix", str(three_dangling),
                     "dangling", *given, "--yes"])
    assert (code, capsys.readouterr()[1]) == (0, "")
    # What is left is what was not named: the line numbers after a removed line move up.
    left = {"MEMORY.md:2": "(gone.md)", "MEMORY.md:4": "(lost.md)",
            "team/MEMORY.md:1": "(missing.md)"}
    text = (three_dangling / "MEMORY.md").read_text() + \
        (three_dangling / "team" / "MEMORY.md").read_text()
    assert {line for line, link in left.items() if link in text} == every - removed


def test_fix_dangling_refuses_a_line_audit_does_not_name_in_one_sentence(three_dangling,
                                                                       claude_home):
    before = snapshot(three_dangling, recursive=True)
    for word, said in [("MEMORY.md:1", "MEMORY.md:1 has no dangling finding"),
                       ("3", "MEMORY.md:3 has no dangling finding"),
                       ("MEMORY.md:0", "MEMORY.md:0 is no index line"),
                       ("kept.md:1", "kept.md:1 has no dangling finding")]:
        result = subprocess.run(
            [sys.executable, "-m", "tui", "--config-dir", str(claude_home.home), "fix",
             str(three_dangling), "dangling", word, "--yes"],
            capture_output=True, text=True, env=os.environ | claude_home.env)
        assert (result.returncode, result.stdout) == (2, "")
        assert said in one_sentence(result.stderr)
    assert snapshot(three_dangling, recursive=True) == before


def test_fix_shorten_takes_one_line_audit_names_and_leaves_the_others(shaped, capsys):
    store = shaped("long_index_lines")
    long = long_lines(store.store)
    assert len(long) > 1
    code, out, err = store.fix(capsys, "shorten", f"MEMORY.md:{long[-1]}", "--yes")
    assert (code, err) == (0, "")
    assert long_lines(store.store) == long[:-1]

    short = next(n for n in range(1, 40) if n not in long)
    code, out, err = store.fix(capsys, "shorten", str(short), "--yes")
    assert code == 2
    assert f"MEMORY.md:{short} has no long_index_line finding" in one_sentence(err)


# --- shorten, redact, archive, delete --------------------------------------------------------


def test_fix_shorten_keeps_every_hook_in_its_memory_and_undo_restores(shaped, capsys):
    store = shaped("long_index_lines")
    long = long_lines(store.store)
    assert long
    before = store.files_on_disk()

    code, out, err = store.fix(capsys, "shorten", "--yes")
    assert (code, err) == (0, "")
    assert "long_index_line" not in store.kinds(capsys)
    assert long_lines(store.store) == []
    after = store.files_on_disk()
    changed = {name for name in after if after[name] != before[name]}
    assert "MEMORY.md" in changed and len(changed) > 1
    for name in changed - {"MEMORY.md"}:
        assert after[name].startswith(before[name])  # the hook is appended, nothing lost
        assert "## Index note" in after[name].decode()

    store.undo(capsys)
    assert store.files_on_disk() == before


def test_fix_redact_removes_the_token_from_the_index_and_undo_leaves_it_out(shaped, capsys):
    """A redaction is the one change undo does not take back: memtui keeps no copy of the
    secret to put back (tests/test_redaction.py checks every file it keeps)."""
    store = shaped("plaintext_token_in_the_index")
    assert "secret" in store.kinds(capsys)

    code, out, err = store.fix(capsys, "redact", "--yes")
    assert (code, err) == (0, "")
    assert FAKE_TOKEN not in out, "the plan shows the secret it removes"
    assert "it cannot be undone" in out and "Undo it with" not in out
    index = (store.store / "MEMORY.md").read_text()
    assert FAKE_TOKEN not in index and "[REDACTED]" in index
    assert "secret" not in store.kinds(capsys)
    after = store.files_on_disk()

    code, out, err = store.run(capsys, "undo", str(store.store))
    assert "Nothing to undo" in out + err
    assert store.files_on_disk() == after


def test_fix_archive_moves_the_memory_and_its_line_out_and_undo_brings_both_back(shaped,
                                                                                capsys):
    from tui.memory.writes import archive_dir

    store = shaped("index_under_type_headings")
    before = store.files_on_disk()
    code, out, err = store.fix(capsys, "archive", "project_2.md", "--yes")
    assert (code, err) == (0, "")
    assert not (store.store / "project_2.md").exists()
    assert "(project_2.md)" not in (store.store / "MEMORY.md").read_text()
    assert (archive_dir(store.store) / "project_2.md").read_bytes() == before["project_2.md"]
    assert not store.kinds(capsys).keys() & {"dangling", *ORPHAN_KINDS}

    store.undo(capsys)
    assert store.files_on_disk() == before


def test_fix_delete_several_files_and_undo_brings_them_back(shaped, capsys):
    store = shaped("team_memory")
    before = store.files_on_disk()
    code, out, err = store.fix(capsys, "delete", "team/oncall.md", "user_role.md", "--yes")
    assert (code, err) == (0, "")
    after = store.files_on_disk()
    assert "team/oncall.md" not in after and "user_role.md" not in after
    assert "(oncall.md)" not in after["team/MEMORY.md"].decode()
    assert "(user_role.md)" not in after["MEMORY.md"].decode()

    store.undo(capsys)
    assert store.files_on_disk() == before


# --- preview, asking, --dry-run, --json ------------------------------------------------------


def test_fix_dry_run_shows_the_plan_and_the_diff_and_writes_nothing(shaped, capsys):
    store = shaped("topics_and_skills_subfolders")
    before = store.files_on_disk()
    code, out, err = store.fix(capsys, "relink", "--dry-run")
    assert (code, err) == (0, "")
    assert "Add an index line for skills/deploy/steps.md" in out
    assert "--- a/MEMORY.md\n+++ b/MEMORY.md\n" in out
    assert "\n+- [Steps](skills/deploy/steps.md)" in out
    assert out.splitlines()[-1] == "Dry run: nothing was written."
    assert store.files_on_disk() == before


def test_fix_without_a_terminal_needs_yes_or_dry_run(shaped, capsys):
    store = shaped("topics_and_skills_subfolders")
    before = store.files_on_disk()
    code, out, err = store.fix(capsys, "relink")
    assert (code, out) == (2, "")
    assert "--yes" in one_sentence(err) and "--dry-run" in err
    assert store.files_on_disk() == before


@pytest.mark.parametrize("answer, applied", [("y", True), ("n", False), ("", False)])
def test_fix_on_a_terminal_asks_before_it_writes(shaped, capsys, monkeypatch, answer, applied):
    store = shaped("topics_and_skills_subfolders")
    before = store.files_on_disk()
    monkeypatch.setattr(sys, "stdin", Terminal(answer))
    code, out, err = store.fix(capsys, "relink")
    assert code == 0
    assert err == PROMPT
    assert "+- [Steps](skills/deploy/steps.md)" in out
    assert (store.files_on_disk() != before) is applied
    assert ("undo" in out) is applied


def test_fix_refuses_a_write_claude_made_while_the_plan_was_shown(shaped, capsys, monkeypatch):
    store = shaped("topics_and_skills_subfolders")
    index = store.store / "MEMORY.md"

    def claude_writes():
        with open(index, "a", encoding="utf-8") as out:
            out.write("- [New](topics/new.md) — written by Claude meanwhile\n")

    monkeypatch.setattr(sys, "stdin", Terminal("y", claude_writes))
    code, out, err = store.fix(capsys, "relink")
    claudes = index.read_bytes()
    assert code == 2
    assert err.startswith(PROMPT)  # a terminal echoes the answer's newline; this one does not
    sentence = one_sentence(err.removeprefix(PROMPT))
    assert "MEMORY.md changed on disk" in sentence and "nothing was written" in sentence
    assert index.read_bytes() == claudes and b"skills/deploy" not in claudes
    code, out, _ = store.run(capsys, "undo", str(store.store), "--list")
    assert "memtui has made no change" in out


def test_fix_json_gives_the_plan_and_the_outcome(shaped, capsys):
    store = shaped("topics_and_skills_subfolders")
    code, out, err = store.fix(capsys, "relink", "--json", "--dry-run")
    assert (code, err) == (0, "")
    plan = json.loads(out)
    assert set(plan) == {"store", "repair", "label", "summary", "pushed_out", "changes",
                         "applied", "undo"}
    assert (plan["store"], plan["repair"], plan["applied"], plan["undo"]) == (
        str(store.store), "relink", False, None)
    assert plan["label"] == "relink 1 memory"
    [change] = plan["changes"]
    assert (change["file"], change["change"]) == ("MEMORY.md", "changed")
    assert "+- [Steps](skills/deploy/steps.md)" in change["diff"]

    code, out, err = store.fix(capsys, "relink", "--json", "--yes")
    assert (code, err) == (0, "")
    applied = json.loads(out)
    assert applied["applied"] is True
    assert applied["undo"] == f"memtui undo {store.store}"
    assert "unindexed" not in store.kinds(capsys)


def test_fix_json_of_a_redaction_carries_no_secret(shaped, capsys):
    store = shaped("plaintext_token_in_the_index")
    code, out, err = store.fix(capsys, "redact", "--json", "--yes")
    assert (code, err) == (0, "")
    assert FAKE_TOKEN not in out
    result = json.loads(out)
    assert result["applied"] is True
    assert [(c["file"], c["change"], c["diff"]) for c in result["changes"]] == [
        ("MEMORY.md", "changed", None)]
    assert result["summary"][0] == "Redact the GitHub Token on line 1 of MEMORY.md."
    assert result["undo"] is None and result["not_scrubbed"] == []


def test_fix_json_never_asks(shaped, capsys, monkeypatch):
    store = shaped("topics_and_skills_subfolders")
    monkeypatch.setattr(sys, "stdin", Terminal("y"))
    code, out, err = store.fix(capsys, "relink", "--json")
    assert (code, out) == (2, "")
    assert "--yes" in one_sentence(err)


# --- the cut: a relink that would push other entries out --------------------------------------


@pytest.fixture
def full_index(claude_home):
    """An index exactly at the line limit, every entry loaded, and one orphan."""
    from tui.memory.index import MAX_LINES

    store = claude_home.store(folder="-home-me-full")
    lines = []
    for number in range(MAX_LINES):
        write_memory(store, f"m{number:03}.md", memory_text(f"m{number:03}", f"fact {number}"))
        lines.append(index_line(f"m{number:03}.md"))
    write_index(store, lines)
    write_memory(store, "orphan.md", memory_text("orphan", "never indexed"))
    return store


def test_fix_relink_with_yes_does_not_push_entries_past_the_cut_unasked(full_index, claude_home,
                                                                        capsys):
    before = snapshot(full_index)
    code, out, err = cli.main(["--config-dir", str(claude_home.home), "fix", str(full_index),
                               "relink", "--yes"]), *capsys.readouterr()
    assert code == 2
    sentence = one_sentence(err)
    assert "m199.md past the loaded cut" in sentence and "--push-out" in sentence
    assert "m199.md past the loaded cut" in out  # the plan says it too
    assert snapshot(full_index) == before

    code = cli.main(["--config-dir", str(claude_home.home), "fix", str(full_index), "relink",
                     "--yes", "--push-out"])
    assert code == 0
    text = (full_index / "MEMORY.md").read_text()
    assert "(orphan.md)" in text and "(m199.md)" in text


@pytest.mark.parametrize("answer", ["y", "n"])
def test_fix_relink_on_a_terminal_asks_again_when_it_would_push_entries_out(
        full_index, claude_home, capsys, monkeypatch, answer):
    before = snapshot(full_index)
    monkeypatch.setattr(sys, "stdin", Terminal(answer))
    code = cli.main(["--config-dir", str(claude_home.home), "fix", str(full_index), "relink"])
    out, err = capsys.readouterr()
    assert code == 0
    assert err == "Apply it anyway, leaving 1 entry past the loaded cut? [y/N] "
    assert (snapshot(full_index) != before) is (answer == "y")


# --- one file under two names (a symlink in the store) ------------------------------------


@pytest.fixture
def aliased(claude_home):
    """deploy.md and release.md are one file: release.md is a symlink to deploy.md."""
    store = claude_home.store(folder="-home-me-aliased")
    write_memory(store, "deploy.md", memory_text(
        "deploy", "the staging flag before every release",
        body="Set the staging flag before every release, or the canary fails.\n"))
    (store / "release.md").symlink_to("deploy.md")
    write_memory(store, "other.md", memory_text("other", "something else"))
    return store


def fix_and_audit(claude_home, capsys, store: Path, *words: str):
    home = ["--config-dir", str(claude_home.home)]
    code = cli.main([*home, "fix", str(store), *words])
    out, err = capsys.readouterr()
    assert cli.main([*home, "audit", str(store), "--json"]) in (0, 1)
    findings = json.loads(capsys.readouterr()[0])["findings"]
    return code, out, err, {(f["kind"], f["file"]) for f in findings}


@pytest.mark.parametrize("linked", ["deploy.md", "release.md"])
def test_a_symlink_to_an_indexed_memory_is_no_orphan_and_relink_adds_no_second_line(
        aliased, claude_home, capsys, linked):
    write_index(aliased, [index_line(linked), index_line("other.md")])
    before = snapshot(aliased)
    other_name = {"deploy.md": "release.md", "release.md": "deploy.md"}[linked]

    code, out, err, found = fix_and_audit(claude_home, capsys, aliased, "relink", "--yes")
    assert (code, err) == (0, "")
    assert "No orphan" in out
    assert not {kind for kind, _ in found} & (ORPHAN_KINDS | {"duplicate"})

    code, out, err, _ = fix_and_audit(claude_home, capsys, aliased, "relink", other_name, "--yes")
    assert (code, err) == (0, "")
    assert f"{other_name} is the same file as {linked} (a symlink), which the loaded index " \
           "links already." in out
    assert snapshot(aliased) == before


def test_relinking_both_names_of_an_unindexed_file_adds_one_line_for_the_file(
        aliased, claude_home, capsys):
    write_index(aliased, [index_line("other.md")])
    _, _, _, found = fix_and_audit(claude_home, capsys, aliased, "relink", "--dry-run")
    # The audit names the file once, under its own name, as relink will.
    assert {file for kind, file in found if kind in ORPHAN_KINDS} == {"deploy.md"}

    code, out, err, found = fix_and_audit(claude_home, capsys, aliased, "relink",
                                          "release.md", "deploy.md", "--yes")
    assert (code, err) == (0, "")
    index = (aliased / "MEMORY.md").read_text().splitlines()
    assert len(index) == 2 and "(deploy.md)" in index[1] and "release.md" not in index[1]
    assert not {kind for kind, _ in found} & ORPHAN_KINDS


# --- refusals: one sentence, exit 2, nothing written -----------------------------------------


def test_fix_refuses_while_a_dream_holds_the_store(shaped, capsys):
    store = shaped("topics_and_skills_subfolders")
    (store.store / ".consolidate-lock").write_text(str(os.getpid()))
    before = store.files_on_disk()
    code, out, err = store.fix(capsys, "relink", "--yes")
    assert (code, out) == (2, "")
    assert f"consolidation (process {os.getpid()})" in one_sentence(err)
    assert store.files_on_disk() == before


def test_fix_on_a_project_without_a_store_says_so(tmp_path, claude_home, capsys):
    (tmp_path / "fresh").mkdir()
    code = cli.main(["--config-dir", str(claude_home.home), "fix", str(tmp_path / "fresh"),
                     "dangling", "--yes"])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert "no memory directory" in one_sentence(err)
    assert not (tmp_path / "fresh" / "memory").exists()


@pytest.mark.parametrize("words, said", [
    (["archive"], "needs the memory file"),
    (["relink", "nope.md"], "nope.md is not a memory"),
    (["polish"], "polish"),
    (["dangling", "MEMORY.md"], "MEMORY.md is no index line"),
    (["relink", "--yes", "--dry-run"], "not both"),
    (["delete", __file__], "is not inside"),
])
def test_fix_bad_usage_is_one_sentence(shaped, capsys, words, said):
    store = shaped("topics_and_skills_subfolders")
    before = store.files_on_disk()
    code, out, err = store.fix(capsys, *words, *([] if "--yes" in words else ["--yes"]))
    assert (code, out) == (2, "")
    assert said in one_sentence(err)
    assert store.files_on_disk() == before


def test_fix_relink_of_a_file_name_that_is_not_utf8_is_one_sentence(shaped, capsys):
    store = shaped("crlf_files")
    Path(os.fsdecode(os.fsencode(store.store) + b"/caf\xe9.md")).write_text(memory_text("c"))
    before = store.files_on_disk()
    code, out, err = store.fix(capsys, "relink", "--yes")
    assert (code, out) == (2, "")
    assert "caf\\xe9.md is not valid UTF-8" in one_sentence(err)  # shown, never raw
    assert store.files_on_disk() == before


def test_fix_takes_the_current_directorys_project_when_no_target_is_given(
        shaped, capsys, monkeypatch):
    store = shaped("topics_and_skills_subfolders")
    monkeypatch.chdir(store.project)
    code, out, err = store.run(capsys, "fix", "relink", "--yes")
    assert (code, err) == (0, ""), err
    assert "unindexed" not in store.kinds(capsys)


def test_fix_refuses_a_read_only_store_in_one_sentence(shaped, tmp_path):
    import hostile_homes

    if not hostile_homes.can_deny_permissions():
        pytest.skip("permissions cannot be denied here (root without prctl)")
    store = shaped("topics_and_skills_subfolders")
    before = store.files_on_disk()
    store.store.chmod(0o555)
    try:
        result = subprocess.run(
            [sys.executable, "-m", "tui", "--config-dir", str(store.home.home), "fix",
             str(store.store), "relink", "--yes"],
            capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
            preexec_fn=hostile_homes.drop_root_bypass if os.geteuid() == 0 else None)
    finally:
        store.store.chmod(0o755)
    assert (result.returncode, result.stdout) == (2, "")
    said = one_sentence(result.stderr)
    assert f"{store.store} is read-only; nothing was written" in said
    assert said.count(str(store.store)) == 1  # the store is named once
    assert store.files_on_disk() == before


@pytest.fixture
def crowded_index(claude_home) -> Path:
    """185 entries and 31 orphans: relinking them all would push entries past the cut."""
    store = claude_home.store(folder="-home-me-crowded")
    linked = [f"m{number:03}.md" for number in range(185)]
    for file in [*linked, *(f"orphan{number:02}.md" for number in range(31))]:
        write_memory(store, file, memory_text(file[:-3], f"about {file[:-3]}",
                                              "feedback" if file.startswith("o") else "project"))
    write_index(store, [index_line(file) for file in linked])
    return store


def test_fix_relink_says_how_to_relink_what_fits_and_hub_the_rest(crowded_index, claude_home,
                                                                   capsys):
    """Issue 42: the only ways out were removing lines or moving entries one by one."""
    home = ["--config-dir", str(claude_home.home)]
    code = cli.main([*home, "fix", str(crowded_index), "relink", "--dry-run"])
    out, _ = capsys.readouterr()
    assert code == 0 and f"`memtui fix {crowded_index} relink --hubs`" in out
    before = snapshot(crowded_index)

    code = cli.main([*home, "fix", str(crowded_index), "relink", "--hubs", "--yes"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out.startswith(f"Relink 14 memories, group 17 in hubs in {crowded_index}:")
    code, audit = cli.main([*home, "audit", str(crowded_index), "--json"]), capsys.readouterr()[0]
    kinds = {finding["kind"] for finding in json.loads(audit)["findings"]}
    assert not kinds & ORPHAN_KINDS, kinds
    hub = (crowded_index / "index_feedback.md").read_text()
    assert hub.count("](orphan") == 17
    assert cli.main([*home, "undo", str(crowded_index)]) == 0
    assert snapshot(crowded_index) == before
