"""Generated RTL headers: up to date with isa/plena, and derived from it (not copied)."""
import dataclasses

from kernelcraft.isa.loader import get_isa
from kernelcraft.simulators.plena_rtl import generate


def test_headers_match_the_isa_data():
    stale = generate.stale()
    assert not stale, f"regenerate with python3 -m kernelcraft.simulators.plena_rtl.generate: {stale}"


def test_opcodes_come_from_the_data_and_timing_does_not():
    isa = get_isa("plena")
    text = generate.render_isa(isa)
    for d in isa.instructions.values():
        assert f"localparam [5:0] OP_{d.mnemonic} = 6'h{d.opcode:02X};" in text
    # The RTL times itself: hardware.toml's timing table is not in its headers.
    assert "isa_cycles" not in text
    assert not [c for c in isa.timing if f"T_{c}" in text]
    # A changed record changes the header.
    first = next(iter(isa.instructions.values()))
    changed = dataclasses.replace(isa, instructions={**isa.instructions,
                                                     first.mnemonic: dataclasses.replace(first, opcode=0x3F - 1)})
    assert generate.render_isa(changed) != text


def test_memory_size_expressions_translate_to_the_same_values():
    isa = get_isa("plena")
    env = {name: p.default for name, p in isa.params.items()}
    for name, m in isa.hardware["memories"].items():
        verilog = generate.verilog_expr(m["size"], set(env))
        assert eval(verilog.replace("/", "//"), {}, dict(env)) == eval(m["size"], {}, dict(env)), name


def test_params_header_lists_every_parameter_with_its_default():
    isa = get_isa("plena")
    text = generate.render_params(isa)
    for name, p in isa.params.items():
        assert f"parameter integer {name}" in text and f"= {p.default}" in text
