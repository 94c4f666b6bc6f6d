"""The numbers of a report, from report rows (data.py): per group of runs, cells solved
within budget, success rate, steps to the first correct kernel, speed-ups and their
geometric means, fast_p, roofline fraction, held-out generality, tokens, cost, time.

Definitions (every denominator is the number of runs in the group, failed ones included):
- solved: the run's best kernel passed run_eval and the held-out seeds within budget;
- geomean speed-up (solved): geometric mean over solved runs only;
- geomean speed-up (baseline fallback): over all runs, a run without a correct kernel
  counting as 1.0x (the template compiler's kernel is what one would ship instead);
- fast_p: the fraction of runs that are solved AND faster than p times the baseline
  (speed-up > p); a run with no speed-up is never fast;
- H1 pass: the fraction of runs whose kernel (or method) passed the held-out
  configuration H1; a failed or missing H1 evaluation is not a pass.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass

from .data import CellResult

FAST_P = (1.0, 1.5, 2.0)


def geomean(values: Iterable[float]) -> float | None:
    vals = [v for v in values if v is not None]
    if not vals:
        return None
    return math.exp(sum(math.log(v) for v in vals) / len(vals))


def fast_p(rows: list[CellResult], p: float) -> float | None:
    if not rows:
        return None
    return sum(1 for r in rows if r.solved and r.speedup is not None and r.speedup > p) / len(rows)


def _mean(values) -> float | None:
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def _median(values) -> float | None:
    vals = sorted(v for v in values if v is not None)
    if not vals:
        return None
    mid = len(vals) // 2
    return float(vals[mid]) if len(vals) % 2 else (vals[mid - 1] + vals[mid]) / 2


@dataclass
class GroupStats:
    key: dict
    runs: int
    solved: int
    success_rate: float
    first_correct_step_median: float | None
    first_correct_step_mean: float | None
    geomean_speedup_solved: float | None
    geomean_speedup_fallback: float | None
    fast: dict                      # "fast_1.0" -> fraction
    roofline_fraction_mean: float | None
    h1_pass: int
    h1_pass_rate: float
    tokens_in: int
    tokens_out: int
    cost: float
    wall_seconds: float
    wall_seconds_mean: float | None

    def to_dict(self) -> dict:
        return asdict(self)


def stats(rows: list[CellResult], key: dict | None = None) -> GroupStats:
    n = len(rows)
    solved = [r for r in rows if r.solved]
    return GroupStats(
        key=key or {}, runs=n, solved=len(solved),
        success_rate=len(solved) / n if n else 0.0,
        first_correct_step_median=_median(r.first_correct_step for r in solved),
        first_correct_step_mean=_mean(r.first_correct_step for r in solved),
        geomean_speedup_solved=geomean(r.speedup for r in solved),
        geomean_speedup_fallback=geomean(
            (r.speedup if r.solved and r.speedup is not None else 1.0) for r in rows),
        fast={f"fast_{p:g}": fast_p(rows, p) for p in FAST_P},
        roofline_fraction_mean=_mean(r.roofline_fraction for r in solved),
        h1_pass=sum(1 for r in rows if r.solved and r.h1 == "pass"),
        h1_pass_rate=(sum(1 for r in rows if r.solved and r.h1 == "pass") / n) if n else 0.0,
        tokens_in=sum(r.tokens_in for r in rows), tokens_out=sum(r.tokens_out for r in rows),
        cost=sum(r.cost for r in rows),
        wall_seconds=sum(r.wall_seconds or 0.0 for r in rows),
        wall_seconds_mean=_mean(r.wall_seconds for r in rows))


def group(rows: list[CellResult], by: tuple[str, ...]) -> list[GroupStats]:
    buckets: dict[tuple, list[CellResult]] = {}
    for r in rows:
        buckets.setdefault(tuple(getattr(r, k) for k in by), []).append(r)
    return [stats(v, dict(zip(by, k))) for k, v in sorted(buckets.items())]


def fast_p_curve(rows: list[CellResult], ps: Iterable[float]) -> list[tuple[float, float]]:
    return [(p, fast_p(rows, p) or 0.0) for p in ps]


def by(rows: list[CellResult], key: Callable[[CellResult], object]) -> dict:
    out: dict = {}
    for r in rows:
        out.setdefault(key(r), []).append(r)
    return dict(sorted(out.items(), key=lambda kv: str(kv[0])))
