"""A traced run as a sequence of machine states that a cursor moves over.

State k is the machine after k retired instructions (0 = the memory image loaded,
n = where the run stopped). Moving the cursor applies the recorded changes of the
steps in between (the accelerator's `tracing.redo` forwards, `tracing.undo`
backwards), so a step costs what that instruction changed, not a re-run. The first
and last states are kept as snapshots, so jumping to either end is a copy.

A Timeline knows nothing about a particular backend beyond its trace and its
undo/redo: the functional model's trace and (later) the RTL's trace both become
Timelines, and `Lockstep` (lockstep.py) moves two of them together.
"""
from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from kernelcraft.simulators.core.backend import RunResult
from kernelcraft.simulators.core.errors import ConfigError
from kernelcraft.simulators.core.trace import Change, TraceStep, fill_old

# A move longer than this many steps from the cursor starts from the nearer end
# snapshot instead (a snapshot copy costs about as much as this many small steps).
RESTORE_COST = 4096


def tracing_module(accel: str):
    """The accelerator's undo/redo helpers (its registry record's `tracing`)."""
    from kernelcraft.workbench.accel import get_accel
    try:
        return get_accel(accel).tracing_module()
    except ConfigError as e:
        raise ValueError(str(e)) from None


def _copy_state(memories: dict, registers: dict) -> tuple[dict, dict]:
    return ({k: np.array(v, copy=True) for k, v in memories.items()},
            copy.deepcopy(registers))


def _restore(dst_mem: dict, dst_regs: dict, src_mem: dict, src_regs: dict) -> None:
    for k, v in src_mem.items():
        np.copyto(dst_mem[k], v)
    for k, v in src_regs.items():
        if isinstance(v, np.ndarray):
            np.copyto(dst_regs[k], v)
        elif isinstance(v, list):
            dst_regs[k][:] = v
        else:
            dst_regs[k] = v


def _extent(ch: Change, units: frozenset[str] = frozenset()) -> int:
    """Cells a change covers: an array change covers all its elements (a memory slice,
    or a whole accumulator at address 0) unless its space is in `units` (register
    files whose address is a register number and whose value is the whole register);
    a scalar or the loop stack counts as one."""
    if ch.space in units or ch.space == "LOOPS" or not np.ndim(ch.new):
        return 1
    return int(np.size(ch.new))


@dataclass
class Touched:
    """Locations changed by the last move: per space, merged [start, end) ranges."""

    ranges: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    steps: int = 0

    def mask(self, space: str, start: int, count: int) -> np.ndarray:
        """Which of the `count` cells from `start` in `space` changed."""
        m = np.zeros(count, dtype=bool)
        for a, b in self.ranges.get(space, ()):
            lo, hi = max(a, start), min(b, start + count)
            if lo < hi:
                m[lo - start:hi - start] = True
        return m

    def has(self, space: str, address: int | None = None) -> bool:
        if address is None:
            return bool(self.ranges.get(space))
        return any(a <= address < b for a, b in self.ranges.get(space, ()))


def _merge(starts: np.ndarray, ends: np.ndarray) -> list[tuple[int, int]]:
    order = np.argsort(starts, kind="stable")
    starts, ends = starts[order], np.maximum.accumulate(ends[order])
    # a new range begins where a start lies beyond every end before it
    new = np.ones(len(starts), dtype=bool)
    new[1:] = starts[1:] > ends[:-1]
    first = np.flatnonzero(new)
    last = np.append(first[1:] - 1, len(starts) - 1)
    return list(zip(starts[first].tolist(), ends[last].tolist()))


class ChangeIndex:
    """Every change of a trace as arrays (step, start, end) per space, so the
    locations touched by any range of steps come out without a Python loop."""

    def __init__(self, steps: list[TraceStep], units: frozenset[str] = frozenset()):
        cols: dict[str, tuple[list, list, list]] = {}
        for i, step in enumerate(steps):
            for ch in step.changes:
                s, a, b = cols.setdefault(ch.space, ([], [], []))
                s.append(i)
                a.append(ch.address)
                b.append(ch.address + _extent(ch, units))
        self.spaces = {space: (np.asarray(s), np.asarray(a), np.asarray(b))
                       for space, (s, a, b) in cols.items()}

    def touched(self, lo: int, hi: int) -> Touched:
        """Locations changed by steps lo..hi-1."""
        out = Touched(steps=hi - lo)
        for space, (s, a, b) in self.spaces.items():
            i, j = np.searchsorted(s, lo), np.searchsorted(s, hi)
            if i < j:
                out.ranges[space] = _merge(a[i:j], b[i:j])
        return out


def touched_by(steps: Iterable[TraceStep], units: frozenset[str] = frozenset()) -> Touched:
    cols: dict[str, tuple[list, list]] = {}
    n = 0
    for step in steps:
        n += 1
        for ch in step.changes:
            a, b = cols.setdefault(ch.space, ([], []))
            a.append(ch.address)
            b.append(ch.address + _extent(ch, units))
    return Touched({space: _merge(np.asarray(a), np.asarray(b))
                    for space, (a, b) in cols.items()}, n)


# Moves over more steps than this read the touched locations from a ChangeIndex.
INDEX_FROM = 256


