"""What an audit costs the user, most first: the memories Claude cannot see, the files it
cannot read, the credentials it loads; then the rest, kind by kind.

Plain data on findings (no store needed), for `memtui audit`'s text and JSON and for the
ranking of `audit --all`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from tui.memory.finding import Finding
from tui.words import plural

# The groups a user acts on first, in that order, each with the kinds it holds. A file that
# cannot be read comes first: what else is said about it (an index of garbage links no
# memory) may be its consequence.
UNSEEN = ("stranded_store", "index_over_limit", "beyond_cut", "unindexed")
BROKEN = ("unreadable", "bad_frontmatter")
SECRETS = ("secret",)
FIRST = (("Files Claude Code cannot read", ("unreadable",)),
         ("A store nothing can be saved in", ("read_only",)), ("Claude cannot see", UNSEEN),
         ("Frontmatter Claude Code cannot parse", ("bad_frontmatter",)), ("Secrets", SECRETS))
_RANK = {kind: rank for rank, kind in enumerate(kind for _, kinds in FIRST for kind in kinds)}
_SEVERITY = {"error": 0, "warning": 1, "info": 2}
# The memories whose loss costs most: rules of how to work, then who the user is.
TYPE_RANK = {"feedback": 0, "user": 1, "project": 2, "reference": 3}


OTHER_ERRORS = "Other errors"  # an error of a kind the groups above do not name


def section(finding: Finding) -> str | None:
    """The title of the group the user acts on first that the finding belongs to; None for
    a warning or a note."""
    if finding.severity != "error" and finding.kind not in SECRETS:
        return None
    return next((title for title, kinds in FIRST if finding.kind in kinds), OTHER_ERRORS)


def kind_order(findings: Iterable[Finding]) -> list[tuple[str, str]]:
    """The (severity, kind) groups of `findings`, costliest first: the first groups in
    their order, then by severity, then by kind."""
    groups = {(finding.severity, finding.kind) for finding in findings}
    return sorted(groups, key=lambda group: (
        _RANK.get(group[1], len(_RANK)) if group[0] == "error" or group[1] == "secret"
        else len(_RANK), _SEVERITY.get(group[0], 3), group[1]))


def costliest(types: Mapping[str, str | None]) -> Callable[[Finding], tuple]:
    """The order of the findings of one kind: the rules of how to work first, then who the
    user is (`types`: each memory file's type), then by file and line."""
    last = len(TYPE_RANK)

    def key(finding: Finding) -> tuple:
        return (TYPE_RANK.get(types.get(finding.file or ""), last), finding.file or "",
                finding.line or 0)
    return key


def ordered(findings: Iterable[Finding], types: Mapping[str, str | None]) -> list[Finding]:
    """Every finding in the order `memtui audit` tells them: its groups in `kind_order`,
    each group `costliest` first.

    Put in buckets by group, each then sorted: half a million findings in one sort is one
    C call that holds the GIL (a UI thread) for a third of a second, where a bucket (an
    index's dangling links, in line order already) sorts in one pass."""
    buckets: dict[tuple[str, str], list[Finding]] = {}
    for finding in findings:
        buckets.setdefault((finding.severity, finding.kind), []).append(finding)
    key = costliest(types)
    return [finding for group in kind_order(found[0] for found in buckets.values())
            for finding in sorted(buckets[group], key=key)]


@dataclass(frozen=True)
class Cost:
    """One store's audit, counted the way a user weighs it."""

    unseen: int  # memories Claude cannot see (none at start, none through a link)
    stranded: bool  # a store no session loads, its memories not rescued yet
    cut: bool  # an index past its limits: its end is invisible
    broken: int  # files Claude Code cannot read or parse
    secrets: int
    errors: int
    warnings: int
    infos: int

    @property
    def rank(self) -> tuple:
        """Sorts the store that needs a look first first."""
        return (-(self.unseen + self.stranded), -self.cut, -self.broken, -self.secrets,
                -self.errors, -self.warnings)

    @property
    def needs_look(self) -> bool:
        return bool(self.errors or self.secrets)

    def headline(self, memories: int | None = None) -> str:
        """One sentence: what costs most, or that nothing does; `memories`: how many the
        store holds."""
        parts = []
        if self.stranded:
            parts.append("no session loads this store")
        if self.unseen and memories == self.unseen:
            parts.append("Claude cannot see its memory" if memories == 1
                         else f"Claude cannot see any of its {memories:,} memories")
        elif self.unseen:
            of = f" of {memories:,}" if memories else ""
            parts.append(f"Claude cannot see {self.unseen:,}{of} "
                         f"{'memory' if self.unseen == 1 and not of else 'memories'}")
        elif self.cut:
            parts.append("Claude cannot see the end of the index")
        if self.broken:
            parts.append(f"{plural(self.broken, 'file')} Claude Code cannot read")
        if self.secrets:
            parts.append(f"{plural(self.secrets, 'credential')} in memory")
        if not parts and self.errors:
            return plural(self.errors, "error")  # of a kind none of the above names
        if not parts:
            return ("nothing hides a memory from Claude"
                    + (f"; {plural(self.warnings, 'warning')}" if self.warnings else ""))
        return "; ".join(parts)

    def to_json(self) -> dict:
        return {"unseen": self.unseen, "stranded": self.stranded, "cut": self.cut,
                "broken": self.broken, "secrets": self.secrets, "errors": self.errors,
                "warnings": self.warnings, "info": self.infos}


def cost(findings: Sequence[Finding]) -> Cost:
    unseen: set[str] = set()
    broken: set[str | None] = set()
    counts = dict.fromkeys(_SEVERITY, 0)
    stranded = cut = secrets = 0
    for finding in findings:
        counts[finding.severity] = counts.get(finding.severity, 0) + 1
        kind = finding.kind
        if finding.severity == "error" and kind in ("unindexed", "beyond_cut") and finding.file:
            unseen.add(finding.file)
        elif kind == "stranded_store" and finding.severity == "error":
            stranded = 1
        elif kind == "index_over_limit" and finding.severity == "error":
            cut = 1
        elif kind in BROKEN and finding.severity == "error":
            broken.add(finding.file)
        elif kind == "secret":
            secrets += 1
    return Cost(len(unseen), bool(stranded), bool(cut), len(broken), secrets, counts["error"],
                counts["warning"], counts["info"])
