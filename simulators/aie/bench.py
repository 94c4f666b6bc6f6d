"""Speed of the aie functional model: bundles per second on a scalar loop, a load/store
loop, an fp32 vector loop, and MACs per second on a VMMAC.BF16 contraction loop (median
of several runs each, default configuration), and how much slower traced runs are.
The command, which also times the Level-1 baseline suite, is `kernelcraft bench
aie-model` (workbench/accel/aie/bench.py).
"""
from __future__ import annotations

import statistics
import time

from kernelcraft.isa.aie import default_config
from kernelcraft.simulators.core.backend import MemoryImage

from .assembler import assemble
from .machine import AieModel

LOOPS = {
    "scalar": """
    LOOP {n}
        ADDI r2, r2, 1 || MOVI r5, 3
        ADD r3, r3, r2 || MOV r6, r3
        MUL r4, r3, r2
    ENDLOOP""",
    "memory": """
    LOOP {n}
        VLD x0, [p0], 64 || VLD x1, [p1], 64 || VST x2, [p2], 64
        VLD x3, [p0], -64 || VLD x4, [p1], -64 || VST x5, [p2], -64
    ENDLOOP""",
    "vector": """
    LOOP {n}
        VLD x0, [p0] || VUPS.BF16 acc0, x1
        AMUL.F32 acc1, acc0, acc0
        VPWL.EXP acc2, acc1
        AADD.F32 acc3, acc2, acc0
        VSRS.BF16 x2, acc3 || VST x2, [p1]
    ENDLOOP""",
    # software-pipelined element-wise rows: each iteration stores the row the previous
    # one computed; tiles of 64 rows, pointers reset per tile
    "pipelined": """
    MOVPI p1, 16384
    LOOP {n}
        LOOP 64
            VLD x0, [p0], 64 || VST x2, [p1], 64
            VUPS.BF16 acc0, x0
            AMUL.F32 acc1, acc0, acc0
            VPWL.EXP acc2, acc1
            AADD.F32 acc3, acc2, acc0
            VSRS.BF16 x2, acc3
        ENDLOOP
        MOVPI p0, 0
        MOVPI p1, 16384
    ENDLOOP""",
    # straight-line attention-like work no loop plan fast-forwards (an agent's kernel, or
    # a baseline's long unrolled body): score tiles, a bf16 max, exp, a weighted sum
    "straight": """
    LOOP {n}
        MOVPI p0, 0
        MOVPI p1, 4096
        MOVPI p2, 8192
        ABCST acc0, r0
        ABCST acc1, r0 || VLD x12, [p1], 64 || VLD x0, [p0], 64
        VLD x13, [p1], 64 || VLD x1, [p0], 64
        VMMAC.BF16 acc0, x0, y6 || VLD x2, [p0], 64
        VMMAC.BF16 acc1, x1, y6 || VLD x3, [p0], 64
        VMMAC.BF16 acc0, x2, y6
        VMMAC.BF16 acc1, x3, y6
        VSRS.BF16 x4, acc0
        VSRS.BF16 x5, acc1
        VMAX.BF16 x6, x4, x5
        VMIN.BF16 x6, x6, x12 || VLD x9, [p2]
        VUPS.BF16 acc2, x6
        VPWL.EXP acc2, acc2
        AMUL.F32 acc3, acc2, acc2
        VSRS.BF16 x7, acc3 || ALD acc4, [p2]
        VMAC.BF16 acc4, x7, x9
        AST acc4, [p2], 128
    ENDLOOP""",
    "vmmac": """
    LOOP {n}
        VLD x0, [p0], 64 || VLD x4, [p2], 64
        VLD x1, [p1], 64 || VLD x5, [p2], -64 || VMMAC.BF16 acc0, x0, y2
        VMMAC.BF16 acc1, x1, y2 || VLD x0, [p0], -64 || VLD x1, [p1], -64
        VMMAC.BF16 acc2, x0, y3
        VMMAC.BF16 acc3, x1, y3
    ENDLOOP
    VSRS.BF16 x8, acc0""",
}
# Workload classes of `kernelcraft bench speed` (simulators/speed.py): (what, source, trips).
SPEED = {
    "scalar": ("scalar bundles (add, mul, moves; zero-overhead loop)", LOOPS["scalar"], 20_000),
    "vector": ("vector bundles (load, upshift, multiply, exp, add, shift-round, store)", LOOPS["vector"], 5_000),
    "pipelined": ("the same work on 64-row tiles, software-pipelined store", LOOPS["pipelined"], 100),
    "straight": ("straight-line bundles (score tiles, bf16 max/min, exp, multiply-accumulate, "
                 "accumulator load/store)", LOOPS["straight"], 2_000),
}
MACS_PER_ITERATION = {"vmmac": 4 * 256}


def measure(kind: str, n: int = 20000, repeats: int = 5, trace: bool = False) -> tuple[float, int]:
    """(median seconds, bundles retired) of one loop."""
    cfg = default_config()
    program = assemble(LOOPS[kind].format(n=n), kind, cfg)
    times, retired = [], 0
    for _ in range(repeats):
        t = time.perf_counter()
        r = AieModel().run(program, MemoryImage(), cfg, trace=trace)
        times.append(time.perf_counter() - t)
        if r.error:
            raise RuntimeError(str(r.error))
        retired = r.retired
    return statistics.median(times), retired


def status() -> str:
    """Whether the vector statements run lanes.c's C loops (for `kernelcraft bench speed`)."""
    from .lanes import status as lanes_status
    return lanes_status()
