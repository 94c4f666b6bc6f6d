"""Scalar (S-type) semantics: the integer unit (gp, INT_MEM) and the fp32 unit
(f, FP_MEM). gp writes wrap to 32 bits in `set_gp`; fp results are rounded to fp32 here."""
from kernelcraft.simulators.numerics import (exp_f32, max_f32, recip_f32, round_bf16, round_f32,
                                             sqrt_f32)

from . import semantics


@semantics
def S_ADD_INT(m, rd, rs1, rs2):
    m.set_gp(rd, m.gp[rs1] + m.gp[rs2])


@semantics
def S_ADDI_INT(m, rd, rs1, imm):
    m.set_gp(rd, m.gp[rs1] + imm)


@semantics
def S_SUB_INT(m, rd, rs1, rs2):
    m.set_gp(rd, m.gp[rs1] - m.gp[rs2])


@semantics
def S_MUL_INT(m, rd, rs1, rs2):
    m.set_gp(rd, m.gp[rs1] * m.gp[rs2])


@semantics
def S_LUI_INT(m, rd, imm):
    m.set_gp(rd, imm << 12)


@semantics
def S_LD_INT(m, rd, rs1, imm):
    m.set_gp(rd, m.int_mem[m.int_addr(m.gp[rs1] + imm)])


@semantics
def S_ST_INT(m, rd, rs1, imm):
    m.write_int(m.int_addr(m.gp[rs1] + imm), m.gp[rd])


@semantics
def S_ADD_FP(m, rd, rs1, rs2):
    m.set_f(rd, round_f32(m.f[rs1] + m.f[rs2]))


@semantics
def S_SUB_FP(m, rd, rs1, rs2):
    m.set_f(rd, round_f32(m.f[rs1] - m.f[rs2]))


@semantics
def S_MAX_FP(m, rd, rs1, rs2):
    m.set_f(rd, max_f32(m.f[rs1], m.f[rs2]))


@semantics
def S_MUL_FP(m, rd, rs1, rs2):
    m.set_f(rd, round_f32(m.f[rs1] * m.f[rs2]))


@semantics
def S_EXP_FP(m, rd, rs1):
    m.set_f(rd, exp_f32(m.f[rs1]))


@semantics
def S_RECI_FP(m, rd, rs1):
    m.set_f(rd, recip_f32(m.f[rs1]))


@semantics
def S_SQRT_FP(m, rd, rs1):
    m.set_f(rd, sqrt_f32(m.f[rs1]))


@semantics
def S_LD_FP(m, rd, rs1, imm):
    m.set_f(rd, m.fp_mem[m.fp_addr(m.gp[rs1] + imm)])


@semantics
def S_ST_FP(m, rd, rs1, imm):
    m.write_fp(m.fp_addr(m.gp[rs1] + imm), m.f[rd])


@semantics
def S_MAP_V_FP(m, rd, rs1, imm):
    row = m.v_rows(m.gp[rd])
    src = m.fp_addr(m.gp[rs1] + imm, m.VLEN)
    m.write_v(row, 0, round_bf16(m.fp_mem[src:src + m.VLEN]))
