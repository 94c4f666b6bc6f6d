"""Vector-slot semantics with values computed by hand (or by an independent numpy
formula): multiplies, accumulator arithmetic, conversions, lane ALU, shuffles,
reductions and the function unit."""
import numpy as np

from aie_kit import acci, accf, bf, image, run, unbf, x16, xbf

A = np.arange(32, dtype=np.float32) - 8          # -8..23, exact in bf16
B = (np.arange(32, dtype=np.float32) % 5) * 0.5 - 1


def load(*regs):
    """Load x registers from DM 0, 64, 128, ... (one 64-byte block each)."""
    lines = ["MOVPI p0, 0"]
    lines += [f"VLD x{r}, [p0], 64" for r in regs]
    return "\n".join(lines) + "\n"


def dm(*blocks):
    return image(dm={64 * i: b for i, b in enumerate(blocks)})


def test_bf16_multiply_family():
    r = run(load(1, 2) + "VMUL.BF16 acc0, x1, x2\nVMAC.BF16 acc0, x1, x1\nVMUL.BF16 acc1, x1, x2\n"
            "VMSC.BF16 acc1, x2, x2", dm(bf(A), bf(B)))
    assert np.array_equal(accf(r, 0), A * B + A * A)
    assert np.array_equal(accf(r, 1), A * B - B * B)


def test_bf16_accumulate_rounds_in_fp32():
    big, tiny = np.full(32, 2.0 ** 30, np.float32), np.full(32, 1.0, np.float32)
    r = run(load(1, 2, 3) + "VMUL.BF16 acc0, x1, x2\nVMAC.BF16 acc0, x3, x2", dm(bf(big), bf(tiny), bf(tiny)))
    assert np.all(accf(r, 0) == np.float32(2.0 ** 30))       # 2^30 + 1 rounds back in fp32


def test_int_multiply_family():
    a = (np.arange(32) * 1000 - 16000).astype(np.int16)
    b = (np.arange(32) - 7).astype(np.int16)
    r = run(load(1, 2) + "VMUL.I16 acc0, x1, x2\nVMAC.I16 acc0, x1, x1", dm(a, b))
    assert np.array_equal(acci(r, 0), a.astype(np.int64) * b + a.astype(np.int64) ** 2)
    i8 = np.arange(-64, 64, 2, dtype=np.int8)[:64]
    r = run(load(1) + "VMUL.I8 acc0, w2, w3\nVMAC.I8 acc1, w2, w2\nVMAC.I8 acc1, w3, w3", dm(i8))
    lo, hi = i8[:32].astype(np.int64), i8[32:].astype(np.int64)
    assert np.array_equal(acci(r, 0), lo * hi)
    assert np.array_equal(acci(r, 1), lo * lo + hi * hi)


def test_int_accumulators_wrap():
    a = np.full(32, 32767, np.int16)
    r = run(load(1) + "\n".join(["VMAC.I16 acc0, x1, x1"] * 3), dm(a))
    assert np.all(acci(r, 0) == np.int32(np.int64(3 * 32767 * 32767) - 2 ** 32))


def test_matrix_multiply_accumulate_bf16_order():
    rng = np.random.default_rng(1)
    a = unbf(bf(rng.standard_normal(32)))
    b = unbf(bf(rng.standard_normal(64)))
    r = run(load(1, 2, 3) + "VMMAC.BF16 acc0, x1, y1\nVMMAC.BF16 acc0, x1, y1", dm(bf(a), bf(b[:32]), bf(b[32:])))
    A, Bm = a.reshape(4, 8), b.reshape(8, 8)
    p = (A[:, :, None] * Bm[None]).astype(np.float32)            # (m, k, n)
    s = (p[:, :4] + p[:, 4:]).astype(np.float32)
    s = (s[:, :2] + s[:, 2:]).astype(np.float32)
    s = (s[:, 0] + s[:, 1]).astype(np.float32).ravel()
    assert np.array_equal(accf(r, 0), (s + s).astype(np.float32))
    assert np.allclose(accf(r, 0), 2 * (A @ Bm).ravel(), rtol=1e-5, atol=1e-5)


def test_matrix_multiply_accumulate_integers():
    rng = np.random.default_rng(2)
    a8, b8 = rng.integers(-128, 128, 64).astype(np.int8), rng.integers(-128, 128, 128).astype(np.int8)
    r = run(load(1, 2, 3) + "VMMAC.I8 acc0, x1, y1", dm(a8, b8[:64], b8[64:]))
    assert np.array_equal(acci(r, 0), (a8.reshape(4, 16).astype(np.int64) @ b8.reshape(16, 8)).ravel())
    a16, b16 = rng.integers(-30000, 30000, 32).astype(np.int16), rng.integers(-300, 300, 64).astype(np.int16)
    r = run(load(1, 2, 3) + "VMMAC.I16 acc0, x1, y1", dm(a16, b16[:32], b16[32:]))
    assert np.array_equal(acci(r, 0), (a16.reshape(4, 8).astype(np.int64) @ b16.reshape(8, 8)).ravel())


