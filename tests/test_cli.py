"""The `memtui` command line: JSON shapes, exit codes, one-sentence errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import index_line, make_repo, memory_text, real, write_index, write_memory

from tui import cli, xdg

PROJECT_KEYS = {"name", "store", "paths", "transcript_dirs", "sessions", "memories", "stranded",
                "last_consolidated"}


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def project(tmp_path, claude_home):
    make_repo(tmp_path / "repo")
    repo = real(tmp_path / "repo")
    store = claude_home.store(repo)
    write_memory(store, "testing.md", memory_text())
    write_index(store, [index_line("testing.md", "Testing")])
    claude_home.session(repo)
    return repo, store


def test_cli_projects_json_object_keys(project, claude_home, capsys):
    repo, store = project
    code, out, _ = run(capsys, "--config-dir", str(claude_home.home), "projects", "--json")
    projects = json.loads(out)
    assert code == 0
    assert len(projects) == 1
    entry = projects[0]
    assert PROJECT_KEYS <= entry.keys()
    assert entry["store"] == str(store)
    assert entry["paths"] == [str(repo)]
    assert entry["transcript_dirs"] == [str(store.parent)]
    assert (entry["sessions"], entry["memories"], entry["stranded"]) == (1, 1, False)
    assert entry["last_consolidated"] is None


def test_cli_projects_reads_claude_config_dir_env(project, claude_home, capsys, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude_home.home))
    code, out, _ = run(capsys, "projects", "--json")
    assert code == 0 and len(json.loads(out)) == 1


@pytest.mark.parametrize("command", [["projects"], ["audit", "--all"], ["audit", "{repo}"],
                                     ["index", "{repo}"], ["doctor", "{repo}"]])
def test_output_for_a_pipe_has_no_trailing_spaces(project, claude_home, capsys, command):
    repo, _ = project
    claude_home.store(folder="-home-me-no-sessions-yet")  # a second row, its status longer
    code, out, _ = run(capsys, "--config-dir", str(claude_home.home),
                       *(part.format(repo=repo) for part in command))
    assert code in (0, 1) and out.strip()
    assert [line for line in out.splitlines() if line != line.rstrip()] == []


def test_cli_audit_json_shape(project, claude_home, capsys):
    repo, store = project
    code, out, _ = run(capsys, "--config-dir", str(claude_home.home), "audit", str(repo), "--json")
    report = json.loads(out)
    assert code == 0
    assert report["store"] == str(store)
    assert {"lines", "chars", "loaded_lines", "loaded_chars", "cut", "warning"} <= report["index"].keys()
    assert report["index"]["lines"] == 1 and report["index"]["cut"] is None
    (memory,) = report["memories"]
    assert {"file", "name", "type", "description", "indexed", "visible"} <= memory.keys()
    assert (memory["file"], memory["name"], memory["type"]) == ("testing.md", "testing", "feedback")
    assert (memory["description"], memory["indexed"], memory["visible"]) == ("how we test", True, True)
    assert report["findings"] == []


def test_cli_audit_targets_memory_dir_and_folder_name(project, claude_home, capsys):
    _, store = project
    # Folder names start with "-": they are read as targets with or without "--" before them.
    for target in (["--json", str(store)], ["--json", "--", store.parent.name],
                   [store.parent.name, "--json"]):
        code, out, _ = run(capsys, "--config-dir", str(claude_home.home), "audit", *target)
        assert code == 0 and json.loads(out)["store"] == str(store)


def test_cli_audit_exit_1_when_errors(project, claude_home, capsys):
    repo, store = project
    write_memory(store, "orphan.md", memory_text("orphan", "never indexed", "user", "x\n"))
    code, out, _ = run(capsys, "--config-dir", str(claude_home.home), "audit", str(repo), "--json")
    assert code == 1
    assert [f["kind"] for f in json.loads(out)["findings"]] == ["unindexed"]


def test_cli_audit_exit_0_with_only_warnings(project, claude_home, capsys):
    repo, store = project
    write_index(store, [index_line("testing.md"), "- [Gone](gone.md) — g"])
    code, out, _ = run(capsys, "--config-dir", str(claude_home.home), "audit", str(repo))
    assert code == 0
    assert "gone.md" in out


def assert_one_sentence(err: str) -> None:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("memtui: ")


def test_cli_exit_2_for_unknown_target(claude_home, capsys):
    code, out, err = run(capsys, "--config-dir", str(claude_home.home), "audit", "no-such-folder")
    assert code == 2 and out == ""
    assert_one_sentence(err)


def test_cli_exit_2_for_project_without_memory_dir(tmp_path, claude_home, capsys):
    (tmp_path / "fresh").mkdir()
    code, _, err = run(capsys, "--config-dir", str(claude_home.home), "audit", str(tmp_path / "fresh"))
    assert code == 2
    assert_one_sentence(err)


@pytest.mark.parametrize("command", [["undo"], ["undo", "--list"], ["overwrites"],
                                     ["history", "backfill"]])
def test_store_commands_on_a_project_without_memory_dir_say_so(tmp_path, claude_home, capsys,
                                                               command):
    """Not "nothing to undo" or "no lost updates" for a store that is not there, and no
    journal made for it."""
    (tmp_path / "fresh").mkdir()
    code, out, err = run(capsys, "--config-dir", str(claude_home.home), *command,
                         str(tmp_path / "fresh"))
    assert (code, out) == (2, "")
    assert_one_sentence(err)
    assert "no memory directory" in err
    assert not any(xdg.data_dir().rglob("journal/*")), "a journal for a store that is not there"


@pytest.mark.parametrize("command", [["history"], ["restore", "--version", "HEAD"],
                                     ["merge"]])
def test_file_commands_given_the_store_itself_ask_for_a_file_in_it(claude_home, capsys, command):
    store = claude_home.store(folder="-home-me-repo")
    write_index(store, [index_line("a.md")])
    code, out, err = run(capsys, "--config-dir", str(claude_home.home), *command, str(store))
    assert (code, out) == (2, "")
    assert_one_sentence(err)
    assert err == (f"memtui: {store} is the memory directory itself; give the path of a "
                   "memory file in it.\n")


@pytest.mark.parametrize("command", [["history"], ["merge", "--dry-run"]])
def test_file_commands_take_a_memory_by_the_name_audit_prints_inside_its_project(
        project, claude_home, capsys, monkeypatch, command):
    repo, store = project
    monkeypatch.chdir(repo)
    (repo / "testing.md").write_text("a file of the code with the same name\n")
    for name in ("testing.md", "testing"):  # as audit prints it, as the app shows it
        code, _, err = run(capsys, "--config-dir", str(claude_home.home), *command, name)
        assert (code, err) == (0, ""), name
    code, out, err = run(capsys, "--config-dir", str(claude_home.home), *command, "nope.md")
    assert (code, out) == (2, "")
    assert err == ("memtui: nope.md is not inside a memory directory, nor a memory of this "
                   "project's store; give the path of a memory file.\n")


def test_cli_exit_2_for_missing_config_home(tmp_path, capsys):
    code, _, err = run(capsys, "--config-dir", str(tmp_path / "absent"), "projects")
    assert code == 2
    assert_one_sentence(err)


@pytest.mark.parametrize("flags", [[], ["--loaded"], ["--team"], ["--team", "--loaded"]])
def test_cli_index_of_a_store_without_memory_md_says_none_is_loaded_and_exits_0(
        claude_home, capsys, flags):
    """A store without an index is a real state (Claude Code loads no index), not an error."""
    store = claude_home.store(folder="-p")
    (store / "team").mkdir()
    code, out, err = run(capsys, "--config-dir", str(claude_home.home), "index", str(store),
                         *flags)
    assert (code, out) == (0, "")
    assert_one_sentence(err)
    file = "team/MEMORY.md" if "--team" in flags else "MEMORY.md"
    assert f"has no {file}: Claude Code loads no" in err


def test_cli_index_team_prints_team_memory_index_and_what_claude_loads_of_it(claude_home,
                                                                            capsys):
    from tui.memory.index import MAX_LINES

    store = claude_home.store(folder="-p")
    write_index(store, [index_line("a.md")])
    lines = [index_line(f"t{n}.md") for n in range(MAX_LINES + 1)]
    (store / "team").mkdir()
    write_index(store / "team", lines)
    home = ("--config-dir", str(claude_home.home))
    code, out, _ = run(capsys, *home, "index", str(store), "--team")
    assert code == 0 and out.splitlines() == lines
    code, out, _ = run(capsys, *home, "index", str(store), "--team", "--loaded")
    assert code == 0 and lines[-1] not in out and lines[-2] in out and "WARNING" in out
    code, out, _ = run(capsys, *home, "index", str(store))
    assert code == 0 and out.splitlines() == [index_line("a.md")]


def test_cli_index_team_of_a_store_without_team_memory_is_one_sentence(claude_home, capsys):
    store = claude_home.store(folder="-p")
    write_index(store, [index_line("a.md")])
    code, out, err = run(capsys, "--config-dir", str(claude_home.home), "index", str(store),
                         "--team")
    assert (code, out) == (2, "")
    assert_one_sentence(err)
    assert "no team/ folder" in err
    (store / "team").symlink_to(store / "gone")
    code, out, err = run(capsys, "--config-dir", str(claude_home.home), "index", str(store),
                         "--team")
    assert (code, out) == (2, "")
    assert_one_sentence(err)
    assert "team is no folder (a file, or a link to none)" in err


def test_cli_exit_2_for_bad_usage(capsys):
    code, _, err = run(capsys, "audit", "--no-such-flag")
    assert code == 2
    assert "Traceback" not in err and "--no-such-flag" in err


def test_cli_help_exits_0(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "audit" in out


def test_python_dash_m_tui_help_in_a_subprocess():
    result = subprocess.run([sys.executable, "-m", "tui", "--help"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    assert "usage: memtui" in result.stdout
    assert result.stderr == ""


def test_cli_error_in_a_subprocess_has_no_traceback(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "tui", "--config-dir", str(tmp_path / "absent"), "projects"],
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 2
    assert_one_sentence(result.stderr)


@pytest.mark.parametrize("command", [["overwrites"], ["undo", "--list"]])
def test_store_commands_that_need_only_the_store_do_not_work_out_if_it_is_stranded(
        claude_home, capsys, monkeypatch, command):
    """Whether a store is stranded reads its folder's transcripts: a command that never says
    it does not pay for it, while `audit` still does."""
    from tui.claude import targets

    store = claude_home.store(folder="-home-me-repo")
    write_index(store, [index_line("a.md")])
    asked = []
    real_state = targets.store_state
    monkeypatch.setattr(targets, "store_state",
                        lambda *args: asked.append(args) or real_state(*args))
    code, _, _ = run(capsys, "--config-dir", str(claude_home.home), *command, str(store))
    assert (code, asked) == (0, [])
    run(capsys, "--config-dir", str(claude_home.home), "audit", str(store))
    assert len(asked) == 1
