"""relu, silu, gelu: one strip-mined loop over the rows x cols elements (contiguous).

silu: y = x / (1 + exp(-x)); gelu: y = x / (1 + exp(-c1 * (x + c2 * x^3))), with the
task's constants; exp as in asm.vexp."""
from __future__ import annotations

from .template import Template

EXP_F = {"log2e": "fs0", "ln2hi": "fs1", "ln2lo": "fs2", "lo": "fs3", "hi": "fs4",
         "c5": "fs5", "c4": "fs6", "c3": "fs7", "c2": "fs8", "c1": "fs9", "c0": "fs10"}


def _groups(lmul: int, count: int) -> list[str]:
    """`count` distinct register groups of LMUL registers, from v8 up (v0 is left alone)."""
    regs = [f"v{8 + i * lmul}" for i in range(count)]
    if 8 + count * lmul > 32:
        raise ValueError(f"{count} register groups of LMUL = {lmul} do not fit v8..v31")
    return regs


SRC_PTRS = ("a0", "a3", "a4")


def stream(asm, n: int, srcs: list[int], dst: int, lmul: int, body):
    """A strip-mined loop over n contiguous elements: pointers SRC_PTRS[i] walk srcs[i],
    a1 walks dst, a2 counts; `body(ptrs)` loads what it needs and returns the register
    group to store."""
    ptrs = SRC_PTRS[:len(srcs)]
    for reg, addr in zip(ptrs, srcs):
        asm.li(reg, addr)
    asm.li("a1", dst, "out")
    asm.li("a2", n, f"{n} elements")
    with asm.strip("a2", "t0", lmul):
        vy = body(ptrs)
        asm(f"vse32.v {vy}, (a1)")
        asm("slli t1, t0, 2")
        for reg in (*ptrs, "a1"):
            asm(f"add {reg}, {reg}, t1")


def _stream(ctx, asm, p, body):
    """The task's loop over x -> y (rows x cols elements): `body(vx)` computes vy from vx."""
    def load(ptrs):
        asm("vle32.v v8, (a0)")
        return body("v8")
    stream(asm, ctx.dims["rows"] * ctx.dims["cols"], [ctx.addr("x")], ctx.addr("y"), p["lmul"], load)


def relu(ctx, asm, p):
    asm("fmv.w.x ft0, zero", "ft0 = +0.0")

    def body(vx):
        asm(f"vfmax.vf {vx}, {vx}, ft0")
        return vx
    _stream(ctx, asm, p, body)


def sigmoid_setup(asm, consts: dict[str, int]) -> None:
    """Registers sigmoid_divide needs: the exp constants, one (ft0), and for gelu its
    constants (ft1 = gelu_c2, ft2 = neg_gelu_c1); `consts` maps names to addresses."""
    asm.exp_consts(EXP_F)
    asm.flw_addr("ft0", consts["one"], comment="one")
    asm.li("s1", 127)
    for name, reg in (("gelu_c2", "ft1"), ("neg_gelu_c1", "ft2")):
        if name in consts:
            asm.flw_addr(reg, consts[name], comment=name)


def sigmoid_divide(asm, lmul, vx, argument):
    """x / (1 + exp(argument(x))) on register group vx; returns the result's group."""
    _, vz, vt, vn, ve = _groups(lmul, 5)
    argument(asm, vx, vz, vt)
    asm.vexp(ve, vz, vt, vn, EXP_F, "s1")
    asm(f"vfadd.vf {ve}, {ve}, ft0", "1 + exp(...)")
    asm(f"vfdiv.vv {vz}, {vx}, {ve}")
    return vz


def task_consts(ctx) -> dict[str, int]:
    return {c.name: c.address for c in ctx.layout.constants}


def _sigmoid_divide(ctx, asm, p, argument):
    """y = x / (1 + exp(argument(x)))."""
    consts = task_consts(ctx)
    if argument is not gelu_arg:
        consts = {"one": consts["one"]}
    sigmoid_setup(asm, consts)
    _stream(ctx, asm, p, lambda vx: sigmoid_divide(asm, p["lmul"], vx, argument))


def silu_arg(asm, vx, vz, vt):
    asm(f"vfsgnjn.vv {vz}, {vx}, {vx}", "z = -x")


def gelu_arg(asm, vx, vz, vt):
    asm(f"vfmul.vv {vt}, {vx}, {vx}", "x^2")
    asm(f"vfmul.vf {vt}, {vt}, ft1", "c2 x^2")
    asm(f"vfadd.vf {vt}, {vt}, ft0", "1 + c2 x^2")
    asm(f"vfmul.vv {vt}, {vt}, {vx}", "x + c2 x^3")
    asm(f"vfmul.vf {vz}, {vt}, ft2", "z = -c1 (x + c2 x^3)")


def silu(ctx, asm, p):
    _sigmoid_divide(ctx, asm, p, silu_arg)


def gelu(ctx, asm, p):
    _sigmoid_divide(ctx, asm, p, gelu_arg)


def _fits(count):
    def check(ctx, p):
        if 8 + count * p["lmul"] > 32:
            return f"lmul = {p['lmul']} needs {count} register groups, which do not fit v8..v31"
        return None
    return check


TEMPLATES = [
    Template("relu", relu, {"lmul": 8}, {"lmul": [1, 2, 4, 8]},
             "strip-mined vfmax.vf against +0.0", _fits(1)),
    Template("silu", silu, {"lmul": 4}, {"lmul": [1, 2, 4]},
             "strip-mined x / (1 + exp(-x)), exp by range reduction and a degree-5 polynomial", _fits(5)),
    Template("gelu", gelu, {"lmul": 4}, {"lmul": [1, 2, 4]},
             "strip-mined x / (1 + exp(-c1 (x + c2 x^3)))", _fits(5)),
]
