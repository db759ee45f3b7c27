"""Two machines' versions of one memory, merged: frontmatter as data, body as lines.

Unit tests name the rules (issue "Sync on a user's first real day"); the property tests
check that a merge never turns a file Claude Code can read into one it cannot, never puts
a marker in the frontmatter, and never loses a line or a value either side wrote.
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tui.memory.conflicts import find_conflicts, resolve
from tui.memory.frontmatter import parse
from tui.sync.merge import Side, merge_index, merge_memory
from tui.sync.plan import plan_store

HERE, THERE = Side("laptop", 1_000.0), Side("desktop", 2_000.0)
MARKER = re.compile(r"^(<<<<<<<|=======|>>>>>>>)", re.M)


def nested(session: str, modified: str, description: str = "What to check first",
           body: str = "Ask before changing the schema.\n", kind: str = "feedback") -> str:
    """A memory as Claude Code v2.1.146+ writes it (what `memtui demo` builds too)."""
    return (f"---\nname: schema-changes\ndescription: {description}\nmetadata:\n"
            f"  type: {kind}\n  node_type: memory\n  originSessionId: {session}\n"
            f"  modified: {modified}\n---\n\n{body}")


def merge(base: str | None, ours: str, theirs: str, here: Side = HERE,
          there: Side = THERE) -> tuple[str, bool]:
    merged, conflicted = merge_memory(None if base is None else base.encode(), ours.encode(),
                                      theirs.encode(), here, there)
    return merged.decode(), conflicted


def readable(text: str) -> bool:
    fm = parse(text)
    return fm.present and fm.error is None


def head_of(text: str) -> str:
    return text[:len(text) - len(parse(text).body)]


# --- first contact: the same memory on two machines that never synced -----------------------

def test_first_contact_identical_bodies_merge_silently_taking_the_newer_bookkeeping():
    ours = nested("11111111-aaaa", "2026-05-01T10:00:00.129Z")
    theirs = nested("22222222-bbbb", "2026-05-01T10:00:00.872Z")
    merged, conflicted = merge(None, ours, theirs)
    assert not conflicted and not MARKER.search(merged)
    assert merged == theirs  # the later `modified` wins both bookkeeping keys


def test_first_contact_identical_bodies_are_silent_whatever_the_frontmatter_says():
    ours = nested("a", "2026-05-02T00:00:00Z", description="Old words", kind="project")
    theirs = nested("b", "2026-05-01T00:00:00Z", description="New words")
    merged, conflicted = merge(None, ours, theirs)
    assert not conflicted and merged == ours  # ours is newer here: its keys, silently


def test_first_contact_different_bodies_put_only_the_differing_hunks_between_markers():
    ours = nested("a", "2026-05-01T00:00:00Z",
                  body="Shared first.\nOurs only changed this.\nShared last.\nOur extra.\n")
    theirs = nested("b", "2026-05-02T00:00:00Z",
                    body="Shared first.\nTheirs changed this.\nShared last.\n")
    merged, conflicted = merge(None, ours, theirs)
    assert conflicted
    body = parse(merged).body
    assert body == ("Shared first.\n<<<<<<< memtui sync: laptop\nOurs only changed this.\n"
                    "=======\nTheirs changed this.\n"
                    ">>>>>>> memtui sync: desktop, 1970-01-01 00:33 UTC\n"
                    "Shared last.\nOur extra.\n")
    assert merged.count("Shared first.") == 1  # lines both have, once
    assert readable(merged) and not MARKER.search(head_of(merged))


def test_first_contact_keeps_lines_only_one_side_has_without_markers():
    ours = nested("a", "2026-05-01T00:00:00Z", body="One.\nTwo.\n")
    theirs = nested("a", "2026-05-01T00:00:00Z", body="One.\nTwo.\nThree, written there.\n")
    merged, conflicted = merge(None, ours, theirs)
    assert not conflicted and parse(merged).body == "One.\nTwo.\nThree, written there.\n"


def test_first_contact_of_a_crlf_copy_and_an_lf_copy_marks_only_the_words_that_differ():
    ours = nested("a", "2026-05-01T00:00:00Z", body="Shared.\nOurs only.\n").replace("\n", "\r\n")
    theirs = nested("a", "2026-05-01T00:00:00Z", body="Shared.\nTheirs only.\n")
    merged, conflicted = merge(None, ours, theirs)
    assert conflicted and merged.count("Shared.") == 1
    [conflict] = find_conflicts(merged)
    assert (conflict.first, conflict.second) == (("Ours only.\r\n",), ("Theirs only.\n",))
    assert merged.startswith(ours.split("Ours only.")[0])  # our lines keep their bytes


def test_index_lines_are_one_line_whatever_their_line_ending():
    ours = "# Memory\r\n- [N](n.md) — note\r\n- [A](a.md) — here\r\n"
    theirs = "# Memory\n- [N](n.md) — note\n- [B](b.md) — there\n"
    assert merge_index(None, ours, theirs) == ours + "- [B](b.md) — there\r\n"
    assert merge_index(None, theirs, ours) == theirs + "- [A](a.md) — here\n"


def test_a_memory_indexed_in_other_words_on_each_machine_keeps_one_entry_ours():
    ours = "- [Testing](testing.md) — laptop words\n- [B](b.md) — only here\n"
    theirs = ("# Memory index\n- [Testing](testing.md) — desktop words\n- [A](a.md) — only there\n"
              "- See [Testing](testing.md) with [B](b.md)\n")
    assert merge_index(None, ours, theirs) == (
        "# Memory index\n- [Testing](testing.md) — laptop words\n- [B](b.md) — only here\n"
        "- [A](a.md) — only there\n- See [Testing](testing.md) with [B](b.md)\n")


def test_a_second_entry_added_there_for_a_memory_both_index_is_kept():
    base = "# Memory\n- [Testing](testing.md) — how we test\n- [Deploy](deploy.md) — ship\n"
    ours = base + "- [Testing, again](testing.md) — fixtures first\n"
    theirs = base + "- [Deploy, again](deploy.md) — Fridays are off\n"
    merged = merge_index(base, ours, theirs)
    assert merged == ours + "- [Deploy, again](deploy.md) — Fridays are off\n"
    assert merge_index(ours, merged, ours) == merged  # the next sync keeps it too


def test_the_same_entry_reworded_on_both_machines_keeps_both_words():
    base = "# Memory\n- [Testing](testing.md) — old words\n"
    ours = "# Memory\n- [Testing](testing.md) — laptop words\n"
    theirs = "# Memory\n- [Testing](testing.md) — desktop words\n"
    assert merge_index(base, ours, theirs) == ours + "- [Testing](testing.md) — desktop words\n"


def test_a_memory_new_on_both_machines_keeps_one_entry_ours():
    base = "# Memory\n- [Deploy](deploy.md) — ship\n"
    ours = base + "- [Testing](testing.md) — laptop words\n"
    theirs = base + "- [Testing](testing.md) — desktop words\n- [A](a.md) — only there\n"
    assert merge_index(base, ours, theirs) == ours + "- [A](a.md) — only there\n"


def test_an_entry_changed_only_there_replaces_ours():
    base = "# Memory\n- [Testing](testing.md) — old words\n"
    theirs = "# Memory\n- [Testing](testing.md) — new words\n"
    assert merge_index(base, base, theirs) == theirs


# --- three-way: frontmatter as data --------------------------------------------------------

BASE = nested("base", "2026-04-01T00:00:00Z", body="Line one.\nLine two.\n")


def test_a_key_changed_on_one_side_only_is_taken_with_a_body_change_from_the_other():
    ours = BASE.replace("What to check first", "What to check before a migration")
    theirs = BASE.replace("Line two.\n", "Line two.\nLine three.\n")
    merged, conflicted = merge(BASE, ours, theirs)
    assert not conflicted
    assert parse(merged).description == "What to check before a migration"
    assert parse(merged).body == "Line one.\nLine two.\nLine three.\n"


def test_bookkeeping_set_on_both_sides_is_no_conflict_the_newer_modified_wins():
    ours = nested("ours", "2026-05-03T00:00:00Z", body="Line one.\nLine two.\n")
    theirs = nested("theirs", "2026-05-02T00:00:00Z", body="Line one.\nLine two.\n")
    merged, conflicted = merge(BASE, ours, theirs)
    assert not conflicted and merged == ours


def test_without_modified_the_newer_time_decides():
    base = "---\nname: x\ndescription: d\noriginSessionId: base\n---\nBody.\n"
    ours = base.replace("base", "ours")
    theirs = base.replace("base", "theirs")
    assert merge(base, ours, theirs, Side("laptop", 5.0), Side("desktop", 9.0))[0] == theirs
    assert merge(base, ours, theirs, Side("laptop", 9.0), Side("desktop", 5.0))[0] == ours


def test_another_key_set_on_both_keeps_the_newer_and_shows_both_in_the_body():
    ours = nested("o", "2026-05-03T00:00:00Z", description="Ours says this",
                  body="Line one.\nLine two.\n")
    theirs = nested("t", "2026-05-02T00:00:00Z", description="Theirs says that",
                    body="Line one.\nLine two.\n")
    merged, conflicted = merge(BASE, ours, theirs)
    assert conflicted
    assert parse(merged).description == "Ours says this"  # the newer value stays
    [conflict] = find_conflicts(merged)
    assert conflict.in_frontmatter and conflict.machine == "laptop"
    assert conflict.other == "desktop, 1970-01-01 00:33 UTC"
    assert conflict.first == ("description: Ours says this\n",)
    assert conflict.second == ("description: Theirs says that\n",)
    assert readable(merged) and not MARKER.search(head_of(merged))
    # Keeping a side sets it in the frontmatter; the block goes.
    kept = resolve(merged, "second")
    assert parse(kept).description == "Theirs says that" and not MARKER.search(kept)
    assert parse(kept).body == "Line one.\nLine two.\n"
    assert parse(resolve(merged, "first")).description == "Ours says this"


def test_a_nested_key_in_conflict_is_shown_under_its_mapping_and_kept_there():
    ours = nested("o", "2026-05-03T00:00:00Z", kind="user", body="Line one.\nLine two.\n")
    theirs = nested("t", "2026-05-02T00:00:00Z", kind="project", body="Line one.\nLine two.\n")
    merged, _ = merge(BASE, ours, theirs)
    [conflict] = find_conflicts(merged)
    assert conflict.second == ("metadata:\n", "  type: project\n")
    kept = resolve(merged, "second")
    assert parse(kept).type == "project"
    assert parse(kept).metadata["originSessionId"] == "o"  # the rest of the mapping stays


def test_a_key_deleted_on_one_side_and_changed_on_the_other_keeps_the_change():
    base = "---\nname: x\ndescription: d\nextra: one\n---\nBody.\n"
    ours = base.replace("extra: one\n", "")
    theirs = base.replace("extra: one", "extra: two").replace("Body.", "Body, longer.")
    merged, conflicted = merge(base, ours, theirs)
    assert not conflicted and parse(merged).data["extra"] == "two"


def test_an_unreadable_frontmatter_never_replaces_a_readable_one():
    """The reference's real-world shape: a quoted phrase and more text, invalid YAML that
    Claude Code's retry does not rescue."""
    base = "---\nname: lease\ndescription: leases\ntype: project\n---\nBody.\n"
    broken = base.replace("description: leases",
                          'description: "Short-term lease type" is a NEGATIVE signal')
    assert not readable(broken)
    ours = base.replace("Body.", "Body, edited here.")
    merged, conflicted = merge(base, ours, broken)
    assert readable(merged) and conflicted
    assert "Short-term lease type" in merged and "edited here" in merged
    assert not MARKER.search(head_of(merged))


