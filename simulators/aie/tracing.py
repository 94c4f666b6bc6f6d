"""Tracing without touching the semantics: `TracingState` overrides every write method
of `AieState` to record a `Change(space, address, old, new)`, and the run loop collects
them per bundle. Spaces: "r", "p", "m" (register number); "g" (generator number, the
seven values INC N1 J1 N2 J2 C1 C2); "x" (register number, 64 bytes); "acc" (number, 32
lanes as uint32); "RM"; "lock" (number); "dm" (first byte address, bytes); "ext" (first
word address, words); "LOOPS" (0, the loop stack). DMA completions are recorded with
the bundle during whose issue they happened."""
from __future__ import annotations

import numpy as np

from kernelcraft.simulators.core.trace import Change, ChangeLog, apply_memory, read_memory, stepping

from .state import G_FIELDS, AieState


def _loop_stack(state) -> tuple:
    return tuple(tuple(x) for x in state.loops)


class TracingState(ChangeLog, AieState):
    def __init__(self, cfg, spec):
        super().__init__(cfg, spec)
        self.defer_macs = False          # every accumulator change belongs to its own step

    def _scalar(self, space, regs, i, real, *args):
        old = regs[i]
        real(self, i, *args)
        if regs[i] != old:
            self.changes.append(Change(space, i, old, regs[i]))

    def set_r(self, i, v):
        self._scalar("r", self.r, i, AieState.set_r, v)

    def set_p(self, i, v):
        self._scalar("p", self.p, i, AieState.set_p, v)

    def set_m(self, i, v):
        self._scalar("m", self.m, i, AieState.set_m, v)

    def set_lock(self, i, v):
        self._scalar("lock", self.locks, i, AieState.set_lock, v)

    def set_g(self, i, values):
        self.logged("g", i, lambda: tuple(self.g[i]), super().set_g, i, values)

    def set_x(self, i, values):
        self.logged("x", i, lambda: self.x[i].copy(), super().set_x, i, values)

    def set_w(self, i, values):
        self.logged("x", i >> 1, lambda: self.x[i >> 1].copy(), super().set_w, i, values)

    def set_acc(self, i, values):
        self.logged("acc", i, lambda: self.acc[i].copy(), super().set_acc, i, values)

    def set_rm(self, v):
        self.logged("RM", 0, lambda: self.rm, super().set_rm, v)

    def write_dm(self, addr, data):
        n = np.ascontiguousarray(data).nbytes
        self.logged("dm", addr, lambda: self.dm[addr:addr + n].copy(), super().write_dm, addr, data)

    def dma_write(self, words, values):
        lo, hi = 2 * int(words.min()), 2 * int(words.max()) + 2
        self.logged("dm", lo, lambda: self.dm[lo:hi].copy(), super().dma_write, words, values)

    def ext_write(self, words, values):
        lo, hi = int(words.min()), int(words.max()) + 1
        self.logged("ext", lo, lambda: self.ext[lo:hi].copy(), super().ext_write, words, values)

    def push_loop(self, body, trips):
        self.logged("LOOPS", 0, lambda: _loop_stack(self), super().push_loop, body, trips)

    def end_loop(self):
        return self.logged("LOOPS", 0, lambda: _loop_stack(self), super().end_loop)


# --- stepping a snapshot (the debugger's undo/redo) ------------------------------------

def apply_change(memories: dict, registers: dict, change: Change, value) -> None:
    """Set the location `change` names to `value` (its old or new side) in the
    `memories`/`registers` dicts of a RunResult."""
    space, addr = change.space, change.address
    if apply_memory(memories, change, value):
        return
    if space in ("r", "p", "m"):
        registers[space][addr] = value
    elif space == "lock":
        registers["locks"][addr] = value
    elif space == "g":
        registers["g"][addr] = dict(zip(G_FIELDS + ("C1", "C2"), value))
    elif space == "x":
        registers["x"][addr] = value
    elif space == "acc":
        registers["acc"][addr] = value
        if "acc_f32" in registers:
            registers["acc_f32"][addr] = np.asarray(value, dtype=np.uint32).view(np.float32)
    elif space == "RM":
        registers["RM"] = value
    elif space == "LOOPS":
        registers["LOOPS"] = [list(x) for x in value]
    else:
        raise ValueError(f"unknown trace space {space!r}")


def read_change(memories: dict, registers: dict, change: Change):
    """What the location `change` names holds now, as TracingState records it (see
    core.trace.fill_old: an RTL's trace records what was written, not what was there)."""
    space, addr = change.space, change.address
    value = read_memory(memories, change)
    if value is not None:
        return value
    if space in ("r", "p", "m"):
        return registers[space][addr]
    if space == "lock":
        return registers["locks"][addr]
    if space == "g":
        return tuple(registers["g"][addr][k] for k in G_FIELDS + ("C1", "C2"))
    if space in ("x", "acc"):
        return np.array(registers[space][addr], copy=True)
    if space == "RM":
        return registers["RM"]
    if space == "LOOPS":
        return tuple(tuple(x) for x in registers["LOOPS"])
    raise ValueError(f"unknown trace space {space!r}")


undo, redo = stepping(apply_change)
