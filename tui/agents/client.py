"""The Anthropic Messages API, configured the way Claude Code users already have it.

Settings, first found wins: the environment (`ANTHROPIC_API_KEY` or
`ANTHROPIC_AUTH_TOKEN`, `ANTHROPIC_BASE_URL`, `ANTHROPIC_MODEL`), then
`<xdg config>/memtui/config.toml` (`[anthropic]` with `api_key`, `auth_token`, `base_url`,
`model`, `timeout`). Every failure becomes one sentence; rate limits and overloads are
retried with backoff, each retry reported.

Requests authenticate as Claude Code's do, so that a gateway that accepts Claude Code
accepts memtui: the key as `x-api-key`, the token as `Authorization: Bearer`, both when
both are set.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from tui import config

DEFAULT_MODEL = "claude-sonnet-5-5"
DEFAULT_BASE_URL = "https://api.anthropic.com"
DEFAULT_TIMEOUT = 120.0
RETRIES = 4
MAX_TOKENS = 8192
CONFIG_KEYS = ("api_key", "auth_token", "base_url", "model", "timeout")  # of [anthropic]


class EngineError(Exception):
    """A run that cannot go on; the message is one sentence for the user."""


@dataclass(frozen=True)
class ClientConfig:
    api_key: str | None = None
    auth_token: str | None = None
    base_url: str | None = None
    model: str = DEFAULT_MODEL
    timeout: float = DEFAULT_TIMEOUT
    stream: bool = True
    retry_delay: float = 2.0  # the first backoff; doubled on each retry

    @property
    def has_credentials(self) -> bool:
        return bool(self.api_key or self.auth_token)


def config_file() -> Path:
    return config.config_file()


def read_config_table(path: Path) -> dict:
    """The `[anthropic]` table of config.toml ({} when there is no file); EngineError when
    the file is there but is no TOML memtui can use."""
    try:
        return config.read_table(path, "anthropic")
    except config.ConfigError as error:
        raise EngineError(str(error)) from None


def _seconds(value: object) -> float:
    """The API timeout, from the environment (text) or config.toml (a number)."""
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        try:
            seconds = float(value)
        except (ValueError, OverflowError):
            seconds = math.nan
        if 0 < seconds < math.inf:
            return seconds
    raise EngineError("The API timeout must be a number of seconds.")


def load_config(env: Mapping[str, str], path: Path | None = None) -> ClientConfig:
    path = config_file() if path is None else path
    table = read_config_table(path)
    try:
        config.refuse_unknown_keys(path, "anthropic", table, CONFIG_KEYS)
    except config.ConfigError as error:
        raise EngineError(str(error)) from None

    def pick(variable: str, key: str) -> str | None:
        value = env.get(variable) or table.get(key)
        if value and not isinstance(value, str):
            raise EngineError(f"{path}: `{key}` in [anthropic] must be a string.")
        return value or None

    timeout = _seconds(env.get("MEMTUI_API_TIMEOUT") or table.get("timeout") or DEFAULT_TIMEOUT)
    return ClientConfig(
        api_key=pick("ANTHROPIC_API_KEY", "api_key"),
        auth_token=pick("ANTHROPIC_AUTH_TOKEN", "auth_token"),
        base_url=pick("ANTHROPIC_BASE_URL", "base_url"),
        model=pick("ANTHROPIC_MODEL", "model") or DEFAULT_MODEL,
        timeout=timeout,
    )


def sdk_client(api_key: str | None, auth_token: str | None, base_url: str | None, *,
               timeout: float, headers: Mapping[str, str] | None = None, http_client=None):
    """An anthropic SDK client sending what Claude Code sends: `api_key` as `x-api-key`,
    `auth_token` as `Authorization: Bearer`. The SDK (2.16) would send an `api_key` as a
    bearer token, and read whatever the arguments leave unset from `os.environ`: both are
    set here explicitly."""
    import anthropic

    layer: dict = dict(headers or {})
    if api_key:
        layer["x-api-key"] = api_key
        if not auth_token:
            layer["Authorization"] = anthropic.omit  # the SDK's bearer copy of the key
    return anthropic.Anthropic(
        api_key=None if auth_token else api_key, auth_token=auth_token,
        base_url=base_url or DEFAULT_BASE_URL, default_headers=layer, timeout=timeout,
        max_retries=0, http_client=http_client,
    )


@dataclass(frozen=True)
class Reply:
    content: tuple[dict, ...]  # text and tool_use blocks as plain dicts
    stop_reason: str | None
    tokens_in: int
    tokens_out: int

    @property
    def text(self) -> str:
        return "".join(b.get("text", "") for b in self.content if b.get("type") == "text")

    @property
    def tool_uses(self) -> list[dict]:
        return [b for b in self.content if b.get("type") == "tool_use"]


def _block(block) -> dict:
    if block.type == "text":
        return {"type": "text", "text": block.text}
    if block.type == "tool_use":
        return {"type": "tool_use", "id": block.id, "name": block.name,
                "input": block.input if isinstance(block.input, dict) else {}}
    return {"type": block.type}


class ModelClient:
    """One conversation's access to the API; `on_retry(text)` hears about backoffs,
    `on_text(chunk)` receives streamed model text."""

    def __init__(self, config: ClientConfig, *, cancel: threading.Event | None = None,
                 on_retry: Callable[[str], None] | None = None,
                 on_text: Callable[[str], None] | None = None):
        if not config.has_credentials:
            raise EngineError(
                "No API key: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN), "
                f"add it to {config_file()}, or use --engine offline."
            )
        import anthropic

        self.config = config
        self.cancel = cancel or threading.Event()
        self.on_retry = on_retry or (lambda _: None)
        self.on_text = on_text or (lambda _: None)
        self._anthropic = anthropic
        self._client = sdk_client(config.api_key, config.auth_token, config.base_url,
                                  timeout=config.timeout)

    def create(self, system: str, messages: list[dict], tools: list[dict]) -> Reply:
        api = self._anthropic
        delay = self.config.retry_delay
        for attempt in range(1, RETRIES + 2):
            try:
                return self._send(system, messages, tools)
            except (api.RateLimitError, api.OverloadedError) as error:
                what = ("rate limited (429)" if isinstance(error, api.RateLimitError)
                        else "overloaded (529)")
                if attempt > RETRIES:
                    raise EngineError(
                        f"The API stayed {what} after {attempt} attempts; try again later."
                    ) from None
                self.on_retry(f"The API is {what}; retry {attempt} of {RETRIES} in {delay:g} s.")
                if self.cancel.wait(delay):
                    from tui.agents.events import RunCancelled

                    raise RunCancelled() from None
                delay *= 2
            except api.APIError as error:
                raise EngineError(self.explain(error)) from None
        raise AssertionError("unreachable")

    def _send(self, system: str, messages: list[dict], tools: list[dict]) -> Reply:
        arguments = dict(model=self.config.model, max_tokens=MAX_TOKENS, system=system,
                         messages=messages, tools=tools)
        if self.config.stream:
            with self._client.messages.stream(**arguments) as stream:
                for event in stream:
                    if event.type == "text":
                        self.on_text(event.text)
                message = stream.get_final_message()
        else:
            message = self._client.messages.create(**arguments)
        usage = message.usage
        return Reply(tuple(_block(b) for b in message.content), message.stop_reason,
                     int(getattr(usage, "input_tokens", 0) or 0),
                     int(getattr(usage, "output_tokens", 0) or 0))

    def explain(self, error: Exception) -> str:
        """One sentence for an API failure."""
        api = self._anthropic
        base = self.config.base_url or DEFAULT_BASE_URL
        if isinstance(error, api.AuthenticationError):
            return ("The API rejected the key (401): check ANTHROPIC_API_KEY or "
                    "ANTHROPIC_AUTH_TOKEN.")
        if isinstance(error, api.PermissionDeniedError):
            return "The key is not allowed to use this API or model (403)."
        if isinstance(error, api.NotFoundError):
            trimmed = base.rstrip("/")
            if trimmed.endswith("/v1"):
                return (f"ANTHROPIC_BASE_URL ends in /v1, but the client adds /v1 itself: "
                        f"set it to {trimmed.removesuffix('/v1')}.")
            return (f"Model {self.config.model!r} was not found at {base}: set ANTHROPIC_MODEL "
                    "to a model your key can use.")
        if isinstance(error, api.APITimeoutError):
            return (f"The API at {base} did not answer within {self.config.timeout:g} s; "
                    "try again or raise MEMTUI_API_TIMEOUT.")
        if isinstance(error, api.APIConnectionError):
            return f"Could not connect to {base}: check ANTHROPIC_BASE_URL and your network."
        if isinstance(error, api.APIStatusError):
            detail = _error_message(error)
            return f"The API answered {error.status_code}: {detail}"
        return f"The API call failed: {error}."


def _error_message(error) -> str:
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        inner = body.get("error")
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return inner["message"].rstrip(".") + "."
    return str(getattr(error, "message", error)).rstrip(".") + "."
