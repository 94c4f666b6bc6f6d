"""IEEE 754 binary32 as RISC-V F requires: every rounding mode, subnormals, the
canonical NaN, fused multiply-add, and the exception flags NV DZ OF UF NX (tininess
after rounding). Scalar functions work on bit patterns (Python ints); `v*` functions
on numpy uint32 arrays, element by element with the same results.

How results are made exact: every operation is computed in binary64 together with
what that rounding lost, then rounded once to binary32.
- mul: the product of two binary32 values is exact in binary64.
- add/sub/fma: TwoSum gives the exact error of the binary64 sum; the pair is turned
  into the round-to-odd binary64 value, which rounds to binary32 correctly in every
  mode (53 >= 24 + 2 bits).
- div/sqrt: an inexact quotient or square root of binary32 values lies further than
  2^-49 (relative) from every binary32 value and midpoint, so its binary64 rounding
  sits on the same side of each and rounds to binary32 correctly in every mode.
"""
from __future__ import annotations

import math
from array import array

import numpy as np

NV, DZ, OF, UF, NX = 16, 8, 4, 2, 1
RNE, RTZ, RDN, RUP, RMM, DYN = 0, 1, 2, 3, 4, 7
RM_NAMES = {RNE: "rne", RTZ: "rtz", RDN: "rdn", RUP: "rup", RMM: "rmm"}
CANON = 0x7FC00000
SIGN = 0x80000000
MAG = 0x7FFFFFFF
INF = 0x7F800000
MAXF = 0x7F7FFFFF

np.seterr(all="ignore")   # IEEE special values are results here, not errors (as in numerics)
TINY = 2.0 ** -126
SCALE = 2.0 ** 64            # moves a tiny value into the normal range, exactly

# float <-> binary32 bits through one 4-byte buffer (a C cast: round to nearest even,
# infinity on overflow, subnormals kept)
_buf = array("f", [0.0])
_bits = memoryview(_buf).cast("B").cast("I")


def to_float(bits: int) -> float:
    _bits[0] = bits
    return _buf[0]


def rne_bits(x: float) -> int:
    _buf[0] = x
    return _bits[0]


def is_nan(bits: int) -> bool:
    return bits & MAG > INF


def is_snan(bits: int) -> bool:
    return bits & MAG > INF and not bits & 0x00400000


def _step(bits: int, up: bool) -> int:
    """The next binary32 toward +inf (up) or -inf from a finite non-NaN pattern."""
    if bits & MAG == 0:
        return 1 if up else SIGN | 1
    if (bits & SIGN == 0) == up:
        return bits + 1
    return bits - 1


def _round_odd(hi: float, lo: float) -> float:
    """hi + lo (exact, |lo| <= ulp(hi)/2) rounded to odd in binary64."""
    if lo == 0.0 or math.isinf(hi):
        return hi
    m = math.frexp(hi)[0]
    if int(m * 9007199254740992.0) & 1:      # last significand bit already odd
        return hi
    return math.nextafter(hi, math.inf if lo > 0 else -math.inf)


def round_f32(x: float, rm: int) -> tuple[int, int]:
    """Round binary64 `x` to binary32 bits by `rm`; returns (bits, flags).

    `x` must round to binary32 as the exact result does: the exact value, its
    round-to-odd binary64 value, or a binary64 quotient or square root (which is never
    a binary32 value or midpoint unless exact)."""
    if x != x:
        return CANON, 0
    r = rne_bits(x)
    rx = to_float(r)
    if rx == x:
        return r, 0
    if rm == RTZ:
        if abs(rx) > abs(x):
            r = _step(r, x < 0)
    elif rm == RDN:
        if rx > x:
            r = _step(r, False)
    elif rm == RUP:
        if rx < x:
            r = _step(r, True)
    elif rm == RMM and r & MAG != INF:
        other = _step(r, rx < x)
        ox = to_float(other)
        if ox + rx == 2 * x and abs(ox) > abs(rx):     # a tie: away from zero
            r = other
    flags = NX
    mag = abs(x)
    if mag >= 3.402823669209385e38 or r & MAG == INF:   # 2^128, or rounded up to infinity
        flags |= OF
    elif mag < TINY and _tiny(x, rm):
        flags |= UF
    return r, flags


