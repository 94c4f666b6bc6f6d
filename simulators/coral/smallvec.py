"""Short vectors in pure Python: the common vector instructions at small vl without
numpy.

At VLEN = 128 an e32 m1 register holds 4 elements, and a numpy call costs more than
the arithmetic; an agent's kernel full of slides, masked operations, compares and
reductions on such registers ran at tens of thousands of instructions per second.
Here those instructions read and write the vector register file through memoryview
casts (`float32` and unsigned views of the same bytes) and compute on Python floats
and ints.

Each fast form is an optimisation of the instruction's semantics closure
(semantics/vector_*.py), never a second definition of it:
- it runs only for the (vtype, vl) the closure last ran with, which proves the
  operand checks pass, and returns the cycles the closure returned then (a function
  of vtype and vl for every instruction here);
- floating point takes it only in the simple case: round to nearest even, every
  binary64 result finite below 2^127 and not tiny (exact zeros allowed), no NaN
  operand for compares, minimum and maximum, no zero divisor. binary64 then binary32
  rounds add, subtract, multiply and divide correctly (53 >= 2 * 24 + 2), and NX,
  the only flag such results can raise, is raised when the binary32 rounding or the
  binary64 sum (TwoSum's error term) was inexact, or a quotient times the divisor
  is not the dividend;
- otherwise it returns False before writing anything, and the closure runs.
The fast forms apply to any register group size; vl up to MAX_VL (moves, loads
and stores further: LIMIT).
"""
from __future__ import annotations

import math
from array import array

from .fp32 import NX, TINY
from .state import FFLAGS, FRM

MAX_VL = 16                    # above it numpy is faster (fma at vl = 32: 1.4x)
# forms that only copy elements (C-speed list and array conversions) beat numpy's
# per-call overhead up to a few hundred elements; a merge's per-element choice less far
MOVE_VL, MERGE_VL = 256, 64
BIG = 2.0 ** 127
CODES = {8: "B", 16: "H", 32: "I"}


