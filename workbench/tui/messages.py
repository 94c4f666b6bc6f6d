"""Messages widgets and screens send each other (handled with `@on`)."""
from __future__ import annotations

from dataclasses import dataclass

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
