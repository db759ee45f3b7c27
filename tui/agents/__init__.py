"""Runs: memory extraction and dream consolidation, their engines and sandboxed tools."""
