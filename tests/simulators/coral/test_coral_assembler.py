"""coral assembler and disassembler: encodings from the data, pseudo-instructions,
sections and directives, round trips, and the quality of every kind of diagnostic."""
import pytest
from corpus import corpus

from kernelcraft.isa.coral import default_config, isa
from kernelcraft.simulators.core.errors import AssemblyError, DecodeError
from kernelcraft.simulators.coral.assembler import assemble
from kernelcraft.simulators.coral.encoding import decode, disassemble, encode

ISA = isa()
BIG = default_config(ITCM_SIZE=1 << 20, DTCM_BASE=1 << 20)


def words(src: str, cfg=None) -> list[int]:
    return assemble(src, "t.s", cfg).words


def errors(src: str, cfg=None) -> list:
    with pytest.raises(AssemblyError) as e:
        assemble(src, "t.s", cfg)
    return e.value.diagnostics


def one_error(src: str, cfg=None):
    diags = errors(src, cfg)
    assert len(diags) == 1, [d.format() for d in diags]
    return diags[0]


# --- encodings --------------------------------------------------------------------

@pytest.mark.parametrize("text, word", [
    ("addi a0, a1, -1", 0xFFF58513), ("lui a0, 0x12345", 0x12345537), ("sw a0, 8(sp)", 0x00A12423),
    ("beq a0, a1, . + 8", 0x00B50463), ("jal zero, . - 4", 0xFFDFF06F), ("mulhu t0, t1, t2", 0x027332B3),
    ("fmadd.s fa0, fa1, fa2, fa3, rtz", 0x68C59543), ("fcvt.w.s a0, fa0, rtz", 0xC0051553),
    ("vsetvli t0, a0, e32, m8, ta, ma", 0x0D3572D7), ("vadd.vv v1, v2, v3, v0.t", 0x002180D7),
    ("vle32.v v8, (a0)", 0x02056407), ("vfmacc.vf v8, fa0, v16", 0xB3055457),
    ("vmerge.vvm v1, v2, v3, v0", 0x5C2180D7), ("csrrs a0, fflags, zero", 0x00102573),
])
def test_known_encodings(text, word):
    assert words(text) == [word]
    assert decode(word, 0).text.replace(" ", "") == text.replace(" ", "").replace(".+8", "0x8") \
        .replace(".-4", "0xfffffffc") or decode(word).mnemonic == text.split()[0]


def test_every_example_in_the_data_assembles():
    for d in ISA.instructions.values():
        labels = " ".join(f"{n}:" for n in ("loop", "helper", "table") if f"{n}:" not in d.example)
        src = f"{labels} nop\n" + d.example + "\n"
        assemble(src, f"{d.mnemonic} example")


def test_corpus_round_trips_through_the_disassembler():
    program = assemble(corpus(3), "corpus.s", BIG)
    text = disassemble(program.words)
    assert words(text, BIG) == program.words
    for i, (w, ins) in enumerate(zip(program.words, program.instrs)):
        if ins.mnemonic != "(error)":
            assert encode(decode(w, i)) == w


def test_decode_rejects_what_is_not_coral():
    with pytest.raises(DecodeError, match="compressed"):
        decode(0x00000001)
    with pytest.raises(DecodeError, match="major opcode 0x0B"):
        decode(0x0000000B)
    with pytest.raises(DecodeError, match="rm = 5"):
        decode(0x00C5D553)                        # fadd.s with reserved rounding mode 5
    with pytest.raises(DecodeError, match="no coral instruction"):
        decode(0xC2001057)                        # OP-V funct6 110000 on OPFVV: vfwadd.vv, not in coral


# --- pseudo-instructions -------------------------------------------------------------

@pytest.mark.parametrize("value, expect", [
    (5, ["addi a0, zero, 5"]), (-2048, ["addi a0, zero, -2048"]), (2048, ["lui a0, 1", "addi a0, a0, -2048"]),
    (0x12345000, ["lui a0, 74565"]), (0xFFFFFFFF, ["addi a0, zero, -1"]),
    (0x80000000, ["lui a0, 524288"]), (0x12345678, ["lui a0, 74565", "addi a0, a0, 1656"]),
])
def test_li_picks_the_shortest_sequence(value, expect):
    assert words(f"li a0, {value}") == words("\n".join(expect))


def test_li_with_a_forward_value_takes_two_instructions_like_gnu_as():
    assert len(words("li a0, LATER\n.equ LATER, 1\n")) == 2
    assert len(words("li a0, label\nlabel: nop\n")) == 3


