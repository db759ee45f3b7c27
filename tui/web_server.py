"""`memtui serve`'s web server: textual-serve's, with a page that loads nothing from elsewhere.

The page shows memory contents, so it must work with no network and tell no third party it
was opened. textual-serve's page template links Google Fonts for Roboto Mono, a font its
own static folder ships: the template is served with every link to another host taken out
and the font declared from that folder. Every response also carries a Content-Security-
Policy that allows this server alone, so that whatever a later textual-serve adds that
reaches elsewhere is blocked by the browser rather than trusted.

The server's banner and request log are its own output, coloured on a terminal: they go
to the terminal as they are, while what a request brings into the log (its path, its
headers) has its control characters made visible like any other data.
"""

from __future__ import annotations

import logging
import re
import sys

import aiohttp_jinja2
import jinja2
from aiohttp import web
from rich.console import Console
from textual_serve.server import Server

from tui.visible import raw_stream, visible

PAGE = "app_index.html"  # textual-serve's page template
# A stylesheet, font or script the page would fetch from another host.
_REMOTE = re.compile(
    r"<link\b[^>]*\bhref\s*=\s*[\"']?(?:https?:)?//[^>]*>"
    r"|<script\b[^>]*\bsrc\s*=\s*[\"']?(?:https?:)?//[^>]*>\s*</script>",
    re.IGNORECASE,
)
# The font the page's styles name, from textual-serve's static folder.
_LOCAL_FONT = """
    <style>
      @font-face {
        font-family: "Roboto Mono";
        src: url("{{ config.static.url }}fonts/RobotoMono-VariableFont_wght.ttf") format("truetype");
        font-weight: 100 700;
      }
      @font-face {
        font-family: "Roboto Mono";
        font-style: italic;
        src: url("{{ config.static.url }}fonts/RobotoMono-Italic-VariableFont_wght.ttf") format("truetype");
        font-weight: 100 700;
      }
    </style>
  </head>"""


def local_page(template: str) -> str:
    """The page template with nothing fetched from another host."""
    return _REMOTE.sub("", template).replace("</head>", _LOCAL_FONT, 1)


def content_policy(public_url: str) -> str:
    """This server, its WebSocket and inline page code; nothing from anywhere else."""
    socket = "ws" + public_url.removeprefix("http")  # http -> ws, https -> wss
    here = f"'self' {public_url}"
    return "; ".join([
        f"default-src {here}",
        f"connect-src {here} {socket}",
        f"script-src {here} 'unsafe-inline'",  # the page's own start script
        f"style-src {here} 'unsafe-inline'",  # the page's styles; the terminal sets styles
        f"img-src {here} data:",
        f"font-src {here}",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'none'",
    ])


def visible_message(record: logging.LogRecord) -> bool:
    """A log filter: the record's message with the data in it shown, not obeyed."""
    record.msg, record.args = visible(record.getMessage()), None
    return True


class LocalServer(Server):
    """textual-serve's server, serving `local_page` under `content_policy`, its own
    colours written as they are and the data in its log shown as text."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.console = Console(file=raw_stream(sys.stdout))

    def initialize_logging(self) -> None:
        super().initialize_logging()
        for handler in logging.getLogger().handlers:
            if getattr(handler, "console", None) is self.console:
                handler.addFilter(visible_message)

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        aiohttp_jinja2.setup(app, loader=jinja2.FunctionLoader(self._template))
        policy = content_policy(self.public_url)

        async def add_policy(request: web.Request, response: web.StreamResponse) -> None:
            response.headers["Content-Security-Policy"] = policy

        app.on_response_prepare.append(add_policy)
        return app

    def _template(self, name: str) -> str:
        source = (self.templates_path / name).read_text(encoding="utf-8")
        return local_page(source) if name == PAGE else source
