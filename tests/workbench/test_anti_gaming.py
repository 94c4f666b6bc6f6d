"""A kernel that writes zeros, a constant, or a copy of an input fails every task;
the expected outputs are never in memory a kernel can address."""
import numpy as np
import pytest

from kernelcraft.tasks import get_task
from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.evaluation import evaluate
from kernelcraft.workbench.layout import POISON_BF16, build_image

ACCEL = "plena"


def _cells():
    accel = get_accel(ACCEL)
    return [(t, "C1") for t in sorted(accel.baseline_templates())]


def _fill_outputs(layout, hw, source_region=None, make_row=None):
    """A kernel that writes every output row from VSRAM rows prepared by `make_row`
    (or copies from `source_region` through VSRAM)."""
    r = hw.HBM_V_WRITEBACK_AMOUNT
    lines = ["S_ADDI_INT gp1, gp0, 0"]
    if make_row:
        lines += make_row
    for out in layout.by_role("output"):
        n_chunks = -(-out.size // (r * hw.VLEN))
        lines += [f"S_LUI_INT gp2, {out.address >> 12}", f"S_ADDI_INT gp2, gp2, {out.address & 0xFFF}",
                  "C_SET_ADDR_REG a1, gp0, gp2"]
        if source_region is not None:
            lines += [f"S_LUI_INT gp3, {source_region.address >> 12}",
                      f"S_ADDI_INT gp3, gp3, {source_region.address & 0xFFF}",
                      "C_SET_ADDR_REG a0, gp0, gp3"]
        lines += ["S_ADDI_INT gp4, gp0, 0", "S_ADDI_INT gp5, gp0, 0", f"C_LOOP_START gp6, {n_chunks}"]
        if source_region is not None:
            lines += ["  H_PREFETCH_V gp0, gp5, a0, 0, 0"]
            lines += [f"  S_ADDI_INT gp5, gp5, {r * hw.VLEN}"]
        lines += ["  H_STORE_V gp0, gp4, a1, 0, 0", f"  S_ADDI_INT gp4, gp4, {r * hw.VLEN}",
                  "C_LOOP_END gp6"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("task,config", _cells())
def test_zero_constant_and_copy_kernels_fail(task, config):
    accel = get_accel(ACCEL)
    hw = accel.default_config()
    t = get_task(task)
    layout = accel.layout(t, config, hw)
    kernels = {"zeros": _fill_outputs(layout, hw)}
    # constant 1.0 in every element: f1 = exp(0) = 1, rows 0..3 = 0 + f1
    const_rows = ["S_EXP_FP f1, f0"] + [
        f"S_ADDI_INT gp7, gp0, {i * hw.VLEN}\nV_ADD_VF gp7, gp7, f1, 0"
        for i in range(hw.HBM_V_WRITEBACK_AMOUNT)]
    kernels["constant"] = _fill_outputs(layout, hw, make_row=const_rows)
    for inp in layout.by_role("input"):
        kernels[f"copy of {inp.name}"] = _fill_outputs(layout, hw, source_region=inp)
    for what, source in kernels.items():
        ev = evaluate(ACCEL, task, config, source, seeds=[11, 12], edge_cases=False,
                      compare_baseline=False)
        assert ev.status in ("failed", "run_error"), f"{what} kernel passed {task}: {ev.status}"
        assert not ev.passed


@pytest.mark.parametrize("task,config", _cells())
def test_expected_outputs_are_not_in_memory(task, config):
    accel = get_accel(ACCEL)
    hw = accel.default_config()
    t = get_task(task)
    layout = accel.layout(t, config, hw)
    inputs = t.generate(config, 5)
    image = build_image(layout, inputs)
    reference = t.reference(inputs, config)
    for out in layout.by_role("output"):
        poisoned = image.writes[out.memory][out.address]
        assert (poisoned == POISON_BF16).all()
        ref_bits = np.asarray(reference[out.name], dtype=np.float32).view(np.uint32) >> 16
        for mem, writes in image.writes.items():
            for addr, vals in writes.items():
                if vals.dtype == np.uint16 and vals.size >= ref_bits.size > 8 and addr != out.address:
                    window = vals[: ref_bits.size].astype(np.uint32)
                    assert not np.array_equal(window, ref_bits.reshape(-1)[: window.size])
