"""The benchmark runs its three kernels correctly and reports every figure."""
from kernelcraft.simulators.plena.bench import benchmark


def test_benchmark_reports_all_figures():
    r = benchmark(repeats=1, scale=0.01)
    for name in ("scalar", "vector", "matmul"):
        assert r[f"{name}_instr_per_s"] > 0 and r[f"{name}_traced_slowdown"] > 0
    assert r["scalar_instructions"] == 1 + 1000 * 7
    assert r["matmul_macs_per_s"] > r["matmul_instr_per_s"]
