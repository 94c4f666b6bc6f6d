"""vfrsqrt7.v and vfrec7.v (RVV 1.0 sections 13.9 and 13.10): results worked out by
hand from the specification's definition (table index, output exponent, subnormal
inputs and outputs, special cases and their flags, the rounding-mode-dependent
overflow of vfrec7), the 7-bit accuracy over random inputs, masks and SEW."""
import numpy as np
import pytest
from coral_kit import bits, run, value, x

NV, DZ, OF, NX = 16, 8, 4, 1
INF, MAX, CANON = 0x7F800000, 0x7F7FFFFF, 0x7FC00000
RM = {"rne": 0, "rtz": 1, "rdn": 2, "rup": 3, "rmm": 4}


def estimate(mn, inputs, rm=0, masked=None):
    """Run `mn` on the binary32 bit patterns `inputs`; (results, fflags)."""
    n = len(inputs)
    mask = "" if masked is None else f"li a1, {masked}\nvmv.s.x v0, a1\n"
    src = (f"fsrmi {rm}\nli t6, {n}\nvsetvli t5, t6, e32, m4, tu, mu\nla a0, d\nvle32.v v8, (a0)\nvmv.v.i v4, 0\n"
           + mask + f"{mn} v4, v8{', v0.t' if masked is not None else ''}\ncsrr a2, fflags\n"
           f".data\nd: .zero {4 * n}")
    r = run(src, d=np.array(inputs, np.uint32))
    return np.concatenate(list(r.registers["v"][4:8])).view(np.uint32)[:n].tolist(), x(r, "a2")


# --- vfrsqrt7 ---------------------------------------------------------------------------

def test_vfrsqrt7_by_hand():
    # 1.0: biased exponent 127 (odd), fraction 0 -> entry (1, 0) = 127 of 1/sqrt at the
    # midpoint 1 + 1/128 (2/sqrt(1.0078) = 1.9922 -> 127/128); exponent (3*127-1-127)//2 = 126
    # 2.0: exponent 128 (even), fraction 0 -> x in [2, 4): 2/sqrt(2.0156) = 1.4087 -> 52; exponent 126
    # 3.0: exponent 128, fraction bits 100000 -> 32: 2/sqrt(3.0156) = 1.1517 -> 19; exponent 126
    # 4.0: exponent 129 (odd), fraction 0 -> 127; exponent (380 - 129)//2 = 125
    # smallest subnormal 2^-149: normalized exponent -22 (22 leading zeros), fraction 0, even
    #   -> 52; exponent (380 + 22)//2 = 201, i.e. 1.40625 * 2^74 (1/sqrt(2^-149) = 1.414 * 2^74)
    got, fl = estimate("vfrsqrt7.v", [bits(1.0), bits(2.0), bits(3.0), bits(4.0), 0x00000001])
    assert got == [0x3F7F0000, 0x3F340000, 0x3F130000, 0x3EFF0000, (201 << 23) | (52 << 16)]
    assert fl == 0                                             # estimates are not inexact


def test_vfrsqrt7_special_cases():
    snan, qnan = 0x7F800001, 0x7FC00001
    got, fl = estimate("vfrsqrt7.v", [0x80000000, 0x00000000, INF, qnan])
    assert got == [0x80000000 | INF, INF, 0, CANON] and fl == DZ
    got, fl = estimate("vfrsqrt7.v", [bits(-1.0)])
    assert got == [CANON] and fl == NV
    got, fl = estimate("vfrsqrt7.v", [0x80000000 | INF])
    assert got == [CANON] and fl == NV
    got, fl = estimate("vfrsqrt7.v", [snan])
    assert got == [CANON] and fl == NV
    got, fl = estimate("vfrsqrt7.v", [0x80000001])              # a negative subnormal
    assert got == [CANON] and fl == NV


# --- vfrec7 -------------------------------------------------------------------------------

def test_vfrec7_by_hand():
    # 1.0: fraction 0 -> entry 0 = 127 (2/(1 + 1/256) = 1.992); exponent 2*127 - 1 - 127 = 126
    # 3.0: fraction bits 1000000 -> 64: 2/(1 + 64.5/128) = 1.3299 -> 42; exponent 253 - 128 = 125
    # -0.75: sign kept, exponent 126, index 64 -> 42, exponent 127: -1.328125
    # 2^-127 (subnormal, fraction 0x400000): normalized exponent 0, fraction 0 -> 127,
    #   exponent 253: 1.9921875 * 2^126
    # 2^-128 (fraction 0x200000): normalized exponent -1 -> exponent 254, still normal
    got, fl = estimate("vfrec7.v", [bits(1.0), bits(3.0), bits(-0.75), 0x00400000, 0x00200000])
    assert got == [0x3F7F0000, 0x3EAA0000, bits(-1.328125), (253 << 23) | (127 << 16), (254 << 23) | (127 << 16)]
    assert fl == 0


