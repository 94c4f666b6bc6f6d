"""The workbench's UI-free pieces: value formats, heat maps, kernel highlighting and
diffs, run rows and filters, runs grouped into steps, re-execution."""
from __future__ import annotations

import ast
import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest

from kernelcraft.simulators import numerics
from kernelcraft.tasks.tolerance import Tolerance
from kernelcraft.workbench.store import TraceStore
from kernelcraft.workbench.tui.model import formats, heat, kernels, runs
from kernelcraft.workbench.tui.model.reexec import reexecute
from kernelcraft.workbench.tui.model.trace import FINAL, RunTrace

MODEL_DIR = Path(__file__).parents[3] / "workbench" / "tui" / "model"


def test_model_modules_never_import_textual():
    for path in MODEL_DIR.rglob("*.py"):
        tree = ast.parse(path.read_text())
        names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        assert not [n for n in names if n.split(".")[0] == "textual"], path.name


# ---------------------------------------------------------------- formats
def test_bf16_cells_in_every_format():
    bits = numerics.f32_to_bf16_bits(np.array([1.0, -2.5, np.nan, 65536.0], np.float32))
    assert formats.format_cells(bits, "bf16", "bf16") == ["1", "-2.5", "nan", "6.554e+04"]
    assert formats.format_cells(bits, "bf16", "hex") == ["0x3F80", "0xC020", "0x7FC0", "0x4780"]
    assert formats.format_cells(bits, "bf16", "int")[:2] == ["16256", "-16352"]
    assert formats.format_cells(bits, "bf16", "fp32")[3] == "65536"


def test_fp32_and_int32_cells_reinterpret_their_bits():
    x = np.array([0.1, 1.0], np.float32)
    assert formats.format_cells(x, "fp32", "fp32") == ["0.100000001", "1"]
    assert formats.format_cells(x, "fp32", "hex") == ["0x3DCCCCCD", "0x3F800000"]
    assert formats.format_cells(x, "fp32", "int")[1] == "1065353216"
    assert formats.format_cells(x, "fp32", "bf16") == ["0.1001", "1"]
    i = np.array([-1, 1065353216], np.int32)
    assert formats.format_cells(i, "int32", "hex") == ["0xFFFFFFFF", "0x3F800000"]
    assert formats.format_cells(i, "int32", "fp32")[1] == "1"
    assert formats.format_cells(i, "int32", "int") == ["-1", "1065353216"]


def test_unknown_format_or_storage_is_named():
    with pytest.raises(ValueError, match="unknown format 'oct'"):
        formats.format_cells([1], "int32", "oct")
    with pytest.raises(ValueError, match="unknown storage dtype 'fp8'"):
        formats.format_cells([1], "fp8", "hex")
    assert formats.next_format("hex") == "bf16"


# ---------------------------------------------------------------- heat maps
def test_heat_map_from_arrays_marks_the_bad_tiles():
    ref = np.linspace(-1, 1, 8 * 32).reshape(8, 32)
    got = ref.copy()
    got[3, 17] += 5.0                          # one element far out, in row 3, tile 1
    got[6, 2] = np.nan
    m = heat.from_arrays("y", got, ref, Tolerance(2 ** -8, 2 ** -8), tile_cols=16)
    assert m.values.shape == (8, 2) and m.cell_cols == 16
    assert m.bad[3, 1] == 1 and m.bad[6, 0] == 1 and m.n_bad == 2
    assert m.values[3, 1] > 1 and math.isinf(m.values[6, 0])
    assert m.values[0, 0] == 0 and math.isinf(m.worst)


def test_heat_map_groups_rows_to_fit():
    ref = np.ones((100, 4))
    m = heat.from_arrays("y", ref, ref, max_rows=10)
    assert m.values.shape == (10, 1) and m.cell_rows == 10 and m.n_bad == 0


def test_heat_map_from_a_recorded_evaluation_is_per_row(sample_db):
    store = TraceStore(sample_db, readonly=True)
    failing = next(e for e in store.events(1) if e.type == "evaluation")
    label, (m,) = heat.from_evaluation(failing.payload["result"])
    assert label == "seed 100"                 # the first failing input set
    assert m.shape == (16, 256) and m.values.shape == (16, 1)
    bad_rows = set(np.flatnonzero(m.bad[:, 0]).tolist())
    assert bad_rows <= {3, 7, 11, 15} and 3 in bad_rows     # every fourth row
    assert "one cell = 1 row" in m.legend()


