"""Speed of the aie functional model: bundles per second on a scalar loop, a load/store
loop, an fp32 vector loop, and MACs per second on a VMMAC.BF16 contraction loop (median
of several runs each, default configuration), how much slower traced runs are, and the
wall time of the Level-1 baseline suite as `kernelcraft suite --accel aie` evaluates it
(every cell, three seeds plus the edge cases; median of several runs).

Run: `kernelcraft bench aie-model` (or `python -m simulators.aie.bench`); `--suite-runs 0`
skips the suite.
"""
from __future__ import annotations

import argparse
import statistics
import time

from isa.aie import default_config
from simulators.core.backend import MemoryImage

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


def suite_seconds(runs: int = 3, n_seeds: int = 3) -> tuple[float, int, int]:
    """(median wall seconds, cells, kernel runs) of evaluating every aie Level-1 baseline
    as `kernelcraft suite` does; every cell must pass."""
    from workbench.evaluation import _baseline_run
    from workbench.suite import evaluate_cells, suite_cells
    cfg = default_config()
    cells = suite_cells("aie", 1)
    times, kernel_runs = [], 0
    for _ in range(runs):
        _baseline_run.cache_clear()
        t = time.perf_counter()
        results = evaluate_cells("aie", cells, cfg, n_seeds)
        times.append(time.perf_counter() - t)
        bad = [f"{task} {config}" for task, config, ev, _ in results if not (ev and ev.passed)]
        if bad:
            raise RuntimeError(f"{len(bad)} aie Level-1 cells failed: {', '.join(bad[:5])}")
        kernel_runs = sum(len(ev.sets) for _, _, ev, _ in results)
    return statistics.median(times), len(cells), kernel_runs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="kernelcraft bench aie-model", description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=5, help="runs per loop (median)")
    ap.add_argument("--suite-runs", type=int, default=3, help="runs of the Level-1 suite (median); 0 skips it")
    a = ap.parse_args(argv)
    for kind in LOOPS:
        sec, bundles = measure(kind, repeats=a.repeats)
        line = f"{kind:7s} {bundles / sec / 1e3:8.1f} k bundles/s ({sec / bundles * 1e6:.2f} us per bundle)"
        if kind in MACS_PER_ITERATION:
            macs = MACS_PER_ITERATION[kind] * 20000
            line += f", {macs / sec / 1e6:.1f} M MACs/s"
        print(line, flush=True)
    plain, _ = measure("memory", n=5000, repeats=a.repeats)
    traced, _ = measure("memory", n=5000, repeats=a.repeats, trace=True)
    print(f"traced runs are {traced / plain:.1f}x slower (memory loop)", flush=True)
    if a.suite_runs > 0:
        sec, cells, runs = suite_seconds(a.suite_runs)
        print(f"Level-1 suite: {cells} cells, {runs} kernel runs (3 seeds + edge cases each), "
              f"median {sec:.1f} s over {a.suite_runs} runs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
