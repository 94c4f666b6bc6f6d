"""The tolerance policy against kernels: correct bf16 kernels pass everywhere (random
inputs and every edge case), and the classic mistakes fail."""
import numpy as np
import pytest

from simulators import numerics as nx
from tasks import all_tasks, bf16_kernels as K, get_task
from tasks.tolerance import compare

CASES = [(t, c) for t in all_tasks() for c in t.configs]
IDS = [f"{t.name}-{c}" for t, c in CASES]
B, f, F32 = K.B, K.f, np.float32


def verdicts(task, config, kernel, x) -> list:
    ref = task.reference(x, config)
    got = kernel(x, task.dims(config))
    return [compare(got[s.name], ref[s.name], s.dtype) for s in task.outputs(config)]


@pytest.mark.parametrize("task,config", CASES, ids=IDS)
def test_correct_bf16_kernel_passes(task, config):
    cases = [("seed 11", task.generate(config, 11))] + task.edge_cases(config)
    for label, x in cases:
        for c in verdicts(task, config, lambda x, d: K.run(task.name, x, d), x):
            assert c.passed, f"{label}: {c.summary()} first mismatches {c.first_mismatches[:3]}"


def fails_somewhere(name: str, kernel, configs=None, edge: str | None = None) -> bool:
    """True if `kernel` fails on at least one configuration (edge case `edge`, else seed 0)."""
    task = get_task(name)
    for config in configs or task.configs:
        cases = dict(task.edge_cases(config)) if edge else {"seed 0": task.generate(config, 0)}
        x = cases[edge] if edge else cases["seed 0"]
        if not all(c.passed for c in verdicts(task, config, kernel, x)):
            return True
    return False


def fails_everywhere(name: str, kernel, edge: str | None = None) -> bool:
    task = get_task(name)
    return all(fails_somewhere(name, kernel, [c], edge) for c in task.configs)


def softmax_without_max(x, d):
    e = B(nx.exp(f(x["x"])))
    return {"y": B(e * nx.reciprocal(e.sum(axis=-1, keepdims=True, dtype=F32)))}


def sigmoid_as_ratio(x, d):
    e = B(nx.exp(f(x["x"])))
    return {"y": B(f(x["x"]) * B(e * nx.reciprocal(B(e + F32(1)))))}


def attention_with(causal=None, scale=None):
    def kernel(x, d):
        task_causal = causal if causal is not None else False
        s = scale if scale is not None else 1 / np.sqrt(d["D"])
        return {"o": K.attention(x["q"], x["k"], x["v"], d["Hq"], d["Hkv"], s, task_causal)}
    return kernel


def rope_interleaved(x, d):
    s, width = x["x"].shape
    xh = f(x["x"]).reshape(s, -1, 2)                     # pairs (2i, 2i+1) instead of (i, i + D/2)
    rot = np.stack([-xh[..., 1], xh[..., 0]], axis=-1).reshape(s, width)
    heads = width // d["D"]
    cos, sin = np.tile(f(x["cos"]), heads), np.tile(f(x["sin"]), heads)
    return {"y": B(B(f(x["x"]) * cos) + B(rot * sin))}


def gemm_bf16_accumulation(x, d):
    a, b = f(x["a"]), f(x["b"])
    acc = np.zeros((a.shape[0], b.shape[1]), F32)
    for k in range(a.shape[1]):
        acc = B(acc + np.outer(a[:, k], b[k]))
    return {"c": acc}


def test_softmax_without_max_subtraction_fails():
    assert fails_everywhere("softmax", softmax_without_max, edge="large_logits")


def test_sigmoid_as_exp_ratio_fails():
    for name in ("silu",):
        assert fails_everywhere(name, sigmoid_as_ratio, edge="exp_range_boundary")


def test_norms_without_eps_fail():
    ln = lambda x, d: {"y": K.layer_norm(x["x"], x["gamma"], x["beta"], 0.0)}  # noqa: E731
    rms = lambda x, d: {"y": K.rms_norm(x["x"], x["gamma"], 0.0)}                # noqa: E731
    assert fails_everywhere("layer_norm", ln, edge="tiny_variance")
    assert fails_everywhere("rms_norm", rms, edge="tiny_scale")
    wrong_eps = lambda x, d: {"y": K.rms_norm(x["x"], x["gamma"], 1e-5)}       # noqa: E731
    assert fails_everywhere("rms_norm", wrong_eps, edge="tiny_scale")


def test_attention_mistakes_fail():
    for name in ("flash_attention", "gqa", "mqa"):
        assert fails_everywhere(name, attention_with(causal=False)), f"{name} without the mask"
    for name in ("scaled_dot_product", "mha"):
        assert fails_everywhere(name, attention_with(scale=1.0)), f"{name} without 1/sqrt(D)"
        assert fails_everywhere(name, attention_with(causal=True)), f"{name} with a mask"


def test_rope_interleaved_convention_fails():
    assert fails_everywhere("rope", rope_interleaved)


def test_gemm_accumulating_in_bf16_fails_on_long_sums():
    for config in ("C3", "C4", "C5", "H1"):                # K >= 256
        assert fails_somewhere("gemm", gemm_bf16_accumulation, [config])
