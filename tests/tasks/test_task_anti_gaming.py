"""Shortcuts never pass: zeros, a constant, or a copy of an input, on every task,
configuration and seed; the bf16-rounded reference always passes."""
import numpy as np
import pytest

from kernelcraft.simulators.numerics import round_bf16
from kernelcraft.tasks import all_tasks
from kernelcraft.tasks.tolerance import compare

CASES = [(t, c) for t in all_tasks() for c in t.configs]
IDS = [f"{t.name}-{c}" for t, c in CASES]
SEEDS = (0, 1, 2)


def shortcuts(x: dict, r: np.ndarray):
    yield "zeros", np.zeros_like(r)
    yield "constant", np.full_like(r, r.mean())
    for name, a in x.items():
        if a.size == r.size:
            yield f"copy of {name}", a.reshape(r.shape)


def check(task, config, x, what):
    ref = task.reference(x, config)
    for spec in task.outputs(config):
        r = ref[spec.name]
        tol, allow = task.tolerance(config, spec.name), task.allowance(x, config, spec.name)
        assert compare(round_bf16(r), r, tol, allow).passed, f"{what}: rounded reference fails"
        for label, fake in shortcuts(x, r):
            assert not compare(fake, r, tol, allow).passed, f"{what}: {label} passes as {spec.name}"


@pytest.mark.parametrize("task,config", CASES, ids=IDS)
def test_shortcuts_fail_on_random_inputs(task, config):
    for seed in SEEDS:
        check(task, config, task.generate(config, seed), f"seed {seed}")


@pytest.mark.parametrize("task,config", CASES, ids=IDS)
def test_shortcuts_fail_on_edge_cases(task, config):
    for seed in (0, 1):
        for label, x in task.edge_cases(config, seed):
            check(task, config, x, f"edge case {label} (edge seed {seed})")


def test_some_inputs_match_an_output_in_size():
    """The copy check is not vacuous: many tasks have inputs of an output's size."""
    same = [t.name for t, c in CASES if c == "C1" and any(
        i.size == o.size for i in t.inputs(c) for o in t.outputs(c))]
    assert len(same) >= 15, same
