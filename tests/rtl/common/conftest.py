"""Shared fixtures for the rtl/common tests: the bench build (cached across runs by
simulators/rtl/toolchain.py) and one simulator run of every unit's cocotb test."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from kernelcraft.simulators.rtl import toolchain

REPO = Path(__file__).resolve().parents[3]
RTL_COMMON = REPO / "rtl" / "common"
BENCH = RTL_COMMON / "bench"
BENCH_TOP = "tb_common_units"
SEED = 20261202
ICARUS_SAMPLE = 300          # vectors per unit on Icarus (it runs ~100x slower)

def load_bench_module(name: str):
    """A module of rtl/common/bench (not a package) by file path."""
    qualified = f"kc_rtl_common_{name}"
    spec = importlib.util.spec_from_file_location(qualified, BENCH / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[qualified] = mod               # dataclasses look their module up here
    spec.loader.exec_module(mod)
    return mod


VECTORS = load_bench_module("vectors")


def pytest_generate_tests(metafunc):
    if "unit" in metafunc.fixturenames:          # one test per unit with a bench
        metafunc.parametrize("unit", sorted(VECTORS.UNITS))


@pytest.fixture(scope="session")
def vectors():
    """rtl/common/bench/vectors.py: operands, references, result checking."""
    return VECTORS


def unit_sources() -> list[Path]:
    return sorted(RTL_COMMON.glob("*.v"))


def bench_spec() -> toolchain.BuildSpec:
    return toolchain.BuildSpec(top=BENCH_TOP,
                               sources=tuple(unit_sources() + [BENCH / f"{BENCH_TOP}.v"]),
                               includes=(RTL_COMMON,))


def _run_all(simulator: str, test_dir: Path, env: dict[str, str]) -> toolchain.RunResult:
    b = toolchain.build(bench_spec(), simulator)
    print(f"\n{simulator} bench build: {'cached' if b.cached else 'built'} in {b.seconds:.2f} s")
    result = toolchain.run(b, "common_units_cocotb", [BENCH], test_dir,
                           extra_env={"KC_SEED": str(SEED), **env}, check=False)
    print(f"{simulator} bench run (all units): {result.seconds:.2f} s")
    return result


@pytest.fixture(scope="session")
def verilator_results(tmp_path_factory) -> toolchain.RunResult:
    return _run_all("verilator", tmp_path_factory.mktemp("verilator"), {})


@pytest.fixture(scope="session")
def icarus_results(tmp_path_factory) -> toolchain.RunResult:
    return _run_all("icarus", tmp_path_factory.mktemp("icarus"),
                    {"KC_SAMPLE": str(ICARUS_SAMPLE)})
