"""The marker lines around a conflict memtui kept both texts of (git's, so editors know them).

Apart from `merge` on purpose: the audit looks for sync's opening marker in every memory it
reads, and must not load difflib for that.
"""

MARK_OURS, MARK_SPLIT, MARK_THEIRS = "<<<<<<<", "=======", ">>>>>>>"
