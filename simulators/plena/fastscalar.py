"""Specialised closures for the fast path of plena's commonest scalar and loop
instructions: the address arithmetic and loop counting around every vector kernel.

semantics/scalar.py and semantics/control.py are the definition; these closures do the
same with one Python call instead of a bound semantics function calling a write method
(`PlenaState.set_gp`'s 32-bit wrap is written inline). A write to gp0, which the
semantics drop, and anything that raises (C_LOOP_END with no open loop) are left to the
reference. Runs with `Budget(fast=False)` step the reference semantics, so the parity
tests compare these closures against them.
"""
from __future__ import annotations


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


MAKERS = {"S_ADDI_INT": _addi, "S_ADD_INT": _add, "C_LOOP_END": _loop_end}
