"""plena Level-1 baselines on the default hardware: bit-identical memories and equal
cycle counts on the functional model and the RTL. The suite checks a representative
subset (every task at C2, and larger cells of the matrix and convolution kernels); the
whole matrix, held-out configurations included, is

    kernelcraft rtl-check --accel plena --all-baselines
"""
import pytest

from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.rtlcheck import check_baselines

SUBSETS = [dict(configs=["C2"]), dict(tasks=["gemm", "conv2d", "layer_norm"], configs=["C3"])]


@pytest.mark.parametrize("subset", SUBSETS, ids=["every task at C2", "larger cells"])
def test_baselines_identical_on_both_backends(subset):
    results = check_baselines("plena", get_accel("plena").default_config(), **subset)
    assert results
    failed = [r.format() for r in results if not r.passed]
    assert not failed, "\n\n".join(failed)
    assert all(r.cycles_model == r.cycles_rtl for r in results)
