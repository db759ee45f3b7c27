"""Checks of model access, offline: base URL, key, model, proxy, OAuth login.

Values come from Claude Code's environment (the shell's variables and the `env` objects of
its settings files) and from memtui's own config.toml. A key or token is never shown: only
its length and first four characters.
"""

from __future__ import annotations

import re
import shlex
import socket
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urlsplit

from tui.claude.files import read_regular
from tui.doctor.context import DoctorContext
from tui.doctor.report import FAIL, OK, SKIP, WARN, Check, worst

DEFAULT_BASE_URL = "https://api.anthropic.com"
PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy",
                   "ALL_PROXY", "all_proxy")
LOCAL_HOSTS = ("localhost", "::1", "0.0.0.0")
CONNECT_TIMEOUT = 0.5  # seconds; a local port answers at once or not at all
CREDENTIALS_LIMIT = 1 << 20
_EXPIRES_AT = re.compile(rb'"expiresAt"\s*:\s*"?(\d{9,16})')
QUOTES = "\"'`\u201c\u201d\u2018\u2019"


@dataclass(frozen=True)
class Setting:
    """One value as one program sees it."""

    name: str  # the variable, or `key` in config.toml
    value: str
    where: str  # "the environment", a settings file's env, memtui's config.toml
    users: str  # "Claude Code and memtui", "Claude Code", "memtui"

    @property
    def assignment(self) -> str:
        return f"{self.name} ({self.where}; used by {self.users})"


def memtui_config(ctx: DoctorContext):
    """memtui's client settings (environment first, then config.toml), or the one sentence
    saying why config.toml cannot be used."""
    from tui.agents.client import EngineError, load_config

    try:
        return load_config(ctx.env), None
    except EngineError as error:
        return None, str(error)


def memtui_table(ctx: DoctorContext) -> dict:
    """The `[anthropic]` table of memtui's config.toml ({} when absent or unusable)."""
    from tui.agents.client import EngineError, config_file, read_config_table

    if "config.toml" not in ctx.memo:
        try:
            ctx.memo["config.toml"] = read_config_table(config_file())
        except EngineError:
            ctx.memo["config.toml"] = {}  # `api_key` says why
    return ctx.memo["config.toml"]


def settings_for(ctx: DoctorContext, variable: str, key: str) -> list[Setting]:
    """The values of one setting: Claude Code's, and memtui's when it differs."""
    from tui.agents.client import config_file

    found: list[Setting] = []
    claude = ctx.claude_var(variable)
    shell = ctx.env.get(variable) or None
    if claude:
        shared = claude.file is None
        found.append(Setting(variable, claude.value, claude.where,
                             "Claude Code and memtui" if shared else "Claude Code"))
    mine = memtui_table(ctx).get(key)
    if isinstance(mine, str) and mine and not shell:  # config.toml counts only without the variable
        found.append(Setting(key, mine, f"[anthropic] in {config_file()}", "memtui"))
    elif shell and claude and claude.file is not None:
        found.append(Setting(variable, shell, "the environment", "memtui"))
    return found


def describe_secret(value: str) -> str:
    """What may be said about a key: its length and at most its first four characters."""
    return f"{len(value)} characters, starting {value[:4]!r}"


def _layout_problem(value: str) -> str | None:
    if value != value.strip():
        where = "at the start" if value[:1].isspace() else "at the end"
        kind = "a newline" if "\n" in value or "\r" in value else "a space"
        return f"has {kind} {where}"
    if any(char.isspace() for char in value):
        return "has whitespace inside"
    if value[:1] in QUOTES or value[-1:] in QUOTES:
        return "is wrapped in quotes"
    return None


def set_command(setting: Setting, value: str) -> str:
    """The fix giving a setting `value` where it is set. A URL's password is never printed:
    the fix then cuts the wrong end off the value in place."""
    old = setting.value.strip()
    if url_password(old) and old.startswith(value) and old != value:
        tail = old[len(value):]
        if setting.where == "the environment":
            return f'export {setting.name}="${{{setting.name}%{tail}}}"'
        return f'remove the trailing "{tail}" from {setting.name} ({setting.where})'
    if setting.where == "the environment":
        return f"export {setting.name}={shlex.quote(value)}"
    return f'set {setting.name} to "{value}" ({setting.where})'


def base_url_problem(url: str) -> tuple[str, str] | None:
    """(what is wrong, the corrected URL) for a base URL, or None when it looks right."""
    layout = _layout_problem(url)
    clean = url.strip().strip(QUOTES)
    parts = urlsplit(clean)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return f"is not an http(s) URL{f' and {layout}' if layout else ''}", clean
    fixed = clean.rstrip("/")
    for suffix in ("/v1/messages", "/v1"):
        if fixed.endswith(suffix):
            fixed = fixed.removesuffix(suffix)
            return (f"ends in {suffix}, but the client adds /v1/messages itself, so every "
                    f"request goes to {shown_url(fixed)}/v1{suffix}/… and gets 404"
                    if suffix == "/v1" else f"ends in {suffix}, which the client adds itself"), fixed
    if layout:
        return layout, fixed
    if clean.endswith("/"):
        return "ends in /, so requests go to …//v1/messages, which most endpoints answer 404", fixed
    return None


