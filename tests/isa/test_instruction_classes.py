"""Instruction classes are ISA data (formats.toml [classes], a record's `classes`): the
loader checks them, and the assembler, fast paths and random programs read them."""
import shutil

import pytest

from kernelcraft.isa.loader import ISA_ROOT, ISADataError, get_isa, load_isa


def test_every_accelerator_declares_the_classes_its_consumers_read():
    plena, coral, aie = (get_isa(a) for a in ("plena", "coral", "aie"))
    assert plena.having("loop_start") == ("C_LOOP_START",)
    assert plena.having("loop_end", "stop") == ("C_LOOP_END", "C_BREAK")
    assert {"vfadd.vv", "vadd.vx", "vfmv.v.f"} <= set(coral.having("elementwise"))
    assert set(coral.having("accumulates")) <= set(coral.having("elementwise"))
    assert "vfmacc.vf" in coral.having("accumulates") and "vfadd.vf" not in coral.having("accumulates")
    assert set(coral.having("multiply_accumulates")) == {"vfmacc.vv", "vfmacc.vf"}   # not vfnmacc, vfmsac
    assert set(coral.having("word_load")) == {"vle32.v", "vlse32.v"}
    assert set(coral.having("word_store")) == {"vse32.v", "vsse32.v"}
    assert set(coral.having("compare_branch")) == {"beq", "bne", "blt", "bge", "bltu", "bgeu"}
    assert set(aie.having("loop_start")) == {"LOOP", "LOOPR"}
    assert "VMUL.BF16" in aie.having("lane_wise") and "VMMAC.BF16" not in aie.having("lane_wise")


def test_the_fast_paths_and_assemblers_take_their_lists_from_the_data():
    from kernelcraft.simulators.aie import assembler as aie_asm, lanewise, semantics
    from kernelcraft.simulators.coral import strips
    from kernelcraft.simulators.plena import assembler as plena_asm
    from kernelcraft.simulators.plena_rtl import randprog
    assert strips.ELEMENTWISE == set(get_isa("coral").having("elementwise"))
    from kernelcraft.simulators.coral import loops
    assert loops.LOADS == {"vle32.v": "unit", "vlse32.v": "strided"}
    from kernelcraft.simulators.coral import maps
    assert maps.MEMORY == {"vle32.v": (False, False), "vlse32.v": (False, True), "vse32.v": (True, False),
                           "vsse32.v": (True, True)}
    assert loops.FMAS == set(get_isa("coral").having("multiply_accumulates"))
    assert set(loops.BRANCHES) == set(get_isa("coral").having("compare_branch"))
    assert lanewise.LANE_WISE == {semantics.SEMANTICS[semantics.key(m)]
                                  for m in get_isa("aie").having("lane_wise")}
    assert (plena_asm.LOOP_START, plena_asm.LOOP_END) == ("C_LOOP_START", "C_LOOP_END")
    assert set(aie_asm.LOOP_OPS) == {"LOOP", "LOOPR"}
    assert set(randprog.CONTROL_FLOW) == {"C_LOOP_START", "C_LOOP_END", "C_BREAK"}


def test_an_unknown_class_is_named_with_its_record(tmp_path):
    folder = tmp_path / "isa" / "plena"
    shutil.copytree(ISA_ROOT / "plena", folder)
    control = folder / "control.toml"
    control.write_text(control.read_text().replace('classes = ["stop"]', 'classes = ["halt"]'))
    with pytest.raises(ISADataError, match=r"isa/plena/control\.toml:\d+: C_BREAK: unknown "
                                           r"instruction class 'halt'; .*loop_start, loop_end, stop"):
        load_isa("plena", folder)


def test_asking_for_an_unknown_class_names_the_known_ones():
    with pytest.raises(KeyError, match="no instruction class branch; classes: loop_start"):
        get_isa("plena").having("branch")
