"""The debugger's machine views without any UI: coral's vector configuration, x/f/v
registers (tail elements, elements a step wrote) at any state, forwards and back;
aie's bundles with their slots, stalls by cause and what a bundle waited for, slot
use, and the DMA engine's transfers and locks, checked against the model's own totals."""
from __future__ import annotations

import numpy as np
import pytest

from kernelcraft.isa.aie.model import get_spec
from kernelcraft.tasks import get_task
from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.tui.model.debugger import DebugSession
from kernelcraft.workbench.tui.model.formats import format_bytes
from kernelcraft.workbench.tui.model.views import MachineView, view_for
from kernelcraft.workbench.tui.model.views.base import Page, paginate

CORAL = get_accel("coral")
CORAL_HW = CORAL.default_config()
AIE = get_accel("aie")
AIE_HW = AIE.default_config()


def text(lines) -> str:
    return "\n".join("".join(s.text for s in line) for line in lines)


def segs(lines, role: str) -> list[str]:
    return [s.text.strip() for line in lines for s in line if s.role == role]


def page(session, name: str, fmt: str = "fp32"):
    """The lines of the register page called `name` (unsplit)."""
    pages = session.view.register_pages(session, session.main, fmt, 77)
    return next(p for p in pages if p.name == name).get()


def goto_after(session, prefix: str) -> int:
    """Step over the first step whose text starts with `prefix` (one step: what it
    changed is what is highlighted)."""
    k = next(i for i, s in enumerate(session.main.steps) if s.text.startswith(prefix))
    session.goto(k)
    session.step(1)
    return k + 1


def test_views_are_chosen_by_module_and_plena_keeps_the_plain_view():
    assert type(view_for("plena")) is MachineView
    assert view_for("coral").step_noun == "instruction" and "v" in view_for("coral").unit_spaces
    assert view_for("aie").step_noun == "bundle" and [p.key for p in view_for("aie").panes] == [
        "bundle", "dma"]


def test_pages_split_between_blocks():
    lines = [[]] * 10
    parts = paginate([Page("x", lines, block=3), Page("y", lines[:2])], 7)
    assert [(p.name, p.part) for p in parts] == [("x", "1/2"), ("x", "2/2"), ("y", "")]
    assert [len(p.get()) for p in parts] == [6, 4, 2]


def test_byte_memories_read_as_cells_of_the_format():
    raw = np.array([1.5, -2.0], dtype=np.float32).view(np.uint8)
    assert format_bytes(raw, "fp32") == ["1.5", "-2"]
    assert format_bytes(raw, "hex") == ["0x3FC00000", "0xC0000000"]
    assert format_bytes(raw, "bf16") == ["0", "1.5", "0", "-2"]


# ------------------------------------------------------------------------ coral
@pytest.fixture(scope="module")
def coral_relu():
    return DebugSession.start("coral", "relu", "C1", CORAL.baseline("relu", "C1", CORAL_HW), seed=1)


def test_coral_vector_configuration_follows_the_cursor(coral_relu):
    s = coral_relu
    s.goto(0)
    header = text(s.view.header(s, s.main))
    assert "vl=0 " in header and "vill" in header          # not the run's final vtype
    k = goto_after(s, "vsetvli")
    header = text(s.view.header(s, s.main))
    assert "vl=32 of VLMAX 32" in header and "SEW=e32 LMUL=m8 ta ma" in header
    assert "frm=rne" in header and "fflags=none" in header and "vxrm=0  vxsat=0" in header
    assert segs(s.view.header(s, s.main), "changed") == ["32", "0x000000D3"]   # vl, vtype
    v = page(s, "v")
    assert text(v[:1]) == "mask v0.t bits 0..31: " + " ".join(["00000000"] * 4)
    v = v[1:]
    assert [v[r][1].text for r in (8, 9, 15, 16)] == ["│", "┆", "┆", "│"]   # m8 groups
    s.goto(k - 1)
    assert "vill" in text(s.view.header(s, s.main))


