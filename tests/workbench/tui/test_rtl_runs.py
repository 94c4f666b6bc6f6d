"""Runs started with --rtl in the workbench (the store of sample_rtl.py): the backends
record as lines (no app), then the picker's RTL column, the run view's summary, the
run_rtl feedback and the rtl_build notes driven in the app; runs without the record
read as before."""
from __future__ import annotations

import asyncio
import shutil

import pytest
from tui_kit import SIZE, screen_text, wait_for

from kernelcraft.workbench.store import Run, TraceStore
from kernelcraft.workbench.tui.app import KernelCraftApp
from kernelcraft.workbench.tui.model import backends, runs
from kernelcraft.workbench.tui.model.reexec import reexecute
from kernelcraft.workbench.tui.model.trace import FINAL, RunTrace
from kernelcraft.workbench.tui.screens.picker import PickerScreen
from kernelcraft.workbench.tui.screens.run import RunScreen
from kernelcraft.workbench.tui.widgets.run.conversation import step_text
from kernelcraft.workbench.tui.widgets.run.feedback import evaluation_text
from kernelcraft.workbench.tui.widgets.run.timeline import step_line


def _run(settings=None, scores=None, status="succeeded") -> Run:
    return Run(id=9, accelerator="plena", task="relu", config="C1", agent="llm",
               model="m", settings=settings or {}, versions={},
               started_at="2026-03-01T09:00:00Z", ended_at=None, status=status,
               scores=scores, steps=1, tokens_in=0, tokens_out=0, tokens_reasoning=0,
               cost=0.0, event_count=0, head_hash=None, writer_pid=None,
               writer_host=None, last_event_at=None)


def trace_of(db, run_id: int) -> RunTrace:
    with TraceStore(db, readonly=True) as store:
        t = RunTrace(store.run(run_id))
        t.add(store.events(run_id))
    return t


# ---------------------------------------------------------------- model, no app
@pytest.mark.parametrize("rtl, agree, cell", [
    ({"status": "pass", "cycles": 10}, True, "pass"),
    ({"status": "fail", "cycles": 10}, False, "fail ≠"),
    ({"status": "error", "cycles": None, "error": "RuntimeError: gone"}, None, "error"),
    ({"status": "run_error", "cycles": 3}, True, "run error"),
    ({"status": "not_run", "cycles": None, "reason": "no kernel passed run_eval"}, None, "not run"),
])
def test_rtl_cell_of_each_status(rtl, agree, cell):
    scores = {"backends": {"model": {"status": "pass"}, "rtl": rtl, "agree": agree}}
    assert backends.rtl_cell(_run({"rtl": True}, scores)) == cell


def test_rtl_cell_is_blank_without_rtl_and_pending_while_running():
    old = _run({"budget": 5}, {"best": None})            # before the record existed
    no_rtl = _run({"rtl": False}, {"backends": {"rtl": {"status": "not_run"}}})
    assert backends.rtl_cell(old) == backends.rtl_cell(no_rtl) == ""
    assert backends.rtl_cell(_run({"rtl": True}, None, status="running")) == "…"
    assert backends.rtl_cell(_run({"rtl": True}, None, status="interrupted")) == "-"


def test_rtl_column_only_when_some_run_has_rtl():
    plain = [runs.RunRow(_run({"budget": 3}))]
    assert "rtl" not in [c[0] for c in runs.columns_for(plain)]
    rows = plain + [runs.RunRow(_run({"rtl": True}, {"backends": {
        "rtl": {"status": "fail"}, "agree": False}}))]
    keys = [c[0] for c in runs.columns_for(rows)]
    assert keys[keys.index("speedup") + 1] == "rtl"       # beside the model's verdict
    assert [r.run.settings.get("rtl") for r in runs.select(rows, "rtl:fail", "id", False)] == [True]
    assert runs.parse_filter("rtl:pass") == [("rtl", "pass", False)]


