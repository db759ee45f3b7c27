"""`api_probe` (`--online` only): one minimal Messages API call, and what its answer means.

The call asks for one token, with memtui's settings (the environment, then config.toml),
through whatever proxy the environment names. The answer is told apart: success, a
rejected key (401), a wrong path (404, with the /v1 hint), a model the endpoint does not
serve, an OpenAI-format reply, a refused connection or proxy, a timeout.
"""

from __future__ import annotations

import os
import time

from tui.doctor.access_checks import DEFAULT_BASE_URL, PROXY_VARIABLES, memtui_config
from tui.doctor.context import DoctorContext
from tui.doctor.report import FAIL, OK, SKIP, Check

PROBE_TIMEOUT = 20.0


def _error_text(error) -> str:
    body = getattr(error, "body", None)
    inner = body.get("error") if isinstance(body, dict) else None
    if isinstance(inner, dict) and isinstance(inner.get("message"), str):
        return inner["message"]
    return ""


def check_api_probe(ctx: DoctorContext) -> Check:
    config, problem = memtui_config(ctx)
    if config is None:
        return Check("api_probe", SKIP, f"Not probed: {problem}", "repair memtui's config.toml")
    if not config.has_credentials:
        return Check("api_probe", SKIP, "Not probed: there is no ANTHROPIC_API_KEY or "
                     "ANTHROPIC_AUTH_TOKEN to call the API with.",
                     "export ANTHROPIC_API_KEY=<your key>")
    import anthropic

    base = config.base_url or DEFAULT_BASE_URL
    client = anthropic.Anthropic(
        api_key=config.api_key, auth_token=None if config.api_key else config.auth_token,
        base_url=config.base_url, timeout=PROBE_TIMEOUT, max_retries=0)
    started = time.monotonic()
    try:
        response = client.messages.with_raw_response.create(
            model=config.model, max_tokens=1, messages=[{"role": "user", "content": "ping"}])
        data = response.json()
    except anthropic.APIStatusError as error:
        return _status_failure(error, base, config.model)
    except anthropic.APITimeoutError:
        return Check("api_probe", FAIL, f"{base} did not answer within {PROBE_TIMEOUT:g} s.",
                     "check ANTHROPIC_BASE_URL and your network or proxy")
    except anthropic.APIConnectionError:
        return _connection_failure(ctx, base)
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
                     f"{base} answered a one-token request for {config.model} in "
                     f"{elapsed:.0f} ms (model {data.get('model', '?')!s}).")
    keys = ", ".join(sorted(data)[:6]) if isinstance(data, dict) else type(data).__name__
    return Check("api_probe", FAIL,
                 f"{base} answered 200 but not with a Messages API reply (it holds: {keys}).",
                 "check that ANTHROPIC_BASE_URL is an Anthropic Messages API endpoint")


def _status_failure(error, base: str, model: str) -> Check:
    status = getattr(error, "status_code", 0)
    detail = _error_text(error)
    trimmed = base.rstrip("/")
    if status == 401:
        return Check("api_probe", FAIL, f"{base} rejected the key (401).",
                     "check ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN (see api_key), or run "
                     "`claude /login`")
    if status == 403:
        return Check("api_probe", FAIL, f"{base} refused the key access to {model} (403).",
                     "use a key that may call this model, or another ANTHROPIC_MODEL")
    if status in (400, 404) and "model" in detail.lower():
        return Check("api_probe", FAIL,
                     f"{base} does not serve model {model!r} ({status}: {detail.rstrip('.')}).",
                     "export ANTHROPIC_MODEL=<a model id your endpoint serves>")
    if status == 404:
        if trimmed.endswith("/v1"):
            return Check("api_probe", FAIL,
                         f"{base} answered 404: the base URL ends in /v1 and the client adds "
                         "/v1/messages itself.",
                         f"export ANTHROPIC_BASE_URL={trimmed.removesuffix('/v1')}")
        return Check("api_probe", FAIL,
                     f"{base} answered 404 for /v1/messages: no Messages API there.",
                     "check ANTHROPIC_BASE_URL (scheme, host and path prefix, no trailing /)")
    said = f": {detail.rstrip('.')}" if detail else ""
    return Check("api_probe", FAIL, f"{base} answered {status}{said}.",
                 "try again later" if status in (429, 500, 502, 503, 529)
                 else "check ANTHROPIC_BASE_URL and ANTHROPIC_MODEL")


def _connection_failure(ctx: DoctorContext, base: str) -> Check:
    proxies = [(name, os.environ[name]) for name in PROXY_VARIABLES if os.environ.get(name)]
    if proxies:
        name, value = proxies[0]
        return Check("api_probe", FAIL,
                     f"Could not reach {base} through the proxy {name}={value} (connection "
                     "refused or failed: \"local proxy failed\").",
                     f"start the proxy, or unset {name}")
    return Check("api_probe", FAIL, f"Could not connect to {base} (refused, no route or DNS).",
                 "check ANTHROPIC_BASE_URL and your network")
