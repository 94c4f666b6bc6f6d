"""Straight-line runs of bundles execute as one generated function (codegen.py): the
results, cycles, stalls, slot counts, budget stops and error locations must be those
of stepping bundle by bundle, which is what a traced run does."""
import numpy as np

from aie_kit import bf, image, run, small
from simulators.aie.assembler import assemble
from simulators.aie.codegen import blocks_of
from simulators.aie.predecode import predecode
from simulators.core.budget import Budget
from isa.aie.model import get_spec

CFG = small()

# loops, a DMA transfer waited for, hazards inside a run, bank conflicts, accumulate chains
PROGRAM = """
.bd A, ext=0, loc=1024, n0=256, rel=l0
DMAIN 0, A, r0, r0
MOVPI p0, 1024 || ADDI r1, r0, 0
MOVPI p1, 1536                      ; same bank as p0: the paired loads conflict
ACQ l0, 1
LOOP 3
    VLD x0, [p0], 64 || VLD x1, [p1], 64
    VUPS.BF16 acc0, x0
    AMUL.F32 acc1, acc0, acc0
    VMAC.BF16 acc2, x0, x1 || ADDI r1, r1, 1
    VMAC.BF16 acc2, x1, x0
    VSRS.BF16 x2, acc1
    VST x2, [p2], 64
ENDLOOP
VSRS.BF16 x3, acc2
"""


def _image():
    return image(ext={0: bf(np.linspace(-3, 3, 256))}, dm={1536: np.arange(256, dtype=np.uint8)})


def test_runs_of_bundles_are_found_between_loop_boundaries():
    code = predecode(assemble(PROGRAM, "t.asm", CFG), None, CFG, get_spec())
    assert blocks_of(code) == [(0, 4), (5, 11), (12, 12)]


def test_traced_and_untraced_runs_agree():
    plain = run(PROGRAM, _image())
    traced = run(PROGRAM, _image(), trace=True)
    assert plain.stalls["data_hazard"] > 0 and plain.stalls["dma_wait"] > 0
    assert plain.stalls["bank_conflict"] > 0
    for key in ("cycles", "retired", "stalls", "unit_busy", "stop"):
        assert getattr(plain, key) == getattr(traced, key), key
    for k in plain.memories:
        assert np.array_equal(plain.memories[k], traced.memories[k])
    assert np.array_equal(plain.registers["acc"], traced.registers["acc"])
    assert plain.registers["r"][1] == 3


def test_the_budget_stops_inside_a_run_at_the_exact_bundle():
    src = "LOOP 1000\nADDI r1, r1, 1\nADDI r2, r2, 1\nADDI r3, r3, 1\nENDLOOP"
    r = run(src, budget=Budget(max_instructions=8), expect_ok=False)
    assert r.error.kind == "instruction budget exceeded" and r.retired == 8
    assert r.registers["r"][1:4] == [3, 2, 2]
    assert r.error.where.index == 2 and r.unit_busy["alu"] == 8


def test_an_error_inside_a_run_names_its_bundle_and_counts_what_ran_before():
    src = "MOVPI p0, 8128\nLOOP 2\nADDI r1, r1, 1\nNOP\nVLD x0, [p0], 64\nENDLOOP"
    r = run(src, expect_ok=False)
    traced = run(src, trace=True, expect_ok=False)
    assert r.error.where.index == 4 and "slot ld0: `VLD x0, [p0], 64`" in str(r.error)
    assert r.retired == traced.retired == 7 and r.registers["r"][1] == 2
    assert r.error.where.cycle == traced.error.where.cycle
    assert r.unit_busy == traced.unit_busy and r.cycles == traced.cycles


# A contraction loop the model fast-forwards (fastloop.py): loads read before their load
# in the body (last iteration's values), a register never loaded, a broadcast load,
# multiply-accumulates of three kinds, paired loads in one bank.
CONTRACTION = """
MOVPI p0, 0
MOVPI p1, 512
MOVPI p2, 4096
VLD x6, [p2]                    ; read by the first iteration before its load
LOOP 12
    VMAC.BF16 acc0, x6, x7 || VLD x6, [p0], 64 || VLD x2, [p1], 64
    VLD x3, [p1], 64 || VLDB x7, [p2], 2
    VMMAC.BF16 acc1, x2, y1
    VMSC.BF16 acc0, x6, x5 || VLD x4, [p0], -32
ENDLOOP
VSRS.BF16 x8, acc0
VSRS.BF16 x9, acc1
"""


def _contraction_image():
    rng = np.random.default_rng(7)
    return image(dm={0: bf(rng.normal(size=4096)).view(np.uint8)[:8192]})


def test_a_fast_forwarded_loop_matches_stepping_bundle_by_bundle():
    plain = run(CONTRACTION, _contraction_image())
    traced = run(CONTRACTION, _contraction_image(), trace=True)
    assert plain.stalls["bank_conflict"] > 0 and plain.stalls["data_hazard"] > 0
    for key in ("cycles", "retired", "stalls", "unit_busy"):
        assert getattr(plain, key) == getattr(traced, key), key
    for name in ("x", "acc", "p", "r", "LOOPS"):
        assert np.array_equal(np.asarray(plain.registers[name]), np.asarray(traced.registers[name])), name
    assert not np.array_equal(plain.registers["x"][8], np.zeros(64, np.uint8))


def test_a_loop_that_would_fail_runs_bundle_by_bundle_and_fails_at_its_bundle():
    src = CONTRACTION.replace("MOVPI p1, 512", "MOVPI p1, 7168")     # p1 runs off memory in iteration 8
    plain = run(src, _contraction_image(), expect_ok=False)
    traced = run(src, _contraction_image(), trace=True, expect_ok=False)
    assert plain.error.kind == "memory access error" and "slot ld1" in str(plain.error)
    assert (plain.retired, plain.cycles, plain.unit_busy) == (traced.retired, traced.cycles, traced.unit_busy)
    assert str(plain.error) == str(traced.error)
    # a transfer still writing bytes the loop reads is a race, reported where it happens
    race = ".bd A, ext=0, loc=640, n0=64\nDMAIN 0, A, r0, r0\n" + CONTRACTION.replace("LOOP 12", "LOOP 40")
    plain = run(race, _contraction_image(), expect_ok=False)
    traced = run(race, _contraction_image(), trace=True, expect_ok=False)
    assert plain.error.kind == "data race" and str(plain.error) == str(traced.error)
