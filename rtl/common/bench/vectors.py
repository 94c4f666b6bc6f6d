"""Operands, references and checks for the shared arithmetic units' bench.

For each unit: the special cases (every pair of special values for two-operand units)
followed by random operands drawn from mixtures that reach the hard corners (random
bit patterns, nearby exponents, cancellation, sparse significands that make exact
ties, subnormals, the overflow and underflow edges). The reference is
simulators/numerics.py; results must agree bit for bit.

Operands travel to tb_common_units.v as 256-bit words (eight 32-bit lanes w0..w7, w0
least significant) in ops.hex; results come back one 32-bit word per line in res.hex.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from kernelcraft.simulators import numerics as nx

U32 = np.uint32
LANES = 8
N_RANDOM = 100_000

# --- values ------------------------------------------------------------------------

_POS_SPECIALS = [
    0x00000000,              # +0
    0x00000001, 0x00000002, 0x00000003,  # smallest subnormals
    0x00400000, 0x007FFFFF,  # mid / largest subnormal
    0x00800000, 0x00800001,  # smallest normals
    0x01000000, 0x0C000000,  # small normals (products underflow)
    0x33800000, 0x34000000,  # 2^-24, 2^-23 (half / one ulp of 1)
    0x3F000000, 0x3F7FFFFF, 0x3F800000, 0x3F800001,  # 0.5, 1-ulp, 1, 1+ulp
    0x3FC00000, 0x3FFFFFFF, 0x40000000, 0x40400000,  # 1.5, 2-ulp, 2, 3
    0x3FB8AA3B,              # log2(e)
    0x4B000000, 0x4B7FFFFF,  # 2^23, 2^24 - 1 (integers at the ulp edge)
    0x5F000000, 0x7E800000,  # 2^63, 2^126
    0x7F000000, 0x7F7FFFFE, 0x7F7FFFFF,  # large, largest finite
    0x7F800000,              # +inf
    0x7F800001, 0x7FC00000, 0x7FFFFFFF, 0x7FA00000,  # NaNs (signalling, quiet, payloads)
]
SPECIALS_F32 = np.array(_POS_SPECIALS + [v | 0x80000000 for v in _POS_SPECIALS], dtype=U32)

_POS_SPECIALS_BF16 = [0x0000, 0x0001, 0x007F, 0x0080, 0x0081, 0x3F80, 0x3F81, 0x3FC0,
                      0x4000, 0x3F00, 0x1F80, 0x2000, 0x5F80, 0x7F7F, 0x7F7E, 0x7F80,
                      0x7F81, 0x7FC0, 0x7FFF]
SPECIALS_BF16 = np.array(_POS_SPECIALS_BF16 + [v | 0x8000 for v in _POS_SPECIALS_BF16],
                         dtype=U32)


def _bits(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.integers(0, 2**32, n, dtype=np.uint64).astype(U32)


def _pack(sign, exp, frac) -> np.ndarray:
    return ((np.asarray(sign, U32) << U32(31)) | (np.asarray(exp, U32) << U32(23))
            | np.asarray(frac, U32)).astype(U32)


def _frac(rng, n) -> np.ndarray:
    return rng.integers(0, 1 << 23, n, dtype=np.uint32)


def _sparse_frac(rng, n) -> np.ndarray:
    """Fractions with only a few bits set: their sums and products land exactly on
    rounding ties and on exact results far more often than random ones."""
    f = np.zeros(n, dtype=U32)
    for _ in range(3):
        f |= (U32(1) << rng.integers(0, 23, n, dtype=np.uint32)) * rng.integers(0, 2, n, dtype=np.uint32)
    return f


def fp32_mixture(rng: np.random.Generator, n: int, exp_lo=0, exp_hi=255) -> np.ndarray:
    """fp32 patterns: a quarter raw bits, then normals in [exp_lo, exp_hi], sparse
    significands and subnormals."""
    parts = n // 4
    sign = rng.integers(0, 2, n, dtype=np.uint32)
    exp = rng.integers(max(exp_lo, 1), min(exp_hi, 254) + 1, n, dtype=np.uint32)
    out = _pack(sign, exp, _frac(rng, n))
    out[:parts] = _bits(rng, parts)
    out[parts:2 * parts] = _pack(sign[parts:2 * parts], exp[parts:2 * parts],
                                 _sparse_frac(rng, parts))
    sub = slice(2 * parts, 2 * parts + parts // 4)
    k = sub.stop - sub.start
    out[sub] = _pack(sign[sub], 0, _frac(rng, k))
    return out


def _near(rng, a: np.ndarray, spread: int) -> np.ndarray:
    """Values whose exponents are within `spread` of a's (signs random)."""
    e = (a >> U32(23)) & U32(0xFF)
    d = rng.integers(-spread, spread + 1, a.size)
    e2 = np.clip(e.astype(np.int64) + d, 0, 254).astype(U32)
    sign = rng.integers(0, 2, a.size, dtype=np.uint32)
    return _pack(sign, e2, _frac(rng, a.size))


