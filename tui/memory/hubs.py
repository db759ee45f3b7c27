"""Hubs: memory files holding the index lines MEMORY.md has no room for.

When the entries Claude sees outgrow the room a dream leaves, the lowest-ranked of them
move, whole, into one hub per type (`index_feedback.md`, …): a reference memory that
MEMORY.md links in a single line. Claude opens the hub from there and follows its links,
so every memory it reached before stays reachable (see `tui.memory.reach`). A hub is
known by its name; its frontmatter and its own words are kept when it is updated.
"""

from __future__ import annotations

from collections.abc import Sequence

from tui.claude.paths import utf16_len
from tui.memory.frontmatter import BLOCK, MEMORY_TYPES
from tui.memory.index import LINE_WARN

OTHER = "other"  # the hub for memories of no type, or of a type outside the four
_PREFIX = "index_"


def hub_for(memory_type: str | None) -> str:
    return f"{_PREFIX}{memory_type if memory_type in MEMORY_TYPES else OTHER}.md"


HUB_FILES = tuple(hub_for(kind) for kind in (*MEMORY_TYPES, OTHER))


def _kind(hub: str) -> str:
    return hub.removeprefix(_PREFIX).removesuffix(".md")


def hub_title(hub: str) -> str:
    kind = _kind(hub)
    return "Memories of other types, continued" if kind == OTHER \
        else f"{kind.capitalize()} memories, continued"


def split_hub(text: str) -> tuple[str, str]:
    """(its frontmatter block, ending in a newline, or ""; the body after it)."""
    match = BLOCK.match(text)
    if not match:
        return "", text
    head = text[:match.end()].rstrip()  # the block's pattern takes the blank lines after it
    return head + "\n", text[len(head):]


def hub_text(hub: str, before: str | None, own_lines: Sequence[str],
             entry_lines: Sequence[str]) -> str:
    """The hub's new text: its frontmatter and own lines as they were (ours for a new
    hub), then one index line per memory it lists."""
    head = split_hub(before)[0] if before is not None else ""
    if not head:
        head = hub_head(hub)
    if before is None:
        own_lines = [hub_intro(hub)]
    body = [*own_lines, "", *entry_lines] if own_lines else list(entry_lines)
    return head + "\n" + "\n".join(body) + "\n"


def _what(hub: str) -> str:
    kind = _kind(hub)
    return "memories of no type or a type outside the four" if kind == OTHER \
        else f"{kind} memories"


def hub_head(hub: str) -> str:
    """The frontmatter memtui gives a new hub."""
    return (f"---\nname: {hub.removesuffix('.md')}\ndescription: Index lines of "
            f"{_what(hub)} that MEMORY.md has no room for\ntype: reference\n---\n")


def hub_intro(hub: str) -> str:
    """The line memtui opens a new hub with."""
    what = _what(hub)
    return (f"{what[0].upper()}{what[1:]} that MEMORY.md has no room for, one line each: it "
            "links this file instead, to keep room for new entries.")


def hub_line(hub: str, titles: Sequence[str]) -> str:
    """MEMORY.md's line for a hub: its link, how many it lists and the first of them, in
    one line within LINE_WARN characters."""
    line = f"- [{hub_title(hub)}]({hub}) — {len(titles)} more: "
    shown: list[str] = []
    for number, title in enumerate(titles):
        first, _, rest = title.partition(" ")
        # "A11y reviews" reads "a11y reviews" mid-sentence; "API" and "GraphQL" stay.
        topic = first[:1].lower() + first[1:] + _ + rest if first[1:].islower() else title
        more = ", …" if number + 1 < len(titles) else ""
        if utf16_len(line + ", ".join([*shown, topic]) + more) > LINE_WARN:
            return line + ", ".join(shown) + (", …" if shown else "…")
        shown.append(topic)
    return line + ", ".join(shown)
