"""coral's ISA data: it loads, its encodings are RISC-V's (overlap-free, every field
placed), the loader rejects bad data with the file and record, and the generated
manual is current, complete and says what is supported."""
import re
import shutil

import pytest

import kernelcraft.isa.loader as loader
from kernelcraft.isa.coral import default_config, isa
from kernelcraft.isa.manual import main, manual_path, render_manual, sections

ISA = isa()


def test_counts_and_extensions():
    exts = {d.extension for d in ISA.instructions.values()}
    assert exts == {"RV32I", "M", "F", "Zicsr", "Zve32f"}
    by_ext = lambda e: sum(d.extension == e for d in ISA.instructions.values())  # noqa: E731
    assert by_ext("RV32I") == 40 and by_ext("M") == 8 and by_ext("F") == 26 and by_ext("Zicsr") == 6
    assert by_ext("Zve32f") > 240
    assert {"li", "la", "call", "ret", "mv", "j", "nop", "vfneg.v"} <= set(ISA.pseudos)


def test_every_instruction_covers_all_32_bits():
    for d in ISA.instructions.values():
        assert d.format.used_mask(ISA.opcode_lsb, ISA.opcode_width) == 0xFFFFFFFF or \
            d.mnemonic in ("lui", "auipc", "jal"), d.mnemonic
        assert d.match & ~d.mask == 0 and d.mask & 0x7F == 0x7F


def test_split_immediates_cover_their_value_bits():
    b = ISA.formats["B"]
    assert sorted((at, w) for _, w, at in b.pieces["imm"]) == [(1, 4), (5, 6), (11, 1), (12, 1)]
    assert ISA.kinds["boff"].align == 2 and ISA.kinds["boff"].pcrel


@pytest.fixture
def isa_copy(tmp_path, monkeypatch):
    shutil.copytree(ISA.root, tmp_path / "coral")
    monkeypatch.setattr(loader, "ISA_ROOT", tmp_path)
    return tmp_path / "coral"


def _edit(path, old, new):
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def test_loader_rejects_overlapping_encodings(isa_copy):
    _edit(isa_copy / "rv32i.toml", 'fixed = { funct3 = 1, funct7 = 0 }\nformat = "R"',
          'fixed = { funct3 = 0, funct7 = 0 }\nformat = "R"')          # sll becomes add
    with pytest.raises(loader.ISADataError, match=r"rv32i.toml:\d+: sll: encoding overlaps add"):
        loader.load_isa("coral")


def test_loader_rejects_a_missing_fixed_field(isa_copy):
    _edit(isa_copy / "rv32m.toml", "fixed = { funct3 = 0, funct7 = 1 }", "fixed = { funct3 = 0 }")
    with pytest.raises(loader.ISADataError, match=r"rv32m.toml:\d+: mul: format R fixes"):
        loader.load_isa("coral")


def test_loader_rejects_split_field_gaps(isa_copy):
    _edit(isa_copy / "formats.toml", "[7, 1, 11]", "[7, 1, 10]")
    with pytest.raises(loader.ISADataError, match="format B: field imm: pieces"):
        loader.load_isa("coral")


def test_loader_rejects_a_pseudo_expanding_to_nothing_known(isa_copy):
    _edit(isa_copy / "pseudo.toml", '"addi {rd}, {rs}, 0"', '"addy {rd}, {rs}, 0"')
    with pytest.raises(loader.ISADataError, match="pseudo mv: expansion 'addy"):
        loader.load_isa("coral")


@pytest.fixture(scope="module")
def manual():
    return render_manual("coral")


def test_committed_manual_is_current(manual):
    assert manual_path("coral").read_text() == manual, "run: python -m kernelcraft.isa.manual coral"
    assert main(["coral", "--check"]) == 0


def test_manual_sections_and_support_statement(manual):
    for title in ("Machine model", "Memories and addressing", "How a program ends", "Vector model",
                  "Numerics", "Timing model", "Assembler syntax", "What is supported",
                  "Hardware configuration", "Timing classes", "Instruction index", "Pseudo-instructions"):
        assert f"\n## {title}\n" in manual, title
    assert "**Not supported**" in manual and "segment" in manual and "vfrec7.v" in manual
    headings = re.findall(r"^### (.+)$", manual, re.MULTILINE)
    assert headings == [head for head, _ in sections(ISA.instructions.values())]
    in_code = False
    for line in manual.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        elif in_code:
            assert not line.startswith("#"), line


def test_manual_encoding_lines_give_fixed_values_and_split_pieces(manual):
    sw = manual.split("\n### sw\n")[1].split("\n### ")[0]
    assert "[11:7] imm[4:0]" in sw and "[31:25] imm[11:5]" in sw and "[14:12] funct3 = 0x2" in sw
    vadd = manual.split("\n### vadd.vv, vadd.vx, vadd.vi\n")[1].split("\n### ")[0]
    assert "per beat in the vector unit" in vadd


def test_manual_follows_the_configuration():
    text = render_manual("coral", default_config(VLEN=256))
    assert "| `VLEN` | 256 (default 128) |" in text


def test_every_instruction_is_documented_once_with_its_own_syntax_and_effect(manual):
    """Families share a section, but each form keeps its row: syntax, effect, the encoding
    values that tell it apart, timing class."""
    bodies = {s.split("\n", 1)[0]: s for s in re.split(r"^### ", manual, flags=re.MULTILINE)[1:]}
    for head, defs in sections(ISA.instructions.values()):
        text = bodies[head]
        for d in defs:
            assert f"`{d.syntax}`" in text and d.summary.replace("|", "\\|") in text, d.mnemonic
            if len(defs) > 1:
                row = next(line for line in text.splitlines() if line.startswith(f"| `{d.mnemonic}` |"))
                assert f"`{d.timing}`" in row
                for k, v in d.fixed.items():
                    assert f"{k} = {v:#x}" in row or f"{k} = {v:#x}" in text.split("**Encoding.**")[1]
    vlseg = bodies["vlseg<nf>e<eew>.v"]
    assert vlseg.count("\n| `vlseg") == 21 and "nf = 0x7" in vlseg
    assert "vadd.vv, vadd.vx, vadd.vi" in bodies


def test_families_group_forms_and_reject_ambiguous_data():
    from dataclasses import replace

    from kernelcraft.isa.loader import ISADataError
    add, sub, mul = (replace(ISA.instructions[m], family="") for m in ("vadd.vv", "vsub.vv", "vmul.vv"))
    heads = sections([replace(add, family="F"), sub, replace(mul, family="F")])
    assert [(h, [d.mnemonic for d in ds]) for h, ds in heads] == \
        [("F", ["vadd.vv", "vmul.vv"]), ("vsub.vv", ["vsub.vv"])]
    with pytest.raises(ISADataError, match="both an instruction and a family"):
        sections([sub, replace(add, family="vsub.vv")])
