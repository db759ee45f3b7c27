"""What Textual keeps of things that are gone, let go.

Style caches: Textual caches `StylesCache.get_inner_outer` with `functools.lru_cache` on the
method, so the cache's keys hold up to 1,024 widgets' style caches, each with the lines it
last rendered, long after their widgets are removed (Textualize/textual#6665, open in 8.2).
Here that is the rows of every store screen since the app started: a test process that had
opened 35 stores held 220,000 such objects, and each reload's full collection walked them
(317 ms against 114 ms with one store opened). The cache maps colour pairs to two Styles:
emptied, it refills in the next frame.

Thread workers: Textual runs them on the event loop's default executor and sets the
`active_worker` context variable in the pool thread's own context, where it stays until
that thread runs another worker. Each of the pool's threads so kept its last worker, that
worker's screen, and the store the screen had loaded: up to six store screens closed long
ago.

Watchers: `widget.watch(other, ...)` keeps the widget in `other`'s watcher lists until the
watched value next changes; a value that never changes keeps every closed watcher.
"""

from __future__ import annotations

import asyncio
import contextvars
from concurrent.futures import ThreadPoolExecutor

from textual._styles_cache import StylesCache

from tui.collector import collect_frozen


def release_styles_caches() -> None:
    clear = getattr(StylesCache.get_inner_outer, "cache_clear", None)
    if clear is not None:  # gone once Textual no longer caches on the method
        clear()


def forget_watchers(watched: object, node: object) -> None:
    """Drop what `node` watches on `watched` (Textual keeps them in a `__watchers` dict on
    the watched object; none there, nothing to drop)."""
    for watchers in getattr(watched, "__watchers", {}).values():
        watchers[:] = [(owner, callback) for owner, callback in watchers if owner is not node]


def collect_discarded() -> None:
    """Free the widgets a reload discarded (`collect_frozen`), their style caches too."""
    release_styles_caches()
    collect_frozen()


class FreshContextExecutor(ThreadPoolExecutor):
    """A thread pool whose tasks each run in a copy of the submitter's context, as
    `asyncio.to_thread` runs them: what a task sets in its context goes when it ends."""

    def submit(self, fn, /, *args, **kwargs):
        return super().submit(contextvars.copy_context().run, fn, *args, **kwargs)


def run_thread_workers_in_fresh_contexts() -> None:
    """Make the running loop's default executor (where Textual's thread workers run) a
    `FreshContextExecutor`."""
    asyncio.get_running_loop().set_default_executor(
        FreshContextExecutor(thread_name_prefix="memtui-worker"))
