"""plena assembler, encoder, decoder and disassembler against the ISA data."""
import random
import time

import pytest

from kernelcraft.isa.loader import HardwareConfig, get_isa
from kernelcraft.simulators.core.errors import AssemblyError, DecodeError
from kernelcraft.simulators.core.program import Instr, Program
from kernelcraft.simulators.plena.assembler import (assemble, decode, disassemble, encode,
                                                    expression_names, format_instr)

ISA = get_isa("plena")
DEFS = ISA.instructions
WORD_MASK = (1 << ISA.word_bits) - 1


def errors_of(source, config=None):
    with pytest.raises(AssemblyError) as e:
        assemble(source, "k.asm", config)
    return e.value.diagnostics


def only_error(source, config=None):
    diags = errors_of(source, config)
    assert len(diags) == 1, "\n".join(d.format() for d in diags)
    return diags[0]


def random_ops(d, rng):
    ops = {}
    for op in d.operands:
        k = op.kind
        if k.reserved:
            ops[op.name] = 0
        elif k.is_register:
            ops[op.name] = rng.randrange(k.count)
        else:
            ops[op.name] = rng.choice([k.min, k.max, rng.randint(k.min, k.max)])
    return ops


def spelled(d, ops, rng):
    """The instruction written with random but legal spelling choices."""
    parts = []
    for op in d.operands:
        k, v = op.kind, ops[op.name]
        if k.reserved:
            parts.append(rng.choice(["0", "gp0", "GP0", "f0", "a0", "0x0", "1 - 1"]))
        elif k.is_register:
            parts.append(rng.choice([str.lower, str.upper])(f"{k.prefix}{v}"))
        else:
            parts.append(rng.choice([str(v), hex(v) if v >= 0 else f"-{hex(-v)}",
                                     f"({v} - 1) + 1", f"{v}"]))
    n = len(parts)
    while n and d.operands[n - 1].optional and ops[d.operands[n - 1].name] == 0 and rng.random() < 0.5:
        n -= 1
    mn = rng.choice([d.mnemonic, d.mnemonic.lower(), d.mnemonic.title()])
    sep = rng.choice([", ", ",", " ,  "])
    return f"{mn} {sep.join(parts[:n])}".rstrip() if n else mn


# --- round trips -------------------------------------------------------------------

def in_loop(mnemonic, ops, text):
    """A loop instruction alone breaks the loop-structure check: add its partner.
    Returns the source and the index of `text` in it."""
    if mnemonic == "C_LOOP_START":
        return f"{text}\nC_LOOP_END gp{ops['rd']}", 0
    if mnemonic == "C_LOOP_END":
        return f"C_LOOP_START gp{ops['rd']}, 1\n{text}", 1
    return text, 0


@pytest.mark.parametrize("mnemonic", list(DEFS))
def test_round_trip_every_instruction(mnemonic):
    d, rng = DEFS[mnemonic], random.Random(mnemonic)
    for _ in range(40):
        ops = random_ops(d, rng)
        if mnemonic in ("C_LOOP_START", "C_LOOP_END"):
            ops["rd"] = rng.randrange(1, 16)          # gp0 cannot count a loop
        word = encode(Instr(mnemonic, ops))
        assert 0 <= word <= WORD_MASK
        back = decode(word)
        assert (back.mnemonic, back.ops) == (mnemonic, ops)
        source, at = in_loop(mnemonic, ops, disassemble([word]).strip())
        assert assemble(source).words[at] == word
        source, at = in_loop(mnemonic, ops, spelled(d, ops, rng))
        prog = assemble(source)
        assert prog.words[at] == word, source
        assert prog.instrs[at].ops == ops and prog.instrs[at].mnemonic == mnemonic


def test_round_trip_of_a_random_program():
    rng = random.Random(7)
    instrs = [Instr(mn, random_ops(DEFS[mn], rng)) for mn in rng.choices(
        [m for m in DEFS if m not in ("C_LOOP_START", "C_LOOP_END")], k=500)]
    words = [encode(i) for i in instrs]
    text = disassemble(words)
    assert len(text.splitlines()) == 500
    assert assemble(text).words == words


