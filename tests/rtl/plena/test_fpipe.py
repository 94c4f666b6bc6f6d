"""The scalar unit's four-stage pipelines (rtl/plena/plena_*_pipe.v) are bit for bit
rtl/common's combinational fp32_exp, fp32_recip and fp32_sqrt (themselves held to
simulators/numerics.py by tests/rtl/common), with a new operand every cycle."""
import re
import subprocess

import pytest

from kernelcraft.simulators.plena_rtl import build
from kernelcraft.simulators.rtl import toolchain

BENCH = build.PLENA_RTL / "bench" / "tb_fpipe.v"
UNITS = ["plena_exp_pipe.v", "plena_recip_pipe.v", "plena_sqrt_pipe.v"]
COMMON = ["fp32_exp.v", "fp32_exp_range.v", "fp32_horner_step.v", "fp32_exp_scale.v",
          "fp32_recip.v", "fp32_recip_steps.v", "fp32_sqrt.v", "fp32_sqrt_steps.v",
          "fp32_normalize.v", "fp32_mul.v", "fp32_add.v", "fp_mul.v", "fp32_round_pack.v"]


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    try:
        tool = toolchain.prepare_verilator()
    except toolchain.ToolchainError as e:
        pytest.skip(str(e))
    out = tmp_path_factory.mktemp("fpipe")
    sources = [BENCH, *(build.PLENA_RTL / u for u in UNITS), *(build.COMMON_RTL / c for c in COMMON)]
    # C++20 for --timing's coroutines; the PCH override as in toolchain's builds.
    cmd = [str(tool.executable), "--binary", "--timing", "-Wno-fatal", "-Wno-lint",
           "-CFLAGS", "-std=c++20", "-MAKEFLAGS", " ".join(toolchain.VERILATOR_MAKE_OVERRIDES),
           "--top-module", "tb_fpipe", f"-I{build.COMMON_RTL}", "--Mdir", str(out),
           "-o", "tb_fpipe", *map(str, sources)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return out / "tb_fpipe"


def test_pipelines_equal_the_combinational_units(bench):
    proc = subprocess.run([str(bench), "+n=200000"], capture_output=True, text=True)
    m = re.search(r"checked (\d+) mismatches (\d+)", proc.stdout)
    assert m, proc.stdout + proc.stderr
    assert int(m.group(1)) == 200_000
    assert int(m.group(2)) == 0, proc.stdout
