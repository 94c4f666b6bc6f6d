"""loops.py: a loop run whole must leave exactly what running it block by block leaves
(memories, registers, fflags, cycles, retired, unit busy, stalls, errors), and must
decline whenever it cannot prove that."""
import numpy as np
import pytest
from coral_kit import CFG

from kernelcraft.simulators.core.backend import MemoryImage
from kernelcraft.simulators.core.budget import Budget
from kernelcraft.simulators.coral import compiler as compiler_mod
from kernelcraft.simulators.coral.assembler import assemble
from kernelcraft.simulators.coral import loops as loops_mod
from kernelcraft.simulators.coral.loops import LoopPlan
from kernelcraft.simulators.coral.machine import CoralModel


@pytest.fixture(autouse=True, params=["c", "numpy"])
def chain(request):
    """Every test with the accumulation chain in C (chain.c) and in numpy."""
    if request.param == "c" and loops_mod.NATIVE.module() is None:
        pytest.skip("no C compiler: chain.c is not built")
    loops_mod.NATIVE.enabled(request.param == "c")
    yield request.param
    loops_mod.NATIVE.enabled(True)

# an outer-product inner loop: B rows by a pitch, three A scalars, three accumulators
OUTER = """
    li s5, {pitch}
    la t3, bmat
    la a3, amat
    vsetvli t0, zero, e32, m{lmul}, ta, ma
    vmv.v.i v8, 0
    vmv.v.i v16, 0
    vmv.v.i v24, 0
    li t4, {k}
loop:
    vle32.v v0, (t3)
    flw ft0, 0(a3)
    flw ft1, {row}(a3)
    flw ft2, {row2}(a3)
    vfmacc.vf v8, ft0, v0
    vfmacc.vf v16, ft1, v0
    vfmacc.vf v24, ft2, v0
    addi a3, a3, 4
    add t3, t3, s5
    addi t4, t4, -1
    bnez t4, loop
    la t1, out
    vse32.v v8, (t1)
    csrr a0, fflags
    ebreak
    .data
    .align 4
amat: .zero {abytes}
bmat: .zero {bbytes}
out: .zero 512
"""

# a dot-product loop: two unit-stride loads, vfmacc.vv; a strided variant
DOT = """
    la a1, xs
    la a2, ys
    li s5, {stride}
    vsetvli t0, zero, e32, m{lmul}, tu, mu
    vmv.v.i v8, 0
    li t4, {k}
loop:
    vle32.v v16, (a1)
    vlse32.v v24, (a2), s5
    vfmacc.vv v8, v16, v24
    addi a1, a1, {step}
    addi a2, a2, 4
    addi t4, t4, -1
    bnez t4, loop
    la t1, out
    vse32.v v8, (t1)
    csrr a0, fflags
    ebreak
    .data
    .align 4
xs: .zero {xbytes}
ys: .zero {ybytes}
out: .zero 512
"""


def _run(source, arrays, whole: bool, budget=Budget(), cfg=CFG):
    program = assemble(source, "loop.s", cfg)
    image = MemoryImage()
    for label, values in arrays.items():
        image.put("dtcm", program.labels[label], np.asarray(values))
    recognise = LoopPlan.recognise
    if not whole:
        compiler_mod.LoopPlan = type("NoLoops", (), {"recognise": staticmethod(lambda *a, **k: None)})
    try:
        return CoralModel().run(program, image, cfg, budget)
    finally:
        compiler_mod.LoopPlan = LoopPlan
        assert LoopPlan.recognise == recognise


def _same(source, arrays, **kw):
    a, b = _run(source, arrays, True, **kw), _run(source, arrays, False, **kw)
    assert (a.error is None) == (b.error is None)
    if a.error is not None:
        assert str(a.error) == str(b.error)
    for mem in ("dtcm",):
        assert np.array_equal(a.memories[mem], b.memories[mem])
    ra, rb = a.registers, b.registers
    assert ra["x"] == rb["x"] and ra["f"] == rb["f"] and ra["fflags"] == rb["fflags"]
    assert ra["vtype"] == rb["vtype"] and ra["vl"] == rb["vl"]
    assert np.array_equal(ra["v"], rb["v"])
    assert (a.cycles, a.retired, a.unit_busy, a.stalls) == (b.cycles, b.retired, b.unit_busy, b.stalls)
    return a


