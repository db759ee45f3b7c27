"""`memtui doctor [TARGET] [--json] [--online]`: why memory is not working.

Exit 0 when no check fails, 1 when one does, 2 on bad usage.
"""

from __future__ import annotations

import argparse
import sys

from tui.cli.support import UsageError, config_home_of, env_of, print_json
from tui.words import plural

LABELS = {"ok": "ok", "warn": "warn", "fail": "FAIL", "skip": "skip"}


def cmd_doctor(args: argparse.Namespace) -> int:
    from tui.claude.targets import TargetError
    from tui.doctor import build_context, run_checks

    try:
        ctx = build_context(args.target, home=config_home_of(args), env=env_of(args),
                            settings_file=args.settings)
    except TargetError as error:
        raise UsageError(str(error)) from None
    report = run_checks(ctx, online=args.online)
    if args.json:
        print_json(report.to_json())
    else:
        print_report(report)
    return report.exit_code


def print_report(report) -> None:
    out = sys.stdout
    print(f"project: {report.project or '(unknown)'}", file=out)
    print(f"store:   {report.store}", file=out)
    width = max(len(check.id) for check in report.checks)
    for check in report.checks:
        print(f"{LABELS[check.status]:<5} {check.id:<{width}}  {check.message}", file=out)
        if check.fix and check.status != "ok":
            print(f"{'':<5} {'':<{width}}  fix: {check.fix}", file=out)
    counts = {status: sum(c.status == status for c in report.checks) for status in LABELS}
    print(f"{counts['fail']} failed, {plural(counts['warn'], 'warning')}, {counts['ok']} ok, "
          f"{counts['skip']} skipped.", file=out)


def add_doctor_command(commands) -> None:
    doctor = commands.add_parser("doctor", help="why memory is not working (exit 1 on a failure)")
    doctor.add_argument("target", nargs="?", help="memory dir, project path, project name or folder name")
    doctor.add_argument("--json", action="store_true", help="machine-readable output")
    doctor.add_argument("--online", action="store_true",
                        help="also make one minimal API call (nothing leaves the machine without it)")
    doctor.set_defaults(run=cmd_doctor)
