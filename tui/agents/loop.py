"""The tool loop: ask the model, run the tools it calls in the sandbox, repeat."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from tui.agents.client import ClientConfig, ModelClient
from tui.agents.events import Progress, RunCancelled
from tui.agents.staging import Toolbox, ToolResult

ExtraTool = tuple[dict, Callable[[dict], ToolResult]]  # (definition, handler)


@dataclass(frozen=True)
class LoopOutcome:
    turns: int
    finished: bool  # the model stopped calling tools before the budget ran out
    last_text: str


def client_for(engine: str, config: ClientConfig | None, progress: Progress,
               cancel: threading.Event) -> ModelClient | None:
    """The model client of a run (None for the offline engine), reporting retries and
    streamed text through `progress`. Raises EngineError when it cannot be set up."""
    if engine != "anthropic":
        return None
    return ModelClient(config or ClientConfig(), cancel=cancel,
                       on_retry=lambda text: progress.say("retry", text), on_text=progress.stream)


def add_user(messages: list[dict], blocks: list[dict]) -> None:
    """Append user content, merged into the previous user message (roles must alternate)."""
    if messages and messages[-1]["role"] == "user":
        messages[-1]["content"].extend(blocks)
    else:
        messages.append({"role": "user", "content": list(blocks)})


def without_lone_surrogates(value):
    """`value` with every lone surrogate in its strings replaced by U+FFFD: such a reply
    can be decoded from JSON but not sent back, and would end the conversation."""
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    if isinstance(value, list):
        return [without_lone_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {key: without_lone_surrogates(item) for key, item in value.items()}
    return value


def check(cancel: threading.Event) -> None:
    if cancel.is_set():
        raise RunCancelled()


def run_turns(client: ModelClient, system: str, messages: list[dict], toolbox: Toolbox,
              progress: Progress, cancel: threading.Event, max_turns: int,
              extra: dict[str, ExtraTool] | None = None) -> LoopOutcome:
    extra = extra or {}
    tools = toolbox.definitions() + [definition for definition, _ in extra.values()]
    text = ""
    for turn in range(1, max_turns + 1):
        check(cancel)
        reply = client.create(system, messages, tools)
        progress.add_usage(reply.tokens_in, reply.tokens_out)
        messages.append({"role": "assistant", "content": without_lone_surrogates(list(reply.content))})
        if reply.text.strip():
            text = reply.text.strip()
            progress.say("model", text)
        uses = reply.tool_uses
        if not uses:
            return LoopOutcome(turn, True, text)
        results = []
        for use in uses:
            check(cancel)
            progress.add_tool_call()
            name, arguments = use.get("name", ""), use.get("input") or {}
            if name in extra:
                progress.say("tool", f"{name}")
                result = extra[name][1](arguments)
            else:
                result = toolbox.call(name, arguments)
            block = {"type": "tool_result", "tool_use_id": use.get("id"), "content": result.text}
            if result.is_error:
                block["is_error"] = True
            results.append(block)
        add_user(messages, results)
    return LoopOutcome(max_turns, False, text)
