"""memtui reads every frontmatter block of the golden file as Claude Code does.

tests/data/frontmatter_golden.jsonl holds memory files with what Claude Code's own code
(its scanner view, block regex, the npm `yaml` package, its quoting retry) made of them,
written by scripts/frontmatter_golden/generate.mjs. No node is needed here.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import pytest

from tui.memory import frontmatter, yaml_js

GOLDEN = Path(__file__).parent / "data" / "frontmatter_golden.jsonl"

# Where memtui still reads differently, each with why. A flow collection followed by `: `
# on one line (`a: {b: c}: d`): the package reads an extra pair with an empty key, which
# YAML does not allow; libyaml refuses the line, so the retry quotes it.
KNOWN_DIFFERENCES = {
    "---\na: {b: c}: d\n---\nBody line.\n",
    "---\nname: n\na: {b: c}: d\ntype: user\n---\nBody line.\n",
    "---\na: [b]: c\n---\nBody line.\n",
    "---\nname: n\na: [b]: c\ntype: user\n---\nBody line.\n",
}


def _golden() -> tuple[dict, list[dict]]:
    with GOLDEN.open(encoding="utf-8") as handle:
        meta, *cases = (json.loads(line) for line in handle)
    return meta["meta"], cases


META, CASES = _golden()


def _js_value(value):
    """A value as JavaScript holds it, comparable: numbers as doubles, NaN equal to itself."""
    if isinstance(value, dict):
        if set(value) == {"$number"}:
            return ("number", value["$number"])
        return {key: _js_value(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_js_value(item) for item in value]
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    number = yaml_js._as_double(value)
    if not math.isfinite(number):
        return ("number", yaml_js.js_number_text(number))
    return ("number", number)


def _utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _differences(case: dict) -> list[str]:
    text = case["text"]
    fm = frontmatter.parse(text)
    outcome = case["outcome"]
    problems = []
    if fm.present != (outcome != "none"):
        problems.append(f"present={fm.present}")
    if (fm.error is not None) != (outcome == "error"):
        problems.append(f"error={fm.error!r}")
    if fm.retried != (outcome in ("retried", "error")):
        problems.append(f"retried={fm.retried}")
    if _js_value(fm.data) != _js_value(case["data"]):
        problems.append(f"data={fm.data!r}")
    view = frontmatter.scanner_view(text)
    match = frontmatter.BLOCK.match(view)
    end = _utf16_length(view[: match.end()]) if match else 0
    if end != case["end"]:
        problems.append(f"end={end}")
    if "quoted" in case and frontmatter.quote_special_values(match.group(1)) != case["quoted"]:
        problems.append("retry quoted differently")
    return problems


def test_golden_file_covers_every_rule():
    assert len(CASES) >= 2000
    assert GOLDEN.stat().st_size < 2_000_000
    rules = Counter(case["rule"] for case in CASES)
    for rule in ("retry-special-char", "retry-leaves-unquoted", "quotes-one-end", "indented-key",
                 "tabs", "bom", "crlf", "duplicate-key", "yaml11-scalar", "nested-metadata",
                 "empty-name", "cjk", "multiline", "anchors", "block-regex", "scanner-30-lines"):
        assert rules[rule] >= 10, rule
    outcomes = Counter(case["outcome"] for case in CASES)
    assert min(outcomes[o] for o in ("none", "ok", "retried", "error")) >= 20


@pytest.mark.parametrize("rule", sorted({case["rule"] for case in CASES}))
def test_frontmatter_matches_claude_code(rule):
    wrong = []
    for case in CASES:
        if case["rule"] != rule or case["text"] in KNOWN_DIFFERENCES:
            continue
        problems = _differences(case)
        if problems:
            wrong.append(f"{case['text']!r}: Claude Code {case['outcome']} {case['data']!r}; "
                         f"memtui {'; '.join(problems)}")
    assert not wrong, f"{len(wrong)} blocks read differently:\n" + "\n".join(wrong[:15])


def test_known_differences_are_few_and_still_differ():
    texts = {case["text"]: case for case in CASES}
    assert len(KNOWN_DIFFERENCES) <= len(CASES) // 500
    for text in KNOWN_DIFFERENCES:
        assert _differences(texts[text]), f"{text!r} now reads as Claude Code does: drop it here"
