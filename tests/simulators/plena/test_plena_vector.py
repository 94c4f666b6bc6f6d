"""Vector (V-type) instructions on the small configuration (VLEN = 8, HLEN = 4, so two
head segments per row), with values worked out by hand."""
import math

import numpy as np
import pytest

from plena_kit import image, run, vrow
from kernelcraft.simulators.core.budget import Budget
from kernelcraft.simulators.core.errors import IllegalOperandError, MemoryAccessError
from kernelcraft.simulators.numerics import exp, reciprocal, tree_sum

ROW0 = [1, 2, 3, 4, 5, 6, 7, 8]
SETUP = """
    S_ADDI_INT gp1, gp0, 0        ; row 0
    S_ADDI_INT gp2, gp0, 8        ; row 1
    S_ADDI_INT gp3, gp0, 16       ; row 2
    S_LD_FP f1, gp0, 0
    S_LD_FP f2, gp0, 1
"""


def vrun(body, row0=ROW0, row1=(0.5,) * 8, row2=(9,) * 8, fp=(0.0, 0.0), **kw):
    img = image(vsram={0: list(row0), 8: list(row1), 16: list(row2)},
                fp_mem={0: list(fp)})
    return run(SETUP + body, img, **kw)


def test_add_vv_rounds_once_to_bf16():
    # 1 + 2^-8 is a bf16 tie (-> 1.0, even); (1 + 2^-7) + 2^-8 ties up to 1 + 2^-6
    r = vrun("V_ADD_VV gp3, gp1, gp2",
             row0=[1, 2, 1, 1.0078125, -3, 0, 0, 0],
             row1=[0.5, 0.25, 2**-8, 2**-8, 3, -0.0, 0, 0])
    assert vrow(r, 2).tolist() == [1.5, 2.25, 1.0, 1.015625, 0.0, 0.0, 0.0, 0.0]
    assert vrow(r, 0).tolist() == [1, 2, 1, 1.0078125, -3, 0, 0, 0]     # sources unchanged


def test_add_vv_destination_may_be_a_source():
    r = vrun("V_ADD_VV gp1, gp1, gp1")
    assert vrow(r, 0).tolist() == [2, 4, 6, 8, 10, 12, 14, 16]


def test_masked_write_keeps_disabled_head_segments():
    r = vrun("""
        S_ADDI_INT gp4, gp0, 2        ; V_MASK = 0b10: only elements 4..7
        C_SET_V_MASK_REG gp4
        V_ADD_VV gp3, gp1, gp2, 1
        S_ADDI_INT gp4, gp0, 1        ; 0b01: elements 0..3
        C_SET_V_MASK_REG gp4
        V_MUL_VF gp1, gp1, f1, 1
    """, fp=(10.0, 0.0))
    assert vrow(r, 2).tolist() == [9, 9, 9, 9, 5.5, 6.5, 7.5, 8.5]
    assert vrow(r, 0).tolist() == [10, 20, 30, 40, 5, 6, 7, 8]
    assert r.registers["V_MASK"] == 1


def test_mask_bits_above_heads_are_ignored_and_zero_mask_writes_nothing():
    r = vrun("""
        S_ADDI_INT gp4, gp0, 4        ; bit 2: no such head with HEADS = 2
        C_SET_V_MASK_REG gp4
        V_ADD_VV gp3, gp1, gp1, 1
    """)
    assert vrow(r, 2).tolist() == [9] * 8


def test_add_vf_uses_the_fp32_scalar_unrounded():
    # f = 2^-8 + 2^-20 is fp32 but not bf16; 1 + f lies just above the bf16 tie and
    # rounds up to 1 + 2^-7 (rounding f to bf16 first would give 1.0)
    r = vrun("V_ADD_VF gp3, gp1, f1", row0=[1] * 8, fp=(2**-8 + 2**-20, 0))
    assert vrow(r, 2).tolist() == [1.0078125] * 8


def test_sub_vv_is_rs1_minus_rs2():
    r = vrun("V_SUB_VV gp3, gp1, gp2")
    assert vrow(r, 2).tolist() == [0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5]


def test_sub_vf_operand_order():
    r = vrun("""
        V_SUB_VF gp3, gp1, f1, 0, 0     ; x - f
        V_SUB_VF gp2, gp1, f1, 0, 1     ; f - x
    """, fp=(3.0, 0))
    assert vrow(r, 2).tolist() == [-2, -1, 0, 1, 2, 3, 4, 5]
    assert vrow(r, 1).tolist() == [2, 1, 0, -1, -2, -3, -4, -5]


