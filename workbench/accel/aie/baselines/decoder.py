"""Shared template for the decoder blocks (decoder_block_llama, decoder_block_t5),
composed from the Level-1 and Level-2 passes, intermediates in scratch (bf16):

  h  = rms_norm(x) * attn_norm                      row_pass (rms_norm's row body)
  q, k, v = h @ w^T                                 contractions (matmul.py)
  llama: q, k = rope(q), rope(k)                    rope_pass
  a  = causal attention (llama: scale 1/sqrt(D); t5: position bias, no scale)
                                                    attention_pass (online softmax)
  x2 = x + a @ wo^T                                 contraction, residual fused (epilogue)
  g  = rms_norm(x2) * ffn_norm                      row_pass
  llama: y = x2 + (silu(g wg^T) * (g wu^T)) wd^T     three contractions as swiglu, the
  t5:    y = x2 + relu(g w_in^T) w_out^T             activation and residual fused

A program holds 16 DMA descriptors, so every pass runs with descriptors at address 0
and its addresses in registers: passes of one shape share descriptors.
Tunable: `k_banks` (attention), `unroll` (the activation epilogue)."""
from __future__ import annotations

from dataclasses import replace

from .asm import Asm
from .attention import _check as check_attention, attention_pass
from .epilogues import other_block, staged_map
from .matmul import Gemm, check_shape, contraction
from .rms_norm import _row as rms_row
from .rope import check_rope, rope_pass
from .rowwise import row_pass
from .silu import _body as silu_body
from .template import Ctx, Template

ROW_BLOCK = 4096             # words per block of the row-wise passes


def _absolute(g: Gemm) -> Gemm:
    """The same shape at address 0: the base whose descriptors every contraction of this
    shape shares, all addresses becoming run-time offsets."""
    return replace(g, a=0, b=0, c=0, bias=0 if g.bias is not None else None)


def _relu_body(r):
    return ["VBCST.16 x15, r0", f"VMAX.BF16 {r['y']}, {r['x']}, x15"]


def _scratch(ctx: Ctx) -> dict[str, int]:
    """Addresses of the intermediates in the scratch region, each on a 32-word boundary."""
    d = ctx.dims
    s, dm, f = d["S"], d["Dm"], d["F"]
    sizes = {n: s * dm for n in ("h", "qr", "kr", "v", "q", "k", "att", "x2", "g")}
    sizes.update(gate=s * f, hid=s * f)
    buf, at = {}, ctx.addr("scratch")
    for name, words in sizes.items():
        buf[name] = at
        at += -(-words // 32) * 32
    if at > ctx.addr("scratch") + ctx.layout.region("scratch").size:
        raise ValueError(f"{ctx.task.name} {ctx.config}: intermediates need {at - ctx.addr('scratch')} "
                         "words, more than the scratch region")
    return buf


def _run(asm: Asm, g: Gemm, prefetch=None, epilogue=None) -> None:
    asm.comment(f"contraction M={g.m} K={g.k} N={g.n}")
    contraction(asm, g, _absolute(g), prefetch=prefetch, epilogue=epilogue)


def decoder_generate(ctx: Ctx, asm: Asm, p: dict, llama: bool) -> None:
    d = ctx.dims
    s, dm, hh, dh, f = d["S"], d["Dm"], d["H"], d["D"], d["F"]
    a = ctx.addr
    buf = _scratch(ctx)
    norm = ("eps", "inv_dm")
    asm.comment("h = rms_norm(x) * attn_norm")
    row_pass(ctx, asm, rms_row, norm, {"gamma": a("attn_norm")}, a("x"), buf["h"], s, dm, absolute=True,
             block_words=ROW_BLOCK)
    raw = ("qr", "kr", "v") if llama else ("q", "k", "v")
    for w, out in zip(("wq", "wk", "wv"), raw):
        _run(asm, Gemm(s, dm, dm, buf["h"], a(w), buf[out], transposed=True))
    if llama:
        for src, dst in (("qr", "q"), ("kr", "k")):
            asm.comment(f"{dst} = rope({dst})")
            rope_pass(asm, buf[src], buf[dst], a("cos"), a("sin"), s, hh, dh, ROW_BLOCK)
    asm.comment("causal attention")
    attention_pass(ctx, asm, buf["q"], buf["k"], buf["v"], buf["att"], s, hh, hh, dh, True,
                   "scale" if llama else None, None if llama else a("bias"), p["k_banks"])
    wo = Gemm(s, dm, dm, buf["att"], a("wo"), buf["x2"], transposed=True)
    _run(asm, wo, *other_block(asm, wo, a("x"), "add", _absolute(wo)))
    asm.comment("g = rms_norm(x2) * ffn_norm")
    row_pass(ctx, asm, rms_row, norm, {"gamma": a("ffn_norm")}, buf["x2"], buf["g"], s, dm, absolute=True,
             block_words=ROW_BLOCK)
    if llama:
        gate = Gemm(s, dm, f, buf["g"], a("w_gate"), buf["gate"], transposed=True)
        _run(asm, gate, epilogue=staged_map(ctx, silu_body, ("one", "neg_one"), p["unroll"]))
        up = Gemm(s, dm, f, buf["g"], a("w_up"), buf["hid"], transposed=True)
        _run(asm, up, *other_block(asm, up, buf["gate"], "mul", _absolute(up)))
        down = Gemm(s, f, dm, buf["hid"], a("w_down"), a("y"), transposed=True)
    else:
        inner = Gemm(s, dm, f, buf["g"], a("w_in"), buf["hid"], transposed=True)
        _run(asm, inner, epilogue=staged_map(ctx, _relu_body, (), p["unroll"]))
        down = Gemm(s, f, dm, buf["hid"], a("w_out"), a("y"), transposed=True)
    _run(asm, down, *other_block(asm, down, buf["x2"], "add", _absolute(down)))


def decoder_template(task: str, llama: bool) -> Template:
    def generate(ctx: Ctx, asm: Asm, p: dict) -> None:
        decoder_generate(ctx, asm, p, llama)

    def check(ctx: Ctx, p: dict) -> str | None:
        d = ctx.dims
        if p["unroll"] not in (1, 2):
            return "unroll must be 1 or 2"
        att = {"S": d["S"], "Hq": d["H"], "Hkv": d["H"], "D": d["D"]}
        problems = [check_attention(replace(ctx, dims=att), p),
                    check_shape(d["S"], d["Dm"], d["Dm"]), check_shape(d["S"], d["Dm"], d["F"]),
                    check_shape(d["S"], d["F"], d["Dm"]),
                    check_rope(d["S"], d["H"], d["D"], ROW_BLOCK) if llama else None]
        return next((x for x in problems if x), None)

    return Template(task=task, generate=generate, params={"k_banks": 1, "unroll": 1},
                    space={"k_banks": (1, 2), "unroll": (1, 2)}, doc=__doc__, check=check)
