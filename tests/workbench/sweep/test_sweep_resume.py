"""A sweep killed half-way and resumed redoes no finished cell, leaves no partial run,
and its report shows exactly the grid's cells."""
from __future__ import annotations

import json

from kernelcraft.workbench.store import TraceStore

from .conftest import CELLS, GRID, finished_cells, kernelcraft


def test_kill_loses_nothing_finished_and_resume_redoes_nothing(killed_and_resumed):
    k = killed_and_resumed
    assert k["resumed"].returncode == 0, k["resumed"].stderr
    before, s = k["before"], k["summary"]
    assert 4 <= len(before) < 12
    assert s["total"] == 12 and s["already_done"] == len(before)
    assert s["ran"] == 12 - len(before) and s["statuses"] == {"succeeded": 12 - len(before)}
    after = finished_cells(k["db"])
    assert len(after) == 12
    assert {c: after[c] for c in before} == before            # finished cells kept, not redone
    with TraceStore(k["db"], readonly=True) as store:
        runs = store.runs()
        assert len(runs) == 12                                 # no partial or duplicate run
        assert {(r.accelerator, r.task, r.config) for r in runs} == CELLS
        assert all(store.verify(r.id).ok for r in runs)
        assert {r.settings["sweep"]["cell"] for r in runs} == set(after)


def test_plain_log_without_a_terminal(killed_and_resumed):
    log = killed_and_resumed["log"]
    assert "kernelcraft sweep: sweep sw-" in log and "12 cells, 0 already finished" in log
    assert "kernelcraft sweep: [1/12] autotune" in log and "succeeded (run 1)" in log


def test_report_shows_exactly_the_sweeps_cells(killed_and_resumed, tmp_path):
    db = killed_and_resumed["db"]
    sweep_id = killed_and_resumed["summary"]["sweep_id"]
    r = kernelcraft("report", "--traces", str(db), "--sweep", sweep_id, "--out",
                    str(tmp_path / "rep"), "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert {(c["accel"], c["task"], c["config"]) for c in doc["runs"]} == CELLS
    assert doc["summary"]["runs"] == 12 and doc["summary"]["solved"] == 12
    again = kernelcraft("sweep", *GRID, "--traces", str(db))
    assert again.returncode == 0 and "12 were already finished; ran 0" in again.stdout