class Lanes:
    """The vector register file as memoryviews: float32 (`F`), unsigned by SEW (`U`),
    and a one-element scratch pair for binary32 bits <-> float."""

    def __init__(self, s):
        raw = memoryview(s.vreg)
        self.F = raw.cast("f")
        self.U = {w: raw.cast(CODES[w]) for w in CODES}
        self.B = self.U[8]
        self.bits = array("I", [0])
        self.flt = memoryview(self.bits).cast("B").cast("f")
        self.ones = {w: (1 << w) - 1 for w in CODES}
        # all-ones elements for agnostic tails, as arrays a slice of the file takes
        self.tails = {w: array(CODES[w], [(1 << w) - 1]) * (s.VLENB * 8 * 8 // w) for w in CODES}

    def as_float(self, bits: int) -> float:
        self.bits[0] = bits
        return self.flt[0]


def lanes(s) -> Lanes:
    L = getattr(s, "_lanes", None)
    if L is None:
        L = s._lanes = Lanes(s)
    return L


def active(L, s, vl: int) -> int:
    """Mask bits 0..vl-1 of v0 as an int."""
    return int.from_bytes(L.B[0:(vl + 7) >> 3], "little") & ((1 << vl) - 1)


def write(L, s, V, sew: int, vd: int, vl: int, vals, vm: int, act: int, nregs: int) -> None:
    """put() of vector_core for a list of results (None where inactive): inactive
    elements follow the mask policy, the tail the tail policy."""
    epr = s.VLENB * 8 // sew
    b = vd * epr
    ones = L.ones[sew]
    if vm:
        V[b:b + vl] = array(V.format, vals)
    else:
        agnostic = s.vma and s.agnostic_ones
        for i, v in enumerate(vals):
            if act >> i & 1:
                V[b + i] = v
            elif agnostic:
                L.U[sew][b + i] = ones
    if s.vta and s.agnostic_ones and vl < nregs * epr:
        L.U[sew][b + vl:b + nregs * epr] = L.tails[sew][:nregs * epr - vl]


def second(L, s, form: str, vs1, rs1, vl: int) -> list:
    """The second operand of a .vv / .vf floating-point form as vl floats."""
    if form == "vv":
        e = s.VLENB >> 2
        return L.F[vs1 * e:vs1 * e + vl].tolist()
    return [L.as_float(s.f[rs1])] * vl


def nregs(s) -> int:
    return max(1, s.lmul_num // s.lmul_den)


# --- floating-point element-wise -------------------------------------------------------

# each operation on elements a[i], b[i]; for sums also the two addends (TwoSum's error
# term tells whether binary64 rounded them; products are exact in binary64), for
# quotients dividend and divisor (an inexact binary32 quotient r has r * d != n)
ARITH = {"vfadd": ("a[i] + b[i]", ("a[i]", "b[i]")), "vfsub": ("a[i] - b[i]", ("a[i]", "-b[i]")),
         "vfrsub": ("b[i] - a[i]", ("b[i]", "-a[i]")), "vfmul": ("a[i] * b[i]", None),
         "vfdiv": ("a[i] / b[i]", None), "vfrdiv": ("b[i] / a[i]", None)}
QUOTIENT = {"vfdiv": ("a[i]", "b[i]"), "vfrdiv": ("b[i]", "a[i]")}


def _arith_loop(name: str):
    """The element loop of one operation as straight-line Python: (results, None where
    inactive, and NX) or (None, nx) if an element leaves the simple path (see the
    module docstring): not finite below 2^127, or tiny and not zero."""
    expr, addends = ARITH[name]
    if addends is not None:
        p, q = addends
        test = [f"bb = x - {p}", f"if r != x or ({p} - (x - bb)) + ({q} - bb) != 0:"]
    elif name in QUOTIENT:
        n, d = QUOTIENT[name]
        test = [f"if r * {d} != {n}:"]
    else:
        test = ["if r != x:"]
    lines = ["def loop(a, b, act, vl, nx, flt):", "    out = [None] * vl", "    for i in range(vl):",
             "        if act >> i & 1:", f"            x = {expr}",
             "            if not (TINY <= x < BIG or -BIG < x <= -TINY or x == 0.0):", "                return None, nx",
             "            if not nx:", "                flt[0] = x", "                r = flt[0]"]
    lines += ["                " + t for t in test] + ["                    nx = NX", "            out[i] = x",
                                                        "    return out, nx"]
    scope: dict = {}
    exec("\n".join(lines), {"BIG": BIG, "TINY": TINY, "NX": NX}, scope)
    return scope["loop"]


def _minmax(a: float, b: float, take_max: bool):
    if a != a or b != b:
        return None                               # NaN: the closure decides (and flags sNaN)
    if a == b:
        if a == 0.0 and math.copysign(1.0, a) != math.copysign(1.0, b):
            return b if (math.copysign(1.0, a) < 0) == take_max else a
        return a
    return (a if a > b else b) if take_max else (a if a < b else b)


def _binary(name: str, form: str):
    arith = name in ARITH
    take_max = name == "vfmax"
    elementwise = _arith_loop(name) if arith else None
    quotient = name in QUOTIENT

    def make(s, ops):
        L = lanes(s)
        F, fc = L.F, s.fc
        vd, vs2, vm = ops["vd"], ops["vs2"], ops["vm"]
        vs1, rs1 = ops.get("vs1"), ops.get("rs1")

        def fast(vl: int) -> bool:
            nx = fc[FFLAGS] & NX
            if arith:
                if fc[FRM]:
                    return False
            elif fc[FRM] > 4:
                return False
            e = s.VLENB >> 2
            a = F[vs2 * e:vs2 * e + vl].tolist()
            b = second(L, s, form, vs1, rs1, vl)
            if quotient and 0.0 in (b if name == "vfdiv" else a):
                return False                     # division by zero: the closure raises DZ or NV
            act = -1 if vm else active(L, s, vl)
            if arith:
                out, nx = elementwise(a, b, act, vl, nx, L.flt)
                if out is None:
                    return False
                write(L, s, F, 32, vd, vl, out, vm, act, nregs(s))
                fc[FFLAGS] |= nx
                return True
            out = [None] * vl
            for i in range(vl):
                if act >> i & 1:
                    x = _minmax(a[i], b[i], take_max)
                    if x is None:
                        return False
                    out[i] = x
            write(L, s, F, 32, vd, vl, out, vm, act, nregs(s))
            fc[FFLAGS] |= nx
            return True
        return fast
    return make


# --- compares into a mask ----------------------------------------------------------------

COMPARE = {"vmfeq": lambda a, b: a == b, "vmfne": lambda a, b: a != b, "vmflt": lambda a, b: a < b,
           "vmfle": lambda a, b: a <= b, "vmfgt": lambda a, b: a > b, "vmfge": lambda a, b: a >= b}


def _compare(name: str, form: str):
    op = COMPARE[name]

    def make(s, ops):
        L = lanes(s)
        F, fc = L.F, s.fc
        vd, vs2, vm = ops["vd"], ops["vs2"], ops["vm"]
        vs1, rs1 = ops.get("vs1"), ops.get("rs1")

        def fast(vl: int) -> bool:
            if fc[FRM] > 4:
                return False
            e = s.VLENB >> 2
            a = F[vs2 * e:vs2 * e + vl].tolist()
            b = second(L, s, form, vs1, rs1, vl)
            act = (1 << vl) - 1 if vm else active(L, s, vl)
            bits = 0
            for i in range(vl):
                if act >> i & 1:
                    x, y = a[i], b[i]
                    if x != x or y != y:
                        return False
                    if op(x, y):
                        bits |= 1 << i
            write_mask(L, s, vd, vl, bits, act)
            return True
        return fast
    return make


def int_operands(L, s, form: str, vs2: int, vs1, rs1, imm, vl: int):
    """(the SEW view, vs2's elements, the second operand's) of a .vv / .vx / .vi form,
    unsigned SEW-bit ints."""
    V = L.U[s.sew]
    e = s.VLENB * 8 // s.sew
    a = V[vs2 * e:vs2 * e + vl].tolist()
    if form == "vv":
        return V, a, V[vs1 * e:vs1 * e + vl].tolist()
    return V, a, [(s.x[rs1] if form == "vx" else imm) & L.ones[s.sew]] * vl


def write_mask(L, s, vd: int, vl: int, bits: int, act: int) -> None:
    """put_mask() of vector_core: result bits (active ones) into mask register vd;
    inactive bits follow the mask policy, bits vl.. are set (agnostic) or kept."""
    n, B = s.VLENB, L.B
    old = int.from_bytes(B[vd * n:(vd + 1) * n], "little")
    inactive = ((1 << vl) - 1) & ~act
    keep = 0 if (s.vma and s.agnostic_ones) else old & inactive
    new = bits | keep | (inactive if s.vma and s.agnostic_ones else 0)
    if s.agnostic_ones:
        new |= ((1 << (8 * n)) - 1) ^ ((1 << vl) - 1)
    else:
        new |= old & ~((1 << vl) - 1)
    B[vd * n:(vd + 1) * n] = new.to_bytes(n, "little")


INT_COMPARE = {"vmseq": (False, lambda a, b: a == b), "vmsne": (False, lambda a, b: a != b),
               "vmsltu": (False, lambda a, b: a < b), "vmslt": (True, lambda a, b: a < b),
               "vmsleu": (False, lambda a, b: a <= b), "vmsle": (True, lambda a, b: a <= b),
               "vmsgtu": (False, lambda a, b: a > b), "vmsgt": (True, lambda a, b: a > b)}


def _int_compare(name: str, form: str):
    signed, op = INT_COMPARE[name]

    def make(s, ops):
        L = lanes(s)
        vd, vs2, vm = ops["vd"], ops["vs2"], ops["vm"]
        vs1, rs1, imm = ops.get("vs1"), ops.get("rs1"), ops.get("imm")

        def fast(vl: int) -> bool:
            sew = s.sew
            half = 1 << (sew - 1)
            _, a, b = int_operands(L, s, form, vs2, vs1, rs1, imm, vl)
            if signed:
                a = [(x ^ half) - half for x in a]
                b = [(y ^ half) - half for y in b]
            act = (1 << vl) - 1 if vm else active(L, s, vl)
            bits = 0
            for i in range(vl):
                if act >> i & 1 and op(a[i], b[i]):
                    bits |= 1 << i
            write_mask(L, s, vd, vl, bits, act)
            return True
        return fast
    return make


# --- slides -----------------------------------------------------------------------------

def _slidedown(s, ops):
    L = lanes(s)
    vd, vs2, vm = ops["vd"], ops["vs2"], ops["vm"]
    rs1, imm = ops.get("rs1"), ops.get("imm")

    def fast(vl: int) -> bool:
        sew = s.sew
        V = L.U[sew]
        off = s.x[rs1] if rs1 is not None else imm
        vlmax = s.vlmax
        take = max(0, min(vl, vlmax - off)) if off < vlmax else 0
        base = vs2 * (s.VLENB * 8 // sew) + off
        src = V[base:base + take].tolist() + [0] * (vl - take)
        act = -1 if vm else active(L, s, vl)
        write(L, s, V, sew, vd, vl, src, vm, act, nregs(s))
        return True
    return fast


def _slide1(direction: str, fp: bool):
    def make(s, ops):
        L = lanes(s)
        vd, vs2, vm, rs1 = ops["vd"], ops["vs2"], ops["vm"], ops["rs1"]
        regs = s.f if fp else s.x

        def fast(vl: int) -> bool:
            if fp and s.fc[FRM] > 4:
                return False
            sew = s.sew
            V = L.U[sew]
            base = vs2 * (s.VLENB * 8 // sew)
            value = regs[rs1] & L.ones[sew]
            src = V[base:base + vl].tolist()
            new = [value] + src[:vl - 1] if direction == "up" else src[1:] + [value]
            act = -1 if vm else active(L, s, vl)
            write(L, s, V, sew, vd, vl, new, vm, act, nregs(s))
            return True
        return fast
    return make


# --- unordered reduction -------------------------------------------------------------------

def _fredusum(s, ops):
    L = lanes(s)
    F, fc, flt = L.F, s.fc, L.flt
    vd, vs2, vs1, vm = ops["vd"], ops["vs2"], ops["vs1"], ops["vm"]
    nl = s.VLEN // 32

    def add(p, q, nx):
        x = p + q
        if not (TINY <= x < BIG or -BIG < x <= -TINY or x == 0.0):      # the simple path; no abs() call
            return None, nx
        flt[0] = x
        r = flt[0]
        if not nx:
            bb = x - p
            if r != x or (p - (x - bb)) + (q - bb) != 0:
                nx = NX
        return r, nx

    def fast(vl: int) -> bool:
        if fc[FRM]:
            return False
        nx = fc[FFLAGS] & NX
        e = s.VLENB >> 2
        v = F[vs2 * e:vs2 * e + vl].tolist()
        act = -1 if vm else active(L, s, vl)
        if not act & ((1 << vl) - 1):      # the start value, bit for bit (it may be a NaN)
            write(L, s, L.U[32], 32, vd, 1, [L.U[32][vs1 * e]], 1, -1, 1)
            return True
        # semantics.vector_reduce_mask.fp_lane_sum's order: lanes i % nl, lane 0 from vs1[0],
        # then a tree of halves
        acc = [F[vs1 * e]] + [None] * (nl - 1)
        for i, x in enumerate(v):
            if act >> i & 1:
                k = i % nl
                if acc[k] is None:
                    acc[k] = x
                else:
                    acc[k], nx = add(acc[k], x, nx)
                    if acc[k] is None:
                        return False
        n = nl
        while n > 1:
            n //= 2
            for k in range(n):
                if acc[k + n] is not None:
                    if acc[k] is None:
                        acc[k] = acc[k + n]
                    else:
                        acc[k], nx = add(acc[k], acc[k + n], nx)
                        if acc[k] is None:
                            return False
        write(L, s, F, 32, vd, 1, [acc[0]], 1, -1, 1)
        fc[FFLAGS] |= nx
        return True
    return fast


# --- fused multiply-add -----------------------------------------------------------------

FMA = {  # (product operands from vd?, negate product, negate addend), as vector_float.FMA
    "vfmacc": (False, False, False), "vfnmacc": (False, True, True), "vfmsac": (False, False, True),
    "vfnmsac": (False, True, False), "vfmadd": (True, False, False), "vfnmadd": (True, True, True),
    "vfmsub": (True, False, True), "vfnmsub": (True, True, False),
}


def _fma(name: str, form: str):
    uses_vd, neg_p, neg_c = FMA[name]

    def make(s, ops):
        L = lanes(s)
        F, fc = L.F, s.fc
        vd, vs2, vm = ops["vd"], ops["vs2"], ops["vm"]
        vs1, rs1 = ops.get("vs1"), ops.get("rs1")

        def fast(vl: int) -> bool:
            if fc[FRM]:
                return False
            nx = fc[FFLAGS] & NX
            e = s.VLENB >> 2
            d, v = F[vd * e:vd * e + vl].tolist(), F[vs2 * e:vs2 * e + vl].tolist()
            other, addend = (d, v) if uses_vd else (v, d)
            m = second(L, s, form, vs1, rs1, vl)
            act = -1 if vm else active(L, s, vl)
            out = [None] * vl
            flt = L.flt
            for i in range(vl):
                if act >> i & 1:
                    p = m[i] * other[i]                  # exact in binary64
                    z = addend[i]
                    if neg_p:
                        p = -p
                    if neg_c:
                        z = -z
                    x = p + z
                    if not (TINY <= x < BIG or -BIG < x <= -TINY):   # zeros too: their signs are the exact path's
                        return False
                    flt[0] = x
                    r = flt[0]
                    bb = x - p
                    if (p - (x - bb)) + (z - bb) != 0:   # binary64 rounded the sum
                        o = x + (x - r)                  # a binary32 midpoint: ties unsafe
                        flt[0] = o
                        if r != x and flt[0] == o:
                            return False
                        nx = NX
                    elif r != x:
                        nx = NX
                    out[i] = x
            write(L, s, F, 32, vd, vl, out, vm, act, nregs(s))
            fc[FFLAGS] |= nx
            return True
        return fast
    return make


# --- integer element-wise (modulo 2^SEW) -------------------------------------------------

INT = {"vadd": lambda a, b: a + b, "vsub": lambda a, b: a - b, "vrsub": lambda a, b: b - a,
       "vand": lambda a, b: a & b, "vor": lambda a, b: a | b, "vxor": lambda a, b: a ^ b,
       "vmul": lambda a, b: a * b}


def _int(name: str, form: str):
    fn = INT[name]

    def make(s, ops):
        L = lanes(s)
        vd, vs2, vm = ops["vd"], ops["vs2"], ops["vm"]
        vs1, rs1, imm = ops.get("vs1"), ops.get("rs1"), ops.get("imm")

        def fast(vl: int) -> bool:
            sew = s.sew
            ones = L.ones[sew]
            V, a, b = int_operands(L, s, form, vs2, vs1, rs1, imm, vl)
            out = [fn(x, y) & ones for x, y in zip(a, b)]
            write(L, s, V, sew, vd, vl, out, vm, -1 if vm else active(L, s, vl), nregs(s))
            return True
        return fast
    return make


# --- moves, splats and merges ------------------------------------------------------------

def _merge(src: str, merge: bool, fp: bool = False):
    """vmv.v.{v,x,i} / vfmv.v.f (merge False) and vmerge.v{v,x,i}m / vfmerge.vfm:
    the source (or, where v0 is clear, vs2) in every element below vl."""
    def make(s, ops):
        L = lanes(s)
        vd, vs2 = ops["vd"], ops.get("vs2")
        vs1, rs1, imm = ops.get("vs1"), ops.get("rs1"), ops.get("imm")

        def fast(vl: int) -> bool:
            if fp and s.fc[FRM] > 4:
                return False
            sew = s.sew
            V = L.U[sew]
            e = s.VLENB * 8 // sew
            if src == "v":
                b = V[vs1 * e:vs1 * e + vl].tolist()
            else:
                b = [((s.f if fp else s.x)[rs1] if src == "x" else imm) & L.ones[sew]] * vl
            if merge:
                act, a = active(L, s, vl), V[vs2 * e:vs2 * e + vl].tolist()
                b = [b[i] if act >> i & 1 else a[i] for i in range(vl)]
            write(L, s, V, sew, vd, vl, b, 1, -1, nregs(s))
            return True
        return fast
    return make


# --- unit-stride loads and stores, unmasked -----------------------------------------------

def _unit(eew: int, store: bool):
    eb = eew // 8

    def make(s, ops):
        L = lanes(s)
        mem = {8: s.m8, 16: s.m16, 32: s.m32}[eew]
        vreg, rs1, vm = ops["vs3" if store else "vd"], ops["rs1"], ops["vm"]

        def fast(vl: int) -> bool:
            if not vm:
                return False
            base = s.x[rs1]
            o = base - s.dbase
            if o < 0 or o + vl * eb > s.dsize or base % eb:
                return False                     # the closure raises the error for the element
            i = o // eb
            r = vreg * (s.VLENB // eb)
            V = L.U[eew]
            if store:
                mem[i:i + vl] = V[r:r + vl]
            else:
                n = max(1, s.lmul_num * eew // (s.sew * s.lmul_den))    # EMUL = LMUL * EEW / SEW
                write(L, s, V, eew, vreg, vl, mem[i:i + vl].tolist(), 1, -1, n)
            return True
        return fast
    return make


SMALL = {}
for _src in "vxi":
    SMALL[f"vmv.v.{_src}"] = _merge(_src, False)
    SMALL[f"vmerge.v{_src}m"] = _merge(_src, True)
SMALL["vfmv.v.f"] = _merge("x", False, fp=True)
SMALL["vfmerge.vfm"] = _merge("x", True, fp=True)
for _eew in (8, 16, 32):
    SMALL[f"vle{_eew}.v"] = _unit(_eew, False)
    SMALL[f"vse{_eew}.v"] = _unit(_eew, True)
# the vl up to which each fast form is used (MAX_VL if not named here)
LIMIT = {mn: MERGE_VL if "merge" in mn else MOVE_VL for mn in SMALL}
for _name in FMA:
    for _form in ("vv", "vf"):
        SMALL[f"{_name}.{_form}"] = _fma(_name, _form)
for _name in INT:
    for _form in ("vv", "vx", "vi"):
        SMALL[f"{_name}.{_form}"] = _int(_name, _form)
for _name in INT_COMPARE:
    for _form in ("vv", "vx", "vi"):
        SMALL[f"{_name}.{_form}"] = _int_compare(_name, _form)
for _name in ARITH.keys() | {"vfmin", "vfmax"}:
    for _form in ("vv", "vf"):
        SMALL[f"{_name}.{_form}"] = _binary(_name, _form)
for _name in COMPARE:
    for _form in ("vv", "vf"):
        SMALL[f"{_name}.{_form}"] = _compare(_name, _form)
SMALL["vslidedown.vx"] = SMALL["vslidedown.vi"] = _slidedown
for _dir in ("up", "down"):
    SMALL[f"vslide1{_dir}.vx"] = _slide1(_dir, False)
    SMALL[f"vfslide1{_dir}.vf"] = _slide1(_dir, True)
SMALL["vfredusum.vs"] = _fredusum


def wrap(mnemonic: str, s, ops: dict, general):
    """The instruction's closure, first trying its short-vector form (if it has one)."""
    make = SMALL.get(mnemonic)
    if make is None:
        return general
    fast = make(s, ops)
    limit = LIMIT.get(mnemonic, MAX_VL)
    last = [-1, -1, 0]                    # vtype, vl and cycles of the closure's last run
    hot = [-1, -1, 0]                     # the same while vl <= limit: the fast form applies
    # an 8- or 16-bit unit load's cycles depend on its address's byte in a word as well
    # (vector_core.realign): that is part of what the cycles were taken at
    rs1 = ops["rs1"] if mnemonic in ("vle8.v", "vle16.v") else None

    def run():
        vl = s.vl
        off = s.x[rs1] & 3 if rs1 is not None else 0
        if vl == hot[1] and s.vtype == hot[0] and off == hot[2] and fast(vl):
            return last[2]
        vtype = s.vtype
        cycles = general()
        if vl > 0:
            last[:] = vtype, vl, cycles
            hot[:] = (vtype, vl, off) if vl <= limit else (-1, -1, 0)
        return cycles
    run.last = last                        # for vecloop.py: checks passed, and the cycles, at this vtype and vl
    return run
