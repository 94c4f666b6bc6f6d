"""The rows a report is made of, read from the trace store only: one per run that
ended, with what its final scores say (workbench/agent/scoring.py).

A run's kernel is counted as solved only if the run succeeded (its best kernel passed
run_eval and the held-out seeds). Its speed-up and roofline fraction are those of the
held-out-seeds evaluation and exist only for a solved run: a failed, impossible or
unevaluated kernel has none (missing or None), whatever a partial record may hold.
Held-out generality (H1) passes only when that configuration was evaluated and passed.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from datetime import datetime

from kernelcraft.workbench.store import Run, TraceStore
from kernelcraft.workbench.store import sweeps as sweep_rows


@dataclass(frozen=True)
class CellResult:
    run_id: int
    model: str            # the litellm model string, or the offline agent's name
    accel: str
    task: str
    level: int
    config: str
    status: str
    solved: bool
    speedup: float | None
    roofline_fraction: float | None
    first_correct_step: int | None
    steps: int
    budget: int | None
    h1: str               # "pass", "fail" or "-" (not evaluated / no such configuration)
    tokens_in: int
    tokens_out: int
    cost: float
    wall_seconds: float | None

    def to_dict(self) -> dict:
        return asdict(self)


def _number(value) -> float | None:
    """A finite positive number, else None (failed evaluations carry None or strings)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and value > 0 else None


def _seconds(run: Run) -> float | None:
    if not run.ended_at:
        return None
    fmt = "%Y-%m-%dT%H:%M:%S.%fZ"
    try:
        return (datetime.strptime(run.ended_at, fmt)
                - datetime.strptime(run.started_at, fmt)).total_seconds()
    except ValueError:
        return None


def _h1(scores: dict) -> str:
    entry = (scores.get("held_out_configs") or {}).get("H1")
    if not entry:
        return "-"
    return "pass" if entry.get("status") == "passed" and entry.get("passed") is not False \
        else "fail"


def cell_result(run: Run) -> CellResult:
    from kernelcraft.tasks import get_task
    s = run.scores or {}
    held = s.get("held_out_seeds") or {}
    solved = run.status == "succeeded" and bool(s.get("correct")) and \
        held.get("status") == "passed"
    try:
        level = get_task(run.task).level
    except KeyError:
        level = 0
    return CellResult(
        run_id=run.id, model=run.model or run.agent, accel=run.accelerator, task=run.task,
        level=level, config=run.config, status=run.status, solved=solved,
        speedup=_number(held.get("speedup")) if solved else None,
        roofline_fraction=_number(held.get("roofline_fraction")) if solved else None,
        first_correct_step=s.get("first_correct_step") if solved else None,
        steps=run.steps, budget=s.get("budget"), h1=_h1(s) if solved else (
            "fail" if _h1(s) != "-" else "-"),
        tokens_in=run.tokens_in, tokens_out=run.tokens_out, cost=run.cost,
        wall_seconds=_seconds(run))


def load(store: TraceStore, *, sweep: str | None = None, accel: str | None = None,
         task: str | None = None, model: str | None = None, level: int | None = None,
         include_replays: bool = False) -> list[CellResult]:
    """Runs that ended, as report rows: a sweep's (the run that finished each cell), or
    every run in the store; then narrowed by the filters."""
    if sweep is not None:
        rows = sweep_rows.cells(store, sweep)
        if not rows and sweep not in {s["id"] for s in sweep_rows.sweeps(store)}:
            known = ", ".join(s["id"] for s in sweep_rows.sweeps(store)) or "none"
            raise ValueError(f"{store.path}: no sweep {sweep!r}; sweeps here: {known}")
        runs = [store.run(r.run_id) for r in rows.values() if r.run_id is not None]
    else:
        runs = store.runs(order="id")
    out = []
    for run in runs:
        if run.status in ("running", "interrupted"):
            continue
        if run.agent == "replay" and not include_replays:
            continue
        r = cell_result(run)
        if (accel and r.accel != accel) or (task and r.task != task) or \
                (model and r.model != model) or (level and r.level != level):
            continue
        out.append(r)
    return sorted(out, key=lambda r: (r.model, r.accel, r.level, r.task, r.config, r.run_id))
