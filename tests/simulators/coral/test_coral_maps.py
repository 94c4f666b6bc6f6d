"""maps.py: a counted loop of loads, element-wise instructions and stores run at once
must leave exactly what running it iteration by iteration leaves (memories, registers,
flags, cycles, stalls, errors), and the plan must decline otherwise."""
import numpy as np
import pytest
from coral_kit import CFG
from test_coral_loops import _same

from kernelcraft.simulators.core.budget import Budget
from kernelcraft.simulators.coral.assembler import assemble
from kernelcraft.simulators.coral.maps import MapPlan

# a scaled transpose (strided load, unit store) and a strided store back, as attention
# baselines pack and unpack heads
TRANSPOSE = """
    la a3, src
    la a4, dst
    li t2, {pitch}
    li t5, {dpitch}
    flw ft10, scale, t6
    li s1, 7
    li t1, {vl}
    vsetvli t0, t1, e32, m{lmul}, {policy}
    li t4, {cols}
.loop:
    vlse32.v v8, (a3), t2
    vfmul.vf v8, v8, ft10
    vfadd.vv v16, v8, v24
    vxor.vx v0, v16, s1
    vse32.v v16, (a4)
    addi a3, a3, 4
    add a4, a4, t5
    addi t4, t4, -1
    bnez t4, .loop
    csrr a5, fflags
    ebreak
    .data
scale: .float 0.125
    .align 4
src: .zero {sbytes}
dst: .zero {dbytes}
"""


def _transpose(rows=32, cols=24, lmul=8, vl=None, policy="ta, ma", xs=None, pitch=None, dpitch=None):
    vl = rows if vl is None else vl
    pitch = pitch or 4 * cols
    dpitch = dpitch or 4 * vl
    src = TRANSPOSE.format(pitch=pitch, dpitch=dpitch, vl=vl, lmul=lmul, policy=policy, cols=cols,
                           sbytes=pitch * rows + 4 * cols, dbytes=abs(dpitch) * cols + 4 * vl)
    xs = np.random.default_rng(5).standard_normal((pitch * rows + 4 * cols) // 4).astype(np.float32) if xs is None else xs
    return src, {"src": xs}


def _plan_of(source):
    from kernelcraft.isa.loader import get_isa
    from kernelcraft.simulators.coral import compiler as compiler_mod
    from kernelcraft.simulators.coral.state import CoralState
    from kernelcraft.simulators.coral.timing import VectorTiming
    program = assemble(source, "m.s", CFG)
    comp = compiler_mod.Compiler(program, CoralState(CFG, len(program.instrs)), VectorTiming(CFG), CFG,
                                 get_isa("coral"))
    return comp.block(program.labels[".loop"] // 4).loop


def _counted(monkeypatch):
    batches = []
    run = MapPlan.run

    def counted(self, t, left):
        out = run(self, t, left)
        batches.append(out)
        return out
    monkeypatch.setattr(MapPlan, "run", counted)
    return batches


@pytest.mark.parametrize("rows,lmul,vl,policy", [(32, 8, None, "ta, ma"), (32, 8, 19, "tu, mu"),
                                                  (8, 2, 5, "ta, ma"), (4, 1, None, "ta, mu")])
def test_maps_match_iteration_by_iteration(rows, lmul, vl, policy, monkeypatch):
    src, arrays = _transpose(rows=rows, lmul=lmul, vl=vl, policy=policy)
    assert isinstance(_plan_of(src), MapPlan)
    batches = _counted(monkeypatch)
    r = _same(src, arrays)
    assert r.error is None and any(b is not None for b in batches)     # the batch path ran


def test_special_values_flags_and_in_place(monkeypatch):
    batches = _counted(monkeypatch)
    xs = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 3e38, -1.0, 2.0] * 80, np.float32)
    src, arrays = _transpose(xs=xs)
    r = _same(src, arrays)
    assert r.registers["fflags"] != 0
    # the unpacking loop of the attention baselines: two rows stored with a stride per
    # iteration, a pointer stepped twice, and an in-place scaling
    unpack = """
    la a1, src
    la a0, dst
    li t2, 96
    vsetvli t0, zero, e32, m8, ta, ma
    li t4, 12
.loop:
    vle32.v v8, (a1)
    vsse32.v v8, (a0), t2
    addi a1, a1, 128
    addi a0, a0, 4
    vle32.v v16, (a1)
    vfadd.vv v16, v16, v16
    vse32.v v16, (a1)
    vsse32.v v16, (a0), t2
    addi a1, a1, 128
    addi a0, a0, 4
    addi t4, t4, -1
    bnez t4, .loop
    ebreak
    .data
    .align 4
src: .zero 3200
dst: .zero 3200
"""
    assert isinstance(_plan_of(unpack), MapPlan)
    _same(unpack, {"src": np.random.default_rng(2).standard_normal(800).astype(np.float32)})
    assert batches[-1] is not None


def test_overlaps_errors_and_budget_match(monkeypatch):
    batches = _counted(monkeypatch)
    src, arrays = _transpose()
    # stores that later loads read (dst inside src), stores onto one another (pitch 0)
    _same(src.replace("la a4, dst", "la a4, src\n    addi a4, a4, 8"), arrays)
    _same(src.replace("li t5, 128", "li t5, 0"), arrays)
    assert batches and all(b is None for b in batches)
    # stores running past DTCM, a misaligned pointer, a misaligned group, fp at SEW 16
    for old, new in (("la a4, dst", "li a4, 0x100ff00"), ("la a3, src", "la a3, src\n    addi a3, a3, 2"),
                     ("v24", "v20"), ("e32, m8", "e16, m8")):
        r = _same(src.replace(old, new), arrays)
    assert r.error is not None
    for n in (5, 40, 137):
        _same(src, arrays, budget=Budget(max_instructions=n))


def test_batches_and_negative_steps(monkeypatch):
    from kernelcraft.simulators.coral import maps
    monkeypatch.setattr(maps, "MAX_WIDE_BYTES", 32 * 16 * 5)     # 5 iterations at a time
    batches = _counted(monkeypatch)
    src, arrays = _transpose(dpitch=-128)
    _same(src.replace("la a4, dst", "la a4, dst\n    li t6, 2944\n    add a4, a4, t6"), arrays)
    assert sum(b is not None for b in batches) >= 4


def test_loops_it_must_not_take():
    src, _ = _transpose()
    for old, new in (("vfadd.vv v16, v8, v24", "vfadd.vv v16, v8, v16"),          # v16 carried
                     ("vxor.vx v0, v16, s1", "vxor.vx v0, v16, a3"),              # a stepped operand
                     ("li t2,", "mv t2, a3\n    li t6,"),                           # (stride stepped:)
                     ("vfmul.vf v8, v8, ft10", "vfmul.vf v8, v8, ft10, v0.t")):    # masked
        changed = src.replace(old, new)
        if "mv t2" in changed:
            changed = changed.replace("addi a3, a3, 4", "addi a3, a3, 4\n    addi t2, t2, 4")
        assert _plan_of(changed) is None, (old, new)
