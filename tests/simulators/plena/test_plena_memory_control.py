"""HBM transfers (H-type) and control (C-type) instructions, including hardware loops
and C_BREAK, on the small configuration (2 rows per H_PREFETCH_V / H_STORE_V)."""
import numpy as np
import pytest

from plena_kit import image, run, run_instrs, vals, vrow
from kernelcraft.simulators.core.budget import Budget
from kernelcraft.simulators.core.errors import (BudgetExceeded, IllegalOperandError,
                                                MemoryAccessError)
from kernelcraft.simulators.core.program import Instr

HBM = {0: list(range(256))}          # HBM[i] = i (exact in bf16)
BASE = """
    S_ADDI_INT gp5, gp0, 100
    C_SET_ADDR_REG a1, gp0, gp5       ; a1 = 100
    S_ADDI_INT gp1, gp0, 4            ; HBM offset
    S_ADDI_INT gp2, gp0, 24           ; Vector SRAM row 3
"""


def hrun(body, **kw):
    return run(BASE + body, image(hbm=HBM), **kw)


def test_prefetch_v_contiguous_rows():
    r = hrun("H_PREFETCH_V gp2, gp1, a1, 0, 0")
    assert vrow(r, 3).tolist() == list(range(104, 112))
    assert vrow(r, 4).tolist() == list(range(112, 120))
    assert vrow(r, 5).tolist() == [0] * 8


def test_prefetch_v_strided_and_precision_flag():
    r = hrun("""
        S_ADDI_INT gp6, gp0, 20
        C_SET_STRIDE_REG gp6
        H_PREFETCH_V gp2, gp1, a1, 1, 1
    """)
    assert r.registers["STRIDE"] == 20
    assert vrow(r, 3).tolist() == list(range(104, 112))
    assert vrow(r, 4).tolist() == list(range(124, 132))


def test_prefetch_m_row_major_with_stride():
    r = hrun("""
        S_ADDI_INT gp6, gp0, 16
        C_SET_STRIDE_REG gp6
        S_ADDI_INT gp3, gp0, 64       ; tile 1
        H_PREFETCH_M gp3, gp0, a0, 1, 0
        S_ADDI_INT gp4, gp0, 128      ; tile 2
        H_PREFETCH_M gp4, gp0, a1, 0, 0
    """)
    tile1 = vals(r.memories["msram"][64:128]).reshape(8, 8)
    tile2 = vals(r.memories["msram"][128:192]).reshape(8, 8)
    assert tile1.tolist() == [[16 * k + j for j in range(8)] for k in range(8)]
    assert tile2.tolist() == [[100 + 8 * k + j for j in range(8)] for k in range(8)]


def test_store_v_and_overlapping_strided_rows_write_in_order():
    img = image(vsram={24: [1] * 8, 32: [2] * 8, 40: [3] * 8, 48: [4] * 8})
    r = run(BASE + """
        H_STORE_V gp2, gp1, a1, 0, 0      ; rows 3, 4 -> HBM[104..119]
        S_ADDI_INT gp6, gp0, 4
        C_SET_STRIDE_REG gp6
        S_ADDI_INT gp3, gp0, 40           ; rows 5, 6
        H_STORE_V gp3, gp0, a0, 1, 0      ; HBM[0..7] = 3, then HBM[4..11] = 4
    """, img)
    hbm = vals(r.memories["hbm"])
    assert r.memories["hbm"].dtype == np.uint16
    assert hbm[104:120].tolist() == [1] * 8 + [2] * 8
    assert hbm[0:12].tolist() == [3] * 4 + [4] * 8
    assert hbm[120:122].tolist() == [0, 0]


def test_set_addr_reg_forms_64_bit_addresses():
    r = run("""
        S_ADDI_INT gp1, gp0, 1
        S_ADDI_INT gp2, gp0, -1
        C_SET_ADDR_REG a1, gp1, gp2     ; 2^32 + 0xFFFFFFFF
        C_SET_ADDR_REG a2, gp2, gp0     ; -1 * 2^32 -> 0xFFFFFFFF00000000
        C_SET_ADDR_REG a3, gp0, gp2     ; unsigned(gp2)
    """)
    assert r.registers["a"][1:4] == [0x1FFFFFFFF, 0xFFFFFFFF00000000, 0xFFFFFFFF]


def test_status_registers():
    r = run("""
        S_ADDI_INT gp1, gp0, 3
        S_ADDI_INT gp2, gp0, -8
        C_SET_SCALE_REG gp1
        C_SET_STRIDE_REG gp2
        C_SET_V_MASK_REG gp1
    """)
    assert (r.registers["SCALE_OFFSET"], r.registers["STRIDE"], r.registers["V_MASK"]) == (3, -8, 3)


@pytest.mark.parametrize("body, address", [
    ("S_ADDI_INT gp7, gp0, 3990\nH_PREFETCH_V gp2, gp7, a1, 0, 0", 4098 - 8),
    ("S_ADDI_INT gp7, gp0, -105\nH_PREFETCH_V gp2, gp7, a1, 0, 0", -5),
    ("S_ADDI_INT gp7, gp0, 3950\nH_PREFETCH_M gp0, gp7, a1, 0, 0", 4090),
    ("S_ADDI_INT gp7, gp0, 3985\nH_STORE_V gp2, gp7, a1, 0, 0", 4093),
])
def test_hbm_out_of_range(body, address):
    r = hrun(body, expect_ok=False)
    assert isinstance(r.error, MemoryAccessError)
    assert r.error.memory == "hbm" and r.error.address == address
    assert r.error.where.text == body.splitlines()[-1]
    assert vrow(r, 3).tolist() == [0] * 8 and not r.memories["hbm"][256:].any()


