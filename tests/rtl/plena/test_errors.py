"""Runs that stop on an error, a budget or a bad input: the RTL stops at the same
instruction and cycle as the functional model, with the same kind of error, memory and
address, the same state, and the cycle count including queued transfers."""
import numpy as np
import pytest

from kernelcraft.isa.plena import default_config
from kernelcraft.simulators.core.backend import MemoryImage
from kernelcraft.simulators.core.budget import Budget
from kernelcraft.simulators.core.errors import (BudgetExceeded, IllegalOperandError,
                                                MemoryAccessError, SimError, TimeLimitExceeded)
from kernelcraft.simulators.core.program import Instr, Program
from kernelcraft.simulators.plena.assembler import assemble
from kernelcraft.simulators.plena.machine import PlenaModel
from kernelcraft.simulators.plena_rtl.backend import Job, PlenaRTL
from kernelcraft.simulators.plena_rtl.compare import compare_runs

# DIFF_CONFIG: VLEN = MLEN = 16, BLEN = 4, HEADS = 4, Vector SRAM 2048 elements, Matrix
# SRAM 4 tiles of 256, FP_MEM 256, INT_MEM 64, HBM 8192, LOOP_DEPTH 4.
PREFETCH = """
S_ADDI_INT gp1, gp0, 32
S_ADDI_INT gp2, gp0, 100
H_PREFETCH_V gp1, gp2, a0, 0, 0
"""
CASES = {
    "vsram misaligned": ("S_ADDI_INT gp1, gp0, 17\nV_ADD_VV gp2, gp1, gp0", MemoryAccessError),
    "vsram negative": ("S_ADDI_INT gp1, gp0, -16\nV_EXP_V gp1, gp0", MemoryAccessError),
    "vsram past the end": ("S_ADDI_INT gp3, gp0, 2048\nV_MUL_VV gp0, gp0, gp3", MemoryAccessError),
    "int_mem": ("S_ADDI_INT gp1, gp0, 60\nS_LD_INT gp2, gp1, 4", MemoryAccessError),
    "fp_mem negative": ("S_ST_FP f1, gp0, -1", MemoryAccessError),
    "map fp span": ("S_ADDI_INT gp1, gp0, 250\nS_MAP_V_FP gp0, gp1, 0", MemoryAccessError),
    "shift negative": ("S_ADDI_INT gp3, gp0, -1\nV_SHFT_V gp0, gp0, gp3", IllegalOperandError),
    "shift too far": ("S_ADDI_INT gp3, gp0, 17\nV_SHFT_V gp0, gp0, gp3", IllegalOperandError),
    "topk nan": ("S_ADDI_INT gp2, gp0, 64\nV_TOPK gp0, gp2, gp0, 0", IllegalOperandError),
    # 8 of 128 over rows 0-7: waits for the prefetch into rows 2-3, then finds row 4's NaN
    "topk nan after a stall": (PREFETCH + "V_TOPK gp0, gp0, gp0, 1", IllegalOperandError),
    "topk weights": ("S_ADDI_INT gp1, gp0, 253\nV_TOPK gp1, gp0, gp0, 0", MemoryAccessError),
    "topk indices": ("S_ADDI_INT gp3, gp0, 60\nV_TOPK gp0, gp0, gp3, 1", MemoryAccessError),
    "mm column offset": ("S_ADDI_INT gp1, gp0, 2\nM_MM 0, gp1, gp0", MemoryAccessError),
    "mm column past the tile edge": ("S_ADDI_INT gp1, gp0, 16\nM_TMM 0, gp1, gp0", MemoryAccessError),
    "mv not a tile": ("S_ADDI_INT gp1, gp0, 4\nM_MV 0, gp1, gp0", MemoryAccessError),
    "bmm rows past the end": ("S_ADDI_INT gp2, gp0, 1920\nM_BMM 0, gp0, gp2", MemoryAccessError),
    "mm_wo misaligned": ("M_MM_WO gp0, 0, 2", MemoryAccessError),
    "bmm_wo rows": ("S_ADDI_INT gp1, gp0, 1040\nM_BMM_WO gp1, 0", MemoryAccessError),
    "prefetch past hbm": ("S_ADDI_INT gp2, gp0, 8180\nH_PREFETCH_V gp0, gp2, a0, 0, 0", MemoryAccessError),
    "negative stride below hbm": (
        "S_ADDI_INT gp4, gp0, -40\nC_SET_STRIDE_REG gp4\nS_ADDI_INT gp2, gp0, 10\n"
        "H_STORE_V gp0, gp2, a1, 1, 0", MemoryAccessError),
    "tile prefetch past hbm": ("S_LUI_INT gp2, 2\nH_PREFETCH_M gp0, gp2, a0, 0, 0", MemoryAccessError),
    "tile prefetch misaligned": ("S_ADDI_INT gp1, gp0, 16\nH_PREFETCH_M gp1, gp0, a0, 0, 0", MemoryAccessError),
    # plena_check finds the first row past the end without a scan: rows 0-8 at 100 + r*1000
    # are in HBM, row 9 (9100) is the first past its end; rows 0-14 of 7937 + 16r are in,
    # row 15 ends one past; row 1 of 200 + 8000r; a downward stride from a first row
    # already past the end
    "strided tile prefetch past hbm mid-way": (
        "S_ADDI_INT gp4, gp0, 1000\nC_SET_STRIDE_REG gp4\nS_ADDI_INT gp2, gp0, 100\n"
        "H_PREFETCH_M gp0, gp2, a0, 1, 0", MemoryAccessError),
    "tile prefetch's last row one past hbm": (
        "S_ADDI_INT gp2, gp0, 7937\nH_PREFETCH_M gp0, gp2, a0, 0, 0", MemoryAccessError),
    "strided store's second row past hbm": (
        "S_ADDI_INT gp4, gp0, 8000\nC_SET_STRIDE_REG gp4\nS_ADDI_INT gp2, gp0, 200\n"
        "H_STORE_V gp0, gp2, a1, 1, 0", MemoryAccessError),
    "negative stride from past hbm": (
        "S_ADDI_INT gp4, gp0, -16\nC_SET_STRIDE_REG gp4\nS_ADDI_INT gp2, gp0, 8180\n"
        "H_PREFETCH_V gp0, gp2, a0, 1, 0", MemoryAccessError),
    "error after queued transfers": (PREFETCH + "S_ADDI_INT gp5, gp0, 3\nV_ADD_VV gp5, gp0, gp0",
                                     MemoryAccessError),
}


