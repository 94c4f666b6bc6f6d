"""Random DMA programs on the model and the RTL: transfers of one to three dimensions on
all four channels, queue-full stalls, ACQs waiting for releases (and deadlocks), core
REL and HALT; with descriptors that acquire a lock before they start (`acq`): transfers
waiting in their queues for the core's or other transfers' releases, the DMA and the
core taking one lock in one cycle, deadlocks found when the DMA runs dry and programs
ending with transfers that can never start. Memories, registers, locks, cycles, stall
counts per cause, channel activity and how the run ended must agree."""
import collections

import numpy as np

from kernelcraft.simulators.aie.assembler import assemble
from kernelcraft.simulators.aie.machine import AieModel
from kernelcraft.simulators.aie_rtl.backend import AieRTL
from kernelcraft.simulators.aie_rtl.compare import compare_runs
from kernelcraft.simulators.aie_rtl.randprog import PORTS, random_dma_program, random_port_program
from kernelcraft.simulators.core.backend import Job, MemoryImage
from kernelcraft.simulators.core.budget import Budget

SEEDS = range(60)


def _random_dma_programs_agree(cfg, seeds, acq=False, spread=False, fail=False,
                               limit=lambda seed: 100_000):
    progs = []
    for seed in seeds:
        src, img = random_dma_program(seed, cfg, acq=acq, spread=spread, fail=fail)
        progs.append((seed, assemble(src, f"dma-{seed}.asm", cfg), img,
                      Budget(max_instructions=limit(seed))))
    runs = AieRTL().run_many([Job(p, img, budget, False) for _, p, img, budget in progs], cfg)
    failures, kinds = [], collections.Counter()
    for (seed, prog, img, budget), r in zip(progs, runs):
        m = AieModel().run(prog, img, cfg, budget)
        kinds[m.stop if m.error is None else type(m.error).__name__] += 1
        diffs = compare_runs(m, r)
        if m.unit_busy != r.unit_busy:
            diffs.append(f"channel activity: model {m.unit_busy}, RTL {r.unit_busy}")
        if diffs:
            failures.append(f"seed {seed}: " + "; ".join(d if isinstance(d, str) else d.format()
                                                         for d in diffs))
    assert not failures, f"{len(failures)} of {len(progs)} differ:\n" + "\n".join(failures[:4])
    return kinds


def test_random_dma_programs_agree(diff_cfg, aie_build):
    kinds = _random_dma_programs_agree(diff_cfg, SEEDS, acq=False)
    assert kinds["end"] > 20 and kinds["DeadlockError"], kinds


def test_random_spread_transfers_agree(diff_cfg, aie_build):
    """Short runs far apart in data memory: beats that end early to stay within four
    rows (more beats than DMA_BW bytes each), on both backends alike."""
    kinds = _random_dma_programs_agree(diff_cfg, range(2000, 2060), spread=True)
    assert kinds["end"] > 20, kinds


def test_random_acquiring_transfers_agree(diff_cfg, aie_build):
    kinds = _random_dma_programs_agree(diff_cfg, range(1000, 1080), acq=True)
    assert kinds["end"] > 20 and kinds["DeadlockError"] > 20, kinds


def test_an_error_stops_the_dma_alike(diff_cfg, aie_build):
    """Runs stopped by an error (a misaligned load, a transfer off memory, a lock
    released past 63: simulators.aie_rtl.randprog._FAILING) or by the bundle budget
    while transfers run, wait in their queues or hold their locks: no transfer starts
    or takes its lock after the stop, those started complete, and the count waits for
    them, on both backends alike. Half the programs acquire locks (`acq`)."""
    kinds = _random_dma_programs_agree(diff_cfg, range(3000, 3040), fail=True)
    kinds += _random_dma_programs_agree(diff_cfg, range(3040, 3060), acq=True, fail=True)
    assert kinds["MemoryAccessError"] > 10 and kinds["IllegalOperandError"] > 5, kinds
    budget = _random_dma_programs_agree(diff_cfg, range(60, 80), limit=lambda seed: 6 + seed % 20)
    budget += _random_dma_programs_agree(diff_cfg, range(1080, 1100), acq=True,
                                         limit=lambda seed: 6 + seed % 20)
    assert budget["BudgetExceeded"] > 20, budget


