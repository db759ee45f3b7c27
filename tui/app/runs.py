"""The app's side of runs: which engine, how a dream of an open store starts, what it costs.

The run itself is the core's (`tui.agents.dream.run_dream`); this only wires the
store screen's project into it, the way `memtui dream` does for a target.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

# US dollars per million tokens (input, output), by model family; list prices.
PRICES = {"opus": (15.0, 75.0), "sonnet": (3.0, 15.0), "haiku": (1.0, 5.0)}


@dataclass(frozen=True)
class Engine:
    name: str  # "anthropic" or "offline"
    config: object  # the core's ClientConfig
    model: str | None  # None for the offline engine

    def describe(self) -> str:
        if self.model is None:
            return "offline engine (deterministic, no network, no API key configured)"
        return f"anthropic engine, model {self.model}"


def pick_engine(env: Mapping[str, str]) -> Engine | str:
    """The engine a run uses (anthropic when a key is configured), or why none can run."""
    from tui.agents.client import EngineError, load_config

    try:
        config = load_config(env)
    except EngineError as error:
        return str(error)
    if config.has_credentials:
        return Engine("anthropic", config, config.model)
    return Engine("offline", config, None)


def estimated_cost(model: str, tokens_in: int, tokens_out: int) -> float | None:
    """Dollars at list prices, or None when the model's family is unknown."""
    family = next((name for name in PRICES if name in model.lower()), None)
    if family is None:
        return None
    price_in, price_out = PRICES[family]
    return (tokens_in * price_in + tokens_out * price_out) / 1_000_000


Starter = Callable[[Callable, threading.Event], object]  # (listener, cancel) -> RunResult


def dream_starter(project, home: Path, engine: Engine) -> Starter:
    from tui.agents.dream import cwd_transcript_folder, run_dream

    def start(listener, cancel: threading.Event):
        return run_dream(project.store, engine=engine.name, config=engine.config,
                         transcript_dirs=project.transcript_dirs,
                         cwd_folder=cwd_transcript_folder(home, project.key_path),
                         listener=listener, cancel=cancel)

    return start
