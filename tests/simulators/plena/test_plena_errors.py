"""Bad input: every error names what is wrong and where (instruction, line, text,
memory, address), and the run returns the state reached so far."""
import numpy as np
import pytest

from plena_kit import image, run, run_instrs, small, vrow
from kernelcraft.simulators.core.backend import MemoryImage
from kernelcraft.simulators.core.budget import Budget
from kernelcraft.simulators.core.errors import (BudgetExceeded, ConfigError, IllegalOperandError,
                                                MemoryAccessError, SimError, TimeLimitExceeded)
from kernelcraft.simulators.core.program import Instr, Program
from kernelcraft.simulators.plena.machine import PlenaModel

PRELUDE = """
    S_ADDI_INT gp9, gp0, 7            ; line 2: must survive the error
"""


@pytest.mark.parametrize("line, memory, address, fragment", [
    ("V_ADD_VV gp1, gp0, gp0", "vsram", 4, "not a multiple of 8"),
    ("V_EXP_V gp0, gp2", "vsram", 512, "runs past the end of vsram (addresses 0..511)"),
    ("V_RED_SUM f1, gp3", "vsram", -8, "Vector SRAM address -8 is negative"),
    ("S_MAP_V_FP gp0, gp4, 0", "fp_mem", 60, "FP_MEM access 60..67 runs past the end"),
    ("S_LD_FP f1, gp0, 64", "fp_mem", 64, "FP_MEM_SIZE=64"),
    ("S_ST_FP f1, gp0, -1", "fp_mem", -1, "is negative"),
    ("S_LD_INT gp1, gp0, 32", "int_mem", 32, "INT_MEM_SIZE=32"),
    ("S_ST_INT gp1, gp3, 0", "int_mem", -8, "is negative"),
    ("M_MV 0, gp1, gp0", "msram", 4, "not a multiple of MLEN*MLEN=64"),
    ("S_MAP_V_FP gp1, gp0, 0", "vsram", 4, "not a multiple of 8"),
])
def test_memory_errors_name_instruction_line_memory_and_address(line, memory, address, fragment):
    source = PRELUDE + f"""\
    S_ADDI_INT gp1, gp0, 4            ; line 3
    S_ADDI_INT gp2, gp0, 512
    S_ADDI_INT gp3, gp0, -8
    S_ADDI_INT gp4, gp0, 60
    {line}
    S_ADDI_INT gp9, gp0, 1            ; never reached
    """
    r = run(source, expect_ok=False)
    e = r.error
    assert isinstance(e, MemoryAccessError)
    assert (e.memory, e.address) == (memory, address)
    assert (e.where.index, e.where.line, e.where.text) == (5, 7, line)
    assert e.where.retired == 5 and r.retired == 5 and r.stop == "error"
    text = str(e)
    assert fragment in text and f"instruction 5 (line 7) `{line}`" in text
    assert r.registers["gp"][9] == 7                    # state reached is kept


def test_error_cycle_is_the_issue_cycle_of_the_failing_instruction():
    r = run("""
        S_ADDI_INT gp1, gp0, 4
        V_ADD_VV gp0, gp0, gp0
        V_ADD_VV gp1, gp0, gp0
    """, expect_ok=False)
    # it fails at issue cycle 4 (V_ADD: 2 + 1 cycles); the run counts that cycle, in
    # which the check failed
    assert r.error.where.cycle == 4 and r.cycles == 5
    assert r.unit_busy["scalar_int"] == 1 and r.unit_busy["vector"] == 3


def test_error_in_a_loop_body_reports_the_iteration_state():
    r = run("""
        C_LOOP_START gp1, 10
            S_LD_INT gp3, gp2, 0
            S_ADDI_INT gp2, gp2, 8
        C_LOOP_END gp1
    """, image(int_mem={0: [5], 8: [6], 16: [7], 24: [8]}), expect_ok=False)
    assert r.error.address == 32 and r.error.where.index == 1
    assert r.registers["gp"][3] == 8 and r.registers["gp"][1] == 6   # 4 passes done
    assert r.retired == 1 + 4 * 3 and r.error.where.retired == r.retired


def test_budget_exceeded_on_a_loop_that_would_run_for_ever():
    r = run("""
        C_LOOP_START gp1, 4000000
            C_LOOP_START gp2, 4000000
                S_ADDI_INT gp3, gp3, 1
            C_LOOP_END gp2
        C_LOOP_END gp1
    """, budget=Budget(max_instructions=10_001), expect_ok=False)
    e = r.error
    assert isinstance(e, BudgetExceeded)
    assert r.retired == 10_001 and e.where.retired == 10_001
    assert "did not finish within 10001 instructions" in str(e)
    assert r.registers["gp"][3] == 5000                 # 2 + 2 * 4999 + 1 retired
    assert e.where.text == "C_LOOP_END gp2"


def test_budget_is_exact_in_straight_line_code():
    src = "\n".join("S_ADDI_INT gp1, gp1, 1" for _ in range(10))
    r = run(src, budget=Budget(max_instructions=7), expect_ok=False)
    assert isinstance(r.error, BudgetExceeded)
    assert r.registers["gp"][1] == 7 and r.error.where.index == 7
    assert run(src, budget=Budget(max_instructions=10)).registers["gp"][1] == 10


def test_time_limit():
    r = run("""
        C_LOOP_START gp1, 4000000
            S_ADDI_INT gp3, gp3, 1
        C_LOOP_END gp1
    """, budget=Budget(wall_seconds=0.05, check_every=64), expect_ok=False)
    assert isinstance(r.error, TimeLimitExceeded)
    assert "wall-clock limit of 0.05 s" in str(r.error)
    assert 0 < r.registers["gp"][3] < 4000000 and r.stop == "error"