def test_summary_lines_name_both_backends_and_the_first_divergence():
    d = {"input_set": "seed 7", "sets": 2,
         "first": "retired instruction #3: pc 3 `V_MAX_VF gp4, gp4, f0, 0`, issued at cycle 9"
                  "\n  vsram[5]: model 0x3F80 (1), RTL 0x3F81 (1.008)",
         "differences": [f"memory vsram[{i}]: differs" for i in range(10)]}
    lines = [t for t, _ in backends.summary_lines({"backends": {
        "kernel_version": 2, "run_rtl_calls": 1, "cycle_budget": 5000,
        "model": {"status": "pass", "cycles": 1551},
        "rtl": {"status": "fail", "cycles": 1551}, "agree": False, "divergence": d}})]
    assert lines[0] == "backends of the scored kernel (version 2); run_rtl called 1 time"
    assert lines[1:3] == ["  model: pass  1,551 cycles", "  RTL:   fail  1,551 cycles"]
    assert lines[3] == "  the backends DISAGREE on seed 7 (and 1 more input sets)"
    assert lines[4].startswith("    first divergence: retired instruction #3")
    assert lines[5] == "      vsram[5]: model 0x3F80 (1), RTL 0x3F81 (1.008)"
    assert "      ... 2 more" in lines and "  RTL cycle budget 5,000" in lines
    assert backends.summary_lines({"best": None}) == [] == backends.summary_lines(None)
    assert backends.summary_lines({"backends": {"rtl": {
        "status": "not_run", "reason": "the run was started without --rtl"}}}) == []


def test_status_lines_say_why_a_backend_did_not_run():
    lines = [t for t, _ in backends.comparison_lines({
        "model": {"status": "pass", "cycles": 5},
        "rtl": {"status": "error", "cycles": None, "error": "RuntimeError: gone\ntrace"},
        "agree": None})]
    assert lines == ["  model: pass  5 cycles", "  RTL:   error  (RuntimeError: gone)"]


def test_build_lines_for_each_outcome():
    assert backends.build_line("note", {"kind": "rtl_build", "state": "started",
                                        "simulator": "verilator"})[0] == \
        "RTL build started (verilator)"
    assert backends.build_line("note", {"kind": "rtl_build", "state": "done", "ok": True,
                                        "cached": False, "seconds": 71.5})[0] == \
        "RTL ready, built in 71.5 s"
    assert backends.build_line("note", {"kind": "rtl_build", "state": "done", "ok": True,
                                        "cached": False, "seconds": 71.5}, short=True)[0] == \
        "RTL built in 71.5 s"
    assert backends.build_line("error", {"where": "rtl_build", "error": "boom\nmore"}) == \
        ("RTL build failed: boom", "bold red")
    assert backends.build_line("error", {"where": "tool", "error": "x"}) is None
    assert backends.build_line("note", {"kind": "retry"}) is None


def test_recorded_rtl_run_as_steps(rtl_db):
    t = trace_of(rtl_db, 1)
    assert step_line(t.steps[0]).plain == "  0 prompt  RTL ready (cached)"
    assert "RTL ready (verilator), from the cache in 0.412 s" in step_text(t.steps[0]).plain
    step1, step2 = t.steps[1], t.steps[2]
    assert step1.tools == ["write_code", "run_eval", "run_rtl"]
    # the step's measure is still its run_eval
    assert step2.measure.tool == "run_eval" and step2.measure.passed
    text, _, _, details = evaluation_text(step2)
    plain = text.plain
    assert "run_rtl C2 kernel v2: failed" in plain
    assert "  model: pass  1,702 cycles\n  RTL:   fail  1,702 cycles" in plain
    assert "the backends DISAGREE on seed 107" in plain
    assert "first divergence: retired instruction #9: pc 8 (line 23) `V_MAX_VF gp4, gp4, f0, 0`" in plain
    assert "      vsram[5]: model 0x3F80 (1), RTL 0x3F81 (1.008)" in plain
    assert "the backends DISAGREE" in details.plain           # the tool's own words too
    assert "the backends agree" in evaluation_text(step1)[0].plain
    final = step_text(t.steps[-1]).plain
    assert t.steps[-1].number == FINAL
    assert "final_rtl on C2: backends: model pass 1,702 cycles, RTL fail 1,702 cycles; " \
        "the backends DISAGREE" in final
    assert "backends of the scored kernel (version 2); run_rtl called 2 times" in final
    assert "the backends DISAGREE on seed 108 (and 4 more input sets)" in final
    assert "- backends: model" not in final          # not also score_lines' one-liner
    assert "held-out seeds: PASS" in final


