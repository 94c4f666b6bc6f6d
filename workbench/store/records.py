"""What the trace store hands back: runs, events, kernels, search hits, verification.

Plain frozen dataclasses so that callers (agent loop, CLI, TUI, reports) never see
SQLite rows. JSON columns arrive decoded.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

EventType = Literal["message", "reasoning", "tool_call", "tool_result", "kernel",
                    "evaluation", "note", "error"]
RunStatus = Literal["running", "succeeded", "failed", "interrupted", "error"]

EVENT_TYPES: tuple[str, ...] = ("message", "reasoning", "tool_call", "tool_result",
                                "kernel", "evaluation", "note", "error")
RUN_STATUSES: tuple[str, ...] = ("running", "succeeded", "failed", "interrupted", "error")
FINAL_STATUSES: tuple[str, ...] = tuple(s for s in RUN_STATUSES if s != "running")


@dataclass(frozen=True)
class Run:
    """One agent run: what was asked, by whom, how it ended, and its running totals."""

    id: int
    accelerator: str
    task: str
    config: str
    agent: str
    model: str | None
    settings: dict[str, Any]
    versions: dict[str, Any]
    started_at: str
    ended_at: str | None
    status: RunStatus
    scores: dict[str, Any] | None
    steps: int
    tokens_in: int
    tokens_out: int
    tokens_reasoning: int
    cost: float
    event_count: int
    head_hash: str | None
    writer_pid: int | None
    writer_host: str | None
    last_event_at: str | None

    @property
    def finished(self) -> bool:
        return self.status != "running"

    @property
    def cost_text(self) -> str:
        """The run's cost as every view shows it: `$0.0464`, `$0` for none."""
        return f"${self.cost:.4f}" if self.cost else "$0"


@dataclass(frozen=True)
class Event:
    """One event of a run, in order (`seq` 0, 1, 2, ...), hash-chained to the one before."""

    run_id: int
    seq: int
    ts: str
    type: EventType
    role: str | None
    step: int | None
    payload: Any
    text: str
    tokens_in: int
    tokens_out: int
    tokens_reasoning: int
    cost: float
    kernel_hash: str | None
    prev_hash: str
    hash: str


@dataclass(frozen=True)
class Kernel:
    """A kernel source, stored once under the sha256 of its UTF-8 bytes."""

    hash: str
    source: str
    first_seen: str


@dataclass(frozen=True)
class SearchHit:
    """Where a full-text query matched: an event's text, or a kernel an event carries."""

    run_id: int
    seq: int
    kind: Literal["event", "kernel"]
    event_type: EventType
    snippet: str
    kernel_hash: str | None
    rank: float


@dataclass(frozen=True)
class Verification:
    """Result of checking a run's hash chain, totals, seal and kernels.

    `broken_at` is the first seq whose event is missing, edited or out of place, or the
    seq just past the last event when events were lost from the end; it is None when
    the events are intact and the problem is in the run's totals or seal."""

    run_id: int
    ok: bool
    events_checked: int
    broken_at: int | None = None
    problem: str | None = None
    sealed: bool = False

    def __bool__(self) -> bool:
        return self.ok
