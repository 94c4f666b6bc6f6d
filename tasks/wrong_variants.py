"""Known-wrong kernels: the mistakes and shortcuts the tolerance and the edge cases must
catch, emulated like the correct kernels of `tasks.bf16_kernels` (bf16 storage, fp32
accumulation) so that only the mistake differs.

`VARIANTS[task]` lists (name, kernel) pairs; `kernel(x, d)` returns the outputs, or
None where the mistake does not change the result on configuration `d` (the maximum of
the first 64 logits is the row maximum when a row has 64 of them). `python -m
tasks.calibrate` shows each variant's margin (> 1: every evaluation fails it).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from kernelcraft.simulators import numerics as nx

from . import bf16_kernels as K
from .ops import GELU_C1, GELU_C2

B, f, F32 = K.B, K.f, np.float32
Kernel = Callable[[dict, dict], "dict | None"]
LOG2E = F32(1.4426950408889634)


# ---- cheap exp approximations (relative error 3-6%) -------------------------------------
def exp2_parts(x):
    """(n, f) with x log2(e) = n + f; a masked score (-inf) gives n = -200, f = 0, i.e. 0."""
    t = f(x) * LOG2E
    t = np.where(np.isneginf(t), F32(-200), t)
    n = np.floor(t)
    return n, t - n


def exp_bit_trick(x):
    """Schraudolph's one-multiply-add exp: x * 2^23 / ln 2 + bias as an integer bit
    pattern, i.e. 2^n (1 + f): too large by up to 6.1%."""
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        n, fr = exp2_parts(x)
        return f(np.ldexp(1.0 + fr, n.astype(np.int64).clip(-200, 200)))


def exp_bit_trick_centred(x):
    """The bit trick with its bias tuned to centre the error: within about +-3%."""
    return f(exp_bit_trick(x) * F32(0.9708))


def exp_taylor2(x):
    """2^f by its degree-2 Taylor polynomial: too small by up to 3.4% (f -> 1)."""
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        n, fr = exp2_parts(x)
        ln2 = np.log(2.0)
        p = 1.0 + ln2 * fr + 0.5 * ln2 * ln2 * fr * fr
        return f(np.ldexp(p, n.astype(np.int64).clip(-200, 200)))


def exp_fixup(x):
    """The bit trick with a quadratic fix-up of the mantissa, 2^f ~ 1 + f - 0.28 f (1 - f):
    too large by up to 1.1%."""
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        n, fr = exp2_parts(x)
        return f(np.ldexp(1.0 + fr - 0.28 * fr * (1.0 - fr), n.astype(np.int64).clip(-200, 200)))


def exp_taylor3(x):
    """2^f by its degree-3 Taylor polynomial: too small by up to 0.56%."""
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        n, fr = exp2_parts(x)
        t = np.log(2.0) * fr
        return f(np.ldexp(1.0 + t + t * t / 2 + t * t * t / 6, n.astype(np.int64).clip(-200, 200)))


CHEAP_EXPS = {"exp_bit_trick": exp_bit_trick, "exp_bit_trick_centred": exp_bit_trick_centred,
              "exp_taylor2": exp_taylor2}
# Approximations of about 1% and less: the Level 2/3 catalogue (inside attention, an FFN or
# a block), where normalisation and contraction damp an exp's error (tasks/README.md).
FINE_EXPS = {"exp_fixup_1pct": exp_fixup, "exp_taylor3": exp_taylor3}


# ---- element-wise -------------------------------------------------------------------------
def silu_with(exp):
    def kernel(x, d):
        e = B(exp(B(-f(x["x"]))))
        return {"y": B(f(x["x"]) * K.recip_bf16(B(e + F32(1))))}
    return kernel


def sigmoid_as_ratio(x, d):
    with np.errstate(over="ignore", invalid="ignore"):
        e = B(nx.exp(f(x["x"])))
        return {"y": B(f(x["x"]) * B(e * nx.reciprocal(B(e + F32(1)))))}


def x_sigmoid(k: float, exp=nx.exp):
    def kernel(x, d):
        e = B(exp(B(f(x["x"]) * F32(-k))))
        return {"y": B(f(x["x"]) * K.recip_bf16(B(e + F32(1))))}
    return kernel


def gelu_with(exp):
    def kernel(x, d):
        xx = f(x["x"])
        u = B(B(B(xx * xx) * F32(GELU_C2)) + F32(1))
        z = B(B(u * xx) * F32(-GELU_C1))
        return {"y": B(xx * K.recip_bf16(B(B(exp(z)) + F32(1))))}
    return kernel


def leaky_relu(x, d):
    xx = f(x["x"])
    return {"y": B(np.where(xx > 0, xx, xx * F32(0.01)))}


# ---- row-wise -----------------------------------------------------------------------------
def softmax_minus(shift: Callable[[np.ndarray, dict], "np.ndarray | None"], exp=nx.exp,
                  clamp: bool = False):
    """Softmax reduced by `shift` instead of the row maximum; with `clamp`, exp's argument
    is clamped to [-87, 88] first (as a polynomial exp does to keep 2^n normal)."""
    def kernel(x, d):
        xx = f(x["x"])
        m = shift(xx, d)
        if m is None:
            return None
        with np.errstate(over="ignore", invalid="ignore"):
            z = B(xx - m)
            e = B(exp(np.clip(z, F32(-87), F32(88)) if clamp else z))
            return {"y": B(e * nx.reciprocal(e.sum(axis=-1, keepdims=True, dtype=F32)))}
    return kernel


def row_max(x, d):
    return x.max(axis=-1, keepdims=True)


def first_64_max(x, d):
    return x[..., :64].max(axis=-1, keepdims=True) if x.shape[-1] > 64 else None


def first_element(x, d):
    return x[..., :1]


def row_mean(x, d):
    return x.mean(axis=-1, keepdims=True, dtype=F32)


def zero(x, d):
    return np.zeros_like(x[..., :1])


def layer_norm_eps(where: str):
    def kernel(x, d):
        xx = f(x["x"])
        mean = xx.sum(axis=-1, keepdims=True, dtype=F32) * F32(1.0 / xx.shape[-1])
        xc = B(xx - mean)
        var = B(xc * xc).sum(axis=-1, keepdims=True, dtype=F32) * F32(1.0 / xx.shape[-1])
        rstd = (K.rsqrt(var, 0.0) if where == "none" else
                nx.reciprocal(nx.sqrt(var) + F32(1e-5)))
        y = B(xc * rstd)
        return {"y": B(B(y * f(x["gamma"])) + f(x["beta"]))}
    return kernel


def rms_norm_with(eps: float, centre: bool = False):
    def kernel(x, d):
        xx = f(x["x"])
        if centre:
            xx = B(xx - xx.mean(axis=-1, keepdims=True, dtype=F32))
        return {"y": K.rms_norm(xx, x["gamma"], eps)}
    return kernel


# ---- contractions ----------------------------------------------------------------------------
def part_of_k(k: int) -> int:
    """The K a kernel that drops its last tile of 64 (or half of a single tile) sums."""
    return k - 64 if k > 64 else k // 2


def bf16_sum(a, b):
    """a @ b (batched over leading axes) with every partial sum stored in bf16."""
    a, b = f(a), f(b)
    acc = np.zeros(a.shape[:-1] + b.shape[-1:], F32)
    for k in range(a.shape[-1]):
        acc = B(acc + a[..., :, k:k + 1] * b[..., k:k + 1, :])
    return acc


def gemv_partial(x, d):
    k = part_of_k(d["K"])
    return {"y": K.mm(x["a"][:, :k], x["x"][:k])}


def gemv_bf16_acc(x, d):
    a, v = f(x["a"]), f(x["x"])
    acc = np.zeros(a.shape[0], F32)
    for k in range(a.shape[1]):
        acc = B(acc + a[:, k] * v[k])
    return {"y": acc}


def gemm_partial(x, d):
    k = part_of_k(d["K"])
    return {"c": K.mm(f(x["a"])[..., :k], f(x["b"])[..., :k, :])}


def gemm_bf16_acc(x, d):
    return {"c": bf16_sum(x["a"], x["b"])}


def linear_with(bias: bool = True, k_part: bool = False, bf16_acc: bool = False):
    def kernel(x, d):
        xx, w = f(x["x"]), f(x["w"]).T
        if k_part:
            k = part_of_k(d["K"])
            xx, w = xx[:, :k], w[:k]
        p = bf16_sum(xx, w) if bf16_acc else K.mm(xx, w)
        return {"y": B(p + f(x["b"])) if bias else p}
    return kernel


def conv_with(taps: str):
    """taps: "flipped" (true convolution instead of cross-correlation), "missing" (the
    last filter row left out), "bf16_acc" (the running sum stored in bf16 after each tap)."""
    def kernel(x, d):
        xx, w = f(x["x"]), f(x["w"])
        kh, kw = w.shape[:2]
        if taps == "flipped":
            w = w[::-1, ::-1]
        oh, ow = xx.shape[0] - kh + 1, xx.shape[1] - kw + 1
        acc = np.zeros((oh, ow, w.shape[-1]), dtype=F32)
        for i in range(kh - 1 if taps == "missing" else kh):
            for j in range(kw):
                patch = xx[i:i + oh, j:j + ow]
                acc = f(acc + (patch @ w[i, j] if w.ndim == 4 else patch * w[i, j]))
                if taps == "bf16_acc":
                    acc = B(acc)
        return {"y": B(acc)}
    return kernel


# ---- Level 2 ------------------------------------------------------------------------------
ATTENTION = ("scaled_dot_product", "flash_attention", "mha", "gqa", "mqa")


def rope_interleaved(x, d):
    s, width = x["x"].shape
    xh = f(x["x"]).reshape(s, -1, 2)
    rot = np.stack([-xh[..., 1], xh[..., 0]], axis=-1).reshape(s, width)
    heads = width // d["D"]
    cos, sin = np.tile(f(x["cos"]), heads), np.tile(f(x["sin"]), heads)
    return {"y": B(B(f(x["x"]) * cos) + B(rot * sin))}


def rope_sin_sign(x, d):
    return {"y": K.rope(x["x"], x["cos"], -f(x["sin"]), d["H"])}


def ffn_with(act):
    def kernel(x, d):
        h = B(K.mm(x["x"], f(x["w1"]).T) + f(x["b1"]))
        return {"y": B(K.mm(act(h), f(x["w2"]).T) + f(x["b2"]))}
    return kernel


def gelu_no_cubic(h):
    return x_sigmoid(GELU_C1)({"x": h}, {})["y"]


def swiglu_swapped(x, d):
    return {"y": K.swiglu(x["x"], x["w_up"], x["w_gate"], x["w_down"])}


def swiglu_no_gate(x, d):
    xx = x["x"]
    return {"y": K.mm(B(K.silu(K.mm(xx, f(x["w_gate"]).T))), f(x["w_down"]).T)}


def attention_variant(causal: bool, scale: float | None = 1.0, mask: bool | None = None,
                      shift=None, clamp: float | None = None):
    """Attention with one thing changed: `scale` (None: the right one), `mask` (None:
    the task's), or `shift` (what the scores are reduced by before exp, instead of the
    maximum over the keys a query sees; with `clamp`, exp's argument is clamped to
    [-clamp, clamp], 80: exp(80) times any value stays finite in fp32)."""
    def kernel(x, d):
        s = 1.0 / np.sqrt(d["D"]) if scale is None else scale
        m = causal if mask is None else mask
        if shift is None:
            return {"o": K.attention(x["q"], x["k"], x["v"], d["Hq"], d["Hkv"], s, m)}
        if shift is first_64_max and d["S"] <= 64:
            return None
        return {"o": attention_shifted(x, d, s, m, shift, clamp)}
    return kernel


def attention_shifted(x, d, scale, causal, shift, clamp=None):
    s, dh, hq, hkv = d["S"], d["D"], d["Hq"], d["Hkv"]
    out = np.zeros((s, hq * dh), dtype=F32)
    mask = np.tril(np.ones((s, s), dtype=bool)) if causal else np.ones((s, s), dtype=bool)
    for h in range(hq):
        g = h // (hq // hkv)
        qh = B(f(x["q"][:, h * dh:(h + 1) * dh]) * F32(scale))
        sc = K.mm(qh, f(x["k"][:, g * dh:(g + 1) * dh]).T)
        m = shift(np.where(mask, sc, F32(0)), {})
        with np.errstate(over="ignore", invalid="ignore"):
            z = B(sc - m)
            e = np.where(mask, B(nx.exp(z if clamp is None else np.clip(z, F32(-clamp), F32(clamp)))), F32(0))
            o = K.mm(e, f(x["v"][:, g * dh:(g + 1) * dh]))
            out[:, h * dh:(h + 1) * dh] = B(o * nx.reciprocal(e.sum(axis=-1, keepdims=True, dtype=F32)))
    return out


# ---- Level 3 ------------------------------------------------------------------------------
def conv_block_with(relu: bool = True, shift: bool = True):
    def kernel(x, d):
        y = K.run("conv2d", {"x": x["x"], "w": x["w"]}, d)["y"]
        y = B(y * f(x["scale"]))
        if shift:
            y = B(y + f(x["shift"]))
        return {"y": K.relu(y) if relu else y}
    return kernel


def decoder_with(task: str, change: str):
    """The emulated decoder block with one step changed: "no_residual" (the attention
    branch replaces x instead of adding to it), "no_mask", "no_rope" (llama), "no_bias" (t5)."""
    def kernel(x, d):
        llama = task == "decoder_block_llama"
        eps = 1e-5 if llama else 1e-6
        h = K.rms_norm(x["x"], x["attn_norm"], eps)
        q, k, v = (K.mm(h, f(x[w]).T) for w in ("wq", "wk", "wv"))
        causal = change != "no_mask"
        if llama:
            if change != "no_rope":
                q, k = K.rope(q, x["cos"], x["sin"], d["H"]), K.rope(k, x["cos"], x["sin"], d["H"])
            a = K.attention(q, k, v, d["H"], d["H"], 1.0 / np.sqrt(d["D"]), causal)
        else:
            bias = None if change == "no_bias" else x["bias"]
            a = K.attention(q, k, v, d["H"], d["H"], 1.0, causal, bias=bias)
        proj = K.mm(a, f(x["wo"]).T)
        x2 = proj if change == "no_residual" else B(f(x["x"]) + proj)
        g = K.rms_norm(x2, x["ffn_norm"], eps)
        ffn = (K.swiglu(g, x["w_gate"], x["w_up"], x["w_down"]) if llama
               else K.mm(K.relu(K.mm(g, f(x["w_in"]).T)), f(x["w_out"]).T))
        return {"y": B(x2 + ffn)}
    return kernel


def _exps(make) -> list[tuple[str, Kernel]]:
    return [(name, make(fn)) for name, fn in CHEAP_EXPS.items()]


def with_exp(task: str, exp) -> Kernel:
    """The emulated correct kernel of a Level 2/3 task with `exp` for the hardware's."""
    return lambda x, d: K.run(task, x, d, exp=exp)


