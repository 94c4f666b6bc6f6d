"""The semantics table is the ISA: the same mnemonics, and each function takes exactly
the operands its ISA record names, in order."""
from kernelcraft.isa.loader import get_isa
from kernelcraft.simulators.plena import semantics as sem


def test_semantics_implement_exactly_the_isa_mnemonics():
    isa = get_isa("plena")
    assert set(sem.SEMANTICS) == set(isa.instructions)
    assert set(sem.table(isa)) == set(isa.instructions)


def test_semantics_take_the_non_reserved_operands_in_record_order():
    isa = get_isa("plena")
    for mnemonic, defn in isa.instructions.items():
        expected = [op.name for op in defn.operands if not op.kind.reserved]
        assert sem.parameters(mnemonic) == expected, mnemonic


def test_flow_instructions_are_the_loop_and_break_instructions():
    assert sem.FLOW == {"C_LOOP_START", "C_LOOP_END", "C_BREAK"}
