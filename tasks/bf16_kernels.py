"""Honest bf16 kernels: each task computed the way an accelerator kernel computes it.

Every tensor a kernel stores is rounded to bf16; matrix products and reductions
accumulate in fp32; row statistics and scalars stay fp32; exp, reciprocal and sqrt are
the hardware algorithms of `simulators.numerics`. These stand for the correct kernels
that the tolerance policy and the edge cases must let through (`python -m
tasks.calibrate` measures how close they come to the bound). They share no code with
the float64 references, so they also check the references independently.
"""
from __future__ import annotations

import numpy as np

from kernelcraft.simulators import numerics as nx

F32 = np.float32
B = nx.round_bf16


def f(x) -> np.ndarray:
    return np.asarray(x, dtype=F32)


def mm(a, b) -> np.ndarray:
    """fp32-accumulated product, stored as bf16."""
    return B(f(a) @ f(b))


def recip_bf16(x):
    return B(nx.reciprocal(x))


def silu(x, exp=nx.exp):
    e = B(exp(B(-f(x))))
    return B(f(x) * recip_bf16(B(e + F32(1))))


def gelu(x, exp=nx.exp):
    c1, c2 = F32(2.0 * np.sqrt(2.0 / np.pi)), F32(0.044715)
    u = B(f(x) * f(x))
    u = B(u * c2)
    u = B(u + F32(1))
    z = B(B(u * f(x)) * -c1)
    return B(f(x) * recip_bf16(B(B(exp(z)) + F32(1))))


def relu(x):
    return B(nx.fmax(x, F32(0)))


def softmax_rows(x):
    """Row softmax: stored exp values, fp32 sum and reciprocal, one final scale."""
    x = f(x)
    m = x.max(axis=-1, keepdims=True)
    e = B(nx.exp(B(x - m)))
    s = e.sum(axis=-1, keepdims=True, dtype=F32)
    return B(e * nx.reciprocal(s))


def rsqrt(v, eps):
    return nx.reciprocal(nx.sqrt(f(v) + F32(eps)))


def layer_norm(x, gamma, beta, eps):
    x = f(x)
    mean = x.sum(axis=-1, keepdims=True, dtype=F32) * F32(1.0 / x.shape[-1])
    xc = B(x - mean)
    var = B(xc * xc).sum(axis=-1, keepdims=True, dtype=F32) * F32(1.0 / x.shape[-1])
    y = B(xc * rsqrt(var, eps))
    return B(B(y * f(gamma)) + f(beta))


def rms_norm(x, gamma, eps):
    x = f(x)
    ms = B(x * x).sum(axis=-1, keepdims=True, dtype=F32) * F32(1.0 / x.shape[-1])
    return B(B(x * rsqrt(ms, eps)) * f(gamma))


