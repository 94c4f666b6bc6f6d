"""Every shared arithmetic unit agrees bit for bit with simulators/numerics.py: at least
100,000 random operands plus the special cases per unit on Verilator, and a sample of
the same vectors on Icarus (the second simulator)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

RTL_COMMON = Path(__file__).resolve().parents[3] / "rtl" / "common"
TESTBENCH = RTL_COMMON / "bench" / "tb_common_units.v"
# Modules that are building blocks of the units rather than units, each exercised
# through the units named here.
BUILDING_BLOCKS = {
    "fp32_round_pack": "every fp32 unit",
    "fp_mul": "fp32_mul and bf16_mul",
    "fp32_minmax": "fp32_max and fp32_min",
    "fp32_exp_range": "fp32_exp (and plena's exp pipeline)",
    "fp32_horner_step": "fp32_exp (and plena's exp pipeline)",
    "fp32_exp_scale": "fp32_exp (and plena's exp pipeline)",
    "fp32_normalize": "fp32_recip and fp32_sqrt (and plena's pipelines)",
    "fp32_recip_steps": "fp32_recip (and plena's reciprocal pipeline)",
    "fp32_sqrt_steps": "fp32_sqrt (and plena's square-root pipeline)",
}
# Cells that are not arithmetic, exercised by the cores that use them.
CELLS = {"icg": "plena's pipelines and coral's fp and vector units (their differential tests)",
         "delay_line": "the result pipelines of aie_mac, aie_reduce and aie_pwl (their unit benches, tests/rtl/aie)"}


def test_unit_matches_numerics_on_verilator(unit, verilator_results):
    outcome = verilator_results.outcomes.get(f"test_{unit}", "did not run")
    assert outcome is None, f"{outcome}\n(simulator log: {verilator_results.log})"


def test_unit_matches_numerics_on_icarus(unit, icarus_results):
    outcome = icarus_results.outcomes.get(f"test_{unit}", "did not run")
    assert outcome is None, f"{outcome}\n(simulator log: {icarus_results.log})"


# Units with a bench of their own (IEEE binary32 with rounding modes and flags, for coral;
# the mux tree of plena's memories and accumulators).
OWN_BENCH = {"fp32_fma": "tests/rtl/common/test_fp32_ieee.py",
             "fp32_divsqrt": "tests/rtl/common/test_fp32_ieee.py",
             "fp32_round_ieee": "tests/rtl/common/test_fp32_ieee.py (through both units)",
             "mux_tree": "tests/rtl/common/test_mux_tree.py (every select, on Icarus)"}


def test_every_module_is_a_tested_unit_or_a_building_block(vectors):
    modules = {p.stem for p in RTL_COMMON.glob("*.v")}
    assert modules == set(vectors.UNITS) | set(BUILDING_BLOCKS) | set(OWN_BENCH) | set(CELLS)


def test_bench_select_codes_match_the_testbench(vectors):
    text = TESTBENCH.read_text()
    codes = dict(re.findall(r"localparam \[4:0\] (SEL_\w+)\s*=\s*5'd(\d+);", text))
    assert {u.sel for u in vectors.UNITS.values()} == set(codes)
    assert len(set(codes.values())) == len(codes), "two units share a select code"


def test_vectors_reach_the_required_count_and_fit_the_bench(unit, vectors):
    vec = vectors.make(unit, 1)
    depth = int(re.search(r"DEPTH = (\d+)", TESTBENCH.read_text()).group(1))
    assert vectors.N_RANDOM >= 100_000
    assert 100_000 <= vec.expected.size <= depth
    assert vec.words.shape == (vec.expected.size, vectors.LANES)


def test_mismatch_report_names_the_first_differing_vectors(tmp_path, vectors):
    vec = vectors.make("fp32_add", 3, n_random=1000)
    path = tmp_path / "res.hex"
    path.write_text("".join(f"{int(v):08x}\n" for v in vec.expected))
    got = vectors.read_results(path, vec.expected.size)
    assert vectors.mismatch_report("fp32_add", vec, got) is None
    got[7] ^= 1                                     # one ulp off in one result
    report = vectors.mismatch_report("fp32_add", vec, got)
    assert report is not None and "1 of" in report and "vector 7:" in report
    assert f"a=0x{int(vec.columns['a'][7]):08X}" in report


def test_read_results_rejects_a_short_file(tmp_path, vectors):
    path = tmp_path / "res.hex"
    path.write_text("// header\n@0\n00000001\n")
    assert vectors.read_results(path, 1)[0] == 1
    with pytest.raises(AssertionError, match="expected 2 results, found 1"):
        vectors.read_results(path, 2)


def test_special_values_cover_every_class(vectors):
    f = vectors.SPECIALS_F32.view("float32")
    bits = vectors.SPECIALS_F32
    exp, frac = (bits >> 23) & 0xFF, bits & 0x7FFFFF
    assert (f == 0).sum() == 2 and (f < 0).any()                     # both zeros
    assert ((exp == 0) & (frac != 0)).sum() >= 8                       # subnormals
    assert (abs(f) == float("inf")).sum() == 2                         # both infinities
    assert ((exp == 0xFF) & (frac != 0) & ((frac >> 22) == 0)).any()   # signalling NaN
    assert ((exp == 0xFF) & (frac != 0) & ((frac >> 22) == 1)).any()   # quiet NaN
