"""Shared fixtures of the coral RTL tests: the one small configuration they all use
(one Verilator build, cached across sessions)."""
import pytest

from kernelcraft.isa.coral import default_config
from kernelcraft.simulators.coral_rtl.randprog import TEST_CONFIG


@pytest.fixture(scope="session")
def cfg():
    return default_config(**TEST_CONFIG)


@pytest.fixture(scope="session")
def rtl(cfg):
    from kernelcraft.simulators.coral_rtl import build
    from kernelcraft.simulators.coral_rtl.backend import CoralRTL
    build.build(cfg)
    return CoralRTL()

