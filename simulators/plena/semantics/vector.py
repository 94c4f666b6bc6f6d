"""Vector (V-type) semantics. Each operand is one Vector SRAM row at the address in a
gp register (a multiple of VLEN); bf16 operands are widened to fp32 exactly, one fp32
operation is done (RNE) and the result rounded once to bf16 (`round_bf16`)."""
import numpy as np

from kernelcraft.simulators.core.errors import IllegalOperandError
from kernelcraft.simulators.numerics import (bf16_unary, exp, fmax, fmin, max_f32, max_reduce,
                                             reciprocal, round_bf16, round_f32, softmax, tree_sum)

from . import semantics

F32 = np.float32
# V_TOPK: rmask selects (logits scanned, entries selected) -- README "V_TOPK".
TOPK_SHAPES = {0: (32, 4), 1: (128, 8)}


def _rows(m, *regs):
    return [m.v_rows(m.gp[r]) for r in regs]


@semantics
def V_ADD_VV(m, rd, rs1, rs2, rmask):
    d, a, b = _rows(m, rd, rs1, rs2)
    m.write_v(d, 0, round_bf16(m.V[a] + m.V[b]), rmask)


@semantics
def V_ADD_VF(m, rd, rs1, rs2, rmask):
    d, a = _rows(m, rd, rs1)
    m.write_v(d, 0, round_bf16(m.V[a] + F32(m.f[rs2])), rmask)


@semantics
def V_SUB_VV(m, rd, rs1, rs2, rmask):
    d, a, b = _rows(m, rd, rs1, rs2)
    m.write_v(d, 0, round_bf16(m.V[a] - m.V[b]), rmask)


@semantics
def V_SUB_VF(m, rd, rs1, rs2, rmask, rorder):
    d, a = _rows(m, rd, rs1)
    x, f = m.V[a], F32(m.f[rs2])
    m.write_v(d, 0, round_bf16(f - x if rorder else x - f), rmask)


@semantics
def V_MUL_VV(m, rd, rs1, rs2, rmask):
    d, a, b = _rows(m, rd, rs1, rs2)
    m.write_v(d, 0, round_bf16(m.V[a] * m.V[b]), rmask)


@semantics
def V_MUL_VF(m, rd, rs1, rs2, rmask):
    d, a = _rows(m, rd, rs1)
    m.write_v(d, 0, round_bf16(m.V[a] * F32(m.f[rs2])), rmask)


@semantics
def V_MAX_VF(m, rd, rs1, rs2, rmask):
    d, a = _rows(m, rd, rs1)
    m.write_v(d, 0, round_bf16(fmax(m.V[a], m.f[rs2])), rmask)


@semantics
def V_MIN_VF(m, rd, rs1, rs2, rmask):
    d, a = _rows(m, rd, rs1)
    m.write_v(d, 0, round_bf16(fmin(m.V[a], m.f[rs2])), rmask)


@semantics
def V_EXP_V(m, rd, rs1, rmask):
    d, a = _rows(m, rd, rs1)
    m.write_v(d, 0, bf16_unary(exp, m.V[a]), rmask)  # = round_bf16(exp(x))


@semantics
def V_RECI_V(m, rd, rs1, rmask):
    d, a = _rows(m, rd, rs1)
    m.write_v(d, 0, bf16_unary(reciprocal, m.V[a]), rmask)  # = round_bf16(1/x)


@semantics
def V_RED_SUM(m, rd, rs1):
    (a,) = _rows(m, rs1)
    m.set_f(rd, round_f32(m.f[rd] + float(tree_sum(m.V[a]))))


@semantics
def V_RED_MAX(m, rd, rs1):
    (a,) = _rows(m, rs1)
    m.set_f(rd, max_f32(m.f[rd], float(max_reduce(m.V[a]))))


@semantics
def V_SHFT_V(m, rd, rs1, rs2):
    d, a = _rows(m, rd, rs1)
    s = m.gp[rs2]
    if not 0 <= s <= m.VLEN:
        raise IllegalOperandError(
            f"V_SHFT_V shift amount gp{rs2} = {s} is outside 0..VLEN ({m.VLEN})")
    out = np.zeros(m.VLEN, F32)
    out[:m.VLEN - s] = m.V[a][s:]
    m.write_v(d, 0, out)


@semantics
def V_TOPK(m, rd, rs1, rs2, rmask):
    scan, k = TOPK_SHAPES[rmask]
    src = m.gp[rs1]
    m.v_span(src, -(-scan // m.VLEN), min(scan, m.VLEN), m.VLEN,
             f"VLEN={m.VLEN}: V_TOPK reads whole rows")
    w_addr, i_addr = m.fp_addr(m.gp[rd], k), m.int_addr(m.gp[rs2], k)
    logits = m.vsram[src:src + scan]
    if np.isnan(logits).any():
        bad = src + int(np.flatnonzero(np.isnan(logits))[0])
        raise IllegalOperandError(f"V_TOPK logit at Vector SRAM address {bad} is NaN",
                                  memory="vsram", address=bad)
    order = np.lexsort((np.arange(scan), -logits))[:k]   # descending, ties: smaller index
    weights = softmax(logits[order])
    for j in range(k):
        m.write_fp(w_addr + j, float(weights[j]))
        m.write_int(i_addr + j, int(order[j]))
