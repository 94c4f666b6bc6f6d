"""The RTL's retirement trace (trace.txt written by rtl/plena/plena_sim.v), as the same
TraceStep/Change records the functional model produces, and both reduced to what a
lockstep comparison needs: per retired instruction its pc, issue cycle, and the final
bits of every location it wrote.

RTL changes carry no old value (None): the RTL records what was written, not what was
there. Both record the loop stack ("LOOPS", the body pc of each open hardware loop)
where it changes, so a debugger shows each side's; it is bookkeeping whose effect
shows in the pc sequence, so the comparison leaves it out.
"""
from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

from kernelcraft.simulators.core.trace import Change, TraceStep

BF16_SPACES = ("vsram", "msram", "hbm")
F32_SPACES = ("f", "fp_mem", "MM_ACC", "MV_ACC", "BMM_ACC", "BMV_ACC")


def _hex_elements(tokens: list[str], count: int) -> np.ndarray:
    """bf16 elements from hex tokens that each hold a run of elements, highest first."""
    out = []
    for tok in tokens:
        n = len(tok) // 4
        vals = np.frombuffer(bytes.fromhex(tok), dtype=">u2")[::-1]
        out.append(vals[:n])
    arr = np.concatenate(out).astype(np.uint16) if out else np.zeros(0, np.uint16)
    if arr.size != count:
        raise ValueError(f"trace record has {arr.size} elements, expected {count}")
    return arr


def _value(space: str, tokens: list[str], count: int):
    if space in BF16_SPACES:
        return _hex_elements(tokens, count)
    bits = [int(t, 16) for t in tokens]
    if space in F32_SPACES:
        arr = np.array(bits, dtype=np.uint32).view(np.float32)
        if space in ("f", "fp_mem"):
            return float(arr[0])
        return arr.copy()
    if space == "a":
        return bits[0]
    v = bits[0] & 0xFFFFFFFF                     # gp, int_mem, csr: signed 32-bit
    return v - (1 << 32) if v >> 31 else v


def read_trace(directory: Path, program, cfg, isa) -> list[TraceStep]:
    """W lines belong to the latest R line (the retired instruction), or after a
    `D index` line to the DMA instruction retired as `index`: the DMA engine writes a
    transfer's rows after the instruction has retired, and the harness records them then."""
    steps: list[TraceStep] = []
    loops: tuple = ()                  # the loop stack as last recorded (empty at the start)
    target = None
    path = Path(directory) / "trace.txt"
    for raw in path.read_text().splitlines():
        parts = raw.split()
        if not parts:
            continue
        if parts[0] == "R":
            index, pc, cycle = int(parts[1]), int(parts[2]), int(parts[3])
            instr = program.instrs[pc] if pc < len(program.instrs) else None
            steps.append(TraceStep(index, pc, instr.line if instr else 0,
                                   (instr.text or instr.mnemonic) if instr else "", cycle))
            target = steps[-1]
        elif parts[0] == "D":
            target = steps[int(parts[1])]
        elif parts[0] == "W" and parts[1] == "LOOPS":
            # the loop stack after every loop instruction (depth, then body pcs, in
            # decimal); kept only where it changed, as the model records it
            stack = tuple(int(t) for t in parts[4:4 + int(parts[3])])
            if stack != loops:
                steps[-1].changes.append(Change("LOOPS", 0, None, stack))
                loops = stack
        elif parts[0] == "W":
            space, addr, count = parts[1], int(parts[2]), int(parts[3])
            target.changes.append(Change(space, addr, None, _value(space, parts[4:], count)))
    return steps


def _bits(space: str, value) -> np.ndarray:
    """A written value as an array of unsigned bit patterns, one per element."""
    if space in BF16_SPACES:
        return np.atleast_1d(np.asarray(value, dtype=np.uint16)).astype(np.uint64)
    if space in ("f", "fp_mem"):
        return np.array([struct.unpack("<I", struct.pack("<f", float(value)))[0]], dtype=np.uint64)
    if space in F32_SPACES:
        return np.asarray(value, dtype=np.float32).view(np.uint32).ravel().astype(np.uint64)
    if space == "a":
        return np.array([int(value) & ((1 << 64) - 1)], dtype=np.uint64)
    return np.array([int(value) & 0xFFFFFFFF], dtype=np.uint64)


def writes(step: TraceStep) -> dict[tuple[str, int], int]:
    """(space, element address) -> final bits written by one retired instruction."""
    out: dict[tuple[str, int], int] = {}
    for ch in step.changes:
        if ch.space == "LOOPS":
            continue
        for k, v in enumerate(_bits(ch.space, ch.new).tolist()):
            out[(ch.space, ch.address + k)] = v
    return out