def test_a_frontmatter_merged_past_the_scanners_30_lines_keeps_one_sides_block():
    ours = "---\n" + "".join(f"a{n}: x\n" for n in range(20)) + "---\nBody.\n"
    theirs = "---\n" + "".join(f"b{n}: y\n" for n in range(20)) + "---\nBody.\n"
    merged, _ = merge(None, ours, theirs, Side("laptop", 2.0), Side("desktop", 1.0))
    assert merged == ours  # the union would not close within 30 lines: Claude would see none


def test_text_that_is_not_utf8_merges_as_lines():
    merged, conflicted = merge_memory(b"a\nb\n", b"a\xff\nb\n", b"a\nb\nc\n", HERE, THERE)
    assert not conflicted and merged == b"a\xff\nb\nc\n"


# --- line endings: not text ----------------------------------------------------------------

def test_a_side_that_changed_only_its_line_endings_has_not_changed():
    from tui.history.journal import blob_id

    was = b"---\nname: n\n---\nOne.\nTwo.\n"
    crlf = was.replace(b"\n", b"\r\n")
    edited = b"---\nname: n\n---\nOne.\nTwo, edited there.\n"
    blobs = {blob_id(data): data for data in (was, crlf, edited)}

    def plan(local: bytes, base: bytes, remote: bytes):
        return plan_store({"n.md": local}, {"n.md": blob_id(base)}, {"n.md": blob_id(remote)},
                          lambda ids: {i: blobs[i] for i in ids})

    taken = plan(crlf, was, edited)  # only line endings here, words there: theirs, no merge
    assert taken.conflicts == [] and taken.local_changes[0].after == edited
    assert taken.outgoing == {}
    kept = plan(crlf, was, was)  # nothing but line endings here: nothing to push
    assert (kept.local_changes, kept.outgoing) == ([], {})
    sent = plan(edited, was, crlf)  # words here, only endings there: ours goes, no merge
    assert sent.conflicts == [] and sent.local_changes == []
    assert sent.outgoing == {"n.md": edited}


