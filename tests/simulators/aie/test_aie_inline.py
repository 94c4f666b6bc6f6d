"""Random straight-line programs: the statements inline.py writes into runs of bundles
(scalar and pointer arithmetic, loads, stores, broadcasts, queued multiply-accumulates, the softmax's vector
operations, accumulator stores deferred behind queued multiply-accumulates), the batched flush of deferred multiply-accumulates (tile products by
gather, sums in place) and the bf16 max/min/rounding helpers must give exactly what
stepping gives (`Budget(fast=False)`: one bundle at a time, no deferral) and a traced
run: memories, registers, cycles, stalls, unit activity, and the same error at the same
bundle for out-of-range, misaligned and racing accesses. The vector statements run
both on lanes.c's C loops (where a C compiler builds them: multiply-accumulates applied
at once) and on their numpy code (`lanes.enabled(False)`: queued and flushed in
batches); a direct test compares each C loop with the reference semantics on registers
full of special values."""
import functools

import numpy as np
import pytest

from aie_kit import image, small
from kernelcraft.simulators.aie.assembler import assemble
from kernelcraft.simulators.aie.machine import AieModel
from kernelcraft.simulators.aie import lanes, numerics as nx
from kernelcraft.simulators.aie.semantics import vector
from kernelcraft.simulators.aie.state import MAC_MATRIX, AieState
from kernelcraft.simulators.core.budget import Budget
from kernelcraft.simulators.numerics import bf16_bits_to_f32, f32_to_bf16_bits, fmax, fmin
from kernelcraft.simulators.speed import same

CFG = small()
DM = CFG.DM_SIZE


@pytest.fixture(params=["c", "numpy"])
def loops(request):
    """Which code the vector statements run: lanes.c's C loops or numpy's."""
    if request.param == "c" and lanes.module() is None:
        pytest.skip("no C compiler: the C lane loops are not built")
    lanes.enabled(request.param == "c")
    yield request.param
    lanes.enabled(True)


