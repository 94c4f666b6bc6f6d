"""Vector-slot operations. bf16 lanes are widened to fp32 exactly (`_bf`); fp32
results are rounded once per operation and NaNs made canonical; integer lanes wrap as
int32 unless the record says they saturate (VSRS)."""
import numpy as np

from kernelcraft.simulators.numerics import (canon, f32_to_bf16_bits, fmax, fmin, max_reduce,
                                             tree_sum)

from .. import numerics as nx
from ..state import MAC_ADD, MAC_MATRIX, MAC_SUB
from . import semantics

F32, U16, U32 = np.float32, np.uint16, np.uint32
_SIXTEEN = U32(16)


def _bf(lanes: np.ndarray) -> np.ndarray:
    """bf16 bit patterns -> float32 values (exact)."""
    return _BF16.take(lanes)


_BF16 = nx.BF16_VALUES


def _half(m, w: int) -> np.ndarray:
    """The 32 int8 lanes of half register w."""
    h = (w & 1) * 32
    return m.xi8[w >> 1, h:h + 32]


def _pair(m, y: int, view: str) -> np.ndarray:
    return getattr(m, view)[2 * y:2 * y + 2].ravel()


# --- multiply-accumulate ------------------------------------------------------------

@semantics(name="VMUL_I8")
def vmul_i8(m, d, a, b):
    m.set_acc(d, _half(m, a).astype(np.int32) * _half(m, b))


@semantics(name="VMUL_I16")
def vmul_i16(m, d, a, b):
    m.set_acc(d, m.xi16[a].astype(np.int32) * m.xi16[b])


@semantics(name="VMUL_BF16")
def vmul_bf16(m, d, a, b):
    m.set_acc(d, canon(_bf(m.x16[a]) * _bf(m.x16[b])))


@semantics(name="VMAC_I8")
def vmac_i8(m, d, a, b):
    m.set_acc(d, m.acci[d] + _half(m, a).astype(np.int32) * _half(m, b))


@semantics(name="VMAC_I16")
def vmac_i16(m, d, a, b):
    m.set_acc(d, m.acci[d] + m.xi16[a].astype(np.int32) * m.xi16[b])




