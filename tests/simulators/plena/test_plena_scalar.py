"""Scalar (S-type) instructions, with values worked out by hand."""
import math

import numpy as np

from plena_kit import f32_bits, image, run, vals, vrow


def gp(result, r):
    return result.registers["gp"][r]


def test_integer_arithmetic():
    r = run("""
        S_ADDI_INT gp1, gp0, 5
        S_ADDI_INT gp2, gp0, 7
        S_ADD_INT  gp3, gp1, gp2
        S_SUB_INT  gp4, gp1, gp2
        S_ADDI_INT gp5, gp0, -3
        S_MUL_INT  gp6, gp5, gp1
        S_ADDI_INT gp7, gp1, -131072
    """)
    assert [gp(r, i) for i in range(1, 8)] == [5, 7, 12, -2, -3, -15, 5 - 131072]


def test_lui_builds_constants_and_wraps():
    r = run("""
        S_LUI_INT  gp1, 1
        S_LUI_INT  gp2, 0xFFFFF
        S_LUI_INT  gp3, 0x80000
        S_LUI_INT  gp4, 0x12345
        S_ADDI_INT gp4, gp4, 0x678
    """)
    assert gp(r, 1) == 4096
    assert gp(r, 2) == -4096                     # 0xFFFFF000
    assert gp(r, 3) == -2**31                    # 0x80000000
    assert gp(r, 4) == 0x12345678


def test_integer_wrap_around():
    r = run("""
        S_LUI_INT  gp1, 0x80000        ; -2^31
        S_ADDI_INT gp2, gp1, -1        ; wraps to 2^31 - 1
        S_ADDI_INT gp3, gp2, 1         ; wraps back to -2^31
        S_SUB_INT  gp4, gp1, gp3       ; 0
        S_LUI_INT  gp5, 16             ; 65536
        S_MUL_INT  gp6, gp5, gp5       ; 2^32 -> 0
        S_ADDI_INT gp7, gp5, 1         ; 0x10001
        S_MUL_INT  gp8, gp7, gp7       ; 2^32 + 2^17 + 1 -> 131073
        S_SUB_INT  gp9, gp1, gp7       ; -2^31 - 65537 wraps positive
    """)
    assert gp(r, 2) == 2**31 - 1
    assert gp(r, 3) == -2**31
    assert gp(r, 4) == 0
    assert gp(r, 6) == 0
    assert gp(r, 8) == 131073
    assert gp(r, 9) == 2**31 - 65537


def test_gp0_is_hard_wired_to_zero():
    r = run("""
        S_ADDI_INT gp0, gp0, 5
        S_LUI_INT  gp0, 3
        S_ADD_INT  gp1, gp0, gp0
        S_ADDI_INT gp2, gp0, 9
    """)
    assert r.registers["gp"][0] == 0
    assert gp(r, 1) == 0 and gp(r, 2) == 9


def test_int_memory_load_store():
    r = run("""
        S_LD_INT   gp1, gp0, 3
        S_ADDI_INT gp2, gp0, 10
        S_ST_INT   gp1, gp2, -2        ; INT_MEM[8] = 42
        S_ADDI_INT gp3, gp0, -7
        S_ST_INT   gp3, gp0, 31        ; last entry
    """, image(int_mem={3: [42]}))
    assert gp(r, 1) == 42
    assert r.memories["int_mem"].dtype == np.int32
    assert r.memories["int_mem"][8] == 42 and r.memories["int_mem"][31] == -7


def fp_run(source, fp_values):
    return run(source, image(fp_mem={0: fp_values}))


def fp_mem_bits(result, addr):
    return int(result.memories["fp_mem"][addr:addr + 1].view(np.uint32)[0])


def test_fp_add_sub_mul():
    r = fp_run("""
        S_LD_FP f1, gp0, 0
        S_LD_FP f2, gp0, 1
        S_ADD_FP f3, f1, f2
        S_SUB_FP f4, f1, f2
        S_MUL_FP f5, f1, f2
    """, [1.5, 2.25])
    assert r.registers["f"][3:6] == [3.75, -0.75, 3.375]


def test_fp_add_rounds_to_nearest_even():
    # 1 + 2^-24 is halfway between 1 and 1 + 2^-23: ties go to the even 1.0;
    # (1 + 2^-23) + 2^-24 is halfway between odd 1+2^-23 and even 1+2^-22.
    r = fp_run("""
        S_LD_FP f1, gp0, 0
        S_LD_FP f2, gp0, 1
        S_LD_FP f3, gp0, 2
        S_ADD_FP f4, f1, f2
        S_ADD_FP f5, f3, f2
    """, [1.0, 2.0**-24, 1.0 + 2.0**-23])
    assert r.registers["f"][4] == 1.0
    assert r.registers["f"][5] == 1.0 + 2.0**-22