ACQ_CASES = {
    # the transfer waits for the core's REL; the ACQ after it for the transfer
    "core_rel": ".bd A, ext=0, loc=0, n0=8, acq=l4, rel=l5\nDMAIN 0, A, r0, r0\n"
                + "NOP\n" * 20 + "REL l4, 1\nACQ l5, 1\n",
    # one lock: the DMA takes it before the core's ACQ in the same cycle (then nothing
    # releases it: a deadlock found when in1's transfer has completed)
    "dma_first": ".bd A, ext=0, loc=0, n0=8, rel=l1\n.bd B, ext=64, loc=1024, n0=8, acq=l1\n"
                 "DMAIN 1, B, r0, r0\nDMAIN 0, A, r0, r0\nACQ l1, 1\n",
    # a chain: in0 waits for out0's release, the core for in0's
    "chain": ".bd A, ext=0, loc=0, n0=16, acq=l2, rel=l3\n.bd B, ext=256, loc=2048, n0=16, rel=l2\n"
             "DMAIN 0, A, r0, r0\nDMAOUT 0, B, r0, r0\nACQ l3, 1\n",
    # found only once out0 has completed (its release is not what in0 needs)
    "late_deadlock": ".bd A, ext=0, loc=0, n0=16, acq=l2, rel=l3\n.bd B, ext=256, loc=2048, n0=64, rel=l1\n"
                     "DMAOUT 0, B, r0, r0\nDMAIN 0, A, r0, r0\nNOP\nACQ l3, 1\n",
    # the queue fills with transfers that can never start
    "queue_deadlock": ".bd A, ext=0, loc=0, n0=8, acq=l2\n" + "DMAIN 0, A, r0, r0\n" * 5,
    # the program ends with a transfer waiting
    "stuck_at_end": ".bd A, ext=0, loc=0, n0=8, acq=l1\n.bd B, ext=64, loc=1024, n0=32\n"
                    "DMAIN 1, B, r0, r0\nDMAIN 0, A, r0, r0\nMOVI r1, 5\n",
    # an error while A runs: A completes and releases l1, which B (waiting for it) does
    # not take: nothing starts after the error
    "stopped": ".bd A, ext=0, loc=0, n0=64, rel=l1\n.bd B, ext=64, loc=1024, n0=8, acq=l1\n"
               "DMAIN 0, A, r0, r0\nDMAIN 1, B, r0, r0\nMOVPI p0, 6\nLD r1, [p0]\n",
}


def test_acquiring_transfers_worked_cases(diff_cfg, aie_build):
    budget = Budget(max_instructions=1_000)
    img = MemoryImage({"ext": {0: np.arange(1, 200, dtype=np.uint16)}})
    progs = {k: assemble(src, f"{k}.asm", diff_cfg) for k, src in ACQ_CASES.items()}
    runs = AieRTL().run_many([Job(p, img, budget, False) for p in progs.values()], diff_cfg)
    ends = {}
    for (name, prog), r in zip(progs.items(), runs):
        m = AieModel().run(prog, img, diff_cfg, budget)
        diffs = compare_runs(m, r)
        assert not diffs, f"{name}: " + "; ".join(d.format() for d in diffs)
        ends[name] = "end" if r.error is None else str(r.error)
    assert ends["core_rel"] == ends["chain"] == "end", ends
    assert "waits forever" in ends["dma_first"] and "bundle 2" in ends["dma_first"], ends
    assert "waits forever" in ends["late_deadlock"] and "bundle 3" in ends["late_deadlock"], ends
    assert "waits forever" in ends["queue_deadlock"], ends
    assert "can never start" in ends["stuck_at_end"], ends
    stopped = runs[list(progs).index("stopped")]
    assert "not a multiple" in ends["stopped"] and stopped.registers["locks"][1] == 1
    assert stopped.cycles > stopped.error.where.cycle + 64          # A's data landed after


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
                            "; ".join(d if isinstance(d, str) else d.format() for d in diffs))
        waited += m.stalls["dma_port"]
    assert not failures, f"{len(failures)} of {len(progs)} differ:\n" + "\n".join(failures[:4])
    assert runs[0].stalls["dma_port"] == 3 and runs[0].cycles == AieModel().run(
        progs[0][1], progs[0][2], diff_cfg).cycles
    assert waited > 100, waited          # (the model's count: equal to the RTL's)
