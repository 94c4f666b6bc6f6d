"""binary32 exactly as RISC-V F requires, against an exact rational reference: every
rounding mode, subnormals, fused multiply-add, canonical NaN, the five flags with
tininess after rounding; scalar and vector functions agree element by element."""
import math
import random
from fractions import Fraction

import numpy as np
import pytest
from coral_kit import bits, exact, reference, value

from kernelcraft.simulators.coral import fp32

NV, DZ, OF, UF, NX = fp32.NV, fp32.DZ, fp32.OF, fp32.UF, fp32.NX
SPECIAL = [0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 1, 0x80000001, 0x7F7FFFFF,
           0x00800000, 0x007FFFFF, 0x3F800000, 0xBF800000]


def operand(rng):
    c = rng.random()
    if c < 0.1:
        return rng.choice(SPECIAL)
    if c < 0.3:
        return rng.getrandbits(32) & 0x80FFFFFF            # subnormal / tiny
    if c < 0.4:
        return (rng.getrandbits(32) & 0x80FFFFFF) | 0x7E000000   # huge
    if c < 0.6:
        return rng.getrandbits(1) << 31 | rng.randrange(110, 145) << 23 | rng.getrandbits(23)
    return rng.getrandbits(32)


def exact_result(op, a, b, c):
    A, B, C = exact(a), exact(b), exact(c)
    n = {"add": 2, "sub": 2, "mul": 2, "div": 2, "sqrt": 1, "fma": 3}[op]
    if any(v is None for v in (A, B, C)[:n]):
        return None
    if op == "add":
        return A + B
    if op == "sub":
        return A - B
    if op == "mul":
        return A * B
    if op == "div":
        return None if B == 0 else A / B
    if op == "fma":
        return A * B + C
    return None


SCALAR = {"add": lambda a, b, c, rm: fp32.fadd(a, b, rm), "sub": lambda a, b, c, rm: fp32.fsub(a, b, rm),
          "mul": lambda a, b, c, rm: fp32.fmul(a, b, rm), "div": lambda a, b, c, rm: fp32.fdiv(a, b, rm),
          "fma": lambda a, b, c, rm: fp32.fma(a, b, c, rm)}
VECTOR = {"add": lambda a, b, c, rm: fp32.vadd(a, b, rm, 0), "sub": lambda a, b, c, rm: fp32.vsub(a, b, rm, 0),
          "mul": lambda a, b, c, rm: fp32.vmul(a, b, rm, 0), "div": lambda a, b, c, rm: fp32.vdiv(a, b, rm, 0),
          "fma": lambda a, b, c, rm: fp32.vfma(a, b, c, rm, 0)}


@pytest.mark.parametrize("op", list(SCALAR))
def test_against_the_exact_reference_in_every_rounding_mode(op):
    rng = random.Random(sum(map(ord, op)))
    checked = 0
    for _ in range(3000):
        a, b, c, rm = operand(rng), operand(rng), operand(rng), rng.randrange(5)
        v = exact_result(op, a, b, c)
        if v is None or v == 0:
            continue
        want = reference(v, rm)
        assert SCALAR[op](a, b, c, rm) == want, (op, hex(a), hex(b), hex(c), rm)
        got = VECTOR[op](*(np.array([t], np.uint32) for t in (a, b, c)), rm)
        assert (int(got[0][0]), got[1]) == want, (op, "vector", hex(a), hex(b), hex(c), rm)
        checked += 1
    assert checked > 2000


def test_sqrt_against_exact_squares():
    rng = random.Random(7)
    for _ in range(3000):
        a = rng.getrandbits(31)                      # positive
        if (a & 0x7FFFFFFF) >= 0x7F800000 or a == 0:
            continue
        rm = rng.randrange(5)
        r, fl = fp32.fsqrt(a, rm)
        x = Fraction(value(a))
        lo, hi = Fraction(value(r)), Fraction(value(r + 1))
        assert lo * lo <= x or rm in (3, 4, 0), (hex(a), rm)
        exact_root = lo * lo == x
        assert bool(fl & NX) == (not exact_root)
        if rm == 1 or rm == 2:                        # toward zero / down: r <= sqrt(x) < next
            assert lo * lo <= x < hi * hi
        vr = fp32.vsqrt(np.array([a], np.uint32), rm, 0)
        assert (int(vr[0][0]), vr[1]) == (r, fl)