def mac_term_values(kind: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The fp32 terms of bf16 multiply-accumulates of one kind, one row each: products
    of rows of a and b (negated for MAC_SUB), or for MAC_MATRIX 4x8x8 tile products of
    rows of a and rows of b (a y register) summed by halving."""
    if kind == MAC_MATRIX:
        return nx.mmul_bf16_bits(a, b)
    t = _bf(a) * _bf(b)
    return -t if kind == MAC_SUB else t


def mac_terms(acc: np.ndarray, kinds: list, a: np.ndarray, b: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The accumulator after the queued bf16 multiply-accumulates, applied in order
    (kinds[k] with operands a[k] and b[k], or y[k] for a tile product): each term is
    added with one fp32 rounding, exactly as the operations do one at a time."""
    terms, k, n = [], 0, len(kinds)
    while k < n:
        kind = kinds[k]
        j = n if kinds.count(kind) == n else k     # (one kind throughout: no scan)
        while j < n and kinds[j] == kind:
            j += 1
        terms.append(mac_term_values(kind, a[k:j], (y if kind == MAC_MATRIX else b)[k:j]))
        k = j
    # (each term array is fresh: the sum may be made in it)
    return nx.accumulate_f32_in(acc, terms[0] if len(terms) == 1 else np.concatenate(terms))


def mac_terms_rows(accs: np.ndarray, kinds: list, a: np.ndarray, b: np.ndarray, y: np.ndarray
                   ) -> np.ndarray:
    """mac_terms of several accumulators (accs (g, 32)) with the same kinds queued at
    once: a, b and y hold each one's operands (g, len(kinds), lanes)."""
    g, n = a.shape[:2]
    terms, k = [], 0
    while k < n:
        kind = kinds[k]
        j = n if kinds.count(kind) == n else k
        while j < n and kinds[j] == kind:
            j += 1
        other = y if kind == MAC_MATRIX else b
        terms.append(mac_term_values(kind, a[:, k:j].reshape(-1, 32),
                                     other[:, k:j].reshape(g * (j - k), -1)).reshape(g, j - k, 32))
        k = j
    # (each term array is fresh: the sums may be made in it)
    return nx.accumulate_f32_rows_in(accs, terms[0] if len(terms) == 1 else np.concatenate(terms, axis=1))


@semantics(name="VMAC_BF16")
def vmac_bf16(m, d, a, b):
    if m.defer_macs:
        m.queue_mac(d, MAC_ADD, m.x16[a], m.x16[b])
    else:
        m.set_acc(d, canon(m.accf[d] + _bf(m.x16[a]) * _bf(m.x16[b])))


@semantics(name="VMSC_BF16")
def vmsc_bf16(m, d, a, b):
    if m.defer_macs:
        m.queue_mac(d, MAC_SUB, m.x16[a], m.x16[b])
    else:
        m.set_acc(d, canon(m.accf[d] - _bf(m.x16[a]) * _bf(m.x16[b])))


@semantics(name="VMMAC_I8")
def vmmac_i8(m, d, a, b):
    c = m.xi8[a].reshape(4, 16).astype(np.int64) @ _pair(m, b, "xi8").reshape(16, 8).astype(np.int64)
    m.set_acc(d, nx.wrap32(m.acci[d] + c.ravel()))


@semantics(name="VMMAC_I16")
def vmmac_i16(m, d, a, b):
    c = m.xi16[a].reshape(4, 8).astype(np.int64) @ _pair(m, b, "xi16").reshape(8, 8).astype(np.int64)
    m.set_acc(d, nx.wrap32(m.acci[d] + c.ravel()))


@semantics(name="VMMAC_BF16")
def vmmac_bf16(m, d, a, b):
    if m.defer_macs:
        m.queue_mac(d, MAC_MATRIX, m.x16[a], m.y16[b])
    else:
        s = nx.mmul_bf16(_bf(m.x16[a]).reshape(4, 8), _bf(_pair(m, b, "x16")).reshape(8, 8))
        m.set_acc(d, nx.mac_f32(m.accf[d], s.ravel()))


# --- accumulator arithmetic -----------------------------------------------------------

@semantics(name="AADD_I32")
def aadd_i32(m, d, a, b):
    m.set_acc(d, m.acci[a] + m.acci[b])


@semantics(name="ASUB_I32")
def asub_i32(m, d, a, b):
    m.set_acc(d, m.acci[a] - m.acci[b])


@semantics(name="AADD_F32")
def aadd_f32(m, d, a, b):
    m.set_acc(d, canon(m.accf[a] + m.accf[b]))


@semantics(name="ASUB_F32")
def asub_f32(m, d, a, b):
    m.set_acc(d, canon(m.accf[a] - m.accf[b]))


@semantics(name="AMUL_F32")
def amul_f32(m, d, a, b):
    m.set_acc(d, canon(m.accf[a] * m.accf[b]))


@semantics(name="AMAX_F32")
def amax_f32(m, d, a, b):
    m.set_acc(d, fmax(m.accf[a], m.accf[b]))


# --- conversions ------------------------------------------------------------------------

@semantics(name="VSRS_I8")
def vsrs_i8(m, d, a, imm):
    m.set_w(d, nx.srs(m.acci[a], imm, m.rm, 8).astype(np.int8))


@semantics(name="VSRS_I16")
def vsrs_i16(m, d, a, imm):
    m.set_x(d, nx.srs(m.acci[a], imm, m.rm, 16).astype(np.int16))


@semantics(name="VSRS_BF16")
def vsrs_bf16(m, d, a):
    m.set_x(d, nx.to_bf16_bits(m.accf[a]))


@semantics(name="VUPS_I8")
def vups_i8(m, d, a, imm):
    m.set_acc(d, nx.ups(_half(m, a), imm))


@semantics(name="VUPS_I16")
def vups_i16(m, d, a, imm):
    m.set_acc(d, nx.ups(m.xi16[a], imm))


@semantics(name="VUPS_BF16")
def vups_bf16(m, d, a):
    m.set_acc(d, m.x16[a].astype(U32) << _SIXTEEN)


# --- lane ALU -------------------------------------------------------------------------

@semantics(name="VADD_I8")
def vadd_i8(m, d, a, b):
    m.set_x(d, m.xi8[a] + m.xi8[b])


@semantics(name="VADD_I16")
def vadd_i16(m, d, a, b):
    m.set_x(d, m.xi16[a] + m.xi16[b])


@semantics(name="VSUB_I8")
def vsub_i8(m, d, a, b):
    m.set_x(d, m.xi8[a] - m.xi8[b])


@semantics(name="VSUB_I16")
def vsub_i16(m, d, a, b):
    m.set_x(d, m.xi16[a] - m.xi16[b])


@semantics(name="VMAX_I8")
def vmax_i8(m, d, a, b):
    m.set_x(d, np.maximum(m.xi8[a], m.xi8[b]))


@semantics(name="VMAX_I16")
def vmax_i16(m, d, a, b):
    m.set_x(d, np.maximum(m.xi16[a], m.xi16[b]))


@semantics(name="VMAX_BF16")
def vmax_bf16(m, d, a, b):
    m.set_x(d, nx.bf16_max(m.x16[a], m.x16[b]))


@semantics(name="VMIN_I8")
def vmin_i8(m, d, a, b):
    m.set_x(d, np.minimum(m.xi8[a], m.xi8[b]))


@semantics(name="VMIN_I16")
def vmin_i16(m, d, a, b):
    m.set_x(d, np.minimum(m.xi16[a], m.xi16[b]))


@semantics(name="VMIN_BF16")
def vmin_bf16(m, d, a, b):
    m.set_x(d, nx.bf16_min(m.x16[a], m.x16[b]))


@semantics
def VAND(m, d, a, b):
    m.set_x(d, m.x[a] & m.x[b])


@semantics
def VOR(m, d, a, b):
    m.set_x(d, m.x[a] | m.x[b])


@semantics
def VXOR(m, d, a, b):
    m.set_x(d, m.x[a] ^ m.x[b])


# --- shuffles -------------------------------------------------------------------------

_VIEW = {8: np.uint8, 16: np.uint16, 32: np.uint32}


@semantics
def VSHUF(m, d, a, b, imm):
    mode = m.shuffles[imm]
    pair = np.concatenate((m.x[a], m.x[b])).view(_VIEW[mode.bits])
    m.set_x(d, pair[mode.index])


@semantics
def VALIGN(m, d, a, b, imm):
    m.set_x(d, np.concatenate((m.x[a], m.x[b]))[imm:imm + 64])


@semantics(name="VBCL_16")
def vbcl_16(m, d, a, imm):
    m.set_x(d, np.full(32, m.x16[a, imm], dtype=U16))


# --- reductions -----------------------------------------------------------------------

@semantics(name="AREDADD_F32")
def aredadd_f32(m, d, a):
    m.set_acc(d, canon(np.full(32, tree_sum(m.accf[a]), dtype=F32)))


@semantics(name="AREDADD_I32")
def aredadd_i32(m, d, a):
    m.set_acc(d, np.full(32, nx.wrap32(m.acci[a].astype(np.int64).sum()), dtype=np.int32))


@semantics(name="VREDMAX_BF16")
def vredmax_bf16(m, d, a):
    m.set_x(d, np.full(32, f32_to_bf16_bits(max_reduce(_bf(m.x16[a]))), dtype=U16))


# --- function unit --------------------------------------------------------------------

@semantics(name="VPWL_EXP")
def vpwl_exp(m, d, a):
    m.set_acc(d, nx.pwl_exp(m.accf[a], *m.tables["EXP"][:2]))


@semantics(name="VPWL_RCP")
def vpwl_rcp(m, d, a):
    m.set_acc(d, nx.pwl_rcp(m.accf[a], *m.tables["RCP"][:2]))


@semantics(name="VPWL_RSQRT")
def vpwl_rsqrt(m, d, a):
    m.set_acc(d, nx.pwl_rsqrt(m.accf[a], *m.tables["RSQRT"][:2]))
