"""Vector reductions, mask logic and mask queries, element indices, and moves between
element 0 and scalar registers."""
from __future__ import annotations

import numpy as np

from .. import fp32
from ..state import FFLAGS, M, fault
from . import vector, vector_forms
from .vector_core import beats, elems, group, mask, masked_dest_check, need_vtype, no_overlap, put, put_mask
from .vector_float import need_fp

INT_RED = {  # name -> (signed, numpy reduction of an array that includes vs1[0])
    "vredsum": (False, lambda v: np.add.reduce(v.astype(np.uint64))),
    "vredand": (False, np.bitwise_and.reduce), "vredor": (False, np.bitwise_or.reduce),
    "vredxor": (False, np.bitwise_xor.reduce),
    "vredminu": (False, np.min), "vredmin": (True, np.min),
    "vredmaxu": (False, np.max), "vredmax": (True, np.max),
}


def _lane_tree(s, sew) -> int:
    return (s.VLEN // sew).bit_length() - 1        # log2(VLEN / SEW)


def _int_red_maker(name):
    signed, fn = INT_RED[name]

    def maker(s, ops, pc, cost):
        vd, vs2, vs1, vm = ops["vd"], ops["vs2"], ops["vs1"], ops["vm"]

        def run():
            need_vtype(s, pc)
            sew, vl = s.sew, s.vl
            group(s, pc, vs2, 1, "vs2")
            if vl:
                v = elems(s, vs2, sew, vl, signed)
                if vm == 0:
                    v = v[mask(s, vl)]
                acc = np.concatenate((elems(s, vs1, sew, 1, signed), v))
                put(s, vd, sew, 1, np.array([fn(acc)]).astype(np.int64 if signed else np.uint64), 1, 1)
            return cost * beats(s, vl, sew) + _lane_tree(s, sew)
        return run
    return maker


for _name in INT_RED:
    vector_forms(_name, ("vs",), lambda form, n=_name: _int_red_maker(n))


def _wred_maker(signed):
    def maker(s, ops, pc, cost):
        vd, vs2, vs1, vm = ops["vd"], ops["vs2"], ops["vs1"], ops["vm"]

        def run():
            need_vtype(s, pc)
            sew, vl = s.sew, s.vl
            if sew == 32:
                raise fault(pc, "vwredsum needs 2*SEW <= 32: use e8 or e16")
            group(s, pc, vs2, 1, "vs2")
            if vl:
                v = elems(s, vs2, sew, vl, signed).astype(np.int64)
                if vm == 0:
                    v = v[mask(s, vl)]
                total = int(elems(s, vs1, 2 * sew, 1, signed)[0]) + int(v.sum())
                put(s, vd, 2 * sew, 1, np.array([total & ((1 << 2 * sew) - 1)]), 1, 1)
            # the RTL (rtl/coral/coral_vec.v) adds each beat's elements in pairs at 2*SEW
            # into VLEN / (2*SEW) accumulators: its tree is one step shorter than vredsum's
            return cost * beats(s, vl, sew) + _lane_tree(s, 2 * sew)
        return run
    return maker


vector("vwredsumu.vs")(_wred_maker(False))
vector("vwredsum.vs")(_wred_maker(True))


def fp_lane_sum(start: int, values: np.ndarray, active, lanes: int, rm: int, fl: int) -> tuple[int, int]:
    """vfredusum's order, the one the RTL's lanes compute (rtl/coral/coral_vec.v): element
    i goes to lane i % lanes in element order, lane 0 starting from vs1[0]; then the
    lanes are added as a tree of halves, x[k] = x[k] + x[k + n/2]. A lane that got no
    active element is no operand (no -0 padding), so vs1[0] alone comes back bit for bit."""
    acc = [start] + [None] * (lanes - 1)
    for i, e in enumerate(values.tolist()):
        if active is not None and not active[i]:
            continue
        k = i % lanes
        if acc[k] is None:
            acc[k] = e
        else:
            acc[k], f = fp32.fadd(acc[k], e, rm)
            fl |= f
    n = lanes
    while n > 1:
        n //= 2
        for k in range(n):
            hi = acc[k + n]
            if hi is None:
                continue
            if acc[k] is None:
                acc[k] = hi
            else:
                acc[k], f = fp32.fadd(acc[k], hi, rm)
                fl |= f
    return acc[0], fl


def _fred_maker(name):
    def maker(s, ops, pc, cost):
        vd, vs2, vs1, vm = ops["vd"], ops["vs2"], ops["vs1"], ops["vm"]

        def run():
            rm = need_fp(s, pc, name)
            vl = s.vl
            group(s, pc, vs2, 1, "vs2")
            extra = _lane_tree(s, 32)
            if vl:
                v = elems(s, vs2, 32, vl)
                if vm == 0:
                    v = v[mask(s, vl)]
                start = int(elems(s, vs1, 32, 1)[0])
                fl = s.fc[FFLAGS]
                if name == "vfredosum.vs":
                    acc = start
                    for e in v.tolist():
                        acc, f = fp32.fadd(acc, e, rm)
                        fl |= f
                    # one addition per element, in order: a cycle per element (the RTL's lane 0)
                elif name == "vfredusum.vs":
                    acc, fl = fp_lane_sum(start, elems(s, vs2, 32, vl), None if vm else mask(s, vl),
                                          s.VLEN // 32, rm, fl)
                else:
                    acc = start
                    for e in v.tolist():
                        acc, f = fp32.fmin(acc, e, name == "vfredmax.vs")
                        fl |= f
                s.fc[FFLAGS] = fl
                put(s, vd, 32, 1, np.array([acc], np.uint32), 1, 1)
            if name == "vfredosum.vs":
                return cost * max(1, vl)
            return cost * beats(s, vl, 32) + extra
        return run
    return maker


for _name in ("vfredusum.vs", "vfredosum.vs", "vfredmin.vs", "vfredmax.vs"):
    vector(_name)(_fred_maker(_name))

MASK_LOGIC = {
    "vmandn": lambda a, b: a & ~b, "vmand": lambda a, b: a & b, "vmor": lambda a, b: a | b,
    "vmxor": lambda a, b: a ^ b, "vmorn": lambda a, b: a | ~b, "vmnand": lambda a, b: ~(a & b),
    "vmnor": lambda a, b: ~(a | b), "vmxnor": lambda a, b: ~(a ^ b),
}


def _mask_logic_maker(name):
    fn = MASK_LOGIC[name]

    def maker(s, ops, pc, cost):
        vd, vs2, vs1 = ops["vd"], ops["vs2"], ops["vs1"]

        def run():
            need_vtype(s, pc)
            vl = s.vl
            if vl:
                put_mask(s, vd, vl, fn(mask(s, vl, vs2), mask(s, vl, vs1)), 1)
            return cost
        return run
    return maker


for _name in MASK_LOGIC:
    vector_forms(_name, ("mm",), lambda form, n=_name: _mask_logic_maker(n))


def _active_bits(s, vs2, vm, vl):
    bits = mask(s, vl, vs2)
    return bits & mask(s, vl) if vm == 0 else bits


@vector("vcpop.m")
def _vcpop(s, ops, pc, cost):
    rd, vs2, vm = ops["rd"], ops["vs2"], ops["vm"]

    def run():
        need_vtype(s, pc)
        vl = s.vl
        if rd:
            s.x[rd] = int(_active_bits(s, vs2, vm, vl).sum()) if vl else 0
        return cost
    return run


@vector("vfirst.m")
def _vfirst(s, ops, pc, cost):
    rd, vs2, vm = ops["rd"], ops["vs2"], ops["vm"]

    def run():
        need_vtype(s, pc)
        vl = s.vl
        idx = np.flatnonzero(_active_bits(s, vs2, vm, vl)) if vl else []
        if rd:
            s.x[rd] = int(idx[0]) if len(idx) else M
        return cost
    return run


def _set_first_maker(kind):
    def maker(s, ops, pc, cost):
        vd, vs2, vm = ops["vd"], ops["vs2"], ops["vm"]

        def run():
            need_vtype(s, pc)
            vl = s.vl
            if vd == vs2:
                raise fault(pc, f"vms{kind}f.m cannot write its source register v{vs2}")
            masked_dest_check(pc, vm, vd)
            if vl:
                bits = _active_bits(s, vs2, vm, vl)
                first = int(np.argmax(bits)) if bits.any() else vl
                i = np.arange(vl)
                res = {"b": i < first, "i": i <= first, "o": i == first}[kind]
                put_mask(s, vd, vl, res, vm)
            return cost
        return run
    return maker


vector("vmsbf.m")(_set_first_maker("b"))
vector("vmsif.m")(_set_first_maker("i"))
vector("vmsof.m")(_set_first_maker("o"))


@vector("viota.m")
def _viota(s, ops, pc, cost):
    vd, vs2, vm = ops["vd"], ops["vs2"], ops["vm"]

    def run():
        need_vtype(s, pc)
        sew, vl = s.sew, s.vl
        n = group(s, pc, vd, 1, "vd")
        no_overlap(pc, vd, n, vs2, 1, "the source mask")
        masked_dest_check(pc, vm, vd)
        if vl:
            bits = _active_bits(s, vs2, vm, vl).astype(np.int64)
            put(s, vd, sew, vl, np.concatenate(([0], np.cumsum(bits)[:-1])), vm, n)
        return cost * beats(s, vl, sew)
    return run


@vector("vid.v")
def _vid(s, ops, pc, cost):
    vd, vm = ops["vd"], ops["vm"]

    def run():
        need_vtype(s, pc)
        sew, vl = s.sew, s.vl
        n = group(s, pc, vd, 1, "vd")
        masked_dest_check(pc, vm, vd)
        if vl:
            put(s, vd, sew, vl, np.arange(vl), vm, n)
        return cost * beats(s, vl, sew)
    return run


@vector("vmv.x.s")
def _vmv_x_s(s, ops, pc, cost):
    rd, vs2 = ops["rd"], ops["vs2"]

    def run():
        need_vtype(s, pc)
        if rd:
            s.x[rd] = int(elems(s, vs2, s.sew, 1, True)[0]) & M
        return cost
    return run


@vector("vmv.s.x")
def _vmv_s_x(s, ops, pc, cost):
    vd, rs1 = ops["vd"], ops["rs1"]

    def run():
        need_vtype(s, pc)
        if s.vl:
            put(s, vd, s.sew, 1, np.array([s.x[rs1] & ((1 << s.sew) - 1)]), 1, 1)
        return cost
    return run