def rope(x, cos, sin, heads):
    s, width = x.shape
    d = width // heads
    xh = f(x).reshape(s, heads, d)
    rot = np.concatenate([-xh[..., d // 2:], xh[..., : d // 2]], axis=-1)
    out = B(B(xh * f(cos)[:, None]) + B(rot * f(sin)[:, None]))
    return out.reshape(s, width)


def attention(q, k, v, hq, hkv, scale, causal, bias=None, block=None, exp=nx.exp, p_first=False):
    """Per head: bf16 scores, max-subtracted bf16 exp, fp32 sums, P @ V in fp32 then one
    normalisation. With `block`, keys are processed in blocks with a running maximum
    and sum, and the partial output is kept in bf16 between blocks (flash style). With
    `p_first`, the task statement read literally: P normalised and stored in bf16, then
    P @ V (each weight stored twice, e and p)."""
    s, d = q.shape[0], q.shape[1] // hq
    out = np.zeros((s, hq * d), dtype=F32)
    mask = np.tril(np.ones((s, s), dtype=bool)) if causal else np.ones((s, s), dtype=bool)
    for h in range(hq):
        g = h // (hq // hkv)
        qh = B(f(q[:, h * d:(h + 1) * d]) * F32(scale)) if scale != 1.0 else f(q[:, h * d:(h + 1) * d])
        kh, vh = f(k[:, g * d:(g + 1) * d]), f(v[:, g * d:(g + 1) * d])
        sc = mm(qh, kh.T)
        if bias is not None:
            sc = B(sc + f(bias[h]))
        sc = np.where(mask, sc, F32(-np.inf))
        if block is None:
            m = sc.max(axis=-1, keepdims=True)
            e = B(exp(B(sc - m)))
            r = nx.reciprocal(e.sum(axis=-1, keepdims=True, dtype=F32))
            out[:, h * d:(h + 1) * d] = mm(B(e * r), vh) if p_first else B(mm(e, vh) * r)
            continue
        m = np.full((s, 1), -np.inf, dtype=F32)
        tot = np.zeros((s, 1), dtype=F32)
        acc = np.zeros((s, d), dtype=F32)
        for j in range(0, s, block):
            sb = sc[:, j:j + block]
            m_new = np.maximum(m, sb.max(axis=-1, keepdims=True))
            alpha = np.where(np.isfinite(m), exp(m - m_new), F32(0))
            e = B(exp(B(sb - m_new)))
            tot = f(tot * alpha + e.sum(axis=-1, keepdims=True, dtype=F32))
            acc = B(B(acc * alpha) + mm(e, vh[j:j + block]))
            m = m_new
        out[:, h * d:(h + 1) * d] = B(acc * nx.reciprocal(tot))
    return out


def swiglu(x, wg, wu, wd, exp=nx.exp):
    return mm(B(silu(mm(x, f(wg).T), exp) * mm(x, f(wu).T)), f(wd).T)


def run(task: str, x: dict, d: dict, exp=nx.exp) -> dict:
    """The bf16 kernel's output for `task` on inputs `x` under configuration `d` (with
    `exp` in place of the hardware's exp in the Level 2/3 tasks: a wrong variant's)."""
    if task in ("silu", "relu", "gelu"):
        return {"y": {"silu": silu, "relu": relu, "gelu": gelu}[task](x["x"])}
    if task == "softmax":
        return {"y": softmax_rows(x["x"])}
    if task == "layer_norm":
        return {"y": layer_norm(x["x"], x["gamma"], x["beta"], 1e-5)}
    if task == "rms_norm":
        return {"y": rms_norm(x["x"], x["gamma"], 1e-6)}
    if task == "gemv":
        return {"y": mm(x["a"], x["x"])}
    if task in ("gemm", "batch_matmul"):
        return {"c": mm(x["a"], x["b"])}
    if task == "linear":
        return {"y": B(mm(x["x"], f(x["w"]).T) + f(x["b"]))}
    if task in ("conv2d", "depthwise_conv", "conv_block"):
        xx, w = f(x["x"]), f(x["w"])
        kh, kw = w.shape[:2]
        oh, ow = xx.shape[0] - kh + 1, xx.shape[1] - kw + 1
        acc = np.zeros((oh, ow, w.shape[-1]), dtype=F32)
        for i in range(kh):                       # one fp32 accumulation pass per filter tap
            for j in range(kw):
                patch = xx[i:i + oh, j:j + ow]
                acc = f(acc + (patch @ w[i, j] if w.ndim == 4 else patch * w[i, j]))
        y = B(acc)
        if task != "conv_block":
            return {"y": y}
        return {"y": relu(B(B(y * f(x["scale"])) + f(x["shift"])))}
    if task == "rope":
        return {"y": rope(x["x"], x["cos"], x["sin"], d["H"])}
    if task == "ffn":
        h = B(mm(x["x"], f(x["w1"]).T) + f(x["b1"]))
        return {"y": B(mm(gelu(h, exp), f(x["w2"]).T) + f(x["b2"]))}
    if task == "swiglu":
        return {"y": swiglu(x["x"], x["w_gate"], x["w_up"], x["w_down"], exp)}
    if task in ("scaled_dot_product", "flash_attention", "mha", "gqa", "mqa"):
        causal = task in ("flash_attention", "gqa", "mqa")
        block = 64 if task == "flash_attention" else None
        return {"o": attention(x["q"], x["k"], x["v"], d["Hq"], d["Hkv"], 1.0 / np.sqrt(d["D"]),
                               causal, block=block, exp=exp)}
    if task in ("decoder_block_llama", "decoder_block_t5"):
        llama = task == "decoder_block_llama"
        eps = 1e-5 if llama else 1e-6
        h = rms_norm(x["x"], x["attn_norm"], eps)
        q, k, v = (mm(h, f(x[w]).T) for w in ("wq", "wk", "wv"))
        if llama:
            q, k = rope(q, x["cos"], x["sin"], d["H"]), rope(k, x["cos"], x["sin"], d["H"])
            a = attention(q, k, v, d["H"], d["H"], 1.0 / np.sqrt(d["D"]), True, exp=exp)
        else:
            a = attention(q, k, v, d["H"], d["H"], 1.0, True, bias=x["bias"], exp=exp)
        x2 = B(f(x["x"]) + mm(a, f(x["wo"]).T))
        g = rms_norm(x2, x["ffn_norm"], eps)
        ffn = (swiglu(g, x["w_gate"], x["w_up"], x["w_down"], exp) if llama
               else mm(relu(mm(g, f(x["w_in"]).T)), f(x["w_out"]).T))
        return {"y": B(x2 + ffn)}
    raise KeyError(f"no bf16 kernel for task {task!r}")