def test_vfrec7_subnormal_results():
    # 2^126: output exponent 253 - 253 = 0 -> subnormal: (1 << 23 | 127 << 16) >> 1
    # 2^127: output exponent -1 -> shifted right by 2; 1.5 * 2^127 (index 64 -> 42)
    got, fl = estimate("vfrec7.v", [0x7E800000, 0x7F000000, 0x7F400000, 0xFF000000])
    assert got == [0xFF0000 >> 1, 0xFF0000 >> 2, (0x800000 | 42 << 16) >> 2, 0x80000000 | 0xFF0000 >> 2]
    assert value(got[1]) == pytest.approx(2.0 ** -127, rel=2 ** -7) and fl == 0


def test_vfrec7_special_cases():
    got, fl = estimate("vfrec7.v", [0x80000000, 0x00000000])
    assert got == [0x80000000 | INF, INF] and fl == DZ
    got, fl = estimate("vfrec7.v", [INF, 0x80000000 | INF, 0x7FC00000])
    assert got == [0, 0x80000000, CANON] and fl == 0
    got, fl = estimate("vfrec7.v", [0xFF800001])                      # signaling NaN
    assert got == [CANON] and fl == NV


@pytest.mark.parametrize("rm, positive, negative", [
    ("rne", INF, INF), ("rmm", INF, INF),
    ("rtz", MAX, MAX),
    ("rup", INF, MAX),          # rounding up: +inf above, the largest negative value below
    ("rdn", MAX, INF),          # rounding down: +max above, -inf below
])
def test_vfrec7_overflow_depends_on_the_rounding_mode(rm, positive, negative):
    # below 2^-128 in magnitude (subnormal fraction 00...): 1/x exceeds the largest finite value
    for x_ in (0x00100000, 0x00000001, 0x001FFFFF):
        got, fl = estimate("vfrec7.v", [x_, 0x80000000 | x_], RM[rm])
        assert got == [positive, 0x80000000 | negative] and fl == OF | NX, hex(x_)


# --- accuracy, masks, SEW ---------------------------------------------------------------

@pytest.mark.parametrize("mn, fn", [("vfrsqrt7.v", lambda v: 1 / np.sqrt(v)), ("vfrec7.v", lambda v: 1 / v)])
def test_estimates_are_within_2_to_the_minus_7(mn, fn):
    rng = np.random.default_rng(3)
    inputs = rng.integers(0x00800000, 0x7E800000, 16).astype(np.uint32)
    got, fl = estimate(mn, inputs.tolist())
    est = np.array(got, np.uint32).view(np.float32).astype(np.float64)
    exact = fn(inputs.view(np.float32).astype(np.float64))
    assert np.all(np.abs(est / exact - 1) < 2 ** -7) and fl == 0


def test_masked_off_elements_raise_no_flags_and_keep_their_value():
    got, fl = estimate("vfrec7.v", [0, bits(1.0), 0x7F800001, bits(2.0)], masked=0b1010)
    assert got == [0, 0x3F7F0000, 0, 0x3EFF0000] and fl == 0


def test_sew_must_be_32_and_frm_valid():
    r = run("li t6, 4\nvsetvli t5, t6, e16, m1\nvfrec7.v v1, v2", expect_ok=False)
    assert "needs SEW = 32" in str(r.error)
    r = run("fsrmi 5\nli t6, 4\nvsetvli t5, t6, e32, m1\nvfrsqrt7.v v1, v2", expect_ok=False)
    assert "frm = 5, which is reserved" in str(r.error)
    r = run("li t6, 8\nvsetvli t5, t6, e32, m2\nvfrec7.v v1, v2", expect_ok=False)
    assert "vd = v1 is not a multiple of 2" in str(r.error)


def test_tables_entries_worked_out_from_the_definition():
    from kernelcraft.simulators.coral.semantics.vector_estimate import REC7, RSQRT7
    # rec7: entry i covers fractions [i, i+1)/128; 128 * (2 / (1 + (i + 0.5)/128) - 1), rounded
    assert (REC7[0], REC7[1], REC7[64], REC7[100], REC7[127]) == (127, 125, 42, 15, 0)
    # rsqrt7: entries 0..63 for an even exponent (x in [2, 4)), 64..127 for an odd one ([1, 2))
    # 128 * (2 / sqrt(mid) - 1): (even, 20): mid 2.640625 -> 29.54 -> 30; (odd, 63): mid 1.9921875 -> 53.4
    assert (RSQRT7[0], RSQRT7[20], RSQRT7[63], RSQRT7[64], RSQRT7[127]) == (52, 30, 0, 127, 53)
    assert all(np.diff(REC7) <= 0) and all(np.diff(RSQRT7[:64]) <= 0) and all(np.diff(RSQRT7[64:]) <= 0)
    assert REC7.min() >= 0 and REC7.max() <= 127 and RSQRT7.min() >= 0 and RSQRT7.max() <= 127
