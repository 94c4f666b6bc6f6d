"""References against independent formulations: explicit loops, scalar math, hand cases."""
import math

import numpy as np
import pytest

from kernelcraft.tasks import get_task, ops, sampling


def inputs(name, config, seed=3):
    t = get_task(name)
    x = t.generate(config, seed)
    return t, {k: v.astype(np.float64) for k, v in x.items()}, t.dims(config)


# ---- hand-computed cases -------------------------------------------------------------

def test_layer_norm_hand_case():
    # row [1, 2, 3, 4]: mean 2.5, population variance 1.25
    x = np.array([[1.0, 2.0, 3.0, 4.0], [2.0, 2.0, 2.0, 2.0]])
    gamma, beta = np.array([1.0, 2.0, 0.5, 1.0]), np.array([0.0, 1.0, 0.0, -1.0])
    y = ops.layer_norm(x[:1], gamma, beta, eps=0.0)
    s = 1 / math.sqrt(1.25)
    assert np.allclose(y[0], [-1.5 * s, 2 * -0.5 * s + 1, 0.5 * 0.5 * s, 1.5 * s - 1])
    assert np.allclose(ops.layer_norm(x, gamma, beta, eps=1e-5)[1], beta)   # constant row -> beta
    # eps sits inside the square root
    y = ops.layer_norm(np.array([[0.0, 0.002]]), np.ones(2), np.zeros(2), eps=1e-6)
    assert np.allclose(y, [[-0.001 / math.sqrt(1e-6 + 1e-6), 0.001 / math.sqrt(2e-6)]])


def test_rms_norm_and_softmax_hand_cases():
    y = ops.rms_norm(np.array([[3.0, 4.0]]), np.array([1.0, 2.0]), eps=0.0)
    r = math.sqrt(12.5)
    assert np.allclose(y, [[3 / r, 8 / r]])
    p = ops.softmax(np.array([[0.0, math.log(2), math.log(5)], [1000.0, 1000.0, -1000.0]]))
    assert np.allclose(p, [[1 / 8, 2 / 8, 5 / 8], [0.5, 0.5, 0.0]])


