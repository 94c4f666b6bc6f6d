"""conv2d and depthwise_conv (HWC, stride 1, no padding).

conv2d is an outer product like gemm: PR output pixels of a row at once, a strip of
output channels per register group, and for every (kernel row, kernel column, input
channel) one scalar of x per pixel times one strip of w (w rows are contiguous in that
order, and so are the KW * Cin inputs of one kernel row). depthwise_conv keeps the
KH * KW filter taps of a channel strip in vector registers and runs every output pixel
through them with vfmacc.vv."""
from __future__ import annotations

from .matmul import F_A, X_A
from .template import Template


def _conv_pixels(ctx, asm, p, pr, epilogue=False):
    """pr consecutive output pixels of one row: x of the first pixel at s6, y at s7;
    with `epilogue`, y = max(0, conv * scale + shift) (conv_block) on the accumulators."""
    d = ctx.dims
    W, Cin, Cout, KH, KW = d["W"], d["Cin"], d["Cout"], d["KH"], d["KW"]
    lmul = p["lmul"]
    accs = [f"v{8 + q * lmul}" for q in range(pr)]
    vw = f"v{8 + pr * lmul}" if 8 + (pr + 1) * lmul <= 32 else "v0"
    step = 4 * Cin
    single = step * (pr - 1) <= 2047
    asm.li("s1", ctx.addr("w"), "w strip")
    asm("mv s4, s7")
    if epilogue:
        asm.li("s0", ctx.addr("scale"), "scale strip")
        asm.li("s2", ctx.addr("shift"), "shift strip")
    asm.li("s3", Cout)
    with asm.strip("s3", "t0", lmul, comment="a strip of output channels"):
        for acc in accs:
            asm(f"vmv.v.i {acc}, 0")
        if single:
            asm(f"mv {X_A[0]}, s6")
        else:
            for q in range(pr):
                asm.addi(X_A[q], "s6", q * step)
        asm("mv t3, s1")
        with asm.loop("t5", KH, "kernel rows"):
            with asm.loop("t4", KW * Cin, "kernel columns x input channels (contiguous)"):
                asm(f"vle32.v {vw}, (t3)")
                for q in range(pr):
                    asm(f"flw {F_A[q]}, {q * step if single else 0}({X_A[0] if single else X_A[q]})")
                for q in range(pr):
                    asm(f"vfmacc.vf {accs[q]}, {F_A[q]}, {vw}")
                for q in range(1 if single else pr):
                    asm(f"addi {X_A[q]}, {X_A[q]}, 4")
                asm("add t3, t3, s5")
            if KH > 1:
                for q in range(1 if single else pr):
                    asm.addi(X_A[q], X_A[q], 4 * (W - KW) * Cin, "t2")
        if epilogue:
            asm(f"vle32.v {vw}, (s0)", "fused: * scale")
            for acc in accs:
                asm(f"vfmul.vv {acc}, {acc}, {vw}")
            asm(f"vle32.v {vw}, (s2)", "+ shift, relu")
            for acc in accs:
                asm(f"vfadd.vv {acc}, {acc}, {vw}")
                asm(f"vfmax.vf {acc}, {acc}, ft8")
        for q in range(pr):
            asm.addi("t1", "s4", q * 4 * Cout)
            asm(f"vse32.v {accs[q]}, (t1)")
        asm("slli t1, t0, 2")
        asm("add s1, s1, t1")
        asm("add s4, s4, t1")
        if epilogue:
            asm("add s0, s0, t1")
            asm("add s2, s2, t1")


def conv2d(ctx, asm, p, epilogue=False):
    d = ctx.dims
    H, W, Cin, Cout, KH, KW = d["H"], d["W"], d["Cin"], d["Cout"], d["KH"], d["KW"]
    OH, OW = H - KH + 1, W - KW + 1
    pr = min(p["pr"], OW)
    asm.li("a0", ctx.addr("x"), "x row")
    asm.li("a1", ctx.addr("y"), "y row")
    asm.li("s5", 4 * Cout, "w row pitch")
    if epilogue:
        asm("fmv.w.x ft8, zero")
    full, rest = divmod(OW, pr)
    with asm.loop("s8", OH, "output rows"):
        asm("mv s6, a0")
        asm("mv s7, a1")
        with asm.loop("s9", full, f"blocks of {pr} pixels"):
            _conv_pixels(ctx, asm, p, pr, epilogue)
            asm.addi("s6", "s6", pr * 4 * Cin)
            asm.addi("s7", "s7", pr * 4 * Cout)
        if rest:
            _conv_pixels(ctx, asm, p, rest, epilogue)
        asm.addi("a0", "a0", 4 * W * Cin)
        asm.addi("a1", "a1", 4 * OW * Cout)


