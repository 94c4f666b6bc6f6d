"""The scalar unit's four-stage pipelines (rtl/plena/plena_*_pipe.v) are bit for bit
rtl/common's combinational fp32_exp, fp32_recip and fp32_sqrt (themselves held to
simulators/numerics.py by tests/rtl/common), with a new operand every cycle."""
import os
import re
import shutil
import subprocess

import pytest

from kernelcraft.simulators.plena_rtl import build
from kernelcraft.simulators.rtl import toolchain

BENCH = build.PLENA_RTL / "bench" / "tb_fpipe.v"
UNITS = ["plena_exp_pipe.v", "plena_recip_pipe.v", "plena_sqrt_pipe.v"]
COMMON = ["fp32_exp.v", "fp32_exp_range.v", "fp32_horner_step.v", "fp32_exp_scale.v",
          "fp32_recip.v", "fp32_recip_steps.v", "fp32_sqrt.v", "fp32_sqrt_steps.v",
          "fp32_normalize.v", "fp32_mul.v", "fp32_add.v", "fp_mul.v", "fp32_round_pack.v"]


# -fcoroutines for --timing (as every other --timing build here; -std=c++20 compiled slower
# and kept Verilator's runtime objects out of ccache's reach): the runtime is then compiled
# with the very command tests/rtl/common/test_icg.py's --binary builds use, so in a cold run
# one of the two reuses the other's objects (this build, after test_icg.py, at load 12-18:
# 28.6 -> 11.7 CPU s of user time).
FLAGS = ("--binary", "--timing", "-Wno-fatal", "-Wno-lint", "-CFLAGS", "-fcoroutines")


@pytest.fixture(scope="module")
def bench():
    """The bench binary, built once into the build cache (toolchain.cached_build, keyed
    by the sources and FLAGS) like every other RTL build: a run with the cache warm
    starts at once instead of paying a Verilator compile."""
    try:
        tool = toolchain.prepare_verilator()
    except toolchain.ToolchainError as e:
        pytest.skip(str(e))
    sources = (BENCH, *(build.PLENA_RTL / u for u in UNITS), *(build.COMMON_RTL / c for c in COMMON))
    spec = toolchain.BuildSpec(top="tb_fpipe", sources=sources, includes=(build.COMMON_RTL,),
                               build_args=FLAGS)

    def compile_binary(work, log):
        # the make overrides and ccache of toolchain's builds, through the environment
        cmd = [str(tool.executable), *FLAGS, "--top-module", spec.top, f"-I{build.COMMON_RTL}",
               "--Mdir", str(work), "-o", spec.top, *map(str, sources)]
        with open(log, "w") as f:
            subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, check=True,
                           env={**os.environ, **toolchain._verilator_env()})
        for f in work.iterdir():         # the binary is all a run needs (the PCH alone is 100+ MB)
            if f.name not in (spec.top, log.name):
                shutil.rmtree(f) if f.is_dir() else f.unlink()
    return toolchain.cached_build(spec, "verilator", compile_binary, flavour="binary").directory / spec.top


def test_pipelines_equal_the_combinational_units(bench):
    proc = subprocess.run([str(bench), "+n=200000"], capture_output=True, text=True)
    m = re.search(r"checked (\d+) mismatches (\d+)", proc.stdout)
    assert m, proc.stdout + proc.stderr
    assert int(m.group(1)) == 200_000
    assert int(m.group(2)) == 0, proc.stdout