def test_coral_x_registers_have_abi_names_and_signed_or_hex_values(coral_relu):
    s = coral_relu
    goto_after(s, "addi a0, a0")
    a0 = s.main.registers["x"][10]
    assert a0 == s.layout.region("x").address
    lines = text(page(s, "x", "int"))
    assert f"x10 a0   {a0}" in lines and " x2 sp " in lines and " x0 zero 0" in lines
    assert f"x10 a0   0x{a0:08X}" in text(page(s, "x", "hex"))
    assert segs(page(s, "x", "int"), "changed") == [str(a0)]


TAIL_KERNEL = """
    li t0, 3
    vsetvli t1, t0, e32, m1, tu, mu
    li a0, {x}
    vle32.v v1, (a0)
    li t2, 0x3FC00000
    fmv.w.x fa0, t2
    vsetvli t1, t0, e16, mf2, ta, ma
    ebreak
"""


@pytest.fixture(scope="module")
def coral_tail():
    x = CORAL.layout(get_task("relu"), "C1", CORAL_HW).region("x").address
    return DebugSession.start("coral", "relu", "C1", TAIL_KERNEL.format(x=x), seed=1)


def test_coral_v_elements_at_sew_with_the_tail_apart(coral_tail):
    s = coral_tail
    goto_after(s, "vle32.v")
    inputs = get_task("relu").generate("C1", 1)["x"].ravel()
    v = page(s, "v")[1:]                                     # after the mask line
    v1 = v[1]
    assert v1[0].text.strip() == "v1" and v1[0].role == "changed"
    cells = v1[2:]
    assert len(cells) == 4                                   # VLEN 128 / SEW 32
    assert [c.role for c in cells] == ["changed"] * 3 + ["tail"]   # vl = 3; tu left element 3
    assert [float(c.text) for c in cells[:3]] == pytest.approx(inputs[:3].astype(np.float32), rel=1e-6)
    # a whole-register change marks that register only (not the next VLENB - 1)
    assert s.main.touched.has("v", 1) and not s.main.touched.has("v", 2)
    assert v[2][0].role == "label"
    # with LMUL = 1 every register is a group of its own: elements 3.. are its tail
    assert [c.role for c in v[2][2:]] == ["", "", "", "tail"]


def test_coral_f_registers_as_bits_and_float(coral_tail):
    s = coral_tail
    goto_after(s, "fmv.w.x")
    f = text(page(s, "f"))
    assert "f10 fa0  3FC00000 1.5" in f


def test_coral_fractional_lmul_and_sew16(coral_tail):
    s = coral_tail
    goto_after(s, "vsetvli t1, t0, e16")
    header = text(s.view.header(s, s.main))
    assert "SEW=e16 LMUL=mf2 ta ma" in header and "vl=3 of VLMAX 4" in header
    assert len(page(s, "v", "int")[2][2:]) == 8              # v1: 8 elements of 16 bits


# ------------------------------------------------------------------------ aie
@pytest.fixture(scope="module")
def aie_relu():
    return DebugSession.start("aie", "relu", "C1", AIE.baseline("relu", "C1", AIE_HW), seed=1)


def test_aie_stall_totals_are_the_models(aie_relu):
    s = aie_relu
    info, result = s.inspection, s.main.result
    assert info.stalls_before(s.length) == result.stalls
    assert sum(result.stalls.values()) > 0
    used = info.slots_used_before(s.length)
    assert used == {k: result.unit_busy[k] for k in info.slots}


def test_aie_bundle_pane_shows_slots_and_what_the_bundle_waits_for(aie_relu):
    s = aie_relu
    s.goto(3)                                 # the ACQ that waits for the first transfer
    lines = s.view.bundle_lines(s)
    assert text(lines[:1]).startswith(f"bundle 3 (line {s.main.current().line}) issues at cycle 102")
    slots = {line[0].text.strip(): line[1] for line in lines[1:7]}
    assert list(slots) == [x.name for x in get_spec().slots]
    assert slots["alu"].text == "ACQ l0, 1" and slots["alu"].role == "busy"
    assert all(slots[k].role == "empty" for k in slots if k != "alu")
    assert "waits 99 cycle(s) for lock l0 to reach 1 (ACQ)" in text(lines)
    assert "stalls so far 0 of 102 cycles" in text(lines)
    s.goto(4)
    assert "DMA wait 99" in text(s.view.bundle_lines(s))