def conv_block(ctx, asm, p):
    conv2d(ctx, asm, p, epilogue=True)


def depthwise_conv(ctx, asm, p):
    d = ctx.dims
    H, W, C, KH, KW = d["H"], d["W"], d["C"], d["KH"], d["KW"]
    OH, OW = H - KH + 1, W - KW + 1
    lmul = p["lmul"]
    taps = [f"v{8 + t * lmul}" for t in range(KH * KW)]
    acc, vx = f"v{8 + KH * KW * lmul}", f"v{8 + (KH * KW + 1) * lmul}"
    asm.li("s0", ctx.addr("x"), "x channel strip")
    asm.li("s1", ctx.addr("w"), "w channel strip")
    asm.li("s2", ctx.addr("y"), "y channel strip")
    asm.li("s5", 4 * C, "pixel pitch")
    asm.li("a2", C)
    with asm.strip("a2", "t0", lmul, comment="a strip of channels"):
        asm("mv t3, s1")
        for tap in taps:
            asm(f"vle32.v {tap}, (t3)", "filter taps stay in registers")
            asm("add t3, t3, s5")
        asm("mv a0, s0")
        asm("mv a1, s2")
        with asm.loop("s8", OH, "output rows"):
            asm("mv a3, a0")
            with asm.loop("s9", OW, "output pixels"):
                asm("mv t3, a3")
                for i in range(KH):
                    for j in range(KW):
                        asm(f"vle32.v {vx}, (t3)")
                        t = i * KW + j
                        if t == 0:
                            asm(f"vfmul.vv {acc}, {vx}, {taps[t]}")
                        else:
                            asm(f"vfmacc.vv {acc}, {vx}, {taps[t]}")
                        if j < KW - 1:
                            asm("add t3, t3, s5")
                    if i < KH - 1:
                        asm.addi("t3", "t3", 4 * (W - KW + 1) * C, "t2")
                asm(f"vse32.v {acc}, (a1)")
                asm("add a3, a3, s5")
                asm("add a1, a1, s5")
            asm.addi("a0", "a0", 4 * W * C, "t2")
        asm("slli t1, t0, 2")
        asm("add s0, s0, t1")
        asm("add s1, s1, t1")
        asm("add s2, s2, t1")


def _check_conv(ctx, p):
    if not 1 <= p["pr"] <= 8:
        return "pr must be 1..8"
    if 8 + p["pr"] * p["lmul"] > 32:
        return f"pr = {p['pr']} accumulators of LMUL = {p['lmul']} do not fit v8..v31 (w uses v0)"
    return None


def _check_depthwise(ctx, p):
    taps = ctx.dims["KH"] * ctx.dims["KW"]
    if 8 + (taps + 2) * p["lmul"] > 32:
        return f"{taps} filter taps plus two groups of LMUL = {p['lmul']} do not fit v8..v31"
    return None


TEMPLATES = [
    Template("conv2d", conv2d, {"lmul": 8, "pr": 3}, {"lmul": [2, 4, 8], "pr": [1, 2, 3, 4]},
             "PR pixels x a strip of output channels, vfmacc.vf per (kernel row, column, input channel)",
             _check_conv),
    Template("conv_block", conv_block, {"lmul": 8, "pr": 3}, {"lmul": [2, 4, 8], "pr": [1, 2, 3, 4]},
             "conv2d's blocking with batch norm and ReLU fused on the accumulators before the store",
             _check_conv),
    Template("depthwise_conv", depthwise_conv, {"lmul": 2}, {"lmul": [1, 2]},
             "filter taps of a channel strip in registers, vfmacc.vv per tap and pixel", _check_depthwise),
]
