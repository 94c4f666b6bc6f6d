"""Straight-line runs of bundles execute as one generated function (codegen.py): the
results, cycles, stalls, slot counts, budget stops and error locations must be those
of stepping bundle by bundle, which is what a traced run does."""
import numpy as np
import pytest

from aie_kit import bf, image, run, small, unbf
from kernelcraft.simulators.aie.assembler import assemble
from kernelcraft.simulators.aie.codegen import blocks_of
from kernelcraft.simulators.aie.predecode import predecode
from kernelcraft.simulators.core.budget import Budget
from kernelcraft.isa.aie.model import get_spec

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


# A lane-wise loop the model fast-forwards (lanewise.py): a load and a broadcast load in
# one bank for the last iterations, a constant register read every iteration, the
# function unit on lanes with zeros, infinities, NaNs and negatives (its special-case
# paths), integer and bf16 lane operations, results stored over the rows just loaded.
LANES = """
MOVPI p0, 0
MOVPI p2, 0
MOVPI p3, 1536
MOVPI p1, 4096
VLD x5, [p1]
VUPS.BF16 acc6, x5
LOOP 20
    VLD x0, [p0], 64 || VLDB x7, [p3], 2
    VUPS.BF16 acc0, x0
    AMUL.F32 acc1, acc0, acc6
    VPWL.EXP acc2, acc1
    VPWL.RCP acc3, acc2
    VPWL.RSQRT acc4, acc0
    AADD.F32 acc1, acc3, acc4
    VSRS.BF16 x1, acc1
    VMAX.BF16 x2, x1, x7
    VADD.I16 x3, x2, x5
    VST x3, [p2], 64
ENDLOOP
VSRS.BF16 x8, acc4
"""


def _lanes_image():
    rng = np.random.default_rng(5)
    v = rng.normal(scale=4, size=4096).astype(np.float32)
    v[::37] = np.inf
    v[5::41] = np.nan
    v[7::43] = 0.0
    v[9::47] = -1e-39
    return image(dm={0: bf(v).view(np.uint8)[:8192]})


def _fast_forwards(monkeypatch, lanewise):
    """Count the loops lanewise.run fast-forwarded (and the ones it declined)."""
    done = {"yes": 0, "no": 0}
    real = lanewise.run

    def counting(*args):
        t = real(*args)
        done["yes" if t is not None else "no"] += 1
        return t
    monkeypatch.setattr(lanewise, "run", counting)
    return done


def _same_as_stepping(src, img, budget=Budget(), ok=True):
    plain = run(src, img(), budget=budget, expect_ok=ok)
    traced = run(src, img(), budget=budget, trace=True, expect_ok=ok)
    for key in ("cycles", "retired", "stalls", "unit_busy", "stop"):
        assert getattr(plain, key) == getattr(traced, key), key
    assert str(plain.error) == str(traced.error)
    for name in ("x", "acc", "p", "r", "locks", "LOOPS"):
        assert np.array_equal(np.asarray(plain.registers[name]), np.asarray(traced.registers[name])), name
    for k in plain.memories:
        assert np.array_equal(plain.memories[k], traced.memories[k]), k
    return plain


def test_a_lane_wise_loop_runs_at_once_and_matches_stepping(monkeypatch):
    from kernelcraft.simulators.aie import lanewise
    done = _fast_forwards(monkeypatch, lanewise)
    r = _same_as_stepping(LANES, _lanes_image)
    assert done == {"yes": 1, "no": 0}
    assert r.stalls["bank_conflict"] > 0 and r.stalls["data_hazard"] > 0
    assert r.registers["p"][2] == 1280 and r.registers["p"][3] == 1576
    stored = r.memories["dm"][:1280].view(np.uint16)
    assert np.isnan(unbf(stored)).any() and np.isfinite(unbf(stored)).any()


