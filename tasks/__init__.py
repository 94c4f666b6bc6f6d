"""The KernelCraft task suite: 23 operators in three levels (see tasks/README.md).

    get_task("softmax").generate("C1", seed=0)
    all_tasks(level=2)
"""
from __future__ import annotations

from .core import Task, TensorSpec, Work
from .level1.conv import Conv2d, DepthwiseConv
from .level1.elementwise import Gelu, Relu, Silu
from .level1.matmul import BatchMatmul, Gemm, Gemv, Linear
from .level1.rowwise import LayerNorm, RmsNorm, Softmax
from .level2.attention import FlashAttention, Gqa, Mha, Mqa, ScaledDotProduct
from .level2.mlp import Ffn, Swiglu
from .level2.rope import Rope
from .level3.conv_block import ConvBlock
from .level3.decoder import DecoderBlockLlama, DecoderBlockT5

LEVEL_BUDGET = {1: 15, 2: 20, 3: 25}   # agent iterations allowed per level

_SUITE: tuple[Task, ...] = tuple(cls() for cls in (
    Silu, Relu, Gelu, Softmax, LayerNorm, RmsNorm, Gemv, Gemm, BatchMatmul, Linear, Conv2d, DepthwiseConv,
    Rope, Ffn, Swiglu, ScaledDotProduct, FlashAttention, Mha, Gqa, Mqa,
    ConvBlock, DecoderBlockLlama, DecoderBlockT5,
))
_BY_NAME = {t.name: t for t in _SUITE}


def get_task(name: str) -> Task:
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"no task {name!r}; tasks: {', '.join(_BY_NAME)}") from None


def all_tasks(level: int | None = None) -> list[Task]:
    """Tasks in suite order, optionally those of one level."""
    if level is not None and level not in LEVEL_BUDGET:
        raise ValueError(f"no level {level!r}; levels: {', '.join(map(str, LEVEL_BUDGET))}")
    return [t for t in _SUITE if level is None or t.level == level]


__all__ = ["LEVEL_BUDGET", "Task", "TensorSpec", "Work", "all_tasks", "get_task"]