def test_unknown_mnemonic_and_bad_operands_from_hand_built_programs():
    cases = [
        (Instr("V_FROB", {}, line=3, text="V_FROB gp1"), "unknown instruction 'V_FROB'"),
        (Instr("S_ADD_INT", {"rd": 1, "rs1": 2}), "missing operand rs2"),
        (Instr("S_ADD_INT", {"rd": 16, "rs1": 0, "rs2": 0}), "rd of S_ADD_INT is 16; gp allows 0..15"),
        (Instr("S_ADDI_INT", {"rd": 1, "rs1": 0, "imm": 1 << 17}), "simm18 allows -131072..131071"),
        (Instr("M_MM", {"rd": 3, "rs1": 0, "rs2": 0}), "reserved and must be 0"),
        (Instr("C_LOOP_START", {"rd": 1, "imm": 0}), "count22 allows 1..4194303"),
    ]
    for instr, fragment in cases:
        r = run_instrs([Instr("S_ADDI_INT", {"rd": 1, "rs1": 0, "imm": 1}), instr])
        assert isinstance(r.error, IllegalOperandError), fragment
        assert fragment in str(r.error)
        assert r.error.where.index == 1 and r.retired == 0


def test_program_larger_than_instruction_memory():
    instrs = [Instr("S_ADDI_INT", {"rd": 1, "rs1": 1, "imm": 1})] * 257
    r = run_instrs(instrs)
    assert isinstance(r.error, SimError) and "IMEM_SIZE=256" in str(r.error)


@pytest.mark.parametrize("img, fragment", [
    (MemoryImage().put("sram", 0, np.zeros(4, np.uint16)), "unknown memory 'sram'"),
    (MemoryImage().put("hbm", 4094, np.zeros(4, np.uint16)), "HBM access 4094..4097"),
    (MemoryImage().put("vsram", -1, np.zeros(1, np.uint16)), "is negative"),
    (MemoryImage().put("hbm", 0, np.zeros(4, np.float32)), "take uint16 bit patterns"),
    (MemoryImage().put("fp_mem", 0, np.zeros(4, np.int32)), "float32 values"),
    (MemoryImage().put("int_mem", 0, np.array([2**31])), "32-bit signed integers"),
])
def test_bad_memory_images(img, fragment):
    r = PlenaModel().run(Program("plena", [], []), img, small())
    assert isinstance(r.error, MemoryAccessError) and fragment in str(r.error)
    assert "before the first instruction" in str(r.error)


def test_results_use_storage_dtypes_and_register_shapes():
    r = run("S_ADDI_INT gp1, gp0, 1")
    mem = r.memories
    assert {k: v.dtype for k, v in mem.items()} == {
        "hbm": np.uint16, "vsram": np.uint16, "msram": np.uint16,
        "fp_mem": np.float32, "int_mem": np.int32}
    cfg = small()
    assert mem["vsram"].size == cfg.VSRAM_ROWS * cfg.VLEN and mem["hbm"].size == cfg.HBM_SIZE
    regs = r.registers
    assert len(regs["gp"]) == 16 and len(regs["f"]) == 8 and len(regs["a"]) == 8
    assert regs["MM_ACC"].shape == (2, 2) and regs["BMM_ACC"].shape == (2, 8, 8)
    assert set(r.unit_busy) == {"scalar_int", "scalar_fp", "vector", "matrix", "dma", "control"}
    assert r.backend == "plena-model" and r.stalls == {"dma_wait": 0}


def test_vector_row_untouched_by_failed_instruction():
    r = run("""
        S_ADDI_INT gp1, gp0, 8
        S_ADDI_INT gp2, gp0, 5
        V_SHFT_V gp1, gp0, gp2
        S_ADDI_INT gp2, gp0, 12
        V_SHFT_V gp1, gp0, gp2
    """, image(vsram={0: [1, 2, 3, 4, 5, 6, 7, 8]}), expect_ok=False)
    assert isinstance(r.error, IllegalOperandError)
    assert vrow(r, 1).tolist() == [6, 7, 8, 0, 0, 0, 0, 0]


def test_program_for_another_accelerator_and_wrong_configuration():
    r = PlenaModel().run(Program("coral", [], []), MemoryImage(), small())
    assert isinstance(r.error, SimError) and "assembled for 'coral'" in str(r.error)
    with pytest.raises(ConfigError, match="plena HardwareConfig"):
        PlenaModel().run(Program("plena", [], []), MemoryImage(), {"MLEN": 8})
    with pytest.raises(ConfigError, match="VLEN == MLEN"):
        PlenaModel().run(Program("plena", [], []), MemoryImage(), small(VLEN=16))


def test_long_straight_line_code_and_budget_across_block_boundaries():
    cfg = small(IMEM_SIZE=1024)
    src = "\n".join(["S_ADDI_INT gp1, gp1, 1"] * 300 + ["V_ADD_VV gp0, gp0, gp0"] * 300)
    full = run(src, cfg=cfg)
    assert full.registers["gp"][1] == 300 and full.cycles == 300 + 900 and full.retired == 600
    cut = run(src, cfg=cfg, budget=Budget(max_instructions=520), expect_ok=False)
    assert isinstance(cut.error, BudgetExceeded) and cut.error.where.index == 520
    # the budget check at the 521st instruction's issue takes its cycle
    assert cut.cycles == 300 + 3 * 220 + 1 and cut.unit_busy["vector"] == 660