def _image(cfg):
    img = MemoryImage()
    vs = np.full(cfg.VSRAM_ROWS * cfg.VLEN, 0x3F80, dtype=np.uint16)
    vs[64 + 5] = 0x7FC0                           # a NaN among the logits at row 4
    img.put("vsram", 0, vs)
    img.put("fp_mem", 0, np.linspace(-2, 2, cfg.FP_MEM_SIZE, dtype=np.float32))
    return img


def _loops(depth: int) -> list[Instr]:
    out = [Instr("C_LOOP_START", {"rd": 1 + d, "imm": 2}) for d in range(depth)]
    return out + [Instr("C_LOOP_END", {"rd": depth - d}) for d in range(depth)]


@pytest.fixture(scope="module")
def outcomes(diff_cfg):
    """Every case run on both backends: {name: (model result, RTL result, expected kind)}."""
    img = _image(diff_cfg)
    cases = {name: (assemble(src, f"{name}.asm", diff_cfg), kind) for name, (src, kind) in CASES.items()}
    cases["loops too deep"] = (Program("plena", _loops(diff_cfg.LOOP_DEPTH + 1), []),
                               IllegalOperandError)
    cases["loop end without start"] = (Program("plena", [Instr("S_ADDI_INT", {"rd": 1, "rs1": 0, "imm": 1}),
                                                         Instr("C_LOOP_END", {"rd": 1})], []),
                                       IllegalOperandError)
    names = list(cases)
    rtl = PlenaRTL().run_many([Job(cases[n][0], img) for n in names], diff_cfg)
    return {n: (PlenaModel().run(cases[n][0], img, diff_cfg), r, cases[n][1])
            for n, r in zip(names, rtl)}