def test_aie_dma_pane_shows_the_transfer_in_flight_then_idle(aie_relu):
    s = aie_relu
    s.goto(3)
    dma = text(s.view.dma_lines(s))
    assert "after bundle 2, cycle 2" in dma
    assert "in0  XIN256 512B" in dma and "till 102 →l0+1" in dma
    assert "locks l0=0 l1=0" in dma
    s.goto(4)
    dma = text(s.view.dma_lines(s))
    assert "in0  idle" in dma and "l0=0" in dma     # landed, released, and taken by the ACQ


def test_aie_dma_snapshots_hold_only_transfers_not_yet_done(aie_relu):
    s = aie_relu
    for k, transfers in enumerate(s.inspection.dma):
        for t in transfers:
            assert t.start < 0 or t.done > s.main.steps[k].cycle


HAZARD_KERNEL = """
VLD x0, [p0], 64 || VLD x1, [p1], 64
VMAX.BF16 x2, x0, x1
HALT
"""


def test_aie_data_hazard_and_bank_conflict_are_named():
    s = DebugSession.start("aie", "relu", "C1", HAZARD_KERNEL, seed=1)
    load = AIE_HW.cycles(get_spec().ops["VLD"].defn.timing)
    rec = s.inspection.records[1]
    # the two loads share bank 0 (p0 = p1 = 0): one cycle more, then the VMAX waits
    assert rec.stalls == (load - 2, 0, 0, 0, 0)
    assert s.inspection.records[0].stalls == (0, 0, 0, 1, 0)
    assert rec.waited == f"{load - 2} cycle(s) for x0, x1 (data hazard)"
    assert s.inspection.stalls_before(s.length) == s.main.result.stalls
    s.goto(1)
    assert f"waits {load - 2} cycle(s) for x0, x1" in text(s.view.bundle_lines(s))


def test_aie_lanes_and_scalars(aie_relu):
    s = aie_relu
    s.goto(s.length)
    x = page(s, "x", "bf16")
    assert x[0][0].text.strip() == "x0"
    scal = text(page(s, "scalar", "int"))
    assert "p0=" in scal and "RM=" in scal and "g0 INC=" in scal
    lines, pages = s.view.register_lines(s, "bf16", 77, 14, 0)
    assert pages > 3 and "scalar" in text(lines[:1]) and "r: next page" in text(lines[:1])


def test_aie_a_deadlocked_bundle_is_shown_with_its_error():
    s = DebugSession.start("aie", "relu", "C1", "MOVI r1, 3\nACQ l3, 1 || MOVI r2, 1\nHALT\n", seed=1)
    assert "stopped by an error after 1 bundles" in s.stop_reason
    s.goto(s.length)
    lines = text(s.view.bundle_lines(s, 49))
    assert lines.startswith("bundle 1 (line 2) failed: deadlock")
    assert "alu ACQ l3, 1" in lines and "mv  MOVI r2, 1" in lines
    assert "ACQ l3, 1 waits forever" in lines
    assert "locks all 16 are 0" in text(s.view.dma_lines(s))


def test_aie_a_full_dma_queue_is_the_wait_named():
    queue = AIE_HW.DMA_QUEUE
    src = ".bd B, ext=0, loc=8192, n0=256\n" + "DMAIN 0, B, r0, r0\n" * (queue + 1) + "HALT\n"
    s = DebugSession.start("aie", "relu", "C1", src, seed=1)
    assert s.stop_reason == (f"ended by the program's own HALT after {queue + 2} bundles "
                             f"(the program stops there; not a debugger breakpoint)")
    stalls = s.main.result.stalls
    assert stalls["dma_queue"] > 0 and s.inspection.stalls_before(s.length) == stalls
    assert s.inspection.records[queue].waited == (f"{stalls['dma_queue']} cycle(s) for room in "
                                                  "DMA channel in0's queue")
    s.goto(queue)
    dma = text(s.view.dma_lines(s))
    assert "in0  B 512B" in dma and f"+{queue - 1} queued" in dma
