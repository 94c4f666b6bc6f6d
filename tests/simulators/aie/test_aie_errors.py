"""Run-time errors name the bundle, its line and text, the memory and the address;
budgets stop runaway programs; programs built without the assembler are checked."""
import numpy as np
import pytest

from aie_kit import image, run, small
from kernelcraft.isa.plena import default_config as plena_config
from kernelcraft.simulators.aie.machine import AieModel
from kernelcraft.simulators.aie.program import AieProgram, Bundle
from kernelcraft.simulators.core.backend import MemoryImage
from kernelcraft.simulators.core.budget import Budget
from kernelcraft.simulators.core.errors import ConfigError
from kernelcraft.simulators.core.program import Instr


def test_out_of_range_and_misaligned_accesses():
    r = run("MOVPI p3, 8190\nNOP\nVLD x0, [p3]", expect_ok=False)
    e = r.error
    assert e.kind == "memory access error" and e.memory == "dm" and e.address == 8190
    assert e.where.index == 2 and e.where.line == 3 and e.where.text == "VLD x0, [p3]"
    assert "8190..8253" in str(e) and "outside data memory (0..8191)" in str(e)
    r = run("MOVPI p0, 16\nVST x0, [p0]", expect_ok=False)
    assert "not a multiple of 32" in str(r.error) and r.error.address == 16
    r = run("MOVI r1, -64\nMOVP p0, r1\nLD r2, [p0]", expect_ok=False)
    assert r.error.address == -64


def test_errors_name_the_bundle_its_line_and_the_failing_slot():
    r = run("MOVI r1, 5\nMOVPI p0, 8190\nADDI r1, r1, 1 || VLD x0, [p0], 64", expect_ok=False)
    msg = str(r.error)
    assert msg.startswith("memory access error at bundle 2 (line 3: ADDI r1, r1, 1 || VLD x0, [p0], 64), "
                          "slot ld0: `VLD x0, [p0], 64`: data-memory access 8190..8253")
    assert "instruction" not in msg and r.error.memory == "dm" and r.error.address == 8190
    # the second load of a bundle is named by its own slot
    r = run("MOVPI p1, 8192\nVLD x0, [p0] || VLD x1, [p1]", expect_ok=False)
    assert "bundle 1 (line 2: VLD x0, [p0] || VLD x1, [p1]), slot ld1: `VLD x1, [p1]`" in str(r.error)
    r = run("REL l1, 63\nVMOV x1, x2 || REL l1, 1", expect_ok=False)
    assert "bundle 1 (line 2: VMOV x1, x2 || REL l1, 1), slot alu: `REL l1, 1`" in str(r.error)
    # a budget belongs to the bundle, not to one of its operations; a deadlock to the
    # operation that waits (an ACQ, or a DMAIN/DMAOUT on a full queue), as on the RTL
    r = run("LOOP 100000\nNOP\nENDLOOP", budget=Budget(max_instructions=10), expect_ok=False)
    assert "at bundle 1 (line 2: NOP): the program did not finish within 10 bundles" in str(r.error)
    for fast in (True, False):
        r = run("MOVI r1, 3\nVMOV x1, x2 || ACQ l0, 1", budget=Budget(fast=fast), expect_ok=False)
        assert str(r.error).startswith("deadlock at bundle 1 (line 2: VMOV x1, x2 || ACQ l0, 1), "
                                       "slot alu: `ACQ l0, 1`: ACQ l0, 1 waits forever"), str(r.error)
        r = run(".bd A, ext=0, loc=0, n0=8, acq=l2\n" + "MOVI r1, 1 || DMAIN 0, A, r0, r0\n" * 5,
                budget=Budget(fast=fast), expect_ok=False)
        assert str(r.error).startswith("deadlock at bundle 4 (line 6: MOVI r1, 1 || DMAIN 0, A, r0, r0), "
                                       "slot alu: `DMAIN 0, A, r0, r0`: channel in0 is full"), str(r.error)
    r = run(".bd A, ext=0, loc=64, n0=64, acq=l2\nDMAIN 0, A, r0, r0", expect_ok=False)
    assert "at the end of the program (after bundle 0)" in str(r.error)
    assert "queued by bundle 0 (line 2: DMAIN 0, A, r0, r0)" in str(r.error)