def test_accumulator_arithmetic():
    r = run(load(1, 2) + "VUPS.BF16 acc0, x1\nVUPS.BF16 acc1, x2\nAADD.F32 acc2, acc0, acc1\n"
            "ASUB.F32 acc3, acc0, acc1\nAMUL.F32 acc4, acc0, acc1\nAMAX.F32 acc5, acc0, acc1",
            dm(bf(A), bf(B)))
    assert np.array_equal(accf(r, 2), A + B) and np.array_equal(accf(r, 3), A - B)
    assert np.array_equal(accf(r, 4), A * B) and np.array_equal(accf(r, 5), np.maximum(A, B))
    a = np.arange(32, dtype=np.int16) * 7
    r = run(load(1) + "VUPS.I16 acc0, x1, 2\nVUPS.I16 acc1, x1, 0\nAADD.I32 acc2, acc0, acc1\n"
            "ASUB.I32 acc3, acc1, acc0", dm(a))
    assert np.array_equal(acci(r, 2), 5 * a.astype(np.int32)) and np.array_equal(acci(r, 3), -3 * a)


def test_fp32_nan_is_canonical_and_max_rules():
    inf = np.full(32, np.inf, np.float32)
    z = np.zeros(32, np.float32)
    r = run(load(1, 2) + "VUPS.BF16 acc0, x1\nVUPS.BF16 acc1, x2\nASUB.F32 acc2, acc0, acc0\n"
            "VMUL.BF16 acc3, x1, x2\nVSRS.BF16 x4, acc2", dm(bf(inf), bf(z)))
    assert np.all(r.registers["acc"][2] == 0x7FC00000) and np.all(r.registers["acc"][3] == 0x7FC00000)
    assert np.all(x16(r, 4) == 0x7FC0)
    neg0 = np.full(32, -0.0, np.float32)
    r = run(load(1, 2) + "VMAX.BF16 x3, x1, x2\nVMIN.BF16 x4, x1, x2", dm(bf(neg0), bf(z)))
    assert np.all(x16(r, 3) == 0x0000) and np.all(x16(r, 4) == 0x8000)


def test_shift_round_saturate_modes():
    v = np.array([5, 6, 7, -5, -6, -7, 16384, -16384] * 4, np.int16)
    want = {"FLOOR": [2, 3, 3, -3, -3, -4], "HALF_UP": [3, 3, 4, -2, -3, -3],
            "HALF_EVEN": [2, 3, 4, -2, -3, -4], "HALF_AWAY": [3, 3, 4, -3, -3, -4]}
    for mode, expect in want.items():
        r = run(load(1) + f"VUPS.I16 acc0, x1, 0\nVUPS.I16 acc1, x1, 4\nSETRM {mode}\n"
                f"VSRS.I8 w6, acc0, 1\nVSRS.I16 x4, acc0, 1\nVSRS.I16 x5, acc1, 1", dm(v))
        got8 = r.registers["x"][3][:32].view(np.int8)
        assert list(got8[:8]) == expect + [127, -128], mode            # 8192 saturates in int8
        assert list(r.registers["x"][4].view(np.int16)[:8]) == expect + [8192, -8192], mode
        assert list(r.registers["x"][5].view(np.int16)[6:8]) == [32767, -32768], mode
        assert np.all(r.registers["x"][3][32:] == 0)                # the other half untouched
    r = run(load(1) + "VUPS.I16 acc0, x1, 0\nVSRS.I16 x4, acc0, 0", dm(v))
    assert np.array_equal(r.registers["x"][4].view(np.int16), v)      # shift 0 does not round


def test_upshift_and_bf16_conversion():
    i8 = np.arange(-16, 48, dtype=np.int8)
    r = run(load(1) + "VUPS.I8 acc0, w3, 3", dm(i8))
    assert np.array_equal(acci(r, 0), i8[32:].astype(np.int32) << 3)
    x = np.array([1 + 2 ** -9, 1 + 3 * 2 ** -9, 3e38 * 2, -1.5] * 8, np.float32)   # ties to even, overflow
    r = run(load(1, 2) + "VUPS.BF16 acc0, x1\nVUPS.BF16 acc1, x2\nAMUL.F32 acc2, acc0, acc1\nVSRS.BF16 x3, acc2",
            dm(bf(np.ones(32)), bf(np.ones(32))))
    assert np.all(xbf(r, 3) == 1)
    y = unbf(bf(x))
    assert y[0] == 1.0 and y[1] == 1 + 2 ** -7 and np.isinf(y[2])


