"""Helpers for the aie model tests: a small configuration, assembling and running a
snippet, loading data memory and reading registers in natural units."""
from __future__ import annotations

import numpy as np

from kernelcraft.isa.aie import default_config
from kernelcraft.simulators.aie.assembler import assemble
from kernelcraft.simulators.aie.machine import AieModel
from kernelcraft.simulators.core.backend import MemoryImage
from kernelcraft.simulators.core.budget import Budget
from kernelcraft.simulators.numerics import bf16_bits_to_f32, f32_to_bf16_bits

SMALL = dict(DM_SIZE=8192, DM_BANKS=8, EXT_SIZE=65536, IMEM_WORDS=1024)


def small(**overrides):
    return default_config(**{**SMALL, **overrides})


def bf(values) -> np.ndarray:
    """bf16 bit patterns of values exactly representable in bf16."""
    return f32_to_bf16_bits(np.asarray(values, dtype=np.float32))


def unbf(bits) -> np.ndarray:
    return bf16_bits_to_f32(np.asarray(bits, dtype=np.uint16))


def image(dm: dict | None = None, ext: dict | None = None) -> MemoryImage:
    """dm={byte address: numpy array (its bytes)}, ext={word address: uint16 words}."""
    img = MemoryImage()
    for addr, v in (dm or {}).items():
        img.put("dm", addr, np.ascontiguousarray(v))
    for addr, v in (ext or {}).items():
        img.put("ext", addr, np.asarray(v, dtype=np.uint16))
    return img


def run(source: str, img: MemoryImage | None = None, cfg=None, budget: Budget = Budget(),
        trace: bool = False, expect_ok: bool = True):
    cfg = cfg or small()
    program = assemble(source, "test.asm", cfg)
    result = AieModel().run(program, img or MemoryImage(), cfg, budget, trace)
    if expect_ok:
        assert result.error is None, str(result.error)
    return result


def x16(result, i: int) -> np.ndarray:
    """16-bit lanes of vector register i."""
    return result.registers["x"][i].view(np.uint16)


def xbf(result, i: int) -> np.ndarray:
    return unbf(x16(result, i))


def accf(result, i: int) -> np.ndarray:
    return result.registers["acc"][i].view(np.float32)


def acci(result, i: int) -> np.ndarray:
    return result.registers["acc"][i].view(np.int32)