# --- delete on one machine, edit on the other ------------------------------------------------

def test_delete_vs_edit_gives_the_surviving_memory_its_index_line_back():
    from tui.history.journal import blob_id

    index = "# Memory\n- [A](a.md) — first\n- [Gone](gone.md) — edited there\n- [Z](z.md) — last\n"
    without = "# Memory\n- [A](a.md) — first\n- [Z](z.md) — last\n"
    memory = b"---\nname: gone\ndescription: d\n---\nBody.\n"
    edited = memory + b"Edited there.\n"
    blobs = {blob_id(data): data for data in (index.encode(), memory, edited)}
    base = {"MEMORY.md": blob_id(index.encode()), "gone.md": blob_id(memory)}
    # This machine deleted gone.md and its line; the remote edited gone.md.
    plan = plan_store({"MEMORY.md": without.encode()}, base,
                      {"MEMORY.md": blob_id(index.encode()), "gone.md": blob_id(edited)},
                      lambda ids: {i: blobs[i] for i in ids})
    written = {change.file: change.after for change in plan.local_changes}
    assert written["gone.md"] == edited
    assert written["MEMORY.md"].decode() == index  # back in its place, not appended
    assert plan.outgoing == {}  # the remote's index still holds the line
    # The other way round: deleted on the remote, edited here.
    plan = plan_store({"MEMORY.md": index.encode(), "gone.md": edited}, base,
                      {"MEMORY.md": blob_id(without.encode())},
                      lambda ids: {i: blobs.get(i, without.encode()) for i in ids})
    assert plan.outgoing["gone.md"] == edited and plan.outgoing["MEMORY.md"] == index.encode()
    assert not plan.local_changes


