"""The numerics specification (simulators/numerics.py, isa/plena/README.md "Numerics"):
bf16 rounding, special values, the special functions and the reduction order."""
import math

import numpy as np
import pytest

from kernelcraft.simulators import numerics as nx


def f32(bits):
    return np.asarray(bits, dtype=np.uint32).view(np.float32)


def bits32(x):
    return np.asarray(x, dtype=np.float32).view(np.uint32)


# --- fp32 -> bf16 -------------------------------------------------------------------

@pytest.mark.parametrize("fp32_bits, bf16_bits", [
    (0x3F800000, 0x3F80),       # 1.0 exact
    (0x3F808000, 0x3F80),       # tie, even (lsb 0) stays
    (0x3F818000, 0x3F82),       # tie, odd (lsb 1) rounds up to even
    (0x3F808001, 0x3F81),       # just above the tie
    (0x3F817FFF, 0x3F81),       # just below the tie
    (0xBF818000, 0xBF82),       # negative ties alike
    (0x7F7FFFFF, 0x7F80),       # largest fp32 overflows to +inf
    (0x7F7F8000, 0x7F80),       # tie at the top rounds to even = inf
    (0x7F7F7FFF, 0x7F7F),       # stays the largest finite bf16
    (0xFF7FFFFF, 0xFF80),       # -inf
    (0x7F800000, 0x7F80),       # inf stays inf
    (0x00010000, 0x0001),       # smallest bf16 subnormal, kept
    (0x00008000, 0x0000),       # subnormal tie to even (zero)
    (0x00018000, 0x0002),       # subnormal tie to even (up)
    (0x80000000, 0x8000),       # -0 kept
    (0x7FC00000, 0x7FC0),       # quiet NaN
    (0xFFC00001, 0x7FC0),       # negative NaN with payload -> canonical
    (0x7F800001, 0x7FC0),       # signalling NaN -> canonical
    (0x7FFFFFFF, 0x7FC0),       # NaN whose rounding would carry -> canonical
])
def test_f32_to_bf16_rounding(fp32_bits, bf16_bits):
    x = f32([fp32_bits])
    assert int(nx.f32_to_bf16_bits(x)[0]) == bf16_bits
    assert int(bits32(nx.round_bf16(x))[0]) == bf16_bits << 16


def test_bf16_to_f32_is_exact_and_round_trips():
    every = np.arange(65536, dtype=np.uint16)
    widened = nx.bf16_bits_to_f32(every)
    assert (bits32(widened) == every.astype(np.uint32) << 16).all()
    finite = ~np.isnan(widened)
    assert (nx.f32_to_bf16_bits(widened)[finite] == every[finite]).all()


def _rne_reference(u: int) -> int:
    """Round an fp32 bit pattern to bf16 bits, one value at a time, from the definition."""
    exp_all_ones = (u >> 23) & 0xFF == 0xFF
    if exp_all_ones and u & 0x7FFFFF:
        return 0x7FC0
    upper, lower = u >> 16, u & 0xFFFF
    if lower > 0x8000 or (lower == 0x8000 and upper & 1):
        upper += 1
    return upper


def test_rounding_matches_the_definition_on_random_patterns():
    rng = np.random.default_rng(7)
    u = rng.integers(0, 2**32, 20000, dtype=np.uint64).astype(np.uint32)
    got = nx.f32_to_bf16_bits(u.view(np.float32))
    assert got.tolist() == [_rne_reference(int(v)) for v in u]


# --- max / min ------------------------------------------------------------------------

def test_max_min_signed_zeros_and_nan():
    pz, nz, nan = np.float32(0.0), np.float32(-0.0), np.float32(np.nan)
    assert bits32(nx.fmax(nz, pz)) == 0 and bits32(nx.fmax(pz, nz)) == 0
    assert bits32(nx.fmax(nz, nz)) == 0x80000000
    assert bits32(nx.fmin(pz, nz)) == 0x80000000 and bits32(nx.fmin(nz, pz)) == 0x80000000
    assert bits32(nx.fmin(pz, pz)) == 0
    for op in (nx.fmax, nx.fmin):
        assert bits32(op(nan, pz)) == 0x7FC00000 and bits32(op(pz, -nan)) == 0x7FC00000
    assert nx.max_f32(-0.0, 0.0) == 0.0 and math.copysign(1, nx.max_f32(-0.0, 0.0)) == 1
    assert math.copysign(1, nx.max_f32(0.0, -0.0)) == 1
    assert math.copysign(1, nx.max_f32(-0.0, -0.0)) == -1
    assert math.isnan(nx.max_f32(1.0, math.nan)) and nx.max_f32(-3.0, 2.0) == 2.0


