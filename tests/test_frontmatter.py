"""Memory-file frontmatter in all three on-disk forms (reference §4)."""

from __future__ import annotations

import os

from conftest import cpu_seconds, memory_text, write_index, write_memory

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
    fm = frontmatter.parse(" ---\nname: x\n---\n")
    assert not fm.present


def test_read_head_reads_only_30_lines(tmp_path):
    path = tmp_path / "big.md"
    head = b"".join(f"line {i}\n".encode() for i in range(30))
    with open(path, "wb") as handle:
        handle.write(head + b"line 30\n")
        handle.truncate(1 << 30)  # a sparse gigabyte after line 31
    started = cpu_seconds()
    assert frontmatter.read_head(path) == head
    assert cpu_seconds() - started < 0.5


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


# --- Claude Code's rules, one test each (reference §4) -------------------------------------


def _parse_block(block: str) -> frontmatter.Frontmatter:
    return frontmatter.parse(f"---\n{block}---\nbody\n")


def test_quoted_phrase_followed_by_text_is_bad_frontmatter_like_claude_code():
    fm = _parse_block('name: lease\ndescription: "Short-term lease type" is a NEGATIVE signal\n'
                      "type: feedback\n")
    assert fm.present and fm.retried and fm.error
    assert fm.data == {} and fm.type is None and fm.description is None


def test_retry_does_not_quote_apostrophes_like_claude_code():
    block = "description: it's a: problem\n"  # ": " is special, but "'" alone is not
    assert frontmatter.quote_special_values(block) == "description: \"it's a: problem\"\n"
    assert frontmatter.quote_special_values("description: it's broken [\n") == (
        'description: "it\'s broken ["\n'
    )
    assert frontmatter.quote_special_values("description: it's odd, isn't it?\n") == (
        "description: it's odd, isn't it?\n"
    )
    fm = _parse_block("description: 'it's'\ntype: user\n")
    assert fm.error and fm.type is None


def test_retry_does_not_quote_double_quotes_commas_question_marks_or_bare_colons():
    for value in ['say "hi" now', "a, b", "why?", "key:value", "ends:", '"a" b']:
        block = f"description: {value}\nbroken: [\n"
        quoted = frontmatter.quote_special_values(block)
        assert quoted.splitlines()[0] == f"description: {value}", value


def test_retry_leaves_a_value_quoted_at_both_ends_alone():
    for value in ['"a: b" and "c"', "'x # y' z '", '"', "'"]:
        assert frontmatter.quote_special_values(f"k: {value}") == f"k: {value}"


def test_retry_quotes_a_value_quoted_at_one_end_only_when_it_has_special_characters():
    assert frontmatter.quote_special_values('k: "open: colon') == 'k: "\\"open: colon"'
    assert frontmatter.quote_special_values('k: "open plain') == 'k: "open plain'
    assert frontmatter.quote_special_values("k: closed* '") == "k: \"closed* '\""


def test_retry_does_not_quote_indented_keys_like_claude_code():
    block = "name: x\nmetadata:\n  description: Note: broken\n  type: user\n"
    assert frontmatter.quote_special_values(block) == block
    fm = _parse_block(block)
    assert fm.error and fm.data == {} and fm.type is None


def test_retry_only_matches_keys_of_letters_underscores_and_dashes():
    for key in ["key1", "my.key", "my key", "名前", '"k"', "- k"]:
        line = f"{key}: a: b"
        assert frontmatter.quote_special_values(line) == line, key
    assert frontmatter.quote_special_values("_my-Key_: a: b") == '_my-Key_: "a: b"'


def test_retry_quotes_only_yaml_special_characters():
    for char in "{}[]*&#!|>%@`":
        assert frontmatter.quote_special_values(f"k: a{char}b") == f'k: "a{char}b"', char
    assert frontmatter.quote_special_values("k: a: b") == 'k: "a: b"'
    assert frontmatter.quote_special_values("k: a:b") == "k: a:b"


def test_retry_escapes_backslashes_and_double_quotes_and_keeps_trailing_spaces():
    assert frontmatter.quote_special_values('k: a\\b "c" #d  ') == 'k: "a\\\\b \\"c\\" #d  "'


def test_retry_needs_whitespace_after_the_colon():
    assert frontmatter.quote_special_values("k:a: b") == "k:a: b"
    assert frontmatter.quote_special_values("k:\ta: b") == 'k: "a: b"'


