"""Random DMA programs on the model and the RTL: transfers of one to three dimensions on
all four channels, queue-full stalls, ACQs waiting for releases (and deadlocks), core
REL and HALT. Memories, registers, locks, cycles, stall counts per cause, channel
activity and how the run ended must agree."""
import collections

from kernelcraft.simulators.aie.assembler import assemble
from kernelcraft.simulators.aie.machine import AieModel
from kernelcraft.simulators.aie_rtl.backend import AieRTL
from kernelcraft.simulators.aie_rtl.compare import compare_runs
from kernelcraft.simulators.aie_rtl.randprog import PORTS, random_dma_program, random_port_program
from kernelcraft.simulators.core.backend import Job, MemoryImage
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


def test_dma_beats_and_core_accesses_arbitrate_alike(diff_cfg, aie_build):
    """Random programs whose loads and stores meet DMA beats on data-memory ports (first
    accesses that do not issue, later ones of bank-conflicting bundles held), and the
    hand-worked case of tests/simulators/aie/test_ports.py: equal cycles, stalls per
    cause (dma_port among them) and end states."""
    budget = Budget(max_instructions=100_000)
    progs = [(-1, assemble(PORTS, "ports.asm", diff_cfg), MemoryImage({}))]
    for seed in range(20):
        src, img = random_port_program(seed, diff_cfg)
        progs.append((seed, assemble(src, f"ports-{seed}.asm", diff_cfg), img))
    runs = AieRTL().run_many([Job(p, img, budget, False) for _, p, img in progs], diff_cfg)
    failures, waited = [], 0
    for (seed, prog, img), r in zip(progs, runs):
        m = AieModel().run(prog, img, diff_cfg, budget)
        diffs = compare_runs(m, r)
        if m.unit_busy != r.unit_busy:
            diffs.append(f"channel activity: model {m.unit_busy}, RTL {r.unit_busy}")
        if diffs or m.error is not None:
            failures.append(f"seed {seed}: {m.error or ''} " +
                            "; ".join(getattr(d, "format", lambda: d)() for d in diffs))
        waited += m.stalls["dma_port"]
    assert not failures, f"{len(failures)} of {len(progs)} differ:\n" + "\n".join(failures[:4])
    assert runs[0].stalls["dma_port"] == 3 and runs[0].cycles == AieModel().run(
        progs[0][1], progs[0][2], diff_cfg).cycles
    assert waited > 100, waited          # (the model's count: equal to the RTL's)
