"""`--json` output is made by orjson, and must be the text the json module wrote before."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from tui.jsontext import _orjson_text, json_text

scalars = (
    st.none() | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)  # past 64 bits: orjson refuses them
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF, categories=None)))
documents = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=30,
)


def reference(data: object) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False)


@settings(max_examples=600, deadline=None)
@given(documents)
def test_json_text_is_what_the_json_module_writes(data: object) -> None:
    assert json_text(data) == reference(data)
    assert _orjson_text(data) == reference(data)  # what long outputs take, whatever the size


def test_the_shapes_orjson_writes_otherwise_are_still_exact() -> None:
    awkward = {
        "undecodable file name": "caf\udce9.md",  # a lone surrogate (surrogateescape)
        "small float": 1e-05,
        "tiny float": -5e-324,
        "huge int": 2**80,
        "float exponent": 1e16,
        "controls": "\x1b[31m\x00\x7f\u2028",
        "empty": [[], {}],
    }
    for key, value in awkward.items():
        assert json_text({key: value}) == reference({key: value}), key
        assert _orjson_text({key: value}) == reference({key: value}), key


def test_non_finite_floats_are_written_as_null_not_invalid_json() -> None:
    for data in ({"time": float("inf"), "score": float("nan")},
                 [{"time": float("nan")}] * 500):  # small, and long enough for orjson
        assert "NaN" not in json_text(data)
        assert json.loads(json_text(data)) == json.loads(json.dumps(data).replace("NaN", "null")
                                                         .replace("Infinity", "null"))


def test_long_output_is_written_by_orjson_and_short_output_without_importing_it() -> None:
    import subprocess
    import sys

    script = ("import sys; from tui.jsontext import json_text; json_text(%s); "
              "print('orjson' in sys.modules)")
    for data, loaded in (("[1, 2]", "False"), ("list(range(500))", "True")):
        result = subprocess.run([sys.executable, "-c", script % data], capture_output=True,
                                text=True, timeout=60)
        assert result.stdout.strip() == loaded, data


def test_strings_that_look_like_small_floats_keep_the_fast_path(monkeypatch) -> None:
    import tui.jsontext as support

    def no_fallback(*args, **kwargs):
        raise AssertionError("went to the json module")

    monkeypatch.setattr(support.json, "dumps", no_fallback)
    looks_like = {"session": "5e0f3c2e-4a1e-4b2c-9d3e-0f1e2d3c4b5a", "note": "v0.00001, 2e-5,",
                  "time": 1732912345.123456}
    assert json.loads(_orjson_text(looks_like)) == looks_like


def test_caches_keep_undecodable_names_and_big_numbers() -> None:
    from tui.jsontext import compact_json, load_json

    document = {"caf\udce9.md": ["/home/\udcff/x", 2**70, 1.5, None], "plain": "é"}
    assert load_json(compact_json(document)) == document
    assert load_json(compact_json({"plain": "é"})) == {"plain": "é"}
    big = {f"/home/me/caf\udce9-{n}/memory": [n, "é" * 600] for n in range(500)}  # orjson's
    assert load_json(compact_json(big)) == big
    stat_fields = {**big, "inode": 2**64 - 1, "mtime_ns": 2**63 - 1, "before_1970": -(2**63)}
    assert load_json(compact_json(stat_fields)) == stat_fields
    assert load_json(compact_json({"small": 2**70 + 1})) == {"small": 2**70 + 1}
    long_plain = {f"/home/me/{n}": ["é" * 600] for n in range(500)}
    assert load_json(compact_json(long_plain)) == long_plain


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(st.characters(codec="utf-8") | st.sampled_from(
    ["\x7f", "\x9b", "\u00a0", "\u061c", "\u200f", "\u202e", "\u2066", "\u2014", "é", "项"])),
    min_size=1, max_size=5))
def test_long_json_printed_as_bytes_is_the_visible_text(texts) -> None:
    import io
    import sys

    from tui.cli.support import print_json
    from tui.visible import json_visible

    data = [{"name": text, "n": n} for n in range(120) for text in texts]  # long: orjson's
    for encoding in ("utf-8", "latin-1"):
        raw = io.BytesIO()
        stream = io.TextIOWrapper(raw, encoding=encoding, errors="backslashreplace")
        saved, sys.stdout = sys.stdout, stream
        try:
            print_json(data)
        finally:
            sys.stdout = saved
        stream.detach()  # flushed, and `raw` left open
        expected = (json_visible(json_text(data)) + "\n").encode(encoding, "backslashreplace")
        assert raw.getvalue() == expected, encoding
