"""Random valid coral vector programs for differential testing of the RTL's vector unit
against the model: every vector instruction the RTL implements (backend.VECTOR) at
SEW = 32 with LMUL 1, 2, 4 and 8, tail and mask policies undisturbed and agnostic,
vl from 0 to VLMAX, masked (v0.t) arithmetic, reductions, divides, square roots,
conversions, compares, integer operations, multiplies, multiply-adds and divides (by 0 and -1 too), slides by small and huge
offsets, mask logic, merges, add-with-carry and subtract-with-borrow (vadc, vsbc, vmadc, vmsbc), vid/viota, vcpop/vfirst, vmsbf/vmsif/vmsof, register gathers and vcompress, unit-stride and strided (negative, zero) accesses of 32-bit
elements and (EEW != SEW) 8- and 16-bit ones, masked or not,
the widening and narrowing integer instructions and vnclip(u) (a switch to SEW = 8 or 16 at
LMUL 1/2 to 4 and back, sources overlapping the destination where the rules allow it),
vzext/vsext, the fixed-point instructions (vxrm set between them, vxsat read),
anywhere in a data buffer, every rounding mode through frm, and scalar
loads, stores and fflags reads between them (the timing model's waits), so that queue
fills, write-back bypasses and synchronisation are all exercised; indexed accesses right
after writers of their offsets, of v0 and of other registers (`random_scoreboard_program`:
the unit's scoreboard).

The instructions of each kind are drawn from the ISA data (isa/coral: group, timing class,
classes, operands) among those backend.VECTOR lets through, so new ones are covered without an
edit here; `fill` makes an instance of an element-wise one from its operand kinds alone.

Registers: s0 points at the buffer, t2 is a vector address, t3 a stride; f0..f31 hold
special and random floats. `fault_programs()` are short programs each of whose last
vector instruction breaks one of the model's rules (the RTL must stop where the model does).
"""
from __future__ import annotations

import random

from kernelcraft.isa.loader import get_isa
from kernelcraft.simulators.coral.semantics.vector_segment import SEGMENT as SEGMENT_FORM
from kernelcraft.simulators.coral.tables import ACCEL

from .backend import _CMP, _EXTEND, _INT, _MASK_LOGIC, _MUL, _NARROW, _WIDEN, VECTOR
from .randprog import SPECIAL_FLOATS

BUFFER = 1024                       # bytes; vector accesses stay inside it
FREGS = [f"f{i}" for i in range(32)]
ISA = get_isa(ACCEL)
_I = ISA.instructions
# Instructions by their ISA data (isa/coral: a record's group, timing class, classes, operands,
# summary), not lists of mnemonics kept here: what the backend lets through (VECTOR) of each
# kind is drawn from, so an instruction added to the RTL and the ISA is in the random programs
# without an edit here. (The lists below were checked equal to the hand-kept ones they replace.)
_shape = lambda m: tuple(o.name for o in _I[m].operands)
_wide = lambda m: "2*SEW" in _I[m].semantics                 # widening / narrowing: SEW 8, 16 only
FMA = sorted({m.split(".")[0] for m in ISA.having("accumulates") if m in VECTOR})
BINARY = sorted(n for n in {m.split(".")[0] for m in VECTOR}
                if {f"{n}.vv", f"{n}.vf"} <= VECTOR and n not in FMA and n not in _CMP and _I[f"{n}.vv"].timing == "VFALU")
REDUCTIONS = sorted(m for m in VECTOR if _I[m].timing in ("VRED", "VFRED") and not _wide(m))
UNARY = sorted(m for m in VECTOR if _I[m].group == "rvv_float" and _shape(m) == ("vd", "vs2", "vm"))
FDIV = sorted(m for m in VECTOR if _I[m].timing == "VFDIV" and m not in UNARY)     # vfdiv, vfrdiv
MADD_OPS = sorted(m for m in VECTOR if _I[m].group == "rvv_integer" and _I[m].timing == "VMUL"
                  and _shape(m)[1] in ("vs1", "rs1"))                  # vd, vs1 / rs1, vs2: vd an operand too
MADD = tuple(sorted({m.split(".")[0] for m in MADD_OPS}))
DIV_OPS = sorted(m for m in VECTOR if _I[m].timing == "VDIV")
INTEGER = sorted(m for m in VECTOR if m.split(".")[0] in _INT + _MUL)
SLIDES = sorted(m for m in VECTOR if _I[m].timing == "VPERM" and "slide" in m)
COMPARES = sorted(m for m in VECTOR if m.split(".")[0] in _CMP)
FIXED = sorted(m for m in VECTOR if _I[m].group == "rvv_fixed")
FIXED_NARROW = [m for m in FIXED if _wide(m)]                           # vnclip(u): SEW 8, 16
INDEXED = sorted(m for m in VECTOR if _I[m].format.name in ("VLX", "VSX") and _I[m].group == "rvv_memory")
SEGMENT = sorted(m for m in VECTOR if _I[m].group == "rvv_segment" and _I[m].fixed.get("nf", 0) > 0)
CARRY = sorted(m for m in VECTOR if _I[m].group == "rvv_carry")         # vadc, vsbc, vmadc, vmsbc
XREGS = ["a0", "a1", "a2", "a3", "a4", "a5", "t4", "t5", "t6"]

# element values at the edges of every width (saturation at both ends, rounding ties)
EDGES = [0x00, 0x01, 0x7F, 0x80, 0x81, 0xFF, 0xFE, 0x7FFF, 0x8000, 0x8001, 0xFFFF, 0x7FFFFFFF, 0x80000000,
         0x80000001, 0xFFFFFFFF, 0x40, 0xC0, 0x4000, 0xC000, 0x40000000, 0xC0000000, 0x55555555, 0xAAAAAAAA]


