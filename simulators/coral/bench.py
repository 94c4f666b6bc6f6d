"""Speed of the coral functional model: simulated instructions per second on a
scalar loop (integer arithmetic, loads and stores, a branch per iteration), a
vector loop (fp32 multiply-add over LMUL = 8 groups), and how much slower traced runs
are (median of several runs each, default configuration).

Run: `python -m simulators.coral.bench` or `kernelcraft bench coral-model`.
"""
from __future__ import annotations

import statistics

from isa.coral import default_config
from simulators.core.backend import MemoryImage

from .assembler import assemble
from .machine import CoralModel

SCALAR = """
    li a0, {n}
    la s0, buf
loop:
    addi a1, a1, 1
    add a2, a2, a1
    mul a3, a2, a1
    lw a4, 0(s0)
    xor a5, a4, a3
    sw a5, 4(s0)
    addi a0, a0, -1
    bnez a0, loop
    ebreak
    .data
buf: .zero 8
"""
VECTOR = """
    li a0, {n}
    la s0, buf
    flw fa0, half, t0
    vsetvli t0, zero, e32, m8, ta, ma
    vle32.v v8, (s0)
    addi s1, s0, 128
    vle32.v v24, (s1)
loop:
    vfmul.vf v16, v16, fa0
    vfmacc.vv v16, v8, v24
    vfadd.vv v0, v16, v8
    addi a0, a0, -1
    bnez a0, loop
    ebreak
    .data
half: .float 0.5
buf: .float """ + ", ".join(f"{0.1 * k + 0.37:.6f}" for k in range(64)) + """
"""
# Loop trip counts: plain runs, traced runs (which keep every step in memory).
SIZES = {"scalar": (250_000, 20_000), "vector": (2_000, 200)}


def _rate(source: str, n: int, trace: bool, repeats: int) -> tuple[float, int]:
    """Median retired instructions per second of `repeats` runs, and instructions."""
    cfg = default_config()
    program = assemble(source.format(n=n), "bench.s", cfg)
    model = CoralModel()
    rates = []
    for _ in range(repeats):
        result = model.run(program, MemoryImage(), cfg, trace=trace)
        if result.error is not None:
            raise RuntimeError(f"benchmark kernel failed: {result.error}")
        rates.append(result.retired / result.wall_seconds)
    return statistics.median(rates), result.retired


def benchmark(repeats: int = 5, scale: float = 1.0) -> dict:
    """Measured figures; `scale` shrinks the loops (tests use a small one)."""
    out: dict = {"repeats": repeats}
    for name, source in (("scalar", SCALAR), ("vector", VECTOR)):
        n, n_traced = (max(1, int(k * scale)) for k in SIZES[name])
        rate, retired = _rate(source, n, False, repeats)
        traced, _ = _rate(source, n_traced, True, repeats)
        out[f"{name}_instr_per_s"] = rate
        out[f"{name}_instructions"] = retired
        out[f"{name}_traced_slowdown"] = rate / traced
    return out


def main(argv: list[str] | None = None) -> None:
    import argparse
    ap = argparse.ArgumentParser(prog="kernelcraft bench coral-model",
                                 description="coral functional model speed (median of several runs)")
    ap.add_argument("--repeats", type=int, default=5)
    r = benchmark(repeats=ap.parse_args(argv).repeats)
    print(f"coral functional model, default configuration, median of {r['repeats']} runs")
    print(f"  scalar loop : {r['scalar_instr_per_s'] / 1e6:8.2f} M instructions/s"
          f"   (traced: {r['scalar_traced_slowdown']:.1f}x slower)")
    print(f"  vector loop : {r['vector_instr_per_s'] / 1e3:8.1f} k instructions/s"
          f"   (3 of 5 are LMUL = 8 binary32 operations: {r['vector_instr_per_s'] * 0.6 * 32 / 1e6:.1f} M"
          f" element-operations/s; traced: {r['vector_traced_slowdown']:.1f}x slower)")


if __name__ == "__main__":
    main()
