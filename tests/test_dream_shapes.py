"""The dream's hard shapes (tests/dream_shapes.py) build, and memtui reads each of them whole."""

from __future__ import annotations

import pytest
from dream_shapes import NOT_MEMORIES, SHAPES, build, build_all

from tui.memory.store import load_store


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_dream_shape_builds_and_loads(shape, tmp_path):
    store = tmp_path / "memory"
    files = build(store, shape)
    loaded = {memory.file for memory in load_store(store).memories}
    assert loaded <= set(files)
    assert {f for f in files if f.rsplit("/", 1)[-1] not in NOT_MEMORIES} <= loaded
    assert (store / "MEMORY.md").is_file()


def test_build_all_gives_every_shape_a_store_of_its_own(tmp_path):
    stores = build_all(tmp_path)
    assert sorted(stores) == sorted(SHAPES)
    assert all(load_store(store).memories for store in stores.values())
