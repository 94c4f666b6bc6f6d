"""Speed of the plena functional model: simulated instructions per second on a
scalar-heavy and a vector-heavy loop, MACs per second on an M_MM-heavy loop (median of
several runs each, default configuration), and how much slower traced runs are.

Run: `python -m kernelcraft.simulators.plena.bench` or `kernelcraft bench model`.
"""
from __future__ import annotations


from kernelcraft.isa.plena import default_config
from kernelcraft.simulators.core.bench import median_rate

from .assembler import assemble
from .machine import PlenaModel

SCALAR = """
    C_LOOP_START gp1, {n}
        S_ADDI_INT gp2, gp2, 1
        S_ADD_INT  gp3, gp3, gp2
        S_MUL_INT  gp4, gp3, gp2
        S_LD_INT   gp5, gp0, 3
        S_ADD_FP   f1, f1, f2
        S_ST_INT   gp4, gp0, 4
    C_LOOP_END gp1
"""
VECTOR = """
    S_ADDI_INT gp2, gp0, VLEN
    S_ADDI_INT gp3, gp0, 2 * VLEN
    C_LOOP_START gp1, {n}
        V_ADD_VV gp3, gp2, gp3
        V_MUL_VF gp3, gp3, f1
        V_EXP_V  gp2, gp3
        V_RED_SUM f2, gp2
        V_SUB_VF gp2, gp2, f1, 0, 1
        V_MAX_VF gp2, gp2, f0
    C_LOOP_END gp1
"""
# an element-wise pass over rows (a SiLU-like x * 1/(1 + exp(-x)) through a scratch row),
# 512 rows at a time: the shape of most agents' element-wise kernels
ROWS = """
    S_ADDI_INT gp4, gp0, 600 * VLEN
    C_LOOP_START gp5, {n}
        S_ADDI_INT gp2, gp0, 0
        C_LOOP_START gp1, 512
            V_MUL_VF gp4, gp2, f1
            V_EXP_V  gp4, gp4
            V_ADD_VF gp4, gp4, f2
            V_RECI_V gp4, gp4
            V_MUL_VV gp2, gp2, gp4
            S_ADDI_INT gp2, gp2, VLEN
        C_LOOP_END gp1
    C_LOOP_END gp5
"""
# a double-buffered stream, the shape of most kernels that read HBM: the next rows are
# prefetched while a 4-row inner loop (too short to batch) computes on these, which wait
# for their transfer; results are stored and the buffers swapped
STREAM = """
    S_ADDI_INT gp8, gp0, VLEN
    C_SET_STRIDE_REG gp8
    S_ADDI_INT gp1, gp0, 0
    S_ADDI_INT gp2, gp0, 4 * VLEN
    S_ADDI_INT gp4, gp0, 600 * VLEN
    S_ADDI_INT gp6, gp0, 0
    S_LUI_INT  gp9, 1024
    H_PREFETCH_V gp1, gp6, a0, 1, 0
    C_LOOP_START gp5, {n}
        S_ADDI_INT gp6, gp6, 4 * VLEN
        H_PREFETCH_V gp2, gp6, a0, 1, 0
        S_ADDI_INT gp3, gp1, 0
        C_LOOP_START gp7, 4
            V_MUL_VF gp4, gp3, f1
            V_EXP_V  gp4, gp4
            V_ADD_VF gp4, gp4, f2
            V_RECI_V gp4, gp4
            V_MUL_VV gp3, gp3, gp4
            S_ADDI_INT gp3, gp3, VLEN
        C_LOOP_END gp7
        H_STORE_V gp1, gp9, a0, 1, 0
        S_ADDI_INT gp9, gp9, 4 * VLEN
        S_ADD_INT gp3, gp1, gp0
        S_ADD_INT gp1, gp2, gp0
        S_ADD_INT gp2, gp3, gp0
    C_LOOP_END gp5
"""
MATMUL = """
    C_LOOP_START gp1, {n}
        M_MM 0, gp0, gp0
        M_TMM 0, gp0, gp0
    C_LOOP_END gp1
    M_MM_WO gp0, gp0, 0
"""
def status() -> str:
    """`kernelcraft bench speed`'s line on whether the lane loops ran in C or numpy."""
    from .lanes import status as lanes_status
    return lanes_status()