def _tiny(x: float, rm: int) -> bool:
    """Tininess after rounding: the result rounded with an unbounded exponent is below
    2^-126 in magnitude."""
    r, _ = round_f32(x * SCALE, rm)
    return abs(to_float(r)) < TINY * SCALE


def _two_sum(a: float, b: float) -> tuple[float, float]:
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _nan_result(flags: int, *operands: int) -> tuple[int, int]:
    for op in operands:
        if is_snan(op):
            flags |= NV
    return CANON, flags


def _sum(s: float, e: float, rm: int, a_neg: bool, b_neg: bool) -> tuple[int, int]:
    if s == 0.0 and e == 0.0:
        # exact zero: -0 only if both addends are -0, or for an exact cancellation in RDN
        return (SIGN if (a_neg and b_neg) or (a_neg != b_neg and rm == RDN) else 0), 0
    return round_f32(_round_odd(s, e), rm)


# --- the common case first: nearest even, a normal result well inside the range -------
# (the exact paths below decide everything else). Only NX can be raised then: it is
# raised when the binary32 rounding or the binary64 operation (TwoSum's error term)
# was inexact. A binary64 sum or fma on a binary32 midpoint is left to the exact path
# (its double rounding may break the tie the wrong way).

BIG = 2.0 ** 127


def _simple(s: float, e: float):
    """(bits, flags) of binary64 s (+ exact error e) rounded to nearest even, or None
    outside the simple case."""
    ax = abs(s)
    if not TINY <= ax < BIG:                       # zero, tiny, huge, inf or NaN
        return None
    _buf[0] = s
    r = _buf[0]
    if r == s:
        return _bits[0], (NX if e else 0)
    if e:
        o = s + (s - r)                            # the other neighbour if s is a midpoint
        _buf[0] = o
        if _buf[0] == o:
            return None
        _buf[0] = s
    return _bits[0], NX


def fadd(a: int, b: int, rm: int) -> tuple[int, int]:
    if not rm:
        _bits[0] = a
        x = _buf[0]
        _bits[0] = b
        y = _buf[0]
        s = x + y
        bb = s - x
        out = _simple(s, (x - (s - bb)) + (y - bb))
        if out is not None:
            return out
    x, y = to_float(a), to_float(b)
    if is_nan(a) or is_nan(b):
        return _nan_result(0, a, b)
    if math.isinf(x) and math.isinf(y) and x != y:
        return CANON, NV
    s, e = _two_sum(x, y)
    if math.isinf(s) and not (math.isinf(x) or math.isinf(y)):
        s, e = x / 2 + y / 2, 0.0       # binary64 cannot overflow for binary32 inputs; safety
    return _sum(s, e, rm, x < 0 or (x == 0 and a & SIGN), y < 0 or (y == 0 and b & SIGN))


def fsub(a: int, b: int, rm: int) -> tuple[int, int]:
    return fadd(a, b ^ SIGN, rm) if not is_nan(b) else fadd(a, b, rm)


def fmul(a: int, b: int, rm: int) -> tuple[int, int]:
    if not rm:
        _bits[0] = a
        x = _buf[0]
        _bits[0] = b
        out = _simple(x * _buf[0], 0.0)             # binary32 products are exact in binary64
        if out is not None:
            return out
    if is_nan(a) or is_nan(b):
        return _nan_result(0, a, b)
    x, y = to_float(a), to_float(b)
    if (math.isinf(x) and y == 0) or (math.isinf(y) and x == 0):
        return CANON, NV
    p = x * y
    if p == 0.0:
        return ((a ^ b) & SIGN), 0
    return round_f32(p, rm)


def fdiv(a: int, b: int, rm: int) -> tuple[int, int]:
    if is_nan(a) or is_nan(b):
        return _nan_result(0, a, b)
    x, y = to_float(a), to_float(b)
    sign = (a ^ b) & SIGN
    if (x == 0 and y == 0) or (math.isinf(x) and math.isinf(y)):
        return CANON, NV
    if math.isinf(x):                      # inf / 0 is an exact infinity: no DZ (IEEE 754 7.3)
        return sign | INF, 0
    if y == 0:
        return sign | INF, DZ
    if math.isinf(y) or x == 0:
        return sign, 0
    return round_f32(x / y, rm)


