"""Attention (scaled_dot_product, flash_attention, mha, gqa, mqa; and inside the decoder
blocks) as one fused kernel: blocked online softmax (FlashAttention's algorithm).

Each key/value head's keys are packed once, transposed and pre-scaled (kt [D, S]), and
shared by every query head of its group (gqa, mqa read the same kt and v; nothing is
copied per query head). Per query head, MR query rows at a time; per block of BK keys
(only the keys a causal row can see):
  scores [MR, BK] = q_block @ kt[:, block]           gemm's register blocking, vfmacc.vf
  per row: m' = max(m, row max), scores -= m'; alpha = exp(m - m')
  exp over the whole block (one strip-mined pass), masked keys (causal) set to 0
  per row: l = l * alpha + sum(p)
  acc [MR, D] = alpha * acc + p @ v[block]            the same register blocking
and finally o = acc / l. Scores, probabilities and acc live in scratch as fp32 (more
precise than the bf16 intermediates the tolerance allows), row statistics in fp32."""
from __future__ import annotations

from .elementwise import EXP_F
from .matmul import F_A, transpose
from .template import Template


def _groups(lmul, count):
    return [f"v{8 + i * lmul}" for i in range(count)]


def attention_buffers(ctx, p, S, Hkv, D, **more):
    mr, bk = p["mr"], p["bk"]
    return ctx.scratch(kt=Hkv * D * S, qb=mr * D, sc=mr * bk, acc=mr * D, ml=3 * mr, **more)


def _copy_rows(asm, lmul, rows, n, src, src_pitch, dst, dst_pitch, divide_by=None):
    """rows rows of n elements from src to dst (each a register or an address; pitches
    in bytes), each row divided by its l when divide_by (the address of l[rows]) is given."""
    for reg, where in (("a6", src), ("a3", dst)):
        asm(f"mv {reg}, {where}") if isinstance(where, str) else asm.li(reg, where)
    if divide_by is not None:
        asm.li("a5", divide_by)
    with asm.loop("a2", rows, "rows"):
        if divide_by is not None:
            asm("flw fa3, 0(a5)")
            asm("fdiv.s fa3, ft8, fa3", "1 / l")
        asm("mv t2, a6")
        asm("mv t3, a3")
        asm.li("t4", n)
        with asm.strip("t4", "t0", lmul):
            asm("vle32.v v8, (t2)")
            if divide_by is not None:
                asm("vfmul.vf v8, v8, fa3")
            asm("vse32.v v8, (t3)")
            asm("slli t1, t0, 2")
            asm("add t2, t2, t1")
            asm("add t3, t3, t1")
        asm.addi("a6", "a6", src_pitch)
        asm.addi("a3", "a3", dst_pitch)
        if divide_by is not None:
            asm("addi a5, a5, 4")


def _block_product(asm, lmul, mr, rows_addr, row_pitch, steps, count, b_ptr, b_pitch, out_addr, out_pitch,
                   accumulate, rescale=None):
    """out[i, strip] (+)= sum_k rows[i, k] * B[k, strip] for i < mr, the strip running
    over `count` columns (a register), k over `steps` (an int or a register); B's row k
    at b_ptr + k * b_pitch (b_ptr: register, b_pitch: bytes); rows and out in scratch.
    rescale: address of mr factors the old out rows are multiplied by first (alpha)."""
    accs = _groups(lmul, mr)
    vb = f"v{8 + mr * lmul}" if 8 + (mr + 1) * lmul <= 32 else "v0"
    asm(f"mv t2, {b_ptr}")
    asm.li("a6", out_addr)
    asm.li("t5", b_pitch)
    asm(f"mv a5, {count}")
    with asm.strip("a5", "t0", lmul, comment="a strip of output columns"):
        if rescale is not None:
            asm.li("t1", rescale)
            for i in range(mr):
                asm(f"flw {F_A[i]}, {4 * i}(t1)")
        for i, acc in enumerate(accs):
            if accumulate:
                asm.addi("t1", "a6", i * out_pitch)
                asm(f"vle32.v {acc}, (t1)")
                if rescale is not None:
                    asm(f"vfmul.vf {acc}, {acc}, {F_A[i]}", "acc *= alpha")
            else:
                asm(f"vmv.v.i {acc}, 0")
        asm.li("a7", rows_addr)
        asm("mv t3, t2")
        with asm.loop("t4", steps, "k"):
            asm(f"vle32.v {vb}, (t3)")
            for i in range(mr):
                asm(f"flw {F_A[i]}, {i * row_pitch}(a7)")
            for i in range(mr):
                asm(f"vfmacc.vf {accs[i]}, {F_A[i]}, {vb}")
            asm("addi a7, a7, 4")
            asm("add t3, t3, t5")
        for i, acc in enumerate(accs):
            asm.addi("t1", "a6", i * out_pitch)
            asm(f"vse32.v {acc}, (t1)")
        asm("slli t1, t0, 2")
        asm("add t2, t2, t1")
        asm("add a6, a6, t1")