def test_running_sums_and_maxima_fold_all_iterations_at_once(monkeypatch):
    from kernelcraft.simulators.aie import lanewise
    done = _fast_forwards(monkeypatch, lanewise)
    folds = LANES.replace("AADD.F32 acc1, acc3, acc4", "AADD.F32 acc1, acc3, acc4\n"
                          "    AADD.F32 acc5, acc5, acc1\n    AMAX.F32 acc7, acc0, acc7\n"
                          "    VMAX.BF16 x4, x0, x4")
    r = _same_as_stepping(folds, _lanes_image)
    assert done == {"yes": 1, "no": 0}
    assert np.isnan(r.registers["acc"][5].view(np.float32)).any()
    # a fold read by another operation of the body is carried: no plan
    code = predecode(assemble(folds.replace("VMAX.BF16 x4, x0, x4", "VMAX.BF16 x4, x0, x4\n"
                                            "    VADD.I16 x6, x4, x0"), "t.asm", CFG), None, CFG, get_spec())
    assert lanewise.plan(code, 7, len(code.rows) - 2) is None


def test_a_fold_is_the_operation_applied_row_by_row():
    from kernelcraft.simulators.aie.lanewise import fold
    from kernelcraft.simulators.numerics import canon, fmax, f32_to_bf16_bits
    rng = np.random.default_rng(3)
    rows = rng.normal(size=(9, 32)).astype(np.float32)
    rows[:, :8] = -np.abs(rows[:, :8])
    rows[2, :4] = -0.0
    rows[5, 2:4] = 0.0                         # lanes 2, 3: +0 wins over -0 and negatives
    rows[4, 4:6] = -0.0                        # lanes 4, 5: only -0 and negatives
    rows[6, 8] = np.nan
    rows[3, 9] = np.inf
    rows[7, 9] = -np.inf
    init = np.full(32, -5.0, np.float32)
    for kind in ("add", "max"):
        want = init
        for v in rows:
            want = canon(want + v) if kind == "add" else fmax(want, v)
        got = fold(kind, init, rows)
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), kind
    bits = f32_to_bf16_bits(rows)
    want = f32_to_bf16_bits(init)
    for v in bits:
        want = f32_to_bf16_bits(fmax(unbf(want), unbf(v)))
    assert np.array_equal(fold("max_bf16", f32_to_bf16_bits(init), bits), want)


def test_a_software_pipelined_store_runs_at_once_and_matches_stepping(monkeypatch):
    # the store in the first bundle writes the row the previous iteration computed (the
    # value before the loop in the first): planned as a store of the previous row
    from kernelcraft.simulators.aie import lanewise
    done = _fast_forwards(monkeypatch, lanewise)
    piped = LANES.replace("    VST x3, [p2], 64\n", "").replace(
        "VLDB x7, [p3], 2", "VLDB x7, [p3], 2 || VST x3, [p2], 64")
    r = _same_as_stepping(piped, _lanes_image)
    assert done == {"yes": 1, "no": 0}
    assert r.registers["p"][2] == 1280
    # ... declined when a later iteration loads a row it stored, and run bundle by bundle
    _same_as_stepping(piped.replace("MOVPI p2, 0", "MOVPI p2, 64"), _lanes_image)
    assert done == {"yes": 1, "no": 1}
    # a register read early by anything but stores is carried: no plan
    code = predecode(assemble(piped.replace("VUPS.BF16 acc0, x0", "VUPS.BF16 acc0, x3"), "t.asm", CFG),
                     None, CFG, get_spec())
    body = next(s for s in blocks_of(code) if s[0] == 7)
    assert lanewise.plan(code, *body) is None


