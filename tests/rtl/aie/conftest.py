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


def pytest_collection_modifyitems(config, items):
    """Synthesis tests run only when asked for (`-m synth`): they take minutes."""
    if "synth" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="Yosys synthesis: select with -m synth")
    for item in items:
        if "synth" in item.keywords:
            item.add_marker(skip)