def test_mul_vv_vf_and_overflow():
    r = vrun("""
        V_MUL_VV gp3, gp1, gp1
        V_MUL_VF gp2, gp1, f1
    """, row0=[3, -2, 2.0**100, 0.5, 0, -1, 1, 2], fp=(-4.0, 0))
    assert vrow(r, 2).tolist() == [9, 4, math.inf, 0.25, 0, 1, 1, 4]
    assert vrow(r, 1).tolist() == [-12, 8, -(2.0**102), -2, -0.0, 4, -4, -8]


def test_max_vf_is_relu_with_f0_and_min_vf_signed_zero():
    r = vrun("""
        V_MAX_VF gp3, gp1, f0
        V_MIN_VF gp2, gp2, f1
    """, row0=[-1, 2, -0.0, 0.0, math.nan, -math.inf, 0.5, -7],
        row1=[0.0, 1, -1, 0, 0, 0, 0, 0], fp=(-0.0, 0))
    assert list(r.memories["vsram"][16:24]) == [0x0000, 0x4000, 0x0000, 0x0000, 0x7FC0,
                                                0x0000, 0x3F00, 0x0000]
    # min(+0, -0) = -0; min(1, -0) = -0; min(-1, -0) = -1
    assert list(r.memories["vsram"][8:11]) == [0x8000, 0x8000, 0xBF80]


def test_exp_v_special_cases():
    r = vrun("V_EXP_V gp3, gp1",
             row0=[0, 1, -math.inf, math.inf, math.nan, -200, 100, -1])
    got = list(r.memories["vsram"][16:24])
    assert got[:7] == [0x3F80, 0x402E, 0x0000, 0x7F80, 0x7FC0, 0x0000, 0x7F80]
    assert abs(vrow(r, 2)[7] - math.exp(-1)) < 2**-9        # bf16 precision


def test_reci_v_special_cases():
    r = vrun("V_RECI_V gp3, gp1", row0=[4, 3, 0.0, -0.0, math.inf, -math.inf, math.nan, -0.5])
    assert list(r.memories["vsram"][16:24]) == [0x3E80, 0x3EAB, 0x7F80, 0xFF80, 0x0000,
                                                0x8000, 0x7FC0, 0xC000]


def test_red_sum_accumulates_into_f():
    r = vrun("""
        V_RED_SUM f1, gp1
        V_RED_SUM f2, gp1
        V_RED_SUM f2, gp1
    """, fp=(1.0, 0))
    assert r.registers["f"][1] == 37.0 and r.registers["f"][2] == 72.0


def test_red_sum_uses_the_halving_tree_order():
    # halving: [2^24+0, 1+0, -2^24+0, 1+0] -> [0, 2] -> 2; a left-to-right sum gives 1
    r = vrun("V_RED_SUM f1, gp1", row0=[2**24, 1, -2**24, 1, 0, 0, 0, 0])
    assert r.registers["f"][1] == 2.0


def test_red_max_zero_signs_and_nan():
    r = vrun("""
        V_RED_MAX f1, gp1
        V_RED_MAX f2, gp2
        S_LD_FP f3, gp0, 0
        V_RED_MAX f3, gp3
    """, row0=[-0.0] * 8, row1=[-5, -0.0, 0.0, -1, -2, -3, -4, -6],
        row2=[1, 2, math.nan, 3, 4, 5, 6, 7], fp=(-math.inf, -math.inf))
    f = r.registers["f"]
    assert f[1] == 0.0 and math.copysign(1, f[1]) == -1      # all -0: -0
    assert f[2] == 0.0 and math.copysign(1, f[2]) == 1       # +0 beats -0
    assert math.isnan(f[3])


def test_red_max_keeps_larger_accumulator():
    r = vrun("V_RED_MAX f1, gp1", fp=(100.0, 0))
    assert r.registers["f"][1] == 100.0


@pytest.mark.parametrize("shift, expected", [
    (0, ROW0), (3, [4, 5, 6, 7, 8, 0, 0, 0]), (7, [8, 0, 0, 0, 0, 0, 0, 0]), (8, [0] * 8)])
def test_shift(shift, expected):
    r = vrun(f"S_ADDI_INT gp4, gp0, {shift}\nV_SHFT_V gp3, gp1, gp4")
    assert vrow(r, 2).tolist() == expected


