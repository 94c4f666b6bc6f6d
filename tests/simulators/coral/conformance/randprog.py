"""Random instruction sequences for the conformance corpus, from a fixed seed list.

Straight-line code only (no branches, no code addresses), registers chosen so every
instruction is legal: vector register groups aligned to LMUL, widening destinations
apart from their narrower sources, masked destinations other than v0, memory accesses
aligned inside a buffer that s0 points at. Instruction names and operand orders are
GNU syntax, the same text for Spike and for coral.
"""
from __future__ import annotations

import random
import struct

SEEDS = tuple(range(1, 17))
N_INSTRUCTIONS = 160
BUFFER = 1024                  # bytes at `buf`, s0 points at it

X = [f"x{i}" for i in range(5, 31) if i != 8]        # not zero/ra/sp/gp/tp, not s0 (x8), not t6
F = [f"f{i}" for i in range(32)]
RM = ["rne", "rtz", "rdn", "rup", "rmm", "dyn"]
INT_RR = ["add", "sub", "sll", "slt", "sltu", "xor", "srl", "sra", "or", "and",
          "mul", "mulh", "mulhsu", "mulhu", "div", "divu", "rem", "remu"]
INT_RI = ["addi", "slti", "sltiu", "xori", "ori", "andi"]
SHIFT_I = ["slli", "srli", "srai"]
FP_RR_RM = ["fadd.s", "fsub.s", "fmul.s", "fdiv.s"]
FP_RR = ["fmin.s", "fmax.s", "fsgnj.s", "fsgnjn.s", "fsgnjx.s"]
FP_CMP = ["feq.s", "flt.s", "fle.s"]
FP_FMA = ["fmadd.s", "fmsub.s", "fnmadd.s", "fnmsub.s"]
V_INT_VV = ["vadd", "vsub", "vand", "vor", "vxor", "vminu", "vmin", "vmaxu", "vmax", "vmul", "vmulh",
            "vmulhu", "vdivu", "vdiv", "vremu", "vrem", "vsll", "vsrl", "vsra", "vsaddu", "vsadd",
            "vssubu", "vssub", "vaadd", "vaaddu", "vasub", "vasubu", "vsmul", "vssrl", "vssra"]
V_INT_VX = V_INT_VV + ["vrsub", "vslidedown", "vslideup", "vslide1up", "vslide1down", "vrgather"]
V_INT_VI = ["vadd", "vand", "vor", "vxor", "vsll", "vsrl", "vsra", "vsaddu", "vsadd", "vrsub",
            "vslidedown", "vslideup", "vrgather"]
V_CMP = ["vmseq", "vmsne", "vmsltu", "vmslt", "vmsleu", "vmsle"]
V_FP_VV = ["vfadd", "vfsub", "vfmul", "vfdiv", "vfmin", "vfmax", "vfsgnj", "vfsgnjn", "vfsgnjx",
           "vfmacc", "vfnmacc", "vfmsac", "vfnmsac", "vfmadd", "vfnmadd", "vfmsub", "vfnmsub"]
V_FP_VF = V_FP_VV + ["vfrsub", "vfrdiv", "vfslide1up", "vfslide1down"]
V_FP_CMP = ["vmfeq", "vmfne", "vmflt", "vmfle"]
V_FP_UNARY = ["vfsqrt.v", "vfrec7.v", "vfrsqrt7.v", "vfclass.v", "vfcvt.x.f.v", "vfcvt.xu.f.v",
              "vfcvt.f.x.v", "vfcvt.f.xu.v", "vfcvt.rtz.x.f.v", "vfcvt.rtz.xu.f.v"]
V_RED = ["vredsum", "vredmaxu", "vredmax", "vredminu", "vredmin", "vredand", "vredor", "vredxor"]
V_MASK = ["vmand", "vmnand", "vmandn", "vmxor", "vmor", "vmnor", "vmorn", "vmxnor"]
NARROW_VALUES = [0.0, -0.0, 1.0, -1.5, 3.0e38, -3.0e38, 1e-40, float("inf"), float("-inf"),
                 float("nan"), 0.1, 2.5, -7.0, 65504.0, 1e-45, 2 ** 31, -(2 ** 31), 4294967040.0]


