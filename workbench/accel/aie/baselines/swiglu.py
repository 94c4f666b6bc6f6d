"""swiglu: y = (silu(x @ w_gate^T) * (x @ w_up^T)) @ w_down^T as three contractions
(matmul.py): the gate's with silu fused into its epilogue (to scratch), the up
projection's multiplying each block by the gate's block (prefetched while it computes),
and the down projection. Tunable: `unroll` of the silu epilogue."""
from __future__ import annotations

from .asm import Asm
from .epilogues import other_block, staged_map
from .matmul import Gemm, check_shape, contraction
from .silu import _body as silu_body
from .template import Ctx, Template, dm_problem


def _gemms(ctx: Ctx) -> tuple[Gemm, Gemm, Gemm]:
    d = ctx.dims
    s, dm, f = d["S"], d["Dm"], d["F"]
    gate, hidden = ctx.addr("scratch"), ctx.addr("scratch") + s * f
    x = ctx.addr("x")
    return (Gemm(s, dm, f, x, ctx.addr("w_gate"), gate, transposed=True),
            Gemm(s, dm, f, x, ctx.addr("w_up"), hidden, transposed=True),
            Gemm(s, f, dm, hidden, ctx.addr("w_down"), ctx.addr("y"), transposed=True))


def _generate(ctx: Ctx, asm: Asm, p: dict) -> None:
    gate, up, down = _gemms(ctx)
    asm.comment(f"gate = silu(x @ w_gate^T) into scratch: M={gate.m} K={gate.k} N={gate.n}")
    contraction(asm, gate, tag="G", epilogue=staged_map(ctx, silu_body, ("one", "neg_one"), p["unroll"]))
    asm.comment("hidden = gate * (x @ w_up^T) into scratch")
    prefetch, times_gate = other_block(asm, up, gate.c)
    contraction(asm, up, tag="U", prefetch=prefetch, epilogue=times_gate)
    asm.comment(f"y = hidden @ w_down^T: M={down.m} K={down.k} N={down.n}")
    contraction(asm, down, tag="D")


def _check(ctx: Ctx, p: dict) -> str | None:
    if p["unroll"] not in (1, 2):
        return "unroll must be 1 or 2"
    if problem := dm_problem(ctx):
        return problem
    return next((c for g in _gemms(ctx) if (c := check_shape(g.m, g.k, g.n))), None)


TEMPLATE = Template(task="swiglu", generate=_generate, params={"unroll": 1}, space={"unroll": (1, 2)},
                    doc=__doc__, check=_check)
