"""decoder_block_llama and decoder_block_t5: the Level-1/2 pieces in sequence, every
intermediate in scratch (fp32): RMSNorm (norm_rows), the q/k/v projections (packed w^T
gemm), RoPE in place on q and k (llama), the fused online-softmax attention (T5: no
scale, position bias added to each score block), the output projection accumulating
onto the residual x, RMSNorm, and the FFN (SwiGLU or ReLU) accumulating onto x2. One
packed-weight buffer serves every projection in turn."""
from __future__ import annotations

from .attention import attention_buffers, attention_layer, check_attention
from .matmul import _check_outer, project
from .mlp import relu_pass, swiglu_layer
from .rope import rope_rows
from .rowwise import norm_rows
from .template import Template

NORM_LMUL = 4
ROPE_LMUL = 4


def _attention_params(p):
    return {k: p[k] for k in ("qlmul", "mk", "md", "bk")}


def _attention_half(ctx, asm, p, llama, buf, consts):
    """x2 = x + attention(rmsnorm(x) * attn_norm) @ wo^T, into buf["x2"]."""
    d = ctx.dims
    S, Dm, H, D = d["S"], d["Dm"], d["H"], d["D"]
    x = ctx.addr("x")
    norm_rows(asm, NORM_LMUL, S, Dm, x, buf["h"], ctx.addr("attn_norm"), None, consts["inv_dm"], consts["eps"],
              consts["one"])
    for w, out in (("wq", "q"), ("wk", "k"), ("wv", "v")):
        project(asm, p, S, Dm, Dm, buf["h"], ctx.addr(w), buf[out], buf["wt"])
    if llama:
        for t in ("q", "k"):
            rope_rows(asm, ROPE_LMUL, S, H, D, buf[t], buf[t], ctx.addr("cos"), ctx.addr("sin"))
    attention_layer(asm, _attention_params(p), S, H, H, D, True, buf["q"], buf["k"], buf["v"], buf["a"], buf,
                    consts, scale=llama, bias=None if llama else ctx.addr("bias"))
    project(asm, p, S, Dm, Dm, buf["a"], ctx.addr("wo"), buf["x2"], buf["wt"], init=("rows", x))
    norm_rows(asm, NORM_LMUL, S, Dm, buf["x2"], buf["g"], ctx.addr("ffn_norm"), None, consts["inv_dm"],
              consts["eps"], consts["one"])


def _buffers(ctx, p):
    d = ctx.dims
    S, Dm, H, D, F = d["S"], d["Dm"], d["H"], d["D"], d["F"]
    act = {n: S * Dm for n in ("h", "q", "k", "v", "a", "x2", "g")}
    return attention_buffers(ctx, _attention_params(p), S, D, wt=max(Dm, F) * Dm, hid=S * F, up=S * F, **act)


def decoder_block_llama(ctx, asm, p):
    d = ctx.dims
    consts = {c.name: c.address for c in ctx.layout.constants}
    buf = _buffers(ctx, p)
    _attention_half(ctx, asm, p, True, buf, consts)
    ffn = {"wgt": buf["wt"], "wut": buf["wt"], "wdt": buf["wt"], "g": buf["hid"], "u": buf["up"]}
    swiglu_layer(asm, p, consts, d["S"], d["Dm"], d["F"], buf["g"], ctx.addr("w_gate"), ctx.addr("w_up"),
                 ctx.addr("w_down"), ctx.addr("y"), ffn, init=("rows", buf["x2"]))


def decoder_block_t5(ctx, asm, p):
    d = ctx.dims
    S, Dm, F = d["S"], d["Dm"], d["F"]
    consts = {c.name: c.address for c in ctx.layout.constants}
    buf = _buffers(ctx, p)
    _attention_half(ctx, asm, p, False, buf, consts)
    project(asm, p, S, Dm, F, buf["g"], ctx.addr("w_in"), buf["hid"], buf["wt"])
    relu_pass(asm, 8, S * F, buf["hid"])
    project(asm, p, S, F, Dm, buf["hid"], ctx.addr("w_out"), ctx.addr("y"), buf["wt"], init=("rows", buf["x2"]))


def _check(ctx, p):
    if p["act_lmul"] not in (1, 2, 4):
        return "act_lmul must be 1, 2 or 4 (the activation pass needs six register groups)"
    return _check_outer(ctx, p) or check_attention(ctx, _attention_params(p))


BLOCK = dict(params={"lmul": 8, "mr": 3, "act_lmul": 4, "qlmul": 8, "mk": 3, "md": 3, "bk": 256},
             space={"lmul": [4, 8], "mr": [2, 3, 4, 6], "qlmul": [4, 8], "mk": [2, 3, 6], "md": [2, 3, 6],
                    "bk": [64, 128, 256]},
             check=_check)
TEMPLATES = [
    Template("decoder_block_llama", decoder_block_llama, **BLOCK,
             doc="rmsnorm, packed q/k/v gemms, rope, fused online-softmax attention, wo onto x, rmsnorm, swiglu "
                 "onto x2"),
    Template("decoder_block_t5", decoder_block_t5, **BLOCK,
             doc="rmsnorm, packed q/k/v gemms, fused attention with position bias, wo onto x, rmsnorm, relu FFN "
                 "onto x2"),
]
