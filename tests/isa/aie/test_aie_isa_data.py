"""aie's ISA data: loads, is consistent, and its manual and generated tables are current."""
import re

import numpy as np
import pytest

from kernelcraft.isa.aie import default_config, functions, isa, spec
from kernelcraft.isa.loader import HardwareConfig
from kernelcraft.isa.manual import MARKER, main as manual_main, manual_path, render_manual
from kernelcraft.simulators.aie import semantics
from kernelcraft.simulators.aie.assembler import assemble

SPEC = spec()


@pytest.fixture(scope="module")
def manual():
    return render_manual("aie")


def test_every_record_has_its_aie_data_and_a_slot():
    classes = SPEC.slot_classes()
    assert classes == {"load": 2, "store": 1, "scalar": 1, "vector": 1, "move": 1}
    assert set(SPEC.ops) == set(isa().instructions)
    for mn, info in SPEC.ops.items():
        assert info.slot in classes, mn
        memory = any(op.kind.name == "ptr" for op in info.defn.operands)
        assert bool(info.bytes) == memory, mn


def test_semantics_cover_exactly_the_records():
    assert set(semantics.table(SPEC)) == set(SPEC.ops)
    for mn, info in SPEC.ops.items():
        assert semantics.parameters(mn) == [op.name for op in info.defn.operands], mn


def test_opcodes_unique_and_formats_fit():
    ops = [d.opcode for d in isa().instructions.values()]
    assert len(ops) == len(set(ops)) and max(ops) < 128


def test_committed_manual_is_current(manual):
    assert manual_path("aie").read_text() == manual, "run python -m kernelcraft.isa.manual aie"
    assert manual_main(["aie", "--check"]) == 0
    assert MARKER.search(manual) is None


def test_manual_has_every_section_and_operation(manual):
    for title in ("Machine model", "Bundles and slots", "Assembler syntax", "Memories and addressing",
                  "DMA and locks", "Timing model", "Numerics", "Function unit", "Shuffle modes",
                  "Hardware loops", "How a program ends", "Hardware configuration", "Timing classes",
                  "Operation index"):
        assert f"\n## {title}\n" in manual, title
    headings = re.findall(r"^### (\S+)$", manual, re.MULTILINE)
    assert [h for h in headings if h in SPEC.ops] == list(SPEC.ops)
    for rule in SPEC.rules:
        assert f"`{rule.name}`" in manual
    for mode in SPEC.shuffles.values():
        assert f"`{mode.name}`" in manual


def test_manual_follows_the_configuration():
    text = render_manual("aie", HardwareConfig(isa(), "big", LOAD_LATENCY=9, DM_SIZE=131072))
    assert "| `LOAD_LATENCY` | 9 (default 6) |" in text
    assert "ready 9 cycles after the bundle issues" in text


def test_every_example_and_the_intro_example_assemble(manual):
    for mn, d in isa().instructions.items():
        program = assemble(d.example, f"{mn} example")
        assert mn in {i.mnemonic for i in program.instrs}, mn
    block = manual.split("## Assembler syntax", 1)[1].split("```asm\n", 1)[1].split("```", 1)[0]
    assert len(assemble(block).bundles) == 4


def test_function_tables_are_current_and_close_to_their_functions():
    assert functions.main(["--check"]) == 0
    for fn, (off, slope, _) in SPEC.tables.items():
        o, s = off.astype(np.float64), slope.astype(np.float64)
        joins = [j for j in range(off.size - 1) if not (fn == "RSQRT" and j == off.size // 2 - 1)]
        assert np.allclose(o[joins] + s[joins], o[np.array(joins) + 1], rtol=2.0 ** -22), fn
    exp_off, rcp_off, rsq_off = (SPEC.tables[f][0] for f in ("EXP", "RCP", "RSQRT"))
    assert exp_off[0] == 1.0 and abs(exp_off[64] - np.sqrt(2)) < 1e-7
    assert rcp_off[0] == 1.0 and abs(rcp_off[64] - 2 / 3) < 1e-7
    assert rsq_off[0] == 1.0 and abs(rsq_off[128] - 1 / np.sqrt(2)) < 1e-7


def test_shuffle_modes_pick_lanes_of_the_pair():
    for m in SPEC.shuffles.values():
        lanes = 512 // m.bits
        assert m.index.shape == (lanes,) and m.index.min() >= 0 and m.index.max() < 2 * lanes


def test_default_configuration_and_memories():
    cfg = default_config()
    assert cfg.memories() == {"ext": (cfg.EXT_SIZE, "bf16"), "dm": (cfg.DM_SIZE, "u8")}
    assert cfg.cycles("LOAD") == cfg.LOAD_LATENCY
