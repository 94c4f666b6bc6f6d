"""ffn: y = gelu(x @ w1^T + b1) @ w2^T + b2 as two linear contractions (matmul.py);
gelu is fused into the first one's epilogue (on each bf16 block before it is written),
so the hidden activations go to scratch once. Tunable: `unroll` of the epilogue."""
from __future__ import annotations

from .asm import Asm
from .epilogues import staged_map
from .gelu import _body as gelu_body
from .matmul import Gemm, check_shape, contraction
from .template import Ctx, Template, dm_problem


def _gemms(ctx: Ctx) -> tuple[Gemm, Gemm]:
    d = ctx.dims
    s, dm, f, h = d["S"], d["Dm"], d["F"], ctx.addr("scratch")
    return (Gemm(s, dm, f, ctx.addr("x"), ctx.addr("w1"), h, transposed=True, bias=ctx.addr("b1")),
            Gemm(s, f, dm, h, ctx.addr("w2"), ctx.addr("y"), transposed=True, bias=ctx.addr("b2")))


def _generate(ctx: Ctx, asm: Asm, p: dict) -> None:
    up, down = _gemms(ctx)
    asm.comment(f"hidden = gelu(x @ w1^T + b1) into scratch: M={up.m} K={up.k} N={up.n}")
    contraction(asm, up, tag="1",
                epilogue=staged_map(ctx, gelu_body, ("one", "gelu_c2", "neg_gelu_c1"), p["unroll"]))
    asm.comment(f"y = hidden @ w2^T + b2: M={down.m} K={down.k} N={down.n}")
    contraction(asm, down, tag="2")


def _check(ctx: Ctx, p: dict) -> str | None:
    if p["unroll"] not in (1, 2):
        return "unroll must be 1 or 2"
    if problem := dm_problem(ctx):
        return problem
    return next((c for g in _gemms(ctx) if (c := check_shape(g.m, g.k, g.n))), None)


TEMPLATE = Template(task="ffn", generate=_generate, params={"unroll": 1}, space={"unroll": (1, 2)},
                    doc=__doc__, check=_check)
