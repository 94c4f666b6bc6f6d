"""Step-by-step traces: what each retired instruction changed, old and new values,
so a debugger can step forward and back without re-running; and the parts of an
accelerator's tracing (simulators/<accel>/tracing.py) that do not depend on its state."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np


@dataclass
class Change:
    space: str          # "gp", "f", "a", "csr", or a memory/accumulator name
    address: int        # register number or first element address
    old: Any            # scalar or numpy array
    new: Any


@dataclass
class TraceStep:
    step: int           # retirement number, from 0
    pc: int             # instruction index
    line: int
    text: str
    cycle: int          # issue cycle
    changes: list[Change] = field(default_factory=list)


class ChangeLog:
    """Mixed in before an accelerator's state class to make its TracingState: holds
    the changes its overridden write methods record until the run loop takes them."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.changes: list[Change] = []

    def take_changes(self) -> list[Change]:
        out, self.changes = self.changes, []
        return out

    def logged(self, space: str, address: int, read: Callable[[], Any], write: Callable, *args):
        """Run `write(*args)` and record the change of what `read()` returns; returns
        what `write` returns."""
        old = read()
        result = write(*args)
        self.changes.append(Change(space, address, old, read()))
        return result


def apply_memory(memories: dict, change: Change, value) -> bool:
    """Set the memory location `change` names to `value` (an array: from its address
    on); False when `change.space` is not a memory of the snapshot."""
    mem = memories.get(change.space)
    if mem is None:
        return False
    if np.ndim(value):
        mem[change.address:change.address + len(value)] = value
    else:
        mem[change.address] = value
    return True


def read_memory(memories: dict, change: Change):
    """What the memory location `change` names holds now (a copy, for an array
    change); None when `change.space` is not a memory of the snapshot."""
    mem = memories.get(change.space)
    if mem is None:
        return None
    if np.ndim(change.new):
        return mem[change.address:change.address + len(change.new)].copy()
    return mem[change.address]


def fill_old(steps: list[TraceStep], memories: dict, registers: dict,
             read_change: Callable[[dict, dict, Change], Any], redo: Callable) -> None:
    """Give the changes recorded without an old value (an RTL's trace records what
    was written, not what was there) the value before, by replaying `steps` forwards
    from the state they start from (`memories`, `registers`; changed in place) with
    the accelerator's `read_change(memories, registers, change)` and `redo`."""
    for step in steps:
        for ch in step.changes:       # one at a time: a step may write a place twice
            if ch.old is None:
                ch.old = read_change(memories, registers, ch)
            redo(TraceStep(step.step, step.pc, step.line, step.text, step.cycle, [ch]),
                 memories, registers)


def stepping(apply_change: Callable[[dict, dict, Change, Any], None]) -> tuple[Callable, Callable]:
    """`(undo, redo)` for a debugger: apply one TraceStep backwards or forwards to a
    snapshot (a RunResult's `memories`/`registers`) in place, one change at a time
    through the accelerator's `apply_change(memories, registers, change, value)`."""
    def undo(step: TraceStep, memories: dict, registers: dict) -> None:
        for ch in reversed(step.changes):
            apply_change(memories, registers, ch, ch.old)

    def redo(step: TraceStep, memories: dict, registers: dict) -> None:
        for ch in step.changes:
            apply_change(memories, registers, ch, ch.new)

    return undo, redo
