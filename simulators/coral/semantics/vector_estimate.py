"""vfrsqrt7.v and vfrec7.v: the 7-bit reciprocal square-root and reciprocal estimates
of RVV 1.0 (sections 13.9 and 13.10), for binary32.

The two 128-entry tables are derived here from what they estimate: entry i covers an
input significand interval, and holds the 7 fraction bits nearest to the function's
value at the interval's midpoint, scaled to [1, 2). The instructions plug into the
binary32 unary path of vector_float.py (active elements only, flags accrued).
"""
from __future__ import annotations

import math

import numpy as np

from .. import fp32
from . import vector
from .vector_float import UNARY, _unary_maker

U32 = np.uint32
B = 127                  # binary32 exponent bias


def _rsqrt_entry(i: int) -> int:
    """Index = exponent LSB (1: odd biased exponent, x in [1, 2) relative; 0: x in
    [2, 4)) and 6 significand bits."""
    odd, sig = i >> 6, i & 63
    mid = (1 + (sig + 0.5) / 64) * (1 if odd else 2)
    return round(128 * (2 / math.sqrt(mid) - 1))


def _rec_entry(i: int) -> int:
    mid = 1 + (i + 0.5) / 128
    return round(128 * (2 / mid - 1))


RSQRT7 = np.array([_rsqrt_entry(i) for i in range(128)], dtype=np.int64)
REC7 = np.array([_rec_entry(i) for i in range(128)], dtype=np.int64)


def _classify(a: np.ndarray):
    """Fields of binary32 bit patterns with subnormals normalized: sign, normalized
    exponent (0 minus the leading zeros of a subnormal's significand) and the
    normalized 23-bit fraction."""
    a = a.astype(np.int64)
    sign, exp, frac = a >> 31, (a >> 23) & 0xFF, a & 0x7FFFFF
    sub = (exp == 0) & (frac != 0)
    lz = 23 - np.frexp(np.where(sub, frac, 1).astype(np.float64))[1]      # leading zeros in 23 bits
    nexp = np.where(sub, -lz, exp)
    nfrac = np.where(sub, (frac << (lz + 1)) & 0x7FFFFF, frac)
    nan = (exp == 0xFF) & (frac != 0)
    return sign, exp, frac, nexp, nfrac, nan, nan & ((frac >> 22) == 0)


def _flags(fl: int, *conditions) -> int:
    for bit, cond in conditions:
        if cond.any():
            fl |= bit
    return fl


def rsqrt7(a: np.ndarray, rm: int, fl: int) -> tuple[np.ndarray, int]:
    sign, exp, frac, nexp, nfrac, nan, snan = _classify(a)
    zero = (exp == 0) & (frac == 0)
    inf = (exp == 0xFF) & (frac == 0)
    out = (sign << 31) | (((3 * B - 1 - nexp) // 2) << 23) | (RSQRT7[((nexp & 1) << 6) | (nfrac >> 17)] << 16)
    invalid = (sign == 1) & ~zero & ~nan
    out = np.where(zero, (sign << 31) | 0x7F800000, out)
    out = np.where(inf & (sign == 0), 0, out)
    out = np.where(invalid | nan, fp32.CANON, out)
    return out.astype(U32), _flags(fl, (fp32.NV, invalid | snan), (fp32.DZ, zero))


def rec7(a: np.ndarray, rm: int, fl: int) -> tuple[np.ndarray, int]:
    sign, exp, frac, nexp, nfrac, nan, snan = _classify(a)
    zero = (exp == 0) & (frac == 0)
    inf = (exp == 0xFF) & (frac == 0)
    oexp = 2 * B - 1 - nexp
    sig = REC7[nfrac >> 16] << 16
    tiny = oexp <= 0                                   # exponent 0 or -1: a subnormal result
    sig = np.where(tiny, ((1 << 23) | sig) >> np.where(tiny, 1 - oexp, 0), sig)
    out = (sign << 31) | (np.where(tiny, 0, oexp) << 23) | sig
    # |x| < 2^-(B+1): the reciprocal overflows; inf or the largest finite value as frm rounds
    over = (exp == 0) & (frac != 0) & (nexp < -1)
    to_inf = (rm in (fp32.RNE, fp32.RMM)) | ((sign == 0) & (rm == fp32.RUP)) | ((sign == 1) & (rm == fp32.RDN))
    out = np.where(over, (sign << 31) | np.where(to_inf, 0x7F800000, 0x7F7FFFFF), out)
    out = np.where(zero, (sign << 31) | 0x7F800000, out)
    out = np.where(inf, sign << 31, out)
    out = np.where(nan, fp32.CANON, out)
    return out.astype(U32), _flags(fl, (fp32.NV, snan), (fp32.DZ, zero), (fp32.OF | fp32.NX, over))


UNARY["vfrsqrt7.v"] = rsqrt7
UNARY["vfrec7.v"] = rec7
for _name in ("vfrsqrt7.v", "vfrec7.v"):
    vector(_name)(_unary_maker(_name))
