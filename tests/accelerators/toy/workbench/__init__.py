"""toy in the workbench: how it meets the tasks (relu only), and its registry record."""
from __future__ import annotations

from kernelcraft.isa.manual import render_manual
from kernelcraft.workbench.accel import Accelerator, Bound
from kernelcraft.workbench.layout import Layout, pack, stray_note

from ..isa import default_config
from ..simulators.assembler import assemble, disassemble

GUARD = 16


def toy_layout(task, config: str, hw) -> Layout:
    spec = [(t.name, t.shape, t.dtype, "input", t.doc) for t in task.inputs(config)]
    spec += [(t.name, t.shape, t.dtype, "output", t.doc) for t in task.outputs(config)]
    regions = pack(spec, "mem", 0, GUARD, guard=GUARD)
    if regions[-1].end > hw.MEM_SIZE:
        raise ValueError(f"{task.name} {config} needs {regions[-1].end} elements, MEM_SIZE is {hw.MEM_SIZE}")
    return Layout("toy", task.name, config, regions, [], [stray_note("mem")],
                  sizes={"mem": hw.MEM_SIZE})


RELU = """\
    LI r1, {x}          ; x
    LI r3, {y}          ; y
    LI r4, {n}          ; elements left
loop:
    LD r2, r1
    RELU r2, r2
    ST r2, r3
    ADDI r1, r1, 1
    ADDI r3, r3, 1
    ADDI r4, r4, -1
    BNZ r4, loop
    HALT
"""


def baseline(task_name: str, config: str, hw, **params) -> str:
    from kernelcraft.tasks import get_task
    if task_name != "relu":
        raise KeyError(f"toy has a baseline for relu only, not {task_name}")
    layout = toy_layout(get_task(task_name), config, hw)
    x, y = layout.region("x"), layout.region("y")
    return RELU.format(x=x.address, y=y.address, n=x.size)


def lower_bound(task, config: str, hw) -> Bound:
    n = task.work(config).output_elems
    return Bound(n * 2 * hw.MEM_LATENCY, "bandwidth", f"{n} loads and stores of {hw.MEM_LATENCY} cycles")


def _backend():
    from ..simulators.machine import ToyModel
    return ToyModel()


ACCELERATOR = Accelerator(
    name="toy",
    title="toy: a test-only accelerator of seven instructions",
    default_config=default_config,
    assemble=assemble,
    disassemble=disassemble,
    backend=_backend,
    layout=toy_layout,
    baseline=baseline,
    baseline_templates=lambda: {"relu": None},
    lower_bound=lower_bound,
    manual=lambda hw=None: render_manual("toy", hw or default_config()),
    imem_limit=lambda hw: hw.IMEM_SIZE,
    checked_memories=("mem",),
    tracing="toy.simulators.tracing",
)
