"""Shared template for attention (scaled_dot_product, flash_attention, mha, gqa, mqa):
blocked online softmax, as flash attention computes it, on transposed tiles.

Per query head h (key/value head g = h // (Hq / Hkv), read in place: heads of a group
share K and V, nothing is copied), queries go in groups of 32 (four blocks of 8) and keys
in blocks of 32. For each key block the DMA brings K as 4x8 tiles and V transposed
(V^T tiles of 4 features x 8 keys), once for the four query blocks of the group. For a
query block the scores are computed transposed, S^T = K Q^T (32 keys x 8 queries in
eight accumulators, VMMAC.BF16 over D), so every per-query statistic lives in the
lanes of a query column and is the same in the four rows of a tile:
  - scores rounded to bf16; causal blocks keep key <= query with VMIN against a mask;
  - the block maximum by a VMAX tree and two VALIGN rotations, the running maximum M
    (bf16) updated, alpha = exp(scale (M_old - M_new)) in fp32;
  - P^T = bf16(exp(scale (s - M_new))), which is directly the B operand (8 keys x 8
    queries) of O^T += V^T P^T; the running sum L = L alpha + sum P (fp32, by VMAC with
    ones);
  - O^T (features x queries, fp32) lives in data memory between key blocks: loaded,
    scaled by alpha, accumulated, stored.
At the end of a query group, L is summed over its four key rows (rotations through
data memory), O^T scaled by 1/L, rounded and written back transposed by the DMA.
Causal groups visit their diagonal key block first (masked), then the blocks before it.
Tunable: `k_banks`, the K buffer in one bank or split over two (fewer bank conflicts).
"""
from __future__ import annotations

from contextlib import nullcontext as _unrolled

from .asm import Asm
from .template import Ctx, Template, dm_problem

BANK = 8192
HEAD_TAB, FOLD, CVEC, KEEP, DIAG, OUT_BUF = 256, 512, 896, 1024, 2048, 4096
QT_BUF, K_BUF, STATE = 8192, 16384, 24576
VT_BUF, K_BUF2 = 36864, 47104            # V^T group g at VT_BUF + g * BANK; K's second half
NEG_BF16, INF_BF16, NEG_INF_BIT = 0xFF7F, 0x7F80, 0x8000
QUERIES, KEYS, SUBS = 8, 32, 4           # query block, key block, query blocks per group


BIAS_BYTES = 512                         # a query block's bias^T tiles (eight of 4 keys x 8 queries)
BIAS_CURSOR = 192                        # data memory word: the bias row of the current group


