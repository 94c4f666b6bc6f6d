"""Matrix (M-type) instructions on the small configuration (MLEN = VLEN = 8, BLEN = 2,
HLEN = 4, HEADS = 2). The tile holds T[k][j] = 8k + j; expected values by hand."""
import numpy as np
import pytest

from plena_kit import image, run, vrow
from kernelcraft.simulators.core.errors import MemoryAccessError

TILE = [[8 * k + j for j in range(8)] for k in range(8)]
E = np.eye(8).tolist()


def mrun(body, rows=None, tile_at=64, **kw):
    """Tile T in Matrix SRAM tile 1 (address 64); `rows` {row: values} in Vector SRAM."""
    vs = {8 * r: v for r, v in (rows or {}).items()}
    img = image(msram={tile_at: sum(TILE, [])}, vsram=vs)
    return run("S_ADDI_INT gp1, gp0, 64\n" + body, img, **kw)


def rows_of(result, first, count):
    return [vrow(result, r).tolist() for r in range(first, first + count)]


A = {0: [1, 0, 0, 0, 0, 0, 0, 0], 1: [0, 1, 1, 0, 0, 0, 0, 0]}
FILL = {10: [7] * 8, 11: [7] * 8}


def test_mm_selects_blen_columns_and_writes_a_block():
    # c = 2: columns 2, 3. Row 0 of A picks T[0][2..3]; row 1 sums T[1] + T[2].
    r = mrun("""
        S_ADDI_INT gp2, gp1, 2
        M_MM 0, gp2, gp0
        S_ADDI_INT gp3, gp0, 80
        M_MM_WO gp3, gp0, 4           ; rows 10, 11, columns 4..5
    """, rows={**A, **FILL})
    assert rows_of(r, 10, 2) == [[7, 7, 7, 7, 2, 3, 7, 7], [7, 7, 7, 7, 28, 30, 7, 7]]
    assert not r.registers["MM_ACC"].any()


def test_mm_accumulates_until_write_out():
    r = mrun("""
        M_MM 0, gp1, gp0
        M_MM 0, gp1, gp0
        S_ADDI_INT gp3, gp0, 80
        M_MM_WO gp3, gp0, 0
        M_MM_WO gp3, gp0, 2           ; cleared: writes zeros
    """, rows={**A, **FILL})
    assert rows_of(r, 10, 2) == [[0, 2, 0, 0, 7, 7, 7, 7], [48, 52, 0, 0, 7, 7, 7, 7]]


def test_mm_accumulator_visible_before_write_out():
    r = mrun("M_MM 0, gp1, gp0", rows=A)
    assert r.registers["MM_ACC"].tolist() == [[0, 1], [24, 26]]


def test_tmm_uses_tile_rows_transposed():
    # B[k][j] = T[c + j][k], c = 2: row 0 -> T[2][0], T[3][0]; row 1 -> T[r][1] + T[r][2]
    r = mrun("""
        S_ADDI_INT gp2, gp1, 2
        M_TMM 0, gp2, gp0
        S_ADDI_INT gp3, gp0, 80
        M_MM_WO gp3, gp0, 0
    """, rows={**A, **FILL})
    assert rows_of(r, 10, 2) == [[16, 24, 7, 7, 7, 7, 7, 7], [35, 51, 7, 7, 7, 7, 7, 7]]


V = {3: [1, 0, 0, 2, 0, 0, 0, 0]}


def test_mv_and_write_out():
    r = mrun("""
        S_ADDI_INT gp2, gp0, 24
        M_MV 0, gp1, gp2
        M_MV_WO gp0, 40               ; row 5
    """, rows=V)
    assert vrow(r, 5).tolist() == [48 + 3 * j for j in range(8)]
    assert not r.registers["MV_ACC"].any()


def test_tmv():
    r = mrun("""
        S_ADDI_INT gp2, gp0, 24
        M_TMV 0, gp1, gp2
        M_TMV 0, gp1, gp2
        M_MV_WO gp2, 16               ; row 5
    """, rows=V)
    assert vrow(r, 5).tolist() == [2 * (24 * j + 6) for j in range(8)]


def test_bmm_per_head_and_write_out():
    # Q = identity rows: head h sees Q_h[i, k] = 1 iff i == 4h + k, so
    # BMM_ACC[h, i, :] = T[i] for i in head h's range, else 0.
    r = mrun("""
        M_BMM 0, gp1, gp0             ; Q rows 0..7
        S_ADDI_INT gp3, gp0, 128
        M_BMM_WO gp3, 0               ; rows 16 + h*8 + i
    """, rows=dict(enumerate(E)))
    got = rows_of(r, 16, 16)
    for i in range(8):
        assert got[i] == (TILE[i] if i < 4 else [0] * 8)
        assert got[8 + i] == (TILE[i] if i >= 4 else [0] * 8)
    assert not r.registers["BMM_ACC"].any()


