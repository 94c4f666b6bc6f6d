"""coral in bulk mode (simulators/rtl/bulk.py: the harness driven from C++, linked
against the cocotb build's model): the same end states, counters and traces as the
cocotb run, on random programs of the shared small configuration."""
from kernelcraft.simulators.core.backend import MemoryImage
from kernelcraft.simulators.core.budget import Budget
from kernelcraft.simulators.rtl.divergence import runs_differences
from kernelcraft.simulators.coral.assembler import assemble
from kernelcraft.simulators.coral_rtl.backend import CoralRTL, Job
from kernelcraft.simulators.coral_rtl.compare import compare_runs, compare_traces
from kernelcraft.simulators.coral_rtl.randprog import random_program

SEEDS = range(500, 512)


def test_bulk_and_cocotb_runs_are_identical(cfg, rtl):
    jobs = []
    for seed in SEEDS:
        jobs.append(Job(assemble(random_program(seed), f"random{seed}.s", cfg), MemoryImage(),
                        Budget(max_instructions=100_000), trace=seed % 2 == 0))
    cocotb = rtl.run_many(jobs, cfg)
    bulk_rtl = CoralRTL(bulk=True)
    bulk = bulk_rtl.run_many(jobs, cfg)
    assert bulk_rtl.last_build.flavour == "bulk"
    diffs = runs_differences(jobs, cocotb, bulk, compare_runs, compare_traces)
    assert not diffs, "\n".join(diffs)
