"""fp32_fma (rtl/common), the coral RTL's IEEE binary32 fused multiply-add, agrees bit
for bit (result and flags) with simulators/coral/fp32.py as fma, fmul, fadd and fsub in
all five rounding modes: every pair of special values and 120,000 random operands aimed
at the corners, in one Verilator run of one build."""
from __future__ import annotations

import numpy as np
import pytest

from simulators.rtl import toolchain

from .conftest import BENCH, RTL_COMMON, SEED, load_bench_module

N_RANDOM = 120_000
TOP = "tb_fp32_ieee"
IEEE_UNITS = tuple(RTL_COMMON / f"{m}.v" for m in ("fp32_round_ieee", "fp32_fma"))


@pytest.fixture(scope="module")
def ieee():
    return load_bench_module("ieee_vectors")


def test_fma_matches_the_model(ieee, tmp_path):
    rows = ieee.operands(SEED, N_RANDOM)
    n = rows.shape[0]
    assert n >= 100_000
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
            a, b_, c, ctrl = rows[i].tolist()
            lines.append(f"  {ieee.OPS[ctrl >> 6]} rm={ctrl & 7} negp={ctrl >> 3 & 1} nega={ctrl >> 4 & 1} "
                         f"a={a:08x} b={b_:08x} c={c:08x}: RTL {int(got[i]) >> 32:02x}/{int(got[i]) & 0xFFFFFFFF:08x}"
                         f" model {int(want[i]) >> 32:02x}/{int(want[i]) & 0xFFFFFFFF:08x}")
        pytest.fail(f"{bad.size} of {n} vectors differ (flags/result):\n" + "\n".join(lines))
    # the corners were reached
    flags = want >> np.uint64(32)
    for bit, name in ((16, "NV"), (4, "OF"), (2, "UF"), (1, "NX")):
        assert ((flags & np.uint64(bit)) != 0).sum() > 100, f"too few vectors raise {name}"
