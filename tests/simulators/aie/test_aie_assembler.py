"""aie assembler, encoder, decoder and disassembler: round trips, bundle rules named,
and a clear message (line, column, hint) for every kind of mistake."""
import pytest

from kernelcraft.isa.aie import default_config, spec
from kernelcraft.simulators.aie.assembler import assemble
from kernelcraft.simulators.aie.program import Bundle, Codec, decode, disassemble, encode_program
from kernelcraft.simulators.core.errors import AssemblyError, DecodeError
from kernelcraft.simulators.core.program import Instr

SPEC = spec()

PROGRAM = """
.equ ROW, 128
.bd XIN, ext=64, loc=0x1000, n0=32, n1=4, s1=ROW, acq=l3, rel=l0
.bd YOUT, ext=4096, loc=0x2000, n0=128, rel=l1, rel_n=2
    MOVPI p0, 0x1000 || ADDI r1, r0, -5
    DMAIN 1, XIN, r1, r0 || MOVI r2, 64
    GSET.N1 g1, r2 || ACQ l0, 1
    LOOP 3
        LOOP 2
            VLD x0, [p0], 64 || VLD x1, [p1], m2 || VMMAC.BF16 acc1, x2, y3
         || MOVHI r4, 0x12
        ENDLOOP
        VST x4, [p2], g1 || VSRS.I8 w9, acc1, 7 || SETRM HALF_AWAY
    ENDLOOP
    VSHUF x5, x6, x7, ZIPHI16 || DMAOUT 0, YOUT, r0, r2
    VPWL.RSQRT acc2, acc3 || HALT
"""


def errors(source, **cfg):
    with pytest.raises(AssemblyError) as e:
        assemble(source, "k.asm", default_config(**cfg) if cfg else None)
    return e.value.diagnostics


def one(source, **cfg):
    diags = errors(source, **cfg)
    assert len(diags) == 1, [d.format() for d in diags]
    return diags[0]


def test_program_round_trips_through_words_and_text():
    p = assemble(PROGRAM)
    assert [b.count for b in p.bundles] == [2, 2, 2, 1, 1, 4, 3, 2, 2]
    assert [b.ends for b in p.bundles] == [0, 0, 0, 0, 0, 1, 1, 0, 0]
    assert len(p) == len(p.words) == sum(1 + b.count for b in p.bundles)
    assert p.descriptors[0]["s1"] == 128 and p.descriptors[0]["s2"] == 512
    assert p.descriptors[1]["acq"] is None and p.descriptors[1]["rel_n"] == 2
    text = disassemble(p.words, p.descriptors, p.descriptor_names)
    q = assemble(text)
    assert q.words == p.words and q.descriptors == p.descriptors
    assert "ENDLOOP" in text and "VLD x1, [p1], m2" in text


def test_operations_are_placed_in_slot_order():
    p = assemble("VPWL.EXP acc0, acc1 || MOVI r1, 2 || VST x1, [p1] || ADD r2, r3, r4 || VLD x0, [p0]")
    order = [SPEC.ops[i.mnemonic].slot for i in p.instrs]
    assert order == ["load", "store", "scalar", "vector", "move"]


def test_every_operation_encodes_and_decodes():
    codec = Codec(SPEC)
    for mn, info in SPEC.ops.items():
        ops = {}
        for op in info.defn.operands:
            k = op.kind
            ops[op.name] = (k.count - 1 if k.is_register else 0 if k.name == "postmod" else k.max)
        instr = Instr(mn, ops)
        word = codec.encode_op(instr)
        back = codec.decode_op(word, 0)
        assert back.mnemonic == mn and back.ops == ops, mn
        loop = mn in ("LOOP", "LOOPR")
        bds = "".join(f".bd D{i}, ext=0, loc=0, n0=1\n" for i in range(16)) if mn.startswith("DMA") else ""
        again = assemble(bds + back.text + ("\nNOP\nENDLOOP" if loop else ""))
        assert again.words[1] == word, (mn, back.text)


