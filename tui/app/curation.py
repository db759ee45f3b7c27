"""The app's side of curation: plan, apply, undo and edit through the core write API.

Every write goes through `tui.memory.writes.apply_changes`, which checks content hashes,
replaces files atomically and keeps what undo needs. These functions turn its refusals
into one sentence for a notification.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from tui.words import plural

if TYPE_CHECKING:
    from tui.app.screens.confirm import Confirmation

Outcome = tuple[str, str]  # (what to tell the user, notification severity)
PlanMaker = Callable[[object, object], object]


def make_plan(maker: PlanMaker, store):
    """The plan `maker(curate, store)` returns, or one sentence saying why there is none."""
    try:
        from tui.memory import curate
    except ImportError:
        return "Curation is not available in this build (tui.memory.curate is missing)."
    from tui.memory.writes import WriteRefused

    try:
        return maker(curate, store)
    except (WriteRefused, ValueError, OSError) as error:
        return str(error)


def changed_meanwhile(what: str, consequence: str = "") -> str:
    """A change refused because Claude Code wrote `what` while it was on screen."""
    return (f"{what} changed on disk while the change was on screen (Claude Code writes "
            f"without warning){consequence}; nothing was written. The store is reloaded: "
            "press the same key again to see the change as it would be now.")


STALE_PLAN = changed_meanwhile("The store", ", and the change would no longer be the one shown")


def still_planned(store_path: Path, maker: PlanMaker, plan) -> bool:
    """Whether `maker` plans exactly `plan`'s changes on the store as it is on disk now."""
    from tui.memory.store import load_store

    again = make_plan(maker, load_store(store_path))
    return not isinstance(again, str) and again.changes == plan.changes


def option_plan(option: str) -> PlanMaker | None:
    """The plan a "make room" option names; None for moving an entry, which needs a pick."""
    from tui.memory import curate

    makers: dict[str, PlanMaker] = {
        curate.REMOVE_DANGLING: lambda curate, store: curate.plan_remove_dangling(store),
        curate.SHORTEN_LINES: lambda curate, store: curate.plan_shorten_lines(store),
    }
    return makers.get(option)


def apply_plan(store_path: Path, plan) -> Outcome:
    from tui.history.recovery import apply_journalled
    from tui.history.redaction import Redaction, apply_redaction
    from tui.memory import writes

    try:
        if isinstance(plan, Redaction):
            record, not_scrubbed = apply_redaction(store_path, plan)
        else:
            record, not_scrubbed = apply_journalled(store_path, plan.changes, plan.label), None
    except writes.ConflictError as conflict:
        return changed_meanwhile(conflict.file), "error"
    except writes.WriteRefused as refused:
        return str(refused), "error"
    count = len(getattr(record, "changes", plan.changes))
    changed = f"{plan.label}: {plural(count, 'file')} changed"
    if not_scrubbed is None:
        return f"{changed}. Press u to undo.", "information"
    if not_scrubbed:
        return f"{changed}. {' '.join(not_scrubbed)} Revoke the credential.", "warning"
    return (f"{changed}, and scrubbed from memtui's backups, journal and caches. Revoke the "
            "credential: Claude Code's transcripts and anything synced still hold it.",
            "information")


def prepare_rescue(store_path: Path, home: Path, env, settings_file: Path | None) -> object:
    """The rescue of a stranded store (`tui.memory.rescue.Rescue`), or one sentence."""
    from tui.memory.rescue import prepare_rescue as prepare
    from tui.memory.writes import WriteRefused

    try:
        return prepare(store_path, home, env, settings_file)
    except (WriteRefused, OSError) as error:
        return str(error)


def rescue_confirmation(rescue) -> Confirmation:
    from tui.app.screens.confirm import Confirmation
    from tui.memory import curate
    from tui.render import condense_paths

    plan = rescue.plan
    summary = list(plan.summary)
    if plan.pushed_out:  # the store screen's key for each way to make room the plan offers
        room_keys = {curate.REMOVE_DANGLING: "d", curate.SHORTEN_LINES: "S", curate.MOVE_OUT: "m"}
        keys = [room_keys[option] for option in plan.options if option in room_keys] or ["m"]
        press = keys[0] if len(keys) == 1 else f"{', '.join(keys[:-1])} or {keys[-1]}"
        summary.append(f"To make room first, open {rescue.live} and press {press} there.")
    summary = [condense_paths(sentence) for sentence in summary]  # store paths run long
    return Confirmation(plan.label, summary, _diffs(plan.changes), plan.pushed_out)


