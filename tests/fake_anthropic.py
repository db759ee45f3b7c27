"""A scripted fake of the Anthropic Messages API for tests (stdlib only, 127.0.0.1).

Each test queues replies; each POST /v1/messages takes the next one. A reply is a status
plus a JSON error body, or a message (text and tool_use blocks) sent as JSON or, when the
request asks for it, as server-sent events.
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def text(value: str) -> dict:
    return {"type": "text", "text": value}


def tool(name: str, **arguments) -> dict:
    return {"type": "tool_use", "name": name, "input": arguments}


@dataclass
class Scripted:
    blocks: list[dict] = field(default_factory=list)
    status: int = 200
    error_type: str = "api_error"
    delay: float = 0.0  # seconds to wait before answering
    stream_delay: float = 0.0  # seconds between the pieces of a streamed reply
    usage: tuple[int, int] | None = None  # (input, output) tokens; else small made-up counts
    message: str = "scripted failure"  # the error's message, for a failure


def reply(*blocks: dict) -> Scripted:
    return Scripted(list(blocks))


def failure(status: int, error_type: str = "api_error",
            message: str = "scripted failure") -> Scripted:
    return Scripted(status=status, error_type=error_type, message=message)


class FakeAnthropic:
    """`accepts`: "any" credential header, or only "x-api-key" or only "bearer" (a gateway
    that takes one kind); each request records both headers as sent."""

    def __init__(self, api_key: str = "test-key", port: int = 0, accepts: str = "any"):
        self.api_key = api_key
        self.accepts = accepts
        self.script: list[Scripted] = []
        # {"path", "body", "auth" (the credential the fake took), "x_api_key", "authorization"}
        self.requests: list[dict] = []
        self.on_request = None  # called with the request number before answering
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                try:
                    self._answer()
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

            def _answer(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                x_api_key = self.headers.get("x-api-key")
                authorization = self.headers.get("authorization")
                bearer = (authorization or "").removeprefix("Bearer ").strip()
                auth = {"x-api-key": x_api_key, "bearer": bearer}.get(fake.accepts,
                                                                      x_api_key or bearer)
                fake.requests.append({"path": self.path, "body": body, "auth": auth,
                                      "x_api_key": x_api_key, "authorization": authorization})
                if fake.on_request is not None:
                    fake.on_request(len(fake.requests))
                if self.path != "/v1/messages":
                    return self._error(404, "not_found_error", f"no route {self.path}")
                if auth != fake.api_key:
                    return self._error(401, "authentication_error", "invalid x-api-key")
                if not fake.script:
                    return self._error(500, "api_error", "the test script ran out")
                step = fake.script.pop(0)
                if step.delay:
                    time.sleep(step.delay)
                if step.status != 200:
                    return self._error(step.status, step.error_type, step.message)
                message = _message(step.blocks, len(fake.requests), body.get("model", "m"),
                                   step.usage)
                if body.get("stream"):
                    self._stream(message, step.stream_delay)
                else:
                    self._json(200, message)

            def _error(self, status: int, kind: str, message: str) -> None:
                self._json(status, {"type": "error", "error": {"type": kind, "message": message}})

            def _json(self, status: int, data: dict) -> None:
                raw = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def _stream(self, message: dict, pause: float) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.end_headers()
                start = dict(message, content=[], stop_reason=None,
                             usage={"input_tokens": message["usage"]["input_tokens"],
                                    "output_tokens": 0})
                self._event("message_start", {"type": "message_start", "message": start})
                for index, block in enumerate(message["content"]):
                    if block["type"] == "text":  # in word-sized pieces, as the API streams
                        empty = dict(block, text="")
                        deltas = [{"type": "text_delta", "text": piece}
                                  for piece in re.findall(r"\S+\s*|\s+", block["text"])]
                    else:
                        empty = dict(block, input={})
                        deltas = [{"type": "input_json_delta",
                                   "partial_json": json.dumps(block["input"])}]
                    self._event("content_block_start", {"type": "content_block_start",
                                                        "index": index, "content_block": empty})
                    for delta in deltas:
                        time.sleep(pause)
                        self._event("content_block_delta", {"type": "content_block_delta",
                                                            "index": index, "delta": delta})
                    self._event("content_block_stop", {"type": "content_block_stop",
                                                       "index": index})
                self._event("message_delta", {
                    "type": "message_delta",
                    "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                    "usage": {"output_tokens": message["usage"]["output_tokens"]}})
                self._event("message_stop", {"type": "message_stop"})

            def _event(self, name: str, data: dict) -> None:
                self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
                self.wfile.flush()

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def queue(self, *steps: Scripted) -> None:
        self.script.extend(steps)

    def __enter__(self) -> FakeAnthropic:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def _message(blocks: list[dict], number: int, model: str,
             usage: tuple[int, int] | None = None) -> dict:
    content = []
    for position, block in enumerate(blocks):
        if block["type"] == "tool_use":
            block = dict(block, id=f"toolu_{number}_{position}")
        content.append(block)
    uses_tools = any(b["type"] == "tool_use" for b in content)
    return {
        "id": f"msg_{number}", "type": "message", "role": "assistant", "model": model,
        "content": content, "stop_reason": "tool_use" if uses_tools else "end_turn",
        "stop_sequence": None, "usage": {"input_tokens": usage[0] if usage else 100 + number,
                                         "output_tokens": usage[1] if usage else 10},
    }
