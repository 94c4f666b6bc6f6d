"""Vector fixed-point arithmetic (RVV 1.0 section 12): saturating add/subtract,
averaging add/subtract, fractional multiply, scaling shifts and narrowing clips.

Every element is computed exactly in int64 (SEW <= 32, so products and sums fit),
rounded by vxrm as `roundoff` defines, then clamped where the instruction saturates.
vxsat is set when an active element (i < vl, mask bit 1 under v0.t) was clamped.
"""
from __future__ import annotations

import numpy as np

from ..state import UINT
from . import vector_forms
from .vector_core import beats, elems, group, mask, masked_dest_check, need_vtype, no_overlap, put
from .vector_integer import _operand, _too_wide

I64 = np.int64


def rounding_increment(v: np.ndarray, d, vxrm: int) -> np.ndarray:
    """The bit `roundoff` adds to v >> d: rnu (0) the last bit shifted out; rne (1) that
    bit if the rest shifted out is non-zero or the kept LSB is 1; rdn (2) nothing;
    rod (3) 1 if the kept LSB is 0 and any shifted-out bit is 1 (jam)."""
    d = np.asarray(d, I64)
    if vxrm == 2:
        return np.zeros_like(v)
    below = (v & ((I64(1) << d) - 1)) != 0            # any bit shifted out
    if vxrm == 3:
        return (~(v >> d) & 1) & below
    half = (v >> np.maximum(d - 1, 0)) & 1             # v[d-1]
    if vxrm == 1:
        rest = (v & ((I64(1) << np.maximum(d - 1, 0)) - 1)) != 0
        half = half & (rest | ((v >> d) & 1))
    return np.where(d > 0, half, 0)


def roundoff(v: np.ndarray, d, vxrm: int) -> np.ndarray:
    return (v >> np.asarray(d, I64)) + rounding_increment(v, d, vxrm)


def _limits(sew: int, signed: bool) -> tuple[int, int]:
    return (-(1 << (sew - 1)), (1 << (sew - 1)) - 1) if signed else (0, (1 << sew) - 1)


# name -> (signed operands?, saturates?, fn(a, b, sew, vxrm) on int64)
FIXED = {
    "vsaddu": (False, True, lambda a, b, w, rm: a + b),
    "vsadd": (True, True, lambda a, b, w, rm: a + b),
    "vssubu": (False, True, lambda a, b, w, rm: a - b),
    "vssub": (True, True, lambda a, b, w, rm: a - b),
    "vaaddu": (False, False, lambda a, b, w, rm: roundoff(a + b, 1, rm)),
    "vaadd": (True, False, lambda a, b, w, rm: roundoff(a + b, 1, rm)),
    "vasubu": (False, False, lambda a, b, w, rm: roundoff(a - b, 1, rm)),
    "vasub": (True, False, lambda a, b, w, rm: roundoff(a - b, 1, rm)),
    "vsmul": (True, True, lambda a, b, w, rm: roundoff(a * b, w - 1, rm)),
    "vssrl": (False, False, lambda a, b, w, rm: roundoff(a, b & (w - 1), rm)),
    "vssra": (True, False, lambda a, b, w, rm: roundoff(a, b & (w - 1), rm)),
}


def saturate(s, r: np.ndarray, sew: int, signed: bool, vm: int, vl: int) -> np.ndarray:
    """r clamped to SEW bits; vxsat |= whether an active element was clamped."""
    lo, hi = _limits(sew, signed)
    clamped = (r < lo) | (r > hi)
    if vm == 0:
        clamped &= mask(s, vl)
    if clamped.any():
        s.vxsat = 1
    return np.clip(r, lo, hi)


def _operands(s, pc, ops, vm, name, wide):
    """Check vtype and the register groups (vs2 of 2*SEW for a narrowing clip); the
    destination's register count."""
    need_vtype(s, pc)
    vd, vs2 = ops["vd"], ops["vs2"]
    if wide and s.sew == 32:
        raise _too_wide(pc, name)
    nd = group(s, pc, vd, 1, "vd")
    if wide:
        ns = group(s, pc, vs2, 2, "vs2 (2*SEW)")
        if vd != vs2:
            no_overlap(pc, vd, nd, vs2, ns, "the wider source vs2")
    else:
        group(s, pc, vs2, 1, "vs2")
    if "vs1" in ops:
        group(s, pc, ops["vs1"], 1, "vs1")
    masked_dest_check(pc, vm, vd)
    return nd


def _fixed_maker(name, form):
    signed, saturates, fn = FIXED[name]

    def maker(s, ops, pc, cost):
        vd, vs2, vm = ops["vd"], ops["vs2"], ops["vm"]

        def run():
            n = _operands(s, pc, ops, vm, name, False)
            sew, vl = s.sew, s.vl
            if vl:
                a = elems(s, vs2, sew, vl, signed).astype(I64)
                b = np.asarray(_operand(s, ops, form, sew, vl, signed)).astype(I64)
                r = fn(a, b, sew, s.vxrm)
                if saturates:
                    r = saturate(s, r, sew, signed, vm, vl)
                put(s, vd, sew, vl, (r & ((1 << sew) - 1)).astype(UINT[sew]), vm, n)
            return cost * beats(s, vl, sew)
        return run
    return maker


for _name in FIXED:
    vector_forms(_name, ("vv", "vx", "vi"), lambda form, n=_name: _fixed_maker(n, form))


def _clip_maker(name, form):
    signed = name == "vnclip"

    def maker(s, ops, pc, cost):
        vd, vs2, vm = ops["vd"], ops["vs2"], ops["vm"]

        def run():
            nd = _operands(s, pc, ops, vm, name, True)
            sew, vl = s.sew, s.vl
            if vl:
                a = elems(s, vs2, 2 * sew, vl, signed).astype(I64)
                b = np.asarray(_operand(s, ops, form.replace("w", "v"), sew, vl, False)).astype(I64)
                r = saturate(s, roundoff(a, b & (2 * sew - 1), s.vxrm), sew, signed, vm, vl)
                put(s, vd, sew, vl, (r & ((1 << sew) - 1)).astype(UINT[sew]), vm, nd)
            return cost * beats(s, vl, 2 * sew)
        return run
    return maker


for _name in ("vnclipu", "vnclip"):
    vector_forms(_name, ("wv", "wx", "wi"), lambda form, n=_name: _clip_maker(n, form))
