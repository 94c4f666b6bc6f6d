"""Bad programs on the model: every error names the instruction (index, source line,
text), the cycle, and for memory faults the memory and address; budgets stop runaway
loops; bad configurations and memory images are refused with the fix."""
import numpy as np
import pytest
from coral_kit import CFG, run

from kernelcraft.isa.coral import default_config
from kernelcraft.simulators.core.backend import MemoryImage
from kernelcraft.simulators.core.budget import Budget
from kernelcraft.simulators.core.errors import ConfigError
from kernelcraft.simulators.core.program import Instr, Program
from kernelcraft.simulators.coral.assembler import assemble
from kernelcraft.simulators.coral.machine import CoralModel


def test_misaligned_load_names_instruction_line_and_address():
    r = run("nop\nla a0, d\nlw a1, 2(a0)\n.data\nd: .word 1, 2", expect_ok=False)
    e = r.error
    assert e.kind == "memory access error" and e.memory == "dtcm" and e.address == CFG.DTCM_BASE + 2
    assert e.where.line == 3 and e.where.index == 3 and e.where.text == "lw a1, 2(a0)"
    assert "not aligned" in str(e) and "multiple of 4" in str(e)
    assert r.retired == 3 and r.stop == "error"


@pytest.mark.parametrize("src, words", [
    ("li a0, 0x100\nsw a0, 0(a0)", ["store", "in ITCM"]),
    ("li a0, -4\nlw a1, 0(a0)", ["outside DTCM"]),
    ("li a0, 0x80000000\nlb a1, 0(a0)", ["outside DTCM", "0x80000000"]),
    ("la a0, d\nflw fa0, 1(a0)\n.data\nd: .word 0", ["not aligned"]),
])
def test_out_of_range_and_misaligned_accesses(src, words):
    r = run(src, expect_ok=False)
    for w in words:
        assert w in str(r.error), str(r.error)


def test_bad_jumps():
    r = run("li t0, 6\njr t0", expect_ok=False)
    assert "jump target 0x00000006 is not a multiple of 4" in str(r.error) and r.error.where.line == 2
    r = run("li t0, 0x4000\njalr t0", expect_ok=False)
    assert "outside the program" in str(r.error)


def test_data_in_text_is_an_illegal_instruction_when_reached():
    r = run("nop\n.word 0xFFFFFFFF\nnop", expect_ok=False)
    assert "0xffffffff is not a coral instruction" in str(r.error) and r.error.where.index == 1


def test_runaway_loop_stops_at_the_budget_with_its_location():
    r = run("li a0, 1\nloop: addi a1, a1, 1\nbnez a0, loop", budget=Budget(max_instructions=1001),
            expect_ok=False)
    assert r.error.kind == "instruction budget exceeded" and r.retired == 1001
    assert "did not finish within 1001 instructions" in str(r.error)
    assert r.error.where.line in (2, 3) and r.registers["x"][11] == 500


def test_wall_clock_limit():
    r = run("loop: j loop", budget=Budget(max_instructions=10**9, wall_seconds=0.05, check_every=1000),
            expect_ok=False)
    assert r.error.kind == "time limit exceeded"


def test_memory_image_and_program_checks():
    p = assemble("ebreak", "t.s", CFG)
    r = CoralModel().run(p, MemoryImage().put("dtcm", 0x100, np.zeros(4, np.uint8)), CFG)
    assert "outside DTCM" in str(r.error) and "byte addresses" in str(r.error)
    r = CoralModel().run(p, MemoryImage().put("itcm", 0, np.zeros(4, np.uint8)), CFG)
    assert "ITCM holds the program" in str(r.error)
    r = CoralModel().run(p, MemoryImage().put("hbm", 0, np.zeros(4, np.uint8)), CFG)
    assert "coral has no memory 'hbm'" in str(r.error)
    big = Program("coral", [Instr("addi", {"rd": 0, "rs1": 0, "imm": 0})] * 3000, [0x13] * 3000)
    assert "ITCM holds ITCM_SIZE" in str(CoralModel().run(big, MemoryImage(), CFG).error)
    other = Program("plena", [], [])
    assert "assembled for 'plena'" in str(CoralModel().run(other, MemoryImage(), CFG).error)


def test_configurations_the_model_refuses():
    from kernelcraft.isa.plena import default_config as plena_config
    p = assemble("ebreak", "t.s", CFG)
    with pytest.raises(ConfigError, match="needs a coral HardwareConfig"):
        CoralModel().run(p, MemoryImage(), plena_config())
    with pytest.raises(ConfigError, match="lies inside ITCM"):
        CoralModel().run(p, MemoryImage(), default_config(ITCM_SIZE=1 << 20))
    with pytest.raises(ConfigError, match="power of two"):
        default_config(VLEN=100)
