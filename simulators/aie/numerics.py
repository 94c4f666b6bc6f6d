"""aie numerics on top of the shared bf16/fp32 module (simulators/numerics.py): integer
shift-round-saturate and upshift, the matrix multiply-accumulate's summation order, and
the function unit (VPWL.*). Each function is the specification the manual states
("Numerics", "Function unit"); the functional model calls nothing else.

Integer lanes travel as numpy int64 (wide enough for every intermediate), fp32 lanes as
float32; every fp32 NaN a function returns is the canonical quiet NaN.
"""
from __future__ import annotations

import numpy as np

from kernelcraft.simulators.numerics import CANON_NAN_F32, LOG2E, canon, f32_to_bf16_bits

F32 = np.float32
# Rounding modes of VSRS (the values of SETRM; isa/aie/bundle.toml, state.RM).
FLOOR, HALF_UP, HALF_EVEN, HALF_AWAY = range(4)
_NAN = CANON_NAN_F32.view(F32)


def wrap32(v: np.ndarray) -> np.ndarray:
    """Two's-complement wrap of integer lanes to int32."""
    return np.asarray(v, dtype=np.int64).astype(np.int32)


# --- bf16 bit patterns ---------------------------------------------------------------
# max and min of bf16 lanes by table, without widening: each pattern maps to a key whose
# unsigned order is the values' order (-0 just below +0, as numerics.fmax/fmin decide
# between the zeros), NaN to the top key (for max) or the bottom one (for min), so that
# it wins; _BACK maps a key to its pattern and both NaN keys to the canonical NaN. The
# same bits as rounding fmax/fmin of the widened values (a bf16 value rounds to itself).
def _order_tables():
    x = np.arange(65536, dtype=np.int64)
    mag = x & 0x7FFF
    key = np.where(x & 0x8000, 0x7FFF - mag, 0x8000 + mag)       # 0x7F..0xFF80
    nan = mag > 0x7F80
    back = np.zeros(65536, np.uint16)
    back[key[~nan]] = x[~nan]
    back[0] = back[0xFFFF] = 0x7FC0
    return (np.where(nan, 0xFFFF, key).astype(np.uint16), np.where(nan, 0, key).astype(np.uint16),
            back)


_UP, _DOWN, _BACK = _order_tables()