def test_vector_functions_match_scalar_on_mixed_arrays():
    rng = random.Random(3)
    n = 400
    a = np.array([operand(rng) for _ in range(n)], np.uint32)
    b = np.array([operand(rng) for _ in range(n)], np.uint32)
    c = np.array([operand(rng) for _ in range(n)], np.uint32)
    for rm in range(5):
        for op, fn in (("add", fp32.fadd), ("mul", fp32.fmul), ("div", fp32.fdiv)):
            out, fl = VECTOR[op](a, b, c, rm)
            want = [fn(int(x), int(y), rm) for x, y in zip(a, b)]
            assert out.tolist() == [w[0] for w in want]
            acc = 0
            for w in want:
                acc |= w[1]
            assert fl == acc
        out, fl = fp32.vfma(a, b, c, rm, 0, True, True)
        want = [fp32.fma(int(x), int(y), int(z), rm, True, True) for x, y, z in zip(a, b, c)]
        assert out.tolist() == [w[0] for w in want]


def test_special_values_and_flags():
    qnan, snan, inf = 0x7FC00000, 0x7F800001, 0x7F800000
    one, zero, nzero = bits(1.0), 0, 0x80000000
    assert fp32.fadd(inf, inf | 0x80000000, 0) == (qnan, NV)
    assert fp32.fadd(snan, one, 0) == (qnan, NV)
    assert fp32.fadd(0x7FC12345, one, 0) == (qnan, 0)              # payloads are not propagated
    assert fp32.fmul(inf, zero, 0) == (qnan, NV)
    assert fp32.fma(inf, zero, qnan, 0) == (qnan, NV)              # NV even with a quiet NaN addend
    assert fp32.fdiv(one, zero, 0) == (inf, DZ)
    assert fp32.fdiv(one | 0x80000000, zero, 0) == (inf | 0x80000000, DZ)
    assert fp32.fdiv(zero, zero, 0) == (qnan, NV)
    # inf / 0 is an exact infinity: IEEE 754 and RISC-V raise no flag (Spike agrees)
    assert fp32.fdiv(inf, zero, 0) == (inf, 0)
    assert fp32.fdiv(inf | 0x80000000, zero, 0) == (inf | 0x80000000, 0)
    assert fp32.fdiv(inf, nzero, 0) == (inf | 0x80000000, 0)
    v = np.array([inf, inf | 0x80000000], dtype=np.uint32)
    out, fl = fp32.vdiv(v, np.array([zero, nzero], dtype=np.uint32), 0, 0)
    assert out.tolist() == [inf, inf] and fl == 0
    assert fp32.fsqrt(nzero, 0) == (nzero, 0)
    assert fp32.fsqrt(bits(-1.0), 0) == (qnan, NV)
    assert fp32.fadd(one, one | 0x80000000, 0) == (zero, 0)        # x - x = +0 ...
    assert fp32.fadd(one, one | 0x80000000, 2) == (nzero, 0)       # ... and -0 rounding down
    assert fp32.fadd(nzero, nzero, 0) == (nzero, 0)
    big = 0x7F7FFFFF
    assert fp32.fmul(big, bits(2.0), 0) == (inf, OF | NX)
    assert fp32.fmul(big, bits(2.0), 1) == (big, OF | NX)          # RTZ overflows to the largest finite
    assert fp32.fmul(big | 0x80000000, bits(2.0), 3) == (big | 0x80000000, OF | NX)


def test_tininess_is_detected_after_rounding():
    # a value just below 2^-126 that rounds (unbounded exponent) up to 2^-126: not tiny
    x = Fraction(2) ** -126 - Fraction(2) ** -152
    a, b = bits(float(Fraction(2) ** -63)), 0
    b = bits(float(x / Fraction(2) ** -63))            # a * b == x exactly? only if b is representable
    v = Fraction(value(a)) * Fraction(value(b))
    r, fl = fp32.fmul(a, b, 0)
    assert (r, fl) == reference(v, 0)
    tiny = bits(1e-39)
    r, fl = fp32.fmul(tiny, bits(0.3), 0)
    assert fl & UF and fl & NX
    assert fp32.fmul(0x00800000, bits(0.5), 0) == (0x00400000, 0)   # exact subnormal: no UF