def _deep_exps(task: str, names=None) -> list[tuple[str, Kernel]]:
    """The task's kernel with each approximate exp (or those in `names`)."""
    return [(name, with_exp(task, fn)) for name, fn in {**CHEAP_EXPS, **FINE_EXPS}.items()
            if names is None or name in names]


# The approximate exps each Level 2/3 task's checks catch (on its coherent edge family, on
# `many_keys` and `many_units` by the sign of the error, on `units_near_zero` by its step where
# exp's argument crosses 0: tasks/README.md); any others would be GAPS below.
CAUGHT_EXPS = {t: (*CHEAP_EXPS, *FINE_EXPS)
               for t in ("ffn", "swiglu", *ATTENTION, "decoder_block_llama", "decoder_block_t5")}


def _attention(causal: bool) -> list[tuple[str, Kernel]]:
    return [("no_scale", attention_variant(causal, scale=1.0)),
            ("mask_flipped" if not causal else "no_mask", attention_variant(causal, None, mask=not causal)),
            ("minus_first_64_max", attention_variant(causal, None, shift=first_64_max)),
            ("minus_first_score", attention_variant(causal, None, shift=first_element)),
            ("minus_row_mean", attention_variant(causal, None, shift=row_mean)),
            ("minus_first_64_max_clamped", attention_variant(causal, None, shift=first_64_max, clamp=80.0)),
            ("minus_first_score_clamped", attention_variant(causal, None, shift=first_element, clamp=80.0)),
            ("minus_row_mean_clamped", attention_variant(causal, None, shift=row_mean, clamp=80.0))]


