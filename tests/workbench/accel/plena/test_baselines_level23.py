"""plena Level-2/3 baselines (ffn, swiglu, rope, the attention family, the blocks).

On C1 and the held-out H1 of each task: the baseline passes two seeds and the edge
cases without a write outside its regions, above the lower bound; kernels that do
nothing, write zeros, a constant, or a copy of an input fail. The other configurations
run in `test_every_configuration` (marked slow). On C1 outputs equal the bf16 kernel
model bit for bit; grouped heads read their K/V tiles once; flash attention keeps one
key block resident; tuning candidates stay correct; problems are explained."""
import pytest

from kernelcraft.tasks import get_task
from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.accel.plena.baselines import templates
from kernelcraft.workbench.evaluation import BASELINE_BUDGET, evaluate
from kernelcraft.workbench.layout import build_image

ACCEL = get_accel("plena")
HW = ACCEL.default_config()
TASKS = ("ffn", "swiglu", "rope", "scaled_dot_product", "flash_attention", "mha", "gqa", "mqa", "conv_block",
         "decoder_block_llama", "decoder_block_t5")
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


@pytest.mark.parametrize("task,config", [("gqa", "C3"), ("gqa", "H1"), ("mqa", "C2")])
def test_grouped_heads_share_their_key_value_tiles(task, config):
    """Each key/value head's K tiles come from HBM once, however many query heads read them."""
    d = get_task(task).dims(config)
    src = render(task, config)
    assert sum(f"k tiles of head {g}" in src for g in range(d["Hkv"])) == d["Hkv"]
    assert src.count("k tiles of head") == d["Hkv"]


def test_flash_attention_is_online_and_materialising_is_refused():
    """Blocked online softmax: only one key block's K and V tiles are ever in Matrix SRAM,
    and the whole-row strategy is refused where the scores would not fit."""
    task, config = get_task("flash_attention"), "C3"
    layout = ACCEL.layout(task, config, HW)
    program = ACCEL.assemble(render("flash_attention", config), config=HW)
    result = ACCEL.backend().run(program, build_image(layout, task.generate(config, 4)), HW, BASELINE_BUDGET)
    assert result.error is None
    tile = HW.MLEN * HW.MLEN
    assert result.memories["msram"][:2 * tile].any() and not result.memories["msram"][2 * tile:].any()
    with pytest.raises(ValueError, match=r"strategy 'rows' keeps every key/value tile .* use strategy 'online'"):
        render("flash_attention", "C5", strategy="rows")


@pytest.mark.parametrize("task,config", [("mha", "C2"), ("gqa", "C1"), ("scaled_dot_product", "C1")])
@pytest.mark.parametrize("params", [{"strategy": "online"}, {"strategy": "online", "ahead": 1}, {"ahead": 1}])
def test_attention_candidates_are_correct(task, config, params):
    ev = run(task, config, render(task, config, **params), seeds=(3,))
    assert ev.passed, [(s.label, s.frac_match, s.error) for s in ev.sets if not s.passed]


@pytest.mark.parametrize("task", TASKS)
def test_numerics_are_the_bf16_kernel_regime(task):
    """On C1 every output equals tasks/bf16_kernels.py's honest bf16 kernel bit for bit:
    bf16 intermediates, fp32 accumulation and row statistics, the hardware exp/recip/sqrt."""
    import numpy as np
    from kernelcraft.tasks import bf16_kernels
    ev = evaluate("plena", task, "C1", render(task, "C1"), seeds=[3], edge_cases=False,
                  compare_baseline=False, keep_outputs=True)
    (out,) = ev.sets[0].outputs.values()
    t = get_task(task)
    x = {k: v.astype(np.float32) for k, v in t.generate("C1", 3).items()}
    (want,) = bf16_kernels.run(task, x, t.dims("C1")).values()
    np.testing.assert_array_equal(out["got"], want)


def test_parameter_and_hardware_problems_are_explained():
    with pytest.raises(ValueError, match=r"strategy='dense' must be 'rows' or 'online'"):
        render("mha", "C1", strategy="dense")
    with pytest.raises(ValueError, match=r"rope template on C1: rows=12 must be a multiple of"):
        render("rope", "C1", rows=12)
    with pytest.raises(ValueError, match=r"stage up \+ gelu: rows=128 must divide M=64"):
        render("ffn", "C1", rows=128)
    with pytest.raises(ValueError, match=r"a position bias needs strategy 'rows'"):
        render("decoder_block_t5", "C1", attention_strategy="online")
    small = ACCEL.default_config(MLEN=16, VLEN=16, HLEN=4)
    with pytest.raises(ValueError, match=r"D=32 must divide VLEN=16"):
        render("gqa", "C1", small)


@pytest.mark.parametrize("task,config,edge", [("ffn", "C1", 16), ("swiglu", "C1", 16), ("conv_block", "C1", 16),
                                              ("gqa", "C1", 32), ("mha", "C1", 32), ("decoder_block_t5", "C1", 32)])
def test_templates_follow_a_smaller_hardware_configuration(task, config, edge):
    """MLEN = VLEN = 16 or 32 (attention needs D <= VLEN): the composed templates re-tile
    themselves and stay correct."""
    hw = ACCEL.default_config(MLEN=edge, VLEN=edge, HLEN=edge // 4, HBM_SIZE=1 << 18)
    ev = run(task, config, render(task, config, hw), seeds=(2,), edge_cases=False, hw=hw)
    assert ev.passed, [(s.label, s.frac_match, s.error) for s in ev.sets if not s.passed]
