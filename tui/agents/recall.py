"""Recall with a model: the memories (at most five) it picks for a question from what Claude
Code's selector reads.

Like the selector, the model reads one manifest line per file of the recall scan (type, file
name, date, description) and never a body; it answers with file names, of which only the
ones that exist in the store are kept. The prompt is memtui's own, so its pick is the
closest stand-in for the selector's (which picks by meaning, as it does), not its answer.
"""

from __future__ import annotations

import json
import re

from tui.agents.client import ClientConfig, EngineError, ModelClient
from tui.memory.recall import SELECTOR_LIMIT, manifest_line
from tui.memory.store import Store

PICK_TOOL = "pick_memories"
SYSTEM = f"""\
You decide which saved memories should be put in front of an assistant before it answers a
user's message. Each memory is listed by its type, its file name, when it was last changed
and a one-line description; the memories themselves are not shown to you.

Choose at most {SELECTOR_LIMIT} files that will clearly help with the message. When you are
not sure a file helps, leave it out: choosing nothing is a good answer. Leave out files that
only explain how to use a tool, unless they warn about a mistake to avoid with it.

Answer by calling {PICK_TOOL} once with the chosen file names exactly as listed, or, if you
cannot call it, with a JSON object like {{"files": ["name.md"]}} and nothing else."""

TOOLS = [{
    "name": PICK_TOOL,
    "description": "Report the memory files to recall for the message, best first.",
    "input_schema": {"type": "object", "properties": {
        "files": {"type": "array", "items": {"type": "string"}}}, "required": ["files"]},
}]


def manifest(store: Store) -> str:
    """The lines the model reads: types and descriptions of the recall scan, no bodies."""
    return "\n".join(manifest_line(m) for m in store.memories
                     if m.file in store.recall_scan and not m.error)


def request_text(store: Store, query: str) -> str:
    listing = manifest(store) or "(no memories)"
    return f"Memories:\n{listing}\n\nThe user's message:\n{query.strip()}"


def ask_model(store: Store, query: str, config: ClientConfig) -> list[str]:
    """The files the model would recall for `query`, best first; EngineError on failure."""
    client = ModelClient(config)
    conversation = [{"role": "user", "content": [{"type": "text",
                                                  "text": request_text(store, query)}]}]
    reply = client.create(SYSTEM, conversation, TOOLS)
    known = {m.file for m in store.memories if m.file in store.recall_scan}
    for use in reply.tool_uses:
        if use.get("name") == PICK_TOOL:
            return kept_picks(use.get("input", {}).get("files"), known)
    return kept_picks(_files_in_text(reply.text), known)


def _files_in_text(text: str) -> list:
    found = re.search(r"\{.*\}", text, re.DOTALL)
    if found is None:
        raise EngineError("The model answered without naming any memory file.")
    try:
        files = json.loads(found.group(0)).get("files")
    except (ValueError, AttributeError):
        raise EngineError("The model's answer was not the list of files it was asked for.") \
            from None
    return files


def kept_picks(files, known: set[str]) -> list[str]:
    """The picks that name files of the store, in order, once each, at most five."""
    if not isinstance(files, list):
        raise EngineError("The model's answer was not the list of files it was asked for.")
    picks: list[str] = []
    for file in files:
        name = str(file).strip()
        if name in known and name not in picks:
            picks.append(name)
    return picks[:SELECTOR_LIMIT]
