"""memtui's own files on disk: how much each kind takes, and what the policy would trim."""

from __future__ import annotations

from tui.doctor.context import DoctorContext
from tui.doctor.report import OK, WARN, Check

# Past these, the report says how to reclaim: what the retention policy would trim from
# this store's backups, and all of memtui's backups together.
TRIMMABLE_HINT = 10_000_000
BACKUPS_HINT = 100_000_000


def check_memtui_files(ctx: DoctorContext) -> Check:
    from tui.config import ConfigError, config_file
    from tui.disk_use import disk_use, human_bytes, store_dirs, tree_bytes, use_in_words
    from tui.memory.retention import retention_policy
    from tui.memory.trim import trim_store
    from tui.words import plural

    use = disk_use()
    total = use_in_words(use)
    mine = {kind: tree_bytes(path) for kind, path in store_dirs(ctx.store).items()}
    try:
        policy = retention_policy()
    except ConfigError as error:
        return Check("memtui_files", WARN, f"memtui's own files: {total}. {error} So no "
                     "backup is trimmed, after a write or by memtui gc.",
                     f"in [backups] of {config_file()}, set only keep_changes (a whole "
                     "number) and keep_days (a number), both 0 or more")
    plan = trim_store(ctx.store, policy, dry_run=True)
    here = (f"this store's undo log holds {plural(plan.changes, 'change')} (backups "
            f"{human_bytes(mine['backups'])}, archive {human_bytes(mine['archive'])}, journal "
            f"{human_bytes(mine['journal'])})")
    message = f"memtui's own files: {total}; {here}"
    if plan.freed >= TRIMMABLE_HINT:
        return Check("memtui_files", WARN,
                     f"{message}; {human_bytes(plan.freed)} of them ({plural(plan.pruned, 'change')}) are "
                     f"past the retention policy ({policy.in_words()}).",
                     f"{ctx.memtui('gc', ctx.store)} trims them ({ctx.memtui('gc', '--all')}: every store; "
                     "--dry-run says what would go)")
    if use["backups"] >= BACKUPS_HINT:
        return Check("memtui_files", WARN,
                     f"{message}; memtui's backups of all stores take "
                     f"{human_bytes(use['backups'])}.",
                     f"{ctx.memtui('gc', '--all', '--dry-run')} says what the retention policy "
                     "would trim; "
                     f"keep_changes and keep_days in [backups] of {config_file()} set it")
    return Check("memtui_files", OK, f"{message}; the retention policy keeps "
                 f"{policy.in_words()} per store.")
