"""Random inputs with realistic scales and non-trivial statistics.

Values are float64 here; `Task.generate` rounds them to each tensor's dtype. Scales
follow what the operators meet in trained networks: activations with a per-row offset
and spread, weights with variance 1/fan_in (so layers keep the activation scale),
norm gains around 1 and small shifts.
"""
from __future__ import annotations

import numpy as np

Rng = np.random.Generator


def activations(rng: Rng, shape: tuple[int, ...], offset: float = 0.5, spread: float = 2.0) -> np.ndarray:
    """Rows (last axis = features) with their own mean in [-offset, offset] and standard
    deviation in [1/spread, spread] (log-uniform), so no row is zero-mean unit-variance."""
    rows = shape[:-1] + (1,)
    mean = rng.uniform(-offset, offset, rows)
    std = np.exp(rng.uniform(-np.log(spread), np.log(spread), rows))
    return mean + std * rng.standard_normal(shape)


def weights(rng: Rng, out_dim: int, in_dim: int, gain: float = 1.0) -> np.ndarray:
    """PyTorch-layout [out, in] weight with variance gain^2 / in."""
    return rng.standard_normal((out_dim, in_dim)) * (gain / np.sqrt(in_dim))


def gains(rng: Rng, n: int) -> np.ndarray:
    """Norm gains: around 1, never trivial."""
    return rng.normal(1.0, 0.25, n)


def shifts(rng: Rng, n: int, scale: float = 0.2) -> np.ndarray:
    return rng.normal(0.0, scale, n)


def outlier_features(rng: Rng, x: np.ndarray, count: int = 4, factor: float = 32.0) -> np.ndarray:
    """A few feature columns (last axis) replaced by massive activations, as LLMs show
    them: `factor` times the tensor's rms, each column with one sign throughout."""
    x = x.copy()
    cols = rng.choice(x.shape[-1], size=min(count, x.shape[-1]), replace=False)
    size = factor * float(np.sqrt(np.mean(x * x)))
    sign = rng.choice([-1.0, 1.0], size=len(cols))
    x[..., cols] = sign * size * rng.uniform(0.75, 1.25, x.shape[:-1] + (len(cols),))
    return x


def shared_mean(rng: Rng, x: np.ndarray, scale: float = 1.0) -> np.ndarray:
    """Add one mean vector to every row (features on the last axis), as value vectors
    and residual streams share a common direction in trained transformers."""
    return x + rng.normal(0.0, scale, x.shape[-1])


def small_integers(rng: Rng, shape: tuple[int, ...], hi: int = 4) -> np.ndarray:
    """Integers in [-hi, hi]: products and sums are exact in fp32."""
    return rng.integers(-hi, hi + 1, shape).astype(np.float64)


def rope_tables(rng: Rng, seq: int, head_dim: int, base: float = 10000.0) -> tuple[np.ndarray, np.ndarray]:
    """cos/sin [seq, head_dim] in the rotate-half convention for positions
    p0 .. p0 + seq - 1 with a random start p0 (as when decoding after a prompt):
    angle[p, i] = p * base^(-2 (i mod head_dim/2) / head_dim)."""
    p0 = int(rng.integers(0, 2048))
    return rope_tables_at(p0, seq, head_dim, base)


def rope_tables_at(p0: int, seq: int, head_dim: int, base: float = 10000.0) -> tuple[np.ndarray, np.ndarray]:
    half = head_dim // 2
    inv_freq = base ** (-2.0 * np.arange(half) / head_dim)
    angle = np.arange(p0, p0 + seq)[:, None] * inv_freq[None, :]
    angle = np.concatenate([angle, angle], axis=1)
    return np.cos(angle), np.sin(angle)


def t5_buckets(seq: int, buckets: int = 32, max_distance: int = 128) -> np.ndarray:
    """[seq, seq] bucket of (query i, key j) as in T5's unidirectional (decoder)
    attention: n = max(i - j, 0) steps back; n < buckets/2 is its own bucket, larger n
    fall in logarithmic buckets up to max_distance, the last bucket beyond; keys after
    the query share bucket 0."""
    n = np.maximum(np.arange(seq)[:, None] - np.arange(seq)[None, :], 0)
    exact = buckets // 2
    with np.errstate(divide="ignore"):
        log_b = exact + (np.log(np.maximum(n, 1) / exact) / np.log(max_distance / exact)
                         * (buckets - exact)).astype(np.int64)
    return np.where(n < exact, n, np.minimum(log_b, buckets - 1))


def t5_position_bias(rng: Rng, heads: int, seq: int, buckets: int = 32, max_distance: int = 128,
                     scale: float = 1.0) -> np.ndarray:
    """[heads, seq, seq] relative position bias: a random value per (bucket, head), the
    learned table of T5, expanded over `t5_buckets`."""
    table = rng.normal(0.0, scale, (buckets, heads))
    return np.transpose(table[t5_buckets(seq, buckets, max_distance)], (2, 0, 1))