# --- properties ---------------------------------------------------------------------------

FAST = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
VALUES = ["alpha", "beta", "gamma delta", "epsilon", "ζήτα", "42"]
STAMPS = ["2026-05-01T10:00:00Z", "2026-05-02T10:00:00.500Z", "2026-04-30T23:59:59Z", "soon"]
LINES = ["Alpha.", "Beta.", "Gamma.", "", "- item", "**Why:** because.", "Delta.", "# Title",
         "Epsilon, longer line."]


@st.composite
def frontmatter_text(draw) -> str:
    form = draw(st.sampled_from(["none", "flat", "nested", "broken", "crlf"]))
    if form == "none":
        return ""
    keys = draw(st.lists(st.sampled_from(["name", "description", "type", "extra"]), unique=True))
    lines = [f"{key}: {draw(st.sampled_from(VALUES))}" for key in keys]
    bookkeeping = [f"originSessionId: {draw(st.sampled_from(VALUES))}",
                   f"modified: {draw(st.sampled_from(STAMPS))}"]
    if form == "nested":
        lines += ["metadata:", f"  type: {draw(st.sampled_from(VALUES))}",
                  *(f"  {line}" for line in draw(st.lists(st.sampled_from(bookkeeping),
                                                          unique=True)))]
    else:
        lines += draw(st.lists(st.sampled_from(bookkeeping), unique=True))
    if form == "broken":
        lines.append('description2: "quoted phrase" then more')
    ending = "\r\n" if form == "crlf" else "\n"
    return ending.join(["---", *lines, "---", ""])


