"""Generated RTL headers: up to date with isa/plena, and derived from it (not copied)."""
import dataclasses

from kernelcraft.isa.loader import get_isa
from kernelcraft.simulators.plena_rtl import generate


def test_headers_match_the_isa_data():
    stale = generate.stale()
    assert not stale, f"regenerate with python3 -m kernelcraft.simulators.plena_rtl.generate: {stale}"


def test_opcode_and_timing_come_from_the_data():
    isa = get_isa("plena")
    text = generate.render_isa(isa)
    for d in isa.instructions.values():
        assert f"localparam [5:0] OP_{d.mnemonic} = 6'h{d.opcode:02X};" in text
        assert f"OP_{d.mnemonic}: isa_cycles = T_{d.timing};" in text
    # A changed record changes the header.
    first = next(iter(isa.instructions.values()))
    changed = dataclasses.replace(isa, instructions={**isa.instructions,
                                                     first.mnemonic: dataclasses.replace(first, opcode=0x3F - 1)})
    assert generate.render_isa(changed) != text


def test_timing_expressions_translate_to_the_same_values():
    isa = get_isa("plena")
    env = {name: p.default for name, p in isa.params.items()}
    for cls, expr in isa.timing.items():
        verilog = generate.verilog_expr(expr, set(env))
        assert eval(verilog.replace("/", "//"), {}, dict(env)) == eval(expr, {}, dict(env)), cls


def test_params_header_lists_every_parameter_with_its_default():
    isa = get_isa("plena")
    text = generate.render_params(isa)
    for name, p in isa.params.items():
        assert f"parameter integer {name}" in text and f"= {p.default}" in text
