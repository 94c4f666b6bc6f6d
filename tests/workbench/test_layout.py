"""Layouts: regions do not overlap, reserve whole blocks, and stray writes are reported."""
import numpy as np
import pytest

from tasks import all_tasks
from workbench.accel import get_accel
from workbench.evaluation import evaluate
from workbench.layout import pack

ACCEL = get_accel("plena")
HW = ACCEL.default_config()


@pytest.mark.parametrize("task", all_tasks(), ids=lambda t: t.name)
def test_every_task_has_a_valid_plena_layout(task):
    for config in task.configs:
        layout = ACCEL.layout(task, config, HW)
        spans = sorted((r.address, r.address + r.reserved, r.name) for r in layout.regions)
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


def test_pack_aligns_reserves_and_guards():
    regions = pack([("a", (3,), "bf16", "input", ""), ("b", (10,), "bf16", "output", "")],
                   "hbm", 0, align=8, block=4, guard=8)
    assert [(r.address, r.reserved) for r in regions] == [(0, 4), (16, 12)]


def test_write_into_guard_is_reported_but_output_slack_is_not():
    task, config = "relu", "C1"
    layout = ACCEL.layout(__import__("tasks").get_task(task), config, HW)
    y = layout.region("y")
    src = ACCEL.baseline(task, config, HW)
    guard = y.address + y.reserved            # first element after y's reservation
    stray = (f"S_LUI_INT gp9, {guard >> 12}\nS_ADDI_INT gp9, gp9, {guard & 0xFFF}\n"
             "C_SET_ADDR_REG a5, gp0, gp9\nS_EXP_FP f7, f0\nS_ADDI_INT gp10, gp0, 4032\n"
             "V_ADD_VF gp10, gp10, f7, 0\nH_STORE_V gp10, gp0, a5, 0, 0\n")
    ev = evaluate("plena", task, config, src + stray, seeds=[1], edge_cases=False)
    assert ev.passed                                       # outputs are still right...
    mem, first, count = ev.sets[0].outside_writes[0]       # ...but the stray write is reported
    assert (mem, first) == ("hbm", guard) and count >= HW.VLEN
