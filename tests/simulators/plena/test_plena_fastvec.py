"""The fast path's vector (and matrix-vector) closures (simulators/plena/fastvec.py) compute what the
reference semantics do: random loops of vector instructions on rows full of special
values (NaN of either sign, infinities, signed zeros, subnormals, values that overflow
or round to ties), fp operands that are zero, NaN or ordinary, write masks, and row
addresses that go wrong in a later iteration run the same with the fast paths on and
off -- whole and cut by the budget, with and without a DMA transfer in flight. The
vector closures run both on lanes.c's C loops (where a C compiler builds them) and on
their numpy code (`lanes.enabled(False)`); a direct test compares the C loops with
simulators/numerics.py on every bf16 operand pattern."""
import random
import struct

import numpy as np
import pytest

from kernelcraft.simulators.core.backend import MemoryImage
from kernelcraft.simulators.core.budget import Budget
from kernelcraft.simulators.numerics import (bf16_bits_to_f32, bf16_table, bf16_unary, exp, fmax, fmin,
                                             reciprocal, round_bf16, tree_sum)
from kernelcraft.simulators.plena import fastlanes, fastvec, lanes
from kernelcraft.simulators.plena.assembler import assemble
from kernelcraft.simulators.plena.machine import PlenaModel
from kernelcraft.simulators.speed import same

from .plena_kit import small

BINARY = ["V_ADD_VV", "V_SUB_VV", "V_MUL_VV"]
SCALAR = ["V_ADD_VF", "V_MUL_VF", "V_MAX_VF", "V_MIN_VF"]
UNARY = ["V_EXP_V", "V_RECI_V"]
# bf16 bit patterns: NaNs (+, -, payload), infinities, zeros, subnormals, the largest
# finite values, ones and values whose sums and products round at ties
SPECIAL = [0x7FC0, 0xFFC0, 0x7F81, 0x7F80, 0xFF80, 0x0000, 0x8000, 0x0001, 0x8001, 0x7F7F,
           0xFF7F, 0x3F80, 0xBF80, 0x3F81, 0x4000, 0x3B80, 0x4B80, 0xC2F7]
FP = [0.0, -0.0, float("nan"), float("inf"), -1.5, 3.0078125, 1e-40, 2.5e38]


@pytest.fixture(params=["c", "numpy"])
def loops(request):
    """Which lane loops the vector closures run: lanes.c's or numpy's."""
    if request.param == "c" and lanes.module() is None:
        pytest.skip("no C compiler: the C lane loops are not built")
    lanes.enabled(request.param == "c")
    yield request.param
    lanes.enabled(True)


def _image(rng: random.Random, cfg) -> MemoryImage:
    img = MemoryImage()
    rows = 8
    pool = SPECIAL + [rng.randrange(1 << 16) for _ in range(40)]
    img.put("vsram", 0, np.array([rng.choice(pool) for _ in range(rows * cfg.VLEN)], np.uint16))
    img.put("msram", 0, np.array([rng.choice(pool) for _ in range(2 * cfg.MLEN * cfg.MLEN)], np.uint16))
    img.put("fp_mem", 0, np.array(FP, np.float32))
    return img


