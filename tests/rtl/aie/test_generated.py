"""aie's generated RTL headers: up to date with isa/aie, and what the decoder sees of
them, read back with pyverilog, is the ISA data's."""
import tempfile

from kernelcraft.isa.aie.model import get_spec
from kernelcraft.simulators.aie_rtl import generate
from kernelcraft.simulators.aie_rtl.build import AIE_RTL


def test_headers_match_the_isa_data():
    stale = generate.stale()
    assert not stale, f"regenerate with python3 -m kernelcraft.simulators.aie_rtl.generate: {stale}"


def _walk(node):
    yield node
    for child in node.children():
        yield from _walk(child)


def test_pyverilog_reads_the_isa_data_back():
    """Parse aie_top (which includes the generated headers through aie_core) and check
    its parameters and every opcode constant against isa/aie."""
    from pyverilog.vparser import ast as vast
    from pyverilog.vparser.parser import parse
    with tempfile.TemporaryDirectory() as tmp:
        tree, _ = parse([str(AIE_RTL / "aie_params_check.v")], preprocess_include=[str(AIE_RTL)],
                        preprocess_define=["AIE_CONSTANTS_ONLY"],
                        outputdir=tmp, debug=False)
    params, opcodes = {}, {}
    for node in _walk(tree):
        if isinstance(node, vast.Parameter):
            value = node.value.var
            if isinstance(value, vast.IntConst):
                text = value.value
                base = {"h": 16, "d": 10, "b": 2}
                opcodes[node.name] = (int(text.split("'")[1][1:], base[text.split("'")[1][0]])
                                      if "'" in text else int(text))
        if isinstance(node, vast.ModuleDef):
            for decl in node.paramlist.params:
                for p in decl.list:
                    params[p.name] = int(p.value.var.value)
    spec = get_spec()
    assert params == {n: p.default for n, p in spec.isa.params.items()}
    for d in spec.isa.instructions.values():
        assert opcodes[generate.op_name(d.mnemonic)] == d.opcode, d.mnemonic