def test_lane_wise_loops_that_are_not_independent_run_bundle_by_bundle(monkeypatch):
    from kernelcraft.simulators.aie import lanewise
    from kernelcraft.simulators.aie.codegen import blocks_of
    # a register carried from one iteration to the next other than by a fold: no plan
    carried = LANES.replace("AADD.F32 acc1, acc3, acc4", "AADD.F32 acc1, acc3, acc4\n"
                            "    AMUL.F32 acc5, acc5, acc1")
    code = predecode(assemble(carried, "t.asm", CFG), None, CFG, get_spec())
    body = next(s for s in blocks_of(code) if s[0] == 7)
    assert lanewise.plan(code, *body) is None
    _same_as_stepping(carried, _lanes_image)
    # a load of a row an earlier iteration stored: planned, declined when run
    done = _fast_forwards(monkeypatch, lanewise)
    _same_as_stepping(LANES.replace("MOVPI p2, 0", "MOVPI p2, 64"), _lanes_image)
    assert done == {"yes": 0, "no": 1}
    # the budget ends inside the loop: stepped, stopped at the exact bundle
    r = _same_as_stepping(LANES, _lanes_image, budget=Budget(max_instructions=100), ok=False)
    assert r.error.kind == "instruction budget exceeded" and r.retired == 100
    # a store running off memory in iteration 4: stepped, failing at its bundle
    r = _same_as_stepping(LANES.replace("MOVPI p2, 0", "MOVPI p2, 7936"), _lanes_image, ok=False)
    assert r.error.kind == "memory access error" and "VST x3, [p2], 64" in str(r.error)
    # a transfer into bytes the loop stores: a race, reported where it happens
    race = ".bd A, ext=0, loc=0, n0=64\nDMAIN 0, A, r0, r0\n" + LANES
    r = _same_as_stepping(race, _lanes_image, ok=False)
    assert r.error.kind == "data race"
    assert done["yes"] == 0


def test_a_load_of_rows_the_loop_stored_runs_at_once_when_no_store_depends_on_it(monkeypatch):
    from kernelcraft.simulators.aie import fastloop, lanewise
    done = _fast_forwards(monkeypatch, lanewise)
    repeats = []
    real = fastloop._repeat
    monkeypatch.setattr(fastloop, "_repeat", lambda *a: repeats.append(a[2]) or real(*a))
    # each iteration loads back the row it just stored (p4 follows p2) into x9, which
    # only a register that is never stored reads: the stores are computed first, then
    # the loads replayed in order
    echo = LANES.replace("MOVPI p0, 0", "MOVPI p0, 2048\nMOVPI p4, 0").replace(
        "    VST x3, [p2], 64\n", "    VST x3, [p2], 64\n    VLD x9, [p4], 64\n    VADD.I16 x10, x9, x5\n")
    r = _same_as_stepping(echo, _lanes_image)
    assert done == {"yes": 1, "no": 0} and repeats
    assert np.array_equal(r.registers["x"][9], r.memories["dm"][1216:1280])
    # ... a load nothing reads (the bench's shape: loaded from where the last row went)
    _same_as_stepping(echo.replace("    VADD.I16 x10, x9, x5\n", "").replace("VLD x9, [p4], 64",
                                                                         "VLD x9, [p4]"), _lanes_image)
    assert done == {"yes": 2, "no": 0}
    # ... but not when a stored value depends on it: stepped
    _same_as_stepping(echo.replace("VADD.I16 x10, x9, x5\n", "VADD.I16 x10, x9, x5\n    VST x10, [p5], 64\n")
                      .replace("MOVPI p4, 0", "MOVPI p4, 0\nMOVPI p5, 4096"), _lanes_image)
    assert done == {"yes": 2, "no": 1}


def test_every_lane_wise_operation_on_stacked_registers_matches_one_row_at_a_time():
    import inspect
    from kernelcraft.simulators.aie.lanewise import LANE_WISE, Stacked
    from kernelcraft.simulators.aie.state import AieState
    rng = np.random.default_rng(11)
    trips = 5
    bits = bf(rng.normal(scale=3, size=(trips, 16, 32)).astype(np.float32))
    bits[1, :, :4] = bf(np.array([np.nan, np.inf, 0.0, -0.0], np.float32))   # special lanes
    accs = rng.normal(scale=3, size=(trips, 8, 32)).astype(np.float32)
    accs[2, :, :3] = [np.inf, -np.inf, 0.0]

    def state(k):
        st = AieState(CFG, get_spec())
        st.x16[:] = bits[k]
        st.accf[:] = accs[k]
        st.rm = 1
        return st
    for fn in LANE_WISE:
        names = list(inspect.signature(fn).parameters)[1:]
        args = {"d": 1, "a": 2, "b": 3, "imm": 3}
        call = [args[n] for n in names]
        s = Stacked(state(0), trips)
        s.x16[:] = bits.transpose(1, 0, 2)
        s.accf[:] = accs.transpose(1, 0, 2)
        fn(s, *call)
        for k in range(trips):
            one = state(k)
            fn(one, *call)
            assert np.array_equal(s.x[:, k], one.x), (fn.__name__, k)
            assert np.array_equal(s.acc[:, k], one.acc), (fn.__name__, k)


