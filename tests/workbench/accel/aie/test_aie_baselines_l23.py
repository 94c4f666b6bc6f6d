"""aie template-compiler baselines of Levels 2 and 3: on C1 and H1 each passes three
seeds and every edge case, its lower bound is below its cycles, and kernels that write
nothing, zeros, a constant or a copy of an input fail the same task."""
import pytest

from kernelcraft.tasks import all_tasks, get_task
from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.accel.aie.baselines import baseline_source, templates
from kernelcraft.workbench.evaluation import evaluate

ACCEL = get_accel("aie")
HW = ACCEL.default_config()
TASKS = sorted(t.name for t in all_tasks(2) + all_tasks(3) if t.name in templates())
CHUNK = 4096                # words through data memory per transfer of a trivial kernel


def run(task, config, source, seeds=(1, 2, 3), edge_cases=True):
    return evaluate("aie", task, config, source, seeds=list(seeds), edge_cases=edge_cases,
                    compare_baseline=False)


def fill_kernel(task, config, make=None, source=None):
    """Every output written from data memory: bytes 4096.. prepared by `make` lines (zeros
    when None), or a copy of the input region `source` passed through in chunks."""
    layout = ACCEL.layout(get_task(task), config, HW)
    head, body = [], list(make or [])
    for i, out in enumerate(layout.by_role("output")):
        n = min(out.size, source.size) if source else out.size
        full, tail = divmod(n, CHUNK)
        for j, (count, words) in enumerate(((full, CHUNK), (1 if tail else 0, tail))):
            if not count:
                continue
            name = f"O{i}{j}"
            if source:
                head.append(f".bd I{i}{j}, ext={source.address + j * full * CHUNK}, loc=4096, n0={words}, rel=l0")
                head.append(f".bd {name}, ext={out.address + j * full * CHUNK}, loc=4096, n0={words}, rel=l1")
            else:          # one 32-word vector of data memory, repeated
                head.append(f".bd {name}, ext={out.address + j * full * CHUNK}, loc=4096, n0=32, "
                            f"n1={words // 32}, s1=32, ls1=0, rel=l1")
            body += ["MOVI r1, 0", f"LOOP {count}"]
            if source:
                body += [f"DMAIN 0, I{i}{j}, r1, r0", "ACQ l0, 1"]
            body += [f"DMAOUT 0, {name}, r1, r0", "ACQ l1, 1", f"MOVI r2, {words}", "ADD r1, r1, r2",
                     "ENDLOOP"]
    return "\n".join(head + body) + "\n"


CONSTANT = ["MOVI r3, 0x3F80", "VBCST.16 x1, r3", "MOVPI p0, 4096", "VST x1, [p0]"]


def test_level23_templates_exist():
    assert {"ffn", "swiglu", "rope", "scaled_dot_product", "flash_attention", "mha", "gqa", "mqa", "conv_block", "decoder_block_llama", "decoder_block_t5"} <= set(TASKS)


# plus the t5 block at D = 64, where position-bias tiles make the attention state largest
@pytest.mark.parametrize("task,config", [(t, c) for t in TASKS for c in ("C1", "H1")] +
                         [("decoder_block_t5", "C2")])
def test_baseline_passes_every_seed_and_edge_case(task, config):
    # three seeds on C1; one on the larger held-out H1 (the suite runs three everywhere)
    ev = run(task, config, baseline_source(task, config, HW), seeds=(1, 2, 3) if config == "C1" else (1,))
    assert ev.passed, [(s.label, s.frac_match, s.error) for s in ev.sets if not s.passed]
    assert len(ev.sets) > 2 and not any(s.outside_writes for s in ev.sets)
    assert ev.lower_bound < ev.cycles and not ev.impossible
    assert ev.code_size <= HW.IMEM_WORDS


# C1 and H1 by default; the other configurations in the slow group
@pytest.mark.parametrize("task,config", [(t, c) for t in TASKS for c in ("C1", "H1")] +
                         [pytest.param(t, c, marks=pytest.mark.slow) for t in TASKS
                          for c in get_task(t).configs if c not in ("C1", "H1")])
def test_trivial_kernels_fail(task, config):
    layout = ACCEL.layout(get_task(task), config, HW)
    kernels = {"nothing": "NOP\n", "zeros": fill_kernel(task, config),
               "constant": fill_kernel(task, config, make=CONSTANT)}
    for inp in layout.by_role("input"):
        kernels[f"copy of {inp.name}"] = fill_kernel(task, config, source=inp)
    for what, source in kernels.items():
        ev = run(task, config, source, seeds=(4,), edge_cases=False)
        assert ev.status in ("failed", "run_error") and not ev.passed, f"{what} kernel: {ev.status}"


def test_fused_epilogue_unroll_is_correct_and_faster():
    base = run("ffn", "C1", baseline_source("ffn", "C1", HW), seeds=(5,), edge_cases=False)
    fast = run("ffn", "C1", baseline_source("ffn", "C1", HW, unroll=2), seeds=(5,), edge_cases=False)
    assert base.passed and fast.passed and fast.cycles < base.cycles


def test_autotune_improves_a_level2_cell_and_its_kernel_passes_held_out_seeds(tmp_path):
    from kernelcraft.workbench.agent.autotune import AutotuneAgent
    from kernelcraft.workbench.agent.loop import AgentLoop, RunSpec
    from kernelcraft.workbench.store import TraceStore
    with TraceStore(tmp_path / "traces.db") as store:
        loop = AgentLoop(AutotuneAgent("aie", "rope"), RunSpec("aie", "rope", "C1", budget=4), store)
        s = loop.run().scores
    assert s["correct"] and s["best"]["speedup"] > 1.0
    assert s["held_out_seeds"]["passed"] and s["held_out_configs"]["H1"]["passed"]


def test_templates_refuse_a_data_memory_too_small_for_their_buffers():
    small = ACCEL.default_config(DM_SIZE=32768)
    for task in TASKS:
        with pytest.raises(ValueError, match="needs DM_SIZE"):
            baseline_source(task, "C1", small)