def fsqrt(a: int, rm: int) -> tuple[int, int]:
    if is_nan(a):
        return _nan_result(0, a)
    x = to_float(a)
    if x == 0 or (math.isinf(x) and x > 0):
        return a, 0
    if x < 0:
        return CANON, NV
    return round_f32(math.sqrt(x), rm)


def fma(a: int, b: int, c: int, rm: int, negate_product: bool = False, negate_addend: bool = False) -> tuple[int, int]:
    """(+-a * b) +- c, rounded once."""
    if not rm:
        _bits[0] = a
        x = _buf[0]
        _bits[0] = b
        p = x * _buf[0]
        _bits[0] = c
        z = _buf[0]
        if negate_product:
            p = -p
        if negate_addend:
            z = -z
        s = p + z
        bb = s - p
        out = _simple(s, (p - (s - bb)) + (z - bb))
        if out is not None:
            return out
    x, y, z = to_float(a), to_float(b), to_float(c)
    flags = 0
    if (math.isinf(x) and y == 0 and not is_nan(b)) or (math.isinf(y) and x == 0 and not is_nan(a)):
        flags = NV
    if is_nan(a) or is_nan(b) or is_nan(c):
        return _nan_result(flags, a, b, c)
    if flags:
        return CANON, flags
    if negate_product:
        x = -x
    if negate_addend:
        z = -z
    p = x * y
    p_neg = (a ^ b ^ (SIGN if negate_product else 0)) & SIGN != 0
    if math.isinf(p) or math.isinf(z):
        if math.isinf(p) and math.isinf(z) and (p > 0) != (z > 0):
            return CANON, NV
        return round_f32(p + z, rm)
    s, e = _two_sum(p, z)
    c_neg = z < 0 or (z == 0 and bool(c & SIGN) != negate_addend)
    return _sum(s, e, rm, p_neg, c_neg)


def fmin(a: int, b: int, take_max: bool = False) -> tuple[int, int]:
    flags = NV if is_snan(a) or is_snan(b) else 0
    if is_nan(a) and is_nan(b):
        return CANON, flags
    if is_nan(a):
        return b, flags
    if is_nan(b):
        return a, flags
    x, y = to_float(a), to_float(b)
    if x == y:                       # equal values: only the zeros' signs can differ
        both = a & b if take_max else a | b
        return (a & MAG) | (both & SIGN), flags
    return (a if (x > y) == take_max else b), flags


def fcompare(a: int, b: int, op: str) -> tuple[int, int]:
    """feq (quiet), flt, fle (signaling): (0 or 1, flags)."""
    if is_nan(a) or is_nan(b):
        if op == "eq":
            return 0, NV if is_snan(a) or is_snan(b) else 0
        return 0, NV
    x, y = to_float(a), to_float(b)
    return int(x == y if op == "eq" else x < y if op == "lt" else x <= y), 0


def fclass(a: int) -> int:
    neg = bool(a & SIGN)
    mag = a & MAG
    if mag == INF:
        return 1 << (0 if neg else 7)
    if mag > INF:
        return 1 << (9 if a & 0x00400000 else 8)
    if mag == 0:
        return 1 << (3 if neg else 4)
    if mag < 0x00800000:
        return 1 << (2 if neg else 5)
    return 1 << (1 if neg else 6)


def _round_int(x: float, rm: int) -> int:
    if rm == RNE:
        return round(x)                       # Python rounds half to even
    if rm == RTZ:
        return math.trunc(x)
    if rm == RDN:
        return math.floor(x)
    if rm == RUP:
        return math.ceil(x)
    return int(math.floor(abs(x) + 0.5)) * (1 if x >= 0 else -1)


