"""Shared fixtures of the plena RTL tests: the small differential configuration."""
import pytest

from kernelcraft.isa.plena import default_config
from kernelcraft.simulators.plena_rtl.randprog import DIFF_CONFIG


@pytest.fixture(scope="session")
def diff_cfg():
    return default_config(**DIFF_CONFIG)


def pytest_collection_modifyitems(config, items):
    """`synth` tests (Yosys at the default configuration, minutes) run only when the
    marker expression names them: python3 -m pytest -m synth tests/rtl/plena."""
    if "synth" in (config.option.markexpr or ""):
        return
    skip = pytest.mark.skip(reason="Yosys at the default configuration: run with -m synth")
    for item in items:
        if "synth" in item.keywords:
            item.add_marker(skip)
