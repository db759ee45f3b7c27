"""No command imports what it does not use: start-up time is paid on every invocation."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from conftest import index_line, memory_text, write_index, write_memory

HEAVY = ("textual", "anthropic", "rich", "git", "detect_secrets", "re2", "rapidfuzz",
         "markdown_it", "sqlite3", "yaml")


def run_importing(env: dict[str, str], *argv: str) -> tuple[int, set[str], str]:
    """(exit code, every module `memtui ARGV` imported, its stderr without the timings)."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c",
         "import sys; from tui.cli import main; sys.exit(main(sys.argv[1:]))", *argv],
        capture_output=True, text=True, env=env, timeout=60)
    lines = result.stderr.splitlines()
    modules = {line.rsplit("|", 1)[-1].strip() for line in lines if line.startswith("import time:")}
    said = "\n".join(line for line in lines if not line.startswith("import time:"))
    return result.returncode, modules, said


def imported(env: dict[str, str], *argv: str) -> tuple[int, set[str]]:
    code, modules, _ = run_importing(env, *argv)
    return code, {module.split(".")[0] for module in modules} & set(HEAVY)


@pytest.fixture
def home_env(claude_home, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    store = claude_home.store(project)
    write_memory(store, "testing.md", memory_text())
    write_index(store, [index_line("testing.md")])
    return {**os.environ, **claude_home.env}, store


def test_version_and_help_import_nothing_heavy(home_env):
    env, _ = home_env
    assert imported(env, "--version") == (0, set())
    assert imported(env, "--help") == (0, set())


def test_projects_json_imports_no_ui_no_git_no_yaml(home_env):
    env, _ = home_env
    code, heavy = imported(env, "projects", "--json")
    assert code == 0
    assert heavy == set()


def test_audit_json_imports_only_what_an_audit_needs(home_env):
    env, store = home_env
    imported(env, "audit", str(store), "--json")  # the first run caches the secret rules
    code, heavy = imported(env, "audit", str(store), "--json")
    assert code == 0
    # frontmatter, index, duplicates, the secret screen
    assert heavy <= {"yaml", "markdown_it", "rapidfuzz", "re2"}


def test_index_loaded_imports_no_ui(home_env):
    env, store = home_env
    code, heavy = imported(env, "index", str(store), "--loaded")
    assert code == 0
    assert not heavy & {"textual", "anthropic", "rich", "git", "detect_secrets"}


def test_version_is_the_packages():
    from tui import __version__, cli

    with pytest.raises(SystemExit) as exit_:
        cli.build_parser().parse_args(["--version"])
    assert exit_.value.code == 0
    assert __version__.count(".") == 2


def test_fix_dry_run_imports_no_ui_no_api_client_no_git(home_env):
    env, store = home_env
    (store / "orphan.md").write_text(memory_text("orphan", "not in the index"))
    code, heavy = imported(env, "fix", str(store), "relink", "--dry-run")
    assert code == 0
    assert not heavy & {"textual", "anthropic", "rich", "git", "detect_secrets"}


def test_doctor_imports_no_ui_and_no_api_client(home_env, tmp_path):
    env, store = home_env
    code, heavy = imported({**env, "HOME": str(tmp_path)}, "doctor", str(store), "--json")
    assert code == 0
    # the index's frontmatter (yaml) and the transcript scan cache (sqlite3) at most
    assert heavy <= {"yaml", "sqlite3"}


def test_gc_imports_nothing_heavy(home_env):
    env, store = home_env
    code, heavy = imported(env, "gc", str(store), "--json")
    assert code == 0
    assert heavy == set()


def _all_imported(env: dict[str, str], *argv: str, code: int = 0) -> set[str]:
    exit_code, modules, said = run_importing(env, *argv)
    assert exit_code == code, said
    return modules


def test_recovery_code_loads_only_when_a_killed_memtui_left_something(home_env, tmp_path):
    env, _ = home_env
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**env, "TMPDIR": str(scratch)}
    assert "tui.memory.intents" not in _all_imported(env, "projects", "--json")
    # A store copy of a run whose process is gone (no PID is this high): recovered.
    corpse = scratch / "memtui-run-4999999999-abc"
    (corpse / "memory").mkdir(parents=True)
    assert "tui.memory.intents" in _all_imported(env, "projects", "--json")
    assert not corpse.exists()