def test_lane_alu():
    a8 = np.arange(64, dtype=np.int8) * 3
    b8 = np.full(64, 100, np.int8)
    r = run(load(1, 2) + "VADD.I8 x3, x1, x2\nVSUB.I8 x4, x1, x2\nVMAX.I8 x5, x1, x2\nVMIN.I8 x6, x1, x2",
            dm(a8, b8))
    X = r.registers["x"]
    assert np.array_equal(X[3].view(np.int8), (a8 + b8).astype(np.int8))
    assert np.array_equal(X[4].view(np.int8), (a8 - b8).astype(np.int8))
    assert np.array_equal(X[5].view(np.int8), np.maximum(a8, b8)) and np.array_equal(X[6].view(np.int8), np.minimum(a8, b8))
    a16 = (np.arange(32) * 2000 - 30000).astype(np.int16)
    b16 = np.full(32, 20000, np.int16)
    r = run(load(1, 2) + "VADD.I16 x3, x1, x2\nVSUB.I16 x4, x1, x2\nVMAX.I16 x5, x1, x2\nVMIN.I16 x6, x1, x2\n"
            "VAND x7, x1, x2\nVOR x8, x1, x2\nVXOR x9, x1, x2\nVMAX.BF16 x10, x1, x2\nVMIN.BF16 x11, x1, x2",
            dm(a16, b16))
    X = r.registers["x"]
    assert np.array_equal(X[3].view(np.int16), (a16 + b16).astype(np.int16))
    assert np.array_equal(X[4].view(np.int16), (a16 - b16).astype(np.int16))
    assert np.array_equal(X[5].view(np.int16), np.maximum(a16, b16))
    assert np.array_equal(X[7].view(np.int16), a16 & b16) and np.array_equal(X[8].view(np.int16), a16 | b16)
    assert np.array_equal(X[9].view(np.int16), a16 ^ b16)
    fa, fb = unbf(a16.view(np.uint16)), unbf(b16.view(np.uint16))
    assert np.array_equal(unbf(X[10].view(np.uint16)), np.maximum(fa, fb))
    assert np.array_equal(unbf(X[11].view(np.uint16)), np.minimum(fa, fb))


def test_shuffles_align_and_lane_broadcast():
    a = np.arange(32, dtype=np.uint16)
    b = np.arange(100, 132, dtype=np.uint16)
    r = run(load(1, 2) + "VSHUF x3, x1, x2, ZIPLO16\nVSHUF x4, x1, x2, UNZIPHI16\nVSHUF x5, x1, x2, ZIPHI32\n"
            "VALIGN x6, x1, x2, 6\nVBCL.16 x7, x2, 5\nVSHUF x8, x1, x2, REV16\nVSHUF x9, x1, x2, CATHI", dm(a, b))
    pair = np.concatenate([a, b])
    assert list(x16(r, 3)[:6]) == [0, 100, 1, 101, 2, 102]
    assert np.array_equal(x16(r, 4), pair[1::2])
    p32 = pair.view(np.uint32)
    assert list(r.registers["x"][5].view(np.uint32)[:4]) == [p32[8], p32[24], p32[9], p32[25]]
    assert np.array_equal(x16(r, 6), pair[3:35])
    assert np.all(x16(r, 7) == 105)
    assert np.array_equal(x16(r, 8), a[::-1])
    assert np.array_equal(x16(r, 9), np.concatenate([a[16:], b[16:]]))


