"""The coral RTL against Spike on the conformance corpus (tests/simulators/coral/conformance):
its scalar programs (the body's data, x0..x31, f0..f31 and fcsr), vec_e32, the vector
program at SEW = 32 (masked accesses, slides, mask logic, vmul*; the whole signature,
v0..v31 included), vec_config (vsetvl forms, fractional LMUL, vill) and vec_reduce_fixed_widen
(reductions, fixed point in every vxrm mode with vxsat, widening and narrowing) and vec_mem
(every addressing mode: indexed ordered and unordered, masked; segment loads and stores;
fault-only-first; whole registers; all in the corpus's own wrapping, which sets up and
dumps the vector state at SEW = 8) equal Spike's signatures, and the model takes exactly as many cycles."""
import sys
from pathlib import Path

import pytest

from kernelcraft.simulators.core.backend import MemoryImage
from kernelcraft.simulators.core.budget import Budget
from kernelcraft.simulators.coral.assembler import assemble
from kernelcraft.simulators.coral.machine import CoralModel
from kernelcraft.simulators.coral_rtl.backend import Job

sys.path.insert(0, str(Path(__file__).parents[2] / "simulators" / "coral" / "conformance"))

from harness import (DATA_BASE, SCALAR_FIELDS, bodies, differences, load_expected,  # noqa: E402
                     signature_of, wrap)

SCALAR = ("int_arith", "fp_rounding", "fp_special")     # the corpus's programs without V
E32 = ("vec_e32",)                                       # ... with V at SEW = 32 only
FULL = ("vec_config", "vec_reduce_fixed_widen", "vec_mem")   # ... with V, wrapped at SEW = 8


@pytest.fixture(scope="module")
def runs(cfg, rtl):
    assert cfg.DTCM_BASE == DATA_BASE
    src = bodies()
    programs = {n: assemble(wrap(src[n], "scalar" if n in SCALAR else "e32" if n in E32 else "model"), f"{n}.s", cfg)
                for n in SCALAR + E32 + FULL}
    budget = Budget(max_instructions=1_000_000)
    out = rtl.run_many([Job(p, MemoryImage(), budget) for p in programs.values()], cfg)
    return {n: (p, r) for (n, p), r in zip(programs.items(), out)}


@pytest.mark.parametrize("name", SCALAR + E32 + FULL)
def test_rtl_agrees_with_spike(name, runs, cfg):
    program, result = runs[name]
    ours = signature_of(program, result, name)
    expected = load_expected()[name]["signature"]
    diff = differences(ours, {k: expected[k] for k in (SCALAR_FIELDS if name in SCALAR else expected)}, limit=20)
    assert not diff, f"{name}: the RTL differs from Spike:\n" + "\n".join(diff)
    model = CoralModel().run(program, MemoryImage(), cfg, Budget(max_instructions=1_000_000))
    assert (result.cycles, result.retired) == (model.cycles, model.retired)


@pytest.mark.parametrize("name", ("vec_int", "vec_float"))
def test_rtl_agrees_with_the_model_where_agnostic_elements_differ_from_spike(name, cfg, rtl):
    # vec_int (integer arithmetic, multiplies, divides, compares and merges at SEW 8/16/32,
    # 8/16/32-bit loads and stores) and vec_float (vfrec7/vfrsqrt7 among the fp ones) run on the RTL; Spike keeps agnostic elements and coral writes all
    # ones (both allowed), so this compares with the model, which does as the RTL does
    from kernelcraft.simulators.coral_rtl.compare import compare_runs
    program = assemble(wrap(bodies()[name], "model"), f"{name}.s", cfg)
    budget = Budget(max_instructions=1_000_000)
    [result] = rtl.run_many([Job(program, MemoryImage(), budget)], cfg)
    model = CoralModel().run(program, MemoryImage(), cfg, budget)
    assert model.error is None and compare_runs(model, result) == []
