"""Helpers for the plena model tests: a small configuration whose values are easy to
compute by hand, assembling and running a snippet, and bf16 conversions."""
from __future__ import annotations

import numpy as np

from kernelcraft.isa.plena import default_config
from kernelcraft.simulators.core.backend import MemoryImage
from kernelcraft.simulators.core.budget import Budget
from kernelcraft.simulators.core.program import Instr, Program
from kernelcraft.simulators.numerics import bf16_bits_to_f32, f32_to_bf16_bits
from kernelcraft.simulators.plena.assembler import assemble
from kernelcraft.simulators.plena.machine import PlenaModel

# MLEN = VLEN = 8, BLEN = 2, HLEN = 4 (HEADS = 2); small memories; a slow HBM so
# timing figures are easy to follow (a row of 8 takes 2 cycles, latency 10).
SMALL = dict(MLEN=8, VLEN=8, BLEN=2, HLEN=4, VSRAM_ROWS=64, MSRAM_TILES=4,
             FP_MEM_SIZE=64, INT_MEM_SIZE=32, HBM_SIZE=4096, HBM_V_PREFETCH_AMOUNT=2,
             HBM_V_WRITEBACK_AMOUNT=2, HBM_BW=4, HBM_LATENCY=10, LOOP_DEPTH=3, IMEM_SIZE=256)


def small(**overrides):
    return default_config(**{**SMALL, **overrides})


def bits(values) -> np.ndarray:
    """Values (exactly representable in bf16) as bf16 bit patterns."""
    return f32_to_bf16_bits(np.asarray(values, dtype=np.float32))


def vals(bit_patterns) -> np.ndarray:
    return bf16_bits_to_f32(bit_patterns)


def image(**memories) -> MemoryImage:
    """image(vsram={0: [...]}, fp_mem={3: [...]}) with values in natural units: bf16
    memories are given as floats and converted to bit patterns here."""
    img = MemoryImage()
    for mem, writes in memories.items():
        for addr, v in writes.items():
            if mem in ("hbm", "vsram", "msram"):
                v = bits(v)
            elif mem == "fp_mem":
                v = np.asarray(v, dtype=np.float32)
            else:
                v = np.asarray(v, dtype=np.int32)
            img.put(mem, addr, v)
    return img


def run(source: str, img: MemoryImage | None = None, cfg=None, budget: Budget = Budget(),
        trace: bool = False, expect_ok: bool = True):
    cfg = cfg or small()
    program = assemble(source, "test.asm", cfg)
    result = PlenaModel().run(program, img or MemoryImage(), cfg, budget, trace)
    if expect_ok:
        assert result.error is None, str(result.error)
    return result


def run_instrs(instrs: list[Instr], img=None, cfg=None, budget: Budget = Budget(), trace=False):
    """Run hand-built instructions (for programs the assembler would refuse)."""
    cfg = cfg or small()
    program = Program("plena", instrs, [0] * len(instrs))
    return PlenaModel().run(program, img or MemoryImage(), cfg, budget, trace)


def vrow(result, row: int, cfg=None) -> np.ndarray:
    """Row `row` of Vector SRAM as float32 values."""
    vlen = (cfg or small()).VLEN
    return vals(result.memories["vsram"][row * vlen:(row + 1) * vlen])


def f32_bits(x) -> int:
    return int(np.float32(x).view(np.uint32))
