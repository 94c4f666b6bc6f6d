"""Vector binary32 arithmetic (SEW = 32 only): each element exactly as the scalar F
instruction with rounding mode frm (fp32.py), flags accrued from active elements."""
from __future__ import annotations

import numpy as np

from .. import fp32
from ..state import FFLAGS, FRM, fault
from . import vector, vector_forms
from .vector_core import beats, element_checks, elems, group, mask, masked_dest_check, need_vtype, put, put_mask

U32 = np.uint32


def need_fp(s, pc, name):
    need_vtype(s, pc)
    if s.sew != 32:
        raise fault(pc, f"{name} needs SEW = 32 (binary32 is the only floating-point width), "
                        f"vtype has SEW = {s.sew}: vsetvli ..., e32, ...")
    rm = s.fc[FRM]
    if rm > 4:
        raise fault(pc, f"{name} rounds by frm = {rm}, which is reserved: set frm to 0..4 (fsrmi)")
    return rm


def operand_checks(s, pc, mnemonic, ops, form) -> int:
    """The checks of an element-wise vd, vs2, vs1/f operation (vtype, SEW, frm, register
    groups, v0.t against vd); returns the group size."""
    need_fp(s, pc, mnemonic)
    return element_checks(s, pc, ops)


def _second(s, ops, form, vl):
    if form == "vv":
        return elems(s, ops["vs1"], 32, vl)
    return np.full(vl, s.f[ops["rs1"]], dtype=U32)


BINARY = {
    "vfadd": lambda a, b, rm, fl: fp32.vadd(a, b, rm, fl),
    "vfsub": lambda a, b, rm, fl: fp32.vsub(a, b, rm, fl),
    "vfrsub": lambda a, b, rm, fl: fp32.vsub(b, a, rm, fl),
    "vfmul": lambda a, b, rm, fl: fp32.vmul(a, b, rm, fl),
    "vfdiv": lambda a, b, rm, fl: fp32.vdiv(a, b, rm, fl),
    "vfrdiv": lambda a, b, rm, fl: fp32.vdiv(b, a, rm, fl),
    "vfmin": lambda a, b, rm, fl: fp32.vminmax(a, b, False, fl),
    "vfmax": lambda a, b, rm, fl: fp32.vminmax(a, b, True, fl),
}


FAST_BINARY = {"vfadd": lambda a, b: a + b, "vfsub": lambda a, b: a - b, "vfrsub": lambda a, b: b - a,
               "vfmul": lambda a, b: a * b, "vfdiv": lambda a, b: a / b, "vfrdiv": lambda a, b: b / a}