def _outer(k=40, lmul=8, rows=3, pitch=None, a=None, b=None, rng=None):
    rng = rng or np.random.default_rng(1)
    vl = 4 * lmul
    pitch = pitch or 4 * vl
    row = 4 * k
    src = OUTER.format(pitch=pitch, lmul=lmul, k=k, row=row, row2=2 * row,
                       abytes=4 * rows * k, bbytes=pitch * k + 4 * vl)
    a = rng.standard_normal(rows * k).astype(np.float32) if a is None else a
    b = rng.standard_normal(pitch * k // 4 + vl).astype(np.float32) if b is None else b
    return src, {"amat": a, "bmat": b}


def test_outer_product_loop_runs_whole_and_matches():
    src, arrays = _outer()
    r = _same(src, arrays)
    assert r.error is None
    program = assemble(src, "loop.s", CFG)
    from kernelcraft.isa.loader import get_isa
    from kernelcraft.simulators.coral.state import CoralState
    from kernelcraft.simulators.coral.timing import VectorTiming
    comp = compiler_mod.Compiler(program, CoralState(CFG, len(program.instrs)), VectorTiming(CFG), CFG,
                                 get_isa("coral"))
    loop = program.labels["loop"] // 4
    assert comp.block(loop).loop is not None          # the test exercises the whole-loop path


@pytest.mark.parametrize("lmul", [1, 2, 4])
def test_other_lmuls_and_pitches(lmul):
    src, arrays = _outer(k=25, lmul=lmul, pitch=4 * 4 * lmul + 12)
    _same(src, arrays)


def test_dot_product_with_strided_load_and_tail_undisturbed():
    rng = np.random.default_rng(2)
    for stride, step in ((8, 16), (-4, 32)):
        k = 30
        src = DOT.format(stride=stride, lmul=2, k=k, step=step, xbytes=step * k + 64, ybytes=4096)
        arrays = {"xs": rng.standard_normal((step * k + 64) // 4).astype(np.float32),
                  "ys": rng.standard_normal(1024).astype(np.float32)}
        if stride < 0:
            src = src.replace("la a2, ys", "la a2, ys\n    addi a2, a2, 2044")
        _same(src, arrays)


def test_special_values_decline_and_match():
    # NaN, infinity, tiny products and huge sums each force the block-by-block path
    for bad in (np.nan, np.inf, 1e-30, 3e38):
        src, arrays = _outer(k=16)
        arrays["amat"][20] = bad
        arrays["bmat"][70] = bad
        _same(src, arrays)


def test_exact_inputs_keep_fflags_clear():
    src, arrays = _outer(k=20)
    arrays["amat"] = np.arange(60, dtype=np.float32) % 7
    arrays["bmat"] = (np.arange(arrays["bmat"].size, dtype=np.float32) % 5) - 2
    r = _same(src, arrays)
    assert r.registers["fflags"] == 0


def test_midpoint_sums_match():
    # values whose binary64 sums land on binary32 midpoints (24-bit and 1-bit terms)
    src, arrays = _outer(k=24)
    arrays["amat"] = np.full(72, 1.0, np.float32)
    b = np.full(arrays["bmat"].size, 2.0 ** -24, np.float32)
    b[::32] = 1.0 + 2.0 ** -23
    arrays["bmat"] = b
    _same(src, arrays)


def test_sums_that_binary64_rounds_onto_a_midpoint_match(chain, monkeypatch):
    """Accumulators at 2^24 + 2 plus products 1 - 2^-46: binary64 rounds each sum up onto
    the binary32 midpoint 2^24 + 3, from which ties-to-even would go to 2^24 + 4; the
    fused multiply-add stays at 2^24 + 2. numpy's batch must refuse them; chain.c rounds
    them to the exact sum's side and the loop runs whole."""
    k = 20
    src, arrays = _outer(k=k)
    a = np.full((3, k), 1.0 + 2.0 ** -23, np.float32)
    a[:, 0] = 2.0 ** 24 + 2
    b = arrays["bmat"].reshape(-1)
    b[:] = 1.0 - 2.0 ** -23
    b[:32] = 1.0                          # row 0 (pitch 128 bytes: 32 floats)
    arrays["amat"] = a.reshape(-1)
    batches = []
    compute = LoopPlan._compute
    monkeypatch.setattr(LoopPlan, "_compute", lambda self, n, vl: batches.append(compute(self, n, vl)) or batches[-1])
    r = _same(src, arrays)
    v8 = np.asarray(r.registers["v"]).view(np.uint8)[8 * 16:9 * 16].view(np.float32)   # VLEN 128
    assert (v8 == np.float32(2.0 ** 24 + 2)).all()
    assert batches and all(b is None for b in batches) == (chain == "numpy")


def test_out_of_range_and_misaligned_addresses_give_the_same_error():
    src, arrays = _outer(k=30)
    bad = src.replace("la t3, bmat", "la t3, bmat\n    li t5, 0xff000\n    add t3, t3, t5")
    r = _same(bad, arrays)
    assert r.error is not None and "outside DTCM" in str(r.error)
    r = _same(src.replace("la a3, amat", "la a3, amat\n    addi a3, a3, 2"), arrays)
    assert r.error is not None and "aligned" in str(r.error)


def test_budget_inside_the_loop_and_vtype_problems_match():
    src, arrays = _outer(k=40)
    r = _same(src, arrays, budget=Budget(max_instructions=200))
    assert r.error is not None and "200 instructions" in str(r.error)
    _same(src.replace("e32, m8", "e16, m8"), arrays)                # fp needs SEW = 32: an error
    _same(src.replace("vsetvli t0, zero, e32, m8", "li t6, 5\n    vsetvli t0, t6, e32, m8"), arrays)
    _same(src.replace("vmv.v.i v16, 0", "vmv.v.i v16, 0\n    fsrmi 1"), arrays)     # frm = RTZ


def test_loops_it_must_not_take():
    src, arrays = _outer(k=12)
    # the accumulator read by another multiply-add, an update through a stepped register,
    # a load after its use, a store inside the loop
    for old, new in (("vfmacc.vf v24, ft2, v0", "vfmacc.vf v24, ft2, v8"),
                     ("add t3, t3, s5", "add t3, t3, a3"),
                     ("vle32.v v0, (t3)\n", ""),
                     ("addi a3, a3, 4", "addi a3, a3, 4\n    vse32.v v8, (t3)")):
        changed = src.replace(old, new)
        if old == "vle32.v v0, (t3)\n":
            changed = changed.replace("vfmacc.vf v24, ft2, v0", "vfmacc.vf v24, ft2, v0\n    vle32.v v0, (t3)")
        _same(changed, arrays)


def test_long_loops_run_in_chunks(monkeypatch):
    from kernelcraft.simulators.coral import loops
    monkeypatch.setattr(loops, "MAX_ELEMENTS", 3 * 32 * 7)      # 7 iterations at a time
    src, arrays = _outer(k=40)
    _same(src, arrays)
    _same(src, arrays, budget=Budget(max_instructions=300))


EXIT_TAILS = [
    "addi t4, t4, -1\n    bnez t4, loop",                              # count down
    "addi t4, t4, 1\n    blt t4, t6, loop",                            # count up to a bound
    "addi t4, t4, 1\n    bgeu t6, t4, loop",                           # bound first, unsigned
    "addi t4, t4, 3\n    bne t4, t6, loop",                            # a bound never met exactly
    "addi t4, t4, -2\n    bge t4, zero, loop",                         # signed, down to zero
]


@pytest.mark.parametrize("tail", EXIT_TAILS)
def test_exit_branches(tail):
    src, arrays = _outer(k=30)
    start = "li t4, 30" if "-" in tail.split("\n")[0] else "li t4, 0\n    li t6, 30"
    src = src.replace("    li t4, 30\n", f"    {start}\n").replace("addi t4, t4, -1\n    bnez t4, loop", tail)
    if "bne t4, t6" in tail:
        src = src.replace("li t6, 30", "li t6, 31")
    r = _same(src, arrays, budget=Budget(max_instructions=5000))
    assert r.retired > 0


@pytest.mark.parametrize("tail", EXIT_TAILS)
def test_trip_counts_found_past_the_first_windows(monkeypatch, tail):
    # the branch outcomes are looked at in growing windows (4, 16, ...): the exit lies
    # in the third here, and a bound never met runs to the budget
    from kernelcraft.simulators.coral import loops
    monkeypatch.setattr(loops, "TRIP_WINDOW", 4)
    test_exit_branches(tail)


@pytest.mark.parametrize("seed", range(6))
def test_low_precision_data_matches(seed, monkeypatch):
    """Inputs of few significant bits make every product a binary32 value, so the batch
    run takes binary32 sums (one accumulate): long loops whose sums round, reach
    binary32 midpoints and cancel to zeros of either sign must still match."""
    rng = np.random.default_rng(seed)
    k = [40, 250][seed % 2]

    def few_bits(n, bits):
        return (rng.integers(-(1 << bits), 1 << bits, n) * 2.0 ** rng.integers(-12, 4, n)).astype(np.float32)
    src, arrays = _outer(k=k, rng=rng)
    arrays = {"amat": few_bits(arrays["amat"].size, 11), "bmat": few_bits(arrays["bmat"].size, 12)}
    if seed == 4:                                   # exact cancellations
        arrays["bmat"][:] = np.float32(0.75)
        arrays["amat"][::2], arrays["amat"][1::2] = 1.0, -1.0
    commits = []
    commit = LoopPlan._commit
    monkeypatch.setattr(LoopPlan, "_commit", lambda self, *a: commits.append(1) or commit(self, *a))
    _same(src, arrays)
    assert commits                                  # the batch run took the loop


def test_tiny_sums_run_whole_with_the_stepping_flags(monkeypatch):
    """Products and sums below binary32's normal range (attention's masked keys: weights of
    e^-40 and less times values) take their flags (underflow, inexact) from the stepping
    semantics on those elements, and the loop still runs whole."""
    ran = []
    compute = LoopPlan._compute
    monkeypatch.setattr(LoopPlan, "_compute", lambda self, n, vl: ran.append(compute(self, n, vl)) or ran[-1])
    rng = np.random.default_rng(5)
    # one accumulator's products subnormal (random: underflow and inexact), then every
    # product an exact small multiple of 2^-140 or an integer: no flag at all
    src, arrays = _outer(k=24, rng=rng)
    arrays["amat"][:24] *= np.float32(2.0 ** -130)      # ft0's, into v8
    ran.clear()
    r = _same(src, arrays)
    assert ran and all(out is not None for out in ran)
    assert r.registers["fflags"] & 3 == 3                 # UF and NX, as stepping raises them
    a = rng.integers(-7, 8, arrays["amat"].size).astype(np.float32)
    a[:24] *= np.float32(2.0 ** -140)
    arrays = {"amat": a, "bmat": rng.integers(-7, 8, arrays["bmat"].size).astype(np.float32)}
    ran.clear()
    r = _same(src, arrays)
    assert ran and all(out is not None for out in ran)
    assert r.registers["fflags"] == 0


def _rounded(exact) -> np.float32:
    """The binary32 value nearest the rational `exact` (ties to even), found without
    rounding twice: the candidates around binary64's nearest value, judged exactly."""
    from fractions import Fraction
    near = np.float32(float(exact))
    cands = [np.nextafter(near, np.float32(-np.inf)), near, np.nextafter(near, np.float32(np.inf))]
    dist = [abs(Fraction(float(c)) - exact) for c in cands]
    best = min(dist)
    ties = [c for c, d in zip(cands, dist) if d == best]
    return min(ties, key=lambda c: int(np.array(c).view(np.uint32)) & 1)


def _reference_chain(P, acc0):
    """chain.c's outputs from exact rational arithmetic: (S, R, found bits)."""
    from fractions import Fraction
    n, w = P.shape
    S, R = np.empty_like(P), np.empty((n, w), np.float32)
    prev, found = acc0.copy(), 0
    bits = loops_mod.chain_bits
    for i in range(n):
        for j in range(w):
            S[i, j] = P[i, j] + np.float64(prev[j])
            if not np.isfinite(S[i, j]) or abs(S[i, j]) >= 2.0 ** 127:
                found |= bits.DECLINE
                R[i, j] = np.float32(S[i, j])
            else:
                exact = Fraction(float(P[i, j])) + Fraction(float(prev[j]))
                tiny = 0 < abs(S[i, j]) < 2.0 ** -126
                # tiny sums are rounded from binary64 (loops.py's _tiny checks them)
                R[i, j] = np.float32(S[i, j]) if tiny else _rounded(exact)
                found |= bits.TINY_SUM if tiny else 0
                found |= bits.INEXACT if Fraction(float(R[i, j])) != exact else 0
        prev = R[i]
    return S, R, found


@pytest.mark.parametrize("kind", ["random", "exact", "midpoints", "tiny", "huge", "nan"])
def test_chain_c_rounds_every_sum_as_the_fused_multiply_add(kind, chain):
    """chain.c against exact rational arithmetic on the cases its checks tell apart:
    exact sums, binary64 sums that round onto binary32 midpoints (where rounding the
    binary64 sum would round twice), subnormal and huge sums, NaN."""
    c = loops_mod.NATIVE.module()
    if c is None:
        pytest.skip("chain.c runs only with the C variant")
    rng = np.random.default_rng(7)
    n, w = 37, 24
    a = rng.standard_normal((n, w)).astype(np.float32)
    b = rng.standard_normal((n, w)).astype(np.float32)
    if kind == "exact":
        a, b = np.round(a * 8) / 8, np.round(b * 8) / 8
    P = a.astype(np.float64) * b.astype(np.float64)
    acc0 = rng.standard_normal(w).astype(np.float32)
    if kind == "exact":
        acc0 = np.round(acc0 * 8) / 8
    if kind == "midpoints":            # p + z lands half a binary32 ulp past z, rounded in binary64
        acc0[:] = 1.0
        P[:, ::3] = 2.0 ** -24 + 2.0 ** -70          # just above: rounds up
        P[:, 1::3] = 2.0 ** -24 - 2.0 ** -78         # just below: rounds down
        P[:, 2::3] = 2.0 ** -24                      # exactly on it: ties to even
    elif kind == "tiny":
        P *= 2.0 ** -140
        acc0 *= np.float32(2.0 ** -140)
    elif kind == "huge":
        P[5, 3] = 2.0 ** 128
    elif kind == "nan":
        P[9, 1] = np.nan
    S, R = np.empty_like(P), np.empty((n, w), np.float32)
    found = c.chain(P, acc0, S, R)
    S_ref, R_ref, found_ref = _reference_chain(P, acc0)
    assert S.tobytes() == S_ref.tobytes() and R.tobytes() == R_ref.tobytes()
    assert found == found_ref
    assert found == {"random": 1, "exact": 0, "midpoints": 1, "tiny": 3, "huge": 5, "nan": 5}[kind]
    if kind == "midpoints":            # rounding the binary64 sums would have gone wrong
        assert (R[:, ::3] != S[:, ::3].astype(np.float32)).any()
    assert c.chain(P, acc0, S, R[:-1]) is None          # shapes that do not fit


def test_remembered_replays_leave_the_state_replaying_would():
    """loops.replay's memo against _replay itself on random timing states and block
    programs: entered at other cycles, with other queue entries already past, with loads,
    stores and waits or without, every field of the timing state must come out equal."""
    import copy
    import random
    from kernelcraft.simulators.coral.loops import _REPLAYS, _replay, replay
    from kernelcraft.simulators.coral.timing import LOAD, NOWB, STORE, VectorTiming

    rng = random.Random(3)
    fields = ("vend", "mem_end", "store_end", "wb", "busy", "full_stall", "sync_stall", "wait_from")

    class Cfg:
        VQ_DEPTH = 4

    def state(t, past):
        tm = VectorTiming(Cfg)
        tm.waiting.extend(sorted([t - rng.randrange(1, 9) for _ in range(past)] + [t + 2, t + 5]))
        tm.vend, tm.mem_end, tm.store_end = t + 7, t - rng.randrange(0, 30), t + rng.choice((-4, 3))
        tm.busy, tm.full_stall, tm.sync_stall, tm.wait_from, tm.wb = 11, 5, 2, t - 1, 1
        return tm

    _REPLAYS.clear()
    hits = 0
    for trial in range(300):
        prog = [rng.choice([(0, rng.randrange(1, 4), 0), (1, rng.randrange(1, 9), rng.choice((0, LOAD, STORE, NOWB))),
                            (2, 0, 0), (3, 0, 0), (4, 0, 0)]) for _ in range(rng.randrange(1, 6))]
        n, taken, last = rng.randrange(0, 40), rng.randrange(0, 3), rng.randrange(0, 3)
        for t, past in ((1000, 0), (5000 + trial, 3), (90000, 1)):
            tm = state(t, past)
            ref = copy.deepcopy(tm)
            size = len(_REPLAYS)
            got = replay(tm, t, prog, n, taken, last)
            hits += len(_REPLAYS) == size and n > 0
            want = _replay(ref, t, prog, n, taken, last)
            assert got == want
            for f in fields:
                assert getattr(tm, f) == getattr(ref, f), (f, prog, n)
            assert list(tm.waiting) == list(ref.waiting), (prog, n)
    assert hits > 100                     # the memo was used, not only filled