def random_loop(seed: int, cfg, fault: bool) -> str:
    """Vector instructions on rows 0..7 (gp1..gp4 hold row addresses), fp registers from
    FP_MEM; with `fault`, gp5 walks down a row per iteration and goes negative."""
    rng = random.Random(seed)
    v = cfg.VLEN
    lines = [f"S_LD_FP f{k}, gp0, {k - 1}" for k in range(1, 8)]
    lines += [f"S_ADDI_INT gp{k}, gp0, {rng.randrange(8) * v}" for k in range(1, 5)]
    tile = cfg.MLEN * cfg.MLEN
    lines += [f"S_ADDI_INT gp8, gp0, {rng.randrange(2) * tile}",
              f"S_ADDI_INT gp9, gp0, {rng.randrange(2) * tile + (8 if fault else 0)}"]
    lines += [f"S_ADDI_INT gp6, gp0, {rng.choice([0, 1, 2, 3, -1, -2])}", "C_SET_V_MASK_REG gp6",
              f"S_ADDI_INT gp5, gp0, {rng.randrange(2, 6) * v}"]
    lines.append(f"S_ADDI_INT gp10, gp0, {6 * v}")
    lines.append(f"C_LOOP_START gp7, {rng.randint(3, 9)}")
    if seed % 2:                 # a transfer in flight: instructions wait or run fast by turns
        lines.append("H_PREFETCH_V gp10, gp0, a0, 0, 0")
    regs = ["gp1", "gp2", "gp3", "gp4"] + (["gp5"] if fault else [])
    for _ in range(rng.randint(6, 16)):
        kind = rng.random()
        d, a, b = (rng.choice(regs) for _ in range(3))
        mask = int(rng.random() < 0.2)
        f = f"f{rng.randrange(8)}"
        if kind < 0.3:
            lines.append(f"{rng.choice(BINARY)} {d}, {a}, {b}, {mask}")
        elif kind < 0.6:
            lines.append(f"{rng.choice(SCALAR)} {d}, {a}, {f}, {mask}")
        elif kind < 0.7:
            lines.append(f"V_SUB_VF {d}, {a}, {f}, {mask}, {rng.randrange(2)}")
        elif kind < 0.8:
            lines.append(f"{rng.choice(UNARY)} {d}, {a}, {mask}")
        elif kind < 0.87:
            lines.append(f"{rng.choice(['M_MV', 'M_TMV'])} 0, {rng.choice(['gp8', 'gp8', 'gp9'])}, {a}")
            if rng.random() < 0.3:
                lines.append(f"M_MV_WO {d}, 0")
        else:
            lines.append(f"{rng.choice(['V_RED_SUM', 'V_RED_MAX'])} f{rng.randrange(8)}, {a}")
        if rng.random() < 0.2:
            lines.append(f"S_ADDI_INT {rng.choice(regs[:4])}, gp0, {rng.randrange(8) * v}")
    if fault:
        lines.append(f"S_ADDI_INT gp5, gp5, -{v}")
    lines.append("C_LOOP_END gp7")
    return "\n".join(lines) + "\n"


def _both(source: str, cfg, img, budget: int):
    program = assemble(source, "loop.asm", cfg)
    return (PlenaModel().run(program, img, cfg, Budget(max_instructions=budget)),
            PlenaModel().run(program, img, cfg, Budget(max_instructions=budget, fast=False)))


