"""What a run reports while it works: plain values a UI or the CLI renders."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

PENDING, RUNNING, DONE, FAILED, CANCELLED = "pending", "running", "done", "failed", "cancelled"


@dataclass(frozen=True)
class Phase:
    name: str
    status: str = PENDING
    elapsed: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    tool_calls: int = 0
    note: str = ""

    def to_json(self) -> dict:
        return {
            "name": self.name, "status": self.status, "elapsed": round(self.elapsed, 3),
            "tokens_in": self.tokens_in, "tokens_out": self.tokens_out,
            "tool_calls": self.tool_calls, "note": self.note or None,
        }


@dataclass(frozen=True)
class PhaseChanged:
    phase: Phase


@dataclass(frozen=True)
class LogLine:
    phase: str
    kind: str  # "info", "tool", "model", "refused", "retry", "error"
    text: str


@dataclass(frozen=True)
class ModelText:
    """A piece of the model's reply as it streams in; the whole reply follows as a LogLine."""

    phase: str
    text: str


Event = PhaseChanged | LogLine | ModelText
Listener = Callable[[Event], None]


class RunCancelled(Exception):
    """The user cancelled; raised between steps."""


@dataclass
class Progress:
    """The mutable side of a run: phases advance here and every change becomes an event."""

    names: tuple[str, ...]
    listener: Listener | None = None
    phases: dict[str, Phase] = field(default_factory=dict)
    log: list[LogLine] = field(default_factory=list)
    current: str = ""
    _started: float = 0.0

    def __post_init__(self) -> None:
        self.phases = {name: Phase(name) for name in self.names}

    def _emit(self, event: Event) -> None:
        if self.listener is not None:
            self.listener(event)

    def _set(self, **changes) -> None:
        phase = replace(self.phases[self.current], **changes)
        self.phases[self.current] = phase
        self._emit(PhaseChanged(phase))

    def start(self, name: str) -> None:
        self.current = name
        self._started = time.monotonic()
        self._set(status=RUNNING)

    def finish(self, status: str = DONE, note: str = "") -> None:
        phase = self.phases[self.current]
        self._set(status=status, elapsed=time.monotonic() - self._started,
                  note=note or phase.note)

    def add_usage(self, tokens_in: int, tokens_out: int) -> None:
        phase = self.phases[self.current]
        self._set(tokens_in=phase.tokens_in + tokens_in, tokens_out=phase.tokens_out + tokens_out,
                  elapsed=time.monotonic() - self._started)

    def add_tool_call(self) -> None:
        phase = self.phases[self.current]
        self._set(tool_calls=phase.tool_calls + 1, elapsed=time.monotonic() - self._started)

    def say(self, kind: str, text: str) -> None:
        line = LogLine(self.current, kind, text)
        self.log.append(line)
        self._emit(line)

    def stream(self, text: str) -> None:
        self._emit(ModelText(self.current, text))

    def fail_running(self, status: str) -> None:
        """Mark the running phase failed or cancelled; later phases stay pending."""
        if self.current and self.phases[self.current].status == RUNNING:
            self.finish(status)

    @property
    def tokens(self) -> tuple[int, int]:
        return (sum(p.tokens_in for p in self.phases.values()),
                sum(p.tokens_out for p in self.phases.values()))

    def snapshot(self) -> tuple[Phase, ...]:
        return tuple(self.phases[name] for name in self.names)