# ---------------------------------------------------------------- kernels
def test_highlighting_comes_from_the_isa():
    src = "loop:  ; a label\n    M_MM gp1, gp2, gp3   ; matrix\n.equ ROWS, VLEN\nBOGUS gp1\n"
    text = kernels.highlight(src, "plena", current_line=2, breakpoints={4})
    plain = text.plain.splitlines()
    assert plain[1].strip().startswith("2") and "M_MM gp1, gp2, gp3" in plain[1]
    assert plain[3].startswith("●")
    styles = {text.plain[s.start:s.end]: str(s.style) for s in text.spans}
    assert styles["M_MM"] == kernels.UNIT_STYLES["matrix"]
    assert styles["gp1"] == kernels.STYLES["register"]
    assert styles["VLEN"] == kernels.STYLES["param"]
    assert styles["BOGUS"] == kernels.STYLES["unknown"]
    assert any(kernels.CURRENT_LINE in str(s.style) for s in text.spans)


def test_diff_of_two_versions():
    text, stats = kernels.diff("A\nB\nC\n", "A\nX\nC\nD\n")
    assert (stats.added, stats.removed) == (2, 1) and str(stats) == "+2 -1"
    assert "-B" in text.plain and "+X" in text.plain
    assert "nothing to compare" in kernels.diff(None, "A\n")[0].plain
    assert "identical" in kernels.diff("A\n", "A\n")[0].plain


# ---------------------------------------------------------------- runs and steps
def test_run_rows_filter_and_sort(sample_db):
    rows = [runs.RunRow(r) for r in TraceStore(sample_db, readonly=True).runs()]
    assert [r.run.id for r in runs.select(rows, "", "id", True)] == [3, 2, 1]
    assert [r.run.id for r in runs.select(rows, "status:succeeded", "id", False)] == [1, 2]
    assert [r.run.id for r in runs.select(rows, "-status:succeeded", "id", False)] == [3]
    assert [r.run.id for r in runs.select(rows, "model:scripted relu", "id", False)] == [1]
    assert [r.run.id for r in runs.select(rows, "", "steps", True)][0] == 1
    row1 = next(r for r in rows if r.run.id == 1)
    assert row1.cell("steps") == "4/6" and row1.cell("speedup") == "1.00x"
    assert row1.cell("tokens") == "6,500/870" and row1.cell("cost") == "$0.0464"
    with pytest.raises(runs.FilterError, match="unknown filter field 'colour'"):
        runs.select(rows, "colour:red", "id", True)


def test_h1_is_shown_for_what_it_is(sample_db):
    """Run 1's kernel is written for C2 and fails H1: the run succeeded (its visible
    configuration), its H1 cell says fail; the autotuner's method passes H1."""
    rows = {r.id: runs.RunRow(r) for r in TraceStore(sample_db, readonly=True).runs()}
    assert rows[1].cell("status") == "✓ succeeded" and rows[1].cell("h1") == "fail"
    assert rows[2].cell("h1") == "pass" and rows[3].cell("h1") == "-"
    assert [r.run.id for r in runs.select(list(rows.values()), "h1:fail", "id", False)] == [1]


def test_flags_mark_the_status_of_runs_not_to_be_believed(sample_db):
    run = TraceStore(sample_db, readonly=True).run(1)
    for scores, status in [({**run.scores, "scored": False}, "✓ succeeded (not scored)"),
                           ({**run.scores, "flags": ["impossible"]}, "✓ succeeded (impossible)")]:
        row = runs.RunRow(dataclasses.replace(run, scores=scores))
        assert row.cell("status") == status


