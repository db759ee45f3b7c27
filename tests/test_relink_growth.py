"""Relinking many orphans grows with their number, not its square (issue 44: 20,000 took
90 s, 50,000 never ended). Counted in operations, not seconds: the index lines made and the
scans of the index for what Claude sees."""

from __future__ import annotations

import pytest
from conftest import index_line as entry
from conftest import memory_text, write_index, write_memory

from tui.memory import curate
from tui.memory.audit import orphan_files
from tui.memory.index import IndexLines
from tui.memory.store import load_store


def relink_work(claude_home, monkeypatch, orphans: int) -> int:
    """The operations `plan_relink` spends on a store of `orphans` memories indexed past
    the cut (200 entries above them) and as many not indexed at all."""
    store = claude_home.store(folder=f"-home-me-proj{orphans}")
    loaded = [f"loaded{number:04}.md" for number in range(200)]
    past = [f"past{number:04}.md" for number in range(orphans)]
    unindexed = [f"new{number:04}.md" for number in range(orphans)]
    for file in [*loaded, *past, *unindexed]:
        write_memory(store, file, memory_text(name=file[:-3], description=f"about {file}"))
    write_index(store, [entry(file) for file in [*loaded, *past]])
    memories = load_store(store)
    files = orphan_files(memories)
    assert len(files) == 2 * orphans

    counted = {"lines": 0, "scans": 0}
    make_line, visible_files = IndexLines._line, curate.visible_files

    def counting_line(self, *args):
        counted["lines"] += 1
        return make_line(self, *args)

    def counting_scan(index):
        counted["scans"] += len(index.links)
        return visible_files(index)

    monkeypatch.setattr(IndexLines, "_line", counting_line)
    monkeypatch.setattr(curate, "visible_files", counting_scan)
    plan = curate.plan_relink(memories, files)
    monkeypatch.undo()
    assert plan.changes and len(plan.pushed_out) >= orphans
    return counted["lines"] + counted["scans"]


@pytest.mark.parametrize("orphans", [100])
def test_relinking_twice_the_orphans_costs_about_twice_the_work(claude_home, monkeypatch,
                                                                orphans):
    once = relink_work(claude_home, monkeypatch, orphans)
    twice = relink_work(claude_home, monkeypatch, 2 * orphans)
    assert twice <= 2.2 * once, f"{orphans} orphans: {once} operations; twice as many: {twice}"
