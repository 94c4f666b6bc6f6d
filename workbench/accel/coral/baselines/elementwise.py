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


def _stream(ctx, asm, p, body):
    """The loop: a0 = x, a1 = y, a2 = elements left; `body(vx, vy)` computes vy from vx."""
    n = ctx.dims["rows"] * ctx.dims["cols"]
    lmul = p["lmul"]
    asm.li("a0", ctx.addr("x"), "x")
    asm.li("a1", ctx.addr("y"), "y")
    asm.li("a2", n, f"{n} elements")
    with asm.strip("a2", "t0", lmul):
        vx = f"v{8}"
        asm("vle32.v v8, (a0)")
        vy = body(vx)
        asm(f"vse32.v {vy}, (a1)")
        asm("slli t1, t0, 2")
        asm("add a0, a0, t1")
        asm("add a1, a1, t1")


def relu(ctx, asm, p):
    asm("fmv.w.x ft0, zero", "ft0 = +0.0")

    def body(vx):
        asm(f"vfmax.vf {vx}, {vx}, ft0")
        return vx
    _stream(ctx, asm, p, body)


def _sigmoid_divide(ctx, asm, p, argument):
    """y = x / (1 + exp(argument(x)))."""
    lmul = p["lmul"]
    vx, vz, vt, vn, ve = _groups(lmul, 5)
    asm.exp_consts(EXP_F)
    asm.flw_addr("ft0", ctx.const("one"), comment="one")
    asm.li("s1", 127)
    for name in ("gelu_c2", "neg_gelu_c1"):
        if name in {c.name for c in ctx.layout.constants} and argument is _gelu_arg:
            asm.flw_addr({"gelu_c2": "ft1", "neg_gelu_c1": "ft2"}[name], ctx.const(name), comment=name)

    def body(_):
        argument(asm, vx, vz, vt)
        asm.vexp(ve, vz, vt, vn, EXP_F, "s1")
        asm(f"vfadd.vf {ve}, {ve}, ft0", "1 + exp(...)")
        asm(f"vfdiv.vv {vz}, {vx}, {ve}")
        return vz
    _stream(ctx, asm, p, body)


def _silu_arg(asm, vx, vz, vt):
    asm(f"vfsgnjn.vv {vz}, {vx}, {vx}", "z = -x")


def _gelu_arg(asm, vx, vz, vt):
    asm(f"vfmul.vv {vt}, {vx}, {vx}", "x^2")
    asm(f"vfmul.vf {vt}, {vt}, ft1", "c2 x^2")
    asm(f"vfadd.vf {vt}, {vt}, ft0", "1 + c2 x^2")
    asm(f"vfmul.vv {vt}, {vt}, {vx}", "x + c2 x^3")
    asm(f"vfmul.vf {vz}, {vt}, ft2", "z = -c1 (x + c2 x^3)")


def silu(ctx, asm, p):
    _sigmoid_divide(ctx, asm, p, _silu_arg)


def gelu(ctx, asm, p):
    _sigmoid_divide(ctx, asm, p, _gelu_arg)


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
