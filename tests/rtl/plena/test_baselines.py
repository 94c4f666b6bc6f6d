"""plena Level-1 baselines: bit-identical memories and equal cycle counts on the
functional model and the RTL. The suite checks every baseline that fits the small shared
configuration (the matrix kernels' C1 inputs need more HBM than it has; random programs
cover the matrix unit there); at the default hardware (`-m fullsize`: one more cold build
of many minutes) a representative subset (every task at C2, and larger cells of the
matrix and convolution kernels). The whole matrix, held-out configurations included, is

    kernelcraft rtl-check --accel plena --all-baselines
"""
import pytest

from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.rtlcheck import check_baselines

SUBSETS = [dict(configs=["C2"]), dict(tasks=["gemm", "conv2d", "layer_norm"], configs=["C3"])]
SMALL = ["silu", "relu", "gelu", "softmax", "layer_norm", "rms_norm", "gemv", "depthwise_conv"]


def _check(hw, **subset):
    results = check_baselines("plena", hw, **subset)
    assert results
    failed = [r.format() for r in results if not r.passed]
    assert not failed, "\n\n".join(failed)
    assert all(r.cycles_model == r.cycles_rtl for r in results)
    return results


def test_baselines_identical_on_the_small_configuration(diff_cfg):
    assert [r.task for r in _check(diff_cfg, tasks=SMALL, configs=["C1"])] == SMALL


@pytest.mark.fullsize
@pytest.mark.parametrize("subset", SUBSETS, ids=["every task at C2", "larger cells"])
def test_baselines_identical_on_both_backends(subset):
    _check(get_accel("plena").default_config(), **subset)
