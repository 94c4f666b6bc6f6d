"""ffn and swiglu as compositions of the Level-1 templates: each projection packs its
weight once (w^T, so the contraction reads unit-stride rows) and runs gemm's register
blocking, starting from the bias or residual where there is one; the activation is one
strip-mined pass over the hidden state in scratch (swiglu's gate and up products meet
in that pass)."""
from __future__ import annotations

from .elementwise import gelu_arg, sigmoid_divide, sigmoid_setup, silu_arg, stream, task_consts
from .matmul import _check_outer, project
from .template import Template


def activation_pass(asm, lmul, n, hidden, argument, gate_with=None):
    """hidden = hidden / (1 + exp(argument(hidden))) in place over n elements, times the
    elements at `gate_with` when given (swiglu's up projection)."""
    def body(ptrs):
        asm("vle32.v v8, (a0)")
        out = sigmoid_divide(asm, lmul, "v8", argument)
        if gate_with is not None:
            up = f"v{8 + 5 * lmul}"
            asm(f"vle32.v {up}, (a3)")
            asm(f"vfmul.vv {out}, {out}, {up}")
        return out
    stream(asm, n, [hidden] + ([gate_with] if gate_with is not None else []), hidden, lmul, body)


def relu_pass(asm, lmul, n, hidden):
    asm("fmv.w.x ft0, zero")

    def body(ptrs):
        asm("vle32.v v8, (a0)")
        asm("vfmax.vf v8, v8, ft0")
        return "v8"
    stream(asm, n, [hidden], hidden, lmul, body)


def swiglu_layer(asm, p, consts, S, Dm, F, x, w_gate, w_up, w_down, y, buf, init=None):
    """y = (silu(x w_gate^T) * (x w_up^T)) w_down^T (+ init); buf: scratch addresses
    wgt, wut [F*Dm], wdt [Dm*F], g, u [S*F]."""
    project(asm, p, S, Dm, F, x, w_gate, buf["g"], buf["wgt"])
    project(asm, p, S, Dm, F, x, w_up, buf["u"], buf["wut"])
    sigmoid_setup(asm, {"one": consts["one"]})
    activation_pass(asm, p["act_lmul"], S * F, buf["g"], silu_arg, gate_with=buf["u"])
    project(asm, p, S, F, Dm, buf["g"], w_down, y, buf["wdt"], init)


def swiglu_buffers(ctx, S, Dm, F, **more):
    return ctx.scratch(wgt=F * Dm, wut=F * Dm, wdt=Dm * F, g=S * F, u=S * F, **more)


def ffn(ctx, asm, p):
    d = ctx.dims
    S, Dm, F = d["S"], d["Dm"], d["F"]
    buf = ctx.scratch(w1t=F * Dm, w2t=Dm * F, h=S * F)
    project(asm, p, S, Dm, F, ctx.addr("x"), ctx.addr("w1"), buf["h"], buf["w1t"], ("bias", ctx.addr("b1")))
    sigmoid_setup(asm, task_consts(ctx))
    activation_pass(asm, p["act_lmul"], S * F, buf["h"], gelu_arg)
    project(asm, p, S, F, Dm, buf["h"], ctx.addr("w2"), ctx.addr("y"), buf["w2t"], ("bias", ctx.addr("b2")))


def swiglu(ctx, asm, p):
    d = ctx.dims
    S, Dm, F = d["S"], d["Dm"], d["F"]
    swiglu_layer(asm, p, task_consts(ctx), S, Dm, F, ctx.addr("x"), ctx.addr("w_gate"), ctx.addr("w_up"),
                 ctx.addr("w_down"), ctx.addr("y"), swiglu_buffers(ctx, S, Dm, F))


def check_mlp(ctx, p):
    if p["act_lmul"] not in (1, 2, 4):
        return "act_lmul must be 1, 2 or 4 (the activation pass needs six register groups)"
    return _check_outer(ctx, p)


MLP = dict(params={"lmul": 8, "mr": 3, "act_lmul": 4},
           space={"lmul": [2, 4, 8], "mr": [1, 2, 3, 4, 6], "act_lmul": [1, 2, 4]}, check=check_mlp)
TEMPLATES = [
    Template("ffn", ffn, **MLP, doc="packed w1^T gemm from b1, gelu pass in scratch, packed w2^T gemm from b2"),
    Template("swiglu", swiglu, **MLP, doc="packed gate and up gemms, one silu(gate) * up pass, packed "
             "w_down^T gemm"),
]
