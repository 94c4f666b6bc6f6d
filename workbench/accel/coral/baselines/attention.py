"""Attention (scaled_dot_product, flash_attention, mha, gqa, mqa; and inside the decoder
blocks) as one fused kernel: blocked online softmax (FlashAttention's algorithm),
vectorised over query rows.

Per query head, q is packed once, transposed and pre-scaled (qt [D, S]); k and v are
read in place, so the query heads of a group (gqa, mqa) share their key/value head and
nothing is copied. Query rows go in blocks of R = VLMAX(qlmul) (a vector register group
holds one value per query row), keys in blocks of BK (only the keys a causal block can
see). Everything is computed transposed, key-major, so every per-row statistic is a
vector and no step works one row at a time:
  S^T [nk, R] = k[block] @ qt[:, rows]   MK keys per pass, vfmacc.vf of a key element
                                          times a row of qt; T5's position bias is the
                                          accumulators' start, causal blocks masked after
  m' = max(m, max over keys)             a halving tree of element-wise maxima
  P^T = exp(S^T - m'), alpha = exp(m - m')   one strip-mined pass over the block
  l = l * alpha + sum over keys of P^T   a halving tree of element-wise sums
  O^T [D, R] = alpha * O^T + v[block]^T @ P^T   MD features per pass
and finally o = (O^T / l)^T with strided stores. Every product loop, tree level and
element-wise pass has the shapes a vector unit streams (and the functional model runs
in batches). Scores, probabilities and O^T live in scratch as fp32, statistics in fp32."""
from __future__ import annotations

from .elementwise import EXP_F
from .matmul import F_A, transpose
from .template import Template

KEY_PTRS = ("a3", "a4", "a5", "a6", "t2", "t5")       # one pointer per key row when offsets do not fit


def rows_per_block(hw, qlmul: int) -> int:
    return hw.VLEN * qlmul // 32


