"""Sentences for the user about memtui's own files, left by code that cannot print.

A damaged journal moved aside and started again, a lock file that was a folder, undo-log
lines that could not be read: the core repairs these itself and leaves one sentence here;
the command line prints them on stderr when the command ends.
"""

from __future__ import annotations

_pending: list[str] = []


def tell(sentence: str) -> None:
    """Leave a sentence for the user (once, however often it is told)."""
    if sentence not in _pending:
        _pending.append(sentence)


def take() -> list[str]:
    """The sentences told since the last call, oldest first."""
    taken = _pending[:]
    del _pending[:len(taken)]
    return taken