@pytest.mark.parametrize("name", list(CASES) + ["loops too deep", "loop end without start"])
def test_errors_agree(outcomes, name):
    model, rtl, kind = outcomes[name]
    assert isinstance(model.error, kind), f"the case does not test what it says: {model.error}"
    assert not compare_runs(model, rtl), [d.format() for d in compare_runs(model, rtl)]
    assert isinstance(rtl.error, kind) and rtl.stop == "error"
    # The message locates the instruction and names the memory or the rule.
    assert f"instruction {model.error.where.index}" in str(rtl.error)
    if rtl.error.memory:
        assert str(rtl.error.address) in str(rtl.error)


def test_queued_transfers_are_counted(outcomes):
    model, rtl, _ = outcomes["error after queued transfers"]
    assert rtl.cycles > rtl.error.where.cycle       # the prefetch completed after the error


INFINITE = """
S_ADDI_INT gp2, gp0, 16
C_LOOP_START gp1, 2
  V_ADD_VF gp2, gp2, f0
  S_ADDI_INT gp1, gp0, 2      ; the counter never runs out
C_LOOP_END gp1
"""


def test_budgets_and_time_limit(diff_cfg):
    program = assemble(INFINITE, "forever.asm", diff_cfg)
    img = MemoryImage()
    budget = Budget(max_instructions=1000)
    model = PlenaModel().run(program, img, diff_cfg, budget)
    rtl = PlenaRTL().run(program, img, diff_cfg, budget)
    assert isinstance(rtl.error, BudgetExceeded) and "1000 instructions" in str(rtl.error)
    assert not compare_runs(model, rtl)

    capped = PlenaRTL(max_cycles=5000).run(program, img, diff_cfg, Budget(max_instructions=10**9))
    assert isinstance(capped.error, BudgetExceeded)
    assert "cycle budget of 5000 cycles" in str(capped.error)
    # stopped at issue in cycle 5000; that cycle is spent, the clock counts it
    assert capped.error.where.cycle == 5000 and capped.cycles == 5001

    timed = PlenaRTL().run(program, img, diff_cfg, Budget(max_instructions=10**12, wall_seconds=0.5))
    assert isinstance(timed.error, TimeLimitExceeded) and "0.5 s" in str(timed.error)
    assert timed.retired > 1000


def test_bad_programs_and_images_fail_before_simulating(diff_cfg):
    ok = assemble("S_ADDI_INT gp1, gp0, 1", "ok.asm", diff_cfg)
    too_long = Program("plena", [Instr("S_ADDI_INT", {"rd": 1, "rs1": 0, "imm": 1})] * 3000, [])
    foreign = Program("coral", ok.instrs, ok.words)
    bad_operand = Program("plena", [Instr("S_ADDI_INT", {"rd": 1, "rs1": 0, "imm": 1 << 20})], [])
    cases = [(too_long, MemoryImage()), (foreign, MemoryImage()), (bad_operand, MemoryImage()),
             (ok, MemoryImage().put("nvram", 0, np.zeros(2, np.uint16))),
             (ok, MemoryImage().put("vsram", 0, np.zeros(2, np.float32))),
             (ok, MemoryImage().put("hbm", 8190, np.zeros(4, np.uint16)))]
    rtl = PlenaRTL().run_many([Job(p, i) for p, i in cases], diff_cfg)
    for (program, image), r in zip(cases, rtl):
        m = PlenaModel().run(program, image, diff_cfg)
        assert isinstance(r.error, SimError) and type(r.error) is type(m.error)
        assert str(r.error) == str(m.error)
        assert r.cycles == 0 and r.retired == 0


def test_non_plena_configuration_is_refused():
    from kernelcraft.simulators.core.errors import ConfigError
    with pytest.raises(ConfigError, match="VLEN == MLEN"):
        PlenaRTL().run(Program("plena", [], []), MemoryImage(), default_config(VLEN=32))
