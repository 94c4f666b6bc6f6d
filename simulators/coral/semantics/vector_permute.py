"""Vector slides, gathers, compress and whole-register moves."""
from __future__ import annotations

import numpy as np

from ..state import UINT, fault
from . import vector, vector_forms
from .vector_core import beats, elems, group, mask, masked_dest_check, need_vtype, no_overlap, put, scalar
from .vector_float import need_fp


def _offset(s, ops):
    return s.x[ops["rs1"]] if "rs1" in ops else ops["imm"]


def _slide_maker(direction):
    def maker(s, ops, pc, cost):
        vd, vs2, vm = ops["vd"], ops["vs2"], ops["vm"]

        def run():
            need_vtype(s, pc)
            sew, vl, vlmax = s.sew, s.vl, s.vlmax
            n = group(s, pc, vd, 1, "vd")
            ns = group(s, pc, vs2, 1, "vs2")
            masked_dest_check(pc, vm, vd)
            off = _offset(s, ops)
            if direction == "up":
                no_overlap(pc, vd, n, vs2, ns, "the source vs2 (vslideup)")
                if vl > off:
                    new = elems(s, vd, sew, vl).copy()
                    new[off:] = elems(s, vs2, sew, vl - off)
                    act = mask(s, vl) if vm == 0 else None
                    if act is not None:
                        act[:off] = True           # elements below the offset are left as they are
                    put(s, vd, sew, vl, new, vm, n, act)
            elif vl:
                src = np.zeros(vl, UINT[sew])
                take = max(0, min(vl, vlmax - off)) if off < vlmax else 0
                if take:
                    src[:take] = elems(s, vs2, sew, off + take)[off:]
                put(s, vd, sew, vl, src, vm, n)
            return cost * beats(s, vl, sew)
        return run
    return maker


vector_forms("vslideup", ("vx", "vi"), lambda form: _slide_maker("up"))
vector_forms("vslidedown", ("vx", "vi"), lambda form: _slide_maker("down"))


def _slide1_maker(direction, fp):
    def maker(s, ops, pc, cost):
        vd, vs2, vm, rs1 = ops["vd"], ops["vs2"], ops["vm"], ops["rs1"]

        def run():
            if fp:
                need_fp(s, pc, "vfslide1" + direction)
            need_vtype(s, pc)
            sew, vl = s.sew, s.vl
            n = group(s, pc, vd, 1, "vd")
            ns = group(s, pc, vs2, 1, "vs2")
            masked_dest_check(pc, vm, vd)
            if direction == "up":
                no_overlap(pc, vd, n, vs2, ns, "the source vs2 (slide up)")
            if vl:
                value = s.f[rs1] if fp else s.x[rs1]
                src = elems(s, vs2, sew, vl)
                new = np.empty(vl, UINT[sew])
                if direction == "up":
                    new[0] = scalar(value, sew)
                    new[1:] = src[:vl - 1]
                else:
                    new[:vl - 1] = src[1:]
                    new[vl - 1] = scalar(value, sew)
                put(s, vd, sew, vl, new, vm, n)
            return cost * beats(s, vl, sew)
        return run
    return maker


vector("vslide1up.vx")(_slide1_maker("up", False))
vector("vslide1down.vx")(_slide1_maker("down", False))
vector("vfslide1up.vf")(_slide1_maker("up", True))
vector("vfslide1down.vf")(_slide1_maker("down", True))


def _gather_maker(form, index_eew=None):
    def maker(s, ops, pc, cost):
        vd, vs2, vm = ops["vd"], ops["vs2"], ops["vm"]

        def run():
            need_vtype(s, pc)
            sew, vl, vlmax = s.sew, s.vl, s.vlmax
            n = group(s, pc, vd, 1, "vd")
            ns = group(s, pc, vs2, 1, "vs2")
            masked_dest_check(pc, vm, vd)
            no_overlap(pc, vd, n, vs2, ns, "the source vs2 (vrgather)")
            ieew = index_eew or sew
            if form == "vv":
                ni = group(s, pc, ops["vs1"], ieew / sew, "vs1 (indices)")
                no_overlap(pc, vd, n, ops["vs1"], ni, "the index vector vs1 (vrgather)")
            if vl:
                if form == "vv":
                    idx = elems(s, ops["vs1"], ieew, vl).astype(np.int64)
                else:
                    idx = np.full(vl, _offset(s, ops) & ((1 << 32) - 1), dtype=np.int64)
                table = elems(s, vs2, sew, vlmax)
                ok = idx < vlmax
                out = np.where(ok, table[np.where(ok, idx, 0)], 0)
                put(s, vd, sew, vl, out, vm, n)
            return cost * max(1, vl)
        return run
    return maker


vector_forms("vrgather", ("vv", "vx", "vi"), lambda form: _gather_maker(form))
vector("vrgatherei16.vv")(_gather_maker("vv", 16))


@vector("vcompress.vm")
def _compress(s, ops, pc, cost):
    vd, vs2, vs1 = ops["vd"], ops["vs2"], ops["vs1"]

    def run():
        need_vtype(s, pc)
        sew, vl = s.sew, s.vl
        n = group(s, pc, vd, 1, "vd")
        ns = group(s, pc, vs2, 1, "vs2")
        no_overlap(pc, vd, n, vs2, ns, "the source vs2 (vcompress)")
        no_overlap(pc, vd, n, vs1, 1, "the mask vs1 (vcompress)")
        if vl:
            picked = elems(s, vs2, sew, vl)[mask(s, vl, vs1)]
            if len(picked):
                put(s, vd, sew, len(picked), picked, 1, n)
            elif s.vta:
                put(s, vd, sew, 0, picked, 1, n)
        return cost * max(1, vl)
    return run


def _whole_maker(nregs):
    def maker(s, ops, pc, cost):
        vd, vs2 = ops["vd"], ops["vs2"]

        def run():
            for r, what in ((vd, "vd"), (vs2, "vs2")):
                if r % nregs:
                    raise fault(pc, f"vmv{nregs}r.v: {what} = v{r} must be a multiple of {nregs}")
            data = s.vreg[vs2 * s.VLENB:(vs2 + nregs) * s.VLENB].copy()
            s.vput(vd, 8, 0, data)
            return cost * nregs
        return run
    return maker


for _n in (1, 2, 4, 8):
    vector(f"vmv{_n}r.v")(_whole_maker(_n))
