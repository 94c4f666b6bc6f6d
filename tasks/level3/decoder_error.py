"""The error model of a correct bf16 decoder block: the chains of its parts composed.

rmsnorm (`error_model.rms_norm_error`), the q/k/v projections accumulated in fp32 and
stored, RoPE (llama, `rope_error`), attention with the errors its inputs carry
(`attention_error`), plus its own three roundings (P @ V, normalisation, output), the
output projection, the residual sum stored, the second rmsnorm on it, the FFN (llama's
SwiGLU, `level2.mlp.swiglu_error`; T5's ReLU, exact, between two products), and the
output's sum with the residual. Each error passes through abs(w) of the next product,
a worst case: on random inputs it is far above what kernels do, and the task's bound is
the smaller of it and the deep-chain bound (`decoder.py`); on structured inputs whose
intermediates are exact (the `coherent_hidden`, `many_units` and `two_keys` families), it is tight.
"""
from __future__ import annotations

import numpy as np

from .. import ops
from ..error_model import product_error, rms_norm_error, rope_error, stored
from ..level2.attention_error import attention_bound
from ..level2.mlp import swiglu_error
from ..tolerance import U


def projection(h, w, dh):
    """h @ w^T and its error bound, stored in bf16."""
    y = h @ w.T
    return y, stored(y, product_error(h, w, dh))


def block_error(x: dict, d: dict, llama: bool, eps: float) -> np.ndarray:
    """The error bound of a decoder block's output before its final store (float64
    inputs `x`, dimensions `d`)."""
    heads, dh = d["H"], d["D"]
    h = ops.rms_norm(x["x"], x["attn_norm"], eps)
    e_h = rms_norm_error(x["x"], x["attn_norm"], eps)
    (q, e_q), (k, e_k), (v, e_v) = (projection(h, x[w], e_h) for w in ("wq", "wk", "wv"))
    if llama:
        e_q, e_k = (rope_error(t, x["cos"], x["sin"], heads, e) for t, e in ((q, e_q), (k, e_k)))
        q, k = (ops.rope(t, x["cos"], x["sin"], heads) for t in (q, k))
        scale, bias = 1.0 / np.sqrt(dh), None
    else:
        scale, bias = 1.0, x["bias"]
    a = ops.attention(q, k, v, heads, heads, scale, causal=True, bias=bias)
    e_a = attention_bound(q, k, v, heads, heads, scale, True, bias, errs=(e_q, e_k, e_v))
    e_a = e_a + 3 * U * (np.abs(a) + e_a)         # P @ V, the normalisation and the output stored
    proj, e_p = projection(a, x["wo"], e_a)
    x2 = x["x"] + proj
    e_x2 = stored(x2, stored(proj, e_p))           # the projection may be stored before the sum
    g = ops.rms_norm(x2, x["ffn_norm"], eps)
    e_g = rms_norm_error(x2, x["ffn_norm"], eps, e_x2)
    if llama:
        ffn = (ops.silu(g @ x["w_gate"].T) * (g @ x["w_up"].T)) @ x["w_down"].T
        e_f = swiglu_error(g, x["w_gate"], x["w_up"], x["w_down"], e_g)
    else:
        hid, e_hid = projection(g, x["w_in"], e_g)
        ffn = ops.relu(hid) @ x["w_out"].T
        e_f = product_error(ops.relu(hid), x["w_out"], e_hid)      # relu moves nothing further
    e_f = stored(ffn, e_f)                        # the FFN's output may be stored before the sum
    return (e_x2 + e_f) * (1 + U)                 # the sum's own rounding: the task's rtol
