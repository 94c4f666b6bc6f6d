"""The coral RTL's retirement trace (trace.txt written by rtl/coral/coral_sim.v) as the
model's TraceStep/Change records (simulators/coral/tracing.py's spaces: "x", "csr",
"dtcm" byte offsets).

The RTL reports every register write; the model records a register only when its value
changed. Replaying the writes on a copy of the registers keeps only real changes, so
both traces say the same thing. Changes carry no old value (None): the RTL records what
was written, not what was there.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from kernelcraft.simulators.core.trace import Change, TraceStep

# trace "C" fields -> the model's csr space addresses (tracing.CSR_NAMES)
CSR_FIELDS = (0, 1, 4, 5)             # fflags, frm, vxrm, vxsat


def read_trace(directory: Path, program, x0: list[int], f0: list[int]) -> list[TraceStep]:
    regs = {"X": list(x0), "F": list(f0)}
    csr = [0, 0, 0, 0]
    steps: list[TraceStep] = []
    for raw in (Path(directory) / "trace.txt").read_text().splitlines():
        p = raw.split()
        if not p:
            continue
        if p[0] == "R":
            index, pc, cycle = int(p[1]), int(p[2]), int(p[3])
            ins = program.instrs[pc] if pc < len(program.instrs) else None
            steps.append(TraceStep(index, pc, ins.line if ins else 0,
                                   (ins.text or ins.mnemonic) if ins else "", cycle))
        elif p[0] in ("X", "F"):
            r, v = int(p[1]), int(p[2], 16)
            if regs[p[0]][r] != v:
                regs[p[0]][r] = v
                steps[-1].changes.append(Change(p[0].lower(), r, None, v))
        elif p[0] == "S":
            off, size, v = int(p[1]) & 0xFFFFFFFF, int(p[2]), int(p[3], 16)
            data = np.frombuffer(v.to_bytes(4, "little")[:size], dtype=np.uint8).copy()
            steps[-1].changes.append(Change("dtcm", off, None, data))
        elif p[0] == "C":
            for k, (addr, v) in enumerate(zip(CSR_FIELDS, map(int, p[1:5]))):
                if csr[k] != v:
                    csr[k] = v
                    steps[-1].changes.append(Change("csr", addr, None, v))
    return steps


def writes(step: TraceStep) -> dict[tuple[str, int], int]:
    """(space, address) -> final value written by one retired instruction: registers and
    CSRs as integers, DTCM per byte."""
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
