"""The benchmark's vector throughput figures and cell timing (`kernelcraft bench coral-model`)."""
from kernelcraft.simulators.coral.bench import benchmark
from kernelcraft.workbench.accel.coral.bench import cell_seconds


def test_vector_throughput_figures():
    r = benchmark(repeats=1, scale=0.03)
    for key in ("strips_vector_per_s", "strips_elements_per_s", "outer_vector_per_s", "outer_macs_per_s"):
        assert r[key] > 0, key
    assert r["strips_elements_per_s"] == r["strips_vector_per_s"] * 16
    assert r["outer_macs_per_s"] == r["outer_vector_per_s"] * 24      # 3 of 4 are vl = 32 multiply-adds


def test_cell_timing():
    assert cell_seconds("gemm", "C1", repeats=1) > 0
