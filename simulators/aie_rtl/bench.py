"""Benchmark of the aie RTL under Verilator: simulation speed and build time.

    python3 -m kernelcraft.simulators.aie_rtl.bench [--hw small|default] [--runs N]
    kernelcraft bench rtl --accel aie

Speed: a scalar-and-load loop (two loads, a store, scalar and move work per bundle)
run long, minus the start-up of a run (process, cocotb, loading program and data
memory through the host port) measured on a one-bundle program; figures are medians of
`--runs` runs. Vector work: a loop of lane-ALU operations (the part of the vector
unit built so far) beside loads and stores; a matrix kernel's inner loop (VMMAC.BF16
every bundle).
Build time: the cached lookup (a cold build is what the tests' first run pays).
Verilator is measured under cocotb and in bulk mode (the C++ driver,
simulators/rtl/bulk.py), side by side; --mode picks one. Rates are by the simulator
process's CPU time (steady on a shared machine), start-up subtracted.
"""
from __future__ import annotations

import argparse
import resource
import statistics
import time

from kernelcraft.isa.aie import default_config
from kernelcraft.simulators.aie.assembler import assemble
from kernelcraft.simulators.core.backend import MemoryImage
from kernelcraft.simulators.core.budget import Budget
from kernelcraft.simulators.core.backend import Job

from . import build as rtl_build
from .backend import AieRTL
from .randprog import DIFF_CONFIG

SCALAR_LOAD_LOOP = """
MOVPI p0, 0
MOVPI p1, 1024
MOVPI p2, 2048
MOVI r1, 4
MOVM m0, r1
LOOP {n}
    LD r2, [p0], 4 || VLD x1, [p1], 64 || ST r4, [p2], 4 || ADD r4, r4, r6 || VMOV x2, x4
    LD r5, [p0], -4 || VLD x3, [p1], -64 || ST r6, [p2], -4 || ADDI r7, r7, 1 || MOVM m1, r8
ENDLOOP
"""

# a matrix kernel's inner loop: VMMAC.BF16 every bundle, chaining onto its accumulator
MAC_LOOP = """
MOVPI p0, 0
MOVPI p1, 1024
LOOP {n}
    VLD x1, [p0], 64 || VLD x2, [p1], 64 || VMMAC.BF16 acc0, x4, y3
    VLD x3, [p0], -64 || VLD x5, [p1], -64 || VMMAC.BF16 acc0, x0, y3
ENDLOOP
"""

VECTOR_LOOP = """
MOVPI p0, 0
MOVPI p1, 1024
LOOP {n}
    VLD x1, [p0], 64 || VST x4, [p1], 64 || VADD.I16 x3, x5, x6 || VMOV x7, x3
    VLD x2, [p0], -64 || VST x3, [p1], -64 || VMAX.I8 x4, x6, x5
ENDLOOP
"""


def _child_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _time(rtl, program, cfg, runs) -> tuple[float, int]:
    """(median CPU seconds of the simulator process, cycles) of `runs` runs."""
    times, cycles = [], 0
    for _ in range(runs):
        c = _child_cpu()
        r = rtl.run_many([Job(program, MemoryImage({}), Budget(max_instructions=10**9,
                                                               wall_seconds=600))], cfg)[0]
        times.append(_child_cpu() - c)
        if r.error is not None:
            raise SystemExit(f"benchmark kernel failed on the RTL: {r.error}")
        cycles = r.cycles
    return statistics.median(times), cycles


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="kernelcraft bench rtl --accel aie", description=__doc__)
    ap.add_argument("--accel", default="aie", choices=("aie",))
    ap.add_argument("--hw", choices=("small", "default"), default="small")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=250_000)
    ap.add_argument("--mode", choices=("both", "cocotb", "bulk"), default="both",
                    help="how Verilator's model is driven: cocotb, the C++ driver of bulk "
                         "mode, or both side by side (default)")
    args = ap.parse_args(argv)   # None: the command line (python -m)
    cfg = default_config(**DIFF_CONFIG) if args.hw == "small" else default_config()
    speeds = {}
    for mode in (("cocotb", "bulk") if args.mode == "both" else (args.mode,)):
        speeds[mode] = _speeds(cfg, args, mode == "bulk")
    if len(speeds) == 2:
        from kernelcraft.simulators.rtl.bench import side_by_side
        side_by_side(speeds)
    return 0


def _speeds(cfg, args, bulk: bool) -> dict[str, float]:
    """Print, and return as cycles/s, each loop's speed in one mode."""
    from kernelcraft.simulators.rtl import jobrun
    t = time.perf_counter()
    b = jobrun.build(rtl_build.spec(cfg), "verilator", bulk)
    print(f"aie RTL ({args.hw} configuration), {'bulk' if bulk else 'cocotb'} mode: build "
          f"{'cached' if b.cached else 'cold'} {time.perf_counter() - t:.2f} s")
    rtl = AieRTL(bulk=bulk)
    empty = assemble("NOP\n", "empty.asm", cfg)
    start, _ = _time(rtl, empty, cfg, args.runs)
    n = args.iterations
    print(f"start-up of a run: {start:.3f} s CPU (median of {args.runs})")
    out = {}
    # (what, source, bundles besides the loop's 2 per iteration)
    for what, source, extra in (("scalar-and-load loop", SCALAR_LOAD_LOOP, 6),
                                ("vector-ALU loop (VADD/VMAX, loads, stores)", VECTOR_LOOP, 3),
                                ("matrix loop (VMMAC.BF16 every bundle, two loads)", MAC_LOOP, 3)):
        total, cycles = _time(rtl, assemble(source.format(n=n), "bench.asm", cfg), cfg, args.runs)
        bundles = 2 * n + extra
        sim = max(total - start, 1e-9)
        print(f"{what}: {bundles:,} bundles, {cycles:,} cycles in {total:.3f} s CPU; without "
              f"start-up {bundles / sim / 1e6:.3f} M bundles/s, {cycles / sim / 1e6:.3f} M cycles/s")
        out[what.split(" (")[0]] = cycles / sim
    return out


if __name__ == "__main__":
    raise SystemExit(main())
