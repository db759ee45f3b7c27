"""What the dream tests check of a store before and after a dream, from outside the guards:
every non-empty line before stands after, or was rewritten by a rewrite of an allowed kind."""

from __future__ import annotations

from pathlib import Path

from tui.agents.guards import norm
from tui.agents.indexfit import DETAIL, unlinked
from tui.memory.dates import relative_dates
from tui.memory.hubs import HUB_FILES, hub_head, hub_intro
from tui.memory.links import replace_links


def unaccounted(before: dict[str, str], after: dict[str, str], changeset) -> list[str]:
    """The lines of `before` neither standing in `after` nor rewritten as allowed."""
    standing = {norm(line) for text in after.values() for line in text.split("\n")}
    archived = {d.file for d in changeset.files if d.kind == "archived"}
    everything = "\n".join(after.values())
    found = []
    for file, text in before.items():
        for line in text.split("\n"):
            key = norm(line)
            if not key or key in standing or not any(c.isalnum() for c in key):
                continue
            if file in archived and key.startswith(("name:", "type:")):
                continue  # a merged-away memory's identity goes with it
            if file in archived and key.startswith("description:") and \
                    key.partition(":")[2].strip() in everything:
                continue  # its description is kept in the memory it went into
            replacements = changeset.rewrites.get(key)
            if replacements is None or not replacements <= standing or not (
                    all(allowed(line, new) for new in replacements) or own_hub_line(line)):
                found.append(f"{file}: {line.strip()} -> {sorted(replacements or [])}")
    return found


def texts(store: Path) -> dict[str, str]:
    """Every .md file of a store, by its store-relative name."""
    return {p.relative_to(store).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(store.rglob("*.md"))}


def allowed(old: str, new: str) -> bool:
    """A rewrite of a kind the dream may make: a long index line shortened, its words given
    to its memory, the links to missing files taken out, memtui's own hub lines, or a span
    that is a relative date."""
    old, new = old.strip(), new.strip()
    if new.endswith("…") and targets_aside(old).startswith(targets_aside(new[:-1]).rstrip()):
        return True
    if new.startswith(DETAIL) and new[len(DETAIL):] in targets_aside(old):
        return True
    if new == unlinked(old).strip():
        return True
    if targets_aside(old) == targets_aside(new):  # relinked to the memory it was merged into
        return True
    start = 0
    while start < min(len(old), len(new)) and old[start] == new[start]:
        start += 1
    return any(found.column <= start < found.column + len(found.phrase) + 1
               for found in relative_dates(old))


def targets_aside(line: str) -> str:
    return replace_links(line, lambda link: link.title)


def own_hub_line(line: str) -> bool:
    return (any(f"]({hub})" in line for hub in HUB_FILES)
            or any(norm(line) == norm(own) for hub in HUB_FILES
                   for own in [*hub_head(hub).split("\n"), hub_intro(hub)]))


