"""One project per folder, whatever is gone (reference §1, §2, §8).

A transcript folder is named after its sessions' cwd and a store after its project root, so
the sessions in the folder that holds a store used that store, even when every recorded cwd
is gone. Worktree folders of a gone checkout join its store only on evidence the transcripts
hold (a `worktree-state` origin, a memory write); a worktree-looking path is not evidence.
Each test runs on synthetic transcripts and, when `../shared` is there, on the real ones.
"""

from __future__ import annotations

import json

import pytest
from conftest import memory_saved_record, tool_use_record, worktree_state_record
from spotter_home import LAYOUTS, MAIN_CWD, MAIN_SESSIONS, WORKTREE_CWDS

from tui import cli
from tui.agents.extract import store_of
from tui.claude import paths
from tui.claude.discovery import discover
from tui.render import condense, project_rows


@pytest.fixture(params=LAYOUTS)
def spotter(request, claude_home):
    return request.param(claude_home)


def projects_json(capsys, spotter) -> list[dict]:
    assert cli.main(["--config-dir", str(spotter.home.home), "projects", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def inventory(spotter):
    return discover(spotter.home.home, spotter.home.env)


def rows_naming(projects, path: str) -> list:
    return [p for p in projects if p.key_path == path or path in p.paths]


def test_a_gone_checkout_and_its_store_are_one_row_with_its_sessions(spotter, capsys):
    entries = projects_json(capsys, spotter)
    (entry,) = [e for e in entries if MAIN_CWD in e["paths"]]
    assert entry["store"] == str(spotter.store)
    assert entry["sessions"] == MAIN_SESSIONS
    assert entry["transcript_dirs"] == [str(spotter.main_folder)]
    (folder,) = entry["transcript_folders"]
    assert (folder["cwd"], folder["mapped_by"], folder["sessions"]) == (MAIN_CWD, "folder", 3)
    # Stranded still: no session on this machine will load it again.
    assert entry["stranded"] and "no longer exists" in entry["stranded_reason"]


def test_no_path_appears_on_two_rows(spotter):
    rows = project_rows(inventory(spotter).projects)
    labels = [row.path for row in rows]
    assert len(labels) == len(set(labels)) == 1 + len(WORKTREE_CWDS)
    for path in (MAIN_CWD, *WORKTREE_CWDS):
        assert len(rows_naming(inventory(spotter).projects, path)) == 1


def test_worktree_folders_of_a_gone_checkout_say_why_they_have_no_store(spotter):
    projects = inventory(spotter).projects
    for cwd in WORKTREE_CWDS:
        (project,) = rows_naming(projects, cwd)
        assert project.store is None and project.sessions == 1
        # Named `<main>-worktrees/<name>`, but a path that looks like a worktree is no evidence.
        assert project.note == (
            f"its sessions ran in {cwd}, which no longer exists, and no transcript names the "
            "store they used (no memory write, no worktree origin)")


def test_worktree_state_maps_the_worktree_folders_to_the_gone_checkouts_store(spotter):
    for cwd in WORKTREE_CWDS:
        spotter.append(cwd, worktree_state_record(MAIN_CWD, cwd))
    (project,) = inventory(spotter).projects
    assert project.store == spotter.store
    assert project.sessions == MAIN_SESSIONS + len(WORKTREE_CWDS)
    mapped = {f.cwds[0]: (f.mapped_by, f.role) for f in project.transcript_folders}
    assert mapped == {MAIN_CWD: ("folder", "deleted"),
                      **{cwd: ("worktree-state", "deleted") for cwd in WORKTREE_CWDS}}


def test_a_memory_write_maps_a_worktree_folder_to_the_store_it_wrote(spotter):
    # Written under another machine's config home: the folder name identifies the store.
    written = f"/home/USER/.claude/projects/{spotter.main_folder.name}/memory/feedback_hooks.md"
    gqc, four_te = WORKTREE_CWDS[1], WORKTREE_CWDS[0]
    spotter.append(gqc, tool_use_record(gqc, "Write", written))
    spotter.append(four_te, memory_saved_record([written]))
    (project,) = inventory(spotter).projects
    assert {f.cwds[0]: f.mapped_by for f in project.transcript_folders} == {
        MAIN_CWD: "folder", gqc: "evidence", four_te: "evidence"}


def test_a_worktree_whose_origin_left_no_store_says_so(spotter):
    elsewhere = "/home/USER/projects/elsewhere"
    spotter.append(WORKTREE_CWDS[0], worktree_state_record(elsewhere, WORKTREE_CWDS[0]))
    (project,) = rows_naming(inventory(spotter).projects, WORKTREE_CWDS[0])
    assert project.store is None
    assert project.note == (f"its sessions ran in a worktree of {elsewhere}, which no longer "
                            "exists and left no memory store here")


def test_the_dream_gates_count_the_gone_checkouts_sessions(spotter, capsys):
    code = cli.main(["--config-dir", str(spotter.home.home), "dream", spotter.main_folder.name,
                     "--dry-run", "--json", "--engine", "offline"])
    gates = json.loads(capsys.readouterr().out)["gates"]
    assert code == 0
    assert (gates["sessions_cwd"], gates["sessions_all"]) == (MAIN_SESSIONS, MAIN_SESSIONS)


def test_an_extraction_finds_the_store_of_a_gone_checkouts_session(spotter):
    folder = spotter.main_folder
    for session_id in spotter.main_session_ids:
        store, transcript_dirs = store_of(folder / f"{session_id}.jsonl", spotter.home.home,
                                          spotter.home.env, None)
        assert (store, transcript_dirs) == (spotter.store, (folder,))


def test_the_projects_table_names_the_gone_checkout_once(spotter, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # one line per row
    assert cli.main(["--config-dir", str(spotter.home.home), "projects"]) == 0
    out = capsys.readouterr().out
    (row,) = [line for line in out.splitlines() if line.startswith(condense(MAIN_CWD) + " ")]
    assert row.split()[1:4] == ["1", str(MAIN_SESSIONS), "1"]  # memories, sessions, folders
    assert paths.sanitize(MAIN_CWD) not in out


def test_the_path_the_projects_table_prints_names_the_gone_checkouts_store(spotter, capsys):
    """`memtui projects` lists the gone checkout by its path: that path, given back as a
    TARGET, names its store (as its folder name does), not "not a project path"."""
    code = cli.main(["--config-dir", str(spotter.home.home), "audit", MAIN_CWD, "--json"])
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    assert json.loads(out)["store"] == str(spotter.store)


def test_a_gone_path_no_folder_is_named_after_says_it_does_not_exist(claude_home, capsys, tmp_path):
    gone = tmp_path / "nothing-here"
    assert cli.main(["--config-dir", str(claude_home.home), "audit", str(gone)]) == 2
    assert capsys.readouterr().err == f"memtui: {gone} does not exist.\n"
