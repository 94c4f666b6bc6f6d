"""Evaluate a whole level of the suite on one accelerator: every baseline, or a
directory of kernels named `<task>_<config>.asm`, with a progress bar and a table."""
from __future__ import annotations

import json
import math
import sys
import statistics
import time
from pathlib import Path

from kernelcraft.tasks import all_tasks
from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.evaluation import Evaluation, evaluate


def suite_cells(accel_name: str, level: int, tasks=None, configs=None) -> list[tuple[str, str]]:
    accel = get_accel(accel_name)
    have = accel.baseline_templates()
    cells = []
    for t in all_tasks(level):
        if tasks and t.name not in tasks:
            continue
        if t.name not in have:
            continue
        for c in t.configs:
            if configs and c not in configs:
                continue
            cells.append((t.name, c))
    return cells


def evaluate_cells(accel_name, cells, hw, n_seeds, kernels_dir=None, progress=None,
                   edge_cases=True, cpu: dict | None = None):
    """Evaluate each cell; `cpu`, when given, receives the CPU seconds of this process
    per (task, config) (the figure that matters on a loaded machine, unlike wall time)."""
    accel = get_accel(accel_name)
    results: list[tuple[str, str, Evaluation | None, str]] = []
    for task, config in cells:
        if kernels_dir:
            path = Path(kernels_dir) / f"{task}_{config}.asm"
            if not path.is_file():
                results.append((task, config, None, f"missing {path}"))
                if progress:
                    progress()
                continue
            source, name = path.read_text(), str(path)
        else:
            try:
                source, name = accel.baseline(task, config, hw), f"baseline {task} {config}"
            except ValueError as e:          # the template does not fit this cell
                results.append((task, config, None, f"no baseline: {e}"))
                if progress:
                    progress()
                continue
        c0 = time.process_time()
        ev = evaluate(accel_name, task, config, source, hw=hw, n_seeds=n_seeds, source_name=name,
                      edge_cases=edge_cases)
        if cpu is not None:
            cpu[(task, config)] = time.process_time() - c0
        results.append((task, config, ev, ""))
        if progress:
            progress()
    return results


