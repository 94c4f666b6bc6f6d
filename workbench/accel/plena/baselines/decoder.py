"""Shared template of the pre-norm decoder blocks (decoder_block_llama, decoder_block_t5),
composed from the Level-1/2 templates in the order a compiler would lower the layer,
every intermediate bf16 in scratch:

  h = rms_norm(x) * attn_norm                       row-wise template
  q, k, v = h @ wq^T, h @ wk^T, h @ wv^T            contraction template
  (llama) q, k = rope(q), rope(k), in place         rope template
  a = causal attention(q, k, v)                     attention template ("rows"; T5 adds
                                                    its position bias, scale 1)
  x2 = x + a @ wo^T                                 contraction, residual fused in
  g = rms_norm(x2) * ffn_norm
  (llama) y = x2 + (silu(g @ w_gate^T) * (g @ w_up^T)) @ w_down^T     as swiglu
  (t5)    y = x2 + relu(g @ w_in^T) @ w_out^T                          relu fused

Tuning parameters: the contractions' `rows` and `ahead` (all linear layers) and the
attention's `strategy` (as attention_strategy).
"""
from __future__ import annotations

from . import attention, chain, rope, silu
from .rms_norm import row as rms_row
from .rowwise import _check as rowwise_check, emit_rowwise
from .template import Ctx, Template

PARAMS = {**chain.PARAMS, "attention_strategy": "rows"}
SPACE = {**chain.SPACE, "attention_strategy": ("rows", "online")}
ROPE = {"rows": 4, "ahead": 0}


class Plan:
    def __init__(self, ctx: Ctx, llama: bool):
        d, a = ctx.dims, ctx.addr
        self.ctx, self.llama = ctx, llama
        s, dm, f = d["S"], d["Dm"], d["F"]
        sc = self.scratch = chain.Scratch(ctx)
        self.h, self.q, self.k, self.v = (sc.take(s * dm, n) for n in ("h", "q", "k", "v"))
        self.att, self.x2, self.g = (sc.take(s * dm, n) for n in ("attention", "x2", "g"))
        self.tiles = sc.take(2 * ctx.hw.MLEN * ctx.hw.MLEN, "rope's constant tiles")
        self.hidden = sc.take(s * f, "the FFN hidden state")
        self.gate = sc.take(s * f, "the gate") if llama else None
        self.geo = attention.Geo(s, d["H"], d["H"], d["D"], True, ctx.hw.VLEN, ctx.hw.MLEN * ctx.hw.MLEN,
                                 bias=not llama)
        self.io = attention.Io(self.q, self.k, self.v, self.att, bias=None if llama else a("bias"),
                               scale="scale" if llama else "one")
        self.rope_dims = {"S": s, "H": d["H"], "D": d["D"]}

    def qkv(self) -> list[chain.Stage]:
        d, a = self.ctx.dims, self.ctx.addr
        s, dm = d["S"], d["Dm"]
        return [chain.Stage(n, self.h, a(w), dst, s, dm, dm)
                for n, w, dst in (("q", "wq", self.q), ("k", "wk", self.k), ("v", "wv", self.v))]

    def out_proj(self) -> list[chain.Stage]:
        d, a = self.ctx.dims, self.ctx.addr
        return [chain.Stage("o + residual", self.att, a("wo"), self.x2, d["S"], d["Dm"], d["Dm"],
                            epilogue=chain.Epilogue(operand=a("x"), op="add"))]

    def ffn(self) -> list[chain.Stage]:
        d, a = self.ctx.dims, self.ctx.addr
        s, dm, f = d["S"], d["Dm"], d["F"]
        residual = chain.Epilogue(operand=self.x2, op="add")
        if self.llama:
            return [chain.Stage("gate + silu", self.g, a("w_gate"), self.gate, s, dm, f,
                                epilogue=chain.Epilogue(body=silu.body, consts=("one", "neg_one"))),
                    chain.Stage("up * gate", self.g, a("w_up"), self.hidden, s, dm, f,
                                epilogue=chain.Epilogue(operand=self.gate, op="mul")),
                    chain.Stage("down + residual", self.hidden, a("w_down"), a("y"), s, f, dm,
                                epilogue=residual)]
        relu = chain.Epilogue(body=lambda asm, row, tmps, f: asm(f"V_MAX_VF {row}, {row}, f0, 0", "relu"))
        return [chain.Stage("in + relu", self.g, a("w_in"), self.hidden, s, dm, f, epilogue=relu),
                chain.Stage("out + residual", self.hidden, a("w_out"), a("y"), s, f, dm, epilogue=residual)]

    def check(self, p: dict) -> str | None:
        ctx = self.ctx
        shape = (ctx.dims["S"], ctx.dims["Dm"])
        problem = (chain.check(ctx, p, self.qkv() + self.out_proj() + self.ffn(), self.scratch)
                   or rowwise_check(ctx, p, 1, shape)
                   or attention.check(ctx, {"strategy": p["attention_strategy"], "ahead": 0}, self.geo))
        if problem is None and self.llama:
            problem = rope.check(ctx, ROPE, self.rope_dims)
        return problem

    def norm(self, asm, x: int, gain: str, y: int) -> None:
        ctx = self.ctx
        emit_rowwise(ctx, asm, rms_row, x, y, (ctx.dims["S"], ctx.dims["Dm"]),
                     {"eps": "eps", "inv_n": "inv_dm"}, {"gamma": ctx.addr(gain)})

    def generate(self, asm, p: dict) -> None:
        ctx = self.ctx
        asm.comment("h = rms_norm(x) * attn_norm")
        self.norm(asm, ctx.addr("x"), "attn_norm", self.h)
        chain.emit(asm, ctx, p, self.qkv())
        if self.llama:
            for t in (self.q, self.k):
                asm.comment("rope, in place")
                rope.emit_rope(ctx, asm, ROPE, {"x": t, "y": t, "cos": ctx.addr("cos"), "sin": ctx.addr("sin"),
                                                "scratch": self.tiles}, self.rope_dims)
        asm.comment("causal attention")
        attention.Kernel(ctx, asm, {"strategy": p["attention_strategy"], "ahead": 0}, self.io, self.geo).run()
        chain.emit(asm, ctx, p, self.out_proj())
        asm.comment("g = rms_norm(x2) * ffn_norm")
        self.norm(asm, self.x2, "ffn_norm", self.g)
        chain.emit(asm, ctx, p, self.ffn())


def decoder_template(task: str, llama: bool) -> Template:
    return Template(task=task, generate=lambda ctx, asm, p: Plan(ctx, llama).generate(asm, p),
                    params=dict(PARAMS), space=dict(SPACE), doc=__doc__,
                    check=lambda ctx, p: Plan(ctx, llama).check(p))