@pytest.mark.parametrize("seed", range(12))
def test_random_vector_loops_agree(seed, loops):
    cfg = small()
    img = _image(random.Random(seed), cfg)
    source = random_loop(seed, cfg, fault=seed % 3 == 0)
    fast, slow = _both(source, cfg, img, 1_000_000)
    assert same(fast, slow) == "", source + same(fast, slow)
    for cut in (fast.retired // 3 + 5, fast.retired - 2):
        a, b = _both(source, cfg, img, max(1, cut))
        assert same(a, b) == "", (cut, same(a, b))


def test_the_common_vector_instructions_have_a_fast_closure():
    # the loops above only test something if the fast path runs other code
    from kernelcraft.isa.loader import get_isa
    assert set(fastvec._MAKERS) <= set(get_isa("plena").instructions)
    assert set(BINARY + SCALAR + UNARY + ["V_SUB_VF", "V_RED_SUM", "V_RED_MAX", "M_MV", "M_TMV"]) <= set(fastvec._MAKERS)


def test_the_c_loops_compute_what_numerics_does_on_every_bf16_pattern():
    c = lanes.module()
    if c is None:
        pytest.skip("no C compiler: the C lane loops are not built")
    rng = np.random.default_rng(7)
    every = bf16_bits_to_f32(np.arange(1 << 16, dtype=np.uint32).astype(np.uint16))
    pool = every[rng.permutation(every.size)]
    n = every.size
    other = bf16_bits_to_f32(rng.integers(0, 1 << 16, n).astype(np.uint16))
    other[:len(SPECIAL)] = bf16_bits_to_f32(np.array(SPECIAL, np.uint16))
    F32 = np.float32
    binary = {fastlanes.ADD: np.add, fastlanes.SUB: np.subtract, fastlanes.MUL: np.multiply}

    def run(fn, *args, want):
        """lanes.c on the lanes where `want` is not NaN (it must decline a row with one)."""
        ok = ~np.isnan(want)
        rows = np.zeros(3 * n, F32)
        a, b = args[0][ok], args[1][ok] if isinstance(args[1], np.ndarray) else args[1]
        k = a.size
        rows[k:2 * k] = a
        if isinstance(b, np.ndarray):
            rows[2 * k:3 * k] = b
        base = rows.ctypes.data
        assert fn(base, rows.size, k, 0, k, 2 * k if isinstance(b, np.ndarray) else b)
        got = rows[:k].view(np.uint32)
        assert np.array_equal(got, want[ok].view(np.uint32))
        if not ok.all():        # a row with a NaN result is left to the reference
            rows[:k] = 0
            rows[k:2 * k] = args[0][:k]
            if isinstance(b, np.ndarray):
                rows[2 * k:3 * k] = args[1][:k]
            first = int(np.flatnonzero(~ok)[0])
            rows[k + first % k] = args[0][first]
            if isinstance(b, np.ndarray):
                rows[2 * k + first % k] = args[1][first]
            assert not fn(base, rows.size, k, 0, k, 2 * k if isinstance(b, np.ndarray) else b)
            assert not rows[:k].any()

    for op, np_op in binary.items():
        run(lambda *a, op=op: c.binary(*a[:3], op, *a[3:]), pool, other,
            want=round_bf16(np_op(pool, other)))
    for f in FP[:2] + FP[3:] + [0.1]:
        for op, ref in ((fastlanes.ADD, lambda x: x + F32(f)), (fastlanes.SUB, lambda x: x - F32(f)),
                        (fastlanes.RSUB, lambda x: F32(f) - x), (fastlanes.MUL, lambda x: x * F32(f)),
                        (fastlanes.MAX, lambda x: fmax(x, f)), (fastlanes.MIN, lambda x: fmin(x, f))):
            run(lambda *a, op=op: c.scalar(*a[:3], op, *a[3:]), pool, f,
                want=round_bf16(ref(pool)))
    rows = np.concatenate([np.zeros(n, F32), pool])
    for fn in (exp, reciprocal):
        table = bf16_table(fn)
        assert c.table(rows.ctypes.data, rows.size, n, table.ctypes.data, 0, n)
        assert np.array_equal(rows[:n].view(np.uint32), bf16_unary(fn, pool).view(np.uint32))
    for width in (1, 2, 64, 8192):
        x = other[:width]
        got = c.tree_sum(x.ctypes.data, width, width, 0)
        want = float(tree_sum(x))
        assert got == want or (got != got and want != want)
    assert c.tree_sum(pool.ctypes.data, 96, 48, 0) is None           # not a power of two
    x = pool[~np.isnan(pool)][:64]
    assert c.max_reduce(x.ctypes.data, 64, 64, 0) == float(x.max())
    assert c.max_reduce(pool.ctypes.data, 64, 64, 3) is None          # not a whole row
    assert c.binary(pool.ctypes.data, 64, 8, fastlanes.ADD, 0, 8, 64) is False   # past the end


def test_the_c_matrix_loops_sum_in_the_reference_order():
    from kernelcraft.simulators.numerics import f32_to_bf16_bits, matmul_tree
    c = lanes.module()
    if c is None:
        pytest.skip("no C compiler: the C lane loops are not built")
    rng = np.random.default_rng(5)
    n = 64
    for transposed in (False, True):
        for scale in (1.0, 1e30, 1e-30):     # cancellation, overflow to inf, subnormal sums
            v = bf16_bits_to_f32(f32_to_bf16_bits(rng.normal(scale=scale, size=2 * n)))
            tiles = bf16_bits_to_f32(f32_to_bf16_bits(rng.normal(size=2 * n * n)))
            acc = rng.normal(size=n).astype(np.float32)
            tile = tiles[n * n:].reshape(n, n)
            want = (acc + matmul_tree(v[n:][None, :], tile.T if transposed else tile)[0]).astype(np.float32)
            got = acc.copy()
            done = c.mv(v.ctypes.data, v.size, n, tiles.ctypes.data, tiles.size, got.ctypes.data,
                        transposed, n * n, n)
            if np.isnan(want).any():
                assert not done and np.array_equal(got, acc)
            else:
                assert done and np.array_equal(got.view(np.uint32), want.view(np.uint32))
    blen = 4
    for transposed in (False, True):
        for scale in (1.0, 1e30, 1e-30):
            v = bf16_bits_to_f32(f32_to_bf16_bits(rng.normal(scale=scale, size=(blen + 1) * n)))
            tiles = bf16_bits_to_f32(f32_to_bf16_bits(rng.normal(size=2 * n * n)))
            acc = rng.normal(size=(blen, blen)).astype(np.float32)
            c0 = 3 * blen                     # the columns (rows, transposed) c0 .. c0 + blen
            tile = tiles[n * n:].reshape(n, n)
            b = tile[c0:c0 + blen, :].T if transposed else tile[:, c0:c0 + blen]
            want = (acc + matmul_tree(v[n:].reshape(blen, n), b)).astype(np.float32)
            got = acc.copy()
            done = c.mm(v.ctypes.data, v.size, n, tiles.ctypes.data, tiles.size, blen,
                        got.ctypes.data, transposed, n * n + c0, n)
            if np.isnan(want).any():
                assert not done and np.array_equal(got, acc)
            else:
                assert done and np.array_equal(got.view(np.uint32), want.view(np.uint32))
            for bad in (n * n + 1, n * n + n, 2 * n * n):       # not a column block / past the end
                assert not c.mm(v.ctypes.data, v.size, n, tiles.ctypes.data, tiles.size, blen,
                                got.ctypes.data, transposed, bad, n)
    rows = np.zeros(blen * n, np.float32)
    acc = rng.normal(size=(blen, blen)).astype(np.float32)
    want = round_bf16(acc)
    assert c.mm_write_out(rows.ctypes.data, rows.size, n, blen, acc.ctypes.data, 2 * blen)
    assert np.array_equal(rows.reshape(blen, n)[:, 2 * blen:3 * blen].view(np.uint32), want.view(np.uint32))
    assert not acc.any() and np.count_nonzero(rows) == np.count_nonzero(want)
    rows = np.zeros(2 * n, np.float32)
    acc = (rng.normal(size=n) * 2.0 ** rng.integers(-140, 128, n)).astype(np.float32)
    want = round_bf16(acc)
    assert c.write_out(rows.ctypes.data, rows.size, n, acc.ctypes.data, n)
    assert np.array_equal(rows[n:].view(np.uint32), want.view(np.uint32)) and not acc.any()
    acc[3] = np.nan
    assert not c.write_out(rows.ctypes.data, rows.size, n, acc.ctypes.data, 0) and not rows[:n].any()


@pytest.mark.usefixtures("loops")
def test_matrix_vector_products_agree_on_ordinary_values():
    # (special values mostly end in NaN, which the closures hand to the reference)
    from kernelcraft.simulators.numerics import f32_to_bf16_bits
    cfg = small()
    rng = np.random.default_rng(4)
    img = MemoryImage()
    img.put("vsram", 0, f32_to_bf16_bits(rng.normal(scale=3, size=8 * cfg.VLEN)))
    img.put("msram", 0, f32_to_bf16_bits(rng.normal(size=2 * cfg.MLEN * cfg.MLEN)))
    tile = cfg.MLEN * cfg.MLEN
    source = "\n".join([f"S_ADDI_INT gp1, gp0, {tile}", "S_ADDI_INT gp2, gp0, 0",
                        f"S_ADDI_INT gp3, gp0, {7 * cfg.VLEN}",
                        "C_LOOP_START gp7, 6",
                        "M_MV 0, gp1, gp2", "M_MV_WO gp3, 0", "M_TMV 0, gp0, gp2", "M_TMV 0, gp1, gp2",
                        f"S_ADDI_INT gp2, gp2, {cfg.VLEN}", "C_LOOP_END gp7"]) + "\n"
    fast, slow = _both(source, cfg, img, 100_000)
    assert fast.error is None and same(fast, slow) == "", same(fast, slow)
    assert np.count_nonzero(fast.registers["MV_ACC"])         # the fp32 sums themselves compared
    assert np.count_nonzero(fast.memories["vsram"][7 * cfg.VLEN:8 * cfg.VLEN])   # and a write-out


def random_scalar_loops(seed: int, fp_size: int) -> str:
    """Nested hardware loops of integer additions and fp32 arithmetic, loads and stores
    (fastscalar.py): gp0 and f0 as destinations, sums that wrap at 32 bits, fp results
    that overflow or are NaN, FP_MEM addresses that step out of range, a body that
    changes its own loop counter."""
    rng = random.Random(seed)
    lines = ["S_LUI_INT gp1, 524287", "S_ADDI_INT gp1, gp1, 4095",   # near the int32 maximum
             f"S_ADDI_INT gp6, gp0, {fp_size - 9 if seed % 3 == 0 else 0}"]

    def body(depth: int) -> None:
        for _ in range(rng.randint(2, 6)):
            d, a, b = (f"gp{rng.choice([0, 1, 2, 3, 4, 5])}" for _ in range(3))
            fd, fa, fb = (f"f{rng.randrange(8)}" for _ in range(3))
            kind = rng.random()
            if kind < 0.3:
                lines.append(f"S_ADDI_INT {d}, {a}, {rng.choice([-2048, -1, 1, 7, 2047])}")
            elif kind < 0.5:
                lines.append(f"S_ADD_INT {d}, {a}, {b}")
            elif kind < 0.65:
                lines.append(f"{rng.choice(['S_ADD_FP', 'S_SUB_FP', 'S_MUL_FP', 'S_MAX_FP'])} {fd}, {fa}, {fb}")
            elif kind < 0.75:
                lines.append(f"{rng.choice(['S_EXP_FP', 'S_RECI_FP', 'S_SQRT_FP'])} {fd}, {fa}")
            else:
                lines.append(f"{rng.choice(['S_LD_FP', 'S_ST_FP'])} {fd}, gp6, {rng.randrange(8)}")
        if rng.random() < 0.3:
            lines.append(f"S_ADDI_INT gp6, gp6, {rng.choice([1, -1, 3])}")
        if depth < 2 and rng.random() < 0.7:
            counter = f"gp{8 + depth}"
            lines.append(f"C_LOOP_START {counter}, {rng.randint(1, 5)}")
            body(depth + 1)
            if rng.random() < 0.3:
                lines.append(f"S_ADDI_INT {counter}, {counter}, -1")
            lines.append(f"C_LOOP_END {counter}")
    lines.append(f"C_LOOP_START gp7, {rng.randint(2, 6)}")
    body(0)
    lines.append("C_LOOP_END gp7")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(12))
