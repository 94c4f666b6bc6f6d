"""The checks of the edge families that read a kernel's exps back (tasks/exp_bias.py):
`many_keys` (tasks/level2/weight_bias.py), the attention weights, and `many_units`
(tasks/level2/activation_bias.py), the MLP activations; whether their errors depend on the
fraction of exp's argument."""
import numpy as np
import pytest

from kernelcraft.tasks import get_task
from kernelcraft.tasks import ops
from kernelcraft.tasks.exp_bias import phase_margin
from kernelcraft.tasks.level2 import activation_bias as AB, weight_bias as WB
from kernelcraft.tasks.tolerance import U

TASKS = ["scaled_dot_product", "flash_attention", "gqa"]      # plain, causal, shared heads


def family(name: str, config: str = "C1", seed: int = 2):
    task = get_task(name)
    x = dict(task.edge_cases(config, seed))["many_keys"]
    return task, x, task.dims(config), task.reference(x, config)["o"]


def weights(task, x, d):
    """(query, key column) -> exact weight, and each key's fraction of s log2(e)."""
    s, hq, hkv, dh = d["S"], d["Hq"], d["Hkv"], d["D"]
    q, k = x["q"].reshape(s, hq, dh).astype(float), x["k"].reshape(s, hkv, dh).astype(float)
    sc = np.einsum("ihd,jhd->hij", q, np.repeat(k, hq // hkv, axis=1)) / np.sqrt(dh)
    if task.causal:
        sc = np.where(np.tril(np.ones((s, s), bool)), sc, -np.inf)
    return sc - sc.max(axis=-1, keepdims=True)


def with_error(task, x, d, o, fn):
    """`o` with each readable key's column scaled by (1 + fn(fraction of (s - max) log2 e))."""
    s, hq, hkv, dh = d["S"], d["Hq"], d["Hkv"], d["D"]
    rel = weights(task, x, d)
    v = x["v"].reshape(s, hkv, dh).astype(float)
    out = o.reshape(s, hq, dh).copy()
    for h in range(hq):
        vg = v[:, h // (hq // hkv)]
        for j in np.flatnonzero((np.count_nonzero(vg, axis=1) == 1) & (vg.max(axis=1) == 1)):
            c = vg[j].argmax()
            t = rel[h, :, j] / np.log(2.0)
            live = np.isfinite(t) & (rel[h, :, j] > -10)
            out[live, h, c] *= 1 + fn(t[live] - np.floor(t[live]))
    return out.reshape(o.shape)


@pytest.mark.parametrize("name", TASKS)
def test_the_reference_reads_back_exactly_and_a_query_wide_error_cancels(name):
    task, x, d, o = family(name)
    r, sc = WB.log_errors(x, d, o, task.causal)
    assert r.size >= 4 * WB.MIN_KEYS and np.abs(r).max() < 1e-6
    assert (sc <= 0).all() and (sc > -10).all()
    # every query's weights off by its own factor (a normalisation error) is no bias
    rng = np.random.default_rng(0)
    scaled = o * (1 + 3 * U * rng.standard_normal((o.shape[0], 1)))
    assert WB.score_margin(x, d, scaled, task.causal)[0] < 0.05


@pytest.mark.parametrize("name", TASKS)
def test_random_roundings_pass_and_an_error_that_depends_on_f_fails(name):
    task, x, d, o = family(name)
    rng = np.random.default_rng(1)
    noisy = with_error(task, x, d, o, lambda f: U * rng.uniform(-1, 1, f.shape))
    assert WB.score_margin(x, d, noisy, task.causal)[0] < 0.5
    # the degree-3 Taylor polynomial's error shape: 0 at f = 0, -0.56% as f -> 1
    taylor = with_error(task, x, d, o, lambda f: -0.0056 * f ** 4)
    margin, why = WB.score_margin(x, d, taylor, task.causal)
    assert margin > 1.5 and "[0.75, 1.00)" in why, why
    assert task.family_margin("many_keys", x, "C1", {"o": taylor})[0] == margin


def test_outputs_that_cannot_be_weights_fail_and_other_families_have_no_check():
    task, x, d, o = family("scaled_dot_product")
    assert WB.score_margin(x, d, np.zeros_like(o), False)[0] == np.inf
    assert task.family_margin("two_keys", x, "C1", {"o": o}) is None
    # inputs without the family's structure: nothing to read, nothing judged
    y = task.generate("C1", 0)
    assert WB.score_margin(y, d, task.reference(y, "C1")["o"], False) == (0.0, "")


def test_the_prompt_states_the_check():
    text = get_task("mha").correctness("C1")
    assert "many_keys" in text and f"{WB.LIMIT / U:.2f}u" in text


def test_a_smooth_error_is_no_bias_a_periodic_one_is():
    """A constant of the chain rounded once errs in proportion to the argument: taken out as
    a straight line. An error periodic in the fraction of a log2(e) is not."""
    rng = np.random.default_rng(3)
    a = rng.uniform(0.0, 4.0, 4000)
    f = a / np.log(2.0) % 1.0
    assert phase_margin(0.8 * a + rng.uniform(-1, 1, a.size), a, 0.3, "x")[0] < 0.5
    margin, why = phase_margin(-2.0 * f ** 4 + rng.uniform(-1, 1, a.size), a, 0.3, "x")
    assert margin > 2 and why.startswith("x err by")


@pytest.mark.parametrize("name,act", [("ffn", "gelu"), ("swiglu", "silu")])
def test_mlp_activations_read_back_and_an_error_that_depends_on_f_fails(name, act):
    task = get_task(name)
    x = dict(task.edge_cases("C1", 4))["many_units"]
    d, y = task.dims("C1"), task.reference(x, "C1")["y"]
    assert task.family_margin("many_units", x, "C1", {"y": y})[0] < 1e-6
    pre_w = x["w1"] if name == "ffn" else np.column_stack([x["w_gate"], x["w_up"]])
    down = x["w2" if name == "ffn" else "w_down"]
    unit, out, m = AB.read_pairs(pre_w, down)
    assert unit.size == d["Dm"] and sorted(out) == list(range(d["Dm"]))      # every column reads a pair
    pre = x["x"].astype(float) @ x["w1" if name == "ffn" else "w_gate"][unit].T.astype(float)
    arg = -ops.GELU_C1 * (pre + ops.GELU_C2 * pre ** 3) if act == "gelu" else -pre
    want = ops.gelu(pre) if act == "gelu" else ops.silu(pre)
    up = x["x"].astype(float) @ x["w_up"][unit].T.astype(float) if name == "swiglu" else 1.0
    assert np.allclose(y[:, out] / m / up, want, rtol=1e-9, atol=0)
    # exp up to 1.5% high in mid-range (a fix-up's shape), damped by sigmoid(-t) < 1 as it reaches y
    f = arg / np.log(2.0) % 1.0
    wrong = y.copy()
    wrong[:, out] *= 1 - 0.015 * 4 * f * (1 - f) * np.where(want != 0, 1 - ops.sigmoid(-arg), 0)
    margin, why = task.family_margin("many_units", x, "C1", {"y": wrong})
    assert margin > 1 and "activations read back from y" in why, why
    assert task.family_margin("coherent_hidden", x, "C1", {"y": y}) is None


@pytest.mark.parametrize("name,down", [("ffn", "w2"), ("swiglu", "w_down"), ("decoder_block_llama", "w_down")])
@pytest.mark.parametrize("family", ["many_units", "units_near_zero"])
def test_the_read_back_down_projection_looks_like_a_random_one(name, down, family):
    """The read-back families' down projection is no identity and has no zero: every entry is
    drawn like a random draw's, and no column's size or largest entry stands out; what marks
    the family is that the hidden units come in pairs (tasks/README.md, what is not guaranteed)."""
    task = get_task(name)
    for config in ("C1", "H1"):
        w = dict(task.edge_cases(config, 3))[family][down].astype(float)
        ref = task.generate(config, 3)[down].astype(float)
        assert (w != 0).all()
        assert 0.85 < w.std() / ref.std() < 1.25
        col, ref_col = np.linalg.norm(w, axis=0), np.linalg.norm(ref, axis=0)
        assert col.max() / ref_col.max() < 1.3 and col.min() / ref_col.min() > 0.75
        peak = np.abs(w).max(axis=0) / col                 # no column dominated by one entry
        ref_peak = np.abs(ref).max(axis=0) / ref_col
        assert peak.max() < 1.3 * ref_peak.max()


def test_the_llama_block_reads_its_activations_back_where_x_is_zero():
    task = get_task("decoder_block_llama")
    x = dict(task.edge_cases("C1", 4))["many_units"]
    y = task.reference(x, "C1")["y"]
    assert task.family_margin("many_units", x, "C1", {"y": y})[0] < 1e-6
    readable = (x["x"] == 0).all(axis=0)               # the units' own columns
    assert readable.sum() == task.dims("C1")["Dm"] // 2
    _, out, m = AB.read_pairs(np.column_stack([x["w_gate"], x["w_up"]]), x["w_down"])
    assert readable[out].all() and out.size == readable.sum()
    assert np.allclose(y[:, ~readable], x["x"][:, ~readable].astype(float), rtol=0, atol=1e-12)  # the rest is x
    # every activation 1% low where the fraction of exp's argument is in [0.5, 1): caught
    wrong = y.copy()
    unit, out, m = AB.read_pairs(np.column_stack([x["w_gate"], x["w_up"]]), x["w_down"])
    pre = (x["x"].astype(float) / np.sqrt(1 + task.eps)) @ x["w_gate"][unit].T.astype(float)
    frac = (-pre / np.log(2.0)) % 1.0
    wrong[:, out] *= np.where(frac >= 0.5, 0.99, 1.0)
    assert task.family_margin("many_units", x, "C1", {"y": wrong})[0] > 1


def test_the_t5_block_reads_its_attention_weights_back_where_x_is_zero():
    """`many_keys` inside decoder_block_t5: the reference's y in the hot keys' value columns
    is their weights (the check finds nothing there); a degree-3 Taylor exp's bias fails
    it; without the identity output projection or with the FFN's on there is nothing to read."""
    from kernelcraft.tasks.bf16_kernels import run
    from kernelcraft.tasks.wrong_variants import _deep_exps
    task = get_task("decoder_block_t5")
    x = dict(task.edge_cases("C1", 4))["many_keys"]
    d = task.dims("C1")
    y = task.reference(x, "C1")["y"]
    assert task.family_margin("many_keys", x, "C1", {"y": y})[0] < 1e-3
    hx = x["x"] * x["attn_norm"]
    v = hx @ x["wv"].T
    assert set(np.unique(v)) == {0.0, 1.0}                    # one-hot values of the hot keys
    assert ((x["x"] != 0) & (v.any(axis=0))[None, :]).sum() <= d["S"]   # x is 0 there but its own 1s
    assert task.family_margin("many_keys", x, "C1", run(task.name, x, d))[0] < 0.6
    taylor = dict(_deep_exps(task.name))["exp_taylor3"]
    margin, why = task.family_margin("many_keys", x, "C1", taylor(x, d))
    assert margin > 1.2 and "weights read back from y" in why, why
    assert task.family_margin("two_keys", x, "C1", {"y": y}) is None
    assert task.family_margin("many_keys", {**x, "w_out": x["w_out"] + 1}, "C1", {"y": y}) is None
    assert task.family_margin("many_keys", {**x, "wo": 2 * x["wo"]}, "C1", {"y": y}) is None
    assert "many_keys" in task.correctness("C1")


def test_a_step_where_the_argument_crosses_zero_fails_a_smooth_error_does_not():
    from kernelcraft.tasks.exp_bias import EDGE, FLOOR, wrap_margin
    rng = np.random.default_rng(5)
    a = rng.uniform(-0.1, 0.1, 4000)
    # a constant of the chain rounded once (GELU's sqrt(2/pi) in bf16: 0.17u per unit of a) moves it little
    assert wrap_margin(a + rng.uniform(-1, 1, a.size), a, 0.3, "x")[0] < 0.5
    margin, why = wrap_margin(np.where(a < 0, 0.5, 0.0) + rng.uniform(-1, 1, a.size), a, 0.3, "x")
    assert margin > 1.4 and why.startswith("x err by +0.") and "(-5/64, -1/512]" in why, why
    # too few elements in a window: nothing judged
    far = np.abs(a) >= EDGE
    assert wrap_margin(np.where(a < 0, 1.0, 0.0)[far], a[far], 0.3, "x") == (0.0, "")


@pytest.mark.parametrize("name", ["ffn", "swiglu", "decoder_block_llama"])
@pytest.mark.parametrize("config", ["C1", "H1"])
def test_units_near_zero_pass_a_correct_kernel_and_fail_the_taylor_exp(name, config):
    """`units_near_zero`: the reference reads back exactly, the emulated bf16 kernel passes,
    the degree-3 Taylor exp (0.56% low as f -> 1, exact at f = 0) fails by its step at a = 0;
    without the family's structure there is nothing to read."""
    from kernelcraft.tasks.bf16_kernels import run
    from kernelcraft.tasks.wrong_variants import exp_taylor3
    task = get_task(name)
    x = dict(task.edge_cases(config, 6))["units_near_zero"]
    d = task.dims(config)
    assert task.family_margin("units_near_zero", x, config, task.reference(x, config))[0] < 1e-3
    assert task.family_margin("units_near_zero", x, config, run(name, x, d))[0] < 0.8
    margin, why = task.family_margin("units_near_zero", x, config, run(name, x, d, exp=exp_taylor3))
    assert margin > 1.5 and "exp jumps where its argument crosses 0" in why, why
    other = {"ffn": "b1", "swiglu": "w_down", "decoder_block_llama": "wo"}[name]
    assert task.family_margin("units_near_zero", {**x, other: x[other] + 1}, config, run(name, x, d)) is None
    assert "units_near_zero" in task.correctness(config)


def test_a_pre_activation_that_cancels_to_zero_is_not_read():
    """A gate pre-activation whose sum cancels exactly (aie's LLaMA block drew one on
    `many_units`: float64 gives -5e-17, the kernel's silu 0) tells nothing about exp; the
    read-back skips exp arguments within FLOOR of 0 rather than failing the kernel."""
    from kernelcraft.tasks.exp_bias import FLOOR
    pre = np.array([-1.0, -0.5, -2.7755575615628914e-17, -FLOOR / 2, -FLOOR])
    y = ops.silu(pre)
    y[2:4] = 0.0
    err, arg = AB.log_errors(pre, y, "silu")
    assert np.array_equal(arg, [1.0, 0.5, FLOOR]) and np.abs(err).max() < 1e-9
