"""`kernelcraft bench coral-model`: the coral model's speed (simulators/coral/bench.py)
and the CPU time of one C5 contraction cell as `kernelcraft eval` runs it (3 seeds and
the edge cases). CPU, not wall time: on a shared machine wall time measures the load."""
from __future__ import annotations

import statistics
import time

from kernelcraft.simulators.coral.bench import benchmark


def cell_seconds(task: str = "gemm", config: str = "C5", repeats: int = 3) -> float:
    """Median CPU time of this process evaluating the coral baseline of one cell as `kernelcraft
    eval` does (3 fixed seeds and the edge cases)."""
    from kernelcraft.workbench.accel import get_accel
    from kernelcraft.workbench.evaluation import evaluate
    accel = get_accel("coral")
    source = accel.baseline(task, config, accel.default_config())
    times = []
    for _ in range(repeats):
        started = time.process_time()
        ev = evaluate("coral", task, config, source, seeds=[1, 2, 3])
        used = time.process_time() - started
        if not ev.passed:
            raise RuntimeError(f"the {task} {config} baseline did not pass: {ev.status} {ev.error}")
        times.append(used)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> None:
    import argparse
    ap = argparse.ArgumentParser(prog="kernelcraft bench coral-model",
                                 description="coral functional model speed (median of several runs)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--cell", default="gemm:C5", help="task:config of the cell to time ('' to skip)")
    ap.add_argument("--cell-repeats", type=int, default=3)
    args = ap.parse_args(argv)
    r = benchmark(repeats=args.repeats)
    print(f"coral functional model, default configuration, median of {r['repeats']} runs, per CPU second")
    print(f"  scalar loop : {r['scalar_instr_per_s'] / 1e6:8.2f} M instructions/s"
          f"   (traced: {r['scalar_traced_slowdown']:.1f}x slower)")
    print(f"  vector loop : {r['vector_instr_per_s'] / 1e6:8.2f} M instructions/s"
          f"   (3 of 5 are LMUL = 8 binary32 operations: {r['vector_instr_per_s'] * 0.6 * 32 / 1e6:.1f} M"
          f" element-operations/s; traced: {r['vector_traced_slowdown']:.1f}x slower)")
    print(f"  strip-mined elementwise loop (whole strips at once): {r['strips_vector_per_s'] / 1e6:6.2f} M vector "
          f"instructions/s, {r['strips_elements_per_s'] / 1e6:7.1f} M elements/s")
    print(f"  contraction inner loop (whole loop at once)        : {r['outer_vector_per_s'] / 1e6:6.2f} M vector "
          f"instructions/s, {r['outer_macs_per_s'] / 1e6:7.1f} M multiply-adds/s")
    if args.cell:
        task, config = args.cell.split(":")
        secs = cell_seconds(task, config, args.cell_repeats)
        print(f"  {task} {config} cell (baseline, 3 seeds + edge cases): {secs:.2f} CPU s, median of {args.cell_repeats}")




if __name__ == "__main__":
    main()