def test_max_reduce_equals_any_fmax_tree():
    rows = np.array([[-0.0, 0.0, -1, -2], [-0.0, -0.0, -5, -3], [1, np.nan, 2, 3],
                     [-np.inf, -np.inf, -np.inf, -np.inf]], dtype=np.float32)
    got = nx.max_reduce(rows)
    assert bits32(got).tolist() == [0x00000000, 0x80000000, 0x7FC00000, 0xFF800000]
    rng = np.random.default_rng(3)
    for _ in range(50):
        x = rng.choice(np.float32([-0.0, 0.0, -1, 1, np.nan, -np.inf]), size=8)
        seq = x[0]
        for v in x[1:]:
            seq = nx.fmax(seq, v)
        assert bits32(nx.max_reduce(x)) == bits32(seq)


# --- exp ---------------------------------------------------------------------------

def _ulps(a, b):
    return np.abs(bits32(a).astype(np.int64) - bits32(b).astype(np.int64))


def test_exp_within_2_ulp_over_a_sweep():
    # the whole range where the result is a normal number and finite
    x = np.linspace(-87.33, 88.72, 400_001, dtype=np.float32)
    every_bf16 = nx.bf16_bits_to_f32(np.arange(65536, dtype=np.uint16))
    x = np.concatenate([x, every_bf16[(every_bf16 > -87.33) & (every_bf16 < 88.72)],
                        np.float32(np.random.default_rng(1).uniform(-1, 1, 100_000))])
    exact = np.exp(x.astype(np.float64)).astype(np.float32)
    assert _ulps(nx.exp(x), exact).max() <= 2


def test_exp_special_cases():
    x = np.float32([0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 89.0, -88.0, 1e-30, -1e-30])
    r = nx.exp(x)
    assert bits32(r[:4]).tolist() == [0x3F800000, 0x3F800000, 0x7FC00000, 0x7FC00000]
    assert r[4] == np.inf and bits32(r[5]) == 0 and r[6] == np.inf and bits32(r[7]) == 0
    assert r[8] == 1.0 and r[9] == 1.0


def test_exp_thresholds_on_t():
    # t = x * LOG2E rounds to fp32; t >= 128 gives inf, t < -126 gives +0. These are
    # the neighbouring fp32 values on either side of each threshold.
    x = f32([0x42B17217, 0x42B17218, 0xC2AEAC51, 0xC2AEAC50])
    t = (x * nx.LOG2E).astype(np.float32)
    r = nx.exp(x)
    assert t[0] < 128 <= t[1] and r[1] == np.inf and np.isfinite(r[0])
    assert t[2] < -126 <= t[3] and r[2] == 0 and r[3] > 0
    assert r[0] == np.float32(3.4027985e38) and r[3] == np.float32(1.1754907e-38)


def test_scalar_exp_is_the_vector_exp():
    for v in (0.5, -3.25, 10.0, 88.0, -87.0, float("nan"), float("inf")):
        a, b = nx.exp_f32(v), nx.exp(np.float32(v))
        assert bits32(a) == bits32(b)
    # exp_f32 runs the steps on Python floats: every bit pattern class and both ends of
    # the range (t = 128, t = -126, where a result turns infinite or zero)
    rng = np.random.default_rng(7)
    edges = np.float32([128 / 1.442695, -126 / 1.442695, 88.7228, -87.3365]).view(np.uint32)
    xs = np.concatenate([rng.integers(0, 2**32, 20000, dtype=np.uint64).astype(np.uint32),
                         (rng.standard_normal(20000) * 30).astype(np.float32).view(np.uint32),
                         (edges[:, None] + np.arange(-300, 300)).ravel().astype(np.uint32),
                         np.uint32([0, 0x80000000, 0x7F800000, 0xFF800000, 0xFFC00000, 1, 0x7F7FFFFF])
                         ]).view(np.float32)
    got = np.array([nx.exp_f32(v) for v in xs.tolist()], np.float32)
    assert np.array_equal(bits32(got), bits32(nx.exp(xs)))


# --- reciprocal and sqrt -------------------------------------------------------------

def test_reciprocal_special_cases_and_rounding():
    x = np.float32([0.0, -0.0, np.inf, -np.inf, np.nan, 3.0, 2.0**127, 2.0**-149, 4.0])
    r = nx.reciprocal(x)
    assert bits32(r).tolist()[:5] == [0x7F800000, 0xFF800000, 0, 0x80000000, 0x7FC00000]
    assert r[5] == np.float32(1 / 3)                           # correctly rounded
    assert r[6] == np.float32(2.0**-127) and bits32(r[6]) == 0x00400000   # subnormal kept
    assert r[7] == np.inf and r[8] == 0.25
    for v in x:
        assert bits32(nx.recip_f32(float(v))) == bits32(nx.reciprocal(v))


