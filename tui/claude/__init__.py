"""Claude Code's on-disk world: config home, folder names, git roots, settings, transcripts, the lock."""