def test_fp_overflow_subnormal_and_canonical_nan():
    r = fp_run("""
        S_LD_FP f1, gp0, 0          ; 2^100
        S_LD_FP f2, gp0, 1          ; 2^-100
        S_LD_FP f3, gp0, 2          ; 2^-40
        S_LD_FP f6, gp0, 3          ; +inf
        S_MUL_FP f4, f1, f1         ; 2^200 -> +inf
        S_MUL_FP f5, f2, f3         ; 2^-140, subnormal, kept
        S_SUB_FP f7, f6, f6         ; inf - inf -> NaN
        S_ST_FP f7, gp0, 10
        S_ST_FP f5, gp0, 11
    """, [2.0**100, 2.0**-100, 2.0**-40, math.inf])
    f = r.registers["f"]
    assert f[4] == math.inf
    assert f[5] == 2.0**-140
    assert math.isnan(f[7])
    assert fp_mem_bits(r, 10) == 0x7FC00000          # canonical quiet NaN, positive
    assert fp_mem_bits(r, 11) == 1 << 9              # 2^-140 = 2^9 * 2^-149


def test_fp_max_signed_zeros_and_nan():
    r = fp_run("""
        S_LD_FP f1, gp0, 0          ; -0.0
        S_MAX_FP f2, f1, f0         ; max(-0, +0)
        S_MAX_FP f3, f0, f1         ; max(+0, -0)
        S_MAX_FP f4, f1, f1         ; max(-0, -0)
        S_LD_FP f5, gp0, 1          ; NaN
        S_MAX_FP f6, f5, f0
        S_LD_FP f7, gp0, 2
        S_MAX_FP f7, f7, f1         ; max(-3, -0) = -0
        S_ST_FP f2, gp0, 10
        S_ST_FP f3, gp0, 11
        S_ST_FP f4, gp0, 12
        S_ST_FP f6, gp0, 13
        S_ST_FP f7, gp0, 14
    """, [-0.0, np.float32(np.nan), -3.0])
    assert [fp_mem_bits(r, a) for a in range(10, 15)] == [
        0x00000000, 0x00000000, 0x80000000, 0x7FC00000, 0x80000000]


def test_fp_exp_reci_sqrt():
    r = fp_run("""
        S_LD_FP f1, gp0, 0          ; 0
        S_LD_FP f2, gp0, 1          ; 4
        S_LD_FP f3, gp0, 2          ; -0.0
        S_EXP_FP f4, f1             ; exp(0) = 1 exactly
        S_RECI_FP f5, f2            ; 0.25
        S_SQRT_FP f6, f2            ; 2
        S_RECI_FP f7, f3            ; 1/-0 = -inf
        S_ST_FP f4, gp0, 10
        S_ST_FP f5, gp0, 11
        S_ST_FP f6, gp0, 12
        S_ST_FP f7, gp0, 13
        S_SQRT_FP f4, f3            ; sqrt(-0) = -0
        S_ST_FP f4, gp0, 14
        S_LD_FP f1, gp0, 3          ; -1
        S_SQRT_FP f4, f1            ; NaN
        S_ST_FP f4, gp0, 15
        S_LD_FP f1, gp0, 4          ; 1
        S_EXP_FP f4, f1
        S_ST_FP f4, gp0, 16
    """, [0.0, 4.0, -0.0, -1.0, 1.0])
    assert [fp_mem_bits(r, a) for a in range(10, 16)] == [
        f32_bits(1.0), f32_bits(0.25), f32_bits(2.0), 0xFF800000, 0x80000000, 0x7FC00000]
    e = float(r.memories["fp_mem"][16])
    assert abs(e - math.e) <= 2 * np.spacing(np.float32(math.e))


def test_f0_is_hard_wired_to_zero():
    r = fp_run("""
        S_LD_FP f0, gp0, 0
        S_ADD_FP f0, f1, f1
        S_ADD_FP f2, f0, f0
        S_ST_FP f0, gp0, 5
    """, [7.0])
    assert r.registers["f"][0] == 0.0 and r.registers["f"][2] == 0.0
    assert fp_mem_bits(r, 5) == 0


def test_map_v_fp_rounds_each_value_to_bf16():
    # ties to even (1+2^-8 -> 1.0; 1+3*2^-8 -> 1+2^-6), a kept subnormal, overflow to inf
    r = fp_run("""
        S_ADDI_INT gp1, gp0, 16        ; row 2
        S_ADDI_INT gp2, gp0, 1
        S_MAP_V_FP gp1, gp2, -1        ; FP_MEM[0..7]
    """, [1.0, 1.00390625, 1.01171875, 3.0, -2.5, 1e-40, 3.4e38, 0.1])
    row = r.memories["vsram"][16:24]
    assert list(row) == [0x3F80, 0x3F80, 0x3F82, 0x4040, 0xC020, 0x0001, 0x7F80, 0x3DCD]
    assert vrow(r, 1).tolist() == [0.0] * 8
    assert vals(row[:1])[0] == 1.0
