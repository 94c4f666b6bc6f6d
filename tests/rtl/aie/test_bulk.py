"""aie in bulk mode (simulators/rtl/bulk.py: the harness driven from C++, linked against
the cocotb build's model): the same end states, counters and traces as the cocotb run,
on random programs of the shared small configuration."""
from kernelcraft.simulators.aie.assembler import assemble
from kernelcraft.simulators.aie_rtl.backend import AieRTL
from kernelcraft.simulators.aie_rtl.compare import compare_runs, compare_traces
from kernelcraft.simulators.aie_rtl.randprog import random_program
from kernelcraft.simulators.core.backend import Job
from kernelcraft.simulators.core.budget import Budget
from kernelcraft.simulators.rtl.divergence import runs_differences

SEEDS = range(700, 712)


def test_bulk_and_cocotb_runs_are_identical(diff_cfg, aie_build):
    jobs = []
    for seed in SEEDS:
        src, img = random_program(seed, diff_cfg)
        jobs.append(Job(assemble(src, f"random-{seed}.asm", diff_cfg), img,
                        Budget(max_instructions=100_000), trace=seed % 2 == 0))
    cocotb = AieRTL().run_many(jobs, diff_cfg)
    bulk_rtl = AieRTL(bulk=True)
    bulk = bulk_rtl.run_many(jobs, diff_cfg)
    assert bulk_rtl.last_build.flavour == "bulk"
    diffs = runs_differences(jobs, cocotb, bulk, compare_runs, compare_traces)
    assert not diffs, "\n".join(diffs)
