"""How close correct bf16 kernels come to the tolerance bound, per task.

    python -m tasks.calibrate [--seeds N] [task ...]

For every configuration (held-out ones included), N random seeds and every edge case,
runs the emulated bf16 kernel of `tasks.bf16_kernels` and reports the largest
|y - r| / (rtol |r| + atol_scale rms(r)) (1.0 = at the bound) and the error's standard
deviation relative to rms(r). These are the figures quoted in tasks/README.md.
"""
from __future__ import annotations

import argparse

import numpy as np

from . import all_tasks, get_task
from .bf16_kernels import run
from .core import Task
from .tolerance import rms, tolerance_for


def worst_ratio(task: Task, config: str, x: dict) -> tuple[float, float]:
    """(max error / bound, error std / rms) over the task's outputs."""
    ref = task.reference(x, config)
    got = run(task.name, x, task.dims(config))
    ratio, spread = 0.0, 0.0
    for spec in task.outputs(config):
        tol = tolerance_for(spec.dtype)
        r, y = ref[spec.name], got[spec.name].astype(np.float64)
        scale = rms(r)
        bound = tol.rtol * np.abs(r) + tol.atol_scale * scale
        ratio = max(ratio, float(np.max(np.abs(y - r) / bound)))
        spread = max(spread, float(np.std(y - r) / scale))
    return ratio, spread


def calibrate(task: Task, seeds: int) -> dict:
    best = {"random": (0.0, "exact"), "edge": (0.0, "exact"), "spread": 0.0}
    for config in task.configs:
        cases = [(f"seed {s}", task.generate(config, s), "random") for s in range(seeds)]
        cases += [(label, x, "edge") for label, x in task.edge_cases(config)]
        for label, x, kind in cases:
            ratio, spread = worst_ratio(task, config, x)
            if ratio > best[kind][0]:
                best[kind] = (ratio, f"{config} {label}")
            best["spread"] = max(best["spread"], spread)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tasks.calibrate", description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=2, help="random seeds per configuration (default 2)")
    ap.add_argument("tasks", nargs="*", help="task names (default: all)")
    args = ap.parse_args(argv)
    try:
        tasks = [get_task(n) for n in args.tasks] if args.tasks else all_tasks()
    except KeyError as e:
        ap.error(e.args[0])
    print("| task | worst err/bound, random seeds | worst err/bound, edge cases | max err std / rms |")
    print("|---|---|---|---:|")
    for t in tasks:
        b = calibrate(t, args.seeds)
        print(f"| `{t.name}` | {b['random'][0]:.2f} ({b['random'][1]}) | "
              f"{b['edge'][0]:.2f} ({b['edge'][1]}) | {100 * b['spread']:.2f}% |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
