"""The Textual app. Importing this package stays light: Textual loads in `run_app`."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def run_app(home: Path, env: Mapping[str, str], settings_file: Path | None) -> None:
    """Open the app on a config home and block until the user quits."""
    from tui.app import prefetch

    early = prefetch.start(home, env, settings_file)  # before Textual loads: on another core
    try:
        from tui.app.app import MemtuiApp

        MemtuiApp(home, dict(env), settings_file, prefetched=early).run()
    finally:
        if early is not None:
            early.close()