VARIANTS: dict[str, list[tuple[str, Kernel]]] = {
    "silu": [("sigmoid_as_exp_ratio", sigmoid_as_ratio), *_exps(silu_with)],
    "relu": [("leaky_0.01", leaky_relu)],
    "gelu": [("no_cubic_term", x_sigmoid(GELU_C1)),
             *[(f"x_sigmoid_{k}x", x_sigmoid(k)) for k in (1.5, 1.6, 1.702, 1.8, 2.0, 2.2)],
             *_exps(gelu_with)],
    "softmax": [("no_max", softmax_minus(zero)), ("minus_first_64_max", softmax_minus(first_64_max)),
                ("minus_first_element", softmax_minus(first_element)),
                ("minus_row_mean", softmax_minus(row_mean)),
                ("minus_first_64_max_clamped", softmax_minus(first_64_max, clamp=True)),
                ("minus_first_element_clamped", softmax_minus(first_element, clamp=True)),
                *[(name, softmax_minus(row_max, fn)) for name, fn in CHEAP_EXPS.items()]],
    "layer_norm": [("no_eps", layer_norm_eps("none")), ("eps_outside_sqrt", layer_norm_eps("outside"))],
    "rms_norm": [("no_eps", rms_norm_with(0.0)), ("layer_norm_eps", rms_norm_with(1e-5)),
                 ("mean_subtracted", rms_norm_with(1e-6, centre=True))],
    "gemv": [("part_of_k", gemv_partial), ("bf16_accumulation", gemv_bf16_acc)],
    "gemm": [("part_of_k", gemm_partial), ("bf16_accumulation", gemm_bf16_acc)],
    "batch_matmul": [("part_of_k", gemm_partial), ("bf16_accumulation", gemm_bf16_acc)],
    "linear": [("no_bias", linear_with(bias=False)), ("part_of_k", linear_with(k_part=True)),
               ("bf16_accumulation", linear_with(bf16_acc=True))],
    "conv2d": [("flipped_filter", conv_with("flipped")), ("missing_filter_row", conv_with("missing")),
               ("bf16_accumulation", conv_with("bf16_acc"))],
    "depthwise_conv": [("flipped_filter", conv_with("flipped")), ("missing_filter_row", conv_with("missing")),
                       ("bf16_accumulation", conv_with("bf16_acc"))],
    "rope": [("interleaved_pairs", rope_interleaved), ("sin_sign_flipped", rope_sin_sign)],
    "ffn": [("relu_for_gelu", ffn_with(K.relu)), ("gelu_no_cubic_term", ffn_with(gelu_no_cubic)),
            *_deep_exps("ffn", CAUGHT_EXPS["ffn"])],
    "swiglu": [("gate_and_up_swapped", swiglu_swapped), ("no_up_projection", swiglu_no_gate),
               *_deep_exps("swiglu", CAUGHT_EXPS["swiglu"])],
    **{t: _attention(t in ("flash_attention", "gqa", "mqa")) + _deep_exps(t, CAUGHT_EXPS[t]) for t in ATTENTION},
    "conv_block": [("no_relu", conv_block_with(relu=False)), ("no_shift", conv_block_with(shift=False))],
    "decoder_block_llama": [*[(c, decoder_with("decoder_block_llama", c)) for c in ("no_residual", "no_mask", "no_rope")],
                            *_deep_exps("decoder_block_llama", CAUGHT_EXPS["decoder_block_llama"])],
    "decoder_block_t5": [*[(c, decoder_with("decoder_block_t5", c)) for c in ("no_residual", "no_mask", "no_bias")],
                         *_deep_exps("decoder_block_t5", CAUGHT_EXPS["decoder_block_t5"])],
}

