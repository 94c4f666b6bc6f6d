"""Scalar-slot arithmetic and move-slot operations on r, p, m and g registers and
broadcasts. Integers are Python ints; the write methods wrap them to 32 bits."""
import numpy as np

from ..state import C1, C2, G_FIELDS
from . import semantics


@semantics
def ADD(m, d, a, b):
    m.set_r(d, m.r[a] + m.r[b])


@semantics
def SUB(m, d, a, b):
    m.set_r(d, m.r[a] - m.r[b])


@semantics
def MUL(m, d, a, b):
    m.set_r(d, m.r[a] * m.r[b])


@semantics
def AND(m, d, a, b):
    m.set_r(d, m.r[a] & m.r[b])


@semantics
def OR(m, d, a, b):
    m.set_r(d, m.r[a] | m.r[b])


@semantics
def ADDI(m, d, a, imm):
    m.set_r(d, m.r[a] + imm)


@semantics
def SLLI(m, d, a, imm):
    m.set_r(d, m.r[a] << imm)


@semantics
def SRAI(m, d, a, imm):
    m.set_r(d, m.r[a] >> imm)


@semantics
def SRLI(m, d, a, imm):
    m.set_r(d, (m.r[a] & 0xFFFFFFFF) >> imm)


@semantics
def PADD(m, d, a):
    m.set_p(d, m.p[d] + m.r[a])


@semantics
def PADDI(m, d, a, imm):
    m.set_p(d, m.p[a] + imm)


@semantics
def SETRM(m, imm):
    m.set_rm(imm)


@semantics
def NOP(m):
    pass


@semantics
def MOVI(m, d, imm):
    m.set_r(d, imm)


@semantics
def MOVHI(m, d, imm):
    m.set_r(d, (imm << 16) | (m.r[d] & 0xFFFF))


@semantics
def MOV(m, d, a):
    m.set_r(d, m.r[a])


@semantics
def MOVP(m, d, a):
    m.set_p(d, m.r[a])


@semantics
def MOVM(m, d, a):
    m.set_m(d, m.r[a])


@semantics
def MOVPI(m, d, imm):
    m.set_p(d, imm)


def _gset(index: int):
    def gset(m, d, a):
        g = list(m.g[d])
        g[index] = m.r[a]
        g[C1] = g[C2] = 0
        m.set_g(d, g)
    return gset


for _i, _f in enumerate(G_FIELDS):
    semantics(_gset(_i), name=f"GSET_{_f}")


@semantics(name="VBCST_16")
def vbcst16(m, d, a):
    m.set_x(d, np.full(32, m.r[a] & 0xFFFF, dtype=np.uint16))


@semantics(name="VBCST_32")
def vbcst32(m, d, a):
    m.set_x(d, np.full(16, m.r[a] & 0xFFFFFFFF, dtype=np.uint32))


@semantics
def ABCST(m, d, a):
    m.set_acc(d, np.full(32, m.r[a] & 0xFFFFFFFF, dtype=np.uint32))


@semantics
def VMOV(m, d, a):
    m.set_x(d, m.x[a])


@semantics
def AMOV(m, d, a):
    m.set_acc(d, m.acc[a])
