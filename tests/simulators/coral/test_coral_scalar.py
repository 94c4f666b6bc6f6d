"""RV32I, M, F and Zicsr on the model: each instruction's result against values worked
out by hand or by Python integers, plus how a program starts and ends."""
import numpy as np
import pytest
from coral_kit import bits, fbits, read, run, value, x

M = 0xFFFFFFFF


def reg_after(src: str, name: str = "a0") -> int:
    return x(run(src), name)


@pytest.mark.parametrize("src, want", [
    ("li a1, -7\nli a2, 3\nadd a0, a1, a2", (-4) & M),
    ("li a1, 0x7FFFFFFF\naddi a0, a1, 1", 0x80000000),
    ("li a1, 5\nsub a0, zero, a1", (-5) & M),
    ("li a1, -8\nsrai a0, a1, 1", (-4) & M),
    ("li a1, -8\nsrli a0, a1, 28", 0xF),
    ("li a1, 1\nli a2, 35\nsll a0, a1, a2", 8),                   # shift amount mod 32
    ("li a1, -1\nli a2, 1\nslt a0, a1, a2", 1),
    ("li a1, -1\nli a2, 1\nsltu a0, a1, a2", 0),
    ("li a1, 0\nsltiu a0, a1, 1", 1),
    ("li a1, 0x0F0F\nxori a0, a1, -1", (~0x0F0F) & M),
    ("li a1, 6\nandi a0, a1, 3", 2),
    ("lui a0, 0xFFFFF", 0xFFFFF000),
    ("li a1, -3\nli a2, 7\nmul a0, a1, a2", (-21) & M),
    ("li a1, -1\nli a2, -1\nmulh a0, a1, a2", 0),
    ("li a1, -1\nli a2, -1\nmulhu a0, a1, a2", 0xFFFFFFFE),
    ("li a1, -2\nli a2, 3\nmulhsu a0, a1, a2", M),
    ("li a1, -7\nli a2, 2\ndiv a0, a1, a2", (-3) & M),
    ("li a1, -7\nli a2, 2\nrem a0, a1, a2", (-1) & M),
    ("li a1, 7\ndiv a0, a1, zero", M),
    ("li a1, 7\nrem a0, a1, zero", 7),
    ("li a1, 7\ndivu a0, a1, zero", M),
    ("li a1, 0x80000000\nli a2, -1\ndiv a0, a1, a2", 0x80000000),
    ("li a1, 0x80000000\nli a2, -1\nrem a0, a1, a2", 0),
    ("li a1, 9\nli a2, 4\nremu a0, a1, a2", 1),
    ("addi zero, zero, 5\nmv a0, zero", 0),                        # x0 stays 0
])
def test_integer_instructions(src, want):
    assert reg_after(src) == want


def test_auipc_and_jal_link_addresses():
    r = run("nop\nauipc a0, 1\njal a1, next\nnop\nnext: nop")
    assert x(r, "a0") == 4 + 4096 and x(r, "a1") == 12


def test_loads_sign_and_zero_extend_and_stores_truncate():
    r = run("la t0, d\nlb a0, 0(t0)\nlbu a1, 0(t0)\nlh a2, 0(t0)\nlhu a3, 0(t0)\nlw a4, 0(t0)\n"
            "li a5, 0x12345678\nsb a5, 4(t0)\nsh a5, 6(t0)\nsw a5, 8(t0)\n.data\nd: .word 0xFFFF8081, 0, 0",
            )
    assert [x(r, n) for n in ("a0", "a1", "a2", "a3", "a4")] == \
        [0xFFFFFF81, 0x81, 0xFFFF8081, 0x8081, 0xFFFF8081]
    assert read(r, "d", np.uint32, 3).tolist() == [0xFFFF8081, 0x56780078, 0x12345678]


def test_branches_signed_and_unsigned():
    src = """
        li a1, -1
        li a2, 1
        li a0, 0
        blt a1, a2, 1f
        ori a0, a0, 1
    1:  bltu a1, a2, 2f
        ori a0, a0, 2
    2:  bge a2, a1, 3f
        ori a0, a0, 4
    3:  bgeu a2, a1, 4f
        ori a0, a0, 8
    4:  beq a1, a1, 5f
        ori a0, a0, 16
    5:  bne a1, a1, 6f
        ori a0, a0, 32
    6:
    """
    assert reg_after(src) == 2 | 8 | 32


def test_jalr_call_and_return():
    src = "call f\nli a1, 2\nebreak\nf: li a0, 1\nret"
    r = run(src)
    assert x(r, "a0") == 1 and x(r, "a1") == 2


def test_program_ends_on_ebreak_ecall_falling_off_or_final_ret():
    assert run("li a0, 3\nebreak\nli a0, 4").stop == "break"
    r = run("li a0, 5\nli a7, 93\necall\nli a0, 6\n")
    assert r.stop == "break" and x(r, "a0") == 5
    from kernelcraft.isa.coral import default_config
    from kernelcraft.simulators.core.backend import MemoryImage
    from kernelcraft.simulators.coral.assembler import assemble
    from kernelcraft.simulators.coral.machine import CoralModel
    cfg = default_config()
    for src in ("li a0, 7\n", "li a0, 7\nret\n"):
        p = assemble(src, "t.s", cfg)
        result = CoralModel().run(p, MemoryImage(), cfg)
        assert result.error is None and result.stop == "end" and result.registers["x"][10] == 7


