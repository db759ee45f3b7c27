"""Memory across machines: `memtui sync` through a git remote (see `engine`)."""