def fcvt_to_int(a: int, rm: int, signed: bool) -> tuple[int, int]:
    """binary32 -> 32-bit integer (as an unsigned pattern), saturating."""
    lo, hi = (-(1 << 31), (1 << 31) - 1) if signed else (0, (1 << 32) - 1)
    if is_nan(a):
        return hi & 0xFFFFFFFF, NV
    x = to_float(a)
    if math.isinf(x):
        return (hi if x > 0 else lo) & 0xFFFFFFFF, NV
    n = _round_int(x, rm)
    if n < lo or n > hi:
        return (lo if n < lo else hi) & 0xFFFFFFFF, NV
    return n & 0xFFFFFFFF, (NX if n != x else 0)


def fcvt_from_int(v: int, rm: int, signed: bool) -> tuple[int, int]:
    if signed and v & SIGN:
        v -= 1 << 32
    return round_f32(float(v), rm)


# --- vectors ---------------------------------------------------------------------------

F64 = np.float64
U32 = np.uint32


def as_f64(bits: np.ndarray) -> np.ndarray:
    return bits.view(np.float32).astype(F64)


_F32 = np.float32


def _vsnan(*arrays: np.ndarray) -> bool:
    for b in arrays:
        mag = b & U32(MAG)
        if ((mag > U32(INF)) & ((b & U32(0x00400000)) == 0)).any():
            return True
    return False


MAXV = 3.4028234663852886e38          # the largest binary32 value


_EXP_LO = np.uint64(1023 - 126)        # binary64 exponent field of 2^-126
_EXP_SPAN = np.uint64(252)             # up to 2^127 (beyond, the overflow threshold needs care)
_MID_MASK = np.uint64((1 << 29) - 1)   # binary64 bits below a binary32 significand
_MID = np.uint64(1 << 28)


_MIN, _MAX = np.minimum.reduce, np.maximum.reduce
_BIG = 2.0 ** 127


def _fast(x: np.ndarray, fl: int, exact64: bool = True):
    """(binary32 bits, flags) of binary64 results that round the simple way -- nearest
    even, no value tiny (exact zeros are fine) or beyond 2^127 -- or None. `exact64`:
    x is the exact result (else the caller has raised NX already)."""
    ax = np.abs(x)
    if not _MAX(ax) < _BIG:                              # huge, inf or NaN
        return None
    if _MIN(ax) < TINY and _MAX((ax < TINY) & (ax != 0.0)):   # tiny (exact zeros are fine)
        return None
    r = x.astype(np.float32)
    if not fl & NX and (not exact64 or _MAX(r.astype(F64) != x)):
        fl |= NX
    return r.view(U32), fl


def fast_round(x: np.ndarray, fl: int, exact64: bool):
    """(bits, flags) of binary64 add/sub/mul/div/sqrt results when the simple path
    applies (see _fast), else None: the caller then takes the general path. A sum
    that binary64 itself rounded leaves NX to the general path (exact64=False is only
    for results known inexact)."""
    return _fast(x, fl, exact64)


def fast_fma_sum(p: np.ndarray, z: np.ndarray, fl: int):
    """(bits, flags) of p + z (p an exact binary64 product) when the simple path
    applies and the binary64 sum is no binary32 midpoint, else None."""
    s = p + z
    mid = (s.view(np.uint64) & _MID_MASK) == _MID
    if _MAX(mid) or not fl & NX:
        bb = s - p
        inexact = (p - (s - bb)) + (z - bb) != 0      # where the binary64 sum itself rounded
        if _MAX(mid & inexact):                       # a rounded sum on a midpoint: ties unsafe
            return None
        if _MAX(inexact):
            fl |= NX
    return _fast(s, fl)


def _vstep(bits: np.ndarray, up: np.ndarray) -> np.ndarray:
    """Vector _step for finite, non-zero or zero patterns."""
    neg = (bits & U32(SIGN)) != 0
    zero = (bits & U32(MAG)) == 0
    out = np.where(neg != up, bits + U32(1), bits - U32(1)).astype(U32)
    if zero.any():
        out = np.where(zero, np.where(up, U32(1), U32(SIGN | 1)), out).astype(U32)
    return out