def test_decode_every_assigned_and_unassigned_opcode():
    by_opcode = {d.opcode: d for d in DEFS.values()}
    for opcode in range(1 << ISA.opcode_width):
        word = opcode << ISA.opcode_lsb
        if opcode not in by_opcode:
            with pytest.raises(DecodeError, match=f"opcode 0x{opcode:02X} is not assigned"):
                decode(word, 3)
            continue
        d = by_opcode[opcode]
        if any(op.kind.min > 0 for op in d.operands if not op.kind.is_register):
            word = encode(Instr(d.mnemonic, {op.name: max(op.kind.min, 0) for op in d.operands}))
        assert decode(word).mnemonic == d.mnemonic


def test_zero_word_is_illegal_and_error_names_index_and_word():
    with pytest.raises(DecodeError) as e:
        decode(0, 12)
    assert e.value.index == 12 and "instruction 12: word 0x00000000" in str(e.value)


@pytest.mark.parametrize("mnemonic", list(DEFS))
def test_non_zero_unused_or_reserved_bits_are_illegal(mnemonic):
    d = DEFS[mnemonic]
    base = encode(Instr(mnemonic, {op.name: max(op.kind.min, 0) for op in d.operands}))
    used = ((1 << ISA.opcode_width) - 1) << ISA.opcode_lsb
    for op in d.operands:
        if not op.kind.reserved:
            lsb, width = d.format.fields[op.name]
            used |= ((1 << width) - 1) << lsb
    for bit in range(ISA.word_bits):
        if not used >> bit & 1:
            with pytest.raises(DecodeError, match=rf"\[{bit}"):
                decode(base | 1 << bit)


def test_out_of_range_fields_are_illegal():
    f_op = encode(Instr("S_ADD_FP", {"rd": 1, "rs1": 2, "rs2": 1}))
    with pytest.raises(DecodeError, match="rs2 = 9 is not a register f0..f7"):
        decode(f_op | 8 << DEFS["S_ADD_FP"].format.fields["rs2"][0])
    loop = encode(Instr("C_LOOP_START", {"rd": 1, "imm": 1}))
    lsb = DEFS["C_LOOP_START"].format.fields["imm"][0]
    with pytest.raises(DecodeError, match="imm = 0 outside 1..4194303"):
        decode(loop & ~(((1 << 22) - 1) << lsb))
    lui = DEFS["S_LUI_INT"]
    with pytest.raises(DecodeError, match="outside 0..1048575"):
        decode(lui.opcode | (1 << 20) << lui.format.fields["imm"][0])
    with pytest.raises(DecodeError, match="not a 32-bit word"):
        decode(1 << 32)


def test_signed_immediates_decode_sign_extended():
    word = encode(Instr("S_ADDI_INT", {"rd": 1, "rs1": 0, "imm": -5}))
    assert decode(word).ops["imm"] == -5
    assert format_instr("S_ADDI_INT", {"rd": 1, "rs1": 0, "imm": -5}) == "S_ADDI_INT gp1, gp0, -5"


def test_encode_rejects_values_the_data_forbids():
    with pytest.raises(ValueError, match="rs2 = 8 outside 0..7"):
        encode(Instr("S_ADD_FP", {"rd": 1, "rs1": 2, "rs2": 8}))
    with pytest.raises(ValueError, match="rd = 3 outside 0..0"):
        encode(Instr("M_MM", {"rd": 3, "rs1": 1, "rs2": 2}))
    with pytest.raises(ValueError, match="unknown plena mnemonic"):
        encode(Instr("NOPE", {}))


def test_disassembly_leaves_out_zero_optional_and_writes_reserved_as_zero():
    text = disassemble([encode(Instr("V_ADD_VV", {"rd": 1, "rs1": 2, "rs2": 3, "rmask": 0})),
                        encode(Instr("V_ADD_VV", {"rd": 1, "rs1": 2, "rs2": 3, "rmask": 1})),
                        encode(Instr("M_MM", {"rd": 0, "rs1": 4, "rs2": 5})),
                        encode(Instr("V_RED_MAX", {"rd": 1, "rs1": 2, "imm": 0})),
                        encode(Instr("C_BREAK", {}))])
    assert text.splitlines() == ["V_ADD_VV gp1, gp2, gp3", "V_ADD_VV gp1, gp2, gp3, 1",
                                 "M_MM 0, gp4, gp5", "V_RED_MAX f1, gp2", "C_BREAK"]


