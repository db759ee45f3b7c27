"""`memtui audit --all`: every store of a config home audited at once, spread over cores."""

from __future__ import annotations

import json
import os

import pytest

from tui.cli import main
from tui.demo import build_demo
from tui.memory.bulk import AuditRun, audit_many

NOW = 1_764_460_800.0


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
        return build_demo(tmp_path_factory.mktemp("demo") / "demo", now=NOW)


def test_audit_all_reports_every_store_and_fails_on_errors(demo, capsys):
    code = main(["--config-dir", str(demo.home), "audit", "--all", "--json"])
    report = {entry["store"].split("/projects/")[1]: entry for entry in json.loads(capsys.readouterr().out)}
    assert code == 1
    webapp = next(entry for name, entry in report.items() if name.endswith("code-webapp/memory"))
    # 230 memories and two daily logs (logs/YYYY/MM/): Claude Code's scan reads both.
    assert webapp["memories"] == 232 and webapp["errors"] > 0
    stranded = next(e for n, e in report.items() if "feature-auth" in n)
    assert [f["kind"] for f in stranded["findings"]] == ["stranded_store"]
    healthy = next(e for n, e in report.items() if n.endswith("cli-tool/memory"))
    assert healthy["errors"] == 0


def test_audit_all_refuses_a_target_too(demo, capsys):
    assert main(["--config-dir", str(demo.home), "audit", "--all", "somewhere"]) == 2
    assert "either a TARGET or --all" in capsys.readouterr().err


def test_worker_processes_give_the_same_findings_as_one_process(demo):
    stores = [(p / "memory", None) for p in (demo.home / "projects").iterdir()
              if (p / "memory").is_dir()]
    assert audit_many(stores, workers=2) == audit_many(stores, workers=1)


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this system")
def test_a_process_allowed_one_cpu_audits_in_itself_though_the_machine_has_more(demo):
    # A container or `taskset` limits the CPUs, not os.cpu_count(): workers there would
    # only take turns on the one CPU.
    stores = [(p / "memory", None) for p in (demo.home / "projects").iterdir()
              if (p / "memory").is_dir()]
    allowed = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(allowed)})
    try:
        with AuditRun() as run:
            audits = run.finish(stores)
    finally:
        os.sched_setaffinity(0, allowed)
    assert run.workers == 1 and run.pool is None
    assert audits == audit_many(stores, workers=2)


def test_audit_all_gives_the_same_report_from_its_cache_and_without_it(demo, capsys):
    runs = []
    for extra in ([], [], ["--no-cache"]):
        main(["--config-dir", str(demo.home), "audit", "--all", "--json", *extra])
        runs.append([{k: v for k, v in store.items() if k != "cached"}
                     for store in json.loads(capsys.readouterr().out)])
    assert runs[0] == runs[1] == runs[2]
