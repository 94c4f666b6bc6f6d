"""strips.py: the full strips of an elementwise strip-mined loop run at once must leave
exactly what running them strip by strip leaves, and the plan must decline otherwise."""
import numpy as np
import pytest
from coral_kit import CFG
from test_coral_loops import _same

from kernelcraft.simulators.coral.assembler import assemble
from kernelcraft.simulators.coral.strips import StripPlan

ELEMENTWISE = """
    la a0, xs
    la a1, ys
    li a2, {n}
    flw fa0, half, t6
    li s1, 3
.strip:
    vsetvli t0, a2, e32, m{lmul}, {policy}
    vle32.v v8, (a0)
    vfmul.vf v16, v8, fa0
    vfmacc.vv v16, v8, v8
    vfsqrt.v v24, v16
    vfcvt.x.f.v v12, v24
    vadd.vx v12, v12, s1
    vfcvt.f.x.v v12, v12
    vfmax.vv v28, v28, v12
    vfdiv.vv v20, v24, v8
    vse32.v v20, (a1)
    slli t1, t0, 2
    add a0, a0, t1
    add a1, a1, t1
    sub a2, a2, t0
    bnez a2, .strip
    csrr a3, fflags
    ebreak
    .data
half: .float 0.5
    .align 4
xs: .zero {nbytes}
ys: .zero {nbytes}
"""


def _elementwise(n=203, lmul=4, policy="ta, ma", xs=None):
    src = ELEMENTWISE.format(n=n, lmul=lmul, policy=policy, nbytes=4 * n)
    xs = np.random.default_rng(3).standard_normal(n).astype(np.float32) * 10 if xs is None else xs
    return src, {"xs": xs}


def _plan_of(source):
    from kernelcraft.isa.loader import get_isa
    from kernelcraft.simulators.coral import compiler as compiler_mod
    from kernelcraft.simulators.coral.state import CoralState
    from kernelcraft.simulators.coral.timing import VectorTiming
    program = assemble(source, "s.s", CFG)
    comp = compiler_mod.Compiler(program, CoralState(CFG, len(program.instrs)), VectorTiming(CFG), CFG,
                                 get_isa("coral"))
    return comp.block(program.labels[".strip"] // 4).loop


@pytest.mark.parametrize("n,lmul,policy", [(203, 4, "ta, ma"), (256, 2, "tu, mu"), (64, 1, "ta, mu")])
def test_strips_match_strip_by_strip(n, lmul, policy, monkeypatch):
    src, arrays = _elementwise(n, lmul, policy)
    assert isinstance(_plan_of(src), StripPlan)
    batches = []
    run = StripPlan.run

    def counted(self, t, left):
        out = run(self, t, left)
        batches.append(out)
        return out
    monkeypatch.setattr(StripPlan, "run", counted)
    r = _same(src, arrays)
    assert r.error is None and any(b is not None for b in batches)     # the batch path ran


def test_special_values_and_flags():
    xs = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 3e38, -1.0, 2.0] * 20, np.float32)
    src, arrays = _elementwise(len(xs), 4, "ta, ma", xs)
    r = _same(src, arrays)
    assert r.registers["fflags"] != 0


def test_in_place_store_and_overlapping_ranges():
    src, arrays = _elementwise(160)
    _same(src.replace("la a1, ys", "la a1, xs"), arrays)                  # y = f(x) in place: batched
    shifted = src.replace("la a1, ys", "la a1, xs\n    addi a1, a1, 64")  # overlaps later loads
    assert isinstance(_plan_of(shifted), StripPlan)
    _same(shifted, arrays)


def test_errors_and_budget_match():
    src, arrays = _elementwise(200)
    r = _same(src.replace("la a1, ys", "li a1, 0x100ff00"), arrays)       # stores run past DTCM
    assert r.error is not None
    r = _same(src, arrays, budget=__import__("kernelcraft.simulators.core.budget", fromlist=["Budget"]).Budget(
        max_instructions=100))
    assert r.error is not None
    _same(src.replace("e32, m4", "e16, m4"), arrays)                        # fp at SEW 16: illegal
    _same(src.replace("e32, m4", "e32, m2").replace("v28, v28", "v27, v27"), arrays)   # misaligned group


def test_loops_it_must_not_take():
    src, arrays = _elementwise(96)
    for old, new in (("vfmax.vv v28, v28, v12", "vfmax.vv v28, v28, v12\n    vfadd.vv v20, v28, v8"),
                     ("vadd.vx v12, v12, s1", "vadd.vx v12, v12, a0"),
                     ("add a0, a0, t1", "addi a0, a0, 4")):
        changed = src.replace(old, new)
        assert _plan_of(changed) is None
        _same(changed, arrays)


def test_many_strips_run_in_chunks(monkeypatch):
    from kernelcraft.simulators.coral import strips
    monkeypatch.setattr(strips, "MAX_ELEMENTS", 16 * 3)          # 3 strips at a time
    src, arrays = _elementwise(203)
    _same(src, arrays)


@pytest.mark.parametrize("sew,lmul,off", [(8, 1, 1), (8, 2, 3), (16, 4, 2), (8, 1, 0)])
def test_strips_of_loads_from_inside_a_word_time_as_stepping(sew, lmul, off):
    # a load from an address that is no multiple of 4 takes a cycle more (vector_core.realign);
    # the pointers advance by whole registers, so every strip starts at the same byte of a word
    # and the wide closure's one strip of cycles is each strip's
    src = (f"    la a0, xs\n    addi a0, a0, {off}\n    addi a1, a0, 1024\n    li a2, 600\n.strip:\n"
           f"    vsetvli t0, a2, e{sew}, m{lmul}, ta, ma\n    vle{sew}.v v8, (a0)\n    vadd.vv v8, v8, v8\n"
           f"    vse{sew}.v v8, (a1)\n    slli t1, t0, {sew // 16}\n    add a0, a0, t1\n    add a1, a1, t1\n"
           "    sub a2, a2, t0\n    bnez a2, .strip\n    ebreak\n    .data\n    .align 4\nxs: .zero 2400\n")
    assert isinstance(_plan_of(src), StripPlan)
    r = _same(src, {"xs": np.random.default_rng(5).integers(0, 256, 2400).astype(np.uint8)})
    vlmax, busy = 128 * lmul // sew, 0
    for vl in [vlmax] * (600 // vlmax) + [600 % vlmax] * bool(600 % vlmax):
        beats = -(-vl * sew // 128)
        busy += 3 * beats + (1 if off and off + vl * sew // 8 > 16 else 0)      # vle, vadd, vse
    assert r.unit_busy["vector"] == busy
