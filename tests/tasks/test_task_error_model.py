"""The building blocks of the per-element bounds (tasks/error_model.py) against the
simulators' own bf16 rounding: a bound that a real rounding exceeds would fail correct
kernels, and one far above it would let wrong ones through."""
import numpy as np

from kernelcraft.simulators.numerics import round_bf16
from kernelcraft.tasks.error_model import half_ulp, merged_twins, product_error, stored
from kernelcraft.tasks.tolerance import U


def fp32_values(rng, n: int) -> np.ndarray:
    """Random fp32 magnitudes over every binade, subnormals included, and both signs."""
    mant = rng.uniform(1.0, 2.0, n)
    exp = rng.integers(-140, 120, n)
    return (mant * 2.0 ** exp * rng.choice([-1.0, 1.0], n)).astype(np.float32)


def test_half_ulp_bounds_every_rounding_and_is_reached():
    y = fp32_values(np.random.default_rng(0), 200_000)
    err = np.abs(round_bf16(y).astype(np.float64) - y.astype(np.float64))
    h = half_ulp(np.abs(y.astype(np.float64)))
    assert (err <= h).all()
    # a midpoint between two bf16 numbers is half an ulp from both
    for m in (1.0, 1.5, 3.0, 2.0 ** -100, 2.0 ** 100):
        mid = np.float32(m + half_ulp(m))
        assert abs(float(round_bf16(mid)) - float(mid)) == half_ulp(float(mid))
    # u |y| at a power of two, half of it just below the next
    assert half_ulp(4.0) == U * 4.0 and half_ulp(7.99) == U * 4.0
    assert half_ulp(0.0) == 0.0 and half_ulp(np.inf) == np.inf
    assert half_ulp(2.0 ** -130) == 2.0 ** -134          # subnormal spacing 2^-133


def test_stored_bounds_a_perturbed_value_and_keeps_exact_values_exact():
    rng = np.random.default_rng(1)
    y = rng.normal(0.0, 1.0, 100_000) * 2.0 ** rng.integers(-20, 20, 100_000)
    err = np.abs(y) * rng.uniform(0, 8 * U, y.size)
    got = round_bf16((y + rng.uniform(-1, 1, y.size) * err).astype(np.float32)).astype(np.float64)
    assert (np.abs(got - y) <= stored(y, err)).all()
    # the rounding alone is at most half an ulp, not u |y|, above the error carried in
    b = stored(y, err)
    assert (b <= err + half_ulp(np.abs(y) + err)).all() and (b < err + U * (np.abs(y) + err)).mean() > 0.9
    exact = round_bf16(y.astype(np.float32)).astype(np.float64)
    assert (stored(exact, 0.0) <= 2.0 ** -24 * np.abs(exact)).all()


def test_units_with_the_same_weights_reach_the_output_through_the_sum_of_their_columns():
    """merged_twins: two hidden units with the same pre-activation weights get one column, the
    sum of theirs (zero where they cancel); a random draw's units are all different and keep
    their columns, so its bound does not change."""
    rng = np.random.default_rng(0)
    pre = rng.standard_normal((6, 3))
    w = rng.standard_normal((4, 6))
    assert merged_twins(pre, w) is w
    pre[4] = pre[1]
    w[:, 4] = -w[:, 1]
    w[2, 4] += 0.5
    m = merged_twins(pre, w)
    assert np.array_equal(m[:, [0, 2, 3, 5]], w[:, [0, 2, 3, 5]])
    assert not m[:, 4].any() and np.allclose(m[:, 1], np.eye(4)[2] * 0.5)     # kept in the first
    a, da = rng.standard_normal((2, 6)), np.full((2, 6), 0.01)
    assert (product_error(a, w, da, m) < product_error(a, w, da)).all()
