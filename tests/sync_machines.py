"""Three "machines" for the sync tests: each its own Claude Code config home and memtui
dirs, each with a clone of the same repository at its own path (same origin, written in
a different URL form on each), and one local bare repository as the sync remote."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from conftest import ClaudeHome, real

from tui.claude import paths

ORIGINS = ("git@github.com:ana/app.git", "https://github.com/ana/app.git",
           "ssh://git@github.com:22/ana/app")
MEMTUI_DIRS = ("MEMTUI_DATA_DIR", "MEMTUI_STATE_DIR", "MEMTUI_CONFIG_DIR")


def git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout


@dataclass
class Machine:
    name: str
    root: Path
    checkout: Path
    home: ClaudeHome
    capsys: object

    @property
    def store(self) -> Path:
        """The store Claude Code keys by the checkout (not created here)."""
        return self.home.projects / paths.sanitize(str(self.checkout)) / paths.MEMORY_DIR_NAME

    def env(self) -> dict[str, str]:
        env = {"CLAUDE_CONFIG_DIR": str(self.home.home)}
        for name in MEMTUI_DIRS:
            env[name] = str(self.root / name.removeprefix("MEMTUI_").lower())
        return env

    @contextmanager
    def active(self):
        saved = {name: os.environ.get(name) for name in self.env()}
        os.environ.update(self.env())
        try:
            yield
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value

    def run(self, *argv: str) -> tuple[int, str, str]:
        from tui.cli import main

        self.capsys.readouterr()
        with self.active():
            code = main(list(argv))
        out, err = self.capsys.readouterr()
        return code, out, err

    def sync(self, *argv: str) -> dict:
        code, out, err = self.run("sync", "--all", "--json", *argv)
        assert code == 0, err
        return json.loads(out)

    def spawn(self, *argv: str) -> subprocess.Popen:
        """`memtui` as a process of its own, in this machine's environment."""
        return subprocess.Popen(
            [sys.executable, "-m", "tui", *argv], env={**os.environ, **self.env()},
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def write_settings(self, settings: dict) -> None:
        """The machine's sync.json, as `memtui sync --machine` would leave it."""
        path = self.root / "config_dir" / "sync.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(settings), encoding="utf-8")

    def write(self, file: str, text: str) -> Path:
        path = self.store / file
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def read(self, file: str) -> str | None:
        path = self.store / file
        return path.read_text(encoding="utf-8") if path.exists() else None


def make_machines(tmp_path: Path, capsys, count: int = 3) -> tuple[Path, list[Machine]]:
    remote = tmp_path / "remote.git"
    git("init", "--quiet", "--bare", "--initial-branch=main", str(remote))
    source = tmp_path / "source"
    git("init", "--quiet", str(source))
    (source / "README").write_text("app\n")
    git("add", "README", cwd=source)
    git("commit", "--quiet", "-m", "start", cwd=source)
    machines = []
    for number, name in enumerate("ABC"[:count]):
        root = tmp_path / f"machine-{name}"
        # The same repository at a different path on every machine.
        checkout = root / ("Users/ana/src" if number == 0 else f"home/ana{number}/code") / "app"
        checkout.parent.mkdir(parents=True)
        git("clone", "--quiet", str(source), str(checkout))
        git("remote", "set-url", "origin", ORIGINS[number], cwd=checkout)
        home = ClaudeHome(root / "claude")
        home.home.mkdir()
        home.session(real(checkout))
        machine = Machine(name, root, real(checkout), home, capsys)
        machine.store.mkdir(parents=True, exist_ok=True)
        machine.write_settings({"remote": None, "names": {}, "machine": name})
        machines.append(machine)
    return remote, machines


def fill_both_past_the_cut(a: Machine, b: Machine, each: int = 120) -> None:
    """`each` memories on each machine (alpha_N on a, beta_N on b), all indexed: merged,
    the other machine's land past the loaded cut."""
    from conftest import memory_text

    for machine, prefix in ((a, "alpha"), (b, "beta")):
        machine.write("MEMORY.md", "".join(f"- [{prefix} {n}]({prefix}_{n}.md) — a note\n"
                                           for n in range(each)))
        for n in range(each):
            machine.write(f"{prefix}_{n}.md", memory_text(name=f"{prefix} {n}"))
