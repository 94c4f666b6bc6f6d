"""`replay --rescore RUN`: every kernel version a run recorded, scored again on fresh
seeds chosen by the workbench and fresh edge cases.

A replay re-executes the recorded seeds, so it reproduces whatever the recording
believed, including a kernel that only recognised those inputs. Re-scoring asks the
question again with inputs no kernel has seen and reports every version that passed
when recorded and no longer passes. It reads the store and records nothing.
"""
from __future__ import annotations

from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.evaluation import evaluate, fresh_seeds, shown_speedup
from kernelcraft.workbench.store import TraceStore

from .loop import FINAL_SEEDS


def recorded_verdicts(store: TraceStore, run_id: int) -> dict[int, bool]:
    """kernel version -> whether any of its run_eval evaluations passed when recorded."""
    out: dict[int, bool] = {}
    for e in store.events(run_id):
        p = e.payload if isinstance(e.payload, dict) else {}
        if e.type == "evaluation" and p.get("tool") == "run_eval" and p.get("kernel_version"):
            v = p["kernel_version"]
            out[v] = out.get(v, False) or bool((p.get("result") or {}).get("passed"))
    return out


def rescore_run(store: TraceStore, run_id: int, n_seeds: int = FINAL_SEEDS) -> dict:
    run = store.run(run_id)
    accel = get_accel(run.accelerator)
    hw = accel.default_config(**((run.settings or {}).get("hw") or {}))
    recorded = recorded_verdicts(store, run_id)
    best = ((run.scores or {}).get("best") or {}).get("kernel_version")
    rows = []
    for e in store.events(run_id):
        if e.type != "kernel" or not e.kernel_hash:
            continue
        version = e.payload.get("version")
        ev = evaluate(run.accelerator, run.task, run.config, store.kernel(e.kernel_hash).source,
                      hw=hw, seeds=fresh_seeds(n_seeds), edge_cases=True)
        was = recorded.get(version)
        rows.append({"version": version, "step": e.step, "best": version == best,
                     "recorded": "not evaluated" if was is None else ("pass" if was else "fail"),
                     "status": ev.status, "passed": ev.passed, "cycles": ev.cycles,
                     "speedup": shown_speedup(ev.to_dict()), "impossible": ev.impossible,
                     "seeds": ev.seeds,
                     "failed_sets": [s.label for s in ev.sets if not s.passed][:6],
                     "no_longer_passes": bool(was) and not ev.passed})
    return {"run": run_id, "kernel_versions": len(rows), "rows": rows,
            "no_longer_pass": [r["version"] for r in rows if r["no_longer_passes"]]}


def report_lines(report: dict) -> list[str]:
    lines = [f"run {report['run']}: {report['kernel_versions']} kernel versions re-scored on "
             f"fresh seeds and edge cases"]
    for r in report["rows"]:
        speed = f", {r['speedup']:.2f}x" if r["speedup"] else ""
        mark = "  NO LONGER PASSES" if r["no_longer_passes"] else ""
        lines.append(f"  v{r['version']}{' (best)' if r['best'] else ''}: recorded {r['recorded']}, "
                     f"now {r['status']} {r['cycles']} cycles{speed}"
                     f"{', IMPOSSIBLE' if r['impossible'] else ''}{mark}")
        if r["no_longer_passes"] and r["failed_sets"]:
            lines.append(f"    failed on: {', '.join(r['failed_sets'])}")
    gone = report["no_longer_pass"]
    lines.append(f"{len(gone)} version(s) that passed when recorded no longer pass"
                 + (f": {', '.join(f'v{v}' for v in gone)}" if gone else ""))
    return lines
