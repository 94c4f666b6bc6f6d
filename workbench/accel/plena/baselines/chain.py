"""Chains of linear layers for Level-2/3 templates (ffn, swiglu, the decoder blocks).

Each `Stage` is one y = x @ w^T (+ bias) (+ fused epilogue) on HBM tensors, emitted by
the shared contraction template (matmul.py) with the chain's tuning parameters;
intermediates live in the layout's scratch region, bf16, as a compiler would spill
them. A `Scratch` hands out block-aligned pieces of that region.
"""
from __future__ import annotations

from dataclasses import dataclass

from .asm import Asm
from .matmul import PARAMS, SPACE, Contraction, Epilogue, Operands, Plan
from .template import Ctx

FREGS = ("f1", "f2", "f3", "f4", "f5", "f6", "f7")

__all__ = ["PARAMS", "SPACE", "Epilogue", "Scratch", "Stage", "check", "emit", "load_consts"]


@dataclass(frozen=True)
class Stage:
    """y [m, n] = x [m, k] @ w^T (w [n, k]) (+ bias [n]) then `epilogue`, at HBM addresses."""
    name: str
    x: int
    w: int
    y: int
    m: int
    k: int
    n: int
    bias: int | None = None
    epilogue: Epilogue | None = None

    def plan(self, ctx: Ctx, p: dict) -> Plan:
        e = self.epilogue
        return Plan(ctx.hw, self.m, self.k, self.n, p["rows"], p["ahead"], True, self.bias is not None,
                    mul=bool(e and e.operand is not None), tmp=bool(e and e.body is not None))


class Scratch:
    """Consecutive pieces of the layout's scratch region, each starting on a transfer block."""

    def __init__(self, ctx: Ctx):
        region = ctx.layout.region("scratch")
        self.next, self.end = region.address, region.address + region.reserved
        self.block = ctx.hw.HBM_V_WRITEBACK_AMOUNT * ctx.hw.VLEN
        self.short = ""

    def take(self, elems: int, what: str) -> int:
        addr = self.next
        self.next += -(-elems // self.block) * self.block
        if self.next > self.end and not self.short:
            self.short = f"scratch too small for {what} ({elems} elements)"
        return addr


def load_consts(asm: Asm, ctx: Ctx, names) -> dict[str, str]:
    """Task constants into f1..f7 (each once, in first-use order)."""
    fregs: dict[str, str] = {}
    for name in names:
        if name not in fregs:
            if len(fregs) == len(FREGS):
                raise ValueError(f"more than {len(FREGS)} constants: {names}")
            fregs[name] = FREGS[len(fregs)]
            asm(f"S_LD_FP {fregs[name]}, gp0, {ctx.const(name)}", f"{fregs[name]} = {name}")
    return fregs


def check(ctx: Ctx, p: dict, stages: list[Stage], scratch: Scratch | None = None) -> str | None:
    if scratch is not None and scratch.short:
        return scratch.short
    for s in stages:
        problem = s.plan(ctx, p).check()
        if problem:
            return f"stage {s.name}: {problem}"
    return None


def emit(asm: Asm, ctx: Ctx, p: dict, stages: list[Stage], fregs: dict[str, str] | None = None) -> None:
    if fregs is None:
        fregs = load_consts(asm, ctx, [c for s in stages if s.epilogue for c in s.epilogue.consts])
    for s in stages:
        asm.comment(f"stage {s.name}: [{s.m}, {s.k}] @ [{s.n}, {s.k}]^T")
        Contraction(asm, s.plan(ctx, p), s.bias, s.epilogue, fregs).run([Operands(s.x, s.w, s.y)])