# --- programs ----------------------------------------------------------------------

def test_program_fields_labels_constants_and_source_map():
    src = """; header comment
.equ ROWS, 4                 ; four rows
.set STEP, ROWS * VLEN       # a .set works like .equ
start:
    S_ADDI_INT gp1, gp0, STEP + end   // labels are instruction indices
body: S_ADDI_INT gp2, gp0, HEADS
    C_LOOP_START gp3, ROWS
      V_ADD_VV gp1, gp1, gp2
    C_LOOP_END gp3
end:
"""
    prog = assemble(src, "demo.asm")
    assert isinstance(prog, Program) and prog.accel == "plena" and prog.source_name == "demo.asm"
    assert prog.labels == {"start": 0, "body": 1, "end": 5}
    assert prog.constants == {"ROWS": 4, "STEP": 4 * 64}
    assert [i.line for i in prog.instrs] == [5, 6, 7, 8, 9]
    assert prog.instrs[0].ops == {"rd": 1, "rs1": 0, "imm": 256 + 5}
    assert prog.instrs[1].ops["imm"] == 4 and prog.instrs[1].text == "S_ADDI_INT gp2, gp0, HEADS"
    assert prog.instrs[3].ops == {"rd": 1, "rs1": 1, "rs2": 2, "rmask": 0}
    assert prog.instrs[4].ops == {"rd": 3, "imm": 0}
    assert prog.words == [encode(i) for i in prog.instrs]


def test_case_insensitive_mnemonics_and_registers():
    a = assemble("v_add_vv GP1, Gp2, gP3, 1\nS_Ld_Fp F2, gp1, 0x10")
    b = assemble("V_ADD_VV gp1, gp2, gp3, 1\nS_LD_FP f2, gp1, 16")
    assert a.words == b.words
    assert [i.mnemonic for i in a.instrs] == ["V_ADD_VV", "S_LD_FP"]


def test_expressions_use_the_given_configuration():
    cfg = HardwareConfig(ISA, MLEN=128, VLEN=128, HLEN=32)
    prog = assemble("S_ADDI_INT gp1, gp0, 2 * VLEN + HEADS", config=cfg)
    assert prog.instrs[0].ops["imm"] == 2 * 128 + 4
    assert expression_names(cfg)["HEADS"] == 4
    assert set(ISA.params) <= set(expression_names(cfg))


def test_empty_and_comment_only_sources_assemble_to_nothing():
    assert assemble("").words == []
    assert assemble("; nothing\n\n   # here\n// at all\n").instrs == []


def test_reserved_operands_accept_zero_of_any_register_file():
    words = {tuple(assemble(f"M_MM {z}, gp1, gp2").words) for z in ("0", "gp0", "f0", "a0", "2-2")}
    assert len(words) == 1


# --- diagnostics -------------------------------------------------------------------

def test_register_that_does_not_exist():
    d = only_error("S_ADD_INT gp1, gp16, gp2")
    assert (d.line, d.column, d.source) == (1, 16, "k.asm")
    assert d.message == "gp16 does not exist: registers are gp0..gp15"
    assert "S_ADD_INT rd, rs1, rs2" in d.hint
    assert only_error("S_ADD_FP f1, f8, f2").message == "f8 does not exist: registers are f0..f7"


def test_register_of_the_wrong_file():
    d = only_error("V_ADD_VF gp1, f3, f2")
    assert d.column == 15
    assert d.message.startswith("f3 where a gp register (gp0..gp15) is expected")
    assert "rs1 of V_ADD_VF" in d.message and "general-purpose" in d.hint
    d = only_error("H_PREFETCH_V gp1, gp2, gp3, 0, 0")
    assert d.message.startswith("gp3 where an a register (a0..a7) is expected")


