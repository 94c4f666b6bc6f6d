"""plena's benchmarks that need the workbench: the RTL benchmark (simulators/plena_rtl/
bench.py) measured on task baselines as well as its own loops."""
from __future__ import annotations


def _baseline(cfg, task: str, config: str, what: str):
    from kernelcraft.tasks import get_task
    from kernelcraft.workbench.accel import get_accel
    from kernelcraft.workbench.layout import build_image
    accel = get_accel("plena")
    t = get_task(task)
    program = accel.assemble(accel.baseline(task, config, cfg), source_name=f"{task}.asm",
                             config=cfg)
    image = build_image(accel.layout(t, config, cfg), t.generate(config, 0))
    return (f"{task} {config} baseline ({what})", program, image)


def rtl_main(argv: list[str] | None = None) -> int:
    """`kernelcraft bench rtl` and `kernelcraft rtl-check --bench`."""
    from kernelcraft.simulators.plena_rtl.bench import main
    return main(argv, baseline=_baseline)
