"""Benchmark of the plena RTL under Verilator and Icarus Verilog: simulation speed and
build times.

    python3 -m kernelcraft.simulators.plena_rtl.bench [--hw small|default] [--cold] [--sim ...]
    kernelcraft bench rtl
    kernelcraft rtl-check --accel plena --bench

Verilator is measured in both modes, side by side: under cocotb (the tests' and
lockstep's) and in bulk mode (the C++ driver, simulators/rtl/bulk.py); --mode picks one.

Speed is measured on three kernels (a scalar loop, the silu baseline: vector unit and
DMA, the gemm baseline: matrix unit) in separate simulator runs; the start-up of a run
(process, cocotb, loading the job) is measured on an empty program and reported apart,
so "cycles/s" is the simulation proper. Build times: the cached lookup always; the cold
build (into an empty temporary cache) with --cold, which takes minutes.

Icarus is measured on the small configuration of the differential tests (a scalar
loop and a vector loop: exp, multiply, sum), beside Verilator on the same kernels run
100 times longer:
Icarus reads and writes all of HBM as text, so the default configuration's 32 MB HBM
alone would dominate its runs.
"""
from __future__ import annotations

import argparse
import resource
import time

from kernelcraft.isa.plena import default_config
from kernelcraft.simulators.core.backend import MemoryImage
from kernelcraft.simulators.core.budget import Budget

from . import build as rtl_build
from .backend import PlenaRTL
from .randprog import DIFF_CONFIG

SCALAR_LOOP = """
C_LOOP_START gp1, {n}
  S_ADDI_INT gp2, gp2, 1
  S_ADDI_INT gp3, gp3, -1
  S_EXP_FP f1, f2
  S_ADD_FP f2, f2, f1
C_LOOP_END gp1
"""

# Vector unit: exp, multiply and a reduction over up to VECTOR_ROWS rows of random data
# (changing operands: an event-driven simulator does no work for operands that stay
# the same).
VECTOR_LOOP = """
S_ADDI_INT gp3, gp0, {out0}
S_ADDI_INT gp4, gp0, {out1}
C_LOOP_START gp1, {n}
  S_ADDI_INT gp2, gp0, 0
  C_LOOP_START gp6, {rows}
    V_EXP_V gp3, gp2, 0
    V_MUL_VV gp4, gp3, gp2, 0
    V_RED_SUM f2, gp4
    S_ADDI_INT gp2, gp2, {vlen}
  C_LOOP_END gp6
C_LOOP_END gp1
"""
VECTOR_ROWS = 64


