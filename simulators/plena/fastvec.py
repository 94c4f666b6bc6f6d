"""Specialised closures for the fast path of plena's common vector instructions (and
the matrix-vector products).

The semantics in semantics/vector.py are the definition; these closures compute the
same bits with a fraction of their Python and numpy calls per instruction: operands
are read as slices of the flat Vector SRAM, the bf16 rounding is done in place in the
destination row, and nothing else is allocated. Anything out of the ordinary (an
address that fails a check, a write mask, a NaN in a result, an fp operand whose
max/min would need the zero rules) is handed to the reference semantics, which raise
the same error or compute the rare case (semantics check before they write, so no
state has changed when they are called). The closures do not note their footprint:
the run loop only takes the fast path when no DMA can make them stall.

`bind(mnemonic, state, values, ref)` returns the closure, or `ref` when there is none.
Runs with `Budget(fast=False)` step the reference semantics, so the fast-path parity
tests compare these closures against them.
"""
from __future__ import annotations

from math import copysign as _copysign

import numpy as np
try:                                   # the C function, without numpy's Python wrapper
    from numpy._core._multiarray_umath import count_nonzero
except ImportError:                    # pragma: no cover (numpy < 2)
    count_nonzero = np.count_nonzero

from kernelcraft.simulators.numerics import (_BF16_TABLES, bf16_unary, exp, max_f32, reciprocal,
                                             round_f32)

F32, U32 = np.float32, np.uint32
_ZERO = F32(0.0)
_S16, _ONE, _BIAS, _HIGH = U32(16), U32(1), U32(0x7FFF), U32(0xFFFF0000)
_isnan, _rshift, _band, _add = np.isnan, np.right_shift, np.bitwise_and, np.add


def _table(fn) -> np.ndarray:
    """numerics.bf16_unary's table of `fn` (built by it on first use)."""
    if fn not in _BF16_TABLES:
        bf16_unary(fn, np.zeros(1, F32))
    return _BF16_TABLES[fn]


def _binary(op, scalar: bool):
    """Makers of `d = round_bf16(op(row a, row b))` (or op(row a, fp register b))."""
    def make(m, ref, rd, rs1, rs2, rmask, rorder=0):
        if rmask:
            return ref
        gp, f, vs = m.gp, m.f, m.vsram
        vu = vs.view(U32)
        vlen = m.VLEN
        lim = vs.size - vlen          # last row's address

        def run():
            d, a = gp[rd], gp[rs1]
            if scalar:
                if d % vlen or a % vlen or not (0 <= d <= lim and 0 <= a <= lim):
                    return ref()
                x = op(vs[a:a + vlen], F32(f[rs2]), rorder)
            else:
                b = gp[rs2]
                if d % vlen or a % vlen or b % vlen or not (
                        0 <= d <= lim and 0 <= a <= lim and 0 <= b <= lim):
                    return ref()
                x = op(vs[a:a + vlen], vs[b:b + vlen], 0)
            if count_nonzero(_isnan(x)):
                return ref()
            # round_bf16 (numerics._rne16 and the mask), written straight into row d
            u = x.view(U32)
            r = _rshift(u, _S16, out=vu[d:d + vlen])
            r &= _ONE
            r += _BIAS
            r += u
            r &= _HIGH
        return run
    return make


def _add_(x, y, _):
    return x + y


def _sub(x, y, rorder):
    return y - x if rorder else x - y


def _mul(x, y, _):
    return x * y


def _max_pos_zero(x, y, _):
    r = np.maximum(x, y)
    r += _ZERO                  # a -0 lane becomes +0, as fmax(-0, +0) is
    return r


def _minmax(np_op, at_zero=None):
    """V_MAX_VF / V_MIN_VF: with an fp operand that is neither zero nor NaN the zero rules
    of numerics.fmax/fmin cannot apply and np.maximum/np.minimum propagate NaN lanes;
    `at_zero` is the op for an operand +0 (max: a -0 lane gives +0), else the reference."""
    make_op = _binary(lambda x, y, _: np_op(x, y), True)
    make_zero = _binary(at_zero, True) if at_zero else None

    def make(m, ref, rd, rs1, rs2, rmask):
        fast = make_op(m, ref, rd, rs1, rs2, rmask)
        if fast is ref:
            return ref
        zero = make_zero(m, ref, rd, rs1, rs2, rmask) if make_zero else ref
        f = m.f

        def run():
            v = f[rs2]
            if v == 0:
                return zero() if _copysign(1.0, v) > 0 else ref()
            if v != v:
                return ref()
            return fast()
        return run
    return make