def diff_confirmation(plan) -> Confirmation:
    """A plan shown with the diff of every file it changes, below its summary."""
    from tui.app.screens.confirm import Confirmation

    return Confirmation(plan.label, list(plan.summary), _diffs(plan.changes), plan.pushed_out,
                        plan.options)


def _diffs(changes):
    from rich.console import Group

    from tui.app.widgets.diff_view import render_diff

    return Group(*(render_diff(_text(change.before), _text(change.after), f"a/{change.file}",
                               f"b/{change.file}") for change in changes))


def _text(data: bytes | None) -> str:
    return "" if data is None else data.decode("utf-8", "replace")


def apply_rescue(rescue, home: Path, env, settings_file: Path | None) -> Outcome:
    """Apply a rescue to its live store, if planning it again still gives the change the
    user saw (Claude Code may have written either store meanwhile)."""
    from tui.history.recovery import apply_journalled
    from tui.memory import writes

    again = prepare_rescue(rescue.stranded, home, env, settings_file)
    if isinstance(again, str):  # no live store any more, or the stranded one is gone
        return again, "error"
    if again.live != rescue.live or again.plan.changes != rescue.plan.changes:
        return changed_meanwhile("A store", ", and the rescue would no longer be the one "
                                 "shown"), "error"
    try:
        record = apply_journalled(rescue.live, rescue.plan.changes, rescue.plan.label)
    except writes.ConflictError as conflict:
        return changed_meanwhile(conflict.file), "error"
    except writes.WriteRefused as refused:
        return str(refused), "error"
    return (f"{rescue.plan.label}: {plural(len(record.changes), 'file')} changed in "
            f"{rescue.live}. "
            f"Undo it there (u on its screen) or with `memtui undo {rescue.live}`.",
            "information")


def undo(store_path: Path) -> Outcome:
    from tui.agents.changeset import undo_changeset
    from tui.memory import writes

    try:
        label = undo_changeset(store_path)  # an undone dream is no consolidation
    except writes.WriteRefused as refused:
        return str(refused), "error"
    if label is None:
        from tui.memory.trim import trimmed_note

        trimmed = trimmed_note(store_path)
        return (f"Nothing left to undo: {trimmed}." if trimmed else "Nothing to undo."), "warning"
    return f"{writes.undone_phrase(label)} U redoes it.", "information"


def redo(store_path: Path) -> Outcome:
    from tui.agents.changeset import redo_changeset
    from tui.memory import writes

    try:
        label = redo_changeset(store_path)
    except writes.WriteRefused as refused:
        return str(refused), "error"
    if label is None:
        return "Nothing to redo: no undo since the last change.", "warning"
    return f"{writes.redone_phrase(label)} Press u to undo.", "information"


def editor_command() -> list[str] | None:
    """The user's $VISUAL or $EDITOR, if set."""
    command = os.environ.get("VISUAL") or os.environ.get("EDITOR") or ""
    return command.split() or None


def edits_in_app(app) -> bool:
    """Edit inside the app when there is no editor to run or no terminal to hand it."""
    return app.is_web or editor_command() is None


def read_for_editing(store_path: Path, file: str) -> str | Outcome:
    """The file's text for the in-app editor, or why it cannot be edited there.

    The editor keeps one line-ending style and breaks lines wherever Python does (form
    feeds, U+2028, ...): a file it would not give back byte for byte is left to $EDITOR.
    """
    from textual.document._document import Document

    try:
        text = (store_path / file).read_bytes().decode("utf-8")
    except OSError as error:
        return f"{file} cannot be read ({error.strerror or error}).", "error"
    except UnicodeDecodeError:
        return f"{file} is not valid UTF-8; edit it with $EDITOR to keep its bytes.", "error"
    if Document(text).text != text:
        return (f"{file} mixes line endings or holds Unicode line separators; edit it with "
                "$EDITOR to keep its bytes.", "error")
    return text


def save_edit(store_path: Path, file: str, before: str | None, after: str) -> Outcome:
    """Write the in-app editor's text back, if the file is still what was loaded (`before`
    None: if it still does not exist)."""
    from tui.history.recovery import apply_journalled
    from tui.memory import writes

    change = writes.FileChange(file, None if before is None else before.encode("utf-8"),
                               after.encode("utf-8"))
    try:
        apply_journalled(store_path, [change], f"edit {file}")
    except writes.WriteRefused as refused:
        return str(refused), "error"
    return f"Saved {file}. Press u to undo.", "information"


EDIT_MARKERS = ("your edit", "on disk now")


