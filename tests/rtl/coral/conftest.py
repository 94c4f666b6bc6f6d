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


def pytest_collection_modifyitems(config, items):
    """Synthesis at the default configuration runs only when asked for (`-m synth`):
    the suite's plain `pytest -q` skips it."""
    if "synth" in (config.option.markexpr or ""):
        return
    skip = pytest.mark.skip(reason="Yosys at the default configuration: run with -m synth")
    for item in items:
        if "synth" in item.keywords:
            item.add_marker(skip)
