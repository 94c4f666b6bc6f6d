"""The suite's shape: names, levels, configurations and their size rules."""
import math

import pytest

from kernelcraft.tasks import LEVEL_BUDGET, all_tasks, get_task
from kernelcraft.tasks.core import DTYPES

SUITE = {
    1: ["silu", "relu", "gelu", "softmax", "layer_norm", "rms_norm", "gemv", "gemm",
        "batch_matmul", "linear", "conv2d", "depthwise_conv"],
    2: ["rope", "ffn", "swiglu", "scaled_dot_product", "flash_attention", "mha", "gqa", "mqa"],
    3: ["conv_block", "decoder_block_llama", "decoder_block_t5"],
}
TASKS = all_tasks()


def test_suite_order_levels_and_budgets():
    assert [t.name for t in TASKS] == SUITE[1] + SUITE[2] + SUITE[3]
    for level, names in SUITE.items():
        assert [t.name for t in all_tasks(level)] == names
        assert all(t.level == level for t in all_tasks(level))
    assert LEVEL_BUDGET == {1: 15, 2: 20, 3: 25}


def test_unknown_names_are_clear_errors():
    with pytest.raises(KeyError, match="no task 'softmaxx'.*softmax"):
        get_task("softmaxx")
    with pytest.raises(ValueError, match="no level 4"):
        all_tasks(4)
    with pytest.raises(KeyError, match="no configuration 'C9'.*C1, C2"):
        get_task("gemm").inputs("C9")


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_configs_visible_and_held_out(task):
    assert task.visible_configs() == ["C1", "C2", "C3", "C4", "C5"]
    held = task.held_out_configs()
    assert held and all(c.startswith("H") for c in held)
    assert set(task.configs) == set(task.visible_configs()) | set(held)
    for c in held:
        assert task.configs[c] not in [task.configs[v] for v in task.visible_configs()]


def total_work(task, config) -> int:
    w = task.work(config)
    return w.macs + w.vector_elems + w.special_elems + w.input_elems + w.output_elems


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_configs_grow_and_held_out_stays_within_limits(task):
    sizes = [total_work(task, c) for c in task.visible_configs()]
    assert sizes == sorted(sizes) and len(set(sizes)) == 5, sizes
    for c in task.held_out_configs():
        assert total_work(task, c) <= 2 * sizes[-1], f"{c} is much larger than C5"
        # different in kind: some dimension that is not a power of two (3x3 kernels aside)
        dims = {k: v for k, v in task.configs[c].items() if k not in ("KH", "KW")}
        assert any(v & (v - 1) for v in dims.values()), f"{c} {dims} only has powers of two"


def dims_rule(task, name: str, value: int) -> bool:
    """The size rules of the suite: multiples of 64 except naturally small dimensions."""
    conv = "KH" in task.configs["C1"]
    if name in ("KH", "KW"):
        return value == 3
    if name == "rows":
        return value % 4 == 0
    if name == "D":
        return value in (16, 32, 64)
    if conv and name in ("H", "W"):
        return 3 <= value <= 32
    if name in ("H", "Hq", "Hkv", "B"):          # heads and batch counts
        return 1 <= value <= 32
    return value % 64 == 0


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_dimensions_follow_the_size_rules(task):
    for c, d in task.configs.items():
        for name, value in d.items():
            assert dims_rule(task, name, value), f"{task.name} {c}: {name}={value}"
        if "Hq" in d:
            assert d["Hq"] % d["Hkv"] == 0


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_description_names_every_tensor_and_constant(task):
    text = task.description
    assert task.title and len(text) > 80
    for c in task.configs:
        for spec in task.inputs(c) + task.outputs(c):
            assert spec.dtype in DTYPES
            assert f"{spec.name} [" in text or f"{spec.name}/" in text, f"{spec.name} not described"
        for name, value in task.constants(c).items():
            assert name in text, f"constant {name} not described"
            assert isinstance(value, float) and math.isfinite(value)


def test_constants_have_the_stated_values():
    assert get_task("layer_norm").constants("C3") == {"eps": 1e-5, "inv_n": 1 / 512, "one": 1.0}
    assert get_task("rms_norm").constants("H1")["inv_n"] == 1 / 1216
    assert get_task("mha").constants("C4")["scale"] == pytest.approx(1 / 8)
    gelu = get_task("gelu").constants("C1")
    assert gelu["gelu_c1"] == pytest.approx(2 * math.sqrt(2 / math.pi)) and gelu["gelu_c2"] == 0.044715
    assert list(get_task("decoder_block_llama").constants("C1")) == [
        "eps", "inv_dm", "scale", "neg_max", "one", "neg_one"]
