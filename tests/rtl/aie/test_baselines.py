"""Every aie Level-1 baseline the RTL implements, on every configuration (held-out ones
included), through `rtl-check`'s own path: bit-identical memories and registers, equal
cycles and stall counts per cause on the functional model and the RTL, and outputs within
tolerance of the task's reference. The rest are refused before simulation, naming what
the RTL lacks.

The baselines need the default configuration's 64 KB data memory (their buffers sit at
8 KB and 24 KB), so this file builds that configuration (the one `kernelcraft rtl-check
--accel aie` uses): one cold build besides the small configuration of the other tests,
minutes long, so it runs with `-m fullsize` (tests/rtl/conftest.py)."""
import re

import pytest

from kernelcraft.simulators.aie_rtl.backend import AieRTL, unsupported
from kernelcraft.simulators.core.backend import MemoryImage
from kernelcraft.simulators.core.errors import ConfigError
from kernelcraft.tasks import all_tasks
from kernelcraft.workbench.accel import get_accel

pytestmark = pytest.mark.fullsize

# The Level-1 baselines the RTL runs today (gemm, batch_matmul and conv2d since the
# data-memory ports are arbitrated: their output channels' beats share macros).
COVERED = ("relu", "depthwise_conv", "gemm", "batch_matmul", "conv2d")


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


def test_every_other_level1_baseline_is_refused_naming_what_is_missing(aie):
    accel, hw = aie
    refused = 0
    for task in all_tasks(1):
        if task.name not in accel.baseline_templates() or task.name in COVERED:
            continue
        config = task.visible_configs()[0]
        program = accel.assemble(accel.baseline(task.name, config, hw), source_name="b.asm",
                                 config=hw)
        missing = unsupported(program, hw)
        assert missing, f"{task.name}: the RTL implements it; add it to COVERED"
        with pytest.raises(ConfigError, match=re.escape(missing[0])):
            AieRTL().run(program, MemoryImage(), hw)
        refused += 1
    assert refused >= 7
