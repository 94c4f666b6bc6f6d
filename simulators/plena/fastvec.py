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
the run loop only takes them when no DMA can make them stall; while one is in flight
it takes their `noting` wrapper, which notes the rows and tiles the reference's
checked accessors would (the timing model waits on those).

Where lanes.py has built lanes.c, these instructions and more are one call of its C
loops instead (fastlanes.py), with the same hand-over of every rare case; the numpy
closures stay for machines without a C compiler, and the parity tests run both.

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

from kernelcraft.simulators.numerics import bf16_table, exp, max_f32, reciprocal, round_f32

from . import fastlanes, fastscalar
from .state import MSRAM, VSRAM

F32, U32 = np.float32, np.uint32
_ZERO = F32(0.0)
_S16 = U32(16)
_isnan, _rshift, _band, _add, _take = np.isnan, np.right_shift, np.bitwise_and, np.add, np.take


class Rows:
    """What the closures share per state: each Vector SRAM row's views by its address
    (an address that is not a whole row in range is not there: one lookup does the
    checks), scratch rows, and the rounding constants as whole rows (a ufunc with an
    array operand skips the scalar conversion a numpy scalar costs every call)."""

    def __init__(self, m):
        vlen = self.vlen = m.VLEN
        vs = m.vsram
        vu = vs.view(U32)
        self.f = {a: vs[a:a + vlen] for a in range(0, vs.size - vlen + 1, vlen)}
        self.u = {a: vu[a:a + vlen] for a in range(0, vs.size - vlen + 1, vlen)}
        self.tmp = np.empty(vlen, F32)
        self.tmp_u = self.tmp.view(U32)
        self.nan = np.empty(vlen, bool)
        self.idx = np.empty(vlen, U32)
        self.s16, self.one = np.full(vlen, 16, U32), np.full(vlen, 1, U32)
        self.bias, self.high = np.full(vlen, 0x7FFF, U32), np.full(vlen, 0xFFFF0000, U32)
        self.m = m
        self._tiles = None

    def tiles(self) -> dict:
        """Matrix SRAM tiles by the address of their first element."""
        if self._tiles is None:
            m = self.m
            self._tiles = {i * m.TILE: m.M[i] for i in range(m.M.shape[0])}
        return self._tiles


def rows_of(m) -> Rows:
    r = m.__dict__.get("_fast_rows")
    if r is None:
        r = m.__dict__["_fast_rows"] = Rows(m)
    return r


def _binary(op, scalar: bool):
    """Makers of `d = round_bf16(op(row a, row b))` (or op(row a, fp register b))."""
    def make(m, ref, rd, rs1, rs2, rmask, rorder=0):
        if rmask:
            return ref
        gp, f = m.gp, m.f
        R = rows_of(m)
        fget, uget = R.f.get, R.u.get
        tmp, tu, nan = R.tmp, R.tmp_u, R.nan
        s16, one, bias, high = R.s16, R.one, R.bias, R.high
        rs, band, add = _rshift, _band, _add

        def run():
            dst, a = uget(gp[rd]), fget(gp[rs1])
            if scalar:
                if dst is None or a is None:
                    return ref()
                op(a, F32(f[rs2]), tmp, rorder)
            else:
                b = fget(gp[rs2])
                if dst is None or a is None or b is None:
                    return ref()
                op(a, b, tmp, 0)
            _isnan(tmp, nan)
            if count_nonzero(nan):
                return ref()
            # round_bf16 (numerics._rne16 and the mask), written straight into row d
            rs(tu, s16, dst)
            band(dst, one, dst)
            add(dst, bias, dst)
            add(dst, tu, dst)
            band(dst, high, dst)
        return run
    return make


def _add_(x, y, out, _):
    _add(x, y, out)


def _sub(x, y, out, rorder):
    if rorder:
        np.subtract(y, x, out)
    else:
        np.subtract(x, y, out)


def _mul(x, y, out, _):
    np.multiply(x, y, out)


def _max_pos_zero(x, y, out, _):
    np.maximum(x, y, out=out)
    out += _ZERO                # a -0 lane becomes +0, as fmax(-0, +0) is


