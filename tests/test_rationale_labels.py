"""missing_why / missing_how_to_apply on real text: the forms and languages users write.

The rules are in tui/memory/rationale.py: a label counts before a colon (half- or full-width,
any emphasis), alone on its line (a heading or not), or opening a heading or a bold label
whatever follows, in any case, in ten languages.
"""

from __future__ import annotations

import pytest
from conftest import index_line, memory_text, write_index, write_memory
from hypothesis import given, settings
from hypothesis import strategies as st

from tui.memory.audit import audit_store
from tui.memory.rationale import rationale_labels, scanned_labels
from tui.memory.store import load_store


def rationale_findings(tmp_path, body: str) -> set[str]:
    store = tmp_path / "projects" / "-p" / "memory"
    store.mkdir(parents=True)
    write_memory(store, "rule.md", memory_text(type="feedback", body="Always do X.\n" + body))
    write_index(store, [index_line("rule.md")])
    kinds = {finding.kind for finding in audit_store(load_store(store))}
    return kinds & {"missing_why", "missing_how_to_apply"}


@pytest.mark.parametrize(("why", "how"), [
    ("**Why:** it broke.", "**How to apply:** always."),
    ("**Why**: it broke.", "**How to apply**: always."),
    ("Why: it broke.", "How to apply: always."),
    ("WHY : it broke.", "how TO apply : always."),
    ("- **Why:** it broke.", "- **How to apply:** always."),
    ("__Why:__ it broke.", "*How to apply:* always."),
    ("The rule holds. why:it broke.", "How To Apply** : always."),
], ids=["bold", "bold-colon-outside", "plain", "any-case", "list-item", "underscore-italic",
        "mid-line"])
def test_why_and_how_labels_count_with_a_colon(tmp_path, why, how):
    assert rationale_findings(tmp_path, f"{why}\n{how}\n") == set()


@pytest.mark.parametrize(("why", "how"), [
    ("**Why：** 它坏过。", "**How to apply：** 总是。"),
    ("Why：坏过。", "How to apply：总是。"),
    ("**原因：** 坏过。", "**如何应用：** 总是。"),
], ids=["bold", "plain", "chinese-labels"])
def test_why_and_how_labels_count_with_a_full_width_colon(tmp_path, why, how):
    assert rationale_findings(tmp_path, f"{why}\n{how}\n") == set()


@pytest.mark.parametrize(("why", "how"), [
    ("## Why", "## How to apply"),
    ("### Why", "###### How to apply"),
    ("# WHY", "## how to apply:"),
    ("## **Why**", "## **How to apply**"),
    ("**Why**", "**How to apply**"),
    ("## 为什么", "## 如何应用"),
    ("## Warum", "## Anwendung"),
], ids=["h2", "h3-h6", "any-case", "bold-heading", "bold-line", "chinese", "german"])
def test_why_and_how_labels_count_alone_on_their_line(tmp_path, why, how):
    body = f"{why}\nIt broke in production.\n\n{how}\nBefore every release.\n"
    assert rationale_findings(tmp_path, body) == set()


@pytest.mark.parametrize(("why", "how"), [
    ("**为什么：**", "**应用方式：**"),
    ("**為什麼：**", "**如何應用：**"),
    ("**理由:**", "**適用方法:**"),
    ("**なぜ:**", "**適用方法：**"),
    ("**이유:**", "**적용 방법:**"),
    ("**왜:**", "**적용방법:**"),
    ("**Por qué:**", "**Cómo aplicar:**"),
    ("**Motivo:**", "**Cómo aplicarlo:**"),
    ("**Porquê:**", "**Como aplicar:**"),
    ("**Por que:**", "**Como aplicar:**"),
    ("**Pourquoi :**", "**Comment appliquer :**"),
    ("**Pourquoi\u00a0:**", "**Comment l'appliquer :**"),
    ("**Warum:**", "**Wie anwenden:**"),
    ("**Warum:**", "**Anwendung:**"),
], ids=["zh-hans", "zh-hant", "ja", "ja-naze", "ko", "ko-wae", "es", "es-motivo", "pt",
        "pt-por-que", "fr", "fr-nbsp", "de", "de-anwendung"])
