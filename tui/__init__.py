"""memtui: see, repair and curate Claude Code's auto-memory."""

__version__ = "0.1.0"
