"""Specialised closures for the fast path of plena's commonest scalar and loop
instructions: the address arithmetic and loop counting around every vector kernel.

semantics/scalar.py and semantics/control.py are the definition; these closures do the
same with one Python call instead of a bound semantics function calling a write method
(`PlenaState.set_gp`'s 32-bit wrap is written inline). A write to gp0, which the
semantics drop, and anything that raises (C_LOOP_END with no open loop) are left to the
reference. Runs with `Budget(fast=False)` step the reference semantics, so the parity
tests compare these closures against them.
The fp32 arithmetic rounds as numerics.round_f32 does (one binary64 operation, then
to binary32 through struct); a NaN or an overflow goes to the reference.
"""
from __future__ import annotations

import operator
import struct

from kernelcraft.simulators.numerics import max_f32, recip_f32, sqrt_f32

_F32 = struct.Struct("<f")


def _addi(m, ref, rd, rs1, imm):
    if not rd:
        return ref
    gp = m.gp

    def run():
        gp[rd] = ((gp[rs1] + imm + 0x80000000) & 0xFFFFFFFF) - 0x80000000
    return run


def _add(m, ref, rd, rs1, rs2):
    if not rd:
        return ref
    gp = m.gp

    def run():
        gp[rd] = ((gp[rs1] + gp[rs2] + 0x80000000) & 0xFFFFFFFF) - 0x80000000
    return run


def _loop_end(m, ref, rd, pc):
    """C_LOOP_END: count down gp[rd]; the body's start while it is positive, else close
    the loop (None)."""
    if not rd:
        return ref
    gp, loops = m.gp, m.loops

    def run():
        if not loops:
            return ref()
        v = gp[rd] = ((gp[rd] - 1 + 0x80000000) & 0xFFFFFFFF) - 0x80000000
        if v > 0:
            return loops[-1]
        loops.pop()
    return run


def _fp_binary(op):
    def make(m, ref, rd, rs1, rs2):
        if not rd:
            return ref
        f = m.f
        pack, unpack = _F32.pack, _F32.unpack

        def run():
            x = op(f[rs1], f[rs2])
            if x != x:
                return ref()
            try:
                f[rd] = unpack(pack(x))[0]
            except OverflowError:
                return ref()
        return run
    return make


def _fp_call(fn, arity: int):
    """S_MAX_FP, S_RECI_FP, S_SQRT_FP: the reference's own numerics function, without
    the bound semantics and PlenaState.set_f around it."""
    def make(m, ref, rd, rs1, rs2=None):
        if not rd:
            return ref
        f = m.f
        if arity == 2:
            def run():
                f[rd] = fn(f[rs1], f[rs2])
        else:
            def run():
                f[rd] = fn(f[rs1])
        return run
    return make


def _fp_mem(load: bool):
    """S_LD_FP (load) / S_ST_FP: an FP_MEM address out of range goes to the reference."""
    def make(m, ref, rd, rs1, imm):
        if load and not rd:
            return ref
        f, gp, mem = m.f, m.gp, m.fp_mem
        n = len(mem)

        def run():
            a = gp[rs1] + imm
            if not 0 <= a < n:
                return ref()
            if load:
                f[rd] = mem[a]
            else:
                mem[a] = f[rd]
        return run
    return make


MAKERS = {"S_ADDI_INT": _addi, "S_ADD_INT": _add, "C_LOOP_END": _loop_end,
          "S_ADD_FP": _fp_binary(operator.add), "S_SUB_FP": _fp_binary(operator.sub),
          "S_MUL_FP": _fp_binary(operator.mul), "S_LD_FP": _fp_mem(True), "S_ST_FP": _fp_mem(False),
          "S_MAX_FP": _fp_call(max_f32, 2), "S_RECI_FP": _fp_call(recip_f32, 1),
          "S_SQRT_FP": _fp_call(sqrt_f32, 1)}