def test_la_call_and_symbol_loads_are_pc_relative():
    p = assemble("la a0, x\nlw a1, x\ncall f\nf: ret\n.data\n.zero 12\nx: .word 7\n", "t.s")
    base = p.labels["x"]
    auipc, addi = decode(p.words[0], 0), decode(p.words[1], 1)
    assert (auipc.ops["imm"] << 12) + addi.ops["imm"] == base
    auipc2, lw = decode(p.words[2], 2), decode(p.words[3], 3)
    assert 8 + (auipc2.ops["imm"] << 12) + lw.ops["imm"] == base
    assert p.data == [("dtcm", default_config().DTCM_BASE, bytes(12) + (7).to_bytes(4, "little"))]


def test_numeric_labels_and_dot():
    w = words("1: addi a0, a0, -1\nbnez a0, 1b\nbeqz a0, 1f\nj .\n1: ret\n")
    assert decode(w[1], 1).ops["imm"] == -4 and decode(w[2], 2).ops["imm"] == 8
    assert decode(w[3], 3).ops["imm"] == 0


def test_pseudo_with_omitted_mask_and_vector_compares():
    assert words("vnot.v v8, v16") == words("vxor.vi v8, v16, -1")
    assert words("vnot.v v8, v16, v0.t") == words("vxor.vi v8, v16, -1, v0.t")
    assert words("vmsgt.vv v1, v2, v3") == words("vmslt.vv v1, v3, v2")
    assert words("vmslt.vi v1, v2, 5") == words("vmsle.vi v1, v2, 4")


def test_vtype_operands_may_be_omitted_in_gnu_order():
    assert words("vsetvli t0, a0, e32") == words("vsetvli t0, a0, e32, m1, tu, mu")
    assert words("vsetvli t0, a0, e16, ta, ma") == words("vsetvli t0, a0, e16, m1, ta, ma")


# --- sections and directives ---------------------------------------------------------

def test_sections_are_laid_out_data_rodata_bss_in_dtcm():
    p = assemble(".data\na: .byte 1\n.rodata\n.align 3\nb: .word 2\n.bss\nc: .zero 4\n"
                 ".text\n_start: nop\n", "t.s")
    base = default_config().DTCM_BASE
    assert p.labels == {"a": base, "b": base + 8, "c": base + 12, "_start": 0}
    assert p.data[0][2] == b"\x01" + bytes(7) + (2).to_bytes(4, "little")


def test_data_directives_and_float_rounding():
    p = assemble('.data\n.half -1, 2\n.float 0.1, 1e-45, 1e39\n.string "a\\n"\n.ascii "b"\n'
                 '.space 2, 0xAB\n.balign 4\n.2byte 3\n', "t.s")
    data = p.data[0][2]
    assert data[:4] == bytes([0xFF, 0xFF, 2, 0])
    assert data[4:8] == (0x3DCCCCCD).to_bytes(4, "little")
    assert data[8:12] == (1).to_bytes(4, "little")
    assert data[12:16] == (0x7F800000).to_bytes(4, "little")
    assert data[16:22] == b"a\n\x00b\xab\xab" and data[24:26] == b"\x03\x00"


def test_fill_writes_like_gnu_as():
    # bytes checked against riscv64-unknown-elf-as (also in the binutils corpus)
    p = assemble(".data\n.fill 3\n.fill 2, 2, 0x1234\n.fill 1, 8, -1\n.fill 2, 3, 0xaabbccdd\n"
                 ".fill 0, 4, 7\n", "t.s")
    assert p.data[0][2] == bytes.fromhex("000000" "34123412" "ffffffff00000000" "ddccbbddccbb")
    assert assemble(".fill 2, 4, 0x00000013\n", "t.s").words == [0x13, 0x13]


def test_fsrmi_and_fsflagsi_take_an_optional_destination_like_gnu_as():
    assert words("fsrmi a0, 3\nfsflagsi a1, 0\nfsrmi 2\nfsflagsi 1") == [
        0x0021D573, 0x001055F3, 0x00215073, 0x0010D073]


def test_align_in_text_pads_with_nops_and_word_in_text_decodes():
    p = assemble("nop\n.align 4\nret\n.word 0x00000013\n", "t.s")
    assert p.words[:4] == [0x13] * 4 and p.instrs[-1].mnemonic == "addi"


def test_linker_symbols_of_bare_metal_programs():
    p = assemble("la sp, __stack_top\nla gp, __global_pointer$\nla a0, __bss_start\nla a1, _end\n"
                 ".data\n.word 1\n.bss\n.zero 8\n", "t.s")
    cfg = default_config()
    values = [(decode(p.words[i], i).ops["imm"] << 12) + decode(p.words[i + 1], i + 1).ops["imm"] + 4 * i
              for i in (0, 2, 4, 6)]
    assert values == [cfg.DTCM_BASE + cfg.DTCM_SIZE, cfg.DTCM_BASE + 0x800, cfg.DTCM_BASE + 4,
                      cfg.DTCM_BASE + 12]
    assert "_end" not in p.labels


def test_entry_is_start_label():
    assert assemble("nop\n_start: ret\n", "t.s").entry == 1