def run_suite(args) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.table import Table

    from kernelcraft.workbench.cliargs import hardware
    accel = get_accel(args.accel)
    hw = hardware(accel, args.hw)
    tasks = set(args.tasks.split(",")) if args.tasks else None
    configs = set(args.configs.split(",")) if args.configs else None
    if args.kernels and not Path(args.kernels).is_dir():
        raise ValueError(f"--kernels {args.kernels}: no such folder; give the folder holding "
                         f"<task>_<config>.asm kernels")
    levels = (1, 2, 3) if args.level == "all" else (int(args.level),)
    cells = [c for level in levels for c in suite_cells(args.accel, level, tasks, configs)]
    if not cells:
        raise ValueError(f"no {args.accel} level-{args.level} cells match the selection")
    # Piped or captured output gets a width that fits the table instead of 80 columns.
    console = Console(stderr=args.json, width=None if sys.stdout.isatty() else 150)
    t0, c0, cpu = time.perf_counter(), time.process_time(), {}
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=args.json) as prog:
        bar = prog.add_task(f"{args.accel} level {args.level}", total=len(cells))
        results = evaluate_cells(args.accel, cells, hw, args.seeds, args.kernels,
                                 progress=lambda: prog.advance(bar), cpu=cpu)
    wall, cpu_total = time.perf_counter() - t0, time.process_time() - c0
    if args.json:
        print(json.dumps([{"task": t, "config": c, "note": note, "cpu_seconds": round(cpu.get((t, c), 0.0), 3),
                           **(ev.to_dict() if ev else {})} for t, c, ev, note in results],
                         indent=2, default=str))
    else:
        table = Table(title=f"{args.accel} level {args.level}: "
                      f"{'kernels from ' + args.kernels if args.kernels else 'baselines'}")
        for col in ("task", "config", "result", "cycles", "baseline", "speed-up", "lower bound",
                    "roofline", "instructions", "seconds", "cpu s"):
            table.add_column(col, justify="right" if col not in ("task", "config", "result") else "left")
        for t, c, ev, note in results:
            if ev is None:
                table.add_row(t, c, f"[yellow]{note}", *[""] * 8)
                continue
            style = "green" if ev.passed else "red"
            table.add_row(t, c, f"[{style}]{ev.status}", f"{ev.cycles:,}", f"{ev.baseline_cycles:,}",
                          f"{ev.speedup:.3f}" if ev.speedup is not None else "-",
                          f"{ev.lower_bound:,} ({ev.bound_kind[0]})",
                          f"{ev.roofline_fraction:.1%}", f"{ev.retired:,}", f"{ev.wall_seconds:.2f}",
                          f"{cpu[(t, c)]:.2f}")
        console.print(table)
        # a failed cell says why under the table (the table has no room for it)
        from kernelcraft.workbench.tools import format_evaluation
        for t, c, ev, _ in results:
            if ev is not None and not ev.passed:
                why = format_evaluation(ev).split("\ncycles: ")[0]
                console.print(f"{t} {c}: {why}", markup=False, highlight=False)
    evs = [ev for _, _, ev, _ in results if ev is not None]
    passed = [ev for ev in evs if ev.passed]
    speedups = [ev.speedup for ev in passed if ev.speedup]
    geo = math.exp(statistics.fmean(math.log(s) for s in speedups)) if speedups else 0.0
    summary = (f"{len(passed)}/{len(results)} cells passed; geometric-mean speed-up {geo:.3f}; "
               f"wall time {wall:.1f} s, CPU time {cpu_total:.1f} s")
    if cpu:
        (task, config), worst = max(cpu.items(), key=lambda kv: kv[1])
        summary += f"; slowest cell {task} {config} {worst:.1f} CPU s"
    (console.print if not args.json else (lambda s: print(s, file=sys.stderr)))(summary)
    return 0 if len(passed) == len(results) else 1


def bench_suite(accel_name: str, repeats: int = 3, n_seeds: int = 3) -> None:
    """Wall time of the whole Level-1 baseline suite: every configuration, n_seeds fresh
    seeds each (the edge cases, which `kernelcraft suite` adds, are timed separately)."""
    from kernelcraft.workbench.evaluation import _baseline_run
    accel = get_accel(accel_name)
    hw = accel.default_config()
    cells = suite_cells(accel_name, 1)
    times, edge_times = [], []
    for _ in range(repeats):
        _baseline_run.cache_clear()
        t0 = time.perf_counter()
        results = evaluate_cells(accel_name, cells, hw, n_seeds, edge_cases=False)
        times.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        results += evaluate_cells(accel_name, cells, hw, 0, edge_cases=True)
        edge_times.append(time.perf_counter() - t0)
        bad = [(t, c) for t, c, ev, _ in results if not (ev and ev.passed)]
        if bad:
            print(f"warning: {len(bad)} cells failed: {bad[:5]}")
    retired = sum(ev.retired for _, _, ev, _ in results[:len(cells)] if ev)
    print(f"{accel_name} Level-1 baseline suite: {len(cells)} cells (every configuration, "
          f"held-out included) x {n_seeds} seeds = {len(cells) * n_seeds} kernel runs, "
          f"{retired * n_seeds:,} instructions simulated")
    print(f"wall time: median {statistics.median(times):.2f} s over {repeats} runs "
          f"(min {min(times):.2f}, max {max(times):.2f})")
    print(f"edge cases on top (every cell): median {statistics.median(edge_times):.2f} s")


def main(argv: list[str] | None = None) -> int:
    import argparse
    ap = argparse.ArgumentParser(prog="kernelcraft bench suite", description=bench_suite.__doc__)
    ap.add_argument("--accel", default="plena")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seeds", type=int, default=3)
    a = ap.parse_args(argv)
    bench_suite(a.accel, repeats=a.repeats, n_seeds=a.seeds)
    return 0
