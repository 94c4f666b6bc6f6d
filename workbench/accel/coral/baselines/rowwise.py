"""softmax, layer_norm, rms_norm: a loop over rows; each row is a few strip-mined passes
that accumulate into a vector register group (tail-undisturbed, so a short last strip
keeps the other lanes), reduced once per pass with an unordered sum or max."""
from __future__ import annotations

from .elementwise import EXP_F
from .template import Template


def _row_setup(ctx, asm, p):
    d = ctx.dims
    asm.li("s0", ctx.addr("x"), "x row")
    asm.li("s1", ctx.addr("y"), "y row")
    return d["rows"], d["cols"]


def _pass(asm, lmul, cols, body, policy="tu, mu"):
    """One strip-mined pass over the row at s0 (and s1): a0 = x, a1 = y; body(vl reg)."""
    asm("mv a0, s0")
    asm("mv a1, s1")
    asm.li("a2", cols)
    with asm.strip("a2", "t0", lmul, policy):
        body()
        asm("slli t1, t0, 2")
        asm("add a0, a0, t1")
        asm("add a1, a1, t1")


def _zero(asm, lmul, vreg):
    asm(f"vsetvli t2, zero, e32, m{lmul}, ta, ma")
    asm(f"vmv.v.i {vreg}, 0")


def _reduce_sum(asm, lmul, vacc, freg):
    asm(f"vsetvli t2, zero, e32, m{lmul}, ta, ma")
    asm("vmv.s.x v1, zero")
    asm(f"vfredusum.vs v1, {vacc}, v1")
    asm(f"vfmv.f.s {freg}, v1")


def softmax(ctx, asm, p):
    lmul = p["lmul"]
    rows, cols = _row_setup(ctx, asm, p)
    vx, vz, vt, vn, ve, vacc = (f"v{8 + i * lmul}" for i in range(6))
    asm.exp_consts(EXP_F)
    asm.flw_addr("ft0", ctx.const("neg_max"), comment="neg_max")
    asm.flw_addr("ft1", ctx.const("one"), comment="one")
    asm.li("s3", 127)
    asm.li("s2", 4 * cols, "row pitch")
    with asm.loop("s4", rows, "rows"):
        asm(f"vsetvli t2, zero, e32, m{lmul}, ta, ma")
        asm(f"vfmv.v.f {vacc}, ft0", "running max per lane")

        def running_max():
            asm(f"vle32.v {vx}, (a0)")
            asm(f"vfmax.vv {vacc}, {vacc}, {vx}")
        _pass(asm, lmul, cols, running_max)
        asm(f"vsetvli t2, zero, e32, m{lmul}, ta, ma")
        asm("vfmv.s.f v1, ft0")
        asm(f"vfredmax.vs v1, {vacc}, v1")
        asm("vfmv.f.s fa0, v1", "row max")
        _zero(asm, lmul, vacc)

        def exponentials():
            asm(f"vle32.v {vz}, (a0)")
            asm(f"vfsub.vf {vz}, {vz}, fa0")
            asm.vexp(ve, vz, vt, vn, EXP_F, "s3")
            asm(f"vse32.v {ve}, (a1)")
            asm(f"vfadd.vv {vacc}, {vacc}, {ve}")
        _pass(asm, lmul, cols, exponentials)
        _reduce_sum(asm, lmul, vacc, "fa1")
        asm("fdiv.s fa1, ft1, fa1", "1 / sum")

        def scale():
            asm(f"vle32.v {vx}, (a1)")
            asm(f"vfmul.vf {vx}, {vx}, fa1")
            asm(f"vse32.v {vx}, (a1)")
        _pass(asm, lmul, cols, scale, "ta, ma")
        asm("add s0, s0, s2")
        asm("add s1, s1, s2")


