"""Speed of the coral functional model: simulated instructions per second on a
scalar loop (integer arithmetic, loads and stores, a branch per iteration), a
vector loop run instruction by instruction (fp32 multiply-add over LMUL = 8 groups),
how much slower traced runs are, vector throughput (vector instructions and elements
per second) on the two loop shapes Level-1 kernels spend their time in -- a
strip-mined elementwise loop (strips.py) and a contraction's multiply-add inner loop
(loops.py). Medians of several runs, default configuration. The command, which also
times one cell's evaluation, is `kernelcraft bench coral-model`
(workbench/accel/coral/bench.py).
"""
from __future__ import annotations

from kernelcraft.isa.coral import default_config
from kernelcraft.simulators.core.bench import median_rate

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
# a strip-mined elementwise loop over 4096 elements, {n} times: 6 vector instructions
# per strip of vl = 16 elements
STRIPS = """
    li s2, {n}
    flw fa0, half, t6
outer:
    la a0, xs
    la a1, ys
    li a2, 4096
.strip:
    vsetvli t0, a2, e32, m4, ta, ma
    vle32.v v8, (a0)
    vfmul.vf v12, v8, fa0
    vfadd.vf v12, v12, fa0
    vfmacc.vv v12, v8, v8
    vfmax.vv v16, v12, v8
    vse32.v v16, (a1)
    slli t1, t0, 2
    add a0, a0, t1
    add a1, a1, t1
    sub a2, a2, t0
    bnez a2, .strip
    addi s2, s2, -1
    bnez s2, outer
    ebreak
    .data
half: .float 0.5
xs: .float """ + ", ".join(f"{0.01 * k - 0.5:.4f}" for k in range(64)) + """
    .zero 16128
ys: .zero 16384
"""
STRIP_VECTOR, STRIP_VL, STRIP_COUNT = 6, 16, 4096 // 16
# a contraction's inner loop (gemm's outer product) of 256 iterations, {n} times: 4
# vector instructions of vl = 32 per iteration (one load, three multiply-adds)
OUTER = """
    vsetvli t0, zero, e32, m8, ta, ma
    li s2, {n}
outer:
    la t3, bmat
    la a3, amat
    li t4, 256
loop:
    vle32.v v0, (t3)
    flw ft0, 0(a3)
    flw ft1, 4(a3)
    flw ft2, 8(a3)
    vfmacc.vf v8, ft0, v0
    vfmacc.vf v16, ft1, v0
    vfmacc.vf v24, ft2, v0
    addi a3, a3, 4
    addi t3, t3, 128
    addi t4, t4, -1
    bnez t4, loop
    addi s2, s2, -1
    bnez s2, outer
    ebreak
    .data
amat: .float """ + ", ".join(f"{0.01 * k + 0.25:.4f}" for k in range(64)) + """
    .zero 800
bmat: .float """ + ", ".join(f"{0.02 * k - 0.3:.4f}" for k in range(64)) + """
    .zero 32768
"""
OUTER_VECTOR, OUTER_VL, OUTER_COUNT = 4, 32, 256
# Workload classes of `kernelcraft bench speed` (simulators/speed.py): shapes an agent
# writes, not only the baselines' loops. Each: (what, source with {n}, loop trips).
SPEED = {
    "scalar-int": ("scalar integer loop (add, mul, lw, sw, branch)", SCALAR, 200_000),
    "scalar-fp32": ("scalar fmadd.s loop (4 fmadd.s, fadd.s, fmul.s, branch)", """
    la s0, vals
    flw fa0, 0(s0)
    flw fa1, 4(s0)
    flw fa2, 8(s0)
    li a0, {n}
loop:
    fmadd.s fa3, fa0, fa1, fa3
    fmadd.s fa4, fa1, fa2, fa4
    fnmsub.s fa5, fa3, fa2, fa5
    fmsub.s fa6, fa4, fa0, fa6
    fadd.s fa7, fa3, fa4
    fmul.s ft0, fa7, fa2
    addi a0, a0, -1
    bnez a0, loop
    ebreak
    .data
vals: .float 1.25, 0.7071, 0.001953
""", 50_000),
    "vector-irregular": ("e32 m1 loop: vslidedown, vmflt, masked vfadd, vfredusum, vfslide1up, vfmin", """
    vsetivli t0, 4, e32, m1, ta, mu
    la s0, vals
    vle32.v v1, (s0)
    addi s1, s0, 16
    vle32.v v2, (s1)
    vmv.v.i v6, 0
    flw fa0, 32(s0)
    li a0, {n}
loop:
    vslidedown.vi v3, v1, 1
    vmflt.vv v0, v3, v2
    vfadd.vv v4, v1, v3, v0.t
    vfredusum.vs v5, v4, v6
    vfslide1up.vf v6, v4, fa0
    vfmin.vv v1, v6, v2
    addi a0, a0, -1
    bnez a0, loop
    ebreak
    .data
vals: .float 0.5, 1.5, 2.25, 0.125, 3.0, 1.0, 2.5, 4.0, 0.375
""", 5_000),
    "vfmacc-m1": ("e32 m1 vfmacc loop", """
    vsetivli t0, 4, e32, m1, ta, ma
    la s0, vals
    vle32.v v1, (s0)
    vle32.v v2, (s0)
    flw fa0, 0(s0)
    li a0, {n}
loop:
    vfmacc.vv v8, v1, v2
    vfmacc.vf v9, fa0, v1
    vfmacc.vv v10, v2, v1
    vfmacc.vf v11, fa0, v2
    addi a0, a0, -1
    bnez a0, loop
    ebreak
    .data
vals: .float 0.5, 1.5, 2.25, 0.125
""", 20_000),
    "vfmacc-m8": ("e32 m8 vfmacc loop (vl = 32: 32 multiply-adds per vfmacc)", """
    vsetvli t0, zero, e32, m8, ta, ma
    la s0, vals
    vle32.v v0, (s0)
    vle32.v v8, (s0)
    flw fa0, 0(s0)
    li a0, {n}
loop:
    vfmacc.vv v16, v0, v8
    vfmacc.vf v24, fa0, v0
    addi a0, a0, -1
    bnez a0, loop
    ebreak
    .data
vals: .float """ + ", ".join(f"{0.01 * k + 0.25:.4f}" for k in range(32)) + """
""", 20_000),
    "transpose": ("e32 m8 scaled transpose: vlse32, vfmul.vf, vse32 through stepped pointers, 64 a pass", """
    vsetvli t0, zero, e32, m8, ta, ma
    la s0, scale
    flw ft10, 0(s0)
    li t2, 256
    li t5, 128
    li s2, {n}
outer:
    la a3, src
    la a4, dst
    li t4, 64
loop:
    vlse32.v v8, (a3), t2
    vfmul.vf v8, v8, ft10
    vse32.v v8, (a4)
    addi a3, a3, 4
    add a4, a4, t5
    addi t4, t4, -1
    bnez t4, loop
    addi s2, s2, -1
    bnez s2, outer
    ebreak
    .data
scale: .float 0.125
src: .float """ + ", ".join(f"{0.01 * k - 0.3:.4f}" for k in range(64)) + """
    .zero 8192
dst: .zero 8192
""", 200),
}
# Loop trip counts: plain runs, traced runs (which keep every step in memory).
SIZES = {"scalar": (250_000, 20_000), "vector": (2_000, 200)}
THROUGHPUT = {"strips": 64, "outer": 64}      # repetitions of each loop