def test_min_max_compare_class_convert():
    qnan, snan = 0x7FC00000, 0x7F800001
    one, two = bits(1.0), bits(2.0)
    assert fp32.fmin(one, two) == (one, 0) and fp32.fmin(one, two, True) == (two, 0)
    assert fp32.fmin(0x80000000, 0) == (0x80000000, 0) and fp32.fmin(0x80000000, 0, True) == (0, 0)
    assert fp32.fmin(qnan, one) == (one, 0) and fp32.fmin(snan, one) == (one, NV)
    assert fp32.fmin(qnan, qnan) == (qnan, 0)
    assert fp32.fcompare(qnan, one, "eq") == (0, 0) and fp32.fcompare(snan, one, "eq") == (0, NV)
    assert fp32.fcompare(qnan, one, "lt") == (0, NV)
    assert fp32.fcompare(0x80000000, 0, "eq") == (1, 0)
    assert [fp32.fclass(b) for b in (0xFF800000, bits(-1.0), 0x80000001, 0x80000000, 0, 1, one,
                                     0x7F800000, snan, qnan)] == [1 << i for i in range(10)]
    assert fp32.fcvt_to_int(bits(2.5), 0, True) == (2, NX)
    assert fp32.fcvt_to_int(bits(2.5), 4, True) == (3, NX)
    assert fp32.fcvt_to_int(bits(-2.5), 1, True) == ((-2) & 0xFFFFFFFF, NX)
    assert fp32.fcvt_to_int(bits(3e9), 1, True) == (0x7FFFFFFF, NV)
    assert fp32.fcvt_to_int(bits(-1.0), 1, False) == (0, NV)
    assert fp32.fcvt_to_int(qnan, 0, True) == (0x7FFFFFFF, NV)
    assert fp32.fcvt_from_int(16777217, 0, True) == (bits(16777216.0), NX)
    assert fp32.fcvt_from_int(0xFFFFFFFF, 0, True) == (bits(-1.0), 0)
    assert fp32.fcvt_from_int(0xFFFFFFFF, 0, False) == (bits(4294967296.0), NX)
    out, fl = fp32.vcvt_to_int(np.array([bits(2.5), bits(-7.5), qnan], np.uint32), 0, True, 0)
    assert out.tolist() == [2, (-8) & 0xFFFFFFFF, 0x7FFFFFFF] and fl == NV | NX


def test_vector_nan_results_are_canonical():
    a = np.array([0x7FC12345, 0x7F800000, bits(1.0)], np.uint32)
    b = np.array([bits(1.0), 0xFF800000, 0x7F800001], np.uint32)
    out, fl = fp32.vadd(a, b, 0, 0)
    assert out.tolist() == [0x7FC00000] * 3 and fl & NV
    assert math.isnan(value(int(out[0])))


def test_fma_sums_that_binary64_rounds_onto_a_binary32_midpoint():
    # (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 is a binary32 midpoint; an addend far below it is
    # lost in the binary64 sum, so rounding that sum to nearest even breaks the tie the
    # wrong way half the time: the result must follow the exact value's side.
    a = 0x3F800800                                           # 1 + 2^-12
    for c in (0x1B800000, 0x9B800000, 0x2F800000, 0xAF800000, 0):  # +-2^-72, +-2^-32, 0
        for neg_p, neg_c in ((False, False), (True, False), (False, True), (True, True)):
            got = fp32.fma(a, a, c, fp32.RNE, neg_p, neg_c)
            exact_value = (-1 if neg_p else 1) * exact(a) * exact(a) + (-1 if neg_c else 1) * exact(c)
            assert got == reference(exact_value, fp32.RNE), (hex(c), neg_p, neg_c)
    # and a sum of addends 2^100 apart: inexact although the binary64 sum is a binary32 value
    assert fp32.fadd(0x3FC00000, 0x0DA24260, fp32.RNE) == (0x3FC00000, NX)