def _fbits(v: float) -> int:
    return struct.unpack("<I", struct.pack("<f", v))[0]


def random_body(seed: int) -> str:
    rng = random.Random(seed)
    out = ["la s0, buf"]
    # random data in the buffer, special floats among it
    words = []
    for i in range(BUFFER // 4):
        if rng.random() < 0.3:
            words.append(_fbits(rng.choice(NARROW_VALUES)))
        elif rng.random() < 0.5:
            words.append(_fbits(rng.uniform(-100, 100)))
        else:
            words.append(rng.getrandbits(32))
    for r in X:
        out.append(f"li {r}, {rng.choice([rng.getrandbits(32) - (1 << 31), rng.randint(-40, 40)])}")
    for i, r in enumerate(F):
        out.append(f"flw {r}, {4 * rng.randrange(BUFFER // 4 - 1)}(s0)")
    out.append("li s1, 128\nvsetvli zero, s1, e8, m8, tu, mu")
    for k in range(4):
        out.append(f"addi s1, s0, {16 * rng.randrange(56)}\nvle8.v v{8 * k}, (s1)")
    sew, lmul = 32, 1
    out += _vset(rng, sew, lmul)
    for _ in range(N_INSTRUCTIONS):
        kind = rng.random()
        if kind < 0.08:
            sew, lmul = rng.choice([8, 16, 32]), rng.choice([1, 2, 4])
            out += _vset(rng, sew, lmul)
        elif kind < 0.25:
            out.append(_scalar_int(rng))
        elif kind < 0.45:
            out.append(_scalar_fp(rng))
        elif kind < 0.5:
            out += _memory(rng, sew, lmul)
        else:
            out.append(_vector(rng, sew, lmul))
    out.append("li s0, 0\nli s1, 0")
    out.append(".data\n.balign 16\nbuf: .word " + ", ".join(f"{w:#x}" for w in words))
    return "\n".join(out) + "\n"


def _vset(rng, sew, lmul):
    frm = rng.randrange(5)
    return [f"fsrmi {frm}", f"csrwi vxrm, {rng.randrange(4)}",
            f"li s1, {rng.randint(0, 40)}", f"vsetvli zero, s1, e{sew}, m{lmul}, tu, mu"]


def _scalar_int(rng):
    c = rng.random()
    rd, a, b = rng.choice(X), rng.choice(X), rng.choice(X)
    if c < 0.6:
        return f"{rng.choice(INT_RR)} {rd}, {a}, {b}"
    if c < 0.85:
        return f"{rng.choice(INT_RI)} {rd}, {a}, {rng.randint(-2048, 2047)}"
    return f"{rng.choice(SHIFT_I)} {rd}, {a}, {rng.randrange(32)}"


def _scalar_fp(rng):
    c = rng.random()
    fd, fa, fb, fc = (rng.choice(F) for _ in range(4))
    rm = rng.choice(RM)
    if c < 0.3:
        return f"{rng.choice(FP_RR_RM)} {fd}, {fa}, {fb}, {rm}"
    if c < 0.45:
        return f"{rng.choice(FP_FMA)} {fd}, {fa}, {fb}, {fc}, {rm}"
    if c < 0.55:
        return f"{rng.choice(FP_RR)} {fd}, {fa}, {fb}"
    if c < 0.65:
        return f"{rng.choice(FP_CMP)} {rng.choice(X)}, {fa}, {fb}"
    if c < 0.72:
        return f"fsqrt.s {fd}, {fa}, {rm}"
    if c < 0.8:
        return f"{rng.choice(['fcvt.w.s', 'fcvt.wu.s'])} {rng.choice(X)}, {fa}, {rm}"
    if c < 0.88:
        return f"{rng.choice(['fcvt.s.w', 'fcvt.s.wu'])} {fd}, {rng.choice(X)}, {rm}"
    if c < 0.94:
        return f"{rng.choice(['fclass.s', 'fmv.x.w'])} {rng.choice(X)}, {fa}"
    return f"fmv.w.x {fd}, {rng.choice(X)}"


def _group(rng, lmul, avoid=()):
    while True:
        r = lmul * rng.randrange(32 // lmul)
        if r != 0 and not any(r <= a < r + lmul for a in avoid):
            return r


def _memory(rng, sew, lmul):
    width = rng.choice([8, 16, 32])
    vd = _group(rng, lmul)
    off = 16 * rng.randrange(8)
    c = rng.random()
    out = [f"addi s1, s0, {off}"]
    if c < 0.4:
        out.append(f"vle{width}.v v{vd}, (s1)")        # EEW may differ from SEW: EMUL = LMUL * EEW / SEW
    elif c < 0.6:
        out.append(f"li a7, {rng.choice([4, 8, -4, 12]) if width == 32 else width // 8 * rng.choice([1, 3])}")
        out.append(f"vlse{width}.v v{vd}, (s1), a7")
    elif c < 0.8:
        out.append(f"vse{width}.v v{vd}, (s1)")
    else:
        out.append(f"vle{width}.v v{vd}, (s1), v0.t")
    emul = lmul * width / sew
    if emul > 8 or emul < 1 or vd % int(emul):
        return [f"vle{sew}.v v{_group(rng, lmul)}, (s0)"]
    if "vlse" in out[-1] and "-4" in out[-2]:
        out[0] = f"addi s1, s0, {off + 512}"
    return out


def _vector(rng, sew, lmul):
    c = rng.random()
    vd, a, b = _group(rng, lmul), _group(rng, lmul), _group(rng, lmul)
    mask = ", v0.t" if rng.random() < 0.3 else ""
    x = rng.choice(X)
    if c < 0.25:
        op = rng.choice(V_INT_VV)
        return f"{op}.vv v{vd}, v{a}, v{b}{mask}"
    if c < 0.4:
        op = rng.choice(V_INT_VX)
        if op in ("vslideup", "vslide1up", "vrgather"):
            vd = _group(rng, lmul, avoid=range(a, a + lmul))
        return f"{op}.vx v{vd}, v{a}, {x}{mask}"
    if c < 0.5:
        op = rng.choice(V_INT_VI)
        if op in ("vslideup", "vrgather"):
            vd = _group(rng, lmul, avoid=range(a, a + lmul))
        imm = rng.randrange(32) if op in ("vsll", "vsrl", "vsra", "vslidedown", "vslideup", "vrgather") \
            else rng.randint(-16, 15)
        return f"{op}.vi v{vd}, v{a}, {imm}{mask}"
    if c < 0.58:
        return _compare(rng, V_CMP, a, b, lmul, mask, vd)
    if sew != 32:
        if c < 0.7:
            op = rng.choice(V_RED)
            return f"{op}.vs v{vd}, v{a}, v{b}{mask}"
        return f"{rng.choice(V_MASK)}.mm v{rng.randrange(32)}, v{rng.randrange(32)}, v{rng.randrange(32)}"
    if c < 0.75:
        return f"{rng.choice(V_FP_VV)}.vv v{vd}, v{a}, v{b}{mask}"
    if c < 0.85:
        op = rng.choice(V_FP_VF)
        if op == "vfslide1up":
            vd = _group(rng, lmul, avoid=range(a, a + lmul))
        if op[2:] in ("macc", "nmacc", "msac", "nmsac", "madd", "nmadd", "msub", "nmsub"):
            return f"{op}.vf v{vd}, {rng.choice(F)}, v{a}{mask}"      # multiply-adds: vd, rs1, vs2
        return f"{op}.vf v{vd}, v{a}, {rng.choice(F)}{mask}"
    if c < 0.92:
        return f"{rng.choice(V_FP_UNARY)} v{vd}, v{a}{mask}"
    if c < 0.96:
        op = rng.choice(V_RED + ["vfredmax", "vfredmin", "vfredosum"])
        return f"{op}.vs v{vd}, v{a}, v{b}{mask}"
    return _compare(rng, V_FP_CMP, a, b, lmul, mask, vd)


def _compare(rng, ops, a, b, lmul, mask, vd):
    """A compare into a mask register outside both source groups (v0 only unmasked)."""
    m = rng.randrange(0 if not mask else 1, 32)
    if a <= m < a + lmul or b <= m < b + lmul:
        return f"vmv.v.v v{vd}, v{a}"
    return f"{rng.choice(ops)}.vv v{m}, v{a}, v{b}{mask}"
