"""`kernelcraft bench aie-model`: the aie model's speed per loop kind
(simulators/aie/bench.py) and the wall time of the Level-1 baseline suite as `kernelcraft
suite --accel aie` evaluates it (every cell, three seeds plus the edge cases; median of
several runs). `--suite-runs 0` skips the suite."""
from __future__ import annotations

import argparse
import statistics
import time

from kernelcraft.isa.aie import default_config
from kernelcraft.simulators.aie.bench import LOOPS, MACS_PER_ITERATION, measure


def suite_seconds(runs: int = 3, n_seeds: int = 3) -> tuple[float, int, int]:
    """(median wall seconds, cells, kernel runs) of evaluating every aie Level-1 baseline
    as `kernelcraft suite` does; every cell must pass."""
    from kernelcraft.workbench.evaluation import _baseline_run
    from kernelcraft.workbench.suite import evaluate_cells, suite_cells
    cfg = default_config()
    cells = suite_cells("aie", 1)
    times, kernel_runs = [], 0
    for _ in range(runs):
        _baseline_run.cache_clear()
        t = time.perf_counter()
        results = evaluate_cells("aie", cells, cfg, n_seeds)
        times.append(time.perf_counter() - t)
        bad = [f"{task} {config}" for task, config, ev, _ in results if not (ev and ev.passed)]
        if bad:
            raise RuntimeError(f"{len(bad)} aie Level-1 cells failed: {', '.join(bad[:5])}")
        kernel_runs = sum(len(ev.sets) for _, _, ev, _ in results)
    return statistics.median(times), len(cells), kernel_runs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="kernelcraft bench aie-model", description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=5, help="runs per loop (median)")
    ap.add_argument("--suite-runs", type=int, default=3, help="runs of the Level-1 suite (median); 0 skips it")
    a = ap.parse_args(argv)
    for kind in LOOPS:
        sec, bundles = measure(kind, repeats=a.repeats)
        line = f"{kind:7s} {bundles / sec / 1e3:8.1f} k bundles/s ({sec / bundles * 1e6:.2f} us per bundle)"
        if kind in MACS_PER_ITERATION:
            macs = MACS_PER_ITERATION[kind] * 20000
            line += f", {macs / sec / 1e6:.1f} M MACs/s"
        print(line, flush=True)
    plain, _ = measure("memory", n=5000, repeats=a.repeats)
    traced, _ = measure("memory", n=5000, repeats=a.repeats, trace=True)
    print(f"traced runs are {traced / plain:.1f}x slower (memory loop)", flush=True)
    if a.suite_runs > 0:
        sec, cells, runs = suite_seconds(a.suite_runs)
        print(f"Level-1 suite: {cells} cells, {runs} kernel runs (3 seeds + edge cases each), "
              f"median {sec:.1f} s over {a.suite_runs} runs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
