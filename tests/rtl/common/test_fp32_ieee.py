"""The coral RTL's IEEE binary32 units (rtl/common): fp32_fma as fma, fmul, fadd and
fsub, and fp32_divsqrt as fdiv and fsqrt, agree bit for bit (result and flags) with
simulators/coral/fp32.py in all five rounding modes: every pair of special values and
120,000 random operands aimed at the corners per unit, in one Verilator run of one build."""
from __future__ import annotations

import numpy as np
import pytest

from kernelcraft.simulators.rtl import toolchain

from .conftest import BENCH, RTL_COMMON, SEED, load_bench_module

N_RANDOM = 120_000
TOP = "tb_fp32_ieee"
IEEE_UNITS = tuple(RTL_COMMON / f"{m}.v" for m in ("fp32_round_ieee", "fp32_fma", "fp32_divsqrt"))


@pytest.fixture(scope="module")
def ieee():
    return load_bench_module("ieee_vectors")


def test_units_match_the_model(ieee, tmp_path):
    fma = ieee.operands(SEED, N_RANDOM)
    div = ieee.divsqrt_operands(SEED, N_RANDOM)
    assert fma.shape[0] >= 100_000 and div.shape[0] >= 100_000
    rows = np.concatenate([fma, div])
    n = rows.shape[0]
    ieee.write_ops(tmp_path / "ieee_ops.hex", rows)
    spec = toolchain.BuildSpec(top=TOP, sources=(*IEEE_UNITS, BENCH / f"{TOP}.v"),
                               parameters={"DEPTH": 1 << (n - 1).bit_length()})
    b = toolchain.build(spec, "verilator")
    toolchain.run(b, "fp32_ieee_cocotb", [BENCH], tmp_path, extra_env={"IEEE_COUNT": str(n)})
    got = ieee.read_results(tmp_path / "ieee_res.hex", n)
    want = ieee.reference(rows)
    bad = np.flatnonzero(got != want)
    if bad.size:
        lines = []
        for i in bad[:12].tolist():
            lines.append(f"  {ieee.describe(rows[i])}: RTL {int(got[i]) >> 32:02x}/{int(got[i]) & 0xFFFFFFFF:08x}"
                         f" model {int(want[i]) >> 32:02x}/{int(want[i]) & 0xFFFFFFFF:08x}")
        pytest.fail(f"{bad.size} of {n} vectors differ (flags/result):\n" + "\n".join(lines))
    # the corners were reached, by each unit
    for part, bits in ((slice(0, fma.shape[0]), (16, 4, 2, 1)), (slice(fma.shape[0], n), (16, 8, 4, 2, 1))):
        flags = want[part] >> np.uint64(32)
        for bit in bits:
            assert ((flags & np.uint64(bit)) != 0).sum() > 30, f"too few vectors raise flag {bit}"
        exact = ((flags & np.uint64(1)) == 0).sum()
        assert exact > 1000, "too few exact results"