def test_number_where_a_register_is_expected():
    d = only_error("S_ADD_INT gp1, 5, gp2")
    assert d.column == 16 and "expected a gp register" in d.message
    assert "write gp5" in d.hint


def test_register_where_an_immediate_is_expected():
    d = only_error("S_ADDI_INT gp1, gp0, gp4")
    assert d.column == 22 and "register gp4 where an immediate is expected" in d.message


def test_unknown_mnemonic_suggests_close_ones_with_syntax():
    d = only_error("\n  V_ADD gp1, gp2, gp3")
    assert (d.line, d.column) == (2, 3)
    assert d.message == "unknown instruction 'V_ADD'"
    assert "V_ADD_VV rd, rs1, rs2, [rmask]" in d.hint and "V_ADD_VF" in d.hint
    d = only_error("S_MOVE gp1, gp2")
    assert d.hint.startswith("the S_ instructions are S_ADD_INT, S_ADDI_INT")


def test_bare_word_hints_at_a_label_and_assignment_at_equ():
    assert "loop:" in only_error("loop").hint
    assert ".equ X, 5" in only_error("X = 5").hint


def test_wrong_operand_count_shows_the_syntax():
    d = only_error("S_ADD_INT gp1, gp2")
    assert d.message == "S_ADD_INT takes 3 operands, got 2"
    assert d.column == len("S_ADD_INT gp1, gp2") + 1
    assert "syntax: S_ADD_INT rd, rs1, rs2" in d.hint
    d = only_error("V_EXP_V gp1, gp2, 0, 0")
    assert d.message == "V_EXP_V takes 2 to 3 operands, got 4" and d.column == 22


def test_missing_comma_is_named_and_both_operands_still_checked():
    d = only_error("S_ADD_INT gp1 gp2, gp3")
    assert (d.column, d.message) == (15, "missing comma before 'gp2'")
    diags = errors_of("S_ADD_INT gp1 gp22, gp3")
    assert {d.message for d in diags} == {"missing comma before 'gp22'",
                                          "gp22 does not exist: registers are gp0..gp15"}


def test_trailing_garbage_and_trailing_comma():
    d = only_error("S_ADD_INT gp1, gp2, gp3 xyz")
    assert d.column == 25 and d.message == "unexpected 'xyz' after the last operand of S_ADD_INT"
    d = only_error("S_ADD_INT gp1, gp2, gp3,")
    assert d.message == "trailing comma after the last operand"
    d = only_error("S_ADD_INT,gp1, gp2, gp3")
    assert d.column == 10 and "expected a blank after S_ADD_INT" in d.message
    d = only_error("S_ADD_INT gp1, , gp3")
    assert "empty operand" in d.message and d.column == 16
    d = only_error("S_ADD_INT gp1, gp2,")
    assert d.message == "trailing comma after the last operand" and "syntax:" in d.hint


def test_immediate_out_of_range_gives_range_and_lui_split():
    d = only_error("S_ADDI_INT gp1, gp0, 200000")
    assert d.column == 22
    assert d.message == "imm of S_ADDI_INT out of range: 200000 is not in -131072..131071 (simm18)"
    assert "S_LUI_INT gp1, 48; S_ADDI_INT gp1, gp1, 3392" in d.hint
    assert (48 << 12) + 3392 == 200000
    d = only_error("S_ADDI_INT gp1, gp2, -200000")
    assert "S_LUI_INT gpT" in d.hint and "S_ADD_INT gp1, gp2, gpT" in d.hint
    d = only_error("S_LD_INT gp1, gp2, 1 << 20")
    assert "Put the address in a register" in d.hint


def test_lui_full_value_hint_and_other_ranges():
    d = only_error("S_LUI_INT gp1, 0x12345000")
    assert "write 74565" in d.hint and 74565 << 12 == 0x12345000
    d = only_error("V_ADD_VV gp1, gp2, gp3, 2")
    assert d.message == "rmask of V_ADD_VV must be 0 or 1, got 2" and d.column == 25
    d = only_error("C_LOOP_START gp1, 0\nC_LOOP_END gp1")
    assert "1..4194303" in d.message and "at least once" in d.hint
    assert "0..4194303" in only_error("M_MV_WO gp1, -1").message


