"""Random aie programs of scalar, move, load, store and vector bundles (the lane ALU,
accumulator lanes, SRS/UPS and the multiply-accumulate family chaining onto each other's
accumulators; loops, every post-modify mode, bank conflicts, locks, HALT, and the errors they run into: memory range and
alignment, deadlocked ACQ, lock overflow, budget) on the functional model and on the
RTL: bit-identical memories and registers, equal cycles, retired bundles, per-slot
activity and stall counts per cause, and the same stop (error type, bundle, cycle,
address). A divergence fails naming the first bundle where the traces differ."""
import collections


from kernelcraft.simulators.aie.assembler import assemble
from kernelcraft.simulators.aie.machine import AieModel
from kernelcraft.simulators.aie_rtl.backend import AieRTL
from kernelcraft.simulators.aie_rtl.compare import compare_runs, compare_traces
from kernelcraft.simulators.aie_rtl.randprog import random_failing_load_program, random_program
from kernelcraft.simulators.core.backend import Job, MemoryImage
from kernelcraft.simulators.core.budget import Budget

SEEDS = range(150)


def _jobs(cfg, seeds, budget=Budget(max_instructions=100_000), trace=False):
    out = []
    for seed in seeds:
        src, img = random_program(seed, cfg)
        out.append((seed, assemble(src, f"random-{seed}.asm", cfg), img, budget))
    return out, [Job(p, img, b, trace) for _, p, img, b in out]


def _check(cfg, programs, rtl_runs, trace=False):
    failures, kinds = [], collections.Counter()
    for (seed, program, image, budget), r in zip(programs, rtl_runs):
        m = AieModel().run(program, image, cfg, budget, trace=trace)
        kinds[m.stop if m.error is None else type(m.error).__name__] += 1
        if m.error is not None and getattr(m.error.where, "op", ""):
            kinds[m.error.where.op.split(":")[0]] += 1           # "slot ld1"
        diffs = compare_runs(m, r)
        if trace:
            d = compare_traces(m.trace, r.trace)
            diffs += [d] if d else []
        if diffs:
            mt = AieModel().run(program, image, cfg, budget, trace=True)
            rt = AieRTL().run(program, image, cfg, budget, trace=True)
            first = compare_traces(mt.trace, rt.trace)
            failures.append(f"seed {seed}: " + "; ".join(d.format() for d in diffs) +
                            "\n  first diverging bundle: " +
                            (first.format() if first else "(traces agree)"))
    return failures, kinds


def test_random_programs_agree(diff_cfg, aie_build):
    programs, jobs = _jobs(diff_cfg, SEEDS)
    failures, kinds = _check(diff_cfg, programs, AieRTL().run_many(jobs, diff_cfg))
    assert not failures, "\n".join(failures[:3])
    # the generator reaches normal ends, HALT and the run-time errors
    assert kinds["end"] > 50 and kinds["break"] and kinds["DeadlockError"] and \
        kinds["MemoryAccessError"] and kinds["IllegalOperandError"], kinds


def test_budget_stops_agree(diff_cfg, aie_build):
    programs, jobs = _jobs(diff_cfg, range(500, 530), Budget(max_instructions=60))
    failures, kinds = _check(diff_cfg, programs, AieRTL().run_many(jobs, diff_cfg))
    assert not failures, "\n".join(failures[:3])
    assert kinds["BudgetExceeded"] > 20


def test_lockstep_traces_agree(diff_cfg, aie_build):
    programs, jobs = _jobs(diff_cfg, range(900, 920), trace=True)
    failures, _ = _check(diff_cfg, programs, AieRTL().run_many(jobs, diff_cfg), trace=True)
    assert not failures, "\n".join(failures[:3])


def test_bank_conflicts_and_hazards_are_counted(diff_cfg, aie_build):
    # ld0, ld1 and st in one bank: two extra cycles; the load result waits LOAD_LATENCY
    src = ("MOVPI p0, 64\nMOVPI p1, 128\nMOVI r1, 7\nMOVPI p4, 256\n"
           "LD r2, [p0] || LD r3, [p1] || ST r1, [p4]\nADD r4, r2, r3\n")
    program = assemble(src, "conflict.asm", diff_cfg)
    image = MemoryImage({"dm": {64: [5, 0, 0, 0], 128: [9, 0, 0, 0]}})
    m = AieModel().run(program, image, diff_cfg)
    r = AieRTL().run(program, image, diff_cfg)
    assert m.stalls["bank_conflict"] == r.stalls["bank_conflict"] == 2
    assert m.stalls["data_hazard"] == r.stalls["data_hazard"] > 0
    assert r.registers["r"][4] == 14 and r.memories["dm"][256] == 7
    assert not compare_runs(m, r)