def test_run_rtl_is_not_reexecuted_on_the_model_alone(rtl_db):
    t = trace_of(rtl_db, 1)
    ev = next(e for e in t.steps[2].evaluations if e.payload["tool"] == "run_rtl")
    with pytest.raises(ValueError, match=r"run_rtl at seq \d+ ran the RTL.*kernelcraft replay 1"):
        reexecute(t.run, ev, "unused")


def test_failed_build_and_run_without_rtl(rtl_db):
    t = trace_of(rtl_db, 2)
    assert step_line(t.steps[0]).plain == "  0 prompt  RTL build failed"
    prompt = step_text(t.steps[0]).plain
    assert "RTL build started (verilator)" in prompt
    assert "RTL build failed: verilator: %Error: plena_top.sv:88: VLEN 48 is not a power of two" in prompt
    assert "model: not run  (no kernel passed run_eval)" in step_text(t.steps[-1]).plain
    plain = trace_of(rtl_db, 3)
    assert step_line(plain.steps[0]).plain == "  0 prompt"
    final = step_text(plain.steps[-1]).plain       # as score_lines has it, as before
    assert "- backends: model pass 1,702 cycles, RTL not run" in final
    assert "backends of the scored kernel" not in final


def test_runs_before_the_record_show_no_backends(sample_db):
    t = trace_of(sample_db, 1)
    final = step_text(t.steps[-1]).plain
    assert "backends of the scored kernel" not in final and "RTL build" not in final
    assert step_line(t.steps[0]).plain == "  0 prompt"


# ---------------------------------------------------------------- in the app
def drive(db, script):
    async def go():
        app = KernelCraftApp(db)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen)
                           and app.screen.loaded)
            await script(app, pilot)
    asyncio.run(go())


def test_picker_and_run_view_of_rtl_runs(rtl_db, tmp_path):
    db = tmp_path / "traces.db"
    shutil.copy(rtl_db, db)

    async def script(app, pilot):
        text = screen_text(app)
        header = next(ln for ln in text.splitlines() if "speed-up" in ln)
        assert "RTL" in header.split("speed-up")[1].split("tokens")[0]
        row = {ln.split()[0]: ln for ln in text.splitlines()
               if ln.strip()[:1].isdigit() and "relu" in ln}
        assert "fail ≠" in row["1"] and "not run" in row["2"]
        await pilot.press("f", *"rtl:fail", "enter")
        assert [r.run.id for r in app.screen.shown] == [1]
        app.screen.query_one("#runs").move_to_run(1)
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: isinstance(app.screen, RunScreen)
                              and app.screen.finished_reading and app.screen.index is not None)
        text = screen_text(app)
        assert "RTL fail ≠" in text and "0 prompt  RTL ready (cached)" in text
        await pilot.press("end")
        assert await wait_for(pilot, lambda: "backends of the scored kernel" in screen_text(app))
        text = screen_text(app)
        assert "the backends DISAGREE on seed 108" in text
        assert "first divergence: retired instruction #9" in text
        await pilot.press("home", "right", "right", "3")         # step 2, the Feedback tab
        assert await wait_for(pilot, lambda: "run_rtl C2 kernel v2: failed" in screen_text(app))
        assert "RTL:   fail  1,702 cycles" in screen_text(app)
        await pilot.press("x")             # re-executes the step's run_eval, not its run_rtl
        assert await wait_for(pilot, lambda: app.screen.reexec, timeout=20)
        (seq,) = app.screen.reexec
        assert app.screen.trace.steps[2].evaluations[0].seq == seq
        assert app.screen.reexec[seq].identical
    drive(db, script)


def test_picker_without_rtl_runs_has_no_rtl_column(sample_db, tmp_path):
    db = tmp_path / "traces.db"
    shutil.copy(sample_db, db)

    async def script(app, pilot):
        header = next(ln for ln in screen_text(app).splitlines() if "speed-up" in ln)
        assert " RTL " not in header
        await pilot.press(*"s" * 12)               # sort cycles over the shown columns only
        assert app.screen.sort_key != "rtl"
    drive(db, script)