def vround(x: np.ndarray, rm: int, fl: int) -> tuple[np.ndarray, int]:
    """Vector round_f32 with flags accrued into `fl`. The common case (nearest even,
    normal results, NX already raised) costs a few numpy operations; results near
    the overflow or underflow thresholds are rounded element by element."""
    r = x.astype(np.float32)
    bits = r.view(U32)
    ax = np.abs(x)
    edge = (ax < TINY) | (ax > MAXV)
    if rm == RNE and fl & NX and not edge.any():
        return bits, fl
    rx = r.astype(F64)
    inexact = (rx != x) & (x == x)
    if rm != RNE and inexact.any():
        if rm == RMM:
            bits = bits.copy()
            for i in np.flatnonzero(inexact).tolist():
                bits[i] = round_f32(float(x[i]), rm)[0]
        else:
            step = {RTZ: ax < np.abs(rx), RDN: rx > x, RUP: rx < x}[rm] & inexact
            if step.any():
                up = np.full(x.shape, rm == RUP) if rm != RTZ else (x < 0)
                bits = np.where(step, _vstep(bits, up), bits).astype(U32)
    if inexact.any():
        fl |= NX
        special = edge & inexact
        if special.any():
            bits = bits.copy()
            for i in np.flatnonzero(special).tolist():
                b, f = round_f32(float(x[i]), rm)
                bits[i] = b
                fl |= f
    return bits, fl


def _vround_odd(s: np.ndarray, e: np.ndarray) -> np.ndarray:
    nz = e != 0
    if not nz.any():
        return s
    m = s.view(np.uint64)
    even = (m & np.uint64(1)) == 0
    fix = nz & even & np.isfinite(s)
    if fix.any():
        s = s.copy()
        s[fix] = np.nextafter(s[fix], np.where(e[fix] > 0, np.inf, -np.inf))
    return s


def _vtwo_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _vnan_fix(out: np.ndarray, res: np.ndarray, fl: int, *inputs: np.ndarray, invalid=None) -> tuple[np.ndarray, int]:
    """Canonical NaN where the binary64 result is NaN; NV for invalid operations (NaN
    out of non-NaN inputs) and for signaling NaN inputs."""
    nan = np.isnan(res)
    if nan.any():
        out = out.copy() if not out.flags.writeable else out
        out[nan] = U32(CANON)
        in_nan = np.zeros(res.shape, bool)
        for b in inputs:
            in_nan |= (b & U32(MAG)) > U32(INF)
        if (nan & ~in_nan).any():
            fl |= NV
        if in_nan.any() and _vsnan(*inputs):
            fl |= NV
    if invalid is not None and invalid.any():
        fl |= NV
    return out, fl


def _rdn_zero(out, s, rm):
    """An exact zero sum of opposite-signed operands is -0 when rounding down."""
    if rm == RDN:
        zero = s == 0
        if zero.any():
            out = np.where(zero, U32(SIGN), out).astype(U32)
    return out


def vadd(a: np.ndarray, b: np.ndarray, rm: int, fl: int) -> tuple[np.ndarray, int]:
    x, y = as_f64(a), as_f64(b)
    if rm == RNE and fl & NX:          # binary64 then binary32 rounds correctly (53 >= 2*24+1)
        out = _fast(x + y, fl, False)
        if out is not None:
            return out
    s, e = _vtwo_sum(x, y)
    if not fl & NX or rm != RNE:         # the error term matters only for NX and directed modes
        e = np.where(np.isfinite(e), e, 0.0)
        out, fl = vround(_vround_odd(s, e), rm, fl)
    else:
        out, fl = vround(s, rm, fl)
    if rm == RDN:
        out = np.where((s == 0) & ((a ^ b) & U32(SIGN) != 0), U32(SIGN), out).astype(U32)
    return _vnan_fix(out, s, fl, a, b)


def vsub(a, b, rm, fl):
    nb = b ^ U32(SIGN)
    nan = (b & U32(MAG)) > U32(INF)
    if nan.any():
        nb = np.where(nan, b, nb).astype(U32)
    return vadd(a, nb, rm, fl)


def vmul(a, b, rm, fl):
    p = as_f64(a) * as_f64(b)
    if rm == RNE:
        out = _fast(p, fl)                 # the product is exact in binary64
        if out is not None:
            return out
    out, fl = vround(p, rm, fl)
    return _vnan_fix(out, p, fl, a, b)