def test_yaml_1_2_core_schema_keeps_yes_on_times_and_dates_as_text():
    fm = _parse_block("a: yes\nb: on\nc: 12:34\nd: 2024-01-01\ne: No\nf: 1_000\ng: y\n")
    assert fm.data == {"a": "yes", "b": "on", "c": "12:34", "d": "2024-01-01", "e": "No",
                       "f": "1_000", "g": "y"}


def test_yaml_1_2_core_schema_numbers_booleans_and_null():
    fm = _parse_block("a: 0o17\nb: 0x1F\nc: 017\nd: ~\ne: True\nf: .inf\ng: 1e3\nh: +12\n")
    assert fm.data == {"a": 15, "b": 31, "c": 17, "d": None, "e": True, "f": float("inf"),
                       "g": 1000.0, "h": 12}


def test_duplicate_key_is_an_error_like_claude_code():
    fm = _parse_block("name: a\ndescription: one\ntype: user\ndescription: two\n")
    assert fm.error and fm.data == {} and fm.type is None


def test_duplicate_key_under_metadata_is_an_error():
    fm = _parse_block("name: a\nmetadata:\n  type: user\n  type: project\n")
    assert fm.error and fm.type is None


def test_same_key_in_two_mappings_is_not_a_duplicate():
    fm = _parse_block("type: user\nmetadata:\n  type: project\n")
    assert fm.error is None and fm.type == "user"


def test_bom_is_dropped_like_the_memory_scanner():
    fm = frontmatter.parse("\ufeff---\nname: x\ntype: user\n---\nbody\n")
    assert fm.present and fm.type == "user" and fm.body == "body\n"


def test_crlf_is_read_like_the_memory_scanner_and_the_body_keeps_its_line_ends():
    fm = frontmatter.parse("\ufeff---\r\nname: x\r\ndescription: a: b\r\n---\r\nbody\r\n")
    assert fm.description == "a: b" and fm.body == "body\r\n" and fm.block_lines == 4


def test_lone_carriage_return_is_text_not_a_line_break():
    fm = frontmatter.parse("---\r\nname: a\rb\r\n---\r\n")
    assert fm.name == "a\rb"


def test_scanner_reads_only_30_lines_so_a_later_closing_line_means_no_frontmatter():
    keys = "".join(f"k{n}: v\n" for n in range(27))
    assert frontmatter.parse(f"---\nname: x\n{keys}---\n").name == "x"  # closes on line 30
    fm = frontmatter.parse(f"---\nname: x\nk: v\n{keys}---\n")  # closes on line 31
    assert not fm.present and fm.unclosed and fm.name is None


def test_block_regex_whitespace_is_javascripts():
    assert frontmatter.parse("---\u00a0\nname: x\n---\n").name == "x"  # JS \s holds NBSP
    assert frontmatter.parse("---\ufeff\nname: x\n---\n").name == "x"  # and the BOM
    assert not frontmatter.parse("---\x85\nname: x\n---\n").present  # but not NEL
    assert not frontmatter.parse("---\x1c\nname: x\n---\n").present  # nor \x1c


def test_block_ends_at_the_first_three_dashes_even_inside_a_line():
    fm = frontmatter.parse("---\nname: a---b\n---\n")
    assert fm.present and fm.name == "a" and fm.body == "b\n---\n"


def test_tab_only_line_is_blank_like_claude_code():
    assert _parse_block("name: a\n\t\ntype: user\n").type == "user"
    assert _parse_block("metadata:\n\t\ntype: user\n").error


def test_quoted_value_continued_at_column_zero_is_an_error():
    fm = _parse_block('description: "a long\ncontinued"\ntype: user\n')
    assert fm.error and fm.type is None
    assert _parse_block('description: "a long\n continued"\n').description == "a long continued"


def test_comment_right_after_a_quoted_value_is_an_error_the_retry_rescues():
    fm = _parse_block('description: "quoted"#tag\n')
    assert fm.retried and fm.error is None and fm.description == '"quoted"#tag'


def test_anchor_names_run_to_a_space_like_the_yaml_package():
    fm = _parse_block("description: &a.b value\nother: *a.b\n")
    assert fm.error is None and fm.data == {"description": "value", "other": "value"}
    assert _parse_block("description: &&note\n").data == {"description": None}


def test_unknown_tag_keeps_the_text():
    fm = _parse_block("description: !important thing\ntype: !!int user\n")
    assert fm.data == {"description": "thing", "type": "user"} and not fm.retried


def test_keys_become_javascript_property_names():
    fm = _parse_block("true: a\n1.0: b\n~: c\n1e21: d\n0.0000001: e\n")
    assert fm.data == {"true": "a", "1": "b", "": "c", "1e+21": "d", "1e-7": "e"}
