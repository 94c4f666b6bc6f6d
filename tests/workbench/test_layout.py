"""Layouts: regions do not overlap, reserve whole blocks, and stray writes are reported."""
import numpy as np
import pytest

from kernelcraft.tasks import all_tasks
from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.evaluation import evaluate
from kernelcraft.workbench.layout import pack

ACCEL = get_accel("plena")
HW = ACCEL.default_config()


@pytest.mark.parametrize("task", all_tasks(), ids=lambda t: t.name)
def test_every_task_has_a_valid_plena_layout(task):
    for config in task.configs:
        layout = ACCEL.layout(task, config, HW)
        spans = sorted((r.address - r.lead, r.address + r.reserved, r.name) for r in layout.regions)
        for (a0, e0, n0), (a1, e1, n1) in zip(spans, spans[1:]):
            assert e0 < a1, f"{task.name} {config}: {n0} overlaps {n1} or has no guard"
        for r in layout.regions:
            assert r.address % HW.VLEN == 0
            assert r.reserved % (HW.HBM_V_WRITEBACK_AMOUNT * HW.VLEN) == 0
        assert {r.name for r in layout.by_role("input")} == {t.name for t in task.inputs(config)}
        assert {r.name for r in layout.by_role("output")} == {t.name for t in task.outputs(config)}
        assert [c.name for c in layout.constants] == list(task.constants(config))
        text = layout.describe()
        assert all(r.name in text for r in layout.regions)
        assert layout.sizes == {"hbm": HW.HBM_SIZE}, "all of HBM is guarded, every level"


def test_pack_aligns_reserves_and_guards():
    regions = pack([("a", (3,), "bf16", "input", ""), ("b", (10,), "bf16", "output", "")],
                   "hbm", 0, align=8, block=4, guard=8)
    assert [(r.address, r.reserved) for r in regions] == [(0, 4), (16, 12)]


def _plena_store(address: int, value: str = "zero") -> str:
    """Store one VSRAM row (zeros, or ones) to HBM `address` (whole transfer blocks)."""
    ones = "S_EXP_FP f7, f0\nV_ADD_VF gp10, gp10, f7, 0\n" if value == "one" else ""
    return (f"S_LUI_INT gp9, {address >> 12}\nS_ADDI_INT gp9, gp9, {address & 0xFFF}\n"
            f"C_SET_ADDR_REG a5, gp0, gp9\nS_ADDI_INT gp10, gp0, 4032\n{ones}"
            "H_STORE_V gp10, gp0, a5, 0, 0\n")


@pytest.mark.parametrize("task,config,output", [("relu", "C1", "y"), ("gqa", "C1", "o"),
                                               ("decoder_block_llama", "H1", "y")])
@pytest.mark.parametrize("value", ["one", "zero"])
def test_a_write_into_the_guard_fails_naming_the_range(value, task, config, output):
    """Even a zero: unowned memory starts as the guard pattern, not as zero (Level 2/3 too)."""
    layout = ACCEL.layout(__import__("tasks").get_task(task), config, HW)
    y = layout.region(output)
    guard = y.address + y.reserved            # first element after the output's reservation
    src = ACCEL.baseline(task, config, HW) + _plena_store(guard, value)
    ev = evaluate("plena", task, config, src, seeds=[1], edge_cases=False)
    assert ev.frac_match == 1.0 and not ev.passed         # outputs are right, the kernel is not
    mem, first, count = ev.sets[0].outside_writes[0]
    assert (mem, first) == ("hbm", guard) and count >= HW.VLEN
    assert f"writes outside the declared regions: hbm[{guard}:{guard + count}]" in ev.sets[0].stray
    assert ev.speedup is None


