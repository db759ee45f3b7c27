"""memtui's own backups do not grow without bound: the retention policy, its trim, `memtui gc`.

The undo log (`backups/<key>/log.jsonl`) and its folders of plain copies keep the newest N
changes and those younger than D days; a trim killed at any moment, or racing a write,
leaves a log whose every record still undoes, and every copy it names.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import write_index
from test_write_crashes import run_python

from tui import failpoints, xdg
from tui.cli import main
from tui.disk_use import human_bytes, kind_dirs, tree_bytes
from tui.memory.intents import keep_copy
from tui.memory.retention import Retention
from tui.memory.trim import trim_store
from tui.memory.undo_log import LOG_NAME, backups_dir
from tui.memory.writes import FileChange, apply_changes, history, redo_last, undo_last

DAY = 86400.0
FILE = "notes.md"


@pytest.fixture
def store(claude_home) -> Path:
    memory = claude_home.store(folder="-home-me-proj")
    write_index(memory, ["# Memory", f"- [notes]({FILE}) - notes"])
    return memory


def text(store: Path) -> bytes | None:
    path = store / FILE
    return path.read_bytes() if path.exists() else None


def edit(store: Path, number: int, size: int = 0):
    """Change notes.md to version `number` (`size`: padded to that many bytes)."""
    body = f"version {number}\n".encode()
    body += os.urandom(size // 2).hex().encode()[:max(0, size - len(body))]
    return apply_changes(store, [FileChange(FILE, text(store), body)], f"edit {number}")


def age(store: Path, days: dict[str, float]) -> None:
    """Make the logged changes with these labels `days` old, as if made then: their time
    in the log, and their folder of copies (the log and folders are memtui's own)."""
    log = backups_dir(store) / LOG_NAME
    lines = []
    for line in log.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["label"] in days:
            record["time"] = time.time() - days[record["label"]] * DAY
            set_mtime(backups_dir(store) / record["id"], record["time"])
        lines.append(json.dumps(record))
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")


def set_mtime(folder: Path, moment: float) -> None:
    if folder.exists():
        for path in [*folder.rglob("*"), folder]:
            os.utime(path, (moment, moment))


def labels(store: Path) -> list[str]:
    return [record.label for record in history(store)]


def folders(store: Path) -> set[str]:
    return {path.name for path in backups_dir(store).iterdir() if path.is_dir()}


def copies_named_by_the_log(store: Path) -> set[str]:
    """The record ids whose changes had old bytes: each has a folder of plain copies."""
    return {record.id for record in history(store)
            if any(change.before is not None for change in record.changes)}


def versions(store: Path, count: int, old: int) -> None:
    """`count` edits of notes.md, the first `old` of them 40 days old."""
    for number in range(count):
        edit(store, number)
    age(store, {f"edit {number}": 40 for number in range(old)})


def test_a_trim_keeps_the_newest_changes_and_every_young_one(store):
    versions(store, 10, old=7)

    result = trim_store(store, Retention(keep_changes=2, keep_days=30))

    # the newest two, and edit 7, which is younger than 30 days
    assert labels(store) == ["edit 9", "edit 8", "edit 7"]
    assert (result.changes, result.pruned) == (10, 7)
    assert result.folders == 6  # edit 0 created the file: it had no old bytes to copy
    assert folders(store) == copies_named_by_the_log(store)
    assert result.freed > 0


def test_the_newest_changes_are_kept_however_old(store):
    versions(store, 6, old=6)

    trim_store(store, Retention(keep_changes=4, keep_days=30))

    assert labels(store) == ["edit 5", "edit 4", "edit 3", "edit 2"]


def test_every_kept_change_still_undoes_and_redoes_after_a_trim(store):
    versions(store, 8, old=8)
    trim_store(store, Retention(keep_changes=4, keep_days=30))

    for number in (6, 5, 4, 3):
        assert undo_last(store) is not None
        assert text(store) == f"version {number}\n".encode()
    assert undo_last(store) is None  # edit 3 and older were trimmed: version 3 stays
    assert text(store) == b"version 3\n"
    for number in (4, 5, 6, 7):
        assert redo_last(store) is not None
        assert text(store) == f"version {number}\n".encode()


def test_a_trim_never_separates_an_undo_from_the_change_it_took_back(store):
    versions(store, 5, old=5)
    undo_last(store)
    redo_last(store)
    age(store, {"undo edit 4": 40, "redo edit 4": 40})

    trim_store(store, Retention(keep_changes=1, keep_days=30))

    # Only the redo is among the newest one, but it is a redo because of the undo it
    # reverted, which is an undo because of edit 4: all three stay.
    assert labels(store) == ["redo edit 4", "undo edit 4", "edit 4"]
    assert undo_last(store).label == "undo edit 4"
    assert text(store) == b"version 3\n"
    assert undo_last(store) is None


LATER = time.time() + 40 * DAY  # a trim 40 days from now: every change made in a test is old


def test_copies_recovery_kept_stay_unless_asked(store):
    versions(store, 4, old=0)
    oldest = history(store)[-2]  # edit 1: it had old bytes, so a folder of copies
    kept = keep_copy(store, oldest.id, FILE, b"an outside write recovery set aside\n")
    stray = keep_copy(store, "stray", FILE, b"another outside write\n")

    result = trim_store(store, Retention(keep_changes=1, keep_days=30), now=LATER)

    assert kept.read_bytes() == b"an outside write recovery set aside\n"
    assert stray.exists()
    assert not (backups_dir(store) / oldest.id / FILE).exists()  # the plain copy went
    assert (result.kept_copies, result.kept_removed) == (2, 0)

    result = trim_store(store, Retention(keep_changes=1, keep_days=30), include_kept=True,
                        now=LATER)

    assert not kept.exists() and not stray.exists()
    assert result.kept_removed == 2


@pytest.mark.parametrize("trimmed_before", [False, True],
                         ids=["with its change", "after its change was trimmed"])
def test_kept_removes_only_the_kept_copies_older_than_the_policy(store, trimmed_before):
    versions(store, 4, old=0)
    trimmed = history(store)[-2]  # edit 1: its record and plain copies go
    old = keep_copy(store, trimmed.id, FILE, b"an outside write of long ago\n")
    young = keep_copy(store, trimmed.id, "topics/api.md", b"an outside write of yesterday\n")
    os.utime(old, (LATER - 40 * DAY, LATER - 40 * DAY))
    os.utime(young, (LATER - DAY, LATER - DAY))
    if trimmed_before:
        trim_store(store, Retention(keep_changes=1, keep_days=30), now=LATER)

    result = trim_store(store, Retention(keep_changes=1, keep_days=30), include_kept=True,
                        now=LATER)

    assert not old.exists()
    assert young.read_bytes() == b"an outside write of yesterday\n"
    assert not (backups_dir(store) / trimmed.id / FILE).exists()  # the plain copy went
    assert (result.kept_removed, result.kept_copies) == (1, 1)
    assert labels(store) == ["edit 3"]


TRIM = textwrap.dedent("""
    import sys
    from pathlib import Path
    from tui.memory.retention import Retention
    from tui.memory.trim import trim_store
    trim_store(Path(sys.argv[1]), Retention(keep_changes=3, keep_days=30), now=float(sys.argv[2]))
""")


def assert_log_and_copies_agree(store: Path) -> None:
    """Every line of the log is a whole record, and every record's copies are there."""
    log = backups_dir(store) / LOG_NAME
    assert len(log.read_bytes().splitlines()) == len(history(store))
    for record in history(store):
        for change in record.changes:
            if change.before is not None:
                assert (backups_dir(store) / record.id / change.file).read_bytes() == change.before


@pytest.mark.parametrize("moment", ["trim.log_written", "trim.log_replaced",
                                    "trim.folder_removed:2"])
def test_a_trim_killed_at_any_moment_leaves_the_log_whole_and_undo_working(store, moment):
    versions(store, 10, old=0)

    killed = run_python(TRIM, str(store), str(LATER), failpoint=moment)
    assert killed.returncode == -signal.SIGKILL, killed.stderr

    assert_log_and_copies_agree(store)
    assert len(history(store)) == (10 if moment == "trim.log_written" else 3)
    # The next trim finishes it: the same log and folders as one never interrupted.
    trim_store(store, Retention(keep_changes=3, keep_days=30), now=LATER)
    assert labels(store) == ["edit 9", "edit 8", "edit 7"]
    assert folders(store) == copies_named_by_the_log(store)
    assert not [name for name in os.listdir(backups_dir(store)) if "memtui-" in name]
    for number in (8, 7, 6):
        assert undo_last(store) is not None
        assert text(store) == f"version {number}\n".encode()


WRITE = textwrap.dedent("""
    import sys
    from pathlib import Path
    from tui.memory.writes import FileChange, apply_changes
    apply_changes(Path(sys.argv[1]), [FileChange("other.md", None, b"written meanwhile\\n")],
                  "write during the trim")
""")


def test_a_write_during_a_trim_waits_for_it_and_loses_nothing(store):
    versions(store, 6, old=6)
    writer: list[subprocess.Popen] = []

    def start_a_write(_detail: str) -> None:
        env = {k: v for k, v in os.environ.items() if k != "MEMTUI_FAILPOINT"}
        writer.append(subprocess.Popen([sys.executable, "-c", WRITE, str(store)], env=env,
                                       stderr=subprocess.PIPE))
        time.sleep(1.5)
        assert writer[0].poll() is None  # waiting for the store lock the trim holds

    failpoints.on("trim.log_written", start_a_write)
    try:
        trim_store(store, Retention(keep_changes=2, keep_days=30))
    finally:
        failpoints.on("trim.log_written", None)
    assert writer[0].wait(timeout=30) == 0, writer[0].stderr.read()

    assert labels(store) == ["write during the trim", "edit 5", "edit 4"]
    assert (store / "other.md").read_bytes() == b"written meanwhile\n"
    assert_log_and_copies_agree(store)


def set_policy(body: str) -> None:
    xdg.config_dir().mkdir(parents=True, exist_ok=True)
    (xdg.config_dir() / "config.toml").write_text(body, encoding="utf-8")


def test_writes_trim_the_log_once_it_has_doubled_past_a_megabyte(store):
    set_policy("[backups]\nkeep_changes = 2\nkeep_days = 0\n")
    for number in range(10):  # small changes: the log stays far below 1 MB
        edit(store, number)
    assert len(history(store)) == 10

    counts = []
    for number in range(10, 22):  # ~0.5 MB a record (old and new bytes, in base64)
        edit(store, number, size=200_000)
        counts.append(len(history(store)))

    # Trimmed once the log passed 1 MB (the third big change), to the newest two; then
    # again each time it doubled, so not after every write: amortised.
    first = counts.index(2)
    assert first <= 3
    assert 2 <= min(counts[first:]) and max(counts[first:]) <= 4
    assert any(later > earlier for earlier, later in zip(counts[first:], counts[first + 1:], strict=False))
    assert undo_last(store).label == "undo edit 21"
    assert text(store).startswith(b"version 20\n")


def test_an_automatic_trim_removes_a_few_folders_a_write_and_leaves_no_record_without_copies(
        store, monkeypatch):
    from tui.memory import trim

    set_policy("[backups]\nkeep_changes = 1\nkeep_days = 0\n")
    monkeypatch.setattr(trim, "AUTO_FLOOR", 1 << 40)  # no trim while the log grows
    versions(store, 8, old=0)
    monkeypatch.setattr(trim, "AUTO_FLOOR", 1)
    monkeypatch.setattr(trim, "AUTO_FOLDERS", 2)

    edit(store, 8)  # trims edits 0-7: their 7 folders go 2 at a time

    assert labels(store) == ["edit 8"]
    assert len(folders(store) - copies_named_by_the_log(store)) == 5
    monkeypatch.setattr(trim, "AUTO_FLOOR", 1 << 40)  # from now on only what is left behind
    for number in range(9, 15):
        edit(store, number)  # each write's trim: one folder more to go, two removed
        assert_log_and_copies_agree(store)
    assert folders(store) == copies_named_by_the_log(store)

    # edit 13's trim removed the last folder left behind; since then no write trimmed
    for number in range(15, 18):
        edit(store, number)
    assert labels(store) == [f"edit {number}" for number in range(17, 12, -1)]


def refused_by_gc_and_warned_of(store: Path, capsys) -> tuple[str, dict]:
    """`memtui gc` refuses with one line and trims nothing, and the doctor's check warns:
    (gc's line, the doctor's check)."""
    changes = len(history(store))
    assert main(["gc", str(store)]) == 2
    said = capsys.readouterr().err
    assert said.count("\n") == 1
    assert len(history(store)) == changes

    main(["doctor", str(store), "--json"])
    check = doctor_check(capsys)
    assert check["status"] == "warn"
    return said, check


def test_a_bad_retention_setting_trims_nothing_and_gc_says_why(store, capsys):
    set_policy('[backups]\nkeep_changes = "lots"\nkeep_days = 0\n')
    for number in range(8):
        edit(store, number, size=200_000)
    assert len(history(store)) == 8  # the write went on; its trim did not guess a policy

    said, check = refused_by_gc_and_warned_of(store, capsys)
    assert "`keep_changes` in [backups] must be a whole number" in said
    assert "`keep_changes` in [backups] must be a whole number" in check["message"]
    assert "So no backup is trimmed, after a write or by memtui gc." in check["message"]


def test_an_unknown_retention_setting_trims_nothing_and_gc_names_it(store, capsys):
    versions(store, 6, old=6)
    set_policy("[backups]\nkeep_changes = 2\nkeep_day = 365\n")  # meant: a year of changes

    # The default 30 days would trim the changes of 40 days ago the user meant to keep.
    said, check = refused_by_gc_and_warned_of(store, capsys)
    assert "memtui reads no `keep_day` in [backups] (only `keep_changes` and " \
           "`keep_days`). Nothing was trimmed." in said
    assert "memtui reads no `keep_day` in [backups]" in check["message"]
    assert "keep_changes (a whole number) and keep_days (a number)" in check["fix"]


def every_file(*folders: Path) -> dict[str, tuple[bytes, int]]:
    found = {}
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                found[str(path)] = (path.read_bytes(), path.stat().st_mtime_ns)
    return found


def test_gc_dry_run_writes_nothing_and_says_what_gc_then_frees(store, capsys):
    versions(store, 10, old=7)
    set_policy("[backups]\nkeep_changes = 2\n")
    before = every_file(store, xdg.data_dir(), xdg.state_dir())

    assert main(["gc", str(store), "--dry-run", "--json"]) == 0
    planned = json.loads(capsys.readouterr().out)

    assert every_file(store, xdg.data_dir(), xdg.state_dir()) == before
    assert planned["dry_run"] is True
    assert planned["policy"] == {"keep_changes": 2, "keep_days": 30.0}
    [dry] = planned["stores"]
    assert (dry["store"], dry["changes"], dry["pruned"], dry["folders"]) == (str(store), 10, 7, 6)

    assert main(["gc", str(store), "--json"]) == 0
    done = json.loads(capsys.readouterr().out)
    [wet] = done["stores"]
    assert (wet["pruned"], wet["folders"], wet["freed_bytes"]) == \
        (dry["pruned"], dry["folders"], dry["freed_bytes"])
    assert done["disk_use"]["backups"] == tree_bytes(kind_dirs()["backups"])


def test_gc_counts_in_words(store, capsys):
    edit(store, 1)
    assert main(["gc", str(store), "--dry-run"]) == 0
    assert f"{store}: nothing to trim (1 change in the undo log, all within the policy)" \
        in capsys.readouterr().out


@pytest.mark.parametrize("policy, words", [
    (Retention(100, 30), "the newest 100 changes and those of the last 30 days"),
    (Retention(1, 0.5), "the newest change and those of the last 0.5 days"),
    (Retention(0, 7), "the changes of the last 7 days"),
    (Retention(20, 0), "the newest 20 changes"),
    (Retention(0, 0), "no change"),
])
def test_the_policy_in_words_leaves_out_a_part_that_keeps_nothing(policy, words):
    assert policy.in_words() == words


def test_gc_all_trims_every_store_and_shows_memtuis_disk_use(claude_home, capsys):
    stores = [claude_home.store(folder=name) for name in ("-home-me-a", "-home-me-b")]
    for each in stores:
        versions(each, 5, old=5)
    set_policy("[backups]\nkeep_changes = 1\n")

    assert main(["gc", "--all"]) == 0
    out = capsys.readouterr().out

    for each in stores:
        assert f"{each}: trimmed 4 of 5 changes and 3 backup folders, freed " in out
        assert labels(each) == ["edit 4"]
    assert "Policy: per store, keep the newest change and those of the last 30 days" in out
    assert "journal 0 B (never trimmed: the long-term history)" in out


@pytest.mark.parametrize("named_by", ["memory dir", "folder name", "project path"])
def test_gc_trims_the_backups_of_a_store_whose_folder_is_gone(store, capsys, named_by):
    import shutil

    versions(store, 5, old=5)
    set_policy("[backups]\nkeep_changes = 1\n")
    shutil.rmtree(store.parent)  # the store and its transcript folder, as a user deletes them
    target = {"memory dir": str(store), "folder name": "-home-me-proj",
              "project path": "/home/me/proj"}[named_by]

    assert main(["gc", target]) == 0

    assert f"{store}: trimmed 4 of 5 changes and 3 backup folders" in capsys.readouterr().out
    assert labels(store) == ["edit 4"]


def test_gc_of_a_target_that_names_nothing_says_so(store, capsys):
    assert main(["gc", "/home/me/nothing-here"]) == 2
    assert capsys.readouterr().err == "memtui: /home/me/nothing-here does not exist.\n"


def test_undo_says_when_older_changes_were_trimmed(store, capsys):
    versions(store, 5, old=5)
    trim_store(store, Retention(keep_changes=1, keep_days=30))
    undo_last(store)

    assert main(["undo", str(store)]) == 0
    said = capsys.readouterr().out

    assert said.startswith(f"Nothing left to undo in {store}: memtui's changes up to ")
    assert "were trimmed from the undo log by its retention policy, and the journal still " \
           "has every version (memtui history FILE)." in said


def test_doctor_shows_memtuis_disk_use_per_kind_and_when_to_trim(claude_home, store, capsys,
                                                                  monkeypatch):
    from tui.doctor import disk_checks
    from tui.history.recovery import apply_journalled

    versions(store, 6, old=4)
    apply_journalled(store, [FileChange(FILE, text(store), None)], "archive notes")
    cache = xdg.cache_dir() / "scan.sqlite"
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_bytes(b"x" * 50_000)
    argv = ["--config-dir", str(claude_home.home), "doctor", str(store), "--json"]

    main(argv)
    check = doctor_check(capsys)

    use = {kind: tree_bytes(path) for kind, path in kind_dirs().items()}
    assert use["archive"] > 0 and use["journal"] > 0 and use["caches"] >= 50_000
    assert check["status"] == "ok"
    for kind in ("backups", "archive", "journal", "caches"):
        assert f"{kind} {human_bytes(use[kind])}" in check["message"]
    assert "this store's undo log holds 7 changes" in check["message"]
    assert "journal" in check["message"] and "never trimmed" in check["message"]

    monkeypatch.setattr(disk_checks, "TRIMMABLE_HINT", 1)
    main(argv)  # every change is among the newest 100: nothing to trim
    assert doctor_check(capsys)["status"] == "ok"

    set_policy("[backups]\nkeep_changes = 2\n")
    main(argv)
    check = doctor_check(capsys)
    assert check["status"] == "warn"
    assert "(4 changes) are past the retention policy (the newest 2 changes" in check["message"]
    assert check["fix"].startswith(
        f"memtui --config-dir {claude_home.home} gc {store} trims them")


def test_doctor_counts_in_words(claude_home, store, capsys):
    edit(store, 1)
    main(["--config-dir", str(claude_home.home), "doctor", str(store), "--json"])
    assert "this store's undo log holds 1 change (backups " in doctor_check(capsys)["message"]


def doctor_check(capsys) -> dict:
    return next(c for c in json.loads(capsys.readouterr().out)["checks"]
                if c["id"] == "memtui_files")


KILLED_WRITE = textwrap.dedent("""
    import sys
    from pathlib import Path
    from tui.memory.writes import FileChange, apply_changes
    store = Path(sys.argv[1])
    apply_changes(store, [FileChange("notes.md", (store / "notes.md").read_bytes(),
                                     b"half written\\n")], "killed edit")
""")


def test_a_change_set_left_in_flight_is_never_trimmed_around(store):
    from tui.cli.gc import result_line
    from tui.memory.trim import IN_FLIGHT_DRY

    versions(store, 6, old=6)
    killed = run_python(KILLED_WRITE, str(store), failpoint="apply.swapped")
    assert killed.returncode == -signal.SIGKILL
    before = every_file(xdg.data_dir())

    # A dry run takes no lock and rolls nothing back: it says why it cannot say what
    # would go, not that the trim itself is stuck.
    planned = trim_store(store, Retention(keep_changes=2, keep_days=30), dry_run=True)
    assert (planned.skipped, planned.pruned) == (IN_FLIGHT_DRY, 0)
    said = result_line(planned, dry_run=True, include_kept=False)
    assert "memtui gc waits for it or rolls it back before it trims" in said
    assert "could not be rolled back" not in said
    assert every_file(xdg.data_dir()) == before

    # A trim rolls the interrupted change back first, then trims.
    done = trim_store(store, Retention(keep_changes=2, keep_days=30))
    assert done.skipped is None
    assert text(store) == b"version 5\n"
    assert labels(store) == ["edit 5", "edit 4"]
    assert_log_and_copies_agree(store)
