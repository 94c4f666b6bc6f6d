"""plena Level-2/3 baselines (ffn, swiglu, rope, the attention family, the blocks).

On C1 and the held-out H1 of each task: the baseline passes two seeds and the edge
cases without a write outside its regions, above the lower bound; kernels that do
nothing, write zeros, a constant, or a copy of an input fail. The other configurations
run in `test_every_configuration` (marked slow)."""
import pytest

from tasks import get_task
from workbench.accel import get_accel
from workbench.accel.plena.baselines import templates
from workbench.evaluation import evaluate

ACCEL = get_accel("plena")
HW = ACCEL.default_config()
TASKS = ("ffn", "swiglu", "rope")
CELLS = [(t, c) for t in TASKS for c in ("C1", "H1")]


def render(task, config, hw=HW, **params):
    return templates()[task].render(get_task(task), config, hw, **params)


def run(task, config, source=None, seeds=(1, 2), edge_cases=True, hw=HW):
    return evaluate("plena", task, config, source or render(task, config, hw), seeds=list(seeds),
                    edge_cases=edge_cases, compare_baseline=False, hw=hw)


def check_passes(task, config):
    ev = run(task, config)
    assert ev.passed, [(s.label, s.frac_match, s.error) for s in ev.sets if not s.passed]
    assert len(ev.sets) > 2                                   # the edge cases ran too
    assert not any(s.outside_writes for s in ev.sets), [s.outside_writes for s in ev.sets]
    assert 0 < ev.lower_bound < ev.cycles and not ev.impossible
    assert ev.code_size < HW.IMEM_SIZE


@pytest.mark.parametrize("task,config", CELLS)
def test_baseline_passes(task, config):
    check_passes(task, config)


@pytest.mark.slow
@pytest.mark.parametrize("task,config", [(t, c) for t in TASKS for c in get_task(t).configs
                                         if c not in ("C1", "H1")])
def test_every_configuration(task, config):
    check_passes(task, config)


def _hbm_base(reg, areg, addr):
    return [f"S_LUI_INT {reg}, {addr >> 12}", f"S_ADDI_INT {reg}, {reg}, {addr & 0xFFF}",
            f"C_SET_ADDR_REG {areg}, gp0, {reg}"]


def _fill(layout, rows=(), source=None):
    """Every output written, block by block, from Vector SRAM rows 0.. (prepared by
    `rows`, or each block first fetched from the same offset of `source`)."""
    r, vlen = HW.HBM_V_WRITEBACK_AMOUNT, HW.VLEN
    lines = list(rows)
    for out in layout.by_role("output"):
        lines += _hbm_base("gp2", "a1", out.address)
        if source is not None:
            lines += _hbm_base("gp3", "a0", source.address)
        lines += ["S_ADDI_INT gp4, gp0, 0", f"C_LOOP_START gp6, {-(-out.size // (r * vlen))}"]
        if source is not None:
            lines += ["H_PREFETCH_V gp0, gp4, a0, 0, 0"]
        lines += ["H_STORE_V gp0, gp4, a1, 0, 0", f"S_ADDI_INT gp4, gp4, {r * vlen}", "C_LOOP_END gp6"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("task,config", CELLS)
def test_cheating_kernels_fail(task, config):
    layout = ACCEL.layout(get_task(task), config, HW)
    const = ["S_EXP_FP f1, f0"] + [f"S_ADDI_INT gp7, gp0, {i * HW.VLEN}\nV_ADD_VF gp7, gp7, f1, 0"
                                   for i in range(HW.HBM_V_WRITEBACK_AMOUNT)]
    kernels = {"nothing": "C_BREAK\n", "zeros": _fill(layout), "constant 1.0": _fill(layout, const)}
    kernels |= {f"copy of {r.name}": _fill(layout, source=r) for r in layout.by_role("input")}
    for what, source in kernels.items():
        ev = run(task, config, source, seeds=(11,), edge_cases=False)
        assert not ev.passed and ev.status in ("failed", "run_error"), f"{what} passed {task} {config}"
