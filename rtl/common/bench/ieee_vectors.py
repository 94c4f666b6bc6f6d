"""Operands and references for the IEEE binary32 units of the coral RTL (fp32_fma as
fma, fmul, fadd and fsub), checked bit for bit against simulators/coral/fp32.py.

Every ordered pair of SPECIALS as (a, b) with c drawn from SPECIALS, then random
operands from mixtures aimed at the corners: raw bit patterns, massive cancellation
(c close to -a*b), products at the overflow and underflow edges, subnormal operands,
sparse significands (exact ties), each in a random rounding mode and operation.
"""
from __future__ import annotations

import numpy as np

from kernelcraft.simulators.coral import fp32

SPECIALS = [0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF,
            0x00800000, 0x80800000, 0x00800001, 0x3F800000, 0xBF800000, 0x3F800001,
            0x3F7FFFFF, 0xBF7FFFFF, 0x40000000, 0x3F000000, 0x7F7FFFFF, 0xFF7FFFFF,
            0x7F000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7FC00001,
            0x7F800001, 0xFF800001, 0x7FBFFFFF, 0x1F800000, 0x20000000, 0x00400000,
            0x33800000, 0x4B800000, 0x3EAAAAAB, 0xC0490FDB]
OPS = ("fma", "fmul", "fadd", "fsub")
ONE = 0x3F800000


def _bits(rng, n):
    return rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)


def _with_exp(rng, n, lo, hi):
    """Random significands and signs with biased exponents in [lo, hi]."""
    e = rng.integers(lo, hi + 1, n).astype(np.uint32)
    return (_bits(rng, n) & np.uint32(0x807FFFFF)) | (e << np.uint32(23))


def _sparse(rng, n):
    keep = rng.integers(0, 8, n).astype(np.uint32)
    mask = np.uint32(0x7FFFFF) & ~((np.uint32(1) << (np.uint32(23) - keep * 3)) - np.uint32(1))
    return (_with_exp(rng, n, 60, 190) & ~np.uint32(0x7FFFFF)) | (_bits(rng, n) & mask)


def operands(seed: int, n_random: int) -> np.ndarray:
    """rows of [a, b, c, control] (control: rm | neg_prod << 3 | neg_add << 4 |
    mul_only << 5 | operation << 6)."""
    rng = np.random.default_rng(seed)
    sp = np.array(SPECIALS, dtype=np.uint32)
    a, b = np.meshgrid(sp, sp, indexing="ij")
    a, b = a.ravel(), b.ravel()
    c = sp[rng.integers(0, sp.size, a.size)]
    parts = [(a, b, c)]
    k = n_random // 6
    parts.append((_bits(rng, k), _bits(rng, k), _bits(rng, k)))
    # massive cancellation: c = -(a*b) rounded, nudged by a few ulps
    x, y = _with_exp(rng, k, 100, 150), _with_exp(rng, k, 100, 150)
    p = (x.view(np.float32).astype(np.float64) * y.view(np.float32).astype(np.float64)).astype(np.float32)
    z = (p.view(np.uint32) ^ np.uint32(0x80000000)).astype(np.int64) + rng.integers(-3, 4, k)
    parts.append((x, y, z.astype(np.uint32)))
    # products at the underflow edge (exponent sum near 127 - 126 - 24) with small addends
    ea = rng.integers(1, 80, k)
    eb = np.clip(127 - 126 - ea + rng.integers(-26, 4, k) + 127, 1, 254)
    parts.append(((_bits(rng, k) & np.uint32(0x807FFFFF)) | (ea.astype(np.uint32) << np.uint32(23)),
                  (_bits(rng, k) & np.uint32(0x807FFFFF)) | (eb.astype(np.uint32) << np.uint32(23)),
                  np.where(rng.random(k) < 0.5, _bits(rng, k) & np.uint32(0x80FFFFFF), np.uint32(0))
                  .astype(np.uint32)))
    # overflow edge, subnormal operands, sparse significands (ties)
    parts.append((_with_exp(rng, k, 180, 254), _with_exp(rng, k, 180, 254), _with_exp(rng, k, 200, 254)))
    sub = lambda m: _bits(rng, m) & np.uint32(0x807FFFFF)
    parts.append((sub(k), _with_exp(rng, k, 1, 254), np.where(rng.random(k) < 0.5, sub(k), _bits(rng, k))))
    rest = n_random - 5 * k
    parts.append((_sparse(rng, rest), _sparse(rng, rest), _sparse(rng, rest)))
    a = np.concatenate([p[0] for p in parts])
    b = np.concatenate([p[1] for p in parts])
    c = np.concatenate([p[2] for p in parts])
    n = a.size
    rm = rng.integers(0, 5, n).astype(np.uint32)
    op = rng.integers(0, len(OPS), n)
    negp = (rng.integers(0, 2, n) * (op == 0)).astype(np.uint32)
    nega = ((rng.integers(0, 2, n) * (op == 0)) | (op == 3)).astype(np.uint32)
    mul_only = (op == 1).astype(np.uint32)
    b = np.where(op >= 2, np.uint32(ONE), b).astype(np.uint32)     # fadd/fsub: a * 1.0 +- c
    # bits 7:6 name the operation for the reference (the unit ignores them)
    ctrl = rm | (negp << 3) | (nega << 4) | (mul_only << 5) | (op.astype(np.uint32) << 6)
    return np.stack([a, b, c, ctrl], axis=1).astype(np.uint32)


