"""cocotb tests for the shared arithmetic units (top level: tb_common_units).

One test per unit, named test_<unit>: write the operand memory file, start the
stream, wait for `done` with the clock running in the simulator (cocotb's GPI clock),
read the results and compare them bit for bit with simulators/numerics.py. The whole
stream takes two Python awaits, whatever its length.

Environment: KC_SEED seeds the operands (default 1); KC_VECTORS sets the number of
random operands per unit (default vectors.N_RANDOM); KC_SAMPLE, if set, runs only that
many vectors drawn from the whole set, special cases included (for slow simulators).
"""
from __future__ import annotations

import os
from pathlib import Path

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import First, RisingEdge, Timer

import vectors

PERIOD_NS = 10


async def stream(dut, unit: str) -> None:
    n_random = int(os.environ.get("KC_VECTORS", vectors.N_RANDOM))
    seed = int(os.environ.get("KC_SEED", "1"))
    vec = vectors.make(unit, seed, n_random)
    if os.environ.get("KC_SAMPLE"):
        vec = vectors.sample(vec, int(os.environ["KC_SAMPLE"]), seed)
    n = vec.words.shape[0]
    depth = int(dut.DEPTH.value)
    assert n <= depth, f"{unit}: {n} vectors exceed the bench memory ({depth} words)"
    vectors.write_ops(Path("ops.hex"), vec.words)

    Clock(dut.clk, PERIOD_NS, unit="ns").start()
    dut.sel.value = int(getattr(dut, vectors.UNITS[unit].sel).value)
    dut.count.value = n
    dut.start.value = 1
    await RisingEdge(dut.clk)
    dut.start.value = 0
    limit = Timer(PERIOD_NS * (n + 16), unit="ns")
    if await First(RisingEdge(dut.done), limit) is limit:
        raise AssertionError(f"{unit}: the bench did not finish {n} vectors in {n + 16} cycles")

    got = vectors.read_results(Path("res.hex"), n)
    report = vectors.mismatch_report(unit, vec, got)
    assert report is None, f"{report}\n  (operands from KC_SEED={seed})"
    dut._log.info("%s: %d vectors (seed %d) agree bit for bit with numerics", unit, n, seed)


def _define(unit: str) -> None:
    async def run(dut) -> None:
        await stream(dut, unit)
    run.__name__ = run.__qualname__ = f"test_{unit}"
    run.__doc__ = f"{unit} agrees bit for bit with simulators/numerics.py"
    globals()[run.__name__] = cocotb.test(run)


for _unit in vectors.UNITS:
    _define(_unit)