def test_a_failing_load_stops_its_bundle_before_later_slots():
    r = run("MOVI r1, 5\nMOVPI p0, 8190\nADDI r1, r1, 1 || VLD x0, [p0], 64", expect_ok=False)
    assert r.error is not None and r.registers["r"][1] == 5 and r.registers["p"][0] == 8190


def test_budget_and_time_limits():
    r = run("LOOP 100000\nNOP\nENDLOOP", budget=Budget(max_instructions=1000), expect_ok=False)
    assert r.error.kind == "instruction budget exceeded" and r.retired == 1000
    r = run("LOOP 1000000\nLOOP 1000\nNOP\nENDLOOP\nENDLOOP", budget=Budget(wall_seconds=0.05, check_every=1000),
            expect_ok=False)
    assert r.error.kind == "time limit exceeded"


def test_loopr_needs_a_positive_count():
    r = run("LOOPR r3\nNOP\nENDLOOP", expect_ok=False)
    assert r.error.kind == "illegal operand" and "at least once" in str(r.error)
    r = run("MOVI r3, 3\nLOOPR r3 || MOVI r3, 100\nADDI r4, r4, 1\nENDLOOP")
    assert r.registers["r"][4] == 3


def test_hardware_loops_run_their_counts_and_nest():
    r = run("LOOP 3\n LOOP 4\n  ADDI r1, r1, 1\n ENDLOOP\n ADDI r2, r2, 1\nENDLOOP\nLOOP 2\n LOOP 5\n"
            "  ADDI r3, r3, 1\n ENDLOOP\nENDLOOP")
    assert r.registers["r"][1:4] == [12, 3, 10] and r.registers["LOOPS"] == []
    assert r.retired == 1 + 3 * (1 + 4 + 1) + 1 + 2 * (1 + 5)


def test_halt_stops_the_core():
    r = run("ADDI r1, r1, 1\nHALT\nADDI r1, r1, 1")
    assert r.stop == "break" and r.registers["r"][1] == 1 and r.retired == 2


def test_wrong_configuration_or_program():
    with pytest.raises(ConfigError, match="aie HardwareConfig"):
        AieModel().run(AieProgram("aie", [], []), MemoryImage(), plena_config())
    r = AieModel().run(AieProgram("plena", [], []), MemoryImage(), small())
    assert "assembled for 'plena'" in str(r.error)


def test_hand_built_programs_are_checked():
    vec = Instr("VADD.I16", {"d": 1, "a": 2, "b": 3})
    bad = AieProgram("aie", [vec, vec], [], bundles=[Bundle(0, 2)])
    r = AieModel().run(bad, MemoryImage(), small())
    assert r.error.kind == "illegal operand" and "rule slots" in str(r.error)
    odd = AieProgram("aie", [Instr("ADDI", {"d": 1, "a": 0, "imm": 5000})], [], bundles=[Bundle(0, 1)])
    r = AieModel().run(odd, MemoryImage(), small())
    assert "simm12 allows -2048..2047" in str(r.error)


def test_memory_image_errors():
    img = image(ext={65530: np.zeros(10, np.uint16)})
    r = AieModel().run(AieProgram("aie", [], []), img, small())
    assert r.error.kind == "memory access error" and "outside 0..65535" in str(r.error)
    img = MemoryImage().put("ext", 0, np.zeros(4, np.float32))
    r = AieModel().run(AieProgram("aie", [], []), img, small())
    assert "uint16" in str(r.error)
    r = AieModel().run(AieProgram("aie", [], []), MemoryImage().put("hbm", 0, np.zeros(1)), small())
    assert "unknown memory 'hbm'" in str(r.error)