def test_negative_stride_reaching_below_zero():
    r = hrun("""
        S_ADDI_INT gp6, gp0, -200
        C_SET_STRIDE_REG gp6
        H_PREFETCH_V gp2, gp1, a1, 1, 0     ; rows at 104 and -96
    """, expect_ok=False)
    assert r.error.address == -96 and "is negative" in str(r.error)


@pytest.mark.parametrize("body, memory, address", [
    ("S_ADDI_INT gp3, gp0, 65\nH_PREFETCH_M gp3, gp0, a0, 0, 0", "msram", 65),
    ("S_ADDI_INT gp3, gp0, 256\nH_PREFETCH_M gp3, gp0, a0, 0, 0", "msram", 256),
    ("S_ADDI_INT gp3, gp0, 12\nH_PREFETCH_V gp3, gp0, a0, 0, 0", "vsram", 12),
    ("S_ADDI_INT gp3, gp0, 504\nH_STORE_V gp3, gp0, a0, 0, 0", "vsram", 504),
])
def test_transfer_sram_side_errors(body, memory, address):
    r = hrun(body, expect_ok=False)
    assert isinstance(r.error, MemoryAccessError)
    assert (r.error.memory, r.error.address) == (memory, address)


# --- hardware loops --------------------------------------------------------------

def test_loop_trip_count_and_counter_values():
    r = run("""
        C_LOOP_START gp1, 5
            S_ADDI_INT gp2, gp2, 1
            S_ADD_INT  gp3, gp3, gp1      ; reads 5, 4, 3, 2, 1
        C_LOOP_END gp1
    """)
    gp = r.registers["gp"]
    assert (gp[1], gp[2], gp[3]) == (0, 5, 15)
    assert r.retired == 1 + 5 * 3
    assert r.registers["LOOPS"] == []


def test_nested_loops():
    r = run("""
        C_LOOP_START gp1, 3
            S_ADDI_INT gp4, gp4, 100
            C_LOOP_START gp2, 4
                S_ADDI_INT gp3, gp3, 1
            C_LOOP_END gp2
            S_ADDI_INT gp5, gp5, 1
        C_LOOP_END gp1
        S_ADDI_INT gp6, gp0, 9
    """)
    gp = r.registers["gp"]
    assert (gp[3], gp[4], gp[5], gp[6]) == (12, 300, 3, 9)
    assert r.retired == 1 + 3 * (1 + 1 + 4 * 2 + 1 + 1) + 1


def test_loop_of_one_iteration_and_empty_body():
    r = run("""
        C_LOOP_START gp1, 1
        C_LOOP_END gp1
        C_LOOP_START gp2, 7
            S_ADDI_INT gp3, gp3, 2
        C_LOOP_END gp2
    """)
    assert r.registers["gp"][3] == 14 and r.retired == 2 + 1 + 7 * 2


def test_body_writing_the_counter_changes_the_trip_count():
    r = run("""
        C_LOOP_START gp1, 10
            S_ADDI_INT gp2, gp2, 1
            S_ADDI_INT gp1, gp0, 1        ; the END makes it 0: leave after this pass
        C_LOOP_END gp1
    """)
    assert r.registers["gp"][2] == 1


def test_counter_reset_in_the_body_runs_into_the_budget():
    r = run("""
        C_LOOP_START gp1, 3
            S_ADDI_INT gp1, gp0, 2        ; never reaches 0
            S_ADDI_INT gp2, gp2, 1
        C_LOOP_END gp1
    """, budget=Budget(max_instructions=1000), expect_ok=False)
    assert isinstance(r.error, BudgetExceeded)
    assert r.retired == 1000 and r.stop == "error"
    assert r.registers["gp"][2] == 333                # state reached is kept


def test_break_stops_cleanly():
    r = run("""
        S_ADDI_INT gp1, gp0, 1
        C_LOOP_START gp2, 5
            S_ADDI_INT gp3, gp3, 1
            C_BREAK
        C_LOOP_END gp2
        S_ADDI_INT gp4, gp0, 1
    """)
    assert r.stop == "break" and r.error is None
    assert r.registers["gp"][3] == 1 and r.registers["gp"][4] == 0
    assert r.retired == 4


def test_program_that_runs_off_the_end():
    r = run("S_ADDI_INT gp1, gp0, 1")
    assert r.stop == "end" and r.retired == 1


def test_loop_nesting_beyond_loop_depth_is_a_runtime_error():
    # the assembler refuses this; hand-built words still must not crash the model
    starts = [Instr("C_LOOP_START", {"rd": r, "imm": 2}, line=r, text=f"C_LOOP_START gp{r}, 2")
              for r in range(1, 5)]
    ends = [Instr("C_LOOP_END", {"rd": r}) for r in range(4, 0, -1)]
    r = run_instrs(starts + ends)
    assert isinstance(r.error, IllegalOperandError)
    assert "LOOP_DEPTH=3" in str(r.error) and r.error.where.index == 3
    assert r.registers["LOOPS"] == [1, 2, 3]


def test_loop_end_without_start_is_a_runtime_error():
    r = run_instrs([Instr("S_ADDI_INT", {"rd": 1, "rs1": 0, "imm": 4}),
                    Instr("C_LOOP_END", {"rd": 1})])
    assert isinstance(r.error, IllegalOperandError)
    assert "without an open hardware loop" in str(r.error)
    assert r.error.where.index == 1 and r.error.where.text == "C_LOOP_END gp1, 0"
    assert r.registers["gp"][1] == 4 and r.retired == 1