def norm_rows(asm, lmul, rows, cols, x, y, gamma, beta, inv_n, eps, one):
    """y = (x - mean) * rstd * gamma (+ beta) per row of x [rows, cols] (layer norm with
    a beta address, RMS norm with beta None); arguments are addresses (inv_n, eps, one:
    of binary32 constants)."""
    centred = beta is not None
    asm.li("s0", x, "x row")
    asm.li("s1", y, "y row")
    vx, vg, vb, vacc = (f"v{8 + i * lmul}" for i in range(4))
    asm.flw_addr("ft0", inv_n, comment="inv_n")
    asm.flw_addr("ft1", eps, comment="eps")
    asm.flw_addr("ft2", one, comment="one")
    asm.li("s2", 4 * cols, "row pitch")
    with asm.loop("s4", rows, "rows"):
        asm("fmv.w.x fa0, zero", "mean (0 for rms_norm)")
        if centred:
            _zero(asm, lmul, vacc)

            def total():
                asm(f"vle32.v {vx}, (a0)")
                asm(f"vfadd.vv {vacc}, {vacc}, {vx}")
            _pass(asm, lmul, cols, total)
            _reduce_sum(asm, lmul, vacc, "fa0")
            asm("fmul.s fa0, fa0, ft0", "mean")
        _zero(asm, lmul, vacc)

        def squares():
            asm(f"vle32.v {vx}, (a0)")
            if centred:
                asm(f"vfsub.vf {vx}, {vx}, fa0")
            asm(f"vfmacc.vv {vacc}, {vx}, {vx}")
        _pass(asm, lmul, cols, squares)
        _reduce_sum(asm, lmul, vacc, "fa1")
        asm("fmul.s fa1, fa1, ft0", "variance" if centred else "mean square")
        asm("fadd.s fa1, fa1, ft1")
        asm("fsqrt.s fa1, fa1")
        asm("fdiv.s fa1, ft2, fa1", "1 / sqrt(. + eps)")
        asm.li("a3", gamma)
        if centred:
            asm.li("a4", beta)

        def output():
            asm(f"vle32.v {vx}, (a0)")
            if centred:
                asm(f"vfsub.vf {vx}, {vx}, fa0")
            asm(f"vfmul.vf {vx}, {vx}, fa1")
            asm(f"vle32.v {vg}, (a3)")
            asm(f"vfmul.vv {vx}, {vx}, {vg}")
            if centred:
                asm(f"vle32.v {vb}, (a4)")
                asm(f"vfadd.vv {vx}, {vx}, {vb}")
            asm(f"vse32.v {vx}, (a1)")
            asm("slli t3, t0, 2")
            asm("add a3, a3, t3")
            if centred:
                asm("add a4, a4, t3")
        _pass(asm, lmul, cols, output, "ta, ma")
        asm("add s0, s0, s2")
        asm("add s1, s1, s2")


def _norm(ctx, asm, p, centred: bool):
    d = ctx.dims
    norm_rows(asm, p["lmul"], d["rows"], d["cols"], ctx.addr("x"), ctx.addr("y"), ctx.addr("gamma"),
              ctx.addr("beta") if centred else None, ctx.const("inv_n"), ctx.const("eps"), ctx.const("one"))


def layer_norm(ctx, asm, p):
    _norm(ctx, asm, p, True)


def rms_norm(ctx, asm, p):
    _norm(ctx, asm, p, False)


def _fits(count):
    def check(ctx, p):
        if 8 + count * p["lmul"] > 32:
            return f"lmul = {p['lmul']} needs {count} register groups, which do not fit v8..v31"
        return None
    return check


TEMPLATES = [
    Template("softmax", softmax, {"lmul": 4}, {"lmul": [1, 2, 4]},
             "per row: running max, exp(x - max) with a running sum, scale by 1/sum", _fits(6)),
    Template("layer_norm", layer_norm, {"lmul": 4}, {"lmul": [1, 2, 4]},
             "per row: sum, sum of squared deviations, then (x - mean) * rstd * gamma + beta", _fits(4)),
    Template("rms_norm", rms_norm, {"lmul": 4}, {"lmul": [1, 2, 4]},
             "per row: sum of squares, then x * rstd * gamma", _fits(4)),
]