def test_decode_rejects_bad_words():
    good = assemble("VLD x0, [p0], 64").words
    with pytest.raises(DecodeError, match="not assigned"):
        decode([1, 0x7F & 0x00])
    with pytest.raises(DecodeError, match="to be zero"):
        decode([good[0], good[1] | (1 << 31)])
    with pytest.raises(DecodeError, match="1..6"):
        decode([0])
    with pytest.raises(DecodeError, match="only 0 words follow"):
        decode([1])
    with pytest.raises(DecodeError, match="header uses only"):
        decode([1 << 20])
    vec = assemble("VADD.I16 x1, x2, x3").words[1]
    with pytest.raises(DecodeError, match="rule slots"):
        decode([2, vec, vec])


def test_slot_rule_is_named():
    d = one("VLD x0, [p0] || VLD x1, [p1] || LD r1, [p2]")
    assert "rule slots" in d.message and "2 load slots (ld0, ld1)" in d.message
    assert d.line == 1 and d.column == d.text.index("LD r1") + 1
    assert "rule slots" in one("ADD r1, r2, r3 || LOOP 4\nNOP\nENDLOOP").message


@pytest.mark.parametrize("bundle, rule", [
    ("VLD x0, [p0], 64 || VST x1, [p0], 64", "one-writer"),
    ("VLD x0, [p0], g1 || VLD x1, [p1], g1", "one-writer"),
    ("VMOV x2, x3 || VADD.I16 x2, x4, x5", "one-writer"),
    ("VLD x0, [p0] || VLD x1, [p1] || VADD.I16 x2, x4, x5 || VMOV x3, x6", "x-write-ports"),
    ("VMMAC.BF16 acc0, x1, y2 || VST x7, [p0] || VMOV x3, x9", "x-read-ports"),
    ("ALD acc1, [p0] || VMUL.BF16 acc2, x1, x2 || AMOV acc3, acc4", "acc-write-ports"),
    ("LD r1, [p0] || LD r2, [p1] || ADD r3, r0, r0", "r-write-ports"),
    ("VLD x0, [p0], 64 || VLD x1, [p1], 64 || VST x2, [p2], 64 || PADD p3, r1", "pointer-write-ports"),
])
def test_port_rules_are_named(bundle, rule):
    d = one(bundle)
    assert d.message.startswith(f"rule {rule}:"), d.message
    assert d.hint


def test_reading_what_a_bundle_writes_is_allowed():
    p = assemble("VLD x0, [p0], 64 || VST x0, [p1], 64 || VMAC.BF16 acc0, x0, x1")
    assert len(p.bundles) == 1


def test_operand_errors_have_hints():
    d = one("VMAC.BF16 x0, x1, x2")
    assert "x0 where an acc register" in d.message and "syntax: VMAC.BF16" in d.hint
    assert "does not exist" in one("VLD x16, [p0]").message
    assert "write the memory operand as [p0]" in one("VLD x1, p0").message
    assert "no offset addressing" in one("VLD x1, [p0 + 64]").message
    d = one("VLD x1, [p0], 5000")
    assert "outside -4096..4095" in d.message and "MOVM" in d.hint
    assert "cannot post-modify" in one("VLD x1, [p0], r3").message
    d = one("MOVI r1, 1000000")
    assert "out of range" in d.message and "MOVHI" in d.hint
    assert "takes 3 operands, got 2" in one("ADD r1, r2").message
    assert "missing comma" in one("ADD r1 r2, r3").message
    assert "register r2 where an immediate" in one("ADDI r1, r2, r2").message
    d = one("VMAC acc0, x1, x2")
    assert "unknown operation" in d.message and "VMAC.BF16" in d.hint
    assert "did you mean" in one("VLDD x0, [p0]").hint
    assert "empty operation" in one("VLD x0, [p0] || || NOP").message
    assert "end of the line" in one("VLD x0, [p0] ||").message
    assert "continues the bundle above" in one("|| NOP").message
    d = one("SETRM HALF_AWAYS")
    assert "unknown name" in d.message and "HALF_AWAY" in d.hint