def _rate(source: str, n: int, trace: bool, repeats: int) -> tuple[float, int]:
    """Median retired instructions per second of `repeats` runs, and instructions."""
    cfg = default_config()
    return median_rate(CoralModel(), assemble(source.format(n=n), "bench.s", cfg), cfg, trace, repeats)


def _throughput(repeats: int, scale: float) -> dict:
    """Vector instructions and elements per second on the two batched loop shapes."""
    out = {}
    n = max(2, int(THROUGHPUT["strips"] * scale))
    rate, retired = _rate(STRIPS, n, False, repeats)
    vector = n * STRIP_COUNT * STRIP_VECTOR / (retired / rate)
    out["strips_vector_per_s"], out["strips_elements_per_s"] = vector, vector * STRIP_VL
    n = max(2, int(THROUGHPUT["outer"] * scale))
    rate, retired = _rate(OUTER, n, False, repeats)
    vector = n * OUTER_COUNT * OUTER_VECTOR / (retired / rate)
    out["outer_vector_per_s"], out["outer_macs_per_s"] = vector, vector * 3 / 4 * OUTER_VL
    return out


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
    out.update(_throughput(repeats, scale))
    return out


def status() -> str:
    """`kernelcraft bench speed`'s line on whether loop plans accumulate in C or numpy."""
    from .loops import NATIVE
    return NATIVE.status()
