"""float64 building blocks of the references (each the textbook formula, stated once).

Layouts follow tasks/README.md: row-major, features on the last axis, linear weights
[out, in], conv NHWC (one image) with weights [KH, KW, Cin, Cout], attention tensors
[S, heads * head_dim].
"""
from __future__ import annotations

import numpy as np

GELU_C1 = 2.0 * np.sqrt(2.0 / np.pi)   # gelu(x) = x * sigmoid(GELU_C1 * (x + GELU_C2 * x^3))
GELU_C2 = 0.044715


def sigmoid(z: np.ndarray) -> np.ndarray:
    e = np.exp(-np.abs(z))                       # never overflows
    return np.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def silu(x: np.ndarray) -> np.ndarray:
    return x * sigmoid(x)


def gelu(x: np.ndarray) -> np.ndarray:
    """The tanh approximation, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))),
    written in its equivalent sigmoid form."""
    return x * sigmoid(GELU_C1 * (x + GELU_C2 * x ** 3))


def relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    z = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=axis, keepdims=True)


def layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


def rms_norm(x: np.ndarray, gamma: np.ndarray, eps: float) -> np.ndarray:
    return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + eps) * gamma


def linear(x: np.ndarray, w: np.ndarray, b: np.ndarray | None = None) -> np.ndarray:
    y = x @ w.T
    return y if b is None else y + b


def rope(x: np.ndarray, cos: np.ndarray, sin: np.ndarray, heads: int) -> np.ndarray:
    """Rotate-half RoPE on each head of x [S, heads * D] with cos/sin [S, D]:
    out = x * cos + rotate_half(x) * sin, rotate_half([a, b]) = [-b, a] (halves of D)."""
    s, width = x.shape
    d = width // heads
    xh = x.reshape(s, heads, d)
    rot = np.concatenate([-xh[..., d // 2:], xh[..., : d // 2]], axis=-1)
    out = xh * cos[:, None, :] + rot * sin[:, None, :]
    return out.reshape(s, width)


def attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, heads_q: int, heads_kv: int,
              scale: float, causal: bool, bias: np.ndarray | None = None) -> np.ndarray:
    """Multi-head attention on q [S, Hq*D], k and v [S, Hkv*D]. Query head h reads
    key/value head h // (Hq / Hkv). scores = scale * q_h k_h^T (+ bias[h]); with
    `causal`, key j > query i is excluded; softmax over keys; out_h = P v_h."""
    s, d = q.shape[0], q.shape[1] // heads_q
    group = heads_q // heads_kv
    out = np.empty((s, heads_q * d))
    for h in range(heads_q):
        g = h // group
        qh, kh, vh = (t[:, c * d:(c + 1) * d] for t, c in ((q, h), (k, g), (v, g)))
        scores = scale * (qh @ kh.T)
        if bias is not None:
            scores = scores + bias[h]
        if causal:
            scores = np.where(np.tri(s, k.shape[0], dtype=bool), scores, -np.inf)
        out[:, h * d:(h + 1) * d] = softmax(scores, axis=-1) @ vh
    return out


def windows(x: np.ndarray, kh: int, kw: int) -> np.ndarray:
    """[H, W, C] -> [OH, OW, C, KH, KW] stride-1 valid windows (a view)."""
    return np.lib.stride_tricks.sliding_window_view(x, (kh, kw), axis=(0, 1))


def conv2d(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """x [H, W, Cin], w [KH, KW, Cin, Cout], stride 1, no padding -> [OH, OW, Cout]."""
    kh, kw = w.shape[:2]
    return np.einsum("hwcij,ijco->hwo", windows(x, kh, kw), w, optimize=True)


def depthwise_conv(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """x [H, W, C], w [KH, KW, C], stride 1, no padding -> [OH, OW, C]."""
    kh, kw = w.shape[:2]
    return np.einsum("hwcij,ijc->hwc", windows(x, kh, kw), w, optimize=True)
