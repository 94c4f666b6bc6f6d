"""Shared fixtures of the aie RTL tests: the one small configuration they build."""
import pytest

from kernelcraft.isa.aie import default_config
from kernelcraft.simulators.aie_rtl.randprog import DIFF_CONFIG


@pytest.fixture(scope="session")
def diff_cfg():
    return default_config(**DIFF_CONFIG)


@pytest.fixture(scope="session")
def aie_build(diff_cfg):
    """The simulator of the small configuration (built once; cached across runs)."""
    from kernelcraft.simulators.aie_rtl import build
    return build.build(diff_cfg)

