"""Report numbers against values computed by hand on the fixture store
(fixture_store.py): failed runs count in every denominator, a failed run's recorded
speed-up never counts, fast_p is strict, H1 passes only when evaluated and passed."""
from __future__ import annotations

import csv
import json
import math
import sys
from pathlib import Path

import pytest

from kernelcraft.workbench.report import metrics, tables
from kernelcraft.workbench.report.data import load
from kernelcraft.workbench.store import TraceStore

sys.path.insert(0, str(Path(__file__).parent))
from fixture_store import build  # noqa: E402


@pytest.fixture
def rows(tmp_path):
    with TraceStore(build(tmp_path / "traces.db"), readonly=True) as store:
        return load(store)


def test_rows_take_speedups_only_from_solved_runs(rows):
    assert len(rows) == 6                       # the interrupted run is left out
    by_cell = {(r.accel, r.task, r.config): r for r in rows}
    assert by_cell[("plena", "gemv", "C1")].solved is False
    assert by_cell[("plena", "gemv", "C1")].speedup is None        # 3.0 was recorded
    assert by_cell[("plena", "gemv", "C1")].h1 == "fail"          # run failed: H1 not a pass
    assert by_cell[("plena", "relu", "C2")].speedup is None
    assert by_cell[("plena", "silu", "C1")].h1 == "fail"
    assert by_cell[("aie", "relu", "C1")].model == "autotune"


def test_group_numbers_match_hand_computed(rows):
    g = {(s.key["model"], s.key["accel"]): s for s in metrics.group(rows, ("model", "accel", "level"))}
    ma = g[("m/a", "plena")]
    assert (ma.runs, ma.solved) == (5, 3)
    assert ma.success_rate == pytest.approx(0.6)
    # solved speed-ups 2.0, 0.5, 1.5: geomean (2 * 0.5 * 1.5) ** (1/3)
    assert ma.geomean_speedup_solved == pytest.approx(1.5 ** (1 / 3))
    # the failed and error runs count as 1.0x: (2 * 0.5 * 1 * 1 * 1.5) ** (1/5)
    assert ma.geomean_speedup_fallback == pytest.approx(1.5 ** (1 / 5))
    assert ma.fast == pytest.approx({"fast_1": 2 / 5, "fast_1.5": 1 / 5, "fast_2": 0.0})
    assert ma.roofline_fraction_mean == pytest.approx((0.5 + 0.25 + 0.75) / 3)
    assert (ma.h1_pass, ma.h1_pass_rate) == (2, pytest.approx(2 / 5))
    assert ma.first_correct_step_median == 2 and ma.first_correct_step_mean == pytest.approx(7 / 3)
    assert (ma.tokens_in, ma.tokens_out) == (10_000, 1_000)
    assert ma.cost == pytest.approx(1.0)
    au = g[("autotune", "aie")]
    assert (au.runs, au.solved, au.fast["fast_1"], au.roofline_fraction_mean) == (1, 1, 1.0, None)


def test_geomean_and_fast_p_edge_cases():
    assert metrics.geomean([]) is None
    assert metrics.geomean([4.0, 1.0]) == pytest.approx(2.0)
    assert metrics.fast_p([], 1.0) is None
    assert math.isclose(metrics.geomean([None, 8.0, 2.0]), 4.0)


def test_tables_show_published_figures_labelled(rows):
    solved = tables.solved_table(rows)
    assert solved.columns[:4] == ["accelerator", "level", "autotune", "m/a"]
    assert "GPT-5.2 (published)" in solved.columns
    plena = next(r for r in solved.rows if r[0] == "plena")
    assert plena[2:4] == [None, "3/5"]
    assert plena[solved.columns.index("GPT-5.2 (published)")] == "37/50"
    aie = next(r for r in solved.rows if r[0] == "aie")
    assert aie[solved.columns.index("GPT-5.2 (published)")] == "16/60"
    cells = tables.cell_table(rows)
    silu = next(r for r in cells.rows if r[3] == "silu" and r[4] == "C1")
    assert silu[cells.columns.index("published speed-up")] == 1.23
    relu_c2 = next(r for r in cells.rows if r[3] == "relu" and r[4] == "C2")
    assert relu_c2[cells.columns.index("published speed-up")] is None


def test_report_command_writes_every_format(tmp_path, capsys):
    from kernelcraft.workbench.cli import main
    db = build(tmp_path / "traces.db")
    out = tmp_path / "rep"
    assert main(["report", "--traces", str(db), "--out", str(out)]) == 0
    doc = json.loads((out / "report.json").read_text())
    assert doc["summary"]["runs"] == 6 and doc["summary"]["solved"] == 4
    with (out / "groups.csv").open() as fh:
        groups = list(csv.DictReader(fh))
    ma = next(g for g in groups if g["model"] == "m/a")
    assert float(ma["fast_1.5"]) == pytest.approx(0.2)
    md = (out / "report.md").read_text()
    assert "| plena | L1 | - | 3/5 | 37/50 |" in md
    for name in ("speedup_distribution", "fast_p", "solved_per_model", "cost_vs_success"):
        png = out / "figures" / f"{name}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f"figures/{name}.png" in md
    html = (out / "report.html").read_text()
    assert html.count("data:image/png;base64,") == 4
    assert "<script" not in html and 'src="http' not in html and "url(" not in html
    # Filters and plain Markdown on stdout.
    capsys.readouterr()
    assert main(["report", "--traces", str(db), "--model", "autotune"]) == 0
    assert "1 runs from" in capsys.readouterr().out
    assert main(["report", "--traces", str(db), "--sweep", "nope"]) == 2
    assert "no sweep 'nope'" in capsys.readouterr().err
