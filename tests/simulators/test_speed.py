"""`kernelcraft bench speed` (simulators/speed.py): every workload runs, fast and
stepped runs agree, and the agreement check notices a difference."""
import dataclasses

from kernelcraft.simulators.speed import benchmark, same, table, workloads


def test_every_workload_runs_both_ways_and_agrees():
    rows = benchmark(repeats=1, scale=0.002)
    assert {r[0] for r in rows} == {w[0] for w in workloads()}
    assert {"coral/scalar-int", "coral/scalar-fp32", "coral/vector-irregular", "coral/vfmacc-m1",
            "coral/vfmacc-m8", "coral/transpose", "plena/vector", "aie/vector", "aie/pipelined"} <= {r[0] for r in rows}
    for key, what, unit, fast, stepped, retired in rows:
        assert fast > 0 and stepped > 0 and retired > 0, key
    assert "| coral/vector-irregular |" in table(rows, 1)


def test_same_names_what_differs():
    from kernelcraft.isa.coral import default_config
    from kernelcraft.simulators.coral.assembler import assemble
    from kernelcraft.simulators.coral.machine import CoralModel
    from kernelcraft.simulators.core.backend import MemoryImage
    cfg = default_config()
    r = CoralModel().run(assemble("li a0, 3\nebreak", "t.s", cfg), MemoryImage(), cfg)
    assert same(r, r) == ""
    assert "cycles" in same(r, dataclasses.replace(r, cycles=r.cycles + 1))
    regs = dict(r.registers, x=[1] * 32)
    assert "register x" in same(r, dataclasses.replace(r, registers=regs))


def test_identical_compares_bits():
    import numpy as np
    from kernelcraft.simulators.speed import identical
    nan = np.float32(np.nan)
    assert identical(np.array([nan, 1], np.float32), np.array([nan, 1], np.float32))
    assert not identical(np.array([nan], np.float32), -np.array([nan], np.float32))
    assert not identical(np.array([0.0], np.float32), np.array([-0.0], np.float32))
    assert not identical(np.array([1], np.int32), np.array([1], np.int64))
    assert identical([0.5, float("nan")], [0.5, float("nan")])
    assert not identical([0.0], [-0.0]) and not identical([1, 2], [1])
