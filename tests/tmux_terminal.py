"""Drive a program in a real terminal: tmux, send-keys, capture-pane."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import time
import uuid


class TmuxTerminal:
    def __init__(self, command: str, env: dict[str, str], size: tuple[int, int] = (120, 40)):
        self.session = f"memtui-{uuid.uuid4().hex[:8]}"
        exports = " ".join(f"{key}={shlex.quote(value)}" for key, value in env.items())
        width, height = size
        subprocess.run(
            ["tmux", "new-session", "-d", "-s", self.session, "-x", str(width), "-y", str(height),
             f"env {exports} COLORTERM=truecolor TERM=xterm-256color {command}; sleep 30"],
            check=True,
        )

    @staticmethod
    def available() -> bool:
        return shutil.which("tmux") is not None

    def screen(self) -> str:
        result = subprocess.run(
            ["tmux", "capture-pane", "-p", "-t", self.session],
            capture_output=True, text=True, check=False,
        )
        return result.stdout

    def wait_for(self, text: str, timeout: float = 20.0) -> str:
        """Poll the screen until `text` appears; fail with the last screen."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared on screen:\n{screen}")

    def wait_until_gone(self, text: str, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if text not in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} is still on screen:\n{screen}")

    def press(self, *keys: str) -> None:
        for key in keys:
            subprocess.run(["tmux", "send-keys", "-t", self.session, key], check=True)
            time.sleep(0.05)

    def type(self, text: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.session, "-l", text], check=True)

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.session],
                       capture_output=True, check=False)
