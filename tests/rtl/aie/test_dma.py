"""Random DMA programs on the model and the RTL: transfers of one to three dimensions on
all four channels, queue-full stalls, ACQs waiting for releases (and deadlocks), core
REL and HALT. Memories, registers, locks, cycles, stall counts per cause, channel
activity and how the run ended must agree."""
import collections

from kernelcraft.simulators.aie.assembler import assemble
from kernelcraft.simulators.aie.machine import AieModel
from kernelcraft.simulators.aie_rtl.backend import AieRTL
from kernelcraft.simulators.aie_rtl.compare import compare_runs
from kernelcraft.simulators.aie_rtl.randprog import random_dma_program
from kernelcraft.simulators.core.backend import Job
from kernelcraft.simulators.core.budget import Budget

SEEDS = range(60)


def test_random_dma_programs_agree(diff_cfg, aie_build):
    budget = Budget(max_instructions=100_000)
    progs = []
    for seed in SEEDS:
        src, img = random_dma_program(seed, diff_cfg)
        progs.append((seed, assemble(src, f"dma-{seed}.asm", diff_cfg), img))
    runs = AieRTL().run_many([Job(p, img, budget, False) for _, p, img in progs], diff_cfg)
    failures, kinds = [], collections.Counter()
    for (seed, prog, img), r in zip(progs, runs):
        m = AieModel().run(prog, img, diff_cfg, budget)
        kinds[m.stop if m.error is None else type(m.error).__name__] += 1
        diffs = compare_runs(m, r)
        if m.unit_busy != r.unit_busy:
            diffs.append(f"channel activity: model {m.unit_busy}, RTL {r.unit_busy}")
        if diffs:
            failures.append(f"seed {seed}: " + "; ".join(getattr(d, "format", lambda: d)() for d in diffs))
    assert not failures, f"{len(failures)} of {len(progs)} differ:\n" + "\n".join(failures[:4])
    assert kinds["end"] > 20 and kinds["DeadlockError"], kinds
