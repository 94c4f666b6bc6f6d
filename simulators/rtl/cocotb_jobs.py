"""cocotb test that runs the jobs an RTL backend prepared, on any simulation harness with
the job/go/halt/finished host port (rtl/plena/plena_sim.v, rtl/coral/coral_sim.v,
rtl/aie/aie_sim.v); simulators/rtl/jobrun.py starts it. bulk_main.cpp is the same
protocol in C++ (bulk mode).

The clock runs inside the simulator. Per job, Python only pulses `go` and waits for
`finished`, waking every KERNELCRAFT_POLL_NS of simulated time to check the job's
wall-clock limit (and raising `halt` once it has passed). Nothing runs per cycle.
"""
import os
import time

import cocotb
from cocotb.triggers import First, RisingEdge, Timer

PERIOD_NS = 2          # the harnesses' clock


@cocotb.test()
async def run_jobs(dut):
    jobs = int(os.environ["KERNELCRAFT_JOBS"])
    walls = [float(w) for w in os.environ.get("KERNELCRAFT_WALL_SECONDS", "").split(",") if w]
    poll = int(os.environ.get("KERNELCRAFT_POLL_NS", str(PERIOD_NS * 200_000)))
    dut.go.value = 0
    dut.halt.value = 0
    dut.job.value = 0
    await Timer(PERIOD_NS, unit="ns")
    for n in range(jobs):
        dut.job.value = n
        dut.halt.value = 0
        dut.go.value = 1
        await Timer(PERIOD_NS, unit="ns")
        dut.go.value = 0
        finished = RisingEdge(dut.finished)
        deadline = time.monotonic() + walls[n] if n < len(walls) and walls[n] > 0 else None
        while True:
            if deadline is None:
                await finished
                break
            fired = await First(finished, Timer(poll, unit="ns"))
            if fired is finished:
                break
            if time.monotonic() > deadline:
                dut.halt.value = 1
