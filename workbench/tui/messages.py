"""Messages widgets and screens send each other (handled with `@on`)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from textual.message import Message


@dataclass
class OpenRun(Message):
    """Show run `run_id`; at the step holding event `seq` if given."""

    run_id: int
    seq: int | None = None


@dataclass
class StepChosen(Message):
    """The timeline's highlighted step changed (index into RunTrace.steps)."""

    index: int


@dataclass
class SourceLineChosen(Message):
    """The debugger's source cursor moved to `line` (1-based)."""

    line: int


@dataclass
class Deliver(Message):
    """A worker thread's result, to be handled on the UI thread. Posted to the screen
    that started the work (post_message is thread-safe and never blocks; a screen
    already closed drops it) and run by the app when it bubbles up."""

    callback: Callable[..., Any]
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)


def deliver(target, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    target.post_message(Deliver(callback, args, kwargs))
