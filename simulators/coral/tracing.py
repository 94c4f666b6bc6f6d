"""Tracing without touching the semantics: `TracingState` records vector-register and
memory writes through the write methods of CoralState, and finds scalar register and
CSR changes by comparing snapshots around each instruction. `undo`/`redo` apply a
step's changes to a snapshot (a RunResult's `memories`/`registers`), which is how a
debugger steps backwards and forwards.

Spaces and addresses: "x", "f" (register number; values are unsigned 32-bit ints, f
as binary32 bit patterns); "v" (register number; the register's VLENB bytes); "csr"
(address 0 fflags, 1 frm, 2 vl, 3 vtype, 4 vxrm, 5 vxsat); "dtcm" (byte offset from DTCM_BASE, i.e. the
index into RunResult.memories["dtcm"]; the bytes).
"""
from __future__ import annotations

import numpy as np

from kernelcraft.simulators.core.trace import Change, read_memory, stepping

from .state import CoralState

CSR_NAMES = ("fflags", "frm", "vl", "vtype", "vxrm", "vxsat")


class TracingState(CoralState):
    def __init__(self, cfg, program_size: int = 0):
        super().__init__(cfg, program_size)
        self.changes: list[Change] = []

    def snapshot(self):
        return (list(self.x), list(self.f), self._csrs())

    def _csrs(self) -> tuple:
        return (self.fc[0], self.fc[1], self.vl, self.vtype, self.vxrm, self.vxsat)

    def changes_since(self, before) -> list[Change]:
        x0, f0, csr0 = before
        out = [Change("x", i, a, b) for i, (a, b) in enumerate(zip(x0, self.x)) if a != b]
        out += [Change("f", i, a, b) for i, (a, b) in enumerate(zip(f0, self.f)) if a != b]
        out += [Change("csr", i, a, b) for i, (a, b) in enumerate(zip(csr0, self._csrs())) if a != b]
        out += self.changes
        self.changes = []
        return out

    def store(self, pc, addr, size, value):
        o = addr - self.dbase
        old = self.mem[o:o + size].copy() if 0 <= o <= self.dsize - size else None
        super().store(pc, addr, size, value)
        self.changes.append(Change("dtcm", o, old, self.mem[o:o + size].copy()))

    def vput(self, reg, sew, start, values):
        lo = reg * self.VLENB + start * sew // 8
        hi = lo + len(values) * sew // 8
        first, last = lo // self.VLENB, (hi - 1) // self.VLENB
        old = [self.vreg[r * self.VLENB:(r + 1) * self.VLENB].copy() for r in range(first, last + 1)]
        super().vput(reg, sew, start, values)
        for r, before in zip(range(first, last + 1), old):
            after = self.vreg[r * self.VLENB:(r + 1) * self.VLENB].copy()
            if not np.array_equal(before, after):
                self.changes.append(Change("v", r, before, after))

    def vmem_write(self, offsets, eew, values):
        if isinstance(offsets, (int, np.integer)):
            n = len(values) * eew // 8
            old = self.mem[offsets:offsets + n].copy()
            super().vmem_write(offsets, eew, values)
            self.changes.append(Change("dtcm", int(offsets), old, self.mem[offsets:offsets + n].copy()))
            return
        b = eew // 8
        olds = [self.mem[o:o + b].copy() for o in offsets.tolist()]
        super().vmem_write(offsets, eew, values)
        for o, old in zip(offsets.tolist(), olds):
            self.changes.append(Change("dtcm", o, old, self.mem[o:o + b].copy()))


def apply_change(memories: dict, registers: dict, change: Change, value) -> None:
    space, addr = change.space, change.address
    if space == "dtcm":
        memories["dtcm"][addr:addr + len(value)] = value
    elif space in ("x", "f"):
        registers[space][addr] = value
    elif space == "v":
        registers["v"][addr] = value
    else:
        registers[CSR_NAMES[addr]] = value


def read_change(memories: dict, registers: dict, change: Change):
    """What the location `change` names holds now (see core.trace.fill_old: the RTL's
    trace records what was written, not what was there)."""
    space, addr = change.space, change.address
    value = read_memory(memories, change)
    if value is not None:
        return value
    if space in ("x", "f"):
        return registers[space][addr]
    if space == "v":
        return np.array(registers["v"][addr], copy=True)
    return registers[CSR_NAMES[addr]]


undo, redo = stepping(apply_change)