def test_why_and_how_labels_count_in_other_languages(tmp_path, why, how):
    assert rationale_findings(tmp_path, f"{why} x\n{how} y\n") == set()


# Headings and bold labels as real feedback and project memories write them (public stores).
@pytest.mark.parametrize(("why", "how"), [
    ("## Why this exists\nIt broke twice.", "## How to apply next time\nBefore each release."),
    ("## Why it matters\nIt broke.", "## How to apply it\nAlways."),
    ("**Why.** It broke twice.", "**How to apply (in reviews):** check the diff."),
    ("- **Why it failed:** governance is organizational.", "- **How to apply:** ask first."),
    ("## Why: Key Decisions\nWe chose it.", "### How to Apply\nEvery time."),
    ("## Waarom dit bestaat\nHet ging mis.", "## Hoe toe te passen\nAltijd."),
    ("## 为什么这样做\n坏过。", "## 如何应用到新代码\n总是。"),
    ("## なぜ必要か\n壊れた。", "## 適用方法と例\n毎回。"),
    ("**Pourquoi c'est important.** Ça a cassé.", "**Comment appliquer (revue) :** toujours."),
    ("**Why:** gap-up days are already a signal.", "**Apply:** call the bias at once."),
], ids=["headings-that-go-on", "heading-it", "bold-sentence-and-qualifier", "list-bold-label",
        "heading-with-colon", "dutch", "chinese", "japanese", "french", "apply-alone"])
def test_a_heading_or_bold_label_starting_with_the_label_counts(tmp_path, why, how):
    assert rationale_findings(tmp_path, f"{why}\n\n{how}\n") == set()


@pytest.mark.parametrize("label", ["**Why / How to apply:**", "## Why & how to apply",
                                   "**Por qué y cómo aplicar:**", "**Warum / Anwendung:**"])
def test_one_label_naming_both_counts_for_both(tmp_path, label):
    assert rationale_findings(tmp_path, f"{label} it broke, so check first.\n") == set()


@pytest.mark.parametrize("body", [
    "It broke, which is why we test.\nApply it always.\n",  # no label, just the word
    "## What and why\nIt broke.\n## When we apply it\nAlways.\n",  # the word mid-heading
    "**Porque:** rompió.\n**Rationale:** it broke.\n",  # "because" and other words are no label
    "Anywhy: it broke.\nSomehow to apply: always.\n",  # a label glued to a longer word
    "## Whyte's notes\n**Applying the rule** is easy.\n",  # glued to a word after it
    "- Why\n- How to apply\n",  # list items without a colon
    "The note says **why** it broke and *how to apply* it.\n",  # emphasis mid-sentence
], ids=["word-in-sentence", "word-mid-heading", "other-words", "glued", "glued-after",
        "bare-list-items", "emphasis-mid-sentence"])
def test_text_that_is_not_a_label_leaves_both_findings(tmp_path, body):
    assert rationale_findings(tmp_path, body) == {"missing_why", "missing_how_to_apply"}


def test_a_why_label_alone_leaves_only_missing_how_to_apply(tmp_path):
    assert rationale_findings(tmp_path, "**Why：** it broke.\n") == {"missing_how_to_apply"}


# Fragments that make canonical labels inside words, after colons, in emphasis and alone.
_FRAGMENTS = ["**Why:**", "**How to apply:**", "anyWhy:", "Why", "why:", "x", "how to apply",
              ":", "**", "\n", " ", "## ", "_", "：", "porqué:"]
_TEXT = st.lists(st.sampled_from(_FRAGMENTS), max_size=8).map("".join)


@settings(max_examples=400, deadline=None)
@given(_TEXT, st.sampled_from(["", "**Why:**", "**How to apply:**"]), _TEXT)
def test_the_canonical_labels_shortcut_finds_what_the_full_scan_finds(before, label, after):
    body = before + label + after
    assert rationale_labels(body) == scanned_labels(body)
