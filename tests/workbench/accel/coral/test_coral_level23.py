"""coral's Level-2/3 baselines: each passes fresh seeds and the edge cases on C1 and the
held-out H1 without writing outside its regions; its cycles stay above the lower bound;
kernels that do nothing, write zeros, a constant or a copy of an input fail."""
import pytest

from kernelcraft.tasks import all_tasks, get_task
from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.evaluation import BASELINE_BUDGET, evaluate

ACCEL = get_accel("coral")
HW = ACCEL.default_config()
LEVEL23 = sorted(t.name for t in all_tasks() if t.level in (2, 3) and t.name in ACCEL.baseline_templates())
CELLS = [(t, c) for t in LEVEL23 for c in ("C1", "H1")]
# a few CPU-seconds per run; the limit is CPU time, so loaded test machines do not matter
BUDGET = BASELINE_BUDGET


@pytest.mark.parametrize("task,config", CELLS)
def test_baseline_passes_with_edge_cases_above_the_bound(task, config):
    src = ACCEL.baseline(task, config, HW)
    assert len(ACCEL.assemble(src, source_name="b.s", config=HW)) <= ACCEL.imem_limit(HW)
    ev = evaluate("coral", task, config, src, seeds=[11], edge_cases=True, compare_baseline=False,
                  budget=BUDGET)
    assert ev.passed, (ev.status, ev.error, [(s.label, s.outputs) for s in ev.sets if not s.passed])
    assert all(not s.outside_writes for s in ev.sets)
    assert not ev.impossible and ev.lower_bound < ev.cycles


def _fill(task, config, body):
    """A kernel that writes `body` (a vector source) over every output element."""
    lay = ACCEL.layout(get_task(task), config, HW)
    lines = ["fmv.w.x fa0, zero" if body == "zeros" else "li t1, 0x3f400000\nfmv.w.x fa0, t1"]
    for spec in get_task(task).outputs(config):
        r = lay.region(spec.name)
        lines += [f"li a1, {r.address}", f"li a2, {r.size}", "1: vsetvli t0, a2, e32, m8, ta, ma",
                  "vfmv.v.f v8, fa0", "vse32.v v8, (a1)", "slli t1, t0, 2", "add a1, a1, t1", "sub a2, a2, t0",
                  "bnez a2, 1b"]
    return "\n".join(lines + ["ebreak"])


def _copy(task, config):
    """A kernel that copies the first input over the first output (as far as both go)."""
    t = get_task(task)
    lay = ACCEL.layout(t, config, HW)
    src, dst = lay.region(t.inputs(config)[0].name), lay.region(t.outputs(config)[0].name)
    return "\n".join([f"li a0, {src.address}", f"li a1, {dst.address}", f"li a2, {min(src.size, dst.size)}",
                      "1: vsetvli t0, a2, e32, m8, ta, ma", "vle32.v v8, (a0)", "vse32.v v8, (a1)",
                      "slli t1, t0, 2", "add a0, a0, t1", "add a1, a1, t1", "sub a2, a2, t0", "bnez a2, 1b",
                      "ebreak"])


# C1 and H1 by default; the other configurations in the slow group
EVERY_CELL = CELLS + [pytest.param(t, c, marks=pytest.mark.slow) for t in LEVEL23
                      for c in get_task(t).configs if c not in ("C1", "H1")]


@pytest.mark.parametrize("task,config", EVERY_CELL)
def test_do_nothing_zeros_constant_and_copy_fail(task, config):
    for name, src in (("nothing", "ebreak"), ("zeros", _fill(task, config, "zeros")),
                      ("constant", _fill(task, config, "0.75")), ("copy", _copy(task, config))):
        ev = evaluate("coral", task, config, src, seeds=[3], edge_cases=False, compare_baseline=False)
        assert ev.status != "assembly_error", (name, ev.error)
        assert not ev.passed, name


def test_parameters_that_do_not_fit_are_refused():
    with pytest.raises(ValueError, match="act_lmul"):
        ACCEL.baseline("ffn", "C1", HW, act_lmul=8)
    with pytest.raises(ValueError, match="do not fit"):
        ACCEL.baseline("rope", "C1", HW, lmul=8)


def test_scratch_is_the_dtcm_left_over_and_a_baseline_that_does_not_fit_says_so():
    task = get_task("decoder_block_llama")
    small = ACCEL.default_config(DTCM_SIZE=4 << 20)
    big, little = (ACCEL.layout(task, "C5", hw).region("scratch") for hw in (HW, small))
    assert big.size - little.size == (HW.DTCM_SIZE - small.DTCM_SIZE) // 4
    with pytest.raises(ValueError, match="intermediates need"):
        ACCEL.baseline("decoder_block_llama", "C5", small)
    assert "scratch" not in {r.name for r in ACCEL.layout(get_task("relu"), "C1", HW).regions}


def test_every_level23_task_has_a_template_that_fits_itcm_on_every_configuration():
    assert LEVEL23 == sorted(t.name for t in all_tasks() if t.level in (2, 3))
    for task in LEVEL23:
        for config in get_task(task).configs:
            src = ACCEL.baseline(task, config, HW)
            assert src == ACCEL.baseline(task, config, HW)
            assert len(ACCEL.assemble(src, source_name="b.s", config=HW)) <= ACCEL.imem_limit(HW), (task, config)


def test_flash_attention_keeps_key_blocks_shorter_than_the_sequence():
    # C1 holds 128 keys: a block of 128 would be the whole sequence, so it is cut to 64
    assert "bk': 128" in ACCEL.baseline("flash_attention", "C1", HW, bk=128).splitlines()[0]
    assert ACCEL.baseline("flash_attention", "C1", HW, bk=128).splitlines()[1:] == \
        ACCEL.baseline("flash_attention", "C1", HW, bk=64).splitlines()[1:]
    # gqa shares its key/value heads: k and v are read in place, never copied per query head
    src = ACCEL.baseline("gqa", "C1", HW)
    assert "k of the key/value head, read in place" in src and "pack this query head" in src
    assert "pack key" not in src


def test_attention_params_that_do_not_fit_are_refused():
    with pytest.raises(ValueError, match="mk = 6"):
        ACCEL.baseline("mha", "C1", HW, qlmul=8, mk=6)
    with pytest.raises(ValueError, match="qlmul"):
        ACCEL.baseline("mha", "C1", HW, qlmul=16)