def test_random_scalar_loops_agree(seed):
    cfg = small()
    source = random_scalar_loops(seed, cfg.FP_MEM_SIZE)
    img = MemoryImage()
    img.put("fp_mem", 0, np.array(FP * 2, np.float32))
    fast, slow = _both(source, cfg, img, 1_000_000)
    assert same(fast, slow) == "", source + same(fast, slow)
    for cut in (fast.retired // 2 + 1, fast.retired - 1):
        a, b = _both(source, cfg, img, max(1, cut))
        assert same(a, b) == "", (cut, same(a, b))


def test_the_c_scalar_exp_is_numerics_exp_f32():
    from kernelcraft.simulators import numerics as N
    c = lanes.module()
    if c is None:
        pytest.skip("no C compiler: the C lane loops are not built")
    rng = np.random.default_rng(3)
    bits = np.concatenate([rng.integers(0, 1 << 32, 30_000, dtype=np.uint64).astype(np.uint32),
                           rng.normal(scale=40, size=20_000).astype(np.float32).view(np.uint32),
                           (np.arange(-400, 400) * 0.25).astype(np.float32).view(np.uint32),
                           np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 1, 0x80000001,
                                     0x42FE0000, 0xC2FC0000, 0x7F7FFFFF], np.uint32)])
    constants = (N._EXP_TOP, tuple(N._EXP_C), N._LOG2E, N._LN2_HI, N._LN2_LO)
    for x in bits.view(np.float32).tolist():
        got = c.exp_f32(x, *constants)
        if x != x:
            assert got is None             # the reference makes the canonical NaN
        else:
            assert struct.pack("<d", got) == struct.pack("<d", N.exp_f32(x)), x
    assert c.exp_f32(0.1, *constants) is None             # not a binary32 value