def test_events_grouped_into_steps(sample_db):
    store = TraceStore(sample_db, readonly=True)
    trace = RunTrace(store.run(1))
    events = store.events(1)
    trace.add(events[:10])
    touched = trace.add(events[10:])
    assert trace.add(events[5:]) == []                      # seen events are ignored
    assert [s.number for s in trace.steps] == [0, 1, 2, 3, 4, FINAL]
    assert touched and trace.last_seq == events[-1].seq
    s1 = trace.steps[1]
    assert s1.tools == ["write_code", "run_eval"] and len(s1.reasoning) == 1
    assert s1.measure.status == "failed" and not s1.measure.passed
    assert s1.tokens_in == 1200 and math.isclose(s1.cost, 0.0123)
    assert trace.steps[2].measure.tool == "view_output"
    assert trace.steps[3].measure.passed and trace.steps[3].measure.cycles == 1702
    assert [k.version for k in trace.kernels] == [1, 2]
    assert trace.previous_kernel(trace.kernels[1].seq).version == 1
    assert trace.kernel_at(2).version == 1 and trace.kernel_at(3).version == 2
    assert [n for n, _ in trace.series()] == [1, 3]
    assert trace.best().cycles == 1702
    assert trace.index_of_seq(trace.steps[3].first_seq) == 3


def test_reexecution_reproduces_the_recording(sample_db):
    store = TraceStore(sample_db, readonly=True)
    run = store.run(1)
    for ev in store.events(1):
        if ev.type == "evaluation" and ev.step in (1, 2):
            r = reexecute(run, ev, store.kernel(ev.kernel_hash).source)
            assert r.identical, r.differences
            assert "identical to the recording" in r.summary()
            assert r.maps and r.maps[0].n_bad > 0           # the wrong kernel's bad rows


def test_reexecution_reports_a_difference(sample_db):
    store = TraceStore(sample_db, readonly=True)
    run = store.run(1)
    ev = next(e for e in store.events(1) if e.type == "evaluation")
    fixed = store.kernel(next(e for e in store.events(1) if e.step == 3 and e.type == "kernel")
                         .kernel_hash).source
    r = reexecute(run, ev, fixed)                           # another kernel than recorded
    assert not r.identical and any("passed" in d for d in r.differences)


def test_a_running_run_shows_its_best_speedup_so_far(tmp_path):
    from kernelcraft.workbench.tui.model.source import StoreReader
    with TraceStore(tmp_path / "t.db") as store:
        run = store.start_run("plena", "relu", "C1", agent="autotune",
                              settings={"budget": 15})
        for step, (passed, speedup) in enumerate([(True, 1.2), (False, 3.0), (True, 1.5)], 1):
            store.append(run, "evaluation", {"tool": "run_eval", "config": "C1",
                                             "result": {"passed": passed, "speedup": speedup,
                                                        "cycles": 100, "status": "passed"
                                                        if passed else "failed"}}, step=step)
        reader = StoreReader(tmp_path / "t.db")
        (row,) = reader.runs()
        assert row.run.status == "running" and row.cell("speedup") == "1.50x"
        assert row.cell("steps") == "3/15" and row.cell("status") == "● running"
        reader.close()


def test_a_failed_or_impossible_step_shows_no_speedup(tmp_path):
    """Recorded results may carry a speed-up (older runs did for failures); the timeline,
    the picker and the best-so-far show one only for a pass that is not impossible."""
    from kernelcraft.workbench.tui.widgets.run.timeline import step_line
    with TraceStore(tmp_path / "t.db") as store:
        run = store.start_run("plena", "relu", "C1", agent="llm", settings={"budget": 15})
        for step, result in enumerate([{"passed": False, "status": "failed", "speedup": 1551.0},
                                       {"passed": True, "status": "passed", "speedup": 40.0,
                                        "impossible": True},
                                       {"passed": True, "status": "passed", "speedup": 1.2}], 1):
            store.append(run, "evaluation", {"tool": "run_eval", "config": "C1",
                                             "result": {"cycles": 100, **result}}, step=step)
        trace = RunTrace(store.run(run))
        trace.add(store.events(run))
        lines = [step_line(s).plain for s in trace.steps if s.number in (1, 2, 3)]
        assert "1551" not in lines[0] and " - " in lines[0]
        assert "impos." in lines[1] and "40.00x" not in lines[1]
        assert "1.20x" in lines[2]
