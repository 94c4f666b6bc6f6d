"""Inputs and references of every task and configuration (held-out ones included)."""
import numpy as np
import pytest

from kernelcraft.simulators.numerics import round_bf16
from kernelcraft.tasks import all_tasks, get_task
from kernelcraft.tasks.tolerance import near_constant

CASES = [(t, c) for t in all_tasks() for c in t.configs]
IDS = [f"{t.name}-{c}" for t, c in CASES]
SEEDS = (0, 1, 2)


def check_inputs(task, config, x, what):
    specs = task.inputs(config)
    assert list(x) == [s.name for s in specs], what
    for s in specs:
        a = x[s.name]
        assert a.shape == s.shape and a.dtype == np.float32, f"{what} {s.name}"
        assert np.isfinite(a).all(), f"{what} {s.name} not finite"
        assert np.array_equal(round_bf16(a).view(np.uint32), a.view(np.uint32)), f"{what} {s.name} not bf16"


def check_reference(task, config, x, what):
    ref = task.reference(x, config)
    specs = task.outputs(config)
    assert list(ref) == [s.name for s in specs]
    for s in specs:
        r = ref[s.name]
        assert r.shape == s.shape and r.dtype == np.float64, f"{what} {s.name}"
        assert np.isfinite(r).all(), f"{what} {s.name} not finite"
        assert not near_constant(r), f"{what}: reference {s.name} is near-constant"


@pytest.mark.parametrize("task,config", CASES, ids=IDS)
def test_random_inputs_and_references(task, config):
    draws = [task.generate(config, s) for s in SEEDS]
    for seed, x in zip(SEEDS, draws):
        check_inputs(task, config, x, f"seed {seed}")
        check_reference(task, config, x, f"seed {seed}")
        for name, a in x.items():
            assert np.std(a) > 0, f"seed {seed}: input {name} is constant"
    again = task.generate(config, SEEDS[0])
    for name in again:
        assert np.array_equal(again[name], draws[0][name]), f"{name} differs for the same seed"
        assert not np.array_equal(draws[0][name], draws[1][name]), f"{name} equal across seeds"


@pytest.mark.parametrize("task,config", CASES, ids=IDS)
def test_edge_cases(task, config):
    cases = task.edge_cases(config, 5)
    labels = [label for label, _ in cases]
    assert len(cases) >= 3 and len(set(labels)) == len(labels)
    for label, x in cases:
        check_inputs(task, config, x, f"edge case {label}")
        check_reference(task, config, x, f"edge case {label}")
    again = task.edge_cases(config, 5)
    for (_, a), (_, b) in zip(cases, again):
        assert all(np.array_equal(a[k], b[k]) for k in a), "edge cases must be deterministic per edge seed"
    other = task.edge_cases(config, 6)
    assert [label for label, _ in other] == labels, "edge-case families keep their names across seeds"
    for (label, a), (_, b) in zip(cases, other):
        assert any(not np.array_equal(a[k], b[k]) for k in a), f"{label}: same inputs for two edge seeds"


def row_stats(x):
    return x.mean(axis=-1), x.std(axis=-1)


@pytest.mark.parametrize("name", ["layer_norm", "rms_norm", "softmax"])
def test_row_statistics_are_not_trivial(name):
    """Norm and softmax inputs: rows with their own non-zero mean and non-unit spread."""
    task = get_task(name)
    for seed in SEEDS:
        x = task.generate("C3", seed)
        mean, std = row_stats(x["x"])
        assert np.abs(mean).max() > 0.2 and np.abs(std - 1).max() > 0.2
        assert np.ptp(mean) > 0.2 and np.ptp(std) > 0.2
        if "gamma" in x:
            assert np.abs(x["gamma"] - 1).max() > 0.1
        if "beta" in x:
            assert np.abs(x["beta"]).max() > 0.1


def test_rope_tables_describe_positions():
    """cos/sin rows are consecutive positions, halves equal, in the documented angles."""
    task = get_task("rope")
    d = task.dims("C3")
    x = task.generate("C3", 4)
    cos, sin = x["cos"].astype(np.float64), x["sin"].astype(np.float64)
    half = d["D"] // 2
    assert np.array_equal(cos[:, :half], cos[:, half:]) and np.array_equal(sin[:, :half], sin[:, half:])
    angle0 = np.arctan2(sin[:, 0], cos[:, 0])                 # frequency 1: angle = position
    step = np.angle(np.exp(1j * (angle0[1:] - angle0[:-1])))
    assert np.allclose(step, 1.0, atol=0.02)


def test_reference_rejects_wrong_inputs():
    task = get_task("gemm")
    x = task.generate("C1", 0)
    with pytest.raises(KeyError, match="input 'b' missing"):
        task.reference({"a": x["a"]}, "C1")
    with pytest.raises(ValueError, match=r"input 'a' has shape \(64, 65\), expected \(64, 64\)"):
        task.reference({"a": np.zeros((64, 65)), "b": x["b"]}, "C1")


def test_reference_rejects_bit_patterns():
    task = get_task("relu")
    with pytest.raises(TypeError, match="uint16.*bf16_bits_to_f32"):
        task.reference({"x": np.zeros((4, 64), dtype=np.uint16)}, "C1")


def test_inconsistent_task_definitions_are_reported():
    from kernelcraft.tasks.core import Ops, Task, TaskDefinitionError, TensorSpec

    class Broken(Task):
        name, level, title, description = "broken", 1, "broken", "a task that lies about its shapes"
        configs = {"C1": {"n": 4}}

        def specs_in(self, d):
            return [TensorSpec("x", (d["n"],))]

        def specs_out(self, d):
            return [TensorSpec("y", (d["n"],))]

        def make(self, d, rng):
            return {"x": np.ones(d["n"] + 1)}

        def compute(self, x, d):
            return {"y": np.ones(2)}

        def ops(self, d):
            return Ops()

    with pytest.raises(TaskDefinitionError, match=r"input 'x' has shape \(5,\), declared \(4,\)"):
        Broken().generate("C1", 0)
    with pytest.raises(TaskDefinitionError, match=r"reference gives \(2,\) for output 'y'"):
        Broken().reference({"x": np.ones(4)}, "C1")