@pytest.mark.parametrize("shift", [9, -1])
def test_shift_out_of_range_is_an_error(shift):
    r = vrun(f"S_ADDI_INT gp4, gp0, {shift}\nV_SHFT_V gp3, gp1, gp4", expect_ok=False)
    assert isinstance(r.error, IllegalOperandError)
    assert f"= {shift} is outside 0..VLEN (8)" in str(r.error)
    assert r.error.where.text == "V_SHFT_V gp3, gp1, gp4" and r.error.where.line == 8
    assert vrow(r, 2).tolist() == [9] * 8                    # nothing written


def _topk_weights(selected):
    """The manual's algorithm, spelled out with the numerics primitives."""
    x = np.float32(selected)
    e = exp((x - x[0]).astype(np.float32))
    return (e * reciprocal(tree_sum(e))).astype(np.float32)


def test_topk_4_of_32():
    logits = [-10.0] * 32
    logits[5], logits[17], logits[2], logits[30] = 3.0, 3.0, 2.0, 1.0   # 5 and 17 tie
    img = image(vsram={64: logits})
    r = run("""
        S_ADDI_INT gp1, gp0, 64       ; logits at row 8 (4 rows)
        S_ADDI_INT gp2, gp0, 20       ; FP_MEM[20..23]
        S_ADDI_INT gp3, gp0, 4        ; INT_MEM[4..7]
        V_TOPK gp2, gp1, gp3, 0
    """, img)
    assert r.memories["int_mem"][4:8].tolist() == [5, 17, 2, 30]
    w = r.memories["fp_mem"][20:24]
    assert w.tobytes() == _topk_weights([3.0, 3.0, 2.0, 1.0]).tobytes()
    ref = np.exp(np.array([0, 0, -1, -2.0]))
    assert np.allclose(w, ref / ref.sum(), rtol=1e-6)


def test_topk_8_of_128():
    logits = np.full(128, -1.0)
    top = {100: 9.0, 3: 8.0, 127: 7.5, 64: 7.0, 65: 7.0, 0: 6.0, 77: 5.0, 50: 4.0, 51: 3.0}
    for i, v in top.items():
        logits[i] = v
    r = run("""
        S_ADDI_INT gp1, gp0, 128      ; row 16 (16 rows)
        V_TOPK gp0, gp1, gp0, 1
    """, image(vsram={128: logits.tolist()}))
    assert r.memories["int_mem"][:8].tolist() == [100, 3, 127, 64, 65, 0, 77, 50]
    assert r.memories["fp_mem"][:8].tobytes() == _topk_weights(
        [9.0, 8.0, 7.5, 7.0, 7.0, 6.0, 5.0, 4.0]).tobytes()


@pytest.mark.parametrize("fast", [True, False])
def test_topk_nan_logit_is_an_error(fast):
    logits = [0.0] * 32
    logits[9] = math.nan
    r = run("S_ADDI_INT gp1, gp0, 64\nV_TOPK gp0, gp1, gp0, 0",
            image(vsram={64: logits}), budget=Budget(fast=fast), expect_ok=False)
    assert isinstance(r.error, IllegalOperandError)
    assert r.error.address == 73 and "NaN" in str(r.error)
    assert r.memories["int_mem"][:4].tolist() == [0, 0, 0, 0]
    # Found in V_TOPK's step 1 (the RTL checks the logits it read at issue, cycle 1):
    # reported in cycle 2, the run counts 3 cycles, the vector unit was busy for one.
    assert (r.error.where.cycle, r.cycles, r.unit_busy["vector"]) == (2, 3, 1)


@pytest.mark.parametrize("fast", [True, False])
def test_topk_classes_follow_rmask(fast):
    # 4 of 32 ends four selections before 8 of 128 (rtl/plena/plena_topk.v): k + 11.
    for rmask, cycles in ((0, 15), (1, 19)):
        r = run(f"V_TOPK gp0, gp0, gp0, {rmask}", budget=Budget(fast=fast))
        assert (r.cycles, r.unit_busy["vector"]) == (cycles, cycles)


def test_topk_logits_must_fit_in_vector_sram():
    r = run("S_ADDI_INT gp1, gp0, 448\nV_TOPK gp0, gp1, gp0, 1", expect_ok=False)  # rows 56..71
    assert isinstance(r.error, MemoryAccessError) and r.error.memory == "vsram"