def test_btmm_uses_the_tile_transposed():
    r = mrun("""
        M_BTMM 0, gp1, gp0
        M_BTMM 0, gp1, gp0
        S_ADDI_INT gp3, gp0, 128
        M_BMM_WO gp3, 0
    """, rows=dict(enumerate(E)))
    got = rows_of(r, 16, 16)
    col = [[2 * TILE[j][i] for j in range(8)] for i in range(8)]
    for i in range(8):
        assert got[i] == (col[i] if i < 4 else [0] * 8)
        assert got[8 + i] == (col[i] if i >= 4 else [0] * 8)


Q = {2: [1, 0, 0, 0, 0, 2, 0, 0]}     # q_0 = e_0, q_1 = 2 e_1


def test_bmv_and_write_out():
    r = mrun("""
        S_ADDI_INT gp2, gp0, 16
        M_BMV 0, gp1, gp2
        M_BMV_WO gp0, 48              ; rows 6, 7
    """, rows=Q)
    assert rows_of(r, 6, 2) == [TILE[0], [80 + 2 * j for j in range(8)]]
    assert not r.registers["BMV_ACC"].any()


def test_btmv():
    r = mrun("""
        S_ADDI_INT gp2, gp0, 16
        M_BTMV 0, gp1, gp2
        M_BMV_WO gp0, 48
    """, rows=Q)
    assert rows_of(r, 6, 2) == [[8 * j for j in range(8)], [16 * j + 10 for j in range(8)]]


def test_dot_products_use_the_halving_order_and_accumulate_in_fp32():
    # v = [2^24, 1, -2^24, 1, 0...] against a tile column of ones: halving gives 2
    # (left to right would give 1); the accumulator then adds 0.5 from a second M_MV.
    ones = [1] * 8
    img = image(msram={0: ones * 8}, vsram={0: [2**24, 1, -2**24, 1, 0, 0, 0, 0],
                                            8: [0.5, 0, 0, 0, 0, 0, 0, 0]})
    r = run("""
        M_MV 0, gp0, gp0
        S_ADDI_INT gp2, gp0, 8
        M_MV 0, gp0, gp2
    """, img)
    assert r.registers["MV_ACC"].tolist() == [2.5] * 8


@pytest.mark.parametrize("body, memory, address, fragment", [
    ("S_ADDI_INT gp2, gp1, 3\nM_MM 0, gp2, gp0", "msram", 67, "multiple of BLEN=2 below MLEN=8"),
    ("S_ADDI_INT gp2, gp1, 8\nM_MM 0, gp2, gp0", "msram", 72, "multiple of BLEN=2 below MLEN=8"),
    ("S_ADDI_INT gp2, gp0, 4\nM_MM 0, gp1, gp2", "vsram", 4, "not a multiple of 8"),
    ("S_ADDI_INT gp2, gp0, 504\nM_MM 0, gp1, gp2", "vsram", 504, "runs past the end"),
    ("S_ADDI_INT gp2, gp1, 8\nM_MV 0, gp2, gp0", "msram", 72, "not a multiple of MLEN*MLEN=64"),
    ("S_ADDI_INT gp2, gp0, 256\nM_BMM 0, gp2, gp0", "msram", 256, "runs past the end"),
    ("S_ADDI_INT gp2, gp0, 456\nM_BMM 0, gp1, gp2", "vsram", 456, "runs past the end"),
    ("S_ADDI_INT gp2, gp0, -64\nM_BTMV 0, gp2, gp0", "msram", -64, "is negative"),
    ("M_MM_WO gp0, gp0, 3", "vsram", 3, "not a multiple of 2"),
    ("M_MM_WO gp0, gp0, 506", "vsram", 506, "runs past the end"),
    ("M_MV_WO gp0, 4", "vsram", 4, "not a multiple of 8"),
    ("M_BMM_WO gp0, 400", "vsram", 400, "runs past the end"),
    ("M_BMV_WO gp0, 504", "vsram", 504, "runs past the end"),
])
def test_matrix_address_errors(body, memory, address, fragment):
    r = mrun(body, expect_ok=False)
    assert isinstance(r.error, MemoryAccessError)
    assert (r.error.memory, r.error.address) == (memory, address)
    assert fragment in str(r.error)
    assert r.error.where.text == body.splitlines()[-1]
    assert not r.registers["MM_ACC"].any() and not r.registers["BMM_ACC"].any()