def test_execution_starts_at_start_and_sp_is_the_end_of_dtcm():
    from coral_kit import CFG
    r = run("li a0, 1\n_start: addi a0, a0, 10\nmv a1, sp")
    assert x(r, "a0") == 10 and x(r, "a1") == CFG.DTCM_BASE + CFG.DTCM_SIZE


def test_float_arithmetic_rounding_modes_and_flags():
    src = """
        flw fa1, one, t0
        flw fa2, three, t0
        fdiv.s fa0, fa1, fa2
        fdiv.s fa3, fa1, fa2, rup
        fdiv.s fa4, fa1, fa2, rdn
        frflags a0
        fsflags zero
        fadd.s fa5, fa1, fa2
        frflags a1
        fsrmi 1
        fdiv.s fa6, fa1, fa2
        frrm a2
    .data
    one: .float 1.0
    three: .float 3.0
    """
    r = run(src)
    third = bits(1 / 3)
    assert fbits(r, "fa0") == third
    assert fbits(r, "fa3") == third and fbits(r, "fa4") == third - 1      # 1/3 rounds up at RNE
    assert fbits(r, "fa6") == third - 1                                    # frm = rtz
    assert x(r, "a0") == 1 and x(r, "a1") == 0 and x(r, "a2") == 1
    assert r.registers["fflags"] == 1 and r.registers["frm"] == 1


def test_fused_multiply_add_is_fused():
    # a*a - 1 with a = 1 + 2^-12: exactly 2^-11 + 2^-24; the unfused product rounds
    # 1 + 2^-11 + 2^-24 to 1 + 2^-11 (a tie, to even) and loses the 2^-24
    a = bits(1.0 + 2 ** -12)
    src = f"""
        li t0, {a}
        fmv.w.x fa1, t0
        li t1, {bits(-1.0)}
        fmv.w.x fa2, t1
        fmadd.s fa0, fa1, fa1, fa2
        fmul.s fa3, fa1, fa1
        fadd.s fa4, fa3, fa2
        fnmsub.s fa5, fa1, fa1, fa2
    """
    r = run(src)
    assert value(fbits(r, "fa0")) == 2 ** -11 + 2 ** -24
    assert value(fbits(r, "fa4")) == 2 ** -11
    assert value(fbits(r, "fa5")) == -2.0 - 2 ** -11


def test_dynamic_rounding_with_reserved_frm_is_illegal():
    r = run("li t0, 5\nfsrm t0\nfadd.s fa0, fa0, fa0", expect_ok=False)
    assert "frm = 5" in str(r.error) and "illegal instruction" in str(r.error)
    assert r.error.where.line == 3


def test_conversions_moves_sign_injection_class_compare():
    src = f"""
        li t0, {bits(-2.5)}
        fmv.w.x fa0, t0
        fcvt.w.s a0, fa0, rtz
        fcvt.w.s a1, fa0
        fcvt.wu.s a2, fa0
        li t1, -3
        fcvt.s.w fa1, t1
        fmv.x.w a3, fa1
        fsgnjn.s fa2, fa0, fa0
        fabs.s fa3, fa0
        fclass.s a4, fa0
        flt.s a5, fa0, fa1
        feq.s a6, fa0, fa0
        frflags a7
    """
    r = run(src)
    assert x(r, "a0") == (-2) & M and x(r, "a1") == (-2) & M and x(r, "a2") == 0
    assert x(r, "a3") == bits(-3.0)
    assert fbits(r, "fa2") == bits(2.5) and fbits(r, "fa3") == bits(2.5)
    assert x(r, "a4") == 2 and x(r, "a5") == 0 and x(r, "a6") == 1
    assert x(r, "a7") == 16 | 1                    # fcvt.wu.s of a negative: NV; rounding: NX


def test_csr_counters_and_read_only_csrs():
    r = run("nop\nnop\nrdinstret a0\nrdcycle a1\ncsrr a2, vlenb\ncsrr a3, mhartid")
    assert x(r, "a0") == 2 and x(r, "a1") == 3 and x(r, "a2") == 16 and x(r, "a3") == 0
    r = run("csrw cycle, a0", expect_ok=False)
    assert "read-only" in str(r.error)
    r = run("csrr a0, 0x7C0", expect_ok=False)
    assert "CSR 0x7c0 does not exist" in str(r.error)
    r = run("li t0, 1\ncsrw vstart, t0", expect_ok=False)
    assert "vstart can only be 0" in str(r.error)


def test_fcsr_packs_frm_and_fflags():
    r = run("li t0, 0x7F\nfscsr t0\ncsrr a0, fcsr\ncsrr a1, frm\ncsrr a2, fflags")
    assert (x(r, "a0"), x(r, "a1"), x(r, "a2")) == (0x7F, 3, 0x1F)
