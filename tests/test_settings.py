"""Which memory dir a project uses (reference §2): override, settings order, validation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import real

from tui import cli
from tui.claude import paths
from tui.claude.settings import auto_memory_enabled, resolve_memory_location

SOURCES = ("managed", "flag", "local", "user")


@pytest.fixture
def setup(tmp_path, claude_home, fake_home):
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    files = {
        "managed": tmp_path / "managed-settings.json",
        "flag": tmp_path / "flag-settings.json",
        "local": project / ".claude" / "settings.local.json",
        "user": claude_home.home / "settings.json",
    }
    return project, files, claude_home


def set_value(file: Path, value: str) -> None:
    file.write_text(json.dumps({"autoMemoryDirectory": value}))


def resolve(project, files, claude_home, env=None):
    return resolve_memory_location(
        project, home=claude_home.home, env=env or {}, settings_file=files["flag"],
        managed_file=files["managed"],
    )


def test_settings_default_is_config_home_projects_sanitized_root(setup):
    project, files, claude_home = setup
    location = resolve(project, files, claude_home)
    assert location.source == "default"
    assert location.memory_dir == (
        claude_home.projects / paths.sanitize(str(real(project))) / "memory"
    )


def test_settings_env_override_wins_and_is_used_as_is(setup):
    project, files, claude_home = setup
    for source in SOURCES:
        set_value(files[source], f"/mem/{source}")
    env = {"CLAUDE_COWORK_MEMORY_PATH_OVERRIDE": "/mem/env/memory"}
    location = resolve(project, files, claude_home, env)
    assert location.source == "env"
    assert location.memory_dir == Path("/mem/env/memory")


@pytest.mark.parametrize(("bad", "reason"), [
    ("~/not-expanded", "is relative"), ("~", "is relative"), ("relative/memory", "is relative"),
    ("/a", "is shorter than 3 characters"), ("//server/share", "is a UNC path")])
def test_settings_env_override_is_a_candidate_path_refused_like_a_setting(setup, fake_home, bad,
                                                                          reason):
    """Reference §2: the variable's path is used as is, without `~/` expansion, and a
    candidate path that is relative (`~/x` unexpanded is), too short or a UNC path is
    refused: the settings decide then."""
    project, files, claude_home = setup
    set_value(files["user"], "~/mem/user")
    location = resolve(project, files, claude_home, {"CLAUDE_COWORK_MEMORY_PATH_OVERRIDE": bad})
    assert location.source == "user"
    assert location.memory_dir == fake_home / "mem" / "user"
    assert location.rejected == (f"CLAUDE_COWORK_MEMORY_PATH_OVERRIDE {bad!r} {reason}",)


@pytest.mark.parametrize("winner", SOURCES)
def test_settings_order_managed_then_flag_then_local_then_user(setup, winner):
    project, files, claude_home = setup
    for source in SOURCES[SOURCES.index(winner):]:
        set_value(files[source], f"/mem/{source}")
    location = resolve(project, files, claude_home)
    assert location.source == winner
    assert location.memory_dir == Path(f"/mem/{winner}")
    assert location.setting_file == files[winner]


def test_settings_home_prefix_is_expanded(setup, fake_home):
    project, files, claude_home = setup
    set_value(files["user"], "~/notes/memory")
    assert resolve(project, files, claude_home).memory_dir == fake_home / "notes" / "memory"


@pytest.mark.parametrize(
    "bad",
    ["relative/memory", "~", "~/", "~/.", "~/..", "/tmp/a\0b", "//server/share", "\\\\server\\share",
     "/a", "C:\\"],
)
def test_settings_rejected_value_means_the_default_not_the_next_file_and_is_reported(setup, bad):
    """Reference §2: the first settings file holding the key decides (v2.1.88 reads the
    files in order, then checks the value); a refused value gives the default store."""
    project, files, claude_home = setup
    set_value(files["local"], bad)
    set_value(files["user"], "/mem/user")
    location = resolve(project, files, claude_home)
    assert location.source == "default"
    assert location.memory_dir == (
        claude_home.projects / paths.sanitize(str(real(project))) / "memory")
    assert len(location.rejected) == 1
    assert repr(bad) in location.rejected[0]


def test_settings_all_rejected_falls_back_to_default(setup):
    project, files, claude_home = setup
    set_value(files["managed"], "relative")
    set_value(files["user"], "~")
    location = resolve(project, files, claude_home)
    assert location.source == "default"
    assert len(location.rejected) == 1  # the user's file is never read past the managed one


def test_settings_malformed_file_is_skipped(setup):
    project, files, claude_home = setup
    files["local"].write_text("{not json")
    files["flag"].write_text("[1, 2]")
    set_value(files["user"], "/mem/user")
    assert resolve(project, files, claude_home).source == "user"


def test_settings_checked_in_project_file_is_not_followed_but_reported(setup):
    project, files, claude_home = setup
    checked_in = project / ".claude" / "settings.json"
    set_value(checked_in, "/home/victim/.ssh")
    location = resolve(project, files, claude_home)
    assert location.source == "default"
    assert location.memory_dir != Path("/home/victim/.ssh")
    assert location.untrusted is not None
    assert location.untrusted.value == "/home/victim/.ssh"
    assert location.untrusted.source == real(checked_in)


def test_settings_checked_in_value_is_an_untrusted_setting_finding_in_audit_json(setup, capsys):
    project, files, claude_home = setup
    set_value(project / ".claude" / "settings.json", "/home/victim/.ssh")
    claude_home.store(real(project))
    code = cli.main(["--config-dir", str(claude_home.home), "audit", str(project), "--json"])
    findings = json.loads(capsys.readouterr().out)["findings"]
    untrusted = [f for f in findings if f["kind"] == "untrusted_setting"]
    assert code == 0
    assert len(untrusted) == 1
    assert untrusted[0]["severity"] == "warning"
    assert "/home/victim/.ssh" in untrusted[0]["message"]


def test_settings_remote_memory_dir_replaces_config_home_as_base(setup, tmp_path):
    project, files, claude_home = setup
    remote = tmp_path / "remote"
    location = resolve(project, files, claude_home, {"CLAUDE_CODE_REMOTE_MEMORY_DIR": str(remote)})
    assert location.memory_dir == remote / "projects" / paths.sanitize(str(real(project))) / "memory"


def test_settings_project_dir_name_honoured_only_with_config_dir(setup):
    project, files, claude_home = setup
    alone = resolve(project, files, claude_home, {"CLAUDE_CODE_PROJECT_DIR_NAME": "named"})
    assert alone.memory_dir.parent.name == paths.sanitize(str(real(project)))
    env = {"CLAUDE_CODE_PROJECT_DIR_NAME": "named", "CLAUDE_CONFIG_DIR": str(claude_home.home)}
    assert resolve(project, files, claude_home, env).memory_dir == claude_home.projects / "named" / "memory"


@pytest.mark.parametrize(
    ("flag", "setting", "enabled"),
    [("1", None, False), ("true", True, False), ("0", False, True), ("false", False, True),
     (None, False, False), (None, True, True), (None, None, True)],
)
def test_auto_memory_enabled_env_wins_over_setting(tmp_path, flag, setting, enabled):
    settings = tmp_path / "settings.json"
    if setting is not None:
        settings.write_text(json.dumps({"autoMemoryEnabled": setting}))
    env = {} if flag is None else {"CLAUDE_CODE_DISABLE_AUTO_MEMORY": flag}
    assert auto_memory_enabled(env, settings) is enabled