def test_loops_are_checked():
    assert "without a matching LOOP" in one("NOP\nENDLOOP").message
    assert "no bundle in its body" in one("LOOP 2\nENDLOOP").message
    assert "no matching ENDLOOP" in one("LOOP 2\nNOP").message
    assert "out of range: 0 is not in 1..1048575" in one("LOOP 0\nNOP\nENDLOOP").message
    d = one("LOOP 2\nLOOP 2\nLOOP 2\nNOP\nENDLOOP\nENDLOOP\nENDLOOP", LOOP_DEPTH=2)
    assert "exceeds LOOP_DEPTH = 2" in d.message
    p = assemble("LOOP 2\n LOOP 3\n  NOP\n ENDLOOP\nENDLOOP")
    assert p.bundles[-1].ends == 2


def test_descriptor_errors():
    assert "unknown descriptor field" in one(".bd A, ext=0, loc=0, n0=4, nn=3").message
    assert "needs field n0" in one(".bd A, ext=0, loc=0").message
    assert "must be even" in one(".bd A, ext=0, loc=3, n0=4").message
    d = one(".bd A, ext=0, loc=65000, n0=512")
    assert "data-memory bytes 65000..66023" in d.message
    assert "external words" in one(".bd A, ext=EXT_SIZE - 2, loc=0, n0=4").message
    assert "lock l0..l15 or none" in one(".bd A, ext=0, loc=0, n0=4, rel=r1").message
    many = "\n".join(f".bd D{i}, ext=0, loc=0, n0=1" for i in range(17))
    assert "more than 16 descriptors" in one(many).message
    assert "already defined" in one(".bd A, ext=0, loc=0, n0=1\n.bd A, ext=0, loc=0, n0=1").message
    d = one(".bd A, ext=0, loc=0, n0=1\nDMAIN 0, 3, r0, r0")
    assert "uses descriptor 3, but the program defines 1" in d.message and ".bd NAME" in d.hint


def test_missing_comma_in_a_descriptor_is_a_diagnostic():
    # Found by fuzzing: `.bd A B, ...` raised KeyError('A') out of assemble().
    d = one(".bd A B, ext=0, loc=0, n0=1")
    assert (d.line, d.column) == (1, 7) and "missing comma before 'B'" in d.message
    d = one(".bd A, ext=0 loc=0, n0=1")
    assert (d.line, d.column) == (1, 14) and "missing comma before 'loc=0'" in d.message
    # the descriptor is still defined under its first word, so DMAIN A assembles on
    assert len(errors(".bd A B, ext=0, loc=0, n0=1\nDMAIN 0, A, r0, r0")) == 1


def test_names_and_constants():
    p = assemble(".equ A, 3\nstart: LOOP A\n VLD x0, [p0], A * 64\nENDLOOP\nMOVI r1, start + DM_SIZE")
    assert p.labels == {"start": 0}
    assert "used before its definition" in one("MOVI r1, B\n.equ B, 2").message
    assert "register or operation name" in one(".equ x3, 2").message


def test_program_too_big_for_instruction_memory():
    d = one("\n".join(["NOP"] * 10), IMEM_WORDS=16)
    assert "IMEM_WORDS = 16" in d.message and d.line == 9


def test_all_errors_collected_and_garbage_bounded():
    diags = errors("FOO\nVLD x99, [p0]\nADD r1\n")
    assert [d.line for d in diags] == [1, 2, 3]
    with pytest.raises(AssemblyError) as e:
        assemble("\n".join("@#$%^ garbage" for _ in range(500)))
    assert len(e.value.diagnostics) <= 50 and e.value.omitted > 0


def test_encode_program_matches_assembler():
    p = assemble(PROGRAM)
    assert encode_program(SPEC, p.instrs, p.bundles) == p.words
    assert isinstance(p.bundles[0], Bundle)