def test_sqrt_special_cases_and_rounding():
    x = np.float32([-0.0, 0.0, -1.0, np.inf, -np.inf, np.nan, 2.0, 2.0**-148, 16.0])
    r = nx.sqrt(x)
    assert bits32(r).tolist()[:6] == [0x80000000, 0, 0x7FC00000, 0x7F800000, 0x7FC00000,
                                      0x7FC00000]
    assert r[6] == np.float32(math.sqrt(2)) and r[7] == np.float32(2.0**-74) and r[8] == 4
    for v in x:
        assert bits32(nx.sqrt_f32(float(v))) == bits32(nx.sqrt(v))


# --- scalar fp32 helpers --------------------------------------------------------------

def test_round_f32_edges():
    assert nx.round_f32(1.0 + 2.0**-24) == 1.0                          # tie to even
    assert nx.round_f32(1.0 + 2.0**-24 + 2.0**-40) == 1.0 + 2.0**-23
    # the largest fp32 is odd, so the tie halfway to 2^128 rounds up to inf
    assert nx.round_f32(3.4028235677973362e38) == np.float32(3.4028235e38)   # just below
    assert nx.round_f32(3.4028235677973366e38) == math.inf                   # the tie
    assert nx.round_f32(-1e39) == -math.inf
    assert nx.round_f32(2.0**-149 * 0.75) == 2.0**-149                  # subnormal
    assert nx.round_f32(2.0**-151) == 0.0
    nan = nx.round_f32(math.inf - math.inf)
    assert bits32(nan) == 0x7FC00000


def test_scalar_ops_agree_with_fp32_arithmetic():
    rng = np.random.default_rng(11)
    u = rng.integers(0, 2**32, (3, 20000), dtype=np.uint64).astype(np.uint32)
    a, b = f32(u[0]), f32(u[1])
    small = f32(u[2] & 0x807FFFFF)                  # subnormals
    for x, y in ((a, b), (a, small), (small, small)):
        for op, npop in ((lambda p, q: p + q, np.add), (lambda p, q: p - q, np.subtract),
                         (lambda p, q: p * q, np.multiply)):
            want = nx.canon(npop(x, y))
            got = np.float32([nx.round_f32(op(float(p), float(q))) for p, q in zip(x, y)])
            assert (bits32(got) == bits32(want)).all()


# --- reduction order -------------------------------------------------------------------

def test_tree_sum_is_the_documented_halving_order():
    x = np.float32([2.0**24, 1, -(2.0**24), 1, 0, 0, 0, 0])
    # halving: [2^24, 1, -2^24, 1] -> [0, 2] -> 2
    assert nx.tree_sum(x) == 2.0
    seq = np.float32(0)
    for v in x:
        seq = np.float32(seq + v)
    assert seq == 1.0                                  # a left-to-right sum differs
    rng = np.random.default_rng(5)
    y = rng.standard_normal((6, 16)).astype(np.float32)
    spelled = y
    while spelled.shape[-1] > 1:
        h = spelled.shape[-1] // 2
        spelled = (spelled[:, :h] + spelled[:, h:]).astype(np.float32)
    assert bits32(nx.tree_sum(y)).tolist() == bits32(spelled[:, 0]).tolist()
    assert bits32(nx.tree_sum(y.T, axis=0)).tolist() == bits32(spelled[:, 0]).tolist()


def test_tree_sum_needs_a_power_of_two():
    with pytest.raises(ValueError, match="power-of-two"):
        nx.tree_sum(np.zeros(6, np.float32))


def test_matmul_tree_is_a_tree_dot_per_element():
    rng = np.random.default_rng(9)
    a = nx.round_bf16(rng.standard_normal((3, 2, 16)).astype(np.float32))
    b = nx.round_bf16(rng.standard_normal((3, 16, 4)).astype(np.float32))
    got = nx.matmul_tree(a, b)
    for h in range(3):
        for i in range(2):
            for j in range(4):
                assert bits32(got[h, i, j]) == bits32(nx.dot(a[h, i], b[h, :, j]))


def test_softmax_follows_its_steps():
    x = np.float32([3.0, 3.0, 2.0, 1.0])
    e = nx.exp((x - 3.0).astype(np.float32))
    s = np.float32((e[0] + e[2]) + (e[1] + e[3]))
    want = (e * nx.reciprocal(s)).astype(np.float32)
    assert bits32(nx.softmax(x)).tolist() == bits32(want).tolist()


def test_bf16_unary_tables_equal_direct_computation_on_every_bf16_value():
    from kernelcraft.simulators.numerics import (bf16_bits_to_f32, bf16_unary, exp, reciprocal,
                                                 round_bf16)
    every = bf16_bits_to_f32(np.arange(1 << 16, dtype=np.uint32).astype(np.uint16))
    for fn in (exp, reciprocal):
        got = bf16_unary(fn, every).view(np.uint32)
        want = round_bf16(fn(every)).view(np.uint32)
        assert np.array_equal(got, want), fn.__name__