def _binary_maker(name, form):
    fn = BINARY[name]
    fast_fn = FAST_BINARY.get(name)

    def maker(s, ops, pc, cost):
        vd, vs2, vm = ops["vd"], ops["vs2"], ops["vm"]
        checked = [None]

        def run():
            if s.vtype != checked[0]:
                operand_checks(s, pc, f"{name}.{form}", ops, form)
                checked[0] = s.vtype
            rm = s.fc[FRM]
            if rm > 4:
                need_fp(s, pc, f"{name}.{form}")
            vl = s.vl
            if vl:
                a = elems(s, vs2, 32, vl)
                fl = s.fc[FFLAGS]
                if vm and not rm and fast_fn is not None and (fl & fp32.NX or name == "vfmul"):
                    b = fp32.as_f64(elems(s, ops["vs1"], 32, vl)) if form == "vv" else fp32.to_float(s.f[ops["rs1"]])
                    fast = fp32.fast_round(fast_fn(fp32.as_f64(a), b), fl, name == "vfmul")
                    if fast is not None:
                        put(s, vd, 32, vl, fast[0], 1, s.lmul_num // s.lmul_den or 1)
                        s.fc[FFLAGS] = fast[1]
                        return cost * beats(s, vl, 32)
                b = _second(s, ops, form, vl)
                n = max(1, s.lmul_num // s.lmul_den)
                if vm == 0:
                    act = mask(s, vl)
                    out = np.zeros(vl, U32)
                    if act.any():
                        out[act], fl = fn(a[act], b[act], rm, fl)
                    put(s, vd, 32, vl, out, vm, n, act)
                else:
                    out, fl = fn(a, b, rm, fl)
                    put(s, vd, 32, vl, out, vm, n)
                s.fc[FFLAGS] = fl
            return cost * beats(s, vl, 32)
        return run
    return maker


for _name in BINARY:
    vector_forms(_name, ("vv", "vf"), lambda form, n=_name: _binary_maker(n, form))

SIGN = {"vfsgnj": lambda a, b: (a & U32(0x7FFFFFFF)) | (b & U32(0x80000000)),
        "vfsgnjn": lambda a, b: (a & U32(0x7FFFFFFF)) | (~b & U32(0x80000000)),
        "vfsgnjx": lambda a, b: a ^ (b & U32(0x80000000))}


def _sign_maker(name, form):
    fn = SIGN[name]

    def maker(s, ops, pc, cost):
        vd, vs2, vm = ops["vd"], ops["vs2"], ops["vm"]

        def run():
            n = operand_checks(s, pc, f"{name}.{form}", ops, form)
            vl = s.vl
            if vl:
                put(s, vd, 32, vl, fn(elems(s, vs2, 32, vl), _second(s, ops, form, vl)), vm, n)
            return cost * beats(s, vl, 32)
        return run
    return maker


for _name in SIGN:
    vector_forms(_name, ("vv", "vf"), lambda form, n=_name: _sign_maker(n, form))

FMA = {  # (product operands from vd?, negate product, negate addend)
    "vfmacc": (False, False, False), "vfnmacc": (False, True, True), "vfmsac": (False, False, True),
    "vfnmsac": (False, True, False), "vfmadd": (True, False, False), "vfnmadd": (True, True, True),
    "vfmsub": (True, False, True), "vfnmsub": (True, True, False),
}


def _fma_maker(name, form):
    uses_vd, neg_p, neg_c = FMA[name]

    def maker(s, ops, pc, cost):
        vd, vs2, vm = ops["vd"], ops["vs2"], ops["vm"]
        checked = [None]

        def run():
            if s.vtype != checked[0]:
                operand_checks(s, pc, f"{name}.{form}", ops, form)
                checked[0] = s.vtype
            rm = s.fc[FRM]
            if rm > 4:
                need_fp(s, pc, f"{name}.{form}")
            vl = s.vl
            if vl:
                d, v = elems(s, vd, 32, vl), elems(s, vs2, 32, vl)
                other, addend = (d, v) if uses_vd else (v, d)
                fl = s.fc[FFLAGS]
                if vm and not rm:
                    m = fp32.as_f64(elems(s, ops["vs1"], 32, vl)) if form == "vv" else fp32.to_float(s.f[ops["rs1"]])
                    p = fp32.as_f64(other) * m
                    z = fp32.as_f64(addend)
                    fast = fp32.fast_fma_sum(-p if neg_p else p, -z if neg_c else z, fl)
                    if fast is not None:
                        put(s, vd, 32, vl, fast[0], 1, max(1, s.lmul_num // s.lmul_den))
                        s.fc[FFLAGS] = fast[1]
                        return cost * beats(s, vl, 32)
                m = _second(s, ops, form, vl)
                n = max(1, s.lmul_num // s.lmul_den)
                act = None
                if vm == 0:
                    act = mask(s, vl)
                    out = np.zeros(vl, U32)
                    if act.any():
                        out[act], fl = fp32.vfma(m[act], other[act], addend[act], rm, fl, neg_p, neg_c)
                else:
                    out, fl = fp32.vfma(m, other, addend, rm, fl, neg_p, neg_c)
                put(s, vd, 32, vl, out, vm, n, act)
                s.fc[FFLAGS] = fl
            return cost * beats(s, vl, 32)
        return run
    return maker


for _name in FMA:
    vector_forms(_name, ("vv", "vf"), lambda form, n=_name: _fma_maker(n, form))

COMPARE = {"vmfeq": "eq", "vmfne": "ne", "vmflt": "lt", "vmfle": "le", "vmfgt": "gt", "vmfge": "ge"}


def _compare_maker(name, form):
    op = COMPARE[name]

    def maker(s, ops, pc, cost):
        vd, vs2, vm = ops["vd"], ops["vs2"], ops["vm"]

        def run():
            need_fp(s, pc, f"{name}.{form}")
            vl = s.vl
            group(s, pc, vs2, 1, "vs2")
            if form == "vv":
                group(s, pc, ops["vs1"], 1, "vs1")
            if vl:
                a, b = elems(s, vs2, 32, vl), _second(s, ops, form, vl)
                act = mask(s, vl) if vm == 0 else None
                if act is not None:
                    res = np.zeros(vl, bool)
                    res[act], fl = fp32.vcompare(a[act], b[act], op, s.fc[FFLAGS])
                else:
                    res, fl = fp32.vcompare(a, b, op, s.fc[FFLAGS])
                s.fc[FFLAGS] = fl
                put_mask(s, vd, vl, res, vm, act)
            return cost * beats(s, vl, 32)
        return run
    return maker


for _name in COMPARE:
    vector_forms(_name, ("vv", "vf"), lambda form, n=_name: _compare_maker(n, form))

UNARY = {
    "vfsqrt.v": lambda a, rm, fl: fp32.vsqrt(a, rm, fl),
    "vfclass.v": lambda a, rm, fl: (fp32.vclass(a), fl),
    "vfcvt.xu.f.v": lambda a, rm, fl: fp32.vcvt_to_int(a, rm, False, fl),
    "vfcvt.x.f.v": lambda a, rm, fl: fp32.vcvt_to_int(a, rm, True, fl),
    "vfcvt.rtz.xu.f.v": lambda a, rm, fl: fp32.vcvt_to_int(a, fp32.RTZ, False, fl),
    "vfcvt.rtz.x.f.v": lambda a, rm, fl: fp32.vcvt_to_int(a, fp32.RTZ, True, fl),
    "vfcvt.f.xu.v": lambda a, rm, fl: fp32.vcvt_from_int(a, rm, False, fl),
    "vfcvt.f.x.v": lambda a, rm, fl: fp32.vcvt_from_int(a, rm, True, fl),
}


def _unary_maker(name):
    fn = UNARY[name]

    def maker(s, ops, pc, cost):
        vd, vs2, vm = ops["vd"], ops["vs2"], ops["vm"]

        def run():
            rm = need_fp(s, pc, name)
            vl = s.vl
            n = group(s, pc, vd, 1, "vd")
            group(s, pc, vs2, 1, "vs2")
            masked_dest_check(pc, vm, vd)
            if vl:
                a = elems(s, vs2, 32, vl)
                act = mask(s, vl) if vm == 0 else None
                fl = s.fc[FFLAGS]
                if act is not None:
                    out = np.zeros(vl, U32)
                    if act.any():
                        out[act], fl = fn(a[act], rm, fl)
                else:
                    out, fl = fn(a, rm, fl)
                s.fc[FFLAGS] = fl
                put(s, vd, 32, vl, out, vm, n, act)
            return cost * beats(s, vl, 32)
        return run
    return maker


for _name in UNARY:
    vector(_name)(_unary_maker(_name))


@vector("vfmerge.vfm", "vfmv.v.f")
def _fmerge(s, ops, pc, cost):
    vd, vs2 = ops["vd"], ops.get("vs2")

    def run():
        need_fp(s, pc, "vfmerge.vfm" if vs2 is not None else "vfmv.v.f")
        vl = s.vl
        n = group(s, pc, vd, 1, "vd")
        if vs2 is not None:
            group(s, pc, vs2, 1, "vs2")
            masked_dest_check(pc, 0, vd)
        if vl:
            b = np.full(vl, s.f[ops["rs1"]], dtype=U32)
            if vs2 is not None:
                b = np.where(mask(s, vl), b, elems(s, vs2, 32, vl))
            put(s, vd, 32, vl, b, 1, n)
        return cost * beats(s, vl, 32)
    return run


@vector("vfmv.f.s")
def _fmv_f_s(s, ops, pc, cost):
    rd, vs2 = ops["rd"], ops["vs2"]

    def run():
        need_fp(s, pc, "vfmv.f.s")
        s.f[rd] = int(elems(s, vs2, 32, 1)[0])
        return cost
    return run


@vector("vfmv.s.f")
def _fmv_s_f(s, ops, pc, cost):
    vd, rs1 = ops["vd"], ops["rs1"]

    def run():
        need_fp(s, pc, "vfmv.s.f")
        if s.vl:
            put(s, vd, 32, 1, np.array([s.f[rs1]], U32), 1, 1)
        return cost
    return run