body_text = st.lists(st.sampled_from(LINES), max_size=7).map(lambda lines: "".join(
    f"{line}\n" for line in lines))
memory = st.builds(lambda head, blank, body: head + ("\n" if blank else "") + body,
                   frontmatter_text(), st.booleans(), body_text)


def _body_lines(text: str) -> set[str]:
    return {line.rstrip("\r") for line in parse(text).body.split("\n") if line.strip()}


def _values(text: str) -> dict[str, str]:
    fm = parse(text)
    if not fm.present or fm.error:
        return {}
    flat = {key: value for key, value in fm.data.items() if not isinstance(value, dict)}
    flat.update({f"metadata.{key}": value for key, value in fm.metadata.items()})
    return {key: str(value) for key, value in flat.items()}


@FAST
@given(st.none() | memory, memory, memory, st.floats(0, 10), st.floats(0, 10))
def test_a_merge_never_makes_a_readable_file_unreadable_nor_loses_what_a_side_wrote(
        base, ours, theirs, our_time, their_time):
    merged, conflicted = merge(base, ours, theirs, Side("laptop", our_time),
                               Side("desktop", their_time))
    # Claude Code reads the frontmatter one side could read.
    if readable(ours) or readable(theirs):
        assert readable(merged), merged
    # Markers only ever in the body.
    assert not MARKER.search(head_of(merged))
    assert bool(find_conflicts(merged)) == conflicted
    # Every body line a side wrote (on first contact: every line it has) is kept.
    written = _body_lines(ours) | _body_lines(theirs)
    if base is not None:
        written = (_body_lines(ours) | _body_lines(theirs)) - _body_lines(base)
    lines = {line.rstrip("\r") for line in merged.split("\n")}
    assert written <= lines, (written - lines, merged)
    # Every value a side set (other than bookkeeping) is kept: in the frontmatter, or shown
    # in the body's conflict block when the other side set another.
    if base is not None or parse(ours).body != parse(theirs).body:
        before = _values(base) if base is not None else {}
        for side in (ours, theirs):
            for key, value in _values(side).items():
                if key.rsplit(".", 1)[-1] in ("originSessionId", "modified"):
                    continue
                if before.get(key) != value and readable(merged):
                    assert value in merged, (key, value, merged)
    # Resolving leaves no marker, and the frontmatter as readable as it was.
    for keep in ("first", "second"):
        resolved = resolve(merged, keep)
        assert not find_conflicts(resolved)
        assert readable(resolved) or not readable(merged)


@FAST
@given(memory, memory)
def test_first_contact_with_identical_bodies_never_conflicts(ours, theirs):
    theirs = head_of(theirs) + parse(ours).body if parse(theirs).present else parse(ours).body
    assume(parse(theirs).body == parse(ours).body)  # a block's end may take a leading blank line
    merged, conflicted = merge(None, ours, theirs)
    assert not conflicted and not MARKER.search(merged)
