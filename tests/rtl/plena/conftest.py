"""Shared fixtures of the plena RTL tests: the small differential configuration."""
import pytest

from kernelcraft.isa.plena import default_config
from kernelcraft.simulators.plena_rtl.randprog import DIFF_CONFIG


@pytest.fixture(scope="session")
def diff_cfg():
    return default_config(**DIFF_CONFIG)

