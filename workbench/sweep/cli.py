"""`kernelcraft sweep`: run a grid of cells into the trace store, resumably."""
from __future__ import annotations

import json
import os
import sys

from kernelcraft.workbench.cliargs import integer

EXIT_OK, EXIT_INCOMPLETE, EXIT_INTERRUPTED = 0, 1, 130


def _limits(values) -> dict[str, int]:
    out = {}
    for p in values or []:
        key, sep, val = p.partition("=")
        if not sep or not key.strip() or not val.strip().isdigit() or int(val) < 1:
            raise SystemExit(f"--provider-limit expects PROVIDER=N with N >= 1, got {p!r}")
        out[key.strip()] = int(val)
    return out


def cmd_sweep(args) -> int:
    from kernelcraft.workbench.runs_cli import _model_params, _sigterm_as_interrupt
    from kernelcraft.workbench.store import TraceStore

    from . import grid as grids
    from .executors import LocalPool, RayPool
    from .progress import SweepProgress
    from .runner import Options, run_sweep
    grid, file_id = grids.build(models=args.models, accels=args.accels, tasks=args.tasks,
                                level=args.level, configs=args.configs, reps=args.reps,
                                budget=args.budget, seeds=args.seeds, file=args.file)
    sweep_id = args.sweep_id or file_id or grid.default_id()
    if args.jobs is not None and args.jobs < 1:
        raise SystemExit("--jobs must be at least 1")
    opts = Options(jobs=args.jobs,
                   provider_limits=_limits(args.provider_limit),
                   max_cost=args.max_cost, timeout=args.timeout, retries=args.retries,
                   api_base=args.api_base,
                   model_params=_model_params(args.model_param))
    store = TraceStore(args.traces)
    executor = (RayPool(args.ray or None) if args.ray is not None
                else LocalPool(args.jobs or os.cpu_count() or 1))
    progress = SweepProgress(live=False if args.plain else None)
    _sigterm_as_interrupt()
    try:
        summary = run_sweep(store, grid, sweep_id, executor, opts, progress)
    except KeyboardInterrupt:
        print(f"kernelcraft sweep: interrupted; finished cells are kept in {store.path}; "
              f"rerun the same command to resume sweep {sweep_id}", file=sys.stderr)
        store.close()
        return EXIT_INTERRUPTED
    finally:
        executor.shutdown()
    store.close()
    if args.json:
        print(json.dumps(summary.__dict__, indent=2))
    else:
        parts = ", ".join(f"{n} {s}" for s, n in sorted(summary.statuses.items())) or "nothing"
        print(f"sweep {sweep_id}: {summary.total} cells; {summary.already_done} were already "
              f"finished; ran {summary.ran}: {parts}; tokens {summary.tokens:,}, cost "
              f"${summary.cost:.4f}")
        if summary.stopped_by_cost:
            print(f"stopped starting cells at the --max-cost budget (${args.max_cost}); "
                  f"{summary.not_started} cells not started; rerun with a larger budget "
                  f"to go on")
        for e in summary.errors:
            print(f"  error: {e}")
        print(f"report: kernelcraft report --sweep {sweep_id}"
              + (f" --traces {args.traces}" if args.traces else ""))
    complete = not summary.errors and not summary.not_started
    return EXIT_OK if complete else EXIT_INCOMPLETE


def add_sweep_command(sub) -> None:
    from kernelcraft.workbench.runs_cli import model_options, traces
    sp = sub.add_parser(
        "sweep", help="run a grid of models x accelerators x tasks x configurations "
                      "(resumable; local processes or Ray)",
        description="Run every cell of a grid as an agent run and record it in the trace "
                    "store under a sweep id. Rerunning the same command skips finished "
                    "cells and retries interrupted or failed-to-run ones. Cells run in "
                    "worker processes (--jobs) or as Ray tasks (--ray); only this process "
                    "writes the store.")
    sp.add_argument("file", nargs="?", help="a TOML sweep file ([sweep] models, accelerators, "
                                            "tasks or level, configs, repetitions, budget, "
                                            "seeds, id); flags override it")
    sp.add_argument("--models", help="comma-separated: autotune, scripted/baseline, "
                                     "scripted/give-up, or litellm provider/model strings")
    sp.add_argument("--accels", help="comma-separated accelerators, e.g. plena,aie")
    sp.add_argument("--tasks", help="comma-separated task names")
    sp.add_argument("--level", type=int, choices=(1, 2, 3), help="every task of this level")
    sp.add_argument("--configs", help="comma-separated configurations (default: each "
                                      "task's visible ones, C1-C5)")
    sp.add_argument("--reps", type=integer(1, 1000), help="repetitions of each cell (default 1)")
    sp.add_argument("--budget", type=integer(1, 10_000), help="iterations per run (default: the level's)")
    sp.add_argument("--seeds", type=integer(1, 1000), help="fresh input sets per run_eval (default 3)")
    sp.add_argument("--sweep-id", help="name of the sweep (default: derived from the grid, "
                                       "so the same command resumes the same sweep)")
    sp.add_argument("--jobs", type=integer(1, 256), help="cells at once (default: the core count, or "
                                             "the Ray cluster's CPUs with --ray)")
    sp.add_argument("--ray", nargs="?", const="", metavar="ADDRESS",
                    help="run cells as Ray tasks on the cluster at ADDRESS (e.g. "
                         "ray://head:10001 or head:6379; without one, $RAY_ADDRESS or a "
                         "local cluster); needs pip install 'kernelcraft[ray]'")
    sp.add_argument("--provider-limit", action="append", metavar="PROVIDER=N",
                    help="at most N cells at once for a provider (default "
                         "4 per network provider), e.g. openai=2 (repeatable)")
    sp.add_argument("--max-cost", type=float, metavar="USD",
                    help="start no new cell once the sweep's recorded cost reaches this")
    model_options(sp)
    sp.add_argument("--plain", action="store_true",
                    help="plain log lines even on a terminal")
    sp.add_argument("--json", action="store_true", help="print the summary as JSON")
    traces(sp)
    sp.set_defaults(func=cmd_sweep)
