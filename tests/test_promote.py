"""`memtui promote` / `memtui demote`: a memory moved into the user's own CLAUDE.md (loaded
in every session of every project) and back, in temp config homes.

What the user wrote in CLAUDE.md keeps every byte, also when CLAUDE.md is a symlink into a
dotfiles repo; one `memtui undo` of either folder takes back both folders' changes; the
doctor says how much CLAUDE.md adds to every session.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import index_line, memory_text, real, snapshot, write_index, write_memory

from tui import cli
from tui.memory.frontmatter import parse

USER_TEXT = "# My rules\r\n\r\nAnswer tersely.\r\n<!-- a note for me -->\r\nNo emojis."
DEPLOY_BODY = ("Deploy only with scripts/release.sh, never by hand.\n\n"
               "**Why:** a manual deploy skipped the migrations once.\n"
               "**How to apply:** when asked to deploy, run the script and watch it.\n\n"
               "Background: the script was written after the outage.\n")


class Setup:
    def __init__(self, claude_home, project: Path, store: Path):
        self.home = claude_home.home
        self.project = project
        self.store = store
        self.claude_md = self.home / "CLAUDE.md"

    def run(self, capsys, *args: str) -> tuple[int, str, str]:
        code = cli.main(["--config-dir", str(self.home), *args])
        out, err = capsys.readouterr()
        assert "Traceback" not in err
        return code, out, err

    def audit(self, capsys) -> dict:
        code, out, _ = self.run(capsys, "audit", str(self.store), "--json")
        assert code in (0, 1)
        return json.loads(out)


@pytest.fixture
def setup(claude_home, tmp_path):
    project = real(tmp_path) / "work" / "shop"
    project.mkdir(parents=True)
    claude_home.session(project)
    store = claude_home.store(project)
    write_memory(store, "feedback_deploy.md",
                 memory_text("deploy-process", "how we deploy to production", body=DEPLOY_BODY,
                             form="nested"))
    write_memory(store, "user_role.md", memory_text("user-role", "a backend developer",
                                                    type="user", body="Backend developer.\n"))
    write_index(store, [index_line("user_role.md", "Role"),
                        index_line("feedback_deploy.md", "Deploy", "how we deploy")])
    made = Setup(claude_home, project, store)
    made.claude_md.write_bytes(USER_TEXT.encode())
    return made


def test_promote_appends_the_rule_why_and_how_after_the_users_own_bytes(setup, capsys):
    code, out, err = setup.run(capsys, "promote", "feedback_deploy.md", str(setup.store),
                               "--yes")
    assert (code, err) == (0, "")
    after = setup.claude_md.read_bytes()
    # Every byte the user wrote stays first, a blank line (in the file's own CRLF) follows.
    assert after.startswith(USER_TEXT.encode() + b"\r\n\r\n<!-- memtui promoted: ")
    added = after[len(USER_TEXT) + 4:].decode()
    # The frontmatter rides in the start marker (a comment: no context), for demote.
    assert added.startswith('<!-- memtui promoted: feedback_deploy {"name": "deploy-process", '
                            '"description": "how we deploy to production", "type": "feedback"}'
                            ' -->\r\n## Deploy process\r\n')
    assert "Deploy only with scripts/release.sh, never by hand." in added
    assert "**Why:** a manual deploy skipped the migrations once." in added
    assert "**How to apply:** when asked to deploy" in added
    assert "Background" not in added  # a short section: rule, Why, How to apply
    assert added.endswith("<!-- memtui end: feedback_deploy -->\r\n")
    assert "1 other paragraph of feedback_deploy.md is not carried over" in out
    # Without --remove the memory stays where it was.
    assert (setup.store / "feedback_deploy.md").exists()
    assert f"memtui undo {setup.home}" in out


def test_promote_remove_takes_the_memory_and_its_index_line_and_one_undo_puts_both_back(
        setup, capsys):
    store_before = snapshot(setup.store, recursive=True)
    code, out, err = setup.run(capsys, "promote", str(setup.store / "feedback_deploy.md"),
                               "--remove", "--yes")
    assert (code, err) == (0, ""), err
    assert not (setup.store / "feedback_deploy.md").exists()
    assert "feedback_deploy.md" not in (setup.store / "MEMORY.md").read_text()
    assert "user_role.md" in (setup.store / "MEMORY.md").read_text()
    assert "## Deploy process" in setup.claude_md.read_text()
    assert f"memtui undo {setup.home}" in out and f"memtui undo {setup.store}" in out
    promoted = setup.claude_md.read_bytes(), snapshot(setup.store, recursive=True)
    # The config home is a target `memtui undo` takes: the append goes, the user's bytes
    # stay, and the memory is back in its store, by the same undo.
    code, out, err = setup.run(capsys, "undo", str(setup.home))
    assert (code, err) == (0, "")
    assert out == (f"Undid promote feedback_deploy.md, in both {setup.home} and "
                   f"{setup.store}.\n")
    assert setup.claude_md.read_bytes() == USER_TEXT.encode()
    assert snapshot(setup.store, recursive=True) == store_before
    # Redone from the store's side, both come again; undone from there, both go.
    assert setup.run(capsys, "undo", str(setup.store), "--redo")[0] == 0
    assert (setup.claude_md.read_bytes(), snapshot(setup.store, recursive=True)) == promoted
    assert setup.run(capsys, "undo", str(setup.store))[0] == 0
    assert setup.claude_md.read_bytes() == USER_TEXT.encode()
    assert snapshot(setup.store, recursive=True) == store_before


def test_promote_refuses_without_a_terminal_or_twice(setup, capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code, _, err = setup.run(capsys, "promote", "feedback_deploy.md", str(setup.store))
    assert code == 2 and "add --dry-run to see the change, or --yes" in err
    assert setup.claude_md.read_bytes() == USER_TEXT.encode()
    code, out, _ = setup.run(capsys, "promote", "feedback_deploy.md", str(setup.store),
                             "--dry-run")
    assert code == 0 and "Dry run: nothing was written." in out
    assert setup.claude_md.read_bytes() == USER_TEXT.encode()
    assert setup.run(capsys, "promote", "feedback_deploy.md", str(setup.store), "--yes")[0] == 0
    once = setup.claude_md.read_bytes()
    code, _, err = setup.run(capsys, "promote", "feedback_deploy.md", str(setup.store), "--yes")
    assert code == 2 and "already promoted" in err and err.count("\n") == 1
    assert setup.claude_md.read_bytes() == once


def test_promote_creates_claude_md_when_there_is_none(setup, capsys):
    setup.claude_md.unlink()
    assert setup.run(capsys, "promote", "user_role.md", str(setup.store), "--yes")[0] == 0
    assert setup.claude_md.read_text().startswith("<!-- memtui promoted: user_role {")
    assert setup.run(capsys, "undo", str(setup.home))[0] == 0
    assert not setup.claude_md.exists()


def test_a_failed_removal_puts_claude_md_back(setup, capsys):
    from tui import failpoints
    from tui.memory.writes import history

    store_before = snapshot(setup.store, recursive=True)

    def full_disk_in_the_store(path: str) -> None:
        if str(setup.store) in path:
            raise OSError(28, "No space left on device", path)

    failpoints.on("io.write", full_disk_in_the_store)
    try:
        code, _, err = setup.run(capsys, "promote", "feedback_deploy.md", str(setup.store),
                                 "--remove", "--yes")
    finally:
        failpoints.on("io.write", None)
    assert code == 2 and err.count("\n") == 1
    assert f"what it had changed in {setup.home} was taken back, so nothing was changed" in err
    assert setup.claude_md.read_bytes() == USER_TEXT.encode()
    assert snapshot(setup.store, recursive=True) == store_before
    assert history(setup.home) == [] and history(setup.store) == []


def test_demote_removes_exactly_the_section_and_lands_inside_the_loaded_cut(setup, capsys):
    assert setup.run(capsys, "promote", "feedback_deploy.md", str(setup.store), "--remove",
                     "--yes")[0] == 0
    # The user writes on after the promoted section; that stays too.
    later = "\r\n## Later rule\r\nAlways run the linter.\r\n"
    setup.claude_md.write_bytes(setup.claude_md.read_bytes() + later.encode())
    # Another project whose index is past the cut: the new line must still be loaded.
    other = setup.project.parent / "api"
    other.mkdir()
    target = setup.store.parent.parent / "-other" / "memory"
    target.mkdir(parents=True)
    write_index(target, [index_line(f"m{n}.md", f"Memory {n}") for n in range(230)])
    for n in range(230):
        write_memory(target, f"m{n}.md", memory_text(f"m{n}", f"memory {n}"))
    claude_md = setup.claude_md.read_bytes()
    code, out, err = setup.run(capsys, "demote", "feedback_deploy", "--to", str(target), "--yes")
    # The cut is full: one entry would fall past it, so --yes alone writes nothing.
    assert code == 2 and "leave m199.md past the loaded cut" in err
    assert setup.claude_md.read_bytes() == claude_md and not (target / "feedback_deploy.md").exists()
    code, out, err = setup.run(capsys, "demote", "feedback_deploy", "--to", str(target), "--yes",
                               "--push-out")
    assert (code, err) == (0, ""), err
    assert setup.claude_md.read_bytes() == USER_TEXT.encode() + b"\r\n" + later.encode()
    created = (target / "feedback_deploy.md").read_text()
    front = parse(created)
    # The frontmatter it was promoted with comes back with it.
    assert (front.name, front.description, front.type) == (
        "deploy-process", "how we deploy to production", "feedback")
    assert front.body.startswith("Deploy only with scripts/release.sh, never by hand.")
    assert "**How to apply:** when asked to deploy" in front.body
    audit = json.loads(setup.run(capsys, "audit", str(target), "--json")[1])
    hidden = {f["file"] for f in audit["findings"] if f["kind"] in ("unindexed", "beyond_cut")}
    assert "feedback_deploy.md" not in hidden
    lines = (target / "MEMORY.md").read_text().splitlines()
    assert "- [Deploy process](feedback_deploy.md) — how we deploy to production" in lines[:200]
    # One undo puts both back.
    assert setup.run(capsys, "undo", str(setup.home))[0] == 0
    assert setup.claude_md.read_bytes() == claude_md
    assert not (target / "feedback_deploy.md").exists()


def test_demote_of_an_unknown_section_names_the_promoted_ones(setup, capsys):
    setup.run(capsys, "promote", "user_role.md", str(setup.store), "--yes")
    code, _, err = setup.run(capsys, "demote", "deploy", "--to", str(setup.store), "--yes")
    assert code == 2 and "no section promoted as 'deploy' (promoted there: user_role)" in err
    # Into the store that still holds the memory: refused, nothing overwritten.
    code, _, err = setup.run(capsys, "demote", "user_role", "--to", str(setup.store), "--yes")
    assert code == 2 and "already exists; nothing was written" in err


def test_doctor_says_how_large_claude_md_is_and_warns_past_200_lines(setup, capsys):
    setup.run(capsys, "promote", "feedback_deploy.md", str(setup.store), "--yes")
    code, out, _ = setup.run(capsys, "doctor", str(setup.project), "--json")
    check = next(c for c in json.loads(out)["checks"] if c["id"] == "user_claude_md")
    assert check["status"] == "ok"
    # The user's 4 lines and the section's 7: the comment lines (the user's and the two
    # markers) are stripped by Claude Code, and so not counted.
    assert " adds 11 lines, " in check["message"]
    assert "1 section of it promoted by memtui" in check["message"]
    setup.claude_md.write_text("\n".join(f"- rule {n}" for n in range(240)))
    code, out, _ = setup.run(capsys, "doctor", str(setup.project), "--json")
    check = next(c for c in json.loads(out)["checks"] if c["id"] == "user_claude_md")
    assert check["status"] == "warn"
    assert "240 lines" in check["message"] and "over the 200 lines" in check["message"]


def test_a_symlinked_claude_md_is_written_through_its_link(setup, capsys, tmp_path):
    """~/.claude/CLAUDE.md kept in a dotfiles repo: the file there changes, in its own
    folder, and the link stays a link; undo gives that file its bytes and mtime back."""
    dotfiles = tmp_path / "dotfiles" / "claude"
    dotfiles.mkdir(parents=True)
    kept = dotfiles / "CLAUDE.md"
    kept.write_bytes(USER_TEXT.encode())
    os.utime(kept, ns=(1_600_000_000_123_456_789,) * 2)
    setup.claude_md.unlink()
    setup.claude_md.symlink_to(os.path.relpath(kept, setup.home))
    link = os.readlink(setup.claude_md)
    code, out, err = setup.run(capsys, "promote", "feedback_deploy.md", str(setup.store),
                               "--remove", "--yes")
    assert (code, err) == (0, ""), err
    assert os.readlink(setup.claude_md) == link  # still the same link
    assert kept.read_bytes().startswith(USER_TEXT.encode() + b"\r\n\r\n<!-- memtui promoted: ")
    assert sorted(p.name for p in dotfiles.iterdir()) == ["CLAUDE.md"]  # no temp file left
    assert sorted(p.name for p in setup.home.iterdir() if p.name.startswith("CLAUDE")) == [
        "CLAUDE.md"]
    code, _, err = setup.run(capsys, "undo", str(setup.store))
    assert (code, err) == (0, "")
    assert os.readlink(setup.claude_md) == link
    assert kept.read_bytes() == USER_TEXT.encode()
    assert kept.stat().st_mtime_ns == 1_600_000_000_123_456_789
    assert (setup.store / "feedback_deploy.md").exists()
    # Demote reads and writes through the link as well.
    assert setup.run(capsys, "promote", "user_role.md", str(setup.store), "--yes")[0] == 0
    other = setup.store.parent.parent / "-elsewhere" / "memory"
    other.mkdir(parents=True)
    assert setup.run(capsys, "demote", "user_role", "--to", str(other), "--yes")[0] == 0
    assert setup.claude_md.is_symlink() and kept.read_bytes() == USER_TEXT.encode() + b"\r\n"
    assert (other / "user_role.md").exists()


def test_a_dangling_or_folder_claude_md_link_and_an_unreadable_one_get_one_sentence(
        setup, capsys, tmp_path):
    setup.claude_md.unlink()
    setup.claude_md.symlink_to(tmp_path / "gone" / "CLAUDE.md")
    code, _, err = setup.run(capsys, "promote", "user_role.md", str(setup.store), "--yes")
    assert code == 2 and err == (f"memtui: CLAUDE.md is a symlink to {tmp_path}/gone/CLAUDE.md, "
                                 "which does not exist; point the link at a file (or remove "
                                 "it) first.\n")
    assert not (tmp_path / "gone").exists() and setup.claude_md.is_symlink()
    setup.claude_md.unlink()
    (tmp_path / "rules").mkdir()
    setup.claude_md.symlink_to(tmp_path / "rules")
    code, _, err = setup.run(capsys, "promote", "user_role.md", str(setup.store), "--yes")
    assert code == 2 and err == (f"memtui: CLAUDE.md is a symlink to the folder {real(tmp_path)}/rules, "
                                 "not to a file; memtui writes only a file there.\n")
    assert list((tmp_path / "rules").iterdir()) == [] and setup.claude_md.is_symlink()
    setup.claude_md.unlink()
    setup.claude_md.write_bytes(b"\xff\xfe rules")
    code, _, err = setup.run(capsys, "promote", "user_role.md", str(setup.store), "--yes")
    assert code == 2 and "is not UTF-8 text; memtui leaves it as it is" in err
    assert setup.claude_md.read_bytes() == b"\xff\xfe rules"


def test_a_description_holding_a_comment_end_cannot_break_the_marker(setup, capsys):
    write_memory(setup.store, "arrows.md", memory_text("arrows", "use --> for flows, not <--",
                                                       body="Draw flows with -->.\n"))
    assert setup.run(capsys, "promote", "arrows.md", str(setup.store), "--yes")[0] == 0
    start = setup.claude_md.read_text().split("<!-- memtui promoted: arrows ", 1)[1]
    assert start.index(" -->") < start.index("\n")  # the marker's own end, on its line
    assert "-->" not in start.split(" -->", 1)[0]
    other = setup.store.parent.parent / "-elsewhere" / "memory"
    other.mkdir(parents=True)
    assert setup.run(capsys, "demote", "arrows", "--to", str(other), "--yes")[0] == 0
    assert parse((other / "arrows.md").read_text()).description == "use --> for flows, not <--"
    assert setup.claude_md.read_bytes() == USER_TEXT.encode() + b"\r\n"