def edge_word(rng: random.Random) -> int:
    """A word of edge elements at some width (8, 16 or 32 bits), or a random one."""
    if rng.random() < 0.3:
        return rng.getrandbits(32)
    w = rng.choice([8, 16, 32])
    word = 0
    for k in range(32 // w):
        word |= (rng.choice(EDGES) & ((1 << w) - 1)) << (k * w)
    return word


def _group(rng, lmul: int, not_v0: bool = False) -> str:
    choices = [r for r in range(0, 32, lmul) if not (not_v0 and r == 0)]
    return f"v{rng.choice(choices)}"


def _vector(rng: random.Random, lmul: int, vlmax: int, pol: str) -> list[str]:
    c = rng.random()
    mask = rng.random() < 0.25
    vm = ", v0.t" if mask else ""
    vd = _group(rng, lmul, not_v0=mask)
    a, b = _group(rng, lmul), _group(rng, lmul)
    f = rng.choice(FREGS)
    if rng.random() < 0.1:                        # vd[0] = vs1[0] (+ | min | max) the active vs2 elements
        op = rng.choice(REDUCTIONS)
        return [f"{op} v{rng.randrange(32)}, {a}, v{rng.randrange(32)}{vm}"]
    if rng.random() < 0.1:                        # the lanes' dividers and converters
        op = rng.choice(UNARY + FDIV)
        second = {"vv": f", {b}", "vf": f", {f}"}.get(op.rsplit(".", 1)[1], "")
        return [f"{op} {vd}, {a}{second}{vm}"]
    if rng.random() < 0.1:                        # compares into a mask register
        op = rng.choice(COMPARES)
        lmul_regs = set(range(int(a[1:]), int(a[1:]) + lmul)) | set(range(int(b[1:]), int(b[1:]) + lmul))
        # vd: the lowest register of a source group or no source register at all (the
        # specification reserves the other overlaps)
        vd = rng.choice([a] + [f"v{r}" for r in range(32) if r not in lmul_regs])
        form = op.rsplit(".", 1)[1]
        second = {"vv": b, "vf": f, "vx": rng.choice(XREGS), "vi": str(rng.randint(-16, 15))}[form]
        return [f"{op} {vd}, {a}, {second}{vm}"]
    if rng.random() < 0.08:                       # slides (up: vd is not vs2's group)
        return _slide(rng, lmul, vlmax, vd, a, mask, vm)
    if rng.random() < 0.1:                        # widening, narrowing, extension
        return _widening(rng, lmul, pol) if rng.random() < 0.75 else [_extend(rng, lmul, vm, mask)]
    if rng.random() < 0.06:                       # register gathers (vd apart from the sources)
        return _gather(rng, lmul, vlmax, a, b, mask, vm)
    if rng.random() < 0.06:                       # fixed point (vxrm as the program set it)
        out = [fill(rng, rng.choice([m for m in FIXED if m not in FIXED_NARROW]), lmul, mask)]
        return [f"csrwi vxrm, {rng.randrange(4)}"] + out if rng.random() < 0.3 else out
    if rng.random() < 0.1:                        # merges, element indices, mask queries
        return [_mask_op(rng, lmul, vd, a, b, f, mask, vm)]
    if rng.random() < 0.05:                       # mask logic: single registers, any of them
        op = rng.choice(_MASK_LOGIC)
        return [f"{op}.mm v{rng.randrange(32)}, v{rng.randrange(32)}, v{rng.randrange(32)}"]
    if rng.random() < 0.12:                       # integer
        kind = rng.choice([INTEGER, INTEGER, MADD_OPS, DIV_OPS, CARRY])
        if kind is CARRY:                         # add-with-carry, subtract-with-borrow (v0 the carry)
            return [_carry(rng, lmul, a, b)]
        op = rng.choice(kind)
        second = {"vv": b, "vx": rng.choice(XREGS), "vi": str(rng.randint(0, 31) if op[1] == "s" else rng.randint(-16, 15))}[op.rsplit(".", 1)[1]]
        if op.startswith(("vdiv", "vrem")) and op.endswith(".vx") and rng.random() < 0.5:
            second = rng.choice(XREGS)                # by zero, -1 (-2^31 / -1), 1, -2^31
            return [f"li {second}, {rng.choice([0, -1, 1, -(1 << 31)])}", f"{op} {vd}, {a}, {second}{vm}"]
        if op.split(".")[0] in MADD:              # vd, vs1 / rs1, vs2 (vd an operand too)
            return [f"{op} {vd}, {second}, {a}{vm}"]
        return [f"{op} {vd}, {a}, {second}{vm}"]
    if rng.random() < 0.05:                       # indexed loads and stores (offsets made just before)
        block = _indexed(rng, 32, lmul, pol, mask)
        if block:
            return block
    eew = 32 if rng.random() < 0.75 else rng.choice([8, 16])     # EMUL = EEW / 32 * LMUL
    reg = _group(rng, max(1, lmul * eew // 32), not_v0=mask)
    if c < 0.15:
        off = 4 * rng.randrange((BUFFER - 4 * vlmax) // 4)
        op = rng.choice(["vle", "vse"])
        return [f"addi t2, s0, {off}", f"{op}{eew}.v {reg}, (t2){vm}"]
    if c < 0.25:
        stride = rng.choice([-12, -8, -4, 0, 4, 8, 12, 16]) * eew // 32
        op = rng.choice(["vlse", "vsse"])
        mid = BUFFER // 2
        return [f"addi t2, s0, {mid}", f"li t3, {stride}", f"{op}{eew}.v {reg}, (t2), t3{vm}"]
    if c < 0.5:
        op = rng.choice(BINARY + ["vfrsub"])
        form = "vf" if op == "vfrsub" or rng.random() < 0.5 else "vv"
        return [f"{op}.{form} {vd}, {a}, {f if form == 'vf' else b}{vm}"]
    if c < 0.72:
        op = rng.choice(FMA)
        form = rng.choice(["vv", "vf"])
        return [f"{op}.{form} {vd}, {f if form == 'vf' else b}, {a}{vm}"]
    if c < 0.8:
        form = rng.choice(["vmv.v.v", "vmv.v.x", "vmv.v.i", "vfmv.v.f"])
        src = {"vmv.v.v": a, "vmv.v.x": rng.choice(XREGS), "vmv.v.i": str(rng.randint(-16, 15)),
               "vfmv.v.f": f}[form]
        return [f"{form} {_group(rng, lmul)}, {src}"]
    if c < 0.86:
        return [rng.choice([f"vfmv.f.s {f}, {a}", f"vmv.x.s {rng.choice(XREGS)}, {a}",
                            f"vfmv.s.f {_group(rng, lmul)}, {f}",
                            f"vmv.s.x {_group(rng, lmul)}, {rng.choice(XREGS)}"])]
    if c < 0.9:                                   # a new mask in v0
        return [f"vmv.s.x v0, {rng.choice(XREGS)}"]
    # scalar work between vector instructions: waits of the timing model
    return [rng.choice([f"lw {rng.choice(XREGS)}, {4 * rng.randrange(BUFFER // 4)}(s0)",
                        f"sw {rng.choice(XREGS)}, {4 * rng.randrange(BUFFER // 4)}(s0)",
                        f"csrr {rng.choice(XREGS)}, fflags", "csrwi fflags, 0", f"csrr {rng.choice(XREGS)}, vxsat",
                        f"fsrmi {rng.randrange(5)}", f"fadd.s {f}, {f}, {rng.choice(FREGS)}",
                        f"addi {rng.choice(XREGS)}, {rng.choice(XREGS)}, {rng.randint(-9, 9)}",
                        f"flw {f}, {4 * rng.randrange(BUFFER // 4)}(s0)", "csrr a5, vl", "csrr a5, vtype"])]


def _indexed(rng, sew: int, lmul: float, pol: str, mask: bool) -> list[str] | None:
    """An indexed load or store at the current vtype (SEW-bit data, LMUL; vl kept in s2): its
    offsets (EEW-bit, EMUL = EEW / SEW * LMUL, which must be 1/4 to 8) made at that vtype as
    distinct multiples of SEW / 8 below 256 or 512 (i * odd & mask, or all the same), the access
    from a base that keeps them in the buffer; a load's vd apart from the offsets, or on them where
    RVV allows it (vd = vs2 with SEW <= EEW, the offsets the highest part of a wider vd)."""
    op = rng.choice(INDEXED)
    eew = int(op.split("ei")[1].split(".")[0])
    emul = eew / sew * lmul
    if not 1 / 4 <= emul <= 8:
        return None
    ni, nd = max(1, int(emul)), max(1, int(lmul))
    em = f"m{int(emul)}" if emul >= 1 else f"mf{int(1 / emul)}"
    lm = f"m{int(lmul)}" if lmul >= 1 else f"mf{int(1 / lmul)}"
    vi = rng.choice(range(ni if mask else 0, 32, ni))
    vm = ", v0.t" if mask else ""
    limit = (256 if eew == 8 else 512) - 1
    mul = rng.choice([rng.getrandbits(16) | 1, 1, 0]) * (sew // 8)
    cands = [r for r in range(0, 32, nd) if not (mask and r == 0)]
    if op.startswith("vl"):
        apart = [r for r in cands if r + nd <= vi or r >= vi + ni]
        shared = [r for r in cands if (r == vi and sew <= eew) or (sew > eew and emul >= 1 and r + nd == vi + ni)]
        cands = shared if shared and rng.random() < 0.25 else apart
    vd = rng.choice(cands)
    return ["csrr s2, vl", f"vsetvli t1, zero, e{eew}, {em}, ta, ma", f"vid.v v{vi}", f"li t3, {mul}",
            f"vmul.vx v{vi}, v{vi}, t3", f"li t3, {limit & -(sew // 8)}", f"vand.vx v{vi}, v{vi}, t3",
            f"vsetvli t1, s2, e{sew}, {lm}, {pol}", f"addi t2, s0, {4 * rng.randrange((BUFFER - 512 - 4) // 4)}",
            f"{op} v{vd}, (t2), v{vi}{vm}"]


def _segment(rng, sew: int, lmul: float, pol: str, mask: bool) -> list[str] | None:
    """A segment load or store at the current vtype (vl kept in s2): NF fields of EEW bits
    (indexed: SEW bits, EEW the offsets') whose NF groups of EMUL registers fit in 8 and below
    v32; unit-stride from anywhere in the buffer, strided by multiples of the field size (0 and
    negative too), indexed by offsets made as for _indexed (a load's fields apart from them)."""
    op = rng.choice(SEGMENT)
    shape = SEGMENT_FORM.match(op)            # the model's reading of the mnemonic: NF, EEW, mode
    nf, eew, fmt = int(shape["nf"]), int(shape["eew"]), _I[op].format.name
    indexed = shape["mode"] in ("uxseg", "oxseg")
    data = sew if indexed else eew
    emul = data / sew * lmul
    ni_emul = eew / sew * lmul
    n = max(1, int(emul))
    if emul > 8 or nf * n > 8 or emul < 1 / 8 or (indexed and not 1 / 4 <= ni_emul <= 8):
        return None
    db = data // 8
    vm = ", v0.t" if mask else ""
    out = ["csrr s2, vl"]
    if indexed:
        ni = max(1, int(ni_emul))
        em = f"m{int(ni_emul)}" if ni_emul >= 1 else f"mf{int(1 / ni_emul)}"
        vi = rng.choice(range(ni if mask else 0, 32, ni))
        lim = (256 if eew == 8 else 512) - 1
        out += [f"vsetvli t1, zero, e{eew}, {em}, ta, ma", f"vid.v v{vi}", f"li t3, {rng.choice([rng.getrandbits(16) | 1, 1, 0]) * db}",
                f"vmul.vx v{vi}, v{vi}, t3", f"li t3, {lim & -db}", f"vand.vx v{vi}, v{vi}, t3"]
        regs = [r for r in range(0, 33 - nf * n, n) if not (mask and r == 0) and
                (op.startswith("vs") or r + nf * n <= vi or r >= vi + ni)]
        addr = [f"addi t2, s0, {4 * rng.randrange((BUFFER - 512 - 32) // 4)}"]
        tail = f", v{vi}"
    else:
        regs = [r for r in range(0, 33 - nf * n, n) if not (mask and r == 0)]
        if fmt in ("VLS", "VSS"):
            addr = [f"addi t2, s0, {BUFFER // 2 + db * rng.randrange(-8, 8)}", f"li t3, {db * rng.randint(-3, 3 + nf)}"]
            tail = ", t3"
        else:
            addr = [f"addi t2, s0, {db * rng.randrange((BUFFER - 160) // db)}"]
            tail = ""
    if not regs:
        return None
    lm = f"m{int(lmul)}" if lmul >= 1 else f"mf{int(1 / lmul)}"
    return out + [f"vsetvli t1, s2, e{sew}, {lm}, {pol}"] + addr + [f"{op} v{rng.choice(regs)}, (t2){tail}{vm}"]


def _overlapping(rng, vd: int, nd: int, ns: int, whole: bool, align: int) -> str:
    """A narrow source of ns registers (aligned to `align`) for a destination group vd..vd+nd-1:
    apart from it, or (when the rules allow it) its highest part."""
    if whole and rng.random() < 0.3:
        return f"v{vd + nd - ns}"
    return f"v{rng.choice([r for r in range(0, 32, align) if r + ns <= vd or r >= vd + nd])}"


def _widening(rng, lmul: int, pol: str) -> list[str]:
    """A widening or narrowing instruction at SEW = 8 or 16 (LMUL 1/2 to 4), then back to e32."""
    frac = rng.random() < 0.2
    l16 = 1 if frac else rng.choice([1, 2, 4])
    sew = rng.choice([8, 16])
    vlmax16 = 128 * l16 // sew // (2 if frac else 1)
    mask = rng.random() < 0.25
    vm = ", v0.t" if mask else ""
    n, nw = l16, 1 if frac else 2 * l16
    out = [f"li t0, {rng.choice([0, 1, rng.randint(0, vlmax16 + 3), vlmax16, vlmax16 + 5])}",
           f"vsetvli t1, t0, e{sew}, {'mf2' if frac else f'm{l16}'}, {pol}"]
    op = rng.choice((_NARROW + tuple(FIXED_NARROW)) if rng.random() < 0.35 else _WIDEN)
    name, form = op.split(".")
    x = rng.choice(XREGS)
    if op in _NARROW or op in FIXED_NARROW:
        vs2 = rng.choice(range(0, 32, nw))
        vd = vs2 if rng.random() < 0.3 and not (mask and vs2 == 0) else \
            rng.choice([r for r in range(0, 32, n) if (r + n <= vs2 or r >= vs2 + nw) and not (mask and r == 0)])
        second = {"wv": _group(rng, n), "wx": x, "wi": str(rng.randrange(32))}[form]
        out.append(f"{op} v{vd}, v{vs2}, {second}{vm}")
    else:
        vd = rng.choice([r for r in range(0, 32, nw) if not (mask and r == 0)])
        vs2 = f"v{rng.choice(range(0, 32, nw))}" if form[0] == "w" else _overlapping(rng, vd, nw, n, not frac, n)
        second = _overlapping(rng, vd, nw, n, not frac, n) if form[1] == "v" else x
        if name.startswith("vwmacc"):             # vd, vs1 / rs1, vs2 (vd the addend)
            out.append(f"{op} v{vd}, {second}, {vs2}{vm}")
        else:
            out.append(f"{op} v{vd}, {vs2}, {second}{vm}")
    out.append(f"vsetvli t1, zero, e32, m{lmul}, {pol}")
    return out


def _extend(rng, lmul: int, vm: str, mask: bool, vf2: bool = False) -> str:
    """vzext/vsext (the source group LMUL / 2 or / 4 registers; vf2: .vf2 only, for SEW = 16)."""
    op = rng.choice(_EXTEND[:2] if vf2 else _EXTEND)
    factor = int(op[-1])
    ns = max(1, lmul // factor)
    vd = rng.choice([r for r in range(0, 32, lmul) if not (mask and r == 0)])
    return f"{op} v{vd}, {_overlapping(rng, vd, lmul, ns, lmul >= factor, ns)}{vm}"


def _gather(rng, lmul, vlmax, a, b, mask, vm, ei16: bool = True) -> list[str]:
    vd = rng.choice([f"v{r}" for r in range(0, 32, lmul) if f"v{r}" not in (a, b) and not (mask and r == 0)])
    form = rng.choice(["vv", "vv", "vx", "vi", "ei16", "compress"] if ei16 else ["vv", "vv", "vx", "vi", "compress"])
    # indices below 2 VLMAX (in range and past it), different in every element (and each
    # 16-bit half for vrgatherei16, whose vs1 group is LMUL / 2 registers): i * k masked
    mixed = [f"vid.v {b}", f"li t3, {rng.getrandbits(32) | 1}", f"vmul.vx {b}, {b}, t3"]
    if form == "vv":
        return mixed + [f"li t3, {2 * vlmax - 1}", f"vand.vx {b}, {b}, t3", f"vrgather.vv {vd}, {a}, {b}{vm}"]
    if form == "ei16":
        return mixed + [f"li t3, {(2 * vlmax - 1) * 0x10001}", f"vand.vx {b}, {b}, t3",
                        f"vrgatherei16.vv {vd}, {a}, {b}{vm}"]
    if form == "vx":
        idx = rng.choice([0, 1, vlmax - 1, vlmax, rng.randrange(vlmax), (1 << 32) - 1])
        return [f"li t3, {idx}", f"vrgather.vx {vd}, {a}, t3{vm}"]
    if form == "vi":
        return [f"vrgather.vi {vd}, {a}, {rng.randrange(32)}{vm}"]
    lo = int(vd[1:])
    src = rng.choice([r for r in range(32) if not lo <= r < lo + lmul])
    return [f"vcompress.vm {vd}, {a}, v{src}"]


def _slide(rng, lmul, vlmax, vd, a, mask, vm, fp: bool = True) -> list[str]:
    """A slide (up: vd is not vs2's group) by small and huge offsets."""
    op = rng.choice(SLIDES if fp else [s for s in SLIDES if not s.startswith("vf")])
    if "up" in op:
        vd = rng.choice([f"v{r}" for r in range(0, 32, lmul) if f"v{r}" != a and not (mask and r == 0)])
    off = rng.choice([0, 1, 2, 3, 5, vlmax - 1, vlmax, rng.randrange(2 * vlmax + 2), (1 << 32) - 1])
    form = op.rsplit(".", 1)[1]
    if op.startswith("vfslide1"):
        return [f"{op} {vd}, {a}, {rng.choice(FREGS)}{vm}"]
    if op.startswith("vslide1"):
        return [f"{op} {vd}, {a}, {rng.choice(XREGS)}{vm}"]
    if form == "vi":
        return [f"{op} {vd}, {a}, {rng.randrange(32)}{vm}"]
    return [f"li t3, {off}", f"{op} {vd}, {a}, t3{vm}"]


def _carry(rng, lmul: int, a: str, b: str) -> str:
    """vadc/vsbc (vd a group other than v0, which holds the carry in) or vmadc/vmsbc (vd one
    register: the lowest of a source group or outside them), with the carry in from v0 (.v*m) or not."""
    op = rng.choice(CARRY)
    form = op.rsplit(".", 1)[1]
    second = {"v": b, "x": rng.choice(XREGS), "i": str(rng.randint(-16, 15))}[form[1]]
    if op.startswith("vm"):
        srcs = [a] + ([b] if form[1] == "v" else [])
        used = {r for g in srcs for r in range(int(g[1:]), int(g[1:]) + lmul)}
        vd = rng.choice(srcs + [f"v{r}" for r in range(32) if r not in used])
    else:
        vd = _group(rng, lmul, not_v0=True)
    return f"{op} {vd}, {a}, {second}" + (", v0" if form.endswith("m") else "")


def _mask_op(rng, lmul, vd, a, b, f, mask, vm) -> str:
    kind = rng.choice(["merge", "vid", "iota", "query", "setfirst"])
    vd_merge = _group(rng, lmul, not_v0=True)
    if kind == "merge":
        return rng.choice([f"vmerge.vvm {vd_merge}, {a}, {b}, v0", f"vmerge.vxm {vd_merge}, {a}, {rng.choice(XREGS)}, v0",
                           f"vmerge.vim {vd_merge}, {a}, {rng.randint(-16, 15)}, v0",
                           f"vfmerge.vfm {vd_merge}, {a}, {f}, v0"])
    if kind == "vid":
        return f"vid.v {vd}{vm}"
    src = f"v{rng.randrange(32)}"
    if kind == "iota":                            # the source mask outside vd's group
        src = f"v{rng.choice([r for r in range(32) if not int(vd[1:]) <= r < int(vd[1:]) + lmul])}"
        return f"viota.m {vd}, {src}{vm}"
    if kind == "query":
        return f"{rng.choice(['vcpop.m', 'vfirst.m'])} {rng.choice(XREGS)}, {src}{vm}"
    single = rng.choice([r for r in range(32) if f"v{r}" != src and not (mask and r == 0)])
    return f"{rng.choice(['vmsbf.m', 'vmsif.m', 'vmsof.m'])} v{single}, {src}{vm}"


def _end(rng: random.Random, out: list[str], stores_below: int | None = None) -> str:
    """The program's text: with `stores_below`, every m8 group stored (e32) at a random word offset
    below it, so that the registers' final values are compared through memory; then ebreak and
    the buffer of random words."""
    if stores_below is not None:
        out.append("vsetvli t1, zero, e32, m8, ta, ma")
        out += [f"addi t2, s0, {rng.randrange(0, stores_below, 4)}\nvse32.v v{r}, (t2)" for r in range(0, 32, 8)]
    out.append("ebreak")
    words = ", ".join(f"{rng.getrandbits(32):#x}" for _ in range(BUFFER // 4))
    out += [".data", ".balign 16", f"buf: .word {words}"]
    return "\n".join(out) + "\n"


def random_vector_program(seed: int, length: int = 60, vlen: int = 128) -> str:
    rng = random.Random(seed)
    out = [".text", "la s0, buf"]
    out += [f"li {r}, {rng.getrandbits(32) - (1 << 31)}" for r in XREGS]
    out += [f"flw {f}, {4 * rng.randrange(BUFFER // 4)}(s0)" for f in FREGS]
    lmul, vlmax = 1, vlen // 32
    k = 0
    while k < length:
        if k == 0 or rng.random() < 0.12:
            lmul = rng.choice([1, 2, 4, 8])
            vlmax = vlen * lmul // 32
            pol = f"{rng.choice(['ta', 'tu'])}, {rng.choice(['ma', 'mu'])}"
            if rng.random() < 0.8:
                out.append(f"li t0, {rng.choice([0, 1, rng.randint(0, vlmax + 3), vlmax, vlmax + 5])}")
                out.append(f"vsetvli t1, t0, e32, m{lmul}, {pol}")
            else:
                out.append(f"vsetvli t1, zero, e32, m{lmul}, {pol}")
            k += 1
            continue
        block = _vector(rng, lmul, vlmax, pol)
        out += block
        k += len(block)
    out.append("ebreak")
    words = ", ".join(f"{rng.choice(SPECIAL_FLOATS) if rng.random() < 0.3 else rng.getrandbits(32):#x}"
                      for _ in range(BUFFER // 4))
    out += [".data", ".balign 16", f"buf: .word {words}"]
    return "\n".join(out) + "\n"


def random_widening_program(seed: int, length: int = 40, vlen: int = 128) -> str:
    """Widening, narrowing and extension only (with new masks in v0 and stores between),
    on vector registers loaded from random data: every form, policy and overlap the rules allow."""
    rng = random.Random(seed)
    out = [".text", "la s0, buf"] + [f"li {r}, {rng.getrandbits(32) - (1 << 31)}" for r in XREGS]
    out += [f"vsetvli t1, zero, e32, m8, ta, ma"] + \
           [f"addi t2, s0, {rng.randrange(0, BUFFER - vlen, 4)}\nvle32.v v{r}, (t2)" for r in range(0, 32, 8)]
    for _ in range(length):
        lmul = rng.choice([1, 2, 4, 8])
        pol = f"{rng.choice(['ta', 'tu'])}, {rng.choice(['ma', 'mu'])}"
        c = rng.random()
        if c < 0.1:
            out.append(f"vsetvli t1, zero, e32, m1, {pol}\nvmv.s.x v0, {rng.choice(XREGS)}")
        elif c < 0.2:
            out.append(f"vsetvli t1, zero, e32, m{lmul}, {pol}\naddi t2, s0, {4 * rng.randrange((BUFFER - vlen * lmul // 8) // 4)}"
                       f"\nvse32.v v{rng.choice(range(0, 32, lmul))}, (t2)")
        elif c < 0.35:
            mask = rng.random() < 0.3
            esew = rng.choice([16, 32])                   # vzext/vsext.vf2 at SEW = 16 too
            out.append(f"li t0, {rng.randint(0, vlen * lmul // esew + 2)}\nvsetvli t1, t0, e{esew}, m{lmul}, {pol}\n"
                       + _extend(rng, lmul, ", v0.t" if mask else "", mask, esew == 16))
        else:
            out += _widening(rng, 1, pol)
    return _end(rng, out)


SUBWORD = sorted(m for m in VECTOR if m.split(".")[0] in _INT + _CMP + _MUL[:8] and not m.startswith("vmf")
                 and not m.endswith(".vf"))


def random_subword_program(seed: int, length: int = 50, vlen: int = 128) -> str:
    """The integer instructions at SEW 8 and 16 (LMUL 1/4 to 8): element-wise operations and
    multiplies, divides, slides, register gathers and vcompress, compares (into v0 too, as the next masks), vadc/vsbc/vmadc/vmsbc, merges, moves (element 0 too), reductions, the
    mask instructions, 8-, 16- and 32-bit loads and stores (unit-stride and strided, EEW = SEW or
    not) and whole-register ones, with the
    widening and narrowing ones between and stores of the results at SEW = 32."""
    rng = random.Random(seed)
    out = [".text", "la s0, buf"] + [f"li {r}, {rng.getrandbits(32) - (1 << 31)}" for r in XREGS]
    out += ["vsetvli t1, zero, e32, m8, ta, ma"] + \
           [f"addi t2, s0, {rng.randrange(0, BUFFER - vlen, 4)}\nvle32.v v{r}, (t2)" for r in range(0, 32, 8)]
    lmuls = {8: ["mf4", "mf2", "m1", "m2", "m4", "m8"], 16: ["mf2", "m1", "m2", "m4", "m8"]}
    sew, lmul = 16, 1
    for _ in range(length):
        c = rng.random()
        if c < 0.15 or _ == 0:
            sew = rng.choice([8, 16])
            lm = rng.choice(lmuls[sew])
            lmul = int(lm[1:]) if lm[1] != "f" else 1
            vlmax = vlen * (lmul if lm[1] != "f" else 1) // sew // (int(lm[2:]) if lm[1] == "f" else 1)
            pol = f"{rng.choice(['ta', 'tu'])}, {rng.choice(['ma', 'mu'])}"
            out.append(f"li s1, {rng.choice([0, 1, rng.randint(0, vlmax + 3), vlmax, vlmax + 5])}\n"
                       f"vsetvli t1, s1, e{sew}, {lm}, {pol}")
            continue
        mask = rng.random() < 0.3
        vm = ", v0.t" if mask else ""
        vd = _group(rng, lmul, not_v0=mask)
        a, b = _group(rng, lmul), _group(rng, lmul)
        if c < 0.27:                              # slides, register gathers, vcompress
            if rng.random() < 0.5:
                out += _slide(rng, lmul, vlmax, vd, a, mask, vm, fp=False)
            else:
                # (vrgatherei16 at SEW 16: its indices' group is vd's size; at SEW 8 see the tests)
                out += _gather(rng, lmul, vlmax, a, b, mask, vm, ei16=sew == 16)
        elif c < 0.33:                            # divides (by 0, -1 and the most negative element too)
            op = rng.choice(DIV_OPS)
            if op.endswith(".vx") and rng.random() < 0.5:
                x = rng.choice(XREGS)
                out.append(f"li {x}, {rng.choice([0, -1, 1, -(1 << (sew - 1)), (1 << sew) - 1])}\n{op} {vd}, {a}, {x}{vm}")
            else:
                out.append(f"{op} {vd}, {a}, {b if op.endswith('.vv') else rng.choice(XREGS)}{vm}")
        elif c < 0.38:                            # fixed point, vxrm changed now and then
            out.append(fill(rng, rng.choice([m for m in FIXED if m not in FIXED_NARROW]), lmul, mask, frac=lm[1] == "f"))
            if rng.random() < 0.3:
                out.append(rng.choice([f"csrwi vxrm, {rng.randrange(4)}", f"csrr {rng.choice(XREGS)}, vcsr"]))
        elif c < 0.6:
            op = rng.choice(SUBWORD)
            form = op.rsplit(".", 1)[1]
            shift = op.split(".")[0] in ("vsll", "vsrl", "vsra")
            second = {"vv": b, "vx": rng.choice(XREGS),
                      "vi": str(rng.randint(0, 31) if shift else rng.randint(-16, 15))}[form]
            if op.startswith("vms"):             # compares: any single register that is no source
                srcs = set(range(int(a[1:]), int(a[1:]) + lmul)) | (set(range(int(b[1:]), int(b[1:]) + lmul)) if form == "vv" else set())
                vd = rng.choice([a] + [f"v{r}" for r in range(32) if r not in srcs and not (mask and r == 0)])
            if op.split(".")[0] in MADD:              # vd, vs1 / rs1, vs2
                out.append(f"{op} {vd}, {second}, {a}{vm}")
            else:
                out.append(f"{op} {vd}, {a}, {second}{vm}")
        elif c < 0.64:                            # add-with-carry, subtract-with-borrow
            out.append(_carry(rng, lmul, a, b))
        elif c < 0.7:
            out.append(rng.choice([f"vmerge.vvm {_group(rng, lmul, True)}, {a}, {b}, v0",
                                   f"vmerge.vxm {_group(rng, lmul, True)}, {a}, {rng.choice(XREGS)}, v0",
                                   f"vmerge.vim {_group(rng, lmul, True)}, {a}, {rng.randint(-16, 15)}, v0",
                                   f"vmv.v.v {vd}, {a}", f"vmv.v.x {vd}, {rng.choice(XREGS)}",
                                   f"vmv.v.i {vd}, {rng.randint(-16, 15)}",
                                   f"vmv.s.x {rng.choice(['v0', vd])}, {rng.choice(XREGS)}",
                                   f"vmv.x.s {rng.choice(XREGS)}, v{rng.randrange(32)}", f"vid.v {vd}{vm}",
                                   f"viota.m {vd}, v{rng.choice([r for r in range(32) if not int(vd[1:]) <= r < int(vd[1:]) + lmul])}{vm}"]))
        elif c < 0.74:                            # integer reductions, the widening sums too
            op = rng.choice([r for r in REDUCTIONS if not r.startswith("vf")] if rng.random() < 0.5 else
                            ["vwredsumu.vs", "vwredsum.vs"])
            out.append(f"{op} v{rng.randrange(32)}, {a}, v{rng.randrange(32)}{vm}")
        elif c < 0.78:
            src = rng.randrange(32)
            single = rng.choice([r for r in range(32) if r != src and not (mask and r == 0)])
            out.append(rng.choice([f"{rng.choice(_MASK_LOGIC)}.mm v{rng.randrange(32)}, v{src}, v{rng.randrange(32)}",
                                   f"addi t2, s0, {4 * rng.randrange(BUFFER // 4 - 32) + rng.randrange(4)}\n"
                                   f"{rng.choice(['vlm.v', 'vsm.v'])} v{rng.randrange(32)}, (t2)",
                                   f"{rng.choice(['vcpop.m', 'vfirst.m'])} {rng.choice(XREGS)}, v{src}{vm}",
                                   f"{rng.choice(['vmsbf.m', 'vmsif.m', 'vmsof.m'])} v{single}, v{src}{vm}"]))
        elif c < 0.86:                            # widening or narrowing (its own vtype), then back
            out += _widening(rng, lmul, pol)[:-1] + [f"vsetvli t1, s1, e{sew}, {lm}, {pol}"]
        elif c < 0.89:                            # whole-register loads and stores (any SEW, vl, mask)
            n = rng.choice([1, 2, 4, 8])
            op = rng.choice([f"vl{n}re{rng.choice([8, 16, 32])}.v", f"vs{n}r.v", f"vmv{n}r.v"])
            if op.startswith("vmv"):
                out.append(f"{op} v{rng.choice(range(0, 32, n))}, v{rng.choice(range(0, 32, n))}")
            else:
                # (from any byte their elements allow)
                skew = rng.randrange(0, 4, int(op[5:-2]) // 8 if op.startswith("vl") else 1) if rng.random() < 0.5 else 0
                out.append(f"addi t2, s0, {4 * rng.randrange((BUFFER - n * vlen // 8) // 4 - 1) + skew}\n"
                           f"{op} v{rng.choice(range(0, 32, n))}, (t2)")
        elif c < 0.92 and (block := _indexed(rng, sew, lmul if lm[1] != "f" else 1 / int(lm[2:]), pol, mask)):
            out += block                          # indexed loads and stores (offsets of any EEW)
        elif c < 0.95:                            # 8-, 16- and 32-bit loads and stores at EEW = SEW or not
            # (EMUL = EEW / SEW * LMUL up to 8)
            emuls = {eew: eew / sew * (lmul if lm[1] != "f" else 1 / int(lm[2:])) for eew in (8, 16, 32)}
            eew = sew if rng.random() < 0.4 else rng.choice([e for e, m in emuls.items() if m <= 8])
            eb = eew // 8
            reg = _group(rng, max(1, int(emuls[eew])), not_v0=mask)
            if rng.random() < 0.5:                # (8- and 16-bit ones from any byte, halfword)
                op = rng.choice(["vle", "vse"])
                skew = eb * rng.randrange(4 // eb) if eb < 4 and rng.random() < 0.6 else 0
                out.append(f"addi t2, s0, {4 * rng.randrange((BUFFER - vlmax * eb) // 4 - 1) + skew}\n"
                           f"{op}{eew}.v {reg}, (t2){vm}")
            else:
                op = rng.choice(["vlse", "vsse"])
                out.append(f"addi t2, s0, {BUFFER // 2 + eb * rng.randrange(-8, 8)}\nli t3, {eb * rng.randint(-3, 3)}\n"
                           f"{op}{eew}.v {reg}, (t2), t3{vm}")
        else:
            out.append(f"vsetvli t1, zero, e32, m{lmul}, {pol}\naddi t2, s0, "
                       f"{4 * rng.randrange((BUFFER - vlen * lmul // 8) // 4)}\nvse32.v v{rng.choice(range(0, 32, lmul))}, (t2)"
                       f"\nvsetvli t1, s1, e{sew}, {lm}, {pol}")
    return _end(rng, out)


def fill(rng: random.Random, mnemonic: str, lmul: int, mask: bool, frac: bool = False) -> str:
    """One instance of an element-wise instruction from its ISA record: each operand drawn as
    its kind says (vector registers aligned to LMUL; a .w* source group of 2 LMUL registers
    that the destination overlaps only as vd = vs2; vd not v0 under v0.t; scalars from XREGS,
    immediates over their whole range), the template's optional mask filled or dropped."""
    d = ISA.instructions[mnemonic]
    n, nw = (1, 1) if frac else (lmul, 2 * lmul)
    wide = mnemonic.split(".")[1].startswith("w")
    vals = {}
    for op in d.operands:
        k = op.kind.name
        if op.name == "vs2" and wide:
            vals["vs2"] = f"v{rng.choice(range(0, 32, nw))}"
        elif k == "v":
            vals[op.name] = f"v{rng.choice([r for r in range(0, 32, n) if not (mask and r == 0 and op.name == 'vd')])}"
        elif k == "x":
            vals[op.name] = rng.choice(XREGS)
        elif k in ("simm5", "uimm5"):
            vals[op.name] = str(rng.randint(-16, 15) if k == "simm5" else rng.randrange(32))
        elif k == "f":
            vals[op.name] = rng.choice(FREGS)
    if wide:                                      # vd apart from the wide source, or its lowest part
        vs2 = int(vals["vs2"][1:])
        apart = [r for r in range(0, 32, n) if (r + n <= vs2 or r >= vs2 + nw) and not (mask and r == 0)]
        vals["vd"] = f"v{vs2}" if (rng.random() < 0.3 and not (mask and vs2 == 0)) or not apart else f"v{rng.choice(apart)}"
    text = d.template.replace("[, {vm}]", ", v0.t" if mask else "").format(**vals)
    return f"{mnemonic} {text}"


def random_fixed_program(seed: int, length: int = 40, vlen: int = 128) -> str:
    """The fixed-point instructions (backend.VECTOR's of isa/coral's rvv_fixed group) at SEW
    8, 16 and 32 (vnclip(u): 8 and 16), LMUL 1/4 to 8, masked or not, both policies, on edge
    and random elements and scalars, vxrm set to each mode (csrwi vxrm, csrw vcsr) and vxsat
    read (csrr vxsat, vcsr) and cleared between them, results stored at SEW 32."""
    rng = random.Random(seed)
    out = [".text", "la s0, buf"] + [f"li {r}, {edge_word(rng)}" for r in XREGS]
    out += ["vsetvli t1, zero, e32, m8, ta, ma"] + \
           [f"addi t2, s0, {rng.randrange(0, BUFFER - vlen, 4)}\nvle32.v v{r}, (t2)" for r in range(0, 32, 8)]
    lmuls = {8: ["mf4", "mf2", "m1", "m2", "m4", "m8"], 16: ["mf2", "m1", "m2", "m4", "m8"], 32: ["m1", "m2", "m4", "m8"]}
    sew, lm, lmul, pol = 32, "m1", 1, "tu, mu"
    for i in range(length):
        c = rng.random()
        if i == 0 or c < 0.15:
            sew = rng.choice([8, 16, 32])
            lm = rng.choice(lmuls[sew])
            lmul = int(lm[1:]) if lm[1] != "f" else 1
            vlmax = vlen * lmul // sew // (int(lm[2:]) if lm[1] == "f" else 1)
            pol = f"{rng.choice(['ta', 'tu'])}, {rng.choice(['ma', 'mu'])}"
            out.append(f"li s1, {rng.choice([0, 1, rng.randint(0, vlmax + 3), vlmax, vlmax + 5])}\n"
                       f"vsetvli t1, s1, e{sew}, {lm}, {pol}")
        elif c < 0.25:
            out.append(rng.choice([f"csrwi vxrm, {rng.randrange(4)}", f"csrwi vcsr, {rng.randrange(8)}",
                                   f"li t3, {rng.randrange(4)}\ncsrw vxrm, t3"]))
        elif c < 0.33:
            out.append(rng.choice([f"csrr {rng.choice(XREGS)}, vxsat", f"csrr {rng.choice(XREGS)}, vcsr",
                                   "csrwi vxsat, 0", f"csrrci {rng.choice(XREGS)}, vxsat, 1", "csrr a5, vxrm"]))
        elif c < 0.38:
            out.append(f"vsetvli t1, zero, e32, m1, ta, ma\nvmv.s.x v0, {rng.choice(XREGS)}\n"
                       f"vsetvli t1, s1, e{sew}, {lm}, {pol}")
        elif c < 0.42:
            x = rng.choice(XREGS)
            out.append(f"li {x}, {edge_word(rng)}")
        elif c < 0.47:
            out.append(f"vsetvli t1, zero, e32, m{lmul}, {pol}\naddi t2, s0, "
                       f"{4 * rng.randrange((BUFFER - vlen * lmul // 8) // 4)}\nvse32.v v{rng.choice(range(0, 32, lmul))}, (t2)"
                       f"\nvsetvli t1, s1, e{sew}, {lm}, {pol}")
        else:
            ops = [m for m in FIXED if sew < 32 and (lm != "m8" or m not in FIXED_NARROW) or m not in FIXED_NARROW]
            out.append(fill(rng, rng.choice(ops), lmul, rng.random() < 0.3, frac=lm[1] == "f"))
    out.append("csrr a0, vcsr\nebreak")
    words = ", ".join(f"{edge_word(rng):#x}" for _ in range(BUFFER // 4))
    out += [".data", ".balign 16", f"buf: .word {words}"]
    return "\n".join(out) + "\n"


def random_unaligned_load_program(seed: int, length: int = 30, vlen: int = 128) -> str:
    """Unit-stride loads from addresses that are no multiple of 4 (the RTL reads VLEN / 32 words a
    cycle and takes one cycle more when the bytes span more than that, rtl/coral/README.md):
    vle8/vle16 and their fault-only-first forms at EEW = SEW or not (EMUL 1/8 to 8), vl from 0
    to VLMAX (a beat's bytes ending before, at and past a word boundary), masked or not (new
    masks between), both policies; whole-register loads of 8- and 16-bit elements and vlm.v from
    any byte they allow; a third of them ending on DTCM's last bytes (fault-only-first ones
    also running past it, trimmed). Each is followed now and then by an operation on the loaded
    group (its late write bypassed), a scalar store or load (the waits), vmv.x.s or a store of
    the group, and aligned loads between them."""
    rng = random.Random(seed)
    vb = vlen // 8
    out = [".text", "la s0, buf", "la s2, __stack_top"] + [f"li {r}, {rng.getrandbits(32) - (1 << 31)}" for r in XREGS]
    out += ["vsetvli t1, zero, e32, m8, ta, ma"] + \
           [f"addi t2, s0, {rng.randrange(0, BUFFER - vlen, 4)}\nvle32.v v{r}, (t2)" for r in range(0, 32, 8)]
    # DTCM's last 8 VLEN bits: random words, so that loads ending there read data
    out += [f"addi t2, s2, -{8 * vb}\nvse32.v v8, (t2)"]
    lmuls = {8: ["mf4", "mf2", "m1", "m2", "m4", "m8"], 16: ["mf2", "m1", "m2", "m4", "m8"], 32: ["m1", "m2", "m4", "m8"]}
    value = lambda lm: 1 / int(lm[2:]) if lm[1] == "f" else int(lm[1:])
    for _ in range(length):
        sew = rng.choice([8, 16, 32])
        lm = rng.choice(lmuls[sew])
        vlmax = int(vlen * value(lm)) // sew
        avl = rng.choice([0, 1, rng.randint(1, max(1, vlmax)), vlmax, vlmax, vlmax + 3,
                          max(1, vb - rng.randint(0, 3)), vb + rng.randint(0, 3)])
        vl = min(avl, vlmax)
        pol = f"{rng.choice(['ta', 'tu'])}, {rng.choice(['ma', 'mu'])}"
        out.append(f"li s1, {avl}\nvsetvli t1, s1, e{sew}, {lm}, {pol}")
        if rng.random() < 0.2:                   # a new mask
            out.append(f"vmxor.mm v0, v0, v{rng.randrange(1, 32)}")
        kind = rng.random()
        mask = rng.random() < 0.35
        if kind < 0.6:                           # vle8 / vle16 (fault-only-first too)
            eew = rng.choice([e for e in (8, 16) if e / sew * value(lm) <= 8])
            emul = max(1, int(eew / sew * value(lm)))
            eb, nbytes = eew // 8, vl * (eew // 8)
            op = f"vle{eew}{'ff' if rng.random() < 0.25 else ''}.v"
            reg = _group(rng, emul, not_v0=mask)
            nregs = emul
        elif kind < 0.8:                         # whole-register, any SEW and vl
            eew = rng.choice([8, 16])
            n = rng.choice([1, 2, 4, 8])
            eb, nbytes = eew // 8, n * vb
            op, reg, mask, nregs = f"vl{n}re{eew}.v", f"v{rng.choice(range(0, 32, n))}", False, n
        else:                                    # the mask load: ceil(vl / 8) bytes
            eb, nbytes, op, reg, mask, nregs = 1, -(-vl // 8), "vlm.v", f"v{rng.randrange(32)}", False, 1
        if rng.random() < 1 / 3:                 # ending on DTCM's last bytes (past them: fault-only-first)
            gap = eb * rng.randrange(2) - (eb * rng.randrange(3) if "ff" in op else 0)
            while (nbytes + gap) % 4 == 0:
                gap += eb
            out.append(f"addi t2, s2, -{max(nbytes + gap, eb)}")
        else:
            out.append(f"addi t2, s0, {4 * rng.randrange((BUFFER - 8 * vb) // 4) + rng.choice([o for o in (1, 2, 3) if o % eb == 0])}")
        out.append(f"{op} {reg}, (t2){', v0.t' if mask else ''}")
        after = rng.random()
        x = rng.choice(XREGS)
        if after < 0.25 and op.startswith("vle") and eew == sew:
            out.append(f"vadd.vv {reg}, {reg}, {reg}")
        elif after < 0.4:
            out.append(f"sw {x}, {4 * rng.randrange(16)}(s0)")
        elif after < 0.55:
            out.append(f"lw {x}, {4 * rng.randrange(16)}(s0)")
        elif after < 0.65:
            out.append(f"vmv.x.s {x}, {reg}")
        elif after < 0.8:
            out.append(f"vsetvli t1, zero, e32, m1, ta, ma\naddi t2, s0, {BUFFER - 16 * rng.randrange(1, 8)}\n"
                       f"vse32.v {reg}, (t2)")
        elif after < 0.9:
            out.append(f"vsetvli t1, zero, e32, m1, ta, ma\naddi t2, s0, {4 * rng.randrange(BUFFER // 4 - 8)}\n"
                       f"vle32.v v{rng.randrange(1, 32)}, (t2)")
    return _end(rng, out)


def random_indexed_program(seed: int, length: int = 16, vlen: int = 128, segments: bool = False) -> str:
    """Indexed loads and stores (every offset width) at SEW 8, 16, 32 and LMUL 1/4 to 8, vl from 0
    to past VLMAX, masked or not (new masks between), both policies, loads onto their offsets where
    RVV allows it, other vector work between them (the wait for the offsets' writers), results stored;
    `segments`: half of them segment loads and stores of every addressing mode and NF."""
    rng = random.Random(seed)
    out = [".text", "la s0, buf"] + [f"li {r}, {rng.getrandbits(32) - (1 << 31)}" for r in XREGS]
    out += ["vsetvli t1, zero, e32, m8, ta, ma"] + \
           [f"addi t2, s0, {rng.randrange(0, BUFFER - vlen, 4)}\nvle32.v v{r}, (t2)" for r in range(0, 32, 8)]
    lmuls = {8: ["mf4", "mf2", "m1", "m2", "m4", "m8"], 16: ["mf2", "m1", "m2", "m4", "m8"], 32: ["m1", "m2", "m4", "m8"]}
    done = 0
    while done < length:
        sew = rng.choice([8, 16, 32])
        lm = rng.choice(lmuls[sew])
        lmul = int(lm[1:]) if lm[1] != "f" else 1 / int(lm[2:])
        vlmax = int(vlen * lmul) // sew
        pol = f"{rng.choice(['ta', 'tu'])}, {rng.choice(['ma', 'mu'])}"
        out.append(f"li s1, {rng.choice([0, 1, rng.randint(0, vlmax + 3), vlmax, vlmax, vlmax + 5])}\n"
                   f"vsetvli t1, s1, e{sew}, {lm}, {pol}")
        c = rng.random()
        if c < 0.15:
            out.append(f"vmv.s.x v0, {rng.choice(XREGS)}")
        elif c < 0.25:                            # something still in the unit when the access dispatches
            n = max(1, int(lmul))
            out.append(f"vmul.vv v{rng.choice(range(0, 32, n))}, v{rng.choice(range(0, 32, n))}, v{rng.choice(range(0, 32, n))}")
        block = (_segment if segments and rng.random() < 0.5 else _indexed)(rng, sew, lmul, pol, rng.random() < 0.35)
        if block:
            out += block
            done += 1
    return _end(rng, out, stores_below=BUFFER - vlen)


# writers placed before an indexed access (random_scoreboard_program): (SEW choices, LMUL choices,
# registers written as a function of LMUL, alignment of vd as one, source kind, text); {vd} the
# destination, {vs} a source group apart from it, aligned to 8 registers (kind 0), to LMUL (1;
# vnsrl's wide source: 2 LMUL) or to 2 (2); t3 holds 4, t2 an address in the buffer
_WRITERS = [
    ((8, 16, 32), (1, 2, 4, 8), lambda L: L, lambda L: L, 0, "vdiv.vx v{vd}, v{vs}, t3"),
    ((32,), (1, 2, 4, 8), lambda L: L, lambda L: L, 0, "vfdiv.vv v{vd}, v{vs}, v{vs}"),
    ((8, 16), (1, 2, 4), lambda L: 2 * L, lambda L: 2 * L, 1, "vwmul.vx v{vd}, v{vs}, t3"),
    ((8,), (0.25, 0.5, 1, 2), lambda L: max(1, int(4 * L)), lambda L: max(1, int(4 * L)), 0, "vlse32.v v{vd}, (t2), t3"),
    ((8,), (1,), lambda L: 3, lambda L: 1, 0, "vlsseg3e8.v v{vd}, (t2), t3"),
    ((8,), (1, 2, 4), lambda L: 2 * L, lambda L: 2 * L, 0, "vle16.v v{vd}, (t2)"),
    ((32,), (8,), lambda L: 1, lambda L: 1, 1, "vredsum.vs v{vd}, v{vs}, v{vs}"),
    ((8,), (8,), lambda L: 1, lambda L: 1, 1, "vmseq.vx v{vd}, v{vs}, t3"),
    ((8, 32), (1, 8), lambda L: 1, lambda L: 1, 0, "vmv.s.x v{vd}, t3"),
    ((32,), (1,), lambda L: 4, lambda L: 4, 0, "vl4re32.v v{vd}, (t2)"),
    ((32,), (1,), lambda L: 2, lambda L: 2, 2, "vmv2r.v v{vd}, v{vs}"),
    ((8,), (1, 2, 4), lambda L: L, lambda L: L, 1, "vnsrl.wi v{vd}, v{vs}, 1"),
    ((8,), (1, 2), lambda L: L, lambda L: L, 1, "vcompress.vm v{vd}, v{vs}, v{vs}"),
    ((8,), (1, 4), lambda L: 0, lambda L: L, 0, "vsse8.v v{vd}, (t2), t3"),
    ((8, 32), (1, 8), lambda L: 1, lambda L: 1, 0, "vlm.v v{vd}, (t2)"),
    ((32,), (8,), lambda L: 1, lambda L: 1, 1, "vfredosum.vs v{vd}, v{vs}, v{vs}"),
    ((8,), (1, 4), lambda L: 1, lambda L: 1, 1, "vmsbf.m v{vd}, v{vs}"),
    ((8,), (2,), lambda L: 1, lambda L: 1, 1, "vmand.mm v{vd}, v{vs}, v{vs}"),
    ((32,), (2, 4), lambda L: L, lambda L: L, 1, "vzext.vf2 v{vd}, v{vs}"),
    ((16,), (1, 4), lambda L: L, lambda L: L, 0, "vid.v v{vd}"),
]


def _writer(rng, reads: set[int], mode: str) -> list[str] | None:
    """A vector instruction at its own vtype whose written registers meet `reads` ("hit") or
    not ("miss"), or any vector register ("any")."""
    sews, lmuls, nw, align, src_kind, text = rng.choice(_WRITERS)
    sew, lmul = rng.choice(sews), rng.choice(lmuls)
    n, a = nw(lmul), align(lmul)
    ok = []
    for vd in range(0, 32, a):
        regs = set(range(vd, vd + n))
        if vd + max(n, 1) > 32 or (mode == "hit" and not regs & reads) or (mode == "miss" and regs & reads):
            continue
        ok.append(vd)
    if not ok:
        return None
    vd = rng.choice(ok)
    ns = {0: 8, 1: 2 * max(1, int(lmul)) if "vnsrl" in text else max(1, int(lmul)), 2: 2}[src_kind]
    srcs = [r for r in range(0, 32, ns) if r + ns <= vd or r >= vd + max(n, 1)]
    if not srcs:
        return None
    lm = f"m{int(lmul)}" if lmul >= 1 else f"mf{int(1 / lmul)}"
    return [f"vsetvli t1, zero, e{sew}, {lm}, {rng.choice(['ta', 'tu'])}, ma",
            f"addi t2, s0, {4 * rng.randrange(0, (BUFFER - 512) // 4)}", "li t3, 4",
            text.format(vd=vd, vs=rng.choice(srcs))]


def random_scoreboard_program(seed: int, length: int = 24) -> str:
    """Indexed loads and stores (8-bit offsets and data, LMUL 1/4 to 4, segments of 2 fields,
    masked or not) each right after a writer of a register its dispatch reads (its offsets'
    group, v0 when masked) or of others only, which the access no longer waits for (the
    unit's scoreboard, rtl/coral/README.md): slow writers (dividers, strided loads, element-wise
    permutations) of every destination shape (widening, mask, reduction, segment, whole register).
    Any byte is a good offset at SEW 8 from a base 256 bytes below the buffer's end, so a
    writer may leave any value in the offsets or v0."""
    rng = random.Random(seed)
    out = [".text", "la s0, buf"] + [f"li {r}, {rng.getrandbits(32) - (1 << 31)}" for r in XREGS]
    out += ["vsetvli t1, zero, e32, m8, ta, ma"] + \
           [f"addi t2, s0, {rng.randrange(0, BUFFER - 512, 4)}\nvle32.v v{r}, (t2)" for r in range(0, 32, 8)]
    ops = [m for m in INDEXED if "ei8" in m] + ["vluxseg2ei8.v", "vsoxseg2ei8.v"]
    done = 0
    while done < length:
        op = rng.choice(ops)
        lmul = rng.choice([0.25, 0.5, 1, 2, 4])
        n = max(1, int(lmul))
        nf = 2 if "seg" in op else 1
        if nf * n > 8:
            continue
        mask = rng.random() < 0.4
        vi = rng.choice(range(0, 32, n))
        reads = set(range(vi, vi + n)) | ({0} if mask else set())
        if op.startswith("vl"):
            cands = [r for r in range(0, 33 - nf * n, n) if not (mask and r == 0) and
                     (r + nf * n <= vi or r >= vi + n or (nf == 1 and r == vi))]
        else:
            cands = list(range(0, 33 - nf * n, n))
        if not cands:
            continue
        for _ in range(rng.choice([1, 1, 2])):
            w = _writer(rng, reads, rng.choice(["hit", "miss", "miss", "any"]))
            if w:
                out += w
        lm = f"m{int(lmul)}" if lmul >= 1 else f"mf{int(1 / lmul)}"
        vlmax = int(16 * lmul)
        out.append(f"li s1, {rng.choice([0, 1, rng.randint(0, vlmax + 3), vlmax, vlmax])}")
        out.append(f"vsetvli t1, s1, e8, {lm}, {rng.choice(['ta', 'tu'])}, {rng.choice(['ma', 'mu'])}")
        out += ["nop"] * rng.choice([0, 0, 1, 3])
        out.append(f"addi t2, s0, {BUFFER - 256 - nf}")
        out.append(f"{op} v{rng.choice(cands)}, (t2), v{vi}{', v0.t' if mask else ''}")
        done += 1
    return _end(rng, out, stores_below=BUFFER - 512)


def fault_programs() -> dict[str, str]:
    """Programs whose last instruction breaks a rule of the model's vector semantics."""
    pre = ".text\nla s0, buf\nli t0, 8\nvsetvli t1, t0, e32, m2, ta, ma\n"
    data = "\nebreak\n.data\n.balign 16\nbuf: .zero 256\n"
    slow = ".text\nla s0, buf\nli t0, 32\nvsetvli t1, t0, e32, m8, ta, ma\nvfdiv.vv v8, v8, v16\nvse32.v v8, (s0)\n"
    return {
        "vill": ".text\nvfadd.vv v1, v2, v3\nebreak\n",
        "misaligned group": pre + "vfadd.vv v1, v2, v4" + data,
        "masked v0": pre + "vfmul.vv v0, v2, v4, v0.t" + data,
        "frm reserved": pre + "fsrmi 5\nvfmax.vf v2, v4, f1" + data,
        "load misaligned": pre + "addi s0, s0, 2\nvle32.v v2, (s0)" + data,
        "load past DTCM": pre + "lui s0, 0x7ffff\nvle32.v v2, (s0)" + data,
        "store below DTCM": pre + "li t3, -4096\nvsse32.v v2, (s0), t3" + data,
        "strided misaligned": pre + "li t3, 6\nvlse32.v v2, (s0), t3" + data,
        "slide up onto its source": pre + "vslideup.vi v2, v2, 1" + data,
        "masked load onto v0": pre + "vle32.v v0, (s0), v0.t" + data,
        "vmsbf onto its source": pre + "vmsbf.m v3, v3" + data,
        "viota inside its destination": pre + "viota.m v2, v3" + data,
        "vmerge onto v0": pre + "vmerge.vvm v0, v2, v4, v0" + data,
        "vadc onto v0": pre + "vadc.vim v0, v2, 3, v0" + data,
        "vsbc misaligned group": pre + "vsbc.vxm v3, v2, a0, v0" + data,
        "vmadc inside its vs2 group": pre + "vmadc.vvm v3, v2, v4, v0" + data,
        "vmsbc inside its vs1 group": pre.replace("e32, m2", "e8, m4") + "vmsbc.vv v6, v8, v4" + data,
        "vrgather onto its indices": pre + "vrgather.vv v4, v2, v4" + data,
        "vrgatherei16 onto its indices": pre + "vrgatherei16.vv v4, v2, v5" + data,
        "vcompress over its mask": pre + "vcompress.vm v4, v2, v5" + data,
        "vwadd at SEW 32": pre + "vwadd.vv v4, v2, v6" + data,
        "vwadd at LMUL 8": pre.replace("e32, m2", "e16, m8") + "vwadd.vv v0, v8, v16" + data,
        "vwmul over its source's lower part": pre.replace("e32", "e16") + "vwmul.vx v4, v4, a0" + data,
        "vwadd.wv misaligned wide source": pre.replace("e32", "e16") + "vwadd.wv v4, v2, v8" + data,
        "vwaddu fractional over its source": pre.replace("e32, m2", "e16, mf2") + "vwaddu.vv v3, v3, v5" + data,
        "vnsrl over its source's upper part": pre.replace("e32", "e16") + "vnsrl.wi v6, v4, 3" + data,
        "vnsra masked onto v0": pre.replace("e32", "e16") + "vnsra.wx v0, v4, a0, v0.t" + data,
        "vzext.vf4 at SEW 16": pre.replace("e32", "e16") + "vzext.vf4 v4, v1" + data,
        "vsext.vf2 over its source's lower part": pre.replace("m2", "m4") + "vsext.vf2 v4, v4" + data,
        "vle8 at SEW 32 misaligned EMUL group": pre.replace("m2", "m8") + "vle8.v v3, (s0)" + data,
        "vle32 at SEW 8 EMUL 16": pre.replace("e32, m2", "e8, m4") + "vle32.v v0, (s0)" + data,
        "vsse32 at SEW 16 misaligned EMUL group": pre.replace("e32", "e16") + "li t3, 4\nvsse32.v v6, (s0), t3" + data,
        "vrgatherei16 at SEW 8 LMUL 8": pre.replace("e32, m2", "e8, m8") + "vrgatherei16.vv v8, v16, v0" + data,
        "vrgatherei16 at SEW 8 misaligned indices": pre.replace("e32", "e8") + "vrgatherei16.vv v8, v12, v2" + data,
        "vle16 misaligned": pre.replace("e32", "e16") + "addi s0, s0, 1\nvle16.v v2, (s0)" + data,
        "vlse16 odd stride": pre.replace("e32", "e16") + "li t3, 3\nvlse16.v v2, (s0), t3" + data,
        "vl2re32 misaligned group": pre + "vl2re32.v v3, (s0)" + data,
        "vs8r past DTCM": pre + "lui s0, 0x7ffff\nvs8r.v v8, (s0)" + data,
        "vmv4r misaligned source": pre + "vmv4r.v v4, v6" + data,
        "vl1re16 misaligned": pre + "addi s0, s0, 1\nvl1re16.v v8, (s0)" + data,
        "vsse8 below DTCM": pre.replace("e32", "e8") + "li t3, -4096\nvsse8.v v2, (s0), t3" + data,
        "masked vse16 misaligned active": pre.replace("e32", "e16") + "li t0, 2\nvmv.s.x v0, t0\nli t3, 3\n"
                                          "vsse16.v v2, (s0), t3, v0.t" + data,
        # indexed: an active element's offset past DTCM or misaligned, the offsets' group misaligned
        # or over EMUL 8; each checked once the unit has drained (the vfdiv before it), so timed after it
        "indexed offset past DTCM": slow + "vsetvli t1, zero, e32, m1\nli t3, 0x100000\nvmv.v.x v4, t3\n"
                                    "vluxei32.v v2, (s0), v4" + data,
        "indexed store misaligned offset": slow + "vsetvli t1, zero, e32, m4\nvid.v v4\nvsoxei8.v v8, (s0), v4" + data,
        "indexed masked active element out": pre + "li t0, 0x40\nvmv.s.x v0, t0\nvid.v v4\nli t3, 0x40000\n"
                                             "vmul.vx v4, v4, t3\nvloxei32.v v2, (s0), v4, v0.t" + data,
        "indexed offsets misaligned group": pre + "vluxei32.v v2, (s0), v5" + data,
        "indexed offsets over EMUL 8": pre.replace("e32, m2", "e8, m8") + "vluxei16.v v8, (s0), v16" + data,
        "indexed load onto v0 masked": pre + "vluxei32.v v0, (s0), v4, v0.t" + data,
        # segments: NF groups over 8 registers or past v31, an indexed segment load over its offsets
        "segment fields over 8 registers": pre + "vlseg5e32.v v8, (s0)" + data,
        "segment group past v31": pre.replace("m2", "m1") + "vsseg4e32.v v30, (s0)" + data,
        "indexed segment load over its offsets": pre.replace("m2", "m1") + "vluxseg2ei32.v v4, (s0), v5" + data,
        "strided segment misaligned stride": pre.replace("e32", "e16") + "li t3, 3\nvlsseg3e16.v v2, (s0), t3" + data,
        "masked store misaligned": pre + "li t0, 1\nvmv.s.x v0, t0\naddi s0, s0, 2\nvse32.v v2, (s0), v0.t" + data,
        "queued then faulting": pre + "vfadd.vv v2, v4, v6\nvse32.v v2, (s0)\nvfadd.vv v2, v4, v6\n"
                                "vle32.v v3, (s0)" + data,
        # a fault after a wait in its own block (or loop iteration) is timed after the wait;
        # an instruction that would wait itself faults as it issues (no wait, no stall)
        "load fault after a wait": slow + "lw a0, 0(s0)\naddi a1, s0, 2\nlw a2, 0(a1)" + data,
        "load fault before its own wait": slow + "addi a1, s0, 2\nlw a2, 0(a1)" + data,
        "vector fault after a fence": slow + "fence\naddi s1, s0, 2\nvle32.v v4, (s1)" + data,
        "dispatch fault before its own wait": pre + "vfdiv.vv v2, v4, v6\n" * 9 + "vfadd.vv v1, v2, v4" + data,
        "loop fault after a wait": slow + "mv s1, s0\nli t2, 3\n1:\nvse32.v v8, (s0)\nlw a0, 0(s0)\n"
                                   "lw a3, 0(s1)\naddi s1, s1, 2\naddi t2, t2, -1\nbnez t2, 1b" + data,
        "loop fault before its own wait": slow + "mv s1, s0\nli t2, 3\n1:\nvse32.v v8, (s0)\nlw a3, 0(s1)\n"
                                          "addi s1, s1, 2\naddi t2, t2, -1\nbnez t2, 1b" + data,
    }
