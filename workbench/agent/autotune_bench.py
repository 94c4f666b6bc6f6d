"""How often autotune beats the baseline: the offline agent run on every Level-2/3 cell
(configuration C1 unless told otherwise) of each accelerator, with its level's
iteration budget, then scored like any run (held-out seeds, held-out configurations).

Prints one line per cell (speed-up of its best kernel, evaluations, whether the best
kernel passed the held-out seeds and, re-rendered, the held-out configurations) and the
fraction of cells improved per accelerator. Exit status 1 if any returned kernel fails
its held-out seeds.

Run: `kernelcraft bench autotune [--accels coral,aie] [--levels 2,3] [--configs C1]`.
"""
from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from kernelcraft.tasks import all_tasks
from kernelcraft.workbench.accel import get_accel

from .autotune import AutotuneAgent
from .loop import AgentLoop, RunSpec


def tune_cell(accel: str, task: str, config: str, store, budget: int | None = None) -> dict:
    """Scores of one autotune run, plus its CPU seconds."""
    c0 = time.process_time()
    result = AgentLoop(AutotuneAgent(accel, task), RunSpec(accel, task, config, budget=budget), store).run()
    s = result.scores or {}
    best = s.get("best") or {}
    held = s.get("held_out_configs") or {}
    return {"accel": accel, "task": task, "config": config, "correct": bool(s.get("correct")),
            "speedup": best.get("speedup") or 0.0, "evaluations": s.get("evaluations", 0),
            "held_out_seeds": bool((s.get("held_out_seeds") or {}).get("passed")),
            "held_out_configs": {c: bool(v.get("passed")) for c, v in held.items()},
            "notes": [f"{c}: {v.get('status')} {(v.get('error') or v.get('reason') or '')[:160]} ({v.get('how')})"
                      for c, v in held.items() if not v.get("passed")],
            "cpu_seconds": time.process_time() - c0}


def cells(accel: str, levels, configs, tasks=None) -> list[tuple[str, str]]:
    have = get_accel(accel).baseline_templates()
    return [(t.name, c) for level in levels for t in all_tasks(level)
            if t.name in have and (not tasks or t.name in tasks) for c in configs if c in t.configs]


def improved(row: dict) -> bool:
    return row["correct"] and row["speedup"] > 1.0


def summary(rows: list[dict]) -> dict[str, tuple[int, int, int]]:
    """accel -> (cells improved, cells, cells whose kernel failed held-out seeds)."""
    out: dict[str, tuple[int, int, int]] = {}
    for r in rows:
        up, n, bad = out.get(r["accel"], (0, 0, 0))
        out[r["accel"]] = (up + improved(r), n + 1, bad + (r["correct"] and not r["held_out_seeds"]))
    return out


def main(argv: list[str] | None = None) -> int:
    from kernelcraft.workbench.store import TraceStore
    ap = argparse.ArgumentParser(prog="kernelcraft bench autotune", description=__doc__.split("\n\n")[0])
    ap.add_argument("--accels", default="plena,coral,aie")
    ap.add_argument("--levels", default="2,3")
    ap.add_argument("--configs", default="C1", help="comma-separated configurations (default C1)")
    ap.add_argument("--tasks", help="comma-separated subset of tasks")
    ap.add_argument("--budget", type=int, help="iterations per run (default: the level's budget)")
    a = ap.parse_args(argv)
    levels = [int(x) for x in a.levels.split(",")]
    configs = a.configs.split(",")
    tasks = set(a.tasks.split(",")) if a.tasks else None
    rows = []
    with tempfile.TemporaryDirectory() as tmp, TraceStore(Path(tmp) / "traces.db") as store:
        for accel in a.accels.split(","):
            for task, config in cells(accel, levels, configs, tasks):
                r = tune_cell(accel, task, config, store, a.budget)
                rows.append(r)
                held = ", ".join(f"{c} {'pass' if ok else 'FAIL'}" for c, ok in r["held_out_configs"].items())
                print(f"{accel:6} {task:20} {config}  speed-up {r['speedup']:.3f}  "
                      f"{r['evaluations']:2} evaluations  held-out seeds "
                      f"{'pass' if r['held_out_seeds'] else 'FAIL'}  {held}  {r['cpu_seconds']:.0f} CPU s",
                      flush=True)
                for note in r["notes"]:
                    print(f"    {note}", flush=True)
    for accel, (up, n, bad) in summary(rows).items():
        print(f"{accel}: autotune improved {up}/{n} cells ({up / n:.0%}); "
              f"{bad} returned kernels failed their held-out seeds")
    return 1 if any(bad for _, _, bad in summary(rows).values()) else 0


if __name__ == "__main__":
    raise SystemExit(main())
