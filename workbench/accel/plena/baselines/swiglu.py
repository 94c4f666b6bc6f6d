"""swiglu: y = (silu(x @ w_gate^T) * (x @ w_up^T)) @ w_down^T as three linear layers:
the gate with silu fused into its epilogue, the up projection with the product by the
gate fused into its epilogue (the gate's block is fetched beside the out buffer), and
the down projection; bf16 intermediates in scratch."""
from __future__ import annotations

from . import chain, silu
from .template import Ctx, Template


def _stages(ctx: Ctx) -> tuple[list[chain.Stage], chain.Scratch]:
    d, a = ctx.dims, ctx.addr
    s, dm, f = d["S"], d["Dm"], d["F"]
    scratch = chain.Scratch(ctx)
    gate, hidden = scratch.take(s * f, "the gate"), scratch.take(s * f, "the hidden state")
    return [chain.Stage("gate + silu", a("x"), a("w_gate"), gate, s, dm, f,
                        epilogue=chain.Epilogue(body=silu.body, consts=("one", "neg_one"))),
            chain.Stage("up * gate", a("x"), a("w_up"), hidden, s, dm, f,
                        epilogue=chain.Epilogue(operand=gate, op="mul")),
            chain.Stage("down", hidden, a("w_down"), a("y"), s, f, dm)], scratch


def _generate(ctx, asm, p):
    chain.emit(asm, ctx, p, _stages(ctx)[0])


TEMPLATE = Template(task="swiglu", generate=_generate, params=dict(chain.PARAMS), space=dict(chain.SPACE),
                    doc=__doc__, check=lambda ctx, p: chain.check(ctx, p, *_stages(ctx)))
