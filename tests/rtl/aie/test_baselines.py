"""Every aie Level-1 baseline the RTL implements, on every configuration (held-out ones
included), through `rtl-check`'s own path: bit-identical memories and registers, equal
cycles and stall counts per cause on the functional model and the RTL, and outputs within
tolerance of the task's reference. Nothing a baseline uses is refused.

The baselines need the default configuration's 64 KB data memory (their buffers sit at
8 KB and 24 KB), so this file builds that configuration (the one `kernelcraft rtl-check
--accel aie` uses): one cold build besides the small configuration of the other tests,
minutes long, so it runs with `-m fullsize` (tests/rtl/conftest.py)."""
import pytest

from kernelcraft.simulators.aie_rtl.backend import AieRTL, unsupported
from kernelcraft.simulators.core.backend import MemoryImage
from kernelcraft.tasks import all_tasks
from kernelcraft.workbench.accel import get_accel

pytestmark = pytest.mark.fullsize

# The Level-1 baselines the RTL runs (all of them since the reductions, the function
# unit and DMA beats that gather short runs).
COVERED = ("silu", "relu", "gelu", "softmax", "layer_norm", "rms_norm", "gemv", "gemm",
           "batch_matmul", "linear", "conv2d", "depthwise_conv")


@pytest.fixture(scope="module")
def aie():
    accel = get_accel("aie")
    return accel, accel.default_config()


def test_covered_baselines_agree_and_are_correct(aie):
    from kernelcraft.workbench.rtlcheck import check_baselines
    accel, hw = aie
    results = check_baselines("aie", hw, level=1, tasks=list(COVERED))
    assert len(results) == 6 * len(COVERED)
    failed = [r.format() for r in results if not r.passed]
    assert not failed, "\n\n".join(failed)
    assert all(r.cycles_model == r.cycles_rtl > 0 for r in results)


def test_every_level1_baseline_is_covered_and_none_is_refused(aie):
    accel, hw = aie
    for task in all_tasks(1):
        if task.name not in accel.baseline_templates():
            continue
        assert task.name in COVERED, f"{task.name}: a Level-1 baseline the RTL is not checked on"
        config = task.visible_configs()[0]
        program = accel.assemble(accel.baseline(task.name, config, hw), source_name="b.asm",
                                 config=hw)
        assert not unsupported(program, hw), f"{task.name}: {unsupported(program, hw)}"
    program = accel.assemble("VSHUF x0, x1, x2, 0\nHALT\n", source_name="s.asm", config=hw)
    assert unsupported(program, hw) == []
    r = AieRTL().run(program, MemoryImage(), hw)
    assert r.error is None and r.stop == "break"
