"""How many cores this process may use: the CPUs its affinity allows, which in a container
or under `taskset` is fewer than the machine has (os.cpu_count)."""

from __future__ import annotations

import os


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # no affinity call (macOS)
        return os.cpu_count() or 1
