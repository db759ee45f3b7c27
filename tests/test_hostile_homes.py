"""The CLI on malformed config homes: exit codes 0, 1 or 2, no traceback, no hang.

The commands: `projects`, `projects --json`, `audit --all`, `audit --all --json`,
`index TARGET --loaded`, `audit TARGET`, `overwrites TARGET` (transcript records reach it) and
`doctor TARGET --json` (settings, locks and transcripts reach it).

Each home is a healthy base with faults laid on it (`hostile_homes.py`): every fault the
issue names alone, and a few random combinations. The commands of one home run in one
interpreter with a timeout; run by root, it gives up root's permission bypass so that
unreadable files are unreadable to it too. `scripts/fuzz_homes.py` runs the full figures:
200 homes, every read command, each in its own process.
"""

from __future__ import annotations

import json
import os
import random
import subprocess

import hostile_homes
import pytest

COMMANDS = [["projects"], ["projects", "--json"], ["audit", "--all"], ["audit", "--all", "--json"],
            ["index", "TARGET", "--loaded"], ["audit", "TARGET"], ["overwrites", "TARGET"],
            ["doctor", "TARGET", "--json"], ["fix", "TARGET", "relink", "--dry-run"],
            ["fix", "TARGET", "dangling", "--dry-run"], ["fix", "TARGET", "redact", "--dry-run"],
            ["search", "the"], ["search", "memory", "--project", "TARGET", "--json"]]
NAMED = [  # the faults issue 11 names, and their near relatives
    "fifo MEMORY.md", "fifo memory file", "fifo .consolidate-lock", "socket memory file",
    "MEMORY.md -> /dev/zero", "symlink loops in store", "comment bomb index",
    "yaml error and a 200 KB value", "yaml alias bomb", "deeply nested yaml",
    "consolidate lock of 5,000 digits", "transcript cwd with a lone surrogate",
    "project folder not UTF-8", "transcript cwd long and not UTF-8", "binary MEMORY.md",
    "toolUseResult of odd types", "Edit result with edits [5]", "config.toml not UTF-8",
    "settings.json deeply nested", "frontmatter numbers past limits", ".git file pointing at a fifo",
    "caches of garbage", "cache files that are folders and fifos", "unreadable transcript folder", "memory dir not searchable",
]
DENY = hostile_homes.can_deny_permissions()
RANDOM = random.Random(11)
LIGHT = sorted(set(hostile_homes.FAULTS) - hostile_homes.HEAVY_FAULTS
               - (set() if DENY else hostile_homes.PERMISSION_FAULTS))
HOMES = [[name] for name in NAMED if DENY or name not in hostile_homes.PERMISSION_FAULTS]
HOMES += [RANDOM.sample(LIGHT, RANDOM.randint(2, 4)) for _ in range(8)]


@pytest.mark.parametrize("faults", HOMES, ids=[" + ".join(faults) for faults in HOMES])
def test_the_cli_survives_a_malformed_home(tmp_path, faults):
    home = hostile_homes.build(tmp_path / "h", 7, faults)
    try:
        result = subprocess.run(
            hostile_homes.in_process_command(home, COMMANDS), env=home.env, cwd=home.root,
            capture_output=True, timeout=60, stdin=subprocess.DEVNULL,
            preexec_fn=hostile_homes.drop_root_bypass if os.geteuid() == 0 else None,
        )
    finally:
        hostile_homes.make_writable(tmp_path)
    assert result.returncode == 0, result.stderr.decode(errors="replace")[-2000:]
    outcomes = json.loads(result.stdout.decode().splitlines()[-1])
    for command, (code, traceback) in zip(COMMANDS, outcomes, strict=True):
        assert code in (0, 1, 2) and not traceback, (command, code, result.stderr[-2000:])
