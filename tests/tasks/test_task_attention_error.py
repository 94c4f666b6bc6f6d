"""The attention error bound (tasks/level2/attention_error.py) gives the same bits as the
implementation it replaced, kept here as the oracle: the bound decides pass or fail, so
making it faster must not move any value. Random and edge-case inputs of every attention
task and both decoder blocks (causal masks, a bias, errors carried by the inputs)."""
import numpy as np
import pytest

from kernelcraft.tasks import get_task
from kernelcraft.tasks.error_model import FN
from kernelcraft.tasks.level2 import attention_error
from kernelcraft.tasks.tolerance import U

TASKS = ["scaled_dot_product", "flash_attention", "mha", "gqa", "mqa",
         "decoder_block_llama", "decoder_block_t5"]


def oracle_head_bound(qh, kh, vh, scale, causal, bias=None, errs=None):
    """head_bound as it was (64 queries per step, every selection by the mask made)."""
    s_len = qh.shape[0]
    s = scale * (qh @ kh.T)
    a = scale * (np.abs(qh) @ np.abs(kh).T)
    if bias is not None:
        a = a + np.abs(s) + np.abs(bias)
        s = s + bias
    live = np.tri(s_len, kh.shape[0], dtype=bool) if causal else np.ones(s.shape, dtype=bool)
    s = np.where(live, s, -np.inf)
    m = s.max(axis=-1, keepdims=True)
    e = np.where(live, np.exp(s - m), 0.0)
    p = e / e.sum(axis=-1, keepdims=True)
    o = p @ vh
    with np.errstate(invalid="ignore", over="ignore"):
        E = np.where(live, U * (np.abs(s) + a + np.abs(s - m) + 1.0) + FN, 0.0)
        if errs is not None:
            dq, dk, _ = errs
            ds = scale * (dq @ np.abs(kh).T + np.abs(qh) @ dk.T + dq @ dk.T)
            E = E + np.where(live, np.expm1(ds * (1 + U)), 0.0)
    pe = p * E
    weights = np.empty_like(o)
    for i in range(0, s_len, 64):
        dv = np.abs(vh[None, :, :] - o[i:i + 64, None, :])
        weights[i:i + 64] = np.einsum("cj,cjd->cd", pe[i:i + 64], dv, optimize=True)
    out = weights + attention_error.blocks_term(s, p, vh) + FN * (p @ np.abs(vh))
    return out if errs is None else out + p @ errs[2]


def _both(task, inputs, config, monkeypatch):
    new = task.allowance(inputs, config, "o" if task.level == 2 else "y")
    with monkeypatch.context() as m:
        m.setattr(attention_error, "head_bound", oracle_head_bound)
        old = task.allowance(inputs, config, "o" if task.level == 2 else "y")
    return new, old


@pytest.mark.parametrize("name", TASKS)
def test_the_bound_keeps_its_bits(name, monkeypatch):
    task = get_task(name)
    sets = [(f"seed {s}", task.generate(c, s)) for c, s in (("C1", 1), ("C3", 2))]
    sets += [(label, x) for label, x in task.edge_cases("C1", 7)]
    configs = ["C1", "C3"] + ["C1"] * (len(sets) - 2)
    for (label, x), config in zip(sets, configs):
        new, old = _both(task, x, config, monkeypatch)
        assert new.dtype == old.dtype and new.shape == old.shape, label
        assert new.tobytes() == old.tobytes(), f"{name} {config} {label}"


@pytest.mark.slow
def test_the_bound_keeps_its_bits_at_full_size(monkeypatch):
    for name in ("gqa", "flash_attention"):
        task = get_task(name)
        new, old = _both(task, task.generate("C5", 3), "C5", monkeypatch)
        assert new.tobytes() == old.tobytes(), name