@dataclass(frozen=True)
class EditMerged:
    """The editor's text with what was written on disk meanwhile merged in."""

    text: str
    on_disk: str | None  # the file as it is now: what the next save checks against
    message: str
    severity: str


def holds_edit_markers(text: str) -> bool:
    from tui.history.markers import MARK_OURS

    opening = f"{MARK_OURS} {EDIT_MARKERS[0]}"
    return any(line.rstrip("\r") == opening for line in text.split("\n"))


def merge_edit(store_path: Path, file: str, before: str, mine: str) -> EditMerged | str | None:
    """After a refused save: the user's edit merged with the file as it is now; a sentence
    when the file changed in a way the editor cannot merge; None when it did not change
    (the refusal had another cause).

    Nothing is written: the user sees the merge in the editor and saves it, so neither the
    edit nor the other writer's change is lost without a look.
    """
    from tui.history.merge import merge3

    if not (store_path / file).exists():
        return EditMerged(mine, None, f"{file} was deleted on disk while you edited it; "
                          "ctrl+s writes your text back as a new file.", "warning")
    current = read_for_editing(store_path, file)
    if isinstance(current, tuple):
        return f"{file} changed on disk while you edited it: {current[0]}"
    if current == before:
        return None
    merged = merge3(before, mine, current, EDIT_MARKERS)
    if merged.clean:
        return EditMerged(merged.text, current, f"{file} changed on disk while you edited "
                          "it; that change is merged into your text. Review it; ctrl+s "
                          "saves both.", "warning")
    return EditMerged(merged.text, current, (
        f"{file} changed on disk while you edited it, on the same lines: both texts are in "
        f"the editor between <<<<<<< and >>>>>>> lines "
        f"({plural(len(merged.conflicts), 'place')}). "
        "Keep what you want, then ctrl+s saves."), "warning")


def edit(app, store_path: Path, file: str) -> Outcome | EditMerged | None:
    """Edit a copy of `file` in $EDITOR (app suspended), then write it back if unchanged meanwhile.

    Editing a copy means Claude Code never sees a half-saved file, and the write-back goes
    through the conflict check. If the file changed on disk during the edit, nothing is
    overwritten: the user's text merged with the file as it is now is returned, for the
    app's editor to show as it shows its own merges; a file it cannot merge there keeps
    the user's version next to the copy.
    """
    from tui.history.recovery import apply_journalled
    from tui.memory import writes

    original = store_path / file
    try:
        before = original.read_bytes()
    except OSError as error:
        return f"{file} cannot be read ({error.strerror or error}).", "error"
    editor = editor_command()
    if editor is None:
        return "Set $VISUAL or $EDITOR to edit outside the app.", "warning"
    workdir = Path(tempfile.mkdtemp(prefix="memtui-edit-"))
    copy = workdir / Path(file).name
    copy.write_bytes(before)
    command = [*editor, str(copy)]
    try:
        if app.is_headless:  # no terminal to hand over (tests): the editor is a script
            code = subprocess.call(command)
        else:
            with app.suspend():
                code = subprocess.call(command)
    except OSError as error:
        return f"Could not start {command[0]} ({error.strerror or error}); set $EDITOR.", "error"
    after = copy.read_bytes()
    if code != 0 or after == before:
        shutil.rmtree(workdir, ignore_errors=True)
        return None if code == 0 else (f"{command[0]} exited with {code}; nothing saved.", "warning")
    try:
        apply_journalled(store_path, [writes.FileChange(file, before, after)], f"edit {file}")
    except writes.WriteRefused as refused:
        merged = _merge_editor_copy(store_path, file, before, after)
        if isinstance(merged, EditMerged):  # on screen only until saved: the copy stays
            return replace(merged, message=f"{merged.message} Your version is also kept "
                                           f"at {copy}.")
        return f"{merged or refused} Your version is kept at {copy}.", "error"
    shutil.rmtree(workdir, ignore_errors=True)
    return f"Saved {file}. Press u to undo.", "information"


def _merge_editor_copy(store_path: Path, file: str, before: bytes,
                       after: bytes) -> EditMerged | str | None:
    """`merge_edit` for an edit made in $EDITOR, when both texts are ones the app's editor
    gives back byte for byte; else why the merge cannot be shown there."""
    from textual.document._document import Document

    try:
        texts = before.decode("utf-8"), after.decode("utf-8")
    except UnicodeDecodeError:
        return f"{file} is not valid UTF-8, so the app cannot show the merge."
    if any(Document(text).text != text for text in texts):
        return (f"{file} mixes line endings or holds Unicode line separators, so the app "
                "cannot show the merge.")
    return merge_edit(store_path, file, *texts)