def _live_count(asm, causal, dst):
    """dst = keys of this block the row sees: nk (a1), or min(nk, a4) when causal."""
    asm(f"mv {dst}, a1")
    if causal:
        done = asm.label("live")
        asm(f"bge a4, a1, {done}")
        asm(f"mv {dst}, a4")
        asm.place(done)


def _reduce(asm, lmul, op, vacc, init, freg):
    asm(f"vsetvli t1, zero, e32, m{lmul}, ta, ma")
    asm(f"vfmv.s.f v1, {init}")
    asm(f"vfred{op}.vs v1, {vacc}, v1")
    asm(f"vfmv.f.s {freg}, v1")


def _softmax_block(asm, p, S, causal, buf, bias):
    """Online-softmax update of the scores block sc [mr, bk] (nk = a1 keys from j0 = a0;
    query rows from r = s7): bias added, maxima, exp, masked keys zeroed, sums; the
    factors alpha = exp(m - m') are left at ml + 8 mr for the p @ v product."""
    mr, bk, sl = p["mr"], p["bk"], p["slmul"]
    vx, vz, vt, vn = _groups(sl, 3) + ["v0" if 8 + 4 * sl > 32 else f"v{8 + 3 * sl}"]
    ve = vx                                   # the exp pass reads no vx: four groups fit LMUL = 8
    ml = buf["ml"]
    if causal:
        asm("sub a4, s7, a0")
        asm("addi a4, a4, 1", "row r sees keys j0 .. r")
    # A: per row, bias, max, m' and m - m', scores - m'
    asm.li("a3", buf["sc"])
    asm.li("a5", ml)
    if bias is not None:
        asm.li("t1", 4 * S)
        asm("mul a7, s7, t1")
        asm("add a7, a7, s4")
        asm("slli t1, a0, 2")
        asm("add a7, a7, t1", "bias[h, r, j0]")
    with asm.loop("a2", mr, "rows: maxima"):
        _live_count(asm, causal, "a6")
        asm(f"vsetvli t1, zero, e32, m{sl}, ta, ma")
        asm(f"vfmv.v.f {vz}, fs11", "running max per lane")
        asm("mv t2, a3")
        asm("mv t3, a7")
        asm("mv t4, a6")
        with asm.strip("t4", "t0", sl, "tu, mu"):
            asm(f"vle32.v {vx}, (t2)")
            if bias is not None:
                asm(f"vle32.v {vt}, (t3)")
                asm(f"vfadd.vv {vx}, {vx}, {vt}", "+ position bias")
                asm(f"vse32.v {vx}, (t2)")
            asm(f"vfmax.vv {vz}, {vz}, {vx}")
            asm("slli t1, t0, 2")
            asm("add t2, t2, t1")
            if bias is not None:
                asm("add t3, t3, t1")
        _reduce(asm, sl, "max", vz, "fs11", "fa0")
        asm("flw fa1, 0(a5)", "m")
        asm("fmax.s fa0, fa0, fa1", "m'")
        asm("fsw fa0, 0(a5)")
        asm("fsub.s fa1, fa1, fa0")
        asm(f"fsw fa1, {8 * mr}(a5)", "m - m'")
        asm("mv t2, a3")
        asm("mv t4, a6")
        with asm.strip("t4", "t0", sl):
            asm(f"vle32.v {vx}, (t2)")
            asm(f"vfsub.vf {vx}, {vx}, fa0")
            asm(f"vse32.v {vx}, (t2)")
            asm("slli t1, t0, 2")
            asm("add t2, t2, t1")
        asm.addi("a3", "a3", 4 * bk)
        asm("addi a5, a5, 4")
        if causal:
            asm("addi a4, a4, 1")
        if bias is not None:
            asm.addi("a7", "a7", 4 * S)
    # B: exp of the whole block, and alpha = exp(m - m') of every row
    asm.li("t6", 127)
    for addr, n in ((buf["sc"], mr * bk), (ml + 8 * mr, mr)):
        asm.li("t2", addr)
        asm.li("t4", n)
        with asm.strip("t4", "t0", sl):
            asm(f"vle32.v {vz}, (t2)")
            asm.vexp(ve, vz, vt, vn, EXP_F, "t6")
            asm(f"vse32.v {ve}, (t2)")
            asm("slli t1, t0, 2")
            asm("add t2, t2, t1")
    # C: per row, zero the masked keys, l = l * alpha + sum(p), acc *= alpha
    if causal:
        asm("sub a4, s7, a0")
        asm("addi a4, a4, 1")
    asm.li("a3", buf["sc"])
    asm.li("a5", ml)
    with asm.loop("a2", mr, "rows: sums"):
        _live_count(asm, causal, "a7")
        if causal:
            skip = asm.label("unmasked")
            asm("sub t4, a1, a7")
            asm(f"beqz t4, {skip}")
            asm("slli t2, a7, 2")
            asm("add t2, t2, a3")
            with asm.strip("t4", "t0", sl):
                asm(f"vmv.v.i {vx}, 0", "keys after the row's own position")
                asm(f"vse32.v {vx}, (t2)")
                asm("slli t1, t0, 2")
                asm("add t2, t2, t1")
            asm.place(skip)
        asm(f"vsetvli t1, zero, e32, m{sl}, ta, ma")
        asm(f"vmv.v.i {vz}, 0")
        asm("mv t2, a3")
        asm("mv t4, a7")
        with asm.strip("t4", "t0", sl, "tu, mu"):
            asm(f"vle32.v {vx}, (t2)")
            asm(f"vfadd.vv {vz}, {vz}, {vx}")
            asm("slli t1, t0, 2")
            asm("add t2, t2, t1")
        _reduce(asm, sl, "usum", vz, "ft9", "fa2")
        asm(f"flw fa4, {8 * mr}(a5)", "alpha")
        asm(f"flw fa3, {4 * mr}(a5)")
        asm("fmadd.s fa3, fa3, fa4, fa2", "l = l * alpha + sum(p)")
        asm(f"fsw fa3, {4 * mr}(a5)")
        asm.addi("a3", "a3", 4 * bk)
        asm("addi a5, a5, 4")
        if causal:
            asm("addi a4, a4, 1")


