"""Drive a program in a real terminal: tmux, send-keys, capture-pane.

Each terminal runs on its own tmux server (a private socket, no user config) with a clean
environment, so neither the user's tmux sessions nor their shell variables leak into a test.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import time
import uuid

from waiting import PATIENCE

EXIT_MARK = "[exited with status "
_SGR = re.compile(r"\x1b\[([0-9;]*)m")
# What a terminal program needs from the outside world; everything else comes from `env`.
PASSED_THROUGH = ("PATH", "LANG", "LC_ALL", "TZ")


class TmuxTerminal:
    def __init__(self, command: str, env: dict[str, str], size: tuple[int, int] = (120, 40)):
        self.socket = f"memtui-test-{uuid.uuid4().hex[:8]}"
        base = {name: os.environ[name] for name in PASSED_THROUGH if name in os.environ}
        base.setdefault("LANG", "C.UTF-8")
        base.update(COLORTERM="truecolor", TERM="xterm-256color")
        exports = " ".join(f"{key}={shlex.quote(value)}" for key, value in {**base, **env}.items())
        width, height = size
        # The pane outlives the program so its last screen and exit status can be read.
        script = f'env -i {exports} {command}; echo "{EXIT_MARK}$?]"; sleep 60'
        self._tmux("new-session", "-d", "-x", str(width), "-y", str(height), script, check=True)

    def __enter__(self) -> TmuxTerminal:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @staticmethod
    def available() -> bool:
        return shutil.which("tmux") is not None

    def _tmux(self, *args: str, check: bool = False) -> subprocess.CompletedProcess[str]:
        env = {key: value for key, value in os.environ.items() if key != "TMUX"}
        return subprocess.run(
            ["tmux", "-L", self.socket, "-f", os.devnull, *args],
            capture_output=True, text=True, check=check, env=env,
        )

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p").stdout

    def backgrounds(self) -> list[tuple[str, list[str | None]]]:
        """Each line on screen as its text and the background of each of its characters
        (an SGR background code, None for the terminal's own)."""
        styled = self._tmux("capture-pane", "-p", "-e").stdout
        lines = []
        background: str | None = None
        for raw in styled.split("\n"):
            text, colours = [], []
            for index, part in enumerate(_SGR.split(raw)):
                if index % 2:
                    background = _background_after(part, background)
                    continue
                text.append(part)
                colours.extend([background] * len(part))
            lines.append(("".join(text), colours))
        return lines

    def wait_for(self, *texts: str, timeout: float = PATIENCE) -> str:
        """Poll the screen until every one of `texts` is on it; fail with the last screen.

        Wait for everything a check needs at once: a capture can catch a frame half drawn.
        """
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if all(text in screen for text in texts):
                return screen
            time.sleep(0.1)
        missing = [text for text in texts if text not in screen]
        raise AssertionError(f"{missing} never appeared on screen:\n{screen}")

    def wait_until_gone(self, text: str, timeout: float = PATIENCE) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if text not in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} is still on screen:\n{screen}")

    def wait_for_exit(self, timeout: float = PATIENCE) -> int:
        """The program's exit status, once it has ended."""
        screen = self.wait_for(EXIT_MARK, timeout=timeout)
        return int(screen.split(EXIT_MARK, 1)[1].split("]", 1)[0])

    def press(self, *keys: str) -> None:
        for key in keys:
            self._tmux("send-keys", key, check=True)
            time.sleep(0.05)

    def type(self, text: str) -> None:
        self._tmux("send-keys", "-l", text, check=True)

    def close(self) -> None:
        self._tmux("kill-server")


def _background_after(parameters: str, background: str | None) -> str | None:
    """The background once an SGR sequence with these parameters is applied."""
    codes = parameters.split(";") if parameters else ["0"]
    index = 0
    while index < len(codes):
        code = codes[index]
        if code in ("0", "", "49"):
            background = None
        elif code == "48" and index + 1 < len(codes):
            size = 4 if codes[index + 1] == "2" else 2  # 2;r;g;b or 5;n
            background = ";".join(codes[index:index + size + 1])
            index += size
        elif code == "38" and index + 1 < len(codes):
            index += 4 if codes[index + 1] == "2" else 2  # a foreground colour: skipped
        elif code.isdigit() and (40 <= int(code) <= 47 or 100 <= int(code) <= 107):
            background = code
        index += 1
    return background
