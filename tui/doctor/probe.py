"""`api_probe` (`--online` only): one minimal Messages API call, and what its answer means.

The call asks for one token exactly as Claude Code would send it: the base URL, key, token,
model, custom headers and proxy Claude Code uses (the environment, with the `env` blocks of
its settings files applied over it), the key as `x-api-key` and the token as a bearer
token. The answer is told apart: success, a rejected key (401), a wrong path (404, with the
/v1 hint), a model the endpoint does not serve, an OpenAI-format reply, a refused connection
or proxy, a timeout.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from urllib.parse import urlsplit
from urllib.request import proxy_bypass_environment

from tui.doctor.access_checks import DEFAULT_BASE_URL, Setting, set_command, shown_url
from tui.doctor.context import DoctorContext, EnvValue
from tui.doctor.report import FAIL, OK, SKIP, Check

PROBE_TIMEOUT = 20.0


@dataclass(frozen=True)
class ClaudeAccess:
    """What Claude Code sends its requests with, each value with where it comes from."""

    base_url: EnvValue | None
    api_key: EnvValue | None
    auth_token: EnvValue | None
    model: str
    model_from: str  # where the model comes from, for the message
    headers: dict[str, str]  # ANTHROPIC_CUSTOM_HEADERS

    @property
    def base(self) -> str:
        return self.base_url.value.strip() if self.base_url else DEFAULT_BASE_URL


def claude_access(ctx: DoctorContext) -> ClaudeAccess:
    from tui.agents.client import DEFAULT_MODEL

    base_url = ctx.claude_var("ANTHROPIC_BASE_URL")
    model = ctx.claude_var("ANTHROPIC_MODEL")
    setting = ctx.setting("model")
    if model:
        name, model_from = model.value.strip(), f"ANTHROPIC_MODEL ({model.where})"
    elif setting is not None and isinstance(setting[0], str) and setting[0].strip():
        name, model_from = setting[0].strip(), f'"model" in {setting[1].path}'
    else:
        name, model_from = DEFAULT_MODEL, "memtui's default: Claude Code picks its own"
    custom = ctx.claude_var("ANTHROPIC_CUSTOM_HEADERS")
    headers = {}
    for line in (custom.value.splitlines() if custom else ()):
        header, colon, value = line.partition(":")
        if colon and header.strip():
            headers[header.strip()] = value.strip()
    return ClaudeAccess(base_url, ctx.claude_var("ANTHROPIC_API_KEY"),
                        ctx.claude_var("ANTHROPIC_AUTH_TOKEN"), name, model_from, headers)


def proxy_for(ctx: DoctorContext, url: str) -> tuple[str, EnvValue] | None:
    """(variable, value) of the proxy a request to `url` goes through, as the environment
    picks it (NO_PROXY honoured), from Claude Code's environment."""
    parts = urlsplit(url)
    names = ("HTTPS_PROXY", "https_proxy") if parts.scheme == "https" else (
        "HTTP_PROXY", "http_proxy")
    bypass = ctx.claude_var("NO_PROXY") or ctx.claude_var("no_proxy")
    if bypass and parts.hostname and proxy_bypass_environment(
            parts.hostname, {"no": bypass.value}):
        return None
    for name in (*names, "ALL_PROXY", "all_proxy"):
        found = ctx.claude_var(name)
        if found:
            return name, found
    return None


def _error_text(error) -> str:
    body = getattr(error, "body", None)
    inner = body.get("error") if isinstance(body, dict) else None
    if isinstance(inner, dict) and isinstance(inner.get("message"), str):
        return inner["message"]
    return ""


