"""Error heat maps of an output against its reference, per row or per tile.

A cell's value is its worst error measured against the tolerance the checker
applies (tasks/tolerance.py), so 1.0 is the edge of passing; cells holding an
element out of tolerance are marked bad whatever their value.

From a recorded evaluation only per-row figures exist (the checker keeps, per row,
the count of bad elements and the largest absolute error), so its map has one cell
per row, measured in bf16 roundings of the reference's rms (u x rms(ref)). From full arrays (a re-executed kernel or the debugger) every
element's error is known, and the map has one cell per tile of rows x columns.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from kernelcraft.tasks.tolerance import U, Tolerance, bound as tolerance_bound

# Without the task's tolerance at hand: one bf16 rounding of the element plus one of rms(ref).
DISPLAY = Tolerance(U, U)


@dataclass
class HeatMap:
    title: str
    values: np.ndarray        # (rows, cols) error / tolerance, inf where non-finite
    bad: np.ndarray           # (rows, cols) count of elements out of tolerance
    cell_rows: int            # output rows per cell
    cell_cols: int            # output columns per cell (0: whole rows)
    shape: tuple[int, ...]    # the output's shape
    measure: str              # what a value of 1.0 means

    @property
    def worst(self) -> float:
        v = self.values[np.isfinite(self.values)]
        if not np.isfinite(self.values).all():
            return math.inf
        return float(v.max()) if v.size else 0.0

    @property
    def n_bad(self) -> int:
        return int(self.bad.sum())

    def legend(self) -> str:
        per = (f"{self.cell_rows} row{'s' if self.cell_rows > 1 else ''}"
               + (f" x {self.cell_cols} columns" if self.cell_cols else ""))
        return f"one cell = {per}; colour = {self.measure} (1.0 = tolerance); ✗ = out of tolerance"


def _rows_2d(shape: tuple[int, ...]) -> tuple[int, int]:
    if not shape:
        return 1, 1
    cols = shape[-1]
    return int(np.prod(shape[:-1])) if len(shape) > 1 else 1, cols


def _group(values: np.ndarray, bad: np.ndarray,
           max_cells: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Merge consecutive rows so that at most `max_cells` rows remain."""
    rows = values.shape[0]
    k = max(1, -(-rows // max_cells))
    if k == 1:
        return values, bad, 1
    pad = (-rows) % k
    v = np.pad(values, ((0, pad), (0, 0)), constant_values=0.0)
    b = np.pad(bad, ((0, pad), (0, 0)), constant_values=0)
    return (v.reshape(-1, k, v.shape[1]).max(axis=1),
            b.reshape(-1, k, b.shape[1]).sum(axis=1), k)


def from_recorded(name: str, output: dict, max_rows: int = 4096) -> HeatMap:
    """Per-row map from one output of a recorded evaluation set (its `per_row`
    entries (row, n_bad, max_abs_err) and `rms_ref`)."""
    per_row = output.get("per_row") or []
    scale = U * float(output.get("rms_ref") or 0.0)
    n = len(per_row)
    values = np.zeros((n, 1))
    bad = np.zeros((n, 1), dtype=np.int64)
    for i, (_row, n_bad, err) in enumerate(per_row):
        err = float(err) if not isinstance(err, str) else math.inf
        values[i, 0] = err / scale if scale > 0 else (0.0 if err == 0 else math.inf)
        bad[i, 0] = int(n_bad)
    values, bad, k = _group(values, bad, max_rows)
    n_elems = int(output.get("n_elems") or n)
    shape = (n, n_elems // n) if n and n_elems % n == 0 and n_elems != n else (n_elems,)
    return HeatMap(name, values, bad, k, 0, shape, "max |error| / (u x rms(ref))")


def from_arrays(name: str, got: np.ndarray, expected: np.ndarray, tol: Tolerance | None = None,
                allowance=None, tile_cols: int = 16, max_rows: int = 64) -> HeatMap:
    """Per-tile map from a full output and its reference: each element's error over
    the bound it must meet (the task's `tol` and `allowance`; DISPLAY without them)."""
    tol = tol or DISPLAY
    r = np.asarray(expected, dtype=np.float64)
    y = np.asarray(got, dtype=np.float64).reshape(r.shape)
    rows, cols = _rows_2d(r.shape)
    r2, y2 = r.reshape(rows, cols), y.reshape(rows, cols)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        bound = np.broadcast_to(tolerance_bound(r, tol, allowance), r.shape).reshape(rows, cols)
        err = np.abs(y2 - r2)
        ok = np.where(np.isfinite(r2), np.isfinite(y2) & (err <= bound),
                      (y2 == r2) | (np.isnan(y2) & np.isnan(r2)))
        ratio = np.where(np.isfinite(r2) & np.isfinite(y2),
                         np.where(bound > 0, err / np.where(bound > 0, bound, 1.0),
                                  np.where(err == 0, 0.0, np.inf)),
                         np.where(ok, 0.0, np.inf))
    tc = max(1, min(tile_cols, cols))
    pad = (-cols) % tc
    ratio_p = np.pad(ratio, ((0, 0), (0, pad)))
    bad_p = np.pad(~ok, ((0, 0), (0, pad)))
    values = ratio_p.reshape(rows, -1, tc).max(axis=2)
    bad = bad_p.reshape(rows, -1, tc).sum(axis=2)
    values, bad, k = _group(values, bad, max_rows)
    return HeatMap(name, values, bad, k, tc, tuple(r.shape), "max |error| / bound")


def worst_set(result: dict) -> dict | None:
    """The input set of a recorded evaluation worth showing: the first failing one,
    else the one with the largest error."""
    sets = [s for s in result.get("sets") or [] if s.get("outputs")]
    if not sets:
        return None
    failing = [s for s in sets if not s.get("passed")]
    if failing:
        return failing[0]

    def worst(s: dict) -> float:
        errs = [o.get("max_abs_err") for o in s["outputs"].values()]
        return max((e if isinstance(e, (int, float)) else math.inf) for e in errs)
    return max(sets, key=worst)


def from_evaluation(result: dict) -> tuple[str, list[HeatMap]]:
    """Heat maps of the outputs in a recorded evaluation (run_eval, final scoring) or
    view_output result; returns (which input set, maps)."""
    if "outputs" in result and "sets" not in result:       # view_output data
        maps = [from_recorded(n, o) for n, o in result["outputs"].items()]
        return f"seed {result.get('seed')}", maps
    s = worst_set(result)
    if s is None:
        return "", []
    return s.get("label", ""), [from_recorded(n, o) for n, o in s["outputs"].items()]
