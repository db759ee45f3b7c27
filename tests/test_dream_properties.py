"""Properties of the offline dream, on stores built from the shapes of real ones.

For any store: every non-empty line before the dream stands in some file after it, or was
rewritten only by a rewrite of an allowed kind; a second dream changes nothing; and a
refusal of any one file, injected as an outside write between the run and its apply,
leaves the store exactly as it was.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from dream_checks import texts, unaccounted
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui.agents.dream import run_dream
from tui.agents.result import conclude
from tui.memory.audit import memory_statuses
from tui.memory.store import load_store

STORES = settings(max_examples=15, deadline=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                         HealthCheck.function_scoped_fixture])
TYPES = [None, "user", "feedback", "project", "reference", "pattern"]
# Lines in the shapes real memories take: prose with and without date words, in several
# languages, names that hold date words, quotes, templates, code, headings with dates.
SENTENCES = [
    "Deploys go out on Fridays after the nightly build passes.",
    "We froze the schema yesterday after the migration failed.",
    "Run `/market-tomorrow` for the next day's report.",
    "The timeline lives in src/today-timeline.tsx since the refactor.",
    "Reply \"in\" and I start tonight — {{target_date}}",
    "> I barely slept last night",
    "De configuratie staat hier in de map config/.",
    "O relatório CAIXA HOJE mostra o Δ vs ontem.",
    "어제 배포한 버전에서 결제 오류가 났다.",
    "昨日のリリースで検索が遅くなった。",
    "上周我们把缓存换成了 Redis。",
    "Confirmed working today.",
    "Twice in one day (2026-06-26) the job failed.",
    "Never write tomorrow or tonight in a reply.",
    "| field | label |\n|---|---|\n| hoje | Today |",
    "```\nLIST FROM #tag\n```",
    "**Why:** it broke twice.",
    "**How to apply:** check the lock first.",
]
HEADINGS = ["## Verification (post-restart, 2026-05-19)", "### 0. finance-agent — fase 5",
            "## Git 브랜치 정책 (엄격 적용)", "# Memory index", "## Feedback"]


@st.composite
def stores(draw):
    count = draw(st.integers(1, 30))
    memories = {}
    for number in range(count):
        kind = draw(st.sampled_from(TYPES))
        lines = draw(st.lists(st.sampled_from(SENTENCES), min_size=1, max_size=4))
        if draw(st.booleans()):
            lines.insert(0, draw(st.sampled_from(HEADINGS)))
        name = draw(st.sampled_from(["note", "project_session_20260507", "today_plan", "run"]))
        file = f"{name}_{number}.md"
        head = f"name: {name}-{number}\ndescription: about {name} {number}\n" + (
            f"type: {kind}\n" if kind else "")
        memories[file] = (f"---\n{head}---\n\n" + "\n".join(lines) + "\n",
                          1_767_225_600.0 + draw(st.integers(0, 10**6)))
    index: list[str] = []
    for file in memories:
        if draw(st.integers(0, 4)) == 0:
            continue  # unindexed
        if draw(st.integers(0, 6)) == 0:
            index.append(draw(st.sampled_from(HEADINGS)))
        if draw(st.integers(0, 8)) == 0:
            index.append(draw(st.sampled_from(SENTENCES[:6])))
        hook = draw(st.sampled_from(["a memory", "what broke yesterday and how we fixed it "
                                     "with the retry key and the new queue " * 3]))
        index.append(f"- [{file[:-3]}]({file}) — {hook}")
    index += [f"- [gone](gone_{n}.md) — the only copy of fact {n}"
              for n in range(draw(st.integers(0, 2)))]
    index += [""] * draw(st.sampled_from([0, 0, 150]))  # pushes lines past the cut
    return memories, index


def build(memories, index) -> Path:
    store = Path(tempfile.mkdtemp(dir=os.environ["TMPDIR"])) / "memory"
    store.mkdir()
    for file, (text, mtime) in memories.items():
        (store / file).write_text(text, encoding="utf-8")
        os.utime(store / file, (mtime, mtime))
    (store / "MEMORY.md").write_text("\n".join(index) + "\n", encoding="utf-8")
    return store


@STORES
@given(stores())
def test_every_line_stands_after_the_dream_or_was_rewritten_as_allowed(store_shape):
    store = build(*store_shape)
    before = texts(store)
    reached = {f for f, s in memory_statuses(load_store(store)).items()
               if s.visible or s.linked_from}

    result = run_dream(store, engine="offline")

    changeset = result.changeset
    assert changeset.held == {}, changeset.held
    outcome = conclude(result, apply=True)
    assert not outcome or not outcome.refused, outcome.refused
    assert unaccounted(before, texts(store), changeset) == []
    statuses = memory_statuses(load_store(store))
    assert reached - {d.file for d in changeset.files if d.kind == "archived"} <= \
        {f for f, s in statuses.items() if s.visible or s.linked_from}


@STORES
@given(stores())
def test_a_second_dream_changes_nothing(store_shape):
    store = build(*store_shape)
    conclude(run_dream(store, engine="offline"), apply=True)
    first = texts(store)

    again = run_dream(store, engine="offline")

    assert again.changeset.empty, {d.file: d.diff for d in again.changeset.files}
    conclude(again, apply=True)
    assert texts(store) == first


@STORES
@given(stores(), st.integers(0, 10**6))
def test_a_refusal_of_any_file_leaves_the_store_as_it_was(store_shape, pick):
    store = build(*store_shape)
    result = run_dream(store, engine="offline")
    files = [d.file for d in result.changeset.files]
    if not files:
        conclude(result, apply=False)
        return
    refused = files[pick % len(files)]
    path = store / refused
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("written by another session meanwhile\n", encoding="utf-8")
    before = texts(store)

    outcome = conclude(result, apply=True)

    assert outcome.applied == () and [f for f, _ in outcome.refused] == [refused]
    assert texts(store) == before
    assert not (store / ".consolidate-lock").exists()
