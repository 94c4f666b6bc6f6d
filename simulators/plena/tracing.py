"""Tracing without touching the semantics: `TracingState` overrides every write method
of `PlenaState` to record a `Change(space, address, old, new)` around the write, and the
run loop collects them per retired instruction. `undo`/`redo` apply a step's changes to
a snapshot (the `memories`/`registers` dicts of a RunResult), which is how a debugger
steps backwards and forwards.

Spaces and addresses: "gp", "f", "a" (register number); "csr" (index into CSR_NAMES);
a memory name (first element address; bf16 memories in uint16 bit patterns, as in
RunResult); an accumulator name (address 0, the whole array); "LOOPS" (address 0, the
loop stack as a tuple of body-start pcs).
"""
from __future__ import annotations

import numpy as np

from simulators.core.trace import Change

from .state import CSR_NAMES, PlenaState, bf16_bits


class TracingState(PlenaState):
    def __init__(self, cfg, register_counts):
        super().__init__(cfg, register_counts)
        self.changes: list[Change] = []

    def take_changes(self) -> list[Change]:
        out, self.changes = self.changes, []
        return out

    def _scalar(self, space, regs, r, write, v):
        old = regs[r]
        write(self, r, v)
        self.changes.append(Change(space, r, old, regs[r]))

    def set_gp(self, r, v):
        if r:
            self._scalar("gp", self.gp, r, PlenaState.set_gp, v)

    def set_f(self, r, v):
        if r:
            self._scalar("f", self.f, r, PlenaState.set_f, v)

    def set_a(self, r, v):
        self._scalar("a", self.a, r, PlenaState.set_a, v)

    def set_csr(self, i, v):
        self._scalar("csr", self.csr, i, PlenaState.set_csr, v)

    def write_int(self, addr, v):
        self._scalar("int_mem", self.int_mem, addr, PlenaState.write_int, v)

    def write_fp(self, addr, v):
        self._scalar("fp_mem", self.fp_mem, addr, PlenaState.write_fp, v)

    def write_v(self, row, col, values, rmask=0):
        values = np.asarray(values, dtype=np.float32)
        h = 1 if values.ndim == 1 else values.shape[0]
        w = values.shape[-1]
        block = self.V[row:row + h, col:col + w]
        old = bf16_bits(block)
        super().write_v(row, col, values, rmask)
        new = bf16_bits(block)
        base = row * self.VLEN + col
        if w == self.VLEN:                     # whole rows: one contiguous change
            self.changes.append(Change("vsram", base, old.ravel(), new.ravel()))
        else:
            for i in range(h):
                self.changes.append(Change("vsram", base + i * self.VLEN, old[i], new[i]))

    def write_tile(self, tile, values):
        old = bf16_bits(self.M[tile]).ravel()
        super().write_tile(tile, values)
        self.changes.append(Change("msram", tile * self.TILE, old, bf16_bits(self.M[tile]).ravel()))

    def write_hbm(self, addr, bits):
        old = self.hbm[addr:addr + len(bits)].copy()
        super().write_hbm(addr, bits)
        self.changes.append(Change("hbm", addr, old, self.hbm[addr:addr + len(bits)].copy()))

    def set_acc(self, name, values):
        old = self.acc[name].copy()
        super().set_acc(name, values)
        self.changes.append(Change(name, 0, old, self.acc[name].copy()))

    def push_loop(self, body_pc):
        old = tuple(self.loops)
        super().push_loop(body_pc)
        self.changes.append(Change("LOOPS", 0, old, tuple(self.loops)))

    def pop_loop(self):
        old = tuple(self.loops)
        super().pop_loop()
        self.changes.append(Change("LOOPS", 0, old, tuple(self.loops)))


def apply_change(memories: dict, registers: dict, change: Change, value) -> None:
    """Set the location `change` names to `value` (its old or new side)."""
    space, addr = change.space, change.address
    if space in memories:
        mem = memories[space]
        if np.ndim(value):
            mem[addr:addr + len(value)] = value
        else:
            mem[addr] = value
    elif space in ("gp", "f", "a"):
        registers[space][addr] = value
    elif space == "csr":
        registers[CSR_NAMES[addr]] = value
    elif space == "LOOPS":
        registers["LOOPS"] = list(value)
    else:                                       # accumulators
        registers[space][...] = value


def redo(step, memories: dict, registers: dict) -> None:
    """Apply one TraceStep forwards to a snapshot in place."""
    for ch in step.changes:
        apply_change(memories, registers, ch, ch.new)


def undo(step, memories: dict, registers: dict) -> None:
    """Apply one TraceStep backwards to a snapshot in place."""
    for ch in reversed(step.changes):
        apply_change(memories, registers, ch, ch.old)
