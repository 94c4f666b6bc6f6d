"""Helpers for the coral model tests: assemble and run a snippet, read memory and
registers, binary32 bit conversions, and an exact (Fraction) binary32 reference."""
from __future__ import annotations

import math
import struct
from fractions import Fraction

import numpy as np

from kernelcraft.isa.coral import default_config
from kernelcraft.simulators.core.backend import MemoryImage
from kernelcraft.simulators.core.budget import Budget
from kernelcraft.simulators.coral.assembler import assemble
from kernelcraft.simulators.coral.machine import CoralModel

CFG = default_config(DTCM_SIZE=1 << 20)


def run(source: str, image: MemoryImage | None = None, cfg=None, budget: Budget = Budget(),
        trace: bool = False, expect_ok: bool = True, **writes):
    """Run `source` (ebreak appended if it has none). `writes` puts arrays at labels:
    run(src, xs=np.array(...)) writes them at label `xs`."""
    cfg = cfg or CFG
    program = assemble(_with_end(source), "test.s", cfg)
    image = image or MemoryImage()
    for label, values in writes.items():
        image.put("dtcm", program.labels[label], np.asarray(values))
    result = CoralModel().run(program, image, cfg, budget, trace)
    result.program = program
    if expect_ok:
        assert result.error is None, str(result.error)
    return result


def _with_end(source: str) -> str:
    """End the code with ebreak: before the first data section if there is one."""
    if "ebreak" in source or "ecall" in source:
        return source
    lines = source.split("\n")
    cut = next((i for i, ln in enumerate(lines) if ln.strip().startswith((".data", ".rodata", ".bss"))), len(lines))
    return "\n".join(lines[:cut] + ["ebreak"] + lines[cut:]) + "\n"


def read(result, label: str, dtype, count: int = 1) -> np.ndarray:
    addr = result.program.labels[label]
    base = CFG.DTCM_BASE
    raw = result.memories["dtcm"][addr - base: addr - base + count * np.dtype(dtype).itemsize]
    return raw.view(dtype)


def x(result, name: str) -> int:
    from kernelcraft.simulators.coral.tables import tables
    return result.registers["x"][tables().registers[name][1]]


def fbits(result, name: str) -> int:
    from kernelcraft.simulators.coral.tables import tables
    return result.registers["f"][tables().registers[name][1]]


def bits(value: float) -> int:
    return struct.unpack("<I", struct.pack("<f", value))[0]


def value(b: int) -> float:
    return struct.unpack("<f", struct.pack("<I", b & 0xFFFFFFFF))[0]


# --- exact binary32 reference ---------------------------------------------------------

MAXF = Fraction(value(0x7F7FFFFF))


def _round(v: Fraction, rm: int, unbounded: bool) -> tuple[Fraction, bool]:
    sign = -1 if v < 0 else 1
    a = abs(v)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    if not unbounded:
        e = max(e, -126)
    q = a / Fraction(2) ** (e - 23)
    n, r = divmod(q.numerator, q.denominator)
    rem = Fraction(r, q.denominator)
    if rem:
        up = {0: rem > Fraction(1, 2) or (rem == Fraction(1, 2) and n & 1), 1: False,
              2: sign < 0, 3: sign > 0, 4: rem >= Fraction(1, 2)}[rm]
        n += up
    return sign * n * Fraction(2) ** (e - 23), rem != 0


def reference(v: Fraction, rm: int) -> tuple[int, int]:
    """(bits, flags) of the exact non-zero value v rounded to binary32 by rm."""
    res, inexact = _round(v, rm, False)
    flags = 1 if inexact else 0
    unbounded, _ = _round(v, rm, True)
    neg = v < 0
    if abs(unbounded) > MAXF:
        to_inf = rm in (0, 4) or (rm == 3 and not neg) or (rm == 2 and neg)
        mag = 0x7F800000 if to_inf else 0x7F7FFFFF
        return mag | (0x80000000 if neg else 0), flags | 4 | 1     # overflow is always inexact
    if inexact and abs(unbounded) < Fraction(2) ** -126:
        flags |= 2
    if res == 0:
        return (0x80000000 if neg else 0), flags
    return bits(float(res)), flags


def exact(b: int):
    x_ = value(b)
    return Fraction(x_) if math.isfinite(x_) else None