def test_a_write_into_an_input_fails_naming_the_input():
    task, config = "relu", "C1"
    layout = ACCEL.layout(__import__("tasks").get_task(task), config, HW)
    x = layout.region("x")
    src = ACCEL.baseline(task, config, HW) + _plena_store(x.address + HW.VLEN)
    ev = evaluate("plena", task, config, src, seeds=[1], edge_cases=False)
    assert ev.frac_match == 1.0 and not ev.passed
    assert ev.sets[0].input_writes and ev.sets[0].input_writes[0][:2] == ("hbm", x.address + HW.VLEN)
    assert f"writes into inputs (a kernel may not overwrite its caller's data): x at hbm[{x.address + HW.VLEN}:" \
        in ev.sets[0].stray
    from kernelcraft.workbench.tools import format_evaluation
    assert "FAIL" in format_evaluation(ev) and "x at hbm[" in format_evaluation(ev)


def test_a_write_into_an_inputs_lead_fails():
    """Level 2/3 inputs are preceded by zeros a tile read may see; writing them (even a
    zero over a zero is not a write that shows, so ones) is a stray write."""
    task, config = "gqa", "C1"
    layout = ACCEL.layout(__import__("tasks").get_task(task), config, HW)
    v = layout.region("v")
    assert v.lead == HW.VLEN and "preceded by 64 zero elements" in layout.describe()
    src = ACCEL.baseline(task, config, HW) + _plena_store(v.address - v.lead, "one")
    ev = evaluate("plena", task, config, src, seeds=[1], edge_cases=False)
    assert ev.frac_match == 1.0 and not ev.passed
    assert ev.sets[0].outside_writes[0][:2] == ("hbm", v.address - v.lead)


def _final_memory(layout, image, size):
    """The memory a run would leave if it changed nothing: the pre-run image."""
    hbm = np.zeros(size, dtype=np.uint16)
    for a, v in image.writes["hbm"].items():
        hbm[a:a + len(v)] = v
    return hbm


def test_only_outputs_scratch_and_the_slack_of_reservations_are_free():
    """gemv C1: y (64 elements) and x reserve 256 each."""
    from kernelcraft.simulators.core.backend import RunResult
    from kernelcraft.workbench.layout import build_image, stray_writes
    task = __import__("tasks").get_task("gemv")
    layout = ACCEL.layout(task, "C1", HW)
    x, y = layout.region("x"), layout.region("y")
    image = build_image(layout, task.generate("C1", 0))
    hbm = _final_memory(layout, image, HW.HBM_SIZE)
    hbm[y.address:y.address + y.reserved] = 0x3F80            # output and its slack
    hbm[x.address + x.size:x.address + x.reserved] = 0x3F80   # an input's slack
    run = RunResult("test", {"hbm": hbm}, {}, 1, 1, {})
    assert stray_writes(layout, image, run, ("hbm",)) == ([], [])
    hbm[x.address + 5] ^= 1                                   # one input element
    hbm[y.address + y.reserved] = 0                           # the guard, with a zero
    hbm[HW.HBM_SIZE - 1] = 0                                  # the far end of memory
    outside, into = stray_writes(layout, image, run, ("hbm",))
    assert into == [("hbm", x.address + 5, 1, "x")]
    assert outside == [("hbm", y.address + y.reserved, 1), ("hbm", HW.HBM_SIZE - 1, 1)]


def test_guard_fills_exactly_the_memory_no_region_or_constant_declares():
    from kernelcraft.workbench.layout import GUARD_BF16, build_image, guard_spans
    task = __import__("tasks").get_task("softmax")
    layout = ACCEL.layout(task, "C1", HW)
    spans = guard_spans(layout, "hbm")
    owned = sorted(layout.span(r, reserved=True) for r in layout.regions)
    assert spans[0] == (owned[0][1], owned[1][0]) and spans[-1][1] == HW.HBM_SIZE
    assert sum(b - a for a, b in spans) + sum(b - a for a, b in owned) == HW.HBM_SIZE
    image = build_image(layout, task.generate("C1", 0))
    assert all((image.writes["hbm"][a] == GUARD_BF16).all() for a, _ in spans)
