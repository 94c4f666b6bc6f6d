"""cocotb test for tb_fp32_ieee: the host wrote ieee_ops.hex (IEEE_COUNT operand words);
stream them through the unit with the clock in the simulator and wait for `done`.
Two Python awaits, whatever the count; the host compares ieee_res.hex."""
import os

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import First, RisingEdge, Timer

PERIOD_NS = 10


@cocotb.test()
async def stream(dut):
    n = int(os.environ["IEEE_COUNT"])
    Clock(dut.clk, PERIOD_NS, unit="ns").start()
    dut.count.value = n
    dut.start.value = 1
    await RisingEdge(dut.clk)
    dut.start.value = 0
    cycles = 32 * n + 16          # fp32_divsqrt takes up to 28 clocks a vector
    limit = Timer(PERIOD_NS * cycles, unit="ns")
    if await First(RisingEdge(dut.done), limit) is limit:
        raise AssertionError(f"the bench did not finish {n} vectors in {cycles} cycles")
