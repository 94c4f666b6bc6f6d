"""The longest combinational path of each of plena's RTL units stays within its bound, in
gate levels between registers and the unit's ports (simulators/plena_rtl/paths.py: Yosys
`synth -flatten`, ABC's two-input gates, 2-to-1 muxes and inverters, then `ltp -noff`;
the SRAM macros and clock gates are cells a path ends at, plena_opiso's operand
isolation is AND gates on the path). A change that takes a register out of a pipeline (a unit
de-pipelined) adds at least an fp32 addition's 116 levels or a multiplier's 100 and
fails: the bounds are the figures measured with Yosys 0.23 (rtl/plena/README.md,
"Longest paths") with a margin of about a tenth, and under 100 levels. A few cheap units
at the small configuration run in the default suite (about 17 s of CPU); the rest at the
default configuration (a vector group's lanes and the MAC lane fewer where stated) under
the `synth` marker (`python3 -m pytest -m synth tests/rtl/plena/test_paths.py`; about 10
CPU minutes)."""
import re

import pytest

from kernelcraft.isa.plena import default_config
from kernelcraft.simulators.plena_rtl import build, paths
from kernelcraft.simulators.rtl import synth
from kernelcraft.simulators.rtl.synth import SynthesisError

# Levels of the rtl/common units the paths are made of (configuration-independent).
FP32_ADD, FP32_MUL, BF16_MUL = 116, 100, 66

# unit: (bound, the parameters set otherwise than the default configuration, what the
# longest path is).
ONE_LANE = {"VLEN": 4}     # a vector group's lanes are copies: measured with one or two
SMALL_LANE = {"MLEN": 16, "HLEN": 4}
BOUNDS = {
    "fp32_to_bf16": (16, {}, "rounding"),
    "fp32_max": (25, {}, "compare and select"),
    "fp32_min": (25, {}, "compare and select"),
    "fp32_add": (128, {}, "one fp32 addition"),
    "bf16_mul": (74, {}, "one bf16 product, exact in fp32"),
    "fp32_mul": (110, {}, "one fp32 multiplication"),
    "fp32_tree_sum": (384, {}, "plena_topk's 8-entry sum: three fp32 additions"),
    "plena_recip_pipe": (128, {}, "stage 1: normalization and 7 quotient digits"),
    "plena_sqrt_pipe": (112, {}, "stage 4: the last root digits and rounding"),
    "plena_exp_pipe": (672, {}, "stage 3: three Horner steps (a multiplication and an "
                                "addition each)"),
    "plena_sfpu": (672, {}, "the exp pipeline's stage 3"),
    "vgroup-add": (150, ONE_LANE, "op to the row: latch, widening, addition, rounding"),
    "vgroup-mul": (134, ONE_LANE, "op to the row: latch, widening, multiplication, rounding"),
    "vgroup-max": (50, {}, "op to the row: latch, max/min, rounding"),
    "vgroup-exp": (674, ONE_LANE, "the exp pipeline's stage 3"),
    "vgroup-reci": (143, ONE_LANE, "the reciprocal's stage 4, rounding, the row"),
    "vgroup-map": (37, {}, "the finished chunk's position to the row's element flags"),
    "vreduce-sum": (128, {}, "one fp32 addition per tree level"),
    "vreduce-max": (22, {}, "one fp32 max per tree level"),
    "plena_mac_lane": (256, SMALL_LANE, "stage T2: two fp32 additions"),
    "plena_topk": (672, {}, "the exp pipeline's stage 3 (the argmax over 128 logits, a "
                            "tree 7 compare-selects deep, and the subtraction after it are "
                            "shorter)"),
    "plena_dma": (60, {}, "the queue's head to the idle flag"),
    "plena_check": (88, {}, "the stride through its multiples, their compares with the room "
                            "left in HBM and the first row past the end to the fault address"),
    "smem-fp": (13, {}, "a write's bank address"),
    "smem-int": (11, {}, "a write's bank address"),
    "plena_vsram": (7, {}, "port A's row to its banks' address"),
    "plena_msram": (15, {}, "the step's first column to a bank's read enable (the column "
                            "selection behind the read registers, 4 + 2 tree levels and "
                            "two 2-to-1 choices, is shorter)"),
}

# Cheap (a few seconds of CPU each) at the small configuration, in the default suite:
# unit -> its bound there.
SMALL = {"fp32_add": 128, "plena_sqrt_pipe": 112, "vreduce-max": 22, "plena_check": 85}


def _check(unit: str, bound: int, cfg, **params) -> dict:
    r = paths.longest_path(unit, cfg, timeout=3600, **params)
    print(f"{unit} {r['params']}: {r['levels']} levels ({r['path'][0]} -> {r['path'][-1]}), "
          f"{r['cells']:,} cells, {r['flip_flops']:,} flip-flops, {r['cpu_s']:.1f} s CPU")
    assert 0 < r["levels"] <= bound, (r["levels"], r["path"][0], r["path"][-1])
    return r


@pytest.mark.parametrize("unit", list(SMALL))
def test_longest_path_small(diff_cfg, unit):
    _check(unit, SMALL[unit], diff_cfg)


def test_a_group_path_runs_through_its_operand_isolation(diff_cfg):
    """plena_opiso is AND gates, not a path end: the add group's longest path starts at a
    register in front of the isolation (the function, f, the chunk's position, the
    isolation's act register, or port A's and B's rows, the module's inputs) and runs
    through its AND gates and the fp32 addition behind them to the row (one lane: VLEN 4,
    CHUNKS 2)."""
    r = _check("vgroup-add", 150, diff_cfg, VLEN=4)
    assert r["levels"] >= FP32_ADD
    assert re.match(r"\\(op_q|f_q|use_f_q|c_r|base_r|row_a|row_b|\S*act_r) ", r["path"][0]), \
        r["path"][:3]


def test_a_latch_not_read_as_a_wire_is_refused(diff_cfg):
    """Any latch synthesis infers fails the measurement (`ltp -noff` would stop at it and
    undercount): here the clock gates', icg.v read as a source instead of a cell
    (plena_opiso is AND gates and holds none)."""
    top, params = paths.unit_params("vreduce-sum", diff_cfg)
    sources = [p for p in build.sources("icarus") if p.name not in paths.HARNESS
               and p.name not in paths.MACROS]
    assert any(p.name == "icg.v" for p in sources)
    with pytest.raises(SynthesisError, match="latch cells after synthesis"):
        synth.longest_path(sources, top, {**params, "VLEN": 4},
                           include=(build.PLENA_RTL, build.COMMON_RTL), timeout=600)


@pytest.mark.synth
@pytest.mark.parametrize("unit", list(BOUNDS))
def test_longest_path_at_the_default_configuration(unit):
    bound, params, _ = BOUNDS[unit]
    _check(unit, bound, default_config(), **params)