class Timeline:
    """One backend's traced run of a program, with a cursor over its states."""

    def __init__(self, backend: str, result: RunResult, undo: Callable, redo: Callable,
                 units: frozenset[str] = frozenset()):
        if result.trace is None:
            raise ValueError(f"{backend}: the run was not traced; run it with trace=True")
        self.backend = backend
        self.result = result
        self.steps: list[TraceStep] = result.trace
        self._undo, self._redo = undo, redo
        self.units = units          # spaces of whole-register array changes (see _extent)
        # The run's final state is the last snapshot; undoing every step gives the first.
        self.memories, self.registers = result.memories, result.registers
        self._last = _copy_state(self.memories, self.registers)
        for step in reversed(self.steps):
            undo(step, self.memories, self.registers)
        self._first = _copy_state(self.memories, self.registers)
        self.position = 0
        self.touched = Touched()
        self._index: ChangeIndex | None = None

    @classmethod
    def for_accelerator(cls, accel: str, backend: str, result: RunResult,
                        units: frozenset[str] = frozenset(),
                        start: tuple[dict, dict] | None = None) -> "Timeline":
        """A traced run of `accel` as a Timeline. A trace whose changes carry no old
        values (the RTL's) needs `start`, the (memories, registers) it started from,
        to recover them (core.trace.fill_old with the accelerator's read_change)."""
        mod = tracing_module(accel)
        if result.trace and any(ch.old is None for st in result.trace for ch in st.changes):
            if start is None or not callable(getattr(mod, "read_change", None)):
                raise ValueError(f"{backend}: its trace records no old values; stepping it "
                                 f"back needs the state it started from and "
                                 f"read_change in its tracing module")
            fill_old(result.trace, *_copy_state(*start), mod.read_change, mod.redo)
        return cls(backend, result, mod.undo, mod.redo, units)

    def final_result(self) -> RunResult:
        """The run as it ended (the last state's memories and registers, whatever the
        cursor's position; not to be changed)."""
        return dataclasses.replace(self.result, memories=self._last[0], registers=self._last[1])

    @property
    def first_state(self) -> tuple[dict, dict]:
        """(memories, registers) before the first instruction (not to be changed)."""
        return self._first

    def prepare(self) -> "Timeline":
        """Index the trace's changes now (a long move would do it on first use)."""
        if self._index is None:
            self._index = ChangeIndex(self.steps, self.units)
        return self

    def records(self, space: str) -> bool:
        """Whether any step of the trace changes `space` (another backend's trace may
        leave some out, e.g. an RTL that does not trace its loop stack)."""
        return space in self.prepare()._index.spaces

    @property
    def records_writes(self) -> bool:
        """Whether the trace records any change (aie's RTL traces bundles and cycles
        only: its states between the ends are not known)."""
        return bool(self.prepare()._index.spaces)

    @property
    def length(self) -> int:
        """Number of retired instructions in the trace (the last state's index)."""
        return len(self.steps)

    @property
    def at_end(self) -> bool:
        return self.position == len(self.steps)

    def current(self) -> TraceStep | None:
        """The instruction about to execute from this state, or None at the end."""
        return self.steps[self.position] if self.position < len(self.steps) else None

    def previous(self) -> TraceStep | None:
        """The instruction that produced this state, or None at the start."""
        return self.steps[self.position - 1] if self.position else None

    def goto(self, target: int) -> Touched:
        """Move the cursor to state `target` (clamped); returns what the move changed."""
        target = max(0, min(int(target), len(self.steps)))
        here = self.position
        lo, hi = sorted((here, target))
        if hi - lo > INDEX_FROM:
            if self._index is None:
                self._index = ChangeIndex(self.steps, self.units)
            touched = self._index.touched(lo, hi)
        else:
            touched = touched_by(self.steps[lo:hi], self.units)
        # Start from whichever of here / first / last is nearest, counting a snapshot
        # restore as RESTORE_COST steps.
        _, start = min((abs(target - here), "here"), (target + RESTORE_COST, "first"),
                       (len(self.steps) - target + RESTORE_COST, "last"))
        if start != "here":
            _restore(self.memories, self.registers,
                     *(self._first if start == "first" else self._last))
            self.position = 0 if start == "first" else len(self.steps)
        if target > self.position:
            for step in self.steps[self.position:target]:
                self._redo(step, self.memories, self.registers)
        else:
            for step in reversed(self.steps[target:self.position]):
                self._undo(step, self.memories, self.registers)
        self.position = target
        self.touched = touched
        return touched

    def forward(self, n: int = 1) -> Touched:
        return self.goto(self.position + n)

    def back(self, n: int = 1) -> Touched:
        return self.goto(self.position - n)

    def find(self, lines: set[int], forward: bool = True) -> int | None:
        """The next state (after at least one step) whose current instruction is on
        one of `lines`, searching forwards or backwards; None if there is none."""
        if not lines:
            return None
        steps = self.steps
        if forward:
            for k in range(self.position + 1, len(steps)):
                if steps[k].line in lines:
                    return k
        else:
            for k in range(self.position - 1, -1, -1):
                if steps[k].line in lines:
                    return k
        return None