def test_reserved_operand_must_be_zero():
    d = only_error("M_MM gp3, gp1, gp2")
    assert d.column == 6 and "operand rd of M_MM is reserved: write 0" in d.message
    assert "reserved" in only_error("V_RED_MAX f1, gp2, 5").message


def test_expression_errors_point_into_the_operand():
    d = only_error("S_ADDI_INT gp1, gp0, 4 * MLENN")
    assert d.column == 26 and d.message == "unknown name 'MLENN'" and "MLEN" in d.hint
    d = only_error("S_ADDI_INT gp1, gp0, 1/2")
    assert d.column == 23 and "//" in d.hint
    d = only_error("S_ADDI_INT gp1, gp0, gp2 + 1")
    assert "register gp2 cannot be used inside an expression" in d.message


def test_constants_rules():
    d = only_error("S_ADDI_INT gp1, gp0, Z\n.equ Z, 1")
    assert d.message == "constant 'Z' is used before its definition at line 2"
    d = only_error(".equ A, 1\n.equ A, 2")
    assert (d.line, d.message) == (2, "'A' is already defined as a constant at line 1")
    assert "hardware parameter" in only_error(".equ MLEN, 3").message
    assert "register name" in only_error(".equ gp3, 3").message
    assert "missing comma" in only_error(".equ A 3").message
    assert "takes a name and a value" in only_error(".equ A").message
    d = only_error(".word 5")
    assert "unknown directive '.word'" in d.message and ".equ" in d.hint
    diags = errors_of(".equ A, NOPE\nS_ADDI_INT gp1, gp0, A")
    assert [d.message for d in diags] == [
        "unknown name 'NOPE'", "constant 'A' has no value: its definition at line 1 has an error"]


def test_label_rules():
    d = only_error("a:\nb:\na: S_ADD_INT gp1, gp2, gp3")
    assert (d.line, d.column, d.message) == (3, 1, "label 'a' already defined at line 1")
    assert "register name" in only_error("gp1: S_ADD_INT gp1, gp2, gp3").message
    assert "starts with a digit" in only_error("1x: S_ADD_INT gp1, gp2, gp3").message
    assert "already defined as a label" in only_error("A:\n.equ A, 1").message


def test_every_error_of_a_file_is_reported_in_line_order():
    src = "\n".join([
        "S_ADD_INT gp1, gp2, gp16",      # 1
        "S_ADD_INT gp1, gp2, gp3",       # fine
        "V_ADD gp1, gp2, gp3",           # 3
        "S_ADDI_INT gp1, gp0, 1 << 30",  # 4
        "M_MM gp1, gp2, gp3",            # 5
        "C_LOOP_END gp4",                # 6
        "C_LOOP_START gp5, 2",           # 7 (never closed)
    ])
    diags = errors_of(src)
    assert [d.line for d in diags] == [1, 3, 4, 5, 6, 7]
    assert all(d.hint for d in diags)
    assert str(AssemblyError(diags)).startswith("6 errors in assembly")


# --- hardware loops and size -------------------------------------------------------

def test_loops_nest_and_close_with_the_same_register():
    assemble("C_LOOP_START gp1, 2\nC_LOOP_START gp2, 3\nC_LOOP_END gp2\nC_LOOP_END gp1")
    d = only_error("C_LOOP_END gp1")
    assert d.message == "C_LOOP_END without a matching C_LOOP_START"
    d = only_error("C_LOOP_START gp1, 2\nS_ADD_INT gp2, gp2, gp2")
    assert (d.line, d.message) == (1, "C_LOOP_START gp1 has no matching C_LOOP_END")
    d = only_error("C_LOOP_START gp1, 2\nC_LOOP_END gp2")
    assert d.line == 2 and "does not match the open loop C_LOOP_START gp1 at line 1" in d.message
    d = only_error("C_LOOP_START gp1, 2\nC_LOOP_START gp2, 2\nC_LOOP_END gp1\nC_LOOP_END gp2")
    assert d.line == 3 and "inner loop C_LOOP_START gp2 (line 2) is still open" in d.message


