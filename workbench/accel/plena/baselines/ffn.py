"""ffn: y = gelu(x @ w1^T + b1) @ w2^T + b2, two linear layers with gelu fused into the
first one's epilogue (each hidden chunk: rounded, + b1, gelu, in Vector SRAM) and the
bf16 hidden state spilled to scratch between them."""
from __future__ import annotations

from . import chain, gelu
from .template import Ctx, Template

GELU_CONSTS = ("one", "gelu_c2", "neg_gelu_c1")


def _stages(ctx: Ctx) -> tuple[list[chain.Stage], chain.Scratch]:
    d, a = ctx.dims, ctx.addr
    s, dm, f = d["S"], d["Dm"], d["F"]
    scratch = chain.Scratch(ctx)
    h = scratch.take(s * f, "the hidden state")
    return [chain.Stage("up + gelu", a("x"), a("w1"), h, s, dm, f, bias=a("b1"),
                        epilogue=chain.Epilogue(body=gelu.body, consts=GELU_CONSTS)),
            chain.Stage("down", h, a("w2"), a("y"), s, f, dm, bias=a("b2"))], scratch


def _generate(ctx, asm, p):
    chain.emit(asm, ctx, p, _stages(ctx)[0])


TEMPLATE = Template(task="ffn", generate=_generate, params=dict(chain.PARAMS), space=dict(chain.SPACE),
                    doc=__doc__, check=lambda ctx, p: chain.check(ctx, p, *_stages(ctx)))