def test_the_loop_and_address_instructions_have_a_fast_closure():
    from kernelcraft.isa.loader import get_isa
    from kernelcraft.simulators.plena import fastscalar
    assert {"S_ADDI_INT", "S_ADD_INT", "C_LOOP_END", "S_ADD_FP", "S_MUL_FP", "S_LD_FP"} <= set(fastscalar.MAKERS)
    assert set(fastscalar.MAKERS) <= set(get_isa("plena").instructions)


def random_row_loop(seed: int, cfg) -> str:
    """A row loop of lane-wise vector instructions (loopbatch.py): streamed rows (gp1,
    gp2 step a row per iteration), scratch rows (gp3, gp4: fixed), a constant row (gp5),
    fp operands special and ordinary; some seeds make it one loopbatch must decline:
    a scratch row read before it is written (a running value), streams that meet
    (gp2 one row behind gp1), or a stream that runs off Vector SRAM in a later iteration."""
    rng = random.Random(seed)
    v = cfg.VLEN
    rows = cfg.VSRAM_ROWS
    trips = rng.randint(2, 7)
    twist = seed % 5            # 0: running value, 1: streams meet, 2: runs off, else clean
    lines = [f"S_LD_FP f{k}, gp0, {k - 1}" for k in range(1, 8)]
    lines += [f"S_ADDI_INT gp1, gp0, {(rows - trips + 1 if twist == 2 else 8) * v}",
              f"S_ADDI_INT gp2, gp0, {(9 if twist == 1 else 8 + trips) * v}",
              f"S_ADDI_INT gp3, gp0, {2 * v}", f"S_ADDI_INT gp4, gp0, {3 * v}",
              f"S_ADDI_INT gp5, gp0, {rng.randrange(2) * v}"]
    lines.append(f"C_LOOP_START gp7, {trips}")
    lines.append({0: "V_ADD_VV gp3, gp3, gp1, 0", 1: "V_ADD_VV gp2, gp1, gp1, 0"}.get(
        twist, "V_EXP_V gp1, gp1, 0"))
    scratch = ["gp3", "gp4"]
    ready = ["gp1", "gp2", "gp5"] + (["gp3"] if twist == 0 else [])
    for _ in range(rng.randint(3, 9)):
        kind = rng.random()
        d = rng.choice(["gp1", "gp2"] + scratch)
        a, b = rng.choice(ready), rng.choice(ready)
        f = f"f{rng.randrange(8)}"
        if kind < 0.3:
            lines.append(f"{rng.choice(BINARY)} {d}, {a}, {b}, 0")
        elif kind < 0.65:
            lines.append(f"{rng.choice(SCALAR)} {d}, {a}, {f}, 0")
        elif kind < 0.75:
            lines.append(f"V_SUB_VF {d}, {a}, {f}, 0, {rng.randrange(2)}")
        else:
            lines.append(f"{rng.choice(UNARY)} {d}, {a}, 0")
        if d not in ready:
            ready.append(d)
        if rng.random() < 0.15:
            lines.append(f"S_ADDI_INT gp1, gp1, {v}")
            lines.append(f"S_ADDI_INT gp1, gp1, -{v}")
    lines += [f"S_ADDI_INT gp1, gp1, {v}", f"S_ADDI_INT gp2, gp2, {v}", "C_LOOP_END gp7"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(15))
