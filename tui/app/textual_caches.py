"""What Textual keeps of widgets that are gone, let go.

Textual caches `StylesCache.get_inner_outer` with `functools.lru_cache` on the method, so
the cache's keys hold up to 1,024 widgets' style caches, each with the lines it last
rendered, long after their widgets are removed (Textualize/textual#6665, open in 8.2). Here
that is the rows of every store screen since the app started: a test process that had
opened 35 stores held 220,000 such objects, and each reload's full collection walked them
(317 ms against 114 ms with one store opened). The cache maps colour pairs to two Styles:
emptied, it refills in the next frame.
"""

from __future__ import annotations

from tui.collector import collect_frozen


def release_styles_caches() -> None:
    from textual._styles_cache import StylesCache

    clear = getattr(StylesCache.get_inner_outer, "cache_clear", None)
    if clear is not None:  # gone once Textual no longer caches on the method
        clear()


def collect_discarded() -> None:
    """Free the widgets a reload discarded (`collect_frozen`), their style caches too."""
    release_styles_caches()
    collect_frozen()
