"""Memory (H-type) semantics: transfers between HBM and the on-chip SRAMs. The data
moves at issue (program order); when it becomes usable is the timing model's business.
HBM rows are at a[rs2] + gp[rs1] + r*S, S = STRIDE with rstride=1, else the row
length. `precision` selects the data format; both formats are bf16 today."""
from ..state import bf16_bits
from . import semantics


@semantics
def H_PREFETCH_V(m, rd, rs1, rs2, rstride, precision):
    rows, vlen = m.cfg.HBM_V_PREFETCH_AMOUNT, m.VLEN
    dst = m.v_rows(m.gp[rd], rows)
    m.write_v(dst, 0, m.read_hbm(m.a[rs2] + m.gp[rs1], rows, m.stride(rstride, vlen), vlen))


@semantics
def H_PREFETCH_M(m, rd, rs1, rs2, rstride, precision):
    mlen = m.MLEN
    tile, _ = m.m_tile(m.gp[rd])
    m.write_tile(tile, m.read_hbm(m.a[rs2] + m.gp[rs1], mlen, m.stride(rstride, mlen), mlen))


@semantics
def H_STORE_V(m, rd, rs1, rs2, rstride, precision):
    rows, vlen = m.cfg.HBM_V_WRITEBACK_AMOUNT, m.VLEN
    src = m.v_rows(m.gp[rd], rows)
    starts = m.hbm_rows(m.a[rs2] + m.gp[rs1], rows, m.stride(rstride, vlen), vlen, write=True)
    bits = bf16_bits(m.V[src:src + rows])
    for r, addr in enumerate(starts):     # row by row: with STRIDE < VLEN later rows win
        m.write_hbm(addr, bits[r])