def _minmax(np_op, at_zero=None):
    """V_MAX_VF / V_MIN_VF: with an fp operand that is neither zero nor NaN the zero rules
    of numerics.fmax/fmin cannot apply and np.maximum/np.minimum propagate NaN lanes;
    `at_zero` is the op for an operand +0 (max: a -0 lane gives +0), else the reference."""
    make_op = _binary(lambda x, y, out, _: np_op(x, y, out=out), True)
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
        gp = m.gp
        R = rows_of(m)
        fget, uget = R.f.get, R.u.get
        idx, s16, rs, take = R.idx, R.s16, _rshift, bf16_table(fn).take

        def run():
            dst, a = fget(gp[rd]), uget(gp[rs1])
            if dst is None or a is None:
                return ref()
            rs(a, s16, idx)
            take(idx, out=dst)
        return run
    return make


def _red_sum(m, ref, rd, rs1):
    gp, f = m.gp, m.f
    vlen = m.VLEN
    if vlen & (vlen - 1):
        return ref

    fget = rows_of(m).f.get
    levels = []                         # numerics.tree_sum: halving, fp32 at each step
    n = vlen
    while n > 1:
        n >>= 1
        levels.append(np.empty(n, F32))
    halves = [(levels[k - 1][:n.size], levels[k - 1][n.size:], n) for k, n in enumerate(levels) if k]
    first = levels[0] if levels else None
    h = vlen >> 1

    def run():
        x = fget(gp[rs1])
        if x is None:
            return ref()
        if first is not None:
            _add(x[:h], x[h:], first)
            for lo, hi, out in halves:
                _add(lo, hi, out)
            x = levels[-1]
        if rd:
            f[rd] = round_f32(f[rd] + float(x[0]))
    return run


def _red_max(m, ref, rd, rs1):
    gp, f = m.gp, m.f
    fget = rows_of(m).f.get
    reduce = np.maximum.reduce

    def run():
        a = fget(gp[rs1])
        if a is None:
            return ref()
        x = float(reduce(a))
        if x == 0 or x != x:                # numerics.max_reduce's zero and NaN rules
            return ref()
        if rd:
            f[rd] = max_f32(f[rd], x)
    return run


def _mv(transposed: bool):
    """M_MV / M_TMV: v @ tile (or tile.T) summed in numerics.matmul_tree's order (the
    same products and the same pairs at each halving; their NaN payloads, which that
    order leaves unspecified, are made canonical by the accumulate), added to MV_ACC.
    Products and halvings go to buffers made once: the products of M_TMV stay as
    [n, k] and are halved along k (axis 1), the same pairs as halving the transpose."""
    def make(m, ref, rs1, rs2):
        gp, acc = m.gp, m.acc
        k0, tile = m.VLEN, m.TILE
        if k0 & (k0 - 1) or k0 != m.MLEN:
            return ref
        R = rows_of(m)
        fget = R.f.get
        tiles = R.tiles()
        n = m.MLEN
        prods = np.empty((n, k0) if transposed else (k0, n), F32)
        halves, src, k = [], prods, k0
        while k > 1:
            k >>= 1
            out = np.empty((n, k) if transposed else (k, n), F32)
            halves.append((src[:, :k], src[:, k:], out) if transposed else (src[:k], src[k:], out))
            src = out
        last = src[:, 0] if transposed else src[0]
        total, nan = np.empty(n, F32), np.empty(n, bool)
        mul, add, copyto = np.multiply, _add, np.copyto

        def run():
            t, v = tiles.get(gp[rs1]), fget(gp[rs2])
            if t is None or v is None:
                return ref()
            if transposed:                  # products [n, k] = tile[n, k] * v[k]
                mul(t, v, prods)
            else:                           # products [k, n] = v[k] * tile[k, n]
                mul(v[:, None], t, prods)
            for lo, hi, out in halves:
                add(lo, hi, out)
            into = acc["MV_ACC"]
            add(into, last, total)
            _isnan(total, nan)
            if count_nonzero(nan):
                return ref()
            copyto(into, total)
        return run
    return make