def test_random_row_loops_run_at_once_and_agree(seed, monkeypatch, loops):
    from kernelcraft.simulators.plena import loopbatch
    done = {True: 0, False: 0}
    real = loopbatch.run
    monkeypatch.setattr(loopbatch, "run", lambda *a: done.__setitem__(r := real(*a), done[r] + 1) or r)
    monkeypatch.setattr(loopbatch, "MIN_INSTRUCTIONS", {True: 0, False: 0})   # short as they are
    cfg = small()
    rng = random.Random(seed)
    img = _image(rng, cfg)
    img.put("vsram", 8 * cfg.VLEN, np.array([rng.choice(SPECIAL + [rng.randrange(1 << 16)])
                                             for _ in range(16 * cfg.VLEN)], np.uint16))
    source = random_row_loop(seed, cfg)
    fast, slow = _both(source, cfg, img, 1_000_000)
    assert same(fast, slow) == "", source + same(fast, slow)
    clean = seed % 5 > 2
    assert done[True] == (1 if clean else 0), (done, source)
    if seed % 5 == 2:
        assert fast.error is not None and fast.error.kind == "memory access error"
    for cut in (fast.retired // 2 + 1, fast.retired - 1):
        a, b = _both(source, cfg, img, max(1, cut))
        assert same(a, b) == "", (cut, same(a, b))


def random_transfer_loop(seed: int, cfg) -> str:
    """Transfers (H_PREFETCH_V, H_PREFETCH_M, H_STORE_V, lanes.c's `load` and `store`)
    and S_MAP_V_FP among vector instructions that wait for them: row strides of a row,
    none, negative, overlapping and wide; HBM, Vector SRAM, Matrix SRAM and FP_MEM
    addresses that step out of range in a later iteration on some seeds; an address
    register above 2**32."""
    rng = random.Random(seed)
    v, tile = cfg.VLEN, cfg.MLEN * cfg.MLEN
    fault = seed % 4 == 0
    stride = rng.choice([v, 0, -v, v // 2, 3 * v, 5])
    hbm_step = rng.choice([v, 2 * v, -v]) * (64 if fault else 1)
    lines = [f"S_LD_FP f{k}, gp0, {k - 1}" for k in range(1, 8)]
    lines += [f"S_ADDI_INT gp8, gp0, {stride}", "C_SET_STRIDE_REG gp8",
              f"S_ADDI_INT gp9, gp0, {rng.randrange(4) * v + (cfg.HBM_SIZE // 2 if stride < 0 or hbm_step < 0 else 0)}",
              f"S_ADDI_INT gp10, gp0, {rng.choice([0, 1]) if seed % 7 == 3 else 0}",
              "C_SET_ADDR_REG a1, gp10, gp9",          # a1 = gp9 (or + 2**32: out of HBM)
              f"S_ADDI_INT gp1, gp0, {rng.randrange(8) * v}", f"S_ADDI_INT gp2, gp0, {rng.randrange(8) * v}",
              f"S_ADDI_INT gp3, gp0, {rng.randrange(2) * tile}",
              f"S_ADDI_INT gp4, gp0, {(cfg.FP_MEM_SIZE - 3 * v) if fault else 0}",
              f"S_ADDI_INT gp5, gp0, {rng.randrange(4) * v}",
              f"C_LOOP_START gp7, {rng.randint(3, 8)}"]
    for _ in range(rng.randint(4, 10)):
        kind = rng.random()
        st = rng.randrange(2)
        if kind < 0.2:
            lines.append(f"H_PREFETCH_V {rng.choice(['gp1', 'gp2'])}, gp5, a1, {st}, 0")
        elif kind < 0.35:
            lines.append(f"H_PREFETCH_M gp3, gp5, a1, {st}, 0")
        elif kind < 0.55:
            lines.append(f"H_STORE_V {rng.choice(['gp1', 'gp2'])}, gp5, a1, {st}, 0")
        elif kind < 0.65:
            lines.append(f"S_MAP_V_FP {rng.choice(['gp1', 'gp2'])}, gp4, {rng.randrange(3)}")
        elif kind < 0.8:
            lines.append(f"V_ADD_VV gp2, gp1, gp2, 0")
        elif kind < 0.9:
            lines.append(f"M_MV 0, gp3, gp1")
        else:
            lines.append(f"V_MUL_VF gp1, gp2, f{rng.randrange(8)}, 0")
    lines += [f"S_ADDI_INT gp5, gp5, {hbm_step}", f"S_ADDI_INT gp4, gp4, {v if fault else 0}",
              f"S_ADDI_INT gp1, gp1, {v * (8 if fault and seed % 8 == 0 else 0)}",
              "C_LOOP_END gp7", "M_MV_WO gp2, 0"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(16))
def test_random_transfer_loops_agree(seed, loops):
    cfg = small()
    rng = random.Random(seed)
    img = _image(rng, cfg)
    img.put("hbm", 0, np.array([rng.choice(SPECIAL + [rng.randrange(1 << 16)])
                                for _ in range(cfg.HBM_SIZE)], np.uint16))
    ordinary = [0.5, -2.0, 1e-3, 7.0, 0.0, -0.0, float("inf"), 1e-40, 2.5e38, -1.5]   # no NaN
    img.put("fp_mem", 0, np.array((ordinary * 8)[:cfg.FP_MEM_SIZE - 16] + FP * 2, np.float32))
    source = random_transfer_loop(seed, cfg)
    fast, slow = _both(source, cfg, img, 1_000_000)
    assert same(fast, slow) == "", source + same(fast, slow)
    assert fast.stalls["dma_wait"] or fast.error is not None, source   # transfers were waited for
    for cut in (fast.retired // 3 + 2, fast.retired // 2 + 1, fast.retired - 1):
        a, b = _both(source, cfg, img, max(1, cut))
        assert same(a, b) == "", (cut, same(a, b))


def random_waiting_loop(seed: int, cfg) -> str:
    """An inner loop without transfers (a block that may stall) while the outer loop's
    prefetches are in flight: its rows are sometimes the prefetched ones, sometimes
    not; its address registers step before or after their use in the block, or run off
    Vector SRAM; so the block runs fast when every row it touches has landed
    (Timing.settled) and instruction by instruction otherwise."""
    rng = random.Random(seed)
    v = cfg.VLEN
    rows = cfg.VSRAM_ROWS
    lines = [f"S_LD_FP f{k}, gp0, {k - 1}" for k in range(1, 8)]
    lines += [f"S_ADDI_INT gp1, gp0, {rng.randrange(4) * v}",     # near the prefetched rows
              f"S_ADDI_INT gp2, gp0, {rng.randrange(8, 12) * v}",  # never prefetched
              f"S_ADDI_INT gp3, gp0, {rng.randrange(2) * cfg.MLEN * cfg.MLEN}",
              f"S_ADDI_INT gp6, gp0, {(rows - 3) * v if seed % 5 == 0 else 20 * v}",
              f"C_LOOP_START gp7, {rng.randint(2, 5)}",
              f"H_PREFETCH_V gp0, gp0, a0, 0, 0",
              f"C_LOOP_START gp8, {rng.randint(2, 6)}"]
    for _ in range(rng.randint(3, 8)):
        kind = rng.random()
        d, a, b = (rng.choice(["gp1", "gp2", "gp6"]) for _ in range(3))
        if kind < 0.3:
            lines.append(f"{rng.choice(BINARY)} {d}, {a}, {b}, 0")
        elif kind < 0.55:
            lines.append(f"{rng.choice(SCALAR)} {d}, {a}, f{rng.randrange(8)}, 0")
        elif kind < 0.65:
            lines.append(f"{rng.choice(UNARY)} {d}, {a}, 0")
        elif kind < 0.75:
            lines.append(f"M_MV 0, gp3, {a}")
        elif kind < 0.85:
            lines.append(f"V_RED_SUM f{rng.randrange(8)}, {a}")
        else:
            lines.append(f"S_ADDI_INT {rng.choice(['gp1', 'gp2'])}, {rng.choice(['gp1', 'gp2'])}, "
                         f"{rng.choice([-v, v])}")
    lines += [f"S_ADDI_INT gp6, gp6, {v}", "C_LOOP_END gp8", "C_LOOP_END gp7"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(16))
def test_blocks_that_may_stall_agree(seed, loops):
    cfg = small()
    rng = random.Random(seed)
    img = _image(rng, cfg)
    source = random_waiting_loop(seed, cfg)
    fast, slow = _both(source, cfg, img, 1_000_000)
    assert same(fast, slow) == "", source + same(fast, slow)
    for cut in (fast.retired // 3 + 2, fast.retired // 2 + 1, fast.retired - 1):
        a, b = _both(source, cfg, img, max(1, cut))
        assert same(a, b) == "", (cut, same(a, b))


def random_matrix_loop(seed: int, cfg) -> str:
    """M_MM, M_TMM and M_MM_WO (lanes.c's `mm`, `mm_write_out`) on tiles and row blocks
    that step, some seeds off a column block, Matrix SRAM or Vector SRAM, with a
    prefetch in flight on odd seeds."""
    rng = random.Random(seed)
    v, tile, blen = cfg.VLEN, cfg.MLEN * cfg.MLEN, cfg.BLEN
    fault = seed % 3 == 0
    lines = [f"S_ADDI_INT gp1, gp0, {rng.randrange(2) * tile + rng.randrange(cfg.MLEN // blen) * blen}",
             f"S_ADDI_INT gp2, gp0, {rng.randrange(4) * v}",
             f"S_ADDI_INT gp3, gp0, {rng.randrange(8, 12) * v + rng.randrange(v // blen) * blen}",
             f"S_ADDI_INT gp10, gp0, {40 * v}",
             f"C_LOOP_START gp7, {rng.randint(3, 7)}"]
    if seed % 2:
        lines.append("H_PREFETCH_V gp10, gp0, a0, 0, 0")
    for _ in range(rng.randint(3, 8)):
        kind = rng.random()
        if kind < 0.6:
            lines.append(f"{rng.choice(['M_MM', 'M_TMM'])} 0, gp1, gp2")
        elif kind < 0.8:
            lines.append(f"M_MM_WO gp3, 0, {rng.choice([0, blen, v])}")
        else:
            lines.append(f"V_ADD_VV gp2, gp2, gp2, 0")
    step = rng.choice([3, 2 * tile]) if fault else 0        # off a column block / Matrix SRAM
    lines += [f"S_ADDI_INT gp1, gp1, {step}", f"S_ADDI_INT gp3, gp3, {v * (9 if fault else 1)}",
              f"S_ADDI_INT gp2, gp2, {v}",
              "C_LOOP_END gp7", "M_MM_WO gp3, 0, 0"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(12))
def test_random_matrix_loops_agree(seed, loops):
    from kernelcraft.simulators.numerics import f32_to_bf16_bits
    cfg = small()
    rng = np.random.default_rng(seed)
    img = _image(random.Random(seed), cfg)
    if seed % 4 < 2:           # ordinary values: the sums themselves are compared
        img.put("vsram", 0, f32_to_bf16_bits(rng.normal(scale=3, size=16 * cfg.VLEN)))
        img.put("msram", 0, f32_to_bf16_bits(rng.normal(size=4 * cfg.MLEN * cfg.MLEN)))
    source = random_matrix_loop(seed, cfg)
    fast, slow = _both(source, cfg, img, 1_000_000)
    assert same(fast, slow) == "", source + same(fast, slow)
    for cut in (fast.retired // 3 + 2, fast.retired // 2 + 1, fast.retired - 1):
        a, b = _both(source, cfg, img, max(1, cut))
        assert same(a, b) == "", (cut, same(a, b))