def bf16_max(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Lane max of bf16 bit patterns (uint16): NaN canonical, max(-0, +0) = +0."""
    return _BACK.take(np.maximum(_UP.take(a), _UP.take(b)))


def bf16_min(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Lane min of bf16 bit patterns (uint16): NaN canonical, min(-0, +0) = -0."""
    return _BACK.take(np.minimum(_DOWN.take(a), _DOWN.take(b)))


_SIXTEEN, _ONE, _BIAS = np.uint32(16), np.uint32(1), np.uint32(0x7FFF)


def to_bf16_bits(x: np.ndarray) -> np.ndarray:
    """numerics.f32_to_bf16_bits of float32 lanes, with fewer calls when no lane is NaN
    (NaN fails the comparison)."""
    x = np.asarray(x, dtype=F32)
    top = np.maximum.reduce(x, axis=None)
    if top == top:
        u = x.view(np.uint32)
        r = u >> _SIXTEEN
        r &= _ONE
        r += _BIAS
        r += u
        r >>= _SIXTEEN
        return r.astype(np.uint16)
    return f32_to_bf16_bits(x)


def shift_round(v: np.ndarray, shift: int, mode: int) -> np.ndarray:
    """v / 2^shift rounded by `mode` (int64 lanes, exact)."""
    v = np.asarray(v, dtype=np.int64)
    if shift == 0:
        return v
    q = v >> shift                       # floor
    if mode == FLOOR:
        return q
    r = v - (q << shift)                 # remainder, 0 <= r < 2^shift
    half = 1 << (shift - 1)
    up = r > half
    tie = r == half
    if mode == HALF_UP:
        up |= tie
    elif mode == HALF_EVEN:
        up |= tie & (q & 1).astype(bool)
    else:                                # HALF_AWAY: ties away from zero (up when v > 0)
        up |= tie & (v >= 0)
    return q + up


def srs(v: np.ndarray, shift: int, mode: int, bits: int) -> np.ndarray:
    """Shift-round-saturate int32 lanes to signed `bits`-bit lanes (int64 result)."""
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return np.clip(shift_round(v, shift, mode), lo, hi)


def ups(v: np.ndarray, shift: int) -> np.ndarray:
    """Upshift: sign-extended lanes shifted left, wrapped to int32."""
    return wrap32(np.asarray(v, dtype=np.int64) << shift)


def mmul_bf16(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A (..., 4, 8) @ B (..., 8, 8) of bf16-exact float32 with every dot product summed
    by halving over K in fp32: the shared `matmul_tree` order, unrolled for K = 8."""
    p = a[..., :, :, None] * b[..., None, :, :]          # (..., 4, 8, 8): m, k, n
    s = p[..., :4, :] + p[..., 4:, :]
    s = s[..., :2, :] + s[..., 2:, :]
    return s[..., 0, :] + s[..., 1, :]


# bf16 bit pattern -> its float32 value (exact), as one table look-up
BF16_VALUES = (np.arange(65536, dtype=np.uint32) << _SIXTEEN).view(F32)
_GATHER: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def _gather(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Where mmul_bf16_bits' k-major products take their operands from: element
    [k, j, m, c] of n tiles reads a[j, 8m + k] and y[j, 8k + c]."""
    got = _GATHER.get(n)
    if got is None:
        k, j, m, c = np.meshgrid(np.arange(8), np.arange(n), np.arange(4), np.arange(8), indexing="ij")
        got = _GATHER[n] = ((j * 32 + m * 8 + k).ravel(), (j * 64 + k * 8 + c).ravel())
    return got


def mmul_bf16_bits(a: np.ndarray, y: np.ndarray) -> np.ndarray:
    """mmul_bf16 of n tiles given as bf16 bit patterns, a (n, 32) rows of A and y (n, 64)
    rows of B, -> (n, 32) float32: the same products (operands in the same order) and the
    same halving sums over K, so the same bits. The products are laid out K-major, so
    each halving adds two contiguous halves: for a few tiles by one gather per operand
    (numpy's broadcasting loops, inner length 8, cost more than the arithmetic), for
    many with the tiles innermost (k, m, c, tile): inner loops as long as the batch."""
    n = a.size // 32
    if n >= _MANY_TILES:
        return _mmul_tiles_inner(a.reshape(n, 32), y.reshape(n, 64), n)
    ia, iy = _gather(n)
    p = BF16_VALUES.take(a).take(ia)      # (widened first: the gather is then on intp indices)
    p *= BF16_VALUES.take(y).take(iy)
    h = 128 * n
    s = p[:h] + p[h:]                     # k and k + 4
    h >>= 1
    s = s[:h] + s[h:]                     # then k and k + 2
    h >>= 1
    return (s[:h] + s[h:]).reshape(n, 32)


_MANY_TILES = 32          # (measured: the gather is faster below this many tiles)


def _mmul_tiles_inner(a: np.ndarray, y: np.ndarray, n: int) -> np.ndarray:
    at = BF16_VALUES.take(a.reshape(n, 4, 8).transpose(2, 1, 0))     # (k, m, tile)
    bt = BF16_VALUES.take(y.reshape(n, 8, 8).transpose(1, 2, 0))     # (k, c, tile)
    p = at[:, :, None, :] * bt[:, None, :, :]                         # (k, m, c, tile)
    np.add(p[:4], p[4:], out=p[:4])                                   # k and k + 4
    np.add(p[:2], p[2:4], out=p[:2])                                  # then k and k + 2
    np.add(p[0], p[1], out=p[0])
    return p[0].reshape(32, n).T.copy()


def accumulate_f32(acc: np.ndarray, terms: np.ndarray) -> np.ndarray:
    """((acc + t0) + t1) + ... in fp32, one rounding per addition, in order (numpy's
    accumulate is sequential), NaN canonical: what a chain of accumulating operations
    computes one at a time."""
    seq = np.concatenate((acc[None, :], terms.reshape(-1, acc.size)), axis=0)
    return canon(np.add.accumulate(seq, axis=0, dtype=F32)[-1])


def accumulate_f32_in(acc: np.ndarray, terms: np.ndarray) -> np.ndarray:
    """accumulate_f32 summing in `terms` (n, lanes), a fresh array the caller gives up:
    acc + t0 is t0 + acc (the same bits; a NaN is made canonical at the end either way),
    then the running sum in place; NaN looked for by one reduction."""
    terms[0] += acc
    np.add.accumulate(terms, axis=0, out=terms)
    out = terms[-1]
    top = np.maximum.reduce(out)
    return out if top == top else canon(out)


def accumulate_f32_rows(accs: np.ndarray, terms: np.ndarray) -> np.ndarray:
    """accumulate_f32 of several accumulators at once: accs (n, lanes), terms (n, k,
    lanes) -> (n, lanes), each lane summed in order with one rounding per addition."""
    seq = np.concatenate((accs[None], terms.transpose(1, 0, 2)), axis=0)
    return canon(np.add.accumulate(seq, axis=0, dtype=F32)[-1])


def accumulate_f32_rows_in(accs: np.ndarray, terms: np.ndarray) -> np.ndarray:
    """accumulate_f32_rows summing in `terms` (n, k, lanes), a fresh array the caller
    gives up (as accumulate_f32_in: acc + t0 is t0 + acc, a NaN made canonical at the
    end either way)."""
    terms[:, 0] += accs
    np.add.accumulate(terms, axis=1, out=terms)
    out = terms[:, -1]
    top = np.maximum.reduce(out, axis=None)
    return out if top == top else canon(out)


def mac_f32(acc: np.ndarray, s: np.ndarray) -> np.ndarray:
    """acc + s in fp32 (round to nearest even), NaN canonical."""
    return canon((acc + s).astype(F32))


# --- the function unit ---------------------------------------------------------------

def _interp(off: np.ndarray, slope: np.ndarray, j: np.ndarray, u: np.ndarray) -> np.ndarray:
    """OFF[j] + SLOPE[j] * u with fp32 rounding after the product and after the sum."""
    p = (slope[j] * u).astype(F32, copy=False)
    return (off[j] + p).astype(F32, copy=False)


def _scale(y: np.ndarray, e: np.ndarray) -> np.ndarray:
    """y * 2^e rounded once to fp32 (ldexp: exact, or correctly rounded when subnormal;
    overflow gives inf)."""
    return np.ldexp(y, np.asarray(e).astype(np.int32))


def pwl_exp(x: np.ndarray, off: np.ndarray, slope: np.ndarray) -> np.ndarray:
    """e^x: t = fp32(x * LOG2E); t >= 128 -> +inf, t < -126 -> +0; n = floor(t),
    f = fp32(t - n) (in [0, 1]: it rounds up to 1 for t just below an integer);
    j = min(floor(f * S), S - 1), u = f * S - j (S = segments); y = OFF[j] + SLOPE[j] * u;
    result y * 2^n."""
    x = np.asarray(x, dtype=F32)
    segs = off.size
    t = x * LOG2E                                   # float32 * float32: one rounding
    if np.minimum.reduce(t, axis=None) >= -126 and np.maximum.reduce(t, axis=None) < 128:   # the usual case: no specials (NaN fails both)
        # (_interp's steps in place: fewer calls, the same fp32 operations)
        n = np.floor(t)
        fs = t - n                                  # f rounded to fp32,
        fs *= F32(segs)                             # times a power of two
        j = fs.astype(np.intp)
        np.minimum(j, segs - 1, out=j)
        fs -= j.astype(F32)                         # u (exact)
        y = slope[j]
        y *= fs                                     # fp32(SLOPE[j] * u)
        y += off[j]                                 # fp32(OFF[j] + that): addition commutes
        return np.ldexp(y, n.astype(np.int32))
    big, small, nan = t >= 128, t < -126, np.isnan(t)
    ts = np.where(big | small | nan, F32(0), t)
    n = np.floor(ts)
    f = (ts - n).astype(F32)                  # rounded: may be 1.0 just below an integer
    fs = (f * F32(segs)).astype(F32)          # exact (a power of two)
    j = np.minimum(np.floor(fs).astype(np.int64), segs - 1)
    u = (fs - j.astype(F32)).astype(F32)      # exact
    r = _scale(_interp(off, slope, j, u), n)
    r = np.where(big, F32(np.inf), np.where(small, F32(0.0), r))
    return np.where(nan, _NAN, r).astype(F32)


def _split(x: np.ndarray):
    """Sign, unbiased exponent and 23-bit fraction of fp32 lanes."""
    bits = np.asarray(x, dtype=F32).view(np.uint32).astype(np.int64)
    return bits >> 31, ((bits >> 23) & 0xFF) - 127, bits & 0x7FFFFF


def _normal_parts(x: np.ndarray, jb: int):
    """(unbiased exponent, top-jb-bit index, fraction of the segment) of fp32 lanes if
    every lane is normal (no zero, subnormal, infinity or NaN), else None."""
    bits = x.view(np.uint32)
    field = (bits >> np.uint32(23)) & np.uint32(0xFF)
    if np.minimum.reduce(field, axis=None) == 0 or np.maximum.reduce(field, axis=None) == 255:
        return None
    rest = 23 - jb
    low = bits & np.uint32((1 << rest) - 1)
    j = ((bits >> np.uint32(rest)) & np.uint32((1 << jb) - 1)).astype(np.intp)
    u = low.astype(F32) * F32(2.0 ** -rest)            # exact: at most 23 bits, a power of two
    return field.astype(np.int32) - 127, j, u


def pwl_rcp(x: np.ndarray, off: np.ndarray, slope: np.ndarray) -> np.ndarray:
    """1/x: x = +-m * 2^e with m in [1, 2); j = the top log2(S) fraction bits, u = the
    rest as a fraction of one segment; y = OFF[j] + SLOPE[j] * u ~ 1/m; result
    +-y * 2^-e. Zeros and subnormals give +-inf, infinities +-0, NaN the canonical NaN."""
    x = np.asarray(x, dtype=F32)
    jb = off.size.bit_length() - 1
    fast = _normal_parts(x, jb)
    if fast is not None:                           # every lane normal: no specials
        e, j, u = fast
        return np.copysign(_scale(_interp(off, slope, j, u), -e), x)
    sign, e, frac = _split(x)
    j = frac >> (23 - jb)
    u = ((frac & ((1 << (23 - jb)) - 1)).astype(np.float64) / (1 << (23 - jb))).astype(F32)
    y = _scale(_interp(off, slope, j, u), -e)
    y = np.where(sign.astype(bool), -y, y)
    tiny = e == -127                           # zero or subnormal
    inf = (e == 128) & (frac == 0)
    nan = (e == 128) & (frac != 0)
    y = np.where(tiny, np.where(sign.astype(bool), F32(-np.inf), F32(np.inf)), y)
    y = np.where(inf, np.where(sign.astype(bool), F32(-0.0), F32(0.0)), y)
    return np.where(nan, _NAN, y).astype(F32)


def pwl_rsqrt(x: np.ndarray, off: np.ndarray, slope: np.ndarray) -> np.ndarray:
    """1/sqrt(x): x = m * 2^e; for odd e, m' = 2m and e' = e - 1, else m' = m, e' = e
    (m' in [1, 4)); j = (e odd) * S/2 + the top log2(S/2) fraction bits, u = the rest
    as a fraction of one segment; y = OFF[j] + SLOPE[j] * u ~ 1/sqrt(m'); result
    y * 2^(-e'/2). +0 and positive subnormals give +inf, -0 and negative subnormals
    -inf, +inf gives +0, other negatives and NaN the canonical NaN."""
    x = np.asarray(x, dtype=F32)
    half = off.size // 2
    jb = half.bit_length() - 1
    fast = _normal_parts(x, jb)
    if fast is not None and not np.count_nonzero(np.signbit(x)):   # every lane positive and normal
        e, j, u = fast
        odd = e & 1
        return _scale(_interp(off, slope, j + odd * half, u), -((e - odd) >> 1))
    sign, e, frac = _split(x)
    odd = e & 1
    j = odd * half + (frac >> (23 - jb))
    u = ((frac & ((1 << (23 - jb)) - 1)).astype(np.float64) / (1 << (23 - jb))).astype(F32)
    y = _scale(_interp(off, slope, j, u), -((e - odd) // 2))
    neg = sign.astype(bool)
    tiny = e == -127
    y = np.where(tiny, np.where(neg, F32(-np.inf), F32(np.inf)), y)
    y = np.where((e == 128) & (frac == 0) & ~neg, F32(0.0), y)
    bad = ((e == 128) & (frac != 0)) | (neg & ~tiny)
    return np.where(bad, _NAN, y).astype(F32)
