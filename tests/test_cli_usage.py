"""Bad usage of the command line: one sentence each, never argparse's usage block; and
memtui's own options accepted after every command."""

from __future__ import annotations

import json

import pytest
from conftest import index_line, make_repo, memory_text, real, write_index, write_memory

from tui import cli


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_sentence(err: str) -> None:
    assert err.count("\n") == 1 and err.endswith(".\n"), err
    assert "usage:" not in err and "Traceback" not in err


@pytest.fixture
def store(claude_home):
    store = claude_home.store(folder="-home-me-repo")
    write_memory(store, "testing.md", memory_text())
    write_index(store, [index_line("testing.md", "Testing")])
    return store


# --- a word starting with `--` is an option: an unknown one is named, with the options ---


@pytest.mark.parametrize("argv, sentence", [
    (["index", "--loaded", "--json"],
     "memtui index has no --json option; its options are --loaded, --team, --config-dir and "
     "--settings.\n"),
    (["watch", "--json"],
     "memtui watch has no --json option; its options are --all, --interval, --once, "
     "--config-dir and --settings.\n"),
    (["overwrites", "--jsonn"],
     "memtui overwrites has no --jsonn option (did you mean --json?); its options are --json, "
     "--config-dir and --settings.\n"),
    (["audit", "-home-me-repo", "--jsn=1"],
     "memtui audit has no --jsn option (did you mean --json?); its options are --json, --all, "
     "--no-cache, --config-dir and --settings.\n"),
])
def test_an_unknown_double_dash_word_is_an_unknown_option_of_that_command(
        claude_home, store, capsys, argv, sentence):
    code, out, err = run(capsys, "--config-dir", str(claude_home.home), *argv)
    assert (code, out, err) == (2, "", sentence)
    assert "No project" not in err


def test_an_unknown_option_before_the_command_says_where_options_go(capsys):
    code, _, err = run(capsys, "--json", "projects")
    assert code == 2
    assert err == ("memtui has no --json option; its options are --version, --config-dir and "
                   "--settings (a command's options go after it).\n")


@pytest.mark.parametrize("argv", [
    ["--config-dir", "{home}", "index", "-home-me-repo", "--loaded"],
    ["index", "--loaded", "-home-me-repo", "--config-dir", "{home}"],
    ["index", "--config-dir", "{home}", "-home-me-repo", "--loaded"],
])
def test_a_single_dash_folder_name_is_still_a_target_in_any_position(
        claude_home, store, capsys, argv):
    argv = [word.format(home=claude_home.home) for word in argv]
    assert run(capsys, *argv) == (0, index_line("testing.md", "Testing") + "\n", "")


def test_a_folder_name_starting_with_two_dashes_is_a_target_after_double_dash(
        claude_home, capsys):
    """`/_work/x` sanitizes to `--work-x`: after `--` every word is a target."""
    store = claude_home.store(folder="--work-x")
    write_memory(store, "testing.md", memory_text())
    write_index(store, [index_line("testing.md", "Testing")])
    code, out, _ = run(capsys, "--config-dir", str(claude_home.home), "index", "--loaded",
                       "--", "--work-x")
    assert (code, out) == (0, index_line("testing.md", "Testing") + "\n")


# --- a typo'd command, a choice, a repair, and `memtui fix` alone --------------------------


def test_a_typoed_command_is_one_sentence_with_the_closest_command(capsys):
    code, out, err = run(capsys, "auditt")
    assert (code, out) == (2, "")
    assert_one_sentence(err)
    assert err.startswith("memtui has no command 'auditt' (did you mean audit?); its commands "
                          "are projects, audit, index,")


def test_a_word_like_no_command_gets_no_guess(capsys):
    code, _, err = run(capsys, "frobnicate")
    assert code == 2
    assert_one_sentence(err)
    assert err.startswith("memtui has no command 'frobnicate'; its commands are")


