"""The coral RTL's retirement trace (trace.txt written by rtl/coral/coral_sim.v) as the
model's TraceStep/Change records (simulators/coral/tracing.py's spaces: "x", "f", "v",
"csr", "dtcm" byte offsets).

The RTL reports every register write; the model records a register only when its value
changed. Replaying the writes on a copy of the registers keeps only real changes, so
both traces say the same thing. Changes carry no old value (None): the RTL records what
was written, not what was there.

The model performs a vector instruction when it is dispatched; the RTL's vector unit
writes registers, DTCM and fp flags cycles later, while the scalar core retires other
instructions. Those events carry the instruction's number in dispatch order, so they
are given to the step that dispatched it, and everything is replayed in retirement
order: fflags as the model accrues them (a scalar F instruction's raised flags, a
vector instruction's, and a CSR instruction's value as read after it).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from kernelcraft.simulators.core.trace import Change, TraceStep

VSET = ("vsetvli", "vsetivli", "vsetvl")
VILL = 1 << 31


def _vector(ins) -> bool:
    """An instruction that goes through the vector unit (the RTL numbers those)."""
    return ins is not None and ins.mnemonic.startswith("v") and ins.mnemonic not in VSET


def read_trace(directory: Path, program, x0: list[int], f0: list[int], vlenb: int = 16) -> list[TraceStep]:
    steps: list[TraceStep] = []
    events: list[list] = []              # per step: (kind, fields) in the order they apply
    vsteps: list[int] = []               # step index of the n-th vector instruction
    for raw in (Path(directory) / "trace.txt").read_text().splitlines():
        p = raw.split()
        if not p:
            continue
        if p[0] == "R":
            index, pc, cycle = int(p[1]), int(p[2]), int(p[3])
            ins = program.instrs[pc] if pc < len(program.instrs) else None
            steps.append(TraceStep(index, pc, ins.line if ins else 0,
                                   (ins.text or ins.mnemonic) if ins else "", cycle))
            events.append([])
            if _vector(ins):
                vsteps.append(len(steps) - 1)
        elif p[0] in ("V", "M", "G", "W"):
            events[vsteps[int(p[1])]].append((p[0], p[2:]))
        else:
            events[-1].append((p[0], p[1:]))
    regs = {"x": list(x0), "f": list(f0)}
    vreg = np.zeros((32, vlenb), dtype=np.uint8)
    csr = [0, 0, 0, VILL, 0, 0]          # fflags, frm, vl, vtype, vxrm, vxsat (tracing.CSR_NAMES)

    def set_csr(step, addr, v):
        if csr[addr] != v:
            csr[addr] = v
            step.changes.append(Change("csr", addr, None, v))

    def set_vreg(step, r, data):
        if not np.array_equal(vreg[r], data):
            vreg[r] = data
            step.changes.append(Change("v", r, None, data.copy()))

    for step, evs in zip(steps, events):
        for kind, f in evs:
            if kind in ("X", "F"):
                space, r, v = kind.lower(), int(f[0]), int(f[1], 16)
                if regs[space][r] != v:
                    regs[space][r] = v
                    step.changes.append(Change(space, r, None, v))
            elif kind == "S":
                off, size, v = int(f[0]) & 0xFFFFFFFF, int(f[1]), int(f[2], 16)
                data = np.frombuffer(v.to_bytes(4, "little")[:size], dtype=np.uint8).copy()
                step.changes.append(Change("dtcm", off, None, data))
            elif kind == "W":                     # a vector store's word: the bytes it enables
                data = np.frombuffer(int(f[1], 16).to_bytes(4, "little"), dtype=np.uint8).copy()
                for k in range(4):
                    if int(f[2], 16) >> k & 1:
                        step.changes.append(Change("dtcm", int(f[0]) + k, None, data[k:k + 1]))
            elif kind in ("P", "G"):
                set_csr(step, 0, csr[0] | (int(f[0]) & 31))
                if int(f[0]) & 32:                # a fixed-point instruction saturated
                    set_csr(step, 5, 1)
            elif kind == "C":
                # fflags and vxsat as read after the instruction only where it accessed
                # them (fflags, fcsr; vxsat, vcsr: the core then waited for the vector
                # unit); elsewhere the register may lag the model's (still in flight)
                ins = program.instrs[step.pc]
                waited = {0: (1, 3), 5: (9, 15)}
                for addr, v in zip((0, 1, 4, 5), map(int, f)):
                    if addr not in waited or ins.ops.get("csr") in waited[addr]:
                        set_csr(step, addr, v)
            elif kind == "L":
                set_csr(step, 2, int(f[0]))
                set_csr(step, 3, int(f[1]))
            elif kind == "V":
                value = int(f[1], 16).to_bytes(vlenb, "little")
                set_vreg(step, int(f[0]), np.frombuffer(value, dtype=np.uint8))
            elif kind == "M":
                marks = int(f[0], 16)
                for r in range(32):
                    if marks >> r & 1:
                        set_vreg(step, r, np.full(vlenb, 0xFF, dtype=np.uint8))
    return steps


def writes(step: TraceStep) -> dict[tuple[str, int], int]:
    """(space, address) -> final value written by one retired instruction: registers and
    CSRs as integers, DTCM and vector registers per byte ("v": register * 4096 + byte)."""
    out: dict[tuple[str, int], int] = {}
    for ch in step.changes:
        if ch.space == "dtcm":
            for k, b in enumerate(np.asarray(ch.new, dtype=np.uint8).tolist()):
                out[("dtcm", ch.address + k)] = b
        elif ch.space == "v":
            for k, b in enumerate(np.asarray(ch.new, dtype=np.uint8).tolist()):
                out[("v", ch.address * 4096 + k)] = b
        else:
            out[(ch.space, ch.address)] = int(ch.new)
    return out