DIV, SQRT = 1 << 8, 1 << 9       # control bits: fp32_divsqrt, and its square root


def divsqrt_operands(seed: int, n_random: int) -> np.ndarray:
    """rows for fp32_divsqrt: every special pair as a / b and every special's root, then
    random division and square-root operands: raw bits, subnormals, quotients at the
    underflow and overflow edges, exact quotients and roots (sparse significands)."""
    rng = np.random.default_rng(seed + 1)
    sp = np.array(SPECIALS, dtype=np.uint32)
    a, b = np.meshgrid(sp, sp, indexing="ij")
    parts_a, parts_b = [a.ravel(), sp], [b.ravel(), sp]
    sq = [np.zeros(a.size, bool), np.ones(sp.size, bool)]
    k = n_random // 5
    sub = lambda m: _bits(rng, m) & np.uint32(0x807FFFFF)
    parts_a += [_bits(rng, k), sub(k), _with_exp(rng, k, 1, 40), _with_exp(rng, k, 200, 254)]
    parts_b += [_bits(rng, k), _with_exp(rng, k, 1, 254), _with_exp(rng, k, 100, 254),
                _with_exp(rng, k, 1, 60)]
    sq += [rng.random(k) < 0.3, rng.random(k) < 0.3, rng.random(k) < 0.2, rng.random(k) < 0.2]
    rest = n_random - 4 * k
    # exact results: quotients of sparse values by powers of two and small values; squares
    x = _sparse(rng, rest)
    y = (_with_exp(rng, rest, 100, 150) & np.uint32(0xFF800000)) | (_bits(rng, rest) & np.uint32(0x00700000))
    roots = (_with_exp(rng, rest, 64, 190) & np.uint32(0x7FFFF000))
    squares = (roots.view(np.float32).astype(np.float64) ** 2).astype(np.float32).view(np.uint32)
    is_sq = rng.random(rest) < 0.4
    parts_a.append(np.where(is_sq, squares, x).astype(np.uint32))
    parts_b.append(y)
    sq.append(is_sq)
    a, b, s = np.concatenate(parts_a), np.concatenate(parts_b), np.concatenate(sq)
    rm = rng.integers(0, 5, a.size).astype(np.uint32)
    ctrl = rm | np.uint32(DIV) | np.where(s, np.uint32(SQRT), np.uint32(0))
    return np.stack([a, b, np.zeros_like(a), ctrl], axis=1).astype(np.uint32)


def reference(rows: np.ndarray) -> np.ndarray:
    """(flags << 32 | y) per row, from simulators/coral/fp32.py."""
    out = np.empty(rows.shape[0], dtype=np.uint64)
    fma, fmul, fadd, fsub = fp32.fma, fp32.fmul, fp32.fadd, fp32.fsub
    for i, (a, b, c, ctrl) in enumerate(rows.tolist()):
        rm, op = ctrl & 7, (ctrl >> 6) & 3
        if ctrl & DIV:
            y, fl = fp32.fsqrt(a, rm) if ctrl & SQRT else fp32.fdiv(a, b, rm)
        elif op == 0:
            y, fl = fma(a, b, c, rm, bool(ctrl & 8), bool(ctrl & 16))
        elif op == 1:
            y, fl = fmul(a, b, rm)
        else:
            y, fl = (fadd if op == 2 else fsub)(a, c, rm)
        out[i] = (fl << 32) | y
    return out


def describe(row) -> str:
    a, b, c, ctrl = (int(v) for v in row)
    if ctrl & DIV:
        return (f"fsqrt rm={ctrl & 7} a={a:08x}" if ctrl & SQRT else
                f"fdiv rm={ctrl & 7} a={a:08x} b={b:08x}")
    return (f"{OPS[(ctrl >> 6) & 3]} rm={ctrl & 7} negp={ctrl >> 3 & 1} nega={ctrl >> 4 & 1} "
            f"a={a:08x} b={b:08x} c={c:08x}")


def write_ops(path, rows: np.ndarray) -> None:
    raw = np.ascontiguousarray(rows[:, ::-1]).astype(">u4").tobytes().hex()
    path.write_text("\n".join(raw[i:i + 32] for i in range(0, len(raw), 32)) + "\n")


def read_results(path, n: int) -> np.ndarray:
    vals = [ln.strip() for ln in path.read_text().splitlines()]
    vals = [v for v in vals if v and not v.startswith(("//", "@"))]
    if len(vals) != n:
        raise AssertionError(f"{path}: expected {n} results, found {len(vals)}")
    return np.array([int(v, 16) for v in vals], dtype=np.uint64)
