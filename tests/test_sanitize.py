"""Folder-name sanitizing (reference §1 "Name sanitizing")."""

from __future__ import annotations

import json
import os
import string
import unicodedata
from pathlib import Path

import pytest
from conftest import real, write_index, write_memory
from hypothesis import given, settings
from hypothesis import strategies as st

from tui import cli
from tui.claude import paths
from tui.claude.settings import resolve_memory_location


def test_sanitize_unix_path_slashes_become_dashes():
    assert paths.sanitize("/Users/foo/my-project") == "-Users-foo-my-project"


def test_sanitize_runs_of_non_alnum_are_kept_not_collapsed():
    assert paths.sanitize("/Users/me/proj/.worktrees/2573") == "-Users-me-proj--worktrees-2573"
    assert paths.sanitize("/a//b___c. d") == "-a--b---c--d"


def test_sanitize_every_non_ascii_alnum_unit_becomes_dash():
    for char in string.punctuation + " \t_é":
        assert paths.sanitize(f"a{char}b") == "a-b"


def test_sanitize_emoji_is_two_code_units():
    assert paths.sanitize("/x/😀") == "-x---"
    assert paths.sanitize("😀") == "--"


def test_sanitize_cjk_is_one_unit_per_character():
    assert paths.sanitize("/home/张三/项目") == "-home-" + "-" * 5


def test_sanitize_windows_path():
    assert paths.sanitize("C:\\Users\\me\\proj") == "C--Users-me-proj"


def test_sanitize_exactly_200_characters_has_no_hash():
    path = "/" + "a" * 199
    assert paths.sanitize(path) == "-" + "a" * 199


def test_sanitize_over_200_is_first_200_dash_base36_hash():
    path = "/" + "b" * 260
    name = paths.sanitize(path)
    prefix, dash, suffix = name[:200], name[200], name[201:]
    assert prefix == "-" + "b" * 199
    assert dash == "-"
    assert suffix and set(suffix) <= set(string.digits + string.ascii_lowercase)


def test_sanitize_over_200_counts_emoji_units_before_cutting():
    # 99 emoji = 198 units, then "/ab": the 200-unit prefix ends inside "ab".
    path = "😀" * 99 + "/ab"
    assert paths.sanitize(path)[:201] == "-" * 199 + "a-"


def test_folder_matches_long_name_by_200_char_prefix_whatever_the_hash():
    sanitized = paths.sanitize("/" + "c" * 300)
    claude_made = sanitized[:200] + "-1x9zq"  # Bun's hash: not reproducible
    assert paths.folder_matches(claude_made, sanitized)
    assert not paths.folder_matches(sanitized[:199] + "d-1x9zq", sanitized)
    assert not paths.folder_matches(sanitized[:200], sanitized)


def test_folder_matches_short_names_only_exactly():
    sanitized = paths.sanitize("/" + "a" * 199)
    assert paths.folder_matches(sanitized, sanitized)
    assert not paths.folder_matches(sanitized + "-abc", sanitized)


def test_find_folder_finds_long_folder_by_prefix_and_prefers_exact():
    sanitized = paths.sanitize("/" + "e" * 250)
    claude_made = sanitized[:200] + "-k2j"
    assert paths.find_folder(["-other", claude_made], sanitized) == claude_made
    assert paths.find_folder([claude_made, sanitized], sanitized) == sanitized
    assert paths.find_folder(["-other"], sanitized) is None


def _long_project(tmp_path: Path) -> Path:
    project = tmp_path.joinpath(*["a-rather-long-directory-name-for-testing"] * 6)
    project.mkdir(parents=True)
    assert len(paths.sanitize(str(real(project)))) > 200
    return project


def test_resolve_long_project_path_to_existing_store_by_prefix(tmp_path, claude_home):
    project = _long_project(tmp_path)
    sanitized = paths.sanitize(str(real(project)))
    claude_made = claude_home.store(folder=sanitized[:200] + "-zz9x")
    location = resolve_memory_location(project, home=claude_home.home, env={},
                                       managed_file=tmp_path / "none.json")
    assert location.memory_dir == claude_made


