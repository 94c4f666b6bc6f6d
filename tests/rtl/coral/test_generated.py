"""coral's generated decode header: up to date with isa/coral, what the RTL sees of it,
read back with pyverilog, is the ISA data's, and the decoders name its constants instead
of writing the encodings as literals."""
import re
import tempfile

import pytest

from kernelcraft.isa.coral import default_config
from kernelcraft.isa.loader import get_isa
from kernelcraft.simulators.core.errors import ConfigError
from kernelcraft.simulators.coral_rtl import build, generate
from kernelcraft.simulators.coral_rtl.build import CORAL_RTL

DECODERS = ("coral_core.v", "coral_vdec.v", "coral_vec.v", "coral_fpu.v")


def test_header_matches_the_isa_data():
    stale = generate.stale()
    assert not stale, f"regenerate with python3 -m {generate.MODULE}: {stale}"


def test_build_refuses_a_stale_header(monkeypatch):
    build.check_config(default_config())
    monkeypatch.setattr(build, "_stale_header", lambda stamp: [generate.ISA_VH])
    with pytest.raises(ConfigError, match="coral_isa.vh"):
        build.check_config(default_config())


def _walk(node):
    yield node
    for child in node.children():
        yield from _walk(child)


def _constants() -> dict[str, int]:
    from pyverilog.vparser import ast as vast
    from pyverilog.vparser.parser import parse
    with tempfile.TemporaryDirectory() as tmp:
        tree, _ = parse([str(CORAL_RTL / "coral_isa_check.v")], preprocess_include=[str(CORAL_RTL)],
                        preprocess_define=["CORAL_CONSTANTS_ONLY"], outputdir=tmp, debug=False)
    out = {}
    for node in _walk(tree):
        if isinstance(node, vast.Localparam):
            text = node.value.var.value
            base = {"h": 16, "d": 10, "b": 2}[text.split("'")[1][0]]
            out[node.name] = int(text.split("'")[1][1:], base)
    return out


def test_pyverilog_reads_the_isa_data_back():
    """Every major opcode, scalar funct3/funct7/selector, OP-V funct6 and selector, CSR
    number and vector width the header defines is the records' value."""
    isa = get_isa("coral")
    c = _constants()
    ins = isa.instructions
    for name, mnemonic in generate.MAJOR.items():
        assert c[f"OPC_{name}"] == ins[mnemonic].opcode, name
    assert {d.opcode for d in ins.values()} == {v for k, v in c.items() if k.startswith("OPC_")}
    checked = 0
    for d in ins.values():
        if d.group in generate.SCALAR_GROUPS:
            for field, prefix in generate.FIELD_PREFIX.items():
                if field in d.fixed:
                    assert c[f"{prefix}_{generate.ident(d.mnemonic)}"] == d.fixed[field], d.mnemonic
                    checked += 1
        elif "funct6" in d.fixed:
            stem = generate.ident(d.mnemonic.rsplit(".", 1)[0])
            assert c.get(f"F6_{stem}", c.get(f"F6_{generate.ident(d.mnemonic)}")) == d.fixed["funct6"], d.mnemonic
            assert c[{0: "OPIVV", 1: "OPFVV", 2: "OPMVV", 3: "OPIVI", 4: "OPIVX", 5: "OPFVF", 6: "OPMVX"}[
                d.fixed["funct3"]]] == d.fixed["funct3"]
            if "sel" in d.fixed:
                assert c[f"SEL_{generate.ident(d.mnemonic)}"] == d.fixed["sel"], d.mnemonic
            checked += 1
        elif d.group in generate.VECTOR_MEMORY_GROUPS and d.format.name in ("VLU", "VSU", "VLS", "VSS"):
            eew = d.mnemonic.split(".")[0].rstrip("ff").rsplit("e", 1)[1]
            assert c[f"VW_E{eew}"] == d.fixed["width"], d.mnemonic
            checked += 1
    assert checked > 400
    for name, value in isa.kinds["csr"].names:
        assert c[f"CSR_{name.upper()}"] == value, name
    assert c["FMT_S"] == ins["fmadd.s"].fixed["fmt"]


def test_decoders_name_the_encodings():
    """No major opcode and no funct6 is written as a literal in the decoders."""
    majors = {f"7'h{v:02X}" for v in generate.majors(get_isa("coral")).values()}
    for name in DECODERS:
        text = re.sub(r"//.*", "", (CORAL_RTL / name).read_text())
        assert not [m for m in majors if m in text or m.lower() in text], name
        assert "`include \"coral_isa.vh\"" in text, name
    vdec = re.sub(r"//.*", "", (CORAL_RTL / "coral_vdec.v").read_text())
    assert not re.findall(r"6'b[01]{6}", vdec)
