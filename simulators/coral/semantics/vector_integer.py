"""Vector integer arithmetic, compares, multiply-add, widening, narrowing, extension,
merge and splat. Elements wrap modulo 2^SEW (numpy unsigned arithmetic); signed
operations use the signed views of the same bits."""
from __future__ import annotations

import numpy as np

from ..state import SINT, UINT, fault
from . import vector_forms
from .vector_core import (beats, element_checks, elems, group, mask, masked_dest_check, need_vtype, no_overlap, put, put_mask,
                          scalar, widen_overlap)


def _operand(s, ops, form, sew, vl, signed):
    """The second source of a .vv / .vx / .vi form, as an array or a numpy scalar."""
    if form in ("vv", "wv"):
        return elems(s, ops["vs1"], sew, vl, signed)
    if form in ("vx", "wx"):
        return scalar(s.x[ops["rs1"]], sew, signed)
    return scalar(ops["imm"], sew, signed)


def _shift_amount(b, sew):
    return (np.asarray(b).astype(UINT[sew]) & UINT[sew](sew - 1)).astype(UINT[sew])


def _div(a, b, signed, sew):
    zero = b == 0
    bb = np.where(zero, 1, b)
    if signed:
        q = (np.abs(a.astype(np.int64)) // np.abs(bb.astype(np.int64))) * np.sign(a.astype(np.int64) * bb)
        return np.where(zero, -1, q).astype(np.int64)
    return np.where(zero, (1 << sew) - 1, a.astype(np.uint64) // bb.astype(np.uint64))


def _rem(a, b, signed):
    zero = b == 0
    bb = np.where(zero, 1, b)
    if signed:
        r = np.abs(a.astype(np.int64)) % np.abs(bb.astype(np.int64)) * np.sign(a.astype(np.int64))
        return np.where(zero, a, r).astype(np.int64)
    return np.where(zero, a, a.astype(np.uint64) % bb.astype(np.uint64))


# name -> (signed operands?, fn(a, b, sew))
BINARY = {
    "vadd": (False, lambda a, b, w: a + b),
    "vsub": (False, lambda a, b, w: a - b),
    "vrsub": (False, lambda a, b, w: b - a),
    "vand": (False, lambda a, b, w: a & b),
    "vor": (False, lambda a, b, w: a | b),
    "vxor": (False, lambda a, b, w: a ^ b),
    "vminu": (False, lambda a, b, w: np.minimum(a, b)),
    "vmaxu": (False, lambda a, b, w: np.maximum(a, b)),
    "vmin": (True, lambda a, b, w: np.minimum(a, b)),
    "vmax": (True, lambda a, b, w: np.maximum(a, b)),
    "vsll": (False, lambda a, b, w: a << _shift_amount(b, w)),
    "vsrl": (False, lambda a, b, w: a >> _shift_amount(b, w)),
    "vsra": (True, lambda a, b, w: a >> _shift_amount(b, w).astype(SINT[w])),
    "vmul": (False, lambda a, b, w: a * b),
    "vmulh": (True, lambda a, b, w: (a.astype(np.int64) * np.asarray(b).astype(np.int64)) >> w),
    "vmulhu": (False, lambda a, b, w: (a.astype(np.uint64) * np.asarray(b).astype(np.uint64)) >> np.uint64(w)),
    "vmulhsu": (True, lambda a, b, w: (a.astype(np.int64) * np.asarray(b).view(UINT[w]).astype(np.int64)) >> w),
    "vdivu": (False, lambda a, b, w: _div(a, np.broadcast_to(b, a.shape), False, w)),
    "vdiv": (True, lambda a, b, w: _div_s(a, np.broadcast_to(b, a.shape), w)),
    "vremu": (False, lambda a, b, w: _rem(a, np.broadcast_to(b, a.shape), False)),
    "vrem": (True, lambda a, b, w: _rem_s(a, np.broadcast_to(b, a.shape), w)),
}


def _div_s(a, b, w):
    q = _div(a, b, True, w)
    overflow = (a == -(1 << (w - 1))) & (b == -1)
    return np.where(overflow, a, q)


def _rem_s(a, b, w):
    r = _rem(a, b, True)
    overflow = (a == -(1 << (w - 1))) & (b == -1)
    return np.where(overflow, 0, r)


def _binary_maker(name, form):
    signed, fn = BINARY[name]

    def maker(s, ops, pc, cost):
        vd, vs2, vm = ops["vd"], ops["vs2"], ops["vm"]

        def run():
            need_vtype(s, pc)
            sew, vl = s.sew, s.vl
            n = element_checks(s, pc, ops)
            if vl:
                a = elems(s, vs2, sew, vl, signed)
                b = _operand(s, ops, form, sew, vl, signed)
                put(s, vd, sew, vl, fn(a, b, sew), vm, n)
            return cost * beats(s, vl, sew)
        return run
    return maker


for _name in BINARY:
    vector_forms(_name, ("vv", "vx", "vi"), lambda form, n=_name: _binary_maker(n, form))

COMPARE = {
    "vmseq": (False, np.equal), "vmsne": (False, np.not_equal), "vmsltu": (False, np.less),
    "vmslt": (True, np.less), "vmsleu": (False, np.less_equal), "vmsle": (True, np.less_equal),
    "vmsgtu": (False, np.greater), "vmsgt": (True, np.greater),
}


def _compare_maker(name, form):
    signed, fn = COMPARE[name]

    def maker(s, ops, pc, cost):
        vd, vs2, vm = ops["vd"], ops["vs2"], ops["vm"]
        vs1 = ops.get("vs1")

        def run():
            need_vtype(s, pc)
            sew, vl = s.sew, s.vl
            group(s, pc, vs2, 1, "vs2")
            if vs1 is not None:
                group(s, pc, vs1, 1, "vs1")
            if vl:
                a = elems(s, vs2, sew, vl, signed)
                b = _operand(s, ops, form, sew, vl, signed)
                put_mask(s, vd, vl, fn(a, b), vm)
            return cost * beats(s, vl, sew)
        return run
    return maker


for _name in COMPARE:
    vector_forms(_name, ("vv", "vx", "vi"), lambda form, n=_name: _compare_maker(n, form))

MADD = {   # (vd, multiplier operand, vs2) -> result
    "vmacc": lambda d, m, v: m * v + d,
    "vnmsac": lambda d, m, v: d - m * v,
    "vmadd": lambda d, m, v: m * d + v,
    "vnmsub": lambda d, m, v: v - m * d,
}


def _madd_maker(name, form):
    fn = MADD[name]

    def maker(s, ops, pc, cost):
        vd, vs2, vm = ops["vd"], ops["vs2"], ops["vm"]

        def run():
            need_vtype(s, pc)
            sew, vl = s.sew, s.vl
            n = element_checks(s, pc, ops)
            if vl:
                d = elems(s, vd, sew, vl)
                m = _operand(s, ops, form, sew, vl, False)
                put(s, vd, sew, vl, fn(d, m, elems(s, vs2, sew, vl)), vm, n)
            return cost * beats(s, vl, sew)
        return run
    return maker


for _name in MADD:
    vector_forms(_name, ("vv", "vx"), lambda form, n=_name: _madd_maker(n, form))


# --- widening: SEW x SEW -> 2*SEW -------------------------------------------------------

WIDEN = {  # name -> (vs2 signed, operand signed, fn(a, b) on int64)
    "vwaddu": (False, False, lambda a, b: a + b), "vwadd": (True, True, lambda a, b: a + b),
    "vwsubu": (False, False, lambda a, b: a - b), "vwsub": (True, True, lambda a, b: a - b),
    "vwmulu": (False, False, lambda a, b: a * b), "vwmul": (True, True, lambda a, b: a * b),
    "vwmulsu": (True, False, lambda a, b: a * b),
}
WMACC = {  # name -> (operand signed, vs2 signed)
    "vwmaccu": (False, False), "vwmacc": (True, True), "vwmaccsu": (True, False), "vwmaccus": (False, True),
}


def _widen_maker(name, form, macc):
    def maker(s, ops, pc, cost):
        vd, vs2, vm = ops["vd"], ops["vs2"], ops["vm"]
        vs1 = ops.get("vs1")
        if macc:
            b_signed, a_signed = WMACC[name]
        else:
            a_signed, b_signed, fn = WIDEN[name]

        def run():
            need_vtype(s, pc)
            sew, vl = s.sew, s.vl
            if sew == 32:
                raise _too_wide(pc, name)
            nd = group(s, pc, vd, 2, "vd (2*SEW)")
            ns = group(s, pc, vs2, 1, "vs2")
            whole = s.lmul_num >= s.lmul_den
            widen_overlap(pc, vd, nd, vs2, ns, whole, "the narrower source vs2")
            if vs1 is not None:
                group(s, pc, vs1, 1, "vs1")
                widen_overlap(pc, vd, nd, vs1, ns, whole, "the narrower source vs1")
            masked_dest_check(pc, vm, vd)
            if vl:
                a = elems(s, vs2, sew, vl, a_signed).astype(np.int64)
                b = _operand(s, ops, form, sew, vl, b_signed)
                b = np.asarray(b).astype(np.int64)
                if macc:
                    r = elems(s, vd, 2 * sew, vl).astype(np.int64) + b * a
                else:
                    r = fn(a, b)
                put(s, vd, 2 * sew, vl, (r & ((1 << 2 * sew) - 1)).astype(UINT[2 * sew]), vm, nd)
            return cost * beats(s, vl, 2 * sew)
        return run
    return maker


def _widen_wide_maker(name, form):
    """.wv / .wx: vd (2*SEW) = vs2 (2*SEW) op ext(second operand, SEW)."""
    signed, _, fn = WIDEN[name]

    def maker(s, ops, pc, cost):
        vd, vs2, vm = ops["vd"], ops["vs2"], ops["vm"]
        vs1 = ops.get("vs1")

        def run():
            need_vtype(s, pc)
            sew, vl = s.sew, s.vl
            if sew == 32:
                raise _too_wide(pc, name)
            nd = group(s, pc, vd, 2, "vd (2*SEW)")
            group(s, pc, vs2, 2, "vs2 (2*SEW)")    # same EEW as vd: aligned groups coincide or are apart
            if vs1 is not None:
                ns = group(s, pc, vs1, 1, "vs1")
                widen_overlap(pc, vd, nd, vs1, ns, s.lmul_num >= s.lmul_den, "the narrower source vs1")
            masked_dest_check(pc, vm, vd)
            if vl:
                a = elems(s, vs2, 2 * sew, vl).astype(np.int64)
                b = np.asarray(_operand(s, ops, form, sew, vl, signed)).astype(np.int64)
                put(s, vd, 2 * sew, vl, (fn(a, b) & ((1 << 2 * sew) - 1)).astype(UINT[2 * sew]), vm, nd)
            return cost * beats(s, vl, 2 * sew)
        return run
    return maker


def _too_wide(pc, name):
    return fault(pc, f"{name} widens SEW to 2*SEW, and SEW = 32 would need 64-bit elements (ELEN = 32): "
                     "use e8 or e16")


for _name in WIDEN:
    vector_forms(_name, ("vv", "vx"), lambda form, n=_name: _widen_maker(n, form, False))
for _name in WMACC:
    vector_forms(_name, ("vv", "vx"), lambda form, n=_name: _widen_maker(n, form, True))
for _name in ("vwaddu", "vwadd", "vwsubu", "vwsub"):
    vector_forms(_name, ("wv", "wx"), lambda form, n=_name: _widen_wide_maker(n, form))


def _narrow_maker(name, form):
    arithmetic = name == "vnsra"

    def maker(s, ops, pc, cost):
        vd, vs2, vm = ops["vd"], ops["vs2"], ops["vm"]
        vs1 = ops.get("vs1")

        def run():
            need_vtype(s, pc)
            sew, vl = s.sew, s.vl
            if sew == 32:
                raise _too_wide(pc, name)
            nd = group(s, pc, vd, 1, "vd")
            ns = group(s, pc, vs2, 2, "vs2 (2*SEW)")
            if vd != vs2:
                no_overlap(pc, vd, nd, vs2, ns, "the wider source vs2")
            if vs1 is not None:
                group(s, pc, vs1, 1, "vs1")
            masked_dest_check(pc, vm, vd)
            if vl:
                a = elems(s, vs2, 2 * sew, vl, arithmetic).astype(np.int64)
                b = np.asarray(_operand(s, ops, form.replace("w", "v"), sew, vl, False)).astype(np.int64)
                r = a >> (b & (2 * sew - 1))
                put(s, vd, sew, vl, (r & ((1 << sew) - 1)).astype(UINT[sew]), vm, nd)
            return cost * beats(s, vl, 2 * sew)
        return run
    return maker


for _name in ("vnsrl", "vnsra"):
    vector_forms(_name, ("wv", "wx", "wi"), lambda form, n=_name: _narrow_maker(n, form))


def _extend_maker(factor, signed):
    def maker(s, ops, pc, cost):
        vd, vs2, vm = ops["vd"], ops["vs2"], ops["vm"]

        def run():
            need_vtype(s, pc)
            sew, vl = s.sew, s.vl
            if sew // factor < 8:
                raise fault(pc, f"v{'s' if signed else 'z'}ext.vf{factor} needs SEW >= {8 * factor} "
                                f"(SEW = {sew})")
            nd = group(s, pc, vd, 1, "vd")
            ns = group(s, pc, vs2, 1 / factor, "vs2")
            widen_overlap(pc, vd, nd, vs2, ns, s.lmul_num >= factor * s.lmul_den, "the narrower source vs2")
            masked_dest_check(pc, vm, vd)
            if vl:
                a = elems(s, vs2, sew // factor, vl, signed)
                put(s, vd, sew, vl, a.astype(SINT[sew] if signed else UINT[sew]).view(UINT[sew]), vm, nd)
            return cost * beats(s, vl, sew)
        return run
    return maker


for _f in (2, 4):
    vector_forms("vzext", (f"vf{_f}",), lambda form, f=_f: _extend_maker(f, False))
    vector_forms("vsext", (f"vf{_f}",), lambda form, f=_f: _extend_maker(f, True))


def _merge_maker(form):
    def maker(s, ops, pc, cost):
        vd = ops["vd"]
        vs2 = ops.get("vs2")

        def run():
            need_vtype(s, pc)
            sew, vl = s.sew, s.vl
            n = group(s, pc, vd, 1, "vd")
            if vs2 is not None:
                group(s, pc, vs2, 1, "vs2")
                masked_dest_check(pc, 0, vd)
            if "vs1" in ops:
                group(s, pc, ops["vs1"], 1, "vs1")
            if vl:
                b = _operand(s, ops, form, sew, vl, False)
                b = np.broadcast_to(b, (vl,))
                if vs2 is not None:
                    b = np.where(mask(s, vl), b, elems(s, vs2, sew, vl))
                put(s, vd, sew, vl, b, 1, n)
            return cost * beats(s, vl, sew)
        return run
    return maker


vector_forms("vmerge", ("vvm", "vxm", "vim"), lambda form: _merge_maker(form[:2]))
vector_forms("vmv", ("v.v", "v.x", "v.i"), lambda form: _merge_maker("v" + form[-1]))
