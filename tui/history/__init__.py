"""History of memory stores: a git journal, write history from transcripts, lost updates."""
