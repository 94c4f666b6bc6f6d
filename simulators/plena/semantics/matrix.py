"""Matrix (M-type) semantics. rs1 is always the Matrix SRAM address, rs2 the Vector
SRAM address (whole rows: a multiple of VLEN). Products accumulate into fp32
accumulators through `matmul_tree` (the README's dot-product order); the `_WO`
instructions round an accumulator to bf16 into Vector SRAM and clear it."""
from kernelcraft.simulators.numerics import matmul_tree, round_bf16

from . import semantics


def _write_out(m, name, row, values):
    m.write_v(row, 0, round_bf16(values).reshape(-1, m.VLEN))
    m.set_acc(name, 0)


@semantics
def M_MM(m, rs1, rs2):
    tile, c = m.m_tile(m.gp[rs1], column_block=True)
    a = m.v_rows(m.gp[rs2], m.BLEN)
    m.accumulate("MM_ACC", matmul_tree(m.V[a:a + m.BLEN], m.M[tile][:, c:c + m.BLEN]))


@semantics
def M_TMM(m, rs1, rs2):
    tile, c = m.m_tile(m.gp[rs1], column_block=True)
    a = m.v_rows(m.gp[rs2], m.BLEN)
    m.accumulate("MM_ACC", matmul_tree(m.V[a:a + m.BLEN], m.M[tile][c:c + m.BLEN, :].T))


@semantics
def M_MV(m, rs1, rs2):
    tile, _ = m.m_tile(m.gp[rs1])
    a = m.v_rows(m.gp[rs2])
    m.accumulate("MV_ACC", matmul_tree(m.V[a:a + 1], m.M[tile])[0])


@semantics
def M_TMV(m, rs1, rs2):
    tile, _ = m.m_tile(m.gp[rs1])
    a = m.v_rows(m.gp[rs2])
    m.accumulate("MV_ACC", matmul_tree(m.V[a:a + 1], m.M[tile].T)[0])


def _heads_q(m, a, rows):
    """Q_h[i, k] = V[row a + i, h*HLEN + k] as (HEADS, rows, HLEN)."""
    return m.V[a:a + rows].reshape(rows, m.HEADS, m.HLEN).transpose(1, 0, 2)


def _heads_k(m, tile, transposed):
    """K_h[k, j] as (HEADS, HLEN, MLEN): tile row h*HLEN + k, or (transposed) tile
    column h*HLEN + k of row j."""
    t = m.M[tile]
    if transposed:
        return t.reshape(m.MLEN, m.HEADS, m.HLEN).transpose(1, 2, 0)
    return t.reshape(m.HEADS, m.HLEN, m.MLEN)


@semantics
def M_BMM(m, rs1, rs2):
    tile, _ = m.m_tile(m.gp[rs1])
    a = m.v_rows(m.gp[rs2], m.MLEN)
    m.accumulate("BMM_ACC", matmul_tree(_heads_q(m, a, m.MLEN), _heads_k(m, tile, False)))


@semantics
def M_BTMM(m, rs1, rs2):
    tile, _ = m.m_tile(m.gp[rs1])
    a = m.v_rows(m.gp[rs2], m.MLEN)
    m.accumulate("BMM_ACC", matmul_tree(_heads_q(m, a, m.MLEN), _heads_k(m, tile, True)))


@semantics
def M_BMV(m, rs1, rs2):
    tile, _ = m.m_tile(m.gp[rs1])
    a = m.v_rows(m.gp[rs2])
    m.accumulate("BMV_ACC", matmul_tree(_heads_q(m, a, 1), _heads_k(m, tile, False))[:, 0])


@semantics
def M_BTMV(m, rs1, rs2):
    tile, _ = m.m_tile(m.gp[rs1])
    a = m.v_rows(m.gp[rs2])
    m.accumulate("BMV_ACC", matmul_tree(_heads_q(m, a, 1), _heads_k(m, tile, True))[:, 0])


@semantics
def M_MM_WO(m, rd, imm):
    d = m.gp[rd] + imm
    row = m.v_span(d, m.BLEN, m.BLEN, m.BLEN,
                   f"BLEN={m.BLEN}: M_MM_WO writes a BLEN x BLEN block")
    m.write_v(row, d % m.VLEN, round_bf16(m.acc["MM_ACC"]))
    m.set_acc("MM_ACC", 0)


@semantics
def M_MV_WO(m, rd, imm):
    _write_out(m, "MV_ACC", m.v_rows(m.gp[rd] + imm), m.acc["MV_ACC"])


@semantics
def M_BMM_WO(m, rd, imm):
    _write_out(m, "BMM_ACC", m.v_rows(m.gp[rd] + imm, m.HEADS * m.MLEN), m.acc["BMM_ACC"])


@semantics
def M_BMV_WO(m, rd, imm):
    _write_out(m, "BMV_ACC", m.v_rows(m.gp[rd] + imm, m.HEADS), m.acc["BMV_ACC"])
