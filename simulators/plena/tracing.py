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

from kernelcraft.simulators.core.trace import Change, ChangeLog, apply_memory, read_memory, stepping

from .state import CSR_NAMES, PlenaState, bf16_bits


class TracingState(ChangeLog, PlenaState):
    def _scalar(self, space, regs, r, write, v):
        self.logged(space, r, lambda: regs[r], write, self, r, v)

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
        self.logged("hbm", addr, lambda: self.hbm[addr:addr + len(bits)].copy(), super().write_hbm, addr, bits)

    def set_acc(self, name, values):
        self.logged(name, 0, lambda: self.acc[name].copy(), super().set_acc, name, values)

    def push_loop(self, body_pc):
        self.logged("LOOPS", 0, lambda: tuple(self.loops), super().push_loop, body_pc)

    def pop_loop(self):
        self.logged("LOOPS", 0, lambda: tuple(self.loops), super().pop_loop)


def apply_change(memories: dict, registers: dict, change: Change, value) -> None:
    """Set the location `change` names to `value` (its old or new side)."""
    space, addr = change.space, change.address
    if apply_memory(memories, change, value):
        return
    if space in ("gp", "f", "a"):
        registers[space][addr] = value
    elif space == "csr":
        registers[CSR_NAMES[addr]] = value
    elif space == "LOOPS":
        registers["LOOPS"] = list(value)
    else:                                       # accumulators
        registers[space][...] = value


def read_change(memories: dict, registers: dict, change: Change):
    """What the location `change` names holds now (see core.trace.fill_old)."""
    space, addr = change.space, change.address
    value = read_memory(memories, change)
    if value is not None:
        return value
    if space in ("gp", "f", "a"):
        return registers[space][addr]
    if space == "csr":
        return registers[CSR_NAMES[addr]]
    if space == "LOOPS":
        return tuple(registers["LOOPS"])
    return np.array(registers[space], copy=True)     # accumulators


undo, redo = stepping(apply_change)