def check_api_base_url(ctx: DoctorContext) -> Check:
    settings = settings_for(ctx, "ANTHROPIC_BASE_URL", "base_url")
    if not settings:
        return Check("api_base_url", OK,
                     f"ANTHROPIC_BASE_URL is not set: requests go to {DEFAULT_BASE_URL}.")
    problems, fixes, fine = [], [], []
    for setting in settings:
        problem = base_url_problem(setting.value)
        if problem:
            problems.append(f"{setting.assignment} = {shown_url(setting.value)!r} {problem[0]}")
            fixes.append(set_command(setting, problem[1]))
        else:
            fine.append(f"{setting.assignment} = {shown_url(setting.value)}")
    if problems:
        return Check("api_base_url", FAIL, "; ".join(problems) + ".", "; ".join(fixes))
    return Check("api_base_url", OK, "; ".join(fine) + ": no trailing / or /v1.")


def check_api_key(ctx: DoctorContext) -> Check:
    keys = settings_for(ctx, "ANTHROPIC_API_KEY", "api_key")
    tokens = settings_for(ctx, "ANTHROPIC_AUTH_TOKEN", "auth_token")
    _, config_error = memtui_config(ctx)
    problems, fixes, seen = [], [], []
    for setting in keys + tokens:
        problem = _layout_problem(setting.value)
        text = f"{setting.assignment} ({describe_secret(setting.value)})"
        if problem:
            problems.append(f"{text} {problem}: the API rejects it (401)")
            fixes.append(f"set {setting.name} again without the "
                         f"{'quotes' if 'quotes' in problem else 'whitespace'}")
        else:
            seen.append(text)
    both = [who for who in ("Claude Code", "memtui")
            if any(who in s.users for s in keys) and any(who in s.users for s in tokens)]
    if config_error:
        problems.append(config_error.removesuffix("."))  # the problems end in one period
        fixes.append("repair or remove memtui's config.toml")
    if problems:
        return Check("api_key", FAIL, "; ".join(problems) + ".", "; ".join(fixes))
    if both:
        return Check("api_key", WARN,
                     f"Both ANTHROPIC_API_KEY and ANTHROPIC_AUTH_TOKEN are set for "
                     f"{' and '.join(both)} ({'; '.join(seen)}): the key is sent as x-api-key, "
                     "the token as a bearer token, and which one the endpoint honours is "
                     "up to it.",
                     "unset the one your endpoint does not expect (ANTHROPIC_AUTH_TOKEN for "
                     "api.anthropic.com)")
    if not seen:
        # Not a fault: dream and extract work without a key. Say what one would add.
        return Check("api_key", OK,
                     "No ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN is set (Claude Code can still "
                     "use its /login), so memtui's dream and extract run their offline engine: "
                     "the dream archives provable duplicates, makes relative dates absolute, "
                     "updates renamed paths and fits the index; extraction keeps the rules you "
                     "typed. A key adds a model: merging memories that say the same thing in "
                     "other words, distilling assistant-mode daily logs, and extracting what a "
                     "session taught beyond the rules typed in it (export ANTHROPIC_API_KEY=<your "
                     "key>).")
    return Check("api_key", OK, "; ".join(seen) + ": no whitespace or quotes.")


def check_api_model(ctx: DoctorContext) -> Check:
    from tui.agents.client import DEFAULT_MODEL

    models = settings_for(ctx, "ANTHROPIC_MODEL", "model")
    problems = [(s, _layout_problem(s.value)) for s in models]
    bad = [(s, p) for s, p in problems if p]
    if bad:
        return Check("api_model", FAIL,
                     "; ".join(f"{s.assignment} = {s.value!r} {p}" for s, p in bad)
                     + ": no endpoint serves a model by that name.",
                     "; ".join(set_command(s, s.value.strip().strip(QUOTES)) for s, _ in bad))
    if models:
        return Check("api_model", OK, "; ".join(f"{s.assignment} = {s.value}" for s in models)
                     + " (`memtui doctor --online` asks the endpoint whether it serves it).")
    custom = settings_for(ctx, "ANTHROPIC_BASE_URL", "base_url")
    if custom:
        return Check("api_model", WARN,
                     f"ANTHROPIC_MODEL is not set, but requests go to "
                     f"{shown_url(custom[0].value.strip())}: "
                     f"memtui asks it for {DEFAULT_MODEL} and Claude Code for its own default, "
                     "names a gateway or proxy often does not serve.",
                     "export ANTHROPIC_MODEL=<a model id your endpoint serves>")
    return Check("api_model", OK,
                 f"ANTHROPIC_MODEL is not set: Claude Code uses its default model and memtui "
                 f"uses {DEFAULT_MODEL}.")