def test_a_running_memtuis_run_copy_leaves_the_recovery_code_unloaded(home_env, tmp_path):
    """A dream running in another terminal keeps its store copy in the temp dir: nothing
    there to recover, so other commands neither pay for the recovery code nor touch it."""
    env, _ = home_env
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**env, "TMPDIR": str(scratch)}
    running = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
    try:
        live = scratch / f"memtui-run-{running.pid}-abc"
        (live / "memory").mkdir(parents=True)
        assert "tui.memory.intents" not in _all_imported(env, "projects", "--json")
        assert live.exists()
    finally:
        running.kill()
        running.wait()
    assert "tui.memory.intents" in _all_imported(env, "projects", "--json")
    assert not live.exists()


COMMAND_MODULES = {"tui.cli.stores", "tui.cli.demo", "tui.cli.fix", "tui.cli.history",
                   "tui.cli.runs", "tui.cli.sync", "tui.cli.doctor", "tui.cli.gc", "tui.cli.serve"}


def test_a_command_builds_only_its_own_parser(home_env):
    env, _ = home_env
    assert _all_imported(env, "projects", "--json") & COMMAND_MODULES == {"tui.cli.stores"}
    assert _all_imported(env, "--config-dir", env["CLAUDE_CONFIG_DIR"], "overwrites",
                         "--help") & COMMAND_MODULES == {"tui.cli.history"}
    # Help names them all; a command memtui does not know is named from the list alone.
    assert _all_imported(env, "--help") & COMMAND_MODULES == COMMAND_MODULES
    assert _all_imported(env, "projecs", code=2) & COMMAND_MODULES == set()
    assert _all_imported(env, "-h", "projects") & COMMAND_MODULES == COMMAND_MODULES


def test_audit_all_answered_by_the_cache_loads_no_rules(home_env, tmp_path):
    env, _ = home_env
    env = {**env, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    time.sleep(2.1)  # settled: a store changed in the last 2 s is audited, never cached
    imported(env, "audit", "--all", "--json")  # fills the audit cache
    code, heavy = imported(env, "audit", "--all", "--json")
    assert code == 0
    assert heavy & {"yaml", "rapidfuzz", "markdown_it", "re2", "detect_secrets"} == set()


def test_overwrites_loads_the_journal_only_for_a_store_that_has_one(home_env):
    from tui.history.journal import Journal

    env, store = home_env
    journal_code = {"tui.history.journal", "tui.history.merge", "git", "difflib"}
    assert not _all_imported(env, "overwrites", str(store), "--json") & journal_code
    Journal(store).snapshot("a first version", source="external")
    assert "tui.history.journal" in _all_imported(env, "overwrites", str(store), "--json")


def test_a_store_command_loads_the_recovery_code_only_for_a_store_left_half_changed(home_env):
    env, store = home_env
    assert "tui.memory.intents" not in _all_imported(env, "index", str(store))
    (store / ".testing.md.memtui-new").write_text("half written")  # a killed write's
    assert "tui.memory.intents" in _all_imported(env, "index", str(store))
    assert not (store / ".testing.md.memtui-new").exists()  # and it was tidied


def test_the_apps_first_frame_loads_no_filter_and_no_memory_parsers():
    """The projects screen shows its rows before it reads any index or filters: rapidfuzz
    and the index and frontmatter parsers load after the first frame, when they are used."""
    result = subprocess.run(
        [sys.executable, "-c", "import sys, tui.app.app; print(' '.join(sys.modules))"],
        capture_output=True, text=True, timeout=60, check=True)
    loaded = set(result.stdout.split())
    assert "textual" in loaded
    assert not loaded & {"rapidfuzz", "tui.memory.index", "tui.memory.frontmatter", "yaml",
                         "tui.app.summaries"}