def vdiv(a, b, rm, fl):
    x, y = as_f64(a), as_f64(b)
    q = x / y
    if rm == RNE and fl & NX:
        out = _fast(q, fl, False)
        if out is not None:
            return out
    out, fl = vround(q, rm, fl)
    dz = (y == 0) & np.isfinite(x) & (x != 0)
    if dz.any():
        fl |= DZ
    return _vnan_fix(out, q, fl, a, b)


def vsqrt(a, rm, fl):
    s = np.sqrt(as_f64(a))
    out, fl = vround(s, rm, fl)
    return _vnan_fix(out, s, fl, a)


def vfma(a, b, c, rm, fl, negate_product=False, negate_addend=False):
    """(+-a * b) +- c per element, rounded once."""
    x, y, z = as_f64(a), as_f64(b), as_f64(c)
    if negate_product:
        x = -x
    if negate_addend:
        z = -z
    p = x * y
    if rm == RNE:
        s = p + z
        # the binary64 sum rounds to binary32 correctly unless it lands exactly on a
        # binary32 midpoint (then the sum's own rounding could decide the tie)
        out = fast_fma_sum(p, z, fl)
        if out is not None:
            return out
    s, e = _vtwo_sum(p, z)
    e = np.where(np.isfinite(e), e, 0.0)
    out, fl = vround(_vround_odd(s, e), rm, fl)
    if rm == RDN:
        opposite = np.signbit(p) != np.signbit(z)
        out = np.where((s == 0) & opposite, U32(SIGN), out).astype(U32)
    invalid = np.isnan(p) & ~np.isnan(x) & ~np.isnan(y)
    return _vnan_fix(out, s, fl, a, b, c, invalid=invalid)


def vminmax(a, b, take_max: bool, fl: int):
    an = (a & U32(MAG)) > U32(INF)
    bn = (b & U32(MAG)) > U32(INF)
    x, y = as_f64(a), as_f64(b)
    pick_a = (x > y) if take_max else (x < y)
    eq = x == y
    both = (a & b) if take_max else (a | b)
    out = np.where(pick_a, a, b)
    out = np.where(eq, (a & U32(MAG)) | (both & U32(SIGN)), out)
    out = np.where(an, b, out)
    out = np.where(bn, a, out)
    out = np.where(an & bn, U32(CANON), out).astype(U32)
    if (an | bn).any() and _vsnan(a, b):
        fl |= NV
    return out, fl


def vcompare(a, b, op: str, fl: int) -> tuple[np.ndarray, int]:
    x, y = as_f64(a), as_f64(b)
    res = {"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y}[op]
    nan = np.isnan(x) | np.isnan(y)
    if nan.any():
        if op in ("eq", "ne"):
            if _vsnan(a, b):
                fl |= NV
        else:
            fl |= NV
    return res, fl


def vclass(a: np.ndarray) -> np.ndarray:
    return np.array([fclass(int(v)) for v in a.tolist()], dtype=U32) if a.size else a.copy()


def vcvt_to_int(a, rm, signed, fl):
    x = as_f64(a)
    if rm == RNE:
        n = np.rint(x)
    elif rm == RTZ:
        n = np.trunc(x)
    elif rm == RDN:
        n = np.floor(x)
    elif rm == RUP:
        n = np.ceil(x)
    else:
        n = np.floor(np.abs(x) + 0.5) * np.sign(x)
    lo, hi = (-(2.0 ** 31), 2.0 ** 31 - 1) if signed else (0.0, 2.0 ** 32 - 1)
    nan = np.isnan(x)
    bad = nan | (n < lo) | (n > hi)
    if bad.any():
        fl |= NV
    if not fl & NX and ((n != x) & ~bad).any():
        fl |= NX
    n = np.where(nan, hi, np.clip(np.nan_to_num(n, nan=hi), lo, hi))
    return (n.astype(np.int64) & 0xFFFFFFFF).astype(U32), fl


def vcvt_from_int(v, rm, signed, fl):
    x = (v.view(np.int32) if signed else v).astype(F64)
    return vround(x, rm, fl)
