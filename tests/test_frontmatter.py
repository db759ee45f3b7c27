"""Memory-file frontmatter in all three on-disk forms (reference §4)."""

from __future__ import annotations

import os
import time

from conftest import memory_text, write_index, write_memory

from tui import cli
from tui.memory import frontmatter
from tui.memory.audit import audit_store
from tui.memory.store import load_store


def test_frontmatter_none_form_is_all_body():
    fm = frontmatter.parse("Just a note.\nNo header.\n")
    assert (fm.present, fm.form, fm.data) == (False, "none", {})
    assert fm.body == "Just a note.\nNo header.\n"
    assert fm.type is None and fm.name is None


def test_frontmatter_flat_form():
    fm = frontmatter.parse(memory_text("testing", "how we test", "feedback", "Body.\n"))
    assert fm.form == "flat"
    assert (fm.name, fm.description, fm.type) == ("testing", "how we test", "feedback")
    assert fm.body == "Body.\n"  # `---\s*\n?` also eats the blank line


def test_frontmatter_nested_form_type_from_metadata():
    fm = frontmatter.parse(memory_text("user-role", "who I am", "user", "Body.\n", form="nested"))
    assert fm.form == "nested"
    assert fm.type == "user"
    assert fm.metadata["node_type"] == "memory"
    assert fm.name == "user-role"


def test_frontmatter_metadata_with_trailing_space():
    fm = frontmatter.parse("---\nname: x\nmetadata: \n  type: project\n---\nbody\n")
    assert fm.form == "nested"
    assert fm.type == "project"


def test_frontmatter_flat_origin_session_id_beside_flat_type():
    text = "---\nname: x\ndescription: d\ntype: reference\noriginSessionId: 1234\n---\nb\n"
    fm = frontmatter.parse(text)
    assert fm.type == "reference"
    assert fm.data["originSessionId"] == 1234


def test_frontmatter_top_level_type_wins_over_metadata_type():
    fm = frontmatter.parse("---\ntype: user\nmetadata:\n  type: project\n---\n")
    assert fm.type == "user"


def test_frontmatter_blank_name_stays_blank():
    fm = frontmatter.parse('---\nname: ""\nmetadata:\n  node_type: memory\n---\nbody\n')
    assert fm.name == ""
    assert fm.description is None and fm.type is None


def test_frontmatter_block_with_trailing_whitespace_and_crlf():
    fm = frontmatter.parse("---  \r\nname: a\r\ntype: user\r\n---\r\nbody\r\n")
    assert fm.present and fm.type == "user"
    assert fm.name == "a"


def test_frontmatter_retries_after_quoting_a_value_with_colon_space():
    fm = frontmatter.parse("---\nname: x\ndescription: Note: this broke YAML\ntype: user\n---\n")
    assert fm.retried and fm.error is None
    assert fm.description == "Note: this broke YAML"
    assert fm.type == "user"


def test_frontmatter_retries_after_quoting_a_value_with_alias_and_hash():
    fm = frontmatter.parse("---\ndescription: *important* note #1\n---\n")
    assert fm.retried and fm.error is None
    assert fm.description == "*important* note #1"


def test_frontmatter_hash_after_space_is_a_yaml_comment():
    fm = frontmatter.parse("---\ndescription: see the notes # not part of it\n---\n")
    assert not fm.retried
    assert fm.description == "see the notes"


def test_frontmatter_unfixable_yaml_reports_an_error():
    fm = frontmatter.parse("---\nname: x\n[unclosed\n---\nbody\n")
    assert fm.present and fm.retried
    assert fm.error
    assert fm.body == "body\n"


def test_frontmatter_non_mapping_yields_empty():
    for block in ("- a\n- b\n", "just a sentence\n", "42\n", ""):
        fm = frontmatter.parse(f"---\n{block}---\nbody\n")
        assert fm.present
        assert fm.data == {}
        assert fm.form == "empty"
        assert fm.error is None


def test_frontmatter_unknown_keys_are_preserved():
    fm = frontmatter.parse(
        "---\nname: x\ncustom: kept\nmetadata:\n  type: user\n  extra: [1, 2]\n---\n"
    )
    assert fm.data["custom"] == "kept"
    assert fm.metadata["extra"] == [1, 2]


def test_frontmatter_dates_stay_strings():
    fm = frontmatter.parse(
        "---\ncreated: 2026-01-02\nmetadata:\n  modified: 2026-01-02T03:04:05.000Z\n---\n"
    )
    assert fm.data["created"] == "2026-01-02"
    assert fm.metadata["modified"] == "2026-01-02T03:04:05.000Z"


def test_frontmatter_block_must_start_the_file():
    fm = frontmatter.parse("\n---\nname: x\n---\n")
    assert not fm.present
    fm = frontmatter.parse("\ufeff---\nname: x\n---\n")
    assert not fm.present


def test_read_head_reads_only_30_lines(tmp_path):
    path = tmp_path / "big.md"
    head = b"".join(f"line {i}\n".encode() for i in range(30))
    with open(path, "wb") as handle:
        handle.write(head + b"line 30\n")
        handle.truncate(1 << 30)  # a sparse gigabyte after line 31
    started = time.monotonic()
    assert frontmatter.read_head(path) == head
    assert time.monotonic() - started < 0.5


def test_read_head_of_short_file_is_the_whole_file(tmp_path):
    path = tmp_path / "short.md"
    path.write_bytes(b"a\nb")
    assert frontmatter.read_head(path) == b"a\nb"


def test_load_store_head_only_keeps_first_30_lines(tmp_path):
    store = tmp_path / "memory"
    body = "".join(f"body {i}\n" for i in range(100))
    write_memory(store, "long.md", memory_text(body=body))
    memory = load_store(store, head_only=True).memories[0]
    assert memory.text.count("\n") == 30
    assert memory.type == "feedback"


def _snapshot(folder):
    return {
        p: (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_reading_never_rewrites_memory_files(claude_home, capsys):
    store = claude_home.store(folder="-p")
    write_memory(store, "flat.md", memory_text(), mtime=1_600_000_000)
    write_memory(store, "nested.md", memory_text("n", "d", "user", form="nested"), mtime=1_600_000_000)
    write_memory(store, "broken.md", "---\nname: x\n[bad\n---\n", mtime=1_600_000_000)
    write_memory(store, "quoted.md", "---\ndescription: a: b\n---\nyesterday\n", mtime=1_600_000_000)
    write_memory(store, "binary.md", b"\xff\xfe\x00", mtime=1_600_000_000)
    write_index(store, ["- [Flat](flat.md) — f", "- [Gone](gone.md) — g"])
    before = _snapshot(store)
    audit_store(load_store(store))
    audit_store(load_store(store, head_only=True))
    cli.main(["--config-dir", str(claude_home.home), "audit", str(store), "--json"])
    cli.main(["--config-dir", str(claude_home.home), "index", str(store), "--loaded"])
    capsys.readouterr()
    assert _snapshot(store) == before
    assert sorted(os.listdir(store)) == sorted(p.name for p in before)
