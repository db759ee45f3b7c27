"""`memtui doctor`: why memory is not working, one check per cause, each with its fix.

Offline by default: the checks read files, the environment and at most connect to a local
proxy port. `online=True` adds `api_probe`, one minimal Messages API call.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from tui.doctor.context import DoctorContext
from tui.doctor.report import SKIP, Check, DoctorReport

SECRET_VARIABLES = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN")


def build_context(target: str | None, *, home: Path, env: Mapping[str, str],
                  settings_file: Path | None = None, project=None,
                  managed_file: Path | None = None,
                  index_text: str | None = None, now: float | None = None) -> DoctorContext:
    """The context for a TARGET as `memtui audit` takes it (memory dir, project path or folder
    name; default the current directory). A store that does not exist yet is fine here.
    Raises `tui.claude.targets.TargetError` (one sentence) for a target that names nothing.
    `now`: the clock ages are counted from (default the time of the call)."""
    from tui.claude.settings import resolve_memory_location
    from tui.claude.targets import resolve_target

    resolved = resolve_target(target, home=home, env=env, settings_file=settings_file)
    project_path = resolved.project_path
    root = Path(project_path) if project_path and os.path.isdir(project_path) else None
    location = None
    if root is not None:
        location = resolve_memory_location(root, home=home, env=env, settings_file=settings_file,
                                           managed_file=managed_file)
        root = location.project_root
    return DoctorContext(home=home, env=env, store=resolved.memory_dir, project_root=root,
                         location=location, settings_flag=settings_file,
                         managed_file=managed_file, project=project,
                         stranded_reason=resolved.stranded_reason, index_text=index_text,
                         now=time.time() if now is None else now)


def _checks(online: bool) -> list[tuple[str, Callable[[DoctorContext], Check]]]:
    from tui.doctor import (
        access_checks,
        claude_md_checks,
        disk_checks,
        dream_checks,
        session_checks,
        settings_checks,
        store_checks,
    )

    checks = [
        ("auto_memory", settings_checks.check_auto_memory),
        ("settings_keys", settings_checks.check_settings_keys),
        ("memory_dir", settings_checks.check_memory_dir),
        ("api_base_url", access_checks.check_api_base_url),
        ("api_key", access_checks.check_api_key),
        ("api_model", access_checks.check_api_model),
        ("proxy", access_checks.check_proxy),
        ("oauth", access_checks.check_oauth),
        ("dream_gates", dream_checks.check_dream_gates),
        ("dream_lock", dream_checks.check_dream_lock),
        ("index_size", store_checks.check_index_size),
        ("extraction", session_checks.check_extraction),
        ("compaction", session_checks.check_compaction),
        ("worktrees", store_checks.check_worktrees),
        ("user_claude_md", claude_md_checks.check_user_claude_md),
        ("memtui_files", disk_checks.check_memtui_files),
    ]
    if online:
        from tui.doctor import probe

        checks.append(("api_probe", probe.check_api_probe))
    return checks


def run_checks(ctx: DoctorContext, *, online: bool = False) -> DoctorReport:
    """Every check; one that cannot read what it needs is a `skip` saying why."""
    results: list[Check] = []
    for check_id, check in _checks(online):
        try:
            results.append(check(ctx))
        except OSError as error:
            where = f" {error.filename}" if error.filename else ""
            results.append(Check(check_id, SKIP, f"Could not read{where} "
                                 f"({error.strerror or error}).", None))
    project = str(ctx.project_root) if ctx.project_root else None
    report = DoctorReport(project, str(ctx.store), tuple(results))
    return report.redacted(secrets(ctx))


def secrets(ctx: DoctorContext) -> list[str]:
    """Every key and token value the checks might come across, and the passwords of the
    URLs they print."""
    from tui.doctor.access_checks import PROXY_VARIABLES, memtui_config, url_password

    values = [ctx.env.get(name, "") for name in SECRET_VARIABLES]
    values += [found.value for name in SECRET_VARIABLES if (found := ctx.claude_var(name))]
    for name in (*PROXY_VARIABLES, "ANTHROPIC_BASE_URL"):
        urls = [ctx.env.get(name, ""), *(found.value for found in [ctx.claude_var(name)] if found)]
        values += [url_password(url) or "" for url in urls]
    config, _ = memtui_config(ctx)
    if config is not None:
        values += [config.api_key or "", config.auth_token or ""]
    return [value for value in values if value]