def check_api_probe(ctx: DoctorContext) -> Check:
    access = claude_access(ctx)
    if not (access.api_key or access.auth_token):
        return Check("api_probe", SKIP, "Not probed: Claude Code has no ANTHROPIC_API_KEY or "
                     "ANTHROPIC_AUTH_TOKEN to call the API with (its /login is not probed).",
                     "export ANTHROPIC_API_KEY=<your key>")
    import anthropic

    from tui.agents.client import sdk_client

    base = shown_url(access.base)
    proxy = proxy_for(ctx, access.base)
    client = sdk_client(access.api_key.value if access.api_key else None,
                        access.auth_token.value if access.auth_token else None, access.base,
                        timeout=PROBE_TIMEOUT, headers=access.headers,
                        http_client=anthropic.DefaultHttpxClient(
                            proxy=proxy[1].value.strip() if proxy else None, trust_env=False))
    started = time.monotonic()
    try:
        response = client.messages.with_raw_response.create(
            model=access.model, max_tokens=1, messages=[{"role": "user", "content": "ping"}])
        data = response.json()
    except anthropic.APIStatusError as error:
        return _status_failure(error, access)
    except anthropic.APITimeoutError:
        return Check("api_probe", FAIL, f"{base} did not answer within {PROBE_TIMEOUT:g} s.",
                     "check ANTHROPIC_BASE_URL and your network or proxy")
    except anthropic.APIConnectionError:
        return _connection_failure(ctx, base, proxy)
    except ValueError:
        return Check("api_probe", FAIL, f"{base} answered with something that is not JSON: "
                     "it is not a Messages API endpoint.", "check ANTHROPIC_BASE_URL")
    finally:
        client.close()
    elapsed = (time.monotonic() - started) * 1000
    if isinstance(data, dict) and "choices" in data:
        return Check("api_probe", FAIL,
                     f"{base} answered in OpenAI format (`choices` instead of `content`): "
                     "Claude Code and memtui speak the Anthropic Messages API.",
                     "point ANTHROPIC_BASE_URL at the endpoint's Anthropic (Messages API) route, "
                     "or at a gateway that translates")
    if isinstance(data, dict) and data.get("type") == "message" and isinstance(
            data.get("content"), list):
        return Check("api_probe", OK,
                     f"{base} answered a one-token request for {access.model} "
                     f"({access.model_from}) in {elapsed:.0f} ms (model "
                     f"{data.get('model', '?')!s}), {_sent(access)}.")
    keys = ", ".join(sorted(data)[:6]) if isinstance(data, dict) else type(data).__name__
    return Check("api_probe", FAIL,
                 f"{base} answered 200 but not with a Messages API reply (it holds: {keys}).",
                 "check that ANTHROPIC_BASE_URL is an Anthropic Messages API endpoint")


def _sent(access: ClaudeAccess) -> str:
    """Which credentials went, and from where (never their values)."""
    sent = [f"ANTHROPIC_API_KEY as x-api-key ({access.api_key.where})" if access.api_key else "",
            f"ANTHROPIC_AUTH_TOKEN as a bearer token ({access.auth_token.where})"
            if access.auth_token else ""]
    return "sending " + " and ".join(part for part in sent if part)


def _status_failure(error, access: ClaudeAccess) -> Check:
    status = getattr(error, "status_code", 0)
    detail = _error_text(error)
    base, model = shown_url(access.base), access.model
    trimmed = access.base.rstrip("/")
    if status == 401:
        return Check("api_probe", FAIL, f"{base} rejected the key (401), {_sent(access)}.",
                     "check ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN (see api_key), or run "
                     "`claude /login`")
    if status == 403:
        return Check("api_probe", FAIL, f"{base} refused the key access to {model} (403).",
                     "use a key that may call this model, or another ANTHROPIC_MODEL")
    if status in (400, 404) and "model" in detail.lower():
        return Check("api_probe", FAIL,
                     f"{base} does not serve model {model!r} ({access.model_from}; "
                     f"{status}: {detail.rstrip('.')}).",
                     "export ANTHROPIC_MODEL=<a model id your endpoint serves>")
    if status == 404:
        if trimmed.endswith("/v1") and access.base_url:
            setting = Setting("ANTHROPIC_BASE_URL", access.base_url.value,
                              access.base_url.where, "Claude Code")
            return Check("api_probe", FAIL,
                         f"{base} answered 404: the base URL ends in /v1 and the client adds "
                         "/v1/messages itself.",
                         set_command(setting, trimmed.removesuffix("/v1")))
        return Check("api_probe", FAIL,
                     f"{base} answered 404 for /v1/messages: no Messages API there.",
                     "check ANTHROPIC_BASE_URL (scheme, host and path prefix, no trailing /)")
    said = f": {detail.rstrip('.')}" if detail else ""
    return Check("api_probe", FAIL, f"{base} answered {status}{said}.",
                 "try again later" if status in (429, 500, 502, 503, 529)
                 else "check ANTHROPIC_BASE_URL and ANTHROPIC_MODEL")


def _connection_failure(ctx: DoctorContext, base: str,
                        proxy: tuple[str, EnvValue] | None) -> Check:
    if proxy:
        name, found = proxy
        return Check("api_probe", FAIL,
                     f"Could not reach {base} through the proxy {name}={shown_url(found.value)} "
                     f"({found.where}; connection refused or failed: \"local proxy failed\").",
                     f"start the proxy, or {ctx.unset_everywhere(name)}")
    return Check("api_probe", FAIL, f"Could not connect to {base} (refused, no route or DNS).",
                 "check ANTHROPIC_BASE_URL and your network")