def test_a_bundle_failing_at_a_load_commits_the_loads_before_it(diff_cfg, aie_build):
    """ld0 is a bundle's first load, ld1 its second, and a failing operation keeps what
    ran before it: the first load's data and post-modify land when the second fails,
    nothing when the first does. The random programs did not tell the slots apart: a
    decoder that put the second load in ld0 passed them (rtl/aie/README.md, Synthesis)."""
    image = MemoryImage({"dm": {64: [5, 0, 0, 0]}})
    for bundle, r2, p0, slot in (("LD r2, [p0], 4 || LD r3, [p4]", 5, 68, "ld1"),
                                 ("LD r3, [p4] || LD r2, [p0], 4", 0, 64, "ld0")):
        program = assemble(f"MOVPI p0, 64\nMOVPI p4, 4096\n{bundle}\n", "ld.asm", diff_cfg)
        m = AieModel().run(program, image, diff_cfg)
        r = AieRTL().run(program, image, diff_cfg)
        assert f"slot {slot}" in str(m.error)
        assert (m.registers["r"][2], m.registers["p"][0]) == (r2, p0)
        assert not compare_runs(m, r), bundle


def test_two_load_bundles_failing_at_either_load_agree(diff_cfg, aie_build):
    """Random bundles of two loads, the first or the second failing (misaligned or off
    memory), beside random store, scalar, vector and move operations: the backends commit
    the same operations of the bundle (registers, post-modifies, bytes) and name the same
    failing slot. The other random programs seldom fail at a two-load bundle."""
    budget = Budget(max_instructions=100_000)
    programs = []
    for seed in range(2000, 2060):
        src, img = random_failing_load_program(seed, diff_cfg)
        programs.append((seed, assemble(src, f"failing-{seed}.asm", diff_cfg), img, budget))
    jobs = [Job(p, img, b, False) for _, p, img, b in programs]
    failures, kinds = _check(diff_cfg, programs, AieRTL().run_many(jobs, diff_cfg))
    assert not failures, "\n".join(failures[:3])
    assert kinds["slot ld0"] >= 15 and kinds["slot ld1"] >= 15, kinds


def test_a_divergence_names_the_bundle_and_both_values(diff_cfg):
    """compare_traces and compare_runs point at the bundle, the register and the cycle."""
    program = assemble("MOVI r1, 1\nMOVI r2, 2\n", "x.asm", diff_cfg)
    m = AieModel().run(program, MemoryImage({}), diff_cfg, trace=True)
    other = AieModel().run(assemble("MOVI r1, 1\nNOP\nMOVI r2, 3\n", "y.asm", diff_cfg),
                           MemoryImage({}), diff_cfg, trace=True)
    d = compare_traces(m.trace, other.trace)
    assert d is not None and d.step == 2 and "bundle 2 (line 3) `MOVI r2, 3`" in d.format()
    diffs = {x.where: x for x in compare_runs(m, other)}
    assert diffs["r2"].model == "2" and diffs["r2"].rtl == "3"
    assert "the cycle count" in diffs


def test_every_operation_and_descriptor_is_built(diff_cfg):
    """Nothing the model runs is refused: every vector operation of the ISA is in
    VECTOR_BUILT, and a descriptor that acquires a lock runs."""
    from kernelcraft.isa.aie.model import get_spec
    from kernelcraft.simulators.aie_rtl.backend import VECTOR_BUILT, unsupported
    vector = {m for m, o in get_spec().ops.items() if o.slot == "vector"}
    assert vector <= VECTOR_BUILT, sorted(vector - VECTOR_BUILT)
    program = assemble(".bd A, ext=0, loc=0, n0=8, acq=l1\nREL l1, 1\nDMAIN 0, A, r0, r0\n",
                       "v.asm", diff_cfg)
    assert unsupported(program) == []
