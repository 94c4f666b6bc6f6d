"""`kernelcraft report`: tables and plots from the trace store (all runs, a sweep, or
a filter)."""
from __future__ import annotations

import sys
from pathlib import Path


def selection_text(args, n: int, path) -> str:
    what = f"sweep {args.sweep}" if args.sweep else "every run that ended"
    filters = [f"{k}={getattr(args, k)}" for k in ("accel", "task", "model", "level")
               if getattr(args, k, None)]
    return (f"{n} runs from {path}: {what}" + (f", where {', '.join(filters)}" if filters else "")
            + " (interrupted and running runs are left out).")


def cmd_report(args) -> int:
    from kernelcraft.workbench.store import TraceStore, resolve_path

    from .data import load
    from .render import FORMATS, build, markdown, write
    path = resolve_path(args.traces)
    store = TraceStore(path, readonly=True)
    rows = load(store, sweep=args.sweep, accel=args.accel, task=args.task, model=args.model,
                level=args.level, include_replays=args.include_replays)
    store.close()
    if not rows:
        print(f"kernelcraft report: no finished runs match in {path}", file=sys.stderr)
        return 1
    formats = [f.strip() for f in args.format.split(",") if f.strip()]
    bad = [f for f in formats if f not in FORMATS]
    if bad:
        raise SystemExit(f"--format: unknown {', '.join(bad)}; choose from {', '.join(FORMATS)}")
    text = selection_text(args, len(rows), path)
    if args.out is None:
        print(markdown(build(rows, text, figures=False)), end="")
        return 0
    written = write(build(rows, text), Path(args.out), formats)
    for p in written:
        if p.suffix != ".png":
            print(p)
    return 0


def add_report_command(sub) -> None:
    from kernelcraft.workbench.runs_cli import traces
    sp = sub.add_parser(
        "report", help="tables and plots of recorded runs (solved cells, speed-ups, fast_p, "
                       "cost) as Markdown, HTML, JSON and CSV",
        description="Turn the trace store into a benchmark report: cells solved within "
                    "budget per model x accelerator x level beside the published figures, "
                    "success rate, steps to the first correct kernel, speed-ups and their "
                    "geometric means, fast_p, roofline fraction, held-out generality (H1), "
                    "tokens, cost and time, and plots. Without --out, the tables print as "
                    "Markdown.")
    sp.add_argument("--sweep", help="only this sweep's cells (see `kernelcraft sweep`)")
    sp.add_argument("--accel", help="only this accelerator")
    sp.add_argument("--task", help="only this task")
    sp.add_argument("--model", help="only this model (or offline agent, e.g. autotune)")
    sp.add_argument("--level", type=int, choices=(1, 2, 3), help="only this level")
    sp.add_argument("--include-replays", action="store_true",
                    help="count `kernelcraft replay` runs too (left out by default)")
    sp.add_argument("--out", metavar="DIR", help="write the report files into DIR")
    sp.add_argument("--format", default="md,html,json,csv",
                    help="with --out: comma-separated md, html, json, csv (default all)")
    traces(sp)
    sp.set_defaults(func=cmd_report)
