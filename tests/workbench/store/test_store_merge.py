"""Importing a run exported from another store (a sweep worker's): one transaction,
a new id, the chain rebuilt and verifiable, timestamps and contents kept."""
from __future__ import annotations

import io

import pytest

from kernelcraft.workbench.store import InvalidRecordError, TraceStore
from kernelcraft.workbench.store.merge import import_run

from .conftest import record_run


def _export(store, run_id) -> str:
    buf = io.StringIO()
    store.export_jsonl(run_id, buf)
    return buf.getvalue()


def test_imported_run_verifies_and_keeps_its_record(tmp_path):
    with TraceStore(tmp_path / "worker.db") as worker:
        wid = record_run(worker, n_turns=3)
        exported = _export(worker, wid)
        original = worker.run(wid)
        events = worker.events(wid)
    with TraceStore(tmp_path / "main.db") as main:
        main.start_run("plena", "relu", "C1", agent="x")       # ids differ from the worker's
        seen = []
        rid = import_run(main, exported, then=lambda conn, run_id: seen.append(run_id))
        assert seen == [rid] and rid != wid
        run = main.run(rid)
        assert main.verify(rid).ok and main.verify(rid).sealed
        for field in ("status", "scores", "started_at", "ended_at", "steps", "tokens_in",
                      "cost", "event_count", "settings"):
            assert getattr(run, field) == getattr(original, field), field
        got = main.events(rid)
        assert [(e.ts, e.type, e.payload, e.kernel_hash) for e in got] == \
               [(e.ts, e.type, e.payload, e.kernel_hash) for e in events]
        assert main.search("V_EXP_V", run_id=rid)


def test_a_failing_hook_leaves_nothing_behind(tmp_path):
    with TraceStore(tmp_path / "worker.db") as worker:
        exported = _export(worker, record_run(worker))
    with TraceStore(tmp_path / "main.db") as main:
        main.start_run("plena", "relu", "C1", agent="x")

        def boom(conn, run_id):
            raise RuntimeError("coordinator stopped")
        with pytest.raises(RuntimeError):
            import_run(main, exported, then=boom)
        assert [r.id for r in main.runs()] == [1]


def test_unfinished_runs_are_refused(tmp_path):
    with TraceStore(tmp_path / "worker.db") as worker:
        exported = _export(worker, record_run(worker, finish=None))
    with TraceStore(tmp_path / "main.db") as main:
        with pytest.raises(InvalidRecordError, match="still running"):
            import_run(main, exported)