# ---- kernels that recognise an edge family ------------------------------------------------
# The 1.1% and the 0.56% degree-3 Taylor exps are caught only on edge families built for them
# (`two_keys`, `many_units`, `units_near_zero`, `many_keys`), whose structure no random draw has:
# a kernel can test for it and compute exactly there (tasks/README.md, "Anti-gaming rules").
# Each test below is one an agent reading the task code could write; none fires on a random draw.
def _twin_units(*weights: str) -> Callable[[dict], bool]:
    """Two hidden units with the same pre-activation weights (one pass over the weights)."""
    def spots(x: dict) -> bool:
        w = np.column_stack([np.asarray(x[n]) for n in weights])
        return np.unique(w, axis=0).shape[0] < w.shape[0]
    return spots


def _sparse_queries(x: dict) -> bool:
    """Most of the first query row zero (one row read): `many_keys` keeps a head's query in
    1 + SCORE_COLS columns, `two_keys` (and `spiked_scores`) in a few."""
    return float(np.mean(np.asarray(x["q"])[0] == 0)) > 0.5


def _t5_families(x: dict) -> bool:
    """decoder_block_t5's `many_keys` (the output projection is the identity) or `two_keys`
    (the query projection is zero): one probe each."""
    wo = np.asarray(x["wo"])
    return bool(np.array_equal(wo, np.eye(wo.shape[0])) or not np.asarray(x["wq"]).any())


RECOGNISE = {"ffn": _twin_units("w1"), "swiglu": _twin_units("w_gate", "w_up"),
             "decoder_block_llama": _twin_units("w_gate", "w_up"),
             **{t: _sparse_queries for t in ATTENTION}, "decoder_block_t5": _t5_families}


def recognising(task: str, exp) -> Kernel:
    """The task's kernel with `exp`, but exact (the hardware's exp) on the input sets that
    RECOGNISE[task] picks out."""
    spots = RECOGNISE[task]
    return lambda x, d: K.run(task, x, d) if spots(x) else K.run(task, x, d, exp=exp)


# Known gaps: wrong variants that the checks do not catch yet, measured (their margins are
# in tasks/README.md) but not required to fail: the 1.1% and the degree-3 Taylor exps in a
# kernel that is exact on the input sets it recognises as a read-back family (above). Every
# approximate exp on its own is caught (CAUGHT_EXPS).
GAPS: dict[str, list[tuple[str, Kernel]]] = {
    task: [(n, k) for n, k in _deep_exps(task) if n not in CAUGHT_EXPS.get(task, ())]
    + [(f"{n}_exact_where_recognised", recognising(task, fn)) for n, fn in FINE_EXPS.items()]
    for task in RECOGNISE}