def _pointer(rng) -> int:
    r = rng.random()
    if r < 0.03:
        return DM - 32                       # runs off the end of data memory
    if r < 0.06:
        return 2 + 128 * int(rng.integers(0, 8))   # misaligned
    return 128 * int(rng.integers(0, DM // 128 - 8))


def _op(rng) -> str:
    x, acc = (lambda: int(rng.integers(0, 16))), (lambda: int(rng.integers(0, 8)))
    p, post = int(rng.integers(0, 8)), rng.choice(["", ", 64", ", -64", ", 128", ", m1", ", 32"])
    return rng.choice([
        f"VLD x{x()}, [p{p}]{post}", f"VST x{x()}, [p{p}]{post}",
        f"ALD acc{acc()}, [p{p}]{post if post != ', 32' else ''}", f"AST acc{acc()}, [p{p}]{post}",
        f"ABCST acc{acc()}, r{int(rng.integers(0, 4))}",
        f"VMMAC.BF16 acc{acc()}, x{x()}, y{int(rng.integers(0, 8))}",
        f"VMMAC.BF16 acc{acc()}, x{x()}, y{int(rng.integers(0, 8))}",
        f"VMAC.BF16 acc{acc()}, x{x()}, x{x()}", f"VMSC.BF16 acc{acc()}, x{x()}, x{x()}",
        f"VSRS.BF16 x{x()}, acc{acc()}", f"VMAX.BF16 x{x()}, x{x()}, x{x()}",
        f"VMIN.BF16 x{x()}, x{x()}, x{x()}", f"AMUL.F32 acc{acc()}, acc{acc()}, acc{acc()}",
        f"AADD.F32 acc{acc()}, acc{acc()}, acc{acc()}", f"ASUB.F32 acc{acc()}, acc{acc()}, acc{acc()}",
        f"VUPS.BF16 acc{acc()}, x{x()}", f"VPWL.EXP acc{acc()}, acc{acc()}",
        f"MOVPI p{p}, {_pointer(rng)}", f"MOVI r{int(rng.integers(1, 4))}, {int(rng.integers(-9, 2**20))}",
    ])


def _program(rng, n: int, dma: bool) -> str:
    lines = [".bd A, ext=0, loc=2048, n0=512, rel=l0", "DMAIN 0, A, r0, r0"] if dma else []
    lines += [f"MOVPI p{i}, {128 * int(rng.integers(0, DM // 128 - 8))}" for i in range(8)]
    lines += ["MOVI r1, 128", "MOVM m1, r1" if rng.random() < 0.5 else "NOP"]
    assemble("\n".join(lines), "r.asm", CFG)
    body = []
    while len(body) < n:
        ops = [_op(rng) for _ in range(int(rng.integers(1, 4)))]
        try:                                  # keep bundles the assembler accepts
            assemble(" || ".join(ops), "r.asm", CFG)
        except Exception:
            continue
        body.append(" || ".join(ops))
    if rng.random() < 0.5:                    # a loop around part of it
        k = int(rng.integers(0, n // 2))
        body = body[:k] + [f"LOOP {int(rng.integers(2, 5))}"] + body[k:k + n // 2] + ["ENDLOOP"] + body[k + n // 2:]
    return "\n".join(lines + body)


def _image(rng):
    words = rng.normal(size=DM // 2).astype(np.float32)
    words[rng.integers(0, words.size, 40)] = [np.nan, np.inf, -np.inf, -0.0] * 10
    return image(dm={0: f32_to_bf16_bits(words).view(np.uint8)},
                 ext={0: f32_to_bf16_bits(rng.normal(size=512).astype(np.float32))})


SEEDS = range(16)


@functools.lru_cache(maxsize=None)
def _case(seed):
    rng = np.random.default_rng(seed)
    return assemble(_program(rng, 60, dma=seed % 3 == 0), "r.asm", CFG), _image(rng)


@pytest.mark.parametrize("seed", SEEDS)
def test_random_straight_line_programs_run_as_stepping_does(seed, loops):
    program, img = _case(seed)
    fast = AieModel().run(program, img, CFG, Budget())
    for other in (AieModel().run(program, img, CFG, Budget(fast=False)),
                  AieModel().run(program, img, CFG, Budget(), trace=True)):
        assert same(fast, other) == "", same(fast, other)
    cut = max(1, fast.retired // 2)          # stopped by the budget inside a run
    assert same(AieModel().run(program, img, CFG, Budget(max_instructions=cut)),
                AieModel().run(program, img, CFG, Budget(max_instructions=cut, fast=False))) == ""


def test_random_programs_reach_errors_and_the_inline_statements(loops, monkeypatch):
    done: dict = {}
    if loops == "c":                         # each C loop computed some operation itself
        mod = lanes.module()
        for name in ("mmac", "mac", "srs", "ups", "maxmin", "arith", "pwl_exp"):
            def counted(*args, _f=getattr(mod, name), _name=name):
                ok = _f(*args)
                done[_name] = done.get(_name, 0) + bool(ok)
                return ok
            monkeypatch.setattr(mod, name, counted)
    runs = [AieModel().run(*_case(seed), CFG) for seed in SEEDS]
    if loops == "c":
        assert len(done) == 7 and min(done.values()) > 0, done
    errors = {r.error.kind for r in runs if r.error is not None}
    assert len(errors) >= 2, errors          # out of range / misaligned / race: the fallbacks ran
    assert sum(r.retired for r in runs if r.error is None) > 500


def _scalar_op(rng) -> str:
    r = lambda: int(rng.integers(0, 6))                     # noqa: E731 (r0 included)
    p = int(rng.integers(0, 8))
    big = int(rng.choice([-(2**19), 2**19 - 1, -1, 0, 7]))
    return rng.choice([
        f"ADD r{r()}, r{r()}, r{r()}", f"SUB r{r()}, r{r()}, r{r()}", f"MUL r{r()}, r{r()}, r{r()}",
        f"AND r{r()}, r{r()}, r{r()}", f"OR r{r()}, r{r()}, r{r()}",
        f"ADDI r{r()}, r{r()}, {int(rng.integers(-512, 512))}", f"SLLI r{r()}, r{r()}, {int(rng.integers(0, 32))}",
        f"SRAI r{r()}, r{r()}, {int(rng.integers(0, 32))}", f"SRLI r{r()}, r{r()}, {int(rng.integers(0, 32))}",
        f"MOVI r{r()}, {big}", f"MOVHI r{r()}, {int(rng.integers(0, 65536))}", f"MOV r{r()}, r{r()}",
        f"MOVPI p{p}, {_pointer(rng)}", f"MOVP p{p}, r{r()}", f"PADD p{p}, r{r()}",
        f"PADDI p{p}, p{int(rng.integers(0, 8))}, {int(rng.choice([-128, -64, 0, 64, 128]))}",
        f"VLD x{int(rng.integers(0, 16))}, [p{p}], 64", f"VST x{int(rng.integers(0, 16))}, [p{p}]",
    ])


@pytest.mark.parametrize("seed", range(8))
def test_random_scalar_and_pointer_programs_run_as_stepping_does(seed):
    # the scalar and pointer statements (32-bit wrap, r0 kept 0) and the pointers they
    # leave for loads and stores
    rng = np.random.default_rng(100 + seed)
    lines = [f"MOVI r{i}, {int(rng.integers(-(2**19), 2**19))}\nMOVHI r{i}, {int(rng.integers(0, 2**16))}"
             for i in range(1, 6)]
    lines += [f"MOVPI p{i}, {128 * int(rng.integers(0, DM // 128 - 8))}" for i in range(8)]
    body = []
    while len(body) < 80:
        ops = [_scalar_op(rng) for _ in range(int(rng.integers(1, 3)))]
        try:
            assemble(" || ".join(ops), "r.asm", CFG)
        except Exception:
            continue
        body.append(" || ".join(ops))
    program = assemble("\n".join(lines + ["LOOP 3"] + body + ["ENDLOOP"]), "r.asm", CFG)
    img = _image(rng)
    fast = AieModel().run(program, img, CFG, Budget())
    assert fast.retired > 20
    for other in (AieModel().run(program, img, CFG, Budget(fast=False)),
                  AieModel().run(program, img, CFG, Budget(), trace=True)):
        assert same(fast, other) == "", same(fast, other)


def _store_op(rng) -> str:
    # stores of accumulators with queued multiply-accumulates (deferred behind the
    # queue), and what must land them first: a load, store or DMA transfer of their
    # bytes, another operation on the accumulator, a full queue; a few addresses, so
    # they overlap
    acc, x, y = int(rng.integers(0, 4)), int(rng.integers(0, 16)), int(rng.integers(0, 8))
    p = int(rng.integers(0, 4))
    post = rng.choice(["", "", ", 128", ", -128", ", 64"])
    return rng.choice([
        f"VMMAC.BF16 acc{acc}, x{x}, y{y}", f"VMMAC.BF16 acc{acc}, x{x}, y{y}",
        f"VMAC.BF16 acc{acc}, x{x}, x{int(rng.integers(0, 16))}",
        f"AST acc{acc}, [p{p}]{post}", f"AST acc{acc}, [p{p}]{post}", f"AST acc{acc}, [p{p}], m1",
        f"ALD acc{acc}, [p{p}]{post if post != ', 64' else ''}", f"VLD x{x}, [p{p}]{post}",
        f"VST x{x}, [p{p}]{post}", f"LD r2, [p{p}]", f"ST r1, [p{p}]",
        f"AMUL.F32 acc{acc}, acc{acc}, acc{int(rng.integers(0, 4))}", f"VSRS.BF16 x{x}, acc{acc}",
        f"MOVPI p{p}, {rng.choice([512, 640, 768, 1024, 1152, 512, 640, 768, 896])}",
        f"MOVPI p{p}, {rng.choice([512, 640, 768, 1024, 1152])}",
    ])


# a transfer of bytes an accumulator store just deferred: its completion lands the store
_TRANSFERS = [["MOVPI p3, 2048", "VMMAC.BF16 acc0, x1, y1", "AST acc0, [p3]", "DMAOUT 0, O, r0, r0",
               "ACQ l1, 1", "MOVPI p3, 0"],
              ["MOVPI p2, 2048", "VMAC.BF16 acc1, x1, x2", "AST acc1, [p2]", "DMAIN 1, I, r0, r0",
               "ACQ l2, 1", "ALD acc2, [p2]"]]


def _store_program(rng, n: int) -> str:
    lines = [".bd O, ext=4096, loc=2048, n0=128, rel=l1", ".bd I, ext=0, loc=2048, n0=64, rel=l2",
             "MOVI r1, 128", "MOVM m1, r1", "MOVI r1, 7"]
    lines += [f"MOVPI p{i}, {128 * int(rng.integers(4, 12))}" for i in range(4)]
    body = []
    while len(body) < n:
        if rng.random() < 0.05:
            body += _TRANSFERS[int(rng.integers(0, 2))]
            continue
        ops = [_store_op(rng) for _ in range(int(rng.integers(1, 3)))]
        try:
            assemble("\n".join(lines[:2] + [" || ".join(ops)]), "s.asm", CFG)
        except Exception:
            continue
        body.append(" || ".join(ops))
    if rng.random() < 0.25:                   # a misaligned pointer
        k = int(rng.integers(0, n))
        body = body[:k] + ["MOVPI p1, 130"] + body[k:]
    if rng.random() < 0.6:
        k = int(rng.integers(0, n // 2))
        body = body[:k] + [f"LOOP {int(rng.integers(2, 6))}"] + body[k:k + n // 2] + ["ENDLOOP"] + body[k + n // 2:]
    # a store still deferred at the end: the run's memories land it
    return "\n".join(lines + body + ["MOVPI p0, 4096", "VMMAC.BF16 acc3, x0, y0", "AST acc3, [p0]"])


@functools.lru_cache(maxsize=None)
def _store_case(seed):
    rng = np.random.default_rng(1000 + seed)
    return assemble(_store_program(rng, 70), "s.asm", CFG), _image(rng)


@pytest.mark.parametrize("seed", range(12))
def test_deferred_accumulator_stores_run_as_stepping_does(seed, loops):
    program, img = _store_case(seed)
    fast = AieModel().run(program, img, CFG, Budget())
    for other in (AieModel().run(program, img, CFG, Budget(fast=False)),
                  AieModel().run(program, img, CFG, Budget(), trace=True)):
        assert same(fast, other) == "", same(fast, other)
    for cut in (fast.retired // 3, fast.retired // 2 + 1):      # stopped with stores deferred
        assert same(AieModel().run(program, img, CFG, Budget(max_instructions=max(1, cut))),
                    AieModel().run(program, img, CFG, Budget(max_instructions=max(1, cut), fast=False))) == ""


def test_random_store_programs_defer_stores_and_land_them_for_each_reason(monkeypatch):
    # (the numpy statements queue multiply-accumulates; the C ones apply them at once)
    monkeypatch.setattr(lanes, "module", lambda: None)
    deferred, landed = [0], {}
    defer, flush = AieState.defer_store, AieState.flush_stores

    def counting_defer(self, i, a):
        deferred[0] += 1
        defer(self, i, a)

    def counting_flush(self):
        if any(self.mac_stores):
            import inspect
            caller = inspect.stack()[1].function
            landed[caller] = landed.get(caller, 0) + 1
        flush(self)
    monkeypatch.setattr(AieState, "defer_store", counting_defer)
    monkeypatch.setattr(AieState, "flush_stores", counting_flush)
    runs = [AieModel().run(*_store_case(seed), CFG) for seed in range(12)]
    for seed in range(12):                   # (and stopped by the budget)
        AieModel().run(*_store_case(seed), CFG, Budget(max_instructions=max(1, runs[seed].retired // 3)))
    assert deferred[0] > 30, deferred
    # landed by an overlapping access, a DMA transfer's completion and the run's end
    assert {"access", "complete", "memories"} <= set(landed), landed
    assert sum(r.error is None for r in runs) >= 4


def test_bf16_max_min_and_rounding_match_the_shared_numerics():
    bf = bf16_bits_to_f32
    every = np.arange(65536, dtype=np.uint16)
    for other in (0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC1, 0x0001, 0x8001, 0x3F80, 0xC2F7):
        b = np.full(65536, other, np.uint16)
        assert np.array_equal(nx.bf16_max(every, b), f32_to_bf16_bits(fmax(bf(every), bf(b))))
        assert np.array_equal(nx.bf16_min(b, every), f32_to_bf16_bits(fmin(bf(b), bf(every))))
    u = np.random.default_rng(1).integers(0, 2**32, 1 << 20, dtype=np.uint64).astype(np.uint32)
    u[:8] = [0x7F7FFFFF, 0x7F800000, 0xFF800000, 0x00008000, 0x00018000, 0x80000000, 0x3F80FFFF, 0]
    for f in (u.view(np.float32), u[:32].view(np.float32), u[8:40].view(np.float32)):
        assert np.array_equal(nx.to_bf16_bits(f), f32_to_bf16_bits(f))


def _bf16_specials(rng, shape) -> np.ndarray:
    """bf16 bit patterns: normal values, and zeros of both signs, infinities, NaNs
    (payloads and signs), subnormals and the largest finite values sprinkled in."""
    bits = f32_to_bf16_bits(rng.normal(size=shape).astype(np.float32) * 2.0 ** rng.integers(-20, 20, shape))
    special = np.array([0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC1, 0x7F81, 0x0001, 0x8001,
                        0x007F, 0x7F7F, 0xFF7F], np.uint16)
    pick = rng.random(shape) < 0.05
    bits[pick] = rng.choice(special, int(pick.sum()))
    return bits


def test_tile_products_by_gather_match_the_specification():
    # mmul_bf16_bits (the flush's tile products) against mmul_bf16, the manual's order
    rng = np.random.default_rng(3)
    for n in (1, 2, 3, 4, 8, 9, 31, 32, 64, 65, 200, 256):
        a, y = _bf16_specials(rng, (n, 32)), _bf16_specials(rng, (n, 64))
        want = nx.mmul_bf16(bf16_bits_to_f32(a).reshape(-1, 4, 8), bf16_bits_to_f32(y).reshape(-1, 8, 8))
        got = nx.mmul_bf16_bits(a, y)
        assert got.dtype == np.float32 and got.shape == (n, 32)
        assert np.array_equal(got.view(np.uint32), want.reshape(-1, 32).view(np.uint32)), n
        assert np.array_equal(got.view(np.uint32), vector.mac_term_values(MAC_MATRIX, a, y).view(np.uint32))


def test_in_place_accumulation_matches_accumulate_f32():
    rng = np.random.default_rng(4)
    for n in (1, 2, 4, 8, 33):
        acc = bf16_bits_to_f32(_bf16_specials(rng, 32))
        terms = bf16_bits_to_f32(_bf16_specials(rng, (n, 32))) * np.float32(1.5)
        want = nx.accumulate_f32(acc, terms)
        assert np.array_equal(nx.accumulate_f32_in(acc, terms.copy()).view(np.uint32), want.view(np.uint32))


@pytest.mark.slow
@pytest.mark.parametrize("task", ["gqa", "flash_attention", "decoder_block_llama", "decoder_block_t5", "conv_block"])
def test_level_2_3_baselines_run_as_stepping_does(task):
    # the straight-line runs these baselines spend their time in (an unrolled online-
    # softmax block) take the inline statements, the batched flushes and deferred stores;
    # the Level-3 blocks' contractions take the gathered fast-forwards (fastloop.Plan.
    # gather) between DMA transfers moved as strided views
    from kernelcraft.tasks import get_task
    from kernelcraft.workbench.accel import get_accel
    from kernelcraft.workbench.layout import build_image
    a, t = get_accel("aie"), get_task(task)
    hw = a.default_config()
    program = a.assemble(a.baseline(task, "C1", hw), source_name="baseline", config=hw)
    img = build_image(a.layout(t, "C1", hw), t.generate("C1", 5))
    fast = a.backend().run(program, img, hw, Budget(max_instructions=50_000_000))
    assert fast.error is None, str(fast.error)
    assert same(fast, a.backend().run(program, img, hw, Budget(max_instructions=50_000_000, fast=False))) == ""


def _special_registers(rng, st) -> None:
    """Vector registers of bf16 patterns with specials, accumulators of fp32 values
    (bf16 products and their sums, specials, values that round at ties to bf16)."""
    st.x16[:] = _bf16_specials(rng, st.x16.shape)
    f = (rng.normal(size=st.accf.shape) * 2.0 ** rng.integers(-30, 30, st.accf.shape)).astype(np.float32)
    u = f.view(np.uint32)
    pick = rng.random(u.shape)
    u[pick < 0.05] = rng.choice(np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001,
                                          0x7F800001, 0x00000001, 0x7F7FFFFF, 0x3F808000, 0x3F818000,
                                          0x7F7F8000, 0x00008000], np.uint32), int((pick < 0.05).sum()))
    st.accf[:] = f


@pytest.mark.skipif(lanes.module() is None, reason="no C compiler: the C lane loops are not built")
def test_c_lane_loops_match_the_reference_semantics():
    # each C loop against the semantics function stepping calls (no deferral), on the
    # same registers: every result bit, and the same registers left alone
    from kernelcraft.isa.aie.model import get_spec
    from kernelcraft.simulators.aie.inline import Writer
    spec, rng = get_spec(), np.random.default_rng(7)
    ref, st = AieState(CFG, spec), AieState(CFG, spec)
    ref.defer_macs = False
    ns = Writer(st, lanes.module()).namespace()
    XB, AB = ns["XB"], ns["AB"]
    ops = [(vector.vmmac_bf16, lambda d, a, b: ns["C_MMAC"](XB, AB, d, a, b), (8, 16, 8)),
           (vector.vmac_bf16, lambda d, a, b: ns["C_MAC"](XB, AB, d, a, b, 0), (8, 16, 16)),
           (vector.vmsc_bf16, lambda d, a, b: ns["C_MAC"](XB, AB, d, a, b, 1), (8, 16, 16)),
           (vector.vsrs_bf16, lambda d, a: ns["C_SRS"](XB, AB, d, a), (16, 8)),
           (vector.vups_bf16, lambda d, a: ns["C_UPS"](XB, AB, d, a), (8, 16)),
           (vector.vmax_bf16, lambda d, a, b: ns["C_MAXMIN"](XB, d, a, b, 0), (16, 16, 16)),
           (vector.vmin_bf16, lambda d, a, b: ns["C_MAXMIN"](XB, d, a, b, 1), (16, 16, 16)),
           (vector.aadd_f32, lambda d, a, b: ns["C_ARITH"](AB, 0, d, a, b), (8, 8, 8)),
           (vector.asub_f32, lambda d, a, b: ns["C_ARITH"](AB, 1, d, a, b), (8, 8, 8)),
           (vector.amul_f32, lambda d, a, b: ns["C_ARITH"](AB, 2, d, a, b), (8, 8, 8))]
    for trial in range(300):
        _special_registers(rng, st)
        for fn, c, counts in ops:
            ref.x[:], ref.acc[:] = st.x, st.acc
            args = [int(rng.integers(0, n)) for n in counts]
            if trial % 7 == 0:
                args[1:] = [args[0] % n for n in counts[1:]]       # the destination an operand
            assert c(*args) is True
            fn(ref, *args)
            assert np.array_equal(ref.x, st.x) and np.array_equal(ref.acc, st.acc), (fn.__name__, args)
    # out-of-range register numbers: False, nothing written (the reference then says why)
    before = st.acc.copy(), st.x.copy()
    assert ns["C_MMAC"](XB, AB, 8, 0, 0) is False and ns["C_SRS"](XB, AB, 16, 0) is False
    assert ns["C_ARITH"](AB, 3, 0, 0, 0) is False and ns["C_MAXMIN"](XB, 0, -1, 0, 0) is False
    assert np.array_equal(before[0], st.acc) and np.array_equal(before[1], st.x)


@pytest.mark.skipif(lanes.module() is None, reason="no C compiler: the C lane loops are not built")
def test_c_exp_matches_pwl_exp():
    from kernelcraft.isa.aie.model import get_spec
    from kernelcraft.simulators.aie.inline import Writer
    spec, rng = get_spec(), np.random.default_rng(8)
    ref, st = AieState(CFG, spec), AieState(CFG, spec)
    ns = Writer(st, lanes.module()).namespace()
    c = lambda d, a: ns["C_EXP"](ns["AB"], d, a, ns["EXP_OFFB"], ns["EXP_SLOPEB"], ns["EXP_SEGS"], ns["LOG2E"])  # noqa: E731
    # t = x * LOG2E near both ends of [-126, 128) and past them, near integers (f rounds
    # up to 1), zeros, subnormal inputs, infinities and NaNs
    edges = np.array([-87.33, -87.3365, 88.72, 88.7228, -0.0, 0.0, 1e-30, -1e-30, 1e-45, -1e-8,
                      -0.6931472, 0.6931472, -2.0794415, 5.0, -88.0, 89.0, -1e4, np.inf, -np.inf,
                      np.nan], np.float32)
    for trial in range(400):
        x = (rng.uniform(-87, 88, 32) * (10.0 ** -rng.integers(0, 6, 32))).astype(np.float32)
        pick = rng.random(32) < (0.2 if trial % 3 else 0.02)
        x[pick] = rng.choice(edges, int(pick.sum()))
        u = x.view(np.uint32)
        near = rng.random(32) < 0.1                          # neighbouring patterns
        u[near] = u[near].astype(np.int64) + rng.integers(-2, 3, int(near.sum()))
        st.accf[1] = x
        ref.acc[:] = st.acc
        assert c(2, 1) is True
        vector.vpwl_exp(ref, 2, 1)
        assert np.array_equal(ref.acc, st.acc), x


@pytest.mark.skipif(lanes.module() is None, reason="no C compiler: the C lane loops are not built")
def test_c_loop_multiply_accumulates_match_the_terms_and_sums_of_numpy():
    # lanes.c's mac_rows (fastloop.run's single-kind bodies) against mac_term_values and
    # accumulate_f32_rows_in, the numpy path, on special values
    rng, c = np.random.default_rng(9), lanes.module()
    at = lambda v: v.__array_interface__["data"][0]          # noqa: E731
    for kind, width in ((0, 32), (1, 32), (MAC_MATRIX, 64)):
        for g, n in ((1, 1), (3, 5), (4, 64), (2, 200)):
            a, b = _bf16_specials(rng, (g, n, 32)), _bf16_specials(rng, (g, n, width))
            accs = bf16_bits_to_f32(_bf16_specials(rng, (g, 32))) * np.float32(1.5)
            terms = vector.mac_term_values(kind, a.reshape(-1, 32), b.reshape(-1, width))
            want = nx.accumulate_f32_rows_in(accs.copy(), terms.reshape(g, n, 32))
            got = accs.copy()
            assert c.mac_rows(at(a), at(b), at(got), g, n, kind) is True
            assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), (kind, g, n)
