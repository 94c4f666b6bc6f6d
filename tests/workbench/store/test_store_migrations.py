"""Opening a store written by an older version migrates it forward, keeping its runs."""
from __future__ import annotations

import sqlite3
from contextlib import closing

import pytest
from sqlite_utils import Database

from kernelcraft.workbench.store import SchemaOutdatedError, TraceStore
from kernelcraft.workbench.store.chain import event_hash, genesis_hash, seal_hash, sha256_text
from kernelcraft.workbench.store.schema import known_names

OLD_KERNEL = "    V_RED_SUM f1, v7\n"


def write_old_store(path) -> None:
    """A store as the first release wrote it: only m001 applied, rows inserted by hand
    with that release's columns (no writer columns, no search index)."""
    db = Database(path)
    from kernelcraft.workbench.store.schema import MIGRATIONS
    MIGRATIONS.apply(db, stop_before="m002_full_text_search")
    for run_id, status in ((1, "succeeded"), (2, "running")):
        header = {"id": run_id, "accelerator": "plena", "task": "rms_norm", "config": "C2",
                  "agent": "autotune", "model": None, "settings": "{}",
                  "versions": '{"kernelcraft":"0.0.1"}', "started_at": "2026-01-01T00:00:00Z"}
        prev = genesis_hash(header)
        texts = ["old message about normalisation", "evaluated the old kernel"]
        for seq, text in enumerate(texts):
            ev = {"run_id": run_id, "seq": seq, "ts": f"2026-01-01T00:00:0{seq + 1}Z",
                  "type": "message" if seq == 0 else "kernel", "role": None, "step": seq,
                  "payload": "{}", "text": text, "tokens_in": 10, "tokens_out": 1,
                  "tokens_reasoning": 0, "cost": 0.5,
                  "kernel_hash": sha256_text(OLD_KERNEL) if seq else None}
            if seq:
                db.execute("INSERT OR IGNORE INTO kernels VALUES (?, ?, ?)",
                           [ev["kernel_hash"], OLD_KERNEL, ev["ts"]])
            ev["prev_hash"], ev["hash"] = prev, event_hash(prev, ev)
            db["events"].insert(ev)
            prev = ev["hash"]
        final = {"status": status, "ended_at": "2026-01-01T00:01:00Z" if run_id == 1 else None,
                 "scores": '{"correct":true}' if run_id == 1 else None, "event_count": 2}
        db["runs"].insert({**header, **final, "steps": 1, "tokens_in": 20, "tokens_out": 2,
                           "tokens_reasoning": 0, "cost": 1.0, "head_hash": prev,
                           "seal": seal_hash(prev, final) if run_id == 1 else None})
    db.execute("PRAGMA journal_mode = DELETE")  # as a single file, like a copied store
    db.close()


def test_old_store_is_migrated_forward(db_path):
    write_old_store(db_path)
    with closing(sqlite3.connect(db_path)) as raw:
        assert [r[0] for r in raw.execute("SELECT name FROM _migrations")] == [
            "m001_runs_events_kernels"]
    with TraceStore(db_path) as store:
        with closing(sqlite3.connect(db_path)) as raw:
            applied = [r[0] for r in raw.execute("SELECT name FROM _migrations ORDER BY id")]
            columns = {r[1] for r in raw.execute("PRAGMA table_info(runs)")}
        assert applied == known_names() and len(applied) >= 3
        assert {"writer_pid", "writer_host", "last_event_at"} <= columns
        # Old rows kept, still verifiable; the old 'running' run has no live writer.
        finished, dangling = store.run(1), store.run(2)
        assert (finished.status, finished.scores) == ("succeeded", {"correct": True})
        assert dangling.status == "interrupted" and dangling.writer_pid is None
        assert store.verify(1).ok and store.verify(1).sealed and store.verify(2).ok
        # The search index was filled from the rows that existed before it.
        assert {h.run_id for h in store.search("normalisation")} == {1, 2}
        assert {(h.run_id, h.seq) for h in store.search("V_RED_SUM") if h.kind == "kernel"} == {
            (1, 1), (2, 1)}
        # And the migrated store records new runs.
        new = store.start_run("plena", "rms_norm", "C2", agent="autotune")
        store.append(new, "note", {"after": "migration"})
        store.finish_run(new, "succeeded")
        assert store.verify(new).ok and new == 3
    with TraceStore(db_path) as again:  # nothing left to apply the second time
        assert [r.id for r in again.runs(order="id")] == [1, 2, 3]


def test_old_store_opened_read_only_is_refused_unchanged(db_path):
    write_old_store(db_path)
    before = db_path.read_bytes()
    with pytest.raises(SchemaOutdatedError,
                       match="needs schema migrations m002_full_text_search, "
                             "m003_writer_liveness, m004_sweeps but was opened read-only"):
        TraceStore(db_path, readonly=True)
    assert db_path.read_bytes() == before
    assert sorted(p.name for p in db_path.parent.iterdir()) == ["traces.db"]


def test_migrations_are_recorded_with_names_and_times(store, db_path):
    store.start_run("plena", "relu", "C1", agent="autotune")
    with closing(sqlite3.connect(db_path)) as raw:
        rows = raw.execute("SELECT migration_set, name, applied_at FROM _migrations "
                           "ORDER BY id").fetchall()
    assert [r[1] for r in rows] == known_names()
    assert all(r[0] == "kernelcraft-traces" and r[2] for r in rows)