def test_a_loop_declined_for_a_running_transfer_is_fast_forwarded_once_it_completes(monkeypatch):
    from kernelcraft.simulators.aie import lanewise
    done = _fast_forwards(monkeypatch, lanewise)
    # the transfer writes the rows of iteration 18; it lands a few iterations in
    src = ".bd A, ext=0, loc=1152, n0=64\nDMAIN 0, A, r0, r0\n" + LANES
    _same_as_stepping(src, _lanes_image)
    assert done == {"yes": 1, "no": 1}


@pytest.mark.parametrize("native", [True, False])
@pytest.mark.parametrize("mac", ["VMMAC.BF16 acc{d}, x{a}, y2", "VMSC.BF16 acc{d}, x{a}, x5"])
def test_a_contraction_summing_several_accumulators_at_once_matches_stepping(monkeypatch, native, mac):
    # (with lanes.c, one mac_rows call; without, numpy's terms and sums)
    from kernelcraft.simulators.aie import fastloop, lanes
    if native and lanes.module() is None:
        pytest.skip("no C compiler: the C lane loops are not built")
    if not native:
        monkeypatch.setattr(lanes, "module", lambda: None)
    done = _fast_forwards(monkeypatch, fastloop)
    src = f"""
MOVPI p0, 0
MOVPI p1, 2048
LOOP 10
    VLD x0, [p0], 64 || VLD x4, [p1], 64
    VLD x5, [p1], 64
    {mac.format(d=0, a=0)} || VLD x1, [p0], 64
    {mac.format(d=1, a=1)}
    {mac.format(d=2, a=0)}
ENDLOOP
VSRS.BF16 x8, acc0
"""
    r = _same_as_stepping(src, _contraction_image)
    assert done == {"yes": 1, "no": 0}
    assert np.isfinite(r.registers["acc"][:3].view(np.float32)).all()
    assert not np.array_equal(r.registers["acc"][0], r.registers["acc"][1])


@pytest.mark.parametrize("native", [True, False])
@pytest.mark.parametrize("kind", ["VMAC.BF16", "VMMAC.BF16"])
def test_a_contraction_gathering_its_operands_from_the_loads_matches_stepping(monkeypatch, native, kind):
    # every operand is this iteration's load (fastloop.Plan.gather): two terms per
    # accumulator, accumulators not in a row, a load stepping down, a broadcast load
    from kernelcraft.simulators.aie import fastloop, lanes
    if native and lanes.module() is None:
        pytest.skip("no C compiler: the C lane loops are not built")
    if not native:
        monkeypatch.setattr(lanes, "module", lambda: None)
    done = _fast_forwards(monkeypatch, fastloop)
    b = "y2" if kind == "VMMAC.BF16" else "x4"
    src = f"""
MOVPI p0, 0
MOVPI p1, 6144
MOVPI p2, 4096
LOOP 9
    VLD x0, [p0], 64 || VLD x4, [p1], -64
    VLD x5, [p1], -64 || VLDB x1, [p2], 2
    {kind} acc6, x0, {b}
    {kind} acc1, x1, {b} || VLD x3, [p0], 64
    {kind} acc6, x3, {b}
    {kind} acc1, x0, {b}
ENDLOOP
VSRS.BF16 x8, acc6
"""
    plans = []
    real = fastloop.plan

    def noting(*args):
        pl = real(*args)
        plans.append(pl)
        return pl
    monkeypatch.setattr(fastloop, "plan", noting)
    r = _same_as_stepping(src, _contraction_image)
    assert done == {"yes": 1, "no": 0}
    assert [pl.gather is not None for pl in plans if pl is not None] == [True]
    acc = r.registers["acc"].view(np.float32)
    assert np.isfinite(acc[[1, 6]]).all() and not np.array_equal(acc[1], acc[6])