def _is_local(host: str) -> bool:
    return host in LOCAL_HOSTS or host.startswith("127.")


def port_open(host: str, port: int) -> bool:
    """Does anything accept a connection on this local port?"""
    try:
        with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT):
            return True
    except OSError:
        return False


def shown_url(url: str) -> str:
    """A URL as the doctor prints it: a password in it written `***`."""
    scheme, separator, rest = url.partition("://")
    if not separator:
        scheme, rest = "", url
    authority, slash, path = rest.partition("/")
    userinfo, at, host = authority.rpartition("@")
    if not at or ":" not in userinfo:
        return url
    user = userinfo.split(":", 1)[0]
    return f"{scheme}{separator}{user}:***@{host}{slash}{path}"


def url_password(url: str) -> str | None:
    """The password a URL carries, if any."""
    authority = url.partition("://")[2] or url
    userinfo, at, _ = authority.partition("/")[0].rpartition("@")
    return userinfo.split(":", 1)[1] if at and ":" in userinfo else None


def check_proxy(ctx: DoctorContext) -> Check:
    results: list[tuple[str, str, str | None]] = []  # (status, text, fix)
    for name in PROXY_VARIABLES:
        found = ctx.claude_var(name)
        if not found:
            continue
        value, source, shown = found.value, found.where, shown_url(found.value)
        try:
            parts = urlsplit(value.strip() if "://" in value else f"http://{value.strip()}")
            host, port = parts.hostname, parts.port
        except ValueError:
            host = port = None
        unset = ctx.unset_everywhere(name)
        if not host:
            results.append((WARN, f"{name}={shown!r} ({source}) is not a proxy URL", unset))
            continue
        port = port or (443 if parts.scheme == "https" else 1080 if "socks" in parts.scheme
                        else 80)
        if not _is_local(host):
            results.append((OK, f"{name}={shown} ({source}) points at {host}:{port}, not checked "
                                "offline", None))
        elif port_open("127.0.0.1" if host in ("localhost", "0.0.0.0") else host, port):
            results.append((OK, f"{name}={shown} ({source}): something listens on "
                                f"{host}:{port}", None))
        else:
            results.append((FAIL, f"{name}={shown} ({source}) points at {host}:{port}, where "
                                  "nothing listens: every API call fails (\"local proxy "
                                  "failed\", connection refused)",
                            f"start the proxy on port {port}, or {unset}"))
    if not results:
        return Check("proxy", OK, "No HTTPS_PROXY, HTTP_PROXY or ALL_PROXY is set.")
    status = worst(s for s, _, _ in results)
    fixes = [fix for s, _, fix in results if fix and s != OK]
    return Check("proxy", status, "; ".join(text for _, text, _ in results) + ".",
                 "; ".join(fixes) or None)


def oauth_expiry(path) -> float | None:
    """The OAuth login's expiry (seconds), read by a byte search for its one field: the
    file's tokens are never decoded, kept or shown."""
    data = read_regular(path, CREDENTIALS_LIMIT)
    match = _EXPIRES_AT.search(data)
    if match is None:
        return None
    stamp = int(match.group(1))
    return stamp / 1000 if stamp > 10**11 else float(stamp)  # milliseconds, as Claude Code writes


def _stamp(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M UTC")


def check_oauth(ctx: DoctorContext) -> Check:
    path = ctx.home / ".credentials.json"
    try:
        expiry = oauth_expiry(path)
    except FileNotFoundError:
        where = " (on macOS Claude Code keeps it in the Keychain)" if sys.platform == "darwin" else ""
        return Check("oauth", SKIP if where else OK, f"No OAuth login on disk at {path}{where}.")
    except OSError as error:
        return Check("oauth", SKIP, f"{path} cannot be read ({error.strerror or error}).")
    if expiry is None:
        return Check("oauth", OK, f"{path} holds no OAuth login expiry (expiresAt).")
    keys = [name for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN") if ctx.claude_var(name)]
    if expiry > ctx.now:
        return Check("oauth", OK, f"The OAuth login in {path} is valid until {_stamp(expiry)}.")
    if keys:
        return Check("oauth", WARN,
                     f"The OAuth login in {path} expired at {_stamp(expiry)} while {keys[0]} is "
                     "set: Claude Code may keep using the expired login instead of the key, and "
                     "its requests fail with 401.",
                     "run `claude /login` again, or `claude /logout` to use the key")
    return Check("oauth", OK,
                 f"The OAuth login in {path} expired at {_stamp(expiry)}; Claude Code renews it "
                 "at its next start (or run `claude /login`).")
