"""Whole-tree commands print the same bytes however fast they got there: from a cold or a
warm evidence cache, with audits started before discovery or after it, in workers or here.

The tree is `benchmarks/generate.py`'s heavy user's shape, small: deleted worktrees mapped
by transcript evidence, resting stores, near-duplicates, broken files.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from tui.cli import main
from tui.memory.bulk import audit_many

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import generate  # noqa: E402


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    return generate.ensure(tmp_path_factory.mktemp("tree") / "heavy", projects=40,
                           memories=900, quiet=True, transcript_mb=6)


def printed(capsys, *argv: str) -> str:
    main(list(argv))
    return capsys.readouterr().out


def test_projects_json_is_the_same_from_a_cold_and_a_warm_evidence_cache(tree, capsys):
    from tui import xdg

    cache = xdg.cache_dir()
    shutil.rmtree(cache, ignore_errors=True)
    cold = printed(capsys, "--config-dir", str(tree), "projects", "--json")
    assert (cache / "transcript-evidence.json").exists()
    warm = printed(capsys, "--config-dir", str(tree), "projects", "--json")
    assert warm == cold
    mapped = [f["mapped_by"] for p in json.loads(cold) for f in p["transcript_folders"]]
    assert "evidence" in mapped  # the tree has deleted worktrees found through transcripts


def test_audit_all_json_is_what_a_plain_audit_of_each_store_gives(tree, capsys):
    from tui.claude.discovery import discover

    printed_json = printed(capsys, "--config-dir", str(tree), "audit", "--all", "--json",
                           "--no-cache")
    inventory = discover(tree, {"CLAUDE_CONFIG_DIR": str(tree)})
    plain = audit_many([(p.store, p.stranded_reason or None)
                        for p in inventory.projects if p.store_exists], workers=1)
    expected = json.dumps([
        {"store": str(a.store), "memories": a.memories, "errors": a.errors,
         "cached": a.cached, "findings": [f.to_json() for f in a.findings]}
        for a in plain
    ], indent=2, ensure_ascii=False) + "\n"
    assert printed_json == expected
    assert sum(a.memories for a in plain) >= 900
