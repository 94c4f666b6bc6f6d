"""Benchmark of the coral RTL under Verilator: simulation speed and build times.

    python3 -m kernelcraft.simulators.coral_rtl.bench [--hw small|default] [--cold]
    kernelcraft bench rtl --accel coral

Speed is measured on a scalar loop (integer arithmetic, a multiply, a load and a store
per iteration, a backward branch) and on a vector loop (e32 m8: a load, a vfmacc.vf, a
vfadd.vv and a store per iteration, the vector unit always busy), each in its own
simulator run; the start-up of a run
(process, cocotb, loading the job) is measured on an empty program and subtracted, so
"cycles/s" is the simulation proper. Build times: the cached lookup always; a cold
build (into an empty temporary cache) with --cold.
"""
from __future__ import annotations

import argparse
import resource
import time

from kernelcraft.isa.coral import default_config
from kernelcraft.simulators.core.backend import MemoryImage
from kernelcraft.simulators.core.budget import Budget

from . import build as rtl_build
from .backend import CoralRTL
from .randprog import TEST_CONFIG

SCALAR_LOOP = """
.text
    la s0, buf
    li a0, {n}
    li a1, 3
1:  add a2, a2, a1
    xor a3, a2, a0
    mul a4, a3, a1
    sw a4, 0(s0)
    lw a5, 4(s0)
    slli a6, a5, 1
    addi a0, a0, -1
    bnez a0, 1b
.data
buf: .word 0, 7
"""


VECTOR_LOOP = """
.text
    la s0, buf
    li a0, {n}
    li t0, 32
    vsetvli t1, t0, e32, m8, ta, ma
    fmv.w.x ft0, zero
1:  vle32.v v8, (s0)
    vfmacc.vf v16, ft0, v8
    vfadd.vv v24, v16, v8
    vse32.v v24, (s0)
    addi a0, a0, -1
    bnez a0, 1b
.data
.balign 16
buf: .zero 128
"""


def _child_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _timed_run(program, cfg, bulk: bool = False) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of the simulator process, cycles) of one RTL run."""
    t0, c0 = time.perf_counter(), _child_cpu()
    r = CoralRTL(bulk=bulk).run(program, MemoryImage(), cfg, Budget(max_instructions=10**9, wall_seconds=3600))
    if r.error is not None:
        raise RuntimeError(f"benchmark kernel failed on the RTL: {r.error}")
    return time.perf_counter() - t0, _child_cpu() - c0, r.cycles


def speeds(cfg, iterations: int = 500_000, repeats: int = 3, bulk: bool = False) -> dict[str, float]:
    """Print and return cycles/s of the scalar and vector loops (medians of `repeats`
    runs), under cocotb or, with `bulk`, from the C++ driver."""
    from statistics import median

    from kernelcraft.simulators.coral.assembler import assemble
    empty = assemble(".text\nnop\n", "empty.s", cfg)
    runs = [_timed_run(empty, cfg, bulk) for _ in range(repeats)]
    startup, startup_cpu = median(r[0] for r in runs), median(r[1] for r in runs)
    print(f"  start-up of a run (process, {'C++ driver' if bulk else 'cocotb'}, job files): {startup:.2f} s wall, "
          f"{startup_cpu:.2f} s CPU (median of {repeats})")
    out = {}
    # the vector loop takes 32 cycles an iteration, the scalar one 10: about the same run
    for name, source, n in (("scalar loop", SCALAR_LOOP, iterations),
                            ("vector loop", VECTOR_LOOP, iterations * 10 // 32)):
        loop = assemble(source.format(n=n), "loop.s", cfg)
        runs = [_timed_run(loop, cfg, bulk) for _ in range(repeats)]
        wall, cpu, cycles = (median(r[0] for r in runs), median(r[1] for r in runs), runs[0][2])
        sim, sim_cpu = max(wall - startup, 1e-9), max(cpu - startup_cpu, 1e-9)
        print(f"  {name} {cycles:>12,d} cycles {wall:6.2f} s  {cycles / sim:>11,.0f} /s wall "
              f"{cycles / sim_cpu:>11,.0f} /s CPU  ({cycles / wall:,.0f} /s with start-up)")
        out[name] = cycles / sim_cpu
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="coral-rtl-bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--hw", choices=("default", "small"), default="default",
                    help="hardware configuration: hardware.toml defaults, or the small "
                         "configuration of the RTL tests")
    ap.add_argument("--cold", action="store_true", help="also time a cold build into an empty cache")
    ap.add_argument("--iterations", type=int, default=500_000, help="scalar loop iterations")
    ap.add_argument("--mode", choices=("both", "cocotb", "bulk"), default="both",
                    help="how Verilator's model is driven: cocotb, the C++ driver of bulk "
                         "mode (simulators/rtl/bulk.py), or both side by side (default)")
    args = ap.parse_args(argv)
    cfg = default_config() if args.hw == "default" else default_config(**TEST_CONFIG)
    print(f"coral RTL on Verilator, {args.hw} configuration (ITCM {cfg.ITCM_SIZE} B, "
          f"DTCM {cfg.DTCM_SIZE} B at 0x{cfg.DTCM_BASE:x})")
    from kernelcraft.simulators.rtl.bench import modes
    modes(args.mode, rtl_build.spec, cfg, args.cold,
          lambda bulk: speeds(cfg, args.iterations, bulk=bulk))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