def test_fix_without_arguments_names_the_repairs_in_one_sentence(capsys):
    code, out, err = run(capsys, "fix")
    assert (code, out) == (2, "")
    assert err == ("memtui: `memtui fix` needs a REPAIR: relink, dangling, shorten, redact, "
                   "repath, archive, delete, rescue or retire (`memtui fix --help` says what each "
                   "does).\n")


def test_a_typoed_repair_gets_the_closest_repair(claude_home, store, capsys):
    code, _, err = run(capsys, "--config-dir", str(claude_home.home), "fix", "-home-me-repo",
                       "relnk")
    assert code == 2
    assert_one_sentence(err)
    assert err.startswith("memtui: 'relnk' is no repair (did you mean relink?);")


def test_a_typoed_choice_gets_the_closest_choice(capsys):
    code, _, err = run(capsys, "dream", "--engine", "offlin")
    assert (code, err) == (2, "memtui dream: argument --engine: 'offlin' is not anthropic or "
                              "offline (did you mean offline?).\n")


def test_a_missing_argument_is_one_sentence(capsys):
    code, _, err = run(capsys, "restore")
    assert code == 2
    assert_one_sentence(err)
    assert err.startswith("memtui restore: the following arguments are required: FILE")


# --- memtui's own options after the command ------------------------------------------------

# What each command needs besides options, so that parsing reaches the settings check.
REQUIRED = {"history": ["x.md"], "restore": ["x.md", "--version", "abc"], "merge": ["x.md"],
            "extract": ["abc"], "fix": ["relink"], "hook": ["session-start"],
            "search": ["deploy"], "export": ["-o", "x.zip"], "import": ["x.zip"],
            "copy": ["x.md", "--to", "p"], "move": ["x.md", "--to", "p"],
            "promote": ["x.md"], "demote": ["x", "--to", "p"]}


@pytest.mark.parametrize("command", [name for names, _ in cli.COMMANDS for name in names])
def test_every_command_takes_settings_after_it(tmp_path, capsys, command):
    """The settings file is checked before any command runs: each one parsed it."""
    missing = tmp_path / "missing.json"
    code, out, err = run(capsys, command, *REQUIRED.get(command, []), "--settings", str(missing))
    assert (code, out, err) == (2, "", f"memtui: --settings {missing}: there is no such file.\n")


@pytest.mark.parametrize("command", [name for names, _ in cli.COMMANDS for name in names])
def test_every_command_takes_config_dir_after_it(capsys, command):
    parser = cli.build_parser(command)
    args = parser.parse_args([command, *REQUIRED.get(command, []), "--config-dir", "/elsewhere",
                              "--settings=/s.json"])
    assert (args.config_dir, str(args.settings)) == ("/elsewhere", "/s.json")


def test_audit_reads_the_config_dir_given_after_it(claude_home, store, capsys):
    code, out, err = run(capsys, "audit", "--config-dir", str(claude_home.home), "-home-me-repo",
                         "--json")
    assert (code, err) == (1, "")  # no checkout has this folder's name: stranded
    assert json.loads(out)["store"] == str(store)


def test_doctor_follows_the_settings_given_after_it(tmp_path, claude_home, capsys):
    repo = real(make_repo(tmp_path / "repo").working_tree_dir)
    elsewhere = tmp_path / "elsewhere-memory"
    settings = tmp_path / "flag.json"
    settings.write_text(json.dumps({"autoMemoryDirectory": str(elsewhere)}))
    code, out, err = run(capsys, "--config-dir", str(claude_home.home), "doctor", str(repo),
                         "--settings", str(settings), "--json")
    assert "unrecognized" not in err
    assert json.loads(out)["store"] == str(elsewhere)


def test_a_global_option_given_before_the_command_is_kept(claude_home, store, capsys):
    code, out, _ = run(capsys, "--config-dir", str(claude_home.home), "audit", "-home-me-repo",
                       "--json")
    assert code == 1 and json.loads(out)["store"] == str(store)