def test_loop_counter_rules():
    assert "gp0 cannot count a loop" in only_error("C_LOOP_START gp0, 2\nC_LOOP_END gp0").message
    d = only_error("C_LOOP_START gp1, 2\nC_LOOP_START gp1, 2\nC_LOOP_END gp1\nC_LOOP_END gp1")
    assert d.line == 2 and "gp1 already counts the enclosing loop started at line 1" in d.message


def test_loop_depth_follows_the_configuration():
    cfg = HardwareConfig(ISA, LOOP_DEPTH=2)
    src = "\n".join([f"C_LOOP_START gp{i}, 2" for i in (1, 2, 3)] +
                    [f"C_LOOP_END gp{i}" for i in (3, 2, 1)])
    d = only_error(src, cfg)
    assert (d.line, d.message) == (3, "loop nesting depth 3 exceeds LOOP_DEPTH = 2")
    assemble(src)                                     # default LOOP_DEPTH allows it


def test_loop_with_a_bad_operand_does_not_cascade():
    d = only_error("C_LOOP_START gp1, 0\nS_ADD_INT gp1, gp1, gp1\nC_LOOP_END gp1")
    assert d.line == 1 and "out of range" in d.message
    d = only_error("C_LOOP_START gp1, 2\nC_LOOP_END,gp1")
    assert d.line == 2 and "expected a blank" in d.message
    d = only_error("C_LOOP_START gp99, 2\nC_LOOP_END gp1")
    assert d.line == 1 and "gp99 does not exist" in d.message


def test_program_larger_than_imem_is_rejected_with_size_and_limit():
    n = ISA.params["IMEM_SIZE"].default + 5
    d = only_error("S_ADD_INT gp1, gp1, gp1\n" * n)
    assert d.line == n - 4
    assert f"program has {n} instructions" in d.message and "IMEM_SIZE = 16384" in d.message
    assert "hardware loops" in d.hint
    small = HardwareConfig(ISA, IMEM_SIZE=4)
    assert len(assemble("C_BREAK\n" * 4, config=small)) == 4
    assert "IMEM_SIZE = 4" in only_error("C_BREAK\n" * 5, small).message


# --- robustness and speed ----------------------------------------------------------

def test_garbage_is_handled_quickly_with_bounded_output():
    rng = random.Random(3)
    alphabet = "abcxyzGPgpf0123456789 ,;:_()+-*/.#\t\n\x00\x0b\x7f\u00e9"
    garbage = "".join(rng.choice(alphabet) for _ in range(1 << 20))
    t = time.perf_counter()
    with pytest.raises(AssemblyError) as e:
        assemble(garbage)
    elapsed = time.perf_counter() - t
    err = e.value
    assert elapsed < 5, elapsed
    assert len(err.diagnostics) == 50 and err.omitted > 0
    assert len(str(err)) < 50 * 600
    assert all(d.text.isprintable() for d in err.diagnostics)


def test_one_huge_line_is_shown_as_a_window():
    line = "S_ADD_INT gp1, gp2, " + "9" * 400_000
    d = only_error(line)
    assert len(d.text) < 200 and d.column == 21


def test_ten_thousand_lines_assemble_well_under_a_second():
    rng = random.Random(5)
    body = ["S_ADDI_INT gp1, gp2, BASE + 64  ; offset", "V_ADD_VV gp1, gp2, gp3, 1",
            "M_MM 0, gp4, gp5", "H_PREFETCH_V gp1, gp2, a1, 1, 0", "S_LD_FP f1, gp2, 12",
            "V_RED_MAX f1, gp2", "C_LOOP_START gp6, 3\nV_EXP_V gp1, gp1\nC_LOOP_END gp6"]
    src = ".equ BASE, 4 * VLEN\n" + "\n".join(rng.choice(body) for _ in range(10_000))
    best = min(_timed(assemble, src) for _ in range(2))
    assert best < 1.0, f"{best:.3f} s for 10,000 lines"


def _timed(fn, *args):
    t = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t