def _unary(fn):
    """V_EXP_V / V_RECI_V: a table lookup of the bf16 input's bits (numerics.bf16_unary)."""
    def make(m, ref, rd, rs1, rmask):
        if rmask:
            return ref
        gp, vs = m.gp, m.vsram
        vu = vs.view(U32)
        vlen, lim = m.VLEN, m.vsram.size - m.VLEN
        table = _table(fn)

        def run():
            d, a = gp[rd], gp[rs1]
            if d % vlen or a % vlen or not (0 <= d <= lim and 0 <= a <= lim):
                return ref()
            vs[d:d + vlen] = table[_rshift(vu[a:a + vlen], _S16)]
        return run
    return make


def _red_sum(m, ref, rd, rs1):
    gp, f, vs = m.gp, m.f, m.vsram
    vlen, lim = m.VLEN, m.vsram.size - m.VLEN
    if vlen & (vlen - 1):
        return ref

    def run():
        a = gp[rs1]
        if a % vlen or not 0 <= a <= lim:
            return ref()
        x, n = vs[a:a + vlen], vlen         # numerics.tree_sum: halving, fp32 at each step
        while n > 1:
            n >>= 1
            x = x[:n] + x[n:]
        if rd:
            f[rd] = round_f32(f[rd] + float(x[0]))
    return run


def _red_max(m, ref, rd, rs1):
    gp, f, vs = m.gp, m.f, m.vsram
    vlen, lim = m.VLEN, m.vsram.size - m.VLEN
    reduce = np.maximum.reduce

    def run():
        a = gp[rs1]
        if a % vlen or not 0 <= a <= lim:
            return ref()
        x = float(reduce(vs[a:a + vlen]))
        if x == 0 or x != x:                # numerics.max_reduce's zero and NaN rules
            return ref()
        if rd:
            f[rd] = max_f32(f[rd], x)
    return run


def _mv(transposed: bool):
    """M_MV / M_TMV: v @ tile (or tile.T) summed in numerics.matmul_tree's order (the
    same products and the same pairs at each halving; their NaN payloads, which that
    order leaves unspecified, are made canonical by the accumulate), added to MV_ACC."""
    def make(m, ref, rs1, rs2):
        gp, vs, M, acc = m.gp, m.vsram, m.M, m.acc
        vlen, lim, size, tile = m.VLEN, m.vsram.size - m.VLEN, m.msram.size, m.TILE
        k0 = vlen
        if k0 & (k0 - 1) or k0 != m.MLEN:
            return ref

        def run():
            t, a = gp[rs1], gp[rs2]
            if t % tile or a % vlen or not (0 <= t < size and 0 <= a <= lim):
                return ref()
            v = vs[a:a + vlen]
            if transposed:                  # products [k, n] = v[k] * tile[n, k], made contiguous
                x = (M[t // tile] * v).T.copy()
            else:
                x = v[:, None] * M[t // tile]
            k = k0
            while k > 1:
                k >>= 1
                x = x[:k] + x[k:]
            s = acc["MV_ACC"] + x[0]
            if count_nonzero(_isnan(s)):
                return ref()
            acc["MV_ACC"][...] = s
        return run
    return make


_MAKERS = {
    "V_ADD_VV": _binary(_add_, False), "V_ADD_VF": _binary(_add_, True),
    "V_SUB_VV": _binary(_sub, False), "V_SUB_VF": _binary(_sub, True),
    "V_MUL_VV": _binary(_mul, False), "V_MUL_VF": _binary(_mul, True),
    "V_MAX_VF": _minmax(np.maximum, _max_pos_zero), "V_MIN_VF": _minmax(np.minimum),
    "V_EXP_V": _unary(exp), "V_RECI_V": _unary(reciprocal),
    "V_RED_SUM": _red_sum, "V_RED_MAX": _red_max,
    "M_MV": _mv(False), "M_TMV": _mv(True),
}


def bind(mnemonic: str, state, values: list[int], ref):
    """The fast closure of an instruction with operand `values`, or `ref` (the bound
    reference semantics) if it has none."""
    make = _MAKERS.get(mnemonic)
    return ref if make is None else make(state, ref, *values)