def _cancel(rng, a: np.ndarray) -> np.ndarray:
    """-a nudged by a few ulps either way: massive cancellation in a + b."""
    mag = (a & U32(0x7FFFFFFF)).astype(np.int64) + rng.integers(-4, 5, a.size)
    mag = np.clip(mag, 0, 0x7F7FFFFF).astype(U32)
    return mag | (~a & U32(0x80000000))


def pairs(specials: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.meshgrid(specials, specials, indexing="ij")
    return a.ravel(), b.ravel()


def binary_operands(rng, n: int, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Special pairs, then n random pairs for `kind` in add/mul/minmax."""
    sa, sb = pairs(SPECIALS_F32)
    a = fp32_mixture(rng, n)
    b = fp32_mixture(rng, n)
    q = n // 5
    if kind == "add":
        b[:q] = _near(rng, a[:q], 26)                  # alignment shifts 0..26
        b[q:2 * q] = _cancel(rng, a[q:2 * q])
        b[2 * q:3 * q] = _near(rng, a[2 * q:3 * q], 1)
    elif kind == "mul":
        # Products near the overflow and underflow edges: exponents summing near
        # 127 + 254 or 127 + 0.
        e_a = rng.integers(1, 255, q)
        e_b = np.clip(381 - e_a + rng.integers(-3, 3, q), 1, 254)
        b[:q] = _pack(rng.integers(0, 2, q), e_b, _frac(rng, q))
        a[:q] = _pack(rng.integers(0, 2, q), e_a, _frac(rng, q))
        e_b2 = np.clip(127 - e_a + rng.integers(-26, 3, q), 0, 254)
        b[q:2 * q] = _pack(rng.integers(0, 2, q), e_b2, _frac(rng, q))
        a[q:2 * q] = _pack(rng.integers(0, 2, q), e_a, _frac(rng, q))
        b[2 * q:3 * q] = _pack(rng.integers(0, 2, q), rng.integers(100, 150, q),
                               _sparse_frac(rng, q))
        a[2 * q:3 * q] = _pack(rng.integers(0, 2, q), rng.integers(100, 150, q),
                               _sparse_frac(rng, q))
    elif kind == "minmax":
        b[:q] = _near(rng, a[:q], 0)
        b[q:2 * q] = a[q:2 * q] ^ U32(0x80000000)       # x against -x
        b[2 * q:3 * q] = a[2 * q:3 * q] + rng.integers(0, 2, q, dtype=np.uint32)
    return np.concatenate([sa, a]), np.concatenate([sb, b])


def bf16_mixture(rng, n: int) -> np.ndarray:
    """bf16 patterns (in uint32): raw bits, mid-range values, subnormals, sparse."""
    out = rng.integers(0, 1 << 16, n, dtype=np.uint32)
    q = n // 4
    out[:q] = ((rng.integers(0, 2, q, dtype=np.uint32) << U32(15))
               | (rng.integers(90, 165, q, dtype=np.uint32) << U32(7))
               | rng.integers(0, 128, q, dtype=np.uint32))
    out[q:q + q // 4] = rng.integers(0, 2, q // 4, dtype=np.uint32) << U32(15) | \
        rng.integers(0, 128, q // 4, dtype=np.uint32)
    return out


# --- units -------------------------------------------------------------------------

def _f(bits: np.ndarray) -> np.ndarray:
    return np.asarray(bits, dtype=U32).view(np.float32)


def _b(bits: np.ndarray) -> np.ndarray:
    return nx.bf16_bits_to_f32(np.asarray(bits, dtype=U32).astype(np.uint16))


def _u(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, dtype=np.float32).view(U32)


@dataclass
class Vectors:
    """Operand words for the bench, the expected results, and named operand columns
    for messages."""

    words: np.ndarray                  # (N, LANES) uint32
    expected: np.ndarray               # (N,) uint32
    columns: dict[str, np.ndarray]


def _words(n: int, **lanes: np.ndarray) -> np.ndarray:
    w = np.zeros((n, LANES), dtype=U32)
    for name, col in lanes.items():
        w[:, int(name[1:])] = col
    return w


def _add(rng, n):
    a, b = binary_operands(rng, n, "add")
    sub = rng.integers(0, 2, a.size, dtype=np.uint32)
    fa, fb = _f(a), _f(b)
    exp = nx.canon(np.where(sub == 1, fa - fb, fa + fb).astype(np.float32))
    return Vectors(_words(a.size, w0=a, w1=b, w2=sub), _u(exp), {"a": a, "b": b, "sub": sub})


def _mul(rng, n):
    a, b = binary_operands(rng, n, "mul")
    exp = nx.canon((_f(a) * _f(b)).astype(np.float32))
    return Vectors(_words(a.size, w0=a, w1=b), _u(exp), {"a": a, "b": b})


def _bf16_mul(rng, n):
    sa, sb = pairs(SPECIALS_BF16)
    a = np.concatenate([sa, bf16_mixture(rng, n)])
    b = np.concatenate([sb, bf16_mixture(rng, n)])
    exp = nx.canon((_b(a) * _b(b)).astype(np.float32))
    return Vectors(_words(a.size, w0=a, w1=b), _u(exp), {"a": a, "b": b})


def _to_bf16(rng, n):
    r = fp32_mixture(rng, n)
    q = n // 4
    # Ties and near-ties on the dropped half, both parities of the kept LSB, and the
    # values that round up to infinity or out of the subnormal range.
    low = rng.choice(np.array([0x7FFF, 0x8000, 0x8001, 0x0000, 0xFFFF], dtype=U32), q)
    r[:q] = (r[:q] & U32(0xFFFF0000)) | low
    edges = np.array([0x7F7F7FFF, 0x7F7F8000, 0x7F7FFFFF, 0xFF7F8000, 0x00008000,
                      0x00018000, 0x007FFFFF, 0x807F8000], dtype=U32)
    a = np.concatenate([SPECIALS_F32, edges, r])
    exp = nx.f32_to_bf16_bits(_f(a)).astype(U32)
    return Vectors(_words(a.size, w0=a), exp, {"a": a})


def _to_fp32(rng, n):
    a = np.concatenate([SPECIALS_BF16, np.arange(1 << 16, dtype=U32),
                        rng.integers(0, 1 << 16, max(0, n - (1 << 16)), dtype=np.uint32)])
    exp = _u(nx.bf16_bits_to_f32(a.astype(np.uint16)))
    return Vectors(_words(a.size, w0=a), exp, {"a": a})


def _minmax(fn):
    def make(rng, n):
        a, b = binary_operands(rng, n, "minmax")
        exp = fn(_f(a), _f(b))
        return Vectors(_words(a.size, w0=a, w1=b), _u(exp), {"a": a, "b": b})
    return make


def _exp(rng, n):
    # Most random x where exp is neither 0 nor inf, then the range edges: t = x*log2(e)
    # near 128 (x ~ 88.72) and -126 (x ~ -87.34), integer crossings of t, tiny x.
    q = n // 5
    x = fp32_mixture(rng, n)
    x[:2 * q] = _u(rng.uniform(-90.0, 90.0, 2 * q).astype(np.float32))
    edges = _u(np.array([88.72284, 88.7228, 88.0, 89.0, -87.33655, -87.3365, -87.0, -88.0,
                         -103.97, -104.0], dtype=np.float32))
    x[2 * q:3 * q] = edges[rng.integers(0, edges.size, q)] + \
        rng.integers(-200, 200, q).astype(U32)
    ints = rng.integers(-126, 128, q).astype(np.float32) / nx.LOG2E
    x[3 * q:4 * q] = _u(ints.astype(np.float32)) + rng.integers(-3, 4, q).astype(U32)
    a = np.concatenate([SPECIALS_F32, x])
    exp = _u(nx.exp(_f(a)))
    return Vectors(_words(a.size, w0=a), exp, {"x": a})


def _recip(rng, n):
    q = n // 5
    x = fp32_mixture(rng, n)
    # 1/x subnormal or tiny-normal (x near 2^126..2^128), overflow (x tiny subnormal).
    x[:q] = _pack(rng.integers(0, 2, q), rng.integers(250, 255, q), _frac(rng, q))
    x[q:2 * q] = _pack(rng.integers(0, 2, q), 0, rng.integers(1, 1 << 23, q))
    a = np.concatenate([SPECIALS_F32, x])
    exp = _u(nx.reciprocal(_f(a)))
    return Vectors(_words(a.size, w0=a), exp, {"x": a})


def _sqrt(rng, n):
    q = n // 5
    x = fp32_mixture(rng, n)
    x[:2 * q] &= U32(0x7FFFFFFF)                         # mostly non-negative
    k = rng.integers(1, 1 << 12, q).astype(np.float32)  # perfect squares and neighbours
    x[2 * q:3 * q] = _u(k * k) + rng.integers(-1, 2, q).astype(U32)
    a = np.concatenate([SPECIALS_F32, x])
    exp = _u(nx.sqrt(_f(a)))
    return Vectors(_words(a.size, w0=a), exp, {"x": a})


def _tree_sum(rng, n):
    # Lanes with nearby exponents (so additions really interact), sprinkled with
    # specials and cancelling pairs.
    base = fp32_mixture(rng, n, 90, 160)
    lanes = [_near(rng, base, 8) for _ in range(LANES)]
    x = np.stack(lanes, axis=1)
    q = n // 5
    x[:q, 4] = _cancel(rng, x[:q, 0])
    x[q:2 * q, rng.integers(0, LANES)] = SPECIALS_F32[rng.integers(0, SPECIALS_F32.size, q)]
    x[2 * q:3 * q] = np.stack([fp32_mixture(rng, q) for _ in range(LANES)], axis=1)
    sa, sb = pairs(SPECIALS_F32)
    spec = np.zeros((sa.size, LANES), dtype=U32)
    spec[:, 0], spec[:, 4] = sa, sb          # the first level adds x[i] + x[i + 4]
    x = np.concatenate([spec, x])
    # numerics.tree_sum leaves NaN payloads as numpy's addition propagates them and its
    # callers canonicalise (round_f32, accumulate); every fp32 adder in the RTL outputs
    # the canonical NaN at once. Either way a NaN sum is a NaN, so compare canonically.
    exp = _u(nx.canon(nx.tree_sum(_f(x))))
    cols = {f"x{i}": x[:, i] for i in range(LANES)}
    return Vectors(x, exp, cols)


def _dot(rng, n, length=4):
    sa, sb = pairs(SPECIALS_BF16)
    m = sa.size + n
    a = np.stack([np.concatenate([sa if i == 0 else np.zeros_like(sa), bf16_mixture(rng, n)])
                  for i in range(length)], axis=1)
    b = np.stack([np.concatenate([sb if i == 0 else np.zeros_like(sb), bf16_mixture(rng, n)])
                  for i in range(length)], axis=1)
    acc = np.concatenate([np.zeros(sa.size, dtype=U32), fp32_mixture(rng, n, 100, 150)])
    exp = nx.canon((_f(acc) + nx.dot(_b(a), _b(b))).astype(np.float32))
    w = np.zeros((m, LANES), dtype=U32)
    for i in range(length):
        w[:, i // 2] |= a[:, i] << U32(16 * (i % 2))
        w[:, 2 + i // 2] |= b[:, i] << U32(16 * (i % 2))
    w[:, 4] = acc
    cols = {**{f"a{i}": a[:, i] for i in range(length)},
            **{f"b{i}": b[:, i] for i in range(length)}, "acc": acc}
    return Vectors(w, _u(exp), cols)


@dataclass(frozen=True)
class Unit:
    name: str                  # the RTL module
    sel: str                   # its code's name in tb_common_units.v
    make: Callable[[np.random.Generator, int], Vectors]


UNITS = {u.name: u for u in [
    Unit("fp32_add", "SEL_FP32_ADD", _add),
    Unit("fp32_mul", "SEL_FP32_MUL", _mul),
    Unit("bf16_mul", "SEL_BF16_MUL", _bf16_mul),
    Unit("fp32_to_bf16", "SEL_FP32_TO_BF16", _to_bf16),
    Unit("bf16_to_fp32", "SEL_BF16_TO_FP32", _to_fp32),
    Unit("fp32_max", "SEL_FP32_MAX", _minmax(nx.fmax)),
    Unit("fp32_min", "SEL_FP32_MIN", _minmax(nx.fmin)),
    Unit("fp32_exp", "SEL_FP32_EXP", _exp),
    Unit("fp32_recip", "SEL_FP32_RECIP", _recip),
    Unit("fp32_sqrt", "SEL_FP32_SQRT", _sqrt),
    Unit("fp32_tree_sum", "SEL_FP32_TREE_SUM", _tree_sum),
    Unit("bf16_dot_acc", "SEL_BF16_DOT_ACC", _dot),
]}


def make(unit: str, seed: int, n_random: int = N_RANDOM) -> Vectors:
    return UNITS[unit].make(np.random.default_rng(seed), n_random)


def sample(vec: Vectors, k: int, seed: int) -> Vectors:
    """k vectors drawn without replacement (order kept), for slow simulators."""
    n = vec.expected.size
    if k >= n:
        return vec
    keep = np.sort(np.random.default_rng(seed).choice(n, k, replace=False))
    return Vectors(vec.words[keep], vec.expected[keep],
                   {name: col[keep] for name, col in vec.columns.items()})


# --- files and checking ------------------------------------------------------------

def write_ops(path: Path, words: np.ndarray) -> None:
    """One 256-bit hex word per line, w7 first (for $readmemh)."""
    raw = np.ascontiguousarray(words[:, ::-1]).astype(">u4").tobytes().hex()
    step = 8 * LANES
    path.write_text("\n".join(raw[i:i + step] for i in range(0, len(raw), step)) + "\n")


def read_results(path: Path, n: int) -> np.ndarray:
    """The $writememh output: one 32-bit hex word per line (comments and addresses,
    which some simulators add, skipped; x/z digits read as a mismatch marker)."""
    lines = [ln.strip() for ln in path.read_text().splitlines()]
    vals = [ln for ln in lines if ln and not ln.startswith(("//", "@"))]
    if len(vals) != n:
        raise AssertionError(f"{path}: expected {n} results, found {len(vals)}")
    out = np.empty(n, dtype=U32)
    for i, v in enumerate(vals):
        try:
            out[i] = int(v, 16)
        except ValueError:            # x or z from the simulator
            out[i] = 0xDEADBEEF
    return out


def mismatch_report(unit: str, vec: Vectors, got: np.ndarray, limit: int = 8) -> str | None:
    """None when every result matches; else how many differ and the first few, with
    operands, expected and actual bits in hex."""
    bad = np.nonzero(got != vec.expected)[0]
    if bad.size == 0:
        return None
    width = 4 if unit == "fp32_to_bf16" else 8
    lines = [f"{unit}: {bad.size} of {got.size} results differ from simulators/numerics.py"]
    for i in bad[:limit]:
        ops = ", ".join(f"{k}=0x{int(v[i]):0{8 if v.max(initial=0) > 0xFFFF else 4}X}"
                        for k, v in vec.columns.items())
        lines.append(f"  vector {i}: {ops}: expected 0x{int(vec.expected[i]):0{width}X} "
                     f"got 0x{int(got[i]):0{width}X}")
    return "\n".join(lines)