def _state_bytes(d: int, bias: bool) -> int:
    """One query block's state: [bias^T tiles], M (64 bytes, padded to 128), L (128),
    O^T (D/4 tiles)."""
    return (BIAS_BYTES if bias else 0) + 256 + (d // 4) * 128


def _check(ctx: Ctx, p: dict) -> str | None:
    d = ctx.dims
    s, dh = d["S"], d["D"]
    if s % KEYS or dh % 8 or not 8 <= dh <= 64:
        return f"needs S % {KEYS} == 0 and D a multiple of 8 up to 64 (got S={s}, D={dh})"
    if d["Hq"] % d["Hkv"]:
        return "needs Hq a multiple of Hkv"
    if p["k_banks"] not in (1, 2):
        return "k_banks must be 1 or 2"
    return dm_problem(ctx)


def _masks(asm: Asm) -> None:
    """Keep masks (+inf: min leaves a score alone) and the diagonal masks of the four
    query blocks of a group: block o, key strip s, lane 8m + n (key 4s + m, query
    8o + n) is -inf when 4s + m > 8o + n, i.e. when m - n > 8o - 4s."""
    asm.comment("causal masks")
    asm.op(f"MOVI r1, {INF_BF16}")
    asm.op("VBCST.16 x15, r1")
    asm.op(f"MOVPI p0, {KEEP}")
    with asm.loop(8):
        asm.op("VST x15, [p0], 64")
    asm.op(f"MOVPI p0, {CVEC}", "c = m - n per lane (int16)")
    for j in range(16):
        m, n = (2 * j) // 8, (2 * j) % 8
        lo, hi = (m - n) & 0xFFFF, (m - n - 1) & 0xFFFF
        asm.li("r1", lo | (hi << 16))
        asm.op("ST r1, [p0], 4")
    asm.op(f"MOVPI p0, {CVEC}")
    asm.op("VLD x0, [p0]")
    asm.op("MOVI r1, 1")
    asm.op("VBCST.16 x1, r1")
    asm.op("VBCST.16 x2, r0")
    asm.op(f"MOVI r1, {NEG_INF_BIT}")
    asm.op("VBCST.16 x3, r1")
    asm.op(f"MOVPI p0, {DIAG}")
    asm.op("MOVI r2, 0", "threshold of block o, strip 0: 8o")
    with asm.loop(SUBS, "query blocks of a group"):
        asm.op("ADD r1, r2, r0")
        with asm.loop(8, "key strips"):
            asm.op("VBCST.16 x4, r1")
            asm.op("VSUB.I16 x5, x0, x4")
            asm.op("VMIN.I16 x5, x5, x1")
            asm.op("VMAX.I16 x5, x5, x2", "1 where masked, else 0")
            asm.op("VSUB.I16 x5, x2, x5")
            asm.op("VAND x5, x5, x3")
            asm.op("VOR x5, x5, x15", "-inf where masked, else +inf")
            asm.op("VST x5, [p0], 64")
            asm.op("ADDI r1, r1, -4")
        asm.op("ADDI r2, r2, 8")


def _scores(asm: Asm, dh: int, k_banks: int) -> None:
    """S^T of one query block: eight accumulators (key strips) over D/8 k-tiles; A = K
    tiles (p0 walks them), B = Q^T tiles in y6 (p1)."""
    for t in range(8):
        asm.op(f"ABCST acc{t}, r0")
    asm.op(f"MOVPI p0, {K_BUF}")
    if k_banks == 2:
        asm.op(f"MOVPI p4, {K_BUF2}")
    hw_loop = asm.depth < asm.hw.LOOP_DEPTH            # a hardware loop when it nests
    with (asm.loop(dh // 8, "k-tiles") if hw_loop else _unrolled()):
        for _ in range(1 if hw_loop else dh // 8):
            _k_tile(asm, k_banks)


def _k_tile(asm: Asm, k_banks: int) -> None:
    """One k-tile: the Q^T tile (y6) and eight K tiles, each multiplied once loaded."""
    asm.op("VLD x12, [p1], 64")
    asm.op("VLD x13, [p1], 64")
    for s in range(8):
        ptr = "p4" if k_banks == 2 and s >= 4 else "p0"
        asm.op(f"VLD x{s}, [{ptr}], 64")
        if s >= 1:
            asm.op(f"VMMAC.BF16 acc{s - 1}, x{s - 1}, y6")
    asm.op("VMMAC.BF16 acc7, x7, y6")


def _block(asm: Asm, dh: int, causal: bool, scaled: bool, bias: bool, k_banks: int) -> None:
    """One query block against the key block in data memory (p3 at its state)."""
    _scores(asm, dh, k_banks)
    if bias:
        for s in range(8):
            asm.op("VLD x8, [p3], 64")
            asm.op(f"VMAC.BF16 acc{s}, x8, x14", "+ bias (exact product with one)")
    for s in range(8):
        asm.op(f"VSRS.BF16 x{s}, acc{s}", "scores (bf16)")
    if causal:
        for s in range(8):
            asm.op("VLD x8, [p2], 64")
            asm.op(f"VMIN.BF16 x{s}, x{s}, x8")
        asm.op("PADD p2, r8", "keep masks: back to their start")
    for a, b, c in (("x8", "x0", "x1"), ("x9", "x2", "x3"), ("x10", "x4", "x5"), ("x11", "x6", "x7"),
                    ("x8", "x8", "x9"), ("x10", "x10", "x11"), ("x8", "x8", "x10")):
        asm.op(f"VMAX.BF16 {a}, {b}, {c}")
    for shift in (16, 32):                   # the four key rows of the tile
        asm.op(f"VALIGN x9, x8, x8, {shift}")
        asm.op("VMAX.BF16 x8, x8, x9")
    asm.op("VLD x9, [p3]", "M_old")
    asm.op("VMAX.BF16 x10, x9, x8", "M_new")
    asm.op("VST x10, [p3], 128")
    asm.op("ABCST acc7, r15", "scale")
    asm.op("VUPS.BF16 acc0, x9")
    asm.op("VUPS.BF16 acc1, x10")
    asm.op("ASUB.F32 acc0, acc0, acc1")
    if scaled:
        asm.op("AMUL.F32 acc0, acc0, acc7")
    asm.op("VPWL.EXP acc0, acc0", "alpha")
    for s in range(8):
        t = f"acc{2 + s % 4}"
        asm.op(f"VUPS.BF16 {t}, x{s}")
        asm.op(f"ASUB.F32 {t}, {t}, acc1")
        if scaled:
            asm.op(f"AMUL.F32 {t}, {t}, acc7")
        asm.op(f"VPWL.EXP {t}, {t}")
        asm.op(f"VSRS.BF16 x{s}, {t}", "P^T (bf16)")
    asm.op("ALD acc6, [p3]", "L")
    asm.op("AMUL.F32 acc6, acc6, acc0")
    for s in range(8):
        asm.op(f"VMAC.BF16 acc6, x{s}, x14")
    asm.op("AST acc6, [p3], 128")
    for g in range(4):
        asm.op(f"MOVPI p{4 + g}, {VT_BUF + g * BANK}")
    for r in range(dh // 4):                  # O^T strip r: features 4r .. 4r + 3
        o = f"acc{2 + r % 4}"
        asm.op(f"ALD {o}, [p3]")
        asm.op(f"AMUL.F32 {o}, {o}, acc0")
        for g in range(4):
            asm.op(f"VLD x{8 + g}, [p{4 + g}], 64")
            asm.op(f"VMMAC.BF16 {o}, x{8 + g}, y{g}")
        asm.op(f"AST {o}, [p3], 128")


def attention_pass(ctx: Ctx, asm: Asm, q: int, k: int, v: int, o: int, s: int, hq: int, hkv: int,
                   dh: int, causal: bool, scale: str | None, bias: int | None, k_banks: int = 1) -> None:
    """o = attention(q, k, v) for q, o [S, Hq*D], k, v [S, Hkv*D] at those addresses,
    scaled by the constant `scale` (None: 1), plus bias [Hq, S, S] at `bias` (or None).
    Descriptors have address 0 (every address a run-time offset), and Q^T, V^T and O^T
    share one descriptor and lock when Hq == Hkv."""
    rsq, rsk, group = hq * dh, hkv * dh, hq // hkv
    sb, bb = _state_bytes(dh, bias is not None), (BIAS_BYTES if bias is not None else 0)
    assert STATE + SUBS * sb <= VT_BUF, "query-block states overlap the V^T buffer"
    # data-memory addresses are run-time offsets too (loc 0), so that Q^T, V^T and O^T
    # share one descriptor when their rows are as long
    qt = asm.bd("QT", ext=0, loc=0, n0=1, n1=dh, s1=1, ls1=16, n2=QUERIES, s2=rsq, ls2=2, rel="l2")
    if k_banks == 2:
        kt = asm.bd("KT", ext=0, loc=K_BUF, n0=8, n1=KEYS // 2, s1=rsk, ls1=16, n2=dh // 8, s2=8,
                    ls2=256, rel="l0")
    else:
        kt = asm.bd("KT", ext=0, loc=K_BUF, n0=8, n1=KEYS, s1=rsk, ls1=16, n2=dh // 8, s2=8, ls2=512,
                    rel="l0")
    vt = asm.bd("VT", ext=0, loc=0, n0=1, n1=dh, s1=1, ls1=16, n2=8, s2=rsk, ls2=2, rel="l2")
    ot = asm.bd("OT", ext=0, loc=0, n0=1, n1=dh, s1=1, ls1=16, n2=QUERIES, s2=rsq, ls2=2, rel="l2")
    if bias is not None:
        bt = asm.bd("BT", ext=0, loc=STATE, n0=1, n1=KEYS, s1=1, ls1=16, n2=QUERIES, s2=s, ls2=2,
                    rel="l0")
        asm.li("r1", bias)
        asm.op(f"MOVPI p0, {BIAS_CURSOR}")
        asm.op("ST r1, [p0]", "bias row of the first group")
    if causal:
        _masks(asm)
    asm.comment("key column of every query head")
    asm.op(f"MOVPI p0, {HEAD_TAB}")
    for h in range(hq):
        asm.li("r1", k + (h // group) * dh)
        asm.op("ST r1, [p0], 4")
    if scale:
        asm.op(f"MOVPI p0, {ctx.const(scale)}")
        asm.op("LD r15, [p0]", "scale (fp32)")
    asm.op(f"MOVI r1, {0x3F80}")
    asm.op("VBCST.16 x14, r1", "ones")
    asm.li("r1", q, "query column of the head")
    asm.li("r12", o - q, "output - query")
    asm.op(f"MOVI r14, {HEAD_TAB}")
    with asm.loop(hq, "query heads"):
        asm.op("MOVP p0, r14")
        asm.op("LD r2, [p0]", "key column of the head")
        asm.op("ADDI r14, r14, 4")
        asm.op("MOVI r3, 0", "query row offset of the group")
        asm.op(f"MOVI r4, {1 if causal else s // KEYS}", "key blocks of the group")
        with asm.loop(s // KEYS, "groups of 32 queries"):
            asm.op("ADD r9, r3, r1")
            asm.li("r11", QT_BUF)
            asm.li("r10", QUERIES * rsq)
            for j in range(SUBS):
                asm.op(f"DMAIN {j % 2}, {qt}, r9, r11")
                if j < SUBS - 1:
                    asm.op("ADD r9, r9, r10")
                    asm.op(f"ADDI r11, r11, {16 * dh}")
            asm.op(f"MOVPI p3, {STATE}", "state: M = lowest, L = 0, O = 0")
            asm.op(f"MOVI r13, {NEG_BF16}")
            asm.op("VBCST.16 x0, r13")
            asm.op("ABCST acc0, r0")
            with asm.loop(SUBS):
                if bb:
                    asm.op(f"PADDI p3, p3, {bb}")
                asm.op("VST x0, [p3], 128")
                with asm.loop((sb - bb) // 128 - 1):
                    asm.op("AST acc0, [p3], 128")
            # r5: first key of the current block, r6: of the next (causal: the diagonal
            # block first, then 0, 32, ...)
            if causal:
                asm.op("ADDI r5, r4, -1")
                asm.op(f"SLLI r5, r5, {KEYS.bit_length() - 1}")
                asm.op("MOVI r6, 0")
                asm.op(f"MOVI r7, {DIAG}")
                asm.op("MOVI r8, 0")
            else:
                asm.op("MOVI r5, 0")
            asm.op("ACQ l2, 4", "Q^T of the group landed")
            with asm.loop_reg("r4", "key blocks"):
                asm.li("r10", rsk)
                asm.op("MUL r9, r5, r10")
                asm.op("ADD r9, r9, r2", "K rows of the block")
                asm.op(f"DMAIN 0, {kt}, r9, r0")
                if k_banks == 2:
                    asm.li("r10", (KEYS // 2) * rsk)
                    asm.op("ADD r10, r9, r10")
                    asm.li("r11", K_BUF2 - K_BUF)
                    asm.op(f"DMAIN 0, {kt}, r10, r11")
                asm.li("r10", v - k)
                asm.op("ADD r9, r9, r10", "V rows of the block")
                asm.li("r10", 8 * rsk)
                for g in range(4):
                    asm.li("r11", VT_BUF + g * BANK)
                    asm.op(f"DMAIN {1 if g % 2 == 0 else 0}, {vt}, r9, r11")
                    if g < 3:
                        asm.op("ADD r9, r9, r10")
                if bias is not None:
                    asm.op(f"MOVPI p0, {BIAS_CURSOR}")
                    asm.op("LD r9, [p0]")
                    asm.op("ADD r9, r9, r5", "bias of the group's first query block")
                    asm.op("MOVI r11, 0")
                    asm.li("r10", QUERIES * s)
                    for j in range(SUBS):
                        asm.op(f"DMAIN {j % 2}, {bt}, r9, r11")
                        if j < SUBS - 1:
                            asm.op("ADD r9, r9, r10")
                            asm.li("r11", (j + 1) * sb)
                asm.op(f"ACQ l0, {k_banks + (SUBS if bias is not None else 0)}", "K (and bias) landed")
                asm.op("ACQ l2, 4", "V^T landed")
                asm.op(f"MOVPI p1, {QT_BUF}")
                asm.op(f"MOVPI p3, {STATE}")
                if causal:
                    asm.op("MOVP p2, r7")
                with asm.loop(SUBS, "query blocks of the group"):
                    _block(asm, dh, causal, scale is not None, bias is not None, k_banks)
                if causal:
                    asm.op("ADD r5, r6, r0", "next: block r6")
                    asm.op(f"ADDI r6, r6, {KEYS}")
                    asm.op(f"MOVI r7, {KEEP}")
                    asm.op("MOVI r8, -512")
                else:
                    asm.op(f"ADDI r5, r5, {KEYS}")
            asm.comment("normalise and write the group back")
            asm.op(f"MOVPI p3, {STATE + bb + 128}")
            asm.op(f"MOVPI p1, {OUT_BUF}")
            asm.op(f"MOVPI p2, {FOLD}")
            asm.op("ADD r9, r3, r1")
            asm.op("ADD r9, r9, r12", "output rows of the group")
            asm.li("r11", OUT_BUF)
            asm.li("r10", QUERIES * rsq)
            with asm.loop(SUBS, "query blocks"):
                asm.op("ALD acc6, [p3]", "L per key row")
                asm.op("AST acc6, [p2], 128")
                asm.op("AST acc6, [p2], -128")
                for i, shift in enumerate((32, 64, 96)):
                    asm.op(f"PADDI p5, p2, {shift}")
                    asm.op(f"ALD acc{1 + i}, [p5]")
                asm.op("AADD.F32 acc1, acc1, acc2")
                asm.op("AADD.F32 acc6, acc6, acc3")
                asm.op("AADD.F32 acc6, acc6, acc1", "L in every lane of its query")
                asm.op("VPWL.RCP acc6, acc6")
                asm.op("PADDI p3, p3, 128")
                for r in range(dh // 4):
                    t = f"acc{2 + r % 4}"
                    asm.op(f"ALD {t}, [p3], 128")
                    asm.op(f"AMUL.F32 {t}, {t}, acc6")
                    asm.op(f"VSRS.BF16 x{r % 4}, {t}")
                    asm.op(f"VST x{r % 4}, [p1], 64")
                asm.op(f"DMAOUT 0, {ot}, r9, r11")
                asm.op("ADD r9, r9, r10")
                asm.op(f"ADDI r11, r11, {16 * dh}")
                asm.op(f"PADDI p3, p3, {128 + bb}", "skip the next block's bias and M")
            asm.op(f"ACQ l2, {SUBS}", "output read by the DMA")
            if bias is not None:
                asm.op(f"MOVPI p0, {BIAS_CURSOR}")
                asm.op("LD r9, [p0]")
                asm.li("r10", KEYS * s)
                asm.op("ADD r9, r9, r10")
                asm.op("ST r9, [p0]", "bias row of the next group")
            asm.li("r10", KEYS * rsq)
            asm.op("ADD r3, r3, r10")
            if causal:
                asm.op("ADDI r4, r4, 1")
        asm.op(f"ADDI r1, r1, {dh}")


def attention_template(task: str) -> Template:
    def generate(ctx: Ctx, asm: Asm, p: dict) -> None:
        d = ctx.dims
        attention_pass(ctx, asm, *(ctx.addr(n) for n in ("q", "k", "v", "o")), d["S"], d["Hq"], d["Hkv"],
                       d["D"], ctx.task.causal, "scale", None, p["k_banks"])

    return Template(task=task, generate=generate, params={"k_banks": 1}, space={"k_banks": (1, 2)},
                    doc=__doc__, check=_check)