def attention_buffers(ctx, p, S, D, **more):
    R, bk = rows_per_block(ctx.hw, p["qlmul"]), min(p["bk"], S)
    return ctx.scratch(qt=D * S, sc=bk * R, tmp=bk * R // 2 + R, ot=D * R, mask=R * R, ml=3 * R, **more)


def _log2(n: int) -> int:
    assert n & (n - 1) == 0, n
    return n.bit_length() - 1


def _causal_mask(asm, R, mask):
    """mask [R keys, R rows]: +inf where key a <= row b (vfmin keeps the score), lowest
    where the key comes after the row."""
    asm.li("t1", 0x7F800000)
    asm("fmv.w.x fa5, t1", "+inf")
    asm.li("a0", mask)
    asm.li("a1", 0, "a: key")
    with asm.loop("a2", R, "keys"):
        asm.li("a3", 0, "b: row")
        with asm.loop("a4", R, "rows"):
            later = asm.label("later")
            done = asm.label("stored")
            asm(f"blt a3, a1, {later}")
            asm("fsw fa5, 0(a0)")
            asm(f"j {done}")
            asm.place(later)
            asm("fsw fs11, 0(a0)")
            asm.place(done)
            asm("addi a0, a0, 4")
            asm("addi a3, a3, 1")
        asm("addi a1, a1, 1")


def _tree(asm, op, src, tmp, R):
    """tmp[0:R] = op-reduction over the s11 key rows of src [nk, R] (addresses): halve
    the rows while more than one is left (an odd last row folded into row 0); src is
    left alone."""
    lr = _log2(4 * R)
    asm.li("a3", src)
    asm("mv a2, s11", "rows left")
    top, even = asm.label("tree"), asm.label("even")
    asm.place(top)
    asm("srli a4, a2, 1", "h = rows // 2")
    asm(f"slli a5, a4, {lr}")
    asm("add a6, a3, a5", "second half")
    asm(f"slli t4, a4, {lr - 2}", "h * R elements")
    asm("mv t2, a3")
    asm.li("a1", tmp)
    with asm.strip("t4", "t0", 8):
        asm("vle32.v v8, (t2)")
        asm("vle32.v v16, (a6)")
        asm(f"vf{op}.vv v8, v8, v16")
        asm("vse32.v v8, (a1)")
        asm("slli t1, t0, 2")
        asm("add t2, t2, t1")
        asm("add a6, a6, t1")
        asm("add a1, a1, t1")
    asm("andi a5, a2, 1")
    asm(f"beqz a5, {even}")
    asm.li("a1", tmp)
    asm(f"slli a5, a2, {lr}")
    asm("add a5, a5, a3")
    asm.addi("a5", "a5", -4 * R, "t1")
    asm.li("t1", R)
    asm("vsetvli t0, t1, e32, m8, ta, ma")
    asm("vle32.v v8, (a1)")
    asm("vle32.v v16, (a5)", "the odd last row")
    asm(f"vf{op}.vv v8, v8, v16")
    asm("vse32.v v8, (a1)")
    asm.place(even)
    asm("mv a2, a4")
    asm.li("a3", tmp)
    asm.li("t1", 1)
    asm(f"bne a2, t1, {top}")


def _rows(asm, op, groups, base, pitch):
    """Load or store register groups from consecutive rows `pitch` bytes apart."""
    for i, g in enumerate(groups):
        if i:
            asm(f"addi t1, {base}, {pitch * i}")
        asm(f"{op} {g}, ({base if i == 0 else 't1'})")


def _product_keys(asm, p, R, D, kvp, buf, bias_pitch):
    """sc [nk, R] = scores of the block's keys (s11 of them from key row pointer a0) with
    the R query rows of qt (pointer s0-pitched columns from qt + 4 r0): MK keys per
    pass, their elements the scalars of vfmacc.vf, a row of qt the vector. bias_pitch:
    the bias's row pitch in bytes when the accumulators start from it (pointer a2)."""
    ql, mk = p["qlmul"], p["mk"]
    asm.li("a1", buf["sc"])
    asm(f"srli a7, s11, {_log2(R)}")
    with asm.loop("a7", "a7", f"chunks of {R} keys"):
        full, rest = divmod(R, mk)
        with asm.loop("t6", full, f"{mk} keys at a time"):
            _key_pass(asm, ql, mk, R, D, kvp, buf, bias_pitch)
        if rest:
            _key_pass(asm, ql, rest, R, D, kvp, buf, bias_pitch)


def _key_pass(asm, ql, n, R, D, kvp, buf, bias_pitch):
    accs = [f"v{8 + i * ql}" for i in range(n)]
    single = (n - 1) * kvp <= 2047
    asm(f"vsetvli t0, zero, e32, m{ql}, ta, ma")
    for i, acc in enumerate(accs):
        if bias_pitch:
            asm(f"addi t1, a2, {4 * i}")
            asm(f"vlse32.v {acc}, (t1), s0", "start from the position bias")
        else:
            asm(f"vmv.v.i {acc}, 0")
    asm.li("t3", buf["qt"])
    asm("add t3, t3, s7", "qt[0, r0]")
    ptrs = ["a3"] if single else list(KEY_PTRS[:n])
    if single:
        asm("mv a3, a0")
    else:
        for i in range(n):
            asm.addi(ptrs[i], "a0", i * kvp, "t1")
    with asm.loop("t4", D, "d"):
        asm("vle32.v v0, (t3)", "qt[d, rows]")
        for i in range(n):
            asm(f"flw {F_A[i]}, {i * kvp if single else 0}({ptrs[0] if single else ptrs[i]})")
        for i, acc in enumerate(accs):
            asm(f"vfmacc.vf {acc}, {F_A[i]}, v0")
        for ptr in ptrs:
            asm(f"addi {ptr}, {ptr}, 4")
        asm("add t3, t3, s0")
    _rows(asm, "vse32.v", accs, "a1", 4 * R)
    asm.addi("a0", "a0", n * kvp, "t1")
    asm.addi("a1", "a1", 4 * R * n, "t1")
    if bias_pitch:
        asm(f"addi a2, a2, {4 * n}")


def _product_values(asm, p, R, D, kvp, buf):
    """ot [D, R] += v[block]^T @ P^T: MD features per pass over the block's s11 keys
    (v rows from a0), P^T rows of R from sc."""
    ql, md = p["qlmul"], p["md"]
    asm.li("a5", kvp)
    asm.li("a1", buf["ot"])
    full, rest = divmod(D, md)
    with asm.loop("a7", full, f"{md} features at a time"):
        _value_pass(asm, ql, md, R, buf)
    if rest:
        _value_pass(asm, ql, rest, R, buf)


def _value_pass(asm, ql, n, R, buf):
    accs = [f"v{8 + i * ql}" for i in range(n)]
    asm(f"vsetvli t0, zero, e32, m{ql}, ta, ma")
    _rows(asm, "vle32.v", accs, "a1", 4 * R)
    asm.li("t3", buf["sc"])
    asm("mv a3, a0")
    with asm.loop("t4", "s11", "keys"):
        asm("vle32.v v0, (t3)", "P^T[j, rows]")
        for i in range(n):
            asm(f"flw {F_A[i]}, {4 * i}(a3)")
        for i, acc in enumerate(accs):
            asm(f"vfmacc.vf {acc}, {F_A[i]}, v0")
        asm(f"addi t3, t3, {4 * R}")
        asm("add a3, a3, a5")
    _rows(asm, "vse32.v", accs, "a1", 4 * R)
    asm(f"addi a0, a0, {4 * n}")
    asm.addi("a1", "a1", 4 * R * n, "t1")


def _vector_pass(asm, ql, count_reg, addr, body):
    """A strip-mined pass of vl = R over `count_reg` elements at `addr` (in place):
    body() reads v8 and leaves the result in the group it returns."""
    asm.li("a1", addr)
    with asm.strip(count_reg, "t0", ql):
        asm("vle32.v v8, (a1)")
        out = body()
        asm(f"vse32.v {out}, (a1)")
        asm("slli t1, t0, 2")
        asm("add a1, a1, t1")


def attention_layer(asm, p, S, Hq, Hkv, D, causal, q, k, v, o, buf, consts, scale=True, bias=None):
    """o = attention(q, k, v) (addresses; [S, heads*D] row-major) with H = Hq query heads
    sharing Hkv key/value heads; scale: multiply scores by consts["scale"]; bias: address
    of [Hq, S, S] added to the scores (T5); buf from attention_buffers."""
    ql, bk = p["qlmul"], min(p["bk"], S)
    R = rows_per_block(asm.hw, ql)
    group, qp, kvp = Hq // Hkv, 4 * Hq * D, 4 * Hkv * D
    vz, vt, vn = (f"v{8 + i * ql}" for i in range(3))
    vm = "v0"                                   # a per-row vector the passes read (nothing is masked)
    ml = buf["ml"]                              # m [R], l [R], alpha [R]
    asm.exp_consts(EXP_F)
    asm.flw_addr("fs11", consts["neg_max"], comment="neg_max")
    asm.flw_addr("ft8", consts["one"], comment="one")
    if scale:
        asm.flw_addr("ft10", consts["scale"], comment="scale")
    if causal:
        _causal_mask(asm, R, buf["mask"])
    asm.li("s0", 4 * S, "qt (and bias) row pitch")
    asm.li("s1", k, "k of the key/value head, read in place")
    asm.li("s2", v, "v of the key/value head, read in place")
    asm.li("s3", q, "q (and o) columns of the query head")
    if bias is not None:
        asm.li("s4", bias, "bias of the query head")
    with asm.loop("s5", Hkv, "key/value heads"):
        with asm.loop("s6", group, "query heads sharing them"):
            asm.comment("pack this query head: qt = (scale q[:, head])^T")
            transpose(asm, "s3", S, D, buf["qt"], pitch=Hq * D, scale="ft10" if scale else None)
            asm.li("s7", 0, "4 r0: first query row of the block (bytes)")
            with asm.loop("s8", S // R, f"blocks of {R} query rows"):
                asm(f"vsetvli t0, zero, e32, m{ql}, ta, ma")
                asm(f"vfmv.v.f {vz}, fs11")
                asm.li("a1", ml)
                asm(f"vse32.v {vz}, (a1)", "m = lowest")
                asm(f"vmv.v.i {vz}, 0")
                asm(f"addi a1, a1, {4 * R}")
                asm(f"vse32.v {vz}, (a1)", "l = 0")
                asm.li("t4", D * R)

                def zero():
                    asm("vmv.v.i v8, 0", "O^T = 0")
                    return "v8"
                _vector_pass(asm, ql, "t4", buf["ot"], zero)
                if causal:
                    asm(f"srli s10, s7, 2")
                    asm(f"addi s10, s10, {R}", "keys 0 .. r0 + R - 1")
                else:
                    asm.li("s10", S)
                asm.li("s9", 0, "j0: first key of the block")
                top = asm.label("keys")
                asm.place(top)
                asm("sub s11, s10, s9")
                asm.li("t1", bk)
                short = asm.label("short")
                asm(f"blt s11, t1, {short}")
                asm("mv s11, t1", "nk = min(bk, keys left)")
                asm.place(short)
                asm.li("t1", kvp)
                asm("mul a0, s9, t1")
                asm("add a0, a0, s1", "k[j0]")
                if bias is not None:
                    asm("srli t1, s7, 2")
                    asm("mul a2, t1, s0")
                    asm("add a2, a2, s4")
                    asm("slli t1, s9, 2")
                    asm("add a2, a2, t1", "bias[h, r0, j0]")
                _product_keys(asm, p, R, D, kvp, buf, 4 * S if bias is not None else 0)
                if causal:
                    full = asm.label("unmasked")
                    asm("add t1, s9, s11")
                    asm(f"bne t1, s10, {full}")
                    asm.comment("the diagonal: keys after a row's own position become lowest")
                    asm(f"addi a1, s11, -{R}")
                    asm(f"slli a1, a1, {_log2(4 * R)}")
                    asm.li("t1", buf["sc"])
                    asm("add a1, a1, t1")
                    asm.li("a0", buf["mask"])
                    asm.li("t4", R * R)
                    with asm.strip("t4", "t0", 8):
                        asm("vle32.v v8, (a1)")
                        asm("vle32.v v16, (a0)")
                        asm("vfmin.vv v8, v8, v16")
                        asm("vse32.v v8, (a1)")
                        asm("slli t1, t0, 2")
                        asm("add a0, a0, t1")
                        asm("add a1, a1, t1")
                    asm.place(full)
                _tree(asm, "max", buf["sc"], buf["tmp"], R)
                asm(f"vsetvli t0, zero, e32, m{ql}, ta, ma")
                asm.li("a0", buf["tmp"])
                asm(f"vle32.v {vz}, (a0)", "block maximum")
                asm.li("a1", ml)
                asm(f"vle32.v {vt}, (a1)", "m")
                asm(f"vfmax.vv {vm}, {vz}, {vt}", "m'")
                asm(f"vse32.v {vm}, (a1)")
                asm(f"vfsub.vv {vz}, {vt}, {vm}", "m - m'")
                asm.li("t6", 127)
                asm.vexp(vt, vz, vt, vn, EXP_F, "t6")
                asm.addi("a1", "a1", 8 * R)
                asm(f"vse32.v {vt}, (a1)", "alpha = exp(m - m')")
                asm(f"slli t4, s11, {_log2(R)}")
                asm.li("t6", 127)

                def probabilities():
                    asm(f"vfsub.vv {vz}, {vz}, {vm}")
                    asm.vexp(vt, vz, vt, vn, EXP_F, "t6")
                    return vt
                _vector_pass(asm, ql, "t4", buf["sc"], probabilities)
                _tree(asm, "add", buf["sc"], buf["tmp"], R)
                asm(f"vsetvli t0, zero, e32, m{ql}, ta, ma")
                asm.li("a1", ml + 8 * R)
                asm(f"vle32.v {vm}, (a1)", "alpha")
                asm.li("a0", buf["tmp"])
                asm(f"vle32.v {vz}, (a0)", "block sum")
                asm.li("a1", ml + 4 * R)
                asm(f"vle32.v {vt}, (a1)", "l")
                asm(f"vfmacc.vv {vz}, {vt}, {vm}", "l = l * alpha + sum")
                asm(f"vse32.v {vz}, (a1)")
                asm.li("t4", D * R)

                def rescale():
                    asm(f"vfmul.vv v8, v8, {vm}", "O^T *= alpha")
                    return "v8"
                _vector_pass(asm, ql, "t4", buf["ot"], rescale)
                asm.li("t1", kvp)
                asm("mul a0, s9, t1")
                asm("add a0, a0, s2", "v[j0]")
                _product_values(asm, p, R, D, kvp, buf)
                asm.addi("s9", "s9", bk)
                asm(f"blt s9, s10, {top}")
                asm.comment("o rows = (O^T / l)^T, stored with a stride")
                asm(f"vsetvli t0, zero, e32, m{ql}, ta, ma")
                asm.li("a1", ml + 4 * R)
                asm(f"vle32.v {vm}, (a1)")
                asm(f"vfrdiv.vf {vm}, {vm}, ft8", "1 / l")
                asm.li("t4", D * R)

                def normalise():
                    asm(f"vfmul.vv v8, v8, {vm}", "O^T / l")
                    return "v8"
                _vector_pass(asm, ql, "t4", buf["ot"], normalise)
                asm.li("t1", o - q)
                asm("add a0, s3, t1")
                asm("srli t1, s7, 2")
                asm.li("t2", qp)
                asm("mul t1, t1, t2")
                asm("add a0, a0, t1", "o[r0, head]")
                asm.li("a1", buf["ot"])
                asm(f"vsetvli t0, zero, e32, m{ql}, ta, ma")
                with asm.loop("t4", D // 2, "pairs of features"):
                    for f in range(2):
                        asm(f"vle32.v {(vz, vt)[f]}, (a1)")
                        asm(f"vsse32.v {(vz, vt)[f]}, (a0), t2")
                        asm(f"addi a1, a1, {4 * R}")
                        asm("addi a0, a0, 4")
                asm.addi("s7", "s7", 4 * R)
            asm.addi("s3", "s3", 4 * D)
            if bias is not None:
                asm.addi("s4", "s4", 4 * S * S)
        asm.addi("s1", "s1", 4 * D)
        asm.addi("s2", "s2", 4 * D)


def _effective(ctx, p):
    """flash_attention keeps at least two key blocks (bk at most S/2): it is the blocked
    algorithm even where one block would hold the whole sequence."""
    if ctx.task.name == "flash_attention":
        return {**p, "bk": min(p["bk"], ctx.dims["S"] // 2)}
    return p


def attention(ctx, asm, p):
    d = ctx.dims
    S, Hq, Hkv, D = d["S"], d["Hq"], d["Hkv"], d["D"]
    p = _effective(ctx, p)
    consts = {c.name: c.address for c in ctx.layout.constants}
    attention_layer(asm, p, S, Hq, Hkv, D, ctx.task.causal, ctx.addr("q"), ctx.addr("k"), ctx.addr("v"),
                    ctx.addr("o"), attention_buffers(ctx, p, S, D), consts)


def check_attention(ctx, p, S=None, D=None):
    S = S or ctx.dims["S"]
    ql, mk, md, bk = p["qlmul"], p["mk"], p["md"], min(p["bk"], S)
    R = rows_per_block(ctx.hw, ql)
    if ql not in (1, 2, 4, 8):
        return f"qlmul must be 1, 2, 4 or 8, got {ql}"
    if R & (R - 1) or S % R or bk % R:
        return f"R = {R} query rows must be a power of two dividing S = {S} and bk = {bk}"
    if not 1 <= mk <= len(KEY_PTRS) or 8 + mk * ql > 32:
        return f"mk = {mk} keys per pass: 1..{len(KEY_PTRS)} accumulators of LMUL = {ql} in v8..v31"
    if not 1 <= md <= len(F_A) or 8 + md * ql > 32:
        return f"md = {md} features per pass: 1..{len(F_A)} accumulators of LMUL = {ql} in v8..v31"
    if 4 * R * (max(mk, md) - 1) > 2047:
        return f"{max(mk, md)} rows of R = {R} exceed a store's 12-bit offset"
    return None


ATTENTION = dict(params={"qlmul": 8, "mk": 3, "md": 3, "bk": 256},
                 space={"qlmul": [4, 8], "mk": [2, 3, 4, 6], "md": [2, 3, 4, 6], "bk": [32, 64, 128, 256]},
                 check=lambda ctx, p: check_attention(ctx, _effective(ctx, p)))
DOC = ("fused blocked online-softmax attention vectorised over query rows: packed pre-scaled q^T per "
       "query head, k and v read in place, tree reductions, MK keys / MD features per pass")
TEMPLATES = [Template(name, attention, **ATTENTION, doc=DOC) for name in ("scaled_dot_product", "mha", "gqa", "mqa")]
# long sequences: key blocks of at most half the sequence, so even C1 runs the online update
TEMPLATES.append(Template("flash_attention", attention, params={**ATTENTION["params"], "bk": 128},
                          space=ATTENTION["space"], check=ATTENTION["check"], doc=DOC))