def test_reductions():
    vals = unbf(bf(np.linspace(-3, 5, 32)))
    r = run(load(1) + "VUPS.BF16 acc0, x1\nAREDADD.F32 acc1, acc0\nVREDMAX.BF16 x2, x1\n"
            "VUPS.I16 acc2, x1, 0\nAREDADD.I32 acc3, acc2", dm(bf(vals)))
    t = vals.astype(np.float32)
    while t.size > 1:
        t = (t[:t.size // 2] + t[t.size // 2:]).astype(np.float32)
    assert np.all(accf(r, 1) == t[0])
    assert np.all(xbf(r, 2) == vals.max())
    assert np.all(acci(r, 3) == bf(vals).view(np.int16).astype(np.int64).sum())


def test_function_unit_values():
    x = np.array([0, 1, -1, 2, 0.5, -20, 10, 80, 100, -100] + [3] * 22, np.float32)
    r = run(load(1) + "VUPS.BF16 acc0, x1\nVPWL.EXP acc1, acc0\nVPWL.RCP acc2, acc0\nVPWL.RSQRT acc3, acc0",
            dm(bf(x)))
    xs = unbf(bf(x)).astype(np.float64)
    e, rc, rs = accf(r, 1), accf(r, 2), accf(r, 3)
    assert e[0] == 1.0 and np.isinf(e[8]) and e[9] == 0.0
    assert np.allclose(e[:8], np.exp(xs[:8]), rtol=2 ** -15)
    assert rc[0] == np.inf and np.allclose(rc[1:], 1 / xs[1:], rtol=2 ** -15)
    pos = xs > 0
    assert np.allclose(rs[pos], 1 / np.sqrt(xs[pos]), rtol=2 ** -15)
    assert rs[0] == np.inf and np.all(r.registers["acc"][3][xs < 0] == 0x7FC00000)


def test_function_unit_error_bound_over_many_inputs():
    from kernelcraft.isa.aie import spec
    from kernelcraft.simulators.aie import numerics as nx
    T = spec().tables
    rng = np.random.default_rng(7)
    x = (np.exp(rng.uniform(-85, 85, 100000)) * rng.choice([-1, 1], 100000)).astype(np.float32)
    for fn, f, ref, ok in (
            ("RCP", nx.pwl_rcp, lambda v: 1 / v, lambda v: np.abs(v) < 1e38),
            ("RSQRT", nx.pwl_rsqrt, lambda v: 1 / np.sqrt(np.abs(v)), lambda v: v > 0)):
        y = f(x, *T[fn][:2]).astype(np.float64)
        want = ref(x.astype(np.float64))
        m = ok(x)
        assert np.max(np.abs(y[m] / want[m] - 1)) < 2 ** -15, fn
    xe = rng.uniform(-87, 88, 100000).astype(np.float32)
    y = nx.pwl_exp(xe, *T["EXP"][:2]).astype(np.float64)
    assert np.max(np.abs(y / np.exp(xe.astype(np.float64)) - 1)) < 2 ** -15


def test_deferred_multiply_accumulates_give_the_same_bits():
    """The model applies bf16 multiply-accumulate chains in batches; tracing applies them
    one at a time. Both must agree bit for bit, specials included."""
    rng = np.random.default_rng(11)
    vals = rng.standard_normal(32 * 6) * np.exp(rng.uniform(-30, 30, 32 * 6))
    vals[5], vals[40], vals[77] = np.inf, -np.inf, np.nan
    blocks = [bf(vals[32 * i:32 * i + 32]) for i in range(6)]
    src = load(0, 1, 2, 3, 4, 5) + "\n".join([
        "VMMAC.BF16 acc0, x0, y1", "VMAC.BF16 acc0, x2, x3", "VMSC.BF16 acc0, x4, x5",
        "VMMAC.BF16 acc0, x1, y2", "LOOP 5", "VMAC.BF16 acc1, x0, x1", "VMMAC.BF16 acc2, x3, y2",
        "VMSC.BF16 acc1, x2, x2", "ENDLOOP", "VSRS.BF16 x6, acc1", "AADD.F32 acc3, acc2, acc0",
        "VMAC.BF16 acc3, x0, x0", "MOVPI p1, 1024", "AST acc3, [p1], 128", "VMMAC.BF16 acc4, x5, y0"])
    fast, slow = run(src, dm(*blocks)), run(src, dm(*blocks), trace=True)
    assert np.array_equal(fast.registers["acc"], slow.registers["acc"])
    assert np.array_equal(fast.registers["x"], slow.registers["x"])
    assert np.array_equal(fast.memories["dm"], slow.memories["dm"])
    assert fast.cycles == slow.cycles


def test_function_unit_fast_paths_match_the_general_path():
    """Lanes without special values take a shorter route; it must give the same bits."""
    from kernelcraft.isa.aie import spec
    from kernelcraft.simulators.aie import numerics as nx
    T = spec().tables
    rng = np.random.default_rng(9)
    x = (np.exp(rng.uniform(-85, 85, 4096)) * rng.choice([-1, 1], 4096)).astype(np.float32)
    near = np.concatenate([rng.uniform(-87, 88, 4000),                # t just below integers,
                           -np.logspace(-30, -6, 64), np.arange(-32, 0) * np.log(2) - 1e-7])
    cases = (("EXP", nx.pwl_exp, near.astype(np.float32), np.float32(np.nan)),
             ("RCP", nx.pwl_rcp, x, np.float32(0)), ("RSQRT", nx.pwl_rsqrt, np.abs(x), np.float32(0)))
    for fn, f, v, special in cases:
        fast = f(v, *T[fn][:2])
        general = f(np.append(v, special), *T[fn][:2])[:-1]
        assert np.array_equal(fast.view(np.uint32), general.view(np.uint32)), fn
    tiny = nx.pwl_exp(np.float32([-1e-9, -1e-30, -0.0]), *T["EXP"][:2])
    assert np.all(tiny == 1.0)                      # f rounds up to 1: the last segment's end