def test_expressions_use_constants_parameters_and_gnu_division():
    w = words(".equ N, 10\naddi a0, a0, N * 4 / 8\naddi a1, a1, VLEN / 8\nX = 3\naddi a2, a2, X\n")
    assert [decode(x).ops["imm"] for x in w] == [5, 16, 3]


# --- diagnostics ----------------------------------------------------------------------

def test_all_errors_are_reported_with_line_column_and_hint():
    src = "addi a0, a1, 5000\nadd a0, a1\nfadd fa0, fa1, fa2\naddi a9, a0, 1\n.foo\n"
    diags = errors(src)
    assert [(d.line, d.column) for d in diags] == [(1, 14), (2, 11), (3, 1), (4, 6), (5, 1)]
    assert all(d.hint for d in diags)
    assert "li t0, 5000" in diags[0].hint
    assert "fadd.s" in diags[2].hint


@pytest.mark.parametrize("src, message, hint", [
    ("lw a0, a1", "needs a memory operand offset(a1) or a label", "lw rd, imm(rs1)"),
    ("vadd.vv v1, v2, x3", "x3 is an x register; vs1 of vadd.vv must be a v register", "vadd.vv vd, vs2, vs1"),
    ("vle32.v v8, 0(a0)", "takes no offset here: write (a0)", "vle32.v vd, (rs1)"),
    ("vsetvli t0, a0, e33", "'e33' is not a valid vsew", "did you mean e32?"),
    ("fcvt.w.s a0, fa0, rzz", "'rzz' is not a valid rm", "did you mean rtz?"),
    ("j 1b", "no matching label '1:'", "1b refers to the nearest"),
    ("li a0, 1 // note", "'//' does not start a comment", "'#'"),
    ("sw a0, 0(a1) extra", "unexpected 'extra' after the last operand of sw", "remove it"),
    ("addi a0 a1, 1", "missing comma before 'a1'", "addi rd, rs1, imm"),
    ("lui a0, 0x123456", "out of range: 1193046 is not 0..1048575", "%hi(1193046)"),
    ("beq a0, a1, far\n.zero 0\n" + "nop\n" * 1100 + "far: ret", "target is 4404 bytes away", "invert it"),
    ("x: nop\nx: nop", "'x' is already defined at line 1", "defined once"),
    (".data\nadd a0, a0, a0", "instruction add in the data section", ".text"),
    (".data\n.float 1.x", "'1.x' is not a floating-point number", "decimal"),
    (".data\n.byte 300", ".byte value 300 does not fit 8 bits", ""),
    (".data\n.fill 2, 9, 1", ".fill size 9 is not in 0..8", ""),
    (".data\n.fill 1, 2, 3, 4", ".fill takes repeat[, size[, value]]", ".fill 16, 4"),
    (".fill 3, 1, 0", ".fill of 3 bytes in .text", "whole 4-byte words"),
    (".bss\n.fill 4, 4, 1", ".fill with a non-zero value in .bss", ".data"),
    ("addi a0, a0, %lo(x) + 1\nx:", "unexpected text after %lo(...)", "%lo(symbol + 4)"),
    ("flw fa0, 0(fa1)", "fa1 is an f register; rs1 of flw must be an x register", "flw rd, imm(rs1)"),
    ("vfadd.vv v8, v16, fa0", "fa0 is an f register; vs1 of vfadd.vv must be a v register", ""),
    (".option rvc", "compressed instructions are not supported", "no C extension"),
    ("c.addi a0, 1", "unknown instruction 'c.addi'", ""),
])
def test_diagnostic(src, message, hint):
    diags = errors(src)
    d = diags[0]
    assert message in d.message, d.format()
    assert hint in d.hint, d.format()
    assert d.line >= 1 and d.column >= 1 and d.text


def test_program_too_big_for_itcm_names_the_first_statement_that_does_not_fit():
    d = one_error("nop\n" * 20, default_config(ITCM_SIZE=64))
    assert d.line == 17 and "ITCM_SIZE = 64" in d.message and "16 bytes" not in d.message


def test_data_beyond_data_size_is_an_error():
    d = one_error(".data\n.zero 100\n.word 1\n", default_config(DATA_SIZE=100))
    assert d.line == 3 and "DATA_SIZE = 100" in d.message


def test_many_errors_are_bounded():
    diags = errors("bogus\n" * 500)
    with pytest.raises(AssemblyError) as e:
        assemble("bogus\n" * 500, "t.s")
    assert len(diags) == 50 and e.value.omitted == 450


def test_garbage_input_fails_cleanly():
    import random
    rng = random.Random(5)
    chars = "abcdefxv0123456789,()%.:#; \t\"-+*/\n"
    for _ in range(50):
        src = "".join(rng.choice(chars) for _ in range(200))
        try:
            assemble(src, "g.s")
        except AssemblyError as e:
            assert all(d.line >= 1 for d in e.diagnostics)