# Workload classes of `kernelcraft bench speed` (simulators/speed.py): (what, source, trips).
SPEED = {
    "scalar": ("scalar loop (integer, fp, loads, stores, hardware loop)", SCALAR, 50_000),
    "vector": ("vector loop (add, mul, exp, sum, sub, max on VLEN lanes)", VECTOR, 2_000),
    "rows": ("element-wise row pass (mul, exp, add, reciprocal, mul through a scratch row)", ROWS, 20),
    "stream": ("double-buffered stream (prefetch next rows, 4-row inner loop waits on them, store)",
               STREAM, 2000),
}
# Loop trip counts: plain runs, traced runs (which keep every step in memory).
SIZES = {"scalar": (100_000, 10_000), "vector": (3_000, 300), "matmul": (3_000, 300)}


def _rate(source: str, n: int, trace: bool, repeats: int) -> tuple[float, int]:
    """Median retired instructions per second of `repeats` runs, and instructions."""
    cfg = default_config()
    return median_rate(PlenaModel(), assemble(source.format(n=n), "bench.asm", cfg), cfg, trace, repeats)


def benchmark(repeats: int = 5, scale: float = 1.0) -> dict:
    """Measured figures: instr/s per workload, MAC/s for M_MM, traced slowdowns.
    `scale` shrinks the loops (tests use a small one; figures need the default)."""
    cfg = default_config()
    out: dict = {"repeats": repeats}
    for name, source in (("scalar", SCALAR), ("vector", VECTOR), ("matmul", MATMUL)):
        n, n_traced = (max(1, int(k * scale)) for k in SIZES[name])
        rate, retired = _rate(source, n, False, repeats)
        traced, _ = _rate(source, n_traced, True, repeats)
        out[f"{name}_instr_per_s"] = rate
        out[f"{name}_instructions"] = retired
        out[f"{name}_traced_slowdown"] = rate / traced
    # each M_MM / M_TMM is BLEN x MLEN x BLEN multiply-accumulates; 2 per iteration of
    # the 3-instruction body (M_MM, M_TMM, C_LOOP_END)
    macs_per_mm = cfg.BLEN * cfg.MLEN * cfg.BLEN
    out["matmul_macs_per_s"] = out["matmul_instr_per_s"] * 2 / 3 * macs_per_mm
    return out


def main(argv: list[str] | None = None) -> None:
    import argparse
    ap = argparse.ArgumentParser(prog="kernelcraft bench model",
                                 description="plena functional model speed (median of several runs)")
    ap.add_argument("--repeats", type=int, default=5)
    r = benchmark(repeats=ap.parse_args(argv).repeats)
    print(f"plena functional model, default configuration, median of {r['repeats']} runs, per CPU second")
    print(f"  scalar-heavy loop : {r['scalar_instr_per_s'] / 1e6:8.2f} M instructions/s"
          f"   (traced: {r['scalar_traced_slowdown']:.1f}x slower)")
    print(f"  vector-heavy loop : {r['vector_instr_per_s'] / 1e3:8.1f} k instructions/s"
          f"   (traced: {r['vector_traced_slowdown']:.1f}x slower)")
    print(f"  M_MM-heavy loop   : {r['matmul_macs_per_s'] / 1e6:8.1f} M MACs/s"
          f" ({r['matmul_instr_per_s'] / 1e3:.1f} k instructions/s;"
          f" traced: {r['matmul_traced_slowdown']:.1f}x slower)")


if __name__ == "__main__":
    main()
