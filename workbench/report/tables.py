"""The report's tables, independent of how they are shown: Markdown, HTML, CSV and
the TUI's leaderboard all render these. Cells hold raw values (None for "none");
`Table.text()` formats them for people."""
from __future__ import annotations

from dataclasses import dataclass, field

from . import metrics, published
from .data import CellResult


@dataclass
class Table:
    name: str                       # file-name-safe id (CSV file, JSON key)
    title: str
    columns: list[str]
    rows: list[list] = field(default_factory=list)
    note: str = ""

    def text(self) -> list[list[str]]:
        return [[fmt(v, c) for v, c in zip(row, self.columns)] for row in self.rows]


def fmt(value, column: str = "") -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if "rate" in column or column.startswith("fast_") or "H1 pass" in column:
            return f"{value:.0%}"
        if "speed-up" in column:
            return f"{value:.2f}x"
        if "cost" in column:
            return f"${value:.4f}"
        if "roofline" in column:
            return f"{value:.2f}"
        if "wall" in column or "seconds" in column:
            return f"{value:.1f}s"
        return f"{value:.2f}"
    if isinstance(value, int) and "tokens" in column:
        return f"{value:,}"
    return str(value)


def solved_table(rows: list[CellResult]) -> Table:
    """The published table's shape: accelerator x level rows, one column per model,
    ours then the published ones for the same platform and level."""
    models = sorted({r.model for r in rows})
    keys = sorted({(r.accel, r.level) for r in rows})
    pub_models: list[str] = []
    for accel, level in keys:
        for m in published.solved(accel, level):
            if m not in pub_models:
                pub_models.append(m)
    t = Table("solved", "Cells solved within budget (solved / cells)",
              ["accelerator", "level"] + models + [f"{m} (published)" for m in pub_models],
              note=f"published: {published.source()}, on the platform each accelerator "
                   f"follows (plena: PLENA, aie: AMD NPU, coral: Coral NPU), 5 configurations "
                   f"per task; ours: the cells of this report")
    for accel, level in keys:
        row: list = [accel, f"L{level}"]
        for m in models:
            sel = [r for r in rows if (r.accel, r.level, r.model) == (accel, level, m)]
            row.append(f"{sum(r.solved for r in sel)}/{len(sel)}" if sel else None)
        pub = published.solved(accel, level)
        row += [f"{pub[m][0]}/{pub[m][1]}" if m in pub else None for m in pub_models]
        t.rows.append(row)
    return t


GROUP_COLUMNS = ["model", "accelerator", "level", "runs", "solved", "success rate",
                 "steps to first correct (median)", "geomean speed-up (solved)",
                 "geomean speed-up (failed = 1x)", "fast_1", "fast_1.5", "fast_2",
                 "roofline fraction (mean)", "H1 pass rate"]


def group_table(rows: list[CellResult]) -> Table:
    t = Table("groups", "Per model, accelerator and level", GROUP_COLUMNS,
              note="fast_p: share of runs solved and more than p times faster than the "
                   "baseline; failed runs count in every denominator")
    for g in metrics.group(rows, ("model", "accel", "level")):
        t.rows.append([g.key["model"], g.key["accel"], f"L{g.key['level']}", g.runs, g.solved,
                       g.success_rate, g.first_correct_step_median, g.geomean_speedup_solved,
                       g.geomean_speedup_fallback, g.fast["fast_1"], g.fast["fast_1.5"],
                       g.fast["fast_2"], g.roofline_fraction_mean, g.h1_pass_rate])
    return t


def cell_table(rows: list[CellResult]) -> Table:
    t = Table("cells", "Per run", ["run", "model", "accelerator", "task", "config", "status",
                                    "solved", "speed-up", "published speed-up",
                                    "roofline fraction", "first correct step", "H1",
                                    "tokens", "cost", "wall seconds"],
              note="speed-up: the held-out-seeds evaluation of the best correct kernel, "
                   "only for solved runs; published speed-up: the paper's best agent "
                   "kernel on the same platform, task and configuration")
    for r in rows:
        t.rows.append([r.run_id, r.model, r.accel, r.task, r.config, r.status, r.solved,
                       r.speedup, published.speedup(r.accel, r.task, r.config),
                       r.roofline_fraction, r.first_correct_step, r.h1,
                       r.tokens_in + r.tokens_out, r.cost, r.wall_seconds])
    return t


def model_table(rows: list[CellResult]) -> Table:
    t = Table("models", "Tokens, cost and time per model",
              ["model", "runs", "solved", "success rate", "tokens in", "tokens out",
               "tokens per run", "cost", "cost per run", "wall seconds",
               "wall seconds per run"])
    for g in metrics.group(rows, ("model",)):
        t.rows.append([g.key["model"], g.runs, g.solved, g.success_rate, g.tokens_in,
                       g.tokens_out, (g.tokens_in + g.tokens_out) // max(g.runs, 1), g.cost,
                       g.cost / max(g.runs, 1), g.wall_seconds, g.wall_seconds_mean])
    return t


def all_tables(rows: list[CellResult]) -> list[Table]:
    return [solved_table(rows), group_table(rows), model_table(rows), cell_table(rows)]