def attention_layer(asm, p, S, Hq, Hkv, D, causal, q, k, v, o, buf, consts, scale=True, bias=None):
    """o = attention(q, k, v) (addresses; [S, heads*D] row-major) with H = Hq query heads
    sharing Hkv key/value heads; scale: multiply scores by consts["scale"]; bias: address
    of [Hq, S, S] added to the scores (T5); buf from attention_buffers."""
    p = {**p, "bk": min(p["bk"], S)}          # a block never needs more keys than there are
    mr, bk, lmul = p["mr"], p["bk"], p["lmul"]
    group, qp, kvp = Hq // Hkv, 4 * Hq * D, 4 * Hkv * D
    single = bk >= S
    asm.exp_consts(EXP_F)
    asm.flw_addr("fs11", consts["neg_max"], comment="neg_max")
    asm.flw_addr("ft8", consts["one"], comment="one")
    asm("fmv.w.x ft9, zero")
    if scale:
        asm.flw_addr("ft10", consts["scale"], comment="scale")
    for g in range(Hkv):
        asm.comment(f"pack key head {g}: kt[{g}] = (scale k[:, head])^T, shared by its query heads")
        transpose(asm, k + 4 * g * D, S, D, buf["kt"] + 4 * g * D * S, pitch=Hkv * D,
                  scale="ft10" if scale else None)
    asm.li("s0", q, "q, this head's columns")
    asm.li("s1", o, "o, this head's columns")
    asm.li("s2", buf["kt"], "kt of the key/value head")
    asm.li("s3", v, "v, the key/value head's columns")
    if bias is not None:
        asm.li("s4", bias, "bias of this head")
    with asm.loop("s5", Hkv, "key/value heads"):
        with asm.loop("s6", group, "query heads sharing them"):
            asm.li("s7", 0, "r: first query row of the block")
            asm("mv s8, s0")
            asm("mv s9, s1")
            with asm.loop("s10", S // mr, f"blocks of {mr} query rows"):
                if causal:
                    asm(f"addi s11, s7, {mr}", "keys 0 .. r + mr - 1")
                else:
                    asm.li("s11", S)
                _copy_rows(asm, lmul, mr, D, "s8", qp, buf["qb"], 4 * D)
                asm.li("t2", buf["acc"])
                asm.li("t4", mr * D)
                with asm.strip("t4", "t0", lmul):
                    asm("vmv.v.i v8, 0", "acc = 0")
                    asm("vse32.v v8, (t2)")
                    asm("slli t1, t0, 2")
                    asm("add t2, t2, t1")
                asm.li("t1", buf["ml"])
                for i in range(mr):
                    asm(f"fsw fs11, {4 * i}(t1)", "m = lowest")
                    asm(f"fsw ft9, {4 * (mr + i)}(t1)", "l = 0")
                asm.li("a0", 0, "j0: first key of the block")
                top = asm.label("keys")
                asm.place(top)
                asm("sub a1, s11, a0")
                asm.li("t1", bk)
                short = asm.label("short")
                asm(f"blt a1, t1, {short}")
                asm("mv a1, t1", "nk = min(bk, keys left)")
                asm.place(short)
                asm("slli t2, a0, 2")
                asm("add t2, t2, s2", "kt[:, j0]")
                _block_product(asm, lmul, mr, buf["qb"], 4 * D, D, "a1", "t2", 4 * S, buf["sc"], 4 * bk,
                               accumulate=False)
                _softmax_block(asm, p, S, causal, buf, bias)
                asm.li("t1", kvp)
                asm("mul t2, a0, t1")
                asm("add t2, t2, s3", "v[j0]")
                asm.li("t1", D)
                _block_product(asm, lmul, mr, buf["sc"], 4 * bk, "a1", "t1", "t2", kvp, buf["acc"], 4 * D,
                               accumulate=True, rescale=None if single else buf["ml"] + 8 * mr)
                asm.addi("a0", "a0", bk)
                asm(f"blt a0, s11, {top}")
                _copy_rows(asm, lmul, mr, D, buf["acc"], 4 * D, "s9", qp, divide_by=buf["ml"] + 4 * mr)
                asm(f"addi s7, s7, {mr}")
                asm.addi("s8", "s8", mr * qp)
                asm.addi("s9", "s9", mr * qp)
            asm.addi("s0", "s0", 4 * D)
            asm.addi("s1", "s1", 4 * D)
            if bias is not None:
                asm.addi("s4", "s4", 4 * S * S)
        asm.addi("s2", "s2", 4 * D * S)
        asm.addi("s3", "s3", 4 * D)


def attention(ctx, asm, p):
    d = ctx.dims
    S, Hq, Hkv, D = d["S"], d["Hq"], d["Hkv"], d["D"]
    consts = {c.name: c.address for c in ctx.layout.constants}
    attention_layer(asm, p, S, Hq, Hkv, D, ctx.task.causal, ctx.addr("q"), ctx.addr("k"), ctx.addr("v"),
                    ctx.addr("o"), attention_buffers(ctx, p, S, Hkv, D), consts)


def check_attention(ctx, p, S=None, D=None):
    S = S or ctx.dims["S"]
    D = D or ctx.dims["D"]
    mr, bk, lmul, sl = p["mr"], p["bk"], p["lmul"], p["slmul"]
    if sl not in (1, 2, 4, 8):
        return f"slmul must be 1, 2, 4 or 8, got {sl}"
    if not 1 <= mr <= 8 or S % mr or bk % mr:
        return f"mr = {mr} must be 1..8 and divide S = {S} and bk = {bk}"
    if 8 + mr * lmul > 32:
        return f"mr = {mr} accumulators of LMUL = {lmul} do not fit v8..v31"
    if 4 * bk * (mr - 1) > 2047 or 4 * D * (mr - 1) > 2047:
        return f"bk = {bk} or D = {D} times mr = {mr} rows exceeds a load's 12-bit offset"
    return None


ATTENTION = dict(params={"mr": 4, "bk": 128, "lmul": 4, "slmul": 8},
                 space={"mr": [2, 4, 8], "bk": [32, 64, 128], "lmul": [2, 4, 8], "slmul": [4, 8]},
                 check=check_attention)
DOC = "fused blocked online-softmax attention: packed pre-scaled k^T per key/value head, MR query rows x BK keys"
TEMPLATES = [Template(name, attention, **ATTENTION, doc=DOC) for name in ("scaled_dot_product", "mha", "gqa", "mqa")]
# long sequences: smaller key blocks, so even C1 runs the online update over several blocks
def _check_flash(ctx, p):
    if p["bk"] >= ctx.dims["S"]:
        return f"bk = {p['bk']} keys is the whole sequence (S = {ctx.dims['S']}): flash attention works in blocks"
    return check_attention(ctx, p)


TEMPLATES.append(Template("flash_attention", attention, params={**ATTENTION["params"], "bk": 64},
                          space=ATTENTION["space"], check=_check_flash, doc=DOC))