def test_activations_against_scalar_math():
    xs = [-30.0, -3.0, -1e-3, 0.0, 0.5, 2.0, 7.0, 100.0]
    for x in xs:
        assert ops.silu(np.array(x)) == pytest.approx(x / (1 + math.exp(-x)), rel=1e-12, abs=1e-300)
        tanh_form = 0.5 * x * (1 + math.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
        assert ops.gelu(np.array(x)) == pytest.approx(tanh_form, rel=1e-12, abs=1e-300)
    assert np.array_equal(ops.relu(np.array([-1.0, 0.0, 2.0])), [0.0, 0.0, 2.0])


def test_t5_buckets():
    """Unidirectional T5 buckets: exact below 16 steps back, logarithmic up to 128, the
    last bucket beyond, keys ahead in bucket 0 (16 + int(log(n/16) / log(8) * 16))."""
    b = sampling.t5_buckets(300)
    assert b[10, 12] == 0 and b[10, 10] == 0
    assert b[10, 0] == 10 and b[20, 5] == 15
    assert [b[n, 0] for n in (16, 32, 64, 100, 127, 128, 299)] == [16, 21, 26, 30, 31, 31, 31]
    assert np.all(np.diff(b[299, ::-1]) >= 0)              # never decreasing with distance
    bias = sampling.t5_position_bias(np.random.default_rng(0), 3, 300)
    for h in range(3):                                     # one value per (bucket, head)
        for bucket in range(32):
            assert np.ptp(bias[h][b == bucket]) == 0


# ---- explicit loops --------------------------------------------------------------------

def loop_attention(q, k, v, hq, hkv, scale, causal, bias=None):
    s, d = q.shape[0], q.shape[1] // hq
    out = np.zeros_like(q)
    for h in range(hq):
        g = h * hkv // hq
        for i in range(s):
            keys = range(i + 1) if causal else range(s)
            scores = [scale * sum(q[i, h * d + c] * k[j, g * d + c] for c in range(d))
                      + (bias[h, i, j] if bias is not None else 0.0) for j in keys]
            m = max(scores)
            w = [math.exp(sc - m) for sc in scores]
            total = sum(w)
            for c in range(d):
                out[i, h * d + c] = sum(wj * v[j, g * d + c] for wj, j in zip(w, keys)) / total
    return out


@pytest.mark.parametrize("name,config", [("scaled_dot_product", "C1"), ("gqa", "C1"), ("mqa", "C1"),
                                         ("mha", "C2")])
def test_attention_against_loops(name, config):
    t, x, d = inputs(name, config)
    if name in ("mha",):                             # keep the pure-Python loops quick
        s = 24
        x = {k: v[:s] for k, v in x.items()}
        d = {**d, "S": s}
        ref = ops.attention(x["q"], x["k"], x["v"], d["Hq"], d["Hkv"], 1 / math.sqrt(d["D"]), False)
    else:
        ref = t.reference(x, config)["o"]
    causal = name in ("gqa", "mqa")
    want = loop_attention(x["q"], x["k"], x["v"], d["Hq"], d["Hkv"], 1 / math.sqrt(d["D"]), causal)
    assert np.allclose(ref, want, rtol=1e-10, atol=1e-12)


def test_flash_attention_is_causal_single_head():
    t, x, d = inputs("flash_attention", "C1")
    o = t.reference(x, "C1")["o"]
    assert np.allclose(o[0], x["v"][0])                   # the first query sees only itself
    s = 40
    want = loop_attention(x["q"][:s], x["k"][:s], x["v"][:s], 1, 1, 1 / 8, True)
    assert np.allclose(o[:s], want, rtol=1e-10, atol=1e-12)   # causal rows ignore later keys


def loop_conv(x, w):
    kh, kw = w.shape[:2]
    oh, ow = x.shape[0] - kh + 1, x.shape[1] - kw + 1
    y = np.zeros((oh, ow, w.shape[-1]))
    for i in range(oh):
        for j in range(ow):
            patch = x[i:i + kh, j:j + kw]                  # [KH, KW, Cin]
            if w.ndim == 4:
                for co in range(w.shape[-1]):
                    y[i, j, co] = np.sum(patch * w[..., co])
            else:
                y[i, j] = np.sum(patch * w, axis=(0, 1))
    return y


@pytest.mark.parametrize("name", ["conv2d", "depthwise_conv"])
def test_convolutions_against_loops(name):
    t, x, _ = inputs(name, "H1")
    assert np.allclose(t.reference(x, "H1")["y"], loop_conv(x["x"], x["w"]), rtol=1e-10, atol=1e-10)


def test_conv_block_against_loops():
    t, x, _ = inputs("conv_block", "C1")
    want = np.maximum(loop_conv(x["x"], x["w"]) * x["scale"] + x["shift"], 0.0)
    y = t.reference(x, "C1")["y"]
    assert np.allclose(y, want, rtol=1e-10, atol=1e-10)
    assert 0.2 < np.mean(y == 0) < 0.8                      # ReLU active, but not everywhere


def complex_rope(x, cos, sin, heads):
    """Rotate-half RoPE as a complex rotation of the pairs (i, i + D/2)."""
    s, width = x.shape
    d = width // heads
    out = np.empty_like(x)
    angle = np.arctan2(sin[:, : d // 2], cos[:, : d // 2])
    mag = np.hypot(sin[:, : d // 2], cos[:, : d // 2])     # bf16 tables are not exactly unit
    for h in range(heads):
        z = (x[:, h * d: h * d + d // 2] + 1j * x[:, h * d + d // 2: (h + 1) * d]) * mag * np.exp(1j * angle)
        out[:, h * d: h * d + d // 2], out[:, h * d + d // 2: (h + 1) * d] = z.real, z.imag
    return out


def test_rope_against_complex_rotation():
    t, x, d = inputs("rope", "H1")
    want = complex_rope(x["x"], x["cos"], x["sin"], d["H"])
    assert np.allclose(t.reference(x, "H1")["y"], want, rtol=1e-9, atol=1e-9)


def test_matmul_family_against_loops():
    t, x, d = inputs("gemv", "C1")
    assert np.allclose(t.reference(x, "C1")["y"], [sum(x["a"][m] * x["x"]) for m in range(d["M"])])
    t, x, _ = inputs("linear", "C1")
    want = np.array([[x["x"][m] @ x["w"][n] + x["b"][n] for n in range(64)] for m in range(64)])
    assert np.allclose(t.reference(x, "C1")["y"], want)
    t, x, d = inputs("batch_matmul", "C1")
    c = t.reference(x, "C1")["c"]
    for i in range(d["B"]):
        assert np.allclose(c[i], x["a"][i] @ x["b"][i])
        assert not np.allclose(c[i], x["a"][1 - i] @ x["b"][i])


def rms_rows(z, g, eps):
    return np.array([row / math.sqrt(sum(row * row) / len(row) + eps) for row in z]) * g


def test_llama_block_step_by_step():
    t, x, d = inputs("decoder_block_llama", "C1")
    h = rms_rows(x["x"], x["attn_norm"], 1e-5)
    q = complex_rope(h @ x["wq"].T, x["cos"], x["sin"], d["H"])
    k = complex_rope(h @ x["wk"].T, x["cos"], x["sin"], d["H"])
    s = 12                                               # the first rows only need the first keys
    a = loop_attention(q[:s], k[:s], (h @ x["wv"].T)[:s], d["H"], d["H"], 1 / math.sqrt(d["D"]), True)
    x2 = x["x"][:s] + a @ x["wo"].T
    g = rms_rows(x2, x["ffn_norm"], 1e-5)
    gate = g @ x["w_gate"].T
    y = x2 + ((gate / (1 + np.exp(-gate))) * (g @ x["w_up"].T)) @ x["w_down"].T
    assert np.allclose(t.reference(x, "C1")["y"][:s], y, rtol=1e-9, atol=1e-9)


def test_t5_block_step_by_step():
    t, x, d = inputs("decoder_block_t5", "C1")
    h = rms_rows(x["x"], x["attn_norm"], 1e-6)
    s = 12
    q, k, v = (h[:s] @ x[w].T for w in ("wq", "wk", "wv"))
    a = loop_attention(q, k, v, d["H"], d["H"], 1.0, True, bias=x["bias"])
    x2 = x["x"][:s] + a @ x["wo"].T
    g = rms_rows(x2, x["ffn_norm"], 1e-6)
    y = x2 + np.maximum(g @ x["w_in"].T, 0) @ x["w_out"].T
    assert np.allclose(t.reference(x, "C1")["y"][:s], y, rtol=1e-9, atol=1e-9)


def test_mlps_against_formulas():
    t, x, _ = inputs("ffn", "C1")
    z = x["x"] @ x["w1"].T + x["b1"]
    gz = 0.5 * z * (1 + np.tanh(math.sqrt(2 / math.pi) * (z + 0.044715 * z ** 3)))
    assert np.allclose(t.reference(x, "C1")["y"], gz @ x["w2"].T + x["b2"], rtol=1e-10, atol=1e-10)
    t, x, _ = inputs("swiglu", "C1")
    gate = x["x"] @ x["w_gate"].T
    want = (gate / (1 + np.exp(-gate)) * (x["x"] @ x["w_up"].T)) @ x["w_down"].T
    assert np.allclose(t.reference(x, "C1")["y"], want, rtol=1e-10, atol=1e-10)