def _mv_wo(m, ref, rd, imm):
    """M_MV_WO: MV_ACC rounded to bf16 straight into the row (as _binary does), then
    cleared; an accumulator holding a NaN is left to the reference."""
    gp, acc = m.gp, m.acc
    if m.MLEN != m.VLEN:
        return ref
    R = rows_of(m)
    uget, nan = R.u.get, R.nan
    s16, one, bias, high = R.s16, R.one, R.bias, R.high
    rs, band, add = _rshift, _band, _add

    def run():
        dst = uget(gp[rd] + imm)
        if dst is None:
            return ref()
        a = acc["MV_ACC"]
        _isnan(a, nan)
        if count_nonzero(nan):
            return ref()
        u = a.view(U32)
        rs(u, s16, dst)
        band(dst, one, dst)
        add(dst, bias, dst)
        add(dst, u, dst)
        band(dst, high, dst)
        a.fill(0)
    return run


_MAKERS = {
    "V_ADD_VV": _binary(_add_, False), "V_ADD_VF": _binary(_add_, True),
    "V_SUB_VV": _binary(_sub, False), "V_SUB_VF": _binary(_sub, True),
    "V_MUL_VV": _binary(_mul, False), "V_MUL_VF": _binary(_mul, True),
    "V_MAX_VF": _minmax(np.maximum, _max_pos_zero), "V_MIN_VF": _minmax(np.minimum),
    "V_EXP_V": _unary(exp), "V_RECI_V": _unary(reciprocal),
    "V_RED_SUM": _red_sum, "V_RED_MAX": _red_max,
    "M_MV": _mv(False), "M_TMV": _mv(True), "M_MV_WO": _mv_wo,
}


# What the reference's checked accessors note in the footprint, one entry per accessor:
# (space, position of the register operand in the bound values, position of an
# immediate added to it or None); each entry is one row (one tile).
_ROW2 = ((VSRAM, 0, None), (VSRAM, 1, None))
_ROW3 = ((VSRAM, 0, None), (VSRAM, 1, None), (VSRAM, 2, None))
_TOUCHES = {
    "V_ADD_VV": _ROW3, "V_SUB_VV": _ROW3, "V_MUL_VV": _ROW3,
    "V_ADD_VF": _ROW2, "V_SUB_VF": _ROW2, "V_MUL_VF": _ROW2, "V_MAX_VF": _ROW2,
    "V_MIN_VF": _ROW2, "V_EXP_V": _ROW2, "V_RECI_V": _ROW2,
    "V_RED_SUM": ((VSRAM, 1, None),), "V_RED_MAX": ((VSRAM, 1, None),),
    "M_MV": ((MSRAM, 0, None), (VSRAM, 1, None)), "M_TMV": ((MSRAM, 0, None), (VSRAM, 1, None)),
    "M_MV_WO": ((VSRAM, 0, 1),), "S_MAP_V_FP": ((VSRAM, 0, None),),
}


def touches(mnemonic: str, state, values: list[int]) -> list | None:
    """The rows and tiles an instruction with operand `values` touches, as
    (space, gp register, immediate added, elements per row or tile) -- each one row or
    tile at (gp[register] + immediate) // elements -- or None if not known here."""
    spec = _TOUCHES.get(mnemonic)
    if spec is None:
        return None
    return [(space, values[reg], 0 if imm is None else values[imm],
             state.VLEN if space == VSRAM else state.TILE) for space, reg, imm in spec]


def noting(mnemonic: str, state, fast, at: list | None):
    """`fast` (a closure from `bind`) that also notes its footprint (`at`, from
    `touches`) as the reference would, or None for an instruction without one. When
    `fast` hands over to the reference, the reference's accessors have noted it already."""
    if mnemonic in fastlanes.TRANSFERS:
        return fast
    if at is None:
        return None
    gp, footprint = state.gp, state.footprint
    note = footprint.append

    def noted():
        n = len(footprint)
        fast()
        if len(footprint) == n:
            for space, reg, imm, size in at:
                note((space, (gp[reg] + imm) // size, 1))
    return noted


def bind(mnemonic: str, state, values: list[int], ref):
    """The fast closure of an instruction with operand `values`, or `ref` (the bound
    reference semantics) if it has none."""
    fast = fastlanes.bind(mnemonic, state, values, ref)
    if fast is not None:
        return fast
    make = _MAKERS.get(mnemonic) or fastscalar.MAKERS.get(mnemonic)
    return ref if make is None else make(state, ref, *values)
