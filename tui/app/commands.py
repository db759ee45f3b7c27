"""The command palette: namespaced commands from the app and from the screen on top."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import NamedTuple

from textual.command import DiscoveryHit, Hit, Hits, Provider


class PaletteCommand(NamedTuple):
    title: str  # "namespace: verb ..."
    help: str
    run: Callable[[], object]


def app_commands(app) -> Iterable[PaletteCommand]:
    yield PaletteCommand("search: every memory", "Search the memories of every project",
                         app.action_search)
    yield PaletteCommand("app: toggle dark", "Switch between the dark and light theme",
                         app.action_toggle_dark)
    yield PaletteCommand("app: change theme", "Pick a theme", app.action_change_theme)
    yield PaletteCommand("app: help", "Show the keys of this screen", app.action_toggle_help)
    yield PaletteCommand("app: quit", "Leave memtui", app.action_quit)


class MemtuiCommands(Provider):
    def _commands(self) -> list[PaletteCommand]:
        commands = list(getattr(self.screen, "palette_commands", lambda: [])())
        commands.extend(app_commands(self.app))
        return commands

    async def discover(self) -> Hits:
        for command in self._commands():
            yield DiscoveryHit(command.title, command.run, help=command.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in self._commands():
            score = matcher.match(command.title)
            if score > 0:
                yield Hit(score, matcher.highlight(command.title), command.run, help=command.help)