def _child_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _timed_run(program, image, cfg, simulator: str = "verilator",
               bulk: bool = False) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of the simulator process, cycles) of one RTL run."""
    t0, c0 = time.perf_counter(), _child_cpu()
    r = PlenaRTL(simulator, bulk=bulk).run(program, image, cfg,
                                Budget(max_instructions=10**9, wall_seconds=3600))
    if r.error is not None:
        raise RuntimeError(f"benchmark kernel failed on the RTL: {r.error}")
    return time.perf_counter() - t0, _child_cpu() - c0, r.cycles


def _kernels(cfg, default_hw: bool, baseline=None):
    from kernelcraft.simulators.plena.assembler import assemble
    out = [("scalar loop", assemble(SCALAR_LOOP.format(n=200_000), "loop.asm", cfg), MemoryImage())]
    if not default_hw:
        out.append(_vector_loop(cfg, 500, VECTOR_ROWS))
    if default_hw and baseline is not None:
        for task, config, what in (("silu", "C5", "vector + DMA"), ("gemm", "C4", "matrix")):
            out.append(baseline(cfg, task, config, what))
    return out


def _vector_loop(cfg, n: int, rows: int):
    import numpy as np

    from kernelcraft.simulators.numerics import f32_to_bf16_bits
    from kernelcraft.simulators.plena.assembler import assemble
    src = VECTOR_LOOP.format(n=n, rows=rows, vlen=cfg.VLEN, out0=VECTOR_ROWS * cfg.VLEN,
                             out1=(VECTOR_ROWS + 1) * cfg.VLEN)
    data = np.random.default_rng(0).uniform(-2, 2, VECTOR_ROWS * cfg.VLEN).astype(np.float32)
    image = MemoryImage().put("vsram", 0, f32_to_bf16_bits(data))
    return ("vector loop (exp, mul, sum)", assemble(src, "vloop.asm", cfg), image)


def _icarus_kernels(cfg, scale: int):
    """The kernels measured on both simulators (small configuration): scale 1 for
    Icarus (16 rows of the vector loop: a few seconds), longer for Verilator so that
    its runs are long enough to time."""
    from kernelcraft.simulators.plena.assembler import assemble
    return [("scalar loop", assemble(SCALAR_LOOP.format(n=5_000 * scale), "loop.asm", cfg),
             MemoryImage()),
            _vector_loop(cfg, scale, VECTOR_ROWS if scale > 1 else 16)]


def _speeds(cfg, kernels, simulator: str, bulk: bool = False) -> dict[str, float]:
    """Print and return cycles/s (by CPU time, start-up subtracted) per kernel."""
    from kernelcraft.simulators.plena.assembler import assemble
    empty = assemble("S_ADDI_INT gp1, gp0, 1", "empty.asm", cfg)
    runs = [_timed_run(empty, MemoryImage(), cfg, simulator, bulk) for _ in range(2)]
    startup, startup_cpu = min(r[0] for r in runs), min(r[1] for r in runs)
    print(f"  start-up of a run (process, {'C++ driver' if bulk else 'cocotb'}, job files): "
          f"{startup:.2f} s wall, "
          f"{startup_cpu:.2f} s CPU")
    print("  cycles/s: simulation proper (start-up subtracted), by wall clock and by the "
          "simulator's CPU time (steady on a shared machine)")
    speeds = {}
    for name, program, image in kernels:
        wall, cpu, cycles = _timed_run(program, image, cfg, simulator, bulk)
        sim, sim_cpu = max(wall - startup, 1e-9), max(cpu - startup_cpu, 1e-9)
        speeds[name] = cycles / sim_cpu
        print(f"  {name:34s} {cycles:>9,d} cycles {wall:6.2f} s  {cycles / sim:>9,.0f} /s wall "
              f"{cycles / sim_cpu:>9,.0f} /s CPU  ({cycles / wall:,.0f} /s with start-up)")
    return speeds


def _icarus(args) -> None:
    """Icarus against Verilator on the same kernels of the small configuration."""
    cfg = default_config(**DIFF_CONFIG)
    t0 = time.perf_counter()
    b = rtl_build.build(cfg, "icarus")
    print(f"\nplena RTL on Icarus Verilog, small configuration (MLEN={cfg.MLEN}, BLEN={cfg.BLEN}, "
          f"VLEN={cfg.VLEN}); build {'cached' if b.cached else 'cold'} "
          f"{time.perf_counter() - t0:.2f} s")
    icarus = _speeds(cfg, _icarus_kernels(cfg, 1), "icarus")
    if args.sim == "icarus":
        return
    print("plena RTL on Verilator, the same kernels (run longer) and configuration")
    verilator = _speeds(cfg, _icarus_kernels(cfg, 100), "verilator")
    for name in icarus:
        print(f"  {name:34s} Verilator is {verilator[name] / icarus[name]:,.0f}x faster")


def main(argv: list[str] | None = None, baseline=None) -> int:
    """`baseline(cfg, task, config, what)` -> (name, program, image) of a task's baseline
    kernel (the workbench's; simulators do not import it): measured on the default
    configuration beside the scalar loop."""
    ap = argparse.ArgumentParser(prog="plena-rtl-bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--hw", choices=("default", "small"), default="default",
                    help="hardware configuration: hardware.toml defaults, or the small "
                         "configuration of the differential tests")
    ap.add_argument("--cold", action="store_true",
                    help="also time a cold build into an empty cache (minutes)")
    ap.add_argument("--mode", choices=("both", "cocotb", "bulk"), default="both",
                    help="how Verilator's model is driven: cocotb, the C++ driver of bulk "
                         "mode (simulators/rtl/bulk.py), or both side by side (default)")
    ap.add_argument("--sim", choices=("both", "verilator", "icarus"), default="both",
                    help="simulators to measure (default both; Icarus on the small "
                         "configuration only)")
    args = ap.parse_args(argv)
    if args.sim == "icarus":
        _icarus(args)
        return 0
    cfg = default_config() if args.hw == "default" else default_config(**DIFF_CONFIG)
    print(f"plena RTL on Verilator, {args.hw} configuration "
          f"(MLEN={cfg.MLEN}, BLEN={cfg.BLEN}, VLEN={cfg.VLEN})")

    from kernelcraft.simulators.rtl.bench import modes
    kernels = _kernels(cfg, args.hw == "default", baseline)
    modes(args.mode, rtl_build.spec, cfg, args.cold,
          lambda bulk: _speeds(cfg, kernels, "verilator", bulk))
    if args.sim == "both":
        _icarus(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