def test_audit_cli_on_long_project_path_reads_prefix_matched_store(tmp_path, claude_home, capsys):
    project = _long_project(tmp_path)
    sanitized = paths.sanitize(str(real(project)))
    store = claude_home.store(folder=sanitized[:200] + "-q0w")
    write_memory(store, "a.md", "---\nname: a\ndescription: d\ntype: user\n---\nbody\n")
    write_index(store, ["- [A](a.md) — a"])
    code = cli.main(["--config-dir", str(claude_home.home), "audit", str(project), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    assert report["store"] == str(store)
    assert [m["file"] for m in report["memories"]] == ["a.md"]


def test_sanitize_input_is_realpath_symlink_resolves_to_same_store(tmp_path, claude_home):
    target = tmp_path / "real-project"
    target.mkdir()
    link = tmp_path / "linked"
    link.symlink_to(target)
    kwargs = {"home": claude_home.home, "env": {}, "managed_file": tmp_path / "none.json"}
    via_link = resolve_memory_location(link, **kwargs)
    direct = resolve_memory_location(target, **kwargs)
    assert via_link.memory_dir == direct.memory_dir
    assert via_link.memory_dir.parent.name == paths.sanitize(str(real(target)))


def test_sanitize_input_is_nfc_normalized(tmp_path, claude_home):
    nfd_name = unicodedata.normalize("NFD", "café")
    nfd_dir = tmp_path / nfd_name
    nfd_dir.mkdir()
    nfc_path = unicodedata.normalize("NFC", os.path.realpath(nfd_dir))
    assert paths.normalize_path(nfd_dir) == nfc_path
    location = resolve_memory_location(nfd_dir, home=claude_home.home, env={},
                                       managed_file=tmp_path / "none.json")
    assert location.memory_dir.parent.name == paths.sanitize(nfc_path)
    assert location.memory_dir.parent.name.endswith("caf-")  # NFD would give "cafe-"


@pytest.mark.parametrize(
    ("text", "units"), [("abc", 3), ("é", 1), ("张三", 2), ("😀", 2), ("a😀b", 4)]
)
def test_utf16_len_counts_javascript_units(text, units):
    assert paths.utf16_len(text) == units


def test_project_dir_name_override_needs_config_dir_and_valid_name():
    assert paths.project_dir_name_override({"CLAUDE_CODE_PROJECT_DIR_NAME": "my_proj-1"}) is None
    with_home = {"CLAUDE_CONFIG_DIR": "/x", "CLAUDE_CODE_PROJECT_DIR_NAME": "my_proj-1"}
    assert paths.project_dir_name_override(with_home) == "my_proj-1"
    for bad in ("a/b", "x" * 65, "a.b", ""):
        env = {"CLAUDE_CONFIG_DIR": "/x", "CLAUDE_CODE_PROJECT_DIR_NAME": bad}
        assert paths.project_dir_name_override(env) is None


def test_sanitize_nfd_and_nfc_spellings_resolve_to_the_same_folder(tmp_path, claude_home):
    nfc_dir = tmp_path / unicodedata.normalize("NFC", "Café Notes")
    nfc_dir.mkdir()
    nfd_spelling = str(real(tmp_path)) + "/" + unicodedata.normalize("NFD", "Café Notes")
    kwargs = {"home": claude_home.home, "env": {}, "managed_file": tmp_path / "none.json"}
    assert (resolve_memory_location(nfd_spelling, **kwargs).memory_dir
            == resolve_memory_location(nfc_dir, **kwargs).memory_dir)


def _encode_char_by_char(path: str) -> str:
    """The rule read literally: each UTF-16 unit of a non-[A-Za-z0-9] character is a '-'."""
    return "".join(
        char if char.isascii() and char.isalnum() else "-" * (2 if ord(char) > 0xFFFF else 1)
        for char in path
    )


@given(st.text(alphabet=st.characters(), max_size=80) | st.from_regex(r"[/a-zA-Z0-9._ -]{0,80}"))
@settings(max_examples=300)
def test_encode_path_agrees_with_the_rule_read_character_by_character(path):
    assert paths.encode_path(path) == _encode_char_by_char(path)


@given(st.lists(st.sampled_from(list("/.-_ aZ09~")) | st.characters(codec="utf-8"), max_size=60)
       .map("".join))
def test_encode_path_is_one_dash_per_utf16_unit_not_ascii_alnum(text):
    """The plain definition, unit by unit, for any text: ASCII paths take a faster road."""
    units = text.encode("utf-16-le", "surrogatepass")
    expected = "".join(
        chr(unit) if chr(unit).isascii() and chr(unit).isalnum() else "-"
        for unit in (int.from_bytes(units[i:i + 2], "little") for i in range(0, len(units), 2)))
    assert paths.encode_path(text) == expected
